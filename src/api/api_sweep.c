/*
 * A sweep as data (ppsim.h: pp_sweep_run): every point of a grid of settings around a config,
 * simulated by the search layer's sweep (src/search/sweep.c) as `ppsim sweep` runs it, kept as
 * the figures of its records, the reason of each skipped point and the key its ranking reads
 * (sweep_rank_key), in point order. A record is 1 KB with its reason's room; a point kept here
 * is a few hundred bytes, its reason only when it has one. An advice (pp_advise) is the sweep
 * `ppsim advise` runs: its layout axes added to the config (advise_add_axes), ranked alike.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "ppsim/advise.h"
#include "ppsim/sweep.h"

enum kind { INT, U64, NUM, BOOL };

/* A figure of a point: its name (the key of a `ppsim sweep --format=jsonl` record) and where
 * the record holds it. */
struct column {
	const char *name;
	enum kind kind;
	bool shape;      /* known for a skipped point too */
	bool model_only; /* only for a point priced from a model */
	size_t offset;   /* in struct sweep_record */
};

#define AT(f) offsetof(struct sweep_record, f)

static const struct column columns[] = {
        {"p", INT, true, false, AT(p)},
        {"v", INT, true, false, AT(v)},
        {"m", INT, true, false, AT(m)},
        {"tp", INT, true, true, AT(tp)},
        {"cp", INT, true, true, AT(cp)},
        {"ep", INT, true, true, AT(ep)},
        {"dp", INT, true, true, AT(dp)},
        {"mbs", INT, true, true, AT(mbs)},
        {"gpus", INT, true, true, AT(gpus)},
        {"makespan", NUM, false, false, AT(makespan)},
        {"bubble_ratio", NUM, false, false, AT(bubble_ratio)},
        {"bubble_ratio_theory", NUM, false, false, AT(bubble_ratio_theory)},
        {"utilization", NUM, false, false, AT(utilization)},
        {"peak_activations", NUM, false, false, AT(peak_activations)},
        {"p2p_messages", U64, false, false, AT(messages)},
        {"p2p_bytes", U64, false, false, AT(bytes)},
        {"p2p_time", NUM, false, false, AT(p2p_time)},
        {"throughput", NUM, false, false, AT(throughput)},
        {"step_time", NUM, false, true, AT(step_time)},
        {"tokens_per_s", NUM, false, true, AT(tokens_per_s)},
        {"mfu", NUM, false, true, AT(mfu)},
        {"memory_bytes", NUM, false, true, AT(memory_bytes)},
        {"fits", BOOL, false, true, AT(fits)},
        {"step_mean", NUM, false, false, AT(step_mean)},
        {"step_p50", NUM, false, false, AT(step_p50)},
        {"step_p90", NUM, false, false, AT(step_p90)},
        {"step_p99", NUM, false, false, AT(step_p99)},
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

/* What a point keeps of its record. */
struct point {
	double fig[NCOLUMNS];       /* by column; NaN where the record has none */
	char *reason;               /* why it was skipped (owned), NULL when simulated */
	struct sweep_rank_key key;  /* where it ranks */
	int value[SWEEP_MAX_AXES];  /* the index of each axis's value */
	char time_unit[8];
};

struct pp_sweep {
	struct sweep sw;
	struct point *pt; /* [n] by point */
	size_t n;
	size_t *ranked;   /* [n] the points best first */
};

/* Column c of record r as a number: NaN where the record has none. */
static double column_of(const struct column *c, const struct sweep_record *r)
{
	const char *at = (const char *)r + c->offset;

	if ((!c->shape && !r->ok) || (c->model_only && !r->has_model))
		return NAN;
	switch (c->kind) {
	case INT:
		return *(const int *)(const void *)at;
	case U64:
		return (double)*(const uint64_t *)(const void *)at;
	case BOOL:
		return *(const bool *)(const void *)at ? 1 : 0;
	case NUM:
		break;
	}
	return *(const double *)(const void *)at;
}

/* sweep_run's emit: keeps record r (of the points from 0, in index order) in sweep s. */
static int keep(void *ctx, const struct sweep_record *r)
{
	pp_sweep *s = ctx;
	struct point *p = &s->pt[r->index];

	for (size_t c = 0; c < NCOLUMNS; c++)
		p->fig[c] = column_of(&columns[c], r);
	/* each axis's value, by axis: a record keeps those of the axes that vary, by slot */
	for (int a = 0; a < s->sw.naxes; a++)
		p->value[a] = sweep_value(&s->sw, r, a);
	snprintf(p->time_unit, sizeof(p->time_unit), "%s", r->time_unit);
	p->key = sweep_rank_key(r);
	if (!r->ok) { /* in a library user's words, as the calls' errors */
		char why[sizeof(r->reason) + 64];

		snprintf(why, sizeof(why), "%s", r->reason);
		api_words(why, sizeof(why));
		if ((p->reason = pp_strdup(why)) == NULL)
			return 1; /* out of memory: the sweep stops, and the call fails */
	}
	return 0;
}

static int rank_cmp(const void *a, const void *b)
{
	return sweep_rank_key_compare(a, b);
}

/* Ranks s's points into s->ranked: 0, or -1 out of memory. */
static int rank(pp_sweep *s)
{
	struct sweep_rank_key *keys = pp_mallocarray(s->n > 0 ? s->n : 1, sizeof(*keys));

	s->ranked = pp_mallocarray(s->n > 0 ? s->n : 1, sizeof(*s->ranked));
	if (keys == NULL || s->ranked == NULL) {
		free(keys);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++)
		keys[i] = s->pt[i].key;
	qsort(keys, s->n, sizeof(*keys), rank_cmp);
	for (size_t i = 0; i < s->n; i++)
		s->ranked[i] = (size_t)keys[i].index;
	free(keys);
	return 0;
}

/* The grid of c and the axes into s->sw, checked as `ppsim sweep` (advise: `ppsim advise`,
 * which adds its layout axes) checks its command line: 0, or -1 with e set. */
static int grid(pp_sweep *s, const struct config *c, const char *const *keys,
                const char *const *values, int naxes, bool fits, bool advise, struct pp_error *e)
{
	struct config *first = pp_malloc(sizeof(*first));
	int rc = 0;

	sweep_init(&s->sw, c);
	s->sw.require_fit = fits;
	if (first == NULL)
		return pp_nomem(e, 1, sizeof(*first));
	for (int i = 0; i < naxes && rc == 0; i++) {
		const struct config_option *opt;
		char label[96];

		if (keys[i] == NULL || values[i] == NULL) {
			rc = pp_fail(e, PP_ERR_USAGE, "pp_sweep_run: axis %d: its %s is NULL", i,
			             keys[i] == NULL ? "key" : "values");
			break;
		}
		if ((opt = api_find_option(keys[i])) == NULL) {
			rc = pp_fail(e, PP_ERR_USAGE, "unknown key \"%s\"", keys[i]);
			break;
		}
		/* two axes of one setting would leave the first's values unused, its points
		 * repeated */
		for (int j = 0; j < i && rc == 0; j++)
			if (api_find_option(keys[j]) == opt)
				rc = pp_fail(e, PP_ERR_USAGE,
				             "pp_sweep_run: axes %d and %d (\"%s\", \"%s\") set one "
				             "setting, key \"%s\": give it one axis",
				             j, i, keys[j], keys[i], opt->key);
		if (rc != 0)
			break;
		snprintf(label, sizeof(label), "key \"%s\"", opt->key);
		rc = sweep_set_axis(&s->sw, opt, label, values[i], e);
		/* a single value also goes into the base, where it reads as set */
		if (rc == 0 && s->sw.axes[s->sw.naxes - 1].nvalues == 1)
			rc = config_set(&s->sw.base, opt, label, s->sw.axes[s->sw.naxes - 1].values[0],
			                e);
	}
	if (rc == 0 && advise)
		rc = advise_check(&s->sw, e) != 0 || advise_add_axes(&s->sw, e) != 0 ? -1 : 0;
	if (rc == 0 && (rc = sweep_point_config(&s->sw, 0, first, e)) == 0)
		rc = config_check_command(first, advise ? CONFIG_ADVISE : CONFIG_SWEEP,
		                          advise ? "advise" : "sweep", e);
	free(first);
	return rc == 0 ? 0 : -1;
}

/* Runs the points of s->sw on jobs threads into s's points, and ranks them: 0, or -1 with e. */
static int run_points(pp_sweep *s, int jobs, struct pp_error *e)
{
	int rc;

	s->n = sweep_points(&s->sw) <= SWEEP_MAX_RUN_POINTS ? (size_t)sweep_points(&s->sw) : 0;
	if (s->n > 0 && (s->pt = pp_calloc(s->n, sizeof(*s->pt))) == NULL)
		return pp_nomem(e, s->n, sizeof(*s->pt));
	/* more points than a run takes: sweep_run refuses them before it starts */
	rc = sweep_run(&s->sw, 0, sweep_points(&s->sw), jobs > 1 ? jobs : 1, keep, s, e);
	if (rc > 0) /* keep stopped it */
		return pp_nomem(e, 1, sizeof(struct sweep_record));
	if (rc == 0 && rank(s) != 0)
		return pp_nomem(e, s->n, sizeof(*s->ranked));
	return rc == 0 ? 0 : -1;
}

int pp_sweep_run(const pp_config *c, const char *const *keys, const char *const *values,
                 int naxes, int jobs, int fits, pp_sweep **out, char *err, size_t errlen)
{
	struct call k;
	pp_sweep *s;
	int rc = -1;

	if (out != NULL)
		*out = NULL;
	if (api_begin(&k, "pp_sweep_run", ARGS({c, "c"}, {out, "out"}), err, errlen) != 0)
		return PP_E_INPUT;
	if (naxes < 0 || naxes > SWEEP_MAX_AXES || (naxes > 0 && (keys == NULL || values == NULL))) {
		pp_fail(&k.e, PP_ERR_USAGE,
		        "pp_sweep_run: naxes %d: must be 0 to %d, with keys and values", naxes,
		        SWEEP_MAX_AXES);
		return api_end(&k, -1);
	}
	if ((s = pp_zalloc(1, sizeof(*s), &k.e)) == NULL)
		return api_end(&k, -1);
	if (grid(s, &c->config, keys, values, naxes, fits != 0, false, &k.e) == 0)
		rc = run_points(s, jobs, &k.e);
	if (rc != 0) {
		pp_sweep_free(s);
		return api_end(&k, -1);
	}
	*out = s;
	return api_end(&k, 0);
}

/*
 * Fails e when advise's search s found no point, as `ppsim advise` does: none fits (some were
 * over memory: PP_ERR_SIM) or none is valid (the settings: PP_ERR_USAGE, with the first
 * point's reason). Returns 0, or -1.
 */
static int advise_found(const pp_sweep *s, struct pp_error *e)
{
	size_t over = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (s->pt[i].reason == NULL)
			return 0;
		over += !s->pt[i].key.fits;
	}
	if (over > 0)
		return pp_fail(e, PP_ERR_SIM,
		               "pp_advise: none of the %zu configurations fits: %zu are over GPU "
		               "memory and the others are invalid",
		               s->n, over);
	return pp_fail(e, PP_ERR_USAGE,
	               "pp_advise: none of the %zu configurations is valid: the first fails with %s",
	               s->n, s->n > 0 ? s->pt[0].reason : "no point");
}

