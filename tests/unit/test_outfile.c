/* Unit tests of outfile: all-or-nothing writes via a temporary file; devices written in place. */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ppsim/outfile.h"
#include "unit.h"

/* A fresh empty directory under the system's temporary directory, in buf of size n. */
static char *make_dir(char *buf, size_t n)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, n, "%s/ppsim-unit-XXXXXX", tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(buf));
	return buf;
}

/* Entries of directory dir other than "." and "..". */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* The whole content of file path in buf of size n, or NULL when it cannot be read. */
static char *read_all(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t len;

	if (f == NULL)
		return NULL;
	len = fread(buf, 1, n - 1, f);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The whole content of file path is expected. */
static void assert_content(const char *path, const char *expected)
{
	char content[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(read_all(path, content, sizeof(content)));
	CU_ASSERT_STRING_EQUAL(content, expected);
}

static void outfile_commit_creates_the_file_with_what_was_written(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/ops.csv", dir);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(outfile_stream(f));
	fputs("device,op\n0,F\n", outfile_stream(f));
	/* nothing appears under the target's name before the commit */
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	assert_content(path, "device,op\n0,F\n");
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	remove(path);
	rmdir(dir);
}

static void outfile_commit_replaces_an_existing_file(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;
	FILE *old;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/report.json", dir);
	old = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(old);
	fputs("old content that is longer\n", old);
	fclose(old);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("new\n", outfile_stream(f));
	assert_content(path, "old content that is longer\n");
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	assert_content(path, "new\n");
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	remove(path);
	rmdir(dir);
}

static void outfile_abort_leaves_no_file_behind(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("partial", outfile_stream(f));
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	outfile_abort(f);
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	CU_ASSERT_EQUAL(count_entries(dir), 0);
	outfile_abort(NULL);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

/* Finishing shows a write error while the target is untouched; a finished file not committed
 * still leaves nothing; a finished file commits. */
static void outfile_finish_reports_errors_before_any_rename(void)
{
	char dir[512], path[600], buf[64];
	struct pp_error err = {0};
	struct outfile *f = outfile_open("/dev/full", &err);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("no room", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_finish(f, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'/dev/full': No space left on device"));
	outfile_abort(f);

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/ops.csv", dir);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("done", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_finish(f, &err), 0);
	CU_ASSERT_EQUAL(outfile_finish(f, &err), 0);
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	outfile_abort(f);
	CU_ASSERT_EQUAL(count_entries(dir), 0);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("done", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_finish(f, &err), 0);
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(read_all(path, buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(buf, "done");
	CU_ASSERT_EQUAL(remove(path), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static void outfile_open_fails_with_an_io_error_naming_the_path(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/no-such-dir/out.csv", dir);
	CU_ASSERT_PTR_NULL(outfile_open(path, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	CU_ASSERT_EQUAL(count_entries(dir), 0);
	rmdir(dir);
}

static void outfile_open_rejects_an_empty_name(void)
{
	struct pp_error err = {0};

	CU_ASSERT_PTR_NULL(outfile_open("", &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_NOT_EQUAL(err.msg[0], '\0');
}

static void outfile_open_fails_when_the_target_is_a_directory(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/sub", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(path, 0700), 0);
	CU_ASSERT_PTR_NULL(outfile_open(path, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "directory"));
	/* only the directory remains: no temporary file was made */
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	rmdir(path);
	rmdir(dir);
}

static void outfile_commit_through_a_symbolic_link_replaces_the_file_and_keeps_the_link(void)
{
	char dir[512], file[600], link[600];
	struct pp_error err = {0};
	struct outfile *f;
	struct stat st;
	FILE *old;

	make_dir(dir, sizeof(dir));
	snprintf(file, sizeof(file), "%s/real.csv", dir);
	snprintf(link, sizeof(link), "%s/link.csv", dir);
	old = fopen(file, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(old);
	fputs("old\n", old);
	fclose(old);
	CU_ASSERT_EQUAL_FATAL(symlink("real.csv", link), 0);
	f = outfile_open(link, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("new\n", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	CU_ASSERT_EQUAL(lstat(link, &st), 0);
	CU_ASSERT_TRUE(S_ISLNK(st.st_mode));
	assert_content(file, "new\n");
	CU_ASSERT_EQUAL(count_entries(dir), 2);
	remove(link);
	remove(file);
	rmdir(dir);
}

/* True when path is a character device (the test devices exist on any Linux machine). */
static int is_char_device(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

static void outfile_writes_a_device_in_place_and_never_replaces_it(void)
{
	struct pp_error err = {0};
	struct outfile *f;

	CU_ASSERT_TRUE_FATAL(is_char_device("/dev/null"));
	f = outfile_open("/dev/null", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("discarded", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	CU_ASSERT_TRUE(is_char_device("/dev/null"));
}

static void outfile_commit_reports_a_device_that_refuses_the_data(void)
{
	struct pp_error err = {0};
	struct outfile *f;

	CU_ASSERT_TRUE_FATAL(is_char_device("/dev/full"));
	f = outfile_open("/dev/full", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("no room", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_commit(f, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'/dev/full'"));
	CU_ASSERT_TRUE(is_char_device("/dev/full"));
}

/* Writes text to path (a new file), with mode mode. */
static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(chmod(path, mode), 0);
}

static void outfile_commit_keeps_the_replaced_file_s_permissions(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;
	struct stat st;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/private.csv", dir);
	write_file(path, "old\n", 0600);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("new\n", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
	remove(path);
	rmdir(dir);
}

static void outfile_open_refuses_a_read_only_file_and_leaves_it(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	bool regular = false;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/frozen.csv", dir);
	write_file(path, "old\n", 0444);
	CU_ASSERT_PTR_NULL(outfile_open(path, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the file is read-only"));
	CU_ASSERT_EQUAL(outfile_check(path, &regular, &err), -1);
	assert_content(path, "old\n");
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	chmod(path, 0600);
	remove(path);
	rmdir(dir);
}

static void outfile_commit_rewrites_a_hard_linked_file_for_every_name(void)
{
	char dir[512], path[600], other[600];
	struct pp_error err = {0};
	struct outfile *f;
	struct stat st;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/a.csv", dir);
	snprintf(other, sizeof(other), "%s/b.csv", dir);
	write_file(path, "old content\n", 0644);
	CU_ASSERT_EQUAL_FATAL(link(path, other), 0);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("new\n", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	assert_content(other, "new\n");
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_nlink, 2);
	CU_ASSERT_EQUAL(count_entries(dir), 2);
	remove(path);
	remove(other);
	rmdir(dir);
}

static void outfile_temporary_name_does_not_grow_with_the_target_s(void)
{
	char dir[512], path[900], name[256];
	struct pp_error err = {0};
	struct outfile *f;

	make_dir(dir, sizeof(dir));
	memset(name, 'x', 251);
	memcpy(name + 251, ".csv", 5); /* 255 bytes, the longest name */
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(outfile_temp(f));
	CU_ASSERT_PTR_NOT_NULL(strstr(outfile_temp(f), "/.ppsim-"));
	fputs("x\n", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	remove(path);
	rmdir(dir);
}

static void outfile_fails_past_its_size_limit_and_leaves_no_file(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/big.json", dir);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	outfile_limit(f, 10);
	fputs("0123456789", outfile_stream(f)); /* exactly the limit */
	CU_ASSERT_EQUAL(outfile_finish(f, &err), 0);
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	outfile_limit(f, 10);
	fputs("0123456789A", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_commit(f, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "larger than the limit of 10 bytes"));
	CU_ASSERT_EQUAL(count_entries(dir), 1); /* the first file, untouched */
	remove(path);
	rmdir(dir);
}

/* Writes n lines of a trace-like text to out, and the same into buf when it is not NULL. */
static size_t write_lines(FILE *out, char *buf, int n)
{
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		char line[96];
		int k = snprintf(line, sizeof(line), "{\"name\":\"F%d\",\"ts\":%d,\"dur\":%d},\n",
		                 i % 97, i * 1000 + 1, 500 + i % 7);

		fputs(line, out);
		if (buf != NULL)
			memcpy(buf + len, line, (size_t)k);
		len += (size_t)k;
	}
	return len;
}

static void outfile_gzip_writes_one_gzip_member_that_inflates_to_what_was_written(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;
	int n = 100000;
	char *want = malloc((size_t)n * 96), *got = malloc((size_t)n * 96);
	size_t len;
	struct stat st;
	gzFile gz;

	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/trace.json.gz", dir);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL_FATAL(outfile_gzip(f, &err), 0);
	len = write_lines(outfile_stream(f), want, n);
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	/* compressed, and zlib reads back every byte and no more */
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	CU_ASSERT((size_t)st.st_size < len / 5);
	gz = gzopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
	CU_ASSERT_EQUAL(gzdirect(gz), 0);
	CU_ASSERT_EQUAL(gzread(gz, got, (unsigned)(len + 1)), (int)len);
	CU_ASSERT_EQUAL(gzclose(gz), Z_OK);
	CU_ASSERT_EQUAL(memcmp(got, want, len), 0);
	free(want);
	free(got);
	remove(path);
	rmdir(dir);
}

static void outfile_gzip_holds_the_compressed_bytes_to_the_limit_and_an_abort_leaves_nothing(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/trace.json.gz", dir);
	/* far more text than the limit, which its compressed form fits */
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL_FATAL(outfile_gzip(f, &err), 0);
	outfile_limit(f, 200000);
	CU_ASSERT(write_lines(outfile_stream(f), NULL, 20000) > 200000);
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	/* and a compressed form past it fails, leaving the file before it as it was */
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL_FATAL(outfile_gzip(f, &err), 0);
	outfile_limit(f, 100);
	write_lines(outfile_stream(f), NULL, 20000);
	CU_ASSERT_EQUAL(outfile_commit(f, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "larger than the limit of 100 bytes"));
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	remove(path);
	f = outfile_open(path, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL_FATAL(outfile_gzip(f, &err), 0);
	write_lines(outfile_stream(f), NULL, 20000);
	outfile_abort(f);
	CU_ASSERT_EQUAL(count_entries(dir), 0);
	rmdir(dir);
}

static void outfile_through_a_dangling_symbolic_link_creates_the_file_it_names(void)
{
	char dir[512], sub[600], target[700], link[600], hop[600];
	struct pp_error err = {0};
	struct outfile *f;
	struct stat st;

	make_dir(dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
	snprintf(target, sizeof(target), "%s/new.csv", sub);
	snprintf(link, sizeof(link), "%s/link.csv", dir);
	/* relative to the link's directory, through a second link */
	CU_ASSERT_EQUAL_FATAL(symlink("hop.csv", link), 0);
	snprintf(hop, sizeof(hop), "%s/hop.csv", dir);
	CU_ASSERT_EQUAL_FATAL(symlink("sub/new.csv", hop), 0);
	f = outfile_open(link, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("new\n", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	CU_ASSERT_EQUAL(lstat(link, &st), 0);
	CU_ASSERT_TRUE(S_ISLNK(st.st_mode));
	assert_content(target, "new\n");
	CU_ASSERT_EQUAL(count_entries(dir), 3);
	CU_ASSERT_EQUAL(count_entries(sub), 1);
	remove(target);
	rmdir(sub);
	remove(link);
	remove(hop);
	rmdir(dir);
}

static void outfile_open_refuses_a_loop_of_symbolic_links_and_leaves_it(void)
{
	char dir[512], a[600], b[600];
	struct pp_error err = {0};
	struct stat st;

	make_dir(dir, sizeof(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	CU_ASSERT_EQUAL_FATAL(symlink("b", a), 0);
	CU_ASSERT_EQUAL_FATAL(symlink("a", b), 0);
	CU_ASSERT_PTR_NULL(outfile_open(a, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "symbolic links"));
	CU_ASSERT_EQUAL(lstat(a, &st), 0);
	CU_ASSERT_TRUE(S_ISLNK(st.st_mode));
	CU_ASSERT_EQUAL(count_entries(dir), 2);
	remove(a);
	remove(b);
	rmdir(dir);
}

static void outfile_open_names_the_directory_that_refuses_a_new_file(void)
{
	struct pp_error err = {0};

	/* sysfs takes no new file, even from root */
	CU_ASSERT_PTR_NULL(outfile_open("/sys/ppsim-unit.csv", &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "directory '/sys'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "Permission denied"));
}

static void outfile_commit_all_replaces_nothing_when_one_output_fails(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f[2];

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/kept.csv", dir);
	write_file(path, "old\n", 0644);
	f[0] = outfile_open(path, &err);
	f[1] = outfile_open("/dev/full", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f[1]);
	fputs("new\n", outfile_stream(f[0]));
	fputs("no room", outfile_stream(f[1]));
	CU_ASSERT_EQUAL(outfile_commit_all(f, 2, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'/dev/full'"));
	assert_content(path, "old\n");
	CU_ASSERT_EQUAL(count_entries(dir), 1);
	remove(path);
	rmdir(dir);
}

/* An outfile_open_fd over path opened for appending, after "old\n"; *fd is the caller's. */
static struct outfile *open_appending(const char *path, int *fd)
{
	struct pp_error err = {0};
	struct outfile *f;

	write_file(path, "old\n", 0644);
	*fd = open(path, O_WRONLY | O_APPEND);
	CU_ASSERT_FATAL(*fd >= 0);
	f = outfile_open_fd(*fd, "standard output", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	return f;
}

static void outfile_open_fd_cuts_a_file_back_on_abort_and_keeps_it_on_commit(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;
	int fd;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/stdout.txt", dir);
	f = open_appending(path, &fd);
	fputs("partial report\n", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_finish(f, &err), 0);
	outfile_abort(f);
	assert_content(path, "old\n");
	close(fd);
	f = open_appending(path, &fd);
	fputs("report\n", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_commit(f, &err), 0);
	assert_content(path, "old\nreport\n");
	/* the caller's descriptor stays open */
	CU_ASSERT_EQUAL(write(fd, "x", 1), 1);
	close(fd);
	remove(path);
	rmdir(dir);
}

static void outfile_open_fd_keeps_what_another_writer_added_after_it(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;
	int fd;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/stdout.txt", dir);
	f = open_appending(path, &fd);
	fputs("rows\n", outfile_stream(f));
	fflush(outfile_stream(f));
	/* standard error on the same file (2>&1): the message of a command that fails */
	CU_ASSERT_EQUAL(write(fd, "message\n", 8), 8);
	outfile_note_other_writer(f);
	fputs("more rows\n", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_finish(f, &err), 0);
	outfile_abort(f);
	assert_content(path, "old\nrows\nmessage\nmore rows\n");
	close(fd);
	/* a message elsewhere leaves it to be cut back */
	f = open_appending(path, &fd);
	fputs("rows\n", outfile_stream(f));
	fflush(outfile_stream(f));
	outfile_note_other_writer(f);
	CU_ASSERT_EQUAL(outfile_finish(f, &err), 0);
	outfile_abort(f);
	assert_content(path, "old\n");
	close(fd);
	remove(path);
	rmdir(dir);
}

static void outfile_open_fd_holds_standard_output_to_the_size_limit(void)
{
	char dir[512], path[600];
	struct pp_error err = {0};
	struct outfile *f;
	int fd;

	make_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/stdout.txt", dir);
	f = open_appending(path, &fd);
	outfile_limit(f, 8);
	fputs("more than eight bytes\n", outfile_stream(f));
	CU_ASSERT_EQUAL(outfile_finish(f, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'standard output': larger than the limit"));
	outfile_abort(f);
	assert_content(path, "old\n");
	close(fd);
	remove(path);
	rmdir(dir);
}

static const struct unit_test tests[] = {
        UNIT_TEST(outfile_commit_creates_the_file_with_what_was_written),
        UNIT_TEST(outfile_commit_replaces_an_existing_file),
        UNIT_TEST(outfile_abort_leaves_no_file_behind),
        UNIT_TEST(outfile_finish_reports_errors_before_any_rename),
        UNIT_TEST(outfile_open_fails_with_an_io_error_naming_the_path),
        UNIT_TEST(outfile_open_rejects_an_empty_name),
        UNIT_TEST(outfile_open_fails_when_the_target_is_a_directory),
        UNIT_TEST(outfile_commit_through_a_symbolic_link_replaces_the_file_and_keeps_the_link),
        UNIT_TEST(outfile_writes_a_device_in_place_and_never_replaces_it),
        UNIT_TEST(outfile_commit_reports_a_device_that_refuses_the_data),
        UNIT_TEST(outfile_commit_keeps_the_replaced_file_s_permissions),
        UNIT_TEST(outfile_open_refuses_a_read_only_file_and_leaves_it),
        UNIT_TEST(outfile_commit_rewrites_a_hard_linked_file_for_every_name),
        UNIT_TEST(outfile_temporary_name_does_not_grow_with_the_target_s),
        UNIT_TEST(outfile_fails_past_its_size_limit_and_leaves_no_file),
        UNIT_TEST(outfile_gzip_writes_one_gzip_member_that_inflates_to_what_was_written),
        UNIT_TEST(outfile_gzip_holds_the_compressed_bytes_to_the_limit_and_an_abort_leaves_nothing),
        UNIT_TEST(outfile_through_a_dangling_symbolic_link_creates_the_file_it_names),
        UNIT_TEST(outfile_open_refuses_a_loop_of_symbolic_links_and_leaves_it),
        UNIT_TEST(outfile_open_names_the_directory_that_refuses_a_new_file),
        UNIT_TEST(outfile_commit_all_replaces_nothing_when_one_output_fails),
        UNIT_TEST(outfile_open_fd_cuts_a_file_back_on_abort_and_keeps_it_on_commit),
        UNIT_TEST(outfile_open_fd_keeps_what_another_writer_added_after_it),
        UNIT_TEST(outfile_open_fd_holds_standard_output_to_the_size_limit),
        {NULL, NULL},
};

const struct unit_suite suite_outfile = {"outfile", tests};
