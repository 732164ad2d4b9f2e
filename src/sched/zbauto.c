/*
 * The zero-bubble paper's automatic scheduler (Qi et al., ICLR 2024, section 3), as the
 * authors' code implements it (sail-sg/zero-bubble-pipeline-parallelism, zb.py manual_order and
 * initial_solution): a greedy pass over micro-batch rounds that knows each stage's F, B and W
 * times, the message time between stages and a limit on alive activations.
 *
 * Round 0 sends micro-batch 0 forward through every stage, adds on each stage the extra
 * warm-up forwards that fit in memory before its first B can arrive, then runs B of
 * micro-batch 0 backward. Each later round gives every stage one more F (a stage ahead of the
 * next by two forwards may skip it when that costs no new maximum bubble), then one more B, in
 * reverse stage order. Before an F or a B whose input is still on its way, W's fill the gap:
 * every W that fits, and one more when the remaining gap would make this stage's idle time the
 * largest. W's also run whenever an F would pass the memory limit. Remaining W's end each stage.
 * Three yes/no choices (a bubble before the first B, giving B priority, overrunning small
 * gaps) are tried in all eight combinations; the one with the smallest estimated makespan wins
 * (the authors score the longest stage span instead; ties keep the earlier combination).
 *
 * The limit is in micro-batches of activations: an F adds its stage's activations, its B frees
 * all but the part W needs, its W that part. zb1p is this with limit p, zb2p with 2p. Times are
 * the engine's ticks and amounts integers, so every comparison is exact and the order does not
 * depend on the time unit (the authors compare floating-point sums, which can reject a W that
 * fits a gap exactly).
 *
 * How the eight passes are run, none of which changes the order the authors' code gives:
 *   - a choice matters to a pass only where it is consulted: bubble-first in round 0's
 *     warm-up count, overrun where a W would overrun a gap, B-priority where it makes a stage
 *     skip its F. A pass notes the choices that changed one of its decisions; every later pass
 *     that differs from it in none of them takes the same decisions, ties with it and loses,
 *     so it is not run (at unit costs and free messages one pass stands for all eight);
 *   - a stage's end can be no earlier than the start of its first F plus all its work plus
 *     the idle time it has had, so a pass whose bound passes a finished pass's makespan stops;
 *   - the passes run on pr->jobs threads (struct sched_variants), a thread starting one only
 *     once it is known to differ from every earlier one, with arrays each thread reuses from
 *     pass to pass; the best pass is the same whichever thread ran it;
 *   - a pass keeps each stage's op kinds alone (a byte an op; an op's micro-batch is the count
 *     of its kind before it), the finish of each F (the next stage reads it, however far behind)
 *     and of each stage's last B (round i runs B(i) on every stage, last stage first).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generators.h"

/* The choices of a pass, as bits of its flags; the authors try flags 7 down to 0. */
enum { ZB_OVERRUN = 1, ZB_PRIORITIZE_B = 2, ZB_BUBBLE_FIRST = 4, ZB_PASSES = 8 };

/* What stage j's ops cost and may hold, the same in every pass. */
struct zprice {
	pp_time t_f, t_b, t_w;
	pp_time comm_in;  /* a message from stage j-1 (0 on stage 0) */
	pp_time comm_out; /* a message to stage j+1 (0 on the last) */
	int64_t act;      /* activations an F allocates */
	int64_t act_w;    /* the part W frees */
	int64_t limit;    /* activations the stage may hold */
	pp_time work;     /* m (t_f + t_b + t_w): the stage's busy time in any pass */
};

/* One stage in a pass. */
struct zstage {
	int f, b, w;    /* next micro-batch of each kind */
	int n;          /* ops put */
	int want;       /* whether it runs an F this round */
	int64_t mem;    /* activations alive */
	pp_time end;    /* finish of its last op */
	pp_time bubble; /* idle time since its first F started */
	pp_time last_b; /* finish of its last B */
	pp_time floor;  /* start of its first F plus its work: its end at no idle time */
};

/* What the threads share: the prices, and the passes as variants (their makespans the
 * scores, their kinds [p * 3m]). */
struct zshared {
	const struct zprice *pr; /* [p] */
	int p, m;
	struct sched_variants var;
};

