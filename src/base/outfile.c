/*
 * Output files written all-or-nothing (outfile.h): opening and writing them; outfile_commit.c
 * puts finished ones in place. outfile_open follows the target's symbolic links as a shell's >
 * would, to the file they name (created when a link dangles), and makes a temporary file beside
 * it (mkstemp there, so the final rename stays on one file system and is atomic), or, for a file
 * in a directory that takes no new file, in TMPDIR; aborting removes it. A target with other
 * hard links, one that is a mount point (a file bind-mounted over it), or one whose temporary
 * file is in TMPDIR is to be rewritten in place. A target that exists and is not a regular file (a
 * device, a pipe), or is the file standard output or standard error already writes to
 * (/dev/stdout redirected to a file), is written through; a regular file written through at its
 * end is cut back to where it stood when the output is aborted. Running out of memory is a
 * PP_ERR_NOMEM error like any other and leaves no file behind. Every stream counts what it
 * writes and fails past OUTFILE_MAX_BYTES. A stream asked to (outfile_gzip) deflates what it is
 * given into one gzip member on its way to the descriptor: the limit counts compressed bytes.
 */
#define _GNU_SOURCE /* fopencookie, statx */
#include "ppsim/outfile.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <zlib.h>

#include "outfile_impl.h"

/* The deflater's output buffer: one write of compressed bytes at a time. */
#define ZOUT_SIZE ((size_t)1 << 16)

/* The temporary file's name in the target's directory: short, whatever the target's length. */
#define TEMP_NAME ".ppsim-XXXXXX"

/* Symbolic links followed before a target is a loop, as the kernel's own limit. */
#define MAX_LINKS 40

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

/* Notes where f's last write ended in a file it may cut back, after a write that may have
 * failed (errno is kept). */
static void note_end(struct outfile *f)
{
	int e = errno;
	off_t at;

	if (f->rewind && (at = lseek(f->fd, 0, SEEK_CUR)) >= 0)
		f->end = at;
	errno = e;
}

/*
 * A temporary file that replaces a file by its rename has its writeback started every
 * WRITEBACK_STEP bytes as it is written. ext4 (auto_da_alloc, its default) allocates the
 * blocks of a file renamed over another and starts their writeback in the rename itself, so
 * that a crash cannot leave the replaced name empty: for a large output, a pause as long as
 * the writing (0.3 s for a 646 MB trace). Started as the output goes, on the thread that
 * writes it (the writer's, wbuf.c), the allocation runs beside the formatting instead. Only
 * on ext4 (on_ext4), where the pause is: elsewhere writeback is left to the kernel.
 */
#define WRITEBACK_STEP ((uint64_t)8 << 20)

/* The magic number of ext2, ext3 and ext4 in statfs's f_type (linux/magic.h). */
#define EXT4_MAGIC 0xEF53

/* Whether descriptor fd's file is on an ext2, ext3 or ext4 file system. */
static bool on_ext4(int fd)
{
	struct statfs fs;

	return fstatfs(fd, &fs) == 0 && fs.f_type == EXT4_MAGIC;
}

/*
 * A large temporary file for a new name, on ext4, has its blocks reserved RESERVE_STEP bytes
 * ahead of what is written once it has RESERVE_STEP bytes (fallocate, the file's size
 * unchanged), and what is left over is given back when it closes: ext4's writes into reserved
 * blocks skip its delayed allocation's work per page, a tenth of a large write's time (646 MB
 * in 0.108 s against 0.122), and a whole trace run's time varied less (235 to 272 ms against
 * 260 to 453 on a loaded machine). Not for a file that replaces another: the blocks of a rename
 * over a file are written before the rename is committed (auto_da_alloc, above) only when their
 * allocation was delayed. A refusal (a full disk, a quota) ends the reserving; the writes go on
 * as without it.
 */
#define RESERVE_STEP ((uint64_t)8 << 20)

