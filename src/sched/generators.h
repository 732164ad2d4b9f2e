/*
 * What the schedule generators share, private to src/sched/: the functions each generator's
 * file gives its row of the table in table.c, and the helpers the generators use.
 */
#ifndef PPSIM_SCHED_GENERATORS_H
#define PPSIM_SCHED_GENERATORS_H

#include <pthread.h>
#include <stdatomic.h>

#include "ppsim/sched.h"

/* What the flush schedules share (GPipe, 1F1B): their closed form (p-1)/(m+p-1); and the
 * peak of the schedules that hold every micro-batch's activations at once (GPipe, looped BFS):
 * m on every device. */
double sched_flush_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                          double overlap);
double sched_peak_all(const struct sched_params *sp, int d);

/*
 * The functions each generator's file gives its table row (struct sched_fns, sched_theory and
 * sched_peak in sched.h say what each must do), by file.
 */
/* gpipe.c */
int sched_gpipe_generate(struct sched *s);
/* 1f1b.c */
int sched_1f1b_generate(struct sched *s);
double sched_1f1b_peak(const struct sched_params *sp, int d);
/* interleaved.c */
int sched_interleaved_generate(struct sched *s);
int sched_interleaved_check(const struct sched_params *sp, const char **key, struct pp_error *err);
double sched_interleaved_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                                double overlap);
double sched_interleaved_peak(const struct sched_params *sp, int d);
int sched_interleaved_zb_generate(struct sched *s);
int sched_interleaved_zb_check(const struct sched_params *sp, const char **key,
                               struct pp_error *err);
double sched_interleaved_zb_peak(const struct sched_params *sp, int d);
/* The forward order of Megatron-LM's interleaved schedules (its get_schedule_table), as
 * (micro-batch, chunk) pairs in *tmb[m*v] and *tch[m*v], which the caller frees: micro-batches
 * in groups of g through chunk 0, then chunk 1, and so on, the last group holding what is left.
 * Backward k takes forward k's micro-batch and the mirrored chunk v-1-c. Returns 0, or -1 when
 * out of memory. */
int sched_interleaved_table(const struct sched *s, int g, int **tmb, int **tch);
/* Megatron-LM's rule for a group of sp->group micro-batches: p <= g <= m and m mod g of 0 or at
 * least p. Returns 0, or -1 with *key "group_size" and an error that names the schedule name
 * and the nearest valid m and g. */
int sched_megatron_group_check(const struct sched_params *sp, const char *name, const char **key,
                               struct pp_error *err);
/* interleavedcombined.c */
int sched_interleaved_combined_generate(struct sched *s);
int sched_interleaved_combined_check(const struct sched_params *sp, const char **key,
                                     struct pp_error *err);
double sched_interleaved_combined_theory(const struct sched_params *sp, double t_f, double t_b,
                                         double t_w, double overlap);
double sched_interleaved_combined_peak(const struct sched_params *sp, int d);
/* loopedbfs.c */
int sched_loopedbfs_generate(struct sched *s);
double sched_loopedbfs_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                              double overlap);
/* zbh1.c */
int sched_zbh1_generate(struct sched *s);
double sched_zbh1_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                         double overlap);
double sched_zbh1_peak(const struct sched_params *sp, int d);
/* zbh2.c */
int sched_zbh2_generate(struct sched *s);
int sched_zbh2_check(const struct sched_params *sp, const char **key, struct pp_error *err);
double sched_zbh2_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                         double overlap);
double sched_zbh2_peak(const struct sched_params *sp, int d);
/* zbv.c */
int sched_zbv_generate(struct sched *s);
uint64_t sched_zbv_work(int p, int v, int m);
double sched_zbv_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                        double overlap);
double sched_zbv_peak(const struct sched_params *sp, int d);
/* table.c */
uint64_t sched_greedy_work(int p, int v, int m);
/* zbvauto.c */
int sched_zbv_auto_generate(struct sched *s, const struct sched_prices *pr, struct pp_error *err);
/* vshape.c (sched_vshape_work: also 1f1b-v's, whose grid of p x O(p + m) slots costs the same) */
int sched_vhalf_generate(struct sched *s);
uint64_t sched_vshape_work(int p, int v, int m);
double sched_vhalf_peak(const struct sched_params *sp, int d);
int sched_vmin_generate(struct sched *s);
double sched_vmin_peak(const struct sched_params *sp, int d);
/* 1f1bv.c */
int sched_1f1b_v_generate(struct sched *s);
double sched_1f1b_v_peak(const struct sched_params *sp, int d);
/* dualpipev.c */
int sched_dualpipev_generate(struct sched *s);
int sched_dualpipev_check(const struct sched_params *sp, const char **key, struct pp_error *err);
size_t sched_dualpipev_ops_on(int p, int m, int d);
double sched_dualpipev_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                              double overlap);
double sched_dualpipev_peak(const struct sched_params *sp, int d);
/* dualpipe.c */
int sched_dualpipe_generate(struct sched *s);
int sched_dualpipe_check(const struct sched_params *sp, const char **key, struct pp_error *err);
size_t sched_dualpipe_ops_on(int p, int m, int d);
double sched_dualpipe_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                             double overlap);
double sched_dualpipe_peak(const struct sched_params *sp, int d);
/* zbauto.c */
int sched_zb_auto_generate(struct sched *s, const struct sched_prices *pr, struct pp_error *err);

