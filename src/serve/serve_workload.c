/*
 * Serving workloads: request traces (JSON lines or CSV) read with line:column errors, and the
 * seeded request generator. A trace comes line by line from the bounded reader of base/text.h;
 * its first line that is not blank or a comment picks the format. A JSON line is parsed by cJSON
 * and scanned once more for where each member stands, since cJSON keeps no positions; a CSV row
 * is split by base/text.h and its numbers read by its strict parser.
 */
#include "ppsim/serve.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "base/random.h"
#include "base/text.h"

/* The fields of a request, in struct order. */
enum field { F_ARRIVAL, F_PROMPT, F_OUTPUT, NFIELDS };

static const char *const field_names[NFIELDS] = {"arrival", "prompt", "output"};

/* Longest stretch of a bad value quoted in a message, and the buffer that holds it quoted. */
#define QUOTE_MAX  40
#define QUOTE_SIZE (QUOTE_MAX * 4 + 4)

/* Reader state: the path for messages, the format, the requests so far. */
struct trace {
	const char *path;
	bool started;     /* the first data line (JSON) or the header (CSV) has been seen */
	bool json;        /* JSON lines, else CSV */
	int col[NFIELDS]; /* CSV: the field in each column */
	size_t lineno;    /* 1-based line being read */
	struct text_lines *in; /* the line reader */
	struct serve_request *req;
	size_t n, cap;
};

/* A number field as read: its value, its text and the 1-based column it starts at. */
struct value {
	double x;
	const char *text;
	size_t len;
	size_t column;
	const char *type; /* JSON: what stood there when it is not a number, else NULL */
};

static int clamp_int(size_t x)
{
	return x > INT_MAX ? INT_MAX : (int)x;
}

/* Fails err at the current line and column with the message built from fmt. */
__attribute__((format(printf, 4, 5))) static int
fail_at(const struct trace *t, struct pp_error *err, size_t column, const char *fmt, ...)
{
	char what[sizeof(err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err->line = clamp_int(t->lineno);
	err->column = clamp_int(column);
	return pp_fail(err, PP_ERR_CONFIG, "requests '%s':%d:%d: %s", t->path, err->line,
	               err->column, what);
}

/* Copies the len bytes of s into buf (QUOTE_SIZE bytes) for a one-line message: bytes
 * outside printable ASCII become \xHH, and a long text is cut short with "...". */
static const char *quoted(char *buf, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < len && i < QUOTE_MAX; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch >= 0x20 && ch < 0x7f) {
			buf[o++] = (char)ch;
			continue;
		}
		buf[o++] = '\\';
		buf[o++] = 'x';
		buf[o++] = hex[ch >> 4];
		buf[o++] = hex[ch & 15];
	}
	if (len > QUOTE_MAX) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/* The field whose name is the len bytes at s, or -1. */
static int field_find(const char *s, size_t len)
{
	for (int f = 0; f < NFIELDS; f++)
		if (strlen(field_names[f]) == len && memcmp(s, field_names[f], len) == 0)
			return f;
	return -1;
}

/* Whether the decimal written at s (len bytes: digits, a point, an exponent) has a nonzero
 * fraction in its exact value: 9.999999999999999999 is no whole number, though its double is;
 * 1.6777216e7 and 100e-2 are. */
static bool has_fraction(const char *s, size_t len)
{
	const char *end = s + len, *p = s;
	char digits[64];
	size_t n = 0;
	long frac = 0, e = 0, sign = 1, shift;

	if (p < end && (*p == '-' || *p == '+'))
		p++;
	for (; p < end && (isdigit((unsigned char)*p) || *p == '.'); p++) {
		if (*p == '.') {
			frac = -1;
			continue;
		}
		if (frac < 0 || frac > 0)
			frac = frac < 0 ? 1 : frac + 1;
		if (n < sizeof(digits))
			digits[n++] = *p;
		else if (frac > 0 && *p != '0')
			return true; /* a digit past what a count needs, after the point */
		else if (frac > 0)
			frac--; /* a trailing 0 of the fraction, not kept: it changes nothing */
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '-' || *p == '+'))
			sign = *p++ == '-' ? -1 : 1;
		for (; p < end && isdigit((unsigned char)*p) && e < 100000; p++)
			e = 10 * e + (*p - '0');
	}
	/* the value is digits x 10^(sign e - frac): the last frac - sign e digits are its
	 * fraction */
	shift = (frac < 0 ? 0 : frac) - sign * e;
	for (long i = 0; i < shift && i < (long)n; i++)
		if (digits[n - 1 - (size_t)i] != '0')
			return true;
	return false;
}

