/* Unit tests of the engine: op times, communication, channels, memory, deadlock and errors. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "ppsim/engine.h"
#include "ppsim/sim.h"
#include "unit.h"

/* One simulation built from a config, with everything it needs kept together. */
struct run {
	struct sched *s;
	struct cost *k;
	struct engine *e;
	const struct result *r;
};

/* A default config with this schedule, p devices and m micro-batches. */
static struct config config_of(const char *schedule, int p, int m)
{
	struct config c;

	config_init(&c);
	strcpy(c.schedule, schedule);
	c.p = p;
	c.m = m;
	return c;
}

/* Generates, prices and simulates c, which must succeed; r stays NULL when it does not. */
static void run_start(struct run *x, const struct config *c)
{
	struct pp_error err = {0};

	memset(x, 0, sizeof(*x));
	CU_ASSERT_EQUAL_FATAL(config_validate(c, &err), 0);
	x->s = sched_new(sched_find(c->schedule), &(struct sched_params){c->p, c->v, c->m, 0});
	x->k = cost_new_explicit(c, NULL, c->w_mem_fraction);
	x->e = engine_new(x->s, x->k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x->e);
	CU_ASSERT_EQUAL(engine_run(x->e, &err), 0);
	x->r = engine_result(x->e);
	CU_ASSERT_PTR_NOT_NULL(x->r);
}

/* Simulates a hand-built schedule s (taken over) priced by c. */
static void run_start_with(struct run *x, struct sched *s, const struct config *c)
{
	struct pp_error err = {0};

	memset(x, 0, sizeof(*x));
	x->s = s;
	x->k = cost_new_explicit(c, NULL, c->w_mem_fraction);
	x->e = engine_new(x->s, x->k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x->e);
	CU_ASSERT_EQUAL(engine_run(x->e, &err), 0);
	x->r = engine_result(x->e);
	CU_ASSERT_PTR_NOT_NULL(x->r);
}

static void run_end(struct run *x)
{
	engine_free(x->e);
	cost_free(x->k);
	sched_free(x->s);
}

/* Time in ticks of a number of units. */
static pp_time ticks(const struct cost *k, double units)
{
	return (pp_time)llround(units * (double)k->tick);
}

/* Index of op (kind, mb, stage) in s, or nops when absent. */
static size_t op_index(const struct sched *s, enum op_kind kind, int mb, int stage)
{
	for (size_t i = 0; i < s->nops; i++)
		if (s->ops[i].kind == kind && s->ops[i].mb == (uint32_t)mb &&
		    s->ops[i].stage == (uint32_t)stage)
			return i;
	return s->nops;
}

/* True when op (kind, mb, stage) ran from start to end units. */
static bool op_ran(const struct run *x, enum op_kind kind, int mb, int stage, double start,
                   double end)
{
	size_t i = op_index(x->s, kind, mb, stage);

	return i < x->s->nops && x->r->times[i].start == ticks(x->k, start) &&
	       x->r->times[i].end == ticks(x->k, end);
}

/* The channel src -> dst of r, or NULL. */
static const struct channel_result *channel(const struct result *r, int src, int dst)
{
	for (int i = 0; i < r->nchannels; i++)
		if (r->channels[i].src == src && r->channels[i].dst == dst)
			return &r->channels[i];
	return NULL;
}

/*
 * Op times of a one-chunk fused schedule computed without an event queue, as a check on the
 * engine: repeatedly start a device's next op once its inputs are known, at the later of the
 * device's free time and each input's end (plus the message time when it crosses devices). In
 * blocking mode a sending op holds its device until its message arrives; wait[d] sums that.
 * Valid when no channel ever queues: full duplex and message time <= every op's duration.
 */
static void reference_times(const struct sched *s, const struct cost *k, struct op_time *out,
                            pp_time *wait)
{
	int p = s->p, m = s->m;
	pp_time *fend = malloc((size_t)(p * m) * sizeof(*fend));
	pp_time *bend = malloc((size_t)(p * m) * sizeof(*bend));
	pp_time *free_at = calloc((size_t)p, sizeof(*free_at));
	size_t *head = malloc((size_t)p * sizeof(*head)), done = 0;
	bool progress = true;

	for (int i = 0; i < p * m; i++)
		fend[i] = bend[i] = -1;
	for (int d = 0; d < p; d++) {
		head[d] = s->dev_start[d];
		wait[d] = 0;
	}
	while (progress) {
		progress = false;
		for (int d = 0; d < p; d++) {
			const struct op *op;
			pp_time ready = 0, start, end, msg = 0;
			bool sends;

			if (head[d] == s->dev_start[d + 1])
				continue;
			op = &s->ops[head[d]];
			if (op->kind == OP_F) {
				if (d > 0 && fend[(d - 1) * m + (int)op->mb] < 0)
					continue;
				if (d > 0)
					ready = fend[(d - 1) * m + (int)op->mb] +
					        k->msg_time[d - 1];
				sends = d + 1 < p;
				msg = sends ? k->msg_time[d] : 0;
			} else {
				if (fend[d * m + (int)op->mb] < 0 ||
				    (d + 1 < p && bend[(d + 1) * m + (int)op->mb] < 0))
					continue;
				ready = fend[d * m + (int)op->mb];
				if (d + 1 < p &&
				    bend[(d + 1) * m + (int)op->mb] + k->msg_time[d] > ready)
					ready = bend[(d + 1) * m + (int)op->mb] + k->msg_time[d];
				sends = d > 0;
				msg = sends ? k->msg_time[d - 1] : 0;
			}
			start = ready > free_at[d] ? ready : free_at[d];
			end = start + (op->kind == OP_F ? k->t_f[d] : k->t_b[d] + k->t_w[d]);
			out[head[d]].start = start;
			out[head[d]].end = end;
			if (op->kind == OP_F)
				fend[d * m + (int)op->mb] = end;
			else
				bend[d * m + (int)op->mb] = end;
			free_at[d] = end;
			if (k->comm == PP_COMM_BLOCKING && sends) {
				free_at[d] += msg;
				wait[d] += msg;
			}
			head[d]++;
			done++;
			progress = true;
		}
	}
	CU_ASSERT_EQUAL(done, s->nops);
	free(fend);
	free(bend);
	free(free_at);
	free(head);
}

static void engine_1f1b_p4_m8_takes_33_units_with_op_times_derived_by_hand(void)
{
	struct config c = config_of("1f1b", 4, 8);
	struct run x;

	run_start(&x, &c);
	CU_ASSERT_EQUAL(x.r->p, 4);
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 33));
	/* the first micro-batch walks down the pipeline and back */
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 0, 0, 1));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 3, 3, 4));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 3, 4, 6));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 2, 6, 8));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 10, 12));
	/* warm-up forwards run back to back; steady state alternates */
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 3, 0, 3, 4));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 4, 0, 12, 13));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 3, 6, 7));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 3, 7, 9));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 7, 3, 24, 25));
	/* the last backward climbs back to device 0 */
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 7, 3, 25, 27));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 7, 1, 29, 31));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 7, 0, 31, 33));
	for (int d = 0; d < 4; d++) {
		CU_ASSERT_EQUAL(x.r->devices[d].first_start, ticks(x.k, d));
		CU_ASSERT_EQUAL(x.r->devices[d].last_end, ticks(x.k, 33 - 2 * d));
	}
	run_end(&x);
}

static void engine_gpipe_p4_m8_takes_33_units_with_op_times_derived_by_hand(void)
{
	struct config c = config_of("gpipe", 4, 8);
	struct run x;

	run_start(&x, &c);
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 33));
	/* F(k) on device d runs from k + d; the backwards start when device 3's forwards end */
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 0, 0, 1));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 5, 2, 7, 8));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 7, 3, 10, 11));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 3, 11, 13));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 2, 13, 15));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 17, 19));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 7, 3, 25, 27));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 7, 0, 31, 33));
	run_end(&x);
}

static void engine_keeps_each_device_busy_24_units_for_p4_m8(void)
{
	static const char *const names[] = {"gpipe", "1f1b"};

	for (size_t i = 0; i < 2; i++) {
		struct config c = config_of(names[i], 4, 8);
		struct run x;

		run_start(&x, &c);
		for (int d = 0; d < 4; d++) {
			CU_ASSERT_EQUAL(x.r->devices[d].busy, ticks(x.k, 24));
			CU_ASSERT_EQUAL(x.r->devices[d].comm_wait, 0);
		}
		run_end(&x);
	}
}

static void engine_gives_each_op_its_cost(void)
{
	struct config c = config_of("1f1b", 3, 5);
	struct run x;

	c.t_f = 1.25;
	c.t_b = 2;
	c.t_w = 0.5;
	run_start(&x, &c);
	for (size_t i = 0; i < x.s->nops; i++)
		CU_ASSERT_EQUAL(x.r->times[i].end - x.r->times[i].start,
		                ticks(x.k, x.s->ops[i].kind == OP_F ? 1.25 : 2.5));
	for (int d = 0; d < 3; d++)
		CU_ASSERT_EQUAL(x.r->devices[d].busy, ticks(x.k, 5 * 3.75));
	run_end(&x);
}

static void engine_overlapped_tcomm_of_0_1_gives_makespan_34_6(void)
{
	struct config c = config_of("1f1b", 4, 8);
	struct run x;

	c.t_comm = 0.1;
	run_start(&x, &c);
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 34.6));
	CU_ASSERT_EQUAL(x.r->makespan, 34600000);
	/* overlap: the forward of micro-batch 0 reaches device 3 after three transfers */
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 3, 3.3, 4.3));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 2, 6.4, 8.4));
	for (int d = 0; d < 4; d++) {
		CU_ASSERT_EQUAL(x.r->devices[d].busy, ticks(x.k, 24));
		CU_ASSERT_EQUAL(x.r->devices[d].comm_wait, 0);
	}
	run_end(&x);
}

/*
 * With no queueing (each channel carries one message per op, ops last >= 1 > 0.1), blocking is
 * the same as zero communication with every sending op lengthened by 0.1 (F on devices 0-2:
 * 1.1, F on device 3: 1; BW on devices 1-3: 2.1, BW on device 0: 2). The critical path is
 * F0@0 F0@1 F0@2 F0@3 B0@3 B0@2 B0@1 F3@1 B1@1 F4@1 F4@2 B3@2 F5@2 B4@2 F6@2 B5@2 F7@2 F7@3
 * B7@3 B7@2 B7@1 B7@0 (Fk@d = forward of micro-batch k on device d, B = fused backward), whose
 * durations 1.1+1.1+1.1+1+2.1+2.1+2.1+1.1+2.1+1.1+1.1+2.1+1.1+2.1+1.1+2.1+1.1+1+2.1+2.1+2.1+2
 * = 34.9.
 */
static void engine_blocking_tcomm_of_0_1_gives_makespan_34_9(void)
{
	struct config c = config_of("1f1b", 4, 8);
	struct run x;
	static const double wait[4] = {0.8, 1.6, 1.6, 0.8};

	c.t_comm = 0.1;
	c.comm = PP_COMM_BLOCKING;
	run_start(&x, &c);
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 34.9));
	CU_ASSERT_EQUAL(x.r->makespan, 34900000);
	for (int d = 0; d < 4; d++) {
		CU_ASSERT_EQUAL(x.r->devices[d].busy, ticks(x.k, 24));
		CU_ASSERT_EQUAL(x.r->devices[d].comm_wait, ticks(x.k, wait[d]));
	}
	/* the stream of device 0 is held 0.1 after each forward before the next one starts */
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 0, 1.1, 2.1));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 3, 3.3, 4.3));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 7, 0, 32.9, 34.9));
	run_end(&x);
}

/* Simulates c and asserts every op time, the makespan and the blocked time match the reference. */
static void assert_matches_reference(const struct config *c)
{
	struct op_time *want;
	pp_time wait[8], makespan = 0;
	struct run x;
	int bad = 0;

	CU_ASSERT_FATAL(c->p <= 8);
	run_start(&x, c);
	want = calloc(x.s->nops, sizeof(*want));
	reference_times(x.s, x.k, want, wait);
	for (size_t i = 0; i < x.s->nops; i++) {
		bad += x.r->times[i].start != want[i].start;
		bad += x.r->times[i].end != want[i].end;
		if (want[i].end > makespan)
			makespan = want[i].end;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(x.r->makespan, makespan);
	for (int d = 0; d < c->p; d++)
		CU_ASSERT_EQUAL(x.r->devices[d].comm_wait, wait[d]);
	free(want);
	run_end(&x);
}

static void engine_matches_a_queue_free_reference_over_many_shapes(void)
{
	static const char *const names[] = {"gpipe", "1f1b"};
	static const double costs[][4] = {
	        {1, 1, 1, 0}, {1, 1, 1, 0.1}, {1, 2, 0.5, 0.5}, {0.7, 1.3, 0.4, 0.7}};
	static const int ms[] = {1, 2, 3, 5, 8};

	for (size_t n = 0; n < 2; n++)
		for (int p = 1; p <= 6; p++)
			for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
				for (size_t k = 0; k < sizeof(costs) / sizeof(costs[0]); k++) {
					struct config c = config_of(names[n], p, ms[i]);

					c.t_f = costs[k][0];
					c.t_b = costs[k][1];
					c.t_w = costs[k][2];
					c.t_comm = costs[k][3];
					assert_matches_reference(&c);
					c.comm = PP_COMM_BLOCKING;
					assert_matches_reference(&c);
				}
}

static void engine_counts_one_message_per_boundary_microbatch_and_direction(void)
{
	struct config c = config_of("1f1b", 4, 8);
	struct run x;

	c.t_comm = 0.1;
	c.msg_bytes = 1000;
	run_start(&x, &c);
	CU_ASSERT_EQUAL(x.r->messages, 2 * 8 * 3);
	CU_ASSERT_EQUAL(x.r->bytes, 2 * 8 * 3 * 1000);
	CU_ASSERT_EQUAL(x.r->msg_time, ticks(x.k, 4.8));
	for (int i = 0; i < x.r->nchannels; i++) {
		CU_ASSERT_EQUAL(x.r->channels[i].messages, 8);
		CU_ASSERT_EQUAL(x.r->channels[i].bytes, 8000);
		CU_ASSERT_EQUAL(x.r->channels[i].busy, ticks(x.k, 0.8));
	}
	run_end(&x);
}

static void engine_counts_messages_even_when_they_take_no_time(void)
{
	struct config c = config_of("gpipe", 3, 5);
	struct run x;

	run_start(&x, &c);
	CU_ASSERT_EQUAL(x.r->messages, 2 * 5 * 2);
	CU_ASSERT_EQUAL(x.r->bytes, 0);
	CU_ASSERT_EQUAL(x.r->msg_time, 0);
	run_end(&x);
}

static void engine_lists_2_p_minus_1_sorted_channels_with_full_duplex(void)
{
	struct config c = config_of("1f1b", 4, 2);
	struct run x;
	static const int pairs[6][2] = {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {2, 3}, {3, 2}};

	run_start(&x, &c);
	CU_ASSERT_EQUAL_FATAL(x.r->nchannels, 6);
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(x.r->channels[i].src, pairs[i][0]);
		CU_ASSERT_EQUAL(x.r->channels[i].dst, pairs[i][1]);
		CU_ASSERT_EQUAL(x.r->channels[i].messages, 2);
		CU_ASSERT_EQUAL(result_channel(x.r, pairs[i][0], pairs[i][1]), i);
	}
	CU_ASSERT_EQUAL(result_channel(x.r, 0, 2), -1);
	CU_ASSERT_EQUAL(result_channel(x.r, 3, 3), -1);
	run_end(&x);
}

