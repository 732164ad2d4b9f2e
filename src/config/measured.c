/*
 * Measured steps (measured.h): a trace (measured_trace.c reads its events) or a CSV read into
 * ranges (an op, an overlapped pair or a transfer, each with its device, start and length), the
 * ranges of each device put in the order they started and checked (no negative length, no
 * overlap), then handed as rows to the schedule-file reader's builder (schedfile_build), which
 * infers the shape and checks the order as it checks a file's. A file is read whole through
 * zlib, which reads plain files too. The what-ifs read the result (measured_whatif.c).
 */
#include "ppsim/measured.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/json_text.h"
#include "base/text.h"
#include "measured_internal.h"
#include "ppsim/schedfile.h"

int measured_fail(const struct reader *r, struct pp_error *err, uint32_t file, size_t line,
                  size_t column, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err->line = line > INT32_MAX ? INT32_MAX : (int)line;
	err->column = column > INT32_MAX ? INT32_MAX : (int)column;
	if (line == 0) /* the file as a whole, no line of it */
		return pp_fail(err, PP_ERR_CONFIG, "%s '%s': %s", r->what, r->paths[file], what);
	return pp_fail(err, PP_ERR_CONFIG, "%s '%s':%zu:%zu: %s", r->what, r->paths[file], line,
	               column, what);
}

struct range *measured_new_range(struct reader *r, struct ranges *a, struct pp_error *err)
{
	if (pp_grow((void **)&a->r, &a->cap, a->n + 1, sizeof(*a->r), err) != 0)
		return NULL;
	a->r[a->n] = (struct range){.seq = r->seq++, .stage2 = -1, .mb2 = -1, .kind2 = -1};
	return &a->r[a->n++];
}

/* The text_read_fn that reads all of f, plain or gzip, into ctx (a struct text whose buf the
 * caller frees, also on failure), NUL-terminated. */
static int read_all(FILE *f, const char *path, void *ctx, struct pp_error *err)
{
	struct text *t = ctx;
	size_t cap = 0;
	int fd = dup(fileno(f)), errnum = Z_OK, rc = 0;
	gzFile z = fd < 0 ? NULL : gzdopen(fd, "rb");
	const char *why;

	if (z == NULL) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return e == ENOMEM || fd >= 0 ? pp_nomem(err, 1, 8192)
		                              : text_read_error(err, path, e);
	}
	for (;;) {
		int n;

		if (pp_grow((void **)&t->buf, &cap, t->len + (1u << 16) + 1, 1, err) != 0) {
			rc = -1;
			break;
		}
		n = gzread(z, t->buf + t->len,
		           (unsigned)(cap - t->len - 1 > INT32_MAX ? INT32_MAX : cap - t->len - 1));
		if (n <= 0)
			break;
		t->len += (size_t)n;
		if (t->len > MEASURED_FILE_MAX) {
			rc = pp_fail(err, PP_ERR_IO, "cannot read '%s': larger than %zu MiB", path,
			             MEASURED_FILE_MAX >> 20);
			break;
		}
	}
	why = gzerror(z, &errnum);
	/* zlib names a stream it was handed "<fd:N>": the path is named already */
	if (strncmp(why, "<fd:", 4) == 0 && strstr(why, ": ") != NULL)
		why = strstr(why, ": ") + 2;
	if (rc == 0 && errnum == Z_ERRNO)
		rc = text_read_error(err, path, errno);
	else if (rc == 0 && errnum == Z_MEM_ERROR)
		rc = pp_nomem(err, 1, 1u << 16);
	else if (rc == 0 && errnum != Z_OK)
		rc = pp_fail(err, PP_ERR_IO, "cannot read '%s': gzip: %s", path, why);
	gzclose_r(z);
	if (t->buf != NULL)
		t->buf[t->len] = '\0';
	return rc;
}

/* The columns of a measured CSV, -1 where absent; `overlap` is the op dump's (1 on the F of an
 * overlapped pair, whose backward is the next row). */
