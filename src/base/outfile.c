/*
 * Output files written all-or-nothing. outfile_open creates a temporary sibling of the target
 * (mkstemp beside it, so the final rename stays on one file system and is atomic);
 * outfile_commit flushes, closes and renames it onto the target, and outfile_abort removes it.
 * A target that exists and is not a regular file (a device, a pipe), or is the file standard
 * output or standard error already writes to (/dev/stdout redirected to a file), is written
 * through instead. A replaced file keeps its permissions; a read-only one is refused; one with
 * other hard links is rewritten in place from the finished temporary file, so that every name
 * of it sees the new contents. Running out of memory (the handle, its names, the stdio stream)
 * is a PP_ERR_NOMEM error like any other, and leaves no file behind. Every stream counts what
 * it writes and fails past OUTFILE_MAX_BYTES, so that no output grows without bound. A stream
 * asked to (outfile_gzip) deflates what it is given into one gzip member on its way to the
 * descriptor, so that compressing streams too: the limit counts the compressed bytes.
 */
#define _GNU_SOURCE /* fopencookie */
#include "ppsim/outfile.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

struct outfile {
	FILE *fp;     /* the temporary file, or the target itself when it is not a regular file */
	char *path;   /* the target as named, for messages */
	char *target; /* what is renamed onto: path with symbolic links resolved */
	char *tmp;    /* the temporary file's name; NULL when writing in place */
	bool linked;  /* the target has other hard links: copy the temporary file into it */
	int fd;       /* what the stream writes to */
	uint64_t written;    /* bytes written so far */
	uint64_t limit;      /* the most it may write: OUTFILE_MAX_BYTES unless set lower */
	bool too_big;        /* a write would have passed the limit */
	z_stream *z;         /* the gzip deflater, NULL when the stream writes plain bytes */
	unsigned char *zout; /* its output buffer, of ZOUT_SIZE bytes */
	bool aborted;        /* outfile_abort closes the stream: no gzip trailer */
};

/* The deflater's output buffer: one write of compressed bytes at a time. */
#define ZOUT_SIZE ((size_t)1 << 16)

/* The temporary file's name in the target's directory: short, whatever the target's length. */
#define TEMP_NAME ".ppsim-XXXXXX"

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
/* Writes all of the n bytes to the descriptor, within the size limit; 0, or -1 with errno. */
static int put(struct outfile *f, const void *buf, size_t n)
{
	if (f->written > f->limit || n > f->limit - f->written) {
		f->too_big = true;
		errno = EFBIG;
		return -1;
	}
	for (size_t done = 0; done < n;) {
		ssize_t w = write(f->fd, (const char *)buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1; /* errno says why; what was written stays counted */
		done += (size_t)w;
		f->written += (uint64_t)w;
	}
	return 0;
}

/* Deflates the deflater's pending input with flush (Z_NO_FLUSH, or Z_FINISH for the end of
 * the member), writing each full output buffer; 0, or -1 with errno. */
static int deflate_out(struct outfile *f, int flush)
{
	z_stream *z = f->z;
	int rc;

	do {
		z->next_out = f->zout;
		z->avail_out = (uInt)ZOUT_SIZE;
		rc = deflate(z, flush);
		if (rc == Z_STREAM_ERROR) { /* a bug: a broken stream state */
			errno = EINVAL;
			return -1;
		}
		if (put(f, f->zout, ZOUT_SIZE - z->avail_out) != 0)
			return -1;
	} while (z->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
}

/* The stream's writes: the n bytes, deflated when f compresses, to the descriptor. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
	struct outfile *f = cookie;

	if (f->z == NULL)
		return put(f, buf, n) == 0 ? (ssize_t)n : -1;
	/* avail_in is an unsigned int: a larger write goes in pieces */
	for (size_t done = 0; done < n;) {
		size_t piece = n - done < (size_t)1 << 30 ? n - done : (size_t)1 << 30;

		f->z->next_in = (Bytef *)(uintptr_t)(buf + done);
		f->z->avail_in = (uInt)piece;
		if (deflate_out(f, Z_NO_FLUSH) != 0)
			return -1;
		done += piece;
	}
	return (ssize_t)n;
}

/* Frees f's deflater, if any. */
static void end_gzip(struct outfile *f)
{
	if (f->z != NULL)
		deflateEnd(f->z);
	free(f->z);
	free(f->zout);
	f->z = NULL;
	f->zout = NULL;
}

static int cookie_close(void *cookie)
{
	struct outfile *f = cookie;
	int rc = 0, e = 0;

	/* the end of the gzip member: what the deflater holds, and the trailer */
	if (f->z != NULL && !f->aborted) {
		f->z->avail_in = 0;
		if (deflate_out(f, Z_FINISH) != 0) {
			rc = -1;
			e = errno;
		}
	}
	end_gzip(f);
	if (close(f->fd) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	f->fd = -1;
	errno = e != 0 ? e : errno;
	return rc;
}

/* Gives f the stream over descriptor fd, which f then owns (closed on failure too). */
static struct outfile *take_stream(struct outfile *f, int fd, struct pp_error *err)
{
	static const cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};

	f->fd = fd;
	f->fp = fopencookie(f, "w", io);
	if (f->fp != NULL)
		setvbuf(f->fp, NULL, _IOFBF, (size_t)1 << 16); /* fewer, larger writes */
	if (f->fp == NULL) {
		open_error(f->path, errno, err);
		close(fd);
		f->fd = -1;
		outfile_abort(f); /* removes the temporary file */
		return NULL;
	}
	return f;
}

static struct outfile *open_in_place(struct outfile *f, struct pp_error *err)
{
	int fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0666);

	if (fd < 0) {
		open_error(f->path, errno, err);
		outfile_abort(f);
		return NULL;
	}
	return take_stream(f, fd, err);
}

