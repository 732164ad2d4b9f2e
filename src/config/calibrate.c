/*
 * Calibration (calibrate.h): reads measured op times, a CSV or a Megatron-LM log, through the
 * one bounded line reader, and fits the explicit costs (t_f, t_b, t_w, t_comm and a scale per
 * stage) that reproduce them, then writes those as a config file. A time is taken only when
 * it is one an op may take in a config (pp_time_from_units' range, one tick at least), and a
 * fitted stage only when its scaled ops are (pp_time_scale, the costs' own rule).
 */
#include "ppsim/calibrate.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/text.h"
#include "ppsim/config.h"

/* The ops a CSV line may measure, in the order of struct acc's sums. */
enum { OP_F_, OP_B_, OP_W_, OP_BW_, NOPS_ };
static const char *const op_names[NOPS_] = {"F", "B", "W", "BW"};

/* The Megatron-LM timers read, in the order of struct block's. */
enum { TIMER_F, TIMER_BW, NTIMERS };
static const char *const timer_names[NTIMERS] = {"forward-compute", "backward-compute"};

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

/*
 * x to 15 significant digits: a figure fitted from measured times, whose last bits are the
 * arithmetic's (0.7000000000000001 for 0.7 ms measured), written as the decimal it stands for.
 * Fifteen digits keep a tick (1e-6 units) of the largest time (1e9 units); x below 1e-8 (under
 * any tick) or not finite stays as it is.
 */
static double fitted_digits(double x)
{
	int e = isfinite(x) && x != 0 ? (int)floor(log10(fabs(x))) : 0;
	double scale;

	if (!isfinite(x) || x == 0 || e < -8 || e > 14)
		return x;
	scale = pow(10, 14 - e); /* a power of ten up to 1e22: exact */
	return round(x * scale) / scale;
}

/*
 * Why ms is no time an op may take in a config, into buf: not above 0 or outside
 * pp_time_from_units' range (at most 1e9), or below the resolution (pp_time_below_tick, as the
 * config refuses it); NULL when it is one.
 */
static const char *time_fault(double ms, char *buf, size_t n)
{
	pp_time t = 0;

	if (!(ms > 0) || !pp_time_from_units(ms, PP_TICK_BASE, &t))
		snprintf(buf, n, "must be a number of ms above 0 and at most 1e9");
	else if (pp_time_below_tick(ms))
		snprintf(buf, n,
		         "is below the resolution of %g ms: it would run as 0 (times are whole "
		         "ticks)",
		         1.0 / (double)PP_TICK_BASE);
	else
		return NULL;
	return buf;
}

/* The measured times of one stage. */
struct acc {
	struct mean op[NOPS_];
	size_t line;           /* the line of its first time; 0 while it has none */
	size_t op_line[NOPS_]; /* the line of each op's first time; 0 while it has none */
};

/* A Megatron-LM timer block being read: where it and its two timers stand, their times. */
struct block {
	size_t header;        /* its "time across ranks" line; 0: not in a block */
	size_t line[NTIMERS]; /* each timer's line, 0 until read */
	double ms[NTIMERS];   /* each timer's MAX */
};

/* What the reader gathers. */
struct reader {
	const char *path;
	int m;
	struct text_lines lines;
	size_t first; /* the first line that is not blank or a comment: the CSV header */
	struct acc *stages;
	size_t nstages, cap;
	struct calib_sample *samples; /* a CSV's op times in order */
	size_t nsamples, samples_cap;
	struct mean comm;
	uint64_t comm_stage;           /* the highest stage of a message measured */
	size_t comm_line, comm_column; /* where it was; 0 while there is none */
	struct block block;            /* Megatron: the current block */
	double first_ms[NTIMERS];
	int blocks; /* Megatron: blocks with both timers read */
	bool by_device; /* a CSV's stages are its device column's */
};

/* Fails err at line and column of r's file; what from a printf format. Returns -1. */
__attribute__((format(printf, 5, 6))) static int fail_at(const struct reader *r,
                                                         struct pp_error *err, size_t line,
                                                         size_t column, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err->line = (int)line;
	err->column = (int)column;
	return pp_fail(err, PP_ERR_CONFIG, "calibration '%s':%zu:%zu: %s", r->path, line, column,
	               what);
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
	bool by_device; /* the stage is a device column's (no stage column) */
};

