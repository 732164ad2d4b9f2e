/*
 * Runs one configuration through config -> schedule and cost -> engine -> metrics. sim_run
 * settles and validates the config, builds each stage's output into one struct sim and hands
 * it over whole; any failure on the way (bad settings, a deadlock, out of memory) frees what
 * was built and returns NULL with the stage's error.
 */
#include "ppsim/sim.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#include "ppsim/samples.h"
#include "ppsim/schedfile.h"

int sim_price_schedule(struct sched *s, const struct cost *k, const struct config *c,
                       struct pp_error *err)
{
	struct sched_prices pr = {k->t_f, k->t_b, k->t_w, k->msg_time, k->act, k->act_w, 0, c->jobs};
	struct pp_error why = {0};

	pr.mem_limit = s->desc->limit_per_p > 0 ? (double)s->desc->limit_per_p * s->p
	               : c->mem_limit > 0       ? c->mem_limit
	                                        : s->p;
	if (sched_generate_priced(s, &pr, &why) == 0)
		return 0;
	if (config_is_set(c, "mem_limit"))
		return config_fail(c, "mem_limit", err, "%s", why.msg);
	return pp_fail(err, why.kind, "%s (the default --mem-limit is p)", why.msg);
}

/*
 * Gives s->config the shape of s->sched, read from a file or given; an explicitly set p, v or m
 * must agree with it.
 */
static int adopt_shape(struct sim *s, const char *source, struct pp_error *err)
{
	struct config *c = &s->config;
	int shape[3];
	static const char *const keys[] = {"p", "v", "m"};

	shape[0] = s->sched->p;
	shape[1] = s->sched->v;
	shape[2] = s->sched->m;
	for (int i = 0; i < 3; i++) {
		int *field = i == 0 ? &c->p : i == 1 ? &c->v : &c->m;

		if (config_is_set(c, keys[i]) && *field != shape[i])
			return config_fail(c, keys[i], err, "the schedule file '%s' has %s=%d",
			                   source, keys[i], shape[i]);
		*field = shape[i];
	}
	/* what follows from the shape (a framework's sends by v, a global batch's m and a GPU
	 * count's dp by p) settles again from the settings as given, with the file's shape */
	if (s->given != NULL) {
		struct config in = *s->given, again;

		in.p = shape[0];
		in.v = shape[1];
		in.m = shape[2];
		/* the file's order replaces a named schedule: none implies chunks the file lacks */
		snprintf(in.schedule, sizeof(in.schedule), "file");
		if (config_settle(&in, &again, err) != 0)
			return -1;
		if (again.m != shape[2])
			return config_fail(&in, "global_batch", err,
			                   "makes m = %d (global batch / (mbs x dp)); the schedule file "
			                   "'%s' has m=%d",
			                   again.m, source, shape[2]);
		snprintf(again.schedule_file, sizeof(again.schedule_file), "%s", c->schedule_file);
		*c = again;
	}
	snprintf(c->schedule, sizeof(c->schedule), "file");
	/* as a schedule without pairs refuses it: the factor would price nothing */
	if (config_is_set(c, "overlap_factor") && !s->sched->overlap)
		return config_fail(c, "overlap_factor", err,
		                   "the schedule file '%s' has no overlapped F&B pairs, which it "
		                   "prices",
		                   source);
	if (c->nstage_scale > 0 && c->nstage_scale != c->p && c->nstage_scale != c->p * c->v)
		return config_fail(
		        c, "stage_scale", err,
		        "gives %d factors; the schedule file has p = %d devices and p*v = "
		        "%d stages",
		        c->nstage_scale, c->p, c->p * c->v);
	return config_validate(c, err);
}

/* Reads the config's schedule file into s->sched and gives s->config the file's shape. */
static int read_schedule_file(struct sim *s, struct pp_error *err)
{
	struct schedfile f;
	struct config *c = &s->config;

	if (schedfile_read(c->schedule_file, c->max_ops, &f, err) != 0)
		return -1;
	s->sched = f.sched;
	free(f.lines);
	free(f.columns);
	free(f.cells);
	return adopt_shape(s, c->schedule_file, err);
}

