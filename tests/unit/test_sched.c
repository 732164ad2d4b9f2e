/* Unit tests of sched: the generator table, placement, generated orders and schedule checking. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/config.h"
#include "ppsim/sched.h"
#include "ppsim/sim.h"
#include "unit.h"

/* Writes device d's ops as "F0 F1 BW0 ..." (kind and micro-batch) into buf of size n. */
static char *device_order(const struct sched *s, int d, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1] && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s%u", len ? " " : "",
		                        sched_kind_name((enum op_kind)s->ops[i].kind),
		                        (unsigned)s->ops[i].mb);
	return buf;
}

/* A fused-backward schedule of p devices, one chunk, m micro-batches, in GPipe order. */
static struct sched *gpipe_by_hand(int p, int m)
{
	struct sched *s = sched_alloc(p, 1, m, false, PLACE_LOOP);

	for (int d = 0; d < p; d++) {
		for (int mb = 0; mb < m; mb++)
			sched_push(s, d, OP_F, mb, d);
		for (int mb = 0; mb < m; mb++)
			sched_push(s, d, OP_BW, mb, d);
	}
	return s;
}

static void sched_find_takes_each_name_and_pytorch_s_in_any_case(void)
{
	const struct sched_desc *g = sched_find("gpipe"), *o = sched_find("1f1b");

	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_STRING_EQUAL(g->name, "gpipe");
	CU_ASSERT_STRING_EQUAL(o->name, "1f1b");
	CU_ASSERT_PTR_EQUAL(sched_find("GPipe"), g);
	CU_ASSERT_PTR_EQUAL(sched_find("ScheduleGPipe"), g);
	CU_ASSERT_PTR_EQUAL(sched_find("1F1B"), o);
	CU_ASSERT_PTR_EQUAL(sched_find("schedule1f1b"), o);
	CU_ASSERT_STRING_EQUAL(sched_find("Interleaved1F1B")->name, "interleaved");
	CU_ASSERT_STRING_EQUAL(sched_find("InterleavedZeroBubble")->name, "interleaved-zb");
	CU_ASSERT_STRING_EQUAL(sched_find("ScheduleZBVZeroBubble")->name, "zbv");
	CU_ASSERT_STRING_EQUAL(sched_find("DUALPIPEV")->name, "dualpipev");
	CU_ASSERT_STRING_EQUAL(sched_find("ZBV-AUTO")->name, "zbv-auto");
	/* "Schedule" is PyTorch's class prefix, not a prefix of ppsim's own names */
	CU_ASSERT_PTR_NULL(sched_find("Schedulezbh1"));
	CU_ASSERT_PTR_NULL(sched_find("Schedule"));
	CU_ASSERT_PTR_NULL(sched_find("1f1"));
	CU_ASSERT_PTR_NULL(sched_find("1f1b "));
	CU_ASSERT_PTR_NULL(sched_find(""));
}

static void sched_table_rows_are_whole_and_found_by_their_names(void)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);
	char names[512], want[512] = "";

	CU_ASSERT_FATAL(n > 0);
	for (size_t i = 0; i < n; i++) {
		const struct sched_desc *d = &t[i];
		bool priced = d->fn.generate_priced != NULL;

		CU_ASSERT_PTR_NOT_NULL(d->name);
		CU_ASSERT_PTR_NOT_NULL(d->summary);
		CU_ASSERT_PTR_NOT_NULL(d->peak.text);
		CU_ASSERT(d->min_v >= 1 && (d->max_v == 0 || d->max_v >= d->min_v));
		/* V placement pairs two chunks (1f1b-v runs fused backwards on it, the others
		 * split) */
		if (d->placement == PLACE_V)
			CU_ASSERT(d->min_v == 2 && d->max_v == 2);
		/* a generator orders ops either alone or from the costs, never both */
		CU_ASSERT_EQUAL(d->fn.generate == NULL, priced);
		/* a priced generator's limit is on its real activations, not a W-keeps-all bound */
		CU_ASSERT_EQUAL(d->peak.fn == NULL, priced);
		CU_ASSERT(d->limit_per_p == 0 || priced);
		CU_ASSERT(d->theory.text == NULL || d->theory.fn != NULL);
		CU_ASSERT_PTR_EQUAL(sched_find(d->name), d);
		if (d->torch != NULL)
			CU_ASSERT_PTR_EQUAL(sched_find(d->torch), d);
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i ? ", " : "",
		         d->name);
	}
	CU_ASSERT_STRING_EQUAL(sched_names(names, sizeof(names)), want);
}

static void sched_table_gives_each_family_its_backward_chunks_and_limit(void)
{
	static const struct {
		const char *name;
		bool split;
		enum placement placement;
		int min_v, max_v;
		int limit_per_p;
	} want[] = {
	        {"gpipe", false, PLACE_LOOP, 1, 1, 0},
	        {"interleaved", false, PLACE_LOOP, 2, 0, 0},
	        {"loopedbfs", false, PLACE_LOOP, 1, 0, 0},
	        {"zbh1", true, PLACE_LOOP, 1, 1, 0},
	        {"zbv", true, PLACE_V, 2, 2, 0},
	        {"1f1b-v", false, PLACE_V, 2, 2, 0},
	        {"zb1p", true, PLACE_LOOP, 1, 1, 1},
	        {"zb2p", true, PLACE_LOOP, 1, 1, 2},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct sched_desc *d = sched_find(want[i].name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->split, want[i].split);
		CU_ASSERT_EQUAL(d->placement, want[i].placement);
		CU_ASSERT_EQUAL(d->min_v, want[i].min_v);
		CU_ASSERT_EQUAL(d->max_v, want[i].max_v);
		CU_ASSERT_EQUAL(d->limit_per_p, want[i].limit_per_p);
	}
	CU_ASSERT_TRUE(sched_find("interleaved")->groups);
	CU_ASSERT_FALSE(sched_find("interleaved-zb")->groups);
}

static void sched_theory_of_gpipe_and_1f1b_is_p_minus_1_over_m_plus_p_minus_1(void)
{
	static const char *const names[] = {"gpipe", "1f1b"};

	for (size_t i = 0; i < 2; i++) {
		const struct sched_desc *d = sched_find(names[i]);

		ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 1, 16, 0}, 1, 1, 1, 1),
		            3.0 / 19);
		ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 1, 4, 0}, 1, 1, 1, 1), 3.0 / 7);
		ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 1, 8, 0}, 1, 2, 0.5, 1),
		            3.0 / 11);
		ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 1, 1, 0}, 1, 1, 1, 1), 0.75);
		ASSERT_NEAR(d->theory.fn(&(struct sched_params){8, 1, 1, 0}, 1, 1, 1, 1), 0.875);
		ASSERT_NEAR(d->theory.fn(&(struct sched_params){1, 1, 5, 0}, 1, 1, 1, 1), 0);
		CU_ASSERT_STRING_EQUAL(d->theory.text, "(p-1)/(m+p-1)");
	}
}

static void sched_kind_names_are_the_report_letters(void)
{
	CU_ASSERT_STRING_EQUAL(sched_kind_name(OP_F), "F");
	CU_ASSERT_STRING_EQUAL(sched_kind_name(OP_B), "B");
	CU_ASSERT_STRING_EQUAL(sched_kind_name(OP_W), "W");
	CU_ASSERT_STRING_EQUAL(sched_kind_name(OP_BW), "BW");
}

static void sched_op_format_names_kind_micro_batch_and_stage(void)
{
	struct op f = {3, 1, OP_F, 0}, bw = {0, 7, OP_BW, 0};
	char buf[64];

	CU_ASSERT_STRING_EQUAL(sched_op_format(buf, sizeof(buf), &f), "F(mb 3, stage 1)");
	CU_ASSERT_STRING_EQUAL(sched_op_format(buf, sizeof(buf), &bw), "BW(mb 0, stage 7)");
}

static void sched_op_count_is_stages_times_microbatches_times_kinds(void)
{
	uint64_t n = 0;

	CU_ASSERT_TRUE(sched_op_count(4, 1, 8, false, &n));
	CU_ASSERT_EQUAL(n, 64);
	CU_ASSERT_TRUE(sched_op_count(4, 2, 8, true, &n));
	CU_ASSERT_EQUAL(n, 192);
	/* (2^31-1)^2 * 2 * 2 = 2^64 - 2^34 + 4 still fits */
	CU_ASSERT_TRUE(sched_op_count(INT_MAX, INT_MAX, 2, false, &n));
	CU_ASSERT_EQUAL(n, UINT64_C(18446744056529682436));
}

static void sched_op_count_reports_overflow(void)
{
	uint64_t n = 42;

	CU_ASSERT_FALSE(sched_op_count(INT_MAX, INT_MAX, 3, false, &n));
	CU_ASSERT_FALSE(sched_op_count(INT_MAX, INT_MAX, 2, true, &n));
	CU_ASSERT_FALSE(sched_op_count(INT_MAX, INT_MAX, INT_MAX, true, &n));
	CU_ASSERT_FALSE(sched_op_count(-1, 1, 1, false, &n));
	CU_ASSERT_EQUAL(n, 42);
}

static void sched_message_count_is_two_m_per_boundary_between_two_devices(void)
{
	uint64_t n = 0;

	/* the document's trap: p = 4, m = 16, v = 4 sends 240 forward messages, not 192 */
	CU_ASSERT_TRUE(sched_message_count(4, 4, 16, PLACE_LOOP, 1, &n));
	CU_ASSERT_EQUAL(n, 2 * 240);
	CU_ASSERT_TRUE(sched_message_count(64, 1, 8192, PLACE_LOOP, 1, &n));
	CU_ASSERT_EQUAL(n, 2 * 8192 * 63);
	/* the V's turn from stage p-1 to p stays on device p-1 */
	CU_ASSERT_TRUE(sched_message_count(4, 2, 8, PLACE_V, 1, &n));
	CU_ASSERT_EQUAL(n, 2 * 8 * 6);
	CU_ASSERT_TRUE(sched_message_count(1, 2, 8, PLACE_V, 1, &n));
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_TRUE(sched_message_count(1, 3, 8, PLACE_LOOP, 1, &n));
	CU_ASSERT_EQUAL(n, 0);
	n = 42;
	CU_ASSERT_FALSE(sched_message_count(INT_MAX, INT_MAX, INT_MAX, PLACE_LOOP, 1, &n));
	CU_ASSERT_FALSE(sched_message_count(0, 1, 1, PLACE_LOOP, 1, &n));
	CU_ASSERT_EQUAL(n, 42);
}

static void sched_accepts_one_chunk_only_for_gpipe_and_1f1b(void)
{
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(
	        sched_accepts(sched_find("gpipe"), &(struct sched_params){4, 1, 8, 0}, NULL, &err),
	        0);
	CU_ASSERT_EQUAL(
	        sched_accepts(sched_find("1f1b"), &(struct sched_params){4, 1, 1, 0}, NULL, &err),
	        0);
	const char *key = NULL;

	CU_ASSERT_EQUAL(
	        sched_accepts(sched_find("1f1b"), &(struct sched_params){4, 2, 8, 0}, &key, &err),
	        -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule '1f1b' needs v=1");
	CU_ASSERT_STRING_EQUAL(key, "v");
}

static void sched_loop_placement_puts_chunk_c_of_device_d_on_stage_cp_plus_d(void)
{
	struct sched *s = sched_alloc(4, 3, 1, false, PLACE_LOOP);

	CU_ASSERT_EQUAL(s->S, 12);
	for (int d = 0; d < 4; d++)
		for (int c = 0; c < 3; c++) {
			int st = sched_stage_of(s, d, c);

			CU_ASSERT_EQUAL(st, c * 4 + d);
			CU_ASSERT_EQUAL(s->stage_device[st], (uint32_t)d);
			CU_ASSERT_EQUAL(s->stage_chunk[st], (uint32_t)c);
		}
	sched_free(s);
}

static void sched_v_placement_folds_the_second_chunk_back(void)
{
	struct sched *s = sched_alloc(4, 2, 1, true, PLACE_V);
	static const uint32_t device[8] = {0, 1, 2, 3, 3, 2, 1, 0};
	static const uint32_t chunk[8] = {0, 0, 0, 0, 1, 1, 1, 1};

	CU_ASSERT_EQUAL(sched_stage_of(s, 0, 0), 0);
	CU_ASSERT_EQUAL(sched_stage_of(s, 0, 1), 7);
	CU_ASSERT_EQUAL(sched_stage_of(s, 3, 0), 3);
	CU_ASSERT_EQUAL(sched_stage_of(s, 3, 1), 4);
	CU_ASSERT_EQUAL(sched_stage_of(s, 1, 1), 6);
	for (int st = 0; st < 8; st++) {
		CU_ASSERT_EQUAL(s->stage_device[st], device[st]);
		CU_ASSERT_EQUAL(s->stage_chunk[st], chunk[st]);
	}
	sched_free(s);
}

static void sched_alloc_gives_each_device_its_share(void)
{
	struct sched *s = sched_alloc(3, 2, 5, true, PLACE_LOOP);

	CU_ASSERT_EQUAL(s->p, 3);
	CU_ASSERT_EQUAL(s->v, 2);
	CU_ASSERT_EQUAL(s->m, 5);
	CU_ASSERT_EQUAL(s->S, 6);
	CU_ASSERT_TRUE(s->split);
	CU_ASSERT_PTR_NULL(s->desc);
	CU_ASSERT_EQUAL(s->nops, 90);
	for (int d = 0; d <= 3; d++)
		CU_ASSERT_EQUAL(s->dev_start[d], (size_t)d * 30);
	sched_free(s);
	sched_free(NULL);
}

static void sched_gpipe_runs_all_forwards_then_all_backwards_in_microbatch_order(void)
{
	static const int cases[][2] = {{1, 1}, {4, 8}, {4, 2}, {8, 3}, {3, 16}};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int p = cases[k][0], m = cases[k][1];
		struct sched *s =
		        sched_new(sched_find("gpipe"), &(struct sched_params){p, 1, m, 0});

		CU_ASSERT_PTR_EQUAL(s->desc, sched_find("gpipe"));
		CU_ASSERT_EQUAL(s->nops, (size_t)(2 * p * m));
		for (int d = 0; d < p; d++) {
			const struct op *ops = &s->ops[s->dev_start[d]];

			CU_ASSERT_EQUAL(s->dev_start[d + 1] - s->dev_start[d], (size_t)(2 * m));
			for (int i = 0; i < 2 * m; i++) {
				CU_ASSERT_EQUAL(ops[i].kind, i < m ? OP_F : OP_BW);
				CU_ASSERT_EQUAL(ops[i].mb, (uint32_t)(i % m));
				CU_ASSERT_EQUAL(ops[i].stage, (uint32_t)d);
			}
		}
		sched_free(s);
	}
}

static void sched_gpipe_order_of_p4_m3_reads_as_expected(void)
{
	struct sched *s = sched_new(sched_find("gpipe"), &(struct sched_params){4, 1, 3, 0});
	char buf[256];

	for (int d = 0; d < 4; d++)
		CU_ASSERT_STRING_EQUAL(device_order(s, d, buf, sizeof(buf)),
		                       "F0 F1 F2 BW0 BW1 BW2");
	sched_free(s);
}

static void sched_1f1b_order_of_p4_m8_reads_as_expected(void)
{
	struct sched *s = sched_new(sched_find("1f1b"), &(struct sched_params){4, 1, 8, 0});
	char buf[256];

	CU_ASSERT_STRING_EQUAL(device_order(s, 0, buf, sizeof(buf)),
	                       "F0 F1 F2 F3 BW0 F4 BW1 F5 BW2 F6 BW3 F7 BW4 BW5 BW6 BW7");
	CU_ASSERT_STRING_EQUAL(device_order(s, 1, buf, sizeof(buf)),
	                       "F0 F1 F2 BW0 F3 BW1 F4 BW2 F5 BW3 F6 BW4 F7 BW5 BW6 BW7");
	CU_ASSERT_STRING_EQUAL(device_order(s, 2, buf, sizeof(buf)),
	                       "F0 F1 BW0 F2 BW1 F3 BW2 F4 BW3 F5 BW4 F6 BW5 F7 BW6 BW7");
	CU_ASSERT_STRING_EQUAL(device_order(s, 3, buf, sizeof(buf)),
	                       "F0 BW0 F1 BW1 F2 BW2 F3 BW3 F4 BW4 F5 BW5 F6 BW6 F7 BW7");
	sched_free(s);
}

