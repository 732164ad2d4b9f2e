/*
 * Measured steps (measured.h): a trace or a CSV read into ranges (an op, an overlapped pair or
 * a transfer, each with its device, start and length), the ranges of each device put in the
 * order they started and checked (no negative length, no overlap), then handed as rows to the
 * schedule-file reader's builder (schedfile_build), which infers the shape and checks the order
 * as it checks a file's. A trace is read whole (through zlib, which reads plain files too), its
 * JSON checked once without a tree, then parsed an event at a time, so that a large trace never
 * becomes one cJSON tree. The what-ifs read the result: the slowest device's ops at the others'
 * times, and calibrate's fit of the step's op times as a config.
 */
#include "ppsim/measured.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "base/json_text.h"
#include "base/text.h"
#include "ppsim/schedfile.h"

/* What a range is. */
enum role {
	ROLE_OP,   /* one op */
	ROLE_PAIR, /* an overlapped pair: an F and the backward run with it */
	ROLE_SEND, /* a transfer: the message its op (stage, mb, pass) sends */
};

/* A range read, in the file's unit (microseconds in a trace, milliseconds in a CSV). */
struct range {
	double start, dur;
	long dev;                    /* device key: a trace's pid, else the device */
	long stage, mb;              /* its op's (a pair's F's; a transfer's sender's) */
	long stage2, mb2;            /* a pair's backward */
	signed char kind, kind2;     /* enum op_kind; a transfer's: OP_F (forward) or OP_B */
	unsigned char role;          /* enum role */
	bool gpu;                    /* a trace's GPU annotation (gpu_user_annotation) */
	bool overlapped;             /* ppsim's slice of one op of an overlapped pair */
	uint32_t file, line, column; /* where it stands */
	size_t seq;                  /* its place among the ranges read, for ties */
};

/* A growable array of ranges. */
struct ranges {
	struct range *r;
	size_t n, cap;
};

/* What the reader gathers. */
struct reader {
	const char *const *paths;
	int npaths;
	enum measured_format format;
	const char *what;  /* "trace" or "measured", for messages */
	struct ranges ops; /* op and pair ranges */
	struct ranges sends;
	size_t seq;
	bool starts;     /* the ranges have start times (a trace; a CSV with a start column) */
	double comm_sum; /* a CSV's comm lines */
	size_t ncomm;
	const char *time_unit;
	uint64_t max_ops;
};

/* Fails err at a place of file k; the message from a printf format. PP_ERR_CONFIG; -1. */
__attribute__((format(printf, 6, 7))) static int fail_at(const struct reader *r,
                                                         struct pp_error *err, uint32_t file,
                                                         size_t line, size_t column,
                                                         const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err->line = line > INT32_MAX ? INT32_MAX : (int)line;
	err->column = column > INT32_MAX ? INT32_MAX : (int)column;
	return pp_fail(err, PP_ERR_CONFIG, "%s '%s':%zu:%zu: %s", r->what, r->paths[file], line,
	               column, what);
}

/* A new range at the end of a, zeroed but for its sequence number; NULL with pp_nomem's error. */
static struct range *new_range(struct reader *r, struct ranges *a, struct pp_error *err)
{
	if (pp_grow((void **)&a->r, &a->cap, a->n + 1, sizeof(*a->r), err) != 0)
		return NULL;
	a->r[a->n] = (struct range){.seq = r->seq++, .stage2 = -1, .mb2 = -1, .kind2 = -1};
	return &a->r[a->n++];
}

/* The bytes of a file read whole. */
struct text {
	char *buf;
	size_t len;
};

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

/* A whole number from 0 to the largest a schedule takes, into *x; false when v is not one. */
static bool whole(const cJSON *v, long *x)
{
	double d = cJSON_IsNumber(v) ? v->valuedouble : -1;

	if (!(d >= 0 && d <= (double)PP_MAX_COUNT * PP_MAX_CHUNKS && d == floor(d)))
		return false;
	*x = (long)d;
	return true;
}

/* The string member key of o, or NULL. */
static const char *string_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The op kind named by ppsim's kind name (F, B, W, BW), or -1. */
static int kind_named(const char *name)
{
	for (int k = OP_F; k <= OP_BW; k++)
		if (strcmp(name, sched_kind_name((enum op_kind)k)) == 0)
			return k;
	return -1;
}