enum { C_STAGE, C_DEVICE, C_OP, C_MB, C_MS, C_START, C_END, C_OVERLAP, NCSV };
static const char *const csv_names[NCSV] = {"stage", "device", "op",  "microbatch",
                                            "ms",    "start",  "end", "overlap"};

/* Reads a measured CSV from f (file 0, named path): a header, then one op a line. */
static int read_csv(struct reader *r, FILE *f, const char *path, struct pp_error *err)
{
	struct text_lines in;
	int col[NCSV], ncols = 0, rc;
	bool header = false;
	size_t pair = SIZE_MAX; /* the index in r->ops of an overlapped F the last row read */

	text_lines_init(&in, f, r->what, path);
	while ((rc = text_lines_next(&in, err)) == 1) {
		char *fields[64], *line = in.line;
		size_t offs[64], n;
		uint64_t u[3] = {0, 0, 0};
		double t[3] = {0, 0, 0};
		struct range *x;
		int kind = -1;
		uint64_t overlap = 0;

		if (line[0] == '#' || line[strspn(line, " \t\r")] == '\0')
			continue;
		if ((rc = text_lines_check_csv(&in, err)) != 0)
			break;
		n = text_csv_split(line, true, fields, offs, 64);
		if (!header) {
			for (int c = 0; c < NCSV; c++)
				col[c] = -1;
			for (size_t i = 0; i < n && i < 64; i++)
				for (int c = 0; c < NCSV; c++)
					if (strcmp(fields[i], csv_names[c]) == 0) {
						if (col[c] >= 0) {
							rc = measured_fail(
							        r, err, 0, in.lineno, offs[i] + 1,
							        "column '%s' appears twice",
							        fields[i]);
							goto done;
						}
						col[c] = (int)i;
					}
			if (col[C_OP] < 0 || col[C_MB] < 0 ||
			    (col[C_STAGE] < 0 && col[C_DEVICE] < 0) ||
			    (col[C_MS] < 0 && (col[C_START] < 0 || col[C_END] < 0))) {
				rc = measured_fail(
				        r, err, 0, in.lineno, 1,
				        "a measured step's CSV needs columns op, microbatch, "
				        "stage or "
				        "device, and ms (or start and end): one line per op");
				goto done;
			}
			/* two durations would be read, which can disagree */
			if (col[C_MS] >= 0 && (col[C_START] >= 0 || col[C_END] >= 0)) {
				rc = measured_fail(r, err, 0, in.lineno,
				                   offs[col[C_MS]] + 1,
				                   "column 'ms' beside '%s': give an op's time as ms, "
				                   "or as start and end, not both",
				                   col[C_START] >= 0 ? "start" : "end");
				goto done;
			}
			ncols = n > 64 ? 64 : (int)n;
			r->starts = col[C_START] >= 0;
			header = true;
			continue;
		}
		if (n != (size_t)ncols) {
			rc = measured_fail(r, err, 0, in.lineno, 1, "has %zu fields, the header %d",
			                   n, ncols);
			goto done;
		}
		for (int c = C_STAGE; c <= C_MB; c++) {
			if (c == C_OP || col[c] < 0)
				continue;
			if (text_parse_uint(fields[col[c]], 0,
			                    (uint64_t)PP_MAX_COUNT * PP_MAX_CHUNKS,
			                    &u[c == C_MB ? 2 : c]) != TEXT_OK) {
				rc = measured_fail(r, err, 0, in.lineno, offs[col[c]] + 1,
				                   "the %s must be a whole number from 0 to %ld",
				                   csv_names[c],
				                   (long)PP_MAX_COUNT * PP_MAX_CHUNKS);
				goto done;
			}
		}
		for (int c = C_MS; c <= C_END; c++) {
			if (col[c] < 0)
				continue;
			if (text_parse_double(fields[col[c]], &t[c - C_MS]) != TEXT_OK ||
			    !(fabs(t[c - C_MS]) <= PP_TIME_MAX_UNITS)) {
				rc = measured_fail(r, err, 0, in.lineno, offs[col[c]] + 1,
				                   "the %s must be a number of ms from %g to %g",
				                   csv_names[c], c == C_MS ? 0 : -PP_TIME_MAX_UNITS,
				                   PP_TIME_MAX_UNITS);
				goto done;
			}
		}
		if (col[C_MS] < 0)
			t[0] = t[2] - t[1];
		if (t[0] < 0) {
			rc = measured_fail(r, err, 0, in.lineno,
			                   offs[col[col[C_MS] >= 0 ? C_MS : C_END]] + 1,
			                   "a negative time: %g ms", t[0]);
			goto done;
		}
		if (col[C_OVERLAP] >= 0 &&
		    text_parse_uint(fields[col[C_OVERLAP]], 0, 1, &overlap) != TEXT_OK) {
			rc = measured_fail(r, err, 0, in.lineno, offs[col[C_OVERLAP]] + 1,
			                   "the overlap must be 0 or 1 (1 on the F of an overlapped "
			                   "pair)");
			goto done;
		}
		if ((rc = text_lines_check_whole(&in, err)) != 0)
			goto done;
		if (strcasecmp(fields[col[C_OP]], "comm") == 0) {
			struct range *cl = measured_new_range(r, &r->comms, err);

			if (cl == NULL) {
				rc = -1;
				goto done;
			}
			cl->stage = col[C_STAGE] >= 0 ? (long)u[C_STAGE] : 0;
			cl->mb = col[C_MB] >= 0 ? (long)u[2] : -1;
			cl->line = in.lineno > UINT32_MAX ? UINT32_MAX : (uint32_t)in.lineno;
			cl->column = 1;
			r->comm_sum += t[0];
			r->ncomm++;
			continue;
		}
		for (int k = OP_F; k <= OP_BW; k++)
			if (strcasecmp(fields[col[C_OP]], sched_kind_name((enum op_kind)k)) == 0)
				kind = k;
		if (kind < 0) {
			rc = measured_fail(r, err, 0, in.lineno, offs[col[C_OP]] + 1,
			                   "unknown op '%.40s' (F, B, W, BW or comm)",
			                   fields[col[C_OP]]);
			goto done;
		}
		if ((x = measured_new_range(r, &r->ops, err)) == NULL) {
			rc = -1;
			goto done;
		}
		x->role = ROLE_OP;
		x->kind = (signed char)kind;
		x->stage = (long)(col[C_STAGE] >= 0 ? u[C_STAGE] : u[C_DEVICE]);
		x->dev = (long)(col[C_DEVICE] >= 0 ? u[C_DEVICE] : u[C_STAGE]);
		x->mb = (long)u[2];
		x->start = t[1];
		x->dur = t[0];
		x->line = in.lineno > UINT32_MAX ? UINT32_MAX : (uint32_t)in.lineno;
		x->column = 1;
		if (overlap && kind != OP_F) {
			rc = measured_fail(r, err, 0, in.lineno, offs[col[C_OVERLAP]] + 1,
			                   "overlap 1 on a %s: it marks the F of an overlapped pair, "
			                   "whose backward is the next row",
			                   sched_kind_name((enum op_kind)kind));
			goto done;
		}
		/* the row after an overlapped F is its backward when it runs at the same time on
		 * the same device (order_ops refuses an F without one) */
		x->overlapped = overlap || (pair != SIZE_MAX && r->ops.r[pair].dev == x->dev &&
		                            r->ops.r[pair].start == x->start &&
		                            r->ops.r[pair].dur == x->dur && kind != OP_F);
		pair = overlap ? r->ops.n - 1 : SIZE_MAX;
	}
done:
	if (rc == 0 && !header)
		rc = measured_fail(r, err, 0, 1, 1, "no measured ops: the file is empty");
	text_lines_release(&in);
	return rc < 0 ? -1 : 0;
}

