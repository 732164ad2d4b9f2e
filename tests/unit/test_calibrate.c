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
 * micro-batches) into k, removes both, and returns calib_read's status. The path stays, as k
 * keeps it for the messages of calib_fit. */
static int read_text(const char *text, int m, struct calibration *k, struct pp_error *err)
{
	static char path[128];
	char dir[] = "/tmp/ppsim-unit-XXXXXX";
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

/* With both a stage and a device column (a measured step's CSV), the stage is stage's; a device
 * column alone stands for it. */
static void calib_read_takes_the_stage_column_beside_a_device_column(void)
{
	struct calibration k;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(read_text("device,stage,op,ms\n0,1,F,2\n0,0,F,1\n0,0,BW,3\n"
	                                "0,1,BW,4\n",
	                                0, &k, &err),
	                      0);
	CU_ASSERT_EQUAL(k.p, 2);
	ASSERT_NEAR(k.f[0], 1);
	ASSERT_NEAR(k.f[1], 2);
	ASSERT_NEAR(k.bw[1], 4);
	calib_release(&k);
	CU_ASSERT_EQUAL_FATAL(
	        read_text("op,device,ms\nF,1,2\nF,0,1\nBW,0,3\nBW,1,4\n", 0, &k, &err), 0);
	CU_ASSERT_EQUAL(k.p, 2);
	ASSERT_NEAR(k.f[1], 2);
	calib_release(&k);
}

/* One hostile input: the text, the micro-batches, what the message says after the path, and
 * the line and column it names. */
struct bad_input {
	const char *text;
	int m;
	const char *want;
	int line, column;
};

/* Each input is refused with its message, line and column, and kind PP_ERR_CONFIG. */
static void check_refusals(const struct bad_input *bad, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct calibration k;
		struct pp_error err = {0};

		CU_ASSERT_EQUAL(read_text(bad[i].text, bad[i].m, &k, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
		CU_ASSERT_EQUAL(strncmp(after_path(&err), bad[i].want, strlen(bad[i].want)), 0);
		if (strncmp(after_path(&err), bad[i].want, strlen(bad[i].want)) != 0 ||
		    err.line != bad[i].line || err.column != bad[i].column)
			fprintf(stderr, "\ninput %zu: %s (%d:%d)\n", i, err.msg, err.line,
			        err.column);
		CU_ASSERT_EQUAL(err.line, bad[i].line);
		CU_ASSERT_EQUAL(err.column, bad[i].column);
	}
}

/* What a hostile tester tries on a CSV: times no op may take (NaN, inf, huge, negative, below
 * one tick, junk after the number), rows with fields missing or added, an unknown op, a column
 * twice, a stage skipped or without F, a backward both split and fused, a message of a stage
 * without ops, an empty file, and a last row whose number may be cut (no final newline): each
 * refused at its line and column. */
static void calib_read_rejects_bad_lines_naming_line_and_column(void)
{
	static const struct bad_input bad[] = {
	        {"stage,op,ms\n0,X,1\n", 0, ":2:3: unknown op 'X' (F, B, W, BW or comm)", 2, 3},
	        {"stage,op,ms\n-1,F,1\n", 0, ":2:1: the stage must be a whole number", 2, 1},
	        {"stage,op,ms\n65536,F,1\n", 0,
	         ":2:1: the stage must be a whole number from 0 to 65535", 2, 1},
	        {"stage,op,ms\n0,F,0\n", 0, ":2:5: the time must be a number of ms above 0", 2, 5},
	        {"stage,op,ms\n0,F\n", 0, ":2:1: has 2 fields, the header 3", 2, 1},
	        {"stage,op,ms\n1,F,1\n", 0, ":2:1: stage 1 is measured here, but stage 0 is not", 2,
	         1},
	        {"stage,op,ms\n0,B,1\n", 0, ":2:1: stage 0 has no forward (F) time", 2, 1},
	        {"stage,op,ms\n", 0, ":1:1: no op times (F, B, W or BW) after the header", 1, 1},
	        {"hello\nworld\n", 0, ":1:1: neither a CSV with columns stage, op and ms nor", 1,
	         1},
	        {"", 0, ":1:1: no measured times: the file is empty", 1, 1},
	        {"# only a comment\n\n", 0, ":1:1: no measured times: the file is empty", 1, 1},
	        {"stage,op,ms\n0,F,1e-9\n", 0,
	         ":2:5: the time is below the resolution of 1e-06 ms: it would run as 0", 2, 5},
	        {"stage,op,ms\n0,F,4e-7\n", 0, ":2:5: the time is below the resolution", 2, 5},
	        {"stage,op,ms\n0,F,nan\n", 0,
	         ":2:5: the time must be a number of ms above 0 and at most 1e9", 2, 5},
	        {"stage,op,ms\n0,F,1,\n", 0, ":2:1: has 4 fields, the header 3", 2, 1},
	        {"stage,op,ms\n0,F,1\n,,\n", 0, ":3:1: the stage must be", 3, 1},
	        {"stage,op,ms,ms\n0,F,1,2\n", 0,
	         ":1:13: column 'ms' appears twice (first as column 3)", 1, 13},
	        {"device,op,ms,device\n0,F,1,0\n", 0,
	         ":1:14: column 'device' appears twice (first as column 1)", 1, 14},
	        {"stage,op,ms\n0,F,1\n0,B,1\n0,W,1\n2,F,1\n", 0,
	         ":5:1: stage 2 is measured here, but stage 1 is not", 5, 1},
	        {"stage,op,ms\n0,F,1\n0,comm,1e-8\n", 0, ":3:8: the time is below", 3, 8},
	        {"stage,op,ms\n0,F,1\n0,B,1\n0,W,1\n0,BW,10\n", 0,
	         ":5:3: stage 0: BW here, B at line 3: a stage's backward is measured split", 5, 3},
	        {"stage,op,ms\n0,F,1\n0,BW,10\n0,W,1\n", 0, ":4:3: stage 0: W here, BW at line 3",
	         4, 3},
	        {"op,ms,stage\ncomm,1,0\nF,1,0\nBW,1,0\ncomm,1,1\n", 0,
	         ":5:8: a message of stage 1, beyond the stages whose ops are measured (p = 1)", 5,
	         8},
	        {"stage,op,ms\n0,F,1\n0,B,1\n0,W,1.5", 0,
	         ":4:8: the file ends in this line, without a newline: its last number may be cut",
	         4, 8},
	        {"stage,op,ms\r\n0,F,1\r\n0,BW,2\r\n0,BW,2", 0, ":4:7: the file ends in this line",
	         4, 7},
	};

	/* each a time no op may take, as a config would refuse it */
	static const char *const times[] = {"0x10",       "inf",    "-inf", "1e400", "1e-400", "-2",
	                                    "1000000001", "1.5 ms", "",     "+",     "1e"};

	check_refusals(bad, sizeof(bad) / sizeof(bad[0]));
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		char text[64];

		snprintf(text, sizeof(text), "stage,op,ms\n0,F,%s\n", times[i]);
		check_refusals(
		        &(struct bad_input){text, 0, ":2:5: the time must be a number of ms", 2, 5},
		        1);
	}
}

/* A CSV written on Windows (CRLF, a byte order mark, quoted fields) and a last line that is a
 * comment without a newline read as any other. */
static void calib_read_takes_crlf_quotes_and_a_final_comment_without_newline(void)
{
	struct calibration k;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(read_text("\xef\xbb\xbfstage,op,ms\r\n0,F,\"1.5\"\r\n0,BW,3\r\n"
	                                "# the end",
	                                0, &k, &err),
	                      0);
	CU_ASSERT_EQUAL(k.p, 1);
	ASSERT_NEAR(k.f[0], 1.5);
	ASSERT_NEAR(k.bw[0], 3);
	CU_ASSERT_EQUAL(k.line[0], 2);
	calib_release(&k);
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
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "give its micro-batches with --microbatches"));
}

