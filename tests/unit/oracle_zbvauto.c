/*
 * The oracle of the zbv-auto property tests: the generator as it was before it ran its passes on
 * threads with shared arrays (src/sched/zbvauto.c at ac9ac5c), kept verbatim but for
 * its name and this comment, so that the tests can check that the library's generator gives
 * the same op list, op for op. Its description is the library file's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/generators.h"
#include "unit.h"

/* The pass's six op kinds on a device: F of chunk 0, F of chunk 1, B and W of the backward's
 * first and second chunk (the authors' "FfBbWw"). */
enum { VF0, VF1, VB0, VB1, VW0, VW1, VKINDS };

/* One op in the order the pass put it on its device. */
struct vop {
	uint8_t kind; /* VF0 .. VW1 */
	int mb;
};

/* What every pass decides from: uniform op and message times, per-device activations. All are
 * doubled (sums of a device's two chunks), which changes no comparison. */
struct vprices {
	pp_time t[3];   /* F, B, W of one chunk op */
	pp_time comm;   /* one message */
	int64_t *act;   /* [p] what an F allocates on device d */
	int64_t *act_w; /* [p] the part W frees */
	int64_t *limit; /* [p] alive activations allowed */
};

/* One pass. */
struct vpass {
	const struct vprices *pr;
	int p, m;
	bool fill_f, fill_b;
	const pp_time *approved; /* [p] idle-time allowances, NULL on the first run */
	pp_time max_approved;    /* their largest, -1 without */
	pp_time max_bubble;      /* the largest per-device idle time so far */
	int *count;              /* [p * VKINDS] ops of each kind put so far */
	pp_time *end;            /* [VKINDS * p * m] end of each op, -1 before it runs */
	pp_time *cur, *bubble;   /* [p] end of the device's last op, idle time after its first F */
	int64_t *mem;            /* [p] alive activations */
	int *pending;            /* [p * 2m] chunks (0, 1) of B's whose W is pending, FIFO */
	int *phead, *ptail;      /* [p] */
	struct vop *ops;         /* [p * 6m] */
	int *nops;               /* [p] */
	int *order;              /* [p] the devices in a round's order of B's */
	bool failed;
};

/* The schedule's stage of a pass op kind on device d (B and W of the first chunk are chunk 1). */
static int stage_of(const struct vpass *z, int kind, int d)
{
	int chunk = kind == VF0 || kind == VB1 || kind == VW1 ? 0 : 1;

	return chunk == 0 ? d : 2 * z->p - 1 - d;
}

static pp_time cost_of(const struct vpass *z, int kind)
{
	return z->pr->t[kind <= VF1 ? 0 : kind <= VB1 ? 1 : 2];
}

static int64_t mem_of(const struct vpass *z, int kind, int d)
{
	return kind <= VF1   ? z->pr->act[d]
	       : kind <= VB1 ? -(z->pr->act[d] - z->pr->act_w[d])
	                     : -z->pr->act_w[d];
}

static pp_time *end_of(const struct vpass *z, int kind, int d, int mb)
{
	return &z->end[((size_t)kind * (size_t)z->p + (size_t)d) * (size_t)z->m + (size_t)mb];
}

/* The end the authors read for an op with no input from another device (their index -1). */
static pp_time no_input_end(const struct vpass *z)
{
	return *end_of(z, VW1, z->p - 1, z->m - 1);
}

/* The largest idle time device d is measured against: the pass's, or its allowance's. */
static pp_time max_stage_bubble(const struct vpass *z, int d)
{
	pp_time x = z->max_bubble;

	if (z->approved != NULL && z->max_approved - z->approved[d] > x)
		x = z->max_approved - z->approved[d];
	return x;
}

/* The op that must end before the next op of kind on device d may start here, the same
 * device's ordering aside: its input from the neighbouring device, or -1. */
static int input_device(const struct vpass *z, int kind, int d)
{
	bool down = kind == VF0 || kind == VB0; /* chunk 0 forward, first backward chunk */

	if (kind >= VW0)
		return -1;
	if (down)
		return d > 0 ? d - 1 : -1;
	return d + 1 < z->p ? d + 1 : -1;
}

