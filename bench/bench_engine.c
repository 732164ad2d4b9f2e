/*
 * Engine benchmark: generation and simulation time of 1F1B and GPipe over a ladder of sizes,
 * printed as a table of numbers (never asserted). Each case runs several times; the best is
 * kept.
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
static int bench_case(const char *schedule, int p, int m, int reps)
{
	struct config c;
	double best_gen = 1e30, best_sim = 1e30;
	size_t nops = 0;

	config_init(&c);
	snprintf(c.schedule, sizeof(c.schedule), "%s", schedule);
	c.p = p;
	c.m = m;
	for (int r = 0; r < reps; r++) {
		struct pp_error err = {0};
		double t0 = now_s(), t1, t2;
		struct sched *s = sched_new(sched_find(schedule), p, 1, m);
		struct cost *k = cost_new_explicit(&c, 0.5);
		struct engine *e;

		t1 = now_s();
		e = engine_new(s, k, &err);
		if (e == NULL || engine_run(e, &err) != 0) {
			fprintf(stderr, "bench: %s p=%d m=%d: %s\n", schedule, p, m, err.msg);
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
	printf("%-6s %5d %6d %10zu %10.3f %10.3f %10.2f %8.1f %10ld\n", schedule, p, m, nops,
	       best_gen * 1e3, best_sim * 1e3, (double)nops / (best_gen + best_sim) / 1e6,
	       (best_gen + best_sim) * 1e9 / (double)nops, max_rss_kib());
	return 0;
}

int main(void)
{
	static const int sizes[][2] = {{4, 8}, {8, 64}, {16, 256}, {64, 1024}, {64, 8192}};

	printf("%-6s %5s %6s %10s %10s %10s %10s %8s %10s\n", "sched", "p", "m", "ops", "gen_ms",
	       "sim_ms", "Mops/s", "ns/op", "maxrss_KiB");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (int k = 0; k < 2; k++)
			if (bench_case(k ? "gpipe" : "1f1b", sizes[i][0], sizes[i][1], 3) != 0)
				return 1;
	return 0;
}
