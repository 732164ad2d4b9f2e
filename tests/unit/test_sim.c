/*
 * Unit tests of sim: the whole flow for the schedules that need more than a generator and a
 * uniform cost (ZB-V, LoopedBFS, DualPipeV's overlapped pairs, the priced zb-auto), per-device
 * and per-stage op-time scales, the default chunk count, and schedule files. Expected figures
 * come from the research notes' closed forms and are computed here.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppsim/schedfile.h"
#include "ppsim/sim.h"
#include "unit.h"

/* A time of s in units. */
static double units(const struct sim *s, pp_time t)
{
	return pp_time_to_units(t, s->cost->tick);
}

/* Duration of op i of s in units. */
static double took(const struct sim *s, size_t i)
{
	return units(s, s->result->times[i].end - s->result->times[i].start);
}

static void sim_zbv_p4_m8_takes_25_5_units_holds_at_most_p_and_sends_96_messages(void)
{
	struct config c = unit_config("zbv", 4, 2, 8, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);
	struct pp_error err = {0};

	/* chunk ops take half a unit: 2m(F+B+W) = 24 of work, plus (p-1) F = 1.5 of fill */
	ASSERT_NEAR(s->metrics.makespan, 25.5);
	for (int d = 0; d < 4; d++) {
		CU_ASSERT(s->metrics.devices[d].peak_activations <= 4 + 1e-9);
		ASSERT_NEAR(s->metrics.devices[d].busy, 24);
	}
	/* per micro-batch and direction one message per boundary but the turn 3 -> 4 on device 3:
	 * 2m(2p-2) */
	CU_ASSERT_EQUAL(s->result->messages, 2 * 8 * (2 * 4 - 2));
	CU_ASSERT_EQUAL(s->result->nchannels, 6);
	for (int i = 0; i < s->result->nchannels; i++) {
		CU_ASSERT_EQUAL(abs(s->result->channels[i].src - s->result->channels[i].dst), 1);
		CU_ASSERT_EQUAL(s->result->channels[i].messages, 16);
	}
	CU_ASSERT_EQUAL(sched_validate(s->sched, &err), 0);
	sim_free(s);
}

static void sim_zbv_takes_max_of_6m_plus_p_minus_1_and_4m_plus_4p_minus_2_chunk_times(void)
{
	/* research notes 2.3: with unit chunk times, PyTorch's order takes max(6m + p - 1,
	 * 4m + 4p - 2); a chunk op is half a unit here */
	for (int p = 2; p <= 6; p++)
		for (int m = 1; m < 5 * p; m++) {
			struct config c = unit_config("zbv", p, 2, m, 1, 1, 1);
			struct sim *s = unit_run(&c, 0);
			double a = 6 * m + p - 1, b = 4 * m + 4 * p - 2;

			ASSERT_NEAR(s->metrics.makespan, (a > b ? a : b) / 2);
			if (fabs(s->metrics.makespan - (a > b ? a : b) / 2) > 1e-9)
				fprintf(stderr, "zbv p=%d m=%d: %g\n", p, m, s->metrics.makespan);
			sim_free(s);
		}
}

static void sim_zb_auto_p4_m8_takes_27_units_in_zb_h1_s_order(void)
{
	struct config c = unit_config("zb-auto", 4, 1, 8, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);
	struct sched *h = sched_new(sched_find("zbh1"), &(struct sched_params){4, 1, 8, 0});

	ASSERT_NEAR(s->metrics.makespan, 27);
	CU_ASSERT_TRUE(unit_same_ops(s->sched, h));
	/* the limit defaults to p */
	ASSERT_NEAR(s->sched->mem_limit, 4);
	for (int d = 0; d < 4; d++)
		CU_ASSERT(s->metrics.devices[d].peak_activations <= 4 + 1e-9);
	sched_free(h);
	sim_free(s);
}

static void sim_zb2p_p4_m8_takes_at_most_27_units_within_2p(void)
{
	struct config c = unit_config("zb2p", 4, 1, 8, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);

	CU_ASSERT(s->metrics.makespan <= 27 + 1e-9);
	ASSERT_NEAR(s->sched->mem_limit, 8);
	for (int d = 0; d < 4; d++)
		CU_ASSERT(s->metrics.devices[d].peak_activations <= 8 + 1e-9);
	sim_free(s);
}

static void sim_zb1p_uses_a_limit_of_p_whatever_mem_limit_would_say(void)
{
	struct config c = unit_config("zb1p", 3, 1, 9, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);

	ASSERT_NEAR(s->sched->mem_limit, 3);
	for (int d = 0; d < 3; d++)
		CU_ASSERT(s->metrics.devices[d].peak_activations <= 3 + 1e-9);
	sim_free(s);
}

static void sim_zb_auto_beats_zb_h1_when_the_last_stage_is_1_5_times_slower(void)
{
	struct config a = unit_config("zb-auto", 4, 1, 8, 2, 2, 1);
	struct config h = unit_config("zbh1", 4, 1, 8, 2, 2, 1);
	struct sim *sa, *sh;

	unit_set(&a, "stage_scale", "1,1,1,1.5");
	unit_set(&h, "stage_scale", "1,1,1,1.5");
	sa = unit_run(&a, 0);
	sh = unit_run(&h, 0);
	/* zb-auto orders ops from the scaled costs; ZB-H1's fixed order waits for the last stage */
	ASSERT_NEAR(sa->metrics.makespan, 66);
	ASSERT_NEAR(sh->metrics.makespan, 67);
	CU_ASSERT(sa->metrics.makespan < sh->metrics.makespan);
	for (int d = 0; d < 4; d++)
		CU_ASSERT(sa->metrics.devices[d].peak_activations <= 4 + 1e-9);
	sim_free(sa);
	sim_free(sh);
}

static void sim_zb_auto_takes_72_51_37_and_27_units_with_limits_1_2_3_and_5(void)
{
	/* research notes 4.4: p=4, m=8, unit times, W freeing half the activations */
	static const struct {
		const char *limit;
		double makespan;
	} cases[] = {{"1", 72}, {"2", 51}, {"3", 37}, {"5", 27}, {"8", 27}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config c = unit_config("zb-auto", 4, 1, 8, 1, 1, 1);
		struct sim *s;

		unit_set(&c, "mem_limit", cases[i].limit);
		s = unit_run(&c, 0);
		ASSERT_NEAR(s->metrics.makespan, cases[i].makespan);
		ASSERT_NEAR(s->sched->mem_limit, atof(cases[i].limit));
		for (int d = 0; d < 4; d++)
			CU_ASSERT(s->metrics.devices[d].peak_activations <=
			          atof(cases[i].limit) + 1e-9);
		sim_free(s);
	}
}

/* zb-auto's order for p stages of unit F, B and W, m micro-batches, W freeing half of the
 * activations, an activation limit, and message time comm[j] across boundary j (j < p - 1). */
static struct sched *zb_auto_for_comm(int p, int m, double limit, const double *comm)
{
	struct sched *s = sched_new(sched_find("zb-auto"), &(struct sched_params){p, 1, m, 0});

	unit_price(s, 1, 1, 1, comm, limit);
	return s;
}

/* The engine's makespan in units for the order s with unit F, B and W and message time comm[j]
 * across boundary j. */