/* A recorded message takes 24 bytes, as a large run records about one an op, and the peak a run
 * is sized by counts what its way of running holds: the sweep's cells, or the event loop's 9
 * bytes an op and the record; its order 4 bytes an op; once it ran, its slacks 8 bytes an op,
 * and the slack pass's table 8 bytes a cell, in the sweep's cells or after the loop's arrays. */
static void engine_peak_bytes_counts_the_cells_or_the_loop_and_24_bytes_a_message(void)
{
	size_t nops = 1 << 22, nmsgs = 1 << 21, t = 16 * nops, cells = (size_t)64 << 15;
	size_t sweep = engine_peak_bytes(nops, nmsgs, 64, 1 << 15, false, false, false, false,
	                                 false);

	CU_ASSERT_EQUAL(sizeof(struct msg_record), 24);
	/* a cell a stage and micro-batch, 16 bytes: an arena's rounding aside, its arrays */
	CU_ASSERT_EQUAL(sweep, 16 * (size_t)64 << 15);
	CU_ASSERT_EQUAL(engine_arena_bytes(nops, 64, 1 << 15, false), pp_arena_bytes(sweep, 1));
	CU_ASSERT_EQUAL(engine_peak_bytes(nops, nmsgs, 64, 1 << 15, true, false, false, false, false),
	                sweep + t);
	CU_ASSERT_EQUAL(engine_peak_bytes(nops, nmsgs, 64, 1 << 15, true, true, true, false, false),
	                t + 9 * nops + 24 * nmsgs);
	CU_ASSERT_EQUAL(engine_peak_bytes(nops, nmsgs, 64, 1 << 15, true, false, false, true, true),
	                sweep + t + 4 * nops + 8 * nops);
	CU_ASSERT_EQUAL(engine_peak_bytes(nops, nmsgs, 64, 1 << 15, true, true, false, true, true),
	                t + 4 * nops + (9 * nops > 8 * nops + 8 * cells ? 9 * nops
	                                                                : 8 * nops + 8 * cells));
	/* a run that recorded its messages has the slack pass read their consumers: no table */
	CU_ASSERT_EQUAL(engine_peak_bytes(nops, nmsgs, 64, 1 << 15, true, true, true, true, true),
	                t + 24 * nmsgs + 4 * nops + 9 * nops);
	CU_ASSERT_EQUAL(engine_peak_bytes(nops, nmsgs, 64, 1 << 15, true, false, true, true, true),
	                sweep + t + 24 * nmsgs + 4 * nops + 8 * nops);
	CU_ASSERT_EQUAL(engine_peak_bytes(SIZE_MAX / 2, 0, 64, 1 << 15, true, true, false, false,
	                                  false),
	                SIZE_MAX);
	CU_ASSERT_TRUE(engine_takes_events(true));
	CU_ASSERT_FALSE(engine_takes_events(false));
}

static void engine_lists_p_minus_1_channels_with_half_duplex(void)
{
	struct config c = config_of("1f1b", 5, 3);
	struct run x;

	c.duplex = PP_DUPLEX_HALF;
	run_start(&x, &c);
	CU_ASSERT_EQUAL_FATAL(x.r->nchannels, 4);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(x.r->channels[i].src, i);
		CU_ASSERT_EQUAL(x.r->channels[i].dst, i + 1);
		CU_ASSERT_EQUAL(x.r->channels[i].messages, 6);
		/* both directions of a half-duplex link take its one channel */
		CU_ASSERT_EQUAL(result_channel(x.r, i, i + 1), i);
		CU_ASSERT_EQUAL(result_channel(x.r, i + 1, i), i);
	}
	CU_ASSERT_EQUAL(x.r->messages, 24);
	run_end(&x);
}

static void engine_has_no_channel_with_one_device(void)
{
	struct config c = config_of("1f1b", 1, 4);
	struct run x;

	c.t_comm = 3;
	run_start(&x, &c);
	CU_ASSERT_EQUAL(x.r->nchannels, 0);
	CU_ASSERT_EQUAL(x.r->messages, 0);
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 12));
	run_end(&x);
}

static void engine_queues_messages_that_share_a_channel(void)
{
	struct config c = config_of("gpipe", 2, 2);
	struct run x;

	/*
	 * Device 0 ends F0 at 1 and F1 at 2. F0's message holds channel 0->1 from 1 to 6, so F1's
	 * waits and travels from 6 to 11. Device 1: F0 6-7, F1 11-12, BW0 12-14, BW1 14-16.
	 * Channel 1->0: BW0's gradient 14-19, BW1's queued 19-24. Device 0: BW0 19-21, BW1 24-26.
	 */
	c.t_comm = 5;
	run_start(&x, &c);
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 0, 0, 1));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 0, 1, 2));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 1, 6, 7));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 1, 11, 12));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 1, 12, 14));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 1, 14, 16));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 19, 21));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 0, 24, 26));
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 26));
	CU_ASSERT_PTR_NOT_NULL_FATAL(channel(x.r, 0, 1));
	CU_ASSERT_PTR_NOT_NULL_FATAL(channel(x.r, 1, 0));
	CU_ASSERT_EQUAL(channel(x.r, 0, 1)->busy, ticks(x.k, 10));
	CU_ASSERT_EQUAL(channel(x.r, 1, 0)->busy, ticks(x.k, 10));
	CU_ASSERT_EQUAL(x.r->msg_time, ticks(x.k, 20));
	run_end(&x);
}

static void engine_half_duplex_makes_both_directions_queue_on_one_channel(void)
{
	struct config c = config_of("1f1b", 2, 2);
	struct run x;

	/*
	 * Full duplex: F0's message 1-6, F1's 6-11; device 1 runs F0 6-7, BW0 7-9, F1 11-12, BW1
	 * 12-14; gradients travel 9-14 and 14-19; device 0 runs BW0 14-16 and BW1 19-21.
	 */
	c.t_comm = 5;
	run_start(&x, &c);
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 21));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 14, 16));
	CU_ASSERT_EQUAL(x.r->nchannels, 2);
	run_end(&x);
	/*
	 * Half duplex: BW0's gradient, ready at 9, waits for F1's message (6-11) and travels
	 * 11-16; BW1's, ready at 14, travels 16-21. Device 0 runs BW0 16-18 and BW1 21-23.
	 */
	c.duplex = PP_DUPLEX_HALF;
	run_start(&x, &c);
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 23));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 1, 11, 12));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 16, 18));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 0, 21, 23));
	CU_ASSERT_EQUAL_FATAL(x.r->nchannels, 1);
	CU_ASSERT_EQUAL(x.r->channels[0].src, 0);
	CU_ASSERT_EQUAL(x.r->channels[0].dst, 1);
	CU_ASSERT_EQUAL(x.r->channels[0].messages, 4);
	CU_ASSERT_EQUAL(x.r->channels[0].busy, ticks(x.k, 20));
	run_end(&x);
}

static void engine_gpipe_holds_m_activations_on_every_device(void)
{
	struct config c = config_of("gpipe", 4, 6);
	struct run x;

	run_start(&x, &c);
	for (int d = 0; d < 4; d++)
		CU_ASSERT_EQUAL(x.r->devices[d].peak_act, 6 * x.k->act[d]);
	run_end(&x);
}

static void engine_1f1b_holds_min_of_p_minus_d_and_m_activations(void)
{
	static const int ms[] = {1, 2, 3, 8};

	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		struct config c = config_of("1f1b", 4, ms[i]);
		struct run x;

		run_start(&x, &c);
		for (int d = 0; d < 4; d++) {
			int64_t want = 4 - d < ms[i] ? 4 - d : ms[i];

			CU_ASSERT_EQUAL(x.r->devices[d].peak_act, want * x.k->act[d]);
		}
		run_end(&x);
	}
}

static void engine_split_backward_keeps_the_w_share_alive_until_w(void)
{
	struct sched *s = sched_alloc(1, 1, 2, true, PLACE_LOOP);
	struct config c = config_of("1f1b", 1, 2);
	struct run x;

	/* F0 allocates act; B0 frees all but act_w; F1 brings the peak to act + act_w */
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_B, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_W, 0, 0);
	sched_push(s, 0, OP_B, 1, 0);
	sched_push(s, 0, OP_W, 1, 0);
	run_start_with(&x, s, &c);
	CU_ASSERT_EQUAL(x.r->devices[0].peak_act, x.k->act[0] + x.k->act_w[0]);
	CU_ASSERT_EQUAL(x.k->act_w[0] * 2, x.k->act[0]);
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 6));
	run_end(&x);
}

static void engine_split_b_waits_for_the_next_stage_b_and_w_for_its_own_b(void)
{
	struct sched *s = sched_alloc(2, 1, 1, true, PLACE_LOOP);
	struct config c = config_of("1f1b", 2, 1);
	struct run x;

	/*
	 * t_f 1, t_b 2, t_w 3. Device 1: F 1-2, B 2-4, W 4-7. Device 0's B needs device 1's B
	 * (at 4), not its W: B 4-6, W 6-9.
	 */
	c.t_b = 2;
	c.t_w = 3;
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_B, 0, 0);
	sched_push(s, 0, OP_W, 0, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_B, 0, 1);
	sched_push(s, 1, OP_W, 0, 1);
	run_start_with(&x, s, &c);
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 1, 1, 2));
	CU_ASSERT_TRUE(op_ran(&x, OP_B, 0, 1, 2, 4));
	CU_ASSERT_TRUE(op_ran(&x, OP_W, 0, 1, 4, 7));
	CU_ASSERT_TRUE(op_ran(&x, OP_B, 0, 0, 4, 6));
	CU_ASSERT_TRUE(op_ran(&x, OP_W, 0, 0, 6, 9));
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 9));
	CU_ASSERT_EQUAL(x.r->messages, 2);
	CU_ASSERT_EQUAL(x.r->devices[1].busy, ticks(x.k, 6));
	run_end(&x);
}

static void engine_v_placement_sends_nothing_across_the_turn(void)
{
	struct sched *s = sched_alloc(2, 2, 1, false, PLACE_V);
	struct config c = config_of("1f1b", 2, 1);
	struct run x;

	/*
	 * Stages 0 and 3 on device 0, 1 and 2 on device 1; chunk ops take half the device time
	 * (F 0.5, BW 1), messages 0.5. Device 0: F(0) 0-0.5; device 1: F(1) 1-1.5, F(2) 1.5-2
	 * (the turn 1 -> 2 stays on device 1); device 0: F(3) 2.5-3, BW(3) 3-4; device 1:
	 * BW(2) 4.5-5.5, BW(1) 5.5-6.5; device 0: BW(0) 7-8.
	 */
	c.v = 2;
	c.t_comm = 0.5;
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 0, 3);
	sched_push(s, 0, OP_BW, 0, 3);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_F, 0, 2);
	sched_push(s, 1, OP_BW, 0, 2);
	sched_push(s, 1, OP_BW, 0, 1);
	run_start_with(&x, s, &c);
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 0, 0, 0.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 1, 1, 1.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 2, 1.5, 2));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 3, 2.5, 3));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 3, 3, 4));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 2, 4.5, 5.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 1, 5.5, 6.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 7, 8));
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 8));
	CU_ASSERT_EQUAL(x.r->messages, 4);
	CU_ASSERT_EQUAL(x.r->nchannels, 2);
	CU_ASSERT_EQUAL(x.r->devices[0].peak_act, x.k->act[0] + x.k->act[3]);
	run_end(&x);
}

