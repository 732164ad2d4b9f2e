/*
 * `ppsim sweep`: simulates every point of a grid of options that take lists (-p 2,4,8,
 * -m 8:64:x2, --schedules=all) around a base config, and ranks them. Each record is written in
 * point order as it is ready, whatever the number of threads; --shard evaluates one contiguous
 * run of points so that shard outputs concatenate to the whole stream, and --shard-file keeps
 * a shard's records with the settings that made them, which `ppsim merge` reads back
 * (cmd_sweep_merge) into the report of the whole sweep through the same ranking and writers.
 * The format registry gives the writers: a ranked table (text) or a record stream (jsonl,
 * csv), and the --records file's by its name.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "guard.h"
#include "merge.h"
#include "ppsim/shard.h"
#include "ppsim/sweep.h"
#include "progress.h"

/* Where a sweep's records come from: simulated (sweep), or read from shard files (merge). */
struct source {
	const char *name; /* for the progress line: "sweep", "merge" */
	/* Passes the records of the points [first, last) in index order to sweep_ranking_add(k);
	 * returns 0, what the ranking's emit returned, or -1 with err. */
	int (*run)(const struct source *src, const struct cli *cli, const struct sweep *sw,
	           uint64_t first, uint64_t last, struct sweep_ranking *k, struct pp_error *err);
	const struct merge_shards *shards; /* merge: the shards */
};

static int simulate(const struct source *src, const struct cli *cli, const struct sweep *sw,
                    uint64_t first, uint64_t last, struct sweep_ranking *k, struct pp_error *err)
{
	(void)src;
	return sweep_run(sw, first, last, cli->jobs, sweep_ranking_add, k, err);
}

/* merge_records' emit: the ranking of a sweep's records. */
static int rank_shard_record(void *k, const void *record)
{
	return sweep_ranking_add(k, record);
}

static int read_shards(const struct source *src, const struct cli *cli, const struct sweep *sw,
                       uint64_t first, uint64_t last, struct sweep_ranking *k, struct pp_error *err)
{
	(void)cli;
	(void)sw;
	(void)first;
	(void)last;
	return merge_records(src->shards, rank_shard_record, k, err);
}

/* Where the records go while the sweep runs. */
struct sink {
	const struct sweep *sw;
	FILE *stream; /* standard output for a format streaming records (jsonl, csv), else NULL */
	const struct report_format *stream_format;
	bool gone; /* the stream's reader stopped reading: the files still take every record */
	FILE *records; /* the --records file, or NULL */
	const struct report_format *records_format;
	FILE *html;       /* the --html report, or NULL */
	uint64_t written; /* records written to it */
	FILE *shard;      /* the --shard-file, or NULL */
	uint64_t sharded; /* records written to it */
	struct progress progress;
};

static int write_record(void *ctx, const struct sweep_record *r)
{
	struct sink *k = ctx;

	if (k->stream != NULL && !k->gone)
		k->stream_format->sweep_record(k->stream, k->sw, r);
	if (k->records != NULL)
		k->records_format->sweep_record(k->records, k->sw, r);
	if (k->html != NULL)
		report_html_sweep_record(k->html, k->sw, r, k->written++ == 0);
	if (k->shard != NULL) {
		shard_write_record(k->shard, &sweep_shard_codec, r);
		k->sharded++;
	}
	progress_step(&k->progress);
	/* a reader that stopped reading (`| head`) stops the sweep, unless files want every
	 * point: they are then written whole (never committed cut short) */
	if (k->stream != NULL && ferror(k->stream)) {
		if (k->records == NULL && k->html == NULL && k->shard == NULL)
			return 1;
		k->gone = true;
	}
	return 0;
}

/* True when a point of sw can have a model (its base or an axis names one). */
static bool may_have_model(const struct sweep *sw)
{
	for (int a = 0; a < sw->naxes; a++)
		if (strcmp(sw->axes[a].opt->key, "model") == 0)
			return true;
	return config_has_model(&sw->base);
}

/* Opens the --shard-file of cli and writes its head for the points [first, last) of sw. */
static struct outfile *open_shard(const struct cli *cli, const struct sweep *sw, uint64_t first,
                                  uint64_t last, struct pp_error *err)
{
	return cli_open_shard(cli, &sw->base, sw, &sweep_shard_codec, first, last, sweep_points(sw),
	                      err);
}

/* Runs the sweep from src into its report and its output files (kept until the command ends,
 * or all aborted). */
