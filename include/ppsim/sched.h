/*
 * Schedules: for each device, the ordered list of ops it runs, and the table of generators that
 * produce them. A generator knows nothing about costs; the engine knows nothing about which
 * generator produced a schedule.
 *
 * Adding a schedule: follow "Add a schedule" in docs/architecture.md (one file in src/sched/
 * with its row, one X(NAME) in table.c); docs/schedules.md, "Adding a schedule", explains each
 * field of a row.
 *
 * Ownership: a struct sched owns its arrays; sched_new returns one that the caller frees with
 * sched_free. Descriptors in the table are static and never freed.
 */
#ifndef PPSIM_SCHED_H
#define PPSIM_SCHED_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/util.h"

/* The largest p or m a schedule is made for (a count accepted from input). */
#define PP_MAX_COUNT 16777216

/* The kind of an op. BW is the fused backward of schedules that do not split B and W. */
enum op_kind {
	OP_F = 0, /* forward */
	OP_B = 1, /* backward for the input gradient (on the critical path) */
	OP_W = 2, /* backward for the weight gradient (may be delayed) */
	OP_BW = 3 /* fused backward: B then W in one op */
};

/* Where the chunks of a device sit among the virtual stages. */
enum placement {
	PLACE_LOOP, /* chunk c of device d is stage c*p + d (GPipe, 1F1B, interleaved) */
	PLACE_V     /* v = 2: chunk 0 is stage d, chunk 1 is stage 2p-1-d (ZB-V, DualPipeV) */
};

/* Flags of an op. */
enum op_flag {
	/* The op (an F) and the next op of its device (a B or BW) run overlapped as one slot, as
	 * DualPipe's F&B pairs: the slot starts when both ops' inputs are ready and lasts
	 * overlap_factor x (F + B); both ops end with it. */
	OP_OVERLAP = 1,
};

/* Bits of an op's stage: S is at most PP_MAX_DEVICES x PP_MAX_CHUNKS (config.h asserts it). */
#define SCHED_STAGE_BITS 26

/* One op of a schedule: the kind, the micro-batch (0-based) and the virtual stage (0-based), in
 * 8 bytes (memory per op is what a large run costs). */
struct op {
	uint32_t mb;                       /* micro-batch, 0..m-1 */
	unsigned stage : SCHED_STAGE_BITS; /* virtual stage, 0..S-1 */
	unsigned kind : 3;   /* enum op_kind */
	unsigned flags : 3;  /* enum op_flag bits */
};

struct sched_desc;

/*
 * What a priced generator (one that orders ops by their costs, such as zb-auto) knows: per
 * stage op times and per boundary message times in the engine's integer ticks, and activation
 * amounts in the cost's integer units. Every decision it takes compares these integers, so that
 * scaling every time by one factor changes no order (docs/concepts.md, "Time units and exact
 * time").
 */
struct sched_prices {
	const pp_time *t_f;    /* [S] forward time of stage s, in ticks */
	const pp_time *t_b;    /* [S] input-gradient backward time */
	const pp_time *t_w;    /* [S] weight-gradient backward time */
	const pp_time *t_comm; /* [S] message time across boundary s -> s+1 (S-1: unused) */
	const int64_t *act;    /* [S] activations F of stage s allocates */
	const int64_t *act_w;  /* [S] the part of them W frees (B frees the rest) */
	double mem_limit;      /* activations a device may hold, in micro-batches (> 0) */
	int jobs;              /* threads the generator may run its passes on (< 1: one); the
	                          order does not depend on it */
};

/* The shape a generator is asked for. */
struct sched_params {
	int p;     /* devices */
	int v;     /* chunks per device */
	int m;     /* micro-batches */
	int group; /* interleaved: micro-batches per chunk group (Megatron-LM's
	            * microbatch_group_size_per_vp_stage); 0 picks the default */
};

