/*
 * The engine's dependency sweep. With full-duplex channels every channel has one sender, which
 * sends in the order of its own list, so an op's start is max(its device free, its inputs
 * arrived) whatever order the devices advance in: no event queue is needed. Each device runs
 * its list while its head op's inputs are in, and an op that completes another device's inputs
 * wakes that device. The times are the event loop's exactly (a unit test compares them); only
 * the order in which messages are sent across devices differs, which is why runs that record
 * their messages, and half-duplex channels, take the event loop.
 *
 * Until op j starts, times[j].start holds the latest arrival of its inputs and times[j].end the
 * number still to come: one cache line serves both, and it lies near the head of j's device,
 * which reads it soon.
 */
#include <stdlib.h>

#include "engine_internal.h"

/*
 * How many ops ahead the sweep asks for the lines it will read: each device walks its own part
 * of the op arrays, and 64 devices are more streams than the CPU's prefetcher follows.
 */
#define AHEAD 16

/* Index i + AHEAD, or i near the end of n ops (a pointer must stay inside its array). */
static inline size_t ahead(size_t i, size_t n)
{
	return i + AHEAD < n ? i + AHEAD : i;
}

/* Devices to run: a stack, each device on it at most once. */
struct wake {
	uint32_t *stack; /* [p] */
	uint32_t n;
	bool *queued; /* [p] */
};

static void wake_push(struct wake *w, uint32_t d)
{
	if (!w->queued[d]) {
		w->queued[d] = true;
		w->stack[w->n++] = d;
	}
}

/* Sends op i's output (it ended at end on device d) to its consumers. */
static void send(struct engine *e, int d, uint32_t i, pp_time end, struct wake *w)
{
	const struct sched *s = e->s;
	const struct cost *c = e->c;
	uint32_t st = s->ops[i].stage;

	for (int k = 0; k < 2 && e->cons[2 * (size_t)i + k] != CONS_NONE; k++) {
		uint32_t x = e->cons[2 * (size_t)i + k], j = x & CONS_INDEX;
		uint32_t from = x & ~CONS_INDEX, b = from == CONS_GRADIENT ? st - 1 : st;
		int ch = from == CONS_FORWARD    ? e->fwd_chan[st]
		         : from == CONS_GRADIENT ? e->bwd_chan[st - 1]
		                                 : -1;
		pp_time arrive =
		        ch < 0 ? end
		               : engine_transfer(e, d, ch, c->msg_bytes[b], c->msg_time[b], end);
		struct op_time *t = &e->res.times[j];

		PP_PREFETCH(&e->res.times[ahead(j, s->nops)]);
		if (arrive > t->start)
			t->start = arrive;
		if (--t->end == 0 && ch >= 0)
			wake_push(w, s->stage_device[s->ops[j].stage]);
	}
}

/* Runs device d's list while its head op's inputs are in. */
static void run_device(struct engine *e, int d, struct wake *w)
{
	const struct sched *s = e->s;
	struct device_state *ds = &e->dev[d];

	while (ds->head < ds->end) {
		size_t i = ds->head, next = ahead(i, s->nops);
		const struct op *op = &s->ops[i];
		bool pair = (op->flags & OP_OVERLAP) != 0;
		const struct op_time *t = &e->res.times[i], *t2 = pair ? t + 1 : t;
		pp_time start, end;

		PP_PREFETCH(&e->res.times[next]);
		PP_PREFETCH(&e->cons[2 * next]);
		PP_PREFETCH(&s->ops[next]);
		if (t->end > 0 || t2->end > 0)
			break;
		start = t->start > t2->start ? t->start : t2->start;
		start = ds->free_at > start ? ds->free_at : start;
		end = start + (pair ? engine_pair_duration(e->c, op, op + 1)
		                    : engine_op_duration(e->c, op));
		engine_ran(e, d, i, pair, start, end);
		ds->free_at = end;
		ds->head += pair ? 2 : 1;
		e->done += pair ? 2 : 1;
		send(e, d, (uint32_t)i, end, w);
		if (pair)
			send(e, d, (uint32_t)i + 1, end, w);
	}
}

int engine_run_sweep(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	struct wake w = {NULL, 0, NULL};

	if (engine_link_consumers(e, err) != 0)
		return -1;
	w.stack = pp_mallocarray((size_t)s->p, sizeof(*w.stack));
	w.queued = pp_calloc((size_t)s->p, sizeof(*w.queued));
	if (w.stack == NULL || w.queued == NULL) {
		free(w.stack);
		free(w.queued);
		return pp_nomem(err, (size_t)s->p, sizeof(*w.stack) + sizeof(*w.queued));
	}
	for (size_t i = 0; i < s->nops; i++)
		e->res.times[i] = (struct op_time){0, e->pending[i]};
	for (int d = s->p - 1; d >= 0; d--)
		wake_push(&w, (uint32_t)d);
	while (w.n > 0) {
		uint32_t d = w.stack[--w.n];

		w.queued[d] = false;
		run_device(e, (int)d, &w);
	}
	free(w.stack);
	free(w.queued);
	return 0;
}