/* Where an event stands: its file, line and column. */
struct place {
	uint32_t file;
	struct json_pos pos;
};

#define FAIL_EVENT(r, err, at, ...)                                                                \
	fail_at(r, err, (at)->file, (at)->pos.line, (at)->pos.column, __VA_ARGS__)

/*
 * Reads one trace event: an op, a pair or a transfer of the step is kept as a range (device
 * key dev_of_file >= 0 when each file is a device, else its pid); any other event is passed
 * over. Returns 0, or -1 with err.
 */
static int read_event(struct reader *r, const cJSON *e, const struct place *at, long dev_of_file,
                      struct pp_error *err)
{
	const char *ph = string_of(e, "ph"), *name = string_of(e, "name"),
	           *cat = string_of(e, "cat");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args"), *ts, *dur, *pid;
	struct schedfile_action a = {0};
	struct range x = {0};
	bool torch = name != NULL && strncmp(name, "PP:", 3) == 0;
	bool pass = cat != NULL && (strcmp(cat, "forward") == 0 || strcmp(cat, "backward") == 0);
	bool p2p = pass && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "p2p"));
	const char *kind = pass ? string_of(args, "kind") : NULL;
	struct range *y;

	if (ph == NULL || strcmp(ph, "X") != 0 || name == NULL || (!torch && !p2p && kind == NULL))
		return 0;
	x.stage2 = x.mb2 = x.kind2 = -1;
	if (torch) {
		int rc = schedfile_parse_action(name + 3, &a);

		if (rc == -2)
			return FAIL_EVENT(r, err, at,
			                  "range '%.60s': a stage or micro-batch number above %ld",
			                  name, (long)PP_MAX_COUNT * PP_MAX_CHUNKS);
		if (rc != 0)
			return FAIL_EVENT(
			        r, err, at,
			        "range '%.60s': unknown action (PyTorch's pipelining names its "
			        "ranges PP: then STAGE, F, I, B or W, and MICROBATCH, as "
			        "PP:2F0; or a transfer, as PP:0SEND_F0)",
			        name);
		if (a.type == SCHEDFILE_ACT_OTHER)
			return 0; /* a RECV or an FSDP action: not read */
		x.role = a.type == SCHEDFILE_ACT_OP ? (a.pair ? ROLE_PAIR : ROLE_OP) : ROLE_SEND;
		x.stage = a.stage;
		x.mb = a.mb;
		x.kind = (signed char)(a.type == SCHEDFILE_ACT_SEND_F   ? OP_F
		                       : a.type == SCHEDFILE_ACT_SEND_B ? OP_B
		                                                        : a.kind);
		x.stage2 = a.pair ? a.stage2 : -1;
		x.mb2 = a.pair ? a.mb2 : -1;
		x.kind2 = (signed char)(a.pair ? a.kind2 : -1);
	} else {
		/* ppsim's own names: the op (or the sender of a transfer) is in the arguments */
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(args, "stage");
		const cJSON *mb = cJSON_GetObjectItemCaseSensitive(args, "microbatch");

		if (p2p && (st == NULL || mb == NULL))
			return 0; /* a transfer of an older ppsim, which does not name its op */
		if (!whole(st, &x.stage) || !whole(mb, &x.mb))
			return FAIL_EVENT(
			        r, err, at,
			        "slice '%.60s': its stage and microbatch must be whole numbers "
			        "from 0 to %ld",
			        name, (long)PP_MAX_COUNT * PP_MAX_CHUNKS);
		if (p2p) {
			x.role = ROLE_SEND;
			x.kind = strcmp(cat, "forward") == 0 ? OP_F : OP_B;
		} else {
			int k = kind_named(kind);

			if (k < 0)
				return FAIL_EVENT(
				        r, err, at,
				        "slice '%.60s': unknown kind \"%.20s\" (F, B, W or BW)",
				        name, kind);
			x.role = ROLE_OP;
			x.kind = (signed char)k;
			x.overlapped =
			        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "overlapped"));
		}
	}
	ts = cJSON_GetObjectItemCaseSensitive(e, "ts");
	dur = cJSON_GetObjectItemCaseSensitive(e, "dur");
	pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
	if (!cJSON_IsNumber(ts) || !cJSON_IsNumber(dur) || !isfinite(ts->valuedouble) ||
	    !isfinite(dur->valuedouble))
		return FAIL_EVENT(r, err, at, "range '%.60s': needs numbers ts and dur", name);
	if (dur->valuedouble < 0)
		return FAIL_EVENT(r, err, at, "range '%.60s': a negative duration (dur %.17g)",
		                  name, dur->valuedouble);
	if (dev_of_file < 0 && !(cJSON_IsNumber(pid) && pid->valuedouble >= 0 &&
	                         pid->valuedouble <= (double)INT64_MAX / 2 &&
	                         pid->valuedouble == floor(pid->valuedouble)))
		return FAIL_EVENT(r, err, at,
		                  "range '%.60s': its pid must be a whole number (the process that "
		                  "stands for its device)",
		                  name);
	x.start = ts->valuedouble;
	x.dur = dur->valuedouble;
	x.dev = dev_of_file >= 0 ? dev_of_file : (long)pid->valuedouble;
	x.gpu = cat != NULL && strcmp(cat, "gpu_user_annotation") == 0;
	x.file = at->file;
	x.line = at->pos.line > UINT32_MAX ? UINT32_MAX : (uint32_t)at->pos.line;
	x.column = at->pos.column > UINT32_MAX ? UINT32_MAX : (uint32_t)at->pos.column;
	y = new_range(r, x.role == ROLE_SEND ? &r->sends : &r->ops, err);
	if (y == NULL)
		return -1;
	x.seq = y->seq;
	*y = x;
	return 0;
}