/*
 * A schedule. Device d runs ops[dev_start[d]] .. ops[dev_start[d+1]-1] in that order.
 * Invariant once generated: every (micro-batch, stage, kind) the backward mode requires appears
 * exactly once, on the device that hosts the stage (sched_check verifies it).
 *
 * Routes: the micro-batches fall into `routes` equal blocks and the stages into as many equal
 * runs of S / routes; block r visits run r only, stage after stage, and never the others' (the
 * (micro-batch, stage) pairs it does not visit have no ops). A run's first stage takes the
 * input and its last one computes the loss, so no dependency crosses from one run to the next.
 * With one route, every micro-batch visits all S stages. DualPipe has two: micro-batches
 * [0, m/2) flow down stages [0, p), the first copy of the model, from device 0 to device p-1;
 * [m/2, m) flow down stages [p, 2p), the second copy, which the V placement puts on devices
 * p-1 down to 0. routes divides m and v.
 */
struct sched {
	const struct sched_desc *desc; /* the generator, or NULL for a schedule read from a file */
	int p;                         /* devices (pipeline ranks) */
	int v;                         /* chunks per device */
	int m;                         /* micro-batches */
	int S;                         /* virtual stages, p * v */
	int group;                     /* interleaved group size used, 0 for other schedules */
	double mem_limit;              /* priced generators: the activation limit used, else 0 */
	bool split;                    /* true: backward is B + W; false: fused BW */
	bool mixed;               /* each (micro-batch, stage) has BW, or B and W (DualPipeV) */
	bool overlap;             /* some ops carry OP_OVERLAP */
	enum placement placement; /* how chunks map to stages */
	int routes;               /* micro-batch routes (above): 1, or 2 for DualPipe */
	uint32_t route_stages;    /* stages of a route: S / routes */
	uint32_t route_mbs;       /* micro-batches of a route: m / routes */
	uint32_t *stage_device;   /* [S] device hosting each stage */
	uint32_t *stage_chunk;    /* [S] chunk index of each stage on its device */
	uint32_t *dev_logical;    /* [p] the generated device whose list device d runs
	                           * (sched_reorder_devices), or NULL: device d's own */
	struct op *ops;           /* [nops] all ops, grouped by device */
	struct pp_arena *arena;   /* the arena ops may lie in (sched_new_in), or NULL */
	size_t nops;              /* total ops: S * m * (split ? 3 : 2) */
	size_t *dev_start;        /* [p + 1] first op of each device; dev_start[p] == nops */
	size_t *dev_fill;         /* [p] ops appended so far per device (used while generating) */
};

/* A row of the generator table. */
struct sched_desc {
	const char *name;         /* the name users type: "1f1b" */
	const char *torch;        /* PyTorch's name of the schedule ("Interleaved1F1B", which
	                           * ScheduleInterleaved1F1B and get_schedule_class take), or NULL */
	const char *summary;      /* one line for --help and `ppsim list` */
	bool split;               /* splits backward into B and W */
	enum placement placement; /* chunk placement */
	int min_v, max_v;         /* accepted chunk counts (max_v 0: no upper bound) */
	bool one_stage_one_chunk; /* with p = 1, takes (and needs) v = 1 whatever min_v says */
	int routes;               /* micro-batch routes (struct sched); 0 means 1 */
	bool groups;              /* takes --group-size (sched_params.group) */
	bool overlaps;            /* pairs an F and a B as one overlapped op: --overlap-factor */
	/* How the order is made: one of generate and generate_priced, and the two helpers. */
	struct sched_fns {
		/* Appends each device's ops with sched_push, in execution order; NULL when priced.
		 * Returns 0, or -1 when out of memory. */
		int (*generate)(struct sched *s);
		/* A priced generator: the same from the costs (sched_generate_priced); else NULL.
		 * Returns 0, or -1 with a PP_ERR_USAGE error when no order keeps within
		 * pr->mem_limit or a PP_ERR_NOMEM one. */
		int (*generate_priced)(struct sched *s, const struct sched_prices *pr,
		                       struct pp_error *err);
		/* Rejects shapes the schedule does not define: PP_ERR_USAGE, with *key set to the
		 * config key at fault ("m", "group_size"); NULL when min_v/max_v say it all. */
		int (*check)(const struct sched_params *sp, const char **key, struct pp_error *err);
		/* Ops device d holds when not v * m * (2 or 3), as for mixed schedules; else NULL.
		 */
		size_t (*ops_on)(int p, int m, int d);
		/* What building the order costs, in ops' worth, when more than the op count (an
		 * order laid out beyond m, a table of slots, greedy passes over the ops), or
		 * UINT64_MAX when that does not fit in 64 bits; NULL: the op count. The op limit
		 * (--max-ops) bounds it as it bounds the ops. */
		uint64_t (*work)(int p, int v, int m);
	} fn;
	/* Activation limit of a priced generator as a multiple of p (zb1p: 1), 0: from the
	 * config's mem_limit. */
	int limit_per_p;
	/*
	 * The closed-form bubble ratio for uniform per-stage costs t_f, t_b, t_w in ticks, whole
	 * numbers (fused backward costs t_b + t_w; an overlapped F&B pair overlap x (F + B) rounded
	 * to a tick, as the engine runs it) and zero communication, the double nearest its exact
	 * value, or NAN where no closed form applies; with the formula as text for reports. Both
	 * NULL when none.
	 */
	struct sched_theory {
		double (*fn)(const struct sched_params *sp, double t_f, double t_b, double t_w,
		             double overlap);
		const char *text;
	} theory;
	/*
	 * The documented bound on device d's peak activations, in micro-batch equivalents, when
	 * W keeps all of a chunk's activations until it runs (the worst case of any W share); with
	 * the bound as text for messages and docs.
	 */
	struct sched_peak {
		double (*fn)(const struct sched_params *sp, int d);
		const char *text;
	} peak;
};

