/*
 * Shard files: the records one shard of a job array evaluated (a contiguous run of a grid's
 * points), with what made them, so that the shards of one run can be checked and joined into
 * the report the whole run would have written. A shard file is text, one entry a line, each a
 * word and then fields, all separated by tabs; a field's backslash, tab, newline and carriage
 * return are written \\, \t, \n and \r:
 *
 *   ppsim-shard  1                 the format, then its version (SHARD_FORMAT)
 *   kind         sweep             what the records are: the kind of a struct shard_codec
 *   version      0.1.0             the ppsim that wrote it
 *   shard        2  4              shard K of N
 *   points       420  840  1680    its records' indices, [first, last) of total
 *   run          NAME  VALUE       what made the run, in order (a long VALUE goes on in
 *   +            VALUE             continuation lines); the library keeps it, never reads it
 *   columns      index  ok  ...    the names of the records' fields
 *   420  1  ...                    one record a line, indices first .. last - 1 in order
 *   end          420               the number of records: a file cut short has none
 *
 * Two shards are of one run when all but their shard and points lines are the same.
 *
 * Ownership: a struct shard_head from shard_open belongs to its reader and lives until
 * shard_close; the writers take what they write from the caller, who keeps it.
 */
#ifndef PPSIM_SHARD_H
#define PPSIM_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ppsim/util.h"

/* The version of the file format that the first line names. */
#define SHARD_FORMAT 1

/* How a record's field is written: an unsigned or signed integer, a yes/no (0 or 1), a double
 * (exactly, NaN and infinities by name), a NUL-terminated string in a char array, or an array
 * of ints written as a comma-separated list without its trailing zeros. */
enum shard_type { SHARD_U64, SHARD_INT, SHARD_BOOL, SHARD_DOUBLE, SHARD_TEXT, SHARD_INTS };

/* Most ints a SHARD_INTS field may hold. */
#define SHARD_MAX_INTS 64

/* One field of a kind of record: its column name, how it is written and where it is. */
struct shard_field {
	const char *name;
	enum shard_type type;
	size_t offset; /* in the record */
	size_t count;  /* SHARD_TEXT: the char array's size; SHARD_INTS: the ints (at most
	                * SHARD_MAX_INTS) */
};

/* A kind of record a shard file holds: every field of the struct, so that a record read back
 * equals the record written byte for byte (its padding apart). */
struct shard_codec {
	const char *kind;                 /* the word of the kind line: "sweep" */
	size_t size;                      /* bytes of one record */
	const struct shard_field *fields; /* fields[0] is the record's index, a SHARD_U64 */
	size_t nfields;
	/* what no run writes in a record read, in why (of n bytes), as "column 'x' ...": false
	 * when so (an edited file); NULL: every value read is taken */
	bool (*check)(const void *rec, char *why, size_t n);
};

/* A codec's check of one figure, column name: false, with why (of n bytes) as "column 'x': v
 * is below 0" (or above hi, or not finite), when value is below 0, above hi or, with finite,
 * not a finite number; NAN passes without finite (a figure a record does not have). */
bool shard_check_figure(const char *name, double value, double hi, bool finite, char *why,
                        size_t n);

/* One entry of what made a run: a name and a value, any text without NUL bytes. */
struct shard_entry {
	char *name;
	char *value;
};

/* What a shard file says before its records. */
struct shard_head {
	char kind[32];           /* its codec's kind */
	char version[32];        /* the ppsim that wrote it */
	uint64_t k, n;           /* shard k of n, 1 <= k <= n */
	uint64_t first, last;    /* its records' indices: [first, last) */
	uint64_t total;          /* the run's points, last <= total */
	struct shard_entry *run; /* what made the run, in order */
	size_t nrun;
	char *columns; /* the columns line's fields, as written (reading only) */
};

/*
 * Writes the lines before the records: the head h (its kind and columns from codec, version
 * PP_VERSION). Returns 0 (a write error stays on out).
 */
int shard_write_head(FILE *out, const struct shard_codec *codec, const struct shard_head *h);
/* Writes the record at rec, a struct of codec's kind, as one line. */
void shard_write_record(FILE *out, const struct shard_codec *codec, const void *rec);
/* The kind of a run's noise samples: struct sample_record (samples.h). */
extern const struct shard_codec samples_shard_codec;

/* Writes the last line, after count records. */
void shard_write_end(FILE *out, uint64_t count);

/* An open shard file being read (opaque). */
struct shard_reader;

/*
 * Opens the shard file at path and reads its head. Returns the reader, or NULL with err:
 * PP_ERR_IO when the file does not open or read, PP_ERR_NOMEM, or PP_ERR_CONFIG "shard
 * 'PATH':LINE: ..." when it is empty, is not a shard file, or its head is malformed.
 */
struct shard_reader *shard_open(const char *path, struct pp_error *err);
/* shard_open of the open stream f, named path in messages; f stays the caller's to close, after
 * shard_close. */
struct shard_reader *shard_open_stream(FILE *f, const char *path, struct pp_error *err);
/* The head of r's file. */
const struct shard_head *shard_reader_head(const struct shard_reader *r);
/*
 * Reads the next record into rec, a struct of codec's kind (whose columns must be the file's).
 * Returns 1 with a record, 0 after the last one (the end line then checked: the count right and
 * nothing after it), or -1 with a PP_ERR_CONFIG error naming the line when a record is
 * malformed, out of order or missing, or PP_ERR_IO / PP_ERR_NOMEM.
 */
int shard_next(struct shard_reader *r, const struct shard_codec *codec, void *rec,
               struct pp_error *err);
/* Closes the file shard_open opened and frees r (NULL: nothing). */
void shard_close(struct shard_reader *r);

/*
 * True when a and b are heads of shards of one run: the same kind, version, columns, run
 * entries, number of shards and points. When they are not, writes the first difference into
 * why (size n), as "setting 4 (arg): '4:64:x2' against '4:32:x2'" or "one of 4 shards
 * against one of 3".
 */
bool shard_same_run(const struct shard_head *a, const struct shard_head *b, char *why, size_t n);

#endif
