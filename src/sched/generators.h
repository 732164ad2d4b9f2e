/* Generator functions registered in the table of src/sched/table.c; private to the library. */
#ifndef PPSIM_SCHED_GENERATORS_H
#define PPSIM_SCHED_GENERATORS_H

#include "ppsim/sched.h"

/* Closed form of the flush schedules (GPipe, 1F1B): (p-1)/(m+p-1). */
double sched_flush_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                          double overlap);

void sched_gpipe_generate(struct sched *s);
double sched_gpipe_peak(const struct sched_params *sp, int d);

void sched_1f1b_generate(struct sched *s);
double sched_1f1b_peak(const struct sched_params *sp, int d);

int sched_interleaved_check(const struct sched_params *sp, const char **key, struct pp_error *err);
void sched_interleaved_generate(struct sched *s);
double sched_interleaved_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                                double overlap);
double sched_interleaved_peak(const struct sched_params *sp, int d);
/* The group size interleaving uses for sp: sp->group, or the default for (p, m). */
int sched_interleaved_group(const struct sched_params *sp);

int sched_interleaved_zb_check(const struct sched_params *sp, const char **key,
                               struct pp_error *err);
void sched_interleaved_zb_generate(struct sched *s);
double sched_interleaved_zb_peak(const struct sched_params *sp, int d);

void sched_zbh1_generate(struct sched *s);
double sched_zbh1_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                         double overlap);
double sched_zbh1_peak(const struct sched_params *sp, int d);

int sched_zbh2_check(const struct sched_params *sp, const char **key, struct pp_error *err);
void sched_zbh2_generate(struct sched *s);
double sched_zbh2_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                         double overlap);
double sched_zbh2_peak(const struct sched_params *sp, int d);

void sched_loopedbfs_generate(struct sched *s);
double sched_loopedbfs_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                              double overlap);
double sched_loopedbfs_peak(const struct sched_params *sp, int d);

void sched_zbv_generate(struct sched *s);
double sched_zbv_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                        double overlap);
double sched_zbv_peak(const struct sched_params *sp, int d);

void sched_vhalf_generate(struct sched *s);
void sched_vmin_generate(struct sched *s);
double sched_vhalf_peak(const struct sched_params *sp, int d);
double sched_vmin_peak(const struct sched_params *sp, int d);

int sched_dualpipev_check(const struct sched_params *sp, const char **key, struct pp_error *err);
void sched_dualpipev_generate(struct sched *s);
size_t sched_dualpipev_ops(int p, int m, int d);
double sched_dualpipev_theory(const struct sched_params *sp, double t_f, double t_b, double t_w,
                              double overlap);
double sched_dualpipev_peak(const struct sched_params *sp, int d);

/* The activations device d of s may hold under pr's limit, in pr's amounts: mem_limit times
 * one micro-batch's activations on all its chunks, rounded to the nearest amount. */
int64_t sched_prices_limit(const struct sched *s, const struct sched_prices *pr, int d);

int sched_zbauto_generate(struct sched *s, const struct sched_prices *pr, struct pp_error *err);
int sched_zbvauto_generate(struct sched *s, const struct sched_prices *pr, struct pp_error *err);

#endif
