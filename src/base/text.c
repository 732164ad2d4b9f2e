/*
 * Text input: the bounded line reader, the CSV field splitter and the strict number parsers.
 * The reader takes a byte at a time (getc_unlocked under one lock per line), which lets it see
 * a NUL byte where it stands and stop at the length cap, its buffer (grown by pp_grow's
 * doubling) never past 2 * TEXT_LINE_MAX bytes however long the line; a line read in pieces
 * is cut at the last field that fits, and its rest opens the next piece. The number parsers check
 * the syntax themselves and leave only the conversion of a valid double to strtod, so that
 * nothing else strtod takes (blanks, hex, inf, nan) slips through.
 */
#include "text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int text_read_error(struct pp_error *err, const char *path, int errnum)
{
	if (errnum == ENOMEM)
		return pp_fail(err, PP_ERR_NOMEM, "out of memory reading '%s'", path);
	return pp_fail(err, PP_ERR_IO, "cannot read '%s': %s", path, strerror(errnum));
}

/* FNV-1a's 64-bit offset basis and prime. */
#define FNV_BASIS 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

static int fingerprint_read(FILE *f, const char *path, void *ctx, struct pp_error *err)
{
	uint64_t h = FNV_BASIS;
	unsigned char buf[1 << 16];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * FNV_PRIME;
	if (ferror(f))
		return text_read_error(err, path, errno != 0 ? errno : EIO);
	*(uint64_t *)ctx = h;
	return 0;
}

int text_file_fingerprint(const char *path, uint64_t *fp, struct pp_error *err)
{
	return text_read_file(path, fingerprint_read, fp, err);
}

int text_read_file(const char *path, text_read_fn *read, void *ctx, struct pp_error *err)
{
	FILE *f;
	int rc;

	/* an empty name is a missing value, not a file that failed to read */
	if (path[0] == '\0')
		return pp_fail(err, PP_ERR_USAGE, "cannot read '': the file name is empty");
	f = fopen(path, "rb");
	if (f == NULL) {
		if (err != NULL)
			err->line = err->column = 0;
		return text_read_error(err, path, errno);
	}
	rc = read(f, path, ctx, err);
	fclose(f);
	return rc;
}

void text_lines_init(struct text_lines *r, FILE *f, const char *what, const char *path)
{
	*r = (struct text_lines){.f = f, .what = what, .path = path};
}

static int fail_line(struct text_lines *r, struct pp_error *err, size_t column, const char *what)
{
	if (err == NULL)
		return -1;
	err->line = r->lineno > INT_MAX ? INT_MAX : (int)r->lineno;
	err->column = column > INT_MAX ? INT_MAX : (int)column;
	return pp_fail(err, PP_ERR_CONFIG, "%s '%s':%d:%d: %s", r->what, r->path, err->line,
	               err->column, what);
}

int text_lines_too_long(struct text_lines *r, struct pp_error *err)
{
	char what[96];

	snprintf(what, sizeof(what), "a line longer than the limit of %zu bytes", TEXT_LINE_MAX);
	return fail_line(r, err, r->column + TEXT_LINE_MAX, what);
}

int text_lines_check_whole(struct text_lines *r, struct pp_error *err)
{
	if (r->newline)
		return 0;
	return fail_line(r, err, r->column + r->len,
	                 "the file ends in this line, without a newline: its last number may be "
	                 "cut (end the file with a newline if it is whole)");
}

/* Where the CSV field at p ends: at its comma, or at the NUL that ends the text (the rules of
 * text_csv_next: a field opening with a quote runs to its closing quote, "" being one). */
static char *field_end(char *p)
{
	p += strspn(p, " \t");
	if (*p == '"') {
		for (p++; *p != '\0'; p++) {
			if (*p == '"' && p[1] == '"') {
				p++;
			} else if (*p == '"') {
				p++;
				break;
			}
		}
	}
	return p + strcspn(p, ",");
}

int text_lines_check_csv(struct text_lines *r, struct pp_error *err)
{
	const char *line = r->line, *p = line;

	while (p != NULL) {
		const char *q = p + strspn(p, " \t"), *t;

		if (*q != '"') { /* unquoted: to its comma */
			p = strchr(q, ',');
			p = p != NULL ? p + 1 : NULL;
			continue;
		}
		for (t = q + 1; *t != '\0' && !(*t == '"' && t[1] != '"'); t += *t == '"' ? 2 : 1)
			;
		if (*t == '\0')
			return fail_line(r, err, r->column + (size_t)(q - line),
			                 "a quoted field without its closing quote (a field does not "
			                 "span lines; a quote inside one is written \"\")");
		t += 1 + strspn(t + 1, " \t\r");
		if (*t != ',' && *t != '\0')
			return fail_line(r, err, r->column + (size_t)(t - line),
			                 "text after a quoted field's closing quote (a quote inside a "
			                 "quoted field is written \"\")");
		p = *t == ',' ? t + 1 : NULL;
	}
	return 0;
}

