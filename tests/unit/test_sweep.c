/*
 * Unit tests of sweep and advise: axis specs and their expansion, the order of points, the
 * evaluation of valid, invalid and over-memory points, runs that emit the same records in the
 * same order whatever the threads or shards, ranking, the settling of v and m from a global
 * batch, the interleaving break-even table and the axes advise searches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/advise.h"
#include "ppsim/report.h"
#include "ppsim/sim.h"
#include "ppsim/sweep.h"
#include "unit.h"

/* The option-table row of config-file key `key`; fails the test when there is none. */
static const struct config_option *option(const char *key)
{
	const struct config_option *o = config_option_by_key(key);

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	return o;
}

/* "--NAME" for option key into buf of size n; returns buf. */
static char *long_label(const char *key, char *buf, size_t n)
{
	snprintf(buf, n, "--%s", option(key)->name);
	return buf;
}

/* The defaults priced from the Llama 3 70B preset on A100 80GB GPUs. */
static void init_model(struct config *c)
{
	config_init(c);
	unit_set(c, "model", "llama3-70b");
	unit_set(c, "gpu", "a100-80g");
}

/* Sets the axis of option key to spec under the label "--NAME"; it must pass. */
static void axis(struct sweep *sw, const char *key, const char *spec)
{
	struct pp_error err = {0};
	char label[64];
	int rc;

	long_label(key, label, sizeof(label));
	rc = sweep_set_axis(sw, option(key), label, spec, &err);
	if (rc != 0)
		fprintf(stderr, "axis %s '%s': %s\n", key, spec, err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
}

/* Sets the axis of option key to spec under label, which must fail with a usage error whose
 * message starts with label; err receives it. */
static void assert_axis_rejected(struct sweep *sw, const char *key, const char *label,
                                 const char *spec, struct pp_error *err)
{
	memset(err, 0, sizeof(*err));
	CU_ASSERT_EQUAL(sweep_set_axis(sw, option(key), label, spec, err), -1);
	CU_ASSERT_EQUAL(err->kind, PP_ERR_USAGE);
	if (strncmp(err->msg, label, strlen(label)) != 0)
		fprintf(stderr, "%s '%s': %s\n", label, spec, err->msg);
	CU_ASSERT_EQUAL(strncmp(err->msg, label, strlen(label)), 0);
}

/* The values of axis a joined with commas into buf of size n; returns buf. */
static char *joined(const struct sweep_axis *a, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < a->nvalues && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "", a->values[i]);
	return buf;
}

/* The axis of option key in sw, or NULL. */
static const struct sweep_axis *find_axis(const struct sweep *sw, const char *key)
{
	for (int i = 0; i < sw->naxes; i++)
		if (sw->axes[i].opt == option(key))
			return &sw->axes[i];
	return NULL;
}

/* Asserts that axis a is option key's, labelled label, with the values want ("1,2,4"). */
static void assert_axis(const struct sweep_axis *a, const char *key, const char *label,
                        const char *want)
{
	char have[4096];

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_EQUAL(a->opt, option(key));
	CU_ASSERT_STRING_EQUAL(a->label, label);
	CU_ASSERT_STRING_EQUAL(joined(a, have, sizeof(have)), want);
}

/* Every schedule in the generator table but skip (NULL: none), comma-separated, into buf of
 * size n; returns buf. */
static char *schedules_but(const char *skip, char *buf, size_t n)
{
	size_t count, len = 0;
	const struct sched_desc *t = sched_table(&count);

	buf[0] = '\0';
	for (size_t i = 0; i < count && len < n; i++)
		if (skip == NULL || strcmp(t[i].name, skip) != 0)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "", t[i].name);
	return buf;
}

/* Every schedule in the generator table, comma-separated, into buf of size n; returns buf. */
static char *every_schedule(char *buf, size_t n)
{
	return schedules_but(NULL, buf, n);
}

/* The schedules advise searches for a dense model: all but interleaved-combined, which
 * overlaps the expert all-to-all. */
static char *dense_schedules(char *buf, size_t n)
{
	return schedules_but("interleaved-combined", buf, n);
}

/* The makespan of c, which must run. */
static double makespan_of(const struct config *c)
{
	struct sim *s = unit_run(c, 0);
	double t = s->metrics.makespan;

	sim_free(s);
	return t;
}

/* Axis specs and the values they expand to. */
static const struct {
	const char *key, *spec, *want;
} expansions[] = {
        {"p", "1,2,4", "1,2,4"},
        {"m", "4:64:x2", "4,8,16,32,64"},
        {"m", "4:60:x2", "4,8,16,32"},
        {"m", "1:5", "1,2,3,4,5"},
        {"m", "2:10:3", "2,5,8"},
        {"m", "2:10:+3", "2,5,8"},
        {"m", "3:3", "3"},
        {"m", "1:5:10", "1"},
        {"p", "1,2,8:32:x2", "1,2,8,16,32"},
        {"p", "2:4,1", "2,3,4,1"},
        {"p", "08,4", "8,4"},
        {"msg_bytes", "0:2", "0,1,2"},
        {"t_comm", "0.50,1e-1,2", "0.5,0.1,2"},
        {"comm", "blocking,overlap", "blocking,overlap"},
        {"flash_attention", "true,off", "yes,no"},
        {"schedule", "zbv,1f1b", "zbv,1f1b"},
};

static void sweep_set_axis_expands_lists_and_ranges_into_canonical_values(void)
{
	for (size_t i = 0; i < sizeof(expansions) / sizeof(expansions[0]); i++) {
		struct sweep sw;
		char label[64];

		sweep_init(&sw, NULL);
		axis(&sw, expansions[i].key, expansions[i].spec);
		CU_ASSERT_EQUAL(sw.naxes, 1);
		assert_axis(&sw.axes[0], expansions[i].key,
		            long_label(expansions[i].key, label, sizeof(label)),
		            expansions[i].want);
		sweep_release(&sw);
	}
}

static void sweep_set_axis_expands_all_to_every_schedule_in_table_order(void)
{
	struct sweep sw;
	char want[1024];
	size_t count;

	sched_table(&count);
	sweep_init(&sw, NULL);
	axis(&sw, "schedule", "all");
	assert_axis(&sw.axes[0], "schedule", "--schedule", every_schedule(want, sizeof(want)));
	CU_ASSERT_EQUAL(sw.axes[0].nvalues, (int)count);
	CU_ASSERT_EQUAL(sweep_points(&sw), count);
	sweep_release(&sw);
}

/* Axis specs each rejected for the option key under label. */
static const struct {
	const char *key, *label, *spec;
} rejections[] = {
        {"p", "-p", ""},
        {"p", "-p", "1,,2"},
        {"p", "-p", ",,"},
        {"p", "-p", "1,2,"},
        {"p", "-p", ",1"},
        {"m", "-m", "8:4"},
        {"m", "-m", "4:64:x1"},
        {"m", "-m", "4:64:x0"},
        {"m", "-m", "4:64:0"},
        {"m", "-m", "4:64:+0"},
        {"m", "-m", "4:64:-2"},
        {"m", "-m", "4:64:x"},
        {"m", "-m", "a:b"},
        {"m", "-m", "4:"},
        {"m", "-m", ":4"},
        {"m", "-m", "-1:4"},
        {"m", "-m", "1:2:3:4"},
        {"m", "-m", "0:4"},
        {"msg_bytes", "--msg-bytes", "0:8:x2"},
        {"t_f", "--tf", "1:3"},
        {"comm", "--comm", "overlap:blocking"},
        {"p", "-p", "0"},
        {"p", "-p", "2,x"},
        {"schedule", "--schedule", "1f1b,nope"},
        {"schedule", "--schedule", "ALL"},
        {"layers_per_stage", "--layers-per-stage", "10,x"},
        {"layers_per_stage", "--layers-per-stage", ""},
        {"stage_scale", "--stage-scale", "1,0"},
};

static void sweep_set_axis_rejects_bad_specs_with_a_usage_error_naming_the_label(void)
{
	for (size_t i = 0; i < sizeof(rejections) / sizeof(rejections[0]); i++) {
		struct sweep sw;
		struct pp_error err = {0};
		char have[64];

		sweep_init(&sw, NULL);
		axis(&sw, "duplex", "full,half");
		assert_axis_rejected(&sw, rejections[i].key, rejections[i].label,
		                     rejections[i].spec, &err);
		/* the sweep is as it was */
		CU_ASSERT_EQUAL(sw.naxes, 1);
		CU_ASSERT_STRING_EQUAL(joined(&sw.axes[0], have, sizeof(have)), "full,half");
		sweep_release(&sw);
	}
}

/* An option that takes a list of its own, or a file's name, is one value, commas and all. */
static void sweep_set_axis_takes_a_list_option_or_a_file_whole(void)
{
	static const char *const whole[][2] = {{"layers_per_stage", "10,9,9,4"},
	                                       {"stage_scale", "1,1,2"},
	                                       {"schedule_file", "a,b.csv"}};

	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		struct sweep sw;
		char have[64];

		sweep_init(&sw, NULL);
		axis(&sw, whole[i][0], whole[i][1]);
		CU_ASSERT_EQUAL(sw.naxes, 1);
		CU_ASSERT_EQUAL(sw.axes[0].nvalues, 1);
		CU_ASSERT_STRING_EQUAL(joined(&sw.axes[0], have, sizeof(have)), whole[i][1]);
		CU_ASSERT_EQUAL(sweep_points(&sw), 1);
		sweep_release(&sw);
	}
}

