/*
 * DualPipeV (DeepSeek's DualPipe "cut in half", after Sea AI Lab), in the order of PyTorch's
 * ScheduleDualPipeV, which follows DeepSeek's dualpipev.py step for step: V placement, and an
 * overlapped pair (F of one chunk ; full backward of the other) as one slot lasting
 * overlap_factor x (F + B). Some backwards run fused (BW), the last ones split into an input
 * gradient (B, drawn I) whose W waits in a first-in-first-out queue, so the schedule mixes both.
 * Device d (chunk 0 is stage d, chunk 1 is stage 2p-1-d), with "W" the oldest pending W:
 *   1. 2(p-d-1) forwards of chunk 0
 *   2. d+1 pairs of forwards (chunk 0, chunk 1)
 *   3. p-d-1 groups (B of chunk 1, W, F of chunk 1)
 *   4. m-2p+d+1 steps: (F chunk 0 ; BW chunk 1), then (F chunk 1 ; BW chunk 0), the very
 *      first pair of the last device run one after the other
 *   5. p-d-1 groups: BW of chunk 1, then (F chunk 1 ; BW chunk 0)
 *   6. d+1 pairs of backwards (chunk 1, chunk 0), fused in the first half and split after
 *      (odd devices switch before the chunk-1 backward, even ones before the chunk-0 one)
 *   7. p-d-1 pairs (W, B of chunk 0)
 *   8. d+1 W's
 * It needs m >= 2p. DeepSeek publishes its bubble as (PP/2-1)(F&B+B-3W) for PP = 2p stages,
 * (p-1)(t_fb + t_b + t_w - 3t_w) here, which the simulation matches when t_f = t_b >= t_w.
 */
#include <math.h>
#include <stdlib.h>

#include "generators.h"

/* Per-device state: next micro-batch per chunk for F and for backwards, and the W queue. */
struct dpv_state {
	struct sched *s;
	int d;
	int f[2], b[2]; /* next forward / backward micro-batch per chunk */
	int *wq;        /* pending W's: chunk * m + micro-batch, first in first out */
	int whead, wtail;
};

static int stage(const struct dpv_state *z, int c)
{
	return sched_stage_of(z->s, z->d, c);
}

static void fwd(struct dpv_state *z, int c)
{
	sched_push(z->s, z->d, OP_F, z->f[c]++, stage(z, c));
}

/* A backward of chunk c: fused, or split with its W queued. */
static void bwd(struct dpv_state *z, int c, bool split)
{
	int mb = z->b[c]++;

	sched_push(z->s, z->d, split ? OP_B : OP_BW, mb, stage(z, c));
	if (split)
		z->wq[z->wtail++] = c * z->s->m + mb;
}

/* The oldest pending W, if any. */
static void wgt(struct dpv_state *z)
{
	int x;

	if (z->whead == z->wtail)
		return;
	x = z->wq[z->whead++];
	sched_push(z->s, z->d, OP_W, x % z->s->m, stage(z, x / z->s->m));
}

/* An overlapped pair: F of chunk fc with the fused backward of chunk bc. */
static void pair(struct dpv_state *z, int fc, int bc)
{
	sched_push_pair(z->s, z->d, z->f[fc]++, stage(z, fc), OP_BW, z->b[bc]++, stage(z, bc));
}

int sched_dualpipev_generate(struct sched *s)
{
	int p = s->p, m = s->m;
	/* the W queue, emptied by each device before the next one starts */
	int *wq = pp_mallocarray(2 * (size_t)m, sizeof(*wq));

	if (wq == NULL)
		return -1;
	s->mixed = true;
	for (int d = 0; d < p; d++) {
		struct dpv_state z = {s, d, {0, 0}, {0, 0}, wq, 0, 0};
		bool zb = false;

		for (int i = 0; i < 2 * (p - d - 1); i++)
			fwd(&z, 0);
		for (int i = 0; i < d + 1; i++) {
			fwd(&z, 0);
			fwd(&z, 1);
		}
		for (int i = 0; i < p - d - 1; i++) {
			bwd(&z, 1, true);
			wgt(&z);
			fwd(&z, 1);
		}
		for (int i = 0; i < m - 2 * p + d + 1; i++) {
			if (i == 0 && d == p - 1) {
				fwd(&z, 0);
				bwd(&z, 1, false);
			} else {
				pair(&z, 0, 1);
			}
			pair(&z, 1, 0);
		}
		for (int i = 0; i < p - d - 1; i++) {
			bwd(&z, 1, false);
			pair(&z, 1, 0);
		}
		for (int i = 0; i < d + 1; i++) {
			if (i == (d + 1) / 2 && d % 2 == 1)
				zb = true;
			bwd(&z, 1, zb);
			if (i == (d + 1) / 2 && d % 2 == 0)
				zb = true;
			bwd(&z, 0, zb);
		}
		for (int i = 0; i < p - d - 1; i++) {
			wgt(&z);
			bwd(&z, 0, true);
		}
		for (int i = 0; i < d + 1; i++)
			wgt(&z);
	}
	free(wq);
	return 0;
}

/* Ops of device d: every (micro-batch, chunk) has F and a backward; d+1 + 2(p-d-1) backwards
 * are split and add a W. */
size_t sched_dualpipev_ops_on(int p, int m, int d)
{
	return 4 * (size_t)m + (size_t)(d + 1) + 2 * (size_t)(p - d - 1);
}

int sched_dualpipev_check(const struct sched_params *sp, const char **key, struct pp_error *err)
{
	*key = "m";
	if (sp->m >= 2 * sp->p)
		return 0;
	return pp_fail(err, PP_ERR_USAGE, "dualpipev needs at least 2p = %d micro-batches",
	               2 * sp->p);
}

double sched_dualpipev_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                              double overlap)
{
	double full = t_b + t_w, fb = overlap * (t_f + full), busy = 0, makespan;
	int p = sp->p, m = sp->m;

	/* it holds when a pair's slot is at least as long as its longer part */
	if (t_f != t_b || t_w > t_b || fb < (t_f > full ? t_f : full))
		return NAN;
	/* the last device runs the most pairs; its idle time is DeepSeek's bubble */
	makespan = 2.0 * m * (t_f + full) - (2.0 * m - 2 * p - 1) * (t_f + full - fb) +
	           (p - 1) * (fb + full - 3 * t_w);
	for (int d = 0; d < p; d++) {
		int pairs = 2 * (m - 2 * p + d + 1) + (p - d - 1) - (d == p - 1);

		busy += 2.0 * m * (t_f + full) - pairs * (t_f + full - fb);
	}
	return 1 - busy / (p * makespan);
}

double sched_dualpipev_peak(const struct sched_params *sp, int d)
{
	(void)d;
	return (2.0 * sp->p + 1) / 2;
}
