/*
 * The walk over a run's trace that the Chrome trace (trace.c) and Perfetto's protobuf trace
 * (pftrace.c) share: which tracks a run has, and what each op, message, stream slice and
 * counter sample is (trace_walk.h).
 */
#include "trace_walk.h"

#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"
#include "formats.h"

/* The category of an op's slice and of a message's transfer and arrow: the pass, "forward" (F)
 * or "backward" (B, W, BW). Chrome's trace engine binds a flow event to the slice of its own
 * category, process, thread and time, and a message always joins two ops of one pass (an F to
 * an F, a backward to a backward, fused or split alike), so both ends of every arrow bind. */
static const char *pass_of(enum op_kind k)
{
	return k == OP_F ? "forward" : "backward";
}

/* Index into w->tid of message g's direction: 2 ch from the channel's src, 2 ch + 1 back from
 * its dst. */
static size_t direction_of(const struct drawing *s, const struct msg_record *g)
{
	int src, dst, ch;

	report_msg_devices(s, g, &src, &dst);
	ch = result_channel(s->result, src, dst);
	return 2 * (size_t)ch + (src != s->result->channels[ch].src);
}

/*
 * The track (tid) of each direction of each channel, 1 + its rank among its sending device's
 * tracks, into a new array of 2 per channel (NULL when out of memory): [2 ch] sends from the
 * channel's src to its dst, [2 ch + 1] the other way, which only a half-duplex channel carries
 * (0 when no message goes that way). In one pass over the channels and one over the messages,
 * so that a run of many devices costs no more per channel than a small one.
 */
static int *channel_tids(const struct drawing *s)
{
	const struct result *r = s->result;
	int *tid = pp_calloc((size_t)(r->nchannels > 0 ? 2 * r->nchannels : 1), sizeof(*tid));
	int *seen = pp_calloc((size_t)(r->p > 0 ? r->p : 1), sizeof(*seen));

	if (tid == NULL || seen == NULL) {
		free(tid);
		free(seen);
		return NULL;
	}
	for (int ch = 0; ch < r->nchannels; ch++)
		tid[2 * ch] = 1 + seen[r->channels[ch].src]++;
	/* a full-duplex channel carries its own direction only */
	for (size_t k = 0; s->duplex == PP_DUPLEX_HALF && k < r->nmsgs; k++) {
		size_t t = direction_of(s, &r->msgs[k]);

		if (t % 2 == 1 && tid[t] == 0)
			tid[t] = 1 + seen[r->channels[t / 2].dst]++;
	}
	free(seen);
	return tid;
}

/* A new cache of the directions of each stage's messages, none found yet (NULL when out of
 * memory). */
static struct trace_dir_seen *new_seen(const struct drawing *s)
{
	size_t n = 2 * (size_t)s->sched->S;
	struct trace_dir_seen *seen = pp_mallocarray(n > 0 ? n : 1, sizeof(*seen));

	for (size_t i = 0; seen != NULL && i < n; i++)
		seen[i].src = -1;
	return seen;
}

int trace_walk_init(struct trace_walk *w, const struct drawing *s)
{
	const struct result *r = s->result;

	*w = (struct trace_walk){.s = s};
	w->tid = channel_tids(s);
	w->seen = new_seen(s);
	if (w->tid == NULL || w->seen == NULL) {
		trace_walk_release(w);
		return -1;
	}
	for (size_t k = 0; k < r->npieces && !w->offload; k++)
		w->offload = r->pieces[k].amount != 0;
	return 0;
}

int trace_walk_fork(struct trace_walk *w, const struct trace_walk *from)
{
	*w = *from;
	w->forked = true;
	w->seen = new_seen(from->s);
	return w->seen != NULL ? 0 : -1;
}

void trace_walk_release(struct trace_walk *w)
{
	if (!w->forked)
		free(w->tid);
	free(w->seen);
	w->tid = NULL;
	w->seen = NULL;
}

