/*
 * The format registry: every --format name with its writer for each kind of result (a run, a
 * comparison, a sweep, advice, a break-even table, a serving run, serving runs compared, the
 * listing of `ppsim list`, a validated schedule file), and the quoting the writers share. Commands look writers up here
 * by (name, kind), so a format row that lacks a kind is refused by the commands writing that
 * kind instead of falling back to text; no other file compares format names.
 */
#include "ppsim/report.h"

#include <stdio.h>
#include <string.h>

#include "base/json_text.h"
#include "formats.h"

/*
 * A row is a format and the kinds of result it writes; a name may have a row per group of kinds
 * (csv), so that each kind lists its formats in row order. The formats that write a run report
 * come first: report_formats returns them.
 */
static const struct report_format formats[] = {
        {
                .name = "text",
                .summary = "aligned report for people (default)",
                .human = true,
                /* the critical path is walked over the op times */
                .need = {.reads = REPORT_READS_TIMES},
                .write = report_text_write,
                .compare = report_compare_text,
                .sweep_table = report_sweep_table,
                .advice = report_advice_text,
                .breakeven = report_breakeven_text,
                .serve = report_serve_text,
                .serve_compare = report_serve_compare_text,
                .list = report_list_text,
                .validation = report_validation_text,
                .replay = report_replay_text,
                .partition = report_partition_text,
        },
        {
                .name = "json",
                .summary = "one JSON object with every figure (keys in docs/output.md)",
                .need = {.reads = REPORT_READS_TIMES},
                .write = report_json_write,
                .compare = report_compare_json,
                .advice = report_advice_json,
                .breakeven = report_breakeven_json,
                .serve = report_serve_json,
                .serve_compare = report_serve_compare_json,
                .list = report_list_json,
                .validation = report_validation_json,
                .replay = report_replay_json,
                .partition = report_partition_json,
        },
        {
                .name = "csv",
                .summary = "a header and one row of figures per simulation",
                .write = report_csv_write,
                .compare = report_compare_csv,
                .serve = report_serve_csv,
                .serve_compare = report_serve_compare_csv,
        },
        /* a sweep lists its formats in this order: text, jsonl, csv */
        {
                .name = "jsonl",
                .summary = "one JSON object per line, per sweep point",
                .mistaken_for = "json",
                .title = "JSON lines",
                .sweep_record = report_sweep_jsonl,
        },
        {
                .name = "csv",
                .summary = "a header and one row per sweep point",
                .sweep_header = report_sweep_csv_header,
                .sweep_record = report_sweep_csv,
        },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/*
 * The outputs besides the report, indexed by enum report_output, with what each writer needs
 * (docs/robustness.md, Limits, gives what each holds, as measured). The fewest bytes count the
 * fixed text of an entry, each number in it at one digit, the numbers of `digits` apart: an
 * op dump's row "0,0,0,F,0,0,1\n" is 10 bytes and its device, chunk, stage, micro-batch and
 * times.
 */
static const struct report_output_row outputs[] = {
        [REPORT_OUT_TRACE] =
                {"Chrome trace",
                 /* an op's slice and counter events; a message's slice and two flow events
                  * (261 bytes at their shortest) */
                 {.reads = REPORT_READS_MESSAGES | REPORT_READS_SLACK,
                  .file_op = 200,
                  .file_msg = 250}},
        [REPORT_OUT_TRACE_GZ] =
                {"Chrome trace as gzip",
                 /* set under the least measured (13 bytes an op, 26 a message): how far zlib
                  * compresses depends on the run more than the JSON does */
                 {.reads = REPORT_READS_MESSAGES | REPORT_READS_SLACK,
                  .file_op = 11,
                  .file_msg = 16}},
        /* a serving run's has no slack column: its bytes are not counted */
        [REPORT_OUT_OPS] = {"op dump",
                            {.reads = REPORT_READS_TIMES | REPORT_READS_SLACK,
                             .file_op = 10,
                             .digits = REPORT_DIGITS_DEVICE | REPORT_DIGITS_CHUNK |
                                       REPORT_DIGITS_STAGE | REPORT_DIGITS_MB |
                                       REPORT_DIGITS_TIMES}},
        /* every export reads back (validate): what that takes is counted too */
        [REPORT_OUT_EXPORT + SCHEDFILE_PPSIM] =
                {"schedule in ppsim's CSV",
                 {.file_op = 6,
                  .digits = REPORT_DIGITS_DEVICE | REPORT_DIGITS_CHUNK | REPORT_DIGITS_STAGE |
                            REPORT_DIGITS_MB,
                  .read_op = SCHEDFILE_READ_OP}},
        /* an action "0F3" and its comma; compute_comms adds each message's SEND and RECV, and
         * holds 4 bytes an action and a RECV while it orders them (and a byte a cell) */
        [REPORT_OUT_EXPORT + SCHEDFILE_TORCH] =
                {"schedule in PyTorch's CSV",
                 {.file_op = 2,
                  .digits = REPORT_DIGITS_STAGE | REPORT_DIGITS_MB,
                  .read_op = SCHEDFILE_READ_OP}},
        [REPORT_OUT_EXPORT + SCHEDFILE_TORCH_COMMS] =
                {"schedule in PyTorch's compute_comms CSV",
                 {.mem_op = 5,
                  .mem_msg = 4,
                  .file_op = 2,
                  .file_msg = 18,
                  .digits = REPORT_DIGITS_STAGE | REPORT_DIGITS_MB,
                  .read_op = SCHEDFILE_READ_OP,
                  .read_msg = 2 * SCHEDFILE_READ_ACTION}},
        /* shapes too narrow to see are merged: its size follows its pixels; each device's
         * transfers indexed in 4 bytes a message */
        [REPORT_OUT_SVG] = {"SVG chart", {.reads = REPORT_READS_MESSAGES, .mem_msg = 4}},
        /* per op six numbers, per message four, each after a comma (a training run's slacks
         * besides, not counted: a serving run has none) */
        [REPORT_OUT_HTML] = {"HTML report",
                             {.reads = REPORT_READS_MESSAGES | REPORT_READS_SLACK,
                              .file_op = 10,
                              .file_msg = 6,
                              .digits = REPORT_DIGITS_STAGE | REPORT_DIGITS_MB |
                                        REPORT_DIGITS_MSG_OPS}},
        /* as wide as asked, whatever the ops */
        [REPORT_OUT_TIMELINE] = {"timeline", {.reads = REPORT_READS_TIMES}},
        /* a line per request, of which a run has at most PP_MAX_REQUESTS */
        [REPORT_OUT_REQUESTS] = {"requests as served", {0}},
        /* a line per sample, of which a run has at most ten million */
        [REPORT_OUT_SAMPLES] = {"noise samples", {0}},
        /* an op's slice begun and ended (its annotations, its name interned) and its counter
         * sample; a message's slice begun and ended and its flow's two ids; set a little
         * under the least measured (the run's smallest numbers: 72 and 96 bytes fit every
         * schedule and shape with 12% to spare). It holds each op's two flow ids and, per
         * kind, chunk and micro-batch, the id of its name: 8 bytes an op, and 16 a
         * micro-batch of each chunk, at most 8 an op */
        [REPORT_OUT_PFTRACE] = {"Perfetto trace",
                                {.reads = REPORT_READS_MESSAGES | REPORT_READS_SLACK,
                                 .mem_op = 16,
                                 .file_op = 72,
                                 .file_msg = 96}},
        /* set under the least measured, as the JSON's gzip */
        [REPORT_OUT_PFTRACE_GZ] = {"Perfetto trace as gzip",
                                   {.reads = REPORT_READS_MESSAGES | REPORT_READS_SLACK,
                                    .mem_op = 16,
                                    .file_op = 8,
                                    .file_msg = 10}},
};

_Static_assert(sizeof(outputs) / sizeof(outputs[0]) == REPORT_NOUTPUTS,
               "a row for every output");

const struct report_output_row *report_output(enum report_output o)
{
	return &outputs[o];
}

/* a + b, or UINT64_MAX when it does not fit. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return pp_add_u64(a, b, &a) ? a : UINT64_MAX;
}

/* a * b, or UINT64_MAX when it does not fit. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return pp_mul_u64(a, b, &a) ? a : UINT64_MAX;
}

/* The digits of the numbers 0 .. n-1 written in decimal, together. */
static uint64_t digits_below(uint64_t n)
{
	uint64_t sum = 0, from = 0, to = 10;

	for (uint64_t width = 1; from < n; width++, from = to, to = mul_sat(to, 10))
		sum = add_sat(sum, mul_sat((to < n ? to : n) - from, width));
	return sum;
}

/* The fewest characters n distinct strings over an alphabet of k symbols take together. */
static uint64_t strings_of(uint64_t n, uint64_t k)
{
	uint64_t sum = 0, left = n, count = k;

	for (uint64_t width = 1; left > 0; width++, count = mul_sat(count, k)) {
		uint64_t here = count < left ? count : left;

		sum = add_sat(sum, mul_sat(here, width));
		left -= here;
	}
	return sum;
}

uint64_t report_need_memory(const struct report_need *n, const struct sim_size *z)
{
	return add_sat(mul_sat(n->mem_op, z->ops), mul_sat(n->mem_msg, z->msgs));
}

uint64_t report_need_bytes(const struct report_need *n, const struct sim_size *z)
{
	uint64_t bytes = add_sat(mul_sat(n->file_op, z->ops), mul_sat(n->file_msg, z->msgs));
	uint64_t p = (uint64_t)z->p, v = (uint64_t)z->v, m = (uint64_t)z->m;
	/* with routes, each stage runs m / routes micro-batches and each micro-batch visits
	 * S / routes stages: every count below is a routes-th of the grid's */
	uint64_t routes = z->routes > 1 ? (uint64_t)z->routes : 1;
	uint64_t S = mul_sat(p, v), cells = mul_sat(S, m) / routes;
	/* each (micro-batch, stage) it visits holds an F and a backward at least, each a row */
	uint64_t kinds = cells > 0 && z->ops / cells >= 2 ? 2 : 0;
	/* a device's starts, and its ends, are distinct but for a pair's two when every op takes
	 * time: strings of digits, '.', 'e', '+' and '-' (pp_double_format) */
	uint64_t per_device = p > 0 && z->timed ? z->ops / p / 2 : 0;
	/* the numbers of `digits`: each stage's micro-batches, each micro-batch's stages, each
	 * stage's device (v stages a device) and chunk (p stages a chunk) */
	const struct {
		unsigned bit;
		uint64_t digits, times;
	} numbers[] = {
	        {REPORT_DIGITS_MB, digits_below(m), mul_sat(kinds, S) / routes},
	        {REPORT_DIGITS_STAGE, digits_below(S), mul_sat(kinds, m) / routes},
	        {REPORT_DIGITS_DEVICE, digits_below(p), mul_sat(kinds, mul_sat(m, v)) / routes},
	        {REPORT_DIGITS_CHUNK, digits_below(v), mul_sat(kinds, mul_sat(m, p)) / routes},
	        {REPORT_DIGITS_TIMES, strings_of(per_device, 16), mul_sat(2, p)},
	        /* a message's producer, and its consumer: distinct ops each */
	        {REPORT_DIGITS_MSG_OPS, digits_below(z->msgs), 2},
	};

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (n->digits & numbers[i].bit)
			bytes = add_sat(bytes, mul_sat(numbers[i].digits, numbers[i].times));
	return bytes;
}

bool report_format_writes(const struct report_format *f, enum report_kind kind)
{
	switch (kind) {
	case REPORT_RUN:
		return f->write != NULL;
	case REPORT_COMPARE:
		return f->compare != NULL;
	case REPORT_SWEEP:
		return f->sweep_table != NULL || f->sweep_record != NULL;
	case REPORT_ADVICE:
		return f->advice != NULL;
	case REPORT_BREAKEVEN:
		return f->breakeven != NULL;
	case REPORT_SERVE:
		return f->serve != NULL;
	case REPORT_SERVE_COMPARE:
		return f->serve_compare != NULL;
	case REPORT_LIST:
		return f->list != NULL;
	case REPORT_VALIDATION:
		return f->validation != NULL;
	case REPORT_REPLAY:
		return f->replay != NULL;
	case REPORT_PARTITION:
		return f->partition != NULL;
	}
	return false;
}

const struct report_format *report_formats(size_t *count)
{
	size_t n = 0;

	while (n < NFORMATS && formats[n].write != NULL)
		n++;
	*count = n;
	return formats;
}

const struct report_format *report_format_find_if(const char *name,
                                                  bool (*takes)(const struct report_format *f,
                                                                const void *ctx),
                                                  const void *ctx)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i].name, name) == 0 && takes(&formats[i], ctx))
			return &formats[i];
	return NULL;
}

