/*
 * GPipe (Huang et al. 2019), in the order of PyTorch's ScheduleGPipe: every device runs all m
 * forwards in micro-batch order, then all m fused backwards in micro-batch order. All m
 * micro-batches' activations are alive at the turn, so peak activations are m.
 */
#include "generators.h"

void sched_gpipe_generate(struct sched *s)
{
	for (int d = 0; d < s->p; d++) {
		for (int mb = 0; mb < s->m; mb++)
			sched_push(s, d, OP_F, mb, d);
		for (int mb = 0; mb < s->m; mb++)
			sched_push(s, d, OP_BW, mb, d);
	}
}

double sched_gpipe_peak(const struct sched_params *sp, int d)
{
	(void)d;
	return sp->m;
}

double sched_flush_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                          double overlap)
{
	(void)overlap;
	(void)t_f;
	(void)t_b;
	(void)t_w;
	return (double)(sp->p - 1) / (double)(sp->m + sp->p - 1);
}
