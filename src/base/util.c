/*
 * Shared helpers: errors, allocation that reports failure instead of aborting, growable arrays,
 * checked arithmetic, exact time conversion, the "C" locale of the library's calls and threads.
 */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE */
#include "ppsim/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "numfmt.h"

int pp_fail(struct pp_error *err, enum pp_errkind kind, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	err->kind = kind;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void *pp_malloc(size_t size)
{
	return malloc(size ? size : 1);
}

void *pp_calloc(size_t count, size_t size)
{
	return calloc(count ? count : 1, size ? size : 1);
}

void *pp_mallocarray(size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
		return NULL;
	return pp_malloc(count * size);
}

void *pp_reallocarray(void *ptr, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
		return NULL;
	return realloc(ptr, count && size ? count * size : 1);
}

#define HUGE_PAGE ((size_t)2 << 20)

void *pp_mallocarray_large(size_t count, size_t size)
{
#ifdef MADV_HUGEPAGE
	size_t n, rounded;
	void *p;

	if (size == 0 || count > SIZE_MAX / size)
		return pp_mallocarray(count, size);
	n = count * size;
	if (n < HUGE_PAGE / 8 || n > SIZE_MAX - HUGE_PAGE)
		return pp_malloc(n);
	rounded = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if (posix_memalign(&p, HUGE_PAGE, rounded) != 0)
		return NULL;
	(void)madvise(p, rounded, MADV_HUGEPAGE); /* advice: a refusal changes nothing */
	return p;
#else
	return pp_mallocarray(count, size);
#endif
}

void *pp_calloc_large(size_t count, size_t size)
{
	void *p = pp_mallocarray_large(count, size);

	if (p != NULL)
		memset(p, 0, count && size ? count * size : 1);
	return p;
}

#define ARENA_ALIGN ((size_t)64)

size_t pp_arena_bytes(size_t count, size_t size)
{
	if (size != 0 && count > (SIZE_MAX - ARENA_ALIGN) / size)
		return SIZE_MAX;
	return (count * size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
}

int pp_arena_reserve(struct pp_arena *a, size_t bytes)
{
	*a = (struct pp_arena){NULL, 0, 0};
	if (bytes == 0)
		return 0;
	if ((a->base = pp_mallocarray_large(bytes, 1)) == NULL)
		return -1;
	a->size = bytes;
	return 0;
}

void pp_arena_release(struct pp_arena *a)
{
	free(a->base);
	*a = (struct pp_arena){NULL, 0, 0};
}

void *pp_large_alloc(struct pp_arena *a, size_t count, size_t size)
{
	size_t n = pp_arena_bytes(count, size);
	void *p;

	/* nothing to hand out (n 0) is a block of its own, as pp_malloc's one byte */
	if (a == NULL || a->base == NULL || n == 0 || n == SIZE_MAX || n > a->size - a->used)
		return pp_mallocarray_large(count, size);
	p = a->base + a->used;
	a->used += n;
	return p;
}

bool pp_arena_holds(const struct pp_arena *a, const void *p)
{
	/* compared as addresses: p and the block are different objects unless p is inside it */
	return a != NULL && a->base != NULL && (uintptr_t)p >= (uintptr_t)a->base &&
	       (uintptr_t)p < (uintptr_t)a->base + a->size;
}

void pp_large_free(const struct pp_arena *a, void *p)
{
	if (!pp_arena_holds(a, p))
		free(p);
}

char *pp_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = pp_malloc(n);

	return p ? memcpy(p, s, n) : NULL;
}

int pp_nomem(struct pp_error *err, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
		return pp_fail(err, PP_ERR_NOMEM,
		               "out of memory: %zu x %zu bytes do not fit in memory", count, size);
	return pp_fail(err, PP_ERR_NOMEM, "out of memory allocating %zu bytes", count * size);
}

void *pp_zalloc(size_t count, size_t size, struct pp_error *err)
{
	void *p = pp_calloc(count, size);

	if (p == NULL)
		pp_nomem(err, count, size);
	return p;
}

int pp_grow(void **base, size_t *cap, size_t need, size_t elem, struct pp_error *err)
{
	size_t n = *cap;
	void *p;

	if (need <= n)
		return 0;
	if (n < 8)
		n = 8;
	while (n < need)
		n = n > SIZE_MAX / 2 ? need : 2 * n;
	p = pp_reallocarray(*base, n, elem);
	if (p == NULL)
		return pp_nomem(err, n, elem);
	*base = p;
	*cap = n;
	return 0;
}

bool pp_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (a != 0 && b > UINT64_MAX / a)
		return false;
	*out = a * b;
	return true;
}

