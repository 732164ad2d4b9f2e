/*
 * Looped breadth-first (Lamy-Poirier 2022), in the order of PyTorch's ScheduleLoopedBFS: device
 * d hosts chunks c = 0..v-1 as stages c*p + d, runs every micro-batch's forward through chunk
 * 0, then chunk 1, ..., and then the fused backwards with the chunks and the micro-batches both
 * in reverse. Every forward runs before any backward, so all m micro-batches are alive at the
 * turn, as in GPipe; with uniform costs one step takes (v max(m,p) + min(m,p) - 1)(t_f + t_b)
 * in chunk times.
 */
#include <math.h>

#include "generators.h"

int sched_loopedbfs_generate(struct sched *s)
{
	for (int d = 0; d < s->p; d++) {
		for (int c = 0; c < s->v; c++)
			for (int mb = 0; mb < s->m; mb++)
				sched_push(s, d, OP_F, mb, sched_stage_of(s, d, c));
		for (int c = s->v - 1; c >= 0; c--)
			for (int mb = s->m - 1; mb >= 0; mb--)
				sched_push(s, d, OP_BW, mb, sched_stage_of(s, d, c));
	}
	return 0;
}

double sched_loopedbfs_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                              double overlap)
{
	double hi = sp->m > sp->p ? sp->m : sp->p, lo = sp->m < sp->p ? sp->m : sp->p;

	(void)t_f;
	(void)t_b;
	(void)t_w;
	(void)overlap;
	/* 1 - m v / (v hi + lo - 1), as one quotient */
	return pp_ratio((long double)sp->v * hi + lo - 1 - (long double)sp->m * sp->v,
	                (long double)sp->v * hi + lo - 1);
}
