/* All-or-nothing output files: write to a temporary sibling, rename on success. */
#define _POSIX_C_SOURCE 200809L
#include "ppsim/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct outfile {
	FILE *fp;   /* the temporary file */
	char *path; /* the target */
	char *tmp;  /* the temporary file's name */
};

struct outfile *outfile_open(const char *path, struct pp_error *err)
{
	struct outfile *f;
	size_t n = strlen(path);
	int fd;

	if (n == 0) {
		pp_fail(err, PP_ERR_IO, "cannot write '': empty file name");
		return NULL;
	}
	f = pp_xcalloc(1, sizeof(*f));
	f->path = pp_xstrdup(path);
	f->tmp = pp_xmalloc(n + sizeof(".tmpXXXXXX"));
	memcpy(f->tmp, path, n);
	memcpy(f->tmp + n, ".tmpXXXXXX", sizeof(".tmpXXXXXX"));
	fd = mkstemp(f->tmp);
	if (fd < 0) {
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
		free(f->tmp);
		f->tmp = NULL;
		outfile_abort(f);
		return NULL;
	}
	/* mkstemp creates the file 0600; give it the usual permissions of a new file. */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	f->fp = fdopen(fd, "w");
	if (f->fp == NULL) {
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		outfile_abort(f);
		return NULL;
	}
	return f;
}

FILE *outfile_stream(struct outfile *f)
{
	return f->fp;
}

int outfile_commit(struct outfile *f, struct pp_error *err)
{
	int failed, closed, saved;

	errno = 0;
	failed = fflush(f->fp) != 0 || ferror(f->fp);
	saved = errno;
	closed = fclose(f->fp);
	f->fp = NULL;
	if (failed || closed != 0) {
		if (saved == 0)
			saved = errno;
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path,
		        saved != 0 ? strerror(saved) : "write error");
		outfile_abort(f);
		return -1;
	}
	if (rename(f->tmp, f->path) != 0) {
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path, strerror(errno));
		outfile_abort(f);
		return -1;
	}
	free(f->tmp);
	f->tmp = NULL;
	outfile_abort(f);
	return 0;
}

void outfile_abort(struct outfile *f)
{
	if (f == NULL)
		return;
	if (f->fp != NULL)
		fclose(f->fp);
	if (f->tmp != NULL)
		remove(f->tmp);
	free(f->tmp);
	free(f->path);
	free(f);
}