/* Reserves f's blocks for n bytes past what it has written, and RESERVE_STEP more. */
static void reserve(struct outfile *f, size_t n)
{
	uint64_t len = RESERVE_STEP + n;

	f->trim = true; /* a refusal may have reserved a part */
	if (fallocate(f->fd, FALLOC_FL_KEEP_SIZE, (off_t)f->written, (off_t)len) == 0)
		f->reserved = f->written + len;
	else
		f->reserves = false;
}

/* Writes all of the n bytes to the descriptor, within the size limit; 0, or -1 with errno. */
static int put(struct outfile *f, const void *buf, size_t n)
{
	int rc = 0;

	if (f->written > f->limit || n > f->limit - f->written) {
		f->too_big = true;
		errno = EFBIG;
		return -1;
	}
	if (f->reserves && f->written >= RESERVE_STEP && f->written + n > f->reserved)
		reserve(f, n);
	f->writing = n; /* a signal that ends the process mid-write still cuts the file back */
	for (size_t done = 0; done < n;) {
		ssize_t w = write(f->fd, (const char *)buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = -1; /* errno says why; what was written stays counted */
			if (f->write_errno == 0) /* for outfile_finish: the stream keeps no errno */
				f->write_errno = w < 0 ? errno : ENOSPC;
			break;
		}
		done += (size_t)w;
		f->written += (uint64_t)w;
	}
	note_end(f);
	f->writing = 0;
	if (rc == 0 && f->replaces && f->written - f->sent_back >= WRITEBACK_STEP) {
		/* advice: a refusal (a file system without it) changes nothing */
		(void)sync_file_range(f->fd, (off_t)f->sent_back,
		                      (off_t)(f->written - f->sent_back), SYNC_FILE_RANGE_WRITE);
		f->sent_back = f->written;
	}
	return rc;
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

/* The stream's writes: the n bytes, deflated when f compresses, to the descriptor; dropped
 * once f is being aborted (a cut-back file must not grow again as the stream closes). A failed
 * write returns 0, never a negative value (fopencookie(3)): glibc takes the -1 of a large
 * fwrite's direct write for a count, and copied one byte more than it held into the stream's
 * buffer (a trace past `ulimit -f` crashed). The stream marks its error all the same. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
	struct outfile *f = cookie;

	if (f->aborted)
		return (ssize_t)n;
	if (f->z == NULL)
		return put(f, buf, n) == 0 ? (ssize_t)n : 0;
	/* avail_in is an unsigned int: a larger write goes in pieces */
	for (size_t done = 0; done < n;) {
		size_t piece = n - done < (size_t)1 << 30 ? n - done : (size_t)1 << 30;

		f->z->next_in = (Bytef *)(uintptr_t)(buf + done);
		f->z->avail_in = (uInt)piece;
		if (deflate_out(f, Z_NO_FLUSH) != 0)
			return 0;
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

/* Closes f's descriptor; 0, or -1 with errno (a file system may report a write error here). */
static int close_fd(struct outfile *f)
{
	int rc = f->fd >= 0 ? close(f->fd) : 0;

	f->fd = -1;
	return rc;
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
	/* the blocks reserved past the end, given back (a truncation to the size it has) */
	if (f->trim)
		(void)ftruncate(f->fd, (off_t)f->written);
	if (!f->keep_fd && close_fd(f) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	errno = e != 0 ? e : errno;
	return rc;
}

/* Gives f the stream over descriptor fd, which f then owns (closed on failure too). */
static struct outfile *take_stream(struct outfile *f, int fd, struct pp_error *err)
{
	static const cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};

	f->fd = fd;
	f->fp = fopencookie(f, "w", io);
	if (f->fp != NULL) /* fewer, larger writes; a line at a time to a terminal */
		setvbuf(f->fp, NULL, fd >= 0 && isatty(fd) ? _IOLBF : _IOFBF, (size_t)1 << 16);
	if (f->fp == NULL) {
		open_error(f->path, errno, err);
		outfile_abort(f); /* closes fd, removes the temporary file */
		return NULL;
	}
	return f;
}

/*
 * Notes where a stream written through starts, so that an abort can cut the file back there:
 * only a regular file written at its end (appended to, or at the end of what it holds), since
 * cutting one written in its middle would lose what followed.
 */
static void mark_start(struct outfile *f)
{
	struct stat st;
	int flags = fcntl(f->fd, F_GETFL);
	off_t at = lseek(f->fd, 0, SEEK_CUR);

	if (flags == -1 || fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	if ((flags & O_APPEND) != 0 || at == st.st_size) {
		f->rewind = true;
		f->keep_fd = true;
		f->start = f->end = st.st_size;
	}
}

/* Opens a target that exists and is not a regular file (a terminal, /dev/null, a pipe) in place:
 * renaming a file onto it would replace the device rather than write to it. */
static struct outfile *open_in_place(struct outfile *f, struct pp_error *err)
{
	int fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0666);

	f->mode = OUT_THROUGH;
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
 * truncate what the report wrote there. A descriptor open for reading only writes nothing (the
 * program's stand-in for a closed one): /dev/null named then is opened as itself.
 */
static int standard_stream(const struct stat *st)
{
	for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
		int flags = fcntl(fd, F_GETFL);
		struct stat s;

		if (flags != -1 && (flags & O_ACCMODE) != O_RDONLY && fstat(fd, &s) == 0 &&
		    s.st_dev == st->st_dev && s.st_ino == st->st_ino)
			return fd;
	}
	return -1;
}

/* Writes f through a duplicate of descriptor fd, after what it holds already. A closed fd gives
 * a stream whose first write fails (EBADF), as writing to it would. */
static struct outfile *open_through_fd(struct outfile *f, int fd, struct pp_error *err)
{
	int d;

	/* what the process wrote to the stream of that descriptor comes first */
	if (fd == STDOUT_FILENO || fd == STDERR_FILENO)
		fflush(fd == STDOUT_FILENO ? stdout : stderr);
	d = dup(fd);

	f->mode = OUT_THROUGH;
	if (d < 0 && errno != EBADF) {
		open_error(f->path, errno, err);
		outfile_abort(f);
		return NULL;
	}
	f = take_stream(f, d, err);
	if (f != NULL && d >= 0)
		mark_start(f);
	return f;
}

/* The length of the directory part of path, its final '/' included (0: the current one). */
static size_t dir_length(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash == NULL ? 0 : (size_t)(slash - path) + 1;
}

int outfile_follow_links(const char *path, char **out)
{
	char *cur = pp_strdup(path);

	for (int hops = 0; cur != NULL; hops++) {
		char link[PATH_MAX];
		struct stat st;
		ssize_t n;
		size_t dir;
		char *next;

		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
			*out = cur;
			return 0;
		}
		n = readlink(cur, link, sizeof(link));
		if (hops == MAX_LINKS || n < 0 || (size_t)n >= sizeof(link)) {
			free(cur);
			errno = n < 0 ? errno : hops == MAX_LINKS ? ELOOP : ENAMETOOLONG;
			return -1;
		}
		/* a relative link is relative to the directory that holds it */
		dir = link[0] == '/' ? 0 : dir_length(cur);
		next = pp_malloc(dir + (size_t)n + 1);
		if (next != NULL) {
			memcpy(next, cur, dir);
			memcpy(next + dir, link, (size_t)n);
			next[dir + (size_t)n] = '\0';
		}
		free(cur);
		cur = next;
	}
	errno = ENOMEM;
	return -1;
}

/*
 * True when the file target is a mount point of its own (a file bind-mounted over it, as a
 * container's volume of one file is): renaming onto it fails (EBUSY), so it is rewritten in
 * place. False too where the system does not say (statx without mount ids).
 */
static bool mount_point(const char *target)
{
#ifdef STATX_MNT_ID
	struct statx file, dir;
	size_t n = dir_length(target);
	char *parent = pp_strdup(n > 0 ? target : ".");
	bool apart = false;

	if (parent == NULL)
		return false;
	if (n > 1)
		parent[n - 1] = '\0'; /* "d/x" -> "d"; "/x" -> "/" */
	else if (n == 1)
		parent[1] = '\0';
	if (statx(AT_FDCWD, target, 0, STATX_MNT_ID, &file) == 0 &&
	    statx(AT_FDCWD, parent, 0, STATX_MNT_ID, &dir) == 0 &&
	    (file.stx_mask & dir.stx_mask & STATX_MNT_ID) != 0)
		apart = file.stx_mnt_id != dir.stx_mnt_id;
	free(parent);
	return apart;
#else
	(void)target;
	return false;
#endif
}

/* What a target is, by what outfile_open does with it. */
enum target_kind {
	TARGET_FAIL = -1, /* it cannot be written: err is set */
	TARGET_NEW,       /* nothing there yet (a dangling symbolic link's target included) */
	TARGET_FILE,      /* a writable regular file: replaced */
	TARGET_SPECIAL,   /* a device or a pipe: written in place */
	TARGET_STREAM     /* the file standard output or standard error writes to */
};

/*
 * Fails path, which the system could not reach for want of a permission (EACCES), naming the
 * first directory on its way that cannot be searched: the directory is what refused, not the
 * file. Returns TARGET_FAIL.
 */
static enum target_kind unsearchable(const char *path, struct pp_error *err)
{
	char *dir = pp_strdup(path);
	char *slash = dir != NULL ? strchr(dir + 1, '/') : NULL;

	for (; slash != NULL; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (access(dir, X_OK) != 0 && errno == EACCES) {
			pp_fail(err, PP_ERR_IO, "cannot write '%s': directory '%s': %s", path, dir,
			        strerror(EACCES));
			free(dir);
			return TARGET_FAIL;
		}
		*slash = '/';
	}
	free(dir);
	pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(EACCES));
	return TARGET_FAIL;
}

static enum target_kind classify(const char *path, struct stat *st, struct pp_error *err)
{
	if (path[0] == '\0') {
		pp_fail(err, PP_ERR_IO, "cannot write '': empty file name");
		return TARGET_FAIL;
	}
	if (stat(path, st) != 0) {
		/* nothing there is a new file; a directory on the way that cannot be searched is
		 * named; anything else (a loop of links, a file on the way) is what the system
		 * says */
		if (errno == ENOENT)
			return TARGET_NEW;
		if (errno == EACCES)
			return unsearchable(path, err);
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
		return TARGET_FAIL;
	}
	if (S_ISDIR(st->st_mode)) {
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(EISDIR));
		return TARGET_FAIL;
	}
	if (standard_stream(st) >= 0)
		return TARGET_STREAM;
	if (!S_ISREG(st->st_mode))
		return TARGET_SPECIAL;
	/* rename would replace a file that cannot be written whose directory is writable: refuse
	 * it, as writing to it would be; a file without write bits is read-only even to root,
	 * whose access() ignores them; otherwise the system says why (a read-only file system) */
	if ((st->st_mode & 0222) == 0) {
		pp_fail(err, PP_ERR_IO, "cannot write '%s': the file is read-only", path);
		return TARGET_FAIL;
	}
	if (access(path, W_OK) != 0) {
		pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
		return TARGET_FAIL;
	}
	return TARGET_FILE;
}