/* The table of generators, in the order `ppsim list` shows them; *count receives its length. */
const struct sched_desc *sched_table(size_t *count);
/*
 * The generator with that name, or NULL: its own name or its PyTorch name, with or without
 * PyTorch's class prefix "Schedule" ("interleaved", "Interleaved1F1B",
 * "ScheduleInterleaved1F1B"), in any case.
 */
const struct sched_desc *sched_find(const char *name);

/* Writes the generator names as "gpipe, 1f1b" into buf of size n; returns buf. */
char *sched_names(char *buf, size_t n);

/* True when desc's order follows --mem-limit: a priced generator with no fixed limit. */
bool sched_takes_mem_limit(const struct sched_desc *desc);
/* True when desc's order has overlapped F&B pairs, which --overlap-factor prices. */
bool sched_takes_overlap_factor(const struct sched_desc *desc);
/* Writes the names of the generators for which takes is true as "zb-auto and zbv-auto" into buf
 * of size n; returns buf. */
char *sched_names_that(bool (*takes)(const struct sched_desc *), char *buf, size_t n);

/* Letter of an op kind for reports: "F", "B", "W" or "BW". */
const char *sched_kind_name(enum op_kind kind);

/*
 * Number of ops a schedule of this shape holds (S * m * 2, or * 3 with split backward) in *out;
 * returns false when it does not fit in 64 bits. With routes, each stage sees m / routes
 * micro-batches: pass that as m.
 */
bool sched_op_count(int p, int v, int m, bool split, uint64_t *out);

/*
 * Number of messages between devices a schedule of this shape, placement and routes sends, in
 * *out: per micro-batch a forward and a gradient across each stage boundary of its route whose
 * stages sit on two devices (m * (p-1) each way for 1F1B, m * (p*v-1) interleaved; the V
 * placement's hop from stage p-1 to p stays on its device, and with two routes is no hop at
 * all: DualPipe sends m * (p-1) each way), whatever the order or the kind of backward. Returns
 * false when it does not fit in 64 bits.
 */
bool sched_message_count(int p, int v, int m, enum placement placement, int routes, uint64_t *out);

/* The routes of desc's schedules (struct sched): its row's, 1 when the row leaves them out. */
int sched_desc_routes(const struct sched_desc *desc);
/* The fewest chunks desc's schedules take with p devices: its row's min_v, 1 at p = 1 for a row
 * that runs one chunk there (one_stage_one_chunk). */
int sched_desc_min_v(const struct sched_desc *desc, int p);
/* The chunk count desc's schedules take nearest to v with p devices: v clamped to
 * sched_desc_min_v .. max_v (a comparison runs each schedule with it: 1F1B with one chunk,
 * interleaved with v). */
int sched_desc_fit_v(const struct sched_desc *desc, int p, int v);

/*
 * The work of generating and simulating desc's schedule of this shape, in ops' worth: the op
 * count, or desc's own figure when larger (struct sched_fns.work), in *out; returns false when
 * it does not fit in 64 bits.
 */
bool sched_work(const struct sched_desc *desc, int p, int v, int m, uint64_t *out);

