/*
 * Output files written all-or-nothing: data goes to a temporary file, which replaces the target
 * only when everything was written, so a failed run never leaves a truncated file behind and
 * never changes the file it would have replaced. A symbolic link writes the file it names (a
 * dangling one creates it; a loop is an error), as a shell's > does; a replaced file keeps its
 * permissions, and a read-only one is refused. A file with other hard links, a file
 * bind-mounted over another (which no rename may replace), a file deleted while open
 * (/proc/self/fd/N) or a file in a directory that takes no new file keeps its inode: it is
 * rewritten in place from the finished temporary file, its space reserved and the part past its
 * old end written first, so that a full disk leaves it as it was. A target that exists and is
 * not a regular file (a terminal, /dev/null, a pipe), or is the file standard output or
 * standard error writes to, is written through, since renaming onto it would replace the device
 * or what the report wrote; a regular file written through at its end is cut back to where it
 * stood when the output is aborted.
 *
 * Ownership: outfile_open and outfile_open_fd return a handle owned by the caller, released by
 * exactly one of outfile_commit, outfile_commit_all or outfile_abort.
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
 * Opens a temporary file for path: in the directory of the file its links lead to, or in TMPDIR
 * when that directory takes no new file and the file exists (or path itself when it is not a
 * regular file). Returns the handle, or NULL with a PP_ERR_IO error naming path and the
 * reason (the directory when it is what refused, and TMPDIR when it refused too), or a
 * PP_ERR_NOMEM error naming path when memory runs out (no file is left behind).
 */
struct outfile *outfile_open(const char *path, struct pp_error *err);

/*
 * An output written through descriptor fd (a duplicate of it, so fd stays the caller's), named
 * name in messages: standard output, counted against the size limit like a file, and, when it
 * is a regular file written at its end, cut back on abort to the size it had here. A closed fd
 * gives a stream whose writes fail (EBADF). Returns the handle, or NULL with err set.
 */
struct outfile *outfile_open_fd(int fd, const char *name, struct pp_error *err);

/*
 * Checks what outfile_open would refuse of path, without opening anything: an empty name, a
 * directory, a read-only file. Returns 0 (with *regular, unless NULL, true when path is or
 * would be a regular file that the output replaces), or -1 with a PP_ERR_IO error naming path.
 */
int outfile_check(const char *path, bool *regular, struct pp_error *err);

/*
 * The name path leads to once its symbolic links are followed, as open(2) and outfile_open
 * follow them, into *out (allocated, the caller's): the last link's target even when that does
 * not exist yet (a dangling link's), relative to the directory of the link that names it.
 * Returns 0, or -1 with errno (ELOOP past 40 links, ENOMEM, or what lstat or readlink said).
 */
int outfile_follow_links(const char *path, char **out);

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
 * shows before any target is replaced. Returns 0, or -1 with a PP_ERR_IO error naming the path
 * (and the directory of its temporary file when that is in TMPDIR, whose disk may be the full
 * one) and errno the system's reason; either way f stays the caller's, to commit or abort. A
 * second call does nothing.
 */
int outfile_finish(struct outfile *f, struct pp_error *err);

/*
 * Finishes f (outfile_finish) when it is not yet, puts the finished file in place of the target
 * (a rename, or the in-place rewrite) and frees f. Returns 0, or -1 with a PP_ERR_IO error
 * naming the path (the temporary file is removed, the target as it was).
 */
int outfile_commit(struct outfile *f, struct pp_error *err);

/*
 * Commits the n outputs of files (NULL entries skipped) so that they stand or fall together as
 * far as the file system allows: all are finished, then every in-place rewrite takes the space
 * it needs (a full disk undoes those taken and aborts all, every target as it was), and only
 * then are the files put in place. Frees every handle. Returns 0, or -1 with err.
 */
int outfile_commit_all(struct outfile **files, int n, struct pp_error *err);

/*
 * For an output written through at the end of a regular file (standard output redirected to
 * one): notes that something else may have written to the file since f's last write (an error
 * message on standard error, 2>&1). When the file has grown past that write, an abort no
 * longer cuts it back: what the other wrote stays, and with it what came before.
 */
void outfile_note_other_writer(struct outfile *f);

/*
 * What outfile_abort does to a file f writes through at its end, and only that: cuts it back
 * to where it stood when f began, unless something else wrote to it after f. Async-signal-safe
 * (fstat and ftruncate): for a handler of a signal that ends the process, which may have
 * stopped f in the middle of a write.
 */
void outfile_cut_back(const struct outfile *f);

/* Closes and removes the temporary file (a file written through at its end is cut back to
 * where it stood) and frees f; NULL is a no-op. */
void outfile_abort(struct outfile *f);

#endif
