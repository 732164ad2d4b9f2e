/* Unit tests for the partition search (src/search/partition.c): its answer against a brute
 * force over every split and recomputation, written here apart from the search, by simulating
 * each one as `ppsim run` would. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/partition.h"
#include "ppsim/sim.h"
#include "unit.h"

/* Sets option key (a config-file key) to value; asserts that it takes. */
static void set(struct config *c, const char *key, const char *value)
{
	struct pp_error err = {0};
	char label[64];

	snprintf(label, sizeof(label), "--%s", key);
	CU_ASSERT_EQUAL_FATAL(config_set(c, config_option_by_key(key), label, value, &err), 0);
}

/* A small model (layers layers of hidden 512, vocabulary 4096) on p devices of gb GB each. */
static void small_model(struct config *c, const char *layers, const char *p, const char *v,
                        const char *schedule, const char *gb)
{
	config_init(c);
	set(c, "model", "gpt3-175b");
	set(c, "layers", layers);
	set(c, "hidden", "512");
	set(c, "ffn", "2048");
	set(c, "heads", "8");
	set(c, "kv_heads", "8");
	set(c, "vocab", "4096");
	set(c, "seq", "512");
	set(c, "schedule", schedule);
	set(c, "p", p);
	set(c, "v", v);
	set(c, "m", "6");
	set(c, "gpus", p);
	set(c, "memory_reserve", "0");
	set(c, "gpu_memory", gb);
}

/* The brute force's best: the fitting run of shortest step, the fewest recomputed levels on a
 * tie (the order the search promises), and how many fit. */
struct brute {
	double step;
	int levels, offloads;
	int layers[8];
	signed char rc[8], off[8];
	int fits;
	uint64_t count; /* candidates simulated */
};

static int level(int rc)
{
	return rc == PP_RECOMPUTE_FULL ? 2 : rc == PP_RECOMPUTE_SELECTIVE ? 1 : 0;
}

/* Simulates c with layers lay, recomputation rc and offload off (the share of c's --offload,
 * or none) on S stages; records it in *b when best. */
