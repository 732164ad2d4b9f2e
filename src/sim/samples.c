/*
 * Noise samples of a step (include/ppsim/samples.h). Each sample fills every op's and message's
 * duration from its cost and a draw keyed by (seed, sample, op), hands them to a fresh engine
 * with the run's stragglers (engine_perturb) and keeps its step and bubble. Samples are split
 * over threads in a stride; each writes only its own records, so no figure depends on --jobs.
 */
#include "ppsim/samples.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/random.h"
#include "base/text.h"
#include "ppsim/critical.h"
#include "ppsim/metrics.h"

/* What the draws of one sample are keyed by, after (seed, sample): the op, then one of these. */
enum draw_key { DRAW_OP, DRAW_STALL, DRAW_MSG };

/* How the ops of one stage and kind vary (a rule of --jitter made ready to draw). */
struct draw {
	enum pp_noise_dist dist;
	bool none;          /* no variation */
	double cv;          /* normal */
	double mu, sigma;   /* lognormal: exp(mu + sigma z) has mean 1 and the rule's cv */
	const double *pool; /* empirical: ratios of mean 1 */
	size_t npool;
};

/* A group of an empirical file's values: the ones of one (kind, stage) key. */
struct pool {
	int kind;  /* 0 F, 1 B, 2 W, -1 any */
	int stage; /* -1 any */
	double *v;
	size_t n, cap;
};

/* What every sample of a run draws from; read-only once made. */
struct noise {
	const struct sim *s;
	struct draw *op;      /* [3S] by stage and kind F, B, W (a fused backward takes B's) */
	struct draw msg;      /* messages */
	pp_time *base;        /* [nops] each op's cost (a pair's span at its first op) */
	pp_time *base_msg;    /* [nops] the cost of the message each op sends */
	double stall_every;   /* in ticks; 0: no stalls */
	pp_time stall_length; /* in ticks */
	struct engine_slow slow[PP_MAX_STRAGGLERS];
	size_t nslow;
	struct pool *pools;
	size_t npools;
};

size_t noise_stragglers(const struct config *c, const struct cost *k, struct engine_slow *out)
{
	for (int i = 0; i < c->stragglers.n; i++) {
		const struct pp_straggler *w = &c->stragglers.s[i];

		out[i] = (struct engine_slow){.dev = (uint32_t)w->dev,
		                              .peer = (uint32_t)w->peer,
		                              .link = w->link,
		                              .optional = w->placed,
		                              .at = (pp_time)llround(w->at * (double)k->tick),
		                              .factor = w->factor};
	}
	return (size_t)c->stragglers.n;
}

/* Reads the empirical file: a header "kind,stage,value", then rows of F, B, W or * , a stage
 * of the run or *, and a value > 0 (a time or a ratio: each group is divided by its mean). */
