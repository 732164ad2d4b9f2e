/*
 * zbv-auto: the zero-bubble authors' cost-aware ZB-V generator (Qi et al., "Zero Bubble
 * Pipeline Parallelism", ICLR 2024, section 6), as their Megatron-LM fork runs it
 * (sail-sg/zero-bubble-pipeline-parallelism, zerobubble/scheduler/zbv.py, PipelineGraph
 * try_v_schedule and create_schedule): a greedy pass over the V placement that knows each op's
 * time, the message time and a limit on alive activations.
 *
 * The pass sees, on device d, six kinds of op: F of chunk 0 (stage d) and of chunk 1 (stage
 * 2p-1-d), B and W of the backward's first chunk (chunk 1) and second chunk (chunk 0). It
 *   1. sends micro-batch 0 forward through chunk 0 of every device; then, from the last device
 *      down, gives device i more chunk-0 forwards on devices 0..i while they fit in memory
 *      (keeping room for 2 + 2i of them) and before the chunk-1 forward coming back from device
 *      i+1 can arrive, then its chunk-1 forward;
 *   2. from device 1 up, adds forwards (chunk 0 and 1 in turn, on the devices from the last
 *      down to i) until device i has run as many as device i-1 and one more chunk-1 forward;
 *   3. runs 2m rounds. A round first gives every device one B: of the backward's second chunk
 *      when its input has been produced or its first chunk is done, else of the first chunk;
 *      the devices taking the second chunk go first, from the last device down, then the others
 *      from device 0 up. Then it gives every device with forwards left one F: chunk 0 when
 *      chunk 1 has caught up, chunk 1 when its input has been produced, else chunk 0 when its
 *      input has. W's of past B's (first in, first out) run before an op whenever one fits
 *      the gap before its input, and one more when the gap would make this device's idle time
 *      the largest (always before a second-chunk B, before other ops when the pass's fill_b or
 *      fill_f is set); they also run whenever an F would pass the memory limit;
 *   4. ends each device with its remaining W's.
 * Each pass is scored by its largest per-device idle time. A pass is rerun with every device's
 * idle time of the last run as an allowance (the gap a W may overrun) while that keeps
 * shrinking the score; the four (fill_b, fill_f) settings are tried in the authors' order and
 * the lowest score wins, ties keeping the earlier.
 *
 * Differences from the authors' code, none of which changes an order they produce:
 *   - times are the engine's integer ticks and activations integer amounts, so every comparison
 *     is exact and the order does not depend on the time unit;
 *   - like the authors' runtime (avg_then_mid), the pass takes one time for each op kind, the
 *     median over the devices of their two chunks' mean, and one message time, the median
 *     over the links; the engine then runs every op at its own stage's time. Activations are
 *     each device's own (the mean of its two chunks' per chunk);
 *   - where an op has no input from another device the authors' code reads the end of the last
 *     W of the last device's second chunk (Python's index -1, -1 while it has not run); ppsim
 *     reads the same, with one tick for their -1;
 *   - where the authors' code stops on a failed assertion (an op that would pass the memory
 *     limit, or run before its input was scheduled), ppsim drops that pass; when none is left
 *     the limit is too small and the caller is told the smallest limit that works.
 *
 * How the passes are run, none of which changes the order the authors' code gives:
 *   - the passes differ only where one more W may go into a gap that would make a device's
 *     idle time the largest: the settings and the allowances decide there, and nowhere else.
 *     The first pass of the first chain (the base) runs whole, noting each such point and a
 *     snapshot of the devices every ZBV_SNAP_ROUNDS rounds; every other pass takes the base's
 *     decisions up to its first point where it decides otherwise, and runs from the snapshot
 *     before it (with messages, the passes part in the last rounds, so a pass costs a few
 *     rounds), or stops where the base reaches the score it has to beat, or is the base's;
 *   - fill_b and fill_f matter to a chain only at such points. A chain notes the settings
 *     that changed one of its decisions; a later chain that differs from it in none of them
 *     takes the same decisions, ties with it and loses, so it is not run (at unit costs one
 *     chain stands for all four);
 *   - a rerun stops once its largest idle time reaches the score of the pass before it, which
 *     it then cannot beat (at a score of 0 it does not start);
 *   - the chains run on pr->jobs threads (struct sched_variants), a thread starting one only
 *     once it is known to differ from every earlier one, with arrays each thread reuses from
 *     pass to pass; the best chain is the same whichever thread ran it;
 *   - a pass keeps each device's op kinds alone (a byte an op; an op's micro-batch is the count
 *     of its kind before it) and the ends of F's and B's, which the neighbours read; whether an
 *     op has run is the count of its kind, so that nothing is reset between passes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zbvpass.h"

/* The schedule's stage of a pass op kind on device d (B and W of the first chunk are chunk 1). */
static int stage_of(int p, int kind, int d)
{
	int chunk = kind == VF0 || kind == VB1 || kind == VW1 ? 0 : 1;

	return chunk == 0 ? d : 2 * p - 1 - d;
}
/* What a pass came to: failed, stopped (it cannot win, or its chain is not needed), ran to
 * its end, or took the base's decisions to its end (then the base's arrays are its own). */
