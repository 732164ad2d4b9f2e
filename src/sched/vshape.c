/*
 * V-Half and V-Min, the zero-bubble authors' controllable-memory V schedules (Qi et al.,
 * "Pipeline Parallelism with Controllable Memory", NeurIPS 2024, arXiv 2405.15362), as their
 * Megatron-LM fork builds them (sail-sg/zero-bubble-pipeline-parallelism,
 * zerobubble/scheduler/zbv_greedy.py, PipelineGraph.schedule_from_pattern with reordering):
 * about 1/2 and 1/3 of 1F1B's activations, for a bubble of about 1/2 and 2/3 of 1F1B's when
 * F, B and W take the same time.
 *
 * Time is counted in slots of one op. Device d runs six kinds of op: F of chunk 0 (stage d)
 * and of chunk 1 (stage 2p-1-d), B of the backward's first chunk (chunk 1) and second chunk
 * (chunk 0), and W of each. The building block gives micro-batch k's F, F, B, B on device d the
 * slots o + 6k for the offsets o of the paper's repeating pattern:
 *   V-Min:  d, 2p-1-d, 2p+i+d, 4p+i-1-d            with i = 2 when 3 divides p, else 0
 *   V-Half: 2d, 3p-2-d, 3p+i+2d-1, 6p+i-2-d        with i = 3 when 2 divides p, else 0
 * Then
 *   1. W's go into the free slots, each as soon as a B has left one pending (the oldest
 *      first), the rest after the last op;
 *   2. "squeeze": taking ops in slot order, each op outside the steady phase (from the first
 *      chunk-0 B on device 0 to the last micro-batch's first F) moves to the earliest free
 *      slot after its inputs whose device's peak activations stay within the largest peak of
 *      any device; then every op starts as early as its device's order allows (one slot an op,
 *      free messages);
 *   3. the same squeeze without the W's, counting each pending W as run in the next free slot,
 *      for the ops after the steady phase;
 *   4. W's into the free slots again, now the oldest pending of the backward's first chunk
 *      before any of its second chunk.
 * Each device runs its ops in slot order. Activations count one chunk for an F, and W frees
 * what its F allocated: the bound on alive activations holds whatever share W keeps. The order
 * depends on no cost.
 */
#include <stdlib.h>
#include <string.h>

#include "generators.h"

/* Op kinds of a device, in the authors' order "FfBbWw": F of chunk 0 and 1, B of the
 * backward's first chunk (chunk 1) and second (chunk 0), W (one list before step 4, then one
 * per backward chunk). */
enum { TF0, TF1, TB0, TB1, TW0, TW1, TKINDS };

/* One device's op lists: slot of each op of each kind, in micro-batch order. */
struct vlane {
	int *slot[TKINDS]; /* [2m] each */
	int len[TKINDS];   /* ops in each list (0: the list is absent) */
	int *occ;     /* [nslots] kind * 2m + micro-batch index of the op in each slot, or -1 */
	int *alive;   /* [nslots] during a squeeze: chunks alive after each slot */
	int *pending; /* [nslots] and W's pending after it (no W list) */
};

/* The whole construction. */
struct vshape {
	int p, m, nslots;
	int ntypes; /* lists in use: 4, 5 (one W list) or 6 */
	struct vlane *lane;
	int *scratch; /* [2 nslots] states of a tried move */
};

#define FREE (-1)

static int last_slot(const struct vshape *v, const struct vlane *l)
{
	int x = -1;

	for (int t = 0; t < v->ntypes; t++)
		if (l->len[t] > 0 && l->slot[t][l->len[t] - 1] > x)
			x = l->slot[t][l->len[t] - 1];
	return x;
}

/* Rebuilds l->occ from its lists. */
static void occupy(const struct vshape *v, struct vlane *l)
{
	for (int i = 0; i < v->nslots; i++)
		l->occ[i] = FREE;
	for (int t = 0; t < v->ntypes; t++)
		for (int k = 0; k < l->len[t]; k++)
			l->occ[l->slot[t][k]] = t * 2 * v->m + k;
}

