/*
 * The facade of libppsim (include/ppsim/ppsim.h) through every call a program makes, for
 * t_nomem.sh to run with each allocation failing in turn (tests/tools/failalloc.c): a config
 * set by keys and by JSON, two runs, their reports in each format, their ops, a comparison and
 * the listing. Prints "ok" and exits 0 when every call succeeded; else prints the first error
 * ("error: MESSAGE") and exits 1, having freed what it holds.
 */
#include <stdio.h>
#include <string.h>

#include "ppsim/ppsim.h"

/* The first error seen, kept for the end. */
static char first[512];

static void note(const char *what, const char *err)
{
	if (first[0] == '\0')
		snprintf(first, sizeof(first), "%s: %s", what, err[0] != '\0' ? err : "(no message)");
}

int main(void)
{
	char err[256] = "";
	pp_config *c = pp_config_new(), *d = NULL;
	pp_run *runs[2] = {NULL, NULL};
	static const char *const formats[] = {"json", "text", "csv"};
	static const char *const labels[] = {"a", "b"};
	char *s;

	if (c == NULL) {
		puts("error: pp_config_new: out of memory");
		return 1;
	}
	if (pp_config_set(c, "schedule", "zbh1", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "p", "4", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "stages", "4", err, sizeof(err)) != 0 ||
	    pp_config_load_json(c, "{\"m\": 8, \"t_comm\": 0.25}", "cfg", err, sizeof(err)) != 0)
		note("config", err);
	else if ((d = pp_config_copy(c)) == NULL)
		note("pp_config_copy", "out of memory");
	else if (pp_config_set(d, "schedule", "dualpipev", err, sizeof(err)) != 0)
		note("config", err);
	if (first[0] == '\0' && (runs[0] = pp_simulate(c, err, sizeof(err))) == NULL)
		note("pp_simulate", err);
	if (first[0] == '\0' && (runs[1] = pp_simulate(d, err, sizeof(err))) == NULL)
		note("pp_simulate", err);
	for (int i = 0; first[0] == '\0' && i < 3; i++) {
		if ((s = pp_run_report(runs[i % 2], formats[i], err, sizeof(err))) == NULL)
			note("pp_run_report", err);
		pp_string_free(s);
	}
	if (first[0] == '\0') {
		if ((s = pp_run_ops_csv(runs[0], err, sizeof(err))) == NULL)
			note("pp_run_ops_csv", err);
		pp_string_free(s);
	}
	if (first[0] == '\0') {
		if ((s = pp_compare_report((const pp_run *const *)runs, labels, 2, "text", err,
		                           sizeof(err))) == NULL)
			note("pp_compare_report", err);
		pp_string_free(s);
	}
	if (first[0] == '\0') {
		if ((s = pp_list("json", err, sizeof(err))) == NULL)
			note("pp_list", err);
		pp_string_free(s);
	}
	pp_run_free(runs[0]);
	pp_run_free(runs[1]);
	pp_config_free(c);
	pp_config_free(d);
	if (first[0] != '\0') {
		printf("error: %s\n", first);
		return 1;
	}
	puts("ok");
	return 0;
}