enum { VPASS_FAILED, VPASS_STOPPED, VPASS_DONE, VPASS_BASE };

/* The outcome of the pass z has run. */
static int outcome(const struct vpass *z)
{
	return z->failed ? VPASS_FAILED : z->stopped ? VPASS_STOPPED : VPASS_DONE;
}

/* The ZBV_ bit of the setting that decides whether one more W goes before an op of kind, or 0
 * (B of the backward's first chunk: always). */
static unsigned setting_of(int kind)
{
	return kind == VB1 ? 0 : kind == VB0 ? ZBV_FILL_B : ZBV_FILL_F;
}

/*
 * Runs the pass of chain z->k with the allowances (NULL: none), stopping once its largest idle
 * time reaches stop_at: from the base's snapshot before the first point where it decides
 * otherwise than the base, or from the beginning when there is no base. Returns its outcome.
 */
static int run_pass(struct vpass *z, const pp_time *approved, pp_time stop_at)
{
	const struct vbase *b = &z->sh->base;
	unsigned settings = (unsigned)(ZBV_CHAINS - 1 - z->k);

	sched_zbv_setup(z, approved, stop_at);
	if (!b->usable) {
		sched_zbv_warm_up(z);
		sched_zbv_rounds(z, 0);
		return outcome(z);
	}
	if (z->stopped)
		return VPASS_STOPPED;
	for (size_t x = 0; x < b->nrec; x++) {
		const struct vrec *r = &b->rec[x];
		bool fits;

		if (r->kind == VREC_MAX) {
			if (r->g >= stop_at)
				return VPASS_STOPPED;
			continue;
		}
		/* the base puts one more W here; this pass when the gap is above its allowance
		 * too and its setting says so */
		fits = approved == NULL || r->g > z->max_approved - approved[r->d];
		if (fits)
			z->consulted |= setting_of(r->kind);
		if (!fits || (setting_of(r->kind) != 0 && !(settings & setting_of(r->kind)))) {
			sched_zbv_resume(z, b, r->round / ZBV_SNAP_ROUNDS);
			sched_zbv_rounds(z, r->round / ZBV_SNAP_ROUNDS * ZBV_SNAP_ROUNDS);
			return outcome(z);
		}
	}
	return b->z->failed ? VPASS_FAILED : VPASS_BASE;
}

/* The idle times and kinds of the pass of outcome out that z has run: its own or the base's. */
static const struct vpass *result_of(const struct vpass *z, int out)
{
	return out == VPASS_BASE ? z->sh->base.z : z;
}

/*
 * The authors' try_v_schedule for chain z->k: a first pass, then passes with the last one's
 * idle times as allowances while the score keeps falling. Leaves the pass kept in z->kept and
 * returns its score, or -1 when the first pass fails or the chain is not needed.
 */