/*
 * The descriptor of standard output or standard error when st is the file it writes to, else
 * -1: /dev/stdout or /proc/self/fd/1 naming a redirected file must add to it, not replace or
 * truncate what the report wrote there.
 */
static int standard_stream(const struct stat *st)
{
	for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
		struct stat s;

		if (fstat(fd, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
			return fd;
	}
	return -1;
}

/* Writes f through a duplicate of the standard stream fd, after what it holds already. */
static struct outfile *open_stream(struct outfile *f, int fd, struct pp_error *err)
{
	int d;

	fflush(fd == STDOUT_FILENO ? stdout : stderr);
	d = dup(fd);
	if (d < 0) {
		open_error(f->path, errno, err);
		outfile_abort(f);
		return NULL;
	}
	return take_stream(f, d, err);
}

/* The length of the directory part of path, its final '/' included (0: the current one). */
static size_t dir_length(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash == NULL ? 0 : (size_t)(slash - path) + 1;
}

/* What a target is, by what outfile_open does with it. */
enum target_kind {
	TARGET_FAIL = -1, /* it cannot be written: err is set */
	TARGET_NEW,       /* nothing there yet (or nothing that stat sees) */
	TARGET_FILE,      /* a writable regular file: replaced */
	TARGET_SPECIAL,   /* a device or a pipe: written in place */
	TARGET_STREAM     /* the file standard output or standard error writes to */
};

static enum target_kind classify(const char *path, struct stat *st, struct pp_error *err)
{
	if (path[0] == '\0') {
		pp_fail(err, PP_ERR_IO, "cannot write '': empty file name");
		return TARGET_FAIL;
	}
	if (stat(path, st) != 0)
		return TARGET_NEW;
	if (S_ISDIR(st->st_mode)) {
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(EISDIR));
		return TARGET_FAIL;
	}
	if (standard_stream(st) >= 0)
		return TARGET_STREAM;
	if (!S_ISREG(st->st_mode))
		return TARGET_SPECIAL;
	/* rename would replace a read-only file whose directory is writable: refuse it, as
	 * writing to it would be (its mode bits too, which root's access() ignores) */
	if ((st->st_mode & 0222) == 0 || access(path, W_OK) != 0) {
		pp_fail(err, PP_ERR_IO, "cannot write '%s': the file is read-only", path);
		return TARGET_FAIL;
	}
	return TARGET_FILE;
}

int outfile_check(const char *path, bool *regular, struct pp_error *err)
{
	struct stat st;
	enum target_kind k = classify(path, &st, err);

	if (regular != NULL)
		*regular = k == TARGET_FILE || k == TARGET_NEW;
	return k == TARGET_FAIL ? -1 : 0;
}

struct outfile *outfile_open(const char *path, struct pp_error *err)
{
	struct outfile *f;
	struct stat st;
	enum target_kind kind = classify(path, &st, err);
	size_t n;
	int fd;