/* Reads the header into c: false when it names no stage (or device), op and ms, -1 with err
 * when it names one twice. A device column stands for the stage without a stage column (one
 * stage a device); beside one, as in a measured step's CSV, the stage is stage's. */
static int csv_header(const struct reader *r, char *line, struct columns *c, struct pp_error *err)
{
	char *f[64];
	size_t offs[64], n = text_csv_split(line, true, f, offs, 64);
	int device = -1;

	c->stage = c->op = c->ms = -1;
	c->n = n > INT32_MAX ? INT32_MAX : (int)n;
	for (int i = 0; i < c->n && i < 64; i++) {
		int *col = strcmp(f[i], "stage") == 0    ? &c->stage
		           : strcmp(f[i], "device") == 0 ? &device
		           : strcmp(f[i], "op") == 0     ? &c->op
		           : strcmp(f[i], "ms") == 0     ? &c->ms
		                                         : NULL;

		if (col != NULL && *col >= 0)
			return fail_at(r, err, r->lines.lineno, offs[i] + 1,
			               "column '%s' appears twice (first as column %d)", f[i],
			               *col + 1);
		if (col != NULL)
			*col = i;
	}
	if (c->stage < 0) {
		c->stage = device;
		c->by_device = device >= 0;
	}
	return c->stage >= 0 && c->op >= 0 && c->ms >= 0;
}

/* Adds one CSV line's measurement. */
static int csv_line(struct reader *r, const struct columns *c, char *line, struct pp_error *err)
{
	char *f[64], why[128];
	size_t offs[64], n = text_csv_split(line, true, f, offs, 64), at = r->lines.lineno;
	uint64_t stage;
	double ms = 0;
	struct acc *a;
	int op = -1;

	if (n != (size_t)c->n)
		return fail_at(r, err, at, 1,
		               "has %zu fields, the header %d: each line gives a stage, an op and "
		               "its time",
		               n, c->n);
	if (text_parse_uint(f[c->stage], 0, PP_MAX_DEVICES - 1, &stage) != TEXT_OK)
		return fail_at(r, err, at, offs[c->stage] + 1,
		               "the stage must be a whole number from 0 to %d", PP_MAX_DEVICES - 1);
	if (text_parse_double(f[c->ms], &ms) != TEXT_OK)
		ms = NAN;
	if (time_fault(ms, why, sizeof(why)) != NULL)
		return fail_at(r, err, at, offs[c->ms] + 1, "the time %s", why);
	if (strcasecmp(f[c->op], "comm") != 0) {
		for (int i = 0; i < NOPS_; i++)
			if (strcasecmp(f[c->op], op_names[i]) == 0)
				op = i;
		if (op < 0)
			return fail_at(r, err, at, offs[c->op] + 1,
			               "unknown op '%.40s' (F, B, W, BW or comm)", f[c->op]);
	}
	if (text_lines_check_whole(&r->lines, err) != 0)
		return -1;
	if (op < 0) {
		mean_add(&r->comm, ms);
		if (r->comm_line == 0 || stage > r->comm_stage) {
			r->comm_stage = stage;
			r->comm_line = at;
			r->comm_column = offs[c->stage] + 1;
		}
		return 0;
	}
	if ((a = stage_acc(r, stage, err)) == NULL)
		return -1;
	/* a backward measured both split and fused is two measurements of one thing: which to
	 * take is not calibrate's to guess */
	if (op == OP_BW_ ? a->op_line[OP_B_] != 0 || a->op_line[OP_W_] != 0
	                 : op != OP_F_ && a->op_line[OP_BW_] != 0) {
		int other = op != OP_BW_ ? OP_BW_ : a->op_line[OP_B_] != 0 ? OP_B_ : OP_W_;

		return fail_at(r, err, at, offs[c->op] + 1,
		               "stage %" PRIu64 ": %s here, %s at line %zu: a stage's backward "
		               "is measured split (B and W) or fused (BW), not both",
		               stage, op_names[op], op_names[other], a->op_line[other]);
	}
	if (a->line == 0)
		a->line = at;
	if (a->op_line[op] == 0)
		a->op_line[op] = at;
	mean_add(&a->op[op], ms);
	if (r->nsamples == r->samples_cap) {
		size_t cap = r->samples_cap ? 2 * r->samples_cap : 64;
		struct calib_sample *x = cap <= SIZE_MAX / sizeof(*x)
		                                 ? realloc(r->samples, cap * sizeof(*x))
		                                 : NULL;

		if (x == NULL) /* r->samples stays, for calib_read to free */
			return pp_nomem(err, cap, sizeof(*x));
		r->samples = x;
		r->samples_cap = cap;
	}
	r->samples[r->nsamples] = (struct calib_sample){.stage = (int)stage, .ms = ms};
	snprintf(r->samples[r->nsamples++].op, sizeof(r->samples[0].op), "%s", op_names[op]);
	return 0;
}

