/*
 * A measured step replayed and its what-if (replay.h): the step read, the built-in schedule
 * whose order it ran found, its messages priced as measured, its slowest device's ops scaled
 * (measured_without_slowest), a what-if of another schedule or shape completed from the step
 * and given costs fitted to its op times (measured_fit_config), then the runs of both
 * (sim_run_perturbed).
 */
#include "ppsim/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool replay_whatif_option(const struct config_option *o)
{
	return (o->flags & CONFIG_SHAPES_ORDER) || strcmp(o->key, "m") == 0 ||
	       strcmp(o->key, "v") == 0;
}

/* Whether c sets an option of a what-if of another schedule or shape. */
static bool asks_shape(const struct config *c)
{
	size_t n;
	const struct config_option *o = config_options(&n);

	for (size_t i = 0; i < n; i++)
		if (replay_whatif_option(&o[i]) && config_is_set(c, o[i].key))
			return true;
	return false;
}

/* Sets option key of c to the number x, labelled label in messages. */
static int set_count(struct config *c, const char *key, const char *label, int x,
                     struct pp_error *err)
{
	char value[24];

	snprintf(value, sizeof(value), "%d", x);
	return config_set(c, config_option_by_key(key), label, value, err);
}

/*
 * Completes w, the settings of a what-if of another schedule or shape: the measured step's p,
 * and its schedule (the built-in one whose order it ran), m and v (when the schedule takes that
 * many chunks, else its fewest) where not given; then the costs fitted to op[], the step's op
 * times. Writes what the what-if changes into change.
 */
static int shape_whatif(struct config *w, const struct measured *m, const struct sched_desc *order,
                        const double *op, double w_share, char *change, size_t n,
                        struct pp_error *err)
{
	const struct sched_desc *desc;
	int v = m->sched->v;

	w->p = m->sched->p;
	if (!config_is_set(w, "schedule")) {
		if (order == NULL)
			return pp_fail(
			        err, PP_ERR_USAGE,
			        "replay: the measured order is no built-in schedule's (for its "
			        "p=%d, v=%d, m=%d): give the what-if's --schedule",
			        m->sched->p, m->sched->v, m->sched->m);
		if (config_set(w, config_option_by_key("schedule"), "--schedule", order->name,
		               err) != 0)
			return -1;
	}
	desc = sched_find(w->schedule);
	if (!config_is_set(w, "v")) {
		v = sched_desc_fit_v(desc, m->sched->p, v);
		if (set_count(w, "v", "-v", v, err) != 0)
			return -1;
	}
	if (!config_is_set(w, "m") && set_count(w, "m", "-m", m->sched->m, err) != 0)
		return -1;
	/* a fused backward's share: none needed when the what-if does not split it either */
	if (w_share < 0 && !desc->split)
		w_share = 0;
	snprintf(change, n, "%s with p=%d, v=%d, m=%d, on costs fitted to the step's op times",
	         desc->name, w->p, w->v, w->m);
	return measured_fit_config(m, op, w_share, w, err);
}

/* Prepares x's what-ifs, x->step read: see replay_new. */
static int prepare(struct replay *x, const struct replay_ask *ask, struct pp_error *err)
{
	const struct measured *m = &x->step;

	x->order = measured_schedule(m, err);
	if (x->order == NULL && err->kind != PP_ERR_NONE)
		return -1;
	if (ask->w_share >= 0 && !x->shape)
		return pp_fail(
		        err, PP_ERR_USAGE,
		        "--w-share: only for a what-if of another schedule or shape (-s, -m, "
		        "-v), whose costs are fitted to the step");
	/* the messages: the replay's t_comm when set, else as measured (t_comm, their mean,
	 * prices the others and the what-ifs) */
	if (!config_is_set(&x->replay_config, "t_comm") && m->msg != NULL)
		x->replay_config.t_comm = m->msg_mean;
	if (ask->without_slowest) {
		struct measured_slowest slow;

		if ((x->op = pp_mallocarray(m->sched->nops, sizeof(*x->op))) == NULL)
			return pp_nomem(err, m->sched->nops, sizeof(*x->op));
		if (measured_without_slowest(m, x->op, &slow, err) != 0)
			return -1;
		x->slowest = slow.device;
		memcpy(x->factor, slow.factor, sizeof(x->factor));
		memcpy(x->as_others, slow.as_others, sizeof(x->as_others));
		snprintf(x->change, sizeof(x->change),
		         "without device %d, the slowest: its ops at the other devices' median "
		         "times",
		         x->slowest);
	}
	if (x->shape) {
		char what[200];
		size_t len = strlen(x->change);

		if (shape_whatif(&x->whatif_config, m, x->order, x->op != NULL ? x->op : m->op,
		                 ask->w_share, what, sizeof(what), err) != 0)
			return -1;
		snprintf(x->change + len, sizeof(x->change) - len, "%s%s", len > 0 ? "; then " : "",
		         what);
	}
	return 0;
}

