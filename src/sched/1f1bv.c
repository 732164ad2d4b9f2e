/*
 * 1F1B-V, the zero-bubble authors' V schedule with fused backwards (their --enable-1f1b-v), in
 * the order their Megatron-LM fork builds it (sail-sg/zero-bubble-pipeline-parallelism,
 * zerobubble/scheduler/v1f1b.py, create_schedule): V placement, one F per chunk and one fused
 * BW per chunk for each micro-batch, about 2/3 of 1F1B's activations for a slightly smaller
 * bubble when F, B and W take the same time. The order depends on p and m only.
 *
 * Time is counted in slots: an F takes one, a fused backward two (its B half, then its W half).
 * Device d runs F of chunk 0 (stage d), F of chunk 1 (stage 2p-1-d), then the backward of
 * chunk 1 and of chunk 0.
 *   1. One micro-batch's template: F0 on d at d+1, F1 on d at 2p-d; the 2p backwards in
 *      their chain's order (chunk 1 on devices 0..p-1, then chunk 0 on p-1..0) from slot
 *      2p+1 (2p+4 when 3 divides p), each 2 slots after the previous and every third one 5,
 *      so that each device's six slots fall on six residues mod 6.
 *   2. Micro-batch j repeats it 6j slots later: a periodic grid with no conflict. Its largest
 *      count of live chunks on any device and slot is the peak the next step keeps.
 *   3. Compaction, in slot order then device order: a backward half moves to the first free
 *      room (both slots for a B half) after its inputs and its kind's previous op; a forward
 *      moves earlier only while its device stays below the peak just before it. This makes
 *      the warm-up and the cool-down; the steady part, which has no free slot, moves earlier
 *      as a block.
 * Each device then runs its ops in slot order. The order takes any p >= 1 and m >= 1: the
 * authors' generator does too, only their runtime refuses p = 1 (one device holding both
 * chunks), a limit of their Megatron-LM integration that ppsim has no reason to copy.
 */
#include <stdlib.h>

#include "generators.h"

/* Op kinds, in the template's order: the F's of chunk 0 and 1, the backwards of chunk 1 and 0 */
enum { F0, F1, B1, B0, KINDS };

/* A grid cell: kind * 2 + half (half 1 is a backward's second slot), or FREE. */
#define FREE   (-1)
#define HALVES (2 * KINDS)

struct vgrid {
	int p, m, nslots;
	int leaves;        /* a power of two >= the blocks of BLOCK slots: each device's tree */
	signed char *cell; /* [p][nslots] */
	/* live chunks after each slot: val ([p][nslots]) less what the tree added, and a tree
	 * per device over its blocks of slots: node 1 spans them all, node i's children are 2i
	 * and 2i+1, leaf leaves+b is block b; top[i] ([p][2 leaves]) is the largest count under
	 * node i, add[i] ([p][2 leaves]) what was added to all of them at once */
	int *val, *top, *add;
	/* [p][KINDS][m] the slot of each op (its first half), once the scan has passed it: a
	 * backward's second half always follows its first */
	int *at;
	int *seen; /* [p][HALVES] op halves of each kind the scan has passed */
};

enum { VARRAYS = 6 };
static void vgrid_arrays(struct vgrid *g, size_t p, size_t m, struct sched_array *a)
{
	size_t tree = p * 2 * (size_t)g->leaves;
	const struct sched_array all[VARRAYS] = {
	        {(void **)&g->cell, p * (size_t)g->nslots, sizeof(*g->cell), false},
	        {(void **)&g->val, p * (size_t)g->nslots, sizeof(*g->val), false},
	        {(void **)&g->top, tree, sizeof(*g->top), true},
	        {(void **)&g->add, tree, sizeof(*g->add), true},
	        {(void **)&g->at, p * KINDS * m, sizeof(*g->at), false},
	        {(void **)&g->seen, p * HALVES, sizeof(*g->seen), true},
	};

	for (int i = 0; i < VARRAYS; i++)
		a[i] = all[i];
}

static signed char *cell(const struct vgrid *g, int d, int x)
{
	return &g->cell[(size_t)d * (size_t)g->nslots + (size_t)x];
}

/*
 * The compaction moves the whole steady part earlier by about the warm-up it saves, O(p)
 * slots: each move changes the counts of every slot it passes and each forward's test reads
 * them, so they live in a tree over blocks of slots (range add, range maximum) to keep
 * generation O(p m log m) in little memory.
 */
#define BLOCK 16

struct counts {
	int *val, *top, *add;
	int leaves, nslots;
};

static struct counts tree_of(const struct vgrid *g, int d)
{
	size_t tree = (size_t)d * 2 * (size_t)g->leaves;

	return (struct counts){g->val + (size_t)d * (size_t)g->nslots, g->top + tree, g->add + tree,
	                       g->leaves, g->nslots};
}

static int higher(int a, int b)
{
	return a > b ? a : b;
}

