/*
 * Partitions: the assignment of a model's layers to the virtual stages of a route, with each
 * stage's recomputation, that gives the shortest simulated step of a run that fits its GPUs'
 * memory (`ppsim partition`, `ppsim advise`). Every candidate is simulated with the run's
 * schedule, costs and streams: exactly every split when there are few enough, else a descent
 * from two starts over moves of one layer from a stage to another, of a stage to another
 * recomputation and, with --offload, of a stage offloading that share or not (docs/search.md,
 * Partitions).
 *
 * Ownership: struct partition owns its choices' arrays; release it with partition_release.
 */
#ifndef PPSIM_PARTITION_H
#define PPSIM_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

#include "ppsim/config.h"
#include "ppsim/util.h"

/* Most candidates an exact search simulates: a larger space is searched by descent. */
#define PARTITION_EXACT_MAX UINT64_C(20000)

/* One candidate: its layers and recomputation per virtual stage of a route, and its run. */
struct partition_choice {
	int *layers;            /* [S] layers of each virtual stage */
	signed char *recompute; /* [S] enum pp_recompute of each */
	signed char *offload;   /* [S] 1: the stage offloads share of its activations */
	double share;           /* the share an offloading stage offloads */
	double step;            /* the step time (ms) */
	double overflow;        /* bytes the devices hold beyond their memory, summed; 0: fits */
	double peak;            /* the fullest device's bytes */
	int peak_device;        /* that device */
	int critical_device;    /* the device whose end is the step's */
	double device_busy_max; /* the busiest device's compute time (ms) */
	bool set;               /* a candidate is here */
};

/* What a search found and how. */
struct partition {
	int S;                       /* virtual stages of a route */
	int p, v, m;                 /* the run's devices, chunks and micro-batches */
	const char *schedule;        /* its generator's name (static) */
	int *stage_device;           /* [S] the device of each virtual stage of a route */
	int layers;                  /* the model's layers */
	int mtp;                     /* its multi-token-prediction layers (on the last stage) */
	bool recompute_free;         /* each stage's recomputation was searched (no --recompute) */
	bool offload_free;           /* each stage's offload was searched (--offload given) */
	double share;                /* the share an offloading stage offloads (--offload) */
	bool exact;                  /* every candidate of the space was simulated */
	uint64_t space;              /* candidates in the space (UINT64_MAX: more) */
	uint64_t simulated;          /* candidates simulated */
	struct partition_choice best;      /* the shortest step that fits, unless none fits */
	struct partition_choice runner_up; /* the next best that fits and differs in its layers
	                                      (or, failing that, in its recomputation) */
	struct partition_choice start;     /* the even split the search started from */
	double quantum;                    /* steps are compared in multiples of it
	                                      (partition_step_cmp) */
};

/*
 * Searches the partitions of base's model over its schedule's virtual stages with jobs threads
 * (< 1: one), exactly when the space has at most exact_max candidates (0: PARTITION_EXACT_MAX),
 * else by descent. base's own --layers-per-stage, --first-stage-layers, --last-stage-layers and
 * --stage-recompute are what the search replaces; a --recompute it sets explicitly is kept on
 * every stage. Returns 0 (p->best.set is false when no candidate fits), or -1 with err
 * (PP_ERR_USAGE when base does not simulate, PP_ERR_NOMEM), with nothing of p to release.
 */
int partition_search(const struct config *base, int jobs, uint64_t exact_max,
                     struct partition *p, struct pp_error *err);

/* Sets c's layers and recomputation per stage to those of x (a choice of a partition of S),
 * and its offload per stage when x has one (NULL: c's own). */
void partition_apply(struct config *c, int S, const struct partition_choice *x);

/*
 * Compares two steps of one search as partition_search does: in whole multiples of quantum
 * (PARTITION_TIE of the even split's step; 0: exactly), so that what tick rounding leaves
 * between splits of equal work is no difference. Returns < 0, 0 or > 0 as a is shorter, equal
 * or longer.
 */
#define PARTITION_TIE 1e-8
int partition_step_cmp(double a, double b, double quantum);

/* The sum of x's stages' layers squared (x a choice of a partition of S): of splits of the
 * same layers, the smaller, the more evenly spread. */
long long partition_squares(const struct partition_choice *x, int S);

/* Frees p's choices. */
void partition_release(struct partition *p);

#endif
