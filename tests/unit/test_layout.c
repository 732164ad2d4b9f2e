/* Layer layouts: Megatron-LM's strings read and written, its flags and torchtitan's settings,
 * the default splits of a layer count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/layout.h"
#include "unit.h"

/* The stages of l as the fixture writes them: "Ettt tt - mL". */
static void stage_words(const struct layer_layout *l, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int s = 0; s < l->S && len + 64 < n; s++) {
		size_t at = len;

		if (s > 0)
			buf[len++] = ' ';
		at = len;
		if (l->embed == s)
			buf[len++] = 'E';
		for (int i = 0; i < l->layers[s] && len + 8 < n; i++)
			buf[len++] = 't';
		for (int i = 0; l->mtp_stage == s && i < l->mtp && len + 8 < n; i++)
			buf[len++] = 'm';
		if (l->loss == s)
			buf[len++] = 'L';
		if (len == at)
			buf[len++] = '-';
		buf[len] = '\0';
	}
}

/* Parses text, which must pass, into a new layout (freed by the caller). */
static struct layer_layout *parsed(const char *text)
{
	struct layer_layout *l = unit_calloc(1, sizeof(*l));
	struct pp_error err = {0};

	if (layout_parse(text, l, &err) != 0)
		fprintf(stderr, "\n'%s': %s\n", text, err.msg);
	CU_ASSERT_EQUAL_FATAL(err.kind, PP_ERR_NONE);
	return l;
}

/* Writes l, reads it back and checks it is l. */
static void assert_round_trip(const struct layer_layout *l)
{
	char *text = unit_calloc(1, 1 << 16);
	struct layer_layout *back;

	CU_ASSERT(layout_megatron(l, text, 1 << 16) < 1 << 16);
	back = parsed(text);
	CU_ASSERT(layout_equal(l, back));
	free(back);
	free(text);
}

static void layout_reads_the_layouts_of_megatrons_docs_and_tests_to_their_stages(void)
{
	FILE *f = fopen("tests/layouts/megatron.txt", "r");
	char line[4096], got[4096];
	int entries = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *tab = strchr(line, '\t'), *want;
		struct layer_layout *l;
		struct pp_error err = {0};

		if (line[0] == '#' || tab == NULL)
			continue;
		*tab = '\0';
		want = tab + 1;
		want[strcspn(want, "\n")] = '\0';
		entries++;
		l = unit_calloc(1, sizeof(*l));
		if (strncmp(want, "error: ", 7) == 0) {
			CU_ASSERT_EQUAL(layout_parse(line, l, &err), -1);
			CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want + 7));
		} else {
			CU_ASSERT_EQUAL(layout_parse(line, l, &err), 0);
			stage_words(l, got, sizeof(got));
			if (strcmp(got, want) != 0)
				fprintf(stderr, "\n'%s': got %s, want %s\n", line, got, want);
			CU_ASSERT_STRING_EQUAL(got, want);
			assert_round_trip(l);
		}
		free(l);
	}
	fclose(f);
	CU_ASSERT(entries >= 15);
}

static void layout_unrolls_groups_and_runs_as_megatrons_regular_expressions_do(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	        {"E(t|)*2,tL", "Et t tL"},         /* commas are dropped */
	        {"E|(|t)*2,tL", "E - t ttL"},      /* "(|ab)*2,cd -> |ab|abcd" */
	        {"Et*0|t*10L", "E ttttttttttL"},   /* a count of 0, and of two digits */
	        {"E|(t*2|)*2L", "E tt tt L"},      /* groups unroll before runs */
	        {"E|t|*2tL", "E t - tL"},          /* x*N repeats any character, '|' too */
	        {"(E|)*1t|(t)*2L", "E t ttL"},     /* a group without '|' */
	};
	char got[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct layer_layout *l = parsed(cases[i].text);

		stage_words(l, got, sizeof(got));
		if (strcmp(got, cases[i].want) != 0)
			fprintf(stderr, "\n'%s': got %s\n", cases[i].text, got);
		CU_ASSERT_STRING_EQUAL(got, cases[i].want);
		free(l);
	}
}