/* The shape a ppsim trace's otherData declares: p, v and m, 0 where not given. */
struct declared {
	long p, v, m;
};

/* Reads the otherData object of a trace at text[a..b) into d and its time unit into r. */
static int read_other(struct reader *r, const char *text, size_t a, size_t b, struct declared *d,
                      struct pp_error *err)
{
	cJSON *o = cJSON_ParseWithLength(text + a, b - a);
	const char *unit;
	long x;

	if (o == NULL)
		return pp_nomem(err, 1, b - a);
	unit = string_of(o, "time_unit");
	if (unit != NULL && strcmp(unit, "t") == 0)
		r->time_unit = "t";
	d->p = whole(cJSON_GetObjectItemCaseSensitive(o, "p"), &x) ? x : 0;
	d->v = whole(cJSON_GetObjectItemCaseSensitive(o, "v"), &x) ? x : 0;
	d->m = whole(cJSON_GetObjectItemCaseSensitive(o, "m"), &x) ? x : 0;
	cJSON_Delete(o);
	return 0;
}

/* Checks the ranges of file k from index from on against the shape its otherData declares. */
static int check_declared(const struct reader *r, const struct ranges *a, size_t from, uint32_t k,
                          const struct declared *d, struct pp_error *err)
{
	if (d->p <= 0 || d->v <= 0 || d->m <= 0)
		return 0;
	for (size_t i = from; i < a->n; i++) {
		const struct range *x = &a->r[i];
		long st = x->stage2 > x->stage ? x->stage2 : x->stage;
		long mb = x->mb2 > x->mb ? x->mb2 : x->mb;

		if (st >= d->p * d->v || mb >= d->m)
			return fail_at(
			        r, err, k, x->line, x->column,
			        "%s %ld is out of range: the trace's otherData gives p=%ld, v=%ld, "
			        "m=%ld (stages 0 to %ld, micro-batches 0 to %ld)",
			        st >= d->p * d->v ? "stage" : "micro-batch",
			        st >= d->p * d->v ? st : mb, d->p, d->v, d->m, d->p * d->v - 1,
			        d->m - 1);
	}
	return 0;
}

/*
 * Reads trace file k, whose text is t: each event of its traceEvents (or of the array it is),
 * parsed alone. Each file is device k when the step has several.
 */