static int run_sweep(const struct cli *cli, struct sweep *sw, const struct source *src)
{
	struct sink k;
	struct outfile *file = NULL, *html = NULL, *shard = NULL, *kept[3];
	struct pp_error err = {0};
	struct sweep_ranking rank;
	struct sweep_record *top;
	uint64_t first, last;
	int status, maxtop = cli->top > 0 ? cli->top : 10;

	memset(&k, 0, sizeof(k));
	k.sw = sw;
	if (cli->format->sweep_record != NULL) {
		k.stream = cmd_out();
		k.stream_format = cli->format;
	}
	top = pp_mallocarray((size_t)maxtop, sizeof(*top));
	if (top == NULL) {
		pp_nomem(&err, (size_t)maxtop, sizeof(*top));
		return cmd_fail(&err);
	}
	sweep_shard(sweep_points(sw), cli->shard, cli->nshards, &first, &last);
	if (cli->records_file != NULL) {
		file = guard_open(cli->records_file, &err);
		if (file == NULL) {
			free(top);
			return cmd_fail(&err);
		}
		k.records = outfile_stream(file);
		k.records_format = report_records_format(cli->records_file);
		if (k.records_format->sweep_header != NULL)
			k.records_format->sweep_header(k.records, sw);
	}
	if (cli->html_file != NULL) {
		html = guard_open(cli->html_file, &err);
		if (html == NULL) {
			guard_abort(file);
			free(top);
			return cmd_fail(&err);
		}
		k.html = outfile_stream(html);
		report_html_sweep_header(k.html, sw);
	}
	if (cli->shard_file != NULL) {
		shard = open_shard(cli, sw, first, last, &err);
		if (shard == NULL) {
			guard_abort(file);
			guard_abort(html);
			free(top);
			return cmd_fail(&err);
		}
		k.shard = outfile_stream(shard);
	}
	if (k.stream != NULL && k.stream_format->sweep_header != NULL)
		k.stream_format->sweep_header(cmd_out(), sw);
	status = PP_EXIT_OK;
	/* not between records streamed to the same terminal */
	progress_start(&k.progress, !cli->quiet && !(k.stream != NULL && isatty(STDOUT_FILENO)),
	               src->name, "points", last - first);
	sweep_ranking_init(&rank, top, k.stream != NULL ? 0 : maxtop, write_record, &k);
	if (src->run(src, cli, sw, first, last, &rank, &err) < 0) {
		progress_end(&k.progress); /* the message on a line of its own */
		guard_abort(file);
		guard_abort(html);
		guard_abort(shard);
		file = html = shard = NULL;
		status = cmd_fail(&err);
	}
	progress_end(&k.progress);
	if (html != NULL)
		report_html_sweep_footer(k.html);
	if (shard != NULL)
		shard_write_end(k.shard, k.sharded);
	/* kept until the command ends, committed with the table below; once one fails, the
	 * others are aborted */
	kept[0] = file;
	kept[1] = html;
	kept[2] = shard;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		if (kept[i] == NULL)
			continue;
		if (status != PP_EXIT_OK)
			guard_abort(kept[i]);
		else if (guard_keep(kept[i], &err) != 0)
			status = cmd_fail(&err);
	}
	if (status == PP_EXIT_OK && k.stream == NULL)
		cli->format->sweep_table(cmd_out(), sw, top, rank.n, &rank.totals);
	free(top);
	return status;
}

/* Checks what only a sweep needs of its options, then runs it from src. */
static int report_sweep(const struct cli *cli, struct sweep *sw, const struct source *src)
{
	struct pp_error err = {0};

	if (cli->top > 0 && cli->format->sweep_table == NULL)
		return cmd_usage("--top: only with --format=text (the records hold every point)");
	/* points simulated here (not a merge's, read from shards) read the schedule file */
	if (cli_check_sweep(cli, sw, &err) != 0 ||
	    (src->shards == NULL && cli_check_shared_order(sw, &err) != 0))
		return cmd_fail(&err);
	if (cli->fits && !may_have_model(sw))
		return cmd_usage("--fits: needs a model (--model), whose GPU memory it checks");
	return run_sweep(cli, sw, src);
}

static int sweep_main(const struct cli *cli, struct sweep *sw)
{
	static const struct source simulated = {"sweep", simulate, NULL};

	return report_sweep(cli, sw, &simulated);
}

int cmd_sweep(int argc, char **argv)
{
	return cli_sweep_main(argc, argv, CLI_SWEEP, sweep_main);
}

/*
 * The index of the first of words[0..n-1] that is not what shard_entries writes (--config=FILE,
 * --fits, --rank-by=RULE, --schedules=LIST, config options as --name=VALUE or -x VALUE), or -1
 * when every one is; so that a shard file, edited or not, can neither name an output
 * (--records, --shard-file) nor stop the merge (--help).
 */
