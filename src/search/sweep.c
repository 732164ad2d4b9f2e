/*
 * Sweeps: axes of option values (lists and integer ranges, each value checked as the option
 * would be), points numbered with the last axis varying fastest, and their evaluation: each
 * point's config is the base with one value per axis, simulated into a record (or skipped with
 * the reason). Parallel runs hand points to workers within a window ahead of the writer, so
 * records still come out in index order.
 */
#include "ppsim/sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "ppsim/advise.h"
#include "ppsim/samples.h"
#include "ppsim/schedfile.h"
#include "ppsim/sched.h"
#include "ppsim/sim.h"
#include "sweep_work.h"

void sweep_init(struct sweep *sw, const struct config *base)
{
	memset(sw, 0, sizeof(*sw));
	sw->parallel_work = SWEEP_PARALLEL_WORK;
	if (base != NULL)
		sw->base = *base;
	else
		config_init(&sw->base);
}

static void free_values(struct sweep_axis *a)
{
	for (int i = 0; i < a->nvalues; i++)
		free(a->values[i]);
	free(a->values);
	a->values = NULL;
	a->nvalues = 0;
}

bool sweep_has_samples(const struct sweep *sw)
{
	for (int a = 0; a < sw->naxes; a++)
		if (strcmp(sw->axes[a].opt->key, "samples") == 0)
			return true;
	return sw->base.samples > 0;
}

void sweep_release(struct sweep *sw)
{
	for (int i = 0; i < sw->naxes; i++)
		free_values(&sw->axes[i]);
	sw->naxes = 0;
}

/* The values of an axis while they are collected. */
struct values {
	char **v;
	int n;
	size_t cap;
};

/*
 * Checks value as option a's single value on a copy of base and appends its canonical form.
 * Returns 0, or -1 with the option's own error.
 */
static int add_value(struct values *vs, const struct sweep *sw, const struct sweep_axis *a,
                     const char *value, struct pp_error *err)
{
	struct config *c;
	char *canon;

	if (vs->n == SWEEP_MAX_VALUES)
		return pp_fail(err, PP_ERR_USAGE, "%s: more than %d values", a->label,
		               SWEEP_MAX_VALUES);
	c = pp_malloc(sizeof(*c));
	if (c == NULL)
		return pp_nomem(err, 1, sizeof(*c));
	*c = sw->base;
	if (config_set(c, a->opt, a->label, value, err) != 0) {
		free(c);
		return -1;
	}
	/* its canonical text, which the sweep's points read back: whole (CONFIG_VALUE_MAX) */
	if ((canon = pp_malloc(CONFIG_VALUE_MAX)) == NULL) {
		free(c);
		return pp_nomem(err, 1, CONFIG_VALUE_MAX);
	}
	config_format_value(c, a->opt, canon, CONFIG_VALUE_MAX);
	free(c);
	if (pp_grow((void **)&vs->v, &vs->cap, (size_t)vs->n + 1, sizeof(*vs->v), err) != 0) {
		free(canon);
		return -1;
	}
	vs->v[vs->n] = pp_strdup(canon);
	if (vs->v[vs->n] == NULL) {
		size_t len = strlen(canon) + 1;

		free(canon);
		return pp_nomem(err, len, 1);
	}
	free(canon);
	vs->n++;
	return 0;
}

/* Parses a whole unsigned decimal integer; false on anything else. */
static bool parse_u64(const char *s, uint64_t *out)
{
	return text_parse_uint(s, 0, UINT64_MAX, out) == TEXT_OK;
}

/*
 * Expands the range item "A:B", "A:B:S", "A:B:+S" or "A:B:xF" of an integer option into vs.
 * Returns 0, or -1 with a usage error naming the range.
 */