/* Appends the next op of kind to device d at the earliest time its input and device allow. */
static void put(struct vpass *z, int kind, int d)
{
	int *cnt = &z->count[d * VKINDS + kind], mb = *cnt, e;
	pp_time no_bubble = z->cur[d] + cost_of(z, kind), t = no_bubble;

	if (z->failed)
		return;
	if (mb >= z->m || z->mem[d] + mem_of(z, kind, d) > z->pr->limit[d]) {
		z->failed = true;
		return;
	}
	/* the op before it on this device: F of chunk 0 before chunk 1's, a B after its F, W
	 * after its B */
	if (kind != VF0) {
		int before = kind >= VW0 ? kind - 2 : kind - 1;

		if (*end_of(z, before, d, mb) < 0) {
			z->failed = true;
			return;
		}
	}
	e = input_device(z, kind, d);
	if (e >= 0) {
		pp_time in = *end_of(z, kind, e, mb);

		if (in < 0) {
			z->failed = true;
			return;
		}
		if (in + z->pr->comm + cost_of(z, kind) > t)
			t = in + z->pr->comm + cost_of(z, kind);
	}
	if (z->count[d * VKINDS + VF0] > 0) {
		z->bubble[d] += t - no_bubble;
		if (z->bubble[d] > z->max_bubble)
			z->max_bubble = z->bubble[d];
	}
	*end_of(z, kind, d, mb) = t;
	z->cur[d] = t;
	z->mem[d] += mem_of(z, kind, d);
	z->ops[(size_t)d * 6 * (size_t)z->m + (size_t)z->nops[d]++] =
	        (struct vop){(uint8_t)kind, mb};
	if (kind == VB0 || kind == VB1)
		z->pending[(size_t)d * 2 * (size_t)z->m + (size_t)z->ptail[d]++] = kind - VB0;
	(*cnt)++;
}

static bool has_pending(const struct vpass *z, int d)
{
	return z->phead[d] < z->ptail[d];
}

/* Runs device d's oldest pending W. */
static void put_w(struct vpass *z, int d)
{
	int chunk = z->pending[(size_t)d * 2 * (size_t)z->m + (size_t)z->phead[d]++];

	put(z, VW0 + chunk, d);
}

/* W's before the op of kind on device d whose input is the op input on device e (e < 0:
 * none): every W that fits the gap, and one more when the gap would make d's idle time the
 * largest and more is true. */
static void fill_gap(struct vpass *z, int kind, int d, int e, int mb, bool more)
{
	pp_time in = e >= 0 ? *end_of(z, kind, e, mb) : no_input_end(z);
	pp_time c = z->pr->comm;

	while (!z->failed && has_pending(z, d) && e >= 0) {
		int chunk = z->pending[(size_t)d * 2 * (size_t)z->m + (size_t)z->phead[d]];

		if (in + c < z->cur[d] + cost_of(z, VW0 + chunk))
			break;
		put_w(z, d);
	}
	if (!z->failed && has_pending(z, d) && more &&
	    in + c - z->cur[d] > max_stage_bubble(z, d) - z->bubble[d])
		put_w(z, d);
}

static void warm_up(struct vpass *z)
{
	int p = z->p, m = z->m, chunk = 0;

	for (int d = 0; d < p; d++)
		put(z, VF0, d);
	for (int d = p - 1; d >= 0 && !z->failed; d--) {
		pp_time back;

		if (d == p - 1) {
			put(z, VF1, d);
			continue;
		}
		back = *end_of(z, VF1, d + 1, 0) + z->pr->comm;
		while (!z->failed &&
		       z->mem[d] + z->pr->act[d] * (2 + 2 * (int64_t)d) <= z->pr->limit[d] &&
		       z->cur[d] + cost_of(z, VF0) <= back && z->count[d * VKINDS + VF0] < m)
			for (int j = 0; j <= d; j++)
				put(z, VF0, j);
		put(z, VF1, d);
	}
	for (int d = 1; d < p && !z->failed; d++) {
		const int *c = &z->count[d * VKINDS], *prev = &z->count[(d - 1) * VKINDS];

		/* ends: each turn puts an op on device d while the condition holds (or fails) */
		while (!z->failed && (c[VF0] + c[VF1] < prev[VF0] + prev[VF1] ||
		                      (c[VF1] <= prev[VF1] && prev[VF1] < m))) {
			for (int j = p - 1; j >= d; j--)
				if (z->count[j * VKINDS + VF0 + chunk] < m)
					put(z, VF0 + chunk, j);
			chunk = 1 - chunk;
		}
	}
}

