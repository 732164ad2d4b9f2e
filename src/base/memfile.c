/* The memory stream that remembers a failed allocation (memfile.h), on fopencookie. */
#define _GNU_SOURCE
#include "base/memfile.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Stores n bytes of buf, growing the buffer by doubling; a byte it cannot store marks m failed
 * and the write short, which sets the stream's error. */
static ssize_t memfile_write(void *cookie, const char *buf, size_t n)
{
	struct memfile *m = cookie;

	if (m->failed)
		return 0;
	if (n >= m->cap - m->len) {
		size_t cap = m->cap > 0 ? m->cap : 256;
		char *grown;

		while (n >= cap - m->len) {
			if (cap > ((size_t)-1) / 2) {
				m->failed = true;
				return 0;
			}
			cap *= 2;
		}
		if ((grown = realloc(m->text, cap)) == NULL) {
			m->failed = true;
			return 0;
		}
		m->text = grown;
		m->cap = cap;
	}
	memcpy(m->text + m->len, buf, n);
	m->len += n;
	m->text[m->len] = '\0';
	return (ssize_t)n;
}

FILE *memfile_open(struct memfile *m)
{
	cookie_io_functions_t io = {.write = memfile_write};

	*m = (struct memfile){0};
	m->f = fopencookie(m, "w", io);
	return m->f;
}

char *memfile_close(struct memfile *m, size_t *len)
{
	bool ok = m->f != NULL && fflush(m->f) == 0 && !ferror(m->f);

	if (m->f != NULL && fclose(m->f) != 0)
		ok = false;
	m->f = NULL;
	/* nothing written is an empty text */
	if (ok && !m->failed && m->text == NULL && (m->text = calloc(1, 1)) == NULL)
		ok = false;
	if (!ok || m->failed) {
		free(m->text);
		*m = (struct memfile){0};
		return NULL;
	}
	if (len != NULL)
		*len = m->len;
	return m->text;
}
