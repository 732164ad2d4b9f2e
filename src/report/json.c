/*
 * The JSON report, built with cJSON; keys and their order are a contract (docs/output.md). Every
 * cJSON call can fail for want of memory, so the builders add through helpers that note any
 * failure in a struct build; report_json_build then returns NULL rather than a report with
 * members missing.
 */
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/json_text.h"
#include "base/numfmt.h"
#include "formats.h"
#include "ppsim/samples.h"

/* A report under construction; failed is set, and stays set, by the first failed allocation. */
struct build {
	bool failed;
};

/* Adds a number, or null for NaN (a figure that does not apply). */
static void add_number(struct build *b, cJSON *obj, const char *key, double x)
{
	if ((isnan(x) ? cJSON_AddNullToObject(obj, key) : cJSON_AddNumberToObject(obj, key, x)) ==
	    NULL)
		b->failed = true;
}

/* An unsigned integer of 64 bits with all its digits (a double holds them only to 2^53). */
static void add_u64(struct build *b, cJSON *obj, const char *key, uint64_t x)
{
	char text[NUMFMT_MAX];

	numfmt_u64(text, x);
	if (cJSON_AddRawToObject(obj, key, text) == NULL)
		b->failed = true;
}

static void add_string(struct build *b, cJSON *obj, const char *key, const char *text)
{
	if (obj == NULL || !cJSON_AddItemToObject(obj, key, json_string(text)))
		b->failed = true;
}

static void add_bool(struct build *b, cJSON *obj, const char *key, bool x)
{
	if (cJSON_AddBoolToObject(obj, key, x) == NULL)
		b->failed = true;
}

/*
 * Adds item (just created, so NULL when that failed) under key, or to the array obj when key is
 * NULL, and returns it; on failure deletes it and returns NULL, which the helpers take as a
 * failed parent.
 */
static cJSON *add_item(struct build *b, cJSON *obj, const char *key, cJSON *item)
{
	if (item == NULL || obj == NULL ||
	    !(key != NULL ? cJSON_AddItemToObject(obj, key, item)
	                  : cJSON_AddItemToArray(obj, item))) {
		cJSON_Delete(item);
		b->failed = true;
		return NULL;
	}
	return item;
}

/* The layout as Megatron-LM and torchtitan take it: strings, null where they cannot say it. */
static void add_layout(struct build *b, cJSON *obj, const struct sim *s)
{
	struct report_layout l;
	cJSON *o = add_item(b, obj, "layout", cJSON_CreateObject());

	if (report_layout_build(s, &l) != 0) {
		b->failed = true;
		return;
	}
	if (o != NULL && l.too_many) {
		if (cJSON_AddNullToObject(o, "megatron") == NULL ||
		    cJSON_AddNullToObject(o, "megatron_flags") == NULL ||
		    cJSON_AddNullToObject(o, "torchtitan") == NULL)
			b->failed = true;
	} else if (o != NULL) {
		add_string(b, o, "megatron", l.megatron);
		if (l.megatron_flags != NULL)
			add_string(b, o, "megatron_flags", l.megatron_flags);
		else if (cJSON_AddNullToObject(o, "megatron_flags") == NULL)
			b->failed = true;
		if (l.torchtitan != NULL)
			add_string(b, o, "torchtitan", l.torchtitan);
		else if (cJSON_AddNullToObject(o, "torchtitan") == NULL)
			b->failed = true;
	}
	report_layout_release(&l);
}

