/*
 * libppsim, the pipeline-parallel schedule simulator as a library: the whole interface of the
 * shared library libppsim.so, for programs in C, C++ or any language with a C foreign-function
 * interface (the Python package in python/ppsim/ uses it through ctypes). Build a configuration
 * from the keys of ppsim's JSON config files, simulate a training step (pp_simulate), a
 * serving run (pp_serve), a sweep of settings (pp_sweep_run) or the search of `ppsim advise`
 * (pp_advise), and read the result as data: figures by name, a table of per-device
 * figures, the ops as columns of numbers; or as the text of a report, byte for byte what the
 * command writes. The shared library exports exactly the functions declared here.
 *
 * ABI: PP_ABI_VERSION numbers this interface: the calls, the types and the constants below. It
 * is the number of the shared library's SONAME (libppsim.so.1) and grows whenever one of them
 * changes in a way a program built against an older header would notice; a release that only
 * adds calls, figure names or flags keeps it. pp_abi_version() says which one the loaded library
 * has: a program checks it against the header's when it starts.
 *
 * Ownership: pp_config_new, pp_simulate, pp_serve and pp_run_ops_new make objects the caller
 * frees with pp_config_free, pp_run_free and pp_ops_free; a run holds its own copy of the
 * settings, so its config may be changed or freed at once. Every char * handed out is the
 * caller's, freed with pp_string_free; every const char * returned is the library's, valid as
 * long as the library is loaded (or, for a run's, as long as the run). Nothing here keeps
 * global state: distinct objects may be used from distinct threads at once, and a run may be
 * read from several threads at once.
 *
 * Errors: a function that can fail returns an int, PP_OK (0) or a negative enum pp_status that
 * says what kind of failure it was, and hands its result through a pointer argument (set to
 * NULL on failure). It takes err, a buffer of errlen bytes (err may be NULL, errlen 0), where it
 * writes one NUL-terminated line: a message names a setting by its config-file key and value
 * (key "p" = 0: must be ...; key "mem_limit" '0.5': ...), a config text by its name, line and
 * column. Running out of memory is such an error, never an abort. A handle or pointer that a call
 * needs and is given as NULL is such an error too, never a crash ("pp_simulate: argument 'c' is
 * NULL"); the pointers that may be NULL are named at each call (err always may), and a free
 * function takes NULL as a no-op.
 *
 * Locale: numbers are read and written as in the "C" locale whatever the program's (setlocale,
 * or Python's locale.setlocale): "1.5" is read, and reports write 38.5, never 38,5. Each call
 * switches only the calling thread, for the length of the call, and puts its locale back.
 */
#ifndef PPSIM_PPSIM_H
#define PPSIM_PPSIM_H

#include <stddef.h>
#include <stdint.h>

#include "ppsim/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface, the SONAME's number: libppsim.so.1. */
#define PP_ABI_VERSION 1

/* What a call that can fail returns: PP_OK, or the kind of its failure. */
enum pp_status {
	PP_OK = 0,
	PP_E_INPUT = -1, /* a setting, a value, a config or a file's contents refused; an argument
	                    NULL or out of range; a training step whose ops (p, v and m) pass its
	                    op limit (key "max_ops"), refused before it runs */
	PP_E_SIM = -2,   /* valid settings that cannot be simulated: a schedule that deadlocks, a
	                    serving run that passes its op limit as it runs, a run over its GPUs'
	                    memory */
	PP_E_FILE = -3,  /* a file could not be read (a config, a schedule, a request trace) */
	PP_E_NOMEM = -4  /* out of memory */
};

/* A configuration: the defaults of `ppsim run` (1f1b, p=4, v=1, m=8, unit costs) until set. */
typedef struct pp_config pp_config;
/* One finished simulation: a training step (pp_simulate) or a serving run (pp_serve). */
typedef struct pp_run pp_run;

