/*
 * The work count of a sweep's run (sweep_work.h): each point's cost from its settled shape, its
 * memory checked with --fits (its state, then its order's activations), counted on threads,
 * and the refusal of a run over its budget with the --max-ops that would take it.
 */
#include "sweep_work.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "ppsim/sched.h"
#include "ppsim/sim.h"

/* What a count of a point's cost checks of its memory first (with --fits): nothing, its state
 * (sim_state_fits: its layout priced), or its state and its order's activations (sim_fits:
 * the order generated when no prices are needed, a fraction of a simulation's time). */
enum fit_check { CHECK_NONE, CHECK_STATE, CHECK_ORDER };

/*
 * What point i will cost (struct point_cost), from its settled shape (p·v·m times 2, or 3 with a
 * split backward, each noise sample again): 0 ops when that cannot be told beforehand (a
 * schedule file, settings that will be refused, no memory to settle them) or its work is above
 * --max-ops (refused at once, but counted in want). With a check (and --fits), 0 ops too for a
 * point it finds over its GPU (sweep_evaluate skips it unsimulated): its weights, gradients and
 * optimizer state alone, or with CHECK_ORDER, an order generated without prices and at most
 * order_cap ops its activations' peak too (the order generated here, and again when it is not
 * skipped). Its devices still count: the check prices them.
 */
static void point_cost_of(const struct sweep *sw, uint64_t i, enum fit_check check,
                          uint64_t order_cap, struct point_cost *out)
{
	struct config *c = pp_malloc(2 * sizeof(*c));
	struct pp_error ignored = {0};
	const struct sched_desc *d;
	uint64_t work = 0, ops = 0;

	*out = (struct point_cost){0};
	if (c == NULL)
		return;
	if (sweep_point_config(sw, i, c, &ignored) == 0 && config_settle(c, c + 1, &ignored) == 0 &&
	    c[1].schedule_file[0] == '\0' && (d = sched_find(c[1].schedule)) != NULL &&
	    !sched_work(d, c[1].p, c[1].v, c[1].m, &work))
		work = 0;
	/* each noise sample simulates the point's ops again */
	if (work > 0 && !pp_mul_u64(work, c[1].samples + 1, &ops))
		ops = UINT64_MAX / 4; /* past any budget, without overflowing the sum of them */
	if (work > 0) {
		out->need = work;
		out->want = ops + SWEEP_DEVICE_OPS * (uint64_t)c[1].p;
		if (work <= c[1].max_ops) { /* else refused before anything is priced */
			out->ops = ops;
			out->devices = (uint64_t)c[1].p;
		}
	}
	if (work > 0 && check != CHECK_NONE && sw->require_fit) {
		struct pp_error why = {0};
		bool over = out->ops == 0; /* above --max-ops: judged as it would be if allowed */
		int rc;

		if (over)
			c[0].max_ops = PP_MAX_OPS_CEILING;
		rc = !over && check == CHECK_ORDER && ops <= order_cap ? sim_fits(c, &why)
		                                                       : sim_state_fits(c, &why);
		/* refused for want of memory here, the point may still run: counted; else only its
		 * devices, which the check prices, count (as they would with --max-ops raised) */
		if (rc != 0 && why.kind != PP_ERR_NOMEM) {
			out->ops = 0;
			out->want = SWEEP_DEVICE_OPS * (uint64_t)c[1].p;
		}
	}
	free(c);
}


/* Counts the points first + t, first + t + jobs, ... of a scan (point_cost_of with check). */
struct scan {
	const struct sweep *sw;
	uint64_t first, last;
	struct point_cost *cost; /* [last - first] */
	int jobs, t;
	enum fit_check check;
	uint64_t order_cap; /* most ops of an order CHECK_ORDER generates */
};

static void *scan_stride(void *arg)
{
	struct scan *sc = arg;

	for (uint64_t i = sc->first + (uint64_t)sc->t; i < sc->last; i += (uint64_t)sc->jobs)
		point_cost_of(sc->sw, i, sc->check, sc->order_cap, &sc->cost[i - sc->first]);
	return NULL;
}

/* Most threads that count points' costs: the count is a small part of a sweep. */
#define SCAN_MAX_THREADS 64

