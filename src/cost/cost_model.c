/*
 * Costs derived from a model, a GPU and links (DESIGN.md, Costs). Per transformer layer with P
 * linear parameters and t = b*s tokens, the forward takes 2Pt + 4bs^2h FLOPs, the input-gradient
 * backward 2Pt + 8bs^2h and the weight-gradient backward 2Pt (the zero-bubble paper's Table 1
 * generalised; the s^2 attention terms are counted without causal masking's halving). The last
 * stage adds the LM head, 2tHV FLOPs for each of F, B and W. Tensor parallelism divides the
 * FLOPs by tp and adds two all-reduces of the layer's activations to F and to B, on the link
 * inside the node. Compute runs at efficiency x peak. Activations follow Korthikanti et al.
 * 2022 with sequence parallelism: 34sbh/tp bytes per layer with flash attention,
 * sbh(34 + 5as/h)/tp without, 34sbh/tp with selective recomputation (whose backward then runs
 * the attention core again), 2sbh/tp with full recomputation (whose backward then recomputes
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

/*
 * FP8 training as Transformer Engine runs it (docs/cost-model.md, FP8): the bytes per
 * parameter that the fp8 copy of the weights adds, which TE caches once per step for the
 * micro-batches after the first ("Performance Optimizations", FP8 weight caching,
 * is_first_microbatch); its transpose, which Hopper's fp8 GEMMs also use for the backward, is
 * not counted. The cast kernels' bytes per element: a cast reads a bf16 operand and writes it
 * in fp8 (amax taken in the same kernel, 2 + 1 bytes); the weight-gradient GEMM's operands
 * are transposes of fp8 tensors already cast (1 + 1 bytes).
 */
#define FP8_WEIGHT_BYTES    1.0
#define FP8_CAST_BYTES      3.0
#define FP8_TRANSPOSE_BYTES 2.0

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
	k->hw.tflops = pickd(c->tflops, gp->tflops);
	k->hw.memory_bandwidth = pickd(c->memory_bandwidth, gp->memory_bandwidth);
	k->hw.sms = pick(c->sms, gp->sms);
	k->hw.gemm_efficiency = pickd(c->gemm_efficiency, gp->gemm_efficiency);
	k->hw.fp8_tflops = pickd(c->fp8_tflops, gp->fp8_tflops);
	k->hw.fp8_gemm_efficiency = pickd(c->fp8_gemm_efficiency, gp->fp8_gemm_efficiency);
	k->hw.attention_efficiency = pickd(c->attention_efficiency, gp->attention_efficiency);
	k->hw.attention_bwd_efficiency =
	        pickd(c->attention_bwd_efficiency, gp->attention_bwd_efficiency);
	k->hw.memory_efficiency = pickd(c->memory_efficiency, gp->memory_efficiency);
	k->hw.sustained = pickd(c->sustained_share, gp->sustained);
	k->hw.kernel_overhead = c->kernel_overhead >= 0 ? c->kernel_overhead : gp->kernel_overhead;
	k->capacity_bytes = pickd(c->gpu_memory, gp->memory_gb) * 1e9;
	k->reserve_bytes = c->memory_reserve >= 0
	                           ? c->memory_reserve * 1e9
	                           : (RESERVE_CONTEXT_GB + RESERVE_COMMUNICATION_GB) * 1e9 +
	                                     RESERVE_FRAGMENTATION * k->capacity_bytes;
	if (k->reserve_bytes >= k->capacity_bytes && config_is_set(c, "memory_reserve"))
		return config_fail(c, "memory_reserve", err, "must be below the GPU's %g GB",
		                   k->capacity_bytes / 1e9);
	if (k->reserve_bytes >= k->capacity_bytes)
		return config_fail(c, "gpu_memory", err,
		                   "leaves nothing beyond the %g GB kept free by default (3 GB and "
		                   "10%%; --memory-reserve sets it)",
		                   k->reserve_bytes / 1e9);
	k->efficiency = c->efficiency;
	k->fp8 = c->fp8 != 0;
	k->fp8_weight_bytes = k->fp8 ? FP8_WEIGHT_BYTES : 0;
	if (k->fp8 && (k->hw.fp8_tflops == 0 || k->hw.fp8_gemm_efficiency == 0))
		return config_fail(c, "fp8", err,
		                   "the GPU %s has no fp8 tensor cores: its preset gives no fp8 peak "
		                   "and fp8 GEMM efficiency (fp8_tflops and fp8_gemm_efficiency set "
		                   "them)",
		                   gp->name);
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
	k->p2p_overhead = c->p2p_overhead >= 0 ? c->p2p_overhead : P2P_OVERHEAD_US;
	k->p2p_efficiency = c->p2p_efficiency > 0 ? c->p2p_efficiency : P2P_EFFICIENCY;
	if (k->hidden % k->heads != 0)
		return config_fail(c, "heads", err, "must divide the hidden size %d", k->hidden);
	if (k->heads % k->kv_heads != 0)
		return config_fail(c, "kv_heads", err, "must divide the %d attention heads",
		                   k->heads);
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
	k->sequence_parallel = c->sequence_parallel != 0;
	k->unfused_attention_bytes = c->unfused_attention_bytes >= 0 ? c->unfused_attention_bytes
	                                                             : UNFUSED_ATTENTION_BYTES;
	k->recompute = c->recompute;
	k->distributed_optimizer = c->distributed_optimizer > 0;
	k->cp = c->cp;
	k->cp_comm = c->cp_comm;
	k->tp_overlap = c->tp_overlap == PP_TP_OVERLAP_DEFAULT ? PP_TP_OVERLAP_NONE : c->tp_overlap;
	k->overlap_grad_reduce = c->overlap_grad_reduce > 0;
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
	if (k->seq % (2 * k->cp) != 0)
		return config_fail(c, "cp", err,
		                   "must split the sequence of %d into 2 x cp blocks (causal balance)",
		                   k->seq);
	if (k->overlap_param_gather && !k->distributed_optimizer && config_is_set(c, "overlap_param_gather"))
		return config_fail(c, "overlap_param_gather", err,
		                   "needs a distributed optimizer (parameters are gathered only "
		                   "when the optimizer is sharded)");
	if (config_dp(c, &k->dp, err) != 0)
		return -1;
	k->gpus = c->p * k->tp * k->cp * k->dp;
	k->bucket_params = c->bucket_size > 0 ? c->bucket_size
	                                      : fmax(BUCKET_PARAMS_MIN, BUCKET_PARAMS_PER_DP * k->dp);
	if (k->bytes_per_param < 4)
		return config_fail(c, "bytes_per_param", err,
		                   "must be at least 4 (bf16 weights and gradients)");
	return 0;
}

