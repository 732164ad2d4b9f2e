/* Unit tests of sched: the generator table, placement, generated orders and schedule checking. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/sched.h"
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

static void sched_find_matches_exact_names_only(void)
{
	const struct sched_desc *g = sched_find("gpipe"), *o = sched_find("1f1b");

	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_STRING_EQUAL(g->name, "gpipe");
	CU_ASSERT_STRING_EQUAL(o->name, "1f1b");
	CU_ASSERT_PTR_NULL(sched_find("GPipe"));
	CU_ASSERT_PTR_NULL(sched_find("1F1B"));
	CU_ASSERT_PTR_NULL(sched_find("1f1"));
	CU_ASSERT_PTR_NULL(sched_find("1f1b "));
	CU_ASSERT_PTR_NULL(sched_find(""));
}

static void sched_table_lists_each_generator_with_its_backward_and_chunks(void)
{
	static const struct {
		const char *name;
		bool split;
		int min_v, max_v;
	} want[] = {
	        {"gpipe", false, 1, 1}, {"1f1b", false, 1, 1}, {"interleaved", false, 2, 0},
	        {"zbh1", true, 1, 1},   {"zbh2", true, 1, 1},
	};
	size_t n;
	const struct sched_desc *t = sched_table(&n);
	char names[128];

	CU_ASSERT_EQUAL_FATAL(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_STRING_EQUAL(t[i].name, want[i].name);
		CU_ASSERT_EQUAL(t[i].split, want[i].split);
		CU_ASSERT_EQUAL(t[i].placement, PLACE_LOOP);
		CU_ASSERT_EQUAL(t[i].min_v, want[i].min_v);
		CU_ASSERT_EQUAL(t[i].max_v, want[i].max_v);
		CU_ASSERT_PTR_NOT_NULL(t[i].peak_bound);
		CU_ASSERT_PTR_EQUAL(sched_find(t[i].name), &t[i]);
	}
	CU_ASSERT_STRING_EQUAL(sched_names(names, sizeof(names)),
	                       "gpipe, 1f1b, interleaved, zbh1, zbh2");
}

static void sched_theory_of_gpipe_and_1f1b_is_p_minus_1_over_m_plus_p_minus_1(void)
{
	static const char *const names[] = {"gpipe", "1f1b"};

	for (size_t i = 0; i < 2; i++) {
		const struct sched_desc *d = sched_find(names[i]);

		ASSERT_NEAR(d->theory(&(struct sched_params){4, 1, 16, 0}, 1, 1, 1, 1), 3.0 / 19);
		ASSERT_NEAR(d->theory(&(struct sched_params){4, 1, 4, 0}, 1, 1, 1, 1), 3.0 / 7);
		ASSERT_NEAR(d->theory(&(struct sched_params){4, 1, 8, 0}, 1, 2, 0.5, 1), 3.0 / 11);
		ASSERT_NEAR(d->theory(&(struct sched_params){4, 1, 1, 0}, 1, 1, 1, 1), 0.75);
		ASSERT_NEAR(d->theory(&(struct sched_params){8, 1, 1, 0}, 1, 1, 1, 1), 0.875);
		ASSERT_NEAR(d->theory(&(struct sched_params){1, 1, 5, 0}, 1, 1, 1, 1), 0);
		CU_ASSERT_STRING_EQUAL(d->theory_text, "(p-1)/(m+p-1)");
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

			out[n++] =
			        (struct op){(uint32_t)mb, (uint32_t)((v - 1 - c) * p + d), OP_BW, 0};
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

	ASSERT_NEAR(d->theory(&(struct sched_params){4, 2, 8, 0}, 1, 1, 1, 1), 3.0 / 19);
	ASSERT_NEAR(d->theory(&(struct sched_params){4, 2, 16, 0}, 1, 1, 1, 1), 3.0 / 35);
	ASSERT_NEAR(d->theory(&(struct sched_params){4, 4, 16, 0}, 2, 3, 1, 1), 3.0 / 67);
	/* groups smaller than p (m < p) stall: no closed form */
	CU_ASSERT_TRUE(isnan(d->theory(&(struct sched_params){4, 2, 3, 0}, 1, 1, 1, 1)));
	CU_ASSERT_STRING_EQUAL(d->theory_text, "(p-1)/(m*v+p-1)");
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
		ASSERT_NEAR(desc->peak_bound(&sp, d), 5.5 - d);
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
		ASSERT_NEAR(h1->desc->peak_bound(&sp, d), 4);
		ASSERT_NEAR(h2->desc->peak_bound(&sp, d), 7);
		ASSERT_NEAR(peak1[d], 4);
		ASSERT_NEAR(peak2[d], 7);
	}
	CU_ASSERT_STRING_EQUAL(h1->desc->peak_text, "p");
	CU_ASSERT_STRING_EQUAL(h2->desc->peak_text, "2p-1");
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
	static const struct {
		int p, m, g;
	} bad[] = {{4, 8, 3}, {4, 8, 9}, {4, 10, 4}, {4, 8, 1}, {4, 14, 6}};
	static const struct {
		int p, m, g;
	} good[] = {{4, 8, 4}, {4, 8, 8}, {4, 10, 5}, {4, 9, 5}, {4, 14, 5}};
	const struct sched_desc *desc = sched_find("interleaved");
	struct pp_error err = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sched_params sp = {bad[i].p, 2, bad[i].m, bad[i].g};
		char want[64];

		const char *key = NULL;

		memset(&err, 0, sizeof(err));
		CU_ASSERT_EQUAL(sched_accepts(desc, &sp, &key, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		CU_ASSERT_STRING_EQUAL(key, "group_size");
		snprintf(want, sizeof(want), "interleaved needs p <= g <= m");
		CU_ASSERT_EQUAL(strncmp(err.msg, want, strlen(want)), 0);
		snprintf(want, sizeof(want), "p=%d, m=%d", bad[i].p, bad[i].m);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
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
	CU_ASSERT_STRING_EQUAL(err.msg, "only the interleaved schedule has groups, not '1f1b'");
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
	                       "stage 1) for F(mb 1, stage 0) from device 0");
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
	                                "stage 0) for its own B(mb 0, stage 0)");
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

static const struct unit_test tests[] = {
        UNIT_TEST(sched_find_matches_exact_names_only),
        UNIT_TEST(sched_table_lists_each_generator_with_its_backward_and_chunks),
        UNIT_TEST(sched_theory_of_gpipe_and_1f1b_is_p_minus_1_over_m_plus_p_minus_1),
        UNIT_TEST(sched_kind_names_are_the_report_letters),
        UNIT_TEST(sched_op_format_names_kind_micro_batch_and_stage),
        UNIT_TEST(sched_op_count_is_stages_times_microbatches_times_kinds),
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
        UNIT_TEST(sched_check_order_accepts_every_generated_schedule_of_p4),
        UNIT_TEST(sched_validate_rejects_a_missing_op_a_duplicate_a_wrong_device_and_a_cycle),
        UNIT_TEST(sched_validate_rejects_1f1b_whose_device_0_runs_all_forwards_first),
        UNIT_TEST(sched_validate_ignores_peaks_of_a_schedule_without_generator),
        {NULL, NULL},
};

const struct unit_suite suite_sched = {"sched", tests};
