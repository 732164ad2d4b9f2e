/* The JSON report, built with cJSON; keys and their order are the contract of DESIGN.md. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "formats.h"

/* Adds a number, or null for NaN (a figure that does not apply). */
static void add_number(cJSON *obj, const char *key, double x)
{
	if (isnan(x))
		cJSON_AddNullToObject(obj, key);
	else
		cJSON_AddNumberToObject(obj, key, x);
}

static cJSON *costs_object(const struct sim *s)
{
	const struct config *c = &s->config;
	const char *unit = s->cost->time_unit;
	bool split = s->sched->split, model = s->cost->model != NULL;
	cJSON *o = cJSON_CreateObject();
	double bw, lat;

	/* with a model, op times are per stage (under "model") and messages priced per hop */
	config_link(c, &bw, &lat);
	cJSON_AddStringToObject(o, "time_unit", unit);
	add_number(o, "t_f", model ? NAN : c->t_f);
	add_number(o, "t_b", model ? NAN : c->t_b);
	add_number(o, "t_w", model ? NAN : c->t_w);
	add_number(o, "t_comm", model || bw > 0 ? NAN : c->t_comm);
	add_number(o, "msg_bytes",
	           model ? (double)s->cost->model->msg_bytes : (double)c->msg_bytes);
	add_number(o, "bandwidth", model ? s->cost->model->link_bandwidth : bw > 0 ? bw : NAN);
	add_number(o, "latency", model ? s->cost->model->link_latency : bw > 0 ? lat : NAN);
	cJSON_AddStringToObject(o, "comm", config_comm_name(c->comm));
	cJSON_AddStringToObject(o, "duplex", config_duplex_name(c->duplex));
	add_number(o, "w_mem_fraction", split ? c->w_mem_fraction : NAN);
	add_number(o, "overlap_factor", s->sched->overlap ? c->overlap_factor : NAN);
	if (c->nstage_scale > 0) {
		cJSON *a = cJSON_CreateArray();

		for (int i = 0; i < c->nstage_scale; i++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(c->stage_scale[i]));
		cJSON_AddItemToObject(o, "stage_scale", a);
	} else {
		cJSON_AddNullToObject(o, "stage_scale");
	}
	return o;
}