const char *trace_walk_channel_name(const struct trace_walk *w, int ch, int back, int *pid,
                                    char *buf, size_t n)
{
	const struct channel_result *c = &w->s->result->channels[ch];

	*pid = back ? c->dst : c->src;
	snprintf(buf, n, "send to GPU %d%s", back ? c->src : c->dst,
	         w->s->duplex == PP_DUPLEX_HALF ? " (half-duplex, shared)" : "");
	return buf;
}

/*
 * The slice name of op i, into buf of n bytes: its timeline label (F3, b3), or with
 * --trace-names=torch the profiler range PyTorch's pipelining runtime records for its action
 * ("PP:" and the action, as record_function(_get_profiler_function_name(action)) in
 * _PipelineScheduleRuntime names it; an overlapped pair's two ops both take the pair's).
 * Returns its length.
 */
static size_t op_name(const struct drawing *s, size_t i, char *buf, size_t n)
{
	char action[SCHEDFILE_ACTION_MAX];

	if (s->trace_names == PP_TRACE_NAMES_TORCH)
		return (size_t)snprintf(buf, n, "PP:%s",
		                        schedfile_torch_action(s->sched, i, action, sizeof(action)));
	return (size_t)report_op_label(buf, n, s->sched, &s->sched->ops[i]);
}

void trace_walk_op_name(const struct trace_walk *w, struct trace_op *o)
{
	o->name_len = op_name(w->s, o->i, o->buf, sizeof(o->buf));
	o->name = o->buf;
}

void trace_walk_op(const struct trace_walk *w, int d, size_t i, struct trace_op *o)
{
	trace_walk_op_unnamed(w, d, i, o);
	trace_walk_op_name(w, o);
}

void trace_walk_op_unnamed(const struct trace_walk *w, int d, size_t i, struct trace_op *o)
{
	const struct drawing *s = w->s;
	const struct sched *sc = s->sched;
	const struct op *op = &sc->ops[i];

	o->i = i;
	o->d = d;
	o->name = NULL;
	o->name_len = 0;
	o->cat = pass_of((enum op_kind)op->kind);
	o->kind = sched_kind_name((enum op_kind)op->kind);
	o->start = s->result->times[i].start;
	o->end = s->result->times[i].end;
	o->mb = op->mb;
	o->stage = op->stage;
	o->chunk = (uint32_t)sc->stage_chunk[op->stage];
	o->overlapped = (op->flags & OP_OVERLAP) ||
	                (i > sc->dev_start[d] && (op[-1].flags & OP_OVERLAP));
	o->has_slack = s->slack != NULL;
	o->slack = s->slack != NULL ? s->slack[i] : 0;
	o->critical = s->slack != NULL && s->slack[i] == 0;
	o->has_exposed = s->result->inner != NULL;
	o->exposed = o->has_exposed ? s->result->inner[i] : 0;
}

void trace_walk_msg(struct trace_walk *w, size_t k, struct trace_msg *m)
{
	const struct drawing *s = w->s;
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	const struct msg_record *g = &r->msgs[k];
	const struct op *from = &sc->ops[g->from], *to = &sc->ops[g->to];
	struct trace_dir_seen *at = &w->seen[2 * (size_t)from->stage + (to->stage < from->stage)];
	const struct channel_result *ch;
	size_t n;

	report_msg_devices(s, g, &m->src, &m->dst);
	if (at->src != m->src || at->dst != m->dst)
		*at = (struct trace_dir_seen){m->src, m->dst, direction_of(s, g)};
	ch = &r->channels[at->dir / 2];
	m->k = k;
	m->tid = w->tid[at->dir];
	/* the transfer: "F3 to GPU 1", or PyTorch's action that sends it, "PP:2SEND_F3" */
	if (s->trace_names == PP_TRACE_NAMES_TORCH) {
		memcpy(m->buf, "PP:", 3);
		n = 3 + numfmt_u64(m->buf + 3, from->stage);
		memcpy(m->buf + n, from->kind == OP_F ? "SEND_F" : "SEND_B", 6);
		n += 6 + numfmt_u64(m->buf + n + 6, from->mb);
	} else {
		n = (size_t)report_op_label(m->buf, sizeof(m->buf), sc, from);
		memcpy(m->buf + n, " to GPU ", 8);
		n += 8 + numfmt_i64(m->buf + n + 8, m->dst);
	}
	m->name = m->buf;
	m->name_len = n;
	m->cat = pass_of((enum op_kind)to->kind);
	m->start = g->start;
	m->end = g->end;
	m->bytes = ch->messages ? ch->bytes / ch->messages : 0;
	m->stage = from->stage;
	m->mb = from->mb;
	m->from = g->from;
	m->to = g->to;
	m->to_start = r->times[g->to].start;
	/* the arrow: from the send on the channel to the consuming op's start; Chrome's engine
	 * keys a flow's points by time, so one whose send starts when its consumer does (no time
	 * on the link, no wait) starts at the producing op's start instead */
	m->from_op = trace_walk_from_op(r, g);
	m->flow_start = m->from_op ? r->times[g->from].start : g->start;
	m->flow_tid = m->from_op ? 0 : m->tid;
}

