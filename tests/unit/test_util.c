/*
 * Unit tests of util: exact time conversion, number formatting, checked arithmetic, errors,
 * allocation that reports failure and the growable array. The failures tested are overflowing
 * sizes, refused before anything is asked of malloc (a real allocation that large would stop a
 * sanitizer build, which treats it as a bug).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A time above 0 is below the resolution when it rounds to no tick; 0 and one that rounds to a
 * tick are not, nor is a time no op may take at all. */
static void util_time_below_tick_is_a_time_above_0_that_rounds_to_none(void)
{
	CU_ASSERT_TRUE(pp_time_below_tick(1e-9));
	CU_ASSERT_TRUE(pp_time_below_tick(4.9e-7));
	CU_ASSERT_FALSE(pp_time_below_tick(5.1e-7));
	CU_ASSERT_FALSE(pp_time_below_tick(1e-6));
	CU_ASSERT_FALSE(pp_time_below_tick(0));
	CU_ASSERT_FALSE(pp_time_below_tick(-1e-9));
	CU_ASSERT_FALSE(pp_time_below_tick(NAN));
}

/* A scaled op is rounded to the nearest tick; one above 0 that rounds to none, or a result past
 * every sum's limit, is no op time. */
static void util_time_scale_rounds_and_refuses_no_tick_and_too_long(void)
{
	pp_time t = -1;

	CU_ASSERT_EQUAL(pp_time_scale(3, 0.5, &t), PP_TIME_SCALED);
	CU_ASSERT_EQUAL(t, 2);
	CU_ASSERT_EQUAL(pp_time_scale(1000000, 1e-6, &t), PP_TIME_SCALED);
	CU_ASSERT_EQUAL(t, 1);
	CU_ASSERT_EQUAL(pp_time_scale(0, 1e-9, &t), PP_TIME_SCALED);
	CU_ASSERT_EQUAL(t, 0);
	t = 42;
	CU_ASSERT_EQUAL(pp_time_scale(1000000, 4e-7, &t), PP_TIME_NO_TICK);
	CU_ASSERT_EQUAL(pp_time_scale(PP_TIME_TOTAL_MAX, 2, &t), PP_TIME_TOO_LONG);
	CU_ASSERT_EQUAL(t, 42);
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
	/* far past 2^53, where a long double quotient rounded to a double can be an ulp off: the
	 * nearest (Python's float(Fraction(t, tick))) */
	CU_ASSERT_EQUAL(pp_time_to_units(INT64_C(1249629629998630143) + 999000, 999000),
	                1250880510510.1394);
	CU_ASSERT_EQUAL(pp_time_to_units(INT64_C(1187039413221620805), 7000), 169577059031660.12);
	CU_ASSERT_EQUAL(pp_time_to_units(INT64_C(3193131265403506231), 12345678),
	                258643653706.46362);
	CU_ASSERT_EQUAL(pp_time_to_units(INT64_C(3884428891471536879), 7000000), 554918413067.3624);
	CU_ASSERT_EQUAL(pp_time_to_units(INT64_C(4359472197675595895), 3000), 1453157399225198.8);
	CU_ASSERT_EQUAL(pp_time_to_units(INT64_C(248138121951261269), 3000), 82712707317087.1);
	CU_ASSERT_EQUAL(pp_time_to_units(INT64_C(1723601433279533302), 7000000),
	                246228776182.79047);
	CU_ASSERT_EQUAL(pp_time_to_units(-INT64_C(1723601433279533302), 7000000),
	                -246228776182.79047);
	/* and pp_ratio of wholes past 2^53 */
	CU_ASSERT_EQUAL(pp_ratio(1249629629998630143.0L + 999000, 999000), 1250880510510.1394);
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

static void util_strdup_copies_the_string(void)
{
	const char *s = "pipeline";
	char *copy = pp_strdup(s);

	CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
	CU_ASSERT_PTR_NOT_EQUAL(copy, s);
	CU_ASSERT_STRING_EQUAL(copy, "pipeline");
	free(copy);
}

static void util_allocators_give_a_pointer_for_a_size_of_zero(void)
{
	void *p[4] = {pp_malloc(0), pp_calloc(0, 8), pp_mallocarray(0, 8), pp_mallocarray(8, 0)};

	for (int i = 0; i < 4; i++) {
		CU_ASSERT_PTR_NOT_NULL(p[i]);
		free(p[i]);
	}
}

static void util_mallocarray_refuses_a_count_whose_size_overflows(void)
{
	CU_ASSERT_PTR_NULL(pp_mallocarray(SIZE_MAX / 2 + 1, 2));
	CU_ASSERT_PTR_NULL(pp_mallocarray(SIZE_MAX, SIZE_MAX));
	CU_ASSERT_PTR_NULL(pp_mallocarray_large(SIZE_MAX / 8 + 1, 8));
}

static void util_mallocarray_large_gives_memory_that_can_be_written_whole(void)
{
	size_t n = (size_t)5 << 20; /* above the 4 MiB from which it aligns to huge pages */
	unsigned char *p = pp_mallocarray_large(n, 1);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	memset(p, 0, n);
	p[n - 1] = 7;
	CU_ASSERT_EQUAL(p[0] + p[n - 1], 7);
	free(p);
}

/* pp_calloc_large's arrays are zeroed, small or on huge pages, where memory just freed held
 * other bytes (a block freed is what malloc hands out next, so an array left as it comes would
 * show them), and a size that overflows is refused. */
static void util_calloc_large_zeroes_what_it_gives(void)
{
	static const size_t sizes[] = {0, 1, 1000, 300000, (size_t)5 << 20};

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k] > 0 ? sizes[k] : 1, zero = 0;
		unsigned char *dirty = pp_mallocarray_large(n, 1), *p;

		CU_ASSERT_PTR_NOT_NULL_FATAL(dirty);
		memset(dirty, 0xab, n);
		free(dirty);
		p = pp_calloc_large(sizes[k], 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		for (size_t i = 0; i < sizes[k]; i++)
			zero += p[i] == 0;
		CU_ASSERT_EQUAL(zero, sizes[k]);
		free(p);
	}
	CU_ASSERT_PTR_NULL(pp_calloc_large(SIZE_MAX / 8 + 1, 8));
}

