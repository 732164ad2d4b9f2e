/*
 * Unit tests of cost: explicit per-stage ticks, activation amounts and message prices, and the
 * costs derived from a model. The model tests compute every expected figure here from the
 * formulas of docs/cost-model.md (costs, memory) and the models' public configs, never from the library.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost/cost_internal.h"
#include "ppsim/cost.h"
#include "ppsim/sched.h"
#include "unit.h"

static void cost_explicit_prices_each_stage_in_ticks_of_one_unit(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.p = 3;
	c.t_f = 1.5;
	c.t_b = 2;
	c.t_w = 0.25;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL(k->S, 3);
	CU_ASSERT_EQUAL(k->tick, PP_TICK_BASE);
	CU_ASSERT_STRING_EQUAL(k->time_unit, "t");
	for (int s = 0; s < 3; s++) {
		CU_ASSERT_EQUAL(k->t_f[s], 1500000);
		CU_ASSERT_EQUAL(k->t_b[s], 2000000);
		CU_ASSERT_EQUAL(k->t_w[s], 250000);
	}
	cost_free(k);
}

static void cost_explicit_gives_each_chunk_t_over_v(void)
{
	struct config c;
	struct cost *k;

	/* v = 4: the tick is 4 times finer, so a chunk op of 1.5 / 4 = 0.375 units is exact */
	config_init(&c);
	c.p = 2;
	c.v = 4;
	c.t_f = 1.5;
	c.t_b = 1;
	c.t_w = 0.1;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL(k->S, 8);
	CU_ASSERT_EQUAL(k->tick, 4 * PP_TICK_BASE);
	for (int s = 0; s < 8; s++) {
		ASSERT_NEAR(pp_time_to_units(k->t_f[s], k->tick), 0.375);
		ASSERT_NEAR(pp_time_to_units(k->t_b[s], k->tick), 0.25);
		ASSERT_NEAR(pp_time_to_units(k->t_w[s], k->tick), 0.025);
		CU_ASSERT_EQUAL(k->t_f[s], 1500000);
		CU_ASSERT_EQUAL(k->t_w[s], 100000);
	}
	cost_free(k);
}

static void cost_explicit_gives_a_dualpipe_chunk_all_of_t_and_no_message_between_its_copies(void)
{
	/* DualPipe: a micro-batch passes one of a device's two chunks, so a chunk op takes the
	 * device's whole time; stage p-1 ends the first route and hands nothing to stage p */
	struct sched *s = sched_new(sched_find("dualpipe"), &(struct sched_params){4, 2, 8, 0});
	struct cost_layout l = cost_layout_of(s);
	struct config c;
	struct cost *k;

	config_init(&c);
	c.p = 4;
	c.v = 2;
	c.m = 8;
	c.t_f = 1.5;
	c.t_comm = 0.25;
	k = cost_new_explicit(&c, &l, 0.5);
	CU_ASSERT_EQUAL(k->tick, PP_TICK_BASE);
	for (int st = 0; st < 8; st++) {
		ASSERT_NEAR(pp_time_to_units(k->t_f[st], k->tick), 1.5);
		ASSERT_NEAR(pp_time_to_units(k->msg_time[st], k->tick),
		            st == 3 || st == 7 ? 0 : 0.25);
	}
	cost_free(k);
	sched_free(s);
}

static void cost_explicit_prices_messages_with_tcomm(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.p = 4;
	c.t_comm = 0.1;
	c.msg_bytes = 1000;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_STRING_EQUAL(k->time_unit, "t");
	for (int s = 0; s < 3; s++) {
		CU_ASSERT_EQUAL(k->msg_time[s], 100000);
		CU_ASSERT_EQUAL(k->msg_bytes[s], 1000);
	}
	CU_ASSERT_EQUAL(k->msg_time[3], 0);
	CU_ASSERT_EQUAL(k->msg_bytes[3], 0);
	cost_free(k);
}

static void cost_explicit_keeps_message_time_in_units_with_chunks(void)
{
	struct config c;
	struct cost *k;

	/* the message time is not divided by v: 0.1 units at 2e6 ticks per unit */
	config_init(&c);
	c.p = 2;
	c.v = 2;
	c.t_comm = 0.1;
	k = cost_new_explicit(&c, NULL, 0.5);
	for (int s = 0; s < 3; s++)
		CU_ASSERT_EQUAL(k->msg_time[s], 200000);
	CU_ASSERT_EQUAL(k->msg_time[3], 0);
	cost_free(k);
}

static void cost_explicit_prices_messages_from_a_link_in_milliseconds(void)
{
	struct config c;
	struct cost *k;

	/* 33554432 B at 300 GB/s + 5 us = 0.116848106666... ms = 116848 ticks */
	config_init(&c);
	c.p = 2;
	c.msg_bytes = UINT64_C(33554432);
	c.bandwidth = 300;
	c.latency = 5;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_STRING_EQUAL(k->time_unit, "ms");
	CU_ASSERT_EQUAL(k->tick, PP_TICK_BASE);
	CU_ASSERT_EQUAL(k->msg_time[0], 116848);
	CU_ASSERT_EQUAL(k->msg_bytes[0], UINT64_C(33554432));
	CU_ASSERT_EQUAL(k->msg_time[1], 0);
	CU_ASSERT_EQUAL(k->msg_bytes[1], 0);
	CU_ASSERT_EQUAL(k->t_f[0], 1000000);
	cost_free(k);
}

static void cost_explicit_gives_equal_activations_with_the_w_fraction_kept(void)
{
	static const double fractions[] = {0, 0.25, 0.5, 1};
	struct config c;

	config_init(&c);
	c.p = 2;
	c.v = 2;
	for (size_t i = 0; i < sizeof(fractions) / sizeof(fractions[0]); i++) {
		struct cost *k = cost_new_explicit(&c, NULL, fractions[i]);

		CU_ASSERT_TRUE(k->act[0] > 0);
		for (int s = 0; s < 4; s++) {
			CU_ASSERT_EQUAL(k->act[s], k->act[0]);
			ASSERT_NEAR((double)k->act_w[s], (double)k->act[s] * fractions[i]);
		}
		cost_free(k);
	}
}

static void cost_explicit_copies_comm_mode_and_duplex(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.comm = PP_COMM_BLOCKING;
	c.duplex = PP_DUPLEX_HALF;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL(k->comm, PP_COMM_BLOCKING);
	CU_ASSERT_EQUAL(k->duplex, PP_DUPLEX_HALF);
	cost_free(k);
	config_init(&c);
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL(k->comm, PP_COMM_OVERLAP);
	CU_ASSERT_EQUAL(k->duplex, PP_DUPLEX_FULL);
	cost_free(k);
}

static void cost_uniform_is_false_once_one_stage_differs(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_TRUE(cost_uniform(k));
	k->t_w[3] += 1;
	CU_ASSERT_FALSE(cost_uniform(k));
	k->t_w[3] -= 1;
	k->t_f[1] = 0;
	CU_ASSERT_FALSE(cost_uniform(k));
	k->t_f[1] = k->t_f[0];
	k->t_b[2] *= 2;
	CU_ASSERT_FALSE(cost_uniform(k));
	cost_free(k);
}

static void cost_comm_free_is_true_only_without_message_time(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.msg_bytes = 1000;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_TRUE(cost_comm_free(k));
	cost_free(k);
	c.t_comm = 0.1;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_FALSE(cost_comm_free(k));
	cost_free(k);
	c.t_comm = 0;
	c.bandwidth = 50;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_FALSE(cost_comm_free(k));
	cost_free(k);
}

static void cost_comm_free_holds_with_one_stage_whatever_tcomm(void)
{
	struct config c;
	struct cost *k;

	config_init(&c);
	c.p = 1;
	c.t_comm = 5;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_TRUE(cost_comm_free(k));
	CU_ASSERT_EQUAL(k->msg_time[0], 0);
	cost_free(k);
	cost_free(NULL);
}

/* A transformer as its public config states it, independent of the preset table. */
struct shape {
	double layers, h, ffn, a, kv, vocab; /* layers, hidden, MLP size, heads, kv heads, V */
	bool gated;                          /* three MLP matrices (SwiGLU) rather than two */
};

static const struct shape llama3_70b = {80, 8192, 28672, 64, 8, 128256, true};
static const struct shape gpt3_175b = {96, 12288, 49152, 96, 96, 50257, false};

/* Linear parameters of one layer: Q and O (h x h each), K and V (h x kv*h/a each), the MLP. */
static double linear_params(const struct shape *m)
{
	double h = m->h;

	return 2 * h * h + 2 * h * (m->kv * h / m->a) + (m->gated ? 3 : 2) * h * m->ffn;
}

/* FLOPs of one layer for b sequences of s tokens: forward, input-gradient and weight-gradient. */
static double layer_f(const struct shape *m, double b, double s)
{
	return 2 * linear_params(m) * b * s + 4 * b * s * s * m->h;
}

static double layer_b(const struct shape *m, double b, double s)
{
	return 2 * linear_params(m) * b * s + 8 * b * s * s * m->h;
}

static double layer_w(const struct shape *m, double b, double s)
{
	return 2 * linear_params(m) * b * s;
}

/* FLOPs of the LM head in each of F, B and W: 2 * tokens * h * V. */
static double head_flops(const struct shape *m, double b, double s)
{
	return 2 * b * s * m->h * m->vocab;
}

/* Milliseconds of flops on one GPU of tflops peak at efficiency. */
static double compute_ms(double flops, double tflops, double efficiency)
{
	return flops / (tflops * 1e12 * efficiency) * 1e3;
}

/* Milliseconds of one message of bytes on a link of bandwidth GB/s and latency us. */
static double transfer_ms(double bytes, double bandwidth, double latency)
{
	return latency / 1e3 + bytes / (bandwidth * 1e9) * 1e3;
}

/* Milliseconds of a ring all-reduce of bytes over n GPUs on a link of bandwidth GB/s, latency
 * us: 2(n-1)/n of the bytes cross each link, in 2(n-1) steps. */
static double ring_ms(double bytes, double n, double bandwidth, double latency)
{
	return 2 * (n - 1) / n * bytes / (bandwidth * 1e9) * 1e3 + 2 * (n - 1) * latency / 1e3;
}

/* Ticks of a time in ms: the model prices in ms at PP_TICK_BASE ticks per ms. */
static pp_time ticks(double ms)
{
	return (pp_time)llround(ms * 1e6);
}

/* The defaults with --model model and -p p. */
static void model_config(struct config *c, const char *model, const char *p)
{
	config_init(c);
	unit_set(c, "model", model);
	unit_set(c, "p", p);
}

/* model_config with every op at half the peak (--efficiency=0.5): the uniform model, whose
 * times the tests compute from the FLOPs alone. */
static void uniform_config(struct config *c, const char *model, const char *p)
{
	model_config(c, model, p);
	unit_set(c, "efficiency", "0.5");
}

/* model_config with pipeline messages at their link's own figures (--p2p-overhead=0
 * --p2p-efficiency=1, no framework's overhead): the tests of which link a hop takes. */
static void link_config(struct config *c, const char *model, const char *p)
{
	model_config(c, model, p);
	unit_set(c, "p2p_overhead", "0");
	unit_set(c, "p2p_efficiency", "1");
}

/* A schedule of a config and its model-derived cost (NULL with err set when it fails). */
struct priced {
	struct sched *sched;
	struct cost *cost;
	struct pp_error err;
};

/* Generates the schedule of c, which must validate, and prices it from its model. */
static struct priced price(const struct config *c)
{
	struct priced x = {NULL, NULL, {0}};
	struct sched_params sp = config_sched_params(c);
	struct cost_layout layout;

	CU_ASSERT_EQUAL_FATAL(config_validate(c, &x.err), 0);
	x.sched = sched_new(sched_find(c->schedule), &sp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x.sched);
	layout = cost_layout_of(x.sched);
	x.cost = cost_new_model(c, &layout, &x.err);
	return x;
}

/* Prices c and asserts (fatally) that it succeeds. */
static struct priced price_ok(const struct config *c)
{
	struct priced x = price(c);

	CU_ASSERT_PTR_NOT_NULL_FATAL(x.cost);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x.cost->model);
	return x;
}

/* Prices c as a run does, its framework's habits given (config_settle), asserting success. */
static struct priced price_settled(const struct config *c)
{
	struct config settled;
	struct pp_error e = {0};

	CU_ASSERT_EQUAL_FATAL(config_settle(c, &settled, &e), 0);
	return price_ok(&settled);
}

/* Prices c, asserts that it fails with a usage error whose message starts with prefix and
 * contains part, and frees what it made. */
static void assert_price_fails(const struct config *c, const char *prefix, const char *part)
{
	struct priced x = price(c);

	CU_ASSERT_PTR_NULL(x.cost);
	CU_ASSERT_EQUAL(x.err.kind, PP_ERR_USAGE);
	CU_ASSERT_EQUAL(strncmp(x.err.msg, prefix, strlen(prefix)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, part));
	cost_free(x.cost);
	sched_free(x.sched);
}

static void release(struct priced *x)
{
	cost_free(x->cost);
	sched_free(x->sched);
}

/* Asserts that stage st of a is priced as stage st of b: its op times, activations and, when
 * both have pieces, its plans step by step. */
static void assert_stage_priced_alike(const struct cost *a, const struct cost *b, int st)
{
	CU_ASSERT_EQUAL(a->t_f[st], b->t_f[st]);
	CU_ASSERT_EQUAL(a->t_b[st], b->t_b[st]);
	CU_ASSERT_EQUAL(a->t_w[st], b->t_w[st]);
	CU_ASSERT_EQUAL(a->act[st], b->act[st]);
	CU_ASSERT_EQUAL(a->act_w[st], b->act_w[st]);
	CU_ASSERT_EQUAL(a->pieces != NULL, b->pieces != NULL);
	for (int kind = 0; kind < 3 && a->pieces != NULL && b->pieces != NULL; kind++) {
		const struct piece_plan *x = &a->pieces->plan[3 * st + kind];
		const struct piece_plan *y = &b->pieces->plan[3 * st + kind];

		CU_ASSERT_EQUAL_FATAL(x->n, y->n);
		for (size_t i = 0; i < x->n; i++) {
			CU_ASSERT_EQUAL(x->steps[i].what, y->steps[i].what);
			CU_ASSERT_EQUAL(x->steps[i].dur, y->steps[i].dur);
		}
	}
}

/* llama3-8b over two devices with the given schedule, v and tp; GPU key `key` set to gpu; the
 * links given (else they would be device 0's GPU's). */
static struct priced two_devices(const char *schedule, const char *v, const char *tp,
                                 const char *key, const char *gpu)
{
	struct config c;

	model_config(&c, "llama3-8b", "2");
	unit_set(&c, "schedule", schedule);
	unit_set(&c, "v", v);
	unit_set(&c, "m", "4");
	unit_set(&c, "tp", tp);
	unit_set(&c, "link", "nvlink4");
	unit_set(&c, "inter_link", "ib-ndr");
	unit_set(&c, key, gpu);
	return price_ok(&c);
}

/* A pipeline of an H100 and an A100 prices each device's stages (times, activations, piece
 * plans, optimizer step, host copies) exactly as the all-H100 and the all-A100 runs price
 * them, on the same links. */
static void cost_model_prices_each_device_on_its_own_gpu(void)
{
	static const struct {
		const char *schedule, *v, *tp;
	} cases[] = {{"1f1b", "1", "1"}, {"interleaved", "2", "2"}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct priced h = two_devices(cases[i].schedule, cases[i].v, cases[i].tp, "gpu",
		                              "h100-sxm");
		struct priced a = two_devices(cases[i].schedule, cases[i].v, cases[i].tp, "gpu",
		                              "a100-80g");
		struct priced x = two_devices(cases[i].schedule, cases[i].v, cases[i].tp,
		                              "device_gpus", "h100-sxm,a100-80g");
		const struct cost_model *k = x.cost->model;

		CU_ASSERT_EQUAL(k->ntypes, 2);
		/* with tp, the stages' ops are plans of compute and collectives */
		CU_ASSERT_EQUAL(x.cost->pieces != NULL, strcmp(cases[i].tp, "1") != 0);
		CU_ASSERT_STRING_EQUAL(cost_device_type(k, 0)->gpu, "h100-sxm");
		CU_ASSERT_STRING_EQUAL(cost_device_type(k, 1)->gpu, "a100-80g");
		for (int st = 0; st < x.sched->S; st++) {
			int d = (int)x.sched->stage_device[st];

			assert_stage_priced_alike(x.cost, d == 0 ? h.cost : a.cost, st);
			CU_ASSERT_EQUAL(x.cost->msg_time[st], h.cost->msg_time[st]);
		}
		CU_ASSERT_TRUE(x.cost->t_f[0] < a.cost->t_f[0]);
		for (int d = 0; d < 2; d++) {
			const struct cost_model *own = (d == 0 ? h : a).cost->model;

			CU_ASSERT_EQUAL(k->optimizer_ms[d], own->optimizer_ms[d]);
			CU_ASSERT_EQUAL(k->device_state_bytes[d], own->device_state_bytes[d]);
			CU_ASSERT_EQUAL(cost_device_type(k, d)->capacity_bytes,
			                own->types[0].capacity_bytes);
			CU_ASSERT_EQUAL(cost_device_type(k, d)->host_bandwidth,
			                own->types[0].host_bandwidth);
		}
		release(&h);
		release(&a);
		release(&x);
	}
}

/* Every device of one GPU is the run --gpu gives: one type, the same prices. */
static void cost_model_with_one_gpu_on_every_device_is_the_run_of_that_gpu(void)
{
	struct priced g = two_devices("interleaved", "2", "2", "gpu", "h200");
	struct priced x = two_devices("interleaved", "2", "2", "device_gpus", "h200*2");

	CU_ASSERT_EQUAL(x.cost->model->ntypes, 1);
	CU_ASSERT_STRING_EQUAL(x.cost->model->types[0].gpu, "h200");
	for (int st = 0; st < x.sched->S; st++) {
		assert_stage_priced_alike(x.cost, g.cost, st);
		CU_ASSERT_EQUAL(x.cost->msg_time[st], g.cost->msg_time[st]);
	}
	CU_ASSERT_EQUAL(x.cost->model->optimizer_max_ms, g.cost->model->optimizer_max_ms);
	release(&g);
	release(&x);
}