/* Reads a number of text at *p, up to one of stops, into *x and moves *p past it; false when
 * it is not one (text_parse_double's, out of range included). */
static bool number_at(const char **p, const char *stops, double *x)
{
	size_t len = strcspn(*p, stops);
	char num[64];

	if (len == 0 || len >= sizeof(num))
		return false;
	memcpy(num, *p, len);
	num[len] = '\0';
	if (text_parse_double(num, x) != TEXT_OK)
		return false;
	*p += len;
	return true;
}

/* A timer's value "(MIN, MAX)" or "MAX", blanks around, and nothing after it: MAX into *ms.
 * False when the text is not that, or MIN is negative or above MAX. */
static bool timer_value(const char *p, double *ms)
{
	double min = 0;

	p += strspn(p, " \t");
	if (*p == '(') {
		p += 1 + strspn(p + 1, " \t");
		if (!number_at(&p, ", \t", &min))
			return false;
		p += strspn(p, " \t");
		if (*p != ',')
			return false;
		p += 1 + strspn(p + 1, " \t");
		if (!number_at(&p, ") \t", ms))
			return false;
		p += strspn(p, " \t");
		if (*p++ != ')' || min < 0 || min > *ms)
			return false;
	} else if (!number_at(&p, " \t\r", ms)) {
		return false;
	}
	return p[strspn(p, " \t\r")] == '\0';
}

/*
 * Reads line as a Megatron timer line "    NAME ....: VALUE" of one of the timers read:
 * returns its index (with its MAX in *ms), NTIMERS when the line is no such timer, or -1 with
 * err when it names one whose value is not a time.
 */
static int timer_line(const struct reader *r, const char *line, double *ms, struct pp_error *err)
{
	const char *p = line + strspn(line, " \t"), *name, *v;
	char why[128];
	int t;

	for (t = 0; t < NTIMERS; t++) {
		size_t len = strlen(timer_names[t]);

		if (strncmp(p, timer_names[t], len) == 0 &&
		    (p[len] == ' ' || p[len] == '.' || p[len] == ':'))
			break;
	}
	if (t == NTIMERS)
		return NTIMERS;
	name = timer_names[t];
	p += strlen(name);
	p += strspn(p, " .");
	v = *p == ':' ? p + 1 + strspn(p + 1, " \t") : p;
	if (*p != ':' || !timer_value(v, ms))
		return fail_at(r, err, r->lines.lineno, (size_t)(v - line) + 1,
		               "%s's time is not (MIN, MAX) or MAX, numbers of ms with 0 <= MIN <= "
		               "MAX",
		               name);
	/* the time of an op is the total over the iteration's micro-batches */
	if (r->m > 0 && time_fault(*ms / r->m, why, sizeof(why)) != NULL)
		return fail_at(r, err, r->lines.lineno, (size_t)(v - line) + 1,
		               "%s: %g ms over %d micro-batches is %g ms each, which %s", name, *ms,
		               r->m, *ms / r->m, why);
	if (r->m <= 0 && !(*ms > 0))
		return fail_at(r, err, r->lines.lineno, (size_t)(v - line) + 1,
		               "%s's time must be above 0", name);
	return t;
}

