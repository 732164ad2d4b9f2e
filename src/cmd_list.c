/* `ppsim list`: the schedules and report formats, generated from their tables. */
#include <string.h>

#include "cmd.h"
#include "ppsim/report.h"
#include "ppsim/sched.h"

int cmd_list(int argc, char **argv)
{
	size_t n;
	const struct sched_desc *sd;
	const struct report_format *rf;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		puts("Usage: ppsim list\nList the schedules and report formats.");
		return PP_EXIT_OK;
	}
	if (argc > 1)
		return cmd_usage("list: unexpected argument '%s'", argv[1]);
	puts("Schedules (--schedule):");
	sd = sched_table(&n);
	for (size_t i = 0; i < n; i++)
		printf("  %-12s %s\n", sd[i].name, sd[i].summary);
	puts("\nReport formats (--format):");
	rf = report_formats(&n);
	for (size_t i = 0; i < n; i++)
		printf("  %-12s %s\n", rf[i].name, rf[i].summary);
	return PP_EXIT_OK;
}