/* device_gpus must name one GPU a device, and not beside gpu. */
static void cost_model_refuses_device_gpus_of_another_count_or_beside_gpu(void)
{
	struct config c;

	model_config(&c, "llama3-8b", "4");
	unit_set(&c, "device_gpus", "h100-sxm*2,a100-80g");
	assert_price_fails(&c, "--device-gpus 'h100-sxm*2,a100-80g'",
	                   "gives 3 GPUs, the pipeline has 4 devices");
	model_config(&c, "llama3-8b", "2");
	unit_set(&c, "device_gpus", "h100-sxm,a100-80g");
	unit_set(&c, "gpu", "h100-sxm");
	assert_price_fails(&c, "--device-gpus", "give it or --gpu, not both");
}

static void cost_model_lays_each_dualpipe_copy_out_as_the_whole_model(void)
{
	/* each route's stages hold all the layers, the embedding on its first stage and the LM
	 * head on its last: stages 3 and 7 (devices 3 and 0) run the head */
	struct config c;
	struct priced x;

	model_config(&c, "llama3-8b", "4");
	unit_set(&c, "schedule", "dualpipe");
	unit_set(&c, "v", "2");
	unit_set(&c, "m", "8");
	x = price_ok(&c);
	for (int st = 0; st < 8; st++)
		CU_ASSERT_EQUAL(x.cost->model->stage_layers[st], 8);
	CU_ASSERT_EQUAL(x.cost->t_f[3], x.cost->t_f[7]);
	CU_ASSERT_TRUE(x.cost->t_f[3] > x.cost->t_f[2]);
	CU_ASSERT_EQUAL(x.cost->t_f[0], x.cost->t_f[4]);
	CU_ASSERT_EQUAL(x.cost->t_f[2], x.cost->t_f[5]);
	CU_ASSERT_EQUAL(x.cost->act[3], x.cost->act[7]);
	CU_ASSERT_EQUAL(x.cost->msg_time[3], 0);
	CU_ASSERT_TRUE(x.cost->msg_time[2] > 0 && x.cost->msg_time[4] > 0);
	/* devices 0 and 3: one copy's embedding and the other's head, as a 1F1B device 0 and 3 */
	CU_ASSERT_DOUBLE_EQUAL(x.cost->model->device_params[0], x.cost->model->device_params[3], 1);
	CU_ASSERT_DOUBLE_EQUAL(x.cost->model->device_params[0] - x.cost->model->device_params[1],
	                       2.0 * x.cost->model->vocab * x.cost->model->hidden, 1);
	release(&x);
}

static void cost_model_counts_attention_with_grouped_kv_heads_and_three_gated_mlp_matrices(void)
{
	struct config c;
	struct priced x;

	/* 2 * 8192^2 + 2 * 8192 * (8 * 128) + 3 * 8192 * 28672 */
	model_config(&c, "llama3-70b", "4");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->layer_params, 855638016.0);
	ASSERT_NEAR(x.cost->model->layer_params, linear_params(&llama3_70b));
	CU_ASSERT_TRUE(x.cost->model->gated_mlp);
	release(&x);
}

static void cost_model_counts_twelve_h_squared_parameters_per_gpt3_layer(void)
{
	struct config c;
	struct priced x;

	model_config(&c, "gpt3-175b", "4");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->layer_params, 12.0 * 12288 * 12288);
	ASSERT_NEAR(x.cost->model->layer_params, linear_params(&gpt3_175b));
	CU_ASSERT_FALSE(x.cost->model->gated_mlp);
	release(&x);
}

static void cost_model_gives_each_layer_2pt_plus_4bs2h_forward_8bs2h_backward_and_2pt_weight(void)
{
	static const struct {
		const char *seq, *mbs;
		double s, b;
	} cases[] = {{"2048", "1", 2048, 1}, {"4096", "2", 4096, 2}, {"512", "3", 512, 3}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct priced x;
		const struct cost_model *k;

		model_config(&c, "llama3-70b", "4");
		unit_set(&c, "seq", cases[i].seq);
		unit_set(&c, "mbs", cases[i].mbs);
		x = price_ok(&c);
		k = x.cost->model;
		ASSERT_NEAR(k->layer_flops.f, layer_f(&llama3_70b, cases[i].b, cases[i].s));
		ASSERT_NEAR(k->layer_flops.b, layer_b(&llama3_70b, cases[i].b, cases[i].s));
		ASSERT_NEAR(k->layer_flops.w, layer_w(&llama3_70b, cases[i].b, cases[i].s));
		ASSERT_NEAR(k->head_flops.f, head_flops(&llama3_70b, cases[i].b, cases[i].s));
		ASSERT_NEAR(k->head_flops.b, head_flops(&llama3_70b, cases[i].b, cases[i].s));
		ASSERT_NEAR(k->head_flops.w, head_flops(&llama3_70b, cases[i].b, cases[i].s));
		release(&x);
	}
}

static void cost_model_prices_each_stage_as_its_flops_at_the_achieved_rate_in_milliseconds(void)
{
	struct config c;
	struct priced x;
	const struct shape *m = &llama3_70b;
	double head = head_flops(m, 1, 2048);

	/* A100: 312 TFLOP/s at --efficiency=0.5; 20 layers a stage, the LM head last */
	uniform_config(&c, "llama3-70b", "4");
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.cost->S, 4);
	CU_ASSERT_EQUAL(x.cost->tick, PP_TICK_BASE);
	CU_ASSERT_STRING_EQUAL(x.cost->time_unit, "ms");
	for (int st = 0; st < 4; st++) {
		double last = st == 3 ? 1 : 0;

		CU_ASSERT_EQUAL(
		        x.cost->t_f[st],
		        ticks(compute_ms(20 * layer_f(m, 1, 2048) + last * head, 312, 0.5)));
		CU_ASSERT_EQUAL(
		        x.cost->t_b[st],
		        ticks(compute_ms(20 * layer_b(m, 1, 2048) + last * head, 312, 0.5)));
		CU_ASSERT_EQUAL(
		        x.cost->t_w[st],
		        ticks(compute_ms(20 * layer_w(m, 1, 2048) + last * head, 312, 0.5)));
	}
	/* 20 layers of 3.642e12 FLOPs at 156e12 FLOP/s */
	CU_ASSERT_EQUAL(x.cost->t_f[0], 466940034);
	release(&x);
}

static void cost_model_runs_at_the_gpu_preset_or_the_tflops_and_efficiency_given(void)
{
	struct config c;
	struct priced x;
	double f = 20 * layer_f(&llama3_70b, 1, 2048);

	uniform_config(&c, "llama3-70b", "4");
	unit_set(&c, "gpu", "h100-sxm");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->types[0].hw.tflops, 989);
	CU_ASSERT_EQUAL(x.cost->t_f[0], ticks(compute_ms(f, 989, 0.5)));
	release(&x);
	unit_set(&c, "tflops", "500");
	unit_set(&c, "efficiency", "0.25");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->types[0].hw.tflops, 500);
	ASSERT_NEAR(x.cost->model->efficiency, 0.25);
	CU_ASSERT_EQUAL(x.cost->t_f[0], ticks(compute_ms(f, 500, 0.25)));
	release(&x);
}

static void cost_model_divides_compute_by_tp_and_gives_each_layer_four_tp_collectives_as_pieces(void)
{
	struct config c;
	struct priced x;
	const struct shape *m = &llama3_70b;
	/*
	 * Each all-reduce moves one layer's activations, b*s*h bf16 values, over 8 GPUs on NVLink3
	 * at 0.8 of its 300 GB/s (the default collective efficiency); a layer's op meets four
	 * collectives (all-gather, reduce-scatter, all-gather, reduce-scatter), each half an
	 * all-reduce. t_f and t_b are the compute alone: per layer the attention core (4bs^2h/tp
	 * FLOPs forward, 8bs^2h/tp backward) and the rest of the layer in four equal parts, each
	 * its own compute piece rounded to ticks; the LM head is one more piece on the last stage.
	 */
	double ar = ring_ms(1 * 2048 * 8192 * 2.0, 8, 300 * 0.8, 3), head = head_flops(m, 1, 2048);
	double attn_f = compute_ms(4.0 * 2048 * 2048 * 8192 / 8, 312, 0.5), attn_b = 2 * attn_f;
	double f = compute_ms(layer_f(m, 1, 2048) / 8, 312, 0.5);
	double b = compute_ms(layer_b(m, 1, 2048) / 8, 312, 0.5);
	pp_time layer_tf = 4 * ticks((f - attn_f) / 4) + ticks(attn_f);
	pp_time layer_tb = 4 * ticks((b - attn_b) / 4) + ticks(attn_b);

	uniform_config(&c, "llama3-70b", "4");
	unit_set(&c, "tp", "8");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->tp_allreduce_ms, ar);
	ASSERT_NEAR(x.cost->model->tp_coll_ms, ar / 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x.cost->pieces);
	for (int st = 0; st < 4; st++) {
		pp_time last = st == 3 ? 1 : 0;

		CU_ASSERT_EQUAL(x.cost->t_f[st],
		                20 * layer_tf + last * ticks(compute_ms(head / 8, 312, 0.5)));
		CU_ASSERT_EQUAL(x.cost->t_b[st],
		                20 * layer_tb + last * ticks(compute_ms(head / 8, 312, 0.5)));
		CU_ASSERT_EQUAL(
		        x.cost->t_w[st],
		        ticks(compute_ms((20 * layer_w(m, 1, 2048) + last * head) / 8, 312, 0.5)));
		/* F and B: 20 x 4 tensor-parallel pieces of half an all-reduce, each waited for
		 * (no overlap by default); W none */
		for (int kind = 0; kind < 3; kind++) {
			const struct piece_plan *pl = &x.cost->pieces->plan[3 * st + kind];
			size_t issues = 0, waits = 0;

			for (size_t i = 0; i < pl->n; i++) {
				if (pl->steps[i].what == PIECE_ISSUE) {
					issues++;
					CU_ASSERT_EQUAL(pl->steps[i].kind, COMM_TP);
					CU_ASSERT_EQUAL(pl->steps[i].dur, ticks(ar / 2));
				}
				waits += pl->steps[i].what == PIECE_WAIT;
			}
			CU_ASSERT_EQUAL(issues, kind < 2 ? 80u : 0u);
			CU_ASSERT_EQUAL(waits, issues);
		}
	}
	release(&x);
}

static void cost_model_adds_no_allreduce_without_tensor_parallelism(void)
{
	struct config c;
	struct priced x;

	uniform_config(&c, "llama3-70b", "4");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->tp_allreduce_ms, 0);
	CU_ASSERT_EQUAL(x.cost->t_b[1],
	                ticks(compute_ms(20 * layer_b(&llama3_70b, 1, 2048), 312, 0.5)));
	release(&x);
}

static void cost_model_message_carries_b_s_h_dtype_bytes_over_tp(void)
{
	static const struct {
		const char *tp, *seq, *mbs, *dtype;
		uint64_t bytes;
	} cases[] = {
	        {"1", "2048", "1", "2", UINT64_C(33554432)}, /* the document's 32 MiB */
	        {"8", "2048", "1", "2", UINT64_C(4194304)},
	        {"2", "4096", "2", "2", UINT64_C(67108864)},
	        {"1", "2048", "1", "4", UINT64_C(67108864)},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct priced x;

		model_config(&c, "llama3-70b", "4");
		unit_set(&c, "tp", cases[i].tp);
		unit_set(&c, "seq", cases[i].seq);
		unit_set(&c, "mbs", cases[i].mbs);
		unit_set(&c, "dtype_bytes", cases[i].dtype);
		x = price_ok(&c);
		CU_ASSERT_EQUAL(x.cost->model->msg_bytes, cases[i].bytes);
		for (int st = 0; st < 3; st++)
			CU_ASSERT_EQUAL(x.cost->msg_bytes[st], cases[i].bytes);
		CU_ASSERT_EQUAL(x.cost->msg_bytes[3], 0);
		CU_ASSERT_EQUAL(x.cost->msg_time[3], 0);
		release(&x);
	}
}

static void cost_model_sends_hops_inside_a_node_over_the_intra_node_link(void)
{
	struct config c;
	struct priced x;

	/* four ranks of one GPU each share the first node: NVLink3, 300 GB/s and 3 us */
	link_config(&c, "llama3-70b", "4");
	x = price_ok(&c);
	for (int st = 0; st < 3; st++)
		CU_ASSERT_EQUAL(x.cost->msg_time[st], ticks(transfer_ms(33554432, 300, 3)));
	CU_ASSERT_EQUAL(x.cost->msg_time[0], 114848);
	release(&x);
}

/* By default a message adds the framework overhead and gets the share of the link fit on the
 * Zero Bubble paper's T_comm: 3 + 234 us and 0.24 of 300 GB/s for 32 MiB: 0.237 + 33554432 /
 * 72e9 s = 0.703034 ms; the options set other figures (10 us, half: 0.013 + 33554432 / 150e9 s
 * = 0.236696 ms). */
static void cost_model_adds_the_p2p_overhead_and_takes_the_p2p_share_of_the_link(void)
{
	struct config c;
	struct priced x;

	model_config(&c, "llama3-70b", "4");
	x = price_ok(&c);
	for (int st = 0; st < 3; st++)
		CU_ASSERT_EQUAL(x.cost->msg_time[st],
		                ticks(transfer_ms(33554432, 300 * 0.24, 237)));
	CU_ASSERT_EQUAL(x.cost->msg_time[0], 703034);
	ASSERT_NEAR(x.cost->model->hop_bandwidth[0], 72);
	ASSERT_NEAR(x.cost->model->hop_latency[0], 237);
	release(&x);

	unit_set(&c, "p2p_overhead", "10");
	unit_set(&c, "p2p_efficiency", "0.5");
	x = price_ok(&c);
	for (int st = 0; st < 3; st++)
		CU_ASSERT_EQUAL(x.cost->msg_time[st], ticks(transfer_ms(33554432, 150, 13)));
	CU_ASSERT_EQUAL(x.cost->msg_time[0], 236696);
	release(&x);
}

static void cost_model_sends_hops_between_nodes_over_the_inter_node_link_when_tp_fills_a_node(void)
{
	struct config c;
	struct priced x;

	/* tp = 8 gives every pipeline rank a node of its own: InfiniBand HDR, 25 GB/s and 5 us */
	link_config(&c, "llama3-70b", "4");
	unit_set(&c, "tp", "8");
	x = price_ok(&c);
	for (int st = 0; st < 3; st++)
		CU_ASSERT_EQUAL(x.cost->msg_time[st], ticks(transfer_ms(4194304, 25, 5)));
	release(&x);
}

static void cost_model_lays_ranks_out_tp_first_then_dp_then_pp_to_find_each_node(void)
{
	struct config c;
	struct priced x;
	pp_time intra, inter;

	/* tp 2 x dp 2 = 4 GPUs a rank, 8 a node: ranks 0 and 1 on node 0, 2 and 3 on node 1 */
	link_config(&c, "llama3-70b", "4");
	unit_set(&c, "tp", "2");
	unit_set(&c, "dp", "2");
	x = price_ok(&c);
	intra = ticks(transfer_ms(16777216, 300, 3));
	inter = ticks(transfer_ms(16777216, 25, 5));
	CU_ASSERT_EQUAL(x.cost->msg_time[0], intra);
	CU_ASSERT_EQUAL(x.cost->msg_time[1], inter);
	CU_ASSERT_EQUAL(x.cost->msg_time[2], intra);
	release(&x);

	/* one GPU a rank, 4 a node, 8 ranks: only the hop from rank 3 to rank 4 leaves a node */
	link_config(&c, "llama3-70b", "8");
	unit_set(&c, "gpus_per_node", "4");
	x = price_ok(&c);
	for (int st = 0; st < 7; st++)
		CU_ASSERT_EQUAL(x.cost->msg_time[st],
		                ticks(st == 3 ? transfer_ms(33554432, 25, 5)
		                              : transfer_ms(33554432, 300, 3)));
	release(&x);
}

static void cost_model_over_pcie4_instead_of_nvlink3_keeps_compute_and_reprices_messages(void)
{
	struct config c;
	struct priced nv, pcie;

	link_config(&c, "llama3-70b", "4");
	unit_set(&c, "link", "nvlink3");
	nv = price_ok(&c);
	unit_set(&c, "link", "pcie4");
	pcie = price_ok(&c);
	CU_ASSERT_STRING_EQUAL(pcie.cost->model->link, "pcie4");
	for (int st = 0; st < 4; st++) {
		CU_ASSERT_EQUAL(pcie.cost->t_f[st], nv.cost->t_f[st]);
		CU_ASSERT_EQUAL(pcie.cost->t_b[st], nv.cost->t_b[st]);
		CU_ASSERT_EQUAL(pcie.cost->t_w[st], nv.cost->t_w[st]);
		CU_ASSERT_EQUAL(pcie.cost->act[st], nv.cost->act[st]);
	}
	for (int st = 0; st < 3; st++) {
		CU_ASSERT_EQUAL(nv.cost->msg_time[st], ticks(transfer_ms(33554432, 300, 3)));
		CU_ASSERT_EQUAL(pcie.cost->msg_time[st], ticks(transfer_ms(33554432, 32, 10)));
	}
	release(&nv);
	release(&pcie);
}

static void cost_model_takes_the_gpu_s_own_links_when_none_is_given(void)
{
	struct config c;
	struct priced x;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "gpu", "h100-sxm");
	x = price_ok(&c);
	CU_ASSERT_STRING_EQUAL(x.cost->model->link, "nvlink4");
	ASSERT_NEAR(x.cost->model->link_bandwidth, 450);
	CU_ASSERT_STRING_EQUAL(x.cost->model->inter_link, "ib-ndr");
	ASSERT_NEAR(x.cost->model->inter_bandwidth, 50);
	release(&x);
}