/* The comma that ends the last whole field of text, or NULL when its first field runs to its
 * end. */
static char *last_field_end(char *text)
{
	char *last = NULL;

	for (char *end = field_end(text); *end == ','; end = field_end(end + 1))
		last = end;
	return last;
}

/*
 * Reads the next line (pieces: or piece of one) into r; text_lines_next and
 * text_lines_next_piece. A piece's rest waits at r->line + r->rest and opens the next piece.
 */
static int next_line(struct text_lines *r, bool pieces, struct pp_error *err)
{
	size_t len = 0;
	int ch = EOF, saved = 0;
	bool cont = r->more;

	if (r->line == NULL) {
		/* most lines are short: start small, grow by doubling up to the cap */
		if (pp_grow((void **)&r->line, &r->cap, 256, 1, err) != 0)
			return -1;
	}
	if (cont) {
		memmove(r->line, r->line + r->rest, r->nrest);
		len = r->nrest;
		r->column += r->rest;
	} else {
		r->column = 1;
	}
	r->more = false;
	errno = 0;
	flockfile(r->f);
	while ((ch = getc_unlocked(r->f)) != EOF && ch != '\n' && ch != '\0' &&
	       len < TEXT_LINE_MAX) {
		if (len + 1 >= r->cap && pp_grow((void **)&r->line, &r->cap, len + 2, 1, err) != 0)
			break;
		r->line[len++] = (char)ch;
	}
	saved = errno;
	funlockfile(r->f);
	r->line[len] = '\0';
	r->len = len;
	r->newline = ch == '\n';
	if (ch == EOF && ferror(r->f)) {
		if (err != NULL) {
			err->line = err->column = 0;
			text_read_error(err, r->path, saved);
		}
		return -1;
	}
	if (ch == EOF && len == 0 && !cont)
		return 0;
	if (!cont)
		r->lineno++;
	if (ch != EOF && ch != '\n' && ch != '\0' && len < TEXT_LINE_MAX)
		return -1; /* pp_grow failed: err holds PP_ERR_NOMEM */
	if (ch == '\0')
		return fail_line(r, err, r->column + len, "a NUL byte: not a text file");
	if (len == TEXT_LINE_MAX && ch != EOF && ch != '\n') {
		char *cut = pieces ? last_field_end(r->line) : NULL;
		char what[96];

		if (cut == NULL && pieces) {
			snprintf(what, sizeof(what), "a field longer than the limit of %zu bytes",
			         TEXT_LINE_MAX);
			return fail_line(r, err, r->column + TEXT_LINE_MAX, what);
		}
		if (cut == NULL)
			return text_lines_too_long(r, err);
		/* the byte read past the cap opens the next piece, after the rest of this one */
		ungetc(ch, r->f);
		*cut = '\0';
		r->len = (size_t)(cut - r->line);
		r->rest = r->len + 1;
		r->nrest = len - r->rest;
		r->more = true;
	}
	/* a UTF-8 byte order mark (spreadsheets write one) is not part of the first line */
	if (r->lineno == 1 && r->column == 1 && r->len >= 3 &&
	    memcmp(r->line, "\xef\xbb\xbf", 3) == 0) {
		memmove(r->line, r->line + 3, len - 2);
		r->len -= 3;
		r->rest -= r->more ? 3 : 0;
	}
	return 1;
}

int text_lines_next(struct text_lines *r, struct pp_error *err)
{
	return next_line(r, false, err);
}

int text_lines_next_piece(struct text_lines *r, struct pp_error *err)
{
	return next_line(r, true, err);
}

void text_lines_release(struct text_lines *r)
{
	free(r->line);
	r->line = NULL;
	r->cap = 0;
}

/*
 * Unquotes the quoted field at field[0] == '"' in place: "" stands for one quote, and a comma
 * inside the quotes is the field's; what stands after the closing quote is kept, up to the
 * field's end (field_end's), which stays in place; an unclosed quote runs to the end of the
 * line.
 */
static void unquote(char *field)
{
	char *in = field + 1, *out = field;

	while (*in != '\0') {
		if (*in == '"' && in[1] == '"') {
			*out++ = '"';
			in += 2;
		} else if (*in == '"') {
			in++;
			break;
		} else {
			*out++ = *in++;
		}
	}
	/* what stands between the closing quote and the comma is kept, after the text */
	while (*in != '\0' && *in != ',')
		*out++ = *in++;
	if (out < in)
		memset(out, '\0', (size_t)(in - out));
}