bool pp_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (b > UINT64_MAX - a)
		return false;
	*out = a + b;
	return true;
}

bool pp_time_from_units(double units, int64_t tick, pp_time *out)
{
	double ticks;

	if (!isfinite(units) || units < 0 || units > PP_TIME_MAX_UNITS || tick <= 0)
		return false;
	ticks = nearbyint(units * (double)tick);
	if (ticks >= 9.2e18)
		return false;
	*out = (pp_time)ticks;
	return true;
}

bool pp_time_below_tick(double units)
{
	pp_time t = 0;

	return units > 0 && pp_time_from_units(units, PP_TICK_BASE, &t) && t == 0;
}

enum pp_time_scaled pp_time_scale(pp_time t, double f, pp_time *out)
{
	double x = (double)t * f;

	if (x > (double)PP_TIME_TOTAL_MAX)
		return PP_TIME_TOO_LONG;
	if (t > 0 && llround(x) == 0)
		return PP_TIME_NO_TICK;
	*out = (pp_time)llround(x);
	return PP_TIME_SCALED;
}

int64_t pp_gcd64(int64_t a, int64_t b)
{
	uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a,
	         y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;

	while (y != 0) {
		uint64_t t = x % y;

		x = y;
		y = t;
	}
	return x > INT64_MAX ? INT64_MAX : (int64_t)x;
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/* |x b - a| x 2^s for the double x >= 0 and the whole a, b (b > 0), with s the shift that makes
 * every term whole for the exponents at hand (x's exponent at least -s); false when it does
 * not fit. */
static bool gap_of(double x, uint64_t a, uint64_t b, int s, u128 *gap)
{
	int e;
	double f = frexp(x, &e); /* x = f 2^e, 0.5 <= f < 1 */
	uint64_t mant = (uint64_t)ldexp(f, 53);
	int shift = e - 53 + s; /* x b 2^s = mant b 2^shift */
	u128 xb, as;

	if (shift < 0 || shift > 10 || s > 60)
		return false;
	xb = ((u128)mant * b) << shift;
	as = (u128)a << s;
	*gap = xb > as ? xb - as : as - xb;
	return true;
}

/*
 * The double nearest a / b (a, b whole, b > 0), ties to the even significand: the long double
 * quotient (64 bits), rounded to a double, may be one off the nearest (two roundings); it and
 * its two neighbours are compared exactly. Falls back to the long double's when the terms do
 * not fit 128 bits (a quotient far from 1 beyond 2^53).
 */
static double nearest_quotient(uint64_t a, uint64_t b)
{
	double q = (double)((long double)a / (long double)b), best = q, c[2];
	int e, s;
	u128 g, gb;

	if (q == 0 || !isfinite(q))
		return q;
	(void)frexp(nextafter(q, 0), &e);
	s = 53 - e; /* the smallest exponent among the three, made whole */
	if (s < 0)
		s = 0;
	if (!gap_of(q, a, b, s, &gb))
		return q;
	c[0] = nextafter(q, 0);
	c[1] = nextafter(q, INFINITY);
	for (int i = 0; i < 2; i++) {
		int ec;
		uint64_t mant;

		if (!gap_of(c[i], a, b, s, &g))
			return q;
		mant = (uint64_t)ldexp(frexp(c[i], &ec), 53);
		if (g < gb || (g == gb && (mant & 1) == 0)) {
			best = c[i];
			gb = g;
		}
	}
	return best;
}
#endif

double pp_time_to_units(pp_time t, int64_t tick)
{
	const pp_time exact = INT64_C(1) << 53;

	/* both operands exact in a double: one correctly rounded division */
	if (t <= exact && t >= -exact)
		return (double)t / (double)tick;
#ifdef __SIZEOF_INT128__
	/* beyond 2^53 ticks, the nearest double found exactly */
	if (tick > 0)
		return t < 0 ? -nearest_quotient(0 - (uint64_t)t, (uint64_t)tick)
		             : nearest_quotient((uint64_t)t, (uint64_t)tick);
#endif
	/* else divide in long double, which holds t exactly on x86-64 */
	return (double)((long double)t / (long double)tick);
}

double pp_ratio(long double num, long double den)
{
	const long double exact = 9007199254740992.0L; /* 2^53 */

	if (num <= exact && num >= -exact && den <= exact)
		return (double)num / (double)den;
#ifdef __SIZEOF_INT128__
	if (den > 0 && den < 18446744073709551616.0L && num < 18446744073709551616.0L &&
	    num > -18446744073709551616.0L)
		return num < 0 ? -nearest_quotient((uint64_t)-num, (uint64_t)den)
		               : nearest_quotient((uint64_t)num, (uint64_t)den);
#endif
	return (double)(num / den);
}

char *pp_double_format(char *buf, size_t n, double x)
{
	char text[NUMFMT_MAX];
	size_t len = numfmt_shortest(text, x);

	/* as snprintf: what fits of it, NUL-terminated */
	if (n > 0) {
		len = len < n ? len : n - 1;
		memcpy(buf, text, len);
		buf[len] = '\0';
	}
	return buf;
}

int pp_locale_enter(struct pp_locale *l, struct pp_error *err)
{
	l->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	l->saved = l->c != (locale_t)0 ? uselocale(l->c) : (locale_t)0;
	if (l->saved == (locale_t)0) {
		if (l->c != (locale_t)0)
			freelocale(l->c);
		return pp_fail(err, PP_ERR_NOMEM, "out of memory making the \"C\" locale");
	}
	return 0;
}

void pp_locale_leave(struct pp_locale *l)
{
	uselocale(l->saved);
	freelocale(l->c);
}

struct pp_thread pp_thread_of(void *(*fn)(void *), void *arg)
{
	return (struct pp_thread){fn, arg, uselocale((locale_t)0)};
}

/* The body of every thread pp_thread_create starts. */
static void *thread_main(void *arg)
{
	const struct pp_thread *start = arg;

	uselocale(start->locale);
	return start->fn(start->arg);
}

int pp_thread_create(pthread_t *thread, const struct pp_thread *start)
{
	return pthread_create(thread, NULL, thread_main, (void *)start);
}

/* Most threads pp_threads runs fn on. */
#define PP_MAX_THREADS 8

void pp_threads(int jobs, void *(*fn)(void *), void *args, size_t size)
{
	pthread_t threads[PP_MAX_THREADS];
	struct pp_thread start[PP_MAX_THREADS];
	bool started[PP_MAX_THREADS] = {false};

	if (jobs > PP_MAX_THREADS)
		jobs = PP_MAX_THREADS;
	/* each start stays put until its thread has read it */
	for (int t = 1; t < jobs; t++) {
		start[t] = pp_thread_of(fn, (char *)args + (size_t)t * size);
		started[t] = pp_thread_create(&threads[t], &start[t]) == 0;
	}
	fn(args);
	for (int t = 1; t < jobs; t++)
		if (started[t])
			pthread_join(threads[t], NULL);
}