static void sched_1f1b_order_with_fewer_microbatches_than_devices_reads_as_expected(void)
{
	struct sched *s = sched_new(sched_find("1f1b"), &(struct sched_params){4, 1, 2, 0});
	char buf[256];

	CU_ASSERT_STRING_EQUAL(device_order(s, 0, buf, sizeof(buf)), "F0 F1 BW0 BW1");
	CU_ASSERT_STRING_EQUAL(device_order(s, 1, buf, sizeof(buf)), "F0 F1 BW0 BW1");
	CU_ASSERT_STRING_EQUAL(device_order(s, 2, buf, sizeof(buf)), "F0 F1 BW0 BW1");
	CU_ASSERT_STRING_EQUAL(device_order(s, 3, buf, sizeof(buf)), "F0 BW0 F1 BW1");
	sched_free(s);
}

/*
 * Checks device d's 1F1B list against the schedule's defining property, stated independently of
 * the generator: forwards and backwards each run in micro-batch order, and when backward j
 * starts exactly min(w + j + 1, m) forwards have run, where w = min(p - d - 1, m) is the warm-up.
 */
static void assert_1f1b_device(const struct sched *s, int d)
{
	int p = s->p, m = s->m, w = p - d - 1 < m ? p - d - 1 : m;
	int fwd = 0, bwd = 0;

	CU_ASSERT_EQUAL(s->dev_start[d + 1] - s->dev_start[d], (size_t)(2 * m));
	for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
		const struct op *op = &s->ops[i];

		CU_ASSERT_EQUAL(op->stage, (uint32_t)d);
		if (op->kind == OP_F) {
			CU_ASSERT_EQUAL(op->mb, (uint32_t)fwd);
			fwd++;
		} else {
			int need = w + bwd + 1 < m ? w + bwd + 1 : m;

			CU_ASSERT_EQUAL(op->kind, OP_BW);
			CU_ASSERT_EQUAL(op->mb, (uint32_t)bwd);
			CU_ASSERT_EQUAL(fwd, need);
			bwd++;
		}
	}
	CU_ASSERT_EQUAL(fwd, m);
	CU_ASSERT_EQUAL(bwd, m);
}

static void sched_1f1b_warms_up_then_alternates_then_cools_down(void)
{
	for (int p = 1; p <= 8; p++)
		for (int m = 1; m <= 12; m++) {
			struct sched *s =
			        sched_new(sched_find("1f1b"), &(struct sched_params){p, 1, m, 0});

			for (int d = 0; d < p; d++)
				assert_1f1b_device(s, d);
			sched_free(s);
		}
}

static void sched_1f1b_keeps_at_most_p_minus_d_in_flight(void)
{
	for (int p = 1; p <= 8; p++)
		for (int m = 1; m <= 12; m++) {
			struct sched *s =
			        sched_new(sched_find("1f1b"), &(struct sched_params){p, 1, m, 0});

			for (int d = 0; d < p; d++) {
				int alive = 0, peak = 0, cap = p - d < m ? p - d : m;

				for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
					alive += s->ops[i].kind == OP_F ? 1 : -1;
					if (alive > peak)
						peak = alive;
				}
				CU_ASSERT_EQUAL(peak, cap);
			}
			sched_free(s);
		}
}

/* The activation limit a priced generator gets in the grid: limit_per_p * p, or p (zb-auto's
 * default). */
static double grid_limit(const struct sched_desc *desc, int p)
{
	return desc->limit_per_p > 0 ? (double)desc->limit_per_p * p : p;
}

/* Peak activations per device in micro-batches when W frees half of them (w_fraction 0.5). */
static void peak_half_w(const struct sched *s, double *peak)
{
	int64_t *act = malloc((size_t)s->S * sizeof(*act)),
	        *act_w = malloc((size_t)s->S * sizeof(*act_w));
	int64_t *top = malloc((size_t)s->p * sizeof(*top));

	for (int st = 0; st < s->S; st++) {
		act[st] = 2;
		act_w[st] = 1;
	}
	sched_peak(s, act, act_w, top);
	for (int d = 0; d < s->p; d++)
		peak[d] = (double)top[d] / (2.0 * s->v);
	free(act);
	free(act_w);
	free(top);
}

/* sched_new_layout is sched_new's layout without its ops, for every generator over the grid of
 * shapes it accepts: p, v, m, S, placement, routes and each stage's device and chunk. */
static void sched_new_layout_is_the_layout_of_sched_new_without_its_ops(void)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);

	for (size_t k = 0; k < n; k++) {
		int compared = 0;

		for (int p = 1; p <= 6; p++)
			for (int v = 1; v <= 3; v++)
				for (int m = 1; m <= 3 * p; m++) {
					struct sched_params sp = {p, v, m, 0};
					struct pp_error err = {0};
					struct sched *s, *l;

					if (sched_accepts(&t[k], &sp, NULL, &err) != 0)
						continue;
					s = sched_new(&t[k], &sp);
					l = sched_new_layout(&t[k], &sp);
					CU_ASSERT_PTR_NOT_NULL_FATAL(s);
					CU_ASSERT_PTR_NOT_NULL_FATAL(l);
					CU_ASSERT_EQUAL(l->nops, 0);
					CU_ASSERT(l->p == s->p && l->v == s->v && l->m == s->m &&
					          l->S == s->S && l->placement == s->placement &&
					          l->routes == s->routes &&
					          l->route_stages == s->route_stages &&
					          l->desc == s->desc);
					for (int st = 0; st < s->S; st++)
						CU_ASSERT(l->stage_device[st] == s->stage_device[st] &&
						          l->stage_chunk[st] == s->stage_chunk[st]);
					sched_free(s);
					sched_free(l);
					compared++;
				}
		CU_ASSERT(compared > 0);
	}
}

static void sched_validate_accepts_every_generator_over_the_p_v_m_grid(void)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);

	for (size_t k = 0; k < n; k++) {
		int accepted = 0;

		for (int p = 1; p <= 8; p++)
			for (int v = 1; v <= 4; v++)
				for (int m = 1; m <= 4 * p; m++) {
					struct sched_params sp = {p, v, m, 0};
					struct pp_error err = {0};
					struct sched *s;

					if (sched_accepts(&t[k], &sp, NULL, &err) != 0) {
						CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
						continue;
					}
					accepted++;
					s = sched_new(&t[k], &sp);
					if (t[k].fn.generate_priced != NULL) {
						double limit = grid_limit(&t[k], p), peak[8];

						/* sched_new leaves a priced schedule empty */
						for (int d = 0; d < p; d++)
							CU_ASSERT_EQUAL(s->dev_fill[d], 0);
						unit_price(s, 1, 1, 1, NULL, limit);
						ASSERT_NEAR(s->mem_limit, limit);
						peak_half_w(s, peak);
						for (int d = 0; d < p; d++)
							CU_ASSERT(peak[d] <= limit + 1e-9);
					}
					CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
					CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
					if (err.kind != PP_ERR_NONE)
						fprintf(stderr, "%s p=%d v=%d m=%d: %s\n",
						        t[k].name, p, v, m, err.msg);
					sched_free(s);
				}
		CU_ASSERT(accepted > 0);
	}
}

static void sched_check_accepts_a_hand_built_schedule(void)
{
	struct sched *s = gpipe_by_hand(3, 2);
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(sched_check(s, &err), 0);
	sched_free(s);
}

static void sched_check_accepts_a_hand_built_split_v_schedule(void)
{
	struct sched *s = sched_alloc(2, 2, 1, true, PLACE_V);
	struct pp_error err = {0};

	/* stages 0 and 3 on device 0, stages 1 and 2 on device 1 */
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 0, 3);
	sched_push(s, 0, OP_B, 0, 3);
	sched_push(s, 0, OP_W, 0, 3);
	sched_push(s, 0, OP_B, 0, 0);
	sched_push(s, 0, OP_W, 0, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_F, 0, 2);
	sched_push(s, 1, OP_B, 0, 2);
	sched_push(s, 1, OP_B, 0, 1);
	sched_push(s, 1, OP_W, 0, 1);
	sched_push(s, 1, OP_W, 0, 2);
	CU_ASSERT_EQUAL(sched_check(s, &err), 0);
	sched_free(s);
}

static void sched_check_rejects_a_duplicate_op(void)
{
	struct sched *s = sched_alloc(2, 1, 2, false, PLACE_LOOP);
	struct pp_error err = {0};

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_BW, 1, 1);
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "F(mb 0, stage 1) on device 1: appears twice");
	sched_free(s);
}

static void sched_check_rejects_a_device_missing_an_op(void)
{
	struct sched *s = gpipe_by_hand(2, 2), *t;
	struct pp_error err = {0};

	/* The same shape again, with device 0 one op short of its share: BW(mb 1, stage 0) is
	 * never pushed. (Freeing a full schedule first makes the slot left unwritten likely to
	 * hold a valid-looking op, which must not fool the check.) */
	sched_free(s);
	t = sched_alloc(2, 1, 2, false, PLACE_LOOP);
	sched_push(t, 0, OP_F, 0, 0);
	sched_push(t, 0, OP_F, 1, 0);
	sched_push(t, 0, OP_BW, 0, 0);
	sched_push(t, 1, OP_F, 0, 1);
	sched_push(t, 1, OP_F, 1, 1);
	sched_push(t, 1, OP_BW, 0, 1);
	sched_push(t, 1, OP_BW, 1, 1);
	CU_ASSERT_EQUAL(sched_check(t, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "BW(mb 1, stage 0)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing"));
	sched_free(t);
}

static void sched_check_rejects_an_op_on_the_wrong_device(void)
{
	struct sched *s = sched_alloc(2, 1, 1, false, PLACE_LOOP);
	struct pp_error err = {0};

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_BW, 0, 1);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_BW, 0, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "BW(mb 0, stage 1) on device 0: stage 1 lives on device 1");
	sched_free(s);
}

static void sched_check_rejects_a_fused_backward_in_a_split_schedule(void)
{
	struct sched *s = sched_alloc(1, 1, 1, true, PLACE_LOOP);
	struct pp_error err = {0};

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_W, 0, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(
	        err.msg, "BW(mb 0, stage 0) on device 0: fused BW in a split-backward schedule");
	sched_free(s);
}

static void sched_check_rejects_a_split_backward_in_a_fused_schedule(void)
{
	struct sched *s = sched_alloc(1, 1, 1, false, PLACE_LOOP);
	struct pp_error err = {0};

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_B, 0, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(
	        err.msg, "B(mb 0, stage 0) on device 0: split B or W in a fused-backward schedule");
	sched_free(s);
}

static void sched_check_rejects_an_out_of_range_microbatch(void)
{
	struct sched *s = sched_alloc(1, 1, 2, false, PLACE_LOOP);
	struct pp_error err = {0};

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 2, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "device 0, op 1: out of range"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mb 2"));
	sched_free(s);
}

static void sched_check_rejects_an_out_of_range_stage(void)
{
	struct sched *s = sched_alloc(2, 1, 1, false, PLACE_LOOP);
	struct pp_error err = {0};

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 1, OP_F, 0, 2);
	sched_push(s, 1, OP_BW, 0, 1);
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "device 1, op 0: out of range"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stage 2"));
	sched_free(s);
}

/* Writes device d's ops as the paper does, "F1 B1 W1 ..." with 1-based micro-batches. */
static char *paper_order(const struct sched *s, int d, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1] && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s%u", len ? " " : "",
		                        sched_kind_name((enum op_kind)s->ops[i].kind),
		                        (unsigned)s->ops[i].mb + 1);
	return buf;
}

/*
 * Device d's op list in Megatron-LM's interleaved order (forward_backward_pipelining_with_
 * interleaving with the default group of p micro-batches), derived here from the published rule
 * and not from the generator. Virtual micro-batch k (0 <= k < m*v) of the forward sweep runs
 * chunk (k mod pv) div p on micro-batch (k div pv)*p + (k mod p); backward k runs the same
 * micro-batch on chunk v-1 minus that chunk. Device d warms up with
 * w = min(2(p-d-1) + (v-1)p, m*v) forwards, then runs forward k+w before backward k for k from
 * 0 to m*v-w-1, then the remaining backwards. Chunk c of device d is stage c*p + d; the
 * backward is the fused BW. Writes the 2*m*v ops to out.
 */
static void megatron_interleaved_order(int p, int v, int m, int d, struct op *out)
{
	int total = m * v, w = 2 * (p - d - 1) + (v - 1) * p, n = 0;

	if (w > total)
		w = total;
	for (int k = 0; k < total + w; k++) {
		/* step k: forward k while k < w; then forward k (if any) and backward k - w */
		if (k < total) {
			int c = (k % (p * v)) / p, mb = (k / (p * v)) * p + k % p;

			out[n++] = (struct op){(uint32_t)mb, (uint32_t)(c * p + d), OP_F, 0};
		}
		if (k >= w) {
			int j = k - w, c = (j % (p * v)) / p, mb = (j / (p * v)) * p + j % p;

			out[n++] = (struct op){(uint32_t)mb, (uint32_t)((v - 1 - c) * p + d), OP_BW,
			                       0};
		}
	}
}

static void sched_interleaved_order_equals_megatron_lm_for_p_2_4_8_v_2_3_4_m_p_2p_4p(void)
{
	static const int ps[] = {2, 4, 8}, vs[] = {2, 3, 4}, ms[] = {1, 2, 4};
	int compared = 0;

	for (size_t a = 0; a < 3; a++)
		for (size_t b = 0; b < 3; b++)
			for (size_t c = 0; c < 3; c++) {
				int p = ps[a], v = vs[b], m = ms[c] * p;
				struct sched_params sp = {p, v, m, 0};
				struct pp_error err = {0};
				struct op *want = malloc((size_t)(2 * m * v) * sizeof(*want));
				struct sched *s;

				CU_ASSERT_EQUAL_FATAL(
				        sched_accepts(sched_find("interleaved"), &sp, NULL, &err),
				        0);
				s = sched_new(sched_find("interleaved"), &sp);
				CU_ASSERT_EQUAL(s->group, p);
				CU_ASSERT_FALSE(s->split);
				for (int d = 0; d < p; d++) {
					const struct op *got = &s->ops[s->dev_start[d]];
					int same = 1;

					CU_ASSERT_EQUAL_FATAL(s->dev_start[d + 1] - s->dev_start[d],
					                      (size_t)(2 * m * v));
					megatron_interleaved_order(p, v, m, d, want);
					for (int i = 0; i < 2 * m * v && same; i++)
						same = got[i].kind == want[i].kind &&
						       got[i].mb == want[i].mb &&
						       got[i].stage == want[i].stage;
					CU_ASSERT_TRUE(same);
					if (!same)
						fprintf(stderr,
						        "interleaved p=%d v=%d m=%d device %d "
						        "differs\n",
						        p, v, m, d);
					compared++;
				}
				sched_free(s);
				free(want);
			}
	CU_ASSERT_EQUAL(compared, 3 * 3 * (2 + 4 + 8));
}

