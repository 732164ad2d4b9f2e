/*
 * Schedule files: parse ppsim's or PyTorch's CSV, infer the shape, build and check the
 * schedule; and write a schedule in either format. Lines come from the bounded reader of
 * base/text.h and are split into fields there; each field becomes a row (one op, with where it
 * stood), the rows give the shape, and the shape with the rows builds the schedule, whose checks
 * name the line and column of the op at fault.
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

enum column {
	COL_DEVICE,
	COL_CHUNK,
	COL_STAGE,
	COL_OP,
	COL_MB,
	COL_OVERLAP,
	COL_START,
	COL_END,
	COL_SLACK,
	NCOLS
};

/* The op dump's columns: the times and the slack a dump gives are read past. */
static const char *const column_names[NCOLS] = {"device",  "chunk", "stage", "op", "microbatch",
                                                "overlap", "start", "end",   "slack"};

/* One op as read; -1 marks what the file does not give. */
struct row {
	long device, chunk, stage, mb;
	int kind;
	bool overlap;          /* runs overlapped with the device's next op */
	uint32_t line, column; /* where its line or cell starts */
	uint32_t cell;         /* PyTorch: its cell, from 1; ppsim: 0 */
	size_t token;          /* PyTorch: its cell's text at tokens + token */
};

/* PyTorch's action types (_ComputationType, by the names its CSV prints): the compute ones
 * become ops; the transfers are checked against them; the FSDP ones are counted. */
enum torch_type {
	TT_F,
	TT_I,
	TT_W,
	TT_B,
	TT_SEND_F,
	TT_RECV_F,
	TT_SEND_B,
	TT_RECV_B,
	TT_UNSHARD,
	TT_RESHARD,
	TT_REDUCE_GRAD,
	NTORCH_TYPES
};

static const struct torch_type_row {
	const char *name; /* as in an action, between its stage and its micro-batch */
	int kind;         /* the op it is (enum op_kind), or -1: not an op */
	bool mb;          /* takes a micro-batch */
} torch_types[NTORCH_TYPES] = {
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

/* A PyTorch action that is not an op: where it stood and how many ops came before it. */
struct comm {
	struct row at; /* its device, stage, micro-batch (-1 when none) and place */
	int type;      /* enum torch_type, TT_SEND_F or after */
	size_t before; /* rows read before it (its device's ops before it are the last ones) */
};

/* Reader state: the path for messages, the format, ppsim's columns, the ops so far, the
 * text of PyTorch's cells and its actions that are not ops. */
struct reader {
	const char *what; /* the kind of file, for messages: "schedule", "trace" */
	const char *path;
	uint64_t max_ops; /* most ops the file may hold */
	uint64_t budget;  /* most bytes reading it may take (schedfile_read_budget) */
	enum schedfile_format format;
	int col[NCOLS]; /* ppsim: field index of each column, -1 when absent */
	int nfields;    /* ppsim: fields per line */
	long devices;   /* PyTorch: lines read so far (= ranks) */
	unsigned cell;  /* PyTorch: cells of the current line so far */
	size_t line_rows, line_comms; /* PyTorch: rows and comms before the current line */
	struct row *rows;
	size_t nrows, cap;
	char *tokens; /* PyTorch: each cell's text, NUL-terminated, one after another */
	size_t ntokens, tokcap;
	size_t *op_row;     /* once built: the row each op of the schedule came from */
	struct comm *comms; /* PyTorch: its SEND, RECV and FSDP actions, in file order */
	size_t ncomms, commcap;
	const char *const *paths; /* schedfile_build of rows from several files: each row's file
	                             is paths[its token]; else NULL */
};

/* Fails err at line and column of the file path (one of r's). Returns -1. */
static int fail_in(const struct reader *r, struct pp_error *err, const char *path, unsigned line,
                   unsigned column, const char *what)
{
	err->line = (int)line;
	err->column = (int)column;
	return pp_fail(err, PP_ERR_CONFIG, "%s '%s':%u:%u: %s", r->what, path, line, column, what);
}

static int fail_at(const struct reader *r, struct pp_error *err, unsigned line, unsigned column,
                   const char *what)
{
	return fail_in(r, err, r->path, line, column, what);
}

/* The file row w stands in. */
static const char *row_path(const struct reader *r, const struct row *w)
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
static int check_size(const struct reader *r, struct pp_error *err, unsigned line,
                      unsigned column)
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
	         "about %" PRIu64 " bytes to read and check (%d an op, %d an action), more than the "
	         "%" PRIu64 " bytes --max-ops=%" PRIu64 " allows",
	         r->nrows, r->ncomms, need, SCHEDFILE_READ_OP, SCHEDFILE_READ_ACTION, r->budget,
	         r->max_ops);
	return fail_at(r, err, line, column, what);
}

