/* Unit tests of calibrate.c: reading measured times (CSV, Megatron-LM logs) and fitting them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppsim/calibrate.h"
#include "ppsim/config.h"
#include "unit.h"

/* Writes text to a file in a fresh temporary directory, reads it with calib_read (m
 * micro-batches) into k, removes both, and returns calib_read's status. */
static int read_text(const char *text, int m, struct calibration *k, struct pp_error *err)
{
	char dir[] = "/tmp/ppsim-unit-XXXXXX", path[128];
	FILE *out;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.csv", dir);
	out = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(fputs(text, out) >= 0, 1);
	CU_ASSERT_EQUAL(fclose(out), 0);
	rc = calib_read(path, m, k, err);
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	return rc;
}

/* The message of err after "calibration '/tmp/ppsim-unit-XXXXXX/t.csv'". */
static const char *after_path(const struct pp_error *err)
{
	const char *p = strstr(err->msg, "t.csv'");

	return p != NULL ? p + 6 : err->msg;
}

static void calib_read_takes_each_stage_s_mean_per_op_in_any_column_order(void)
{
	struct calibration k;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(read_text("# measured\nop,ms,note,stage\nF,2,a,0\nF,4,b,0\n"
	                                "b,3,,0\nW,1.5,,0\nF,5,,1\nBW,7,,1\ncomm,0.25,,0\n"
	                                "\nCOMM,0.75,,1\n",
	                                0, &k, &err),
	                      0);
	CU_ASSERT_EQUAL(k.format, CALIB_CSV);
	CU_ASSERT_EQUAL(k.p, 2);
	ASSERT_NEAR(k.f[0], 3);
	ASSERT_NEAR(k.b[0], 3);
	ASSERT_NEAR(k.w[0], 1.5);
	CU_ASSERT_TRUE(isnan(k.bw[0]));
	ASSERT_NEAR(k.f[1], 5);
	CU_ASSERT_TRUE(isnan(k.b[1]) && isnan(k.w[1]));
	ASSERT_NEAR(k.bw[1], 7);
	ASSERT_NEAR(k.comm, 0.5);
	calib_release(&k);
}

