/*
 * A run's noise samples in shard files (shard.h): each sample's number and figures, so that
 * `ppsim merge` reports the samples it reads back exactly as the run would have.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "ppsim/samples.h"
#include "ppsim/shard.h"

#define AT(f) offsetof(struct sample_record, f)

static const struct shard_field fields[] = {
        {"index", SHARD_U64, AT(index), 1},
        {"step", SHARD_DOUBLE, AT(s.step), 1},
        {"bubble_ratio", SHARD_DOUBLE, AT(s.bubble), 1},
        {"critical_device", SHARD_INT, AT(s.critical_device), 1},
        {"critical_share", SHARD_DOUBLE, AT(s.critical_share), 1},
};

/* A value of a sample no run writes: a step not finite or below 0, a bubble ratio or a share
 * outside 0 to 1, a device below 0 (one past the run's p is refused when the samples settle,
 * which know p). */
static bool check(const void *rec, char *why, size_t n)
{
	const struct sample *x = &((const struct sample_record *)rec)->s;
	const struct {
		const char *name;
		double value, hi;
	} figures[] = {
	        {"step", x->step, HUGE_VAL},
	        {"bubble_ratio", x->bubble, 1},
	        {"critical_share", x->critical_share, 1},
	};

	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++)
		if (!shard_check_figure(figures[i].name, figures[i].value, figures[i].hi, true, why,
		                        n))
			return false;
	if (x->critical_device < 0) {
		snprintf(why, n, "column 'critical_device': %d is below 0", x->critical_device);
		return false;
	}
	return true;
}

const struct shard_codec samples_shard_codec = {
        .kind = "samples",
        .size = sizeof(struct sample_record),
        .fields = fields,
        .nfields = sizeof(fields) / sizeof(fields[0]),
        .check = check,
};
