/*
 * Costs derived from a model, a GPU and links (docs/cost-model.md): the model, its GPUs and its
 * parallel layout resolved from the config and the presets, each stage's layers and
 * recomputation, the op times and activations of each stage (a layer's own figures and
 * kernel times are layer.c's), each device's parameters and state, and the collectives' times.
 * Tensor parallelism divides the FLOPs by tp and adds two all-reduces of the layer's
 * activations to F and to B, on the link inside the node.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_internal.h"
#include "ppsim/layout.h"
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

/*
 * What a GPU's memory holds besides what the model counts, when --memory-reserve is not given
 * (docs/presets.md): the CUDA context and its kernels, 0.47-0.92 GiB with PyTorch 2.1 (Bekman,
 * "Machine Learning Engineering", Preloaded CUDA kernels memory usage, on an A100 80GB); NCCL's
 * communicators, about 1.5 GB for one process group (the same book, torch.distributed memory
 * usage; NVIDIA/nccl issue 864: about 1.6 GB), of which a pipeline-parallel run has a few; and
 * the caching allocator's fragmentation, 9.2 GB of an A100 80GB (11.5%) on average over eight
 * LLM training runs (Guo et al. 2024, GMLake, arXiv 2401.08156).
 */
#define RESERVE_CONTEXT_GB       1.0
#define RESERVE_COMMUNICATION_GB 2.0
#define RESERVE_FRAGMENTATION    0.10

/*
 * The bytes per attention score that the forward of unfused attention costs beyond the fused
 * scale-mask-softmax's and the dropout's own traffic (docs/cost-model.md): fit, by least
 * squares, on the Zero Bubble paper's profiled T_F (Qi et al. 2024, Table 9: four GPT models
 * on A100, mbs 1-6, sequence 1024), whose forwards take 6-24% longer than their GEMMs and
 * memory traffic, in proportion to the scores rather than the tokens; the backward shows no
 * such excess. Korthikanti et al.'s measured 22B layer forward (Table 4) is held out. The
 * mechanism is not identified.
 */
#define UNFUSED_ATTENTION_BYTES 15.0
/* The loss's bytes per logit without a framework: Megatron-Core's unfused vocab-parallel cross
 * entropy (tensor_parallel/cross_entropy.py), forward: the bf16 logits cast to fp32 (2 read, 4
 * written), their max (4), the max subtracted (4 + 4), exp (4 + 4), its sum (4), the softmax's
 * division (4 + 4); backward: the gradient scaled in place (4 + 4) and cast to bf16 (4 + 2). */
#define LOSS_BYTES 38.0
#define LOSS_BWD_BYTES 14.0

/*
 * What a pipeline message costs beyond its link's figures, when --p2p-overhead and
 * --p2p-efficiency are not given (docs/validation.md): the Zero Bubble paper's profiled T_comm
 * (Qi et al. 2024, Table 9: four GPT models on A100s, messages of 2-24 MB inside a node) lie
 * on a line, a fixed 234 us per message and 0.24 of NVLink's bandwidth, which is what a
 * framework's P2P (launch, synchronisation, NCCL's protocol) achieves; hops between nodes get
 * their link's whole bandwidth.
 */
#define P2P_OVERHEAD_US 234.0
#define P2P_EFFICIENCY  0.24

/*
 * The defaults of what runs beside the schedule (docs/cost-model.md, Streams, and
 * docs/presets.md): Megatron-LM's gradient bucket, max(40M, 1M x dp) parameters
 * (megatron/core/distributed, DistributedDataParallelConfig); the share of a link's bandwidth a
 * ring collective reaches, 0.8 (nccl-tests: an A100's NVLink all-reduce reaches 230-250 of 300
 * GB/s bus bandwidth); compute slowed by 15% beside a collective, whose kernels take SMs
 * (DeepSeek-V3's report keeps 20 of an H800's 132 SMs for communication, 15%; arXiv 2507.03114
 * measures 18.9% on average); the optimizer step, 38 bytes moved per parameter a GPU updates
 * (Adam on fp32 main parameters: the parameter, both moments and the fp32 gradient read, the
 * parameter and both moments written, 28 bytes; the bf16 copy written, 2; the gradient zeroed
 * and read for its norm, 8).
 */
#define BUCKET_PARAMS_MIN        40e6
#define BUCKET_PARAMS_PER_DP     1e6
#define COLLECTIVE_EFFICIENCY    0.8
#define COMM_SLOWDOWN            0.15
#define OPTIMIZER_BYTES          38.0
#define STEP_OVERHEAD_MS         0.0


/* Resolves GPU type t from the preset gp and the config's overrides (which every type
 * takes). */