static void cost_model_shape_overrides_replace_the_preset_figures(void)
{
	struct config c;
	struct priced x;
	const struct cost_model *k;
	/* a 4096-wide plain-MLP model with full multi-head attention */
	struct shape m = {40, 4096, 11008, 32, 32, 32000, false};

	uniform_config(&c, "llama3-70b", "4");
	unit_set(&c, "layers", "40");
	unit_set(&c, "hidden", "4096");
	unit_set(&c, "ffn", "11008");
	unit_set(&c, "heads", "32");
	unit_set(&c, "kv_heads", "32");
	unit_set(&c, "vocab", "32000");
	unit_set(&c, "mlp", "plain");
	unit_set(&c, "tied_embeddings", "yes");
	x = price_ok(&c);
	k = x.cost->model;
	CU_ASSERT_EQUAL(k->layers, 40);
	CU_ASSERT_EQUAL(k->hidden, 4096);
	CU_ASSERT_EQUAL(k->ffn, 11008);
	CU_ASSERT_EQUAL(k->heads, 32);
	CU_ASSERT_EQUAL(k->kv_heads, 32);
	CU_ASSERT_EQUAL(k->vocab, 32000);
	CU_ASSERT_FALSE(k->gated_mlp);
	CU_ASSERT_TRUE(k->tied);
	ASSERT_NEAR(k->layer_params, 4.0 * 4096 * 4096 + 2.0 * 4096 * 11008);
	ASSERT_NEAR(k->layer_params, linear_params(&m));
	for (int st = 0; st < 4; st++)
		CU_ASSERT_EQUAL(k->stage_layers[st], 10);
	CU_ASSERT_EQUAL(
	        x.cost->t_f[3],
	        ticks(compute_ms(10 * layer_f(&m, 1, 2048) + head_flops(&m, 1, 2048), 312, 0.5)));
	CU_ASSERT_EQUAL(x.cost->msg_bytes[0], UINT64_C(2048) * 4096 * 2);
	release(&x);
}

static void cost_model_hardware_overrides_replace_the_gpu_and_link_figures(void)
{
	struct config c;
	struct priced x;
	const struct cost_model *k;

	/* tp = 8 makes every hop inter-node and gives each layer TP all-reduces on the intra link
	 */
	uniform_config(&c, "llama3-70b", "4");
	unit_set(&c, "tp", "8");
	unit_set(&c, "tflops", "100");
	unit_set(&c, "gpu_memory", "40");
	unit_set(&c, "bandwidth", "10");
	unit_set(&c, "latency", "7");
	unit_set(&c, "inter_bandwidth", "2");
	unit_set(&c, "inter_latency", "11");
	unit_set(&c, "p2p_overhead", "0");
	x = price_ok(&c);
	k = x.cost->model;
	ASSERT_NEAR(k->types[0].hw.tflops, 100);
	ASSERT_NEAR(k->types[0].capacity_bytes, 40e9);
	ASSERT_NEAR(k->link_bandwidth, 10);
	ASSERT_NEAR(k->link_latency, 7);
	ASSERT_NEAR(k->inter_bandwidth, 2);
	ASSERT_NEAR(k->inter_latency, 11);
	/* collectives at 0.8 of the link's bandwidth (the default collective efficiency) */
	ASSERT_NEAR(k->tp_allreduce_ms, ring_ms(2048 * 8192 * 2.0, 8, 10 * 0.8, 7));
	CU_ASSERT_EQUAL(x.cost->msg_time[0], ticks(transfer_ms(4194304, 2, 11)));
	CU_ASSERT_EQUAL(x.cost->t_w[0],
	                ticks(compute_ms(20 * layer_w(&llama3_70b, 1, 2048) / 8, 100, 0.5)));
	release(&x);
}

static void cost_model_takes_a_latency_of_zero_as_given(void)
{
	struct config c;
	struct priced x;

	link_config(&c, "llama3-70b", "4");
	unit_set(&c, "latency", "0");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->link_latency, 0);
	CU_ASSERT_EQUAL(x.cost->msg_time[0], ticks(33554432 / 300e9 * 1e3));
	release(&x);
}

static void cost_model_splits_layers_evenly_over_the_virtual_stages(void)
{
	static const struct {
		const char *schedule, *p, *v;
		int S, layers;
	} cases[] = {
	        {"1f1b", "4", "1", 4, 20},        {"1f1b", "8", "1", 8, 10},
	        {"1f1b", "5", "1", 5, 16},        {"1f1b", "1", "1", 1, 80},
	        {"interleaved", "2", "2", 4, 20}, {"interleaved", "4", "4", 16, 5},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct priced x;

		model_config(&c, "llama3-70b", cases[i].p);
		unit_set(&c, "schedule", cases[i].schedule);
		unit_set(&c, "v", cases[i].v);
		x = price_ok(&c);
		CU_ASSERT_EQUAL_FATAL(x.cost->S, cases[i].S);
		for (int st = 0; st < cases[i].S; st++)
			CU_ASSERT_EQUAL(x.cost->model->stage_layers[st], cases[i].layers);
		release(&x);
	}
}

static void cost_model_takes_the_layers_of_each_stage_from_the_list(void)
{
	static const int want[] = {18, 20, 22, 20};
	struct config c;
	struct priced x;

	uniform_config(&c, "llama3-70b", "4");
	unit_set(&c, "layers_per_stage", "18,20,22,20");
	x = price_ok(&c);
	for (int st = 0; st < 4; st++) {
		CU_ASSERT_EQUAL(x.cost->model->stage_layers[st], want[st]);
		CU_ASSERT_EQUAL(x.cost->act[st] - (st == 3 ? 4 * 2048 * 128256 : 0),
		                (int64_t)want[st] * 71 * 2048 * 8192 / 2);
	}
	CU_ASSERT_EQUAL(x.cost->t_f[2],
	                ticks(compute_ms(22 * layer_f(&llama3_70b, 1, 2048), 312, 0.5)));
	release(&x);
}

/* A stage of no layers: the first holds only the embedding (a lookup, no time), the last
 * only the LM head, as the zero-bubble paper's interleaved runs place them. */
static void cost_model_prices_a_stage_of_no_layers_as_its_embedding_or_head_alone(void)
{
	struct config c;
	struct priced x;

	uniform_config(&c, "llama3-70b", "2");
	unit_set(&c, "schedule", "interleaved");
	unit_set(&c, "v", "2");
	unit_set(&c, "m", "4");
	unit_set(&c, "layers_per_stage", "0,40,40,0");
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.cost->t_f[0], 0);
	CU_ASSERT_EQUAL(x.cost->t_w[0], 0);
	CU_ASSERT_EQUAL(x.cost->act[0], 0);
	CU_ASSERT_EQUAL(x.cost->t_f[3],
	                ticks(compute_ms(head_flops(&llama3_70b, 1, 2048), 312, 0.5)));
	CU_ASSERT_EQUAL(x.cost->act[3], 4 * 2048 * 128256);
	release(&x);
}

static void cost_model_gives_first_and_last_stage_layers_and_splits_the_rest_evenly(void)
{
	static const struct {
		const char *p, *first, *last;
		int want[4];
	} cases[] = {
	        {"4", "18", "14", {18, 24, 24, 14}},
	        {"4", "23", NULL, {23, 19, 19, 19}},
	        {"4", NULL, "17", {21, 21, 21, 17}},
	        {"2", "30", "50", {30, 50}},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct priced x;

		model_config(&c, "llama3-70b", cases[i].p);
		if (cases[i].first != NULL)
			unit_set(&c, "first_stage_layers", cases[i].first);
		if (cases[i].last != NULL)
			unit_set(&c, "last_stage_layers", cases[i].last);
		x = price_ok(&c);
		for (int st = 0; st < x.cost->S; st++)
			CU_ASSERT_EQUAL(x.cost->model->stage_layers[st], cases[i].want[st]);
		release(&x);
	}
}

static void cost_model_rejects_layers_that_do_not_split_evenly_naming_what_was_given(void)
{
	struct config c;

	/* with --layer-split=even, the preset's 80 layers over 3 stages: the stage count is at
	 * fault, not --layers */
	model_config(&c, "llama3-70b", "3");
	unit_set(&c, "layer_split", "even");
	assert_price_fails(&c, "--stages '3': ", "80 layers do not split evenly");
	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "layer_split", "even");
	unit_set(&c, "layers", "81");
	assert_price_fails(&c, "--layers '81': ", "81 layers do not split evenly");
}

static void cost_model_rejects_a_layer_list_of_the_wrong_length_or_sum(void)
{
	struct config c;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "layers_per_stage", "20,20,20");
	assert_price_fails(&c, "--layers-per-stage '20,20,20': ", "gives 3 stages");
	unit_set(&c, "layers_per_stage", "20,20,20,21");
	assert_price_fails(&c, "--layers-per-stage '20,20,20,21': ", "sums to 81");
	unit_set(&c, "layers_per_stage", "20,20,20,19");
	assert_price_fails(&c, "--layers-per-stage '20,20,20,19': ", "sums to 79");
}

static void cost_model_rejects_first_and_last_stage_layers_that_leave_nothing_between(void)
{
	struct config c;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "first_stage_layers", "40");
	unit_set(&c, "last_stage_layers", "40");
	assert_price_fails(&c, "--first-stage-layers '40': ",
	                   "leaves 0 of llama3-70b's 80 layers for the 2 other stages: each needs one");
	unit_set(&c, "first_stage_layers", "50");
	assert_price_fails(&c, "--first-stage-layers '50': ",
	                   "the first and the last stage take 90 layers, llama3-70b has 80");
	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "last_stage_layers", "81");
	assert_price_fails(&c, "--last-stage-layers '81': ", "the stage takes 81 layers");
	model_config(&c, "llama3-70b", "1");
	unit_set(&c, "first_stage_layers", "80");
	assert_price_fails(&c, "--first-stage-layers '80': ", "needs more than one stage");
}

static void cost_model_rejects_tp_that_does_not_divide_the_gpus_of_a_node(void)
{
	struct config c;
	struct priced x;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "tp", "3");
	assert_price_fails(&c, "--tp '3': ", "must divide the 8 GPUs of a node");
	unit_set(&c, "tp", "16");
	assert_price_fails(&c, "--tp '16': ", "must divide the 8 GPUs of a node");
	unit_set(&c, "gpus_per_node", "16");
	/* and the key/value heads, 8 of them: a rank holds whole ones */
	assert_price_fails(&c, "--tp '16': ", "must divide the 8 key/value heads");
	unit_set(&c, "kv_heads", "16");
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.cost->model->tp, 16);
	release(&x);
}

static void cost_model_rejects_tp_that_does_not_divide_the_attention_heads(void)
{
	struct config c;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "hidden", "768");
	unit_set(&c, "heads", "12");
	unit_set(&c, "kv_heads", "12");
	unit_set(&c, "tp", "8");
	assert_price_fails(&c, "--tp '8': ", "12 heads");
}

static void cost_model_sets_dp_to_the_gpus_over_p_times_tp(void)
{
	struct config c;
	struct priced x;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "tp", "8");
	unit_set(&c, "gpus", "64");
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.cost->model->dp, 2);
	CU_ASSERT_EQUAL(x.cost->model->gpus, 64);
	release(&x);
	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "dp", "3");
	unit_set(&c, "tp", "2");
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.cost->model->dp, 3);
	CU_ASSERT_EQUAL(x.cost->model->gpus, 24);
	release(&x);
}

static void cost_model_rejects_gpus_that_p_times_tp_does_not_divide(void)
{
	struct config c;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "gpus", "10");
	assert_price_fails(&c, "--", "does not divide the 10 GPUs");
	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "tp", "8");
	unit_set(&c, "gpus", "64");
	unit_set(&c, "dp", "3");
	assert_price_fails(&c, "--dp '3': ", "disagrees");
}

/* The activation bytes of one Llama 3 70B layer with flash attention and sequence parallelism,
 * and the logits, for a micro-batch of b sequences of s: Korthikanti et al.'s count tensor by
 * tensor, 35.5 sbh / tp (per token 10h of norms' and GEMMs' inputs and dropout masks; Q and the
 * output projection's input, 2 bytes of h each, K and V of 1024; the gated MLP's 2 x 28672 wide
 * GEMM-in output and 28672 wide SwiGLU output, 2 bytes each: 10h + 4.5h + 21h). */
static double flash_layer_bytes(double s, double b, double h, double tp)
{
	return 35.5 * s * b * h / tp;
}

static double logits_bytes(double s, double b, double vocab, double tp)
{
	return 4 * s * b * vocab / tp;
}

static void cost_model_keeps_its_widths_bytes_over_tp_a_layer_and_the_logits_on_the_last_stage(void)
{
	static const char *const tps[] = {"1", "2", "8"};

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		struct config c;
		struct priced x;
		double tp = atof(tps[i]);

		model_config(&c, "llama3-70b", "4");
		unit_set(&c, "tp", tps[i]);
		x = price_ok(&c);
		ASSERT_NEAR(x.cost->model->layer_act_bytes, flash_layer_bytes(2048, 1, 8192, tp));
		for (int st = 0; st < 4; st++)
			CU_ASSERT_EQUAL(x.cost->act[st],
			                llround(20 * flash_layer_bytes(2048, 1, 8192, tp) +
			                        (st == 3 ? logits_bytes(2048, 1, 128256, tp) : 0)));
		release(&x);
	}
}

/* GPT-3 175B, the model of Korthikanti et al.'s Table 2: 34 sbh a layer exactly. DeepSeek-V3's
 * latent attention keeps its wider tensors and its compressed ones: per token 10h, the two
 * latent norms' inputs and the up projections' (2 x 2 x (1536 + 512)), Q and K of 128 heads of
 * 192, V and the output projection's input of 128 heads of 128 (2 bytes each), and its dense
 * layers' gated MLP of 18432: 354304 B, 49.4h (an expert layer takes off that MLP's 3h and
 * 110592 B and adds its own). */
static void cost_model_keeps_34sbh_for_gpt3_and_latent_attentions_own_tensors(void)
{
	struct config c;
	struct priced x;

	model_config(&c, "gpt3-175b", "4");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->layer_act_bytes, 34.0 * 2048 * 12288);
	release(&x);
	model_config(&c, "deepseek-v3", "4");
	unit_set(&c, "ep", "8");
	unit_set(&c, "dp", "8");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->layer_act_bytes,
	            2048.0 * (10 * 7168 + 4 * (1536 + 512) + 2 * (2 * 128 * 192 + 2 * 128 * 128) +
	                      2 * 3 * 18432));
	release(&x);
}

/* Without flash attention the value products (P V, dP = dO V^T, dV = P^T dO) run at the value
 * head size: DeepSeek-V3's 128 beside its keys' 192 (they ran at 192 whatever --v-head-dim). */
static void cost_model_prices_unfused_value_products_at_the_value_head_size(void)
{
	double fwd[2], bwd[2];
	static const char *const widths[] = {"64", "192"};

	for (int i = 0; i < 2; i++) {
		struct config c;
		struct priced x;

		model_config(&c, "deepseek-v3", "4");
		unit_set(&c, "ep", "8");
		unit_set(&c, "dp", "8");
		unit_set(&c, "flash_attention", "no");
		unit_set(&c, "v_head_dim", widths[i]);
		x = price_ok(&c);
		fwd[i] = x.cost->model->types[0].attn_fwd_ms;
		bwd[i] = x.cost->model->types[0].attn_bwd_ms;
		release(&x);
	}
	CU_ASSERT_TRUE(fwd[0] < fwd[1]);
	CU_ASSERT_TRUE(bwd[0] < bwd[1]);
}

/* Latent attention's down projections (h x q rank and h x (kv rank + rope)) are held whole on
 * every tensor-parallel rank: a stage of expert layers alone holds the rest of each layer over
 * tp, those whole (they were divided by tp too). */
static void cost_model_holds_latent_down_projections_whole_on_each_tp_rank(void)
{
	double params[2], whole = 7168.0 * 1536 + 7168.0 * (512 + 64), moe = 0;
	int nm = 0, nl = 0;

	for (int tp = 1; tp <= 2; tp++) {
		struct config c;
		struct priced x;
		char dp[16], tps[16];

		snprintf(tps, sizeof(tps), "%d", tp);
		snprintf(dp, sizeof(dp), "%d", 16 / tp);
		model_config(&c, "deepseek-v3", "8");
		unit_set(&c, "ep", "16");
		unit_set(&c, "dp", dp);
		unit_set(&c, "tp", tps);
		x = price_ok(&c);
		ASSERT_NEAR(x.cost->model->tp_whole_params, whole);
		params[tp - 1] = x.cost->model->device_params[1];
		moe = x.cost->model->moe_params;
		nm = x.cost->model->stage_moe[1];
		nl = x.cost->model->stage_layers[1];
		release(&x);
	}
	CU_ASSERT_EQUAL_FATAL(nm, nl); /* expert layers alone */
	ASSERT_NEAR(params[0] - params[1], nm * (moe - whole) / 2);
}

static void cost_model_keeps_the_attention_scores_without_flash_attention(void)
{
	struct config c;
	struct priced x;
	/* Korthikanti et al.: sbh(35.5 + 5as/h) with a = 64 heads, s = 2048, h = 8192 */
	double layer = 2048.0 * 8192 * (35.5 + 5.0 * 64 * 2048 / 8192) / 2;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "flash_attention", "no");
	unit_set(&c, "tp", "2");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->layer_act_bytes, layer);
	CU_ASSERT_EQUAL(x.cost->act[0], llround(20 * layer));
	CU_ASSERT_EQUAL(x.cost->act[3], llround(20 * layer + logits_bytes(2048, 1, 128256, 2)));
	release(&x);
}

/* Selective recomputation (Korthikanti et al. 2022): without flash attention, a layer keeps
 * what it keeps with flash attention, Llama 3 70B's 35.5sbh bytes (their Table 2's 34sbh for
 * GPT-3, without the 5as^2b scores) and B runs the attention core, 4bs^2h FLOPs, again. */
