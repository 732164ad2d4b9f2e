/*
 * The inside of struct outfile, shared by the two files of the output module: outfile.c opens
 * and writes outputs, outfile_commit.c puts finished ones in place. Nothing else includes it.
 */
#ifndef PPSIM_BASE_OUTFILE_IMPL_H
#define PPSIM_BASE_OUTFILE_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <zlib.h>

/* How an output reaches its target. */
enum out_mode {
	OUT_RENAME,  /* a temporary file beside the target, renamed onto it */
	OUT_REWRITE, /* a temporary file copied into the target, which keeps its inode */
	OUT_THROUGH  /* the target itself, written as the data comes */
};

struct outfile {
	FILE *fp;            /* the stream, NULL once finished */
	char *path;          /* the target as named, for messages */
	char *target;        /* the file written: path with its symbolic links followed */
	char *tmp;           /* the temporary file's name; NULL when writing through */
	bool tmp_apart;      /* it is in TMPDIR, not beside the target: messages name it */
	enum out_mode mode;  /* how the target is reached */
	int fd;              /* what the stream writes to; -1 once closed */
	bool keep_fd;        /* a stream written through stays open to be cut back on abort */
	bool rewind;         /* written through at the end of a regular file: abort cuts it back */
	off_t start;         /* the size of that file when the output began */
	off_t end;           /* where this output's last write through ended in that file */
	size_t writing;      /* bytes of a write through under way past end (0: none) */
	off_t old_size;      /* a rewritten target's size before outfile_commit_all began on it */
	int target_fd;       /* the rewritten target while outfile_commit_all works on it */
	uint64_t written;    /* bytes written so far */
	uint64_t limit;      /* the most it may write: OUTFILE_MAX_BYTES unless set lower */
	bool too_big;        /* a write would have passed the limit */
	int write_errno;     /* why the first failed write to the descriptor failed, or 0 */
	z_stream *z;         /* the gzip deflater, NULL when the stream writes plain bytes */
	unsigned char *zout; /* its output buffer, of ZOUT_SIZE bytes */
	bool aborted;        /* being aborted: pending bytes are dropped, no gzip trailer */
	bool replaces;       /* its temporary file is to be renamed over a file that exists */
	uint64_t sent_back;  /* with replaces: the bytes whose writeback has been started */
	bool reserves;       /* its temporary file, a new name's, has its blocks reserved ahead */
	uint64_t reserved;   /* with reserves: the bytes reserved from the file's start */
	bool trim;           /* blocks were reserved: those past the end are given back */
	bool existed;        /* the target was a regular file when the output was opened */
	char *old;           /* while outfile_commit_all renames: a hard link to the target's
	                      * old contents, put back if another output fails; or NULL */
	bool renamed;        /* outfile_commit_all has renamed it onto its target */
};

#endif
