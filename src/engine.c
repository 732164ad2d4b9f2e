/*
 * The discrete-event engine. Events (an op ends, a message arrives, a blocked device is released)
 * sit in a binary heap ordered by (time, sequence). An op starts at the moment its device is free
 * and all its inputs are delivered, which is always the time of the event that made it so.
 */
#include "ppsim/engine.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum event_type {
	EV_OP_END,  /* arg: op index; the op finished on its device */
	EV_ARRIVE,  /* arg: op index; one input of the op was delivered */
	EV_RELEASE, /* arg: device; a blocking send let the device's stream go */
};

struct event {
	pp_time time; /* when it happens */
	uint64_t seq; /* insertion order, breaks ties */
	uint32_t arg; /* op index or device, by type */
	uint8_t type; /* enum event_type */
};

/* Where each device stands. */
struct device_state {
	size_t head;     /* index in sched->ops of the next op to run */
	size_t end;      /* one past the device's last op */
	pp_time free_at; /* the stream is held until this time (blocking sends) */
	bool running;    /* an op is on the stream */
};

/* A FIFO channel between two devices. */
struct channel {
	pp_time free_at; /* when the last queued message finishes */
};

struct engine {
	const struct sched *s;
	const struct cost *c;
	uint32_t *cons;           /* [2 * nops] the ops that wait for each op's output (CONS_*) */
	uint8_t *pending;         /* [nops] inputs not yet delivered */
	struct device_state *dev; /* [p] */
	struct channel *chan;     /* [nchannels] */
	int *fwd_chan;            /* [S] channel of boundary s -> s+1, -1 when on one device */
	int *bwd_chan;            /* [S] channel of boundary s+1 -> s, -1 when on one device */
	struct event *heap;       /* binary min-heap of pending events */
	size_t nheap, capheap;
	/* Messages that take no time arrive at once: their events go to a first-in, first-out
	 * queue instead of the heap, which the loop merges with the heap in (time, seq) order. */
	struct event *now_q;      /* ring buffer of [capnow], a power of two */
	size_t now_head, now_n, capnow;
	uint64_t seq;
	pp_time now;
	size_t done; /* ops finished */
	bool ran;
	bool record; /* keep a struct msg_record per message */
	bool force_events; /* take the event loop even where the sweep gives the same times */
	struct result res;
};

/*
 * An entry of the consumer table: the consumer's op index in the low 30 bits (op counts stay
 * below 2^30) and where its input comes from in the top two: the same stage, the stage before
 * (a forward message) or the stage after (a gradient). CONS_NONE ends an op's list.
 */
#define CONS_INDEX   UINT32_C(0x3fffffff)
#define CONS_FORWARD (UINT32_C(1) << 30)
#define CONS_GRADIENT (UINT32_C(2) << 30)
#define CONS_NONE    UINT32_MAX

/* Slot of a kind in the table of op indices: F, backward (B or BW), W. */
static int slot_of(enum op_kind kind)
{
	return kind == OP_F ? 0 : kind == OP_W ? 2 : 1;
}

/* The cell of (kind, mb, stage) in a table of 2 (fused backward) or 3 slots of S * m. */
static uint32_t *where_cell(uint32_t *where, const struct sched *s, enum op_kind kind, uint32_t mb,
                            uint32_t st)
{
	return &where[((size_t)slot_of(kind) * (size_t)s->S + st) * (size_t)s->m + mb];
}

static bool event_before(const struct event *a, const struct event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void heap_push(struct engine *e, pp_time time, enum event_type type, uint32_t arg)
{
	struct event ev = {time, e->seq++, arg, (uint8_t)type};
	size_t i;

	if (e->nheap == e->capheap) {
		e->capheap = e->capheap ? 2 * e->capheap : 64;
		e->heap = pp_xrealloc(e->heap, e->capheap * sizeof(*e->heap));
	}
	i = e->nheap++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!event_before(&ev, &e->heap[parent]))
			break;
		e->heap[i] = e->heap[parent];
		i = parent;
	}
	e->heap[i] = ev;
}