static void cost_model_keeps_all_but_the_scores_with_selective_recompute_and_redoes_attention(void)
{
	struct config c;
	struct priced x;
	const struct shape *m = &llama3_70b;
	double head = head_flops(m, 1, 2048), attn = 4.0 * 2048 * 2048 * 8192;

	uniform_config(&c, "llama3-70b", "4");
	unit_set(&c, "flash_attention", "no");
	unit_set(&c, "recompute", "selective");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->layer_act_bytes, 35.5 * 2048 * 8192);
	for (int st = 0; st < 4; st++) {
		double last = st == 3 ? 1 : 0;

		CU_ASSERT_DOUBLE_EQUAL(
		        (double)x.cost->t_b[st],
		        (double)ticks(compute_ms(20 * (layer_b(m, 1, 2048) + attn) + last * head,
		                                 312, 0.5)),
		        1);
		CU_ASSERT_EQUAL(
		        x.cost->t_f[st],
		        ticks(compute_ms(20 * layer_f(m, 1, 2048) + last * head, 312, 0.5)));
	}
	release(&x);
}

static void cost_model_keeps_each_layer_s_input_with_full_recompute_and_redoes_the_forward(void)
{
	struct config c;
	struct priced x;
	const struct shape *m = &llama3_70b;
	double head = head_flops(m, 1, 2048);

	uniform_config(&c, "llama3-70b", "4");
	unit_set(&c, "recompute", "full");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->layer_act_bytes, 2.0 * 2048 * 8192);
	CU_ASSERT_EQUAL(x.cost->act[1], llround(20 * 2.0 * 2048 * 8192));
	CU_ASSERT_EQUAL(x.cost->act[3],
	                llround(20 * 2.0 * 2048 * 8192 + logits_bytes(2048, 1, 128256, 1)));
	for (int st = 0; st < 4; st++) {
		double last = st == 3 ? 1 : 0;

		CU_ASSERT_EQUAL(
		        x.cost->t_f[st],
		        ticks(compute_ms(20 * layer_f(m, 1, 2048) + last * head, 312, 0.5)));
		CU_ASSERT_EQUAL(x.cost->t_b[st],
		                ticks(compute_ms(20 * (layer_b(m, 1, 2048) + layer_f(m, 1, 2048)) +
		                                         last * head,
		                                 312, 0.5)));
		CU_ASSERT_EQUAL(
		        x.cost->t_w[st],
		        ticks(compute_ms(20 * layer_w(m, 1, 2048) + last * head, 312, 0.5)));
	}
	release(&x);
}

static void cost_model_lets_w_keep_the_w_mem_fraction_of_each_stage_s_activations(void)
{
	static const char *const fractions[] = {"0", "0.25", "0.5", "1"};

	for (size_t i = 0; i < sizeof(fractions) / sizeof(fractions[0]); i++) {
		struct config c;
		struct priced x;

		model_config(&c, "llama3-70b", "4");
		unit_set(&c, "schedule", "zbh1");
		unit_set(&c, "w_mem_fraction", fractions[i]);
		x = price_ok(&c);
		for (int st = 0; st < 4; st++)
			CU_ASSERT_EQUAL(x.cost->act_w[st],
			                llround(atof(fractions[i]) * (double)x.cost->act[st]));
		CU_ASSERT_TRUE(x.cost->act[0] > 0);
		release(&x);
	}
}

static void cost_model_holds_16_bytes_a_parameter_with_the_embedding_first_and_the_head_last(void)
{
	static const char *const tps[] = {"1", "8"};

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		struct config c;
		struct priced x;
		double tp = atof(tps[i]), layers = 20 * linear_params(&llama3_70b) / tp;
		double embed = 128256.0 * 8192 / tp;

		model_config(&c, "llama3-70b", "4");
		unit_set(&c, "tp", tps[i]);
		x = price_ok(&c);
		ASSERT_NEAR(x.cost->model->device_params[0], layers + embed);
		ASSERT_NEAR(x.cost->model->device_params[1], layers);
		ASSERT_NEAR(x.cost->model->device_params[2], layers);
		ASSERT_NEAR(x.cost->model->device_params[3], layers + embed);
		for (int d = 0; d < 4; d++)
			ASSERT_NEAR(x.cost->model->device_state_bytes[d],
			            16 * x.cost->model->device_params[d]);
		release(&x);
	}
}

static void cost_model_shards_only_the_optimizer_state_over_dp_with_a_distributed_optimizer(void)
{
	struct config c;
	struct priced x;
	double middle = 20 * linear_params(&llama3_70b);

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "dp", "4");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->device_state_bytes[1], middle * 16);
	release(&x);
	unit_set(&c, "distributed_optimizer", "yes");
	x = price_ok(&c);
	/* 4 bytes of bf16 weights and gradients stay; the other 12 are split 4 ways */
	ASSERT_NEAR(x.cost->model->device_state_bytes[1], middle * (4 + 12.0 / 4));
	release(&x);
	unit_set(&c, "bytes_per_param", "18");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->device_state_bytes[1], middle * (4 + 14.0 / 4));
	release(&x);
	/* over 7 ranks each holds a whole share of the elements, as Megatron-LM pads its buffer:
	 * ceil(P / 7) of them, so the bytes are whole */
	unit_set(&c, "bytes_per_param", "16");
	unit_set(&c, "dp", "7");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->device_state_bytes[1], middle * 4 + ceil(middle / 7) * 12);
	CU_ASSERT_EQUAL(x.cost->model->device_state_bytes[1],
	                floor(x.cost->model->device_state_bytes[1]));
	release(&x);
}

static void cost_model_counts_a_tied_embedding_once_when_one_device_holds_both_ends(void)
{
	static const struct {
		const char *model, *p, *tied;
		const struct shape *shape;
		double first_copies,
		        last_copies; /* embedding matrices on the first and last device */
	} cases[] = {
	        {"gpt3-175b", "1", NULL, &gpt3_175b, 1, 1},   /* tied, one device */
	        {"gpt3-175b", "4", NULL, &gpt3_175b, 1, 1},   /* tied, one copy at each end */
	        {"gpt3-175b", "1", "no", &gpt3_175b, 2, 2},   /* untied on one device */
	        {"llama3-70b", "1", NULL, &llama3_70b, 2, 2}, /* untied, one device */
	        {"llama3-70b", "1", "yes", &llama3_70b, 1, 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct priced x;
		const struct shape *m = cases[i].shape;
		int p = atoi(cases[i].p);
		double per_device = m->layers / p * linear_params(m), embed = m->vocab * m->h;

		model_config(&c, cases[i].model, cases[i].p);
		if (cases[i].tied != NULL)
			unit_set(&c, "tied_embeddings", cases[i].tied);
		x = price_ok(&c);
		ASSERT_NEAR(x.cost->model->device_params[0],
		            per_device + cases[i].first_copies * embed);
		ASSERT_NEAR(x.cost->model->device_params[p - 1],
		            per_device + cases[i].last_copies * embed);
		release(&x);
	}
}

static void cost_model_gives_each_device_the_layers_of_all_its_chunks(void)
{
	struct config c;
	struct priced x;
	double layer = linear_params(&llama3_70b), embed = 128256.0 * 8192;

	/* interleaved p = 2, v = 2: device 0 holds stages 0 and 2, device 1 stages 1 and 3 */
	link_config(&c, "llama3-70b", "2");
	unit_set(&c, "schedule", "interleaved");
	unit_set(&c, "v", "2");
	x = price_ok(&c);
	CU_ASSERT_EQUAL_FATAL(x.cost->S, 4);
	ASSERT_NEAR(x.cost->model->device_params[0], 40 * layer + embed);
	ASSERT_NEAR(x.cost->model->device_params[1], 40 * layer + embed);
	CU_ASSERT_EQUAL(x.cost->act[2], llround(20 * flash_layer_bytes(2048, 1, 8192, 1)));
	CU_ASSERT_EQUAL(x.cost->act[3], llround(20 * flash_layer_bytes(2048, 1, 8192, 1) +
	                                        logits_bytes(2048, 1, 128256, 1)));
	CU_ASSERT_EQUAL(x.cost->t_f[1], x.cost->t_f[2]);
	CU_ASSERT_TRUE(x.cost->t_f[3] > x.cost->t_f[2]);
	/* the hop from the last device back to the first, stage 1 to 2, is a message too */
	for (int st = 0; st < 3; st++) {
		CU_ASSERT_EQUAL(x.cost->msg_bytes[st], UINT64_C(33554432));
		CU_ASSERT_EQUAL(x.cost->msg_time[st], ticks(transfer_ms(33554432, 300, 3)));
	}
	release(&x);
}

static void cost_model_rejects_heads_that_do_not_divide_the_hidden_size_or_by_the_kv_heads(void)
{
	struct config c;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "heads", "48");
	assert_price_fails(&c, "--heads '48': ", "the hidden size 8192 is not a multiple of the 48");
	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "kv_heads", "5");
	assert_price_fails(&c, "--kv-heads '5': ", "the 64 heads are not a multiple of the 5 key/value");
}

static void cost_model_rejects_fewer_than_4_bytes_a_parameter(void)
{
	struct config c;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "bytes_per_param", "2");
	assert_price_fails(&c, "--bytes-per-param '2': ", "at least 4");
}

/* A GEMM by hand: 128 x 256 tiles over 108 SMs in waves, at 0.8 of 312 TFLOP/s, at least its
 * three bf16 matrices at 0.85 of 2039 GB/s, plus 4 us. */
static double gemm_ms(double m, double n, double k)
{
	double tiles = ceil(m / 128) * ceil(n / 256), waves = ceil(tiles / 108);
	double math = 2 * ceil(m / 128) * 128 * ceil(n / 256) * 256 * k /
	              (312e12 * 0.8 * tiles / (waves * 108)) * 1e3;
	double memory = 2 * (m * k + k * n + m * n) / (2039e9 * 0.85) * 1e3;

	return (math > memory ? math : memory) + 0.004;
}

/* A memory-bound kernel by hand: bytes at 0.85 of 2039 GB/s, plus 4 us. */
static double memory_ms(double bytes)
{
	return bytes / (2039e9 * 0.85) * 1e3 + 0.004;
}

static void cost_model_prices_each_kernel_of_a_layer_at_an_efficiency_of_0(void)
{
	struct config c;
	struct priced x;
	/* a small GPT: h = 1024, 8 heads, plain MLP of 4096, s = 1024, b = 1, on the A100 preset
	 * (0.8 GEMM, 0.6 and 0.5 flash attention, 0.85 memory, 4 us a kernel, 108 SMs) */
	double t = 1024, h = 1024, f = 4096, V = 32000, attn = 4 * t * t * h / 2;
	double F = gemm_ms(t, 3 * h, h) + gemm_ms(t, h, h) + gemm_ms(t, f, h) + gemm_ms(t, h, f);
	double B = gemm_ms(t, h, 3 * h) + gemm_ms(t, h, h) + gemm_ms(t, h, f) + gemm_ms(t, f, h);
	double W = gemm_ms(h, 3 * h, t) + gemm_ms(h, h, t) + gemm_ms(h, f, t) + gemm_ms(f, h, t);
	/* two norms (2h a token) and two residual adds (3h), the GELU (2f), bf16 */
	double mem = 2 * memory_ms(2 * t * 2 * h) + 2 * memory_ms(2 * t * 3 * h) +
	             memory_ms(2 * t * 2 * f);
	double mem2 = 2 * memory_ms(2 * 2 * t * 2 * h) + 2 * memory_ms(2 * 2 * t * 3 * h) +
	              memory_ms(2 * 2 * t * 2 * f);

	F += attn / (312e12 * 0.6) * 1e3 + 0.004 + mem;
	B += 2.5 * attn / (312e12 * 0.5) * 1e3 + 0.004 + mem2;
	model_config(&c, "gpt3-175b", "2");
	unit_set(&c, "layers", "2");
	unit_set(&c, "hidden", "1024");
	unit_set(&c, "heads", "8");
	unit_set(&c, "kv_heads", "8");
	unit_set(&c, "ffn", "4096");
	unit_set(&c, "vocab", "32000");
	unit_set(&c, "seq", "1024");
	unit_set(&c, "efficiency", "0");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->types[0].layer_ms.f, F);
	ASSERT_NEAR(x.cost->model->types[0].layer_ms.b, B);
	ASSERT_NEAR(x.cost->model->types[0].layer_ms.w, W);
	/* the head: one GEMM of h x V each way, and Megatron-Core's unfused cross entropy over the
	 * logits: forward the cast to fp32 (2 + 4 bytes a logit), max (4), subtraction (4 + 4), exp
	 * (4 + 4), sum (4) and division (4 + 4); backward the scaling (4 + 4) and the cast back
	 * (4 + 2) */
	ASSERT_NEAR(x.cost->model->types[0].head_ms.f,
	            gemm_ms(t, V, h) + memory_ms((6 + 4 + 8 + 8 + 4 + 8) * t * V));
	ASSERT_NEAR(x.cost->model->types[0].head_ms.b,
	            gemm_ms(t, h, V) + memory_ms((8 + 6) * t * V));
	ASSERT_NEAR(x.cost->model->types[0].head_ms.w, gemm_ms(h, V, t));
	CU_ASSERT_EQUAL(x.cost->t_f[0], ticks(F));
	CU_ASSERT_EQUAL(x.cost->t_w[1], ticks(W + gemm_ms(h, V, t)));
	release(&x);
	/* W, its GEMMs alone, is under F: measured W is 0.5-0.75 of F (Qi et al. 2024, Table 9) */
	CU_ASSERT_TRUE(W < 0.8 * F);
}

static void cost_model_gives_each_gpu_the_memory_of_its_preset_or_of_the_override(void)
{
	struct config c;
	struct priced x;

	model_config(&c, "llama3-70b", "4");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->types[0].capacity_bytes, 80e9);
	release(&x);
	unit_set(&c, "gpu", "h200");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->types[0].capacity_bytes, 141e9);
	ASSERT_NEAR(x.cost->model->types[0].hw.tflops, 989);
	release(&x);
	unit_set(&c, "gpu_memory", "40");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->types[0].capacity_bytes, 40e9);
	release(&x);
}

static void cost_model_counts_a_step_s_model_flops_and_tokens_over_all_replicas(void)
{
	struct config c;
	struct priced x;
	const struct shape *m = &llama3_70b;
	double per_mb = 80 * (layer_f(m, 2, 2048) + layer_b(m, 2, 2048) + layer_w(m, 2, 2048)) +
	                3 * head_flops(m, 2, 2048);

	/* m = 8, mbs = 2, dp = 3; full recompute adds hardware FLOPs but no model FLOPs */
	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "mbs", "2");
	unit_set(&c, "dp", "3");
	unit_set(&c, "recompute", "full");
	x = price_ok(&c);
	CU_ASSERT_DOUBLE_EQUAL(x.cost->model->step_flops, per_mb * 8 * 3, per_mb * 1e-12);
	ASSERT_NEAR(x.cost->model->tokens_per_step, 8.0 * 2 * 2048 * 3);
	ASSERT_NEAR(x.cost->model->samples_per_step, 8.0 * 2 * 3);
	CU_ASSERT_EQUAL(x.cost->model->gpus, 12);
	release(&x);
}

/* cost_scale_stages over the layout of s. */
static int scale_stages(struct cost *k, const struct config *c, const struct sched *s,
                        struct pp_error *err)
{
	struct cost_layout layout = cost_layout_of(s);

	return cost_scale_stages(k, c, &layout, err);
}

static void cost_scale_stages_multiplies_each_device_s_stages_by_its_factor(void)
{
	struct config c;
	struct sched *s = sched_alloc(4, 2, 1, false, PLACE_LOOP);
	struct cost *k;
	struct pp_error err = {0};

	/* loop placement, p=4, v=2: stage st is on device st % 4 */
	config_init(&c);
	c.v = 2;
	unit_set(&c, "stage_scale", "1,2,0.5,1.5");
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL(scale_stages(k, &c, s, &err), 0);
	for (int st = 0; st < 8; st++) {
		static const double f[4] = {1, 2, 0.5, 1.5};

		CU_ASSERT_EQUAL(k->t_f[st], (pp_time)llround(1000000 * f[st % 4]));
		CU_ASSERT_EQUAL(k->t_b[st], (pp_time)llround(1000000 * f[st % 4]));
		CU_ASSERT_EQUAL(k->t_w[st], (pp_time)llround(1000000 * f[st % 4]));
		/* memory and messages keep their prices */
		CU_ASSERT_EQUAL(k->act[st], k->act[0]);
	}
	CU_ASSERT_FALSE(cost_uniform(k));
	cost_free(k);
	sched_free(s);
}

static void cost_scale_stages_per_device_follows_the_v_placement_not_stage_mod_p(void)
{
	struct config c;
	struct sched *s = sched_alloc(4, 2, 1, true, PLACE_V);
	struct cost *k;
	struct pp_error err = {0};
	/* V placement, p=4: stages 0..3 on devices 0..3, stages 4..7 on devices 3..0 */
	static const double f[8] = {1, 2, 3, 4, 4, 3, 2, 1};

	config_init(&c);
	c.v = 2;
	unit_set(&c, "stage_scale", "1,2,3,4");
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL(scale_stages(k, &c, s, &err), 0);
	for (int st = 0; st < 8; st++) {
		CU_ASSERT_EQUAL(k->t_f[st], (pp_time)llround(1000000 * f[st]));
		ASSERT_NEAR(config_stage_scale(&c, st, (int)s->stage_device[st]), f[st]);
	}
	cost_free(k);
	sched_free(s);
}

static void cost_scale_stages_per_stage_multiplies_each_virtual_stage(void)
{
	struct config c;
	struct sched *s = sched_alloc(2, 2, 1, true, PLACE_V);
	struct cost *k;
	struct pp_error err = {0};

	config_init(&c);
	c.p = 2;
	c.v = 2;
	c.t_f = 2;
	c.t_b = 4;
	c.t_w = 1;
	unit_set(&c, "stage_scale", "1,1.5,2,3");
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL(scale_stages(k, &c, s, &err), 0);
	for (int st = 0; st < 4; st++) {
		static const double f[4] = {1, 1.5, 2, 3};

		/* a chunk op of t/v = 1, 2 and 0.5 units, scaled */
		ASSERT_NEAR(pp_time_to_units(k->t_f[st], k->tick), 1 * f[st]);
		ASSERT_NEAR(pp_time_to_units(k->t_b[st], k->tick), 2 * f[st]);
		ASSERT_NEAR(pp_time_to_units(k->t_w[st], k->tick), 0.5 * f[st]);
	}
	cost_free(k);
	sched_free(s);
}

