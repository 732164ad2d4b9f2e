/*
 * Positions and names for messages about JSON input. cJSON's tree keeps no positions and its
 * error pointer is sometimes one character off, so the readers find places in the text
 * themselves, with these helpers.
 */
#include "json_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t json_error_offset(const char *text, const char *end)
{
	size_t off = end != NULL ? (size_t)(end - text) : 0, prev;

	if (off == 0 || text[off - 1] == '"' || strchr(" \t\r\n", text[off - 1]) != NULL)
		return off;
	prev = off - 1;
	while (prev > 0 && strchr(" \t\r\n", text[prev - 1]) != NULL)
		prev--;
	if (prev > 0 && (text[prev - 1] == '{' || text[prev - 1] == ','))
		return off - 1;
	return off;
}

/* The depth of brackets open at text[off], outside strings. */
static size_t depth_at(const char *text, size_t off)
{
	size_t depth = 0;
	bool quoted = false;

	for (size_t i = 0; i < off; i++) {
		if (quoted && text[i] == '\\' && i + 1 < off)
			i++;
		else if (text[i] == '"')
			quoted = !quoted;
		else if (!quoted && (text[i] == '[' || text[i] == '{'))
			depth++;
		else if (!quoted && (text[i] == ']' || text[i] == '}') && depth > 0)
			depth--;
	}
	return depth;
}

const char *json_syntax_reason(const char *text, size_t len, size_t off, const char *unit,
                               char *buf, size_t n)
{
	const char *rest = text + (off < len ? off : len);

	if (strspn(text, " \t\r\n") >= len)
		snprintf(buf, n, "the %s is empty: a JSON object was expected", unit);
	else if (off >= len)
		snprintf(buf, n, "invalid JSON: the %s ends too soon", unit);
	else if (depth_at(text, off) >= CJSON_NESTING_LIMIT)
		snprintf(buf, n, "invalid JSON: nested more than %d deep", CJSON_NESTING_LIMIT);
	else if (strncmp(rest, "NaN", 3) == 0 || strncmp(rest, "Infinity", 8) == 0 ||
	         strncmp(rest, "-Infinity", 9) == 0)
		snprintf(buf, n, "invalid JSON: JSON has no NaN or Infinity");
	else
		snprintf(buf, n, "invalid JSON");
	return buf;
}

size_t json_skip_string(const char *text, size_t i)
{
	for (i++; text[i] != '\0' && text[i] != '"'; i++)
		if (text[i] == '\\' && text[i + 1] != '\0')
			i++;
	return text[i] == '"' ? i + 1 : i;
}

/* The offset after the JSON number at text[i], or the offset of the byte that breaks its
 * grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, with *bad set. */
static size_t strict_number(const char *text, size_t len, size_t i, bool *bad)
{
	size_t d;

	*bad = false;
	if (i < len && text[i] == '-')
		i++;
	if (i < len && text[i] == '0') {
		i++;
	} else {
		for (d = i; i < len && text[i] >= '0' && text[i] <= '9'; i++)
			;
		if (i == d)
			return *bad = true, i;
	}
	if (i < len && text[i] == '.') {
		for (d = ++i; i < len && text[i] >= '0' && text[i] <= '9'; i++)
			;
		if (i == d)
			return *bad = true, i;
	}
	if (i < len && (text[i] == 'e' || text[i] == 'E')) {
		i++;
		if (i < len && (text[i] == '+' || text[i] == '-'))
			i++;
		for (d = i; i < len && text[i] >= '0' && text[i] <= '9'; i++)
			;
		if (i == d)
			return *bad = true, i;
	}
	/* what cJSON took as part of the number and the grammar does not */
	if (i < len && strchr("0123456789+-.eE", text[i]) != NULL)
		*bad = true;
	return i;
}

