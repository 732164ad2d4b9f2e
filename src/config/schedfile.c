/*
 * Schedule files read: ppsim's or PyTorch's CSV parsed into rows, which schedfile_check.c makes
 * a schedule of (its shape inferred, its ops built and checked, naming the line and column of
 * the op at fault); writing one is schedfile_write.c's. Lines come from the bounded reader of
 * base/text.h and are split into fields there; each field becomes a row (one op, with where it
 * stood).
 */
#include "ppsim/schedfile.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "ppsim/config.h"
#include "schedfile_internal.h"

/* The op dump's columns: the times and the slack a dump gives are read past. */
static const char *const column_names[NCOLS] = {"device",  "chunk", "stage", "op",   "microbatch",
                                                "overlap", "start", "end",   "slack"};

const struct torch_type_row schedfile_torch_types[NTORCH_TYPES] = {
        [TT_F] = {"F", OP_F, true},
        [TT_I] = {"I", OP_B, true},
        [TT_W] = {"W", OP_W, true},
        [TT_B] = {"B", OP_BW, true},
        [TT_SEND_F] = {"SEND_F", -1, true},
        [TT_RECV_F] = {"RECV_F", -1, true},
        [TT_SEND_B] = {"SEND_B", -1, true},
        [TT_RECV_B] = {"RECV_B", -1, true},
        [TT_UNSHARD] = {"UNSHARD", -1, false},
        [TT_RESHARD] = {"RESHARD", -1, false},
        [TT_REDUCE_GRAD] = {"REDUCE_GRAD", -1, false},
};

/* Fails err at line and column of the file path (one of r's). Returns -1. */
int schedfile_fail_in(const struct reader *r, struct pp_error *err, const char *path, unsigned line,
                      unsigned column, const char *what)
{
	err->line = (int)line;
	err->column = (int)column;
	return pp_fail(err, PP_ERR_CONFIG, "%s '%s':%u:%u: %s", r->what, path, line, column, what);
}

static int fail_at(const struct reader *r, struct pp_error *err, unsigned line, unsigned column,
                   const char *what)
{
	return schedfile_fail_in(r, err, r->path, line, column, what);
}

/* The file row w stands in. */
const char *schedfile_row_path(const struct reader *r, const struct row *w)
{
	return r->paths != NULL && w->cell == 0 ? r->paths[w->token] : r->path;
}

uint64_t schedfile_read_budget(uint64_t max_ops)
{
	uint64_t b;

	if (max_ops < PP_MAX_OPS)
		max_ops = PP_MAX_OPS;
	return pp_mul_u64(max_ops, PP_BYTES_PER_MAX_OP, &b) ? b : UINT64_MAX;
}

/*
 * Fails a file whose ops pass r->max_ops, or whose ops and actions pass the memory a reader may
 * hold (schedfile_read_budget), on the line that passes it; 0 while neither is passed.
 */
static int check_size(const struct reader *r, struct pp_error *err, unsigned line, unsigned column)
{
	uint64_t need = (uint64_t)r->nrows * SCHEDFILE_READ_OP +
	                (uint64_t)r->ncomms * SCHEDFILE_READ_ACTION;
	char what[320];

	if (r->nrows > r->max_ops || r->ncomms > 4 * r->max_ops) {
		snprintf(what, sizeof(what), "more ops than the limit of %" PRIu64, r->max_ops);
		return fail_at(r, err, line, column, what);
	}
	if (need <= r->budget)
		return 0;
	snprintf(what, sizeof(what),
	         "more than ppsim can read within its memory: %zu ops and %zu other actions take "
	         "about %" PRIu64
	         " bytes to read and check (%d an op, %d an action), more than the "
	         "%" PRIu64 " bytes --max-ops=%" PRIu64 " allows",
	         r->nrows, r->ncomms, need, SCHEDFILE_READ_OP, SCHEDFILE_READ_ACTION, r->budget,
	         r->max_ops);
	return fail_at(r, err, line, column, what);
}

/* fail_at the place of row w: its line and column, and for a PyTorch cell "rank R, cell N
 * 'TEXT': ". */