/* One thread's pass and the arrays it reuses, on cache lines of its own. */
struct zpass {
	_Alignas(SCHED_LINE) struct zshared *sh;
	const struct zprice *pr;
	int p, m, k; /* k: the pass's place in the authors' order (flags 7 - k) */
	bool bubble_first, prioritize_b, overrun;
	struct zstage *st;  /* [p] */
	int *extra;         /* [p] round 0's warm-up forwards beyond the first */
	int *extra_other;   /* [p] the same with the other bubble-first choice */
	pp_time *tf;        /* [m * p] finish of F(mb) on stage j at mb * p + j */
	uint8_t *kinds;     /* [p * 3m] each stage's op kinds in order, 3m a stage */
	pp_time max_bubble; /* the largest bubble of a stage */
	pp_time bound;      /* the largest floor + bubble of a stage */
	unsigned consulted; /* choices that changed a decision (ZB_ bits) */
	unsigned told;      /* those told to the other threads */
	bool failed;        /* an F cannot fit the limit */
	bool stopped;       /* left unfinished: the same as an earlier pass, or beaten */
};

static inline void note_bubble(struct zpass *z, struct zstage *s, pp_time gap)
{
	if (gap > 0) {
		s->bubble += gap;
		if (s->bubble > z->max_bubble)
			z->max_bubble = s->bubble;
		if (s->floor + s->bubble > z->bound)
			z->bound = s->floor + s->bubble;
	}
}

/* Appends stage j's next F at the earliest time its input and stage allow. */
static inline void put_f(struct zpass *z, int j)
{
	struct zstage *s = &z->st[j];
	const struct zprice *c = &z->pr[j];
	int mb = s->f;
	pp_time ready = s->end;

	if (j > 0 && z->tf[(size_t)mb * (size_t)z->p + (size_t)j - 1] + c->comm_in > ready)
		ready = z->tf[(size_t)mb * (size_t)z->p + (size_t)j - 1] + c->comm_in;
	if (mb > 0)
		note_bubble(z, s, ready - s->end);
	else
		s->floor = ready + c->work;
	s->end = ready + c->t_f;
	z->tf[(size_t)mb * (size_t)z->p + (size_t)j] = s->end;
	s->mem += c->act;
	s->f = mb + 1;
	z->kinds[(size_t)j * 3 * (size_t)z->m + (size_t)s->n++] = OP_F;
}

/* Appends stage j's next B; stage j+1 has just run its B of the same micro-batch. */
static inline void put_b(struct zpass *z, int j)
{
	struct zstage *s = &z->st[j];
	const struct zprice *c = &z->pr[j];
	pp_time ready = s->end;

	if (j + 1 < z->p) {
		assert(z->st[j + 1].b == s->b + 1);
		if (z->st[j + 1].last_b + c->comm_out > ready)
			ready = z->st[j + 1].last_b + c->comm_out;
	}
	note_bubble(z, s, ready - s->end);
	s->end = s->last_b = ready + c->t_b;
	s->mem -= c->act - c->act_w;
	s->b++;
	z->kinds[(size_t)j * 3 * (size_t)z->m + (size_t)s->n++] = OP_B;
}

/* Appends stage j's next W, which waits for nothing but its stage. */
static inline void put_w(struct zpass *z, int j)
{
	struct zstage *s = &z->st[j];

	s->end += z->pr[j].t_w;
	s->mem -= z->pr[j].act_w;
	s->w++;
	z->kinds[(size_t)j * 3 * (size_t)z->m + (size_t)s->n++] = OP_W;
}

/* W's into the gap before an input that arrives at dep. */
static void fill_with_w(struct zpass *z, int j, pp_time dep)
{
	struct zstage *s = &z->st[j];

	while (s->w < s->b && s->end + z->pr[j].t_w <= dep)
		put_w(z, j);
	if (s->w < s->b && s->end < dep) {
		if (dep - s->end <= z->max_bubble - s->bubble) {
			z->consulted |= ZB_OVERRUN;
			if (z->overrun)
				put_w(z, j);
		} else {
			put_w(z, j);
		}
	}
}