/* One B on every device, in the authors' order. */
static void round_of_b(struct vpass *z, int *order)
{
	int p = z->p, n = 0, n1 = 0;

	/* the devices taking the second chunk, from the last down, then the others */
	for (int d = p - 1; d >= 0; d--) {
		const int *c = &z->count[d * VKINDS];

		if (c[VB1] < c[VB0] &&
		    (d == p - 1 || *end_of(z, VB1, d + 1, c[VB1]) >= 0 || c[VB0] >= z->m))
			order[n1++] = d;
	}
	n = n1;
	for (int d = 0; d < p; d++) {
		const int *c = &z->count[d * VKINDS];

		if (!(c[VB1] < c[VB0] &&
		      (d == p - 1 || *end_of(z, VB1, d + 1, c[VB1]) >= 0 || c[VB0] >= z->m)))
			order[n++] = d;
	}
	for (int k = 0; k < p && !z->failed; k++) {
		int d = order[k], kind = k < n1 ? VB1 : VB0;
		int mb = z->count[d * VKINDS + kind];

		/* a B frees activations, so the authors' room-making before it never runs W's */
		fill_gap(z, kind, d, input_device(z, kind, d), mb, kind == VB1 || z->fill_b);
		put(z, kind, d);
	}
}

/* One F on every device that has forwards left and an input for one. */
static void round_of_f(struct vpass *z)
{
	for (int d = 0; d < z->p && !z->failed; d++) {
		const int *c = &z->count[d * VKINDS];
		int kind = -1, mb;

		if (c[VF1] >= z->m)
			continue;
		if (c[VF1] >= c[VF0])
			kind = VF0;
		else if (d == z->p - 1 || *end_of(z, VF1, d + 1, c[VF1]) >= 0)
			kind = VF1;
		else if (c[VF0] < z->m && (d == 0 || *end_of(z, VF0, d - 1, c[VF0]) >= 0))
			kind = VF0;
		if (kind < 0)
			continue;
		while (!z->failed && z->mem[d] + mem_of(z, kind, d) > z->pr->limit[d]) {
			if (!has_pending(z, d)) {
				z->failed = true;
				return;
			}
			put_w(z, d);
		}
		mb = z->count[d * VKINDS + kind];
		fill_gap(z, kind, d, input_device(z, kind, d), mb, z->fill_f);
		put(z, kind, d);
	}
}

/* The arrays of a pass over p devices and m micro-batches, for sched_arrays_new and _free. */
enum { VARRAYS = 11 };
static void vpass_arrays(struct vpass *z, size_t p, size_t m, struct sched_array *a)
{
	const struct sched_array all[VARRAYS] = {
	        {(void **)&z->count, p * VKINDS, sizeof(*z->count), true},
	        {(void **)&z->end, VKINDS * p * m, sizeof(*z->end), false},
	        {(void **)&z->cur, p, sizeof(*z->cur), true},
	        {(void **)&z->bubble, p, sizeof(*z->bubble), true},
	        {(void **)&z->mem, p, sizeof(*z->mem), true},
	        {(void **)&z->pending, p * 2 * m, sizeof(*z->pending), false},
	        {(void **)&z->phead, p, sizeof(*z->phead), true},
	        {(void **)&z->ptail, p, sizeof(*z->ptail), true},
	        {(void **)&z->ops, p * 6 * m, sizeof(*z->ops), false},
	        {(void **)&z->nops, p, sizeof(*z->nops), true},
	        {(void **)&z->order, p, sizeof(*z->order), false},
	};

	memcpy(a, all, sizeof(all));
}