static cJSON *costs_object(struct build *b, const struct sim *s)
{
	const struct config *c = &s->config;
	const char *unit = s->cost->time_unit;
	bool split = s->sched->split, model = s->cost->model != NULL;
	cJSON *o = cJSON_CreateObject();
	double bw, lat;

	/* with a model, op times are per stage (under "model") and messages priced per hop */
	config_link(c, &bw, &lat);
	add_string(b, o, "time_unit", unit);
	add_number(b, o, "t_f", model ? NAN : c->t_f);
	add_number(b, o, "t_b", model ? NAN : c->t_b);
	add_number(b, o, "t_w", model ? NAN : c->t_w);
	add_number(b, o, "t_comm", model || bw > 0 ? NAN : c->t_comm);
	add_number(b, o, "msg_bytes",
	           model ? (double)s->cost->model->msg_bytes : (double)c->msg_bytes);
	add_number(b, o, "bandwidth", model ? s->cost->model->link_bandwidth : bw > 0 ? bw : NAN);
	add_number(b, o, "latency", model ? s->cost->model->link_latency : bw > 0 ? lat : NAN);
	add_string(b, o, "comm", config_comm_name(c->comm));
	add_string(b, o, "duplex", config_duplex_name(c->duplex));
	add_number(b, o, "w_mem_fraction", split ? c->w_mem_fraction : NAN);
	add_number(b, o, "overlap_factor", s->sched->overlap ? c->overlap_factor : NAN);
	if (c->nstage_scale > 0) {
		cJSON *a = add_item(b, o, "stage_scale", cJSON_CreateArray());

		for (int i = 0; i < c->nstage_scale; i++)
			add_item(b, a, NULL, cJSON_CreateNumber(c->stage_scale[i]));
	} else {
		add_number(b, o, "stage_scale", NAN);
	}
	return o;
}

/* One number per communication kind, keyed prefix + its name (exposed_dp, comm_tp, ...). */
static void add_comm(struct build *b, cJSON *o, const char *prefix, const double *v)
{
	for (int k = 0; k < COMM_KINDS; k++) {
		char key[32];

		snprintf(key, sizeof(key), "%s%s", prefix, comm_kind_info((enum comm_kind)k)->name);
		add_number(b, o, key, v[k]);
	}
}

static cJSON *devices_array(struct build *b, const struct metrics *m)
{
	cJSON *a = cJSON_CreateArray();

	for (int d = 0; d < m->p; d++) {
		const struct device_metrics *dm = &m->devices[d];
		cJSON *o = add_item(b, a, NULL, cJSON_CreateObject());

		add_number(b, o, "device", d);
		add_number(b, o, "busy", dm->busy);
		add_number(b, o, "idle", dm->idle);
		add_number(b, o, "utilization", dm->utilization);
		add_number(b, o, "peak_activations", dm->peak_activations);
		add_number(b, o, "comm_wait", dm->comm_wait);
		add_number(b, o, "span", dm->span);
		if (m->has_model) {
			add_number(b, o, "activation_bytes", dm->activation_bytes);
			add_number(b, o, "state_bytes", dm->state_bytes);
			add_number(b, o, "memory_bytes", dm->memory_bytes);
			add_number(b, o, "host_bytes", dm->host_bytes);
			add_number(b, o, "memory_capacity_bytes", dm->capacity_bytes);
			add_bool(b, o, "oom", dm->oom);
			add_number(b, o, "dp_allreduce", dm->dp_allreduce);
			add_number(b, o, "end", dm->end);
			add_number(b, o, "optimizer", dm->optimizer);
			add_comm(b, o, "exposed_", dm->exposed);
			add_comm(b, o, "comm_", dm->comm);
		}
	}
	return a;
}

/* The step taken apart (metrics.h, struct step_breakdown). */
static cJSON *breakdown_object(struct build *b, const struct metrics *m)
{
	const struct step_breakdown *x = &m->breakdown;
	cJSON *o = cJSON_CreateObject();

	add_number(b, o, "device", x->device);
	add_number(b, o, "compute", x->compute);
	add_number(b, o, "bubble", x->bubble);
	add_number(b, o, "exposed_p2p", x->exposed_p2p);
	add_comm(b, o, "exposed_", x->exposed);
	add_comm(b, o, "hidden_", x->hidden);
	add_number(b, o, "optimizer", x->optimizer);
	add_number(b, o, "other", x->other);
	return o;
}