/* Runs W's until need more activations fit; marks the pass failed when none is left. */
static void make_room(struct zpass *z, int j, int64_t need)
{
	struct zstage *s = &z->st[j];

	while (s->mem + need > z->pr[j].limit) {
		if (s->w == s->b) {
			z->failed = true;
			return;
		}
		put_w(z, j);
	}
}

/* Round 0's warm-up forwards beyond the first on each stage into extra[], with or without the
 * bubble before the first B; the first F of every stage has run. */
static void warm_up_count(const struct zpass *z, bool bubble_first, int *extra)
{
	int p = z->p;
	pp_time last = z->tf[(size_t)p - 1] + z->pr[p - 1].t_b;

	memset(extra, 0, (size_t)p * sizeof(*extra));
	for (int j = p - 2; j >= 0; j--) {
		const struct zprice *c = &z->pr[j];
		int64_t mm = z->st[j].mem;
		pp_time t = z->st[j].end;

		while (z->st[j].f + extra[j] < z->m && mm + c->act <= c->limit) {
			if (bubble_first ? t + c->t_f > last + c->comm_out
			                 : t >= last + c->comm_out)
				break;
			mm += c->act;
			t += c->t_f;
			extra[j]++;
		}
		last = (t > last + c->comm_out ? t : last + c->comm_out) + c->t_b;
	}
	/* fewer warm-up forwards than the stage before, unless both run all of theirs (the
	 * authors stop at m on this stage alone, which lets it run forwards its predecessor has
	 * not produced: their own check then fails, and the pass would deadlock) */
	for (int j = 1; j < p; j++)
		while (extra[j] > 0 && extra[j] >= extra[j - 1] &&
		       (z->st[j].f + extra[j] < z->m || z->st[j - 1].f + extra[j - 1] < z->m))
			extra[j]--;
}

static void round_zero(struct zpass *z)
{
	int p = z->p;

	for (int j = 0; j < p; j++)
		put_f(z, j);
	warm_up_count(z, z->bubble_first, z->extra);
	warm_up_count(z, !z->bubble_first, z->extra_other);
	if (memcmp(z->extra, z->extra_other, (size_t)p * sizeof(*z->extra)) != 0)
		z->consulted |= ZB_BUBBLE_FIRST;
	for (int j = 0; j < p; j++)
		for (int k = 0; k < z->extra[j]; k++)
			put_f(z, j);
	for (int j = p - 1; j >= 0; j--)
		put_b(z, j);
}

/* Whether stage j should run its next F this round. */
static int wants_f(struct zpass *z, int j)
{
	const struct zstage *s = &z->st[j];
	const struct zprice *c = &z->pr[j];
	pp_time next_ready, wcost = 0;
	int64_t mem_with_f;

	if (s->f >= z->m)
		return 0;
	if (!z->prioritize_b || j + 1 >= z->p || s->f < z->st[j + 1].f + 2)
		return 1;
	next_ready = z->st[j + 1].end + z->pr[j + 1].t_f + z->pr[j + 1].t_b + c->comm_out;
	if (s->end >= next_ready) {
		z->consulted |= ZB_PRIORITIZE_B;
		return 0;
	}
	/* the W's needed to make room for one more F */
	mem_with_f = s->mem + c->act;
	for (int pending = s->b - s->w; mem_with_f > c->limit && pending > 0; pending--) {
		wcost += c->t_w;
		mem_with_f -= c->act_w;
	}
	if (s->end + c->t_f + wcost <= next_ready)
		return 1;
	if (next_ready - s->end <= z->max_bubble - s->bubble) {
		z->consulted |= ZB_PRIORITIZE_B;
		return 0;
	}
	return 1;
}

/* Whether the pass need not go on: it takes an earlier pass's decisions, or its bound passes
 * the makespan of a finished pass. Tells the choices it has consulted since it last did. */
static bool pass_stops(struct zpass *z)
{
	struct sched_variants *v = &z->sh->var;

	if (z->consulted != z->told) {
		z->told = z->consulted;
		sched_variant_note(v, z->k, z->told);
	}
	return sched_variant_same(v, z->k) ||
	       z->bound > atomic_load_explicit(&v->bound, memory_order_relaxed);
}

