/* Unit tests of util: exact time conversion, number formatting, checked arithmetic, errors. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "ppsim/util.h"
#include "unit.h"

static void util_time_from_units_rounds_to_the_nearest_tick(void)
{
	pp_time t = -1;

	CU_ASSERT_TRUE(pp_time_from_units(1.0000004, PP_TICK_BASE, &t));
	CU_ASSERT_EQUAL(t, 1000000);
	CU_ASSERT_TRUE(pp_time_from_units(1.0000006, PP_TICK_BASE, &t));
	CU_ASSERT_EQUAL(t, 1000001);
	CU_ASSERT_TRUE(pp_time_from_units(34.6, PP_TICK_BASE, &t));
	CU_ASSERT_EQUAL(t, 34600000);
	CU_ASSERT_TRUE(pp_time_from_units(0.1, 3 * PP_TICK_BASE, &t));
	CU_ASSERT_EQUAL(t, 300000);
	CU_ASSERT_TRUE(pp_time_from_units(0, PP_TICK_BASE, &t));
	CU_ASSERT_EQUAL(t, 0);
}

static void util_time_from_units_accepts_the_largest_time(void)
{
	pp_time t = -1;

	CU_ASSERT_TRUE(pp_time_from_units(PP_TIME_MAX_UNITS, PP_TICK_BASE, &t));
	CU_ASSERT_EQUAL(t, INT64_C(1000000000000000));
}

static void util_time_from_units_rejects_nan_infinity_negative_and_too_large(void)
{
	pp_time t = 42;

	CU_ASSERT_FALSE(pp_time_from_units(NAN, PP_TICK_BASE, &t));
	CU_ASSERT_FALSE(pp_time_from_units(INFINITY, PP_TICK_BASE, &t));
	CU_ASSERT_FALSE(pp_time_from_units(-INFINITY, PP_TICK_BASE, &t));
	CU_ASSERT_FALSE(pp_time_from_units(-1, PP_TICK_BASE, &t));
	CU_ASSERT_FALSE(pp_time_from_units(-1e-9, PP_TICK_BASE, &t));
	CU_ASSERT_FALSE(pp_time_from_units(PP_TIME_MAX_UNITS * 1.000001, PP_TICK_BASE, &t));
	CU_ASSERT_FALSE(pp_time_from_units(2e9, PP_TICK_BASE, &t));
	CU_ASSERT_EQUAL(t, 42);
}

static void util_time_from_units_rejects_a_result_that_does_not_fit(void)
{
	pp_time t = 42;

	/* 1e9 units at 1e10 ticks per unit is 1e19 ticks, above INT64_MAX */
	CU_ASSERT_FALSE(pp_time_from_units(1e9, INT64_C(10000000000), &t));
	CU_ASSERT_EQUAL(t, 42);
}

static void util_time_to_units_divides_by_the_tick(void)
{
	ASSERT_NEAR(pp_time_to_units(34600000, PP_TICK_BASE), 34.6);
	ASSERT_NEAR(pp_time_to_units(1500000, 2 * PP_TICK_BASE), 0.75);
	ASSERT_NEAR(pp_time_to_units(0, PP_TICK_BASE), 0);
	CU_ASSERT_EQUAL(pp_time_to_units(34600000, PP_TICK_BASE), 34.6);
}

static void util_time_to_units_is_the_double_nearest_the_exact_quotient(void)
{
	/* 2^53 + 1 ticks: converting the count to double first loses the last tick */
	pp_time t = (INT64_C(1) << 53) + 1;

	CU_ASSERT_EQUAL(pp_time_to_units(t, PP_TICK_BASE), 9007199254.740993);
	ASSERT_NEAR(pp_time_to_units(t, PP_TICK_BASE), 9007199254.740993);
}

static void util_double_format_prints_the_shortest_exact_decimal(void)
{
	char buf[64];

	CU_ASSERT_STRING_EQUAL(pp_double_format(buf, sizeof(buf), 34.6), "34.6");
	CU_ASSERT_STRING_EQUAL(pp_double_format(buf, sizeof(buf), 100), "100");
	CU_ASSERT_STRING_EQUAL(pp_double_format(buf, sizeof(buf), 3.0 / 19), "0.15789473684210525");
	CU_ASSERT_STRING_EQUAL(pp_double_format(buf, sizeof(buf), 0.1), "0.1");
	CU_ASSERT_STRING_EQUAL(pp_double_format(buf, sizeof(buf), 0), "0");
	CU_ASSERT_STRING_EQUAL(pp_double_format(buf, sizeof(buf), 34.9 - 24), "10.899999999999999");
}