char *text_csv_next(char **p, bool trim_cr)
{
	char *field = *p + strspn(*p, " \t"), *end = field_end(field), *q;

	if (*field == '"')
		unquote(field);
	if (*end == ',') {
		*end = '\0';
		*p = end + 1;
	} else {
		*p = NULL;
	}
	q = field + strlen(field);
	while (q > field &&
	       (q[-1] == ' ' || q[-1] == '\t' || (trim_cr && (q[-1] == '\r' || q[-1] == '\n'))))
		*--q = '\0';
	return field;
}

size_t text_split(char *s, char sep, char **fields, size_t max)
{
	size_t n = 1;

	for (size_t i = 0; i < max; i++)
		fields[i] = NULL;
	if (max > 0)
		fields[0] = s;
	for (char *p = strchr(s, sep); p != NULL; p = strchr(p + 1, sep)) {
		*p = '\0';
		if (n < max)
			fields[n] = p + 1;
		n++;
	}
	return n;
}

size_t text_csv_split(char *line, bool trim_cr, char **fields, size_t *offs, size_t max)
{
	size_t n = 0;

	for (char *p = line; p != NULL; n++) {
		char *field = text_csv_next(&p, trim_cr);

		if (n < max) {
			fields[n] = field;
			offs[n] = (size_t)(field - line);
		}
	}
	return n;
}

int text_scan_uint(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t x = 0;
	bool over = false;

	if (*s < '0' || *s > '9')
		return TEXT_SYNTAX;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		over |= x > (UINT64_MAX - d) / 10;
		x = x * 10 + d;
	}
	*p = s;
	if (over)
		return TEXT_RANGE;
	*out = x;
	return TEXT_OK;
}

int text_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t x;
	int rc = text_scan_uint(&s, &x);

	if (rc == TEXT_SYNTAX || *s != '\0')
		return TEXT_SYNTAX;
	if (rc == TEXT_RANGE || x < lo || x > hi)
		return TEXT_RANGE;
	*out = x;
	return TEXT_OK;
}

int text_parse_int(const char *s, long long lo, long long hi, long long *out)
{
	bool minus = *s == '-';
	uint64_t mag;
	long long x;
	int rc;

	s += minus;
	rc = text_scan_uint(&s, &mag);
	if (rc == TEXT_SYNTAX || *s != '\0')
		return TEXT_SYNTAX;
	if (rc == TEXT_RANGE || mag > (uint64_t)LLONG_MAX + minus)
		return TEXT_RANGE;
	/* -(LLONG_MAX + 1) is -LLONG_MAX - 1: negate before the last step, which would overflow */
	x = !minus ? (long long)mag : mag == 0 ? 0 : -(long long)(mag - 1) - 1;
	if (x < lo || x > hi)
		return TEXT_RANGE;
	*out = x;
	return TEXT_OK;
}

int text_parse_double(const char *s, double *out)
{
	static const char digit[] = "0123456789";
	const char *p = s + (*s == '-' || *s == '+');
	size_t digits = strspn(p, digit);
	char *end;
	double x;

	p += digits;
	if (*p == '.') {
		size_t frac = strspn(p + 1, digit);

		digits += frac;
		p += 1 + frac;
	}
	if (digits == 0)
		return TEXT_SYNTAX;
	if (*p == 'e' || *p == 'E') {
		size_t exp;

		p += 1 + (p[1] == '+' || p[1] == '-');
		exp = strspn(p, digit);
		if (exp == 0)
			return TEXT_SYNTAX;
		p += exp;
	}
	if (*p != '\0')
		return TEXT_SYNTAX;
	errno = 0;
	x = strtod(s, &end);
	if (end != p)
		return TEXT_SYNTAX;
	*out = x;
	return errno == ERANGE ? TEXT_RANGE : TEXT_OK;
}

size_t text_visible_len(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;

	if (*s >= 0x20 && *s < 0x7f)
		return 1;
	if (*s >= 0xc2 && *s <= 0xdf && (s[1] & 0xc0) == 0x80 && !(*s == 0xc2 && s[1] < 0xa0))
		return 2;
	if (*s >= 0xe0 && *s <= 0xef && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
	    !(*s == 0xe0 && s[1] < 0xa0) && !(*s == 0xed && s[1] >= 0xa0))
		return 3;
	if (*s >= 0xf0 && *s <= 0xf4 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
	    (s[3] & 0xc0) == 0x80 && !(*s == 0xf0 && s[1] < 0x90) && !(*s == 0xf4 && s[1] >= 0x90))
		return 4;
	return 0;
}

void text_put_visible(FILE *out, const char *text)
{
	while (*text != '\0') {
		size_t n = text_visible_len(text);

		if (n == 0)
			fprintf(out, "\\x%02x", (unsigned char)*text++);
		else {
			fwrite(text, 1, n, out);
			text += n;
		}
	}
}