static void engine_counts_p_v_minus_1_messages_per_direction_with_looped_chunks(void)
{
	struct sched *s = sched_alloc(2, 2, 2, false, PLACE_LOOP);
	struct config c = config_of("1f1b", 2, 2);
	struct run x;

	/*
	 * Stages 0, 2 on device 0 and 1, 3 on device 1: all three boundaries cross, including the
	 * wrap 1 -> 2 from device 1 back to device 0. Chunk ops: F 0.5, BW 1, no message time.
	 */
	c.v = 2;
	for (int d = 0; d < 2; d++) {
		for (int ch = 0; ch < 2; ch++)
			for (int mb = 0; mb < 2; mb++)
				sched_push(s, d, OP_F, mb, ch * 2 + d);
		for (int ch = 1; ch >= 0; ch--)
			for (int mb = 0; mb < 2; mb++)
				sched_push(s, d, OP_BW, mb, ch * 2 + d);
	}
	run_start_with(&x, s, &c);
	CU_ASSERT_EQUAL(x.r->messages, 2 * 2 * (2 * 2 - 1));
	CU_ASSERT_PTR_NOT_NULL_FATAL(channel(x.r, 0, 1));
	CU_ASSERT_PTR_NOT_NULL_FATAL(channel(x.r, 1, 0));
	CU_ASSERT_EQUAL(channel(x.r, 0, 1)->messages, 6);
	CU_ASSERT_EQUAL(channel(x.r, 1, 0)->messages, 6);
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 2, 1, 1.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 0, 6.5, 7.5));
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 7.5));
	CU_ASSERT_EQUAL(x.r->devices[0].busy, ticks(x.k, 6));
	run_end(&x);
}

static void engine_interleaved_sends_2m_times_pv_minus_1_messages(void)
{
	static const struct {
		int p, v, m;
	} cases[] = {{4, 4, 16}, {4, 2, 8}, {2, 2, 4}, {3, 3, 6},
	             {8, 2, 16}, {4, 2, 3}, {4, 3, 10}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int p = cases[i].p, v = cases[i].v, m = cases[i].m;
		struct config c = config_of("interleaved", p, m);
		struct run x;

		c.v = v;
		c.msg_bytes = 1000;
		run_start(&x, &c);
		CU_ASSERT_EQUAL(x.r->messages, (uint64_t)(2 * m * (p * v - 1)));
		CU_ASSERT_EQUAL(x.r->bytes, (uint64_t)(2 * m * (p * v - 1)) * 1000);
		run_end(&x);
	}
}

static void engine_interleaved_p4_v4_m16_sends_240_forward_messages_not_192(void)
{
	struct config c = config_of("interleaved", 4, 16);
	struct run x;
	uint64_t forward = 0, backward = 0;

	/*
	 * Forward messages run d -> d+1 and wrap from device 3 back to device 0 between chunks:
	 * 16 * 4 on each of 0->1, 1->2, 2->3 and 16 * 3 on 3->0, 240 = 16 * 15 in all. Gradients
	 * take the reverse channels.
	 */
	c.v = 4;
	run_start(&x, &c);
	CU_ASSERT_EQUAL_FATAL(x.r->nchannels, 8);
	for (int d = 0; d < 4; d++) {
		const struct channel_result *f = channel(x.r, d, (d + 1) % 4);
		const struct channel_result *b = channel(x.r, (d + 1) % 4, d);

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL(f->messages, d < 3 ? 64 : 48);
		CU_ASSERT_EQUAL(b->messages, d < 3 ? 64 : 48);
		forward += f->messages;
		backward += b->messages;
	}
	CU_ASSERT_EQUAL(forward, 240);
	CU_ASSERT_EQUAL(backward, 240);
	CU_ASSERT_EQUAL(x.r->messages, 480);
	run_end(&x);
}

static void engine_reports_each_stuck_device_on_deadlock(void)
{
	struct sched *s = sched_alloc(2, 1, 1, false, PLACE_LOOP);
	struct config c = config_of("1f1b", 2, 1);
	struct cost *k = cost_new_explicit(&c, NULL, 0.5);
	struct pp_error err = {0};
	struct engine *e;

	/* device 0 runs its backward before its own forward */
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_BW, 0, 1);
	e = engine_new(s, k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(engine_run(e, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_SIM);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "after 0 of 4 ops"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	        err.msg, "device 0 waits in BW(mb 0, stage 0) for its own F(mb 0, stage 0)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	        err.msg, "device 1 waits in F(mb 0, stage 1) for F(mb 0, stage 0) from device 0"));
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	CU_ASSERT_PTR_NULL(engine_result(e));
	engine_free(e);
	cost_free(k);
	sched_free(s);
}

static void engine_reports_a_cycle_across_devices_as_deadlock(void)
{
	struct sched *s = sched_alloc(2, 1, 2, false, PLACE_LOOP);
	struct config c = config_of("1f1b", 2, 2);
	struct cost *k = cost_new_explicit(&c, NULL, 0.5);
	struct pp_error err = {0};
	struct engine *e;

	/* device 0 wants BW0 from device 1 before sending F1; device 1 wants F1 first */
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	sched_push(s, 1, OP_F, 1, 1);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_BW, 1, 1);
	e = engine_new(s, k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(engine_run(e, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_SIM);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "after 1 of 8 ops"));
	CU_ASSERT_PTR_NOT_NULL(
	        strstr(err.msg,
	               "device 0 waits in BW(mb 0, stage 0) for BW(mb 0, stage 1) from device 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	        err.msg, "device 1 waits in F(mb 1, stage 1) for F(mb 1, stage 0) from device 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "; cycle: device 0 -> device 1 -> device 0"));
	engine_free(e);
	cost_free(k);
	sched_free(s);
}

static void engine_names_all_five_stuck_devices_on_deadlock(void)
{
	struct sched *s = sched_alloc(5, 1, 1, false, PLACE_LOOP);
	struct config c = config_of("1f1b", 5, 1);
	struct cost *k = cost_new_explicit(&c, NULL, 0.5);
	struct pp_error err = {0};
	struct engine *e;

	/* every device runs its backward before its forward */
	for (int d = 0; d < 5; d++) {
		sched_push(s, d, OP_BW, 0, d);
		sched_push(s, d, OP_F, 0, d);
	}
	e = engine_new(s, k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(engine_run(e, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_SIM);
	for (int d = 0; d < 5; d++) {
		char want[128];

		snprintf(want, sizeof(want),
		         "device %d waits in BW(mb 0, stage %d) for its own F(mb 0, stage %d)", d,
		         d, d);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	}
	engine_free(e);
	cost_free(k);
	sched_free(s);
}

static void engine_run_rejects_a_malformed_schedule(void)
{
	struct sched *s = sched_alloc(2, 1, 1, false, PLACE_LOOP);
	struct config c = config_of("1f1b", 2, 1);
	struct cost *k = cost_new_explicit(&c, NULL, 0.5);
	struct pp_error err = {0};
	struct engine *e;

	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_BW, 0, 1);
	e = engine_new(s, k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(engine_run(e, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_STRING_EQUAL(err.msg, "F(mb 0, stage 0) on device 0: appears twice");
	CU_ASSERT_PTR_NULL(engine_result(e));
	engine_free(e);
	cost_free(k);
	sched_free(s);
}

/* Runs s priced by k on the sweep (events false) or the event loop; returns engine_run's
 * status with its error in err. */
static int run_either(const struct sched *s, const struct cost *k, bool events,
                      struct pp_error *err)
{
	struct engine *e = engine_new(s, k, err);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	if (events)
		engine_use_events(e);
	rc = engine_run(e, err);
	CU_ASSERT_EQUAL(rc == 0, engine_result(e) != NULL);
	engine_free(e);
	return rc;
}

/*
 * The sweep checks ops as it reads them and leaves to sched_check only what it cannot see: for
 * every op of several schedules and every way of spoiling it (another op's cell, another stage,
 * out of range, the other backward mode, a stray overlap flag), both engines refuse exactly the
 * schedules sched_check refuses, with its message, and run or deadlock on the others.
 */
static void engine_refuses_what_sched_check_refuses_op_by_op(void)
{
	static const struct {
		const char *name;
		int p, v, m;
	} shapes[] = {{"1f1b", 3, 1, 4}, {"zbh1", 3, 1, 4},      {"interleaved", 2, 2, 4},
	              {"zbv", 2, 2, 4},  {"dualpipev", 2, 2, 4}, {"gpipe", 1, 1, 3},
	              {"zbh2", 2, 1, 3}, {"dualpipe", 2, 2, 4}};
	int cases = 0, refused = 0;

	for (size_t h = 0; h < sizeof(shapes) / sizeof(shapes[0]); h++) {
		struct sched_params sp = {shapes[h].p, shapes[h].v, shapes[h].m, 0};
		struct sched *s = sched_new(sched_find(shapes[h].name), &sp);
		struct config c = config_of(shapes[h].name, sp.p, sp.m);
		struct cost_layout l;
		struct cost *k;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		l = cost_layout_of(s);
		c.v = sp.v;
		c.t_comm = 0.25;
		k = cost_new_explicit(&c, &l, 0.5);
		for (size_t i = 0; i < s->nops; i++)
			for (int how = 0; how < 9; how++) {
				struct op keep = s->ops[i];
				struct op *op = &s->ops[i];
				struct pp_error want = {0}, got = {0};
				int rc_check;

				switch (how) {
				case 0: /* the cell of the op after it on the list */
					*op = s->ops[(i + 1) % s->nops];
					break;
				case 1: /* the cell of the op before it */
					*op = s->ops[(i + s->nops - 1) % s->nops];
					break;
				case 2:
					op->stage = (op->stage + 1) % (uint32_t)s->S;
					break;
				case 3:
					op->mb = (uint32_t)s->m;
					break;
				case 4:
					op->stage = (uint32_t)s->S;
					break;
				case 5:
					op->kind = 7;
					break;
				case 6: /* the other backward mode */
					op->kind = op->kind == OP_BW  ? OP_B
					           : op->kind == OP_F ? OP_F
					                              : OP_BW;
					break;
				case 7:
					op->flags ^= OP_OVERLAP;
					break;
				case 8: /* another micro-batch */
					op->mb = (op->mb + 1) % (uint32_t)s->m;
					break;
				}
				rc_check = sched_check(s, &want);
				for (int events = 0; events < 2; events++) {
					int rc = run_either(s, k, events, &got);

					cases++;
					if (rc_check != 0) {
						refused++;
						CU_ASSERT_EQUAL(rc, -1);
						CU_ASSERT_EQUAL(got.kind, PP_ERR_CONFIG);
						CU_ASSERT_STRING_EQUAL(got.msg, want.msg);
					} else if (rc != 0) {
						CU_ASSERT_EQUAL(got.kind, PP_ERR_SIM);
					}
				}
				*op = keep;
			}
		CU_ASSERT_EQUAL(sched_check(s, &(struct pp_error){0}), 0);
		cost_free(k);
		sched_free(s);
	}
	/* most spoilings are refused: the test sees the check's errors, not only runs */
	CU_ASSERT(refused > cases / 2);
}

static void engine_new_rejects_a_cost_with_another_stage_count(void)
{
	struct sched *s = sched_new(sched_find("1f1b"), &(struct sched_params){4, 1, 8, 0});
	struct config c = config_of("1f1b", 2, 8);
	struct cost *k = cost_new_explicit(&c, NULL, 0.5);
	struct pp_error err = {0};

	CU_ASSERT_PTR_NULL(engine_new(s, k, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "2 stages"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "has 4"));
	cost_free(k);
	sched_free(s);
}

static void engine_new_rejects_times_whose_total_exceeds_the_limit(void)
{
	struct config c = config_of("1f1b", 4, 256);
	struct sched *s = sched_new(sched_find("1f1b"), &(struct sched_params){4, 1, 256, 0});
	struct pp_error err = {0};
	struct cost *k;
	struct engine *e;

	/* 4 stages * 256 micro-batches * 3e9 units * 1e6 ticks = 3.07e18 > INT64_MAX / 4 */
	c.t_f = c.t_b = c.t_w = 1e9;
	k = cost_new_explicit(&c, NULL, 0.5);
	CU_ASSERT_PTR_NULL(engine_new(s, k, &err));
	CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
	cost_free(k);
	sched_free(s);
	/* half of it, 1.5e18 ticks, fits */
	c.m = 128;
	s = sched_new(sched_find("1f1b"), &(struct sched_params){4, 1, 128, 0});
	k = cost_new_explicit(&c, NULL, 0.5);
	e = engine_new(s, k, &err);
	CU_ASSERT_PTR_NOT_NULL(e);
	engine_free(e);
	cost_free(k);
	sched_free(s);
}

static void engine_has_no_result_before_it_runs(void)
{
	struct sched *s = sched_new(sched_find("gpipe"), &(struct sched_params){2, 1, 2, 0});
	struct config c = config_of("gpipe", 2, 2);
	struct cost *k = cost_new_explicit(&c, NULL, 0.5);
	struct pp_error err = {0};
	struct engine *e = engine_new(s, k, &err);

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_NULL(engine_result(e));
	CU_ASSERT_EQUAL(engine_run(e, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(engine_result(e));
	engine_free(e);
	engine_free(NULL);
	cost_free(k);
	sched_free(s);
}

static void engine_gives_identical_times_on_every_run(void)
{
	struct config c = config_of("1f1b", 6, 13);
	struct run a, b;

	c.t_comm = 0.3;
	c.t_f = 0.7;
	c.duplex = PP_DUPLEX_HALF;
	run_start(&a, &c);
	run_start(&b, &c);
	CU_ASSERT_EQUAL(memcmp(a.r->times, b.r->times, a.s->nops * sizeof(*a.r->times)), 0);
	CU_ASSERT_EQUAL(memcmp(a.r->devices, b.r->devices, 6 * sizeof(*a.r->devices)), 0);
	CU_ASSERT_EQUAL(a.r->makespan, b.r->makespan);
	CU_ASSERT_TRUE(a.r->makespan > 0);
	run_end(&a);
	run_end(&b);
}

/* A p=1, m=2 mixed schedule: F0, then F1 overlapped with the fused BW0, then the split B1, W1. */
static struct sched *one_pair_by_hand(void)
{
	size_t counts[1] = {5};
	struct sched *s = sched_alloc_counts(1, 1, 2, true, PLACE_LOOP, counts);

	s->mixed = true;
	sched_push(s, 0, OP_F, 0, 0);
	sched_push_pair(s, 0, 1, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_B, 1, 0);
	sched_push(s, 0, OP_W, 1, 0);
	return s;
}

/*
 * A schedule of exactly its share of ops whose last two are an overlapped pair rerunning F1
 * (F0, F1, B0, W0, then F1 with B1; W1 missing) is refused by both engines, naming the F that
 * appears twice: a pair that finds its cell already run stops the sweep.
 */
static void engine_refuses_a_last_overlapped_pair_whose_forward_ran_before(void)
{
	for (int events = 0; events < 2; events++) {
		struct sched *s = sched_alloc(1, 1, 2, true, PLACE_LOOP);
		struct config c = config_of("1f1b", 1, 2);
		struct cost *k = cost_new_explicit(&c, NULL, 0.5);
		struct pp_error err = {0};
		struct engine *e;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(k);
		sched_push(s, 0, OP_F, 0, 0);
		sched_push(s, 0, OP_F, 1, 0);
		sched_push(s, 0, OP_B, 0, 0);
		sched_push(s, 0, OP_W, 0, 0);
		sched_push_pair(s, 0, 1, 0, OP_B, 1, 0);
		e = engine_new(s, k, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		if (events)
			engine_use_events(e);
		CU_ASSERT_EQUAL(engine_run(e, &err), -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "F(mb 1, stage 0) on device 0: appears twice"));
		engine_free(e);
		cost_free(k);
		sched_free(s);
	}
}

static void engine_runs_an_overlapped_pair_as_one_slot_of_overlap_factor_times_f_plus_b(void)
{
	static const double factors[] = {1, 0.5, 0.8};

	for (size_t k = 0; k < sizeof(factors) / sizeof(factors[0]); k++) {
		struct config c = config_of("1f1b", 1, 2);
		struct run x;
		double f = factors[k], pair = f * (1 + 2);

		/* F 1, BW 2: the pair takes f x 3, both of its ops start and end with it; the
		 * device is busy for the slot once */
		c.overlap_factor = f;
		run_start_with(&x, one_pair_by_hand(), &c);
		CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 0, 0, 1));
		CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 0, 1, 1 + pair));
		CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 1, 1 + pair));
		CU_ASSERT_TRUE(op_ran(&x, OP_B, 1, 0, 1 + pair, 2 + pair));
		CU_ASSERT_TRUE(op_ran(&x, OP_W, 1, 0, 2 + pair, 3 + pair));
		CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 3 + pair));
		CU_ASSERT_EQUAL(x.r->devices[0].busy, ticks(x.k, 3 + pair));
		/* F0 and F1 are alive together at the pair's start */
		CU_ASSERT_EQUAL(x.r->devices[0].peak_act, 2 * x.k->act[0]);
		run_end(&x);
	}
}