static int resolve_type(const struct config *c, const struct gpu_preset *gp,
                        const struct cost_model *k, struct cost_type *t, struct pp_error *err)
{
	/* the host link's bandwidth, shared by the GPUs on it */
	const struct link_preset *hk = preset_link(gp->host_link);

	strcpy(t->gpu, gp->name);
	t->host_bandwidth = pickd(c->host_bandwidth, hk->bandwidth / gp->host_gpus);
	t->host_latency = hk->latency;
	t->hw.tflops = pickd(c->tflops, gp->tflops);
	t->hw.memory_bandwidth = pickd(c->memory_bandwidth, gp->memory_bandwidth);
	t->hw.sms = pick(c->sms, gp->sms);
	t->hw.gemm_efficiency = pickd(c->gemm_efficiency, gp->gemm_efficiency);
	t->hw.fp8_tflops = pickd(c->fp8_tflops, gp->fp8_tflops);
	t->hw.fp8_gemm_efficiency = pickd(c->fp8_gemm_efficiency, gp->fp8_gemm_efficiency);
	t->hw.attention_efficiency =
	        pickd(c->attention_efficiency, k->attention_kernel == PP_ATTENTION_FA2
	                                               ? gp->fa2_attention_efficiency
	                                               : gp->attention_efficiency);
	t->hw.attention_bwd_efficiency =
	        pickd(c->attention_bwd_efficiency, k->attention_kernel == PP_ATTENTION_FA2
	                                                   ? gp->fa2_attention_bwd_efficiency
	                                                   : gp->attention_bwd_efficiency);
	t->hw.memory_efficiency = pickd(c->memory_efficiency, gp->memory_efficiency);
	t->hw.sustained = pickd(c->sustained_share, gp->sustained);
	t->hw.kernel_overhead = c->kernel_overhead >= 0 ? c->kernel_overhead : gp->kernel_overhead;
	t->capacity_bytes = pickd(c->gpu_memory, gp->memory_gb) * 1e9;
	t->reserve_bytes = c->memory_reserve >= 0
	                           ? c->memory_reserve * 1e9
	                           : (RESERVE_CONTEXT_GB + RESERVE_COMMUNICATION_GB) * 1e9 +
	                                     RESERVE_FRAGMENTATION * t->capacity_bytes;
	if (t->reserve_bytes >= t->capacity_bytes && config_is_set(c, "memory_reserve"))
		return config_fail(c, "memory_reserve", err, "must be below the GPU's %g GB",
		                   t->capacity_bytes / 1e9);
	if (t->reserve_bytes >= t->capacity_bytes)
		return config_fail(c, "gpu_memory", err,
		                   "leaves nothing beyond the %g GB kept free by default (3 GB and "
		                   "10%%; --memory-reserve sets it)",
		                   t->reserve_bytes / 1e9);
	if (k->fp8 && (t->hw.fp8_tflops == 0 || t->hw.fp8_gemm_efficiency == 0))
		return config_fail(c, "fp8", err,
		                   "the GPU %s has no fp8 tensor cores: its preset gives no fp8 peak "
		                   "and fp8 GEMM efficiency (--fp8-tflops and --fp8-gemm-efficiency "
		                   "set them)",
		                   gp->name);
	return 0;
}

/* The GPU types of layout l's devices: device_gpus' presets, else the config's GPU on every
 * device; a type per distinct preset, numbered by its first device. */
static int resolve_types(const struct config *c, const struct cost_layout *l,
                         struct cost_model *k, struct pp_error *err)
{
	if (c->ndevice_gpus > 0 && config_is_set(c, "gpu"))
		return config_fail(c, "device_gpus", err,
		                   "names each device's GPU: give it or --gpu, not both");
	if (c->ndevice_gpus > 0 && c->ndevice_gpus != l->p)
		return config_fail(c, "device_gpus", err, "gives %d GPUs, the pipeline has %d devices",
		                   c->ndevice_gpus, l->p);
	k->device_type = pp_calloc((size_t)l->p, sizeof(*k->device_type));
	k->types = pp_calloc((size_t)l->p, sizeof(*k->types));
	if (k->device_type == NULL || k->types == NULL)
		return pp_nomem(err, (size_t)l->p, sizeof(*k->types));
	for (int d = 0; d < l->p; d++) {
		const char *name = config_device_gpu(c, d);
		int t = 0;

		while (t < k->ntypes && strcmp(k->types[t].gpu, name) != 0)
			t++;
		k->device_type[d] = t;
		if (t == k->ntypes && resolve_type(c, preset_gpu(name), k, &k->types[k->ntypes++],
		                                   err) != 0)
			return -1;
	}
	return 0;
}

/* Resolves the model, the GPUs and the links: presets first, then the config's overrides. */
static int resolve_hardware(const struct config *c, const struct cost_layout *l,
                            struct cost_model *k, struct pp_error *err)
{
	const struct model_preset *mp = preset_model(c->model);
	const struct gpu_preset *gp = preset_gpu(config_gpu(c));
	const struct link_preset *lk, *ik;

