/* Unit tests of metrics (through sim_run): bubble definitions, utilization, memory, traffic. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ppsim/metrics.h"
#include "ppsim/sim.h"
#include "unit.h"

static void metrics_bubble_ratio_matches_the_document_for_gpipe_and_1f1b(void)
{
	static const char *const names[] = {"gpipe", "1f1b"};
	static const struct {
		int p, m;
		double bubble;
	} cases[] = {
	        {4, 16, 3.0 / 19}, {4, 4, 3.0 / 7}, {4, 8, 3.0 / 11}, {4, 1, 0.75}, {8, 1, 0.875},
	};

	for (size_t n = 0; n < 2; n++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct sim *s = unit_simulate(names[n], cases[i].p, cases[i].m, 0);

			ASSERT_NEAR(s->metrics.bubble_ratio, cases[i].bubble);
			ASSERT_NEAR(s->metrics.bubble_ratio_theory, cases[i].bubble);
			ASSERT_NEAR(s->metrics.utilization, 1 - cases[i].bubble);
			sim_free(s);
		}
}

static void metrics_bubble_ratio_equals_theory_over_many_shapes(void)
{
	static const char *const names[] = {"gpipe", "1f1b"};

	for (size_t n = 0; n < 2; n++)
		for (int p = 1; p <= 8; p++)
			for (int m = 1; m <= 20; m += 3) {
				struct sim *s = unit_simulate(names[n], p, m, 0);

				ASSERT_NEAR(s->metrics.bubble_ratio, (double)(p - 1) / (m + p - 1));
				ASSERT_NEAR(s->metrics.bubble_ratio,
				            s->metrics.bubble_ratio_theory);
				ASSERT_NEAR(s->metrics.makespan, 3.0 * (m + p - 1));
				sim_free(s);
			}
}

static void metrics_bubble_overhead_and_span_rate_of_1f1b_p4_m8(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	const struct metrics *m = &s->metrics;

	/* makespan 33, every device busy 24; spans 33, 30, 27, 24 */
	CU_ASSERT_EQUAL(m->p, 4);
	ASSERT_NEAR(m->makespan, 33);
	ASSERT_NEAR(m->bubble_overhead, (33.0 - 24) / 24);
	ASSERT_NEAR(m->bubble_rate_span, (33.0 - 24) / 33);
	for (int d = 0; d < 4; d++) {
		ASSERT_NEAR(m->devices[d].busy, 24);
		ASSERT_NEAR(m->devices[d].idle, 9);
		ASSERT_NEAR(m->devices[d].utilization, 24.0 / 33);
		ASSERT_NEAR(m->devices[d].span, 33 - 3 * d);
		ASSERT_NEAR(m->devices[d].comm_wait, 0);
	}
	sim_free(s);
}

static void metrics_bubble_overhead_and_span_rate_with_communication(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0.1);
	const struct metrics *m = &s->metrics;

	/* makespan 34.6; device 0 starts at 0 and ends last, so its span is the makespan */
	ASSERT_NEAR(m->makespan, 34.6);
	ASSERT_NEAR(m->bubble_ratio, 1 - 96 / (4 * 34.6));
	ASSERT_NEAR(m->bubble_overhead, (34.6 - 24) / 24);
	ASSERT_NEAR(m->bubble_rate_span, (34.6 - 24) / 34.6);
	ASSERT_NEAR(m->devices[0].span, 34.6);
	ASSERT_NEAR(m->devices[2].idle, 10.6);
	sim_free(s);
}

static void metrics_theory_is_nan_when_messages_take_time(void)
{
	struct sim *s = unit_simulate("gpipe", 4, 8, 0.1);

	CU_ASSERT_TRUE(isnan(s->metrics.bubble_ratio_theory));
	CU_ASSERT_FALSE(isnan(s->metrics.bubble_ratio));
	sim_free(s);
}

static void metrics_theory_is_nan_when_stages_differ(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	struct metrics m;

	/* the same result judged against a cost whose stage 2 is slower has no closed form */
	s->cost->t_f[2] *= 2;
	metrics_init(&m, s->sched, s->cost, s->result);
	CU_ASSERT_TRUE(isnan(m.bubble_ratio_theory));
	ASSERT_NEAR(m.bubble_ratio, 3.0 / 11);
	metrics_release(&m);
	CU_ASSERT_PTR_NULL(m.devices);
	CU_ASSERT_PTR_NULL(m.channels);
	sim_free(s);
}

