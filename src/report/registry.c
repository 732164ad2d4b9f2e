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
                .write = report_text_write,
                .compare = report_compare_text,
                .sweep_table = report_sweep_table,
                .advice = report_advice_text,
                .breakeven = report_breakeven_text,
                .serve = report_serve_text,
                .serve_compare = report_serve_compare_text,
                .list = report_list_text,
                .validation = report_validation_text,
        },
        {
                .name = "json",
                .summary = "one JSON object with every figure (keys in docs/output.md)",
                .write = report_json_write,
                .compare = report_compare_json,
                .advice = report_advice_json,
                .breakeven = report_breakeven_json,
                .serve = report_serve_json,
                .serve_compare = report_serve_compare_json,
                .list = report_list_json,
                .validation = report_validation_json,
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

const struct report_format *report_format_find(const char *name, enum report_kind kind)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i].name, name) == 0 && report_format_writes(&formats[i], kind))
			return &formats[i];
	return NULL;
}

const struct report_format *report_find(const char *name)
{
	return report_format_find(name, REPORT_RUN);
}

char *report_format_names(enum report_kind kind, const char *sep, const char *last, char *buf,
                          size_t n)
{
	size_t len = 0, total = 0, k = 0;

	for (size_t i = 0; i < NFORMATS; i++)
		total += report_format_writes(&formats[i], kind);
	buf[0] = '\0';
	for (size_t i = 0; i < NFORMATS && len < n; i++) {
		if (!report_format_writes(&formats[i], kind))
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

void report_msg_devices(const struct sim *s, const struct msg_record *g, int *src, int *dst)
{
	*src = (int)s->sched->stage_device[s->sched->ops[g->from].stage];
	*dst = (int)s->sched->stage_device[s->sched->ops[g->to].stage];
}

/* A JSON string literal of text; in a script, '<' escaped too so that no "</script>" ends it. */
static void json_text(FILE *out, const char *text, bool script)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || (script && *p == '<'))
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
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

	for (; *text; text++) {
		unsigned char ch = (unsigned char)*text;

		if (ch < sizeof(entity) / sizeof(entity[0]) && entity[ch] != NULL)
			fputs(entity[ch], out);
		else
			fputc(ch, out);
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