/* Queues an event at the current time (its seq after every event queued so far). */
static void now_push(struct engine *e, enum event_type type, uint32_t arg)
{
	if (e->now_n == e->capnow) {
		size_t cap = e->capnow ? 2 * e->capnow : 64;
		struct event *q = pp_xmallocarray(cap, sizeof(*q));

		for (size_t k = 0; k < e->now_n; k++)
			q[k] = e->now_q[(e->now_head + k) & (e->capnow - 1)];
		free(e->now_q);
		e->now_q = q;
		e->capnow = cap;
		e->now_head = 0;
	}
	e->now_q[(e->now_head + e->now_n++) & (e->capnow - 1)] =
	        (struct event){e->now, e->seq++, arg, (uint8_t)type};
}

static struct event heap_pop(struct engine *e)
{
	struct event top = e->heap[0], last = e->heap[--e->nheap];
	size_t i = 0;

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= e->nheap)
			break;
		if (child + 1 < e->nheap && event_before(&e->heap[child + 1], &e->heap[child]))
			child++;
		if (!event_before(&e->heap[child], &last))
			break;
		e->heap[i] = e->heap[child];
		i = child;
	}
	if (e->nheap > 0)
		e->heap[i] = last;
	return top;
}

static pp_time op_duration(const struct cost *c, const struct op *op)
{
	switch ((enum op_kind)op->kind) {
	case OP_F:
		return c->t_f[op->stage];
	case OP_B:
		return c->t_b[op->stage];
	case OP_W:
		return c->t_w[op->stage];
	case OP_BW:
		return c->t_b[op->stage] + c->t_w[op->stage];
	}
	return 0;
}

/* Duration of an overlapped pair: overlap_factor x (F + B), exact when the factor is 1. A
 * factor below max(F, B) / (F + B) models more gain than overlap can give; it is the user's. */
static pp_time pair_duration(const struct cost *c, const struct op *f, const struct op *b)
{
	pp_time sum = op_duration(c, f) + op_duration(c, b);

	if (c->overlap_factor == 1)
		return sum;
	return (pp_time)llround(c->overlap_factor * (double)sum);
}

/* Finds or adds channel (src, dst) in the sorted pair list; returns its index. */
static int channel_index(const int *pairs, int n, int src, int dst)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, ms = pairs[2 * mid], md = pairs[2 * mid + 1];

		if (ms == src && md == dst)
			return mid;
		if (ms < src || (ms == src && md < dst))
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	assert(!"channel not found");
	return -1;
}