	if (kind == TARGET_FAIL)
		return NULL;
	f = pp_calloc(1, sizeof(*f));
	if (f == NULL || (f->path = pp_strdup(path)) == NULL)
		return out_of_memory(f, path, err);
	f->fd = -1;
	f->limit = OUTFILE_MAX_BYTES;
	if (kind == TARGET_STREAM)
		return open_stream(f, standard_stream(&st), err);
	if (kind == TARGET_SPECIAL)
		return open_in_place(f, err);
	if (kind == TARGET_FILE) {
		f->linked = st.st_nlink > 1;
		/* A symbolic link to a file: replace the file, keep the link. */
		errno = 0;
		f->target = realpath(path, NULL);
		/* any other failure (a directory on the way turned unreadable) keeps the name */
		if (f->target == NULL && errno == ENOMEM)
			return out_of_memory(f, path, err);
	}
	if (f->target == NULL && (f->target = pp_strdup(path)) == NULL)
		return out_of_memory(f, path, err);
	n = dir_length(f->target);
	f->tmp = pp_malloc(n + sizeof(TEMP_NAME));
	if (f->tmp == NULL)
		return out_of_memory(f, path, err);
	memcpy(f->tmp, f->target, n);
	memcpy(f->tmp + n, TEMP_NAME, sizeof(TEMP_NAME));
	fd = mkstemp(f->tmp);
	if (fd < 0) {
		open_error(path, errno, err);
		free(f->tmp);
		f->tmp = NULL;
		outfile_abort(f);
		return NULL;
	}
	/* mkstemp creates the file 0600: give it the replaced file's permissions, or the usual
	 * ones of a new file */
	if (kind == TARGET_FILE) {
		fchmod(fd, st.st_mode & 07777);
	} else {
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	return take_stream(f, fd, err);
}

FILE *outfile_stream(struct outfile *f)
{
	return f->fp;
}

int outfile_gzip(struct outfile *f, struct pp_error *err)
{
	int rc = Z_MEM_ERROR;

	assert(f->z == NULL && f->written == 0 && f->fp != NULL);
	f->z = pp_calloc(1, sizeof(*f->z));
	f->zout = f->z != NULL ? pp_malloc(ZOUT_SIZE) : NULL;
	/* windowBits 15 + 16: a gzip header and trailer, modification time 0 (the same input
	 * gives the same bytes); level 1, zlib's fastest, as large outputs are what gets
	 * compressed (a trace shrinks tenfold at a third more time; level 6 takes three times
	 * as long for a file a third smaller) */
	if (f->zout != NULL)
		rc = deflateInit2(f->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	if (rc == Z_OK)
		return 0;
	free(f->z);
	free(f->zout);
	f->z = NULL;
	f->zout = NULL;
	if (rc == Z_MEM_ERROR)
		return pp_fail(err, PP_ERR_NOMEM, "out of memory compressing '%s'", f->path);
	return pp_fail(err, PP_ERR_IO, "cannot compress '%s': zlib %s (built against %s)", f->path,
	               zlibVersion(), ZLIB_VERSION);
}

void outfile_limit(struct outfile *f, uint64_t bytes)
{
	f->limit = bytes < OUTFILE_MAX_BYTES ? bytes : OUTFILE_MAX_BYTES;
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
	if (f->too_big)
		return pp_fail(err, PP_ERR_IO,
		               "cannot write '%s': larger than the limit of %" PRIu64
		               " bytes (%g GiB) for an output file",
		               f->path, f->limit, (double)f->limit / (double)(UINT64_C(1) << 30));
	if (failed || closed != 0) {
		if (saved == 0)
			saved = errno;
		return pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path,
		               saved != 0 ? strerror(saved) : "write error");
	}
	return 0;
}

/*
 * Rewrites the target, which has other hard links, with the finished temporary file's bytes, so
 * that every link sees them (a rename would detach this name from the others); then removes the
 * temporary file and frees f.
 */
static int copy_into_target(struct outfile *f, struct pp_error *err)
{
	char buf[65536];
	int in = open(f->tmp, O_RDONLY), out = -1, e = 0;
	ssize_t n = 0;

	if (in >= 0)
		out = open(f->target, O_WRONLY | O_TRUNC);
	if (in < 0 || out < 0)
		e = errno;
	while (e == 0 && (n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t done = 0, w; done < n; done += w)
			if ((w = write(out, buf + done, (size_t)(n - done))) < 0) {
				e = errno;
				break;
			}
	}
	if (e == 0 && n < 0)
		e = errno;
	if (out >= 0 && close(out) != 0 && e == 0)
		e = errno;
	if (in >= 0)
		close(in);
	if (e != 0)
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path, strerror(e));
	outfile_abort(f); /* removes the temporary file */
	return e != 0 ? -1 : 0;
}

const char *outfile_temp(const struct outfile *f)
{
	return f->tmp;
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
	if (f->linked)
		return copy_into_target(f, err);
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
	f->aborted = true;
	if (f->fp != NULL)
		fclose(f->fp);
	end_gzip(f);
	if (f->tmp != NULL)
		remove(f->tmp);
	free(f->tmp);
	free(f->target);
	free(f->path);
	free(f);
}
