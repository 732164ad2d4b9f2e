/* Unit tests of metrics (through sim_run): bubble definitions, utilization, memory, traffic. */
#include <math.h>
#include <string.h>

#include "ppsim/metrics.h"
#include "ppsim/sim.h"
#include "unit.h"

/* Simulates schedule with p devices and m micro-batches at default costs; must succeed. */
static struct sim *simulate(const char *schedule, int p, int m, double t_comm)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;

	config_init(&c);
	strcpy(c.schedule, schedule);
	c.p = p;
	c.m = m;
	c.t_comm = t_comm;
	s = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}

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
			struct sim *s = simulate(names[n], cases[i].p, cases[i].m, 0);

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
				struct sim *s = simulate(names[n], p, m, 0);

				ASSERT_NEAR(s->metrics.bubble_ratio, (double)(p - 1) / (m + p - 1));
				ASSERT_NEAR(s->metrics.bubble_ratio,
				            s->metrics.bubble_ratio_theory);
				ASSERT_NEAR(s->metrics.makespan, 3.0 * (m + p - 1));
				sim_free(s);
			}
}

static void metrics_bubble_overhead_and_span_rate_of_1f1b_p4_m8(void)
{
	struct sim *s = simulate("1f1b", 4, 8, 0);
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
	struct sim *s = simulate("1f1b", 4, 8, 0.1);
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
	struct sim *s = simulate("gpipe", 4, 8, 0.1);

	CU_ASSERT_TRUE(isnan(s->metrics.bubble_ratio_theory));
	CU_ASSERT_FALSE(isnan(s->metrics.bubble_ratio));
	sim_free(s);
}

static void metrics_theory_is_nan_when_stages_differ(void)
{
	struct sim *s = simulate("1f1b", 4, 8, 0);
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
	struct sim *s = simulate("gpipe", 2, 1, 0);
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
	struct sim *g = simulate("gpipe", 4, 8, 0);
	struct sim *o = simulate("1f1b", 4, 8, 0);
	struct sim *few = simulate("1f1b", 4, 2, 0);

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
        UNIT_TEST(sim_run_rejects_an_invalid_config_with_a_usage_error),
        {NULL, NULL},
};

const struct unit_suite suite_metrics = {"metrics", tests};
