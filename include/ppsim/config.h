/*
 * Configuration: the typed, validated description of one simulation, and the table of options
 * that set it. The command line and JSON config files set fields through this table only, so
 * names, argument forms, help texts and config-file keys live in one place. Each field records
 * where its value came from (default, command line, or a config file's line and column), so
 * that errors found later can name it.
 *
 * Two ways to price ops: explicit costs (t_f, t_b, t_w, t_comm or a link, in abstract units),
 * or a model preset on a GPU over links (milliseconds), chosen by setting `model`.
 *
 * Ownership: struct config is plain data with no pointers; copy it freely.
 */
#ifndef PPSIM_CONFIG_H
#define PPSIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/sched.h"
#include "ppsim/util.h"

/* Hard limits on counts (PP_MAX_COUNT, p and m each, is in sched.h), beyond the op cap below. */
/* p at most: each device costs the reports and the engine a few KB besides its ops */
#define PP_MAX_DEVICES 65536
#define PP_MAX_CHUNKS  1024 /* v */
_Static_assert((uint64_t)PP_MAX_DEVICES * PP_MAX_CHUNKS <= UINT64_C(1) << SCHED_STAGE_BITS,
               "every stage fits in struct op");
/*
 * Cap on the ops one simulation may hold (p * v * m * 2, or * 3 with split backward). A run
 * takes at most PP_BYTES_PER_MAX_OP bytes per op of the cap, whatever it writes: an output
 * that would need more is refused before the run (docs/robustness.md, Limits).
 */
#define PP_MAX_OPS UINT64_C(50000000)
/* The memory a run may hold for each op --max-ops allows: 2 GB at the default. */
#define PP_BYTES_PER_MAX_OP 40
/* The highest --max-ops may raise the cap to: op numbers must fit in 32 bits. */
#define PP_MAX_OPS_CEILING UINT64_C(1000000000)
/* Cap on the P2P bytes one simulation may move, so that totals stay exact in a double. */
#define PP_MAX_TRAFFIC_BYTES 9007199254740992.0 /* 2^53 */
/* Most requests a serving run may have. */
#define PP_MAX_REQUESTS 1000000
/* Most entries a list option (--layers-per-stage) takes. */
#define PP_MAX_LIST 1024
/* Most rows the option table may have (the size of the origin table). */
#define CONFIG_MAX_OPTIONS 160
/*
 * The range of --svg-width; its default, PP_SVG_AUTO_WIDTH, lets the drawing choose a width
 * that gives ops room for their labels, from PP_SVG_AUTO_MIN_WIDTH to PP_SVG_AUTO_MAX_WIDTH
 * (twice a screen: past it the drawing merges ops rather than growing unreadably wide).
 */
#define PP_SVG_MIN_WIDTH      400
#define PP_SVG_MAX_WIDTH      100000
#define PP_SVG_AUTO_WIDTH     0
#define PP_SVG_AUTO_MIN_WIDTH 1200
#define PP_SVG_AUTO_MAX_WIDTH 2400

enum pp_comm {
	PP_COMM_OVERLAP,  /* a copy engine moves data while the device computes */
	PP_COMM_BLOCKING, /* the sending device's compute stream waits until its send completes */
};

enum pp_duplex {
	PP_DUPLEX_FULL, /* channels d->e and e->d are independent */
	PP_DUPLEX_HALF, /* d->e and e->d share one channel */
};

/* What the trace calls its slices (--trace-names). */
enum pp_trace_names {
	PP_TRACE_NAMES_PPSIM, /* the timeline's labels: F3, b3, and "F3 to GPU 1" */
	PP_TRACE_NAMES_TORCH, /* PyTorch's profiler ranges: PP:2F3, and PP:2SEND_F3 */
};

enum pp_mlp {
	PP_MLP_PRESET, /* the model preset's */
	PP_MLP_GATED,  /* SwiGLU: three MLP matrices (Llama) */
	PP_MLP_PLAIN,  /* GELU: two MLP matrices (GPT) */
};

/* How tensor-parallel collectives meet the GEMMs beside them (docs/cost-model.md, Streams). */
enum pp_tp_overlap {
	PP_TP_OVERLAP_DEFAULT,   /* the framework's (none without one) */
	PP_TP_OVERLAP_NONE,      /* each collective waits for its GEMM and the next GEMM for it */
	PP_TP_OVERLAP_BULK,      /* a backward's collectives run beside its layer's GEMMs */
	PP_TP_OVERLAP_PIPELINED, /* each collective split into tp chunks, each beside a GEMM chunk */
};

