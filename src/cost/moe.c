/*
 * Mixture-of-experts layers (docs/cost-model.md, Mixture of experts): what an expert layer
 * holds, computes and sends beside the dense layer's attention. A GPU runs the MLP part on its
 * t / tp tokens (sequence-parallel, as Megatron-Core's token dispatchers take them): a router
 * (an h x experts GEMM and its softmax and top-k), the shared experts on every token, and
 * top_k routed experts per token. The routed token copies go to the GPUs of the expert-parallel
 * group that hold their experts (an all-to-all, the dispatch), run through experts / ep grouped
 * GEMMs there, and come back (the combine). With a load imbalance f, the busiest GPU receives f
 * times the mean of the copies, and everyone waits for it: its GEMMs and its all-to-alls set
 * the layer's time.
 */
#include <math.h>
#include <string.h>

#include "cost_internal.h"

/* bytes of router state per token and expert: fp32 logits, their softmax, the top-k scores */
#define ROUTER_BYTES 12.0

int moe_resolve(const struct config *c, const struct model_preset *mp, struct cost_model *k,
                struct pp_error *err)
{
	long long group = (long long)k->tp * k->cp * k->dp;

	k->experts = c->experts >= 0 ? c->experts : mp->experts;
	k->top_k = c->top_k > 0 ? c->top_k : mp->top_k;
	k->expert_ffn = c->expert_ffn > 0 ? c->expert_ffn : mp->expert_ffn;
	k->shared_experts = c->shared_experts >= 0 ? c->shared_experts : mp->shared_experts;
	k->dense_layers = c->dense_layers >= 0 ? c->dense_layers : mp->dense_layers;
	k->ep = c->ep;
	k->ep_dispatch = c->ep_dispatch;
	k->ep_node_limit = c->ep_node_limit;
	k->dispatch_bytes = c->dispatch_bytes;
	k->expert_imbalance = c->expert_imbalance > 0 ? c->expert_imbalance : 1;
	/* Megatron-Core's overlap of the expert all-to-all (overlap_moe_expert_parallel_comm),
	 * which the combined 1F1B runs, asserts expert parallelism and no full recomputation */
	if (strcmp(c->schedule, "interleaved-combined") == 0 && (k->experts == 0 || k->ep <= 1))
		return config_fail(c, config_is_set(c, "ep") ? "ep" : "schedule", err,
		                   "interleaved-combined overlaps the expert all-to-all, which needs "
		                   "expert parallelism, as Megatron-Core asserts: give a mixture of "
		                   "experts and --ep above 1, or -s interleaved");
	if (strcmp(c->schedule, "interleaved-combined") == 0 && c->recompute == PP_RECOMPUTE_FULL)
		return config_fail(c, "recompute", err,
		                   "full recomputation is refused with interleaved-combined's overlap "
		                   "of the expert all-to-all, as Megatron-Core asserts: give "
		                   "--recompute=selective or none, or -s interleaved");
	if (k->experts == 0) {
		static const char *const keys[] = {"top_k",          "expert_ffn",       "shared_experts",
		                                   "dense_layers",   "ep",               "expert_imbalance",
		                                   "ep_dispatch",    "ep_node_limit",    "dispatch_bytes"};

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (config_is_set(c, keys[i]))
				return config_is_set(c, "experts")
				               ? config_fail(c, keys[i], err,
				                             "needs a mixture of experts: --experts 0 "
				                             "makes the model %s dense",
				                             k->model)
				               : config_fail(c, keys[i], err,
				                             "needs a mixture of experts: the model %s is "
				                             "dense (--experts sets routed experts)",
				                             k->model);
		k->top_k = k->expert_ffn = k->shared_experts = k->dense_layers = 0;
		return 0;
	}
	if (k->ep_node_limit > 0 && k->ep_dispatch != PP_EP_DEEPEP)
		return config_fail(c, "ep_node_limit", err,
		                   "limits the nodes DeepEP's dispatch sends a token to: give "
		                   "--ep-dispatch=deepep (the all-to-all sends every copy)");
	if (k->top_k == 0 || k->expert_ffn == 0)
		return config_fail(c, "experts", err,
		                   "needs --top-k and --expert-ffn too: the model %s has no experts of "
		                   "its own",
		                   k->model);
	if (k->top_k > k->experts)
		return config_is_set(c, "top_k") || !config_is_set(c, "experts")
		               ? config_fail(c, "top_k", err, "must be at most the %d experts",
		                             k->experts)
		               : config_fail(c, "experts", err,
		                             "must be at least the %d experts a token is routed to "
		                             "(the model %s's top-k; --top-k sets fewer)",
		                             k->top_k, k->model);
	if (k->experts % k->ep != 0)
		return config_fail(c, "ep", err, "must divide the %d experts", k->experts);
	/* node-limited routing needs nodes that hold a token's top-k experts between them */
	if (k->ep_node_limit > 0 && k->gpus_per_node > 0) {
		int per_node = k->ep < k->gpus_per_node ? k->ep : k->gpus_per_node;
		long long in_node = (long long)k->experts / k->ep * per_node;

		if (k->ep_node_limit * in_node < k->top_k)
			return config_fail(c, "ep_node_limit", err,
			                   "%d node%s of %lld experts each cannot hold a token's %d "
			                   "experts: give a limit of at least %lld",
			                   k->ep_node_limit, k->ep_node_limit == 1 ? "" : "s", in_node,
			                   k->top_k,
			                   (k->top_k + in_node - 1) / in_node);
	}
	if (group % k->ep != 0)
		return config_fail(c, "ep", err,
		                   "must divide the tp x cp x dp = %lld GPUs of a pipeline rank (the "
		                   "expert-parallel group is made of them): give --dp, or --gpus, so "
		                   "that a rank holds a multiple of %d",
		                   group, k->ep);
	if (k->dense_layers > k->layers)
		return config_is_set(c, "dense_layers") || !config_is_set(c, "layers")
		               ? config_fail(c, "dense_layers", err, "must be at most the %d layers",
		                             k->layers)
		               : config_fail(c, "layers", err,
		                             "must be at least the model %s's %d dense layers "
		                             "(--dense-layers sets fewer)",
		                             k->model, k->dense_layers);
	/* the token dispatchers take a tensor-parallel rank's share of the tokens: Megatron-Core
	 * refuses expert and tensor parallelism without sequence parallelism */
	if (k->ep > 1 && k->tp > 1 && !k->sequence_parallel)
		return config_fail(c, config_is_set(c, "sequence_parallel") ? "sequence_parallel" : "ep",
		                   err,
		                   "expert parallelism with tp = %d needs sequence parallelism, as "
		                   "Megatron-Core asserts (give --sequence-parallel=yes, or --ep=1)",
		                   k->tp);
	if (k->expert_imbalance < 1)
		return config_fail(c, "expert_imbalance", err,
		                   "must be at least 1: the busiest rank gets at least the mean");
	{
		/* the busiest of ep GPUs gets at most every token's copies to its experts / ep
		 * experts (min(top_k, experts / ep) a token) against the mean top_k / ep: 1 at
		 * ep = 1, where one GPU holds every expert */
		int most = k->experts / k->ep < k->top_k ? k->experts / k->ep : k->top_k;
		double cap = (double)k->ep * most / k->top_k;

		if (k->expert_imbalance > cap)
			k->expert_imbalance = cap;
	}
	return 0;
}