/* The PP_ABI_VERSION the loaded library was built with. */
int pp_abi_version(void);
/* Stores the library's version numbers (each pointer may be NULL); returns "MAJOR.MINOR.PATCH",
 * the library's own, which may differ from the PP_VERSION_* of the header compiled against. */
const char *pp_version(int *major, int *minor, int *patch);

/* A configuration holding the defaults, or NULL out of memory. */
pp_config *pp_config_new(void);
/* Frees c; NULL is a no-op. */
void pp_config_free(pp_config *c);
/* A copy of c, or NULL out of memory or when c is NULL (there is no err to say which). */
pp_config *pp_config_copy(const pp_config *c);

/*
 * Sets one setting from text: key is a config-file key ("p", "schedule", "t_f", "mem_limit";
 * docs/config.md lists them) or the long name of the command's option that sets it ("stages",
 * "mem-limit"); value is read as that key's value ("8", "1f1b", "true", "1,2,1" for a list).
 * Returns PP_OK, or PP_E_INPUT with err set (an unknown key, a bad value, c, key or value NULL).
 */
int pp_config_set(pp_config *c, const char *key, const char *value, char *err, size_t errlen);
/*
 * The config-file key of the setting name stands for, as pp_config_set reads it (a key, or a
 * long option name: "stages" and "p" give "p", "mem-limit" gives "mem_limit"); NULL for an
 * unknown name or NULL. The string is static. Two names with one key set one setting.
 */
const char *pp_config_key(const char *name);
/*
 * Applies the JSON object json_text (a NUL-terminated config file's text) over c's settings,
 * with the checks of a config file; name stands for the text in messages ("-" when NULL).
 * Returns PP_OK, or a status with err set ("config 'NAME':LINE:COLUMN: ...", c or json_text
 * NULL); a failed load leaves c as it was, none of the document applied.
 */
int pp_config_load_json(pp_config *c, const char *json_text, const char *name, char *err,
                        size_t errlen);
/* pp_config_load_json of the file at path: PP_E_FILE when it cannot be read (c unchanged). */
int pp_config_load_file(pp_config *c, const char *path, char *err, size_t errlen);

/*
 * The settings c sets (by pp_config_set, a config text or file, pp_calibrate) into *text as a
 * JSON config file, one key a line in the order of `ppsim --help`, numbers in the shortest form
 * that reads back exactly; pp_config_load_json reads it back to the same settings. *text is
 * for pp_string_free. Returns PP_OK, or a status with err set and *text NULL (out of memory, c
 * or text NULL).
 */
int pp_config_json(const pp_config *c, char **text, char *err, size_t errlen);

/* pp_simulate's flags: what a run keeps besides its figures and per-device table, each at a
 * cost per op (16 bytes of memory for the times; 12 more, and a pass, for the slack). */
/* Each op's start and end: pp_run_ops, pp_run_ops_csv, the critical path of reports and
 * figures. */
#define PP_KEEP_OP_TIMES 1u
/* Each op's slack too (the op times with it). */
#define PP_KEEP_SLACK 2u

/*
 * Checks c as a training step (a setting only serving takes is refused: pp_serve runs it),
 * generates its schedule, prices and simulates it, with the noise samples c asks for, into
 * *run. flags: PP_KEEP_* bits, 0 for the figures alone. Returns PP_OK, or a status with err set
 * and *run NULL: invalid settings, a deadlock, a file that cannot be read, out of memory, c or
 * run NULL.
 */
int pp_simulate(const pp_config *c, unsigned flags, pp_run **run, char *err, size_t errlen);
/*
 * pp_simulate of c once for each schedule of schedules[0..n-1] (names as the key "schedule"
 * takes), each with the chunk count the schedule takes nearest to c's v (1f1b one, interleaved
 * c's), as `ppsim compare --schedules` runs them: runs[i] gets schedule i's run, each for
 * pp_run_free. Returns PP_OK, or a status with err set and every runs[i] NULL.
 */