static void sweep_set_axis_keeps_the_earlier_axis_when_a_new_spec_is_rejected(void)
{
	struct sweep sw;
	struct pp_error err = {0};

	sweep_init(&sw, NULL);
	axis(&sw, "p", "2,4");
	axis(&sw, "m", "4,8");
	assert_axis_rejected(&sw, "m", "-m", "8:4", &err);
	CU_ASSERT_EQUAL(sw.naxes, 2);
	assert_axis(find_axis(&sw, "m"), "m", "--microbatches", "4,8");
	CU_ASSERT_EQUAL(sweep_points(&sw), 4);
	sweep_release(&sw);
}

static void sweep_set_axis_replaces_the_earlier_axis_of_the_same_option(void)
{
	struct sweep sw;

	sweep_init(&sw, NULL);
	axis(&sw, "p", "2,4");
	axis(&sw, "m", "4,8,16");
	axis(&sw, "p", "1:5");
	CU_ASSERT_EQUAL(sw.naxes, 2);
	assert_axis(find_axis(&sw, "p"), "p", "--stages", "1,2,3,4,5");
	assert_axis(find_axis(&sw, "m"), "m", "--microbatches", "4,8,16");
	CU_ASSERT_EQUAL(sweep_points(&sw), 15);
	sweep_release(&sw);
}

/* A sweep of exactly SWEEP_MAX_POINTS points: p 1..255, m 1..257, msg_bytes 1..65537. */
static void init_full_sweep(struct sweep *sw)
{
	/* 255 x 257 x 65537 = 2^32 - 1 */
	sweep_init(sw, NULL);
	axis(sw, "p", "1:255");
	axis(sw, "m", "1:257");
	axis(sw, "msg_bytes", "1:65537");
}

static void sweep_set_axis_allows_exactly_the_point_limit_and_rejects_one_axis_more(void)
{
	struct sweep sw;
	struct pp_error err = {0};

	init_full_sweep(&sw);
	CU_ASSERT_EQUAL(sweep_points(&sw), SWEEP_MAX_POINTS);
	assert_axis_rejected(&sw, "v", "-v", "1,2", &err);
	CU_ASSERT_STRING_EQUAL(err.msg, "-v: the sweep would have more than 4294967295 points");
	CU_ASSERT_EQUAL(sw.naxes, 3);
	CU_ASSERT_EQUAL(sweep_points(&sw), SWEEP_MAX_POINTS);
	CU_ASSERT_PTR_NULL(find_axis(&sw, "v"));
	sweep_release(&sw);
}

static void sweep_set_axis_keeps_the_earlier_axis_when_its_replacement_exceeds_the_point_limit(void)
{
	struct sweep sw;
	struct pp_error err = {0};

	init_full_sweep(&sw);
	assert_axis_rejected(&sw, "p", "-p", "1:256", &err);
	CU_ASSERT_EQUAL(sw.naxes, 3);
	CU_ASSERT_EQUAL(sweep_points(&sw), SWEEP_MAX_POINTS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(find_axis(&sw, "p"));
	CU_ASSERT_EQUAL(find_axis(&sw, "p")->nvalues, 255);
	CU_ASSERT_STRING_EQUAL(find_axis(&sw, "p")->values[254], "255");
	sweep_release(&sw);
}

static void sweep_set_axis_rejects_more_values_than_an_axis_may_take(void)
{
	struct sweep sw;
	struct pp_error err = {0};
	char spec[32];

	sweep_init(&sw, NULL);
	snprintf(spec, sizeof(spec), "1:%d", SWEEP_MAX_VALUES);
	axis(&sw, "m", spec);
	CU_ASSERT_EQUAL(sw.axes[0].nvalues, SWEEP_MAX_VALUES);
	snprintf(spec, sizeof(spec), "1:%d", SWEEP_MAX_VALUES + 1);
	assert_axis_rejected(&sw, "m", "-m", spec, &err);
	CU_ASSERT_STRING_EQUAL(err.msg, "-m: more than 100000 values");
	CU_ASSERT_EQUAL(sw.naxes, 1);
	sweep_release(&sw);
}

static void sweep_set_axis_allows_at_most_sixteen_options_to_vary(void)
{
	static const char *const keys[] = {
	        "p",      "m",   "v",     "group_size", "layers",
	        "hidden", "ffn", "heads", "kv_heads",   "vocab",
	        "seq",    "mbs", "tp",    "dp",         "gpus_per_node",
	        "gpus",
	};
	struct sweep sw;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(sizeof(keys) / sizeof(keys[0]), SWEEP_MAX_AXES);
	sweep_init(&sw, NULL);
	for (int i = 0; i < SWEEP_MAX_AXES; i++)
		axis(&sw, keys[i], "1,2");
	CU_ASSERT_EQUAL(sw.naxes, SWEEP_MAX_AXES);
	assert_axis_rejected(&sw, "global_batch", "--global-batch", "1,2", &err);
	CU_ASSERT_STRING_EQUAL(err.msg, "--global-batch: at most 16 options can vary in a sweep");
	/* an option that varies already can still be given again */
	axis(&sw, "p", "3");
	CU_ASSERT_EQUAL(sw.naxes, SWEEP_MAX_AXES);
	CU_ASSERT_EQUAL(sweep_points(&sw), UINT64_C(1) << 15);
	/* with p fixed, one more option may vary; options of one value do not count */
	axis(&sw, "global_batch", "1,2");
	axis(&sw, "cp", "1");
	axis(&sw, "ep", "1");
	CU_ASSERT_EQUAL(sw.naxes, SWEEP_MAX_AXES + 3);
	assert_axis_rejected(&sw, "p", "-p", "2,4", &err);
	CU_ASSERT_STRING_EQUAL(err.msg, "-p: at most 16 options can vary in a sweep");
	CU_ASSERT_EQUAL(sw.naxes, SWEEP_MAX_AXES + 3);
	sweep_release(&sw);
}

/* A sweep given many options of one value each (a model, a cluster and a framework spelled
 * out) and a few lists: each point's config has every value, and the records index only the
 * options that vary. */
static void sweep_options_of_one_value_take_no_record_slot(void)
{
	static const char *const fixed[][2] = {
	        {"layers", "24"},       {"hidden", "2048"}, {"ffn", "8192"},   {"heads", "16"},
	        {"kv_heads", "16"},     {"vocab", "32000"}, {"seq", "1024"},   {"tp", "1"},
	        {"gpus_per_node", "8"}, {"dp", "1"},        {"global_batch", "8"},
	        {"cp", "1"},            {"ep", "1"},        {"group_size", "2"},
	        {"max_ops", "1000000"}, {"t_comm", "0.5"},  {"t_f", "2"},      {"t_b", "3"},
	};
	struct sweep sw;
	struct config c;
	struct pp_error err = {0};
	struct sweep_record r;

	sweep_init(&sw, NULL);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		axis(&sw, fixed[i][0], fixed[i][1]);
	axis(&sw, "p", "2,4");
	axis(&sw, "m", "4,8,16");
	CU_ASSERT_EQUAL(sw.naxes, (int)(sizeof(fixed) / sizeof(fixed[0])) + 2);
	CU_ASSERT_EQUAL(sweep_points(&sw), 6);
	CU_ASSERT_EQUAL(sw.axes[0].slot, -1);
	CU_ASSERT_EQUAL(sw.axes[sw.naxes - 2].slot, 0);
	CU_ASSERT_EQUAL(sw.axes[sw.naxes - 1].slot, 1);
	/* point 5: p = 4 (second value), m = 16 (third) */
	CU_ASSERT_EQUAL_FATAL(sweep_point_config(&sw, 5, &c, &err), 0);
	CU_ASSERT_EQUAL(c.p, 4);
	CU_ASSERT_EQUAL(c.m, 16);
	CU_ASSERT_EQUAL(c.group_size, 2);
	CU_ASSERT_DOUBLE_EQUAL(c.t_b, 3, 0);
	r.value[0] = 1;
	r.value[1] = 2;
	CU_ASSERT_EQUAL(sweep_value(&sw, &r, 0), 0);
	CU_ASSERT_EQUAL(sweep_value(&sw, &r, sw.naxes - 1), 2);
	sweep_release(&sw);
}

static void sweep_points_is_one_without_axes_and_the_product_of_the_axis_sizes(void)
{
	struct sweep sw;
	struct config c;
	struct pp_error err = {0};

	sweep_init(&sw, NULL);
	CU_ASSERT_EQUAL(sweep_points(&sw), 1);
	CU_ASSERT_EQUAL(sweep_point_config(&sw, 0, &c, &err), 0);
	CU_ASSERT_EQUAL(c.p, 4);
	CU_ASSERT_EQUAL(c.m, 8);
	axis(&sw, "p", "2,4");
	axis(&sw, "m", "4:16:x2");
	axis(&sw, "schedule", "all");
	CU_ASSERT_EQUAL(sweep_points(&sw), 2 * 3 * (uint64_t)sw.axes[2].nvalues);
	sweep_release(&sw);
	CU_ASSERT_EQUAL(sw.naxes, 0);
}

static void sweep_point_config_varies_the_last_axis_fastest(void)
{
	static const int want_p[] = {2, 2, 2, 4, 4, 4}, want_m[] = {4, 8, 16, 4, 8, 16};
	struct config base;
	struct sweep sw;

	config_init(&base);
	unit_set(&base, "t_comm", "0.25");
	sweep_init(&sw, &base);
	axis(&sw, "p", "2,4");
	axis(&sw, "m", "4,8,16");
	CU_ASSERT_EQUAL_FATAL(sweep_points(&sw), 6);
	for (uint64_t i = 0; i < 6; i++) {
		struct config c;
		struct pp_error err = {0};

		CU_ASSERT_EQUAL(sweep_point_config(&sw, i, &c, &err), 0);
		CU_ASSERT_EQUAL(c.p, want_p[i]);
		CU_ASSERT_EQUAL(c.m, want_m[i]);
		CU_ASSERT_TRUE(config_is_set(&c, "p"));
		/* what no axis varies comes from the base */
		CU_ASSERT_EQUAL(c.t_comm, 0.25);
		CU_ASSERT_STRING_EQUAL(c.schedule, "1f1b");
	}
	sweep_release(&sw);
}

/* Evaluates point i of sw into r and asserts that it was skipped with a reason containing
 * `names`. */
static void assert_skipped(const struct sweep *sw, uint64_t i, struct sweep_record *r,
                           const char *names)
{
	sweep_evaluate(sw, i, r);
	CU_ASSERT_EQUAL(r->index, i);
	CU_ASSERT_FALSE(r->ok);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->reason, names));
	CU_ASSERT_EQUAL(r->makespan, 0);
}

