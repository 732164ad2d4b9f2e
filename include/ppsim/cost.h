/*
 * Cost model: what each op costs in time and activation memory on each virtual stage, and what
 * each point-to-point message costs in bytes and time. The engine reads a struct cost and never
 * asks where its numbers came from.
 *
 * Ownership: cost_new returns a struct cost owning its arrays; free it with cost_free.
 */
#ifndef PPSIM_COST_H
#define PPSIM_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "ppsim/config.h"
#include "ppsim/sched.h"
#include "ppsim/util.h"

/* Time, FLOPs and bytes of one op kind. */
struct cost_flops {
	double f; /* forward */
	double b; /* input-gradient backward (with full recomputation: plus a forward) */
	double w; /* weight-gradient backward */
};

/*
 * A GPU as the per-op model prices kernels on it: the preset's figures merged with the config's
 * overrides (docs/presets.md gives each one's source).
 */
struct cost_gpu {
	double tflops;                   /* peak dense bf16 TFLOP/s */
	double memory_bandwidth;         /* GB/s */
	int sms;                         /* streaming multiprocessors (GEMM waves) */
	double gemm_efficiency;          /* share of peak a large GEMM achieves */
	double fp8_tflops;               /* peak dense fp8 TFLOP/s, 0 without fp8 */
	double fp8_gemm_efficiency;      /* share of that peak a large fp8 GEMM achieves */
	double attention_efficiency;     /* share of peak flash attention's forward achieves */
	double attention_bwd_efficiency; /* and its backward */
	double memory_efficiency;        /* share of the bandwidth memory-bound kernels achieve */
	double kernel_overhead;          /* fixed launch and tail time of one kernel */
	double sustained;                /* share of the compute rates a training step sustains */
};

/*
 * Communication beside the pipeline's messages (docs/cost-model.md, Streams). Each kind runs on
 * one of its device's streams, first come first served, while compute goes on; what compute
 * waits for, or what runs past a device's last op, is that kind's exposed time. A new kind is a
 * row of the table in cost.c (comm_kinds), not a new path through the engine. Collectives run
 * among the replicas of one pipeline device (data-, tensor- and context-parallel peers run the
 * same schedule), so a device's streams are its own.
 */
enum comm_kind {
	COMM_DP, /* data-parallel gradient reduction and parameter gathers */
	COMM_TP, /* tensor-parallel all-reduces, all-gathers and reduce-scatters */
	COMM_CP, /* context-parallel key/value exchanges */
	COMM_EP, /* expert-parallel all-to-alls: tokens dispatched to experts and combined back */
	COMM_OFFLOAD, /* activations copied to host memory after a forward */
	COMM_RELOAD,  /* and back before the backward */
	COMM_KINDS
};

/* A device's streams beside compute and the pipeline's channels. */
enum comm_stream {
	STREAM_DP, /* data-parallel collectives */
	STREAM_TP, /* tensor- and context-parallel collectives */
	STREAM_EP, /* expert-parallel all-to-alls */
	STREAM_D2H, /* copies to host memory (PCIe is full duplex: one stream a direction) */
	STREAM_H2D, /* copies from host memory */
	STREAM_COUNT
};

/* A row of the table of kinds. */
struct comm_kind_info {
	const char *name;        /* "dp": JSON keys exposed_dp, comm_dp */
	enum comm_stream stream; /* the stream it runs on */
	const char *what;        /* a phrase for reports */
	bool copy_engine;        /* it runs on a copy engine, not on SMs: it slows no compute */
};

/* The row of kind k (k < COMM_KINDS). */
const struct comm_kind_info *comm_kind_info(enum comm_kind k);

/* What a step of a piece plan does. */
enum piece_step_kind {
	PIECE_COMPUTE, /* compute runs for dur (stretched while a piece of the op is in flight) */
	PIECE_ISSUE,   /* a piece of kind takes dur on its stream, from now or when it is free */
	PIECE_WAIT,    /* compute waits until the plan's issued piece number piece has ended */
};