int pp_simulate_schedules(const pp_config *c, const char *const *schedules, int n, unsigned flags,
                          pp_run **runs, char *err, size_t errlen);
/*
 * Runs c as a serving simulation (`ppsim serve`) into *run: reads its request trace (key
 * "requests") or generates its requests, and simulates its batching policy on its pipeline. A
 * training-only setting is refused. flags: none yet, 0. The run's ops (one forward per
 * micro-batch and stage) always have their times. Returns PP_OK, or a status with err set and
 * *run NULL.
 */
int pp_serve(const pp_config *c, unsigned flags, pp_run **run, char *err, size_t errlen);
/* Frees r; NULL is a no-op. */
void pp_run_free(pp_run *r);

/* 1 for a serving run (pp_serve), 0 for a training step (or r NULL). */
int pp_run_is_serving(const pp_run *r);
/* The unit of r's times: "ms" when a model priced it, else "t" (the unit of t_f); NULL when r
 * is NULL. */
const char *pp_run_time_unit(const pp_run *r);

/*
 * Figure name of r into *value: name is the key of the figure in r's JSON report (docs/output.md),
 * a nested one with its parents' keys before it and dots between ("makespan", "bubble_ratio",
 * "step_time", "p2p.messages", "critical_path.time", "ttft.p50", "kv.peak"); times in r's time
 * unit, counts as numbers. A figure the report leaves out or writes as null for this run (a
 * model's figures without a model, a serving figure of a training run, the critical path of a
 * run that kept no op times) is NaN. Returns PP_OK, or a status with err set: a name that is no
 * figure (pp_figure_name lists them), r, name or value NULL, out of memory.
 */
int pp_run_figure(const pp_run *r, const char *name, double *value, char *err, size_t errlen);
/* The name of figure i, for i from 0 until it returns NULL: every name pp_run_figure takes, a
 * training run's and a serving run's. */
const char *pp_figure_name(int i);

/* The devices of r (p; a serving run's one per stage of its pipelines); 0 when r is NULL. */
int pp_run_devices(const pp_run *r);
/*
 * A column of r's per-device table: the figure name of each device (a key of the entries of the
 * report's "devices": "busy", "utilization", "peak_activations", "memory_bytes", "exposed_dp",
 * ...) into out[0..n-1], device d's at out[d]; NaN where the report has none or null. Returns
 * the number of devices (of which min(n, devices) are written), or a status with err set: a
 * name that is no device figure (pp_device_figure_name lists them), r, name or out NULL.
 */
int pp_run_device_figure(const pp_run *r, const char *name, double *out, size_t n, char *err,
                         size_t errlen);
/* The name of device figure i, for i from 0 until it returns NULL. */
const char *pp_device_figure_name(int i);

/* An op's kind, in pp_ops.kind: forward, input-gradient backward, weight-gradient backward, a
 * fused backward (B then W in one op). pp_op_kind_name gives "F", "B", "W", "BW" (NULL past). */
enum pp_op_kind { PP_OP_F = 0, PP_OP_B = 1, PP_OP_W = 2, PP_OP_BW = 3 };
const char *pp_op_kind_name(int kind);

/*
 * Columns of a run's ops, as `ppsim --dump-ops` lists them: each device's ops in the order it
 * runs them, device 0's first. Entry i of each column is op first + i (pp_run_ops), one entry
 * every stride bytes (0: packed, one after the other), so that the columns may be separate
 * arrays or the fields of an array of records. A NULL column is not filled.
 */
typedef struct pp_ops {
	size_t n;            /* entries each column holds */
	size_t stride;       /* bytes from one entry to the next in every column; 0: packed */
	double *start;       /* when the op started, in the run's time unit (needs op times) */
	double *end;         /* when it ended (an overlapped pair: both of its ops at once) */
	double *slack;       /* how much longer it could take without delaying the step's end
	                        (needs PP_KEEP_SLACK) */
	int32_t *device;     /* the device that ran it */
	int32_t *chunk;      /* the device's chunk of the model it belongs to */
	int32_t *stage;      /* its virtual stage */
	int32_t *microbatch; /* its micro-batch */
	uint8_t *kind;       /* enum pp_op_kind */
	uint8_t *overlap;    /* 1 for an F that runs overlapped with its device's next op */
} pp_ops;

