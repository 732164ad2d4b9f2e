/*
 * ZB-H2 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, Figure 3 bottom). The
 * authors publish no generator for the handcrafted ZB-H2; this order generalizes the figure's
 * rows (its first and last devices match them op for op): device d runs 2(p-d)-1 warm-up
 * forwards, then 2d pairs (B, F), then (B, W, F) steps while forwards remain, then (B, W), then
 * its leftover W's, all in ascending micro-batch order. It needs m >= 2p-1, holds at most 2p-1
 * micro-batches' activations, and keeps every device busy from its first op to its last when
 * t_f = t_b = t_w. With t_w <= t_f one iteration takes m(t_f+t_b+t_w) + (p-1)max(t_f,
 * t_f+t_b-2t_w): the paper's bubble (p-1)(t_f+t_b-2t_w) wherever t_b >= 2t_w, and never less
 * than the (p-1)t_f it takes the first forward to reach the last device.
 */
#include <math.h>

#include "generators.h"

int sched_zbh2_check(const struct sched_params *sp, const char **key, struct pp_error *err)
{
	*key = "m";
	if (sp->m >= 2 * sp->p - 1)
		return 0;
	return pp_fail(err, PP_ERR_USAGE, "zbh2 needs at least 2p-1 = %d micro-batches",
	               2 * sp->p - 1);
}

int sched_zbh2_generate(struct sched *s)
{
	for (int d = 0; d < s->p; d++) {
		struct sched_run r = sched_run_start(s, d);

		/* twice 1F1B's warm-up: device d fills with forwards the time its first B takes to
		 * come back, which is what ZB-H2 spends 2p-1 micro-batches of memory on */
		sched_run_ops(&r, "F", 2 * (s->p - d) - 1);
		/* W's wait: they fill the tail, where the later devices' B's no longer arrive */
		sched_run_ops(&r, "BF", 2 * d);
		sched_run_ops(&r, "BWF", sched_run_left(&r, 0, OP_F));
		sched_run_ops(&r, "BW", sched_run_left(&r, 0, OP_B));
		sched_run_ops(&r, "W", sched_run_left(&r, 0, OP_W));
	}
	return 0;
}

double sched_zbh2_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                         double overlap)
{
	(void)overlap;
	double fill = t_f + t_b - 2 * t_w > t_f ? t_f + t_b - 2 * t_w : t_f;
	long double bubble = (long double)(sp->p - 1) * fill;

	/* as for ZB-H1: W must not outlast F (checked against the engine over a grid) */
	if (t_w > t_f)
		return NAN;
	return pp_ratio(bubble, (long double)sp->m * (t_f + t_b + t_w) + bubble);
}

double sched_zbh2_peak(const struct sched_params *sp, int d)
{
	(void)d;
	return 2 * sp->p - 1;
}