static double makespan_with_comm(const struct sched *s, const double *comm)
{
	struct config c = unit_config("zb-auto", s->p, 1, s->m, 1, 1, 1);
	struct cost *k = cost_new_explicit(&c, NULL, 0.5);
	struct pp_error err = {0};
	struct engine *e;
	double makespan;

	for (int j = 0; j + 1 < s->p; j++)
		CU_ASSERT_TRUE_FATAL(pp_time_from_units(comm[j], k->tick, &k->msg_time[j]));
	e = engine_new(s, k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL_FATAL(engine_run(e, &err), 0);
	makespan = pp_time_to_units(engine_result(e)->makespan, k->tick);
	engine_free(e);
	cost_free(k);
	return makespan;
}

static void sim_zb_auto_p2_m4_fills_a_1_unit_message_gap_with_a_w_and_takes_14_units(void)
{
	/*
	 * p=2, m=4, unit F, B, W, messages of 1, limit 3. No order beats 14: device 1 gets its
	 * first input at F + message = 2 and then has 3m = 12 unit ops to run one at a time.
	 * An order that reaches 14, checked by hand (device: op [start, end]):
	 *   device 0: F0 [0,1] F1 [1,2] F2 [2,3], then 3 alive, so F3 waits for B0 and W0;
	 *             B0 [5,6] (device 1's B0 ends at 4, + 1), W0 [6,7], F3 [7,8], B1 [8,9]
	 *             W1 [9,10] B2 [10,11] W2 [11,12] B3 [12,13] (device 1's B3 ends at 11, + 1)
	 *             W3 [13,14]
	 *   device 1: F0 [2,3] B0 [3,4] F1 [4,5] B1 [5,6] F2 [6,7] B2 [7,8], F3 arrives at 8 + 1:
	 *             W0 fills [8,9], F3 [9,10] B3 [10,11] W1 W2 W3 [11,14]
	 * The order zb-auto picks with free messages has device 1 run its W's last; under 1-unit
	 * messages device 1 then idles in [8,9] and everything after F3 ends 1 later: 15.
	 */
	struct config c = unit_config("zb-auto", 2, 1, 4, 1, 1, 1);
	static const double one[] = {1}, zero[] = {0};
	struct sim *s;
	struct sched *blind = zb_auto_for_comm(2, 4, 3, zero);
	static const struct op dev1[] = {{0, 1, OP_F, 0}, {0, 1, OP_B, 0}, {1, 1, OP_F, 0},
	                                 {1, 1, OP_B, 0}, {2, 1, OP_F, 0}, {2, 1, OP_B, 0},
	                                 {0, 1, OP_W, 0}, {3, 1, OP_F, 0}, {3, 1, OP_B, 0},
	                                 {1, 1, OP_W, 0}, {2, 1, OP_W, 0}, {3, 1, OP_W, 0}};

	unit_set(&c, "t_comm", "1");
	unit_set(&c, "mem_limit", "3");
	s = unit_run(&c, 0);
	ASSERT_NEAR(s->metrics.makespan, 14);
	CU_ASSERT_TRUE(unit_device_is(s->sched, 1, dev1, sizeof(dev1) / sizeof(dev1[0])));
	for (int d = 0; d < 2; d++)
		CU_ASSERT(s->metrics.devices[d].peak_activations <= 3 + 1e-9);
	ASSERT_NEAR(makespan_with_comm(s->sched, one), 14);
	CU_ASSERT_FALSE(unit_same_ops(s->sched, blind));
	ASSERT_NEAR(makespan_with_comm(blind, one), 15);
	sched_free(blind);
	sim_free(s);
}

static void sim_zb_auto_p3_m8_reaches_the_bound_of_2_plus_messages_plus_24_under_uneven_comm(void)
{
	/*
	 * p=3, m=8, unit F, B, W, limit 5, messages of 0.25 and 1 across the two boundaries, in
	 * either order. No order beats 2 + 1.25 + 24 = 27.25: the last device's first input has
	 * crossed two F's and both boundaries, and it then runs 3m = 24 unit ops. zb-auto reaches
	 * that bound; the order it picks with free messages is another one and is slower under
	 * these messages, and ZB-H1 (limit p = 3) is no faster.
	 */
	static const double comms[][2] = {{0.25, 1}, {1, 0.25}}, zero[2] = {0, 0};
	struct sched *blind = zb_auto_for_comm(3, 8, 5, zero);
	struct sched *h1 = sched_new(sched_find("zbh1"), &(struct sched_params){3, 1, 8, 0});

	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		struct sched *s = zb_auto_for_comm(3, 8, 5, comms[i]);
		double bound = 2 + comms[i][0] + comms[i][1] + 24,
		       x = makespan_with_comm(s, comms[i]);
		struct pp_error err = {0};

		CU_ASSERT_EQUAL(sched_validate(s, &err), 0);
		CU_ASSERT(x >= bound - 1e-9);
		ASSERT_NEAR(x, bound);
		CU_ASSERT_FALSE(unit_same_ops(s, blind));
		CU_ASSERT(x < makespan_with_comm(blind, comms[i]) - 1e-9);
		CU_ASSERT(x <= makespan_with_comm(h1, comms[i]) + 1e-9);
		sched_free(s);
	}
	sched_free(h1);
	sched_free(blind);
}

static void sim_loopedbfs_takes_v_max_m_p_plus_min_m_p_minus_1_forward_backward_times(void)
{
	/* research notes 1.3: (v max(m, p) + min(m, p) - 1)(F + B) in chunk times, B fused */
	static const int shapes[][3] = {{4, 2, 8}, {4, 2, 2}, {4, 3, 5}, {3, 1, 6},
	                                {2, 4, 1}, {5, 2, 5}, {1, 3, 4}};
	static const double times[][3] = {{1, 1, 1}, {1, 2, 1}, {3, 1, 0.5}};

	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
		for (size_t t = 0; t < sizeof(times) / sizeof(times[0]); t++) {
			int p = shapes[k][0], v = shapes[k][1], m = shapes[k][2];
			int hi = m > p ? m : p, lo = m < p ? m : p;
			struct config c = unit_config("loopedbfs", p, v, m, times[t][0],
			                              times[t][1], times[t][2]);
			struct sim *s = unit_run(&c, 0);
			double fb = (times[t][0] + times[t][1] + times[t][2]) / v;

			ASSERT_NEAR(s->metrics.makespan, (v * hi + lo - 1) * fb);
			sim_free(s);
		}
}

