/*
 * What the two ways of running the engine share; private to the library. engine.c sets a run
 * up (validation, channels, results) and reports; engine_sweep.c runs it as a dependency sweep
 * and engine_events.c as an event loop. Both give the same times.
 */
#ifndef PPSIM_ENGINE_INTERNAL_H
#define PPSIM_ENGINE_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/evq.h"
#include "base/hot.h"
#include "ppsim/cost.h"
#include "ppsim/engine.h"
#include "ppsim/sched.h"

enum event_type {
	EV_OP_END,  /* arg: op index; the op finished on its device */
	EV_ARRIVE,  /* arg: op index; one input of the op was delivered */
	EV_RELEASE, /* arg: device; a blocking send let the device's stream go */
};

/* Where each device stands. */
struct device_state {
	size_t head;     /* index in sched->ops of the next op to run */
	size_t end;      /* one past the device's last op */
	pp_time free_at; /* the stream is held until this time (blocking sends) */
	bool running;    /* an op is on the stream (event loop) */
};

/* A FIFO channel between two devices. */
struct channel {
	pp_time free_at; /* when the last queued message finishes */
};

/* An overlapped pair's two plans run together (stream.c): what it takes and what it hid. */
struct pair_shape {
	bool set;                    /* evaluated: the schedule has this pair */
	pp_time dur, compute;        /* its span, and of it the two ops' compute */
	pp_time exposed[COMM_KINDS]; /* the part of dur - compute each kind caused */
	pp_time comm[COMM_KINDS];    /* each kind's time on its stream */
	uint64_t count;              /* pairs of this shape in the schedule */
};

/* The streams of a run (stream.c). */
struct streams {
	struct pair_shape *pair; /* [S * v * 2] overlapped pairs priced from their pieces, by
	                            the forward's stage, the backward's chunk and kind (B or BW);
	                            NULL when pairs take --overlap-factor */
	uint64_t *alone;       /* [3S] with pairs: ops of each stage and kind run alone */
	pp_time *dur;          /* [3S] an op's span by stage and kind F, B, W: its plan's */
	pp_time *extra;        /* [S] a micro-batch's F + B + W spans less their compute */
	pp_time *free;         /* [p * STREAM_COUNT] when each device's stream is free */
	uint32_t *count;       /* [2S] forwards and weight-gradient ops of each stage run */
	pp_time *gather_end;   /* the gathers' ends, stage s's from gather_first[s] on */
	size_t *gather_first;  /* [S + 1] */
	pp_time *gate_wait;    /* [p] the time ops waited for gathers and activations' copies back */
	pp_time *gather_wait;  /* [p] of that, the first forwards' waits for gathers */
	pp_time *reached;      /* [p] the last op's end, slowed: what runs after it starts then */
	/* the pieces a device issued at its latest issue time so far, which the SM slowdown
	 * moves when that is its last op's end (after_ops): */
	pp_time *tail_at;      /* [p] that time (-1 before the first) */
	size_t *tail_rec;      /* [p] their first record in res.pieces */
	pp_time *tail_free;    /* [p * STREAM_COUNT] the device's streams' free times before them */
	pp_time *pair_wait;    /* [p] the time its collectives with another device (the tied
	                          embeddings', DualPipe's copies') waited for that device after its
	                          own streams were done: the pipeline's skew, no communication */
	size_t nrec, cap;      /* hooked pieces recorded in res.pieces, and its room */
	bool nomem;            /* a record did not fit: the run fails */
	/* activation offload (cost pieces' offload), NULL without: */
	pp_time *off_end;      /* [S * m] when each (stage, micro-batch)'s copy out ended, -1
	                          before it runs or when it is kept on the GPU */
	pp_time *rel_end;      /* [S * m] when its copy back ends, -1 before it is issued */
	int64_t *prefetch;     /* [nops] the op whose activations op i brings back as it starts
	                          (the next op of its device, a backward that offloaded); -1:
	                          none; -2: a forward whose own backward is next, which keeps its
	                          activations on the GPU */
	struct mem_event *mem; /* what moved activations of a device in and out, and when */
	size_t nmem, capmem;
};

/* An activation amount arriving (delta > 0) or leaving on a device's GPU (host false) or in
 * host memory (host true) at time t. */
struct mem_event {
	pp_time t;
	int64_t delta;
	uint32_t dev;
	bool host;
};

/* A straggler as the engine applies it, per device or channel: factor 1 when none. */
struct slow_at {
	pp_time at;
	double factor;
};

