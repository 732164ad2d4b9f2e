/*
 * Unit tests of serve_run and serve_metrics: the pipeline's timing (stage after stage, hops,
 * blocking sends, the in-flight limit), the four batching policies, KV-cache admission, the
 * closed loop, the model's prices against an independent roofline of Llama 3 8B on an H100,
 * the latency percentiles, throughput and windows, and determinism. Every expected figure is
 * derived by hand in the comment beside it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ppsim/config.h"
#include "ppsim/serve.h"
#include "unit.h"

/* The defaults (explicit costs) with these serving settings: config-file keys and values,
 * NULL-ended. */
static struct config serve_config(const char *const *settings)
{
	struct config c;

	config_init(&c);
	for (size_t i = 0; settings[i] != NULL; i += 2)
		unit_set(&c, settings[i], settings[i + 1]);
	return c;
}

/* Serves the n requests under c, closed loop with `concurrency` clients (0: open loop); the
 * run must succeed. */
static struct serve_run *serve_loop(const struct config *c, struct serve_request *req, size_t n,
                                    int concurrency)
{
	struct serve_workload w = {req, n, concurrency};
	struct pp_error err = {0};
	struct serve_run *r = serve_run(c, &w, &err);

	if (r == NULL)
		fprintf(stderr, "serve_run: %s\n", err.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

/* Serves the n requests of an open loop under c; the run must succeed. */
static struct serve_run *serve(const struct config *c, struct serve_request *req, size_t n)
{
	return serve_loop(c, req, n, 0);
}

/* Fills req[0..n-1] with equal requests. */
static void equal_requests(struct serve_request *req, size_t n, double arrival, uint32_t prompt,
                           uint32_t output)
{
	for (size_t i = 0; i < n; i++)
		req[i] = (struct serve_request){arrival, prompt, output};
}

/* Time t of run r in its time units. */
static double units(const struct serve_run *r, pp_time t)
{
	return pp_time_to_units(t, r->tick);
}

/* The times of op i on device d of r's drawings' op order. */
static const struct op_time *op_on(const struct serve_run *r, int d, size_t i)
{
	const struct sched *s = r->order;

	CU_ASSERT_FATAL(d < s->p && s->dev_start[d] + i < s->dev_start[d + 1]);
	return &r->result.times[s->dev_start[d] + i];
}

/* A micro-batch as a test expects it; times in units. */
struct want_batch {
	uint32_t seqs, tokens, prefill_tokens, produced;
	double launch, exit;
};

/* Asserts that r launched exactly the n micro-batches of want, in order (pipeline 0). */
static void assert_batches(const struct serve_run *r, const struct want_batch *want, size_t n)
{
	CU_ASSERT_EQUAL_FATAL(r->nbatch, n);
	for (size_t k = 0; k < n; k++) {
		const struct serve_batch *b = &r->batch[k];
		const struct want_batch *x = &want[k];
		bool same = b->seqs == x->seqs && b->tokens == x->tokens &&
		            b->prefill_tokens == x->prefill_tokens && b->produced == x->produced &&
		            units(r, b->launch) == x->launch && units(r, b->exit) == x->exit &&
		            b->pipeline == 0;

		if (!same)
			fprintf(stderr,
			        "\n  batch %zu: got seqs %u tokens %u prefill %u produced %u "
			        "[%g, %g], want %u %u %u %u [%g, %g]\n",
			        k, b->seqs, b->tokens, b->prefill_tokens, b->produced,
			        units(r, b->launch), units(r, b->exit), x->seqs, x->tokens,
			        x->prefill_tokens, x->produced, x->launch, x->exit);
		CU_ASSERT_TRUE(same);
	}
}

/* 8 requests at 0 of prompt 1 and output 200, step 1 on p = 4 stages, micro-batches of two
 * sequences, windows of 50; inflight as given (NULL: the default, p). */
static struct serve_run *steady_decode(const char *inflight)
{
	static const char *const settings[] = {"p", "4",      "step_time", "1", "max_batch",
	                                       "2", "window", "50",        NULL};
	struct config c = serve_config(settings);
	struct serve_request req[8];

	if (inflight != NULL)
		unit_set(&c, "inflight", inflight);
	equal_requests(req, 8, 0, 1, 200);
	return serve(&c, req, 8);
}

static void serve_run_steady_decode_with_p_in_flight_leaves_no_bubble_in_steady_windows(void)
{
	struct serve_run *r = steady_decode(NULL);
	struct serve_metrics m;

	/*
	 * Pairs k = 0..3 prefill at t = k (stage 0 frees after 1, four in flight), then each pair
	 * decodes every 4 = p units as its micro-batch exits: 199 decodes launched at k + 4j, the
	 * last exiting at k + 800. Stage s is busy without a gap over [s, 800 + s): 800
	 * micro-batches in all, the run ends at 803.
	 */
	CU_ASSERT_EQUAL(r->nbatch, 4 + 4 * 199);
	ASSERT_NEAR(units(r, r->end), 803);
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	/* windows of 50 from 0 to 803: 17, the last [800, 803) */
	CU_ASSERT_EQUAL_FATAL(m.nwindows, 17);
	ASSERT_NEAR(m.windows[16].end, 803);
	/* [0, 50): the stages start at 0, 1, 2, 3: busy 50 + 49 + 48 + 47 = 194 of 200 */
	ASSERT_NEAR(m.windows[0].bubble_ratio, 0.03);
	/* [50, 800): every stage busy all the time */
	for (size_t k = 1; k < 16; k++)
		CU_ASSERT_EQUAL(m.windows[k].bubble_ratio, 0);
	/* [800, 803): stages 1, 2, 3 busy 1, 2, 3 of 3 each: 6 of 12 */
	ASSERT_NEAR(m.windows[16].bubble_ratio, 0.5);
	/* overall: each device busy 800 over a span of 803 from the first launch at 0 */
	for (int d = 0; d < 4; d++) {
		ASSERT_NEAR(units(r, r->result.devices[d].busy), 800);
		ASSERT_NEAR(m.busy[d], 800);
		ASSERT_NEAR(m.device_utilization[d], 800.0 / 803);
	}
	ASSERT_NEAR(m.span, 803);
	ASSERT_NEAR(units(r, r->result.makespan), 803);
	/* the drawings' titles print the serving report's figure */
	ASSERT_NEAR(r->frame.bubble_ratio, 12.0 / 3212);
	ASSERT_NEAR(m.bubble_ratio, 12.0 / 3212);
	ASSERT_NEAR(m.utilization, 3200.0 / 3212);
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_run_steady_decode_with_one_in_flight_idles_p_minus_1_of_p_stages(void)
{
	struct serve_run *r = steady_decode("1");
	struct serve_metrics m;

	/*
	 * One micro-batch at a time, each 4 units through the 4 stages: exactly one stage busy at
	 * every moment. The same 800 micro-batches end at 3200; every window (all inside) has
	 * bubble 1 - 50 / (4 x 50) = 0.75 = (p - 1) / p.
	 */
	CU_ASSERT_EQUAL(r->nbatch, 800);
	ASSERT_NEAR(units(r, r->end), 3200);
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(m.nwindows, 64);
	for (size_t k = 0; k < m.nwindows; k++)
		CU_ASSERT_EQUAL(m.windows[k].bubble_ratio, 0.75);
	for (int d = 0; d < 4; d++) {
		ASSERT_NEAR(units(r, r->result.devices[d].busy), 800);
		ASSERT_NEAR(m.busy[d], 800);
	}
	ASSERT_NEAR(m.span, 3200);
	ASSERT_NEAR(r->frame.bubble_ratio, 0.75);
	ASSERT_NEAR(m.bubble_ratio, 0.75);
	serve_metrics_release(&m);
	serve_free(r);
}

/* What a serving run's drawings read: its own op order and times, named by its batching
 * policy, from its first arrival, with no activations kept (no memory counters). */
static void serve_drawing_shows_the_run_s_own_order_and_times(void)
{
	struct serve_run *r = steady_decode("1");
	struct drawing d = serve_drawing(r);

	CU_ASSERT_PTR_EQUAL(d.sched, r->order);
	CU_ASSERT_PTR_EQUAL(d.result, &r->result);
	CU_ASSERT_PTR_NULL(d.act);
	CU_ASSERT_PTR_NULL(d.slack);
	CU_ASSERT_PTR_NULL(d.samples);
	CU_ASSERT_STRING_EQUAL(d.schedule, config_batching_name(r->config.batching));
	CU_ASSERT_STRING_EQUAL(d.schedule_file, "");
	CU_ASSERT_EQUAL(d.tick, r->tick);
	CU_ASSERT_EQUAL(d.frame.origin, r->first_arrival);
	CU_ASSERT_EQUAL(d.frame.bubble_ratio, r->frame.bubble_ratio);
	CU_ASSERT_EQUAL(d.sched->nops, (size_t)r->nbatch * (size_t)r->stages[0]);
	for (size_t i = 0; i < d.sched->nops; i++)
		CU_ASSERT_EQUAL(drawing_act_change(&d, &d.sched->ops[i]), 0);
	serve_free(r);
}

/* Two decoders A and B at 0 (prompt 1, output 100) and a long prompt L at 10 (prompt 10,
 * output 1) on p = 2 with token time 1 and no step time, one sequence per micro-batch. */
static struct serve_run *long_prompt_among_decodes(void)
{
	static const char *const settings[] = {"p",          "2",  "step_time", "0",
	                                       "token_time", "1",  "max_batch", "1",
	                                       "window",     "10", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 1, 100}, {0, 1, 100}, {10, 10, 1}};

	return serve(&c, req, 3);
}

static void serve_run_a_long_prompt_among_decodes_opens_bubbles_and_holds_a_decode_back(void)
{
	struct serve_run *r = long_prompt_among_decodes();
	struct serve_metrics m;

	/*
	 * A prefills on stage 0 [0,1], B [1,2]; then A decodes at even, B at odd times: both
	 * stages busy from 0 and 1. At 10 A's decode exits and L arrives: prefill first, L runs
	 * alone [10,20] on stage 0, [20,30] on stage 1. At 20 A decodes on stage 0 [20,21] but
	 * waits for stage 1 until 30 [30,31]; with L and A in flight (the limit, 2) B is held back
	 * until L exits at 30: B [30,31],[31,32], A [31,32],[32,33], back to steady.
	 */
	CU_ASSERT_FATAL(r->nbatch > 13);
	/* micro-batch 10 is L, 11 A's decode at 20, 12 B's at 30 */
	CU_ASSERT_EQUAL(r->batch[10].tokens, 10);
	ASSERT_NEAR(units(r, r->batch[10].launch), 10);
	ASSERT_NEAR(units(r, r->batch[10].exit), 30);
	ASSERT_NEAR(units(r, r->batch[11].launch), 20);
	ASSERT_NEAR(units(r, r->batch[11].exit), 31);
	ASSERT_NEAR(units(r, r->batch[12].launch), 30);
	ASSERT_NEAR(units(r, r->batch[12].exit), 32);
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	CU_ASSERT_FATAL(m.nwindows > 4);
	/* [0,10): stage 0 busy 10, stage 1 9 (from 1): 1 - 19/20 */
	ASSERT_NEAR(m.windows[0].bubble_ratio, 0.05);
	/* [10,20): stage 0 busy 10 (L), stage 1 only B's [10,11]: 1 - 11/20 */
	ASSERT_NEAR(m.windows[1].bubble_ratio, 0.45);
	/* [20,30): stage 0 only A's [20,21], stage 1 busy 10 (L): 1 - 11/20 */
	ASSERT_NEAR(m.windows[2].bubble_ratio, 0.45);
	/* [30,40): A and B alternate on both stages without a gap */
	CU_ASSERT_EQUAL(m.windows[3].bubble_ratio, 0);
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_run_a_long_prompt_gets_its_first_token_when_its_prefill_leaves_stage_1(void)
{
	struct serve_run *r = long_prompt_among_decodes();
	const struct serve_request_result *l = &r->req[2];

	/* L arrives at 10 and is launched at once; its prefill runs [10,20] on stage 0 and
	 * [20,30] on stage 1, which makes its only token: TTFT 20, queue wait 0 */
	ASSERT_NEAR(units(r, l->arrival), 10);
	ASSERT_NEAR(units(r, l->admitted), 10);
	ASSERT_NEAR(units(r, l->first_token), 30);
	ASSERT_NEAR(units(r, l->finish), 30);
	ASSERT_NEAR(units(r, op_on(r, 0, 10)->start), 10);
	ASSERT_NEAR(units(r, op_on(r, 0, 10)->end), 20);
	ASSERT_NEAR(units(r, op_on(r, 1, 10)->start), 20);
	ASSERT_NEAR(units(r, op_on(r, 1, 10)->end), 30);
	CU_ASSERT_FALSE(l->waited_for_kv);
	serve_free(r);
}

static void serve_run_prices_step_plus_tokens_per_stage_and_t_comm_per_hop(void)
{
	static const char *const settings[] = {"p", "3",      "step_time", "1", "token_time",
	                                       "1", "t_comm", "0.5",       NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 3, 2}};
	struct serve_run *r = serve(&c, req, 1);
	struct serve_metrics m;
	/*
	 * The prefill of 3 tokens takes 1 + 3 = 4 on each stage and 0.5 per hop: [0,4], hop
	 * [4,4.5], [4.5,8.5], hop [8.5,9], [9,13]: the first token at 13. The decode (1 token)
	 * takes 2 per stage from 13: [13,15], [15.5,17.5], [18,20]: finished at 20.
	 */
	static const double want[3][2][2] = {
	        {{0, 4}, {13, 15}}, {{4.5, 8.5}, {15.5, 17.5}}, {{9, 13}, {18, 20}}};
	static const double hops[4][2] = {{4, 4.5}, {8.5, 9}, {15, 15.5}, {17.5, 18}};

	for (int d = 0; d < 3; d++)
		for (size_t i = 0; i < 2; i++) {
			ASSERT_NEAR(units(r, op_on(r, d, i)->start), want[d][i][0]);
			ASSERT_NEAR(units(r, op_on(r, d, i)->end), want[d][i][1]);
		}
	CU_ASSERT_EQUAL(r->order->nops, 6);
	/* two micro-batches, two hops each */
	CU_ASSERT_EQUAL(r->result.messages, 4);
	CU_ASSERT_EQUAL_FATAL(r->result.nmsgs, 4);
	for (size_t i = 0; i < 4; i++) {
		ASSERT_NEAR(units(r, r->result.msgs[i].start), hops[i][0]);
		ASSERT_NEAR(units(r, r->result.msgs[i].end), hops[i][1]);
	}
	ASSERT_NEAR(units(r, r->result.msg_time), 2);
	ASSERT_NEAR(units(r, r->req[0].first_token), 13);
	ASSERT_NEAR(units(r, r->req[0].finish), 20);
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	/* TTFT 13, TPOT (20 - 13) / (2 - 1) = 7, end to end 20 */
	ASSERT_NEAR(m.ttft.mean, 13);
	ASSERT_NEAR(m.tpot.mean, 7);
	ASSERT_NEAR(m.e2e.mean, 20);
	ASSERT_NEAR(m.queue_wait.mean, 0);
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_run_prices_attention_as_attn_time_per_token_per_1000_of_context(void)
{
	static const char *const settings[] = {"p",    "1",         "step_time", "1", "token_time",
	                                       "0.25", "attn_time", "100",       NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 4, 3}};
	struct serve_run *r = serve(&c, req, 1);
	/*
	 * A micro-batch takes step + token x T + attn x A / 1000, A = sum of n x (context +
	 * (n+1)/2) over its sequences. The prefill (n 4, context 0): A = 4 x 2.5 = 10, so
	 * 1 + 0.25 x 4 + 100 x 10 / 1000 = 3: [0,3]. The first decode (n 1, context 4): A = 5,
	 * 1 + 0.25 + 0.5 = 1.75: [3,4.75]. The second (context 5): A = 6, 1 + 0.25 + 0.6 = 1.85:
	 * [4.75,6.6]. TPOT (6.6 - 3) / 2 = 1.8.
	 */
	static const double want[3][2] = {{0, 3}, {3, 4.75}, {4.75, 6.6}};
	struct serve_metrics m;

	CU_ASSERT_EQUAL_FATAL(r->order->nops, 3);
	for (size_t i = 0; i < 3; i++) {
		ASSERT_NEAR(units(r, op_on(r, 0, i)->start), want[i][0]);
		ASSERT_NEAR(units(r, op_on(r, 0, i)->end), want[i][1]);
	}
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	ASSERT_NEAR(m.ttft.mean, 3);
	ASSERT_NEAR(m.tpot.mean, 1.8);
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_run_blocking_comm_holds_the_sending_stage_until_its_message_is_sent(void)
{
	/*
	 * Two prompts of 3 at 0, one per micro-batch, p = 3, 4 per stage and 0.5 per hop. The
	 * first runs [0,4], hop [4,4.5], [4.5,8.5], hop [8.5,9], [9,13] either way.
	 * Overlap: stage 0 frees at 4: the second launches at 4, [4,8], hop [8,8.5], stage 1
	 * [8.5,12.5], hop [12.5,13], stage 2 [13,17].
	 * Blocking: stage 0 is held until its send ends at 4.5, stage 1 until 9: the second
	 * launches at 4.5, [4.5,8.5], hop [8.5,9], stage 1 [9,13], hop [13,13.5], stage 2
	 * [13.5,17.5].
	 */
	static const struct {
		const char *comm;
		double launch, stage1, exit;
	} cases[] = {
	        {"overlap", 4, 8.5, 17},
	        {"blocking", 4.5, 9, 17.5},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static const char *const settings[] = {"p",          "3", "step_time", "1",
		                                       "token_time", "1", "t_comm",    "0.5",
		                                       "max_batch",  "1", NULL};
		struct config c = serve_config(settings);
		struct serve_request req[2];
		struct serve_run *r;

		unit_set(&c, "comm", cases[i].comm);
		equal_requests(req, 2, 0, 3, 1);
		r = serve(&c, req, 2);
		CU_ASSERT_EQUAL_FATAL(r->nbatch, 2);
		ASSERT_NEAR(units(r, r->batch[0].exit), 13);
		ASSERT_NEAR(units(r, r->batch[1].launch), cases[i].launch);
		ASSERT_NEAR(units(r, op_on(r, 0, 1)->start), cases[i].launch);
		ASSERT_NEAR(units(r, op_on(r, 1, 1)->start), cases[i].stage1);
		ASSERT_NEAR(units(r, r->batch[1].exit), cases[i].exit);
		ASSERT_NEAR(units(r, r->req[1].first_token), cases[i].exit);
		serve_free(r);
	}
}

static void serve_run_a_link_carries_one_message_at_a_time(void)
{
	static const char *const settings[] = {"p", "2",         "step_time", "1", "t_comm",
	                                       "2", "max_batch", "1",         NULL};
	struct config c = serve_config(settings);
	struct serve_request req[2];
	struct serve_run *r;

	/* Two prompts at 0, one per micro-batch, 1 per stage and 2 per hop. The first: [0,1], hop
	 * [1,3], [3,4]. The second leaves stage 0 at 2 [1,2] but the link is busy until 3: hop
	 * [3,5], stage 1 [5,6]. */
	equal_requests(req, 2, 0, 1, 1);
	r = serve(&c, req, 2);
	CU_ASSERT_EQUAL_FATAL(r->result.nmsgs, 2);
	ASSERT_NEAR(units(r, r->result.msgs[1].start), 3);
	ASSERT_NEAR(units(r, r->result.msgs[1].end), 5);
	ASSERT_NEAR(units(r, op_on(r, 1, 1)->start), 5);
	ASSERT_NEAR(units(r, r->req[1].finish), 6);
	serve_free(r);
}

static void serve_run_static_admits_a_late_request_when_its_group_has_finished(void)
{
	static const char *const settings[] = {"p",      "2",        "step_time", "1", "batching",
	                                       "static", "inflight", "1",         NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 1, 3}, {0, 1, 5}, {1, 1, 1}};
	struct serve_run *r = serve(&c, req, 3);
	/*
	 * Each micro-batch takes 2 (1 per stage). R0 and R1 form a group: prefill [0,2], decodes
	 * together [2,4], [4,6] (R0's third token: done), R1 alone [6,8], [8,10] (its fifth).
	 * R2 arrives at 1 but the one group slot is taken until R1 finishes at 10.
	 */
	static const struct want_batch want[] = {
	        {2, 2, 2, 2, 0, 2}, {2, 2, 0, 2, 2, 4},  {2, 2, 0, 2, 4, 6},
	        {1, 1, 0, 1, 6, 8}, {1, 1, 0, 1, 8, 10}, {1, 1, 1, 1, 10, 12},
	};

	assert_batches(r, want, sizeof(want) / sizeof(want[0]));
	ASSERT_NEAR(units(r, r->req[0].finish), 6);
	ASSERT_NEAR(units(r, r->req[1].finish), 10);
	CU_ASSERT_EQUAL(r->req[2].admitted, r->req[1].finish);
	ASSERT_NEAR(units(r, r->req[2].first_token), 12);
	serve_free(r);
}

static void serve_run_static_forms_a_second_group_in_a_free_slot_while_the_first_runs(void)
{
	static const char *const settings[] = {"p",        "2",      "step_time", "1",
	                                       "batching", "static", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 1, 3}, {0.5, 1, 2}, {1, 1, 1}};
	struct serve_run *r = serve(&c, req, 3);
	/*
	 * Two slots (inflight = p = 2), each micro-batch 2 (1 per stage). R0 alone is group 0:
	 * prefill [0,2]. At 1 stage 0 is free: R1 and R2 (both there by then) form group 1 [1,3].
	 * Group 0 decodes at 2 and 4 (R0 done at 6); group 1 at 3 with R1 alone (R2 had its one
	 * token), done at 5.
	 */
	static const struct want_batch want[] = {
	        {1, 1, 1, 1, 0, 2}, {2, 2, 2, 2, 1, 3}, {1, 1, 0, 1, 2, 4},
	        {1, 1, 0, 1, 3, 5}, {1, 1, 0, 1, 4, 6},
	};

	assert_batches(r, want, sizeof(want) / sizeof(want[0]));
	ASSERT_NEAR(units(r, r->req[2].finish), 3);
	ASSERT_NEAR(units(r, r->req[1].finish), 5);
	ASSERT_NEAR(units(r, r->req[0].finish), 6);
	serve_free(r);
}

static void serve_run_continuous_launches_a_waiting_prompt_alone_before_ready_decodes(void)
{
	static const char *const settings[] = {"p", "2", "step_time", "1", "inflight", "1", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 1, 6}, {0, 1, 6}, {3, 4, 1}};
	struct serve_run *r = serve(&c, req, 3);
	/*
	 * Each micro-batch takes 2. R0 and R1 prefill [0,2] and decode [2,4]; R2 arrives at 3.
	 * At 4 both decoders are ready but R2's prompt goes first, alone [4,6]; the decodes resume
	 * at 6 ([6,8] .. [12,14]: tokens 3 to 6).
	 */
	static const struct want_batch want[] = {
	        {2, 2, 2, 2, 0, 2},  {2, 2, 0, 2, 2, 4},   {1, 4, 4, 1, 4, 6},   {2, 2, 0, 2, 6, 8},
	        {2, 2, 0, 2, 8, 10}, {2, 2, 0, 2, 10, 12}, {2, 2, 0, 2, 12, 14},
	};

	assert_batches(r, want, sizeof(want) / sizeof(want[0]));
	ASSERT_NEAR(units(r, r->req[2].admitted), 4);
	ASSERT_NEAR(units(r, r->req[2].first_token), 6);
	ASSERT_NEAR(units(r, r->req[0].finish), 14);
	ASSERT_NEAR(units(r, r->req[1].finish), 14);
	serve_free(r);
}

