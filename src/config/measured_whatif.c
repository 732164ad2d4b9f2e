/*
 * The what-ifs of a measured step (measured.h): its slowest device's ops at the other devices'
 * times, the built-in schedule whose order it ran, and the explicit costs fitted to its op
 * times, through calibrate's fit (calib_fit, calib_write_config) read back as a config.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/measured.h"
#include "base/memfile.h"

/* The kind index of op i of s for the what-ifs: its kind, or 4 for an overlapped pair's ops. */
static int kind_index(const struct sched *s, size_t i)
{
	const struct op *o = &s->ops[i];
	size_t d0 = s->dev_start[s->stage_device[o->stage]];

	if ((o->flags & OP_OVERLAP) || (i > d0 && (o[-1].flags & OP_OVERLAP)))
		return 4;
	return o->kind;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int measured_without_slowest(const struct measured *m, double *op, struct measured_slowest *w,
                             struct pp_error *err)
{
	const struct sched *s = m->sched;
	double *sum = pp_calloc((size_t)s->p * (MEASURED_KINDS + 1), sizeof(*sum)), *busy, *mid;
	size_t *count = pp_calloc((size_t)s->p * MEASURED_KINDS, sizeof(*count));
	int slow = 0;

	if (sum == NULL || count == NULL) {
		free(sum);
		free(count);
		return pp_nomem(err, (size_t)s->p * MEASURED_KINDS, sizeof(*sum) + sizeof(*count));
	}
	if (s->p < 2) {
		free(sum);
		free(count);
		return pp_fail(err, PP_ERR_USAGE,
		               "a step on one device has no other device to take its times from");
	}
	busy = sum + (size_t)s->p * MEASURED_KINDS;
	mid = busy; /* reused for the medians once busy is read */
	for (int d = 0; d < s->p; d++)
		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
			int k = kind_index(s, i);

			/* a pair's time is in its first op's entry, its second's is 0 */
			if (k == 4 && !(s->ops[i].flags & OP_OVERLAP))
				continue;
			sum[(size_t)d * MEASURED_KINDS + (size_t)k] += m->op[i];
			count[(size_t)d * MEASURED_KINDS + (size_t)k]++;
			busy[d] += m->op[i];
		}
	for (int d = 1; d < s->p; d++)
		if (busy[d] > busy[slow])
			slow = d;
	w->device = slow;
	for (int k = 0; k < MEASURED_KINDS; k++) {
		size_t n = 0, at = (size_t)slow * MEASURED_KINDS + (size_t)k;
		double own = count[at] > 0 ? sum[at] / (double)count[at] : 0, median;

		for (int d = 0; d < s->p; d++) {
			const double *sd = sum + (size_t)d * MEASURED_KINDS;
			const size_t *cd = count + (size_t)d * MEASURED_KINDS;

			if (d == slow)
				continue;
			if (cd[k] > 0)
				mid[n++] = sd[k] / (double)cd[k];
			/* a fused backward against the others' B and W of a micro-batch (PyTorch
			 * merges an I directly followed by its W into one B) */
			else if (k == OP_BW && cd[OP_B] > 0 && cd[OP_W] > 0)
				mid[n++] = sd[OP_B] / (double)cd[OP_B] + sd[OP_W] / (double)cd[OP_W];
		}
		qsort(mid, n, sizeof(*mid), by_double);
		median = n == 0 ? own : n % 2 == 1 ? mid[n / 2] : (mid[n / 2 - 1] + mid[n / 2]) / 2;
		w->factor[k] = count[at] == 0 ? NAN : own > 0 && n > 0 ? median / own : 1;
		w->as_others[k] = count[at] > 0 && own > 0 && n == 0;
	}
	{
		/* a kind no other device runs takes the factor of the kinds that compare, weighted
		 * by the device's time in them: a slow GPU is slow at all of its ops */
		double was = 0, is = 0;

		for (int k = 0; k < MEASURED_KINDS; k++)
			if (!isnan(w->factor[k]) && !w->as_others[k]) {
				double t = sum[(size_t)slow * MEASURED_KINDS + (size_t)k];

				was += t;
				is += t * w->factor[k];
			}
		for (int k = 0; k < MEASURED_KINDS; k++)
			if (w->as_others[k])
				w->factor[k] = was > 0 ? is / was : 1;
	}
	for (size_t i = 0; i < s->nops; i++)
		op[i] = (int)s->stage_device[s->ops[i].stage] == slow
		                ? m->op[i] * w->factor[kind_index(s, i)]
		                : m->op[i];
	free(sum);
	free(count);
	return 0;
}