static void layout_refuses_what_megatron_refuses_saying_why(void)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
	        {"", "is empty"},
	        {",,", "is empty"},
	        {"E|t L", "' ' is not a layer"},
	        {"E|x|L", "'x' is not a layer"},
	        {"E|(tt)|L", "'(' is not a layer"},       /* a group needs its count */
	        {"E|((t|)*2)*2|L", "'(' is not a layer"}, /* groups do not nest */
	        {"E|t**2|L", "'*' is not a layer"},
	        {"t|EtL", "the embedding (E) must be the first layer"},
	        {"EE|tL", "more than once"},
	        {"Et|L|t", "the loss (L) must be the last layer"},
	        {"Et|LL", "the loss (L) must be the last layer"},
	        {"Et|mt|L", "decoder layers (t) must come before the MTP layers (m)"},
	        {"Et|m|m|L", "the MTP layers (m) must all be in one stage"},
	        {"Et|t", "has no loss (L)"},
	        {"t|tL", "has no embedding (E)"},
	        {"E|t*99999999|L", "unrolls to more than"},
	        {"E|(t|)*2000L", "has more than 1024 stages"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct layer_layout *l = unit_calloc(1, sizeof(*l));
		struct pp_error err = {0};

		CU_ASSERT_EQUAL(layout_parse(cases[i].text, l, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		if (strstr(err.msg, cases[i].why) == NULL)
			fprintf(stderr, "\n'%s': %s\n", cases[i].text, err.msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[i].why));
		free(l);
	}
}

static void layout_parse_takes_1024_stages_and_refuses_1025(void)
{
	struct layer_layout *l = unit_calloc(1, sizeof(*l));
	struct pp_error err = {0};

	/* E, 1022 stages of one layer, L: 1024 stages, the last one's layer at index 1023 */
	CU_ASSERT_EQUAL_FATAL(layout_parse("E|(t|)*1022L", l, &err), 0);
	CU_ASSERT_EQUAL(l->S, 1024);
	CU_ASSERT_EQUAL(l->layers[1022], 1);
	CU_ASSERT_EQUAL(l->layers[1023], 0);
	CU_ASSERT_EQUAL(l->loss, 1023);
	CU_ASSERT_EQUAL(layout_parse("E|(t|)*1022tL", l, &err), 0);
	CU_ASSERT_EQUAL(l->layers[1023], 1);
	CU_ASSERT_EQUAL(layout_parse("E|(t|)*1023L", l, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "has more than 1024 stages"));
	CU_ASSERT_EQUAL(layout_parse("E|(t|)*1023tL", l, &err), -1);
	free(l);
}

/* A small counter-based generator: the tests' layouts depend on the seed alone. */
static unsigned next(unsigned long long *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(*x >> 33);
}

static void layout_round_trips_random_layouts_through_megatrons_string(void)
{
	unsigned long long seed = 39;
	struct layer_layout *l = unit_calloc(1, sizeof(*l));

	for (int round = 0; round < 2000; round++) {
		int S = 1 + (int)(next(&seed) % (round % 10 == 0 ? 200 : 12));
		int first = 0, last = S - 1;

		memset(l, 0, sizeof(*l));
		l->S = S;
		/* empty stages may come before the embedding and after the loss */
		if (S > 2 && next(&seed) % 4 == 0)
			first = (int)(next(&seed) % (unsigned)(S / 2));
		if (S > 2 && next(&seed) % 4 == 0)
			last = S - 1 - (int)(next(&seed) % (unsigned)(S / 2));
		if (last < first)
			last = first;
		l->embed = first;
		l->loss = last;
		l->mtp_stage = -1;
		for (int s = first; s <= last; s++)
			/* runs of equal stages, often */
			l->layers[s] = s > first && next(&seed) % 3 != 0 ? l->layers[s - 1]
			                                                 : (int)(next(&seed) % 6);
		if (next(&seed) % 3 == 0) {
			int at = last - (int)(next(&seed) % 2);

			l->mtp_stage = at < first ? first : at;
			l->mtp = 1 + (int)(next(&seed) % 3);
			for (int s = l->mtp_stage + 1; s <= last; s++)
				l->layers[s] = 0;
		}
		assert_round_trip(l);
	}
	free(l);
}

