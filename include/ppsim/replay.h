/*
 * A measured step replayed (`ppsim replay`, pp_replay_whatif in ppsim.h): the step read
 * (measured.h), simulated again with its own order and op times, and what it would have taken
 * otherwise, a what-if: without its slowest device (that device's ops at the other devices'
 * times, the order kept), or with another schedule or shape (schedule, m, v, a generator's
 * options) on explicit costs fitted to the step's op times, or the one then the other. The
 * program and the library both run a replay through these calls.
 *
 * The settings of a replay come as two configs: the replay's own (the run's settings but the
 * what-if's: messages at its t_comm when it sets one, else as measured) and the what-if's (the
 * same settings with the schedule, m, v and generator options that make a what-if of another
 * schedule or shape; replay_whatif_option names them).
 *
 * Ownership: replay_new returns a struct replay that owns the step read (with a copy of its
 * first path), the what-if's settings and both runs; replay_free frees them.
 */
#ifndef PPSIM_REPLAY_H
#define PPSIM_REPLAY_H

#include <stdbool.h>

#include "ppsim/config.h"
#include "ppsim/measured.h"
#include "ppsim/sim.h"

/* What a replay asks besides its two configs. */
struct replay_ask {
	bool without_slowest; /* the what-if without the slowest device */
	double w_share;       /* the share of a fused backward taken as W when a what-if of another
	                         schedule or shape fits costs to the step; below 0: none given */
};

/* A measured step, its replay and its what-if. */
struct replay {
	struct measured step;           /* the step as read (its path x->path) */
	char *path;                     /* the (first) file it was read from, a copy */
	int files;                      /* the files it was read from */
	const struct sched_desc *order; /* the built-in schedule whose order it ran, or NULL */
	struct config replay_config;    /* the replay's settings (t_comm: the measured mean unless
	                                   set) */
	struct config whatif_config;    /* a shape what-if's settings, completed: the step's p; its
	                                   schedule, m and v where not given; the fitted costs */
	bool shape;                     /* a what-if of another schedule or shape is asked */
	double *op;                     /* without the slowest device: the step's op times without
	                                   its slowness [step.sched->nops]; else NULL */
	int slowest;                    /* without the slowest device: that device, else -1 */
	double factor[MEASURED_KINDS];  /* with slowest: the factor of each kind of its ops (F, B,
	                                   W, BW, overlapped pairs), NAN for a kind it runs not */
	bool as_others[MEASURED_KINDS]; /* of them, a kind no other device runs, which took the
	                                   factor of the device's other kinds */
	char change[256];               /* what the what-if changes, for people ("without device
	                                   2, the slowest: ..."); "" without a what-if */
	double measured;                /* the step as measured, rounded to the replay's ticks;
	                                   NAN when the file gives no start times (replay_run) */
	struct sim *replay;             /* the replay (replay_run) */
	struct sim *whatif;             /* the what-if (replay_run), or NULL when none is asked */
};

/* Whether option o makes a what-if of another schedule or shape: "schedule", "m", "v" and the
 * options that tune a schedule generator ("group_size", "mem_limit"). The replay itself runs
 * without them. */
bool replay_whatif_option(const struct config_option *o);

/*
 * Reads the measured step in paths[0..n-1] (measured_read, within run's max_ops) and prepares
 * its replay on the settings run and the what-if ask and whatif ask for: finds the built-in
 * schedule whose order it ran, prices its messages, scales its slowest device's ops, completes
 * and fits a shape what-if's settings (whatif: run's settings with the what-if's shape keys
 * set; a shape what-if is asked when it sets one). Returns the replay, ready for replay_run, or
 * NULL with err set: measured_read's errors; PP_ERR_USAGE for a w_share without a shape
 * what-if, a step on one device without its slowest, an order no built-in schedule's without
 * a schedule given; the fit's errors (a backward measured fused without a w_share, for a
 * schedule that splits it); PP_ERR_NOMEM.
 */
struct replay *replay_new(const char *const *paths, int n, const struct config *run,
                          const struct config *whatif, const struct replay_ask *ask,
                          struct pp_error *err);

/* The size of the replay's runs (struct sim_size), for checks of the outputs before they run;
 * a shape what-if's from its settings (sim_size_of_config of x->whatif_config). */
struct sim_size replay_size(const struct replay *x);

/*
 * Simulates the replay and the what-if, when one is asked; flags (sim_run_flags) are for the
 * last of them, the one the reports and outputs read (the replay then keeps no op times).
 * Returns 0, or -1 with err set as sim_run_perturbed sets it.
 */
int replay_run(struct replay *x, unsigned flags, struct pp_error *err);

/* The last run: the what-if, else the replay (NULL before replay_run). */
const struct sim *replay_last(const struct replay *x);

/* Frees x and everything it owns; NULL is a no-op. */
void replay_free(struct replay *x);

#endif
