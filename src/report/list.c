/*
 * `ppsim list`: the tables users pick names from (the schedules and PyTorch's names for them,
 * the model, GPU and link presets, the batching policies, the report formats), read from the
 * tables themselves. Text is one section per table, a title and a line per row; JSON is one
 * object with an array per table, each row with every figure the table holds.
 */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/json_text.h"
#include "ppsim/config.h"
#include "ppsim/preset.h"
#include "ppsim/report.h"
#include "ppsim/sched.h"

#include "formats.h"

/* What each batching policy does, in enum pp_batching order. */
static const char *const policies[] = {
        "a batch runs its prefill, then decodes until all its requests are done",
        "iteration-level: waiting prompts first, else a decode step of each request",
        "decodes first, then prompt chunks, within --chunk-tokens",
        "a prefill pipeline and a decode pipeline, KV caches sent between",
};
#define NPOLICIES ((int)(sizeof(policies) / sizeof(policies[0])))

static void text_schedules(FILE *out)
{
	size_t n;
	const struct sched_desc *sd = sched_table(&n);
	int width = 0; /* the longest name's */

	for (size_t i = 0; i < n; i++)
		width = (int)strlen(sd[i].name) > width ? (int)strlen(sd[i].name) : width;
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-*s %s\n", width, sd[i].name, sd[i].summary);
}

static void text_torch_names(FILE *out)
{
	size_t n;
	const struct sched_desc *sd = sched_table(&n);

	for (size_t i = 0; i < n; i++)
		if (sd[i].torch != NULL)
			fprintf(out, "  %-22s %s\n", sd[i].torch, sd[i].name);
}

/* Prints the n rows of a preset table (each size bytes), a line each by line. */
static void text_presets(FILE *out, const void *rows, size_t n, size_t size,
                         void (*line)(FILE *out, const void *row))
{
	for (size_t i = 0; i < n; i++)
		line(out, (const char *)rows + i * size);
}

static void model_line(FILE *out, const void *row)
{
	const struct model_preset *m = row;

	fprintf(out, "  %-15s %3d layers, hidden %5d, ffn %5d, %3d/%-2d heads, vocab %6d, %s MLP%s",
	        m->name, m->layers, m->hidden, m->ffn, m->heads, m->kv_heads, m->vocab,
	        m->gated_mlp ? "gated" : "plain", m->tied ? ", tied embeddings" : "");
	if (m->head_dim > 0)
		fprintf(out, ", head size %d", m->head_dim);
	if (m->experts > 0)
		fprintf(out, ", %d experts (%d a token, ffn %d)", m->experts, m->top_k,
		        m->expert_ffn);
	if (m->shared_experts > 0)
		fprintf(out, " and %d shared", m->shared_experts);
	if (m->dense_layers > 0)
		fprintf(out, " after %d dense layers", m->dense_layers);
	if (m->kv_lora_rank > 0)
		fprintf(out, ", latent attention");
	if (m->mtp_layers > 0)
		fprintf(out, ", %d MTP layer%s", m->mtp_layers, m->mtp_layers > 1 ? "s" : "");
	fputc('\n', out);
}

static void gpu_line(FILE *out, const void *row)
{
	const struct gpu_preset *g = row;

	char fp8[16] = "   -";

	if (g->fp8_tflops > 0)
		snprintf(fp8, sizeof(fp8), "%4g", g->fp8_tflops);
	fprintf(out,
	        "  %-12s %4g TFLOP/s (fp8 %s), %3g GB at %4g GB/s, %s inside a node, %s between "
	        "nodes\n",
	        g->name, g->tflops, fp8, g->memory_gb, g->memory_bandwidth, g->link, g->inter_link);
}

static void link_line(FILE *out, const void *row)
{
	const struct link_preset *l = row;

	fprintf(out, "  %-12s %4g GB/s, %3g us\n", l->name, l->bandwidth, l->latency);
}

static void text_models(FILE *out)
{
	size_t n;
	const struct model_preset *mp = preset_models(&n);

	text_presets(out, mp, n, sizeof(*mp), model_line);
}

static void text_gpus(FILE *out)
{
	size_t n;
	const struct gpu_preset *gp = preset_gpus(&n);

	text_presets(out, gp, n, sizeof(*gp), gpu_line);
}

static void text_links(FILE *out)
{
	size_t n;
	const struct link_preset *lp = preset_links(&n);

	text_presets(out, lp, n, sizeof(*lp), link_line);
}