static pp_time run_chain(struct vpass *z)
{
	pp_time score = -1;
	bool kept_base = false;
	int out;

	z->consulted = z->told = 0;
	for (out = run_pass(z, NULL, PP_TIME_TOTAL_MAX); out == VPASS_DONE || out == VPASS_BASE;
	     out = run_pass(z, z->allowance, score)) {
		const struct vpass *r = result_of(z, out);

		score = r->max_bubble;
		for (int d = 0; d < z->p; d++)
			z->allowance[d] = r->dev[d].bubble;
		kept_base = out == VPASS_BASE;
		if (!kept_base) {
			uint8_t *swap = z->kept;

			z->kept = z->kinds;
			z->kinds = swap;
		}
	}
	if (sched_variant_same(&z->sh->var, z->k))
		return -1;
	if (kept_base && score >= 0)
		memcpy(z->kept, z->sh->base.z->kinds, 6 * (size_t)z->m * (size_t)z->p);
	return score;
}

/* A thread's work: the chains left, one after the other. */
static void *run_chains(void *arg)
{
	struct vpass *z = arg;

	while ((z->k = sched_variant_next(&z->sh->var)) >= 0) {
		pp_time score = run_chain(z);

		sched_variant_end(&z->sh->var, z->k, z->consulted, score >= 0, score, &z->kept);
	}
	return NULL;
}

/* The ops of a run below which one thread runs all the chains. */
#define ZBV_THREAD_OPS 32768

/* The arrays of a thread's passes over p devices and m micro-batches, for sched_arrays_new
 * and _free (the large ones apart). */
enum { VARRAYS = 3 };
static void vpass_arrays(struct vpass *z, size_t p, struct sched_array *a)
{
	const struct sched_array all[VARRAYS] = {
	        {(void **)&z->dev, p, sizeof(*z->dev), false},
	        {(void **)&z->allowance, p, sizeof(*z->allowance), false},
	        {(void **)&z->order, p, sizeof(*z->order), false},
	};

	memcpy(a, all, sizeof(all));
}

static void vpass_release(struct vpass *z)
{
	struct sched_array a[VARRAYS];

	vpass_arrays(z, 0, a);
	sched_arrays_free(a, VARRAYS);
	free(z->end);
	free(z->pending);
	free(z->kinds);
	free(z->kept);
}

/* A thread's passes and their arrays; returns 0, or -1 with a PP_ERR_NOMEM error. */
static int vpass_init(struct vpass *z, struct vshared *sh, struct pp_error *err)
{
	struct sched_array a[VARRAYS];
	size_t p = (size_t)sh->p, m = (size_t)sh->m;

	memset(z, 0, sizeof(*z));
	z->sh = sh;
	z->pr = sh->pr;
	z->p = sh->p;
	z->m = sh->m;
	vpass_arrays(z, p, a);
	if (sched_arrays_new(a, VARRAYS, err) != 0)
		return -1;
	z->end = pp_mallocarray_large(m * p * VKEPT, sizeof(*z->end));
	z->pending = pp_mallocarray_large(2 * m * p, sizeof(*z->pending));
	z->kinds = pp_mallocarray_large(6 * m * p, sizeof(*z->kinds));
	z->kept = pp_mallocarray_large(6 * m * p, sizeof(*z->kept));
	if (z->end == NULL || z->pending == NULL || z->kinds == NULL || z->kept == NULL) {
		vpass_release(z);
		return pp_nomem(err, m * p * VKEPT, sizeof(*z->end));
	}
	return 0;
}

/* The threads' passes and what they share. */
struct vrun {
	struct vshared sh;
	struct vpass *z; /* [jobs] */
	int jobs;        /* threads whose arrays are ready */
};

static void vbase_release(struct vbase *b)
{
	if (b->z != NULL)
		vpass_release(b->z);
	free(b->z);
	free(b->rec);
	free(b->snap);
	free(b->snap_max);
	free(b->snap_w1);
	memset(b, 0, sizeof(*b));
}

/* Readies the base pass's arrays in sh->base; without room for them there is none (b->z
 * NULL), and every pass runs from the beginning. */
