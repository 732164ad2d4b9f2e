/* Schedule files: parse the CSV, infer the shape, build and check the schedule. */
#include "ppsim/schedfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/config.h"

enum column { COL_DEVICE, COL_CHUNK, COL_STAGE, COL_OP, COL_MB, COL_START, COL_END, NCOLS };

static const char *const column_names[NCOLS] = {"device",     "chunk", "stage", "op",
                                                "microbatch", "start", "end"};

/* One parsed row; -1 marks a column the file does not have. */
struct row {
	long device, chunk, stage, mb;
	int kind;
	uint32_t line;
};

/* Reader state: the path for messages, the column of each field, the rows so far. */
struct reader {
	const char *path;
	int col[NCOLS]; /* field index of each column, -1 when absent */
	int nfields;    /* fields per line */
	struct row *rows;
	size_t nrows, cap;
};

static int fail_at(const struct reader *r, struct pp_error *err, unsigned line, unsigned column,
                   const char *fmt, const char *what)
{
	char msg[600];

	snprintf(msg, sizeof(msg), fmt, what);
	err->line = (int)line;
	err->column = (int)column;
	return pp_fail(err, PP_ERR_CONFIG, "schedule '%s':%u:%u: %s", r->path, line, column, msg);
}

/* Splits line in place at commas into at most max fields, trimming blanks; returns the count
 * and each field's 1-based column in cols[]. */
static int split_fields(char *line, char **fields, unsigned *cols, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		char *end = strchr(p, ',');
		char *q;

		if (end != NULL)
			*end = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		q = p + strlen(p);
		while (q > p && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r' || q[-1] == '\n'))
			*--q = '\0';
		if (n < max) {
			fields[n] = p;
			cols[n] = (unsigned)(p - line) + 1;
		}
		n++;
		if (end == NULL)
			return n;
		p = end + 1;
	}
}

static int parse_header(struct reader *r, char *line, unsigned lineno, struct pp_error *err)
{
	char *fields[64];
	unsigned cols[64];
	int n = split_fields(line, fields, cols, 64);

	for (int c = 0; c < NCOLS; c++)
		r->col[c] = -1;
	if (n > 64)
		return fail_at(r, err, lineno, 1, "%s", "more than 64 columns");
	for (int i = 0; i < n; i++) {
		int c = 0;

		while (c < NCOLS && strcmp(fields[i], column_names[c]) != 0)
			c++;
		if (c == NCOLS)
			return fail_at(r, err, lineno, cols[i],
			               "unknown column \"%s\" (columns: device, chunk, stage, op, "
			               "microbatch, start, end)",
			               fields[i]);
		if (r->col[c] >= 0)
			return fail_at(r, err, lineno, cols[i], "column \"%s\" appears twice",
			               fields[i]);
		r->col[c] = i;
	}
	r->nfields = n;
	if (r->col[COL_DEVICE] < 0 || r->col[COL_OP] < 0 || r->col[COL_MB] < 0 ||
	    (r->col[COL_STAGE] < 0 && r->col[COL_CHUNK] < 0))
		return fail_at(
		        r, err, lineno, 1, "%s",
		        "the header needs columns device, op, microbatch, and stage or chunk");
	return 0;
}

/* A field as an integer from 0 to PP_MAX_COUNT * PP_MAX_CHUNKS; -1 when it is not one. */
static long parse_index(const char *s)
{
	char *end;
	long x;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || x > (long)PP_MAX_COUNT * PP_MAX_CHUNKS)
		return -1;
	return x;
}

static int parse_row(struct reader *r, char *line, unsigned lineno, struct pp_error *err)
{
	static const char *const kinds[] = {"F", "B", "W", "BW"};
	char *fields[64];
	unsigned cols[64];
	int n = split_fields(line, fields, cols, 64);
	long *targets[NCOLS];
	struct row row = {-1, -1, -1, -1, -1, lineno};

	if (n != r->nfields) {
		char what[64];

		snprintf(what, sizeof(what), "%d fields, the header has %d", n, r->nfields);
		return fail_at(r, err, lineno, 1, "%s", what);
	}
	targets[COL_DEVICE] = &row.device;
	targets[COL_CHUNK] = &row.chunk;
	targets[COL_STAGE] = &row.stage;
	targets[COL_MB] = &row.mb;
	for (int c = 0; c < NCOLS; c++) {
		int i = r->col[c];

		if (i < 0 || c == COL_START || c == COL_END)
			continue;
		if (c == COL_OP) {
			for (int k = 0; k < 4; k++)
				if (strcmp(fields[i], kinds[k]) == 0)
					row.kind = k;
			if (row.kind < 0)
				return fail_at(r, err, lineno, cols[i],
				               "op \"%s\": must be F, B, W or BW", fields[i]);
			continue;
		}
		*targets[c] = parse_index(fields[i]);
		if (*targets[c] < 0)
			return fail_at(r, err, lineno, cols[i],
			               "\"%s\": must be a non-negative integer", fields[i]);
	}
	if (r->nrows == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->rows = pp_xrealloc(r->rows, r->cap * sizeof(*r->rows));
	}
	r->rows[r->nrows++] = row;
	if (r->nrows > PP_MAX_OPS)
		return fail_at(r, err, lineno, 1, "%s", "more ops than the limit of 50000000");
	return 0;
}

