/*
 * What a trace of a run holds, walked once for its two writers: the Chrome trace's JSON
 * (trace.c) and Perfetto's protobuf trace (pftrace.c). The walk says what each track, slice,
 * flow and counter sample is (names, categories, times in ticks, arguments); each writer only
 * encodes them, in the order its format wants. Private to the report layer.
 *
 * A trace's tracks: per device d a process, a compute track (tid 0), a track per direction it
 * sends in (tid 1, 2, ... in channel order; trace_walk.tid), a track per communication stream
 * its pieces ran on (TRACE_STREAM_TID), and the counters "activations" (and "host" with
 * activation offload).
 */
#ifndef PPSIM_TRACE_WALK_H
#define PPSIM_TRACE_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "ppsim/report.h"
#include "ppsim/schedfile.h"

#include "base/numfmt.h"

/* The track (tid) of a device's communication stream st: past any channel's. */
#define TRACE_STREAM_TID(st) ((1 << 24) + (int)(st))

/* The longest name of an op's slice (a PyTorch action with "PP:"), its NUL included. */
#define TRACE_NAME_MAX (SCHEDFILE_ACTION_MAX + 8)

/* The direction of the messages a stage sends one way, found once per pair of devices. */
struct trace_dir_seen {
	int src, dst; /* -1: not yet */
	size_t dir;
};

/* A walk over the trace of one run; trace_walk_init fills it, trace_walk_release frees it. */
struct trace_walk {
	const struct drawing *s;
	int *tid;                    /* [2 nchannels]: the track of each direction of each channel
	                                on its sending device (2 ch from the channel's src, 2 ch + 1
	                                back), 0 when no message goes that way */
	struct trace_dir_seen *seen; /* [2 S]: the direction of stage s's forward (2 s) and
	                                backward (2 s + 1) messages */
	bool offload;                /* a piece moves activations: the host counter is drawn */
	bool forked;                 /* tid is another walk's (trace_walk_fork) */
};

/* Starts a walk over s's trace. Returns 0, or -1 when out of memory (w then needs no
 * release). */
int trace_walk_init(struct trace_walk *w, const struct drawing *s);
void trace_walk_release(struct trace_walk *w);
/* A walk over from's trace for another thread: from's tracks, read only, and a cache of its own
 * (trace_walk_msg writes to it). Returns 0, or -1 when out of memory (w then needs no release);
 * w is released before from. */
int trace_walk_fork(struct trace_walk *w, const struct trace_walk *from);

/* The name of the track of direction back (0 or 1) of channel ch ("send to GPU 1", and
 * " (half-duplex, shared)" when the link is one queue), into buf of n bytes; its device in
 * *pid. */
const char *trace_walk_channel_name(const struct trace_walk *w, int ch, int back, int *pid,
                                    char *buf, size_t n);

/* One op's slice on its device's compute track. */
struct trace_op {
	size_t i;                   /* the op */
	int d;                      /* its device */
	const char *name;           /* its slice's name (points into buf) */
	size_t name_len;
	const char *cat;            /* "forward" or "backward" */
	const char *kind;           /* ppsim's kind name: F, B, W, BW */
	pp_time start, end;         /* ticks */
	uint32_t mb, stage, chunk;
	bool overlapped;            /* one op of an overlapped pair */
	bool has_slack;             /* a training run's: critical and slack are set */
	bool critical;              /* no slack */
	pp_time slack;              /* ticks */
	bool has_exposed;           /* a run with streams: exposed is set */
	pp_time exposed;            /* ticks of its span that are not its compute (result inner:
	                               an overlapped pair's on its first op) */
	char buf[TRACE_NAME_MAX];
};

/* Fills o with op i of device d. */
void trace_walk_op(const struct trace_walk *w, int d, size_t i, struct trace_op *o);
/* trace_walk_op without the name (NULL), for a writer that names each slice once (an interned
 * name); trace_walk_op_name then gives it. */
void trace_walk_op_unnamed(const struct trace_walk *w, int d, size_t i, struct trace_op *o);
void trace_walk_op_name(const struct trace_walk *w, struct trace_op *o);

/* One message: its transfer's slice on its sender's track, and the flow arrow to its
 * consumer. */