static void vbase_init(struct vshared *sh)
{
	struct vbase *b = &sh->base;

	memset(b, 0, sizeof(*b));
	b->nsnap = (2 * sh->m - 1) / ZBV_SNAP_ROUNDS + 1;
	b->snap = pp_mallocarray_large((size_t)b->nsnap * (size_t)sh->p, VDEV_STATE);
	b->snap_max = pp_mallocarray((size_t)b->nsnap, sizeof(*b->snap_max));
	b->snap_w1 = pp_mallocarray((size_t)b->nsnap, sizeof(*b->snap_w1));
	if (b->snap == NULL || b->snap_max == NULL || b->snap_w1 == NULL ||
	    sched_arrays_new(&(struct sched_array){(void **)&b->z, 1, sizeof(*b->z), true}, 1,
	                     NULL) != 0) {
		vbase_release(b);
		return;
	}
	if (vpass_init(b->z, sh, NULL) != 0) {
		free(b->z);
		b->z = NULL;
		vbase_release(b);
	}
}

/* Runs the base pass with its records and snapshots (struct vbase). */
static void vbase_run(struct vbase *b)
{
	struct vpass *z = b->z;

	b->nrec = 0;
	b->usable = z != NULL;
	if (z == NULL)
		return;
	z->k = 0;
	z->consulted = z->told = 0;
	sched_zbv_setup(z, NULL, PP_TIME_TOTAL_MAX);
	z->rec_into = b;
	sched_zbv_warm_up(z);
	sched_zbv_rounds(z, 0);
	z->rec_into = NULL;
}

/* Readies run r of jobs threads for p devices and m micro-batches with prices pr (whose
 * limits are set before each vrun_best); returns 0, or -1 with a PP_ERR_NOMEM error. A thread
 * whose arrays do not fit is left out; the first is needed. */
static int vrun_init(struct vrun *r, int p, int m, const struct vprices *pr, int jobs,
                     struct pp_error *err)
{
	memset(r, 0, sizeof(*r));
	r->sh.pr = pr;
	r->sh.p = p;
	r->sh.m = m;
	if (sched_variants_init(&r->sh.var, ZBV_CHAINS, 6 * (size_t)m * (size_t)p, err) != 0)
		return -1;
	if (sched_arrays_new(
	            &(struct sched_array){(void **)&r->z, (size_t)jobs, sizeof(*r->z), true}, 1,
	            err) != 0) {
		sched_variants_release(&r->sh.var);
		return -1;
	}
	while (r->jobs < jobs && vpass_init(&r->z[r->jobs], &r->sh, err) == 0)
		r->jobs++;
	if (r->jobs == 0) {
		sched_variants_release(&r->sh.var);
		free(r->z);
		return -1;
	}
	*err = (struct pp_error){0};
	vbase_init(&r->sh);
	return 0;
}

static void vrun_release(struct vrun *r)
{
	for (int t = 0; t < r->jobs; t++)
		vpass_release(&r->z[t]);
	free(r->z);
	vbase_release(&r->sh.base);
	sched_variants_release(&r->sh.var);
}

/* The best chain over the four settings under the prices' limits into r->sh.var.best: true,
 * or false when none keeps within them. */
static bool vrun_best(struct vrun *r)
{
	sched_variants_reset(&r->sh.var);
	vbase_run(&r->sh.base);
	pp_threads(r->jobs, run_chains, r->z, sizeof(*r->z));
	return r->sh.var.best_k >= 0;
}

static int compare_time(const void *a, const void *b)
{
	pp_time x = *(const pp_time *)a, y = *(const pp_time *)b;

	return (x > y) - (x < y);
}

/* The authors' median of n values (the upper one of an even count); sorts x. */
static pp_time median(pp_time *x, size_t n)
{
	qsort(x, n, sizeof(*x), compare_time);
	return x[n / 2];
}

/* The prices every pass decides from (limits unset); returns 0, or -1 with a PP_ERR_NOMEM
 * error. */
static int vprices_init(struct vprices *v, const struct sched *s, const struct sched_prices *pr,
                        struct pp_error *err)
{
	int p = s->p, S = s->S;
	const pp_time *per[3] = {pr->t_f, pr->t_b, pr->t_w};
	pp_time *x = pp_mallocarray((size_t)S, sizeof(*x));
	size_t n = 0;
	const struct sched_array a[] = {
	        {(void **)&v->act, (size_t)p, sizeof(*v->act), false},
	        {(void **)&v->act_w, (size_t)p, sizeof(*v->act_w), false},
	        {(void **)&v->limit, (size_t)p, sizeof(*v->limit), false},
	};