/* Stores field f of r from v, or fails naming the value: arrivals are numbers from 0 to
 * PP_TIME_MAX_UNITS, token counts whole numbers from 1 to PP_MAX_COUNT (as written: a fraction
 * that rounds away in a double is still one). */
static int set_field(const struct trace *t, struct serve_request *r, int f, const struct value *v,
                     struct pp_error *err)
{
	char q[QUOTE_SIZE], range[64];
	bool ok;

	if (f == F_ARRIVAL) {
		ok = v->type == NULL && v->x >= 0 && v->x <= PP_TIME_MAX_UNITS;
		snprintf(range, sizeof(range), "a number from 0 to %.0f", PP_TIME_MAX_UNITS);
	} else {
		ok = v->type == NULL && v->x >= 1 && v->x <= PP_MAX_COUNT && v->x == floor(v->x) &&
		     !has_fraction(v->text, v->len);
		snprintf(range, sizeof(range), "a whole number from 1 to %d", PP_MAX_COUNT);
	}
	if (!ok && v->type != NULL)
		return fail_at(t, err, v->column, "%s '%s': must be %s, not %s", field_names[f],
		               quoted(q, v->text, v->len), range, v->type);
	if (!ok)
		return fail_at(t, err, v->column, "%s '%s': must be %s", field_names[f],
		               quoted(q, v->text, v->len), range);
	if (f == F_ARRIVAL)
		r->arrival = v->x + 0.0; /* no negative zero */
	else if (f == F_PROMPT)
		r->prompt = (uint32_t)v->x;
	else
		r->output = (uint32_t)v->x;
	return 0;
}

/* Appends r, whose arrival stands at column, after checking the order and the limit. */
static int add_request(struct trace *t, const struct serve_request *r, size_t column,
                       struct pp_error *err)
{
	if (t->n > 0 && r->arrival < t->req[t->n - 1].arrival) {
		char now[40], before[40];

		return fail_at(t, err, column,
		               "arrival %s is before the previous request's %s (arrivals must not "
		               "go backwards)",
		               pp_double_format(now, sizeof(now), r->arrival),
		               pp_double_format(before, sizeof(before), t->req[t->n - 1].arrival));
	}
	if (t->n == SERVE_MAX_REQUESTS)
		return fail_at(t, err, 1, "more than %d requests, the limit", SERVE_MAX_REQUESTS);
	if (pp_grow((void **)&t->req, &t->cap, t->n + 1, sizeof(*t->req), err) != 0)
		return -1;
	t->req[t->n++] = *r;
	return 0;
}

/* Index after the JSON value that starts at text[i]: a string, an object or an array (its
 * brackets matched), else a scalar running to the next delimiter. */
static size_t skip_value(const char *text, size_t i)
{
	int depth = 0;

	if (text[i] == '"')
		return json_skip_string(text, i);
	if (text[i] != '{' && text[i] != '[') {
		while (text[i] != '\0' && strchr(",}] \t\r\n", text[i]) == NULL)
			i++;
		return i;
	}
	do {
		if (text[i] == '"') {
			i = json_skip_string(text, i);
			continue;
		}
		if (text[i] == '{' || text[i] == '[')
			depth++;
		else if (text[i] == '}' || text[i] == ']')
			depth--;
		i++;
	} while (depth > 0 && text[i] != '\0');
	return i;
}

/* Where a member of a line's object stands: the offsets of its key, its value and the end of
 * its value. */
struct member {
	size_t key, value, end;
};

/*
 * Records up to max members of the valid JSON object at text[start], in document order, which
 * is also the order of cJSON's children: cJSON's tree holds no positions.
 */
static size_t scan_members(const char *text, size_t start, struct member *m, size_t max)
{
	static const char blank[] = " \t\r\n";
	size_t n = 0, i = start + 1;

	for (;;) {
		i += strspn(text + i, blank);
		if (n == max || text[i] != '"')
			return n;
		m[n].key = i;
		i = json_skip_string(text, i);
		i += strspn(text + i, blank);
		if (text[i] != ':')
			return n;
		i++;
		i += strspn(text + i, blank);
		m[n].value = i;
		m[n].end = i = skip_value(text, i);
		n++;
		i += strspn(text + i, blank);
		if (text[i] != ',')
			return n;
		i++;
	}
}

