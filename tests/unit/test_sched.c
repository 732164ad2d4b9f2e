/* Unit tests of sched: the generator table, placement, generated orders and schedule checking. */
#include <limits.h>
#include <stdio.h>
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

static void sched_table_lists_gpipe_then_1f1b_with_fused_backward(void)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);
	char names[64];

	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(t[0].name, "gpipe");
	CU_ASSERT_STRING_EQUAL(t[1].name, "1f1b");
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_FALSE(t[i].split);
		CU_ASSERT_EQUAL(t[i].placement, PLACE_LOOP);
		CU_ASSERT_EQUAL(t[i].min_v, 1);
		CU_ASSERT_EQUAL(t[i].max_v, 1);
		CU_ASSERT_PTR_EQUAL(sched_find(t[i].name), &t[i]);
	}
	CU_ASSERT_STRING_EQUAL(sched_names(names, sizeof(names)), "gpipe, 1f1b");
}

static void sched_theory_of_gpipe_and_1f1b_is_p_minus_1_over_m_plus_p_minus_1(void)
{
	static const char *const names[] = {"gpipe", "1f1b"};

	for (size_t i = 0; i < 2; i++) {
		const struct sched_desc *d = sched_find(names[i]);

		ASSERT_NEAR(d->theory(4, 1, 16, 1, 1, 1), 3.0 / 19);
		ASSERT_NEAR(d->theory(4, 1, 4, 1, 1, 1), 3.0 / 7);
		ASSERT_NEAR(d->theory(4, 1, 8, 1, 2, 0.5), 3.0 / 11);
		ASSERT_NEAR(d->theory(4, 1, 1, 1, 1, 1), 0.75);
		ASSERT_NEAR(d->theory(8, 1, 1, 1, 1, 1), 0.875);
		ASSERT_NEAR(d->theory(1, 1, 5, 1, 1, 1), 0);
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
	struct op f = {3, 1, OP_F}, bw = {0, 7, OP_BW};
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

	CU_ASSERT_EQUAL(sched_accepts(sched_find("gpipe"), 4, 1, 8, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(sched_find("1f1b"), 4, 1, 1, &err), 0);
	CU_ASSERT_EQUAL(sched_accepts(sched_find("1f1b"), 4, 2, 8, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--chunks '2': schedule '1f1b' needs v=1");
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
		struct sched *s = sched_new(sched_find("gpipe"), p, 1, m);

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
	struct sched *s = sched_new(sched_find("gpipe"), 4, 1, 3);
	char buf[256];

	for (int d = 0; d < 4; d++)
		CU_ASSERT_STRING_EQUAL(device_order(s, d, buf, sizeof(buf)),
		                       "F0 F1 F2 BW0 BW1 BW2");
	sched_free(s);
}

static void sched_1f1b_order_of_p4_m8_reads_as_expected(void)
{
	struct sched *s = sched_new(sched_find("1f1b"), 4, 1, 8);
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
	struct sched *s = sched_new(sched_find("1f1b"), 4, 1, 2);
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
			struct sched *s = sched_new(sched_find("1f1b"), p, 1, m);

			for (int d = 0; d < p; d++)
				assert_1f1b_device(s, d);
			sched_free(s);
		}
}

static void sched_1f1b_keeps_at_most_p_minus_d_in_flight(void)
{
	for (int p = 1; p <= 8; p++)
		for (int m = 1; m <= 12; m++) {
			struct sched *s = sched_new(sched_find("1f1b"), p, 1, m);

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

static void sched_check_accepts_every_generated_schedule(void)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);

	for (size_t k = 0; k < n; k++)
		for (int p = 1; p <= 8; p++)
			for (int m = 1; m <= 32; m++) {
				struct sched *s = sched_new(&t[k], p, 1, m);
				struct pp_error err = {0};

				CU_ASSERT_EQUAL(sched_check(s, &err), 0);
				CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
				sched_free(s);
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

static const struct unit_test tests[] = {
        UNIT_TEST(sched_find_matches_exact_names_only),
        UNIT_TEST(sched_table_lists_gpipe_then_1f1b_with_fused_backward),
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
        UNIT_TEST(sched_check_accepts_every_generated_schedule),
        UNIT_TEST(sched_check_accepts_a_hand_built_schedule),
        UNIT_TEST(sched_check_accepts_a_hand_built_split_v_schedule),
        UNIT_TEST(sched_check_rejects_a_duplicate_op),
        UNIT_TEST(sched_check_rejects_a_device_missing_an_op),
        UNIT_TEST(sched_check_rejects_an_op_on_the_wrong_device),
        UNIT_TEST(sched_check_rejects_a_fused_backward_in_a_split_schedule),
        UNIT_TEST(sched_check_rejects_a_split_backward_in_a_fused_schedule),
        UNIT_TEST(sched_check_rejects_an_out_of_range_microbatch),
        UNIT_TEST(sched_check_rejects_an_out_of_range_stage),
        {NULL, NULL},
};

const struct unit_suite suite_sched = {"sched", tests};
