/*
 * Text input, private to the library: the one bounded line reader, the one CSV field splitter
 * and the strict number parsers every reader of files and option values uses. The caller owns
 * the strings it passes; the line reader owns its buffer until text_lines_release.
 */
#ifndef PPSIM_TEXT_H
#define PPSIM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ppsim/util.h"

/* What reads an open file: fills ctx from f (named path in messages); 0 or -1 with err set. */
typedef int text_read_fn(FILE *f, const char *path, void *ctx, struct pp_error *err);

/*
 * The error for a read of path that failed with errno errnum: PP_ERR_NOMEM "out of memory
 * reading 'PATH'" for ENOMEM, else PP_ERR_IO "cannot read 'PATH': REASON". Returns -1.
 */
int text_read_error(struct pp_error *err, const char *path, int errnum);

/*
 * Opens path, reads it with read and closes it. Returns read's status, or -1 with PP_ERR_USAGE
 * for an empty path ("cannot read '': the file name is empty"), or with PP_ERR_IO
 * "cannot read 'PATH': REASON" (err's line and column 0) when the file does not open, or
 * PP_ERR_NOMEM when that is for want of memory (ENOMEM).
 */
int text_read_file(const char *path, text_read_fn *read, void *ctx, struct pp_error *err);

/*
 * The fingerprint of the file at path: FNV-1a's 64 bits over its bytes, to tell whether a
 * file read twice (by shards, and by the merge of their records) holds the same bytes; not a
 * guard against a file made to collide. 0 with *fp, or -1 with err as text_read_file's.
 */
int text_file_fingerprint(const char *path, uint64_t *fp, struct pp_error *err);

/* Longest line the reader accepts, in bytes without its newline: 1 MiB. */
#define TEXT_LINE_MAX ((size_t)1 << 20)

/*
 * A line reader over a FILE *. what and path name the file in messages ("schedule 'a.csv'");
 * after text_lines_next returns 1, line holds the current line, NUL-terminated and without its
 * '\n' (a '\r' before it stays), len its length and lineno its 1-based number. newline says
 * whether the line ended with one: the last line of a file that does not end in a newline may
 * have been cut short (a copy or a write that stopped), which a reader of numbers refuses.
 */
struct text_lines {
	FILE *f;
	const char *what; /* the kind of file, for messages: "schedule", "requests" */
	const char *path; /* the file's name, for messages */
	char *line;       /* the current line (or piece of one); owned by the reader */
	size_t len;       /* strlen(line) */
	size_t lineno;    /* 1-based number of the current line, 0 before the first */
	size_t cap;       /* bytes allocated at line */
	bool newline;     /* the line ended with '\n' (false: with the end of the file) */
	size_t column;    /* 1-based column of line[0] in its line: 1 but for a later piece */
	bool more;        /* text_lines_next_piece: the line goes on after this piece */
	size_t rest, nrest; /* a cut line's bytes after its piece: nrest of them at line + rest */
};

/* Starts reading f; nothing is allocated yet. */
void text_lines_init(struct text_lines *r, FILE *f, const char *what, const char *path);

/*
 * Reads the next line. Returns 1 with a line, 0 at the end of the file, or -1 with err set:
 * PP_ERR_CONFIG "WHAT 'PATH':L:C: ..." (err->line, err->column set) for a NUL byte or a line
 * longer than TEXT_LINE_MAX, PP_ERR_IO "cannot read 'PATH': ..." for a read error, or
 * PP_ERR_NOMEM.
 */
int text_lines_next(struct text_lines *r, struct pp_error *err);

/*
 * text_lines_next for CSV lines of any length (a PyTorch schedule holds each rank's actions on
 * one line, as long as its ops make it): a line longer than TEXT_LINE_MAX comes in pieces of
 * whole fields, each cut at a comma (outside quotes, as text_csv_next reads them) that stays
 * out of both pieces, with more set on every piece but the last and column the place where
 * each starts; lineno stays the line's. The reader then holds at most TEXT_LINE_MAX bytes
 * whatever the line's length, and only a field longer than that is refused ("a field longer
 * than the limit of ... bytes").
 */
int text_lines_next_piece(struct text_lines *r, struct pp_error *err);

/*
 * The error of a line longer than TEXT_LINE_MAX ("WHAT 'PATH':L:C: a line longer than ..."),
 * for a reader of pieces that takes only short lines in some places. Returns -1.
 */
int text_lines_too_long(struct text_lines *r, struct pp_error *err);

/*
 * For a reader of numbers: fails err when the current line ended the file without a newline
 * ("WHAT 'PATH':L:C: the file ends in this line, without a newline: its last number may be
 * cut (end the file with a newline if it is whole)", C just after the line), since a copy or
 * a write that stopped may have cut it into another valid line. Returns 0, or -1.
 */
int text_lines_check_whole(struct text_lines *r, struct pp_error *err);

/*
 * For a CSV reader, before it splits the current line (or piece) into fields: fails err when
 * a field is quoted badly, as no spreadsheet writes it: an opening quote without its closing
 * one on the line ("WHAT 'PATH':L:C: a quoted field without its closing quote ...") or text
 * after the closing quote ("... text after a quoted field's closing quote ..."), C the
 * column of the quote or of the text. Returns 0, or -1.
 */
int text_lines_check_csv(struct text_lines *r, struct pp_error *err);

/* Frees the reader's buffer; the FILE stays open. */
void text_lines_release(struct text_lines *r);