/* Fails path, whose file is target once links are followed, for what its directory's errno e
 * says, naming the directory without its final '/'. */
static int dir_error(const char *path, const char *target, int e, struct pp_error *err)
{
	size_t n = dir_length(target);

	if (n > 1)
		n--;
	return pp_fail(err, PP_ERR_IO, "cannot write '%s': directory '%.*s': %s", path,
	               (int)(n > 0 ? n : 1), n > 0 ? target : ".", strerror(e));
}

/* Checks that the directory of a new file path (its links followed) takes a file, so that a
 * run does not find out at its end; 0, or -1 with err. */
static int check_new(const char *path, struct pp_error *err)
{
	char *target, *dir;
	size_t n;
	int rc = 0;

	if (outfile_follow_links(path, &target) != 0)
		return open_error(path, errno, err);
	n = dir_length(target);
	dir = pp_strdup(n > 0 ? target : ".");
	if (dir == NULL) {
		free(target);
		return open_error(path, ENOMEM, err);
	}
	if (n > 1)
		dir[n - 1] = '\0'; /* "d/x" -> "d"; "/x" -> "/" */
	if (access(dir, W_OK | X_OK) != 0)
		rc = dir_error(path, target, errno, err);
	free(dir);
	free(target);
	return rc;
}

int outfile_check(const char *path, bool *regular, struct pp_error *err)
{
	struct stat st;
	enum target_kind k = classify(path, &st, err);

	if (regular != NULL)
		*regular = k == TARGET_FILE || k == TARGET_NEW;
	if (k == TARGET_NEW && check_new(path, err) != 0)
		return -1;
	return k == TARGET_FAIL ? -1 : 0;
}