/* Ends the current Megatron timer block: one with both timers counts, one with neither (other
 * timers: a checkpoint's save) is left alone, one with a single timer is refused. */
static int end_block(struct reader *r, struct pp_error *err)
{
	struct block *b = &r->block;
	bool has[NTIMERS] = {b->line[TIMER_F] != 0, b->line[TIMER_BW] != 0};

	if (b->header == 0 || (!has[TIMER_F] && !has[TIMER_BW])) {
		*b = (struct block){0};
		return 0;
	}
	if (!has[TIMER_F] || !has[TIMER_BW])
		return fail_at(r, err, b->header, 1,
		               "a timer block with %s (line %zu) but no %s: the log may be cut, or "
		               "the timers were not all logged",
		               timer_names[has[TIMER_F] ? TIMER_F : TIMER_BW],
		               b->line[has[TIMER_F] ? TIMER_F : TIMER_BW],
		               timer_names[has[TIMER_F] ? TIMER_BW : TIMER_F]);
	/* the first block holds the warm-up: it counts only when it is the only one */
	if (r->blocks == 0) {
		r->first_ms[TIMER_F] = b->ms[TIMER_F];
		r->first_ms[TIMER_BW] = b->ms[TIMER_BW];
		r->stages[0].line = b->line[TIMER_F];
	} else {
		if (r->blocks == 1)
			r->stages[0].line = b->line[TIMER_F];
		mean_add(&r->stages[0].op[OP_F_], b->ms[TIMER_F]);
		mean_add(&r->stages[0].op[OP_BW_], b->ms[TIMER_BW]);
	}
	r->blocks++;
	*b = (struct block){0};
	return 0;
}

/* One line of a Megatron log. */
static int megatron_line(struct reader *r, const char *line, struct pp_error *err)
{
	struct block *b = &r->block;
	double ms = 0;
	int t;

	if (strstr(line, "time across ranks (ms):") != NULL) {
		if (end_block(r, err) != 0)
			return -1;
		b->header = r->lines.lineno;
		return 0;
	}
	if (b->header == 0)
		return 0;
	if ((t = timer_line(r, line, &ms, err)) < 0)
		return -1;
	if (t < NTIMERS) {
		if (b->line[t] != 0)
			return fail_at(
			        r, err, r->lines.lineno, 1,
			        "%s appears twice in the timer block of line %zu (first at line "
			        "%zu)",
			        timer_names[t], b->header, b->line[t]);
		if (text_lines_check_whole(&r->lines, err) != 0)
			return -1;
		b->line[t] = r->lines.lineno;
		b->ms[t] = ms;
	} else if (strncmp(line, "    ", 4) != 0 && line[0] != '\t') {
		return end_block(r, err); /* a block's lines are indented */
	}
	return 0;
}

static int read_lines(FILE *f, const char *path, void *ctx, struct pp_error *err)
{
	struct reader *r = ctx;
	struct columns c = {-1, -1, -1, 0, false};
	bool header = false, megatron = false;
	int rc;

	text_lines_init(&r->lines, f, "calibration", path);
	while ((rc = text_lines_next(&r->lines, err)) == 1) {
		char *line = r->lines.line;

		if (megatron) {
			if ((rc = megatron_line(r, line, err)) != 0)
				break;
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
			r->first = r->lines.lineno;
			rc = csv_header(r, copy, &c, err);
			free(copy);
			if (rc < 0)
				break;
			header = rc == 1;
			r->by_device = header && c.by_device;
			if (!header) {
				/* not a CSV: a Megatron log, which holds timer blocks */
				megatron = true;
				if (stage_acc(r, 0, err) == NULL ||
				    megatron_line(r, line, err) != 0) {
					rc = -1;
					break;
				}
			}
			continue;
		}
		if ((rc = text_lines_check_csv(&r->lines, err)) != 0 ||
		    (rc = csv_line(r, &c, line, err)) != 0)
			break;
	}
	if (rc == 0 && megatron)
		rc = end_block(r, err);
	if (rc == 0 && r->first == 0)
		rc = fail_at(r, err, 1, 1, "no measured times: the file is empty");
	else if (rc == 0 && megatron && r->blocks == 0)
		rc = fail_at(
		        r, err, r->first, 1,
		        "neither a CSV with columns stage, op and ms nor a Megatron-LM log with "
		        "forward-compute and backward-compute timers");
	else if (rc == 0 && !megatron && r->nstages == 0)
		rc = fail_at(r, err, r->first, 1, "no op times (F, B, W or BW) after the header");
	text_lines_release(&r->lines);
	return rc < 0 ? -1 : megatron ? 1 : 0;
}