static void util_double_format_returns_its_buffer(void)
{
	char buf[32];

	CU_ASSERT_PTR_EQUAL(pp_double_format(buf, sizeof(buf), 1.5), buf);
	CU_ASSERT_STRING_EQUAL(buf, "1.5");
}

static void util_mul_u64_detects_overflow(void)
{
	uint64_t out = 7;

	CU_ASSERT_TRUE(pp_mul_u64(UINT64_C(4294967296), UINT64_C(4294967295), &out));
	CU_ASSERT_EQUAL(out, UINT64_C(18446744069414584320));
	CU_ASSERT_TRUE(pp_mul_u64(0, UINT64_MAX, &out));
	CU_ASSERT_EQUAL(out, 0);
	CU_ASSERT_TRUE(pp_mul_u64(UINT64_MAX, 1, &out));
	CU_ASSERT_EQUAL(out, UINT64_MAX);
	out = 7;
	CU_ASSERT_FALSE(pp_mul_u64(UINT64_C(4294967296), UINT64_C(4294967296), &out));
	CU_ASSERT_FALSE(pp_mul_u64(UINT64_MAX, 2, &out));
	CU_ASSERT_FALSE(pp_mul_u64(2, UINT64_MAX / 2 + 1, &out));
	CU_ASSERT_EQUAL(out, 7);
}

static void util_add_u64_detects_overflow(void)
{
	uint64_t out = 7;

	CU_ASSERT_TRUE(pp_add_u64(UINT64_MAX - 1, 1, &out));
	CU_ASSERT_EQUAL(out, UINT64_MAX);
	CU_ASSERT_TRUE(pp_add_u64(0, 0, &out));
	CU_ASSERT_EQUAL(out, 0);
	out = 7;
	CU_ASSERT_FALSE(pp_add_u64(UINT64_MAX, 1, &out));
	CU_ASSERT_FALSE(pp_add_u64(1, UINT64_MAX, &out));
	CU_ASSERT_FALSE(pp_add_u64(UINT64_MAX / 2 + 1, UINT64_MAX / 2 + 1, &out));
	CU_ASSERT_EQUAL(out, 7);
}

static void util_fail_fills_the_error_and_returns_minus_one(void)
{
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(pp_fail(&err, PP_ERR_IO, "cannot write '%s': %s", "a.csv", "nope"), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_STRING_EQUAL(err.msg, "cannot write 'a.csv': nope");
	CU_ASSERT_EQUAL(pp_fail(NULL, PP_ERR_SIM, "ignored"), -1);
}

static void util_xstrdup_copies_the_string(void)
{
	const char *s = "pipeline";
	char *copy = pp_xstrdup(s);

	CU_ASSERT_PTR_NOT_EQUAL(copy, s);
	CU_ASSERT_STRING_EQUAL(copy, "pipeline");
	free(copy);
}

static const struct unit_test tests[] = {
        UNIT_TEST(util_time_from_units_rounds_to_the_nearest_tick),
        UNIT_TEST(util_time_from_units_accepts_the_largest_time),
        UNIT_TEST(util_time_from_units_rejects_nan_infinity_negative_and_too_large),
        UNIT_TEST(util_time_from_units_rejects_a_result_that_does_not_fit),
        UNIT_TEST(util_time_to_units_divides_by_the_tick),
        UNIT_TEST(util_time_to_units_is_the_double_nearest_the_exact_quotient),
        UNIT_TEST(util_double_format_prints_the_shortest_exact_decimal),
        UNIT_TEST(util_double_format_returns_its_buffer),
        UNIT_TEST(util_mul_u64_detects_overflow),
        UNIT_TEST(util_add_u64_detects_overflow),
        UNIT_TEST(util_fail_fills_the_error_and_returns_minus_one),
        UNIT_TEST(util_xstrdup_copies_the_string),
        {NULL, NULL},
};

const struct unit_suite suite_util = {"util", tests};
