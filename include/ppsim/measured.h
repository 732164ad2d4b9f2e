/*
 * Measured steps: one training step as it ran, read from a profiler trace or a CSV of op times,
 * for `ppsim replay` to simulate again as it ran and as it would have run otherwise
 * (docs/pytorch.md, "Replaying a measured step").
 *
 * A trace is Chrome trace event JSON (plain or gzip), as PyTorch's profiler and `ppsim run
 * --trace` write it: complete events ("ph":"X") whose name is a PyTorch pipelining action after
 * "PP:" (PP:2F3, PP:1I0, PP:(0F7;7B3)OVERLAP_F_B, as _PipelineScheduleRuntime records them and
 * --trace-names=torch writes them), or ppsim's own slices (category forward or backward,
 * arguments kind, stage and microbatch). Other events are not read. In one file, each process
 * (pid) that runs ops is a device, numbered in the order of the pids; given several files, file
 * k is device k whatever its pids (PyTorch's profiler writes one file per rank). A device's ops
 * run in the order their ranges start; each op lasts its range. When some ranges are GPU
 * annotations (category gpu_user_annotation, the kernels' span of each range), only those are
 * read. A transfer, PP:2SEND_F3 or PP:2SEND_B3 (or ppsim's slice with p2p, stage and
 * microbatch), gives the time of the message its op sends; RECV and FSDP actions are not
 * read. Times are microseconds, 1000 to a time unit: a millisecond, or for a ppsim trace the
 * unit its otherData names.
 *
 * A CSV is calibrate's (calibrate.h) with one line per op: columns op (F, B, W, BW, or comm for
 * a message), microbatch, stage or device or both (either alone stands for both: one chunk per
 * device), and ms, the op's milliseconds, or start and end (as --dump-ops writes them); other
 * columns are not read. A device's ops run in the order of their start when the file has one,
 * else in the file's order. A comm line's time is one message's.
 *
 * The op order is built and checked by the schedule-file reader (schedfile_build), so a step
 * is refused as a schedule file would be: an op twice, an op missing, an order that deadlocks.
 *
 * Ownership: measured_read fills a struct measured that measured_release frees; it keeps the
 * caller's paths.
 */
#ifndef PPSIM_MEASURED_H
#define PPSIM_MEASURED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/calibrate.h"
#include "ppsim/config.h"
#include "ppsim/sched.h"

enum measured_format {
	MEASURED_TRACE, /* Chrome trace event JSON */
	MEASURED_CSV,   /* calibrate's CSV, one line per op */
};

/* A measured step. Times are in time units (ms, or a ppsim trace's unit). */
struct measured {
	enum measured_format format;
	const char *path;      /* the (first) file read, for messages */
	struct sched *sched;   /* the ops each device ran, in the order it ran them */
	double *op;            /* [sched->nops] each op's measured time; an overlapped pair's span
	                          in its first op's entry, 0 in its second's */
	double *msg;           /* [sched->nops] the time of the message op i sends: measured, else
	                          the mean of those measured; 0 for an op that sends none. NULL
	                          when no message was measured */
	size_t nmsgs;          /* messages measured */
	double msg_mean;       /* their mean time, NAN when none */
	double step;           /* first op's start to last op's end; NAN when the file gives no
	                          start times (a CSV without them) */
	const char *time_unit; /* "ms", or a ppsim trace's "t" */
};

/* Files a measured step may be read from at most (a trace per device). */
#define MEASURED_MAX_FILES 4096
/* The largest file read, after gzip: 2 GiB. */
#define MEASURED_FILE_MAX ((size_t)1 << 31)

/*
 * Reads the measured step in paths[0..n-1]: one trace or CSV, or one trace per device. Returns
 * 0, or -1 with err set: PP_ERR_IO when a file cannot be read (or its gzip is broken);
 * PP_ERR_CONFIG, the message starting "trace 'PATH':LINE:COLUMN: " (a CSV: "measured ..."),
 * for a file that is not JSON, a range with an unknown name, a negative time, two ranges of one
 * device that overlap, a stage or micro-batch outside a ppsim trace's p, v and m, and every
 * fault schedfile_build finds in the order (an op twice, an op missing: an incomplete step; an
 * order that deadlocks is PP_ERR_SIM); PP_ERR_USAGE for several files that are not all traces;
 * PP_ERR_NOMEM.
 */
int measured_read(const char *const *paths, int n, uint64_t max_ops, struct measured *m,
                  struct pp_error *err);

/* Frees what measured_read stored in m. */
void measured_release(struct measured *m);

/* The kinds of ops measured_without_slowest scales apart: F, B, W, BW, and overlapped pairs. */
#define MEASURED_KINDS 5

/* The slowest device of a step and how its ops were scaled. */
struct measured_slowest {
	int device;                    /* the device with the most busy time (the lowest on a tie) */
	double factor[MEASURED_KINDS]; /* by kind: the factor its ops took, NAN for a kind it does
	                                  not run */
	bool as_others[MEASURED_KINDS]; /* a kind no other device runs: it took the factor of the
	                                   device's kinds that compare, time-weighted */
};

/*
 * The step without its slowest device: its op times into op[sched->nops], each op of the
 * device with the most busy time scaled by the median, over the other devices, of their mean
 * time for ops of its kind (F, B, W, BW, an overlapped pair) over its own mean for that kind
 * (the other devices' times for that kind of op, its order kept); the others' as measured.
 * The factors into *w (NAN for a kind it does not run). Returns 0, or -1 with a PP_ERR_USAGE
 * error for a step on one device.
 */
int measured_without_slowest(const struct measured *m, double *op, struct measured_slowest *w,
                             struct pp_error *err);

/*
 * The built-in schedule whose order m's step ran: the first row of the generator table (not a
 * priced one) whose order for m's p, v and m is m's op for op; NULL for none. *err is set only
 * when memory runs out (then NULL too).
 */
const struct sched_desc *measured_schedule(const struct measured *m, struct pp_error *err);

/*
 * Gives c the explicit costs whose ops take the times op[] of m's step (m->op, or a what-if's),
 * fitted as `ppsim calibrate` fits measured times (calib_fit, calib_write_config): each stage's
 * mean time per kind when c keeps m's p and v (the stage factors per virtual stage), else each
 * device's (per device); t_f, t_b, t_w and stage_scale, and t_comm, the mean message measured,
 * when c does not set it. Ops of overlapped pairs are not counted. w_share splits a backward
 * measured fused, as calibrate's --w-share (below 0: none given). Returns 0, or -1 with err
 * (calib_fit's errors; PP_ERR_CONFIG for a stage without a forward time).
 */
int measured_fit_config(const struct measured *m, const double *op, double w_share,
                        struct config *c, struct pp_error *err);

#endif