/* Reads every line of f into r; 0 or -1. */
static int read_lines(struct reader *r, FILE *f, struct pp_error *err)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	bool header = false;
	int rc = 0;

	ssize_t len;

	while (rc == 0 && (len = getline(&line, &cap, f)) != -1) {
		const char *p = line;

		lineno++;
		if (strlen(line) != (size_t)len) {
			rc = fail_at(r, err, lineno, (unsigned)strlen(line) + 1, "%s",
			             "a NUL byte: not a text file");
			break;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
			continue;
		rc = header ? parse_row(r, line, lineno, err) : parse_header(r, line, lineno, err);
		header = true;
	}
	free(line);
	if (rc == 0 && ferror(f))
		rc = pp_fail(err, PP_ERR_IO, "cannot read '%s': %s", r->path, strerror(errno));
	if (rc == 0 && !header)
		rc = pp_fail(err, PP_ERR_CONFIG, "schedule '%s': no header line", r->path);
	if (rc == 0 && r->nrows == 0)
		rc = pp_fail(err, PP_ERR_CONFIG, "schedule '%s': no ops after the header", r->path);
	return rc;
}

/* Stage of a chunk on a device under a placement, without a schedule at hand. */
static long stage_under(enum placement pl, long p, long d, long c)
{
	if (pl == PLACE_V && c % 2 == 1)
		return (c + 1) * p - 1 - d;
	return c * p + d;
}

/* Chunk of a stage under a placement, or -1 when the stage is not on device d. */
static long chunk_under(enum placement pl, long p, long d, long st)
{
	long c = st / p;

	return stage_under(pl, p, d, c) == st ? c : -1;
}

/* Infers p, v, m, split and placement, and fills the missing stage or chunk of each row. */
static int infer_shape(struct reader *r, struct sched_params *sp, bool *split, enum placement *pl,
                       struct pp_error *err)
{
	long p = 0, m = 0, top = 0, v;
	bool fused = false, parts = false;
	uint64_t ops;

	for (size_t i = 0; i < r->nrows; i++) {
		struct row *w = &r->rows[i];
		long place = w->chunk >= 0 ? w->chunk : w->stage;

		p = w->device + 1 > p ? w->device + 1 : p;
		m = w->mb + 1 > m ? w->mb + 1 : m;
		top = place + 1 > top ? place + 1 : top;
		fused |= w->kind == OP_BW;
		parts |= w->kind == OP_B || w->kind == OP_W;
		if (fused && parts)
			return fail_at(
			        r, err, w->line, 1, "%s",
			        "mixes fused BW with split B/W ops (one backward kind per file)");
	}
	if (p > PP_MAX_COUNT || m > PP_MAX_COUNT)
		return pp_fail(err, PP_ERR_CONFIG,
		               "schedule '%s': %ld devices and %ld micro-batches,"
		               " above the limit of %d",
		               r->path, p, m, PP_MAX_COUNT);
	*split = parts;
	sp->p = (int)p;
	sp->m = (int)m;
	sp->group = 0;
	/* chunks known: v is their count; stages only: v = stages / p, rounded up */
	v = r->col[COL_CHUNK] >= 0 ? top : (top + p - 1) / p;
	if (v > PP_MAX_CHUNKS)
		return pp_fail(err, PP_ERR_CONFIG,
		               "schedule '%s': %ld chunks per device, above the limit of %d",
		               r->path, v, PP_MAX_CHUNKS);
	sp->v = (int)v;
	if (!sched_op_count(sp->p, sp->v, sp->m, parts, &ops) || ops > PP_MAX_OPS)
		return pp_fail(err, PP_ERR_CONFIG,
		               "schedule '%s': p=%d v=%d m=%d needs %.3g ops, above the limit of "
		               "%" PRIu64,
		               r->path, sp->p, sp->v, sp->m,
		               (double)sp->p * sp->v * sp->m * (parts ? 3 : 2), PP_MAX_OPS);
	/* the placement that explains every row: loop first, then V (two chunks) */
	for (int k = 0; k < 2; k++) {
		enum placement cand = k == 0 ? PLACE_LOOP : PLACE_V;
		size_t i = 0;

		if (cand == PLACE_V && sp->v != 2)
			break;
		for (; i < r->nrows; i++) {
			const struct row *w = &r->rows[i];

			if (w->stage >= 0 && w->chunk >= 0
			            ? stage_under(cand, p, w->device, w->chunk) != w->stage
			            : w->stage >= 0 &&
			                      chunk_under(cand, p, w->device, w->stage) < 0)
				break;
		}
		if (i == r->nrows) {
			*pl = cand;
			for (i = 0; i < r->nrows; i++) {
				struct row *w = &r->rows[i];

				if (w->stage < 0)
					w->stage = stage_under(cand, p, w->device, w->chunk);
			}
			return 0;
		}
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];