static void engine_starts_a_pair_once_the_inputs_of_both_ops_have_arrived(void)
{
	struct sched *s = sched_alloc(2, 1, 2, false, PLACE_LOOP);
	struct config c = config_of("1f1b", 2, 2);
	struct run x;

	/*
	 * Device 1 pairs F1 with BW0. F 1, BW 2, messages 0.5. Device 0: F0 0-1, F1 1-2;
	 * device 1: F0 1.5-2.5; the pair waits for F1's input (2.5) and BW0's own F0 (2.5):
	 * 2.5-5.5, then BW1 5.5-7.5; device 0: BW0 6-8 (gradient at 6), BW1 8-10.
	 */
	c.t_comm = 0.5;
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push_pair(s, 1, 1, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_BW, 1, 1);
	run_start_with(&x, s, &c);
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 0, 1, 1.5, 2.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 1, 2.5, 5.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 1, 2.5, 5.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 1, 5.5, 7.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 6, 8));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 0, 8, 10));
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 10));
	CU_ASSERT_EQUAL(x.r->messages, 4);
	run_end(&x);
	/* the pair in half the time: 2.5-4, BW1 4-6; device 0: BW0 4.5-6.5, BW1 6.5-8.5 */
	s = sched_alloc(2, 1, 2, false, PLACE_LOOP);
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push_pair(s, 1, 1, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_BW, 1, 1);
	c.overlap_factor = 0.5;
	run_start_with(&x, s, &c);
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 1, 2.5, 4));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 1, 2.5, 4));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 1, 4, 6));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 4.5, 6.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 0, 6.5, 8.5));
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 8.5));
	run_end(&x);
}

static void engine_blocking_sends_of_a_pair_hold_its_device_until_the_later_one_arrives(void)
{
	struct sched *s = sched_alloc(3, 1, 2, false, PLACE_LOOP);
	struct config c = config_of("1f1b", 3, 2);
	struct run x;

	/*
	 * Device 1 pairs F1 (output to device 2) with BW0 (gradient to device 0); both messages
	 * leave when the pair ends and take 0.5 on their own channels, so the device is held 0.5,
	 * not 1. F 1, BW 2, blocking. Device 0: F0 0-1 (held to 1.5), F1 1.5-2.5 (held to 3);
	 * device 1: F0 1.5-2.5 (held to 3); device 2: F0 3-4, BW0 4-6 (held to 6.5); device 1:
	 * pair 6.5-9.5 (held to 10); device 2: F1 10-11, BW1 11-13 (held to 13.5); device 1:
	 * BW1 13.5-15.5 (held to 16); device 0: BW0 10-12, BW1 16-18.
	 */
	c.t_comm = 0.5;
	c.comm = PP_COMM_BLOCKING;
	sched_push(s, 0, OP_F, 0, 0);
	sched_push(s, 0, OP_F, 1, 0);
	sched_push(s, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push_pair(s, 1, 1, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_BW, 1, 1);
	sched_push(s, 2, OP_F, 0, 2);
	sched_push(s, 2, OP_BW, 0, 2);
	sched_push(s, 2, OP_F, 1, 2);
	sched_push(s, 2, OP_BW, 1, 2);
	run_start_with(&x, s, &c);
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 0, 1.5, 2.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 1, 6.5, 9.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 1, 6.5, 9.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_F, 1, 2, 10, 11));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 0, 0, 10, 12));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 1, 13.5, 15.5));
	CU_ASSERT_TRUE(op_ran(&x, OP_BW, 1, 0, 16, 18));
	CU_ASSERT_EQUAL(x.r->makespan, ticks(x.k, 18));
	CU_ASSERT_EQUAL(x.r->devices[0].comm_wait, ticks(x.k, 1));
	CU_ASSERT_EQUAL(x.r->devices[1].comm_wait, ticks(x.k, 1.5));
	CU_ASSERT_EQUAL(x.r->devices[2].comm_wait, ticks(x.k, 1));
	CU_ASSERT_EQUAL(x.r->devices[1].busy, ticks(x.k, 1 + 3 + 2));
	run_end(&x);
}