/* Checks that every stage of a CSV from 0 has a forward time and that its messages are of its
 * stages, naming the line at fault. */
static int check_stages(const struct reader *r, struct pp_error *err)
{
	for (size_t s = 0; s < r->nstages; s++) {
		size_t next = s;

		if (r->stages[s].line == 0) {
			while (r->stages[next].line == 0)
				next++; /* the last stage has a line: it was measured */
			return fail_at(
			        r, err, r->stages[next].line, 1,
			        "stage %zu is measured here, but stage %zu is not (stages are "
			        "numbered from 0)",
			        next, s);
		}
		if (r->stages[s].op[OP_F_].n == 0)
			return fail_at(r, err, r->stages[s].line, 1,
			               "stage %zu has no forward (F) time (its first time is here)",
			               s);
	}
	if (r->comm_line != 0 && r->comm_stage >= r->nstages)
		return fail_at(r, err, r->comm_line, r->comm_column,
		               "a message of stage %" PRIu64 ", beyond the stages whose ops are "
		               "measured (p = %zu)",
		               r->comm_stage, r->nstages);
	return 0;
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
	if (rc < 0 || (rc == 0 && check_stages(&r, err) != 0)) {
		free(r.stages);
		free(r.samples);
		return -1;
	}
	k->format = rc == 1 ? CALIB_MEGATRON : CALIB_CSV;
	k->path = path;
	k->by_device = r.by_device;
	k->samples = r.samples;
	k->nsamples = r.nsamples;
	if (k->format == CALIB_MEGATRON) {
		struct acc *a = &r.stages[0];

		if (m <= 0) {
			free(r.stages);
			return pp_fail(
			        err, PP_ERR_USAGE,
			        "calibrate: '%s' is a Megatron-LM log, whose timers add up a "
			        "whole iteration: give its micro-batches with --microbatches",
			        path);
		}
		if (r.blocks == 1) { /* one block: the warm-up is all there is */
			mean_add(&a->op[OP_F_], r.first_ms[TIMER_F]);
			mean_add(&a->op[OP_BW_], r.first_ms[TIMER_BW]);
		}
		a->op[OP_F_].first /= m;
		a->op[OP_F_].dsum /= m;
		a->op[OP_BW_].first /= m;
		a->op[OP_BW_].dsum /= m;
	}
	k->p = (int)r.nstages;
	k->f = pp_mallocarray(r.nstages, sizeof(*k->f));
	k->b = pp_mallocarray(r.nstages, sizeof(*k->b));
	k->w = pp_mallocarray(r.nstages, sizeof(*k->w));
	k->bw = pp_mallocarray(r.nstages, sizeof(*k->bw));
	k->line = pp_mallocarray(r.nstages, sizeof(*k->line));
	if (k->f == NULL || k->b == NULL || k->w == NULL || k->bw == NULL || k->line == NULL) {
		free(r.stages);
		calib_release(k);
		return pp_nomem(err, r.nstages, sizeof(double));
	}
	for (size_t s = 0; s < r.nstages; s++) {
		k->f[s] = mean_of(&r.stages[s].op[OP_F_]);
		k->b[s] = mean_of(&r.stages[s].op[OP_B_]);
		k->w[s] = mean_of(&r.stages[s].op[OP_W_]);
		k->bw[s] = mean_of(&r.stages[s].op[OP_BW_]);
		k->line[s] = r.stages[s].line;
	}
	k->comm = mean_of(&r.comm);
	free(r.stages);
	return 0;
}