/* The bytes text takes written as text_visible writes it. */
static size_t visible_width(const char *text)
{
	size_t w = 0;

	while (*text != '\0') {
		size_t n = text_visible_len(text);

		w += n == 0 ? 4 : n;
		text += n == 0 ? 1 : n;
	}
	return w;
}

char *text_visible(char *buf, size_t size, const char *text)
{
	/* whole when it fits, else cut at a whole character or \xNN and marked "..." */
	bool cut = visible_width(text) >= size;
	size_t room = !cut ? size : size > 3 ? size - 3 : 0, at = 0;

	if (size == 0)
		return buf;
	while (*text != '\0') {
		size_t n = text_visible_len(text);

		if (at + (n == 0 ? 4 : n) >= room)
			break;
		if (n == 0) {
			snprintf(buf + at, size - at, "\\x%02x", (unsigned char)*text++);
			at += 4;
		} else {
			memcpy(buf + at, text, n);
			at += n;
			text += n;
		}
	}
	if (cut && at + 3 < size) {
		memcpy(buf + at, "...", 3);
		at += 3;
	}
	buf[at] = '\0';
	return buf;
}

char *text_choices(const char *const *names, size_t n, char *buf, size_t size)
{
	size_t len = 0;

	if (size > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s'%s'",
		                        i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	return buf;
}

void text_suggest_init(struct text_suggest *s, const char *word, size_t len)
{
	*s = (struct text_suggest){.word = word, .wlen = len, .dist = SIZE_MAX, .pdist = SIZE_MAX};
}

/* The edit distance of a[0..na-1] and b[0..nb-1], ignoring case, counting a swap of neighbours
 * as one edit (optimal string alignment); both at most TEXT_SUGGEST_MAX long. */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t d[TEXT_SUGGEST_MAX + 1][TEXT_SUGGEST_MAX + 1];

	for (size_t i = 0; i <= na; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
			size_t best = d[i - 1][j - 1] + (ai != bj);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bj && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[na][nb];
}

/* Copies name[0..len-1] into a candidate buffer of TEXT_SUGGEST_MAX + 1 bytes. */
static void keep(char *to, const char *name, size_t len)
{
	memcpy(to, name, len);
	to[len] = '\0';
}

void text_suggest_try(struct text_suggest *s, const char *name, size_t len)
{
	size_t most = s->wlen <= 4 ? 1 : s->wlen <= 8 ? 2 : 3, d;

	if (s->wlen < 3 || s->wlen > TEXT_SUGGEST_MAX || len == 0 || len > TEXT_SUGGEST_MAX)
		return;
	/* a name the word begins (h100 of h100-sxm), if it is the only one */
	if (s->wlen >= 2 && s->wlen < len && strncasecmp(s->word, name, s->wlen) == 0) {
		if (!(s->prefixes == 1 && strlen(s->prefix) == len &&
		      memcmp(s->prefix, name, len) == 0) &&
		    s->prefixes++ == 0)
			keep(s->prefix, name, len);
		d = edit_distance(s->word, s->wlen, name, len);
		if (d < s->pdist) {
			s->pdist = d;
			keep(s->pbest, name, len);
		}
	}
	if (len == s->wlen && memcmp(name, s->word, len) == 0) {
		s->exact = true;
		return;
	}
	/* a name differing only in case is a suggestion for a word matched exactly */
	d = edit_distance(s->word, s->wlen, name, len);
	if (d <= most && d < s->dist) {
		s->dist = d;
		keep(s->best, name, len);
	}
}

void text_suggest_list(struct text_suggest *s, const char *list, const char *sep)
{
	size_t nsep = strlen(sep);

	while (*list != '\0') {
		const char *end = strstr(list, sep);
		size_t len = end != NULL ? (size_t)(end - list) : strlen(list);

		text_suggest_try(s, list, len);
		list += len;
		if (end != NULL)
			list += nsep;
	}
}

const char *text_suggest_best(const struct text_suggest *s)
{
	if (s->exact)
		return NULL; /* the word is a name */
	if (s->prefixes == 1)
		return s->prefix;
	if (s->dist == SIZE_MAX)
		return NULL;
	/* a word beginning several names, and not the nearest: the nearest of those it begins */
	if (s->prefixes > 1 &&
	    !(strlen(s->best) > s->wlen && strncasecmp(s->best, s->word, s->wlen) == 0))
		return s->pbest;
	return s->best;
}

const char *text_suggest_hint(const struct text_suggest *s, const char *prefix, char *buf,
                              size_t n)
{
	const char *best = text_suggest_best(s);

	if (best == NULL)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, "; did you mean '%s%s'?", prefix, best);
	return buf;
}

const char *text_suggest_in(const char *word, const char *list, const char *sep, char *buf,
                            size_t n)
{
	struct text_suggest s;

	text_suggest_init(&s, word, strlen(word));
	text_suggest_list(&s, list, sep);
	return text_suggest_hint(&s, "", buf, n);
}
