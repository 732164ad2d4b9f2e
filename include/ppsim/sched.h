/*
 * Schedules: for each device, the ordered list of ops it runs, and the table of generators that
 * produce them. A generator knows nothing about costs; the engine knows nothing about which
 * generator produced a schedule.
 *
 * Adding a schedule:
 *   1. write src/sched/NAME.c with a generate function (and a check function when not every
 *      (p, v, m) is valid) that appends each device's ops with sched_push();
 *   2. add its row to the table in src/sched.c (name, summary, backward kind, placement,
 *      functions, closed-form bubble when one exists);
 *   3. add CUnit tests in tests/unit/test_sched.c, a golden CLI test, and a paragraph to
 *      docs/schedules.md and docs/ppsim.1 (a test checks the man page names every schedule);
 *      --help and `ppsim list` pick the name up from the table.
 *
 * Ownership: a struct sched owns its arrays; sched_new returns one that the caller frees with
 * sched_free. Descriptors in the table are static and never freed.
 */
#ifndef PPSIM_SCHED_H
#define PPSIM_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/util.h"

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

/* One op of a schedule: the kind, the micro-batch (0-based) and the virtual stage (0-based). */
struct op {
	uint32_t mb;    /* micro-batch, 0..m-1 */
	uint32_t stage; /* virtual stage, 0..S-1 */
	uint8_t kind;   /* enum op_kind */
};

struct sched_desc;

/*
 * A schedule. Device d runs ops[dev_start[d]] .. ops[dev_start[d+1]-1] in that order.
 * Invariant once generated: every (micro-batch, stage, kind) the backward mode requires appears
 * exactly once, on the device that hosts the stage (sched_check verifies it).
 */
struct sched {
	const struct sched_desc *desc; /* the generator, or NULL for a schedule read from a file */
	int p;                         /* devices (pipeline ranks) */
	int v;                         /* chunks per device */
	int m;                         /* micro-batches */
	int S;                         /* virtual stages, p * v */
	bool split;                    /* true: backward is B + W; false: fused BW */
	enum placement placement;      /* how chunks map to stages */
	uint32_t *stage_device;        /* [S] device hosting each stage */
	uint32_t *stage_chunk;         /* [S] chunk index of each stage on its device */
	struct op *ops;                /* [nops] all ops, grouped by device */
	size_t nops;                   /* total ops: S * m * (split ? 3 : 2) */
	size_t *dev_start;             /* [p + 1] first op of each device; dev_start[p] == nops */
	size_t *dev_fill; /* [p] ops appended so far per device (used while generating) */
};

/* A row of the generator table. */
struct sched_desc {
	const char *name;         /* the name users type: "1f1b" */
	const char *summary;      /* one line for --help and `ppsim list` */
	bool split;               /* splits backward into B and W */
	enum placement placement; /* chunk placement */
	int min_v, max_v;         /* accepted chunk counts (max_v 0: no upper bound) */
	/* Rejects (p, v, m) the schedule does not define; NULL when min_v/max_v say it all. */
	int (*check)(int p, int v, int m, struct pp_error *err);
	/* Appends each device's ops with sched_push, in execution order. */
	void (*generate)(struct sched *s);
	/*
	 * The closed-form bubble ratio for uniform per-stage costs t_f, t_b, t_w (fused backward
	 * costs t_b + t_w) and zero communication, or NAN where no closed form applies.
	 */
	double (*theory)(int p, int v, int m, double t_f, double t_b, double t_w);
	const char *theory_text; /* the closed form as text for reports, NULL when none */
};

/* The table of generators, in the order `ppsim list` shows them; *count receives its length. */
const struct sched_desc *sched_table(size_t *count);
/* The generator with that exact (case-sensitive) name, or NULL. */
const struct sched_desc *sched_find(const char *name);

/* Writes the generator names as "gpipe, 1f1b" into buf of size n; returns buf. */
char *sched_names(char *buf, size_t n);

/* Letter of an op kind for reports: "F", "B", "W" or "BW". */
const char *sched_kind_name(enum op_kind kind);

/*
 * Number of ops a schedule of this shape holds (S * m * 2, or * 3 with split backward) in *out;
 * returns false when it does not fit in 64 bits.
 */
bool sched_op_count(int p, int v, int m, bool split, uint64_t *out);

/*
 * Checks that desc accepts (p, v, m): chunk range and the generator's own check. Returns 0, or
 * -1 with a PP_ERR_USAGE error naming the schedule and the value.
 */
int sched_accepts(const struct sched_desc *desc, int p, int v, int m, struct pp_error *err);

/*
 * Generates the schedule of desc for (p, v, m), which must be accepted (sched_accepts) and
 * small enough to allocate. Never returns NULL (allocation failure aborts). Free with sched_free.
 */
struct sched *sched_new(const struct sched_desc *desc, int p, int v, int m);

/*
 * An empty schedule of this shape whose per-device op lists the caller fills with sched_push
 * (each device must receive exactly its share: v * m * (split ? 3 : 2) ops). Used by generators
 * through sched_new and by tests and schedule-file readers directly.
 */
struct sched *sched_alloc(int p, int v, int m, bool split, enum placement placement);

/* Appends op (kind, mb, stage) to device d's list. Asserts the device's share is not full. */
void sched_push(struct sched *s, int d, enum op_kind kind, int mb, int stage);

/* The virtual stage of chunk c on device d under the schedule's placement. */
int sched_stage_of(const struct sched *s, int d, int c);

/*
 * Verifies the invariant above: each device holds exactly its share, every required
 * (micro-batch, stage, kind) appears once, on the device hosting the stage, and no op of the
 * other backward mode appears. Returns 0, or -1 with a PP_ERR_CONFIG error naming the first bad
 * op and the reason.
 */
int sched_check(const struct sched *s, struct pp_error *err);

/* Frees s and everything it owns; NULL is a no-op. */
void sched_free(struct sched *s);

/* Writes "F(mb 3, stage 1)" for op into buf of size n; returns buf. */
char *sched_op_format(char *buf, size_t n, const struct op *op);

#endif
