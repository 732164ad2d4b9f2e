/*
 * Reporters: turn a finished simulation (or a comparison, sweep, advice, break-even table or
 * serving run) into text, JSON, CSV, an ASCII timeline or an op dump. They only read their
 * result, write to the FILE they are given, and keep a fixed key order and fixed number formats
 * so that golden files stay stable. --format names a row of one registry (src/report/registry.c)
 * that holds each format's writer for each kind of result.
 */
#ifndef PPSIM_REPORT_H
#define PPSIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ppsim/advise.h"
#include "ppsim/partition.h"
#include "ppsim/replay.h"
#include "ppsim/schedfile.h"
#include "ppsim/serve.h"
#include "ppsim/sim.h"
#include "ppsim/sweep.h"

/* One row of a comparison: a finished simulation and the name it goes by. */
struct report_row {
	const char *label;     /* the config file or "-", shown in the first column */
	const struct sim *sim; /* the simulation */
	int rank;              /* 1 for the best by compare's --rank-by, ties sharing; 0 when
	                          not ranked */
};

/*
 * Checks that a row of a comparison, whose time unit is unit, shares its first row's, first:
 * its columns compare only then. Returns 0, or -1 with a PP_ERR_USAGE error naming both units.
 */
int report_compare_units(const char *first, const char *unit, struct pp_error *err);

/* A schedule file `ppsim validate` found valid: the file as read and each device's peak
 * activations in micro-batches (sched_peak_units). */
struct validation {
	const char *path;
	const struct schedfile *file;
	const double *peak; /* [file->sched->p] */
};

/* One row of a serving comparison: a finished run, its metrics and its name. */
struct serve_row {
	const char *label;
	const struct serve_run *run;
	const struct serve_metrics *metrics;
};

/*
 * The kinds of result a command writes with --format; each format row writes some of them.
 * A command finds its writer by (format name, kind): report_format_find.
 */
enum report_kind {
	REPORT_RUN,           /* one simulation (run) */
	REPORT_COMPARE,       /* simulations side by side (compare) */
	REPORT_SWEEP,         /* a sweep's ranked table or its record stream (sweep) */
	REPORT_ADVICE,        /* a recommendation (advise) */
	REPORT_BREAKEVEN,     /* a break-even table (breakeven) */
	REPORT_SERVE,         /* one serving run (serve) */
	REPORT_SERVE_COMPARE, /* serving runs side by side (compare of serving configs) */
	REPORT_LIST,          /* the tables users pick names from (list) */
	REPORT_VALIDATION,    /* a schedule file found valid (validate) */
	REPORT_REPLAY,        /* a measured step replayed, and a what-if (replay) */
	REPORT_PARTITION,     /* the layers and recomputation per stage found (partition) */
};

/* What `ppsim partition` found, for its writers: the search and the config it searched. */
struct report_partition {
	const struct config *c;        /* the run searched */
	const struct partition *found; /* the search's result */
	const char *model;             /* the model's name */
};

/*
 * What a writer needs of a run, so that an output the run cannot hold is refused before it
 * runs: what the writer reads beyond the run's totals (which the run then keeps), the memory it
 * holds itself while it writes, and the fewest bytes it writes, each per op and per message
 * (struct sim_size). An entry's numbers add their digits to its bytes, counted from the shape
 * (report_need_bytes). A row that sets none of these needs nothing per op: a report of totals,
 * or a picture whose size follows its pixels.
 */
struct report_need {
	unsigned reads;             /* REPORT_READS_* bits */
	unsigned mem_op, mem_msg;   /* bytes the writer holds per op and per message */
	unsigned file_op, file_msg; /* the fewest bytes it writes per op and per message, digits
	                             * of the numbers in `digits` aside */
	unsigned digits;            /* REPORT_DIGITS_* bits: the numbers each entry writes */
	unsigned read_op, read_msg; /* a schedule export: the bytes reading its file back takes
	                             * per op and per message (schedfile.h), within
	                             * schedfile_read_budget; 0 for other outputs */
};

