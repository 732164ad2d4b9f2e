/*
 * Interleaved 1F1B in the order of Megatron-LM's forward_backward_pipelining_with_interleaving
 * (get_schedule_table, get_pp_rank_microbatches), which PyTorch's ScheduleInterleaved1F1B
 * reproduces wherever both accept a shape. Device d hosts chunks c = 0..v-1 as stages c*p + d.
 *
 * The forward order is a table of (micro-batch, chunk): micro-batches in groups of g, each group
 * run through chunk 0, then chunk 1, ..., the last group holding what is left. Backward k takes
 * the micro-batch of forward k and the mirrored chunk v-1-c. Device d runs
 * w = min(2(p-d-1) + (v-1)g, m*v) warm-up forwards, then forward k+w before backward k, then the
 * remaining backwards.
 *
 * Accepted shapes: with --group-size g, Megatron-LM's rule p <= g <= m and m mod g of 0 or at
 * least p; by default PyTorch's, m a multiple of its rounds r = max(1, floor(m/p)), with
 * g = m / r. The default g is p whenever p divides m (Megatron-LM's default), and the two
 * frameworks' orders agree wherever both accept.
 *
 * interleaved-zb is PyTorch's ScheduleInterleavedZeroBubble (its ZB-1p for v chunks): the same
 * forward table with PyTorch's rounds, backward split into B and W, and device d runs
 * min((v-1)g + p-1-d, m*v) warm-up forwards, then forward k+w, B k and, from k = d on, the
 * oldest W, then its remaining B's (each followed by a W from k = d on) and W's. PyTorch adds
 * empty steps before forwards whose input is not ready; they change no order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "generators.h"

/* PyTorch ScheduleInterleaved1F1B: m must be a multiple of its rounds max(1, floor(m/p)). */
static bool torch_accepts(const struct sched_params *sp)
{
	int rounds = sp->m / sp->p > 1 ? sp->m / sp->p : 1;

	return sp->m % rounds == 0;
}

/* Megatron-LM: p <= g <= m, and m mod g is 0 or at least p. */
static bool megatron_accepts(const struct sched_params *sp)
{
	int p = sp->p, m = sp->m, g = sp->group;

	return p <= g && g <= m && (m % g == 0 || m % g >= p);
}

/* The group size interleaving uses for sp: sp->group, or PyTorch's m / rounds. */
static int group_of(const struct sched_params *sp)
{
	int rounds = sp->m / sp->p > 1 ? sp->m / sp->p : 1;

	return sp->group != 0 ? sp->group : sp->m / rounds;
}

/*
 * Writes into buf the values of m (or, with vary_group, of g) in [lo, hi] nearest to sp's on
 * each side that ok accepts, the rest of sp as it is: "A and B", or the one there is. Returns
 * whether there is one.
 */
static bool nearest(const struct sched_params *sp, bool vary_group, int lo, int hi,
                    bool (*ok)(const struct sched_params *sp), char *buf, size_t n)
{
	struct sched_params t = *sp;
	int *y = vary_group ? &t.group : &t.m, x = *y, below = 0, above = 0, len = 0;

	for (*y = x - 1; *y >= lo && below == 0; --*y)
		below = ok(&t) ? *y : 0;
	for (*y = x + 1; *y <= hi && above == 0; ++*y)
		above = ok(&t) ? *y : 0;
	if (below != 0)
		len = snprintf(buf, n, "%d", below);
	if (above != 0)
		snprintf(buf + len, n - (size_t)len, "%s%d", below != 0 ? " and " : "", above);
	return below != 0 || above != 0;
}

/*
 * Returns 0 when PyTorch's rounds accept sp's m (*key "m"), else -1 with an error that names
 * the schedule, says what it needs (needs, after "with p=N") and the nearest m's it accepts.
 */
static int torch_check(const struct sched_params *sp, const char **key, const char *name,
                       const char *needs, struct pp_error *err)
{
	char ms[48] = "";

	*key = "m";
	if (torch_accepts(sp))
		return 0;
	/* m = 1 is always valid, and so is a multiple of p */
	nearest(sp, false, 1, PP_MAX_COUNT, torch_accepts, ms, sizeof(ms));
	return pp_fail(err, PP_ERR_USAGE, "%s with p=%d %s; nearest valid m: %s", name, sp->p,
	               needs, ms);
}

int sched_megatron_group_check(const struct sched_params *sp, const char *name, const char **key,
                               struct pp_error *err)
{
	char ms[48] = "", gs[48] = "";

	*key = "group_size";
	if (megatron_accepts(sp))
		return 0;
	if (sp->group < sp->p)
		return pp_fail(err, PP_ERR_USAGE,
		               "%s needs a group of at least p=%d micro-batches "
		               "(Megatron-LM's rule p <= g <= m)",
		               name, sp->p);
	/* a multiple of g is valid: there is an m above unless m is near the cap */
	nearest(sp, false, sp->group, PP_MAX_COUNT, megatron_accepts, ms, sizeof(ms));
	if (!nearest(sp, true, sp->p, sp->m, megatron_accepts, gs, sizeof(gs)))
		snprintf(gs, sizeof(gs), "none");
	return pp_fail(err, PP_ERR_USAGE,
	               "%s needs p <= g <= m and m mod g of 0 or at least p "
	               "(Megatron-LM's rule; here p=%d, m=%d); nearest valid m for g=%d: "
	               "%s; nearest valid g for m=%d: %s",
	               name, sp->p, sp->m, sp->group, ms, sp->m, gs);
}

