/*
 * Side-by-side reports: a text table with the best value of each column marked, a JSON array of
 * the single-run objects, and CSV (which is also the single-run CSV, with one row). Each row
 * also gets its speed-up against the first: the first row's step time over its own.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "formats.h"
#include "ppsim/samples.h"
#include "table.h"

/* Which way a column improves. */
enum better { BETTER_NONE, BETTER_LOW, BETTER_HIGH };

/* How a column's value prints. */
enum shape { SHAPE_INT, SHAPE_NUM, SHAPE_RATIO, SHAPE_RATE, SHAPE_FITS };

/* A numeric column of the comparison. */
struct column {
	const char *name;   /* header and CSV field */
	enum better better; /* marked best in text */
	enum shape shape;   /* print form */
	unsigned only;      /* ONLY_* bit: shown in text only when some row has it */
	double (*get)(const struct report_row *rows, int i);
};

/* What some columns need of some row to be shown in text. */
enum { ONLY_MODEL = 1, ONLY_SAMPLES = 2, ONLY_RANK = 4 };

static const struct metrics *met(const struct report_row *rows, int i)
{
	return &rows[i].sim->metrics;
}

/* The time a step takes: with its communication and optimizer step when there is a model. */
static double step(const struct report_row *rows, int i)
{
	return met(rows, i)->has_model ? met(rows, i)->step_time : met(rows, i)->makespan;
}

static double get_p(const struct report_row *r, int i)
{
	return r[i].sim->sched->p;
}

static double get_v(const struct report_row *r, int i)
{
	return r[i].sim->sched->v;
}

static double get_m(const struct report_row *r, int i)
{
	return r[i].sim->sched->m;
}

static double get_makespan(const struct report_row *r, int i)
{
	return met(r, i)->makespan;
}

static double get_bubble(const struct report_row *r, int i)
{
	return met(r, i)->bubble_ratio;
}

static double get_theory(const struct report_row *r, int i)
{
	return met(r, i)->bubble_ratio_theory;
}

static double get_utilization(const struct report_row *r, int i)
{
	return met(r, i)->utilization;
}

static double get_peak(const struct report_row *r, int i)
{
	double top = 0;

	for (int d = 0; d < met(r, i)->p; d++)
		if (met(r, i)->devices[d].peak_activations > top)
			top = met(r, i)->devices[d].peak_activations;
	return top;
}

static double get_messages(const struct report_row *r, int i)
{
	return (double)met(r, i)->messages;
}

static double get_bytes(const struct report_row *r, int i)
{
	return (double)met(r, i)->bytes;
}

static double get_step(const struct report_row *r, int i)
{
	return met(r, i)->has_model ? met(r, i)->step_time : NAN;
}

static double get_tokens(const struct report_row *r, int i)
{
	return met(r, i)->has_model ? met(r, i)->tokens_per_s : NAN;
}

static double get_mfu(const struct report_row *r, int i)
{
	return met(r, i)->has_model ? met(r, i)->mfu : NAN;
}

static double get_memory(const struct report_row *r, int i)
{
	double top = 0;

	if (!met(r, i)->has_model)
		return NAN;
	for (int d = 0; d < met(r, i)->p; d++)
		if (met(r, i)->devices[d].memory_bytes > top)
			top = met(r, i)->devices[d].memory_bytes;
	return top;
}

static double get_fits(const struct report_row *r, int i)
{
	return met(r, i)->has_model ? !met(r, i)->oom : NAN;
}

/* With a model, the row's tokens/s over the first row's (rows of another global batch do other
 * work a step); else the first row's makespan over the row's. */
static double get_speedup(const struct report_row *r, int i)
{
	if (met(r, i)->has_model && met(r, 0)->has_model)
		return get_tokens(r, 0) > 0 ? get_tokens(r, i) / get_tokens(r, 0) : NAN;
	return step(r, i) > 0 ? step(r, 0) / step(r, i) : NAN;
}

/* The figure at offset at of row i's samples' step figures (struct sample_stats), NaN
 * without samples. */
static double sample_step_at(const struct report_row *r, int i, size_t at)
{
	const struct sim *s = r[i].sim;
	struct sample_stats x;

	if (s->samples == NULL || s->samples->n == 0 || samples_stats(s->samples, true, &x) != 0)
		return NAN;
	return *(const double *)(const void *)((const char *)&x + at);
}

static double get_step_mean(const struct report_row *r, int i)
{
	return sample_step_at(r, i, offsetof(struct sample_stats, mean));
}