/* An arena hands out 64-byte aligned arrays in order while they fit, then allocates alone;
 * pp_large_free frees only what it allocated alone. */
static void util_arena_hands_out_what_fits_and_frees_only_the_rest(void)
{
	struct pp_arena a;
	char *x, *y, *z;

	CU_ASSERT_EQUAL_FATAL(pp_arena_reserve(&a, pp_arena_bytes(10, 8) + pp_arena_bytes(3, 1)),
	                      0);
	CU_ASSERT_EQUAL(pp_arena_bytes(10, 8), 128);
	CU_ASSERT_EQUAL(pp_arena_bytes(SIZE_MAX / 2, 4), SIZE_MAX);
	x = pp_large_alloc(&a, 10, 8);
	y = pp_large_alloc(&a, 3, 1);
	z = pp_large_alloc(&a, 1, 1); /* full: alone */
	pp_large_free(&a, pp_large_alloc(&a, 0, 8)); /* nothing: alone, though the arena is full */
	CU_ASSERT_PTR_EQUAL(x, a.base);
	CU_ASSERT_PTR_EQUAL(y, a.base + 128);
	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	CU_ASSERT_TRUE(z < a.base || z >= a.base + a.size);
	memset(x, 1, 80);
	memset(y, 2, 3);
	*z = 3;
	pp_large_free(&a, x); /* nothing: freed with the arena */
	pp_large_free(&a, y);
	pp_large_free(&a, z);
	pp_large_free(NULL, pp_large_alloc(NULL, 4, 4));
	CU_ASSERT_PTR_NULL(pp_large_alloc(&a, SIZE_MAX / 8 + 1, 8));
	pp_arena_release(&a);
	CU_ASSERT_PTR_NULL(a.base);
	CU_ASSERT_EQUAL(pp_arena_reserve(&a, 0), 0);
	CU_ASSERT_PTR_NULL(a.base);
	pp_arena_release(&a);
}

static void util_reallocarray_refuses_an_overflow_and_keeps_the_block(void)
{
	int *v = pp_mallocarray(4, sizeof(*v));

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	for (int i = 0; i < 4; i++)
		v[i] = 10 + i;
	CU_ASSERT_PTR_NULL(pp_reallocarray(v, SIZE_MAX / sizeof(*v) + 1, sizeof(*v)));
	/* still the caller's, contents unchanged */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(v[i], 10 + i);
	v = pp_reallocarray(v, 1000, sizeof(*v));
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_EQUAL(v[3], 13);
	free(v);
}

static void util_nomem_names_the_bytes_asked_for(void)
{
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(pp_nomem(&err, 3, 40), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NOMEM);
	CU_ASSERT_STRING_EQUAL(err.msg, "out of memory allocating 120 bytes");
	CU_ASSERT_EQUAL(pp_nomem(NULL, 3, 40), -1);
}

static void util_nomem_names_both_factors_of_a_size_that_overflows(void)
{
	struct pp_error err = {0};
	char want[128];

	snprintf(want, sizeof(want), "out of memory: %zu x 16 bytes do not fit in memory",
	         SIZE_MAX / 4);
	CU_ASSERT_EQUAL(pp_nomem(&err, SIZE_MAX / 4, 16), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NOMEM);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
}

static void util_grow_makes_room_and_keeps_the_contents(void)
{
	struct pp_error err = {0};
	size_t cap = 0, n = 0;
	int *v = NULL;

	for (int i = 0; i < 1000; i++) {
		CU_ASSERT_EQUAL_FATAL(pp_grow((void **)&v, &cap, n + 1, sizeof(*v), &err), 0);
		CU_ASSERT_FATAL(cap >= n + 1);
		v[n++] = i;
	}
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(v[i], i);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	free(v);
}

