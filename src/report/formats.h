/* Writers registered in the format table of src/report/registry.c; private to the library. */
#ifndef PPSIM_REPORT_FORMATS_H
#define PPSIM_REPORT_FORMATS_H

#include <stdio.h>

#include "ppsim/report.h"
#include "ppsim/sim.h"

#include <cjson/cJSON.h>

int report_text_write(FILE *out, const struct sim *s);
/* The JSON object of one simulation, as report_json_write prints it, or NULL out of memory;
 * the caller deletes it. */
cJSON *report_json_build(const struct sim *s);
int report_csv_write(FILE *out, const struct sim *s);
int report_compare_text(FILE *out, const struct report_row *rows, int n);
int report_compare_json(FILE *out, const struct report_row *rows, int n);
int report_compare_csv(FILE *out, const struct report_row *rows, int n);
int report_json_write(FILE *out, const struct sim *s);
/* Prints item indented with a final newline and deletes it; returns 0, or -1 out of memory. */
int report_json_print(FILE *out, cJSON *item);

/* Row label of device d: "GPU d (stage s)", or "(stages a,b,...)" with several chunks. */
void report_device_label(const struct sched *s, int d, char *buf, size_t n);
/* Label of op, its kind's letter and micro-batch: "F3", "I3", "f3" (chunk 1 of 2), "F3.2" (chunk
 * 2 of more than 2); returns its length. */
int report_op_label(char *buf, size_t n, const struct sched *s, const struct op *op);

/* The devices that send and receive message g of s, in *src and *dst (a drawing's direction:
 * down to a later device when *dst > *src, up to an earlier one otherwise). */
void report_msg_devices(const struct drawing *s, const struct msg_record *g, int *src, int *dst);

/* A model-priced run's layout as the frameworks take it (layouts.c): Megatron-LM's layout
 * string, its flags when they say the same (NULL when they cannot), torchtitan's settings (NULL
 * with MTP layers, which it has no module for). report_layout_build fills out for s (which
 * prices its ops from a model) and returns 0, or -1 out of memory; release frees the strings. */
/* The layout's settings, each NULL where the framework cannot say it; all NULL (and too_many
 * set) for more virtual stages than a layout holds (PP_MAX_LIST). */
struct report_layout {
	char *megatron, *megatron_flags, *torchtitan;
	bool too_many;
};
int report_layout_build(const struct sim *s, struct report_layout *out);
/* The same for S stages of layers[s] decoder layers and mtp MTP layers over p devices. */
int report_layout_of(int S, const int *layers, int mtp, int p, struct report_layout *out);
void report_layout_release(struct report_layout *l);

/* Writes text as a JSON string literal, escaping quotes, backslashes and control characters. */
void report_json_text(FILE *out, const char *text);
/* The ppsim options that give partition p's best (--layers-per-stage, --recompute or
 * --stage-recompute, and --stage-offload when the offload was searched, its zeros too), and a
 * choice x of S stages as a JSON object (null when not set). */
void report_partition_flags(FILE *out, const struct partition *p);
void report_partition_choice_json(FILE *out, const struct partition_choice *x, int S);
/* report_json_text for a JSON literal inside an HTML <script>: '<' is escaped as well. */
void report_script_text(FILE *out, const char *text);
/* Writes text with XML's (and HTML's) special characters escaped: & < > ". */
void report_xml_text(FILE *out, const char *text);
/*
 * The letter the pictures draw an op of kind with, one meaning in every schedule (PyTorch's): F
 * forward, B full (fused) backward, I input-gradient backward (the zero-bubble paper's and
 * --dump-ops' B), W weight-gradient backward; its legend entry ("I input-gradient backward");
 * and that entry without the letter, for tooltips.
 */
char report_kind_letter(enum op_kind kind);
const char *report_kind_legend(enum op_kind kind);
const char *report_kind_summary(enum op_kind kind);
/* Writes text as a CSV field: quoted, with quotes doubled, when it holds a comma, quote or
 * newline (RFC 4180). */
void report_csv_text(FILE *out, const char *text);

/* Writes record r of sw as one JSON object, without a newline (a line of JSON lines). */
void report_sweep_json_record(FILE *out, const struct sweep *sw, const struct sweep_record *r);

/* Smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 and 8 times a power of ten that is >= need > 0. */
double report_nice_step(double need);

/* A piece of communication on a device's stream, in ticks from the run's start. */
struct report_piece {
	pp_time start, end; /* on its stream */
	uint8_t kind;       /* enum comm_kind */
	size_t op;          /* the op whose plan it belongs to, SIZE_MAX for a hooked piece */
};
typedef void report_piece_fn(void *ctx, const struct report_piece *pc);
/* A device's pieces on one stream gathered: an op's own (from the first's start to the last's
 * end, as report_op_pieces places them), or one hooked piece. */
struct report_span {
	pp_time lo, hi;          /* the first piece's start, the last's end */
	pp_time busy;            /* the time its pieces held the stream */
	unsigned kinds;          /* bit 1 << enum comm_kind */
	size_t n;                /* pieces */
	size_t op;               /* the op, SIZE_MAX for a hooked piece */
	enum comm_stream stream; /* where they ran */
};
typedef void report_span_fn(void *ctx, const struct report_span *sp);
/* Adds op i of device d's own pieces to acc[STREAM_COUNT] by stream, as report_op_pieces
 * places them (op and stream of acc left as they were); their busy time only when busy (without
 * it an op whose pieces a straggler stretched is not walked piece by piece). */
void report_op_spans(const struct drawing *s, int d, size_t i, bool busy,
                     struct report_span *acc);
/* Calls fn for each piece of op i of device d (streams.c): placed at the op's start plus its
 * stream shape's offsets (none when the op times were dropped). */
void report_op_pieces(const struct drawing *s, int d, size_t i, report_piece_fn *fn, void *ctx);
/*
 * report_op_spans and report_op_pieces of op i's stalls, in the same places: the spans its
 * compute waited for one of its own pieces (exposed communication), each with that piece's
 * kind. Not those of an overlapped pair's ops, nor an op's waits for hooked pieces (a first
 * forward's for its parameter gathers, a backward's for its activations coming back), nor the
 * slowdown of compute beside a piece: those are counted (result inner, the devices' exposed
 * time), not placed.
 */
void report_op_stall_spans(const struct drawing *s, int d, size_t i, struct report_span *acc);
void report_op_stalls(const struct drawing *s, int d, size_t i, report_piece_fn *fn, void *ctx);
/* Calls fn for each hooked piece of device d, in the order issued. */
void report_device_hooked(const struct drawing *s, int d, report_piece_fn *fn, void *ctx);
/* The streams (bit 1 << enum comm_stream) on which device d's pieces took time. */
unsigned report_device_streams(const struct drawing *s, int d);
/* The name of stream st, its kinds' names joined by '/' ("tp/cp"), in buf of n bytes. */
const char *report_stream_name(enum comm_stream st, char *buf, size_t n);
/* Where a picture's time axis ends: the last op's end, or its streams' when later. */
pp_time report_drawn_end(const struct result *r);

/* Shortest exact decimal of x (see pp_double_format) in a static-size buffer of the caller. */
#define REPORT_NUM(buf, x) pp_double_format((buf), sizeof(buf), (x))

#endif