/* Reads the members of root, the object at line[start], into a request and appends it. */
static int read_members(struct trace *t, const cJSON *root, const char *line, size_t start,
                        struct pp_error *err)
{
	struct member m[NFIELDS + 1]; /* a fourth member is always an error */
	size_t nm = scan_members(line, start, m, NFIELDS + 1), k = 0, at_arrival = start + 1;
	size_t first[NFIELDS] = {0};
	struct serve_request r = {0, 0, 0};
	char q[QUOTE_SIZE];
	const cJSON *v;

	cJSON_ArrayForEach(v, root)
	{
		struct member at = k < nm ? m[k] : (struct member){start, start, start};
		int f = field_find(v->string, strlen(v->string));
		struct value val = {v->valuedouble, line + at.value, at.end - at.value,
		                    at.value + 1, cJSON_IsNumber(v) ? NULL : json_type_name(v)};

		k++;
		if (f < 0)
			return fail_at(
			        t, err, at.key + 1,
			        "unknown key \"%s\" (the keys are arrival, prompt and output)",
			        quoted(q, v->string, strlen(v->string)));
		if (first[f] > 0)
			return fail_at(t, err, at.key + 1,
			               "key \"%s\" appears twice (first at column %zu)",
			               field_names[f], first[f]);
		first[f] = at.key + 1;
		if (set_field(t, &r, f, &val, err) != 0)
			return -1;
		if (f == F_ARRIVAL)
			at_arrival = val.column;
	}
	for (int f = 0; f < NFIELDS; f++)
		if (first[f] == 0)
			return fail_at(
			        t, err, start + 1,
			        "missing key \"%s\" (a line holds arrival, prompt and output)",
			        field_names[f]);
	return add_request(t, &r, at_arrival, err);
}

/* Reads a line of JSON lines: one object with the members arrival, prompt and output. */
static int parse_json_line(struct trace *t, const char *line, struct pp_error *err)
{
	size_t len = strlen(line), start = strspn(line, " \t");
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(line, len + 1, &end, true); /* the NUL counts */
	char q[QUOTE_SIZE];
	int rc;

	/* cJSON fails alike on bad text and on a failed allocation; well-formed text means the
	 * latter */
	if (root == NULL && json_well_formed(line, len))
		return pp_fail(err, PP_ERR_NOMEM, "out of memory parsing a line of '%s'", t->path);
	if (root == NULL) {
		size_t off = json_error_offset(line, end);

		char why[96];

		json_syntax_reason(line, len, off, "line", why, sizeof(why));
		if (off >= len || strcmp(why, "invalid JSON") != 0)
			return fail_at(t, err, (off < len ? off : len) + 1, "%s", why);
		return fail_at(t, err, off + 1, "invalid JSON at '%s'",
		               quoted(q, line + off, len - off));
	}
	{
		char why[128];
		size_t off = json_strict_check(line, len, why, sizeof(why));

		if (off < len) {
			cJSON_Delete(root);
			return fail_at(t, err, off + 1, "%s", why);
		}
	}
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return fail_at(t, err, start + 1,
		               "'%s': not a JSON object (each line holds one object with arrival, "
		               "prompt and output)",
		               quoted(q, line + start, len - start));
	}
	rc = read_members(t, root, line, start, err);
	cJSON_Delete(root);
	return rc;
}

/* Reads s, a decimal number such as 12, -3, 0.5 or 1e3 and nothing else, into *x. */
static bool parse_decimal(const char *s, double *x)
{
	/* out of range is still a number: set_field then names its range (1e400) or takes the
	 * nearest value (1e-400 as 0) */
	return text_parse_double(s, x) != TEXT_SYNTAX;
}

/* Reads the CSV header: exactly the columns arrival, prompt and output, in any order. */
static int parse_header(struct trace *t, char *line, struct pp_error *err)
{
	char q[QUOTE_SIZE], *fields[NFIELDS + 1];
	size_t offs[NFIELDS + 1], n;
	bool seen[NFIELDS] = {false}, ok;

	quoted(q, line, strlen(line));
	n = text_csv_split(line, false, fields, offs, NFIELDS + 1);
	ok = n == NFIELDS;
	for (size_t i = 0; ok && i < n; i++) {
		int f = field_find(fields[i], strlen(fields[i]));

		ok = f >= 0 && !seen[f];
		if (ok) {
			seen[f] = true;
			t->col[i] = f;
		}
	}
	if (!ok)
		return fail_at(t, err, 1,
		               "the header must name the columns arrival, prompt and output, not "
		               "'%s'",
		               q);
	return 0;
}