/*
 * Gives s's engine the durations of pt in its cost's ticks, kept in s->perturbed. Returns 0,
 * or -1 with err: PP_ERR_USAGE for a time no op or message may take, engine_perturb's errors.
 */
static int perturb(struct sim *s, const struct sim_perturb *pt, struct pp_error *err)
{
	size_t n = s->sched->nops;
	struct engine_perturb ep = {NULL, NULL, NULL, 0};

	s->perturbed = pp_mallocarray(2 * (n > 0 ? n : 1), sizeof(*s->perturbed));
	if (s->perturbed == NULL)
		return pp_nomem(err, 2 * n, sizeof(*s->perturbed));
	for (int k = 0; k < 2; k++) {
		const double *units = k == 0 ? pt->op : pt->msg;
		pp_time *t = s->perturbed + (size_t)k * n;

		if (units == NULL)
			continue;
		for (size_t i = 0; i < n; i++) {
			/* a time a run may have taken: a given one is at most PP_TIME_MAX_UNITS, but
			 * an op's can be more (a fused backward's B + W, a scaled stage's); every
			 * time together stays below PP_TIME_TOTAL_MAX ticks (the engine checks) */
			double x = nearbyint(units[i] * (double)s->cost->tick);

			if (!isfinite(units[i]) || units[i] < 0 || !(x <= (double)PP_TIME_TOTAL_MAX)) {
				char op[64], a[32], b[32];

				return pp_fail(
				        err, PP_ERR_USAGE,
				        "%s %s's time %s %s: not a time an op or message may take (from "
				        "0 to %s)",
				        k == 0 ? "op" : "the message of",
				        sched_op_format(op, sizeof(op), &s->sched->ops[i]),
				        pp_double_format(a, sizeof(a), units[i]), s->cost->time_unit,
				        pp_double_format(b, sizeof(b),
				                         (double)PP_TIME_TOTAL_MAX / (double)s->cost->tick));
			}
			t[i] = (pp_time)x;
		}
		if (k == 0)
			ep.op_dur = t;
		else
			ep.msg_dur = t;
		s->given_times |= k == 0;
	}
	return engine_perturb(s->engine, &ep, err);
}

struct sim *sim_run(const struct config *c, struct pp_error *err)
{
	return sim_run_flags(c, 0, err);
}

/*
 * The bytes of one arena for nops ops of m micro-batches visiting L stages each, with the
 * engine's arrays (op times when times is set); SIZE_MAX when they do not fit in memory's
 * sizes: then each array is allocated alone, and fails alone.
 */
