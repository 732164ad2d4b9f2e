/*
 * Whole-config validation: the checks a config must pass before it runs, for a command (an
 * option refused where it does not belong, named with where its value came from), for training
 * (a schedule's shape, its op count against --max-ops, the costs and their resolution, the
 * noise options) and for serving. Parsing one option's value is config.c's.
 */
#include "ppsim/config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "config_noise.h"
#include "ppsim/preset.h"
#include "ppsim/sched.h"

/* True when opt is for serving only, not for any training command. */
static bool serving_only(const struct config_option *opt)
{
	return (opt->commands & CONFIG_RUN) == 0;
}

/*
 * The first option in table order that c sets, whose pricing is price (or any, with
 * CONFIG_PRICE_ANY) and whose flags include flags, restricted to the serving-only options
 * (serving > 0) or to the others (serving == 0), or not (serving < 0); NULL when none.
 */
static const struct config_option *first_set(const struct config *c, enum config_price price,
                                             unsigned flags, int serving)
{
	size_t noptions;
	const struct config_option *options = config_options(&noptions);
	for (size_t i = 0; i < noptions; i++) {
		const struct config_option *o = &options[i];

		if (c->origin[i].line != 0 && (price == CONFIG_PRICE_ANY || o->price == price) &&
		    (o->flags & flags) == flags &&
		    (serving < 0 || serving_only(o) == (serving > 0)))
			return o;
	}
	return NULL;
}

/* Checks that no option of the pricing mode not in use was set. */
static int check_mode(const struct config *c, struct pp_error *err)
{
	const struct config_option *o;

	if (!config_has_model(c) && (o = first_set(c, CONFIG_PRICE_MODEL, 0, 0)) != NULL)
		return config_fail(c, o->key, err, "needs a model (--model) to price ops from");
	if (config_has_model(c) && (o = first_set(c, CONFIG_PRICE_EXPLICIT, 0, 0)) != NULL)
		return config_fail(c, o->key, err,
		                   "not with a model, which prices ops and messages itself");
	return 0;
}

/* Explicit times are whole ticks: an op's PP_TICK_BASE a unit (its chunk's share is exact in
 * the run's finer tick), a message's the run's msg_tick a unit (PP_TICK_BASE x v / routes, as
 * cost_new_explicit prices it); one above 0 that rounds to no tick would silently become 0. */
static int check_resolution(const struct config *c, int64_t msg_tick, struct pp_error *err)
{
	const struct {
		const char *key;
		double t;
		int64_t tick;
	} times[] = {{"t_f", c->t_f, PP_TICK_BASE},
	             {"t_b", c->t_b, PP_TICK_BASE},
	             {"t_w", c->t_w, PP_TICK_BASE},
	             {"t_comm", c->t_comm, msg_tick}};

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		pp_time t = 0;

		if (times[i].t > 0 && pp_time_from_units(times[i].t, times[i].tick, &t) && t == 0)
			return config_fail(
			        c, times[i].key, err,
			        "below the resolution of %g time units: it would run as 0 "
			        "(times are whole ticks); use 0 or a larger value",
			        1.0 / (double)times[i].tick);
	}
	return 0;
}

/* Checks the costs and the settings that do not depend on the schedule (ops: the op count,
 * 0 when not known yet). */
static int check_costs(const struct config *c, uint64_t ops, int64_t msg_tick,
                       struct pp_error *err)
{
	double bw, lat;