/* report_format_find_if's takes for the formats that write *(const enum report_kind *)kind. */
static bool writes_kind(const struct report_format *f, const void *kind)
{
	return report_format_writes(f, *(const enum report_kind *)kind);
}

const struct report_format *report_format_find(const char *name, enum report_kind kind)
{
	return report_format_find_if(name, writes_kind, &kind);
}

const struct report_format *report_find(const char *name)
{
	return report_format_find(name, REPORT_RUN);
}

char *report_format_names(enum report_kind kind, const char *sep, const char *last, char *buf,
                          size_t n)
{
	return report_format_names_if(writes_kind, &kind, sep, last, buf, n);
}

/* Whether takes(formats[i], ctx) holds and holds for no earlier format of its name (rows of
 * one name write different kinds: a list of several kinds' formats names each once). */
static bool takes_first(bool (*takes)(const struct report_format *f, const void *ctx),
                        const void *ctx, size_t i)
{
	if (!takes(&formats[i], ctx))
		return false;
	for (size_t k = 0; k < i; k++)
		if (strcmp(formats[k].name, formats[i].name) == 0 && takes(&formats[k], ctx))
			return false;
	return true;
}

char *report_format_names_if(bool (*takes)(const struct report_format *f, const void *ctx),
                             const void *ctx, const char *sep, const char *last, char *buf,
                             size_t n)
{
	size_t len = 0, total = 0, k = 0;

	for (size_t i = 0; i < NFORMATS; i++)
		total += takes_first(takes, ctx, i);
	buf[0] = '\0';
	for (size_t i = 0; i < NFORMATS && len < n; i++) {
		if (!takes_first(takes, ctx, i))
			continue;
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
		                        k == 0                           ? ""
		                        : k + 1 == total && last != NULL ? last
		                                                         : sep,
		                        formats[i].name);
		k++;
	}
	return buf;
}

