/*
 * What the parts of the config module share (private to src/config/): the schedule option's
 * parser, which the option table (config_table.c) points at and the words of completion
 * recognise, and a row's place in the table, which indexes a config's origins.
 */
#ifndef PPSIM_CONFIG_INTERNAL_H
#define PPSIM_CONFIG_INTERNAL_H

#include "ppsim/config.h"

/* Reads a schedule name (any case, or PyTorch's) into c->schedule: 0, or -1 with a
 * PP_ERR_USAGE error naming label and the known schedules. */
/* Reads a Megatron-LM layout string (layout.c) into c->layout after checking its grammar. */
int config_set_layout(struct config *c, const struct config_option *opt, const char *label,
                      const char *value, struct pp_error *err);
int config_set_schedule(struct config *c, const struct config_option *opt, const char *label,
                        const char *value, struct pp_error *err);

/* The index of row o in the option table. */
static inline size_t config_row(const struct config_option *o)
{
	size_t n;

	return (size_t)(o - config_options(&n));
}

#endif
