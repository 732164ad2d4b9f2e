/*
 * Prices of serving micro-batches. Explicit: step + token x T + attn x A / 1000 time units per
 * stage (T new tokens, A the attention work sum of n x (context + (n+1)/2)), times the stage's
 * scale. From a model: the larger of compute time (2 x parameters x T + 4 x hidden x A FLOPs per
 * layer, the LM head's 2 x hidden x vocab per produced token on the last stage, over tp) and
 * memory time (the stage's layers and LM head and the KV cache it reads, at dtype_bytes per
 * element, over the GPU's memory bandwidth; the input embedding is a lookup), plus two
 * tensor-parallel all-reduces per layer, times the stage's scale (at least 1: memory runs at
 * the whole bandwidth, which a device cannot beat).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/preset.h"
#include "ppsim/sched.h"
#include "serve_internal.h"

/* Ticks of a time in units, or -1 when it is out of range. */
static pp_time ticks(double units, int64_t tick)
{
	pp_time t;

	return pp_time_from_units(units, tick, &t) ? t : -1;
}

/*
 * The model laid out over the pipeline's stages: the training cost model of one stage per
 * device, which reads only the layout (which hops leave a node); no schedule is built.
 */
static int init_model(struct serve_pricer *pr, const struct config *c, bool honour_layers,
                      struct pp_error *err)
{
	struct config *tc = pp_malloc(sizeof(*tc));
	uint32_t *device = pp_mallocarray((size_t)pr->stages, sizeof(*device));
	struct cost_layout layout = {pr->stages, pr->stages, device, 1, true};
	const struct cost_model *k;

	if (tc == NULL || device == NULL) {
		free(tc);
		free(device);
		return pp_nomem(err, 1, sizeof(*tc));
	}
	for (int st = 0; st < pr->stages; st++)
		device[st] = (uint32_t)st;
	*tc = *c;
	tc->p = pr->stages;
	tc->v = 1;
	tc->m = 1;
	tc->mbs = 1;
	/* a hop is priced at its link's figures: the message overhead and bandwidth share of
	 * --p2p-overhead and --p2p-efficiency are fit on training frameworks' P2P */
	tc->p2p_overhead = 0;
	tc->p2p_efficiency = 1;
	strcpy(tc->schedule, "1f1b");
	if (!honour_layers) {
		tc->nlayers_per_stage = 0;
		tc->first_stage_layers = 0;
		tc->last_stage_layers = 0;
	}
	/* serving prices stage steps, not the training ops' plans: its --max-ops bounds its steps,
	 * and the plans it does not use are bounded as a training run's are by default */
	tc->max_ops = tc->max_ops > PP_MAX_OPS ? tc->max_ops : PP_MAX_OPS;
	pr->cost = cost_new_model(tc, &layout, err);
	free(device);
	free(tc);
	if (pr->cost == NULL)
		return -1;
	k = pr->cost->model;
	if (k->experts > 0)
		return config_fail(c, config_is_set(c, "experts") ? "experts" : "model", err,
		                   "is a mixture of experts, which ppsim serve does not price yet "
		                   "(its experts' weights and routing); training runs do");
	pr->kv_token = pp_mallocarray((size_t)pr->stages, sizeof(*pr->kv_token));
	pr->weight_bytes = pp_mallocarray((size_t)pr->stages, sizeof(*pr->weight_bytes));
	if (pr->kv_token == NULL || pr->weight_bytes == NULL)
		return pp_nomem(err, (size_t)pr->stages, 2 * sizeof(*pr->kv_token));
	/* a replicated KV head's projections are whole on each rank that shares it, as vLLM's
	 * QKVParallelLinear holds them */
	/* over tp, but latent attention's down projections, whole on every rank (as the weights
	 * count them, cost_stage_params) */
	double split = (k->layer_params - k->tp_whole_params) / k->tp + k->tp_whole_params;

