/*
 * One greedy pass of zbv-auto, private to src/sched/: its state, the ops it puts and the
 * rounds it runs (zbvpass.c), for the chains of passes that zbvauto.c runs. zbvauto.c says what
 * the pass decides and how the passes are run.
 */
#ifndef PPSIM_SCHED_ZBVPASS_H
#define PPSIM_SCHED_ZBVPASS_H

#include <stddef.h>

#include "generators.h"

/* The pass's six op kinds on a device: F of chunk 0, F of chunk 1, B and W of the backward's
 * first and second chunk (the authors' "FfBbWw"). The ends of the first four are kept. */
enum { VF0, VF1, VB0, VB1, VW0, VW1, VKINDS, VKEPT = 4 };

/* The settings of a chain of passes, as bits; the authors try 3 down to 0. */
enum { ZBV_FILL_F = 1, ZBV_FILL_B = 2, ZBV_CHAINS = 4 };

/* What every pass decides from: uniform op and message times, per-device activations. All are
 * doubled (sums of a device's two chunks), which changes no comparison. */
struct vprices {
	pp_time t[3];   /* F, B, W of one chunk op */
	pp_time comm;   /* one message */
	int64_t *act;   /* [p] what an F allocates on device d */
	int64_t *act_w; /* [p] the part W frees */
	int64_t *limit; /* [p] alive activations allowed */
};

/* One device in a pass: its state (up to dmem, what a snapshot keeps), then what the pass
 * gives it. */
struct vdev {
	int count[VKINDS];    /* ops of each kind put so far */
	int n;                /* ops put */
	int phead, ptail;     /* its pending W's, first in first out */
	pp_time cur;          /* end of its last op */
	pp_time bubble;       /* idle time after its first F */
	int64_t mem;          /* alive activations */
	int64_t dmem[VKINDS]; /* what an op of each kind adds to them (< 0: frees) */
	int64_t limit;        /* activations allowed */
	uint8_t *kinds;       /* [6m] its op kinds in order (the pass's kinds) */
	uint8_t *pending;     /* [2m] chunks (0, 1) of its B's whose W is pending */
};
#define VDEV_STATE offsetof(struct vdev, dmem)

/* A point of the base pass where another pass may decide otherwise: a gap before an op of kind
 * (VF0 .. VB1) on device d into which one more W goes (the gap plus d's idle time, g, is above
 * the largest idle time: always in the base, and in another pass when g is above its allowance
 * too and its setting says so); or, kind VREC_MAX, a new largest idle time g, at which a pass
 * whose score it reaches stops. */
enum { VREC_MAX = VKINDS };
struct vrec {
	int round; /* the round, -1 in the warm-up */
	int d;
	int kind;
	pp_time g;
};

/* Rounds between the base pass's snapshots. */
#define ZBV_SNAP_ROUNDS 16

struct vpass;

/*
 * The base pass: chain 0's first pass (fill_b, fill_f, no allowances). Every pass takes the
 * base's decisions up to the first of its points (struct vrec) where it decides otherwise, so
 * that it starts from the base's snapshot before that round rather than from the beginning
 * (in a run with messages, passes part in the last rounds), stops where the base reaches its
 * score, or is the base's when it never decides otherwise.
 */
struct vbase {
	struct vpass *z;  /* the pass's arrays as it ended, NULL when it has none */
	bool usable;      /* it ran with its records and snapshots complete */
	struct vrec *rec; /* its points, in order */
	size_t nrec, cap;
	char *snap;        /* [nsnap * p] the devices' states (VDEV_STATE bytes) at the start of
	                      rounds 0, ZBV_SNAP_ROUNDS, 2 ZBV_SNAP_ROUNDS, ... */
	pp_time *snap_max; /* [nsnap] the largest idle time there */
	pp_time *snap_w1;  /* [nsnap] last_w1 there */
	int nsnap;
};

/* What the threads share: the prices, the base pass, and the chains as variants (their
 * largest idle times the scores, their kinds [p * 6m]). */
struct vshared {
	const struct vprices *pr;
	int p, m;
	struct vbase base;
	struct sched_variants var;
};

/* One thread's pass and the arrays it reuses, on cache lines of its own. */
struct vpass {
	_Alignas(SCHED_LINE) struct vshared *sh;
	const struct vprices *pr;
	int p, m, k; /* k: the chain's place in the authors' order (settings 3 - k) */
	bool fill_f, fill_b;
	const pp_time *approved; /* [p] idle-time allowances, NULL on a chain's first pass */
	pp_time max_approved;    /* their largest, -1 without */
	pp_time max_bubble;      /* the largest per-device idle time so far */
	pp_time stop_at;         /* the idle time at which the pass cannot win: it stops */
	pp_time last_w1;         /* end of the last device's last W of chunk 0, -1 before */
	pp_time cost[VKINDS];    /* what an op of each kind takes */
	size_t row;              /* p * VKEPT: the ends of a micro-batch */
	int round;               /* the round under way, -1 in the warm-up */
	struct vbase *rec_into; /* the base whose points and snapshots this pass records, or NULL */
	struct vdev *dev;       /* [p] */
	pp_time *end;           /* [m * p * VKEPT] end of op kind of mb on device d at
	                           (mb * p + d) * VKEPT + kind, valid once it has run */
	uint8_t *pending;       /* [p * 2m] chunks (0, 1) of B's whose W is pending */
	uint8_t *kinds;         /* [p * 6m] each device's op kinds in order, 6m a device */
	uint8_t *kept;          /* [p * 6m] the kinds of the chain's best pass so far */
	pp_time *allowance;     /* [p] the idle times of the chain's best pass so far */
	int *order;             /* [p] the devices in a round's order of B's */
	unsigned consulted;     /* settings that changed a decision of the chain (ZBV_ bits) */
	unsigned told;          /* those told to the other threads */
	bool failed;            /* an op broke a limit or came before its input */
	bool stopped;           /* left unfinished: it cannot win, or its chain is not needed */
};

/* Readies z for a pass of chain z->k with the allowances (NULL: none), stopping once its
 * largest idle time reaches stop_at, from the beginning. */
void sched_zbv_setup(struct vpass *z, const pp_time *approved, pp_time stop_at);
/* The warm-up of a pass set up (steps 1 and 2 of the authors' pass). */
void sched_zbv_warm_up(struct vpass *z);
/* Runs the pass from round r0 on, then the remaining W's; false when it fails or stops. With
 * z->rec_into set, records the base's points and snapshots as it goes. */
bool sched_zbv_rounds(struct vpass *z, int r0);
/* Starts z, set up, from the base's snapshot i (of the start of round i ZBV_SNAP_ROUNDS). */
void sched_zbv_resume(struct vpass *z, const struct vbase *b, int i);

#endif
