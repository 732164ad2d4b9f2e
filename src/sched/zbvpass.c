/*
 * One greedy pass of zbv-auto (zbvpass.h): the ops a device puts, the W's that fill a gap, the
 * warm-up and the rounds, and a pass's start from the base pass's snapshot. What the pass
 * decides is in zbvauto.c's opening comment.
 */
#include <limits.h>
#include <string.h>

#include "base/hot.h"
#include "zbvpass.h"

static inline pp_time cost_of(const struct vpass *z, int kind)
{
	return z->pr->t[kind <= VF1 ? 0 : kind <= VB1 ? 1 : 2];
}

static inline int64_t mem_of(const struct vpass *z, int kind, int d)
{
	return kind <= VF1   ? z->pr->act[d]
	       : kind <= VB1 ? -(z->pr->act[d] - z->pr->act_w[d])
	                     : -z->pr->act_w[d];
}

/* Whether the pass has ended early: failed or stopped. */
static inline bool halted(const struct vpass *z)
{
	return z->failed || z->stopped;
}

/* The end of op kind (< VKEPT) of mb on device e, or -1 when it has not run. */
static inline pp_time end_of(const struct vpass *z, int kind, int e, int mb)
{
	if (z->dev[e].count[kind] <= mb)
		return -1;
	return z->end[(size_t)mb * z->row + (size_t)e * VKEPT + (size_t)kind];
}

/* Records a point of the base pass (struct vrec); without room for it, the base is not used. */
static void record(struct vpass *z, int kind, int d, pp_time g)
{
	struct vbase *b = z->rec_into;

	if (pp_grow((void **)&b->rec, &b->cap, b->nrec + 1, sizeof(*b->rec), NULL) != 0) {
		b->usable = false;
		z->rec_into = NULL;
		return;
	}
	b->rec[b->nrec++] = (struct vrec){z->round, d, kind, g};
}

/* The largest idle time device d is measured against: the pass's, or its allowance's. */
static inline pp_time max_stage_bubble(const struct vpass *z, int d)
{
	pp_time x = z->max_bubble;

	if (z->approved != NULL && z->max_approved - z->approved[d] > x)
		x = z->max_approved - z->approved[d];
	return x;
}

/* The op each kind follows on its own device (F of chunk 0 before chunk 1's, a B after its F,
 * W after its B), or -1; and the step to the device its input comes from (F of chunk 0 and B
 * of the first backward chunk come down from d - 1, the others up from d + 1), 0 for W's. */
static const int before_of[VKINDS] = {-1, VF0, VF1, VB0, VB0, VB1};
static const int input_step[VKINDS] = {-1, 1, -1, 1, 0, 0};

/* Whether the next op of kind (of mb) may run on device d: room for its activations, and the
 * op before it on this device run; else the pass fails. */
static inline bool may_put(struct vpass *z, const struct vdev *v, int kind, int mb)
{
	if (halted(z))
		return false;
	if (mb >= z->m || v->mem + v->dmem[kind] > v->limit ||
	    (kind != VF0 && v->count[before_of[kind]] <= mb)) {
		z->failed = true;
		return false;
	}
	return true;
}

/* Puts the op of kind of mb, ending at t, on device v, whose idle time grows by gap (none
 * before its first F). */
static inline void place(struct vpass *z, struct vdev *v, int kind, int mb, pp_time t, pp_time gap)
{
	if (gap > 0 && (kind != VF0 || mb > 0)) {
		v->bubble += gap;
		if (v->bubble > z->max_bubble) {
			z->max_bubble = v->bubble;
			if (z->max_bubble >= z->stop_at)
				z->stopped = true;
			if (z->rec_into != NULL)
				record(z, VREC_MAX, (int)(v - z->dev), z->max_bubble);
		}
	}
	v->cur = t;
	v->mem += v->dmem[kind];
	v->kinds[v->n++] = (uint8_t)kind;
	v->count[kind] = mb + 1;
}