/* Recomputes the largest counts of node i's ancestors from their children's. */
static void refresh(const struct counts *c, int i)
{
	for (i /= 2; i > 0; i /= 2)
		c->top[i] = c->add[i] + higher(c->top[2 * i], c->top[2 * i + 1]);
}

/* Adds v to the counts of the slots [a, b) of block k, then recomputes the tree above it. */
static void add_in_block(const struct counts *c, int k, int a, int b, int v)
{
	int i = c->leaves + k, top = c->val[k * BLOCK];

	for (int x = a; x < b; x++)
		c->val[x] += v;
	for (int x = k * BLOCK; x < (k + 1) * BLOCK && x < c->nslots; x++)
		top = higher(top, c->val[x]);
	c->top[i] = c->add[i] + top;
	/* only this leaf changed: the ancestors change only up to the first that keeps its count */
	for (i /= 2; i > 0; i /= 2) {
		top = c->add[i] + higher(c->top[2 * i], c->top[2 * i + 1]);
		if (top == c->top[i])
			break;
		c->top[i] = top;
	}
}

/* Adds v to the counts of device d's slots [a, b). */
static void add_counts(const struct vgrid *g, int d, int a, int b, int v)
{
	struct counts c = tree_of(g, d);
	int first = a / BLOCK, last = b / BLOCK, lo, hi;

	if (a >= b)
		return;
	if (first == last) {
		add_in_block(&c, first, a, b, v);
		return;
	}
	if (a % BLOCK != 0) {
		add_in_block(&c, first, a, (first + 1) * BLOCK, v);
		first++;
	}
	if (b % BLOCK != 0)
		add_in_block(&c, last, last * BLOCK, b, v);
	/* the whole blocks [first, last) */
	lo = first + c.leaves;
	hi = last + c.leaves;
	if (lo >= hi)
		return;
	for (int l = lo, r = hi; l < r; l /= 2, r /= 2) {
		if (l % 2 == 1) {
			c.top[l] += v;
			c.add[l++] += v;
		}
		if (r % 2 == 1) {
			c.top[--r] += v;
			c.add[r] += v;
		}
	}
	refresh(&c, lo);
	refresh(&c, hi - 1);
}

/* The last slot in [a, b) under node i (spanning blocks [lo, hi)) whose count, less what
 * node i's ancestors added, is at least want; -1 when none. */
static int last_under(const struct counts *c, int i, int lo, int hi, int a, int b, int want)
{
	int mid = lo + (hi - lo) / 2, x;

	if (b <= lo * BLOCK || hi * BLOCK <= a || c->top[i] < want)
		return -1;
	want -= c->add[i];
	if (i >= c->leaves) {
		for (x = (b < hi * BLOCK ? b : hi * BLOCK) - 1; x >= a && x >= lo * BLOCK; x--)
			if (c->val[x] >= want)
				return x;
		return -1;
	}
	x = last_under(c, 2 * i + 1, mid, hi, a, b, want);
	return x >= 0 ? x : last_under(c, 2 * i, lo, mid, a, b, want);
}

/* The last slot in [a, b) of device d holding at least want live chunks, or -1. */
static int last_at_least(const struct vgrid *g, int d, int a, int b, int want)
{
	struct counts c = tree_of(g, d);

	return last_under(&c, 1, 0, c.leaves, a, b, want);
}

static int *at(const struct vgrid *g, int d, int kind, int k)
{
	return &g->at[((size_t)d * KINDS + (size_t)kind) * (size_t)g->m + (size_t)k];
}

/* Step 1: t[kind * p + d] is micro-batch 0's first slot of that op on device d; returns the
 * last of them. */
static int template(int p, int *t)
{
	/* where the chain's 5-slot steps fall, by p mod 3 */
	static const int phase[3] = {1, 0, 2};
	int x = 2 * p + 1 + (p % 3 == 0 ? 3 : 0);

	for (int d = 0; d < p; d++) {
		t[F0 * p + d] = d + 1;
		t[F1 * p + d] = 2 * p - d;
	}
	for (int q = 1; q <= 2 * p; q++) {
		if (q <= p)
			t[B1 * p + q - 1] = x;
		else
			t[B0 * p + 2 * p - q] = x;
		x += (q + phase[p % 3]) % 3 == 0 ? 5 : 2;
	}
	return t[B0 * p];
}

/* Step 2; returns the grid's peak of live chunks. */
static int lay_out(struct vgrid *g, const int *t)
{
	int peak = 0;

	for (size_t i = 0; i < (size_t)g->p * (size_t)g->nslots; i++)
		g->cell[i] = FREE;
	for (int d = 0; d < g->p; d++) {
		struct counts c = tree_of(g, d);
		int live = 0;

		for (int kind = 0; kind < KINDS; kind++)
			for (int j = 0; j < g->m; j++) {
				int x = 6 + t[kind * g->p + d] + 6 * j;

				*cell(g, d, x) = (signed char)(2 * kind);
				if (kind >= B1)
					*cell(g, d, x + 1) = (signed char)(2 * kind + 1);
			}
		for (int x = 0; x < g->nslots; x++) {
			int h = *cell(g, d, x);

			if (h == 2 * F0 || h == 2 * F1)
				live++;
			else if (h % 2 == 1)
				live--;
			c.val[x] = live;
			if (x % BLOCK == 0 || live > c.top[c.leaves + x / BLOCK])
				c.top[c.leaves + x / BLOCK] = live;
			if (live > peak)
				peak = live;
		}
		for (int i = c.leaves - 1; i > 0; i--)
			c.top[i] = higher(c.top[2 * i], c.top[2 * i + 1]);
	}
	return peak;
}