int pp_advise(const pp_config *c, int jobs, pp_sweep **out, char *err, size_t errlen)
{
	struct call k;
	pp_sweep *s;
	int rc = -1;

	if (out != NULL)
		*out = NULL;
	if (api_begin(&k, "pp_advise", ARGS({c, "c"}, {out, "out"}), err, errlen) != 0)
		return PP_E_INPUT;
	if ((s = pp_zalloc(1, sizeof(*s), &k.e)) == NULL)
		return api_end(&k, -1);
	if (grid(s, &c->config, NULL, NULL, 0, true, true, &k.e) == 0)
		rc = run_points(s, jobs, &k.e);
	if (rc == 0)
		rc = advise_found(s, &k.e);
	if (rc != 0) {
		pp_sweep_free(s);
		return api_end(&k, -1);
	}
	*out = s;
	return api_end(&k, 0);
}

void pp_sweep_free(pp_sweep *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; s->pt != NULL && i < s->n; i++)
		free(s->pt[i].reason);
	free(s->pt);
	free(s->ranked);
	sweep_release(&s->sw);
	free(s);
}

size_t pp_sweep_points(const pp_sweep *s)
{
	return s != NULL ? s->n : 0;
}

int pp_sweep_axes(const pp_sweep *s)
{
	return s != NULL ? s->sw.naxes : 0;
}

