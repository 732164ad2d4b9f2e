/*
 * Numbers as decimal text without printf (numfmt.h). A double x = M 2^e (M the 53-bit
 * significand) written with N significant digits is Y = round(x 10^s) for the s that gives Y
 * exactly N digits, which is an integer division of M 10^s by 2^-e, or of M 2^e by 10^-s: 128-bit
 * integers hold both for every double from about 1e-6 up to 2^127, and the remainder gives
 * the rounding (to nearest, ties to even, as the C library rounds in the default mode) and
 * how far the text lies from x, which says whether it reads back as x without reading it.
 */
#include "numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* "00" "01" ... "99": two digits at a time (and the literal's NUL, which no reader uses). */
const char numfmt_pairs[201] = "0001020304050607080910111213141516171819"
                               "2021222324252627282930313233343536373839"
                               "4041424344454647484950515253545556575859"
                               "6061626364656667686970717273747576777879"
                               "8081828384858687888990919293949596979899";

static const uint64_t pow10_64[20] = {UINT64_C(1),
                                      UINT64_C(10),
                                      UINT64_C(100),
                                      UINT64_C(1000),
                                      UINT64_C(10000),
                                      UINT64_C(100000),
                                      UINT64_C(1000000),
                                      UINT64_C(10000000),
                                      UINT64_C(100000000),
                                      UINT64_C(1000000000),
                                      UINT64_C(10000000000),
                                      UINT64_C(100000000000),
                                      UINT64_C(1000000000000),
                                      UINT64_C(10000000000000),
                                      UINT64_C(100000000000000),
                                      UINT64_C(1000000000000000),
                                      UINT64_C(10000000000000000),
                                      UINT64_C(100000000000000000),
                                      UINT64_C(1000000000000000000),
                                      UINT64_C(10000000000000000000)};

/* The number of decimal digits of v: from its bits (log10(2) ~ 1233 / 4096), then one
 * comparison. */