/* struct report_need.reads: each op's start and end (else the run drops them,
 * SIM_NO_OP_TIMES; a run report's critical path reads them), each message
 * (SIM_RECORD_MESSAGES; its ops' times too), each op's slack (SIM_SLACK; its times too). */
#define REPORT_READS_TIMES    1u
#define REPORT_READS_MESSAGES 2u
#define REPORT_READS_SLACK    4u

/* struct report_need.digits: an op's device, chunk, stage and micro-batch, its start and end
 * (in the run's unit, counted when every op takes time); a message's producer and consumer op
 * indices. */
#define REPORT_DIGITS_DEVICE  1u
#define REPORT_DIGITS_CHUNK   2u
#define REPORT_DIGITS_STAGE   4u
#define REPORT_DIGITS_MB      8u
#define REPORT_DIGITS_TIMES   16u
#define REPORT_DIGITS_MSG_OPS 32u

/* The memory n's writer holds for a run of size z (UINT64_MAX when it does not fit). */
uint64_t report_need_memory(const struct report_need *n, const struct sim_size *z);
/*
 * The fewest bytes n's writer writes for a run of size z, its entries' numbers at their fewest
 * digits: a run's micro-batches, stages, devices and chunks each take their numbers from 0 up,
 * a device's op times differ from op to op (but for a pair's) when every op takes time, and
 * its messages' producers and consumers are distinct ops (UINT64_MAX when it does not fit).
 */
uint64_t report_need_bytes(const struct report_need *n, const struct sim_size *z);

/*
 * A row of the format registry (--format): a name and its writer for each kind of result it
 * writes, NULL for the kinds it does not. Every writer returns 0, or -1 when the output could
 * not be built (out of memory).
 */
struct report_format {
	const char *name;    /* "text", "json", "csv", "jsonl" */
	const char *summary; /* one line for `ppsim list` */
	bool human;          /* a report for people, which the ASCII timeline may follow */
	struct report_need need; /* what its writers need per op: none (a report of totals) */
	/* A format often asked for where this one is meant, and this one's long name: `sweep -f
	 * json` is pointed to "(JSON lines: jsonl)". NULL for none. */
	const char *mistaken_for, *title;
	/* Writes the report of s to out. */
	int (*write)(FILE *out, const struct sim *s);
	/*
	 * Writes rows side by side: the best value of each figure marked (text), the speed-up of
	 * each row against the first.
	 */
	int (*compare)(FILE *out, const struct report_row *rows, int n);
	/* A sweep as a ranked table of the best rows (report_sweep_table) ... */
	int (*sweep_table)(FILE *out, const struct sweep *sw, const struct sweep_record *rows,
	                   int n, const struct sweep_totals *t);
	/* ... or as a stream of records, each as it is ready, after a header when there is one. */
	int (*sweep_header)(FILE *out, const struct sweep *sw);
	int (*sweep_record)(FILE *out, const struct sweep *sw, const struct sweep_record *r);
	int (*advice)(FILE *out, const struct advice *a);
	int (*breakeven)(FILE *out, const struct breakeven_row *rows, int n);
	int (*serve)(FILE *out, const struct serve_run *r, const struct serve_metrics *m);
	int (*serve_compare)(FILE *out, const struct serve_row *rows, int n);
	/* Writes the listing of the tables: schedules, presets, batching policies, formats. */
	int (*list)(FILE *out);
	/* Writes what `ppsim validate` found in a valid schedule file. */
	int (*validation)(FILE *out, const struct validation *v);
	/* Writes a replayed step: the report of its last run (the what-if's, or the replay's),
	 * then the measured step against the replay and the what-if. */
	int (*replay)(FILE *out, const struct replay *r);
	/* Writes the partition found: the best layers and recomputation per stage, the
	 * runner-up and why, the even split, and the flags that give the best. */
	int (*partition)(FILE *out, const struct report_partition *r);
};

/* The formats of a run report (the leading rows of the registry) in --help order; *count
 * receives how many. */