/*
 * Checks that desc accepts the shape: chunk range and the generator's own check. Returns 0, or
 * -1 with a PP_ERR_USAGE error saying why and *key (when key is not NULL) set to the config key
 * of the value at fault: "v", "m" or "group_size".
 */
int sched_accepts(const struct sched_desc *desc, const struct sched_params *sp, const char **key,
                  struct pp_error *err);

/*
 * Generates the schedule of desc for the shape sp, which must be accepted (sched_accepts).
 * Returns NULL when out of memory (the caller reports it with pp_nomem, as for pp_malloc).
 * Free with sched_free. For a priced generator it returns the empty schedule (placement set,
 * no ops) that sched_generate_priced then fills once the costs are known.
 */
struct sched *sched_new(const struct sched_desc *desc, const struct sched_params *sp);
/* sched_new with the ops in arena when it has room for them (the arena outlives the schedule);
 * NULL: as sched_new. */
struct sched *sched_new_in(const struct sched_desc *desc, const struct sched_params *sp,
                           struct pp_arena *arena);
/* The layout of desc's schedules of shape sp without their ops, for what depends on the layout
 * alone (the cost model's memory): p, v, m, S, placement, routes and stage_device as sched_new
 * gives them, and no op. NULL when out of memory. Free with sched_free. */
struct sched *sched_new_layout(const struct sched_desc *desc, const struct sched_params *sp);
/* The bytes of arena the ops of nops take. */
size_t sched_arena_bytes(size_t nops);
/* The ops sched_new gives desc's schedule of shape sp into *out (for mixed schedules the sum of
 * ops_on); false when it does not fit in 64 bits. */
bool sched_new_ops(const struct sched_desc *desc, const struct sched_params *sp, uint64_t *out);

/*
 * Fills s, made by sched_new for a priced generator, from the prices pr. Returns 0, or -1 with
 * a PP_ERR_USAGE error (s then holds no complete order) when no order keeps within the limit,
 * or with a PP_ERR_NOMEM one.
 */
int sched_generate_priced(struct sched *s, const struct sched_prices *pr, struct pp_error *err);

/* The shape of s as generator parameters. */
struct sched_params sched_params_of(const struct sched *s);

/*
 * An empty schedule of this shape, with one route, whose per-device op lists the caller fills
 * with sched_push (each device must receive exactly its share: v * m * (split ? 3 : 2) ops).
 * Used by generators through sched_new and by tests and schedule-file readers directly. NULL
 * when out of memory.
 */
struct sched *sched_alloc(int p, int v, int m, bool split, enum placement placement);
/*
 * sched_alloc with counts[d] op slots for device d instead of the exact share, for readers of
 * schedule files whose devices may hold too few or too many ops (sched_check then says which).
 */
struct sched *sched_alloc_counts(int p, int v, int m, bool split, enum placement placement,
                                 const size_t *counts);

/*
 * Renumbers the devices of s, a complete schedule: the list the generator made for device i
 * runs on device order[i] (order, a permutation of 0..p-1, such as --device-order). Each
 * list is unchanged; stage_device, dev_start and the ops' grouping follow, and sched_stage_of
 * answers for the new numbers. Returns 0, or -1 when out of memory (s then unchanged).
 */
int sched_reorder_devices(struct sched *s, const int *order);

/* Sets the routes of s (struct sched), a count that divides its m and v; before its ops are
 * pushed when its devices hold their exact share. */
void sched_set_routes(struct sched *s, int routes);

/* The (micro-batch, stage) pairs s's micro-batches visit: S * m / routes. */
static inline size_t sched_cells(const struct sched *s)
{
	return (size_t)s->route_stages * (size_t)s->m;
}

/* Appends op (kind, mb, stage) to device d's list. Asserts the device's share is not full. */
static inline void sched_push(struct sched *s, int d, enum op_kind kind, int mb, int stage)
{
	size_t i;

	assert(d >= 0 && d < s->p);
	assert(s->dev_fill[d] < s->dev_start[d + 1] - s->dev_start[d]);
	i = s->dev_start[d] + s->dev_fill[d]++;
	s->ops[i].mb = (uint32_t)mb;
	s->ops[i].stage = (uint32_t)stage;
	s->ops[i].kind = (uint8_t)kind;
	s->ops[i].flags = 0;
}