/* An op or message of duration dur starting at start under straggler w. */
static inline pp_time engine_slowed(const struct slow_at *w, pp_time start, pp_time dur)
{
	return w->factor != 1 && start >= w->at ? (pp_time)llround(w->factor * (double)dur) : dur;
}

struct engine {
	const struct sched *s;
	const struct cost *c;
	struct device_state *dev; /* [p] */
	struct channel *chan;     /* [nchannels] */
	int *fwd_chan;            /* [S] channel of boundary s -> s+1, -1 when on one device */
	int *bwd_chan;            /* [S] channel of boundary s+1 -> s, -1 when on one device */
	uint32_t *cons;    /* event loop: [2 * nops] the ops that wait for each op (CONS_*) */
	uint8_t *pending;  /* event loop: [nops] inputs not yet delivered */
	struct evq events; /* the event loop's, in (time, sequence) order: all of class 0 */
	pp_time now;
	size_t done; /* ops finished */
	bool ran;
	bool ok;           /* the run succeeded: the result is complete */
	bool record;       /* keep a struct msg_record per message */
	size_t *msg_at;    /* with record: [p] where each device's next message goes in res.msgs,
	                      whose messages lie by sending device, each device's in the order of
	                      its ops (engine_record_messages) */
	size_t *msg_end;   /* [p] one past each device's last */
	bool drop_times;   /* the result has no per-op times */
	struct pp_arena *arena; /* for the times and the sweep's cells, or NULL */
	bool force_events; /* take the event loop even where the sweep gives the same times */
	struct streams sm;
	const pp_time *op_dur;  /* engine_perturb's, or NULL */
	const pp_time *msg_dur;
	struct slow_at *slow_dev;  /* [p] stragglers, or NULL when none */
	struct slow_at *slow_chan; /* [nchannels] slow links, or NULL when none */
	bool record_order;         /* keep res.order */
	size_t norder;             /* ops in res.order so far */
	void *spare;               /* the sweep's cells when they lie in the arena, which holds
	                              them until it is released: engine_slack's table reuses them */
	size_t spare_bytes;
	struct result res;
};

/* Most ops the engine takes: op numbers keep two bits free in the consumer table. */
#define ENGINE_MAX_OPS UINT32_C(0x3fffffff)

/*
 * An entry of the consumer table: the consumer's op index in the low 30 bits and where its input
 * comes from in the top two: the same stage, the stage before (a forward message) or the stage
 * after (a gradient). CONS_NONE ends an op's list.
 */
#define CONS_INDEX    ENGINE_MAX_OPS
#define CONS_FORWARD  (UINT32_C(1) << 30)
#define CONS_GRADIENT (UINT32_C(2) << 30)
#define CONS_NONE     UINT32_MAX

/* The duration of op i's message over boundary b before any slow link: the perturbation's, or
 * the cost's (a message the cost prices at 0 stays free). */
static inline pp_time engine_msg_duration(const struct engine *e, size_t i, uint32_t b)
{
	return e->msg_dur != NULL && e->c->msg_time[b] > 0 ? e->msg_dur[i] : e->c->msg_time[b];
}

/* Duration of op i on its stage, its plan's pieces included (a fused backward: B + W), or
 * the perturbation's. */
pp_time engine_op_duration(const struct engine *e, size_t i);
/* Duration of the overlapped pair of ops i and i + 1: its pieces run together (stream.c) when
 * the cost has pieces and no --overlap-factor was given, else overlap_factor x (F + B), exact
 * when it is 1; or the perturbation's. */
pp_time engine_pair_duration(const struct engine *e, size_t i);

/* The pair shape of forward f and backward b (B or BW) of one device, or NULL. */
/* Prices every overlapped pair shape of e's schedule from its two ops' plans into e->sm.pair,
 * and counts the ops that run alone (plan.c). Returns 0, or -1 with err set. */
int stream_pairs_init(struct engine *e, struct pp_error *err);
const struct pair_shape *stream_pair(const struct engine *e, const struct op *f,
                                     const struct op *b);

/* The same of a pair whose two ops take sum together (inline: the sweep has their times at
 * hand). A factor below max(F, B) / (F + B) models more gain than overlap can give; it is the
 * user's. */
static inline pp_time engine_pair_span(const struct engine *e, const struct op *f,
                                       const struct op *b, pp_time sum)
{
	if (e->sm.pair != NULL) /* priced from its pieces (stream.c) */
		return stream_pair(e, f, b)->dur;
	if (e->c->overlap_factor == 1)
		return sum;
	return (pp_time)llround(e->c->overlap_factor * (double)sum);
}