static int read_pools(FILE *f, const char *path, void *ctx, struct pp_error *err)
{
	struct noise *nz = ctx;
	struct text_lines r;
	int rc, status = 0;

	text_lines_init(&r, f, "samples", path);
	while ((rc = text_lines_next(&r, err)) == 1) {
		char *fld[4];
		size_t offs[4];
		long long st = -1;
		double x;
		int kind;
		struct pool *pl = NULL;

		if (r.len == 0 || (r.len == 1 && r.line[0] == '\r'))
			continue;
		if (text_lines_check_csv(&r, err) != 0 ||
		    text_csv_split(r.line, true, fld, offs, 4) != 3)
			goto bad;
		if (r.lineno == 1) {
			if (strcmp(fld[0], "kind") || strcmp(fld[1], "stage") ||
			    strcmp(fld[2], "value"))
				goto bad;
			continue;
		}
		kind = !strcmp(fld[0], "F")   ? 0
		       : !strcmp(fld[0], "B") ? 1
		       : !strcmp(fld[0], "W") ? 2
		       : !strcmp(fld[0], "*") ? -1
		                              : -2;
		if (kind == -2 ||
		    (strcmp(fld[1], "*") != 0 &&
		     text_parse_int(fld[1], 0, PP_MAX_LIST - 1, &st) != TEXT_OK) ||
		    text_parse_double(fld[2], &x) != TEXT_OK || !(x > 0) ||
		    text_lines_check_whole(&r, err) != 0)
			goto bad;
		if (st >= (long long)nz->s->sched->S) {
			status = pp_fail(err, PP_ERR_CONFIG,
			                 "samples '%s':%zu: names stage %lld; there are p*v = %d",
			                 path, r.lineno, st, nz->s->sched->S);
			text_lines_release(&r);
			return status;
		}
		for (size_t i = 0; i < nz->npools; i++)
			if (nz->pools[i].kind == kind && nz->pools[i].stage == (int)st)
				pl = &nz->pools[i];
		if (pl == NULL) {
			struct pool *grown =
			        realloc(nz->pools, (nz->npools + 1) * sizeof(*nz->pools));

			if (grown == NULL)
				goto nomem;
			nz->pools = grown;
			pl = &nz->pools[nz->npools++];
			*pl = (struct pool){kind, (int)st, NULL, 0, 0};
		}
		if (pl->n == pl->cap) {
			size_t cap = pl->cap ? 2 * pl->cap : 16;
			double *v = pp_mallocarray(cap, sizeof(*v));

			if (v == NULL)
				goto nomem;
			if (pl->n > 0)
				memcpy(v, pl->v, pl->n * sizeof(*v));
			free(pl->v);
			pl->v = v;
			pl->cap = cap;
		}
		pl->v[pl->n++] = x;
	}
	if (rc == 0 && nz->npools == 0)
		status = pp_fail(err, PP_ERR_CONFIG, "samples '%s': no values", path);
	text_lines_release(&r);
	return rc < 0 ? -1 : status;
bad:
	if (err->msg[0] == '\0')
		pp_fail(err, PP_ERR_CONFIG,
		        "samples '%s':%zu: must be a header kind,stage,value then rows of F, B, W "
		        "or "
		        "*, a stage or *, and a value above 0",
		        path, r.lineno);
	text_lines_release(&r);
	return -1;
nomem:
	text_lines_release(&r);
	return pp_fail(err, PP_ERR_NOMEM, "out of memory reading '%s'", path);
}

/* The most specific pool for ops of kind k at stage st: (k, st), (k, *), (*, st), (*, *). */
static const struct pool *pool_for(const struct noise *nz, int k, int st)
{
	const int keys[4][2] = {{k, st}, {k, -1}, {-1, st}, {-1, -1}};

	for (int j = 0; j < 4; j++)
		for (size_t i = 0; i < nz->npools; i++)
			if (nz->pools[i].kind == keys[j][0] && nz->pools[i].stage == keys[j][1])
				return &nz->pools[i];
	return NULL;
}

/* Makes rule r (or none) ready to draw into *d for ops of kind k at stage st. */
static int draw_of(const struct noise *nz, const struct pp_jitter_rule *r, int k, int st,
                   struct draw *d, struct pp_error *err)
{
	const struct pool *pl;

	*d = (struct draw){.none = true};
	if (r == NULL || (r->dist != PP_NOISE_EMPIRICAL && r->cv == 0))
		return 0;
	d->none = false;
	d->dist = r->dist;
	d->cv = r->cv;
	d->sigma = sqrt(log1p(r->cv * r->cv));
	d->mu = -d->sigma * d->sigma / 2;
	if (r->dist != PP_NOISE_EMPIRICAL)
		return 0;
	if ((pl = pool_for(nz, k, st)) == NULL && k < 0) /* a message's: any row */
		return pp_fail(err, PP_ERR_CONFIG,
		               "samples '%s': no value for messages, which draw from the rows of "
		               "kind * and stage *",
		               nz->s->config.link_jitter.file);
	if (pl == NULL)
		return pp_fail(err, PP_ERR_CONFIG, "samples '%s': no value for %c ops of stage %d",
		               nz->s->config.jitter.file[0] != '\0'
		                       ? nz->s->config.jitter.file
		                       : nz->s->config.link_jitter.file,
		               "FBW"[k], st);
	d->pool = pl->v;
	d->npool = pl->n;
	return 0;
}

