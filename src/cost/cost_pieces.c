/*
 * The communication of a model-priced run as pieces (docs/cost-model.md, Streams): each layer's
 * tensor-parallel collectives and context-parallel key/value exchanges as steps of its ops'
 * plans, beside the compute they meet; the data-parallel gradient buckets and parameter gathers
 * as hooks of the ops that make or need them; and each device's optimizer step. The engine's
 * stream mechanism (src/engine/stream.c) times them; this file only says what they are.
 *
 * A layer's op, forward or backward, is laid out as Megatron-LM runs it with sequence
 * parallelism: an all-gather of the input before the QKV GEMM, the attention core, the output
 * projection and its reduce-scatter, an all-gather before the MLP's first GEMM, the MLP and
 * its reduce-scatter (four collectives, each half an all-reduce; without sequence parallelism
 * the same time as two all-reduces). The GEMMs and memory-bound kernels are spread evenly over
 * the four places, the attention core sits in the middle: that is where context parallelism's
 * exchanges run.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost_internal.h"

/* A plan being built, in ticks. */
struct builder {
	struct piece_step *v;
	size_t n, cap;
	uint32_t issued; /* ISSUE steps so far: the next one's number */
	int64_t tick;
	size_t room;     /* the most steps it may hold (the run's --max-ops, less the plans' before) */
	bool nomem;      /* a step did not fit in memory */
	bool range;      /* a time was out of range */
	bool over;       /* it would hold more than room steps */
};

