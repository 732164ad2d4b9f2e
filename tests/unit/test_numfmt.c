/* Unit tests of numbers as text without printf (src/base/numfmt.c) and of its writer: every
 * text is the C library's, byte for byte, for random doubles, times and tick rates. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"
#include "unit.h"

/* xorshift64: the same values on every run. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* What the writers printed before: the shortest of %.15g, %.16g and %.17g that reads back. */
static const char *printed(char *buf, double x)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, 64, "%.*g", digits, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	return buf;
}

/* A double of one of several kinds: any bit pattern, a binary fraction, a decimal of few
 * places, a trace's microseconds, a large integer, a quotient of integers of either sign. */
static double some_double(uint64_t *s, int kind)
{
	uint64_t r = next(s);
	double x;

	switch (kind % 6) {
	case 0:
		memcpy(&x, &r, sizeof(x));
		return x;
	case 1:
		return ldexp((double)(r >> 11), -(int)(next(s) % 80));
	case 2:
		return (double)(r % 100000000) / 1000.0;
	case 3:
		return 1 + (double)(r % (UINT64_C(1) << 50)) /
		                   (double)(1000000 * (int64_t)(1 + next(s) % 8)) * 1000;
	case 4:
		return (double)(r >> (next(s) % 64));
	default:
		x = (double)(r % 1000000007) / (double)(1 + next(s) % 1000003);
		return next(s) & 1 ? -x : x;
	}
}

