/*
 * `ppsim serve`: simulates an inference pipeline serving requests (a trace file, or generated)
 * under a batching policy, and reports latencies, throughput and bubbles in the --format the
 * registry gives for a serving run.
 */
#include "cli.h"
#include "cmd.h"
#include "ppsim/serve.h"
#include "progress.h"

/* The progress line of a serving run, started once it knows how many requests there are. */
struct serve_watch {
	struct progress pg;
	bool show;    /* asked for (not --quiet) */
	bool started; /* pg started */
};

/* serve_progress's fn: the progress line, started when the requests' total is known (done 0)
 * and moved on as they finish. */
static void show_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct serve_watch *w = ctx;

	if (!w->started)
		progress_start(&w->pg, w->show, "serve", "requests", total);
	else
		progress_at(&w->pg, done);
	w->started = true;
}

struct serve_run *cmd_serve_config(const struct config *c, unsigned flags, uint64_t max_steps,
                                   bool show, struct pp_error *err)
{
	struct serve_watch w = {.show = show};
	struct serve_run *r = serve_run_config(c, flags, max_steps,
	                                       &(struct serve_progress){show_progress, &w}, err);

	if (w.started)
		progress_end(&w.pg);
	return r;
}

static int write_requests(FILE *out, const void *ctx)
{
	return report_serve_requests(out, ctx);
}

int cmd_serve(int argc, char **argv)
{
	struct cli cli;
	struct config c;
	struct pp_error err = {0};
	struct serve_run *r;
	struct serve_metrics m;
	int status = cli_parse(argc, argv, CLI_SERVE, &cli);

	if (status >= 0) {
		cli_release(&cli);
		return status;
	}
	/* a run of more steps than its outputs can hold stops there, not after it */
	if (cli_config(&cli, cli.config_file, &c, &err) != 0 ||
	    (r = cmd_serve_config(&c, cli_serve_flags(&cli), cli_serve_steps(&cli, &c, 1),
	                          !cli.quiet, &err)) == NULL) {
		cli_release(&cli);
		return cmd_fail(&err);
	}
	if (serve_metrics_init(&m, r, &err) != 0) {
		serve_metrics_release(&m);
		serve_free(r);
		cli_release(&cli);
		return cmd_fail(&err);
	}
	status = cli_write_outputs(
	        &cli, NULL, r,
	        &(struct cli_output){cli.requests_file, write_requests, r, false});
	if (status == PP_EXIT_OK && cli.format->serve(cmd_out(), r, &m) != 0) {
		status = cmd_report_failed();
	}
	if (status == PP_EXIT_OK && cli.timeline_width > 0) {
		fputc('\n', cmd_out());
		struct drawing d = serve_drawing(r);

		if (report_timeline_colored(cmd_out(), &d, cli.timeline_width, cli.color) != 0)
			status = cmd_report_failed();
	}
	serve_metrics_release(&m);
	serve_free(r);
	cli_release(&cli);
	return status;
}
