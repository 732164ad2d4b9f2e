/*
 * What the schedule generators share, private to src/sched/: each generator file defines its
 * table row (a struct sched_desc named sched_NAME, listed once in table.c) and uses these.
 */
#ifndef PPSIM_SCHED_GENERATORS_H
#define PPSIM_SCHED_GENERATORS_H

#include "ppsim/sched.h"

/*
 * Row fields a family of schedules shares, said once: one chunk per device, the V placement
 * (device d hosts stages d and 2p-1-d, two chunks) and the V shape (V placement with B and W
 * split).
 */
#define SCHED_ONE_CHUNK .min_v = 1, .max_v = 1
#define SCHED_V_PLACE   .placement = PLACE_V, .min_v = 2, .max_v = 2
#define SCHED_V_SHAPE   .split = true, SCHED_V_PLACE

/* Closed form of the flush schedules (GPipe, 1F1B): (p-1)/(m+p-1), and its row fields. */
double sched_flush_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                          double overlap);
#define SCHED_FLUSH_THEORY .theory = {sched_flush_theory, "(p-1)/(m+p-1)"}

/* Peak activations of the schedules that hold every micro-batch's at once (GPipe, looped
 * BFS): m on every device, and its row field. */
double sched_peak_all(const struct sched_params *sp, int d);
#define SCHED_PEAK_ALL .peak = {sched_peak_all, "m"}

/*
 * Runs of ops on one device, each op taking the next micro-batch of its kind and chunk, for
 * the schedules whose order is a sequence of repeated patterns (1F1B, ZB-H1, ZB-H2, ZB-V).
 */
struct sched_run {
	struct sched *s;
	int d;          /* the device */
	int next[2][4]; /* [chunk][enum op_kind] the next micro-batch */
};

/* A run on device d of s with every count at 0. */
struct sched_run sched_run_start(struct sched *s, int d);

/*
 * Appends times x the pattern ops: "F", "B", "W" and "X" (the fused BW) are ops of chunk 0,
 * lower case of chunk 1 ("FBWfbw": a forward, B and W on chunk 0, then the same on chunk 1).
 * An op whose micro-batch is m or beyond is left out, so that a pattern laid out for more
 * micro-batches than there are can be run as it is.
 */
void sched_run_ops(struct sched_run *r, const char *ops, int times);

/* Ops of kind on chunk c left to append: m minus the next micro-batch (0 when none). */
int sched_run_left(const struct sched_run *r, int c, enum op_kind kind);

/*
 * Arrays a generator's state allocates together: each entry's *ptr receives count elements of
 * size bytes, zeroed when zero is set. sched_arrays_new allocates them all or none; on failure
 * it returns pp_nomem's -1 with every *ptr NULL. sched_arrays_free frees them (NULL entries
 * included).
 */
struct sched_array {
	void **ptr;
	size_t count, size;
	bool zero;
};
int sched_arrays_new(const struct sched_array *a, size_t n, struct pp_error *err);
void sched_arrays_free(const struct sched_array *a, size_t n);

/* ZB-H1's row: zb-auto falls back to its order when no greedy pass fits the limit. */
extern const struct sched_desc sched_zbh1;

#endif
