/*
 * The noise options' parsers and formatters, for the option table (config.c); private to the
 * config module. Each parser reads value into the field of its option's row and returns 0, or
 * -1 with a PP_ERR_USAGE error naming label; each formatter writes the field as a user would
 * write it ("none" when unset).
 */
#ifndef PPSIM_CONFIG_NOISE_H
#define PPSIM_CONFIG_NOISE_H

#include "ppsim/config.h"

int config_set_jitter(struct config *c, const struct config_option *opt, const char *label,
                      const char *value, struct pp_error *err);
void config_format_jitter(const struct config *c, const struct config_option *opt, char *buf,
                          size_t n);
int config_set_stragglers(struct config *c, const struct config_option *opt, const char *label,
                          const char *value, struct pp_error *err);
void config_format_stragglers(const struct config *c, const struct config_option *opt,
                              char *buf, size_t n);
int config_set_stalls(struct config *c, const struct config_option *opt, const char *label,
                      const char *value, struct pp_error *err);
void config_format_stalls(const struct config *c, const struct config_option *opt, char *buf,
                          size_t n);

/* Checks the noise options against the run's shape (devices, stages) and each other: 0, or -1
 * with a PP_ERR_USAGE error naming the option. */
int config_check_noise(const struct config *c, struct pp_error *err);

#endif