static void numfmt_g_is_printf_g_for_every_precision(void)
{
	uint64_t s = 88172645463325252u;
	char a[NUMFMT_MAX], b[64];
	long bad = 0;

	for (int i = 0; i < 60000; i++) {
		double x = some_double(&s, i);

		for (int digits = 1; digits <= 17; digits++) {
			size_t n = numfmt_g(a, x, digits);

			snprintf(b, sizeof(b), "%.*g", digits, x);
			bad += strcmp(a, b) != 0 || n != strlen(b);
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static void numfmt_shortest_is_what_the_writers_printed(void)
{
	uint64_t s = 1234567;
	char a[NUMFMT_MAX], b[64];
	long bad = 0;

	for (int i = 0; i < 300000; i++) {
		double x = some_double(&s, i);

		numfmt_shortest(a, x);
		bad += strcmp(a, printed(b, x)) != 0;
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* Powers of two and their neighbours (where the gap below a double is half the gap above),
 * over every exponent, subnormals included. */
static void numfmt_is_exact_around_every_power_of_two(void)
{
	char a[NUMFMT_MAX], b[64];
	long bad = 0;

	for (int e = -1074; e < 1024; e++)
		for (int k = -2; k <= 2; k++) {
			double x = ldexp(1, e);

			for (int j = 0; j < abs(k); j++)
				x = nextafter(x, k < 0 ? 0 : INFINITY);
			for (int digits = 1; digits <= 17; digits++) {
				numfmt_g(a, x, digits);
				snprintf(b, sizeof(b), "%.*g", digits, x);
				bad += strcmp(a, b) != 0;
			}
			numfmt_shortest(a, x);
			bad += strcmp(a, printed(b, x)) != 0;
		}
	CU_ASSERT_EQUAL(bad, 0);
}

/* Decimal ties (a digit 5 and nothing after it) round to the even digit, as printf does. */
static void numfmt_rounds_ties_to_even(void)
{
	char a[NUMFMT_MAX], b[64];

	CU_ASSERT_STRING_EQUAL((numfmt_g(a, 0.125, 2), a), "0.12");
	CU_ASSERT_STRING_EQUAL((numfmt_g(a, 0.375, 2), a), "0.38");
	CU_ASSERT_STRING_EQUAL((numfmt_g(a, 2.5, 1), a), "2");
	CU_ASSERT_STRING_EQUAL((numfmt_shortest(a, 1234567890123.125), a), "1234567890123.125");
	for (long k = 1; k < 100000; k++) {
		double x = 1e12 + (double)k * 0.125;

		for (int digits = 13; digits <= 16; digits++) {
			numfmt_g(a, x, digits);
			snprintf(b, sizeof(b), "%.*g", digits, x);
			CU_ASSERT_STRING_EQUAL(a, b);
		}
	}
}

static void numfmt_writes_special_values_as_printf_does(void)
{
	static const double xs[] = {0.0,      -0.0, NAN,  INFINITY, -INFINITY, DBL_MIN,  DBL_MAX,
	                            4.9e-324, 1e-7, 1e-6, 1e-5,     1e-4,      1e15,     1e16,
	                            1e17,     1e22, 1e23, 34.6,     100,       3.0 / 19, 34.9 - 24};
	char a[NUMFMT_MAX], b[64];

	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		for (int digits = 1; digits <= 17; digits++) {
			numfmt_g(a, xs[i], digits);
			snprintf(b, sizeof(b), "%.*g", digits, xs[i]);
			CU_ASSERT_STRING_EQUAL(a, b);
		}
		numfmt_shortest(a, xs[i]);
		CU_ASSERT_STRING_EQUAL(a, printed(b, xs[i]));
	}
	CU_ASSERT_STRING_EQUAL((numfmt_shortest(a, 34.6), a), "34.6");
	CU_ASSERT_STRING_EQUAL((numfmt_shortest(a, 3.0 / 19), a), "0.15789473684210525");
	CU_ASSERT_STRING_EQUAL((numfmt_g(a, 1e-7, 17), a), "9.9999999999999995e-08");
}

/*
 * The property the writers rest on: for random times and tick rates (the cost model's, a
 * million ticks a unit times a whole factor, and any), the text of t ticks reads back as
 * exactly the double the writers printed before, and is that text.
 */
static void numfmt_ticks_reads_back_as_the_double_the_writers_printed(void)
{
	uint64_t s = 42;
	char a[NUMFMT_MAX], b[64];
	long bad = 0;

	for (int i = 0; i < 400000; i++) {
		int64_t tick = i % 3 == 0   ? PP_TICK_BASE
		               : i % 3 == 1 ? PP_TICK_BASE * (int64_t)(1 + next(&s) % 64)
		                            : (int64_t)(1 + next(&s) % 100000000000);
		pp_time t = (pp_time)(next(&s) >> (1 + next(&s) % 63));
		double x = pp_time_to_units(t, tick);

		numfmt_ticks(a, t, tick);
		bad += strtod(a, NULL) != x || strcmp(a, printed(b, x)) != 0;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_STRING_EQUAL((numfmt_ticks(a, 1500000, PP_TICK_BASE), a), "1.5");
	CU_ASSERT_STRING_EQUAL((numfmt_ticks(a, 500000, PP_TICK_BASE), a), "0.5");
	CU_ASSERT_STRING_EQUAL((numfmt_ticks(a, 0, PP_TICK_BASE), a), "0");
	CU_ASSERT_STRING_EQUAL((numfmt_ticks(a, 1, PP_TICK_BASE), a), "1e-06");
	CU_ASSERT_STRING_EQUAL((numfmt_ticks(a, 100, PP_TICK_BASE), a), "0.0001");
	CU_ASSERT_STRING_EQUAL((numfmt_ticks(a, 1000000, 3 * PP_TICK_BASE), a),
	                       "0.3333333333333333");
	CU_ASSERT_STRING_EQUAL((numfmt_ticks(a, -2500000, PP_TICK_BASE), a), "-2.5");
}

/*
 * numfmt_ticks_at with a rate worked out once writes for every time what the C library's
 * shortest text of its double is (printed), as numfmt_ticks does: the trace's microseconds (a rate of 1000 times a whole factor, and any), times from 0 up to
 * 2^53 and past it, where its quotient's first guess is furthest off.
 */
static void numfmt_ticks_at_writes_the_shortest_text_of_the_double(void)
{
	static const int64_t rates[] = {1000, 3000, 64000, 1000000, 7, 1, 999999937,
	                                INT64_C(1) << 53, (INT64_C(1) << 53) + 1};
	uint64_t s = 7;
	char a[NUMFMT_MAX], b[64];
	long bad = 0;

	for (size_t k = 0; k < sizeof(rates) / sizeof(rates[0]); k++) {
		struct numfmt_tick f;

		numfmt_tick_init(&f, rates[k]);
		for (int i = 0; i < 100000; i++) {
			pp_time t = i < 64   ? (INT64_C(1) << 53) - 32 + i
			            : i < 96 ? (pp_time)(i - 80) * rates[k] + (i & 1)
			                     : (pp_time)(next(&s) >> (1 + next(&s) % 63));

			numfmt_ticks_at(a, t, &f);
			bad += strcmp(a, printed(b, pp_time_to_units(t, rates[k]))) != 0;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	{
		struct numfmt_tick us;

		numfmt_tick_init(&us, 1000); /* a microsecond of PP_TICK_BASE ticks a unit */
		CU_ASSERT_STRING_EQUAL((numfmt_ticks_at(a, 1001000 + 1000, &us), a), "1002");
		CU_ASSERT_STRING_EQUAL((numfmt_ticks_at(a, 1234567, &us), a), "1234.567");
		numfmt_tick_init(&us, 3000);
		CU_ASSERT_STRING_EQUAL((numfmt_ticks_at(a, 1000000, &us), a), "333.3333333333333");
	}
}

static void numfmt_writes_integers_whole(void)
{
	char a[NUMFMT_MAX];

	CU_ASSERT_EQUAL(numfmt_u64(a, 0), 1);
	CU_ASSERT_STRING_EQUAL(a, "0");
	CU_ASSERT_STRING_EQUAL((numfmt_u64(a, UINT64_MAX), a), "18446744073709551615");
	CU_ASSERT_STRING_EQUAL((numfmt_i64(a, INT64_MIN), a), "-9223372036854775808");
	CU_ASSERT_STRING_EQUAL((numfmt_i64(a, -7), a), "-7");
	CU_ASSERT_STRING_EQUAL((numfmt_i64(a, 1234567), a), "1234567");
}

/* Every integer below 100,000 (the inline paths up to 9,999 and the first of the long one)
 * and each power of ten and its neighbours as printf writes them, with their lengths. */
static void numfmt_writes_integers_as_printf(void)
{
	char a[NUMFMT_MAX], b[NUMFMT_MAX];
	int bad = 0;

	for (uint64_t v = 0; v < 100000; v++) {
		size_t n = numfmt_u64(a, v);

		snprintf(b, sizeof(b), "%" PRIu64, v);
		bad += strcmp(a, b) != 0 || n != strlen(b);
	}
	for (uint64_t p = 1; p != 0 && p <= UINT64_MAX / 10; p *= 10)
		for (uint64_t v = p - 1; v <= p + 1; v++) {
			size_t n = numfmt_u64(a, v);

			snprintf(b, sizeof(b), "%" PRIu64, v);
			bad += strcmp(a, b) != 0 || n != strlen(b);
		}
	CU_ASSERT_EQUAL(bad, 0);
}

/* The context of a thread writing items: the last item it wrote, and how many. */
struct item_ctx {
	size_t last, count;
	bool in_order; /* each item it wrote came after the one before */
};

/* Item i: "i:" and i % 97 letters of a kind i chooses, then a newline (under 128 bytes). */
static char *put_item(void *ctx, size_t i, char *p)
{
	struct item_ctx *x = ctx;
	int n = sprintf(p, "%zu:", i);

	x->in_order &= x->count == 0 || i > x->last;
	x->last = i;
	x->count++;
	memset(p + n, 'a' + (int)(i % 26), i % 97);
	p[n + (int)(i % 97)] = '\n';
	return p + n + i % 97 + 1;
}

/* wbuf_put_items writes its items in order after what the writer held and before what it
 * writes next, the same bytes on one thread or several (each item by one thread, which takes
 * its items in order with a context of its own), for few items (written in the caller's
 * thread) and for many (200000 of at most 128 bytes: twelve chunks), and when their mean is
 * guessed low (600000 items, about 55 bytes each, guessed 24: chunks of 87381 items, twice
 * what a thread's buffer holds, written in parts). */
static void wbuf_put_items_writes_them_in_order_on_any_number_of_threads(void)
{
	static const size_t counts[] = {0, 1, 5000, 200000, 600000};
	static const size_t means[] = {128, 128, 128, 128, 24};
	static struct wbuf w;
	char *want = NULL;
	size_t want_len = 0;

	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
		for (int jobs = 1; jobs <= WBUF_MAX_JOBS + 2; jobs++) {
			struct item_ctx ctx[WBUF_MAX_JOBS];
			char *text = NULL;
			size_t len = 0, items = 0;
			FILE *f = open_memstream(&text, &len);
			bool in_order = true;

			CU_ASSERT_PTR_NOT_NULL_FATAL(f);
			memset(ctx, 0, sizeof(ctx));
			for (int t = 0; t < WBUF_MAX_JOBS; t++)
				ctx[t].in_order = true;
			wbuf_init(&w, f);
			WBUF_LIT(&w, "head\n");
			wbuf_put_items(&w, counts[k], 128, means[k], put_item, ctx, sizeof(ctx[0]),
			               jobs);
			WBUF_LIT(&w, "tail\n");
			wbuf_finish(&w);
			fclose(f);
			for (int t = 0; t < WBUF_MAX_JOBS; t++) {
				items += ctx[t].count;
				in_order &= ctx[t].in_order;
			}
			CU_ASSERT_EQUAL(items, counts[k]);
			CU_ASSERT_TRUE(in_order);
			if (jobs == 1) { /* what every other number of threads must write */
				size_t at = 5;
				bool ok = len >= 10 && memcmp(text, "head\n", 5) == 0 &&
				          memcmp(text + len - 5, "tail\n", 5) == 0;

				for (size_t i = 0; i < counts[k] && ok; i++) {
					char line[160], *end = put_item(&(struct item_ctx){0}, i, line);

					ok = at + (size_t)(end - line) <= len &&
					     memcmp(text + at, line, (size_t)(end - line)) == 0;
					at += (size_t)(end - line);
				}
				CU_ASSERT_TRUE(ok && at + 5 == len);
				free(want);
				want = text;
				want_len = len;
				continue;
			}
			CU_ASSERT_TRUE(len == want_len && memcmp(text, want, len) == 0);
			free(text);
		}
	free(want);
}

/* The writer hands its stream the same bytes, whatever the size of each piece, with its own
 * buffer and with the small one it falls back on. */
static void wbuf_writes_every_piece_in_order(void)
{
	static struct wbuf w;
	static char big[3 * WBUF_SMALL];

	memset(big, 'x', sizeof(big));
	for (int small = 0; small < 2; small++) {
		char *text = NULL, num[NUMFMT_MAX];
		size_t len = 0, at = 0;
		FILE *f = open_memstream(&text, &len);
		int ok = 1;

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		wbuf_init(&w, f);
		if (small) { /* as when the large buffer cannot be had */
			free(w.buf);
			w.buf = w.small;
			w.cap = sizeof(w.small);
		}
		for (int i = 0; i < 5000; i++) {
			WBUF_LIT(&w, "a,");
			wbuf_i64(&w, -i);
			wbuf_char(&w, ',');
			wbuf_ticks(&w, (pp_time)i * 250000, PP_TICK_BASE);
			if (i % 1000 == 999)
				wbuf_put(&w, big, sizeof(big));
			wbuf_char(&w, '\n');
		}
		wbuf_printf(&w, "%s %d\n", "end", 42);
		wbuf_finish(&w);
		fclose(f);
		for (int i = 0; i < 5000 && ok; i++) {
			char line[64];
			int n = snprintf(line, sizeof(line), "a,%d,%s", -i,
			                 printed(num, (double)i * 250000 / 1e6));

			ok = at + (size_t)n <= len && memcmp(text + at, line, (size_t)n) == 0;
			at += (size_t)n;
			if (ok && i % 1000 == 999) {
				ok = at + sizeof(big) <= len &&
				     memcmp(text + at, big, sizeof(big)) == 0;
				at += sizeof(big);
			}
			ok = ok && at < len && text[at++] == '\n';
		}
		CU_ASSERT_TRUE(ok);
		CU_ASSERT_TRUE(at + 7 == len && memcmp(text + at, "end 42\n", 7) == 0);
		free(text);
	}
}

/* An output of several buffers goes through the writer's own thread (w.writer set) and comes
 * out as written, in order: rows, pieces longer than a buffer (written past it), a printf longer
 * than a buffer, and bytes the caller writes to the stream itself after wbuf_sync. */
static void wbuf_writes_large_outputs_in_order_on_its_thread(void)
{
	static struct wbuf w;
	/* rows of about 8 bytes: 4 buffers of them, and the long pieces between */
	int rows = (int)(WBUF_SIZE / 2);
	size_t longest = WBUF_SIZE + WBUF_SIZE / 3, cap = 32 * WBUF_SIZE, want_n = 0;
	char *lng = malloc(longest + 1), *want = malloc(cap), *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	bool threaded = false;

	CU_ASSERT_PTR_NOT_NULL_FATAL(lng);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	for (size_t i = 0; i < longest; i++)
		lng[i] = (char)('a' + i % 26);
	lng[longest] = '\0';
	wbuf_init(&w, f);
	for (int i = 0; i < rows; i++) {
		char num[NUMFMT_MAX];
		size_t n = numfmt_i64(num, (int64_t)i * 7919 - 5);

		wbuf_i64(&w, (int64_t)i * 7919 - 5);
		wbuf_char(&w, ';');
		if (want_n + n + 2 * longest + 16 > cap)
			break; /* the test's own bound: cannot happen with these sizes */
		memcpy(want + want_n, num, n);
		want[want_n + n] = ';';
		want_n += n + 1;
		threaded |= w.writer != NULL;
		if (i == rows / 3 || i == 2 * rows / 3) {
			wbuf_put(&w, lng, longest);
			memcpy(want + want_n, lng, longest);
			want_n += longest;
		}
		if (i == rows / 2) {
			wbuf_printf(&w, "<%s>", lng);
			want[want_n++] = '<';
			memcpy(want + want_n, lng, longest);
			want_n += longest;
			want[want_n++] = '>';
			wbuf_flush(&w);
			wbuf_sync(&w);
			fputs("(own)", f);
			memcpy(want + want_n, "(own)", 5);
			want_n += 5;
		}
	}
	wbuf_finish(&w);
	CU_ASSERT_TRUE(threaded);
	CU_ASSERT_PTR_NULL(w.writer);
	fclose(f);
	CU_ASSERT_FATAL(want_n <= cap);
	CU_ASSERT_EQUAL(len, want_n);
	CU_ASSERT_TRUE(len == want_n && memcmp(text, want, len) == 0);
	free(text);
	free(want);
	free(lng);
}

/* An output whose second buffer is handed over by wbuf_finish itself: finish starts the thread
 * then, and still waits for it, so that the stream holds every byte when it returns. */
static void wbuf_finish_waits_for_the_thread_it_starts(void)
{
	static struct wbuf w;
	static char piece[1000];
	char *text = NULL;
	size_t len = 0, n = WBUF_SIZE + WBUF_SIZE / 2, at = 0;
	FILE *f = open_memstream(&text, &len);
	bool ok = true;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	for (size_t i = 0; i < sizeof(piece); i++)
		piece[i] = (char)('A' + i % 23);
	wbuf_init(&w, f);
	for (at = 0; at + sizeof(piece) <= n; at += sizeof(piece))
		wbuf_put(&w, piece, sizeof(piece));
	CU_ASSERT_PTR_NULL(w.writer); /* one buffer handed over so far */
	wbuf_finish(&w);
	CU_ASSERT_PTR_NULL(w.writer);
	fclose(f);
	CU_ASSERT_EQUAL(len, at);
	for (size_t k = 0; k + sizeof(piece) <= len && ok; k += sizeof(piece))
		ok = memcmp(text + k, piece, sizeof(piece)) == 0;
	CU_ASSERT_TRUE(ok && len == at);
	free(text);
}

static const struct unit_test tests[] = {
        UNIT_TEST(numfmt_g_is_printf_g_for_every_precision),
        UNIT_TEST(numfmt_shortest_is_what_the_writers_printed),
        UNIT_TEST(numfmt_is_exact_around_every_power_of_two),
        UNIT_TEST(numfmt_rounds_ties_to_even),
        UNIT_TEST(numfmt_writes_special_values_as_printf_does),
        UNIT_TEST(numfmt_ticks_reads_back_as_the_double_the_writers_printed),
        UNIT_TEST(numfmt_ticks_at_writes_the_shortest_text_of_the_double),
        UNIT_TEST(numfmt_writes_integers_whole),
        UNIT_TEST(numfmt_writes_integers_as_printf),
        UNIT_TEST(wbuf_writes_every_piece_in_order),
        UNIT_TEST(wbuf_put_items_writes_them_in_order_on_any_number_of_threads),
        UNIT_TEST(wbuf_writes_large_outputs_in_order_on_its_thread),
        UNIT_TEST(wbuf_finish_waits_for_the_thread_it_starts),
        {NULL, NULL},
};

const struct unit_suite suite_numfmt = {"numfmt", tests};