	if (c->ndevice_order > 0 && c->schedule_file[0] != '\0')
		return config_fail(c, "device_order", err,
		                   "renumbers a generated schedule's devices; a schedule file (or a "
		                   "measured order) names each op's device itself");
	if (c->ndevice_order > 0 && c->ndevice_order != c->p)
		return config_fail(c, "device_order", err,
		                   "gives %d devices; give a permutation of 0..%d, one a device of "
		                   "p = %d",
		                   c->ndevice_order, c->p - 1, c->p);
	for (int i = 0; i < c->ndevice_order; i++)
		if (c->device_order[i] >= c->p)
			return config_fail(c, "device_order", err,
			                   "names device %d; p = %d devices are numbered 0 to %d",
			                   c->device_order[i], c->p, c->p - 1);
	/* with a schedule file the shape comes from the file, which sim_run checks against */
	if (c->nstage_scale > 0 && c->schedule_file[0] == '\0' && c->nstage_scale != c->p &&
	    c->nstage_scale != c->p * c->v)
		return config_fail(
		        c, "stage_scale", err,
		        "gives %d factors; give p = %d (per device) or p*v = %d (per stage)",
		        c->nstage_scale, c->p, c->p * c->v);
	if (c->mem_limit > 0 && c->mem_limit < 1)
		return config_fail(c, "mem_limit", err, "must be at least 1 micro-batch");
	if (config_has_model(c))
		return 0;
	config_link(c, &bw, &lat);
	if (bw > 0 && c->t_comm > 0)
		return config_fail(
		        c, "t_comm", err,
		        "give a fixed message time or a link (--link, --bandwidth), not both");
	if (bw == 0 && c->latency >= 0)
		return config_fail(c, "latency", err, "needs a link (--link or --bandwidth)");
	if (config_msg_time(c) > PP_TIME_MAX_UNITS)
		return config_fail(
		        c, "msg_bytes", err,
		        "one message would take %.3g ms at %g GB/s, above the limit of %g",
		        config_msg_time(c), bw, PP_TIME_MAX_UNITS);
	/* every op sends at most one message: ops * msg_bytes bounds the traffic, which must stay
	 * exact in a double (JSON numbers) */
	if (c->msg_bytes > 0 && (double)ops * (double)c->msg_bytes > PP_MAX_TRAFFIC_BYTES)
		return config_fail(c, "msg_bytes", err,
		                   "%.3g ops could move %.3g bytes, above 2^53", (double)ops,
		                   (double)ops * (double)c->msg_bytes);
	if (c->t_f + c->t_b + c->t_w == 0)
		return config_fail(c, "t_f", err,
		                   "--tf, --tb and --tw: at least one must be above 0");
	return check_resolution(c, msg_tick, err);
}

int config_check_command(const struct config *c, unsigned command, const char *name,
                         struct pp_error *err)
{
	size_t noptions;
	const struct config_option *options = config_options(&noptions);
	for (size_t i = 0; i < noptions; i++) {
		const struct config_option *o = &options[i];

		if (c->origin[i].line == 0 || (o->commands & command) != 0)
			continue;
		if (serving_only(o))
			return config_fail(c, o->key, err, "a serving option: use ppsim serve");
		if (command == CONFIG_SERVE)
			return config_fail(c, o->key, err,
			                   "a training option, not for ppsim serve");
		/* the training options partition does not take give what it searches for */
		if (command == CONFIG_PARTITION && (o->commands & CONFIG_RUN))
			return config_fail(c, o->key, err,
			                   "partition searches each stage's layers and recomputation "
			                   "and would not use it: leave it out, or price it with ppsim "
			                   "run and the same options");
		return config_fail(c, o->key, err, "not for ppsim %s", name);
	}
	return 0;
}

bool config_is_serve(const struct config *c)
{
	return first_set(c, CONFIG_PRICE_ANY, 0, 1) != NULL;
}

/*
 * The settings only some schedules take: a schedule that does not take one refuses it when set,
 * naming those that do (the refusal's two %s: their names, then the schedule's).
 */
static const struct {
	const char *key;
	bool (*takes)(const struct sched_desc *);
	const char *refusal;
} schedule_keys[] = {
        {"mem_limit", sched_takes_mem_limit, "only %s take a memory limit, not %s"},
        {"overlap_factor", sched_takes_overlap_factor,
         "only schedules of overlapped F&B pairs (%s) take it, not %s"},
};

/*
 * A schedule's refusal of the shape, blaming key (the setting it names): an m the user did
 * not give is blamed on what gave it, the global batch, or else on the stages given (m is
 * then the default), and the message says what m is.
 */
static int refuse_shape(const struct config *c, const char *key, const char *why,
                        struct pp_error *err)
{
	if (strcmp(key, "m") != 0 || config_is_set(c, "m"))
		return config_fail(c, key, err, "%s", why);
	if (config_is_set(c, "global_batch"))
		return config_fail(c, "global_batch", err,
		                   "%s, and it makes m = %d (global batch / (mbs x dp)): give a "
		                   "larger one, or -m",
		                   why, c->m);
	return config_fail(c, config_is_set(c, "p") ? "p" : "schedule", err,
	                   "%s, and m is %d, the default: give -m", why, c->m);
}

/* The counts whose row narrows their range, checked again for a config not set through the table.
 */