struct piece_step {
	uint8_t what;   /* enum piece_step_kind */
	uint8_t kind;   /* PIECE_ISSUE: enum comm_kind */
	uint32_t piece; /* PIECE_WAIT: which ISSUE of this plan, 0 for its first */
	pp_time dur;    /* PIECE_COMPUTE, PIECE_ISSUE: ticks */
};

/* An op as pieces, in the order they happen; n == 0: the op is its one compute piece. Every
 * piece a plan issues ends before the op does (an ISSUE is always waited for), so a plan's
 * times do not depend on the run and the engine evaluates it once per stage and kind. */
struct piece_plan {
	struct piece_step *steps;
	size_t n;
};

/* A piece whose time depends on the run: issued, or waited for, at share at (0..1) of an op's
 * span. */
struct piece_hook {
	double at;      /* share of the op's span */
	uint8_t kind;   /* enum comm_kind */
	pp_time dur;    /* ticks on its stream */
	int with;       /* an after hook's collective with another device: 1 + that device (the
	                   two start once both have reached it), else 0 */
};

struct piece_hooks {
	struct piece_hook *h; /* by at, ascending */
	size_t n, cap;
};

/*
 * A stage's activation offload: after each forward, `act` of the activations it keeps (in
 * cost->act units) is copied to host memory on its device's D2H stream (`out` ticks), and
 * copied back on the H2D stream (`in` ticks) from the start of the op before the backward that
 * needs it, which waits for it; between the two copies host memory holds it, not the GPU.
 */
struct piece_offload {
	int64_t act;
	pp_time out, in;
};

/*
 * The pieces of a run, when a cost has any (cost->pieces; NULL: every op is one compute piece and
 * no stream carries anything). Hook kinds run on a stream no plan uses (the engine checks it), so
 * that the plans' times hold whatever the hooks put on their streams.
 */
struct cost_pieces {
	struct piece_plan *plan;    /* [3 * S] stage s's F, B and W at 3s, 3s + 1, 3s + 2; a fused
	                               backward runs its B's plan and then its W's */
	struct piece_hooks *grads;  /* [S] issued during the stage's last weight-gradient op (its
	                               last W or BW to run): its gradient buckets */
	struct piece_hooks *gather; /* [S] issued at the step's start (per device, stages in order);
	                               the stage's first forward waits, at each one's share, for it */
	struct piece_hooks *after;  /* [p] issued when the device's last op ends */
	struct piece_offload *offload; /* [S] activation offload per stage, or NULL when none */
	double slowdown;            /* compute takes 1 + slowdown as long while a communication
	                               kernel of its device runs beside it (its SMs are shared) */
};

/*
 * What one GPU type of a run gives its devices: the GPU's figures, its memory, its host link,
 * and the op times of the model's layers on it. A run has one type per distinct GPU preset of
 * its pipeline devices (types[0] is device 0's); devices of one type share it.
 */
struct cost_type {
	char gpu[32];                  /* GPU preset */
	struct cost_gpu hw;            /* the GPU's figures */
	double capacity_bytes;         /* memory of one GPU */
	double reserve_bytes;          /* of it, kept free of the modelled memory */
	double host_bandwidth, host_latency; /* a GPU's copies to and from host memory */
	struct cost_flops layer_ms;    /* one layer's op times on one GPU, TP all-reduces apart */
	struct cost_flops head_ms;     /* the LM head's (and the loss's) */
	double attn_fwd_ms;            /* of layer_ms.f, the attention core (what selective
	                                  recomputation runs again in B) */
	struct cost_flops last_head_ms; /* the last stage's heads: the LM head's, and each MTP
	                                   layer's projection and head */
	double attn_bwd_ms;            /* of layer_ms.b, the attention core's backward */
	struct cost_flops moe_ms;      /* an expert layer's op times, all-to-alls and TP apart */
	struct cost_flops experts_ms;  /* of moe_ms: the routed experts, on the busiest GPU */
	struct cost_flops router_ms;   /* of moe_ms: the router */
	struct cost_flops shared_ms;   /* of moe_ms: the shared experts */
};