/* How context-parallel ranks exchange keys and values. */
enum pp_cp_comm {
	PP_CP_RING,      /* cp - 1 ring steps, each beside a block of attention (Megatron's p2p) */
	PP_CP_ALLGATHER, /* one all-gather of the keys and values before attention */
};

/* Which flash attention kernels a run has. */
enum pp_attention_kernel {
	PP_ATTENTION_DEFAULT, /* the framework's, else the best */
	PP_ATTENTION_BEST,    /* the GPU's best (FlashAttention-3 on Hopper; its presets' figures) */
	PP_ATTENTION_FA2,     /* FlashAttention-2 (PyTorch SDPA's flash backend) */
};

/* How expert-parallel ranks send tokens to their experts and back. */
enum pp_ep_dispatch {
	PP_EP_ALLTOALL, /* an all-to-all of every routed copy (NCCL; Megatron-Core's alltoall) */
	PP_EP_DEEPEP,   /* a token once to each node that holds one of its experts, then forwarded
	                   inside the node (DeepEP's normal kernels; Megatron-Core's flex) */
};

enum pp_recompute {
	PP_RECOMPUTE_NONE, /* keep every activation */
	PP_RECOMPUTE_FULL, /* keep only each layer's input; recompute the forward in backward */
	PP_RECOMPUTE_SELECTIVE, /* keep all but the attention scores; recompute the attention
	                           core in backward (Korthikanti et al. 2022) */
};

/* How a model's layers are split over the virtual stages when no layout, list of layers or
 * first/last stage's layers is given (docs/cost-model.md, Layouts). */
enum pp_layer_split {
	PP_SPLIT_SPREAD,     /* even when they divide; else the extra layers to the stages after
	                        the first, then the last: the embedding's and the head's stages
	                        stay lightest */
	PP_SPLIT_EVEN,       /* even, or refused (Megatron-LM without layout flags) */
	PP_SPLIT_TORCHTITAN, /* torchtitan's own split: the embedding and the head count a layer
	                        each, the first stages take the extra ones */
};

/* Serving: how requests arrive when they are generated. */
enum pp_arrival {
	PP_ARRIVAL_POISSON, /* exponential gaps at the rate */
	PP_ARRIVAL_BURSTY,  /* bursts of `burst` requests at once, the bursts Poisson */
	PP_ARRIVAL_CLOSED,  /* `concurrency` clients, each sending its next request on an answer */
};

/* Serving: how requests are batched into micro-batches. */
enum pp_batching {
	PP_BATCHING_STATIC,        /* a batch runs its prefill, then decodes until all are done */
	PP_BATCHING_CONTINUOUS,    /* iteration-level: waiting prefills first, else decodes */
	PP_BATCHING_CHUNKED,       /* decodes first, prompts in chunks filling a token budget */
	PP_BATCHING_DISAGGREGATED, /* a prefill pipeline and a decode pipeline, KV sent between */
};

/* Noise: the distribution of an op's or a message's time around its cost (mean 1). */
enum pp_noise_dist {
	PP_NOISE_NORMAL,    /* normal with standard deviation cv, cut at 0 */
	PP_NOISE_LOGNORMAL, /* lognormal with coefficient of variation cv */
	PP_NOISE_EMPIRICAL, /* a ratio drawn from the samples of the empirical file */
};
/* The coefficient of variation of a normal or lognormal rule that gives none: between the 1-2%
 * day-to-day swings of Llama 3's training and the 8% average spread of identical GPUs
 * (docs/concepts.md, Noise); a choice, not a fit. */
#define PP_NOISE_DEFAULT_CV 0.05
/* The room for a path a setting names (a schedule file, a request trace, an empirical jitter's
 * samples, the config file): Linux's PATH_MAX, so that any file the system opens is taken. */
#define PP_PATH_MAX 4096
/* Most rules --jitter takes, and most stragglers --straggler. */
#define PP_MAX_JITTER     8
#define PP_MAX_STRAGGLERS 16
/* Op kinds a jitter rule selects: the bits of enum op_kind (F 0, B 1, W 2; a fused backward
 * takes B's rule), as config does not include the schedule module. */