static void sweep_evaluate_gives_a_valid_point_the_figures_of_a_direct_run(void)
{
	struct config base, direct;
	struct sweep sw;
	struct sweep_record r;
	struct sim *s;

	config_init(&base);
	unit_set(&base, "t_comm", "0.25");
	sweep_init(&sw, &base);
	axis(&sw, "schedule", "1f1b,zbh1");
	axis(&sw, "p", "2,4");
	config_init(&direct);
	unit_set(&direct, "t_comm", "0.25");
	unit_set(&direct, "schedule", "zbh1");
	unit_set(&direct, "p", "2");
	s = unit_run(&direct, 0);
	/* point 2: zbh1 (second value of the first axis), p = 2 (first of the second) */
	sweep_evaluate(&sw, 2, &r);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT_STRING_EQUAL(r.reason, "");
	CU_ASSERT_EQUAL(r.index, 2);
	CU_ASSERT_EQUAL(r.value[0], 1);
	CU_ASSERT_EQUAL(r.value[1], 0);
	CU_ASSERT_STRING_EQUAL(r.schedule, "zbh1");
	CU_ASSERT_EQUAL(r.p, 2);
	CU_ASSERT_EQUAL(r.v, 1);
	CU_ASSERT_EQUAL(r.m, 8);
	CU_ASSERT_FALSE(r.has_model);
	CU_ASSERT_STRING_EQUAL(r.time_unit, s->cost->time_unit);
	CU_ASSERT_EQUAL(r.makespan, s->metrics.makespan);
	CU_ASSERT_EQUAL(r.bubble_ratio, s->metrics.bubble_ratio);
	CU_ASSERT_EQUAL(r.utilization, s->metrics.utilization);
	CU_ASSERT_EQUAL(r.messages, s->metrics.messages);
	CU_ASSERT_EQUAL(r.messages, 2 * 8 * 1);
	CU_ASSERT_EQUAL(r.p2p_time, s->metrics.p2p_time);
	CU_ASSERT_TRUE(r.fits);
	CU_ASSERT_TRUE(r.makespan > 0);
	sim_free(s);
	sweep_release(&sw);
}

static void sweep_evaluate_skips_a_schedule_that_rejects_its_chunks_and_names_the_option(void)
{
	struct sweep sw;
	struct sweep_record r;

	sweep_init(&sw, NULL);
	axis(&sw, "schedule", "gpipe,interleaved");
	axis(&sw, "v", "1,2");
	sweep_evaluate(&sw, 0, &r);
	CU_ASSERT_TRUE(r.ok);
	assert_skipped(&sw, 1, &r, "--chunks '2'");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "gpipe"));
	CU_ASSERT_STRING_EQUAL(r.schedule, "gpipe");
	CU_ASSERT_EQUAL(r.value[0], 0);
	CU_ASSERT_EQUAL(r.value[1], 1);
	assert_skipped(&sw, 2, &r, "--chunks '1'");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "interleaved"));
	CU_ASSERT_STRING_EQUAL(r.schedule, "interleaved");
	CU_ASSERT_EQUAL(r.p, 4);
	CU_ASSERT_EQUAL(r.v, 1);
	CU_ASSERT_EQUAL(r.m, 8);
	CU_ASSERT_TRUE(r.fits);
	sweep_evaluate(&sw, 3, &r);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT_EQUAL(r.v, 2);
	sweep_release(&sw);
}

static void sweep_evaluate_fills_the_shape_of_a_skipped_point_with_v_settled(void)
{
	struct sweep sw;
	struct sweep_record r;

	/* dualpipev needs m >= 2p; without -v it runs with its 2 chunks */
	sweep_init(&sw, NULL);
	axis(&sw, "schedule", "dualpipev");
	axis(&sw, "p", "4");
	axis(&sw, "m", "4");
	assert_skipped(&sw, 0, &r, "--microbatches '4'");
	CU_ASSERT_STRING_EQUAL(r.schedule, "dualpipev");
	CU_ASSERT_EQUAL(r.p, 4);
	CU_ASSERT_EQUAL(r.v, 2);
	CU_ASSERT_EQUAL(r.m, 4);
	CU_ASSERT_FALSE(r.has_model);
	sweep_release(&sw);
}

static void sweep_evaluate_settles_zbv_to_two_chunks_without_v(void)
{
	struct sweep sw;
	struct sweep_record r;

	sweep_init(&sw, NULL);
	axis(&sw, "schedule", "zbv");
	sweep_evaluate(&sw, 0, &r);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT_STRING_EQUAL(r.schedule, "zbv");
	CU_ASSERT_EQUAL(r.p, 4);
	CU_ASSERT_EQUAL(r.v, 2);
	CU_ASSERT_EQUAL(r.m, 8);
	sweep_release(&sw);
}

/* A sweep of Llama 3 70B on A100s at p = 1, tp = 1 (over memory) and p = 8, tp = 8 (fits). */
static void init_memory_sweep(struct sweep *sw, bool require_fit)
{
	struct config base;

	init_model(&base);
	sweep_init(sw, &base);
	sw->require_fit = require_fit;
	axis(sw, "p", "1,8");
	axis(sw, "tp", "1,8");
}

static void sweep_evaluate_skips_a_point_over_gpu_memory_when_it_must_fit(void)
{
	struct sweep sw;
	struct sweep_record r;

	init_memory_sweep(&sw, true);
	assert_skipped(&sw, 0, &r, "GB");
	CU_ASSERT_EQUAL(strncmp(r.reason, "out of memory", 13), 0);
	CU_ASSERT_FALSE(r.fits);
	CU_ASSERT_TRUE(r.has_model);
	CU_ASSERT_EQUAL(r.p, 1);
	CU_ASSERT_EQUAL(r.tp, 1);
	CU_ASSERT_EQUAL(r.dp, 1);
	CU_ASSERT_EQUAL(r.mbs, 1);
	CU_ASSERT_EQUAL(r.gpus, 1);
	sweep_evaluate(&sw, 3, &r);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT_TRUE(r.fits);
	CU_ASSERT_EQUAL(r.p, 8);
	CU_ASSERT_EQUAL(r.tp, 8);
	CU_ASSERT_EQUAL(r.gpus, 64);
	CU_ASSERT_TRUE(r.memory_bytes > 0 && r.memory_bytes <= r.memory_capacity);
	sweep_release(&sw);
}

static void sweep_evaluate_fills_a_skipped_point_s_layout_settled_from_the_global_batch(void)
{
	struct config base;
	struct sweep sw;
	struct sweep_record r;

	/* 32 GPUs at p = tp = 1: dp = 32, m = 1024 / (mbs 2 x dp 32) = 16 */
	init_model(&base);
	unit_set(&base, "gpus", "32");
	unit_set(&base, "global_batch", "1024");
	unit_set(&base, "mbs", "2");
	sweep_init(&sw, &base);
	sw.require_fit = true;
	axis(&sw, "p", "1");
	axis(&sw, "tp", "1");
	assert_skipped(&sw, 0, &r, "out of memory");
	CU_ASSERT_EQUAL(r.p, 1);
	CU_ASSERT_EQUAL(r.m, 16);
	CU_ASSERT_EQUAL(r.tp, 1);
	CU_ASSERT_EQUAL(r.dp, 32);
	CU_ASSERT_EQUAL(r.mbs, 2);
	CU_ASSERT_EQUAL(r.gpus, 32);
	sweep_release(&sw);
}