int calib_chunks(struct calibration *k, int v, struct pp_error *err)
{
	double *times[4] = {k->f, k->b, k->w, k->bw};

	if (v <= 1)
		return 0;
	if (k->format != CALIB_CSV)
		return pp_fail(err, PP_ERR_USAGE,
		               "calibrate: -v %d takes a CSV's stages as chunks; '%.200s' is a "
		               "Megatron-LM log, whose timers are each device's whole",
		               v, k->path);
	if (k->by_device)
		return pp_fail(err, PP_ERR_USAGE,
		               "calibrate: -v %d takes a CSV's stages as chunks; '%.200s' names "
		               "devices (a device column without a stage column is one stage a "
		               "device): give the virtual stages in a stage column",
		               v, k->path);
	if (k->p % v != 0)
		return pp_fail(err, PP_ERR_USAGE,
		               "calibrate: -v %d: the %d stages of '%.200s' are not %d chunks to each "
		               "device",
		               v, k->p, k->path, v);
	for (int t = 0; t < 4; t++)
		for (int st = 0; st < k->p; st++)
			times[t][st] *= v; /* NAN (not measured) stays NAN */
	k->v = v;
	return 0;
}

void calib_release(struct calibration *k)
{
	free(k->f);
	free(k->b);
	free(k->w);
	free(k->bw);
	free(k->line);
	free(k->samples);
	k->f = k->b = k->w = k->bw = NULL;
	k->line = NULL;
	k->samples = NULL;
	k->nsamples = 0;
}

int calib_write_samples(FILE *out, const struct calibration *k)
{
	char num[32];

	fputs("kind,stage,value\n", out);
	for (size_t i = 0; i < k->nsamples; i++)
		fprintf(out, "%s,%d,%s\n", strcmp(k->samples[i].op, "BW") == 0 ? "B" : k->samples[i].op,
		        k->samples[i].stage, pp_double_format(num, sizeof(num), k->samples[i].ms));
	return ferror(out) ? -1 : 0;
}

/* Fails err (kind) about stage s of k, at the line of its first time when known. Returns -1. */
__attribute__((format(printf, 5, 6))) static int fail_stage(const struct calibration *k, int s,
                                                            enum pp_errkind kind,
                                                            struct pp_error *err, const char *fmt,
                                                            ...)
{
	char what[512];
	size_t line = k->line != NULL ? k->line[s] : 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err->line = (int)line;
	err->column = 0;
	if (line == 0)
		return pp_fail(err, kind, "calibrate: %s", what);
	return pp_fail(err, kind, "calibration '%s':%zu: %s", k->path, line, what);
}

/*
 * Checks that fit makes a config ppsim runs: each time one an op may take (or 0), at most
 * PP_MAX_LIST stage factors, and each stage's scaled ops of at least one tick (pp_time_scale,
 * as the costs scale them). b and w are the stages' backward times as split.
 */
static int check_fit(const struct calibration *k, const struct calib_fit *fit, struct pp_error *err)
{
	const double t[3] = {fit->t_f, fit->t_b, fit->t_w};
	char why[128];

	for (int i = 0; i < 3; i++)
		if (t[i] != 0 && time_fault(t[i], why, sizeof(why)) != NULL)
			return fail_stage(k, 0, PP_ERR_CONFIG, err,
			                  "the mean %s time of the stages, %g ms, %s", op_names[i],
			                  t[i], why);
	if (!isnan(fit->t_comm) && time_fault(fit->t_comm, why, sizeof(why)) != NULL)
		return fail_stage(k, 0, PP_ERR_CONFIG, err, "the message time %s", why);
	if (fit->uniform)
		return 0;
	if (fit->p > PP_MAX_LIST)
		return fail_stage(
		        k, PP_MAX_LIST, PP_ERR_CONFIG, err,
		        "stage %d: the stages run at different speeds, and a config holds "
		        "at most %d stage factors (stage_scale)",
		        PP_MAX_LIST, PP_MAX_LIST);
	for (int s = 0; s < fit->p; s++)
		for (int i = 0; i < 3; i++) {
			pp_time ticks = 0, scaled = 0;
			enum pp_time_scaled how = PP_TIME_SCALED;

			if (t[i] > 0 && pp_time_from_units(t[i], PP_TICK_BASE, &ticks))
				how = pp_time_scale(ticks, fit->scale[s], &scaled);
			if (how == PP_TIME_SCALED)
				continue;
			snprintf(why, sizeof(why),
			         how == PP_TIME_NO_TICK ? "below the resolution of %g ms"
			                                : "longer than all of a run's times may be",
			         1.0 / (double)PP_TICK_BASE);
			return fail_stage(
			        k, s, PP_ERR_CONFIG, err,
			        "stage %d's %s fits as %g ms (the mean, %g ms, times the "
			        "stage's scale, %g), %s: its F, B and W are too far from the "
			        "other stages' proportion for one scale per stage",
			        s, op_names[i], t[i] * fit->scale[s], t[i], fit->scale[s], why);
		}
	return 0;
}