struct replay *replay_new(const char *const *paths, int n, const struct config *run,
                          const struct config *whatif, const struct replay_ask *ask,
                          struct pp_error *err)
{
	struct replay *x = pp_zalloc(1, sizeof(*x), err);

	if (x == NULL)
		return NULL;
	x->files = n;
	x->slowest = -1;
	x->measured = NAN;
	for (int k = 0; k < MEASURED_KINDS; k++)
		x->factor[k] = NAN;
	x->replay_config = *run;
	x->whatif_config = *whatif;
	x->shape = asks_shape(whatif);
	if (measured_read(paths, n, run->max_ops, &x->step, err) != 0) {
		free(x);
		return NULL;
	}
	/* the reports name the step's file after the caller's paths are gone */
	if ((x->path = pp_strdup(x->step.path)) == NULL) {
		pp_nomem(err, strlen(x->step.path) + 1, 1);
		replay_free(x);
		return NULL;
	}
	x->step.path = x->path;
	if (prepare(x, ask, err) != 0) {
		replay_free(x);
		return NULL;
	}
	return x;
}

struct sim_size replay_size(const struct replay *x)
{
	const struct sched *s = x->step.sched;
	struct sim_size z = {.ops = s->nops, .p = s->p, .v = s->v, .m = s->m, .routes = s->routes};

	if (!sched_message_count(s->p, s->v, s->m, s->placement, s->routes, &z.msgs))
		z.msgs = UINT64_MAX;
	return z;
}

/* A time in units as the replay's times are: rounded to its ticks (the measured step, written
 * in a trace's microseconds, is then the replay's step to the tick when they agree). */
static double in_ticks(double units, int64_t tick)
{
	pp_time t;

	return pp_time_from_units(units, tick, &t) ? pp_time_to_units(t, tick) : units;
}

int replay_run(struct replay *x, unsigned flags, struct pp_error *err)
{
	const struct measured *m = &x->step;
	bool whatif = x->shape || x->op != NULL;
	struct sim_perturb pt = {m->sched, m->path, m->op, m->msg, m->time_unit};

	/* the messages as measured unless the replay's t_comm is given */
	if (config_is_set(&x->replay_config, "t_comm"))
		pt.msg = NULL;
	x->replay =
	        sim_run_perturbed(&x->replay_config, &pt, whatif ? SIM_NO_OP_TIMES : flags, err);
	if (x->replay == NULL) {
		/* the step's own times to blame: the file is the place */
		if (err->kind == PP_ERR_USAGE && strncmp(err->msg, "times too large", 15) == 0) {
			char why[sizeof(err->msg)];

			snprintf(why, sizeof(why), "%s", err->msg);
			snprintf(err->msg, sizeof(err->msg), "%s '%.200s': %.700s",
			         m->format == MEASURED_TRACE ? "trace" : "measured", m->path, why);
			err->kind = PP_ERR_CONFIG;
		}
		return -1;
	}
	x->measured = in_ticks(m->step, x->replay->cost->tick);
	if (!whatif)
		return 0;
	if (x->shape) {
		struct sim_perturb unit = {.time_unit = m->time_unit};

		x->whatif = sim_run_perturbed(&x->whatif_config, &unit, flags, err);
	} else {
		pt.op = x->op;
		x->whatif = sim_run_perturbed(&x->replay_config, &pt, flags, err);
	}
	return x->whatif != NULL ? 0 : -1;
}

const struct sim *replay_last(const struct replay *x)
{
	return x->whatif != NULL ? x->whatif : x->replay;
}

void replay_free(struct replay *x)
{
	if (x == NULL)
		return;
	sim_free(x->replay);
	sim_free(x->whatif);
	free(x->op);
	measured_release(&x->step);
	free(x->path);
	free(x);
}
