/*
 * Advice: the search `ppsim advise` runs (a sweep over the layouts and schedules a cluster
 * allows, keeping what fits GPU memory) and the interleaving break-even analysis, which sets
 * simulated interleaved 1F1B against the source document's inequality
 *
 *     t_comm x v(p-1) x m  >  (bubble_1f1b - bubble_interleaved_v) x T_total
 *
 * (interleaving costs more in messages than it saves in bubble). Here t_comm is one message's
 * time on the slowest pipeline hop, the bubbles are the closed forms (p-1)/(m+p-1) and
 * (p-1)/(mv+p-1), and T_total is the simulated 1F1B makespan.
 */
#ifndef PPSIM_ADVISE_H
#define PPSIM_ADVISE_H

#include <stdbool.h>

#include "ppsim/config.h"
#include "ppsim/partition.h"
#include "ppsim/sweep.h"

/* Values each search axis of advise takes when neither the config nor the command fixes it. */
#define ADVISE_CHUNKS "1,2,4"
#define ADVISE_MBS    "1,2,4,8"

/*
 * The least gain (1 - time / base_time) at which interleaving counts as paying: 0.01%. Smaller
 * differences are the rounding of chunk op times to ticks, not a gain (with p = 1 every v runs
 * the same work in the same time, give or take a few ticks).
 */
#define BREAKEVEN_MIN_GAIN 1e-4

/* One row of a break-even table: interleaving with v chunks on a link in a comm mode. */
struct breakeven_row {
	char link[72];      /* the link every pipeline hop uses, or the config's own, described */
	enum pp_comm comm;  /* overlap or blocking */
	int p, m;           /* the pipeline's shape (0 when the baseline cannot run) */
	int v;              /* chunks per device; 1 is the 1F1B baseline */
	bool ok;            /* simulated; else reason says why not */
	char reason[1040];  /* why the row could not be simulated */
	double time;        /* makespan (without a model's gradient all-reduce) */
	double base_time;   /* the same for 1F1B (v = 1) */
	double gain;        /* 1 - time / base_time: above 0 when interleaving pays */
	double t_comm;      /* one message on the slowest hop */
	double lhs;         /* t_comm x v(p-1) x m: the document's message cost */
	double rhs;         /* (bubble_1f1b - bubble_v) x base_time: its bubble saving */
	bool predicted;     /* the inequality predicts a gain: lhs <= rhs */
	bool pays;          /* the simulation finds one: gain >= BREAKEVEN_MIN_GAIN */
	char time_unit[8];  /* of the times */
};

/*
 * Fills rows[nlinks * ncomms * nv] (links outermost, then comms, then vs) for config c's shape:
 * 1F1B for v = 1 and interleaved 1F1B otherwise, each against 1F1B on the same link and mode.
 * links name link presets that every pipeline hop then uses (with a model, inside and between
 * nodes); nlinks = 0 means one pass with c's own links. A row that cannot be simulated holds
 * the reason. Returns 0, or -1 with err set when out of memory (no row holds that).
 */
int breakeven_run(const struct config *c, const char *const *links, int nlinks,
                  const enum pp_comm *comms, int ncomms, const int *vs, int nv,
                  struct breakeven_row *rows, struct pp_error *err);

/*
 * advise's stragglers: in advise a straggler's DEV (and a link's two ends) names a GPU of the
 * cluster, 0 to gpus - 1, which each layout puts in a pipeline rank as Megatron-LM orders ranks
 * (tensor, context and data parallel ranks inside a pipeline rank: GPU g is in rank
 * g / (gpus / p), at place g mod (gpus / p)). Rewrites c's rules, for the layout c has, into
 * rules of its pipeline ranks: a slow GPU slows its rank (two in one rank: the slower); a slow
 * link slows the pipeline hop it carries, between places alike in neighbouring ranks, and
 * nothing else (a link inside a rank carries no pipeline message). c unchanged when c->gpus is
 * not a multiple of c->p (the point is invalid for other reasons).
 */
