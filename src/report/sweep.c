/*
 * Sweep records as JSON lines or CSV (one record per point, the same columns in both), and the
 * ranked table for people. Columns: index and status, the shape (schedule, p, v, m and with a
 * model tp, dp, mbs, gpus), the other options that vary, the figures, the reason for a skip.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "ppsim/report.h"

#include "formats.h"
#include "table.h"

enum kind { INT, U64, NUM, TEXT, BOOL };

/* A column of a record: its key and where the record holds it. */
struct column {
	const char *key;
	enum kind kind;
	bool model_only; /* only in sweeps priced from a model */
	bool figure;     /* only known for a simulated point (null or empty when skipped) */
	size_t offset;   /* in struct sweep_record */
};

#define AT(f) offsetof(struct sweep_record, f)

static const struct column shape[] = {
        {"schedule", TEXT, false, false, AT(schedule)},
        {"p", INT, false, false, AT(p)},
        {"v", INT, false, false, AT(v)},
        {"m", INT, false, false, AT(m)},
        {"tp", INT, true, false, AT(tp)},
        {"cp", INT, true, false, AT(cp)},
        {"ep", INT, true, false, AT(ep)},
        {"dp", INT, true, false, AT(dp)},
        {"mbs", INT, true, false, AT(mbs)},
        {"gpus", INT, true, false, AT(gpus)},
};

static const struct column figures[] = {
        {"time_unit", TEXT, false, true, AT(time_unit)},
        {"makespan", NUM, false, true, AT(makespan)},
        {"bubble_ratio", NUM, false, true, AT(bubble_ratio)},
        {"bubble_ratio_theory", NUM, false, true, AT(bubble_ratio_theory)},
        {"utilization", NUM, false, true, AT(utilization)},
        {"peak_activations", NUM, false, true, AT(peak_activations)},
        {"p2p_messages", U64, false, true, AT(messages)},
        {"p2p_bytes", U64, false, true, AT(bytes)},
        {"p2p_time", NUM, false, true, AT(p2p_time)},
        {"throughput", NUM, false, true, AT(throughput)},
        {"step_time", NUM, true, true, AT(step_time)},
        {"tokens_per_s", NUM, true, true, AT(tokens_per_s)},
        {"mfu", NUM, true, true, AT(mfu)},
        {"memory_bytes", NUM, true, true, AT(memory_bytes)},
        {"fits", BOOL, true, true, AT(fits)},
};

/* With --samples, after the figures: the samples' step. */
static const struct column noise_figures[] = {
        {"step_mean", NUM, false, true, AT(step_mean)},
        {"step_p50", NUM, false, true, AT(step_p50)},
        {"step_p90", NUM, false, true, AT(step_p90)},
        {"step_p99", NUM, false, true, AT(step_p99)},
};

#define COUNT(a) (sizeof(a) / sizeof(a[0]))

/* The noise figures a sweep's records have: all with samples, else none. */
static size_t noise_columns(const struct sweep *sw)
{
	return sweep_has_samples(sw) ? COUNT(noise_figures) : 0;
}

/* A sweep shows model columns when its base or one of its axes names a model. */
static bool sweep_model(const struct sweep *sw)
{
	for (int a = 0; a < sw->naxes; a++)
		if (strcmp(sw->axes[a].opt->key, "model") == 0)
			return true;
	return config_has_model(&sw->base);
}

/* True when axis a is shown as a column of its own (it is not part of the shape). */
static bool extra_axis(const struct sweep *sw, int a)
{
	for (size_t c = 0; c < COUNT(shape); c++)
		if (strcmp(sw->axes[a].opt->key, shape[c].key) == 0)
			return false;
	return true;
}

/* True when axis a has a column in the ranked table: it is not part of the shape and varies. */
static bool table_axis(const struct sweep *sw, int a)
{
	return extra_axis(sw, a) && sw->axes[a].nvalues > 1;
}