static void sim_dualpipev_p4_m10_takes_33_units_and_passes_validation(void)
{
	struct config c = unit_config("dualpipev", 4, 2, 10, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);
	struct pp_error err = {0};

	/* 66 chunk units of 0.5: 60 of work plus (p-1)(F&B + B - 3W) = 3 * 2 */
	ASSERT_NEAR(s->metrics.makespan, 33);
	CU_ASSERT_EQUAL(sched_validate(s->sched, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	sim_free(s);
}

/* Overlapped pairs on device d of DualPipeV (research notes 3.2). */
static int dualpipev_pairs(int p, int m, int d)
{
	return 2 * (m - 2 * p + d + 1) + (p - d - 1) - (d == p - 1);
}

static void sim_dualpipev_runs_each_pair_as_one_slot_of_overlap_factor_times_f_plus_b(void)
{
	static const double factors[] = {1, 0.8, 0.5};
	double base = 0;

	for (size_t k = 0; k < sizeof(factors) / sizeof(factors[0]); k++) {
		struct config c = unit_config("dualpipev", 4, 2, 10, 1, 1, 1);
		struct sim *s;
		int pairs = 0;

		c.overlap_factor = factors[k];
		s = unit_run(&c, 0);
		for (size_t i = 0; i < s->sched->nops; i++) {
			const struct op *o = &s->sched->ops[i];

			if (!(o->flags & OP_OVERLAP))
				continue;
			pairs++;
			/* F 0.5 and a fused backward 1 in one slot */
			CU_ASSERT_EQUAL(s->result->times[i].start, s->result->times[i + 1].start);
			CU_ASSERT_EQUAL(s->result->times[i].end, s->result->times[i + 1].end);
			ASSERT_NEAR(took(s, i), factors[k] * 1.5);
		}
		for (int d = 0; d < 4; d++)
			/* 2m chunks of F + B, less what each pair saves */
			ASSERT_NEAR(s->metrics.devices[d].busy,
			            20 * 1.5 - dualpipev_pairs(4, 10, d) * (1 - factors[k]) * 1.5);
		CU_ASSERT_EQUAL(pairs, dualpipev_pairs(4, 10, 0) + dualpipev_pairs(4, 10, 1) +
		                               dualpipev_pairs(4, 10, 2) +
		                               dualpipev_pairs(4, 10, 3));
		if (k == 0)
			base = s->metrics.makespan;
		else
			CU_ASSERT(s->metrics.makespan < base);
		sim_free(s);
	}
	ASSERT_NEAR(base, 33);
}

static void sim_dualpipev_makespan_follows_deepseek_s_bubble_when_f_equals_b_at_least_w(void)
{
	/*
	 * Research notes 3.3, in chunk times with B the full backward (I + W) and FB a pair's
	 * slot: 2m(F + B) - (2m - 2p - 1)(F + B - FB) + (p - 1)(FB + B - 3W), for F = I >= W and
	 * FB one of F + B, max(F, B) + min(F, B)/2, max(F, B).
	 */
	static const double times[][3] = {{1, 1, 1}, {2, 2, 1}, {4, 4, 2}, {3, 3, 2}};
	int compared = 0;

	for (size_t t = 0; t < sizeof(times) / sizeof(times[0]); t++)
		for (int p = 2; p <= 5; p++)
			for (int m = 2 * p; m <= 3 * p + 1; m++)
				for (int k = 0; k < 3; k++) {
					double f = times[t][0] / 2, i = times[t][1] / 2;
					double w = times[t][2] / 2, b = i + w;
					double hi = f > b ? f : b, lo = f < b ? f : b;
					double fb = k == 0 ? f + b : k == 1 ? hi + lo / 2 : hi;
					double want = 2 * m * (f + b) -
					              (2 * m - 2 * p - 1) * (f + b - fb) +
					              (p - 1) * (fb + b - 3 * w);
					struct config c =
					        unit_config("dualpipev", p, 2, m, times[t][0],
					                    times[t][1], times[t][2]);
					struct sim *s;

					c.overlap_factor = fb / (f + b);
					s = unit_run(&c, 0);
					CU_ASSERT_DOUBLE_EQUAL(s->metrics.makespan, want, 1e-6);
					compared++;
					sim_free(s);
				}
	CU_ASSERT_EQUAL(compared, 4 * 3 * (4 + 5 + 6 + 7));
}

/* llama3-8b over p = 2 with key set to gpu: about 70 GB a device, over an H100's 69 GB of room
 * and within an H200's 124. */
static struct sim *two_gpu_run(const char *key, const char *gpu)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;

	config_init(&c);
	unit_set(&c, "model", "llama3-8b");
	unit_set(&c, "p", "2");
	unit_set(&c, key, gpu);
	s = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}

/* With mixed GPUs each device's memory is checked against its own GPU's capacity and reserve:
 * the same bytes fit an H200 and not an H100; the error names the H100 device. */
static void sim_checks_each_device_memory_against_its_own_gpu(void)
{
	struct sim *h200 = two_gpu_run("gpu", "h200"), *h100 = two_gpu_run("gpu", "h100-sxm");
	struct sim *x = two_gpu_run("device_gpus", "h200,h100-sxm");
	const struct sim *own[2] = {h200, h100};
	struct pp_error err = {0};

	for (int d = 0; d < 2; d++) {
		const struct device_metrics *m = &x->metrics.devices[d];
		const struct device_metrics *o = &own[d]->metrics.devices[d];

		CU_ASSERT_EQUAL(m->memory_bytes, o->memory_bytes);
		CU_ASSERT_EQUAL(m->capacity_bytes, o->capacity_bytes);
		CU_ASSERT_EQUAL(m->reserve_bytes, o->reserve_bytes);
		CU_ASSERT_EQUAL(m->oom, o->oom);
		CU_ASSERT_EQUAL(m->oom, m->memory_bytes > m->capacity_bytes - m->reserve_bytes);
	}
	CU_ASSERT_EQUAL(x->metrics.devices[0].capacity_bytes, 141e9);
	CU_ASSERT_EQUAL(x->metrics.devices[1].capacity_bytes, 80e9);
	CU_ASSERT_FALSE(x->metrics.devices[0].oom);
	CU_ASSERT_TRUE(x->metrics.devices[1].oom);
	CU_ASSERT_TRUE(x->metrics.oom);
	/* the run-wide figure is the GPU with the least room's */
	CU_ASSERT_EQUAL(x->metrics.memory_capacity_bytes, 80e9);
	CU_ASSERT_EQUAL(metrics_memory_error(&x->metrics, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "device 1 needs"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the GPU has 80.0 GB"));
	sim_free(h200);
	sim_free(h100);
	sim_free(x);
}

/* Every device of one GPU (device_gpus "h100-sxm*2") is the run of --gpu h100-sxm: the same
 * step, MFU and memory. */
static void sim_of_one_gpu_on_every_device_is_the_run_of_that_gpu(void)
{
	struct sim *g = two_gpu_run("gpu", "h100-sxm");
	struct sim *x = two_gpu_run("device_gpus", "h100-sxm*2");

	CU_ASSERT_EQUAL(x->metrics.step_time, g->metrics.step_time);
	CU_ASSERT_EQUAL(x->metrics.makespan, g->metrics.makespan);
	CU_ASSERT_EQUAL(x->metrics.mfu, g->metrics.mfu);
	CU_ASSERT_EQUAL(x->metrics.memory_capacity_bytes, g->metrics.memory_capacity_bytes);
	CU_ASSERT_EQUAL(x->metrics.memory_reserve_bytes, g->metrics.memory_reserve_bytes);
	for (int d = 0; d < 2; d++) {
		CU_ASSERT_EQUAL(x->metrics.devices[d].memory_bytes, g->metrics.devices[d].memory_bytes);
		CU_ASSERT_EQUAL(x->metrics.devices[d].oom, g->metrics.devices[d].oom);
	}
	sim_free(g);
	sim_free(x);
}

/* Sets c from words "key=value ..." (unit_set each). */
static void set_words(struct config *c, const char *words)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');

		CU_ASSERT_PTR_NOT_NULL_FATAL(eq);
		*eq = '\0';
		unit_set(c, w, eq + 1);
	}
}

/* How far device d's weights, gradients and optimizer state are over its GPU's room. */
static double state_over(const struct metrics *m, int d)
{
	const struct device_metrics *x = &m->devices[d];

	return x->state_bytes - (x->capacity_bytes - x->reserve_bytes);
}

/* sim_state_fits refuses, before anything is generated, exactly the runs whose weights,
 * gradients and optimizer state alone are over a device's GPU (each device against its own
 * GPU, the devices where --device-order puts them): the run of each is over memory whatever
 * its activations, and the message names the device furthest over and its state as the run's
 * metrics have it. It passes the others, and a run without a model. */
static void sim_state_fits_refuses_the_runs_whose_state_alone_is_over_memory(void)
{
	static const char *const cases[] = {
	        "model=deepseek-v3 gpu=h800 gpus=64 p=8 ep=1 m=8",
	        "model=deepseek-v3 gpu=h800 gpus=1024 p=8 ep=64 m=8",
	        "model=deepseek-v3 gpu=h800 gpus=1024 p=16 ep=64 m=32",
	        "model=qwen3-30b-a3b gpu=h100-sxm gpus=16 p=2 ep=8 m=8",
	        "model=llama3-8b p=2 m=8 device_gpus=h200,h100-sxm",
	        "model=llama3-8b p=2 m=8 device_gpus=h200,h100-sxm device_order=1,0",
	        "model=llama3-8b p=2 m=8 gpu=h200",
	        "model=llama3-70b gpu=a100-80g gpus=32 tp=8 p=4 m=8",
	        "model=llama3-70b gpu=a100-80g gpus=8 p=1 m=2",
	        "p=4 m=8",
	};
	static const char *const schedules[] = {"1f1b", "interleaved", "zbv", "dualpipe",
	                                        "zb-auto"};
	int refused = 0, passed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (size_t k = 0; k < sizeof(schedules) / sizeof(schedules[0]); k++) {
			struct config c;
			struct pp_error err = {0}, why = {0};
			struct sim *s;
			int rc, d = -1;
			double gb = 0, worst = 0;

			config_init(&c);
			set_words(&c, cases[i]);
			unit_set(&c, "schedule", schedules[k]);
			s = sim_run(&c, &why);
			rc = sim_state_fits(&c, &err);
			if (s == NULL) { /* a shape the schedule refuses: refused alike */
				CU_ASSERT_EQUAL(rc, -1);
				CU_ASSERT_STRING_EQUAL(err.msg, why.msg);
				continue;
			}
			for (int x = 0; x < s->metrics.p; x++)
				if (x == 0 || state_over(&s->metrics, x) > worst)
					worst = state_over(&s->metrics, x);
			if (rc == 0) {
				passed++;
				CU_ASSERT(worst <= 0);
				sim_free(s);
				continue;
			}
			refused++;
			CU_ASSERT_EQUAL(err.kind, PP_ERR_DEVICE_MEM);
			CU_ASSERT_EQUAL(sscanf(err.msg, "out of memory: device %d needs %lf GB", &d, &gb),
			                2);
			CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, " for its weights, gradients and optimizer "
			                                       "state alone, the GPU has "));
			CU_ASSERT_FATAL(d >= 0 && d < s->metrics.p);
			CU_ASSERT(s->metrics.oom);
			CU_ASSERT(worst > 0);
			ASSERT_NEAR(state_over(&s->metrics, d), worst);
			CU_ASSERT(fabs(gb - s->metrics.devices[d].state_bytes / 1e9) <= 0.05);
			sim_free(s);
		}
	/* both verdicts are met */
	CU_ASSERT(refused >= 10);
	CU_ASSERT(passed >= 10);
}

/* What metrics_memory_error says of c's run (sim_run's error when it does not run): 0 with an
 * empty message when it fits. */
static int verdict_after_run(const struct config *c, struct pp_error *err)
{
	struct sim *s = sim_run(c, err);
	int rc = s == NULL ? -1 : metrics_memory_error(&s->metrics, err);

	sim_free(s);
	return rc;
}

/* SIM_FITS refuses before the engine runs exactly the runs metrics_memory_error refuses after
 * it, with its message, whatever holds them over (state, or activations: batches, sequences,
 * recomputation, the schedule's peak, each device against its own GPU where --device-order puts
 * it), after what the run refuses before it runs (a straggler on a link that carries nothing);
 * a run that offloads activations is not checked before the run but after it, as
 * before. A run it passes gives the figures it gives without it. sim_fits gives the same
 * verdict without simulating, except for the priced orders and offload, which it checks on
 * their state alone. */
