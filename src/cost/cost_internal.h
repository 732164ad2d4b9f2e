/* What the explicit and the model-derived costs share; private to the library. */
#ifndef PPSIM_COST_INTERNAL_H
#define PPSIM_COST_INTERNAL_H

#include "ppsim/cost.h"

/* A cost with its per-stage arrays allocated (contents unset) and comm/duplex from c, or NULL
 * when out of memory. */
struct cost *cost_alloc(int S, int64_t tick, const char *time_unit, const struct config *c);

/* Converts a time in units to ticks; asserts it is in range (callers check beforehand). */
pp_time cost_ticks(double units, int64_t tick);

#endif
