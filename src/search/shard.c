/*
 * Shard files (shard.h): the head, the records through a kind's table of fields, and the
 * reader that checks each line as it comes, so that a file cut short, edited or of another
 * format is refused with the line at fault rather than joined into a wrong report.
 */
#include "ppsim/shard.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

/* The bytes of a run entry's value written on one line; the rest goes on in "+" lines, so that
 * no line, escaped, comes near the reader's limit (TEXT_LINE_MAX). */
#define CHUNK ((size_t)1 << 16)
/* Most fields a line of the head has, and most a record may have. */
#define HEAD_FIELDS 8
#define MAX_FIELDS  128

_Static_assert(sizeof(enum pp_errkind) == sizeof(int), "an enum field is written as an int");

/* Writes s[0..len-1] with backslash, tab, newline and carriage return escaped. */
static void put_escaped(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		switch (s[i]) {
		case '\\':
			fputs("\\\\", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			fputc(s[i], out);
		}
}

/* Undoes put_escaped in place; false when s holds a backslash not followed by one of \ t n r. */
static bool unescape(char *s)
{
	char *w = s;

	for (const char *p = s; *p != '\0'; p++) {
		if (*p != '\\') {
			*w++ = *p;
			continue;
		}
		switch (*++p) {
		case '\\':
			*w++ = '\\';
			break;
		case 't':
			*w++ = '\t';
			break;
		case 'n':
			*w++ = '\n';
			break;
		case 'r':
			*w++ = '\r';
			break;
		default:
			return false;
		}
	}
	*w = '\0';
	return true;
}

int shard_write_head(FILE *out, const struct shard_codec *codec, const struct shard_head *h)
{
	fprintf(out,
	        "ppsim-shard\t%d\nkind\t%s\nversion\t%s\nshard\t%" PRIu64 "\t%" PRIu64
	        "\npoints\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
	        SHARD_FORMAT, codec->kind, PP_VERSION, h->k, h->n, h->first, h->last, h->total);
	for (size_t i = 0; i < h->nrun; i++) {
		const char *v = h->run[i].value;
		size_t len = strlen(v), at = 0;

		fputs("run\t", out);
		put_escaped(out, h->run[i].name, strlen(h->run[i].name));
		fputc('\t', out);
		do {
			size_t piece = len - at < CHUNK ? len - at : CHUNK;

			if (at > 0)
				fputs("+\t", out);
			put_escaped(out, v + at, piece);
			fputc('\n', out);
			at += piece;
		} while (at < len);
	}
	fputs("columns", out);
	for (size_t f = 0; f < codec->nfields; f++)
		fprintf(out, "\t%s", codec->fields[f].name);
	fputc('\n', out);
	return 0;
}

/* Writes x so that it reads back the same: NaN and infinities by name. */
static void put_double(FILE *out, double x)
{
	char buf[32];

	if (isnan(x))
		fputs("nan", out);
	else if (isinf(x))
		fputs(x > 0 ? "inf" : "-inf", out);
	else
		fputs(pp_double_format(buf, sizeof(buf), x), out);
}

void shard_write_record(FILE *out, const struct shard_codec *codec, const void *rec)
{
	for (size_t f = 0; f < codec->nfields; f++) {
		const struct shard_field *d = &codec->fields[f];
		const void *at = (const char *)rec + d->offset;
		const int *ints = at;
		size_t n = d->count;

		if (f > 0)
			fputc('\t', out);
		switch (d->type) {
		case SHARD_U64:
			fprintf(out, "%" PRIu64, *(const uint64_t *)at);
			break;
		case SHARD_INT:
			fprintf(out, "%d", *(const int *)at);
			break;
		case SHARD_BOOL:
			fputc(*(const bool *)at ? '1' : '0', out);
			break;
		case SHARD_DOUBLE:
			put_double(out, *(const double *)at);
			break;
		case SHARD_TEXT:
			put_escaped(out, at, strnlen(at, d->count));
			break;
		case SHARD_INTS:
			while (n > 0 && ints[n - 1] == 0)
				n--;
			for (size_t i = 0; i < n; i++)
				fprintf(out, "%s%d", i ? "," : "", ints[i]);
			break;
		}
	}
	fputc('\n', out);
}

void shard_write_end(FILE *out, uint64_t count)
{
	fprintf(out, "end\t%" PRIu64 "\n", count);
}

struct shard_reader {
	FILE *f; /* the file shard_open opened, or NULL */
	struct text_lines lines;
	struct shard_head head;
	size_t cap;    /* entries allocated at head.run */
	uint64_t next; /* the index of the next record */
	bool checked;  /* the codec's columns were checked against the file's */
	char *fields[MAX_FIELDS];
};

/* The error of r's current line: "shard 'PATH':LINE: ..." (PP_ERR_CONFIG). Returns -1. */
static int bad_line(struct shard_reader *r, struct pp_error *err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int bad_line(struct shard_reader *r, struct pp_error *err, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	pp_fail(err, PP_ERR_CONFIG, "shard '%s':%zu: %s", r->lines.path, r->lines.lineno, what);
	err->line = r->lines.lineno > INT_MAX ? INT_MAX : (int)r->lines.lineno;
	return -1;
}

/*
 * Reads the next line into r->fields (unescaped) and returns how many fields it has (more than
 * max is an error), 0 at the end of the file, or -1 with err. what names the line expected, for
 * the message of a file that ends before it.
 */
static int next_fields(struct shard_reader *r, size_t max, const char *what, struct pp_error *err)
{
	int rc = text_lines_next(&r->lines, err);
	size_t n;

	if (rc < 0)
		return -1;
	if (rc == 0) {
		if (r->lines.lineno == 0)
			return pp_fail(err, PP_ERR_CONFIG, "shard '%s': an empty file, not a shard",
			               r->lines.path);
		r->lines.lineno++;
		return what == NULL ? 0
		                    : bad_line(r, err, "the file ends before its %s line", what);
	}
	if (text_lines_check_whole(&r->lines, err) != 0)
		return -1;
	n = text_split(r->lines.line, '\t', r->fields, max);
	if (n > max)
		return bad_line(r, err, "%zu fields, at most %zu expected", n, max);
	for (size_t i = 0; i < n; i++)
		if (!unescape(r->fields[i]))
			return bad_line(r, err,
			                "a backslash that escapes nothing (\\\\, \\t, \\n or \\r)");
	return (int)n;
}

/* Reads the head line word with n numbers into x[]; returns 0 or -1 with err. */
static int head_numbers(struct shard_reader *r, const char *word, uint64_t *x, size_t n,
                        struct pp_error *err)
{
	int got = next_fields(r, HEAD_FIELDS, word, err);

	if (got < 0)
		return -1;
	if (strcmp(r->fields[0], word) != 0 || (size_t)got != n + 1)
		return bad_line(r, err, "expected the %s line (%s and %zu numbers)", word, word, n);
	for (size_t i = 0; i < n; i++)
		if (text_parse_uint(r->fields[i + 1], 0, UINT64_MAX, &x[i]) != TEXT_OK)
			return bad_line(r, err, "%s '%s': not a whole number", word,
			                r->fields[i + 1]);
	return 0;
}

/* Reads the head line word with one text field into buf (size n); returns 0 or -1 with err. */
static int head_text(struct shard_reader *r, const char *word, char *buf, size_t n,
                     struct pp_error *err)
{
	int got = next_fields(r, HEAD_FIELDS, word, err);

	if (got < 0)
		return -1;
	if (strcmp(r->fields[0], word) != 0 || got != 2)
		return bad_line(r, err, "expected the %s line", word);
	if (strlen(r->fields[1]) >= n || r->fields[1][0] == '\0')
		return bad_line(r, err, "%s '%.40s': empty or too long", word, r->fields[1]);
	snprintf(buf, n, "%s", r->fields[1]);
	return 0;
}

/* Appends s to *value (a string of *len bytes, or NULL); returns 0 or -1 with err. */
static int append(char **value, size_t *len, const char *s, struct pp_error *err)
{
	size_t add = strlen(s);
	char *v = realloc(*value, *len + add + 1);

	if (v == NULL)
		return pp_nomem(err, *len + add + 1, 1);
	memcpy(v + *len, s, add + 1);
	*value = v;
	*len += add;
	return 0;
}

/* Reads the run entries and the columns line. */
static int read_run(struct shard_reader *r, struct pp_error *err)
{
	struct shard_head *h = &r->head;
	size_t len = 0;

	for (;;) {
		int got = next_fields(r, MAX_FIELDS, "columns", err);
		const char *word = got > 0 ? r->fields[0] : "";

		if (got < 0)
			return -1;
		if (strcmp(word, "+") == 0 && got == 2 && h->nrun > 0) {
			if (append(&h->run[h->nrun - 1].value, &len, r->fields[1], err) != 0)
				return -1;
			continue;
		}
		if (strcmp(word, "run") == 0 && got == 3) {
			struct shard_entry *e;

			if (pp_grow((void **)&h->run, &r->cap, h->nrun + 1, sizeof(*h->run), err) !=
			    0)
				return -1;
			e = &h->run[h->nrun];
			*e = (struct shard_entry){pp_strdup(r->fields[1]), NULL};
			h->nrun++;
			len = 0;
			if (e->name == NULL)
				return pp_nomem(err, strlen(r->fields[1]) + 1, 1);
			if (append(&e->value, &len, r->fields[2], err) != 0)
				return -1;
			continue;
		}
		if (strcmp(word, "columns") == 0 && got >= 2) {
			len = 0;
			for (int f = 1; f < got; f++)
				if ((f > 1 && append(&h->columns, &len, "\t", err) != 0) ||
				    append(&h->columns, &len, r->fields[f], err) != 0)
					return -1;
			return 0;
		}
		return bad_line(r, err, "expected a run, + or columns line");
	}
}

/* Reads and checks the head of r's file. */
static int read_head(struct shard_reader *r, struct pp_error *err)
{
	struct shard_head *h = &r->head;
	uint64_t x[3];
	int got = next_fields(r, HEAD_FIELDS, "ppsim-shard", err);

	if (got < 0)
		return -1;
	if (got != 2 || strcmp(r->fields[0], "ppsim-shard") != 0)
		return bad_line(r, err, "not a shard file (it starts with a ppsim-shard line)");
	if (text_parse_uint(r->fields[1], 1, UINT32_MAX, x) != TEXT_OK || x[0] != SHARD_FORMAT)
		return bad_line(r, err, "shard format '%.20s', this ppsim reads format %d",
		                r->fields[1], SHARD_FORMAT);
	if (head_text(r, "kind", h->kind, sizeof(h->kind), err) != 0 ||
	    head_text(r, "version", h->version, sizeof(h->version), err) != 0 ||
	    head_numbers(r, "shard", x, 2, err) != 0)
		return -1;
	h->k = x[0];
	h->n = x[1];
	if (h->k < 1 || h->k > h->n)
		return bad_line(r, err, "shard %" PRIu64 " of %" PRIu64 ": K must be from 1 to N",
		                h->k, h->n);
	if (head_numbers(r, "points", x, 3, err) != 0)
		return -1;
	h->first = x[0];
	h->last = x[1];
	h->total = x[2];
	if (h->first > h->last || h->last > h->total)
		return bad_line(r, err,
		                "points %" PRIu64 " to %" PRIu64 " of %" PRIu64
		                ": not a run of the points",
		                h->first, h->last, h->total);
	r->next = h->first;
	return read_run(r, err);
}

struct shard_reader *shard_open_stream(FILE *f, const char *path, struct pp_error *err)
{
	struct shard_reader *r = pp_zalloc(1, sizeof(*r), err);

	if (r == NULL)
		return NULL;
	text_lines_init(&r->lines, f, "shard", path);
	if (read_head(r, err) != 0) {
		shard_close(r);
		return NULL;
	}
	return r;
}

struct shard_reader *shard_open(const char *path, struct pp_error *err)
{
	FILE *f = fopen(path, "r");
	struct shard_reader *r;

	if (f == NULL) {
		text_read_error(err, path, errno);
		return NULL;
	}
	r = shard_open_stream(f, path, err);
	if (r == NULL)
		fclose(f);
	else
		r->f = f; /* the reader's to close */
	return r;
}

const struct shard_head *shard_reader_head(const struct shard_reader *r)
{
	return &r->head;
}

/* Whether codec's columns are those of r's file. */
static bool same_columns(const struct shard_codec *codec, const char *columns)
{
	for (size_t f = 0; f < codec->nfields; f++) {
		size_t n = strlen(codec->fields[f].name);

		if (f > 0 && *columns++ != '\t')
			return false;
		if (strncmp(columns, codec->fields[f].name, n) != 0)
			return false;
		columns += n;
	}
	return *columns == '\0';
}

/* Reads field d of a record from s into rec; false when s is not a value of its type. */
static bool take_field(const struct shard_field *d, const char *s, void *rec)
{
	void *at = (char *)rec + d->offset;
	uint64_t u;
	long long i;
	double x;
	int rc;

	switch (d->type) {
	case SHARD_U64:
		if (text_parse_uint(s, 0, UINT64_MAX, &u) != TEXT_OK)
			return false;
		*(uint64_t *)at = u;
		return true;
	case SHARD_INT:
		if (text_parse_int(s, INT_MIN, INT_MAX, &i) != TEXT_OK)
			return false;
		*(int *)at = (int)i;
		return true;
	case SHARD_BOOL:
		if (strcmp(s, "0") != 0 && strcmp(s, "1") != 0)
			return false;
		*(bool *)at = *s == '1';
		return true;
	case SHARD_DOUBLE:
		if (strcmp(s, "nan") == 0)
			x = NAN;
		else if (strcmp(s, "inf") == 0 || strcmp(s, "-inf") == 0)
			x = *s == '-' ? -INFINITY : INFINITY;
		/* a subnormal reads back with ERANGE: still the number written */
		else if ((rc = text_parse_double(s, &x)) != TEXT_OK &&
		         !(rc == TEXT_RANGE && isfinite(x)))
			return false;
		*(double *)at = x;
		return true;
	case SHARD_TEXT:
		if (strlen(s) >= d->count)
			return false;
		memcpy(at, s, strlen(s) + 1);
		return true;
	case SHARD_INTS: {
		char *copy = pp_strdup(s), *item[SHARD_MAX_INTS + 1];
		size_t n;
		bool ok = copy != NULL;

		if (!ok || *s == '\0') {
			free(copy);
			return ok;
		}
		n = text_split(copy, ',', item, SHARD_MAX_INTS + 1);
		ok = n <= d->count && n <= SHARD_MAX_INTS;
		for (size_t k = 0; ok && k < n; k++) {
			ok = text_parse_int(item[k], INT_MIN, INT_MAX, &i) == TEXT_OK;
			((int *)at)[k] = (int)i;
		}
		free(copy);
		return ok;
	}
	}
	return false;
}

/* Reads the end line (r's current line, of got fields) and checks that nothing follows it. */
static int read_end(struct shard_reader *r, int got, struct pp_error *err)
{
	uint64_t count, want = r->head.last - r->head.first;

	if (got != 2 || text_parse_uint(r->fields[1], 0, UINT64_MAX, &count) != TEXT_OK)
		return bad_line(r, err, "expected end and the number of records");
	if (r->next < r->head.last)
		return bad_line(r, err,
		                "the file ends after %" PRIu64 " of its %" PRIu64
		                " records (points %" PRIu64 " to %" PRIu64 ")",
		                r->next - r->head.first, want, r->head.first, r->head.last - 1);
	if (count != want)
		return bad_line(r, err, "end says %" PRIu64 " records, the file holds %" PRIu64,
		                count, want);
	got = next_fields(r, MAX_FIELDS, NULL, err);
	if (got < 0)
		return -1;
	if (got > 0)
		return bad_line(r, err, "a line after the end line");
	return 0;
}

int shard_next(struct shard_reader *r, const struct shard_codec *codec, void *rec,
               struct pp_error *err)
{
	int got;

	if (!r->checked) {
		if (strcmp(r->head.kind, codec->kind) != 0 || !same_columns(codec, r->head.columns))
			return pp_fail(err, PP_ERR_CONFIG,
			               "shard '%s': its columns are not those of a %s's records",
			               r->lines.path, codec->kind);
		r->checked = true;
	}
	got = next_fields(r, MAX_FIELDS, NULL, err);
	if (got < 0)
		return -1;
	if (got == 0)
		return bad_line(r, err,
		                "the file ends after %" PRIu64 " of its %" PRIu64
		                " records, without its end line (cut short?)",
		                r->next - r->head.first, r->head.last - r->head.first);
	if (strcmp(r->fields[0], "end") == 0)
		return read_end(r, got, err) == 0 ? 0 : -1;
	if (r->next == r->head.last)
		return bad_line(r, err, "more records than its points line says (%" PRIu64 ")",
		                r->head.last - r->head.first);
	if ((size_t)got != codec->nfields)
		return bad_line(r, err, "a record of %d fields, expected %zu", got, codec->nfields);
	memset(rec, 0, codec->size);
	for (size_t f = 0; f < codec->nfields; f++)
		if (!take_field(&codec->fields[f], r->fields[f], rec))
			return bad_line(r, err, "%s '%.40s': not a value of the column",
			                codec->fields[f].name, r->fields[f]);
	if (codec->check != NULL) {
		char why[160];

		if (!codec->check(rec, why, sizeof(why)))
			return bad_line(r, err, "%s, which no run writes (an edited file?)", why);
	}
	if (*(const uint64_t *)(const void *)((const char *)rec + codec->fields[0].offset) !=
	    r->next)
		return bad_line(r, err, "the record of point %s where point %" PRIu64 " was due",
		                r->fields[0], r->next);
	r->next++;
	return 1;
}

void shard_close(struct shard_reader *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->head.nrun; i++) {
		free(r->head.run[i].name);
		free(r->head.run[i].value);
	}
	free(r->head.run);
	free(r->head.columns);
	text_lines_release(&r->lines);
	if (r->f != NULL)
		fclose(r->f);
	free(r);
}

/* Writes s into buf (size n) quoted, cut to 60 bytes; returns buf. */
static const char *quoted(char *buf, size_t n, const char *s)
{
	snprintf(buf, n, strlen(s) > 60 ? "'%.57s...'" : "'%s'", s);
	return buf;
}

/* What the records of a shard of kind are, for a message. */
static const char *kind_records(const char *kind)
{
	return strcmp(kind, "sweep") == 0     ? "a sweep's points"
	       : strcmp(kind, "samples") == 0 ? "a run's noise samples"
	                                      : kind;
}

bool shard_same_run(const struct shard_head *a, const struct shard_head *b, char *why, size_t n)
{
	char x[80], y[80];
	size_t i;

	if (strcmp(a->kind, b->kind) != 0)
		snprintf(why, n, "%s against %s", kind_records(a->kind), kind_records(b->kind));
	else if (strcmp(a->version, b->version) != 0)
		snprintf(why, n, "written by ppsim %s against %s", a->version, b->version);
	else if (strcmp(a->columns, b->columns) != 0)
		snprintf(why, n, "other columns");
	else {
		/* the settings first: they say why the points differ */
		for (i = 0; i < a->nrun && i < b->nrun; i++)
			if (strcmp(a->run[i].name, b->run[i].name) != 0 ||
			    strcmp(a->run[i].value, b->run[i].value) != 0)
				break;
		if (i == a->nrun && i == b->nrun) {
			if (a->n == b->n && a->total == b->total)
				return true;
			if (a->n != b->n)
				snprintf(why, n,
				         "one of %" PRIu64 " shards against one of %" PRIu64, a->n,
				         b->n);
			else
				snprintf(why, n, "%" PRIu64 " points against %" PRIu64, a->total,
				         b->total);
		} else if (i == a->nrun || i == b->nrun)
			snprintf(why, n, "%zu settings against %zu", a->nrun, b->nrun);
		else if (strcmp(a->run[i].name, b->run[i].name) != 0)
			snprintf(why, n, "setting %zu: %s against %s", i + 1,
			         quoted(x, sizeof(x), a->run[i].name),
			         quoted(y, sizeof(y), b->run[i].name));
		else if (strcmp(a->run[i].name, "input") == 0 && strlen(a->run[i].value) > 17 &&
		         strlen(b->run[i].value) > 17 &&
		         strcmp(a->run[i].value + 17, b->run[i].value + 17) == 0)
			snprintf(why, n, "'%.200s' held other bytes for each (fingerprints %.16s and "
			         "%.16s)",
			         a->run[i].value + 17, a->run[i].value, b->run[i].value);
		else
			snprintf(why, n, "setting %zu (%s): %s against %s", i + 1, a->run[i].name,
			         quoted(x, sizeof(x), a->run[i].value),
			         quoted(y, sizeof(y), b->run[i].value));
	}
	return false;
}

bool shard_check_figure(const char *name, double value, double hi, bool finite, char *why,
                        size_t n)
{
	if ((finite && !isfinite(value)) || value < 0 || value > hi) {
		const char *what = value < 0 ? "below 0" : value > hi ? "above 1" : "not finite";

		snprintf(why, n, "column '%s': %g is %s", name, value, what);
		return false;
	}
	return true;
}
