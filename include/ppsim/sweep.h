/*
 * Sweeps: a grid of configurations, one axis per option that takes a list of values, each
 * point simulated and summed up in a record, or skipped with the reason its settings are
 * invalid. Points are numbered in a fixed order (the first axis varies slowest), so a sweep can
 * be evaluated in parallel or in shards and still be written out in one deterministic order.
 *
 * Ownership: struct sweep owns its axes' values; release it with sweep_release. Records are
 * plain data.
 */
#ifndef PPSIM_SWEEP_H
#define PPSIM_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "ppsim/config.h"
#include "ppsim/shard.h"
#include "ppsim/util.h"

/* Most options that may vary in a sweep (take several values), most options it may be given
 * in all (one value each for the others), and most values one axis may take. */
#define SWEEP_MAX_AXES    16
#define SWEEP_MAX_OPTIONS 256
#define SWEEP_MAX_VALUES 100000
/* Most points a sweep may have (its indices fit in 32 bits). */
#define SWEEP_MAX_POINTS UINT64_C(4294967295)
/* Most points one run (a shard) simulates, and its budget of work: its points' ops, each
 * device counting SWEEP_DEVICE_OPS ops, at most SWEEP_WORK_FACTOR times --max-ops. */
#define SWEEP_MAX_RUN_POINTS UINT64_C(1000000)
/*
 * The default of struct sweep's parallel_work: about 40 ms on one core. Measured on 2 cores: a
 * sweep of 186,000 units is 14% slower on two jobs, one of 927,000 8% faster, one of 31 million
 * 1.7 to 1.8 times as fast.
 */
#define SWEEP_PARALLEL_WORK UINT64_C(1000000)
#define SWEEP_WORK_FACTOR   UINT64_C(4)
#define SWEEP_DEVICE_OPS    UINT64_C(16)
/* With --fits, how far over its budget a run's counted work may be for its points' orders to
 * be generated to check their activations before the budget is applied (sweep.c's
 * check_work). */
#define SWEEP_ORDER_CHECK_FACTOR UINT64_C(2)

/* One axis: an option and the values it takes, in order. */
struct sweep_axis {
	const struct config_option *opt; /* the option-table row */
	char label[48];                  /* "-m" or "--microbatches", for messages */
	char **values;                   /* each as config_format_value writes it */
	int nvalues;
	int slot; /* its index in a record's value[] when it varies (nvalues > 1), else -1 */
};

/* A grid of configurations around a base config. */
struct sweep {
	struct config base;                     /* what every point starts from */
	struct sweep_axis axes[SWEEP_MAX_OPTIONS]; /* in the order given */
	int naxes;
	bool require_fit; /* a point over its GPU memory is skipped, not ranked */
	bool advise;      /* advise's search: a refusal of too much work names the options it
	                   * searches */
	bool shardable;   /* the caller splits points into shards (ppsim sweep --shard=K/N): the
	                     work limit's refusal offers it */
	/* the least work (ops, and SWEEP_DEVICE_OPS a device) a run takes on several threads:
	 * below it, threads cost more than they give (sweep_init: SWEEP_PARALLEL_WORK) */
	uint64_t parallel_work;
	/* what ranks points: the step (tokens/s or utilization as simulated), or a statistic of
	 * the noise samples' step each point runs with the base's --samples (sweep_init: step) */
	enum pp_rank_by rank_by;
};