/* fail_at the place of row w: its line and column, and for a PyTorch cell "cell N 'TEXT': ". */
static int fail_row(const struct reader *r, struct pp_error *err, const struct row *w,
                    const char *what)
{
	char msg[sizeof(err->msg)];

	if (w->cell == 0)
		return fail_in(r, err, row_path(r, w), w->line, w->column, what);
	snprintf(msg, sizeof(msg), "cell %u '%.40s': %.900s", w->cell, r->tokens + w->token, what);
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
		len = strlen(torch_types[k].name);
		if (strncmp(p, torch_types[k].name, len) == 0 &&
		    (p[len] == '\0' || isdigit((unsigned char)p[len])))
			break;
	}
	if (k == NTORCH_TYPES)
		return false;
	t = p + len;
	while (isdigit((unsigned char)*t))
		t++;
	if (*t != '\0' || (t == p + len) == torch_types[k].mb)
		return false;
	*type = k;
	row->kind = torch_types[k].kind;
	row->stage = parse_digits(s, p);
	row->mb = torch_types[k].mb ? parse_digits(p + len, t) : -1;
	*too_large = row->stage < 0 || (row->mb < 0 && torch_types[k].mb);
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
		a->type = x.kind >= 0          ? SCHEDFILE_ACT_OP
		          : type == TT_SEND_F ? SCHEDFILE_ACT_SEND_F
		          : type == TT_SEND_B ? SCHEDFILE_ACT_SEND_B
		                              : SCHEDFILE_ACT_OTHER;
		a->stage = x.stage;
		a->mb = x.mb;
		a->kind = x.kind;
		return 0;
	}
	/* (F;B)OVERLAP_F_B: an F then a backward, run as one slot */
	if (close == NULL || semi == NULL || semi > close || strcmp(close + 1, "OVERLAP_F_B") != 0 ||
	    (size_t)(semi - text) > sizeof(f) || (size_t)(close - semi) > sizeof(b))
		return -1;
	memcpy(f, text + 1, (size_t)(semi - text - 1));
	f[semi - text - 1] = '\0';
	memcpy(b, semi + 1, (size_t)(close - semi - 1));
	b[close - semi - 1] = '\0';
	if (!parse_action(f, &x, &type, &large) || !parse_action(b, &y, &type, &large))
		return large ? -2 : -1;
	if (x.kind != OP_F || (y.kind != OP_BW && y.kind != OP_B))
		return -1;
	*a = (struct schedfile_action){SCHEDFILE_ACT_OP, x.stage, x.mb, OP_F, true,
	                               y.stage, y.mb, y.kind};
	return 0;
}