/*
 * What a model-derived cost knows beyond the per-stage prices: the resolved model, hardware
 * and parallelism (presets merged with overrides), and the per-device figures that reports
 * need. FLOPs and parameters are per GPU (after tensor parallelism) unless named "layer".
 * What depends on the GPU is per GPU type (struct cost_type); the links, per device pair.
 */
struct cost_model {
	char model[32];                                  /* model preset */
	int ntypes;                                      /* distinct GPU types */
	struct cost_type *types;                         /* [ntypes] by their first device */
	int *device_type;                                /* [p] the type of each pipeline device */
	int *stage_type;                                 /* [S] the type of each stage's device */
	char link[32];                                   /* intra-node link preset */
	char inter_link[32];                             /* inter-node link preset */
	int layers, hidden, ffn, heads, kv_heads, vocab; /* the resolved model */
	bool gated_mlp;                                  /* three MLP matrices */
	bool tied;                                       /* shared embedding and LM head */
	int seq, mbs;                                    /* sequence length, micro-batch size */
	int p, v, tp, dp;                                /* parallel degrees */
	int gpus;                                        /* p * tp * cp * dp */
	int gpus_per_node;                               /* GPUs in one node */
	bool flash_attention;                            /* attention scores not stored */
	enum pp_attention_kernel attention_kernel;       /* its kernels' generation */
	bool sequence_parallel;         /* norms and dropouts split over tp (Korthikanti et al.) */
	double unfused_attention_bytes; /* extra forward bytes per score without flash attention */
	double loss_bytes, loss_bwd_bytes; /* the loss's bytes per logit, forward and backward */
	double grad_accum_bytes; /* per parameter, after each micro-batch's backward (a pass) */
	enum pp_recompute recompute;
	bool distributed_optimizer;
	double bytes_per_param;                /* weights + gradients + optimizer state */
	bool fp8;                              /* the layers' linear GEMMs in fp8 (TE) */
	double fp8_weight_bytes;               /* bytes per parameter the fp8 copy of the weights
	                                          adds to bytes_per_param (0 without fp8) */
	int dtype_bytes;                       /* bytes of an activation element */
	double efficiency;                     /* --efficiency: one share of peak for every op (the
	                                          uniform model), 0 for the per-op model */
	double link_bandwidth, link_latency;   /* intra-node GB/s per direction, microseconds */
	double offload;                        /* share of a stage's activations offloaded */
	double inter_bandwidth, inter_latency; /* inter-node */
	double p2p_overhead;                   /* microseconds a pipeline message adds */
	double p2p_efficiency; /* share of the inside-node bandwidth a pipeline message gets */
	double layer_params;   /* linear parameters of one layer (whole, before tp) */
	double tp_whole_params; /* of them, those every tensor-parallel rank holds whole (latent
	                         * attention's down projections) */
	struct cost_flops layer_flops; /* one layer, one micro-batch, whole (before tp) */
	struct cost_flops head_flops;  /* LM head, one micro-batch, whole */
	double layer_act_bytes;        /* activations one layer keeps per micro-batch, per GPU */
	double layer_act_by[3];        /* the same under each recomputation (enum pp_recompute) */
	enum pp_recompute *stage_recompute; /* [S] each virtual stage's recomputation */
	double *stage_offload;              /* [S] each virtual stage's offloaded share */
	double tp_allreduce_ms;        /* one TP all-reduce of a layer's activations */
	uint64_t msg_bytes;            /* bytes of one P2P message, per GPU */
	int *stage_layers;             /* [S] layers of each virtual stage */
	double *hop_bandwidth;         /* [S] GB/s of the link after stage s (S-1: unused) */
	double *hop_latency;           /* [S] its latency in microseconds */
	double *device_params;         /* [p] parameters one GPU of pipeline rank d holds */
	double *device_state_bytes;    /* [p] weights + gradients + optimizer state on one GPU */
	double embed_bandwidth;         /* GB/s of the link between the first and the last stage's
	                                   devices, which all-reduce tied embeddings' gradients */
	double embed_latency;           /* its latency in microseconds */
	int cp;                         /* context-parallel degree */
	enum pp_cp_comm cp_comm;        /* how CP ranks exchange keys and values */
	enum pp_tp_overlap tp_overlap;  /* resolved: none, bulk or pipelined */
	bool overlap_grad_reduce;       /* gradient buckets reduced during the last backward */
	bool grad_reduce_scatter;       /* sharded: gradients reduce-scattered, not all-reduced */
	bool overlap_param_gather;      /* parameter gathers during the first forwards */
	double bucket_params;           /* parameters of a gradient bucket */
	double comm_slowdown;           /* compute slowdown beside communication */
	double collective_efficiency;   /* share of a link's bandwidth collectives reach */
	double optimizer_bytes;         /* bytes the optimizer step moves per parameter updated */
	int grad_reduce_bytes;          /* bytes of a gradient element data parallelism reduces */
	double step_overhead_ms;        /* a step's time outside the schedule */
	double tp_coll_ms;              /* one TP all-gather or reduce-scatter of a layer's input */
	double cp_fwd_ms, cp_bwd_ms;    /* one CP exchange: a ring step's K/V (forward) and K/V
	                                   with their gradients (backward), or the all-gather's */
	double *dp_bandwidth;           /* [p] the link device d's data-parallel ring crosses */
	double *dp_latency;             /* [p] its latency */
	double *optimizer_ms;           /* [p] the optimizer step on one GPU of device d */
	double optimizer_max_ms;        /* the slowest device's */
	double step_flops;       /* model FLOPs of one step over all GPUs (no recomputation) */
	double tokens_per_step;  /* m * mbs * seq * dp */
	double samples_per_step; /* m * mbs * dp */
	double q_dim, kv_dim;    /* the attention's query and key widths: heads and kv heads x
	                            the head size (hidden / heads unless the model says
	                            otherwise) */
	double o_dim, kvv_dim;   /* the value widths: heads and kv heads x the value head size
	                            (the head size unless the model says otherwise) */
	int q_lora_rank, kv_lora_rank, rope_dim; /* latent attention (kv_lora_rank 0: none) */
	int mtp_layers;          /* multi-token-prediction layers on the last stage */
	int S;                   /* virtual stages */
	int route_stages;        /* of them, the stages a micro-batch visits (S / routes) */
	struct cost_flops last_head_flops; /* their FLOPs, whole */
	/* A mixture of experts (experts == 0: every layer dense; docs/cost-model.md, Mixture of
	 * experts): the first dense_layers layers are dense, the others expert layers, whose MLP
	 * is a router, shared_experts experts every token runs and experts routed ones, top_k of
	 * them a token, each an MLP of expert_ffn, spread over ep GPUs (experts / ep each, whole:
	 * no tensor parallelism inside an expert); a layer's tokens (t / tp a GPU) are dispatched
	 * to their experts and combined back by all-to-alls within the ep group. */
	int experts, top_k, expert_ffn, shared_experts, dense_layers, ep;
	double expert_imbalance;        /* the busiest ep rank's routed tokens over the mean */
	enum pp_ep_dispatch ep_dispatch; /* how tokens reach their experts */
	int ep_node_limit;              /* nodes a token's experts may be on; 0: any */
	int dispatch_bytes;             /* bytes of an element the dispatch sends; 0: dtype's */
	int ep_node;                    /* the fewest GPUs of an ep group in one node (ep:
	                                   inside a node), as the all-to-all is priced */
	double dispatch_ms;             /* of the two all-to-alls, the dispatch's (a2a_ms the
	                                   combine's), on the busiest GPU */
	int *stage_moe;                 /* [S] of stage_layers[s], the expert layers */
	double moe_params;              /* an expert layer's parameters but its routed experts
	                                   (attention, router, shared experts), whole */
	double routed_params;           /* its routed experts' parameters, all of them */
	struct cost_flops moe_flops;    /* an expert layer, one micro-batch, whole (balanced) */
	double moe_act_bytes;           /* activations an expert layer keeps, per GPU */
	double moe_act_by[3];           /* the same under each recomputation */
	double a2a_ms;                  /* one all-to-all of a layer's routed tokens, dispatch or
	                                   combine, on the busiest GPU */
	double *edp_bandwidth;          /* [p] the link device d's expert gradients' ring
	                                   crosses (the expert-data-parallel group) */
	double *edp_latency;            /* [p] its latency */
	double *device_expert_params;   /* [p] of device_params[d], routed experts' */
};