static void metrics_utilization_is_busy_over_makespan_per_device(void)
{
	struct sim *s = unit_simulate("gpipe", 2, 1, 0);
	const struct metrics *m = &s->metrics;

	/*
	 * Device 0: F 0-1, BW 4-6; device 1: F 1-2, BW 2-4. Makespan 6, busy 3 each, spans 6
	 * and 3: bubble 1/2, overhead (6-3)/3 = 1, span rate (6-3)/6 = 1/2.
	 */
	ASSERT_NEAR(m->makespan, 6);
	ASSERT_NEAR(m->devices[0].utilization, 0.5);
	ASSERT_NEAR(m->devices[1].utilization, 0.5);
	ASSERT_NEAR(m->devices[0].span, 6);
	ASSERT_NEAR(m->devices[1].span, 3);
	ASSERT_NEAR(m->bubble_ratio, 0.5);
	ASSERT_NEAR(m->bubble_overhead, 1);
	ASSERT_NEAR(m->bubble_rate_span, 0.5);
	sim_free(s);
}

static void metrics_peak_activations_are_m_for_gpipe_and_p_minus_d_for_1f1b(void)
{
	struct sim *g = unit_simulate("gpipe", 4, 8, 0);
	struct sim *o = unit_simulate("1f1b", 4, 8, 0);
	struct sim *few = unit_simulate("1f1b", 4, 2, 0);

	for (int d = 0; d < 4; d++) {
		ASSERT_NEAR(g->metrics.devices[d].peak_activations, 8);
		ASSERT_NEAR(o->metrics.devices[d].peak_activations, 4 - d);
		ASSERT_NEAR(few->metrics.devices[d].peak_activations, d < 3 ? 2 : 1);
	}
	sim_free(g);
	sim_free(o);
	sim_free(few);
}

static void metrics_copy_traffic_per_channel(void)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;
	const struct metrics *m;

	config_init(&c);
	c.p = 3;
	c.m = 4;
	c.t_comm = 0.5;
	c.msg_bytes = 100;
	s = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	m = &s->metrics;
	CU_ASSERT_EQUAL(m->messages, 16);
	CU_ASSERT_EQUAL(m->bytes, 1600);
	ASSERT_NEAR(m->p2p_time, 8);
	CU_ASSERT_EQUAL_FATAL(m->nchannels, 4);
	CU_ASSERT_EQUAL(m->channels[1].src, 1);
	CU_ASSERT_EQUAL(m->channels[1].dst, 0);
	CU_ASSERT_EQUAL(m->channels[1].messages, 4);
	CU_ASSERT_EQUAL(m->channels[1].bytes, 400);
	ASSERT_NEAR(m->channels[1].time, 2);
	ASSERT_NEAR(m->channels[1].utilization, 2 / m->makespan);
	sim_free(s);
}

