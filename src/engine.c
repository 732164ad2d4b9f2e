/*
 * The discrete-event engine. Events (an op ends, a message arrives, a blocked device is released)
 * sit in a binary heap ordered by (time, sequence). An op starts at the moment its device is free
 * and all its inputs are delivered, which is always the time of the event that made it so.
 */
#include "ppsim/engine.h"

#include <assert.h>
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
	uint32_t *where;          /* [3 * S * m] op index of (slot, stage, mb) */
	uint8_t *pending;         /* [nops] inputs not yet delivered */
	struct device_state *dev; /* [p] */
	struct channel *chan;     /* [nchannels] */
	int *fwd_chan;            /* [S] channel of boundary s -> s+1, -1 when on one device */
	int *bwd_chan;            /* [S] channel of boundary s+1 -> s, -1 when on one device */
	struct event *heap;       /* binary min-heap of pending events */
	size_t nheap, capheap;
	uint64_t seq;
	pp_time now;
	size_t done; /* ops finished */
	bool ran;
	struct result res;
};

/* Slot of a kind in the where table: F, backward (B or BW), W. */
static int slot_of(enum op_kind kind)
{
	return kind == OP_F ? 0 : kind == OP_W ? 2 : 1;
}

static uint32_t *where_cell(const struct engine *e, enum op_kind kind, uint32_t mb, uint32_t st)
{
	return &e->where[((size_t)slot_of(kind) * (size_t)e->s->S + st) * (size_t)e->s->m + mb];
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

/* Inputs an op waits for: its producer on the previous stage (F) or next stage (B, BW), and its
 * own forward (B, BW) or input-gradient backward (W). */
static uint8_t op_inputs(const struct sched *s, const struct op *op)
{
	switch ((enum op_kind)op->kind) {
	case OP_F:
		return op->stage > 0;
	case OP_B:
	case OP_BW:
		return (uint8_t)(1 + (op->stage + 1 < (uint32_t)s->S));
	case OP_W:
		return 1;
	}
	return 0;
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

struct engine *engine_new(const struct sched *s, const struct cost *c, struct pp_error *err)
{
	struct engine *e;

	if (c->S != s->S) {
		pp_fail(err, PP_ERR_CONFIG, "cost model has %d stages, schedule has %d", c->S,
		        s->S);
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
	e->where = pp_xmallocarray(3 * (size_t)s->S * (size_t)s->m, sizeof(*e->where));
	e->pending = pp_xmallocarray(s->nops, sizeof(*e->pending));
	e->dev = pp_xcalloc((size_t)s->p, sizeof(*e->dev));
	e->res.p = s->p;
	e->res.times = pp_xcalloc(s->nops, sizeof(*e->res.times));
	e->res.devices = pp_xcalloc((size_t)s->p, sizeof(*e->res.devices));
	for (size_t i = 0; i < s->nops; i++) {
		const struct op *op = &s->ops[i];

		*where_cell(e, (enum op_kind)op->kind, op->mb, op->stage) = (uint32_t)i;
		e->pending[i] = op_inputs(s, op);
	}
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

	if (ds->running || ds->free_at > e->now || i == ds->end || e->pending[i] > 0)
		return;
	end = e->now + op_duration(e->c, &e->s->ops[i]);
	e->res.times[i].start = e->now;
	e->res.times[i].end = end;
	if (i == e->s->dev_start[d])
		e->res.devices[d].first_start = e->now;
	ds->running = true;
	heap_push(e, end, EV_OP_END, (uint32_t)i);
}

/* Delivers the output of an op on device d to consumer j, directly or through channel ch. */
static void deliver(struct engine *e, int d, uint32_t j, int ch, uint64_t bytes, pp_time dur)
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
	heap_push(e, arrive, EV_ARRIVE, j);
	if (e->c->comm == PP_COMM_BLOCKING && arrive > e->dev[d].free_at) {
		e->res.devices[d].comm_wait += arrive - e->dev[d].free_at;
		e->dev[d].free_at = arrive;
	}
}

/* Handles the end of op i: frees its device and sends its output to its consumers. */
static void finish(struct engine *e, uint32_t i)
{
	const struct sched *s = e->s;
	const struct cost *c = e->c;
	const struct op *op = &s->ops[i];
	int d = (int)s->stage_device[op->stage];
	uint32_t st = op->stage, mb = op->mb;
	struct device_result *dr = &e->res.devices[d];

	e->dev[d].running = false;
	e->dev[d].head++;
	e->dev[d].free_at = e->now;
	e->done++;
	dr->busy += e->res.times[i].end - e->res.times[i].start;
	dr->last_end = e->now;
	if (e->now > e->res.makespan)
		e->res.makespan = e->now;
	switch ((enum op_kind)op->kind) {
	case OP_F:
		deliver(e, d, *where_cell(e, s->split ? OP_B : OP_BW, mb, st), -1, 0, 0);
		if (st + 1 < (uint32_t)s->S)
			deliver(e, d, *where_cell(e, OP_F, mb, st + 1), e->fwd_chan[st],
			        c->msg_bytes[st], c->msg_time[st]);
		break;
	case OP_B:
	case OP_BW:
		if (op->kind == OP_B)
			deliver(e, d, *where_cell(e, OP_W, mb, st), -1, 0, 0);
		if (st > 0)
			deliver(e, d, *where_cell(e, (enum op_kind)op->kind, mb, st - 1),
			        e->bwd_chan[st - 1], c->msg_bytes[st - 1], c->msg_time[st - 1]);
		break;
	case OP_W:
		break;
	}
	if (e->dev[d].free_at > e->now)
		heap_push(e, e->dev[d].free_at, EV_RELEASE, (uint32_t)d);
	else
		try_start(e, d);
}

/* Peak of alive activations per device: F allocates at its start, B/W/BW free at their end.
 * Ops of one device never overlap, so list order is the order of these events. */
static void account_memory(struct engine *e)
{
	const struct sched *s = e->s;
	const struct cost *c = e->c;

	for (int d = 0; d < s->p; d++) {
		int64_t alive = 0, peak = 0;

		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
			const struct op *op = &s->ops[i];

			switch ((enum op_kind)op->kind) {
			case OP_F:
				alive += c->act[op->stage];
				if (alive > peak)
					peak = alive;
				break;
			case OP_B:
				alive -= c->act[op->stage] - c->act_w[op->stage];
				break;
			case OP_W:
				alive -= c->act_w[op->stage];
				break;
			case OP_BW:
				alive -= c->act[op->stage];
				break;
			}
		}
		e->res.devices[d].peak_act = peak;
	}
}

/* Names what the head op of device d waits for, appending to buf. */
static void describe_wait(const struct engine *e, int d, char *buf, size_t n)
{
	const struct sched *s = e->s;
	const struct op *op = &s->ops[e->dev[d].head];
	struct op need = *op;
	char a[64], b[64];
	uint32_t j;
	int from;

	if (op->kind == OP_F) {
		need.stage = op->stage - 1;
	} else if (op->kind == OP_W) {
		need.kind = OP_B;
	} else {
		need.kind = OP_F;
		j = *where_cell(e, OP_F, op->mb, op->stage);
		if (j >= e->dev[d].head) {
			need.stage = op->stage;
		} else {
			need.kind = op->kind;
			need.stage = op->stage + 1;
		}
	}
	from = (int)s->stage_device[need.stage];
	sched_op_format(a, sizeof(a), op);
	sched_op_format(b, sizeof(b), &need);
	if (from == d)
		snprintf(buf, n, "device %d waits in %s for its own %s", d, a, b);
	else
		snprintf(buf, n, "device %d waits in %s for %s from device %d", d, a, b, from);
}

/* Names every stuck device while the message has room (and room for the closing count). */
static int report_deadlock(const struct engine *e, struct pp_error *err)
{
	char msg[sizeof(err->msg)], part[200];
	size_t len, room = sizeof(msg) - 40;
	int stuck = 0, shown = 0;

	len = (size_t)snprintf(msg, sizeof(msg), "deadlock after %zu of %zu ops:", e->done,
	                       e->s->nops);
	for (int d = 0; d < e->s->p; d++) {
		size_t n;

		if (e->dev[d].head == e->dev[d].end)
			continue;
		stuck++;
		describe_wait(e, d, part, sizeof(part));
		n = strlen(part) + 2;
		if (stuck > shown + 1 || len + n >= room)
			continue;
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s %s", shown ? ";" : "",
		                        part);
		shown++;
	}
	if (stuck > shown)
		snprintf(msg + len, sizeof(msg) - len, "; and %d more devices", stuck - shown);
	return pp_fail(err, PP_ERR_SIM, "%s", msg);
}

int engine_run(struct engine *e, struct pp_error *err)
{
	assert(!e->ran);
	e->ran = true;
	for (int d = 0; d < e->s->p; d++)
		try_start(e, d);
	while (e->nheap > 0) {
		struct event ev = heap_pop(e);

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
	if (e->done < e->s->nops)
		return report_deadlock(e, err);
	account_memory(e);
	return 0;
}

const struct result *engine_result(const struct engine *e)
{
	return e->ran && e->done == e->s->nops ? &e->res : NULL;
}

void engine_free(struct engine *e)
{
	if (e == NULL)
		return;
	free(e->where);
	free(e->pending);
	free(e->dev);
	free(e->chan);
	free(e->fwd_chan);
	free(e->bwd_chan);
	free(e->heap);
	free(e->res.times);
	free(e->res.devices);
	free(e->res.channels);
	free(e);
}
