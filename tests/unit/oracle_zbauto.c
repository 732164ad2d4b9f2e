/*
 * The oracle of the zb-auto property tests: the generator as it was before it ran its passes on
 * threads with shared arrays (src/sched/zbauto.c at ac9ac5c), kept verbatim but for
 * its name and this comment, so that the tests can check that the library's generator gives
 * the same op list, op for op. Its description is the library file's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/generators.h"
#include "unit.h"

/* One stage's op in the order the pass put it there. */
struct zop {
	uint8_t kind;
	int mb;
};

/* The pass's state for one combination of choices. */
struct zstate {
	const struct sched_prices *pr;
	int p, m;
	bool bubble_first, prioritize_b, overrun;
	int *f, *b, *w;                /* [p] next micro-batch of each kind */
	int64_t *mem, *limit;          /* [p] activations alive, and allowed */
	pp_time *end, *bubble, *start; /* [p] */
	pp_time *tf, *tb;              /* [p * m] finish times of F and B */
	struct zop *ops;               /* [p * 3m] per stage, in order */
	int *nops;                     /* [p] */
	int *extra, *want;             /* [p] round 0's warm-up forwards, a round's F's */
	bool failed;
};

static pp_time cost_of(const struct zstate *z, int j, enum op_kind k)
{
	return k == OP_F ? z->pr->t_f[j] : k == OP_B ? z->pr->t_b[j] : z->pr->t_w[j];
}

/* What an op of kind k on stage j adds to its stage's alive activations (< 0: frees). */
static int64_t mem_of(const struct zstate *z, int j, enum op_kind k)
{
	const int64_t a = z->pr->act[j], aw = z->pr->act_w[j];

	return k == OP_F ? a : k == OP_B ? -(a - aw) : -aw;
}

static pp_time comm(const struct zstate *z, int boundary)
{
	return z->pr->t_comm[boundary];
}

static pp_time max_bubble(const struct zstate *z)
{
	pp_time x = 0;

	for (int j = 0; j < z->p; j++)
		if (z->bubble[j] > x)
			x = z->bubble[j];
	return x;
}

/* Appends the next op of kind on stage j at the earliest time its input and stage allow. */
static void put(struct zstate *z, int j, enum op_kind k)
{
	int *ctr = k == OP_F ? z->f : k == OP_B ? z->b : z->w, mb = ctr[j];
	pp_time ready = z->end[j], t = cost_of(z, j, k), finish;

	if (k == OP_F && j > 0 && z->tf[(j - 1) * z->m + mb] + comm(z, j - 1) > ready)
		ready = z->tf[(j - 1) * z->m + mb] + comm(z, j - 1);
	if (k == OP_B && j + 1 < z->p && z->tb[(j + 1) * z->m + mb] + comm(z, j) > ready)
		ready = z->tb[(j + 1) * z->m + mb] + comm(z, j);
	finish = ready + t;
	if (z->f[j] > 0)
		z->bubble[j] += ready - z->end[j];
	else
		z->start[j] = ready;
	z->end[j] = finish;
	if (k == OP_F)
		z->tf[j * z->m + mb] = finish;
	if (k == OP_B)
		z->tb[j * z->m + mb] = finish;
	z->mem[j] += mem_of(z, j, k);
	ctr[j]++;
	z->ops[(size_t)j * 3 * z->m + z->nops[j]++] = (struct zop){(uint8_t)k, mb};
}

/* W's into the gap before an input that arrives at dep. */
static void fill_with_w(struct zstate *z, int j, pp_time dep)
{
	while (z->w[j] < z->b[j] && z->end[j] + z->pr->t_w[j] <= dep)
		put(z, j, OP_W);
	if (z->w[j] < z->b[j] && z->end[j] < dep) {
		if (dep - z->end[j] <= max_bubble(z) - z->bubble[j]) {
			if (z->overrun)
				put(z, j, OP_W);
		} else {
			put(z, j, OP_W);
		}
	}
}

/* Runs W's until need more activations fit; marks the pass failed when none is left. */
static void make_room(struct zstate *z, int j, int64_t need)
{
	while (z->mem[j] + need > z->limit[j]) {
		if (z->w[j] == z->b[j]) {
			z->failed = true;
			return;
		}
		put(z, j, OP_W);
	}
}