/* A block of the log: its header, forward-compute and backward-compute lines, each given. */
#define BLOCK(f, b)                                                                                \
	"(min, max) time across ranks (ms):\n"                                                     \
	"    forward-compute ................................: " f "\n"                            \
	"    backward-compute ...............................: " b "\n"

/* What a hostile tester tries on a Megatron-LM log: a block cut before its backward-compute, a
 * number cut at the end of the file, a timer twice, values that are no times (negative, NaN,
 * MIN above MAX, junk after them, huge or tiny per micro-batch), and blocks without the timers. */
static void calib_read_refuses_a_megatron_log_with_partial_blocks(void)
{
	static const struct bad_input bad[] = {
	        {BLOCK("(900.00, 1000.00)", "(1900.00, 2100.00)")
	                 BLOCK("(700.00, 800.00)",
	                       "(1500.00, 1600.00)") "(min, max) time across ranks (ms):\n"
	                                             "    forward-compute "
	                                             "................................: (700.00, "
	                                             "800.00)\n",
	         8, ":7:1: a timer block with forward-compute (line 8) but no backward-compute", 7,
	         1},
	        {BLOCK("(900.00, 1000.00)",
	               "(1900.00, 2100.00)") "(min, max) time across ranks (ms):\n"
	                                     "    backward-compute "
	                                     "...............................: (1500.00, 1600.00)\n"
	                                     " iteration        3/     100 |\n",
	         8, ":4:1: a timer block with backward-compute (line 5) but no forward-compute", 4,
	         1},
	        {BLOCK("(900.00, 1000.00)",
	               "(1900.00, 2100.00)") "(min, max) time across ranks (ms):\n"
	                                     "    forward-compute "
	                                     "................................: (700.00, 800.00)\n"
	                                     "    backward-compute "
	                                     "...............................: (1500.00, 21",
	         8, ":6:55: backward-compute's time is not (MIN, MAX) or MAX", 6, 55},
	        {BLOCK("(900.00, 1000.00)",
	               "(1900.00, 2100.00)") "max time across ranks (ms):\n"
	                                     "    forward-compute "
	                                     "................................: 800.00\n"
	                                     "    backward-compute "
	                                     "...............................: 16",
	         8, ":6:57: the file ends in this line, without a newline", 6, 57},
	        {"(min, max) time across ranks (ms):\n"
	         "    forward-compute ................................: (700.00, 800.00)\n"
	         "    forward-compute ................................: (700.00, 800.00)\n",
	         8,
	         ":3:1: forward-compute appears twice in the timer block of line 1 (first at line "
	         "2)",
	         3, 1},
	        {BLOCK("(-5.00, -3.00)", "(1.00, 2.00)"), 8,
	         ":2:55: forward-compute's time is not (MIN, MAX) or MAX, numbers of ms with 0 <= "
	         "MIN "
	         "<= MAX",
	         2, 55},
	        {BLOCK("(900.00, 800.00)", "(1.00, 2.00)"), 8,
	         ":2:55: forward-compute's time is not", 2, 55},
	        {BLOCK("(nan, nan)", "(1.00, 2.00)"), 8, ":2:55: forward-compute's time is not", 2,
	         55},
	        {BLOCK("inf", "2.00"), 8, ":2:55: forward-compute's time is not", 2, 55},
	        {BLOCK("(700.00, 800.00) ms", "(1.00, 2.00)"), 8,
	         ":2:55: forward-compute's time is not", 2, 55},
	        {BLOCK("(0.00, 0.00)", "(1.00, 2.00)"), 8,
	         ":2:55: forward-compute: 0 ms over 8 micro-batches is 0 ms each, which must be a "
	         "number of ms above 0",
	         2, 55},
	        {BLOCK("1e300", "(1.00, 2.00)"), 8,
	         ":2:55: forward-compute: 1e+300 ms over 8 micro-batches is 1.25e+299 ms each, "
	         "which "
	         "must be a number of ms above 0 and at most 1e9",
	         2, 55},
	        {BLOCK("(700.00, 800.00)", "0.000001"), 8,
	         ":3:55: backward-compute: 1e-06 ms over 8 micro-batches is 1.25e-07 ms each, "
	         "which "
	         "is below the resolution of 1e-06 ms",
	         3, 55},
	        {"(min, max) time across ranks (ms):\n(min, max) time across ranks (ms):\n"
	         "    save-checkpoint ................................: (10.00, 20.00)\n",
	         8, ":1:1: neither a CSV with columns stage, op and ms nor a Megatron-LM log", 1,
	         1},
	};

	check_refusals(bad, sizeof(bad) / sizeof(bad[0]));
}