static int add_range(struct values *vs, const struct sweep *sw, const struct sweep_axis *a,
                     const char *item, struct pp_error *err)
{
	char buf[128], *f[3];
	size_t nf;
	uint64_t lo, hi, step = 1;
	bool times = false;

	if (a->opt->arg != CONFIG_ARG_COUNT && a->opt->arg != CONFIG_ARG_BYTES)
		return pp_fail(err, PP_ERR_USAGE,
		               "%s '%s': a range A:B needs an integer option; give a list",
		               a->label, item);
	if (strlen(item) >= sizeof(buf))
		return pp_fail(err, PP_ERR_USAGE, "%s '%.40s...': range too long", a->label, item);
	strcpy(buf, item);
	nf = text_split(buf, ':', f, 3);
	if (nf > 3)
		return pp_fail(err, PP_ERR_USAGE,
		               "%s '%s': a range is A:B, A:B:STEP or A:B:xFACTOR", a->label, item);
	if (nf == 3) {
		const char *s = f[2];

		times = *s == 'x' || *s == '*';
		s += times || *s == '+';
		if (!parse_u64(s, &step) || step == 0 || (times && step < 2))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': the step must be an integer of at least 1, and a "
			               "factor (xF) at least 2",
			               a->label, item);
	}
	if (!parse_u64(f[0], &lo) || !parse_u64(f[1], &hi))
		return pp_fail(err, PP_ERR_USAGE, "%s '%s': A and B must be whole numbers",
		               a->label, item);
	if (lo > hi)
		return pp_fail(err, PP_ERR_USAGE, "%s '%s': the range goes from A up to B, A <= B",
		               a->label, item);
	if (times && lo == 0)
		return pp_fail(err, PP_ERR_USAGE, "%s '%s': a range of factors starts above 0",
		               a->label, item);
	for (uint64_t x = lo;;) {
		char num[32];

		snprintf(num, sizeof(num), "%" PRIu64, x);
		if (add_value(vs, sw, a, num, err) != 0)
			return -1;
		if (times ? x > hi / step : x > hi - step)
			break;
		x = times ? x * step : x + step;
		if (x > hi)
			break;
	}
	return 0;
}

