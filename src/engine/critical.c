/*
 * The critical path and the slack of a finished run (include/ppsim/critical.h), read from its op
 * times in the engine's max-plus model.
 *
 * The path is walked back from the last op of the device that ends the step. At each op (an
 * overlapped pair is one node) the walk takes a predecessor that ended, or arrived, exactly when
 * the op started: the device's previous op first; else the message that held the device
 * (blocking sends) or brought an input from another device. A message's start is its arrival
 * less its duration; if its producer ended then, the walk goes on from the producer, else the
 * message waited for its channel behind the one before it, which arrived then. An op finds its
 * producer by binary search on the producer's device's end times, and the message before a
 * message on its channel by scanning back the sender's list (channels are first come, first
 * served, and a full-duplex channel has one sender): the walk costs about the path's length.
 * Only where an op may have waited for either of two messages does it price them exactly
 * (msg_arrival), back along their channel to a message that surely found it free.
 *
 * The slack is a backward pass over the order the run finished its ops in (a topological
 * order, in which each channel's messages come in the order they took it): each op's latest end
 * is the least of its next op's latest start on its device, the latest start of the message it
 * sends (its consumer's latest start, or the next message's on the channel, or with blocking
 * sends the device's next op's, less its duration), and for a device's last op the step less
 * the device's tail. A consumer leaves its op index in a table of (micro-batch, stage) cells for
 * its producer on another device, which comes later in the pass: the sweep's own cells when the
 * run's arena still holds them (so two slack passes of one engine must not run at once).
 */
#include "ppsim/critical.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/hot.h"
#include "engine_internal.h"

#define NONE   SIZE_MAX
#define LATEST INT64_MAX

/* What the walk reads, and its stack of messages for msg_arrival. */
struct walk {
	const struct engine *e;
	const struct sched *s;
	const struct op_time *t;
	const uint32_t *order; /* the run's order, or NULL */
	bool half;             /* half-duplex channels: a channel has two senders */
	size_t *stack;
	size_t nstack, cap;
};

static uint32_t dev_of(const struct sched *s, size_t i)
{
	return s->stage_device[s->ops[i].stage];
}

/* The first op of op i's node: its pair's forward when i is a pair's backward. */
static size_t node_of(const struct sched *s, size_t i)
{
	return i > s->dev_start[dev_of(s, i)] && (s->ops[i - 1].flags & OP_OVERLAP) ? i - 1 : i;
}

/* The last op of the node whose first op is f. */
static size_t node_last(const struct sched *s, size_t f)
{
	return s->ops[f].flags & OP_OVERLAP ? f + 1 : f;
}

/* The channel op i's output takes to its consumer on another device, with the boundary that
 * prices it in *b; -1 when it has no consumer on another device. */
static int send_chan(const struct engine *e, size_t i, uint32_t *b)
{
	const struct sched *s = e->s;
	const struct op *op = &s->ops[i];

	if (op->kind == OP_F) {
		if (sched_route_last(s, op->stage))
			return -1;
		*b = op->stage;
		return e->fwd_chan[op->stage];
	}
	if (op->kind == OP_W || sched_route_first(s, op->stage))
		return -1;
	*b = op->stage - 1;
	return e->bwd_chan[op->stage - 1];
}

/* The same message's duration when it takes channel ch at start. */
static pp_time msg_dur_at(const struct engine *e, int ch, size_t i, uint32_t b, pp_time start)
{
	pp_time d = engine_msg_duration(e, i, b);

	return e->slow_chan != NULL ? engine_slowed(&e->slow_chan[ch], start, d) : d;
}

/* An op as the walk looks for it: forward or backward (B or BW), micro-batch, stage, device. */
struct ident {
	bool fwd;
	uint32_t mb, stage, dev;
};

static bool matches(const struct op *op, const struct ident *id)
{
	return op->mb == id->mb && op->stage == id->stage &&
	       (id->fwd ? op->kind == OP_F : op->kind == OP_B || op->kind == OP_BW);
}

/* The producer of op i's input from another device, into *id with the channel it came by and
 * its boundary; -1 when op i has none. */
static int cross_input(const struct engine *e, size_t i, struct ident *id, uint32_t *b)
{
	const struct sched *s = e->s;
	const struct op *op = &s->ops[i];
	int ch;

	if (op->kind == OP_F && !sched_route_first(s, op->stage)) {
		*id = (struct ident){true, op->mb, op->stage - 1, 0};
		*b = op->stage - 1;
		ch = e->fwd_chan[op->stage - 1];
	} else if ((op->kind == OP_B || op->kind == OP_BW) && !sched_route_last(s, op->stage)) {
		*id = (struct ident){false, op->mb, op->stage + 1, 0};
		*b = op->stage;
		ch = e->bwd_chan[op->stage];
	} else {
		return -1;
	}
	id->dev = s->stage_device[id->stage];
	return ch;
}