/* The ops of r (0 when r is NULL). */
size_t pp_run_op_count(const pp_run *r);
/* What r kept of its ops: 0 nothing but their order, 1 each op's times (PP_KEEP_OP_TIMES, or a
 * serving run), 2 their slacks too. */
int pp_run_kept(const pp_run *r);
/*
 * Fills the columns of cols with r's ops first .. first + cols->n - 1. Returns PP_OK, or
 * PP_E_INPUT with err set: those ops past r's, a time column when r kept no op times, the slack
 * column when it kept no slack, a stride under the entry of a column asked for, r or cols
 * NULL. The buffers are the caller's; nothing is kept.
 */
int pp_run_ops(const pp_run *r, size_t first, const pp_ops *cols, char *err, size_t errlen);
/* All of r's ops into *ops, in packed columns the library allocates: every column r has (start
 * and end with op times, slack with slacks, else NULL), for pp_ops_free. Returns PP_OK, or a
 * status with err set and *ops NULL (out of memory, r or ops NULL). */
int pp_run_ops_new(const pp_run *r, pp_ops **ops, char *err, size_t errlen);
/* Frees ops and its columns; NULL is a no-op. */
void pp_ops_free(pp_ops *ops);

/*
 * The report of r into *text, in a format of `ppsim --format` ("text", "json", "csv"; NULL is
 * "json"), byte for byte what `ppsim run` (a training step), `ppsim serve` (a serving run) or
 * `ppsim replay --timeline=0` (a replayed step, pp_replay_whatif: "text" or "json") writes for
 * it; its critical path with PP_KEEP_OP_TIMES. *text is for pp_string_free. Returns PP_OK, or
 * a status with err set and *text NULL (an unknown format, out of memory, r or text NULL).
 */
int pp_run_report(const pp_run *r, const char *format, char **text, char *err, size_t errlen);
/* The ops of r into *text as the CSV of `ppsim --dump-ops` (header "device,chunk,stage,op,
 * microbatch,start,end", "overlap" with overlapped pairs, then "slack" with slacks), for
 * pp_string_free. Returns PP_OK, or a status with err set and *text NULL (r kept no op times,
 * out of memory, r or text NULL). */
int pp_run_ops_csv(const pp_run *r, char **text, char *err, size_t errlen);
/*
 * runs[0..n-1] side by side into *text as `ppsim compare --format=FORMAT` writes them (NULL is
 * "json"), each row labelled labels[i] ("-" when labels or labels[i] is NULL); the runs must be
 * all training steps or all serving runs, in one time unit. *text is for pp_string_free.
 * Returns PP_OK, or a status with err set and *text NULL (n < 1, runs, text or one of
 * runs[0..n-1] NULL).
 */
int pp_compare_report(const pp_run *const *runs, const char *const *labels, int n,
                      const char *format, char **text, char *err, size_t errlen);

/* A finished sweep (pp_sweep_run): every point of a grid of settings around a config. */
typedef struct pp_sweep pp_sweep;

/*
 * Simulates every point of a grid of settings around c, as `ppsim sweep` does, into *out, for
 * pp_sweep_free: axis i sets the key keys[i] (a key pp_config_set takes: "p", "m",
 * "schedule", "t_comm", ...) to each value of the list values[i] in turn, in the command's list
 * syntax ("2,4,8", "8:64:x2", "all" for "schedule"), the last axis varying fastest; naxes from
 * 0 (one point, c) to 16. jobs threads (1 or less: the calling thread; the points are the same
 * on any number). A point whose settings are refused, whose schedule deadlocks, or (fits
 * non-zero) that is over its GPUs' memory is skipped with its reason, not an error. Returns
 * PP_OK, or a status with err set and *out NULL: an unknown key or a bad list (named by its
 * key), more than a million points, out of memory, c or out NULL (keys and values may be NULL
 * when naxes is 0).
 */
