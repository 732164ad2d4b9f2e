/*
 * Calibration (calibrate.h): reads measured op times, a CSV or a Megatron-LM log, through the
 * one bounded line reader, and fits the explicit costs (t_f, t_b, t_w, t_comm and a scale per
 * stage) that reproduce them, then writes those as a config file.
 */
#include "ppsim/calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text.h"

/* The ops a CSV line may measure, in the order of struct acc's sums. */
enum { OP_F_, OP_B_, OP_W_, OP_BW_, NOPS_ };
static const char *const op_names[NOPS_] = {"F", "B", "W", "BW"};

/*
 * A running mean kept as the first value and the sum of the others' differences from it, so
 * that times measured alike average to exactly that time (18.522 eight times is 18.522, where
 * a plain sum over 8 gives 18.521999999999995).
 */
struct mean {
	double first, dsum;
	int n;
};

static void mean_add(struct mean *x, double v)
{
	if (x->n++ == 0)
		x->first = v;
	else
		x->dsum += v - x->first;
}

/* The mean of x, or NAN when it has no value. */
static double mean_of(const struct mean *x)
{
	return x->n > 0 ? x->first + x->dsum / x->n : NAN;
}

/* The measured times of one stage. */
struct acc {
	struct mean op[NOPS_];
};

/* What the reader gathers. */
struct reader {
	const char *path;
	int m;
	struct text_lines lines;
	struct acc *stages;
	size_t nstages, cap;
	struct mean comm;
	/* Megatron: the blocks' forward-compute and backward-compute, and their count */
	double block_f, block_bw, first_f, first_bw;
	int blocks;
	bool in_block, block_has_f;
};

static int fail_at(const struct reader *r, struct pp_error *err, size_t column, const char *what)
{
	err->line = (int)r->lines.lineno;
	err->column = (int)column;
	return pp_fail(err, PP_ERR_CONFIG, "calibration '%s':%zu:%zu: %s", r->path, r->lines.lineno,
	               column, what);
}

/* The stage's accumulator, growing the table to hold it; NULL with err when out of memory. */
static struct acc *stage_acc(struct reader *r, size_t stage, struct pp_error *err)
{
	if (stage >= r->nstages) {
		if (pp_grow((void **)&r->stages, &r->cap, stage + 1, sizeof(*r->stages), err) != 0)
			return NULL;
		memset(r->stages + r->nstages, 0, (stage + 1 - r->nstages) * sizeof(*r->stages));
		r->nstages = stage + 1;
	}
	return &r->stages[stage];
}

/* The column of each field the CSV needs, from its header; -1 where missing. */
struct columns {
	int stage, op, ms, n;
};

static bool csv_header(char *line, struct columns *c)
{
	char *f[64];
	size_t offs[64], n = text_csv_split(line, true, f, offs, 64);

	c->stage = c->op = c->ms = -1;
	c->n = (int)(n < 64 ? n : 64);
	for (int i = 0; i < c->n; i++) {
		if (strcmp(f[i], "stage") == 0 || strcmp(f[i], "device") == 0)
			c->stage = i;
		else if (strcmp(f[i], "op") == 0)
			c->op = i;
		else if (strcmp(f[i], "ms") == 0)
			c->ms = i;
	}
	return c->stage >= 0 && c->op >= 0 && c->ms >= 0;
}