	strcpy(k->model, mp->name);
	k->layers = pick(c->layers, mp->layers);
	k->hidden = pick(c->hidden, mp->hidden);
	k->ffn = pick(c->ffn, mp->ffn);
	k->heads = pick(c->heads, mp->heads);
	k->kv_heads = pick(c->kv_heads, mp->kv_heads);
	k->vocab = pick(c->vocab, mp->vocab);
	k->gated_mlp = c->mlp == PP_MLP_PRESET ? mp->gated_mlp : c->mlp == PP_MLP_GATED;
	{
		int hd = c->head_dim > 0 ? c->head_dim : mp->head_dim;
		int vd = c->v_head_dim > 0 ? c->v_head_dim : mp->v_head_dim > 0 ? mp->v_head_dim : hd;

		k->q_dim = hd > 0 ? (double)k->heads * hd : k->hidden;
		k->kv_dim = (double)k->kv_heads * (hd > 0 ? hd : (double)k->hidden / k->heads);
		k->o_dim = vd > 0 ? (double)k->heads * vd : k->q_dim;
		k->kvv_dim = vd > 0 ? (double)k->kv_heads * vd : k->kv_dim;
		k->q_lora_rank = c->q_lora_rank >= 0 ? c->q_lora_rank : mp->q_lora_rank;
		k->kv_lora_rank = c->kv_lora_rank >= 0 ? c->kv_lora_rank : mp->kv_lora_rank;
		k->rope_dim = c->rope_dim >= 0 ? c->rope_dim : mp->rope_dim;
		k->mtp_layers = c->mtp_layers >= 0 ? c->mtp_layers : mp->mtp_layers;
		/* the option given is to blame, with the figure the preset gives the other */
		if (k->kv_lora_rank > 0 && k->rope_dim >= (hd > 0 ? hd : k->hidden / k->heads))
			return config_fail(c,
			                   config_is_set(c, "rope_dim")   ? "rope_dim"
			                   : config_is_set(c, "head_dim") ? "head_dim"
			                   : config_is_set(c, "heads")    ? "heads"
			                                                  : "hidden",
			                   err, "leaves a head size of %d, not above its rotary part's %d",
			                   hd > 0 ? hd : k->hidden / k->heads, k->rope_dim);
	}
	k->tied = c->tied < 0 ? mp->tied : c->tied > 0;
	k->attention_kernel =
	        c->attention_kernel == PP_ATTENTION_FA2 ? PP_ATTENTION_FA2 : PP_ATTENTION_BEST;
	k->efficiency = c->efficiency;
	k->fp8 = c->fp8 != 0;
	k->fp8_weight_bytes = k->fp8 ? FP8_WEIGHT_BYTES : 0;
	if (resolve_types(c, l, k, err) != 0)
		return -1;
	if (k->fp8 && k->efficiency > 0)
		return config_fail(c, "fp8", err,
		                   "not with a uniform efficiency, which runs every op at one share of "
		                   "the bf16 peak");
	lk = preset_link(c->link[0] ? c->link : gp->link);
	ik = preset_link(c->inter_link[0] ? c->inter_link : gp->inter_link);
	strcpy(k->link, lk->name);
	strcpy(k->inter_link, ik->name);
	k->link_bandwidth = pickd(c->bandwidth, lk->bandwidth);
	k->link_latency = c->latency >= 0 ? c->latency : lk->latency;
	k->inter_bandwidth = pickd(c->inter_bandwidth, ik->bandwidth);
	k->inter_latency = c->inter_latency >= 0 ? c->inter_latency : ik->latency;
	k->offload = c->offload;
	k->p2p_overhead = c->p2p_overhead >= 0 ? c->p2p_overhead : P2P_OVERHEAD_US;
	k->p2p_efficiency = c->p2p_efficiency > 0 ? c->p2p_efficiency : P2P_EFFICIENCY;
	/* a shape's figures that do not divide: the option given is to blame */
	if (k->hidden % k->heads != 0 && c->head_dim == 0 && mp->head_dim == 0)
		return config_fail(c, config_is_set(c, "heads") ? "heads" : "hidden", err,
		                   "the hidden size %d is not a multiple of the %d heads (or "
		                   "--head-dim gives the heads' size)",
		                   k->hidden, k->heads);
	if (k->heads % k->kv_heads != 0)
		return config_fail(c, config_is_set(c, "kv_heads") ? "kv_heads" : "heads", err,
		                   "the %d heads are not a multiple of the %d key/value heads",
		                   k->heads, k->kv_heads);
	return 0;
}