#define PP_JITTER_F 1u
#define PP_JITTER_B 2u
#define PP_JITTER_W 4u
/* One rule of --jitter: ops of the kinds and stage it selects vary by dist. */
struct pp_jitter_rule {
	unsigned kinds;          /* PP_JITTER_* bits */
	int stage;               /* the virtual stage, or -1 for every stage */
	enum pp_noise_dist dist; /* how */
	double cv;               /* normal, lognormal: standard deviation over mean */
};
/* Op-time (or message-time) variation: rules in order, the last that selects an op wins. */
struct pp_jitter {
	int n;
	struct pp_jitter_rule r[PP_MAX_JITTER];
	char file[PP_PATH_MAX]; /* the empirical rules' file of samples */
};
/* A device, or a link between two devices, slower by factor from time at on. */
struct pp_straggler {
	int dev, peer; /* peer: a link's other end */
	bool link;
	bool placed;   /* a link advise placed between two ranks: one the order does not use
	                  carries nothing (a link given is refused) */
	double at;     /* in the run's time unit */
	double factor; /* > 0 */
};
struct pp_stragglers {
	int n;
	struct pp_straggler s[PP_MAX_STRAGGLERS];
};
/* compare, sweep, advise: the figure of the step that ranks runs. */
enum pp_rank_by {
	PP_RANK_STEP, /* the deterministic run's step */
	PP_RANK_MEAN, /* the samples' mean step */
	PP_RANK_P50,
	PP_RANK_P90,
	PP_RANK_P99,
};

/* Serving: a distribution of token counts. */
enum pp_dist_kind {
	PP_DIST_FIXED,     /* always a */
	PP_DIST_UNIFORM,   /* whole numbers from a to b */
	PP_DIST_LOGNORMAL, /* exp(N(a, b)) rounded, at least 1 */
};
struct pp_dist {
	enum pp_dist_kind kind;
	double a, b;
};

/* Where a field's value came from. */
struct config_origin {
	int line;   /* > 0: line in config->file; -1: the command line; CONFIG_LINE_CALLER: a
	               library caller (pp_config_set); 0: the default */
	int column; /* column in config->file when line > 0 */
};

/*
 * One simulation's settings. Fields marked (model) are used with a model preset only. Fields
 * that override a preset hold 0 (counts, rates), -1 (latencies, yes/no) or PP_MLP_PRESET while
 * they take the preset's value.
 */
