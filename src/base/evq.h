/*
 * The event queue of the simulations (the training engine's and serving's); private to the
 * library. Events come out in order of (time, class, sequence): the class is a small number the
 * caller picks to order kinds of event that happen at the same time, the sequence is the order
 * of insertion, so that events of equal time and class come out first in, first out and every
 * run is reproducible. Events may not be pushed before the current time (the last one popped).
 *
 * Ownership: the queue owns its arrays; evq_release frees them. An event is a value: evq_pop
 * returns a copy.
 *
 * Push, peek and pop are inline, for the engine's event loop spends most of its time in them;
 * the heap's sift up and the growing of the arrays are out of line (evq.c).
 */
#ifndef PPSIM_EVQ_H
#define PPSIM_EVQ_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/util.h"

/* Classes an event may have: 0 .. EVQ_CLASSES - 1. */
#define EVQ_CLASSES 256
/* The sequence takes the low EVQ_SEQ_BITS bits of an event's key, the class the bits above: a
 * queue takes up to 2^56 pushes. */
#define EVQ_SEQ_BITS 56

struct evq_event {
	pp_time time; /* when it happens */
	uint64_t
	        key; /* the class in the top 8 bits, the sequence below: the order at equal times */
	uint32_t arg; /* the caller's: an index */
	uint8_t type; /* the caller's: what happens */
};

/*
 * A binary min-heap, and beside it a first-in, first-out ring of events at the current time in
 * their order: simulations push many of those (a message that takes no time), which come out in
 * push order, so the ring takes them without sifting. evq_pop takes the earlier of the ring's
 * front and the heap's top.
 */
struct evq {
	struct evq_event *heap; /* [cap] the first n are a heap */
	size_t n, cap;
	struct evq_event *ring; /* [ring_cap], a power of two: ring_n events from ring_head */
	size_t ring_head, ring_n, ring_cap;
	unsigned ring_cls; /* the class of the ring's last event */
	uint64_t seq;      /* events pushed so far */
	pp_time now;       /* the time of the last event popped (0 before any) */
};

/* An empty queue. */
void evq_init(struct evq *q);
/* Frees the queue's arrays; the struct itself belongs to the caller and may be reused after
 * evq_init. */
void evq_release(struct evq *q);

/* The out-of-line parts of evq_push: sifting an event into the heap, and appending one to a
 * full ring, which doubles it. Return 0, or -1 with a PP_ERR_NOMEM error. */
int evq_push_heap(struct evq *q, struct evq_event ev, struct pp_error *err);
int evq_push_ring_grow(struct evq *q, struct evq_event ev, struct pp_error *err);

/* Events queued. */
static inline size_t evq_len(const struct evq *q)
{
	return q->n + q->ring_n;
}

/* The class an event was pushed with. */
static inline unsigned evq_class(const struct evq_event *ev)
{
	return (unsigned)(ev->key >> EVQ_SEQ_BITS);
}

/* Whether a comes out before b. Keys are unique, so two events are never equal. */
static inline bool evq_before(const struct evq_event *a, const struct evq_event *b)
{
	return a->time < b->time || (a->time == b->time && a->key < b->key);
}

/*
 * Queues an event of class cls (< EVQ_CLASSES) at time (not before q->now) with the caller's
 * type and arg. Returns 0, or -1 with a PP_ERR_NOMEM error (the queue unchanged) when it cannot
 * grow.
 *
 * An event at the current time that sorts after the ring's last one joins the ring, which so
 * stays in order; any other goes to the heap. Which of the two holds an event never changes the
 * order in which events come out.
 */
static inline int evq_push(struct evq *q, pp_time time, unsigned cls, uint8_t type, uint32_t arg,
                           struct pp_error *err)
{
	struct evq_event ev = {time, (uint64_t)cls << EVQ_SEQ_BITS | q->seq, arg, type};

	assert(cls < EVQ_CLASSES && time >= q->now);
	/* the ring's events are all at the current time (a pop returns none later while the ring
	 * holds one, and none is earlier), so ev sorts after them when its class is not lower */
	if (time != q->now || (q->ring_n > 0 && cls < q->ring_cls))
		return evq_push_heap(q, ev, err);
	if (q->ring_n == q->ring_cap)
		return evq_push_ring_grow(q, ev, err);
	q->ring[(q->ring_head + q->ring_n++) & (q->ring_cap - 1)] = ev;
	q->ring_cls = cls;
	q->seq++;
	return 0;
}

/* Whether the next event is the ring's front rather than the heap's top. */
static inline bool evq_ring_first(const struct evq *q)
{
	return q->ring_n > 0 && (q->n == 0 || evq_before(&q->ring[q->ring_head], &q->heap[0]));
}

/* The event evq_pop would return, or NULL when the queue is empty. */
static inline const struct evq_event *evq_peek(const struct evq *q)
{
	if (evq_ring_first(q))
		return &q->ring[q->ring_head];
	return q->n > 0 ? &q->heap[0] : NULL;
}

/* Removes and returns the first event, which must exist; its time becomes the current time. */
static inline struct evq_event evq_pop(struct evq *q)
{
	struct evq_event top, last;
	size_t i = 0;

	assert(evq_len(q) > 0);
	if (evq_ring_first(q)) {
		top = q->ring[q->ring_head];
		q->ring_head = (q->ring_head + 1) & (q->ring_cap - 1);
		q->ring_n--;
		q->now = top.time;
		return top;
	}
	top = q->heap[0];
	last = q->heap[--q->n];
	/* sift the hole at the root down to where the last event belongs */
	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= q->n)
			break;
		if (child + 1 < q->n && evq_before(&q->heap[child + 1], &q->heap[child]))
			child++;
		if (!evq_before(&q->heap[child], &last))
			break;
		q->heap[i] = q->heap[child];
		i = child;
	}
	if (q->n > 0)
		q->heap[i] = last;
	q->now = top.time;
	return top;
}

#endif