size_t json_strict_check(const char *text, size_t len, char *buf, size_t n)
{
	for (size_t i = 0; i < len;) {
		unsigned char ch = (unsigned char)text[i];
		bool bad;

		if (ch == '"') {
			for (i++; i < len && text[i] != '"'; i++) {
				unsigned char c = (unsigned char)text[i];

				if (c < 0x20) {
					snprintf(
					        buf, n,
					        "a raw control byte (0x%02x) in a string: write it "
					        "\\u%04x",
					        c, c);
					return i;
				}
				if (c == '\\' && i + 1 < len) {
					if (text[i + 1] == 'u' && i + 5 < len &&
					    strncmp(text + i + 2, "0000", 4) == 0) {
						snprintf(buf, n,
						         "\\u0000 in a string: a string "
						         "cannot hold a NUL byte");
						return i;
					}
					i++;
				}
			}
			i++;
			continue;
		}
		if (ch == '-' || (ch >= '0' && ch <= '9') || ch == '+' || ch == '.') {
			size_t end = strict_number(text, len, i, &bad);

			if (bad || ch == '+' || ch == '.') {
				snprintf(buf, n,
				         "a number outside JSON's grammar (such as 12, -0.5, "
				         "1e-3)");
				return i;
			}
			i = end;
			continue;
		}
		if (ch < 0x20 && ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
			snprintf(buf, n,
			         "a control byte (0x%02x): JSON's blanks are space, tab, newline "
			         "and carriage return",
			         ch);
			return i;
		}
		i++;
	}
	return len;
}

/*
 * The checker walks the text as cJSON's parser does, step for step, so that the two agree on
 * every input: n counts the NUL after the text, as the length cJSON is given does, and at never
 * passes it.
 */
struct scan {
	const char *t; /* the text */
	size_t n;      /* its length plus the NUL */
	size_t at;     /* the next byte */
	int depth;     /* arrays and objects open */
};

static bool scan_value(struct scan *s);

/* cJSON skips every byte up to a space (the NUL included) but stays on the last byte. */
static void scan_blanks(struct scan *s)
{
	if (s->at >= s->n)
		return;
	while (s->at < s->n && (unsigned char)s->t[s->at] <= ' ')
		s->at++;
	if (s->at == s->n)
		s->at--;
}

/* The value of 4 hex digits at p; 0 when one is not a hex digit (cJSON takes that too). */
static unsigned hex4(const char *p)
{
	unsigned h = 0;

	for (int i = 0; i < 4; i++) {
		const char *digits = "0123456789abcdef", *d;
		char ch = p[i] >= 'A' && p[i] <= 'F' ? (char)(p[i] - 'A' + 'a') : p[i];

		if (ch == '\0' || (d = strchr(digits, ch)) == NULL)
			return 0;
		h = h * 16 + (unsigned)(d - digits);
	}
	return h;
}

/* Length of the \u escape at p with room bytes before the closing quote (6 or 12 for a
 * surrogate pair), or 0 when cJSON refuses it. */
static size_t utf16_escape(const char *p, size_t room)
{
	unsigned first, second;

	if (room < 6)
		return 0;
	first = hex4(p + 2);
	if (first >= 0xDC00 && first <= 0xDFFF)
		return 0;
	if (first < 0xD800 || first > 0xDBFF)
		return 6;
	if (room < 12 || p[6] != '\\' || p[7] != 'u')
		return 0;
	second = hex4(p + 8);
	return second >= 0xDC00 && second <= 0xDFFF ? 12 : 0;
}

/* A string at s->at == '"': its end is the first quote no backslash escapes, then its escapes
 * are read from the start again, which may step over that quote as cJSON does. */
static bool scan_string(struct scan *s)
{
	size_t end = s->at + 1;

	while (end < s->n && s->t[end] != '"') {
		if (s->t[end] == '\\' && end + 1 >= s->n)
			return false;
		end += s->t[end] == '\\' ? 2 : 1;
	}
	if (end >= s->n || s->t[end] != '"')
		return false;
	for (size_t i = s->at + 1; i < end;) {
		size_t step = 1;

		if (s->t[i] == '\\' && s->t[i + 1] == 'u')
			step = utf16_escape(s->t + i, end - i);
		else if (s->t[i] == '\\')
			step = strchr("bfnrt\"\\/", s->t[i + 1]) != NULL && s->t[i + 1] != '\0' ? 2
			                                                                        : 0;
		if (step == 0)
			return false;
		i += step;
	}
	s->at = end + 1;
	return true;
}

/*
 * A number. cJSON hands strtod the digits, signs, 'e's and points that follow; of those strtod
 * takes a sign, digits with at most one point (one digit at least), then an exponent when a
 * digit follows its 'e' and sign. Nothing outside that run matches, so no hex, inf or nan.
 */
static bool scan_number(struct scan *s)
{
	const char *p = s->t + s->at;
	size_t i = p[0] == '-', digits = 0;

	for (; p[i] >= '0' && p[i] <= '9'; i++)
		digits++;
	if (p[i] == '.')
		for (i++; p[i] >= '0' && p[i] <= '9'; i++)
			digits++;
	if (digits == 0)
		return false;
	if (p[i] == 'e' || p[i] == 'E') {
		size_t j = i + 1 + (p[i + 1] == '+' || p[i + 1] == '-');

		if (p[j] >= '0' && p[j] <= '9') {
			while (p[j] >= '0' && p[j] <= '9')
				j++;
			i = j;
		}
	}
	s->at += i;
	return true;
}

