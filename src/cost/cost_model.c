/*
 * Costs derived from a model, a GPU and links (DESIGN.md, Costs). Per transformer layer with P
 * linear parameters and t = b*s tokens, the forward takes 2Pt + 4bs^2h FLOPs, the input-gradient
 * backward 2Pt + 8bs^2h and the weight-gradient backward 2Pt (the zero-bubble paper's Table 1
 * generalised; the s^2 attention terms are counted without causal masking's halving). The last
 * stage adds the LM head, 2tHV FLOPs for each of F, B and W. Tensor parallelism divides the
 * FLOPs by tp and adds two all-reduces of the layer's activations to F and to B, on the link
 * inside the node. Compute runs at efficiency x peak. Activations follow Korthikanti et al.
 * 2022 with sequence parallelism: 34sbh/tp bytes per layer with flash attention,
 * sbh(34 + 5as/h)/tp without, 2sbh/tp with full recomputation (whose backward then recomputes
 * the forward); the last stage also keeps fp32 logits, 4sbV/tp.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost_internal.h"
#include "ppsim/preset.h"

/* An override when it holds a value (above 0, or at least 0 for latencies), else the preset. */
static int pick(int set, int preset)
{
	return set > 0 ? set : preset;
}

static double pickd(double set, double preset)
{
	return set > 0 ? set : preset;
}

/* Resolves the model, the GPU and the links: presets first, then the config's overrides. */
static int resolve_hardware(const struct config *c, struct cost_model *k, struct pp_error *err)
{
	const struct model_preset *mp = preset_model(c->model);
	const struct gpu_preset *gp = preset_gpu(config_gpu(c));
	const struct link_preset *lk, *ik;

	strcpy(k->model, mp->name);
	strcpy(k->gpu, gp->name);
	k->layers = pick(c->layers, mp->layers);
	k->hidden = pick(c->hidden, mp->hidden);
	k->ffn = pick(c->ffn, mp->ffn);
	k->heads = pick(c->heads, mp->heads);
	k->kv_heads = pick(c->kv_heads, mp->kv_heads);
	k->vocab = pick(c->vocab, mp->vocab);
	k->gated_mlp = c->mlp == PP_MLP_PRESET ? mp->gated_mlp : c->mlp == PP_MLP_GATED;
	k->tied = c->tied < 0 ? mp->tied : c->tied > 0;
	k->tflops = pickd(c->tflops, gp->tflops);
	k->capacity_bytes = pickd(c->gpu_memory, gp->memory_gb) * 1e9;
	k->memory_bandwidth = pickd(c->memory_bandwidth, gp->memory_bandwidth);
	k->reserve_bytes = c->memory_reserve * 1e9;
	if (k->reserve_bytes >= k->capacity_bytes)
		return config_fail(c, "memory_reserve", err, "must be below the GPU's %g GB",
		                   k->capacity_bytes / 1e9);
	k->efficiency = c->efficiency;
	lk = preset_link(c->link[0] ? c->link : gp->link);
	ik = preset_link(c->inter_link[0] ? c->inter_link : gp->inter_link);
	strcpy(k->link, lk->name);
	strcpy(k->inter_link, ik->name);
	k->link_bandwidth = pickd(c->bandwidth, lk->bandwidth);
	k->link_latency = c->latency >= 0 ? c->latency : lk->latency;
	k->inter_bandwidth = pickd(c->inter_bandwidth, ik->bandwidth);
	k->inter_latency = c->inter_latency >= 0 ? c->inter_latency : ik->latency;
	if (k->hidden % k->heads != 0)
		return config_fail(c, "heads", err, "must divide the hidden size %d", k->hidden);
	if (k->heads % k->kv_heads != 0)
		return config_fail(c, "kv_heads", err, "must divide the %d attention heads",
		                   k->heads);
	if (k->efficiency <= 0)
		return config_fail(c, "efficiency", err, "must be above 0");
	return 0;
}