/* Adds one CSV line's measurement. */
static int csv_line(struct reader *r, const struct columns *c, char *line, struct pp_error *err)
{
	char *f[64], msg[160];
	size_t offs[64], n = text_csv_split(line, true, f, offs, 64);
	uint64_t stage;
	double ms;
	struct acc *a;
	int op = -1;

	if (n != (size_t)c->n)
		return fail_at(r, err, 1, "has a different number of fields than the header");
	if (text_parse_uint(f[c->stage], 0, 65535, &stage) != TEXT_OK)
		return fail_at(r, err, offs[c->stage] + 1,
		               "the stage must be a whole number from 0 to 65535");
	if (text_parse_double(f[c->ms], &ms) != TEXT_OK || !(ms > 0) || ms > PP_TIME_MAX_UNITS)
		return fail_at(r, err, offs[c->ms] + 1,
		               "the time must be a number of ms above 0 and at most 1e9");
	if (strcasecmp(f[c->op], "comm") == 0) {
		mean_add(&r->comm, ms);
		return 0;
	}
	for (int i = 0; i < NOPS_; i++)
		if (strcasecmp(f[c->op], op_names[i]) == 0)
			op = i;
	if (op < 0) {
		snprintf(msg, sizeof(msg), "unknown op '%.40s' (F, B, W, BW or comm)", f[c->op]);
		return fail_at(r, err, offs[c->op] + 1, msg);
	}
	if ((a = stage_acc(r, stage, err)) == NULL)
		return -1;
	mean_add(&a->op[op], ms);
	return 0;
}

/*
 * A Megatron timer line "    NAME ....: (MIN, MAX)" or "    NAME ....: MAX": the name's time
 * (MAX) into *ms when it is name. Returns true when the line is that timer.
 */
static bool timer_line(const char *line, const char *name, double *ms)
{
	const char *p = line, *colon;
	char num[64];
	size_t len;

	while (*p == ' ' || *p == '\t')
		p++;
	len = strlen(name);
	if (strncmp(p, name, len) != 0 || (p[len] != ' ' && p[len] != '.'))
		return false;
	if ((colon = strchr(p + len, ':')) == NULL)
		return false;
	p = colon + 1;
	while (*p == ' ')
		p++;
	if (*p == '(') {
		p = strchr(p, ',');
		if (p == NULL)
			return false;
		p++;
		while (*p == ' ')
			p++;
	}
	len = strcspn(p, ") \r");
	if (len == 0 || len >= sizeof(num))
		return false;
	memcpy(num, p, len);
	num[len] = '\0';
	return text_parse_double(num, ms) == TEXT_OK && *ms >= 0;
}

/* Ends the current Megatron timer block, counting it when it timed a forward. */
static void end_block(struct reader *r)
{
	if (r->in_block && r->block_has_f) {
		if (r->blocks == 0) {
			r->first_f = r->block_f;
			r->first_bw = r->block_bw;
		} else {
			mean_add(&r->stages[0].op[OP_F_], r->block_f);
			mean_add(&r->stages[0].op[OP_BW_], r->block_bw);
		}
		r->blocks++;
	}
	r->in_block = false;
	r->block_has_f = false;
	r->block_f = r->block_bw = 0;
}

/* One line of a Megatron log. */
static void megatron_line(struct reader *r, const char *line)
{
	double ms;

	if (strstr(line, "time across ranks (ms):") != NULL) {
		end_block(r);
		r->in_block = true;
		return;
	}
	if (!r->in_block)
		return;
	if (timer_line(line, "forward-compute", &ms)) {
		r->block_f = ms;
		r->block_has_f = true;
	} else if (timer_line(line, "backward-compute", &ms)) {
		r->block_bw = ms;
	} else if (strncmp(line, "    ", 4) != 0 && strncmp(line, "\t", 1) != 0) {
		end_block(r); /* a block's lines are indented */
	}
}