		if (w->stage >= 0 &&
		    (w->chunk >= 0 ? stage_under(PLACE_LOOP, p, w->device, w->chunk) != w->stage
		                   : chunk_under(PLACE_LOOP, p, w->device, w->stage) < 0)) {
			char what[200], name[64];
			struct op op = {(uint32_t)w->mb, (uint32_t)w->stage, (uint8_t)w->kind};

			snprintf(what, sizeof(what),
			         "%s on device %ld: stage %ld does not sit on device %ld under the "
			         "loop "
			         "placement (stage c*p + d) or the V placement",
			         sched_op_format(name, sizeof(name), &op), w->device, w->stage,
			         w->device);
			return fail_at(r, err, w->line, 1, "%s", what);
		}
	}
	return pp_fail(err, PP_ERR_CONFIG, "schedule '%s': no placement explains every op",
	               r->path);
}

int schedfile_read(const char *path, struct schedfile *out, struct pp_error *err)
{
	struct reader r = {path, {0}, 0, NULL, 0, 0};
	struct sched_params sp = {0, 0, 0, 0};
	enum placement pl = PLACE_LOOP;
	bool split = false;
	size_t *counts = NULL, bad = 0;
	FILE *f = fopen(path, "r");
	int rc;

	memset(out, 0, sizeof(*out));
	if (f == NULL)
		return pp_fail(err, PP_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
	rc = read_lines(&r, f, err);
	fclose(f);
	if (rc == 0)
		rc = infer_shape(&r, &sp, &split, &pl, err);
	if (rc == 0) {
		counts = pp_xcalloc((size_t)sp.p, sizeof(*counts));
		for (size_t i = 0; i < r.nrows; i++)
			counts[r.rows[i].device]++;
		out->sched = sched_alloc_counts(sp.p, sp.v, sp.m, split, pl, counts);
		out->lines = pp_xmallocarray(r.nrows, sizeof(*out->lines));
		for (size_t i = 0; i < r.nrows; i++) {
			const struct row *w = &r.rows[i];
			struct sched *s = out->sched;
			size_t at = s->dev_start[w->device] + s->dev_fill[w->device];

			out->lines[at] = w->line;
			sched_push(s, (int)w->device, (enum op_kind)w->kind, (int)w->mb,
			           (int)w->stage);
		}
		if (sched_check_where(out->sched, &bad, err) != 0) {
			if (bad != SIZE_MAX) {
				char msg[sizeof(err->msg)];

				snprintf(msg, sizeof(msg), "%s", err->msg);
				err->line = (int)out->lines[bad];
				err->column = 1;
				pp_fail(err, PP_ERR_CONFIG, "schedule '%s':%u:1: %s", path,
				        out->lines[bad], msg);
			} else {
				char msg[sizeof(err->msg)];

				snprintf(msg, sizeof(msg), "%s", err->msg);
				pp_fail(err, PP_ERR_CONFIG, "schedule '%s': %s", path, msg);
			}
			rc = -1;
		} else if (sched_check_order(out->sched, err) != 0) {
			char msg[sizeof(err->msg)];

			snprintf(msg, sizeof(msg), "%s", err->msg);
			pp_fail(err, PP_ERR_CONFIG, "schedule '%s': %s", path, msg);
			rc = -1;
		}
	}
	free(counts);
	free(r.rows);
	if (rc != 0)
		schedfile_release(out);
	return rc;
}

void schedfile_release(struct schedfile *f)
{
	sched_free(f->sched);
	free(f->lines);
	f->sched = NULL;
	f->lines = NULL;
}