/* Resolves the parallel layout: tp inside a node, dp from --gpus when given. */
static int resolve_parallel(const struct config *c, struct cost_model *k, struct pp_error *err)
{
	k->seq = c->seq;
	k->mbs = c->mbs;
	k->p = c->p;
	k->v = c->v;
	k->tp = c->tp;
	k->gpus_per_node = c->gpus_per_node;
	k->flash_attention = c->flash_attention != 0;
	k->recompute = c->recompute;
	k->distributed_optimizer = c->distributed_optimizer != 0;
	k->bytes_per_param = c->bytes_per_param;
	k->dtype_bytes = c->dtype_bytes;
	if (k->gpus_per_node % k->tp != 0)
		return config_fail(
		        c, "tp", err,
		        "must divide the %d GPUs of a node (tensor parallelism stays inside "
		        "a node)",
		        k->gpus_per_node);
	if (k->heads % k->tp != 0 || k->ffn % k->tp != 0)
		return config_fail(c, "tp", err, "must divide the %d heads and the MLP size %d",
		                   k->heads, k->ffn);
	if (config_dp(c, &k->dp, err) != 0)
		return -1;
	k->gpus = c->p * k->tp * k->dp;
	if (k->bytes_per_param < 4)
		return config_fail(c, "bytes_per_param", err,
		                   "must be at least 4 (bf16 weights and gradients)");
	return 0;
}

/* Layers of each virtual stage: an explicit list, a first/last stage override, or even. */
static int split_layers(const struct config *c, struct cost_model *k, int S, struct pp_error *err)
{
	int first = c->first_stage_layers, last = c->last_stage_layers, rest = k->layers, mid = S;

	k->stage_layers = pp_calloc((size_t)S, sizeof(*k->stage_layers));
	if (k->stage_layers == NULL)
		return pp_nomem(err, (size_t)S, sizeof(*k->stage_layers));
	if (c->nlayers_per_stage > 0 && (first > 0 || last > 0))
		return config_fail(c, "layers_per_stage", err,
		                   "give it or --first-stage-layers/--last-stage-layers, not both");
	if (c->nlayers_per_stage > 0) {
		int sum = 0;

		if (c->nlayers_per_stage != S)
			return config_fail(c, "layers_per_stage", err,
			                   "gives %d stages, the pipeline has p x v = %d",
			                   c->nlayers_per_stage, S);
		for (int s = 0; s < S; s++)
			sum += k->stage_layers[s] = c->layers_per_stage[s];
		if (sum != k->layers)
			return config_fail(c, "layers_per_stage", err,
			                   "sums to %d, the model has %d", sum, k->layers);
		return 0;
	}
	if ((first > 0 || last > 0) && S == 1)
		return config_fail(c, first > 0 ? "first_stage_layers" : "last_stage_layers", err,
		                   "needs more than one stage");
	if (first > 0) {
		rest -= first;
		mid--;
	}
	if (last > 0) {
		rest -= last;
		mid--;
	}
	if (rest < 0 || (mid == 0 && rest != 0) || (mid > 0 && (rest == 0 || rest % mid != 0)))
		return config_fail(c,
		                   first > 0                    ? "first_stage_layers"
		                   : last > 0                   ? "last_stage_layers"
		                   : config_is_set(c, "layers") ? "layers"
		                                                : "p",
		                   err,
		                   "%s's %d layers do not split evenly over p x v = %d stages; set "
		                   "--layers-per-stage or --first-stage-layers/--last-stage-layers",
		                   k->model, k->layers, S);
	for (int s = 0; s < S; s++)
		k->stage_layers[s] = mid > 0 ? rest / mid : 0;
	if (first > 0)
		k->stage_layers[0] = first;
	if (last > 0)
		k->stage_layers[S - 1] = last;
	return 0;
}

double cost_allreduce_ms(double bytes, int n, double bandwidth, double latency)
{
	if (n <= 1)
		return 0;
	return 2.0 * (n - 1) * latency / 1e3 + 2.0 * (n - 1) / n * bytes / (bandwidth * 1e6);
}

/* The per-layer and LM-head FLOPs, parameters and activation bytes. */
static void layer_figures(struct cost_model *k)
{
	double h = k->hidden, s = k->seq, b = k->mbs, t = b * s, a = k->heads;
	double kv = (double)k->kv_heads * (h / a);

	k->layer_params = 2 * h * h + 2 * h * kv + (k->gated_mlp ? 3 : 2) * h * k->ffn;
	k->layer_flops.f = 2 * k->layer_params * t + 4 * b * s * s * h;
	k->layer_flops.b = 2 * k->layer_params * t + 8 * b * s * s * h;
	k->layer_flops.w = 2 * k->layer_params * t;
	k->head_flops.f = k->head_flops.b = k->head_flops.w = 2 * t * h * k->vocab;
	/* Korthikanti et al.'s constants count 16-bit activations; scale for other widths */
	if (k->recompute == PP_RECOMPUTE_FULL)
		k->layer_act_bytes = 2 * s * b * h / k->tp;
	else if (k->flash_attention)
		k->layer_act_bytes = 34 * s * b * h / k->tp;
	else
		k->layer_act_bytes = s * b * h * (34 + 5 * a * s / h) / k->tp;
	k->layer_act_bytes *= k->dtype_bytes / 2.0;
	k->msg_bytes = (uint64_t)(b * s * h * k->dtype_bytes / k->tp);
}

