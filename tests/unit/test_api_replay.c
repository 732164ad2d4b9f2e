/*
 * Unit tests of a measured step in the library (ppsim.h): pp_replay_whatif's what-ifs, each as
 * `ppsim replay` runs it (tests/cli/t_replay.sh shows the same figures for the command), its
 * errors in a library user's words, a replayed run's figures and reports; pp_config_json read
 * back to the same settings, a calibrated config's among them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppsim/ppsim.h"
#include "unit.h"

/* A config of the settings keys[0..n-1] = values; asserts (fatally) that each is taken. */
static pp_config *config_with(const char *const *keys, const char *const *values, int n)
{
	char err[256] = "";
	pp_config *c = pp_config_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (int i = 0; i < n; i++)
		if (pp_config_set(c, keys[i], values[i], err, sizeof(err)) != PP_OK) {
			fprintf(stderr, "pp_config_set %s: %s\n", keys[i], err);
			CU_FAIL_FATAL("a setting refused");
		}
	return c;
}

/* Figure name of r; asserts that r has it. */
static double figure(const pp_run *r, const char *name)
{
	char err[256] = "";
	double x = NAN;

	CU_ASSERT_EQUAL(pp_run_figure(r, name, &x, err, sizeof(err)), PP_OK);
	return x;
}

static double makespan(const pp_config *c);

/* The makespan of a run of 1F1B, p = 4, t_comm 0.1 and the settings keys = values. */
static double makespan_of(const char *const *keys, const char *const *values, int n)
{
	pp_config *c = config_with(keys, values, n);
	double x = makespan(c);

	pp_config_free(c);
	return x;
}

/*
 * Writes the op dump of a 1F1B step on 4 devices, 8 micro-batches, messages of 0.1 (device 2
 * 1.5 times slower when slow) into a new file at path (a buffer "/tmp/...XXXXXX"), a measured
 * step as --dump-ops writes it.
 */
static void write_step(char *path, bool slow)
{
	static const char *const keys[] = {"t_comm", "stage_scale"};
	const char *values[] = {"0.1", slow ? "1,1,1.5,1" : "1,1,1,1"};
	pp_config *c = config_with(keys, values, 2);
	pp_run *r = NULL;
	char err[256] = "", *csv = NULL;
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(pp_simulate(c, PP_KEEP_OP_TIMES, &r, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL_FATAL(pp_run_ops_csv(r, &csv, err, sizeof(err)), PP_OK);
	CU_ASSERT_FATAL(write(fd, csv, strlen(csv)) == (ssize_t)strlen(csv));
	close(fd);
	pp_string_free(csv);
	pp_run_free(r);
	pp_config_free(c);
}

/* The replay of the step at path with t_comm 0.1 and the what-if keys = values, or NULL with
 * err set. */
static pp_run *replay(const char *path, const char *const *keys, const char *const *values, int n,
                      char *err, size_t errlen)
{
	static const char *const comm[] = {"t_comm"}, *tenth[] = {"0.1"};
	pp_config *c = config_with(comm, tenth, 1);
	const char *paths[] = {path};
	pp_run *r = NULL;

	if (pp_replay_whatif(c, paths, 1, keys, values, n, 0, &r, err, errlen) != PP_OK)
		CU_ASSERT_PTR_NULL(r);
	pp_config_free(c);
	return r;
}

static void api_replay_whatif_without_the_slowest_is_the_step_without_the_straggler(void)
{
	char slow[] = "/tmp/ppsim-slow-XXXXXX", err[512] = "";
	static const char *const keys[] = {"without_slowest"}, *yes[] = {"true"};
	static const char *const comm[] = {"t_comm"}, *tenth[] = {"0.1"};
	static const char *const scaled[] = {"t_comm", "stage_scale"},
	                         *straggler[] = {"0.1", "1,1,1.5,1"};
	pp_run *r;

	write_step(slow, true);
	r = replay(slow, NULL, NULL, 0, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	/* the replay alone: the run it was measured from, and no what-if */
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "makespan"), makespan_of(scaled, straggler, 2), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "replay.replayed_step"), figure(r, "makespan"), 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "replay.measured_step"), figure(r, "makespan"), 1e-9);
	CU_ASSERT_EQUAL(figure(r, "replay.files"), 1);
	CU_ASSERT(isnan(figure(r, "replay.what_if.step")));
	pp_run_free(r);
	r = replay(slow, keys, yes, 1, err, sizeof(err));
	if (r == NULL)
		fprintf(stderr, "pp_replay_whatif: %s\n", err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(figure(r, "replay.what_if.slowest_device"), 2);
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "replay.what_if.factors.F"), 2.0 / 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "replay.what_if.factors.BW"), 2.0 / 3, 1e-12);
	CU_ASSERT(isnan(figure(r, "replay.what_if.factors.W")));
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "replay.what_if.step"), makespan_of(comm, tenth, 1), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "makespan"), figure(r, "replay.what_if.step"), 0);
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "replay.what_if.difference"),
	                       figure(r, "replay.what_if.step") - figure(r, "replay.measured_step"),
	                       1e-12);
	pp_run_free(r);
	unlink(slow);
}