/*
 * CSV fields. A field runs to the next comma; blanks (space, tab) around it are trimmed, and
 * with trim_cr also '\r' and '\n' at its end. A field that starts with a double quote is
 * quoted (RFC 4180, as spreadsheets write it): it runs to its closing quote, a comma inside
 * is its own, and "" stands for one quote; a field does not span lines. The line reader drops a
 * UTF-8 byte order mark at the start of the file.
 *
 * text_csv_next cuts the field at *p off in place (its comma becomes a NUL), returns it and
 * moves *p to the next field, or to NULL after the last one.
 */
char *text_csv_next(char **p, bool trim_cr);

/*
 * Splits line in place into its fields; stores the first max of them in fields[] with their
 * 0-based offsets in line in offs[]; returns how many fields the line has (which may be more
 * than max).
 */
size_t text_csv_split(char *line, bool trim_cr, char **fields, size_t *offs, size_t max);

/*
 * Strict numbers: the whole string is the number, in decimal, with no blanks, no hexadecimal
 * and no "inf" or "nan". Each returns TEXT_OK and stores the value, TEXT_SYNTAX when s is not a
 * number of its kind (nothing stored), or TEXT_RANGE when it is one out of range.
 */
enum text_status { TEXT_OK = 0, TEXT_SYNTAX = -1, TEXT_RANGE = -2 };

/*
 * Cuts s in place at each sep (which becomes a NUL) and stores the first max fields in
 * fields[0..max-1] (the rest NULL); returns how many fields s has, which may exceed max.
 * Unlike a CSV field, a field keeps its blanks.
 */
size_t text_split(char *s, char sep, char **fields, size_t max);

/* Digits at *p (at least one) as an unsigned integer; moves *p past them. TEXT_RANGE above
 * UINT64_MAX (*p still moves). */
int text_scan_uint(const char **p, uint64_t *out);

/* An unsigned integer, digits only (no sign), from lo to hi. */
int text_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* An integer, digits after an optional '-' (no '+'), from lo to hi. */
int text_parse_int(const char *s, long long lo, long long hi, long long *out);

/*
 * A finite decimal number: an optional sign, digits with an optional '.' (a digit on either
 * side), an optional exponent (e or E, an optional sign, digits). TEXT_RANGE when the value
 * overflows or underflows (strtod's ERANGE); *out then holds strtod's result (+-HUGE_VAL, 0 or
 * a subnormal), which a caller may accept.
 */
int text_parse_double(const char *s, double *out);

/*
 * What a terminal would act on, made visible: the bytes of the character at s that are shown
 * as they are (printable ASCII, or a whole UTF-8 character outside the C1 controls), or 0 for
 * a byte to be written \xNN (a control byte, as an escape sequence in a file name or an option
 * value holds, or a byte that is not UTF-8). text_put_visible writes text to out so;
 * text_visible writes it into buf of size bytes (when it does not fit, cut short at a whole
 * character or \xNN and marked "..."; NUL-terminated) and returns buf.
 */
size_t text_visible_len(const char *s);
void text_put_visible(FILE *out, const char *text);
char *text_visible(char *buf, size_t size, const char *text);

/*
 * The n names as a refusal lists them, into buf of size bytes: 'a', 'b' or 'c' (cut short when
 * it does not fit). Returns buf.
 */
char *text_choices(const char *const *names, size_t n, char *buf, size_t size);

/*
 * Suggestions for a misspelt name ("did you mean"): the candidate nearest to a word by edit
 * distance (insertions, deletions, substitutions and swaps of neighbours, ignoring case), if it
 * is near enough to be a slip: at most 1 edit for words up to 4 characters, 2 up to 8, else 3.
 * A name that the word begins is the suggestion when it is the only one; else the first of the
 * nearest, unless the word begins several names and not that one: then the nearest of those
 * (h100 of h100-sxm and h100-pcie, rather than h200); a name differing only in case is one, for
 * names matched exactly. Words under 3 characters, and a word that is one of the names, get no
 * suggestion.
 */
struct text_suggest {
	const char *word;  /* what the user wrote */
	size_t wlen;       /* its length */
	char best[64];     /* the nearest candidate by edits so far */
	size_t dist;       /* its distance (SIZE_MAX: none near enough) */
	char prefix[64];   /* the first candidate the word begins */
	int prefixes;      /* how many different candidates it begins */
	char pbest[64];    /* the nearest by edits of the candidates it begins */
	size_t pdist;      /* its distance (SIZE_MAX: none) */
	bool exact;        /* a candidate is the word itself */
};
#define TEXT_SUGGEST_MAX 63

/* Starts a suggestion for the first len bytes of word. */
void text_suggest_init(struct text_suggest *s, const char *word, size_t len);
/* Weighs the candidate name[0..len-1]. */
void text_suggest_try(struct text_suggest *s, const char *name, size_t len);
/* Weighs each item of list, items separated by sep (", "). */
void text_suggest_list(struct text_suggest *s, const char *list, const char *sep);
/* The nearest candidate, or NULL when none is near enough. */
const char *text_suggest_best(const struct text_suggest *s);
/* "; did you mean 'NAME'?" (prefix before NAME: "--" for an option) into buf, or "" when no
 * candidate is near enough; returns buf. */
const char *text_suggest_hint(const struct text_suggest *s, const char *prefix, char *buf,
                              size_t n);
/* text_suggest_hint for word against the items of list. */
const char *text_suggest_in(const char *word, const char *list, const char *sep, char *buf,
                            size_t n);

#endif
