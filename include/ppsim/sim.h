/*
 * Simulation driver: runs one configuration through the whole flow (config -> schedule
 * generator and cost model -> engine -> metrics) and keeps every stage's output together for
 * the reporters.
 *
 * Ownership: sim_run returns a struct sim that owns its schedule, cost, engine and metrics;
 * free it with sim_free.
 */
#ifndef PPSIM_SIM_H
#define PPSIM_SIM_H

#include "ppsim/config.h"
#include "ppsim/cost.h"
#include "ppsim/engine.h"
#include "ppsim/metrics.h"
#include "ppsim/sched.h"

/*
 * How the drawings (timeline, SVG) frame a simulation: where their time axis starts and the
 * figures their title prints, which are the ones the report prints.
 */
struct sim_frame {
	pp_time origin;      /* start of the figures in ticks: 0 or a serving run's first arrival */
	double makespan;     /* from origin to the end, in time units */
	double bubble_ratio; /* the report's bubble ratio */
};

/*
 * What the drawings of a run read (the timeline, the traces, the SVG, the op dump): its op
 * order, their times and how to name them. A training step's is sim_drawing's; a serving run's,
 * serve_drawing's (serve.h), which is no training step. It borrows from the run it describes.
 */
struct drawing {
	const struct sched *sched;     /* the op order: devices, stages, ops */
	const struct result *result;   /* the ops' times (and messages, when recorded) */
	const pp_time *slack;          /* [sched->nops] each op's slack in ticks, or NULL */
	const struct samples *samples; /* noise samples (samples.h), or NULL */
	int64_t tick;                  /* ticks a time unit */
	const char *time_unit;         /* the unit the drawings name */
	const int64_t *act, *act_w;    /* [S] activations each stage's F keeps and what W still
	                                  needs (struct cost's), or NULL: none kept (a serving
	                                  run's), no memory counters */
	enum pp_duplex duplex;         /* its channels' */
	const char *schedule;          /* the order's name (a generator's, a batching policy's) */
	const char *schedule_file;     /* the file the order came from, or "" */
	enum pp_trace_names trace_names; /* what the --trace file calls its slices */
	int svg_width;                 /* the --svg drawing's width, or PP_SVG_AUTO_WIDTH */
	int jobs;                      /* threads a large trace may be written on (config's jobs),
	                                  < 2: the caller's alone */
	struct sim_frame frame;        /* its time axis's origin and its title's figures */
};

/* Everything one simulation produced. */
struct sim {
	struct config config;        /* the settings it ran with */
	struct sched *sched;         /* the op order */
	struct cost *cost;           /* the prices */
	struct engine *engine;       /* owns the result */
	const struct result *result; /* per-op times, per-device and per-channel totals */
	struct metrics metrics;      /* derived figures (the critical path's when it kept its op
	                                times) */
	pp_time *slack;              /* [sched->nops] each op's slack in ticks (engine_slack) with
	                                SIM_SLACK, else NULL */
	struct sim_frame frame;      /* sim_run: origin 0 and the metrics' figures */
	struct pp_arena arena;       /* the schedule's and the engine's large arrays */
	struct samples *samples;     /* noise samples (sim_sample, samples.h), or NULL */
	pp_time *perturbed;          /* sim_run_perturbed: the op and message durations the
	                                engine was given, [2 nops]; else NULL */
	bool given_times;            /* sim_run_perturbed was given each op's time */
	uint32_t *placed;            /* [S] --device-order: each stage's physical device while
	                                the run is built, else NULL */
	const struct config *given;  /* while the run is built: the settings as given, before
	                                config_settle, which a schedule file's shape settles
	                                again (what follows from p, v and m); else NULL */
};

/* What a run's memory and its outputs' sizes grow with, known before it is simulated. */
struct sim_size {
	uint64_t ops;  /* ops */
	uint64_t msgs; /* messages between devices (sched_message_count) */
	int p, v, m;   /* devices, chunks and micro-batches */
	int routes;    /* micro-batch routes (struct sched): each stage runs m / routes */
	bool timed;    /* every op takes time (cost_every_op_takes_time) */
};

/* sim_run_flags bit: keep a record of every message (for traces and SVG transfer lanes). */
#define SIM_RECORD_MESSAGES 1u
/* sim_run_flags bit: the caller reads no per-op times (result->times is NULL), only totals and
 * metrics: a run then takes 16 bytes less memory per op (engine_drop_times), and has no
 * critical path (metrics.critical). */
#define SIM_NO_OP_TIMES 2u
/* sim_run_flags bit: each op's slack (struct sim's slack; the run's order recorded for it, 12
 * bytes more per op and the slack pass's table); keeps the op times whatever the other bits
 * say. */
#define SIM_SLACK 4u

/* sim_run_flags bit: refuse, once the run is built (after every other refusal before the engine
 * runs) and before it runs, a run whose weights, gradients and optimizer state and its order's
 * activation peak (which does not depend on the times) are over a device's GPU, with the
 * PP_ERR_DEVICE_MEM error metrics_memory_error would give after the run. Only a generated
 * order is checked, and not a run that offloads activations (their peak on the GPU depends on
 * the copies' times): metrics_memory_error tells after those. A sweep's --fits. */
#define SIM_FITS 8u

/* sim_run with flags (SIM_RECORD_MESSAGES, SIM_NO_OP_TIMES, SIM_SLACK, SIM_FITS). */
struct sim *sim_run_flags(const struct config *c, unsigned flags, struct pp_error *err);