	pr->layer_params = split;
	if (k->kv_lora_rank == 0 && k->tp > k->kv_heads)
		pr->layer_params += k->hidden * (k->kv_dim + k->kvv_dim) *
		                    (1.0 / k->kv_heads - 1.0 / k->tp);
	for (int st = 0; st < pr->stages; st++) {
		/* each GPU holds kv_heads / tp of the heads' keys and values, each at its own
		 * width, or one head whole when tp is larger (vLLM and TensorRT-LLM replicate a KV
		 * head over the ranks that share it); latent attention caches the compressed
		 * latent and the rotary key, whole on every rank (vLLM's and SGLang's MLA) */
		double kv_gpu = k->kv_lora_rank > 0 ? (double)k->kv_lora_rank + k->rope_dim
		                : k->kv_heads >= k->tp ? (k->kv_dim + k->kvv_dim) / k->tp
		                                       : (k->kv_dim + k->kvv_dim) / k->kv_heads;

		pr->kv_token[st] = k->stage_layers[st] * kv_gpu * k->dtype_bytes;
		pr->weight_bytes[st] =
		        (k->device_params[st] + k->stage_layers[st] * (pr->layer_params - split)) *
		        k->dtype_bytes;
	}
	return 0;
}

int serve_pricer_init(struct serve_pricer *pr, const struct config *c, int stages,
                      bool honour_layers, struct pp_error *err)
{
	memset(pr, 0, sizeof(*pr));
	pr->stages = stages;
	pr->tick = PP_TICK_BASE;
	pr->model = config_has_model(c);
	pr->step = c->step_time;
	pr->token = c->token_time;
	pr->attn = c->attn_time;
	pr->tcomm = c->t_comm;
	pr->scale = pp_mallocarray((size_t)stages, sizeof(*pr->scale));
	if (pr->scale == NULL)
		return pp_nomem(err, (size_t)stages, sizeof(*pr->scale));
	for (int st = 0; st < stages; st++) {
		pr->scale[st] = c->nstage_scale > 0 ? c->stage_scale[st] : 1;
		if (pr->model && pr->scale[st] < 1)
			return config_fail(
			        c, "stage_scale", err,
			        "below 1 with a model: serving prices a stage's memory "
			        "traffic at the GPU's whole bandwidth, which no device beats");
	}
	if (pr->model)
		return init_model(pr, c, honour_layers, err);
	/* the cheapest micro-batch, one new token, must take a tick at least, or none at all */
	for (int st = 0; st < stages; st++) {
		double one = (pr->step + pr->token + pr->attn / 1000) * pr->scale[st];

		if (one > 0 && ticks(one, pr->tick) == 0)
			return config_fail(
			        c, c->nstage_scale > 0 ? "stage_scale" : "token_time", err,
			        "makes a one-token micro-batch on stage %d take less than "
			        "one tick (%g time units): it would run as 0",
			        st, 1.0 / (double)pr->tick);
	}
	return 0;
}

void serve_pricer_release(struct serve_pricer *pr)
{
	cost_free(pr->cost);
	free(pr->scale);
	free(pr->kv_token);
	free(pr->weight_bytes);
	memset(pr, 0, sizeof(*pr));
}

/* Milliseconds of a micro-batch on stage st priced from the model. */
static double model_ms(const struct serve_pricer *pr, int st, double tokens, double attention,
                       double logits, double context)
{
	const struct cost_model *k = pr->cost->model;
	double layers = k->stage_layers[st], h = k->hidden, q = k->q_dim, tp = k->tp;
	bool head = st == pr->stages - 1;
	/* the scores at the key width, their product with the values at the value width */
	double flops = layers * (2 * pr->layer_params * tokens + 2 * (q + k->o_dim) * attention / tp) +
	               (head ? 2 * h * k->vocab * logits / tp : 0);
	double bytes =
	        (layers * pr->layer_params + (head ? h * k->vocab / tp : 0)) * k->dtype_bytes +
	        pr->kv_token[st] * context;
	double compute = cost_model_compute_ms(k, &k->types[0].hw, flops);
	double memory = bytes / (k->types[0].hw.memory_bandwidth * 1e6);
	double allreduce = cost_allreduce_ms(tokens * h * k->dtype_bytes, k->tp,
	                                     k->link_bandwidth * k->collective_efficiency,
	                                     k->link_latency);

	return (compute > memory ? compute : memory) + layers * 2 * allreduce;
}

