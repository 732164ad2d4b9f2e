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

/* The value of argv[*i] when it is --format=NAME, -f NAME or --format NAME (moving *i past
 * NAME), else NULL. */
static const char *format_arg(int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	if (strncmp(a, "--format=", 9) == 0)
		return a + 9;
	if ((strcmp(a, "-f") == 0 || strcmp(a, "--format") == 0) && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

int cmd_list(int argc, char **argv)
{
	const char *name = "text";
	const struct report_format *f;
	size_t n;
	const struct cmd *table = cmd_table(&n), *self = table;

	for (int i = 1; i < argc; i++) {
		const char *value;

		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			char names[64];

			printf("Usage: ppsim list [--format=FMT]\nList the schedules, presets and "
			       "report formats\n(FMT: %s; default text).\n",
			       report_format_names(REPORT_LIST, ", ", " or ", names,
			                           sizeof(names)));
			return PP_EXIT_OK;
		}
		if ((value = format_arg(argc, argv, &i)) == NULL)
			return cmd_usage("list: unexpected argument '%s'", argv[i]);
		name = value;
	}
	while (self < table + n && self->fn != cmd_list)
		self++;
	if ((f = report_format_find(name, REPORT_LIST)) == NULL)
		return cli_bad_format_of(self, name);
	return f->list(stdout) == 0 ? PP_EXIT_OK : cmd_report_failed();
}
