/* Unit tests of cost: explicit per-stage ticks, activation amounts and message prices. */
#include <string.h>

#include "ppsim/cost.h"
#include "unit.h"

static void cost_explicit_prices_each_stage_in_ticks_of_one_unit(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.p = 3;
	c.t_f = 1.5;
	c.t_b = 2;
	c.t_w = 0.25;
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_EQUAL(k->S, 3);
	CU_ASSERT_EQUAL(k->tick, PP_TICK_BASE);
	CU_ASSERT_STRING_EQUAL(k->time_unit, "t");
	for (int s = 0; s < 3; s++) {
		CU_ASSERT_EQUAL(k->t_f[s], 1500000);
		CU_ASSERT_EQUAL(k->t_b[s], 2000000);
		CU_ASSERT_EQUAL(k->t_w[s], 250000);
	}
	cost_free(k);
}

static void cost_explicit_gives_each_chunk_t_over_v(void)
{
	struct config c;
	struct cost *k;

	/* v = 4: the tick is 4 times finer, so a chunk op of 1.5 / 4 = 0.375 units is exact */
	config_init(&c);
	c.p = 2;
	c.v = 4;
	c.t_f = 1.5;
	c.t_b = 1;
	c.t_w = 0.1;
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_EQUAL(k->S, 8);
	CU_ASSERT_EQUAL(k->tick, 4 * PP_TICK_BASE);
	for (int s = 0; s < 8; s++) {
		ASSERT_NEAR(pp_time_to_units(k->t_f[s], k->tick), 0.375);
		ASSERT_NEAR(pp_time_to_units(k->t_b[s], k->tick), 0.25);
		ASSERT_NEAR(pp_time_to_units(k->t_w[s], k->tick), 0.025);
		CU_ASSERT_EQUAL(k->t_f[s], 1500000);
		CU_ASSERT_EQUAL(k->t_w[s], 100000);
	}
	cost_free(k);
}

static void cost_explicit_prices_messages_with_tcomm(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.p = 4;
	c.t_comm = 0.1;
	c.msg_bytes = 1000;
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_STRING_EQUAL(k->time_unit, "t");
	for (int s = 0; s < 3; s++) {
		CU_ASSERT_EQUAL(k->msg_time[s], 100000);
		CU_ASSERT_EQUAL(k->msg_bytes[s], 1000);
	}
	CU_ASSERT_EQUAL(k->msg_time[3], 0);
	CU_ASSERT_EQUAL(k->msg_bytes[3], 0);
	cost_free(k);
}

static void cost_explicit_keeps_message_time_in_units_with_chunks(void)
{
	struct config c;
	struct cost *k;

	/* the message time is not divided by v: 0.1 units at 2e6 ticks per unit */
	config_init(&c);
	c.p = 2;
	c.v = 2;
	c.t_comm = 0.1;
	k = cost_new_explicit(&c, 0.5);
	for (int s = 0; s < 3; s++)
		CU_ASSERT_EQUAL(k->msg_time[s], 200000);
	CU_ASSERT_EQUAL(k->msg_time[3], 0);
	cost_free(k);
}

static void cost_explicit_prices_messages_from_a_link_in_milliseconds(void)
{
	struct config c;
	struct cost *k;

	/* 33554432 B at 300 GB/s + 5 us = 0.116848106666... ms = 116848 ticks */
	config_init(&c);
	c.p = 2;
	c.msg_bytes = UINT64_C(33554432);
	c.bandwidth = 300;
	c.latency = 5;
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_STRING_EQUAL(k->time_unit, "ms");
	CU_ASSERT_EQUAL(k->tick, PP_TICK_BASE);
	CU_ASSERT_EQUAL(k->msg_time[0], 116848);
	CU_ASSERT_EQUAL(k->msg_bytes[0], UINT64_C(33554432));
	CU_ASSERT_EQUAL(k->msg_time[1], 0);
	CU_ASSERT_EQUAL(k->msg_bytes[1], 0);
	CU_ASSERT_EQUAL(k->t_f[0], 1000000);
	cost_free(k);
}

static void cost_explicit_gives_equal_activations_with_the_w_fraction_kept(void)
{
	static const double fractions[] = {0, 0.25, 0.5, 1};
	struct config c;

	config_init(&c);
	c.p = 2;
	c.v = 2;
	for (size_t i = 0; i < sizeof(fractions) / sizeof(fractions[0]); i++) {
		struct cost *k = cost_new_explicit(&c, fractions[i]);

		CU_ASSERT_TRUE(k->act[0] > 0);
		for (int s = 0; s < 4; s++) {
			CU_ASSERT_EQUAL(k->act[s], k->act[0]);
			ASSERT_NEAR((double)k->act_w[s], (double)k->act[s] * fractions[i]);
		}
		cost_free(k);
	}
}

static void cost_explicit_copies_comm_mode_and_duplex(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.comm = PP_COMM_BLOCKING;
	c.duplex = PP_DUPLEX_HALF;
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_EQUAL(k->comm, PP_COMM_BLOCKING);
	CU_ASSERT_EQUAL(k->duplex, PP_DUPLEX_HALF);
	cost_free(k);
	config_init(&c);
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_EQUAL(k->comm, PP_COMM_OVERLAP);
	CU_ASSERT_EQUAL(k->duplex, PP_DUPLEX_FULL);
	cost_free(k);
}

static void cost_uniform_is_false_once_one_stage_differs(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_TRUE(cost_uniform(k));
	k->t_w[3] += 1;
	CU_ASSERT_FALSE(cost_uniform(k));
	k->t_w[3] -= 1;
	k->t_f[1] = 0;
	CU_ASSERT_FALSE(cost_uniform(k));
	k->t_f[1] = k->t_f[0];
	k->t_b[2] *= 2;
	CU_ASSERT_FALSE(cost_uniform(k));
	cost_free(k);
}

static void cost_comm_free_is_true_only_without_message_time(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.msg_bytes = 1000;
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_TRUE(cost_comm_free(k));
	cost_free(k);
	c.t_comm = 0.1;
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_FALSE(cost_comm_free(k));
	cost_free(k);
	c.t_comm = 0;
	c.bandwidth = 50;
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_FALSE(cost_comm_free(k));
	cost_free(k);
}

static void cost_comm_free_holds_with_one_stage_whatever_tcomm(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.p = 1;
	c.t_comm = 5;
	k = cost_new_explicit(&c, 0.5);
	CU_ASSERT_TRUE(cost_comm_free(k));
	CU_ASSERT_EQUAL(k->msg_time[0], 0);
	cost_free(k);
	cost_free(NULL);
}

static const struct unit_test tests[] = {
        UNIT_TEST(cost_explicit_prices_each_stage_in_ticks_of_one_unit),
        UNIT_TEST(cost_explicit_gives_each_chunk_t_over_v),
        UNIT_TEST(cost_explicit_prices_messages_with_tcomm),
        UNIT_TEST(cost_explicit_keeps_message_time_in_units_with_chunks),
        UNIT_TEST(cost_explicit_prices_messages_from_a_link_in_milliseconds),
        UNIT_TEST(cost_explicit_gives_equal_activations_with_the_w_fraction_kept),
        UNIT_TEST(cost_explicit_copies_comm_mode_and_duplex),
        UNIT_TEST(cost_uniform_is_false_once_one_stage_differs),
        UNIT_TEST(cost_comm_free_is_true_only_without_message_time),
        UNIT_TEST(cost_comm_free_holds_with_one_stage_whatever_tcomm),
        {NULL, NULL},
};

const struct unit_suite suite_cost = {"cost", tests};