static void text_policies(FILE *out)
{
	for (int b = 0; b < NPOLICIES; b++)
		fprintf(out, "  %-14s %s\n", config_batching_name((enum pp_batching)b),
		        policies[b]);
}

static void text_formats(FILE *out)
{
	size_t n;
	const struct report_format *rf = report_formats(&n);

	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-12s %s\n", rf[i].name, rf[i].summary);
}

int report_list_text(FILE *out)
{
	static const struct {
		const char *title;
		void (*rows)(FILE *out);
	} sections[] = {
	        {"Schedules (--schedule, in any case):", text_schedules},
	        {"PyTorch's schedule names (--schedule takes them too, with or without "
	         "\"Schedule\"):",
	         text_torch_names},
	        {"Models (--model): layers, hidden, ffn, heads/kv heads, vocab", text_models},
	        {"GPUs (--gpu): peak dense bf16 (fp8), memory and its bandwidth, default links",
	         text_gpus},
	        {"Links (--link, --inter-link): bandwidth per direction, latency per message",
	         text_links},
	        {"Batching policies (ppsim serve --batching):", text_policies},
	        {"Report formats (--format):", text_formats},
	};

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		fprintf(out, "%s%s\n", i ? "\n" : "", sections[i].title);
		sections[i].rows(out);
	}
	return 0;
}

/*
 * The JSON side adds through these, which keep going after a failed allocation and clear *ok,
 * so that an object missing a member is never printed as if it were whole.
 */
static void add(cJSON *to, const char *key, cJSON *item, bool *ok)
{
	bool added = item != NULL && (key != NULL ? cJSON_AddItemToObject(to, key, item)
	                                          : cJSON_AddItemToArray(to, item));

	if (!added) {
		cJSON_Delete(item);
		*ok = false;
	}
}

static void add_text(cJSON *to, const char *key, const char *text, bool *ok)
{
	add(to, key, text != NULL ? json_string(text) : cJSON_CreateNull(), ok);
}

static void add_number(cJSON *to, const char *key, double x, bool *ok)
{
	add(to, key, cJSON_CreateNumber(x), ok);
}

static void add_bool(cJSON *to, const char *key, bool b, bool *ok)
{
	add(to, key, cJSON_CreateBool(b), ok);
}

/* A new object appended to array, or NULL (with *ok cleared). */
static cJSON *add_row(cJSON *array, bool *ok)
{
	cJSON *o = cJSON_CreateObject();

	add(array, NULL, o, ok);
	return o != NULL && *ok ? o : NULL;
}

static void json_schedules(cJSON *a, bool *ok)
{
	size_t n;
	const struct sched_desc *sd = sched_table(&n);
	cJSON *o;

	for (size_t i = 0; i < n && (o = add_row(a, ok)) != NULL; i++) {
		add_text(o, "name", sd[i].name, ok);
		add_text(o, "torch", sd[i].torch, ok);
		add_text(o, "summary", sd[i].summary, ok);
		add_text(o, "placement", sd[i].placement == PLACE_V ? "V" : "loop", ok);
		add_bool(o, "split", sd[i].split, ok);
	}
}

/* A member of a preset row in JSON: its key, the kind of its field and where the field is. */
struct field {
	const char *key;
	enum { TEXT, INT, NUMBER, BOOL } kind;
	size_t offset;
};

#define MODEL(kind, f)                                                                             \
	{                                                                                          \
#f, kind, offsetof(struct model_preset, f)                                         \
	}
#define GPU(kind, f)                                                                               \
	{                                                                                          \
#f, kind, offsetof(struct gpu_preset, f)                                           \
	}
#define LINK(kind, f)                                                                              \
	{                                                                                          \
#f, kind, offsetof(struct link_preset, f)                                          \
	}