/*
 * Whether every data-parallel replica's hop between pipeline ranks d and e stays inside one
 * node. Ranks are laid out tp innermost, then dp, then pp (Megatron-LM's default order): GPU
 * (d * dp + r) * tp + j is TP rank j of replica r on pipeline rank d. Residues repeat within
 * gpus_per_node replicas, so that many suffice.
 */
static bool hop_inside(const struct cost_model *k, int d, int e)
{
	long long g = k->gpus_per_node, span = (long long)k->tp * k->dp;
	long long n = k->dp < g ? k->dp : g;

	for (long long r = 0; r < n; r++)
		for (long long j = 0; j<k->tp; j += k->tp - 1> 0 ? k->tp - 1 : 1) {
			long long a = d * span + r * k->tp + j, b = e * span + r * k->tp + j;

			if (a / g != b / g)
				return false;
		}
	return true;
}

double cost_model_compute_ms(const struct cost_model *k, double flops)
{
	return flops / (k->tflops * 1e12 * k->efficiency) * 1e3;
}

/* Converts ms to ticks into *out, or fails naming key when the time is out of range. */
static int checked_ticks(const struct config *c, const char *key, double ms, int64_t tick,
                         pp_time *out, struct pp_error *err)
{
	if (!pp_time_from_units(ms, tick, out))
		return config_fail(c, key, err, "makes an op or a transfer take %.3g ms, above %g",
		                   ms, PP_TIME_MAX_UNITS);
	return 0;
}

/* Fills the per-stage prices of c from the resolved model; fails on out-of-range times. */
static int price_stages(const struct config *c, const struct cost_layout *l, struct cost *cost,
                        struct pp_error *err)
{
	struct cost_model *k = cost->model;
	int S = l->S, tp = k->tp;
	double tp_ar = tp > 1 ? 2 * k->tp_allreduce_ms : 0;

	for (int st = 0; st < S; st++) {
		double n = k->stage_layers[st], head = st == S - 1 ? 1 : 0;
		double f = cost_model_compute_ms(
		        k, (n * k->layer_flops.f + head * k->head_flops.f) / tp);
		double b = cost_model_compute_ms(
		        k, (n * k->layer_flops.b + head * k->head_flops.b) / tp);
		double w = cost_model_compute_ms(
		        k, (n * k->layer_flops.w + head * k->head_flops.w) / tp);
		double act = n * k->layer_act_bytes + head * 4.0 * k->seq * k->mbs * k->vocab / tp;

		f += n * tp_ar;
		b += n * tp_ar;
		/* full recomputation runs each layer's forward again, all-reduces included */
		if (k->recompute == PP_RECOMPUTE_FULL)
			b += cost_model_compute_ms(k, n * k->layer_flops.f / tp) + n * tp_ar;
		if (checked_ticks(c, "tflops", f, cost->tick, &cost->t_f[st], err) != 0 ||
		    checked_ticks(c, "tflops", b, cost->tick, &cost->t_b[st], err) != 0 ||
		    checked_ticks(c, "tflops", w, cost->tick, &cost->t_w[st], err) != 0)
			return -1;
		cost->act[st] = (int64_t)llround(act);
		cost->act_w[st] = (int64_t)llround(act * c->w_mem_fraction);
		cost->msg_bytes[st] = 0;
		cost->msg_time[st] = 0;
		if (st + 1 < S) {
			int a = (int)l->stage_device[st], bdev = (int)l->stage_device[st + 1];
			bool inside = hop_inside(k, a, bdev);
			double bw = inside ? k->link_bandwidth : k->inter_bandwidth;
			double lat = inside ? k->link_latency : k->inter_latency;

			cost->msg_bytes[st] = k->msg_bytes;
			k->hop_bandwidth[st] = bw;
			k->hop_latency[st] = lat;
			if (checked_ticks(c, inside ? "bandwidth" : "inter_bandwidth",
			                  lat / 1e3 + (double)k->msg_bytes / (bw * 1e6), cost->tick,
			                  &cost->msg_time[st], err) != 0)
				return -1;
		}
	}
	return 0;
}