void moe_stage_layers(struct cost_model *k, int S)
{
	int first = 0;

	for (int s = 0; s < S; s++) {
		int dense;

		if (s % k->route_stages == 0)
			first = 0; /* each route is the whole model (DualPipe's two copies) */
		dense = k->experts > 0 ? k->dense_layers - first : k->stage_layers[s];
		dense = dense < 0 ? 0 : dense > k->stage_layers[s] ? k->stage_layers[s] : dense;
		k->stage_moe[s] = k->stage_layers[s] - dense;
		first += k->stage_layers[s];
	}
}

void moe_figures(struct cost_model *k, double attn_params)
{
	double h = k->hidden, t = (double)k->mbs * k->seq, mult = k->gated_mlp ? 3 : 2;
	double expert = mult * h * k->expert_ffn;
	double core = 2.0 * k->mbs * k->seq * k->seq * (k->q_dim + k->o_dim);
	double active, rep = k->sequence_parallel ? 1.0 / k->tp : 1.0;

	if (k->experts == 0)
		return;
	k->moe_params = attn_params + h * k->experts + k->shared_experts * expert;
	k->routed_params = k->experts * expert;
	active = k->moe_params + k->top_k * expert;
	k->moe_flops.f = 2 * active * t + core;
	k->moe_flops.b = 2 * active * t + 2 * core;
	k->moe_flops.w = 2 * active * t;
	/*
	 * The layer's activations: the dense layer's less its MLP's (as the dense figure counts
	 * it: its input 2 sbh and its dropout mask sbh, and its intermediate tensors,
	 * cost_mlp_act_width of the dense ffn), plus the router's state on t / tp tokens, the
	 * routed copies (their input, the experts' intermediate tensors and output) on the
	 * busiest GPU, and the shared experts'. Full recomputation keeps the layer input alone, as
	 * for a dense layer.
	 */
	for (int r = 0; r < 3; r++) {
		double s = k->seq, b = k->mbs, e = k->dtype_bytes, tm = t / k->tp;
		double dense_mlp =
		        s * b * (3 * h * rep + cost_mlp_act_width(k, k->ffn) / k->tp) * e / 2.0;
		double copies = tm * k->top_k * k->expert_imbalance;
		double routed = e * copies * (2 * h + mult * k->expert_ffn);
		double shared = e * tm * mult * k->shared_experts * k->expert_ffn;
		double *act = &k->moe_act_by[r];

		if (r == PP_RECOMPUTE_FULL) {
			*act = k->layer_act_by[r];
			continue;
		}
		*act = k->layer_act_by[r] * k->cp - dense_mlp + ROUTER_BYTES * tm * k->experts +
		       routed + shared;
		*act /= k->cp;
	}
	k->moe_act_bytes = k->moe_act_by[k->recompute];
}