/*
 * Costs of one simulation, per virtual stage s = 0..S-1. Times are in ticks, tick ticks per
 * unit. A message crossing boundary s (between stages s and s+1, in either direction) carries
 * msg_bytes[s] and, once it holds its channel, takes msg_time[s]; index S-1 is unused (0).
 */
struct cost {
	int S;                 /* virtual stages */
	int64_t tick;          /* ticks per time unit */
	const char *time_unit; /* "t" for abstract units, "ms" when a link sets message times */
	pp_time *t_f;          /* [S] forward of one micro-batch through stage s */
	pp_time *t_b;          /* [S] input-gradient backward */
	pp_time *t_w;          /* [S] weight-gradient backward (a fused BW costs t_b + t_w) */
	int64_t *act;          /* [S] activation amount F allocates (bytes, or abstract) */
	int64_t *act_w;        /* [S] what W still needs after B: a part of act, or with full
	                          recomputation of the activations B rebuilt, which may be more */
	uint64_t *msg_bytes;   /* [S] bytes of a message across boundary s */
	pp_time *msg_time;     /* [S] transfer time of that message: latency + bytes / bandwidth */
	enum pp_comm comm;     /* overlap or blocking */
	enum pp_duplex duplex; /* full- or half-duplex channels */
	double overlap_factor; /* an overlapped F&B pair lasts this x (F + B) */
	bool overlap_given;    /* --overlap-factor was given: it prices pairs even with pieces */
	struct cost_pieces *pieces; /* communication beside the messages, NULL when none; t_f,
	                               t_b and t_w are then the compute alone */
	int pieces_p;               /* devices pieces->after has */
	struct cost_model *model;   /* model-derived details, NULL for explicit costs */
};