/* Appends an overlapped pair: F(f_mb, f_stage) flagged OP_OVERLAP, then the backward b_kind
 * (B or BW) of (b_mb, b_stage); sets s->overlap. */
static inline void sched_push_pair(struct sched *s, int d, int f_mb, int f_stage,
                                   enum op_kind b_kind, int b_mb, int b_stage)
{
	size_t i = s->dev_start[d] + s->dev_fill[d];

	sched_push(s, d, OP_F, f_mb, f_stage);
	sched_push(s, d, b_kind, b_mb, b_stage);
	s->ops[i].flags = OP_OVERLAP;
	s->overlap = true;
}

/* The virtual stage of chunk c on device d under the schedule's placement, after any device
 * order (inline: generators ask it once an op). */
static inline int sched_stage_of(const struct sched *s, int d, int c)
{
	assert(d >= 0 && d < s->p && c >= 0 && c < s->v);
	if (s->dev_logical != NULL)
		d = (int)s->dev_logical[d];
	if (s->placement == PLACE_V)
		return c % 2 == 0 ? c * s->p + d : (c + 1) * s->p - 1 - d;
	return c * s->p + d;
}

/* Whether stage st is the first of its route (its forward takes the input). */
static inline bool sched_route_first(const struct sched *s, uint32_t st)
{
	return s->routes == 1 ? st == 0 : st % s->route_stages == 0;
}

/* Whether stage st is the last of its route (its forward computes the loss). */
static inline bool sched_route_last(const struct sched *s, uint32_t st)
{
	return s->routes == 1 ? st + 1 == (uint32_t)s->S
	                      : st % s->route_stages == s->route_stages - 1;
}

/* Whether micro-batch mb visits stage st: both in range and on the same route. */
static inline bool sched_visits(const struct sched *s, uint32_t mb, uint32_t st)
{
	return mb < (uint32_t)s->m && st < (uint32_t)s->S &&
	       (s->routes == 1 || st / s->route_stages == mb / s->route_mbs);
}

/*
 * The inputs op waits for under the dependencies of docs/concepts.md, written to in[] (at most
 * 2): F needs F of the previous stage, but on the first stage of its route; B or BW needs its
 * own F and, but on the last stage of its route, the B or BW of the next stage; W needs its B.
 * Returns how many.
 */
static inline int sched_op_inputs(const struct sched *s, const struct op *op, struct op in[2])
{
	int n = 0;

	switch ((enum op_kind)op->kind) {
	case OP_F:
		if (!sched_route_first(s, op->stage))
			in[n++] = (struct op){op->mb, op->stage - 1, OP_F, 0};
		break;
	case OP_B:
	case OP_BW:
		in[n++] = (struct op){op->mb, op->stage, OP_F, 0};
		if (!sched_route_last(s, op->stage))
			in[n++] = (struct op){op->mb, op->stage + 1, op->kind, 0};
		break;
	case OP_W:
		in[n++] = (struct op){op->mb, op->stage, OP_B, 0};
		break;
	}
	return n;
}

/* The ops that wait for op's output (at most 2), written to out[]; the inverse of the above. */
static inline int sched_op_consumers(const struct sched *s, const struct op *op, struct op out[2])
{
	int n = 0;

	switch ((enum op_kind)op->kind) {
	case OP_F:
		out[n++] = (struct op){op->mb, op->stage, (uint8_t)(s->split ? OP_B : OP_BW), 0};
		if (!sched_route_last(s, op->stage))
			out[n++] = (struct op){op->mb, op->stage + 1, OP_F, 0};
		break;
	case OP_B:
		out[n++] = (struct op){op->mb, op->stage, OP_W, 0};
		if (!sched_route_first(s, op->stage))
			out[n++] = (struct op){op->mb, op->stage - 1, OP_B, 0};
		break;
	case OP_BW:
		if (!sched_route_first(s, op->stage))
			out[n++] = (struct op){op->mb, op->stage - 1, OP_BW, 0};
		break;
	case OP_W:
		break;
	}
	return n;
}

/*
 * How op changes its device's alive activations (docs/concepts.md, Memory): F allocates act of
 * its stage, B frees all but the act_w share that W frees, a fused BW frees all; act and act_w
 * NULL count 1 for each (W keeps all). A device's peak is the highest running sum of its ops in
 * order (sched_peak; the engine's sweep keeps it as it runs them).
 */