/* Appends the next F or B (kind below VKEPT) to device d at the earliest time its input from
 * device e (none when e is out of range) and the device allow; in is the end of that input, or
 * -1 when it has not run. */
static PP_HOT void put_fb_after(struct vpass *z, int kind, int d, int e, pp_time in)
{
	struct vdev *v = &z->dev[d];
	int mb = v->count[kind];
	pp_time no_bubble = v->cur + z->cost[kind], t = no_bubble;

	if (!may_put(z, v, kind, mb))
		return;
	if (e >= 0 && e < z->p) {
		if (in < 0) {
			z->failed = true;
			return;
		}
		if (in + z->pr->comm + z->cost[kind] > t)
			t = in + z->pr->comm + z->cost[kind];
	}
	z->end[(size_t)mb * z->row + (size_t)d * VKEPT + (size_t)kind] = t;
	if (kind >= VB0)
		v->pending[v->ptail++] = (uint8_t)(kind - VB0);
	place(z, v, kind, mb, t, t - no_bubble);
}

/* The end of the input of the next op of kind (below VKEPT) on device d from device e, or -1
 * when it has not run; with e out of range, the end the authors read instead (their index
 * -1: the last device's last W of chunk 0). */
static inline pp_time input_end(const struct vpass *z, int kind, int d, int e)
{
	return e >= 0 && e < z->p ? end_of(z, kind, e, z->dev[d].count[kind]) : z->last_w1;
}

/* put_fb_after of the next op of kind on device d after its input. */
static void put_fb(struct vpass *z, int kind, int d)
{
	int e = d + input_step[kind];

	put_fb_after(z, kind, d, e, input_end(z, kind, d, e));
}

static inline bool has_pending(const struct vpass *z, int d)
{
	return z->dev[d].phead < z->dev[d].ptail;
}

/* Runs device d's oldest pending W, which waits for nothing but its device. */
static PP_HOT void put_w(struct vpass *z, int d)
{
	struct vdev *v = &z->dev[d];
	int kind = VW0 + v->pending[v->phead++], mb = v->count[kind];
	pp_time t = v->cur + z->cost[VW0];

	if (!may_put(z, v, kind, mb))
		return;
	if (kind == VW1 && mb == z->m - 1 && d == z->p - 1)
		z->last_w1 = t;
	place(z, v, kind, mb, t, 0);
}

/* W's before the op of kind on device d whose input is the op on device e ending at in (e out
 * of range: none): every W that fits the gap, and one more when the gap would make d's idle
 * time the largest and more is true. */
static PP_HOT void fill_gap(struct vpass *z, int kind, int d, int e, pp_time in, bool more)
{
	pp_time c = z->pr->comm;

	/* a W of either chunk costs t[2] */
	while (!halted(z) && has_pending(z, d) && e >= 0 && e < z->p &&
	       in + c >= z->dev[d].cur + z->cost[VW0])
		put_w(z, d);
	if (!halted(z) && has_pending(z, d) &&
	    in + c - z->dev[d].cur > max_stage_bubble(z, d) - z->dev[d].bubble) {
		if (z->rec_into != NULL)
			record(z, kind, d, in + c - z->dev[d].cur + z->dev[d].bubble);
		/* a B of the backward's first chunk fills whatever fill_b says */
		if (kind != VB1)
			z->consulted |= kind == VB0 ? ZBV_FILL_B : ZBV_FILL_F;
		if (more)
			put_w(z, d);
	}
}

/* The next op of kind on device d after the W's that fill the gap before its input (more:
 * fill_gap's). */
static PP_HOT void put_after_gap(struct vpass *z, int kind, int d, bool more)
{
	int e = d + input_step[kind];
	pp_time in = input_end(z, kind, d, e);

	fill_gap(z, kind, d, e, in, more);
	put_fb_after(z, kind, d, e, in);
}