static void sched_interleaved_order_of_p2_v2_m4_reads_as_expected(void)
{
	struct sched *s = sched_new(sched_find("interleaved"), &(struct sched_params){2, 2, 4, 0});
	char buf[256];

	/* device 0: chunk 0 is stage 0, chunk 1 stage 2; warm-up 2 + 2 = 4 forwards */
	CU_ASSERT_STRING_EQUAL(device_order(s, 0, buf, sizeof(buf)),
	                       "F0 F1 F0 F1 F2 BW0 F3 BW1 F2 BW0 F3 BW1 BW2 BW3 BW2 BW3");
	CU_ASSERT_EQUAL(s->ops[s->dev_start[0] + 2].stage, 2);
	CU_ASSERT_EQUAL(s->ops[s->dev_start[0] + 5].stage, 2);
	CU_ASSERT_EQUAL(s->ops[s->dev_start[0] + 9].stage, 0);
	/* device 1: warm-up 2 forwards */
	CU_ASSERT_STRING_EQUAL(device_order(s, 1, buf, sizeof(buf)),
	                       "F0 F1 F0 BW0 F1 BW1 F2 BW0 F3 BW1 F2 BW2 F3 BW3 BW2 BW3");
	sched_free(s);
}

static void sched_interleaved_uses_torch_groups_when_p_does_not_divide_m(void)
{
	struct sched *ten =
	        sched_new(sched_find("interleaved"), &(struct sched_params){4, 2, 10, 0});
	struct sched *three =
	        sched_new(sched_find("interleaved"), &(struct sched_params){4, 2, 3, 0});
	struct sched *g5 =
	        sched_new(sched_find("interleaved"), &(struct sched_params){4, 2, 10, 5});
	struct pp_error err = {0};

	/* PyTorch: rounds = max(1, floor(m/p)), g = m / rounds */
	CU_ASSERT_EQUAL(ten->group, 5);
	CU_ASSERT_EQUAL(three->group, 3);
	CU_ASSERT_EQUAL(g5->group, 5);
	/* the default for m=10 is Megatron-LM's order with g=5 */
	CU_ASSERT_EQUAL_FATAL(ten->nops, g5->nops);
	for (size_t i = 0; i < ten->nops; i++)
		CU_ASSERT(ten->ops[i].kind == g5->ops[i].kind && ten->ops[i].mb == g5->ops[i].mb &&
		          ten->ops[i].stage == g5->ops[i].stage);
	CU_ASSERT_EQUAL(sched_validate(ten, &err), 0);
	CU_ASSERT_EQUAL(sched_validate(three, &err), 0);
	sched_free(ten);
	sched_free(three);
	sched_free(g5);
}

static void sched_interleaved_theory_is_p_minus_1_over_mv_plus_p_minus_1(void)
{
	const struct sched_desc *d = sched_find("interleaved");

	ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 2, 8, 0}, 1, 1, 1, 1), 3.0 / 19);
	ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 2, 16, 0}, 1, 1, 1, 1), 3.0 / 35);
	ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 4, 16, 0}, 2, 3, 1, 1), 3.0 / 67);
	/* groups smaller than p (m < p) stall: no closed form */
	CU_ASSERT_TRUE(isnan(d->theory.fn(&(struct sched_params){4, 2, 3, 0}, 1, 1, 1, 1)));
	CU_ASSERT_STRING_EQUAL(d->theory.text, "(p-1)/(m*v+p-1)");
}

static void sched_interleaved_peak_bound_of_p4_v2_m8_is_5_5_on_device_0(void)
{
	const struct sched_desc *desc = sched_find("interleaved");
	struct sched_params sp = {4, 2, 8, 0};
	struct sched *s = sched_new(desc, &sp);
	double peak[4];

	/* p(1 + (p-1)/(pv)) = 5.5 on device 0, one warm-up pair of chunks less per device */
	sched_peak_units(s, peak);
	for (int d = 0; d < 4; d++) {
		ASSERT_NEAR(desc->peak.fn(&sp, d), 5.5 - d);
		ASSERT_NEAR(peak[d], 5.5 - d);
	}
	sched_free(s);
}

static void sched_zbh1_order_of_p4_m8_matches_figure_3_of_the_zero_bubble_paper(void)
{
	struct sched *s = sched_new(sched_find("zbh1"), &(struct sched_params){4, 1, 8, 0});
	char buf[256];

	/* 1-based as in the paper; devices 0 and 3 are its Figure 3 (top), 1 and 2 the authors'
	 * zbpp_light generator */
	CU_ASSERT_TRUE(s->split);
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 0, buf, sizeof(buf)),
	        "F1 F2 F3 F4 B1 W1 F5 B2 W2 F6 B3 W3 F7 B4 W4 F8 B5 W5 B6 W6 B7 W7 B8 W8");
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 1, buf, sizeof(buf)),
	        "F1 F2 F3 B1 F4 B2 W1 F5 B3 W2 F6 B4 W3 F7 B5 W4 F8 B6 W5 B7 W6 B8 W7 W8");
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 2, buf, sizeof(buf)),
	        "F1 F2 B1 F3 B2 F4 B3 W1 F5 B4 W2 F6 B5 W3 F7 B6 W4 F8 B7 W5 B8 W6 W7 W8");
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 3, buf, sizeof(buf)),
	        "F1 B1 F2 B2 F3 B3 F4 B4 W1 F5 B5 W2 F6 B6 W3 F7 B7 W4 F8 B8 W5 W6 W7 W8");
	for (int d = 0; d < 4; d++)
		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++)
			CU_ASSERT_EQUAL(s->ops[i].stage, (uint32_t)d);
	sched_free(s);
}

static void sched_zbh2_order_of_p4_m8_matches_figure_3_of_the_zero_bubble_paper(void)
{
	struct sched *s = sched_new(sched_find("zbh2"), &(struct sched_params){4, 1, 8, 0});
	char buf[256];

	/* devices 0 and 3 are the paper's Figure 3 (bottom); 1 and 2 generalise them */
	CU_ASSERT_TRUE(s->split);
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 0, buf, sizeof(buf)),
	        "F1 F2 F3 F4 F5 F6 F7 B1 W1 F8 B2 W2 B3 W3 B4 W4 B5 W5 B6 W6 B7 W7 B8 W8");
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 1, buf, sizeof(buf)),
	        "F1 F2 F3 F4 F5 B1 F6 B2 F7 B3 W1 F8 B4 W2 B5 W3 B6 W4 B7 W5 B8 W6 W7 W8");
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 2, buf, sizeof(buf)),
	        "F1 F2 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 W1 F8 B6 W2 B7 W3 B8 W4 W5 W6 W7 W8");
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 3, buf, sizeof(buf)),
	        "F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7 W1 F8 B8 W2 W3 W4 W5 W6 W7 W8");
	sched_free(s);
}

static void sched_zbh1_and_zbh2_peak_bounds_are_p_and_2p_minus_1(void)
{
	struct sched_params sp = {4, 1, 8, 0};
	struct sched *h1 = sched_new(sched_find("zbh1"), &sp);
	struct sched *h2 = sched_new(sched_find("zbh2"), &sp);
	double peak1[4], peak2[4];

	/* with W keeping all of a micro-batch's activations, every device reaches the bound */
	sched_peak_units(h1, peak1);
	sched_peak_units(h2, peak2);
	for (int d = 0; d < 4; d++) {
		ASSERT_NEAR(h1->desc->peak.fn(&sp, d), 4);
		ASSERT_NEAR(h2->desc->peak.fn(&sp, d), 7);
		ASSERT_NEAR(peak1[d], 4);
		ASSERT_NEAR(peak2[d], 7);
	}
	CU_ASSERT_STRING_EQUAL(h1->desc->peak.text, "p");
	CU_ASSERT_STRING_EQUAL(h2->desc->peak.text, "2p-1");
	sched_free(h1);
	sched_free(h2);
}