struct config {
	char schedule[32];       /* generator name, as in sched_find */
	char schedule_file[PP_PATH_MAX]; /* a schedule file to simulate instead of a generator, or "" */
	int p;                   /* devices (pipeline ranks), >= 1 */
	int v;                   /* chunks per device, >= 1 */
	int m;                   /* micro-batches, >= 1 */
	double t_f;              /* forward time of one micro-batch through a device's layers */
	double t_b;              /* input-gradient backward time, same scope */
	double t_w;              /* weight-gradient backward time, same scope */
	double t_comm;           /* fixed time of one P2P message; used without a link */
	uint64_t msg_bytes;      /* bytes of one P2P message (activation or its gradient) */
	double bandwidth;        /* link bandwidth per direction in GB/s (1e9 B/s); 0: the link's */
	double latency;          /* link latency per message in microseconds; -1: the link's */
	enum pp_comm comm;       /* overlap or blocking communication */
	enum pp_duplex duplex;   /* full- or half-duplex channels */
	int group_size;          /* interleaved micro-batch group g; 0 picks the default */
	uint64_t max_ops;        /* most ops (serving: stage steps) a simulation may hold */
	double w_mem_fraction;   /* share of a chunk's activations W still needs after B */
	double overlap_factor;   /* an overlapped F&B pair (DualPipeV) lasts this x (F + B) */
	double mem_limit;        /* zb-auto: alive activations allowed, micro-batches; 0: p */
	char model[32];          /* model preset; empty for explicit costs */
	int layers;              /* (model) transformer layers; 0: the preset's, likewise below */
	int hidden;              /* (model) hidden size */
	int ffn;                 /* (model) MLP intermediate size */
	int heads;               /* (model) attention heads */
	int kv_heads;            /* (model) key/value heads */
	int vocab;               /* (model) vocabulary size */
	enum pp_mlp mlp;         /* (model) gated (SwiGLU) or plain (GELU) MLP */
	int tied;                /* (model) embedding and LM head share weights: 1, 0, or -1 */
	int head_dim;            /* (model) size of an attention head; 0: the preset's (hidden /
	                            heads unless it says otherwise) */
	int v_head_dim;          /* (model) a value head's size; 0: the preset's, else head_dim */
	int q_lora_rank;         /* (model) latent attention's query rank; -1: the preset's */
	int kv_lora_rank;        /* (model) latent attention's key/value rank (0: not latent);
	                            -1: the preset's */
	int rope_dim;            /* (model) of head_dim, the rotary part latent attention's keys
	                            share; -1: the preset's */
	int mtp_layers;          /* (model) multi-token-prediction layers; -1: the preset's */
	int experts;             /* (model) routed experts of a mixture-of-experts layer; -1: the
	                            preset's (0: a dense model) */
	int top_k;               /* (model) experts each token is routed to; 0: the preset's */
	int expert_ffn;          /* (model) one expert's MLP intermediate size; 0: the preset's */
	int shared_experts;      /* (model) experts every token runs, each of expert_ffn; -1: the
	                            preset's */
	int dense_layers;        /* (model) leading layers with a dense MLP of ffn; -1: the
	                            preset's */
	int ep;                  /* (model) expert-parallel degree: each GPU holds experts / ep */
	double expert_imbalance; /* (model) the busiest expert-parallel rank's routed tokens over
	                            the mean, >= 1; 0: the default */
	char gpu[32];            /* (model) GPU preset */
	/* (model) the GPU of each pipeline device, as indexes into the GPU presets
	 * (preset_gpus); 0 entries: every device has gpu */
	short device_gpu[PP_MAX_LIST];
	int ndevice_gpus;
	/* the physical device each device of the generated schedule runs on (--device-order, a
	 * permutation of 0..p-1); 0 entries: device i on device i */
	short device_order[PP_MAX_LIST];
	int ndevice_order;
	double tflops;           /* (model) peak dense bf16 TFLOP/s */
	double memory_bandwidth; /* (model) GPU memory bandwidth in GB/s; 0: the GPU's */
	double gpu_memory;       /* (model) GPU memory in GB */
	double memory_reserve;  /* (model) GB of each GPU kept free of the modelled memory; -1: 3 GB
	                           and 10% of the GPU's memory */
	double efficiency;      /* (model) one share of peak for every op; 0: per kernel */
	int sms;                /* (model) streaming multiprocessors; 0: the GPU's */
	double gemm_efficiency; /* (model) share of peak of a large GEMM; 0: the GPU's */
	double sustained_share; /* (model) share of the compute rates a step sustains; 0: the
	                           GPU's */
	double fp8_tflops;      /* (model) peak dense fp8 TFLOP/s; 0: the GPU's */
	double fp8_gemm_efficiency; /* (model) share of the fp8 peak of a large fp8 GEMM; 0: the
	                               GPU's */
	double attention_efficiency;     /* (model) flash attention forward; 0: the GPU's */
	double attention_bwd_efficiency; /* (model) its backward; 0: the GPU's */
	double memory_efficiency;        /* (model) share of memory bandwidth; 0: the GPU's */
	double kernel_overhead;          /* (model) fixed time of a kernel in us; -1: the GPU's */
	char link[32];                   /* link preset inside a node (pipeline hops there, TP) */
	char inter_link[32];             /* (model) link preset between nodes */
	double inter_bandwidth;          /* (model) inter-node bandwidth per direction in GB/s */
	double inter_latency;  /* (model) inter-node latency per message in microseconds; -1 */
	double p2p_overhead;   /* (model) microseconds a pipeline message adds; -1: the fit */
	double p2p_efficiency; /* (model) share of the bandwidth a message gets; 0: the fit */
	int seq;               /* (model) sequence length s */
	int mbs;               /* (model) micro-batch size b */
	int tp;                /* (model) tensor-parallel degree */
	int dp;                /* (model) data-parallel degree */
	int gpus;              /* (model) total GPUs; sets dp = gpus / (p * tp) */
	int gpus_per_node;     /* (model) GPUs in one node */
	int global_batch;      /* (model) sequences per step over all replicas; sets m; 0: none */
	int flash_attention;   /* (model) attention scores are not stored (1) or are (0) */
	int sequence_parallel; /* (model) with tp > 1, norms and dropouts split over tp (1) or not
	                        */
	int fp8;               /* (model) the layers' linear GEMMs in fp8, Transformer Engine's way
	                          (1), or all in bf16 (0) */
	double unfused_attention_bytes; /* (model) extra forward bytes per attention score without
	                                 * flash attention; -1: the fitted default */
	double loss_bytes;              /* (model) bytes the loss's forward moves per logit; -1: the
	                                 * framework's, or the default */
	double loss_bwd_bytes;          /* (model) the same for its backward */
	double grad_accum_bytes;        /* (model) bytes a parameter moves after each backward to
	                                 * add its gradient into fp32 ones; -1: the framework's, or
	                                 * 0 */
	enum pp_recompute recompute;    /* (model) activation recomputation */
	int distributed_optimizer;      /* (model) optimizer state sharded over dp (1), not (0), or
	                                   -1: the framework's */
	char framework[32];             /* (model) framework profile, "" for none */
	int cp;                         /* (model) context-parallel degree */
	enum pp_cp_comm cp_comm;        /* (model) how CP ranks exchange keys and values */
	enum pp_ep_dispatch ep_dispatch; /* (model) how EP ranks send tokens to experts */
	enum pp_attention_kernel attention_kernel; /* (model) flash attention's kernels */
	int ep_node_limit;       /* (model) nodes a token's experts may be on (node-limited
	                            routing); 0: any */
	int dispatch_bytes;      /* (model) bytes of an element the dispatch sends; 0: the
	                            activations' (FP8 dispatch: 1) */
	enum pp_tp_overlap tp_overlap;  /* (model) tensor-parallel collectives beside GEMMs */
	int overlap_grad_reduce;        /* (model) gradient buckets reduced during the backward (1),
	                                   after the step (0), -1: the framework's */
	int overlap_param_gather;       /* (model) distributed optimizer's parameter gather during
	                                   the first forwards (1), before them (0), -1: framework */
	int grad_reduce_scatter;        /* (model) a sharded optimizer's gradients reduce-scattered
	                                   (1) or all-reduced whole (0), -1: the framework's */
	double bucket_size;             /* (model) parameters of a gradient bucket; 0: Megatron's
	                                   max(40M, 1M x dp) */
	double comm_slowdown;           /* (model) compute slowdown beside communication; -1: the
	                                   default */
	double collective_efficiency;   /* (model) share of a link's bandwidth collectives reach; 0:
	                                   the default */
	double optimizer_bytes;         /* (model) bytes the optimizer step moves per parameter it
	                                   updates; -1: the default */
	int grad_reduce_bytes;          /* (model) bytes of a gradient element the data-parallel
	                                   reduction sends */
	double step_overhead;           /* (model) ms each step spends outside the schedule (flush,
	                                   synchronisation, launches); -1: the default */
	double bytes_per_param; /* (model) weights + gradients + optimizer state per parameter */
	int dtype_bytes;        /* (model) bytes of an activation element */
	int first_stage_layers; /* (model) layers on the first virtual stage; 0: even split */
	int last_stage_layers;  /* (model) layers on the last virtual stage; 0: even split */
	int layers_per_stage[PP_MAX_LIST]; /* (model) layers of each virtual stage */
	int nlayers_per_stage;             /* entries in layers_per_stage; 0: not given */
	/* (model) the recomputation of each virtual stage (enum pp_recompute); 0 entries: every
	 * stage takes recompute */
	signed char stage_recompute[PP_MAX_LIST];
	int nstage_recompute;
	double offload;        /* (model) share of each stage's activations kept in host memory
	                          between a micro-batch's forward and its backward */
	double host_bandwidth; /* (model) GB/s per direction of a GPU's copies to and from host
	                          memory; 0: the GPU's host link, shared as its preset says */
	double stage_offload[PP_MAX_LIST]; /* (model) the offloaded share of each virtual stage's
	                                     activations; 0 entries: offload on every stage */
	int nstage_offload;
	enum pp_layer_split layer_split; /* (model) the split when no other is given */
	char layout[1024]; /* (model) a Megatron-LM layout string of the stages' layers, or "" */
	int jobs;           /* (no option: a command's --jobs sets it) threads a priced generator
	                       (zb-auto, zbv-auto) may run its passes on, and a large trace's
	                       writer (JSON or Perfetto) its events (struct drawing's jobs),
	                       < 1: one; neither the
	                       order nor the bytes depend on it */
	double stage_scale[PP_MAX_LIST];   /* op-time factor per device or per virtual stage */
	int nstage_scale;                  /* entries in stage_scale; 0: every stage 1 */
	/* serving (ppsim serve): */
	char requests[PP_PATH_MAX]; /* request trace file, or "" to generate requests */
	enum pp_arrival arrival;   /* how generated requests arrive */
	double rate;               /* requests per 1000 time units (per second in ms) */
	int num_requests;          /* requests to generate */
	int burst;                 /* bursty: requests per burst */
	int concurrency;           /* closed: clients */
	struct pp_dist prompt;     /* prompt tokens of generated requests */
	struct pp_dist output;     /* output tokens of generated requests */
	uint64_t seed;             /* of the request generator and of noise samples */
	enum pp_batching batching; /* batching policy */
	int max_batch;             /* sequences per micro-batch */
	int max_tokens;            /* new tokens per micro-batch (static, continuous) */
	int chunk_tokens;          /* chunked: token budget of a micro-batch */
	int inflight;              /* micro-batches in flight per pipeline; 0: its stages */
	uint64_t kv_tokens;        /* KV-cache capacity in tokens; 0: unlimited, or from memory */
	int prefill_stages;        /* disaggregated: stages of the prefill pipeline; 0: p */
	char kv_link[32];          /* disaggregated: link preset carrying KV caches; "": inter */
	double step_time;          /* explicit: fixed time of a micro-batch on a stage */
	double token_time;         /* explicit: time per new token on a stage */
	double attn_time;          /* explicit: per new token per 1000 tokens of context */
	double window;             /* length of the metric windows; 0: a tenth of the run */
	/* noise (issue: noisy clusters): */
	uint64_t samples;              /* noise samples of the run; 0: none */
	struct pp_jitter jitter;       /* op-time variation */
	struct pp_jitter link_jitter;  /* message-time variation (kinds and stage unused) */
	struct pp_stragglers stragglers; /* slow devices and links, in every run */
	double stall_every;            /* transient stalls: one per stall_every time units a
	                                  device runs, on average; 0: none */
	double stall_length;           /* each lasting this long */
	int svg_width; /* width of the --svg drawing in pixels, or PP_SVG_AUTO_WIDTH */
	enum pp_trace_names trace_names; /* what the --trace file calls its slices */
	char file[PP_PATH_MAX];          /* the config file read last, for messages */
	struct config_origin origin[CONFIG_MAX_OPTIONS]; /* per option-table row */
};