static double get_step_p50(const struct report_row *r, int i)
{
	return sample_step_at(r, i, offsetof(struct sample_stats, p50));
}

static double get_step_p90(const struct report_row *r, int i)
{
	return sample_step_at(r, i, offsetof(struct sample_stats, p90));
}

static double get_step_p99(const struct report_row *r, int i)
{
	return sample_step_at(r, i, offsetof(struct sample_stats, p99));
}

static double get_rank(const struct report_row *r, int i)
{
	return r[i].rank > 0 ? r[i].rank : NAN;
}

static const struct column columns[] = {
        {"p", BETTER_NONE, SHAPE_INT, 0, get_p},
        {"v", BETTER_NONE, SHAPE_INT, 0, get_v},
        {"m", BETTER_NONE, SHAPE_INT, 0, get_m},
        {"makespan", BETTER_LOW, SHAPE_NUM, 0, get_makespan},
        {"bubble_ratio", BETTER_LOW, SHAPE_RATIO, 0, get_bubble},
        {"bubble_ratio_theory", BETTER_NONE, SHAPE_RATIO, 0, get_theory},
        {"utilization", BETTER_HIGH, SHAPE_RATIO, 0, get_utilization},
        {"peak_activations", BETTER_LOW, SHAPE_NUM, 0, get_peak},
        {"p2p_messages", BETTER_LOW, SHAPE_INT, 0, get_messages},
        {"p2p_bytes", BETTER_LOW, SHAPE_INT, 0, get_bytes},
        {"step_time", BETTER_LOW, SHAPE_NUM, ONLY_MODEL, get_step},
        {"tokens_per_s", BETTER_HIGH, SHAPE_RATE, ONLY_MODEL, get_tokens},
        {"mfu", BETTER_HIGH, SHAPE_RATIO, ONLY_MODEL, get_mfu},
        {"memory_bytes", BETTER_LOW, SHAPE_INT, ONLY_MODEL, get_memory},
        {"fits", BETTER_NONE, SHAPE_FITS, ONLY_MODEL, get_fits},
        {"speedup", BETTER_HIGH, SHAPE_RATIO, 0, get_speedup},
        {"step_mean", BETTER_LOW, SHAPE_RATE, ONLY_SAMPLES, get_step_mean},
        {"step_p50", BETTER_LOW, SHAPE_RATE, ONLY_SAMPLES, get_step_p50},
        {"step_p90", BETTER_LOW, SHAPE_RATE, ONLY_SAMPLES, get_step_p90},
        {"step_p99", BETTER_LOW, SHAPE_RATE, ONLY_SAMPLES, get_step_p99},
        {"rank", BETTER_LOW, SHAPE_INT, ONLY_RANK, get_rank},
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

/* The ONLY_* bits some row of rows has. */
static unsigned shown(const struct report_row *rows, int n)
{
	unsigned has = 0;

	for (int i = 0; i < n; i++) {
		has |= met(rows, i)->has_model ? ONLY_MODEL : 0;
		has |= rows[i].sim->samples != NULL ? ONLY_SAMPLES : 0;
		has |= rows[i].rank > 0 ? ONLY_RANK : 0;
	}
	return has;
}

/* Writes a value as its column prints it; exact is for CSV (shortest exact decimals). */
static char *cell(char *buf, size_t n, const struct column *col, double x, bool exact)
{
	if (isnan(x))
		snprintf(buf, n, "%s", exact ? "" : "-");
	else if (col->shape == SHAPE_FITS)
		snprintf(buf, n, "%s", x > 0 ? "yes" : "OOM");
	else if (col->shape == SHAPE_INT)
		snprintf(buf, n, "%.0f", x);
	else if (col->shape == SHAPE_RATIO && !exact)
		snprintf(buf, n, "%.4f", x);
	else if (col->shape == SHAPE_RATE && !exact)
		snprintf(buf, n, "%.6g", x);
	else
		pp_double_format(buf, n, x);
	return buf;
}

/* Whether row i runs within GPU memory (a row without a model does). */
static bool row_fits(const struct report_row *rows, int i)
{
	return !met(rows, i)->has_model || !met(rows, i)->oom;
}

/* Whether row i holds the best value of col (ties are all best) among the rows that fit GPU
 * memory, as sweep and advise rank them: a row over memory is best of none while one fits. */
static bool is_best(const struct column *col, const struct report_row *rows, int n, int i)
{
	double x = col->get(rows, i);
	bool any_fits = false;

	for (int j = 0; j < n; j++)
		any_fits |= row_fits(rows, j);
	if (col->better == BETTER_NONE || isnan(x) || n < 2 || (any_fits && !row_fits(rows, i)))
		return false;
	for (int j = 0; j < n; j++) {
		double y = col->get(rows, j);

		if (!isnan(y) && (!any_fits || row_fits(rows, j)) &&
		    (col->better == BETTER_LOW ? y < x : y > x))
			return false;
	}
	return true;
}

/* The rows of a text table. */
struct text_rows {
	const struct report_row *rows;
	int n;
};

/* Table column -2 is the label, -1 the schedule, c >= 0 columns[c], its value marked "*" in
 * the row that holds the column's best. */
static const char *text_cell(const void *ctx, int row, int id, char *buf, size_t n)
{
	const struct text_rows *t = ctx;
	const struct column *col = &columns[id < 0 ? 0 : id];

	if (id < 0 && row < 0)
		return id == -2 ? "config" : "schedule";
	if (id < 0)
		return id == -2 ? t->rows[row].label : t->rows[row].sim->config.schedule;
	if (row < 0)
		return col->name;
	cell(buf, n - 1, col, col->get(t->rows, row), false);
	strcat(buf, is_best(col, t->rows, t->n, row) ? "*" : " ");
	return buf;
}

int report_compare_units(const char *first, const char *unit, struct pp_error *err)
{
	if (strcmp(first, unit) == 0)
		return 0;
	return pp_fail(err, PP_ERR_USAGE,
	               "compare: rows mix time units ('%s' and '%s'); give every row a model, or "
	               "a link, or neither",
	               first, unit);
}

int report_compare_text(FILE *out, const struct report_row *rows, int n)
{
	unsigned has = shown(rows, n);
	bool model = has & ONLY_MODEL, all_model = true;

	for (int i = 0; i < n; i++)
		all_model = all_model && met(rows, i)->has_model;
	struct report_column cols[2 + NCOLUMNS] = {{-2, 0, true, true}, {-1, 0, true, true}};
	struct text_rows t = {rows, n};
	int ncols = 2;

	for (size_t c = 0; c < NCOLUMNS; c++)
		if ((columns[c].only & ~has) == 0)
			cols[ncols++] = (struct report_column){(int)c, 0, true, false};
	report_table_write(out, "  ", cols, ncols, n, text_cell, &t);
	fprintf(out, "\n* best in its column%s; times in %s; speedup = %s%s\n",
	        model ? ", of the rows that fit GPU memory when any does" : "",
	        rows[0].sim->cost->time_unit,
	        all_model ? "row's tokens_per_s / first row's"
	        : model   ? "with a model on both rows, row's tokens_per_s / first row's; else first "
	                    "row's step_time or makespan / row's"
	                  : "first row's makespan / row's",
	        has & ONLY_SAMPLES ? "; step_* over the noise samples" : "");
	return 0;
}

int report_compare_csv(FILE *out, const struct report_row *rows, int n)
{
	char buf[64];

	fputs("config,schedule", out);
	for (size_t c = 0; c < NCOLUMNS; c++)
		fprintf(out, ",%s", columns[c].name);
	fputc('\n', out);
	for (int i = 0; i < n; i++) {
		report_csv_text(out, rows[i].label);
		fprintf(out, ",%s", rows[i].sim->config.schedule);
		for (size_t c = 0; c < NCOLUMNS; c++)
			fprintf(out, ",%s",
			        cell(buf, sizeof(buf), &columns[c], columns[c].get(rows, i), true));
		fputc('\n', out);
	}
	return 0;
}

int report_csv_write(FILE *out, const struct sim *s)
{
	struct report_row row = {"-", s, 0};

	return report_compare_csv(out, &row, 1);
}

int report_compare_json(FILE *out, const struct report_row *rows, int n)
{
	cJSON *array = cJSON_CreateArray();

	for (int i = 0; i < n && array != NULL; i++) {
		cJSON *o = report_json_build(rows[i].sim);

		/* any failure is out of memory: the array goes, and printing NULL reports it */
		if (!cJSON_AddItemToObject(o, "label", json_string(rows[i].label)) ||
		    cJSON_AddNumberToObject(o, "speedup", get_speedup(rows, i)) == NULL ||
		    !cJSON_AddItemToArray(array, o)) {
			cJSON_Delete(o);
			cJSON_Delete(array);
			array = NULL;
		}
	}
	return report_json_print(out, array);
}