static size_t arena_bytes(uint64_t nops, int L, int m, bool times, bool ops)
{
	size_t a = 0, b;

	if (nops > SIZE_MAX)
		return SIZE_MAX;
	if (ops)
		a = sched_arena_bytes((size_t)nops);
	b = engine_arena_bytes((size_t)nops, L, m, times);
	return a == SIZE_MAX || b == SIZE_MAX || a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Sets the metrics' critical path of s's finished run, which kept its op times. */
static int critical(struct sim *s, struct pp_error *err)
{
	struct critical_path cp;
	int rc;

	if (engine_critical_path(s->engine, &cp, NULL, NULL, err) != 0)
		return -1;
	rc = metrics_set_critical(&s->metrics, &cp, s->cost, err);
	critical_path_release(&cp);
	return rc;
}

/*
 * --device-order: the layout of s's schedule (generated, device i's lists not yet moved) on its
 * physical devices, in s->placed, for the costs (each device's GPU, which hops leave a node)
 * and a priced generator's prices; build moves the lists once the order is made. One place
 * for every engine and report: they see the physical devices only.
 */
static int place(struct sim *s, struct cost_layout *layout, struct pp_error *err)
{
	const struct config *c = &s->config;
	bool identity = true;

	for (int i = 0; i < c->ndevice_order; i++)
		identity &= c->device_order[i] == i;
	if (identity)
		return 0;
	s->placed = pp_mallocarray((size_t)layout->S, sizeof(*s->placed));
	if (s->placed == NULL)
		return pp_nomem(err, (size_t)layout->S, sizeof(*s->placed));
	for (int st = 0; st < layout->S; st++)
		s->placed[st] = (uint32_t)c->device_order[s->sched->stage_device[st]];
	layout->stage_device = s->placed;
	return 0;
}

/* Builds s's costs from its config and its schedule's layout (all of the schedule they read),
 * its stages placed on the devices (--device-order). Returns 0, or -1 with err set. */
static int price(struct sim *s, struct pp_error *err)
{
	const struct config *c = &s->config;
	struct cost_layout layout = cost_layout_of(s->sched);

	if (place(s, &layout, err) != 0)
		return -1;
	if (config_has_model(c))
		s->cost = cost_new_model(c, &layout, err);
	else if ((s->cost = cost_new_explicit(c, &layout, c->w_mem_fraction)) == NULL)
		return pp_nomem(err, 1, sizeof(*s->cost));
	if (s->cost == NULL || cost_scale_stages(s->cost, c, &layout, err) != 0)
		return -1;
	return 0;
}

/*
 * SIM_FITS's check of s, built up to its engine: its weights, gradients and optimizer state
 * with its order's activation peak on each device, which the engine's run would find the same
 * (sched_peak); none when activations go to the host, whose peak on the GPU depends on when the
 * copies end. Returns 0, or -1 with metrics_memory_error's error.
 */
static int fit_error(const struct sim *s, struct pp_error *err)
{
	int64_t *peak;
	int rc;

	if (s->cost->model == NULL)
		return 0;
	if (s->cost->pieces != NULL && s->cost->pieces->offload != NULL)
		return 0;
	peak = pp_mallocarray((size_t)s->sched->p, sizeof(*peak));
	if (peak == NULL)
		return pp_nomem(err, (size_t)s->sched->p, sizeof(*peak));
	sched_peak(s->sched, s->cost->act, s->cost->act_w, peak);
	rc = metrics_fit_error(s->cost, s->sched->p, peak, err);
	free(peak);
	return rc;
}

/*
 * Builds everything of s after its config (already settled and valid): schedule, cost,
 * priced order, engine run and metrics; with run false, it stops before the engine runs.
 * Returns 0, or -1 with err set, leaving in s what was built for sim_free.
 */
static int build(struct sim *s, unsigned flags, const struct sim_check *check,
                 const struct sim_perturb *pt, bool run, struct pp_error *err)
{
	const struct config *c = &s->config;
	const struct sched_desc *desc = NULL;
	bool times = !(flags & SIM_NO_OP_TIMES) || (flags & SIM_SLACK),
	     file = c->schedule_file[0] != '\0';
	struct sched_params sp = config_sched_params(c);
	uint64_t nops = 0;
	size_t bytes;

	/* one arena for the large arrays, sized before the first is made: the ops (unless a file's
	 * reader made them), then the engine's */
	if (pt != NULL && pt->order != NULL) {
		if ((s->sched = sched_copy(pt->order)) == NULL)
			return pp_nomem(err, pt->order->nops, sizeof(*pt->order->ops));
		if (adopt_shape(s, c->schedule_file, err) != 0)
			return -1;
		bytes = arena_bytes(s->sched->nops, (int)s->sched->route_stages, s->sched->m, times,
		                    false);
	} else if (file) {
		if (read_schedule_file(s, err) != 0)
			return -1;
		bytes = arena_bytes(s->sched->nops, (int)s->sched->route_stages, s->sched->m, times,
		                    false);
	} else {
		desc = sched_find(c->schedule);
		bytes = sched_new_ops(desc, &sp, &nops)
		                ? arena_bytes(nops, sp.p * sp.v / sched_desc_routes(desc), sp.m,
		                              times, true)
		                : SIZE_MAX;
	}
	if (bytes != SIZE_MAX && pp_arena_reserve(&s->arena, bytes) != 0)
		return pp_nomem(err, bytes, 1);
	if (s->sched == NULL) {
		s->sched = sched_new_in(desc, &sp, &s->arena);
		/* sched_new knows only that it ran out, not of how much */
		if (s->sched == NULL)
			return pp_fail(err, PP_ERR_NOMEM,
			               "out of memory generating the %s schedule", desc->name);
	}
	if (check != NULL) {
		struct sim_size z = {.ops = s->sched->nops,
		                     .p = s->sched->p,
		                     .v = s->sched->v,
		                     .m = s->sched->m,
		                     .routes = s->sched->routes,
		                     .timed = cost_every_op_takes_time(c)};

		if (!sched_message_count(z.p, z.v, z.m, s->sched->placement, z.routes, &z.msgs))
			z.msgs = UINT64_MAX;
		if (check->fn(check->ctx, &z, err) != 0)
			return -1;
	}
	if (price(s, err) != 0)
		return -1;
	if (pt != NULL && pt->time_unit != NULL)
		s->cost->time_unit = pt->time_unit;
	if (desc != NULL && desc->fn.generate_priced != NULL &&
	    sim_price_schedule(s->sched, s->cost, c, err) != 0)
		return -1;
	/* the costs were priced on the physical devices; now the schedule runs on them */
	if (s->placed != NULL) {
		int order[PP_MAX_LIST];

		for (int i = 0; i < c->ndevice_order; i++)
			order[i] = c->device_order[i];
		if (sched_reorder_devices(s->sched, order) != 0)
			return pp_nomem(err, s->sched->nops, sizeof(*s->sched->ops));
		free(s->placed);
		s->placed = NULL;
	}
	s->engine = engine_new(s->sched, s->cost, err);
	if (s->engine == NULL)
		return -1;
	engine_use_arena(s->engine, &s->arena);
	if (c->stragglers.n > 0) {
		struct engine_slow slow[PP_MAX_STRAGGLERS];
		struct engine_perturb slowed = {.slow = slow,
		                                .nslow = noise_stragglers(c, s->cost, slow)};
		struct pp_error why = {0};

		if (engine_perturb(s->engine, &slowed, &why) != 0)
			return why.kind == PP_ERR_NOMEM ? (*err = why, -1)
			                                : config_fail(c, "stragglers", err, "%s", why.msg);
	}
	if (flags & SIM_RECORD_MESSAGES)
		engine_record_messages(s->engine);
	if (!times)
		engine_drop_times(s->engine);
	/* the slack pass reads the order, and so does the critical path over half-duplex links */
	if ((flags & SIM_SLACK) || (times && c->duplex == PP_DUPLEX_HALF))
		engine_record_order(s->engine);
	if (pt != NULL && (pt->op != NULL || pt->msg != NULL) && perturb(s, pt, err) != 0)
		return -1;
	/* last of what is refused before the run, as the run's memory would be after it; a
	 * generated order only (a file's may hold what the engine refuses as it runs) */
	if ((flags & SIM_FITS) && desc != NULL && fit_error(s, err) != 0)
		return -1;
	if (!run)
		return 0;
	if (engine_run(s->engine, err) != 0)
		return -1;
	s->result = engine_result(s->engine);
	if (metrics_init(&s->metrics, s->sched, s->cost, s->result, err) != 0 ||
	    (times && critical(s, err) != 0))
		return -1;
	/* the closed forms take every stage's costs alike, which a slowed device's are not */
	for (int i = 0; i < c->stragglers.n; i++)
		if (!c->stragglers.s[i].link && c->stragglers.s[i].factor != 1)
			s->metrics.bubble_ratio_theory = NAN;
	if (flags & SIM_SLACK) {
		s->slack = pp_mallocarray_large(s->sched->nops > 0 ? s->sched->nops : 1,
		                                sizeof(*s->slack));
		if (s->slack == NULL)
			return pp_nomem(err, s->sched->nops, sizeof(*s->slack));
		if (engine_slack(s->engine, s->slack, err) != 0)
			return -1;
	}
	s->frame = (struct sim_frame){0, s->metrics.makespan, s->metrics.bubble_ratio};
	return 0;
}

/* sim_run_checked, or with run false sim_would_run's sim, built up to the engine's run. */
static struct sim *sim_build(const struct config *c, unsigned flags, const struct sim_check *check,
                             const struct sim_perturb *pt, bool run, struct pp_error *err)
{
	struct config settled, first = *c;
	struct sim *s;

	/* a schedule file's shape is known once it is read (adopt_shape settles again then): until
	 * then a global batch makes no m, which would be the default shape's */
	if (c->schedule_file[0] != '\0' && (pt == NULL || pt->order == NULL))
		first.global_batch = 0;
	if (config_settle(&first, &settled, err) != 0)
		return NULL;
	settled.global_batch = c->global_batch; /* as given, for the messages that name it */
	if (pt != NULL && pt->order != NULL) {
		/* the order is the schedule: validated with its shape, as a file's */
		snprintf(settled.schedule_file, sizeof(settled.schedule_file), "%s",
		         pt->source != NULL ? pt->source : "order");
	} else if (config_validate(&settled, err) != 0) {
		return NULL;
	}
	s = pp_zalloc(1, sizeof(*s), err);
	if (s == NULL)
		return NULL;
	s->config = settled;
	s->given = c;
	if (build(s, flags, check, pt, run, err) != 0) {
		sim_free(s);
		return NULL;
	}
	s->given = NULL;
	return s;
}

struct sim *sim_run_flags(const struct config *c, unsigned flags, struct pp_error *err)
{
	return sim_build(c, flags, NULL, NULL, true, err);
}

struct sim *sim_run_perturbed(const struct config *c, const struct sim_perturb *pt,
                              unsigned flags, struct pp_error *err)
{
	return sim_build(c, flags, NULL, pt, true, err);
}

struct sim *sim_run_checked(const struct config *c, unsigned flags, const struct sim_check *check,
                            struct pp_error *err)
{
	return sim_build(c, flags, check, NULL, true, err);
}

int sim_would_run(const struct config *c, struct pp_error *err)
{
	struct sim *s = sim_build(c, SIM_NO_OP_TIMES, NULL, NULL, false, err);

	if (s == NULL)
		return -1;
	sim_free(s);
	return 0;
}

int sim_state_fits(const struct config *c, struct pp_error *err)
{
	struct config settled;
	struct sched_params sp;
	struct sim *s;
	int rc;

	/* a schedule file's shape is known once it is read: its run checks it */
	if (c->schedule_file[0] != '\0')
		return 0;
	if (config_settle(c, &settled, err) != 0 || config_validate(&settled, err) != 0)
		return -1;
	if (!config_has_model(&settled))
		return 0;
	if ((s = pp_zalloc(1, sizeof(*s), err)) == NULL)
		return -1;
	s->config = settled;
	sp = config_sched_params(&settled);
	s->sched = sched_new_layout(sched_find(settled.schedule), &sp);
	if (s->sched == NULL)
		rc = pp_fail(err, PP_ERR_NOMEM, "out of memory laying out the %s schedule",
		             settled.schedule);
	else
		rc = price(s, err) != 0 ? -1 : metrics_fit_error(s->cost, s->sched->p, NULL, err);
	sim_free(s);
	return rc;
}

int sim_fits(const struct config *c, struct pp_error *err)
{
	const struct sched_desc *desc;
	struct config settled;
	struct sim *s;

	if (sim_state_fits(c, err) != 0 || config_settle(c, &settled, err) != 0)
		return -1;
	if (!config_has_model(&settled) || settled.schedule_file[0] != '\0' ||
	    (desc = sched_find(settled.schedule)) == NULL || desc->fn.generate_priced != NULL)
		return 0;
	s = sim_build(c, SIM_NO_OP_TIMES | SIM_FITS, NULL, NULL, false, err);
	if (s == NULL)
		return -1;
	sim_free(s);
	return 0;
}

int sim_size_of_config(const struct config *c, struct sim_size *z, struct pp_error *err)
{
	struct config *settled;
	const struct sched_desc *d;
	struct sched_params sp;
	int rc = 0;

	if (config_is_serve(c) || c->schedule_file[0] != '\0')
		return 0;
	if ((settled = pp_malloc(sizeof(*settled))) == NULL)
		return pp_nomem(err, 1, sizeof(*settled));
	/* settings sim_run refuses are its to name */
	if (config_settle(c, settled, &(struct pp_error){0}) == 0 &&
	    config_validate(settled, &(struct pp_error){0}) == 0 &&
	    (d = sched_find(settled->schedule)) != NULL) {
		sp = config_sched_params(settled);
		*z = (struct sim_size){.p = sp.p,
		                       .v = sp.v,
		                       .m = sp.m,
		                       .routes = sched_desc_routes(d),
		                       .timed = cost_every_op_takes_time(settled)};
		rc = sched_new_ops(d, &sp, &z->ops) &&
		     sched_message_count(sp.p, sp.v, sp.m, d->placement, z->routes, &z->msgs);
	}
	free(settled);
	return rc;
}

uint64_t sim_peak_bytes(const struct config *c, const struct sim_size *z, unsigned flags)
{
	bool record = flags & SIM_RECORD_MESSAGES, times = !(flags & SIM_NO_OP_TIMES);
	bool slack = flags & SIM_SLACK, half = c->duplex == PP_DUPLEX_HALF;
	uint64_t S, ops, bytes;
	size_t engine;

	if (z->ops > SIZE_MAX || z->msgs > SIZE_MAX ||
	    !pp_mul_u64((uint64_t)z->p, (uint64_t)z->v, &S) || S > INT_MAX || z->routes < 1 ||
	    !pp_mul_u64(z->ops, sizeof(struct op), &ops))
		return UINT64_MAX;
	engine = engine_peak_bytes((size_t)z->ops, (size_t)z->msgs, (int)(S / (uint64_t)z->routes),
	                           z->m, times || slack, engine_takes_events(half), record,
	                           slack || (times && half), slack);
	return engine != SIZE_MAX && pp_add_u64(ops, engine, &bytes) ? bytes : UINT64_MAX;
}

/* Frees what s owns (its schedule, cost, engine, metrics and arena) but not s itself; the
 * metrics are released only once a result is set. */
static void sim_release(struct sim *s)
{
	if (s->samples != NULL) {
		samples_release(s->samples);
		free(s->samples);
		s->samples = NULL;
	}
	if (s->result != NULL)
		metrics_release(&s->metrics);
	free(s->slack);
	engine_free(s->engine);
	free(s->perturbed);
	free(s->placed);
	cost_free(s->cost);
	sched_free(s->sched);
	pp_arena_release(&s->arena);
}

struct drawing sim_drawing(const struct sim *s)
{
	return (struct drawing){
	        .sched = s->sched,
	        .result = s->result,
	        .slack = s->slack,
	        .samples = s->samples,
	        .tick = s->cost->tick,
	        .time_unit = s->cost->time_unit,
	        .act = s->cost->act,
	        .act_w = s->cost->act_w,
	        .duplex = s->cost->duplex,
	        .schedule = s->config.schedule,
	        .schedule_file = s->config.schedule_file,
	        .trace_names = s->config.trace_names,
	        .svg_width = s->config.svg_width,
	        .jobs = s->config.jobs,
	        .frame = s->frame,
	};
}

void sim_free(struct sim *s)
{
	if (s == NULL)
		return;
	sim_release(s);
	free(s);
}