/* Resolves the parallel layout: tp inside a node, dp from --gpus when given. */
static int resolve_parallel(const struct config *c, const struct cost_layout *l,
                            struct cost_model *k, struct pp_error *err)
{
	k->seq = c->seq;
	k->mbs = c->mbs;
	k->p = c->p;
	k->v = c->v;
	k->tp = c->tp;
	k->gpus_per_node = c->gpus_per_node;
	k->flash_attention = c->flash_attention != 0;
	k->sequence_parallel = c->sequence_parallel != 0;
	k->unfused_attention_bytes = c->unfused_attention_bytes >= 0 ? c->unfused_attention_bytes
	                                                             : UNFUSED_ATTENTION_BYTES;
	k->loss_bytes = c->loss_bytes >= 0 ? c->loss_bytes : LOSS_BYTES;
	k->loss_bwd_bytes = c->loss_bwd_bytes >= 0 ? c->loss_bwd_bytes : LOSS_BWD_BYTES;
	k->grad_accum_bytes = c->grad_accum_bytes >= 0 ? c->grad_accum_bytes : 0;
	k->recompute = c->recompute;
	k->distributed_optimizer = c->distributed_optimizer > 0;
	k->cp = c->cp;
	k->cp_comm = c->cp_comm;
	k->tp_overlap = c->tp_overlap == PP_TP_OVERLAP_DEFAULT ? PP_TP_OVERLAP_NONE : c->tp_overlap;
	k->overlap_grad_reduce = c->overlap_grad_reduce > 0;
	k->grad_reduce_scatter = c->grad_reduce_scatter != 0;
	k->overlap_param_gather = c->overlap_param_gather > 0;
	k->comm_slowdown = c->comm_slowdown >= 0 ? c->comm_slowdown : COMM_SLOWDOWN;
	k->collective_efficiency =
	        c->collective_efficiency > 0 ? c->collective_efficiency : COLLECTIVE_EFFICIENCY;
	k->optimizer_bytes = c->optimizer_bytes >= 0 ? c->optimizer_bytes : OPTIMIZER_BYTES;
	k->grad_reduce_bytes = c->grad_reduce_bytes;
	k->step_overhead_ms = c->step_overhead >= 0 ? c->step_overhead : STEP_OVERHEAD_MS;
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
	/* a rank holds whole key/value heads (latent attention's heads are the query heads): a
	 * training rank kv_heads / tp of them (Megatron-Core's num_query_groups over tp); a
	 * serving one those, or one replicated over tp / kv_heads ranks (vLLM's rule), else its
	 * query heads would straddle KV groups */
	if (k->kv_lora_rank == 0 && k->kv_heads % k->tp != 0 &&
	    (!l->serving || k->tp % k->kv_heads != 0)) {
		const char *why = l->serving ? "a GPU holds whole KV heads, split or replicated"
		                             : "each rank holds whole ones, as Megatron-Core splits "
		                               "them";

		return config_is_set(c, "tp") || !config_is_set(c, "kv_heads")
		               ? config_fail(c, "tp", err, "must divide the %d key/value heads%s (%s)",
		                             k->kv_heads, l->serving ? " or be a multiple of them" : "",
		                             why)
		               : config_fail(c, "kv_heads", err, "must be a multiple of tp = %d%s (%s)",
		                             k->tp, l->serving ? " or divide it" : "", why);
	}
	/* context parallelism's causal balance (without it, any sequence length): cp, which is
	 * given when above 1, is to blame */
	if (k->cp > 1 && k->seq % (2 * k->cp) != 0)
		return config_fail(c, "cp", err,
		                   "must split the sequence of %d into 2 x cp blocks (causal balance)",
		                   k->seq);
	/* sequence parallelism splits a context-parallel rank's tokens over the tp ranks, whole
	 * (Megatron-LM asserts the sequence divides by tp) */
	if (k->sequence_parallel && k->tp > 1 && (k->seq / k->cp) % k->tp != 0)
		return config_fail(c, config_is_set(c, "seq") ? "seq" : "tp", err,
		                   "with sequence parallelism, a context-parallel rank's %d tokens "
		                   "must split evenly over tp = %d (--sequence-parallel=no runs "
		                   "without)",
		                   k->seq / k->cp, k->tp);
	/* Megatron-LM asserts it: the overlap decomposes sequence parallelism's reduce-scatter and
	 * all-gather (arguments.py: "Tensor parallel communication/GEMM overlap can happen only
	 * when sequence parallelism is enabled") */
	if (k->tp > 1 && k->tp_overlap != PP_TP_OVERLAP_NONE && !k->sequence_parallel)
		return config_fail(c, config_is_set(c, "sequence_parallel") ? "sequence_parallel"
		                                                            : "tp_overlap",
		                   err,
		                   "--tp-overlap=%s needs sequence parallelism, whose reduce-scatter "
		                   "and all-gather it overlaps, as Megatron-LM asserts (give "
		                   "--sequence-parallel=yes, or --tp-overlap=none)",
		                   config_tp_overlap_name(k->tp_overlap));
	if (k->overlap_param_gather && !k->distributed_optimizer && config_is_set(c, "overlap_param_gather"))
		return config_fail(c, "overlap_param_gather", err,
		                   "needs a distributed optimizer (parameters are gathered only "
		                   "when the optimizer is sharded)");
	if (!k->distributed_optimizer && config_is_set(c, "grad_reduce_scatter"))
		return config_fail(c, "grad_reduce_scatter", err,
		                   "needs a distributed optimizer (without one the gradients are "
		                   "all-reduced whole anyway)");
	if (config_dp(c, &k->dp, err) != 0)
		return -1;
	k->gpus = c->p * k->tp * k->cp * k->dp;
	k->bucket_params = c->bucket_size > 0 ? c->bucket_size
	                                      : fmax(BUCKET_PARAMS_MIN, BUCKET_PARAMS_PER_DP * k->dp);
	if (k->bytes_per_param < 4)
		return config_fail(c, "bytes_per_param", err,
		                   "must be at least 4 (bf16 weights and gradients)");
	return moe_resolve(c, preset_model(c->model), k, err);
}

/* The layers of the first route's S stages (of `routes`, so that a list names S stages), into
 * k->stage_layers, allocated for all routes' stages. */
static int route_layers(const struct config *c, struct cost_model *k, int S, int routes,
                        struct pp_error *err)
{
	int first = c->first_stage_layers, last = c->last_stage_layers, rest = k->layers, mid = S;
	int given;

