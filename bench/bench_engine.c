/*
 * Engine benchmark: generation and simulation time of 1F1B, interleaved 1F1B and ZB-H1 over a
 * ladder of sizes up to p=64, v=8, m=1024, printed as a table of numbers (never asserted).
 * Each case runs several times; the best is kept.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "ppsim/config.h"
#include "ppsim/cost.h"
#include "ppsim/engine.h"
#include "ppsim/sched.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long max_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Runs one case `reps` times; prints the best generation and simulation times. */
static int bench_case(const char *schedule, int p, int v, int m, int reps)
{
	struct config c;
	double best_gen = 1e30, best_sim = 1e30;
	size_t nops = 0;

	config_init(&c);
	snprintf(c.schedule, sizeof(c.schedule), "%s", schedule);
	c.p = p;
	c.v = v;
	c.m = m;
	for (int r = 0; r < reps; r++) {
		struct pp_error err = {0};
		double t0 = now_s(), t1, t2;
		struct sched_params sp = {p, v, m, 0};
		struct sched *s = sched_new(sched_find(schedule), &sp);
		struct cost *k = cost_new_explicit(&c, c.w_mem_fraction);
		struct engine *e;

		t1 = now_s();
		e = engine_new(s, k, &err);
		if (e == NULL || engine_run(e, &err) != 0) {
			fprintf(stderr, "bench: %s p=%d v=%d m=%d: %s\n", schedule, p, v, m,
			        err.msg);
			return -1;
		}
		t2 = now_s();
		nops = s->nops;
		if (t1 - t0 < best_gen)
			best_gen = t1 - t0;
		if (t2 - t1 < best_sim)
			best_sim = t2 - t1;
		engine_free(e);
		cost_free(k);
		sched_free(s);
	}
	printf("%-12s %3d %2d %5d %10zu %10.3f %10.3f %10.2f %8.1f %10ld\n", schedule, p, v, m,
	       nops, best_gen * 1e3, best_sim * 1e3, (double)nops / (best_gen + best_sim) / 1e6,
	       (best_gen + best_sim) * 1e9 / (double)nops, max_rss_kib());
	return 0;
}

int main(void)
{
	static const struct {
		const char *schedule;
		int p, v, m;
	} cases[] = {
	        {"1f1b", 4, 1, 8},
	        {"1f1b", 8, 1, 64},
	        {"1f1b", 16, 1, 256},
	        {"1f1b", 64, 1, 1024},
	        {"interleaved", 4, 2, 8},
	        {"interleaved", 16, 4, 256},
	        {"interleaved", 64, 8, 1024},
	        {"zbh1", 4, 1, 8},
	        {"zbh1", 16, 1, 256},
	        {"zbh1", 64, 1, 1024},
	        {"zbh1", 64, 1, 8192},
	};

	printf("%-12s %3s %2s %5s %10s %10s %10s %10s %8s %10s\n", "sched", "p", "v", "m", "ops",
	       "gen_ms", "sim_ms", "Mops/s", "ns/op", "maxrss_KiB");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (bench_case(cases[i].schedule, cases[i].p, cases[i].v, cases[i].m, 3) != 0)
			return 1;
	return 0;
}