/* Divides each pool by its mean. */
static void normalise_pools(struct noise *nz)
{
	for (size_t i = 0; i < nz->npools; i++) {
		double *v = nz->pools[i].v, n = (double)nz->pools[i].n, sum = 0, top = 0;

		for (size_t j = 0; j < nz->pools[i].n; j++)
			sum += v[j];
		if (isfinite(sum)) {
			for (size_t j = 0; j < nz->pools[i].n; j++)
				v[j] *= n / sum;
			continue;
		}
		/* values whose sum passes the largest double: divided by the largest first */
		for (size_t j = 0; j < nz->pools[i].n; j++)
			top = v[j] > top ? v[j] : top;
		sum = 0;
		for (size_t j = 0; j < nz->pools[i].n; j++)
			sum += v[j] / top;
		for (size_t j = 0; j < nz->pools[i].n; j++)
			v[j] = v[j] / top * (n / sum);
	}
}

/* The last rule of j that selects ops of kind bit kb at stage st, or NULL. */
static const struct pp_jitter_rule *rule_for(const struct pp_jitter *j, unsigned kb, int st)
{
	const struct pp_jitter_rule *r = NULL;

	for (int i = 0; i < j->n; i++)
		if ((j->r[i].kinds & kb) && (j->r[i].stage < 0 || j->r[i].stage == st))
			r = &j->r[i];
	return r;
}

static void noise_release(struct noise *nz)
{
	free(nz->op);
	free(nz->base);
	free(nz->base_msg);
	for (size_t i = 0; i < nz->npools; i++)
		free(nz->pools[i].v);
	free(nz->pools);
}

static int noise_init(struct noise *nz, const struct sim *s, struct pp_error *err)
{
	const struct config *c = &s->config;
	const struct sched *sc = s->sched;
	const struct cost *k = s->cost;
	const char *file = c->jitter.file[0] != '\0' ? c->jitter.file : c->link_jitter.file;
	unsigned char *used; /* [S] the kinds of op each stage runs, bits 1 << F, B, W */

	*nz = (struct noise){.s = s};
	nz->op = pp_mallocarray(3 * (size_t)sc->S, sizeof(*nz->op));
	nz->base = pp_mallocarray(sc->nops > 0 ? sc->nops : 1, sizeof(*nz->base));
	nz->base_msg = pp_mallocarray(sc->nops > 0 ? sc->nops : 1, sizeof(*nz->base_msg));
	if (nz->op == NULL || nz->base == NULL || nz->base_msg == NULL)
		return pp_nomem(err, sc->nops, 2 * sizeof(pp_time));
	if (c->jitter.file[0] != '\0' && c->link_jitter.file[0] != '\0' &&
	    strcmp(c->jitter.file, c->link_jitter.file) != 0)
		return config_fail(c, "link_jitter", err,
		                   "takes its empirical samples from --jitter's file '%s'",
		                   c->jitter.file);
	if (file[0] != '\0') {
		if (text_read_file(file, read_pools, nz, err) != 0)
			return -1;
		normalise_pools(nz);
	}
	/* only the kinds each stage's ops take need a draw (and an empirical file's rows): a
	 * fused backward takes B's, and a schedule that fuses it has no W */
	used = pp_zalloc((size_t)sc->S, sizeof(*used), err);
	if (used == NULL)
		return -1;
	for (size_t i = 0; i < sc->nops; i++)
		used[sc->ops[i].stage] |=
		        (unsigned char)(1u << (sc->ops[i].kind == OP_BW ? OP_B : sc->ops[i].kind));
	for (int st = 0; st < sc->S; st++)
		for (int kd = 0; kd < 3; kd++) {
			nz->op[3 * st + kd] = (struct draw){.none = true};
			if ((used[st] & (1u << kd)) &&
			    draw_of(nz, rule_for(&c->jitter, 1u << kd, st), kd, st,
			            &nz->op[3 * st + kd], err) != 0) {
				free(used);
				return -1;
			}
		}
	free(used);
	if (draw_of(nz, c->link_jitter.n > 0 ? &c->link_jitter.r[0] : NULL, -1, -1, &nz->msg,
	            err) != 0)
		return -1;
	for (size_t i = 0; i < sc->nops; i++) {
		nz->base[i] = engine_cost_duration(s->engine, i);
		nz->base_msg[i] = engine_cost_msg_duration(s->engine, i);
	}
	if (c->stall_every > 0) {
		nz->stall_every = c->stall_every * (double)k->tick;
		nz->stall_length = (pp_time)llround(c->stall_length * (double)k->tick);
	}
	nz->nslow = noise_stragglers(c, k, nz->slow);
	return 0;
}