int sweep_set_axis(struct sweep *sw, const struct config_option *opt, const char *label,
                   const char *spec, struct pp_error *err)
{
	struct sweep_axis a = {opt, "", NULL, 0, -1};
	struct values vs = {NULL, 0, 0};
	char *copy, *save = NULL;
	int slot = sw->naxes, varying;
	uint64_t points;
	bool whole;

	snprintf(a.label, sizeof(a.label), "%s", label);
	for (int i = 0; i < sw->naxes; i++)
		if (sw->axes[i].opt == opt)
			slot = i;
	if (slot == SWEEP_MAX_OPTIONS)
		return pp_fail(err, PP_ERR_USAGE, "%s: at most %d options can be given to a sweep",
		               label, SWEEP_MAX_OPTIONS);
	if (*spec == '\0' || spec[strlen(spec) - 1] == ',' || *spec == ',' ||
	    strstr(spec, ",,") != NULL)
		return pp_fail(err, PP_ERR_USAGE, "%s '%s': an empty value in the list", label,
		               spec);
	if ((copy = pp_strdup(spec)) == NULL)
		return pp_nomem(err, strlen(spec) + 1, 1);
	/* a whole value is one item, commas and all: so is a file's name and an option's own
	 * list (--layers-per-stage, --stage-scale) */
	whole = (opt->flags & CONFIG_WHOLE) || opt->arg == CONFIG_ARG_PATH ||
	        opt->arg == CONFIG_ARG_LIST || opt->arg == CONFIG_ARG_SCALES;
	for (char *item = whole ? copy : strtok_r(copy, ",", &save); item != NULL;
	     item = whole ? NULL : strtok_r(NULL, ",", &save)) {
		int rc = 0;

		if (whole)
			rc = add_value(&vs, sw, &a, item, err);
		else if (strcmp(opt->key, "schedule") == 0 && strcmp(item, "all") == 0) {
			size_t n;
			const struct sched_desc *t = sched_table(&n);

			for (size_t i = 0; i < n && rc == 0; i++)
				rc = add_value(&vs, sw, &a, t[i].name, err);
		} else if (strchr(item, ':') != NULL) {
			rc = add_range(&vs, sw, &a, item, err);
		} else {
			rc = add_value(&vs, sw, &a, item, err);
		}
		if (rc != 0) {
			a.values = vs.v;
			a.nvalues = vs.n;
			free_values(&a);
			free(copy);
			return -1;
		}
	}
	free(copy);
	a.values = vs.v;
	a.nvalues = vs.n;
	/* the points with the other axes as they are and this one */
	points = (uint64_t)a.nvalues;
	for (int i = 0; i < sw->naxes; i++)
		if (i != slot)
			points = points > SWEEP_MAX_POINTS ? points
			                                   : points * (uint64_t)sw->axes[i].nvalues;
	if (points > SWEEP_MAX_POINTS) {
		free_values(&a);
		return pp_fail(err, PP_ERR_USAGE,
		               "%s: the sweep would have more than %" PRIu64 " points", label,
		               SWEEP_MAX_POINTS);
	}
	/* only options of several values take a slot in the records */
	varying = a.nvalues > 1;
	for (int i = 0; i < sw->naxes; i++)
		varying += i != slot && sw->axes[i].nvalues > 1;
	if (varying > SWEEP_MAX_AXES) {
		free_values(&a);
		return pp_fail(err, PP_ERR_USAGE, "%s: at most %d options can vary in a sweep",
		               label, SWEEP_MAX_AXES);
	}
	if (slot < sw->naxes) {
		free_values(&sw->axes[slot]);
		/* a later value replaces the earlier one, as for a single option */
		memmove(&sw->axes[slot], &sw->axes[slot + 1],
		        (size_t)(sw->naxes - slot - 1) * sizeof(sw->axes[0]));
		sw->naxes--;
	}
	sw->axes[sw->naxes++] = a;
	varying = 0;
	for (int i = 0; i < sw->naxes; i++)
		sw->axes[i].slot = sw->axes[i].nvalues > 1 ? varying++ : -1;
	return 0;
}

uint64_t sweep_points(const struct sweep *sw)
{
	uint64_t n = 1;

	for (int i = 0; i < sw->naxes; i++) {
		if (n > SWEEP_MAX_POINTS)
			return SWEEP_MAX_POINTS + 1;
		n *= (uint64_t)sw->axes[i].nvalues;
	}
	return n;
}

/* Splits point i into the index of each varying axis's value, by slot; the last axis varies
 * fastest. */
static void point_values(const struct sweep *sw, uint64_t i, int *value)
{
	for (int a = sw->naxes - 1; a >= 0; a--) {
		uint64_t n = (uint64_t)sw->axes[a].nvalues;

		if (sw->axes[a].slot >= 0)
			value[sw->axes[a].slot] = (int)(i % n);
		i /= n;
	}
}

int sweep_point_config(const struct sweep *sw, uint64_t i, struct config *c, struct pp_error *err)
{
	struct sweep_record r;

	point_values(sw, i, r.value);
	*c = sw->base;
	for (int a = 0; a < sw->naxes; a++)
		if (config_set(c, sw->axes[a].opt, sw->axes[a].label,
		               sw->axes[a].values[sweep_value(sw, &r, a)], err) != 0)
			return -1;
	if (sw->advise)
		advise_place_stragglers(c);
	return 0;
}

/* What a point is, simulated or not: its schedule, its shape and, with a model, its layout. */
struct point {
	const char *schedule;
	int p, v, m;
	bool has_model;
	int tp, dp, mbs, cp, ep;
};

