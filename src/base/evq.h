/*
 * The event queue of the simulations (the training engine's and serving's); private to the
 * library. Events come out in order of (time, class, sequence): the class is a small number the
 * caller picks to order kinds of event that happen at the same time, the sequence is the order
 * of insertion, so that events of equal time and class come out first in, first out and every
 * run is reproducible.
 *
 * Ownership: the queue owns its arrays; evq_release frees them. An event is a value: evq_pop
 * returns a copy.
 */
#ifndef PPSIM_EVQ_H
#define PPSIM_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/util.h"

/* Classes an event may have: 0 .. EVQ_CLASSES - 1. */
#define EVQ_CLASSES 256

struct evq_event {
	pp_time time; /* when it happens */
	uint64_t
	        key; /* the class in the top 8 bits, the sequence below: the order at equal times */
	uint32_t arg; /* the caller's: an index */
	uint8_t type; /* the caller's: what happens */
};

/*
 * A binary min-heap, and beside it a first-in, first-out ring of the events pushed for the
 * current time (the time of the last pop) in order: simulations push many of those (a message
 * that takes no time), and they come out in push order, so the ring takes them without sifting.
 * evq_pop takes the earlier of the ring's front and the heap's top.
 */
struct evq {
	struct evq_event *heap; /* [cap] the first n are a heap */
	size_t n, cap;
	struct evq_event *ring; /* [ring_cap], a power of two: ring_n events from ring_head */
	size_t ring_head, ring_n, ring_cap;
	uint64_t seq; /* events pushed so far */
	pp_time now;  /* the time of the last event popped (0 before any) */
};

/* An empty queue. */
void evq_init(struct evq *q);
/* Frees the queue's arrays; the struct itself belongs to the caller and may be reused after
 * evq_init. */
void evq_release(struct evq *q);

/*
 * Queues an event of class cls (< EVQ_CLASSES) at time with the caller's type and arg. Returns
 * 0, or -1 with a PP_ERR_NOMEM error (the queue unchanged) when it cannot grow.
 */
int evq_push(struct evq *q, pp_time time, unsigned cls, uint8_t type, uint32_t arg,
             struct pp_error *err);

/* Events queued. */
static inline size_t evq_len(const struct evq *q)
{
	return q->n + q->ring_n;
}

/* The event evq_pop would return, or NULL when the queue is empty. */
const struct evq_event *evq_peek(const struct evq *q);

/* Removes and returns the first event, which must exist; it becomes the current time. */
struct evq_event evq_pop(struct evq *q);

/* The class an event was pushed with. */
static inline unsigned evq_class(const struct evq_event *ev)
{
	return (unsigned)(ev->key >> 56);
}

#endif
