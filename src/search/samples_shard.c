/*
 * A run's noise samples in shard files (shard.h): each sample's number and figures, so that
 * `ppsim merge` reports the samples it reads back exactly as the run would have.
 */
#include <stddef.h>

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

const struct shard_codec samples_shard_codec = {
        .kind = "samples",
        .size = sizeof(struct sample_record),
        .fields = fields,
        .nfields = sizeof(fields) / sizeof(fields[0]),
};