static void calib_read_rejects_bad_lines_naming_line_and_column(void)
{
	static const struct {
		const char *text, *want;
		int line, column;
	} bad[] = {
	        {"stage,op,ms\n0,X,1\n", ":2:3: unknown op 'X' (F, B, W, BW or comm)", 2, 3},
	        {"stage,op,ms\n-1,F,1\n", ":2:1: the stage must be a whole number", 2, 1},
	        {"stage,op,ms\n0,F,0\n", ":2:5: the time must be a number of ms above 0", 2, 5},
	        {"stage,op,ms\n0,F,0x10\n", ":2:5: the time must be", 2, 5},
	        {"stage,op,ms\n0,F\n", ":2:1: has a different number of fields", 2, 1},
	        {"stage,op,ms\n1,F,1\n", ": stage 0 has no forward (F) time", 0, 0},
	        {"stage,op,ms\n0,B,1\n", ": stage 0 has no forward (F) time", 0, 0},
	        {"stage,op,ms\n", ": no measured times", 0, 0},
	        {"hello\nworld\n", ": neither a CSV with columns stage, op and ms nor", 0, 0},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct calibration k;
		struct pp_error err = {0};

		CU_ASSERT_EQUAL(read_text(bad[i].text, 0, &k, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
		CU_ASSERT_EQUAL(strncmp(after_path(&err), bad[i].want, strlen(bad[i].want)), 0);
		if (strncmp(after_path(&err), bad[i].want, strlen(bad[i].want)) != 0)
			fprintf(stderr, "\n%s\n", err.msg);
		CU_ASSERT_EQUAL(err.line, bad[i].line);
		CU_ASSERT_EQUAL(err.column, bad[i].column);
	}
}

/* Two logged iterations: the first (warm-up) is left out; the times are per micro-batch. */
static const char megatron_log[] =
        " iteration        1/     100 | elapsed time per iteration (ms): 2957.0\n"
        "(min, max) time across ranks (ms):\n"
        "    forward-backward ...............................: (2609.39, 2609.09)\n"
        "    forward-compute ................................: (900.00, 1000.00)\n"
        "    backward-compute ...............................: (1900.00, 2100.00)\n"
        " iteration        2/     100 | elapsed time per iteration (ms): 2957.0\n"
        "(min, max) time across ranks (ms):\n"
        "    forward-compute ................................: (700.00, 800.00)\n"
        "    backward-compute ...............................: (1500.00, 1600.00)\n"
        " iteration        3/     100 | elapsed time per iteration (ms): 2957.0\n"
        "max time across ranks (ms):\n"
        "    forward-compute ................................: 820.00\n"
        "    backward-compute ...............................: 1640.00\n";

static void calib_read_takes_a_megatron_log_s_slowest_rank_per_micro_batch_after_warm_up(void)
{
	struct calibration k;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(read_text(megatron_log, 8, &k, &err), 0);
	CU_ASSERT_EQUAL(k.format, CALIB_MEGATRON);
	CU_ASSERT_EQUAL(k.p, 1);
	ASSERT_NEAR(k.f[0], (800 + 820) / 2.0 / 8);
	ASSERT_NEAR(k.bw[0], (1600 + 1640) / 2.0 / 8);
	CU_ASSERT_TRUE(isnan(k.b[0]) && isnan(k.w[0]) && isnan(k.comm));
	calib_release(&k);
	/* a log that opens with a timer block ("(min, max)" holds a comma, as a CSV line would) */
	CU_ASSERT_EQUAL_FATAL(read_text(strchr(megatron_log, '\n') + 1, 8, &k, &err), 0);
	CU_ASSERT_EQUAL(k.format, CALIB_MEGATRON);
	ASSERT_NEAR(k.f[0], (800 + 820) / 2.0 / 8);
	calib_release(&k);
	/* without m the totals cannot be divided */
	CU_ASSERT_EQUAL(read_text(megatron_log, 0, &k, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "give its micro-batches with -m N"));
}

static void calib_fit_averages_the_stages_and_scales_each_by_its_total(void)
{
	double f[] = {1, 2}, b[] = {1, 2}, w[] = {2, 4}, bw[] = {NAN, NAN};
	struct calibration k = {CALIB_CSV, 2, f, b, w, bw, 0.5};
	struct calib_fit fit;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(calib_fit(&k, -1, &fit, &err), 0);
	ASSERT_NEAR(fit.t_f, 1.5);
	ASSERT_NEAR(fit.t_b, 1.5);
	ASSERT_NEAR(fit.t_w, 3);
	ASSERT_NEAR(fit.t_comm, 0.5);
	/* stage 0 totals 4, stage 1 totals 8, their mean 6: every op is fitted exactly */
	ASSERT_NEAR(fit.scale[0], 4.0 / 6);
	ASSERT_NEAR(fit.scale[1], 8.0 / 6);
	CU_ASSERT_FALSE(fit.uniform);
	CU_ASSERT_TRUE(fit.max_error < 1e-12);
	calib_fit_release(&fit);
	/* stage 1 with F twice as long but the same backward: one scale cannot fit it */
	f[1] = 2;
	b[1] = 1;
	w[1] = 2;
	CU_ASSERT_EQUAL_FATAL(calib_fit(&k, -1, &fit, &err), 0);
	CU_ASSERT_TRUE(fit.max_error > 0.1);
	calib_fit_release(&fit);
}

static void calib_fit_splits_a_fused_backward_by_the_w_share_given(void)
{
	double f[] = {2}, b[] = {NAN}, w[] = {NAN}, bw[] = {5};
	struct calibration k = {CALIB_MEGATRON, 1, f, b, w, bw, NAN};
	struct calib_fit fit;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(calib_fit(&k, -1, &fit, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "give --w-share=F"));
	CU_ASSERT_EQUAL_FATAL(calib_fit(&k, 0.4, &fit, &err), 0);
	ASSERT_NEAR(fit.t_b, 3);
	ASSERT_NEAR(fit.t_w, 2);
	CU_ASSERT_TRUE(fit.uniform);
	CU_ASSERT_FALSE(fit.p_known);
	CU_ASSERT_TRUE(isnan(fit.t_comm));
	calib_fit_release(&fit);
}

/* The written config reads back into the same costs. */
static void calib_write_config_reads_back_as_a_config_with_the_fitted_costs(void)
{
	double f[] = {1, 2}, b[] = {1, 2}, w[] = {2, 4}, bw[] = {NAN, NAN};
	struct calibration k = {CALIB_CSV, 2, f, b, w, bw, 0.5};
	struct calib_fit fit;
	struct pp_error err = {0};
	struct config c;
	char dir[] = "/tmp/ppsim-unit-XXXXXX", path[128];
	FILE *out;

	CU_ASSERT_EQUAL_FATAL(calib_fit(&k, -1, &fit, &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/c.json", dir);
	out = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(calib_write_config(out, &fit, 16), 0);
	CU_ASSERT_EQUAL(fclose(out), 0);
	config_init(&c);
	CU_ASSERT_EQUAL(config_load_file(&c, path, &err), 0);
	CU_ASSERT_EQUAL(c.p, 2);
	CU_ASSERT_EQUAL(c.m, 16);
	/* every figure reads back to the double it was written from */
	CU_ASSERT_EQUAL(c.t_f, fit.t_f);
	CU_ASSERT_EQUAL(c.t_b, fit.t_b);
	CU_ASSERT_EQUAL(c.t_w, fit.t_w);
	CU_ASSERT_EQUAL(c.t_comm, fit.t_comm);
	CU_ASSERT_EQUAL_FATAL(c.nstage_scale, 2);
	for (int s = 0; s < 2; s++)
		CU_ASSERT_EQUAL(c.stage_scale[s], fit.scale[s]);
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	calib_fit_release(&fit);
}

static const struct unit_test tests[] = {
        UNIT_TEST(calib_read_takes_each_stage_s_mean_per_op_in_any_column_order),
        UNIT_TEST(calib_read_rejects_bad_lines_naming_line_and_column),
        UNIT_TEST(calib_read_takes_a_megatron_log_s_slowest_rank_per_micro_batch_after_warm_up),
        UNIT_TEST(calib_fit_averages_the_stages_and_scales_each_by_its_total),
        UNIT_TEST(calib_fit_splits_a_fused_backward_by_the_w_share_given),
        UNIT_TEST(calib_write_config_reads_back_as_a_config_with_the_fitted_costs),
        {NULL, NULL},
};

const struct unit_suite suite_calibrate = {"calibrate", tests};
