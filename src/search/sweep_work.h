/*
 * The work a run of a sweep's points is counted to cost before anything runs, and its limit
 * (sweep_work.c); private to the search layer. A point counts its ops and SWEEP_DEVICE_OPS per
 * device; with --fits its memory is checked first, so that a point that cannot fit counts only
 * its devices.
 */
#ifndef PPSIM_SWEEP_WORK_H
#define PPSIM_SWEEP_WORK_H

#include <stdint.h>

#include "ppsim/sweep.h"

/* What a point will cost, counted before anything runs. */
struct point_cost {
	uint64_t ops;     /* the ops its simulation holds (point_cost_of), 0 when unknown or when
	                     it will not run */
	uint64_t devices; /* its devices */
	uint64_t need;    /* the --max-ops it needs, its generator's work: above the base's, it is
	                     refused (ops 0) */
	uint64_t want;    /* its ops and its devices' as they would count with --max-ops at need
	                     or more (0 when nothing counts) */
};

/* What a point's simulation is counted to cost: its ops and SWEEP_DEVICE_OPS per device. */
static inline uint64_t point_work(const struct point_cost *c)
{
	return c->ops + SWEEP_DEVICE_OPS * c->devices;
}

/*
 * Refuses, before anything runs, a run of the points [first, last) that would take more than a
 * few seconds a core: more than SWEEP_MAX_RUN_POINTS points, or more work than
 * SWEEP_WORK_FACTOR times the base's --max-ops ops, where each point counts its ops and
 * SWEEP_DEVICE_OPS per device (a device's reports cost about that much). With --fits, a run
 * over that budget is counted again with each point's memory checked (point_cost_of), which
 * skips the points that cannot fit unsimulated, provided the devices alone, which the checks
 * price, are within it: the orders' activations (CHECK_ORDER) when the work is within
 * SWEEP_ORDER_CHECK_FACTOR budgets (generating an order takes a fraction of simulating it),
 * after the cheaper state check (CHECK_STATE) when it is above. The points' costs are counted
 * on jobs threads into *costs (the caller frees it), which the parallel run reuses, and their
 * sum into *total. Returns 0 or -1 with a PP_ERR_USAGE or PP_ERR_NOMEM error.
 */
int sweep_check_work(const struct sweep *sw, uint64_t first, uint64_t last, int jobs,
                     struct point_cost **costs, uint64_t *total, struct pp_error *err);

#endif