/* Parameters, weight/gradient/optimizer bytes and the gradient all-reduce of each device. */
static int device_figures(const struct config *c, const struct cost_layout *l, struct cost_model *k,
                          int64_t tick, struct pp_error *err)
{
	double embed = (double)k->vocab * k->hidden / k->tp;
	double keep = 4 + (k->bytes_per_param - 4) / (k->distributed_optimizer ? k->dp : 1);
	const uint32_t *dev = l->stage_device;

	k->device_params = pp_calloc((size_t)l->p, sizeof(*k->device_params));
	k->device_state_bytes = pp_calloc((size_t)l->p, sizeof(*k->device_state_bytes));
	k->dp_allreduce = pp_calloc((size_t)l->p, sizeof(*k->dp_allreduce));
	if (k->device_params == NULL || k->device_state_bytes == NULL || k->dp_allreduce == NULL)
		return pp_nomem(err, (size_t)l->p, sizeof(*k->device_params));
	for (int st = 0; st < l->S; st++)
		k->device_params[dev[st]] += k->stage_layers[st] * k->layer_params / k->tp;
	/* the embedding on the first stage, the LM head on the last; a tied pair on one device
	 * is one matrix */
	k->device_params[dev[0]] += embed;
	if (!(k->tied && dev[0] == dev[l->S - 1]))
		k->device_params[dev[l->S - 1]] += embed;
	for (int d = 0; d < l->p; d++) {
		/* the GPUs of pipeline rank d, all replicas, are d*tp*dp .. (d+1)*tp*dp - 1 */
		long long first = (long long)d * k->tp * k->dp, last = first + k->tp * k->dp - 1;
		bool dp_inside = first / k->gpus_per_node == last / k->gpus_per_node;

		k->device_state_bytes[d] = k->device_params[d] * keep;
		if (checked_ticks(
		            c, dp_inside ? "bandwidth" : "inter_bandwidth",
		            cost_allreduce_ms(k->device_params[d] * 2, k->dp,
		                              dp_inside ? k->link_bandwidth : k->inter_bandwidth,
		                              dp_inside ? k->link_latency : k->inter_latency),
		            tick, &k->dp_allreduce[d], err) != 0)
			return -1;
	}
	return 0;
}

struct cost *cost_new_model(const struct config *c, const struct cost_layout *l,
                            struct pp_error *err)
{
	struct cost *cost = cost_alloc(l->S, PP_TICK_BASE, "ms", c);
	struct cost_model *k;
	double per_mb;

	if (cost == NULL) {
		pp_nomem(err, 7 * (size_t)l->S, sizeof(int64_t));
		return NULL;
	}
	k = cost->model = pp_zalloc(1, sizeof(*k), err);
	if (k == NULL) {
		cost_free(cost);
		return NULL;
	}
	if (resolve_hardware(c, k, err) != 0 || resolve_parallel(c, k, err) != 0 ||
	    split_layers(c, k, l->S, err) != 0) {
		cost_free(cost);
		return NULL;
	}
	layer_figures(k);
	k->hop_bandwidth = pp_calloc((size_t)l->S, sizeof(*k->hop_bandwidth));
	k->hop_latency = pp_calloc((size_t)l->S, sizeof(*k->hop_latency));
	if (k->hop_bandwidth == NULL || k->hop_latency == NULL) {
		pp_nomem(err, (size_t)l->S, sizeof(*k->hop_latency));
		cost_free(cost);
		return NULL;
	}
	k->tp_allreduce_ms = cost_allreduce_ms((double)k->mbs * k->seq * k->hidden * k->dtype_bytes,
	                                       k->tp, k->link_bandwidth, k->link_latency);
	if (price_stages(c, l, cost, err) != 0 || device_figures(c, l, k, cost->tick, err) != 0) {
		cost_free(cost);
		return NULL;
	}
	per_mb = k->layers * (k->layer_flops.f + k->layer_flops.b + k->layer_flops.w) +
	         k->head_flops.f + k->head_flops.b + k->head_flops.w;
	k->step_flops = per_mb * c->m * k->dp;
	k->samples_per_step = (double)c->m * k->mbs * k->dp;
	k->tokens_per_step = k->samples_per_step * k->seq;
	return cost;
}