/* The error of row's action, whose stage or micro-batch number is above ACTION_MAX_INDEX. */
static int fail_too_large(const struct reader *r, struct pp_error *err, const struct row *w)
{
	char what[96];

	snprintf(what, sizeof(what), "a stage or micro-batch number above %" PRIu64,
	         ACTION_MAX_INDEX);
	return fail_row(r, err, w, what);
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
				return fail_row(r, err, f, "a compound cell is (F;B)OVERLAP_F_B");
			*semi = *close = '\0';
			b = new_cell_row(r, device, lineno, column, r->cell, token, err);
			if (b == NULL)
				return -1;
			f = b - 1;
			if (!parse_action(p + 1, f, &type, &too_large) ||
			    !parse_action(semi + 1, b, &type, &too_large) || f->kind != OP_F ||
			    (b->kind != OP_BW && b->kind != OP_B))
				return too_large ? fail_too_large(r, err, f)
				                 : fail_row(r, err, f,
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
				return too_large
				               ? fail_too_large(r, err, x)
				               : fail_row(r, err, x,
				                          "unknown action (a compute action is STAGE, "
				                          "then F, I, B or W, then a micro-batch, such as "
				                          "2F0; a transfer STAGE, then SEND_F, RECV_F, "
				                          "SEND_B or RECV_B, then a micro-batch, such as "
				                          "0SEND_F0; or STAGE, then UNSHARD, RESHARD or "
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
			if (torch_row)
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
			         "a blank line between ranks, which PyTorch reads as rank %ld with no "
			         "actions: remove it",
			         r->devices);
			rc = fail_at(r, err, blank, 1, what);
			break;
		}
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
		rc = pp_fail(err, PP_ERR_CONFIG, "%s '%s': empty (no header, no ops)",
		             r->what, r->path);
	if (rc == 0 && r->nrows == 0)
		rc = pp_fail(err, PP_ERR_CONFIG, "%s '%s': no ops", r->what, r->path);
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

/* Whether row w sits where placement pl puts it. */
static bool fits(const struct row *w, enum placement pl, long p)
{
	if (w->stage >= 0 && w->chunk >= 0)
		return stage_under(pl, p, w->device, w->chunk) == w->stage;
	return w->stage < 0 || chunk_under(pl, p, w->device, w->stage) >= 0;
}

/*
 * The most routes (struct sched) the rows of a schedule of v chunks, S stages and m
 * micro-batches fit: R dividing v and m such that each row's micro-batch is of the block of
 * its stage's run (DualPipe's two); 1 when only one does. A complete schedule of R routes fits
 * only R and 1: its micro-batches visit every stage of their route.
 */
static int infer_routes(const struct reader *r, long v, long S, long m)
{
	for (long routes = v; routes > 1; routes--) {
		size_t i = 0;

		if (v % routes != 0 || m % routes != 0)
			continue;
		while (i < r->nrows &&
		       r->rows[i].stage / (S / routes) == r->rows[i].mb / (m / routes))
			i++;
		if (i == r->nrows)
			return (int)routes;
	}
	return 1;
}

/* Infers p, v, m, backward kind, placement and routes, and fills the missing stage of each
 * row. */
static int infer_shape(struct reader *r, struct sched_params *sp, bool *split, bool *mixed,
                       enum placement *pl, int *routes, struct pp_error *err)
{
	long p = r->format == SCHEDFILE_TORCH ? r->devices : 0, m = 0, top = 0, v;
	bool fused = false, parts = false, placed = false;
	uint64_t ops;

	for (size_t i = 0; i < r->nrows; i++) {
		struct row *w = &r->rows[i];
		long place = w->chunk >= 0 ? w->chunk : w->stage;

		p = w->device + 1 > p ? w->device + 1 : p;
		m = w->mb + 1 > m ? w->mb + 1 : m;
		top = place + 1 > top ? place + 1 : top;
		fused |= w->kind == OP_BW;
		parts |= w->kind == OP_B || w->kind == OP_W;
	}
	if (p > PP_MAX_DEVICES || m > PP_MAX_COUNT)
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%s': %ld devices and %ld micro-batches, above the limits "
		               "of %d devices and %d micro-batches",
		               r->what, r->path, p, m, PP_MAX_DEVICES, PP_MAX_COUNT);
	*split = parts;
	*mixed = parts && fused;
	sp->p = (int)p;
	sp->m = (int)m;
	sp->group = 0;
	/* chunks known: v is their count; stages only: v = stages / p, rounded up */
	v = r->format == SCHEDFILE_PPSIM && r->col[COL_CHUNK] >= 0 ? top : (top + p - 1) / p;
	if (v > PP_MAX_CHUNKS)
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%s': %ld chunks per device, above the limit of %d",
		               r->what, r->path, v, PP_MAX_CHUNKS);
	sp->v = (int)v;
	/* the placement that explains every row: loop first, then V (two chunks); then the
	 * routes its rows take */
	*routes = 1;
	for (int k = 0; k < 2 && !placed; k++) {
		enum placement cand = k == 0 ? PLACE_LOOP : PLACE_V;
		size_t i = 0;

		if (cand == PLACE_V && sp->v != 2)
			break;
		while (i < r->nrows && fits(&r->rows[i], cand, p))
			i++;
		if (i < r->nrows)
			continue;
		*pl = cand;
		for (i = 0; i < r->nrows; i++)
			if (r->rows[i].stage < 0)
				r->rows[i].stage =
				        stage_under(cand, p, r->rows[i].device, r->rows[i].chunk);
		*routes = infer_routes(r, v, p * v, m);
		placed = true;
	}
	/* the reader's limit, the run's --max-ops: what a run of it exports reads back */
	if (!sched_op_count(sp->p, sp->v, sp->m / *routes, parts, &ops) || ops > r->max_ops)
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%s': p=%d v=%d m=%d needs %.3g ops, above the limit of "
		               "%" PRIu64,
		               r->what, r->path, sp->p, sp->v, sp->m,
		               (double)sp->p * sp->v * (sp->m / *routes) * (parts ? 3 : 2),
		               r->max_ops);
	if (placed)
		return 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];

		if (!fits(w, PLACE_LOOP, p)) {
			char what[200];

			/* the row's own numbers: a stage this far out may not fit in a struct op */
			snprintf(what, sizeof(what),
			         "%s(mb %ld, stage %ld) on device %ld: stage %ld does not sit on device "
			         "%ld under the loop placement (stage c*p + d) or the V placement",
			         sched_kind_name((enum op_kind)w->kind), w->mb, w->stage, w->device,
			         w->stage, w->device);
			return fail_row(r, err, w, what);
		}
	}
	return pp_fail(err, PP_ERR_CONFIG, "%s '%s': no placement explains every op",
	               r->what, r->path);
}

/* The row op i of the built schedule came from. */
static const struct row *row_of_op(const struct reader *r, size_t i)
{
	return &r->rows[r->op_row[i]];
}

/* Builds out->sched from the rows and checks its structure, naming the op's place. */
static int build(struct reader *r, const struct sched_params *sp, bool split, bool mixed,
                 enum placement pl, int routes, struct schedfile *out, struct pp_error *err)
{
	size_t *counts = pp_calloc((size_t)sp->p, sizeof(*counts)), bad = 0;
	int device = 0;
	struct sched *s;
	char msg[sizeof(err->msg)];

	if (counts == NULL)
		return pp_nomem(err, (size_t)sp->p, sizeof(*counts));
	for (size_t i = 0; i < r->nrows; i++)
		counts[r->rows[i].device]++;
	s = out->sched = sched_alloc_counts(sp->p, sp->v, sp->m, split, pl, counts);
	free(counts);
	if (s == NULL)
		return pp_nomem(err, r->nrows, sizeof(*s->ops));
	s->mixed = mixed;
	sched_set_routes(s, routes);
	out->lines = pp_mallocarray(r->nrows, sizeof(*out->lines));
	out->columns = pp_mallocarray(r->nrows, sizeof(*out->columns));
	out->cells = pp_mallocarray(r->nrows, sizeof(*out->cells));
	r->op_row = pp_mallocarray(r->nrows, sizeof(*r->op_row));
	/* one entry per op each; op_row's are the largest */
	if (out->lines == NULL || out->columns == NULL || out->cells == NULL || r->op_row == NULL)
		return pp_nomem(err, r->nrows, sizeof(*r->op_row));
	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		size_t at = s->dev_start[w->device] + s->dev_fill[w->device];