/* The kinds of value an option takes. */
enum config_arg {
	CONFIG_ARG_NAME,  /* a name from a fixed set (a string in config files) */
	CONFIG_ARG_COUNT, /* an integer from 1 to PP_MAX_COUNT */
	CONFIG_ARG_TIME,  /* a finite time >= 0 and <= PP_TIME_MAX_UNITS */
	CONFIG_ARG_BYTES, /* an integer >= 0 that fits in 63 bits */
	CONFIG_ARG_RATE,  /* a finite number > 0 */
	CONFIG_ARG_SHARE, /* a number from 0 to 1 */
	CONFIG_ARG_BOOL,  /* yes/no, true/false, on/off (a boolean in config files); an int field */
	CONFIG_ARG_LIST,  /* comma-separated counts (an array of integers in config files) */
	CONFIG_ARG_SCALES, /* comma-separated numbers > 0 (an array of numbers in config files) */
	CONFIG_ARG_PATH,   /* a file name (a string in config files) */
};

/*
 * The commands an option is for: the commands column of the option table, one bit per command
 * (the CLI's enum cli_mode is the same set). compare takes serving options too: it compares
 * serving configs side by side.
 */
enum config_command {
	CONFIG_RUN = 1,
	CONFIG_COMPARE = 2,
	CONFIG_SWEEP = 4,
	CONFIG_ADVISE = 8,
	CONFIG_BREAKEVEN = 16,
	CONFIG_SERVE = 32,
	CONFIG_REPLAY = 64, /* replay: a few of run's options, for its what-ifs and outputs */
	CONFIG_MERGE = 128, /* takes no config option: the shards it joins hold them */
	CONFIG_PARTITION = 256,
};
#define CONFIG_TRAINING                                                                            \
	(CONFIG_RUN | CONFIG_COMPARE | CONFIG_SWEEP | CONFIG_ADVISE | CONFIG_BREAKEVEN |           \
	 CONFIG_PARTITION)