static void engine_names_the_cycle_of_a_deadlock(void)
{
	struct sched *s = sched_alloc(3, 1, 2, false, PLACE_LOOP);
	struct config c = config_of("1f1b", 3, 2);
	struct cost *k = cost_new_explicit(&c, NULL, 0.5);
	struct pp_error err = {0};
	struct engine *e;

	/* devices 1 and 2 wait for each other; device 0 only waits for device 1 */
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
	e = engine_new(s, k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(engine_run(e, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_SIM);
	CU_ASSERT_STRING_EQUAL(
	        err.msg, "deadlock after 3 of 12 ops: device 0 waits in BW(mb 0, stage 0) for "
	                 "BW(mb 0, stage 1) from device 1; device 1 waits in BW(mb 0, stage 1) "
	                 "for BW(mb 0, stage 2) from device 2; device 2 waits in F(mb 1, stage "
	                 "2) for F(mb 1, stage 1) from device 1; cycle: device 1 -> device 2 "
	                 "-> device 1");
	engine_free(e);
	cost_free(k);
	sched_free(s);
}

static void engine_names_the_waiting_partner_of_a_stuck_pair(void)
{
	struct sched *s = sched_alloc(2, 1, 2, false, PLACE_LOOP);
	struct config c = config_of("1f1b", 2, 2);
	struct cost *k = cost_new_explicit(&c, NULL, 0.5);
	struct pp_error err = {0};
	struct engine *e;

	/* device 0's pair (F1 ; BW0): F1 could run, BW0 waits for device 1, which waits for F1 */
	sched_push(s, 0, OP_F, 0, 0);
	sched_push_pair(s, 0, 1, 0, OP_BW, 0, 0);
	sched_push(s, 0, OP_BW, 1, 0);
	sched_push(s, 1, OP_F, 1, 1);
	sched_push(s, 1, OP_F, 0, 1);
	sched_push(s, 1, OP_BW, 0, 1);
	sched_push(s, 1, OP_BW, 1, 1);
	e = engine_new(s, k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(engine_run(e, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_SIM);
	CU_ASSERT_STRING_EQUAL(
	        err.msg, "deadlock after 1 of 8 ops: device 0 waits in BW(mb 0, stage 0) for "
	                 "BW(mb 0, stage 1) from device 1; device 1 waits in F(mb 1, stage 1) "
	                 "for F(mb 1, stage 0) from device 0; cycle: device 0 -> device 1 -> "
	                 "device 0");
	CU_ASSERT_PTR_NULL(engine_result(e));
	engine_free(e);
	cost_free(k);
	sched_free(s);
}

/* Runs schedule on costs k twice, the sweep and the event loop; every figure must agree. */
/* Runs s priced by k, perturbed by pt unless NULL, on the sweep and the event loop, and checks
 * they agree on every figure. */
static void assert_sweep_matches_events_with(const struct sched *s, const struct cost *k,
                                             const struct engine_perturb *pt)
{
	struct pp_error err = {0};
	struct engine *a = engine_new(s, k, &err), *b = engine_new(s, k, &err);
	const struct result *ra, *rb;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	engine_use_events(b);
	engine_record_messages(a);
	engine_record_messages(b);
	if (pt != NULL) {
		CU_ASSERT_EQUAL_FATAL(engine_perturb(a, pt, &err), 0);
		CU_ASSERT_EQUAL_FATAL(engine_perturb(b, pt, &err), 0);
	}
	CU_ASSERT_EQUAL(engine_run(a, &err), 0);
	CU_ASSERT_EQUAL(engine_run(b, &err), 0);
	ra = engine_result(a);
	rb = engine_result(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ra);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rb);
	CU_ASSERT_EQUAL(ra->makespan, rb->makespan);
	CU_ASSERT_EQUAL(memcmp(ra->times, rb->times, s->nops * sizeof(*ra->times)), 0);
	CU_ASSERT_EQUAL(memcmp(ra->devices, rb->devices, (size_t)s->p * sizeof(*ra->devices)), 0);
	CU_ASSERT_EQUAL_FATAL(ra->nchannels, rb->nchannels);
	CU_ASSERT_EQUAL(
	        memcmp(ra->channels, rb->channels, (size_t)ra->nchannels * sizeof(*ra->channels)),
	        0);
	CU_ASSERT_EQUAL(ra->messages, rb->messages);
	CU_ASSERT_EQUAL(ra->bytes, rb->bytes);
	CU_ASSERT_EQUAL(ra->msg_time, rb->msg_time);
	/* the same record of messages, in the same order (by sender, in its ops' order) */
	CU_ASSERT_EQUAL(ra->nmsgs, ra->messages);
	CU_ASSERT_EQUAL_FATAL(ra->nmsgs, rb->nmsgs);
	CU_ASSERT_EQUAL(memcmp(ra->msgs, rb->msgs, ra->nmsgs * sizeof(*ra->msgs)), 0);
	for (size_t q = 0; q + 1 < ra->nmsgs; q++)
		CU_ASSERT_TRUE(ra->msgs[q].from < ra->msgs[q + 1].from);
	for (size_t q = 0; q < ra->nmsgs; q++) {
		const struct msg_record *g = &ra->msgs[q];
		struct op out[2];
		int n;
		bool found = false;

		CU_ASSERT_TRUE_FATAL(g->from < s->nops && g->to < s->nops);
		n = sched_op_consumers(s, &s->ops[g->from], out);
		for (int j = 0; j < n; j++)
			found |= (out[j].kind == OP_F) == (s->ops[g->to].kind == OP_F) &&
			         out[j].mb == s->ops[g->to].mb &&
			         out[j].stage == s->ops[g->to].stage;
		CU_ASSERT_TRUE(found);
		CU_ASSERT_NOT_EQUAL(s->stage_device[s->ops[g->from].stage],
		                    s->stage_device[s->ops[g->to].stage]);
		CU_ASSERT_TRUE(g->start >= ra->times[g->from].end && g->end >= g->start &&
		               g->end <= ra->times[g->to].start);
	}
	engine_free(a);
	engine_free(b);
}

static void assert_sweep_matches_events(const struct sched *s, const struct cost *k)
{
	assert_sweep_matches_events_with(s, k, NULL);
}

static void engine_sweep_gives_the_event_loops_times_for_every_schedule_comm_and_message_time(void)
{
	size_t n;
	const struct sched_desc *t = sched_table(&n);
	static const double tcomm[] = {0, 0.25, 1.75};
	static const struct {
		int p, m;
	} shapes[] = {{1, 3}, {2, 4}, {4, 8}, {4, 10}, {5, 12}, {8, 16}};

	for (size_t i = 0; i < n; i++)
		for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
			for (size_t tc = 0; tc < sizeof(tcomm) / sizeof(tcomm[0]); tc++)
				for (int comm = 0; comm < 2; comm++) {
					struct config c =
					        unit_config(t[i].name, shapes[sh].p, t[i].min_v,
					                    shapes[sh].m, 2, 1.5, 0.5);
					struct pp_error err = {0};
					struct sim *s;

					c.t_comm = tcomm[tc];
					c.comm = comm ? PP_COMM_BLOCKING : PP_COMM_OVERLAP;
					c.overlap_factor = 0.8;
					/* shapes a schedule does not take are skipped */
					s = sim_run(&c, &err);
					if (s == NULL)
						continue;
					assert_sweep_matches_events(s->sched, s->cost);
					sim_free(s);
				}
}

static void engine_sweep_gives_the_event_loops_times_for_uneven_stages_and_a_model(void)
{
	struct config c = unit_config("interleaved", 4, 2, 8, 1, 1, 1);
	struct sim *s;

	unit_set(&c, "stage_scale", "1,1.3,0.7,2,1,1,1.1,0.9");
	unit_set(&c, "t_comm", "0.3");
	s = unit_run(&c, 0);
	assert_sweep_matches_events(s->sched, s->cost);
	sim_free(s);
	config_init(&c);
	unit_set(&c, "model", "llama3-8b");
	unit_set(&c, "gpus", "32");
	unit_set(&c, "tp", "4");
	unit_set(&c, "p", "8");
	unit_set(&c, "m", "16");
	unit_set(&c, "schedule", "zbv");
	s = unit_run(&c, 0);
	assert_sweep_matches_events(s->sched, s->cost);
	sim_free(s);
	/* two routes, each with the LM head on its last stage, and every stream on */
	unit_set(&c, "schedule", "dualpipe");
	unit_set(&c, "dp", "2");
	unit_set(&c, "tp", "2");
	unit_set(&c, "overlap_grad_reduce", "yes");
	s = unit_run(&c, 0);
	assert_sweep_matches_events(s->sched, s->cost);
	sim_free(s);
}

/*
 * A channel that carries a boundary whose messages take no time and one whose messages take
 * long (interleaved p = 2, v = 2: device 0 sends to device 1 across boundaries 0 and 2) is
 * priced message by message: a message of no time queues behind a long one. Only a channel
 * whose every message takes no time is counted in bulk.
 */
static void engine_sweep_prices_a_channel_that_mixes_free_and_costly_messages(void)
{
	struct config c = unit_config("interleaved", 2, 2, 6, 1, 1, 1);
	struct sim *s = unit_run(&c, 0);

	s->cost->msg_time[0] = 0;
	s->cost->msg_time[1] = 0;
	s->cost->msg_time[2] = 5 * s->cost->tick;
	assert_sweep_matches_events(s->sched, s->cost);
	sim_free(s);
}

/*
 * Runs with more messages than the sweep holds before it puts them in the record (8192), so
 * that most consumers are known as a message goes in, some are filled in after the run (GPipe
 * at p = 2 sends its m forwards before any is read), and, past 65,536 of those (m = 80,000),
 * every consumer is filled in after the run: the event loop's record, in each case.
 */
static void engine_sweep_records_the_event_loops_messages_past_its_batches(void)
{
	static const struct {
		const char *name;
		int p, v, m;
		double t_comm;
	} runs[] = {{"1f1b", 8, 1, 2048, 0}, {"zbv", 4, 2, 1024, 0.25},
	            {"interleaved", 4, 2, 1024, 0.5}, {"gpipe", 2, 1, 20000, 0},
	            {"gpipe", 2, 1, 80000, 0}};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct config c = unit_config(runs[i].name, runs[i].p, runs[i].v, runs[i].m, 1, 2, 1);
		struct sim *s;

		c.t_comm = runs[i].t_comm;
		s = unit_run(&c, 0);
		assert_sweep_matches_events(s->sched, s->cost);
		sim_free(s);
	}
}

/* The perturbation of sim x's run that gives each op and message the duration the cost gives
 * it (a pair's span in its forward's entry), in op_dur and msg_dur [nops]. */
static void own_durations(const struct sim *x, pp_time *op_dur, pp_time *msg_dur)
{
	const struct sched *s = x->sched;

	for (size_t i = 0; i < s->nops; i++) {
		op_dur[i] = engine_cost_duration(x->engine, i);
		msg_dur[i] = engine_cost_msg_duration(x->engine, i);
	}
}

/* A run perturbed with the durations its cost gives has the run's times exactly, on both
 * engines; any perturbation (durations drawn at random, a slow device and a slow link from
 * some time on) gives the sweep the event loop's times. */
static void engine_perturbed_by_its_own_durations_keeps_its_times_and_both_engines_agree(void)
{
	static const struct {
		const char *name;
		int v;
	} shapes[] = {{"1f1b", 1}, {"interleaved", 2}, {"zbh1", 1}, {"zbv", 2}, {"dualpipev", 2},
	              {"dualpipe", 2}, {"interleaved-combined", 2}, {"gpipe", 1}};
	uint64_t x = 12345;

	for (size_t h = 0; h < sizeof(shapes) / sizeof(shapes[0]); h++)
		for (int comm = 0; comm < 2; comm++) {
			struct config c = unit_config(shapes[h].name, 4, shapes[h].v, 8, 1, 2, 1);
			struct sim *r;
			pp_time *od, *md;
			struct pp_error err = {0};
			struct engine *e;
			struct engine_slow slow[2] = {{.dev = 2, .at = 0, .factor = 1.5},
			                              {.dev = 1, .peer = 2, .link = true, .factor = 3}};
			struct engine_perturb pt;

			unit_set(&c, "t_comm", "0.25");
			if (comm)
				unit_set(&c, "comm", "blocking");
			r = unit_run(&c, 0);
			od = calloc(r->sched->nops, sizeof(*od));
			md = calloc(r->sched->nops, sizeof(*md));
			CU_ASSERT_PTR_NOT_NULL_FATAL(od);
			CU_ASSERT_PTR_NOT_NULL_FATAL(md);
			own_durations(r, od, md);
			pt = (struct engine_perturb){od, md, NULL, 0};
			e = engine_new(r->sched, r->cost, &err);
			CU_ASSERT_PTR_NOT_NULL_FATAL(e);
			CU_ASSERT_EQUAL_FATAL(engine_perturb(e, &pt, &err), 0);
			CU_ASSERT_EQUAL_FATAL(engine_run(e, &err), 0);
			CU_ASSERT_EQUAL(engine_result(e)->makespan, r->result->makespan);
			CU_ASSERT_EQUAL(memcmp(engine_result(e)->times, r->result->times,
			                       r->sched->nops * sizeof(struct op_time)),
			                0);
			engine_free(e);
			for (size_t i = 0; i < r->sched->nops; i++) {
				x = x * 6364136223846793005u + 1442695040888963407u;
				od[i] = od[i] / 2 + (pp_time)((x >> 33) % (uint64_t)(od[i] + 1));
				md[i] = md[i] / 2 + (pp_time)((x >> 17) % (uint64_t)(md[i] + 1));
			}
			assert_sweep_matches_events_with(r->sched, r->cost, &pt);
			pt.slow = slow;
			pt.nslow = 2;
			slow[0].at = r->result->makespan / 3;
			assert_sweep_matches_events_with(r->sched, r->cost, &pt);
			free(od);
			free(md);
			sim_free(r);
		}
}

/* 1F1B on p = 4, m = 8 at F = 1, B + W = 2 takes 3 + 3m + 6 = 33 units; its last device k times
 * slower from the start becomes the bottleneck: 3 + 3km + 6 (57 at k = 2, 45 at k = 1.5). */
static void engine_straggler_at_factor_k_on_the_last_stage_of_1f1b_takes_3_plus_3km_plus_6(void)
{
	static const double k[] = {1, 1.5, 2, 3};

	for (size_t j = 0; j < sizeof(k) / sizeof(k[0]); j++) {
		struct config c = unit_config("1f1b", 4, 1, 8, 1, 1, 1);
		struct sim *r = unit_run(&c, 0);
		struct pp_error err = {0};
		struct engine_slow slow = {.dev = 3, .factor = k[j]};
		struct engine_perturb pt = {NULL, NULL, &slow, 1};
		struct engine *e = engine_new(r->sched, r->cost, &err);

		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		CU_ASSERT_EQUAL(r->result->makespan, ticks(r->cost, 33));
		CU_ASSERT_EQUAL_FATAL(engine_perturb(e, &pt, &err), 0);
		CU_ASSERT_EQUAL_FATAL(engine_run(e, &err), 0);
		CU_ASSERT_EQUAL(engine_result(e)->makespan, ticks(r->cost, 3 + 3 * k[j] * 8 + 6));
		engine_free(e);
		sim_free(r);
	}
}

/* The order the engine finished its ops in holds every op once, each after the op before it
 * on its device and after the ops whose outputs it takes; both engines. */
static void engine_records_the_order_ops_finished_in_as_a_topological_order(void)
{
	static const char *const names[] = {"1f1b", "interleaved", "zbv", "dualpipev", "zbh2"};

	for (size_t h = 0; h < sizeof(names) / sizeof(names[0]); h++)
		for (int events = 0; events < 2; events++) {
			struct config c = unit_config(names[h], 4, 2, 8, 1, 2, 1);
			struct sim *r;
			struct pp_error err = {0};
			struct engine *e;
			const struct result *res;
			size_t *pos;

			if (strcmp(names[h], "1f1b") == 0 || strcmp(names[h], "zbh2") == 0)
				c.v = 1;
			unit_set(&c, "t_comm", "0.5");
			r = unit_run(&c, 0);
			e = engine_new(r->sched, r->cost, &err);
			CU_ASSERT_PTR_NOT_NULL_FATAL(e);
			engine_record_order(e);
			if (events)
				engine_use_events(e);
			CU_ASSERT_EQUAL_FATAL(engine_run(e, &err), 0);
			res = engine_result(e);
			CU_ASSERT_PTR_NOT_NULL_FATAL(res->order);
			pos = malloc(r->sched->nops * sizeof(*pos));
			CU_ASSERT_PTR_NOT_NULL_FATAL(pos);
			for (size_t i = 0; i < r->sched->nops; i++)
				pos[i] = SIZE_MAX;
			for (size_t i = 0; i < r->sched->nops; i++) {
				CU_ASSERT_FATAL(res->order[i] < r->sched->nops);
				CU_ASSERT_EQUAL(pos[res->order[i]], SIZE_MAX);
				pos[res->order[i]] = i;
			}
			for (size_t i = 0; i < r->sched->nops; i++) {
				const struct op *op = &r->sched->ops[i];
				uint32_t d = r->sched->stage_device[op->stage];
				size_t in = SIZE_MAX;

				if (i > r->sched->dev_start[d] && !(op[-1].flags & OP_OVERLAP))
					CU_ASSERT(pos[i - 1] < pos[i]);
				if (op->kind == OP_F && op->stage > 0)
					in = op_index(r->sched, OP_F, op->mb, op->stage - 1);
				else if (op->kind != OP_F && op->kind != OP_W &&
				         op->stage + 1 < r->sched->S)
					in = op_index(r->sched, r->sched->split ? OP_B : OP_BW, op->mb,
					              op->stage + 1);
				if (in < r->sched->nops)
					CU_ASSERT(pos[in] < pos[i]);
			}
			free(pos);
			engine_free(e);
			sim_free(r);
		}
}

/* engine_perturb refuses what it cannot run, with a message: a negative duration, a factor
 * that is not positive, a device out of range, a link between devices that exchange nothing. */
static void engine_perturb_refuses_bad_durations_factors_devices_and_links(void)
{
	struct config c = unit_config("1f1b", 4, 1, 4, 1, 1, 1);
	struct sim *r;
	pp_time *od;
	struct engine_slow bad[] = {{.dev = 0, .factor = 0},      {.dev = 0, .factor = -1},
	                            {.dev = 4, .factor = 2},      {.dev = 0, .factor = NAN},
	                            {.dev = 0, .peer = 2, .link = true, .factor = 2},
	                            {.dev = 0, .at = -1, .factor = 2}};

	unit_set(&c, "t_comm", "0.5");
	r = unit_run(&c, 0);
	od = calloc(r->sched->nops, sizeof(*od));
	CU_ASSERT_PTR_NOT_NULL_FATAL(od);
	od[3] = -1;
	for (size_t j = 0; j <= sizeof(bad) / sizeof(bad[0]); j++) {
		struct pp_error err = {0};
		struct engine *e = engine_new(r->sched, r->cost, &err);
		struct engine_perturb pt = j == 0 ? (struct engine_perturb){od, NULL, NULL, 0}
		                                  : (struct engine_perturb){NULL, NULL, &bad[j - 1], 1};

		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		CU_ASSERT_EQUAL(engine_perturb(e, &pt, &err), -1);
		CU_ASSERT_EQUAL(err.kind, PP_ERR_USAGE);
		CU_ASSERT(err.msg[0] != '\0');
		engine_free(e);
	}
	free(od);
	sim_free(r);
}

/* A run that keeps no op times has every other figure of the run that keeps them. */
static void sim_without_op_times_has_the_same_figures(void)
{
	static const char *const names[] = {"1f1b", "interleaved", "zbv", "dualpipev", "zb-auto"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct config c = unit_config(names[i], 4, 1, 8, 1, 2, 1);
		struct sim *a, *b;

		unit_set(&c, "t_comm", "0.25");
		if (strcmp(names[i], "interleaved") == 0 || strcmp(names[i], "zbv") == 0 ||
		    strcmp(names[i], "dualpipev") == 0)
			c.v = 2;
		a = unit_run(&c, 0);
		b = unit_run(&c, SIM_NO_OP_TIMES);
		CU_ASSERT_PTR_NOT_NULL(a->result->times);
		CU_ASSERT_PTR_NULL(b->result->times);
		CU_ASSERT_EQUAL(a->result->makespan, b->result->makespan);
		CU_ASSERT_EQUAL(memcmp(a->result->devices, b->result->devices,
		                       (size_t)a->result->p * sizeof(*a->result->devices)),
		                0);
		CU_ASSERT_EQUAL_FATAL(a->result->nchannels, b->result->nchannels);
		CU_ASSERT_EQUAL(memcmp(a->result->channels, b->result->channels,
		                       (size_t)a->result->nchannels * sizeof(*a->result->channels)),
		                0);
		CU_ASSERT_EQUAL(a->metrics.bubble_ratio, b->metrics.bubble_ratio);
		CU_ASSERT_EQUAL(a->metrics.messages, b->metrics.messages);
		sim_free(a);
		sim_free(b);
	}
}

/* A plan of n steps copied into heap memory the cost then owns. */
static struct piece_plan plan_of(const struct piece_step *steps, size_t n)
{
	struct piece_plan pl = {malloc(n * sizeof(*steps)), n};

	CU_ASSERT_PTR_NOT_NULL_FATAL(pl.steps);
	memcpy(pl.steps, steps, n * sizeof(*steps));
	return pl;
}

/* Hooks of n pieces copied into heap memory the cost then owns. */
static struct piece_hooks hooks_of(const struct piece_hook *h, size_t n)
{
	struct piece_hooks hs = {malloc(n * sizeof(*h)), n, n};

	CU_ASSERT_PTR_NOT_NULL_FATAL(hs.h);
	memcpy(hs.h, h, n * sizeof(*h));
	return hs;
}

/* Empty pieces for the S stages and p devices of k, with compute slowed by slow beside them. */
static struct cost_pieces *pieces_for(struct cost *k, int p, double slow)
{
	struct cost_pieces *pc = calloc(1, sizeof(*pc));

	CU_ASSERT_PTR_NOT_NULL_FATAL(pc);
	pc->plan = calloc(3 * (size_t)k->S, sizeof(*pc->plan));
	pc->grads = calloc((size_t)k->S, sizeof(*pc->grads));
	pc->gather = calloc((size_t)k->S, sizeof(*pc->gather));
	pc->after = calloc((size_t)p, sizeof(*pc->after));
	CU_ASSERT_FATAL(pc->plan != NULL && pc->grads != NULL && pc->gather != NULL &&
	                pc->after != NULL);
	pc->slowdown = slow;
	k->pieces = pc;
	k->pieces_p = p;
	return pc;
}

/* Runs the schedule and cost of x (whose cost has its pieces by now). */
static void run_pieces(struct run *x)
{
	struct pp_error err = {0};

	x->e = engine_new(x->s, x->k, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x->e);
	CU_ASSERT_EQUAL_FATAL(engine_run(x->e, &err), 0);
	x->r = engine_result(x->e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x->r);
}

/* 1F1B on one device, m = 2, t_f = t_b = t_w = 1: F0 [0, 1), BW0 [1, 3), F1 [3, 4), BW1
 * [4, 6) without pieces; its schedule and explicit cost, in x, not run yet. */
static void one_device(struct run *x)
{
	struct config c = config_of("1f1b", 1, 2);
	struct pp_error err = {0};

	memset(x, 0, sizeof(*x));
	CU_ASSERT_EQUAL_FATAL(config_validate(&c, &err), 0);
	x->s = sched_new(sched_find("1f1b"), &(struct sched_params){1, 1, 2, 0});
	x->k = cost_new_explicit(&c, NULL, c.w_mem_fraction);
	CU_ASSERT_FATAL(x->s != NULL && x->k != NULL);
}

static void stream_plan_exposes_what_a_collective_outlasts_of_the_compute_beside_it(void)
{
	/* compute 10000 ticks, then a TP piece of 4000 issued beside compute of 3000, then
	 * waited for: the piece runs [10000, 14000), the compute [10000, 13000), and the op
	 * waits 1000 for the piece: span 14000, of which 1000 is exposed TP */
	const struct piece_step steps[] = {
	        {.what = PIECE_COMPUTE, .dur = 10000},
	        {.what = PIECE_ISSUE, .kind = COMM_TP, .dur = 4000},
	        {.what = PIECE_COMPUTE, .dur = 3000},
	        {.what = PIECE_WAIT, .piece = 0},
	};
	struct piece_plan pl = {(struct piece_step *)steps, 4};
	struct stream_shape sh;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(stream_plan_eval(&pl, 0, &sh, &err), 0);
	CU_ASSERT_EQUAL(sh.dur, 14000);
	CU_ASSERT_EQUAL(sh.compute, 13000);
	CU_ASSERT_EQUAL(sh.exposed[COMM_TP], 1000);
	CU_ASSERT_EQUAL(sh.exposed[COMM_DP], 0);
	CU_ASSERT_EQUAL(sh.exposed[COMM_CP], 0);
	CU_ASSERT_EQUAL(sh.comm[COMM_TP], 4000);
	CU_ASSERT_EQUAL_FATAL(sh.npieces, 1);
	CU_ASSERT_EQUAL(sh.pieces[0].start, 10000);
	CU_ASSERT_EQUAL(sh.pieces[0].end, 14000);
	CU_ASSERT_EQUAL(sh.pieces[0].kind, COMM_TP);
	/* the wait is the one stall: [13000, 14000), for the TP piece */
	CU_ASSERT_EQUAL_FATAL(sh.nstalls, 1);
	CU_ASSERT_EQUAL(sh.stalls[0].start, 13000);
	CU_ASSERT_EQUAL(sh.stalls[0].end, 14000);
	CU_ASSERT_EQUAL(sh.stalls[0].kind, COMM_TP);
	free(sh.pieces);

	/* compute slowed by 0.5 beside the piece: in its 4000 ticks the 3000 of compute does
	 * 4000 / 1.5 = 2666.67, 2666 whole ticks; the 334 left run at full rate after it, to
	 * 14334; the piece has ended by then. The 1334 beyond the compute are the piece's. */
	CU_ASSERT_EQUAL_FATAL(stream_plan_eval(&pl, 0.5, &sh, &err), 0);
	CU_ASSERT_EQUAL(sh.dur, 14334);
	CU_ASSERT_EQUAL(sh.compute, 13000);
	CU_ASSERT_EQUAL(sh.exposed[COMM_TP], 1334);
	CU_ASSERT_EQUAL(sh.comm[COMM_TP], 4000);
	/* slowed, not stalled: the piece had ended when the compute did */
	CU_ASSERT_EQUAL(sh.nstalls, 0);
	free(sh.pieces);
}

static void stream_plan_stretches_compute_that_fits_beside_a_piece_then_waits_for_it(void)
{
	/* 2000 of compute slowed by 0.5 take 3000 beside the 4000-tick piece: [10000, 13000),
	 * 1000 exposed by the slowdown; then the wait to 14000, 1000 more */
	const struct piece_step steps[] = {
	        {.what = PIECE_COMPUTE, .dur = 10000},
	        {.what = PIECE_ISSUE, .kind = COMM_CP, .dur = 4000},
	        {.what = PIECE_COMPUTE, .dur = 2000},
	        {.what = PIECE_WAIT, .piece = 0},
	        {.what = PIECE_COMPUTE, .dur = 500},
	};
	struct piece_plan pl = {(struct piece_step *)steps, 5};
	struct stream_shape sh;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(stream_plan_eval(&pl, 0.5, &sh, &err), 0);
	CU_ASSERT_EQUAL(sh.dur, 14500);
	CU_ASSERT_EQUAL(sh.compute, 12500);
	CU_ASSERT_EQUAL(sh.exposed[COMM_CP], 2000);
	CU_ASSERT_EQUAL(sh.exposed[COMM_TP], 0);
	free(sh.pieces);
}

static void stream_plan_queues_pieces_of_one_stream_first_come_first_served(void)
{
	/* two TP pieces of 3000 issued together run [0, 3000) and [3000, 6000); a CP piece of
	 * 1000, on the same stream (TP and CP share one), runs [6000, 7000); compute of 2000
	 * beside them, no slowdown; the wait for the CP piece, [2000, 7000), is charged to what
	 * the stream runs meanwhile: 1000 of the first TP piece, 3000 of the second, 1000 of the
	 * CP piece itself (no kind exposed longer than it ran); the waits for the TP pieces,
	 * already over, add nothing */
	const struct piece_step steps[] = {
	        {.what = PIECE_ISSUE, .kind = COMM_TP, .dur = 3000},
	        {.what = PIECE_ISSUE, .kind = COMM_TP, .dur = 3000},
	        {.what = PIECE_ISSUE, .kind = COMM_CP, .dur = 1000},
	        {.what = PIECE_COMPUTE, .dur = 2000},
	        {.what = PIECE_WAIT, .piece = 2},
	        {.what = PIECE_WAIT, .piece = 0},
	        {.what = PIECE_WAIT, .piece = 1},
	};
	struct piece_plan pl = {(struct piece_step *)steps, 7};
	struct stream_shape sh;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(stream_plan_eval(&pl, 0, &sh, &err), 0);
	CU_ASSERT_EQUAL(sh.dur, 7000);
	CU_ASSERT_EQUAL_FATAL(sh.npieces, 3);
	CU_ASSERT_EQUAL(sh.pieces[1].start, 3000);
	CU_ASSERT_EQUAL(sh.pieces[2].start, 6000);
	CU_ASSERT_EQUAL(sh.pieces[2].end, 7000);
	CU_ASSERT_EQUAL(sh.exposed[COMM_CP], 1000);
	CU_ASSERT_EQUAL(sh.exposed[COMM_TP], 4000);
	CU_ASSERT_EQUAL(sh.comm[COMM_TP], 6000);
	CU_ASSERT_EQUAL(sh.comm[COMM_CP], 1000);
	/* one stall, [2000, 7000), for the CP piece it waited for; the TP waits add none */
	CU_ASSERT_EQUAL_FATAL(sh.nstalls, 1);
	CU_ASSERT_EQUAL(sh.stalls[0].start, 2000);
	CU_ASSERT_EQUAL(sh.stalls[0].end, 7000);
	CU_ASSERT_EQUAL(sh.stalls[0].kind, COMM_CP);
	free(sh.pieces);
}

/* A law of the stalls over plans drawn at random (a fixed sequence): in time order, disjoint,
 * inside the op's span, each for a piece issued; without the slowdown they are all of the span
 * that is not compute, with it at most that (the slowed compute is exposed, not a stall). */
static void stream_plan_stalls_are_the_span_it_does_not_compute_but_the_slowdown(void)
{
	uint64_t x = 0x9e3779b97f4a7c15u;
	size_t seen = 0, slowed = 0; /* stalls, and slowed plans with more than their stalls */

	for (int trial = 0; trial < 2000; trial++) {
		struct piece_step steps[24];
		size_t n = 0, issued = 0;
		struct stream_shape sh;
		struct pp_error err = {0};
		double slow = trial % 2 ? 0.25 : 0;
		pp_time stalled = 0, prev = 0;

		while (n < 24) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			switch (x % 3) {
			case 0:
				steps[n++] = (struct piece_step){.what = PIECE_COMPUTE,
				                                 .dur = (pp_time)(x >> 8) % 5000 + 1};
				break;
			case 1:
				steps[n++] = (struct piece_step){.what = PIECE_ISSUE,
				                                 .kind = (uint8_t)((x >> 4) % COMM_KINDS),
				                                 .dur = (pp_time)(x >> 8) % 7000 + 1};
				issued++;
				break;
			default:
				if (issued > 0)
					steps[n++] = (struct piece_step){.what = PIECE_WAIT,
					                                 .piece = (uint32_t)((x >> 8) % issued)};
			}
		}
		CU_ASSERT_EQUAL_FATAL(
		        stream_plan_eval(&(struct piece_plan){steps, n}, slow, &sh, &err), 0);
		for (size_t i = 0; i < sh.nstalls; i++) {
			CU_ASSERT(sh.stalls[i].start >= prev && sh.stalls[i].end > sh.stalls[i].start);
			CU_ASSERT(sh.stalls[i].end <= sh.dur);
			prev = sh.stalls[i].end;
			stalled += sh.stalls[i].end - sh.stalls[i].start;
		}
		if (slow == 0) {
			CU_ASSERT_EQUAL(stalled, sh.dur - sh.compute);
		} else {
			CU_ASSERT(stalled <= sh.dur - sh.compute);
			slowed += stalled < sh.dur - sh.compute;
		}
		seen += sh.nstalls;
		free(sh.pieces);
	}
	CU_ASSERT(seen > 1000 && slowed > 100); /* the draws test both */
}

static void engine_runs_an_op_at_its_plan_s_span_and_counts_busy_as_compute(void)
{
	struct run x;
	struct cost_pieces *pc;
	/* F: 0.6 of compute, a TP piece of 0.3 beside 0.2 of compute, waited for: span 0.9, 0.1
	 * exposed; t_f is the compute alone, 0.8 */
	const struct piece_step f[] = {
	        {.what = PIECE_COMPUTE, .dur = 600000},
	        {.what = PIECE_ISSUE, .kind = COMM_TP, .dur = 300000},
	        {.what = PIECE_COMPUTE, .dur = 200000},
	        {.what = PIECE_WAIT, .piece = 0},
	};

	one_device(&x);
	x.k->t_f[0] = 800000;
	pc = pieces_for(x.k, 1, 0);
	pc->plan[0] = plan_of(f, 4);
	run_pieces(&x);
	/* F0 [0, 0.9), BW0 [0.9, 2.9), F1 [2.9, 3.8), BW1 [3.8, 5.8) */
	CU_ASSERT_EQUAL(x.r->makespan, 5800000);
	CU_ASSERT_EQUAL(x.r->devices[0].end, 5800000);
	CU_ASSERT_EQUAL(x.r->devices[0].busy, 2 * 800000 + 2 * 2000000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_TP], 2 * 100000);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_TP], 2 * 300000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_DP], 0);
	CU_ASSERT_EQUAL(x.r->times[op_index(x.s, OP_F, 1, 0)].start, 2900000);
	CU_ASSERT_EQUAL(x.r->times[op_index(x.s, OP_F, 1, 0)].end, 3800000);
	run_end(&x);
}