		out->lines[at] = w->line;
		out->columns[at] = w->column;
		out->cells[at] = w->cell;
		r->op_row[at] = i;
		sched_push(s, (int)w->device, (enum op_kind)w->kind, (int)w->mb, (int)w->stage);
		if (w->overlap) {
			s->ops[at].flags = OP_OVERLAP;
			s->overlap = true;
		}
	}
	if (sched_check_where(s, &bad, &device, err) == 0)
		return 0;
	if (err->kind == PP_ERR_NOMEM) /* not about the file: no place to name */
		return -1;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	if (bad != SIZE_MAX)
		return fail_row(r, err, row_of_op(r, bad), msg);
	/* a missing op has no place of its own: name the first line of its device */
	if (s->dev_start[device] < s->dev_start[device + 1]) {
		char what[sizeof(err->msg)];

		snprintf(what, sizeof(what), "device %d's ops: %.900s", device, msg);
		return fail_in(r, err, row_path(r, row_of_op(r, s->dev_start[device])),
		               out->lines[s->dev_start[device]], 1, what);
	}
	return pp_fail(err, PP_ERR_CONFIG, "%s '%s': %s", r->what, r->path, msg);
}

/* The action text of a transfer: STAGE, its type and MB, as "1RECV_F0". */
static const char *comm_name(char *buf, size_t n, int type, long stage, long mb)
{
	snprintf(buf, n, "%ld%s%ld", stage, torch_types[type].name, mb);
	return buf;
}

/* Whether transfer type moves a forward's output (SEND_F, RECV_F), not a gradient. */
static bool comm_forward(int type)
{
	return type == TT_SEND_F || type == TT_RECV_F;
}

/* Where the other end of transfer type is, from its own stage: +1 the next stage, -1 the
 * previous one. */
static int comm_peer_offset(int type)
{
	return type == TT_SEND_F || type == TT_RECV_B ? 1 : -1;
}

/* The type of the other half of transfer type: a SEND's RECV, a RECV's SEND. */
static int comm_peer_type(int type)
{
	return type == TT_SEND_F   ? TT_RECV_F
	       : type == TT_RECV_F ? TT_SEND_F
	       : type == TT_SEND_B ? TT_RECV_B
	                           : TT_SEND_B;
}

/* Whether a transfer of type at stage st has its other end: a stage after it (SEND_F,
 * RECV_B) or before it (RECV_F, SEND_B) on its route. */
static bool has_peer(const struct sched *s, long st, int type)
{
	return comm_peer_offset(type) > 0 ? !sched_route_last(s, (uint32_t)st)
	                                  : !sched_route_first(s, (uint32_t)st);
}

/* Checks one action c of r->comms against the schedule s, with the row of each forward and
 * backward at fwd[stage * m + mb] and bwd[...], and notes a transfer in seen (its index + 1
 * at [(type - TT_SEND_F) * S * m + stage * m + mb]); 0, or -1 with the error at c's place. */
static int check_comm(const struct reader *r, const struct sched *s, const struct comm *c,
                      const size_t *fwd, const size_t *bwd, size_t *seen, struct pp_error *err)
{
	const struct row *w = &c->at;
	long S = s->S, m = s->m, peer;
	size_t cell, op;
	char what[320], name[64], opname[64];
	struct op o;

	if (w->stage >= S) {
		snprintf(what, sizeof(what), "stage %ld does not exist (the schedule has %ld)",
		         w->stage, S);
		return fail_row(r, err, w, what);
	}
	if ((long)s->stage_device[w->stage] != w->device) {
		snprintf(what, sizeof(what), "stage %ld is on rank %" PRIu32 ", not rank %ld",
		         w->stage, s->stage_device[w->stage], w->device);
		return fail_row(r, err, w, what);
	}
	if (c->type >= TT_UNSHARD)
		return 0;
	if (w->mb >= m) {
		snprintf(what, sizeof(what),
		         "micro-batch %ld does not exist (the schedule has %ld)", w->mb, m);
		return fail_row(r, err, w, what);
	}
	if (!sched_visits(s, (uint32_t)w->mb, (uint32_t)w->stage)) {
		snprintf(what, sizeof(what), "micro-batch %ld does not visit stage %ld", w->mb,
		         w->stage);
		return fail_row(r, err, w, what);
	}
	peer = w->stage + comm_peer_offset(c->type);
	if (!has_peer(s, w->stage, c->type) || s->stage_device[peer] == s->stage_device[w->stage]) {
		if (!has_peer(s, w->stage, c->type))
			snprintf(what, sizeof(what),
			         "no transfer there (stage %ld is the %s stage%s)", w->stage,
			         comm_peer_offset(c->type) < 0 ? "first" : "last",
			         s->routes > 1 ? " of its route" : "");
		else
			snprintf(what, sizeof(what),
			         "no transfer there (stages %ld and %ld are both on rank %" PRIu32
			         ")",
			         w->stage, peer, s->stage_device[peer]);
		return fail_row(r, err, w, what);
	}
	cell = (size_t)(c->type - TT_SEND_F) * (size_t)(S * m) + (size_t)(w->stage * m + w->mb);
	if (seen[cell] != 0) {
		snprintf(what, sizeof(what), "%s appears twice",
		         comm_name(name, sizeof(name), c->type, w->stage, w->mb));
		return fail_row(r, err, w, what);
	}
	seen[cell] = (size_t)(c - r->comms) + 1;
	op = (comm_forward(c->type) ? fwd : bwd)[w->stage * m + w->mb];
	o = (struct op){(uint32_t)w->mb, (uint32_t)w->stage, (uint8_t)r->rows[op].kind, 0};
	sched_op_format(opname, sizeof(opname), &o);
	if ((c->type == TT_SEND_F || c->type == TT_SEND_B) && op >= c->before) {
		snprintf(what, sizeof(what), "comes before %s, whose output it sends", opname);
		return fail_row(r, err, w, what);
	}
	if ((c->type == TT_RECV_F || c->type == TT_RECV_B) && op < c->before) {
		snprintf(what, sizeof(what), "comes after %s, whose input it receives", opname);
		return fail_row(r, err, w, what);
	}
	return 0;
}

