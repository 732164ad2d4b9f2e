/*
 * Unit tests of the critical path and slack (src/engine/critical.c): small runs worked by hand,
 * then the laws over every schedule, both kinds of sends and random durations: the path adds up
 * to the step, its ops have no slack, and lengthening an op by less than its slack leaves the
 * step as it was, by more lengthens it by the difference (the engine run again to see).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "ppsim/critical.h"
#include "ppsim/sim.h"
#include "unit.h"

/* A run of s priced by k with the perturbation pt (NULL: none), its order recorded, its
 * messages too when record is set. */
static struct engine *run_with(const struct sched *s, const struct cost *k,
                               const struct engine_perturb *pt, bool events, bool record)
{
	struct pp_error err = {0};
	struct engine *e = engine_new(s, k, &err);

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	engine_record_order(e);
	if (record)
		engine_record_messages(e);
	if (events)
		engine_use_events(e);
	if (pt != NULL)
		CU_ASSERT_EQUAL_FATAL(engine_perturb(e, pt, &err), 0);
	if (engine_run(e, &err) != 0)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(engine_result(e));
	return e;
}

static struct engine *run_of(const struct sched *s, const struct cost *k,
                             const struct engine_perturb *pt, bool events)
{
	return run_with(s, k, pt, events, false);
}

/* A path of e, checked to add up to the step; its ops in path[], their count returned. */
static size_t path_of(const struct engine *e, struct critical_path *cp, uint32_t *path)
{
	struct pp_error err = {0};
	size_t n = 0;
	pp_time sum = 0, kinds = 0;

	if (engine_critical_path(e, cp, path, &n, &err) != 0)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(err.kind, PP_ERR_NONE);
	for (int d = 0; d < e->s->p; d++)
		sum += cp->devices[d];
	for (int k = 0; k < CRITICAL_KINDS; k++)
		kinds += cp->kind[k];
	CU_ASSERT_EQUAL(sum, kinds);
	CU_ASSERT_EQUAL(sum + cp->transfer + cp->tail, engine_result(e)->step_end);
	CU_ASSERT_EQUAL(cp->length, engine_result(e)->step_end);
	CU_ASSERT_EQUAL(cp->ops, n);
	return n;
}

/* 1F1B with p = 2, m = 1, F = 1, BW = 2 and messages of 0.5: F0 [0, 1], its message to 1.5,
 * F1 [1.5, 2.5], BW1 [2.5, 4.5], its gradient to 5, BW0 [5, 7]: all of it the path, device 0
 * ending the step; every op without slack. */
static void critical_path_of_1f1b_p2_m1_is_every_op_and_both_messages(void)
{
	struct config c = unit_config("1f1b", 2, 1, 1, 1, 1, 1);
	struct sim *x;
	struct engine *e;
	struct critical_path cp;
	uint32_t path[4];
	pp_time slack[4], tick;
	struct pp_error err = {0};

	c.t_comm = 0.5;
	x = unit_run(&c, 0);
	tick = x->cost->tick;
	e = run_of(x->sched, x->cost, NULL, false);
	CU_ASSERT_EQUAL_FATAL(path_of(e, &cp, path), 4);
	CU_ASSERT_EQUAL(cp.length, 7 * tick);
	CU_ASSERT_EQUAL(cp.device, 0);
	CU_ASSERT_EQUAL(cp.devices[0], 3 * tick);
	CU_ASSERT_EQUAL(cp.devices[1], 3 * tick);
	CU_ASSERT_EQUAL(cp.kind[OP_F], 2 * tick);
	CU_ASSERT_EQUAL(cp.kind[OP_BW], 4 * tick);
	CU_ASSERT_EQUAL(cp.transfer, tick);
	CU_ASSERT_EQUAL(cp.messages, 2);
	CU_ASSERT_EQUAL(cp.tail, 0);
	CU_ASSERT_EQUAL(x->sched->ops[path[0]].kind, OP_F);
	CU_ASSERT_EQUAL(x->sched->stage_device[x->sched->ops[path[1]].stage], 1);
	CU_ASSERT_EQUAL(x->sched->ops[path[3]].kind, OP_BW);
	CU_ASSERT_EQUAL_FATAL(engine_slack(e, slack, &err), 0);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(slack[i], 0);
	critical_path_release(&cp);
	engine_free(e);
	sim_free(x);
}

/* GPipe with p = 2, m = 2 at F = 1, BW = 1 and free messages: device 0 runs F0 [0, 1], F1
 * [1, 2], BW0 [4, 5], BW1 [5, 6]; device 1 F0 [1, 2], F1 [2, 3], BW0 [3, 4], BW1 [4, 5]. The
 * path runs F0 on both devices, then device 1 until BW0, back to device 0: three units on each;
 * no op has slack. */
