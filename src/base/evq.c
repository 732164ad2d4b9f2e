/*
 * The event queue's out-of-line part: setting it up, freeing it, sifting an event into the heap
 * and growing the ring (evq.h has the rest, inline for the engine's loop). Both arrays grow
 * through pp_grow, which doubles from 8 and so keeps the ring's capacity a power of two.
 */
#include "evq.h"

#include <stdlib.h>

void evq_init(struct evq *q)
{
	*q = (struct evq){NULL, 0, 0, NULL, 0, 0, 0, 0, 0, 0};
}

void evq_release(struct evq *q)
{
	free(q->heap);
	free(q->ring);
	evq_init(q);
}

int evq_push_heap(struct evq *q, struct evq_event ev, struct pp_error *err)
{
	size_t i;

	if (q->n == q->cap &&
	    pp_grow((void **)&q->heap, &q->cap, q->n + 1, sizeof(*q->heap), err) != 0)
		return -1;
	/* sift the hole up from the end and drop ev in where it stops */
	i = q->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!evq_before(&ev, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = ev;
	q->seq++;
	return 0;
}

/* Doubles the ring, unwrapping it (the events before the head move past the old end), and
 * appends ev. */
int evq_push_ring_grow(struct evq *q, struct evq_event ev, struct pp_error *err)
{
	size_t old = q->ring_cap, wrapped;

	if (pp_grow((void **)&q->ring, &q->ring_cap, old + 1, sizeof(*q->ring), err) != 0)
		return -1;
	assert((q->ring_cap & (q->ring_cap - 1)) == 0 && q->ring_cap >= 2 * old);
	wrapped = q->ring_head + q->ring_n > old ? q->ring_head + q->ring_n - old : 0;
	for (size_t k = 0; k < wrapped; k++)
		q->ring[old + k] = q->ring[k];
	q->ring[(q->ring_head + q->ring_n++) & (q->ring_cap - 1)] = ev;
	q->ring_cls = evq_class(&ev);
	q->seq++;
	return 0;
}