static void sweep_evaluate_keeps_a_point_over_gpu_memory_when_it_need_not_fit(void)
{
	struct sweep sw;
	struct sweep_record r;

	init_memory_sweep(&sw, false);
	sweep_evaluate(&sw, 0, &r);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT_FALSE(r.fits);
	CU_ASSERT_STRING_EQUAL(r.reason, "");
	CU_ASSERT_STRING_EQUAL(r.time_unit, "ms");
	CU_ASSERT_TRUE(r.memory_bytes > r.memory_capacity);
	CU_ASSERT_EQUAL(r.memory_capacity, 80e9);
	sweep_release(&sw);
}

static void sweep_evaluate_throughput_is_tokens_per_second_with_a_model_else_m_per_time(void)
{
	struct sweep sw;
	struct sweep_record r;

	init_memory_sweep(&sw, false);
	sweep_evaluate(&sw, 3, &r);
	CU_ASSERT_TRUE(r.ok);
	CU_ASSERT_TRUE(r.tokens_per_s > 0);
	CU_ASSERT_EQUAL(r.throughput, r.tokens_per_s);
	CU_ASSERT_TRUE(r.step_time >= r.makespan);
	sweep_release(&sw);

	sweep_init(&sw, NULL);
	axis(&sw, "m", "16");
	sweep_evaluate(&sw, 0, &r);
	CU_ASSERT_TRUE(r.ok);
	/* 1f1b, p = 4, m = 16, F = 1 and BW = t_b + t_w = 2: (m + p - 1) x 3 */
	CU_ASSERT_EQUAL(r.makespan, 57);
	CU_ASSERT_EQUAL(r.throughput, 16.0 / 57);
	CU_ASSERT_EQUAL(r.tokens_per_s, 0);
	sweep_release(&sw);
}

/* What an emit callback saw: each record's index, status and makespan, in order. */
struct seen {
	uint64_t index[256];
	bool ok[256];
	double makespan[256];
	int n;
	int stop_after; /* return 42 once this many were seen; 0: never */
};

static int collect(void *ctx, const struct sweep_record *r)
{
	struct seen *s = ctx;

	CU_ASSERT_FATAL(s->n < (int)(sizeof(s->index) / sizeof(s->index[0])));
	s->index[s->n] = r->index;
	s->ok[s->n] = r->ok;
	s->makespan[s->n] = r->makespan;
	s->n++;
	return s->n == s->stop_after ? 42 : 0;
}

/* A sweep of small points, some of them skipped: every schedule x p x m x v; returns how
 * many (8 a schedule). */
static int init_grid(struct sweep *sw)
{
	size_t n;
	struct config base;

	config_init(&base);
	unit_set(&base, "t_comm", "0.25");
	sweep_init(sw, &base);
	axis(sw, "schedule", "all");
	axis(sw, "p", "2,4");
	axis(sw, "m", "4,8");
	axis(sw, "v", "1,2");
	sched_table(&n);
	CU_ASSERT_FATAL(n * 8 <= 256);
	sw->parallel_work = 0; /* small as it is, the grid runs on the threads it is given */
	return (int)n * 8;
}

static void sweep_run_emits_the_same_records_in_index_order_whatever_the_jobs(void)
{
	static const int jobs[] = {1, 2, 5};
	struct seen want = {0};
	struct sweep sw;
	int skipped = 0, points = init_grid(&sw);

	CU_ASSERT_EQUAL_FATAL(sweep_points(&sw), (uint64_t)points);
	for (uint64_t i = 0; i < (uint64_t)points; i++) {
		struct sweep_record r;

		sweep_evaluate(&sw, i, &r);
		CU_ASSERT_EQUAL_FATAL(collect(&want, &r), 0);
		skipped += !r.ok;
	}
	/* both kinds of point are present */
	CU_ASSERT_TRUE(skipped > 0 && skipped < points);
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		struct seen have = {0};

		CU_ASSERT_EQUAL(sweep_run(&sw, 0, points, jobs[j], collect, &have, NULL), 0);
		CU_ASSERT_EQUAL_FATAL(have.n, points);
		for (int i = 0; i < points; i++) {
			CU_ASSERT_EQUAL(have.index[i], (uint64_t)i);
			CU_ASSERT_EQUAL(have.ok[i], want.ok[i]);
			CU_ASSERT_EQUAL(have.makespan[i], want.makespan[i]);
		}
	}
	sweep_release(&sw);
}

static void sweep_run_emits_only_the_points_from_first_to_last(void)
{
	static const int jobs[] = {1, 3};
	struct sweep sw;

	init_grid(&sw);
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		struct seen have = {0};

		CU_ASSERT_EQUAL(sweep_run(&sw, 5, 17, jobs[j], collect, &have, NULL), 0);
		CU_ASSERT_EQUAL_FATAL(have.n, 12);
		for (int i = 0; i < 12; i++)
			CU_ASSERT_EQUAL(have.index[i], (uint64_t)i + 5);
		have.n = 0;
		CU_ASSERT_EQUAL(sweep_run(&sw, 9, 9, jobs[j], collect, &have, NULL), 0);
		CU_ASSERT_EQUAL(have.n, 0);
	}
	sweep_release(&sw);
}

static void sweep_run_stops_and_returns_what_emit_returned(void)
{
	static const int jobs[] = {1, 2, 5};
	struct sweep sw;
	int points = init_grid(&sw);

	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		struct seen have = {.stop_after = 3};

		CU_ASSERT_EQUAL(sweep_run(&sw, 0, (uint64_t)points, jobs[j], collect, &have, NULL),
		                42);
		CU_ASSERT_EQUAL(have.n, 3);
		CU_ASSERT_EQUAL(have.index[2], 2);
	}
	sweep_release(&sw);
}

static void sweep_shard_splits_the_points_into_contiguous_shards_of_near_equal_size(void)
{
	static const uint64_t npoints[] = {0, 1, 7, 100, SWEEP_MAX_POINTS};
	static const uint64_t nshards[] = {1, 2, 3, 7};

	for (size_t i = 0; i < sizeof(npoints) / sizeof(npoints[0]); i++)
		for (size_t j = 0; j < sizeof(nshards) / sizeof(nshards[0]); j++) {
			uint64_t n = nshards[j], end = 0, least = UINT64_MAX, most = 0;

			for (uint64_t k = 1; k <= n; k++) {
				uint64_t first, last;

				sweep_shard(npoints[i], k, n, &first, &last);
				CU_ASSERT_EQUAL(first, end);
				CU_ASSERT_TRUE(first <= last);
				least = last - first < least ? last - first : least;
				most = last - first > most ? last - first : most;
				end = last;
			}
			CU_ASSERT_EQUAL(end, npoints[i]);
			CU_ASSERT_TRUE(most - least <= 1);
		}
}

static void sweep_shard_of_more_shards_than_points_gives_empty_shards_up_to_the_limit(void)
{
	uint64_t n = SWEEP_MAX_POINTS, first, last;

	sweep_shard(5, 1, n, &first, &last);
	CU_ASSERT_EQUAL(first, 0);
	CU_ASSERT_EQUAL(last, 0);
	sweep_shard(5, n, n, &first, &last);
	CU_ASSERT_EQUAL(first, 4);
	CU_ASSERT_EQUAL(last, 5);
	sweep_shard(SWEEP_MAX_POINTS, n, n, &first, &last);
	CU_ASSERT_EQUAL(first, SWEEP_MAX_POINTS - 1);
	CU_ASSERT_EQUAL(last, SWEEP_MAX_POINTS);
	sweep_shard(SWEEP_MAX_POINTS - 1, n - 1, n, &first, &last);
	CU_ASSERT_EQUAL(last - first, 1);
	CU_ASSERT_EQUAL(last, SWEEP_MAX_POINTS - 2);
}

/*
 * A record to rank: score is tokens/s and memory the fullest device's bytes with a model, else
 * utilization and peak activations. The figures the other mode ranks by are set in the
 * opposite order, so that ranking by the wrong ones shows.
 */
static struct sweep_record ranked(uint64_t index, bool ok, bool fits, bool model, double score,
                                  double memory)
{
	struct sweep_record r;

	memset(&r, 0, sizeof(r));
	r.index = index;
	r.ok = ok;
	r.fits = fits;
	r.has_model = model;
	r.tokens_per_s = model ? score : -score;
	r.utilization = model ? -score : score;
	r.memory_bytes = model ? memory : -memory;
	r.peak_activations = model ? -memory : memory;
	r.rank_scale = 1;
	return r;
}

/* Asserts that a ranks above b, both ways round. */
static void assert_ranks_above(struct sweep_record a, struct sweep_record b)
{
	CU_ASSERT_TRUE(sweep_rank_compare(&a, &b) < 0);
	CU_ASSERT_TRUE(sweep_rank_compare(&b, &a) > 0);
}

static void sweep_rank_compare_puts_simulated_before_skipped_and_fitting_before_over_memory(void)
{
	for (int model = 0; model <= 1; model++) {
		assert_ranks_above(ranked(9, true, false, model, 1, 9),
		                   ranked(0, false, true, model, 9, 1));
		assert_ranks_above(ranked(9, true, true, model, 1, 9),
		                   ranked(0, true, false, model, 9, 1));
		assert_ranks_above(ranked(9, false, true, model, 1, 9),
		                   ranked(0, false, false, model, 9, 1));
	}
}

static void sweep_rank_compare_ranks_by_tokens_per_second_with_a_model_else_utilization(void)
{
	for (int model = 0; model <= 1; model++)
		assert_ranks_above(ranked(9, true, true, model, 0.75, 9),
		                   ranked(0, true, true, model, 0.5, 1));
}