static void cost_scale_stages_leaves_costs_alone_without_factors(void)
{
	struct config c;
	struct sched *s = sched_alloc(3, 1, 1, false, PLACE_LOOP);
	struct cost *k;
	struct pp_error err = {0};

	config_init(&c);
	c.p = 3;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL(scale_stages(k, &c, s, &err), 0);
	for (int st = 0; st < 3; st++) {
		CU_ASSERT_EQUAL(k->t_f[st], 1000000);
		ASSERT_NEAR(config_stage_scale(&c, st, st), 1);
	}
	CU_ASSERT_TRUE(cost_uniform(k));
	cost_free(k);
	sched_free(s);
}

static void cost_scale_stages_rejects_a_factor_that_makes_an_op_too_long(void)
{
	struct config c;
	struct sched *s = sched_alloc(1, 1, 1, false, PLACE_LOOP);
	struct cost *k;
	struct pp_error err = {0};

	/* 1e9 units of 1e6 ticks times 1e6 is far above PP_TIME_TOTAL_MAX */
	config_init(&c);
	c.p = 1;
	c.t_f = 1e9;
	unit_set(&c, "stage_scale", "1000000");
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_EQUAL(scale_stages(k, &c, s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_EQUAL(strncmp(err.msg, "--stage-scale '", 15), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "makes stage 0's ops take too long"));
	cost_free(k);
	sched_free(s);
}

static void cost_scale_stages_multiplies_model_costs_too(void)
{
	struct config c;
	struct priced plain, scaled;
	struct pp_error err = {0};

	model_config(&c, "llama3-70b", "4");
	plain = price_ok(&c);
	unit_set(&c, "stage_scale", "1,1,1,2");
	scaled = price_ok(&c);
	CU_ASSERT_EQUAL(scale_stages(scaled.cost, &c, scaled.sched, &err), 0);
	for (int st = 0; st < 4; st++) {
		pp_time f = st == 3 ? 2 : 1;

		CU_ASSERT(llabs(scaled.cost->t_f[st] - f * plain.cost->t_f[st]) <= 1);
		CU_ASSERT(llabs(scaled.cost->t_b[st] - f * plain.cost->t_b[st]) <= 1);
		CU_ASSERT(llabs(scaled.cost->t_w[st] - f * plain.cost->t_w[st]) <= 1);
		CU_ASSERT_EQUAL(scaled.cost->msg_time[st], plain.cost->msg_time[st]);
	}
	release(&plain);
	release(&scaled);
}

/* The per-kernel coefficients as overridden below: 100 TFLOP/s, 54 SMs, GEMMs at 0.5, flash
 * attention at 0.25 and 0.2, memory at all of 1000 GB/s, no time per kernel. */
static double gemm_overridden(double m, double n, double k)
{
	double tiles = ceil(m / 128) * ceil(n / 256), waves = ceil(tiles / 54);
	double math = 2 * m * n * k / (100e12 * 0.5 * tiles / (waves * 54)) * 1e3;
	double memory = 2 * (m * k + k * n + m * n) / 1000e9 * 1e3;

	return math > memory ? math : memory;
}

/* A gpt3-175b of 2 layers of hidden 1024 on 2 stages, priced per kernel with the coefficients
 * gemm_overridden takes. */
static void overridden_config(struct config *c)
{
	static const char *const set[][2] = {
	        {"layers", "2"},
	        {"hidden", "1024"},
	        {"heads", "8"},
	        {"kv_heads", "8"},
	        {"ffn", "4096"},
	        {"vocab", "32000"},
	        {"seq", "1024"},
	        {"efficiency", "0"},
	        {"tflops", "100"},
	        {"sms", "54"},
	        {"gemm_efficiency", "0.5"},
	        {"attention_efficiency", "0.25"},
	        {"attention_bwd_efficiency", "0.2"},
	        {"memory_efficiency", "1"},
	        {"memory_bandwidth", "1000"},
	        {"kernel_overhead", "0"},
	};

	model_config(c, "gpt3-175b", "2");
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		unit_set(c, set[i][0], set[i][1]);
}

static void cost_model_takes_each_per_kernel_coefficient_from_its_override(void)
{
	struct config c;
	struct priced x;
	double t = 1024, h = 1024, f = 4096, attn = 4 * t * t * h / 2;
	double F = gemm_overridden(t, 3 * h, h) + gemm_overridden(t, h, h) +
	           gemm_overridden(t, f, h) + gemm_overridden(t, h, f);
	double W = gemm_overridden(h, 3 * h, t) + gemm_overridden(h, h, t) +
	           gemm_overridden(h, f, t) + gemm_overridden(f, h, t);
	/* norms and residual adds (10h a token), the GELU (2f), bf16, at 1000 GB/s */
	double mem = 2 * t * (10 * h + 2 * f) / 1000e9 * 1e3;

	overridden_config(&c);
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.cost->model->types[0].hw.sms, 54);
	ASSERT_NEAR(x.cost->model->types[0].layer_ms.w, W);
	ASSERT_NEAR(x.cost->model->types[0].layer_ms.f, F + attn / (100e12 * 0.25) * 1e3 + mem);
	ASSERT_NEAR(x.cost->model->types[0].attn_fwd_ms, attn / (100e12 * 0.25) * 1e3);
	/* B: its GEMMs, 2.5 times the attention at 0.2, twice the memory traffic */
	ASSERT_NEAR(x.cost->model->types[0].layer_ms.b,
	            gemm_overridden(t, h, 3 * h) + gemm_overridden(t, h, h) +
	                    gemm_overridden(t, h, f) + gemm_overridden(t, f, h) +
	                    2.5 * attn / (100e12 * 0.2) * 1e3 + 2 * mem);
	release(&x);
}

/* An fp8 GEMM by hand on the h100-sxm preset: 128 x 256 tiles over 132 SMs in waves, at 0.71
 * of 1979 TFLOP/s times the 0.75 a training step sustains, at least its fp8 inputs and bf16
 * output at 0.85 of 3350 GB/s, plus 4 us. */
static double fp8_gemm_ms(double m, double n, double k)
{
	double tiles = ceil(m / 128) * ceil(n / 256), waves = ceil(tiles / 132);
	double math = 2 * m * n * k / (1979e12 * 0.71 * 0.75 * tiles / (waves * 132)) * 1e3;
	double memory = (m * k + k * n + 2 * m * n) / (3350e9 * 0.85) * 1e3;

	return (math > memory ? math : memory) + 0.004;
}

/* The bf16 GEMM of fp8_gemm_ms's shape on the h100-sxm preset: 0.80 of 989 TFLOP/s, 0.75 of
 * that sustained. */
static double h100_gemm_ms(double m, double n, double k)
{
	double tiles = ceil(m / 128) * ceil(n / 256), waves = ceil(tiles / 132);
	double math = 2 * ceil(m / 128) * 128 * ceil(n / 256) * 256 * k /
	              (989e12 * 0.8 * 0.75 * tiles / (waves * 132)) * 1e3;
	double memory = 2 * (m * k + k * n + m * n) / (3350e9 * 0.85) * 1e3;

	return (math > memory ? math : memory) + 0.004;
}

/* A memory-bound kernel by hand on the h100-sxm preset: bytes at 0.85 of 3350 GB/s, plus 4 us. */
static double h100_memory_ms(double bytes)
{
	return bytes / (3350e9 * 0.85) * 1e3 + 0.004;
}

/* The small GPT of cost_model_prices_each_kernel_of_a_layer_at_an_efficiency_of_0 on h100-sxm. */
static void small_gpt_on_h100(struct config *c, const char *fp8)
{
	model_config(c, "gpt3-175b", "2");
	unit_set(c, "layers", "2");
	unit_set(c, "hidden", "1024");
	unit_set(c, "heads", "8");
	unit_set(c, "kv_heads", "8");
	unit_set(c, "ffn", "4096");
	unit_set(c, "vocab", "32000");
	unit_set(c, "seq", "1024");
	unit_set(c, "efficiency", "0");
	unit_set(c, "gpu", "h100-sxm");
	unit_set(c, "fp8", fp8);
}

static void cost_model_runs_the_linear_gemms_at_the_fp8_peak_with_their_casts(void)
{
	struct config c;
	struct priced bf, x;
	double t = 1024, h = 1024, f = 4096, V = 32000;
	/* the QKV GEMM forward by hand: 8 x 12 = 96 tiles, one wave of 132 SMs, 2 t 3h h FLOPs
	 * at 0.71 x 0.75 x 1979 x 96/132 TFLOP/s = 8.406 us, above its 3.682 us of memory; + 4
	 * us */
	double qkv = fp8_gemm_ms(t, 3 * h, h);
	/* the four GEMMs (K in, N out) forward, backward and weight-gradient, in fp8 less bf16;
	 * the casts: forward the t x K input, backward the t x N gradient, 3 bytes an element
	 * (bf16 read, fp8 written), W the transposes of both, 2 bytes an element */
	double K[4] = {h, h, h, f}, N[4] = {3 * h, h, f, h}, dF = 0, dB = 0, W = 0;

	for (int i = 0; i < 4; i++) {
		dF += fp8_gemm_ms(t, N[i], K[i]) + h100_memory_ms(3 * t * K[i]) -
		      h100_gemm_ms(t, N[i], K[i]);
		dB += fp8_gemm_ms(t, K[i], N[i]) + h100_memory_ms(3 * t * N[i]) -
		      h100_gemm_ms(t, K[i], N[i]);
		W += fp8_gemm_ms(K[i], N[i], t) + h100_memory_ms(2 * t * (K[i] + N[i]));
	}
	CU_ASSERT_DOUBLE_EQUAL(qkv, 0.0124060, 1e-7);
	small_gpt_on_h100(&c, "no");
	bf = price_ok(&c);
	small_gpt_on_h100(&c, "yes");
	x = price_ok(&c);
	CU_ASSERT_TRUE(x.cost->model->fp8);
	ASSERT_NEAR(x.cost->model->types[0].hw.fp8_tflops, 1979);
	ASSERT_NEAR(x.cost->model->types[0].hw.fp8_gemm_efficiency, 0.71);
	ASSERT_NEAR(x.cost->model->types[0].layer_ms.f, bf.cost->model->types[0].layer_ms.f + dF);
	ASSERT_NEAR(x.cost->model->types[0].layer_ms.b, bf.cost->model->types[0].layer_ms.b + dB);
	ASSERT_NEAR(x.cost->model->types[0].layer_ms.w, W);
	/* attention and the LM head stay in bf16 */
	ASSERT_NEAR(x.cost->model->types[0].attn_fwd_ms, bf.cost->model->types[0].attn_fwd_ms);
	ASSERT_NEAR(x.cost->model->types[0].head_ms.w, h100_gemm_ms(h, V, t));
	ASSERT_NEAR(x.cost->model->types[0].head_ms.f, bf.cost->model->types[0].head_ms.f);
	/* the fp8 copy of the weights: one byte a parameter, for the memory to count */
	ASSERT_NEAR(x.cost->model->fp8_weight_bytes, 1);
	ASSERT_NEAR(bf.cost->model->fp8_weight_bytes, 0);
	/* ... of each device's layer (12 h^2 parameters), not of the embedding (device 0) nor the
	 * head (device 1), which are no TE layers */
	for (int d = 0; d < 2; d++)
		ASSERT_NEAR(x.cost->model->device_state_bytes[d] - bf.cost->model->device_state_bytes[d],
		            12 * h * h);
	CU_ASSERT_TRUE(x.cost->model->types[0].layer_ms.f < bf.cost->model->types[0].layer_ms.f);
	release(&bf);
	release(&x);
}

static void cost_model_refuses_fp8_on_a_gpu_without_it_or_with_a_uniform_efficiency(void)
{
	struct config c;
	struct priced x;

	small_gpt_on_h100(&c, "yes");
	unit_set(&c, "gpu", "a100-80g");
	assert_price_fails(&c, "--fp8 'yes': ", "the GPU a100-80g has no fp8 tensor cores");
	/* an fp8 peak and efficiency given make it one */
	unit_set(&c, "fp8_tflops", "624");
	unit_set(&c, "fp8_gemm_efficiency", "0.5");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->types[0].hw.fp8_tflops, 624);
	release(&x);
	small_gpt_on_h100(&c, "yes");
	unit_set(&c, "efficiency", "0.5");
	assert_price_fails(&c, "--fp8 'yes': ", "not with a uniform efficiency");
}

static void cost_model_prices_the_unfused_attention_s_forward_bytes_per_score(void)
{
	struct config c;
	struct priced a, b;
	/* one sequence of 1024 tokens, 8 heads: 8 x 1024^2 scores, 15 bytes each at 1000 GB/s */
	double extra = 15 * 8 * 1024.0 * 1024 / 1000e9 * 1e3;

	overridden_config(&c);
	unit_set(&c, "flash_attention", "no");
	unit_set(&c, "unfused_attention_bytes", "0");
	a = price_ok(&c);
	unit_set(&c, "unfused_attention_bytes", "15");
	b = price_ok(&c);
	ASSERT_NEAR(b.cost->model->types[0].layer_ms.f - a.cost->model->types[0].layer_ms.f, extra);
	ASSERT_NEAR(b.cost->model->types[0].attn_fwd_ms - a.cost->model->types[0].attn_fwd_ms, extra);
	ASSERT_NEAR(b.cost->model->types[0].layer_ms.b, a.cost->model->types[0].layer_ms.b);
	ASSERT_NEAR(b.cost->model->unfused_attention_bytes, 15);
	release(&a);
	release(&b);
	/* the default is the fitted 15 */
	config_init(&c);
	overridden_config(&c);
	unit_set(&c, "flash_attention", "no");
	a = price_ok(&c);
	ASSERT_NEAR(a.cost->model->unfused_attention_bytes, 15);
	release(&a);
}

/* A partial tile takes a whole tile's time: on an A100 (108 SMs, 0.8 of 312 TFLOP/s), 2056
 * tokens by 4096 by 4096 are 17 x 16 = 272 tiles of 128 x 256 in 3 waves, 2 x 2176 x 4096 x
 * 4096 padded FLOPs at 272/324 of the rate; and more work never takes less (2056 rows once ran faster than
 * 2048, whose 256 tiles fill fewer of their waves' slots). */
static void kernel_gemm_pads_partial_tiles_and_more_work_never_takes_less(void)
{
	struct cost_gpu g = {.tflops = 312, .memory_bandwidth = 2039, .sms = 108,
	                     .gemm_efficiency = 0.8, .memory_efficiency = 0.85,
	                     .kernel_overhead = 0, .sustained = 1};
	double want = 2.0 * 2176 * 4096 * 4096 / (312e12 * 0.8 * 272 / 324) * 1e3;
	double last = 0;

	ASSERT_NEAR(kernel_gemm_ms(&g, 2056, 4096, 4096, 2), want);
	/* a head's 96 columns take a tile of 128 (8 tiles, one wave of 108 slots) */
	ASSERT_NEAR(kernel_gemm_ms(&g, 1024, 96, 4096, 2),
	            108 * 2.0 * 128 * 128 * 4096 / (312e12 * 0.8) * 1e3);
	for (int m = 1; m <= 4096; m += 7) {
		double t = kernel_gemm_ms(&g, m, 4096, 4096, 2);

		CU_ASSERT_TRUE(t >= last);
		last = t;
	}
	last = 0;
	for (int n = 1; n <= 8192; n += 13) {
		double t = kernel_gemm_ms(&g, 1024, n, 4096, 2);

		CU_ASSERT_TRUE(t >= last);
		last = t;
	}
}

static void cost_model_prices_the_loss_by_its_bytes_per_logit_as_each_framework_runs_it(void)
{
	struct config c;
	struct priced a, b;
	/* overridden_config's head: 1024 tokens by a vocabulary of 32000 at 1000 GB/s; each byte a
	 * logit is 1024 x 32000 bytes */
	double per_byte = 1024 * 32000.0 / 1000e9 * 1e3;
	const struct {
		const char *framework;
		double f, b;
	} cases[] = {{"", 38, 14}, {"megatron", 38, 14}, {"deepspeed", 38, 14},
	             {"nemo", 22, 10}, {"torchtitan", 22, 26}};

	overridden_config(&c);
	unit_set(&c, "loss_bytes", "0");
	unit_set(&c, "loss_bwd_bytes", "0");
	a = price_ok(&c);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		config_init(&c);
		overridden_config(&c);
		if (cases[i].framework[0] != '\0')
			unit_set(&c, "framework", cases[i].framework);
		b = price_settled(&c);
		ASSERT_NEAR(b.cost->model->loss_bytes, cases[i].f);
		ASSERT_NEAR(b.cost->model->loss_bwd_bytes, cases[i].b);
		ASSERT_NEAR(b.cost->model->types[0].head_ms.f - a.cost->model->types[0].head_ms.f,
		            cases[i].f * per_byte);
		ASSERT_NEAR(b.cost->model->types[0].head_ms.b - a.cost->model->types[0].head_ms.b,
		            cases[i].b * per_byte);
		ASSERT_NEAR(b.cost->model->types[0].head_ms.w, a.cost->model->types[0].head_ms.w);
		release(&b);
	}
	release(&a);
	/* an option given wins over the framework's */
	config_init(&c);
	overridden_config(&c);
	unit_set(&c, "framework", "torchtitan");
	unit_set(&c, "loss_bwd_bytes", "3");
	b = price_settled(&c);
	ASSERT_NEAR(b.cost->model->loss_bytes, 22);
	ASSERT_NEAR(b.cost->model->loss_bwd_bytes, 3);
	release(&b);
}