/* Pass 0: whether the transfer of type at (st, mb), when listed, has its other half; pass 1:
 * whether a dependency across ranks has its SEND. 0, or -1 with the error at the transfer or
 * at the producing op. */
static int check_pair(const struct reader *r, const struct sched *s, int pass, int type, long st,
                      long mb, const size_t *fwd, const size_t *bwd, const size_t *seen,
                      struct pp_error *err)
{
	size_t cells = (size_t)s->S * (size_t)s->m;
	long peer = st + comm_peer_offset(type);
	size_t at, other;
	char what[320], name[64], peername[64];

	if (!sched_visits(s, (uint32_t)mb, (uint32_t)st) || !has_peer(s, st, type) ||
	    s->stage_device[peer] == s->stage_device[st])
		return 0;
	at = (size_t)(type - TT_SEND_F) * cells + (size_t)(st * s->m + mb);
	other = (size_t)(comm_peer_type(type) - TT_SEND_F) * cells + (size_t)(peer * s->m + mb);
	comm_name(peername, sizeof(peername), comm_peer_type(type), peer, mb);
	if (pass == 0 && seen[at] != 0 && seen[other] == 0) {
		snprintf(what, sizeof(what), "has no %s on rank %" PRIu32, peername,
		         s->stage_device[peer]);
		return fail_row(r, err, &r->comms[seen[at] - 1].at, what);
	}
	if (pass == 1 && seen[at] == 0 && (type == TT_SEND_F || type == TT_SEND_B)) {
		snprintf(what, sizeof(what),
		         "no %s after it: a compute_comms file lists every transfer across ranks, "
		         "and stage %ld is on rank %" PRIu32,
		         comm_name(name, sizeof(name), type, st, mb), peer, s->stage_device[peer]);
		return fail_row(r, err, &r->rows[(type == TT_SEND_F ? fwd : bwd)[st * s->m + mb]],
		                what);
	}
	return 0;
}

/*
 * Checks that each rank receives from each other rank, in each direction, in the order that
 * rank sends: PyTorch's runtime (NCCL) matches the transfers of a pair of ranks in the order
 * they are posted, so a RECV of mb 1 before that of mb 0 would take the wrong tensor or hang.
 * A rank's actions are one run of r->comms, in file order; every pair exists (check_pair).
 */
static int check_comm_order(const struct reader *r, const struct sched *s, const size_t *seen,
                            struct pp_error *err)
{
	size_t cells = (size_t)s->S * (size_t)s->m;
	/* [sender rank x 2 + direction]: the receiving rank + 1 it was last set for, and the
	 * comm index of the SEND last received */
	struct {
		long rank;
		size_t send;
	} *last = pp_calloc((size_t)s->p * 2, sizeof(*last));
	int rc = 0;

	if (last == NULL)
		return pp_nomem(err, (size_t)s->p * 2, sizeof(*last));
	for (size_t i = 0; i < r->ncomms && rc == 0; i++) {
		const struct comm *c = &r->comms[i];
		long peer = c->at.stage + comm_peer_offset(c->type);
		size_t send, k;
		char what[400], got[64], before[64];

		if (c->type != TT_RECV_F && c->type != TT_RECV_B)
			continue;
		send = seen[(size_t)(comm_peer_type(c->type) - TT_SEND_F) * cells +
		            (size_t)(peer * s->m + c->at.mb)] - 1;
		k = (size_t)s->stage_device[peer] * 2 + (c->type == TT_RECV_B);
		if (last[k].rank == c->at.device + 1 && send < last[k].send) {
			const struct comm *first = &r->comms[last[k].send];

			snprintf(what, sizeof(what),
			         "out of order: rank %" PRIu32 " sends %s before %s, which this rank "
			         "receives first; PyTorch matches two ranks' transfers in the order "
			         "they are posted",
			         s->stage_device[peer],
			         comm_name(got, sizeof(got), r->comms[send].type, peer, c->at.mb),
			         comm_name(before, sizeof(before), first->type, first->at.stage,
			                   first->at.mb));
			rc = fail_row(r, err, &c->at, what);
		}
		last[k].rank = c->at.device + 1;
		last[k].send = send;
	}
	free(last);
	return rc;
}

