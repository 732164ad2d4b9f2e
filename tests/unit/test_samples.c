/* Unit tests of noise samples: exactness without variance, the same figures for any threads
 * and shards, the laws of jitter and stalls, the draws themselves. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/random.h"
#include "ppsim/samples.h"
#include "unit.h"

/* The schedules the laws are checked on, with their chunks. */
static const struct {
	const char *name;
	int v;
} shapes[] = {{"1f1b", 1},      {"gpipe", 1},     {"interleaved", 2},
              {"zbh1", 1},      {"zbv", 2},       {"dualpipev", 2},
              {"dualpipe", 2},  {"interleaved-combined", 2}};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* A run of shape h on p = 4 devices, m = 8, with messages of 0.25. */
static struct config shape_config(size_t h)
{
	struct config c = unit_config(shapes[h].name, 4, shapes[h].v, 8, 1, 2, 1);

	unit_set(&c, "t_comm", "0.25");
	return c;
}

/* Whether samples a[n] and b[n] are the same, field by field. */
static bool same_samples(const struct sample *a, const struct sample *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].step != b[i].step || a[i].bubble != b[i].bubble ||
		    a[i].critical_device != b[i].critical_device ||
		    a[i].critical_share != b[i].critical_share)
			return false;
	return true;
}

/* Samples [first, last) of s on jobs threads, which must succeed. */
static struct samples run_samples(const struct sim *s, uint64_t first, uint64_t last, int jobs)
{
	struct samples x;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(samples_run(s, first, last, jobs, &x, &err), 0);
	return x;
}

/* Without variance every sample is the deterministic run, stragglers included, and so are the
 * mean and every percentile. */
static void samples_without_variance_equal_the_deterministic_run_exactly(void)
{
	for (size_t h = 0; h < NSHAPES; h++)
		for (int slow = 0; slow < 2; slow++) {
			struct config c = shape_config(h);
			struct sim *s;
			struct samples x;
			struct sample_stats st;

			unit_set(&c, "samples", "20");
			if (slow)
				unit_set(&c, "stragglers", "2:1.5@3,0-1:2");
			s = unit_run(&c, 0);
			x = run_samples(s, 0, 20, 2);
			for (uint64_t j = 0; j < x.n; j++) {
				CU_ASSERT_EQUAL(x.s[j].step, s->metrics.makespan);
				CU_ASSERT_EQUAL(x.s[j].bubble, s->metrics.bubble_ratio);
			}
			CU_ASSERT_EQUAL_FATAL(samples_stats(&x, true, &st), 0);
			CU_ASSERT_EQUAL(st.mean, s->metrics.makespan);
			CU_ASSERT_EQUAL(st.p50, s->metrics.makespan);
			CU_ASSERT_EQUAL(st.p99, s->metrics.makespan);
			CU_ASSERT_EQUAL_FATAL(samples_stats(&x, false, &st), 0);
			CU_ASSERT_EQUAL(st.mean, s->metrics.bubble_ratio);
			samples_release(&x);
			sim_free(s);
		}
}

/* Every noise option on: samples on 1, 2, 3 and 8 threads, and in shards of any cut, are the
 * same samples. */
static void samples_are_the_same_for_any_threads_and_shards(void)
{
	for (size_t h = 0; h < NSHAPES; h++) {
		struct config c = shape_config(h);
		struct sim *s;
		struct samples one, x, a, b;
		static const int jobs[] = {2, 3, 8};

		unit_set(&c, "samples", "40");
		unit_set(&c, "jitter", "lognormal:0.1,B@2=normal:0.3,W=lognormal:0.5");
		unit_set(&c, "link_jitter", "lognormal:0.4");
		unit_set(&c, "stalls", "20:0.5");
		unit_set(&c, "stragglers", "3:1.25@4");
		s = unit_run(&c, 0);
		one = run_samples(s, 0, 40, 1);
		for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
			x = run_samples(s, 0, 40, jobs[j]);
			CU_ASSERT(same_samples(x.s, one.s, 40));
			samples_release(&x);
		}
		a = run_samples(s, 0, 13, 2);
		b = run_samples(s, 13, 40, 3);
		CU_ASSERT(same_samples(a.s, one.s, 13));
		CU_ASSERT(same_samples(b.s, one.s + 13, 27));
		/* the draws vary: not every sample is the same */
		CU_ASSERT(one.s[0].step != one.s[1].step || one.s[1].step != one.s[2].step);
		samples_release(&one);
		samples_release(&a);
		samples_release(&b);
		sim_free(s);
	}
}