static void util_grow_starts_at_eight_and_doubles(void)
{
	size_t cap = 0;
	char *v = NULL;

	CU_ASSERT_EQUAL_FATAL(pp_grow((void **)&v, &cap, 1, 1, NULL), 0);
	CU_ASSERT_EQUAL(cap, 8);
	CU_ASSERT_EQUAL_FATAL(pp_grow((void **)&v, &cap, 8, 1, NULL), 0);
	CU_ASSERT_EQUAL(cap, 8); /* already room: nothing changes */
	CU_ASSERT_EQUAL_FATAL(pp_grow((void **)&v, &cap, 9, 1, NULL), 0);
	CU_ASSERT_EQUAL(cap, 16);
	CU_ASSERT_EQUAL_FATAL(pp_grow((void **)&v, &cap, 100, 1, NULL), 0);
	CU_ASSERT_EQUAL(cap, 128);
	free(v);
}

static void util_grow_refuses_an_overflowing_count_and_leaves_the_array_alone(void)
{
	struct pp_error err = {0};
	size_t cap = 0;
	int *v = NULL, *before;

	CU_ASSERT_EQUAL_FATAL(pp_grow((void **)&v, &cap, 3, sizeof(*v), &err), 0);
	v[0] = 1;
	v[2] = 3;
	before = v;
	CU_ASSERT_EQUAL(pp_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v), &err), -1);
	CU_ASSERT_PTR_EQUAL(v, before);
	CU_ASSERT_EQUAL(cap, 8);
	CU_ASSERT_EQUAL(v[0] + v[2], 4);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NOMEM);
	CU_ASSERT_NSTRING_EQUAL(err.msg, "out of memory", strlen("out of memory"));
	free(v);
}

static void util_gcd64_of_signed_values_and_of_zero(void)
{
	CU_ASSERT_EQUAL(pp_gcd64(12, 18), 6);
	CU_ASSERT_EQUAL(pp_gcd64(-12, 18), 6);
	CU_ASSERT_EQUAL(pp_gcd64(0, 7), 7);
	CU_ASSERT_EQUAL(pp_gcd64(7, 0), 7);
	CU_ASSERT_EQUAL(pp_gcd64(0, 0), 0);
	CU_ASSERT_EQUAL(pp_gcd64(INT64_MIN, INT64_MIN), INT64_MAX);
	CU_ASSERT_EQUAL(pp_gcd64(1000000, 250000), 250000);
}

static const struct unit_test tests[] = {
        UNIT_TEST(util_arena_hands_out_what_fits_and_frees_only_the_rest),
        UNIT_TEST(util_gcd64_of_signed_values_and_of_zero),
        UNIT_TEST(util_time_from_units_rounds_to_the_nearest_tick),
        UNIT_TEST(util_time_from_units_accepts_the_largest_time),
        UNIT_TEST(util_time_scale_rounds_and_refuses_no_tick_and_too_long),
        UNIT_TEST(util_time_below_tick_is_a_time_above_0_that_rounds_to_none),
        UNIT_TEST(util_time_from_units_rejects_nan_infinity_negative_and_too_large),
        UNIT_TEST(util_time_from_units_rejects_a_result_that_does_not_fit),
        UNIT_TEST(util_time_to_units_divides_by_the_tick),
        UNIT_TEST(util_time_to_units_is_the_double_nearest_the_exact_quotient),
        UNIT_TEST(util_double_format_prints_the_shortest_exact_decimal),
        UNIT_TEST(util_double_format_returns_its_buffer),
        UNIT_TEST(util_mul_u64_detects_overflow),
        UNIT_TEST(util_add_u64_detects_overflow),
        UNIT_TEST(util_fail_fills_the_error_and_returns_minus_one),
        UNIT_TEST(util_strdup_copies_the_string),
        UNIT_TEST(util_allocators_give_a_pointer_for_a_size_of_zero),
        UNIT_TEST(util_mallocarray_refuses_a_count_whose_size_overflows),
        UNIT_TEST(util_mallocarray_large_gives_memory_that_can_be_written_whole),
        UNIT_TEST(util_calloc_large_zeroes_what_it_gives),
        UNIT_TEST(util_reallocarray_refuses_an_overflow_and_keeps_the_block),
        UNIT_TEST(util_nomem_names_the_bytes_asked_for),
        UNIT_TEST(util_nomem_names_both_factors_of_a_size_that_overflows),
        UNIT_TEST(util_grow_makes_room_and_keeps_the_contents),
        UNIT_TEST(util_grow_starts_at_eight_and_doubles),
        UNIT_TEST(util_grow_refuses_an_overflowing_count_and_leaves_the_array_alone),
        {NULL, NULL},
};

const struct unit_suite suite_util = {"util", tests};