/* Reads a CSV row: one number per column of the header. */
static int parse_csv_row(struct trace *t, char *line, struct pp_error *err)
{
	char q[QUOTE_SIZE], *fields[NFIELDS + 1];
	size_t offs[NFIELDS + 1], n, at_arrival = 1;
	struct serve_request r = {0, 0, 0};

	quoted(q, line, strlen(line));
	n = text_csv_split(line, false, fields, offs, NFIELDS + 1);
	if (n != NFIELDS)
		return fail_at(t, err, n > NFIELDS ? offs[NFIELDS] + 1 : 1,
		               "row '%s': %zu field%s, not 3 (arrival, prompt and output)", q, n,
		               n == 1 ? "" : "s");
	for (size_t i = 0; i < NFIELDS; i++) {
		struct value v = {0, fields[i], strlen(fields[i]), offs[i] + 1, NULL};

		if (!parse_decimal(fields[i], &v.x))
			v.x = NAN;
		if (set_field(t, &r, t->col[i], &v, err) != 0)
			return -1;
		if (t->col[i] == F_ARRIVAL)
			at_arrival = v.column;
	}
	return add_request(t, &r, at_arrival, err);
}

/* Reads one line of len bytes: skips blank lines and comments, takes the format from the
 * first other line, and parses the rest. */
static int read_line(struct trace *t, char *line, size_t len, struct pp_error *err)
{
	size_t start;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	start = strspn(line, " \t");
	if (line[start] == '\0' || line[start] == '#')
		return 0;
	if (!t->started) {
		t->started = true;
		if (line[start] == '[')
			return fail_at(t, err, start + 1,
			               "a JSON array: a request trace is one JSON object a line (JSON "
			               "Lines: {\"arrival\": ..., \"prompt\": ..., \"output\": ...}) or "
			               "a CSV with the header arrival,prompt,output");
		t->json = line[start] == '{';
		if (!t->json)
			return text_lines_check_csv(t->in, err) != 0 ? -1 : parse_header(t, line, err);
	}
	/* a row cut at the end of the file may still be one (output 20 cut to 2); a JSON line cut
	 * is no JSON */
	if (!t->json && (text_lines_check_whole(t->in, err) != 0 ||
	                 text_lines_check_csv(t->in, err) != 0))
		return -1;
	return t->json ? parse_json_line(t, line, err) : parse_csv_row(t, line, err);
}