/* What one point produced. Times are in time_unit; figures a run has not are 0. */
struct sweep_record {
	uint64_t index;             /* the point's number, from 0 */
	bool ok;                    /* simulated; else skipped for reason */
	char reason[1024];          /* why a point was skipped */
	enum pp_errkind error;      /* the kind of that error; PP_ERR_NONE when ok */
	int value[SWEEP_MAX_AXES];  /* index of each varying axis's value, by its slot */
	char schedule[32];          /* the generator, or "file" */
	int p, v, m;                /* the shape, with v and m as settled */
	int tp, dp, mbs, gpus;      /* with a model: the layout */
	int cp, ep;                 /* with a model: context- and expert-parallel degrees */
	double ep_comm, ep_exposed; /* with a model: the step's critical device's all-to-all time
	                               and the part of it exposed */
	int ep_node;                /* with a model: the fewest GPUs of an expert-parallel group
	                               in one node (ep when the group is inside a node) */
	bool has_model;             /* priced from a model */
	char time_unit[8];          /* "t" or "ms" */
	double makespan;            /* end of the last op */
	double bubble_ratio;        /* simulated */
	double bubble_ratio_theory; /* the closed form, NAN where none applies */
	double utilization;         /* sum of busy / (p * makespan) */
	double peak_activations;    /* highest over the devices, in micro-batches */
	uint64_t messages;          /* P2P messages */
	uint64_t bytes;             /* P2P bytes */
	double p2p_time;            /* sum of transfer durations */
	double throughput;          /* tokens/s with a model, else micro-batches per time unit */
	double step_time;           /* with a model: makespan with the gradient all-reduce */
	double tokens_per_s;        /* with a model */
	double mfu;                 /* with a model */
	double memory_bytes;        /* with a model: the fullest device's memory */
	double memory_capacity;     /* with a model: one GPU's memory in bytes */
	double memory_reserve;      /* with a model: of it, kept free (--memory-reserve) */
	bool fits;                  /* every device within its GPU's memory (true without model) */
	/* with --samples: the samples' step (as the report's: step_time with a model, else the
	 * makespan), NAN without samples */
	double step_mean, step_p50, step_p90, step_p99;
	double rank_scale;          /* the step over the --rank-by statistic of it (1 by step):
	                               the ranking's figure is multiplied by it */
};

/* Counts over the points a run evaluated. */
struct sweep_totals {
	uint64_t points;         /* evaluated */
	uint64_t simulated;      /* ok */
	uint64_t skipped;        /* not ok */
	uint64_t over_memory;    /* skipped for memory, or simulated but over it */
	uint64_t first_skipped;  /* the index of the first skipped point */
	char first_reason[1024]; /* and why it was skipped ("" when none was) */
};

/* Starts a sweep of base (NULL: the defaults) with no axes: one point, base itself. */
void sweep_init(struct sweep *sw, const struct config *base);

/* Frees the axes' values. */
void sweep_release(struct sweep *sw);

/*
 * Sets the axis of option opt to the values of spec, replacing any earlier axis of the same
 * option: a comma-separated list whose items are single values or, for integer options, ranges
 * A:B (step 1), A:B:S or A:B:+S (step S) and A:B:xF (times F); for the schedule, "all" is
 * every generator. Each value is checked as a single option value would be. label names the
 * option in messages. Returns 0, or -1 with a PP_ERR_USAGE error.
 */
int sweep_set_axis(struct sweep *sw, const struct config_option *opt, const char *label,
                   const char *spec, struct pp_error *err);

/* The index of axis a's value at record r (0 for an axis of one value). */
static inline int sweep_value(const struct sweep *sw, const struct sweep_record *r, int a)
{
	return sw->axes[a].slot < 0 ? 0 : r->value[sw->axes[a].slot];
}

/* Whether the points run noise samples: the base's --samples, or an axis of it. */
bool sweep_has_samples(const struct sweep *sw);

/* Number of points: the product of the axes' sizes (1 without axes). */
uint64_t sweep_points(const struct sweep *sw);

/* The config of point i: the base with each axis's value set. Returns 0, or -1 with err. */
int sweep_point_config(const struct sweep *sw, uint64_t i, struct config *c, struct pp_error *err);

/*
 * Simulates point i into r: ok with its figures, or skipped with the reason (its settings are
 * invalid, its order deadlocks, or with require_fit it is over its GPU memory).
 */
void sweep_evaluate(const struct sweep *sw, uint64_t i, struct sweep_record *r);

