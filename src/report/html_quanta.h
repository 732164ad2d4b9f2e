/*
 * The quanta of an HTML page's run (html.c): the greatest common divisors its numbers are sent
 * in, so that the page holds small integers, and the division by them. Private to html.c and
 * html_quanta.c.
 */
#ifndef PPSIM_HTML_QUANTA_H
#define PPSIM_HTML_QUANTA_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "ppsim/sim.h"

/*
 * Division by a quantum of numbers it divides, as a multiplication: q = odd 2^shift, and x / q
 * is (x / 2^shift) times the inverse of odd modulo 2^64 when q divides x (Granlund and
 * Montgomery), which also tells whether it does. A page divides a few numbers an op by the
 * quanta, and a 64-bit division takes tens of cycles.
 */
struct quantum {
	int64_t q;
	int shift;
	uint64_t inv, most; /* odd's inverse; the largest multiple of it divided, UINT64_MAX / odd */
};

/* The quantum q (q > 0), its inverse ready. */
struct quantum quantum_of(int64_t q);

/* Whether q divides x; if so |x| / q in *quotient. */
static inline bool quantum_divides(const struct quantum *d, int64_t x, uint64_t *quotient)
{
	uint64_t m = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;

	if ((m & (((uint64_t)1 << d->shift) - 1)) != 0)
		return false;
	*quotient = (m >> d->shift) * d->inv;
	return *quotient <= d->most;
}

/* x / q for x that q divides. */
static inline int64_t quantum_div(const struct quantum *d, int64_t x)
{
	uint64_t u = 0;
	bool divides = quantum_divides(d, x, &u);

	assert(divides);
	(void)divides;
	return x < 0 ? -(int64_t)u : (int64_t)u;
}

/* The quanta of a run's page: its times', its activation changes' and its slacks'. */
struct html_quanta {
	struct quantum q, aq, slack;
};

/* hq of s, taken once for its data and its pieces: on two threads when the run is large.
 * Returns 0, or -1 when out of memory. */
int html_quanta_of(const struct drawing *s, struct html_quanta *hq);

#endif