/* Writes the value of column col of r into buf: "" when it does not apply. */
static const char *cell(char *buf, size_t n, const struct column *col, const struct sweep_record *r)
{
	const char *at = (const char *)r + col->offset;

	buf[0] = '\0';
	if (col->figure && !r->ok)
		return buf;
	switch (col->kind) {
	case INT:
		snprintf(buf, n, "%d", *(const int *)(const void *)at);
		break;
	case U64:
		snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)(const void *)at);
		break;
	case NUM:
		if (!isnan(*(const double *)(const void *)at))
			pp_double_format(buf, n, *(const double *)(const void *)at);
		break;
	case TEXT:
		snprintf(buf, n, "%s", at);
		break;
	case BOOL:
		snprintf(buf, n, "%s", *(const bool *)(const void *)at ? "true" : "false");
		break;
	}
	return buf;
}

/* Writes an option value as JSON: a number for numeric options, true/false, else a string. */
static void json_value(FILE *out, const struct config_option *opt, const char *value)
{
	switch (opt->arg) {
	case CONFIG_ARG_COUNT:
	case CONFIG_ARG_BYTES:
	case CONFIG_ARG_TIME:
	case CONFIG_ARG_RATE:
	case CONFIG_ARG_SHARE:
		fputs(value, out);
		break;
	case CONFIG_ARG_BOOL:
		fputs(strcmp(value, "yes") == 0 ? "true" : "false", out);
		break;
	default:
		report_json_text(out, value);
	}
}

/* Writes column col of r as a JSON member value. */
static void json_cell(FILE *out, const struct column *col, const struct sweep_record *r)
{
	char buf[64];

	cell(buf, sizeof(buf), col, r);
	if (buf[0] == '\0' && col->kind != TEXT)
		fputs("null", out);
	else if (col->kind == TEXT)
		report_json_text(out, buf);
	else
		fputs(buf, out);
}

int report_sweep_jsonl(FILE *out, const struct sweep *sw, const struct sweep_record *r)
{
	report_sweep_json_record(out, sw, r);
	fputc('\n', out);
	return 0;
}

void report_sweep_json_record(FILE *out, const struct sweep *sw, const struct sweep_record *r)
{
	bool model = sweep_model(sw);

	fprintf(out, "{\"schema_version\":%d,\"index\":%llu,\"status\":\"%s\"",
	        REPORT_SCHEMA_VERSION, (unsigned long long)r->index, r->ok ? "ok" : "skipped");
	for (size_t c = 0; c < COUNT(shape); c++)
		if (model || !shape[c].model_only) {
			fprintf(out, ",\"%s\":", shape[c].key);
			json_cell(out, &shape[c], r);
		}
	for (int a = 0; a < sw->naxes; a++)
		if (extra_axis(sw, a)) {
			fprintf(out, ",\"%s\":", sw->axes[a].opt->key);
			json_value(out, sw->axes[a].opt, sw->axes[a].values[sweep_value(sw, r, a)]);
		}
	for (size_t c = 0; c < COUNT(figures); c++)
		if (model || !figures[c].model_only) {
			fprintf(out, ",\"%s\":", figures[c].key);
			if (!r->ok)
				fputs("null", out);
			else
				json_cell(out, &figures[c], r);
		}
	for (size_t c = 0; c < noise_columns(sw); c++) {
		fprintf(out, ",\"%s\":", noise_figures[c].key);
		if (!r->ok)
			fputs("null", out);
		else
			json_cell(out, &noise_figures[c], r);
	}
	fputs(",\"reason\":", out);
	if (r->ok)
		fputs("null", out);
	else
		report_json_text(out, r->reason);
	fputc('}', out);
}

