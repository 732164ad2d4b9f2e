/*
 * The quanta of an HTML page's run (html_quanta.h): one pass over its ops' times, messages,
 * copies, kinds and slacks each, a block of numbers at a time, in three parts on two threads.
 */
#include "html_quanta.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "ppsim/util.h"

struct quantum quantum_of(int64_t q)
{
	struct quantum d = {q, 0, 0, 0};
	uint64_t odd;

	while ((d.q >> d.shift & 1) == 0)
		d.shift++;
	odd = (uint64_t)d.q >> d.shift;
	d.inv = odd; /* right to 3 bits for odd; each step doubles them */
	for (int k = 0; k < 5; k++)
		d.inv *= 2 - odd * d.inv;
	d.most = UINT64_MAX / odd;
	return d;
}

/* The greatest common divisor of g's quantum and x, as g (a division only when it changes);
 * g's q is 0 until a number other than 0 comes. */
static void gcd_with(struct quantum *g, int64_t x)
{
	uint64_t u;

	if (x != 0 && (g->q == 0 || !quantum_divides(g, x, &u)))
		*g = quantum_of(pp_gcd64(g->q, x));
}

/* Bits other than 0 when q does not divide x: quantum_divides without a branch, so that a pass
 * over many numbers runs at the speed of memory. */
static inline uint64_t quantum_misses(const struct quantum *d, int64_t x)
{
	uint64_t m = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;

	return (m & (((uint64_t)1 << d->shift) - 1)) |
	       (uint64_t)((m >> d->shift) * d->inv > d->most);
}

/* Bits other than 0 when q does not divide the start or end of one of the n ops' times at t,
 * or of the n messages at g: quantum_misses over them, the quantum in registers. */
static uint64_t times_misses(struct quantum q, const struct op_time *t, size_t n)
{
	uint64_t bad = 0;

	for (size_t k = 0; k < n; k++)
		bad |= quantum_misses(&q, t[k].start) | quantum_misses(&q, t[k].end);
	return bad;
}

static uint64_t msgs_misses(struct quantum q, const struct msg_record *g, size_t n)
{
	uint64_t bad = 0;

	for (size_t k = 0; k < n; k++)
		bad |= quantum_misses(&q, g[k].start) | quantum_misses(&q, g[k].end);
	return bad;
}

static uint64_t numbers_misses(struct quantum q, const int64_t *x, size_t n)
{
	uint64_t bad = 0;

	for (size_t k = 0; k < n; k++)
		bad |= quantum_misses(&q, x[k]);
	return bad;
}

/* g with the greatest common divisor of the start and end of the n ops' times at t, of the n
 * messages at msg, or of the n numbers at x (two of them NULL): blocks that g already divides
 * are checked in one go, the others number by number. */
#define QUANTA_BLOCK 512
static void gcd_with_spans(struct quantum *g, const struct op_time *t,
                           const struct msg_record *msg, const int64_t *x, size_t n)
{
	for (size_t a = 0; a < n; a += QUANTA_BLOCK) {
		size_t b = n - a < QUANTA_BLOCK ? n - a : QUANTA_BLOCK;

		if (g->q != 0 && (t != NULL     ? times_misses(*g, t + a, b)
		                  : msg != NULL ? msgs_misses(*g, msg + a, b)
		                                : numbers_misses(*g, x + a, b)) == 0)
			continue;
		for (size_t k = a; k < a + b; k++) {
			if (x != NULL) {
				gcd_with(g, x[k]);
				continue;
			}
			gcd_with(g, t != NULL ? t[k].start : msg[k].start);
			gcd_with(g, t != NULL ? t[k].end : msg[k].end);
		}
	}
}

/*
 * The quanta of a run's data: the greatest common divisor of every time the page is sent (gaps,
 * durations, message delays after their producer and transfer times), and of every activation
 * change, so that the page gets small integers (1 for most runs of abstract units).
 *
 * A device's gaps and durations are the differences of the sequence 0, its first op's start,
 * then each op's end or start and the latest end before it: they have the greatest common
 * divisor of the times themselves (what divides the differences divides their sums, the
 * times, and what divides the times divides their differences). So do a message's delay and
 * transfer time with its producer's end, its start and its end. The quanta are then those of
 * every op's start and end, every message's start and end and every inner time, read in
 * order; an op's activation change is its stage's and kind's, taken once for each that occurs.
 */