/* The layers of the first route's S stages (of `routes`, so that a list names S stages), into
 * k->stage_layers, allocated for all routes' stages. */
static int route_layers(const struct config *c, struct cost_model *k, int S, int routes,
                        struct pp_error *err)
{
	int first = c->first_stage_layers, last = c->last_stage_layers, rest = k->layers, mid = S;

	k->stage_layers = pp_calloc((size_t)S * (size_t)routes, sizeof(*k->stage_layers));
	if (k->stage_layers == NULL)
		return pp_nomem(err, (size_t)S * (size_t)routes, sizeof(*k->stage_layers));
	if (c->nlayers_per_stage > 0 && (first > 0 || last > 0))
		return config_fail(c, "layers_per_stage", err,
		                   "give it or --first-stage-layers/--last-stage-layers, not both");
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
	if (rest < 0 || (mid == 0 && rest != 0) || (mid > 0 && (rest == 0 || rest % mid != 0)))
		return config_fail(c,
		                   first > 0                    ? "first_stage_layers"
		                   : last > 0                   ? "last_stage_layers"
		                   : config_is_set(c, "layers") ? "layers"
		                                                : "p",
		                   err,
		                   "%s's %d layers do not split evenly over %s%d stages; set "
		                   "--layers-per-stage or --first-stage-layers/--last-stage-layers",
		                   k->model, k->layers, routes == 1 ? "p x v = " : "a route's ", S);
	for (int s = 0; s < S; s++)
		k->stage_layers[s] = mid > 0 ? rest / mid : 0;
	if (first > 0)
		k->stage_layers[0] = first;
	if (last > 0)
		k->stage_layers[S - 1] = last;
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
	/*
	 * Korthikanti et al.'s constants count 16-bit activations (scaled for other widths): of a
	 * layer's 34 sbh, 24 sbh are the tensor-parallel GEMMs' and the MLP's, split over tp; the
	 * norms' and dropouts' 10 sbh are split only with sequence parallelism, as is the layer
	 * input that full recomputation keeps
	 */
	double rep = k->sequence_parallel ? 1.0 / k->tp : 1.0;