static void sched_accepts_rejects_interleaved_with_one_chunk(void)
{
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(sched_accepts(sched_find("interleaved"), &(struct sched_params){4, 1, 8, 0},
	                              NULL, &err),
	                -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule 'interleaved' needs v >= 2");
}

static void sched_accepts_rejects_interleaved_p4_m9_naming_m_8_and_10(void)
{
	struct pp_error err = {0};
	const char *key = NULL;

	CU_ASSERT_EQUAL(sched_accepts(sched_find("interleaved"), &(struct sched_params){4, 2, 9, 0},
	                              &key, &err),
	                -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(key, "m");
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "interleaved with p=4 accepts neither"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nearest valid m: 8 and 10"));
	/* p=8, m=17: PyTorch accepts 16 and 18 */
	CU_ASSERT_EQUAL(sched_accepts(sched_find("interleaved"),
	                              &(struct sched_params){8, 2, 17, 0}, NULL, &err),
	                -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nearest valid m: 16 and 18"));
	/* p=4, m=13: PyTorch accepts 12 and 15 */
	CU_ASSERT_EQUAL(sched_accepts(sched_find("interleaved"),
	                              &(struct sched_params){4, 2, 13, 0}, NULL, &err),
	                -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nearest valid m: 12 and 15"));
}

static void sched_accepts_interleaved_m_in_pytorch_lists_for_p4_and_p8(void)
{
	/* research notes 2.1: the m that PyTorch's ScheduleInterleaved1F1B accepts */
	static const int p4[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 16, 20, 24};
	static const int p8[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
	                         14, 15, 16, 18, 20, 22, 24, 27, 30, 32, 36, 40};
	const struct sched_desc *desc = sched_find("interleaved");
	struct pp_error err = {0};
	size_t i = 0, j = 0;

	for (int m = 1; m <= 24; m++) {
		bool want = i < sizeof(p4) / sizeof(p4[0]) && p4[i] == m;

		CU_ASSERT_EQUAL(
		        sched_accepts(desc, &(struct sched_params){4, 2, m, 0}, NULL, &err) == 0,
		        want);
		i += want;
	}
	for (int m = 1; m <= 40; m++) {
		bool want = j < sizeof(p8) / sizeof(p8[0]) && p8[j] == m;

		CU_ASSERT_EQUAL(
		        sched_accepts(desc, &(struct sched_params){8, 3, m, 0}, NULL, &err) == 0,
		        want);
		j += want;
	}
}

static void sched_accepts_rejects_group_sizes_megatron_lm_rejects(void)
{
	/* the nearest valid values worked by hand from p <= g <= m and m mod g in {0} or >= p:
	 * e.g. p=4, m=14, g=6: 13 mod 6 = 1, 12 mod 6 = 0 below; 15 mod 6 = 3, 16 mod 6 = 4 above;
	 * 14 mod 5 = 4 and 14 mod 7 = 0 for g; a g below p has no valid m at all */
	static const struct {
		int p, m, g;
		const char *nearest;
	} bad[] = {
	        {4, 8, 3, NULL},
	        {4, 8, 9, "nearest valid m for g=9: 9; nearest valid g for m=8: 8"},
	        {4, 10, 4, "nearest valid m for g=4: 8 and 12; nearest valid g for m=10: 5"},
	        {4, 8, 1, NULL},
	        {4, 14, 6, "nearest valid m for g=6: 12 and 16; nearest valid g for m=14: 5 and 7"},
	};
	static const struct {
		int p, m, g;
	} good[] = {{4, 8, 4}, {4, 8, 8}, {4, 10, 5}, {4, 9, 5}, {4, 14, 5}};
	const struct sched_desc *desc = sched_find("interleaved");
	struct pp_error err = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sched_params sp = {bad[i].p, 2, bad[i].m, bad[i].g};
		char want[128];

		const char *key = NULL;

		memset(&err, 0, sizeof(err));
		CU_ASSERT_EQUAL(sched_accepts(desc, &sp, &key, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		CU_ASSERT_STRING_EQUAL(key, "group_size");
		if (bad[i].nearest == NULL) {
			snprintf(want, sizeof(want), "interleaved needs a group of at least p=%d",
			         bad[i].p);
			CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
			continue;
		}
		snprintf(want, sizeof(want), "interleaved needs p <= g <= m");
		CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
		snprintf(want, sizeof(want), "p=%d, m=%d); %s", bad[i].p, bad[i].m, bad[i].nearest);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
		if (strstr(err.msg, want) == NULL)
			fprintf(stderr, "\n  got '%s'\n", err.msg);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct sched_params sp = {good[i].p, 2, good[i].m, good[i].g};
		struct sched *s;

		CU_ASSERT_EQUAL_FATAL(sched_accepts(desc, &sp, NULL, &err), 0);
		s = sched_new(desc, &sp);
		CU_ASSERT_EQUAL(s->group, good[i].g);
		CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
		sched_free(s);
	}
}

static void sched_accepts_a_group_size_only_for_interleaved(void)
{
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(
	        sched_accepts(sched_find("1f1b"), &(struct sched_params){4, 1, 8, 4}, NULL, &err),
	        -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "only interleaved and interleaved-combined have groups, "
	                                "not '1f1b'");
}

static void sched_accepts_interleaved_p4_m3_and_m10_as_pytorch_does(void)
{
	const struct sched_desc *desc = sched_find("interleaved");
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(sched_accepts(desc, &(struct sched_params){4, 2, 3, 0}, NULL, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(desc, &(struct sched_params){4, 2, 10, 0}, NULL, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
}

static void sched_accepts_rejects_zbh1_and_zbh2_with_two_chunks(void)
{
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(
	        sched_accepts(sched_find("zbh1"), &(struct sched_params){4, 2, 8, 0}, NULL, &err),
	        -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule 'zbh1' needs v=1");
	CU_ASSERT_EQUAL(
	        sched_accepts(sched_find("zbh2"), &(struct sched_params){4, 2, 8, 0}, NULL, &err),
	        -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule 'zbh2' needs v=1");
}

static void sched_accepts_zbh2_only_with_at_least_2p_minus_1_microbatches(void)
{
	const struct sched_desc *desc = sched_find("zbh2");
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(sched_accepts(desc, &(struct sched_params){4, 1, 6, 0}, NULL, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "zbh2 needs at least 2p-1 = 7 micro-batches");
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(sched_accepts(desc, &(struct sched_params){4, 1, 7, 0}, NULL, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(desc, &(struct sched_params){1, 1, 1, 0}, NULL, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
}

/* The p=2, m=2 fused schedule where device 0 waits for BW0 from device 1 before sending F1, and
 * device 1 waits for F1 first. */
static struct sched *cyclic_by_hand(void)
{
	struct sched *s = sched_alloc(2, 1, 2, false, PLACE_LOOP);

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	sched_push(s, 1, OP_F, 1, 1);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_BW, 1, 1);
	return s;
}

static void sched_check_order_names_each_device_of_a_cyclic_wait(void)
{
	struct sched *s = cyclic_by_hand();
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(sched_check(s, &err), 0);
	CU_ASSERT_EQUAL(sched_check_order(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "cyclic wait after 1 of 8 ops: device 0 waits in BW(mb 0, stage 0) "
	                       "for BW(mb 0, stage 1) from device 1; device 1 waits in F(mb 1, "
	                       "stage 1) for F(mb 1, stage 0) from device 0; cycle: device 0 -> "
	                       "device 1 -> device 0");
	sched_free(s);
}

static void sched_check_order_rejects_a_w_before_its_own_b(void)
{
	struct sched *s = sched_alloc(1, 1, 1, true, PLACE_LOOP);
	struct pp_error err = {0};

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_W, 0, 0);
	sched_push(s, 0, OP_B, 0, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), 0);
	CU_ASSERT_EQUAL(sched_check_order(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "cyclic wait after 1 of 3 ops: device 0 waits in W(mb 0, "
	                                "stage 0) for its own B(mb 0, stage 0); cycle: device 0 -> "
	                                "device 0");
	sched_free(s);
}

/* p=3, m=2 fused: devices 1 and 2 wait for each other, device 0 only waits for device 1. */
static struct sched *tail_cycle_by_hand(void)
{
	struct sched *s = sched_alloc(3, 1, 2, false, PLACE_LOOP);

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_F, 1, 1);
	sched_push(s, 1, OP_BW, 1, 1);
	sched_push(s, 2, OP_F, 1, 2);
	sched_push(s, 2, OP_F, 0, 2);
	sched_push(s, 2, OP_BW, 0, 2);
	sched_push(s, 2, OP_BW, 1, 2);
	return s;
}

static void sched_check_order_names_the_cycle_and_not_a_device_that_only_waits_on_it(void)
{
	struct sched *s = tail_cycle_by_hand();
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(sched_check(s, &err), 0);
	CU_ASSERT_EQUAL(sched_check_order(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "cyclic wait after 3 of 12 ops: device 0 waits in BW(mb 0, stage 0) "
	                       "for BW(mb 0, stage 1) from device 1; device 1 waits in BW(mb 0, "
	                       "stage 1) for BW(mb 0, stage 2) from device 2; device 2 waits in "
	                       "F(mb 1, stage 2) for F(mb 1, stage 1) from device 1; cycle: device "
	                       "1 -> device 2 -> device 1");
	sched_free(s);
}

static void sched_check_order_accepts_every_generated_schedule_of_p4(void)
{
	static const struct {
		const char *name;
		int v, m;
	} cases[] = {{"gpipe", 1, 8},
	             {"1f1b", 1, 3},
	             {"interleaved", 3, 12},
	             {"zbh1", 1, 2},
	             {"zbh2", 1, 7}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sched *s = sched_new(sched_find(cases[i].name),
		                            &(struct sched_params){4, cases[i].v, cases[i].m, 0});
		struct pp_error err = {0};

		CU_ASSERT_EQUAL(sched_check_order(s, &err), 0);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
		sched_free(s);
	}
}

static void sched_validate_rejects_a_missing_op_a_duplicate_a_wrong_device_and_a_cycle(void)
{
	struct sched *s;
	struct pp_error err = {0};

	/* missing: device 1 is one op short */
	s = sched_alloc(2, 1, 1, false, PLACE_LOOP);
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 1, OP_F, 0, 1);
	CU_ASSERT_EQUAL(sched_validate(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "BW(mb 0, stage 1): missing (device 1 never runs it)");
	sched_free(s);

	/* duplicate: W(mb 0) twice on a split schedule, W(mb 1) never */
	memset(&err, 0, sizeof(err));
	s = sched_alloc(1, 1, 2, true, PLACE_LOOP);
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_B, 0, 0);
	sched_push(s, 0, OP_W, 0, 0);
	sched_push(s, 0, OP_B, 1, 0);
	sched_push(s, 0, OP_W, 0, 0);
	CU_ASSERT_EQUAL(sched_validate(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "W(mb 0, stage 0) on device 0: appears twice");
	sched_free(s);

	/* wrong device: stage 2 of a p=2, v=2 loop lives on device 0 */
	memset(&err, 0, sizeof(err));
	s = sched_alloc(2, 2, 1, false, PLACE_LOOP);
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 0, 3);
	sched_push(s, 0, OP_BW, 0, 3);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_F, 0, 2);
	sched_push(s, 1, OP_BW, 0, 2);
	sched_push(s, 1, OP_BW, 0, 1);
	CU_ASSERT_EQUAL(sched_validate(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "F(mb 0, stage 3) on device 0: stage 3 lives on device 1");
	sched_free(s);

	/* cyclic wait */
	memset(&err, 0, sizeof(err));
	s = cyclic_by_hand();
	CU_ASSERT_EQUAL(sched_validate(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cyclic wait after 1 of 8 ops: device 0 waits in "
	                                       "BW(mb 0, stage 0) for BW(mb 0, stage 1)"));
	sched_free(s);
}

static void sched_validate_rejects_1f1b_whose_device_0_runs_all_forwards_first(void)
{
	struct sched *s = sched_new(sched_find("1f1b"), &(struct sched_params){4, 1, 8, 0});
	struct op *ops = &s->ops[s->dev_start[0]];
	struct pp_error err = {0};

	/* device 0 in GPipe order: still feasible, but 8 micro-batches in flight, not 4 */
	for (int i = 0; i < 16; i++)
		ops[i] = (struct op){(uint32_t)(i % 8), 0, (uint8_t)(i < 8 ? OP_F : OP_BW), 0};
	CU_ASSERT_EQUAL(sched_check(s, &err), 0);
	CU_ASSERT_EQUAL(sched_check_order(s, &err), 0);
	CU_ASSERT_EQUAL(sched_validate(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "device 0: peak activations 8 exceed the bound 4 "
	                                "(min(p-d, m)) of schedule '1f1b'");
	sched_free(s);
}

static void sched_validate_ignores_peaks_of_a_schedule_without_generator(void)
{
	struct sched *s = gpipe_by_hand(4, 8);
	struct pp_error err = {0};

	/* the same order as a generated GPipe, but no generator bound applies to a hand-built one
	 */
	CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
	sched_free(s);
}

/* Torch ScheduleZBVZeroBubble for p=4, m=8, one row per rank (research notes 2.1). */
static const char *const zbv_p4_m8_rows[4] = {
        "0F0,0F1,0F2,0F3,0F4,0F5,0F6,7F0,7I0,7W0,7F1,7I1,7W1,7F2,7I2,7W2,7F3,7I3,7W3,0F7,0I0,0W0,"
        "7F4,"
        "7I4,7W4,0I1,0W1,7F5,7I5,7W5,0I2,0W2,7F6,7I6,7W6,0I3,0W3,7F7,7I7,7W7,0I4,0W4,0I5,0W5,0I6,"
        "0W6,"
        "0I7,0W7",
        ",1F0,1F1,1F2,1F3,1F4,6F0,1F5,6F1,6I0,6W0,6F2,6I1,6W1,6F3,6I2,6W2,1F6,1I0,1W0,6F4,6I3,6W3,"
        "1F7,"
        "1I1,1W1,6F5,6I4,6W4,1I2,1W2,6F6,6I5,6W5,1I3,1W3,6F7,6I6,6W6,1I4,6I7,1I5,1W4,1I6,1W5,1I7,"
        "1W6,"
        "6W7,1W7",
        ",,2F0,2F1,2F2,5F0,2F3,5F1,2F4,5F2,5I0,5W0,5F3,5I1,5W1,2F5,2I0,2W0,5F4,5I2,5W2,2F6,2I1,2W1,"
        "5F5,"
        "5I3,5W3,2F7,2I2,2W2,5F6,5I4,5W4,2I3,2W3,5F7,5I5,5W5,2I4,5I6,2I5,5I7,2I6,2W4,2I7,2W5,5W6,"
        "5W7,"
        "2W6,2W7",
        ",,,3F0,4F0,3F1,4F1,3F2,4F2,3F3,4F3,4I0,4W0,3F4,3I0,3W0,4F4,4I1,4W1,3F5,3I1,3W1,4F5,4I2,"
        "4W2,3F6,"
        "3I2,3W2,4F6,4I3,4W3,3F7,3I3,3W3,4F7,4I4,4W4,3I4,4I5,3I5,4I6,3I6,4I7,3I7,3W4,4W5,4W6,4W7,"
        "3W5,"
        "3W6,3W7",
};

static void sched_zbv_order_of_p4_m8_equals_pytorch_schedule_zbv_zero_bubble(void)
{
	struct sched *s = sched_new(sched_find("zbv"), &(struct sched_params){4, 2, 8, 0});
	struct op want[64];

	CU_ASSERT_TRUE(s->split);
	CU_ASSERT_FALSE(s->mixed);
	CU_ASSERT_FALSE(s->overlap);
	CU_ASSERT_EQUAL(s->placement, PLACE_V);
	for (int d = 0; d < 4; d++) {
		size_t n = unit_torch_ops(zbv_p4_m8_rows[d], want, 64);

		CU_ASSERT_EQUAL(n, 48);
		CU_ASSERT_TRUE(unit_device_is(s, d, want, n));
	}
	sched_free(s);
}

static void sched_zbv_leaves_out_the_ops_of_micro_batches_beyond_m(void)
{
	/* p=2, m=2: laid out for 2p-1 = 3 micro-batches, the empty cells are micro-batch 2's */
	struct sched *s = sched_new(sched_find("zbv"), &(struct sched_params){2, 2, 2, 0});
	struct op want[32];
	size_t n =
	        unit_torch_ops("0F0,0F1,,3F0,3I0,3W0,3F1,3I1,3W1,0I0,0W0,,,,0I1,0W1,,", want, 32);

	CU_ASSERT_EQUAL(n, 12);
	CU_ASSERT_TRUE(unit_device_is(s, 0, want, n));
	sched_free(s);
}

static void sched_zbv_holds_at_most_min_of_p_and_m_micro_batches_and_p_from_m_2p_minus_1(void)
{
	/* W keeping all of a chunk's activations: +1 chunk at F, -1 at W (research notes 2.3).
	 * The bound min(p, m) holds everywhere and is reached once m >= 2p-1; below, the
	 * micro-batches dropped from the 2p-1 layout leave less alive (PyTorch's own p=2, m=2 row
	 * of rank 0 peaks at 3 chunks, 1.5 micro-batches). */
	for (int p = 1; p <= 6; p++)
		for (int m = 1; m <= 5 * p; m++) {
			struct sched_params sp = {p, 2, m, 0};
			struct sched *s = sched_new(sched_find("zbv"), &sp);
			double peak[6];
			struct pp_error err = {0};

			sched_peak_units(s, peak);
			for (int d = 0; d < p; d++) {
				ASSERT_NEAR(s->desc->peak.fn(&sp, d), m < p ? m : p);
				CU_ASSERT(peak[d] <= (m < p ? m : p) + 1e-9);
				if (m >= 2 * p - 1)
					ASSERT_NEAR(peak[d], p);
			}
			if (p == 2 && m == 2)
				ASSERT_NEAR(peak[0], 1.5);
			CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
			sched_free(s);
		}
}

/*
 * Device d's op list in PyTorch's ScheduleLoopedBFS order, derived here from its definition:
 * for each chunk c ascending, the forwards of micro-batches 0..m-1 on stage c*p + d; then for
 * each chunk descending, the fused backwards of micro-batches m-1..0. Writes 2*v*m ops.
 */
static void looped_bfs_order(int p, int v, int m, int d, struct op *out)
{
	int n = 0;

	for (int c = 0; c < v; c++)
		for (int mb = 0; mb < m; mb++)
			out[n++] = (struct op){(uint32_t)mb, (uint32_t)(c * p + d), OP_F, 0};
	for (int c = v - 1; c >= 0; c--)
		for (int mb = m - 1; mb >= 0; mb--)
			out[n++] = (struct op){(uint32_t)mb, (uint32_t)(c * p + d), OP_BW, 0};
}

static void sched_loopedbfs_runs_each_chunk_s_forwards_then_backwards_in_reverse(void)
{
	static const int shapes[][3] = {{4, 2, 8}, {4, 1, 3}, {2, 3, 5}, {3, 4, 1}, {1, 2, 4}};

	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		int p = shapes[k][0], v = shapes[k][1], m = shapes[k][2];
		struct sched_params sp = {p, v, m, 0};
		struct sched *s = sched_new(sched_find("loopedbfs"), &sp);
		struct op *want = malloc((size_t)(2 * v * m) * sizeof(*want));
		double peak[4];
		struct pp_error err = {0};

		CU_ASSERT_FALSE(s->split);
		CU_ASSERT_EQUAL(s->placement, PLACE_LOOP);
		sched_peak_units(s, peak);
		for (int d = 0; d < p; d++) {
			looped_bfs_order(p, v, m, d, want);
			CU_ASSERT_TRUE(unit_device_is(s, d, want, (size_t)(2 * v * m)));
			/* every forward runs before any backward: all m micro-batches are alive */
			ASSERT_NEAR(peak[d], m);
		}
		CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
		free(want);
		sched_free(s);
	}
}

static void sched_loopedbfs_p2_v2_m3_equals_the_pytorch_rows(void)
{
	/* research notes 1.2: PyTorch's compute-only dump, with its idle cells */
	static const char *const rows[2] = {"0F0,0F1,0F2,2F0,2F1,2F2,,,2B2,2B1,2B0,0B2,0B1,0B0",
	                                    ",1F0,1F1,1F2,3F0,3F1,3F2,3B2,3B1,3B0,1B2,1B1,1B0"};
	struct sched *s = sched_new(sched_find("loopedbfs"), &(struct sched_params){2, 2, 3, 0});
	struct op want[16];

	for (int d = 0; d < 2; d++)
		CU_ASSERT_TRUE(unit_device_is(s, d, want, unit_torch_ops(rows[d], want, 16)));
	sched_free(s);
}

/* PyTorch's artifact dualpipev_4rank_10mb.csv, rank 0 (research notes 3.2). */
static const char dualpipev_p4_m10_rank0[] =
        "0F0,0F1,0F2,0F3,0F4,0F5,0F6,7F0,7I0,7W0,7F1,7I1,7W1,7F2,7I2,7W2,7F3,(0F7;7B3)OVERLAP_F_B,("
        "7F4;0B0)OVERLAP_F_B,(0F8;7B4)OVERLAP_F_B,(7F5;0B1)OVERLAP_F_B,(0F9;7B5)OVERLAP_F_B,(7F6;"
        "0B2)"
        "OVERLAP_F_B,7B6,(7F7;0B3)OVERLAP_F_B,7B7,(7F8;0B4)OVERLAP_F_B,7B8,(7F9;0B5)OVERLAP_F_B,"
        "7B9,"
        "0I6,0W6,0I7,0W7,0I8,0W8,0I9,0W9";

static void sched_dualpipev_p4_m10_device_0_equals_the_pytorch_artifact(void)
{
	struct sched *s = sched_new(sched_find("dualpipev"), &(struct sched_params){4, 2, 10, 0});
	struct op want[64];
	size_t n = unit_torch_ops(dualpipev_p4_m10_rank0, want, 64);
	struct pp_error err = {0};

	CU_ASSERT_TRUE(s->split);
	CU_ASSERT_TRUE(s->mixed);
	CU_ASSERT_TRUE(s->overlap);
	CU_ASSERT_EQUAL(s->placement, PLACE_V);
	CU_ASSERT_TRUE(unit_device_is(s, 0, want, n));
	/* the last rank starts 3F0,4F0,3F1,4F1,3F2,4F2,3F3,4F3,3F4,4B0, then a pair */
	n = unit_torch_ops("3F0,4F0,3F1,4F1,3F2,4F2,3F3,4F3,3F4,4B0,(4F4;3B0)OVERLAP_F_B", want,
	                   64);
	CU_ASSERT_FATAL(s->dev_start[4] - s->dev_start[3] >= n);
	for (size_t i = 0; i < n; i++) {
		const struct op *o = &s->ops[s->dev_start[3] + i];

		CU_ASSERT(o->kind == want[i].kind && o->mb == want[i].mb &&
		          o->stage == want[i].stage && o->flags == want[i].flags);
	}
	CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	sched_free(s);
}

static void sched_dualpipev_p2_m4_equals_the_transcribed_pytorch_rows(void)
{
	static const char *const rows[2] = {"0F0,0F1,0F2,3F0,3I0,3W0,3F1,(0F3;3B1)OVERLAP_F_B,(3F2;"
	                                    "0B0)OVERLAP_F_B,3B2,(3F3;0B1)"
	                                    "OVERLAP_F_B,3B3,0I2,0W2,0I3,0W3",
	                                    "1F0,2F0,1F1,2F1,1F2,2B0,(2F2;1B0)OVERLAP_F_B,(1F3;2B1)"
	                                    "OVERLAP_F_B,(2F3;1B1)OVERLAP_"
	                                    "F_B,2B2,1B2,2I3,1I3,2W3,1W3"};
	struct sched *s = sched_new(sched_find("dualpipev"), &(struct sched_params){2, 2, 4, 0});
	struct op want[32];

	for (int d = 0; d < 2; d++)
		CU_ASSERT_TRUE(unit_device_is(s, d, want, unit_torch_ops(rows[d], want, 32)));
	sched_free(s);
}

static void sched_dualpipev_counts_pairs_and_split_backwards_as_deepseek_s_steps_do(void)
{
	/* research notes 3.2: device d runs 2(m-2p+d+1) + (p-d-1) - [d = p-1] overlapped pairs and
	 * 2(p-d-1) + (d+1) split backwards (each with its W); every rank peaks at 2p+1 chunk
	 * activations */
	for (int p = 1; p <= 6; p++)
		for (int m = 2 * p; m <= 4 * p; m++) {
			struct sched_params sp = {p, 2, m, 0};
			struct sched *s = sched_new(sched_find("dualpipev"), &sp);
			struct pp_error err = {0};
			double peak[6];

			sched_peak_units(s, peak);
			for (int d = 0; d < p; d++) {
				int pairs = 0, split = 0, w = 0, f = 0, fused = 0;

				for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
					const struct op *o = &s->ops[i];

					pairs += (o->flags & OP_OVERLAP) != 0;
					f += o->kind == OP_F;
					split += o->kind == OP_B;
					w += o->kind == OP_W;
					fused += o->kind == OP_BW;
				}
				CU_ASSERT_EQUAL(pairs, 2 * (m - 2 * p + d + 1) + (p - d - 1) -
				                               (d == p - 1));
				CU_ASSERT_EQUAL(split, 2 * (p - d - 1) + (d + 1));
				CU_ASSERT_EQUAL(w, split);
				CU_ASSERT_EQUAL(f, 2 * m);
				CU_ASSERT_EQUAL(fused + split, 2 * m);
				ASSERT_NEAR(peak[d], p + 0.5);
			}
			CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
			sched_free(s);
		}
}

static void sched_accepts_dualpipev_only_with_at_least_2p_micro_batches_and_zbv_with_any(void)
{
	const char *key = NULL;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(sched_accepts(sched_find("dualpipev"), &(struct sched_params){4, 2, 7, 0},
	                              &key, &err),
	                -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(key, "m");
	CU_ASSERT_STRING_EQUAL(err.msg, "dualpipev needs at least 2p = 8 micro-batches");
	CU_ASSERT_EQUAL(sched_accepts(sched_find("dualpipev"), &(struct sched_params){4, 2, 8, 0},
	                              NULL, &err),
	                0);
	CU_ASSERT_EQUAL(sched_accepts(sched_find("dualpipev"), &(struct sched_params){4, 1, 8, 0},
	                              &key, &err),
	                -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule 'dualpipev' needs v=2");
	CU_ASSERT_STRING_EQUAL(key, "v");
	CU_ASSERT_EQUAL(
	        sched_accepts(sched_find("zbv"), &(struct sched_params){4, 2, 1, 0}, NULL, &err),
	        0);
	CU_ASSERT_EQUAL(
	        sched_accepts(sched_find("zbv"), &(struct sched_params){4, 3, 8, 0}, NULL, &err),
	        -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule 'zbv' needs v=2");
	CU_ASSERT_EQUAL(sched_accepts(sched_find("loopedbfs"), &(struct sched_params){4, 5, 3, 0},
	                              NULL, &err),
	                0);
}

/* A priced generator's schedule for p devices, m micro-batches, per-stage times t_f, t_b, t_w
 * (all stages alike), free messages, W keeping half of the activations and an activation
 * limit. */
static struct sched *priced(const char *name, int p, int m, double t_f, double t_b, double t_w,
                            double limit)
{
	struct sched *s = sched_new(sched_find(name), &(struct sched_params){p, 1, m, 0});

	unit_price(s, t_f, t_b, t_w, NULL, limit);
	return s;
}

/* DeepSeek's dualpipe.py with 4 ranks and 8 micro-batches, each rank's step as
 * tests/tools/dualpipe-reference.py records it (tests/golden/dualpipe-reference/dualpipe.txt). */
static const char *const dualpipe_p4_m8[4] = {
        "0F0,0F1,0F2,7F4,7I4,7W4,7F5,(0F3;7B5)OVERLAP_F_B,(7F6;0B0)OVERLAP_F_B,7B6,(7F7;0B1)"
        "OVERLAP_F_B,7B7,0I2,0W2,0I3,0W3",
        "1F0,6F4,1F1,6F5,1F2,6B4,(6F6;1B0)OVERLAP_F_B,(1F3;6B5)OVERLAP_F_B,(6F7;1B1)OVERLAP_F_B,"
        "6B6,1B2,6I7,1I3,6W7,1W3",
        "5F4,2F0,5F5,2F1,5F6,2B0,(2F2;5B4)OVERLAP_F_B,(5F7;2B1)OVERLAP_F_B,(2F3;5B5)OVERLAP_F_B,"
        "2B2,5B6,2I3,5I7,2W3,5W7",
        "4F4,4F5,4F6,3F0,3I0,3W0,3F1,(4F7;3B1)OVERLAP_F_B,(3F2;4B4)OVERLAP_F_B,3B2,(3F3;4B5)"
        "OVERLAP_F_B,3B3,4I6,4W6,4I7,4W7"};

static void sched_dualpipe_p4_m8_equals_deepseek_s_dualpipe_py(void)
{
	struct sched *s = sched_new(sched_find("dualpipe"), &(struct sched_params){4, 2, 8, 0});
	struct pp_error err = {0};
	struct op want[40];

	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(s->routes, 2);
	CU_ASSERT_EQUAL(s->placement, PLACE_V);
	CU_ASSERT_TRUE(s->split && s->mixed && s->overlap);
	for (int d = 0; d < 4; d++)
		CU_ASSERT_TRUE(
		        unit_device_is(s, d, want, unit_torch_ops(dualpipe_p4_m8[d], want, 40)));
	CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
	sched_free(s);
}

/* Whether op is the op of DualPipeV's device o (of p/2, with m/2 micro-batches) that rank d of
 * DualPipe's p runs in its place: its chunks swapped in the second half, the second chunk's
 * micro-batches after the first's m/2. */
static bool dualpipe_op_is(const struct op *op, const struct op *o, int p, int m, int d)
{
	int second = d >= p / 2, c = (o->stage >= (uint32_t)(p / 2)) ^ second;
	uint32_t stage = c == 0 ? (uint32_t)d : (uint32_t)(2 * p - 1 - d);

	return op->kind == o->kind && op->flags == o->flags && op->stage == stage &&
	       op->mb == o->mb + (uint32_t)(c * m / 2);
}

static void sched_dualpipe_runs_dualpipev_on_each_half_its_copies_swapped_in_the_second(void)
{
	/* DualPipeV is DualPipe cut in half: rank d and rank p-1-d each run device
	 * min(d, p-1-d) of DualPipeV on p/2 devices and m/2 micro-batches, the second half with
	 * the two copies swapped; every rank holds its two stages' ops of its copies'
	 * micro-batches only, and peaks at p+1 stages' activations */
	for (int p = 2; p <= 10; p += 2)
		for (int m = 2 * p; m <= 4 * p + 2; m += 2) {
			struct sched *s = sched_new(sched_find("dualpipe"),
			                            &(struct sched_params){p, 2, m, 0});
			struct sched *h = sched_new(sched_find("dualpipev"),
			                            &(struct sched_params){p / 2, 2, m / 2, 0});
			struct pp_error err = {0};
			double peak[10];

			CU_ASSERT_FATAL(s != NULL && h != NULL);
			sched_peak_units(s, peak);
			for (int d = 0; d < p; d++) {
				int o = d < p - 1 - d ? d : p - 1 - d;
				size_t n = s->dev_start[d + 1] - s->dev_start[d];
				bool same = n == h->dev_start[o + 1] - h->dev_start[o];

				for (size_t i = 0; same && i < n; i++)
					same = dualpipe_op_is(&s->ops[s->dev_start[d] + i],
					                      &h->ops[h->dev_start[o] + i], p, m,
					                      d);
				CU_ASSERT_TRUE(same);
				if (!same)
					fprintf(stderr, "dualpipe p=%d m=%d rank %d differs\n", p,
					        m, d);
				CU_ASSERT_EQUAL(n, 2 * (size_t)m + (size_t)(o + 1) +
				                           2 * (size_t)(p / 2 - o - 1));
				ASSERT_NEAR(peak[d], p + 1);
				for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++)
					CU_ASSERT_TRUE(
					        sched_visits(s, s->ops[i].mb, s->ops[i].stage));
			}
			CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
			sched_free(h);
			sched_free(s);
		}
}

static void sched_accepts_dualpipe_only_with_an_even_p_and_an_even_m_of_at_least_2p(void)
{
	/* dualpipe.py: assert num_ranks % 2 == 0; assert num_chunks > 0 and num_chunks % 2 == 0
	 * and num_chunks >= num_ranks * 2 */
	static const struct {
		int p, v, m;
		const char *key, *msg;
	} cases[] = {
	        {3, 2, 6, "p",
	         "dualpipe needs an even p: ranks d and p-1-d hold the same stage of its two "
	         "copies of the model"},
	        {4, 2, 9, "m", "dualpipe needs an even m: half the micro-batches run each way"},
	        {4, 2, 6, "m", "dualpipe needs at least 2p = 8 micro-batches"},
	        {2, 2, 2, "m", "dualpipe needs at least 2p = 4 micro-batches"},
	        {4, 1, 8, "v", "schedule 'dualpipe' needs v=2"},
	        {4, 3, 8, "v", "schedule 'dualpipe' needs v=2"},
	};
	const struct sched_desc *dp = sched_find("dualpipe");

	CU_ASSERT_FATAL(dp != NULL);
	CU_ASSERT_EQUAL(sched_desc_routes(dp), 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sched_params sp = {cases[i].p, cases[i].v, cases[i].m, 0};
		const char *key = NULL;
		struct pp_error err = {0};

		CU_ASSERT_EQUAL(sched_accepts(dp, &sp, &key, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		CU_ASSERT_STRING_EQUAL(key, cases[i].key);
		CU_ASSERT_STRING_EQUAL(err.msg, cases[i].msg);
	}
	for (int p = 2; p <= 8; p += 2)
		for (int m = 2 * p; m <= 2 * p + 4; m += 2)
			CU_ASSERT_EQUAL(sched_accepts(dp, &(struct sched_params){p, 2, m, 0}, NULL,
			                              &(struct pp_error){0}),
			                0);
}

static void sched_dualpipe_has_deepseek_s_bubble_and_activations_at_unit_costs(void)
{
	/* DeepSeek's README: bubble (PP/2-1)(F&B+B-3W) with PP = p ranks, B a full backward
	 * (t_b + t_w) and F&B an overlapped pair (the overlap factor x (F + B)): the idle time of
	 * the middle ranks, which run the most pairs; activations PP+1 on every rank, in stages'
	 * worth (one micro-batch through one stage, a p-th of the model) */
	static const double costs[][4] = {{1, 1, 1, 1}, {1, 1, 0.5, 0.7}, {2, 2, 1, 0.6}};

	for (int p = 2; p <= 8; p += 2)
		for (int m = 2 * p; m <= 4 * p; m += p)
			for (size_t k = 0; k < sizeof(costs) / sizeof(costs[0]); k++) {
				const double *t = costs[k];
				struct config c =
				        unit_config("dualpipe", p, 2, m, t[0], t[1], t[2]);
				double fb = t[3] * (t[0] + t[1] + t[2]), bubble;
				struct sim *s;

				c.overlap_factor = t[3];
				s = unit_run(&c, 0);
				bubble = (p / 2 - 1) * (fb + (t[1] + t[2]) - 3 * t[2]);
				ASSERT_NEAR(s->metrics.devices[p / 2].idle, bubble);
				ASSERT_NEAR(s->metrics.devices[p / 2 - 1].idle, bubble);
				ASSERT_NEAR(s->metrics.bubble_ratio,
				            s->metrics.bubble_ratio_theory);
				for (int d = 0; d < p; d++)
					ASSERT_NEAR(s->metrics.devices[d].peak_activations, p + 1);
				sim_free(s);
			}
}

static void sched_dualpipe_holds_twice_the_parameters_of_1f1b_on_every_rank(void)
{
	/* DeepSeek's README: parameters 2x. Each copy of the model is the whole model over p
	 * stages, as 1F1B's on p devices, and rank d holds stage d of one and stage p-1-d of the
	 * other (the embedding and the LM head of the two copies on ranks 0 and p-1 alike) */
	for (int p = 2; p <= 8; p *= 2) {
		struct config a = unit_config("1f1b", p, 1, 2 * p, 1, 1, 1);
		struct config b = unit_config("dualpipe", p, 2, 2 * p, 1, 1, 1);
		struct sim *one, *two;

		unit_set(&a, "model", "llama3-8b");
		unit_set(&b, "model", "llama3-8b");
		one = unit_run(&a, 0);
		two = unit_run(&b, 0);
		for (int d = 0; d < p; d++) {
			double x = one->cost->model->device_params[d];
			double y = two->cost->model->device_params[d];

			CU_ASSERT_DOUBLE_EQUAL(y, 2 * x, 1e-9 * x);
			CU_ASSERT_DOUBLE_EQUAL(two->metrics.devices[d].state_bytes,
			                       2 * one->metrics.devices[d].state_bytes,
			                       1e-9 * one->metrics.devices[d].state_bytes);
		}
		sim_free(one);
		sim_free(two);
	}
}

static void sched_message_count_counts_each_route_s_hops_for_its_micro_batches(void)
{
	uint64_t n = 0;

	/* DualPipe: each copy's p-1 hops, taken each way by its half of the micro-batches; the
	 * V's turn is where one route ends and the other starts */
	CU_ASSERT_TRUE(sched_message_count(8, 2, 20, PLACE_V, 2, &n));
	CU_ASSERT_EQUAL(n, 2 * 20 * 7);
	CU_ASSERT_TRUE(sched_message_count(2, 2, 4, PLACE_V, 2, &n));
	CU_ASSERT_EQUAL(n, 2 * 4 * 1);
	/* two routes over the loop placement: stages [0, p) and [p, 2p), each p-1 hops */
	CU_ASSERT_TRUE(sched_message_count(4, 2, 8, PLACE_LOOP, 2, &n));
	CU_ASSERT_EQUAL(n, 2 * 8 * 3);
	n = 42;
	CU_ASSERT_FALSE(sched_message_count(4, 2, 7, PLACE_V, 2, &n));
	CU_ASSERT_FALSE(sched_message_count(4, 3, 8, PLACE_V, 2, &n));
	CU_ASSERT_EQUAL(n, 42);
}

static void sched_check_refuses_an_op_of_a_micro_batch_off_its_route(void)
{
	/* two routes by hand: p = 2, v = 2 (V), m = 2: micro-batch 0 visits stages 0 and 1,
	 * micro-batch 1 stages 2 and 3 */
	static const size_t counts[2] = {4, 4};
	struct sched *s = sched_alloc_counts(2, 2, 2, false, PLACE_V, counts);
	struct pp_error err = {0};

	sched_set_routes(s, 2);
	CU_ASSERT_TRUE(sched_visits(s, 0, 1) && sched_visits(s, 1, 2));
	CU_ASSERT_FALSE(sched_visits(s, 0, 2) || sched_visits(s, 1, 1));
	CU_ASSERT_TRUE(sched_route_first(s, 2) && sched_route_last(s, 1));
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 3);
	sched_push(s, 0, OP_BW, 1, 3);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_F, 1, 2);
	sched_push(s, 1, OP_BW, 1, 2);
	/* stage 1 ends micro-batch 0's route: its backward waits for no gradient */
	CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
	s->ops[s->dev_start[1] + 2].mb = 0;
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "F(mb 0, stage 2) on device 1: micro-batch 0 does not "
	                                "visit stage 2 (its route is stages 0 to 1)");
	sched_free(s);
}

static void sched_zb_auto_with_a_limit_of_p_gives_zb_h1_s_order_for_unit_times(void)
{
	/* research notes 4.4: with unit times the heuristic at limit p reproduces ZB-H1 for every
	 * m > p */
	static const int ps[] = {2, 3, 4, 5, 6, 8};

	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		for (int m = ps[i] + 1; m <= 4 * ps[i]; m++) {
			int p = ps[i];
			struct sched *a = priced("zb-auto", p, m, 1, 1, 1, p);
			struct sched *h =
			        sched_new(sched_find("zbh1"), &(struct sched_params){p, 1, m, 0});

			CU_ASSERT_TRUE(unit_same_ops(a, h));
			if (!unit_same_ops(a, h))
				fprintf(stderr, "zb-auto p=%d m=%d differs from zbh1\n", p, m);
			ASSERT_NEAR(a->mem_limit, p);
			sched_free(a);
			sched_free(h);
		}
}

static void sched_zb2p_order_of_p4_m8_equals_the_authors_heuristic_at_limit_2p(void)
{
	struct sched *s = priced("zb2p", 4, 8, 1, 1, 1, 8);
	char buf[256];

	/* research notes 4.4, 1-based as in the paper; warm-up forwards 7/5/3/1 as in ZB-H2 */
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 0, buf, sizeof(buf)),
	        "F1 F2 F3 F4 F5 F6 F7 B1 F8 W1 B2 W2 B3 W3 B4 W4 B5 W5 B6 W6 B7 W7 B8 W8");
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 1, buf, sizeof(buf)),
	        "F1 F2 F3 F4 F5 B1 F6 B2 F7 B3 F8 B4 W1 B5 W2 B6 W3 B7 W4 B8 W5 W6 W7 W8");
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 2, buf, sizeof(buf)),
	        "F1 F2 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 F8 B6 W1 B7 W2 B8 W3 W4 W5 W6 W7 W8");
	CU_ASSERT_STRING_EQUAL(
	        paper_order(s, 3, buf, sizeof(buf)),
	        "F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7 F8 B8 W1 W2 W3 W4 W5 W6 W7 W8");
	ASSERT_NEAR(s->mem_limit, 8);
	sched_free(s);
}

static void sched_zb_auto_keeps_alive_activations_within_each_limit(void)
{
	static const double times[][3] = {{1, 1, 1}, {2, 2, 1}, {1, 2, 1}, {2, 3, 1}, {3, 2, 2}};

	for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++)
		for (int p = 2; p <= 5; p++)
			for (int limit = 1; limit <= 2 * p; limit++) {
				struct sched *s = priced("zb-auto", p, 3 * p, times[k][0],
				                         times[k][1], times[k][2], limit);
				struct pp_error err = {0};
				double peak[5];

				CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
				peak_half_w(s, peak);
				for (int d = 0; d < p; d++)
					CU_ASSERT(peak[d] <= limit + 1e-9);
				sched_free(s);
			}
}

/* A reproducible stream of numbers for the property tests (xorshift64*). */
static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * UINT64_C(2685821657736338717);
}

/* A number in [lo, hi]. */
static int rng_int(uint64_t *x, int lo, int hi)
{
	return lo + (int)(rng_next(x) % (uint64_t)(hi - lo + 1));
}

/* Prices for S stages drawn from x: op times of 1 to 40 ticks (all stages alike in some
 * cases, so that decisions tie), messages of 0 to 12 ticks (free in some cases), activations
 * of 1 to 4 with a W share of 0 to all of them, and a limit in half micro-batches from 1 to
 * 2p + 1; arrays in t[4S] and act[2S]. */
static struct sched_prices random_prices(uint64_t *x, int p, int S, pp_time *t, int64_t *act)
{
	bool alike = rng_int(x, 0, 2) == 0, free_comm = rng_int(x, 0, 3) == 0;
	struct sched_prices pr = {t, t + S, t + 2 * S, t + 3 * S, act, act + S, 0, 1};

	for (int st = 0; st < S; st++) {
		for (int k = 0; k < 3; k++)
			t[k * S + st] = alike && st > 0 ? t[k * S] : rng_int(x, 1, 40);
		t[3 * S + st] = free_comm || st + 1 == S ? 0 : rng_int(x, 0, 12);
		act[st] = alike && st > 0 ? act[0] : rng_int(x, 1, 4);
		act[S + st] = alike && st > 0 ? act[S] : rng_int(x, 0, (int)act[st]);
	}
	pr.mem_limit = 0.5 * rng_int(x, 2, 4 * p + 2);
	return pr;
}

/* Checks that desc's generator gives the op list, limit and error of its oracle (the
 * generator as it was, one pass after another) for the shape and prices, on 1 to 3 threads. */
static void check_against_oracle(const char *name,
                                 int (*oracle)(struct sched *, const struct sched_prices *,
                                               struct pp_error *),
                                 int p, int m, struct sched_prices pr)
{
	const struct sched_desc *desc = sched_find(name);
	struct sched_params sp = {p, desc->min_v, m, 0};
	struct sched *want = sched_new(desc, &sp);
	struct pp_error want_err = {0};
	int want_rc = oracle(want, &pr, &want_err);

	for (int jobs = 1; jobs <= 3; jobs++) {
		struct sched *got = sched_new(desc, &sp);
		struct pp_error err = {0};
		int rc;

		pr.jobs = jobs;
		rc = sched_generate_priced(got, &pr, &err);
		CU_ASSERT_EQUAL(rc, want_rc);
		CU_ASSERT_EQUAL(err.kind, want_err.kind);
		CU_ASSERT_STRING_EQUAL(err.msg, want_err.msg);
		if (rc == 0 && want_rc == 0) {
			CU_ASSERT_TRUE(unit_same_ops(got, want));
			CU_ASSERT_EQUAL(got->mem_limit, want->mem_limit);
		}
		if (rc != want_rc || (rc == 0 && !unit_same_ops(got, want)))
			fprintf(stderr, "%s p=%d m=%d limit %g jobs %d differs from the oracle\n", name,
			        p, m, pr.mem_limit, jobs);
		sched_free(got);
	}
	sched_free(want);
}

/* Checks name against its oracle over count shapes and prices drawn from seed: p from 1 to
 * max_p and m from 1 to max_m, and then a few runs large enough for threads. */
static void check_shapes_against_oracle(const char *name,
                                        int (*oracle)(struct sched *,
                                                      const struct sched_prices *,
                                                      struct pp_error *),
                                        uint64_t seed, int count, int max_p, int max_m)
{
	int v = sched_find(name)->min_v;

	for (int i = 0; i < count + 6; i++) {
		/* the last six: p of 8 to 16, at least 40,000 ops, which run on threads */
		int p = i < count ? rng_int(&seed, 1, max_p) : rng_int(&seed, 8, 16);
		int m = i < count ? rng_int(&seed, 1, max_m) : 40000 / (3 * v * p) + 1;
		pp_time *t = unit_calloc(4 * (size_t)(v * p), sizeof(*t));
		int64_t *act = unit_calloc(2 * (size_t)(v * p), sizeof(*act));

		check_against_oracle(name, oracle, p, m, random_prices(&seed, p, v * p, t, act));
		free(t);
		free(act);
	}
}

static void sched_zb_auto_gives_its_oracle_s_order_for_any_shape_prices_and_threads(void)
{
	check_shapes_against_oracle("zb-auto", unit_zb_auto_oracle, 42, 1500, 12, 40);
}

static void sched_zbv_auto_gives_its_oracle_s_order_for_any_shape_prices_and_threads(void)
{
	check_shapes_against_oracle("zbv-auto", unit_zbv_auto_oracle, 7, 1000, 10, 30);
}

/* PyTorch's artifact zb1p_2rank_2stagep_compute.csv (ScheduleInterleavedZeroBubble, p = 2,
 * v = 2, m = 8), with its empty steps left out and its "B" (it predates "I") written I. */
static const char *const zb1p_p2_v2_m8_rows[2] = {
        "0F0,0F1,2F0,2F1,2I0,2W0,0F2,2I1,2W1,0F3,0I0,0W0,2F2,0I1,0W1,2F3,2I2,2W2,0F4,2I3,2W3,0F5,"
        "0I2,0W2,2F4,0I3,0W3,2F5,2I4,2W4,0F6,2I5,2W5,0F7,0I4,0W4,2F6,0I5,0W5,2F7,2I6,2W6,2I7,2W7,"
        "0I6,0W6,0I7,0W7",
        "1F0,1F1,3F0,3I0,3F1,3I1,3W0,1F2,1I0,3W1,1F3,1I1,1W0,3F2,3I2,1W1,3F3,3I3,3W2,1F4,1I2,3W3,"
        "1F5,1I3,1W2,3F4,3I4,1W3,3F5,3I5,3W4,1F6,1I4,3W5,1F7,1I5,1W4,3F6,3I6,1W5,3F7,3I7,3W6,1I6,"
        "3W7,1I7,1W6,1W7"};

/* What PyTorch's ScheduleInterleavedZeroBubble._calculate_single_rank_operations gives for
 * p = 4, v = 2, m = 8 (empty steps left out). */
static const char *const zb1p_p4_v2_m8_rows[4] = {
        "0F0,0F1,0F2,0F3,4F0,4F1,4F2,4F3,4I0,4W0,0F4,4I1,4W1,0F5,4I2,4W2,0F6,4I3,4W3,0F7,0I0,0W0,"
        "4F4,0I1,0W1,4F5,0I2,0W2,4F6,0I3,0W3,4F7,4I4,4W4,4I5,4W5,4I6,4W6,4I7,4W7,0I4,0W4,0I5,0W5,"
        "0I6,0W6,0I7,0W7",
        "1F0,1F1,1F2,1F3,5F0,5F1,5F2,5I0,5F3,5I1,5W0,1F4,5I2,5W1,1F5,5I3,5W2,1F6,1I0,5W3,1F7,1I1,"
        "1W0,5F4,1I2,1W1,5F5,1I3,1W2,5F6,5I4,1W3,5F7,5I5,5W4,5I6,5W5,5I7,5W6,1I4,5W7,1I5,1W4,1I6,"
        "1W5,1I7,1W6,1W7",
        "2F0,2F1,2F2,2F3,6F0,6F1,6I0,6F2,6I1,6F3,6I2,6W0,2F4,6I3,6W1,2F5,2I0,6W2,2F6,2I1,6W3,2F7,"
        "2I2,2W0,6F4,2I3,2W1,6F5,6I4,2W2,6F6,6I5,2W3,6F7,6I6,6W4,6I7,6W5,2I4,6W6,2I5,6W7,2I6,2W4,"
        "2I7,2W5,2W6,2W7",
        "3F0,3F1,3F2,3F3,7F0,7I0,7F1,7I1,7F2,7I2,7F3,7I3,7W0,3F4,3I0,7W1,3F5,3I1,7W2,3F6,3I2,7W3,"
        "3F7,3I3,3W0,7F4,7I4,3W1,7F5,7I5,3W2,7F6,7I6,3W3,7F7,7I7,7W4,3I4,7W5,3I5,7W6,3I6,7W7,3I7,"
        "3W4,3W5,3W6,3W7"};

static void sched_interleaved_zb_has_pytorch_s_rank_orders_for_p2_and_p4_with_v2_m8(void)
{
	const struct {
		int p;
		const char *const *rows;
	} cases[] = {{2, zb1p_p2_v2_m8_rows}, {4, zb1p_p4_v2_m8_rows}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sched *s = sched_new(sched_find("interleaved-zb"),
		                            &(struct sched_params){cases[i].p, 2, 8, 0});
		struct pp_error err = {0};
		struct op want[64];

		CU_ASSERT_TRUE(s->split);
		for (int d = 0; d < cases[i].p; d++)
			CU_ASSERT_TRUE(unit_device_is(s, d, want,
			                              unit_torch_ops(cases[i].rows[d], want, 64)));
		CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
		sched_free(s);
	}
}

static void sched_interleaved_zb_takes_pytorch_s_m_only_and_no_group_size(void)
{
	const struct sched_desc *d = sched_find("interleaved-zb");
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 10, 0}, NULL, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 3, 0}, NULL, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 9, 0}, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "interleaved-zb with p=4 needs m a multiple of its rounds "
	                                "max(1, floor(m/p)), as PyTorch's "
	                                "ScheduleInterleavedZeroBubble; nearest valid m: 8 and 10");
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 8, 4}, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg,
	                       "only interleaved and interleaved-combined have groups, not "
	                       "'interleaved-zb'");
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 1, 8, 0}, NULL, &err), -1);
}

