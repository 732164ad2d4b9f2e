/*
 * Putting finished outputs in place (outfile.h: outfile_commit, outfile_commit_all): a rename of
 * the temporary file onto the target, or the rewrite of a target that keeps its inode (other
 * hard links, a mount point, a directory that takes no new file) in an order that a full disk
 * cannot break: the space reserved first, the part past the old end written next and cut off
 * again on failure, then the rest over blocks the file already holds.
 */
#define _GNU_SOURCE /* fallocate */
#include "ppsim/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile_impl.h"

/* Copies bytes [from, to) of descriptor in to the same offsets of out; 0, or -1 with errno. */
static int copy_range(int in, int out, off_t from, off_t to)
{
	char buf[65536];

	while (from < to) {
		size_t want = to - from < (off_t)sizeof(buf) ? (size_t)(to - from) : sizeof(buf);
		ssize_t n = pread(in, buf, want, from), w;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n == 0 ? EIO : errno; /* the temporary file shrank under us */
			return -1;
		}
		for (ssize_t done = 0; done < n; done += w) {
			w = pwrite(out, buf + done, (size_t)(n - done), from + done);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				return -1;
		}
		from += n;
	}
	return 0;
}

/*
 * The first step of rewriting f's target in place, the one that can fail for want of space:
 * reserves the new contents' blocks, then writes what lies past the target's old end. On
 * failure the target is cut back to its old size, as it was, and err names it.
 */
static int rewrite_prepare(struct outfile *f, struct pp_error *err)
{
	struct stat in_st, out_st;
	int in = open(f->tmp, O_RDONLY), e = 0;

	f->target_fd = in >= 0 ? open(f->target, O_WRONLY) : -1;
	if (in < 0 || f->target_fd < 0 || fstat(in, &in_st) != 0 ||
	    fstat(f->target_fd, &out_st) != 0) {
		e = errno;
	} else {
		f->old_size = out_st.st_size;
#ifdef FALLOC_FL_KEEP_SIZE
		/* a full disk or quota shows here, before a byte changes; a file system without
		 * fallocate is written as it comes */
		if (in_st.st_size > 0 &&
		    fallocate(f->target_fd, FALLOC_FL_KEEP_SIZE, 0, in_st.st_size) != 0 &&
		    errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL)
			e = errno;
#endif
		if (e == 0 && copy_range(in, f->target_fd, f->old_size, in_st.st_size) != 0) {
			e = errno;
			if (ftruncate(f->target_fd, f->old_size) != 0)
				e = errno;
		}
	}
	if (in >= 0)
		close(in);
	if (e == 0)
		return 0;
	if (f->target_fd >= 0)
		close(f->target_fd);
	f->target_fd = -1;
	return pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path, strerror(e));
}

/* Undoes rewrite_prepare: cuts the target back to its old size. */
static void rewrite_undo(struct outfile *f)
{
	if (f->target_fd < 0)
		return;
	if (ftruncate(f->target_fd, f->old_size) != 0) {
		/* nothing more can be done: the target keeps the bytes past its old end */
	}
	close(f->target_fd);
	f->target_fd = -1;
}

/*
 * The rest of the rewrite: the target's old bytes overwritten with the new ones (on blocks it
 * holds already) and the file cut to its new size. Returns 0, or -1 with err.
 */
static int rewrite_finish(struct outfile *f, struct pp_error *err)
{
	struct stat st;
	int in = open(f->tmp, O_RDONLY), e = 0;

	if (in < 0 || fstat(in, &st) != 0 ||
	    copy_range(in, f->target_fd, 0, st.st_size < f->old_size ? st.st_size : f->old_size) !=
	            0 ||
	    ftruncate(f->target_fd, st.st_size) != 0)
		e = errno;
	if (close(f->target_fd) != 0 && e == 0)
		e = errno;
	f->target_fd = -1;
	if (in >= 0)
		close(in);
	return e == 0 ? 0 : pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path, strerror(e));
}

/* Puts f's finished output in place: the rename, or the end of the rewrite; then frees f. */
static int apply(struct outfile *f, struct pp_error *err)
{
	int rc = 0;

	if (f->mode == OUT_REWRITE) {
		rc = rewrite_finish(f, err);
	} else if (f->mode == OUT_RENAME && rename(f->tmp, f->target) != 0) {
		if (errno == EBUSY) { /* a mount point mount_point could not see: in place */
			f->mode = OUT_REWRITE;
			rc = rewrite_prepare(f, err) == 0 ? rewrite_finish(f, err) : -1;
		} else {
			rc = pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path,
			             strerror(errno));
		}
	}
	if (rc == 0 && f->mode == OUT_RENAME) {
		free(f->tmp); /* renamed: nothing to remove */
		f->tmp = NULL;
	}
	f->rewind = false; /* what went through stays */
	outfile_abort(f);
	return rc;
}

int outfile_commit_all(struct outfile **files, int n, struct pp_error *err)
{
	int i, rc = 0;

	for (i = 0; i < n && rc == 0; i++)
		if (files[i] != NULL)
			rc = outfile_finish(files[i], err);
	/* what can fail for want of space first, each undone if another fails */
	for (i = 0; i < n && rc == 0; i++)
		if (files[i] != NULL && files[i]->mode == OUT_REWRITE)
			rc = rewrite_prepare(files[i], err);
	if (rc != 0) {
		for (i = 0; i < n; i++)
			if (files[i] != NULL) {
				rewrite_undo(files[i]);
				outfile_abort(files[i]);
			}
		return -1;
	}
	for (i = 0; i < n; i++)
		if (files[i] != NULL && apply(files[i], err) != 0)
			rc = -1;
	return rc;
}

int outfile_commit(struct outfile *f, struct pp_error *err)
{
	return outfile_commit_all(&f, 1, err);
}