int schedfile_fail_row(const struct reader *r, struct pp_error *err, const struct row *w,
                       const char *what)
{
	char msg[sizeof(err->msg)];

	if (w->cell == 0)
		return schedfile_fail_in(r, err, schedfile_row_path(r, w), w->line, w->column,
		                         what);
	snprintf(msg, sizeof(msg), "rank %ld, cell %u '%.40s': %.900s", w->device, w->cell,
	         r->tokens + w->token, what);
	return fail_at(r, err, w->line, w->column, msg);
}

/* Keeps a copy of a PyTorch cell's text at *at, its offset in r->tokens; 0 or pp_nomem's -1. */
static int keep_token(struct reader *r, const char *text, size_t *at, struct pp_error *err)
{
	size_t len = strlen(text) + 1;

	if (pp_grow((void **)&r->tokens, &r->tokcap, r->ntokens + len, 1, err) != 0)
		return -1;
	*at = r->ntokens;
	memcpy(r->tokens + *at, text, len);
	r->ntokens += len;
	return 0;
}

/* Most columns of a ppsim schedule file. */
#define FIELDS_MAX 64

/* Splits line into fields (a '\r' before the newline trimmed with the blanks); returns the
 * count, and the first FIELDS_MAX fields with their 1-based columns in cols[]. */