/* F, B and W of `batch` GEMMs of m tokens by an n-wide weight of depth kd, in bf16 or (fp8) in
 * fp8 with the activation casts (as the dense layer's linear GEMMs), added to out. */
static void gemms(const struct cost_model *k, const struct cost_gpu *g, double batch, double m,
                  double n, double kd, bool fp8, struct cost_flops *out)
{
	if (m <= 0 || batch <= 0)
		return;
	if (!fp8) {
		out->f += kernel_bgemm_ms(g, batch, m, n, kd, k->dtype_bytes);
		out->b += kernel_bgemm_ms(g, batch, m, kd, n, k->dtype_bytes);
		out->w += kernel_bgemm_ms(g, batch, kd, n, m, k->dtype_bytes);
		return;
	}
	out->f += kernel_bgemm_fp8_ms(g, batch, m, n, kd) +
	          kernel_memory_ms(g, FP8_CAST_BYTES * batch * m * kd);
	out->b += kernel_bgemm_fp8_ms(g, batch, m, kd, n) +
	          kernel_memory_ms(g, FP8_CAST_BYTES * batch * m * n);
	out->w += kernel_bgemm_fp8_ms(g, batch, kd, n, m) +
	          kernel_memory_ms(g, FP8_TRANSPOSE_BYTES * batch * m * (kd + n));
}

/* An MLP of width ffn on `batch` groups of m tokens: its two (three gated) GEMMs and its
 * activation, read and written once forward and twice backward. */