static void push(struct builder *b, struct piece_step st)
{
	if (b->nomem || b->over)
		return;
	if (b->n >= b->room) {
		b->over = true;
		return;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 32;
		struct piece_step *v = realloc(b->v, cap * sizeof(*v));

		if (v == NULL) {
			b->nomem = true;
			return;
		}
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = st;
}

static pp_time ticks(struct builder *b, double ms)
{
	pp_time t = 0;

	if (!pp_time_from_units(ms, b->tick, &t))
		b->range = true;
	return t;
}

static void compute(struct builder *b, double ms)
{
	if (ms > 0)
		push(b, (struct piece_step){.what = PIECE_COMPUTE, .dur = ticks(b, ms)});
}

/* Issues a piece of kind; its number, for wait. */
static uint32_t issue(struct builder *b, enum comm_kind kind, double ms)
{
	push(b, (struct piece_step){.what = PIECE_ISSUE, .kind = (uint8_t)kind, .dur = ticks(b, ms)});
	return b->issued++;
}

static void wait_for(struct builder *b, uint32_t piece)
{
	push(b, (struct piece_step){.what = PIECE_WAIT, .piece = piece});
}

/*
 * A GEMM of gemm ms beside a collective of coll ms (before it, as an all-gather feeds it, or
 * after, as a reduce-scatter drains it): in turn without overlap; pipelined, both split into n
 * chunks, each chunk's transfer beside the neighbouring GEMM chunk (Wang et al. 2022, "Overlap
 * Communication with Dependent Computation via Decomposition"; Transformer Engine's ring
 * exchange); in bulk, the collective is issued by the caller and only the GEMM runs here.
 */
static void gemm_beside(struct builder *b, const struct cost_model *k, double gemm, double coll,
                        bool before, bool bulk)
{
	int n = k->tp;

	if (coll <= 0 || bulk) {
		compute(b, gemm);
		return;
	}
	if (k->tp_overlap != PP_TP_OVERLAP_PIPELINED) {
		if (before)
			wait_for(b, issue(b, COMM_TP, coll));
		compute(b, gemm);
		if (!before)
			wait_for(b, issue(b, COMM_TP, coll));
		return;
	}
	/* n - 1 transfers of coll / (n - 1): each beside one GEMM chunk, the first chunk local
	 * (all-gather) or the last chunk's result sent after it (reduce-scatter) */
	for (int i = 0; i < n; i++) {
		uint32_t x = 0;

		if (before && i + 1 < n)
			x = issue(b, COMM_TP, coll / (n - 1));
		if (!before && i > 0)
			x = issue(b, COMM_TP, coll / (n - 1));
		compute(b, gemm / n);
		if ((before && i + 1 < n) || (!before && i > 0))
			wait_for(b, x);
	}
}

/* The attention core of attn ms, beside context parallelism's exchanges of step ms. */
static void attention(struct builder *b, const struct cost_model *k, double attn, double step,
                      bool backward)
{
	int n = k->cp;

	if (n <= 1 || step <= 0) {
		compute(b, attn);
		return;
	}
	if (k->cp_comm == PP_CP_ALLGATHER) {
		/* the local block runs while the others' K/V gather: in the forward, and again in
		 * the backward, which kept the local K/V alone (Transformer Engine's and PyTorch's
		 * all-gather attention), before the gradients' reduce-scatter after the whole core */
		uint32_t x = issue(b, COMM_CP, backward ? k->cp_fwd_ms : step);

		compute(b, attn / n);
		wait_for(b, x);
		compute(b, attn * (n - 1) / n);
		if (backward)
			wait_for(b, issue(b, COMM_CP, step));
		return;
	}
	/* the ring: block i's attention beside the transfer of block i + 1's K/V */
	for (int i = 0; i < n; i++) {
		uint32_t x = 0;

		if (i + 1 < n)
			x = issue(b, COMM_CP, step);
		compute(b, attn / n);
		if (i + 1 < n)
			wait_for(b, x);
	}
}

/* An expert-parallel all-to-all of ms the compute waits for (Megatron-Core's dispatchers run
 * them in line unless a schedule overlaps two micro-batches). */
static void all_to_all(struct builder *b, double ms)
{
	if (ms > 0)
		wait_for(b, issue(b, COMM_EP, ms));
}

/* The shared experts' ss ms: a tensor-parallel MLP (Megatron-Core's SharedExpertMLP), its input
 * gathered before its first GEMM and its output reduce-scattered after its second (coll ms
 * each, none without tensor parallelism or shared experts). */
static void shared_experts(struct builder *b, const struct cost_model *k, double ss, double coll)
{
	if (k->shared_experts == 0)
		coll = 0;
	gemm_beside(b, k, ss / 2, coll, true, false);
	gemm_beside(b, k, ss / 2, coll, false, false);
}

/*
 * One expert layer's forward (backward: its input-gradient backward) as pieces: its attention
 * half laid out as a dense layer's first half, with two TP collectives, then the router, the
 * dispatch of the routed copies, the routed experts, the combine and the shared experts (two
 * more TP collectives); the backward runs the expert half first, its all-to-alls carrying the
 * gradients back.
 */
static void moe_layer(struct builder *b, const struct cost_model *k, const struct cost_type *ty,
                      bool backward)
{
	double total = backward ? ty->moe_ms.b : ty->moe_ms.f;
	double attn = backward ? ty->attn_bwd_ms : ty->attn_fwd_ms;
	double xs = backward ? ty->experts_ms.b : ty->experts_ms.f;
	double rs = backward ? ty->router_ms.b : ty->router_ms.f;
	double ss = backward ? ty->shared_ms.b : ty->shared_ms.f;
	double q = (total - attn - xs - rs - ss) / 2, coll = k->tp > 1 ? k->tp_coll_ms : 0;
	bool bulk = backward && k->tp_overlap == PP_TP_OVERLAP_BULK && coll > 0;
	uint32_t x[2];

	if (backward) { /* the gradients go back in the activations' precision */
		shared_experts(b, k, ss, coll);
		all_to_all(b, k->a2a_ms);
		compute(b, xs);
		all_to_all(b, k->a2a_ms);
		compute(b, rs);
	}
	if (bulk)
		for (int i = 0; i < 2; i++)
			x[i] = issue(b, COMM_TP, coll);
	gemm_beside(b, k, q, coll, true, bulk);
	attention(b, k, attn, backward ? k->cp_bwd_ms : k->cp_fwd_ms, backward);
	gemm_beside(b, k, q, coll, false, bulk);
	if (bulk)
		for (int i = 0; i < 2; i++)
			wait_for(b, x[i]);
	if (!backward) {
		compute(b, rs);
		all_to_all(b, k->dispatch_ms);
		compute(b, xs);
		all_to_all(b, k->a2a_ms);
		shared_experts(b, k, ss, coll);
	}
}

/* One layer's forward (backward: its input-gradient backward) on GPU type ty as pieces. */
static void layer(struct builder *b, const struct cost_model *k, const struct cost_type *ty,
                  bool backward)
{
	double total = backward ? ty->layer_ms.b : ty->layer_ms.f;
	double attn = backward ? ty->attn_bwd_ms : ty->attn_fwd_ms;
	double q = (total - attn) / 4, coll = k->tp > 1 ? k->tp_coll_ms : 0;
	bool bulk = backward && k->tp_overlap == PP_TP_OVERLAP_BULK && coll > 0;
	uint32_t x[4];

	if (bulk) /* the layer's four collectives beside its GEMMs (Transformer Engine's bulk) */
		for (int i = 0; i < 4; i++)
			x[i] = issue(b, COMM_TP, coll);
	gemm_beside(b, k, q, coll, true, bulk);
	attention(b, k, attn, backward ? k->cp_bwd_ms : k->cp_fwd_ms, backward);
	gemm_beside(b, k, q, coll, false, bulk);
	gemm_beside(b, k, q, coll, true, bulk);
	gemm_beside(b, k, q, coll, false, bulk);
	if (bulk)
		for (int i = 0; i < 4; i++)
			wait_for(b, x[i]);
}

/* The plan of stage st's op kind (0 F, 1 B, 2 W) into pl, of at most room steps; its compute in
 * *compute_ticks. Returns 0, 1 when a time is out of range, 2 when it would hold more than room
 * steps, or -1 when out of memory. */
static int stage_plan(const struct cost_model *k, int st, bool last, int kind, int64_t tick,
                      size_t room, double accum_ms, struct piece_plan *pl,
                      pp_time *compute_ticks)
{
	struct builder b = {.tick = tick, .room = room};
	int n, nm;
	double head = last ? 1 : 0;
	/* the stage's ops run on its device's GPU */
	const struct cost_type *ty = &k->types[k->stage_type[st]];

	moe_stage_counts(k, st, &n, &nm);

	if (kind == 2) {
		compute(&b, moe_stage_sum(k, st, ty->layer_ms.w, ty->moe_ms.w) +
		                    head * ty->last_head_ms.w + accum_ms);
	} else {
		if (kind == 1 && head > 0)
			compute(&b, ty->last_head_ms.b);
		for (int i = 0; i < n; i++) {
			/* the stage's dense layers come first in the model: the forward runs them
			 * first, the backward last */
			bool moe = kind == 0 ? i >= n - nm : i < nm;

			/* full recomputation runs the layer's forward again first, collectives and
			 * all; selective runs its attention core again, with the context-parallel
			 * exchange of keys and values it takes */
			if (kind == 1 && k->stage_recompute[st] == PP_RECOMPUTE_FULL)
				(moe ? moe_layer : layer)(&b, k, ty, false);
			if (kind == 1 && k->stage_recompute[st] == PP_RECOMPUTE_SELECTIVE)
				attention(&b, k, ty->attn_fwd_ms, k->cp_fwd_ms, false);
			(moe ? moe_layer : layer)(&b, k, ty, kind == 1);
		}
		if (kind == 0 && head > 0)
			compute(&b, ty->last_head_ms.f);
	}
	*compute_ticks = 0;
	for (size_t i = 0; i < b.n; i++)
		if (b.v[i].what == PIECE_COMPUTE)
			*compute_ticks += b.v[i].dur;
	pl->steps = b.v;
	pl->n = b.n;
	return b.nomem ? -1 : b.range ? 1 : b.over ? 2 : 0;
}

/* Appends a hook to hs, a collective with device with - 1 when with > 0; false when out of
 * memory. */
static bool hook_with(struct piece_hooks *hs, double at, enum comm_kind kind, pp_time dur,
                      int with)
{
	size_t i;

	if (pp_grow((void **)&hs->h, &hs->cap, hs->n + 1, sizeof(*hs->h), NULL) != 0)
		return false;
	/* kept by at, ascending; a hook at the same share goes after those already there */
	for (i = hs->n; i > 0 && hs->h[i - 1].at > at; i--)
		hs->h[i] = hs->h[i - 1];
	hs->h[i] = (struct piece_hook){at, (uint8_t)kind, dur, with};
	hs->n++;
	return true;
}

/* Appends a hook of the device's own to hs; false when out of memory. */
static bool hook(struct piece_hooks *hs, double at, enum comm_kind kind, pp_time dur)
{
	return hook_with(hs, at, kind, dur, 0);
}

/* A group of GPUs that reduce the same gradients: the data-parallel replicas of a device
 * (dp x cp of them), or its expert-data-parallel ones for the routed experts (tp x cp x dp /
 * ep), with the link their ring crosses. */
struct dp_group {
	int n;
	double bandwidth, latency;
};

static struct dp_group dense_group(const struct cost_model *k, int d)
{
	return (struct dp_group){k->dp * k->cp, k->dp_bandwidth[d], k->dp_latency[d]};
}

static struct dp_group expert_group(const struct cost_model *k, int d)
{
	return (struct dp_group){k->tp * k->cp * k->dp / k->ep, k->edp_bandwidth[d],
	                         k->edp_latency[d]};
}

/* Milliseconds of one data-parallel collective among group g: gradients of params parameters
 * reduced (--grad-reduce-bytes each), or their bf16 values gathered. */
static double dp_ms(const struct cost_model *k, struct dp_group g, enum cost_collective kind,
                    double params)
{
	double bytes = kind == COLL_ALLGATHER ? 2 : k->grad_reduce_bytes;

	return cost_collective_ms(kind, params * bytes, g.n, g.bandwidth * k->collective_efficiency,
	                          g.latency);
}

/* How the gradients are reduced: reduce-scattered to a sharded optimizer's shards, else (or
 * when it all-reduces them whole, as DeepSpeed's BF16_Optimizer) all-reduced. */
static enum cost_collective grad_reduce(const struct cost_model *k)
{
	return k->distributed_optimizer && k->grad_reduce_scatter ? COLL_REDUCE_SCATTER
	                                                          : COLL_ALLREDUCE;
}

/* The most gradient buckets a stage's parameters may make (each is a hook, or two). */
#define MAX_BUCKETS 65536

/* Whether gradient buckets are hooks (they overlap: else the reduction is one collective). */
static bool buckets_hooked(const struct cost_model *k)
{
	return k->overlap_grad_reduce || (k->distributed_optimizer && k->overlap_param_gather);
}

/* Whether params reduced over group d make hooks and more than MAX_BUCKETS of them. */
static bool too_many_buckets(const struct cost_model *k, struct dp_group d, double params)
{
	return buckets_hooked(k) && d.n > 1 && params > 0 &&
	       !(ceil(params / k->bucket_params) <= MAX_BUCKETS);
}

/* The data-parallel hooks of stage st, whose GPUs hold params of it reduced over group d.
 * Returns 0, 1 when a time is out of range, 2 when the stage makes more than MAX_BUCKETS
 * buckets, or -1 when out of memory. */
static int stage_hooks(const struct cost_model *k, struct cost_pieces *pc, int st,
                       struct dp_group d, double params, int64_t tick)
{
	double buckets = ceil(params / k->bucket_params);
	int nb;
	bool sharded = k->distributed_optimizer;
	enum cost_collective reduce = grad_reduce(k);

	if (too_many_buckets(k, d, params))
		return 2;
	if (d.n <= 1 || params <= 0 || !buckets_hooked(k))
		return 0;
	nb = buckets < 1 ? 1 : (int)buckets;
	for (int j = 0; j < nb; j++) {
		double share = params / nb;
		pp_time t = 0;

		/* bucket j's gradients are done once the backward, last layer first, has run
		 * (j + 1) / nb of the op */
		if (k->overlap_grad_reduce) {
			if (!pp_time_from_units(
			            dp_ms(k, d, reduce, share),
			            tick, &t))
				return 1;
			if (!hook(&pc->grads[st], (double)(j + 1) / nb, COMM_DP, t))
				return -1;
		}
		/* bucket j's parameters are needed when the first forward reaches j / nb of it */
		if (sharded && k->overlap_param_gather) {
			if (!pp_time_from_units(dp_ms(k, d, COLL_ALLGATHER, share), tick, &t))
				return 1;
			if (!hook(&pc->gather[st], (double)j / nb, COMM_DP, t))
				return -1;
		}
	}
	return 0;
}

/* What device d reduces and gathers after its last op over group g, params parameters: what
 * no hook carries. Returns 0, 1 when a time is out of range, or -1 when out of memory. */
static int after_hooks(const struct cost_model *k, struct cost_pieces *pc, int d,
                       struct dp_group g, double params, int64_t tick)
{
	bool sharded = k->distributed_optimizer;
	double ms[2] = {
	        !k->overlap_grad_reduce ? dp_ms(k, g, grad_reduce(k), params) : 0,
	        sharded && !k->overlap_param_gather ? dp_ms(k, g, COLL_ALLGATHER, params) : 0,
	};

	if (g.n <= 1 || params <= 0)
		return 0;
	for (int i = 0; i < 2; i++) {
		pp_time t = 0;

		if (ms[i] <= 0)
			continue;
		if (!pp_time_from_units(ms[i], tick, &t))
			return 1;
		if (!hook(&pc->after[d], 1, COMM_DP, t))
			return -1;
	}
	return 0;
}

/* Tied input and output embeddings on two devices: after the flush, the first and the last
 * stage's devices all-reduce the embedding's gradients between them (Megatron-LM's
 * finalize_model_grads, _allreduce_word_embedding_grads; DeepSpeed's ReduceTiedGrads), after
 * their data-parallel reduction; with routes, each route's first and last stage's. Returns 0, 1
 * when the time is out of range, or -1 when out of memory. */
static int embedding_hooks(const struct cost_model *k, struct cost_pieces *pc,
                           const struct cost_layout *l, int64_t tick)
{
	int L = l->S / l->routes;
	double bytes = (double)k->vocab * k->hidden / k->tp * k->grad_reduce_bytes;
	pp_time t = 0;

	if (!pp_time_from_units(cost_collective_ms(COLL_ALLREDUCE, bytes, 2,
	                                           k->embed_bandwidth * k->collective_efficiency,
	                                           k->embed_latency),
	                        tick, &t))
		return 1;
	for (int st = 0; st < l->S; st += L) {
		int ends[2] = {(int)l->stage_device[st], (int)l->stage_device[st + L - 1]};

		/* a collective of the two: it starts once both have reached it */
		for (int i = 0; i < 2 && ends[0] != ends[1]; i++)
			if (!hook_with(&pc->after[ends[i]], 1, COMM_DP, t, 1 + ends[1 - i]))
				return -1;
	}
	return 0;
}

/*
 * DualPipe's two copies of the model: each stage's layers are on two devices (route 0's stage
 * st and route 1's st + L), whose gradients are summed before the optimizer step (DeepSeek's
 * example_dualpipe.py: p0.grad += the other copy's), after each device's data-parallel
 * reduction, so of its shard with a sharded optimizer: the two devices all-reduce it between
 * them over the link between their pipeline ranks, as the tied embeddings' gradients are.
 * Returns 0, 1 when a time is out of range, or -1 when out of memory.
 */
static int copy_hooks(const struct cost_model *k, struct cost_pieces *pc,
                      const struct cost_layout *l, int64_t tick)
{
	int L = l->S / l->routes;
	bool sharded = k->distributed_optimizer;

	for (int st = 0; l->routes == 2 && st < L; st++) {
		int a = (int)l->stage_device[st], b = (int)l->stage_device[st + L], n, nm;
		bool inside;
		double ex, params;
		pp_time t = 0;

		if (a == b)
			continue;
		moe_stage_counts(k, st, &n, &nm);
		ex = nm * k->routed_params / k->ep;
		params = cost_stage_params(k, l, st) / (sharded ? k->dp * k->cp : 1) +
		         ex / (sharded ? (double)k->tp * k->cp * k->dp / k->ep : 1);
		inside = cost_hop_inside(k, a, b);
		if (!pp_time_from_units(
		            cost_collective_ms(COLL_ALLREDUCE, params * k->grad_reduce_bytes, 2,
		                               (inside ? k->link_bandwidth : k->inter_bandwidth) *
		                                       k->collective_efficiency,
		                               inside ? k->link_latency : k->inter_latency),
		            tick, &t))
			return 1;
		if (!hook_with(&pc->after[a], 1, COMM_DP, t, 1 + b) ||
		    !hook_with(&pc->after[b], 1, COMM_DP, t, 1 + a))
			return -1;
	}
	return 0;
}

/* Each stage's activation offload: the share of what a forward keeps, copied over the host link
 * each way (docs/cost-model.md, Offload). Returns 0, or 1 when a copy's time is out of range
 * (pc->offload NULL when out of memory). */
static int offloads(const struct cost_model *k, struct cost_pieces *pc, const struct cost *cost)
{
	pc->offload = pp_calloc((size_t)cost->S, sizeof(*pc->offload));
	if (pc->offload == NULL)
		return 0;
	for (int st = 0; st < cost->S; st++) {
		struct piece_offload *o = &pc->offload[st];
		/* over its device's host link */
		const struct cost_type *ty = &k->types[k->stage_type[st]];
		double bytes = k->stage_offload[st] * (double)cost->act[st];
		double ms = ty->host_latency / 1e3 + bytes / (ty->host_bandwidth * 1e6);

		o->act = (int64_t)llround(bytes);
		if (!pp_time_from_units(ms, cost->tick, &o->out))
			return 1;
		o->in = o->out;
	}
	return 0;
}

double cost_stage_embed_params(const struct cost_model *k, const struct cost_layout *l, int st)
{
	int L = l->S / l->routes;
	double embed = (double)k->vocab * k->hidden / k->tp, params = 0;

	if (st % L == 0)
		params += embed;
	/* a tied pair on one device is one matrix */
	if (st % L == L - 1 && !(k->tied && l->stage_device[st - (L - 1)] == l->stage_device[st]))
		params += embed;
	return params;
}

double cost_stage_params(const struct cost_model *k, const struct cost_layout *l, int st)
{
	int L = l->S / l->routes;
	double whole = k->tp_whole_params;
	/* its layers' over tp, but what every rank holds whole */
	double params = moe_stage_sum(k, st, k->layer_params - whole, k->moe_params - whole) / k->tp +
	                moe_stage_sum(k, st, whole, whole);

	if (st % L == L - 1)
		params += k->mtp_layers * 2.0 * k->hidden * k->hidden / k->tp;
	return params + cost_stage_embed_params(k, l, st);
}

double cost_grad_accum_ms(const struct cost_model *k, const struct cost_layout *l, int st)
{
	int n, nm;
	double params;

	/* the uniform model prices FLOPs alone, no memory-bound kernel */
	if (k->grad_accum_bytes <= 0 || k->efficiency > 0)
		return 0;
	moe_stage_counts(k, st, &n, &nm);
	params = cost_stage_params(k, l, st) + nm * k->routed_params / k->ep;
	return params > 0 ? kernel_memory_ms(&k->types[k->stage_type[st]].hw,
	                                     k->grad_accum_bytes * params)
	                  : 0;
}

int cost_model_pieces(const struct config *c, const struct cost_layout *l, struct cost *cost,
                      struct pp_error *err)
{
	struct cost_model *k = cost->model;
	int S = l->S, L = S / l->routes;
	struct cost_pieces *pc;
	bool plans = k->tp > 1 || k->cp > 1 || k->a2a_ms > 0, tied_apart = false, offload = false;
	bool copies_apart = false;
	uint64_t used = 0; /* the plans' steps so far */

	for (int st = 0; st < L; st++)
		offload |= k->stage_offload[st] > 0;

	for (int st = 0; st < S; st += L)
		tied_apart |= k->tied && l->stage_device[st] != l->stage_device[st + L - 1];
	/* DualPipe's two copies of a stage on two devices sum their gradients */
	for (int st = 0; l->routes == 2 && st < L; st++)
		copies_apart |= l->stage_device[st] != l->stage_device[st + L];
	if (!plans && k->dp * k->cp <= 1 && !tied_apart && !copies_apart && !offload)
		return 0; /* nothing beside the schedule: every op is one compute piece */
	pc = cost->pieces = pp_zalloc(1, sizeof(*pc), err);
	if (pc == NULL)
		return -1;
	cost->pieces_p = l->p;
	pc->slowdown = k->comm_slowdown;
	pc->plan = pp_calloc(3 * (size_t)S, sizeof(*pc->plan));
	pc->grads = pp_calloc((size_t)S, sizeof(*pc->grads));
	pc->gather = pp_calloc((size_t)S, sizeof(*pc->gather));
	pc->after = pp_calloc((size_t)l->p, sizeof(*pc->after));
	if (pc->plan == NULL || pc->grads == NULL || pc->gather == NULL || pc->after == NULL)
		return pp_nomem(err, 3 * (size_t)S, sizeof(*pc->plan));
	/* the plans' steps count against the ops a run may hold (each a piece of compute or
	 * communication, a few a layer): thousands of layers with tensor parallelism are millions
	 * of them */
	for (int st = 0; plans && st < S; st++) {
		pp_time *t[3] = {&cost->t_f[st], &cost->t_b[st], &cost->t_w[st]};

		for (int kind = 0; kind < 3; kind++) {
			size_t room = c->max_ops > used ? (size_t)(c->max_ops - used) : 0;
			int rc = stage_plan(k, st, cost_layout_last(l, st), kind, cost->tick, room,
			                    cost_grad_accum_ms(k, l, st), &pc->plan[3 * st + kind],
			                    t[kind]);

			if (rc < 0)
				return pp_nomem(err, 1, sizeof(struct piece_step));
			if (rc == 2)
				return pp_fail(err, PP_ERR_USAGE,
				               "the model's %d layers make the plans of the stages' ops (a "
				               "few pieces of compute and communication a layer) hold more "
				               "than the %" PRIu64 " steps --max-ops allows: give fewer "
				               "layers, or a larger --max-ops",
				               k->layers, c->max_ops);
			used += pc->plan[3 * st + kind].n;
			if (rc > 0)
				return config_fail(c, "tp", err,
				                   "makes stage %d's ops or collectives take too long",
				                   st);
		}
	}
	/* each stage's parameters, its routed experts' apart (their own group reduces them) */
	for (int st = 0; st < S; st++) {
		int d = (int)l->stage_device[st], n, nm;
		double params = cost_stage_params(k, l, st);
		int rc = stage_hooks(k, pc, st, dense_group(k, d), params, cost->tick);

		moe_stage_counts(k, st, &n, &nm);
		if (rc == 0)
			rc = stage_hooks(k, pc, st, expert_group(k, d), nm * k->routed_params / k->ep,
			                 cost->tick);

		if (rc != 0) {
			/* the group whose buckets failed: the dense one, or the routed experts' */
			if (!too_many_buckets(k, dense_group(k, d), params))
				params = nm * k->routed_params / k->ep;
			if (rc == 2 && !config_is_set(c, "bucket_size"))
				return pp_fail(err, PP_ERR_USAGE,
				               "a stage's %.4g parameters make more than %d gradient "
				               "buckets of the default %.4g parameters: give a larger "
				               "--bucket-size (at most 1e9), or fewer layers",
				               params, MAX_BUCKETS, k->bucket_params);
			if (rc == 2)
				return config_fail(c, "bucket_size", err,
				                   "splits a stage's %.4g parameters into more than %d "
				                   "gradient buckets",
				                   params, MAX_BUCKETS);
			return rc < 0 ? pp_nomem(err, 1, sizeof(struct piece_hook))
			              : config_fail(c, "bucket_size", err,
			                            "makes a gradient bucket's time too long");
		}
	}
	for (int d = 0; d < l->p; d++) {
		double ex = k->device_expert_params[d];
		int rc = after_hooks(k, pc, d, dense_group(k, d), k->device_params[d] - ex,
		                     cost->tick);

		if (rc == 0)
			rc = after_hooks(k, pc, d, expert_group(k, d), ex, cost->tick);

		if (rc != 0)
			return rc < 0 ? pp_nomem(err, 1, sizeof(struct piece_hook))
			              : config_fail(c, "inter_bandwidth", err,
			                            "makes a gradient reduction's time too long");
	}
	if (offload && offloads(k, pc, cost) != 0)
		return config_fail(c, "host_bandwidth", err,
		                   "makes an activation copy to or from host memory too long");
	if (pc->offload == NULL && offload)
		return pp_nomem(err, (size_t)S, sizeof(*pc->offload));
	if (tied_apart) {
		int rc = embedding_hooks(k, pc, l, cost->tick);

		if (rc != 0)
			return rc < 0 ? pp_nomem(err, 1, sizeof(struct piece_hook))
			              : config_fail(c, "inter_bandwidth", err,
			                            "makes the tied embeddings' gradient all-reduce too "
			                            "long");
	}
	if (copies_apart) {
		int rc = copy_hooks(k, pc, l, cost->tick);

		if (rc != 0)
			return rc < 0 ? pp_nomem(err, 1, sizeof(struct piece_hook))
			              : config_fail(c, "inter_bandwidth", err,
			                            "makes the sum of DualPipe's two copies' gradients "
			                            "too long");
	}
	return 0;
}