/* Chunked with a budget of 4 tokens on one stage of step 1: a decoder D at 0 (prompt 1,
 * output 10) and a prompt P of 10 at 0.5 (output 2). */
static struct serve_run *chunked_run(void)
{
	static const char *const settings[] = {
	        "p", "1", "step_time", "1", "batching", "chunked", "chunk_tokens", "4", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 1, 10}, {0.5, 10, 2}};

	return serve(&c, req, 2);
}

static void serve_run_chunked_fills_the_budget_with_decodes_then_prompt_chunks(void)
{
	struct serve_run *r = chunked_run();
	/*
	 * Each micro-batch takes 1, one in flight. D prefills [0,1]; P arrives at 0.5 and waits.
	 * Then D's decode first and P's prompt in chunks of what the budget leaves: 1 + 3 at 1,
	 * 2 and 3 (P at 9 of 10), 1 + 1 at 4 (P's last token makes its first output), at 5 both
	 * decode (P's second and last token), then D alone until its tenth token at 10.
	 */
	static const struct want_batch want[] = {
	        {1, 1, 1, 1, 0, 1}, {2, 4, 3, 1, 1, 2},  {2, 4, 3, 1, 2, 3}, {2, 4, 3, 1, 3, 4},
	        {2, 2, 1, 2, 4, 5}, {2, 2, 0, 2, 5, 6},  {1, 1, 0, 1, 6, 7}, {1, 1, 0, 1, 7, 8},
	        {1, 1, 0, 1, 8, 9}, {1, 1, 0, 1, 9, 10},
	};

	assert_batches(r, want, sizeof(want) / sizeof(want[0]));
	ASSERT_NEAR(units(r, r->req[1].admitted), 1);
	ASSERT_NEAR(units(r, r->req[1].first_token), 5);
	ASSERT_NEAR(units(r, r->req[1].finish), 6);
	ASSERT_NEAR(units(r, r->req[0].finish), 10);
	serve_free(r);
}

