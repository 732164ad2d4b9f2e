/*
 * `ppsim list`: the schedules, presets, batching policies and report formats, generated from
 * their tables: one section per table, each a title and a writer of its rows.
 */
#include <stdio.h>
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

static void list_schedules(void)
{
	size_t n;
	const struct sched_desc *const *sd = sched_table(&n);

	for (size_t i = 0; i < n; i++)
		printf("  %-15s %s\n", sd[i]->name, sd[i]->summary);
}

static void list_torch_names(void)
{
	size_t n;
	const struct sched_desc *const *sd = sched_table(&n);

	for (size_t i = 0; i < n; i++)
		if (sd[i]->torch != NULL)
			printf("  %-22s %s\n", sd[i]->torch, sd[i]->name);
}

static void list_models(void)
{
	size_t n;
	const struct model_preset *mp = preset_models(&n);

	for (const struct model_preset *m = mp; m < mp + n; m++)
		printf("  %-12s %3d layers, hidden %5d, ffn %5d, %3d/%-2d heads, vocab %6d, %s "
		       "MLP%s\n",
		       m->name, m->layers, m->hidden, m->ffn, m->heads, m->kv_heads, m->vocab,
		       m->gated_mlp ? "gated" : "plain", m->tied ? ", tied embeddings" : "");
}

static void list_gpus(void)
{
	size_t n;
	const struct gpu_preset *gp = preset_gpus(&n);

	for (const struct gpu_preset *g = gp; g < gp + n; g++)
		printf("  %-12s %4g TFLOP/s, %3g GB at %4g GB/s, %s inside a node, %s between "
		       "nodes\n",
		       g->name, g->tflops, g->memory_gb, g->memory_bandwidth, g->link,
		       g->inter_link);
}

static void list_links(void)
{
	size_t n;
	const struct link_preset *lp = preset_links(&n);

	for (const struct link_preset *l = lp; l < lp + n; l++)
		printf("  %-12s %4g GB/s, %3g us\n", l->name, l->bandwidth, l->latency);
}

static void list_policies(void)
{
	for (int b = 0; b < (int)(sizeof(policies) / sizeof(policies[0])); b++)
		printf("  %-14s %s\n", config_batching_name((enum pp_batching)b), policies[b]);
}

static void list_formats(void)
{
	size_t n;
	const struct report_format *rf = report_formats(&n);

	for (size_t i = 0; i < n; i++)
		printf("  %-12s %s\n", rf[i].name, rf[i].summary);
}

/* The sections of the listing, in order: a title line, then the rows of one table. */
static const struct {
	const char *title;
	void (*rows)(void);
} sections[] = {
        {"Schedules (--schedule, in any case):", list_schedules},
        {"PyTorch's schedule names (--schedule takes them too, with or without \"Schedule\"):",
         list_torch_names},
        {"Models (--model): layers, hidden, ffn, heads/kv heads, vocab", list_models},
        {"GPUs (--gpu): peak dense bf16, memory and its bandwidth, default links", list_gpus},
        {"Links (--link, --inter-link): bandwidth per direction, latency per message", list_links},
        {"Batching policies (ppsim serve --batching):", list_policies},
        {"Report formats (--format):", list_formats},
};

int cmd_list(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		puts("Usage: ppsim list\nList the schedules, presets and report formats.");
		return PP_EXIT_OK;
	}
	if (argc > 1)
		return cmd_usage("list: unexpected argument '%s'", argv[1]);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		printf("%s%s\n", i ? "\n" : "", sections[i].title);
		sections[i].rows();
	}
	return PP_EXIT_OK;
}
