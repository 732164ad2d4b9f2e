/*
 * Output files written all-or-nothing. outfile_open creates a temporary sibling of the target
 * (mkstemp beside it, so the final rename stays on one file system and is atomic);
 * outfile_commit flushes, closes and renames it onto the target, and outfile_abort removes it.
 * A target that exists and is not a regular file (a device, a pipe) is opened in place instead.
 * Running out of memory (the handle, its names, the stdio stream) is a PP_ERR_NOMEM error like
 * any other, and leaves no file behind.
 */
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
 * The error for a failed open of path with errno e: fopen and fdopen fail with ENOMEM when they
 * cannot allocate the stream, which is running out of memory, not a file that cannot be written.
 */
static int open_error(const char *path, int e, struct pp_error *err)
{
	if (e == ENOMEM)
		return pp_fail(err, PP_ERR_NOMEM, "out of memory opening '%s'", path);
	return pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(e));
}

/* Fails the opening of path for want of memory: frees f (NULL or partly filled), returns NULL. */
static struct outfile *out_of_memory(struct outfile *f, const char *path, struct pp_error *err)
{
	open_error(path, ENOMEM, err);
	outfile_abort(f);
	return NULL;
}

/*
 * Opens a target that exists and is not a regular file (a terminal, /dev/null, a pipe) in place:
 * renaming a file onto it would replace the device rather than write to it.
 */
static struct outfile *open_in_place(struct outfile *f, struct pp_error *err)
{
	f->fp = fopen(f->path, "w");
	if (f->fp == NULL) {
		open_error(f->path, errno, err);
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
	f = pp_calloc(1, sizeof(*f));
	if (f == NULL || (f->path = pp_strdup(path)) == NULL)
		return out_of_memory(f, path, err);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(EISDIR));
			outfile_abort(f);
			return NULL;
		}
		if (!S_ISREG(st.st_mode))
			return open_in_place(f, err);
		/* A symbolic link to a file: replace the file, keep the link. */
		errno = 0;
		f->target = realpath(path, NULL);
		/* any other failure (a directory on the way turned unreadable) keeps the name */
		if (f->target == NULL && errno == ENOMEM)
			return out_of_memory(f, path, err);
	}
	if (f->target == NULL && (f->target = pp_strdup(path)) == NULL)
		return out_of_memory(f, path, err);
	n = strlen(f->target);
	f->tmp = pp_malloc(n + sizeof(".tmpXXXXXX"));
	if (f->tmp == NULL)
		return out_of_memory(f, path, err);
	memcpy(f->tmp, f->target, n);
	memcpy(f->tmp + n, ".tmpXXXXXX", sizeof(".tmpXXXXXX"));
	fd = mkstemp(f->tmp);
	if (fd < 0) {
		open_error(path, errno, err);
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
		open_error(path, errno, err);
		close(fd);
		outfile_abort(f); /* removes the temporary file */
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
