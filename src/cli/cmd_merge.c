/*
 * `ppsim merge [OPTIONS] SHARD...`: joins the shard files of one run (each task of a job array
 * writes one: `ppsim sweep --shard=K/N --shard-file=FILE`) into the report the run would have
 * written without --shard, byte for byte, whatever the order of the files. It checks that the
 * files are shards of one run and that every shard is there once, then hands them to the
 * merger of their kind: a row of kinds[], which is all a new kind of shard needs here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/text.h"
#include "cli.h"
#include "cmd.h"
#include "guard.h"
#include "merge.h"
#include "ppsim/shard.h"
#include "ppsim/sweep.h"

/* A kind of shard: its records, what its merger reports and the merger. */
struct merge_kind {
	const struct shard_codec *codec; /* its kind line names codec->kind */
	enum report_kind report;         /* the result merged: --format is one that writes it */
	const char *what;                /* the merge, as a refused --format names it */
	int (*merge)(const struct cli *cli, const struct merge_shards *s);
};

static const struct merge_kind kinds[] = {
        {&sweep_shard_codec, REPORT_SWEEP, "a merge of a sweep's shards", cmd_sweep_merge},
        {&samples_shard_codec, REPORT_RUN, "a merge of a run's noise samples",
         cmd_samples_merge},
};

bool merge_takes_format(const struct report_format *f)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (report_format_writes(f, kinds[i].report))
			return true;
	return false;
}

/* One file given: its shard number, its points, its name and its spool (or NULL). */
struct given {
	uint64_t k;
	uint64_t first, last;
	char *path;
	FILE *spool;
};

/* The most a shard that is no regular file (a pipe, a FIFO) may hold, kept in a temporary file:
 * the shard of a sweep at its limits is far smaller. */
#define SPOOL_MAX (UINT64_C(4) << 30)

/* An unnamed temporary file in TMPDIR (or /tmp), or NULL with errno set. */
static FILE *spool_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PP_PATH_MAX + 32];
	int fd;
	FILE *f;

	if (dir == NULL || dir[0] == '\0' || strlen(dir) > PP_PATH_MAX)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/.ppsim-merge-XXXXXX", dir);
	if ((fd = mkstemp(path)) < 0)
		return NULL;
	unlink(path);
	if ((f = fdopen(fd, "w+")) == NULL)
		close(fd);
	return f;
}

/*
 * Opens the shard file at path to read its head, and again later its records: a regular file
 * is opened each time, anything else (a pipe, a FIFO, a terminal), which reads once, is copied
 * into an unnamed temporary file in TMPDIR, *spool, which the caller closes: whole, up to
 * SPOOL_MAX, when it begins as a shard does, else its first block alone, which the reader then
 * refuses (so that /dev/zero or `yes` is refused at once, not copied). Returns the reader, or
 * NULL with err.
 */
static struct shard_reader *open_given(const char *path, FILE **spool, struct pp_error *err)
{
	static const char magic[] = "ppsim-shard\t";
	FILE *f = fopen(path, "r");
	struct stat st;
	char buf[65536];
	size_t got;
	uint64_t total = 0;

	*spool = NULL;
	if (f == NULL) {
		text_read_error(err, path, errno);
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
		fclose(f);
		return shard_open(path, err); /* which tells a folder from a file */
	}
	if ((*spool = spool_file()) == NULL) {
		pp_fail(err, PP_ERR_IO, "cannot keep what '%s' holds: %s", path, strerror(errno));
		fclose(f);
		return NULL;
	}
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (fwrite(buf, 1, got, *spool) != got)
			break;
		/* not a shard: its first block is all the reader needs to say so */
		if (total == 0 && (got < sizeof(magic) - 1 || memcmp(buf, magic, sizeof(magic) - 1)))
			break;
		if ((total += got) > SPOOL_MAX) {
			pp_fail(err, PP_ERR_IO,
			        "cannot read '%s': larger than %" PRIu64 " MiB, more than a shard "
			        "holds",
			        path, SPOOL_MAX >> 20);
			fclose(f);
			return NULL;
		}
	}
	if (ferror(f) || ferror(*spool) || fflush(*spool) != 0) {
		pp_fail(err, PP_ERR_IO, "cannot read '%s' whole: %s", path, strerror(errno));
		fclose(f);
		return NULL;
	}
	fclose(f);
	rewind(*spool);
	return shard_open_stream(*spool, path, err);
}