/* Step 1 or 4 on every device: W's into the free slots after the four first lists. */
static void put_w(struct vshape *v, bool split)
{
	for (int d = 0; d < v->p; d++) {
		struct vlane *l = &v->lane[d];
		int bound, pending[2] = {0, 0}, i;

		v->ntypes = 4;
		occupy(v, l);
		bound = last_slot(v, l);
		l->len[TW0] = l->len[TW1] = 0;
		for (i = 0; i <= bound; i++) {
			int t = l->occ[i] == FREE ? -1 : l->occ[i] / (2 * v->m);

			if (t == TB0 || t == TB1)
				pending[split ? t - TB0 : 0]++;
			else if (t < 0)
				for (int w = 0; w < 2; w++)
					if (pending[w] > 0) {
						l->slot[TW0 + w][l->len[TW0 + w]++] = i;
						pending[w]--;
						break;
					}
		}
		i = bound;
		for (int w = 0; w < 2; w++)
			while (pending[w] > 0) {
				l->slot[TW0 + w][l->len[TW0 + w]++] = ++i;
				pending[w]--;
			}
	}
	v->ntypes = split ? 6 : 5;
	for (int d = 0; d < v->p; d++)
		occupy(v, &v->lane[d]);
}

/* Back to the four lists of F's and B's. */
static void drop_w(struct vshape *v)
{
	v->ntypes = 4;
	for (int d = 0; d < v->p; d++) {
		v->lane[d].len[TW0] = v->lane[d].len[TW1] = 0;
		occupy(v, &v->lane[d]);
	}
}

/*
 * Activations of device l in chunks from its slots (l->occ): an F adds one, a W frees one;
 * with no W list, each free slot runs one pending W. Slot i changes the state (*alive,
 * *pending) as this says.
 */
static void step(const struct vshape *v, const struct vlane *l, int i, int *alive, int *pending)
{
	int t = l->occ[i] == FREE ? -1 : l->occ[i] / (2 * v->m);

	if (t == TF0 || t == TF1)
		++*alive;
	else if (t == TW0)
		--*alive;
	else if (t == TB0 || t == TB1)
		++*pending;
	else if (t < 0 && v->ntypes == 4 && *pending > 0) {
		--*alive;
		--*pending;
	}
}

/* Records l's state after each slot (l->alive, l->pending) and returns its peak. Free slots
 * after the last op only free activations, so the peak is that of the authors' count up to
 * the last op. */
static int profile(const struct vshape *v, struct vlane *l)
{
	int alive = 0, pending = 0, peak = 0;

	for (int i = 0; i < v->nslots; i++) {
		step(v, l, i, &alive, &pending);
		l->alive[i] = alive;
		l->pending[i] = pending;
		if (alive > peak)
			peak = alive;
	}
	return peak;
}

/*
 * After l->occ moved one op from slot from to the earlier slot to: whether l's activations
 * stay within limit. Only slots from to on change, and once the state after a slot from from
 * on equals the recorded one the rest does too; the slots before held within the limit. On
 * yes the record is updated.
 */
static bool keeps_within(const struct vshape *v, struct vlane *l, int from, int to, int limit)
{
	int alive = to > 0 ? l->alive[to - 1] : 0, pending = to > 0 ? l->pending[to - 1] : 0;
	int i;

	for (i = to; i < v->nslots; i++) {
		step(v, l, i, &alive, &pending);
		if (alive > limit)
			return false;
		if (i >= from && alive == l->alive[i] && pending == l->pending[i])
			break;
		v->scratch[2 * i] = alive;
		v->scratch[2 * i + 1] = pending;
	}
	for (int k = to; k < i; k++) {
		l->alive[k] = v->scratch[2 * k];
		l->pending[k] = v->scratch[2 * k + 1];
	}
	return true;
}

/* The k-th smallest (0-based) of the sorted arrays a[na] and b[nb], all values distinct. */
static int kth_of_two(const int *a, int na, const int *b, int nb, int k)
{
	/* the k+1 smallest are a[0..i-1] and b[0..k-i]: the least i with b[k-i] < a[i] */
	int lo = k + 1 - nb > 0 ? k + 1 - nb : 0, hi = k + 1 < na ? k + 1 : na, i, j;

	while (lo < hi) {
		i = (lo + hi) / 2;
		if (b[k - i] > a[i])
			lo = i + 1;
		else
			hi = i;
	}
	i = lo;
	j = k + 1 - i;
	if (i == 0)
		return b[j - 1];
	if (j == 0)
		return a[i - 1];
	return a[i - 1] > b[j - 1] ? a[i - 1] : b[j - 1];
}

/* The earliest slot the op (kind t, index k) of device d may take: one after its inputs. */
static int earliest(const struct vshape *v, int d, int t, int k)
{
	const struct vlane *l = &v->lane[d];
	int x = -1;

	if ((t == TF0 || t == TB0) && d > 0 && v->lane[d - 1].slot[t][k] > x)
		x = v->lane[d - 1].slot[t][k];
	if ((t == TF1 || t == TB1) && d + 1 < v->p && v->lane[d + 1].slot[t][k] > x)
		x = v->lane[d + 1].slot[t][k];
	if (t > TF0 && t < TW0 && l->slot[t - 1][k] > x)
		x = l->slot[t - 1][k];
	if (t == TW0) {
		int b = kth_of_two(l->slot[TB0], l->len[TB0], l->slot[TB1], l->len[TB1], k);

		if (b > x)
			x = b;
	}
	if (k > 0 && l->slot[t][k - 1] > x)
		x = l->slot[t][k - 1];
	return x + 1;
}