static int split_fields(char *line, char **fields, unsigned *cols)
{
	size_t offs[FIELDS_MAX], n = text_csv_split(line, true, fields, offs, FIELDS_MAX);

	for (size_t i = 0; i < n && i < FIELDS_MAX; i++)
		cols[i] = (unsigned)offs[i] + 1;
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

/* A new row at line and column, or NULL with pp_nomem's error. */
static struct row *new_row(struct reader *r, unsigned line, unsigned column, struct pp_error *err)
{
	if (pp_grow((void **)&r->rows, &r->cap, r->nrows + 1, sizeof(*r->rows), err) != 0)
		return NULL;
	r->rows[r->nrows] = (struct row){-1, -1, -1, -1, -1, false, line, column, 0, 0};
	return &r->rows[r->nrows++];
}

static int parse_header(struct reader *r, char *line, unsigned lineno, struct pp_error *err)
{
	char *fields[FIELDS_MAX], what[160];
	unsigned cols[FIELDS_MAX];
	int n = split_fields(line, fields, cols);

	for (int c = 0; c < NCOLS; c++)
		r->col[c] = -1;
	if (n > FIELDS_MAX)
		return fail_at(r, err, lineno, 1, "more than 64 columns");
	for (int i = 0; i < n; i++) {
		int c = 0;

		while (c < NCOLS && strcmp(fields[i], column_names[c]) != 0)
			c++;
		if (c == NCOLS) {
			snprintf(what, sizeof(what),
			         "unknown column \"%.40s\" (columns: device, chunk, stage, op, "
			         "microbatch, overlap, start, end, slack)",
			         fields[i]);
			return fail_at(r, err, lineno, cols[i], what);
		}
		if (r->col[c] >= 0) {
			snprintf(what, sizeof(what), "column \"%s\" appears twice", fields[i]);
			return fail_at(r, err, lineno, cols[i], what);
		}
		r->col[c] = i;
	}
	r->nfields = n;
	if (r->col[COL_DEVICE] < 0 || r->col[COL_OP] < 0 || r->col[COL_MB] < 0 ||
	    (r->col[COL_STAGE] < 0 && r->col[COL_CHUNK] < 0))
		return fail_at(
		        r, err, lineno, 1,
		        "the header needs columns device, op, microbatch, and stage or chunk");
	return 0;
}

/* A field as an integer from 0 to PP_MAX_COUNT * PP_MAX_CHUNKS; -1 when it is not one. */
static long parse_index(const char *s)
{
	uint64_t x;

	if (text_parse_uint(s, 0, (uint64_t)PP_MAX_COUNT * PP_MAX_CHUNKS, &x) != TEXT_OK)
		return -1;
	return (long)x;
}

static int parse_ppsim_row(struct reader *r, char *line, unsigned lineno, struct pp_error *err)
{
	static const char *const kinds[] = {"F", "B", "W", "BW"};
	char *fields[FIELDS_MAX], what[160];
	unsigned cols[FIELDS_MAX];
	int n = split_fields(line, fields, cols);
	struct row *row;

	if (n != r->nfields) {
		snprintf(what, sizeof(what), "%d fields, the header has %d", n, r->nfields);
		return fail_at(r, err, lineno, 1, what);
	}
	row = new_row(r, lineno, 1, err);
	if (row == NULL)
		return -1;
	for (int c = 0; c < NCOLS; c++) {
		int i = r->col[c];
		long *target = c == COL_DEVICE  ? &row->device
		               : c == COL_CHUNK ? &row->chunk
		               : c == COL_STAGE ? &row->stage
		                                : &row->mb;

		if (i < 0 || c == COL_START || c == COL_END || c == COL_SLACK)
			continue;
		if (c == COL_OP) {
			for (int k = 0; k < 4; k++)
				if (strcmp(fields[i], kinds[k]) == 0)
					row->kind = k;
			if (row->kind < 0) {
				snprintf(what, sizeof(what), "op \"%.20s\": must be F, B, W or BW",
				         fields[i]);
				return fail_at(r, err, lineno, cols[i], what);
			}
			continue;
		}
		if (c == COL_OVERLAP) {
			if (strcmp(fields[i], "0") != 0 && strcmp(fields[i], "1") != 0) {
				snprintf(what, sizeof(what), "overlap \"%.20s\": must be 0 or 1",
				         fields[i]);
				return fail_at(r, err, lineno, cols[i], what);
			}
			row->overlap = fields[i][0] == '1';
			continue;
		}
		*target = parse_index(fields[i]);
		if (*target < 0) {
			uint64_t x;

			/* digits, but too many: past every number parse_index takes */
			if (text_parse_uint(fields[i], 0, 0, &x) == TEXT_RANGE)
				snprintf(what, sizeof(what),
				         "\"%.20s\": out of range: a number from 0 to %" PRIu64,
				         fields[i], (uint64_t)PP_MAX_COUNT * PP_MAX_CHUNKS);
			else
				snprintf(what, sizeof(what), "\"%.20s\": must be a non-negative integer",
				         fields[i]);
			return fail_at(r, err, lineno, cols[i], what);
		}
	}
	return 0;
}

/* The largest stage or micro-batch number an action may name. */
#define ACTION_MAX_INDEX ((uint64_t)PP_MAX_COUNT * PP_MAX_CHUNKS)

/* The number the digits a..b-1 write (leading zeros skipped), or -1 above ACTION_MAX_INDEX. */
static long parse_digits(const char *a, const char *b)
{
	char num[24];

	while (*a == '0' && a + 1 < b)
		a++;
	if (b - a >= (long)sizeof(num))
		return -1;
	memcpy(num, a, (size_t)(b - a));
	num[b - a] = '\0';
	return parse_index(num);
}

/* Parses a PyTorch action "STAGE TYPE MB" (TYPE a name of torch_types, MB only where it
 * takes one) into row (kind -1 for an action that is not an op) and *type; false if it is not
 * one, with *too_large set when its only fault is a number above ACTION_MAX_INDEX. */
static bool parse_action(const char *s, struct row *row, int *type, bool *too_large)
{
	const char *p = s, *t;
	size_t len = 0;
	int k;

	*too_large = false;
	while (isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return false;
	/* the type whose name the digits (or the end) follow */
	for (k = 0; k < NTORCH_TYPES; k++) {
		len = strlen(schedfile_torch_types[k].name);
		if (strncmp(p, schedfile_torch_types[k].name, len) == 0 &&
		    (p[len] == '\0' || isdigit((unsigned char)p[len])))
			break;
	}
	if (k == NTORCH_TYPES)
		return false;
	t = p + len;
	while (isdigit((unsigned char)*t))
		t++;
	if (*t != '\0' || (t == p + len) == schedfile_torch_types[k].mb)
		return false;
	*type = k;
	row->kind = schedfile_torch_types[k].kind;
	row->stage = parse_digits(s, p);
	row->mb = schedfile_torch_types[k].mb ? parse_digits(p + len, t) : -1;
	*too_large = row->stage < 0 || (row->mb < 0 && schedfile_torch_types[k].mb);
	return !*too_large;
}

int schedfile_parse_action(const char *text, struct schedfile_action *a)
{
	struct row x = {-1, -1, -1, -1, -1, false, 0, 0, 0, 0}, y = x;
	const char *close = strchr(text, ')'), *semi = strchr(text, ';');
	char f[SCHEDFILE_ACTION_MAX], b[SCHEDFILE_ACTION_MAX];
	bool large = false;
	int type = TT_F;

	memset(a, 0, sizeof(*a));
	if (text[0] != '(') {
		if (!parse_action(text, &x, &type, &large))
			return large ? -2 : -1;
		a->type = x.kind >= 0         ? SCHEDFILE_ACT_OP
		          : type == TT_SEND_F ? SCHEDFILE_ACT_SEND_F
		          : type == TT_SEND_B ? SCHEDFILE_ACT_SEND_B
		                              : SCHEDFILE_ACT_OTHER;
		a->stage = x.stage;
		a->mb = x.mb;
		a->kind = x.kind;
		return 0;
	}
	/* (F;B)OVERLAP_F_B: an F then a backward, run as one slot */
	if (close == NULL || semi == NULL || semi > close ||
	    strcmp(close + 1, "OVERLAP_F_B") != 0 || (size_t)(semi - text) > sizeof(f) ||
	    (size_t)(close - semi) > sizeof(b))
		return -1;
	memcpy(f, text + 1, (size_t)(semi - text - 1));
	f[semi - text - 1] = '\0';
	memcpy(b, semi + 1, (size_t)(close - semi - 1));
	b[close - semi - 1] = '\0';
	if (!parse_action(f, &x, &type, &large) || !parse_action(b, &y, &type, &large))
		return large ? -2 : -1;
	if (x.kind != OP_F || (y.kind != OP_BW && y.kind != OP_B))
		return -1;
	*a = (struct schedfile_action){SCHEDFILE_ACT_OP, x.stage, x.mb,  OP_F, true,
	                               y.stage,          y.mb,    y.kind};
	return 0;
}

/* The error of row's action, whose stage or micro-batch number is above ACTION_MAX_INDEX. */
static int fail_too_large(const struct reader *r, struct pp_error *err, const struct row *w)
{
	char what[96];

	snprintf(what, sizeof(what), "a stage or micro-batch number above %" PRIu64,
	         ACTION_MAX_INDEX);
	return schedfile_fail_row(r, err, w, what);
}

/* Moves row x, the last one read, to r->comms as an action of type; 0 or pp_nomem's -1. */
static int keep_comm(struct reader *r, struct row *x, int type, struct pp_error *err)
{
	if (pp_grow((void **)&r->comms, &r->commcap, r->ncomms + 1, sizeof(*r->comms), err) != 0)
		return -1;
	r->nrows--;
	r->comms[r->ncomms++] = (struct comm){*x, type, r->nrows};
	return 0;
}

/* A new row for PyTorch's cell number cell, whose text starts at column and is kept at token;
 * NULL with pp_nomem's error. */
static struct row *new_cell_row(struct reader *r, long device, unsigned line, unsigned column,
                                unsigned cell, size_t token, struct pp_error *err)
{
	struct row *x = new_row(r, line, column, err);

	if (x == NULL)
		return NULL;
	x->device = device;
	x->cell = cell;
	x->token = token;
	return x;
}

/* The column of p in a piece of a line that starts at column base, as rows keep it (at most
 * INT_MAX, which a line of gigabytes may pass). */
static unsigned column_of(size_t base, const char *piece, const char *p)
{
	size_t column = base + (size_t)(p - piece);

	return column > INT_MAX ? INT_MAX : (unsigned)column;
}

/*
 * Parses a piece of a PyTorch rank's line (the whole line, or a part holding whole cells, as
 * text_lines_next_piece gives it): at column base of line lineno, the line's first piece when
 * first, its last when last.
 */
static int parse_torch_piece(struct reader *r, char *line, unsigned lineno, size_t base, bool first,
                             bool last, struct pp_error *err)
{
	char *next = line;

	if (first) {
		r->devices++;
		r->cell = 0;
		r->line_rows = r->nrows;
		r->line_comms = r->ncomms;
	}
	while (next != NULL) {
		char *p = text_csv_next(&next, true);
		long device = r->devices - 1;
		size_t token = 0;
		int type = TT_F;
		bool too_large = false;
		unsigned column = column_of(base, line, p);

		r->cell++;
		/* keep the cell's text; its place is where that text starts, after any blanks */
		if (*p != '\0' && keep_token(r, p, &token, err) != 0)
			return -1;
		if (*p == '(') {
			/* (F;B)OVERLAP_F_B: an F then a full backward, run as one slot */
			char *close = strchr(p, ')'), *semi = strchr(p, ';');
			struct row *f, *b;

			f = new_cell_row(r, device, lineno, column, r->cell, token, err);
			if (f == NULL)
				return -1;
			if (close == NULL || semi == NULL || semi > close ||
			    strcmp(close + 1, "OVERLAP_F_B") != 0)
				return schedfile_fail_row(r, err, f,
				                          "a compound cell is (F;B)OVERLAP_F_B");
			*semi = *close = '\0';
			b = new_cell_row(r, device, lineno, column, r->cell, token, err);
			if (b == NULL)
				return -1;
			f = b - 1;
			if (!parse_action(p + 1, f, &type, &too_large) ||
			    !parse_action(semi + 1, b, &type, &too_large) || f->kind != OP_F ||
			    (b->kind != OP_BW && b->kind != OP_B))
				return too_large ? fail_too_large(r, err, f)
				                 : schedfile_fail_row(
				                           r, err, f,
				                           "an overlapped pair is a forward then a "
				                           "backward (B or I), such as "
				                           "(0F7;7B3)OVERLAP_F_B");
			f->overlap = true;
		} else if (*p != '\0') {
			struct row *x =
			        new_cell_row(r, device, lineno, column, r->cell, token, err);

			if (x == NULL)
				return -1;
			if (!parse_action(p, x, &type, &too_large))
				return too_large ? fail_too_large(r, err, x)
				                 : schedfile_fail_row(r, err, x,
				                                      "unknown action (a compute "
				                                      "action is STAGE, "
				                                      "then F, I, B or W, then a "
				                                      "micro-batch, such as "
				                                      "2F0; a transfer STAGE, then "
				                                      "SEND_F, RECV_F, "
				                                      "SEND_B or RECV_B, then a "
				                                      "micro-batch, such as "
				                                      "0SEND_F0; or STAGE, then "
				                                      "UNSHARD, RESHARD or "
				                                      "REDUCE_GRAD)");
			if (x->kind < 0 && keep_comm(r, x, type, err) != 0)
				return -1;
		}
		if (check_size(r, err, lineno, column) != 0)
			return -1;
	}
	if (last && r->nrows == r->line_rows) {
		char what[160];

		snprintf(what, sizeof(what),
		         "rank %ld holds no compute action (F, I, B or W)%s: every rank runs the "
		         "ops of its stages",
		         r->devices - 1,
		         r->ncomms > r->line_comms ? ", only transfers or FSDP actions" : "");
		return fail_at(r, err, lineno, 1, what);
	}
	return 0;
}

/* Reads every line of f into r; 0 or -1. A PyTorch rank's line, as long as its ops make it,
 * comes in pieces (as does the first line, before the format is known); a line of ppsim's
 * format is at most TEXT_LINE_MAX bytes. */
static int read_lines(struct reader *r, FILE *f, struct pp_error *err)
{
	struct text_lines in;
	bool first = true, torch_row = false; /* torch_row: the line is a rank's cells */
	unsigned blank = 0; /* PyTorch's format: a blank line after a rank's row */
	int rc = 0, more;

	text_lines_init(&in, f, "schedule", r->path);
	while (rc == 0 && (more = !first && r->format == SCHEDFILE_PPSIM
	                                  ? text_lines_next(&in, err)
	                                  : text_lines_next_piece(&in, err)) != 0) {
		char *line = in.line;
		const char *p = line;
		unsigned lineno = (unsigned)in.lineno;
		bool start = in.column == 1;

		if (more < 0) {
			rc = -1;
			break;
		}
		if (!start) {
			/* the rest of a long line: a rank's cells, or a comment's text */
			if (torch_row && (rc = text_lines_check_csv(&in, err)) == 0)
				rc = parse_torch_piece(r, line, lineno, in.column, false, !in.more,
				                       err);
			continue;
		}
		torch_row = false;
		while (*p == ' ' || *p == '\t')
			p++;
		if ((*p == '\r' || *p == '\0') && !first && r->format == SCHEDFILE_TORCH &&
		    blank == 0)
			blank = lineno;
		if (*p == '#' || *p == '\r' || *p == '\0')
			continue;
		if (blank != 0) {
			char what[160];

			/* PyTorch's reader makes a blank line a rank of no actions */
			snprintf(what, sizeof(what),
			         "a blank line between ranks, which PyTorch reads as rank %ld with "
			         "no "
			         "actions: remove it",
			         r->devices);
			rc = fail_at(r, err, blank, 1, what);
			break;
		}
		if ((rc = text_lines_check_csv(&in, err)) != 0)
			break;
		if (first) {
			/* a header (of names, quoted or not) starts ppsim's format */
			r->format = isalpha((unsigned char)p[*p == '"']) ? SCHEDFILE_PPSIM
			                                                 : SCHEDFILE_TORCH;
			first = false;
			if (r->format == SCHEDFILE_PPSIM) {
				rc = in.more ? text_lines_too_long(&in, err)
				             : parse_header(r, line, lineno, err);
				continue;
			}
		}
		if (r->format == SCHEDFILE_PPSIM) {
			rc = parse_ppsim_row(r, line, lineno, err);
		} else {
			torch_row = true;
			rc = parse_torch_piece(r, line, lineno, 1, true, !in.more, err);
		}
		if (rc == 0)
			rc = check_size(r, err, lineno, 1);
	}
	text_lines_release(&in);
	if (rc == 0 && first)
		rc = pp_fail(err, PP_ERR_CONFIG, "%s '%s': empty (no header, no ops)", r->what,
		             r->path);
	if (rc == 0 && r->nrows == 0)
		rc = pp_fail(err, PP_ERR_CONFIG, "%s '%s': no ops", r->what, r->path);
	return rc;
}

struct read_args {
	struct schedfile *out;
	uint64_t max_ops;
	const struct schedfile_job *job;
};

/* schedfile_read_stream of a file meant for job (NULL: any). */
static int read_stream_job(FILE *f, const char *path, uint64_t max_ops,
                           const struct schedfile_job *job, struct schedfile *out,
                           struct pp_error *err)
{
	struct reader r = {.what = "schedule",
	                   .path = path,
	                   .max_ops = max_ops,
	                   .budget = schedfile_read_budget(max_ops),
	                   .format = SCHEDFILE_PPSIM};
	struct sched_params sp = {0, 0, 0, 0};
	enum placement pl = PLACE_LOOP;
	bool split = false, mixed = false;
	int rc, routes = 1;

	if (job != NULL)
		r.job = *job;
	memset(out, 0, sizeof(*out));
	rc = read_lines(&r, f, err);
	out->format = r.format;
	if (rc == 0)
		rc = schedfile_check_rows(&r, err);
	if (rc == 0)
		rc = schedfile_infer_shape(&r, &sp, &split, &mixed, &pl, &routes, err);
	if (rc == 0)
		rc = schedfile_check_mbs(&r, err);
	if (rc == 0)
		rc = schedfile_check_job(&r, &sp, err);
	if (rc == 0)
		rc = schedfile_make(&r, &sp, split, mixed, pl, routes, out, err);
	if (rc == 0)
		rc = schedfile_check_comms(&r, out, err);
	if (rc == 0)
		rc = schedfile_check_order(&r, out, err);
	free(r.rows);
	free(r.tokens);
	free(r.op_row);
	free(r.comms);
	if (rc != 0)
		schedfile_release(out);
	return rc;
}

static int read_stream(FILE *f, const char *path, void *ctx, struct pp_error *err)
{
	struct read_args *a = ctx;

	return read_stream_job(f, path, a->max_ops, a->job, a->out, err);
}

int schedfile_read(const char *path, uint64_t max_ops, struct schedfile *out, struct pp_error *err)
{
	return schedfile_read_job(path, max_ops, NULL, out, err);
}

int schedfile_read_job(const char *path, uint64_t max_ops, const struct schedfile_job *job,
                       struct schedfile *out, struct pp_error *err)
{
	struct read_args a = {out, max_ops, job};

	memset(out, 0, sizeof(*out));
	return text_read_file(path, read_stream, &a, err);
}

int schedfile_read_stream(FILE *f, const char *path, uint64_t max_ops, struct schedfile *out,
                          struct pp_error *err)
{
	return read_stream_job(f, path, max_ops, NULL, out, err);
}

int schedfile_build(const char *what, const char *const *paths, int npaths,
                    const struct schedfile_row *rows, size_t n, uint64_t max_ops,
                    struct schedfile *out, size_t **op_row, struct pp_error *err)
{
	struct reader r = {.what = what,
	                   .path = paths[0],
	                   .paths = npaths > 1 ? paths : NULL,
	                   .max_ops = max_ops,
	                   .budget = schedfile_read_budget(max_ops),
	                   .format = SCHEDFILE_PPSIM};
	struct sched_params sp = {0, 0, 0, 0};
	enum placement pl = PLACE_LOOP;
	bool split = false, mixed = false;
	int rc = 0, routes = 1;

	memset(out, 0, sizeof(*out));
	if (op_row != NULL)
		*op_row = NULL;
	for (int c = 0; c < NCOLS; c++)
		r.col[c] = -1;
	assert(npaths >= 1);
	if (n == 0)
		return pp_fail(err, PP_ERR_CONFIG, "%s '%s': no ops", what, paths[0]);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct schedfile_row *w = &rows[i];
		struct row *x = new_row(&r, w->line, w->column, err);

		if (x == NULL) {
			rc = -1;
			break;
		}
		assert(w->file < (uint32_t)npaths);
		*x = (struct row){w->device,  -1,      w->stage,  w->mb, w->kind,
		                  w->overlap, w->line, w->column, 0,     w->file};
		if (w->device < 0 || w->stage < 0 || w->mb < 0 ||
		    (uint64_t)w->device > ACTION_MAX_INDEX ||
		    (uint64_t)w->stage > ACTION_MAX_INDEX || (uint64_t)w->mb > ACTION_MAX_INDEX ||
		    w->kind < OP_F || w->kind > OP_BW)
			rc = fail_too_large(&r, err, x);
		else
			rc = check_size(&r, err, w->line, w->column);
	}
	out->format = SCHEDFILE_PPSIM;
	if (rc == 0)
		rc = schedfile_check_rows(&r, err);
	if (rc == 0)
		rc = schedfile_infer_shape(&r, &sp, &split, &mixed, &pl, &routes, err);
	if (rc == 0)
		rc = schedfile_check_mbs(&r, err);
	if (rc == 0)
		rc = schedfile_make(&r, &sp, split, mixed, pl, routes, out, err);
	if (rc == 0)
		rc = schedfile_check_order(&r, out, err);
	if (rc == 0 && op_row != NULL) {
		*op_row = r.op_row;
		r.op_row = NULL;
	}
	free(r.rows);
	free(r.op_row);
	if (rc != 0)
		schedfile_release(out);
	return rc;
}

void schedfile_release(struct schedfile *f)
{
	sched_free(f->sched);
	free(f->lines);
	free(f->columns);
	free(f->cells);
	f->sched = NULL;
	f->lines = NULL;
	f->columns = NULL;
	f->cells = NULL;
}