void sched_zbv_warm_up(struct vpass *z)
{
	int p = z->p, m = z->m, chunk = 0;

	for (int d = 0; d < p; d++)
		put_fb(z, VF0, d);
	for (int d = p - 1; d >= 0 && !halted(z); d--) {
		pp_time back;

		if (d == p - 1) {
			put_fb(z, VF1, d);
			continue;
		}
		back = end_of(z, VF1, d + 1, 0) + z->pr->comm;
		while (!halted(z) &&
		       z->dev[d].mem + z->pr->act[d] * (2 + 2 * (int64_t)d) <= z->pr->limit[d] &&
		       z->dev[d].cur + cost_of(z, VF0) <= back && z->dev[d].count[VF0] < m)
			for (int j = 0; j <= d; j++)
				put_fb(z, VF0, j);
		put_fb(z, VF1, d);
	}
	for (int d = 1; d < p && !halted(z); d++) {
		const int *c = z->dev[d].count, *prev = z->dev[d - 1].count;

		/* ends: each turn puts an op on device d while the condition holds (or fails) */
		while (!halted(z) && (c[VF0] + c[VF1] < prev[VF0] + prev[VF1] ||
		                      (c[VF1] <= prev[VF1] && prev[VF1] < m))) {
			for (int j = p - 1; j >= d; j--)
				if (z->dev[j].count[VF0 + chunk] < m)
					put_fb(z, VF0 + chunk, j);
			chunk = 1 - chunk;
		}
	}
}

/* Whether device d takes a B of the backward's second chunk this round. */
static inline bool second_chunk_b(const struct vpass *z, int d)
{
	const int *c = z->dev[d].count;

	return c[VB1] < c[VB0] &&
	       (d == z->p - 1 || z->dev[d + 1].count[VB1] > c[VB1] || c[VB0] >= z->m);
}

/* One B on every device, in the authors' order. */
static void round_of_b(struct vpass *z)
{
	int p = z->p, n1 = 0, others = p, *order = z->order;

	/* the devices taking the second chunk, from the last down, then the others from the
	 * first up (placed from the end down) */
	for (int d = p - 1; d >= 0; d--)
		if (second_chunk_b(z, d))
			order[n1++] = d;
		else
			order[--others] = d;
	for (int k = 0; k < p && !halted(z); k++) {
		int d = order[k], kind = k < n1 ? VB1 : VB0;

		/* a B frees activations, so the authors' room-making before it never runs W's */
		put_after_gap(z, kind, d, kind == VB1 || z->fill_b);
	}
}

/* One F on every device that has forwards left and an input for one. */
static void round_of_f(struct vpass *z)
{
	for (int d = 0; d < z->p && !halted(z); d++) {
		const int *c = z->dev[d].count;
		int kind = -1;

		if (c[VF1] >= z->m)
			continue;
		if (c[VF1] >= c[VF0])
			kind = VF0;
		else if (d == z->p - 1 || z->dev[d + 1].count[VF1] > c[VF1])
			kind = VF1;
		else if (c[VF0] < z->m && (d == 0 || z->dev[d - 1].count[VF0] > c[VF0]))
			kind = VF0;
		if (kind < 0)
			continue;
		while (!halted(z) && z->dev[d].mem + z->dev[d].dmem[kind] > z->dev[d].limit) {
			if (!has_pending(z, d)) {
				z->failed = true;
				return;
			}
			put_w(z, d);
		}
		put_after_gap(z, kind, d, z->fill_f);
	}
}

/* Readies z for a pass of chain z->k with the allowances (NULL: none), stopping once its
 * largest idle time reaches stop_at, from the beginning. */