/* Called with each record in index order; returns 0 to go on, non-zero to stop the sweep. */
typedef int (*sweep_emit)(void *ctx, const struct sweep_record *r);

/*
 * Evaluates points first..last-1 with jobs threads (1: in the calling thread; a run whose work
 * is too small to gain from threads also runs there) and passes each record to emit in index
 * order, whatever the number of threads. Returns 0, the first non-zero
 * value emit returned (the remaining points are then not reported), or -1 with a PP_ERR_NOMEM
 * error in err when a point ran out of memory: that point is not a bad one to skip, and a
 * ranking without it would be wrong, so the sweep stops before emitting it.
 */
int sweep_run(const struct sweep *sw, uint64_t first, uint64_t last, int jobs, sweep_emit emit,
              void *ctx, struct pp_error *err);

/*
 * The points of shard k of n (1 <= k <= n) of a sweep of npoints: the contiguous run
 * [*first, *last), so that the shards in order cover every point once.
 */
void sweep_shard(uint64_t npoints, uint64_t k, uint64_t n, uint64_t *first, uint64_t *last);

/*
 * Orders records best first: simulated before skipped, fitting before over memory, then by
 * tokens/s with a model or utilization without one (explicit costs fix the time per device,
 * not per model, so only the idle share compares across p), higher first, each at the
 * --rank-by statistic of the step (times rank_scale); then the smaller
 * peak memory (activations without a model), and the index. Returns < 0 when a ranks above b,
 * > 0 when below, 0 only for the same index.
 */
int sweep_rank_compare(const struct sweep_record *a, const struct sweep_record *b);
/* What sweep_rank_compare reads of a record, for a caller that keeps its records smaller: the
 * same order by sweep_rank_key_compare. */
struct sweep_rank_key {
	bool ok, fits;
	double score;  /* the ranking's figure at the --rank-by statistic */
	double memory; /* the peak memory, or activations without a model */
	uint64_t index;
};
struct sweep_rank_key sweep_rank_key(const struct sweep_record *r);
int sweep_rank_key_compare(const struct sweep_rank_key *a, const struct sweep_rank_key *b);

/*
 * Keeps r among the best max records top[0..*n-1], best first (sweep_rank_compare): inserts a
 * copy where it ranks and drops the last when there are max already.
 */
void sweep_keep_best(struct sweep_record *top, int *n, int max, const struct sweep_record *r);

/* The best records and the counts of the records gone by (sweep_run_ranked keeps them). */
struct sweep_ranking {
	struct sweep_record *top;   /* the best n of at most max, best first */
	int max, n;
	struct sweep_totals totals; /* the records counted */
	sweep_emit emit;            /* each record goes on to emit(ctx, r), unless NULL */
	void *ctx;
};

/* Starts k with no record, keeping the best max in top[0..max-1]. */
void sweep_ranking_init(struct sweep_ranking *k, struct sweep_record *top, int max, sweep_emit emit,
                        void *ctx);

/*
 * The sweep_emit of a ranking k (a struct sweep_ranking): counts r, keeps it when it is among
 * the best, then passes it to k's emit. Records must come in index order (the totals name the
 * first skipped point). Returns what emit returned, or 0.
 */
int sweep_ranking_add(void *k, const struct sweep_record *r);

/*
 * sweep_run that also keeps the best max records in top[0..*ntop-1] (best first) and counts
 * the points in *totals; each record then goes to emit unless it is NULL. Returns as
 * sweep_run.
 */
int sweep_run_ranked(const struct sweep *sw, uint64_t first, uint64_t last, int jobs,
                     struct sweep_record *top, int max, int *ntop, struct sweep_totals *totals,
                     sweep_emit emit, void *ctx, struct pp_error *err);

/* The records of a sweep in shard files (shard.h): every field of struct sweep_record. */
extern const struct shard_codec sweep_shard_codec;

#endif