static void engine_exposes_only_the_last_gradient_bucket_overlapped_with_the_last_backward(void)
{
	struct run x;
	struct cost_pieces *pc;
	/* four buckets of 0.3 issued at a quarter, half, three quarters and the end of the last
	 * backward, BW1 [4, 6): [4.5, 4.8), [5, 5.3), [5.5, 5.8), [6, 6.3); each is done before
	 * the next is issued, so only the last runs past the last op: 0.3 exposed */
	const struct piece_hook h[] = {
	        {0.25, COMM_DP, 300000, 0},
	        {0.5, COMM_DP, 300000, 0},
	        {0.75, COMM_DP, 300000, 0},
	        {1, COMM_DP, 300000, 0},
	};

	one_device(&x);
	pc = pieces_for(x.k, 1, 0);
	pc->grads[0] = hooks_of(h, 4);
	run_pieces(&x);
	CU_ASSERT_EQUAL(x.r->makespan, 6000000);
	CU_ASSERT_EQUAL(x.r->devices[0].last_end, 6000000);
	CU_ASSERT_EQUAL(x.r->devices[0].end, 6300000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_DP], 300000);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_DP], 1200000);
	CU_ASSERT_EQUAL(x.r->devices[0].busy, 6000000);
	CU_ASSERT_EQUAL_FATAL(x.r->npieces, 4);
	CU_ASSERT_EQUAL(x.r->pieces[0].start, 4500000);
	CU_ASSERT_EQUAL(x.r->pieces[3].start, 6000000);
	CU_ASSERT_EQUAL(x.r->pieces[3].end, 6300000);
	run_end(&x);

	/* buckets of 0.8 queue on the one DP stream: [4.5, 5.3), [5.3, 6.1), [6.1, 6.9),
	 * [6.9, 7.7): 1.7 past the last op */
	one_device(&x);
	pc = pieces_for(x.k, 1, 0);
	pc->grads[0] = hooks_of(h, 4);
	for (int i = 0; i < 4; i++)
		pc->grads[0].h[i].dur = 800000;
	run_pieces(&x);
	CU_ASSERT_EQUAL(x.r->devices[0].end, 7700000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_DP], 1700000);
	CU_ASSERT_EQUAL(x.r->pieces[2].start, 6100000);
	run_end(&x);

	/* slowed by 0.5 beside the 0.9 of buckets that ran during the ops ([4.5, 6)): in those
	 * 0.9 the compute did 0.9 / 1.5 = 0.6 of its work, so it ends 0.3 later, at 6.3, and the
	 * last bucket, hooked at its end, runs then: [6.3, 6.6), 0.6 past the unslowed end */
	one_device(&x);
	pc = pieces_for(x.k, 1, 0.5);
	pc->grads[0] = hooks_of(h, 4);
	run_pieces(&x);
	CU_ASSERT_EQUAL(x.r->devices[0].end, 6600000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_DP], 600000);
	CU_ASSERT_EQUAL_FATAL(x.r->npieces, 4);
	CU_ASSERT_EQUAL(x.r->pieces[3].start, 6300000);
	CU_ASSERT_EQUAL(x.r->pieces[3].end, 6600000);
	run_end(&x);

	/* queued buckets hide the slowdown under the queue: 0.8 each, the last issued at 6 waits
	 * for the one before it until 6.9, after 6 + 0.5 / 1.5 x 1.5 = 6.5 */
	one_device(&x);
	pc = pieces_for(x.k, 1, 0.5);
	pc->grads[0] = hooks_of(h, 4);
	for (int i = 0; i < 4; i++)
		pc->grads[0].h[i].dur = 800000;
	run_pieces(&x);
	CU_ASSERT_EQUAL(x.r->pieces[3].start, 6900000);
	CU_ASSERT_EQUAL(x.r->devices[0].end, 7700000);
	run_end(&x);
}