static int check_ranges(const struct config *c, struct pp_error *err)
{
	size_t noptions;
	const struct config_option *options = config_options(&noptions);
	for (size_t i = 0; i < noptions; i++) {
		const struct config_option *o = &options[i];
		int x;

		if (o->arg != CONFIG_ARG_COUNT || (o->min == 0 && o->max == 0))
			continue;
		x = *(const int *)(const void *)((const char *)c + o->offset);
		if (x == 0 && (o->flags & CONFIG_ZERO_AUTO))
			continue;
		if (x <= 0 && (o->flags & CONFIG_ZERO_OK))
			continue;
		if (x < (o->min > 0 ? o->min : 1) || x > (o->max > 0 ? o->max : PP_MAX_COUNT))
			return config_fail(c, o->key, err, "must be from %d to %d",
			                   o->min > 0 ? o->min : 1,
			                   o->max > 0 ? o->max : PP_MAX_COUNT);
	}
	return 0;
}

int config_validate_serve(const struct config *c, struct pp_error *err)
{
	const struct {
		const char *key;
		bool ok;
		const char *why;
	} needs[] = {
	        {"rate", c->arrival != PP_ARRIVAL_CLOSED, "not with --arrival=closed"},
	        {"burst", c->arrival == PP_ARRIVAL_BURSTY, "only with --arrival=bursty"},
	        {"concurrency", c->arrival == PP_ARRIVAL_CLOSED, "only with --arrival=closed"},
	        {"chunk_tokens", c->batching == PP_BATCHING_CHUNKED,
	         "only with --batching=chunked"},
	        {"max_tokens", c->batching != PP_BATCHING_CHUNKED,
	         "not with --batching=chunked, whose budget is --chunk-tokens"},
	        {"prefill_stages", c->batching == PP_BATCHING_DISAGGREGATED,
	         "only with --batching=disaggregated"},
	        {"kv_link", c->batching == PP_BATCHING_DISAGGREGATED,
	         "only with --batching=disaggregated"},
	        {"stage_scale", c->batching != PP_BATCHING_DISAGGREGATED,
	         "not with --batching=disaggregated"},
	};
	const struct config_option *o;
	bool model = config_has_model(c);

	if (config_check_command(c, CONFIG_SERVE, "serve", err) != 0 || check_ranges(c, err) != 0)
		return -1;
	if (!model && (o = first_set(c, CONFIG_PRICE_MODEL, 0, 1)) != NULL)
		return config_fail(c, o->key, err, "needs a model (--model)");
	if (model && (o = first_set(c, CONFIG_PRICE_EXPLICIT, 0, 1)) != NULL)
		return config_fail(c, o->key, err,
		                   "not with a model, which prices micro-batches itself");
	if (!model && (o = first_set(c, CONFIG_PRICE_LINK, 0, -1)) != NULL)
		return config_fail(c, o->key, err,
		                   "serving without a model prices messages with --tcomm only");
	if (check_mode(c, err) != 0)
		return -1;
	if (c->requests[0] != '\0' &&
	    (o = first_set(c, CONFIG_PRICE_ANY, CONFIG_GENERATES, -1)) != NULL)
		return config_fail(c, o->key, err, "not with --requests, which gives the requests");
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (!needs[i].ok && config_is_set(c, needs[i].key))
			return config_fail(c, needs[i].key, err, "%s", needs[i].why);
	if (c->max_ops < 1 || c->max_ops > PP_MAX_OPS_CEILING)
		return config_fail(c, "max_ops", err, "must be from 1 to %" PRIu64,
		                   PP_MAX_OPS_CEILING);
	if (c->num_requests > PP_MAX_REQUESTS)
		return config_fail(c, "num_requests", err, "must be at most %d", PP_MAX_REQUESTS);
	if (c->nstage_scale > 0 && c->nstage_scale != c->p)
		return config_fail(c, "stage_scale", err, "gives %d factors for p = %d stages",
		                   c->nstage_scale, c->p);
	if (!model && c->step_time + c->token_time + c->attn_time == 0)
		return config_fail(
		        c, "step_time", err,
		        "--step-time, --token-time and --attn-time: at least one must be "
		        "above 0");
	/* a message time or a window above 0 that rounds to no tick would run as 0, or as the
	 * default window */
	if (pp_time_below_tick(c->t_comm))
		return config_fail(c, "t_comm", err,
		                   "below the resolution of %g time units: it would run as 0 "
		                   "(times are whole ticks); use 0 or a larger value",
		                   1.0 / (double)PP_TICK_BASE);
	if (pp_time_below_tick(c->window))
		return config_fail(c, "window", err,
		                   "below the resolution of %g time units: a window is a whole number "
		                   "of ticks",
		                   1.0 / (double)PP_TICK_BASE);
	return 0;
}

