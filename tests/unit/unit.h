/* Shared declarations of the CUnit suites: each tests/unit/test_MODULE.c defines one suite. */
#ifndef PPSIM_TESTS_UNIT_H
#define PPSIM_TESTS_UNIT_H

#include <CUnit/CUnit.h>

/* A test: its sentence-like name and function. */
struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* A table row for the test function fn, named after it. */
/* clang-format off */
#define UNIT_TEST(fn) {#fn, fn}
/* clang-format on */

/* A suite: the module it covers and its tests, ending with {NULL, NULL}. */
struct unit_suite {
	const char *name;
	const struct unit_test *tests;
};

extern const struct unit_suite suite_util;
extern const struct unit_suite suite_config;
extern const struct unit_suite suite_preset;
extern const struct unit_suite suite_sched;
extern const struct unit_suite suite_schedfile;
extern const struct unit_suite suite_cost;
extern const struct unit_suite suite_engine;
extern const struct unit_suite suite_metrics;
extern const struct unit_suite suite_report;
extern const struct unit_suite suite_outfile;

struct sim;
/* Simulates schedule with p devices, m micro-batches and message time t_comm at otherwise
 * default settings; asserts (fatally) that it succeeds. Free with sim_free. */
struct sim *unit_simulate(const char *schedule, int p, int m, double t_comm);

/* Asserts that two doubles differ by at most 1e-9. */
#define ASSERT_NEAR(actual, expected) CU_ASSERT_DOUBLE_EQUAL((actual), (expected), 1e-9)

#endif