int report_sweep_csv_header(FILE *out, const struct sweep *sw)
{
	bool model = sweep_model(sw);

	fputs("index,status", out);
	for (size_t c = 0; c < COUNT(shape); c++)
		if (model || !shape[c].model_only)
			fprintf(out, ",%s", shape[c].key);
	for (int a = 0; a < sw->naxes; a++)
		if (extra_axis(sw, a))
			fprintf(out, ",%s", sw->axes[a].opt->key);
	for (size_t c = 0; c < COUNT(figures); c++)
		if (model || !figures[c].model_only)
			fprintf(out, ",%s", figures[c].key);
	for (size_t c = 0; c < noise_columns(sw); c++)
		fprintf(out, ",%s", noise_figures[c].key);
	fputs(",reason\n", out);
	return 0;
}

int report_sweep_csv(FILE *out, const struct sweep *sw, const struct sweep_record *r)
{
	bool model = sweep_model(sw);
	char buf[64];

	fprintf(out, "%llu,%s", (unsigned long long)r->index, r->ok ? "ok" : "skipped");
	for (size_t c = 0; c < COUNT(shape); c++)
		if (model || !shape[c].model_only)
			fprintf(out, ",%s", cell(buf, sizeof(buf), &shape[c], r));
	for (int a = 0; a < sw->naxes; a++)
		if (extra_axis(sw, a)) {
			fputc(',', out);
			report_csv_text(out, sw->axes[a].values[sweep_value(sw, r, a)]);
		}
	for (size_t c = 0; c < COUNT(figures); c++)
		if (model || !figures[c].model_only)
			fprintf(out, ",%s", cell(buf, sizeof(buf), &figures[c], r));
	for (size_t c = 0; c < noise_columns(sw); c++)
		fprintf(out, ",%s", cell(buf, sizeof(buf), &noise_figures[c], r));
	fputc(',', out);
	report_csv_text(out, r->ok ? "" : r->reason);
	fputc('\n', out);
	return 0;
}

/* Columns of the ranked table after the shape and the varying options. */
struct table_column {
	const char *name;
	int model;     /* with a model (1) or without (0); 2: with samples, either way */
	int digits;    /* significant digits */
	size_t offset; /* of the double it shows, in struct sweep_record */
	double unit;   /* what it is divided by to print */
};

static const struct table_column table_columns[] = {
        {"makespan", false, 6, AT(makespan), 1},
        {"step_time", true, 6, AT(step_time), 1},
        {"bubble", false, 4, AT(bubble_ratio), 1},
        {"bubble", true, 4, AT(bubble_ratio), 1},
        {"theory", false, 4, AT(bubble_ratio_theory), 1},
        {"utilization", false, 4, AT(utilization), 1},
        {"throughput", false, 4, AT(throughput), 1},
        {"tokens/s", true, 6, AT(throughput), 1},
        {"mfu", true, 4, AT(mfu), 1},
        {"peak_act", false, 4, AT(peak_activations), 1},
        {"memory_GB", true, 4, AT(memory_bytes), 1e9},
        {"p2p_time", false, 4, AT(p2p_time), 1},
        {"p2p_time", true, 4, AT(p2p_time), 1},
        {"step_mean", 2, 6, AT(step_mean), 1},
        {"step_p99", 2, 6, AT(step_p99), 1},
};

/* The text of a figure column of row r into buf, "-" where it does not apply. */
static const char *table_cell(char *buf, size_t n, const struct table_column *col,
                              const struct sweep_record *r)
{
	double x = *(const double *)(const void *)((const char *)r + col->offset) / col->unit;

	if (isnan(x))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.*g", col->digits, x);
	return buf;
}

/* The ranked table's columns: the rank, then shape[], the axes, table_columns[] by number
 * from these bases, then whether the point fits. */
enum { RANK = -2, FITS = -1, SHAPE = 0, AXIS = 100, FIGURE = 200 };

/* The statistics --rank-by names, by enum pp_rank_by. */
static const char *const rank_names[] = {"step", "mean step", "p50 step", "p90 step", "p99 step"};

/* What the cells of the ranked table come from. */
struct ranked {
	const struct sweep *sw;
	const struct sweep_record *rows;
};