/* Fills cost[] for the points [first, last) on up to jobs threads (this one among them), with
 * point_cost_of's check. The orders generated at once hold at most the base's --max-ops ops
 * between them, as the points simulated at once do: the threads generate those of up to a
 * jobs-th of it, and this thread then the larger ones, one at a time, so that the count does
 * not depend on jobs. */
static void scan_costs(const struct sweep *sw, uint64_t first, uint64_t last, int jobs,
                       enum fit_check check, struct point_cost *cost)
{
	pthread_t threads[SCAN_MAX_THREADS];
	struct scan sc[SCAN_MAX_THREADS];
	struct pp_thread start[SCAN_MAX_THREADS];
	int started = 0;

	if (jobs > SCAN_MAX_THREADS)
		jobs = SCAN_MAX_THREADS;
	if (jobs < 1 || last - first < (uint64_t)jobs * 16)
		jobs = 1;
	for (int t = 0; t < jobs; t++) {
		sc[t] = (struct scan){sw,   first, last, cost, jobs, t, check,
		                      sw->base.max_ops / (uint64_t)jobs};
		start[t] = pp_thread_of(scan_stride, &sc[t]);
	}
	for (int t = 1; t < jobs; t++)
		if (pp_thread_create(&threads[t], &start[t]) == 0)
			started = t;
		else
			break;
	scan_stride(&sc[0]);
	/* a stride whose thread did not start is counted here */
	for (int t = started + 1; t < jobs; t++)
		scan_stride(&sc[t]);
	for (int t = 1; t <= started; t++)
		pthread_join(threads[t], NULL);
	for (uint64_t i = first; check == CHECK_ORDER && jobs > 1 && i < last; i++)
		if (cost[i - first].ops > sc[0].order_cap)
			point_cost_of(sw, i, CHECK_ORDER, sw->base.max_ops, &cost[i - first]);
}

/* The work of the n points of cost (point_work; only their devices' with devices_only), or
 * budget + 1 once it is past budget. */
static uint64_t sum_work(const struct point_cost *cost, uint64_t n, bool devices_only,
                         uint64_t budget)
{
	uint64_t work = 0;

	for (uint64_t i = 0; i < n && work <= budget; i++)
		work += devices_only ? SWEEP_DEVICE_OPS * cost[i].devices : point_work(&cost[i]);
	return work <= budget ? work : budget + 1;
}

/* The most work check_work's refusal counts in full (a point counts at most UINT64_MAX / 4),
 * and what it advises. */
#define WORK_SAY_MAX UINT64_C(1000000000000000)
#define WORK_ADVICE "give fewer values to the options that list them"
/* ... and, for advise, which options those are */
#define WORK_ADVISE                                                                                \
	" (advise searches --tp, --stages, --chunks, --mbs, --schedule and --ep unless they are "  \
	"given)"
/* ... and where the caller can shard the points */
#define WORK_SHARDS "; or split the sweep into shards (--shard=K/N)"
/* What the budget is, after the count (the budget, the factor, a device's ops). */
#define WORK_BUDGET                                                                                \
	" ops, above the %" PRIu64 " a search may (%d times --max-ops; each device of a point "    \
	"adds %d ops, for its reports)"

/* A point's --max-ops and what it counts once that is allowed (least_max_ops). */
struct need_want {
	uint64_t need, want;
};

static int by_need(const void *x, const void *y)
{
	const struct need_want *a = x, *b = y;

	return (a->need > b->need) - (a->need < b->need);
}

/*
 * A --max-ops from `from` on with which the n points of cost would count within their budget
 * as counted here: those whose generator's work it allows count what they want (the least
 * such value when the memory checks a larger --max-ops brings count as these did; it may be
 * more than the least). 0 when none up to PP_MAX_OPS_CEILING does, or out of memory.
 */
