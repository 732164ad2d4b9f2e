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

/*
 * The closed forms and the ratios are the doubles nearest their exact values: from the costs'
 * ticks, one quotient each (1 - 36/37 in doubles is 16 ulps off 1/37; costs of 0.333333 in
 * units gave 0.09999999999999999; a pair of 0.9 x 9e-6 runs as a whole tick and the form
 * takes it so), equal to the simulated ratio, and the same when every cost is scaled by 3.
 */
static void metrics_closed_forms_and_ratios_are_exact(void)
{
	static const struct {
		const char *schedule;
		int p, v, m;
		double t_f, t_b, t_w, overlap;
	} cases[] = {
	        {"loopedbfs", 2, 4, 9, 1, 1, 1, 1},
	        {"zbh1", 2, 1, 3, 0.333333, 0.333333, 0.333333, 1},
	        {"zbh1", 5, 1, 9, 0.7, 0.7, 0.5, 1},
	        {"zbh1", 5, 1, 9, 2.1, 2.1, 1.5, 1},
	        {"zbv", 4, 2, 9, 0.3, 0.3, 0.2, 1},
	        {"dualpipev", 4, 2, 8, 0.000003, 0.000003, 0.000003, 0.9},
	        {"dualpipev", 2, 2, 4, 0.000003, 0.000003, 0.000003, 0.75},
	};
	double first = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c = unit_config(cases[i].schedule, cases[i].p, cases[i].v, cases[i].m,
		                              cases[i].t_f, cases[i].t_b, cases[i].t_w);
		struct sim *s;

		c.overlap_factor = cases[i].overlap;
		s = unit_run(&c, 0);
		CU_ASSERT_EQUAL(s->metrics.bubble_ratio_theory, s->metrics.bubble_ratio);
		if (i == 2)
			first = s->metrics.bubble_ratio_theory;
		if (i == 3) /* the costs of case 2 times 3 */
			CU_ASSERT_EQUAL(s->metrics.bubble_ratio_theory, first);
		sim_free(s);
	}
	CU_ASSERT_EQUAL(first, 4.0 / 23);
	/* a utilization whose long double quotient rounded twice was an ulp off */
	{
		struct config c = unit_config("zbh1", 6, 1, 11, 1.838390, 2.991965, 1);
		struct sim *s;

		unit_set(&c, "comm", "blocking");
		unit_set(&c, "duplex", "half");
		unit_set(&c, "w_mem_fraction", "0.3");
		s = unit_run(&c, 0);
		CU_ASSERT_EQUAL(s->metrics.utilization, 0.7700472037930169);
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
	CU_ASSERT_EQUAL_FATAL(metrics_init(&m, s->sched, s->cost, s->result, NULL), 0);
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
	k = cost_new_explicit(&c, NULL, 0.5);
	e = engine_new(sc, k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL_FATAL(engine_run(e, &err), 0);
	CU_ASSERT_EQUAL_FATAL(metrics_init(&m, sc, k, engine_result(e), &err), 0);
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
	        {.busy = 4000000, .comm_wait = 500000, .first_start = 0, .last_end = 8000000,
	         .peak_act = 1000000, .end = 8000000},
	        {.busy = 6000000, .comm_wait = 0, .first_start = 3000000, .last_end = 10000000,
	         .peak_act = 2000000, .end = 10000000},
	};
	struct channel_result channels[1] = {{1, 0, 3, 300, 2500000}};
	struct result r = {.p = 2,
	                   .makespan = 10000000,
	                   .times = NULL,
	                   .devices = devices,
	                   .channels = channels,
	                   .nchannels = 1,
	                   .messages = 3,
	                   .bytes = 300,
	                   .msg_time = 2500000};
	struct metrics m;

	/*
	 * Makespan 10; device 0 busy 4 over span 0-8, device 1 busy 6 over span 3-10. Bubble
	 * 1 - 10/20 = 0.5; overhead (10 - 6)/6 = 2/3; span rate (8 - 6)/8 = 0.25, with the
	 * largest span (8), not the makespan.
	 */
	config_init(&c);
	c.p = 2;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL_FATAL(metrics_init(&m, sc, k, &r, NULL), 0);
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

static void metrics_interleaved_p4_v2_m8_has_bubble_3_over_19_and_makespan_28_5(void)
{
	struct config c = unit_config("interleaved", 4, 2, 8, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);
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
	struct config c = unit_config("interleaved", 4, 2, 16, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);

	/* 48 units per device over 48 * 35/32 = 52.5 */
	ASSERT_NEAR(s->metrics.makespan, 52.5);
	ASSERT_NEAR(s->metrics.bubble_ratio, 3.0 / 35);
	ASSERT_NEAR(s->metrics.bubble_ratio_theory, 3.0 / 35);
	sim_free(s);
}

static void metrics_interleaved_p4_v2_m8_peaks_at_5_5_on_device_0_and_one_less_per_device(void)
{
	struct config c = unit_config("interleaved", 4, 2, 8, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);

	/* device 0: p(1 + (p-1)/(pv)) = 4 * (1 + 3/8) = 5.5; then 4.5, 3.5, 2.5 */
	ASSERT_NEAR(s->metrics.devices[0].peak_activations, 4 * (1 + 3.0 / 8));
	ASSERT_NEAR(s->metrics.devices[1].peak_activations, 4.5);
	ASSERT_NEAR(s->metrics.devices[2].peak_activations, 3.5);
	ASSERT_NEAR(s->metrics.devices[3].peak_activations, 2.5);
	sim_free(s);
}

static void metrics_zbh1_p4_m8_takes_27_units_with_unit_costs(void)
{
	struct config c = unit_config("zbh1", 4, 1, 8, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);

	/* 24 of work plus (p-1)(t_f+t_b-t_w) = 3, a third of 1F1B's bubble of 9 */
	ASSERT_NEAR(s->metrics.makespan, 27);
	ASSERT_NEAR(s->metrics.bubble_ratio, 1 - 96.0 / 108);
	ASSERT_NEAR(s->metrics.bubble_ratio_theory, 1.0 / 9);
	sim_free(s);
}

static void metrics_zbh1_p4_m8_takes_49_units_with_costs_2_2_1(void)
{
	struct config c = unit_config("zbh1", 4, 1, 8, 2, 2, 1);
	struct sim *s = unit_run(&c, 0);

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
		struct config c = unit_config("zbh1", 4, 1, 8, 1, 1, 1);
		struct sim *s;

		c.w_mem_fraction = keep[k];
		s = unit_run(&c, 0);
		for (int d = 0; d < 4; d++) {
			CU_ASSERT(s->metrics.devices[d].peak_activations <= 4 + 1e-9);
			ASSERT_NEAR(s->metrics.devices[d].peak_activations, want[k][d]);
		}
		sim_free(s);
	}
}

