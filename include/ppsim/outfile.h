/*
 * Output files written all-or-nothing: data goes to a temporary file beside the target, which
 * replaces the target only when everything was written, so a failed run never leaves a
 * truncated file behind. A symbolic link keeps pointing at the file it named, a replaced file
 * keeps its permissions, and a read-only file is refused. A target that exists and is not a
 * regular file (a terminal, /dev/null, a pipe), or is the file standard output or standard
 * error writes to, is written through, since renaming onto it would replace the device or what
 * the report wrote; such writes are not all-or-nothing, nor is the rewrite of a file with other
 * hard links, which is copied into from the finished temporary file so every link sees it.
 *
 * Ownership: outfile_open returns a handle owned by the caller, released by exactly one of
 * outfile_commit or outfile_abort.
 */
#ifndef PPSIM_OUTFILE_H
#define PPSIM_OUTFILE_H

#include <stdint.h>
#include <stdio.h>

#include "ppsim/util.h"

struct outfile;

/* The most an output file may hold: a write past it fails (outfile_finish then says so with a
 * PP_ERR_IO error), and the file is not left. */
#define OUTFILE_MAX_BYTES (UINT64_C(1) << 30)

/*
 * Opens a temporary file in the directory of path (or path itself when it is not a regular
 * file). Returns the handle, or NULL with a PP_ERR_IO error naming path and the reason, or a
 * PP_ERR_NOMEM error naming path when memory runs out (no file is left behind).
 */
struct outfile *outfile_open(const char *path, struct pp_error *err);

/*
 * Checks what outfile_open would refuse of path, without opening anything: an empty name, a
 * directory, a read-only file. Returns 0 (with *regular, unless NULL, true when path is or
 * would be a regular file that the output replaces), or -1 with a PP_ERR_IO error naming path.
 */
int outfile_check(const char *path, bool *regular, struct pp_error *err);

/* The stream to write to. */
FILE *outfile_stream(struct outfile *f);

/*
 * Makes f's stream compress what it is given into one gzip member (zlib, level 1, no file name
 * or time in the header, so that the same input gives the same bytes), still as a stream;
 * call before anything is written. The size limit counts the compressed bytes. Returns 0, or
 * -1 with a PP_ERR_NOMEM error naming the path when zlib cannot have its memory (f then
 * writes plain bytes, to be aborted).
 */
int outfile_gzip(struct outfile *f, struct pp_error *err);

/* Lowers the most f may hold below OUTFILE_MAX_BYTES (for a caller with a tighter budget). */
void outfile_limit(struct outfile *f, uint64_t bytes);

/* The temporary file's name, which lives until f is committed or aborted; NULL when f writes
 * through. For a caller that must remove it when a signal stops the process. */
const char *outfile_temp(const struct outfile *f);

/*
 * Flushes and closes the stream, so that every write error (a full disk, a file-size limit)
 * shows before any target is replaced. Returns 0, or -1 with a PP_ERR_IO error naming the path;
 * either way f stays the caller's, to commit or abort. A second call does nothing.
 */
int outfile_finish(struct outfile *f, struct pp_error *err);

/*
 * Finishes f (outfile_finish) when it is not yet, renames the temporary file onto the target
 * and frees f. Returns 0, or -1 with a PP_ERR_IO error naming the path (the temporary file is
 * removed).
 */
int outfile_commit(struct outfile *f, struct pp_error *err);

/* Closes and removes the temporary file and frees f; NULL is a no-op. */
void outfile_abort(struct outfile *f);

#endif