/* Megatron-LM's combined 1F1B, p=2, v=2, m=4, as tests/tools/megatron-reference.py records
 * it, and by hand: device 0 warms up with 2(p-1) + (v-1)g + 1 = 5 forwards of the schedule
 * table (micro-batches 0, 1 on chunk 0, on chunk 1, then 2, 3 on chunk 0), device 1 with 3;
 * then forward k+w runs with backward k (forward k's micro-batch on the mirrored chunk) as one
 * overlapped step, and the backwards left run alone. */
static const char *const combined_p2_v2_m4[2] = {
        "0F0,0F1,2F0,2F1,0F2,(0F3;2B0)OVERLAP_F_B,(2F2;2B1)OVERLAP_F_B,(2F3;0B0)OVERLAP_F_B,0B1,"
        "2B2,2B3,0B2,0B3",
        "1F0,1F1,3F0,(3F1;3B0)OVERLAP_F_B,(1F2;3B1)OVERLAP_F_B,(1F3;1B0)OVERLAP_F_B,(3F2;1B1)"
        "OVERLAP_F_B,(3F3;3B2)OVERLAP_F_B,3B3,1B2,1B3"};

static void sched_interleaved_combined_p2_v2_m4_equals_megatron_lm_s_combined_1f1b(void)
{
	const struct sched_desc *desc = sched_find("interleaved-combined");
	struct sched *s = sched_new(desc, &(struct sched_params){2, 2, 4, 0});
	struct op want[32];
	struct pp_error err = {0};

	CU_ASSERT_FALSE(s->split);
	CU_ASSERT_FALSE(s->mixed);
	CU_ASSERT_TRUE(s->overlap);
	CU_ASSERT_EQUAL(s->placement, PLACE_LOOP);
	CU_ASSERT_EQUAL(s->group, 2);
	for (int d = 0; d < 2; d++)
		CU_ASSERT_TRUE(
		        unit_device_is(s, d, want, unit_torch_ops(combined_p2_v2_m4[d], want, 32)));
	CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	sched_free(s);
}