static int read_trace(struct reader *r, uint32_t k, const struct text *t, struct pp_error *err)
{
	const char *text = t->buf;
	size_t len = t->len, at = 0, events = len, last = 0, ops = r->ops.n, sends = r->sends.n;
	struct declared d = {0, 0, 0};
	struct place here = {k, {1, 1}};
	char why[160];

	if (strlen(text) != len) {
		json_advance(text, 0, strlen(text), &here.pos);
		return FAIL_EVENT(r, err, &here, "a NUL byte: not a JSON file");
	}
	if (!json_well_formed(text, len)) {
		const char *end = NULL;
		cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
		size_t off = json_error_offset(text, end);

		cJSON_Delete(root);
		json_advance(text, 0, off, &here.pos);
		return FAIL_EVENT(r, err, &here, "%s",
		                  json_syntax_reason(text, len, off, "file", why, sizeof(why)));
	}
	if ((at = json_strict_check(text, len, why, sizeof(why))) < len) {
		json_advance(text, 0, at, &here.pos);
		return FAIL_EVENT(r, err, &here, "%s", why);
	}
	at = json_blanks_end(text, len, strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0);
	if (text[at] == '[') {
		events = at;
	} else if (text[at] == '{') {
		/* the members: traceEvents, and otherData for a ppsim trace's shape and unit */
		for (at = json_blanks_end(text, len, at + 1); text[at] == '"';) {
			size_t key = at, v = json_blanks_end(text, len, json_skip_string(text, at));
			size_t end;

			v = json_blanks_end(text, len, v + 1); /* past the ':' */
			end = json_value_end(text, len, v);
			if (strncmp(text + key, "\"traceEvents\"", 13) == 0 && text[v] != '[') {
				json_advance(text, 0, v, &here.pos);
				return FAIL_EVENT(r, err, &here,
				                  "its traceEvents is not an array of events");
			}
			if (strncmp(text + key, "\"traceEvents\"", 13) == 0)
				events = v;
			else if (strncmp(text + key, "\"otherData\"", 11) == 0 && text[v] == '{' &&
			         read_other(r, text, v, end, &d, err) != 0)
				return -1;
			at = json_blanks_end(text, len, end);
			at = json_blanks_end(text, len, at + (text[at] == ','));
		}
	}
	if (events == len) {
		json_advance(text, 0, at, &here.pos);
		return FAIL_EVENT(
		        r, err, &here,
		        "not a Chrome trace: neither an object with a traceEvents array nor "
		        "an array of events");
	}
	for (at = json_blanks_end(text, len, events + 1); text[at] != ']';) {
		size_t end = json_value_end(text, len, at);
		cJSON *e;
		int rc = 0;

		json_advance(text, last, at, &here.pos);
		last = at;
		if (text[at] == '{') {
			if ((e = cJSON_ParseWithLength(text + at, end - at)) == NULL)
				return pp_nomem(err, 1, end - at);
			rc = read_event(r, e, &here, r->npaths > 1 ? (long)k : -1, err);
			cJSON_Delete(e);
		}
		if (rc != 0)
			return -1;
		at = json_blanks_end(text, len, end);
		at = json_blanks_end(text, len, at + (text[at] == ','));
	}
	if (check_declared(r, &r->ops, ops, k, &d, err) != 0 ||
	    check_declared(r, &r->sends, sends, k, &d, err) != 0)
		return -1;
	return 0;
}

/* The columns of a measured CSV, -1 where absent. */
enum { C_STAGE, C_DEVICE, C_OP, C_MB, C_MS, C_START, C_END, NCSV };
static const char *const csv_names[NCSV] = {"stage", "device", "op", "microbatch",
                                            "ms",    "start",  "end"};