const char *pp_sweep_axis_key(const pp_sweep *s, int axis)
{
	return s != NULL && axis >= 0 && axis < s->sw.naxes ? s->sw.axes[axis].opt->key : NULL;
}

const char *pp_sweep_value(const pp_sweep *s, size_t point, int axis)
{
	if (s == NULL || point >= s->n || axis < 0 || axis >= s->sw.naxes)
		return NULL;
	return s->sw.axes[axis].values[s->pt[point].value[axis]];
}

const char *pp_sweep_skipped(const pp_sweep *s, size_t point)
{
	return s != NULL && point < s->n ? s->pt[point].reason : NULL;
}

const char *pp_sweep_time_unit(const pp_sweep *s, size_t point)
{
	return s != NULL && point < s->n && s->pt[point].reason == NULL ? s->pt[point].time_unit
	                                                                  : NULL;
}

size_t pp_sweep_ranked(const pp_sweep *s, size_t k)
{
	return s != NULL && k < s->n ? s->ranked[k] : (size_t)-1;
}

int pp_sweep_figure(const pp_sweep *s, size_t point, const char *name, double *value, char *err,
                    size_t errlen)
{
	struct call k;

	if (value != NULL)
		*value = NAN;
	if (api_begin(&k, "pp_sweep_figure", ARGS({s, "s"}, {name, "name"}, {value, "value"}),
	              err, errlen) != 0)
		return PP_E_INPUT;
	if (point >= s->n) {
		pp_fail(&k.e, PP_ERR_USAGE, "pp_sweep_figure: point %zu of %zu", point, s->n);
		return api_end(&k, -1);
	}
	for (size_t c = 0; c < NCOLUMNS; c++)
		if (strcmp(columns[c].name, name) == 0) {
			*value = s->pt[point].fig[c];
			return api_end(&k, 0);
		}
	pp_fail(&k.e, PP_ERR_USAGE, "no sweep figure \"%s\" (pp_sweep_figure_name lists them)",
	        name);
	return api_end(&k, -1);
}

const char *pp_sweep_figure_name(int i)
{
	return i >= 0 && (size_t)i < NCOLUMNS ? columns[i].name : NULL;
}