	k->S = S * routes;
	k->route_stages = S;
	k->stage_layers = pp_calloc((size_t)S * (size_t)routes, sizeof(*k->stage_layers));
	k->stage_moe = pp_calloc((size_t)S * (size_t)routes, sizeof(*k->stage_moe));
	if (k->stage_layers == NULL || k->stage_moe == NULL)
		return pp_nomem(err, (size_t)S * (size_t)routes, sizeof(*k->stage_layers));
	if (c->nlayers_per_stage > 0 && (first > 0 || last > 0))
		return config_fail(c, "layers_per_stage", err,
		                   "give it or --first-stage-layers/--last-stage-layers, not both");
	/* a layout string, or the split of layers that neither a list nor an end decides */
	given = layout_config_layers(c, k->model, k->layers, k->mtp_layers, S, routes,
	                             k->stage_layers, err);
	if (given != 0)
		return given < 0 ? -1 : 0;
	if (c->nlayers_per_stage > 0) {
		int sum = 0;

		if (c->nlayers_per_stage != S && routes == 1)
			return config_fail(c, "layers_per_stage", err,
			                   "gives %d stages, the pipeline has p x v = %d",
			                   c->nlayers_per_stage, S);
		if (c->nlayers_per_stage != S)
			return config_fail(
			        c, "layers_per_stage", err,
			        "gives %d stages, each of the pipeline's %d routes has %d",
			        c->nlayers_per_stage, routes, S);
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
	/* the middle stages' layers: even, or when they do not divide the first of them taking
	 * one more each (--layer-split=even refuses that, as Megatron-LM does) */
	if (rest < 0 || (mid == 0 && rest != 0))
		return config_fail(c, first > 0 ? "first_stage_layers" : "last_stage_layers", err,
		                   "%s %d layers, %s has %d%s",
		                   first > 0 && last > 0 ? "the first and the last stage take"
		                                         : "the stage takes",
		                   k->layers - rest, k->model, k->layers,
		                   rest < 0 ? "" : ", and no other stage takes the rest");
	if (mid > 0 && rest < mid)
		return config_fail(c, first > 0 ? "first_stage_layers" : "last_stage_layers", err,
		                   "leaves %d of %s's %d layers for the %d other stages: each needs one",
		                   rest, k->model, k->layers, mid);
	if (mid > 0 && rest % mid != 0 && c->layer_split == PP_SPLIT_EVEN)
		return config_fail(c, first > 0 ? "first_stage_layers" : "last_stage_layers", err,
		                   "leaves %d of %s's %d layers, which do not split evenly over the %d "
		                   "other stages (--layer-split=even)",
		                   rest, k->model, k->layers, mid);
	for (int s = 0, i = 0; s < S; s++)
		if (!(s == 0 && first > 0) && !(s == S - 1 && last > 0))
			k->stage_layers[s] = rest / mid + (i++ < rest % mid ? 1 : 0);
	if (first > 0)
		k->stage_layers[0] = first;
	if (last > 0)
		k->stage_layers[S - 1] = last;
	return 0;
}

/* The recomputation and the offloaded share of each virtual stage: --stage-recompute's and
 * --stage-offload's, a route's stages (each route laid out alike), else --recompute's and
 * --offload's on every stage. */
static int stage_recomputes(const struct config *c, struct cost_model *k,
                            const struct cost_layout *l, struct pp_error *err)
{
	int L = l->S / l->routes;
	const char *of = l->routes == 1 ? "the pipeline has p x v =" : "a route has";

	k->stage_recompute = pp_calloc((size_t)l->S, sizeof(*k->stage_recompute));
	k->stage_offload = pp_calloc((size_t)l->S, sizeof(*k->stage_offload));
	if (k->stage_recompute == NULL || k->stage_offload == NULL)
		return pp_nomem(err, (size_t)l->S,
		                sizeof(*k->stage_recompute) + sizeof(*k->stage_offload));
	if (c->nstage_recompute > 0 && c->nstage_recompute != L)
		return config_fail(c, "stage_recompute", err, "gives %d stages, %s %d",
		                   c->nstage_recompute, of, L);
	if (c->nstage_offload > 0 && c->nstage_offload != L)
		return config_fail(c, "stage_offload", err, "gives %d stages, %s %d",
		                   c->nstage_offload, of, L);
	for (int st = 0; st < l->S; st++) {
		k->stage_recompute[st] = c->nstage_recompute > 0
		                                 ? (enum pp_recompute)c->stage_recompute[st % L]
		                                 : k->recompute;
		k->stage_offload[st] =
		        c->nstage_offload > 0 ? (double)c->stage_offload[st % L] : k->offload;
	}
	return 0;
}

/* Layers of each virtual stage: an explicit list, a first/last stage override, or even, over
 * the stages of a route (all of them with one route); each route's stages hold the whole model,
 * laid out alike. */
static int split_layers(const struct config *c, struct cost_model *k, const struct cost_layout *l,
                        struct pp_error *err)
{
	int L = l->S / l->routes;
	int rc = route_layers(c, k, L, l->routes, err);

	for (int st = L; rc == 0 && st < l->S; st++)
		k->stage_layers[st] = k->stage_layers[st % L];
	return rc;
}

/*
 * Converts the ms of a transfer to ticks into *out, or fails when the time is out of range,
 * blaming the first of keys (the settings that set it, NULL-terminated) the user gave, or,
 * when none was given, naming them all as what sets it.
 */
static int checked_ticks(const struct config *c, const char *const *keys, double ms,
                         int64_t tick, pp_time *out, struct pp_error *err)
{
	char names[256] = "";
	size_t len = 0;

	if (pp_time_from_units(ms, tick, out))
		return 0;
	for (size_t i = 0; keys[i] != NULL; i++)
		if (config_is_set(c, keys[i]))
			return config_fail(c, keys[i], err,
			                   "makes a transfer take %.3g ms, above the limit of %g", ms,
			                   PP_TIME_MAX_UNITS);
	for (size_t i = 0; keys[i] != NULL && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s--%s", i ? ", " : "",
		                        config_option_by_key(keys[i])->name);
	return pp_fail(err, PP_ERR_USAGE,
	               "the model prices a transfer at %.3g ms, above the limit of %g (set by %s)",
	               ms, PP_TIME_MAX_UNITS, names);
}

/* Fails err: the model prices stage st's ops at up to ms, above the limit; names the options
 * given that set an op's time (one of them mistyped, most likely). */
static int op_time_fail(const struct config *c, int st, double ms, struct pp_error *err)
{
	static const char *const keys[] = {"seq", "mbs", "hidden", "layers", "layers_per_stage",
	        "tflops", "memory_bandwidth", "efficiency", "bandwidth", "inter_bandwidth",
	        "collective_efficiency", "comm_slowdown", "expert_imbalance", "grad_accum_bytes"};
	char given[512] = "";
	size_t len = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && len < sizeof(given); i++)
		if (config_is_set(c, keys[i]))
			len += (size_t)snprintf(given + len, sizeof(given) - len, "%s--%s",
			                        len ? ", " : "; given of what sets it: ",
			                        config_option_by_key(keys[i])->name);
	return pp_fail(err, PP_ERR_USAGE,
	               "the model prices stage %d's ops at up to %.3g ms, above the limit of %g: "
	               "the model's size (--seq, --mbs, --hidden, layers per stage) is out of "
	               "proportion with the GPU's speed (--tflops, --memory-bandwidth) or its "
	               "links' (--bandwidth, --inter-bandwidth, --collective-efficiency)%s",
	               st, ms, PP_TIME_MAX_UNITS, given);
}

