/*
 * The events of a profiler trace (measured.h): its JSON checked once without a tree
 * (json_well_formed, json_strict_check), then walked a value at a time and each event parsed
 * alone with cJSON, so that a large trace never becomes one tree; an event that is a pipeline
 * range (PyTorch's PP: name, or ppsim's slice) becomes a range of the reader.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json_text.h"
#include "measured_internal.h"
#include "ppsim/schedfile.h"

/* The largest microseconds a double holds to the microsecond: 2^53. */
#define TRACE_MAX_US 9007199254740992.0

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
	measured_fail(r, err, (at)->file, (at)->pos.line, (at)->pos.column, __VA_ARGS__)

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

	/* duration events come as complete events (X, with dur), as torch.profiler writes them;
	 * begin and end pairs are counted, to say so when they are all there is */
	if (torch && ph != NULL && (strcmp(ph, "B") == 0 || strcmp(ph, "E") == 0))
		r->begin_end++;
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
	/* microseconds a double still tells apart (2^53, about 285 years: a profiler's epoch
	 * timestamps among them); past them a duration added to its start no longer moves it */
	if (!(fabs(ts->valuedouble) <= TRACE_MAX_US) || !(dur->valuedouble <= TRACE_MAX_US))
		return FAIL_EVENT(r, err, at,
		                  "range '%.60s': ts and dur must be microseconds from -2^53 to 2^53",
		                  name);
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
	y = measured_new_range(r, x.role == ROLE_SEND ? &r->sends : &r->ops, err);
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
	long most_mb = -1;

	if (d->p <= 0 || d->v <= 0 || d->m <= 0)
		return 0;
	for (size_t i = from; i < a->n; i++) {
		const struct range *x = &a->r[i];
		long st = x->stage2 > x->stage ? x->stage2 : x->stage;
		long mb = x->mb2 > x->mb ? x->mb2 : x->mb;

		if (mb > most_mb)
			most_mb = mb;
		if (st >= d->p * d->v || mb >= d->m)
			return measured_fail(
			        r, err, k, x->line, x->column,
			        "%s %ld is out of range: the trace's otherData gives p=%ld, v=%ld, "
			        "m=%ld (stages 0 to %ld, micro-batches 0 to %ld)",
			        st >= d->p * d->v ? "stage" : "micro-batch",
			        st >= d->p * d->v ? st : mb, d->p, d->v, d->m, d->p * d->v - 1,
			        d->m - 1);
	}
	/* every device runs every micro-batch: a file of ops whose last ones are missing is a
	 * step cut short, not a smaller one */
	if (a == &r->ops && from < a->n && most_mb + 1 < d->m)
		return measured_fail(r, err, k, 0, 0,
		                     "micro-batch %ld has no op, though the trace's otherData gives "
		                     "m=%ld: the step is incomplete",
		                     most_mb + 1, d->m);
	return 0;
}

/*
 * Reads trace file k, whose text is t: each event of its traceEvents (or of the array it is),
 * parsed alone. Each file is device k when the step has several.
 */
int measured_read_trace(struct reader *r, uint32_t k, const struct text *t, struct pp_error *err)
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