	if (k->recompute == PP_RECOMPUTE_FULL)
		k->layer_act_bytes = 2 * s * b * h * rep;
	else if (k->flash_attention || k->recompute == PP_RECOMPUTE_SELECTIVE)
		k->layer_act_bytes = s * b * h * (10 * rep + 24.0 / k->tp);
	else
		k->layer_act_bytes = s * b * h * (10 * rep + (24 + 5 * a * s / h) / k->tp);
	k->layer_act_bytes *= k->dtype_bytes / 2.0 / k->cp;
	k->msg_bytes = (uint64_t)(b * s * h * k->dtype_bytes / k->tp / k->cp);
}

/*
 * Whether every data-parallel replica's hop between pipeline ranks d and e stays inside one
 * node. Ranks are laid out tp innermost, then dp, then pp (Megatron-LM's default order): GPU
 * (d * dp + r) * tp + j is TP rank j of replica r on pipeline rank d. Residues repeat within
 * gpus_per_node replicas, so that many suffice.
 */
static bool hop_inside(const struct cost_model *k, int d, int e)
{
	long long g = k->gpus_per_node, span = (long long)k->tp * k->cp * k->dp;
	long long reps = (long long)k->cp * k->dp, n = reps < g ? reps : g;

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
	double eff = k->efficiency > 0 ? k->efficiency : k->hw.gemm_efficiency * k->hw.sustained;

	return flops / (k->hw.tflops * 1e12 * eff) * 1e3;
}

/*
 * The op times of one layer and of the LM head on one GPU (TP all-reduces apart), into
 * k->layer_ms and k->head_ms. With --efficiency, every op's FLOPs run at that share of peak;
 * else each kernel is priced (kernels.c): the layer's four GEMMs (QKV, output projection, MLP
 * in and out, each split over tp) as forward, input-gradient and weight-gradient GEMMs;
 * attention, causal, as flash kernels (half the s^2 work of the full count, the backward 2.5
 * times the forward's) or, without flash, as batched GEMMs over the full scores plus the
 * softmax's and dropout's bytes (the forward part is k->attn_fwd_ms); and the
 * memory-bound kernels: two norms and two residual adds on t/tp tokens (sequence parallelism),
 * the MLP activation on t tokens, each read and written once forward and twice backward. The
 * head is one GEMM of h x V/tp and the loss over fp32 logits. With fp8, the four GEMMs run in
 * fp8 with their casts (FP8_CAST_BYTES, FP8_TRANSPOSE_BYTES); attention and the head stay in
 * bf16, as Transformer Engine and Megatron-LM keep them.
 */