size_t trace_walk_comm_op(const struct trace_walk *w, size_t op, char *buf, size_t n)
{
	const struct drawing *s = w->s;
	size_t len = op_name(s, op, buf, n);

	/* a pair: "F7+b3" (PyTorch's names give both ops the pair's one name) */
	if ((s->sched->ops[op].flags & OP_OVERLAP) && s->trace_names != PP_TRACE_NAMES_TORCH &&
	    len + 1 < n) {
		buf[len++] = '+';
		op_name(s, op + 1, buf + len, n - len);
	}
	return strlen(buf);
}

/* A change of a device's activations on the GPU and in host memory at time t. */
struct act_change {
	pp_time t;
	int64_t gpu, host;
	size_t k; /* its place in the list, the last tie-break: one order whatever sorts them */
};

static int cmp_change(const void *a, const void *b)
{
	const struct act_change *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	/* at one time, what leaves before what arrives */
	if (x->gpu + x->host != y->gpu + y->host)
		return x->gpu + x->host > y->gpu + y->host ? 1 : -1;
	return (x->k > y->k) - (x->k < y->k);
}

/* With activation offload: device d's activations on the GPU and in host memory (the
 * counters "activations" and "host"), from its ops and its copies, in time order. Returns 0,
 * or -1 when out of memory. */
static int offload_counters(const struct trace_walk *w, const struct trace_count *first,
                            void (*fn)(void *ctx, const struct trace_count *c), void *ctx)
{
	int d = first->d;
	const struct drawing *s = w->s;
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	size_t n = 0, cap = (sc->dev_start[d + 1] - sc->dev_start[d]) + 2 * r->npieces + 1;
	struct act_change *ch = pp_mallocarray(cap, sizeof(*ch));
	struct trace_count x = *first;
	int64_t gpu = 0, host = 0;

	if (ch == NULL)
		return -1;
	for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
		const struct op *op = &sc->ops[i];

		ch[n++] = (struct act_change){op->kind == OP_F ? r->times[i].start : r->times[i].end,
		                              drawing_act_change(s, op), 0, 0};
	}
	for (size_t k = 0; k < r->npieces; k++) {
		const struct piece_record *pr = &r->pieces[k];

		if ((int)pr->dev != d || pr->amount == 0)
			continue;
		if (pr->kind == COMM_OFFLOAD) { /* in host memory from its start, off the GPU at its end */
			ch[n++] = (struct act_change){pr->start, 0, pr->amount, 0};
			ch[n++] = (struct act_change){pr->end, -pr->amount, 0, 0};
		} else if (pr->kind == COMM_RELOAD) {
			ch[n++] = (struct act_change){pr->start, pr->amount, 0, 0};
			ch[n++] = (struct act_change){pr->end, 0, -pr->amount, 0};
		}
	}
	for (size_t k = 0; k < n; k++)
		ch[k].k = k;
	/* (C's qsort need not keep the order of equal elements; glibc's does only while it can
	 * allocate a copy) */
	qsort(ch, n, sizeof(*ch), cmp_change);
	fn(ctx, &x);
	x.host = true;
	fn(ctx, &x);
	for (size_t k = 0; k < n; k++) {
		gpu += ch[k].gpu;
		host += ch[k].host;
		x.t = ch[k].t;
		if (ch[k].gpu != 0) {
			x.host = false;
			x.num = gpu * x.routes;
			fn(ctx, &x);
		}
		if (ch[k].host != 0) {
			x.host = true;
			x.num = host * x.routes;
			fn(ctx, &x);
		}
	}
	free(ch);
	return 0;
}

