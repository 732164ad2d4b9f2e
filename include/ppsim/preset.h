/*
 * Presets: named models, GPUs and links with their published figures, so that users can write
 * "llama3-70b on a100-80g over nvlink3" instead of raw numbers. Every field can be overridden
 * through the config. The tables are static data; nothing here is freed.
 */
#ifndef PPSIM_PRESET_H
#define PPSIM_PRESET_H

#include <stdbool.h>
#include <stddef.h>

/* A decoder-only transformer. */
struct model_preset {
	const char *name;   /* "llama3-70b" */
	int layers;         /* transformer layers */
	int hidden;         /* hidden size h */
	int ffn;            /* MLP intermediate size */
	int heads;          /* attention heads a */
	int kv_heads;       /* key/value heads (grouped-query attention) */
	int vocab;          /* vocabulary size V */
	bool gated_mlp;     /* SwiGLU (three MLP matrices) rather than GELU (two) */
	bool tied;          /* input embedding and LM head share their weights */
	const char *source; /* where the figures come from */
	/* attention heads' size when not hidden / heads (0); mixture of experts (0 experts: a
	 * dense model): routed experts, experts a token is routed to, one expert's MLP size,
	 * experts every token runs, leading layers with a dense MLP of ffn */
	int head_dim, experts, top_k, expert_ffn, shared_experts, dense_layers;
	/* multi-head latent attention (0: none): the values' head size, the queries' and the
	 * keys' and values' low ranks, the rotary part of head_dim the keys share; and the
	 * multi-token-prediction layers after the last */
	int v_head_dim, q_lora_rank, kv_lora_rank, rope_dim, mtp_layers;
};

/* A GPU. */
struct gpu_preset {
	const char *name;        /* "a100-80g" */
	double tflops;           /* peak dense bf16 TFLOP/s */
	double fp8_tflops;       /* peak dense fp8 TFLOP/s; 0: no fp8 tensor cores */
	double memory_gb;        /* memory in GB (1e9 bytes) */
	double memory_bandwidth; /* memory bandwidth in GB/s */
	int sms;                 /* streaming multiprocessors */
	/* the per-op model's achieved shares (docs/presets.md): of peak for large GEMMs, for flash
	 * attention's forward and backward; of memory bandwidth; and a kernel's fixed time in us;
	 * fp8_gemm_efficiency is a large fp8 GEMM's share of fp8_tflops (0 without fp8) */
	double gemm_efficiency, fp8_gemm_efficiency, attention_efficiency, attention_bwd_efficiency;
	double fa2_attention_efficiency, fa2_attention_bwd_efficiency; /* FlashAttention-2's */
	double memory_efficiency, kernel_overhead;
	/* the share of those compute rates (GEMMs and attention) a training step sustains: the
	 * GEMM and attention shares are short benchmarks at full clock, a step runs for seconds at
	 * the clock its power limit holds (docs/presets.md, Sustained rates) */
	double sustained;
	const char *link;       /* default intra-node link preset */
	const char *inter_link; /* default inter-node link preset */
	const char *host_link;  /* the link to host memory (link preset) */
	int host_gpus;          /* GPUs that share one host link */
	const char *source;
};

/* A link between two GPUs: bandwidth per direction and per-message latency. */
struct link_preset {
	const char *name; /* "nvlink3" */
	double bandwidth; /* GB/s per direction (1e9 B/s) */
	double latency;   /* microseconds per message */
	const char *source;
};

/*
 * A training framework's own habits (docs/presets.md, Frameworks): what its runtime does unless
 * told otherwise. --framework applies each to the options not given; -1 leaves the option's
 * own default.
 */
struct framework_preset {
	const char *name;          /* "megatron" */
	int comm;                  /* enum pp_comm of its pipeline sends */
	int comm_chunked;          /* the same with chunks (v > 1, interleaved) */
	int overlap_grad_reduce;   /* gradient buckets reduced during the backward */
	int overlap_param_gather;  /* parameter gathers during the first forwards */
	int distributed_optimizer; /* optimizer state sharded over dp */
	int grad_reduce_scatter;   /* a sharded optimizer's gradients reduce-scattered, not
	                            * all-reduced whole */
	int tp_overlap;            /* enum pp_tp_overlap */
	int flash_attention;       /* fused attention */
	int attention_kernel;      /* enum pp_attention_kernel, -1: the option's default */
	double loss_bytes;         /* bytes its loss moves per logit forward, -1: the default */
	double loss_bwd_bytes;     /* and backward */
	double grad_accum_bytes;   /* bytes a parameter moves after each backward to add its
	                              gradient into fp32 ones (a pass of its own), -1: none */
	const char *source;
};

/* The tables in `ppsim list` order; *count receives the length. */
const struct model_preset *preset_models(size_t *count);
const struct gpu_preset *preset_gpus(size_t *count);
const struct link_preset *preset_links(size_t *count);
const struct framework_preset *preset_frameworks(size_t *count);

/* Lookups by exact name; NULL when there is none. */
const struct model_preset *preset_model(const char *name);
const struct gpu_preset *preset_gpu(const char *name);
const struct link_preset *preset_link(const char *name);
const struct framework_preset *preset_framework(const char *name);

/* True when the table of kind ("model", "gpu", "link" or "framework") has a row named name. */
bool preset_known(const char *kind, const char *name);

/* The GPU preset a model config without --gpu runs on. */
#define PRESET_DEFAULT_GPU "a100-80g"

/* Writes the names of one table, "a, b, c", into buf of size n; kind is "model", "gpu" or
 * "link". Returns buf. */
char *preset_names(const char *kind, char *buf, size_t n);

#endif
