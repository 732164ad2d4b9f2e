/* `ppsim list`: the schedules, presets and report formats, generated from their tables. */
#include <string.h>

#include "cmd.h"
#include "ppsim/preset.h"
#include "ppsim/report.h"
#include "ppsim/sched.h"

/* What each batching policy does, in enum pp_batching order. */
static const char *const policies[] = {
        "a batch runs its prefill, then decodes until all its requests are done",
        "iteration-level: waiting prompts first, else a decode step of each request",
        "decodes first, then prompt chunks, within --chunk-tokens",
        "a prefill pipeline and a decode pipeline, KV caches sent between",
};

int cmd_list(int argc, char **argv)
{
	size_t n;
	const struct sched_desc *const *sd;
	const struct model_preset *mp;
	const struct gpu_preset *gp;
	const struct link_preset *lp;
	const struct report_format *rf;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		puts("Usage: ppsim list\nList the schedules, presets and report formats.");
		return PP_EXIT_OK;
	}
	if (argc > 1)
		return cmd_usage("list: unexpected argument '%s'", argv[1]);
	puts("Schedules (--schedule, in any case):");
	sd = sched_table(&n);
	for (size_t i = 0; i < n; i++)
		printf("  %-15s %s\n", sd[i]->name, sd[i]->summary);
	puts("\nPyTorch's schedule names (--schedule takes them too, with or without \"Schedule\"):");
	for (size_t i = 0; i < n; i++)
		if (sd[i]->torch != NULL)
			printf("  %-22s %s\n", sd[i]->torch, sd[i]->name);
	puts("\nModels (--model): layers, hidden, ffn, heads/kv heads, vocab");
	mp = preset_models(&n);
	for (size_t i = 0; i < n; i++)
		printf("  %-12s %3d layers, hidden %5d, ffn %5d, %3d/%-2d heads, vocab %6d, %s "
		       "MLP%s\n",
		       mp[i].name, mp[i].layers, mp[i].hidden, mp[i].ffn, mp[i].heads,
		       mp[i].kv_heads, mp[i].vocab, mp[i].gated_mlp ? "gated" : "plain",
		       mp[i].tied ? ", tied embeddings" : "");
	puts("\nGPUs (--gpu): peak dense bf16, memory and its bandwidth, default links");
	gp = preset_gpus(&n);
	for (size_t i = 0; i < n; i++)
		printf("  %-12s %4g TFLOP/s, %3g GB at %4g GB/s, %s inside a node, %s between "
		       "nodes\n",
		       gp[i].name, gp[i].tflops, gp[i].memory_gb, gp[i].memory_bandwidth, gp[i].link,
		       gp[i].inter_link);
	puts("\nLinks (--link, --inter-link): bandwidth per direction, latency per message");
	lp = preset_links(&n);
	for (size_t i = 0; i < n; i++)
		printf("  %-12s %4g GB/s, %3g us\n", lp[i].name, lp[i].bandwidth, lp[i].latency);
	puts("\nBatching policies (ppsim serve --batching):");
	for (int b = 0; b < (int)(sizeof(policies) / sizeof(policies[0])); b++)
		printf("  %-14s %s\n", config_batching_name((enum pp_batching)b), policies[b]);
	puts("\nReport formats (--format):");
	rf = report_formats(&n);
	for (size_t i = 0; i < n; i++)
		printf("  %-12s %s\n", rf[i].name, rf[i].summary);
	return PP_EXIT_OK;
}