	memset(v, 0, sizeof(*v));
	if (x == NULL)
		return pp_nomem(err, (size_t)S, sizeof(*x));
	if (sched_arrays_new(a, 3, err) != 0) {
		free(x);
		return -1;
	}
	for (int k = 0; k < 3; k++) {
		for (int d = 0; d < p; d++)
			x[d] = per[k][d] + per[k][S - 1 - d];
		v->t[k] = median(x, (size_t)p);
	}
	/* the links between devices; the turn from stage p-1 to p stays on device p-1 */
	for (int st = 0; st + 1 < S; st++)
		if (st != p - 1)
			x[n++] = 2 * pr->t_comm[st];
	v->comm = n > 0 ? median(x, n) : 0;
	free(x);
	for (int d = 0; d < p; d++) {
		v->act[d] = pr->act[d] + pr->act[S - 1 - d];
		v->act_w[d] = pr->act_w[d] + pr->act_w[S - 1 - d];
	}
	return 0;
}

/* Sets v's limits to mem_limit micro-batches, two chunks of act[d] each. */
static void vprices_limit(struct vprices *v, int p, double mem_limit)
{
	for (int d = 0; d < p; d++)
		v->limit[d] = (int64_t)llround(mem_limit * 2.0 * (double)v->act[d]);
}

static void vprices_release(struct vprices *v)
{
	free(v->act);
	free(v->act_w);
	free(v->limit);
}

int sched_zbv_auto_generate(struct sched *s, const struct sched_prices *pr, struct pp_error *err)
{
	struct vprices v;
	struct vrun r;
	size_t kinds = 6 * (size_t)s->m * (size_t)s->p;
	int jobs = pr->jobs < 1 || kinds < ZBV_THREAD_OPS ? 1
	           : pr->jobs > ZBV_CHAINS                ? ZBV_CHAINS
	                                                  : pr->jobs;

	if (vprices_init(&v, s, pr, err) != 0)
		return -1;
	if (vrun_init(&r, s->p, s->m, &v, jobs, err) != 0) {
		vprices_release(&v);
		return -1;
	}
	vprices_limit(&v, s->p, pr->mem_limit);
	if (!vrun_best(&r)) {
		/* the smallest limit in half micro-batches (one chunk) that works, if any */
		double need = 0;

		for (double x = 0.5 * ((int)(2 * pr->mem_limit) + 1); x <= 4.0 * s->p && need == 0;
		     x += 0.5) {
			vprices_limit(&v, s->p, x);
			if (vrun_best(&r))
				need = x;
		}
		vrun_release(&r);
		vprices_release(&v);
		/* the greedy's limit, not the order's peak: it keeps room for the warm-up's
		 * forwards, which with m < p the order never fills */
		if (need > 0)
			return pp_fail(err, PP_ERR_USAGE,
			               "zbv-auto (the authors' greedy, which keeps room for the "
			               "warm-up's forwards) finds no order for p=%d m=%d within a limit "
			               "of %g micro-batches of activations; it finds one from a limit "
			               "of %g (the order may then hold fewer)",
			               s->p, s->m, pr->mem_limit, need);
		return pp_fail(
		        err, PP_ERR_USAGE,
		        "zbv-auto cannot keep p=%d m=%d within %g micro-batches of activations",
		        s->p, s->m, pr->mem_limit);
	}
	s->mem_limit = pr->mem_limit;
	for (int d = 0; d < s->p; d++) {
		const uint8_t *k = &r.sh.var.best[(size_t)d * 6 * (size_t)s->m];
		int next[VKINDS] = {0}, stage[VKINDS];
		static const enum op_kind kind[] = {OP_F, OP_F, OP_B, OP_B, OP_W, OP_W};

		for (int x = 0; x < VKINDS; x++)
			stage[x] = stage_of(s->p, x, d);
		for (int n = 0; n < 6 * s->m; n++)
			sched_push(s, d, kind[k[n]], next[k[n]]++, stage[k[n]]);
	}
	vrun_release(&r);
	vprices_release(&v);
	return 0;
}