/* Checks the SEND, RECV and FSDP actions of a compute_comms file against out->sched (see
 * schedfile.h) and counts them into out; 0, or -1 with the error at the action at fault (a
 * missing pair at the compute op whose transfer it is). */
static int check_comms(const struct reader *r, struct schedfile *out, struct pp_error *err)
{
	const struct sched *s = out->sched;
	size_t cells = (size_t)s->S * (size_t)s->m, *fwd, *bwd, *seen;
	int rc = 0;

	if (r->ncomms == 0)
		return 0;
	out->format = SCHEDFILE_TORCH_COMMS;
	fwd = pp_mallocarray(6 * cells, sizeof(*fwd));
	if (fwd == NULL)
		return pp_nomem(err, 6 * cells, sizeof(*fwd));
	bwd = fwd + cells;
	seen = bwd + cells;
	memset(seen, 0, 4 * cells * sizeof(*seen));
	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];

		if (w->kind == OP_F)
			fwd[w->stage * s->m + w->mb] = i;
		else if (w->kind == OP_B || w->kind == OP_BW)
			bwd[w->stage * s->m + w->mb] = i;
	}
	for (size_t i = 0; i < r->ncomms && rc == 0; i++) {
		rc = check_comm(r, s, &r->comms[i], fwd, bwd, seen, err);
		if (r->comms[i].type >= TT_UNSHARD)
			out->zero_cost++;
		else
			out->transfers++;
	}
	/* each transfer has its other half; then each dependency across ranks has its SEND */
	for (int pass = 0; pass < 2; pass++)
		for (int type = TT_SEND_F; type <= TT_RECV_B; type++)
			for (long st = 0; st < s->S; st++)
				for (long mb = 0; mb < s->m && rc == 0; mb++)
					rc = check_pair(r, s, pass, type, st, mb, fwd, bwd, seen,
					                err);
	if (rc == 0)
		rc = check_comm_order(r, s, seen, err);
	free(fwd);
	return rc;
}

/* The place of op i: " at line L" in ppsim's format; " at line L, column C (cell N 'TEXT')" in
 * PyTorch's. */
static void name_place(const void *ctx, size_t i, char *buf, size_t n)
{
	const struct reader *r = ctx;
	const struct row *w = row_of_op(r, i);

	if (w->cell == 0 && r->paths != NULL)
		snprintf(buf, n, " at line %" PRIu32 " of '%.200s'", w->line, row_path(r, w));
	else if (w->cell == 0)
		snprintf(buf, n, " at line %" PRIu32, w->line);
	else
		snprintf(buf, n,
		         " at line %" PRIu32 ", column %" PRIu32 " (cell %" PRIu32 " '%.40s')",
		         w->line, w->column, w->cell, r->tokens + w->token);
}

/* Checks that the order of out->sched can run; a cyclic wait is a PP_ERR_SIM error at the place
 * of the first stuck device's waiting op, naming each waiting op's place. */
static int check_order(const struct reader *r, const struct schedfile *out, struct pp_error *err)
{
	struct sched_where where = {name_place, r};
	size_t stuck = 0;
	char msg[sizeof(err->msg)];
	const struct row *w;

	if (sched_check_order_where(out->sched, &where, &stuck, err) == 0)
		return 0;
	if (err->kind == PP_ERR_NOMEM)
		return -1;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	w = row_of_op(r, stuck);
	fail_in(r, err, row_path(r, w), w->line, w->column, msg);
	err->kind = PP_ERR_SIM;
	return -1;
}

/* What text_read_file hands read_stream: the output and the op limit. */
struct read_args {
	struct schedfile *out;
	uint64_t max_ops;
};

static int read_stream(FILE *f, const char *path, void *ctx, struct pp_error *err)
{
	struct read_args *a = ctx;

	return schedfile_read_stream(f, path, a->max_ops, a->out, err);
}

int schedfile_read(const char *path, uint64_t max_ops, struct schedfile *out, struct pp_error *err)
{
	struct read_args a = {out, max_ops};

	memset(out, 0, sizeof(*out));
	return text_read_file(path, read_stream, &a, err);
}

int schedfile_read_stream(FILE *f, const char *path, uint64_t max_ops, struct schedfile *out,
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

	memset(out, 0, sizeof(*out));
	rc = read_lines(&r, f, err);
	out->format = r.format;
	if (rc == 0)
		rc = infer_shape(&r, &sp, &split, &mixed, &pl, &routes, err);
	if (rc == 0)
		rc = build(&r, &sp, split, mixed, pl, routes, out, err);
	if (rc == 0)
		rc = check_comms(&r, out, err);
	if (rc == 0)
		rc = check_order(&r, out, err);
	free(r.rows);
	free(r.tokens);
	free(r.op_row);
	free(r.comms);
	if (rc != 0)
		schedfile_release(out);
	return rc;
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
		*x = (struct row){w->device, -1, w->stage, w->mb, w->kind, w->overlap, w->line,
		                  w->column, 0, w->file};
		if (w->device < 0 || w->stage < 0 || w->mb < 0 ||
		    (uint64_t)w->device > ACTION_MAX_INDEX || (uint64_t)w->stage > ACTION_MAX_INDEX ||
		    (uint64_t)w->mb > ACTION_MAX_INDEX || w->kind < OP_F || w->kind > OP_BW)
			rc = fail_too_large(&r, err, x);
		else
			rc = check_size(&r, err, w->line, w->column);
	}
	out->format = SCHEDFILE_PPSIM;
	if (rc == 0)
		rc = infer_shape(&r, &sp, &split, &mixed, &pl, &routes, err);
	if (rc == 0)
		rc = build(&r, &sp, split, mixed, pl, routes, out, err);
	if (rc == 0)
		rc = check_order(&r, out, err);
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