static void layer_times(struct cost_model *k)
{
	const struct cost_gpu *g = &k->hw;
	/* with context parallelism a GPU holds s / cp of each sequence's tokens, whose queries
	 * meet all s keys: the attention core's work is 1/cp of the sequence's */
	double h = k->hidden, s = k->seq, b = k->mbs, cp = k->cp, t = b * s / cp, tp = k->tp;
	double V = k->vocab, kv = (double)k->kv_heads * (h / k->heads), e = k->dtype_bytes;
	double gemm[4][2] = {
	        {h, (h + 2 * kv) / tp},                    /* QKV: K = h in, N out */
	        {h / tp, h},                               /* output projection */
	        {h, (k->gated_mlp ? 2 : 1) * k->ffn / tp}, /* MLP in (gate and up when gated) */
	        {k->ffn / tp, h},                          /* MLP out */
	};
	double attn = 4 * b * s * s * h / tp / cp, act = (k->gated_mlp ? 3 : 2) * k->ffn / tp;
	struct cost_flops *l = &k->layer_ms, *hd = &k->head_ms;

	if (k->efficiency > 0) {
		k->attn_fwd_ms = cost_model_compute_ms(k, attn);
		k->attn_bwd_ms = 2 * k->attn_fwd_ms;
		l->f = cost_model_compute_ms(k, k->layer_flops.f / tp / cp);
		l->b = cost_model_compute_ms(k, k->layer_flops.b / tp / cp);
		l->w = cost_model_compute_ms(k, k->layer_flops.w / tp / cp);
		hd->f = cost_model_compute_ms(k, k->head_flops.f / tp / cp);
		hd->b = cost_model_compute_ms(k, k->head_flops.b / tp / cp);
		hd->w = cost_model_compute_ms(k, k->head_flops.w / tp / cp);
		return;
	}
	*l = (struct cost_flops){0, 0, 0};
	for (int i = 0; i < 4 && !k->fp8; i++) {
		l->f += kernel_gemm_ms(g, t, gemm[i][1], gemm[i][0], k->dtype_bytes);
		l->b += kernel_gemm_ms(g, t, gemm[i][0], gemm[i][1], k->dtype_bytes);
		l->w += kernel_gemm_ms(g, gemm[i][0], gemm[i][1], t, k->dtype_bytes);
	}
	for (int i = 0; i < 4 && k->fp8; i++) {
		/* each GEMM's activation operand cast to fp8: the input (t x K) forward, the
		 * output gradient (t x N) backward; W transposes both */
		double in = t * gemm[i][0], out = t * gemm[i][1];

		l->f += kernel_gemm_fp8_ms(g, t, gemm[i][1], gemm[i][0]) +
		        kernel_memory_ms(g, FP8_CAST_BYTES * in);
		l->b += kernel_gemm_fp8_ms(g, t, gemm[i][0], gemm[i][1]) +
		        kernel_memory_ms(g, FP8_CAST_BYTES * out);
		l->w += kernel_gemm_fp8_ms(g, gemm[i][0], gemm[i][1], t) +
		        kernel_memory_ms(g, FP8_TRANSPOSE_BYTES * (in + out));
	}
	if (k->flash_attention) {
		k->attn_fwd_ms = kernel_attention_ms(g, attn / 2, false);
		k->attn_bwd_ms = kernel_attention_ms(g, 2.5 * attn / 2, true);
		l->b += k->attn_bwd_ms;
	} else {
		/* batched GEMMs over the b x a/tp heads of head size d, the full s x s scores (no
		 * block is skipped), and Megatron-LM's fused scale-mask-softmax and attention
		 * dropout over them: forward Q K^T and P V, then the softmax reading and writing
		 * the scores and the dropout reading them and writing them and its 1-byte mask
		 * (the forward's unexplained excess, unfused_attention_bytes, counted with it);
		 * backward the dropout's and the softmax's gradients (2e + 1 and 3e bytes a score)
		 * and four products (dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q) */
		double heads = b * k->heads / tp, d = h / k->heads, sq = s / cp, n = heads * sq * s;

		k->attn_fwd_ms = kernel_bgemm_ms(g, heads, sq, s, d, k->dtype_bytes) +
		                 kernel_bgemm_ms(g, heads, sq, d, s, k->dtype_bytes) +
		                 kernel_memory_ms(g, 2 * e * n) +
		                 kernel_memory_ms(g, (2 * e + 1 + k->unfused_attention_bytes) * n);
		k->attn_bwd_ms = kernel_bgemm_ms(g, heads, sq, s, d, k->dtype_bytes) +
		                 3 * kernel_bgemm_ms(g, heads, sq, d, s, k->dtype_bytes) +
		                 kernel_memory_ms(g, (2 * e + 1) * n) + kernel_memory_ms(g, 3 * e * n);
		l->b += k->attn_bwd_ms;
	}
	l->f += k->attn_fwd_ms;
	for (int i = 0; i < 4; i++) {
		/* norms read and write h, residual adds read 2h and write h, per token: t/tp of
		 * them with sequence parallelism, else every rank runs them on all t */
		double bytes = e * t / (k->sequence_parallel ? tp : 1) * (i < 2 ? 2 * h : 3 * h);

		l->f += kernel_memory_ms(g, bytes);
		l->b += kernel_memory_ms(g, 2 * bytes);
	}
	l->f += kernel_memory_ms(g, e * t * act);
	l->b += kernel_memory_ms(g, 2 * e * t * act);
	hd->f = kernel_gemm_ms(g, t, V / tp, h, k->dtype_bytes) +
	        kernel_memory_ms(g, 3 * 4 * t * V / tp); /* logits to fp32, softmax, loss */
	hd->b = kernel_gemm_ms(g, t, h, V / tp, k->dtype_bytes) +
	        kernel_memory_ms(g, 2 * 4 * t * V / tp);
	hd->w = kernel_gemm_ms(g, h, V / tp, t, k->dtype_bytes);
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
		double n = k->stage_layers[st], head = cost_layout_last(l, st) ? 1 : 0;
		double f = n * k->layer_ms.f + head * k->head_ms.f;
		double b = n * k->layer_ms.b + head * k->head_ms.b;
		double w = n * k->layer_ms.w + head * k->head_ms.w;
		double act = n * k->layer_act_bytes +
		             head * 4.0 * k->seq * k->mbs * k->vocab / tp / k->cp;

		f += n * tp_ar;
		b += n * tp_ar;
		/* full recomputation runs each layer's forward again, all-reduces included */
		if (k->recompute == PP_RECOMPUTE_FULL)
			b += n * (k->layer_ms.f + tp_ar);
		/* selective recomputation runs the attention core again (Korthikanti et al.) */
		if (k->recompute == PP_RECOMPUTE_SELECTIVE)
			b += n * k->attn_fwd_ms;
		if (!pp_time_from_units(f, cost->tick, &cost->t_f[st]) ||
		    !pp_time_from_units(b, cost->tick, &cost->t_b[st]) ||
		    !pp_time_from_units(w, cost->tick, &cost->t_w[st]))
			return pp_fail(
			        err, PP_ERR_USAGE,
			        "the model prices stage %d's ops at up to %.3g ms, above the "
			        "limit of %g: the model's size (--seq, --mbs, --hidden, layers "
			        "per stage) is out of proportion with the GPU's speed (--tflops, "
			        "--memory-bandwidth) or its links' (--bandwidth)",
			        st, fmax(f, fmax(b, w)), PP_TIME_MAX_UNITS);
		cost->act[st] = (int64_t)llround(act);
		cost->act_w[st] = (int64_t)llround(act * c->w_mem_fraction);
		cost->msg_bytes[st] = 0;
		cost->msg_time[st] = 0;
		if (!cost_layout_last(l, st)) {
			int a = (int)l->stage_device[st], bdev = (int)l->stage_device[st + 1];
			bool inside = hop_inside(k, a, bdev);
			double bw = (inside ? k->link_bandwidth : k->inter_bandwidth) *
			            (inside ? k->p2p_efficiency : 1);
			double lat =
			        (inside ? k->link_latency : k->inter_latency) + k->p2p_overhead;

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

/* The fewest GPUs one node holds of a group of n GPUs stride apart from GPU first (the data-
 * and context-parallel groups are tp apart): the ring leaves that node on that many ports. */
static int group_per_node(const struct cost_model *k, long long first, int stride, int n)
{
	long long g = k->gpus_per_node, full = g / stride;
	long long head = (g - first % g + stride - 1) / stride, rest, fewest;

	if (full < 1)
		return 1;
	fewest = head < n ? head : n;
	rest = n - fewest;
	if (rest >= full && full < fewest)
		fewest = full;
	if (rest % full != 0 && rest % full < fewest)
		fewest = rest % full;
	return fewest < 1 ? 1 : (int)fewest;
}

/* Parameters, weight/gradient/optimizer bytes, the data-parallel link and the optimizer step of
 * each device. */
static int device_figures(const struct config *c, const struct cost_layout *l, struct cost_model *k,
                          int64_t tick, struct pp_error *err)
{
	double embed = (double)k->vocab * k->hidden / k->tp;
	/* bf16 weights and gradients stay whole; the rest (the optimizer's state) is sharded by a
	 * distributed optimizer; FP8 keeps a copy of the weights beside */
	double keep = 4 + k->fp8_weight_bytes +
	              (k->bytes_per_param - 4) / (k->distributed_optimizer ? k->dp * k->cp : 1);
	const uint32_t *dev = l->stage_device;
	int L = l->S / l->routes;

	k->device_params = pp_calloc((size_t)l->p, sizeof(*k->device_params));
	k->device_state_bytes = pp_calloc((size_t)l->p, sizeof(*k->device_state_bytes));
	k->optimizer_ms = pp_calloc((size_t)l->p, sizeof(*k->optimizer_ms));
	k->dp_bandwidth = pp_calloc((size_t)l->p, sizeof(*k->dp_bandwidth));
	k->dp_latency = pp_calloc((size_t)l->p, sizeof(*k->dp_latency));
	if (k->device_params == NULL || k->device_state_bytes == NULL ||
	    k->optimizer_ms == NULL || k->dp_bandwidth == NULL || k->dp_latency == NULL)
		return pp_nomem(err, (size_t)l->p, sizeof(*k->device_params));
	for (int st = 0; st < l->S; st++)
		k->device_params[dev[st]] += k->stage_layers[st] * k->layer_params / k->tp;
	/* the first route's ends (DualPipe's two copies have the same two) */
	if (hop_inside(k, (int)dev[0], (int)dev[L - 1])) {
		k->embed_bandwidth = k->link_bandwidth;
		k->embed_latency = k->link_latency;
	} else {
		k->embed_bandwidth = k->inter_bandwidth;
		k->embed_latency = k->inter_latency;
	}
	/* the embedding on the first stage of each route, the LM head on its last; a tied pair on
	 * one device is one matrix */
	for (int st = 0; st < l->S; st += L) {
		k->device_params[dev[st]] += embed;
		if (!(k->tied && dev[st] == dev[st + L - 1]))
			k->device_params[dev[st + L - 1]] += embed;
	}
	for (int d = 0; d < l->p; d++) {
		/* the GPUs of pipeline rank d, all replicas, are d*tp*dp .. (d+1)*tp*dp - 1 */
		long long span = (long long)k->tp * k->cp * k->dp;
		long long first = (long long)d * span, last = first + span - 1;
		bool dp_inside = first / k->gpus_per_node == last / k->gpus_per_node;
		pp_time whole;

		k->device_state_bytes[d] = k->device_params[d] * keep;
		k->dp_bandwidth[d] =
		        dp_inside ? k->link_bandwidth
		                  : cost_spanning_bandwidth(k->link_bandwidth, k->inter_bandwidth,
		                                            group_per_node(k, first, k->tp, k->dp * k->cp));
		k->dp_latency[d] = dp_inside ? k->link_latency : k->inter_latency;
		/* the whole gradient all-reduced at once must be a time: the link is blamed when
		 * not (the buckets of cost_pieces.c are parts of it) */
		if (checked_ticks(c, dp_inside ? "bandwidth" : "inter_bandwidth",
		                  cost_allreduce_ms(k->device_params[d] * k->grad_reduce_bytes,
		                                    k->dp * k->cp,
		                                    k->dp_bandwidth[d] * k->collective_efficiency,
		                                    k->dp_latency[d]),
		                  tick, &whole, err) != 0)
			return -1;
		/* the optimizer step updates the GPU's parameters, or its shard of them */
		k->optimizer_ms[d] = kernel_memory_ms(&k->hw, k->device_params[d] * k->optimizer_bytes /
		                                                      (k->distributed_optimizer
		                                                               ? k->dp * k->cp
		                                                               : 1));
		k->optimizer_max_ms = fmax(k->optimizer_max_ms, k->optimizer_ms[d]);
	}
	return 0;
}

/*
 * The collectives of one layer's op: tensor parallelism's all-reduce of the layer's activations
 * (s / cp tokens) inside the node, and each of its halves (an all-gather or a reduce-scatter);
 * context parallelism's exchange of a block of keys and values (s / cp tokens of the kv heads a
 * tensor-parallel rank holds; their gradients too in the backward), over the link its group
 * spans: a ring step passes one block, the all-gather gathers cp - 1.
 */
static void exchanges(struct cost_model *k)
{
	double tokens = (double)k->mbs * k->seq / k->cp, e = k->dtype_bytes;
	double kv = 2 * tokens * k->kv_heads * ((double)k->hidden / k->heads) * e / k->tp;
	bool inside = (long long)k->tp * k->cp <= k->gpus_per_node;
	/* a ring step crosses between nodes on one port; the all-gather's rings on several */
	double bw = (inside ? k->link_bandwidth
	             : k->cp_comm == PP_CP_ALLGATHER
	                     ? cost_spanning_bandwidth(k->link_bandwidth, k->inter_bandwidth,
	                                               group_per_node(k, 0, k->tp, k->cp))
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
	    split_layers(c, k, l, err) != 0) {
		cost_free(cost);
		return NULL;
	}
	layer_figures(k);
	layer_times(k);
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
	per_mb = k->layers * (k->layer_flops.f + k->layer_flops.b + k->layer_flops.w) +
	         k->head_flops.f + k->head_flops.b + k->head_flops.w;
	k->step_flops = per_mb * c->m * k->dp;
	k->samples_per_step = (double)c->m * k->mbs * k->dp;
	k->tokens_per_step = k->samples_per_step * k->seq;
	return cost;
}
