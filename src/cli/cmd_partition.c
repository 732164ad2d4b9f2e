/*
 * `ppsim partition`: the layers of each virtual stage and each stage's recomputation that give
 * the shortest simulated step that fits GPU memory, for the model, cluster and schedule the
 * options give (src/search/partition.c), with the runner-up and why, in the --format the
 * registry gives for a partition. The settings that give what it searches for (each stage's
 * layers or recomputation) are refused: it would not use them.
 */
#include <stdlib.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/partition.h"

/* The settings (config keys) that give what partition searches for, which it refuses. */
static const struct {
	const char *key;
	const char *what;  /* what partition searches that the setting gives */
	const char *price; /* what ppsim run would price with it */
	const char *hint;  /* what to give partition instead, or "" */
} searched[] = {
        {"layers_per_stage", "each stage's layers", "that split", ""},
        {"first_stage_layers", "each stage's layers", "that split", ""},
        {"last_stage_layers", "each stage's layers", "that split", ""},
        {"layout", "each stage's layers", "that layout", ""},
        {"stage_recompute", "each stage's recomputation", "that recomputation",
         " (--recompute keeps one on every stage)"},
};

/* Refuses a setting of c that gives what partition searches for; 0, or -1 with err. */
static int check_searched(const struct config *c, struct pp_error *err)
{
	for (size_t i = 0; i < sizeof(searched) / sizeof(searched[0]); i++)
		if (config_is_set(c, searched[i].key))
			return config_fail(c, searched[i].key, err,
			                   "partition searches %s and would not use it: leave it "
			                   "out%s, or price %s with ppsim run and the same options",
			                   searched[i].what, searched[i].hint, searched[i].price);
	return 0;
}

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
	           check_searched(c, &err) != 0 ||
	           partition_search(c, cli.jobs, 0, &found, &err) != 0)
		status = cmd_fail(&err);
	else if (!found.best.set) {
		cmd_error("partition: no placement of the %d layers over the %d stages fits GPU "
		          "memory%s; try more GPUs, --tp, --distributed-optimizer=yes or a smaller "
		          "--mbs",
		          found.layers, found.S,
		          found.recompute_free ? ", even with full recomputation" : "");
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