/* With independent jitter of mean 1 the mean step is at least the deterministic one (a step is
 * a maximum of sums), for every schedule, both distributions and several seeds. */
static void mean_step_under_independent_jitter_is_at_least_the_deterministic_step(void)
{
	static const char *const jitter[] = {"lognormal:0.2", "normal:0.2", "F=lognormal:0.5"};

	for (size_t h = 0; h < NSHAPES; h++)
		for (size_t k = 0; k < sizeof(jitter) / sizeof(jitter[0]); k++)
			for (int seed = 1; seed <= 3; seed++) {
				struct config c = shape_config(h);
				struct sim *s;
				struct samples x;
				struct sample_stats st;
				char sd[16];

				snprintf(sd, sizeof(sd), "%d", seed);
				unit_set(&c, "samples", "400");
				unit_set(&c, "seed", sd);
				unit_set(&c, "jitter", jitter[k]);
				s = unit_run(&c, 0);
				x = run_samples(s, 0, 400, 2);
				CU_ASSERT_EQUAL_FATAL(samples_stats(&x, true, &st), 0);
				CU_ASSERT(st.mean >= s->metrics.makespan);
				CU_ASSERT(st.min <= st.p50 && st.p50 <= st.p90 && st.p90 <= st.p99 &&
				          st.p99 <= st.max);
				samples_release(&x);
				sim_free(s);
			}
}

/* A stall that is certain (EVERY far below any op) adds LENGTH to every op: one device running
 * gpipe's six ops in a row takes their times and six stalls. */
static void certain_stalls_add_their_length_to_every_op(void)
{
	struct config c = unit_config("gpipe", 1, 1, 3, 1, 2, 1);
	struct sim *s;
	struct samples x;

	unit_set(&c, "samples", "5");
	unit_set(&c, "stalls", "0.000001:0.5");
	s = unit_run(&c, 0);
	x = run_samples(s, 0, 5, 1);
	CU_ASSERT_EQUAL(s->metrics.makespan, 12);
	for (int j = 0; j < 5; j++)
		CU_ASSERT_EQUAL(x.s[j].step, 12 + 6 * 0.5);
	samples_release(&x);
	sim_free(s);
}

/* The draws: the normal quantile at known points, and a million lognormal draws with mean 1 and
 * the coefficient of variation asked (within sampling error of a fixed seed). */
static void draws_have_the_normal_quantiles_and_the_lognormal_moments(void)
{
	double sum = 0, sq = 0, cv = 0.3, sigma = sqrt(log1p(cv * cv)), mu = -sigma * sigma / 2;
	const int n = 1000000;

	CU_ASSERT_DOUBLE_EQUAL(pp_normal_quantile(0.5), 0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pp_normal_quantile(0.975), 1.959963985, 1e-8);
	CU_ASSERT_DOUBLE_EQUAL(pp_normal_quantile(0.01), -2.326347874, 1e-8);
	CU_ASSERT_DOUBLE_EQUAL(pp_normal_quantile(1e-9), -5.997807015, 1e-7);
	for (int i = 0; i < n; i++) {
		double x = exp(mu + sigma * pp_normal_quantile(pp_uniform_of(pp_random_at(7, 1, (uint64_t)i, 0))));

		sum += x;
		sq += x * x;
	}
	CU_ASSERT_DOUBLE_EQUAL(sum / n, 1, 0.002);
	CU_ASSERT_DOUBLE_EQUAL(sqrt(sq / n - (sum / n) * (sum / n)), cv, 0.003);
	/* every draw is inside (0, 1), the extremes too: the top one rounded to 1, whose normal
	 * quantile is infinite (an op of no time, a lognormal run refused) and whose empirical
	 * index is one past the values; a seed's sample 0 op 0 drew it */
	CU_ASSERT_TRUE(pp_uniform_of(0) > 0);
	CU_ASSERT_TRUE(pp_uniform_of(UINT64_MAX) < 1);
	CU_ASSERT_TRUE(isfinite(pp_normal_quantile(pp_uniform_of(UINT64_MAX))));
	CU_ASSERT_EQUAL(pp_random_at(611516349315171048u, 0, 0, 0) >> 11, (UINT64_C(1) << 53) - 1);
	CU_ASSERT_TRUE(pp_uniform_of(pp_random_at(611516349315171048u, 0, 0, 0)) < 1);
	/* neighbouring keys give unrelated values */
	CU_ASSERT_NOT_EQUAL(pp_random_at(1, 0, 0, 0), pp_random_at(1, 0, 0, 1));
	CU_ASSERT_NOT_EQUAL(pp_random_at(1, 0, 1, 0), pp_random_at(1, 1, 0, 0));
}