int config_validate(const struct config *c, struct pp_error *err)
{
	const struct sched_desc *desc = sched_find(c->schedule);
	struct sched_params sp;
	struct pp_error why = {0};
	const char *key = "schedule";
	uint64_t ops = 0, work = 0;

	if (config_check_command(c, CONFIG_RUN, "run", err) != 0 || check_ranges(c, err) != 0)
		return -1;
	if (c->p < 1 || c->p > PP_MAX_COUNT || c->m < 1 || c->m > PP_MAX_COUNT || c->v < 1)
		return pp_fail(err, PP_ERR_USAGE,
		               "-p %d -m %d -v %d: p and m must be from 1 to %d, v at least 1",
		               c->p, c->m, c->v, PP_MAX_COUNT);
	if (c->schedule_file[0] != '\0') {
		/* the file fixes the order and the shape; the generator's options do not apply. A
		 * config file's give way to a --schedule-file on the command line (or a library
		 * caller's), which overrides the file: a config runs an order exported from it */
		size_t noptions;
		const struct config_option *options = config_options(&noptions);
		bool given = c->origin[config_row(config_option_by_key("schedule_file"))].line < 0;

		for (size_t i = 0; i < noptions; i++)
			if (c->origin[i].line != 0 && (options[i].flags & CONFIG_SHAPES_ORDER) &&
			    !(given && c->origin[i].line > 0))
				return config_fail(c, options[i].key, err, "not with --schedule-file");
		/* the caller gives the file's shape: bound its traffic by its op count; the noise's
		 * devices and stages are checked once the file is read (its shape adopted: the
		 * schedule named "file"), not against the default shape before */
		if (!sched_op_count(c->p, c->v, c->m, true, &ops))
			ops = UINT64_MAX;
		return check_mode(c, err) == 0 &&
		                       (strcmp(c->schedule, "file") != 0 ||
		                        config_check_noise(c, err) == 0)
		               ? check_costs(c, ops, pp_run_tick(c->v, 1), err)
		               : -1;
	}
	if (desc == NULL)
		return config_fail(c, "schedule", err, "unknown schedule");
	if (c->max_ops < 1 || c->max_ops > PP_MAX_OPS_CEILING)
		return config_fail(c, "max_ops", err, "must be from 1 to %" PRIu64,
		                   PP_MAX_OPS_CEILING);
	/* each stage runs the micro-batches of its route */
	if (!sched_op_count(c->p, c->v, c->m / sched_desc_routes(desc), desc->split, &ops) ||
	    ops > c->max_ops)
		return pp_fail(err, PP_ERR_USAGE,
		               "-p %d -m %d -v %d: %s needs %.3g ops, above the limit of %" PRIu64
		               " simulated ops (--max-ops)",
		               c->p, c->m, c->v, desc->name,
		               (double)c->p * c->v * (c->m / sched_desc_routes(desc)) *
		                       (desc->split ? 3 : 2),
		               c->max_ops);
	if (!sched_work(desc, c->p, c->v, c->m, &work) || work > c->max_ops)
		return pp_fail(err, PP_ERR_USAGE,
		               "-p %d -m %d -v %d: building %s's order costs %.3g ops' worth "
		               "(its %.3g ops and %s), above the limit of %" PRIu64 " (--max-ops)",
		               c->p, c->m, c->v, desc->name,
		               work == UINT64_MAX ? HUGE_VAL : (double)work, (double)ops,
		               desc->fn.generate_priced != NULL ? "its greedy passes over them"
		                                                : "the order it lays out",
		               c->max_ops);
	if (c->v > PP_MAX_CHUNKS)
		return config_fail(c, "v", err, "must be at most %d", PP_MAX_CHUNKS);
	sp = config_sched_params(c);
	if (sched_accepts(desc, &sp, &key, &why) != 0)
		return refuse_shape(c, key, why.msg, err);
	if (check_mode(c, err) != 0 || config_check_noise(c, err) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(schedule_keys) / sizeof(schedule_keys[0]); i++)
		if (config_is_set(c, schedule_keys[i].key) && !schedule_keys[i].takes(desc)) {
			char takers[128];

			return config_fail(
			        c, schedule_keys[i].key, err, schedule_keys[i].refusal,
			        sched_names_that(schedule_keys[i].takes, takers, sizeof(takers)),
			        desc->name);
		}
	return check_costs(c, ops, pp_run_tick(c->v, sched_desc_routes(desc)), err);
}
