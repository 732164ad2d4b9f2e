/*
 * ZB-V (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, section 6 and Figure 8), in
 * the order of PyTorch's ScheduleZBVZeroBubble, which implements that section: V placement
 * (device d hosts stages d and 2p-1-d, so the turn from stage p-1 to stage p stays on device
 * p-1), backward split into B and W. Device d runs 2(p-d)-1 forwards of chunk 0, then d pairs
 * (F of chunk 1, F of chunk 0), then p-d groups (F, B, W) of chunk 1, then steady steps
 * (F of chunk 0 while any remain, B and W of chunk 0, F, B and W of chunk 1), then d pairs of B
 * (chunk 0, chunk 1), then p-d pairs (B, W) of chunk 0, then its remaining W's of chunk 1 and of
 * chunk 0. The order is laid out for max(2p-1, m) micro-batches; ops of the micro-batches
 * beyond m are left out. The paper's figure takes the final W's in the order of their B's; PyTorch
 * groups them by chunk, as here.
 *
 * With m >= 2p-1 (with t_w = t_f, m >= (3p-1)/2), t_f = t_b and t_f/2 <= t_w <= t_f (chunk
 * times) one step takes
 * 2m(t_f+t_b+t_w) + (p-1)t_f, and each device holds at most min(p, m) micro-batches'
 * activations.
 */
#include <math.h>

#include "generators.h"

int sched_zbv_generate(struct sched *s)
{
	int p = s->p, n = 2 * p - 1 > s->m ? 2 * p - 1 : s->m;

	for (int d = 0; d < p; d++) {
		struct sched_run r = sched_run_start(s, d);

		sched_run_ops(&r, "F", 2 * (p - d) - 1);
		sched_run_ops(&r, "fF", d);
		sched_run_ops(&r, "fbw", p - d);
		/* PyTorch's steady loop runs while chunk 0 has forwards left (of its n), then until
		 * chunk 1's forwards catch up with chunk 0's: p-d-1 steps without the forward */
		sched_run_ops(&r, "FBWfbw", n - (2 * p - d - 1));
		sched_run_ops(&r, "BWfbw", p - d - 1);
		sched_run_ops(&r, "Bb", d);
		sched_run_ops(&r, "BW", p - d);
		sched_run_ops(&r, "w", sched_run_left(&r, 1, OP_W));
		sched_run_ops(&r, "W", sched_run_left(&r, 0, OP_W));
	}
	return 0;
}

/* The order is laid out for max(2p-1, m) micro-batches on each device, six ops each, at about
 * a sixteenth of a simulated op's cost apiece. */
uint64_t sched_zbv_work(int p, int v, int m)
{
	uint64_t n = 2 * (uint64_t)p - 1 > (uint64_t)m ? 2 * (uint64_t)p - 1 : (uint64_t)m;

	(void)v;
	return (uint64_t)p * n * 6 / 16;
}

double sched_zbv_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                        double overlap)
{
	long double bubble = (long double)(sp->p - 1) * t_f;

	(void)overlap;
	/* from m >= 2p-1; with t_w = t_f already from m >= (3p-1)/2 */
	if ((sp->m < 2 * sp->p - 1 && !(t_w == t_f && 2 * sp->m >= 3 * sp->p - 1)) || t_f != t_b ||
	    t_w > t_f || 2 * t_w < t_f)
		return NAN;
	return pp_ratio(bubble, 2.0L * sp->m * (t_f + t_b + t_w) + bubble);
}

double sched_zbv_peak(const struct sched_params *sp, int d)
{
	(void)d;
	return sp->m < sp->p ? sp->m : sp->p;
}