static void sim_fits_refuses_before_the_run_what_the_run_refuses(void)
{
	static const char *const cases[] = {
	        "model=llama3-8b p=4 m=8 mbs=1",
	        "model=llama3-8b p=4 m=8 mbs=8 seq=8192",
	        "model=llama3-8b p=4 m=16 mbs=16 seq=8192 recompute=full",
	        "model=llama3-8b p=4 m=16 mbs=4 seq=8192 device_gpus=h200,h100-sxm,a100-80g,h100-sxm",
	        "model=llama3-8b p=4 m=16 mbs=4 seq=8192 device_gpus=h200,h100-sxm,a100-80g,h100-sxm "
	        "device_order=3,2,1,0",
	        "model=llama3-8b p=4 m=16 mbs=8 seq=8192 offload=0.9",
	        /* over memory, and refused before its run for a slow link that carries nothing */
	        "model=llama3-8b p=4 m=8 mbs=8 seq=8192 stragglers=0-2:2",
	        "model=llama3-8b p=4 m=8 mbs=1 stragglers=1:1.5",
	        "model=llama3-70b gpu=a100-80g gpus=32 tp=8 p=4 m=8",
	        "model=llama3-70b gpu=h100-sxm gpus=32 tp=4 p=8 m=32 mbs=2",
	        "model=qwen3-30b-a3b gpu=h100-sxm gpus=16 p=2 ep=8 m=8 mbs=4",
	        "model=qwen3-30b-a3b gpu=h100-sxm gpus=16 p=2 ep=8 m=8 mbs=1",
	        "model=deepseek-v3 gpu=h800 gpus=1024 p=16 ep=64 m=32",
	        "p=4 m=8",
	};
	static const char *const schedules[] = {"1f1b", "gpipe", "interleaved", "zbv", "dualpipe",
	                                        "zb-auto"};
	int refused = 0, passed = 0, by_activations = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (size_t k = 0; k < sizeof(schedules) / sizeof(schedules[0]); k++) {
			struct config c;
			struct pp_error after = {0}, err = {0}, state = {0};
			struct sim *s;
			bool offload = strstr(cases[i], "offload") != NULL,
			     priced = strcmp(schedules[k], "zb-auto") == 0;
			int want, rc;

			config_init(&c);
			set_words(&c, cases[i]);
			unit_set(&c, "schedule", schedules[k]);
			want = verdict_after_run(&c, &after);
			s = sim_run_flags(&c, SIM_NO_OP_TIMES | SIM_FITS, &err);
			if (s != NULL) {
				struct sim *plain = sim_run_flags(&c, SIM_NO_OP_TIMES, &state);

				/* passed, as only a run that offloads and is over may be: metrics tell */
				rc = metrics_memory_error(&s->metrics, &err);
				CU_ASSERT(rc == 0 || offload);
				CU_ASSERT_FATAL(plain != NULL);
				CU_ASSERT_EQUAL(s->metrics.makespan, plain->metrics.makespan);
				CU_ASSERT_EQUAL(s->metrics.step_time, plain->metrics.step_time);
				sim_free(plain);
				sim_free(s);
			} else {
				rc = -1;
			}
			CU_ASSERT_EQUAL(rc, want);
			CU_ASSERT_STRING_EQUAL(err.msg, after.msg);
			if (want == 0)
				passed++;
			else if (after.kind == PP_ERR_DEVICE_MEM) {
				refused++;
				if (sim_state_fits(&c, &state) == 0)
					by_activations++;
			}
			/* without simulating: the same, but for what it checks on the state alone, and a
			 * state over the GPU is said to be so (as sweep_evaluate skips it) */
			memset(&err, 0, sizeof(err));
			memset(&state, 0, sizeof(state));
			rc = sim_fits(&c, &err);
			if (sim_state_fits(&c, &state) != 0) {
				CU_ASSERT_EQUAL(rc, -1);
				CU_ASSERT_STRING_EQUAL(err.msg, state.msg);
			} else if (offload || priced) {
				CU_ASSERT_EQUAL(rc, 0);
			} else {
				CU_ASSERT_EQUAL(rc, want);
				CU_ASSERT_STRING_EQUAL(err.msg, after.msg);
			}
		}
	/* every verdict is met, and activations are what refuse some */
	CU_ASSERT(passed >= 10);
	CU_ASSERT(refused >= 10);
	CU_ASSERT(by_activations >= 5);
}

/* sim_would_run takes what sim_run runs, and refuses with sim_run's error what it refuses before
 * and while building the run: too many ops, a scaled op below one tick, times too large. */
static void sim_would_run_refuses_what_sim_run_refuses_with_its_error(void)
{
	struct config c = unit_config("1f1b", 4, 1, 8, 1, 2, 1);
	struct pp_error why = {0}, err = {0};

	CU_ASSERT_EQUAL(sim_would_run(&c, &err), 0);
	unit_set(&c, "stage_scale", "1,1,1,1e-7");
	CU_ASSERT_EQUAL(sim_would_run(&c, &err), -1);
	CU_ASSERT_PTR_NULL(sim_run(&c, &why));
	CU_ASSERT_STRING_EQUAL(err.msg, why.msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "less than the resolution of one tick"));
	c = unit_config("1f1b", 4, 1, 16000000, 1e9, 1e9, 1e9);
	CU_ASSERT_EQUAL(sim_would_run(&c, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "above the limit of 50000000 simulated ops"));
	c = unit_config("1f1b", 4, 1, 1000, 1e9, 1e9, 1e9);
	CU_ASSERT_EQUAL(sim_would_run(&c, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "times too large"));
}

static void sim_stage_scale_per_device_multiplies_every_op_of_that_device(void)
{
	struct config c = unit_config("zbh1", 4, 1, 8, 2, 2, 1);
	struct sim *s;

	unit_set(&c, "stage_scale", "1,1,1,1.5");
	s = unit_run(&c, 0);
	for (size_t i = 0; i < s->sched->nops; i++) {
		const struct op *o = &s->sched->ops[i];
		double t = o->kind == OP_F ? 2 : o->kind == OP_B ? 2 : 1;

		ASSERT_NEAR(took(s, i), o->stage == 3 ? 1.5 * t : t);
	}
	ASSERT_NEAR(s->metrics.devices[3].busy, 1.5 * 8 * 5);
	ASSERT_NEAR(s->metrics.devices[0].busy, 8 * 5);
	sim_free(s);
}

static void sim_stage_scale_per_device_follows_the_v_placement(void)
{
	struct config c = unit_config("zbv", 2, 2, 4, 1, 1, 1);
	struct sim *s;

	/* V placement, p=2: stages 0 and 3 on device 0, stages 1 and 2 on device 1; stage 2 is
	 * on device 1 although 2 % p = 0 */
	unit_set(&c, "stage_scale", "1,3");
	s = unit_run(&c, 0);
	for (size_t i = 0; i < s->sched->nops; i++) {
		const struct op *o = &s->sched->ops[i];
		double scale = o->stage == 1 || o->stage == 2 ? 3 : 1;

		ASSERT_NEAR(took(s, i), 0.5 * scale);
	}
	sim_free(s);
}

static void sim_stage_scale_per_stage_multiplies_each_virtual_stage(void)
{
	struct config c = unit_config("zbv", 2, 2, 4, 1, 1, 1);
	struct sim *s;

	unit_set(&c, "stage_scale", "1,2,3,4");
	s = unit_run(&c, 0);
	for (size_t i = 0; i < s->sched->nops; i++)
		ASSERT_NEAR(took(s, i), 0.5 * (s->sched->ops[i].stage + 1));
	sim_free(s);
	/* interleaved p=2, v=2: stage 3 is chunk 1 of device 1 */
	c = unit_config("interleaved", 2, 2, 4, 1, 1, 1);
	unit_set(&c, "stage_scale", "1,1,1,2");
	s = unit_run(&c, 0);
	for (size_t i = 0; i < s->sched->nops; i++) {
		const struct op *o = &s->sched->ops[i];
		double t = o->kind == OP_F ? 0.5 : 1;

		ASSERT_NEAR(took(s, i), o->stage == 3 ? 2 * t : t);
	}
	sim_free(s);
}

static void sim_gives_zbv_dualpipev_and_interleaved_two_chunks_unless_v_is_set(void)
{
	static const struct {
		const char *name;
		int m, v;
	} cases[] = {
	        {"zbv", 8, 2}, {"dualpipev", 8, 2}, {"interleaved", 8, 2}, {"loopedbfs", 8, 1}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim *s = unit_simulate(cases[i].name, 4, cases[i].m, 0);

		CU_ASSERT_EQUAL(s->sched->v, cases[i].v);
		CU_ASSERT_EQUAL(s->config.v, cases[i].v);
		sim_free(s);
	}
}