/* An empirical file whose values are all one makes no variation; its groups are matched by
 * kind and stage, the most specific first; a file without a value for some op is refused. */
static void empirical_samples_come_from_the_file_by_kind_and_stage(void)
{
	const char *path = "test_samples_empirical.csv";
	FILE *f = fopen(path, "w");
	struct config c = unit_config("1f1b", 4, 1, 8, 1, 2, 1);
	struct sim *s;
	struct samples x;
	struct pp_error err = {0};

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("kind,stage,value\nF,*,3\nF,*,3\nB,2,7\nW,*,2\n", f);
	fclose(f);
	unit_set(&c, "samples", "10");
	unit_set(&c, "jitter", "F=empirical:test_samples_empirical.csv");
	s = unit_run(&c, 0);
	x = run_samples(s, 0, 10, 1);
	for (int j = 0; j < 10; j++)
		CU_ASSERT_EQUAL(x.s[j].step, s->metrics.makespan);
	samples_release(&x);
	sim_free(s);
	/* B ops of stage 0 have no group: neither (B, 0), (B, *), (*, 0) nor (*, *) */
	c = unit_config("1f1b", 4, 1, 8, 1, 2, 1);
	unit_set(&c, "samples", "10");
	unit_set(&c, "jitter", "B=empirical:test_samples_empirical.csv");
	s = unit_run(&c, 0);
	CU_ASSERT_EQUAL(samples_run(s, 0, 10, 1, &x, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no value for B ops of stage 0"));
	sim_free(s);
	remove(path);
}

/* Stragglers are in the deterministic run: 1F1B's last device twice as slow takes 3 + 6m + 6. */
static void a_straggler_slows_the_deterministic_run(void)
{
	struct config c = unit_config("1f1b", 4, 1, 8, 1, 1, 1);
	struct sim *s;

	unit_set(&c, "stragglers", "3:2");
	s = unit_run(&c, 0);
	CU_ASSERT_EQUAL(s->metrics.makespan, 3 + 6 * 8 + 6);
	sim_free(s);
}

/* A device twice as slow holds the most of every sample's critical path under small jitter, and
 * its share is above the others' (a quarter each when all four are even). */
static void a_straggler_is_every_sample_s_critical_device(void)
{
	struct config c = unit_config("1f1b", 4, 1, 16, 1, 2, 1);
	struct sim *s;
	struct samples x;
	uint64_t count[4];

	unit_set(&c, "samples", "50");
	unit_set(&c, "jitter", "lognormal:0.02");
	unit_set(&c, "stragglers", "1:2");
	s = unit_run(&c, 0);
	x = run_samples(s, 0, 50, 2);
	for (int j = 0; j < 50; j++) {
		CU_ASSERT_EQUAL(x.s[j].critical_device, 1);
		CU_ASSERT(x.s[j].critical_share > 0.5 && x.s[j].critical_share <= 1);
	}
	CU_ASSERT_EQUAL(samples_critical_counts(&x, count), 0);
	CU_ASSERT_EQUAL(count[1], 50);
	CU_ASSERT_EQUAL(count[0] + count[2] + count[3], 0);
	samples_release(&x);
	sim_free(s);
}

static const struct unit_test tests[] = {
        UNIT_TEST(samples_without_variance_equal_the_deterministic_run_exactly),
        UNIT_TEST(samples_are_the_same_for_any_threads_and_shards),
        UNIT_TEST(mean_step_under_independent_jitter_is_at_least_the_deterministic_step),
        UNIT_TEST(certain_stalls_add_their_length_to_every_op),
        UNIT_TEST(draws_have_the_normal_quantiles_and_the_lognormal_moments),
        UNIT_TEST(empirical_samples_come_from_the_file_by_kind_and_stage),
        UNIT_TEST(a_straggler_slows_the_deterministic_run),
        UNIT_TEST(a_straggler_is_every_sample_s_critical_device),
        {NULL, NULL},
};

const struct unit_suite suite_samples = {"samples", tests};