int calib_fit(const struct calibration *k, double w_share, struct calib_fit *fit,
              struct pp_error *err)
{
	struct mean sf = {0, 0, 0}, sb = {0, 0, 0}, sw = {0, 0, 0};
	double *b, *w;
	char why[128];
	int p = k->p;

	memset(fit, 0, sizeof(*fit));
	fit->p = p;
	fit->v = k->v;
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
				/* partial data, as a stage without F is: say which half is
				 * missing when one is there */
				if (isnan(b[s]) != isnan(w[s]))
					fail_stage(k, s, PP_ERR_CONFIG, err,
					           "stage %d has %s but no %s: measure both halves of "
					           "its backward, or the fused BW",
					           s, isnan(b[s]) ? "W" : "B", isnan(b[s]) ? "B" : "W");
				else
					fail_stage(k, s, PP_ERR_CONFIG, err,
					           "stage %d has no backward time (B and W, or BW)", s);
				goto fail;
			}
			if (w_share < 0) {
				fail_stage(
				        k, s, PP_ERR_USAGE, err,
				        "stage %d's backward is measured fused (BW): give "
				        "--w-share=F, the share of it that is W (0 for schedules "
				        "that never split it)",
				        s);
				goto fail;
			}
			b[s] = (1 - w_share) * k->bw[s];
			w[s] = w_share * k->bw[s];
			fit->w_share = w_share;
			for (int i = 0; i < 2; i++) {
				double x = i == 0 ? b[s] : w[s];

				if (x != 0 && time_fault(x, why, sizeof(why)) != NULL) {
					fail_stage(k, s, PP_ERR_USAGE, err,
					           "--w-share=%g makes stage %d's %s %g ms (that "
					           "share "
					           "of its fused backward), which %s",
					           w_share, s, op_names[OP_B_ + i], x, why);
					goto fail;
				}
			}
		}
		mean_add(&sf, k->f[s]);
		mean_add(&sb, b[s]);
		mean_add(&sw, w[s]);
	}
	fit->t_f = fitted_digits(mean_of(&sf));
	fit->t_b = fitted_digits(mean_of(&sb));
	fit->t_w = fitted_digits(mean_of(&sw));
	fit->t_comm = fitted_digits(k->comm);
	fit->uniform = true;
	for (int s = 0; s < p; s++) {
		double x = (k->f[s] + b[s] + w[s]) / (fit->t_f + fit->t_b + fit->t_w);
		double meas[3] = {k->f[s], b[s], w[s]}, fitted[3] = {fit->t_f, fit->t_b, fit->t_w};

		fit->scale[s] = x = fitted_digits(x);
		if (fabs(x - 1) > 1e-12)
			fit->uniform = false;
		for (int i = 0; i < 3; i++)
			if (meas[i] > 0 &&
			    fabs(fitted[i] * x - meas[i]) / meas[i] > fit->max_error) {
				fit->max_error = fabs(fitted[i] * x - meas[i]) / meas[i];
				fit->worst_stage = s;
			}
	}
	if (check_fit(k, fit, err) != 0)
		goto fail;
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
	if (fit->p_known && fit->v > 1) /* interleaved 1F1B runs chunks unless -s says another */
		fprintf(out, "  \"schedule\": \"interleaved\",\n  \"p\": %d,\n  \"v\": %d,\n",
		        fit->p / fit->v, fit->v);
	else if (fit->p_known)
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