/*
 * The streams (stream.c). stream_init evaluates the cost's plans into the ops' spans and puts
 * the step's parameter gathers on their streams; stream_hooked gives the op kinds of stage st
 * that carry hooked pieces (bit 1 << kind), which stream_op_end prices as such an op runs from
 * start for dur
 * (returning its end, later than start + dur when its forward waits for a gather);
 * stream_finish issues what devices send after their last op and sets each device's end,
 * exposed and stream times, with busy made compute alone. The int functions return 0, or -1
 * with err set. stream_plan_eval evaluates one plan with idle streams into out (which owns
 * out->pieces); slow is the compute slowdown beside communication.
 */
int stream_init(struct engine *e, struct pp_error *err);
unsigned stream_hooked(const struct engine *e, uint32_t st);
pp_time stream_op_end(struct engine *e, uint32_t d, const struct op *op, pp_time start,
                      pp_time dur);
int stream_finish(struct engine *e, struct pp_error *err);
void stream_release(struct engine *e);
int stream_plan_eval(const struct piece_plan *pl, double slow, struct stream_shape *out,
                     struct pp_error *err);

/*
 * Records that op i on device d (with its partner when pair) ran from start to end: its times
 * (unless dropped) and the device's busy time, first start and last end, and the makespan. The
 * event loop's; the sweep keeps these in its device records and writes them back at the end.
 */
static inline void engine_ran(struct engine *e, int d, size_t i, bool pair, pp_time start,
                              pp_time end)
{
	struct device_result *dr = &e->res.devices[d];

	if (e->res.times != NULL) {
		e->res.times[i] = (struct op_time){start, end};
		if (pair)
			e->res.times[i + 1] = e->res.times[i];
	}
	if (i == e->s->dev_start[d])
		dr->first_start = start;
	dr->busy += end - start;
	dr->last_end = end;
	if (end > e->res.makespan)
		e->res.makespan = end;
}

/*
 * Sends a message of bytes taking dur on channel ch from device d at time at, and returns when
 * it arrives (when it took the channel in *start). A channel carries one message at a time, first come, first served: a message sent
 * while the channel is busy waits for it (free_at) rather than sharing its bandwidth, which is
 * how a point-to-point link behaves and keeps each transfer's time its own. Blocking
 * communication also holds the sender's stream until the message arrives. It counts in the
 * channel's totals; engine_run adds up the run's from them.
 */
static inline pp_time engine_transfer(struct engine *e, int d, int ch, uint64_t bytes, pp_time dur,
                                      pp_time at, pp_time *start_at)
{
	struct channel_result *cr = &e->res.channels[ch];
	pp_time start = e->chan[ch].free_at > at ? e->chan[ch].free_at : at, arrive;

	if (e->slow_chan != NULL)
		dur = engine_slowed(&e->slow_chan[ch], start, dur);
	arrive = start + dur;
	*start_at = start;
	e->chan[ch].free_at = arrive;
	cr->messages++;
	cr->bytes += bytes;
	cr->busy += dur;
	if (e->c->comm == PP_COMM_BLOCKING && arrive > e->dev[d].free_at) {
		e->res.devices[d].comm_wait += arrive - e->dev[d].free_at;
		e->dev[d].free_at = arrive;
	}
	return arrive;
}

/*
 * Records the message op i on device d sent to op `to` (UINT32_MAX: the sweep, which fills it
 * in after the run) from start to end, in device d's next slot: false when the device has sent
 * more than its boundaries carry (a malformed schedule, which stops the run).
 */
static inline bool engine_record_msg(struct engine *e, uint32_t d, size_t i, uint32_t to,
                                     pp_time start, pp_time end)
{
	if (e->msg_at[d] == e->msg_end[d])
		return false;
	e->res.msgs[e->msg_at[d]++] = (struct msg_record){(uint32_t)i, to, start, end};
	return true;
}

/*
 * The two ways to run: each leaves e->done ops done and the devices' heads where they stopped,
 * and returns 0, or -1 with a PP_ERR_NOMEM error. The event loop takes a schedule sched_check
 * accepts; the sweep checks each op it reads and returns 1, stopped, at the first it refuses.
 * The sweep also sets each device's peak activations, as it runs the device's ops in order.
 */
int engine_run_sweep(struct engine *e, struct pp_error *err);
/* The bytes of the sweep's table of cells for m micro-batches that visit L stages each
 * (SIZE_MAX when they do not fit a size_t); an arena rounds them up to its pages. */
size_t engine_sweep_bytes(int L, int m);
int engine_run_events(struct engine *e, struct pp_error *err);

#endif
