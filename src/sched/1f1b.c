/*
 * 1F1B (PipeDream-Flush; Megatron-LM forward_backward_pipelining_without_interleaving): device d
 * runs min(p-d-1, m) warm-up forwards, then alternates one forward and one fused backward while
 * forwards remain, then runs the remaining backwards. The warm-up is what lets the first
 * backward of the last device arrive at device d just as its warm-up ends, so at most
 * min(p-d, m) micro-batches are in flight on device d.
 */
#include "generators.h"

int sched_1f1b_generate(struct sched *s)
{
	for (int d = 0; d < s->p; d++) {
		struct sched_run r = sched_run_start(s, d);
		int warmup = s->p - d - 1 < s->m ? s->p - d - 1 : s->m;

		sched_run_ops(&r, "F", warmup);
		sched_run_ops(&r, "FX", s->m - warmup);
		sched_run_ops(&r, "X", warmup);
	}
	return 0;
}

double sched_1f1b_peak(const struct sched_params *sp, int d)
{
	return sp->p - d < sp->m ? sp->p - d : sp->m;
}