/* The consumer on another device of the message op k sends. */
static struct ident consumer_of(const struct sched *s, size_t k)
{
	const struct op *op = &s->ops[k];
	uint32_t st = op->kind == OP_F ? op->stage + 1 : op->stage - 1;

	return (struct ident){op->kind == OP_F, op->mb, st, s->stage_device[st]};
}

/* The op id that ended by ub: back from the last op of its device that did. NONE if none. */
static size_t find_before(const struct walk *w, const struct ident *id, pp_time ub)
{
	size_t first = w->s->dev_start[id->dev], lo = first, hi = w->s->dev_start[id->dev + 1];

	while (lo < hi) { /* a device's ends do not decrease along its list */
		size_t mid = lo + (hi - lo) / 2;

		if (w->t[mid].end <= ub)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k-- > first;)
		if (matches(&w->s->ops[k], id))
			return k;
	return NONE;
}

/* The op id that started at or after lb: on from the first op of its device that did. */
static size_t find_after(const struct walk *w, const struct ident *id, pp_time lb)
{
	size_t lo = w->s->dev_start[id->dev], hi = w->s->dev_start[id->dev + 1], end = hi;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->t[mid].start < lb)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < end; k++)
		if (matches(&w->s->ops[k], id))
			return k;
	return NONE;
}

/* The position of op x in the run's order, which the event loop wrote by end time. */
static size_t order_pos(const struct walk *w, size_t x)
{
	size_t lo = 0, hi = w->s->nops;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->t[w->order[mid]].end < w->t[x].end)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < w->s->nops && w->order[lo] != x)
		lo++;
	return lo;
}

/* Whether op a sent its message before op b did, both on a half-duplex channel from its two
 * ends: by end time, then by the run's order. */
static bool sent_before(const struct walk *w, size_t a, size_t b)
{
	if (w->t[a].end != w->t[b].end)
		return w->t[a].end < w->t[b].end;
	return order_pos(w, a) < order_pos(w, b);
}

/* The op whose message took channel ch just before op x's did, or NONE. */
static size_t fifo_prev(const struct walk *w, size_t x, int ch)
{
	const struct sched *s = w->s;
	const struct channel_result *cr = &w->e->res.channels[ch];
	uint32_t d = dev_of(s, x), b, other;
	size_t mine = NONE, theirs = NONE, lo, hi;

	for (size_t k = x; k-- > s->dev_start[d];)
		if (send_chan(w->e, k, &b) == ch) {
			mine = k;
			break;
		}
	if (!w->half)
		return mine;
	/* the other end's last message sent before x's */
	other = (uint32_t)(cr->src == (int)d ? cr->dst : cr->src);
	lo = s->dev_start[other];
	hi = s->dev_start[other + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->t[mid].end <= w->t[x].end)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k-- > s->dev_start[other];)
		if (send_chan(w->e, k, &b) == ch && sent_before(w, k, x)) {
			theirs = k;
			break;
		}
	if (mine == NONE || theirs == NONE)
		return mine == NONE ? theirs : mine;
	return sent_before(w, mine, theirs) ? theirs : mine;
}

/* Pushes op k on w's stack; -1 when out of memory. */
static int push(struct walk *w, size_t k)
{
	if (w->nstack == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		size_t *n = realloc(w->stack, cap * sizeof(*n));

		if (n == NULL)
			return -1;
		w->stack = n;
		w->cap = cap;
	}
	w->stack[w->nstack++] = k;
	return 0;
}

/*
 * When op x's message on channel ch arrived, into *at: back along the channel to a message
 * that found it free (the first, or one sent after the message before it had surely arrived:
 * by its consumer's start, or with blocking sends by its sender's next op's), then forward.
 * Returns 0, or -1 when out of memory.
 */
