/* Generator functions registered in the table of src/sched.c; private to the library. */
#ifndef PPSIM_SCHED_GENERATORS_H
#define PPSIM_SCHED_GENERATORS_H

#include "ppsim/sched.h"

/* Closed form of the flush schedules (GPipe, 1F1B): (p-1)/(m+p-1). */
double sched_flush_theory(int p, int v, int m, double t_f, double t_b, double t_w);

void sched_gpipe_generate(struct sched *s);
void sched_1f1b_generate(struct sched *s);

#endif
