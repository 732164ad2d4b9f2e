/* Unit tests of preset: the published figures in the tables, exact lookups and name lists. */
#include <string.h>

#include "ppsim/preset.h"
#include "unit.h"

static void preset_models_hold_the_shapes_of_the_public_configs(void)
{
	/* layers, hidden, ffn, heads, kv heads, vocab: the models' config.json files and the
	 * GPT-3 paper (Table 2.1) with the GPT-2 vocabulary */
	static const struct {
		const char *name;
		int layers, hidden, ffn, heads, kv_heads, vocab;
	} want[] = {
	        {"llama3-8b", 32, 4096, 14336, 32, 8, 128256},
	        {"llama3-70b", 80, 8192, 28672, 64, 8, 128256},
	        {"llama3-405b", 126, 16384, 53248, 128, 8, 128256},
	        {"gpt3-175b", 96, 12288, 49152, 96, 96, 50257},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct model_preset *m = preset_model(want[i].name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_STRING_EQUAL(m->name, want[i].name);
		CU_ASSERT_EQUAL(m->layers, want[i].layers);
		CU_ASSERT_EQUAL(m->hidden, want[i].hidden);
		CU_ASSERT_EQUAL(m->ffn, want[i].ffn);
		CU_ASSERT_EQUAL(m->heads, want[i].heads);
		CU_ASSERT_EQUAL(m->kv_heads, want[i].kv_heads);
		CU_ASSERT_EQUAL(m->vocab, want[i].vocab);
		CU_ASSERT_PTR_NOT_NULL(m->source);
	}
}

static void preset_models_give_llama_a_gated_untied_mlp_and_gpt3_a_plain_tied_one(void)
{
	static const char *const llamas[] = {"llama3-8b", "llama3-70b", "llama3-405b"};
	const struct model_preset *gpt3 = preset_model("gpt3-175b");

	for (size_t i = 0; i < sizeof(llamas) / sizeof(llamas[0]); i++) {
		const struct model_preset *m = preset_model(llamas[i]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_TRUE(m->gated_mlp);
		CU_ASSERT_FALSE(m->tied);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(gpt3);
	CU_ASSERT_FALSE(gpt3->gated_mlp);
	CU_ASSERT_TRUE(gpt3->tied);
}

static void preset_gpus_hold_the_dense_bf16_and_fp8_peaks_and_the_memory(void)
{
	/* the datasheets' dense figures (docs/presets.md): TFLOP/s bf16 and fp8, GB, GB/s, SMs */
	static const struct {
		const char *name;
		double tflops, fp8_tflops, memory_gb, bandwidth;
		int sms;
		const char *link;
	} want[] = {
	        {"a100-80g", 312, 0, 80, 2039, 108, "nvlink3"},
	        {"h100-sxm", 989, 1979, 80, 3350, 132, "nvlink4"},
	        {"h100-pcie", 756, 1513, 80, 2000, 114, "pcie5"},
	        {"h200", 989, 1979, 141, 4800, 132, "nvlink4"},
	        {"b200", 2250, 4500, 180, 8000, 148, "nvlink5"},
	        {"gb200", 2500, 5000, 186, 8000, 148, "nvlink5"},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct gpu_preset *g = preset_gpu(want[i].name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(g);
		CU_ASSERT_STRING_EQUAL(g->name, want[i].name);
		ASSERT_NEAR(g->tflops, want[i].tflops);
		ASSERT_NEAR(g->fp8_tflops, want[i].fp8_tflops);
		ASSERT_NEAR(g->memory_gb, want[i].memory_gb);
		ASSERT_NEAR(g->memory_bandwidth, want[i].bandwidth);
		CU_ASSERT_EQUAL(g->sms, want[i].sms);
		CU_ASSERT_STRING_EQUAL(g->link, want[i].link);
		CU_ASSERT_PTR_NOT_NULL(g->source);
	}
}

static void preset_gpus_take_their_gemm_shares_from_the_measured_mamf(void)
{
	/* Bekman's MAMF table: measured TFLOP/s over the peak, rounded to two places */
	static const struct {
		const char *name;
		double measured, fp8_measured;
	} want[] = {
	        {"h100-sxm", 794.5, 1402.6},
	        {"h200", 794.5, 1453.4},
	        {"b200", 1745.0, 3432.5},
	        {"gb200", 1822.0, 3615.6},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct gpu_preset *g = preset_gpu(want[i].name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(g);
		CU_ASSERT_DOUBLE_EQUAL(g->gemm_efficiency, want[i].measured / g->tflops, 0.005);
		CU_ASSERT_DOUBLE_EQUAL(g->fp8_gemm_efficiency, want[i].fp8_measured / g->fp8_tflops,
		                       0.005);
	}
	/* the A100 has no fp8 tensor cores */
	CU_ASSERT_EQUAL(preset_gpu("a100-80g")->fp8_gemm_efficiency, 0);
}

static void preset_gpus_default_to_links_that_exist(void)
{
	size_t n;
	const struct gpu_preset *g = preset_gpus(&n);

	CU_ASSERT_EQUAL(n, 7);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_PTR_NOT_NULL(preset_link(g[i].link));
		CU_ASSERT_PTR_NOT_NULL(preset_link(g[i].inter_link));
	}
}

static void preset_links_hold_the_bandwidth_per_direction_and_a_positive_latency(void)
{
	static const struct {
		const char *name;
		double bandwidth;
	} want[] = {
	        {"nvlink3", 300}, {"nvlink4", 450}, {"nvlink5", 900}, {"pcie4", 32},
	        {"pcie5", 64},    {"ib-hdr", 25},   {"ib-ndr", 50},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct link_preset *l = preset_link(want[i].name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(l);
		CU_ASSERT_STRING_EQUAL(l->name, want[i].name);
		ASSERT_NEAR(l->bandwidth, want[i].bandwidth);
		CU_ASSERT_TRUE(l->latency > 0);
		CU_ASSERT_PTR_NOT_NULL(l->source);
	}
}

static void preset_tables_find_every_row_by_its_own_name(void)
{
	size_t nm, ng, nl;
	const struct model_preset *m = preset_models(&nm);
	const struct gpu_preset *g = preset_gpus(&ng);
	const struct link_preset *l = preset_links(&nl);

	CU_ASSERT_EQUAL(nm, 9);
	CU_ASSERT_EQUAL(ng, 7);
	CU_ASSERT_EQUAL(nl, 9);
	for (size_t i = 0; i < nm; i++)
		CU_ASSERT_PTR_EQUAL(preset_model(m[i].name), &m[i]);
	for (size_t i = 0; i < ng; i++)
		CU_ASSERT_PTR_EQUAL(preset_gpu(g[i].name), &g[i]);
	for (size_t i = 0; i < nl; i++)
		CU_ASSERT_PTR_EQUAL(preset_link(l[i].name), &l[i]);
}

static void preset_lookups_are_exact_and_case_sensitive(void)
{
	static const char *const models[] = {
	        "Llama3-70b",  "LLAMA3-70B",  "llama3-70",   "llama3-70b ",
	        " llama3-70b", "llama3-70bx", "llama-3-70b", ""};
	static const char *const gpus[] = {"A100-80G", "a100", "a100-80", "h100", "H200", ""};
	static const char *const links[] = {"NVLink3", "nvlink", "pcie", "PCIe4",
	                                    "ib",      "IB-NDR", ""};

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		CU_ASSERT_PTR_NULL(preset_model(models[i]));
	for (size_t i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++)
		CU_ASSERT_PTR_NULL(preset_gpu(gpus[i]));
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		CU_ASSERT_PTR_NULL(preset_link(links[i]));
}

static void preset_lookups_search_only_their_own_table(void)
{
	CU_ASSERT_PTR_NULL(preset_model("a100-80g"));
	CU_ASSERT_PTR_NULL(preset_model("nvlink3"));
	CU_ASSERT_PTR_NULL(preset_gpu("llama3-8b"));
	CU_ASSERT_PTR_NULL(preset_gpu("nvlink4"));
	CU_ASSERT_PTR_NULL(preset_link("h200"));
	CU_ASSERT_PTR_NULL(preset_link("gpt3-175b"));
}

static void preset_names_lists_each_table_in_order_separated_by_commas(void)
{
	char buf[256];

	CU_ASSERT_STRING_EQUAL(preset_names("model", buf, sizeof(buf)),
	                       "llama3-8b, llama3-70b, llama3-405b, gpt3-175b, deepseek-v3, "
	                       "mixtral-8x7b, mixtral-8x22b, qwen3-30b-a3b, qwen3-235b-a22b");
	CU_ASSERT_STRING_EQUAL(preset_names("gpu", buf, sizeof(buf)),
	                       "a100-80g, h100-sxm, h800, h100-pcie, h200, b200, gb200");
	CU_ASSERT_STRING_EQUAL(preset_names("link", buf, sizeof(buf)),
	                       "nvlink3, nvlink4, nvlink-h800, nvlink5, pcie4, pcie5, nvlink-c2c, ib-hdr, ib-ndr");
	CU_ASSERT_PTR_EQUAL(preset_names("link", buf, sizeof(buf)), buf);
}

static void preset_known_finds_a_name_in_its_own_table_only(void)
{
	size_t n;
	const struct gpu_preset *g = preset_gpus(&n);

	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_TRUE(preset_known("gpu", g[i].name));
		CU_ASSERT_FALSE(preset_known("link", g[i].name));
	}
	CU_ASSERT_TRUE(preset_known("link", "nvlink3"));
	CU_ASSERT_TRUE(preset_known("model", "llama3-70b"));
	CU_ASSERT_FALSE(preset_known("model", "LLAMA3-70B"));
	CU_ASSERT_FALSE(preset_known("models", "llama3-70b"));
	CU_ASSERT_TRUE(preset_known("gpu", PRESET_DEFAULT_GPU));
}

static void preset_names_of_an_unknown_kind_is_empty(void)
{
	char buf[16] = "junk";

	CU_ASSERT_STRING_EQUAL(preset_names("models", buf, sizeof(buf)), "");
	CU_ASSERT_STRING_EQUAL(preset_names("Model", buf, sizeof(buf)), "");
	CU_ASSERT_STRING_EQUAL(preset_names("", buf, sizeof(buf)), "");
}

static void preset_names_truncates_to_the_buffer_without_writing_past_it(void)
{
	static const char *const full = "nvlink3, nvlink4, nvlink-h800, nvlink5, pcie4, pcie5, nvlink-c2c, ib-hdr, ib-ndr";

	for (size_t n = 1; n <= strlen(full) + 1; n++) {
		char buf[96 + 16];

		memset(buf, '#', sizeof(buf));
		preset_names("link", buf, n);
		CU_ASSERT_TRUE(strlen(buf) < n);
		CU_ASSERT_EQUAL(strncmp(buf, full, strlen(buf)), 0);
		for (size_t i = n; i < sizeof(buf); i++)
			CU_ASSERT_EQUAL(buf[i], '#');
	}
}

static const struct unit_test tests[] = {
        UNIT_TEST(preset_models_hold_the_shapes_of_the_public_configs),
        UNIT_TEST(preset_models_give_llama_a_gated_untied_mlp_and_gpt3_a_plain_tied_one),
        UNIT_TEST(preset_gpus_hold_the_dense_bf16_and_fp8_peaks_and_the_memory),
        UNIT_TEST(preset_gpus_take_their_gemm_shares_from_the_measured_mamf),
        UNIT_TEST(preset_gpus_default_to_links_that_exist),
        UNIT_TEST(preset_links_hold_the_bandwidth_per_direction_and_a_positive_latency),
        UNIT_TEST(preset_tables_find_every_row_by_its_own_name),
        UNIT_TEST(preset_lookups_are_exact_and_case_sensitive),
        UNIT_TEST(preset_lookups_search_only_their_own_table),
        UNIT_TEST(preset_names_lists_each_table_in_order_separated_by_commas),
        UNIT_TEST(preset_known_finds_a_name_in_its_own_table_only),
        UNIT_TEST(preset_names_of_an_unknown_kind_is_empty),
        UNIT_TEST(preset_names_truncates_to_the_buffer_without_writing_past_it),
        {NULL, NULL},
};

const struct unit_suite suite_preset = {"preset", tests};