static cJSON *p2p_object(struct build *b, const struct metrics *m)
{
	cJSON *o = cJSON_CreateObject(), *chans;

	add_number(b, o, "messages", (double)m->messages);
	add_number(b, o, "bytes", (double)m->bytes);
	add_number(b, o, "time", m->p2p_time);
	chans = add_item(b, o, "channels", cJSON_CreateArray());
	for (int i = 0; i < m->nchannels; i++) {
		const struct channel_metrics *cm = &m->channels[i];
		cJSON *c = add_item(b, chans, NULL, cJSON_CreateObject());

		add_number(b, c, "src", cm->src);
		add_number(b, c, "dst", cm->dst);
		add_number(b, c, "messages", (double)cm->messages);
		add_number(b, c, "bytes", (double)cm->bytes);
		add_number(b, c, "time", cm->time);
		add_number(b, c, "utilization", cm->utilization);
	}
	return o;
}

/* The critical path (struct critical_metrics) under "critical_path": null when the run kept no
 * op times. */
static void add_critical(struct build *b, cJSON *obj, const struct metrics *m)
{
	static const char *const kinds[CRITICAL_KINDS] = {"F", "B", "W", "BW", "pair"};
	const struct critical_metrics *k = &m->critical;
	cJSON *o, *a, *x;

	if (!k->has) {
		add_number(b, obj, "critical_path", NAN);
		return;
	}
	o = add_item(b, obj, "critical_path", cJSON_CreateObject());
	add_number(b, o, "time", k->length);
	add_number(b, o, "device", k->device);
	add_number(b, o, "ops", (double)k->ops);
	add_number(b, o, "messages", (double)k->messages);
	a = add_item(b, o, "devices", cJSON_CreateArray());
	for (int d = 0; d < m->p; d++)
		add_item(b, a, NULL, cJSON_CreateNumber(k->devices[d]));
	x = add_item(b, o, "kinds", cJSON_CreateObject());
	for (int j = 0; j < CRITICAL_KINDS; j++)
		add_number(b, x, kinds[j], k->kind[j]);
	add_number(b, o, "transfer", k->transfer);
	add_number(b, o, "tail", k->tail);
}

/* Adds {"f": ..., "b": ..., "w": ...} under key. */
static void add_flops(struct build *b, cJSON *obj, const char *key, const struct cost_flops *x)
{
	cJSON *o = add_item(b, obj, key, cJSON_CreateObject());

	add_number(b, o, "f", x->f);
	add_number(b, o, "b", x->b);
	add_number(b, o, "w", x->w);
}

/* The mixture of experts of a model-priced run under key "moe": null for a dense model. */
static void add_moe(struct build *b, cJSON *obj, const struct cost_model *k)
{
	cJSON *o;

	if (k->experts == 0) {
		add_item(b, obj, "moe", cJSON_CreateNull());
		return;
	}
	o = add_item(b, obj, "moe", cJSON_CreateObject());
	add_number(b, o, "experts", k->experts);
	add_number(b, o, "top_k", k->top_k);
	add_number(b, o, "expert_ffn", k->expert_ffn);
	add_number(b, o, "shared_experts", k->shared_experts);
	add_number(b, o, "dense_layers", k->dense_layers);
	add_number(b, o, "ep", k->ep);
	add_number(b, o, "expert_imbalance", k->expert_imbalance);
	add_string(b, o, "ep_dispatch", config_ep_dispatch_name(k->ep_dispatch));
	add_number(b, o, "layer_params", k->moe_params);
	add_number(b, o, "routed_params", k->routed_params);
	add_flops(b, o, "layer_flops", &k->moe_flops);
	add_flops(b, o, "layer_times", &k->types[0].moe_ms);
	add_flops(b, o, "expert_times", &k->types[0].experts_ms);
	add_flops(b, o, "router_times", &k->types[0].router_ms);
	add_flops(b, o, "shared_times", &k->types[0].shared_ms);
	add_number(b, o, "layer_activation_bytes", k->moe_act_bytes);
	add_number(b, o, "all_to_all", k->a2a_ms);
	add_number(b, o, "dispatch", k->dispatch_ms);
	add_number(b, o, "ep_node_limit", k->ep_node_limit);
	add_number(b, o, "dispatch_bytes", k->dispatch_bytes > 0 ? k->dispatch_bytes : k->dtype_bytes);
}

