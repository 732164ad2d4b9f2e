/*
 * `ppsim run`: build the config, simulate, write the report and the optional outputs. With
 * --samples its noise samples run too; --shard runs one contiguous run of them and
 * --shard-file keeps them with the settings that made them, which `ppsim merge` reads back
 * (cmd_samples_merge) into the report of the whole run through the same writers.
 */
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "cli.h"
#include "cmd.h"
#include "guard.h"
#include "merge.h"
#include "ppsim/outfile.h"
#include "ppsim/samples.h"
#include "ppsim/shard.h"
#include "ppsim/sim.h"
#include "ppsim/sweep.h"

/* Writes the samples of s to its --shard-file, opened with its head. Returns 0, or -1 with err. */
static int write_shard(const struct cli *cli, const struct sim *s, struct pp_error *err)
{
	const struct samples *x = s->samples;
	struct outfile *f = cli_open_shard(cli, &s->config, NULL, &samples_shard_codec, x->first,
	                                   x->first + x->n, s->config.samples, err);

	if (f == NULL)
		return -1;
	for (uint64_t j = 0; j < x->n; j++)
		shard_write_record(outfile_stream(f), &samples_shard_codec,
		                   &(struct sample_record){x->first + j, x->s[j]});
	shard_write_end(outfile_stream(f), x->n);
	/* kept, and put in place with the command's other outputs when it ends well */
	return guard_keep(f, err);
}

/* Writes s's outputs and report as cli asks; returns the exit status. */
static int report_run(const struct cli *cli, const struct sim *s)
{
	int status = cli_write_outputs(cli, s, NULL, NULL);

	if (status == PP_EXIT_OK && cli->format->write(cmd_out(), s) != 0)
		status = cmd_report_failed();
	if (status == PP_EXIT_OK && cli->timeline_width > 0) {
		fputc('\n', cmd_out());
		struct drawing d = sim_drawing(s);

		if (report_timeline_colored(cmd_out(), &d, cli->timeline_width, cli->color) != 0)
			status = cmd_report_failed();
	}
	return status;
}

/* Settles cli's config and simulates it into *s, checked as a run; 0 or -1 with err. */
static int simulate(const struct cli *cli, struct config *c, struct sim **s, struct pp_error *err)
{
	struct cli_need need;

	/* outputs the run cannot hold are refused before it runs */
	cli_need_init(&need, cli);
	*s = NULL;
	if (cli_config(cli, cli->config_file, c, err) != 0 || cli_need_config(&need, c, err) != 0)
		return -1;
	if (cli->samples_file != NULL && c->samples == 0)
		return pp_fail(err, PP_ERR_USAGE, "--samples-out: give --samples=N");
	for (int i = 0; cli->export_file != NULL && i < c->ndevice_order; i++)
		if (c->device_order[i] != i)
			return pp_fail(err, PP_ERR_USAGE,
			               "--export-schedule: a schedule file places its stages by loop or "
			               "V and cannot carry --device-order; export without it");
	if ((cli->nshards > 1 || cli->shard_file != NULL) && c->samples == 0)
		return pp_fail(err, PP_ERR_USAGE,
		               "%s: a run shards its noise samples: give --samples=N",
		               cli->nshards > 1 ? "--shard" : "--shard-file");
	if ((*s = cli_simulate(&need, c, err)) == NULL)
		return -1;
	return cli_check_memory(cli, *s, err);
}

int cmd_run(int argc, char **argv)
{
	struct cli cli;
	struct config c;
	struct pp_error err = {0};
	struct sim *s = NULL;
	uint64_t first = 0, last = 0;
	int status = cli_parse(argc, argv, CLI_RUN, &cli);

	if (status >= 0) {
		cli_release(&cli);
		return status;
	}
	/* a shard file keeps the config's text as it was read */
	if (cli.shard_file != NULL && cli.config_file != NULL &&
	    config_read_file(cli.config_file, &cli.config_text, &cli.config_len, &err) != 0)
		status = cmd_fail(&err);
	if (status < 0 && simulate(&cli, &c, &s, &err) == 0 && c.samples > 0)
		sweep_shard(c.samples, cli.shard, cli.nshards, &first, &last);
	if (status < 0 && (err.kind != PP_ERR_NONE ||
	                   (c.samples > 0 && sim_sample(s, first, last, cli.jobs, &err) != 0) ||
	                   (cli.shard_file != NULL && write_shard(&cli, s, &err) != 0)))
		status = cmd_fail(&err);
	if (status < 0)
		status = report_run(&cli, s);
	sim_free(s);
	cli_release(&cli);
	return status;
}

