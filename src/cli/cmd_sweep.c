/*
 * `ppsim sweep`: simulates every point of a grid of options that take lists (-p 2,4,8,
 * -m 8:64:x2, --schedules=all) around a base config, and ranks them. Each record is written in
 * point order as it is ready, whatever the number of threads; --shard evaluates one contiguous
 * run of points so that shard outputs concatenate to the whole stream. The format registry
 * gives the writers: a ranked table (text) or a record stream (jsonl, csv), and the --records
 * file's by its name.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "guard.h"
#include "ppsim/sweep.h"
#include "progress.h"

/* Where the records go while the sweep runs. */
struct sink {
	const struct sweep *sw;
	FILE *stream; /* standard output for a format streaming records (jsonl, csv), else NULL */
	const struct report_format *stream_format;
	FILE *records; /* the --records file, or NULL */
	const struct report_format *records_format;
	FILE *html;       /* the --html report, or NULL */
	uint64_t written; /* records written to it */
	struct progress progress;
};

static int write_record(void *ctx, const struct sweep_record *r)
{
	struct sink *k = ctx;

	if (k->stream != NULL)
		k->stream_format->sweep_record(k->stream, k->sw, r);
	if (k->records != NULL)
		k->records_format->sweep_record(k->records, k->sw, r);
	if (k->html != NULL)
		report_html_sweep_record(k->html, k->sw, r, k->written++ == 0);
	progress_step(&k->progress);
	/* a reader that stopped reading (`| head`) stops the sweep */
	return k->stream != NULL && ferror(k->stream) ? 1 : 0;
}

/* True when a point of sw can have a model (its base or an axis names one). */
static bool may_have_model(const struct sweep *sw)
{
	for (int a = 0; a < sw->naxes; a++)
		if (strcmp(sw->axes[a].opt->key, "model") == 0)
			return true;
	return config_has_model(&sw->base);
}

static int run_sweep(const struct cli *cli, struct sweep *sw)
{
	struct sink k;
	struct outfile *file = NULL, *html = NULL;
	struct pp_error err = {0};
	struct sweep_totals totals;
	struct sweep_record *top;
	uint64_t first, last;
	int status, ntop, maxtop = cli->top > 0 ? cli->top : 10;

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
	if (k.stream != NULL && k.stream_format->sweep_header != NULL)
		k.stream_format->sweep_header(cmd_out(), sw);
	sweep_shard(sweep_points(sw), cli->shard, cli->nshards, &first, &last);
	status = PP_EXIT_OK;
	/* not between records streamed to the same terminal */
	progress_start(&k.progress, !cli->quiet && !(k.stream != NULL && isatty(STDOUT_FILENO)),
	               "sweep", "points", last - first);
	if (sweep_run_ranked(sw, first, last, cli->jobs, top, k.stream != NULL ? 0 : maxtop, &ntop,
	                     &totals, write_record, &k, &err) < 0) {
		progress_end(&k.progress); /* the message on a line of its own */
		guard_abort(file);
		guard_abort(html);
		file = html = NULL;
		status = cmd_fail(&err);
	}
	progress_end(&k.progress);
	if (html != NULL)
		report_html_sweep_footer(k.html);
	/* kept until the command ends, committed with the table below */
	if (file != NULL && guard_keep(file, &err) != 0) {
		guard_abort(html);
		html = NULL;
		status = cmd_fail(&err);
	}
	if (html != NULL && guard_keep(html, &err) != 0)
		status = cmd_fail(&err);
	if (status == PP_EXIT_OK && k.stream == NULL)
		cli->format->sweep_table(cmd_out(), sw, top, ntop, &totals);
	free(top);
	return status;
}

/* Checks what only a sweep needs of its options, then runs it. */
static int sweep_main(const struct cli *cli, struct sweep *sw)
{
	struct pp_error err = {0};

	if (cli->top > 0 && cli->format->sweep_table == NULL)
		return cmd_usage("--top: only with --format=text (the records hold every point)");
	if (cli_check_sweep(cli, sw, &err) != 0)
		return cmd_fail(&err);
	if (cli->fits && !may_have_model(sw))
		return cmd_usage("--fits: needs a model (--model), whose GPU memory it checks");
	return run_sweep(cli, sw);
}

int cmd_sweep(int argc, char **argv)
{
	return cli_sweep_main(argc, argv, CLI_SWEEP, sweep_main);
}