#define CONFIG_SERVING (CONFIG_SERVE | CONFIG_COMPARE)
#define CONFIG_ALL     (CONFIG_TRAINING | CONFIG_SERVE)
/* Every command that takes options. */
#define CONFIG_COMMANDS (CONFIG_ALL | CONFIG_REPLAY)

/* Which way of pricing ops an option belongs to: the pricing column. */
enum config_price {
	CONFIG_PRICE_ANY,      /* either */
	CONFIG_PRICE_MODEL,    /* only with a model (--model) */
	CONFIG_PRICE_EXPLICIT, /* only with explicit costs */
	CONFIG_PRICE_LINK,     /* training: either; serving: only with a model (else --tcomm) */
};

/* What else an option belongs to, for the checks that refuse it with other settings. */
enum config_flag {
	CONFIG_SHAPES_ORDER = 1, /* tunes a schedule generator: not with --schedule-file */
	CONFIG_GENERATES = 2,    /* describes generated requests: not with --requests */
	CONFIG_ZERO_AUTO = 4,    /* a count whose 0, never given, lets the program choose */
	CONFIG_ZERO_OK = 8,      /* a count that may be given as 0 (its default is then -1) */
	CONFIG_WHOLE = 16,       /* one value whose commas and colons are its own: a sweep takes
	                            it whole, as one value of every point */
};