const char *const schedfile_format_names[SCHEDFILE_NFORMATS] = {
        [SCHEDFILE_PPSIM] = "ppsim",
        [SCHEDFILE_TORCH] = "torch",
        [SCHEDFILE_TORCH_COMMS] = "torch-comms",
};

bool schedfile_format_find(const char *name, enum schedfile_format *fmt)
{
	for (int k = 0; k < SCHEDFILE_NFORMATS; k++) {
		if (strcmp(name, schedfile_format_names[k]) == 0) {
			*fmt = (enum schedfile_format)k;
			return true;
		}
	}
	return false;
}

/* PyTorch's letter of an op kind: F, I (input gradient), W, B (full backward). */
static char torch_letter(enum op_kind k)
{
	return k == OP_F ? 'F' : k == OP_B ? 'I' : k == OP_W ? 'W' : 'B';
}

const char *schedfile_torch_action(const struct sched *s, size_t i, char *buf, size_t n)
{
	const struct op *op = &s->ops[i];

	/* an overlapped pair is its F, flagged, then its backward: one action of both */
	if (!(op->flags & OP_OVERLAP) && i > 0 && (op[-1].flags & OP_OVERLAP) &&
	    s->stage_device[op[-1].stage] == s->stage_device[op->stage])
		op--;
	if (op->flags & OP_OVERLAP)
		snprintf(buf, n, "(%" PRIu32 "F%" PRIu32 ";%" PRIu32 "%c%" PRIu32 ")OVERLAP_F_B",
		         op->stage, op->mb, op[1].stage, torch_letter((enum op_kind)op[1].kind),
		         op[1].mb);
	else
		snprintf(buf, n, "%" PRIu32 "%c%" PRIu32, op->stage,
		         torch_letter((enum op_kind)op->kind), op->mb);
	return buf;
}

/* The stage that takes op o's output: an F's the next one, a backward's the previous one, -1
 * for none (a W's, a route's last forward's and first backward's). */
static long consumer_stage(const struct sched *s, const struct op *o)
{
	if (o->kind == OP_W)
		return -1;
	if (o->kind == OP_F)
		return sched_route_last(s, o->stage) ? -1 : (long)o->stage + 1;
	return sched_route_first(s, o->stage) ? -1 : (long)o->stage - 1;
}

/* Whether op o's output goes to another device (a W's goes nowhere). */
static bool sends_across(const struct sched *s, const struct op *o)
{
	long to = consumer_stage(s, o);

	return to >= 0 && s->stage_device[to] != s->stage_device[o->stage];
}

/* Whether PyTorch's lowering may take op o: its input produced (an F's by the F before it, a
 * backward's by the backward after it); done[0] holds the forwards taken, done[1] the
 * backwards, at stage * m + mb. */
static bool inputs_taken(const struct sched *s, const struct op *o, bool *const done[2])
{
	if (o->kind == OP_F)
		return sched_route_first(s, o->stage) ||
		       done[0][(o->stage - 1) * (size_t)s->m + o->mb];
	if (o->kind == OP_W)
		return true;
	return sched_route_last(s, o->stage) || done[1][(o->stage + 1) * (size_t)s->m + o->mb];
}

/* The ops of device d's action that starts at op i: an overlapped pair is one action, its F and
 * its backward. */
static size_t action_ops(const struct sched *s, int d, size_t i)
{
	return (s->ops[i].flags & OP_OVERLAP) && i + 1 < s->dev_start[d + 1] ? 2 : 1;
}

/*
 * Orders s's ops and transfers into each device's compute_comms row, as PyTorch's
 * _add_send_recv does: the devices take their next action in turn until all are taken. A row
 * holds op indices, 4 bytes an action and a RECV: an op of its own device is an action, which
 * its SENDs follow, and an op of another device the RECV of that op's output. Returns the rows,
 * device d's n[d] entries from start[d] (with n = start + p + 1), or NULL when memory runs out.
 */