/*
 * One device's share of the eight steps of DeepSeek's DualPipe (dualpipe.py, DualPipe.step),
 * which DualPipeV (dualpipev.py, DualPipe cut in half) runs as they are on each of its devices:
 * the device's two chunks are numbered as the steps number them (dualpipe.py's phases), each
 * with its stage and its micro-batches, mbs of them from mb0.
 */
struct sched_dualpipe_dev {
	int d;        /* the device whose list the steps fill */
	int half;     /* devices the steps span: DualPipe's p/2 ranks of a half, DualPipeV's p */
	int rank;     /* the device's place among them (dualpipe.py's half_rank) */
	int mbs;      /* micro-batches of each of its two chunks */
	int stage[2]; /* the stage of chunk c */
	int mb0[2];   /* the micro-batch of chunk c's first */
};

/* Appends device dv->d's ops to s in the steps' order; wq has room for 2 * dv->mbs entries
 * (the W queue). */
void sched_dualpipe_steps(struct sched *s, const struct sched_dualpipe_dev *dv, int *wq);
/* The ops those steps give a device of rank `rank` of `half` with mbs micro-batches a chunk. */
size_t sched_dualpipe_steps_ops(int half, int mbs, int rank);

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
 * micro-batches than there are can be run as it is. A pattern holds at most
 * SCHED_RUN_MAX_PATTERN ops.
 */
#define SCHED_RUN_MAX_PATTERN 16
void sched_run_ops(struct sched_run *r, const char *ops, int times);

/* Ops of kind on chunk c left to append: m minus the next micro-batch (0 when none). */
int sched_run_left(const struct sched_run *r, int c, enum op_kind kind);

/*
 * Arrays a generator's state allocates together: each entry's *ptr receives count elements of
 * size bytes, zeroed when zero is set, in whole cache lines of their own (SCHED_LINE bytes:
 * threads that each write their own arrays never write to one line). sched_arrays_new
 * allocates them all or none; on failure it returns pp_nomem's -1 with every *ptr NULL.
 * sched_arrays_free frees them (NULL entries included).
 */
#define SCHED_LINE 64
struct sched_array {
	void **ptr;
	size_t count, size;
	bool zero;
};
int sched_arrays_new(const struct sched_array *a, size_t n, struct pp_error *err);
void sched_arrays_free(const struct sched_array *a, size_t n);

/*
 * The variants of a greedy generator (zb-auto's eight passes, zbv-auto's four chains of
 * passes), which threads share. Variant k takes the yes/no choices of the bits of n - 1 - k, so
 * that the authors try them in the order k = 0, 1, ...; each is scored (lower is better) and
 * the best, the earliest on a tie, gives the order, kept as a byte an op (its kinds).
 *
 * A variant's decisions depend on a choice only where it consults it. As a variant runs it
 * tells the choices that changed one of its decisions (sched_variant_note); once it ends
 * (sched_variant_end), every later variant that differs from it in none of them would take
 * the same decisions, tie and lose, or fail as it did, or be beaten as it was: it is marked the
 * same and not run (or stops). A thread starts a variant only once every earlier one that is
 * not the same as another has told a choice that tells them apart (or has ended), so that no
 * thread runs what may turn out the same; otherwise it waits for news. Which thread runs what
 * changes no result.
 */
#define SCHED_MAX_VARIANTS 8
struct sched_variants {
	pthread_mutex_t lock;
	pthread_cond_t news;                    /* a variant told a choice, or ended */
	int n;                                  /* variants */
	int state[SCHED_MAX_VARIANTS];          /* waiting, running or ended */
	unsigned consulted[SCHED_MAX_VARIANTS]; /* choices that changed a decision so far */
	atomic_bool same[SCHED_MAX_VARIANTS];   /* takes an earlier variant's decisions */
	_Atomic pp_time bound;                  /* the best score of an ended variant */
	uint8_t *best;                          /* the best variant's kinds, while best_k >= 0 */
	int best_k;                             /* its number, -1 before any */
	pp_time best_score;                     /* its score */
};

/* Readies v for n variants whose kinds take bytes each; returns 0, or -1 with a PP_ERR_NOMEM
 * error. */
int sched_variants_init(struct sched_variants *v, int n, size_t bytes, struct pp_error *err);
/* Makes every variant of v waiting again, with no best. */
void sched_variants_reset(struct sched_variants *v);
void sched_variants_release(struct sched_variants *v);
/* The next variant for the calling thread to run, waiting until one may start; -1 when none
 * is left. */
int sched_variant_next(struct sched_variants *v);
/* Tells the choices variant k has consulted so far to the threads waiting for news. */
void sched_variant_note(struct sched_variants *v, int k, unsigned consulted);
/* Whether variant k takes an earlier one's decisions (then it need not go on). */
static inline bool sched_variant_same(struct sched_variants *v, int k)
{
	return atomic_load_explicit(&v->same[k], memory_order_relaxed);
}
/*
 * Ends variant k, which consulted the choices consulted up to where it ended: marks the later
 * variants that would take its decisions, and when scored (it ran to its end within its limits)
 * keeps it as the best if it is, swapping *kinds with the best's bytes. A variant that stopped
 * as the same as an earlier one tells nothing.
 */
void sched_variant_end(struct sched_variants *v, int k, unsigned consulted, bool scored,
                       pp_time score, uint8_t **kinds);

#endif