const char *report_format_hint(const char *name, enum report_kind kind, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].mistaken_for != NULL && strcmp(formats[i].mistaken_for, name) == 0 &&
		    report_format_writes(&formats[i], kind))
			snprintf(buf, n, " (%s: %s)", formats[i].title, formats[i].name);
	return buf;
}

const struct report_format *report_records_format(const char *path)
{
	size_t n = strlen(path);

	/* a record file is named for its format: "points.csv"; anything else gets JSON lines */
	return report_format_find(n >= 4 && strcmp(path + n - 4, ".csv") == 0 ? "csv" : "jsonl",
	                          REPORT_SWEEP);
}

void report_msg_devices(const struct drawing *s, const struct msg_record *g, int *src, int *dst)
{
	const struct op *from = &s->sched->ops[g->from];

	/* a forward goes to the next stage, a gradient to the one before: the consumer's device
	 * without reading the consumer, which lies far from its producer among the ops */
	*src = (int)s->sched->stage_device[from->stage];
	*dst = (int)s->sched->stage_device[from->kind == OP_F ? from->stage + 1 : from->stage - 1];
}

/* A JSON string literal of text; in a script, '<' escaped too so that no "</script>" ends it. */
/* Writes the character at p, past ASCII: itself when it is well-formed UTF-8, else stray (the
 * writer's U+FFFD: JSON and XML are Unicode). Returns the bytes it took. */