static int msg_arrival(struct walk *w, size_t x, int ch, pp_time *at)
{
	const struct engine *e = w->e;
	size_t y = x;
	pp_time free_at = 0;

	w->nstack = 0;
	for (;;) {
		size_t prev, c, next;
		struct ident id;
		pp_time bound = LATEST;

		if (push(w, y) != 0)
			return -1;
		if ((prev = fifo_prev(w, y, ch)) == NONE)
			break;
		id = consumer_of(w->s, prev);
		if ((c = find_after(w, &id, w->t[prev].end)) != NONE)
			bound = w->t[c].start;
		next = node_last(w->s, node_of(w->s, prev)) + 1;
		if (e->c->comm == PP_COMM_BLOCKING &&
		    next < w->s->dev_start[dev_of(w->s, prev) + 1] && w->t[next].start < bound)
			bound = w->t[next].start;
		if (bound <= w->t[y].end)
			break;
		y = prev;
	}
	while (w->nstack > 0) {
		size_t k = w->stack[--w->nstack];
		pp_time start = w->t[k].end > free_at ? w->t[k].end : free_at;
		uint32_t b;

		send_chan(e, k, &b);
		free_at = start + msg_dur_at(e, ch, k, b, start);
	}
	*at = free_at;
	return 0;
}

/* When op x's message on channel ch (boundary b) that arrived at arrive started, into *start;
 * false when no start gives that arrival. */
static bool start_of(const struct walk *w, size_t x, int ch, uint32_t b, pp_time arrive,
                     pp_time *start)
{
	const struct engine *e = w->e;
	pp_time base = engine_msg_duration(e, x, b), slowed, a, c;
	const struct slow_at *sl;

	if (e->slow_chan == NULL || e->slow_chan[ch].factor == 1) {
		*start = arrive - base;
		return true;
	}
	sl = &e->slow_chan[ch];
	slowed = engine_slowed(sl, sl->at, base);
	a = arrive - slowed; /* taken once the link had slowed: valid when a >= at */
	c = arrive - base;   /* taken before: valid when c < at */
	/* both valid only for a link made faster; then the start its producer allows */
	*start = a >= sl->at && (c >= sl->at || a >= w->t[x].end) ? a : c;
	return *start == a ? a >= sl->at : c < sl->at;
}

/* A message a node may have waited for: the producer (NONE: to be found), its channel and
 * boundary, and for an input the producer to find. */
struct cand {
	size_t x;
	int ch;
	uint32_t b;
	struct ident id;
};

static int internal(struct pp_error *err, size_t op)
{
	return pp_fail(err, PP_ERR_SIM,
	               "internal error: the critical path found no predecessor of op %zu", op);
}

/*
 * Follows the message of producer x that arrived on channel ch at arrive back to the node it
 * came from (through the messages it queued behind), into *n, adding their time to cp.
 */
static int follow(struct walk *w, struct critical_path *cp, size_t x, int ch, pp_time arrive,
                  size_t *n, struct pp_error *err)
{
	for (;;) {
		pp_time start;
		uint32_t b;
		size_t y;

		send_chan(w->e, x, &b);
		if (!start_of(w, x, ch, b, arrive, &start) || start < w->t[x].end)
			return internal(err, x);
		cp->transfer += arrive - start;
		cp->messages++;
		if (start == w->t[x].end) {
			*n = node_of(w->s, x);
			return 0;
		}
		if ((y = fifo_prev(w, x, ch)) == NONE)
			return internal(err, x);
		x = y;
		arrive = start;
	}
}

/*
 * The predecessor of the node f..l (previous node q or NONE) that started at s0 after q ended:
 * a message held the device (blocking sends of q) or brought an input. One candidate is it;
 * of several, the first whose exact arrival is s0.
 */
static int by_message(struct walk *w, struct critical_path *cp, size_t q, size_t f, size_t l,
                      pp_time s0, size_t *n, struct pp_error *err)
{
	const struct engine *e = w->e;
	struct cand c[4];
	int nc = 0;

	if (e->c->comm == PP_COMM_BLOCKING && q != NONE)
		for (size_t k = q; k <= node_last(w->s, q); k++) {
			uint32_t b;
			int ch = send_chan(e, k, &b);

			if (ch >= 0)
				c[nc++] = (struct cand){k, ch, b, {0}};
		}
	for (size_t k = f; k <= l; k++) {
		struct cand x = {NONE, -1, 0, {0}};

		if ((x.ch = cross_input(e, k, &x.id, &x.b)) >= 0)
			c[nc++] = x;
	}
	for (int i = 0; i < nc; i++) {
		pp_time at;

		if (c[i].x == NONE && (c[i].x = find_before(w, &c[i].id, s0)) == NONE)
			continue;
		if (nc == 1)
			return follow(w, cp, c[i].x, c[i].ch, s0, n, err);
		if (msg_arrival(w, c[i].x, c[i].ch, &at) != 0)
			return pp_nomem(err, w->cap, sizeof(*w->stack));
		if (at == s0)
			return follow(w, cp, c[i].x, c[i].ch, s0, n, err);
	}
	return internal(err, f);
}