void sched_zbv_setup(struct vpass *z, const pp_time *approved, pp_time stop_at)
{
	int flags = ZBV_CHAINS - 1 - z->k;

	for (int d = 0; d < z->p; d++) {
		struct vdev *v = &z->dev[d];

		*v = (struct vdev){.limit = z->pr->limit[d],
		                   .kinds = z->kinds + (size_t)d * 6 * (size_t)z->m,
		                   .pending = z->pending + (size_t)d * 2 * (size_t)z->m};
		for (int kind = 0; kind < VKINDS; kind++)
			v->dmem[kind] = mem_of(z, kind, d);
	}
	for (int kind = 0; kind < VKINDS; kind++)
		z->cost[kind] = cost_of(z, kind);
	z->row = (size_t)z->p * VKEPT;
	z->round = -1;
	z->fill_b = flags & ZBV_FILL_B;
	z->fill_f = flags & ZBV_FILL_F;
	z->approved = approved;
	z->max_approved = -1;
	for (int d = 0; approved != NULL && d < z->p; d++)
		if (approved[d] > z->max_approved)
			z->max_approved = approved[d];
	z->max_bubble = 0;
	z->stop_at = stop_at;
	z->last_w1 = -1;
	z->failed = false;
	z->stopped = stop_at <= 0;
}

/* Keeps the devices' state at the start of round r in the base pass's snapshot. */
static void snapshot(struct vpass *z, int r)
{
	struct vbase *b = z->rec_into;
	int i = r / ZBV_SNAP_ROUNDS;

	for (int d = 0; d < z->p; d++)
		memcpy(b->snap + ((size_t)i * (size_t)z->p + (size_t)d) * VDEV_STATE, &z->dev[d],
		       VDEV_STATE);
	b->snap_max[i] = z->max_bubble;
	b->snap_w1[i] = z->last_w1;
}

/* Runs the pass from round r0 on, then the remaining W's; false when it fails or stops. */
bool sched_zbv_rounds(struct vpass *z, int r0)
{
	for (int r = r0; r < 2 * z->m && !halted(z); r++) {
		z->round = r;
		if (z->rec_into != NULL && r % ZBV_SNAP_ROUNDS == 0)
			snapshot(z, r);
		if (z->consulted != z->told) {
			z->told = z->consulted;
			sched_variant_note(&z->sh->var, z->k, z->told);
		}
		if (sched_variant_same(&z->sh->var, z->k))
			z->stopped = true;
		round_of_b(z);
		round_of_f(z);
	}
	for (int d = 0; d < z->p && !halted(z); d++)
		while (!halted(z) && has_pending(z, d))
			put_w(z, d);
	for (int d = 0; d < z->p && !halted(z); d++)
		if (z->dev[d].n != 6 * z->m)
			z->failed = true;
	return !halted(z);
}

/* Starts z, set up, from the base's snapshot i: the devices' states, and of the base's arrays
 * what the pass goes on from. A pass reads the end of an op of kind of mb only while its own
 * count of that kind is mb, so of the ends it needs those from the lowest count there up. */
void sched_zbv_resume(struct vpass *z, const struct vbase *b, int i)
{
	const struct vpass *bz = b->z;
	int split = INT_MAX, top = 0;

	for (int d = 0; d < z->p; d++) {
		struct vdev *v = &z->dev[d];

		memcpy(v, b->snap + ((size_t)i * (size_t)z->p + (size_t)d) * VDEV_STATE,
		       VDEV_STATE);
		for (int kind = 0; kind < VKEPT; kind++) {
			split = v->count[kind] < split ? v->count[kind] : split;
			top = v->count[kind] > top ? v->count[kind] : top;
		}
		memcpy(v->kinds, bz->dev[d].kinds, (size_t)v->n);
		memcpy(v->pending + v->phead, bz->dev[d].pending + v->phead,
		       (size_t)(v->ptail - v->phead));
	}
	if (top > split)
		memcpy(z->end + (size_t)split * z->row, bz->end + (size_t)split * z->row,
		       (size_t)(top - split) * z->row * sizeof(*z->end));
	z->max_bubble = b->snap_max[i];
	z->last_w1 = b->snap_w1[i];
}