static void critical_path_of_gpipe_p2_m2_crosses_twice_and_leaves_no_slack(void)
{
	struct config c = unit_config("gpipe", 2, 1, 2, 1, 0.5, 0.5);
	struct sim *x = unit_run(&c, 0);
	struct engine *e = run_of(x->sched, x->cost, NULL, false);
	struct critical_path cp;
	uint32_t path[8];
	pp_time slack[8], tick = x->cost->tick;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(path_of(e, &cp, path), 6);
	CU_ASSERT_EQUAL(cp.length, 6 * tick);
	CU_ASSERT_EQUAL(cp.devices[0], 3 * tick);
	CU_ASSERT_EQUAL(cp.devices[1], 3 * tick);
	CU_ASSERT_EQUAL(cp.kind[OP_F], 3 * tick);
	CU_ASSERT_EQUAL(cp.kind[OP_BW], 3 * tick);
	CU_ASSERT_EQUAL(cp.messages, 2);
	CU_ASSERT_EQUAL(cp.transfer, 0);
	CU_ASSERT_EQUAL_FATAL(engine_slack(e, slack, &err), 0);
	for (size_t i = 0; i < x->sched->nops; i++)
		CU_ASSERT_EQUAL(slack[i], 0);
	critical_path_release(&cp);
	engine_free(e);
	sim_free(x);
}

/* ZB-H1 with p = 2, m = 1 at unit costs: device 0 runs F [0, 1], B [3, 4], W [4, 5]; device 1
 * F [1, 2], B [2, 3], W [3, 4]. The step is 5; device 1's W could end at 5: slack 1, every
 * other op none; the path holds the five others, 3 units on device 0 and 2 on device 1. */
static void critical_slack_of_zbh1_p2_m1_is_one_on_the_last_devices_w(void)
{
	struct config c = unit_config("zbh1", 2, 1, 1, 1, 1, 1);
	struct sim *x = unit_run(&c, 0);
	struct engine *e = run_of(x->sched, x->cost, NULL, false);
	const struct sched *s = x->sched;
	struct critical_path cp;
	uint32_t path[6];
	pp_time slack[6], tick = x->cost->tick;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(path_of(e, &cp, path), 5);
	CU_ASSERT_EQUAL(cp.length, 5 * tick);
	CU_ASSERT_EQUAL(cp.device, 0);
	CU_ASSERT_EQUAL(cp.devices[0], 3 * tick);
	CU_ASSERT_EQUAL(cp.devices[1], 2 * tick);
	CU_ASSERT_EQUAL(cp.kind[OP_F], 2 * tick);
	CU_ASSERT_EQUAL(cp.kind[OP_B], 2 * tick);
	CU_ASSERT_EQUAL(cp.kind[OP_W], tick);
	CU_ASSERT_EQUAL_FATAL(engine_slack(e, slack, &err), 0);
	for (size_t i = 0; i < s->nops; i++)
		CU_ASSERT_EQUAL(slack[i],
		                s->ops[i].kind == OP_W && s->ops[i].stage == 1 ? tick : 0);
	critical_path_release(&cp);
	engine_free(e);
	sim_free(x);
}