/* Whether ops a and b are one op: its micro-batch, stage, kind and flags. */
static bool same_op(const struct op *a, const struct op *b)
{
	return a->mb == b->mb && a->stage == b->stage && a->kind == b->kind && a->flags == b->flags;
}

/*
 * Whether generator desc's order for s's shape is s's, op for op, or once each B directly
 * followed by its W is one fused backward, as PyTorch's runtime merges them (its zero-bubble
 * schedules run an I directly followed by the W of the same micro-batch as one B).
 */
static int same_order(const struct sched_desc *desc, const struct sched *s, struct pp_error *err)
{
	struct sched_params sp = {s->p, s->v, s->m, 0};
	struct pp_error why = {0};
	const char *key = NULL;
	struct sched *g;
	bool same;

	if (desc->fn.generate == NULL || desc->placement != s->placement ||
	    sched_accepts(desc, &sp, &key, &why) != 0)
		return 0;
	if ((g = sched_new(desc, &sp)) == NULL)
		return pp_fail(err, PP_ERR_NOMEM, "out of memory generating the %s schedule",
		               desc->name);
	same = g->routes == s->routes;
	for (int d = 0; same && d < s->p; d++) {
		size_t i = g->dev_start[d], j = s->dev_start[d];

		while (same && i < g->dev_start[d + 1] && j < s->dev_start[d + 1]) {
			const struct op *a = &g->ops[i], *b = &s->ops[j];

			if (same_op(a, b)) {
				i++;
			} else if (b->kind == OP_BW && a->kind == OP_B && a->mb == b->mb &&
			           a->stage == b->stage && a->flags == b->flags &&
			           i + 1 < g->dev_start[d + 1] && a[1].kind == OP_W &&
			           a[1].mb == a->mb && a[1].stage == a->stage) {
				i += 2;
			} else {
				same = false;
			}
			j++;
		}
		same = same && i == g->dev_start[d + 1] && j == s->dev_start[d + 1];
	}
	sched_free(g);
	return same;
}

const struct sched_desc *measured_schedule(const struct measured *m, struct pp_error *err)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);

	for (size_t i = 0; i < n; i++) {
		int rc = same_order(&t[i], m->sched, err);

		if (rc < 0)
			return NULL;
		if (rc > 0)
			return &t[i];
	}
	return NULL;
}

/*
 * The calibration of op[] of m's step: each stage's (or, per device, each device's) mean time
 * per kind, as the time of one micro-batch through a device's whole share of layers (a chunk's
 * op times v / routes), NAN where not measured; ops of overlapped pairs not counted.
 */
static int calibration_of(const struct measured *m, const double *op, bool per_device,
                          struct calibration *k, struct pp_error *err)
{
	const struct sched *s = m->sched;
	int n = per_device ? s->p : s->S;
	double *sum = pp_calloc((size_t)s->S * 4, sizeof(*sum));
	size_t *count = pp_calloc((size_t)s->S * 4, sizeof(*count));
	double *a[4];

	memset(k, 0, sizeof(*k));
	k->format = CALIB_CSV;
	k->p = n;
	k->path = m->path;
	k->comm = m->msg_mean > 0 ? m->msg_mean : NAN; /* 0: the default t_comm */
	k->f = pp_mallocarray((size_t)n, sizeof(*k->f));
	k->b = pp_mallocarray((size_t)n, sizeof(*k->b));
	k->w = pp_mallocarray((size_t)n, sizeof(*k->w));
	k->bw = pp_mallocarray((size_t)n, sizeof(*k->bw));
	if (sum == NULL || count == NULL || k->f == NULL || k->b == NULL || k->w == NULL ||
	    k->bw == NULL) {
		free(sum);
		free(count);
		calib_release(k);
		return pp_nomem(err, (size_t)s->S * 4, sizeof(*sum) + sizeof(*count));
	}
	a[OP_F] = k->f;
	a[OP_B] = k->b;
	a[OP_W] = k->w;
	a[OP_BW] = k->bw;
	for (size_t i = 0; i < s->nops; i++)
		if (kind_index(s, i) < 4) {
			sum[(size_t)s->ops[i].stage * 4 + s->ops[i].kind] += op[i];
			count[(size_t)s->ops[i].stage * 4 + s->ops[i].kind]++;
		}
	for (int j = 0; j < n; j++)
		for (int kind = 0; kind < 4; kind++) {
			double total = 0;
			int stages = 0;

			for (int c = 0; c < (per_device ? s->v : 1); c++) {
				int st = per_device ? sched_stage_of(s, j, c) : j;
				size_t at = (size_t)st * 4 + (size_t)kind;

				if (count[at] == 0)
					continue;
				total += sum[at] / (double)count[at];
				stages++;
			}
			a[kind][j] = stages > 0 ? total / stages * s->v / s->routes : NAN;
		}
	free(sum);
	free(count);
	for (int j = 0; j < n; j++)
		if (isnan(k->f[j])) {
			calib_release(k);
			return pp_fail(
			        err, PP_ERR_CONFIG,
			        "%s: %s %d has no forward time outside overlapped pairs, which a "
			        "fit of its op times needs",
			        m->path, per_device ? "device" : "stage", j);
		}
	return 0;
}

