/*
 * The serving simulation's state (private to src/serve/): requests as the policies see them,
 * the pipelines, and the run being built, shared by the event loop (serve.c) and the batching
 * policies that form micro-batches (serve_batch.c).
 */
#ifndef PPSIM_SERVE_STATE_H
#define PPSIM_SERVE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/evq.h"
#include "ppsim/serve.h"
#include "serve_internal.h"

/* What an event is, in the order events of equal time are taken (their class in the queue). */
enum event_kind { EV_EXIT, EV_KV_ARRIVE, EV_ARRIVE };

/* A growable array of request numbers. */
struct list {
	uint32_t *v;
	size_t n, cap;
};

static inline int list_add(struct list *l, uint32_t x, struct pp_error *err)
{
	if (pp_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v), err) != 0)
		return -1;
	l->v[l->n++] = x;
	return 0;
}

/* A first-in, first-out queue of request numbers. */
struct fifo {
	struct list items;
	size_t head;
};

static inline size_t fifo_len(const struct fifo *q)
{
	return q->items.n - q->head;
}

static inline uint32_t fifo_front(const struct fifo *q)
{
	return q->items.v[q->head];
}

/* A request as the policies see it. */
struct rstate {
	uint32_t prompt, output;
	uint32_t prefilled; /* prompt tokens processed */
	uint32_t generated; /* output tokens produced */
	bool admitted, busy, done;
	int group; /* static batching: its batch group, or -1 */
};

/* A static batch: requests admitted together that decode together until all are done. */
struct group {
	struct list reqs;
	bool live;
};

/* One pipeline. */
struct pipe {
	int index;    /* 0: the pipeline (decode); 1: the prefill pipeline */
	int device0;  /* its first device */
	int stages;   /* and how many */
	int limit;    /* micro-batches in flight allowed */
	int inflight; /* now */
	struct serve_pricer pr;
	pp_time *stage_free; /* [stages] */
	pp_time *chan_free;  /* [stages] link after each stage */
	uint64_t kv_cap, kv_used, kv_peak;
	struct fifo waiting;  /* requests waiting for admission */
	struct list running;  /* admitted, not done, in admission order */
	size_t running_done;  /* of running, entries done since it was last compacted (at most) */
	size_t running_head;  /* running.v[0..running_head-1] are all done: scans start here */
	struct group *groups; /* static: [limit] */
	uint64_t launched;    /* micro-batches launched so far */
	struct kept *ring;    /* [limit] the items of those in flight, from ring_head on: they
	                         leave in launch order, a pipeline being first in, first out */
	size_t ring_head;
};

/* The items of a launched micro-batch. */
struct kept {
	struct serve_item *items; /* [n] */
	uint32_t n;
	uint32_t batch; /* its index */
};

/* An op on a device, for the run's drawings (serve_drawing): a device's ops are its pipeline's
 * micro-batches in launch order, so the times say it all. */
struct opt {
	pp_time start, end;
};

/* A message between two stages, in launch order: micro-batch k sends one after each of its
 * pipeline's stages but the last, so its sender and micro-batch follow from its place. */
struct msg {
	pp_time start, end;
};

/* The whole simulation. */
struct state {
	const struct config *c;
	const struct serve_workload *w;
	struct serve_run *run;
	struct rstate *rs;
	struct pipe pipes[2];
	int npipes;
	struct evq events;   /* by (time, kind, sequence) */
	size_t next_arrival; /* open loop: the next request to arrive */
	size_t sent;         /* closed loop: requests sent so far */
	size_t finished;
	pp_time kv_chan_free;            /* disaggregated: the KV link */
	struct serve_item *items;        /* [max_batch] the micro-batch being formed */
	bool record_msgs;                /* keep every message (for a trace or a drawing) */
	uint64_t max_steps;              /* stage steps the run may take: --max-ops, or less */
	uint64_t *dev_sent, *sent_bytes; /* [devices] messages and bytes each device sent */
	pp_time *sent_busy;              /* [devices] and their time on the link */
	const struct serve_progress *progress; /* told of finished requests, or NULL */
	size_t nitems;
	size_t cap_batch; /* of run->batch */
	size_t cap_queue; /* of run->queue */
	struct opt **ops; /* [devices] */
	size_t *nops, *capops;
	struct msg *msgs;
	size_t nmsgs, capmsgs;
	uint32_t waiting_total; /* requests arrived, not admitted by their first pipeline */
	uint64_t total_ops;     /* stage steps launched */
	struct pp_error err;    /* why the simulation stopped, when it failed */
};

/* Records the number of requests waiting for admission from time t on (serve.c). */
int serve_queue_changed(struct state *st, pp_time t, int delta);
/* The pipeline that admits arriving requests: the prefill pipeline when disaggregated. */
struct pipe *serve_entry_pipe(struct state *st);
/* KV tokens pipe p reserves for request r: the prompt in a prefill pipeline, else all
 * (serve_batch.c). */
uint64_t serve_kv_need(const struct pipe *p, const struct rstate *r);
/* Forms pipeline p's next micro-batch at time t into st->items by its batching policy
 * (serve_batch.c): 0 (none when st->nitems is 0), or -1 with st->err. */
int serve_form(struct state *st, struct pipe *p, pp_time t);

#endif