const struct report_format *report_formats(size_t *count);
/* The run-report format with that exact name, or NULL. */
const struct report_format *report_find(const char *name);
/* The format with that exact name that writes results of kind, or NULL. */
const struct report_format *report_format_find(const char *name, enum report_kind kind);
/* The format with that exact name for which takes(f, ctx) is true, or NULL (a command that
 * takes the formats of more than one kind of result: merge). */
const struct report_format *report_format_find_if(const char *name,
                                                  bool (*takes)(const struct report_format *f,
                                                                const void *ctx),
                                                  const void *ctx);
/* True when f writes results of kind. */
bool report_format_writes(const struct report_format *f, enum report_kind kind);
/*
 * Writes the names of the formats that write kind into buf of size n, joined as "text, json"
 * (sep ", ", last NULL) or "text or json" (sep ", ", last " or "), or "text json" (sep " ").
 * Returns buf.
 */
char *report_format_names(enum report_kind kind, const char *sep, const char *last, char *buf,
                          size_t n);
/* The same of the formats for which takes(f, ctx) is true. */
char *report_format_names_if(bool (*takes)(const struct report_format *f, const void *ctx),
                             const void *ctx, const char *sep, const char *last, char *buf,
                             size_t n);
/*
 * What to tell someone who asked for name where kind is wanted: " (TITLE: NAME)" of the format
 * that writes kind and is often mistaken for name, or "". Never NULL.
 */
const char *report_format_hint(const char *name, enum report_kind kind, char *buf, size_t n);
/* The format of a sweep's --records file: CSV when path ends in ".csv", else JSON lines. */
const struct report_format *report_records_format(const char *path);

/*
 * The outputs besides the report, each a row of a second registry with what its writer needs:
 * the files a command writes (--trace, --dump-ops, ...) and the timeline.
 */
enum report_output {
	REPORT_OUT_TRACE,    /* the Chrome trace (report_trace) */
	REPORT_OUT_TRACE_GZ, /* the Chrome trace compressed with gzip as it streams */
	REPORT_OUT_OPS,      /* the op dump (report_ops_csv) */
	REPORT_OUT_EXPORT,   /* an exported schedule: from here, a row per enum schedfile_format */
	REPORT_OUT_SVG = REPORT_OUT_EXPORT + SCHEDFILE_NFORMATS, /* report_svg */
	REPORT_OUT_HTML,     /* report_html, report_html_serve */
	REPORT_OUT_TIMELINE, /* the ASCII timeline (report_timeline) */
	REPORT_OUT_REQUESTS, /* a serving run's requests (report_serve_requests) */
	REPORT_OUT_SAMPLES,  /* a run's noise samples (report_samples_csv) */
	REPORT_OUT_PFTRACE,  /* the trace in Perfetto's protobuf format (report_pftrace) */
	REPORT_OUT_PFTRACE_GZ, /* that compressed with gzip as it streams */
	REPORT_NOUTPUTS
};

/* A row of the outputs' registry. */
struct report_output_row {
	const char *name;        /* what it is, for people: "Chrome trace" */
	struct report_need need; /* what its writer needs */
};

/* The row of output o. */
const struct report_output_row *report_output(enum report_output o);

/*
 * The version of the JSON reports' layout, the first key of every JSON document and of every
 * record of a JSON-lines stream ("schema_version"; in a report that is an array, each element
 * holds it). It grows when a key is removed, renamed or changes meaning; adding a key does not
 * change it (docs/output.md, "Stability").
 */
#define REPORT_SCHEMA_VERSION 1

/* Columns the timeline uses when the caller has no terminal width. */
#define PP_TIMELINE_WIDTH 100
/* Narrowest timeline accepted: the label column plus a few cells of time. */
#define PP_TIMELINE_MIN_WIDTH 40
#define PP_TIMELINE_MAX_WIDTH 100000

/*
 * Writes the ASCII timeline of s, no line wider than width: one row per device, each op a box
 * like "[F3]" where it fits, its kind letter where it does not, '.' for idle time, and a time
 * scale above; wrapped into up to four bands of time when that gives every op its label. The
 * letters are F forward, B full backward, I input-gradient backward, W weight gradient in every
 * schedule. Returns 0, or -1 out of memory (then nothing is written).
 */
