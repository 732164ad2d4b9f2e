/*
 * The engine's event loop. Events (an op ends, a message arrives, a blocked device is released)
 * sit in a binary heap ordered by (time, sequence); messages that take no time skip the heap
 * through a first-in, first-out queue merged with it in the same order. An op starts at the
 * moment its device is free and all its inputs are delivered, which is always the time of the
 * event that made it so. Messages are sent in event order, which traces record; half-duplex
 * channels, shared by two senders, need that order too.
 */
#include <stdlib.h>

#include "engine_internal.h"

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

/* The next event: the earlier of the queue's front and the heap's top, by (time, seq). */
static struct event next_event(struct engine *e)
{
	struct event ev;

	if (e->now_n > 0 &&
	    (e->nheap == 0 || event_before(&e->now_q[e->now_head], &e->heap[0]))) {
		ev = e->now_q[e->now_head];
		e->now_head = (e->now_head + 1) & (e->capnow - 1);
		e->now_n--;
		return ev;
	}
	return heap_pop(e);
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
	end = e->now + (pair ? engine_pair_duration(e->c, &e->s->ops[i], &e->s->ops[i + 1])
	                     : engine_op_duration(e->c, &e->s->ops[i]));
	engine_ran(e, d, i, pair, e->now, end);
	ds->running = true;
	heap_push(e, end, EV_OP_END, (uint32_t)i);
}

/* Delivers the output of op i on device d to consumer j, directly or through channel ch. */
static void deliver(struct engine *e, int d, uint32_t i, uint32_t j, int ch, uint64_t bytes,
                    pp_time dur)
{
	pp_time arrive;

	if (ch < 0) {
		e->pending[j]--;
		return;
	}
	arrive = engine_transfer(e, d, ch, bytes, dur, e->now);
	if (dur == 0)
		now_push(e, EV_ARRIVE, j);
	else
		heap_push(e, arrive, EV_ARRIVE, j);
	if (e->record)
		e->res.msgs[e->res.nmsgs++] = (struct msg_record){i, j, ch, arrive - dur, arrive};
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
	uint32_t slot = s->ops[i].flags & OP_OVERLAP ? 2 : 1;

	e->dev[d].running = false;
	e->dev[d].head += slot;
	e->dev[d].free_at = e->now;
	e->done += slot;
	for (uint32_t k = 0; k < slot; k++)
		send_outputs(e, d, i + k);
	if (e->dev[d].free_at > e->now)
		heap_push(e, e->dev[d].free_at, EV_RELEASE, (uint32_t)d);
	else
		try_start(e, d);
}

void engine_run_events(struct engine *e)
{
	engine_link_consumers(e);
	for (int d = 0; d < e->s->p; d++)
		try_start(e, d);
	while (e->nheap > 0 || e->now_n > 0) {
		struct event ev = next_event(e);

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

void engine_events_release(struct engine *e)
{
	free(e->heap);
	free(e->now_q);
}