static void api_replay_whatif_of_another_shape_runs_on_costs_fitted_to_the_step(void)
{
	char slow[] = "/tmp/ppsim-slow-XXXXXX", even[] = "/tmp/ppsim-even-XXXXXX", err[512] = "";
	static const char *const m16[] = {"m"}, *sixteen[] = {"16"};
	static const char *const zb[] = {"schedule", "w_share"}, *half[] = {"zbh1", "0.5"};
	static const char *const want16[] = {"t_comm", "stage_scale", "m"},
	                         *straggler16[] = {"0.1", "1,1,1.5,1", "16"};
	static const char *const wantzb[] = {"t_comm", "schedule"}, *zbh1[] = {"0.1", "zbh1"};
	pp_run *r;
	char *text = NULL;

	write_step(slow, true);
	write_step(even, false);
	/* the fit keeps each stage's speed: the straggler's step at m = 16 is its run's */
	r = replay(slow, m16, sixteen, 1, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "replay.what_if.step"),
	                       makespan_of(want16, straggler16, 3), 1e-9);
	CU_ASSERT_EQUAL(figure(r, "m"), 16);
	CU_ASSERT(isnan(figure(r, "replay.what_if.slowest_device")));
	/* its reports are the command's: the run's, then the replay's lines */
	CU_ASSERT_EQUAL(pp_run_report(r, "text", &text, err, sizeof(err)), PP_OK);
	CU_ASSERT_PTR_NOT_NULL(text != NULL ? strstr(text, "\nwhat-if            1f1b with p=4, "
	                                                   "v=1, m=16, on costs fitted")
	                                    : NULL);
	pp_string_free(text);
	CU_ASSERT_EQUAL(pp_run_report(r, "json", &text, err, sizeof(err)), PP_OK);
	CU_ASSERT_PTR_NOT_NULL(text != NULL ? strstr(text, "\"replay\":\t{") : NULL);
	pp_string_free(text);
	CU_ASSERT_EQUAL(pp_run_report(r, "csv", &text, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "format 'csv': not one of text, json");
	pp_run_free(r);
	/* a uniform step's fit is the run's costs: ZB-H1 with W half of the fused backward */
	r = replay(even, zb, half, 2, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_DOUBLE_EQUAL(figure(r, "replay.what_if.step"), makespan_of(wantzb, zbh1, 2),
	                       1e-9);
	pp_run_free(r);
	unlink(slow);
	unlink(even);
}

static void api_replay_whatif_refuses_in_a_library_users_words(void)
{
	char slow[] = "/tmp/ppsim-slow-XXXXXX", one[] = "/tmp/ppsim-one-XXXXXX", err[512] = "";
	static const char *const share[] = {"w_share"}, *half[] = {"0.5"}, *two[] = {"2"};
	static const char *const slowest[] = {"without_slowest"}, *maybe[] = {"maybe"},
	                         *yes[] = {"yes"};
	static const char *const tf[] = {"t_f"}, *x2[] = {"2"};
	static const char *const twice[] = {"m", "microbatches"}, *sixteen_twelve[] = {"16", "12"};
	static const char *const shares[] = {"w_share", "w_share"}, *halves[] = {"0.5", "0.4"};
	static const char *const named[] = {"w_share", "w-share"}, *dashed[] = {"without-slowest"};
	static const char *const zbv[] = {"schedule"}, *zbv_name[] = {"zbv"};
	static const char *const m[] = {"m"}, *sixteen[] = {"16"};
	static const char step[] = "stage,op,microbatch,ms\n0,F,0,1\n0,BW,0,1\n";
	const char *paths[] = {slow, NULL};
	pp_config *c = pp_config_new();
	pp_run *r = NULL;
	int fd;

	write_step(slow, true);
	fd = mkstemp(one);
	CU_ASSERT_FATAL(fd >= 0 && write(fd, step, sizeof(step) - 1) == (ssize_t)sizeof(step) - 1);
	close(fd);
	CU_ASSERT_PTR_NULL(replay(slow, share, half, 1, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "\"w_share\": only for a what-if of another schedule or shape "
	                            "(\"schedule\", \"m\", \"v\"), whose costs are fitted to the "
	                            "step");
	CU_ASSERT_PTR_NULL(replay(slow, share, two, 1, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "key \"w_share\" '2': must be a number from 0 to 1");
	CU_ASSERT_PTR_NULL(replay(slow, slowest, maybe, 1, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "key \"without_slowest\" 'maybe': must be yes or no");
	CU_ASSERT_PTR_NULL(replay(slow, tf, x2, 1, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "pp_replay_whatif: key \"t_f\" is no what-if's (schedule, m, "
	                            "v, group_size, mem_limit, without_slowest, w_share): the "
	                            "replay's settings are the config's");
	/* one setting twice: the first value would go unseen */
	CU_ASSERT_PTR_NULL(replay(slow, twice, sixteen_twelve, 2, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "pp_replay_whatif: keys 0 and 1 (\"m\", \"microbatches\") set "
	                            "one setting, key \"m\": give it once");
	CU_ASSERT_PTR_NULL(replay(slow, shares, halves, 2, err, sizeof(err)));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "(\"w_share\", \"w_share\") set one setting"));
	/* an argument by its option's name, as a config key by its option's name */
	CU_ASSERT_PTR_NULL(replay(slow, named, halves, 2, err, sizeof(err)));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "(\"w_share\", \"w-share\") set one setting"));
	CU_ASSERT_PTR_NULL(replay(slow, dashed, maybe, 1, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "key \"without_slowest\" 'maybe': must be yes or no");
	CU_ASSERT_PTR_NULL(replay(slow, zbv, zbv_name, 1, err, sizeof(err)));
	CU_ASSERT_PTR_NOT_NULL(
	        strstr(err, "backward is measured fused (BW): give \"w_share\" = F"));
	CU_ASSERT_PTR_NULL(replay(one, slowest, yes, 1, err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "a step on one device has no other device to take its times "
	                            "from");
	/* the config holds the replay's settings, never the what-if's shape */
	CU_ASSERT_EQUAL(pp_config_set(c, "m", "16", err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(pp_replay_whatif(c, paths, 1, NULL, NULL, 0, 0, &r, err, sizeof(err)),
	                PP_E_INPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "key \"m\" = 16: a what-if's setting: give it among "
	                                   "pp_replay_whatif's keys"));
	pp_config_free(c);
	c = pp_config_new();
	CU_ASSERT_EQUAL(pp_replay_whatif(c, paths, 2, m, sixteen, 1, 0, &r, err, sizeof(err)),
	                PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_replay_whatif: paths[1] is NULL");
	CU_ASSERT_EQUAL(pp_replay_whatif(c, paths, 0, m, sixteen, 1, 0, &r, err, sizeof(err)),
	                PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_replay_whatif: no measured file (n 0, at least 1)");
	CU_ASSERT_EQUAL(pp_replay_whatif(c, paths, 1, m, sixteen, -1, 0, &r, err, sizeof(err)),
	                PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_replay_whatif: nkeys -1 below 0");
	CU_ASSERT_EQUAL(pp_replay_whatif(c, paths, 1, NULL, NULL, 0, 0x100, &r, err, sizeof(err)),
	                PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_replay_whatif: flags 0x100 has bits no PP_KEEP_* names");
	CU_ASSERT_EQUAL(pp_replay_whatif(c, paths, 1, m, (const char *[]){NULL}, 1, 0, &r, err,
	                                 sizeof(err)),
	                PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_replay_whatif: values[0] is NULL");
	CU_ASSERT_PTR_NULL(r);
	/* pp_replay names itself */
	CU_ASSERT_EQUAL(pp_replay(c, paths, 0, 0, &r, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_replay: no measured file (n 0, at least 1)");
	pp_config_free(c);
	unlink(slow);
	unlink(one);
}

static void api_replay_whatif_keys_are_the_shape_and_the_two_asks(void)
{
	int n = 0;

	while (pp_replay_whatif_key(n) != NULL)
		n++;
	CU_ASSERT_EQUAL(n, 7);
	CU_ASSERT_STRING_EQUAL(pp_replay_whatif_key(0), "schedule");
	CU_ASSERT_STRING_EQUAL(pp_replay_whatif_key(n - 2), "without_slowest");
	CU_ASSERT_STRING_EQUAL(pp_replay_whatif_key(n - 1), "w_share");
	CU_ASSERT_PTR_NULL(pp_replay_whatif_key(-1));
}

static void api_a_run_that_replays_nothing_has_no_replay_figures(void)
{
	pp_config *c = pp_config_new();
	pp_run *r = NULL;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(pp_simulate(c, 0, &r, err, sizeof(err)), PP_OK);
	CU_ASSERT(isnan(figure(r, "replay.measured_step")));
	CU_ASSERT(isnan(figure(r, "replay.what_if.factors.pairs")));
	pp_run_free(r);
	pp_config_free(c);
}

/* The makespan of c's run (asserted to run). */
static double makespan(const pp_config *c)
{
	pp_run *r = NULL;
	char err[256] = "";
	double x;

	CU_ASSERT_EQUAL_FATAL(pp_simulate(c, 0, &r, err, sizeof(err)), PP_OK);
	x = figure(r, "makespan");
	pp_run_free(r);
	return x;
}

static void api_config_json_reads_back_to_the_same_settings(void)
{
	static const char *const keys[] = {"schedule", "p", "t_f", "stage_scale", "tcomm", "comm"},
	                         *values[] = {"zbh1",         "4",   "1.1",
	                                      "1,0.1,1.25,1", "0.3", "blocking"};
	pp_config *c = config_with(keys, values, 6), *back = pp_config_new(), *fit = NULL;
	char *text = NULL, *again = NULL, err[512] = "";

	CU_ASSERT_EQUAL_FATAL(pp_config_json(c, &text, err, sizeof(err)), PP_OK);
	CU_ASSERT_STRING_EQUAL(text, "{\n\t\"schedule\": \"zbh1\",\n\t\"p\": 4,\n\t\"t_f\": 1.1,\n"
	                             "\t\"t_comm\": 0.3,\n\t\"comm\": \"blocking\",\n"
	                             "\t\"stage_scale\": [1,0.1,1.25,1]\n}\n");
	CU_ASSERT_EQUAL(pp_config_load_json(back, text, "back", err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(pp_config_json(back, &again, err, sizeof(err)), PP_OK);
	CU_ASSERT_STRING_EQUAL(again, text);
	CU_ASSERT_DOUBLE_EQUAL(makespan(back), makespan(c), 0);
	pp_string_free(text);
	pp_string_free(again);
	pp_config_free(c);
	pp_config_free(back);
	/* a config of nothing set is an empty object, a yes or no a boolean; a calibrated one
	 * reads back as it runs */
	c = pp_config_new();
	CU_ASSERT_EQUAL(pp_config_json(c, &text, err, sizeof(err)), PP_OK);
	CU_ASSERT_STRING_EQUAL(text, "{}\n");
	pp_string_free(text);
	CU_ASSERT_EQUAL(pp_config_set(c, "fp8", "no", err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(pp_config_json(c, &text, err, sizeof(err)), PP_OK);
	CU_ASSERT_STRING_EQUAL(text, "{\n\t\"fp8\": false\n}\n");
	pp_string_free(text);
	pp_config_free(c);
	c = pp_config_new();
	CU_ASSERT_EQUAL_FATAL(pp_calibrate("docs/examples/measured-zb-1.5b.csv", 24, -1, &fit,
	                                   NULL, err, sizeof(err)),
	                      PP_OK);
	CU_ASSERT_EQUAL(pp_config_json(fit, &text, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(pp_config_load_json(c, text, "calibrated", err, sizeof(err)), PP_OK);
	CU_ASSERT_DOUBLE_EQUAL(makespan(c), makespan(fit), 0);
	pp_string_free(text);
	pp_config_free(fit);
	pp_config_free(c);
}

static const struct unit_test tests[] = {
        UNIT_TEST(api_replay_whatif_without_the_slowest_is_the_step_without_the_straggler),
        UNIT_TEST(api_replay_whatif_of_another_shape_runs_on_costs_fitted_to_the_step),
        UNIT_TEST(api_replay_whatif_refuses_in_a_library_users_words),
        UNIT_TEST(api_replay_whatif_keys_are_the_shape_and_the_two_asks),
        UNIT_TEST(api_a_run_that_replays_nothing_has_no_replay_figures),
        UNIT_TEST(api_config_json_reads_back_to_the_same_settings),
        {NULL, NULL},
};

const struct unit_suite suite_api_replay = {"api_replay", tests};
