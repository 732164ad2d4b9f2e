/* CUnit runner: registers every suite from one table; the exit status counts failures. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

static const struct unit_suite *const suites[] = {
        &suite_util,      &suite_numfmt,    &suite_evq,       &suite_config, &suite_layout, &suite_preset,         &suite_sched,
        &suite_schedfile, &suite_cost,      &suite_engine, &suite_critical, &suite_metrics,        &suite_report,
        &suite_outfile,   &suite_sim,       &suite_sweep,  &suite_partition, &suite_serve_workload, &suite_serve,
        &suite_text,      &suite_calibrate, &suite_measured, &suite_api, &suite_api_replay,
        &suite_samples,   &suite_shard,
};

int main(int argc, char **argv)
{
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		CU_pSuite s;

		/* an optional argument runs only the suite of that name */
		if (argc > 1 && strcmp(argv[1], suites[i]->name) != 0)
			continue;
		s = CU_add_suite(suites[i]->name, NULL, NULL);
		if (s == NULL)
			return 2;
		for (const struct unit_test *t = suites[i]->tests; t->name != NULL; t++)
			if (CU_add_test(s, t->name, t->fn) == NULL)
				return 2;
	}
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	if (failures > 0)
		fprintf(stderr, "unit tests: %u failures\n", failures);
	return failures > 0 ? 1 : 0;
}