/* Orders ranges by device, then start (when known), then the order read. */
static int by_device_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Orders ranges by device, then the order read (a CSV without start times). */
static int by_device_seq(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Keeps only the GPU annotations of a (when it holds any GPU annotation: gpu). */
static void keep_gpu(struct ranges *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		if (a->r[i].gpu)
			a->r[n++] = a->r[i];
	a->n = n;
}

/* Numbers the devices of a single trace: its pids that run ops, in increasing order, into
 * *pids (*npids of them). */
static int number_pids(struct reader *r, long **pids, size_t *npids, struct pp_error *err)
{
	size_t n = 0;

	*pids = pp_mallocarray(r->ops.n > 0 ? r->ops.n : 1, sizeof(**pids));
	if (*pids == NULL)
		return pp_nomem(err, r->ops.n, sizeof(**pids));
	for (size_t i = 0; i < r->ops.n; i++)
		(*pids)[i] = r->ops.r[i].dev;
	qsort(*pids, r->ops.n, sizeof(**pids), by_long);
	for (size_t i = 0; i < r->ops.n; i++)
		if (i == 0 || (*pids)[i] != (*pids)[n - 1])
			(*pids)[n++] = (*pids)[i];
	*npids = n;
	for (size_t i = 0; i < r->ops.n; i++) {
		long *at = bsearch(&r->ops.r[i].dev, *pids, n, sizeof(**pids), by_long);

		r->ops.r[i].dev = at - *pids;
	}
	for (size_t i = 0; i < r->sends.n; i++) {
		struct range *x = &r->sends.r[i];
		long *at = bsearch(&x->dev, *pids, n, sizeof(**pids), by_long);

		if (at == NULL)
			return measured_fail(
			        r, err, x->file, x->line, x->column,
			        "a transfer on process %ld, which runs no op of the step", x->dev);
		x->dev = at - *pids;
	}
	return 0;
}

/* Whether two times in the file's unit are apart by more than their rounding (a few units in
 * the last place of the larger): b ends before a. */
static bool before(double b, double a)
{
	return b < a - 8 * DBL_EPSILON * fmax(fabs(a), fabs(b));
}

/*
 * Each device's ranges of r->ops, sorted: an overlapped pair's two slices (ppsim's names) made
 * one, a pair written twice (once per op, as ppsim writes it) kept once, a range that starts
 * before the one before it on its device ends refused. Compacts r->ops.
 */
static int order_ops(struct reader *r, struct pp_error *err)
{
	struct range *a = r->ops.r;
	size_t n = 0;

	qsort(a, r->ops.n, sizeof(*a), r->starts ? by_device_start : by_device_seq);
	for (size_t i = 0; i < r->ops.n; i++) {
		struct range x = a[i];
		const struct range *prev = n > 0 && a[n - 1].dev == x.dev ? &a[n - 1] : NULL;

		if (x.overlapped && x.kind == OP_F) {
			const struct range *b = i + 1 < r->ops.n ? &a[i + 1] : NULL;

			if (b == NULL || b->dev != x.dev || !b->overlapped || b->kind == OP_F ||
			    b->kind == OP_W || b->start != x.start || b->dur != x.dur)
				return measured_fail(
				        r, err, x.file, x.line, x.column,
				        "an overlapped F (%s) without its backward at the same time "
				        "after it on its device",
				        r->format == MEASURED_CSV ? "overlap 1"
				                                  : "\"overlapped\": true");
			x.role = ROLE_PAIR;
			x.stage2 = b->stage;
			x.mb2 = b->mb;
			x.kind2 = b->kind;
			i++;
		} else if (x.overlapped) {
			return measured_fail(
			        r, err, x.file, x.line, x.column,
			        "an overlapped backward (\"overlapped\": true) without its F at "
			        "the same time before it on its device");
		}
		if (x.role == ROLE_PAIR && prev != NULL && prev->role == ROLE_PAIR &&
		    prev->stage == x.stage && prev->mb == x.mb && prev->stage2 == x.stage2 &&
		    prev->mb2 == x.mb2 && prev->kind2 == x.kind2 && prev->start == x.start &&
		    prev->dur == x.dur)
			continue; /* the pair's other op's slice */
		if (r->starts && prev != NULL && before(x.start, prev->start + prev->dur)) {
			char at[32], end[32];

			return measured_fail(
			        r, err, x.file, x.line, x.column,
			        "this range starts at %s, before the range before it on its "
			        "device (line %" PRIu32 ") ends at %s: a device runs one op at a time",
			        pp_double_format(at, sizeof(at), x.start), prev->line,
			        pp_double_format(end, sizeof(end), prev->start + prev->dur));
		}
		a[n++] = x;
	}
	r->ops.n = n;
	return 0;
}

/*
 * Builds m's schedule from r's ordered ranges (schedfile_build) and sets each op's time, scale
 * units of the file to a time unit.
 */
static int build_step(struct reader *r, double scale, struct measured *m, struct pp_error *err)
{
	struct schedfile_row *rows =
	        pp_mallocarray(2 * (r->ops.n > 0 ? r->ops.n : 1), sizeof(*rows));
	size_t *from = pp_mallocarray(2 * (r->ops.n > 0 ? r->ops.n : 1), sizeof(*from));
	size_t n = 0, *op_row = NULL;
	struct schedfile sf;
	int rc;

	if (rows == NULL || from == NULL) {
		free(rows);
		free(from);
		return pp_nomem(err, 2 * r->ops.n, sizeof(*rows) + sizeof(*from));
	}
	for (size_t i = 0; i < r->ops.n; i++) {
		const struct range *x = &r->ops.r[i];

		rows[n] = (struct schedfile_row){
		        x->dev,  x->stage, x->mb,    x->kind, x->role == ROLE_PAIR,
		        x->file, x->line,  x->column};
		from[n++] = i;
		if (x->role == ROLE_PAIR) {
			rows[n] = (struct schedfile_row){x->dev, x->stage2, x->mb2,  x->kind2,
			                                 false,  x->file,   x->line, x->column};
			from[n++] = i | ((size_t)1 << (sizeof(size_t) * 8 - 1));
		}
	}
	rc = schedfile_build(r->what, r->paths, r->npaths, rows, n, r->max_ops, &sf, &op_row, err);
	free(rows);
	if (rc != 0) {
		free(from);
		return -1;
	}
	m->sched = sf.sched;
	free(sf.lines);
	free(sf.columns);
	free(sf.cells);
	m->op = pp_mallocarray(m->sched->nops, sizeof(*m->op));
	if (m->op == NULL) {
		free(from);
		free(op_row);
		return pp_nomem(err, m->sched->nops, sizeof(*m->op));
	}
	for (size_t i = 0; i < m->sched->nops; i++) {
		size_t k = from[op_row[i]];
		bool second = k >> (sizeof(size_t) * 8 - 1);

		m->op[i] = second ? 0 : r->ops.r[k].dur * scale;
	}
	free(from);
	free(op_row);
	return 0;
}

/* The op index + 1 of the op that sends transfer x in s (0: none), where at[pass * S * m + stage
 * * m + mb] holds each op's index + 1 by pass (0 forward, 1 backward). */
static size_t sender(const struct sched *s, const size_t *at, const struct range *x)
{
	if (x->stage >= s->S || x->mb >= s->m)
		return 0;
	return at[(size_t)(x->kind != OP_F) * (size_t)s->S * (size_t)s->m +
	          (size_t)x->stage * (size_t)s->m + (size_t)x->mb];
}

/* Whether op o of s sends a message to another device. */
static bool sends_across(const struct sched *s, const struct op *o)
{
	if (o->kind == OP_W)
		return false;
	if (o->kind == OP_F)
		return !sched_route_last(s, o->stage) &&
		       s->stage_device[o->stage + 1] != s->stage_device[o->stage];
	return !sched_route_first(s, o->stage) &&
	       s->stage_device[o->stage - 1] != s->stage_device[o->stage];
}

/* The messages of r's transfers into m->msg (scale: as build_step's). */
static int read_messages(struct reader *r, double scale, struct measured *m, struct pp_error *err)
{
	const struct sched *s = m->sched;
	size_t cells = 2 * (size_t)s->S * (size_t)s->m, *at;
	double sum = 0;
	pp_time t;
	int64_t msg_tick;

	if (r->sends.n == 0 && r->ncomm == 0)
		return 0;
	m->msg = pp_calloc(s->nops, sizeof(*m->msg));
	at = pp_calloc(cells, sizeof(*at));
	if (m->msg == NULL || at == NULL) {
		free(at);
		return pp_nomem(err, cells, sizeof(*at));
	}
	for (size_t i = 0; i < s->nops; i++) {
		const struct op *o = &s->ops[i];

		if (o->kind != OP_W)
			at[(size_t)(o->kind != OP_F) * (cells / 2) +
			   (size_t)o->stage * (size_t)s->m + o->mb] = i + 1;
		m->msg[i] = NAN;
	}
	for (size_t k = 0; k < r->sends.n; k++) {
		const struct range *x = &r->sends.r[k];
		size_t i = sender(s, at, x);
		char op[64];
		int rc = 0;

		if (i == 0)
			rc = measured_fail(
			        r, err, x->file, x->line, x->column,
			        "a transfer of %s (mb %ld, stage %ld), which the step does not run",
			        x->kind == OP_F ? "the forward" : "the backward", x->mb, x->stage);
		else if (s->stage_device[x->stage] != (uint32_t)x->dev)
			rc = measured_fail(
			        r, err, x->file, x->line, x->column,
			        "a transfer on device %ld of %s, whose stage is on device %" PRIu32,
			        x->dev, sched_op_format(op, sizeof(op), &s->ops[i - 1]),
			        s->stage_device[x->stage]);
		else if (!sends_across(s, &s->ops[i - 1]))
			rc = measured_fail(
			        r, err, x->file, x->line, x->column,
			        "a transfer of %s, which sends no message to another device",
			        sched_op_format(op, sizeof(op), &s->ops[i - 1]));
		else if (!isnan(m->msg[i - 1]))
			rc = measured_fail(r, err, x->file, x->line, x->column,
			                   "a second transfer of %s",
			                   sched_op_format(op, sizeof(op), &s->ops[i - 1]));
		if (rc != 0) {
			free(at);
			return -1;
		}
		m->msg[i - 1] = x->dur * scale;
		sum += m->msg[i - 1];
	}
	/* a CSV's comm lines: each a message of a stage (and micro-batch, when the file has them)
	 * the step runs, once, in a step that sends messages at all */
	for (size_t k = 0; k < r->comms.n; k++) {
		const struct range *x = &r->comms.r[k];
		bool any = false;
		int rc = 0;

		for (size_t i = 0; i < s->nops && !any; i++)
			any = sends_across(s, &s->ops[i]);
		if (!any)
			rc = measured_fail(r, err, 0, x->line, x->column,
			                   "a comm line, but the step sends no message between devices");
		else if (x->stage >= (long)s->S || x->mb >= (long)s->m)
			rc = measured_fail(r, err, 0, x->line, x->column,
			                   "a comm line of stage %ld%s%ld, which the step does not run",
			                   x->stage, x->mb >= 0 ? ", micro-batch " : "",
			                   x->mb >= 0 ? x->mb : 0L);
		for (size_t j = 0; j < k && rc == 0 && x->mb >= 0; j++)
			if (r->comms.r[j].stage == x->stage && r->comms.r[j].mb == x->mb)
				rc = measured_fail(r, err, 0, x->line, x->column,
				                   "a second comm line of stage %ld, micro-batch %ld "
				                   "(line %" PRIu32 " has one)",
				                   x->stage, x->mb, r->comms.r[j].line);
		if (rc != 0) {
			free(at);
			return -1;
		}
	}
	free(at);
	m->nmsgs = r->sends.n + r->ncomm;
	m->msg_mean = (sum + r->comm_sum * scale) / (double)m->nmsgs;
	/* to the resolution of a message's time in the step's run (6 decimals, finer with chunks:
	 * PP_TICK_BASE x v / routes ticks a unit, as the costs price it): 0.1, not
	 * 0.09999999999999998, and 5e-7 at v = 2 stays 5e-7 */
	msg_tick = pp_run_tick(s->v, s->routes);
	if (!pp_time_from_units(m->msg_mean, msg_tick, &t))
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%s': the messages' mean time, %g, is no time a "
		               "message may take",
		               r->what, r->paths[0], m->msg_mean);
	m->msg_mean = pp_time_to_units(t, msg_tick);
	for (size_t i = 0; i < s->nops; i++)
		if (isnan(m->msg[i]))
			m->msg[i] = sends_across(s, &s->ops[i]) ? m->msg_mean : 0;
	return 0;
}

