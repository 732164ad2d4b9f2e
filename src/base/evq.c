/*
 * The event queue: a binary min-heap ordered by (time, key), where the key packs the class above
 * the sequence so that one comparison of two integers orders equal times, and a ring of events
 * for the current time. A push at the current time that sorts after the ring's last event goes
 * to the ring, which therefore stays in order; every other push goes to the heap. Keys are
 * unique, so which of the two holds an event never changes the order events come out in.
 */
#include "evq.h"

#include <assert.h>
#include <stdlib.h>

/* The sequence takes the key's low 56 bits. */
#define SEQ_BITS 56

static inline bool before(const struct evq_event *a, const struct evq_event *b)
{
	return a->time < b->time || (a->time == b->time && a->key < b->key);
}

void evq_init(struct evq *q)
{
	*q = (struct evq){NULL, 0, 0, NULL, 0, 0, 0, 0, 0};
}

void evq_release(struct evq *q)
{
	free(q->heap);
	free(q->ring);
	evq_init(q);
}

static int heap_push(struct evq *q, struct evq_event ev, struct pp_error *err)
{
	size_t i;

	if (pp_grow((void **)&q->heap, &q->cap, q->n + 1, sizeof(*q->heap), err) != 0)
		return -1;
	/* sift the hole up from the end and drop ev in where it stops */
	i = q->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(&ev, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = ev;
	return 0;
}

static struct evq_event heap_pop(struct evq *q)
{
	struct evq_event top = q->heap[0], last = q->heap[--q->n];
	size_t i = 0;

	/* sift the hole at the root down to where the last event belongs */
	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= q->n)
			break;
		if (child + 1 < q->n && before(&q->heap[child + 1], &q->heap[child]))
			child++;
		if (!before(&q->heap[child], &last))
			break;
		q->heap[i] = q->heap[child];
		i = child;
	}
	if (q->n > 0)
		q->heap[i] = last;
	return top;
}

/* Doubles the ring, unwrapping it: the events before the head move past the old end. */
static int ring_grow(struct evq *q, struct pp_error *err)
{
	size_t old = q->ring_cap, wrapped;

	if (pp_grow((void **)&q->ring, &q->ring_cap, old + 1, sizeof(*q->ring), err) != 0)
		return -1;
	assert((q->ring_cap & (q->ring_cap - 1)) == 0 && q->ring_cap >= 2 * old);
	wrapped = q->ring_head + q->ring_n > old ? q->ring_head + q->ring_n - old : 0;
	for (size_t k = 0; k < wrapped; k++)
		q->ring[old + k] = q->ring[k];
	return 0;
}

int evq_push(struct evq *q, pp_time time, unsigned cls, uint8_t type, uint32_t arg,
             struct pp_error *err)
{
	struct evq_event ev = {time, (uint64_t)cls << SEQ_BITS | q->seq, arg, type};

	assert(cls < EVQ_CLASSES && q->seq < UINT64_C(1) << SEQ_BITS);
	if (time == q->now &&
	    (q->ring_n == 0 ||
	     before(&q->ring[(q->ring_head + q->ring_n - 1) & (q->ring_cap - 1)], &ev))) {
		if (q->ring_n == q->ring_cap && ring_grow(q, err) != 0)
			return -1;
		q->ring[(q->ring_head + q->ring_n++) & (q->ring_cap - 1)] = ev;
	} else if (heap_push(q, ev, err) != 0) {
		return -1;
	}
	q->seq++;
	return 0;
}

const struct evq_event *evq_peek(const struct evq *q)
{
	if (q->ring_n > 0 && (q->n == 0 || before(&q->ring[q->ring_head], &q->heap[0])))
		return &q->ring[q->ring_head];
	return q->n > 0 ? &q->heap[0] : NULL;
}

struct evq_event evq_pop(struct evq *q)
{
	struct evq_event ev;

	assert(evq_len(q) > 0);
	if (q->ring_n > 0 && (q->n == 0 || before(&q->ring[q->ring_head], &q->heap[0]))) {
		ev = q->ring[q->ring_head];
		q->ring_head = (q->ring_head + 1) & (q->ring_cap - 1);
		q->ring_n--;
	} else {
		ev = heap_pop(q);
	}
	q->now = ev.time;
	return ev;
}