/*
 * The overlap factor m's overlapped pairs ran at: their spans over the times their two ops
 * take alone (each stage's mean F, and B or BW, outside pairs), summed over the pairs whose
 * stages have both; NAN when none has, or out of memory.
 */
static double pair_factor(const struct measured *m, const double *op)
{
	const struct sched *s = m->sched;
	double *sum = pp_calloc((size_t)s->S * 4, sizeof(*sum)), span = 0, alone = 0;
	size_t *count = pp_calloc((size_t)s->S * 4, sizeof(*count));

	for (size_t i = 0; sum != NULL && count != NULL && i < s->nops; i++)
		if (kind_index(s, i) < 4) {
			sum[(size_t)s->ops[i].stage * 4 + s->ops[i].kind] += op[i];
			count[(size_t)s->ops[i].stage * 4 + s->ops[i].kind]++;
		}
	for (size_t i = 0; sum != NULL && count != NULL && i + 1 < s->nops; i++) {
		const struct op *f = &s->ops[i], *b = f + 1;
		size_t at_f = (size_t)f->stage * 4 + OP_F, at_b = (size_t)b->stage * 4 + b->kind;

		/* a pair's time is in its first op's entry */
		if (!(f->flags & OP_OVERLAP) || count[at_f] == 0 || count[at_b] == 0)
			continue;
		span += op[i];
		alone += sum[at_f] / (double)count[at_f] + sum[at_b] / (double)count[at_b];
	}
	free(sum);
	free(count);
	return alone > 0 ? span / alone : NAN;
}

int measured_fit_config(const struct measured *m, const double *op, double w_share,
                        struct config *c, struct pp_error *err)
{
	bool per_device = c->p != m->sched->p || c->v != m->sched->v;
	struct calibration k;
	struct calib_fit fit;
	struct memfile mf;
	char *text;
	size_t len = 0;
	FILE *out;
	int rc;

	if (calibration_of(m, op, per_device, &k, err) != 0)
		return -1;
	rc = calib_fit(&k, w_share, &fit, err);
	calib_release(&k);
	if (rc != 0 && strncmp(err->msg, "calibrate: ", 11) == 0) {
		char why[sizeof(err->msg)];

		/* calibrate's words for a stage at no line: the step's file is the place */
		snprintf(why, sizeof(why), "%s", err->msg + 11);
		snprintf(err->msg, sizeof(err->msg), "%s '%.200s': %.700s",
		         m->format == MEASURED_TRACE ? "trace" : "measured", m->path, why);
	}
	if (rc != 0)
		return -1;
	if (!(fit.t_f > 0 || fit.t_b > 0 || fit.t_w > 0)) {
		calib_fit_release(&fit);
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%.200s': its ops take no time: there are no costs to run a "
		               "what-if on",
		               m->format == MEASURED_TRACE ? "trace" : "measured", m->path);
	}
	fit.p_known = false;
	if (config_is_set(c, "t_comm"))
		fit.t_comm = NAN;
	if ((out = memfile_open(&mf)) == NULL) {
		calib_fit_release(&fit);
		return pp_fail(err, PP_ERR_NOMEM, "out of memory writing the fitted config");
	}
	rc = calib_write_config(out, &fit, 0);
	calib_fit_release(&fit);
	if ((text = memfile_close(&mf, &len)) == NULL || rc != 0) {
		free(text);
		return pp_fail(err, PP_ERR_NOMEM, "out of memory writing the fitted config");
	}
	rc = config_load_text(c, "fitted to the measured step", text, len, err);
	free(text);
	/* a what-if of pairs runs them as the step's ran, unless --overlap-factor says */
	if (rc == 0 && !config_is_set(c, "overlap_factor") &&
	    sched_takes_overlap_factor(sched_find(c->schedule))) {
		double x = pair_factor(m, op);

		if (x > 0)
			c->overlap_factor = x;
	}
	return rc;
}