int pp_sweep_run(const pp_config *c, const char *const *keys, const char *const *values,
                 int naxes, int jobs, int fits, pp_sweep **out, char *err, size_t errlen);
/*
 * The search of `ppsim advise` as a sweep, into *out: c names a model, a GPU count and a global
 * batch (keys "model", "gpus", "global_batch"); each of tensor parallelism, p, v, micro-batch
 * size and schedule that c does not set (and expert parallelism, "ep", for a mixture of
 * experts) is an axis over the layouts that fit the GPUs, and a point over its GPUs' memory is
 * skipped. pp_sweep_ranked(s, 0) is the recommendation (a point
 * ranked after it may differ from it only by a schedule that gives the same step). Returns PP_OK,
 * or a status with err set and *out NULL: a model, GPU count or global batch missing, no point
 * valid (PP_E_INPUT), none that fits (PP_E_SIM), out of memory, c or out NULL.
 */
int pp_advise(const pp_config *c, int jobs, pp_sweep **out, char *err, size_t errlen);
/* Frees s; NULL is a no-op. */
void pp_sweep_free(pp_sweep *s);
/* The points of s (the product of its axes' lengths; 0 when s is NULL). */
size_t pp_sweep_points(const pp_sweep *s);
/* The axes of s (0 when s is NULL). */
int pp_sweep_axes(const pp_sweep *s);
/* The config key axis sets ("p", "schedule"; an advice's "tp", "p", "v", "mbs", "schedule"),
 * NULL past s's axes. */
const char *pp_sweep_axis_key(const pp_sweep *s, int axis);
/* The value axis takes at point (as the key reads it: "8", "1f1b"); NULL past s's points or
 * axes. */
const char *pp_sweep_value(const pp_sweep *s, size_t point, int axis);
/* Why point was skipped; NULL when it was simulated (or past s's points). */
const char *pp_sweep_skipped(const pp_sweep *s, size_t point);
/* The unit of point's times ("t" or "ms"); NULL when it was skipped (or past s's points). */
const char *pp_sweep_time_unit(const pp_sweep *s, size_t point);
/*
 * Figure name of point into *value: name is the key of a number of a `ppsim sweep
 * --format=jsonl` record ("p", "v", "m", "makespan", "bubble_ratio", "utilization",
 * "throughput", "tokens_per_s", "memory_bytes", "fits" as 1 or 0, "step_p90", ...;
 * pp_sweep_figure_name lists them), times in the point's unit; NaN where the record has null or
 * leaves it out (a skipped point's figures, a model's without one, the samples' without
 * samples). Returns PP_OK, or a status with err set: a name that is no figure, a point past s's,
 * s, name or value NULL.
 */
int pp_sweep_figure(const pp_sweep *s, size_t point, const char *name, double *value, char *err,
                    size_t errlen);
/* The name of sweep figure i, for i from 0 until it returns NULL. */
const char *pp_sweep_figure_name(int i);
/* The point ranked k-th, best first, as `ppsim sweep` ranks its table: simulated before
 * skipped, fitting before over memory, then tokens/s with a model or utilization without one,
 * then the smaller peak memory, then the point's number; (size_t)-1 past s's points. */
size_t pp_sweep_ranked(const pp_sweep *s, size_t k);

