/*
 * ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, Figure 3 top), in the order
 * of the authors' handcrafted generator (sail-sg/zero-bubble-pipeline-parallelism,
 * zbpp_light auto_schedule): 1F1B with each backward split into B (input gradient) then W
 * (weight gradient), except that device d delays its first d W's, which run at the very end.
 * Micro-batches are taken in ascending order; W follows its B's order. With m >= p and t_w
 * no longer than t_f or t_b the bubble is (p-1)(t_f+t_b-t_w); every device holds at most p
 * micro-batches' activations.
 */
#include <math.h>

#include "generators.h"

void sched_zbh1_generate(struct sched *s)
{
	for (int d = 0; d < s->p; d++) {
		int w = s->p - d - 1 < s->m ? s->p - d - 1 : s->m, rem = s->m - w;
		int f = 0, b = 0, wt = 0;

		while (f < w)
			sched_push(s, d, OP_F, f++, d);
		for (int i = 0; i < rem; i++) {
			sched_push(s, d, OP_F, f++, d);
			sched_push(s, d, OP_B, b++, d);
			if (i >= d)
				sched_push(s, d, OP_W, wt++, d);
		}
		for (int i = 0; i < w; i++) {
			sched_push(s, d, OP_B, b++, d);
			if (rem + i >= d)
				sched_push(s, d, OP_W, wt++, d);
		}
		while (wt < s->m)
			sched_push(s, d, OP_W, wt++, d);
	}
}

double sched_zbh1_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                         double overlap)
{
	(void)overlap;
	double bubble = (sp->p - 1) * (t_f + t_b - t_w);

	/* the bound holds when W fits in the slots B and F leave (checked against the engine over
	 * a grid of shapes and costs); when W outlasts F or B, W's pile up and it does not */
	if (sp->m < sp->p || t_w > t_b || t_w > t_f)
		return NAN;
	return bubble / (sp->m * (t_f + t_b + t_w) + bubble);
}

double sched_zbh1_peak(const struct sched_params *sp, int d)
{
	(void)d;
	return sp->p;
}