/* An empty pass; returns 0, or -1 with a PP_ERR_NOMEM error. */
static int vpass_init(struct vpass *z, int p, int m, const struct vprices *pr, struct pp_error *err)
{
	struct sched_array a[VARRAYS];
	size_t np = (size_t)p, nm = (size_t)m;

	memset(z, 0, sizeof(*z));
	z->pr = pr;
	z->p = p;
	z->m = m;
	vpass_arrays(z, np, nm, a);
	if (sched_arrays_new(a, VARRAYS, err) != 0)
		return -1;
	for (size_t i = 0; i < VKINDS * np * nm; i++)
		z->end[i] = -1;
	return 0;
}

static void vpass_release(struct vpass *z)
{
	struct sched_array a[VARRAYS];

	vpass_arrays(z, 0, 0, a);
	sched_arrays_free(a, VARRAYS);
}

/* Runs one pass with the settings and allowances (NULL: none); false when it fails. */
static bool run_pass(struct vpass *z, bool fill_b, bool fill_f, const pp_time *approved)
{
	z->fill_b = fill_b;
	z->fill_f = fill_f;
	z->approved = approved;
	z->max_approved = -1;
	for (int d = 0; approved != NULL && d < z->p; d++)
		if (approved[d] > z->max_approved)
			z->max_approved = approved[d];
	warm_up(z);
	for (int r = 0; r < 2 * z->m && !z->failed; r++) {
		round_of_b(z, z->order);
		round_of_f(z);
	}
	for (int d = 0; d < z->p && !z->failed; d++)
		while (!z->failed && has_pending(z, d))
			put_w(z, d);
	for (int d = 0; d < z->p && !z->failed; d++)
		if (z->nops[d] != 6 * z->m)
			z->failed = true;
	return !z->failed;
}

/*
 * The authors' try_v_schedule for one (fill_b, fill_f): a first pass, then passes with the
 * last one's idle times as allowances while the score keeps falling. Stores the pass kept in
 * *best and returns 1, or 0 when the first pass fails, or -1 with a PP_ERR_NOMEM error.
 */
static int best_of_chain(int p, int m, const struct vprices *pr, bool fill_b, bool fill_f,
                         struct vpass *best, struct pp_error *err)
{
	struct vpass next;

	if (vpass_init(best, p, m, pr, err) != 0)
		return -1;
	if (!run_pass(best, fill_b, fill_f, NULL)) {
		vpass_release(best);
		return 0;
	}
	for (;;) {
		if (vpass_init(&next, p, m, pr, err) != 0) {
			vpass_release(best);
			return -1;
		}
		if (!run_pass(&next, fill_b, fill_f, best->bubble) ||
		    next.max_bubble >= best->max_bubble) {
			vpass_release(&next);
			return 1;
		}
		vpass_release(best);
		*best = next;
	}
}

/* The best pass over the four settings into *best: 1, or 0 when none keeps within the limits,
 * or -1 with a PP_ERR_NOMEM error. */
static int best_pass(int p, int m, const struct vprices *pr, struct vpass *best,
                     struct pp_error *err)
{
	bool have = false;

	for (int k = 0; k < 4; k++) {
		struct vpass z;
		/* the authors' order: fill_b yes, then no; within each, fill_f yes, then no */
		int rc = best_of_chain(p, m, pr, k < 2, k % 2 == 0, &z, err);

		if (rc < 0) {
			if (have)
				vpass_release(best);
			return -1;
		}
		if (rc == 0)
			continue;
		if (have && z.max_bubble >= best->max_bubble) {
			vpass_release(&z);
			continue;
		}
		if (have)
			vpass_release(best);
		*best = z;
		have = true;
	}
	return have;
}

static int compare_time(const void *a, const void *b)
{
	pp_time x = *(const pp_time *)a, y = *(const pp_time *)b;

	return (x > y) - (x < y);
}

/* The authors' median of n values (the upper one of an even count); sorts x. */
static pp_time median(pp_time *x, size_t n)
{
	qsort(x, n, sizeof(*x), compare_time);
	return x[n / 2];
}

/* The prices every pass decides from (limits unset); returns 0, or -1 with a PP_ERR_NOMEM
 * error. */