static void mlp(const struct cost_model *k, const struct cost_gpu *g, double batch, double m,
                double ffn, struct cost_flops *out)
{
	double h = k->hidden, e = k->dtype_bytes, act = (k->gated_mlp ? 3 : 2) * ffn;

	if (m <= 0 || ffn <= 0)
		return;
	gemms(k, g, batch, m, (k->gated_mlp ? 2 : 1) * ffn, h, k->fp8, out);
	gemms(k, g, batch, m, h, ffn, k->fp8, out);
	out->f += kernel_memory_ms(g, e * batch * m * act);
	out->b += kernel_memory_ms(g, 2 * e * batch * m * act);
}

void moe_times(const struct cost_model *k, struct cost_type *ty,
               const struct cost_flops *attention)
{
	const struct cost_gpu *g = &ty->hw;
	double h = k->hidden, e = k->dtype_bytes;
	double tm = (double)k->mbs * k->seq / k->cp / k->tp; /* a GPU's tokens */
	double copies = tm * k->top_k * k->expert_imbalance;   /* routed to the busiest GPU */
	double local = (double)k->experts / k->ep;              /* its experts */
	struct cost_flops *x = &ty->experts_ms, *r = &ty->router_ms, *sh = &ty->shared_ms;

	if (k->experts == 0)
		return;
	*x = *r = *sh = (struct cost_flops){0, 0, 0};
	if (k->efficiency > 0) {
		/* the uniform model: every op's FLOPs at one share of peak */
		double mult = k->gated_mlp ? 3 : 2;

		x->f = cost_model_compute_ms(k, g, 2 * copies * mult * h * k->expert_ffn);
		x->b = x->w = x->f;
		r->f = r->b = r->w = cost_model_compute_ms(k, g, 2 * tm * h * k->experts);
		sh->f = cost_model_compute_ms(k, g, 2 * tm * mult * h * k->shared_experts *
		                                         k->expert_ffn);
		sh->b = sh->w = sh->f;
	} else {
		/* grouped GEMMs: the busiest GPU's copies spread evenly over its experts */
		mlp(k, g, local, copies / local, k->expert_ffn, x);
		/* the copies permuted into expert order before and back after, forward and
		 * backward: read and written once each way */
		x->f += kernel_memory_ms(g, 4 * e * copies * h);
		x->b += kernel_memory_ms(g, 4 * e * copies * h);
		/* the router's GEMM is no linear layer of Transformer Engine's: bf16 under fp8 */
		gemms(k, g, 1, tm, k->experts, h, false, r);
		r->f += kernel_memory_ms(g, ROUTER_BYTES * tm * k->experts);
		r->b += kernel_memory_ms(g, ROUTER_BYTES * tm * k->experts);
		mlp(k, g, 1, tm, (double)k->shared_experts * k->expert_ffn, sh);
	}
	ty->moe_ms.f = attention->f + r->f + sh->f + x->f;
	ty->moe_ms.b = attention->b + r->b + sh->b + x->b;
	ty->moe_ms.w = attention->w + r->w + sh->w + x->w;
}

/*
 * The chance that a given GPU of the expert-parallel group holds one of a token's top-k
 * experts at least, the experts spread evenly (experts / ep a GPU) and routed uniformly: one
 * less the chance that all k miss its experts, C(E - E/ep, k) / C(E, k).
 */
static double gpu_hit(const struct cost_model *k)
{
	double E = k->experts, mine = E / k->ep, miss = 1;

	for (int i = 0; i < k->top_k && miss > 0; i++)
		miss *= E - mine - i > 0 ? (E - mine - i) / (E - i) : 0;
	return 1 - miss;
}

/* One all-to-all of the busiest GPU's routed copies, elements of e bytes, with per_node GPUs
 * of the expert-parallel group in a node. NCCL's all-to-all (Megatron-Core's alltoall
 * dispatcher) sends a token once per routed copy; DeepEP once per GPU holding one of its
 * experts (its dispatch layout's is_token_in_rank; the combine sums a GPU's experts' outputs
 * before it sends them back), ep x gpu_hit copies a token where the top-k are more. */