/* Random strings in Megatron's grammar: each parses, and writing it reads back the same. */
static void layout_round_trips_random_strings_parse_write_parse(void)
{
	unsigned long long seed = 7;
	char text[512];

	for (int round = 0; round < 2000; round++) {
		size_t len = 0;
		int groups = 1 + (int)(next(&seed) % 5);
		struct layer_layout *a, *b;
		char *out = unit_calloc(1, 1 << 16);

		len += (size_t)snprintf(text + len, sizeof(text) - len, "E");
		for (int g = 0; g < groups; g++) {
			int kind = (int)(next(&seed) % 4), n = (int)(next(&seed) % 5);

			if (kind == 0)
				len += (size_t)snprintf(text + len, sizeof(text) - len, "|t*%d", n);
			else if (kind == 1)
				len += (size_t)snprintf(text + len, sizeof(text) - len, ",(t%s|)*%d",
				                        n % 2 ? "t" : "", n);
			else if (kind == 2)
				len += (size_t)snprintf(text + len, sizeof(text) - len, "|%s",
				                        n % 2 ? "tt" : "");
			else
				len += (size_t)snprintf(text + len, sizeof(text) - len, "t");
		}
		snprintf(text + len, sizeof(text) - len, "%s", next(&seed) % 2 ? "|mL" : "tL");
		a = parsed(text);
		layout_megatron(a, out, 1 << 16);
		b = parsed(out);
		if (!layout_equal(a, b))
			fprintf(stderr, "\n'%s' wrote '%s'\n", text, out);
		CU_ASSERT(layout_equal(a, b));
		free(a);
		free(b);
		free(out);
	}
}

static void layout_writes_megatrons_docs_example_back_as_it_reads(void)
{
	struct layer_layout *l = parsed("Ettt|(tt|)*29,m|L");
	char out[256];

	layout_megatron(l, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "Et*3|(tt|)*29,m|L");
	free(l);
	l = parsed("E||t|L");
	layout_megatron(l, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "E||t|L");
	free(l);
	/* a run that ends the layout keeps its last stage out of the group */
	l = parsed("Et|tt|tt|ttL");
	layout_megatron(l, out, sizeof(out));
	CU_ASSERT_STRING_EQUAL(out, "Et|(tt|)*2,ttL");
	/* cut short as snprintf, the length of the whole */
	CU_ASSERT_EQUAL(layout_megatron(l, out, 4), strlen("Et|(tt|)*2,ttL"));
	CU_ASSERT_STRING_EQUAL(out, "Et|");
	free(l);
}