/* merge_records' emit: a sample read back into its place. */
static int take_record(void *ctx, const void *record)
{
	struct samples *x = ctx;
	const struct sample_record *r = record;

	x->s[r->index] = r->s;
	return 0;
}

/* Whether value, a shard's "timeline" entry, is one a run writes: empty (the default width), 0
 * or a width --timeline takes. */
static bool timeline_entry_ok(const char *value)
{
	uint64_t w;

	return value == NULL || *value == '\0' ||
	       (text_parse_uint(value, 0, PP_TIMELINE_MAX_WIDTH, &w) == TEXT_OK &&
	        (w == 0 || w >= PP_TIMELINE_MIN_WIDTH));
}

int cmd_samples_merge(const struct cli *mcli, const struct merge_shards *s)
{
	static const char *const names[] = {"format", "timeline", NULL};
	const struct shard_head *h = s->head;
	const struct report_format *f;
	const char *text = NULL, *values[2], *format, *timeline;
	char **words = pp_mallocarray(h->nrun + 3, sizeof(*words));
	char format_arg[64], timeline_arg[64];
	struct pp_error err = {0};
	struct config c;
	struct sim *run = NULL;
	struct cli cli;
	int n = 0, status;

	/* merge's options of a sweep's shards have nothing to act on here */
	if (mcli->top > 0 || mcli->records_file != NULL) {
		free(words);
		return cmd_usage("%s: a run's noise samples have no %s (merge writes %s for a "
		                 "sweep's shards)",
		                 mcli->top > 0 ? "--top" : "--records",
		                 mcli->top > 0 ? "ranked table" : "records of points",
		                 mcli->top > 0 ? "one" : "them");
	}
	if (words == NULL) {
		pp_nomem(&err, h->nrun + 3, sizeof(*words));
		return cmd_fail(&err);
	}
	words[0] = (char *)"run";
	if ((n = merge_settings(h, words, &text, names, values)) < 0 ||
	    !timeline_entry_ok(values[1])) {
		free(words);
		pp_fail(&err, PP_ERR_CONFIG, "shard '%s': a setting a run does not make",
		        s->paths[0]);
		return cmd_fail(&err);
	}
	/* merge's own --format and --timeline win; the shards' timeline goes with a text report */
	format = mcli->format_set ? mcli->format_name : values[0];
	format = format != NULL ? format : "text";
	timeline = values[1];
	snprintf(format_arg, sizeof(format_arg), "--format=%.40s", format);
	words[n++] = format_arg;
	f = report_format_find(format, REPORT_RUN);
	if (mcli->timeline_set)
		snprintf(timeline_arg, sizeof(timeline_arg), "--timeline=%d", mcli->timeline_width);
	else if (timeline != NULL && f != NULL && f->human)
		snprintf(timeline_arg, sizeof(timeline_arg), "--timeline%s%.20s",
		         *timeline != '\0' ? "=" : "", timeline);
	else
		timeline_arg[0] = '\0';
	if (timeline_arg[0] != '\0')
		words[n++] = timeline_arg;
	status = merge_parse(s, words, n, CLI_RUN, text, &cli);
	if (status < 0) {
		cli.samples_file = mcli->samples_file;
		cli.html_file = mcli->html_file;
		if (simulate(&cli, &c, &run, &err) != 0 ||
		    merge_check_input(s, c.schedule_file, &err) != 0) {
			status = cmd_fail(&err);
		} else if (c.samples != h->total) {
			pp_fail(&err, PP_ERR_CONFIG, "shard '%s': its settings make %llu samples, not %llu",
			        s->paths[0], (unsigned long long)c.samples,
			        (unsigned long long)h->total);
			status = cmd_fail(&err);
		} else if ((run->samples = pp_zalloc(1, sizeof(*run->samples), &err)) == NULL ||
		           (run->samples->s = pp_mallocarray(c.samples, sizeof(struct sample))) ==
		                   NULL) {
			if (err.kind == PP_ERR_NONE)
				pp_nomem(&err, c.samples, sizeof(struct sample));
			status = cmd_fail(&err);
		} else {
			*run->samples = (struct samples){.n = c.samples,
			                                 .seed = c.seed,
			                                 .s = run->samples->s,
			                                 .p = run->sched->p};
			status = merge_records(s, take_record, run->samples, &err) != 0 ||
			                         samples_settle(run->samples, &err) != 0
			                 ? cmd_fail(&err)
			                 : report_run(&cli, run);
		}
	}
	sim_free(run);
	cli_release(&cli);
	free(words);
	return status;
}