static void take_point(struct sweep_record *r, const struct point *pt)
{
	snprintf(r->schedule, sizeof(r->schedule), "%s", pt->schedule);
	r->p = pt->p;
	r->v = pt->v;
	r->m = pt->m;
	r->has_model = pt->has_model;
	if (pt->has_model) {
		r->tp = pt->tp;
		r->dp = pt->dp;
		r->mbs = pt->mbs;
		r->cp = pt->cp;
		r->ep = pt->ep;
		r->gpus = (int)((long long)pt->p * pt->tp * pt->cp * pt->dp);
	}
}

/* Fills the figures of r from a finished simulation; those only a model gives are 0 without
 * one. */
static void take_figures(struct sweep_record *r, const struct sim *s)
{
	const struct metrics *m = &s->metrics;
	const struct cost_model *k = s->cost->model;

	take_point(r, &(struct point){s->config.schedule, s->sched->p, s->sched->v, s->sched->m,
	                              k != NULL, k ? k->tp : 0, k ? k->dp : 0, k ? k->mbs : 0,
	                              k ? k->cp : 0, k ? k->ep : 0});
	snprintf(r->time_unit, sizeof(r->time_unit), "%s", s->cost->time_unit);
	r->makespan = m->makespan;
	r->bubble_ratio = m->bubble_ratio;
	r->bubble_ratio_theory = m->bubble_ratio_theory;
	r->utilization = m->utilization;
	r->messages = m->messages;
	r->bytes = m->bytes;
	r->p2p_time = m->p2p_time;
	r->fits = !m->oom;
	r->step_time = m->step_time;
	r->tokens_per_s = m->tokens_per_s;
	r->mfu = m->mfu;
	r->memory_capacity = m->memory_capacity_bytes;
	if (k != NULL) {
		r->ep_exposed = m->breakdown.exposed[COMM_EP];
		r->ep_comm = m->devices[m->breakdown.device].comm[COMM_EP];
		r->ep_node = k->ep_node;
	}
	r->memory_reserve = m->memory_reserve_bytes;
	for (int d = 0; d < m->p; d++) {
		if (m->devices[d].peak_activations > r->peak_activations)
			r->peak_activations = m->devices[d].peak_activations;
		if (m->devices[d].memory_bytes > r->memory_bytes)
			r->memory_bytes = m->devices[d].memory_bytes;
	}
	r->throughput = k != NULL ? m->tokens_per_s : m->makespan > 0 ? r->m / m->makespan : 0;
}

/* The shape a skipped point asked for, as far as its settings can be settled: a schedule
 * file's own p, v and m when it reads. Returns 0, or -1 when out of memory (r unchanged). */
static int take_settings(struct sweep_record *r, const struct config *c)
{
	struct config *settled = pp_malloc(sizeof(*settled)), *in = pp_malloc(sizeof(*in));
	struct pp_error ignored = {0};
	struct schedfile f;

	if (settled == NULL || in == NULL) {
		free(settled);
		free(in);
		return -1;
	}
	*in = *c;
	if (c->schedule_file[0] != '\0' &&
	    schedfile_read(c->schedule_file, c->max_ops, &f, &ignored) == 0) {
		in->p = f.sched->p;
		in->v = f.sched->v;
		in->m = f.sched->m;
		schedfile_release(&f);
	}
	config_settle(in, settled, &ignored);
	free(in);
	take_point(r, &(struct point){settled->schedule_file[0] ? "file" : settled->schedule,
	                              settled->p, settled->v, settled->m, config_has_model(settled),
	                              settled->tp, settled->dp, settled->mbs, settled->cp,
	                              settled->ep});
	free(settled);
	return 0;
}

/* Runs the noise samples of point s (one thread: points run in parallel) into r. Returns 0, or
 * -1 with err set. */
static int take_samples(struct sweep_record *r, struct sim *s, enum pp_rank_by by,
                        struct pp_error *err)
{
	struct sample_stats x;