/* The factor d draws from the 64-bit value x. */
static inline double factor(const struct draw *d, uint64_t x)
{
	double u = pp_uniform_of(x), f;

	switch (d->dist) {
	case PP_NOISE_NORMAL:
		f = 1 + d->cv * pp_normal_quantile(u);
		return f > 0 ? f : 0;
	case PP_NOISE_LOGNORMAL:
		return exp(d->mu + d->sigma * pp_normal_quantile(u));
	case PP_NOISE_EMPIRICAL:
		return d->pool[(size_t)(u * (double)d->npool)];
	}
	return 1;
}

/* Fills sample j's op and message durations. */
static void fill(const struct noise *nz, uint64_t j, pp_time *op_dur, pp_time *msg_dur)
{
	const struct sched *s = nz->s->sched;
	const struct cost *k = nz->s->cost;
	uint64_t seed = nz->s->config.seed;

	for (size_t i = 0; i < s->nops; i++) {
		const struct op *op = &s->ops[i];
		const struct draw *d =
		        &nz->op[3 * (size_t)op->stage + (op->kind == OP_BW ? 1 : op->kind)];
		pp_time t = nz->base[i];

		msg_dur[i] = nz->msg.none || nz->base_msg[i] == 0
		                     ? nz->base_msg[i]
		                     : (pp_time)llround((double)nz->base_msg[i] *
		                                        factor(&nz->msg,
		                                               pp_random_at(seed, j, i, DRAW_MSG)));
		if (i > 0 && (op[-1].flags & OP_OVERLAP)) {
			op_dur[i] = 0; /* the pair's span is in its first op's entry */
			continue;
		}
		if (op->flags & OP_OVERLAP) {
			/* a pair: its span scaled by its two ops' draws, weighed by their costs */
			const struct op *b = op + 1;
			const struct draw *db = &nz->op[3 * (size_t)b->stage + 1];
			double wf = (double)k->t_f[op->stage],
			       wb = (double)k->t_b[b->stage] +
			            (b->kind == OP_BW ? (double)k->t_w[b->stage] : 0),
			       ff = d->none ? 1 : factor(d, pp_random_at(seed, j, i, DRAW_OP)),
			       fb = db->none ? 1
			                     : factor(db, pp_random_at(seed, j, i + 1, DRAW_OP));

			if ((!d->none || !db->none) && wf + wb > 0)
				t = (pp_time)llround((double)t * (ff * wf + fb * wb) / (wf + wb));
		} else if (!d->none) {
			t = (pp_time)llround((double)t *
			                     factor(d, pp_random_at(seed, j, i, DRAW_OP)));
		}
		if (nz->stall_every > 0 && pp_uniform_of(pp_random_at(seed, j, i, DRAW_STALL)) <
		                                   -expm1(-(double)t / nz->stall_every))
			t += nz->stall_length;
		op_dur[i] = t;
	}
}

double sample_step(const struct metrics *m)
{
	return m->has_model ? m->step_time : m->makespan;
}

/* One thread's share of the samples: every jobs-th from its own. */
struct share {
	const struct noise *nz;
	struct samples *out;
	int jobs, t;
	int rc;
	struct pp_error err;
};