/* A GPU's figures as the per-op model uses them, memory bandwidth to its reserve. */
static void add_gpu_figures(struct build *b, cJSON *o, const struct cost_type *ty)
{
	add_number(b, o, "memory_bandwidth", ty->hw.memory_bandwidth);
	add_number(b, o, "sms", ty->hw.sms);
	add_number(b, o, "gemm_efficiency", ty->hw.gemm_efficiency);
	add_number(b, o, "fp8_tflops", ty->hw.fp8_tflops);
	add_number(b, o, "fp8_gemm_efficiency", ty->hw.fp8_gemm_efficiency);
	add_number(b, o, "sustained_share", ty->hw.sustained);
	add_number(b, o, "attention_efficiency", ty->hw.attention_efficiency);
	add_number(b, o, "attention_bwd_efficiency", ty->hw.attention_bwd_efficiency);
	add_number(b, o, "memory_efficiency", ty->hw.memory_efficiency);
	add_number(b, o, "kernel_overhead", ty->hw.kernel_overhead);
	add_number(b, o, "host_bandwidth", ty->host_bandwidth);
	add_number(b, o, "gpu_memory_bytes", ty->capacity_bytes);
	add_number(b, o, "memory_reserve_bytes", ty->reserve_bytes);
}

/* With mixed GPUs, each device's GPU ("device_gpus") and each GPU's figures and layer times
 * ("gpu_types", by their first device); nothing when every device has one GPU. */
static void add_gpu_types(struct build *b, cJSON *obj, const struct cost_model *k, int p)
{
	cJSON *names, *types;

	if (k->ntypes < 2)
		return;
	names = add_item(b, obj, "device_gpus", cJSON_CreateArray());
	types = add_item(b, obj, "gpu_types", cJSON_CreateArray());
	for (int d = 0; d < p && names != NULL; d++)
		add_item(b, names, NULL, json_string(cost_device_type(k, d)->gpu));
	for (int t = 0; t < k->ntypes && types != NULL; t++) {
		const struct cost_type *ty = &k->types[t];
		cJSON *o = add_item(b, types, NULL, cJSON_CreateObject());

		if (o == NULL)
			return;
		add_string(b, o, "gpu", ty->gpu);
		add_number(b, o, "tflops", ty->hw.tflops);
		add_gpu_figures(b, o, ty);
		add_flops(b, o, "layer_times", &ty->layer_ms);
		add_flops(b, o, "head_times", &ty->head_ms);
		if (k->experts > 0)
			add_flops(b, o, "moe_layer_times", &ty->moe_ms);
	}
}

/* The resolved model, hardware, parallelism and per-stage prices of a model-priced run; the
 * GPU's figures are device 0's (add_gpu_types gives the others'). */