/* The slot of the op half that op half h of micro-batch k on device d waits for, or -1. */
static int input_slot(const struct vgrid *g, int d, int h, int k)
{
	int last = g->p - 1;

	if (h % 2 == 1)
		return *at(g, d, h / 2, k);
	switch (h / 2) {
	case F0:
		return d > 0 ? *at(g, d - 1, F0, k) : -1;
	case F1:
		return d < last ? *at(g, d + 1, F1, k) : *at(g, d, F0, k);
	case B1:
		return d > 0 ? *at(g, d - 1, B1, k) + 1 : *at(g, d, F1, k);
	default:
		return (d < last ? *at(g, d + 1, B0, k) : *at(g, d, B1, k)) + 1;
	}
}

/* Step 3 for the op half h in slot s of device d, which may start at e: the slot it moves to
 * (s when it stays). */
static int move_to(struct vgrid *g, int d, int s, int h, int e, int peak)
{
	int x;

	if (h == 2 * B1 || h == 2 * B0) {
		/* a B half needs its W half's slot free too: it never moves to s-1 */
		for (int y = e; y < s; y++)
			if (*cell(g, d, y) == FREE && *cell(g, d, y + 1) == FREE)
				return y;
		return s;
	}
	if (h % 2 == 0) {
		/* a forward only as early as the device stays below the peak just before it: after
		 * the last slot from e on at the peak */
		x = last_at_least(g, d, e, s, peak) + 1;
		if (x < e)
			x = e;
	} else {
		x = e;
	}
	while (x < s && *cell(g, d, x) != FREE)
		x++;
	add_counts(g, d, x, s, h % 2 == 0 ? 1 : -1);
	return x;
}

static void compact(struct vgrid *g, int peak)
{
	for (int s = 0; s < g->nslots; s++)
		for (int d = 0; d < g->p; d++) {
			int h = *cell(g, d, s), k, e, x;

			if (h == FREE)
				continue;
			/* moves never reorder ops of one kind: the n-th seen is micro-batch n-1 */
			k = g->seen[d * HALVES + h]++;
			e = input_slot(g, d, h, k);
			if (k > 0 && *at(g, d, h / 2, k - 1) + h % 2 > e)
				e = *at(g, d, h / 2, k - 1) + h % 2;
			x = move_to(g, d, s, h, e + 1, peak);
			*cell(g, d, s) = FREE;
			*cell(g, d, x) = (signed char)h;
			if (h % 2 == 0)
				*at(g, d, h / 2, k) = x;
		}
}

int sched_1f1b_v_generate(struct sched *s)
{
	/* chunk of each kind: the backward's first chunk is chunk 1 */
	static const int chunk[KINDS] = {0, 1, 1, 0};
	int p = s->p, m = s->m, *t = pp_mallocarray((size_t)KINDS * (size_t)p, sizeof(*t));
	struct vgrid g = {.p = p, .m = m};
	struct sched_array a[VARRAYS];
	int next[KINDS];

	if (t == NULL)
		return -1;
	g.nslots = 6 + template(p, t) + 2 + 6 * m;
	for (g.leaves = 1; g.leaves * BLOCK < g.nslots; g.leaves *= 2)
		;
	vgrid_arrays(&g, (size_t)p, (size_t)m, a);
	if (sched_arrays_new(a, VARRAYS, NULL) != 0) {
		free(t);
		return -1;
	}
	compact(&g, lay_out(&g, t));
	for (int d = 0; d < p; d++) {
		for (int kind = 0; kind < KINDS; kind++)
			next[kind] = 0;
		for (int x = 0; x < g.nslots; x++) {
			int h = *cell(&g, d, x);

			if (h != FREE && h % 2 == 0)
				sched_push(s, d, h / 2 <= F1 ? OP_F : OP_BW, next[h / 2]++,
				           sched_stage_of(s, d, chunk[h / 2]));
		}
	}
	sched_arrays_free(a, VARRAYS);
	free(t);
	return 0;
}

/* In chunks min(2m, m + d + 1 + floor(d/2), 2 ceil((2p+1)/3)), two chunks a micro-batch. */
double sched_1f1b_v_peak(const struct sched_params *sp, int d)
{
	int x = 2 * sp->m, ramp = sp->m + d + 1 + d / 2, steady = 2 * ((2 * sp->p + 3) / 3);

	if (ramp < x)
		x = ramp;
	if (steady < x)
		x = steady;
	return x / 2.0;
}