/* Makes f's temporary file TEMP_NAME in the directory of the dir_len bytes of dir (none: the
 * current one), with its descriptor in *fd; 0, or -1 with errno (f->tmp NULL then). */
static int make_temp(struct outfile *f, const char *dir, size_t dir_len, int *fd)
{
	bool slash = dir_len > 0 && dir[dir_len - 1] != '/';
	int e;

	f->tmp = pp_malloc(dir_len + slash + sizeof(TEMP_NAME));
	if (f->tmp == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(f->tmp, dir, dir_len);
	if (slash)
		f->tmp[dir_len] = '/';
	memcpy(f->tmp + dir_len + slash, TEMP_NAME, sizeof(TEMP_NAME));
	*fd = mkstemp(f->tmp);
	if (*fd >= 0)
		return 0;
	e = errno;
	free(f->tmp);
	f->tmp = NULL;
	errno = e;
	return -1;
}

/*
 * Makes f's temporary file, in *fd: beside the target; for a file that exists in a directory
 * that takes no new file, or that has no name left (nameless), in TMPDIR (or /tmp), the target
 * then rewritten in place, as a shell's > would write it. Returns 0, or -1 with an error naming
 * the directory when neither works.
 */
static int open_temp(struct outfile *f, enum target_kind kind, bool nameless, int *fd,
                     struct pp_error *err)
{
	size_t n = dir_length(f->target);
	const char *tmpdir = getenv("TMPDIR");
	struct pp_error why = {0};
	int e = ENOENT, e2;

	if (!nameless) {
		if (make_temp(f, f->target, n, fd) == 0)
			return 0;
		e = errno;
		if (e == ENOMEM)
			return open_error(f->path, e, err);
	}
	if (kind == TARGET_FILE && (nameless || e == EACCES || e == EPERM || e == EROFS)) {
		if (tmpdir == NULL || tmpdir[0] != '/')
			tmpdir = "/tmp";
		if (make_temp(f, tmpdir, strlen(tmpdir), fd) == 0) {
			f->mode = OUT_REWRITE;
			f->tmp_apart = true;
			return 0;
		}
		if (errno == ENOMEM)
			return open_error(f->path, errno, err);
		/* both refused: the directory, and where its temporary file would have gone */
		e2 = errno;
		dir_error(f->path, f->target, e, &why);
		return pp_fail(err, PP_ERR_IO, "%.700s; no temporary file in '%.200s' either: %s",
		               why.msg, tmpdir, strerror(e2));
	}
	return dir_error(f->path, f->target, e, err); /* the directory is what refused */
}

struct outfile *outfile_open(const char *path, struct pp_error *err)
{
	struct outfile *f;
	struct stat st;
	enum target_kind kind = classify(path, &st, err);
	bool nameless, ext4;
	int fd;

	if (kind == TARGET_FAIL)
		return NULL;
	f = pp_calloc(1, sizeof(*f));
	if (f == NULL || (f->path = pp_strdup(path)) == NULL)
		return out_of_memory(f, path, err);
	f->fd = -1;
	f->target_fd = -1;
	f->limit = OUTFILE_MAX_BYTES;
	if (kind == TARGET_STREAM)
		return open_through_fd(f, standard_stream(&st), err);
	if (kind == TARGET_SPECIAL)
		return open_in_place(f, err);
	/* a symbolic link writes the file it names, which a dangling one creates; a file with no
	 * name left (deleted while open: /proc/self/fd/N) is reached by path alone */
	nameless = kind == TARGET_FILE && st.st_nlink == 0;
	if (nameless ? (f->target = pp_strdup(path)) == NULL
	             : outfile_follow_links(path, &f->target) != 0) {
		if (nameless || errno == ENOMEM)
			return out_of_memory(f, path, err);
		open_error(path, errno, err);
		outfile_abort(f);
		return NULL;
	}
	f->mode = kind == TARGET_FILE && (st.st_nlink != 1 || mount_point(f->target)) ? OUT_REWRITE
	                                                                              : OUT_RENAME;
	if (open_temp(f, kind, nameless, &fd, err) != 0) {
		outfile_abort(f);
		return NULL;
	}
	ext4 = on_ext4(fd);
	f->replaces = kind == TARGET_FILE && f->mode == OUT_RENAME && ext4;
	f->reserves = kind == TARGET_NEW && ext4;
	f->existed = kind == TARGET_FILE;
	/* mkstemp creates the file 0600: give it the replaced file's permissions, or the usual
	 * ones of a new file */
	if (kind == TARGET_FILE) {
		/* and its owner and group, where the user may give them (root, or the group of a
		 * file of one's own) */
		if (fchown(fd, st.st_uid, st.st_gid) != 0 && fchown(fd, (uid_t)-1, st.st_gid) != 0) {
			/* the new file stays the user's */
		}
		fchmod(fd, st.st_mode & 07777);
	} else {
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	return take_stream(f, fd, err);
}

struct outfile *outfile_open_fd(int fd, const char *name, struct pp_error *err)
{
	struct outfile *f = pp_calloc(1, sizeof(*f));

	if (f == NULL || (f->path = pp_strdup(name)) == NULL)
		return out_of_memory(f, name, err);
	f->fd = -1;
	f->target_fd = -1;
	f->limit = OUTFILE_MAX_BYTES;
	return open_through_fd(f, fd, err);
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
		/* a write that failed before the flush (a writer that hands its bytes over in large
		 * blocks leaves the stream's buffer empty) says why through write_errno */
		if (saved == 0)
			saved = f->write_errno;
		if (saved == 0)
			saved = errno;
		if (f->tmp_apart) /* a full TMPDIR is not the target's disk */
			pp_fail(err, PP_ERR_IO,
			        "cannot write '%s': its temporary file in '%.*s': %s", f->path,
			        (int)(dir_length(f->tmp) > 1 ? dir_length(f->tmp) - 1 : 1), f->tmp,
			        saved != 0 ? strerror(saved) : "write error");
		else
			pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path,
			        saved != 0 ? strerror(saved) : "write error");
		errno = saved;
		return -1;
	}
	return 0;
}