/*
 * The config of explicit costs fitted to measured op times, as `ppsim calibrate` writes it, into
 * *out (a new config, for pp_config_free): path is a CSV of stage, op (F, B, W, BW or comm) and
 * ms per micro-batch, or a Megatron-LM log, which needs m, the micro-batches of an iteration
 * (0: none given); w_share is the share of a fused backward taken as W (below 0: none given,
 * which a fused backward alone refuses). *max_error (when not NULL) gets the largest relative
 * gap between a fitted and a measured op time (above 0.01 where stages' F, B and W are not in
 * one proportion). Simulate the config (pp_simulate) to see the measured schedule, or set
 * another "schedule" to see what it would do on those costs. Returns PP_OK, or a status with
 * err set and *out NULL: PP_E_FILE for a file that cannot be read, PP_E_INPUT naming the line
 * at fault ("calibration 'PATH':LINE:COLUMN: ..."), a log without m, a bad m or w_share, path
 * or out NULL.
 */
int pp_calibrate(const char *path, int m, double w_share, pp_config **out, double *max_error,
                 char *err, size_t errlen);

/*
 * Replays a measured step into *run, as `ppsim replay` does, with a what-if: reads paths[0..
 * n-1] (a profiler trace for all devices, one per device, or a CSV of op times;
 * docs/pytorch.md) and simulates the step with its own op order and op times on c's settings
 * (messages at c's "t_comm" when set, else as measured), then what the step would have taken
 * otherwise, as keys[0..nkeys-1] and values (text, as pp_config_set reads it) ask:
 * - "schedule", "m", "v", "group_size", "mem_limit" (pp_replay_whatif_key lists them):
 *   another schedule or shape, on explicit costs fitted to the step's op times (each stage's
 *   mean time per kind, as pp_calibrate fits them), with the step's p and, where not given,
 *   its schedule (the built-in one whose order it ran), m and v;
 * - "without_slowest" ("true" or "false"): the step without its slowest device, whose ops take
 *   the other devices' median times for their kind, the order kept; with a shape, that first;
 * - "w_share" (from 0 to 1): the share of a backward measured fused that the fit takes as W,
 *   for a what-if of a schedule that splits it.
 * c holds the settings of the replay and the what-if alike, and so none of the what-if's shape
 * (keys and values may be NULL when nkeys is 0: the replay alone). *run is the what-if's run
 * (the replay's without one): its figures, per-device table and ops (flags as pp_simulate's);
 * its figures "replay.measured_step", "replay.replayed_step", "replay.what_if.step",
 * "replay.what_if.ratio", ... (the JSON report's "replay" object) set it against the replay and
 * the measured step; pp_run_report writes it as `ppsim replay --format` does ("text" or
 * "json"). Returns PP_OK, or a status with err set and *run NULL: PP_E_FILE for a file that
 * cannot be read, PP_E_INPUT for a step that is not one (a range of an unknown name, an op
 * twice or missing), a setting replay does not take, a key that is no what-if's or a bad
 * value, a what-if the step cannot take (without_slowest on one device, w_share without a
 * shape, a fit that needs w_share), c, paths, run or one of the keys or values NULL.
 */
int pp_replay_whatif(const pp_config *c, const char *const *paths, int n, const char *const *keys,
                     const char *const *values, int nkeys, unsigned flags, pp_run **run,
                     char *err, size_t errlen);
/* The name of what-if key i that pp_replay_whatif takes, for i from 0 until it returns NULL. */
const char *pp_replay_whatif_key(int i);
/* pp_replay_whatif without a what-if (nkeys 0): the measured step replayed. */
int pp_replay(const pp_config *c, const char *const *paths, int n, unsigned flags, pp_run **run,
              char *err, size_t errlen);

/*
 * The tables of `ppsim list` (schedules, model, GPU and link presets, batching policies,
 * formats) into *text in format "text" or "json" (NULL), as `ppsim list --format` writes them,
 * for pp_string_free. Returns PP_OK, or a status with err set and *text NULL.
 */
int pp_list(const char *format, char **text, char *err, size_t errlen);

/* Frees a string returned by this library; NULL is a no-op. */
void pp_string_free(char *s);

#ifdef __cplusplus
}
#endif

#endif