/* The run of e, checked to be finished with its times (and its order when order is set). */
static const struct result *finished(const struct engine *e, bool order, struct pp_error *err)
{
	if (!e->ok) {
		pp_fail(err, PP_ERR_USAGE, "the run did not finish");
		return NULL;
	}
	if (e->res.times == NULL || (order && e->res.order == NULL)) {
		pp_fail(err, PP_ERR_USAGE, "the run kept no op %s",
		        e->res.times == NULL ? "times" : "order");
		return NULL;
	}
	return &e->res;
}

int engine_critical_path(const struct engine *e, struct critical_path *cp, uint32_t *path,
                         size_t *npath, struct pp_error *err)
{
	const struct sched *s = e->s;
	const struct result *r = finished(e, false, err);
	struct walk w = {e, s, NULL, NULL, e->c->duplex == PP_DUPLEX_HALF, NULL, 0, 0};
	size_t np = 0, n;
	pp_time sum;
	int d = 0, rc = 0;

	memset(cp, 0, sizeof(*cp));
	if (r == NULL)
		return -1;
	if (w.half && r->order == NULL)
		return pp_fail(err, PP_ERR_USAGE,
		               "the run kept no op order, which half-duplex channels need");
	w.t = r->times;
	w.order = r->order;
	if ((cp->devices = pp_calloc((size_t)s->p, sizeof(*cp->devices))) == NULL)
		return pp_nomem(err, (size_t)s->p, sizeof(*cp->devices));
	while (d + 1 < s->p && r->devices[d].end != r->step_end)
		d++;
	cp->length = r->step_end;
	cp->device = d;
	cp->tail = r->devices[d].end - r->devices[d].last_end;
	n = s->dev_start[d + 1] > s->dev_start[d] ? node_of(s, s->dev_start[d + 1] - 1) : NONE;
	while (n != NONE) {
		size_t f = n, l = node_last(s, f), q = NONE;
		uint32_t dv = dev_of(s, f);
		pp_time span = w.t[f].end - w.t[f].start, s0 = w.t[f].start;

		cp->devices[dv] += span;
		cp->kind[l != f ? CRITICAL_PAIR : s->ops[f].kind] += span;
		cp->ops++;
		if (path != NULL)
			path[np++] = (uint32_t)f;
		if (s0 == 0)
			break;
		if (f > s->dev_start[dv]) {
			q = node_of(s, f - 1);
			if (w.t[q].end == s0) {
				n = q;
				continue;
			}
		}
		if ((rc = by_message(&w, cp, q, f, l, s0, &n, err)) != 0)
			break;
	}
	free(w.stack);
	sum = cp->transfer + cp->tail;
	for (int k = 0; rc == 0 && k < s->p; k++)
		sum += cp->devices[k];
	if (rc == 0 && sum != cp->length)
		rc = pp_fail(err, PP_ERR_SIM,
		             "internal error: the critical path adds up to %lld ticks, the step "
		             "to %lld",
		             (long long)sum, (long long)cp->length);
	if (rc != 0) {
		critical_path_release(cp);
		return -1;
	}
	for (size_t i = 0; path != NULL && i < np / 2; i++) {
		uint32_t x = path[i];

		path[i] = path[np - 1 - i];
		path[np - 1 - i] = x;
	}
	if (npath != NULL)
		*npath = np;
	return 0;
}

void critical_path_release(struct critical_path *cp)
{
	free(cp->devices);
	memset(cp, 0, sizeof(*cp));
}

/* How many ops of the order ahead the slack pass asks for (engine_slack). */
#define SLACK_AHEAD 16

/* The table's entry of (mb, stage) for the consumer of a forward (0) or a gradient (1). */
static size_t cell_of(const struct sched *s, uint32_t mb, uint32_t st, int grad)
{
	return 2 * ((size_t)mb * s->route_stages + st % s->route_stages) + (size_t)grad;
}

