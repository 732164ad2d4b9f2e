/*
 * 1F1B (PipeDream-Flush; Megatron-LM forward_backward_pipelining_without_interleaving): device d
 * runs min(p-d-1, m) warm-up forwards, then alternates one forward and one fused backward while
 * forwards remain, then runs the remaining backwards. At most min(p-d, m) micro-batches are in
 * flight on device d.
 */
#include "generators.h"

void sched_1f1b_generate(struct sched *s)
{
	for (int d = 0; d < s->p; d++) {
		int warmup = s->p - d - 1 < s->m ? s->p - d - 1 : s->m;
		int fwd = 0, bwd = 0;

		while (fwd < warmup)
			sched_push(s, d, OP_F, fwd++, d);
		while (fwd < s->m) {
			sched_push(s, d, OP_F, fwd++, d);
			sched_push(s, d, OP_BW, bwd++, d);
		}
		while (bwd < s->m)
			sched_push(s, d, OP_BW, bwd++, d);
	}
}

double sched_1f1b_peak(const struct sched_params *sp, int d)
{
	return sp->p - d < sp->m ? sp->p - d : sp->m;
}
