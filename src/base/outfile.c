/* Output files: write to a temporary sibling and rename on success; devices are written in place. */
#define _XOPEN_SOURCE 700
#include "ppsim/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct outfile {
	FILE *fp;     /* the temporary file, or the target itself when it is not a regular file */
	char *path;   /* the target as named, for messages */
	char *target; /* what is renamed onto: path with symbolic links resolved */
	char *tmp;    /* the temporary file's name; NULL when writing in place */
};

/*
 * Opens a target that exists and is not a regular file (a terminal, /dev/null, a pipe) in place:
 * renaming a file onto it would replace the device rather than write to it.
 */
static struct outfile *open_in_place(struct outfile *f, struct pp_error *err)
{
	f->fp = fopen(f->path, "w");
	if (f->fp == NULL) {
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path, strerror(errno));
		outfile_abort(f);
		return NULL;
	}
	return f;
}

struct outfile *outfile_open(const char *path, struct pp_error *err)
{
	struct outfile *f;
	struct stat st;
	size_t n;
	int fd;

	if (path[0] == '\0') {
		pp_fail(err, PP_ERR_IO, "cannot write '': empty file name");
		return NULL;
	}
	f = pp_xcalloc(1, sizeof(*f));
	f->path = pp_xstrdup(path);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(EISDIR));
			outfile_abort(f);
			return NULL;
		}
		if (!S_ISREG(st.st_mode))
			return open_in_place(f, err);
		/* A symbolic link to a file: replace the file, keep the link. */
		f->target = realpath(path, NULL);
	}
	if (f->target == NULL)
		f->target = pp_xstrdup(path);
	n = strlen(f->target);
	f->tmp = pp_xmalloc(n + sizeof(".tmpXXXXXX"));
	memcpy(f->tmp, f->target, n);
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

int outfile_finish(struct outfile *f, struct pp_error *err)
{
	int failed, closed, saved;

	if (f->fp == NULL)
		return 0;
	errno = 0;
	failed = fflush(f->fp) != 0 || ferror(f->fp);
	saved = errno;
	closed = fclose(f->fp);
	f->fp = NULL;
	if (failed || closed != 0) {
		if (saved == 0)
			saved = errno;
		return pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path,
		               saved != 0 ? strerror(saved) : "write error");
	}
	return 0;
}

int outfile_commit(struct outfile *f, struct pp_error *err)
{
	if (outfile_finish(f, err) != 0) {
		outfile_abort(f);
		return -1;
	}
	if (f->tmp == NULL) { /* written in place */
		outfile_abort(f);
		return 0;
	}
	if (rename(f->tmp, f->target) != 0) {
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
	free(f->target);
	free(f->path);
	free(f);
}
