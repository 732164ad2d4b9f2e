/*
 * The preset tables: models, GPUs and links, with the source of each figure. The lookups by
 * name and the name lists go through one descriptor per table (its kind, rows and row size),
 * since every preset row starts with its name.
 */
#include "ppsim/preset.h"

#include <stdio.h>
#include <string.h>

static const struct model_preset models[] = {
        {"llama3-8b", 32, 4096, 14336, 32, 8, 128256, true, false,
         "Meta Llama 3 8B config.json (Hugging Face)"},
        {"llama3-70b", 80, 8192, 28672, 64, 8, 128256, true, false,
         "Meta Llama 3 70B config.json (Hugging Face); the source document's 8192 x 80"},
        {"llama3-405b", 126, 16384, 53248, 128, 8, 128256, true, false,
         "Meta Llama 3.1 405B config.json (Hugging Face)"},
        {"gpt3-175b", 96, 12288, 49152, 96, 96, 50257, false, true,
         "Brown et al. 2020, Table 2.1 (GPT-3 175B), GPT-2 vocabulary"},
};

static const struct gpu_preset gpus[] = {
        {"a100-80g", 312, 80, 2039, 108, 0.80, 0.60, 0.50, 0.85, 4, "nvlink3", "ib-hdr",
         "NVIDIA A100 datasheet: 312 TFLOP/s dense BF16, 80 GB HBM2e at 2039 GB/s (SXM)"},
        {"h100-sxm", 989, 80, 3350, 132, 0.70, 0.50, 0.40, 0.85, 4, "nvlink4", "ib-ndr",
         "NVIDIA H100 SXM datasheet: 989 TFLOP/s dense BF16 (1979 with sparsity), 80 GB HBM3 at "
         "3.35 TB/s"},
        {"h200", 989, 141, 4800, 132, 0.70, 0.50, 0.40, 0.85, 4, "nvlink4", "ib-ndr",
         "NVIDIA H200 datasheet: 989 TFLOP/s dense BF16, 141 GB HBM3e at 4.8 TB/s"},
};

static const struct link_preset links[] = {
        {"nvlink3", 300, 3, "A100 NVLink 3: 600 GB/s bidirectional; latency assumed"},
        {"nvlink4", 450, 3, "H100 NVLink 4: 900 GB/s bidirectional; latency assumed"},
        {"pcie4", 32, 10, "PCIe 4.0 x16: ~32 GB/s per direction; latency assumed"},
        {"pcie5", 64, 10, "PCIe 5.0 x16: ~64 GB/s per direction; latency assumed"},
        {"ib-hdr", 25, 5, "InfiniBand HDR 200 Gb/s per GPU NIC; latency assumed"},
        {"ib-ndr", 50, 5, "InfiniBand NDR 400 Gb/s per GPU NIC; latency assumed"},
};

/* comm 1: blocking (enum pp_comm); tp_overlap 1 none, 2 bulk, 3 pipelined (enum pp_tp_overlap) */
static const struct framework_preset frameworks[] = {
        {"megatron", 1, 0, 0, 0, 1, 1,
         "Megatron-LM arguments.py: --overlap-grad-reduce, --overlap-param-gather, "
         "--use-distributed-optimizer and --tp-comm-overlap are off unless given; P2P sends are "
         "batched isend/irecv waited on before the next op (schedules.py); Transformer "
         "Engine's fused attention"},
        {"nemo", 1, 1, 1, 1, 3, 1,
         "NeMo 2.0 pre-training recipes (llama3 8b/70b/405b): MegatronStrategy with "
         "overlap_grad_reduce, overlap_param_gather and the distributed optimizer on, "
         "tp_comm_overlap on for H100 recipes (TE userbuffers, pipelined); Megatron's sends"},
        {"deepspeed", 1, 0, 0, 1, 1, 0,
         "Megatron-DeepSpeed's pipeline engine: ZeRO-1 optimizer sharding, gradients reduced "
         "after the pipeline's last backward, blocking P2P; --use-flash-attn off by default"},
        {"torchtitan", 0, 1, 1, 1, 1, 1,
         "torchtitan: FSDP2 reduce-scatters gradients as each block's backward ends and "
         "gathers parameters ahead of use; PyTorch pipelining's asynchronous sends; SDPA's "
         "flash attention; async TP off by default"},
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
