/*
 * Random numbers without state: a 64-bit value is a pure function of its key (a seed and a few
 * counters), so a draw never depends on threads, shards or the order of evaluation (CONTRIBUTING.md,
 * rule 6). The mixer is splitmix64's (Steele, Lea and Flood, 2014), which also seeds stateful
 * generators; uniform and normal draws are made from one 64-bit value.
 */
#ifndef PPSIM_BASE_RANDOM_H
#define PPSIM_BASE_RANDOM_H

#include <math.h>
#include <stdint.h>

/* splitmix64's finalizer: a bijection of 64-bit values with full avalanche. */
static inline uint64_t pp_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The next output of splitmix64 from state *x. */
static inline uint64_t pp_splitmix64(uint64_t *x)
{
	return pp_mix64(*x += UINT64_C(0x9e3779b97f4a7c15));
}

/* The value of key (seed, a, b, c): each counter mixed in turn, so that neighbouring keys give
 * unrelated values. */
static inline uint64_t pp_random_at(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t z = pp_mix64(seed + UINT64_C(0x9e3779b97f4a7c15));

	z = pp_mix64(z ^ (a * UINT64_C(0xd1b54a32d192ed03)));
	z = pp_mix64(z ^ (b * UINT64_C(0x8cb92ba72f3d8dd7)));
	return pp_mix64(z ^ (c * UINT64_C(0xdb4f0b9175ae2165)) ^ UINT64_C(0x5851f42d4c957f2d));
}

/* A uniform double in (0, 1) from x: its top 53 bits, offset by half a step. From 2^52 on
 * the half step rounds away (a double holds no k + 0.5 there), and at the top, 2^53 - 1, up to
 * 2^53: that one is kept below 1 (at 1 a normal quantile is infinite and an empirical draw
 * reads past its values). */
static inline double pp_uniform_of(uint64_t x)
{
	double u = ((double)(x >> 11) + 0.5) * (1.0 / 9007199254740992.0);

	return u < 1 ? u : 1 - 1.0 / 9007199254740992.0;
}

/*
 * The standard normal quantile of u in (0, 1): Acklam's rational approximation (relative
 * error below 1.2e-9), central region without a logarithm.
 */
static inline double pp_normal_quantile(double u)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
	                           -2.759285104469687e+02, 1.383577518672690e+02,
	                           -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
	                           -1.556989798598866e+02, 6.680131188771972e+01,
	                           -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
	                           -2.400758277161838e+00, -2.549732539343734e+00,
	                           4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
	                           2.445134137142996e+00, 3.754408661907416e+00};
	double q, r;

	if (u < 0.02425 || u > 1 - 0.02425) {
		q = sqrt(-2 * log(u < 0.5 ? u : 1 - u));
		r = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
		return u < 0.5 ? r : -r;
	}
	q = u - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

#endif