	if (sim_sample(s, 0, s->config.samples, 1, err) != 0)
		return -1;
	if (samples_stats(s->samples, true, &x) != 0)
		return pp_nomem(err, (size_t)s->samples->n, sizeof(double));
	r->step_mean = x.mean;
	r->step_p50 = x.p50;
	r->step_p90 = x.p90;
	r->step_p99 = x.p99;
	r->rank_scale = sample_step(&s->metrics) / sim_rank_figure(s, by);
	return 0;
}

/* Whether c slows a link (--straggler D-E), which its run checks against its order's links. */
static bool has_slow_link(const struct config *c)
{
	for (int k = 0; k < c->stragglers.n; k++)
		if (c->stragglers.s[k].link)
			return true;
	return false;
}

void sweep_evaluate(const struct sweep *sw, uint64_t i, struct sweep_record *r)
{
	struct config *c = pp_malloc(sizeof(*c));
	struct pp_error err = {0};
	struct sim *s = NULL;

	memset(r, 0, sizeof(*r));
	r->index = i;
	r->fits = true;
	r->step_mean = r->step_p50 = r->step_p90 = r->step_p99 = NAN;
	r->rank_scale = 1;
	point_values(sw, i, r->value);
	if (c == NULL) {
		/* sweep_run stops at this record */
		pp_nomem(&err, 1, sizeof(*c));
		r->error = err.kind;
		snprintf(r->reason, sizeof(r->reason), "%s", err.msg);
		return;
	}
	/* with --fits, a point whose weights, gradients and optimizer state alone are over its
	 * GPU is skipped before its schedule is generated (unless a slow link must first be found
	 * among its order's links: the run names one that carries nothing first), and one whose
	 * order's activations take it over before it is simulated (SIM_FITS) */
	if (sweep_point_config(sw, i, c, &err) == 0 &&
	    (!sw->require_fit || has_slow_link(c) || sim_state_fits(c, &err) == 0))
		s = sim_run_flags(c, SIM_NO_OP_TIMES | (sw->require_fit ? SIM_FITS : 0), &err);
	if (s != NULL && sw->require_fit && metrics_memory_error(&s->metrics, &err) != 0) {
		sim_free(s);
		s = NULL;
	}
	if (s == NULL) {
		/* out of memory for its settings: sweep_run stops at this record */
		if (take_settings(r, c) != 0)
			pp_nomem(&err, 1, sizeof(*c));
		r->fits = err.kind != PP_ERR_DEVICE_MEM;
		r->error = err.kind;
		snprintf(r->reason, sizeof(r->reason), "%s", err.msg);
	} else {
		r->ok = true;
		take_figures(r, s);
		if (c->samples > 0 && take_samples(r, s, sw->rank_by, &err) != 0) {
			r->ok = false;
			r->error = err.kind;
			snprintf(r->reason, sizeof(r->reason), "%s", err.msg);
		}
	}
	sim_free(s);
	free(c);
}

void sweep_shard(uint64_t npoints, uint64_t k, uint64_t n, uint64_t *first, uint64_t *last)
{
	/* k * npoints can overflow; split into whole and remainder parts */
	uint64_t q = npoints / n, rem = npoints % n;

	*first = q * (k - 1) + rem * (k - 1) / n;
	*last = q * k + rem * k / n;
}

/*
 * x to SCORE_DIGITS significant digits, as the tables show it: the rounding of op times to ticks
 * moves a step by parts in 1e9 between layouts of the same work (a layer's time split over v
 * chunks), which is no difference to rank by. A function of x alone, so that the order stays
 * one (unlike a tolerance); scores that straddle a rounding boundary still part.
 */
#define SCORE_DIGITS 6
static double score_digits(double x)
{
	double q;

	if (!isfinite(x) || x == 0)
		return x;
	q = pow(10, floor(log10(fabs(x))) - (SCORE_DIGITS - 1));
	return round(x / q) * q;
}

