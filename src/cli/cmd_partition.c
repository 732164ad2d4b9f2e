/*
 * `ppsim partition`: the layers of each virtual stage and each stage's recomputation that give
 * the shortest simulated step that fits GPU memory, for the model, cluster and schedule the
 * options give (src/search/partition.c), with the runner-up and why, in the --format the
 * registry gives for a partition. The settings that give what it searches for (each stage's
 * layers or recomputation) are not among its options (config_table.c): it would not use them.
 */
#include <stdlib.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/partition.h"

int cmd_partition(int argc, char **argv)
{
	struct cli cli;
	struct config *c = NULL;
	struct pp_error err = {0};
	struct partition found = {0};
	int status = cli_parse(argc, argv, CLI_PARTITION, &cli);

	if (status >= 0) {
		cli_release(&cli);
		return status;
	}
	c = pp_malloc(sizeof(*c));
	if (c == NULL) {
		pp_nomem(&err, 1, sizeof(*c));
		status = cmd_fail(&err);
	} else if (cli_config(&cli, cli.config_file, c, &err) != 0 ||
	           partition_search(c, cli.jobs, 0, &found, &err) != 0)
		status = cmd_fail(&err);
	else if (!found.best.set) {
		char levers[160];

		cmd_memory_levers(levers, sizeof(levers), c, false, !found.recompute_free);
		cmd_error("partition: no placement of the %d layers over the %d stages fits GPU "
		          "memory%s; try %s",
		          found.layers, found.S,
		          found.recompute_free ? ", even with full recomputation" : "", levers);
		status = PP_EXIT_SIM;
	} else {
		struct report_partition r = {c, &found, c->model};

		status = cli.format->partition(cmd_out(), &r) != 0 ? cmd_report_failed()
		                                                   : PP_EXIT_OK;
	}
	partition_release(&found);
	free(c);
	cli_release(&cli);
	return status;
}