static void cost_model_runs_norms_on_every_token_of_each_tp_rank_without_sequence_parallelism(void)
{
	struct config c;
	struct priced sp, no;
	/* tp 2: the norms and residual adds move 2 x 1024 x 10h bytes forward, all of them on each
	 * rank without sequence parallelism, half with it; the backward twice that */
	double half = 2 * 1024.0 * 10 * 1024 / 2 / 1000e9 * 1e3;

	overridden_config(&c);
	unit_set(&c, "tp", "2");
	sp = price_ok(&c);
	unit_set(&c, "sequence_parallel", "no");
	no = price_ok(&c);
	ASSERT_NEAR(no.cost->model->types[0].layer_ms.f - sp.cost->model->types[0].layer_ms.f, half);
	ASSERT_NEAR(no.cost->model->types[0].layer_ms.b - sp.cost->model->types[0].layer_ms.b, 2 * half);
	ASSERT_NEAR(no.cost->model->types[0].layer_ms.w, sp.cost->model->types[0].layer_ms.w);
	/* activations with flash attention: 34 sbh / tp with it, sbh (10 + 24 / tp) without */
	ASSERT_NEAR(sp.cost->model->layer_act_bytes, 34 * 1024.0 * 1024 / 2);
	ASSERT_NEAR(no.cost->model->layer_act_bytes, 1024.0 * 1024 * (10 + 12));
	release(&sp);
	release(&no);
	/* full recomputation keeps the layer input: 2 sbh, split only with sequence parallelism */
	unit_set(&c, "recompute", "full");
	no = price_ok(&c);
	ASSERT_NEAR(no.cost->model->layer_act_bytes, 2 * 1024.0 * 1024);
	release(&no);
}

static void cost_model_gives_a_hop_between_nodes_its_link_s_whole_bandwidth(void)
{
	struct config c;
	struct priced x;

	/* tp = 8: every hop is between nodes; --p2p-efficiency is the inside-node link's share */
	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "tp", "8");
	unit_set(&c, "p2p_overhead", "234");
	unit_set(&c, "p2p_efficiency", "0.24");
	x = price_ok(&c);
	for (int st = 0; st < 3; st++)
		CU_ASSERT_EQUAL(x.cost->msg_time[st], ticks(transfer_ms(4194304, 25, 5 + 234)));
	ASSERT_NEAR(x.cost->model->hop_bandwidth[0], 25);
	release(&x);
}

static void cost_collective_prices_ring_all_reduce_and_reduce_scatter_inside_and_across_nodes(void)
{
	/*
	 * 1 GB over 8 GPUs. Inside a node (NVLink3, 300 GB/s, 3 us): an all-reduce takes 14 steps
	 * of 1/8 GB, 14 x 3 us + 14/8 x 1e9 / 300e9 s = 0.042 + 5.833333.. ms; a reduce-scatter
	 * (and an all-gather, and an all-to-all) 7 steps, 0.021 + 2.916666.. ms. Across nodes
	 * (InfiniBand HDR, 25 GB/s, 5 us): 0.070 + 70 ms and 0.035 + 35 ms.
	 */
	ASSERT_NEAR(cost_collective_ms(COLL_ALLREDUCE, 1e9, 8, 300, 3), 0.042 + 17.5 / 3);
	ASSERT_NEAR(cost_allreduce_ms(1e9, 8, 300, 3), 0.042 + 17.5 / 3);
	ASSERT_NEAR(cost_collective_ms(COLL_REDUCE_SCATTER, 1e9, 8, 300, 3), 0.021 + 8.75 / 3);
	ASSERT_NEAR(cost_collective_ms(COLL_ALLGATHER, 1e9, 8, 300, 3), 0.021 + 8.75 / 3);
	ASSERT_NEAR(cost_collective_ms(COLL_ALLTOALL, 1e9, 8, 300, 3), 0.021 + 8.75 / 3);
	ASSERT_NEAR(cost_collective_ms(COLL_ALLREDUCE, 1e9, 8, 25, 5), 70.07);
	ASSERT_NEAR(cost_collective_ms(COLL_REDUCE_SCATTER, 1e9, 8, 25, 5), 35.035);
	/* two GPUs: one step each way, the whole buffer's half per step */
	ASSERT_NEAR(cost_collective_ms(COLL_ALLREDUCE, 1e9, 2, 25, 5), 0.010 + 40);
	ASSERT_NEAR(cost_collective_ms(COLL_REDUCE_SCATTER, 1e9, 2, 25, 5), 0.005 + 20);
	/* one GPU has nothing to exchange */
	ASSERT_NEAR(cost_collective_ms(COLL_ALLREDUCE, 1e9, 1, 25, 5), 0);
	ASSERT_NEAR(cost_collective_ms(COLL_REDUCE_SCATTER, 1e9, 1, 25, 5), 0);
}

/* Llama 3 8B cut to four layers on two stages, on A100s: small enough to price quickly. */
static void small_config(struct config *c, const char *p)
{
	model_config(c, "llama3-8b", p);
	unit_set(c, "layers", "4");
}

static void cost_model_reduces_gradients_over_dp_on_nvlink_inside_a_node_and_infiniband_across(void)
{
	/*
	 * Each device of p = 2 holds 2 layers of 2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x 14336
	 * = 218103808 parameters and the embedding or the LM head, 128256 x 4096 = 525336576:
	 * 961544192 parameters, 3846176768 fp32 gradient bytes (--grad-reduce-bytes 4, the
	 * default), all-reduced over dp = 2 in 2 steps of half of them. Inside a node at 0.8 x 300
	 * GB/s: 3846176768 / 240e9 s + 2 x 3 us = 16.02573653.. + 0.006 ms; with one GPU a node,
	 * one network port on InfiniBand HDR at 0.8 x 25 GB/s: 3846176768 / 20e9 s + 2 x 5 us =
	 * 192.3088384 + 0.010 ms. The gradients go after the last op (no overlap by default): one
	 * hook of that time on each device.
	 */
	static const struct {
		const char *gpus_per_node;
		double ms;
	} cases[] = {{"8", 3846176768 / 240e6 + 0.006}, {"1", 192.3088384 + 0.010}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct priced x;

		small_config(&c, "2");
		unit_set(&c, "dp", "2");
		unit_set(&c, "gpus_per_node", cases[i].gpus_per_node);
		x = price_ok(&c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(x.cost->pieces);
		for (int d = 0; d < 2; d++) {
			ASSERT_NEAR(x.cost->model->device_params[d], 961544192.0);
			CU_ASSERT_EQUAL_FATAL(x.cost->pieces->after[d].n, 1);
			CU_ASSERT_EQUAL(x.cost->pieces->after[d].h[0].kind, COMM_DP);
			CU_ASSERT_EQUAL(x.cost->pieces->after[d].h[0].dur, ticks(cases[i].ms));
			CU_ASSERT_EQUAL(x.cost->pieces->grads[d].n, 0);
		}
		release(&x);
	}
}

static void cost_model_all_reduces_tied_embeddings_between_the_first_and_last_stage(void)
{
	/*
	 * gpt3-175b ties its embeddings. On p = 2 with dp = 1, devices 0 and 1 each hold a copy:
	 * 50257 x 12288 = 617558016 parameters, 2470232064 fp32 gradient bytes, all-reduced
	 * between the two in 2 steps of half of them after the flush. Inside a node, NVLink 3 at
	 * 0.8 x 300 GB/s: 2470232064 / 240e9 s + 2 x 3 us; one GPU a node, InfiniBand HDR at 0.8
	 * x 25 GB/s: 2470232064 / 20e9 s + 2 x 5 us.
	 */
	static const struct {
		const char *gpus_per_node;
		double ms;
	} cases[] = {{"8", 2470232064 / 240e6 + 0.006}, {"1", 2470232064 / 20e6 + 0.010}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct priced x;

		model_config(&c, "gpt3-175b", "2");
		unit_set(&c, "layers", "2");
		unit_set(&c, "gpus_per_node", cases[i].gpus_per_node);
		x = price_ok(&c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(x.cost->pieces);
		for (int d = 0; d < 2; d++) {
			CU_ASSERT_EQUAL_FATAL(x.cost->pieces->after[d].n, 1);
			CU_ASSERT_EQUAL(x.cost->pieces->after[d].h[0].kind, COMM_DP);
			CU_ASSERT_EQUAL(x.cost->pieces->after[d].h[0].dur, ticks(cases[i].ms));
		}
		release(&x);
	}

	/* untied, or both copies on one device (the V placement), there is nothing to reduce */
	{
		struct config c;
		struct priced x;

		model_config(&c, "gpt3-175b", "2");
		unit_set(&c, "layers", "2");
		unit_set(&c, "tied_embeddings", "no");
		x = price_ok(&c);
		CU_ASSERT_PTR_NULL(x.cost->pieces);
		release(&x);
		model_config(&c, "gpt3-175b", "2");
		unit_set(&c, "layers", "4");
		unit_set(&c, "schedule", "zbv");
		unit_set(&c, "v", "2");
		x = price_ok(&c);
		CU_ASSERT_PTR_NULL(x.cost->pieces);
		release(&x);
	}
}

static void cost_model_prices_a_cp_ring_step_as_one_block_of_keys_and_values_per_tp_rank(void)
{
	struct config c;
	struct priced x;
	/*
	 * seq 2048 over cp = 2: blocks of 1024 tokens; 8 kv heads of 128, keys and values, bf16,
	 * split over tp = 2: 2 x 1024 x 8 x 128 x 2 / 2 = 2097152 bytes a ring step. tp x cp = 4
	 * GPUs sit in a node: NVLink3 at 0.8 x 300 GB/s and 3 us: 0.003 + 2097152 / 240e6 ms
	 * forward; the backward passes the gradients too, twice the bytes.
	 */
	double kv = 2.0 * 1024 * 8 * 128 * 2 / 2;

	small_config(&c, "2");
	unit_set(&c, "tp", "2");
	unit_set(&c, "cp", "2");
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.cost->model->cp, 2);
	ASSERT_NEAR(x.cost->model->cp_fwd_ms, 0.003 + kv / 240e6);
	ASSERT_NEAR(x.cost->model->cp_bwd_ms, 0.003 + 2 * kv / 240e6);
	ASSERT_NEAR(x.cost->model->cp_fwd_ms, 0.003 + 0.0087381333333333);
	release(&x);

	/* two GPUs a node: the cp group of 4 spans nodes, on InfiniBand HDR at 0.8 x 25 GB/s and
	 * 5 us */
	unit_set(&c, "gpus_per_node", "2");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->cp_fwd_ms, 0.005 + kv / 20e6);
	ASSERT_NEAR(x.cost->model->cp_bwd_ms, 0.005 + 2 * kv / 20e6);
	release(&x);

	/* dp = 3, six GPUs a node: a pipeline rank's 12 GPUs hold three tp x cp blocks of 4, the
	 * middle one two in each node: its ring crosses, and everyone waits for it */
	unit_set(&c, "gpus_per_node", "6");
	unit_set(&c, "gpus", "24");
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.cost->model->dp, 3);
	ASSERT_NEAR(x.cost->model->cp_fwd_ms, 0.005 + kv / 20e6);
	release(&x);
	/* on nodes of 4 each block is a node */
	unit_set(&c, "gpus_per_node", "4");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->cp_fwd_ms, 0.003 + kv / 240e6);
	release(&x);

	/* cp = 4 by all-gather, inside a node (tp x cp = 8): blocks of 512 tokens, 1048576 bytes;
	 * the all-gather of the 4 blocks takes 3 steps of one block: 3 x 3 us + 3 x 1048576 /
	 * 240e6 ms, its gradients' reduce-scatter the same */
	small_config(&c, "2");
	unit_set(&c, "tp", "2");
	unit_set(&c, "cp", "4");
	unit_set(&c, "cp_comm", "allgather");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->cp_fwd_ms, 0.009 + 3 * 1048576 / 240e6);
	ASSERT_NEAR(x.cost->model->cp_bwd_ms, 0.009 + 3 * 1048576 / 240e6);
	release(&x);

	/* values narrower than keys (latent attention's 192 and 128): each at its own width, 1024
	 * tokens x 8 heads x (192 + 128) x 2 bytes / tp 2 = 2621440 bytes a ring step; wider
	 * values (256) cost more than two key widths */
	small_config(&c, "2");
	unit_set(&c, "tp", "2");
	unit_set(&c, "cp", "2");
	unit_set(&c, "head_dim", "192");
	unit_set(&c, "v_head_dim", "128");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->cp_fwd_ms, 0.003 + 2621440 / 240e6);
	ASSERT_NEAR(x.cost->model->cp_bwd_ms, 0.003 + 2 * 2621440 / 240e6);
	release(&x);
	unit_set(&c, "head_dim", "128");
	unit_set(&c, "v_head_dim", "256");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->cp_fwd_ms, 0.003 + 1024.0 * 8 * (128 + 256) * 2 / 2 / 240e6);
	release(&x);

	/* without context parallelism there is no exchange */
	small_config(&c, "2");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->cp_fwd_ms, 0);
	ASSERT_NEAR(x.cost->model->cp_bwd_ms, 0);
	release(&x);
}

static void cost_model_prices_the_optimizer_step_by_the_bytes_it_moves_sharded_over_dp_and_cp(void)
{
	struct config c;
	struct priced x;
	/* a device's 961544192 parameters (see above) x 38 bytes at 0.85 x 2039 GB/s, plus one
	 * kernel's 4 us: 36538679296 / 1733.15e9 s = 21.0822.. ms + 0.004 */
	double whole = 961544192.0 * 38 / (2039e9 * 0.85) * 1e3;

	small_config(&c, "2");
	x = price_ok(&c);
	for (int d = 0; d < 2; d++)
		ASSERT_NEAR(x.cost->model->optimizer_ms[d], whole + 0.004);
	ASSERT_NEAR(x.cost->model->optimizer_max_ms, whole + 0.004);
	CU_ASSERT_DOUBLE_EQUAL(whole, 21.0822, 1e-4);
	release(&x);

	/* the distributed optimizer over dp = 2 x cp = 2: each GPU updates a quarter */
	small_config(&c, "2");
	unit_set(&c, "dp", "2");
	unit_set(&c, "cp", "2");
	unit_set(&c, "distributed_optimizer", "yes");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->optimizer_ms[0], whole / 4 + 0.004);
	release(&x);

	/* --optimizer-bytes=19 halves the bytes; dp without a distributed optimizer does not */
	small_config(&c, "2");
	unit_set(&c, "dp", "2");
	unit_set(&c, "optimizer_bytes", "19");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->optimizer_ms[1], whole / 2 + 0.004);
	release(&x);
}

static void cost_model_gives_each_gradient_bucket_a_hook_at_its_share_of_the_last_backward(void)
{
	struct config c;
	struct priced x;
	const struct piece_hooks *g;
	/*
	 * p = 1: the stage holds 4 layers (872415232 parameters), the embedding and the LM head
	 * (2 x 525336576): 1923088384. Buckets of 500M parameters: ceil(3.846..) = 4 of
	 * 480772096 each, issued when the backward has run 1/4, 2/4, 3/4 and all of the op; each
	 * all-reduces 1923088384 fp32 gradient bytes over dp = 2 inside a node: 1923088384 /
	 * 240e6 + 0.006 ms.
	 */
	double bucket = 1923088384.0 / 4, ms = 4 * bucket / 240e6 + 0.006;

	small_config(&c, "1");
	unit_set(&c, "dp", "2");
	unit_set(&c, "overlap_grad_reduce", "yes");
	unit_set(&c, "bucket_size", "500e6");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->device_params[0], 1923088384.0);
	g = &x.cost->pieces->grads[0];
	CU_ASSERT_EQUAL_FATAL(g->n, 4);
	for (size_t j = 0; j < 4; j++) {
		ASSERT_NEAR(g->h[j].at, (j + 1) / 4.0);
		CU_ASSERT_EQUAL(g->h[j].kind, COMM_DP);
		CU_ASSERT_EQUAL(g->h[j].dur, ticks(ms));
	}
	/* nothing is left for after the last op, and nothing gathered */
	CU_ASSERT_EQUAL(x.cost->pieces->after[0].n, 0);
	CU_ASSERT_EQUAL(x.cost->pieces->gather[0].n, 0);
	release(&x);

	/* with the distributed optimizer, a bucket's fp32 gradients are reduce-scattered (half an
	 * all-reduce) and its bf16 parameters gathered back (half of that) at j/4 of the first
	 * forward */
	unit_set(&c, "distributed_optimizer", "yes");
	unit_set(&c, "overlap_param_gather", "yes");
	x = price_ok(&c);
	g = &x.cost->pieces->gather[0];
	CU_ASSERT_EQUAL_FATAL(g->n, 4);
	for (size_t j = 0; j < 4; j++) {
		ASSERT_NEAR(g->h[j].at, j / 4.0);
		CU_ASSERT_EQUAL(g->h[j].dur, ticks(bucket / 240e6 + 0.003));
		CU_ASSERT_EQUAL(x.cost->pieces->grads[0].h[j].dur, ticks(2 * bucket / 240e6 + 0.003));
	}
	release(&x);

	/* all-reduced whole before the sharded step (DeepSpeed's BF16_Optimizer, the deepspeed
	 * framework's habit): a bucket's reduction takes the plain all-reduce's time, its gather
	 * stays half of that */
	unit_set(&c, "grad_reduce_scatter", "no");
	x = price_ok(&c);
	for (size_t j = 0; j < 4; j++) {
		CU_ASSERT_EQUAL(x.cost->pieces->grads[0].h[j].dur, ticks(ms));
		CU_ASSERT_EQUAL(x.cost->pieces->gather[0].h[j].dur, ticks(bucket / 240e6 + 0.003));
	}
	release(&x);
	small_config(&c, "1");
	unit_set(&c, "dp", "2");
	unit_set(&c, "bucket_size", "500e6");
	unit_set(&c, "framework", "deepspeed");
	unit_set(&c, "overlap_grad_reduce", "yes");
	x = price_settled(&c); /* the framework's habits are given as the run settles */
	CU_ASSERT_TRUE(x.cost->model->distributed_optimizer);
	CU_ASSERT_FALSE(x.cost->model->grad_reduce_scatter);
	CU_ASSERT_EQUAL(x.cost->pieces->grads[0].h[0].dur, ticks(ms));
	release(&x);
}