static int by_shard(const void *a, const void *b)
{
	const struct given *x = a, *y = b;

	return x->k < y->k ? -1 : x->k > y->k;
}

int merge_records(const struct merge_shards *s, int (*emit)(void *ctx, const void *record),
                  void *ctx, struct pp_error *err)
{
	void *rec = pp_malloc(s->codec->size);
	uint64_t next = 0;
	int rc = 0;
	char why[256];

	if (rec == NULL)
		return pp_nomem(err, 1, s->codec->size);
	for (uint64_t k = 0; k < s->n && rc == 0; k++) {
		struct shard_reader *r = NULL;
		const struct shard_head *h;

		if (s->spools == NULL || s->spools[k] == NULL)
			r = shard_open(s->paths[k], err);
		else if (fseek(s->spools[k], 0, SEEK_SET) != 0)
			text_read_error(err, s->paths[k], errno);
		else
			r = shard_open_stream(s->spools[k], s->paths[k], err);
		h = r != NULL ? shard_reader_head(r) : NULL;

		if (r == NULL) {
			rc = -1;
			break;
		}
		/* the file may have changed since it was checked */
		if (!shard_same_run(s->head, h, why, sizeof(why)) || h->k != k + 1 ||
		    h->first != next)
			rc = pp_fail(err, PP_ERR_CONFIG,
			             "shard '%s': changed while merge read the shards",
			             s->paths[k]);
		while (rc == 0 && (rc = shard_next(r, s->codec, rec, err)) == 1)
			rc = emit(ctx, rec);
		next = h->last;
		shard_close(r);
	}
	/* the last file too may have changed: its points must still end at the run's last */
	if (rc == 0 && next != s->head->total)
		rc = pp_fail(err, PP_ERR_CONFIG, "shard '%s': changed while merge read the shards",
		             s->paths[s->n - 1]);
	free(rec);
	return rc;
}

/* merge_records' emit for a reading that only checks. */
static int no_emit(void *ctx, const void *record)
{
	(void)ctx;
	(void)record;
	return 0;
}

/* The row of kind, or NULL. */
static const struct merge_kind *kind_of(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].codec->kind, kind) == 0)
			return &kinds[i];
	return NULL;
}

/*
 * Checks that the files given[0..n-1], of the run of head, are its shards 1 to N once each and
 * that their points follow each other from 0 to the run's last; sorts them by shard. Returns 0,
 * or -1 with err.
 */
static int check_set(struct given *given, size_t n, const struct shard_head *head,
                     struct pp_error *err)
{
	uint64_t want = 0;

	qsort(given, n, sizeof(*given), by_shard);
	for (size_t i = 1; i < n; i++)
		if (given[i].k == given[i - 1].k)
			return strcmp(given[i].path, given[i - 1].path) == 0
			               ? pp_fail(err, PP_ERR_USAGE, "merge: '%s' is given twice",
			                         given[i].path)
			               : pp_fail(err, PP_ERR_USAGE,
			                         "merge: '%s' and '%s' are both shard %llu of %llu",
			                         given[i - 1].path, given[i].path,
			                         (unsigned long long)given[i].k,
			                         (unsigned long long)head->n);
	for (size_t i = 0; i < n; i++)
		if (given[i].k != i + 1) {
			want = i + 1;
			break;
		}
	if (want == 0 && n < head->n)
		want = n + 1;
	if (want > 0)
		return pp_fail(
		        err, PP_ERR_USAGE,
		        "merge: shard %llu of %llu is missing (%zu of the %llu shards given)",
		        (unsigned long long)want, (unsigned long long)head->n, n,
		        (unsigned long long)head->n);
	/* each shard holds the points sweep_shard gives shard K of N, which follow one another
	 * from 0 to the run's last (a file whose points line says otherwise is blamed, not the
	 * next one) */
	for (size_t i = 0; i < n; i++) {
		uint64_t first, last;

		sweep_shard(head->total, i + 1, head->n, &first, &last);
		if (given[i].first != first || given[i].last != last)
			return pp_fail(err, PP_ERR_CONFIG,
			               "shard '%s': points %llu to %llu, where shard %zu of %llu of "
			               "%llu points holds %llu to %llu",
			               given[i].path, (unsigned long long)given[i].first,
			               (unsigned long long)given[i].last, i + 1,
			               (unsigned long long)head->n, (unsigned long long)head->total,
			               (unsigned long long)first, (unsigned long long)last);
	}
	return 0;
}