/* What the costs need to know of a schedule: where its stages sit, and the routes of its
 * micro-batches (struct sched): each route's stages hold the whole model. */
struct cost_layout {
	int p;                        /* devices */
	int S;                        /* virtual stages */
	const uint32_t *stage_device; /* [S] the device hosting each stage */
	int routes;                   /* micro-batch routes: 1, or 2 (DualPipe) */
	bool serving;                 /* priced for ppsim serve, whose engines replicate a KV
	                                 head over tp ranks beyond the KV heads; a training run
	                                 splits them (Megatron-Core asserts they divide) */
};

/* The layout of schedule s (which keeps owning the array). */
static inline struct cost_layout cost_layout_of(const struct sched *s)
{
	return (struct cost_layout){s->p, s->S, s->stage_device, s->routes, false};
}

/* Whether stage st of layout l is the first of its route (it holds the embedding), or the last
 * (the LM head and the loss). */
static inline bool cost_layout_first(const struct cost_layout *l, int st)
{
	return st % (l->S / l->routes) == 0;
}
static inline bool cost_layout_last(const struct cost_layout *l, int st)
{
	return st % (l->S / l->routes) == l->S / l->routes - 1;
}

/*
 * Explicit costs from a validated config with S = p * v stages laid out as l (NULL: on one
 * route): each chunk op takes t/v of the device's time t, or with routes t * routes / v (a
 * micro-batch passes v / routes of a device's chunks: t is its time through them, DualPipe's
 * one chunk), activations are routes/v of a micro-batch per chunk, W keeps w_fraction of them,
 * messages take t_comm, or latency + msg_bytes / bandwidth when a bandwidth is set (and then
 * the time unit is the millisecond), between the stages of a route. Returns NULL when out of
 * memory (report it with pp_nomem).
 */
struct cost *cost_new_explicit(const struct config *c, const struct cost_layout *l,
                               double w_fraction);