/* An array or an object, at s->at == '[' or '{'. */
static bool scan_container(struct scan *s)
{
	bool object = s->t[s->at] == '{';
	char close = object ? '}' : ']';

	if (s->depth >= CJSON_NESTING_LIMIT)
		return false;
	s->depth++;
	s->at++;
	scan_blanks(s);
	if (s->at < s->n && s->t[s->at] == close) {
		s->depth--;
		s->at++;
		return true;
	}
	if (s->at >= s->n)
		return false;
	s->at--;
	do {
		s->at++;
		scan_blanks(s);
		if (object) {
			if (s->t[s->at] != '"' || !scan_string(s))
				return false;
			scan_blanks(s);
			if (s->at >= s->n || s->t[s->at] != ':')
				return false;
			s->at++;
			scan_blanks(s);
		}
		if (!scan_value(s))
			return false;
		scan_blanks(s);
	} while (s->at < s->n && s->t[s->at] == ',');
	if (s->at >= s->n || s->t[s->at] != close)
		return false;
	s->depth--;
	s->at++;
	return true;
}

static bool scan_value(struct scan *s)
{
	static const char *const words[] = {"null", "false", "true"};
	size_t left = s->n - s->at;
	char ch;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (left >= strlen(words[i]) &&
		    strncmp(s->t + s->at, words[i], strlen(words[i])) == 0) {
			s->at += strlen(words[i]);
			return true;
		}
	if (left == 0)
		return false;
	ch = s->t[s->at];
	if (ch == '"')
		return scan_string(s);
	if (ch == '-' || (ch >= '0' && ch <= '9'))
		return scan_number(s);
	return (ch == '[' || ch == '{') && scan_container(s);
}

size_t json_blanks_end(const char *text, size_t len, size_t at)
{
	while (at < len && (unsigned char)text[at] <= ' ')
		at++;
	return at;
}

size_t json_value_end(const char *text, size_t len, size_t at)
{
	struct scan s = {text, len + 1, at, 0};

	return scan_value(&s) ? s.at : len;
}

void json_advance(const char *text, size_t from, size_t to, struct json_pos *at)
{
	for (size_t i = from; i < to; i++) {
		if (text[i] == '\n') {
			at->line++;
			at->column = 1;
		} else {
			at->column++;
		}
	}
}

bool json_well_formed(const char *text, size_t len)
{
	struct scan s = {text, len + 1, 0, 0};

	if (s.n > 4 && strncmp(text, "\xEF\xBB\xBF", 3) == 0)
		s.at = 3;
	scan_blanks(&s);
	if (!scan_value(&s))
		return false;
	scan_blanks(&s);
	return s.at < s.n && text[s.at] == '\0';
}

const char *json_type_name(const cJSON *v)
{
	return cJSON_IsString(v)   ? "a string"
	       : cJSON_IsNumber(v) ? "a number"
	       : cJSON_IsBool(v)   ? "a boolean"
	       : cJSON_IsArray(v)  ? "an array"
	       : cJSON_IsObject(v) ? "an object"
	                           : "null";
}

size_t json_utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	/* the second byte's range rules out overlong forms, surrogates and past U+10FFFF */
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return n;
}

size_t json_utf8_clean(const char *text, char *out, size_t n)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t len = 0, k;

	for (size_t i = 0; p[i] != '\0'; i += k ? k : 1) {
		k = json_utf8_len(p + i);
		if (len + (k ? k : 3) + 1 > n)
			break; /* cut at a character's boundary */
		if (k == 0) {
			memcpy(out + len, "\xEF\xBF\xBD", 3);
			len += 3;
		} else {
			memcpy(out + len, p + i, k);
			len += k;
		}
	}
	if (n > 0)
		out[len] = '\0';
	return len;
}

cJSON *json_string(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t bad = 0, len = 0, k;
	char *fixed;
	cJSON *s;

	for (; p[len] != '\0'; len += k ? k : 1)
		if ((k = json_utf8_len(p + len)) == 0)
			bad++;
	if (bad == 0)
		return cJSON_CreateString(text);
	if ((fixed = malloc(len + 2 * bad + 1)) == NULL)
		return NULL;
	json_utf8_clean(text, fixed, len + 2 * bad + 1);
	s = cJSON_CreateString(fixed);
	free(fixed);
	return s;
}