/* The most activation bytes a step's ops may hold at once, every micro-batch of every stage:
 * 2^62, which the engine's 64-bit running sums hold exactly. */
#define ACT_TOTAL_MAX 4611686018427387904.0

/* Fills the per-stage prices of c from the resolved model; fails on out-of-range times. */
static int price_stages(const struct config *c, const struct cost_layout *l, struct cost *cost,
                        struct pp_error *err)
{
	struct cost_model *k = cost->model;
	int S = l->S, tp = k->tp;
	/* a dense layer's op has four TP halves (two all-reduces), an expert layer's two (its
	 * attention's), two more with shared experts (Megatron-Core's SharedExpertMLP, a
	 * tensor-parallel MLP), and its dispatch and combine */
	double tp_ar = tp > 1 ? 2 * k->tp_allreduce_ms : 0;
	double moe_tp = tp > 1 ? (k->shared_experts > 0 ? 2 : 1) * k->tp_allreduce_ms : 0;
	double moe_comm = moe_tp + k->dispatch_ms + k->a2a_ms;
	double moe_comm_b = moe_tp + 2 * k->a2a_ms;

	for (int st = 0; st < S; st++) {
		int nl, nml;
		double head = cost_layout_last(l, st) ? 1 : 0;
		enum pp_recompute rc = k->stage_recompute[st];
		/* the stage's ops run on its device's GPU */
		const struct cost_type *ty = &k->types[k->stage_type[st]];
		double f = moe_stage_sum(k, st, ty->layer_ms.f, ty->moe_ms.f) + head * ty->last_head_ms.f;
		double b = moe_stage_sum(k, st, ty->layer_ms.b, ty->moe_ms.b) + head * ty->last_head_ms.b;
		double w = moe_stage_sum(k, st, ty->layer_ms.w, ty->moe_ms.w) + head * ty->last_head_ms.w +
		           cost_grad_accum_ms(k, l, st);
		double logits = head * (1 + k->mtp_layers) * 4.0 * k->seq * k->mbs * k->vocab / tp / k->cp;
		double act = moe_stage_sum(k, st, k->layer_act_by[rc], k->moe_act_by[rc]) + logits;
		/* what W still needs after B: its share of the activations B ran on, which full
		 * recomputation rebuilt from the saved input (so the share of the whole set, above
		 * what the forward kept) */
		double act_b = rc == PP_RECOMPUTE_FULL
		                       ? moe_stage_sum(k, st, k->layer_act_by[PP_RECOMPUTE_NONE],
		                                       k->moe_act_by[PP_RECOMPUTE_NONE]) +
		                                 logits
		                       : act;

		f += moe_stage_sum(k, st, tp_ar, moe_comm);
		b += moe_stage_sum(k, st, tp_ar, moe_comm_b);
		/* full recomputation runs each layer's forward again, its communication included */
		if (rc == PP_RECOMPUTE_FULL)
			b += moe_stage_sum(k, st, ty->layer_ms.f + tp_ar, ty->moe_ms.f + moe_comm);
		/* selective recomputation runs the attention core again (Korthikanti et al.) */
		moe_stage_counts(k, st, &nl, &nml);
		if (rc == PP_RECOMPUTE_SELECTIVE)
			b += nl * ty->attn_fwd_ms;
		if (!pp_time_from_units(f, cost->tick, &cost->t_f[st]) ||
		    !pp_time_from_units(b, cost->tick, &cost->t_b[st]) ||
		    !pp_time_from_units(w, cost->tick, &cost->t_w[st]))
			return op_time_fail(c, st, fmax(f, fmax(b, w)), err);
		/* a device may hold every micro-batch of every stage at once: their bytes together
		 * must stay a count the engine sums exactly */
		if (!(fmax(act, act_b) * (double)(c->m > 0 ? c->m : 1) * S <= ACT_TOTAL_MAX))
			return config_fail(c,
			                   config_is_set(c, "dtype_bytes") ? "dtype_bytes"
			                   : config_is_set(c, "mbs")       ? "mbs"
			                                                   : "seq",
			                   err,
			                   "makes stage %d's activations %.3g bytes a micro-batch, more "
			                   "than ppsim counts over the step's %d micro-batches and %d "
			                   "stages (%.3g bytes in all)",
			                   st, fmax(act, act_b), c->m, S, ACT_TOTAL_MAX);
		cost->act[st] = (int64_t)llround(act);
		cost->act_w[st] = (int64_t)llround(act_b * c->w_mem_fraction);
		cost->msg_bytes[st] = 0;
		cost->msg_time[st] = 0;
		if (!cost_layout_last(l, st)) {
			int a = (int)l->stage_device[st], bdev = (int)l->stage_device[st + 1];
			bool inside = cost_hop_inside(k, a, bdev);
			double bw = (inside ? k->link_bandwidth : k->inter_bandwidth) *
			            (inside ? k->p2p_efficiency : 1);
			double lat =
			        (inside ? k->link_latency : k->inter_latency) + k->p2p_overhead;

			cost->msg_bytes[st] = k->msg_bytes;
			k->hop_bandwidth[st] = bw;
			k->hop_latency[st] = lat;
			static const char *const in_node[] = {"bandwidth", "p2p_efficiency",
			        "latency", "p2p_overhead", "link", "seq", "hidden", "mbs", NULL};
			static const char *const across[] = {"inter_bandwidth", "inter_latency",
			        "p2p_overhead", "inter_link", "seq", "hidden", "mbs", NULL};

			if (checked_ticks(c, inside ? in_node : across,
			                  lat / 1e3 + (double)k->msg_bytes / (bw * 1e6), cost->tick,
			                  &cost->msg_time[st], err) != 0)
				return -1;
		}
	}
	return 0;
}

