/*
 * GPipe (Huang et al. 2019), in the order of PyTorch's ScheduleGPipe: every device runs all m
 * forwards in micro-batch order, then all m fused backwards in micro-batch order. All m
 * micro-batches' activations are alive at the turn, so peak activations are m. Also the closed
 * form both flush schedules (GPipe and 1F1B) share, and that peak, which looped BFS shares.
 */
#include "generators.h"

int sched_gpipe_generate(struct sched *s)
{
	for (int d = 0; d < s->p; d++) {
		struct sched_run r = sched_run_start(s, d);

		sched_run_ops(&r, "F", s->m);
		sched_run_ops(&r, "X", s->m);
	}
	return 0;
}

double sched_peak_all(const struct sched_params *sp, int d)
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
