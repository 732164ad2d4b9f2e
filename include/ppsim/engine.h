/*
 * Engine: the discrete-event simulation of docs/concepts.md. Each device has one compute stream
 * that runs its op list in order, one op at a time; each ordered device pair has a
 * first-in-first-out channel (shared by both directions when half-duplex). Events are ordered
 * by (time, sequence number), so equal times come out in insertion order and every run is
 * reproducible.
 *
 * Ownership: engine_new borrows the schedule and the cost, which must outlive the engine; the
 * engine owns its per-op state, its event queue and its result, all freed by engine_free. The
 * result returned by engine_result stays valid until engine_free.
 */
#ifndef PPSIM_ENGINE_H
#define PPSIM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "ppsim/cost.h"
#include "ppsim/util.h"


/* Start and end of one op, in ticks. */
struct op_time {
	pp_time start; /* when the op began on its device */
	pp_time end;   /* start + duration */
};

/* What one device did. */
struct device_result {
	pp_time busy;        /* sum of its compute op durations (an op's exposed communication
	                        apart) */
	pp_time comm_wait;   /* time blocking sends held its stream (0 in overlap mode) */
	pp_time first_start; /* start of its first op */
	pp_time last_end;    /* end of its last op */
	int64_t peak_act;    /* largest activation amount alive at once, in cost->act units */
	int64_t host_peak;   /* largest amount of them offloaded to host memory at once */
	pp_time end;         /* when its last op and its streams were done: its step */
	pp_time exposed[COMM_KINDS]; /* by kind: the time compute waited for it, or that it ran
	                                past the last op (slowed compute included) */
	pp_time comm[COMM_KINDS];    /* by kind: the time its pieces held their streams */
};

/* A piece of an op's plan, relative to the op's start. */
struct piece_span {
	pp_time start, end;
	uint8_t kind; /* enum comm_kind */
};

/* A shape's pieces on one stream taken together: the first's start, the last's end, their
 * summed time, the kinds among them (bit k: enum comm_kind k) and how many; what a report draws
 * of an op's stream without walking its pieces. */
struct stream_extent {
	pp_time lo, hi, busy;
	uint32_t kinds;
	size_t n;
};

/* What the engine made of an op's plan (one per stage and kind F, B, W). */
struct stream_shape {
	pp_time dur;                 /* the op's span, its pieces included */
	pp_time compute;             /* of it, compute alone */
	pp_time exposed[COMM_KINDS]; /* the part of dur - compute each kind caused */
	pp_time comm[COMM_KINDS];    /* the time each kind's pieces took on their streams */
	struct piece_span *pieces;   /* [npieces] in the order issued */
	size_t npieces;
	/* [nstalls] the spans its compute waited for a piece, from the op's start, in time
	 * order, each with the kind of the piece it waited for (the slowdown beside a piece is
	 * exposed too but not a stall); they live in pieces' allocation, after its npieces */
	struct piece_span *stalls;
	size_t nstalls;
	struct stream_extent extent[STREAM_COUNT]; /* its pieces by stream */
	unsigned streams;                          /* bit 1 << st: extent[st] has pieces */
	struct stream_extent stall_extent[STREAM_COUNT]; /* its stalls, by the stream waited for */
	unsigned stall_streams;                          /* bit 1 << st: stall_extent[st] has some */
};

/* A piece whose time the run decided (a gradient bucket, a parameter gather). */
struct piece_record {
	uint32_t dev;       /* device */
	uint8_t kind;       /* enum comm_kind */
	pp_time start, end; /* on its stream */
	int64_t amount;     /* an activation copy's amount (cost->act units), else 0 */
};

/* Traffic on one channel: the messages from device src to device dst. */
struct channel_result {
	int src;           /* sending device */
	int dst;           /* receiving device (for half-duplex: the pair's other end) */
	uint64_t messages; /* messages carried */
	uint64_t bytes;    /* bytes carried */
	pp_time busy;      /* sum of transfer durations on this channel */
};

