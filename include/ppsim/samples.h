/*
 * Noise samples of a step: the run's ops and messages take times drawn around their costs
 * (--jitter, --link-jitter, --stalls), its stragglers stay, and each sample is simulated again.
 * A draw is a pure function of (seed, sample, op), so sample j is the same whatever thread,
 * shard or order runs it, and every figure is the same for any --jobs. With no variance every
 * sample is the deterministic run.
 *
 * Ownership: struct samples owns its arrays (samples_release); a struct noise borrows its sim.
 */
#ifndef PPSIM_SAMPLES_H
#define PPSIM_SAMPLES_H

#include <stdint.h>

#include "ppsim/engine.h"
#include "ppsim/sim.h"

/* What one sample came to. */
struct sample {
	double step;           /* its step as the run's report gives it (sample_step), in time
	                          units */
	double bubble;         /* its bubble ratio */
	int critical_device;   /* the device whose ops take the most of its critical path (the
	                          lowest of a tie) */
	double critical_share; /* their time over the path's length */
};

/* A sample with its number, as a shard file keeps it (samples_shard_codec, shard.h). */
struct sample_record {
	uint64_t index;
	struct sample s;
};

/* Samples first..first+n-1 of a run, and their totals. */
/* The figures of a set of values: mean, nearest-rank percentiles, least and most. */
struct sample_stats {
	double mean, p50, p90, p99, min, max;
};

struct samples {
	uint64_t first, n;
	uint64_t seed;
	struct sample *s; /* [n] by sample */
	int p;
	/* the figures of the steps and of the bubble ratios, worked out once the samples are
	 * all in (samples_settle), so that a report that reads them allocates nothing */
	bool settled;
	struct sample_stats step_stats, bubble_stats;
};

/*
 * The stragglers of c as the engine takes them (struct engine_slow), priced in k's ticks, into
 * out[PP_MAX_STRAGGLERS]; returns how many.
 */
size_t noise_stragglers(const struct config *c, const struct cost *k, struct engine_slow *out);

/*
 * Runs samples [first, last) of sim s (a run of a training config) on jobs threads into out,
 * drawing with s->config's seed. Returns 0, or -1 with err set: PP_ERR_IO or PP_ERR_CONFIG for an
 * empirical file that cannot be read, has a row of a stage the run does not have, or has no
 * sample for some op the schedule runs (a fused backward's are B's), PP_ERR_USAGE for drawn
 * times too large, PP_ERR_NOMEM.
 */
int samples_run(const struct sim *s, uint64_t first, uint64_t last, int jobs,
                struct samples *out, struct pp_error *err);
void samples_release(struct samples *x);

/*
 * Runs samples [first, last) of s on jobs threads (samples_run) and keeps them in s->samples,
 * which sim_free frees. Returns 0, or -1 with samples_run's error.
 */
int sim_sample(struct sim *s, uint64_t first, uint64_t last, int jobs, struct pp_error *err);

/* The figures of the samples' steps (step true) or bubble ratios: mean (exactly the samples'
 * value when they all have one), nearest-rank percentiles. Returns 0, or -1 when out of
 * memory (never once x is settled). */
int samples_stats(const struct samples *x, bool step, struct sample_stats *out);

/* Works out x's figures once its samples are all in (samples_run does; a merge of shards
 * calls it). Returns 0, or -1 with err out of memory. */
int samples_settle(struct samples *x, struct pp_error *err);

/* The step of a run's metrics: the step time with a model (its communication and optimizer
 * step), else the makespan. */
double sample_step(const struct metrics *m);

/*
 * How often each of the p devices of x was its samples' critical device (struct sample) into
 * count[p]. Returns 0.
 */
int samples_critical_counts(const struct samples *x, uint64_t *count);

/* The figure by which compare, sweep and advise rank s: its step, or its samples' statistic
 * (NaN without samples). */
double sim_rank_figure(const struct sim *s, enum pp_rank_by by);

#endif
