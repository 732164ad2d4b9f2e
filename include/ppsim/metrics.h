/*
 * Metrics: the figures docs/concepts.md names (bubble under three definitions, utilization, peak
 * activations, P2P traffic), derived from an engine result. Names of fields match JSON keys.
 *
 * Ownership: metrics_init allocates the per-device and per-channel arrays inside the struct;
 * metrics_release frees them.
 */
#ifndef PPSIM_METRICS_H
#define PPSIM_METRICS_H

#include <stdint.h>

#include "ppsim/cost.h"
#include "ppsim/critical.h"
#include "ppsim/engine.h"
#include "ppsim/sched.h"

/* Per-device figures; times in units. */
struct device_metrics {
	double busy;             /* sum of compute op durations */
	double idle;             /* makespan - busy (includes comm_wait) */
	double utilization;      /* busy / makespan */
	double peak_activations; /* peak alive activations in micro-batch equivalents */
	double comm_wait;        /* time blocking sends held the stream */
	double span;             /* last end - first start */
	/* with a model (zero otherwise): */
	double activation_bytes; /* activations alive at the peak */
	double state_bytes;      /* weights + gradients + optimizer state */
	double memory_bytes;     /* activation_bytes + state_bytes */
	double host_bytes;       /* activations offloaded to host memory at their peak */
	bool oom;                /* memory_bytes above the GPU's memory less the reserve */
	double capacity_bytes;   /* memory of one of its GPUs */
	double reserve_bytes;    /* of it, kept free (--memory-reserve) */
	double dp_allreduce;     /* its data-parallel communication in all (the stream's time) */
	double end;              /* when its ops and its streams were done */
	double exposed[COMM_KINDS]; /* by kind (comm_kind_info): time compute waited for it or
	                               that it ran past the last op */
	double comm[COMM_KINDS];    /* by kind: the time its pieces held their streams */
	double optimizer;        /* its optimizer step */
};

/*
 * A step's time taken apart on the device that finishes last (with a model): compute + bubble
 * + exposed_p2p + exposed[kind] for every kind + optimizer + other = step_time.
 */
struct step_breakdown {
	int device;                 /* the device whose end sets the step */
	double compute;             /* its compute */
	double bubble;              /* its idle time waiting for other devices' ops or messages */
	double exposed_p2p;         /* the time its blocking sends held its stream */
	double exposed[COMM_KINDS]; /* its exposed communication by kind */
	double hidden[COMM_KINDS];  /* its communication by kind that ran beside compute: its
	                               streams' time less the exposed part */
	double optimizer;           /* the optimizer step (the slowest device's) */
	double other;               /* the step's time outside the schedule (--step-overhead) */
};

/*
 * The critical path (struct critical_path) in units: the time of its ops by device and by
 * kind, its transfers and its tail add up to its length, the step's end (the step time but its
 * optimizer step and overhead).
 */
struct critical_metrics {
	bool has;                    /* computed: the run kept its op times */
	int device;                  /* the device whose end is the step's */
	double length;               /* the step's end */
	double *devices;             /* [p] the time of each device's ops on the path */
	double kind[CRITICAL_KINDS]; /* of its ops by kind: F, B, W, BW, overlapped pairs */
	double transfer;             /* its messages, their waits for a channel included */
	double tail;                 /* what the device's streams ran past its last op */
	uint64_t ops;                /* ops on the path (a pair once) */
	uint64_t messages;           /* messages on the path */
};

/* Per-channel figures; times in units. */
struct channel_metrics {
	int src;            /* sending device */
	int dst;            /* receiving device */
	uint64_t messages;  /* messages carried */
	uint64_t bytes;     /* bytes carried */
	double time;        /* sum of transfer durations */
	double utilization; /* time / makespan */
};

/* The figures of one simulation; times in units. */
struct metrics {
	int p;                          /* devices */
	int nchannels;                  /* entries in channels */
	double makespan;                /* end of the last op */
	double bubble_ratio;            /* 1 - sum(busy) / (p * makespan) */
	double bubble_ratio_theory;     /* the schedule's closed form, NAN where none applies */
	double bubble_overhead;         /* (makespan - max busy) / max busy */
	double bubble_rate_span;        /* (max span - max busy) / max span */
	double utilization;             /* sum(busy) / (p * makespan) */
	uint64_t messages;              /* P2P messages */
	uint64_t bytes;                 /* P2P bytes */
	double p2p_time;                /* sum of transfer durations */
	struct device_metrics *devices; /* [p] */
	/* with a model (has_model; zero otherwise): */
	bool has_model;                   /* the costs come from a model */
	double step_time;                 /* the latest device end, its streams included, plus the
	                                     optimizer step and the step's overhead */
	struct step_breakdown breakdown;  /* step_time taken apart */
	double tokens_per_s;              /* tokens of one step over all replicas / step_time */
	double samples_per_s;             /* sequences of one step / step_time */
	double mfu;                       /* model FLOPs / (step_time * the GPUs' peak FLOP/s) */
	double memory_capacity_bytes;     /* memory of one GPU (with mixed GPUs, of the one with
	                                     the least room: capacity less reserve) */
	double memory_reserve_bytes;      /* of it, kept free (--memory-reserve) */
	bool oom;                         /* some device is over its memory */
	struct channel_metrics *channels; /* [nchannels] */
	struct critical_metrics critical; /* the critical path, when the run kept its op times */
};

/* The bubble ratio of result r: the share of p x makespan its devices were not busy (0 for an
 * empty run); metrics_init's bubble_ratio. */
double metrics_bubble_of(const struct result *r);

/*
 * Computes the metrics of result r, produced by simulating s priced by c, into m. The closed
 * form applies when c is uniform across stages and free of communication time. Returns 0, or
 * -1 with a PP_ERR_NOMEM error; either way metrics_release may be called on m (it has nothing
 * to free after a failure).
 */
int metrics_init(struct metrics *m, const struct sched *s, const struct cost *c,
                 const struct result *r, struct pp_error *err);

/*
 * Sets m's critical path from cp, a path of the run m was computed from, priced by c. Returns 0,
 * or -1 with a PP_ERR_NOMEM error (m's critical path then unset).
 */
int metrics_set_critical(struct metrics *m, const struct critical_path *cp, const struct cost *c,
                         struct pp_error *err);

/*
 * The error for a run over its GPU memory: returns 0 when every device fits (or there is no
 * model), else -1 with a PP_ERR_DEVICE_MEM error naming the fullest device, what it needs and what
 * the GPU has.
 */
int metrics_memory_error(const struct metrics *m, struct pp_error *err);

/*
 * The same error before a run, from what the run's memory is known to be: returns 0 when each
 * of the p devices of costs c fits its GPU with its weights, gradients and optimizer state and
 * act_peak[d] bytes of activations (act_peak NULL: the state alone), or there is no model;
 * else -1 with a PP_ERR_DEVICE_MEM error naming the device furthest over and what it needs
 * (for its state alone, said so, with act_peak NULL). With act_peak the run's own peaks (the
 * engine's peak_act), it is metrics_memory_error's verdict and message; a run refused with
 * act_peak NULL would be refused by metrics_memory_error whatever its activations.
 */
int metrics_fit_error(const struct cost *c, int p, const int64_t *act_peak, struct pp_error *err);

/* Frees the arrays of m; the struct itself belongs to the caller. */
void metrics_release(struct metrics *m);

#endif