/*
 * Costs derived from the config's model preset on its GPU and links for the stage layout l
 * (which decides which pipeline hops leave a node), in milliseconds: docs/cost-model.md's FLOP
 * formulas per layer, the LM head on the last stage, tensor parallelism dividing compute and
 * adding all-reduces, Korthikanti et al.'s activation bytes. Returns NULL with err set (from
 * config_fail) when the resolved settings are inconsistent: heads not dividing hidden, tp not
 * dividing the heads or the GPUs of a node, layers that do not split over the stages; or with a
 * PP_ERR_NOMEM error.
 */
struct cost *cost_new_model(const struct config *c, const struct cost_layout *l,
                            struct pp_error *err);

/*
 * Multiplies the op times of each stage of c by the config's stage_scale (per device of l, or
 * per stage). Returns 0, or -1 with err set when a time grows out of range.
 */
int cost_scale_stages(struct cost *c, const struct config *cfg, const struct cost_layout *l,
                      struct pp_error *err);

/* Milliseconds that flops take on a GPU g of k at its achieved rate: --efficiency times the
 * peak, else the GPU's large-GEMM efficiency. */
double cost_model_compute_ms(const struct cost_model *k, const struct cost_gpu *g, double flops);

/* The GPU type of pipeline device d of k. */
static inline const struct cost_type *cost_device_type(const struct cost_model *k, int d)
{
	return &k->types[k->device_type[d]];
}

/*
 * Collectives (collective.c, docs/cost-model.md, Collectives): milliseconds of a ring
 * collective of bytes (the whole buffer each GPU holds before an all-reduce or a reduce-scatter,
 * after an all-gather) over n GPUs on a link of bandwidth GB/s per direction and latency
 * microseconds, all of which every GPU's ring step crosses: an all-reduce takes 2(n-1) steps of
 * bytes/n, a reduce-scatter or an all-gather n-1, an all-to-all n-1 steps of bytes/n. 0 for n <= 1.
 */
enum cost_collective { COLL_ALLREDUCE, COLL_REDUCE_SCATTER, COLL_ALLGATHER, COLL_ALLTOALL };
double cost_collective_ms(enum cost_collective kind, double bytes, int n, double bandwidth,
                          double latency);
/* cost_collective_ms of an all-reduce: 2(n-1) latencies and 2(n-1)/n of the data. */
double cost_allreduce_ms(double bytes, int n, double bandwidth, double latency);
/* The bandwidth, GB/s per GPU, of a ring collective over a group that spans nodes with
 * per_node of its GPUs in each: NCCL runs one ring per GPU of the node, each crossing between
 * nodes on its own GPU's network port, so the group has per_node ports of between GB/s,
 * unless the links inside the node (inside GB/s) are slower. */
double cost_spanning_bandwidth(double inside, double between, int per_node);
/* Milliseconds of an all-to-all in which each of n GPUs holds bytes for the others (and
 * itself), per_node of the group in each node: of its bytes, (per_node - 1)/n cross the links
 * inside the node at inside GB/s and (n - per_node)/n leave it through the GPU's own network
 * port at between GB/s, both at once; n - 1 steps of latency microseconds. Inside one node
 * (per_node >= n) it is cost_collective_ms's all-to-all. */
double cost_alltoall_ms(double bytes, int n, int per_node, double inside, double between,
                        double latency);

/*
 * True when every op of a run priced by c's explicit times takes time: t_f, t_b and t_w above 0
 * (stage scales are above 0, and a time above 0 is at least a tick). A device's ops then start
 * and end at times that differ from op to op but for an overlapped pair's two. False with a
 * model, whose layers are laid out later.
 */
bool cost_every_op_takes_time(const struct config *c);

/* True when every stage has the same t_f, t_b and t_w. */
bool cost_uniform(const struct cost *c);
/* True when every message takes zero time. */
bool cost_comm_free(const struct cost *c);

/* Frees pc and its plans and hooks for S stages and p devices; NULL is a no-op. */
void cost_pieces_free(struct cost_pieces *pc, int S, int p);

/* Frees c and its arrays; NULL is a no-op. */
void cost_free(struct cost *c);

#endif