void advise_place_stragglers(struct config *c);

/* The best point that fits of one value of an axis advise searches (struct advise_choice). */
struct advise_pick {
	bool set;                  /* a point with this value fits */
	bool valid;                /* a point with this value ran or was over memory: with none
	                            * (dualpipe at an odd p), no layout of the value is valid */
	struct sweep_rank_key key; /* the best one's rank */
	char schedule[32];         /* and its layout and figures, as its record has them */
	int tp, cp, ep, p, v, dp, mbs, m;
	int ep_node; /* the fewest GPUs of its expert-parallel group in one node */
	double tokens_per_s, step_time;
};

/*
 * What choosing another value of one axis of the search costs (the schedule; with a mixture of
 * experts, ep): the best point that fits for each of the axis's values. advise_choice_init
 * takes sw's axis of option key (axis NULL when sw has none that varies, and then nothing is
 * kept), advise_choice_add each record of the search (in any order: of equal points the
 * earlier is kept, as the ranking keeps it), advise_choice_rank orders the values that fit
 * for the reporters, advise_choice_release frees it. The int functions return 0, or -1 with
 * a PP_ERR_NOMEM error.
 */
struct advise_choice {
	const struct sweep_axis *axis;     /* the axis, or NULL */
	struct advise_pick *best;          /* [axis->nvalues], by the index of the axis's value */
	const struct advise_pick **ranked; /* advise_choice_rank: the picks set, the best first */
	int nranked;
};

int advise_choice_init(struct advise_choice *ch, const struct sweep *sw, const char *key,
                       struct pp_error *err);
void advise_choice_add(struct advise_choice *ch, const struct sweep_record *r);
int advise_choice_rank(struct advise_choice *ch, struct pp_error *err);
void advise_choice_release(struct advise_choice *ch);

/* The axes whose choices advise reports: the schedule and ep. */
#define ADVISE_CHOICES 2

/* What `ppsim advise` found, for the reporters. */
struct advice {
	const struct sweep *sw;            /* the search */
	const struct sweep_totals *totals; /* over its points */
	const struct sweep_record *best;   /* [nbest]: the recommendation, then the runner-up */
	int nbest;
	const struct breakeven_row *rows;  /* interleaving at the recommendation's layout */
	int nrows;
	const char *command;               /* the equivalent `ppsim sweep` command line */
	const struct partition *layout;    /* the recommendation's layers and recomputation per
	                                      stage (partition_search), or NULL with one stage */
	const struct advise_choice *choices; /* [ADVISE_CHOICES]: the schedule's and ep's */
};

/*
 * Whether b is a real alternative to a, the recommendation, rather than the same run under
 * another name: a different tp, p, dp, cp, ep, micro-batch size or m, or a different step
 * time. Two schedules that give the same step time at the same layout (zbh1 and zb1p) are one
 * choice; with p = 1 most are, though not all (overlapped pairs hide tensor-parallel
 * collectives there too).
 */
bool advise_distinct(const struct sweep_record *a, const struct sweep_record *b);

/*
 * Checks that sw's base can be advised on: a model, a GPU count (--gpus) and a global batch.
 * Returns 0, or -1 with a PP_ERR_USAGE error naming what is missing.
 */
int advise_check(const struct sweep *sw, struct pp_error *err);

/*
 * Adds to sw an axis for each of tp, p, v, mbs and the schedule that neither the base config
 * sets nor an axis varies: tp over the divisors of the GPUs per node that divide the GPU count,
 * p over the divisors of the GPU count up to the layers, v over ADVISE_CHUNKS, mbs over
 * ADVISE_MBS and every schedule, and for a mixture of experts ep over the powers of two that
 * divide the experts, up to the GPUs. Sets require_fit. Returns 0, or -1 with err.
 */
int advise_add_axes(struct sweep *sw, struct pp_error *err);

#endif