static const char *ranked_cell(const void *ctx, int row, int id, char *buf, size_t n)
{
	const struct ranked *t = ctx;
	const struct sweep_record *r = row < 0 ? NULL : &t->rows[row];
	/* the cells of shape[] and the figures were cut to 63 bytes when they were first tabled */
	size_t cut = n < 64 ? n : 64;

	if (id == RANK && r == NULL)
		return "rank";
	if (id == RANK)
		snprintf(buf, n, "%d", row + 1);
	else if (id == FITS)
		return r == NULL ? "fits" : r->fits ? "yes" : "OOM";
	else if (id >= FIGURE)
		return r ? table_cell(buf, cut, &table_columns[id - FIGURE], r)
		         : table_columns[id - FIGURE].name;
	else if (id >= AXIS)
		return r ? t->sw->axes[id - AXIS].values[sweep_value(t->sw, r, id - AXIS)]
		         : t->sw->axes[id - AXIS].opt->key;
	else
		return r ? cell(buf, cut, &shape[id], r) : shape[id].key;
	return buf;
}

int report_sweep_table(FILE *out, const struct sweep *sw, const struct sweep_record *rows, int n,
                       const struct sweep_totals *t)
{
	bool model = sweep_model(sw);
	struct report_column cols[2 + COUNT(shape) + SWEEP_MAX_AXES + COUNT(table_columns)];
	struct ranked table = {sw, rows};
	int k = 0;

	/* the points over GPU memory are skipped with --fits, else simulated and ranked last */
	fprintf(out, "%llu point%s: %llu simulated", (unsigned long long)t->points,
	        t->points == 1 ? "" : "s", (unsigned long long)t->simulated);
	if (t->over_memory > 0 && !sw->require_fit)
		fprintf(out, " (%llu over GPU memory)", (unsigned long long)t->over_memory);
	fprintf(out, ", %llu skipped", (unsigned long long)t->skipped);
	if (t->over_memory > 0 && sw->require_fit)
		fprintf(out, " (%llu over GPU memory)", (unsigned long long)t->over_memory);
	fputc('\n', out);
	if (t->skipped > 0)
		fprintf(out, "first skipped: point %llu, %s\n", (unsigned long long)t->first_skipped,
		        t->first_reason);
	if (n == 0) {
		/* a shard of fewer points than shards may hold none: nothing failed */
		fputs(t->points == 0 ? "this shard holds none of the sweep's points\n"
		                     : "no point could be simulated; --format=jsonl gives every "
		                       "point's reason\n",
		      out);
		return 0;
	}
	fprintf(out, "best %d by %s%s%s, in %s:\n\n", n,
	        model ? "tokens/s (fitting GPU memory first)" : "utilization",
	        sw->rank_by != PP_RANK_STEP ? " at the samples' " : "",
	        sw->rank_by != PP_RANK_STEP ? rank_names[sw->rank_by] : "", rows[0].time_unit);
	/* the rank is at least 4 wide, each other column as wide as its widest cell */
	cols[k++] = (struct report_column){RANK, 4, false, false};
	for (size_t c = 0; c < COUNT(shape); c++)
		if (model || !shape[c].model_only)
			cols[k++] = (struct report_column){SHAPE + (int)c, 0, true, c == 0};
	for (int a = 0; a < sw->naxes; a++)
		if (table_axis(sw, a))
			cols[k++] = (struct report_column){AXIS + a, 0, true, false};
	for (size_t c = 0; c < COUNT(table_columns); c++)
		if (table_columns[c].model == (int)model ||
		    (table_columns[c].model == 2 && sweep_has_samples(sw)))
			cols[k++] = (struct report_column){FIGURE + (int)c, 0, true, false};
	if (model)
		cols[k++] = (struct report_column){FITS, 0, false, false};
	report_table_write(out, "  ", cols, k, n, ranked_cell, &table);
	return 0;
}