static cJSON *model_object(struct build *b, const struct sim *s)
{
	const struct cost_model *k = s->cost->model;
	const struct cost_type *t0 = &k->types[0];
	const struct cost *c = s->cost;
	cJSON *o = cJSON_CreateObject(), *stages;
	bool uniform = true;

	add_string(b, o, "name", k->model);
	add_number(b, o, "layers", k->layers);
	add_number(b, o, "hidden", k->hidden);
	add_number(b, o, "ffn", k->ffn);
	add_number(b, o, "heads", k->heads);
	add_number(b, o, "kv_heads", k->kv_heads);
	add_number(b, o, "vocab", k->vocab);
	add_string(b, o, "mlp", k->gated_mlp ? "gated" : "plain");
	add_bool(b, o, "tied_embeddings", k->tied);
	add_string(b, o, "gpu", t0->gpu);
	add_gpu_types(b, o, k, s->sched->p);
	add_number(b, o, "tflops", t0->hw.tflops);
	add_number(b, o, "efficiency", k->efficiency);
	add_bool(b, o, "fp8", k->fp8);
	add_gpu_figures(b, o, t0);
	add_string(b, o, "link", k->link);
	add_number(b, o, "link_bandwidth", k->link_bandwidth);
	add_number(b, o, "link_latency", k->link_latency);
	add_string(b, o, "inter_link", k->inter_link);
	add_number(b, o, "inter_bandwidth", k->inter_bandwidth);
	add_number(b, o, "inter_latency", k->inter_latency);
	add_number(b, o, "p2p_overhead", k->p2p_overhead);
	add_number(b, o, "p2p_efficiency", k->p2p_efficiency);
	add_number(b, o, "seq", k->seq);
	add_number(b, o, "mbs", k->mbs);
	add_number(b, o, "tp", k->tp);
	add_number(b, o, "dp", k->dp);
	add_number(b, o, "gpus", k->gpus);
	add_number(b, o, "gpus_per_node", k->gpus_per_node);
	add_number(b, o, "global_batch", (double)s->sched->m * k->mbs * k->dp);
	add_bool(b, o, "flash_attention", k->flash_attention);
	add_string(b, o, "attention_kernel", config_attention_kernel_name(k->attention_kernel));
	add_bool(b, o, "sequence_parallel", k->sequence_parallel);
	add_number(b, o, "unfused_attention_bytes", k->unfused_attention_bytes);
	add_number(b, o, "loss_bytes", k->loss_bytes);
	add_number(b, o, "loss_bwd_bytes", k->loss_bwd_bytes);
	add_number(b, o, "grad_accum_bytes", k->grad_accum_bytes);
	add_string(b, o, "recompute", config_recompute_name(k->recompute));
	add_bool(b, o, "distributed_optimizer", k->distributed_optimizer);
	add_number(b, o, "cp", k->cp);
	add_string(b, o, "cp_comm", config_cp_comm_name(k->cp_comm));
	add_string(b, o, "tp_overlap", config_tp_overlap_name(k->tp_overlap));
	add_bool(b, o, "overlap_grad_reduce", k->overlap_grad_reduce);
	add_bool(b, o, "overlap_param_gather", k->overlap_param_gather);
	add_bool(b, o, "grad_reduce_scatter", k->distributed_optimizer && k->grad_reduce_scatter);
	add_number(b, o, "bucket_size", k->bucket_params);
	add_number(b, o, "comm_slowdown", k->comm_slowdown);
	add_number(b, o, "collective_efficiency", k->collective_efficiency);
	add_number(b, o, "optimizer_bytes", k->optimizer_bytes);
	add_number(b, o, "grad_reduce_bytes", k->grad_reduce_bytes);
	/* the step's optimizer term, on its ticks */
	add_number(b, o, "optimizer_time", s->metrics.breakdown.optimizer);
	add_number(b, o, "step_overhead", k->step_overhead_ms);
	add_number(b, o, "bytes_per_param", k->bytes_per_param);
	add_number(b, o, "dtype_bytes", k->dtype_bytes);
	add_number(b, o, "layer_params", k->layer_params);
	add_flops(b, o, "layer_flops", &k->layer_flops);
	add_flops(b, o, "head_flops", &k->head_flops);
	add_flops(b, o, "layer_times", &t0->layer_ms);
	add_flops(b, o, "head_times", &t0->head_ms);
	add_number(b, o, "layer_activation_bytes", k->layer_act_bytes);
	add_number(b, o, "msg_bytes", (double)k->msg_bytes);
	add_number(b, o, "tp_allreduce", k->tp_allreduce_ms);
	add_number(b, o, "step_flops", k->step_flops);
	add_number(b, o, "q_dim", k->q_dim);
	add_number(b, o, "kv_dim", k->kv_dim);
	add_number(b, o, "head_dim", k->q_dim / k->heads);
	add_number(b, o, "v_head_dim", k->o_dim / k->heads);
	add_number(b, o, "q_lora_rank", k->q_lora_rank);
	add_number(b, o, "kv_lora_rank", k->kv_lora_rank);
	add_number(b, o, "rope_dim", k->rope_dim);
	add_number(b, o, "mtp_layers", k->mtp_layers);
	/* the share every stage offloads; null when they differ (--stage-offload), each stage
	 * saying its own */
	for (int st = 0; st < c->S; st++)
		uniform &= k->stage_offload[st] == k->offload;
	add_item(b, o, "offload",
	         uniform ? cJSON_CreateNumber(k->offload) : cJSON_CreateNull());
	add_moe(b, o, k);
	add_layout(b, o, s);
	stages = add_item(b, o, "stages", cJSON_CreateArray());
	for (int st = 0; st < c->S; st++) {
		cJSON *x = add_item(b, stages, NULL, cJSON_CreateObject());

		add_number(b, x, "stage", st);
		add_number(b, x, "layers", k->stage_layers[st]);
		add_number(b, x, "expert_layers", k->stage_moe[st]);
		add_string(b, x, "recompute", config_recompute_name(k->stage_recompute[st]));
		add_number(b, x, "offload", k->stage_offload[st]);
		add_number(b, x, "t_f", pp_time_to_units(c->t_f[st], c->tick));
		add_number(b, x, "t_b", pp_time_to_units(c->t_b[st], c->tick));
		add_number(b, x, "t_w", pp_time_to_units(c->t_w[st], c->tick));
		add_number(b, x, "activation_bytes", (double)c->act[st]);
	}
	return o;
}