/* One file given twice (by one name, or two naming the same file) would replay its ranges
 * twice, each overlapping itself: refused naming it. Returns 0, or -1 with err set. */
static int given_twice(const char *const *paths, int n, struct pp_error *err)
{
	struct stat *st = pp_mallocarray((size_t)n, sizeof(*st));
	bool *known = pp_calloc((size_t)n, sizeof(*known));
	int rc = 0;

	if (st == NULL || known == NULL) {
		free(st);
		free(known);
		return pp_nomem(err, (size_t)n, sizeof(*st) + sizeof(*known));
	}
	for (int k = 0; k < n; k++)
		known[k] = stat(paths[k], &st[k]) == 0 && S_ISREG(st[k].st_mode);
	for (int k = 1; k < n && rc == 0; k++)
		for (int j = 0; j < k && rc == 0; j++)
			if (strcmp(paths[j], paths[k]) == 0 ||
			    (known[j] && known[k] && st[j].st_dev == st[k].st_dev &&
			     st[j].st_ino == st[k].st_ino))
				rc = strcmp(paths[j], paths[k]) == 0
				             ? pp_fail(err, PP_ERR_USAGE,
				                       "measured step: '%s' is given twice", paths[k])
				             : pp_fail(err, PP_ERR_USAGE,
				                       "measured step: '%s' and '%s' are one file",
				                       paths[j], paths[k]);
	free(st);
	free(known);
	return rc;
}