/* One P2P message, recorded when engine_record_messages was called: 24 bytes, as a large run
 * records about one an op. Its channel follows from its ends' devices (result_channel). An op
 * sends at most one. */
struct msg_record {
	uint32_t from; /* producer op (index in sched->ops) */
	uint32_t to;   /* consumer op */
	pp_time start; /* when it took the channel */
	pp_time end;   /* when it arrived */
};

/* The outcome of a simulation. Arrays are indexed like the schedule's ops and devices. */
struct result {
	int p;                           /* devices */
	pp_time makespan;                /* end of the last op */
	struct op_time *times;           /* [sched->nops] per op, aligned with sched->ops; NULL
	                                  * when engine_drop_times was called */
	struct device_result *devices;   /* [p] */
	struct channel_result *channels; /* [nchannels] sorted by (src, dst) */
	int nchannels;                   /* channels that carried at least one message */
	uint64_t messages;               /* P2P messages in all */
	uint64_t bytes;                  /* P2P bytes in all */
	pp_time msg_time;                /* sum of all transfer durations */
	struct msg_record *msgs;         /* [nmsgs] by sending device, each device's in the order
	                                    of its ops (that is, by producer op), or NULL when not
	                                    recorded */
	size_t nmsgs;                    /* recorded messages (== messages when recorded) */
	pp_time step_end;                /* the latest device end: the schedule and its streams */
	struct stream_shape *shapes;     /* [nshapes = 3S] stage s's F, B, W at 3s.. when the
	                                    cost has pieces, else NULL */
	size_t nshapes;
	struct piece_record *pieces;     /* [npieces] in the order issued, or NULL */
	size_t npieces;
	pp_time *inner;                  /* [sched->nops] when the cost has pieces, else NULL:
	                                    the part of each op's span that is not its compute
	                                    (its plan's exposed communication and slowed
	                                    compute, a pair's in its first op's entry, and what
	                                    it waited for a parameter gather or activations
	                                    coming back): a device's busy is its ops' spans (a
	                                    pair's once) less these */
	uint32_t *order;                 /* [sched->nops] op indices in the order the engine
	                                    finished them (a topological order of the run's
	                                    dependencies; a pair's two ops together), or NULL
	                                    unless engine_record_order was called */
};

/*
 * The index in r->channels of the channel that carries messages from device src to device dst:
 * theirs, or for a half-duplex link the pair's one channel; -1 when no message went between
 * them. In log(channels) steps.
 */
int result_channel(const struct result *r, int src, int dst);

struct engine;

/*
 * Prepares a simulation of s priced by c. Checks that the cost's stage count matches the
 * schedule's and that the total simulated time stays within PP_TIME_TOTAL_MAX. Returns NULL with
 * err set (PP_ERR_CONFIG for another stage count, PP_ERR_USAGE for times too large, PP_ERR_NOMEM
 * when memory runs out) on failure. Whether the schedule is well formed, engine_run says.
 */
struct engine *engine_new(const struct sched *s, const struct cost *c, struct pp_error *err);

/*
 * Runs the simulation to the end. Returns 0, or -1 with a PP_ERR_CONFIG error when the schedule
 * is malformed (sched_check's error), a PP_ERR_NOMEM error when memory runs out, or a PP_ERR_SIM
 * error when the schedule deadlocks: the message names, for each stuck device,
 * the op at its head and the input it waits for (as many devices as fit in the message, then how
 * many more are stuck). Call at most once.
 */
int engine_run(struct engine *e, struct pp_error *err);

/* Asks e to record every message (struct msg_record) for traces; call before engine_run. */
void engine_record_messages(struct engine *e);

/*
 * Gives e an arena for its large arrays (the op times, the sweep's cells), which must outlive
 * e; call before engine_run. engine_arena_bytes says how much of it a run of nops ops, whose m
 * micro-batches each visit L stages (a schedule's route_stages: S with one route), takes, with
 * or without op times.
 */
void engine_use_arena(struct engine *e, struct pp_arena *arena);
size_t engine_arena_bytes(size_t nops, int L, int m, bool times);