static void cost_prices_an_all_to_all_inside_a_node_and_across_nodes(void)
{
	/* inside a node: (n-1)/n of the bytes at the link's bandwidth, n - 1 latencies:
	 * 1 GB over 4 GPUs at 360 GB/s, 3 us: 3/4 x 1e9 / 360e9 s + 3 x 3 us */
	ASSERT_NEAR(cost_alltoall_ms(1e9, 4, 4, 360, 40, 3), 0.75e9 / 360e9 * 1e3 + 0.009);
	ASSERT_NEAR(cost_alltoall_ms(1e9, 4, 8, 360, 40, 3),
	            cost_collective_ms(COLL_ALLTOALL, 1e9, 4, 360, 3));
	/* 16 GPUs, 8 a node: 7/16 inside at 360 GB/s (1.2153 ms) and 8/16 through the GPU's own
	 * port at 40 GB/s (12.5 ms), at once: the port's; 15 latencies of 5 us */
	ASSERT_NEAR(cost_alltoall_ms(1e9, 16, 8, 360, 40, 5), 0.5e9 / 40e9 * 1e3 + 15 * 0.005);
	/* one GPU a node: everything but its own share leaves through its port */
	ASSERT_NEAR(cost_alltoall_ms(1e9, 4, 1, 360, 40, 5), 0.75e9 / 40e9 * 1e3 + 3 * 0.005);
	ASSERT_NEAR(cost_alltoall_ms(1e9, 1, 1, 360, 40, 5), 0);
}

/* Mixtral 8x7B on H100s, one micro-batch of one 2048-token sequence, with the given p, tp,
 * ep and GPUs. */
static void mixtral_config(struct config *c, const char *p, const char *tp, const char *ep,
                           const char *gpus)
{
	model_config(c, "mixtral-8x7b", p);
	unit_set(c, "gpu", "h100-sxm");
	unit_set(c, "tp", tp);
	unit_set(c, "ep", ep);
	unit_set(c, "gpus", gpus);
}

static void cost_model_counts_the_published_parameters_of_the_expert_presets(void)
{
	static const struct {
		const char *model;
		double total, active; /* published, in billions, to their precision */
		double tol;
	} cases[] = {
	        {"mixtral-8x7b", 46.7, 12.9, 0.05},  {"mixtral-8x22b", 141, 39, 0.5},
	        {"qwen3-30b-a3b", 30.5, 3.3, 0.06}, {"qwen3-235b-a22b", 235, 22, 0.5},
	        /* 671B and its MTP module's 11.5B unique; 37B activated (36.7 to 37.6 as the
	         * embedding and head are counted) */
	        {"deepseek-v3", 671 + 11.5, 37, 0.6},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct priced x;
		const struct cost_model *k;
		double embed, active;

		model_config(&c, cases[i].model, "1");
		x = price_ok(&c);
		k = x.cost->model;
		embed = 2.0 * k->vocab * k->hidden;
		/* one GPU holds everything: the layers, their experts, the embedding and the head */
		CU_ASSERT_DOUBLE_EQUAL(k->device_params[0] / 1e9, cases[i].total, cases[i].tol);
		active = (k->layers - k->dense_layers) *
		                 (k->moe_params + k->routed_params * k->top_k / k->experts) +
		         k->dense_layers * k->layer_params + embed;
		CU_ASSERT_DOUBLE_EQUAL(active / 1e9, cases[i].active, cases[i].tol);
		/* a token's FLOPs count its active parameters: 2 x active per token forward, with
		 * the attention core's 2 s^2 (q + o) beside (scores and values, the full count) */
		ASSERT_NEAR(k->moe_flops.f, 2 * (k->moe_params + k->top_k * k->routed_params /
		                                                    k->experts) * k->seq +
		                                    2.0 * k->seq * k->seq * (k->q_dim + k->o_dim));
		release(&x);
	}
}

static void cost_model_counts_latent_attention_as_deepseek_v3_does(void)
{
	struct config c;
	struct priced x;
	const struct cost_model *k;
	/* MLA of DeepSeek-V3 (h 7168, 128 heads): q down 7168 x 1536, q up 1536 x 128 x 192, kv
	 * down 7168 x (512 + 64), kv up 512 x 128 x (128 + 128), out 128 x 128 x 7168 */
	double mla = 7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 +
	             128.0 * 128 * 7168;

	model_config(&c, "deepseek-v3", "1");
	x = price_ok(&c);
	k = x.cost->model;
	CU_ASSERT_DOUBLE_EQUAL(mla, 187105280, 0.5);
	/* a dense layer: MLA and a gated MLP of 18432; an expert layer: MLA, the router's
	 * 7168 x 256 and one shared expert of 2048 */
	ASSERT_NEAR(k->layer_params, mla + 3.0 * 7168 * 18432);
	ASSERT_NEAR(k->moe_params, mla + 7168.0 * 256 + 3.0 * 7168 * 2048);
	ASSERT_NEAR(k->routed_params, 256 * 3.0 * 7168 * 2048);
	/* the attention core's full count per sequence: 2 s^2 x 128 x (192 + 128) */
	ASSERT_NEAR(k->layer_flops.f - 2 * k->layer_params * k->seq,
	            2.0 * k->seq * k->seq * 128 * (192 + 128));
	/* the MTP layer, an expert layer, sits on the last stage beside its own head */
	CU_ASSERT_EQUAL(k->mtp_layers, 1);
	CU_ASSERT_TRUE(k->types[0].last_head_ms.f > 2 * k->types[0].head_ms.f);
	release(&x);
}

static void cost_model_prices_the_expert_all_to_all_inside_and_across_nodes(void)
{
	struct config c;
	struct priced x;

	/*
	 * tp = 2, ep = 4 inside a node: a GPU's 2048 / 2 = 1024 tokens, 2 copies each of 4096
	 * bf16 values: 16777216 bytes, 3/4 of them to the 3 others at 0.8 x 450 GB/s, 3 x 3 us
	 */
	mixtral_config(&c, "1", "2", "4", "8");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->a2a_ms, 16777216 * 0.75 / 360e9 * 1e3 + 0.009);
	/* an op of an expert layer issues its dispatch and combine on the EP stream */
	{
		const struct piece_plan *f = &x.cost->pieces->plan[0];
		int ep = 0;

		for (size_t i = 0; i < f->n; i++)
			if (f->steps[i].what == PIECE_ISSUE && f->steps[i].kind == COMM_EP) {
				CU_ASSERT_EQUAL(f->steps[i].dur, ticks(x.cost->model->a2a_ms));
				ep++;
			}
		CU_ASSERT_EQUAL(ep, 2 * 32);
	}
	release(&x);

	/*
	 * tp = 1, ep = 16 over two nodes of 8: 2048 tokens x 2 x 4096 x 2 = 33554432 bytes; 7/16
	 * stay in the node (at 360 GB/s), 8/16 leave through the GPU's port at 0.8 x 50 GB/s,
	 * which is slower; 15 latencies of InfiniBand's 5 us
	 */
	mixtral_config(&c, "1", "1", "8", "16");
	unit_set(&c, "experts", "16");
	unit_set(&c, "ep", "16");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->a2a_ms, 33554432 * 0.5 / 40e9 * 1e3 + 15 * 0.005);
	release(&x);

	/*
	 * the same with DeepEP: of 2 nodes a token reaches the other with probability 1 - (1/2)^2
	 * = 0.75, once: 2048 x 0.75 x 4096 x 2 bytes through the port at 40 GB/s, while all its
	 * copies, 15/16 of the 33554432 bytes, go on inside the node at 360 GB/s; the slower,
	 * and 15 latencies
	 */
	unit_set(&c, "ep_dispatch", "deepep");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->a2a_ms, 2048 * 0.75 * 4096 * 2 / 40e9 * 1e3 + 15 * 0.005);
	CU_ASSERT_TRUE(2048 * 0.75 * 4096 * 2 / 40e9 > 33554432 * 15.0 / 16 / 360e9);
	release(&x);

	/*
	 * node-limited routing to one node: a token crosses to at most 1 node, with chance 1/2 its
	 * own, so 0.5 crossings; FP8 dispatch: the dispatch sends 1 byte an element, the combine
	 * 2 (the NVLink part, 15/16 of the copies, stays below the port's either way)
	 */
	unit_set(&c, "ep_node_limit", "1");
	unit_set(&c, "dispatch_bytes", "1");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->a2a_ms, 2048 * 0.5 * 4096 * 2 / 40e9 * 1e3 + 15 * 0.005);
	ASSERT_NEAR(x.cost->model->dispatch_ms, 2048 * 0.5 * 4096 * 1 / 40e9 * 1e3 + 15 * 0.005);
	CU_ASSERT_TRUE(2048 * 0.5 * 4096 / 40e9 > 2048 * 2 * 4096 * 1 * 15.0 / 16 / 360e9);
	release(&x);

	/*
	 * ep = 4 of 12 GPUs on nodes of 6: the groups are GPUs 0-3 (node 0), 4-7 (two in each
	 * node) and 8-11 (node 1); the middle one sends 2/4 of its 33554432 bytes through the
	 * port and waits for it, and so does everyone: 3 latencies of InfiniBand's
	 */
	mixtral_config(&c, "1", "1", "4", "12");
	unit_set(&c, "gpus_per_node", "6");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->a2a_ms, 33554432 * 0.5 / 40e9 * 1e3 + 3 * 0.005);
	release(&x);
	/* on nodes of 4 every group is a node: NVLink alone */
	unit_set(&c, "gpus_per_node", "4");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->a2a_ms, 33554432 * 0.75 / 360e9 * 1e3 + 3 * 0.003);
	release(&x);

	/* without expert parallelism nothing is sent: the ops are their compute */
	mixtral_config(&c, "1", "1", "1", "1");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->a2a_ms, 0);
	CU_ASSERT_PTR_NULL(x.cost->pieces);
	release(&x);
}

/* The router's GEMM is no linear layer of Transformer Engine's: fp8 runs it in bf16, as the
 * attention core; and an MTP layer is a layer of the model's last kind: dense when every layer
 * is (DeepSeek-V3 with --dense-layers=61), so it sends no all-to-all and counts as dense. */
static void cost_model_keeps_the_router_in_bf16_and_the_mtp_layer_of_the_last_kind(void)
{
	struct config c;
	struct priced x, y;
	int n, nm;

	mixtral_config(&c, "1", "1", "4", "4");
	x = price_ok(&c);
	unit_set(&c, "fp8", "yes");
	y = price_ok(&c);
	ASSERT_NEAR(y.cost->model->types[0].router_ms.f, x.cost->model->types[0].router_ms.f);
	ASSERT_NEAR(y.cost->model->types[0].router_ms.b, x.cost->model->types[0].router_ms.b);
	ASSERT_NEAR(y.cost->model->types[0].router_ms.w, x.cost->model->types[0].router_ms.w);
	/* the experts' own GEMMs do run in fp8 */
	CU_ASSERT_TRUE(y.cost->model->types[0].experts_ms.f < x.cost->model->types[0].experts_ms.f);
	release(&x);
	release(&y);

	model_config(&c, "deepseek-v3", "4");
	unit_set(&c, "dense_layers", "61");
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.cost->model->mtp_layers, 1);
	moe_stage_counts(x.cost->model, 3, &n, &nm);
	CU_ASSERT_EQUAL(nm, 0);
	CU_ASSERT_EQUAL(n, x.cost->model->stage_layers[3] + 1);
	/* the step's FLOPs: 62 dense layers and the heads */
	ASSERT_NEAR(x.cost->model->step_flops,
	            (62 * (x.cost->model->layer_flops.f + x.cost->model->layer_flops.b +
	                   x.cost->model->layer_flops.w) +
	             x.cost->model->last_head_flops.f + x.cost->model->last_head_flops.b +
	             x.cost->model->last_head_flops.w) *
	                    c.m * x.cost->model->dp);
	release(&x);
	/* with its expert layers, the MTP layer is one */
	model_config(&c, "deepseek-v3", "4");
	x = price_ok(&c);
	moe_stage_counts(x.cost->model, 3, &n, &nm);
	CU_ASSERT_EQUAL(nm, x.cost->model->stage_moe[3] + 1);
	release(&x);
}

static void cost_model_stretches_the_busiest_experts_and_their_all_to_all_by_the_imbalance(void)
{
	struct config c;
	struct priced one, two;
	const struct cost_model *a, *b;

	mixtral_config(&c, "1", "2", "4", "8");
	one = price_ok(&c);
	unit_set(&c, "expert_imbalance", "2");
	two = price_ok(&c);
	a = one.cost->model;
	b = two.cost->model;
	/* the busiest GPU receives twice the copies: twice the bytes, the same latencies */
	ASSERT_NEAR(b->a2a_ms - 0.009, 2 * (a->a2a_ms - 0.009));
	/* its grouped GEMMs get twice the tokens: at least as long per token, never shorter */
	CU_ASSERT_TRUE(b->types[0].experts_ms.f > 1.9 * a->types[0].experts_ms.f);
	CU_ASSERT_TRUE(b->types[0].experts_ms.f < 2.1 * a->types[0].experts_ms.f);
	/* the attention, the router and the shared experts do not change */
	ASSERT_NEAR(b->types[0].moe_ms.f - b->types[0].experts_ms.f, a->types[0].moe_ms.f - a->types[0].experts_ms.f);
	ASSERT_NEAR(b->types[0].router_ms.b, a->types[0].router_ms.b);
	release(&one);
	release(&two);
}

static void cost_model_reduces_expert_gradients_over_their_own_group(void)
{
	struct config c;
	struct priced x;
	const struct cost_model *k;
	double edp_params, dense_params;

	/* tp 1, dp 8, ep 4 in a node: the routed experts' gradients go over 8 / 4 = 2 GPUs, the
	 * rest over all 8; two layers on one stage */
	mixtral_config(&c, "1", "1", "4", "8");
	unit_set(&c, "layers", "2");
	x = price_ok(&c);
	k = x.cost->model;
	edp_params = 2 * k->routed_params / 4;
	dense_params = 2 * k->moe_params + 2.0 * k->vocab * k->hidden;
	ASSERT_NEAR(k->device_expert_params[0], edp_params);
	ASSERT_NEAR(k->device_params[0], dense_params + edp_params);
	CU_ASSERT_EQUAL_FATAL(x.cost->pieces->after[0].n, 2);
	/* fp32 gradients all-reduced after the last op: the dense ones over 8 GPUs, then the
	 * experts' over 2, both inside the node at 0.8 x 450 GB/s */
	CU_ASSERT_EQUAL(x.cost->pieces->after[0].h[0].dur,
	                ticks(2 * 7 * 4 * dense_params / 8 / 360e6 + 14 * 0.003));
	CU_ASSERT_EQUAL(x.cost->pieces->after[0].h[1].dur,
	                ticks(2 * 1 * 4 * edp_params / 2 / 360e6 + 2 * 0.003));
	release(&x);

	/* six GPUs a node: the expert groups {0, 4} and {1, 5} sit in node 0, but {2, 6} and
	 * {3, 7} have a GPU in each node: their ring crosses on one port (50 GB/s), and every
	 * GPU waits for them */
	unit_set(&c, "gpus_per_node", "6");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->edp_bandwidth[0], 50);
	release(&x);
	/* four a node: every expert group has a GPU in each of the two nodes */
	unit_set(&c, "gpus_per_node", "4");
	x = price_ok(&c);
	ASSERT_NEAR(x.cost->model->edp_bandwidth[0], 50);
	release(&x);
}

static void cost_model_refuses_experts_it_cannot_place(void)
{
	static const struct {
		const char *key, *value, *key2, *value2, *blame;
	} cases[] = {
	        {"ep", "3", NULL, NULL, "--ep '3': must divide the 8 experts"},
	        {"ep", "8", "gpus", "4", "--ep '8': must divide the tp x cp x dp = 4 GPUs"},
	        {"top_k", "9", NULL, NULL, "--top-k '9': must be at most the 8 experts"},
	        {"dense_layers", "33", NULL, NULL, "--dense-layers '33': must be at most the 32"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c;
		struct priced x;

		mixtral_config(&c, "1", "1", "1", "8");
		unit_set(&c, cases[i].key, cases[i].value);
		if (cases[i].key2 != NULL)
			unit_set(&c, cases[i].key2, cases[i].value2);
		x = price(&c);
		CU_ASSERT_PTR_NULL(x.cost);
		CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, cases[i].blame));
		sched_free(x.sched);
	}
	/* an imbalance below 1: refused where it is read (the option's least value), and by the
	 * cost model when a caller sets the field itself */
	{
		struct config c;
		struct priced x;
		struct pp_error err = {0};

		mixtral_config(&c, "1", "1", "1", "8");
		CU_ASSERT_EQUAL(config_set(&c, config_option_by_key("expert_imbalance"),
		                           "--expert-imbalance", "0.5", &err),
		                -1);
		CU_ASSERT_STRING_EQUAL(err.msg,
		                       "--expert-imbalance '0.5': must be a number from 1 to 1e9");
		c.expert_imbalance = 0.5;
		x = price(&c);
		CU_ASSERT_PTR_NULL(x.cost);
		CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, "must be at least 1"));
		sched_free(x.sched);
	}
	/* expert options on a dense model */
	{
		struct config c;
		struct priced x;

		model_config(&c, "llama3-8b", "1");
		unit_set(&c, "top_k", "2");
		x = price(&c);
		CU_ASSERT_PTR_NULL(x.cost);
		CU_ASSERT_PTR_NOT_NULL(strstr(x.err.msg, "dense"));
		sched_free(x.sched);
	}
}