struct trace_msg {
	size_t k;            /* the message; its flow's id is k + 1 */
	int src, dst;        /* devices */
	int tid;             /* its track on src */
	const char *name;    /* "F3 to GPU 1" or "PP:2SEND_F3" (points into buf) */
	size_t name_len;
	const char *cat;     /* the pass of the ops it joins */
	pp_time start, end;  /* on the link, ticks */
	uint64_t bytes;      /* its channel's bytes a message */
	uint32_t stage, mb;  /* of the op that sends it */
	/* The flow: from the transfer's start on its track, or, when the transfer starts when its
	 * consumer does (Chrome's engine keys a flow's points by time), from the producing op's
	 * start on its compute track (from_op). It ends at the consumer's start on dst's compute
	 * track. */
	bool from_op;
	pp_time flow_start; /* g->start, or the producing op's start */
	int flow_tid;       /* tid, or 0 */
	pp_time to_start;
	size_t from, to;    /* the producing and consuming ops */
	char buf[64];
};

/* The microseconds of a length of t ticks as both traces write them: the double nearest their
 * exact value (tick / 1000 ticks a microsecond: tick is PP_TICK_BASE times a whole factor), of
 * which the JSON writes the shortest text. */
static inline double trace_walk_us(const struct drawing *s, pp_time t)
{
	return s->tick % 1000 == 0 ? pp_time_to_units(t, s->tick / 1000)
	                           : pp_time_to_units(t, s->tick) * 1000;
}

/* True when the flow of message g starts at its producing op (trace_msg.from_op). */
static inline bool trace_walk_from_op(const struct result *r, const struct msg_record *g)
{
	return g->start == r->times[g->to].start;
}

/* Fills m with message k (the run recorded its messages). Not const: it keeps the direction
 * found for the message's stage. */
void trace_walk_msg(struct trace_walk *w, size_t k, struct trace_msg *m);

/* A slice on a device's communication stream: one op's pieces on it, a hooked piece, or the
 * "exposed" slice on the compute track from the device's last op to its end. */
struct trace_comm {
	int d;
	int tid;            /* TRACE_STREAM_TID(stream), or 0 for the exposed slice */
	const char *name;   /* the kinds' names joined by '+' ("tp+cp"), or "exposed" */
	unsigned kinds;     /* those kinds, bit 1 << enum comm_kind (0 for the exposed slice) */
	const char *cat;    /* "comm" or "exposed" */
	pp_time start, end; /* ticks */
	enum {
		TRACE_COMM_OP,      /* an op's pieces: op, pieces and busy are set */
		TRACE_COMM_HOOKED,  /* a hooked piece (a bucket, a gather) */
		TRACE_COMM_EXPOSED, /* the device's streams ran past its last op */
	} what;
	size_t op;          /* the op's (an overlapped pair's first): trace_walk_comm_op names it */
	bool first;         /* the first of its device's slices but the exposed one */
	size_t pieces;
	pp_time busy;       /* ticks its pieces held the stream */
};

/* The name of op's stream slices in buf of n bytes, an overlapped pair's two ops' joined by '+'
 * ("F7+b3"); returns its length. */
size_t trace_walk_comm_op(const struct trace_walk *w, size_t op, char *buf, size_t n);

/* The longest name of a set of communication kinds ("dp+tp+cp+ep+offload+reload"), its NUL
 * included. */
#define TRACE_KINDS_NAME 48

/*
 * The communication streams' slices as items for wbuf_put_items, formatted on several threads
 * (trace_streams.c): per device a head (where a writer names its stream tracks: one per stream
 * that carried pieces, "dp stream"), an item per op (its unit's slices, one per stream: none for
 * an overlapped pair's second op, whose pieces join its first's), one per hooked piece, and a
 * tail (the exposed slice, then the writer's tail); a device whose pieces took no time has no
 * slices. Read only once made: shared by the threads.
 */
struct trace_stream_items {
	const struct trace_walk *w;
	bool busy;       /* the slices need their pieces' busy time (else it is 0) */
	size_t n;        /* items */
	size_t *base;    /* [p + 1]: device d's items are base[d] to base[d + 1] - 1 */
	size_t *hstart;  /* [p + 1]: device d's hooked pieces are hooked[hstart[d]...] */
	size_t *hooked;  /* [npieces]: the hooked pieces device by device, in the order issued */
	unsigned *lanes; /* [p]: report_device_streams of each device */
	size_t *first;   /* [p]: the item of each device's first slice (SIZE_MAX: none) */
	char names[1u << COMM_KINDS][TRACE_KINDS_NAME]; /* each set of kinds' names */
};
/* What a writer writes of the items at p, returning the end: head of device d (lanes: its
 * streams, bit 1 << enum comm_stream), each slice, and tail of device d (may be NULL). */