/*
 * The most memory a run of nops ops (m micro-batches visiting L stages each, as for
 * engine_arena_bytes) that sends nmsgs messages holds at once in the engine's per-op arrays:
 * the op times unless dropped (times), and the sweep's cells, or when the run takes the event
 * loop (events: half-duplex channels) the loop's consumers and counts of
 * inputs, with the record of the messages when kept (record) and the order of its ops (order,
 * 4 bytes an op); with slack, once it ran, engine_slack's table and the caller's array of
 * slacks (8 bytes an op) instead of the loop's arrays: exactly, without the few MB of an
 * arena's rounding to its pages or the few hundred bytes of each device and channel. SIZE_MAX
 * when it does not fit in a size_t.
 */
size_t engine_peak_bytes(size_t nops, size_t nmsgs, int L, int m, bool times, bool events,
                         bool record, bool order, bool slack);

/* Whether a run takes the event loop rather than the sweep: its channels are half-duplex (two
 * senders share one, in the order of the events that send them, which only the loop has). */
bool engine_takes_events(bool half_duplex);

/*
 * Tells e that its caller reads no per-op times (a report of totals, a sweep point): the result
 * has times NULL, which saves 16 bytes of memory per op. Call before engine_run.
 */
void engine_drop_times(struct engine *e);

/*
 * Makes e run its event loop, which engine_run otherwise keeps for half-duplex channels
 * (elsewhere a dependency sweep gives the same times and messages faster); for tests that
 * compare the two. Call before engine_run.
 */
void engine_use_events(struct engine *e);

/*
 * A device, or the link between two devices, that runs slower from some time on: each op of
 * device dev that starts at or after at lasts factor x its duration, and with link set, each
 * message between dev and peer (either way) that takes its channel at or after at.
 */
struct engine_slow {
	uint32_t dev, peer; /* peer: with link */
	bool link;
	bool optional; /* a link the order does not use is no error: it slows nothing */
	pp_time at;
	double factor; /* > 0 */
};

/*
 * What makes one run's times differ from its cost's (a noise sample, a measured step, a
 * what-if): op_dur[i] is op i's duration (for an overlapped pair, the pair's span, in its first
 * op's entry), msg_dur[i] the duration of the message op i sends (a message the cost prices at 0
 * stays free); NULL keeps the cost's. slow[nslow]
 * are stragglers (a later entry for the same device or link replaces an earlier). The arrays
 * are borrowed and must outlive the run.
 */
struct engine_perturb {
	const pp_time *op_dur;          /* [sched->nops] or NULL */
	const pp_time *msg_dur;         /* [sched->nops] or NULL */
	const struct engine_slow *slow; /* [nslow] */
	size_t nslow;
};

/*
 * Gives e its perturbation; call before engine_run. Returns 0, or -1 with err set: PP_ERR_USAGE
 * for a negative duration, a factor that is not positive and finite, a device out of range, a
 * link between devices that exchange no messages, or times whose total (stretched by the
 * largest factor) passes PP_TIME_TOTAL_MAX; PP_ERR_NOMEM.
 */
int engine_perturb(struct engine *e, const struct engine_perturb *p, struct pp_error *err);
/* The duration e's cost gives op i, its plan's pieces included (a fused backward: B + W; the
 * first op of an overlapped pair: the pair's span): what engine_perturb's op_dur replaces. */
pp_time engine_cost_duration(const struct engine *e, size_t i);
/* The duration e's cost gives the message op i sends to the next stage of its route (a
 * forward's) or the stage before (a backward's), before any slow link; 0 when it sends none:
 * what engine_perturb's msg_dur replaces. */
pp_time engine_cost_msg_duration(const struct engine *e, size_t i);
/* Asks e to record the order in which its ops finished (result's order); call before
 * engine_run. */
void engine_record_order(struct engine *e);

/* The result of a finished run (NULL before engine_run succeeded). */
const struct result *engine_result(const struct engine *e);

/* Frees e and everything it owns; NULL is a no-op. */
void engine_free(struct engine *e);

#endif