/* Without op times or order, or before the run finished, neither is computed. */
static void critical_path_and_slack_refuse_a_run_without_times_or_order(void)
{
	struct config c = unit_config("1f1b", 2, 1, 2, 1, 1, 1);
	struct sim *x = unit_run(&c, 0);
	struct pp_error err = {0};
	struct critical_path cp;
	pp_time slack[8];
	struct engine *e = engine_new(x->sched, x->cost, &err);

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(engine_critical_path(e, &cp, NULL, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "the run did not finish");
	engine_drop_times(e);
	CU_ASSERT_EQUAL_FATAL(engine_run(e, &err), 0);
	CU_ASSERT_EQUAL(engine_critical_path(e, &cp, NULL, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "the run kept no op times");
	engine_free(e);
	/* with its times but not its order: a path, no slack */
	CU_ASSERT_EQUAL(engine_critical_path(x->engine, &cp, NULL, NULL, &err), 0);
	critical_path_release(&cp);
	CU_ASSERT_EQUAL(engine_slack(x->engine, slack, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "the run kept no op order");
	sim_free(x);
}

/* The first op of op i's node: a pair's forward. */
static size_t first_of(const struct sched *s, size_t i)
{
	return i > s->dev_start[s->stage_device[s->ops[i].stage]] &&
	                       (s->ops[i - 1].flags & OP_OVERLAP)
	               ? i - 1
	               : i;
}

/* The generator of the tests' random numbers (a linear congruence). */
static uint64_t next_rand(uint64_t *x)
{
	*x = *x * 6364136223846793005u + 1442695040888963407u;
	return *x >> 33;
}

/*
 * The laws on run x perturbed by pt: a path adds up to the step, its ops have slack 0, no slack
 * is negative, the sweep and the event loop give the same slacks; with check_laws, for a few
 * ops, a longer duration (pt's op_dur, which must be set) leaves the step as it was while the
 * op's span grows by less than its slack and lengthens it by the excess beyond.
 */
static void assert_laws(const struct sim *x, struct engine_perturb *pt, bool check_laws,
                        uint64_t *rnd)
{
	const struct sched *s = x->sched;
	struct engine *e = run_of(s, x->cost, pt, false), *ev;
	const struct result *r = engine_result(e);
	struct critical_path cp;
	uint32_t *path = unit_calloc(s->nops, sizeof(*path));
	pp_time *slack = unit_calloc(s->nops, sizeof(*slack));
	pp_time *slack2 = unit_calloc(s->nops, sizeof(*slack2));
	struct pp_error err = {0};
	size_t n = path_of(e, &cp, path);

	CU_ASSERT_EQUAL_FATAL(engine_slack(e, slack, &err), 0);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(slack[path[i]], 0);
	for (size_t i = 0; i < s->nops; i++)
		CU_ASSERT(slack[i] >= 0);
	/* the event loop finishes its ops in another order, and a run that recorded its messages
	 * has the slack pass read their consumers from the record: the same slacks */
	for (int how = 0; how < 3; how++) {
		ev = run_with(s, x->cost, pt, how != 1, how > 0);
		memset(slack2, 0xff, s->nops * sizeof(*slack2));
		CU_ASSERT_EQUAL_FATAL(engine_slack(ev, slack2, &err), 0);
		CU_ASSERT_EQUAL(memcmp(slack, slack2, s->nops * sizeof(*slack)), 0);
		engine_free(ev);
	}
	for (int j = 0; check_laws && j < 6; j++) {
		size_t i = first_of(s, (size_t)next_rand(rnd) % s->nops);
		pp_time span = r->times[i].end - r->times[i].start, was = pt->op_dur[i];
		pp_time less = slack[i] > 0 ? (pp_time)(next_rand(rnd) % (uint64_t)slack[i]) : 0;
		pp_time more = slack[i] + 1 + (pp_time)(next_rand(rnd) % (uint64_t)(span + 7));
		pp_time deltas[2] = {less, more};

		for (int k = 0; k < 2; k++) {
			struct engine *f;
			const struct result *q;
			pp_time grow, want;

			((pp_time *)pt->op_dur)[i] = was + deltas[k];
			f = run_of(s, x->cost, pt, false);
			q = engine_result(f);
			grow = (q->times[i].end - q->times[i].start) - span;
			want = r->step_end + (grow > slack[i] ? grow - slack[i] : 0);
			if (q->step_end != want)
				fprintf(stderr,
				        "%s op %zu: slack %lld, grew %lld: step %lld, want %lld\n",
				        x->config.schedule, i, (long long)slack[i], (long long)grow,
				        (long long)q->step_end, (long long)want);
			CU_ASSERT_EQUAL(q->step_end, want);
			engine_free(f);
		}
		((pp_time *)pt->op_dur)[i] = was;
	}
	free(path);
	free(slack);
	free(slack2);
	critical_path_release(&cp);
	engine_free(e);
}

/* Each op's and message's duration as x's cost gives it, drawn at random about it (a half to
 * one and a half of it) when rnd is not NULL, into op_dur and msg_dur [nops]. */
static void durations(const struct sim *x, pp_time *op_dur, pp_time *msg_dur, uint64_t *rnd)
{
	const struct sched *s = x->sched;

	for (size_t i = 0; i < s->nops; i++) {
		op_dur[i] = engine_cost_duration(x->engine, i);
		msg_dur[i] = engine_cost_msg_duration(x->engine, i);
		if (rnd != NULL) {
			op_dur[i] = op_dur[i] / 2 +
			            (pp_time)(next_rand(rnd) % (uint64_t)(op_dur[i] + 1));
			msg_dur[i] = msg_dur[i] / 2 +
			             (pp_time)(next_rand(rnd) % (uint64_t)(msg_dur[i] + 1));
		}
	}
}

/* The laws over every schedule, at two shapes, overlapped and blocking sends, free and costly
 * messages, random op and message durations, a slow device and a slow link from the start. */
static void critical_laws_hold_for_every_schedule_and_random_durations(void)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);
	static const struct {
		int p, m;
	} shapes[] = {{2, 4}, {4, 8}, {8, 16}};
	static const double tcomm[] = {0, 0.5};
	uint64_t rnd = 2024;

	for (size_t i = 0; i < n; i++)
		for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
			for (size_t tc = 0; tc < 2; tc++)
				for (int comm = 0; comm < 2; comm++) {
					struct config c =
					        unit_config(t[i].name, shapes[sh].p, t[i].min_v,
					                    shapes[sh].m, 2, 1.5, 0.5);
					struct pp_error err = {0};
					struct engine_slow slow[2] = {
					        {.dev = 1, .factor = 1.5},
					        {.dev = 0, .peer = 1, .link = true, .factor = 3}};
					struct engine_perturb pt;
					pp_time *od, *md;
					struct sim *x;

					c.t_comm = tcomm[tc];
					c.comm = comm ? PP_COMM_BLOCKING : PP_COMM_OVERLAP;
					c.overlap_factor = 0.8;
					if ((x = sim_run(&c, &err)) == NULL)
						continue; /* a shape the schedule does not take */
					od = unit_calloc(x->sched->nops, sizeof(*od));
					md = unit_calloc(x->sched->nops, sizeof(*md));
					durations(x, od, md, NULL);
					pt = (struct engine_perturb){od, md, NULL, 0};
					assert_laws(x, &pt, true, &rnd);
					durations(x, od, md, &rnd);
					assert_laws(x, &pt, true, &rnd);
					pt.slow = slow;
					pt.nslow = x->result->nchannels > 0 ? 2 : 1;
					assert_laws(x, &pt, true, &rnd);
					free(od);
					free(md);
					sim_free(x);
				}
}

/* Half-duplex channels, whose order follows the times: a path with no slack, none negative. */
static void critical_path_has_no_slack_on_half_duplex_channels(void)
{
	static const char *const names[] = {"1f1b", "interleaved", "zbv", "dualpipe"};
	uint64_t rnd = 7;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (int comm = 0; comm < 2; comm++) {
			struct config c = unit_config(names[i], 4, i == 0 ? 1 : 2, 8, 1, 1, 1);
			struct engine_perturb pt;
			pp_time *od, *md;
			struct sim *x;

			unit_set(&c, "t_comm", "0.75");
			unit_set(&c, "duplex", "half");
			if (comm)
				unit_set(&c, "comm", "blocking");
			x = unit_run(&c, 0);
			od = unit_calloc(x->sched->nops, sizeof(*od));
			md = unit_calloc(x->sched->nops, sizeof(*md));
			durations(x, od, md, &rnd);
			pt = (struct engine_perturb){od, md, NULL, 0};
			assert_laws(x, &pt, false, &rnd);
			free(od);
			free(md);
			sim_free(x);
		}
}

/* A model-priced run with every communication stream: its ops' spans hold their pieces, its
 * devices' tails their streams; the path adds up to the step and has no slack. */
static void critical_path_of_a_run_with_streams_adds_up_to_the_step(void)
{
	static const char *const kv[][2] = {{"model", "llama3-8b"},
	                                    {"tp", "2"},
	                                    {"dp", "2"},
	                                    {"distributed_optimizer", "yes"},
	                                    {"overlap_grad_reduce", "yes"},
	                                    {"overlap_param_gather", "yes"},
	                                    {"schedule", "interleaved"},
	                                    {"p", "4"},
	                                    {"v", "2"},
	                                    {"m", "8"}};
	struct config c;
	struct sim *x;
	struct engine_perturb pt = {0};
	uint64_t rnd = 1;

	config_init(&c);
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		unit_set(&c, kv[i][0], kv[i][1]);
	x = unit_run(&c, 0);
	CU_ASSERT_PTR_NOT_NULL(x->cost->pieces);
	assert_laws(x, &pt, false, &rnd);
	sim_free(x);
}

static const struct unit_test tests[] = {
        UNIT_TEST(critical_path_of_1f1b_p2_m1_is_every_op_and_both_messages),
        UNIT_TEST(critical_path_of_gpipe_p2_m2_crosses_twice_and_leaves_no_slack),
        UNIT_TEST(critical_slack_of_zbh1_p2_m1_is_one_on_the_last_devices_w),
        UNIT_TEST(critical_path_and_slack_refuse_a_run_without_times_or_order),
        UNIT_TEST(critical_laws_hold_for_every_schedule_and_random_durations),
        UNIT_TEST(critical_path_has_no_slack_on_half_duplex_channels),
        UNIT_TEST(critical_path_of_a_run_with_streams_adds_up_to_the_step),
        {NULL, NULL},
};

const struct unit_suite suite_critical = {"critical", tests};
