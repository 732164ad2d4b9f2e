/*
 * `ppsim replay [OPTIONS] MEASURED...`: reads a measured step (a profiler trace, one per device
 * or one for all, or a CSV of op times; config/measured.c), simulates it again with its own op
 * order and op times, and, asked for a what-if, what it would have taken otherwise: without its
 * slowest device (--without-slowest: that device's ops at the others' times, the order kept),
 * or with another schedule, more micro-batches or more chunks (-s, -m, -v: costs fitted to the
 * measured op times as `ppsim calibrate` fits them). The replay and its what-ifs are the
 * library's (sim/replay.c, as pp_replay_whatif runs them); this file parses, checks the outputs
 * and reports. It writes the report of the last run, then the measured step against the replay
 * and the what-if; the run's outputs (--trace, --dump-ops, ...) are the last run's too.
 */
#include <stdlib.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/replay.h"

static bool replay_option(const struct config_option *o)
{
	return !replay_whatif_option(o);
}

/* Checks that the outputs cli asks for can hold x's runs: 0, or -1 with err set. */
static int check_outputs(const struct cli *cli, const struct replay *x, struct pp_error *err)
{
	struct cli_need need;
	struct sim_size z;

	cli_need_init(&need, cli);
	if (x->shape)
		return cli_need_config(&need, &x->whatif_config, err);
	z = replay_size(x);
	return cli_need_add(&need, &x->replay_config, &z, err);
}

int cmd_replay(int argc, char **argv)
{
	struct cli cli;
	struct config *r = NULL, *w = NULL;
	struct pp_error err = {0};
	struct replay *x = NULL;
	const struct sim *last;
	int status = cli_parse(argc, argv, CLI_REPLAY, &cli);

	if (status >= 0) {
		cli_release(&cli);
		return status;
	}
	if (cli.nfiles == 0) {
		cli_release(&cli);
		return cmd_usage(
		        "replay: needs the MEASURED step: a trace, a trace per device, or a "
		        "CSV of op times");
	}
	r = pp_malloc(sizeof(*r));
	w = pp_malloc(sizeof(*w));
	if (r == NULL || w == NULL)
		pp_nomem(&err, 2, sizeof(*r));
	if (err.kind != PP_ERR_NONE || cli_config_taking(&cli, NULL, replay_option, r, &err) != 0 ||
	    cli_config(&cli, NULL, w, &err) != 0 ||
	    (x = replay_new((const char *const *)cli.files, cli.nfiles, r, w,
	                    &(struct replay_ask){cli.without_slowest, cli.w_share}, &err)) ==
	            NULL ||
	    check_outputs(&cli, x, &err) != 0 || replay_run(x, cli_sim_flags(&cli), &err) != 0) {
		status = cmd_fail(&err);
		goto done;
	}
	last = replay_last(x);
	status = cli_write_outputs(&cli, last, NULL, NULL);
	if (status == PP_EXIT_OK && cli.format->replay(cmd_out(), x) != 0)
		status = cmd_report_failed();
	if (status == PP_EXIT_OK && cli.timeline_width > 0) {
		fputc('\n', cmd_out());
		struct drawing d = sim_drawing(last);

		if (report_timeline_colored(cmd_out(), &d, cli.timeline_width, cli.color) != 0)
			status = cmd_report_failed();
	}
done:
	replay_free(x);
	free(r);
	free(w);
	cli_release(&cli);
	return status;
}
