/*
 * A sweep's records in shard files (shard.h): every field of struct sweep_record, so that
 * `ppsim merge` ranks and writes the records it reads back exactly as the sweep would have.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ppsim/sched.h"
#include "ppsim/sweep.h"

#define AT(f)   offsetof(struct sweep_record, f)
#define SIZE(f) sizeof(((struct sweep_record *)0)->f)

static const struct shard_field fields[] = {
        {"index", SHARD_U64, AT(index), 1},
        {"ok", SHARD_BOOL, AT(ok), 1},
        {"error", SHARD_INT, AT(error), 1},
        {"value", SHARD_INTS, AT(value), SWEEP_MAX_AXES},
        {"schedule", SHARD_TEXT, AT(schedule), SIZE(schedule)},
        {"p", SHARD_INT, AT(p), 1},
        {"v", SHARD_INT, AT(v), 1},
        {"m", SHARD_INT, AT(m), 1},
        {"tp", SHARD_INT, AT(tp), 1},
        {"dp", SHARD_INT, AT(dp), 1},
        {"mbs", SHARD_INT, AT(mbs), 1},
        {"gpus", SHARD_INT, AT(gpus), 1},
        {"cp", SHARD_INT, AT(cp), 1},
        {"ep", SHARD_INT, AT(ep), 1},
        {"ep_comm", SHARD_DOUBLE, AT(ep_comm), 1},
        {"ep_exposed", SHARD_DOUBLE, AT(ep_exposed), 1},
        {"ep_node", SHARD_INT, AT(ep_node), 1},
        {"has_model", SHARD_BOOL, AT(has_model), 1},
        {"time_unit", SHARD_TEXT, AT(time_unit), SIZE(time_unit)},
        {"makespan", SHARD_DOUBLE, AT(makespan), 1},
        {"bubble_ratio", SHARD_DOUBLE, AT(bubble_ratio), 1},
        {"bubble_ratio_theory", SHARD_DOUBLE, AT(bubble_ratio_theory), 1},
        {"utilization", SHARD_DOUBLE, AT(utilization), 1},
        {"peak_activations", SHARD_DOUBLE, AT(peak_activations), 1},
        {"messages", SHARD_U64, AT(messages), 1},
        {"bytes", SHARD_U64, AT(bytes), 1},
        {"p2p_time", SHARD_DOUBLE, AT(p2p_time), 1},
        {"throughput", SHARD_DOUBLE, AT(throughput), 1},
        {"step_time", SHARD_DOUBLE, AT(step_time), 1},
        {"tokens_per_s", SHARD_DOUBLE, AT(tokens_per_s), 1},
        {"mfu", SHARD_DOUBLE, AT(mfu), 1},
        {"memory_bytes", SHARD_DOUBLE, AT(memory_bytes), 1},
        {"memory_capacity", SHARD_DOUBLE, AT(memory_capacity), 1},
        {"memory_reserve", SHARD_DOUBLE, AT(memory_reserve), 1},
        {"fits", SHARD_BOOL, AT(fits), 1},
        {"step_mean", SHARD_DOUBLE, AT(step_mean), 1},
        {"step_p50", SHARD_DOUBLE, AT(step_p50), 1},
        {"step_p90", SHARD_DOUBLE, AT(step_p90), 1},
        {"step_p99", SHARD_DOUBLE, AT(step_p99), 1},
        {"rank_scale", SHARD_DOUBLE, AT(rank_scale), 1},
        {"reason", SHARD_TEXT, AT(reason), SIZE(reason)},
};

/* A value of a record no sweep writes: a schedule no generator has, a shape under 1, a v the
 * schedule does not take, a time or a count below 0, a share above 1, a step shorter than its
 * schedule's makespan. NAN stands for a figure a point does not have. */
static bool check(const void *rec, char *why, size_t n)
{
	const struct sweep_record *r = rec;
	const struct {
		const char *name;
		double value, hi;
	} figures[] = {
	        {"makespan", r->makespan, HUGE_VAL},
	        {"step_time", r->step_time, HUGE_VAL},
	        {"p2p_time", r->p2p_time, HUGE_VAL},
	        {"peak_activations", r->peak_activations, HUGE_VAL},
	        {"memory_bytes", r->memory_bytes, HUGE_VAL},
	        {"tokens_per_s", r->tokens_per_s, HUGE_VAL},
	        {"utilization", r->utilization, 1},
	        {"bubble_ratio", r->bubble_ratio, 1},
	        {"mfu", r->mfu, HUGE_VAL},
	};

	if (!r->ok)
		return true;
	if (strcmp(r->schedule, "file") != 0 && sched_find(r->schedule) == NULL) {
		snprintf(why, n, "column 'schedule': '%.32s' is no schedule", r->schedule);
		return false;
	}
	if (r->p < 1 || r->v < 1 || r->m < 1) {
		snprintf(why, n, "column '%s': %d is below 1", r->p < 1 ? "p" : r->v < 1 ? "v" : "m",
		         r->p < 1 ? r->p : r->v < 1 ? r->v : r->m);
		return false;
	}
	if (strcmp(r->schedule, "file") != 0) {
		const struct sched_desc *d = sched_find(r->schedule);
		bool one = d->one_stage_one_chunk && r->p == 1;

		if (one ? r->v != 1 : r->v < d->min_v || (d->max_v > 0 && r->v > d->max_v)) {
			snprintf(why, n, "column 'v': %s runs no v = %d", r->schedule, r->v);
			return false;
		}
	}
	if (r->has_model && r->step_time < r->makespan) {
		snprintf(why, n, "column 'step_time': %g is below the makespan %g", r->step_time,
		         r->makespan);
		return false;
	}
	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++)
		if (!shard_check_figure(figures[i].name, figures[i].value, figures[i].hi, false, why,
		                        n))
			return false;
	return true;
}

const struct shard_codec sweep_shard_codec = {
        .kind = "sweep",
        .size = sizeof(struct sweep_record),
        .fields = fields,
        .nfields = sizeof(fields) / sizeof(fields[0]),
        .check = check,
};