static int read_lines(FILE *f, const char *path, void *ctx, struct pp_error *err)
{
	struct reader *r = ctx;
	struct columns c = {-1, -1, -1, 0};
	bool header = false, megatron = false;
	int rc;

	text_lines_init(&r->lines, f, "calibration", path);
	while ((rc = text_lines_next(&r->lines, err)) == 1) {
		char *line = r->lines.line;

		if (megatron) {
			megatron_line(r, line);
			continue;
		}
		if (line[0] == '#' || line[strspn(line, " \t\r")] == '\0')
			continue;
		if (!header) {
			/* the header is split in place: a copy keeps the line for a Megatron log */
			char *copy = pp_strdup(line);

			if (copy == NULL) {
				rc = pp_nomem(err, 1, r->lines.len + 1);
				break;
			}
			header = csv_header(copy, &c);
			free(copy);
			if (!header) {
				/* not a CSV: a Megatron log, which holds timer blocks */
				megatron = true;
				if (stage_acc(r, 0, err) == NULL) {
					rc = -1;
					break;
				}
				megatron_line(r, line);
			}
			continue;
		}
		if ((rc = csv_line(r, &c, line, err)) != 0)
			break;
	}
	if (rc == 0 && megatron)
		end_block(r);
	if (rc == 0 && megatron && r->blocks == 0)
		rc = pp_fail(err, PP_ERR_CONFIG,
		             "calibration '%s': neither a CSV with columns stage, op and ms nor a "
		             "Megatron-LM log with a forward-compute timer",
		             path);
	text_lines_release(&r->lines);
	return rc < 0 ? -1 : megatron ? 1 : 0;
}

int calib_read(const char *path, int m, struct calibration *k, struct pp_error *err)
{
	struct reader r;
	int rc;

	memset(k, 0, sizeof(*k));
	memset(&r, 0, sizeof(r));
	r.path = path;
	r.m = m;
	rc = text_read_file(path, read_lines, &r, err);
	if (rc < 0) {
		free(r.stages);
		return -1;
	}
	k->format = rc == 1 ? CALIB_MEGATRON : CALIB_CSV;
	if (k->format == CALIB_MEGATRON) {
		if (m <= 0) {
			free(r.stages);
			return pp_fail(
			        err, PP_ERR_USAGE,
			        "calibrate: '%s' is a Megatron-LM log, whose timers add up a "
			        "whole iteration: give its micro-batches with -m N",
			        path);
		}
		struct acc *a = &r.stages[0];

		if (r.blocks == 1) { /* one block: the warm-up is all there is */
			mean_add(&a->op[OP_F_], r.first_f);
			mean_add(&a->op[OP_BW_], r.first_bw);
		}
		a->op[OP_F_].first /= m;
		a->op[OP_F_].dsum /= m;
		a->op[OP_BW_].first /= m;
		a->op[OP_BW_].dsum /= m;
		if (!(mean_of(&a->op[OP_BW_]) > 0))
			a->op[OP_BW_].n = 0;
	}
	k->p = (int)r.nstages;
	k->f = pp_mallocarray(r.nstages + 1, sizeof(*k->f));
	k->b = pp_mallocarray(r.nstages + 1, sizeof(*k->b));
	k->w = pp_mallocarray(r.nstages + 1, sizeof(*k->w));
	k->bw = pp_mallocarray(r.nstages + 1, sizeof(*k->bw));
	if (k->f == NULL || k->b == NULL || k->w == NULL || k->bw == NULL) {
		free(r.stages);
		calib_release(k);
		return pp_nomem(err, r.nstages + 1, sizeof(double));
	}
	for (size_t s = 0; s < r.nstages; s++) {
		k->f[s] = mean_of(&r.stages[s].op[OP_F_]);
		k->b[s] = mean_of(&r.stages[s].op[OP_B_]);
		k->w[s] = mean_of(&r.stages[s].op[OP_W_]);
		k->bw[s] = mean_of(&r.stages[s].op[OP_BW_]);
	}
	k->comm = mean_of(&r.comm);
	free(r.stages);
	for (int s = 0; s < k->p; s++)
		if (isnan(k->f[s])) {
			calib_release(k);
			return pp_fail(err, PP_ERR_CONFIG,
			               "calibration '%s': stage %d has no forward "
			               "(F) time",
			               path, s);
		}
	if (k->p == 0) {
		calib_release(k);
		return pp_fail(err, PP_ERR_CONFIG, "calibration '%s': no measured times", path);
	}
	return 0;
}

void calib_release(struct calibration *k)
{
	free(k->f);
	free(k->b);
	free(k->w);
	free(k->bw);
	k->f = k->b = k->w = k->bw = NULL;
}