static void round_zero(struct zstate *z)
{
	int p = z->p, *extra = z->extra;
	pp_time last;

	for (int j = 0; j < p; j++)
		put(z, j, OP_F);
	last = z->tf[(p - 1) * z->m] + z->pr->t_b[p - 1];
	for (int j = p - 2; j >= 0; j--) {
		int64_t mm = z->mem[j];
		pp_time c = z->end[j];

		while (z->f[j] + extra[j] < z->m && mm + z->pr->act[j] <= z->limit[j]) {
			if (z->bubble_first ? c + z->pr->t_f[j] > last + comm(z, j)
			                    : c >= last + comm(z, j))
				break;
			mm += z->pr->act[j];
			c += z->pr->t_f[j];
			extra[j]++;
		}
		last = (c > last + comm(z, j) ? c : last + comm(z, j)) + z->pr->t_b[j];
	}
	/* fewer warm-up forwards than the stage before, unless both run all of theirs (the
	 * authors stop at m on this stage alone, which lets it run forwards its predecessor has
	 * not produced: their own check then fails, and the pass would deadlock) */
	for (int j = 1; j < p; j++)
		while (extra[j] > 0 && extra[j] >= extra[j - 1] &&
		       (z->f[j] + extra[j] < z->m || z->f[j - 1] + extra[j - 1] < z->m))
			extra[j]--;
	for (int j = 0; j < p; j++)
		for (int k = 0; k < extra[j]; k++)
			put(z, j, OP_F);
	for (int j = p - 1; j >= 0; j--)
		put(z, j, OP_B);
}

/* Whether stage j should run its next F this round. */
static int wants_f(struct zstate *z, int j)
{
	pp_time next_ready, wcost = 0;
	int64_t mem_with_f;
	int pending;

	if (z->f[j] >= z->m)
		return 0;
	if (!z->prioritize_b || j + 1 >= z->p || z->f[j] < z->f[j + 1] + 2)
		return 1;
	next_ready = z->end[j + 1] + z->pr->t_f[j + 1] + z->pr->t_b[j + 1] + comm(z, j);
	if (z->end[j] >= next_ready)
		return 0;
	/* the W's needed to make room for one more F */
	mem_with_f = z->mem[j] + z->pr->act[j];
	for (pending = z->b[j] - z->w[j]; mem_with_f > z->limit[j] && pending > 0; pending--) {
		wcost += z->pr->t_w[j];
		mem_with_f -= z->pr->act_w[j];
	}
	if (z->end[j] + z->pr->t_f[j] + wcost <= next_ready)
		return 1;
	return next_ready - z->end[j] <= max_bubble(z) - z->bubble[j] ? 0 : 1;
}

static void run_pass(struct zstate *z)
{
	int p = z->p, *want = z->want;

	round_zero(z);
	for (int i = 1; i < z->m && !z->failed; i++) {
		for (int j = 0; j < p; j++)
			want[j] = wants_f(z, j);
		for (int j = p - 2; j >= 0; j--)
			if (want[j + 1] < want[j])
				want[j] = want[j + 1];
		for (int j = 0; j < p && !z->failed; j++) {
			if (!want[j])
				continue;
			make_room(z, j, mem_of(z, j, OP_F));
			if (j > 0)
				fill_with_w(z, j, z->tf[(j - 1) * z->m + z->f[j]] + comm(z, j - 1));
			put(z, j, OP_F);
		}
		for (int j = p - 1; j >= 0 && !z->failed; j--) {
			make_room(z, j, mem_of(z, j, OP_B));
			if (j + 1 < p)
				fill_with_w(z, j, z->tb[(j + 1) * z->m + i] + comm(z, j));
			if (j == 0 && z->f[0] == z->m)
				while (z->w[0] < z->b[0])
					put(z, 0, OP_W);
			put(z, j, OP_B);
		}
	}
	for (int j = 0; j < p && !z->failed; j++)
		while (z->w[j] < z->b[j])
			put(z, j, OP_W);
}