static uint32_t *comms_rows(const struct sched *s, size_t **startp)
{
	size_t cells = (size_t)s->S * (size_t)s->m, total = s->nops, *start, *fill, *pos;
	uint32_t *rows;
	bool *taken, *done[2];

	for (size_t i = 0; i < s->nops; i++)
		total += sends_across(s, &s->ops[i]) ? 1 : 0;
	rows = pp_mallocarray(total, sizeof(*rows));
	start = pp_calloc(3 * (size_t)s->p + 1, sizeof(*start));
	taken = pp_calloc(2 * cells, sizeof(*taken));
	if (rows == NULL || start == NULL || taken == NULL) {
		free(rows);
		free(start);
		free(taken);
		return NULL;
	}
	fill = start + s->p + 1;
	pos = fill + s->p;
	done[0] = taken;
	done[1] = taken + cells;
	/* each row's room: its ops and the RECVs of what comes to it (an overlapped pair, one
	 * action, leaves one unused) */
	for (size_t i = 0; i < s->nops; i++) {
		const struct op *o = &s->ops[i];

		start[s->stage_device[o->stage] + 1]++;
		if (sends_across(s, o))
			start[s->stage_device[consumer_stage(s, o)] + 1]++;
	}
	for (int d = 0; d < s->p; d++) {
		start[d + 1] += start[d];
		pos[d] = s->dev_start[d];
	}
	for (bool left = true, force = false; left;) {
		bool progress = false;

		left = false;
		for (int d = 0; d < s->p; d++) {
			size_t i = pos[d], n;

			if (i == s->dev_start[d + 1])
				continue;
			left = true;
			n = action_ops(s, d, i);
			if (!force && (!inputs_taken(s, &s->ops[i], done) ||
			               (n == 2 && !inputs_taken(s, &s->ops[i + 1], done))))
				continue;
			force = false;
			rows[start[d] + fill[d]++] = (uint32_t)i;
			for (size_t k = i; k < i + n; k++) {
				const struct op *o = &s->ops[k];
				uint32_t to;

				if (o->kind != OP_W)
					done[o->kind != OP_F][o->stage * (size_t)s->m + o->mb] =
					        true;
				if (!sends_across(s, o))
					continue;
				to = s->stage_device[consumer_stage(s, o)];
				rows[start[to] + fill[to]++] = (uint32_t)k;
			}
			pos[d] = i + n;
			progress = true;
		}
		/* A checked order lets some device take its next action, unless an overlapped
		 * pair's backward waits for what its own forward feeds: then the first device
		 * left takes its pair as it stands. */
		force = !progress;
	}
	free(taken);
	*startp = start;
	return rows;
}

/* Writes op k's SEND ("0SEND_F3") or, to the device that takes its output, its RECV. */
static void write_transfer(FILE *out, const struct sched *s, size_t k, bool send)
{
	const struct op *o = &s->ops[k];
	bool fwd = o->kind == OP_F;

	if (send)
		fprintf(out, "%" PRIu32 "%s%" PRIu32, o->stage,
		        torch_types[fwd ? TT_SEND_F : TT_SEND_B].name, o->mb);
	else
		fprintf(out, "%ld%s%" PRIu32, consumer_stage(s, o),
		        torch_types[fwd ? TT_RECV_F : TT_RECV_B].name, o->mb);
}

/* Writes s as PyTorch's compute_comms rows; 0 or -1 when memory runs out. */
static int write_torch_comms(FILE *out, const struct sched *s)
{
	size_t *start = NULL;
	uint32_t *rows = comms_rows(s, &start);
	char action[SCHEDFILE_ACTION_MAX];

	if (rows == NULL)
		return -1;
	for (int d = 0; d < s->p; d++) {
		for (size_t e = start[d]; e < start[d] + start[s->p + 1 + d]; e++) {
			size_t i = rows[e];

			if (e > start[d])
				fputc(',', out);
			if (s->stage_device[s->ops[i].stage] != (uint32_t)d) {
				write_transfer(out, s, i, false);
				continue;
			}
			fputs(schedfile_torch_action(s, i, action, sizeof(action)), out);
			for (size_t k = i; k < i + action_ops(s, d, i); k++)
				if (sends_across(s, &s->ops[k])) {
					fputc(',', out);
					write_transfer(out, s, k, true);
				}
		}
		fputc('\n', out);
	}
	free(rows);
	free(start);
	return 0;
}

int schedfile_write(FILE *out, const struct sched *s, enum schedfile_format fmt)
{
	char action[SCHEDFILE_ACTION_MAX];

	if (fmt == SCHEDFILE_TORCH_COMMS)
		return write_torch_comms(out, s);

	if (fmt == SCHEDFILE_PPSIM)
		fprintf(out, "device,chunk,stage,op,microbatch%s\n", s->overlap ? ",overlap" : "");
	for (int d = 0; d < s->p; d++) {
		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
			const struct op *op = &s->ops[i];

			if (fmt == SCHEDFILE_PPSIM) {
				fprintf(out, "%d,%" PRIu32 ",%" PRIu32 ",%s,%" PRIu32, d,
				        s->stage_chunk[op->stage], op->stage,
				        sched_kind_name((enum op_kind)op->kind), op->mb);
				if (s->overlap)
					fprintf(out, ",%d", op->flags & OP_OVERLAP ? 1 : 0);
				fputc('\n', out);
				continue;
			}
			if (i > s->dev_start[d])
				fputc(',', out);
			fputs(schedfile_torch_action(s, i, action, sizeof(action)), out);
			if (op->flags & OP_OVERLAP)
				i++; /* the pair's backward is in its action */
		}
		if (fmt == SCHEDFILE_TORCH)
			fputc('\n', out);
	}
	return 0;
}