static int pair_cmp(const void *a, const void *b)
{
	const int *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Key of the channel carrying src -> dst: the ordered pair, or the sorted pair if half-duplex. */
static void channel_key(const struct cost *c, int src, int dst, int *key)
{
	bool swap = c->duplex == PP_DUPLEX_HALF && src > dst;

	key[0] = swap ? dst : src;
	key[1] = swap ? src : dst;
}

/* Builds the channel list from the stage boundaries that cross devices. */
static void build_channels(struct engine *e)
{
	const struct sched *s = e->s;
	int *pairs = pp_xmallocarray(4 * (size_t)s->S, sizeof(*pairs));
	int n = 0, u = 0;

	for (int st = 0; st + 1 < s->S; st++) {
		int a = (int)s->stage_device[st], b = (int)s->stage_device[st + 1];

		if (a == b)
			continue;
		channel_key(e->c, a, b, &pairs[2 * n++]);
		channel_key(e->c, b, a, &pairs[2 * n++]);
	}
	qsort(pairs, (size_t)n, 2 * sizeof(*pairs), pair_cmp);
	for (int i = 0; i < n; i++)
		if (u == 0 || pair_cmp(&pairs[2 * i], &pairs[2 * (u - 1)]) != 0) {
			pairs[2 * u] = pairs[2 * i];
			pairs[2 * u + 1] = pairs[2 * i + 1];
			u++;
		}
	e->res.nchannels = u;
	e->chan = pp_xcalloc((size_t)u, sizeof(*e->chan));
	e->res.channels = pp_xcalloc((size_t)u, sizeof(*e->res.channels));
	for (int i = 0; i < u; i++) {
		e->res.channels[i].src = pairs[2 * i];
		e->res.channels[i].dst = pairs[2 * i + 1];
	}
	e->fwd_chan = pp_xmallocarray((size_t)s->S, sizeof(*e->fwd_chan));
	e->bwd_chan = pp_xmallocarray((size_t)s->S, sizeof(*e->bwd_chan));
	for (int st = 0; st < s->S; st++) {
		int a = st + 1 < s->S ? (int)s->stage_device[st] : 0;
		int b = st + 1 < s->S ? (int)s->stage_device[st + 1] : 0;
		int key[2];

		e->fwd_chan[st] = e->bwd_chan[st] = -1;
		if (a == b)
			continue;
		channel_key(e->c, a, b, key);
		e->fwd_chan[st] = channel_index(pairs, u, key[0], key[1]);
		channel_key(e->c, b, a, key);
		e->bwd_chan[st] = channel_index(pairs, u, key[0], key[1]);
	}
	free(pairs);
}

/* Sum of every op duration and message time, or -1 when it exceeds PP_TIME_TOTAL_MAX. */
static int64_t total_time(const struct sched *s, const struct cost *c)
{
	uint64_t total = 0, m = (uint64_t)s->m;

	for (int st = 0; st < s->S; st++) {
		uint64_t per = 0, x;

		if (!pp_add_u64((uint64_t)c->t_f[st], (uint64_t)c->t_b[st], &per) ||
		    !pp_add_u64(per, (uint64_t)c->t_w[st], &per) ||
		    !pp_add_u64(per, 2 * (uint64_t)c->msg_time[st], &per) ||
		    !pp_mul_u64(per, m, &x) || !pp_add_u64(total, x, &total) ||
		    total > (uint64_t)PP_TIME_TOTAL_MAX)
			return -1;
	}
	return (int64_t)total;
}

/* Fills each op's count of inputs and its list of consumers, through a table of op indices by
 * (kind, stage, micro-batch) that lives only as long as this takes. */
static void link_consumers(struct engine *e)
{
	const struct sched *s = e->s;
	size_t slots = s->split || s->mixed ? 3 : 2;
	uint32_t *where = pp_xmallocarray(slots * (size_t)s->S * (size_t)s->m, sizeof(*where));

	for (size_t i = 0; i < s->nops; i++) {
		const struct op *op = &s->ops[i];
		struct op in[2];

		*where_cell(where, s, (enum op_kind)op->kind, op->mb, op->stage) = (uint32_t)i;
		e->pending[i] = (uint8_t)sched_op_inputs(s, op, in);
	}
	for (size_t i = 0; i < s->nops; i++) {
		const struct op *op = &s->ops[i];
		struct op out[2];
		int n = sched_op_consumers(s, op, out);

		e->cons[2 * i] = e->cons[2 * i + 1] = CONS_NONE;
		for (int k = 0; k < n; k++)
			e->cons[2 * i + (size_t)k] =
			        *where_cell(where, s, (enum op_kind)out[k].kind, out[k].mb,
			                    out[k].stage) |
			        (out[k].stage > op->stage   ? CONS_FORWARD
			         : out[k].stage < op->stage ? CONS_GRADIENT
			                                    : 0);
	}
	free(where);
}

struct engine *engine_new(const struct sched *s, const struct cost *c, struct pp_error *err)
{
	struct engine *e;

	if (c->S != s->S) {
		pp_fail(err, PP_ERR_CONFIG, "cost model has %d stages, schedule has %d", c->S,
		        s->S);
		return NULL;
	}
	if (s->nops > CONS_INDEX) {
		pp_fail(err, PP_ERR_USAGE, "%zu ops: the engine takes at most %" PRIu32, s->nops,
		        CONS_INDEX);
		return NULL;
	}
	if (sched_check(s, err) != 0)
		return NULL;
	if (total_time(s, c) < 0) {
		pp_fail(err, PP_ERR_USAGE,
		        "times too large: all ops and messages together exceed %.3g units",
		        (double)PP_TIME_TOTAL_MAX / (double)c->tick);
		return NULL;
	}
	e = pp_xcalloc(1, sizeof(*e));
	e->s = s;
	e->c = c;
	e->cons = pp_xmallocarray(2 * s->nops, sizeof(*e->cons));
	e->pending = pp_xmallocarray(s->nops, sizeof(*e->pending));
	e->dev = pp_xcalloc((size_t)s->p, sizeof(*e->dev));
	e->res.p = s->p;
	e->res.times = pp_xcalloc(s->nops, sizeof(*e->res.times));
	e->res.devices = pp_xcalloc((size_t)s->p, sizeof(*e->res.devices));
	link_consumers(e);
	for (int d = 0; d < s->p; d++) {
		e->dev[d].head = s->dev_start[d];
		e->dev[d].end = s->dev_start[d + 1];
	}
	build_channels(e);
	return e;
}

/* Starts the device's next op if the stream is free and the op's inputs are all delivered. */
static void try_start(struct engine *e, int d)
{
	struct device_state *ds = &e->dev[d];
	size_t i = ds->head;
	pp_time end;

	bool pair;

	if (ds->running || ds->free_at > e->now || i == ds->end || e->pending[i] > 0)
		return;
	/* an overlapped pair starts when both ops may: overlap_factor x (F + B) for both */
	pair = (e->s->ops[i].flags & OP_OVERLAP) != 0;
	if (pair && e->pending[i + 1] > 0)
		return;
	end = e->now + (pair ? pair_duration(e->c, &e->s->ops[i], &e->s->ops[i + 1])
	                     : op_duration(e->c, &e->s->ops[i]));
	e->res.times[i].start = e->now;
	e->res.times[i].end = end;
	if (pair)
		e->res.times[i + 1] = e->res.times[i];
	if (i == e->s->dev_start[d])
		e->res.devices[d].first_start = e->now;
	ds->running = true;
	heap_push(e, end, EV_OP_END, (uint32_t)i);
}

/* Delivers the output of op i on device d to consumer j, directly or through channel ch. */
static void deliver(struct engine *e, int d, uint32_t i, uint32_t j, int ch, uint64_t bytes,
                    pp_time dur)
{
	struct channel_result *cr;
	pp_time start, arrive;

	if (ch < 0) {
		e->pending[j]--;
		return;
	}
	start = e->chan[ch].free_at > e->now ? e->chan[ch].free_at : e->now;
	arrive = start + dur;
	e->chan[ch].free_at = arrive;
	cr = &e->res.channels[ch];
	cr->messages++;
	cr->bytes += bytes;
	cr->busy += dur;
	e->res.messages++;
	e->res.bytes += bytes;
	e->res.msg_time += dur;
	if (dur == 0)
		now_push(e, EV_ARRIVE, j);
	else
		heap_push(e, arrive, EV_ARRIVE, j);
	if (e->record)
		e->res.msgs[e->res.nmsgs++] = (struct msg_record){i, j, ch, start, arrive};
	if (e->c->comm == PP_COMM_BLOCKING && arrive > e->dev[d].free_at) {
		e->res.devices[d].comm_wait += arrive - e->dev[d].free_at;
		e->dev[d].free_at = arrive;
	}
}

/* Delivers the output of op i, which ended on device d, to each op that waits for it. */
static void send_outputs(struct engine *e, int d, uint32_t i)
{
	const struct cost *c = e->c;
	uint32_t st = e->s->ops[i].stage;

	for (int k = 0; k < 2 && e->cons[2 * (size_t)i + k] != CONS_NONE; k++) {
		uint32_t x = e->cons[2 * (size_t)i + k], j = x & CONS_INDEX;

		if ((x & ~CONS_INDEX) == CONS_FORWARD)
			deliver(e, d, i, j, e->fwd_chan[st], c->msg_bytes[st], c->msg_time[st]);
		else if ((x & ~CONS_INDEX) == CONS_GRADIENT)
			deliver(e, d, i, j, e->bwd_chan[st - 1], c->msg_bytes[st - 1],
			        c->msg_time[st - 1]);
		else
			deliver(e, d, i, j, -1, 0, 0);
	}
}

/* Handles the end of op i: frees its device and sends its output to its consumers. */
static void finish(struct engine *e, uint32_t i)
{
	const struct sched *s = e->s;
	int d = (int)s->stage_device[s->ops[i].stage];
	struct device_result *dr = &e->res.devices[d];
	uint32_t slot = s->ops[i].flags & OP_OVERLAP ? 2 : 1;

	e->dev[d].running = false;
	e->dev[d].head += slot;
	e->dev[d].free_at = e->now;
	e->done += slot;
	dr->busy += e->res.times[i].end - e->res.times[i].start;
	dr->last_end = e->now;
	if (e->now > e->res.makespan)
		e->res.makespan = e->now;
	for (uint32_t k = 0; k < slot; k++)
		send_outputs(e, d, i + k);
	if (e->dev[d].free_at > e->now)
		heap_push(e, e->dev[d].free_at, EV_RELEASE, (uint32_t)d);
	else
		try_start(e, d);
}

/* Whether op has run: it sits before the head of its device's list (a scan: deadlocks only). */
static bool op_done(const void *ctx, const struct op *op)
{
	const struct engine *e = ctx;
	uint32_t d = e->s->stage_device[op->stage];

	for (size_t i = e->s->dev_start[d]; i < e->dev[d].head; i++)
		if (e->s->ops[i].kind == op->kind && e->s->ops[i].mb == op->mb &&
		    e->s->ops[i].stage == op->stage)
			return true;
	return false;
}

static int report_deadlock(const struct engine *e, struct pp_error *err)
{
	size_t *head = pp_xmallocarray((size_t)e->s->p, sizeof(*head));
	char what[80];
	int rc;

	for (int d = 0; d < e->s->p; d++)
		head[d] = e->dev[d].head;
	snprintf(what, sizeof(what), "deadlock after %zu of %zu ops:", e->done, e->s->nops);
	rc = sched_report_wait(e->s, head, what, op_done, e, PP_ERR_SIM, err);
	free(head);
	return rc;
}

/*
 * The dependency sweep: with full-duplex channels every channel has one sender, which sends in
 * the order of its own list, so each op's start is max(device free, inputs arrived) whatever
 * order the devices advance in, and no event queue is needed. Each device runs its list while
 * its head op's inputs are in; an op that completes another device's inputs wakes that device.
 * Until op j starts, times[j].start holds the latest arrival of its inputs and times[j].end the
 * number still to come, so that one cache line serves both. The times are those
 * of the event loop exactly; only the order in which messages are sent differs, which is why a
 * run that records its messages takes the event loop.
 */

/* Sends op i's output (it ended at end on device d) to its consumers; wakes their devices. */
static void sweep_send(struct engine *e, int d, uint32_t i, pp_time end, uint32_t *wake,
                       uint32_t *nwake, bool *queued)
{
	const struct sched *s = e->s;
	const struct cost *c = e->c;
	uint32_t st = s->ops[i].stage;

	for (int k = 0; k < 2 && e->cons[2 * (size_t)i + k] != CONS_NONE; k++) {
		uint32_t x = e->cons[2 * (size_t)i + k], j = x & CONS_INDEX, jd;
		uint32_t from = x & ~CONS_INDEX, b = from == CONS_GRADIENT ? st - 1 : st;
		int ch = from == CONS_FORWARD ? e->fwd_chan[st]
		         : from == CONS_GRADIENT ? e->bwd_chan[st - 1]
		                                 : -1;
		pp_time arrive = end;

		if (ch >= 0) {
			pp_time dur = c->msg_time[b];
			pp_time start = e->chan[ch].free_at > end ? e->chan[ch].free_at : end;
			struct channel_result *cr = &e->res.channels[ch];

			arrive = start + dur;
			e->chan[ch].free_at = arrive;
			cr->messages++;
			cr->bytes += c->msg_bytes[b];
			cr->busy += dur;
			e->res.messages++;
			e->res.bytes += c->msg_bytes[b];
			e->res.msg_time += dur;
			if (c->comm == PP_COMM_BLOCKING && arrive > e->dev[d].free_at) {
				e->res.devices[d].comm_wait += arrive - e->dev[d].free_at;
				e->dev[d].free_at = arrive;
			}
		}
		if (arrive > e->res.times[j].start)
			e->res.times[j].start = arrive;
		if (--e->res.times[j].end == 0 && ch >= 0) {
			jd = s->stage_device[s->ops[j].stage];
			if (!queued[jd]) {
				queued[jd] = true;
				wake[(*nwake)++] = jd;
			}
		}
	}
}

/* Runs device d's list while its head op's inputs are in. */
static void sweep_device(struct engine *e, int d, uint32_t *wake, uint32_t *nwake, bool *queued)
{
	const struct sched *s = e->s;
	struct device_state *ds = &e->dev[d];
	struct device_result *dr = &e->res.devices[d];

	while (ds->head < ds->end) {
		size_t i = ds->head;
		bool pair = (s->ops[i].flags & OP_OVERLAP) != 0;
		pp_time ready = e->res.times[i].start, start, end;

		if (e->res.times[i].end > 0 || (pair && e->res.times[i + 1].end > 0))
			break;
		if (pair && e->res.times[i + 1].start > ready)
			ready = e->res.times[i + 1].start;
		start = ds->free_at > ready ? ds->free_at : ready;
		end = start + (pair ? pair_duration(e->c, &s->ops[i], &s->ops[i + 1])
		                    : op_duration(e->c, &s->ops[i]));
		e->res.times[i] = (struct op_time){start, end};
		if (pair)
			e->res.times[i + 1] = e->res.times[i];
		if (i == s->dev_start[d])
			dr->first_start = start;
		dr->busy += end - start;
		dr->last_end = end;
		if (end > e->res.makespan)
			e->res.makespan = end;
		ds->free_at = end;
		ds->head += pair ? 2 : 1;
		e->done += pair ? 2 : 1;
		sweep_send(e, d, (uint32_t)i, end, wake, nwake, queued);
		if (pair)
			sweep_send(e, d, (uint32_t)i + 1, end, wake, nwake, queued);
	}
}

static void run_sweep(struct engine *e)
{
	int p = e->s->p;
	uint32_t *wake = pp_xmallocarray((size_t)p, sizeof(*wake)), nwake = 0;
	bool *queued = pp_xcalloc((size_t)p, sizeof(*queued));

	for (size_t i = 0; i < e->s->nops; i++)
		e->res.times[i].end = e->pending[i];
	for (int d = p - 1; d >= 0; d--) {
		wake[nwake++] = (uint32_t)d;
		queued[d] = true;
	}
	while (nwake > 0) {
		uint32_t d = wake[--nwake];

		queued[d] = false;
		sweep_device(e, (int)d, wake, &nwake, queued);
	}
	free(wake);
	free(queued);
}

/* The event loop: events in (time, seq) order, instant arrivals merged from their queue. */
static void run_events(struct engine *e)
{
	for (int d = 0; d < e->s->p; d++)
		try_start(e, d);
	while (e->nheap > 0 || e->now_n > 0) {
		struct event ev;

		/* the earlier of the queue's front and the heap's top, by (time, seq) */
		if (e->now_n > 0 && (e->nheap == 0 || event_before(&e->now_q[e->now_head], &e->heap[0]))) {
			ev = e->now_q[e->now_head];
			e->now_head = (e->now_head + 1) & (e->capnow - 1);
			e->now_n--;
		} else {
			ev = heap_pop(e);
		}

		e->now = ev.time;
		switch ((enum event_type)ev.type) {
		case EV_OP_END:
			finish(e, ev.arg);
			break;
		case EV_ARRIVE:
			e->pending[ev.arg]--;
			try_start(e, (int)e->s->stage_device[e->s->ops[ev.arg].stage]);
			break;
		case EV_RELEASE:
			try_start(e, (int)ev.arg);
			break;
		}
	}
}

int engine_run(struct engine *e, struct pp_error *err)
{
	int64_t *peak;

	assert(!e->ran);
	e->ran = true;
	if (e->c->duplex == PP_DUPLEX_FULL && !e->record && !e->force_events)
		run_sweep(e);
	else
		run_events(e);
	if (e->done < e->s->nops)
		return report_deadlock(e, err);
	peak = pp_xmallocarray((size_t)e->s->p, sizeof(*peak));
	sched_peak(e->s, e->c->act, e->c->act_w, peak);
	for (int d = 0; d < e->s->p; d++)
		e->res.devices[d].peak_act = peak[d];
	free(peak);
	return 0;
}

const struct result *engine_result(const struct engine *e)
{
	return e->ran && e->done == e->s->nops ? &e->res : NULL;
}

void engine_record_messages(struct engine *e)
{
	assert(!e->ran);
	if (!e->record)
		e->res.msgs =
		        pp_xmallocarray(e->s->nops > 0 ? e->s->nops : 1, sizeof(*e->res.msgs));
	e->record = true;
}

void engine_use_events(struct engine *e)
{
	assert(!e->ran);
	e->force_events = true;
}

void engine_free(struct engine *e)
{
	if (e == NULL)
		return;
	free(e->res.msgs);
	free(e->cons);
	free(e->pending);
	free(e->dev);
	free(e->chan);
	free(e->fwd_chan);
	free(e->bwd_chan);
	free(e->heap);
	free(e->now_q);
	free(e->res.times);
	free(e->res.devices);
	free(e->res.channels);
	free(e);
}