/* The ops of device d of kind (F or BW) in order, as (micro-batch, stage) pairs in out. */
static size_t ops_of_kind(const struct sched *s, int d, enum op_kind kind, struct op *out)
{
	size_t n = 0;

	for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++)
		if (s->ops[i].kind == kind)
			out[n++] = (struct op){s->ops[i].mb, s->ops[i].stage, kind, 0};
	return n;
}

static void sched_interleaved_combined_is_interleaved_with_one_more_warm_up_forward(void)
{
	/* per device: m*v forwards and m*v fused backwards, each in interleaved 1F1B's order;
	 * w = min(2(p-d-1) + (v-1)g + 1, m*v) forwards first, then m*v - w pairs (an F flagged
	 * OP_OVERLAP, then a BW that needs nothing of it), then the backwards left */
	static const int ps[] = {2, 3, 4, 8}, vs[] = {2, 3, 4}, ks[] = {1, 2, 3, 4};

	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 3; b++)
			for (size_t c = 0; c < 4; c++) {
				int p = ps[a], v = vs[b], m = ks[c] * p, total = m * v;
				struct sched_params sp = {p, v, m, 0};
				struct sched *s =
				        sched_new(sched_find("interleaved-combined"), &sp);
				struct sched *plain = sched_new(sched_find("interleaved"), &sp);
				struct op *x = malloc(2 * (size_t)total * sizeof(*x));
				struct op *y = malloc(2 * (size_t)total * sizeof(*y));
				struct pp_error err = {0};

				CU_ASSERT_EQUAL(plain->group, p);
				CU_ASSERT_EQUAL(s->group, p);
				for (int d = 0; d < p; d++) {
					const struct op *o = &s->ops[s->dev_start[d]];
					int w = 2 * (p - d - 1) + (v - 1) * p + 1, pairs = 0;

					w = w < total ? w : total;
					CU_ASSERT_EQUAL_FATAL(s->dev_start[d + 1] - s->dev_start[d],
					                      2 * (size_t)total);
					for (int k = 0; k < 2; k++) {
						enum op_kind kind = k == 0 ? OP_F : OP_BW;
						size_t n = ops_of_kind(s, d, kind, x);

						CU_ASSERT_EQUAL_FATAL(n, (size_t)total);
						CU_ASSERT_EQUAL_FATAL(
						        ops_of_kind(plain, d, kind, y), n);
						for (size_t i = 0; i < n; i++)
							CU_ASSERT(x[i].mb == y[i].mb &&
							          x[i].stage == y[i].stage);
					}
					for (int i = 0; i < w; i++)
						CU_ASSERT(o[i].kind == OP_F && o[i].flags == 0);
					for (int i = w; i < 2 * total; i++) {
						if (o[i].flags & OP_OVERLAP) {
							pairs++;
							CU_ASSERT_EQUAL(o[i].kind, OP_F);
							CU_ASSERT_EQUAL_FATAL(o[i + 1].kind, OP_BW);
							CU_ASSERT(o[i + 1].mb != o[i].mb ||
							          o[i + 1].stage != o[i].stage);
							CU_ASSERT_EQUAL(o[++i].flags, 0);
						} else {
							CU_ASSERT_EQUAL(o[i].kind, OP_BW);
						}
					}
					CU_ASSERT_EQUAL(pairs, total - w);
				}
				CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
				CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
				sched_free(s);
				sched_free(plain);
				free(x);
				free(y);
			}
}

