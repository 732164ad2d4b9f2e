/*
 * DualPipe (DeepSeek-V3 technical report, section 3.2.1), in the order of deepseek-ai/DualPipe's
 * dualpipe/dualpipe.py (DualPipe.step), op for op. Each of the p ranks (p even) holds two copies
 * of the model's stages: copy 0 puts stage i on rank i and runs micro-batches [0, m/2) from
 * rank 0 down to rank p-1; copy 1 puts stage i on rank p-1-i and runs [m/2, m) from rank p-1
 * up to rank 0. In ppsim's terms that is the V placement (rank d hosts stage d of copy 0 and
 * stage 2p-1-d, copy 1's stage p-1-d) with two routes: micro-batches [0, m/2) visit stages
 * [0, p), the rest [p, 2p) (struct sched).
 *
 * A rank in the second half (d >= p/2) runs the steps of its mirror rank p-1-d with the copies
 * swapped (dualpipe.py's phase ^= is_in_second_half), and rank d of a half runs the steps of
 * device d of DualPipeV on p/2 devices with m/2 micro-batches (DualPipeV is DualPipe "cut in
 * half"): sched_dualpipe_steps below, which dualpipev.c runs too, is dualpipe.py's eight steps
 * with its W queue. dualpipe.py asserts an even p and an even m of at least 2p; the overlapped
 * pairs are its _forward_backward_chunk (the model's overlapped_forward_backward), its middle
 * ranks' first main step runs its two chunks one after the other, and a split backward is an
 * enable_zb one, whose weight gradients WeightGradStore queues until a _weight_chunk.
 *
 * DeepSeek's README gives DualPipe's bubble as (PP/2-1)(F&B+B-3W) with PP = p ranks and B a
 * full backward (t_b + t_w here), 2x the parameters and PP+1 activations per rank: the peak of
 * every rank is p+1 chunks, a chunk being one micro-batch's activations through a stage, which
 * holds a p-th of the model like a stage of 1F1B on p devices.
 */
#include <stdlib.h>

#include "generators.h"

/* Per-device state of the steps: next micro-batch per chunk for F and for backwards, and the W
 * queue. */
struct dp_state {
	struct sched *s;
	const struct sched_dualpipe_dev *dv;
	int f[2], b[2]; /* next forward / backward micro-batch of each chunk, from 0 */
	int *wq;        /* pending W's: chunk * mbs + micro-batch, first in first out */
	int whead, wtail;
};

static void fwd(struct dp_state *z, int c)
{
	sched_push(z->s, z->dv->d, OP_F, z->dv->mb0[c] + z->f[c]++, z->dv->stage[c]);
}

/* A backward of chunk c: fused, or split with its W queued (dualpipe.py's enable_zb). */
static void bwd(struct dp_state *z, int c, bool split)
{
	int mb = z->b[c]++;

	sched_push(z->s, z->dv->d, split ? OP_B : OP_BW, z->dv->mb0[c] + mb, z->dv->stage[c]);
	if (split)
		z->wq[z->wtail++] = c * z->dv->mbs + mb;
}

/* The oldest pending W, if any (dualpipe.py's _weight_chunk: WeightGradStore.pop). */
static void wgt(struct dp_state *z)
{
	int x, c;

	if (z->whead == z->wtail)
		return;
	x = z->wq[z->whead++];
	c = x / z->dv->mbs;
	sched_push(z->s, z->dv->d, OP_W, z->dv->mb0[c] + x % z->dv->mbs, z->dv->stage[c]);
}

/* An overlapped pair: F of chunk fc with the fused backward of chunk bc. */
static void pair(struct dp_state *z, int fc, int bc)
{
	const struct sched_dualpipe_dev *dv = z->dv;

	sched_push_pair(z->s, dv->d, dv->mb0[fc] + z->f[fc]++, dv->stage[fc], OP_BW,
	                dv->mb0[bc] + z->b[bc]++, dv->stage[bc]);
}