/* What ranks a point: tokens/s with a model; else utilization, which compares across p; each
 * at the step --rank-by chose, to SCORE_DIGITS significant digits. */
struct sweep_rank_key sweep_rank_key(const struct sweep_record *r)
{
	return (struct sweep_rank_key){
	        .ok = r->ok,
	        .fits = r->fits,
	        .score = score_digits((r->has_model ? r->tokens_per_s : r->utilization) *
	                              r->rank_scale),
	        .memory = r->has_model ? r->memory_bytes : r->peak_activations,
	        .index = r->index};
}

int sweep_rank_key_compare(const struct sweep_rank_key *a, const struct sweep_rank_key *b)
{
	if (a->ok != b->ok)
		return a->ok ? -1 : 1;
	if (a->fits != b->fits)
		return a->fits ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->memory != b->memory)
		return a->memory < b->memory ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

int sweep_rank_compare(const struct sweep_record *a, const struct sweep_record *b)
{
	struct sweep_rank_key x = sweep_rank_key(a), y = sweep_rank_key(b);

	return sweep_rank_key_compare(&x, &y);
}

void sweep_keep_best(struct sweep_record *top, int *n, int max, const struct sweep_record *r)
{
	int lo = 0, hi = *n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (sweep_rank_compare(&top[mid], r) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= max)
		return;
	if (*n == max)
		(*n)--;
	memmove(&top[lo + 1], &top[lo], (size_t)(*n - lo) * sizeof(*top));
	top[lo] = *r;
	(*n)++;
}

void sweep_ranking_init(struct sweep_ranking *k, struct sweep_record *top, int max,
                        sweep_emit emit, void *ctx)
{
	memset(k, 0, sizeof(*k));
	k->top = top;
	k->max = max;
	k->emit = emit;
	k->ctx = ctx;
}

int sweep_ranking_add(void *arg, const struct sweep_record *r)
{
	struct sweep_ranking *k = arg;

	k->totals.points++;
	if (r->ok) {
		k->totals.simulated++;
		sweep_keep_best(k->top, &k->n, k->max, r);
	} else if (k->totals.skipped++ == 0) {
		k->totals.first_skipped = r->index;
		snprintf(k->totals.first_reason, sizeof(k->totals.first_reason), "%s", r->reason);
	}
	k->totals.over_memory += !r->fits;
	return k->emit != NULL ? k->emit(k->ctx, r) : 0;
}

int sweep_run_ranked(const struct sweep *sw, uint64_t first, uint64_t last, int jobs,
                     struct sweep_record *top, int max, int *ntop, struct sweep_totals *totals,
                     sweep_emit emit, void *ctx, struct pp_error *err)
{
	struct sweep_ranking k;
	int rc;

	sweep_ranking_init(&k, top, max, emit, ctx);
	rc = sweep_run(sw, first, last, jobs, sweep_ranking_add, &k, err);
	*ntop = k.n;
	*totals = k.totals;
	return rc;
}

/* Passes r to emit, unless r ran out of memory or could not read a file (a schedule file, a
 * jitter's empirical file: the sweep's input, not a point's settings): then the sweep stops
 * with that error. */
static int emit_record(sweep_emit emit, void *ctx, const struct sweep_record *r,
                       struct pp_error *err)
{
	if (r->error == PP_ERR_NOMEM || r->error == PP_ERR_IO)
		return pp_fail(err, r->error, "%s", r->reason);
	return emit(ctx, r);
}

/*
 * Parallel evaluation: workers claim runs of up to `chunk` consecutive points within a window
 * ahead of the writer (one lock and one wake-up a run, not a point), and the points being
 * simulated at once hold at most the base's --max-ops ops between them (a point above that
 * alone runs when no other does; a worker holds one point of its run at a time), so that a
 * sweep's memory is bounded as one run's is, whatever --jobs.
 */
