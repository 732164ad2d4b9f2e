/*
 * `ppsim sweep`: simulates every point of a grid of options that take lists (-p 2,4,8,
 * -m 8:64:x2, --schedules=all) around a base config, and ranks them. Each record is written in
 * point order as it is ready, whatever the number of threads; --shard evaluates one contiguous
 * run of points so that shard outputs concatenate to the whole stream.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/outfile.h"
#include "ppsim/sweep.h"

/* A record writer: JSON lines or CSV. */
typedef int (*record_writer)(FILE *out, const struct sweep *sw, const struct sweep_record *r);

/* Where the records go while the sweep runs. */
struct sink {
	const struct sweep *sw;
	FILE *stream; /* stdout for --format=jsonl or csv, else NULL */
	record_writer stream_write;
	FILE *records; /* the --records file, or NULL */
	record_writer records_write;
};

static int write_record(void *ctx, const struct sweep_record *r)
{
	struct sink *k = ctx;

	if (k->stream != NULL)
		k->stream_write(k->stream, k->sw, r);
	if (k->records != NULL)
		k->records_write(k->records, k->sw, r);
	/* a reader that stopped reading (`| head`) stops the sweep */
	return k->stream != NULL && ferror(k->stream) ? 1 : 0;
}

/* The writer for a format name, or NULL. */
static record_writer writer_of(const char *name)
{
	return strcmp(name, "jsonl") == 0 ? report_sweep_jsonl
	       : strcmp(name, "csv") == 0 ? report_sweep_csv
	                                  : NULL;
}

/* True when name ends in suffix. */
static bool ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n >= k && strcmp(name + n - k, suffix) == 0;
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
	struct outfile *file = NULL;
	struct pp_error err = {0};
	struct sweep_totals totals;
	struct sweep_record *top;
	uint64_t first, last;
	int status, ntop, maxtop = cli->top > 0 ? cli->top : 10;

	memset(&k, 0, sizeof(k));
	k.sw = sw;
	if (strcmp(cli->format_name, "text") != 0) {
		k.stream = stdout;
		k.stream_write = writer_of(cli->format_name);
	}
	if (cli->records_file != NULL) {
		file = outfile_open(cli->records_file, &err);
		if (file == NULL)
			return cmd_fail(&err);
		k.records = outfile_stream(file);
		k.records_write = ends_with(cli->records_file, ".csv") ? report_sweep_csv
		                                                       : report_sweep_jsonl;
		if (k.records_write == report_sweep_csv)
			report_sweep_csv_header(k.records, sw);
	}
	if (k.stream_write == report_sweep_csv)
		report_sweep_csv_header(stdout, sw);
	sweep_shard(sweep_points(sw), cli->shard, cli->nshards, &first, &last);
	top = pp_xmallocarray((size_t)maxtop, sizeof(*top));
	sweep_run_ranked(sw, first, last, cli->jobs, top, k.stream != NULL ? 0 : maxtop, &ntop,
	                 &totals, write_record, &k);
	status = PP_EXIT_OK;
	if (file != NULL && outfile_commit(file, &err) != 0)
		status = cmd_fail(&err);
	if (status == PP_EXIT_OK && k.stream == NULL)
		report_sweep_table(stdout, sw, top, ntop, &totals);
	free(top);
	return status;
}

int cmd_sweep(int argc, char **argv)
{
	struct cli cli;
	struct sweep sw;
	struct pp_error err = {0};
	int status = cli_parse(argc, argv, CLI_SWEEP, &cli);

	if (status >= 0) {
		cli_release(&cli);
		return status;
	}
	if (strcmp(cli.format_name, "text") != 0 && writer_of(cli.format_name) == NULL) {
		status = cmd_usage("--format '%s': a sweep writes text, jsonl or csv%s",
		                   cli.format_name,
		                   strcmp(cli.format_name, "json") == 0 ? " (JSON lines: jsonl)" : "");
		cli_release(&cli);
		return status;
	}
	if (cli.top > 0 && strcmp(cli.format_name, "text") != 0) {
		cli_release(&cli);
		return cmd_usage("--top: only with --format=text (the records hold every point)");
	}
	if (cli_sweep(&cli, &sw, &err) != 0)
		status = cmd_fail(&err);
	else if (cli.fits && !may_have_model(&sw))
		status = cmd_usage("--fits: needs a model (--model), whose GPU memory it checks");
	else
		status = run_sweep(&cli, &sw);
	sweep_release(&sw);
	cli_release(&cli);
	return status;
}
