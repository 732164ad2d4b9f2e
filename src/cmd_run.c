/* `ppsim run`: build the config, simulate, write the report and the optional outputs. */
#include <stdlib.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/outfile.h"
#include "ppsim/schedfile.h"
#include "ppsim/sim.h"

/* Writes an output file all-or-nothing: the op dump (export NULL) or the exported order. */
static int write_file(const char *path, const struct sim *s, const struct cli *export)
{
	struct pp_error err = {0};
	struct outfile *f = outfile_open(path, &err);

	if (f == NULL)
		return cmd_fail(&err);
	if (export != NULL)
		schedfile_write(outfile_stream(f), s->sched, export->export_format);
	else
		report_ops_csv(outfile_stream(f), s);
	if (outfile_commit(f, &err) != 0)
		return cmd_fail(&err);
	return PP_EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
	struct cli cli;
	struct config c;
	struct pp_error err = {0};
	struct sim *s;
	int status = cli_parse(argc, argv, CLI_RUN, &cli);

	if (status >= 0) {
		cli_release(&cli);
		return status;
	}
	if (cli_config(&cli, cli.config_file, &c, &err) != 0 || (s = sim_run(&c, &err)) == NULL) {
		cli_release(&cli);
		return cmd_fail(&err);
	}
	if (cli_check_memory(&cli, s, &err) != 0) {
		sim_free(s);
		cli_release(&cli);
		return cmd_fail(&err);
	}
	status = cli.dump_ops != NULL ? write_file(cli.dump_ops, s, NULL) : PP_EXIT_OK;
	if (status == PP_EXIT_OK && cli.export_file != NULL)
		status = write_file(cli.export_file, s, &cli);
	if (status == PP_EXIT_OK && cli.format->write(stdout, s) != 0) {
		pp_fail(&err, PP_ERR_IO, "out of memory building the report");
		status = cmd_fail(&err);
	}
	if (status == PP_EXIT_OK && cli.timeline_width > 0) {
		fputc('\n', stdout);
		report_timeline(stdout, s, cli.timeline_width);
	}
	sim_free(s);
	cli_release(&cli);
	return status;
}