int sched_interleaved_check(const struct sched_params *sp, const char **key, struct pp_error *err)
{
	if (sp->group != 0)
		return sched_megatron_group_check(sp, "interleaved", key, err);
	return torch_check(sp, key, "interleaved",
	                   "accepts neither Megatron-LM's m (a multiple of p) nor PyTorch's (a "
	                   "multiple of max(1, floor(m/p)))",
	                   err);
}

int sched_interleaved_zb_check(const struct sched_params *sp, const char **key,
                               struct pp_error *err)
{
	return torch_check(sp, key, "interleaved-zb",
	                   "needs m a multiple of its rounds max(1, floor(m/p)), as PyTorch's "
	                   "ScheduleInterleavedZeroBubble",
	                   err);
}

int sched_interleaved_table(const struct sched *s, int g, int **tmb, int **tch)
{
	int k = 0;

	*tmb = pp_mallocarray((size_t)s->m * (size_t)s->v, sizeof(**tmb));
	*tch = pp_mallocarray((size_t)s->m * (size_t)s->v, sizeof(**tch));
	if (*tmb == NULL || *tch == NULL) {
		free(*tmb);
		free(*tch);
		return -1;
	}
	for (int lo = 0; lo < s->m; lo += g) {
		int hi = lo + g < s->m ? lo + g : s->m;

		for (int c = 0; c < s->v; c++)
			for (int mb = lo; mb < hi; mb++) {
				(*tmb)[k] = mb;
				(*tch)[k++] = c;
			}
	}
	return 0;
}

int sched_interleaved_generate(struct sched *s)
{
	struct sched_params sp = sched_params_of(s);
	int g = group_of(&sp), total = s->m * s->v, k, *tmb, *tch;

	if (sched_interleaved_table(s, g, &tmb, &tch) != 0)
		return -1;
	s->group = g;
	for (int d = 0; d < s->p; d++) {
		/* Megatron-LM's warm-up: the other chunks' forwards of the first group, plus the
		 * round trip to the last device and back before backward 0 can start here */
		int w = 2 * (s->p - d - 1) + (s->v - 1) * g;

		if (w > total)
			w = total;
		for (k = 0; k < w; k++)
			sched_push(s, d, OP_F, tmb[k], sched_stage_of(s, d, tch[k]));
		for (k = 0; k < total; k++) {
			if (k + w < total)
				sched_push(s, d, OP_F, tmb[k + w],
				           sched_stage_of(s, d, tch[k + w]));
			sched_push(s, d, OP_BW, tmb[k], sched_stage_of(s, d, s->v - 1 - tch[k]));
		}
	}
	free(tmb);
	free(tch);
	return 0;
}

double sched_interleaved_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                                double overlap)
{
	(void)overlap;
	(void)t_f;
	(void)t_b;
	(void)t_w;
	/* groups of at least p keep every device fed; smaller groups (m < p) stall */
	if (group_of(sp) < sp->p)
		return NAN;
	return (double)(sp->p - 1) / (double)(sp->m * sp->v + sp->p - 1);
}

double sched_interleaved_peak(const struct sched_params *sp, int d)
{
	int w = 2 * (sp->p - d - 1) + (sp->v - 1) * group_of(sp) + 1;

	return (double)(w < sp->m * sp->v ? w : sp->m * sp->v) / sp->v;
}

/* Warm-up forwards of device d in interleaved-zb: (v-1) rounds' micro-batches plus p-1-d. */
static int zb_warm_up(const struct sched_params *sp, int d)
{
	int w = (sp->v - 1) * group_of(sp) + sp->p - 1 - d;

	return w < sp->m * sp->v ? w : sp->m * sp->v;
}

int sched_interleaved_zb_generate(struct sched *s)
{
	struct sched_params sp = sched_params_of(s);
	int total = s->m * s->v, *tmb, *tch;

	if (sched_interleaved_table(s, group_of(&sp), &tmb, &tch) != 0)
		return -1;
	for (int d = 0; d < s->p; d++) {
		int w = zb_warm_up(&sp, d), wk = 0;

		for (int k = 0; k < w; k++)
			sched_push(s, d, OP_F, tmb[k], sched_stage_of(s, d, tch[k]));
		for (int k = 0; k < total; k++) {
			if (k + w < total)
				sched_push(s, d, OP_F, tmb[k + w],
				           sched_stage_of(s, d, tch[k + w]));
			sched_push(s, d, OP_B, tmb[k], sched_stage_of(s, d, s->v - 1 - tch[k]));
			/* device d holds back its first d W's */
			if (k >= d) {
				sched_push(s, d, OP_W, tmb[wk],
				           sched_stage_of(s, d, s->v - 1 - tch[wk]));
				wk++;
			}
		}
		for (; wk < total; wk++)
			sched_push(s, d, OP_W, tmb[wk], sched_stage_of(s, d, s->v - 1 - tch[wk]));
	}
	free(tmb);
	free(tch);
	return 0;
}

double sched_interleaved_zb_peak(const struct sched_params *sp, int d)
{
	/* forwards run minus W's run peaks after the d-th steady forward */
	int w = zb_warm_up(sp, d) + d + 1;

	return (double)(w < sp->m * sp->v ? w : sp->m * sp->v) / sp->v;
}