/*
 * A check of a run once its schedule is built or read and before it is simulated (whether the
 * outputs asked for can hold it, say): fn gets the run's size and returns 0, or -1 with err set,
 * which stops the run with that error.
 */
struct sim_check {
	int (*fn)(void *ctx, const struct sim_size *z, struct pp_error *err);
	void *ctx;
};

/* sim_run_flags that calls check, when not NULL, between building the schedule and simulating
 * it. */
struct sim *sim_run_checked(const struct config *c, unsigned flags, const struct sim_check *check,
                            struct pp_error *err);

/*
 * The size of c's run from its settings alone, in *z: returns 1, or 0 when they do not say it
 * (a schedule file, whose size sim_run_checked's check gets once it is read; a serving config;
 * settings sim_run refuses, and names), or -1 with a PP_ERR_NOMEM error.
 */
int sim_size_of_config(const struct config *c, struct sim_size *z, struct pp_error *err);

/*
 * The most memory a run of size z with c's channels and the flags of sim_run_flags holds at
 * once in its per-op arrays: its ops, their times unless dropped, and the engine's
 * (engine_peak_bytes); UINT64_MAX when that does not fit in 64 bits.
 */
uint64_t sim_peak_bytes(const struct config *c, const struct sim_size *z, unsigned flags);

/*
 * Validates c, generates the schedule, prices it and simulates it. Returns the simulation, or
 * NULL with err set: PP_ERR_USAGE for invalid settings, PP_ERR_SIM for a deadlock, PP_ERR_NOMEM
 * when memory runs out.
 */
struct sim *sim_run(const struct config *c, struct pp_error *err);

/*
 * What sim_run_perturbed changes of a run (a measured step replayed, a what-if): the order its
 * ops run in and each op's and message's duration, in time units, rounded to the run's ticks.
 * The arrays are borrowed for the call.
 */
struct sim_perturb {
	const struct sched *order; /* the op order to run (copied: its p, v and m are the run's),
	                              or NULL: the config's schedule */
	const char *source;        /* where the order came from, as reports name a schedule file
	                              (the run's schedule_file); NULL: "order" */
	const double *op;          /* [order's nops] each op's duration (an overlapped pair's span
	                              in its first op's entry), or NULL: the cost's */
	const double *msg;         /* [order's nops] the duration of the message op i sends (a
	                              message the cost prices at 0 stays free), or NULL */
	const char *time_unit;     /* the unit the reports name, or NULL: the cost's; a string
	                              that outlives the run */
};

/*
 * sim_run_flags with pt: the config's settings with pt's order (then c must not set p, v or m
 * otherwise, nor a generator's options), durations and time unit. Returns the simulation, or
 * NULL with err set as sim_run sets it; a duration that is no time an op may take (negative,
 * above PP_TIME_MAX_UNITS) is a PP_ERR_USAGE error naming the op.
 */
struct sim *sim_run_perturbed(const struct config *c, const struct sim_perturb *pt,
                              unsigned flags, struct pp_error *err);

/*
 * Checks that c would simulate, as sim_run takes it: settles and validates it, generates its
 * schedule and prices it (stage scales, the total of all its times), then stops before the
 * engine runs, freeing what it built. Returns 0, or -1 with the error sim_run would give.
 */
int sim_would_run(const struct config *c, struct pp_error *err);

/*
 * Checks, before anything is generated or simulated, that the weights, gradients and
 * optimizer state of c's run fit each device's GPU (metrics_fit_error over the costs of its
 * schedule's layout): 0 when they do or c has no model (or a schedule file), else -1 with the
 * PP_ERR_DEVICE_MEM error, or the error settling c gives. A run it refuses would run and then be
 * over its GPU memory whatever its activations; one it passes may still be.
 */
int sim_state_fits(const struct config *c, struct pp_error *err);

/*
 * sim_state_fits, then, for an order generated without prices (not zb-auto, zbv-auto, zb1p or
 * zb2p, whose orders are priced), that order's SIM_FITS check: the run built, not simulated.
 * 0 when the run fits or that cannot be told before it runs, else -1 with sim_state_fits's
 * error, or the one sim_run_flags(c, SIM_FITS) gives.
 */
int sim_fits(const struct config *c, struct pp_error *err);

/*
 * Orders the ops of s, made by sched_new for a priced generator (zb-auto, zb1p, zb2p,
 * zbv-auto), from the costs k: op and message times in ticks, activation amounts and the
 * activation limit (the generator's multiple of p, else c's mem_limit, else p). Returns 0, or
 * -1 with a PP_ERR_USAGE error naming --mem-limit when no order keeps within the limit. sim_run
 * does this itself; it is public for callers that time the generation apart (the benchmark).
 */
int sim_price_schedule(struct sched *s, const struct cost *k, const struct config *c,
                       struct pp_error *err);

/* Frees s and everything it owns; NULL is a no-op. */
void sim_free(struct sim *s);

/* What s's drawings read of it (borrowed from s: valid while s is). */
struct drawing sim_drawing(const struct sim *s);

/* The name d's outputs give its order: the file it came from, else its generator's or batching
 * policy's. */
static inline const char *drawing_name(const struct drawing *d)
{
	return d->schedule_file[0] ? d->schedule_file : d->schedule;
}

/* How op changes its device's activations in drawing d (sched_act_change; 0 when d keeps
 * none). */
static inline int64_t drawing_act_change(const struct drawing *d, const struct op *op)
{
	return d->act != NULL ? sched_act_change(op, d->act, d->act_w) : 0;
}

#endif