static int sweep_word_unknown(char **words, int n)
{
	size_t nopt;
	const struct config_option *opts = config_options(&nopt);

	for (int i = 0; i < n; i++) {
		const char *w = words[i];
		size_t len = strcspn(w, "=");
		bool known = false;
		int at = i;

		if (strncmp(w, "--", 2) == 0 && w[len] == '=') {
			known = (len == 8 && strncmp(w, "--config", 8) == 0) ||
			        (len == 9 && strncmp(w, "--rank-by", 9) == 0) ||
			        (len == 11 && strncmp(w, "--schedules", 11) == 0);
			for (size_t k = 0; k < nopt && !known; k++)
				known = strlen(opts[k].name) == len - 2 &&
				        strncmp(opts[k].name, w + 2, len - 2) == 0;
		} else if (strcmp(w, "--fits") == 0) {
			known = true;
		} else if (w[0] == '-' && w[1] != '\0' && w[1] != '-' && w[2] == '\0' &&
		           i + 1 < n) {
			for (size_t k = 0; k < nopt && !known; k++)
				known = opts[k].short_name == w[1];
			i++; /* its value */
		}
		if (!known)
			return at;
	}
	return -1;
}

/* The error of a shard whose settings cmd_sweep_merge cannot take; returns the exit status. */
static int bad_settings(const struct merge_shards *s, const char *what)
{
	struct pp_error err = {0};

	pp_fail(&err, PP_ERR_CONFIG, "shard '%s': %s", s->paths[0], what);
	return cmd_fail(&err);
}

int cmd_sweep_merge(const struct cli *mcli, const struct merge_shards *s)
{
	static const struct source merged = {"merge", read_shards, NULL};
	const struct shard_head *h = s->head;
	static const char *const names[] = {"format", "top", NULL};
	const char *text = NULL, *format = NULL, *top = NULL, *values[2];
	const struct report_format *f;
	char **words = pp_mallocarray(h->nrun + 3, sizeof(*words));
	char format_arg[64], top_arg[64];
	struct source src = merged;
	struct pp_error err = {0};
	struct cli cli;
	struct sweep sw;
	int n = 0, status, bad;

	if (mcli->timeline_set || mcli->samples_file != NULL) {
		free(words);
		return cmd_usage("%s: a sweep's report has no %s (merge %s for a run's noise "
		                 "samples)",
		                 mcli->timeline_set ? "--timeline" : "--samples-out",
		                 mcli->timeline_set ? "timeline" : "samples of one run",
		                 mcli->timeline_set ? "draws one" : "writes them");
	}
	if (words == NULL) {
		pp_nomem(&err, h->nrun + 3, sizeof(*words));
		return cmd_fail(&err);
	}
	src.shards = s;
	words[0] = (char *)"sweep";
	if ((n = merge_settings(h, words, &text, names, values)) < 0) {
		free(words);
		return bad_settings(s, "a setting a sweep does not make");
	}
	format = values[0];
	top = values[1];
	/* merge's own --format and --top win; the sweep's --top goes with a table only */
	format = mcli->format_set ? mcli->format_name : format;
	if (format == NULL || (f = report_format_find(format, REPORT_SWEEP)) == NULL) {
		free(words);
		return bad_settings(s, "no format of a sweep's report among its settings");
	}
	if ((bad = sweep_word_unknown(words + 1, n - 1)) >= 0) {
		char what[160];

		snprintf(what, sizeof(what), "a setting a sweep does not make: '%.100s'",
		         words[1 + bad]);
		free(words);
		return bad_settings(s, what);
	}
	snprintf(format_arg, sizeof(format_arg), "--format=%s", format);
	words[n++] = format_arg;
	if (mcli->top > 0 || (top != NULL && f->sweep_table != NULL)) {
		if (mcli->top > 0)
			snprintf(top_arg, sizeof(top_arg), "--top=%d", mcli->top);
		else
			snprintf(top_arg, sizeof(top_arg), "--top=%.20s", top);
		words[n++] = top_arg;
	}
	status = merge_parse(s, words, n, CLI_SWEEP, text, &cli);
	if (status < 0) {
		cli.records_file = mcli->records_file;
		cli.html_file = mcli->html_file;
		cli.quiet = mcli->quiet;
		if (cli_sweep(&cli, &sw, &err) != 0) {
			status = cmd_fail(&err);
		} else {
			if (sweep_points(&sw) != h->total)
				status = bad_settings(s,
				                      "its settings make a sweep of other points");
			else
				status = report_sweep(&cli, &sw, &src);
			sweep_release(&sw);
		}
	}
	cli_release(&cli);
	free(words);
	return status;
}