static uint64_t least_max_ops(const struct point_cost *cost, uint64_t n, uint64_t from)
{
	struct need_want *nw = pp_mallocarray(n > 0 ? (size_t)n : 1, sizeof(*nw));
	uint64_t k = 0, at = 0, w = 0, m = from;

	if (nw == NULL)
		return 0;
	for (uint64_t i = 0; i < n; i++)
		if (cost[i].want > 0)
			nw[k++] = (struct need_want){cost[i].need, cost[i].want};
	qsort(nw, (size_t)k, sizeof(*nw), by_need);
	/* W(m), the wants of the points m lets in, grows with m: the least m >= W(m) / factor is
	 * reached by raising m to W(m) / factor until no point more comes in */
	while (m <= PP_MAX_OPS_CEILING) {
		for (; at < k && nw[at].need <= m; at++)
			w = w > WORK_SAY_MAX ? w : w + nw[at].want;
		if (w <= SWEEP_WORK_FACTOR * m)
			break;
		m = (w + SWEEP_WORK_FACTOR - 1) / SWEEP_WORK_FACTOR;
	}
	free(nw);
	return m <= PP_MAX_OPS_CEILING ? m : 0;
}

int sweep_check_work(const struct sweep *sw, uint64_t first, uint64_t last, int jobs,
                     struct point_cost **costs, uint64_t *total, struct pp_error *err)
{
	uint64_t budget = SWEEP_WORK_FACTOR * sw->base.max_ops, work;
	uint64_t reach = SWEEP_ORDER_CHECK_FACTOR * budget;
	struct point_cost *cost;

	*costs = NULL;
	if (last - first > SWEEP_MAX_RUN_POINTS)
		return pp_fail(err, PP_ERR_USAGE,
		               "%" PRIu64 " points to simulate, above the limit of %" PRIu64
		               " a run: %s its lists",
		               last - first, SWEEP_MAX_RUN_POINTS,
		               sw->shardable ? "shard the sweep (--shard=K/N) or narrow" : "narrow");
	cost = pp_mallocarray((size_t)(last - first), sizeof(*cost));
	if (cost == NULL)
		return pp_nomem(err, (size_t)(last - first), sizeof(*cost));
	scan_costs(sw, first, last, jobs, CHECK_NONE, cost);
	work = sum_work(cost, last - first, false, reach);
	if (work > budget && sw->require_fit &&
	    sum_work(cost, last - first, true, budget) <= budget) {
		if (work > reach) { /* too far over to generate the orders: the states first */
			scan_costs(sw, first, last, jobs, CHECK_STATE, cost);
			work = sum_work(cost, last - first, false, reach);
		}
		if (work > budget && work <= reach) {
			scan_costs(sw, first, last, jobs, CHECK_ORDER, cost);
			work = sum_work(cost, last - first, false, budget);
		}
	}
	if (work > budget) {
		/* the whole count, for the --max-ops that would take it (past a cap no point's
		 * count can overflow) */
		uint64_t all = sum_work(cost, last - first, false, WORK_SAY_MAX);
		uint64_t need = least_max_ops(cost, last - first,
		                              (all + SWEEP_WORK_FACTOR - 1) / SWEEP_WORK_FACTOR);
		const char *shards = sw->shardable ? WORK_SHARDS : sw->advise ? WORK_ADVISE : "";

		free(cost);
		if (all > WORK_SAY_MAX)
			return pp_fail(err, PP_ERR_USAGE,
			               "the points would simulate more than %" PRIu64 WORK_BUDGET ": %s%s",
			               WORK_SAY_MAX, budget, (int)SWEEP_WORK_FACTOR,
			               (int)SWEEP_DEVICE_OPS, WORK_ADVICE, shards);
		if (need == 0)
			return pp_fail(err, PP_ERR_USAGE,
			               "the points would simulate %" PRIu64 WORK_BUDGET ": %s%s",
			               all, budget, (int)SWEEP_WORK_FACTOR, (int)SWEEP_DEVICE_OPS,
			               WORK_ADVICE, shards);
		return pp_fail(err, PP_ERR_USAGE,
		               "the points would simulate %" PRIu64 WORK_BUDGET ": %s%s; or give "
		               "--max-ops=%" PRIu64 " or more",
		               all, budget, (int)SWEEP_WORK_FACTOR, (int)SWEEP_DEVICE_OPS,
		               WORK_ADVICE, shards, need);
	}
	*costs = cost;
	*total = work;
	return 0;
}