static void *run_share(void *arg)
{
	struct share *sh = arg;
	const struct sim *s = sh->nz->s;
	size_t n = s->sched->nops > 0 ? s->sched->nops : 1;
	pp_time *op_dur = pp_mallocarray(n, sizeof(*op_dur)),
	        *msg_dur = pp_mallocarray(n, sizeof(*msg_dur));

	if (op_dur == NULL || msg_dur == NULL) {
		sh->rc = pp_nomem(&sh->err, n, 2 * sizeof(pp_time));
		goto out;
	}
	for (uint64_t x = (uint64_t)sh->t; x < sh->out->n; x += (uint64_t)sh->jobs) {
		uint64_t j = sh->out->first + x;
		struct engine_perturb pt = {op_dur, msg_dur, sh->nz->slow, sh->nz->nslow};
		struct critical_path cp;
		struct metrics m;
		struct engine *e;
		const struct result *r;

		fill(sh->nz, j, op_dur, msg_dur);
		if ((e = engine_new(s->sched, s->cost, &sh->err)) == NULL) {
			sh->rc = -1;
			goto out;
		}
		/* the critical path walks back over the op times (and, over half-duplex links,
		 * the order messages took their channels in) */
		if (s->config.duplex == PP_DUPLEX_HALF)
			engine_record_order(e);
		if (engine_perturb(e, &pt, &sh->err) != 0 || engine_run(e, &sh->err) != 0 ||
		    metrics_init(&m, s->sched, s->cost, (r = engine_result(e)), &sh->err) != 0) {
			engine_free(e);
			sh->rc = -1;
			goto out;
		}
		sh->out->s[x] = (struct sample){sample_step(&m), m.bubble_ratio, 0, 0};
		metrics_release(&m);
		if (engine_critical_path(e, &cp, NULL, NULL, &sh->err) != 0) {
			engine_free(e);
			sh->rc = -1;
			goto out;
		}
		for (int d = 1; d < (cp.length > 0 ? r->p : 0); d++)
			if (cp.devices[d] > cp.devices[sh->out->s[x].critical_device])
				sh->out->s[x].critical_device = d;
		if (cp.length > 0)
			sh->out->s[x].critical_share =
			        (double)cp.devices[sh->out->s[x].critical_device] /
			        (double)cp.length;
		critical_path_release(&cp);
		engine_free(e);
	}
out:
	free(op_dur);
	free(msg_dur);
	return NULL;
}

/* Most threads samples run on. */
#define SAMPLES_MAX_THREADS 256

int samples_run(const struct sim *s, uint64_t first, uint64_t last, int jobs, struct samples *out,
                struct pp_error *err)
{
	struct noise nz;
	struct share *sh = NULL;
	struct pp_thread *start = NULL;
	pthread_t *th = NULL;
	int started = 0, rc = -1;

	*out = (struct samples){
	        .first = first, .n = last - first, .seed = s->config.seed, .p = s->sched->p};
	if (noise_init(&nz, s, err) != 0)
		goto out;
	if (jobs > SAMPLES_MAX_THREADS)
		jobs = SAMPLES_MAX_THREADS;
	if (jobs < 1 || out->n < (uint64_t)jobs)
		jobs = out->n > 0 ? (int)(out->n < (uint64_t)jobs ? out->n : (uint64_t)jobs) : 1;
	out->s = pp_mallocarray(out->n > 0 ? out->n : 1, sizeof(*out->s));
	sh = pp_calloc((size_t)jobs, sizeof(*sh));
	th = pp_calloc((size_t)jobs, sizeof(*th));
	start = pp_calloc((size_t)jobs, sizeof(*start));
	if (out->s == NULL || sh == NULL || th == NULL || start == NULL) {
		pp_nomem(err, out->n, sizeof(*out->s));
		goto out;
	}
	for (int t = 0; t < jobs; t++)
		sh[t] = (struct share){.nz = &nz, .out = out, .jobs = jobs, .t = t};
	/* each start stays put until its thread has read it */
	for (int t = 1; t < jobs; t++) {
		start[t] = pp_thread_of(run_share, &sh[t]);
		if (pp_thread_create(&th[t], &start[t]) != 0)
			break;
		started = t;
	}
	run_share(&sh[0]);
	/* a share whose thread did not start runs here */
	for (int t = started + 1; t < jobs; t++)
		run_share(&sh[t]);
	for (int t = 1; t <= started; t++)
		pthread_join(th[t], NULL);
	rc = 0;
	/* the first failure in sample order is the one told */
	for (int t = 0; t < jobs; t++)
		if (sh[t].rc != 0) {
			*err = sh[t].err;
			rc = -1;
			break;
		}
	if (rc == 0)
		rc = samples_settle(out, err);
out:
	noise_release(&nz);
	free(sh);
	free(th);
	free(start);
	if (rc != 0)
		samples_release(out);
	return rc;
}