/* A row of the option table: everything parsing, checking, --help and completion need. */
struct config_option {
	const char *name;        /* long option name without dashes: "stages" */
	int short_name;          /* single-letter option, or 0 */
	const char *key;         /* the field's name in JSON output and config files: "p" */
	enum config_arg arg;     /* what the value must be */
	const char *metavar;     /* the value's name in --help: "N" */
	const char *help;        /* one line for --help and the man page */
	size_t offset;           /* offset of the field it sets in struct config */
	unsigned commands;       /* enum config_command bits of the commands that take it */
	enum config_price price; /* the way of pricing it belongs to */
	unsigned flags;          /* enum config_flag bits */
	/* A name option (CONFIG_ARG_NAME) takes one of three kinds of names: */
	const char *const *values; /* an enum field's names, by value, NULL-terminated; or */
	const char *preset;        /* a row of this preset table ("model", "gpu", "link"); or */
	/* what parse reads and format writes (the schedule, token-count distributions) */
	int (*parse)(struct config *c, const struct config_option *opt, const char *label,
	             const char *value, struct pp_error *err);
	void (*format)(const struct config *c, const struct config_option *opt, char *buf,
	               size_t n);
	int offered;  /* values[0..offered-1] are taken but not offered ("preset") */
	int min, max; /* a count's range when narrower than 1..PP_MAX_COUNT; 0: that. A rate's
	                 (CONFIG_ARG_RATE) min > 0: its least value */
	int64_t bytes_min, bytes_max; /* a big integer's (CONFIG_ARG_BYTES) range; 0: 0..2^63-1 */
	const char *section; /* --help: the title of the group of options this row starts */
};

/* The option table in --help order; *count receives its length. */
const struct config_option *config_options(size_t *count);
/* The row whose config-file key is key, or NULL. */
const struct config_option *config_option_by_key(const char *key);

/*
 * Fills c with the defaults: 1f1b, p=4, v=1, m=8, t_f=t_b=t_w=1, no communication cost, the
 * schedule's default group size, W keeping half of a chunk's activations; with a model:
 * sequence 2048, micro-batch size 1, tp=dp=1, 8 GPUs per node, flash attention, no
 * recomputation, 16 bytes per parameter, bf16 activations, each kernel priced.
 */
void config_init(struct config *c);

/*
 * Parses value for option opt into c and records the command line as its origin. label names
 * the value's origin in messages ("--stages", "-p"). Returns 0, or -1 with a PP_ERR_USAGE error
 * such as "--stages '0': must be an integer from 1 to 16777216".
 */
int config_set(struct config *c, const struct config_option *opt, const char *label,
               const char *value, struct pp_error *err);

/* Reads value as a yes/no setting reads it (yes, true, on, 1; no, false, off, 0) into *field (1
 * or 0). Returns 0, or -1 with a PP_ERR_USAGE error "LABEL 'VALUE': must be yes or no". */
int config_parse_bool(int *field, const char *label, const char *value, struct pp_error *err);

/*
 * True when the option with config-file key `key` was given (command line or file). This is
 * about user input, for checks such as "--tf with a model"; which values are in effect is read
 * from the fields themselves.
 */
bool config_is_set(const struct config *c, const char *key);

/*
 * Reads the JSON config file path into c: an object whose members are option keys, each with
 * a value of the option's kind. Unknown, duplicate or mistyped keys and bad values are errors.
 * Returns 0, or -1 with err set: PP_ERR_IO when the file cannot be read, else PP_ERR_CONFIG with
 * the message starting "config 'PATH':LINE:COLUMN: ".
 */
int config_load_file(struct config *c, const char *path, struct pp_error *err);
/*
 * Reads the config file at path as config_load_file does, into *text (NUL-terminated, *len
 * bytes before the NUL; the caller frees it). Returns 0, or -1 with err (PP_ERR_IO: the file
 * does not read or is larger than config files may be; PP_ERR_NOMEM) and *text NULL.
 */
int config_read_file(const char *path, char **text, size_t *len, struct pp_error *err);
/* config_load_file of text[0..len-1] (text[len] must be '\0'), named path in messages. */
int config_load_text(struct config *c, const char *path, const char *text, size_t len,
                     struct pp_error *err);

/* struct config_origin's line of a value a library caller set (pp_config_set, ppsim.h). */
#define CONFIG_LINE_CALLER (-2)

/*
 * Fails err about the option with config-file key `key`, naming where its value came from
 * ("--tp", "config 'a.json':4:9: key \"tp\" = 2" or, set by a library caller, "key \"tp\" = 2")
 * before the message built from fmt. The kind is PP_ERR_CONFIG for a value from a file,
 * PP_ERR_USAGE otherwise. Returns -1.
 */
