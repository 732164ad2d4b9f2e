/*
 * `ppsim replay [OPTIONS] MEASURED...`: reads a measured step (a profiler trace, one per device
 * or one for all, or a CSV of op times; config/measured.c), simulates it again with its own op
 * order and op times, and, asked for a what-if, what it would have taken otherwise: without its
 * slowest device (--without-slowest: that device's ops at the others' times, the order kept),
 * or with another schedule, more micro-batches or more chunks (-s, -m, -v: costs fitted to the
 * measured op times as `ppsim calibrate` fits them). It writes the report of the last run, then
 * the measured step against the replay and the what-if; the run's outputs (--trace, --dump-ops,
 * ...) are the last run's too.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/measured.h"
#include "ppsim/sim.h"

/* The options of a what-if of another schedule or shape: the replay itself runs without them. */
static bool whatif_option(const struct config_option *o)
{
	return (o->flags & CONFIG_SHAPES_ORDER) || strcmp(o->key, "m") == 0 ||
	       strcmp(o->key, "v") == 0;
}

static bool replay_option(const struct config_option *o)
{
	return !whatif_option(o);
}

/* Whether c sets an option of a what-if of another schedule or shape. */
static bool asks_shape(const struct config *c)
{
	size_t n;
	const struct config_option *o = config_options(&n);

	for (size_t i = 0; i < n; i++)
		if (whatif_option(&o[i]) && config_is_set(c, o[i].key))
			return true;
	return false;
}

/* Sets option key of c to the number x, as given on the command line as label. */
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
		if (v < desc->min_v || (desc->max_v > 0 && v > desc->max_v))
			v = desc->min_v > 0 ? desc->min_v : 1;
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

/* The size of a run of m's order, for the outputs' checks. */
static struct sim_size size_of(const struct measured *m)
{
	const struct sched *s = m->sched;
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

/* The replay and its what-if, and what the report says of them. */
struct replay_run {
	struct measured m;
	const struct sched_desc *order; /* the built-in schedule whose order the step ran */
	struct sim *replay, *whatif;
	double *op; /* --without-slowest: the step's op times without its slowness */
	struct measured_slowest slow;
	char change[256];
};

/* Runs the replay (config r) and the what-if asked for (config w) into x; 0, or -1 with err. */
static int run(const struct cli *cli, struct config *r, struct config *w, struct replay_run *x,
               struct pp_error *err)
{
	const struct measured *m = &x->m;
	bool shape = asks_shape(w), whatif = shape || cli->without_slowest;
	struct sim_perturb pt = {m->sched, m->path, m->op, m->msg, m->time_unit};
	struct cli_need need;
	struct sim_size z = size_of(m);
	unsigned last = cli_sim_flags(cli);

	x->order = measured_schedule(m, err);
	if (x->order == NULL && err->kind != PP_ERR_NONE)
		return -1;
	if (cli->w_share >= 0 && !shape)
		return pp_fail(
		        err, PP_ERR_USAGE,
		        "--w-share: only for a what-if of another schedule or shape (-s, -m, "
		        "-v), whose costs are fitted to the step");
	/* the messages: the user's --tcomm, else as measured (t_comm, their mean, prices the
	 * others and the what-ifs) */
	if (config_is_set(r, "t_comm") || m->msg == NULL)
		pt.msg = NULL;
	else
		r->t_comm = m->msg_mean;
	if (cli->without_slowest) {
		if ((x->op = pp_mallocarray(m->sched->nops, sizeof(*x->op))) == NULL)
			return pp_nomem(err, m->sched->nops, sizeof(*x->op));
		if (measured_without_slowest(m, x->op, &x->slow, err) != 0)
			return -1;
		snprintf(x->change, sizeof(x->change),
		         "without device %d, the slowest: its ops at the other devices' median "
		         "times",
		         x->slow.device);
	}
	if (shape) {
		char what[200];

		if (shape_whatif(w, m, x->order, x->op != NULL ? x->op : m->op, cli->w_share, what,
		                 sizeof(what), err) != 0)
			return -1;
		if (x->op != NULL)
			snprintf(x->change + strlen(x->change),
			         sizeof(x->change) - strlen(x->change), "; then %s", what);
		else
			snprintf(x->change, sizeof(x->change), "%s", what);
	}
	cli_need_init(&need, cli);
	if ((shape ? cli_need_config(&need, w, err) : cli_need_add(&need, r, &z, err)) != 0)
		return -1;
	x->replay = sim_run_perturbed(r, &pt, whatif ? SIM_NO_OP_TIMES : last, err);
	if (x->replay == NULL || !whatif)
		return x->replay == NULL ? -1 : 0;
	if (shape) {
		struct sim_perturb unit = {.time_unit = m->time_unit};

		x->whatif = sim_run_perturbed(w, &unit, last, err);
	} else {
		pt.op = x->op;
		x->whatif = sim_run_perturbed(r, &pt, last, err);
	}
	return x->whatif == NULL ? -1 : 0;
}

int cmd_replay(int argc, char **argv)
{
	struct cli cli;
	struct config *r = NULL, *w = NULL;
	struct pp_error err = {0};
	struct replay_run x = {0};
	struct report_replay rep;
	const struct sim *last;
	int status = cli_parse(argc, argv, CLI_REPLAY, &cli);

	if (status >= 0) {
		cli_release(&cli);
		return status;
	}
	if (cli.nfiles == 0) {
		cli_release(&cli);
		return cmd_usage(
		        "replay: needs the MEASURED step: a trace, a trace per device, or a "
		        "CSV of op times");
	}
	r = pp_malloc(sizeof(*r));
	w = pp_malloc(sizeof(*w));
	if (r == NULL || w == NULL)
		pp_nomem(&err, 2, sizeof(*r));
	if (err.kind != PP_ERR_NONE || cli_config_taking(&cli, NULL, replay_option, r, &err) != 0 ||
	    cli_config(&cli, NULL, w, &err) != 0 ||
	    measured_read((const char *const *)cli.files, cli.nfiles, r->max_ops, &x.m, &err) !=
	            0 ||
	    run(&cli, r, w, &x, &err) != 0) {
		status = cmd_fail(&err);
		goto done;
	}
	last = x.whatif != NULL ? x.whatif : x.replay;
	rep = (struct report_replay){.path = x.m.path,
	                             .files = cli.nfiles,
	                             .measured = in_ticks(x.m.step, x.replay->cost->tick),
	                             .replay = x.replay,
	                             .whatif = x.whatif,
	                             .change = x.whatif != NULL ? x.change : NULL,
	                             .slowest = x.op != NULL ? x.slow.device : -1,
	                             .factor = x.slow.factor};
	rep.order = x.order != NULL ? x.order->name : NULL;
	status = cli_write_outputs(&cli, last, NULL, NULL);
	if (status == PP_EXIT_OK && cli.format->replay(cmd_out(), &rep) != 0)
		status = cmd_report_failed();
	if (status == PP_EXIT_OK && cli.timeline_width > 0) {
		fputc('\n', cmd_out());
		if (report_timeline_colored(cmd_out(), last, cli.timeline_width, cli.color) != 0)
			status = cmd_report_failed();
	}
done:
	sim_free(x.replay);
	sim_free(x.whatif);
	free(x.op);
	measured_release(&x.m);
	free(r);
	free(w);
	cli_release(&cli);
	return status;
}
