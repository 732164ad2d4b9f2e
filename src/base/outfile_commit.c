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

/* A name beside f's target for a hard link to its old contents: the target's with
 * ".ppsim-old-" and a number; NULL out of memory. */
static char *old_name(const struct outfile *f, unsigned attempt)
{
	const char *slash = strrchr(f->target, '/');
	size_t dir = slash != NULL ? (size_t)(slash - f->target) + 1 : 0;
	size_t n = dir + sizeof(".ppsim-old-") + 24;
	char *name = malloc(n);

	if (name != NULL)
		snprintf(name, n, "%.*s.ppsim-old-%ld-%u", (int)dir, f->target, (long)getpid(),
		         attempt);
	return name;
}

/* True when this user may remove a name of target's file from its directory: any but another's
 * file in a sticky directory that is not the user's either (unlink(2), EPERM). A second name
 * made for it there could not be removed again. */
static bool may_remove(const char *target)
{
	const char *slash = strrchr(target, '/');
	char *dir = slash == NULL ? strdup(".") : strndup(target, (size_t)(slash - target) + 1);
	struct stat d, t;
	uid_t me = geteuid();
	bool ok = dir != NULL && stat(dir, &d) == 0 && stat(target, &t) == 0 &&
	          (!(d.st_mode & S_ISVTX) || me == 0 || t.st_uid == me || d.st_uid == me);

	free(dir);
	return ok;
}

/* Keeps f's target's old contents under a second name (f->old) while the outputs are renamed
 * into place, so that a failure of a later one can put them back. A target that did not exist
 * needs none. Where no hard link can be made (a file system without them, a file the user may
 * not link or could not remove a name of) the target is rewritten in place instead, after
 * every rename has succeeded, so that it too changes only when all the others have. */
static void keep_old(struct outfile *f)
{
	if (!f->existed)
		return;
	for (unsigned attempt = 0; attempt < 64 && may_remove(f->target); attempt++) {
		char *name = old_name(f, attempt);

		if (name == NULL)
			break;
		if (link(f->target, name) == 0) {
			f->old = name;
			return;
		}
		free(name);
		if (errno == ENOENT) /* gone since it was opened: nothing to keep */
			return;
		if (errno != EEXIST)
			break;
	}
	if (access(f->target, F_OK) == 0)
		f->mode = OUT_REWRITE;
}

/* Renames f's temporary file onto its target; a target the directory does not let this user
 * replace (another's file in a sticky directory, a mount point) but the user may write is
 * rewritten in place instead, its space reserved now and its bytes written with the rewrites.
 * Returns 0, or -1 with err. */
static int rename_into_place(struct outfile *f, struct pp_error *err)
{
	int e;

	if (rename(f->tmp, f->target) == 0) {
		f->renamed = true;
		free(f->tmp); /* renamed: nothing to remove */
		f->tmp = NULL;
		return 0;
	}
	e = errno;
	if (f->existed && (e == EBUSY || e == EPERM || e == EACCES)) {
		f->mode = OUT_REWRITE;
		return rewrite_prepare(f, err);
	}
	return pp_fail(err, PP_ERR_IO, "cannot write '%s': %s", f->path, strerror(e));
}

/* Undoes rename_into_place: the old contents back under the target's name, or the new file
 * removed when there was none. When the old contents cannot be put back, their second name
 * stays (never removed: it is their only one) and err says where they are. */
static void rename_undo(struct outfile *f, struct pp_error *err)
{
	if (!f->renamed)
		return;
	if (f->old != NULL) {
		if (rename(f->old, f->target) != 0) {
			size_t n = strlen(err->msg);

			snprintf(err->msg + n, sizeof(err->msg) - n,
			         "; '%s' could not be put back (%s): its old contents are in '%s'",
			         f->path, strerror(errno), f->old);
		}
		free(f->old); /* put back, or kept under its second name */
		f->old = NULL;
	} else if (!f->existed) {
		unlink(f->target);
	}
	f->renamed = false;
}

/*
 * Every output in place, or none: each finished; what can fail for want of space (a rewrite's
 * new bytes past the target's old end) done first; then the renames, each replaced target's
 * old contents kept under a second name until all are done, so that a rename that fails puts
 * the earlier ones back; last the rewrites' remaining bytes over blocks their targets hold.
 */
int outfile_commit_all(struct outfile **files, int n, struct pp_error *err)
{
	int i, rc = 0;

	for (i = 0; i < n && rc == 0; i++)
		if (files[i] != NULL)
			rc = outfile_finish(files[i], err);
	/* a target whose old contents cannot keep a second name becomes a rewrite */
	for (i = 0; i < n && rc == 0; i++)
		if (files[i] != NULL && files[i]->mode == OUT_RENAME)
			keep_old(files[i]);
	for (i = 0; i < n && rc == 0; i++)
		if (files[i] != NULL && files[i]->mode == OUT_REWRITE)
			rc = rewrite_prepare(files[i], err);
	for (i = 0; i < n && rc == 0; i++)
		if (files[i] != NULL && files[i]->mode == OUT_RENAME)
			rc = rename_into_place(files[i], err);
	if (rc != 0) {
		for (i = 0; i < n; i++)
			if (files[i] != NULL) {
				rename_undo(files[i], err);
				rewrite_undo(files[i]);
				outfile_abort(files[i]);
			}
		return -1;
	}
	for (i = 0; i < n; i++)
		if (files[i] != NULL) {
			if (files[i]->mode == OUT_REWRITE && rewrite_finish(files[i], err) != 0)
				rc = -1;
			files[i]->rewind = false; /* what went through stays */
			outfile_abort(files[i]);  /* frees it, and the old contents' second name */
		}
	return rc;
}

int outfile_commit(struct outfile *f, struct pp_error *err)
{
	return outfile_commit_all(&f, 1, err);
}