static void try_one(const struct config *c, int S, const int *lay, const signed char *rc,
                    const signed char *off, struct brute *b)
{
	struct config x = *c;
	struct pp_error err = {0};
	struct sim *s;
	int lv = 0, no = 0;

	x.nlayers_per_stage = S;
	x.nstage_recompute = S;
	x.nstage_offload = c->offload > 0 ? S : 0;
	for (int i = 0; i < S; i++) {
		x.layers_per_stage[i] = lay[i];
		x.stage_recompute[i] = rc[i];
		x.stage_offload[i] = off[i] ? (float)c->offload : 0;
		lv += level(rc[i]);
		no += off[i];
	}
	s = sim_run(&x, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	b->count++;
	if (!s->metrics.oom) {
		b->fits++;
		if (b->step < 0 || s->metrics.step_time < b->step ||
		    (s->metrics.step_time == b->step &&
		     (lv < b->levels || (lv == b->levels && no < b->offloads)))) {
			b->step = s->metrics.step_time;
			b->levels = lv;
			b->offloads = no;
			memcpy(b->layers, lay, (size_t)S * sizeof(int));
			memcpy(b->rc, rc, (size_t)S);
			memcpy(b->off, off, (size_t)S);
		}
	}
	sim_free(s);
}

/* Every recomputation and (with --offload) offload of stages i.. of the split lay. */
static void each_rc(const struct config *c, int S, const int *lay, signed char *rc,
                    signed char *off, int i, struct brute *b)
{
	static const signed char all[] = {PP_RECOMPUTE_NONE, PP_RECOMPUTE_SELECTIVE,
	                                  PP_RECOMPUTE_FULL};

	if (i == S) {
		try_one(c, S, lay, rc, off, b);
		return;
	}
	/* a stage without layers recomputes and offloads nothing */
	for (int k = 0; k < (lay[i] > 0 ? 3 : 1); k++)
		for (int o = 0; o < (lay[i] > 0 && c->offload > 0 ? 2 : 1); o++) {
			rc[i] = all[k];
			off[i] = (signed char)o;
			each_rc(c, S, lay, rc, off, i + 1, b);
		}
}

/* Every split of left layers over stages i.. (the first and the last may be empty, the others
 * hold at least one). */
static void each_split(const struct config *c, int S, int *lay, int i, int left, struct brute *b)
{
	signed char rc[8], off[8];

	if (i == S - 1) {
		if (left < (S > 1 ? 0 : 1))
			return;
		lay[i] = left;
		each_rc(c, S, lay, rc, off, 0, b);
		return;
	}
	for (int n = i == 0 ? 0 : 1; n <= left; n++) {
		lay[i] = n;
		each_split(c, S, lay, i + 1, left - n, b);
	}
}

static struct brute brute_force(const struct config *c, int S, int layers)
{
	struct brute b = {.step = -1};
	int lay[8];

	each_split(c, S, lay, 0, layers, &b);
	return b;
}

/* Asserts that partition's exact answer (and its descent's, when descent is true) is the brute
 * force's on c. */
static void assert_matches_brute_force(const struct config *c, int S, int layers, bool descent)
{
	struct brute b = brute_force(c, S, layers);
	struct partition p;
	struct pp_error err = {0};

	for (int pass = 0; pass < (descent ? 2 : 1); pass++) {
		CU_ASSERT_EQUAL_FATAL(partition_search(c, 2, pass ? 1 : 0, &p, &err), 0);
		CU_ASSERT_EQUAL(p.S, S);
		CU_ASSERT_EQUAL(p.exact, pass == 0);
		CU_ASSERT_EQUAL(p.best.set, b.fits > 0);
		if (p.best.set && b.fits > 0) {
			CU_ASSERT_DOUBLE_EQUAL(p.best.step, b.step, 0);
			CU_ASSERT_EQUAL(p.best.overflow, 0);
			for (int s = 0; s < S; s++) {
				CU_ASSERT_EQUAL(p.best.layers[s], b.layers[s]);
				CU_ASSERT_EQUAL(p.best.recompute[s], b.rc[s]);
				CU_ASSERT_EQUAL(p.best.offload[s], b.off[s]);
			}
		}
		/* the exact search simulates the whole space, as the brute force does */
		if (pass == 0)
			CU_ASSERT_EQUAL(p.simulated, b.count);
		partition_release(&p);
	}
}

static void partition_with_room_equals_the_brute_force_and_recomputes_nothing(void)
{
	struct config c;

	small_model(&c, "6", "3", "1", "1f1b", "0.2");
	assert_matches_brute_force(&c, 3, 6, true);
}

static void partition_under_a_memory_cap_equals_the_brute_force_and_recomputes_to_fit(void)
{
	struct config c;
	struct partition p;
	struct pp_error err = {0};

	small_model(&c, "6", "3", "1", "1f1b", "0.16");
	assert_matches_brute_force(&c, 3, 6, true);
	CU_ASSERT_EQUAL_FATAL(partition_search(&c, 1, 0, &p, &err), 0);
	CU_ASSERT_TRUE(p.best.set);
	/* the run as given, evenly and without recomputation, is over memory */
	CU_ASSERT_TRUE(p.start.overflow > 0);
	CU_ASSERT_TRUE(p.best.recompute[0] != PP_RECOMPUTE_NONE ||
	               p.best.recompute[2] != PP_RECOMPUTE_NONE);
	partition_release(&p);
}

static void partition_of_interleaved_stages_equals_the_brute_force(void)
{
	struct config c;

	small_model(&c, "5", "2", "2", "interleaved", "0.2");
	set(&c, "m", "4");
	assert_matches_brute_force(&c, 4, 5, false);
}

static void partition_with_offload_equals_the_brute_force_and_offloads_to_fit(void)
{
	struct config c;
	struct partition p;
	struct pp_error err = {0};

	/* GPipe keeps every forward's activations until the backwards: at 0.12 GB and a fast
	 * host link the best offloads some stages besides recomputing */
	small_model(&c, "4", "3", "1", "gpipe", "0.12");
	set(&c, "offload", "1");
	set(&c, "host_bandwidth", "1000");
	assert_matches_brute_force(&c, 3, 4, true);
	CU_ASSERT_EQUAL_FATAL(partition_search(&c, 1, 0, &p, &err), 0);
	CU_ASSERT_TRUE(p.offload_free);
	CU_ASSERT_TRUE(p.best.offload[0] || p.best.offload[1] || p.best.offload[2]);
	partition_release(&p);
	/* a slow host link: copies cost more than they save, nothing offloads */
	set(&c, "gpu_memory", "0.2");
	set(&c, "host_bandwidth", "1");
	assert_matches_brute_force(&c, 3, 4, true);
	CU_ASSERT_EQUAL_FATAL(partition_search(&c, 1, 0, &p, &err), 0);
	CU_ASSERT_FALSE(p.best.offload[0] || p.best.offload[1] || p.best.offload[2]);
	partition_release(&p);
}

static void partition_finds_nothing_when_no_recomputation_fits(void)
{
	struct config c;
	struct partition p;
	struct pp_error err = {0};

	small_model(&c, "6", "3", "1", "1f1b", "0.12");
	CU_ASSERT_EQUAL_FATAL(partition_search(&c, 1, 0, &p, &err), 0);
	CU_ASSERT_FALSE(p.best.set);
	CU_ASSERT_FALSE(p.runner_up.set);
	CU_ASSERT_EQUAL(brute_force(&c, 3, 6).fits, 0);
	partition_release(&p);
}

static void partition_keeps_a_given_recompute_on_every_stage(void)
{
	struct config c;
	struct partition p;
	struct pp_error err = {0};

	small_model(&c, "6", "3", "1", "1f1b", "0.2");
	set(&c, "recompute", "selective");
	CU_ASSERT_EQUAL_FATAL(partition_search(&c, 1, 0, &p, &err), 0);
	CU_ASSERT_FALSE(p.recompute_free);
	CU_ASSERT_EQUAL(p.simulated, 21); /* the 21 splits, no recomputation searched */
	for (int s = 0; s < 3; s++)
		CU_ASSERT_EQUAL(p.best.recompute[s], PP_RECOMPUTE_SELECTIVE);
	partition_release(&p);
}

static void partition_refuses_a_run_without_a_model_and_too_few_layers(void)
{
	struct config c;
	struct partition p;
	struct pp_error err = {0};

	config_init(&c);
	CU_ASSERT_EQUAL(partition_search(&c, 1, 0, &p, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "needs a model"));
	small_model(&c, "1", "4", "1", "1f1b", "0.2");
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(partition_search(&c, 1, 0, &p, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "middle stages"));
}

static void partition_apply_sets_the_layers_and_recomputation_of_every_stage(void)
{
	struct config c;
	int lay[3] = {1, 3, 2};
	signed char rc[3] = {PP_RECOMPUTE_FULL, PP_RECOMPUTE_NONE, PP_RECOMPUTE_SELECTIVE};
	struct partition_choice x = {.layers = lay, .recompute = rc, .set = true};

	small_model(&c, "6", "3", "1", "1f1b", "0.2");
	set(&c, "first_stage_layers", "2");
	partition_apply(&c, 3, &x);
	CU_ASSERT_EQUAL(c.first_stage_layers, 0);
	CU_ASSERT_EQUAL(c.nlayers_per_stage, 3);
	CU_ASSERT_EQUAL(c.layers_per_stage[1], 3);
	CU_ASSERT_EQUAL(c.nstage_recompute, 3);
	CU_ASSERT_EQUAL(c.stage_recompute[2], PP_RECOMPUTE_SELECTIVE);
	/* without an offload per stage the config's own stays; with one, the share where set */
	CU_ASSERT_EQUAL(c.nstage_offload, 0);
	{
		signed char off[3] = {1, 0, 1};

		x.offload = off;
		x.share = 0.5f;
		partition_apply(&c, 3, &x);
		CU_ASSERT_EQUAL(c.nstage_offload, 3);
		CU_ASSERT_DOUBLE_EQUAL(c.stage_offload[0], 0.5, 1e-9);
		CU_ASSERT_DOUBLE_EQUAL(c.stage_offload[1], 0, 0);
		CU_ASSERT_DOUBLE_EQUAL(c.stage_offload[2], 0.5, 1e-9);
	}
}

static const struct unit_test tests[] = {
        UNIT_TEST(partition_with_room_equals_the_brute_force_and_recomputes_nothing),
        UNIT_TEST(partition_under_a_memory_cap_equals_the_brute_force_and_recomputes_to_fit),
        UNIT_TEST(partition_of_interleaved_stages_equals_the_brute_force),
        UNIT_TEST(partition_with_offload_equals_the_brute_force_and_offloads_to_fit),
        UNIT_TEST(partition_finds_nothing_when_no_recomputation_fits),
        UNIT_TEST(partition_keeps_a_given_recompute_on_every_stage),
        UNIT_TEST(partition_refuses_a_run_without_a_model_and_too_few_layers),
        UNIT_TEST(partition_apply_sets_the_layers_and_recomputation_of_every_stage),
        {NULL, NULL},
};

const struct unit_suite suite_partition = {"partition", tests};