static double all_to_all_ms(const struct cost_model *k, int per_node, double e)
{
	double tm = (double)k->mbs * k->seq / k->cp / k->tp;
	double copies = k->ep_dispatch == PP_EP_DEEPEP ? k->ep * gpu_hit(k) : k->top_k;
	double bytes = tm * copies * k->hidden * e;

	if (k->ep_dispatch == PP_EP_DEEPEP && per_node < k->ep) {
		/*
		 * DeepEP: a token crosses to each other node holding one of its top-k experts once
		 * (nodes = ep / per_node of them, each hit with probability 1 - (1 - 1/nodes)^k, or
		 * with node-limited routing at most limit nodes, its own among them with chance
		 * limit/nodes), on the GPU's own port, and sent on inside its node once to each GPU
		 * holding one of its experts; the two at once, n - 1 steps of the slower link's
		 * latency
		 */
		double nodes = (double)k->ep / per_node;
		double remote = (nodes - 1) * (1 - pow(1 - 1 / nodes, k->top_k));
		double far, near;

		/* a limit fills its nodes (DeepSeek's top 8 over 4 of 8 nodes); one that a token's
		 * top-k seldom reaches (top 2, a limit of 2) limits nothing */
		if (k->ep_node_limit > 0 && k->ep_node_limit * (1 - 1 / nodes) < remote)
			remote = k->ep_node_limit * (1 - 1 / nodes);
		far = tm * remote * k->hidden * e /
		      (k->inter_bandwidth * k->collective_efficiency * 1e6);
		/* a node of one GPU of the group forwards nothing inside it */
		near = per_node <= 1 ? 0
		                     : bytes * (1 - 1.0 / k->ep) /
		                               (k->link_bandwidth * k->collective_efficiency * 1e6);
		return (k->ep - 1) * k->inter_latency / 1e3 +
		       k->expert_imbalance * (far > near ? far : near);
	}
	/* the busiest GPU receives imbalance times the mean; everyone waits for it */
	return cost_alltoall_ms(bytes * k->expert_imbalance, k->ep, per_node,
	                        k->link_bandwidth * k->collective_efficiency,
	                        k->inter_bandwidth * k->collective_efficiency,
	                        per_node >= k->ep ? k->link_latency : k->inter_latency);
}

void moe_exchanges(struct cost_model *k, int per_node)
{
	k->ep_node = per_node;
	if (k->experts == 0 || k->ep <= 1) {
		k->a2a_ms = k->dispatch_ms = 0;
		return;
	}
	/* the combine returns the experts' outputs in the activations' precision; the dispatch
	 * may send FP8 (DeepSeek-V3) */
	k->a2a_ms = all_to_all_ms(k, per_node, k->dtype_bytes);
	k->dispatch_ms =
	        all_to_all_ms(k, per_node, k->dispatch_bytes > 0 ? k->dispatch_bytes : k->dtype_bytes);
}

bool moe_last_is_expert(const struct cost_model *k)
{
	return k->experts > 0 && k->dense_layers < k->layers;
}

void moe_stage_counts(const struct cost_model *k, int st, int *n, int *nm)
{
	/* the multi-token-prediction layers follow the last stage's own (each route's), of the
	 * model's last kind */
	int mtp = st % k->route_stages == k->route_stages - 1 ? k->mtp_layers : 0;

	*n = k->stage_layers[st] + mtp;
	*nm = (k->stage_moe != NULL ? k->stage_moe[st] : 0) + (moe_last_is_expert(k) ? mtp : 0);
}

double moe_stage_sum(const struct cost_model *k, int st, double dense, double moe)
{
	int n, nm;

	moe_stage_counts(k, st, &n, &nm);
	return (n - nm) * dense + nm * moe;
}
