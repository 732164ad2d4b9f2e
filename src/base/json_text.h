/* What the readers of JSON input (config files, request traces) share; private to the library. */
#ifndef PPSIM_JSON_TEXT_H
#define PPSIM_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Offset in text of the syntax error cJSON reported at end (cJSON_GetErrorPtr). cJSON reports
 * one character too far when an object key was due and something else stood there ('{' or ','
 * then not '"'): it steps past the opening quote it expected before failing. That character is
 * the error.
 */
size_t json_error_offset(const char *text, const char *end);

/*
 * Why text[0..len-1] (a whole file, or one line: `unit` names it) is not JSON, given the error
 * offset off: empty, ending too soon, nested deeper than cJSON's limit, a NaN or an Infinity,
 * or just invalid. Writes the reason into buf of size n and returns it.
 */
const char *json_syntax_reason(const char *text, size_t len, size_t off, const char *unit,
                               char *buf, size_t n);

/*
 * Index after the JSON string that starts at text[i] == '"': after its closing quote, or at the
 * NUL ending text when it has none. A backslash escapes the character after it.
 */
size_t json_skip_string(const char *text, size_t i);

/*
 * Whether cJSON_ParseWithLengthOpts(text, len + 1, &end, true) (text NUL-terminated at len)
 * succeeds given the memory it needs: its grammar, leniencies included (any byte up to a blank
 * is a blank, a number is whatever strtod takes of its characters, a raw control character may
 * stand in a string, a leading UTF-8 byte order mark), with its nesting limit. cJSON returns NULL
 * alike for bad text and for a failed allocation; a reader that gets NULL for well-formed text
 * knows it ran out of memory.
 */
bool json_well_formed(const char *text, size_t len);

/*
 * The length of the well-formed UTF-8 character at p (1 to 4 bytes: no overlong form, no
 * surrogate, nothing past U+10FFFF), or 0 when p starts none. JSON text is Unicode: a byte
 * that starts no character (a file name's Latin-1 byte) is written as U+FFFD instead.
 */
size_t json_utf8_len(const unsigned char *p);

/* text into out (n bytes, NUL included) with every byte that starts no UTF-8 character as
 * U+FFFD's three bytes, cut at a character's boundary when it does not fit; its length. */
size_t json_utf8_clean(const char *text, char *out, size_t n);

/* A cJSON string of text with every byte that starts no UTF-8 character replaced by U+FFFD;
 * NULL out of memory. */
cJSON *json_string(const char *text);

/*
 * What strict JSON (RFC 8259) refuses of text[0..len-1] that cJSON accepts, checked on text
 * cJSON parsed: a control byte standing as a blank (JSON's blanks are space, tab, newline and
 * carriage return), a raw control byte in a string, the escape \u0000 (a string holding a NUL,
 * which C strings would cut short), or a number outside JSON's grammar (a leading '+' or zero,
 * a bare '.', an empty exponent). Returns the offset of the first such byte, writing why into
 * buf of size n; or len when there is none.
 */
size_t json_strict_check(const char *text, size_t len, char *buf, size_t n);

/* A place in JSON text, for messages: its 1-based line and column. */
struct json_pos {
	size_t line, column;
};

/* Moves at, the place of text[from], on to the place of text[to] (from <= to, both within the
 * text): a newline starts the next line. Walking a text once, place after place, costs its
 * length once. */
void json_advance(const char *text, size_t from, size_t to, struct json_pos *at);

/*
 * For text[0..len-1] that json_well_formed accepts, walked a value at a time (a reader that
 * parses a large document's items one by one, not as one tree): the offset of the first byte
 * at or after at that is not a blank as cJSON takes blanks (any byte up to a space), or len;
 * and the offset just after the value that starts at text[at].
 */
size_t json_blanks_end(const char *text, size_t len, size_t at);
size_t json_value_end(const char *text, size_t len, size_t at);

/* What a value is, for messages: "a string", "a number", "a boolean", "an array", ... */
const char *json_type_name(const cJSON *v);

#endif