/* Reads a measured CSV from f (file 0, named path): a header, then one op a line. */
static int read_csv(struct reader *r, FILE *f, const char *path, struct pp_error *err)
{
	struct text_lines in;
	int col[NCSV], ncols = 0, rc;
	bool header = false;

	text_lines_init(&in, f, r->what, path);
	while ((rc = text_lines_next(&in, err)) == 1) {
		char *fields[64], *line = in.line;
		size_t offs[64], n;
		uint64_t u[3] = {0, 0, 0};
		double t[3] = {0, 0, 0};
		struct range *x;
		int kind = -1;

		if (line[0] == '#' || line[strspn(line, " \t\r")] == '\0')
			continue;
		n = text_csv_split(line, true, fields, offs, 64);
		if (!header) {
			for (int c = 0; c < NCSV; c++)
				col[c] = -1;
			for (size_t i = 0; i < n && i < 64; i++)
				for (int c = 0; c < NCSV; c++)
					if (strcmp(fields[i], csv_names[c]) == 0) {
						if (col[c] >= 0) {
							rc = fail_at(r, err, 0, in.lineno,
							             offs[i] + 1,
							             "column '%s' appears twice",
							             fields[i]);
							goto done;
						}
						col[c] = (int)i;
					}
			if (col[C_OP] < 0 || col[C_MB] < 0 ||
			    (col[C_STAGE] < 0 && col[C_DEVICE] < 0) ||
			    (col[C_MS] < 0 && (col[C_START] < 0 || col[C_END] < 0))) {
				rc = fail_at(r, err, 0, in.lineno, 1,
				             "a measured step's CSV needs columns op, microbatch, "
				             "stage or "
				             "device, and ms (or start and end): one line per op");
				goto done;
			}
			ncols = n > 64 ? 64 : (int)n;
			r->starts = col[C_START] >= 0;
			header = true;
			continue;
		}
		if (n != (size_t)ncols) {
			rc = fail_at(r, err, 0, in.lineno, 1, "has %zu fields, the header %d", n,
			             ncols);
			goto done;
		}
		for (int c = C_STAGE; c <= C_MB; c++) {
			if (c == C_OP || col[c] < 0)
				continue;
			if (text_parse_uint(fields[col[c]], 0,
			                    (uint64_t)PP_MAX_COUNT * PP_MAX_CHUNKS,
			                    &u[c == C_MB ? 2 : c]) != TEXT_OK) {
				rc = fail_at(r, err, 0, in.lineno, offs[col[c]] + 1,
				             "the %s must be a whole number from 0 to %ld",
				             csv_names[c], (long)PP_MAX_COUNT * PP_MAX_CHUNKS);
				goto done;
			}
		}
		for (int c = C_MS; c <= C_END; c++) {
			if (col[c] < 0)
				continue;
			if (text_parse_double(fields[col[c]], &t[c - C_MS]) != TEXT_OK ||
			    !(fabs(t[c - C_MS]) <= PP_TIME_MAX_UNITS)) {
				rc = fail_at(r, err, 0, in.lineno, offs[col[c]] + 1,
				             "the %s must be a number of ms from %g to %g",
				             csv_names[c], c == C_MS ? 0 : -PP_TIME_MAX_UNITS,
				             PP_TIME_MAX_UNITS);
				goto done;
			}
		}
		if (col[C_MS] < 0)
			t[0] = t[2] - t[1];
		if (t[0] < 0) {
			rc = fail_at(r, err, 0, in.lineno,
			             offs[col[col[C_MS] >= 0 ? C_MS : C_END]] + 1,
			             "a negative time: %g ms", t[0]);
			goto done;
		}
		if ((rc = text_lines_check_whole(&in, err)) != 0)
			goto done;
		if (strcasecmp(fields[col[C_OP]], "comm") == 0) {
			r->comm_sum += t[0];
			r->ncomm++;
			continue;
		}
		for (int k = OP_F; k <= OP_BW; k++)
			if (strcasecmp(fields[col[C_OP]], sched_kind_name((enum op_kind)k)) == 0)
				kind = k;
		if (kind < 0) {
			rc = fail_at(r, err, 0, in.lineno, offs[col[C_OP]] + 1,
			             "unknown op '%.40s' (F, B, W, BW or comm)", fields[col[C_OP]]);
			goto done;
		}
		if ((x = new_range(r, &r->ops, err)) == NULL) {
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
	}
done:
	if (rc == 0 && !header)
		rc = fail_at(r, err, 0, 1, 1, "no measured ops: the file is empty");
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
			return fail_at(r, err, x->file, x->line, x->column,
			               "a transfer on process %ld, which runs no op of the step",
			               x->dev);
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
				return fail_at(r, err, x.file, x.line, x.column,
				               "an overlapped F (\"overlapped\": true) without its "
				               "backward at the same time after it on its device");
			x.role = ROLE_PAIR;
			x.stage2 = b->stage;
			x.mb2 = b->mb;
			x.kind2 = b->kind;
			i++;
		} else if (x.overlapped) {
			return fail_at(
			        r, err, x.file, x.line, x.column,
			        "an overlapped backward (\"overlapped\": true) without its F at "
			        "the same time before it on its device");
		}
		if (x.role == ROLE_PAIR && prev != NULL && prev->role == ROLE_PAIR &&
		    prev->stage == x.stage && prev->mb == x.mb && prev->stage2 == x.stage2 &&
		    prev->mb2 == x.mb2 && prev->kind2 == x.kind2 && prev->start == x.start &&
		    prev->dur == x.dur)
			continue; /* the pair's other op's slice */
		if (r->starts && prev != NULL && before(x.start, prev->start + prev->dur))
			return fail_at(
			        r, err, x.file, x.line, x.column,
			        "this range starts at %.17g, before the range before it on its "
			        "device (line %" PRIu32 ") ends at %.17g: a device runs one op at "
			        "a time",
			        x.start, prev->line, prev->start + prev->dur);
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
			rc = fail_at(
			        r, err, x->file, x->line, x->column,
			        "a transfer of %s (mb %ld, stage %ld), which the step does not run",
			        x->kind == OP_F ? "the forward" : "the backward", x->mb, x->stage);
		else if (s->stage_device[x->stage] != (uint32_t)x->dev)
			rc = fail_at(
			        r, err, x->file, x->line, x->column,
			        "a transfer on device %ld of %s, whose stage is on device %" PRIu32,
			        x->dev, sched_op_format(op, sizeof(op), &s->ops[i - 1]),
			        s->stage_device[x->stage]);
		else if (!sends_across(s, &s->ops[i - 1]))
			rc = fail_at(r, err, x->file, x->line, x->column,
			             "a transfer of %s, which sends no message to another device",
			             sched_op_format(op, sizeof(op), &s->ops[i - 1]));
		else if (!isnan(m->msg[i - 1]))
			rc = fail_at(r, err, x->file, x->line, x->column, "a second transfer of %s",
			             sched_op_format(op, sizeof(op), &s->ops[i - 1]));
		if (rc != 0) {
			free(at);
			return -1;
		}
		m->msg[i - 1] = x->dur * scale;
		sum += m->msg[i - 1];
	}
	free(at);
	m->nmsgs = r->sends.n + r->ncomm;
	m->msg_mean = (sum + r->comm_sum * scale) / (double)m->nmsgs;
	/* to the resolution of a time given in a config (6 decimals): 0.1, not 0.09999999999999998
	 */
	if (!pp_time_from_units(m->msg_mean, PP_TICK_BASE, &t))
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%s': the messages' mean time, %g, is no time a "
		               "message may take",
		               r->what, r->paths[0], m->msg_mean);
	m->msg_mean = pp_time_to_units(t, PP_TICK_BASE);
	for (size_t i = 0; i < s->nops; i++)
		if (isnan(m->msg[i]))
			m->msg[i] = sends_across(s, &s->ops[i]) ? m->msg_mean : 0;
	return 0;
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
		rc = read_trace(r, k, &t, err);
	} else if (t.len == 0) {
		rc = fail_at(r, err, k, 1, 1, "no measured ops: the file is empty");
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
	if (rc == 0 && r.ops.n == 0)
		rc = pp_fail(
		        err, PP_ERR_CONFIG, "%s '%s': %s", r.what, paths[0],
		        r.format == MEASURED_CSV
		                ? "no op times (F, B, W or BW) after the header"
		                : "no op of a pipeline step (ranges named PP:STAGE, F, I, B or W, "
		                  "MICROBATCH, as PyTorch's pipelining records them, or ppsim's "
		                  "op slices)");
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

/* The kind index of op i of s for the what-ifs: its kind, or 4 for an overlapped pair's ops. */
static int kind_index(const struct sched *s, size_t i)
{
	const struct op *o = &s->ops[i];
	size_t d0 = s->dev_start[s->stage_device[o->stage]];

	if ((o->flags & OP_OVERLAP) || (i > d0 && (o[-1].flags & OP_OVERLAP)))
		return 4;
	return o->kind;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int measured_without_slowest(const struct measured *m, double *op, struct measured_slowest *w,
                             struct pp_error *err)
{
	const struct sched *s = m->sched;
	double *sum = pp_calloc((size_t)s->p * (MEASURED_KINDS + 1), sizeof(*sum)), *busy, *mid;
	size_t *count = pp_calloc((size_t)s->p * MEASURED_KINDS, sizeof(*count));
	int slow = 0;

	if (sum == NULL || count == NULL) {
		free(sum);
		free(count);
		return pp_nomem(err, (size_t)s->p * MEASURED_KINDS, sizeof(*sum) + sizeof(*count));
	}
	if (s->p < 2) {
		free(sum);
		free(count);
		return pp_fail(err, PP_ERR_USAGE,
		               "a step on one device has no other device to take its times from");
	}
	busy = sum + (size_t)s->p * MEASURED_KINDS;
	mid = busy; /* reused for the medians once busy is read */
	for (int d = 0; d < s->p; d++)
		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
			int k = kind_index(s, i);

			/* a pair's time is in its first op's entry, its second's is 0 */
			if (k == 4 && !(s->ops[i].flags & OP_OVERLAP))
				continue;
			sum[(size_t)d * MEASURED_KINDS + (size_t)k] += m->op[i];
			count[(size_t)d * MEASURED_KINDS + (size_t)k]++;
			busy[d] += m->op[i];
		}
	for (int d = 1; d < s->p; d++)
		if (busy[d] > busy[slow])
			slow = d;
	w->device = slow;
	for (int k = 0; k < MEASURED_KINDS; k++) {
		size_t n = 0, at = (size_t)slow * MEASURED_KINDS + (size_t)k;
		double own = count[at] > 0 ? sum[at] / (double)count[at] : 0, median;

		for (int d = 0; d < s->p; d++) {
			size_t i = (size_t)d * MEASURED_KINDS + (size_t)k;

			if (d != slow && count[i] > 0)
				mid[n++] = sum[i] / (double)count[i];
		}
		qsort(mid, n, sizeof(*mid), by_double);
		median = n == 0 ? own : n % 2 == 1 ? mid[n / 2] : (mid[n / 2 - 1] + mid[n / 2]) / 2;
		w->factor[k] = count[at] == 0 ? NAN : own > 0 && n > 0 ? median / own : 1;
	}
	for (size_t i = 0; i < s->nops; i++)
		op[i] = (int)s->stage_device[s->ops[i].stage] == slow
		                ? m->op[i] * w->factor[kind_index(s, i)]
		                : m->op[i];
	free(sum);
	free(count);
	return 0;
}

/* Whether generator desc's order for s's shape is s's, op for op. */
static int same_order(const struct sched_desc *desc, const struct sched *s, struct pp_error *err)
{
	struct sched_params sp = {s->p, s->v, s->m, 0};
	struct pp_error why = {0};
	const char *key = NULL;
	struct sched *g;
	bool same;

	if (desc->fn.generate == NULL || desc->placement != s->placement ||
	    sched_accepts(desc, &sp, &key, &why) != 0)
		return 0;
	if ((g = sched_new(desc, &sp)) == NULL)
		return pp_fail(err, PP_ERR_NOMEM, "out of memory generating the %s schedule",
		               desc->name);
	same = g->nops == s->nops && g->routes == s->routes;
	for (int d = 0; same && d <= s->p; d++)
		same = g->dev_start[d] == s->dev_start[d];
	for (size_t i = 0; same && i < s->nops; i++)
		same = g->ops[i].mb == s->ops[i].mb && g->ops[i].stage == s->ops[i].stage &&
		       g->ops[i].kind == s->ops[i].kind && g->ops[i].flags == s->ops[i].flags;
	sched_free(g);
	return same;
}

const struct sched_desc *measured_schedule(const struct measured *m, struct pp_error *err)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);

	for (size_t i = 0; i < n; i++) {
		int rc = same_order(&t[i], m->sched, err);

		if (rc < 0)
			return NULL;
		if (rc > 0)
			return &t[i];
	}
	return NULL;
}