static void sched_interleaved_combined_peaks_one_forward_above_its_warm_up(void)
{
	const struct sched_desc *desc = sched_find("interleaved-combined");
	struct sched_params sp = {4, 2, 8, 0};
	struct sched *s = sched_new(desc, &sp);
	double peak[4];
	/* warm-up 2(p-d-1) + (v-1)p + 1 = 11, 9, 7, 5 chunks, one more while a pair runs; device
	 * 0 holds all 16 chunks' worth at most */
	static const double want[4] = {12.0 / 2, 10.0 / 2, 8.0 / 2, 6.0 / 2};

	sched_peak_units(s, peak);
	for (int d = 0; d < 4; d++) {
		ASSERT_NEAR(peak[d], want[d]);
		ASSERT_NEAR(desc->peak.fn(&sp, d), want[d]);
	}
	/* m = p: device 0's warm-up is every forward */
	ASSERT_NEAR(desc->peak.fn(&(struct sched_params){4, 2, 4, 0}, 0), 4);
	CU_ASSERT_STRING_EQUAL(desc->peak.text, "min(2(p-d-1) + (v-1)g + 2, m*v) / v");
	sched_free(s);
}

static void sched_interleaved_combined_theory_is_interleaved_s_at_overlap_1_only(void)
{
	const struct sched_desc *d = sched_find("interleaved-combined");

	ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 2, 8, 0}, 1, 1, 1, 1), 3.0 / 19);
	ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 4, 16, 0}, 2, 3, 1, 1), 3.0 / 67);
	ASSERT_NEAR(d->theory.fn(&(struct sched_params){4, 2, 10, 5}, 1, 1, 1, 1), 3.0 / 23);
	CU_ASSERT_TRUE(isnan(d->theory.fn(&(struct sched_params){4, 2, 8, 0}, 1, 1, 1, 0.8)));
	CU_ASSERT_TRUE(d->overlaps);
	CU_ASSERT_TRUE(d->groups);
	CU_ASSERT_FALSE(d->split);
	CU_ASSERT_EQUAL(d->min_v, 2);
	CU_ASSERT_EQUAL(d->max_v, 0);
}

static void sched_accepts_interleaved_combined_as_megatron_lm_does(void)
{
	const struct sched_desc *d = sched_find("interleaved-combined");
	const char *key = NULL;
	struct pp_error err = {0};

	/* m a multiple of p by default (Megatron-LM's group of p) */
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 8, 0}, &key, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 3, 4, 0}, &key, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 10, 0}, &key, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(key, "m");
	CU_ASSERT_STRING_EQUAL(err.msg, "interleaved-combined with p=4 needs m a multiple of p "
	                                "(Megatron-LM's default group of p micro-batches); "
	                                "nearest valid m: 8 and 12");
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 3, 0}, &key, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "interleaved-combined with p=4 needs m a multiple of p "
	                                "(Megatron-LM's default group of p micro-batches); "
	                                "nearest valid m: 4");
	/* a group g: p <= g <= m, and m mod g of 0 or at least p */
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 10, 5}, &key, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 9, 5}, &key, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 6, 5}, &key, &err), -1);
	CU_ASSERT_STRING_EQUAL(key, "group_size");
	CU_ASSERT_STRING_EQUAL(err.msg, "interleaved-combined needs p <= g <= m and m mod g of 0 "
	                                "or at least p (Megatron-LM's rule; here p=4, m=6); "
	                                "nearest valid m for g=5: 5 and 9; nearest valid g for "
	                                "m=6: 6");
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 2, 8, 3}, &key, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "interleaved-combined needs a group of at least p=4 "
	                                "micro-batches (Megatron-LM's rule p <= g <= m)");
	/* an interleaved pipeline of two chunks or more on two devices or more; one chunk and any
	 * m on one device (combined_1f1b_schedule_for_no_pipelining) */
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){1, 1, 5, 0}, &key, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){1, 1, 1, 0}, &key, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){1, 2, 4, 0}, &key, &err), -1);
	CU_ASSERT_STRING_EQUAL(key, "v");
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule 'interleaved-combined' needs v=1 with p=1");
	CU_ASSERT_EQUAL(sched_accepts(d, &(struct sched_params){4, 1, 8, 0}, &key, &err), -1);
	CU_ASSERT_STRING_EQUAL(key, "v");
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule 'interleaved-combined' needs v >= 2 with p >= 2");
	CU_ASSERT_EQUAL(sched_desc_min_v(d, 1), 1);
	CU_ASSERT_EQUAL(sched_desc_min_v(d, 2), 2);
	CU_ASSERT_EQUAL(sched_desc_fit_v(d, 1, 3), 1);
	CU_ASSERT_EQUAL(sched_desc_fit_v(d, 4, 1), 2);
	CU_ASSERT_EQUAL(sched_desc_fit_v(sched_find("1f1b"), 4, 3), 1);
}

/* Megatron-Core's combined 1F1B without pipelining (combined_1f1b.py,
 * combined_1f1b_schedule_for_no_pipelining): the first forward alone, then forward k+1 and
 * backward k as one step, then the last backward alone. */
static void sched_interleaved_combined_on_one_device_is_megatron_s_no_pipelining_order(void)
{
	for (int m = 1; m <= 6; m++) {
		struct sched_params sp = {1, 1, m, 0};
		struct sched *s = sched_new(sched_find("interleaved-combined"), &sp);
		size_t i = 0;

		CU_ASSERT_FATAL(s != NULL);
		CU_ASSERT_EQUAL(s->nops, (size_t)(2 * m));
		CU_ASSERT(s->ops[i].kind == OP_F && s->ops[i].mb == 0u && !(s->ops[i].flags & OP_OVERLAP));
		i++;
		for (int k = 0; k + 1 < m; k++, i += 2) {
			CU_ASSERT(s->ops[i].kind == OP_F && s->ops[i].mb == (uint32_t)k + 1 &&
			          (s->ops[i].flags & OP_OVERLAP));
			CU_ASSERT(s->ops[i + 1].kind == OP_BW && s->ops[i + 1].mb == (uint32_t)k);
		}
		CU_ASSERT(s->ops[i].kind == OP_BW && s->ops[i].mb == (uint32_t)m - 1 &&
		          !(s->ops[i].flags & OP_OVERLAP));
		sched_free(s);
	}
}

static void sched_vhalf_and_vmin_hold_about_a_half_and_a_third_of_1f1b_s_activations(void)
{
	/* at most floor(p/2)+1 and floor((p+1)/3)+1 micro-batches when W keeps everything until it
	 * runs; the authors' 1/2 and 1/3 of 1F1B's p */
	for (int p = 1; p <= 12; p++)
		for (int m = 1; m <= 3 * p; m += (m < 2 * p ? 1 : p)) {
			struct sched_params sp = {p, 2, m, 0};
			struct sched *h = sched_new(sched_find("vhalf"), &sp),
			             *n = sched_new(sched_find("vmin"), &sp);
			double peak_h[12], peak_n[12], top_h = 0, top_n = 0;
			int want_h = p / 2 + 1 < m ? p / 2 + 1 : m;
			int want_n = (p + 1) / 3 + 1 < m ? (p + 1) / 3 + 1 : m;

			sched_peak_units(h, peak_h);
			sched_peak_units(n, peak_n);
			for (int d = 0; d < p; d++) {
				top_h = peak_h[d] > top_h ? peak_h[d] : top_h;
				top_n = peak_n[d] > top_n ? peak_n[d] : top_n;
			}
			/* the bounds are reached */
			ASSERT_NEAR(top_h, want_h);
			ASSERT_NEAR(top_n, want_n);
			sched_free(h);
			sched_free(n);
		}
}

/* The zero-bubble authors' v1f1b.create_schedule for p=4, m=8 (their runtime's order, as in
 * tests/golden/zb-reference/v1f1b.txt): stage 7-d is chunk 1 of device d, B the fused BW. */
static const char *const v1f1b_p4_m8_rows[4] = {
        "0F0,0F1,0F2,0F3,0F4,7F0,7B0,7F1,7B1,7F2,7B2,7F3,7B3,0B0,0F5,7F4,7B4,0B1,0F6,7F5,7B5,0B2,"
        "0F7,7F6,7B6,0B3,7F7,7B7,0B4,0B5,0B6,0B7",
        "1F0,1F1,1F2,1F3,6F0,6F1,6B0,6F2,6B1,1F4,6B2,6F3,1B0,6B3,6F4,1F5,1B1,6B4,6F5,1F6,1B2,6B5,"
        "6F6,1F7,1B3,6B6,6F7,1B4,6B7,1B5,1B6,1B7",
        "2F0,2F1,2F2,5F0,5F1,5F2,5B0,2F3,5B1,2F4,2B0,5F3,5B2,2B1,5F4,5B3,2F5,2B2,5F5,5B4,2F6,2B3,"
        "5F6,5B5,2F7,2B4,5F7,5B6,2B5,5B7,2B6,2B7",
        "3F0,4F0,3F1,4F1,3F2,4F2,4B0,3B0,3F3,4F3,4B1,3B1,3F4,4F4,4B2,3B2,3F5,4F5,4B3,3B3,3F6,4F6,"
        "4B4,3B4,3F7,4F7,4B5,3B5,4B6,3B6,4B7,3B7",
};

static void sched_1f1b_v_order_of_p4_m8_equals_the_authors_v1f1b(void)
{
	struct sched *s = sched_new(sched_find("1f1b-v"), &(struct sched_params){4, 2, 8, 0});
	struct op want[32];

	CU_ASSERT_FALSE(s->split);
	CU_ASSERT_EQUAL(s->placement, PLACE_V);
	for (int d = 0; d < 4; d++) {
		size_t n = unit_torch_ops(v1f1b_p4_m8_rows[d], want, 32);

		CU_ASSERT_EQUAL(n, 32);
		CU_ASSERT_TRUE(unit_device_is(s, d, want, n));
	}
	sched_free(s);
}

static void sched_1f1b_v_runs_one_micro_batch_down_and_back_up_the_v(void)
{
	/* m=1: each device runs F of chunk 0, F of chunk 1, then the backwards of 1 and 0; p=1
	 * too (one device holding both stages) */
	for (int p = 1; p <= 5; p++) {
		struct sched *s =
		        sched_new(sched_find("1f1b-v"), &(struct sched_params){p, 2, 1, 0});

		for (int d = 0; d < p; d++) {
			const struct op *o = &s->ops[s->dev_start[d]];
			int up = 2 * p - 1 - d;

			CU_ASSERT_EQUAL(s->dev_start[d + 1] - s->dev_start[d], 4);
			CU_ASSERT(o[0].kind == OP_F && o[0].stage == (uint32_t)d);
			CU_ASSERT(o[1].kind == OP_F && o[1].stage == (uint32_t)up);
			CU_ASSERT(o[2].kind == OP_BW && o[2].stage == (uint32_t)up);
			CU_ASSERT(o[3].kind == OP_BW && o[3].stage == (uint32_t)d);
		}
		sched_free(s);
	}
}

static void sched_1f1b_v_peaks_at_its_bound_on_every_device(void)
{
	/* min(2m, m + d + 1 + floor(d/2), 2 ceil((2p+1)/3)) chunks, exactly (the authors' code for
	 * p <= 24, m <= 3p): about 2/3 of 1F1B's p micro-batches once m >= 2 ceil((2p+1)/3) - 1 */
	for (int p = 1; p <= 12; p++)
		for (int m = 1; m <= 3 * p; m++) {
			struct sched_params sp = {p, 2, m, 0};
			struct sched *s = sched_new(sched_find("1f1b-v"), &sp);
			double peak[12];
			int steady = 2 * ((2 * p + 3) / 3);

			sched_peak_units(s, peak);
			for (int d = 0; d < p; d++) {
				ASSERT_NEAR(peak[d], s->desc->peak.fn(&sp, d));
				if (m >= steady - 1)
					ASSERT_NEAR(peak[d], steady / 2.0);
			}
			sched_free(s);
		}
}

static void sched_check_rejects_an_overlap_flag_that_does_not_pair_an_f_with_a_backward(void)
{
	size_t counts[1] = {5};
	struct sched *s;
	struct pp_error err = {0};

	/* a flagged F followed by another F */
	s = sched_alloc_counts(1, 1, 2, true, PLACE_LOOP, counts);
	s->mixed = true;
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_B, 1, 0);
	sched_push(s, 0, OP_W, 1, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), 0);
	s->ops[0].flags = OP_OVERLAP;
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "F(mb 0, stage 0) on device 0: an overlapped pair is an F "
	                                "followed by a B or BW");
	/* a flagged backward */
	s->ops[0].flags = 0;
	s->ops[2].flags = OP_OVERLAP;
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "BW(mb 0, stage 0) on device 0: an overlapped pair is an "
	                                "F followed by a B or BW");
	/* a flagged F followed by its partner: accepted */
	s->ops[2].flags = 0;
	s->ops[1].flags = OP_OVERLAP;
	CU_ASSERT_EQUAL(sched_check(s, &err), 0);
	/* a flagged F that ends its device's list */
	s->ops[1].flags = 0;
	s->ops[4] = (struct op){1, 0, OP_F, OP_OVERLAP};
	s->ops[1] = (struct op){1, 0, OP_W, 0};
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "F(mb 1, stage 0) on device 0: an overlapped pair is an F "
	                                "followed by a B or BW");
	sched_free(s);
}

