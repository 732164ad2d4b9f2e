/*
 * Combined 1F1B for interleaved pipelining, Megatron-Core's MoE schedule: the forward of one
 * micro-batch and the backward of another run as one step, so that the expert all-to-all of
 * each hides under the other's compute. Megatron-Core turns it on with
 * overlap_moe_expert_parallel_comm (--overlap-moe-expert-parallel-comm); its
 * forward_backward_pipelining_with_interleaving (megatron/core/pipeline_parallel/schedules.py)
 * then runs every step through combined_1f1b_schedule_for_interleaved_pipelining
 * (combined_1f1b.py). tests/tools/megatron-reference.py runs that code with torch mocked and
 * tests/cli/t_reference.sh compares the orders op for op.
 *
 * The order is interleaved 1F1B's (interleaved.c: Megatron-LM's schedule table, backward k on
 * forward k's micro-batch and the mirrored chunk v-1-c) with one more warm-up forward: device d
 * runs w = min(2(p-d-1) + (v-1)g + 1, m*v) forwards alone, then for each k forward k+w and
 * backward k as one overlapped step (an F flagged OP_OVERLAP, then its BW, priced
 * overlap_factor x (F + BW)), then the backwards left, alone. Megatron adds the forward "to ensure
 * the forward and backward computations are independent in all 1f1b steps": without it, the
 * last device's first step would pair backward 0 with its own forward. A step's weight
 * gradients stay in the step (delay_wgrad_compute only moves them among the step's layers), so
 * the backward is fused.
 *
 * Accepted shapes, Megatron-LM's: p >= 2 with v >= 2 chunks (Megatron-Core combines steps only in
 * an interleaved pipeline when p > 1); a group g of p micro-batches (Megatron's default
 * microbatch_group_size_per_vp_stage), so m a multiple of p, or with --group-size p <= g <= m and
 * m mod g of 0 or at least p. With one stage, p = 1 and v = 1 and any m: Megatron-Core's
 * combined_1f1b_schedule_for_no_pipelining (combined_1f1b.py), the first forward alone, then
 * forward k+1 with backward k as one step, then the last backward alone, which is the order
 * below with p = v = g = 1 (one warm-up forward).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "generators.h"

/* The group: the one asked for, else Megatron-LM's default of p. */
static int group_of(const struct sched_params *sp)
{
	return sp->group != 0 ? sp->group : sp->p;
}

/* Forwards device d runs before its first combined step: interleaved 1F1B's and one more. */
static int warm_up(const struct sched_params *sp, int d)
{
	int w = 2 * (sp->p - d - 1) + (sp->v - 1) * group_of(sp) + 1;

	return w < sp->m * sp->v ? w : sp->m * sp->v;
}

int sched_interleaved_combined_check(const struct sched_params *sp, const char **key,
                                     struct pp_error *err)
{
	int below = sp->m / sp->p * sp->p, above = below + sp->p;
	char ms[48];

	*key = "p";
	if (sp->p == 1) /* combined_1f1b_schedule_for_no_pipelining: any m */
		return 0;
	if (sp->group != 0)
		return sched_megatron_group_check(sp, "interleaved-combined", key, err);
	*key = "m";
	if (sp->m % sp->p == 0)
		return 0;
	if (below < sp->p)
		snprintf(ms, sizeof(ms), "%d", above);
	else if (above > PP_MAX_COUNT)
		snprintf(ms, sizeof(ms), "%d", below);
	else
		snprintf(ms, sizeof(ms), "%d and %d", below, above);
	return pp_fail(err, PP_ERR_USAGE,
	               "interleaved-combined with p=%d needs m a multiple of p (Megatron-LM's "
	               "default group of p micro-batches); nearest valid m: %s",
	               sp->p, ms);
}

int sched_interleaved_combined_generate(struct sched *s)
{
	struct sched_params sp = sched_params_of(s);
	int g = group_of(&sp), total = s->m * s->v, *tmb, *tch;

	if (sched_interleaved_table(s, g, &tmb, &tch) != 0)
		return -1;
	s->group = g;
	for (int d = 0; d < s->p; d++) {
		int w = warm_up(&sp, d);

		for (int k = 0; k < w; k++)
			sched_push(s, d, OP_F, tmb[k], sched_stage_of(s, d, tch[k]));
		for (int k = 0; k < total; k++) {
			int b_stage = sched_stage_of(s, d, s->v - 1 - tch[k]);

			if (k + w < total)
				sched_push_pair(s, d, tmb[k + w], sched_stage_of(s, d, tch[k + w]),
				                OP_BW, tmb[k], b_stage);
			else
				sched_push(s, d, OP_BW, tmb[k], b_stage);
		}
	}
	free(tmb);
	free(tch);
	return 0;
}

double sched_interleaved_combined_theory(const struct sched_params *sp, double t_f, double t_b,
                                         double t_w, double overlap)
{
	(void)t_f;
	(void)t_b;
	(void)t_w;
	/* a combined step that lasts as long as its two ops keeps interleaved 1F1B's bubble (the
	 * extra warm-up forward fills a slot the plain order idles); a shorter one has no closed
	 * form here */
	if (overlap != 1)
		return NAN;
	return (double)(sp->p - 1) / (double)(sp->m * sp->v + sp->p - 1);
}

double sched_interleaved_combined_peak(const struct sched_params *sp, int d)
{
	/* a combined step holds its forward's activations before its backward frees any */
	int w = warm_up(sp, d) + 1;

	return (double)(w < sp->m * sp->v ? w : sp->m * sp->v) / sp->v;
}