int config_fail(const struct config *c, const char *key, struct pp_error *err, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/*
 * Checks the settings as a whole: every option set is one a training run takes (those whose
 * commands column names run; a serving option is refused), the schedule exists and accepts
 * (p, v, m), the op count is within max_ops, link settings are consistent, and options of the
 * other pricing mode are not set. Returns 0, or -1 with an error from config_fail.
 */
int config_validate(const struct config *c, struct pp_error *err);

/* True when the config prices ops from a model preset. */
bool config_has_model(const struct config *c);

/*
 * Checks that every option c sets is for the command (enum config_command): one that is not
 * fails as "a serving option: use ppsim serve", "a training option, not for ppsim serve", or
 * "not for ppsim NAME" (name: the command's). Returns 0, or -1 with an error from config_fail.
 */
int config_check_command(const struct config *c, unsigned command, const char *name,
                         struct pp_error *err);

/*
 * The words the value of opt can be, joined by sep, into buf of size n: the names a name option
 * takes (a distribution's as "fixed:"), "yes" and "no" for a yes/no option, "" for any other.
 * --help lists them after a help text ending in ':', completion offers them. Returns buf.
 */
char *config_value_words(const struct config_option *opt, const char *sep, char *buf, size_t n);

/* True when the config sets a serving option (one whose commands column names no training
 * command). */
bool config_is_serve(const struct config *c);

/*
 * Checks a serving config as a whole: no training-only option (schedule, -v, -m, explicit
 * training times, ...), the serving options consistent. Returns 0, or -1 with an error from
 * config_fail.
 */
int config_validate_serve(const struct config *c, struct pp_error *err);

/* Names users write: "static", "poisson", "lognormal:6:0.5". */
const char *config_batching_name(enum pp_batching b);
const char *config_arrival_name(enum pp_arrival a);
char *config_dist_format(const struct pp_dist *d, char *buf, size_t n);

/* The most config_format_value writes, its NUL included: a list of PP_MAX_LIST numbers each
 * in its shortest exact form with its comma. */
#define CONFIG_VALUE_MAX (PP_MAX_LIST * 32)

/*
 * Writes the current value of opt's field in c into buf of size n, as a user would write it
 * ("8", "0.5", "overlap", "yes"), each number in its shortest exact form, so that the text reads
 * back as the same value (CONFIG_VALUE_MAX bytes hold any). Returns buf.
 */
char *config_format_value(const struct config *c, const struct config_option *opt, char *buf,
                          size_t n);

/*
 * The data-parallel degree of a model config: gpus / (p * tp) when --gpus is given (which p * tp
 * must divide, and an explicit dp must agree with), else dp. Returns 0 with *dp set, or -1 with
 * an error from config_fail.
 */
int config_dp(const struct config *c, int *dp, struct pp_error *err);

/*
 * Copies in to out with the values that follow from other settings filled in: v = the
 * schedule's fewest chunks unless -v is given; with a model and a global batch, dp from the GPU
 * count and m = global_batch / (mbs * dp), which must be whole and agree with an explicit -m.
 * Returns 0, or -1 with an error from config_fail (out is then the copy, partly settled).
 */
int config_settle(const struct config *in, struct config *out, struct pp_error *err);

/* The op-time factor of virtual stage st on physical device d (stage_scale gives one per device,
 * p factors, also at v = 1; or one per virtual stage, p x v; without it, 1). */
double config_stage_scale(const struct config *c, int st, int d);

/*
 * Time of one P2P message in explicit mode, in units: t_comm, or with a link (--link or
 * --bandwidth), latency + msg_bytes / bandwidth in milliseconds.
 */
double config_msg_time(const struct config *c);

/* The bandwidth (GB/s) and latency (us) of the intra-node link in explicit mode: the --link
 * preset's, then the overrides; 0 and 0 when no link is set. */
void config_link(const struct config *c, double *bandwidth, double *latency);

/* The GPU preset a model config runs on: device 0's of device_gpus, else gpu, else
 * PRESET_DEFAULT_GPU. */
const char *config_gpu(const struct config *c);
/* The GPU preset of pipeline device d (d below device_gpus' count when it has any). */
const char *config_device_gpu(const struct config *c, int d);

/*
 * The link presets a model config's pipeline uses, inside a node and between nodes: --link and
 * --inter-link, else its GPU's (PRESET_DEFAULT_GPU without --gpu), as the cost model resolves
 * them, into link and inter_link (32 bytes each).
 */
void config_model_links(const struct config *c, char *link, char *inter_link);

/* The generator parameters the config asks for. */
struct sched_params config_sched_params(const struct config *c);

/* Names of the enum values as users write them: "overlap"/"blocking", "full"/"half". */
const char *config_comm_name(enum pp_comm comm);
const char *config_duplex_name(enum pp_duplex duplex);
const char *config_recompute_name(enum pp_recompute r);
const char *config_tp_overlap_name(enum pp_tp_overlap t);
const char *config_cp_comm_name(enum pp_cp_comm t);
const char *config_ep_dispatch_name(enum pp_ep_dispatch d);
const char *config_attention_kernel_name(enum pp_attention_kernel a);

#endif
