/* The preset tables: models, GPUs and links, with the source of each figure. */
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
        {"a100-80g", 312, 80, 2039, "nvlink3", "ib-hdr",
         "NVIDIA A100 datasheet: 312 TFLOP/s dense BF16, 80 GB HBM2e at 2039 GB/s (SXM)"},
        {"h100-sxm", 989, 80, 3350, "nvlink4", "ib-ndr",
         "NVIDIA H100 SXM datasheet: 989 TFLOP/s dense BF16 (1979 with sparsity), 80 GB HBM3 at "
         "3.35 TB/s"},
        {"h200", 989, 141, 4800, "nvlink4", "ib-ndr",
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

const struct model_preset *preset_model(const char *name)
{
	for (size_t i = 0; i < COUNT(models); i++)
		if (strcmp(models[i].name, name) == 0)
			return &models[i];
	return NULL;
}

const struct gpu_preset *preset_gpu(const char *name)
{
	for (size_t i = 0; i < COUNT(gpus); i++)
		if (strcmp(gpus[i].name, name) == 0)
			return &gpus[i];
	return NULL;
}

const struct link_preset *preset_link(const char *name)
{
	for (size_t i = 0; i < COUNT(links); i++)
		if (strcmp(links[i].name, name) == 0)
			return &links[i];
	return NULL;
}

char *preset_names(const char *kind, char *buf, size_t n)
{
	size_t len = 0, count = 0;

	buf[0] = '\0';
	if (strcmp(kind, "model") == 0)
		count = COUNT(models);
	else if (strcmp(kind, "gpu") == 0)
		count = COUNT(gpus);
	else if (strcmp(kind, "link") == 0)
		count = COUNT(links);
	for (size_t i = 0; i < count && len < n; i++) {
		const char *name = strcmp(kind, "model") == 0 ? models[i].name
		                   : strcmp(kind, "gpu") == 0 ? gpus[i].name
		                                              : links[i].name;

		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", name);
	}
	return buf;
}