static int vprices_init(struct vprices *v, const struct sched *s, const struct sched_prices *pr,
                        struct pp_error *err)
{
	int p = s->p, S = s->S;
	const pp_time *per[3] = {pr->t_f, pr->t_b, pr->t_w};
	pp_time *x = pp_mallocarray((size_t)S, sizeof(*x));
	size_t n = 0;
	const struct sched_array a[] = {
	        {(void **)&v->act, (size_t)p, sizeof(*v->act), false},
	        {(void **)&v->act_w, (size_t)p, sizeof(*v->act_w), false},
	        {(void **)&v->limit, (size_t)p, sizeof(*v->limit), false},
	};

	memset(v, 0, sizeof(*v));
	if (x == NULL)
		return pp_nomem(err, (size_t)S, sizeof(*x));
	if (sched_arrays_new(a, 3, err) != 0) {
		free(x);
		return -1;
	}
	for (int k = 0; k < 3; k++) {
		for (int d = 0; d < p; d++)
			x[d] = per[k][d] + per[k][S - 1 - d];
		v->t[k] = median(x, (size_t)p);
	}
	/* the links between devices; the turn from stage p-1 to p stays on device p-1 */
	for (int st = 0; st + 1 < S; st++)
		if (st != p - 1)
			x[n++] = 2 * pr->t_comm[st];
	v->comm = n > 0 ? median(x, n) : 0;
	free(x);
	for (int d = 0; d < p; d++) {
		v->act[d] = pr->act[d] + pr->act[S - 1 - d];
		v->act_w[d] = pr->act_w[d] + pr->act_w[S - 1 - d];
	}
	return 0;
}

/* Sets v's limits to mem_limit micro-batches, two chunks of act[d] each. */
static void vprices_limit(struct vprices *v, int p, double mem_limit)
{
	for (int d = 0; d < p; d++)
		v->limit[d] = (int64_t)llround(mem_limit * 2.0 * (double)v->act[d]);
}

static void vprices_release(struct vprices *v)
{
	free(v->act);
	free(v->act_w);
	free(v->limit);
}

int unit_zbv_auto_oracle(struct sched *s, const struct sched_prices *pr, struct pp_error *err)
{
	struct vprices v;
	struct vpass best;
	int rc;

	if (vprices_init(&v, s, pr, err) != 0)
		return -1;
	vprices_limit(&v, s->p, pr->mem_limit);
	rc = best_pass(s->p, s->m, &v, &best, err);
	if (rc == 0) {
		/* the smallest limit in half micro-batches (one chunk) that works, if any */
		double need = 0;

		for (double x = 0.5 * ((int)(2 * pr->mem_limit) + 1); x <= 4.0 * s->p && rc == 0;
		     x += 0.5) {
			vprices_limit(&v, s->p, x);
			rc = best_pass(s->p, s->m, &v, &best, err);
			if (rc > 0) {
				vpass_release(&best);
				need = x;
			}
		}
		vprices_release(&v);
		if (rc < 0)
			return -1;
		if (need > 0)
			return pp_fail(err, PP_ERR_USAGE,
			               "zbv-auto (the authors' greedy, which keeps room for the "
			               "warm-up's forwards) finds no order for p=%d m=%d within a limit "
			               "of %g micro-batches of activations; it finds one from a limit "
			               "of %g (the order may then hold fewer)",
			               s->p, s->m, pr->mem_limit, need);
		return pp_fail(
		        err, PP_ERR_USAGE,
		        "zbv-auto cannot keep p=%d m=%d within %g micro-batches of activations",
		        s->p, s->m, pr->mem_limit);
	}
	vprices_release(&v);
	if (rc < 0)
		return -1;
	s->mem_limit = pr->mem_limit;
	for (int d = 0; d < s->p; d++)
		for (int k = 0; k < best.nops[d]; k++) {
			const struct vop *o = &best.ops[(size_t)d * 6 * (size_t)s->m + (size_t)k];
			static const enum op_kind kinds[] = {OP_F, OP_F, OP_B, OP_B, OP_W, OP_W};

			sched_push(s, d, kinds[o->kind], o->mb, stage_of(&best, o->kind, d));
		}
	vpass_release(&best);
	return 0;
}