int calib_fit(const struct calibration *k, double w_share, struct calib_fit *fit,
              struct pp_error *err)
{
	struct mean sf = {0, 0, 0}, sb = {0, 0, 0}, sw = {0, 0, 0};
	double *b, *w;
	int p = k->p;

	memset(fit, 0, sizeof(*fit));
	fit->p = p;
	fit->p_known = k->format == CALIB_CSV;
	fit->w_share = NAN;
	fit->scale = pp_zalloc((size_t)p, sizeof(*fit->scale), err);
	b = pp_zalloc((size_t)p, sizeof(*b), err);
	w = pp_zalloc((size_t)p, sizeof(*w), err);
	if (fit->scale == NULL || b == NULL || w == NULL)
		goto fail;
	for (int s = 0; s < p; s++) {
		b[s] = k->b[s];
		w[s] = k->w[s];
		if (isnan(b[s]) || isnan(w[s])) {
			/* only the fused backward: split it as asked */
			if (isnan(k->bw[s])) {
				pp_fail(err, PP_ERR_USAGE,
				        "calibrate: stage %d has no backward time (B and W, or BW)",
				        s);
				goto fail;
			}
			if (w_share < 0) {
				pp_fail(err, PP_ERR_USAGE,
				        "calibrate: stage %d's backward is measured fused (BW): "
				        "give "
				        "--w-share=F, the share of it that is W (0 for schedules "
				        "that "
				        "never split it)",
				        s);
				goto fail;
			}
			b[s] = (1 - w_share) * k->bw[s];
			w[s] = w_share * k->bw[s];
			fit->w_share = w_share;
		}
		mean_add(&sf, k->f[s]);
		mean_add(&sb, b[s]);
		mean_add(&sw, w[s]);
	}
	fit->t_f = mean_of(&sf);
	fit->t_b = mean_of(&sb);
	fit->t_w = mean_of(&sw);
	fit->t_comm = k->comm;
	fit->uniform = true;
	for (int s = 0; s < p; s++) {
		double x = (k->f[s] + b[s] + w[s]) / (fit->t_f + fit->t_b + fit->t_w);
		double meas[3] = {k->f[s], b[s], w[s]}, fitted[3] = {fit->t_f, fit->t_b, fit->t_w};

		fit->scale[s] = x;
		if (fabs(x - 1) > 1e-12)
			fit->uniform = false;
		for (int i = 0; i < 3; i++)
			if (meas[i] > 0 &&
			    fabs(fitted[i] * x - meas[i]) / meas[i] > fit->max_error) {
				fit->max_error = fabs(fitted[i] * x - meas[i]) / meas[i];
				fit->worst_stage = s;
			}
	}
	free(b);
	free(w);
	return 0;
fail:
	free(b);
	free(w);
	calib_fit_release(fit);
	return -1;
}

void calib_fit_release(struct calib_fit *fit)
{
	free(fit->scale);
	fit->scale = NULL;
}

int calib_write_config(FILE *out, const struct calib_fit *fit, int m)
{
	char a[32], b[32], c[32];

	fputs("{\n", out);
	if (fit->p_known)
		fprintf(out, "  \"p\": %d,\n", fit->p);
	if (m > 0)
		fprintf(out, "  \"m\": %d,\n", m);
	fprintf(out, "  \"t_f\": %s,\n  \"t_b\": %s,\n  \"t_w\": %s",
	        pp_double_format(a, sizeof(a), fit->t_f), pp_double_format(b, sizeof(b), fit->t_b),
	        pp_double_format(c, sizeof(c), fit->t_w));
	if (!isnan(fit->t_comm))
		fprintf(out, ",\n  \"t_comm\": %s", pp_double_format(a, sizeof(a), fit->t_comm));
	if (!fit->uniform) {
		fputs(",\n  \"stage_scale\": [", out);
		for (int s = 0; s < fit->p; s++)
			fprintf(out, "%s%s", s ? ", " : "",
			        pp_double_format(a, sizeof(a), fit->scale[s]));
		fputc(']', out);
	}
	fputs("\n}\n", out);
	return ferror(out) ? -1 : 0;
}
