/*
 * A stream that writes into a growing heap buffer, as open_memstream does, but that remembers a
 * failed allocation: glibc's memory stream drops the bytes it cannot store without setting the
 * stream's error, so a report written to it could come back short and look whole. Private to
 * the library; the caller owns the struct while the stream is open.
 */
#ifndef PPSIM_MEMFILE_H
#define PPSIM_MEMFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct memfile {
	FILE *f;     /* the stream to write to, NULL when it could not be opened */
	char *text;  /* what was written, NUL-terminated */
	size_t len;  /* its length */
	size_t cap;  /* bytes allocated at text */
	bool failed; /* an allocation failed: some bytes were not stored */
};

/* Opens m's stream (m stays where it is until memfile_close); returns m->f, or NULL out of
 * memory. */
FILE *memfile_open(struct memfile *m);

/*
 * Closes m's stream. Returns what was written (the caller frees it), its length in *len when
 * len is not NULL, or NULL, nothing to free, when any byte could not be stored or the stream
 * could not be flushed or closed.
 */
char *memfile_close(struct memfile *m, size_t *len);

#endif
