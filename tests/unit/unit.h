/* Shared declarations of the CUnit suites: each tests/unit/test_MODULE.c defines one suite. */
#ifndef PPSIM_TESTS_UNIT_H
#define PPSIM_TESTS_UNIT_H

#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stddef.h>

#include "ppsim/sched.h"

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
extern const struct unit_suite suite_numfmt;
extern const struct unit_suite suite_text;
extern const struct unit_suite suite_evq;
extern const struct unit_suite suite_config;
extern const struct unit_suite suite_layout;
extern const struct unit_suite suite_preset;
extern const struct unit_suite suite_sched;
extern const struct unit_suite suite_schedfile;
extern const struct unit_suite suite_calibrate;
extern const struct unit_suite suite_measured;
extern const struct unit_suite suite_cost;
extern const struct unit_suite suite_engine;
extern const struct unit_suite suite_critical;
extern const struct unit_suite suite_metrics;
extern const struct unit_suite suite_report;
extern const struct unit_suite suite_outfile;
extern const struct unit_suite suite_sim;
extern const struct unit_suite suite_sweep;
extern const struct unit_suite suite_partition;
extern const struct unit_suite suite_shard;
extern const struct unit_suite suite_serve_workload;
extern const struct unit_suite suite_serve;
extern const struct unit_suite suite_api;
extern const struct unit_suite suite_api_replay;
extern const struct unit_suite suite_samples;

/* A zeroed array of count elements of size bytes, freed with free(); fails the test (fatally)
 * when memory runs out. */
void *unit_calloc(size_t count, size_t size);

struct sim;
struct config;
/* Simulates schedule with p devices, m micro-batches and message time t_comm at otherwise
 * default settings; asserts (fatally) that it succeeds. Free with sim_free. */
struct sim *unit_simulate(const char *schedule, int p, int m, double t_comm);

/* What the writers read of sim s (sim_drawing), as a pointer for a call's argument. */
#define UNIT_DRAWING(s) (&(const struct drawing[1]){sim_drawing(s)}[0])
/* The defaults with this schedule, shape and device op times. */
struct config unit_config(const char *schedule, int p, int v, int m, double t_f, double t_b,
                          double t_w);
/* Simulates c with sim_run_flags' flags; prints the error and fails (fatally) if it fails. */
struct sim *unit_run(const struct config *c, unsigned flags);
/* Sets option key (a config-file key) of c as the command line would ("--NAME"); the value
 * must pass. */
void unit_set(struct config *c, const char *key, const char *value);

/*
 * Fills s, made by sched_new for a priced generator, from the op times t_f, t_b and t_w (units)
 * on every stage, message time comm[j] across boundary j (NULL: free messages), W freeing half
 * of each stage's activations and an activation limit of limit micro-batches; times become
 * PP_TICK_BASE ticks a unit, as explicit costs do.
 */
void unit_price(struct sched *s, double t_f, double t_b, double t_w, const double *comm,
                double limit);

/* The zb-auto and zbv-auto generators as they were before their passes ran on threads with
 * shared arrays (tests/unit/oracle_zbauto.c, oracle_zbvauto.c): the oracles of the tests that
 * the library's give the same op lists. Called as struct sched_fns' generate_priced. */
int unit_zb_auto_oracle(struct sched *s, const struct sched_prices *pr, struct pp_error *err);
int unit_zbv_auto_oracle(struct sched *s, const struct sched_prices *pr, struct pp_error *err);

/*
 * Parses one rank's row of a PyTorch compute-only CSV ("0F0,,7I0,(0F7;7B3)OVERLAP_F_B", letters
 * F, I = B, W, B = BW; empty cells skipped) into out (at most max ops), the F of an overlapped
 * pair flagged OP_OVERLAP; returns how many ops. Fails the test (fatally) on a malformed row.
 */
size_t unit_torch_ops(const char *row, struct op *out, size_t max);
/* True when device d of s runs exactly the n ops of want, in order, with the same flags. */
bool unit_device_is(const struct sched *s, int d, const struct op *want, size_t n);
/* True when a and b have the same devices running the same ops in the same order. */
bool unit_same_ops(const struct sched *a, const struct sched *b);

/* Asserts that two doubles differ by at most 1e-9. */
#define ASSERT_NEAR(actual, expected) CU_ASSERT_DOUBLE_EQUAL((actual), (expected), 1e-9)

#endif