struct trace_stream_fns {
	char *(*head)(void *ctx, int d, unsigned lanes, char *p);
	char *(*slice)(void *ctx, const struct trace_comm *c, char *p);
	char *(*tail)(void *ctx, int d, char *p);
};
/* The name of a stream st's track ("tp/cp stream") in buf of n bytes. */
const char *trace_walk_track_name(enum comm_stream st, char *buf, size_t n);
/* Makes w's stream items, their slices with their busy time when busy: 0, or -1 when out of
 * memory (it then needs no release). */
int trace_stream_items_init(struct trace_stream_items *it, const struct trace_walk *w, bool busy);
void trace_stream_items_release(struct trace_stream_items *it);
/* Writes item k at p with f (at most a head, STREAM_COUNT slices, or a slice and a tail);
 * returns the end. *at: the device of the caller's last item (a thread's own, -1 at first). */
char *trace_stream_item(const struct trace_stream_items *it, const struct trace_stream_fns *f,
                        void *ctx, int *at, size_t k, char *p);

/* A counter sample: counter "activations" (host false) or "host" of device d at time t, of
 * num / unit micro-batches. */
struct trace_count {
	int d;
	bool host;
	pp_time t;
	int64_t num, unit; /* the sample is num / unit micro-batches: num the activations held
	                      times the schedule's routes, unit those of one micro-batch on every
	                      chunk of the device (a micro-batch passes a routes-th of them) */
	int64_t routes;
};

/* Calls fn for each sample of device d's counters in time order, from a sample of 0 at time 0
 * (none for a device that keeps no activations: a serving pipeline). Returns 0, or -1 when out
 * of memory. */
int trace_walk_counters(const struct trace_walk *w, int d,
                        void (*fn)(void *ctx, const struct trace_count *c), void *ctx);
/*
 * Without offload, trace_walk_counters' samples of the devices' ops taken op by op, for a
 * writer that starts anywhere (a thread's chunk of ops): a cursor is where it is, the device
 * of the op it took last (d, -1 for none: TRACE_CURSOR_INIT), the op after it (next), and that
 * device's sample after it (c; on: the device keeps activations, else it has no samples).
 */
struct trace_cursor {
	int d;
	size_t next;
	bool on;
	struct trace_count c;
};
#define TRACE_CURSOR_INIT {.d = -1}

/* Device d's first sample (0 at time 0) into *x; false when d keeps no activations (and has
 * no samples). */
bool trace_walk_count_first(const struct trace_walk *w, int d, struct trace_count *x);
/* Moves k to op i (ops in the order of the devices; its device in k->d) and returns the
 * sample after it, or NULL when its device has no samples. Without offload only. */
const struct trace_count *trace_walk_count_op(const struct trace_walk *w, struct trace_cursor *k,
                                              size_t i);
/* The devices whose first samples come just before op i, their first op (those without ops
 * before the device of i, k->d after trace_walk_count_op, and that device): from the value
 * returned to k->d, none when i is not k->d's first op. */
int trace_walk_first_at(const struct trace_walk *w, const struct trace_cursor *k, size_t i);

/* The most devices without ops in a row (how many first samples trace_walk_first_at may give
 * before a device's own, at most): 0 for every schedule a run takes, whose placements give
 * each device a stage and each stage its ops, but the writers do not rely on it. */
int trace_walk_most_empty(const struct trace_walk *w);

/* The device whose ops hold op i (i below the number of ops); trace_walk_device_at the same,
 * d itself when its ops hold i (a writer's device of the op before: no search), d -1 for
 * none. */
int trace_walk_device_of(const struct trace_walk *w, size_t i);
int trace_walk_device_at(const struct trace_walk *w, int d, size_t i);

/* How many threads a writer formats its events on: the run's --jobs, at most WBUF_MAX_JOBS. */
static inline int trace_walk_jobs(const struct trace_walk *w)
{
	int jobs = w->s->jobs;

	return jobs < 1 ? 1 : jobs > WBUF_MAX_JOBS ? WBUF_MAX_JOBS : jobs;
}

#endif