/* A block of other timers (a checkpoint's save) between the iterations is left alone, and a
 * log written on Windows (CRLF) reads as any other. */
static void calib_read_takes_other_timer_blocks_and_crlf_in_a_megatron_log(void)
{
	struct calibration k;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(
	        read_text(
	                BLOCK("(900.00, 1000.00)",
	                      "(1900.00, 2100.00)") "(min, max) time across ranks (ms):\r\n"
	                                            "    save-checkpoint "
	                                            "................................: (10.00, "
	                                            "20.00)\r\n"
	                                            "(min, max) time across ranks (ms):\r\n"
	                                            "    forward-compute "
	                                            "................................: (700.00, "
	                                            "800.00)\r\n"
	                                            "    backward-compute "
	                                            "...............................: 1600.00\r\n",
	                8, &k, &err),
	        0);
	CU_ASSERT_EQUAL(k.format, CALIB_MEGATRON);
	ASSERT_NEAR(k.f[0], 100);
	ASSERT_NEAR(k.bw[0], 200);
	CU_ASSERT_EQUAL(k.line[0], 7);
	calib_release(&k);
}

static void calib_fit_averages_the_stages_and_scales_each_by_its_total(void)
{
	double f[] = {1, 2}, b[] = {1, 2}, w[] = {2, 4}, bw[] = {NAN, NAN};
	struct calibration k = {CALIB_CSV, 2, f, b, w, bw, 0.5, "m.csv", NULL, NULL, 0, 0, false};
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
	struct calibration k = {CALIB_MEGATRON, 1, f, b, w, bw, NAN, "train.log", NULL, NULL, 0, 0, false};
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

/*
 * calib_chunks takes four measured stages as two chunks of each of two devices: each time twice
 * the chunk's (a config's t_f is a device's whole share), and the config p = 2, v = 2 with a
 * scale for each of the four virtual stages; three chunks a device, or a Megatron log, refused.
 */
static void calib_chunks_takes_stages_as_chunks_of_a_device(void)
{
	double f[] = {1, 1, 1, 2}, b[] = {1, 1, 1, 2}, w[] = {1, 1, 1, 2}, bw[4] = {NAN, NAN, NAN, NAN};
	struct calibration k = {CALIB_CSV, 4, f, b, w, bw, NAN, "c.csv", NULL, NULL, 0, 0, false};
	struct calibration log = k;
	struct calib_fit fit;
	struct pp_error err = {0};
	struct config c;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	CU_ASSERT_EQUAL(calib_chunks(&k, 3, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "calibrate: -v 3: the 4 stages of 'c.csv' are not 3 chunks "
	                                "to each device");
	log.format = CALIB_MEGATRON;
	CU_ASSERT_EQUAL(calib_chunks(&log, 2, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "Megatron-LM log"));
	CU_ASSERT_EQUAL_FATAL(calib_chunks(&k, 2, &err), 0);
	CU_ASSERT_EQUAL(f[0], 2);
	CU_ASSERT_EQUAL(w[3], 4);
	CU_ASSERT(isnan(bw[0]));
	CU_ASSERT_EQUAL_FATAL(calib_fit(&k, -1, &fit, &err), 0);
	out = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(calib_write_config(out, &fit, 8), 0);
	CU_ASSERT_EQUAL(fclose(out), 0);
	config_init(&c);
	CU_ASSERT_EQUAL_FATAL(config_load_text(&c, "fit", text, len, &err), 0);
	CU_ASSERT_EQUAL(c.p, 2);
	CU_ASSERT_EQUAL(c.v, 2);
	CU_ASSERT_STRING_EQUAL(c.schedule, "interleaved");
	CU_ASSERT_EQUAL(c.t_f * c.stage_scale[0], 2);
	CU_ASSERT_EQUAL_FATAL(c.nstage_scale, 4);
	CU_ASSERT_DOUBLE_EQUAL(c.stage_scale[3] / c.stage_scale[0], 2, 1e-12);
	free(text);
	calib_fit_release(&fit);
}

/* The written config reads back into the same costs. */
static void calib_write_config_reads_back_as_a_config_with_the_fitted_costs(void)
{
	double f[] = {1, 2}, b[] = {1, 2}, w[] = {2, 4}, bw[] = {NAN, NAN};
	struct calibration k = {CALIB_CSV, 2, f, b, w, bw, 0.5, "m.csv", NULL, NULL, 0, 0, false};
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

/* read_text and calib_fit with w_share: calib_fit's status, err holding its error. */
static int fit_text(const char *text, double w_share, struct calib_fit *fit, struct pp_error *err)
{
	struct calibration k;
	int rc;

	CU_ASSERT_EQUAL_FATAL(read_text(text, 0, &k, err), 0);
	rc = calib_fit(&k, w_share, fit, err);
	calib_release(&k);
	return rc;
}

/* A CSV of n stages whose F is 1 + s/n ms and B and W 1 ms: each stage at its own speed. */
static char *stages_csv(int n)
{
	size_t cap = 64 + (size_t)n * 80, len = 0;
	char *text = malloc(cap);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	len += (size_t)snprintf(text, cap, "stage,op,ms\n");
	for (int st = 0; st < n; st++)
		len += (size_t)snprintf(text + len, cap - len, "%d,F,%.17g\n%d,B,1\n%d,W,1\n", st,
		                        1 + (double)st / n, st, st);
	return text;
}

/* What a config cannot hold is refused, naming the line of the stage at fault: a fused
 * backward split below one tick, a stage whose op, scaled, rounds to no tick, more stages of
 * different speeds than a config holds factors; as many as it holds read back. */
static void calib_fit_refuses_what_a_config_cannot_hold_naming_the_stage_s_line(void)
{
	struct calib_fit fit;
	struct pp_error err = {0};
	struct config c;
	char *text, *json = NULL;
	size_t len = 0;
	FILE *out;

	CU_ASSERT_EQUAL(fit_text("stage,op,ms\n0,F,1\n0,BW,1\n", 1e-9, &fit, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(after_path(&err),
	                       ":2: --w-share=1e-09 makes stage 0's W 1e-09 ms (that share of its "
	                       "fused backward), which is below the resolution of 1e-06 ms: it "
	                       "would run as 0 (times are whole ticks)");
	CU_ASSERT_EQUAL(err.line, 2);
	CU_ASSERT_EQUAL(fit_text("stage,op,ms\n0,F,1e9\n0,B,1e9\n0,W,1e-6\n"
	                         "1,F,1e-6\n1,B,1e-6\n1,W,1e-6\n",
	                         -1, &fit, &err),
	                -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_EQUAL(strncmp(after_path(&err), ":5: stage 1's W fits as ", 24), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "below the resolution of 1e-06 ms: its F, B and W"));
	CU_ASSERT_EQUAL(err.line, 5);
	/* 1025 stages at different speeds: the factor of stage 1024 has no place */
	text = stages_csv(PP_MAX_LIST + 1);
	CU_ASSERT_EQUAL(fit_text(text, -1, &fit, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(
	        after_path(&err),
	        ":3074: stage 1024: the stages run at different speeds, and a config "
	        "holds at most 1024 stage factors (stage_scale)");
	free(text);
	/* 1024 of them fit, and their factors read back, each to the double it was */
	text = stages_csv(PP_MAX_LIST);
	CU_ASSERT_EQUAL_FATAL(fit_text(text, -1, &fit, &err), 0);
	out = open_memstream(&json, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(calib_write_config(out, &fit, 8), 0);
	CU_ASSERT_EQUAL(fclose(out), 0);
	config_init(&c);
	CU_ASSERT_EQUAL(config_load_text(&c, "c.json", json, len, &err), 0);
	CU_ASSERT_EQUAL(config_validate(&c, &err), 0);
	CU_ASSERT_EQUAL_FATAL(c.nstage_scale, PP_MAX_LIST);
	for (int s = 0; s < PP_MAX_LIST; s++)
		CU_ASSERT_EQUAL(c.stage_scale[s], fit.scale[s]);
	calib_fit_release(&fit);
	free(json);
	free(text);
}

static const struct unit_test tests[] = {
        UNIT_TEST(calib_read_takes_each_stage_s_mean_per_op_in_any_column_order),
        UNIT_TEST(calib_read_takes_the_stage_column_beside_a_device_column),
        UNIT_TEST(calib_read_rejects_bad_lines_naming_line_and_column),
        UNIT_TEST(calib_read_takes_crlf_quotes_and_a_final_comment_without_newline),
        UNIT_TEST(calib_read_refuses_a_megatron_log_with_partial_blocks),
        UNIT_TEST(calib_read_takes_other_timer_blocks_and_crlf_in_a_megatron_log),
        UNIT_TEST(calib_read_takes_a_megatron_log_s_slowest_rank_per_micro_batch_after_warm_up),
        UNIT_TEST(calib_fit_averages_the_stages_and_scales_each_by_its_total),
        UNIT_TEST(calib_fit_splits_a_fused_backward_by_the_w_share_given),
        UNIT_TEST(calib_write_config_reads_back_as_a_config_with_the_fitted_costs),
        UNIT_TEST(calib_chunks_takes_stages_as_chunks_of_a_device),
        UNIT_TEST(calib_fit_refuses_what_a_config_cannot_hold_naming_the_stage_s_line),
        {NULL, NULL},
};

const struct unit_suite suite_calibrate = {"calibrate", tests};