static const struct field model_fields[] = {
        MODEL(TEXT, name), MODEL(INT, layers),   MODEL(INT, hidden), MODEL(INT, ffn),
        MODEL(INT, heads), MODEL(INT, kv_heads), MODEL(INT, vocab),  MODEL(BOOL, gated_mlp),
        MODEL(BOOL, tied), MODEL(TEXT, source), MODEL(INT, head_dim), MODEL(INT, experts),
        MODEL(INT, top_k), MODEL(INT, expert_ffn), MODEL(INT, shared_experts),
        MODEL(INT, dense_layers), MODEL(INT, v_head_dim), MODEL(INT, q_lora_rank),
        MODEL(INT, kv_lora_rank), MODEL(INT, rope_dim), MODEL(INT, mtp_layers),
};
static const struct field gpu_fields[] = {
        GPU(TEXT, name),
        GPU(NUMBER, tflops),
        GPU(NUMBER, fp8_tflops),
        GPU(NUMBER, memory_gb),
        GPU(NUMBER, memory_bandwidth),
        GPU(INT, sms),
        GPU(NUMBER, gemm_efficiency),
        GPU(NUMBER, fp8_gemm_efficiency),
        GPU(NUMBER, attention_efficiency),
        GPU(NUMBER, attention_bwd_efficiency),
        GPU(NUMBER, fa2_attention_efficiency),
        GPU(NUMBER, fa2_attention_bwd_efficiency),
        GPU(NUMBER, memory_efficiency),
        GPU(NUMBER, kernel_overhead),
        GPU(NUMBER, sustained),
        GPU(TEXT, link),
        GPU(TEXT, inter_link),
        GPU(TEXT, source),
};
static const struct field link_fields[] = {
        LINK(TEXT, name),
        LINK(NUMBER, bandwidth),
        LINK(NUMBER, latency),
        LINK(TEXT, source),
};
static const struct field format_fields[] = {
        {"name", TEXT, offsetof(struct report_format, name)},
        {"summary", TEXT, offsetof(struct report_format, summary)},
};

/* Appends the n rows of a preset table (each size bytes) to a, a member per field. */
static void add_presets(cJSON *a, const void *rows, size_t n, size_t size,
                        const struct field *fields, size_t nfields, bool *ok)
{
	cJSON *o;

	for (size_t i = 0; i < n && (o = add_row(a, ok)) != NULL; i++) {
		const char *row = (const char *)rows + i * size;

		for (const struct field *f = fields; f < fields + nfields; f++) {
			const void *at = row + f->offset;

			if (f->kind == TEXT)
				add_text(o, f->key, *(const char *const *)at, ok);
			else if (f->kind == INT)
				add_number(o, f->key, *(const int *)at, ok);
			else if (f->kind == NUMBER)
				add_number(o, f->key, *(const double *)at, ok);
			else
				add_bool(o, f->key, *(const bool *)at, ok);
		}
	}
}

#define FIELDS(t) (t), sizeof(t) / sizeof((t)[0])

static void json_models(cJSON *a, bool *ok)
{
	size_t n;
	const struct model_preset *mp = preset_models(&n);

	add_presets(a, mp, n, sizeof(*mp), FIELDS(model_fields), ok);
}

static void json_gpus(cJSON *a, bool *ok)
{
	size_t n;
	const struct gpu_preset *gp = preset_gpus(&n);

	add_presets(a, gp, n, sizeof(*gp), FIELDS(gpu_fields), ok);
}

static void json_links(cJSON *a, bool *ok)
{
	size_t n;
	const struct link_preset *lp = preset_links(&n);

	add_presets(a, lp, n, sizeof(*lp), FIELDS(link_fields), ok);
}

static void json_policies(cJSON *a, bool *ok)
{
	cJSON *o;

	for (int b = 0; b < NPOLICIES && (o = add_row(a, ok)) != NULL; b++) {
		add_text(o, "name", config_batching_name((enum pp_batching)b), ok);
		add_text(o, "summary", policies[b], ok);
	}
}

static void json_formats(cJSON *a, bool *ok)
{
	size_t n;
	const struct report_format *rf = report_formats(&n);

	add_presets(a, rf, n, sizeof(*rf), FIELDS(format_fields), ok);
}

int report_list_json(FILE *out)
{
	static const struct {
		const char *key;
		void (*rows)(cJSON *array, bool *ok);
	} tables[] = {
	        {"schedules", json_schedules}, {"models", json_models},
	        {"gpus", json_gpus},           {"links", json_links},
	        {"batching", json_policies},   {"formats", json_formats},
	};
	cJSON *root = cJSON_CreateObject();
	bool ok = root != NULL;

	add(root, "schema_version", cJSON_CreateNumber(REPORT_SCHEMA_VERSION), &ok);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && ok; i++) {
		cJSON *a = cJSON_CreateArray();

		add(root, tables[i].key, a, &ok);
		if (ok)
			tables[i].rows(a, &ok);
	}
	if (!ok) {
		cJSON_Delete(root);
		return -1;
	}
	return report_json_print(out, root);
}
