/*
 * `ppsim list [--format=FMT]`: the schedules, presets, batching policies and report formats,
 * written by the format registry's writer of the listing (src/report/list.c). The command has
 * no other option, so it reads --format itself rather than through the option tables.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/report.h"

int cmd_list(int argc, char **argv)
{
	const char *name = "text";
	const struct report_format *f;
	const struct cmd *self = cmd_of_fn(cmd_list);

	for (int i = 1; i < argc; i++) {
		const char *value;

		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			char names[64];

			fprintf(cmd_out(), "Usage: ppsim list [--format=FMT]\nList the schedules, presets and "
			       "report formats\n(FMT: %s; default text).\n",
			       report_format_names(REPORT_LIST, ", ", " or ", names,
			                           sizeof(names)));
			cmd_help_end(cmd_out(), self);
			return PP_EXIT_OK;
		}
		if ((value = cmd_format_arg(argc, argv, &i)) == NULL)
			return cmd_usage("list: unexpected argument '%s'", argv[i]);
		if (*value == '\0')
			return cmd_usage("option '%s' needs a value", argv[i]);
		name = value;
	}
	if ((f = report_format_find(name, REPORT_LIST)) == NULL)
		return cli_bad_format_of(self, name);
	return f->list(cmd_out()) == 0 ? PP_EXIT_OK : cmd_report_failed();
}