static size_t put_wide(FILE *out, const unsigned char *p, const char *stray)
{
	size_t n = json_utf8_len(p);

	if (n == 0) {
		fputs(stray, out);
		return 1;
	}
	fwrite(p, 1, n, out);
	return n;
}

static void json_text(FILE *out, const char *text, bool script)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)text; *p;) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p++);
		else if (*p < 0x20 || (script && *p == '<'))
			fprintf(out, "\\u%04x", *p++);
		else if (*p < 0x80)
			fputc(*p++, out);
		else
			p += put_wide(out, p, "\\ufffd");
	}
	fputc('"', out);
}

void report_json_text(FILE *out, const char *text)
{
	json_text(out, text, false);
}

void report_script_text(FILE *out, const char *text)
{
	json_text(out, text, true);
}

void report_xml_text(FILE *out, const char *text)
{
	static const char *const entity[] = {
	        ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;"};

	for (const unsigned char *p = (const unsigned char *)text; *p;) {
		if (*p < sizeof(entity) / sizeof(entity[0]) && entity[*p] != NULL) {
			fputs(entity[*p++], out);
		} else if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') {
			fputs("\xEF\xBF\xBD", out); /* XML 1.0 has no other control character */
			p++;
		} else if (*p < 0x80) {
			fputc(*p++, out);
		} else {
			p += put_wide(out, p, "\xEF\xBF\xBD");
		}
	}
}

/* Each op kind's letter (PyTorch's: one meaning in every schedule) and legend entry. */
static const struct {
	char letter;
	const char *legend;
} kinds[] = {
        [OP_F] = {'F', "F forward"},
        [OP_B] = {'I', "I input-gradient backward"},
        [OP_W] = {'W', "W weight-gradient backward"},
        [OP_BW] = {'B', "B full backward (input and weight gradient)"},
};

char report_kind_letter(enum op_kind kind)
{
	return kinds[kind & 3].letter;
}

const char *report_kind_legend(enum op_kind kind)
{
	return kinds[kind & 3].legend;
}

const char *report_kind_summary(enum op_kind kind)
{
	return kinds[kind & 3].legend + 2;
}

void report_csv_text(FILE *out, const char *text)
{
	if (strpbrk(text, ",\"\n\r") == NULL) {
		fputs(text, out);
		return;
	}
	fputc('"', out);
	for (const char *p = text; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}