static void cost_model_spreads_uneven_layers_by_default(void)
{
	struct config c;
	struct priced x;
	static const int want[8] = {7, 8, 8, 8, 8, 8, 7, 7};

	/* DeepSeek-V3's 61 layers over 8 stages: 7 each and 5 left, to stages 1 to 5 */
	model_config(&c, "deepseek-v3", "8");
	x = price_ok(&c);
	for (int s = 0; s < 8; s++)
		CU_ASSERT_EQUAL(x.cost->model->stage_layers[s], want[s]);
	release(&x);
	/* --layer-split=even refuses the split */
	model_config(&c, "deepseek-v3", "8");
	unit_set(&c, "layer_split", "even");
	assert_price_fails(&c, "--stages '8': ", "61 layers do not split evenly");
}

static void cost_model_prices_the_embedding_and_the_head_where_a_layout_puts_them(void)
{
	struct config c;
	struct priced x, y;
	static const int want[4] = {0, 40, 40, 0};
	double embed;

	/* E alone on stage 0, L alone on the last: stage 0 holds only the embedding, which the
	 * model prices at no compute and its parameters; stage 3 only the LM head and the loss */
	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "layout", "E|t*40|t*40|L");
	x = price_ok(&c);
	embed = (double)x.cost->model->vocab * x.cost->model->hidden;
	for (int s = 0; s < 4; s++)
		CU_ASSERT_EQUAL(x.cost->model->stage_layers[s], want[s]);
	CU_ASSERT_EQUAL(x.cost->t_f[0], 0);
	CU_ASSERT_EQUAL(x.cost->t_b[0], 0);
	CU_ASSERT_EQUAL(x.cost->t_w[0], 0);
	CU_ASSERT_EQUAL(x.cost->t_f[3], ticks(x.cost->model->types[0].last_head_ms.f));
	CU_ASSERT_EQUAL(x.cost->t_b[3], ticks(x.cost->model->types[0].last_head_ms.b));
	CU_ASSERT_EQUAL(x.cost->t_w[3], ticks(x.cost->model->types[0].last_head_ms.w));
	CU_ASSERT_DOUBLE_EQUAL(x.cost->model->device_params[0], embed, 1);
	CU_ASSERT_DOUBLE_EQUAL(x.cost->model->device_params[3], embed, 1);
	/* a layer moved onto the head's stage adds a layer's time to it; the head stays there */
	unit_set(&c, "layout", "E|t*40|t*39|tL");
	y = price_ok(&c);
	CU_ASSERT(y.cost->t_f[3] > x.cost->t_f[3]);
	CU_ASSERT(llabs((long long)(y.cost->t_f[3] - x.cost->t_f[3] -
	                            ticks(x.cost->model->types[0].layer_ms.f))) <= 1);
	release(&y);
	release(&x);
	/* on a V placement the last stage, and with it the head, sits on device 0 */
	model_config(&c, "llama3-70b", "2");
	unit_set(&c, "schedule", "zbv");
	unit_set(&c, "v", "2");
	unit_set(&c, "layout", "E|t*40|t*40|L");
	x = price_ok(&c);
	CU_ASSERT_EQUAL(x.sched->stage_device[3], 0);
	CU_ASSERT_EQUAL(x.cost->t_f[3], ticks(x.cost->model->types[0].last_head_ms.f));
	CU_ASSERT_DOUBLE_EQUAL(x.cost->model->device_params[0], 2 * embed, 1);
	release(&x);
}

static void cost_model_refuses_layouts_it_cannot_price(void)
{
	struct config c;

	model_config(&c, "llama3-70b", "4");
	unit_set(&c, "layout", "E|t*40|t*40|L|");
	assert_price_fails(&c, "--layout 'E|t*40|t*40|L|': ", "gives 5 stages, the pipeline has");
	unit_set(&c, "layout", "|Et*40|t*40|L");
	assert_price_fails(&c, "--layout '|Et*40|t*40|L': ", "puts the embedding (E) on stage 1");
	unit_set(&c, "layout", "Et*40|t*40|L|");
	assert_price_fails(&c, "--layout 'Et*40|t*40|L|': ", "puts the loss (L) on stage 2");
	unit_set(&c, "layout", "E|t*40|t*39|L");
	assert_price_fails(&c, "--layout 'E|t*40|t*39|L': ", "has 79 decoder layers (t), the model 80");
	unit_set(&c, "layout", "E|t*40|t*40|mL");
	assert_price_fails(&c, "--layout 'E|t*40|t*40|mL': ", "has 1 MTP layers (m), the model 0");
	unit_set(&c, "layout", "E|t*40|t*40|L");
	unit_set(&c, "layers_per_stage", "0,40,40,0");
	assert_price_fails(&c, "--layout 'E|t*40|t*40|L': ", "not both");
}

static void cost_model_splits_uneven_layer_counts_and_their_first_and_last_stages(void)
{
	static const struct {
		const char *layers, *p, *v, *first, *last;
		int want[16];
	} cases[] = {
	        {"43", "8", "2", NULL, NULL, {2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2}},
	        {"61", "8", "1", NULL, NULL, {7, 8, 8, 8, 8, 8, 7, 7}},
	        {"78", "16", "1", NULL, NULL, {4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 4}},
	        {"126", "8", "2", NULL, NULL, {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7}},
	        /* 61 - 5 - 4 = 52 over 6 middle stages: 9, 9, 9, 9, 8, 8 */
	        {"61", "8", "1", "5", "4", {5, 9, 9, 9, 9, 8, 8, 4}},
	        {"43", "4", "2", "3", NULL, {3, 6, 6, 6, 6, 6, 5, 5}},
	};
	struct config c;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct priced x;
		int sum = 0;

		model_config(&c, "llama3-8b", cases[i].p);
		unit_set(&c, "layers", cases[i].layers);
		if (strcmp(cases[i].v, "1") != 0) {
			unit_set(&c, "schedule", "interleaved");
			unit_set(&c, "v", cases[i].v);
		}
		if (cases[i].first != NULL)
			unit_set(&c, "first_stage_layers", cases[i].first);
		if (cases[i].last != NULL)
			unit_set(&c, "last_stage_layers", cases[i].last);
		x = price_ok(&c);
		for (int s = 0; s < x.cost->S; s++) {
			CU_ASSERT_EQUAL(x.cost->model->stage_layers[s], cases[i].want[s]);
			sum += x.cost->model->stage_layers[s];
		}
		CU_ASSERT_EQUAL(sum, atoi(cases[i].layers));
		release(&x);
	}
	/* --layer-split=even keeps Megatron's refusal of an uneven middle */
	model_config(&c, "llama3-8b", "8");
	unit_set(&c, "layers", "61");
	unit_set(&c, "first_stage_layers", "4");
	unit_set(&c, "layer_split", "even");
	assert_price_fails(&c, "--first-stage-layers '4': ",
	                   "leaves 57 of llama3-8b's 61 layers, which do not split evenly over the 7 "
	                   "other stages (--layer-split=even)");
}

static void cost_model_prices_flash_attention_2_at_its_own_shares(void)
{
	struct config c;
	struct priced best, fa2;

	/* on the H100, FlashAttention-2 runs at 0.35 of peak forward and 0.30 backward (times the
	 * sustained 0.75) where the preset's best kernels run at 0.53 and 0.51: the attention core
	 * takes 0.53/0.35 and 0.51/0.30 as long, less its fixed 4 us */
	model_config(&c, "llama3-8b", "1");
	unit_set(&c, "gpu", "h100-sxm");
	unit_set(&c, "layers", "2");
	best = price_ok(&c);
	unit_set(&c, "attention_kernel", "fa2");
	fa2 = price_ok(&c);
	ASSERT_NEAR(fa2.cost->model->types[0].hw.attention_efficiency, 0.35);
	ASSERT_NEAR(fa2.cost->model->types[0].hw.attention_bwd_efficiency, 0.30);
	CU_ASSERT_DOUBLE_EQUAL((fa2.cost->model->types[0].attn_fwd_ms - 0.004) /
	                               (best.cost->model->types[0].attn_fwd_ms - 0.004),
	                       0.53 / 0.35, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL((fa2.cost->model->types[0].attn_bwd_ms - 0.004) /
	                               (best.cost->model->types[0].attn_bwd_ms - 0.004),
	                       0.51 / 0.30, 1e-9);
	release(&best);
	release(&fa2);
	/* on the A100 FlashAttention-2 is the best kernel: the same shares */
	model_config(&c, "llama3-8b", "1");
	unit_set(&c, "attention_kernel", "fa2");
	fa2 = price_ok(&c);
	ASSERT_NEAR(fa2.cost->model->types[0].hw.attention_efficiency, 0.60);
	release(&fa2);
}

static const struct unit_test tests[] = {
        UNIT_TEST(cost_explicit_prices_each_stage_in_ticks_of_one_unit),
        UNIT_TEST(cost_explicit_gives_each_chunk_t_over_v),
        UNIT_TEST(cost_explicit_gives_a_dualpipe_chunk_all_of_t_and_no_message_between_its_copies),
        UNIT_TEST(cost_model_lays_each_dualpipe_copy_out_as_the_whole_model),
        UNIT_TEST(cost_model_prices_each_device_on_its_own_gpu),
        UNIT_TEST(cost_model_with_one_gpu_on_every_device_is_the_run_of_that_gpu),
        UNIT_TEST(cost_model_refuses_device_gpus_of_another_count_or_beside_gpu),
        UNIT_TEST(cost_explicit_prices_messages_with_tcomm),
        UNIT_TEST(cost_explicit_keeps_message_time_in_units_with_chunks),
        UNIT_TEST(cost_explicit_prices_messages_from_a_link_in_milliseconds),
        UNIT_TEST(cost_explicit_gives_equal_activations_with_the_w_fraction_kept),
        UNIT_TEST(cost_explicit_copies_comm_mode_and_duplex),
        UNIT_TEST(cost_uniform_is_false_once_one_stage_differs),
        UNIT_TEST(cost_comm_free_is_true_only_without_message_time),
        UNIT_TEST(cost_comm_free_holds_with_one_stage_whatever_tcomm),
        UNIT_TEST(cost_model_counts_attention_with_grouped_kv_heads_and_three_gated_mlp_matrices),
        UNIT_TEST(cost_model_counts_twelve_h_squared_parameters_per_gpt3_layer),
        UNIT_TEST(cost_model_gives_each_layer_2pt_plus_4bs2h_forward_8bs2h_backward_and_2pt_weight),
        UNIT_TEST(cost_model_prices_each_stage_as_its_flops_at_the_achieved_rate_in_milliseconds),
        UNIT_TEST(cost_model_runs_at_the_gpu_preset_or_the_tflops_and_efficiency_given),
        UNIT_TEST(
                cost_model_divides_compute_by_tp_and_gives_each_layer_four_tp_collectives_as_pieces),
        UNIT_TEST(cost_model_adds_no_allreduce_without_tensor_parallelism),
        UNIT_TEST(cost_model_message_carries_b_s_h_dtype_bytes_over_tp),
        UNIT_TEST(cost_model_sends_hops_inside_a_node_over_the_intra_node_link),
        UNIT_TEST(cost_model_adds_the_p2p_overhead_and_takes_the_p2p_share_of_the_link),
        UNIT_TEST(
                cost_model_sends_hops_between_nodes_over_the_inter_node_link_when_tp_fills_a_node),
        UNIT_TEST(cost_model_lays_ranks_out_tp_first_then_dp_then_pp_to_find_each_node),
        UNIT_TEST(cost_model_over_pcie4_instead_of_nvlink3_keeps_compute_and_reprices_messages),
        UNIT_TEST(cost_model_takes_the_gpu_s_own_links_when_none_is_given),
        UNIT_TEST(cost_model_shape_overrides_replace_the_preset_figures),
        UNIT_TEST(cost_model_hardware_overrides_replace_the_gpu_and_link_figures),
        UNIT_TEST(cost_model_takes_a_latency_of_zero_as_given),
        UNIT_TEST(cost_model_splits_layers_evenly_over_the_virtual_stages),
        UNIT_TEST(cost_model_takes_the_layers_of_each_stage_from_the_list),
        UNIT_TEST(cost_model_prices_a_stage_of_no_layers_as_its_embedding_or_head_alone),
        UNIT_TEST(cost_model_gives_first_and_last_stage_layers_and_splits_the_rest_evenly),
        UNIT_TEST(cost_model_rejects_layers_that_do_not_split_evenly_naming_what_was_given),
        UNIT_TEST(cost_model_rejects_a_layer_list_of_the_wrong_length_or_sum),
        UNIT_TEST(cost_model_rejects_first_and_last_stage_layers_that_leave_nothing_between),
        UNIT_TEST(cost_model_rejects_tp_that_does_not_divide_the_gpus_of_a_node),
        UNIT_TEST(cost_model_rejects_tp_that_does_not_divide_the_attention_heads),
        UNIT_TEST(cost_model_sets_dp_to_the_gpus_over_p_times_tp),
        UNIT_TEST(cost_model_rejects_gpus_that_p_times_tp_does_not_divide),
        UNIT_TEST(cost_model_keeps_its_widths_bytes_over_tp_a_layer_and_the_logits_on_the_last_stage),
        UNIT_TEST(cost_model_keeps_34sbh_for_gpt3_and_latent_attentions_own_tensors),
        UNIT_TEST(cost_model_prices_unfused_value_products_at_the_value_head_size),
        UNIT_TEST(cost_model_holds_latent_down_projections_whole_on_each_tp_rank),
        UNIT_TEST(cost_model_keeps_the_attention_scores_without_flash_attention),
        UNIT_TEST(cost_model_keeps_each_layer_s_input_with_full_recompute_and_redoes_the_forward),
        UNIT_TEST(
                cost_model_keeps_all_but_the_scores_with_selective_recompute_and_redoes_attention),
        UNIT_TEST(cost_model_lets_w_keep_the_w_mem_fraction_of_each_stage_s_activations),
        UNIT_TEST(cost_model_holds_16_bytes_a_parameter_with_the_embedding_first_and_the_head_last),
        UNIT_TEST(cost_model_shards_only_the_optimizer_state_over_dp_with_a_distributed_optimizer),
        UNIT_TEST(cost_model_counts_a_tied_embedding_once_when_one_device_holds_both_ends),
        UNIT_TEST(cost_model_gives_each_device_the_layers_of_all_its_chunks),
        UNIT_TEST(cost_model_rejects_heads_that_do_not_divide_the_hidden_size_or_by_the_kv_heads),
        UNIT_TEST(cost_model_rejects_fewer_than_4_bytes_a_parameter),
        UNIT_TEST(cost_model_prices_each_kernel_of_a_layer_at_an_efficiency_of_0),
        UNIT_TEST(cost_model_takes_each_per_kernel_coefficient_from_its_override),
        UNIT_TEST(cost_model_runs_the_linear_gemms_at_the_fp8_peak_with_their_casts),
        UNIT_TEST(cost_model_refuses_fp8_on_a_gpu_without_it_or_with_a_uniform_efficiency),
        UNIT_TEST(cost_model_prices_the_unfused_attention_s_forward_bytes_per_score),
        UNIT_TEST(cost_model_prices_the_loss_by_its_bytes_per_logit_as_each_framework_runs_it),
        UNIT_TEST(kernel_gemm_pads_partial_tiles_and_more_work_never_takes_less),
        UNIT_TEST(
                cost_model_runs_norms_on_every_token_of_each_tp_rank_without_sequence_parallelism),
        UNIT_TEST(cost_model_gives_a_hop_between_nodes_its_link_s_whole_bandwidth),
        UNIT_TEST(cost_model_gives_each_gpu_the_memory_of_its_preset_or_of_the_override),
        UNIT_TEST(cost_model_counts_a_step_s_model_flops_and_tokens_over_all_replicas),
        UNIT_TEST(cost_scale_stages_multiplies_each_device_s_stages_by_its_factor),
        UNIT_TEST(cost_scale_stages_per_device_follows_the_v_placement_not_stage_mod_p),
        UNIT_TEST(cost_scale_stages_per_stage_multiplies_each_virtual_stage),
        UNIT_TEST(cost_scale_stages_leaves_costs_alone_without_factors),
        UNIT_TEST(cost_scale_stages_rejects_a_factor_that_makes_an_op_too_long),
        UNIT_TEST(cost_scale_stages_multiplies_model_costs_too),
        UNIT_TEST(
                cost_collective_prices_ring_all_reduce_and_reduce_scatter_inside_and_across_nodes),
        UNIT_TEST(
                cost_model_reduces_gradients_over_dp_on_nvlink_inside_a_node_and_infiniband_across),
        UNIT_TEST(cost_model_all_reduces_tied_embeddings_between_the_first_and_last_stage),
        UNIT_TEST(cost_prices_an_all_to_all_inside_a_node_and_across_nodes),
        UNIT_TEST(cost_model_counts_the_published_parameters_of_the_expert_presets),
        UNIT_TEST(cost_model_counts_latent_attention_as_deepseek_v3_does),
        UNIT_TEST(cost_model_prices_flash_attention_2_at_its_own_shares),
        UNIT_TEST(cost_model_spreads_uneven_layers_by_default),
        UNIT_TEST(cost_model_prices_the_embedding_and_the_head_where_a_layout_puts_them),
        UNIT_TEST(cost_model_refuses_layouts_it_cannot_price),
        UNIT_TEST(cost_model_splits_uneven_layer_counts_and_their_first_and_last_stages),
        UNIT_TEST(cost_model_prices_the_expert_all_to_all_inside_and_across_nodes),
        UNIT_TEST(cost_model_keeps_the_router_in_bf16_and_the_mtp_layer_of_the_last_kind),
        UNIT_TEST(cost_model_stretches_the_busiest_experts_and_their_all_to_all_by_the_imbalance),
        UNIT_TEST(cost_model_reduces_expert_gradients_over_their_own_group),
        UNIT_TEST(cost_model_refuses_experts_it_cannot_place),
        UNIT_TEST(cost_model_prices_a_cp_ring_step_as_one_block_of_keys_and_values_per_tp_rank),
        UNIT_TEST(
                cost_model_prices_the_optimizer_step_by_the_bytes_it_moves_sharded_over_dp_and_cp),
        UNIT_TEST(cost_model_gives_each_gradient_bucket_a_hook_at_its_share_of_the_last_backward),
        {NULL, NULL},
};

const struct unit_suite suite_cost = {"cost", tests};