static cJSON *devices_array(const struct metrics *m)
{
	cJSON *a = cJSON_CreateArray();

	for (int d = 0; d < m->p; d++) {
		const struct device_metrics *dm = &m->devices[d];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "device", d);
		add_number(o, "busy", dm->busy);
		add_number(o, "idle", dm->idle);
		add_number(o, "utilization", dm->utilization);
		add_number(o, "peak_activations", dm->peak_activations);
		add_number(o, "comm_wait", dm->comm_wait);
		add_number(o, "span", dm->span);
		if (m->has_model) {
			add_number(o, "activation_bytes", dm->activation_bytes);
			add_number(o, "state_bytes", dm->state_bytes);
			add_number(o, "memory_bytes", dm->memory_bytes);
			add_number(o, "memory_capacity_bytes", m->memory_capacity_bytes);
			cJSON_AddBoolToObject(o, "oom", dm->oom);
			add_number(o, "dp_allreduce", dm->dp_allreduce);
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *p2p_object(const struct metrics *m)
{
	cJSON *o = cJSON_CreateObject(), *chans = cJSON_CreateArray();

	add_number(o, "messages", (double)m->messages);
	add_number(o, "bytes", (double)m->bytes);
	add_number(o, "time", m->p2p_time);
	for (int i = 0; i < m->nchannels; i++) {
		const struct channel_metrics *cm = &m->channels[i];
		cJSON *c = cJSON_CreateObject();

		cJSON_AddNumberToObject(c, "src", cm->src);
		cJSON_AddNumberToObject(c, "dst", cm->dst);
		add_number(c, "messages", (double)cm->messages);
		add_number(c, "bytes", (double)cm->bytes);
		add_number(c, "time", cm->time);
		add_number(c, "utilization", cm->utilization);
		cJSON_AddItemToArray(chans, c);
	}
	cJSON_AddItemToObject(o, "channels", chans);
	return o;
}

/* Adds {"f": ..., "b": ..., "w": ...} under key. */
static void add_flops(cJSON *obj, const char *key, const struct cost_flops *x)
{
	cJSON *o = cJSON_CreateObject();

	add_number(o, "f", x->f);
	add_number(o, "b", x->b);
	add_number(o, "w", x->w);
	cJSON_AddItemToObject(obj, key, o);
}

/* The resolved model, hardware, parallelism and per-stage prices of a model-priced run. */
static cJSON *model_object(const struct sim *s)
{
	const struct cost_model *k = s->cost->model;
	const struct cost *c = s->cost;
	cJSON *o = cJSON_CreateObject(), *stages = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "name", k->model);
	cJSON_AddNumberToObject(o, "layers", k->layers);
	cJSON_AddNumberToObject(o, "hidden", k->hidden);
	cJSON_AddNumberToObject(o, "ffn", k->ffn);
	cJSON_AddNumberToObject(o, "heads", k->heads);
	cJSON_AddNumberToObject(o, "kv_heads", k->kv_heads);
	cJSON_AddNumberToObject(o, "vocab", k->vocab);
	cJSON_AddStringToObject(o, "mlp", k->gated_mlp ? "gated" : "plain");
	cJSON_AddBoolToObject(o, "tied_embeddings", k->tied);
	cJSON_AddStringToObject(o, "gpu", k->gpu);
	add_number(o, "tflops", k->tflops);
	add_number(o, "efficiency", k->efficiency);
	add_number(o, "gpu_memory_bytes", k->capacity_bytes);
	add_number(o, "memory_reserve_bytes", k->reserve_bytes);
	cJSON_AddStringToObject(o, "link", k->link);
	add_number(o, "link_bandwidth", k->link_bandwidth);
	add_number(o, "link_latency", k->link_latency);
	cJSON_AddStringToObject(o, "inter_link", k->inter_link);
	add_number(o, "inter_bandwidth", k->inter_bandwidth);
	add_number(o, "inter_latency", k->inter_latency);
	cJSON_AddNumberToObject(o, "seq", k->seq);
	cJSON_AddNumberToObject(o, "mbs", k->mbs);
	cJSON_AddNumberToObject(o, "tp", k->tp);
	cJSON_AddNumberToObject(o, "dp", k->dp);
	cJSON_AddNumberToObject(o, "gpus", k->gpus);
	cJSON_AddNumberToObject(o, "gpus_per_node", k->gpus_per_node);
	add_number(o, "global_batch", (double)s->sched->m * k->mbs * k->dp);
	cJSON_AddBoolToObject(o, "flash_attention", k->flash_attention);
	cJSON_AddStringToObject(o, "recompute",
	                        k->recompute == PP_RECOMPUTE_FULL ? "full" : "none");
	cJSON_AddBoolToObject(o, "distributed_optimizer", k->distributed_optimizer);
	add_number(o, "bytes_per_param", k->bytes_per_param);
	cJSON_AddNumberToObject(o, "dtype_bytes", k->dtype_bytes);
	add_number(o, "layer_params", k->layer_params);
	add_flops(o, "layer_flops", &k->layer_flops);
	add_flops(o, "head_flops", &k->head_flops);
	add_number(o, "layer_activation_bytes", k->layer_act_bytes);
	add_number(o, "msg_bytes", (double)k->msg_bytes);
	add_number(o, "tp_allreduce", k->tp_allreduce_ms);
	add_number(o, "step_flops", k->step_flops);
	for (int st = 0; st < c->S; st++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddNumberToObject(x, "stage", st);
		cJSON_AddNumberToObject(x, "layers", k->stage_layers[st]);
		add_number(x, "t_f", pp_time_to_units(c->t_f[st], c->tick));
		add_number(x, "t_b", pp_time_to_units(c->t_b[st], c->tick));
		add_number(x, "t_w", pp_time_to_units(c->t_w[st], c->tick));
		add_number(x, "activation_bytes", (double)c->act[st]);
		cJSON_AddItemToArray(stages, x);
	}
	cJSON_AddItemToObject(o, "stages", stages);
	return o;
}

cJSON *report_json_build(const struct sim *s)
{
	const struct metrics *m = &s->metrics;
	cJSON *root = cJSON_CreateObject();

	cJSON_AddStringToObject(root, "schedule", s->config.schedule);
	cJSON_AddNumberToObject(root, "p", s->sched->p);
	cJSON_AddNumberToObject(root, "v", s->sched->v);
	cJSON_AddNumberToObject(root, "m", s->sched->m);
	add_number(root, "makespan", m->makespan);
	add_number(root, "bubble_ratio", m->bubble_ratio);
	add_number(root, "bubble_ratio_theory", m->bubble_ratio_theory);
	add_number(root, "bubble_overhead", m->bubble_overhead);
	add_number(root, "bubble_rate_span", m->bubble_rate_span);
	add_number(root, "utilization", m->utilization);
	cJSON_AddItemToObject(root, "devices", devices_array(m));
	cJSON_AddItemToObject(root, "p2p", p2p_object(m));
	cJSON_AddItemToObject(root, "costs", costs_object(s));
	add_number(root, "group_size", s->sched->group > 0 ? s->sched->group : NAN);
	add_number(root, "step_time", m->has_model ? m->step_time : NAN);
	add_number(root, "tokens_per_s", m->has_model ? m->tokens_per_s : NAN);
	add_number(root, "samples_per_s", m->has_model ? m->samples_per_s : NAN);
	add_number(root, "mfu", m->has_model ? m->mfu : NAN);
	if (m->has_model)
		cJSON_AddItemToObject(root, "model", model_object(s));
	else
		cJSON_AddNullToObject(root, "model");
	return root;
}

int report_json_print(FILE *out, cJSON *item)
{
	char *text = cJSON_Print(item);

	cJSON_Delete(item);
	if (text == NULL)
		return -1;
	fputs(text, out);
	fputc('\n', out);
	cJSON_free(text);
	return 0;
}

int report_json_write(FILE *out, const struct sim *s)
{
	return report_json_print(out, report_json_build(s));
}