static void sim_rejects_a_chunk_count_the_schedule_does_not_take_when_v_is_set(void)
{
	struct config c = unit_config("zbv", 4, 1, 8, 1, 1, 1);
	struct pp_error err = {0};

	unit_set(&c, "v", "1");
	CU_ASSERT_PTR_NULL(sim_run(&c, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--chunks '1': schedule 'zbv' needs v=2");
}

/* Writes the schedule of generator name for (p, v, m) in format fmt to a file in a fresh
 * directory dir (32 bytes); path (128 bytes) receives its name. */
static void export_schedule(const char *name, int p, int v, int m, enum schedfile_format fmt,
                            char *dir, char *path)
{
	struct sched *s = sched_new(sched_find(name), &(struct sched_params){p, v, m, 0});
	FILE *out;

	strcpy(dir, "/tmp/ppsim-unit-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, 128, "%s/s.csv", dir);
	out = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(schedfile_write(out, s, fmt), 0);
	CU_ASSERT_EQUAL(fclose(out), 0);
	sched_free(s);
}

static void remove_export(const char *dir, const char *path)
{
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static void sim_runs_a_schedule_file_with_the_file_s_shape(void)
{
	char dir[32], path[128];
	struct config c = unit_config("1f1b", 4, 1, 8, 1, 1, 1),
	              g = unit_config("zbv", 2, 2, 6, 1, 1, 1);
	struct sim *s, *want;

	export_schedule("zbv", 2, 2, 6, SCHEDFILE_TORCH, dir, path);
	unit_set(&c, "schedule_file", path);
	s = unit_run(&c, 0);
	want = unit_run(&g, 0);
	CU_ASSERT_EQUAL(s->config.p, 2);
	CU_ASSERT_EQUAL(s->config.v, 2);
	CU_ASSERT_EQUAL(s->config.m, 6);
	CU_ASSERT_PTR_NULL(s->sched->desc);
	CU_ASSERT_STRING_EQUAL(s->config.schedule, "file");
	CU_ASSERT_TRUE(unit_same_ops(s->sched, want->sched));
	ASSERT_NEAR(s->metrics.makespan, want->metrics.makespan);
	sim_free(s);
	sim_free(want);
	remove_export(dir, path);
}

static void sim_rejects_a_schedule_file_whose_shape_differs_from_an_explicit_p(void)
{
	char dir[32], path[128], msg[256];
	struct config c = unit_config("1f1b", 4, 1, 8, 1, 1, 1);
	struct pp_error err = {0};

	export_schedule("1f1b", 2, 1, 3, SCHEDFILE_PPSIM, dir, path);
	unit_set(&c, "schedule_file", path);
	unit_set(&c, "p", "3");
	CU_ASSERT_PTR_NULL(sim_run(&c, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	snprintf(msg, sizeof(msg), "--stages '3': the schedule file '%s' has p=2", path);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	/* a generator's own options do not apply to a file */
	c = unit_config("1f1b", 4, 1, 8, 1, 1, 1);
	unit_set(&c, "schedule_file", path);
	unit_set(&c, "schedule", "zbv");
	CU_ASSERT_PTR_NULL(sim_run(&c, &err));
	CU_ASSERT_STRING_EQUAL(err.msg, "--schedule 'zbv': not with --schedule-file");
	remove_export(dir, path);
}

static void sim_scales_the_stages_of_a_schedule_file_by_the_file_s_devices(void)
{
	char dir[32], path[128];
	struct config c = unit_config("1f1b", 4, 1, 8, 1, 1, 1);
	struct pp_error err = {0};
	struct sim *s;

	/* a p=2 file with one factor per device of the file (the defaults say p=4) */
	export_schedule("1f1b", 2, 1, 4, SCHEDFILE_PPSIM, dir, path);
	unit_set(&c, "schedule_file", path);
	unit_set(&c, "stage_scale", "1,2");
	s = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL(s);
	if (s == NULL)
		fprintf(stderr, "stage scale of a p=2 schedule file: %s\n", err.msg);
	if (s != NULL) {
		for (size_t i = 0; i < s->sched->nops; i++) {
			const struct op *o = &s->sched->ops[i];

			ASSERT_NEAR(took(s, i),
			            (o->kind == OP_F ? 1 : 2) * (o->stage == 1 ? 2 : 1));
		}
		sim_free(s);
	}
	remove_export(dir, path);
	/* a V file (p=3, v=2) with one factor per virtual stage */
	export_schedule("zbv", 3, 2, 6, SCHEDFILE_TORCH, dir, path);
	c = unit_config("1f1b", 4, 1, 8, 1, 1, 1);
	unit_set(&c, "schedule_file", path);
	unit_set(&c, "stage_scale", "1,2,3,4,5,6");
	s = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL(s);
	if (s == NULL)
		fprintf(stderr, "stage scale of a p=3 v=2 schedule file: %s\n", err.msg);
	if (s != NULL) {
		for (size_t i = 0; i < s->sched->nops; i++)
			ASSERT_NEAR(took(s, i), 0.5 * (s->sched->ops[i].stage + 1));
		sim_free(s);
	}
	remove_export(dir, path);
}

static void sim_zb2p_with_the_paper_s_profiled_costs_has_one_bubble_in_ms_and_in_us(void)
{
	/* Qi et al. profile T_F 11.347, T_B 11.248, T_W 8.132 and T_comm 0.377 ms (p = 16,
	 * m = 48) and report ZB-2p's bubble rate as 0.0066; the same costs in microseconds must
	 * give the same schedule and the same bubble */
	static const char *const ms[] = {"11.347", "11.248", "8.132", "0.377"},
	                         *const us[] = {"11347", "11248", "8132", "377"};
	static const char *const keys[] = {"t_f", "t_b", "t_w", "t_comm"};
	struct config a = unit_config("zb2p", 16, 1, 48, 1, 1, 1), b = a;
	struct sim *x, *y;

	for (int i = 0; i < 4; i++) {
		unit_set(&a, keys[i], ms[i]);
		unit_set(&b, keys[i], us[i]);
	}
	x = unit_run(&a, 0);
	y = unit_run(&b, 0);
	CU_ASSERT_TRUE(unit_same_ops(x->sched, y->sched));
	CU_ASSERT_EQUAL(x->result->makespan * 1000, y->result->makespan);
	ASSERT_NEAR(x->metrics.bubble_rate_span, y->metrics.bubble_rate_span);
	CU_ASSERT_DOUBLE_EQUAL(x->metrics.bubble_rate_span, 0.0066, 0.0005);
	sim_free(x);
	sim_free(y);
}

static void sim_zb_auto_p2_m4_at_limit_2_with_messages_of_a_tenth_takes_13_4_units(void)
{
	/* the authors' heuristic, run on the same costs times 10 (whole numbers, so that its
	 * floating-point sums are exact), takes 134: a W fits the gap before each late input
	 * exactly, which a comparison of decimal sums can miss */
	struct config c = unit_config("zb-auto", 2, 1, 4, 1, 1, 1);
	struct sim *s;

	unit_set(&c, "t_comm", "0.1");
	unit_set(&c, "mem_limit", "2");
	s = unit_run(&c, 0);
	ASSERT_NEAR(s->metrics.makespan, 13.4);
	sim_free(s);
}

static void sim_zb_auto_gives_no_stage_more_warm_up_forwards_than_the_stage_before(void)
{
	/* a fast stage behind a slow one may fit all m forwards before its first B arrives, while
	 * its predecessor fits fewer: the authors' pass then lets it run forwards its predecessor
	 * has not produced (their own check fails); zb-auto caps it below its predecessor */
	struct config c = unit_config("zb-auto", 5, 1, 9, 11.344, 8.992, 4.48);
	struct pp_error err = {0};
	struct sim *s;

	unit_set(&c, "t_comm", "2.344");
	unit_set(&c, "stage_scale", "2,3,1,3,2");
	unit_set(&c, "mem_limit", "10");
	s = unit_run(&c, 0);
	CU_ASSERT_EQUAL(sched_validate(s->sched, &err), 0);
	for (int d = 1; d < 5; d++) {
		int before = 0, here = 0;

		while (s->sched->ops[s->sched->dev_start[d - 1] + (size_t)before].kind == OP_F)
			before++;
		while (s->sched->ops[s->sched->dev_start[d] + (size_t)here].kind == OP_F)
			here++;
		CU_ASSERT(here < before);
	}
	sim_free(s);
}

static void sim_vhalf_and_vmin_at_p8_m24_hold_5_and_4_micro_batches_for_less_bubble_than_1f1b(void)
{
	/* the authors' V-Half and V-Min: at most ceil(p/2)+1 and ceil(p/3)+1 micro-batches, 1F1B
	 * holds p; with equal times the idle time of 1F1B's device, 21, falls to 8.5 and 13.5 */
	struct config c = unit_config("1f1b", 8, 1, 24, 1, 1, 1);
	struct sim *base = unit_run(&c, 0), *s;
	static const struct {
		const char *name;
		double bound, makespan;
	} cases[] = {{"vhalf", 5, 80.5}, {"vmin", 4, 85.5}};

	ASSERT_NEAR(base->metrics.makespan, 93);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = unit_config(cases[i].name, 8, 2, 24, 1, 1, 1);
		s = unit_run(&c, 0);
		for (int d = 0; d < 8; d++)
			CU_ASSERT(s->metrics.devices[d].peak_activations <= cases[i].bound + 1e-9);
		CU_ASSERT(s->metrics.bubble_ratio < base->metrics.bubble_ratio);
		ASSERT_NEAR(s->metrics.makespan, cases[i].makespan);
		sim_free(s);
	}
	sim_free(base);
}

static void sim_zbv_auto_beats_pytorch_s_zbv_order_with_fewer_micro_batches_than_2p_minus_1(void)
{
	/* PyTorch's order is laid out for 2p-1 micro-batches and leaves the missing ones' slots
	 * idle; the authors' greedy fills them (the same makespan from m = 2p-1 on) */
	static const struct {
		int m;
		double t[3], zbv, automatic;
	} cases[] = {{4, {1, 1, 1}, 23, 19.5},   {8, {1, 1, 1}, 31, 27.5},
	             {8, {2, 2, 1}, 54, 47},     {16, {1, 1, 1}, 51.5, 51.5},
	             {24, {2, 2, 1}, 127, 127}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config a = unit_config("zbv", 8, 2, cases[i].m, cases[i].t[0], cases[i].t[1],
		                              cases[i].t[2]),
		              b = a;
		struct sim *x, *y;

		strcpy(b.schedule, "zbv-auto");
		x = unit_run(&a, 0);
		y = unit_run(&b, 0);
		ASSERT_NEAR(x->metrics.makespan, cases[i].zbv);
		ASSERT_NEAR(y->metrics.makespan, cases[i].automatic);
		sim_free(x);
		sim_free(y);
	}
}

static void sim_zbv_auto_refuses_a_limit_its_warm_up_cannot_keep_and_names_the_least(void)
{
	struct config c = unit_config("zbv-auto", 4, 2, 8, 1, 1, 1);
	struct pp_error err = {0};
	struct sim *s;

	unit_set(&c, "mem_limit", "3");
	CU_ASSERT_PTR_NULL(sim_run(&c, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--mem-limit '3': zbv-auto (the authors' greedy, which "
	                                "keeps room for the warm-up's forwards) finds no order for "
	                                "p=4 m=8 within a limit of 3 micro-batches of activations; "
	                                "it finds one from a limit of 4 (the order may then hold "
	                                "fewer)");
	unit_set(&c, "mem_limit", "4");
	s = unit_run(&c, 0);
	ASSERT_NEAR(s->sched->mem_limit, 4);
	for (int d = 0; d < 4; d++)
		CU_ASSERT(s->metrics.devices[d].peak_activations <= 4 + 1e-9);
	sim_free(s);
	/* a larger limit lets the warm-up run more forwards: device 0 then holds 5.25 */
	unit_set(&c, "mem_limit", "8");
	s = unit_run(&c, 0);
	ASSERT_NEAR(s->sched->mem_limit, 8);
	ASSERT_NEAR(s->metrics.devices[0].peak_activations, 5.25);
	ASSERT_NEAR(s->metrics.makespan, 25.5);
	sim_free(s);
}

static void sim_zbv_auto_orders_uneven_stages_by_the_median_device_times(void)
{
	/* as the authors' runtime, the pass sees the median over devices of each op's time: one
	 * slow device of four leaves the order of equal times, and the engine runs it slow */
	struct config a = unit_config("zbv-auto", 4, 2, 8, 1, 1, 1), b = a;
	struct sim *x, *y;

	unit_set(&b, "stage_scale", "1,1,1,3");
	x = unit_run(&a, 0);
	y = unit_run(&b, 0);
	CU_ASSERT_TRUE(unit_same_ops(x->sched, y->sched));
	CU_ASSERT(y->metrics.makespan > x->metrics.makespan);
	sim_free(x);
	sim_free(y);
}

/* A seeded generator of the property tests' cases (xorshift64*); its state is the caller's. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(2685821657736338717);
}

/* A whole number from lo to hi (inclusive). */
static int random_in(uint64_t *state, int lo, int hi)
{
	return lo + (int)(next_random(state) % (uint64_t)(hi - lo + 1));
}

/* One random case of the scale law: a shape desc accepts and costs in thousandths of a unit. */
struct scale_case {
	int p, v, m;
	long long t[4];      /* t_f, t_b, t_w, t_comm in thousandths: 8 x a whole number */
	char stage_scale[64]; /* whole factors per device, or "" */
	char mem_limit[16];   /* for a priced generator that takes one, or "" */
};

static bool random_scale_case(uint64_t *state, const struct sched_desc *desc,
                              struct scale_case *k)
{
	int max_v = desc->max_v > 0 ? desc->max_v : 4;
	struct sched_params sp;
	size_t len = 0;

	memset(k, 0, sizeof(*k));
	k->p = random_in(state, 1, 6);
	k->v = random_in(state, desc->min_v, max_v);
	k->m = random_in(state, 1, 16);
	sp = (struct sched_params){k->p, k->v, k->m, 0};
	if (sched_accepts(desc, &sp, NULL, &(struct pp_error){0}) != 0)
		return false;
	/* multiples of 0.008 units, so that 0.001 of them is whole ticks, and so is 3/4 of that
	 * (overlapped pairs at --overlap-factor 0.75) */
	for (int i = 0; i < 3; i++)
		k->t[i] = 8LL * random_in(state, i == 2 ? 0 : 1, 2500);
	k->t[3] = random_in(state, 0, 2) == 0 ? 0 : 8LL * random_in(state, 1, 600);
	if (random_in(state, 0, 1))
		for (int d = 0; d < k->p; d++)
			len += (size_t)snprintf(k->stage_scale + len, sizeof(k->stage_scale) - len,
			                        "%s%d", d ? "," : "", random_in(state, 1, 3));
	/* zbv-auto's warm-up needs p micro-batches; zb-auto's passes fit in 1 */
	if (sched_takes_mem_limit(desc))
		snprintf(k->mem_limit, sizeof(k->mem_limit), "%d.%d",
		         random_in(state, desc->placement == PLACE_V ? k->p : 1, 2 * k->p),
		         5 * random_in(state, 0, 1));
	return true;
}

/* Simulates case k of schedule name with every cost multiplied by num / den. */
static struct sim *run_scaled(const char *name, const struct scale_case *k, long long num,
                              long long den)
{
	static const char *const keys[] = {"t_f", "t_b", "t_w", "t_comm"};
	struct config c = unit_config(name, k->p, k->v, k->m, 1, 1, 1);
	char value[64];

	for (int i = 0; i < 4; i++) {
		/* thousandths x num / den, written with the six decimals a tick holds */
		long long micro = k->t[i] * 1000 * num / den;

		snprintf(value, sizeof(value), "%lld.%06lld", micro / 1000000, micro % 1000000);
		unit_set(&c, keys[i], value);
	}
	if (k->stage_scale[0] != '\0')
		unit_set(&c, "stage_scale", k->stage_scale);
	if (k->mem_limit[0] != '\0')
		unit_set(&c, "mem_limit", k->mem_limit);
	if (sched_takes_overlap_factor(sched_find(name)))
		unit_set(&c, "overlap_factor", "0.75");
	return unit_run(&c, 0);
}

/* Whether every op of b starts and ends at num / den times its time in a, in the same order. */
static bool scaled_by(const struct sim *a, const struct sim *b, long long num, long long den)
{
	if (!unit_same_ops(a->sched, b->sched) || a->cost->tick != b->cost->tick ||
	    a->result->makespan * num != b->result->makespan * den)
		return false;
	for (size_t i = 0; i < a->sched->nops; i++)
		if (a->result->times[i].start * num != b->result->times[i].start * den ||
		    a->result->times[i].end * num != b->result->times[i].end * den)
			return false;
	return true;
}

static void sim_every_schedule_scales_its_times_with_its_costs_and_keeps_its_order(void)
{
	/* makespan(k x costs) = k x makespan(costs), op for op and in the same order, for every
	 * schedule and k in {0.001, 0.1, 10, 1000}: no decision depends on the time unit */
	static const long long ks[][2] = {{1, 1000}, {1, 10}, {10, 1}, {1000, 1}};
	size_t n;
	const struct sched_desc *t = sched_table(&n);

	for (size_t i = 0; i < n; i++) {
		uint64_t state = UINT64_C(0x9e3779b97f4a7c15) + i;
		int cases = 0, failed = 0;

		for (int tries = 0; cases < 200 && tries < 20000; tries++) {
			struct scale_case k;
			struct sim *base;

			if (!random_scale_case(&state, &t[i], &k))
				continue;
			cases++;
			base = run_scaled(t[i].name, &k, 1, 1);
			for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
				struct sim *scaled = run_scaled(t[i].name, &k, ks[j][0], ks[j][1]);

				if (!scaled_by(base, scaled, ks[j][0], ks[j][1]) && failed++ == 0)
					fprintf(stderr,
					        "%s p=%d v=%d m=%d costs %lld %lld %lld %lld/1000 "
					        "scale '%s' limit '%s': x %lld/%lld changes the run\n",
					        t[i].name, k.p, k.v, k.m, k.t[0], k.t[1], k.t[2],
					        k.t[3], k.stage_scale, k.mem_limit, ks[j][0],
					        ks[j][1]);
				sim_free(scaled);
			}
			sim_free(base);
		}
		CU_ASSERT_EQUAL(cases, 200);
		CU_ASSERT_EQUAL(failed, 0);
	}
}

/* The messages counted from a shape before a run (what its outputs are sized by) are the ones
 * every schedule's run sends, in both placements, with one device and with several. */
static void sim_sends_the_messages_sched_message_count_counts_for_every_schedule(void)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);

	for (size_t i = 0; i < n; i++)
		for (int p = 1; p <= 4; p++)
			for (int m = 1; m <= 9; m += 4) {
				int v = t[i].min_v > 1 ? t[i].min_v : 1;
				struct config c = unit_config(t[i].name, p, v, m, 1, 1, 1);
				struct sched_params sp = {p, v, m, 0};
				struct pp_error why = {0};
				uint64_t want = 0;
				struct sim *s;

				if (sched_accepts(&t[i], &sp, NULL, &why) != 0)
					continue;
				s = unit_run(&c, SIM_RECORD_MESSAGES);
				CU_ASSERT_TRUE(sched_message_count(
				        p, v, m, t[i].placement, sched_desc_routes(&t[i]), &want));
				CU_ASSERT_EQUAL(s->result->messages, want);
				CU_ASSERT_EQUAL(s->result->nmsgs, want);
				if (s->result->messages != want)
					fprintf(stderr, "%s p=%d v=%d m=%d: %llu messages, not %llu\n",
					        t[i].name, p, v, m,
					        (unsigned long long)s->result->messages,
					        (unsigned long long)want);
				sim_free(s);
			}
}

/* A run keeps its ops and the sweep's cells in one arena, whatever its op times, and a
 * schedule file's run keeps the engine's arrays there. */
static void sim_keeps_ops_and_cells_in_one_arena(void)
{
	for (int times = 0; times < 2; times++) {
		struct config c = unit_config("zbh1", 8, 1, 64, 1, 1, 1);
		struct sim *s = unit_run(&c, times ? 0 : SIM_NO_OP_TIMES);
		size_t want = sched_arena_bytes(s->sched->nops) +
		              engine_arena_bytes(s->sched->nops, s->sched->S, s->sched->m, times);

		CU_ASSERT_EQUAL(s->arena.size, want);
		CU_ASSERT_EQUAL(s->arena.used, want);
		CU_ASSERT_PTR_EQUAL(s->sched->ops, (struct op *)s->arena.base);
		CU_ASSERT_EQUAL(s->result->times != NULL, times);
		if (times)
			CU_ASSERT_PTR_EQUAL((char *)s->result->times,
			                    s->arena.base + sched_arena_bytes(s->sched->nops));
		sim_free(s);
	}
}

/* A run that keeps its op times has its critical path in its metrics, in units, adding up to
 * the step's end; one that drops them has none; SIM_SLACK gives the engine's slacks, with the
 * op times kept even when asked to drop them, and sim_peak_bytes counts 12 bytes an op more. */
static void sim_has_the_critical_path_with_op_times_and_the_slacks_when_asked(void)
{
	struct config c = unit_config("zbh1", 2, 1, 1, 1, 1, 1);
	struct sim *s = unit_run(&c, 0), *none = unit_run(&c, SIM_NO_OP_TIMES);
	struct sim *slack = unit_run(&c, SIM_SLACK | SIM_NO_OP_TIMES);
	const struct critical_metrics *k = &s->metrics.critical;
	struct sim_size z;
	struct pp_error err = {0};

	CU_ASSERT_TRUE(k->has);
	CU_ASSERT_DOUBLE_EQUAL(k->length, 5, 1e-12);
	CU_ASSERT_EQUAL(k->device, 0);
	CU_ASSERT_DOUBLE_EQUAL(k->devices[0], 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(k->devices[1], 2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(k->kind[OP_W], 1, 1e-12);
	CU_ASSERT_EQUAL(k->ops, 5);
	CU_ASSERT_PTR_NULL(s->slack);
	CU_ASSERT_FALSE(none->metrics.critical.has);
	CU_ASSERT_PTR_NULL(none->slack);
	CU_ASSERT_PTR_NOT_NULL_FATAL(slack->slack);
	CU_ASSERT_PTR_NOT_NULL(slack->result->times);
	CU_ASSERT_TRUE(slack->metrics.critical.has);
	for (size_t i = 0; i < slack->sched->nops; i++)
		CU_ASSERT_EQUAL(slack->slack[i], slack->sched->ops[i].kind == OP_W &&
		                                         slack->sched->ops[i].stage == 1
		                                 ? slack->cost->tick
		                                 : 0);
	CU_ASSERT_EQUAL(sim_size_of_config(&c, &z, &err), 1);
	/* the order and the slacks, 12 bytes an op; the slack pass's table fits in the cells */
	CU_ASSERT_EQUAL(sim_peak_bytes(&c, &z, SIM_SLACK), sim_peak_bytes(&c, &z, 0) + 12 * z.ops);
	sim_free(s);
	sim_free(none);
	sim_free(slack);
}

/* The step time of a small model run: Llama 3 8B cut to 4 layers, p = 2, m = 4, on A100s, with
 * these settings (key=value, NULL-ended) over the base ones; -1 when the run fails. */
static double small_step(const char *schedule, int tp, int cp, int dp, const char *const *kv)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;
	char num[16];
	double t;

	config_init(&c);
	unit_set(&c, "model", "llama3-8b");
	unit_set(&c, "layers", "4");
	unit_set(&c, "schedule", schedule);
	unit_set(&c, "p", "2");
	unit_set(&c, "m", "4");
	snprintf(num, sizeof(num), "%d", tp);
	unit_set(&c, "tp", num);
	snprintf(num, sizeof(num), "%d", cp);
	unit_set(&c, "cp", num);
	snprintf(num, sizeof(num), "%d", dp);
	unit_set(&c, "dp", num);
	for (size_t i = 0; kv[i] != NULL; i += 2)
		unit_set(&c, kv[i], kv[i + 1]);
	s = sim_run(&c, &err);
	if (s == NULL) {
		fprintf(stderr, "%s tp %d cp %d dp %d: %s\n", schedule, tp, cp, dp, err.msg);
		return -1;
	}
	t = s->metrics.step_time;
	sim_free(s);
	return t;
}

/* Asserts hidden <= shown, but for rounding (each piece is a whole number of ns), naming the
 * case when it fails; counts in *shorter the cases where hiding saved time. */
static void assert_not_longer(int *shorter, double hidden, double shown, const char *what, const char *schedule,
                              int tp, int cp, int dp)
{
	bool ok = hidden > 0 && shown > 0 && hidden <= shown + 1e-5;

	CU_ASSERT_TRUE(ok);
	if (!ok)
		fprintf(stderr, "%s: %s tp %d cp %d dp %d: %.9f ms hidden, %.9f ms not\n", what,
		        schedule, tp, cp, dp, hidden, shown);
	*shorter += hidden < shown - 1e-5;
}

static void sim_hiding_communication_never_makes_a_step_longer(void)
{
	static const char *const schedules[] = {"1f1b", "interleaved", "zbh1", "gpipe"};
	static const int tps[] = {1, 2, 4, 8}, cps[] = {1, 2}, dps[] = {1, 2, 8};
	/* without the compute slowdown, which may make hiding cost more than it saves */
	static const char *const grad_no[] = {"comm_slowdown", "0", "overlap_grad_reduce", "no",
	                                      NULL};
	static const char *const grad_yes[] = {"comm_slowdown", "0", "overlap_grad_reduce", "yes",
	                                       NULL};
	static const char *const grad_no_slow[] = {"overlap_grad_reduce", "no", NULL};
	static const char *const grad_yes_slow[] = {"overlap_grad_reduce", "yes", NULL};
	static const char *const tp_none[] = {"comm_slowdown", "0", "tp_overlap", "none", NULL};
	static const char *const tp_bulk[] = {"comm_slowdown", "0", "tp_overlap", "bulk", NULL};
	static const char *const tp_pipe[] = {"comm_slowdown", "0", "tp_overlap", "pipelined",
	                                      NULL};
	static const char *const gather_no[] = {"comm_slowdown", "0", "distributed_optimizer",
	                                        "yes", "overlap_param_gather", "no", NULL};
	static const char *const gather_yes[] = {"comm_slowdown", "0", "distributed_optimizer",
	                                         "yes", "overlap_param_gather", "yes", NULL};
	int saved[5] = {0};

	for (size_t a = 0; a < sizeof(schedules) / sizeof(schedules[0]); a++)
		for (size_t b = 0; b < sizeof(tps) / sizeof(tps[0]); b++)
			for (size_t d = 0; d < sizeof(cps) / sizeof(cps[0]); d++)
				for (size_t e = 0; e < sizeof(dps) / sizeof(dps[0]); e++) {
					const char *sc = schedules[a];
					int tp = tps[b], cp = cps[d], dp = dps[e];
					double none = small_step(sc, tp, cp, dp, tp_none);

					assert_not_longer(&saved[0], small_step(sc, tp, cp, dp, grad_yes),
					                  small_step(sc, tp, cp, dp, grad_no),
					                  "overlap_grad_reduce", sc, tp, cp, dp);
					assert_not_longer(
					        &saved[1], small_step(sc, tp, cp, dp, grad_yes_slow),
					        small_step(sc, tp, cp, dp, grad_no_slow),
					        "overlap_grad_reduce (slowed)", sc, tp, cp, dp);
					assert_not_longer(&saved[2], small_step(sc, tp, cp, dp, tp_bulk), none,
					                  "tp_overlap bulk", sc, tp, cp, dp);
					assert_not_longer(&saved[3], small_step(sc, tp, cp, dp, tp_pipe), none,
					                  "tp_overlap pipelined", sc, tp, cp, dp);
					assert_not_longer(&saved[4], small_step(sc, tp, cp, dp, gather_yes),
					                  small_step(sc, tp, cp, dp, gather_no),
					                  "overlap_param_gather", sc, tp, cp, dp);
				}
	/* and each way of hiding saves time somewhere on the grid (not a law that holds by
	 * doing nothing) */
	for (int i = 0; i < 5; i++)
		CU_ASSERT_TRUE(saved[i] > 0);
}

/*
 * The law of expert parallelism's pieces: with free communication (links of 1e9 GB/s without
 * latency, no SM slowdown), an MoE run's every op starts and ends as in its dense twin, the
 * same ops each one compute piece of the same compute (the run's cost with its pieces taken
 * away), whatever the schedule.
 */
static void sim_moe_with_free_communication_times_every_op_as_its_dense_twin(void)
{
	static const char *const schedules[] = {"1f1b",      "interleaved", "zbh1", "gpipe",
	                                        "zbv",       "dualpipev",   "zb-auto"};

	for (size_t i = 0; i < sizeof(schedules) / sizeof(schedules[0]); i++) {
		struct config c;
		struct pp_error err = {0};
		struct sim *s;
		struct engine *twin;
		struct cost_pieces *pieces;
		const struct result *r;
		size_t ep = 0;

		config_init(&c);
		unit_set(&c, "model", "qwen3-30b-a3b");
		unit_set(&c, "layers", "4");
		unit_set(&c, "schedule", schedules[i]);
		unit_set(&c, "p", "2");
		unit_set(&c, "m", "4");
		unit_set(&c, "dp", "2");
		unit_set(&c, "ep", "2");
		unit_set(&c, "bandwidth", "1e9");
		unit_set(&c, "inter_bandwidth", "1e9");
		unit_set(&c, "latency", "0");
		unit_set(&c, "inter_latency", "0");
		unit_set(&c, "comm_slowdown", "0");
		s = sim_run(&c, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		pieces = s->cost->pieces;
		CU_ASSERT_PTR_NOT_NULL_FATAL(pieces);
		for (int k = 0; k < 3 * s->sched->S; k++)
			for (size_t j = 0; j < pieces->plan[k].n; j++)
				ep += pieces->plan[k].steps[j].what == PIECE_ISSUE &&
				      pieces->plan[k].steps[j].kind == COMM_EP;
		CU_ASSERT_TRUE(ep > 0);
		s->cost->pieces = NULL;
		twin = engine_new(s->sched, s->cost, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(twin);
		CU_ASSERT_EQUAL_FATAL(engine_run(twin, &err), 0);
		s->cost->pieces = pieces;
		r = engine_result(twin);
		CU_ASSERT_EQUAL(r->makespan, s->result->makespan);
		for (size_t o = 0; o < s->sched->nops; o++) {
			bool same = r->times[o].start == s->result->times[o].start &&
			            r->times[o].end == s->result->times[o].end;

			CU_ASSERT_TRUE(same);
			if (!same) {
				fprintf(stderr, "%s: op %zu at %lld-%lld, its twin at %lld-%lld\n",
				        schedules[i], o, (long long)s->result->times[o].start,
				        (long long)s->result->times[o].end, (long long)r->times[o].start,
				        (long long)r->times[o].end);
				break;
			}
		}
		engine_free(twin);
		sim_free(s);
	}
}

static void sim_run_perturbed_runs_an_order_at_the_times_given(void)
{
	/* 1F1B, p = 2, m = 1: F 1 and 2, BW 3 and 4, the forward's message 0.5, the
	 * gradient's 0.25: 0F0 [0,1], 1F0 [1.5,3.5], 1B0 [3.5,7.5], 0B0 [7.75,10.75] */
	struct sched *o = sched_new(sched_find("1f1b"), &(struct sched_params){2, 1, 1, 0});
	double op[4], msg[4];
	struct config c;
	struct sim *s;
	struct pp_error err = {0};

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	for (size_t i = 0; i < 4; i++) {
		bool f = o->ops[i].kind == OP_F, first = o->ops[i].stage == 0;

		op[i] = f ? (first ? 1 : 2) : (first ? 3 : 4);
		msg[i] = f && first ? 0.5 : !f && !first ? 0.25 : 0;
	}
	config_init(&c);
	c.t_comm = 1; /* messages are priced: their times given apply */
	s = sim_run_perturbed(&c, &(struct sim_perturb){o, "given", op, msg, "ms"}, 0, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	ASSERT_NEAR(s->metrics.makespan, 10.75);
	CU_ASSERT_STRING_EQUAL(s->cost->time_unit, "ms");
	CU_ASSERT_STRING_EQUAL(s->config.schedule_file, "given");
	CU_ASSERT_TRUE(s->given_times);
	CU_ASSERT_EQUAL(s->config.p, 2);
	sim_free(s);
	/* a time no op may take */
	op[0] = -1;
	CU_ASSERT_PTR_NULL(sim_run_perturbed(&c, &(struct sim_perturb){o, "given", op, NULL, NULL}, 0,
	                                     &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "op F(mb 0, stage 0)'s time -1"));
	sched_free(o);
}

static const struct unit_test tests[] = {
        UNIT_TEST(sim_keeps_ops_and_cells_in_one_arena),
        UNIT_TEST(sim_would_run_refuses_what_sim_run_refuses_with_its_error),
        UNIT_TEST(sim_state_fits_refuses_the_runs_whose_state_alone_is_over_memory),
        UNIT_TEST(sim_fits_refuses_before_the_run_what_the_run_refuses),
        UNIT_TEST(sim_checks_each_device_memory_against_its_own_gpu),
        UNIT_TEST(sim_of_one_gpu_on_every_device_is_the_run_of_that_gpu),
        UNIT_TEST(sim_sends_the_messages_sched_message_count_counts_for_every_schedule),
        UNIT_TEST(sim_zbv_p4_m8_takes_25_5_units_holds_at_most_p_and_sends_96_messages),
        UNIT_TEST(sim_zbv_takes_max_of_6m_plus_p_minus_1_and_4m_plus_4p_minus_2_chunk_times),
        UNIT_TEST(sim_zb_auto_p4_m8_takes_27_units_in_zb_h1_s_order),
        UNIT_TEST(sim_zb2p_p4_m8_takes_at_most_27_units_within_2p),
        UNIT_TEST(sim_zb1p_uses_a_limit_of_p_whatever_mem_limit_would_say),
        UNIT_TEST(sim_zb_auto_beats_zb_h1_when_the_last_stage_is_1_5_times_slower),
        UNIT_TEST(sim_zb_auto_takes_72_51_37_and_27_units_with_limits_1_2_3_and_5),
        UNIT_TEST(sim_zb_auto_p2_m4_fills_a_1_unit_message_gap_with_a_w_and_takes_14_units),
        UNIT_TEST(sim_zb_auto_p3_m8_reaches_the_bound_of_2_plus_messages_plus_24_under_uneven_comm),
        UNIT_TEST(sim_loopedbfs_takes_v_max_m_p_plus_min_m_p_minus_1_forward_backward_times),
        UNIT_TEST(sim_dualpipev_p4_m10_takes_33_units_and_passes_validation),
        UNIT_TEST(sim_dualpipev_runs_each_pair_as_one_slot_of_overlap_factor_times_f_plus_b),
        UNIT_TEST(sim_dualpipev_makespan_follows_deepseek_s_bubble_when_f_equals_b_at_least_w),
        UNIT_TEST(sim_stage_scale_per_device_multiplies_every_op_of_that_device),
        UNIT_TEST(sim_stage_scale_per_device_follows_the_v_placement),
        UNIT_TEST(sim_stage_scale_per_stage_multiplies_each_virtual_stage),
        UNIT_TEST(sim_gives_zbv_dualpipev_and_interleaved_two_chunks_unless_v_is_set),
        UNIT_TEST(sim_rejects_a_chunk_count_the_schedule_does_not_take_when_v_is_set),
        UNIT_TEST(sim_runs_a_schedule_file_with_the_file_s_shape),
        UNIT_TEST(sim_rejects_a_schedule_file_whose_shape_differs_from_an_explicit_p),
        UNIT_TEST(sim_scales_the_stages_of_a_schedule_file_by_the_file_s_devices),
        UNIT_TEST(sim_every_schedule_scales_its_times_with_its_costs_and_keeps_its_order),
        UNIT_TEST(sim_zb2p_with_the_paper_s_profiled_costs_has_one_bubble_in_ms_and_in_us),
        UNIT_TEST(sim_zb_auto_p2_m4_at_limit_2_with_messages_of_a_tenth_takes_13_4_units),
        UNIT_TEST(sim_zb_auto_gives_no_stage_more_warm_up_forwards_than_the_stage_before),
        UNIT_TEST(sim_vhalf_and_vmin_at_p8_m24_hold_5_and_4_micro_batches_for_less_bubble_than_1f1b),
        UNIT_TEST(sim_zbv_auto_beats_pytorch_s_zbv_order_with_fewer_micro_batches_than_2p_minus_1),
        UNIT_TEST(sim_zbv_auto_refuses_a_limit_its_warm_up_cannot_keep_and_names_the_least),
        UNIT_TEST(sim_zbv_auto_orders_uneven_stages_by_the_median_device_times),
        UNIT_TEST(sim_hiding_communication_never_makes_a_step_longer),
        UNIT_TEST(sim_moe_with_free_communication_times_every_op_as_its_dense_twin),
        UNIT_TEST(sim_run_perturbed_runs_an_order_at_the_times_given),
        UNIT_TEST(sim_has_the_critical_path_with_op_times_and_the_slacks_when_asked),
        {NULL, NULL},
};

const struct unit_suite suite_sim = {"sim", tests};