pp_time serve_stage_time(const struct serve_pricer *pr, int s, const struct serve_item *items,
                         size_t n)
{
	double tokens = 0, attention = 0, logits = 0, context = 0;

	for (size_t i = 0; i < n; i++) {
		double x = items[i].n;

		tokens += x;
		attention += x * (items[i].context + (x + 1) / 2);
		logits += items[i].logits;
		context += items[i].context + x;
	}
	if (pr->model)
		return ticks(model_ms(pr, s, tokens, attention, logits, context) * pr->scale[s],
		             pr->tick);
	return ticks((pr->step + pr->token * tokens + pr->attn * attention / 1000) * pr->scale[s],
	             pr->tick);
}

pp_time serve_hop_time(const struct serve_pricer *pr, int s, uint64_t tokens)
{
	const struct cost_model *k;

	if (!pr->model)
		return ticks(pr->tcomm, pr->tick);
	k = pr->cost->model;
	return ticks(k->hop_latency[s] / 1e3 + (double)tokens * k->hidden * k->dtype_bytes / k->tp /
	                                               (k->hop_bandwidth[s] * 1e6),
	             pr->tick);
}

uint64_t serve_hop_bytes(const struct serve_pricer *pr, uint64_t tokens)
{
	const struct cost_model *k = pr->model ? pr->cost->model : NULL;

	return k == NULL
	               ? 0
	               : tokens * (uint64_t)k->hidden * (uint64_t)k->dtype_bytes / (uint64_t)k->tp;
}

pp_time serve_kv_transfer_time(const struct serve_pricer *pr, const struct config *c,
                               uint64_t tokens)
{
	const struct cost_model *k;
	const struct link_preset *lk;
	double most = 0;

	if (!pr->model)
		return ticks(pr->tcomm, pr->tick);
	k = pr->cost->model;
	lk = preset_link(c->kv_link[0] != '\0' ? c->kv_link : k->inter_link);
	for (int st = 0; st < pr->stages; st++)
		most = pr->kv_token[st] > most ? pr->kv_token[st] : most;
	return ticks(lk->latency / 1e3 + (double)tokens * most / (lk->bandwidth * 1e6), pr->tick);
}

void serve_device_memory(const struct serve_pricer *pr, int st, int index, uint64_t peak,
                         struct serve_device_memory *m)
{
	const struct cost_model *k = pr->model ? pr->cost->model : NULL;

	*m = (struct serve_device_memory){index, 0, 0, 0, 0};
	if (k == NULL)
		return;
	m->capacity_bytes = k->types[0].capacity_bytes - k->types[0].reserve_bytes;
	m->weight_bytes = pr->weight_bytes[st];
	m->kv_token_bytes = pr->kv_token[st];
	m->kv_peak_bytes = (double)peak * pr->kv_token[st];
}

int serve_kv_capacity(const struct serve_pricer *pr, const struct config *c,
                      const char *stages_key, uint64_t *tokens, struct pp_error *err)
{
	const struct cost_model *k;
	double fewest = INFINITY;

	if (c->kv_tokens > 0) {
		*tokens = c->kv_tokens;
		return 0;
	}
	if (!pr->model) {
		*tokens = UINT64_MAX;
		return 0;
	}
	k = pr->cost->model;
	for (int st = 0; st < pr->stages; st++) {
		double room = k->types[0].capacity_bytes - k->types[0].reserve_bytes - pr->weight_bytes[st];

		if (room <= pr->kv_token[st])
			return config_fail(
			        c, config_is_set(c, "tp") ? "tp" : stages_key, err,
			        "stage %d's weights take %.1f GB of the GPU's %.1f GB "
			        "(%.1f kept free): no room for a KV cache; add stages or tp",
			        st, pr->weight_bytes[st] / 1e9, k->types[0].capacity_bytes / 1e9,
			        k->types[0].reserve_bytes / 1e9);
		if (floor(room / pr->kv_token[st]) < fewest)
			fewest = floor(room / pr->kv_token[st]);
	}
	*tokens = (uint64_t)fewest;
	return 0;
}