int report_timeline(FILE *out, const struct drawing *s, int width);
/* report_timeline with each op coloured by kind (ANSI escapes) when color is true. */
int report_timeline_colored(FILE *out, const struct drawing *s, int width, bool color);

/*
 * Writes the ops as CSV with header "device,chunk,stage,op,microbatch,start,end", one row per op
 * in each device's execution order, plus a column "overlap" (1 on an F that runs overlapped
 * with the next op) when the schedule has overlapped pairs, and last a column "slack" when the
 * run has its slacks (SIM_SLACK). Returns 0.
 */
int report_ops_csv(FILE *out, const struct drawing *s);

/*
 * Writes the noise samples of s (sim_sample) as CSV with header
 * "sample,step,bubble_ratio,critical_device,critical_share", one row per sample in sample order:
 * its number (from 0, a shard's from its first), its step in the time unit, its bubble ratio,
 * the device whose ops take the most of its critical path and their share of it, numbers in the
 * shortest exact form. Returns 0.
 */
int report_samples_csv(FILE *out, const struct sim *s);

/*
 * Writes the Chrome trace of s (trace event JSON for Perfetto and chrome://tracing): a process
 * per device, a compute track and a track per outgoing channel, flow arrows from each send to
 * its consumer (when the simulation recorded its messages, SIM_RECORD_MESSAGES), and an
 * activation counter per device. Times in microseconds, one time unit = 1000 us, time 0 at ts
 * 1 (Chrome's trace engine leaves ts 0 out of a trace's bounds); slices named as
 * s->trace_names says. Returns 0.
 */
int report_trace(FILE *out, const struct drawing *s);

/*
 * Writes the trace of s in Perfetto's protobuf trace format (perfetto.protos.Trace): what
 * report_trace writes, as TracePackets on one sequence with interned names, slices begun and
 * ended on a process track per device and its thread tracks, flows by id, counter tracks, and
 * the JSON's otherData as Chrome metadata; timestamps in nanoseconds, 1000 x the JSON's
 * microseconds. Returns 0, or -1 when out of memory.
 */
int report_pftrace(FILE *out, const struct drawing *s);

/*
 * Writes a self-contained SVG Gantt chart of rows[0..n-1] on one time axis: per device a row of
 * ops coloured by kind and labelled with the micro-batch where they fit, on a ground showing
 * its idle time, and a thin lane of its outgoing transfers by direction (when recorded); a
 * title per simulation and a legend of what is drawn. Shapes too narrow to see are merged, so
 * that the size follows the drawing's width (rows[0]'s svg_width, or one chosen for the
 * labels) and devices. Returns 0, or -1 out of memory.
 */
int report_svg(FILE *out, const struct drawing *rows, int n);

/*
 * Writes a self-contained HTML report of rows[0..n-1] on one time axis (no network or server
 * needed): an interactive timeline with zoom, pan and hover, transfers and their arrows (when
 * recorded), activation memory over time and the bubble of each device by cause. Returns 0,
 * or -1 out of memory.
 */
int report_html(FILE *out, const struct report_row *rows, int n);
/* report_html of a serving run's pipeline, with its requests: when each arrived, was admitted,
 * got its first token and finished. Returns 0. */
int report_html_serve(FILE *out, const struct serve_run *r);
/* report_html of serving runs side by side (`ppsim compare` of serving configs): each run's
 * pipeline on one time axis. Returns 0, or -1 out of memory. */
int report_html_serving(FILE *out, const struct serve_row *rows, int n);
/*
 * A sweep's HTML report, written as the sweep runs: the header, then each record in point
 * order (first true for the first), then the footer; the page draws a heatmap of a chosen
 * figure over two chosen axes. Each returns 0.
 */
int report_html_sweep_header(FILE *out, const struct sweep *sw);
int report_html_sweep_record(FILE *out, const struct sweep *sw, const struct sweep_record *r,
                             bool first);