int engine_slack(const struct engine *e, pp_time *slack, struct pp_error *err)
{
	const struct sched *s = e->s;
	const struct result *r = finished(e, true, err);
	const struct op_time *t;
	size_t ncells = 2 * sched_cells(s), nch, *at = NULL;
	uint32_t *in = NULL;
	pp_time *next;
	bool blocking = e->c->comm == PP_COMM_BLOCKING, own = false;

	if (r == NULL)
		return -1;
	t = r->times;
	nch = (size_t)r->nchannels;
	if (r->msgs != NULL) {
		/* a recorded run names each message's consumer: each device's messages, in the
		 * order of its ops, are met last first, as the pass meets the device's ops */
		if ((at = pp_mallocarray((size_t)s->p, sizeof(*at))) == NULL)
			return pp_nomem(err, (size_t)s->p, sizeof(*at));
		memcpy(at, e->msg_end, (size_t)s->p * sizeof(*at));
	} else {
		/* the sweep's cells, dead once it ran, when the arena still holds them */
		own = e->spare == NULL || e->spare_bytes < ncells * sizeof(*in);
		in = own ? pp_mallocarray_large(ncells, sizeof(*in)) : e->spare;
	}
	next = pp_mallocarray(nch > 0 ? nch : 1, sizeof(*next));
	if ((in == NULL && at == NULL) || next == NULL) {
		if (own)
			free(in);
		free(at);
		free(next);
		return pp_nomem(err, ncells, sizeof(*in));
	}
	/* with slow links, each message's duration as it ran, kept in its producer's slack */
	for (size_t ch = 0; ch < nch; ch++)
		next[ch] = 0;
	for (size_t pos = 0; e->slow_chan != NULL && pos < s->nops; pos++) {
		size_t x = r->order[pos];
		uint32_t b;
		int ch = send_chan(e, x, &b);

		if (ch >= 0) {
			pp_time start = t[x].end > next[ch] ? t[x].end : next[ch];

			slack[x] = msg_dur_at(e, ch, x, b, start);
			next[ch] = start + slack[x];
		}
	}
	for (size_t ch = 0; ch < nch; ch++)
		next[ch] = LATEST;
	for (size_t pos = s->nops; pos-- > 0;) {
		size_t f = node_of(s, r->order[pos]), l = node_last(s, f);
		uint32_t d = dev_of(s, f);
		pp_time late, hold = LATEST;

		/* the order goes from device to device, each a stream of its own backwards through
		 * the ops, their times and slacks, and its messages: asked for ahead */
		if (pos >= SLACK_AHEAD) {
			size_t x = r->order[pos - SLACK_AHEAD];

			PP_PREFETCH(&s->ops[x]);
			PP_PREFETCH(&t[x]);
			PP_PREFETCH(&slack[x]);
		}
		if (at != NULL && at[d] >= 4) {
			/* and the times and slack of the consumer of its message after next (of a
			 * record in the array at least) */
			uint32_t c = r->msgs[at[d] - 2].to;

			PP_PREFETCH(&r->msgs[at[d] - 4]);
			PP_PREFETCH(&t[c]);
			PP_PREFETCH(&slack[c]);
		}

		if (l != f) { /* a pair's two ops finished together, its forward first */
			assert(r->order[pos] == l && pos > 0 && r->order[pos - 1] == f);
			pos--;
		}
		if (l + 1 < s->dev_start[d + 1])
			late = hold = t[l + 1].start + slack[l + 1];
		else
			late = r->step_end - (r->devices[d].end - r->devices[d].last_end);
		for (size_t k = l + 1; k-- > f;) { /* the later message took its channel later */
			const struct op *op = &s->ops[k];
			uint32_t b;
			int ch = send_chan(e, k, &b);
			pp_time la, dur;
			uint32_t c;

			if (ch < 0)
				continue;
			if (at != NULL) {
				const struct msg_record *g = &r->msgs[--at[d]];

				assert(g->from == k);
				c = g->to;
			} else {
				c = in[op->kind == OP_F ? cell_of(s, op->mb, op->stage + 1, 0)
				                        : cell_of(s, op->mb, op->stage - 1, 1)];
			}
			la = t[c].start + slack[c];
			if (next[ch] < la)
				la = next[ch];
			if (blocking && hold < la)
				la = hold;
			dur = e->slow_chan != NULL ? slack[k] : engine_msg_duration(e, k, b);
			next[ch] = la - dur;
			if (next[ch] < late)
				late = next[ch];
		}
		for (size_t k = f; k <= l; k++) {
			const struct op *op = &s->ops[k];
			uint32_t st = op->stage;

			slack[k] = late - t[k].end;
			if (at != NULL)
				continue;
			if (op->kind == OP_F && !sched_route_first(s, st) &&
			    s->stage_device[st - 1] != d)
				in[cell_of(s, op->mb, st, 0)] = (uint32_t)k;
			else if ((op->kind == OP_B || op->kind == OP_BW) &&
			         !sched_route_last(s, st) && s->stage_device[st + 1] != d)
				in[cell_of(s, op->mb, st, 1)] = (uint32_t)k;
		}
	}
	if (own)
		free(in);
	free(at);
	free(next);
	return 0;
}