/* A run's quanta in three parts of about the same reading (its ops' times; its messages; its
 * ops' kinds and slacks), each taken by the first thread free (pp_threads). */
struct quanta_work {
	const struct drawing *s;
	atomic_uint next; /* the next part to take */
	struct quantum times, msgs, act, slack;
	bool nomem;
};

/* The quantum of w's op times and inner times. */
static void times_part(struct quanta_work *w)
{
	const struct result *r = w->s->result;
	size_t n = w->s->sched->nops;

	gcd_with_spans(&w->times, r->times, NULL, NULL, n);
	for (size_t i = 0; r->inner != NULL && i < n; i++)
		gcd_with(&w->times, r->inner[i]);
}

/* The quantum of w's messages and copies, and the copies' share of its activation changes'. */
static void msgs_part(struct quanta_work *w)
{
	const struct result *r = w->s->result;

	gcd_with_spans(&w->msgs, NULL, r->msgs, NULL, r->nmsgs);
	/* activation offload's copies (only they carry an amount) */
	for (size_t k = 0; k < r->npieces; k++)
		if (r->pieces[k].amount != 0) {
			gcd_with(&w->msgs, r->pieces[k].start);
			gcd_with(&w->msgs, r->pieces[k].end - r->pieces[k].start);
		}
}

/* The quantum of w's activation changes (each stage and kind's, once for each that occurs, and
 * the copies'), and of its slacks (s->slack, when it has them): their greatest common divisor,
 * which the page's "slackTick" gives a time unit of. */
static void ops_part(struct quanta_work *w)
{
	const struct drawing *s = w->s;
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	size_t kinds = 4 * (size_t)sc->S;
	unsigned char *seen = pp_calloc(kinds, 1);

	if (seen == NULL) {
		w->nomem = true;
		return;
	}
	for (size_t i = 0; i < sc->nops; i++)
		seen[(size_t)sc->ops[i].kind * (size_t)sc->S + sc->ops[i].stage] = 1;
	for (size_t k = 0; k < kinds; k++)
		if (seen[k]) {
			struct op op = {.stage = (unsigned)(k % (size_t)sc->S),
			                .kind = (unsigned)(k / (size_t)sc->S)};

			gcd_with(&w->act, drawing_act_change(s, &op));
		}
	free(seen);
	for (size_t k = 0; k < r->npieces; k++)
		if (r->pieces[k].amount != 0)
			gcd_with(&w->act, r->pieces[k].amount);
	if (s->slack != NULL)
		gcd_with_spans(&w->slack, NULL, NULL, s->slack, sc->nops);
}

static void *quanta_parts(void *arg)
{
	static void (*const part[])(struct quanta_work *) = {times_part, msgs_part, ops_part};
	struct quanta_work *w = *(struct quanta_work **)arg;

	for (unsigned k; (k = atomic_fetch_add(&w->next, 1)) < sizeof(part) / sizeof(part[0]);)
		part[k](w);
	return NULL;
}

/* How many ops a run has before its quanta take two threads (passes of a few milliseconds). */
#define QUANTA_THREADED ((size_t)1 << 16)

int html_quanta_of(const struct drawing *s, struct html_quanta *hq)
{
	struct quanta_work w = {.s = s};
	struct quanta_work *each[2] = {&w, &w};

	atomic_init(&w.next, 0);
	pp_threads(s->sched->nops >= QUANTA_THREADED ? 2 : 1, quanta_parts, each, sizeof(each[0]));
	if (w.nomem)
		return -1;
	/* the times' and the messages' together; a run with no slack anywhere takes quanta of a
	 * tick */
	if (w.times.q != 0)
		gcd_with(&w.msgs, w.times.q);
	hq->q = w.msgs.q > 0 ? w.msgs : quantum_of(1);
	hq->aq = w.act.q > 0 ? w.act : quantum_of(1);
	hq->slack = w.slack.q > 0 ? w.slack : quantum_of(1);
	return 0;
}