struct pool {
	const struct sweep *sw;
	const struct point_cost *cost; /* [last - first] */
	uint64_t first, last;
	uint64_t budget;              /* ops the points simulated at once may hold */
	uint64_t busy;                /* ops of the points being simulated */
	int running;                  /* runs being simulated */
	uint64_t next;                /* the next point to claim */
	uint64_t emitted;             /* the next point to emit */
	uint64_t window;              /* slots: points claimed but not yet emitted */
	uint64_t chunk;               /* most points a worker claims at once */
	uint64_t share;               /* the work (point_work) a run of more than one point
	                               * keeps within, so that no run holds much of the whole */
	struct sweep_record *records; /* [window]; point i in slot (i - first) % window */
	bool *done;                   /* [window] */
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t ready; /* a record is done */
	pthread_cond_t room;  /* a slot was emitted */
};

static void *worker(void *arg)
{
	struct pool *pl = arg;

	for (;;) {
		uint64_t i, n, ops = 0;

		pthread_mutex_lock(&pl->lock);
		while (!pl->stop && pl->next < pl->last && pl->next >= pl->emitted + pl->window)
			pthread_cond_wait(&pl->room, &pl->lock);
		if (pl->stop || pl->next >= pl->last) {
			pthread_mutex_unlock(&pl->lock);
			return NULL;
		}
		i = pl->next;
		n = pl->emitted + pl->window - i;
		n = n < pl->chunk ? n : pl->chunk;
		n = n < pl->last - i ? n : pl->last - i;
		for (uint64_t k = 0, work = 0; k < n; k++) {
			work += point_work(&pl->cost[i + k - pl->first]);
			if (k > 0 && work > pl->share) {
				n = k;
				break;
			}
		}
		pl->next += n;
		for (uint64_t k = i; k < i + n; k++)
			if (pl->cost[k - pl->first].ops > ops)
				ops = pl->cost[k - pl->first].ops;
		while (!pl->stop && pl->running > 0 && pl->busy + ops > pl->budget)
			pthread_cond_wait(&pl->room, &pl->lock);
		if (pl->stop) {
			pthread_mutex_unlock(&pl->lock);
			return NULL;
		}
		pl->busy += ops;
		pl->running++;
		pthread_mutex_unlock(&pl->lock);
		/* the slots are this worker's until the writer has emitted them */
		for (uint64_t k = i; k < i + n; k++)
			sweep_evaluate(pl->sw, k, &pl->records[(k - pl->first) % pl->window]);
		pthread_mutex_lock(&pl->lock);
		pl->busy -= ops;
		pl->running--;
		for (uint64_t k = i; k < i + n; k++)
			pl->done[(k - pl->first) % pl->window] = true;
		pthread_cond_broadcast(&pl->ready);
		pthread_cond_broadcast(&pl->room);
		pthread_mutex_unlock(&pl->lock);
	}
}

static int run_serial(const struct sweep *sw, uint64_t first, uint64_t last, sweep_emit emit,
                      void *ctx, struct pp_error *err);