static void serve_run_continuous_keeps_max_batch_and_max_tokens_but_runs_a_long_prompt_alone(void)
{
	static const char *const settings[] = {"p", "1",          "step_time", "1", "max_batch",
	                                       "3", "max_tokens", "10",        NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 2, 2}, {0, 2, 2}, {0, 2, 2}, {0, 2, 2}, {0, 20, 2},
	                              {0, 3, 2}, {0, 3, 2}, {0, 3, 2}, {0, 1, 2}};
	struct serve_run *r = serve(&c, req, 9);
	/*
	 * Prompts first, whole, each micro-batch taking 1: 2+2+2 (three sequences, the most), 2
	 * (2 + 20 is over 10), 20 alone (over 10, but nothing else in it), 3+3+3 (three again),
	 * 1. Then the nine decodes, three at a time.
	 */
	static const struct want_batch want[] = {
	        {3, 6, 6, 3, 0, 1}, {1, 2, 2, 1, 1, 2}, {1, 20, 20, 1, 2, 3}, {3, 9, 9, 3, 3, 4},
	        {1, 1, 1, 1, 4, 5}, {3, 3, 0, 3, 5, 6}, {3, 3, 0, 3, 6, 7},   {3, 3, 0, 3, 7, 8},
	};

	assert_batches(r, want, sizeof(want) / sizeof(want[0]));
	serve_free(r);
}

