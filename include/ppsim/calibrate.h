/*
 * Calibration: measured op times read from a file and turned into the explicit costs that
 * reproduce them (`ppsim calibrate`, docs/calibrate.md).
 *
 * Two formats. A CSV whose header names the columns stage (or device, one stage a device; with
 * both, stage names the stage), op and ms, in any order (other columns are ignored): one measured
 * time per line, op F, B, W, BW (a fused backward) or comm (one point-to-point message), ms the
 * milliseconds of one micro-batch's op on that pipeline stage; a stage and op measured several
 * times take the mean. Lines starting with '#' and blank lines are skipped. Or a Megatron-LM log:
 * its timer blocks ("(min, max) time across ranks (ms):" or "max time across ranks (ms):", then
 * lines "    forward-compute ....: (MIN, MAX)" or ": MAX"), whose forward-compute and
 * backward-compute are one iteration's totals on the slowest rank; over m micro-batches they give
 * F and a fused backward per micro-batch, the mean over the blocks after the first (which holds
 * the warm-up) when there are several.
 *
 * Partial data is refused, never averaged: a time that is not one an op may take in a config
 * (above 0, at most 1e9 ms, at least one tick once rounded), a timer block with one of the two
 * timers, a timer twice in a block, a stage skipped, a stage's backward measured both split (B
 * or W) and fused (BW), a message of a stage beyond the ones whose ops are measured, a line
 * whose numbers are read at the end of a file without a final newline (it may have been cut).
 * And the fit is one ppsim runs: each stage's op times, scaled, of at least one tick, and at
 * most PP_MAX_LIST stage factors.
 *
 * Ownership: calib_read fills a struct calibration whose arrays calib_release frees; it keeps
 * the caller's path.
 */
#ifndef PPSIM_CALIBRATE_H
#define PPSIM_CALIBRATE_H

#include <stdbool.h>
#include <stdio.h>

#include "ppsim/util.h"

enum calib_format {
	CALIB_CSV,      /* stage, op, ms */
	CALIB_MEGATRON, /* Megatron-LM timer blocks */
};

/* One measured op time of a CSV line, as it was read. */
struct calib_sample {
	int stage;
	char op[3]; /* "F", "B", "W" or "BW" */
	double ms;
};

/* Measured times, ms per micro-batch; NAN where not measured. */
struct calibration {
	enum calib_format format;
	int p;                  /* stages measured (0..p-1); 1 for a Megatron log */
	double *f, *b, *w, *bw; /* [p] forward, input gradient, weight gradient, fused backward */
	double comm;            /* one point-to-point message */
	const char *path;       /* the file read, for messages */
	size_t *line;           /* [p] the line of each stage's first time (NULL: not known) */
	struct calib_sample *samples; /* [nsamples] a CSV's op times line by line (not messages);
	                                 NULL for a Megatron log */
	size_t nsamples;
	int v; /* the chunks of a device the stages are (calib_chunks; 0: each stage a device) */
	bool by_device; /* a CSV's stages are its device column's (no stage column) */
};

/* The explicit costs that reproduce a calibration. */
struct calib_fit {
	int p;                /* stages fitted */
	bool p_known;         /* the stages were measured apart (a CSV), so p belongs in a config */
	double t_f, t_b, t_w; /* ms of each op on a stage of scale 1 */
	double t_comm;        /* ms of a message; NAN when not measured */
	double *scale;        /* [p] each stage's factor (all 1 when the stages agree) */
	bool uniform;         /* every scale is 1 */
	double w_share;       /* share of a fused backward taken as W, where only BW was measured */
	double max_error;     /* largest relative gap between a fitted and a measured op time */
	int worst_stage;      /* the stage where it is */
	int v;                /* the calibration's chunks a device (0: none) */
};

/*
 * Reads the measured times in path. m, the micro-batches of one iteration, is needed for a
 * Megatron log (0 otherwise). Returns 0, or -1 with err: PP_ERR_IO when the file does not
 * read, PP_ERR_CONFIG "calibration 'PATH':LINE:COLUMN: ..." naming the line at fault (an
 * unknown op, a stage or time that is not one, a missing column, a block missing a timer, a
 * stage without a forward time, a backward both split and fused, a last line without its
 * newline, ...); PP_ERR_USAGE for a Megatron log without m; PP_ERR_NOMEM.
 */
int calib_read(const char *path, int m, struct calibration *k, struct pp_error *err);

/* Frees k's arrays. */
void calib_release(struct calibration *k);

/*
 * Takes the stages of k, a CSV's, as the virtual stages of a run of v chunks a device
 * (interleaved 1F1B's, the V schedules'): k->p / v devices, each time v times the chunk's, as a
 * config's t_f, t_b and t_w are a device's whole share of layers, which its v chunks divide.
 * Returns 0, or -1 with err (PP_ERR_USAGE): a Megatron log (its timers are a device's whole), a
 * CSV whose stages are its device column's, or stages that are not v to a device.
 */
int calib_chunks(struct calibration *k, int v, struct pp_error *err);

/*
 * Fits explicit costs to k: t_f, t_b and t_w the means over the stages, each stage's scale its
 * F + B + W over theirs, t_comm the measured message. A stage whose backward was measured
 * fused splits it as B = (1 - w_share) BW and W = w_share BW; w_share below 0 means none was
 * given, which fails when a backward is fused only. Returns 0, or -1 with err, naming the
 * line of the stage at fault: PP_ERR_USAGE for a backward fused without w_share or one whose
 * share makes no time an op may take, PP_ERR_CONFIG for a fit a config cannot hold (an op of
 * some stage, scaled, below one tick; more than PP_MAX_LIST stages of different speeds),
 * PP_ERR_NOMEM; fit->scale is then freed.
 */
int calib_fit(const struct calibration *k, double w_share, struct calib_fit *fit,
              struct pp_error *err);

/* Frees fit's scale. */
void calib_fit_release(struct calib_fit *fit);

/*
 * Writes k's measured op times as the samples file of --jitter=empirical:FILE (CSV "kind,stage,
 * value": a fused backward's as B, the rule a fused backward draws from) to out, so that noise
 * samples draw each op's time from its stage's measurements. Returns 0, or -1 when out fails.
 */
int calib_write_samples(FILE *out, const struct calibration *k);

/*
 * Writes the fit as a ppsim config file (JSON: p when known, with v its stages over v when the
 * fit's stages are chunks (calib_chunks), and then the schedule interleaved, m when above 0, t_f, t_b, t_w, t_comm when measured,
 * stage_scale when the stages differ, one a virtual stage) to out. Returns 0, or -1 when out
 * fails.
 */
int calib_write_config(FILE *out, const struct calib_fit *fit, int m);

#endif