static void run_pass(struct zpass *z)
{
	int p = z->p;
	struct zstage *st = z->st;

	round_zero(z);
	for (int i = 1; i < z->m; i++) {
		if (pass_stops(z)) {
			z->stopped = true;
			return;
		}
		for (int j = 0; j < p; j++)
			st[j].want = wants_f(z, j);
		for (int j = p - 2; j >= 0; j--)
			if (st[j + 1].want < st[j].want)
				st[j].want = st[j + 1].want;
		for (int j = 0; j < p; j++) {
			if (!st[j].want)
				continue;
			make_room(z, j, z->pr[j].act);
			if (z->failed)
				return;
			if (j > 0)
				fill_with_w(z, j,
				            z->tf[(size_t)st[j].f * (size_t)p + (size_t)j - 1] +
				                    z->pr[j].comm_in);
			put_f(z, j);
		}
		for (int j = p - 1; j >= 0; j--) {
			make_room(z, j, -(z->pr[j].act - z->pr[j].act_w));
			if (z->failed)
				return;
			if (j + 1 < p)
				fill_with_w(z, j, st[j + 1].last_b + z->pr[j].comm_out);
			if (j == 0 && st[0].f == z->m)
				while (st[0].w < st[0].b)
					put_w(z, 0);
			put_b(z, j);
		}
	}
	for (int j = 0; j < p; j++)
		while (st[j].w < st[j].b)
			put_w(z, j);
}

/* Readies z for the pass at place k of the authors' order. */
static void pass_start(struct zpass *z, int k)
{
	int flags = ZB_PASSES - 1 - k;

	memset(z->st, 0, (size_t)z->p * sizeof(*z->st));
	z->k = k;
	z->bubble_first = flags & ZB_BUBBLE_FIRST;
	z->prioritize_b = flags & ZB_PRIORITIZE_B;
	z->overrun = flags & ZB_OVERRUN;
	z->max_bubble = z->bound = 0;
	/* without B priority, where it would have changed a decision is not looked for */
	z->consulted = z->prioritize_b ? 0 : ZB_PRIORITIZE_B;
	z->told = 0;
	z->failed = z->stopped = false;
}

/* Ends the pass: its makespan is its score when it finished within the limit. */
static void pass_end(struct zpass *z)
{
	pp_time makespan = 0;
	bool scored = !z->failed && !z->stopped;

	for (int j = 0; scored && j < z->p; j++) {
		assert(z->st[j].n == 3 * z->m);
		if (z->st[j].end > makespan)
			makespan = z->st[j].end;
	}
	sched_variant_end(&z->sh->var, z->k, z->consulted, scored, makespan, &z->kinds);
}

/* A thread's work: the passes left, one after the other. */
static void *run_passes(void *arg)
{
	struct zpass *z = arg;
	int k;

	while ((k = sched_variant_next(&z->sh->var)) >= 0) {
		pass_start(z, k);
		run_pass(z);
		pass_end(z);
	}
	return NULL;
}

/* The ops of a run below which one thread does all the passes (starting one costs about as
 * much as a pass over a few thousand ops). */
#define ZB_THREAD_OPS 32768

/* The arrays of a thread's pass over p stages and m micro-batches, for sched_arrays_new and
 * _free (the large ones apart). */
enum { ZARRAYS = 3 };
static void zpass_arrays(struct zpass *z, size_t p, struct sched_array *a)
{
	const struct sched_array all[ZARRAYS] = {
	        {(void **)&z->st, p, sizeof(*z->st), false},
	        {(void **)&z->extra, p, sizeof(*z->extra), false},
	        {(void **)&z->extra_other, p, sizeof(*z->extra_other), false},
	};

	memcpy(a, all, sizeof(all));
}