static void metrics_units_follow_the_tick_with_chunks(void)
{
	struct sched *sc = sched_alloc(1, 2, 1, false, PLACE_LOOP);
	struct config c;
	struct pp_error err = {0};
	struct cost *k;
	struct engine *e;
	struct metrics m;

	/* one device, two chunks of half the device time each: F 0.5 + 0.5, BW 1 + 1 */
	config_init(&c);
	c.p = 1;
	c.v = 2;
	c.m = 1;
	sched_push(sc, 0, OP_F, 0, 0);
	sched_push(sc, 0, OP_F, 0, 1);
	sched_push(sc, 0, OP_BW, 0, 1);
	sched_push(sc, 0, OP_BW, 0, 0);
	k = cost_new_explicit(&c, 0.5);
	e = engine_new(sc, k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL_FATAL(engine_run(e, &err), 0);
	metrics_init(&m, sc, k, engine_result(e));
	ASSERT_NEAR(m.makespan, 3);
	ASSERT_NEAR(m.devices[0].busy, 3);
	ASSERT_NEAR(m.devices[0].peak_activations, 1);
	ASSERT_NEAR(m.bubble_ratio, 0);
	CU_ASSERT_TRUE(isnan(m.bubble_ratio_theory));
	metrics_release(&m);
	engine_free(e);
	cost_free(k);
	sched_free(sc);
}

static void metrics_derive_each_figure_from_a_result_written_by_hand(void)
{
	struct sched *sc = sched_alloc(2, 1, 1, false, PLACE_LOOP);
	struct config c;
	struct cost *k;
	struct device_result devices[2] = {
	        {4000000, 500000, 0, 8000000, 1000000},
	        {6000000, 0, 3000000, 10000000, 2000000},
	};
	struct channel_result channels[1] = {{1, 0, 3, 300, 2500000}};
	struct result r = {2, 10000000, NULL, devices, channels, 1, 3, 300, 2500000};
	struct metrics m;

	/*
	 * Makespan 10; device 0 busy 4 over span 0-8, device 1 busy 6 over span 3-10. Bubble
	 * 1 - 10/20 = 0.5; overhead (10 - 6)/6 = 2/3; span rate (8 - 6)/8 = 0.25, with the
	 * largest span (8), not the makespan.
	 */
	config_init(&c);
	c.p = 2;
	k = cost_new_explicit(&c, 0.5);
	metrics_init(&m, sc, k, &r);
	CU_ASSERT_EQUAL(m.p, 2);
	ASSERT_NEAR(m.makespan, 10);
	ASSERT_NEAR(m.bubble_ratio, 0.5);
	ASSERT_NEAR(m.utilization, 0.5);
	ASSERT_NEAR(m.bubble_overhead, 2.0 / 3);
	ASSERT_NEAR(m.bubble_rate_span, 0.25);
	CU_ASSERT_TRUE(isnan(m.bubble_ratio_theory));
	ASSERT_NEAR(m.devices[0].busy, 4);
	ASSERT_NEAR(m.devices[0].idle, 6);
	ASSERT_NEAR(m.devices[0].utilization, 0.4);
	ASSERT_NEAR(m.devices[0].comm_wait, 0.5);
	ASSERT_NEAR(m.devices[0].span, 8);
	ASSERT_NEAR(m.devices[1].span, 7);
	ASSERT_NEAR(m.devices[0].peak_activations, 1000000.0 / (double)k->act[0]);
	ASSERT_NEAR(m.devices[1].peak_activations, 2000000.0 / (double)k->act[1]);
	CU_ASSERT_EQUAL(m.messages, 3);
	CU_ASSERT_EQUAL(m.bytes, 300);
	ASSERT_NEAR(m.p2p_time, 2.5);
	CU_ASSERT_EQUAL_FATAL(m.nchannels, 1);
	CU_ASSERT_EQUAL(m.channels[0].src, 1);
	CU_ASSERT_EQUAL(m.channels[0].dst, 0);
	ASSERT_NEAR(m.channels[0].time, 2.5);
	ASSERT_NEAR(m.channels[0].utilization, 0.25);
	metrics_release(&m);
	cost_free(k);
	sched_free(sc);
}

/* Simulates c, which must succeed. */
static struct sim *simulate_config(const struct config *c)
{
	struct pp_error err = {0};
	struct sim *s = sim_run(c, &err);

	if (s == NULL)
		fprintf(stderr, "%s p=%d v=%d m=%d: %s\n", c->schedule, c->p, c->v, c->m, err.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}

/* A config for schedule with p devices, v chunks, m micro-batches and times t_f, t_b, t_w. */
static struct config config_with(const char *schedule, int p, int v, int m, double t_f, double t_b,
                                 double t_w)
{
	struct config c;

	config_init(&c);
	strcpy(c.schedule, schedule);
	c.p = p;
	c.v = v;
	c.m = m;
	c.t_f = t_f;
	c.t_b = t_b;
	c.t_w = t_w;
	return c;
}

static void metrics_interleaved_p4_v2_m8_has_bubble_3_over_19_and_makespan_28_5(void)
{
	struct config c = config_with("interleaved", 4, 2, 8, 1, 1, 1);
	struct sim *s = simulate_config(&c);
	const struct metrics *m = &s->metrics;

	/* 24 units of work per device; 3/19 of the makespan idle: 24 * 19/16 = 28.5 */
	ASSERT_NEAR(m->makespan, 28.5);
	ASSERT_NEAR(m->bubble_ratio, 3.0 / 19);
	ASSERT_NEAR(m->bubble_ratio_theory, 3.0 / 19);
	for (int d = 0; d < 4; d++)
		ASSERT_NEAR(m->devices[d].busy, 24);
	sim_free(s);
}

static void metrics_interleaved_p4_v2_m16_has_bubble_3_over_35(void)
{
	struct config c = config_with("interleaved", 4, 2, 16, 1, 1, 1);
	struct sim *s = simulate_config(&c);

	/* 48 units per device over 48 * 35/32 = 52.5 */
	ASSERT_NEAR(s->metrics.makespan, 52.5);
	ASSERT_NEAR(s->metrics.bubble_ratio, 3.0 / 35);
	ASSERT_NEAR(s->metrics.bubble_ratio_theory, 3.0 / 35);
	sim_free(s);
}

static void metrics_interleaved_p4_v2_m8_peaks_at_5_5_on_device_0_and_one_less_per_device(void)
{
	struct config c = config_with("interleaved", 4, 2, 8, 1, 1, 1);
	struct sim *s = simulate_config(&c);

	/* device 0: p(1 + (p-1)/(pv)) = 4 * (1 + 3/8) = 5.5; then 4.5, 3.5, 2.5 */
	ASSERT_NEAR(s->metrics.devices[0].peak_activations, 4 * (1 + 3.0 / 8));
	ASSERT_NEAR(s->metrics.devices[1].peak_activations, 4.5);
	ASSERT_NEAR(s->metrics.devices[2].peak_activations, 3.5);
	ASSERT_NEAR(s->metrics.devices[3].peak_activations, 2.5);
	sim_free(s);
}

static void metrics_zbh1_p4_m8_takes_27_units_with_unit_costs(void)
{
	struct config c = config_with("zbh1", 4, 1, 8, 1, 1, 1);
	struct sim *s = simulate_config(&c);

	/* 24 of work plus (p-1)(t_f+t_b-t_w) = 3, a third of 1F1B's bubble of 9 */
	ASSERT_NEAR(s->metrics.makespan, 27);
	ASSERT_NEAR(s->metrics.bubble_ratio, 1 - 96.0 / 108);
	ASSERT_NEAR(s->metrics.bubble_ratio_theory, 1.0 / 9);
	sim_free(s);
}

static void metrics_zbh1_p4_m8_takes_49_units_with_costs_2_2_1(void)
{
	struct config c = config_with("zbh1", 4, 1, 8, 2, 2, 1);
	struct sim *s = simulate_config(&c);

	/* m(t_f+t_b+t_w) + (p-1)(t_f+t_b-t_w) = 40 + 9 = 49; 1F1B would take 55 */
	ASSERT_NEAR(s->metrics.makespan, 8 * (2 + 2 + 1) + 3 * (2 + 2 - 1));
	ASSERT_NEAR(s->metrics.bubble_ratio, 9.0 / 49);
	ASSERT_NEAR(s->metrics.bubble_ratio_theory, 9.0 / 49);
	sim_free(s);
}

static void metrics_zbh1_p4_m8_holds_at_most_p_activations_on_every_device(void)
{
	/* W keeping half of the activations after B, then all of them */
	static const double keep[] = {0.5, 1.0};
	static const double want[2][4] = {{4, 3.5, 3, 2.5}, {4, 4, 4, 4}};

	for (int k = 0; k < 2; k++) {
		struct config c = config_with("zbh1", 4, 1, 8, 1, 1, 1);
		struct sim *s;

		c.w_mem_fraction = keep[k];
		s = simulate_config(&c);
		for (int d = 0; d < 4; d++) {
			CU_ASSERT(s->metrics.devices[d].peak_activations <= 4 + 1e-9);
			ASSERT_NEAR(s->metrics.devices[d].peak_activations, want[k][d]);
		}
		sim_free(s);
	}
}

static void metrics_zbh2_p4_m8_takes_46_units_with_costs_2_2_1(void)
{
	struct config c = config_with("zbh2", 4, 1, 8, 2, 2, 1);
	struct sim *s = simulate_config(&c);

	/* m(t_f+t_b+t_w) + (p-1)(t_f+t_b-2t_w) = 40 + 6 = 46 */
	ASSERT_NEAR(s->metrics.makespan, 8 * (2 + 2 + 1) + 3 * (2 + 2 - 2 * 1));
	ASSERT_NEAR(s->metrics.bubble_ratio, 6.0 / 46);
	ASSERT_NEAR(s->metrics.bubble_ratio_theory, 6.0 / 46);
	sim_free(s);
}

static void metrics_zbh2_p4_m8_holds_at_most_2p_minus_1_activations_on_every_device(void)
{
	static const double keep[] = {0.5, 1.0};

	for (int k = 0; k < 2; k++) {
		struct config c = config_with("zbh2", 4, 1, 8, 2, 2, 1);
		struct sim *s;

		c.w_mem_fraction = keep[k];
		s = simulate_config(&c);
		for (int d = 0; d < 4; d++)
			CU_ASSERT(s->metrics.devices[d].peak_activations <= 7 + 1e-9);
		/* device 0 runs its seven warm-up forwards back to back */
		ASSERT_NEAR(s->metrics.devices[0].peak_activations, 7);
		/* device 3 alternates F and B: with W keeping all, 7 are alive before W1 */
		ASSERT_NEAR(s->metrics.devices[3].peak_activations, k == 0 ? 4 : 7);
		sim_free(s);
	}
}

static void metrics_zbh2_with_unit_costs_has_no_span_bubble_but_a_fill_bubble(void)
{
	struct config c = config_with("zbh2", 4, 1, 8, 1, 1, 1);
	struct sim *s = simulate_config(&c);
	const struct metrics *m = &s->metrics;

	/* every device is busy 24 from its first op to its last; device d starts at d */
	ASSERT_NEAR(m->makespan, 27);
	ASSERT_NEAR(m->bubble_rate_span, 0);
	ASSERT_NEAR(m->bubble_ratio, 1.0 / 9);
	CU_ASSERT(m->bubble_ratio > 0.1);
	for (int d = 0; d < 4; d++) {
		ASSERT_NEAR(m->devices[d].span, 24);
		ASSERT_NEAR(m->devices[d].busy, 24);
	}
	sim_free(s);
}

/* True when schedule's closed form is documented to apply to (p, m, t_f, t_b, t_w). */
static bool theory_expected(const char *schedule, int p, int m, double t_b, double t_w)
{
	if (strcmp(schedule, "interleaved") == 0)
		return m >= p;
	if (strcmp(schedule, "zbh1") == 0)
		return m >= p && t_w <= t_b;
	return true;
}

/*
 * Simulates every generator over p = 1..6, the chunk counts it allows up to 3, m = 1..4p and
 * each of the ncosts triples (t_f, t_b, t_w). Returns how many runs had a closed form that
 * differs from the simulated bubble ratio by more than 1e-9 (naming the first few on stderr);
 * *compared receives how many had a closed form. With check_domain, also asserts that a closed
 * form is given exactly where theory_expected says.
 */
static int closed_form_mismatches(const double (*costs)[3], size_t ncosts, bool check_domain,
                                  int *compared)
{
	static const char *const names[] = {"gpipe", "1f1b", "interleaved", "zbh1", "zbh2"};
	int bad = 0;

	*compared = 0;
	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		const struct sched_desc *desc = sched_find(names[n]);
		int max_v = desc->max_v ? desc->max_v : 3, runs = 0;

		for (int p = 1; p <= 6; p++)
			for (int v = desc->min_v; v <= max_v; v++)
				for (int m = 1; m <= 4 * p; m++)
					for (size_t k = 0; k < ncosts; k++) {
						struct config c =
						        config_with(names[n], p, v, m, costs[k][0],
						                    costs[k][1], costs[k][2]);
						struct sched_params sp = {p, v, m, 0};
						struct pp_error err = {0};
						struct sim *s;
						double theory, sim;

						if (sched_accepts(desc, &sp, NULL, &err) != 0)
							continue;
						s = simulate_config(&c);
						theory = s->metrics.bubble_ratio_theory;
						sim = s->metrics.bubble_ratio;
						runs++;
						if (check_domain)
							CU_ASSERT_EQUAL(
							        !isnan(theory),
							        theory_expected(names[n], p, m,
							                        costs[k][1],
							                        costs[k][2]));
						if (!isnan(theory))
							++*compared;
						if (!isnan(theory) && fabs(sim - theory) > 1e-9 &&
						    bad++ < 5)
							fprintf(stderr,
							        "%s p=%d v=%d m=%d t=(%g,%g,%g): "
							        "simulated %.12g, closed form "
							        "%.12g\n",
							        names[n], p, v, m, costs[k][0],
							        costs[k][1], costs[k][2], sim,
							        theory);
						sim_free(s);
					}
		CU_ASSERT(runs > 0);
	}
	return bad;
}

static void metrics_every_closed_form_equals_the_simulated_bubble_over_a_grid(void)
{
	static const double costs[][3] = {{1, 1, 1}, {2, 2, 1}, {1, 2, 1}, {2, 3, 1}, {3, 2, 2}};
	int compared;

	CU_ASSERT_EQUAL(
	        closed_form_mismatches(costs, sizeof(costs) / sizeof(costs[0]), true, &compared),
	        0);
	CU_ASSERT(compared > 1000);
}

static void metrics_closed_forms_hold_or_are_absent_when_w_outlasts_f(void)
{
	/* t_f < t_w <= t_b, and t_w > t_b: a closed form shown beside the simulated bubble must
	 * equal it, or be absent (NAN) */
	static const double costs[][3] = {{1, 2, 2}, {1, 3, 2}, {0.5, 1, 1}, {1, 1, 2}};
	int compared;

	CU_ASSERT_EQUAL(
	        closed_form_mismatches(costs, sizeof(costs) / sizeof(costs[0]), false, &compared),
	        0);
	CU_ASSERT(compared > 0);
}

static void sim_run_rejects_an_invalid_config_with_a_usage_error(void)
{
	struct config c;
	struct pp_error err = {0};

	config_init(&c);
	c.v = 2;
	CU_ASSERT_PTR_NULL(sim_run(&c, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	sim_free(NULL);
}

static const struct unit_test tests[] = {
        UNIT_TEST(metrics_bubble_ratio_matches_the_document_for_gpipe_and_1f1b),
        UNIT_TEST(metrics_bubble_ratio_equals_theory_over_many_shapes),
        UNIT_TEST(metrics_bubble_overhead_and_span_rate_of_1f1b_p4_m8),
        UNIT_TEST(metrics_bubble_overhead_and_span_rate_with_communication),
        UNIT_TEST(metrics_theory_is_nan_when_messages_take_time),
        UNIT_TEST(metrics_theory_is_nan_when_stages_differ),
        UNIT_TEST(metrics_utilization_is_busy_over_makespan_per_device),
        UNIT_TEST(metrics_peak_activations_are_m_for_gpipe_and_p_minus_d_for_1f1b),
        UNIT_TEST(metrics_copy_traffic_per_channel),
        UNIT_TEST(metrics_units_follow_the_tick_with_chunks),
        UNIT_TEST(metrics_derive_each_figure_from_a_result_written_by_hand),
        UNIT_TEST(metrics_interleaved_p4_v2_m8_has_bubble_3_over_19_and_makespan_28_5),
        UNIT_TEST(metrics_interleaved_p4_v2_m16_has_bubble_3_over_35),
        UNIT_TEST(metrics_interleaved_p4_v2_m8_peaks_at_5_5_on_device_0_and_one_less_per_device),
        UNIT_TEST(metrics_zbh1_p4_m8_takes_27_units_with_unit_costs),
        UNIT_TEST(metrics_zbh1_p4_m8_takes_49_units_with_costs_2_2_1),
        UNIT_TEST(metrics_zbh1_p4_m8_holds_at_most_p_activations_on_every_device),
        UNIT_TEST(metrics_zbh2_p4_m8_takes_46_units_with_costs_2_2_1),
        UNIT_TEST(metrics_zbh2_p4_m8_holds_at_most_2p_minus_1_activations_on_every_device),
        UNIT_TEST(metrics_zbh2_with_unit_costs_has_no_span_bubble_but_a_fill_bubble),
        UNIT_TEST(metrics_every_closed_form_equals_the_simulated_bubble_over_a_grid),
        UNIT_TEST(metrics_closed_forms_hold_or_are_absent_when_w_outlasts_f),
        UNIT_TEST(sim_run_rejects_an_invalid_config_with_a_usage_error),
        {NULL, NULL},
};

const struct unit_suite suite_metrics = {"metrics", tests};