/* Megatron's flags for the layout of counts[S] over p ranks ("-" when none say it). */
static void assert_flags(int S, const int *counts, int p, const char *want)
{
	struct layer_layout *l = unit_calloc(1, sizeof(*l));
	char got[256];

	layout_of_counts(l, S, counts, 0);
	if (!layout_megatron_flags(l, p, got, sizeof(got)))
		strcpy(got, "-");
	if (strcmp(got, want) != 0)
		fprintf(stderr, "\ngot '%s', want '%s'\n", got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(l);
}

static void layout_writes_megatrons_flags_only_when_they_give_the_same_stages(void)
{
	static const int even[] = {4, 4, 4, 4}, ends[] = {3, 4, 4, 2}, titan[] = {3, 4, 4, 3};
	static const int chunks[] = {1, 2, 2, 3, 1, 2, 2, 3}, loose[] = {3, 4, 5, 4};
	static const int one_end[] = {4, 4, 4, 4, 4, 4, 4, 3}, zero[] = {0, 4, 4, 4};

	assert_flags(4, even, 4, "");
	assert_flags(4, even, 2, "--num-layers-per-virtual-pipeline-stage 4");
	assert_flags(4, ends, 4,
	             "--decoder-first-pipeline-num-layers 3 --decoder-last-pipeline-num-layers 2");
	/* with v = 2, a rank's count goes to each of its chunks */
	assert_flags(8, chunks, 4,
	             "--decoder-first-pipeline-num-layers 2 --decoder-last-pipeline-num-layers 6 "
	             "--num-virtual-stages-per-pipeline-rank 2");
	/* one fewer on the first and the last stage: Megatron counts the embedding and the loss
	 * as layers */
	assert_flags(4, titan, 2,
	             "--account-for-embedding-in-pipeline-split "
	             "--account-for-loss-in-pipeline-split --num-virtual-stages-per-pipeline-rank 2");
	assert_flags(8, one_end, 4,
	             "--account-for-loss-in-pipeline-split --num-virtual-stages-per-pipeline-rank 2");
	assert_flags(4, loose, 4, "-");
	assert_flags(4, zero, 4, "-"); /* Megatron refuses a first stage of 0 layers */
	assert_flags(4, even, 3, "-"); /* p must divide the stages */
}

/* torchtitan's settings for counts[S] (mtp MTP layers). */
static void assert_titan(int S, const int *counts, int mtp, const char *want)
{
	struct layer_layout *l = unit_calloc(1, sizeof(*l));
	char got[1024];

	layout_of_counts(l, S, counts, mtp);
	layout_torchtitan(l, false, got, sizeof(got));
	if (strcmp(got, want) != 0)
		fprintf(stderr, "\ngot '%s', want '%s'\n", got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(l);
}

static void layout_writes_torchtitans_settings_its_own_split_reads_back(void)
{
	static const int split[] = {2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 1};
	static const int fifteen[] = {2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2};
	static const int even[] = {20, 20, 20, 20}, odd[] = {1, 5, 0, 2};
	int got[16];

	/* torchtitan's own split of 43 layers over 16 stages, its defaults */
	CU_ASSERT_EQUAL(layout_split(43, 16, PP_SPLIT_TORCHTITAN, got), 0);
	CU_ASSERT_EQUAL(memcmp(got, split, sizeof(split)), 0);
	/* 16 stages are its default over 8 ranks, which no layers per stage give: names */
	CU_ASSERT_EQUAL(layout_split(43, 15, PP_SPLIT_TORCHTITAN, got), 0);
	CU_ASSERT_EQUAL(memcmp(got, fifteen, sizeof(fifteen)), 0);
	assert_titan(15, fifteen, 0, "pipeline_parallel_layers_per_stage = 3");
	assert_titan(4, even, 0,
	             "pipeline_parallel_layers_per_stage = 21\n"
	             "pipeline_parallel_last_stage_less_layers = 0");
	assert_titan(4, odd, 0,
	             "module_fqns_per_model_part = [[\"tok_embeddings\", \"layers.0\"], "
	             "[\"layers.1\", \"layers.2\", \"layers.3\", \"layers.4\", \"layers.5\"], [], "
	             "[\"layers.6\", \"layers.7\", \"norm\", \"lm_head\"]]");
	assert_titan(4, even, 1, ""); /* no module for MTP layers */
}

static void layout_splits_uneven_layer_counts_by_each_rule(void)
{
	static const struct {
		int layers, S;
		enum pp_layer_split rule;
		int rc, want[16];
	} cases[] = {
	        {43, 8, PP_SPLIT_SPREAD, 0, {5, 6, 6, 6, 5, 5, 5, 5}},
	        {61, 16, PP_SPLIT_SPREAD, 0, {3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3}},
	        {78, 16, PP_SPLIT_SPREAD, 0, {4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 4}},
	        {126, 16, PP_SPLIT_SPREAD, 0, {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7}},
	        {64, 16, PP_SPLIT_SPREAD, 0, {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}},
	        {61, 8, PP_SPLIT_EVEN, -1, {0}},
	        {64, 8, PP_SPLIT_EVEN, 0, {8, 8, 8, 8, 8, 8, 8, 8}},
	        {61, 8, PP_SPLIT_TORCHTITAN, 0, {7, 8, 8, 8, 8, 8, 8, 6}},
	        {126, 16, PP_SPLIT_TORCHTITAN, 0, {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7}},
	        {5, 8, PP_SPLIT_TORCHTITAN, -1, {0}},
	        {7, 1, PP_SPLIT_TORCHTITAN, 0, {7}},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got[16] = {0}, sum = 0;

		CU_ASSERT_EQUAL(layout_split(cases[i].layers, cases[i].S, cases[i].rule, got),
		                cases[i].rc);
		if (cases[i].rc != 0)
			continue;
		for (int s = 0; s < cases[i].S; s++) {
			CU_ASSERT_EQUAL(got[s], cases[i].want[s]);
			sum += got[s];
		}
		CU_ASSERT_EQUAL(sum, cases[i].layers);
	}
}

static const struct unit_test tests[] = {
        UNIT_TEST(layout_parse_takes_1024_stages_and_refuses_1025),
        UNIT_TEST(layout_reads_the_layouts_of_megatrons_docs_and_tests_to_their_stages),
        UNIT_TEST(layout_unrolls_groups_and_runs_as_megatrons_regular_expressions_do),
        UNIT_TEST(layout_refuses_what_megatron_refuses_saying_why),
        UNIT_TEST(layout_round_trips_random_layouts_through_megatrons_string),
        UNIT_TEST(layout_round_trips_random_strings_parse_write_parse),
        UNIT_TEST(layout_writes_megatrons_docs_example_back_as_it_reads),
        UNIT_TEST(layout_writes_megatrons_flags_only_when_they_give_the_same_stages),
        UNIT_TEST(layout_writes_torchtitans_settings_its_own_split_reads_back),
        UNIT_TEST(layout_splits_uneven_layer_counts_by_each_rule),
        {NULL, NULL},
};

const struct unit_suite suite_layout = {"layout", tests};
