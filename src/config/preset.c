/*
 * The preset tables: models, GPUs and links, with the source of each figure. The lookups by
 * name and the name lists go through one descriptor per table (its kind, rows and row size),
 * since every preset row starts with its name.
 */
#include "ppsim/preset.h"

#include "ppsim/config.h"

#include <stdio.h>
#include <string.h>

static const struct model_preset models[] = {
        {"llama3-8b", 32, 4096, 14336, 32, 8, 128256, true, false,
         "Meta Llama 3 8B config.json (Hugging Face)", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"llama3-70b", 80, 8192, 28672, 64, 8, 128256, true, false,
         "Meta Llama 3 70B config.json (Hugging Face); the source document's 8192 x 80", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"llama3-405b", 126, 16384, 53248, 128, 8, 128256, true, false,
         "Meta Llama 3.1 405B config.json (Hugging Face)", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"gpt3-175b", 96, 12288, 49152, 96, 96, 50257, false, true,
         "Brown et al. 2020, Table 2.1 (GPT-3 175B), GPT-2 vocabulary", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {.name = "deepseek-v3",
         .layers = 61,
         .hidden = 7168,
         .ffn = 18432,
         .heads = 128,
         .kv_heads = 128,
         .vocab = 129280,
         .gated_mlp = true,
         .head_dim = 192,
         .v_head_dim = 128,
         .q_lora_rank = 1536,
         .kv_lora_rank = 512,
         .rope_dim = 64,
         .experts = 256,
         .top_k = 8,
         .expert_ffn = 2048,
         .shared_experts = 1,
         .dense_layers = 3,
         .mtp_layers = 1,
         .source = "deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json and the "
                   "technical report (arXiv:2412.19437, 4.2): MLA (q rank 1536, kv rank 512, "
                   "head 128 + 64 rotary, values 128), 3 dense layers, 256 routed experts and "
                   "1 shared of 2048, 8 a token, one MTP module"},
        {.name = "mixtral-8x7b",
         .layers = 32,
         .hidden = 4096,
         .ffn = 14336,
         .heads = 32,
         .kv_heads = 8,
         .vocab = 32000,
         .gated_mlp = true,
         .experts = 8,
         .top_k = 2,
         .expert_ffn = 14336,
         .source = "mistralai/Mixtral-8x7B-v0.1 config.json (Hugging Face): 8 local experts, 2 "
                   "per token, intermediate 14336"},
        {.name = "mixtral-8x22b",
         .layers = 56,
         .hidden = 6144,
         .ffn = 16384,
         .heads = 48,
         .kv_heads = 8,
         .vocab = 32768,
         .gated_mlp = true,
         .experts = 8,
         .top_k = 2,
         .expert_ffn = 16384,
         .source = "mistralai/Mixtral-8x22B-v0.1 config.json (Hugging Face): 8 local experts, "
                   "2 per token, intermediate 16384"},
        {.name = "qwen3-30b-a3b",
         .layers = 48,
         .hidden = 2048,
         .ffn = 6144,
         .heads = 32,
         .kv_heads = 4,
         .vocab = 151936,
         .gated_mlp = true,
         .head_dim = 128,
         .experts = 128,
         .top_k = 8,
         .expert_ffn = 768,
         .source = "Qwen/Qwen3-30B-A3B config.json (Hugging Face): 128 experts, 8 per token, "
                   "moe_intermediate_size 768, head_dim 128; the small mixture of experts"},
        {.name = "qwen3-235b-a22b",
         .layers = 94,
         .hidden = 4096,
         .ffn = 12288,
         .heads = 64,
         .kv_heads = 4,
         .vocab = 151936,
         .gated_mlp = true,
         .head_dim = 128,
         .experts = 128,
         .top_k = 8,
         .expert_ffn = 1536,
         .source = "Qwen/Qwen3-235B-A22B config.json (Hugging Face): 128 experts, 8 per token, "
                   "moe_intermediate_size 1536, head_dim 128"},
};

/*
 * Peaks, memory and SMs are the datasheets'. The achieved shares are public measurements
 * (docs/presets.md has the table): large GEMMs, bf16 and fp8, are Bekman's "Maximum
 * Achievable Matmul FLOPS" (MAMF: the best of a search over shapes with torch.matmul, Machine
 * Learning Engineering, compute/accelerator); flash attention is FlashAttention-3's H100
 * SXM5 figures at head dim 128 and sequence 2k (Shah et al. 2024, Figs. 5 and 6), and on
 * Blackwell those times the 1.88x that Bekman measured for FlashAttention-4 on B200 over
 * FlashAttention-3 on H200 (forward and backward, causal, 8k). The memory share and the
 * kernel time are estimates, as for the A100.
 */
/* The link to host memory: PCIe 4.0 x16 on the A100, 5.0 on Hopper and the B200, both through
 * a PCIe switch that two GPUs share on its one link to the CPU (NVIDIA DGX A100 and DGX H100
 * system architecture: four switches, two GPUs each); on the GB200, NVLink-C2C from the Grace
 * CPU its two GPUs share (NVIDIA GB200 NVL72: 900 GB/s bidirectional). */
/* Hopper's sustained share, fitted on the fitted H100 runs of docs/validation.md (Megatron-LM's
 * without pipelining, NeMo 24.07's); Blackwell's is assumed the same, and the held-out B200
 * and GB200 runs check it. The A100's shares were measured inside a training run (its GEMM
 * share from the zero-bubble paper's W times), so they are sustained already. */
#define SUSTAINED_HOPPER 0.75

/* FlashAttention-2 on Hopper: "only 35% utilization on H100" forward (Shah et al. 2024,
 * FlashAttention-3, abstract and Fig. 5, causal, head dim 128: 300-370 TFLOP/s), its backward
 * 0.30 (Fig. 6: 270-310); on Blackwell, whose presets' figures are FlashAttention-4's, the same
 * shares (not measured). On the A100 FlashAttention-2 is the best kernel: its shares. */
#define FA2_HOPPER_FWD 0.35
#define FA2_HOPPER_BWD 0.30

static const struct gpu_preset gpus[] = {
        {.name = "a100-80g",
         .tflops = 312,
         .memory_gb = 80,
         .memory_bandwidth = 2039,
         .sms = 108,
         .gemm_efficiency = 0.80,
         .attention_efficiency = 0.60,
         .attention_bwd_efficiency = 0.50,
         .fa2_attention_efficiency = 0.60,
         .fa2_attention_bwd_efficiency = 0.50,
         .memory_efficiency = 0.85,
         .kernel_overhead = 4,
         .sustained = 1,
         .link = "nvlink3",
         .inter_link = "ib-hdr",
         .host_link = "pcie4",
         .host_gpus = 2,
         .source = "NVIDIA A100 datasheet: 312 TFLOP/s dense BF16, 80 GB HBM2e at 2039 GB/s "
                   "(SXM); no FP8 tensor cores"},
        {.name = "h100-sxm",
         .tflops = 989,
         .fp8_tflops = 1979,
         .memory_gb = 80,
         .memory_bandwidth = 3350,
         .sms = 132,
         .gemm_efficiency = 0.80,
         .fp8_gemm_efficiency = 0.71,
         .attention_efficiency = 0.53,
         .attention_bwd_efficiency = 0.51,
         .fa2_attention_efficiency = FA2_HOPPER_FWD,
         .fa2_attention_bwd_efficiency = FA2_HOPPER_BWD,
         .memory_efficiency = 0.85,
         .kernel_overhead = 4,
         .sustained = SUSTAINED_HOPPER,
         .link = "nvlink4",
         .inter_link = "ib-ndr",
         .host_link = "pcie5",
         .host_gpus = 2,
         .source = "NVIDIA H100 datasheet (SXM): 989 TFLOP/s dense BF16, 1979 dense FP8, 80 GB "
                   "HBM3 at 3.35 TB/s; 132 SMs (Hopper whitepaper); GEMMs 794.5 and 1402.6 "
                   "TFLOP/s measured (Bekman, MAMF table); FlashAttention-3 521 TFLOP/s causal "
                   "forward, 501 backward (Shah et al. 2024, head dim 128, 2k)"},
        {.name = "h800",
         .tflops = 989,
         .fp8_tflops = 1979,
         .memory_gb = 80,
         .memory_bandwidth = 3350,
         .sms = 132,
         .gemm_efficiency = 0.80,
         .fp8_gemm_efficiency = 0.71,
         .attention_efficiency = 0.53,
         .attention_bwd_efficiency = 0.51,
         .fa2_attention_efficiency = FA2_HOPPER_FWD,
         .fa2_attention_bwd_efficiency = FA2_HOPPER_BWD,
         .memory_efficiency = 0.85,
         .kernel_overhead = 4,
         .sustained = SUSTAINED_HOPPER,
         .link = "nvlink-h800",
         .inter_link = "ib-ndr",
         .host_link = "pcie5",
         .host_gpus = 2,
         .source = "DeepSeek's H800 (Insights into DeepSeek-V3, ISCA 2025, 4.1): the H100 SXM "
                   "with NVLink reduced from 900 to 400 GB/s; 132 SMs (DeepSeek-V3 report "
                   "3.5.1); compute, memory and shares as the H100 SXM's (not published apart)"},
        {.name = "h100-pcie",
         .tflops = 756,
         .fp8_tflops = 1513,
         .memory_gb = 80,
         .memory_bandwidth = 2000,
         .sms = 114,
         .gemm_efficiency = 0.80,
         .fp8_gemm_efficiency = 0.71,
         .attention_efficiency = 0.53,
         .attention_bwd_efficiency = 0.51,
         .fa2_attention_efficiency = FA2_HOPPER_FWD,
         .fa2_attention_bwd_efficiency = FA2_HOPPER_BWD,
         .memory_efficiency = 0.85,
         .kernel_overhead = 4,
         .sustained = SUSTAINED_HOPPER,
         .link = "pcie5",
         .inter_link = "ib-ndr",
         .host_link = "pcie5",
         .host_gpus = 2,
         .source = "NVIDIA H100 datasheet (PCIe): 756 TFLOP/s dense BF16, 1513 dense FP8, 80 GB "
                   "HBM2e at 2.0 TB/s; 114 SMs (Hopper whitepaper); shares: the H100 SXM's (no "
                   "published PCIe measurement)"},
        {.name = "h200",
         .tflops = 989,
         .fp8_tflops = 1979,
         .memory_gb = 141,
         .memory_bandwidth = 4800,
         .sms = 132,
         .gemm_efficiency = 0.80,
         .fp8_gemm_efficiency = 0.73,
         .attention_efficiency = 0.53,
         .attention_bwd_efficiency = 0.51,
         .fa2_attention_efficiency = FA2_HOPPER_FWD,
         .fa2_attention_bwd_efficiency = FA2_HOPPER_BWD,
         .memory_efficiency = 0.85,
         .kernel_overhead = 4,
         .sustained = SUSTAINED_HOPPER,
         .link = "nvlink4",
         .inter_link = "ib-ndr",
         .host_link = "pcie5",
         .host_gpus = 2,
         .source = "NVIDIA H200 datasheet: 989 TFLOP/s dense BF16, 1979 dense FP8, 141 GB HBM3e "
                   "at 4.8 TB/s; 132 SMs; GEMMs: BF16 as the H100 SXM, FP8 1453.4 TFLOP/s "
                   "measured (Bekman, MAMF table); attention as the H100 SXM"},
        {.name = "b200",
         .tflops = 2250,
         .fp8_tflops = 4500,
         .memory_gb = 180,
         .memory_bandwidth = 8000,
         .sms = 148,
         .gemm_efficiency = 0.78,
         .fp8_gemm_efficiency = 0.76,
         .attention_efficiency = 0.44,
         .attention_bwd_efficiency = 0.42,
         .fa2_attention_efficiency = FA2_HOPPER_FWD,
         .fa2_attention_bwd_efficiency = FA2_HOPPER_BWD,
         .memory_efficiency = 0.85,
         .kernel_overhead = 4,
         .sustained = SUSTAINED_HOPPER,
         .link = "nvlink5",
         .inter_link = "ib-ndr",
         .host_link = "pcie5",
         .host_gpus = 2,
         .source = "NVIDIA DGX B200 datasheet, per GPU: 2250 TFLOP/s dense BF16, 4500 dense FP8, "
                   "180 GB HBM3e at 8 TB/s; 148 SMs (Chips and Cheese); GEMMs 1745 and 3432.5 "
                   "TFLOP/s measured (Bekman, MAMF table); attention: the H100's FlashAttention-3 "
                   "figures x 1.88 (Bekman, FlashAttention-4 on B200 over FlashAttention-3 on "
                   "H200)"},
        {.name = "gb200",
         .tflops = 2500,
         .fp8_tflops = 5000,
         .memory_gb = 186,
         .memory_bandwidth = 8000,
         .sms = 148,
         .gemm_efficiency = 0.73,
         .fp8_gemm_efficiency = 0.72,
         .attention_efficiency = 0.39,
         .attention_bwd_efficiency = 0.38,
         .fa2_attention_efficiency = FA2_HOPPER_FWD,
         .fa2_attention_bwd_efficiency = FA2_HOPPER_BWD,
         .memory_efficiency = 0.85,
         .kernel_overhead = 4,
         .sustained = SUSTAINED_HOPPER,
         .link = "nvlink5",
         .inter_link = "ib-ndr",
         .host_link = "nvlink-c2c",
         .host_gpus = 2,
         .source = "NVIDIA GB200 NVL72 datasheet, per GPU: 2500 TFLOP/s dense BF16, 5000 dense "
                   "FP8, 186 GB HBM3e at 8 TB/s; GEMMs 1822 and 3615.6 TFLOP/s measured (Bekman, "
                   "MAMF table); attention: the B200's TFLOP/s"},
};

static const struct link_preset links[] = {
        {"nvlink3", 300, 3, "A100 NVLink 3: 600 GB/s bidirectional; latency assumed"},
        {"nvlink4", 450, 3, "H100 NVLink 4: 900 GB/s bidirectional; latency assumed"},
        {"nvlink-h800", 200, 3,
         "H800 NVLink: 400 GB/s bidirectional (DeepSeek, ISCA 2025, 4.1), of which DeepSeek "
         "measures 160 GB/s achieved (DeepSeek-V3 report 3.2.2); latency assumed"},
        {"nvlink5", 900, 3, "B200/GB200 NVLink 5: 1.8 TB/s bidirectional; latency assumed"},
        {"pcie4", 32, 10, "PCIe 4.0 x16: ~32 GB/s per direction; latency assumed"},
        {"pcie5", 64, 10, "PCIe 5.0 x16: ~64 GB/s per direction; latency assumed"},
        {"nvlink-c2c", 450, 3,
         "NVLink-C2C between a Grace CPU and its GPUs: 900 GB/s bidirectional (NVIDIA GB200 "
         "NVL72); latency assumed"},
        {"ib-hdr", 25, 5, "InfiniBand HDR 200 Gb/s per GPU NIC; latency assumed"},
        {"ib-ndr", 50, 5, "InfiniBand NDR 400 Gb/s per GPU NIC; latency assumed"},
};

/* comm 1: blocking (enum pp_comm); tp_overlap 1 none, 2 bulk, 3 pipelined (enum pp_tp_overlap) */
static const struct framework_preset frameworks[] = {
        {"megatron", 1, 0, 0, 0, 0, 1, 1, 1, -1, 38, 14, -1,
         "Megatron-LM arguments.py: --overlap-grad-reduce, --overlap-param-gather, "
         "--use-distributed-optimizer and --tp-comm-overlap are off unless given; 1F1B's P2P "
         "sends are batched isend/irecv waited on before the next op, interleaved 1F1B's "
         "separate ones waited on where their data is used (--overlap-p2p-communication, on "
         "by default; schedules.py); Transformer Engine's fused attention; the unfused "
         "vocab-parallel cross entropy (cross_entropy_loss_fusion off); gradients accumulated "
         "in fp32 inside the weight-gradient GEMMs (gradient_accumulation_fusion)"},
        {"nemo", 1, 0, 1, 1, 1, 1, 3, 1, -1, 22, 10, -1,
         "NeMo 2.0 pre-training recipes (llama3 8b/70b/405b): MegatronStrategy with "
         "overlap_grad_reduce, overlap_param_gather and the distributed optimizer on, "
         "tp_comm_overlap on for H100 recipes (TE userbuffers, pipelined); Megatron's sends "
         "(MegatronCommOverlapCallback: overlap_p2p_comm with virtual pipelining); "
         "GPTConfig's cross_entropy_loss_fusion on (Megatron-Core's fused cross entropy)"},
        {"deepspeed", 1, 1, 0, 0, 1, 0, 1, 0, -1, 38, 14, 18,
         "Megatron-DeepSpeed's pipeline engine: ZeRO-1 optimizer sharding, gradients reduced "
         "after the pipeline's last backward, with bf16 by the BF16_Optimizer, which "
         "all-reduces the fp32 gradients whole and all-gathers the parameters after its step; "
         "blocking P2P; --use-flash-attn off by default; Megatron's unfused cross entropy on "
         "fp32 logits; after each micro-batch's backward the BF16_Optimizer adds every bf16 "
         "gradient into its fp32 one (update_hp_grads: the gradient cast to an fp32 "
         "temporary, 2 read and 4 written, then added, 4 + 4 read and 4 written)"},
        {"torchtitan", 0, 0, 1, 1, 1, 1, 1, 1, PP_ATTENTION_FA2, 22, 26, -1,
         "torchtitan: FSDP2 reduce-scatters gradients as each block's backward ends and "
         "gathers parameters ahead of use; PyTorch pipelining's asynchronous sends; SDPA's "
         "flash backend, FlashAttention-2; async TP off by default; the loss is PyTorch's "
         "cross_entropy on fp32 logits, not compiled"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const struct model_preset *preset_models(size_t *count)
{
	*count = COUNT(models);
	return models;
}

const struct gpu_preset *preset_gpus(size_t *count)
{
	*count = COUNT(gpus);
	return gpus;
}

const struct link_preset *preset_links(size_t *count)
{
	*count = COUNT(links);
	return links;
}

const struct framework_preset *preset_frameworks(size_t *count)
{
	*count = COUNT(frameworks);
	return frameworks;
}

/* The tables by kind, as the config names them ("model", "gpu", "link", "framework"). */
static const struct table {
	const char *kind;
	const void *rows;
	size_t count, size;
} tables[] = {
        {"model", models, COUNT(models), sizeof(models[0])},
        {"gpu", gpus, COUNT(gpus), sizeof(gpus[0])},
        {"link", links, COUNT(links), sizeof(links[0])},
        {"framework", frameworks, COUNT(frameworks), sizeof(frameworks[0])},
};

static const struct table *table_of(const char *kind)
{
	for (size_t i = 0; i < COUNT(tables); i++)
		if (strcmp(tables[i].kind, kind) == 0)
			return &tables[i];
	return NULL;
}

/* The name of row i of t: the first member of every preset struct. */
static const char *row_name(const struct table *t, size_t i)
{
	return *(const char *const *)(const void *)((const char *)t->rows + i * t->size);
}

/* Row of the table of kind named name, or NULL. */
static const void *find(const char *kind, const char *name)
{
	const struct table *t = table_of(kind);

	for (size_t i = 0; t != NULL && i < t->count; i++)
		if (strcmp(row_name(t, i), name) == 0)
			return (const char *)t->rows + i * t->size;
	return NULL;
}

const struct model_preset *preset_model(const char *name)
{
	return find("model", name);
}

const struct gpu_preset *preset_gpu(const char *name)
{
	return find("gpu", name);
}

const struct link_preset *preset_link(const char *name)
{
	return find("link", name);
}

const struct framework_preset *preset_framework(const char *name)
{
	return find("framework", name);
}

bool preset_known(const char *kind, const char *name)
{
	return find(kind, name) != NULL;
}

char *preset_names(const char *kind, char *buf, size_t n)
{
	const struct table *t = table_of(kind);
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; t != NULL && i < t->count && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", row_name(t, i));
	return buf;
}