/* Parameters, weight/gradient/optimizer bytes, the data-parallel link and the optimizer step of
 * each device. */
static int device_figures(const struct config *c, const struct cost_layout *l, struct cost_model *k,
                          int64_t tick, struct pp_error *err)
{
	/* bf16 weights and gradients stay whole; the rest (the optimizer's state) is sharded by a
	 * distributed optimizer, each rank holding a whole share of the elements (Megatron-LM
	 * pads the buffer to a multiple of the shards); FP8 keeps a copy of the weights beside */
	double kept = 4 + k->fp8_weight_bytes, sharded = k->bytes_per_param - 4, *embed;
	double shards = k->distributed_optimizer ? (double)k->dp * k->cp : 1;
	/* routed experts' gradients and state are reduced and sharded over the expert-data-
	 * parallel group: the tp x cp x dp GPUs of a pipeline rank that hold the same experts,
	 * ep apart */
	int edp = k->tp * k->cp * k->dp / k->ep;
	double eshards = k->distributed_optimizer ? edp : 1;
	const uint32_t *dev = l->stage_device;
	int L = l->S / l->routes;

	k->device_params = pp_calloc((size_t)l->p, sizeof(*k->device_params));
	k->device_state_bytes = pp_calloc((size_t)l->p, sizeof(*k->device_state_bytes));
	k->optimizer_ms = pp_calloc((size_t)l->p, sizeof(*k->optimizer_ms));
	k->dp_bandwidth = pp_calloc((size_t)l->p, sizeof(*k->dp_bandwidth));
	k->dp_latency = pp_calloc((size_t)l->p, sizeof(*k->dp_latency));
	k->edp_bandwidth = pp_calloc((size_t)l->p, sizeof(*k->edp_bandwidth));
	k->edp_latency = pp_calloc((size_t)l->p, sizeof(*k->edp_latency));
	k->device_expert_params = pp_calloc((size_t)l->p, sizeof(*k->device_expert_params));
	embed = pp_calloc((size_t)l->p, sizeof(*embed));
	if (k->device_params == NULL || k->device_state_bytes == NULL ||
	    k->optimizer_ms == NULL || k->dp_bandwidth == NULL || k->dp_latency == NULL ||
	    k->edp_bandwidth == NULL || k->edp_latency == NULL || k->device_expert_params == NULL ||
	    embed == NULL) {
		free(embed);
		return pp_nomem(err, (size_t)l->p, sizeof(*k->device_params));
	}
	for (int st = 0; st < l->S; st++) {
		int n, nm;
		double experts;

		moe_stage_counts(k, st, &n, &nm);
		experts = nm * k->routed_params / k->ep;

		/* its layers, and the embedding or the head at a route's ends */
		k->device_params[dev[st]] += cost_stage_params(k, l, st) + experts;
		k->device_expert_params[dev[st]] += experts;
		embed[dev[st]] += cost_stage_embed_params(k, l, st);
	}
	/* the first route's ends (DualPipe's two copies have the same two) */
	if (cost_hop_inside(k, (int)dev[0], (int)dev[L - 1])) {
		k->embed_bandwidth = k->link_bandwidth;
		k->embed_latency = k->link_latency;
	} else {
		k->embed_bandwidth = k->inter_bandwidth;
		k->embed_latency = k->inter_latency;
	}
	for (int d = 0; d < l->p; d++) {
		/* the GPUs of pipeline rank d, all replicas, are d*tp*dp .. (d+1)*tp*dp - 1 */
		long long span = (long long)k->tp * k->cp * k->dp;
		long long first = (long long)d * span, last = first + span - 1;
		bool dp_inside = first / k->gpus_per_node == last / k->gpus_per_node;
		pp_time whole;

		double ex = k->device_expert_params[d];

		/* the fp8 copy of the weights: not of the embedding and the head */
		k->device_state_bytes[d] = (k->device_params[d] - ex) * kept +
		                           ceil((k->device_params[d] - ex) / shards) * sharded +
		                           ex * kept + ceil(ex / eshards) * sharded -
		                           embed[d] * k->fp8_weight_bytes;
		k->dp_bandwidth[d] =
		        dp_inside ? k->link_bandwidth
		                  : cost_spanning_bandwidth(k->link_bandwidth, k->inter_bandwidth,
		                                            cost_fewest_in_rank(k, first, k->tp, k->dp * k->cp));
		k->dp_latency[d] = dp_inside ? k->link_latency : k->inter_latency;
		k->edp_bandwidth[d] =
		        dp_inside ? k->link_bandwidth
		                  : cost_spanning_bandwidth(k->link_bandwidth, k->inter_bandwidth,
		                                            cost_fewest_in_rank(k, first, k->ep, edp));
		k->edp_latency[d] = k->dp_latency[d];
		/* the whole gradient all-reduced at once must be a time: the link is blamed when
		 * not (the buckets of cost_pieces.c are parts of it) */
		static const char *const in_node[] = {"collective_efficiency", "bandwidth",
		        "latency", "link", "grad_reduce_bytes", NULL};
		static const char *const across[] = {"collective_efficiency", "inter_bandwidth",
		        "inter_latency", "inter_link", "bandwidth", "grad_reduce_bytes", NULL};

		if (checked_ticks(c, dp_inside ? in_node : across,
		                  cost_allreduce_ms(k->device_params[d] * k->grad_reduce_bytes,
		                                    k->dp * k->cp,
		                                    k->dp_bandwidth[d] * k->collective_efficiency,
		                                    k->dp_latency[d]),
		                  tick, &whole, err) != 0) {
			free(embed);
			return -1;
		}
		/* the optimizer step updates the GPU's parameters, or its shard of them (no bytes:
		 * no step, not even a kernel's launch) */
		k->optimizer_ms[d] = k->optimizer_bytes <= 0 ? 0 : kernel_memory_ms(
		        &cost_device_type(k, d)->hw, (k->device_params[d] - ex) * k->optimizer_bytes /
		                                (k->distributed_optimizer ? k->dp * k->cp : 1) +
		                        ex * k->optimizer_bytes / (k->distributed_optimizer ? edp : 1));
		k->optimizer_max_ms = fmax(k->optimizer_max_ms, k->optimizer_ms[d]);
	}
	free(embed);
	return 0;
}