void sched_dualpipe_steps(struct sched *s, const struct sched_dualpipe_dev *dv, int *wq)
{
	struct dp_state z = {s, dv, {0, 0}, {0, 0}, wq, 0, 0};
	int n = dv->half, r = dv->rank;
	bool zb = false;

	/* 1: nF0 */
	for (int i = 0; i < 2 * (n - r - 1); i++)
		fwd(&z, 0);
	/* 2: nF0F1 */
	for (int i = 0; i < r + 1; i++) {
		fwd(&z, 0);
		fwd(&z, 1);
	}
	/* 3: nB1W1F1, zero bubble */
	for (int i = 0; i < n - r - 1; i++) {
		bwd(&z, 1, true);
		wgt(&z);
		fwd(&z, 1);
	}
	/* 4: nF0B1F1B0, the main step; the middle ranks run their first two chunks apart */
	for (int i = 0; i < dv->mbs - 2 * n + r + 1; i++) {
		if (i == 0 && r == n - 1) {
			fwd(&z, 0);
			bwd(&z, 1, false);
		} else {
			pair(&z, 0, 1);
		}
		pair(&z, 1, 0);
	}
	/* 5: nB1F1B0 */
	for (int i = 0; i < n - r - 1; i++) {
		bwd(&z, 1, false);
		pair(&z, 1, 0);
	}
	/* 6: nB1B0, the second half of them split */
	for (int i = 0; i < r + 1; i++) {
		if (i == (r + 1) / 2 && r % 2 == 1)
			zb = true;
		bwd(&z, 1, zb);
		if (i == (r + 1) / 2 && r % 2 == 0)
			zb = true;
		bwd(&z, 0, zb);
	}
	/* 7: nWB0, zero bubble */
	for (int i = 0; i < n - r - 1; i++) {
		wgt(&z);
		bwd(&z, 0, true);
	}
	/* 8: nW */
	for (int i = 0; i < r + 1; i++)
		wgt(&z);
}

size_t sched_dualpipe_steps_ops(int half, int mbs, int rank)
{
	/* every (micro-batch, chunk) has F and a backward; r+1 + 2(n-r-1) backwards are split
	 * and add a W */
	return 4 * (size_t)mbs + (size_t)(rank + 1) + 2 * (size_t)(half - rank - 1);
}

/* Rank d's position in its half: dualpipe.py's half_rank. */
static int half_rank(int p, int d)
{
	return d < p - 1 - d ? d : p - 1 - d;
}

int sched_dualpipe_generate(struct sched *s)
{
	int p = s->p, mbs = s->m / 2;
	/* the W queue, emptied by each rank before the next one starts */
	int *wq = pp_mallocarray(2 * (size_t)mbs, sizeof(*wq));

	if (wq == NULL)
		return -1;
	assert(s->routes == 2 && s->placement == PLACE_V);
	s->mixed = true;
	for (int d = 0; d < p; d++) {
		/* the second half's phase 0 is copy 1 (dualpipe.py's phase ^= is_in_second_half) */
		int second = d >= p / 2;
		struct sched_dualpipe_dev dv = {d, p / 2, half_rank(p, d), mbs, {0, 0}, {0, 0}};

		for (int c = 0; c < 2; c++) {
			dv.stage[c] = sched_stage_of(s, d, c ^ second);
			dv.mb0[c] = (c ^ second) * mbs;
		}
		sched_dualpipe_steps(s, &dv, wq);
	}
	free(wq);
	return 0;
}

size_t sched_dualpipe_ops_on(int p, int m, int d)
{
	return sched_dualpipe_steps_ops(p / 2, m / 2, half_rank(p, d));
}

int sched_dualpipe_check(const struct sched_params *sp, const char **key, struct pp_error *err)
{
	*key = "p";
	if (sp->p % 2 != 0)
		return pp_fail(err, PP_ERR_USAGE,
		               "dualpipe needs an even p: ranks d and p-1-d hold the same stage of "
		               "its two copies of the model");
	*key = "m";
	if (sp->m % 2 != 0)
		return pp_fail(err, PP_ERR_USAGE,
		               "dualpipe needs an even m: half the micro-batches run each way");
	if (sp->m < 2 * sp->p)
		return pp_fail(err, PP_ERR_USAGE, "dualpipe needs at least 2p = %d micro-batches",
		               2 * sp->p);
	return 0;
}

double sched_dualpipe_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                             double overlap)
{
	/* DualPipeV's on p/2 devices and m/2 micro-batches: the middle ranks run what its last
	 * device runs, with the same op times, and idle as long */
	struct sched_params half = {sp->p / 2, 2, sp->m / 2, 0};

	return sched_dualpipev_theory(&half, t_f, t_b, t_w, overlap);
}

double sched_dualpipe_peak(const struct sched_params *sp, int d)
{
	(void)d;
	return sp->p + 1;
}