int report_html_sweep_footer(FILE *out);
/*
 * Sweep records, one line per point: JSON lines, or CSV rows under report_sweep_csv_header.
 * Both have the same columns: index, status ("ok" or "skipped"), the shape (schedule, p, v, m,
 * and with a model tp, dp, mbs, gpus), each other option that varies, the figures (null or
 * empty for a skipped point) and the reason for a skip. Return 0.
 */
int report_sweep_jsonl(FILE *out, const struct sweep *sw, const struct sweep_record *r);
int report_sweep_csv_header(FILE *out, const struct sweep *sw);
int report_sweep_csv(FILE *out, const struct sweep *sw, const struct sweep_record *r);

/*
 * Writes the ranked table of a sweep: the totals t, then rows[0..n-1] (best first) with their
 * shape, varying options and main figures. Returns 0.
 */
int report_sweep_table(FILE *out, const struct sweep *sw, const struct sweep_record *rows, int n,
                       const struct sweep_totals *t);

/*
 * The interleaving break-even table of rows[0..n-1] (breakeven_run): per link, mode and v the
 * time, the gain over 1F1B, both sides of the document's inequality and both verdicts, then
 * where interleaving stops paying and how often the inequality agrees. Returns 0.
 */
int report_breakeven_text(FILE *out, const struct breakeven_row *rows, int n);
/* The partition `ppsim partition` found (struct report_partition), as text or JSON. */
int report_partition_text(FILE *out, const struct report_partition *r);
int report_partition_json(FILE *out, const struct report_partition *r);
/* The same rows as a JSON array. Returns 0. */
int report_breakeven_json(FILE *out, const struct breakeven_row *rows, int n);

/* The advice: the recommendation and runner-up, the reasons, the break-even table and the
 * equivalent sweep; as text or as one JSON object. Return 0. */
int report_advice_text(FILE *out, const struct advice *a);
int report_advice_json(FILE *out, const struct advice *a);

/*
 * The report of a serving run: text (shape, workload, latency percentiles, bubble, KV cache,
 * per device, per window), one JSON object, or a CSV header and row. Return 0.
 */
int report_serve_text(FILE *out, const struct serve_run *r, const struct serve_metrics *m);
int report_serve_json(FILE *out, const struct serve_run *r, const struct serve_metrics *m);
int report_serve_csv(FILE *out, const struct serve_run *r, const struct serve_metrics *m);

/* The requests of r as a JSON-lines trace (arrival as served, prompt, output), which
 * `--requests` reads back to the same run. Returns 0. */
int report_serve_requests(FILE *out, const struct serve_run *r);

/* Serving runs side by side (`ppsim compare` of serving configs), the best of each column
 * marked in text; as a JSON array of the reports, or CSV rows. Return 0. */
int report_serve_compare_text(FILE *out, const struct serve_row *rows, int n);
int report_serve_compare_json(FILE *out, const struct serve_row *rows, int n);
int report_serve_compare_csv(FILE *out, const struct serve_row *rows, int n);

/* `ppsim list`: the schedules, PyTorch's names, the model, GPU and link presets, the batching
 * policies and the report formats, from their tables; as text sections or one JSON object
 * (keys in docs/output.md). Return 0, or -1 out of memory. */
int report_list_text(FILE *out);
int report_list_json(FILE *out);

/* `ppsim validate`: the shape, kind of backward, placement, op count, file format (with a
 * compute_comms file's transfers and zero-cost actions) and peak activations of a valid
 * schedule file; as text lines or one JSON object (keys in docs/output.md). Return 0. */
int report_validation_text(FILE *out, const struct validation *v);
int report_validation_json(FILE *out, const struct validation *v);

/* `ppsim replay`: the report of the step's last run (the what-if's, else the replay's), then
 * the measured step, the replayed step and the what-if's against it; as text, or as the run's
 * JSON object with a "replay" object added (keys in docs/output.md). Return 0, or -1 out of
 * memory. */
int report_replay_text(FILE *out, const struct replay *r);
int report_replay_json(FILE *out, const struct replay *r);

#endif