static void engine_delays_the_first_forward_until_its_parameter_gathers_arrive(void)
{
	struct run x;
	struct cost_pieces *pc;
	/* two gathers of 0.4 issued at the step's start, [0, 0.4) and [0.4, 0.8), needed at 0
	 * and half of the first forward: F0 waits 0.4 for the first, reaches its half at 0.9,
	 * after the second, and ends at 1.4; every later op moves by 0.4 */
	const struct piece_hook h[] = {{0, COMM_DP, 400000, 0}, {0.5, COMM_DP, 400000, 0}};

	one_device(&x);
	pc = pieces_for(x.k, 1, 0);
	pc->gather[0] = hooks_of(h, 2);
	run_pieces(&x);
	CU_ASSERT_EQUAL(x.r->times[op_index(x.s, OP_F, 0, 0)].start, 0);
	CU_ASSERT_EQUAL(x.r->times[op_index(x.s, OP_F, 0, 0)].end, 1400000);
	CU_ASSERT_EQUAL(x.r->times[op_index(x.s, OP_F, 1, 0)].start, 3400000);
	CU_ASSERT_EQUAL(x.r->makespan, 6400000);
	CU_ASSERT_EQUAL(x.r->devices[0].end, 6400000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_DP], 400000);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_DP], 800000);
	CU_ASSERT_EQUAL(x.r->devices[0].busy, 6000000);
	run_end(&x);

	/* a gather that has arrived costs nothing: 0.4 and 0.4 needed at 0.5 and 0.9 of F0
	 * ([0.5, 0.9): the first arrived at 0.4, the second at 0.8) */
	one_device(&x);
	pc = pieces_for(x.k, 1, 0);
	pc->gather[0] = hooks_of(h, 2);
	pc->gather[0].h[0].at = 0.5;
	pc->gather[0].h[1].at = 0.9;
	run_pieces(&x);
	CU_ASSERT_EQUAL(x.r->times[op_index(x.s, OP_F, 0, 0)].end, 1000000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_DP], 0);
	CU_ASSERT_EQUAL(x.r->makespan, 6000000);
	run_end(&x);
}

/* GPipe on one device, m = 4, t_f = 1 and a fused backward of 2: F0..F3 [0, 4), BW0 [4, 6),
 * BW1 [6, 8), BW2 [8, 10), BW3 [10, 12) without pieces; each forward's offload copies out
 * (and back) in copy ticks, 60% of its activations; in x, not run yet. */
static void offloading_device(struct run *x, pp_time copy)
{
	struct config c = config_of("gpipe", 1, 4);
	struct pp_error err = {0};
	struct cost_pieces *pc;

	memset(x, 0, sizeof(*x));
	CU_ASSERT_EQUAL_FATAL(config_validate(&c, &err), 0);
	x->s = sched_new(sched_find("gpipe"), &(struct sched_params){1, 1, 4, 0});
	x->k = cost_new_explicit(&c, NULL, c.w_mem_fraction);
	CU_ASSERT_FATAL(x->s != NULL && x->k != NULL);
	pc = pieces_for(x->k, 1, 0.15);
	pc->offload = calloc(1, sizeof(*pc->offload));
	CU_ASSERT_PTR_NOT_NULL_FATAL(pc->offload);
	pc->offload[0] = (struct piece_offload){x->k->act[0] * 6 / 10, copy, copy};
}

static void engine_hides_a_reload_that_the_ops_before_the_backward_cover(void)
{
	struct run x;
	int64_t a, o;

	/* copies of 0.4: F0 out [1, 1.4), F1 [2, 2.4), F2 [3, 3.4), F3 [4, 4.4) (its backward is
	 * not next); back: F0's from F3's start [3, 3.4), F1's from BW0's [4, 4.4), F2's [6, 6.4),
	 * F3's [8, 8.4), each before its backward: nothing waits, the step stays 12, and copy
	 * engines take no SMs, so no compute is slowed */
	offloading_device(&x, 400000);
	run_pieces(&x);
	a = x.k->act[0];
	o = x.k->pieces->offload[0].act;
	CU_ASSERT_EQUAL(x.r->makespan, 12000000);
	CU_ASSERT_EQUAL(x.r->devices[0].end, 12000000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_RELOAD], 0);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_OFFLOAD], 0);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_OFFLOAD], 1600000);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_RELOAD], 1600000);
	CU_ASSERT_EQUAL(x.r->devices[0].busy, 12000000);
	/* on the GPU, at F3's start: F0 whole again (its share on its way back), F1 its 40%, F2
	 * whole (its copy still running), F3 whole: 3.4 forwards' activations, where all four
	 * are kept without offload; in host memory at most three shares (F0's to 3.4, F1's from
	 * 2, F2's from 3) */
	CU_ASSERT_EQUAL(x.r->devices[0].peak_act, 3 * a + (a - o));
	CU_ASSERT_EQUAL(x.r->devices[0].host_peak, 3 * o);
	run_end(&x);
}

static void engine_exposes_a_reload_that_arrives_after_its_backward_could_start(void)
{
	struct run x;

	/* copies of 1.5: out F0 [1, 2.5), F1 [2.5, 4), F2 [4, 5.5), F3 [5.5, 7); back F0's from
	 * F3's start [3, 4.5): BW0 waits 0.5 and runs to 6.5; F1's from BW0's start, once the
	 * stream is free [4.5, 6), F2's [6.5, 8), F3's [8.5, 10): the later backwards do not
	 * wait; the step ends at 12.5 */
	offloading_device(&x, 1500000);
	run_pieces(&x);
	CU_ASSERT_EQUAL(x.r->times[op_index(x.s, OP_BW, 0, 0)].end, 6500000);
	CU_ASSERT_EQUAL(x.r->makespan, 12500000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_RELOAD], 500000);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_RELOAD], 6000000);
	/* the wait is no compute */
	CU_ASSERT_EQUAL(x.r->devices[0].busy, 12000000);
	run_end(&x);
}

static void engine_books_a_backwards_wait_for_the_copy_out_to_the_offload(void)
{
	struct run x;

	/* copies out of 3.5, back of 0.5: out F0 [1, 4.5), F1 [4.5, 8), F2 [8, 11.5), F3 [11.5,
	 * 15); each copy back starts as its copy out ends: F0's [4.5, 5), F1's [8, 8.5), F2's
	 * [11.5, 12), F3's [15, 15.5). BW0 waits from 4 to 5, BW1 from 7 to 8.5, BW2 from 10.5 to
	 * 12, BW3 from 14 to 15.5: of each wait the last 0.5 is the copy back's, the rest (0.5,
	 * then 1 each) the copy out's. So the reload's exposed time is its stream's 2, the
	 * offload's 3.5 of its 14; the step ends at 17.5. */
	offloading_device(&x, 0);
	x.k->pieces->offload[0].out = 3500000;
	x.k->pieces->offload[0].in = 500000;
	run_pieces(&x);
	CU_ASSERT_EQUAL(x.r->makespan, 17500000);
	CU_ASSERT_EQUAL(x.r->times[op_index(x.s, OP_BW, 1, 0)].end, 10500000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_RELOAD], 2000000);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_RELOAD], 2000000);
	CU_ASSERT_EQUAL(x.r->devices[0].exposed[COMM_OFFLOAD], 3500000);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_OFFLOAD], 14000000);
	CU_ASSERT_EQUAL(x.r->devices[0].busy, 12000000);
	run_end(&x);
}

static void engine_keeps_the_activations_of_a_forward_whose_backward_is_next(void)
{
	struct run x;
	struct cost_pieces *pc;

	/* 1F1B on one device: each forward's own backward comes next, so nothing is copied */
	one_device(&x);
	pc = pieces_for(x.k, 1, 0);
	pc->offload = calloc(1, sizeof(*pc->offload));
	CU_ASSERT_PTR_NOT_NULL_FATAL(pc->offload);
	pc->offload[0] = (struct piece_offload){x.k->act[0] / 2, 400000, 400000};
	run_pieces(&x);
	CU_ASSERT_EQUAL(x.r->makespan, 6000000);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_OFFLOAD], 0);
	CU_ASSERT_EQUAL(x.r->devices[0].comm[COMM_RELOAD], 0);
	CU_ASSERT_EQUAL(x.r->devices[0].peak_act, x.k->act[0]);
	CU_ASSERT_EQUAL(x.r->devices[0].host_peak, 0);
	run_end(&x);
}

/*
 * An overlapped pair priced from its pieces (DualPipeV on one device, V placement, m = 2):
 * every forward is compute 10000, an all-to-all of 5000 waited for, compute 10000; every input
 * gradient compute 4000, an all-to-all of 6000 waited for, compute 3000; W is t_w, compute.
 * In a pair the backward issues sooner, so it starts: [0, 4000) its compute, its all-to-all
 * [4000, 10000) beside the forward's compute [4000, 14000); the forward's all-to-all waits for
 * the stream until 14000 and runs to 19000 beside the backward's last 3000 (to 17000) and, in a
 * fused backward, its W; the forward resumes at 19000 (at the W's end if later): a B pair
 * lasts 29000 with 2000 of the all-to-all exposed, a BW pair 27000 + t_w (the W hides the
 * rest when t_w >= 2000). Run one after the other, the two would take 38000 (+ t_w). With
 * --overlap-factor given, the factor prices the pair instead.
 */