/*
 * Every op starts as early as its device's order (slot order) and inputs allow, one slot an op
 * and free messages; the lists get the new slots. Returns 0, or -1 when out of memory.
 */
static int squeeze_times(struct vshape *v)
{
	int p = v->p, m2 = 2 * v->m;
	int *last = pp_mallocarray((size_t)p, sizeof(*last));
	/* [device][kind][index] the slot after each op's, 0 before it is placed */
	int *end = pp_calloc((size_t)p * TKINDS * (size_t)m2, sizeof(*end));

	if (last == NULL || end == NULL) {
		free(last);
		free(end);
		return -1;
	}
	for (int d = 0; d < p; d++)
		last[d] = -1;
	/* the authors' global order: by slot, then device, then kind */
	for (int i = 0; i < v->nslots; i++)
		for (int d = 0; d < p; d++) {
			int o = v->lane[d].occ[i], t, k, x = 0;
			size_t here = (size_t)(d * TKINDS) * (size_t)m2, lane = TKINDS * (size_t)m2;

			if (o == FREE)
				continue;
			t = o / m2;
			k = o % m2;
			here += (size_t)(t * m2 + k);
			if ((t == TF0 || t == TB0) && d > 0 && end[here - lane] > x)
				x = end[here - lane];
			if ((t == TF1 || t == TB1) && d + 1 < p && end[here + lane] > x)
				x = end[here + lane];
			if (t > TF0 && t < TW0 && end[here - (size_t)m2] > x)
				x = end[here - (size_t)m2];
			if (k > 0 && end[here - 1] > x)
				x = end[here - 1];
			if (last[d] > x)
				x = last[d];
			end[here] = x + 1;
			last[d] = x + 1;
		}
	for (int d = 0; d < p; d++) {
		for (int t = 0; t < v->ntypes; t++)
			for (int k = 0; k < v->lane[d].len[t]; k++)
				v->lane[d].slot[t][k] =
				        end[(size_t)(d * TKINDS + t) * (size_t)m2 + (size_t)k] - 1;
		occupy(v, &v->lane[d]);
	}
	free(end);
	free(last);
	return 0;
}

/* Step 2 (with_w) or 3: the squeeze. Returns 0, or -1 when out of memory. */
static int reorder(struct vshape *v, bool with_w)
{
	int p = v->p, m2 = 2 * v->m, peak = 0, phase = 0;
	char *taken = pp_calloc((size_t)p * (size_t)v->nslots, 1);
	int *order = pp_mallocarray((size_t)p * (size_t)v->nslots, sizeof(*order)), n = 0;

	if (taken == NULL || order == NULL) {
		free(taken);
		free(order);
		return -1;
	}
	if (with_w)
		put_w(v, false);
	for (int d = 0; d < p; d++) {
		int x = profile(v, &v->lane[d]);

		if (x > peak)
			peak = x;
	}
	/* the ops in the order of their first slots: by slot, then device (then kind) */
	for (int i = 0; i < v->nslots; i++)
		for (int d = 0; d < p; d++)
			if (v->lane[d].occ[i] != FREE)
				order[n++] = d * v->nslots + i;
	for (int j = 0; j < n; j++) {
		int d = order[j] / v->nslots, at = order[j] % v->nslots;
		struct vlane *l = &v->lane[d];
		int o = l->occ[at], t = o / m2, k = o % m2, to = at;

		bool keep;

		/* the steady phase keeps its slots: from device 0's first chunk-0 B to the last
		 * micro-batch's first F, both included */
		if (t == TB1 && d == 0 && phase == 0)
			phase = 1;
		if (phase == 1) {
			keep = true;
			if (t == TF0 && k == v->m - 1)
				phase = 2;
		} else {
			keep = phase == 0 && !with_w;
		}
		if (!keep) {
			/* the first free slot after the inputs that keeps the peak */
			l->occ[at] = FREE;
			for (int s = earliest(v, d, t, k); s < at; s++) {
				if (taken[d * v->nslots + s])
					continue;
				l->occ[s] = o;
				l->slot[t][k] = s;
				if (keeps_within(v, l, at, s, peak)) {
					to = s;
					break;
				}
				l->occ[s] = FREE;
			}
			l->slot[t][k] = to;
			l->occ[to] = o;
		}
		taken[d * v->nslots + to] = 1;
	}
	free(order);
	free(taken);
	if (!with_w)
		put_w(v, false);
	return squeeze_times(v);
}