int samples_settle(struct samples *x, struct pp_error *err)
{
	x->settled = false;
	/* samples read back (merge) name only devices of the run */
	for (uint64_t j = 0; j < x->n; j++)
		if (x->s[j].critical_device < 0 || x->s[j].critical_device >= x->p)
			return pp_fail(err, PP_ERR_CONFIG,
			               "sample %" PRIu64 ": critical device %d, where the run has "
			               "devices 0 to %d (an edited file?)",
			               j, x->s[j].critical_device, x->p - 1);
	if (samples_stats(x, true, &x->step_stats) != 0 ||
	    samples_stats(x, false, &x->bubble_stats) != 0)
		return pp_nomem(err, x->n, sizeof(double));
	x->settled = true;
	return 0;
}

int samples_critical_counts(const struct samples *x, uint64_t *count)
{
	memset(count, 0, (size_t)x->p * sizeof(*count));
	for (uint64_t j = 0; j < x->n; j++)
		if (x->s[j].critical_device >= 0 && x->s[j].critical_device < x->p)
			count[x->s[j].critical_device]++;
	return 0;
}

double sim_rank_figure(const struct sim *s, enum pp_rank_by by)
{
	struct sample_stats x;
	const double *f[] = {NULL, &x.mean, &x.p50, &x.p90, &x.p99};

	if (by == PP_RANK_STEP)
		return sample_step(&s->metrics);
	if (s->samples == NULL || s->samples->n == 0 || samples_stats(s->samples, true, &x) != 0)
		return NAN;
	return *f[by];
}

int sim_sample(struct sim *s, uint64_t first, uint64_t last, int jobs, struct pp_error *err)
{
	struct samples *x = pp_zalloc(1, sizeof(*x), err);

	if (x == NULL)
		return -1;
	if (samples_run(s, first, last, jobs, x, err) != 0) {
		free(x);
		return -1;
	}
	if (s->samples != NULL) {
		samples_release(s->samples);
		free(s->samples);
	}
	s->samples = x;
	return 0;
}

void samples_release(struct samples *x)
{
	free(x->s);
	x->s = NULL;
	x->n = 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int samples_stats(const struct samples *x, bool step, struct sample_stats *out)
{
	double *v;
	long double dev = 0;
	size_t n = (size_t)x->n;

	if (x->settled) {
		*out = step ? x->step_stats : x->bubble_stats;
		return 0;
	}
	if ((v = pp_mallocarray(x->n > 0 ? x->n : 1, sizeof(*v))) == NULL)
		return -1;
	*out = (struct sample_stats){0};
	for (size_t i = 0; i < n; i++) {
		v[i] = step ? x->s[i].step : x->s[i].bubble;
		/* about the first, in sample order: samples that do not vary have its mean exactly
		 */
		dev += (long double)v[i] - (long double)v[0];
	}
	if (n > 0) {
		out->mean = (double)((long double)v[0] + dev / (long double)n);
		qsort(v, n, sizeof(*v), cmp_double);
		/* nearest rank: the smallest value with at least q of the samples at or below it */
		out->p50 = v[(size_t)ceil(0.50 * (double)n) - 1];
		out->p90 = v[(size_t)ceil(0.90 * (double)n) - 1];
		out->p99 = v[(size_t)ceil(0.99 * (double)n) - 1];
		out->min = v[0];
		out->max = v[n - 1];
	}
	free(v);
	return 0;
}