/* The activations stage j may hold under pr's limit, in pr's amounts: mem_limit times one
 * micro-batch's activations, rounded to the nearest amount. */
static int64_t stage_limit(const struct sched *s, const struct sched_prices *pr, int j)
{
	return (int64_t)llround(pr->mem_limit * (double)pr->act[sched_stage_of(s, j, 0)]);
}

/* The arrays of a pass over p stages and m micro-batches, for sched_arrays_new and _free. */
enum { ZARRAYS = 14 };
static void zstate_arrays(struct zstate *z, size_t p, size_t m, struct sched_array *a)
{
	const struct sched_array all[ZARRAYS] = {
	        {(void **)&z->f, p, sizeof(*z->f), true},
	        {(void **)&z->b, p, sizeof(*z->b), true},
	        {(void **)&z->w, p, sizeof(*z->w), true},
	        {(void **)&z->nops, p, sizeof(*z->nops), true},
	        {(void **)&z->mem, p, sizeof(*z->mem), true},
	        {(void **)&z->limit, p, sizeof(*z->limit), false},
	        {(void **)&z->end, p, sizeof(*z->end), true},
	        {(void **)&z->bubble, p, sizeof(*z->bubble), true},
	        {(void **)&z->start, p, sizeof(*z->start), true},
	        {(void **)&z->tf, p * m, sizeof(*z->tf), true},
	        {(void **)&z->tb, p * m, sizeof(*z->tb), true},
	        {(void **)&z->ops, p * 3 * m, sizeof(*z->ops), false},
	        {(void **)&z->extra, p, sizeof(*z->extra), true},
	        {(void **)&z->want, p, sizeof(*z->want), false},
	};

	memcpy(a, all, sizeof(all));
}

/* A pass with the choices of flags (bubble first 4, prioritize B 2, overrun 1); returns 0, or
 * -1 with a PP_ERR_NOMEM error. */
static int zstate_init(struct zstate *z, const struct sched *s, const struct sched_prices *pr,
                       int flags, struct pp_error *err)
{
	struct sched_array a[ZARRAYS];

	memset(z, 0, sizeof(*z));
	z->pr = pr;
	z->p = s->p;
	z->m = s->m;
	z->bubble_first = flags & 4;
	z->prioritize_b = flags & 2;
	z->overrun = flags & 1;
	zstate_arrays(z, (size_t)s->p, (size_t)s->m, a);
	if (sched_arrays_new(a, ZARRAYS, err) != 0)
		return -1;
	for (int j = 0; j < s->p; j++)
		z->limit[j] = stage_limit(s, pr, j);
	return 0;
}

static void zstate_release(struct zstate *z)
{
	struct sched_array a[ZARRAYS];

	zstate_arrays(z, 0, 0, a);
	sched_arrays_free(a, ZARRAYS);
}

int unit_zb_auto_oracle(struct sched *s, const struct sched_prices *pr, struct pp_error *err)
{
	struct zstate best, z;
	pp_time best_time = 0;
	bool have = false;

	/* combinations in the authors' order: (yes, yes, yes) first */
	for (int flags = 7; flags >= 0; flags--) {
		pp_time makespan = 0;

		if (zstate_init(&z, s, pr, flags, err) != 0) {
			if (have)
				zstate_release(&best);
			return -1;
		}
		run_pass(&z);
		for (int j = 0; j < s->p; j++)
			if (z.end[j] > makespan)
				makespan = z.end[j];
		if (!z.failed && (!have || makespan < best_time)) {
			if (have)
				zstate_release(&best);
			best = z;
			best_time = makespan;
			have = true;
		} else {
			zstate_release(&z);
		}
	}
	s->mem_limit = pr->mem_limit;
	/* no combination fit the limit: ZB-H1's order, which needs p (and allocates nothing) */
	if (!have)
		return sched_zbh1_generate(s);
	for (int j = 0; j < s->p; j++)
		for (int k = 0; k < best.nops[j]; k++) {
			const struct zop *o = &best.ops[(size_t)j * 3 * s->m + k];

			sched_push(s, j, (enum op_kind)o->kind, o->mb, j);
		}
	zstate_release(&best);
	return 0;
}