static void release(struct vshape *v)
{
	for (int d = 0; v->lane != NULL && d < v->p; d++) {
		for (int t = 0; t < TKINDS; t++)
			free(v->lane[d].slot[t]);
		free(v->lane[d].occ);
		free(v->lane[d].alive);
		free(v->lane[d].pending);
	}
	free(v->lane);
	free(v->scratch);
}

/* Lays out device d's building block: micro-batch k's F, F, B, B at off[] + 6k. */
static int lay_out(struct vshape *v, int d, const int off[4])
{
	struct vlane *l = &v->lane[d];
	size_t m2 = 2 * (size_t)v->m, ns = (size_t)v->nslots;

	for (int t = 0; t < TKINDS; t++)
		if ((l->slot[t] = pp_mallocarray(m2, sizeof(int))) == NULL)
			return -1;
	l->occ = pp_mallocarray(ns, sizeof(int));
	l->alive = pp_mallocarray(ns, sizeof(int));
	l->pending = pp_mallocarray(ns, sizeof(int));
	if (l->occ == NULL || l->alive == NULL || l->pending == NULL)
		return -1;
	for (int t = 0; t < 4; t++) {
		for (int k = 0; k < v->m; k++)
			l->slot[t][k] = off[t] + 6 * k;
		l->len[t] = v->m;
	}
	occupy(v, l);
	return 0;
}

/* Builds V-Half (half) or V-Min into s; returns 0, or -1 when out of memory. */
static int vshape_generate(struct sched *s, bool half)
{
	int p = s->p, m = s->m, rc = 0;
	/* room for the pattern's 6m slots, its p-wide ramps and the W's after the last op */
	struct vshape v = {p, m, 8 * m + 6 * p + 16, 4, NULL, NULL};

	v.lane = pp_calloc((size_t)p, sizeof(*v.lane));
	v.scratch = pp_mallocarray(2 * (size_t)v.nslots, sizeof(*v.scratch));
	if (v.lane == NULL || v.scratch == NULL)
		rc = -1;
	for (int d = 0; d < p && rc == 0; d++) {
		int off[4], i = half ? (p % 2 == 0 ? 3 : 0) : (p % 3 == 0 ? 2 : 0);

		if (half) {
			off[0] = 2 * d;
			off[1] = 3 * p - 2 - d;
			off[2] = 3 * p + i + 2 * d - 1;
			off[3] = 6 * p + i - 2 - d;
		} else {
			off[0] = d;
			off[1] = 2 * p - 1 - d;
			off[2] = 2 * p + i + d;
			off[3] = 4 * p + i - 1 - d;
		}
		rc = lay_out(&v, d, off);
	}
	if (rc == 0)
		rc = reorder(&v, true);
	if (rc == 0) {
		drop_w(&v);
		rc = reorder(&v, false);
	}
	if (rc != 0) {
		release(&v);
		return -1;
	}
	drop_w(&v);
	put_w(&v, true);
	for (int d = 0; d < p; d++) {
		const struct vlane *l = &v.lane[d];
		static const enum op_kind kinds[] = {OP_F, OP_F, OP_B, OP_B, OP_W, OP_W};
		/* chunk of each kind: F's as named, the backward's first chunk is chunk 1 */
		static const int chunks[] = {0, 1, 1, 0, 1, 0};

		for (int i = 0; i < v.nslots; i++)
			if (l->occ[i] != FREE) {
				int t = l->occ[i] / (2 * m), k = l->occ[i] % (2 * m);

				sched_push(s, d, kinds[t], k, sched_stage_of(s, d, chunks[t]));
			}
	}
	release(&v);
	return 0;
}

/* The squeeze keeps a table of 8m + 6p + 16 slots per device and passes over it: one slot costs
 * about an op's worth. */
uint64_t sched_vshape_work(int p, int v, int m)
{
	(void)v;
	return (uint64_t)p * (8 * (uint64_t)m + 6 * (uint64_t)p + 16);
}

int sched_vhalf_generate(struct sched *s)
{
	return vshape_generate(s, true);
}

int sched_vmin_generate(struct sched *s)
{
	return vshape_generate(s, false);
}

double sched_vhalf_peak(const struct sched_params *sp, int d)
{
	int x = sp->p / 2 + 1;

	(void)d;
	return x < sp->m ? x : sp->m;
}

double sched_vmin_peak(const struct sched_params *sp, int d)
{
	int x = (sp->p + 1) / 3 + 1;

	(void)d;
	return x < sp->m ? x : sp->m;
}