/*
 * The collectives of one layer's op: tensor parallelism's all-reduce of the layer's activations
 * (s / cp tokens) inside the node, and each of its halves (an all-gather or a reduce-scatter);
 * context parallelism's exchange of a block of keys and values (s / cp tokens of the kv heads a
 * tensor-parallel rank holds, each key and value as wide as its own head: latent attention's
 * differ; their gradients too in the backward), over the link its group
 * spans: a ring step passes one block, the all-gather gathers cp - 1.
 */
static void exchanges(struct cost_model *k)
{
	double tokens = (double)k->mbs * k->seq / k->cp, e = k->dtype_bytes;
	double kv = tokens * (k->kv_dim + k->kvv_dim) * e / k->tp;
	int cp_node = cost_fewest_per_node(k, k->tp, k->cp);
	bool inside = cp_node == k->cp;
	/* a ring step crosses between nodes on one port; the all-gather's rings on several */
	double bw = (inside ? k->link_bandwidth
	             : k->cp_comm == PP_CP_ALLGATHER
	                     ? cost_spanning_bandwidth(k->link_bandwidth, k->inter_bandwidth, cp_node)
	                     : k->inter_bandwidth) *
	            k->collective_efficiency;
	double lat = inside ? k->link_latency : k->inter_latency;

	k->tp_allreduce_ms = cost_allreduce_ms(tokens * k->hidden * e, k->tp,
	                                       k->link_bandwidth * k->collective_efficiency,
	                                       k->link_latency);
	k->tp_coll_ms = k->tp_allreduce_ms / 2;
	if (k->cp_comm == PP_CP_ALLGATHER) {
		k->cp_fwd_ms = cost_collective_ms(COLL_ALLGATHER, kv * k->cp, k->cp, bw, lat);
		k->cp_bwd_ms = cost_collective_ms(COLL_REDUCE_SCATTER, kv * k->cp, k->cp, bw, lat);
	} else {
		k->cp_fwd_ms = k->cp > 1 ? lat / 1e3 + kv / (bw * 1e6) : 0;
		k->cp_bwd_ms = k->cp > 1 ? lat / 1e3 + 2 * kv / (bw * 1e6) : 0;
	}
	/* the expert-parallel groups: ep consecutive GPUs of a pipeline rank's */
	moe_exchanges(k, cost_fewest_per_node(k, 1, k->ep));
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
	if (resolve_hardware(c, l, k, err) != 0 || resolve_parallel(c, l, k, err) != 0 ||
	    split_layers(c, k, l, err) != 0 || stage_recomputes(c, k, l, err) != 0) {
		cost_free(cost);
		return NULL;
	}
	moe_stage_layers(k, l->S);
	cost_layer_figures(k);
	k->stage_type = pp_calloc((size_t)l->S, sizeof(*k->stage_type));
	if (k->stage_type == NULL) {
		pp_nomem(err, (size_t)l->S, sizeof(*k->stage_type));
		cost_free(cost);
		return NULL;
	}
	for (int st = 0; st < l->S; st++)
		k->stage_type[st] = k->device_type[l->stage_device[st]];
	/* the layers' op times once per GPU type */
	for (int t = 0; t < k->ntypes; t++)
		cost_layer_times(k, &k->types[t]);
	k->hop_bandwidth = pp_calloc((size_t)l->S, sizeof(*k->hop_bandwidth));
	k->hop_latency = pp_calloc((size_t)l->S, sizeof(*k->hop_latency));
	if (k->hop_bandwidth == NULL || k->hop_latency == NULL) {
		pp_nomem(err, (size_t)l->S, sizeof(*k->hop_latency));
		cost_free(cost);
		return NULL;
	}
	exchanges(k);
	if (price_stages(c, l, cost, err) != 0 || device_figures(c, l, k, cost->tick, err) != 0 ||
	    cost_model_pieces(c, l, cost, err) != 0) {
		cost_free(cost);
		return NULL;
	}
	{
		int moe = k->experts > 0 ? k->layers - k->dense_layers : 0;
		int dense = k->layers - moe + (moe_last_is_expert(k) ? 0 : k->mtp_layers);

		moe += moe_last_is_expert(k) ? k->mtp_layers : 0;
		per_mb = dense * (k->layer_flops.f + k->layer_flops.b + k->layer_flops.w) +
		         moe * (k->moe_flops.f + k->moe_flops.b + k->moe_flops.w) +
		         k->last_head_flops.f + k->last_head_flops.b + k->last_head_flops.w;
	}
	k->step_flops = per_mb * c->m * k->dp;
	k->samples_per_step = (double)c->m * k->mbs * k->dp;
	k->tokens_per_step = k->samples_per_step * k->seq;
	return cost;
}