/* Reads the heads of the files of cli, checks them and merges them. */
static int merge_main(const struct cli *cli)
{
	const char *outputs[] = {cli->records_file, cli->html_file, cli->samples_file};
	static const char *const output_what[] = {"--records", "--html", "--samples-out"};
	size_t n = (size_t)cli->nfiles;
	const char **what = pp_mallocarray(n, sizeof(*what));
	struct given *given = pp_mallocarray(n, sizeof(*given));
	char **paths = pp_mallocarray(n, sizeof(*paths));
	FILE **spools = pp_calloc(n, sizeof(*spools));
	struct shard_reader *first = NULL;
	const struct merge_kind *kind = NULL;
	struct merge_shards s = {0};
	struct pp_error err = {0};
	int status = -1;
	char why[256];

	if (what == NULL || given == NULL || paths == NULL || spools == NULL) {
		pp_nomem(&err, n, sizeof(*given) + sizeof(*what) + sizeof(*paths) + sizeof(*spools));
		goto fail;
	}
	for (int i = 0; i < cli->nfiles; i++)
		what[i] = "a shard merge reads";
	if (guard_check_outputs(outputs, output_what, 3, (const char *const *)cli->files, what,
	                        cli->nfiles, &err) != 0)
		goto fail;
	for (int i = 0; i < cli->nfiles; i++) {
		FILE *spool;
		struct shard_reader *r = open_given(cli->files[i], &spool, &err);
		const struct shard_head *h;

		spools[i] = spool;
		if (r == NULL)
			goto fail;
		h = shard_reader_head(r);
		given[i] = (struct given){h->k, h->first, h->last, cli->files[i], spool};
		if (first == NULL) {
			first = r;
			if ((kind = kind_of(h->kind)) == NULL) {
				pp_fail(&err, PP_ERR_CONFIG,
				        "shard '%s': records of a %s, which this ppsim does not "
				        "merge",
				        cli->files[i], h->kind);
				goto fail;
			}
			continue;
		}
		if (!shard_same_run(shard_reader_head(first), h, why, sizeof(why))) {
			pp_fail(&err, PP_ERR_USAGE,
			        "merge: '%s' and '%s' are shards of different runs: %s",
			        cli->files[0], cli->files[i], why);
			shard_close(r);
			goto fail;
		}
		shard_close(r);
	}
	s.head = shard_reader_head(first);
	if (check_set(given, n, s.head, &err) != 0)
		goto fail;
	/* --format: one of those that write what this kind of shard merges into */
	if (cli->format_set && report_format_find(cli->format_name, kind->report) == NULL) {
		char list[128], hint[128];

		status = cmd_usage("--format '%s': %s writes %s%s", cli->format_name, kind->what,
		                   report_format_names(kind->report, ", ", " or ", list,
		                                       sizeof(list)),
		                   report_format_hint(cli->format_name, kind->report, hint,
		                                      sizeof(hint)));
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		paths[i] = given[i].path;
		spools[i] = given[i].spool;
	}
	s.paths = paths;
	s.spools = spools;
	s.n = s.head->n;
	s.codec = kind->codec;
	/* every record read and checked before any is written: a bad record in a later shard
	 * leaves standard output empty, as a bad head does */
	if (merge_records(&s, no_emit, NULL, &err) != 0)
		goto fail;
	status = kind->merge(cli, &s);
	goto done;
fail:
	status = cmd_fail(&err);
done:
	shard_close(first);
	for (size_t i = 0; spools != NULL && i < n; i++)
		if (spools[i] != NULL)
			fclose(spools[i]);
	free(spools);
	free(given);
	free(what);
	free(paths);
	return status;
}

int cmd_merge(int argc, char **argv)
{
	struct cli cli;
	int status = cli_parse(argc, argv, CLI_MERGE, &cli);

	if (status < 0 && cli.nset > 0)
		status = cmd_usage("%s: an option of the sweep or run, which the shards hold; merge "
		                   "takes --format, --top, --records, --timeline, --samples-out, "
		                   "--html and --quiet",
		                   cli.set[0].label);
	else if (status < 0 && cli.nfiles == 0)
		status = cmd_usage("merge: needs the shard files (ppsim sweep --shard=K/N "
		                   "--shard-file=FILE writes them)");
	else if (status < 0)
		status = merge_main(&cli);
	cli_release(&cli);
	return status;
}