/* A thread's pass and its arrays; returns 0, or -1 with a PP_ERR_NOMEM error. */
static int zpass_init(struct zpass *z, struct zshared *sh, struct pp_error *err)
{
	struct sched_array a[ZARRAYS];
	size_t p = (size_t)sh->p, m = (size_t)sh->m;

	memset(z, 0, sizeof(*z));
	z->sh = sh;
	z->pr = sh->pr;
	z->p = sh->p;
	z->m = sh->m;
	zpass_arrays(z, p, a);
	if (sched_arrays_new(a, ZARRAYS, err) != 0)
		return -1;
	z->tf = pp_mallocarray_large(m * p, sizeof(*z->tf));
	z->kinds = pp_mallocarray_large(3 * m * p, sizeof(*z->kinds));
	if (z->tf == NULL || z->kinds == NULL) {
		sched_arrays_free(a, ZARRAYS);
		free(z->tf);
		free(z->kinds);
		return pp_nomem(err, 3 * m * p, sizeof(*z->kinds) + sizeof(*z->tf));
	}
	return 0;
}

static void zpass_release(struct zpass *z)
{
	struct sched_array a[ZARRAYS];

	zpass_arrays(z, 0, a);
	sched_arrays_free(a, ZARRAYS);
	free(z->tf);
	free(z->kinds);
}

/* The activations stage j may hold under pr's limit, in pr's amounts: mem_limit times one
 * micro-batch's activations, rounded to the nearest amount. */
static int64_t stage_limit(const struct sched *s, const struct sched_prices *pr, int j)
{
	return (int64_t)llround(pr->mem_limit * (double)pr->act[sched_stage_of(s, j, 0)]);
}

/* Stage prices of pr for s into a new array; NULL with a PP_ERR_NOMEM error. */
static struct zprice *zprices_new(const struct sched *s, const struct sched_prices *pr,
                                  struct pp_error *err)
{
	struct zprice *c = pp_zalloc((size_t)s->p, sizeof(*c), err);

	for (int j = 0; c != NULL && j < s->p; j++)
		c[j] = (struct zprice){
		        .t_f = pr->t_f[j],
		        .t_b = pr->t_b[j],
		        .t_w = pr->t_w[j],
		        .comm_in = j > 0 ? pr->t_comm[j - 1] : 0,
		        .comm_out = j + 1 < s->p ? pr->t_comm[j] : 0,
		        .act = pr->act[j],
		        .act_w = pr->act_w[j],
		        .limit = stage_limit(s, pr, j),
		        .work = (pp_time)s->m * (pr->t_f[j] + pr->t_b[j] + pr->t_w[j]),
		};
	return c;
}

int sched_zb_auto_generate(struct sched *s, const struct sched_prices *pr, struct pp_error *err)
{
	struct zshared sh = {.p = s->p, .m = s->m};
	struct zpass *z = NULL;
	size_t kinds = 3 * (size_t)s->m * (size_t)s->p;
	int jobs = pr->jobs < 1 || kinds < ZB_THREAD_OPS ? 1
	           : pr->jobs > ZB_PASSES                ? ZB_PASSES
	                                                 : pr->jobs,
	    ready = 0, rc = -1;

	if ((sh.pr = zprices_new(s, pr, err)) == NULL)
		return -1;
	if (sched_variants_init(&sh.var, ZB_PASSES, kinds, err) != 0) {
		free((void *)sh.pr);
		return -1;
	}
	if (sched_arrays_new(&(struct sched_array){(void **)&z, (size_t)jobs, sizeof(*z), true}, 1,
	                     err) != 0)
		goto out;
	/* a thread whose arrays do not fit is left out; the first is needed */
	while (ready < jobs && zpass_init(&z[ready], &sh, err) == 0)
		ready++;
	if (ready == 0)
		goto out;
	*err = (struct pp_error){0};
	pp_threads(ready, run_passes, z, sizeof(*z));
	rc = 0;
	s->mem_limit = pr->mem_limit;
	if (sh.var.best_k < 0) {
		/* no combination fit the limit: ZB-H1's order, which needs p (and allocates
		 * nothing) */
		rc = sched_zbh1_generate(s);
		goto out;
	}
	for (int j = 0; j < s->p; j++) {
		const uint8_t *k = &sh.var.best[(size_t)j * 3 * (size_t)s->m];
		int next[3] = {0, 0, 0};

		for (int n = 0; n < 3 * s->m; n++)
			sched_push(s, j, (enum op_kind)k[n], next[k[n]]++, j);
	}
out:
	for (int t = 0; t < ready; t++)
		zpass_release(&z[t]);
	free(z);
	sched_variants_release(&sh.var);
	free((void *)sh.pr);
	return rc;
}