/* The figures of a set of samples. */
static cJSON *stats_object(struct build *b, const struct sample_stats *x)
{
	cJSON *o = cJSON_CreateObject();

	add_number(b, o, "mean", x->mean);
	add_number(b, o, "p50", x->p50);
	add_number(b, o, "p90", x->p90);
	add_number(b, o, "p99", x->p99);
	add_number(b, o, "min", x->min);
	add_number(b, o, "max", x->max);
	return o;
}

/* How many samples each device held the most of the critical path in, by device. */
static cJSON *critical_array(struct build *b, const struct samples *x)
{
	cJSON *a = cJSON_CreateArray();
	uint64_t *count = pp_mallocarray((size_t)x->p, sizeof(*count));

	if (count == NULL) {
		b->failed = true;
		return a;
	}
	samples_critical_counts(x, count);
	for (int d = 0; d < x->p; d++)
		add_item(b, a, NULL, cJSON_CreateNumber((double)count[d]));
	free(count);
	return a;
}

/* A noise option's value as a user would write it. */
static void add_option(struct build *b, cJSON *o, const struct config *c, const char *key)
{
	char buf[1100];

	add_string(b, o, key, config_format_value(c, config_option_by_key(key), buf, sizeof(buf)));
}

/* The run's stragglers and noise samples. */
static cJSON *noise_object(struct build *b, const struct sim *s)
{
	cJSON *o = cJSON_CreateObject();
	const struct samples *x = s->samples;
	struct sample_stats st;

	add_option(b, o, &s->config, "stragglers");
	add_number(b, o, "samples", x != NULL ? (double)x->n : 0);
	add_u64(b, o, "seed", s->config.seed);
	add_option(b, o, &s->config, "jitter");
	add_option(b, o, &s->config, "link_jitter");
	add_option(b, o, &s->config, "stalls");
	if (x == NULL || x->n == 0) {
		add_number(b, o, "step", NAN);
		add_number(b, o, "bubble_ratio", NAN);
		add_number(b, o, "critical_devices", NAN);
		return o;
	}
	if (samples_stats(x, true, &st) != 0)
		b->failed = true;
	add_item(b, o, "step", stats_object(b, &st));
	if (samples_stats(x, false, &st) != 0)
		b->failed = true;
	add_item(b, o, "bubble_ratio", stats_object(b, &st));
	add_item(b, o, "critical_devices", critical_array(b, x));
	return o;
}