/* Ranked by a statistic of the noise samples' step, a point's figure is taken at that step:
 * the better figure on paper ranks below when its samples' step is longer by more. */
static void sweep_rank_compare_ranks_at_the_samples_statistic_of_the_step(void)
{
	for (int model = 0; model <= 1; model++) {
		struct sweep_record a = ranked(0, true, true, model, 0.8, 1),
		                    b = ranked(1, true, true, model, 0.75, 1);

		assert_ranks_above(a, b);
		a.rank_scale = 0.9; /* its p99 step is 1/0.9 of its step: 0.72 at it */
		assert_ranks_above(b, a);
	}
}

static void sweep_rank_compare_breaks_ties_by_smaller_memory_then_lower_index(void)
{
	for (int model = 0; model <= 1; model++) {
		struct sweep_record r = ranked(4, true, true, model, 0.5, 3);

		assert_ranks_above(ranked(9, true, true, model, 0.5, 2), r);
		assert_ranks_above(ranked(3, true, true, model, 0.5, 3), r);
		assert_ranks_above(r, ranked(5, true, true, model, 0.5, 3));
		CU_ASSERT_EQUAL(sweep_rank_compare(&r, &r), 0);
	}
}

/* Shuffles the n records of r by a Fisher-Yates pass driven by seed. */
static void shuffle(struct sweep_record *r, int n, uint32_t seed)
{
	for (int i = n - 1; i > 0; i--) {
		struct sweep_record t;
		int j;

		seed = seed * 1664525u + 1013904223u;
		j = (int)((seed >> 8) % (uint32_t)(i + 1));
		t = r[i];
		r[i] = r[j];
		r[j] = t;
	}
}

static void sweep_keep_best_keeps_the_best_in_order_whatever_the_insertion_order(void)
{
	/* best first: 7 (0.9), 4 (0.8, less memory), 1 (0.8), 8 (0.6), then the rest */
	static const uint64_t want[] = {7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 10, 11};
	static const double score[] = {0, 0.8, 0.4, 0.1, 0.8, 0.5, 0.2, 0.9, 0.6, 0.3};
	enum { N = 12 };
	struct sweep_record all[N];

	for (int i = 0; i < 10; i++)
		all[i] = ranked((uint64_t)i, true, true, false, score[i], i == 4 ? 1 : 2);
	all[10] = ranked(10, true, false, false, 1, 1);
	all[11] = ranked(11, false, true, false, 1, 1);
	for (uint32_t seed = 0; seed < 20; seed++) {
		static const int maxes[] = {1, 4, N, N + 3};

		shuffle(all, N, seed);
		for (size_t k = 0; k < sizeof(maxes) / sizeof(maxes[0]); k++) {
			struct sweep_record top[N + 3];
			int n = 0;

			for (int i = 0; i < N; i++)
				sweep_keep_best(top, &n, maxes[k], &all[i]);
			CU_ASSERT_EQUAL_FATAL(n, maxes[k] < N ? maxes[k] : N);
			for (int i = 0; i < n; i++)
				CU_ASSERT_EQUAL(top[i].index, want[i]);
		}
	}
}

static void sweep_run_ranked_counts_simulated_skipped_and_over_memory_points(void)
{
	struct sweep_record top[8];
	struct sweep_totals totals;
	struct seen have = {0};
	struct sweep sw;
	int ntop = -1;

	/* 1f1b and interleaved at v = 1 and 2: points 1 and 2 are skipped */
	sweep_init(&sw, NULL);
	axis(&sw, "schedule", "1f1b,interleaved");
	axis(&sw, "v", "1,2");
	CU_ASSERT_EQUAL(
	        sweep_run_ranked(&sw, 0, 4, 2, top, 8, &ntop, &totals, collect, &have, NULL), 0);
	CU_ASSERT_EQUAL(have.n, 4);
	CU_ASSERT_EQUAL(totals.points, 4);
	CU_ASSERT_EQUAL(totals.simulated, 2);
	CU_ASSERT_EQUAL(totals.skipped, 2);
	CU_ASSERT_EQUAL(totals.over_memory, 0);
	CU_ASSERT_EQUAL_FATAL(ntop, 2);
	/* interleaving halves the bubble: (p-1)/(mv+p-1) = 3/19 against 3/11 */
	CU_ASSERT_EQUAL(top[0].index, 3);
	CU_ASSERT_EQUAL(top[1].index, 0);
	ASSERT_NEAR(top[0].utilization, 16.0 / 19);
	ASSERT_NEAR(top[1].utilization, 8.0 / 11);
	sweep_release(&sw);

	/* of p x tp in {1, 8}^2 only p = tp = 8 fits */
	for (int fit = 0; fit <= 1; fit++) {
		init_memory_sweep(&sw, fit);
		CU_ASSERT_EQUAL(
		        sweep_run_ranked(&sw, 0, 4, 1, top, 8, &ntop, &totals, NULL, NULL, NULL),
		        0);
		CU_ASSERT_EQUAL(totals.points, 4);
		CU_ASSERT_EQUAL(totals.simulated, fit ? 1 : 4);
		CU_ASSERT_EQUAL(totals.skipped, fit ? 3 : 0);
		CU_ASSERT_EQUAL(totals.over_memory, 3);
		CU_ASSERT_EQUAL_FATAL(ntop, fit ? 1 : 4);
		CU_ASSERT_EQUAL(top[0].index, 3);
		CU_ASSERT_TRUE(top[0].fits);
		sweep_release(&sw);
	}
}

/* The table's first line counts the points over GPU memory with the simulated ones, or with
 * the skipped ones under --fits. */
static void report_sweep_table_counts_points_over_memory_where_they_went(void)
{
	static const char *const want[] = {
	        "4 points: 4 simulated (3 over GPU memory), 0 skipped\n",
	        "4 points: 1 simulated, 3 skipped (3 over GPU memory)\n",
	};

	for (int fit = 0; fit <= 1; fit++) {
		struct sweep_record top[8];
		struct sweep_totals totals;
		struct sweep sw;
		char *text = NULL, line[128] = "";
		size_t len = 0;
		int ntop = 0;
		FILE *out = open_memstream(&text, &len);

		init_memory_sweep(&sw, fit);
		CU_ASSERT_EQUAL(
		        sweep_run_ranked(&sw, 0, 4, 1, top, 8, &ntop, &totals, NULL, NULL, NULL),
		        0);
		CU_ASSERT_EQUAL(report_sweep_table(out, &sw, top, ntop, &totals), 0);
		fclose(out);
		sscanf(text, "%127[^\n]", line);
		CU_ASSERT_EQUAL(strncmp(text, want[fit], strlen(want[fit])), 0);
		if (strncmp(text, want[fit], strlen(want[fit])) != 0)
			fprintf(stderr, "\n  got '%s'\n", line);
		free(text);
		sweep_release(&sw);
	}
}

/* Llama 3 70B on 32 GPUs at tp = 8, p = 4, a global batch of 512 in micro-batches of 2. */
static void init_global_batch(struct config *c)
{
	init_model(c);
	unit_set(c, "gpus", "32");
	unit_set(c, "tp", "8");
	unit_set(c, "p", "4");
	unit_set(c, "global_batch", "512");
	unit_set(c, "mbs", "2");
}

