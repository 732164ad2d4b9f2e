/* `ppsim run`: build the config, simulate, write the report and the optional outputs. */
#include <stdlib.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/samples.h"
#include "ppsim/sim.h"

int cmd_run(int argc, char **argv)
{
	struct cli cli;
	struct config c;
	struct pp_error err = {0};
	struct cli_need need;
	struct sim *s;
	int status = cli_parse(argc, argv, CLI_RUN, &cli);

	if (status >= 0) {
		cli_release(&cli);
		return status;
	}
	/* outputs the run cannot hold are refused before it runs */
	cli_need_init(&need, &cli);
	if (cli_config(&cli, cli.config_file, &c, &err) != 0 ||
	    cli_need_config(&need, &c, &err) != 0 ||
	    (cli.samples_file != NULL && c.samples == 0 &&
	     pp_fail(&err, PP_ERR_USAGE, "--samples-out: give --samples=N") != 0) ||
	    (s = cli_simulate(&need, &c, &err)) == NULL) {
		cli_release(&cli);
		return cmd_fail(&err);
	}
	if (cli_check_memory(&cli, s, &err) != 0 ||
	    (c.samples > 0 && sim_sample(s, 0, c.samples, cli.jobs, &err) != 0)) {
		sim_free(s);
		cli_release(&cli);
		return cmd_fail(&err);
	}
	status = cli_write_outputs(&cli, s, NULL, NULL);
	if (status == PP_EXIT_OK && cli.format->write(cmd_out(), s) != 0) {
		status = cmd_report_failed();
	}
	if (status == PP_EXIT_OK && cli.timeline_width > 0) {
		fputc('\n', cmd_out());
		if (report_timeline_colored(cmd_out(), s, cli.timeline_width, cli.color) != 0)
			status = cmd_report_failed();
	}
	sim_free(s);
	cli_release(&cli);
	return status;
}
