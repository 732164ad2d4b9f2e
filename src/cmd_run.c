/* `ppsim run`: build the config, simulate, write the report and the optional outputs. */
#include <stdlib.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/outfile.h"
#include "ppsim/schedfile.h"
#include "ppsim/sim.h"

/* What an output file of `run` needs: the simulation and, for the export, its format. */
struct run_output {
	const struct sim *sim;
	enum schedfile_format format;
};

static int write_ops(FILE *out, const void *ctx)
{
	return report_ops_csv(out, ((const struct run_output *)ctx)->sim);
}

static int write_export(FILE *out, const void *ctx)
{
	const struct run_output *o = ctx;

	return schedfile_write(out, o->sim->sched, o->format);
}

static int write_trace(FILE *out, const void *ctx)
{
	return report_trace(out, ((const struct run_output *)ctx)->sim);
}

static int write_svg(FILE *out, const void *ctx)
{
	struct report_row row = {"-", ((const struct run_output *)ctx)->sim};

	return report_svg(out, &row, 1);
}

/* Writes the output files asked for, stopping at the first that fails; returns the status. */
static int write_outputs(const struct cli *cli, const struct sim *s)
{
	struct run_output o = {s, cli->export_format};
	int status = PP_EXIT_OK;

	if (cli->dump_ops != NULL)
		status = cli_write_file(cli->dump_ops, write_ops, &o);
	if (status == PP_EXIT_OK && cli->export_file != NULL)
		status = cli_write_file(cli->export_file, write_export, &o);
	if (status == PP_EXIT_OK && cli->trace_file != NULL)
		status = cli_write_file(cli->trace_file, write_trace, &o);
	if (status == PP_EXIT_OK && cli->svg_file != NULL)
		status = cli_write_file(cli->svg_file, write_svg, &o);
	return status;
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
	if (cli_config(&cli, cli.config_file, &c, &err) != 0 ||
	    (s = sim_run_flags(&c, cli.trace_file || cli.svg_file ? SIM_RECORD_MESSAGES : 0,
	                       &err)) == NULL) {
		cli_release(&cli);
		return cmd_fail(&err);
	}
	if (cli_check_memory(&cli, s, &err) != 0) {
		sim_free(s);
		cli_release(&cli);
		return cmd_fail(&err);
	}
	status = write_outputs(&cli, s);
	if (status == PP_EXIT_OK && cli.format->write(stdout, s) != 0) {
		pp_fail(&err, PP_ERR_IO, "out of memory building the report");
		status = cmd_fail(&err);
	}
	if (status == PP_EXIT_OK && cli.timeline_width > 0) {
		fputc('\n', stdout);
		report_timeline_colored(stdout, s, cli.timeline_width, cli.color);
	}
	sim_free(s);
	cli_release(&cli);
	return status;
}