/*
 * The calibration of op[] of m's step: each stage's (or, per device, each device's) mean time
 * per kind, as the time of one micro-batch through a device's whole share of layers (a chunk's
 * op times v / routes), NAN where not measured; ops of overlapped pairs not counted.
 */
static int calibration_of(const struct measured *m, const double *op, bool per_device,
                          struct calibration *k, struct pp_error *err)
{
	const struct sched *s = m->sched;
	int n = per_device ? s->p : s->S;
	double *sum = pp_calloc((size_t)s->S * 4, sizeof(*sum));
	size_t *count = pp_calloc((size_t)s->S * 4, sizeof(*count));
	double *a[4];

	memset(k, 0, sizeof(*k));
	k->format = CALIB_CSV;
	k->p = n;
	k->path = m->path;
	k->comm = m->msg_mean > 0 ? m->msg_mean : NAN; /* 0: the default t_comm */
	k->f = pp_mallocarray((size_t)n, sizeof(*k->f));
	k->b = pp_mallocarray((size_t)n, sizeof(*k->b));
	k->w = pp_mallocarray((size_t)n, sizeof(*k->w));
	k->bw = pp_mallocarray((size_t)n, sizeof(*k->bw));
	if (sum == NULL || count == NULL || k->f == NULL || k->b == NULL || k->w == NULL ||
	    k->bw == NULL) {
		free(sum);
		free(count);
		calib_release(k);
		return pp_nomem(err, (size_t)s->S * 4, sizeof(*sum) + sizeof(*count));
	}
	a[OP_F] = k->f;
	a[OP_B] = k->b;
	a[OP_W] = k->w;
	a[OP_BW] = k->bw;
	for (size_t i = 0; i < s->nops; i++)
		if (kind_index(s, i) < 4) {
			sum[(size_t)s->ops[i].stage * 4 + s->ops[i].kind] += op[i];
			count[(size_t)s->ops[i].stage * 4 + s->ops[i].kind]++;
		}
	for (int j = 0; j < n; j++)
		for (int kind = 0; kind < 4; kind++) {
			double total = 0;
			int stages = 0;

			for (int c = 0; c < (per_device ? s->v : 1); c++) {
				int st = per_device ? sched_stage_of(s, j, c) : j;
				size_t at = (size_t)st * 4 + (size_t)kind;

				if (count[at] == 0)
					continue;
				total += sum[at] / (double)count[at];
				stages++;
			}
			a[kind][j] = stages > 0 ? total / stages * s->v / s->routes : NAN;
		}
	free(sum);
	free(count);
	for (int j = 0; j < n; j++)
		if (isnan(k->f[j])) {
			calib_release(k);
			return pp_fail(
			        err, PP_ERR_CONFIG,
			        "%s: %s %d has no forward time outside overlapped pairs, which a "
			        "fit of its op times needs",
			        m->path, per_device ? "device" : "stage", j);
		}
	return 0;
}

int measured_fit_config(const struct measured *m, const double *op, double w_share,
                        struct config *c, struct pp_error *err)
{
	bool per_device = c->p != m->sched->p || c->v != m->sched->v;
	struct calibration k;
	struct calib_fit fit;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	int rc;

	if (calibration_of(m, op, per_device, &k, err) != 0)
		return -1;
	rc = calib_fit(&k, w_share, &fit, err);
	calib_release(&k);
	if (rc != 0)
		return -1;
	fit.p_known = false;
	if (config_is_set(c, "t_comm"))
		fit.t_comm = NAN;
	if ((out = open_memstream(&text, &len)) == NULL) {
		calib_fit_release(&fit);
		return pp_fail(err, PP_ERR_NOMEM, "out of memory writing the fitted config");
	}
	rc = calib_write_config(out, &fit, 0);
	calib_fit_release(&fit);
	if (fclose(out) != 0 || rc != 0 || text == NULL) {
		free(text);
		return pp_fail(err, PP_ERR_NOMEM, "out of memory writing the fitted config");
	}
	rc = config_load_text(c, "fitted to the measured step", text, len, err);
	free(text);
	return rc;
}