static void metrics_zbh2_p4_m8_takes_46_units_with_costs_2_2_1(void)
{
	struct config c = unit_config("zbh2", 4, 1, 8, 2, 2, 1);
	struct sim *s = unit_run(&c, 0);

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
		struct config c = unit_config("zbh2", 4, 1, 8, 2, 2, 1);
		struct sim *s;

		c.w_mem_fraction = keep[k];
		s = unit_run(&c, 0);
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
	struct config c = unit_config("zbh2", 4, 1, 8, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);
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
static bool theory_expected(const char *schedule, int p, int m, double t_f, double t_b, double t_w)
{
	if (strcmp(schedule, "interleaved") == 0)
		return m >= p;
	if (strcmp(schedule, "zbh1") == 0)
		return m >= p && t_w <= t_b;
	/* research notes 2.3: PyTorch's ZB-V order takes 2m(t_f+t_b+t_w) + (p-1)t_f when
	 * t_f = t_b and t_f/2 <= t_w <= t_f, from m >= 2p-1; with t_w = t_f already from
	 * m >= (3p-1)/2 (p=3, m=4, t = (2, 2, 1) takes 23, not 22) */
	if (strcmp(schedule, "zbv") == 0)
		return t_f == t_b && 2 * t_w >= t_f && t_w <= t_f &&
		       (m >= 2 * p - 1 || (t_w == t_f && 2 * m >= 3 * p - 1));
	/* research notes 3.3: DeepSeek's bubble when t_f = t_b >= t_w */
	if (strcmp(schedule, "dualpipev") == 0)
		return t_f == t_b && t_w <= t_b;
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
	static const char *const names[] = {"gpipe", "1f1b",      "interleaved",
	                                    "zbh1",  "zbh2",      "loopedbfs",
	                                    "zbv",   "dualpipev", "interleaved-combined"};
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
						        unit_config(names[n], p, v, m, costs[k][0],
						                    costs[k][1], costs[k][2]);
						struct sched_params sp = {p, v, m, 0};
						struct pp_error err = {0};
						struct sim *s;
						double theory, sim;

						if (sched_accepts(desc, &sp, NULL, &err) != 0)
							continue;
						s = unit_run(&c, 0);
						theory = s->metrics.bubble_ratio_theory;
						sim = s->metrics.bubble_ratio;
						runs++;
						if (check_domain)
							CU_ASSERT_EQUAL(
							        !isnan(theory),
							        theory_expected(
							                names[n], p, m, costs[k][0],
							                costs[k][1], costs[k][2]));
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

static void metrics_dualpipev_closed_form_holds_or_is_absent_for_each_overlap_factor(void)
{
	/*
	 * DeepSeek's bubble, research notes 3.3, verified for a pair slot FB from max(F, B) to
	 * F + B (B the full backward). A closed form beside the simulated bubble must equal it;
	 * where FB >= max(F, B) one must be given.
	 */
	static const double factors[] = {1, 0.9, 0.8, 0.7, 0.6, 0.5};
	static const double costs[][3] = {{1, 1, 1}, {2, 2, 1}, {4, 4, 2}};
	int bad = 0, compared = 0;

	for (size_t f = 0; f < sizeof(factors) / sizeof(factors[0]); f++)
		for (size_t k = 0; k < sizeof(costs) / sizeof(costs[0]); k++)
			for (int p = 2; p <= 5; p++)
				for (int m = 2 * p; m <= 3 * p; m++) {
					struct config c =
					        unit_config("dualpipev", p, 2, m, costs[k][0],
					                    costs[k][1], costs[k][2]);
					double fwd = costs[k][0], back = costs[k][1] + costs[k][2];
					double hi = fwd > back ? fwd : back, theory, sim;
					struct sim *s;

					c.overlap_factor = factors[f];
					s = unit_run(&c, 0);
					theory = s->metrics.bubble_ratio_theory;
					sim = s->metrics.bubble_ratio;
					if (factors[f] * (fwd + back) >= hi - 1e-12)
						CU_ASSERT_FALSE(isnan(theory));
					if (!isnan(theory)) {
						compared++;
						if (fabs(theory - sim) > 1e-9 && bad++ < 5)
							fprintf(stderr,
							        "dualpipev p=%d m=%d t=(%g,%g,%g) "
							        "overlap %g: simulated %.12g, "
							        "closed "
							        "form %.12g\n",
							        p, m, costs[k][0], costs[k][1],
							        costs[k][2], factors[f], sim,
							        theory);
					}
					sim_free(s);
				}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(compared > 100);
}

static void metrics_give_zbv_loopedbfs_and_dualpipev_their_closed_forms(void)
{
	struct sim *s = unit_simulate("zbv", 4, 8, 0);

	/* (p-1) t_f = 1.5 of fill in 25.5 */
	ASSERT_NEAR(s->metrics.bubble_ratio_theory, 1.5 / 25.5);
	ASSERT_NEAR(s->metrics.bubble_ratio, 1.5 / 25.5);
	sim_free(s);
	s = unit_simulate("dualpipev", 4, 10, 0);
	ASSERT_NEAR(s->metrics.bubble_ratio_theory, 3.0 / 33);
	ASSERT_NEAR(s->metrics.bubble_ratio, 3.0 / 33);
	sim_free(s);
	/* LoopedBFS with v = 1 is GPipe: (p-1)/(m+p-1) */
	s = unit_simulate("loopedbfs", 4, 8, 0);
	ASSERT_NEAR(s->metrics.bubble_ratio_theory, 3.0 / 11);
	ASSERT_NEAR(s->metrics.bubble_ratio, 3.0 / 11);
	sim_free(s);
	/* zb-auto orders ops from the costs: no closed form */
	s = unit_simulate("zb-auto", 4, 8, 0);
	CU_ASSERT_TRUE(isnan(s->metrics.bubble_ratio_theory));
	sim_free(s);
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

/* The defaults with --model model, --schedule schedule, -p p and -m m. */
static void model_config(struct config *c, const char *model, const char *schedule, const char *p,
                         const char *m)
{
	config_init(c);
	unit_set(c, "model", model);
	unit_set(c, "schedule", schedule);
	unit_set(c, "p", p);
	unit_set(c, "m", m);
}

/* Simulates c and asserts (fatally) that it succeeds. */
static struct sim *run(const struct config *c)
{
	struct pp_error err = {0};
	struct sim *s = sim_run(c, &err);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_TRUE_FATAL(s->metrics.has_model);
	return s;
}

/* Llama 3 from its public configs: hidden h, MLP size, heads, kv heads, vocabulary V. */
struct llama {
	double layers, h, ffn, a, kv, vocab;
};

static const struct llama llama3_8b = {32, 4096, 14336, 32, 8, 128256};
static const struct llama llama3_70b = {80, 8192, 28672, 64, 8, 128256};

/* Linear parameters of one layer (gated MLP: three matrices). */
static double layer_params(const struct llama *m)
{
	return 2 * m->h * m->h + 2 * m->h * (m->kv * m->h / m->a) + 3 * m->h * m->ffn;
}

/* Model FLOPs of one micro-batch of b sequences of s tokens: F + B + W of every layer (6Pt +
 * 12bs^2h) and the LM head's three 2thV. */
static double microbatch_flops(const struct llama *m, double b, double s)
{
	double t = b * s;

	return m->layers * (6 * layer_params(m) * t + 12 * b * s * s * m->h) +
	       3 * 2 * t * m->h * m->vocab;
}

/* Activation bytes of one layer with flash attention and sequence parallelism, tensor by
 * tensor (Korthikanti et al.'s count, 2 bytes an element): per token the norms' inputs, the
 * QKV and MLP-in GEMMs' inputs and two dropout masks, 10h; Q and the output projection's input,
 * h wide, K and V, kv heads wide; the gated MLP's GEMM-in output, 2 ffn, and its SwiGLU output,
 * ffn: over tp. (GPT-3's MHA and 4h MLP give Korthikanti et al.'s 34h; Llama 3 8B 36h, 70B
 * 35.5h.) And of the logits (4sbV/tp). */
static double layer_bytes(const struct llama *m, double s, double b, double tp)
{
	double kv = m->kv * m->h / m->a;

	return s * b * (10 * m->h + 2 * (2 * m->h + 2 * kv) + 2 * 3 * m->ffn) / tp;
}

static double logits_bytes(const struct llama *m, double s, double b, double tp)
{
	return 4 * s * b * m->vocab / tp;
}

/* Milliseconds of a ring all-reduce of bytes over n GPUs on a link of GB/s and microseconds. */
static double ring_ms(double bytes, double n, double bandwidth, double latency)
{
	return 2 * (n - 1) / n * bytes / (bandwidth * 1e9) * 1e3 + 2 * (n - 1) * latency / 1e3;
}

/* Parameters on one GPU of pipeline rank d of p, each holding layers/p layers: the embedding on
 * the first, the LM head on the last (Llama does not tie them). */
static double device_params(const struct llama *m, int d, int p, double tp)
{
	double params = m->layers / p * layer_params(m) / tp;

	if (d == 0)
		params += m->vocab * m->h / tp;
	if (d == p - 1)
		params += m->vocab * m->h / tp;
	return params;
}

/* Asserts that a time in ms equals want to within one tick (1 ns) of rounding. */
#define ASSERT_MS(actual, want) CU_ASSERT_DOUBLE_EQUAL((actual), (want), 1.000001e-6)

static void metrics_gpipe_runs_llama3_70b_p4_m16_out_of_memory_on_every_device(void)
{
	struct config c;
	struct sim *s;
	double layers = 20 * layer_bytes(&llama3_70b, 2048, 1, 1);

	/* all 16 forwards finish before the first backward: 16 x 20 layers x 596 MB = 191 GB */
	model_config(&c, "llama3-70b", "gpipe", "4", "16");
	s = run(&c);
	for (int d = 0; d < 4; d++) {
		const struct device_metrics *dm = &s->metrics.devices[d];
		double want = 16 * (layers + (d == 3 ? logits_bytes(&llama3_70b, 2048, 1, 1) : 0));

		ASSERT_NEAR(dm->peak_activations, 16);
		ASSERT_NEAR(dm->activation_bytes, want);
		CU_ASSERT_TRUE(dm->activation_bytes > 80e9);
		CU_ASSERT_TRUE(dm->oom);
	}
	CU_ASSERT_TRUE(s->metrics.oom);
	ASSERT_NEAR(s->metrics.memory_capacity_bytes, 80e9);
	sim_free(s);
}

static void metrics_1f1b_holds_p_minus_d_micro_batches_of_llama3_70b_activations(void)
{
	struct config c;
	struct sim *s;
	double layers = 20 * layer_bytes(&llama3_70b, 2048, 1, 1);

	model_config(&c, "llama3-70b", "1f1b", "4", "16");
	s = run(&c);
	for (int d = 0; d < 4; d++) {
		const struct device_metrics *dm = &s->metrics.devices[d];
		double want =
		        (4 - d) * layers + (d == 3 ? logits_bytes(&llama3_70b, 2048, 1, 1) : 0);

		ASSERT_NEAR(dm->peak_activations, 4 - d);
		ASSERT_NEAR(dm->activation_bytes, want);
	}
	/* device 0: 4 x 20 x 35.5 x 2048 x 8192 bytes */
	ASSERT_NEAR(s->metrics.devices[0].activation_bytes, 47647293440.0);
	sim_free(s);
}

/* All-gather context parallelism: each layer's forward gathers the other ranks' K/V, and its
 * backward, which kept the local ones alone, gathers them again before reduce-scattering their
 * gradients (Transformer Engine's and PyTorch's all-gather attention): 2 gathers and a
 * reduce-scatter a layer and micro-batch on each device's CP stream. */
static void metrics_allgather_cp_gathers_again_in_the_backward(void)
{
	struct config c;
	struct sim *s;

	model_config(&c, "llama3-8b", "1f1b", "2", "8");
	unit_set(&c, "gpu", "h100-sxm");
	unit_set(&c, "cp", "8");
	unit_set(&c, "seq", "32768");
	unit_set(&c, "cp_comm", "allgather");
	unit_set(&c, "gpus_per_node", "4");
	s = run(&c);
	for (int d = 0; d < 2; d++)
		/* each exchange a whole number of ticks (1e-6 ms) */
		CU_ASSERT_DOUBLE_EQUAL(s->metrics.devices[d].comm[COMM_CP],
		                       16 * 8 * (2 * s->cost->model->cp_fwd_ms + s->cost->model->cp_bwd_ms),
		                       16 * 8 * 3 * 1e-6);
	sim_free(s);
}

static void metrics_memory_is_activations_plus_weights_gradients_and_optimizer_state(void)
{
	struct config c;
	struct sim *s;

	/* Llama 3 8B on 4 A100s of 80 GB: about 36 GB of state and 9 GB of activations on GPU 0 */
	model_config(&c, "llama3-8b", "1f1b", "4", "8");
	s = run(&c);
	for (int d = 0; d < 4; d++) {
		const struct device_metrics *dm = &s->metrics.devices[d];

		ASSERT_NEAR(dm->activation_bytes,
		            (4 - d) * 8 * layer_bytes(&llama3_8b, 2048, 1, 1) +
		                    (d == 3 ? logits_bytes(&llama3_8b, 2048, 1, 1) : 0));
		CU_ASSERT_DOUBLE_EQUAL(dm->state_bytes, 16 * device_params(&llama3_8b, d, 4, 1),
		                       1e-3);
		ASSERT_NEAR(dm->memory_bytes, dm->activation_bytes + dm->state_bytes);
		CU_ASSERT_FALSE(dm->oom);
	}
	CU_ASSERT_FALSE(s->metrics.oom);
	/* the default reserve: 1 GB of CUDA context, 2 GB of NCCL, 10% for fragmentation */
	ASSERT_NEAR(s->metrics.memory_reserve_bytes, 3e9 + 0.1 * 80e9);
	sim_free(s);

	/* 40 GB GPUs kept whole (no reserve): the first device (embedding, 4 micro-batches) no
	 * longer fits, the others do */
	unit_set(&c, "gpu_memory", "40");
	unit_set(&c, "memory_reserve", "0");
	s = run(&c);
	ASSERT_NEAR(s->metrics.memory_capacity_bytes, 40e9);
	ASSERT_NEAR(s->metrics.memory_reserve_bytes, 0);
	CU_ASSERT_TRUE(s->metrics.devices[0].memory_bytes > 40e9);
	CU_ASSERT_TRUE(s->metrics.devices[0].oom);
	for (int d = 1; d < 4; d++) {
		CU_ASSERT_EQUAL(s->metrics.devices[d].oom,
		                s->metrics.devices[d].memory_bytes > 40e9);
		CU_ASSERT_FALSE(s->metrics.devices[d].oom);
	}
	CU_ASSERT_TRUE(s->metrics.oom);
	sim_free(s);
}

/* Milliseconds of the optimizer step over params parameters on an A100 (the default GPU): 38
 * bytes moved per parameter at 0.85 of 2039 GB/s, plus one kernel's 4 us. */
static double optimizer_ms(double params)
{
	return params * 38 / (2039e9 * 0.85) * 1e3 + 4 / 1e3;
}

static void metrics_step_time_is_the_makespan_plus_the_slowest_optimizer_step_without_dp(void)
{
	struct config c;
	struct sim *s;
	double slowest = 0;

	/* no data parallelism: nothing is reduced; each device updates its own parameters, and
	 * the step waits for the slowest update (devices 0 and 3, which hold the embedding and
	 * the LM head: 8 layers + V x h) */
	model_config(&c, "llama3-8b", "1f1b", "4", "8");
	s = run(&c);
	for (int d = 0; d < 4; d++) {
		double opt = optimizer_ms(device_params(&llama3_8b, d, 4, 1));

		ASSERT_NEAR(s->metrics.devices[d].dp_allreduce, 0);
		ASSERT_MS(s->metrics.devices[d].optimizer, opt); /* on the step's 1 ns ticks */
		slowest = fmax(slowest, opt);
	}
	/* the device table's figure is the one the step adds up */
	ASSERT_NEAR(s->metrics.devices[s->metrics.breakdown.device].optimizer,
	            s->metrics.breakdown.optimizer);
	ASSERT_NEAR(slowest, optimizer_ms(8 * layer_params(&llama3_8b) + 128256.0 * 4096));
	ASSERT_MS(s->metrics.step_time, s->metrics.makespan + slowest);
	CU_ASSERT_TRUE(s->metrics.step_time > 0);
	sim_free(s);
}

static void metrics_step_time_is_the_latest_last_op_end_plus_that_device_s_dp_allreduce(void)
{
	struct config c;
	struct sim *s;
	double latest = 0, slowest = 0;

	/* dp = 2 replicas of a rank share a node: ring over NVLink3, at 0.8 of its 300 GB/s, of the
	 * rank's fp32 gradients, after the last op (no overlap by default); then the optimizer
	 * step of the slowest device (no distributed optimizer: each GPU updates all its
	 * parameters) */
	model_config(&c, "llama3-8b", "1f1b", "4", "8");
	unit_set(&c, "dp", "2");
	s = run(&c);
	for (int d = 0; d < 4; d++) {
		double ar = ring_ms(4 * device_params(&llama3_8b, d, 4, 1), 2, 300 * 0.8, 3);
		double end = pp_time_to_units(s->result->devices[d].last_end, s->cost->tick);

		ASSERT_MS(s->metrics.devices[d].dp_allreduce, ar);
		ASSERT_MS(s->metrics.devices[d].end, end + ar);
		if (end + ar > latest)
			latest = end + ar;
		slowest = fmax(slowest, optimizer_ms(device_params(&llama3_8b, d, 4, 1)));
	}
	ASSERT_MS(s->metrics.step_time, latest + slowest);
	CU_ASSERT_TRUE(s->metrics.step_time > s->metrics.makespan);
	sim_free(s);
}

static void metrics_dp_allreduce_leaves_the_node_when_tp_fills_it(void)
{
	struct config c;
	struct sim *s;

	/* tp = 8 fills a node, so the 2 replicas of a rank sit on two nodes, one GPU of the group
	 * a node: one port of InfiniBand HDR, at 0.8 of its 25 GB/s */
	model_config(&c, "llama3-70b", "1f1b", "4", "8");
	unit_set(&c, "tp", "8");
	unit_set(&c, "dp", "2");
	s = run(&c);
	for (int d = 0; d < 4; d++)
		ASSERT_MS(s->metrics.devices[d].dp_allreduce,
		          ring_ms(4 * device_params(&llama3_70b, d, 4, 8), 2, 25 * 0.8, 5));
	sim_free(s);
}

static void metrics_dp_allreduce_of_replicas_straddling_two_nodes_runs_on_the_inter_node_link(void)
{
	struct config c;
	struct sim *s;

	/*
	 * tp 1, dp 3, 4 GPUs a node: rank 0's replicas are GPUs 0-2 (node 0), rank 1's are GPUs
	 * 3-5, on nodes 0 and 1, so its ring crosses InfiniBand, on one port: node 0 holds one
	 * GPU of the group.
	 */
	model_config(&c, "llama3-8b", "1f1b", "2", "6");
	unit_set(&c, "dp", "3");
	unit_set(&c, "gpus_per_node", "4");
	s = run(&c);
	ASSERT_MS(s->metrics.devices[0].dp_allreduce,
	          ring_ms(4 * device_params(&llama3_8b, 0, 2, 1), 3, 300 * 0.8, 3));
	ASSERT_MS(s->metrics.devices[1].dp_allreduce,
	          ring_ms(4 * device_params(&llama3_8b, 1, 2, 1), 3, 25 * 0.8, 5));
	sim_free(s);
}

static void metrics_tokens_and_samples_per_second_count_every_replica(void)
{
	struct config c;
	struct sim *s;
	double seconds;

	model_config(&c, "llama3-8b", "1f1b", "4", "8");
	unit_set(&c, "mbs", "2");
	unit_set(&c, "seq", "4096");
	unit_set(&c, "dp", "2");
	s = run(&c);
	seconds = s->metrics.step_time / 1e3;
	CU_ASSERT_DOUBLE_EQUAL(s->metrics.tokens_per_s, 8.0 * 2 * 4096 * 2 / seconds, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(s->metrics.samples_per_s, 8.0 * 2 * 2 / seconds, 1e-9);
	sim_free(s);
}

static void metrics_mfu_is_the_model_flops_of_a_step_over_step_time_gpus_and_peak(void)
{
	struct config c;
	struct sim *s;
	double flops;

	/* m = 8, dp = 2, tp = 2: 16 GPUs of 312 TFLOP/s */
	model_config(&c, "llama3-8b", "1f1b", "4", "8");
	unit_set(&c, "dp", "2");
	unit_set(&c, "tp", "2");
	s = run(&c);
	flops = 8 * 2 * microbatch_flops(&llama3_8b, 1, 2048);
	CU_ASSERT_DOUBLE_EQUAL(s->metrics.mfu, flops / (s->metrics.step_time / 1e3 * 16 * 312e12),
	                       1e-12);
	CU_ASSERT_TRUE(s->metrics.mfu > 0 && s->metrics.mfu < 0.5);
	sim_free(s);
}

static void metrics_without_a_model_have_no_memory_or_throughput_figures(void)
{
	struct sim *s = unit_simulate("gpipe", 4, 8, 0);

	CU_ASSERT_FALSE(s->metrics.has_model);
	CU_ASSERT_FALSE(s->metrics.oom);
	ASSERT_NEAR(s->metrics.step_time, 0);
	ASSERT_NEAR(s->metrics.tokens_per_s, 0);
	ASSERT_NEAR(s->metrics.mfu, 0);
	ASSERT_NEAR(s->metrics.memory_capacity_bytes, 0);
	for (int d = 0; d < 4; d++) {
		ASSERT_NEAR(s->metrics.devices[d].activation_bytes, 0);
		ASSERT_NEAR(s->metrics.devices[d].memory_bytes, 0);
		CU_ASSERT_FALSE(s->metrics.devices[d].oom);
	}
	sim_free(s);
}

static const struct unit_test tests[] = {
        UNIT_TEST(metrics_bubble_ratio_matches_the_document_for_gpipe_and_1f1b),
        UNIT_TEST(metrics_bubble_ratio_equals_theory_over_many_shapes),
        UNIT_TEST(metrics_closed_forms_and_ratios_are_exact),
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
        UNIT_TEST(metrics_dualpipev_closed_form_holds_or_is_absent_for_each_overlap_factor),
        UNIT_TEST(metrics_give_zbv_loopedbfs_and_dualpipev_their_closed_forms),
        UNIT_TEST(sim_run_rejects_an_invalid_config_with_a_usage_error),
        UNIT_TEST(metrics_gpipe_runs_llama3_70b_p4_m16_out_of_memory_on_every_device),
        UNIT_TEST(metrics_1f1b_holds_p_minus_d_micro_batches_of_llama3_70b_activations),
        UNIT_TEST(metrics_memory_is_activations_plus_weights_gradients_and_optimizer_state),
        UNIT_TEST(metrics_allgather_cp_gathers_again_in_the_backward),
        UNIT_TEST(metrics_step_time_is_the_makespan_plus_the_slowest_optimizer_step_without_dp),
        UNIT_TEST(metrics_step_time_is_the_latest_last_op_end_plus_that_device_s_dp_allreduce),
        UNIT_TEST(metrics_dp_allreduce_leaves_the_node_when_tp_fills_it),
        UNIT_TEST(
                metrics_dp_allreduce_of_replicas_straddling_two_nodes_runs_on_the_inter_node_link),
        UNIT_TEST(metrics_tokens_and_samples_per_second_count_every_replica),
        UNIT_TEST(metrics_mfu_is_the_model_flops_of_a_step_over_step_time_gpus_and_peak),
        UNIT_TEST(metrics_without_a_model_have_no_memory_or_throughput_figures),
        {NULL, NULL},
};

const struct unit_suite suite_metrics = {"metrics", tests};