int trace_walk_device_of(const struct trace_walk *w, size_t i)
{
	const struct sched *sc = w->s->sched;
	int lo = 0, hi = sc->p - 1;

	/* the last device starting at or before i: the empty devices before it start there too */
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;

		if (sc->dev_start[mid] <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

bool trace_walk_count_first(const struct trace_walk *w, int d, struct trace_count *x)
{
	const struct drawing *s = w->s;
	const struct sched *sc = s->sched;

	*x = (struct trace_count){.d = d, .routes = sc->routes > 0 ? sc->routes : 1};
	/* as peak_activations counts them (metrics.c): a micro-batch passes a routes-th of the
	 * device's chunks */
	for (int k = 0; s->act != NULL && k < sc->v; k++)
		x->unit += s->act[sched_stage_of(sc, d, k)];
	/* a device that keeps no activations (a serving pipeline) has no counter */
	return x->unit != 0;
}

/* The sample after op i, x being the one before it. */
static void count_op(const struct drawing *s, size_t i, struct trace_count *x)
{
	const struct op *op = &s->sched->ops[i];

	x->t = op->kind == OP_F ? s->result->times[i].start : s->result->times[i].end;
	x->num += x->routes * drawing_act_change(s, op);
}

const struct trace_count *trace_walk_count_op(const struct trace_walk *w, struct trace_cursor *k,
                                              size_t i)
{
	const struct sched *sc = w->s->sched;
	int d = trace_walk_device_at(w, k->d, i);
	size_t from = k->next;

	/* another device, or behind: from the device's first sample */
	if (i < k->next || d != k->d) {
		k->d = d;
		k->on = trace_walk_count_first(w, k->d, &k->c);
		from = sc->dev_start[k->d];
	}
	for (size_t j = from; k->on && j <= i; j++)
		count_op(w->s, j, &k->c);
	k->next = i + 1;
	return k->on ? &k->c : NULL;
}

int trace_walk_device_at(const struct trace_walk *w, int d, size_t i)
{
	const size_t *start = w->s->sched->dev_start;

	return d >= 0 && i >= start[d] && i < start[d + 1] ? d : trace_walk_device_of(w, i);
}

int trace_walk_most_empty(const struct trace_walk *w)
{
	const struct sched *sc = w->s->sched;
	int run = 0, most = 0;

	for (int d = 0; d < sc->p; d++) {
		run = sc->dev_start[d] == sc->dev_start[d + 1] ? run + 1 : 0;
		most = run > most ? run : most;
	}
	return most;
}

int trace_walk_first_at(const struct trace_walk *w, const struct trace_cursor *k, size_t i)
{
	const struct sched *sc = w->s->sched;
	int e = k->d;

	if (i != sc->dev_start[k->d])
		return k->d + 1;
	while (e > 0 && sc->dev_start[e - 1] == i)
		e--;
	return e;
}

int trace_walk_counters(const struct trace_walk *w, int d,
                        void (*fn)(void *ctx, const struct trace_count *c), void *ctx)
{
	const struct sched *sc = w->s->sched;
	struct trace_count x;

	if (!trace_walk_count_first(w, d, &x))
		return 0;
	if (w->offload)
		return offload_counters(w, &x, fn, ctx);
	fn(ctx, &x);
	for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
		count_op(w->s, i, &x);
		fn(ctx, &x);
	}
	return 0;
}