static int digits_of(uint64_t v)
{
#if defined(__GNUC__)
	int n = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;

	return n + (n < 20 && (v | 1) >= pow10_64[n]); /* v | 1: 0 has a digit */
#else
	int n = 1;

	while (n < 20 && v >= pow10_64[n])
		n++;
	return n;
#endif
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Writes the last n (1 to 8) of the eight digits of v < 10^8 at p, and up to 8 - n bytes more
 * after them: the eight digits by pairs, no step waiting on the one before, put together in a
 * register (not stored by pairs and read back as a word, which stalls the read until the four
 * stores are done) and shifted past the leading ones they drop (the first digit is the word's
 * lowest byte).
 */
static inline uint64_t pair_of(uint32_t v)
{
	uint16_t d;

	memcpy(&d, numfmt_pairs + 2 * v, 2);
	return d;
}

static inline void put_digits8(char *p, uint32_t v, int n)
{
	uint32_t hi = v / 10000, lo = v % 10000;
	uint64_t x = pair_of(hi / 100) | pair_of(hi % 100) << 16 | pair_of(lo / 100) << 32 |
	             pair_of(lo % 100) << 48;

	x >>= 8 * (8 - n);
	memcpy(p, &x, 8);
}
#define NUMFMT_DIGITS8 1
#endif

/* Writes the n digits of v (n = digits_of(v), or more with leading zeros) at p; up to 16 it may
 * write as many as 8 bytes past them (every caller's room holds NUMFMT_MAX bytes from p). */
static void put_digits(char *p, uint64_t v, int n)
{
#ifdef NUMFMT_DIGITS8
	if (n <= 8) {
		put_digits8(p, (uint32_t)v, n);
		return;
	}
	if (n <= 16) {
		put_digits8(p, (uint32_t)(v / 100000000), n - 8);
		put_digits8(p + n - 8, (uint32_t)(v % 100000000), 8);
		return;
	}
#endif
	p += n;
	if (v <= UINT32_MAX) { /* 32-bit divisions by 100: a cheaper multiplication each */
		uint32_t u = (uint32_t)v;

		while (n >= 2) {
			p -= 2;
			memcpy(p, numfmt_pairs + 2 * (u % 100), 2);
			u /= 100;
			n -= 2;
		}
		if (n == 1)
			*--p = (char)('0' + u % 10);
		return;
	}
	while (n >= 2) {
		p -= 2;
		memcpy(p, numfmt_pairs + 2 * (v % 100), 2);
		v /= 100;
		n -= 2;
	}
	if (n == 1)
		*--p = (char)('0' + v % 10);
}

size_t numfmt_u64_long(char *buf, uint64_t v)
{
	int n = digits_of(v);

	put_digits(buf, v, n);
	buf[n] = '\0';
	return (size_t)n;
}

/* What printf does with x: the C library's text, for what the integers do not cover. */
static size_t libc_g(char *buf, double x, int digits)
{
	int n = snprintf(buf, NUMFMT_MAX, "%.*g", digits, x);

	return n > 0 ? (size_t)n : 0;
}

/* pp_double_format's own way, for what the integers do not cover. */
static size_t libc_shortest(char *buf, double x)
{
	size_t n = 0;

	for (int digits = 15; digits <= 17; digits++) {
		n = libc_g(buf, x, digits);
		if (strtod(buf, NULL) == x)
			break;
	}
	return n;
}

/*
 * "%g"'s text of the N-digit integer y (10^(N-1) <= y < 10^N) times 10^(X - N + 1), negative
 * when neg: fixed notation for -4 <= X < N, else scientific; trailing zeros dropped, and the
 * point with them.
 */
static size_t put_g(char *buf, bool neg, uint64_t y, int N, int X)
{
	char d[20];
	char *p = buf;
	int len = N;

	put_digits(d, y, N);
	while (len > 1 && d[len - 1] == '0')
		len--;
	if (neg)
		*p++ = '-';
	if (X < -4 || X >= N) {
		int ax = X < 0 ? -X : X;

		*p++ = d[0];
		if (len > 1) {
			*p++ = '.';
			memcpy(p, d + 1, (size_t)len - 1);
			p += len - 1;
		}
		*p++ = 'e';
		*p++ = X < 0 ? '-' : '+';
		if (ax >= 100)
			*p++ = (char)('0' + ax / 100);
		memcpy(p, numfmt_pairs + 2 * (ax % 100), 2);
		p += 2;
	} else if (X >= 0) {
		if (len <= X + 1) { /* an integer: its digits, then zeros */
			memcpy(p, d, (size_t)len);
			memset(p + len, '0', (size_t)(X + 1 - len));
			p += X + 1;
		} else {
			memcpy(p, d, (size_t)X + 1);
			p += X + 1;
			*p++ = '.';
			memcpy(p, d + X + 1, (size_t)(len - X - 1));
			p += len - X - 1;
		}
	} else {
		*p++ = '0';
		*p++ = '.';
		memset(p, '0', (size_t)(-X - 1));
		p += -X - 1;
		memcpy(p, d, (size_t)len);
		p += len;
	}
	*p = '\0';
	return (size_t)(p - buf);
}

#ifdef __SIZEOF_INT128__

__extension__ typedef unsigned __int128 u128;

/* 10^k for 0 <= k <= 38. */
static u128 pow10_128(int k)
{
	return k < 20 ? (u128)pow10_64[k] : (u128)pow10_64[19] * pow10_64[k - 19];
}

/* A positive normal double taken apart: x = m 2^e, 2^52 <= m < 2^53; lowest: the lowest
 * exponent, below which lie the subnormals (so the gap below x is a whole ulp). */
struct parts {
	uint64_t m;
	int e;
	bool lowest;
};

/* x = (a / b) 10^-s exactly, from the parts of x; u is x's ulp in the same units as a (one
 * unit is 10^-s / b). */
struct scaled {
	u128 a, b, u;
	int shift; /* b = 2^shift, or -1 */
};

/* x 10^s as a / b, for the digits at s; false when 128 bits cannot hold it. */
static bool scale(const struct parts *x, int s, struct scaled *out)
{
	if (s >= 0) {
		u128 p;

		if (s > 22) /* m 10^s past 2^126 */
			return false;
		p = pow10_128(s);
		out->a = (u128)x->m * p;
		if (x->e >= 0) { /* x an integer: m 10^s 2^e, whole */
			if (x->e > 60 || (out->a >> (126 - x->e)) != 0)
				return false;
			out->a <<= x->e;
			out->b = 1;
			out->u = p << x->e;
			out->shift = 0;
		} else {
			if (-x->e > 125)
				return false;
			out->b = (u128)1 << -x->e;
			out->u = p;
			out->shift = -x->e;
		}
	} else {
		u128 p;

		if (-s > 37)
			return false;
		p = pow10_128(-s);
		if (x->e >= 0) {
			if (x->e > 72)
				return false;
			out->a = (u128)x->m << x->e;
			out->b = p;
			out->u = (u128)1 << x->e;
			out->shift = -1;
		} else {
			if (-x->e > 125 || (p >> (125 + x->e)) != 0)
				return false;
			out->a = x->m;
			out->b = p << -x->e;
			out->u = 1;
			out->shift = -1;
		}
	}
	return true;
}

/*
 * x (positive, normal) to N significant digits: the integer *y of N digits and the decimal
 * exponent *X of its first, rounded to nearest with ties to even; *exact says whether that
 * text reads back as x (it lies nearer to x than to either neighbouring double, or halfway with
 * x's significand even). Returns false when 128 bits cannot hold the division.
 */
static bool digits_at(const struct parts *x, int N, uint64_t *y, int *X, bool *exact)
{
	/* the exponent of x's first digit, floor(log10 x), within one: log10(2) ~ 78913 / 2^18 */
	int64_t l = (int64_t)(x->e + 52) * 78913;
	int E = (int)(l >= 0 ? l >> 18 : -((-l + (1 << 18) - 1) >> 18));
	int s = N - 1 - E;
	struct scaled v;
	u128 q, r, diff, lhs;
	bool up;

	for (int tries = 0;; tries++) {
		if (tries == 4 || !scale(x, s, &v))
			return false;
		q = v.shift >= 0 ? v.a >> v.shift : v.a / v.b;
		if (q >= pow10_64[N])
			s--;
		else if (q < pow10_64[N - 1])
			s++;
		else
			break;
	}
	r = v.a - q * v.b;
	up = 2 * r > v.b || (2 * r == v.b && (q & 1));
	diff = up ? v.b - r : r;
	q += up;
	*X = N - 1 - s;
	if (q == pow10_64[N]) {
		q /= 10;
		++*X;
	}
	*y = (uint64_t)q;
	/* below x, at a power of two, the gap to the next double down is half as wide */
	lhs = diff * (!up && x->m == UINT64_C(1) << 52 && !x->lowest ? 4 : 2);
	*exact = diff == 0 || lhs < v.u || (lhs == v.u && (x->m & 1) == 0);
	return true;
}

/* Takes x apart; false for 0, a subnormal, an infinity or a NaN. Its sign in *neg. */
static bool parts_of(double x, struct parts *p, bool *neg)
{
	uint64_t bits;
	int be;

	memcpy(&bits, &x, sizeof(bits));
	*neg = bits >> 63;
	be = (int)(bits >> 52 & 0x7ff);
	if (be == 0 || be == 0x7ff)
		return false;
	p->m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
	p->e = be - 1075;
	p->lowest = be == 1;
	return true;
}

size_t numfmt_g(char *buf, double x, int digits)
{
	struct parts p;
	bool neg, exact;
	uint64_t y;
	int X;

	if (x == 0) {
		bool minus = signbit(x);

		buf[0] = '-';
		memcpy(buf + minus, "0", 2);
		return 1 + minus;
	}
	/* a whole number of at most `digits` digits is written whole */
	if (digits >= 1 && digits <= 17 && fabs(x) < (double)pow10_64[digits] &&
	    x == (double)(int64_t)x)
		return numfmt_i64(buf, (int64_t)x);
	if (digits < 1 || digits > 17 || !parts_of(x, &p, &neg) ||
	    !digits_at(&p, digits, &y, &X, &exact))
		return libc_g(buf, x, digits);
	return put_g(buf, neg, y, digits, X);
}

size_t numfmt_shortest(char *buf, double x)
{
	struct parts p;
	bool neg, exact = false;
	uint64_t y = 0;
	int X = 0, N;

	if (x == 0)
		return numfmt_g(buf, x, 15);
	if (!parts_of(x, &p, &neg))
		return libc_shortest(buf, x);
	for (N = 15; N <= 17 && !exact; N++)
		if (!digits_at(&p, N, &y, &X, &exact))
			return libc_shortest(buf, x);
	return put_g(buf, neg, y, N - 1, X);
}

#else /* no 128-bit integers: the C library's */

size_t numfmt_g(char *buf, double x, int digits)
{
	return libc_g(buf, x, digits);
}

size_t numfmt_shortest(char *buf, double x)
{
	return libc_shortest(buf, x);
}

#endif

void numfmt_tick_init(struct numfmt_tick *f, int64_t tick)
{
	const int64_t exact = INT64_C(1) << 53;
	uint64_t g = (uint64_t)pow10_64[6], b = (uint64_t)tick;

	*f = (struct numfmt_tick){.tick = tick};
	if (tick <= 0 || tick > exact)
		return;
	while (b != 0) { /* g = gcd(10^6, tick) */
		uint64_t r = g % b;

		g = b;
		b = r;
	}
	f->fast = 1;
	f->inv = 1.0 / (double)tick;
	f->step = (uint64_t)tick / g;
	f->micros = pow10_64[6] / g;
	f->inv_step = 1.0 / (double)f->step;
}

/*
 * A time whose exact value t / tick is a decimal of at most six places and 15 significant
 * digits: pp_time_to_units gives the double nearest it (t and tick exact in a double), and
 * "%.15g" of that double gives that decimal back, which then reads back as the double (a double
 * holds 15 significant digits, DBL_DIG): the decimal is the text. r / tick is such a decimal
 * when r x 10^6 / tick is whole, that is when tick / gcd(10^6, tick) (step) divides r.
 */
/* Whether step divides r (r < tick), the quotient in *q: a guess through the double 1 / step,
 * within two of it, set right, where a 64-bit division takes tens of cycles. */
static inline bool whole_steps(uint64_t r, const struct numfmt_tick *f, uint64_t *q)
{
	uint64_t x = (uint64_t)((double)r * f->inv_step);

	while (x > 0 && x * f->step > r)
		x--;
	while (r - x * f->step >= f->step)
		x++;
	*q = x;
	return r == x * f->step;
}

size_t numfmt_ticks_at(char *buf, pp_time t, const struct numfmt_tick *f)
{
	const int64_t exact = INT64_C(1) << 53;

	if (t >= 0 && t <= exact && f->fast) {
		uint64_t tick = (uint64_t)f->tick, q = (uint64_t)((double)t * f->inv), r, frac;
		int places = 6, n;

		/* the guess is within two of t / tick (t below 2^53, 1 / tick and the product each
		 * rounded once) */
		while (q * tick > (uint64_t)t)
			q--;
		while ((uint64_t)t - q * tick >= tick)
			q++;
		r = (uint64_t)t - q * tick;
		if (r == 0) {
			if (q < pow10_64[15])
				return numfmt_u64(buf, q);
		} else if (f->step == 1 || whole_steps(r, f, &frac)) {
			uint32_t z = (uint32_t)((f->step == 1 ? r : frac) * f->micros); /* to 999999 */

			/* its trailing zeros, five at most: three, two, one at a time */
			if (z % 1000 == 0) {
				z /= 1000;
				places -= 3;
			}
			if (z % 100 == 0) {
				z /= 100;
				places -= 2;
			}
			if (z % 10 == 0) {
				z /= 10;
				places--;
			}
			frac = z;
			/* at most 15 significant digits, and at least 1e-4 (else "%g" writes an
			 * exponent) */
			if (q > 0 ? q < pow10_64[15 - places]
			          : frac * pow10_64[4] >= pow10_64[places]) {
				n = digits_of(q);
				put_digits(buf, q, n);
				buf[n] = '.';
				put_digits(buf + n + 1, frac, places);
				buf[n + 1 + places] = '\0';
				return (size_t)(n + 1 + places);
			}
		}
	}
	return numfmt_shortest(buf, pp_time_to_units(t, f->tick));
}

size_t numfmt_ticks(char *buf, pp_time t, int64_t tick)
{
	struct numfmt_tick f;

	numfmt_tick_init(&f, tick);
	return numfmt_ticks_at(buf, t, &f);
}