static void serve_run_disaggregated_prefills_apart_sends_kv_then_decodes_on_p_stages(void)
{
	static const char *const settings[] = {"p", "2", "step_time", "1", "t_comm", "0.5", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 4, 3}, {0, 2, 2}, {0, 2, 1}};
	struct serve_run *r;
	struct serve_metrics m;
	/*
	 * Devices: 0 the prefill stage, 1 and 2 the decode pipeline. The three prompts prefill
	 * together on device 0 [0,1]: every first token at 1 (TTFT 1); R2 (output 1) is done.
	 * The KV caches of R0 and R1 go over one link, 0.5 each: [1,1.5], [1.5,2].
	 * R0 decodes: device 1 [1.5,2.5], hop [2.5,3], device 2 [3,4].
	 * R1 (there at 2) waits for device 1 until 2.5: [2.5,3.5], hop [3.5,4], device 2 [4,5].
	 * R0 again at 4: [4,5], hop [5,5.5], [5.5,6.5]: its third token at 6.5.
	 */
	static const double want[3][3][2] = {
	        {{0, 1}},
	        {{1.5, 2.5}, {2.5, 3.5}, {4, 5}},
	        {{3, 4}, {4, 5}, {5.5, 6.5}},
	};
	static const size_t nops[3] = {1, 3, 3};

	unit_set(&c, "batching", "disaggregated");
	unit_set(&c, "prefill_stages", "1");
	r = serve(&c, req, 3);
	CU_ASSERT_EQUAL_FATAL(r->order->p, 3);
	for (int d = 0; d < 3; d++) {
		CU_ASSERT_EQUAL(r->order->dev_start[d + 1] - r->order->dev_start[d],
		                nops[d]);
		for (size_t i = 0; i < nops[d]; i++) {
			ASSERT_NEAR(units(r, op_on(r, d, i)->start), want[d][i][0]);
			ASSERT_NEAR(units(r, op_on(r, d, i)->end), want[d][i][1]);
		}
	}
	CU_ASSERT_EQUAL(r->stages[0], 2);
	CU_ASSERT_EQUAL(r->stages[1], 1);
	CU_ASSERT_EQUAL_FATAL(r->nbatch, 4);
	CU_ASSERT_EQUAL(r->batch[0].pipeline, 1);
	CU_ASSERT_EQUAL(r->batch[0].prefill_tokens, 8);
	CU_ASSERT_EQUAL(r->batch[0].produced, 3);
	for (size_t k = 1; k < 4; k++)
		CU_ASSERT_EQUAL(r->batch[k].pipeline, 0);
	/* a KV cache for each request with more than one output token */
	CU_ASSERT_EQUAL(r->kv_transfers, 2);
	ASSERT_NEAR(units(r, r->kv_transfer_time), 1);
	/* the prefill pipeline holds the prompts 4 + 2 + 2; the decode one 4+3 and 2+2 */
	CU_ASSERT_EQUAL(r->kv_peak[1], 8);
	CU_ASSERT_EQUAL(r->kv_peak[0], 11);
	for (size_t i = 0; i < 3; i++) {
		ASSERT_NEAR(units(r, r->req[i].first_token), 1);
		ASSERT_NEAR(units(r, r->req[i].admitted), 0);
	}
	ASSERT_NEAR(units(r, r->req[0].finish), 6.5);
	ASSERT_NEAR(units(r, r->req[1].finish), 5);
	ASSERT_NEAR(units(r, r->req[2].finish), 1);
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	CU_ASSERT_EQUAL(m.devices, 3);
	ASSERT_NEAR(m.ttft.max, 1);
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_run_admits_a_request_only_when_its_prompt_and_output_fit_the_kv_cache(void)
{
	static const char *const settings[] = {"p",         "1",   "step_time", "1",
	                                       "kv_tokens", "100", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[2];
	struct serve_run *r;
	struct serve_metrics m;

	/* each needs 40 + 20 = 60 of 100: R1 waits until R0 finishes (prefill [0,1], 19 decodes
	 * to 20), then runs [20,40] */
	equal_requests(req, 2, 0, 40, 20);
	r = serve(&c, req, 2);
	ASSERT_NEAR(units(r, r->req[0].finish), 20);
	CU_ASSERT_EQUAL(r->req[1].admitted, r->req[0].finish);
	ASSERT_NEAR(units(r, r->req[1].finish), 40);
	CU_ASSERT_FALSE(r->req[0].waited_for_kv);
	CU_ASSERT_TRUE(r->req[1].waited_for_kv);
	CU_ASSERT_EQUAL(r->kv_capacity[0], 100);
	CU_ASSERT_EQUAL(r->kv_peak[0], 60);
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	CU_ASSERT_EQUAL(m.kv_waits, 1);
	/* R1 queued [0,20]: waits 0 and 20 */
	ASSERT_NEAR(m.queue_wait.max, 20);
	/* the queue: 1 waiting from 0 (R0 admitted at once), 0 from 20 */
	CU_ASSERT_EQUAL_FATAL(r->nqueue, 2);
	CU_ASSERT_EQUAL(r->queue[0].waiting, 1);
	ASSERT_NEAR(units(r, r->queue[1].at), 20);
	CU_ASSERT_EQUAL(r->queue[1].waiting, 0);
	/*
	 * Windows of a tenth of 40: 4. Micro-batches launch at 0, 1, ..., 39 (4 per window), each
	 * producing its token 1 later: 3 in [0,4), 4 in each next, and 4 + the last one at the end
	 * (40) in [36,40]. One request waits through [0,20), none after.
	 */
	CU_ASSERT_EQUAL_FATAL(m.nwindows, 10);
	for (size_t k = 0; k < 10; k++) {
		ASSERT_NEAR(m.windows[k].start, 4.0 * k);
		CU_ASSERT_EQUAL(m.windows[k].batches, 4);
		CU_ASSERT_EQUAL(m.windows[k].output_tokens, k == 0 ? 3 : k == 9 ? 5 : 4);
		ASSERT_NEAR(m.windows[k].queue_mean, k < 5 ? 1 : 0);
		CU_ASSERT_EQUAL(m.windows[k].queue_max, k < 5 ? 1 : 0);
	}
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_run_rejects_a_request_larger_than_the_kv_cache_naming_it(void)
{
	static const char *const settings[] = {"p",         "1",   "step_time", "1",
	                                       "kv_tokens", "100", NULL};
	static const char want[] = "request 2 needs 110 KV-cache tokens (its prompt and output), "
	                           "more than the pipeline's cache holds: 100 (--kv-tokens, or GPU "
	                           "memory)";
	struct config c = serve_config(settings);
	struct serve_request req[] = {{0, 40, 20}, {0, 90, 20}};
	struct serve_workload w = {req, 2, 0};
	struct pp_error err = {0};

	/* the second needs 90 + 20 = 110 of 100 */
	CU_ASSERT_PTR_NULL(serve_run(&c, &w, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
}

static void serve_run_rejects_no_requests_and_settings_that_price_nothing(void)
{
	static const char *const free_settings[] = {"step_time", "0", NULL};
	static const char *const settings[] = {"p", "1", NULL};
	struct config c = serve_config(settings), free_c = serve_config(free_settings);
	struct serve_request req[] = {{0, 1, 1}};
	struct serve_workload none = {req, 0, 0}, one = {req, 1, 0};
	struct pp_error err = {0};

	CU_ASSERT_PTR_NULL(serve_run(&c, &none, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "no requests to serve");
	memset(&err, 0, sizeof(err));
	/* step, token and attention times all 0: the validation names --step-time */
	CU_ASSERT_PTR_NULL(serve_run(&free_c, &one, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--step-time"));
}

static void serve_run_closed_loop_sends_the_next_request_when_one_finishes(void)
{
	static const char *const settings[] = {"p", "1", "step_time", "1", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[] = {{-1, 1, 3}, {-1, 1, 1}, {-1, 1, 1}, {-1, 1, 1}};
	struct serve_run *r = serve_loop(&c, req, 4, 2);

	/*
	 * Two clients send R0 and R1 at 0; they prefill together [0,1]. R1 (one token) finishes
	 * first, at 1: its client sends R2 at 1, prefilled [1,2] before R0's decodes; R2 finishes
	 * at 2 and R3 is sent then, [2,3]. R0 decodes [3,4], [4,5].
	 */
	ASSERT_NEAR(units(r, r->req[0].arrival), 0);
	ASSERT_NEAR(units(r, r->req[1].arrival), 0);
	ASSERT_NEAR(units(r, r->req[1].finish), 1);
	CU_ASSERT_EQUAL(r->req[2].arrival, r->req[1].finish);
	CU_ASSERT_EQUAL(r->req[3].arrival, r->req[2].finish);
	ASSERT_NEAR(units(r, r->req[3].arrival), 2);
	ASSERT_NEAR(units(r, r->req[3].finish), 3);
	ASSERT_NEAR(units(r, r->req[0].finish), 5);
	ASSERT_NEAR(units(r, r->end), 5);
	serve_free(r);
}

/*
 * Llama 3 8B (config.json: 32 layers, hidden 4096, MLP 14336 gated, 32 heads, 8 KV heads,
 * vocabulary 128256, untied) in bf16 on an H100 SXM (989 TFLOP/s dense BF16 at the preset's
 * GEMM efficiency 0.80, serving's share of peak by default; 3350 GB/s).
 */
#define L3_LAYERS        32.0
#define L3_HIDDEN        4096.0
#define L3_FFN           14336.0
#define L3_HEADS         32.0
#define L3_KV            8.0
#define L3_VOCAB         128256.0
#define H100_FLOPS       (989e12 * 0.80 * 0.75) /* a large GEMM's share, 0.75 sustained */
#define H100_BYTES_PER_S 3350e9

/* Linear parameters of one layer: Q and O h x h, K and V h x (kv heads x head size), gated
 * MLP 3 x h x ffn. */
static double l3_layer_params(void)
{
	double h = L3_HIDDEN, kv = L3_KV * (L3_HIDDEN / L3_HEADS);

	return 2 * h * h + 2 * h * kv + 3 * h * L3_FFN;
}

/* Bytes of one token's K and V over `layers` layers. */
static double l3_kv_bytes(double layers)
{
	return layers * 2 * L3_KV * (L3_HIDDEN / L3_HEADS) * 2;
}

/*
 * Milliseconds of a micro-batch of one sequence of n new tokens after `context` cached ones on
 * a stage of `layers` layers (with the LM head when head): the larger of compute (2 x params
 * per token per layer, 4 x hidden per query-key pair: n x (context + (n+1)/2) pairs causally;
 * the head 2 x hidden x vocab for the one token it produces) and memory (the layers' weights,
 * the head's, and the K/V of context + n tokens; the input embedding is a lookup of n rows, not
 * read whole). *memory_bound tells which.
 */
static double l3_stage_ms(double layers, bool head, double n, double context, bool *memory_bound)
{
	double h = L3_HIDDEN, p = l3_layer_params(), pairs = n * (context + (n + 1) / 2);
	double flops = layers * (2 * p * n + 4 * h * pairs) + (head ? 2 * h * L3_VOCAB : 0);
	double bytes =
	        (layers * p + (head ? h * L3_VOCAB : 0)) * 2 + l3_kv_bytes(layers) * (context + n);
	double compute = flops / H100_FLOPS * 1e3, memory = bytes / H100_BYTES_PER_S * 1e3;

	*memory_bound = memory > compute;
	return *memory_bound ? memory : compute;
}

static void serve_run_model_prices_a_decode_by_memory_and_a_long_prefill_by_compute(void)
{
	/* one request, prompt 4096 and output 2: op 0 on each device is the prefill (4096 new
	 * tokens, no context), op 1 the decode (1 new token after 4096) */
	static const char *const stages[] = {"1", "2"};

	for (int p = 1; p <= 2; p++) {
		struct config c;
		struct serve_request req[] = {{0, 4096, 2}};
		struct serve_run *r;

		config_init(&c);
		unit_set(&c, "model", "llama3-8b");
		unit_set(&c, "gpu", "h100-sxm");
		unit_set(&c, "p", stages[p - 1]);
		r = serve(&c, req, 1);
		CU_ASSERT_EQUAL(r->tick, PP_TICK_BASE);
		for (int d = 0; d < p; d++) {
			double layers = L3_LAYERS / p;
			bool head = d == p - 1, prefill_memory, decode_memory;
			double prefill = l3_stage_ms(layers, head, 4096, 0, &prefill_memory);
			double decode = l3_stage_ms(layers, head, 1, 4096, &decode_memory);
			const struct op_time *a = op_on(r, d, 0), *b = op_on(r, d, 1);

			CU_ASSERT_FALSE(prefill_memory);
			CU_ASSERT_TRUE(decode_memory);
			/* a stage time is rounded to the nearest tick (1 ns): half a tick off at
			 * most, about 1e-7 of these times */
			CU_ASSERT_DOUBLE_EQUAL((double)(a->end - a->start), prefill * PP_TICK_BASE,
			                       0.5 + 1e-6);
			CU_ASSERT_DOUBLE_EQUAL((double)(b->end - b->start), decode * PP_TICK_BASE,
			                       0.5 + 1e-6);
			if (fabs((double)(b->end - b->start) - decode * PP_TICK_BASE) >
			            0.5 + 1e-6 ||
			    fabs((double)(a->end - a->start) - prefill * PP_TICK_BASE) > 0.5 + 1e-6)
				fprintf(stderr,
				        "\n  p=%d device %d: prefill %.9f want %.9f, decode %.9f "
				        "want %.9f ms\n",
				        p, d, units(r, a->end - a->start), prefill,
				        units(r, b->end - b->start), decode);
		}
		serve_free(r);
	}
}

static void serve_run_model_sizes_each_hop_by_the_tokens_of_its_micro_batch(void)
{
	/*
	 * One request, prompt 100 and output 3, on four stages of Llama 3 8B (hidden 4096, bf16):
	 * a prefill of 100 tokens, then two decodes of 1, each crossing 3 hops. A hop carries
	 * tokens x hidden x 2 bytes / tp: at tp 1, (100 + 1 + 1) x 3 hops x 4096 x 2 = 2506752
	 * bytes in 9 messages; at tp 2 half, 1253376. The 4 x tp GPUs share a node (8), so a
	 * hop crosses NVLink 4 (450 GB/s, 3 us; serving has no training framework's message
	 * overhead): the prefill's takes 0.003 + 100 x 8192 / 450e6 =
	 * 0.0048204 ms at tp 1, 0.003 + 100 x 4096 / 450e6 = 0.0039102 at tp 2; a decode's
	 * 0.003 + 8192 / 450e6 = 0.0031820 and 0.003 + 4096 / 450e6 = 0.0030910.
	 */
	static const struct {
		const char *tp;
		uint64_t bytes;
		double prefill_hop, decode_hop;
	} cases[] = {
	        {"1", 2506752, 0.003 + 100 * 8192 / 450e6, 0.003 + 8192 / 450e6},
	        {"2", 1253376, 0.003 + 100 * 4096 / 450e6, 0.003 + 4096 / 450e6},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct serve_request req[] = {{0, 100, 3}};
		struct serve_run *r;

		config_init(&c);
		unit_set(&c, "model", "llama3-8b");
		unit_set(&c, "gpu", "h100-sxm");
		unit_set(&c, "p", "4");
		unit_set(&c, "tp", cases[i].tp);
		r = serve(&c, req, 1);
		CU_ASSERT_EQUAL_FATAL(r->nbatch, 3);
		CU_ASSERT_EQUAL(r->batch[0].tokens, 100);
		CU_ASSERT_EQUAL(r->result.messages, 9);
		CU_ASSERT_EQUAL(r->result.bytes, cases[i].bytes);
		CU_ASSERT_EQUAL_FATAL(r->result.nmsgs, 9);
		/* a hop's time rounds to the nearest tick (1e-6 ms) */
		for (size_t k = 0; k < 9; k++) {
			const struct msg_record *g = &r->result.msgs[k];
			bool prefill = r->order->ops[g->from].mb == 0;

			CU_ASSERT_DOUBLE_EQUAL(units(r, g->end - g->start),
			                       prefill ? cases[i].prefill_hop : cases[i].decode_hop,
			                       0.5e-6 + 1e-12);
		}
		serve_free(r);
	}
}

static void serve_run_disaggregated_sends_the_kv_cache_over_the_kv_link(void)
{
	/*
	 * Llama 3 8B on H100s, disaggregated: one request, prompt 1000 and output 2, prefilled on
	 * the prefill pipeline, then its KV cache goes to the one decode stage. A token's K and V
	 * over 32 layers: 2 x 32 x (8 KV heads x 128) x 2 bytes = 131072 bytes; with two prefill
	 * stages each sends its 16 layers' 65536 a token at once. The transfer takes latency +
	 * 1000 x bytes / bandwidth:
	 *   nvlink4 (450 GB/s, 3 us):  0.003 + 131072000 / 450e6 = 0.2942711 ms
	 *   pcie4 (32 GB/s, 10 us):    0.010 + 131072000 / 32e6  = 4.106 ms
	 *   pcie4, 2 prefill stages:   0.010 + 65536000 / 32e6   = 2.058 ms
	 *   unset: the GPU's link between nodes, ib-ndr (50 GB/s, 5 us): 0.005 + 131072000 / 50e6
	 *   = 2.62644 ms
	 * The decode launches when the cache has arrived: that long after the prefill's exit.
	 */
	static const struct {
		const char *link, *prefill_stages;
		double ms;
	} cases[] = {
	        {"nvlink4", "1", 0.003 + 131072000 / 450e6},
	        {"pcie4", "1", 0.010 + 131072000 / 32e6},
	        {"pcie4", "2", 0.010 + 65536000 / 32e6},
	        {NULL, "1", 0.005 + 131072000 / 50e6},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct serve_request req[] = {{0, 1000, 2}};
		struct serve_run *r;

		config_init(&c);
		unit_set(&c, "model", "llama3-8b");
		unit_set(&c, "gpu", "h100-sxm");
		unit_set(&c, "p", "1");
		unit_set(&c, "batching", "disaggregated");
		unit_set(&c, "prefill_stages", cases[i].prefill_stages);
		if (cases[i].link != NULL)
			unit_set(&c, "kv_link", cases[i].link);
		r = serve(&c, req, 1);
		CU_ASSERT_EQUAL(r->kv_transfers, 1);
		/* rounded to the nearest tick (1e-6 ms) */
		CU_ASSERT_DOUBLE_EQUAL(units(r, r->kv_transfer_time), cases[i].ms, 0.5e-6 + 1e-12);
		CU_ASSERT_EQUAL_FATAL(r->nbatch, 2);
		CU_ASSERT_EQUAL(r->batch[0].pipeline, 1);
		CU_ASSERT_EQUAL(r->batch[1].pipeline, 0);
		CU_ASSERT_EQUAL(r->batch[1].launch - r->batch[0].exit, r->kv_transfer_time);
		serve_free(r);
	}
}

/* Ten requests at 2 of prompt 3 on one stage of step 2, one sequence per micro-batch; R0
 * wants 2 output tokens, R9 3, the others 1. */
static struct serve_run *ten_requests(void)
{
	static const char *const settings[] = {"p", "1", "step_time", "2", "max_batch", "1", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[10];

	equal_requests(req, 10, 2, 3, 1);
	req[0].output = 2;
	req[9].output = 3;
	return serve(&c, req, 10);
}

static void serve_metrics_latencies_are_nearest_rank_percentiles_of_the_requests(void)
{
	struct serve_run *r = ten_requests();
	struct serve_metrics m;

	/*
	 * Prompts first, one at a time: Ri prefills [2 + 2i, 4 + 2i], so TTFT 2 + 2i (2..20) and
	 * queue wait 2i (0..18). Then R0 decodes [22,24] (end to end 22) and R9 [24,26], [26,28]
	 * (26); R1..R8 end at their first token (4..18).
	 * Nearest rank of 10: p50 the 5th smallest, p90 the 9th, p99 the 10th.
	 */
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	CU_ASSERT_EQUAL(m.ttft.n, 10);
	ASSERT_NEAR(m.ttft.p50, 10);
	ASSERT_NEAR(m.ttft.p90, 18);
	ASSERT_NEAR(m.ttft.p99, 20);
	ASSERT_NEAR(m.ttft.max, 20);
	ASSERT_NEAR(m.ttft.mean, 11);
	CU_ASSERT_EQUAL(m.queue_wait.n, 10);
	ASSERT_NEAR(m.queue_wait.p50, 8);
	ASSERT_NEAR(m.queue_wait.p90, 16);
	ASSERT_NEAR(m.queue_wait.p99, 18);
	ASSERT_NEAR(m.queue_wait.mean, 9);
	/* end to end, sorted: 4 6 8 10 12 14 16 18 22 26 */
	CU_ASSERT_EQUAL(m.e2e.n, 10);
	ASSERT_NEAR(m.e2e.p50, 12);
	ASSERT_NEAR(m.e2e.p90, 22);
	ASSERT_NEAR(m.e2e.p99, 26);
	ASSERT_NEAR(m.e2e.mean, 13.6);
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_metrics_percentiles_round_the_rank_up_to_a_request(void)
{
	/* n one-token requests at 0, one at a time, 1 each: TTFTs 1, 2, ..., n, so the
	 * nearest-rank percentile q is the value ceil(q n / 100) itself */
	static const struct {
		size_t n;
		double p50, p90, p99;
	} cases[] = {
	        {1, 1, 1, 1},     /* ranks 0.5, 0.9, 0.99 up to 1 */
	        {3, 2, 3, 3},     /* 1.5, 2.7, 2.97 */
	        {7, 4, 7, 7},     /* 3.5, 6.3 (not 6: up, never to the nearest), 6.93 */
	        {20, 10, 18, 20}, /* 10, 18, 19.8 */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static const char *const settings[] = {"p",         "1", "step_time", "1",
		                                       "max_batch", "1", NULL};
		struct config c = serve_config(settings);
		struct serve_request req[20];
		struct serve_run *r;
		struct serve_metrics m;

		equal_requests(req, cases[i].n, 0, 1, 1);
		r = serve(&c, req, cases[i].n);
		CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
		CU_ASSERT_EQUAL(m.ttft.n, cases[i].n);
		ASSERT_NEAR(m.ttft.p50, cases[i].p50);
		ASSERT_NEAR(m.ttft.p90, cases[i].p90);
		ASSERT_NEAR(m.ttft.p99, cases[i].p99);
		ASSERT_NEAR(m.ttft.max, (double)cases[i].n);
		/* no request has a second token */
		CU_ASSERT_EQUAL(m.tpot.n, 0);
		ASSERT_NEAR(m.tpot.p99, 0);
		serve_metrics_release(&m);
		serve_free(r);
	}
}

static void serve_metrics_tpot_counts_only_requests_with_more_than_one_output_token(void)
{
	struct serve_run *r = ten_requests();
	struct serve_metrics m;

	/* R0: first token 4, last 24, one more token: 20; R9: 22 to 28 over two: 3. Nearest rank
	 * of 2: p50 the 1st (3), p90 the 2nd (20) */
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	CU_ASSERT_EQUAL(m.tpot.n, 2);
	ASSERT_NEAR(m.tpot.mean, 11.5);
	ASSERT_NEAR(m.tpot.p50, 3);
	ASSERT_NEAR(m.tpot.p90, 20);
	ASSERT_NEAR(m.tpot.max, 20);
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_metrics_throughput_is_tokens_from_the_first_arrival_to_the_last_token(void)
{
	struct serve_run *r = ten_requests();
	struct serve_metrics m;

	/* first arrival 2, last token 28: 26 units for 2 + 8 + 3 = 13 output tokens, 30 prompt
	 * tokens and 10 requests, per 1000 units; the stage is busy from the first launch at 2 */
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	ASSERT_NEAR(m.makespan, 26);
	ASSERT_NEAR(m.span, 26);
	ASSERT_NEAR(m.output_tokens_per_s, 13.0 / 26 * 1000);
	ASSERT_NEAR(m.prompt_tokens_per_s, 30.0 / 26 * 1000);
	ASSERT_NEAR(m.requests_per_s, 10.0 / 26 * 1000);
	CU_ASSERT_EQUAL(r->output_tokens, 13);
	CU_ASSERT_EQUAL(r->prompt_tokens, 30);
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_metrics_counts_prefill_only_decode_only_and_mixed_micro_batches(void)
{
	struct serve_run *r = chunked_run();
	struct serve_metrics m;

	/* the chunked run's micro-batches (serve_run_chunked_fills_...): D's prefill; 1+3 three
	 * times and 1+1 mixed; five of decodes only. Sequences 1+2x5+1x4 = 15, tokens
	 * 1+4+4+4+2+2+1+1+1+1 = 21 over 10 */
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	CU_ASSERT_EQUAL(m.batches, 10);
	CU_ASSERT_EQUAL(m.prefill_only, 1);
	CU_ASSERT_EQUAL(m.mixed, 4);
	CU_ASSERT_EQUAL(m.decode_only, 5);
	ASSERT_NEAR(m.mean_seqs, 1.5);
	ASSERT_NEAR(m.mean_tokens, 2.1);
	serve_metrics_release(&m);
	serve_free(r);
}

/*
 * n one-token requests at 0, one at a time on one stage whose step is also the window (a length
 * no double holds exactly): Ri runs [i w, (i+1) w], the run ends at n w after n windows.
 */
static const struct {
	const char *w;
	size_t n;
} decimal_windows[] = {
        {"0.3", 7}, /* 2.1 / 0.3 is 7.000000000000001 in doubles */
        {"0.1", 8}, /* 0.3 / 0.1, 0.6 / 0.1 and 0.7 / 0.1 fall just below 3, 6 and 7 */
};

static struct serve_run *decimal_windows_run(size_t i)
{
	static const char *const settings[] = {"p", "1", "max_batch", "1", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[8];

	unit_set(&c, "step_time", decimal_windows[i].w);
	unit_set(&c, "window", decimal_windows[i].w);
	equal_requests(req, decimal_windows[i].n, 0, 1, 1);
	return serve(&c, req, decimal_windows[i].n);
}

static void serve_metrics_windows_end_with_the_run_and_count_what_starts_at_their_start(void)
{
	for (size_t i = 0; i < sizeof(decimal_windows) / sizeof(decimal_windows[0]); i++) {
		struct serve_run *r = decimal_windows_run(i);
		size_t n = decimal_windows[i].n;
		struct serve_metrics m;

		/* n windows, none empty; window k launches Rk at its start and gets the token made
		 * there (none in the first), the last also the one at the end */
		CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
		CU_ASSERT_EQUAL(m.nwindows, n);
		for (size_t k = 0; k < m.nwindows; k++) {
			const struct serve_window *w = &m.windows[k];
			uint64_t tokens = k == 0 ? 0 : k + 1 == n ? 2 : 1;
			bool ok = w->end > w->start && isfinite(w->bubble_ratio) &&
			          isfinite(w->queue_mean) && isfinite(w->utilization[0]) &&
			          w->batches == 1 && w->output_tokens == tokens;

			if (!ok)
				fprintf(stderr,
				        "\n  window %s x %zu [%.17g, %.17g): bubble %g, %llu "
				        "micro-batches, "
				        "%llu tokens\n",
				        decimal_windows[i].w, k, w->start, w->end, w->bubble_ratio,
				        (unsigned long long)w->batches,
				        (unsigned long long)w->output_tokens);
			CU_ASSERT_TRUE(ok);
		}
		serve_metrics_release(&m);
		serve_free(r);
	}
}

static void serve_metrics_window_queue_max_counts_only_requests_waiting_inside_it(void)
{
	for (size_t i = 0; i < sizeof(decimal_windows) / sizeof(decimal_windows[0]); i++) {
		struct serve_run *r = decimal_windows_run(i);
		size_t n = decimal_windows[i].n;
		struct serve_metrics m;

		/* R0 is admitted at 0, Rk at the start of window k: n - 1 - k wait all through it
		 */
		CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
		CU_ASSERT_FATAL(m.nwindows >= n);
		for (size_t k = 0; k < n; k++) {
			if (m.windows[k].queue_max != n - 1 - k)
				fprintf(stderr,
				        "\n  window %s x %zu [%.17g, %.17g): queue max %u, want "
				        "%zu\n",
				        decimal_windows[i].w, k, m.windows[k].start,
				        m.windows[k].end, m.windows[k].queue_max, n - 1 - k);
			CU_ASSERT_EQUAL(m.windows[k].queue_max, n - 1 - k);
			ASSERT_NEAR(m.windows[k].queue_mean, (double)(n - 1 - k));
		}
		serve_metrics_release(&m);
		serve_free(r);
	}
}

/* Asserts that the n windows of m tile [start, end] (in units) with no empty window. */
static void assert_windows_tile(const struct serve_metrics *m, size_t n, double start, double end)
{
	CU_ASSERT_EQUAL_FATAL(m->nwindows, n);
	ASSERT_NEAR(m->windows[0].start, start);
	ASSERT_NEAR(m->windows[n - 1].end, end);
	for (size_t k = 0; k < n; k++) {
		if (!(m->windows[k].end > m->windows[k].start))
			fprintf(stderr, "\n  window %zu of %zu: [%.17g, %.17g]\n", k, n,
			        m->windows[k].start, m->windows[k].end);
		CU_ASSERT_TRUE(m->windows[k].end > m->windows[k].start);
		if (k + 1 < n)
			CU_ASSERT_EQUAL(m->windows[k].end, m->windows[k + 1].start);
	}
}

static void serve_metrics_default_windows_are_ten_tenths_of_the_span_rounded_up(void)
{
	static const char *const settings[] = {"p", "1", "step_time", "1.000003", NULL};
	struct config c = serve_config(settings);
	struct serve_request req[1];
	struct serve_run *r;
	struct serve_metrics m;

	/*
	 * One request at 0, prompt 1, output 1: one micro-batch [0, 1.000003] on the one stage, a
	 * span of 1000003 ticks (1e6 a unit). A tenth is 100000.3 ticks: rounded down (100000)
	 * ten windows end at 1.0 and an eleventh of 3 ticks is left; rounded up (100001) ten
	 * windows of 0.100001 cover it, the last [0.900009, 1.000003]. The stage works through
	 * every window: no bubble in any.
	 */
	equal_requests(req, 1, 0, 1, 1);
	r = serve(&c, req, 1);
	CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
	ASSERT_NEAR(m.window, 0.100001);
	assert_windows_tile(&m, 10, 0, 1.000003);
	ASSERT_NEAR(m.windows[9].start, 0.900009);
	for (size_t k = 0; k < m.nwindows; k++)
		ASSERT_NEAR(m.windows[k].bubble_ratio, 0);
	serve_metrics_release(&m);
	serve_free(r);
}

static void serve_metrics_explicit_windows_tile_the_run_with_no_empty_window(void)
{
	/*
	 * The same run (span [0, 1.000003]) with --window w: ceil(1.000003 / w) windows, the last
	 * ending with the run: 0.5 -> 3, the last [1.0, 1.000003]; 0.3 -> 4, the last
	 * [0.9, 1.000003]; 1.000003 (the span exactly) -> 1; 5 (longer than the run) -> 1, ending
	 * at 1.000003.
	 */
	static const struct {
		const char *w;
		size_t n;
		double last_start;
	} cases[] = {{"0.5", 3, 1.0}, {"0.3", 4, 0.9}, {"1.000003", 1, 0}, {"5", 1, 0}};
	static const char *const settings[] = {"p", "1", "step_time", "1.000003", NULL};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c = serve_config(settings);
		struct serve_request req[1];
		struct serve_run *r;
		struct serve_metrics m;

		unit_set(&c, "window", cases[i].w);
		equal_requests(req, 1, 0, 1, 1);
		r = serve(&c, req, 1);
		CU_ASSERT_EQUAL_FATAL(serve_metrics_init(&m, r, NULL), 0);
		assert_windows_tile(&m, cases[i].n, 0, 1.000003);
		ASSERT_NEAR(m.windows[cases[i].n - 1].start, cases[i].last_start);
		serve_metrics_release(&m);
		serve_free(r);
	}
}

/* True when runs a and b launched the same micro-batches and served the requests alike. */
static bool same_runs(const struct serve_run *a, const struct serve_run *b)
{
	if (a->nbatch != b->nbatch || a->nreq != b->nreq ||
	    a->order->nops != b->order->nops)
		return false;
	for (size_t k = 0; k < a->nbatch; k++) {
		const struct serve_batch *x = &a->batch[k], *y = &b->batch[k];

		if (x->pipeline != y->pipeline || x->seqs != y->seqs || x->tokens != y->tokens ||
		    x->prefill_tokens != y->prefill_tokens || x->produced != y->produced ||
		    x->launch != y->launch || x->exit != y->exit)
			return false;
	}
	for (size_t i = 0; i < a->nreq; i++) {
		const struct serve_request_result *x = &a->req[i], *y = &b->req[i];

		if (x->arrival != y->arrival || x->admitted != y->admitted ||
		    x->first_token != y->first_token || x->finish != y->finish ||
		    x->waited_for_kv != y->waited_for_kv)
			return false;
	}
	for (size_t i = 0; i < a->order->nops; i++)
		if (a->result.times[i].start != b->result.times[i].start ||
		    a->result.times[i].end != b->result.times[i].end)
			return false;
	return true;
}

static void serve_run_gives_identical_results_for_the_same_config_and_workload(void)
{
	/* a seeded chunked run with every explicit cost, hops and a KV limit */
	static const char *const settings[] = {
	        "p",         "3",    "step_time",    "1",    "token_time", "0.05",
	        "attn_time", "0.01", "t_comm",       "0.25", "batching",   "chunked",
	        "kv_tokens", "600",  "chunk_tokens", "48",   "seed",       "5",
	        "rate",      "200",  "num_requests", "300",  NULL};
	struct config c = serve_config(settings);
	struct serve_workload w;
	struct pp_error err = {0};
	struct serve_run *a, *b;

	unit_set(&c, "prompt", "uniform:1:100");
	unit_set(&c, "output", "uniform:1:40");
	CU_ASSERT_EQUAL_FATAL(serve_workload_generate(&c, &w, &err), 0);
	a = serve_run(&c, &w, &err);
	b = serve_run(&c, &w, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_TRUE(a->nbatch > 300);
	CU_ASSERT_TRUE(same_runs(a, b));
	serve_free(a);
	serve_free(b);
	serve_workload_free(&w);
	serve_free(NULL);
}

static void serve_run_without_messages_counts_them_alike_and_keeps_none(void)
{
	/* disaggregated, so that both pipelines send: a prefill pipeline of 2 stages, a decode
	 * pipeline of 3 */
	struct serve_request req[] = {{0, 300, 4}, {1, 40, 9}, {2, 700, 2}, {3, 5, 6}};
	struct serve_workload w = {req, 4, 0};
	struct config c;
	struct pp_error err = {0};
	struct serve_run *a, *b;

	config_init(&c);
	unit_set(&c, "batching", "disaggregated");
	unit_set(&c, "p", "3");
	unit_set(&c, "prefill_stages", "2");
	a = serve_run_flags(&c, &w, SERVE_RECORD_MESSAGES, 0, &err);
	b = serve_run_flags(&c, &w, 0, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_TRUE(a->result.nmsgs > 0);
	CU_ASSERT_EQUAL(b->result.nmsgs, 0);
	CU_ASSERT_EQUAL(a->result.messages, a->result.nmsgs);
	CU_ASSERT_EQUAL(b->result.messages, a->result.messages);
	CU_ASSERT_EQUAL(b->result.bytes, a->result.bytes);
	CU_ASSERT_EQUAL(b->result.msg_time, a->result.msg_time);
	CU_ASSERT_EQUAL_FATAL(b->result.nchannels, a->result.nchannels);
	for (int ch = 0; ch < a->result.nchannels; ch++) {
		CU_ASSERT_EQUAL(b->result.channels[ch].src, a->result.channels[ch].src);
		CU_ASSERT_EQUAL(b->result.channels[ch].messages, a->result.channels[ch].messages);
		CU_ASSERT_EQUAL(b->result.channels[ch].busy, a->result.channels[ch].busy);
	}
	CU_ASSERT_EQUAL_FATAL(b->order->nops, a->order->nops);
	for (size_t i = 0; i < a->order->nops; i++) {
		CU_ASSERT_EQUAL(b->result.times[i].start, a->result.times[i].start);
		CU_ASSERT_EQUAL(b->order->ops[i].mb, a->order->ops[i].mb);
	}
	/* each message of a goes from an op of its sender to the next stage's op of its batch */
	for (size_t k = 0; k < a->result.nmsgs; k++) {
		const struct msg_record *g = &a->result.msgs[k];

		CU_ASSERT_EQUAL(a->order->ops[g->from].mb, a->order->ops[g->to].mb);
		CU_ASSERT_EQUAL(a->order->ops[g->from].stage + 1, a->order->ops[g->to].stage);
		CU_ASSERT_TRUE(g->start >= a->result.times[g->from].end);
	}
	serve_free(a);
	serve_free(b);
}

static const struct unit_test tests[] = {
        UNIT_TEST(serve_run_without_messages_counts_them_alike_and_keeps_none),
        UNIT_TEST(serve_run_steady_decode_with_p_in_flight_leaves_no_bubble_in_steady_windows),
        UNIT_TEST(serve_run_steady_decode_with_one_in_flight_idles_p_minus_1_of_p_stages),
        UNIT_TEST(serve_drawing_shows_the_run_s_own_order_and_times),
        UNIT_TEST(serve_run_a_long_prompt_among_decodes_opens_bubbles_and_holds_a_decode_back),
        UNIT_TEST(serve_run_a_long_prompt_gets_its_first_token_when_its_prefill_leaves_stage_1),
        UNIT_TEST(serve_run_prices_step_plus_tokens_per_stage_and_t_comm_per_hop),
        UNIT_TEST(serve_run_prices_attention_as_attn_time_per_token_per_1000_of_context),
        UNIT_TEST(serve_run_blocking_comm_holds_the_sending_stage_until_its_message_is_sent),
        UNIT_TEST(serve_run_a_link_carries_one_message_at_a_time),
        UNIT_TEST(serve_run_static_admits_a_late_request_when_its_group_has_finished),
        UNIT_TEST(serve_run_static_forms_a_second_group_in_a_free_slot_while_the_first_runs),
        UNIT_TEST(serve_run_continuous_launches_a_waiting_prompt_alone_before_ready_decodes),
        UNIT_TEST(serve_run_chunked_fills_the_budget_with_decodes_then_prompt_chunks),
        UNIT_TEST(serve_run_continuous_keeps_max_batch_and_max_tokens_but_runs_a_long_prompt_alone),
        UNIT_TEST(serve_run_disaggregated_prefills_apart_sends_kv_then_decodes_on_p_stages),
        UNIT_TEST(serve_run_admits_a_request_only_when_its_prompt_and_output_fit_the_kv_cache),
        UNIT_TEST(serve_run_rejects_a_request_larger_than_the_kv_cache_naming_it),
        UNIT_TEST(serve_run_rejects_no_requests_and_settings_that_price_nothing),
        UNIT_TEST(serve_run_closed_loop_sends_the_next_request_when_one_finishes),
        UNIT_TEST(serve_run_model_prices_a_decode_by_memory_and_a_long_prefill_by_compute),
        UNIT_TEST(serve_run_model_sizes_each_hop_by_the_tokens_of_its_micro_batch),
        UNIT_TEST(serve_run_disaggregated_sends_the_kv_cache_over_the_kv_link),
        UNIT_TEST(serve_metrics_latencies_are_nearest_rank_percentiles_of_the_requests),
        UNIT_TEST(serve_metrics_percentiles_round_the_rank_up_to_a_request),
        UNIT_TEST(serve_metrics_tpot_counts_only_requests_with_more_than_one_output_token),
        UNIT_TEST(serve_metrics_throughput_is_tokens_from_the_first_arrival_to_the_last_token),
        UNIT_TEST(serve_metrics_counts_prefill_only_decode_only_and_mixed_micro_batches),
        UNIT_TEST(serve_metrics_windows_end_with_the_run_and_count_what_starts_at_their_start),
        UNIT_TEST(serve_metrics_window_queue_max_counts_only_requests_waiting_inside_it),
        UNIT_TEST(serve_metrics_default_windows_are_ten_tenths_of_the_span_rounded_up),
        UNIT_TEST(serve_metrics_explicit_windows_tile_the_run_with_no_empty_window),
        UNIT_TEST(serve_run_gives_identical_results_for_the_same_config_and_workload),
        {NULL, NULL},
};

const struct unit_suite suite_serve = {"serve", tests};
