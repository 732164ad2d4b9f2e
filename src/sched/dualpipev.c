/*
 * DualPipeV (DeepSeek's DualPipe "cut in half", after Sea AI Lab), in the order of DeepSeek's
 * dualpipe/dualpipev.py (DualPipeV.step), op for op (tests/golden/dualpipe-reference/
 * dualpipev.txt), which PyTorch's ScheduleDualPipeV follows step for step: V placement, and an
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
 * These are DualPipe's eight steps (dualpipe.c, sched_dualpipe_steps) on p devices, with the
 * two chunks of a device for DualPipe's two copies of a stage.
 * It needs m >= 2p. DeepSeek publishes its bubble as (PP/2-1)(F&B+B-3W) for PP = 2p stages,
 * (p-1)(t_fb + t_b + t_w - 3t_w) here, which the simulation matches when t_f = t_b >= t_w.
 */
#include <math.h>
#include <stdlib.h>

#include "generators.h"

int sched_dualpipev_generate(struct sched *s)
{
	int p = s->p, m = s->m;
	/* the W queue, emptied by each device before the next one starts */
	int *wq = pp_mallocarray(2 * (size_t)m, sizeof(*wq));

	if (wq == NULL)
		return -1;
	s->mixed = true;
	for (int d = 0; d < p; d++) {
		struct sched_dualpipe_dev dv = {
		        d, p, d, m, {sched_stage_of(s, d, 0), sched_stage_of(s, d, 1)}, {0, 0}};

		sched_dualpipe_steps(s, &dv, wq);
	}
	free(wq);
	return 0;
}

/* Ops of device d: every (micro-batch, chunk) has F and a backward; d+1 + 2(p-d-1) backwards
 * are split and add a W. */
size_t sched_dualpipev_ops_on(int p, int m, int d)
{
	return sched_dualpipe_steps_ops(p, m, d);
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
	/* a pair takes overlap x (F + B) rounded to a tick, as the engine runs it */
	long double full = (long double)t_b + t_w,
	            fb = overlap == 1 ? t_f + full : (long double)llround(overlap * (t_f + full)),
	            busy = 0, makespan;
	int p = sp->p, m = sp->m;

	/* it holds when a pair's slot is at least as long as its longer part */
	if (t_f != t_b || t_w > t_b || fb < (t_f > full ? t_f : full))
		return NAN;
	/* the last device runs the most pairs; its idle time is DeepSeek's bubble */
	makespan = 2.0L * m * (t_f + full) - (2.0L * m - 2 * p - 1) * (t_f + full - fb) +
	           (long double)(p - 1) * (fb + full - 3 * t_w);
	for (int d = 0; d < p; d++) {
		int pairs = 2 * (m - 2 * p + d + 1) + (p - d - 1) - (d == p - 1);

		busy += 2.0L * m * (t_f + full) - pairs * (t_f + full - fb);
	}
	/* 1 - busy / (p makespan), as one quotient */
	return pp_ratio(p * makespan - busy, p * makespan);
}

double sched_dualpipev_peak(const struct sched_params *sp, int d)
{
	(void)d;
	return (2.0 * sp->p + 1) / 2;
}