static inline int64_t sched_act_change(const struct op *op, const int64_t *act,
                                       const int64_t *act_w)
{
	int64_t a = act != NULL ? act[op->stage] : 1, aw = act_w != NULL ? act_w[op->stage] : 1;

	switch ((enum op_kind)op->kind) {
	case OP_F:
		return a;
	case OP_B:
		return -(a - aw);
	case OP_W:
		return -aw;
	case OP_BW:
		return -a;
	}
	return 0;
}

/*
 * Where the ops of a schedule come from, for messages: name(ctx, i, buf, n) writes the place of
 * op i (an index into ops[]), such as " at line 5", into buf of n bytes.
 */
struct sched_where {
	void (*name)(const void *ctx, size_t i, char *buf, size_t n); /* writes op i's place */
	const void *ctx;                                              /* passed to name */
};

/*
 * Builds the one-line report of a wait that cannot end into err (kind kind), starting with
 * what: for each device whose list is unfinished (head[d] < dev_start[d+1]), the op at its
 * head (followed by its place when where is not NULL) and the first of its inputs that
 * is_done(ctx, input) says has not run, as many devices as fit, then how many more. Stores in
 * *stuck (when not NULL) the index of the first device's waiting op. Returns -1.
 */
int sched_report_wait(const struct sched *s, const size_t *head, const char *what,
                      bool (*is_done)(const void *ctx, const struct op *op), const void *ctx,
                      const struct sched_where *where, size_t *stuck, enum pp_errkind kind,
                      struct pp_error *err);

/*
 * Verifies the invariant above: each device holds exactly its share, every required
 * (micro-batch, stage, kind) appears once, on the device hosting the stage, and no op of the
 * other backward mode appears. Returns 0, or -1 with a PP_ERR_CONFIG error naming the first bad
 * op and the reason.
 */
int sched_check(const struct sched *s, struct pp_error *err);
/* sched_check that also stores in *bad_op the index of the op it rejects, or SIZE_MAX when the
 * fault is a missing op, and in *bad_device the device of that op or of the missing one
 * (either pointer may be NULL). */
int sched_check_where(const struct sched *s, size_t *bad_op, int *bad_device, struct pp_error *err);

/*
 * Verifies that s (which passed sched_check) can run: executing each device's list in order,
 * every op's inputs are produced before it. Returns 0, or -1 with a PP_ERR_CONFIG error naming
 * each device stuck in the cyclic wait, its op and the input it waits for.
 */
int sched_check_order(const struct sched *s, struct pp_error *err);
/* sched_check_order that names each waiting op's place through where (may be NULL) and stores
 * in *stuck (when not NULL) the index of the first stuck device's waiting op. */
int sched_check_order_where(const struct sched *s, const struct sched_where *where, size_t *stuck,
                            struct pp_error *err);

/*
 * Peak of alive activations per device, written to peak[p]: F(mb, s) adds act[s]; BW frees it;
 * B frees act[s] - act_w[s] and W frees act_w[s]. Ops of a device run one at a time in list
 * order, so the peak is reached at the start of some F.
 */
void sched_peak(const struct sched *s, const int64_t *act, const int64_t *act_w, int64_t *peak);

/*
 * Peak activations of device d in micro-batch equivalents (a chunk counts routes/v: a
 * micro-batch passes v/routes of a device's chunks, DualPipe's one) when W keeps all of a
 * chunk's activations until it runs, as the generators' bounds assume.
 */
void sched_peak_units(const struct sched *s, double *peak);

/*
 * The whole checker: sched_check, sched_check_order and, for a generated schedule, its
 * documented peak-activation bound on every device. Returns 0, or -1 with a PP_ERR_CONFIG error.
 */
int sched_validate(const struct sched *s, struct pp_error *err);

/* A copy of s that owns its own arrays (its ops outside any arena), or NULL when out of memory.
 */
struct sched *sched_copy(const struct sched *s);

/* Frees s and everything it owns; NULL is a no-op. */
void sched_free(struct sched *s);

/* Writes "F(mb 3, stage 1)" for op into buf of size n; returns buf. */
char *sched_op_format(char *buf, size_t n, const struct op *op);

#endif
