/*
 * `ppsim list [--format=FMT]`: the schedules, presets, batching policies and report formats,
 * written by the format registry's writer of the listing (src/report/list.c). The command has
 * no other option, so it reads --format through cmd_getopt rather than the option tables.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/report.h"

static int take(void *ctx, int id, const char *opt, const char *value)
{
	(void)id;
	(void)opt;
	*(const char **)ctx = value;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct cmd_opt options[] = {{"format", 'f', true, 0}};
	const char *name = "text";
	const struct report_format *f;
	const struct cmd *self = cmd_of_fn(cmd_list);
	const char *operand;
	int status = cmd_getopt("list", argc, argv, options, 1, take, &name, 0, &operand);

	if (status == CMD_OPT_DONE)
		return PP_EXIT_OK;
	if (status == CMD_OPT_HELP) {
		char names[64];

		fprintf(cmd_out(),
		        "Usage: ppsim list [--format=FMT]\nList the schedules, presets and "
		        "report formats\n(FMT: %s; default text).\n",
		        report_format_names(REPORT_LIST, ", ", " or ", names, sizeof(names)));
		cmd_help_end(cmd_out(), self);
		return PP_EXIT_OK;
	}
	if (status != 0)
		return status;
	if ((f = report_format_find(name, REPORT_LIST)) == NULL)
		return cli_bad_format_of(self, name);
	return f->list(cmd_out()) == 0 ? PP_EXIT_OK : cmd_report_failed();
}