const char *outfile_temp(const struct outfile *f)
{
	return f->tmp;
}

/*
 * Cuts a file written through back to the size it had when f began, when nothing was written to
 * it after f's last write (or the write under way): what another writer added (an error
 * message on standard error redirected to the same file, 2>&1) stays, and with it what came
 * before. Only fstat and ftruncate: a signal handler may call it.
 */
void outfile_cut_back(const struct outfile *f)
{
	struct stat st;

	if (f->rewind && f->fd >= 0 && fstat(f->fd, &st) == 0 && st.st_size >= f->end &&
	    (uint64_t)(st.st_size - f->end) <= f->writing && ftruncate(f->fd, f->start) != 0) {
		/* the file stays as it is: a file system that cannot cut it is not ours to mend */
	}
}

void outfile_note_other_writer(struct outfile *f)
{
	struct stat st;

	if (f->rewind && (f->fd < 0 || fstat(f->fd, &st) != 0 || st.st_size != f->end))
		f->rewind = false;
}

void outfile_abort(struct outfile *f)
{
	if (f == NULL)
		return;
	f->aborted = true;
	if (f->fp != NULL)
		fclose(f->fp);
	end_gzip(f);
	outfile_cut_back(f);
	close_fd(f);
	if (f->target_fd >= 0)
		close(f->target_fd);
	if (f->tmp != NULL)
		remove(f->tmp);
	if (f->old != NULL)
		remove(f->old);
	free(f->old);
	free(f->tmp);
	free(f->target);
	free(f->path);
	free(f);
}