cJSON *report_json_build(const struct sim *s)
{
	const struct metrics *m = &s->metrics;
	cJSON *root = cJSON_CreateObject();
	struct build b = {root == NULL};

	add_number(&b, root, "schema_version", REPORT_SCHEMA_VERSION);
	add_string(&b, root, "schedule", s->config.schedule);
	add_number(&b, root, "p", s->sched->p);
	add_number(&b, root, "v", s->sched->v);
	add_number(&b, root, "m", s->sched->m);
	add_number(&b, root, "makespan", m->makespan);
	add_number(&b, root, "bubble_ratio", m->bubble_ratio);
	add_number(&b, root, "bubble_ratio_theory", m->bubble_ratio_theory);
	add_number(&b, root, "bubble_overhead", m->bubble_overhead);
	add_number(&b, root, "bubble_rate_span", m->bubble_rate_span);
	add_number(&b, root, "utilization", m->utilization);
	add_item(&b, root, "devices", devices_array(&b, m));
	add_item(&b, root, "p2p", p2p_object(&b, m));
	add_critical(&b, root, m);
	add_item(&b, root, "costs", costs_object(&b, s));
	add_number(&b, root, "group_size", s->sched->group > 0 ? s->sched->group : NAN);
	add_number(&b, root, "step_time", m->has_model ? m->step_time : NAN);
	if (m->has_model)
		add_item(&b, root, "step_breakdown", breakdown_object(&b, m));
	else
		add_number(&b, root, "step_breakdown", NAN);
	add_number(&b, root, "tokens_per_s", m->has_model ? m->tokens_per_s : NAN);
	add_number(&b, root, "samples_per_s", m->has_model ? m->samples_per_s : NAN);
	add_number(&b, root, "mfu", m->has_model ? m->mfu : NAN);
	if (m->has_model)
		add_item(&b, root, "model", model_object(&b, s));
	else
		add_number(&b, root, "model", NAN);
	if (s->samples != NULL || s->config.stragglers.n > 0)
		add_item(&b, root, "noise", noise_object(&b, s));
	else
		add_number(&b, root, "noise", NAN);
	if (b.failed) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

/*
 * The reports' JSON text, written straight to the stream in cJSON 1.7's layout (a tab per level,
 * ":\t" after a key, ", " between array items), without building the text in memory first;
 * a number as the shortest decimal that reads back as the same double (cJSON_Print's %1.15g
 * reads back only within a unit in the last place), an integer up to 2^53 with all its digits.
 * A unit test holds it to cJSON_Print's layout and to exact numbers.
 */
static void put_string(FILE *out, const char *s)
{
	putc('"', out);
	for (; s != NULL && *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		static const char esc[] = {['"'] = '"', ['\\'] = '\\', ['\b'] = 'b',
		                           ['\f'] = 'f', ['\n'] = 'n',  ['\r'] = 'r', ['\t'] = 't'};

		if (c < sizeof(esc) && esc[c] != 0) {
			putc('\\', out);
			putc(esc[c], out);
		} else if (c < 0x20) {
			fprintf(out, "\\u%04x", c);
		} else {
			putc(c, out);
		}
	}
	putc('"', out);
}

static void put_number(FILE *out, double d)
{
	char buf[NUMFMT_MAX];

	if (isnan(d) || isinf(d)) {
		fputs("null", out);
	} else if (fabs(d) <= 9007199254740992.0 && d == (double)(long long)d &&
	           (d != 0 || !signbit(d))) {
		/* an integer a double holds exactly (to 2^53), all its digits */
		numfmt_i64(buf, (long long)d);
		fputs(buf, out);
	} else {
		/* the shortest of 15, 16 and 17 digits that reads back as d itself */
		numfmt_shortest(buf, d);
		fputs(buf, out);
	}
}

static void put_tabs(FILE *out, int n)
{
	while (n-- > 0)
		putc('\t', out);
}

/* Writes item at nesting depth (of the arrays and objects around it); -1 for a kind cJSON
 * would not print. */
static int put_value(FILE *out, const cJSON *item, int depth)
{
	const cJSON *c;

	switch (item->type & 0xff) {
	case cJSON_NULL:
		fputs("null", out);
		return 0;
	case cJSON_False:
		fputs("false", out);
		return 0;
	case cJSON_True:
		fputs("true", out);
		return 0;
	case cJSON_Number:
		put_number(out, item->valuedouble);
		return 0;
	case cJSON_Raw:
		if (item->valuestring == NULL)
			return -1;
		fputs(item->valuestring, out);
		return 0;
	case cJSON_String:
		put_string(out, item->valuestring);
		return 0;
	case cJSON_Array:
		putc('[', out);
		for (c = item->child; c != NULL; c = c->next) {
			if (put_value(out, c, depth + 1) != 0)
				return -1;
			if (c->next != NULL)
				fputs(", ", out);
		}
		putc(']', out);
		return 0;
	case cJSON_Object:
		fputs("{\n", out);
		for (c = item->child; c != NULL; c = c->next) {
			put_tabs(out, depth + 1);
			put_string(out, c->string);
			fputs(":\t", out);
			if (put_value(out, c, depth + 1) != 0)
				return -1;
			fputs(c->next != NULL ? ",\n" : "\n", out);
		}
		put_tabs(out, depth);
		putc('}', out);
		return 0;
	default:
		return -1;
	}
}

int report_json_print(FILE *out, cJSON *item)
{
	int rc = item != NULL ? put_value(out, item, 0) : -1;

	cJSON_Delete(item);
	if (rc == 0)
		putc('\n', out);
	return rc;
}

int report_json_write(FILE *out, const struct sim *s)
{
	return report_json_print(out, report_json_build(s));
}

int report_replay_json(FILE *out, const struct replay *r)
{
	const struct sim *s = replay_last(r);
	cJSON *root = report_json_build(s), *o, *w;
	struct build b = {root == NULL};
	double base = isnan(r->measured) ? r->replay->metrics.makespan : r->measured;

	o = add_item(&b, root, "replay", cJSON_CreateObject());
	add_string(&b, o, "file", r->step.path);
	add_number(&b, o, "files", r->files);
	if (r->order != NULL)
		add_string(&b, o, "order", r->order->name);
	else
		add_number(&b, o, "order", NAN);
	add_number(&b, o, "messages_measured", (double)r->step.nmsgs);
	add_number(&b, o, "measured_step", r->measured);
	add_number(&b, o, "replayed_step", r->replay->metrics.makespan);
	if (r->whatif == NULL) {
		add_number(&b, o, "what_if", NAN);
	} else {
		w = add_item(&b, o, "what_if", cJSON_CreateObject());
		add_string(&b, w, "change", r->change);
		add_number(&b, w, "slowest_device", r->slowest >= 0 ? r->slowest : NAN);
		if (r->slowest >= 0) {
			static const char *const kinds[MEASURED_KINDS] = {"F", "B", "W", "BW",
			                                                  "pairs"};
			cJSON *f = add_item(&b, w, "factors", cJSON_CreateObject());

			cJSON *as = NULL;

			for (int k = 0; k < MEASURED_KINDS; k++)
				add_number(&b, f, kinds[k], r->factor[k]);
			as = add_item(&b, w, "as_others", cJSON_CreateArray());
			for (int k = 0; k < MEASURED_KINDS; k++)
				if (r->as_others[k])
					add_item(&b, as, NULL, cJSON_CreateString(kinds[k]));
		} else {
			add_number(&b, w, "factors", NAN);
			add_number(&b, w, "as_others", NAN);
		}
		add_number(&b, w, "step", r->whatif->metrics.makespan);
		add_number(&b, w, "difference", r->whatif->metrics.makespan - base);
		add_number(&b, w, "ratio", r->whatif->metrics.makespan / base);
	}
	if (b.failed) {
		cJSON_Delete(root);
		return -1;
	}
	return report_json_print(out, root);
}