/* Reads file k of r into its ranges. */
static int read_file(struct reader *r, uint32_t k, struct pp_error *err)
{
	struct text t = {NULL, 0};
	const char *path = r->paths[k];
	size_t at;
	bool json;
	int rc = text_read_file(path, read_all, &t, err);

	if (rc != 0) {
		free(t.buf);
		return -1;
	}
	at = json_blanks_end(t.buf, t.len, strncmp(t.buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0);
	json = at < t.len && (t.buf[at] == '{' || t.buf[at] == '[');
	if (k == 0)
		r->format = json ? MEASURED_TRACE : MEASURED_CSV;
	r->what = r->format == MEASURED_TRACE ? "trace" : "measured";
	if (r->npaths > 1 && !json)
		rc = pp_fail(err, PP_ERR_USAGE,
		             "'%s' is not a trace (a JSON file): a step in several files takes one "
		             "trace per device",
		             path);
	else if (r->format == MEASURED_TRACE) {
		rc = measured_read_trace(r, k, &t, err);
	} else if (t.len == 0) {
		rc = measured_fail(r, err, k, 1, 1, "no measured ops: the file is empty");
	} else if (memchr(t.buf, '\0', t.len < 4096 ? t.len : 4096) != NULL) {
		/* a Perfetto protobuf trace (--trace=FILE.pftrace) begins with a packet, 0x0A */
		rc = measured_fail(r, err, k, 1, 1,
		                   t.buf[0] == '\x0a'
		                           ? "a binary file, as a Perfetto protobuf trace is: replay "
		                             "reads a trace as JSON (--trace=FILE.json) or a CSV"
		                           : "a binary file: replay reads a trace as JSON or a CSV");
	} else {
		FILE *f = fmemopen(t.buf, t.len, "r");

		if (f == NULL)
			rc = pp_nomem(err, 1, t.len);
		else {
			rc = read_csv(r, f, path, err);
			fclose(f);
		}
	}
	free(t.buf);
	return rc;
}

int measured_read(const char *const *paths, int n, uint64_t max_ops, struct measured *m,
                  struct pp_error *err)
{
	struct reader r = {.paths = paths, .npaths = n, .time_unit = "ms", .max_ops = max_ops};
	double scale, lo = INFINITY, hi = -INFINITY;
	long *pids = NULL;
	size_t npids = 0;
	bool gpu = false;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	m->msg_mean = NAN;
	if (n < 1 || n > MEASURED_MAX_FILES)
		return pp_fail(err, PP_ERR_USAGE, "a measured step is 1 to %d files, not %d",
		               MEASURED_MAX_FILES, n);
	m->path = paths[0];
	r.starts = true;
	if (given_twice(paths, n, err) != 0)
		return -1;
	for (int k = 0; k < n && rc == 0; k++)
		rc = read_file(&r, (uint32_t)k, err);
	m->format = r.format;
	scale = r.format == MEASURED_TRACE ? 1e-3 : 1;
	for (size_t i = 0; rc == 0 && i < r.ops.n; i++)
		gpu |= r.ops.r[i].gpu;
	if (rc == 0 && gpu) {
		keep_gpu(&r.ops);
		keep_gpu(&r.sends);
	}
	if (rc == 0 && r.ops.n == 0 && r.begin_end > 0)
		rc = pp_fail(err, PP_ERR_CONFIG,
		             "%s '%s': its %zu PP: ranges are begin and end events (ph B and E); "
		             "replay reads complete events (ph X, with dur), as torch.profiler "
		             "writes them",
		             r.what, paths[0], r.begin_end);
	else if (rc == 0 && r.ops.n == 0)
		rc = pp_fail(
		        err, PP_ERR_CONFIG, "%s '%s': %s", r.what, paths[0],
		        r.format == MEASURED_CSV
		                ? "no op times (F, B, W or BW) after the header"
		                : "no op of a pipeline step (ranges named PP:STAGE, F, I, B or W, "
		                  "MICROBATCH, as PyTorch's pipelining records them, or ppsim's "
		                  "op slices)");
	if (rc == 0) {
		/* forwards alone are a serving run's (ppsim serve's trace and op dump), or an
		 * inference step's: not a training step */
		bool backward = false;

		for (size_t i = 0; i < r.ops.n && !backward; i++)
			backward = r.ops.r[i].kind != OP_F || r.ops.r[i].role == ROLE_PAIR ||
			           r.ops.r[i].overlapped;
		if (!backward)
			rc = pp_fail(err, PP_ERR_CONFIG,
			             "%s '%s': forward ops alone, as a serving run's (ppsim serve's "
			             "trace or op dump) or an inference step's: replay reads a "
			             "training step, with its backward ops",
			             r.what, paths[0]);
	}
	if (rc == 0 && r.format == MEASURED_TRACE && n == 1)
		rc = number_pids(&r, &pids, &npids, err);
	if (rc == 0)
		rc = order_ops(&r, err);
	for (size_t i = 0; rc == 0 && r.starts && i < r.ops.n; i++) {
		lo = fmin(lo, r.ops.r[i].start);
		hi = fmax(hi, r.ops.r[i].start + r.ops.r[i].dur);
	}
	m->step = r.starts ? (hi - lo) * scale : NAN;
	m->time_unit = r.time_unit;
	if (rc == 0)
		rc = build_step(&r, scale, m, err);
	if (rc == 0)
		rc = read_messages(&r, scale, m, err);
	free(pids);
	free(r.ops.r);
	free(r.sends.r);
	free(r.comms.r);
	if (rc != 0)
		measured_release(m);
	return rc;
}

void measured_release(struct measured *m)
{
	sched_free(m->sched);
	free(m->op);
	free(m->msg);
	m->sched = NULL;
	m->op = NULL;
	m->msg = NULL;
}