static void stream_pair_runs_one_ops_all_to_all_beside_the_others_compute(void)
{
	const struct piece_step f[] = {
	        {.what = PIECE_COMPUTE, .dur = 10000},
	        {.what = PIECE_ISSUE, .kind = COMM_EP, .dur = 5000},
	        {.what = PIECE_WAIT, .piece = 0},
	        {.what = PIECE_COMPUTE, .dur = 10000},
	};
	const struct piece_step b[] = {
	        {.what = PIECE_COMPUTE, .dur = 4000},
	        {.what = PIECE_ISSUE, .kind = COMM_EP, .dur = 6000},
	        {.what = PIECE_WAIT, .piece = 0},
	        {.what = PIECE_COMPUTE, .dur = 3000},
	};

	for (int given = 0; given < 2; given++) {
		struct config c = config_of("dualpipev", 1, 4);
		struct pp_error err = {0};
		struct run x = {0};
		struct cost_pieces *pc;
		int pairs = 0;

		c.v = 2;
		CU_ASSERT_EQUAL_FATAL(config_validate(&c, &err), 0);
		x.s = sched_new(sched_find("dualpipev"), &(struct sched_params){1, 2, 4, 0});
		x.k = cost_new_explicit(&c, NULL, c.w_mem_fraction);
		CU_ASSERT_FATAL(x.s != NULL && x.k != NULL);
		x.k->overlap_given = given;
		pc = pieces_for(x.k, 1, 0);
		for (int st = 0; st < 2; st++) {
			pc->plan[3 * st] = plan_of(f, 4);
			pc->plan[3 * st + 1] = plan_of(b, 4);
		}
		run_pieces(&x);
		for (size_t i = 0; i + 1 < x.s->nops; i++) {
			const struct op *op = &x.s->ops[i];
			pp_time w = x.k->t_w[op[1].stage], dur;

			if (!(op->flags & OP_OVERLAP))
				continue;
			pairs++;
			dur = x.r->times[i].end - x.r->times[i].start;
			if (given) {
				CU_ASSERT_EQUAL(dur, 25000 + 13000 + (op[1].kind == OP_BW ? w : 0));
			} else if (op[1].kind == OP_BW) {
				CU_ASSERT_EQUAL(dur, w >= 2000 ? 27000 + w : 29000);
			} else {
				CU_ASSERT_EQUAL(dur, 29000);
			}
			CU_ASSERT_EQUAL(x.r->times[i + 1].start, x.r->times[i].start);
			CU_ASSERT_EQUAL(x.r->times[i + 1].end, x.r->times[i].end);
		}
		CU_ASSERT_TRUE(pairs > 0);
		engine_free(x.e);
		cost_free(x.k);
		sched_free(x.s);
	}
}

/* With a mixture of experts' pieces on every op (TP, EP and DP streams) and pairs priced from
 * their pieces, the sweep still gives the event loop's figures, for every schedule that has
 * pairs and some that have not. */
static void engine_sweep_gives_the_event_loops_times_with_expert_pieces_and_pairs(void)
{
	static const char *const schedules[][2] = {
	        {"1f1b", "1"},     {"interleaved-combined", "2"}, {"dualpipev", "2"},
	        {"dualpipe", "2"}, {"zbv", "2"},                  {"interleaved", "2"},
	};

	for (size_t i = 0; i < sizeof(schedules) / sizeof(schedules[0]); i++) {
		struct config c;
		struct pp_error err = {0};
		struct sim *sm;

		config_init(&c);
		unit_set(&c, "model", "qwen3-30b-a3b");
		unit_set(&c, "layers", "8");
		unit_set(&c, "schedule", schedules[i][0]);
		unit_set(&c, "v", schedules[i][1]);
		unit_set(&c, "p", "2");
		unit_set(&c, "m", "8");
		unit_set(&c, "tp", "2");
		unit_set(&c, "dp", "2");
		unit_set(&c, "ep", "4");
		unit_set(&c, "gpus_per_node", "2");
		unit_set(&c, "overlap_grad_reduce", "yes");
		sm = sim_run(&c, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sm);
		CU_ASSERT_PTR_NOT_NULL(sm->cost->pieces);
		assert_sweep_matches_events(sm->sched, sm->cost);
		sim_free(sm);
	}
}

/* With streams, each op's inner time (what of its span is not compute) adds up to what each
 * device's busy leaves out: its ops' spans (a pair's once) less their inner times are its busy,
 * for data, tensor and context parallelism, experts in pairs and activation offload; and what
 * a kind leaves exposed is a part of the time its stream held (exposed <= comm). */
static void engine_inner_times_of_the_ops_leave_each_devices_busy(void)
{
	static const char *const runs[][2][14] = {
	        {{"model", "llama3-8b", "p", "2", "m", "4", "tp", "2", "cp", "2", "dp", "2", NULL},
	         {"distributed_optimizer", "yes", "overlap_grad_reduce", "yes",
	          "overlap_param_gather", "yes", NULL}},
	        {{"model", "llama3-8b", "p", "4", "m", "8", "tp", "4", "tp_overlap", "pipelined", NULL},
	         {NULL}},
	        {{"model", "llama3-8b", "p", "2", "m", "4", "tp", "2", "tp_overlap", "bulk", NULL},
	         {NULL}},
	        {{"model", "qwen3-30b-a3b", "layers", "8", "schedule", "dualpipev", "p", "2", "m",
	          "8", "tp", "2", NULL},
	         {"dp", "2", "ep", "4", "gpus_per_node", "2", "overlap_grad_reduce", "yes", NULL}},
	        {{"model", "llama3-8b", "p", "4", "m", "8", "offload", "0.5", "host_bandwidth", "20",
	          NULL},
	         {NULL}},
	        {{"model", "qwen3-30b-a3b", "gpu", "b200", "p", "2", "m", "4", "offload", "0.5", NULL},
	         {NULL}},
	        {{"model", "qwen3-30b-a3b", "gpu", "b200", "p", "2", "m", "4", "offload", "0.5",
	          "schedule", "dualpipe", NULL},
	         {NULL}},
	        {{"model", "qwen3-30b-a3b", "gpu", "b200", "p", "2", "m", "4", "offload", "0.5",
	          "schedule", "dualpipev", NULL},
	         {"ep", "4", "gpus", "8", NULL}},
	        {{"model", "qwen3-30b-a3b", "gpu", "h100-sxm", "p", "2", "m", "8", "v", "2",
	          "schedule", "interleaved-combined", NULL},
	         {"offload", "0.5", "ep", "4", "cp", "2", "gpus", "16", "framework", "nemo", NULL}},
	};

	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct config c;
		struct pp_error err = {0};
		struct sim *sm;
		pp_time all = 0;

		config_init(&c);
		for (int h = 0; h < 2; h++)
			for (int j = 0; runs[k][h][j] != NULL; j += 2)
				unit_set(&c, runs[k][h][j], runs[k][h][j + 1]);
		sm = sim_run(&c, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sm);
		CU_ASSERT_PTR_NOT_NULL_FATAL(sm->result->inner);
		for (int d = 0; d < sm->sched->p; d++) {
			pp_time busy = 0, inner = 0;

			for (size_t i = sm->sched->dev_start[d]; i < sm->sched->dev_start[d + 1]; i++) {
				const struct op_time *t = &sm->result->times[i];
				bool second = i > sm->sched->dev_start[d] &&
				              (sm->sched->ops[i - 1].flags & OP_OVERLAP);

				CU_ASSERT_TRUE(sm->result->inner[i] >= 0);
				CU_ASSERT_TRUE(sm->result->inner[i] <= t->end - t->start);
				inner += sm->result->inner[i];
				if (!second)
					busy += t->end - t->start;
			}
			CU_ASSERT_EQUAL(busy - inner, sm->result->devices[d].busy);
			all += inner;
			for (int kind = 0; kind < COMM_KINDS; kind++)
				CU_ASSERT_TRUE(sm->result->devices[d].exposed[kind] <=
				               sm->result->devices[d].comm[kind]);
		}
		/* (the offload's copies back may all be hidden) */
		CU_ASSERT_TRUE(all > 0 || k == 4);
		sim_free(sm);
	}
}

static const struct unit_test tests[] = {
        UNIT_TEST(
                engine_sweep_gives_the_event_loops_times_for_every_schedule_comm_and_message_time),
        UNIT_TEST(engine_sweep_gives_the_event_loops_times_for_uneven_stages_and_a_model),
        UNIT_TEST(engine_sweep_gives_the_event_loops_times_with_expert_pieces_and_pairs),
        UNIT_TEST(engine_inner_times_of_the_ops_leave_each_devices_busy),
        UNIT_TEST(engine_books_a_backwards_wait_for_the_copy_out_to_the_offload),
        UNIT_TEST(engine_sweep_prices_a_channel_that_mixes_free_and_costly_messages),
        UNIT_TEST(engine_sweep_records_the_event_loops_messages_past_its_batches),
        UNIT_TEST(engine_refuses_a_last_overlapped_pair_whose_forward_ran_before),
        UNIT_TEST(sim_without_op_times_has_the_same_figures),
        UNIT_TEST(engine_1f1b_p4_m8_takes_33_units_with_op_times_derived_by_hand),
        UNIT_TEST(engine_gpipe_p4_m8_takes_33_units_with_op_times_derived_by_hand),
        UNIT_TEST(engine_keeps_each_device_busy_24_units_for_p4_m8),
        UNIT_TEST(engine_gives_each_op_its_cost),
        UNIT_TEST(engine_overlapped_tcomm_of_0_1_gives_makespan_34_6),
        UNIT_TEST(engine_blocking_tcomm_of_0_1_gives_makespan_34_9),
        UNIT_TEST(engine_matches_a_queue_free_reference_over_many_shapes),
        UNIT_TEST(engine_counts_one_message_per_boundary_microbatch_and_direction),
        UNIT_TEST(engine_counts_messages_even_when_they_take_no_time),
        UNIT_TEST(engine_lists_2_p_minus_1_sorted_channels_with_full_duplex),
        UNIT_TEST(engine_peak_bytes_counts_the_cells_or_the_loop_and_24_bytes_a_message),
        UNIT_TEST(engine_lists_p_minus_1_channels_with_half_duplex),
        UNIT_TEST(engine_has_no_channel_with_one_device),
        UNIT_TEST(engine_queues_messages_that_share_a_channel),
        UNIT_TEST(engine_half_duplex_makes_both_directions_queue_on_one_channel),
        UNIT_TEST(engine_gpipe_holds_m_activations_on_every_device),
        UNIT_TEST(engine_1f1b_holds_min_of_p_minus_d_and_m_activations),
        UNIT_TEST(engine_split_backward_keeps_the_w_share_alive_until_w),
        UNIT_TEST(engine_split_b_waits_for_the_next_stage_b_and_w_for_its_own_b),
        UNIT_TEST(engine_v_placement_sends_nothing_across_the_turn),
        UNIT_TEST(engine_counts_p_v_minus_1_messages_per_direction_with_looped_chunks),
        UNIT_TEST(engine_interleaved_sends_2m_times_pv_minus_1_messages),
        UNIT_TEST(engine_interleaved_p4_v4_m16_sends_240_forward_messages_not_192),
        UNIT_TEST(engine_reports_each_stuck_device_on_deadlock),
        UNIT_TEST(engine_reports_a_cycle_across_devices_as_deadlock),
        UNIT_TEST(engine_names_all_five_stuck_devices_on_deadlock),
        UNIT_TEST(engine_run_rejects_a_malformed_schedule),
        UNIT_TEST(engine_refuses_what_sched_check_refuses_op_by_op),
        UNIT_TEST(engine_new_rejects_a_cost_with_another_stage_count),
        UNIT_TEST(engine_new_rejects_times_whose_total_exceeds_the_limit),
        UNIT_TEST(engine_has_no_result_before_it_runs),
        UNIT_TEST(engine_gives_identical_times_on_every_run),
        UNIT_TEST(engine_runs_an_overlapped_pair_as_one_slot_of_overlap_factor_times_f_plus_b),
        UNIT_TEST(engine_starts_a_pair_once_the_inputs_of_both_ops_have_arrived),
        UNIT_TEST(engine_blocking_sends_of_a_pair_hold_its_device_until_the_later_one_arrives),
        UNIT_TEST(engine_names_the_cycle_of_a_deadlock),
        UNIT_TEST(engine_names_the_waiting_partner_of_a_stuck_pair),
        UNIT_TEST(stream_plan_exposes_what_a_collective_outlasts_of_the_compute_beside_it),
        UNIT_TEST(stream_pair_runs_one_ops_all_to_all_beside_the_others_compute),
        UNIT_TEST(stream_plan_stretches_compute_that_fits_beside_a_piece_then_waits_for_it),
        UNIT_TEST(stream_plan_queues_pieces_of_one_stream_first_come_first_served),
        UNIT_TEST(stream_plan_stalls_are_the_span_it_does_not_compute_but_the_slowdown),
        UNIT_TEST(engine_runs_an_op_at_its_plan_s_span_and_counts_busy_as_compute),
        UNIT_TEST(engine_exposes_only_the_last_gradient_bucket_overlapped_with_the_last_backward),
        UNIT_TEST(engine_delays_the_first_forward_until_its_parameter_gathers_arrive),
        UNIT_TEST(engine_hides_a_reload_that_the_ops_before_the_backward_cover),
        UNIT_TEST(engine_exposes_a_reload_that_arrives_after_its_backward_could_start),
        UNIT_TEST(engine_keeps_the_activations_of_a_forward_whose_backward_is_next),
        UNIT_TEST(engine_perturbed_by_its_own_durations_keeps_its_times_and_both_engines_agree),
        UNIT_TEST(engine_straggler_at_factor_k_on_the_last_stage_of_1f1b_takes_3_plus_3km_plus_6),
        UNIT_TEST(engine_records_the_order_ops_finished_in_as_a_topological_order),
        UNIT_TEST(engine_perturb_refuses_bad_durations_factors_devices_and_links),
        {NULL, NULL},
};

const struct unit_suite suite_engine = {"engine", tests};