/* Fails err about the file as a whole (no line or column). */
__attribute__((format(printf, 3, 4))) static int
fail_file(struct pp_error *err, enum pp_errkind kind, const char *fmt, ...)
{
	char what[sizeof(err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err->line = 0;
	err->column = 0;
	return pp_fail(err, kind, "%s", what);
}

/* Reads every line of f into t; 0 or -1. */
static int read_lines(struct trace *t, FILE *f, struct pp_error *err)
{
	struct text_lines in;
	int rc = 0, more;

	text_lines_init(&in, f, "requests", t->path);
	t->in = &in;
	while (rc == 0 && (more = text_lines_next(&in, err)) != 0) {
		t->lineno = in.lineno;
		rc = more < 0 ? -1 : read_line(t, in.line, in.len, err);
	}
	text_lines_release(&in);
	if (rc == 0 && t->n == 0)
		return fail_file(err, PP_ERR_CONFIG, "requests '%s': no requests", t->path);
	return rc;
}

static int read_stream(FILE *f, const char *path, void *w, struct pp_error *err)
{
	return serve_workload_read_stream(f, path, w, err);
}

int serve_workload_read(const char *path, struct serve_workload *w, struct pp_error *err)
{
	memset(w, 0, sizeof(*w));
	return text_read_file(path, read_stream, w, err);
}

int serve_workload_read_stream(FILE *f, const char *path, struct serve_workload *w,
                               struct pp_error *err)
{
	struct trace t = {path, false, false, {0}, 0, NULL, NULL, 0, 0};
	int rc;

	memset(w, 0, sizeof(*w));
	rc = read_lines(&t, f, err);
	if (rc != 0) {
		free(t.req);
		return -1;
	}
	/* give back the spare capacity; keeping it when that fails is no error */
	w->req = pp_reallocarray(t.req, t.n, sizeof(*t.req));
	if (w->req == NULL)
		w->req = t.req;
	w->n = t.n;
	return 0;
}

/* xoshiro256** (Blackman and Vigna, 2018): the generator's whole state. */
struct rng {
	uint64_t s[4];
};

/* Seeds g with four successive splitmix64 outputs from seed. */
static void rng_seed(struct rng *g, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		g->s[i] = pp_splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *g)
{
	uint64_t *s = g->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* A uniform double in [0, 1): the top 53 bits of the next output, times 2^-53. */
static double rng_uniform(struct rng *g)
{
	return (double)(rng_next(g) >> 11) * (1.0 / 9007199254740992.0);
}

/* An exponential gap with mean 1000 / rate from one draw u: -ln(1 - u) * 1000 / rate. */
static double draw_gap(struct rng *g, double rate)
{
	return -log(1.0 - rng_uniform(g)) * 1000.0 / rate;
}

/*
 * A token count from d, clamped to [1, PP_MAX_COUNT]. fixed:a draws nothing; uniform:a:b draws
 * u and gives a + floor(u * (b - a + 1)); lognormal:mu:sigma draws u1 then u2 and gives
 * round(exp(mu + sigma * z)) with z = sqrt(-2 ln(1 - u1)) * cos(2 pi u2) (Box-Muller, the sine
 * half unused).
 */
static uint32_t draw_count(struct rng *g, const struct pp_dist *d)
{
	static const double two_pi = 6.283185307179586477;
	double x = d->a;

	if (d->kind == PP_DIST_UNIFORM) {
		x = d->a + floor(rng_uniform(g) * (d->b - d->a + 1));
		x = x > d->b ? d->b : x;
	} else if (d->kind == PP_DIST_LOGNORMAL) {
		double u1 = rng_uniform(g), u2 = rng_uniform(g);
		double z = sqrt(-2.0 * log(1.0 - u1)) * cos(two_pi * u2);

		x = round(exp(d->a + d->b * z));
	}
	if (!(x >= 1))
		return 1;
	return x > PP_MAX_COUNT ? PP_MAX_COUNT : (uint32_t)x;
}

/*
 * The arrival of request i, *t holding the previous arrival (0 before the first): poisson adds
 * a gap at the rate, bursty one gap at rate / burst before each burst's first request, closed
 * draws nothing and gives -1.
 */
static double next_arrival(struct rng *g, const struct config *c, size_t i, double *t)
{
	switch (c->arrival) {
	case PP_ARRIVAL_POISSON:
		*t += draw_gap(g, c->rate);
		return *t;
	case PP_ARRIVAL_BURSTY:
		if (i % (size_t)c->burst == 0)
			*t += draw_gap(g, c->rate / c->burst);
		return *t;
	case PP_ARRIVAL_CLOSED:
		break;
	}
	return -1;
}

int serve_workload_generate(const struct config *c, struct serve_workload *w, struct pp_error *err)
{
	size_t n = (size_t)c->num_requests;
	struct rng g;
	double t = 0;

	assert(c->num_requests >= 1);
	assert(c->arrival == PP_ARRIVAL_CLOSED || c->rate > 0);
	assert(c->arrival != PP_ARRIVAL_BURSTY || c->burst >= 1);
	n = n > SERVE_MAX_REQUESTS ? SERVE_MAX_REQUESTS : n;
	rng_seed(&g, c->seed);
	memset(w, 0, sizeof(*w));
	w->req = pp_mallocarray(n, sizeof(*w->req));
	if (w->req == NULL)
		return pp_nomem(err, n, sizeof(*w->req));
	w->n = n;
	w->concurrency = c->arrival == PP_ARRIVAL_CLOSED ? c->concurrency : 0;
	for (size_t i = 0; i < n; i++) {
		w->req[i].arrival = next_arrival(&g, c, i, &t);
		w->req[i].prompt = draw_count(&g, &c->prompt);
		w->req[i].output = draw_count(&g, &c->output);
	}
	return 0;
}

void serve_workload_free(struct serve_workload *w)
{
	if (w == NULL)
		return;
	free(w->req);
	memset(w, 0, sizeof(*w));
}