/* Settles c, which must fail with a usage error starting with prefix. */
static void assert_unsettled(const struct config *c, const char *prefix)
{
	struct config out;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(config_settle(c, &out, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_EQUAL(strncmp(err.msg, prefix, strlen(prefix)), 0);
}

static void config_settle_derives_m_and_dp_from_the_global_batch(void)
{
	struct config c, out;
	struct pp_error err = {0};
	int dp = 0;

	init_global_batch(&c);
	CU_ASSERT_EQUAL(config_settle(&c, &out, &err), 0);
	CU_ASSERT_EQUAL(out.m, 256);
	CU_ASSERT_EQUAL(out.dp, 1);
	CU_ASSERT_EQUAL(config_dp(&c, &dp, &err), 0);
	CU_ASSERT_EQUAL(dp, 1);
	/* the input is left alone */
	CU_ASSERT_EQUAL(c.m, 8);
	unit_set(&c, "gpus", "64");
	CU_ASSERT_EQUAL(config_settle(&c, &out, &err), 0);
	CU_ASSERT_EQUAL(out.m, 128);
	CU_ASSERT_EQUAL(out.dp, 2);
	/* an explicit m that agrees is fine */
	unit_set(&c, "m", "128");
	CU_ASSERT_EQUAL(config_settle(&c, &out, &err), 0);
	CU_ASSERT_EQUAL(out.m, 128);
}

static void config_settle_rejects_a_global_batch_that_is_not_whole_microbatches(void)
{
	struct config c;

	/* dp = 2: a step of micro-batches takes mbs 2 x dp 2 = 4 sequences */
	init_global_batch(&c);
	unit_set(&c, "gpus", "64");
	unit_set(&c, "global_batch", "510");
	assert_unsettled(&c, "--global-batch '510': ");
	unit_set(&c, "global_batch", "511");
	unit_set(&c, "gpus", "32");
	assert_unsettled(&c, "--global-batch '511': ");
	/* so is a GPU count p x tp does not divide */
	unit_set(&c, "global_batch", "512");
	unit_set(&c, "gpus", "48");
	assert_unsettled(&c, "--tp '8': ");
}

static void config_settle_rejects_an_explicit_m_that_disagrees_with_the_global_batch(void)
{
	struct config c;

	init_global_batch(&c);
	unit_set(&c, "m", "128");
	assert_unsettled(&c, "--microbatches '128': disagrees with --global-batch 512 = m 256");
}

static void config_settle_leaves_m_alone_without_a_global_batch(void)
{
	struct config c, out;
	struct pp_error err = {0};

	init_model(&c);
	unit_set(&c, "gpus", "32");
	unit_set(&c, "tp", "8");
	unit_set(&c, "m", "12");
	CU_ASSERT_EQUAL(config_settle(&c, &out, &err), 0);
	CU_ASSERT_EQUAL(out.m, 12);
	CU_ASSERT_EQUAL(out.dp, 1);
	/* explicit costs ignore a global batch */
	config_init(&c);
	c.global_batch = 512;
	CU_ASSERT_EQUAL(config_settle(&c, &out, &err), 0);
	CU_ASSERT_EQUAL(out.m, 8);
}

/* The v config_settle gives schedule at v, set by the command line when `given`. */
static int settled_v(const char *schedule, const char *v, bool given)
{
	struct config c, out;
	struct pp_error err = {0};

	config_init(&c);
	unit_set(&c, "schedule", schedule);
	if (given)
		unit_set(&c, "v", v);
	else
		c.v = atoi(v);
	CU_ASSERT_EQUAL(config_settle(&c, &out, &err), 0);
	return out.v;
}

static void config_settle_gives_v_the_schedule_s_fewest_chunks_unless_v_is_set(void)
{
	CU_ASSERT_EQUAL(settled_v("zbv", "1", false), 2);
	CU_ASSERT_EQUAL(settled_v("interleaved", "1", false), 2);
	CU_ASSERT_EQUAL(settled_v("dualpipev", "1", false), 2);
	CU_ASSERT_EQUAL(settled_v("1f1b", "1", false), 1);
	CU_ASSERT_EQUAL(settled_v("loopedbfs", "1", false), 1);
	CU_ASSERT_EQUAL(settled_v("interleaved", "3", false), 3);
	CU_ASSERT_EQUAL(settled_v("interleaved", "1", true), 1);
	CU_ASSERT_EQUAL(settled_v("zbv", "1", true), 1);
}

/* The break-even settings: p = 4, t_comm = 0.3 and m micro-batches. */
static void init_breakeven(struct config *c, const char *m)
{
	config_init(c);
	unit_set(c, "p", "4");
	unit_set(c, "m", m);
	unit_set(c, "t_comm", "0.3");
}

/* The makespan of c run with schedule at v chunks in mode comm. */
static double makespan_with(const struct config *c, const char *schedule, int v, enum pp_comm comm)
{
	struct config x = *c;
	char num[16];

	snprintf(num, sizeof(num), "%d", v);
	unit_set(&x, "schedule", schedule);
	unit_set(&x, "v", num);
	unit_set(&x, "comm", config_comm_name(comm));
	return makespan_of(&x);
}

static void breakeven_run_orders_rows_by_comm_then_v_and_follows_the_document_s_inequality(void)
{
	static const enum pp_comm comms[] = {PP_COMM_OVERLAP, PP_COMM_BLOCKING};
	static const int vs[] = {1, 2, 4, 8};
	struct breakeven_row rows[8];
	struct config c;

	init_breakeven(&c, "8");
	CU_ASSERT_EQUAL(breakeven_run(&c, NULL, 0, comms, 2, vs, 4, rows, &(struct pp_error){0}), 0);
	for (int k = 0; k < 2; k++) {
		double base = makespan_with(&c, "1f1b", 1, comms[k]);

		for (int i = 0; i < 4; i++) {
			const struct breakeven_row *r = &rows[k * 4 + i];
			double v = vs[i], b1 = 3.0 / (8 + 3), bv = 3.0 / (8 * v + 3);

			CU_ASSERT_TRUE_FATAL(r->ok);
			CU_ASSERT_EQUAL(r->comm, comms[k]);
			CU_ASSERT_EQUAL(r->v, vs[i]);
			CU_ASSERT_EQUAL(r->p, 4);
			CU_ASSERT_EQUAL(r->m, 8);
			CU_ASSERT_STRING_EQUAL(r->link, "tcomm 0.3");
			CU_ASSERT_STRING_EQUAL(r->time_unit, "t");
			CU_ASSERT_EQUAL(r->base_time, base);
			CU_ASSERT_EQUAL(r->time, vs[i] == 1 ? base
			                                    : makespan_with(&c, "interleaved",
			                                                    vs[i], comms[k]));
			ASSERT_NEAR(r->gain, 1 - r->time / base);
			ASSERT_NEAR(r->t_comm, 0.3);
			ASSERT_NEAR(r->lhs, 0.3 * v * 3 * 8);
			ASSERT_NEAR(r->rhs, (b1 - bv) * base);
			CU_ASSERT_EQUAL(r->predicted, r->lhs <= r->rhs);
			CU_ASSERT_EQUAL(r->pays, r->time < base);
		}
		/* the baseline row */
		CU_ASSERT_EQUAL(rows[k * 4].gain, 0);
		CU_ASSERT_EQUAL(rows[k * 4].rhs, 0);
		CU_ASSERT_FALSE(rows[k * 4].pays);
		CU_ASSERT_FALSE(rows[k * 4].predicted);
		ASSERT_NEAR(rows[k * 4 + 1].lhs, 14.4);
	}
}

static void breakeven_run_gives_the_reason_for_a_v_interleaving_rejects(void)
{
	static const enum pp_comm comm = PP_COMM_OVERLAP;
	static const int vs[] = {1, 2};
	struct breakeven_row rows[2];
	struct config c;

	/* interleaved with p = 4 takes m = 8 or 10, not 9 */
	init_breakeven(&c, "9");
	CU_ASSERT_EQUAL(breakeven_run(&c, NULL, 0, &comm, 1, vs, 2, rows, &(struct pp_error){0}), 0);
	CU_ASSERT_TRUE(rows[0].ok);
	CU_ASSERT_EQUAL(rows[0].base_time, makespan_with(&c, "1f1b", 1, comm));
	CU_ASSERT_FALSE(rows[1].ok);
	CU_ASSERT_EQUAL(rows[1].v, 2);
	CU_ASSERT_EQUAL(rows[1].comm, comm);
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[1].reason, "--microbatches '9'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[1].reason, "nearest valid m: 8 and 10"));
	CU_ASSERT_EQUAL(rows[1].time, 0);
}

static void breakeven_run_puts_links_outermost_then_comms_and_prices_each_link(void)
{
	static const char *const links[] = {"nvlink3", "pcie4"};
	static const enum pp_comm comms[] = {PP_COMM_OVERLAP, PP_COMM_BLOCKING};
	static const int vs[] = {1, 2};
	struct breakeven_row rows[8];
	struct config c;

	config_init(&c);
	unit_set(&c, "msg_bytes", "1000000");
	CU_ASSERT_EQUAL(breakeven_run(&c, links, 2, comms, 2, vs, 2, rows, &(struct pp_error){0}), 0);
	for (int l = 0; l < 2; l++)
		for (int k = 0; k < 2; k++) {
			struct config x = c;
			struct sim *s;

			unit_set(&x, "link", links[l]);
			unit_set(&x, "comm", config_comm_name(comms[k]));
			s = unit_run(&x, 0);
			for (int i = 0; i < 2; i++) {
				const struct breakeven_row *r = &rows[(l * 2 + k) * 2 + i];

				CU_ASSERT_TRUE_FATAL(r->ok);
				CU_ASSERT_STRING_EQUAL(r->link, links[l]);
				CU_ASSERT_EQUAL(r->comm, comms[k]);
				CU_ASSERT_EQUAL(r->v, vs[i]);
				CU_ASSERT_STRING_EQUAL(r->time_unit, "ms");
				CU_ASSERT_EQUAL(r->base_time, s->metrics.makespan);
				CU_ASSERT_DOUBLE_EQUAL(r->t_comm, config_msg_time(&x), 1e-6);
			}
			sim_free(s);
		}
	/* 3 us + 1 MB at 300 GB/s against 10 us + 1 MB at 32 GB/s */
	CU_ASSERT_DOUBLE_EQUAL(rows[0].t_comm, 0.003 + 1e6 / 300e9 * 1e3, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(rows[4].t_comm, 0.010 + 1e6 / 32e9 * 1e3, 1e-6);
	CU_ASSERT_TRUE(rows[4].t_comm > rows[0].t_comm);
	CU_ASSERT_TRUE(rows[4].base_time > rows[0].base_time);
}

static void breakeven_run_without_message_cost_predicts_when_both_sides_are_equal(void)
{
	static const enum pp_comm comm = PP_COMM_OVERLAP;
	static const int vs[] = {1, 2};
	struct breakeven_row rows[2];
	struct config c;

	config_init(&c);
	CU_ASSERT_EQUAL(breakeven_run(&c, NULL, 0, &comm, 1, vs, 2, rows, &(struct pp_error){0}), 0);
	CU_ASSERT_STRING_EQUAL(rows[0].link, "tcomm 0");
	/* v = 1: 0 <= 0 predicts a gain the simulation does not find */
	CU_ASSERT_EQUAL(rows[0].lhs, 0);
	CU_ASSERT_EQUAL(rows[0].rhs, 0);
	CU_ASSERT_TRUE(rows[0].predicted);
	CU_ASSERT_FALSE(rows[0].pays);
	/* v = 2: the bubble shrinks from 3/11 to 3/19 of the 1F1B makespan (11 x 3) */
	CU_ASSERT_EQUAL(rows[1].lhs, 0);
	ASSERT_NEAR(rows[1].rhs, (3.0 / 11 - 3.0 / 19) * 33);
	CU_ASSERT_TRUE(rows[1].predicted);
	CU_ASSERT_TRUE(rows[1].pays);
	ASSERT_NEAR(rows[1].time, 19 * 1.5);
	ASSERT_NEAR(rows[1].gain, 1 - 28.5 / 33);
}

/*
 * With one stage every v runs the same work: the few ticks by which the rounding of each
 * chunk's op time makes one run faster are no gain (Llama-3 8B at tp = 2, m = 8 over InfiniBand
 * is one such case: v = 4 ends a few ticks before v = 1).
 */
static void breakeven_run_finds_no_gain_within_rounding_with_one_stage(void)
{
	static const enum pp_comm comm = PP_COMM_OVERLAP;
	static const int vs[] = {1, 2, 4};
	static const char *const links[] = {"ib-hdr"};
	struct breakeven_row rows[3];
	struct config c;
	bool rounded = false;

	init_model(&c);
	unit_set(&c, "model", "llama3-8b");
	unit_set(&c, "p", "1");
	unit_set(&c, "m", "8");
	unit_set(&c, "tp", "2");
	unit_set(&c, "mbs", "2");
	unit_set(&c, "efficiency", "0.5"); /* the uniform model's times give the case */
	CU_ASSERT_EQUAL(breakeven_run(&c, links, 1, &comm, 1, vs, 3, rows, &(struct pp_error){0}), 0);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_TRUE_FATAL(rows[i].ok);
		CU_ASSERT(rows[i].gain < BREAKEVEN_MIN_GAIN && rows[i].gain > -BREAKEVEN_MIN_GAIN);
		CU_ASSERT_FALSE(rows[i].pays);
		rounded = rounded || rows[i].time < rows[i].base_time;
	}
	CU_ASSERT_TRUE(rounded); /* the case this test is about: a faster run by rounding */
}

/* A record of the given layout and step time, for advise_distinct. */
static struct sweep_record layout(const char *schedule, int tp, int p, int v, int dp, int mbs,
                                  int m, double step_time)
{
	struct sweep_record r;

	memset(&r, 0, sizeof(r));
	snprintf(r.schedule, sizeof(r.schedule), "%s", schedule);
	r.tp = tp;
	r.p = p;
	r.v = v;
	r.dp = dp;
	r.mbs = mbs;
	r.m = m;
	r.step_time = step_time;
	return r;
}

static void advise_distinct_tells_another_layout_from_the_same_run_under_another_name(void)
{
	struct sweep_record best = layout("1f1b", 2, 4, 1, 4, 2, 8, 100);
	struct sweep_record one = layout("1f1b", 2, 1, 1, 16, 2, 2, 90);
	struct sweep_record same, other;

	/* another tp, p, dp, micro-batch size or m is another choice */
	other = layout("1f1b", 4, 4, 1, 2, 2, 16, 100);
	CU_ASSERT_TRUE(advise_distinct(&best, &other));
	other = layout("1f1b", 2, 4, 1, 4, 1, 16, 100);
	CU_ASSERT_TRUE(advise_distinct(&best, &other));
	/* with p > 1, another schedule or v that changes the step time is another choice... */
	other = layout("interleaved", 2, 4, 2, 4, 2, 8, 95);
	CU_ASSERT_TRUE(advise_distinct(&best, &other));
	/* ...and one that gives the same step time at the same layout is not (zbh1 and zb1p) */
	same = layout("zb1p", 2, 4, 1, 4, 2, 8, 100);
	CU_ASSERT_FALSE(advise_distinct(&best, &same));
	/* with p = 1 a schedule or v of the same step is the same run, whatever its rounding */
	same = layout("interleaved", 2, 1, 2, 16, 2, 2, 90.000000001);
	CU_ASSERT_FALSE(advise_distinct(&one, &same));
	same = layout("zbh1", 2, 1, 1, 16, 2, 2, 90);
	CU_ASSERT_FALSE(advise_distinct(&one, &same));
	/* but overlapped pairs hide collectives there too: another step is another choice */
	other = layout("dualpipev", 2, 1, 2, 16, 2, 2, 88);
	CU_ASSERT_TRUE(advise_distinct(&one, &other));
	/* but another expert- or context-parallel degree is another run, without a pipeline too
	 * (EP 8 against EP 16 on the same GPUs) */
	other = one;
	other.ep = 8;
	CU_ASSERT_TRUE(advise_distinct(&one, &other));
	other = best;
	other.cp = 2;
	CU_ASSERT_TRUE(advise_distinct(&best, &other));
}

/* The longest message time over the pipeline hops of s, and that of its last hop, in units. */
static double slowest_hop_of(const struct sim *s, double *last)
{
	double t = 0;

	for (int st = 0; st + 1 < s->cost->S; st++) {
		*last = pp_time_to_units(s->cost->msg_time[st], s->cost->tick);
		t = *last > t ? *last : t;
	}
	return t;
}

static void breakeven_run_takes_the_slowest_hop_s_message_time_with_a_model(void)
{
	static const enum pp_comm comm = PP_COMM_OVERLAP;
	static const int vs[] = {1, 2};
	struct breakeven_row rows[2];
	struct config c;
	struct sim *s;
	double slowest, last = 0;

	/* tp = 2 in nodes of 8: stages 0-3 on one node, 4-7 on the next; only hop 3 leaves it */
	init_model(&c);
	unit_set(&c, "p", "8");
	unit_set(&c, "tp", "2");
	unit_set(&c, "gpus_per_node", "8");
	CU_ASSERT_EQUAL(breakeven_run(&c, NULL, 0, &comm, 1, vs, 2, rows, &(struct pp_error){0}), 0);
	s = unit_run(&c, 0);
	slowest = slowest_hop_of(s, &last);
	CU_ASSERT_TRUE(slowest > last);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_TRUE_FATAL(rows[i].ok);
		CU_ASSERT_STRING_EQUAL(rows[i].link, "nvlink3/ib-hdr");
		CU_ASSERT_STRING_EQUAL(rows[i].time_unit, "ms");
		CU_ASSERT_EQUAL(rows[i].t_comm, slowest);
		CU_ASSERT_EQUAL(rows[i].base_time, s->metrics.makespan);
		ASSERT_NEAR(rows[i].lhs, slowest * vs[i] * 7 * 8);
	}
	sim_free(s);
}

/* The base advise needs: Llama 3 70B, 32 GPUs in nodes of 8, a global batch of 512. */
static void init_advice(struct config *c)
{
	init_model(c);
	unit_set(c, "gpus", "32");
	unit_set(c, "gpus_per_node", "8");
	unit_set(c, "global_batch", "512");
}

/* Asserts that advise_check refuses c with a usage error containing names. */
static void assert_not_advisable(const struct config *c, const char *names)
{
	struct sweep sw;
	struct pp_error err = {0};

	sweep_init(&sw, c);
	CU_ASSERT_EQUAL(advise_check(&sw, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, names));
	sweep_release(&sw);
}

static void advise_check_names_the_first_missing_option(void)
{
	struct config c;
	struct sweep sw;
	struct pp_error err = {0};

	config_init(&c);
	assert_not_advisable(&c, "--model");
	init_model(&c);
	assert_not_advisable(&c, "--gpus");
	unit_set(&c, "gpus", "32");
	assert_not_advisable(&c, "--global-batch");
	unit_set(&c, "global_batch", "512");
	sweep_init(&sw, &c);
	CU_ASSERT_EQUAL(advise_check(&sw, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	sweep_release(&sw);
}

static void advise_check_rejects_a_list_of_values_for_a_fixed_option(void)
{
	struct config c;
	struct sweep sw;
	struct pp_error err = {0};

	init_advice(&c);
	sweep_init(&sw, &c);
	axis(&sw, "gpus", "64");
	CU_ASSERT_EQUAL(advise_check(&sw, &err), 0);
	axis(&sw, "gpus", "32,64");
	CU_ASSERT_EQUAL(advise_check(&sw, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "advise: --gpus takes one value (ppsim sweep takes lists)");
	sweep_release(&sw);
}

static void advise_add_axes_searches_tp_p_v_mbs_and_every_schedule(void)
{
	struct config c;
	struct sweep sw;
	struct pp_error err = {0};
	char schedules[1024];

	init_advice(&c);
	sweep_init(&sw, &c);
	CU_ASSERT_FALSE(sw.require_fit);
	CU_ASSERT_EQUAL(advise_add_axes(&sw, &err), 0);
	CU_ASSERT_TRUE(sw.require_fit);
	CU_ASSERT_EQUAL_FATAL(sw.naxes, 5);
	assert_axis(&sw.axes[0], "tp", "--tp", "1,2,4,8");
	assert_axis(&sw.axes[1], "p", "--stages", "1,2,4,8,16,32");
	assert_axis(&sw.axes[2], "v", "--chunks", ADVISE_CHUNKS);
	assert_axis(&sw.axes[3], "mbs", "--mbs", ADVISE_MBS);
	assert_axis(&sw.axes[4], "schedule", "--schedule",
	            dense_schedules(schedules, sizeof(schedules)));
	CU_ASSERT_STRING_EQUAL(ADVISE_CHUNKS, "1,2,4");
	CU_ASSERT_STRING_EQUAL(ADVISE_MBS, "1,2,4,8");
	sweep_release(&sw);

	/* a mixture of experts: every schedule, interleaved-combined too */
	init_advice(&c);
	unit_set(&c, "model", "qwen3-30b-a3b");
	sweep_init(&sw, &c);
	CU_ASSERT_EQUAL(advise_add_axes(&sw, &err), 0);
	assert_axis(find_axis(&sw, "schedule"), "schedule", "--schedule",
	            every_schedule(schedules, sizeof(schedules)));
	sweep_release(&sw);
}

static void advise_add_axes_adds_no_axis_for_an_option_set_or_varied_already(void)
{
	struct config c;
	struct sweep sw;
	struct pp_error err = {0};
	char schedules[1024];

	init_advice(&c);
	unit_set(&c, "tp", "8");
	sweep_init(&sw, &c);
	axis(&sw, "v", "2");
	CU_ASSERT_EQUAL(advise_add_axes(&sw, &err), 0);
	CU_ASSERT_EQUAL_FATAL(sw.naxes, 4);
	assert_axis(&sw.axes[0], "v", "--chunks", "2");
	assert_axis(&sw.axes[1], "p", "--stages", "1,2,4,8,16,32");
	assert_axis(&sw.axes[2], "mbs", "--mbs", "1,2,4,8");
	assert_axis(&sw.axes[3], "schedule", "--schedule",
	            dense_schedules(schedules, sizeof(schedules)));
	CU_ASSERT_PTR_NULL(find_axis(&sw, "tp"));
	sweep_release(&sw);
}

static void advise_add_axes_bounds_p_by_the_layers_and_tp_by_the_node(void)
{
	struct config c;
	struct sweep sw;
	struct pp_error err = {0};

	init_advice(&c);
	unit_set(&c, "layers", "16");
	unit_set(&c, "gpus_per_node", "4");
	unit_set(&c, "gpus", "96");
	sweep_init(&sw, &c);
	CU_ASSERT_EQUAL(advise_add_axes(&sw, &err), 0);
	assert_axis(find_axis(&sw, "tp"), "tp", "--tp", "1,2,4");
	assert_axis(find_axis(&sw, "p"), "p", "--stages", "1,2,3,4,6,8,12,16");
	sweep_release(&sw);
}

static void advise_add_axes_lists_every_divisor_of_a_large_gpu_count(void)
{
	struct config c;
	struct sweep sw;
	struct pp_error err = {0};
	const struct sweep_axis *p;

	/* 16216200 = 2^3 3^4 5^2 7 11 13 has 4 x 5 x 3 x 2 x 2 x 2 = 480 divisors, 395 of them
	 * within the device limit, 65536: the largest 64350 */
	init_advice(&c);
	unit_set(&c, "layers", "16777216");
	unit_set(&c, "gpus", "16216200");
	sweep_init(&sw, &c);
	CU_ASSERT_EQUAL_FATAL(advise_add_axes(&sw, &err), 0);
	p = find_axis(&sw, "p");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p->nvalues, 395);
	CU_ASSERT_STRING_EQUAL(p->values[p->nvalues - 1], "64350");
	for (int i = 0; i < p->nvalues; i++)
		CU_ASSERT_EQUAL(16216200 % atol(p->values[i]), 0);
	sweep_release(&sw);
}

static const struct unit_test tests[] = {
        UNIT_TEST(sweep_set_axis_expands_lists_and_ranges_into_canonical_values),
        UNIT_TEST(sweep_set_axis_expands_all_to_every_schedule_in_table_order),
        UNIT_TEST(sweep_set_axis_rejects_bad_specs_with_a_usage_error_naming_the_label),
        UNIT_TEST(sweep_set_axis_takes_a_list_option_or_a_file_whole),
        UNIT_TEST(sweep_set_axis_keeps_the_earlier_axis_when_a_new_spec_is_rejected),
        UNIT_TEST(sweep_set_axis_replaces_the_earlier_axis_of_the_same_option),
        UNIT_TEST(sweep_set_axis_allows_exactly_the_point_limit_and_rejects_one_axis_more),
        UNIT_TEST(
                sweep_set_axis_keeps_the_earlier_axis_when_its_replacement_exceeds_the_point_limit),
        UNIT_TEST(sweep_set_axis_rejects_more_values_than_an_axis_may_take),
        UNIT_TEST(sweep_set_axis_allows_at_most_sixteen_options_to_vary),
        UNIT_TEST(sweep_options_of_one_value_take_no_record_slot),
        UNIT_TEST(sweep_points_is_one_without_axes_and_the_product_of_the_axis_sizes),
        UNIT_TEST(sweep_point_config_varies_the_last_axis_fastest),
        UNIT_TEST(sweep_evaluate_gives_a_valid_point_the_figures_of_a_direct_run),
        UNIT_TEST(sweep_evaluate_skips_a_schedule_that_rejects_its_chunks_and_names_the_option),
        UNIT_TEST(sweep_evaluate_fills_the_shape_of_a_skipped_point_with_v_settled),
        UNIT_TEST(sweep_evaluate_settles_zbv_to_two_chunks_without_v),
        UNIT_TEST(sweep_evaluate_skips_a_point_over_gpu_memory_when_it_must_fit),
        UNIT_TEST(sweep_evaluate_fills_a_skipped_point_s_layout_settled_from_the_global_batch),
        UNIT_TEST(sweep_evaluate_keeps_a_point_over_gpu_memory_when_it_need_not_fit),
        UNIT_TEST(sweep_evaluate_throughput_is_tokens_per_second_with_a_model_else_m_per_time),
        UNIT_TEST(sweep_run_emits_the_same_records_in_index_order_whatever_the_jobs),
        UNIT_TEST(sweep_run_emits_only_the_points_from_first_to_last),
        UNIT_TEST(sweep_run_stops_and_returns_what_emit_returned),
        UNIT_TEST(sweep_shard_splits_the_points_into_contiguous_shards_of_near_equal_size),
        UNIT_TEST(sweep_shard_of_more_shards_than_points_gives_empty_shards_up_to_the_limit),
        UNIT_TEST(sweep_rank_compare_puts_simulated_before_skipped_and_fitting_before_over_memory),
        UNIT_TEST(sweep_rank_compare_ranks_by_tokens_per_second_with_a_model_else_utilization),
        UNIT_TEST(sweep_rank_compare_breaks_ties_by_smaller_memory_then_lower_index),
        UNIT_TEST(sweep_rank_compare_ranks_at_the_samples_statistic_of_the_step),
        UNIT_TEST(sweep_keep_best_keeps_the_best_in_order_whatever_the_insertion_order),
        UNIT_TEST(sweep_run_ranked_counts_simulated_skipped_and_over_memory_points),
        UNIT_TEST(report_sweep_table_counts_points_over_memory_where_they_went),
        UNIT_TEST(config_settle_derives_m_and_dp_from_the_global_batch),
        UNIT_TEST(config_settle_rejects_a_global_batch_that_is_not_whole_microbatches),
        UNIT_TEST(config_settle_rejects_an_explicit_m_that_disagrees_with_the_global_batch),
        UNIT_TEST(config_settle_leaves_m_alone_without_a_global_batch),
        UNIT_TEST(config_settle_gives_v_the_schedule_s_fewest_chunks_unless_v_is_set),
        UNIT_TEST(breakeven_run_orders_rows_by_comm_then_v_and_follows_the_document_s_inequality),
        UNIT_TEST(breakeven_run_gives_the_reason_for_a_v_interleaving_rejects),
        UNIT_TEST(breakeven_run_puts_links_outermost_then_comms_and_prices_each_link),
        UNIT_TEST(breakeven_run_without_message_cost_predicts_when_both_sides_are_equal),
        UNIT_TEST(breakeven_run_finds_no_gain_within_rounding_with_one_stage),
        UNIT_TEST(breakeven_run_takes_the_slowest_hop_s_message_time_with_a_model),
        UNIT_TEST(advise_distinct_tells_another_layout_from_the_same_run_under_another_name),
        UNIT_TEST(advise_check_names_the_first_missing_option),
        UNIT_TEST(advise_check_rejects_a_list_of_values_for_a_fixed_option),
        UNIT_TEST(advise_add_axes_searches_tp_p_v_mbs_and_every_schedule),
        UNIT_TEST(advise_add_axes_adds_no_axis_for_an_option_set_or_varied_already),
        UNIT_TEST(advise_add_axes_bounds_p_by_the_layers_and_tp_by_the_node),
        UNIT_TEST(advise_add_axes_lists_every_divisor_of_a_large_gpu_count),
        {NULL, NULL},
};

const struct unit_suite suite_sweep = {"sweep", tests};