static void sched_check_order_rejects_a_pair_whose_backward_needs_its_own_forward(void)
{
	size_t counts[1] = {4};
	struct sched *s = sched_alloc_counts(1, 1, 2, false, PLACE_LOOP, counts);
	struct pp_error err = {0};

	/* the pair (F1 ; BW1) is one slot: BW1 cannot wait for an F of the same slot */
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push_pair(s, 0, 1, 0, OP_BW, 1, 0);
	CU_ASSERT_TRUE(s->overlap);
	CU_ASSERT_EQUAL(s->ops[2].flags, OP_OVERLAP);
	CU_ASSERT_EQUAL(s->ops[3].flags, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), 0);
	CU_ASSERT_EQUAL(sched_check_order(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "cyclic wait after 2 of 4 ops: device 0 waits in BW(mb 1, "
	                                "stage 0) for its own F(mb 1, stage 0); cycle: device 0 -> "
	                                "device 0");
	sched_free(s);
}

static void sched_check_order_runs_a_pair_once_both_partners_inputs_are_there(void)
{
	size_t counts[2] = {4, 4};
	struct sched *s = sched_alloc_counts(2, 1, 2, false, PLACE_LOOP, counts);
	struct pp_error err = {0};

	/* device 1 pairs F1 with BW0; device 0 waits for BW0's gradient before its backwards */
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push_pair(s, 1, 1, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_BW, 1, 1);
	CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	sched_free(s);
}

static void sched_check_accepts_a_mixed_schedule_with_bw_or_b_and_w_per_micro_batch(void)
{
	size_t counts[1] = {5};
	struct sched *s = sched_alloc_counts(1, 1, 2, true, PLACE_LOOP, counts);
	struct pp_error err = {0};

	s->mixed = true;
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_B, 1, 0);
	sched_push(s, 0, OP_W, 1, 0);
	CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
	/* the same list is wrong for a schedule that only splits */
	s->mixed = false;
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_STRING_EQUAL(
	        err.msg, "BW(mb 0, stage 0) on device 0: fused BW in a split-backward schedule");
	sched_free(s);
}

static void sched_check_rejects_a_mixed_backward_given_twice_or_a_w_without_its_b(void)
{
	size_t counts[1] = {4};
	struct sched *s = sched_alloc_counts(1, 1, 1, true, PLACE_LOOP, counts);
	struct pp_error err = {0};

	/* BW and B of the same (micro-batch, stage) */
	s->mixed = true;
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_B, 0, 0);
	sched_push(s, 0, OP_W, 0, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(
	        err.msg, "B(mb 0, stage 0) on device 0: its backward appears both fused and split");
	sched_free(s);
	/* a W next to a fused BW: its B is missing */
	counts[0] = 3;
	s = sched_alloc_counts(1, 1, 1, true, PLACE_LOOP, counts);
	s->mixed = true;
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_W, 0, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "B(mb 0, stage 0): missing (device 0 never runs it)");
	sched_free(s);
	/* no backward at all: named as the fused one */
	counts[0] = 1;
	s = sched_alloc_counts(1, 1, 1, true, PLACE_LOOP, counts);
	s->mixed = true;
	sched_push(s, 0, OP_F, 0, 0);
	CU_ASSERT_EQUAL(sched_check(s, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "BW(mb 0, stage 0): missing (device 0 never runs it)");
	sched_free(s);
}

static void sched_copy_is_the_same_order_in_arrays_of_its_own(void)
{
	struct sched_params sp = {4, 2, 8, 0};
	struct sched *s = sched_new(sched_find("dualpipev"), &sp), *c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	c = sched_copy(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT(c->ops != s->ops && c->dev_start != s->dev_start);
	CU_ASSERT_EQUAL(c->nops, s->nops);
	CU_ASSERT_EQUAL(c->routes, s->routes);
	CU_ASSERT_EQUAL(c->placement, s->placement);
	CU_ASSERT_EQUAL(c->overlap, s->overlap);
	CU_ASSERT_EQUAL(c->mixed, s->mixed);
	CU_ASSERT_PTR_EQUAL(c->desc, s->desc);
	CU_ASSERT_EQUAL(memcmp(c->ops, s->ops, s->nops * sizeof(*s->ops)), 0);
	CU_ASSERT_EQUAL(memcmp(c->dev_start, s->dev_start, 5 * sizeof(*s->dev_start)), 0);
	CU_ASSERT_EQUAL(sched_validate(c, &(struct pp_error){0}), 0);
	sched_free(s);
	sched_free(c);
}

/* sched_reorder_devices moves each device's list whole to its new number: stages, starts and
 * sched_stage_of follow, the schedule stays valid (its peak bound the generated device's), and
 * a copy keeps the order. */
static void sched_reorder_devices_moves_each_list_whole(void)
{
	const char *names[] = {"1f1b", "interleaved", "zbv", "dualpipe", "dualpipev"};
	int order[4] = {2, 0, 3, 1};

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const struct sched_desc *desc = sched_find(names[k]);
		struct sched_params sp = {4, desc->min_v, 8, 0};
		struct sched *g = sched_new(desc, &sp), *s = sched_new(desc, &sp), *c;

		CU_ASSERT_PTR_NOT_NULL_FATAL(g);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL_FATAL(sched_reorder_devices(s, order), 0);
		for (int i = 0; i < 4; i++) {
			size_t n = g->dev_start[i + 1] - g->dev_start[i];

			CU_ASSERT_EQUAL(s->dev_start[order[i] + 1] - s->dev_start[order[i]], n);
			CU_ASSERT_EQUAL(memcmp(s->ops + s->dev_start[order[i]], g->ops + g->dev_start[i],
			                       n * sizeof(*g->ops)),
			                0);
			CU_ASSERT_EQUAL(s->dev_logical[order[i]], (uint32_t)i);
			for (int ch = 0; ch < g->v; ch++)
				CU_ASSERT_EQUAL(sched_stage_of(s, order[i], ch), sched_stage_of(g, i, ch));
		}
		for (int st = 0; st < g->S; st++)
			CU_ASSERT_EQUAL(s->stage_device[st], (uint32_t)order[g->stage_device[st]]);
		CU_ASSERT_EQUAL(sched_validate(s, &(struct pp_error){0}), 0);
		c = sched_copy(s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(memcmp(c->stage_device, s->stage_device, 4 * (size_t)s->v * 4), 0);
		CU_ASSERT_EQUAL(memcmp(c->dev_logical, s->dev_logical, 4 * sizeof(uint32_t)), 0);
		CU_ASSERT_EQUAL(sched_validate(c, &(struct pp_error){0}), 0);
		sched_free(c);
		sched_free(s);
		sched_free(g);
	}
}

static const struct unit_test tests[] = {
        UNIT_TEST(sched_find_takes_each_name_and_pytorch_s_in_any_case),
        UNIT_TEST(sched_table_rows_are_whole_and_found_by_their_names),
        UNIT_TEST(sched_table_gives_each_family_its_backward_chunks_and_limit),
        UNIT_TEST(sched_theory_of_gpipe_and_1f1b_is_p_minus_1_over_m_plus_p_minus_1),
        UNIT_TEST(sched_kind_names_are_the_report_letters),
        UNIT_TEST(sched_op_format_names_kind_micro_batch_and_stage),
        UNIT_TEST(sched_op_count_is_stages_times_microbatches_times_kinds),
        UNIT_TEST(sched_message_count_is_two_m_per_boundary_between_two_devices),
        UNIT_TEST(sched_op_count_reports_overflow),
        UNIT_TEST(sched_accepts_one_chunk_only_for_gpipe_and_1f1b),
        UNIT_TEST(sched_loop_placement_puts_chunk_c_of_device_d_on_stage_cp_plus_d),
        UNIT_TEST(sched_v_placement_folds_the_second_chunk_back),
        UNIT_TEST(sched_alloc_gives_each_device_its_share),
        UNIT_TEST(sched_gpipe_runs_all_forwards_then_all_backwards_in_microbatch_order),
        UNIT_TEST(sched_gpipe_order_of_p4_m3_reads_as_expected),
        UNIT_TEST(sched_1f1b_order_of_p4_m8_reads_as_expected),
        UNIT_TEST(sched_1f1b_order_with_fewer_microbatches_than_devices_reads_as_expected),
        UNIT_TEST(sched_1f1b_warms_up_then_alternates_then_cools_down),
        UNIT_TEST(sched_1f1b_keeps_at_most_p_minus_d_in_flight),
        UNIT_TEST(sched_validate_accepts_every_generator_over_the_p_v_m_grid),
        UNIT_TEST(sched_check_accepts_a_hand_built_schedule),
        UNIT_TEST(sched_check_accepts_a_hand_built_split_v_schedule),
        UNIT_TEST(sched_check_rejects_a_duplicate_op),
        UNIT_TEST(sched_check_rejects_a_device_missing_an_op),
        UNIT_TEST(sched_check_rejects_an_op_on_the_wrong_device),
        UNIT_TEST(sched_check_rejects_a_fused_backward_in_a_split_schedule),
        UNIT_TEST(sched_check_rejects_a_split_backward_in_a_fused_schedule),
        UNIT_TEST(sched_check_rejects_an_out_of_range_microbatch),
        UNIT_TEST(sched_check_rejects_an_out_of_range_stage),
        UNIT_TEST(sched_interleaved_order_equals_megatron_lm_for_p_2_4_8_v_2_3_4_m_p_2p_4p),
        UNIT_TEST(sched_interleaved_order_of_p2_v2_m4_reads_as_expected),
        UNIT_TEST(sched_interleaved_uses_torch_groups_when_p_does_not_divide_m),
        UNIT_TEST(sched_interleaved_theory_is_p_minus_1_over_mv_plus_p_minus_1),
        UNIT_TEST(sched_interleaved_peak_bound_of_p4_v2_m8_is_5_5_on_device_0),
        UNIT_TEST(sched_zbh1_order_of_p4_m8_matches_figure_3_of_the_zero_bubble_paper),
        UNIT_TEST(sched_zbh2_order_of_p4_m8_matches_figure_3_of_the_zero_bubble_paper),
        UNIT_TEST(sched_zbh1_and_zbh2_peak_bounds_are_p_and_2p_minus_1),
        UNIT_TEST(sched_accepts_rejects_interleaved_with_one_chunk),
        UNIT_TEST(sched_accepts_rejects_interleaved_p4_m9_naming_m_8_and_10),
        UNIT_TEST(sched_accepts_interleaved_m_in_pytorch_lists_for_p4_and_p8),
        UNIT_TEST(sched_accepts_rejects_group_sizes_megatron_lm_rejects),
        UNIT_TEST(sched_accepts_a_group_size_only_for_interleaved),
        UNIT_TEST(sched_accepts_interleaved_p4_m3_and_m10_as_pytorch_does),
        UNIT_TEST(sched_accepts_rejects_zbh1_and_zbh2_with_two_chunks),
        UNIT_TEST(sched_accepts_zbh2_only_with_at_least_2p_minus_1_microbatches),
        UNIT_TEST(sched_check_order_names_each_device_of_a_cyclic_wait),
        UNIT_TEST(sched_check_order_rejects_a_w_before_its_own_b),
        UNIT_TEST(sched_check_order_names_the_cycle_and_not_a_device_that_only_waits_on_it),
        UNIT_TEST(sched_check_order_accepts_every_generated_schedule_of_p4),
        UNIT_TEST(sched_validate_rejects_a_missing_op_a_duplicate_a_wrong_device_and_a_cycle),
        UNIT_TEST(sched_validate_rejects_1f1b_whose_device_0_runs_all_forwards_first),
        UNIT_TEST(sched_validate_ignores_peaks_of_a_schedule_without_generator),
        UNIT_TEST(sched_zbv_order_of_p4_m8_equals_pytorch_schedule_zbv_zero_bubble),
        UNIT_TEST(sched_zbv_leaves_out_the_ops_of_micro_batches_beyond_m),
        UNIT_TEST(sched_zbv_holds_at_most_min_of_p_and_m_micro_batches_and_p_from_m_2p_minus_1),
        UNIT_TEST(sched_loopedbfs_runs_each_chunk_s_forwards_then_backwards_in_reverse),
        UNIT_TEST(sched_loopedbfs_p2_v2_m3_equals_the_pytorch_rows),
        UNIT_TEST(sched_dualpipev_p4_m10_device_0_equals_the_pytorch_artifact),
        UNIT_TEST(sched_dualpipev_p2_m4_equals_the_transcribed_pytorch_rows),
        UNIT_TEST(sched_dualpipev_counts_pairs_and_split_backwards_as_deepseek_s_steps_do),
        UNIT_TEST(sched_accepts_dualpipev_only_with_at_least_2p_micro_batches_and_zbv_with_any),
        UNIT_TEST(sched_dualpipe_p4_m8_equals_deepseek_s_dualpipe_py),
        UNIT_TEST(sched_dualpipe_runs_dualpipev_on_each_half_its_copies_swapped_in_the_second),
        UNIT_TEST(sched_accepts_dualpipe_only_with_an_even_p_and_an_even_m_of_at_least_2p),
        UNIT_TEST(sched_dualpipe_has_deepseek_s_bubble_and_activations_at_unit_costs),
        UNIT_TEST(sched_dualpipe_holds_twice_the_parameters_of_1f1b_on_every_rank),
        UNIT_TEST(sched_message_count_counts_each_route_s_hops_for_its_micro_batches),
        UNIT_TEST(sched_check_refuses_an_op_of_a_micro_batch_off_its_route),
        UNIT_TEST(sched_zb_auto_with_a_limit_of_p_gives_zb_h1_s_order_for_unit_times),
        UNIT_TEST(sched_zb2p_order_of_p4_m8_equals_the_authors_heuristic_at_limit_2p),
        UNIT_TEST(sched_interleaved_zb_has_pytorch_s_rank_orders_for_p2_and_p4_with_v2_m8),
        UNIT_TEST(sched_interleaved_zb_takes_pytorch_s_m_only_and_no_group_size),
        UNIT_TEST(sched_interleaved_combined_p2_v2_m4_equals_megatron_lm_s_combined_1f1b),
        UNIT_TEST(sched_interleaved_combined_is_interleaved_with_one_more_warm_up_forward),
        UNIT_TEST(sched_interleaved_combined_peaks_one_forward_above_its_warm_up),
        UNIT_TEST(sched_interleaved_combined_theory_is_interleaved_s_at_overlap_1_only),
        UNIT_TEST(sched_accepts_interleaved_combined_as_megatron_lm_does),
        UNIT_TEST(sched_interleaved_combined_on_one_device_is_megatron_s_no_pipelining_order),
        UNIT_TEST(sched_vhalf_and_vmin_hold_about_a_half_and_a_third_of_1f1b_s_activations),
        UNIT_TEST(sched_zb_auto_keeps_alive_activations_within_each_limit),
        UNIT_TEST(sched_zb_auto_gives_its_oracle_s_order_for_any_shape_prices_and_threads),
        UNIT_TEST(sched_zbv_auto_gives_its_oracle_s_order_for_any_shape_prices_and_threads),
        UNIT_TEST(sched_1f1b_v_order_of_p4_m8_equals_the_authors_v1f1b),
        UNIT_TEST(sched_1f1b_v_runs_one_micro_batch_down_and_back_up_the_v),
        UNIT_TEST(sched_1f1b_v_peaks_at_its_bound_on_every_device),
        UNIT_TEST(sched_check_rejects_an_overlap_flag_that_does_not_pair_an_f_with_a_backward),
        UNIT_TEST(sched_check_order_rejects_a_pair_whose_backward_needs_its_own_forward),
        UNIT_TEST(sched_check_order_runs_a_pair_once_both_partners_inputs_are_there),
        UNIT_TEST(sched_check_accepts_a_mixed_schedule_with_bw_or_b_and_w_per_micro_batch),
        UNIT_TEST(sched_check_rejects_a_mixed_backward_given_twice_or_a_w_without_its_b),
        UNIT_TEST(sched_copy_is_the_same_order_in_arrays_of_its_own),
        UNIT_TEST(sched_new_layout_is_the_layout_of_sched_new_without_its_ops),
        UNIT_TEST(sched_reorder_devices_moves_each_list_whole),
        {NULL, NULL},
};

const struct unit_suite suite_sched = {"sched", tests};