static int run_parallel(const struct sweep *sw, const struct point_cost *cost, uint64_t first,
                        uint64_t last, int jobs, sweep_emit emit, void *ctx, struct pp_error *err)
{
	struct pool pl;
	struct pp_thread start;
	pthread_t *threads = pp_mallocarray((size_t)jobs, sizeof(*threads));
	int started = 0, status = 0;

	memset(&pl, 0, sizeof(pl));
	pl.sw = sw;
	pl.cost = cost;
	pl.first = pl.next = pl.emitted = first;
	pl.last = last;
	pl.budget = sw->base.max_ops;
	/* runs of points short enough that every worker gets several, at most 32 */
	pl.chunk = (last - first) / ((uint64_t)jobs * 8);
	pl.chunk = pl.chunk < 1 ? 1 : pl.chunk > 32 ? 32 : pl.chunk;
	pl.window = (uint64_t)jobs * 4 * pl.chunk;
	/* the largest points of a grid come together (its last axes vary fastest): runs of equal
	 * work rather than equal counts keep one worker from taking them all at the end */
	for (uint64_t i = first; i < last; i++)
		pl.share += point_work(&cost[i - first]);
	pl.share /= (uint64_t)jobs * 16;
	pl.records = pp_mallocarray((size_t)pl.window, sizeof(*pl.records));
	pl.done = pp_calloc((size_t)pl.window, sizeof(*pl.done));
	if (threads == NULL || pl.records == NULL || pl.done == NULL) {
		/* no room for the workers' records: the same points, one at a time */
		free(pl.done);
		free(pl.records);
		free(threads);
		return run_serial(sw, first, last, emit, ctx, err);
	}
	pthread_mutex_init(&pl.lock, NULL);
	pthread_cond_init(&pl.ready, NULL);
	pthread_cond_init(&pl.room, NULL);
	start = pp_thread_of(worker, &pl);
	for (int t = 0; t < jobs; t++)
		if (pp_thread_create(&threads[started], &start) == 0)
			started++;
	if (started == 0)
		/* no thread could start: evaluate here */
		status = run_serial(sw, first, last, emit, ctx, err);
	for (uint64_t i = first; started > 0 && i < last && status == 0; i++) {
		uint64_t slot = (i - first) % pl.window;

		pthread_mutex_lock(&pl.lock);
		while (!pl.done[slot])
			pthread_cond_wait(&pl.ready, &pl.lock);
		pthread_mutex_unlock(&pl.lock);
		status = emit_record(emit, ctx, &pl.records[slot], err);
		pthread_mutex_lock(&pl.lock);
		pl.done[slot] = false;
		pl.emitted = i + 1;
		/* the workers wait for room only when the window is full: wake them once a run of
		 * slots is free, not at every point */
		if ((i + 1 - first) % pl.chunk == 0 || i + 1 == last)
			pthread_cond_broadcast(&pl.room);
		pthread_mutex_unlock(&pl.lock);
	}
	pthread_mutex_lock(&pl.lock);
	pl.stop = true;
	pthread_cond_broadcast(&pl.room);
	pthread_mutex_unlock(&pl.lock);
	for (int t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	pthread_cond_destroy(&pl.room);
	pthread_cond_destroy(&pl.ready);
	pthread_mutex_destroy(&pl.lock);
	free(pl.done);
	free(pl.records);
	free(threads);
	return status;
}

/* Evaluates and emits the points one after the other in this thread; allocates nothing, so
 * that it is also the way out when the parallel pool cannot be allocated. */
static int run_serial(const struct sweep *sw, uint64_t first, uint64_t last, sweep_emit emit,
                      void *ctx, struct pp_error *err)
{
	struct sweep_record r;
	int status = 0;

	for (uint64_t i = first; i < last && status == 0; i++) {
		sweep_evaluate(sw, i, &r);
		status = emit_record(emit, ctx, &r, err);
	}
	return status;
}

int sweep_run(const struct sweep *sw, uint64_t first, uint64_t last, int jobs, sweep_emit emit,
              void *ctx, struct pp_error *err)
{
	struct pp_error ignored = {0};
	struct point_cost *cost;
	uint64_t work = 0;
	int rc;

	if (jobs > 1 && (uint64_t)jobs > last - first)
		jobs = (int)(last - first);
	if (sweep_check_work(sw, first, last, jobs, &cost, &work, err != NULL ? err : &ignored) != 0)
		return -1;
	/* below parallel_work, starting threads and handing records over costs more than the
	 * other cores give back */
	if (jobs > 1 && last - first > 1 && work >= sw->parallel_work)
		rc = run_parallel(sw, cost, first, last, jobs, emit, ctx, err);
	else
		rc = run_serial(sw, first, last, emit, ctx, err);
	free(cost);
	return rc;
}
