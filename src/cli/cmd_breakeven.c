/*
 * `ppsim breakeven`: where interleaving stops paying. Simulates 1F1B and interleaved 1F1B for
 * each v of -v (default 1,2,4), on each link of --link and in each mode of --comm (default
 * both), at the shape the other options give, beside the source document's inequality, in
 * the --format the registry gives for a break-even table.
 */
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "cli.h"
#include "cmd.h"
#include "ppsim/advise.h"

/* The lists breakeven takes, and the base config with every other option. */
struct request {
	struct config base;
	int vs[64];
	int nv;
	const char *links[64];
	int nlinks;
	enum pp_comm comms[2];
	int ncomms;
};

/* Splits the command line's axes into the request. Returns -1 to go on, or the exit status. */
static int take_axes(const struct sweep *sw, struct request *q)
{
	struct pp_error err = {0};

	q->base = sw->base;
	q->vs[0] = 1;
	q->vs[1] = 2;
	q->vs[2] = 4;
	q->nv = 3;
	q->comms[0] = PP_COMM_OVERLAP;
	q->comms[1] = PP_COMM_BLOCKING;
	q->ncomms = 2;
	for (int i = 0; i < sw->naxes; i++) {
		const struct sweep_axis *a = &sw->axes[i];
		const char *key = a->opt->key;

		if (strcmp(key, "schedule") == 0 || strcmp(key, "schedule_file") == 0)
			return cmd_usage("%s: breakeven compares 1f1b with interleaved itself",
			                 a->label);
		if (strcmp(key, "v") != 0 && strcmp(key, "link") != 0 && strcmp(key, "comm") != 0) {
			if (a->nvalues > 1)
				return cmd_usage("%s: only -v, --link and --comm take lists here",
				                 a->label);
			if (config_set(&q->base, a->opt, a->label, a->values[0], &err) != 0)
				return cmd_fail(&err);
			continue;
		}
		if (a->nvalues > 64)
			return cmd_usage("%s: at most 64 values here", a->label);
		for (int k = 0; k < a->nvalues; k++) {
			long long v = 0;

			if (strcmp(key, "v") == 0) {
				/* the sweep keeps the canonical form of a value config_set took */
				bool ok = text_parse_int(a->values[k], INT_MIN, INT_MAX, &v) ==
				          TEXT_OK;

				assert(ok);
				(void)ok;
				q->vs[k] = (int)v;
			} else if (strcmp(key, "link") == 0)
				q->links[k] = a->values[k];
			else if (k < 2)
				q->comms[k] = strcmp(a->values[k], "overlap") == 0
				                      ? PP_COMM_OVERLAP
				                      : PP_COMM_BLOCKING;
		}
		if (strcmp(key, "v") == 0)
			q->nv = a->nvalues;
		else if (strcmp(key, "link") == 0)
			q->nlinks = a->nvalues;
		else if (a->nvalues > 2)
			return cmd_usage("%s: overlap, blocking or both", a->label);
		else
			q->ncomms = a->nvalues;
	}
	return -1;
}

/* Reads the request from sw's axes and prices each variant it names. */
static int breakeven_main(const struct cli *cli, struct sweep *sw)
{
	struct request *q = pp_calloc(1, sizeof(*q));
	struct breakeven_row *rows;
	struct pp_error err = {0};
	int n, status;

	if (q == NULL) {
		pp_nomem(&err, 1, sizeof(*q));
		status = cmd_fail(&err);
	} else {
		status = take_axes(sw, q);
	}
	/* after take_axes, whose refusal of --schedule says why */
	if (status < 0 && cli_check_sweep(cli, sw, &err) != 0)
		status = cmd_fail(&err);
	if (status < 0 && q->base.p < 2)
		status = cmd_usage("-p %d: breakeven needs at least 2 stages; with one there is no "
		                   "pipeline to interleave",
		                   q->base.p);
	if (status < 0) {
		n = (q->nlinks > 0 ? q->nlinks : 1) * q->ncomms * q->nv;
		rows = pp_calloc((size_t)n, sizeof(*rows));
		if (rows == NULL) {
			pp_nomem(&err, (size_t)n, sizeof(*rows));
			status = cmd_fail(&err);
		}
	}
	if (status < 0 && breakeven_run(&q->base, q->links, q->nlinks, q->comms, q->ncomms, q->vs,
	                                q->nv, rows, &err) != 0) {
		free(rows);
		status = cmd_fail(&err);
	}
	if (status < 0) {
		status = PP_EXIT_USAGE;
		for (int i = 0; i < n; i++)
			if (rows[i].ok)
				status = PP_EXIT_OK;
		if (status != PP_EXIT_OK) {
			cmd_error("%s", rows[0].reason);
		} else if (cli->format->breakeven(cmd_out(), rows, n) != 0) {
			status = cmd_report_failed();
		}
		free(rows);
	}
	free(q);
	return status;
}

int cmd_breakeven(int argc, char **argv)
{
	return cli_sweep_main(argc, argv, CLI_BREAKEVEN, breakeven_main);
}
