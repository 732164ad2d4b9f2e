/*
 * ppsim's benchmarks, reported as numbers and never asserted: a ladder of schedule sizes up to
 * p=64, v=8, m=1024 (1F1B, interleaved 1F1B, ZB-H1), and zb-auto at p=16, m=64, whose
 * generation runs the heuristic's greedy passes, timed end to end (generation + simulation +
 * metrics, the path of `ppsim run` without reporters) and in parts, with the peak resident
 * memory each case adds per op; each run in a child process of its own, so that it pays for its
 * memory as a `ppsim` run does, page faults included. Then the growth exponent of
 * time against op count; whole `ppsim` processes (spawned, JSON to /dev/null: best and
 * median of 11, and their memory; `bench_ppsim --whole` prints these alone); the engine's
 * sweep in process against a minimal checked sweep over the same ops (the ceiling); serving 100,000 to
 * 1,000,000 requests (the documented maximum), with its growth in requests; sweep throughput on
 * one job, and a sweep of 1,680 points on one job and on two; reporter throughput; the memory
 * each output's writer takes per op in a whole process, beside what its registry row says
 * (`bench_ppsim --writers` prints these alone). Prints a table and writes the same figures as
 * JSON to the file given as the first argument, if any.
 *
 * Each timing is the best of several repetitions on one core, but for the two-job sweep.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ppsim/config.h"
#include "ppsim/cost.h"
#include "ppsim/critical.h"
#include "ppsim/engine.h"
#include "ppsim/report.h"
#include "ppsim/samples.h"
#include "ppsim/sched.h"
#include "ppsim/serve.h"
#include "ppsim/sim.h"
#include "ppsim/sweep.h"

extern char **environ;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One rung of the ladder. */
struct rung {
	const char *schedule;
	int p, v, m;
	size_t ops;
	double gen_s, sim_s, metrics_s, total_s; /* best of the repetitions */
	double bytes_per_op;                     /* peak resident memory added, per op */
};

static struct config config_of(const struct rung *r)
{
	struct config c;

	config_init(&c);
	snprintf(c.schedule, sizeof(c.schedule), "%s", r->schedule);
	c.p = r->p;
	c.v = r->v;
	c.m = r->m;
	c.max_ops = PP_MAX_OPS_CEILING;
	return c;
}

/* What a child reports: times in seconds, its peak resident memory, whether it ran. */
struct child_report {
	double gen_s, sim_s, metrics_s, total_s;
	long kib;
	int ok;
};

enum child_job { CHILD_NOTHING, CHILD_PARTS, CHILD_WHOLE };

/* Reports that rung r failed with err; returns -1. */
static int rung_failed(const struct rung *r, const struct pp_error *err)
{
	fprintf(stderr, "bench: %s p=%d v=%d m=%d: %s\n", r->schedule, r->p, r->v, r->m, err->msg);
	return -1;
}

/* Times the parts (generation; engine setup and run; metrics) into *out. A priced generator's
 * generation includes the cost tables it orders the ops from. */
static int time_parts(const struct rung *r, struct child_report *out)
{
	struct config c = config_of(r);
	struct pp_error err = {0};
	struct sched_params sp = {r->p, r->v, r->m, 0};
	const struct sched_desc *desc = sched_find(r->schedule);
	double t0 = now_s(), t1, t2, t3;
	struct sched *s = sched_new(desc, &sp);
	struct cost *cost = NULL;
	struct cost_layout layout;
	struct engine *e;
	struct metrics m;

	if (s == NULL)
		return rung_failed(r, &(struct pp_error){PP_ERR_NOMEM, 0, 0, "out of memory"});
	layout = cost_layout_of(s);
	if (desc->fn.generate_priced != NULL) {
		cost = cost_new_explicit(&c, &layout, c.w_mem_fraction);
		if (sim_price_schedule(s, cost, &c, &err) != 0)
			return rung_failed(r, &err);
	}
	t1 = now_s();
	if (cost == NULL)
		cost = cost_new_explicit(&c, &layout, c.w_mem_fraction);
	e = engine_new(s, cost, &err);
	if (e == NULL || engine_run(e, &err) != 0)
		return rung_failed(r, &err);
	t2 = now_s();
	if (metrics_init(&m, s, cost, engine_result(e), &err) != 0)
		return rung_failed(r, &err);
	t3 = now_s();
	out->gen_s = t1 - t0;
	out->sim_s = t2 - t1;
	out->metrics_s = t3 - t2;
	metrics_release(&m);
	engine_free(e);
	cost_free(cost);
	sched_free(s);
	return 0;
}

/*
 * Runs job on r in a child process, which starts with none of the parent's large arrays in its
 * heap: each run pays for its memory as a `ppsim` run does (page faults included).
 */
static struct child_report in_child(const struct rung *r, enum child_job job)
{
	struct child_report rep = {0, 0, 0, 0, -1, 0};
	int fd[2];
	pid_t pid;

	if (pipe(fd) != 0 || (pid = fork()) < 0)
		return rep;
	if (pid == 0) {
		struct rusage ru;
		struct config c = config_of(r);
		struct pp_error err = {0};

		close(fd[0]);
		rep.ok = 1;
		if (job == CHILD_PARTS) {
			rep.ok = time_parts(r, &rep) == 0;
		} else if (job == CHILD_WHOLE) {
			double t = now_s();
			struct sim *whole = sim_run(&c, &err);

			rep.total_s = now_s() - t;
			rep.ok = whole != NULL;
			if (whole == NULL)
				fprintf(stderr, "bench: %s: %s\n", r->schedule, err.msg);
			sim_free(whole);
		}
		getrusage(RUSAGE_SELF, &ru);
		rep.kib = ru.ru_maxrss;
		if (write(fd[1], &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
		rep.ok = 0;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	return rep;
}

/* Times r reps times, each run in a fresh child; keeps the best of each figure and the peak
 * memory of a whole run above base (KiB, a child that runs nothing). */
static int time_rung(struct rung *r, int reps, long base)
{
	uint64_t ops = 0;
	struct sched_params sp = {r->p, r->v, r->m, 0};

	/* counted, not generated: the parent holds no large array for its children to inherit */
	sched_new_ops(sched_find(r->schedule), &sp, &ops);
	r->ops = (size_t)ops;
	r->gen_s = r->sim_s = r->metrics_s = r->total_s = INFINITY;
	for (int k = 0; k < reps; k++) {
		struct child_report parts = in_child(r, CHILD_PARTS),
		                    whole = in_child(r, CHILD_WHOLE);

		if (!parts.ok || !whole.ok)
			return -1;
		r->gen_s = fmin(r->gen_s, parts.gen_s);
		r->sim_s = fmin(r->sim_s, parts.sim_s);
		r->metrics_s = fmin(r->metrics_s, parts.metrics_s);
		r->total_s = fmin(r->total_s, whole.total_s);
		r->bytes_per_op =
		        whole.kib > base ? (double)(whole.kib - base) * 1024 / (double)r->ops : 0;
	}
	return 0;
}

/* A whole `ppsim` process: spawned, its JSON report to /dev/null. */
struct whole {
	const char *args; /* the options, space-separated */
	size_t ops;       /* the run's op count */
	double best_s, median_s;
	long kib;         /* peak resident memory of the process */
	const char *base; /* the same schedule and p at a small m: this run's start; or NULL */
	size_t base_ops;  /* the op count of that run */
};

/* Seconds of one run of ppsim (binary bin) with args, its peak memory in *kib; -1 if it fails. */
static double run_process(const char *bin, const char *args, long *kib)
{
	static char format[] = "--format=json";
	char buf[256], *argv[32];
	int argc = 0, status;
	struct rusage ru;
	posix_spawn_file_actions_t fa;
	double t = now_s();
	pid_t pid;

	snprintf(buf, sizeof(buf), "%s", args);
	argv[argc++] = (char *)bin;
	for (char *tok = strtok(buf, " "); tok != NULL && argc < 30; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	if (strstr(args, "--format") == NULL)
		argv[argc++] = format;
	argv[argc] = NULL;
	/* posix_spawn (vfork-like in glibc): a fork of this process, large after the in-process
	 * benchmarks, would copy its page tables and add a millisecond to every run timed */
	posix_spawn_file_actions_init(&fa);
	if (posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) != 0 ||
	    posix_spawn(&pid, bin, &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	*kib = ru.ru_maxrss;
	return now_s() - t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Times w over reps runs (best, median, largest peak memory); returns 0 or -1. */
static int time_whole(const char *bin, struct whole *w, struct whole *base, int reps)
{
	struct whole *ws[2] = {w, base};
	double t[2][32];

	for (int j = 0; j < 2; j++)
		if (ws[j] != NULL)
			ws[j]->kib = 0;
	/* a run and its base alternate, so that a slow minute of the VM weighs on both */
	for (int k = 0; k < reps && k < 32; k++)
		for (int j = 0; j < 2; j++) {
			long kib = 0;

			if (ws[j] == NULL)
				continue;
			if ((t[j][k] = run_process(bin, ws[j]->args, &kib)) < 0) {
				fprintf(stderr, "bench: %s %s failed\n", bin, ws[j]->args);
				return -1;
			}
			ws[j]->kib = kib > ws[j]->kib ? kib : ws[j]->kib;
		}
	for (int j = 0; j < 2; j++)
		if (ws[j] != NULL) {
			qsort(t[j], (size_t)reps, sizeof(t[j][0]), cmp_double);
			ws[j]->best_s = t[j][0];
			ws[j]->median_s = t[j][reps / 2];
		}
	return 0;
}

/* Least-squares slope of log(y) against log(x). */
static double slope(const double *x, const double *y, int n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;

	for (int i = 0; i < n; i++) {
		double lx = log(x[i]), ly = log(y[i]);

		sx += lx;
		sy += ly;
		sxx += lx * lx;
		sxy += lx * ly;
	}
	return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* Configurations per second of a sweep of p <= 16, m <= 64 over every schedule, one job. */
static int emit_nothing(void *ctx, const struct sweep_record *r)
{
	(void)r;
	(*(size_t *)ctx)++;
	return 0;
}

/* Best seconds of three runs of a sweep over axes (n of them) with jobs threads; the points in
 * *points; -1 on failure. */
static double sweep_time(const char *const (*axes)[2], int n, int jobs, size_t *points)
{
	struct sweep sw;
	struct pp_error err = {0};
	double best = INFINITY;

	sweep_init(&sw, NULL);
	for (int i = 0; i < n; i++)
		if (sweep_set_axis(&sw, config_option_by_key(axes[i][0]), axes[i][0], axes[i][1],
		                   &err) != 0) {
			fprintf(stderr, "bench: sweep: %s\n", err.msg);
			return -1;
		}
	for (int k = 0; k < 3; k++) {
		double t = now_s();

		*points = 0;
		sweep_run(&sw, 0, sweep_points(&sw), jobs, emit_nothing, points, NULL);
		best = fmin(best, now_s() - t);
	}
	sweep_release(&sw);
	return best;
}

static double sweep_rate(size_t *points)
{
	static const char *const axes[][2] = {
	        {"p", "2,4,8,16"}, {"m", "4:64:x2"}, {"v", "1,2"}, {"schedule", "all"}};

	double s = sweep_time(axes, 4, 1, points);

	return s > 0 ? (double)*points / s : -1;
}

/* Seconds to generate and serve n requests arriving at 1000 per 1000 time units (continuous
 * batching, p = 4: micro-batches of about a hundred sequences), best of reps; -1 on failure. */
static double serve_time(int n, int reps, size_t *batches)
{
	double best = INFINITY;

	for (int k = 0; k < reps; k++) {
		struct config c;
		struct serve_workload w = {NULL, 0, 0};
		struct serve_run *r;
		struct pp_error err = {0};
		double t;

		config_init(&c);
		c.num_requests = n;
		c.rate = 1000;
		t = now_s();
		if (serve_workload_generate(&c, &w, &err) != 0 ||
		    (r = serve_run_flags(&c, &w, 0, 0, &err)) == NULL) {
			fprintf(stderr, "bench: serve %d requests: %s\n", n, err.msg);
			serve_workload_free(&w);
			return -1;
		}
		best = fmin(best, now_s() - t);
		*batches = r->nbatch;
		serve_free(r);
		serve_workload_free(&w);
	}
	return best;
}

/* Ops per second of a reporter on one simulation. */
static double report_rate(const struct sim *s, int which)
{
	double best = INFINITY;

	for (int k = 0; k < 3; k++) {
		FILE *out = fopen("/dev/null", "w");
		double t = now_s();

		if (out == NULL)
			return -1;
		if (which == 0)
			report_find("json")->write(out, s);
		else if (which == 1)
			report_trace(out, &(const struct drawing[1]){sim_drawing(s)}[0]);
		else
			report_timeline(out, &(const struct drawing[1]){sim_drawing(s)}[0], 200);
		best = fmin(best, now_s() - t);
		fclose(out);
	}
	return (double)s->sched->nops / best;
}

/*
 * Whole processes, as a user runs them: issue 19's cases, each the best and the median of 21
 * runs of the binary bin, the start of a process (a run of 8 ops) beside them. A case's cost
 * beyond its own start is its best less that of the same schedule and p at a small m (the
 * set-up and report of p devices is not free), per op added. Prints them and writes their JSON
 * array into buf of n bytes. Returns 0, or -1 when a run fails.
 */
/* A model run of 1F1B at p = 64, and what turns every communication stream on (issue 36's
 * bar: at most 1.5 x the time per op of the run without them). */
#define STREAMS_MODEL "--model=llama3-70b --layers=128"
#define STREAMS_ON                                                                          \
	"--tp=8 --cp=2 --dp=4 --distributed-optimizer=yes --overlap-grad-reduce=yes "      \
	"--overlap-param-gather=yes --tp-overlap=pipelined"

/* A mixture of experts with expert parallelism and TP: every expert layer's op is pieces
 * (issue 37's bar: at least 20 million pieces a second in a whole process). */
#define MOE_MODEL "--model=qwen3-30b-a3b --layers=128 --gpu=h100-sxm --tp=2 --ep=8 --dp=8"

/* The pieces of the MOE_MODEL run of 1F1B at p = 64 and m: each op's plan steps (one for an
 * op without a plan), counted in process; 0 when it does not run. */
static double moe_pieces(int m)
{
	static const char *const kv[][2] = {
	        {"model", "qwen3-30b-a3b"}, {"layers", "128"}, {"gpu", "h100-sxm"}, {"tp", "2"},
	        {"ep", "8"},  {"dp", "8"},  {"p", "64"},     {"schedule", "1f1b"},
	};
	struct config c;
	struct pp_error err = {0};
	struct sim *s;
	char num[16];
	double pieces = 0;

	config_init(&c);
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		if (config_set(&c, config_option_by_key(kv[i][0]), kv[i][0], kv[i][1], &err) != 0)
			return 0;
	snprintf(num, sizeof(num), "%d", m);
	if (config_set(&c, config_option_by_key("m"), "m", num, &err) != 0)
		return 0;
	s = sim_run_flags(&c, SIM_NO_OP_TIMES, &err);
	if (s == NULL || s->cost->pieces == NULL) {
		sim_free(s);
		return 0;
	}
	for (size_t i = 0; i < s->sched->nops; i++) {
		const struct op *op = &s->sched->ops[i];
		size_t k = 3 * (size_t)op->stage + (op->kind == OP_BW ? 1 : op->kind);
		size_t n = s->cost->pieces->plan[k].n;

		pieces += n > 0 ? (double)n : 1;
		if (op->kind == OP_BW) /* and its W */
			pieces += s->cost->pieces->plan[k + 1].n > 0 ? (double)s->cost->pieces->plan[k + 1].n
			                                             : 1;
	}
	sim_free(s);
	return pieces;
}

/* Issue 38's bar: 1000 noise samples of interleaved 1F1B at p = 16, v = 2, m = 128 (8 million
 * ops) in under a second on one core. The best of three, in seconds; *ops gets the ops
 * simulated; -1 when it does not run. */
static double samples_time(size_t *ops)
{
	static const char *const kv[][2] = {
	        {"schedule", "interleaved"}, {"p", "16"},  {"v", "2"},
	        {"m", "128"},                {"t_comm", "0.05"}, {"samples", "1000"},
	        {"jitter", "lognormal:0.05"}, {"link_jitter", "lognormal:0.2"},
	};
	struct config c;
	struct pp_error err = {0};
	struct sim *s;
	double best = -1;

	config_init(&c);
	for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		if (config_set(&c, config_option_by_key(kv[i][0]), kv[i][0], kv[i][1], &err) != 0)
			return -1;
	if ((s = sim_run_flags(&c, SIM_NO_OP_TIMES, &err)) == NULL)
		return -1;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now_s(), t;

		if (sim_sample(s, 0, c.samples, 1, &err) != 0) {
			sim_free(s);
			return -1;
		}
		t = now_s() - t0;
		best = best < 0 || t < best ? t : best;
	}
	*ops = s->sched->nops * (size_t)c.samples;
	sim_free(s);
	return best;
}

static int whole_processes(const char *bin, char *buf, size_t n)
{
	static struct whole cases[] = {
	        {"-s 1f1b -p 2 -m 2", 8, 0, 0, 0, NULL, 0},
	        {"-s 1f1b -p 64 -m 1024", 131072, 0, 0, 0, "-s 1f1b -p 64 -m 64", 8192},
	        {"-s zbh1 -p 64 -m 1024", 196608, 0, 0, 0, "-s zbh1 -p 64 -m 64", 12288},
	        {"-s interleaved -p 64 -v 8 -m 1024", 1048576, 0, 0, 0,
	         "-s interleaved -p 64 -v 8 -m 64", 65536},
	        {"-s 1f1b -p 64 -m 8192", 1048576, 0, 0, 0, "-s 1f1b -p 64 -m 64", 8192},
	        {"-s zbh1 -p 64 -m 8192", 1572864, 0, 0, 0, "-s zbh1 -p 64 -m 64", 12288},
	        {"-s zbv -p 64 -m 4096", 1572864, 0, 0, 0, "-s zbv -p 64 -m 64", 24576},
	        /* the cost-aware generators: at equal costs and free messages one greedy pass
	         * stands for all; with messages the passes differ (two of zb-auto's eight run,
	         * and zbv-auto's rerun) */
	        {"-s zb-auto -p 64 -m 8192", 1572864, 0, 0, 0, "-s zb-auto -p 64 -m 64", 12288},
	        {"-s zb-auto -p 64 -m 8192 --tcomm 0.1", 1572864, 0, 0, 0,
	         "-s zb-auto -p 64 -m 64 --tcomm 0.1", 12288},
	        {"-s zbv-auto -p 64 -m 4096", 1572864, 0, 0, 0, "-s zbv-auto -p 64 -m 64", 24576},
	        {"-s zbv-auto -p 64 -m 4096 --tcomm 0.1", 1572864, 0, 0, 0,
	         "-s zbv-auto -p 64 -m 64 --tcomm 0.1", 24576},
	        /* DualPipe: two routes, overlapped pairs, a mixed backward (2m ops a device and
	         * 3040 W's in all) */
	        {"-s dualpipe -p 64 -m 8192", 1051616, 0, 0, 0, "-s dualpipe -p 64 -m 128", 19424},
	        /* the same model-priced run without and with every communication stream (the
	         * last two rows: their ratio is printed after the table) */
	        {"-s 1f1b -p 64 -m 8192 " STREAMS_MODEL, 1048576, 0, 0, 0,
	         "-s 1f1b -p 64 -m 64 " STREAMS_MODEL, 8192},
	        {"-s 1f1b -p 64 -m 8192 " STREAMS_MODEL " " STREAMS_ON, 1048576, 0, 0, 0,
	         "-s 1f1b -p 64 -m 64 " STREAMS_MODEL " " STREAMS_ON, 8192},
	        /* a mixture of experts, its ops pieces (pieces a second printed after the table) */
	        {"-s 1f1b -p 64 -m 8192 " MOE_MODEL, 1048576, 0, 0, 0,
	         "-s 1f1b -p 64 -m 64 " MOE_MODEL, 8192},
	};
	enum { NCASES = sizeof(cases) / sizeof(cases[0]) };
	size_t len = 0;

	printf("\nwhole processes (%s ... --format=json >/dev/null), 21 runs each; ns/op beyond "
	       "start: best less that of the same schedule and p at m = 64, per op added:\n",
	       bin);
	printf("%-36s %9s %9s %9s %12s %12s %8s %8s\n", "options", "ops", "best_ms", "median_ms",
	       "Mops/s best", "Mops/s med", "B/op", "ns/op>st");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct whole *w = &cases[i], base = {w->base, w->base_ops, 0, 0, 0, NULL, 0};
		double bpo, beyond = 0;

		if (time_whole(bin, w, w->base != NULL ? &base : NULL, 21) != 0)
			return -1;
		bpo = i == 0 ? 0 : (double)(w->kib - cases[0].kib) * 1024 / (double)w->ops;
		if (w->base != NULL)
			beyond = (w->best_s - base.best_s) * 1e9 / (double)(w->ops - w->base_ops);
		printf("%-36s %9zu %9.2f %9.2f %12.2f %12.2f %8.1f %8.1f\n", w->args, w->ops,
		       w->best_s * 1e3, w->median_s * 1e3, (double)w->ops / w->best_s / 1e6,
		       (double)w->ops / w->median_s / 1e6, bpo, beyond);
		len += (size_t)snprintf(buf + len, n - len,
		                        "%s{\"args\":\"%s\",\"ops\":%zu,\"best_s\":%.6g,"
		                        "\"median_s\":%.6g,\"bytes_per_op\":%.4g,"
		                        "\"start_s\":%.6g,\"ns_per_op_beyond_start\":%.4g}",
		                        i ? "," : "", w->args, w->ops, w->best_s, w->median_s, bpo,
		                        w->base != NULL ? base.best_s : w->best_s, beyond);
		if (len >= n)
			return -1;
	}
	printf("every stream on (%s): %.2f x the time per op of the same run without them\n",
	       STREAMS_ON, cases[NCASES - 2].best_s / cases[NCASES - 3].best_s);
	{
		double pieces = moe_pieces(8192);

		printf("mixture of experts with pieces (%s): %.0f pieces, %.1f million pieces a "
		       "second in a whole process (best), %.1f (median)\n\n",
		       MOE_MODEL, pieces, pieces / cases[NCASES - 1].best_s / 1e6,
		       pieces / cases[NCASES - 1].median_s / 1e6);
	}
	return 0;
}

/*
 * The memory each output's writer takes per op, as a whole process holds it: the peak resident
 * memory of ppsim writing it for 1F1B at p = 64 (a message an op, nearly) with m = 8192 less
 * that with m = 1024, per op added, beside what its registry row and the run's needs say
 * (sim_peak_bytes of what it reads, and its writer's report_need_memory) and the bytes it
 * writes per op. And how long the whole process takes at m = 8192 (1,048,576 ops), best of
 * WRITER_REPS, against the JSON report alone (the first row), with the gigabytes of file it
 * writes a second. Prints them and writes their JSON array into buf of n bytes. Returns 0, or
 * -1 when a run fails.
 */
#define WRITER_REPS 7

/*
 * The writers that draw the communication streams, on the whole runs with every stream on and
 * with a mixture of experts' pieces (1,048,576 ops each, every op a slice a stream): the whole
 * process, best of WRITER_REPS, against the same run's JSON report alone (alternated), and the
 * file's bytes an op and GB a second. Appends their JSON objects to buf at *len.
 */
static int stream_writers(const char *bin, const char *dir, char *buf, size_t n, size_t *len)
{
	static const char *const runs[][2] = {
	        {"every stream on", "-s 1f1b -p 64 -m 8192 " STREAMS_MODEL " " STREAMS_ON},
	        {"experts' pieces", "-s 1f1b -p 64 -m 8192 " MOE_MODEL},
	};
	static const char *const outputs[][2] = {
	        {"trace", "--trace=%s/t.json"},         {"perfetto trace", "--trace=%s/t.pftrace"},
	        {"html", "--html=%s/h.html"},           {"svg", "--svg=%s/s.svg"},
	        {"op dump", "--dump-ops=%s/o.csv"},
	};
	char args[512], option[160], path[200];

	printf("writers of runs with streams (1f1b -p 64 -m 8192: every stream on, %s; experts' "
	       "pieces, %s), whole process best of %d, as a multiple of the run's JSON report alone "
	       "(alternated)\n",
	       STREAMS_ON, MOE_MODEL, WRITER_REPS);
	printf("%-16s %-16s %10s %10s %8s %8s\n", "run", "output", "file B/op", "best_ms", "x json",
	       "GB/s");
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++)
		for (size_t o = 0; o < sizeof(outputs) / sizeof(outputs[0]); o++) {
			double best = -1, json = -1;
			uint64_t file = 0;
			struct stat st;
			long kib;

			snprintf(option, sizeof(option), outputs[o][1], dir);
			snprintf(args, sizeof(args), "%s %s", runs[r][1], option);
			sscanf(strchr(option, '=') + 1, "%199[^ ]", path);
			for (int rep = 0; rep < WRITER_REPS; rep++) {
				double tj = run_process(bin, runs[r][1], &kib), t;

				unlink(path);
				if (tj < 0 || (t = run_process(bin, args, &kib)) < 0) {
					fprintf(stderr, "bench: %s %s failed\n", bin, args);
					return -1;
				}
				json = json < 0 || tj < json ? tj : json;
				best = best < 0 || t < best ? t : best;
			}
			file = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
			unlink(path);
			printf("%-16s %-16s %10.1f %10.1f %8.1f %8.2f\n", runs[r][0], outputs[o][0],
			       (double)file / 1048576, best * 1e3, best / json, (double)file / best / 1e9);
			*len += (size_t)snprintf(buf + *len, n - *len,
			                         ",{\"output\":\"%s\",\"run\":\"%s\","
			                         "\"file_bytes_per_op\":%.4g,\"best_s\":%.6g,"
			                         "\"times_json\":%.4g,\"file_gb_per_s\":%.4g}",
			                         outputs[o][0], runs[r][0], (double)file / 1048576, best,
			                         best / json, (double)file / best / 1e9);
			if (*len >= n)
				return -1;
		}
	return 0;
}

static int writers(const char *bin, char *buf, size_t n)
{
	static const struct {
		const char *what, *option;
		int output; /* an enum report_output, or -1: the report alone */
	} cases[] = {
	        {"report (json)", "", -1},
	        {"timeline", "--format=text --timeline=200", REPORT_OUT_TIMELINE},
	        {"op dump", "--dump-ops=%s/o.csv", REPORT_OUT_OPS},
	        {"export ppsim", "--export-schedule=%s/e.csv", REPORT_OUT_EXPORT + SCHEDFILE_PPSIM},
	        {"export torch", "--export-schedule=%s/e.csv --export-format=torch",
	         REPORT_OUT_EXPORT + SCHEDFILE_TORCH},
	        {"export torch-comms", "--export-schedule=%s/e.csv --export-format=torch-comms",
	         REPORT_OUT_EXPORT + SCHEDFILE_TORCH_COMMS},
	        {"trace", "--trace=%s/t.json", REPORT_OUT_TRACE},
	        {"trace as gzip", "--trace=%s/t.json.gz", REPORT_OUT_TRACE_GZ},
	        {"perfetto trace", "--trace=%s/t.pftrace", REPORT_OUT_PFTRACE},
	        {"perfetto as gzip", "--trace=%s/t.pftrace.gz", REPORT_OUT_PFTRACE_GZ},
	        {"svg", "--svg=%s/s.svg", REPORT_OUT_SVG},
	        {"html", "--html=%s/h.html", REPORT_OUT_HTML},
	};
	static const int ms[2] = {1024, 8192};
	char dir[] = "/tmp/ppsim-bench-XXXXXX", args[256], option[160], path[200];
	size_t len = 0;

	if (mkdtemp(dir) == NULL)
		return -1;
	double json_s = 0;

	printf("writers (1f1b -p 64, m = 1024 and 8192, JSON report to /dev/null): peak memory "
	       "per op added, as measured and as stated; bytes written per op; at m = 8192 the "
	       "whole process (best of %d), as a multiple of the JSON report alone (its best of "
	       "runs alternated with the output's, so that both see the machine of that minute), "
	       "and the file's GB a second\n",
	       WRITER_REPS);
	printf("%-20s %10s %10s %10s %10s %8s %8s\n", "output", "B/op", "stated", "file B/op",
	       "best_ms", "x json", "GB/s");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct report_need *json = &report_find("json")->need, *need = json;
		unsigned flags, reads;
		double stated[2], ops[2];
		long kib[2];
		uint64_t file = 0;
		struct pp_error err = {0};
		double best = -1, json_here = -1;

		if (cases[i].output >= 0)
			need = &report_output((enum report_output)cases[i].output)->need;
		/* what the run keeps: what the output reads and what the JSON report beside it
		 * reads, as the command line takes them together */
		reads = need->reads | json->reads;
		flags = (reads & REPORT_READS_MESSAGES ? SIM_RECORD_MESSAGES : 0) |
		        (reads & REPORT_READS_SLACK ? SIM_SLACK : 0) |
		        (reads != 0 ? 0 : SIM_NO_OP_TIMES);
		snprintf(option, sizeof(option), cases[i].option, dir);
		for (int k = 0; k < 2; k++) {
			struct config c;
			struct sim_size z;
			struct stat st;

			config_init(&c);
			c.p = 64;
			c.m = ms[k];
			if (sim_size_of_config(&c, &z, &err) != 1)
				return -1;
			ops[k] = (double)z.ops;
			stated[k] = (double)sim_peak_bytes(&c, &z, flags) +
			            (double)report_need_memory(need, &z);
			snprintf(args, sizeof(args), "-s 1f1b -p 64 -m %d %s", ms[k], option);
			/* the file each run writes, new each time */
			path[0] = '\0';
			if (strchr(option, '/') != NULL)
				sscanf(strchr(option, '=') + 1, "%199[^ ]", path);
			for (int rep = 0; rep < (k == 1 ? WRITER_REPS : 1); rep++) {
				long rep_kib = 0;
				double t;

				if (path[0] != '\0')
					unlink(path);
				/* the JSON report alone just before each run of the output */
				if (k == 1 && i > 0) {
					long json_kib;
					double tj = run_process(bin, "-s 1f1b -p 64 -m 8192", &json_kib);

					if (tj < 0)
						return -1;
					json_here = json_here < 0 || tj < json_here ? tj : json_here;
				}
				t = run_process(bin, args, &rep_kib);

				if (t < 0) {
					fprintf(stderr, "bench: %s %s failed\n", bin, args);
					return -1;
				}
				kib[k] = rep == 0 ? rep_kib : kib[k];
				best = rep == 0 || t < best ? t : best;
			}
			/* the file of the larger run */
			file = path[0] != '\0' && stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
			if (path[0] != '\0')
				unlink(path);
		}
		if (i == 0)
			json_s = best;
		if (json_here < 0)
			json_here = json_s;
		printf("%-20s %10.1f %10.1f %10.1f %10.1f %8.1f %8.2f\n", cases[i].what,
		       (double)(kib[1] - kib[0]) * 1024 / (ops[1] - ops[0]),
		       (stated[1] - stated[0]) / (ops[1] - ops[0]), (double)file / ops[1], best * 1e3,
		       best / json_here, (double)file / best / 1e9);
		len += (size_t)snprintf(buf + len, n - len,
		                        "%s{\"output\":\"%s\",\"bytes_per_op\":%.4g,"
		                        "\"stated_bytes_per_op\":%.4g,\"file_bytes_per_op\":%.4g,"
		                        "\"best_s\":%.6g,\"times_json\":%.4g,\"file_gb_per_s\":%.4g}",
		                        i ? "," : "", cases[i].what,
		                        (double)(kib[1] - kib[0]) * 1024 / (ops[1] - ops[0]),
		                        (stated[1] - stated[0]) / (ops[1] - ops[0]),
		                        (double)file / ops[1], best, best / json_here,
		                        (double)file / best / 1e9);
		if (len >= n)
			return -1;
	}
	if (stream_writers(bin, dir, buf, n, &len) != 0)
		return -1;
	rmdir(dir);
	printf("\n");
	return 0;
}

/*
 * The ceiling: the least a checked dependency sweep over the same op lists can do, to set the
 * engine's sweep against. Each device runs its list while its head op's input is in (F: the
 * previous stage's F; B or BW: its own F and the next stage's backward; W: its B), passing
 * over the devices until none moves; it checks each op's range and device and that no cell
 * runs twice, and keeps only each cell's two end times and each device's free time: no
 * channels, messages, activations, per-device totals, op times or overlapped pairs. Returns
 * the makespan, or -1 when the ops do not run to the end; its time, allocation included, in
 * *secs.
 */
static pp_time minimal_sweep(const struct sched *s, const struct cost *c, double *secs)
{
	size_t m = (size_t)s->m, cells = (size_t)s->S * m, done = 0;
	double t0 = now_s();
	pp_time *f = malloc(cells * sizeof(*f)), *b = malloc(cells * sizeof(*b));
	pp_time *free_at = calloc((size_t)s->p, sizeof(*free_at)), makespan = -1;
	size_t *head = malloc((size_t)s->p * sizeof(*head));
	bool moved = true;

	if (f == NULL || b == NULL || free_at == NULL || head == NULL)
		goto out;
	memset(f, 0xff, cells * sizeof(*f));
	memset(b, 0xff, cells * sizeof(*b));
	for (int d = 0; d < s->p; d++)
		head[d] = s->dev_start[d];
	while (moved) {
		moved = false;
		for (int d = 0; d < s->p; d++) {
			size_t i = head[d], end = s->dev_start[d + 1];
			pp_time t = free_at[d];

			for (; i < end; i++) {
				const struct op *o = &s->ops[i];
				uint32_t st = o->stage;
				size_t x = st * m + o->mb;
				pp_time in = 0;

				if (st >= (uint32_t)s->S || o->mb >= m || s->stage_device[st] != (uint32_t)d)
					goto out;
				if (o->kind == OP_F) {
					if (st > 0 && (in = f[x - m]) < 0)
						break;
					if (f[x] >= 0)
						goto out;
					f[x] = t = (t > in ? t : in) + c->t_f[st];
				} else if (o->kind == OP_W) {
					if (b[x] < 0)
						break;
					t += c->t_w[st];
				} else {
					if (f[x] < 0 || (st + 1 < (uint32_t)s->S && (in = b[x + m]) < 0))
						break;
					if (b[x] >= 0)
						goto out;
					b[x] = t = (t > in ? t : in) + c->t_b[st] +
					           (o->kind == OP_BW ? c->t_w[st] : 0);
				}
			}
			moved |= i != head[d];
			done += i - head[d];
			head[d] = i;
			free_at[d] = t;
		}
	}
	*secs = now_s() - t0;
	if (done == s->nops)
		for (int d = 0; d < s->p; d++)
			makespan = free_at[d] > makespan ? free_at[d] : makespan;
out:
	free(f);
	free(b);
	free(free_at);
	free(head);
	return makespan;
}

/*
 * The engine's sweep against the minimal one (minimal_sweep) on the whole-process targets'
 * cases, in process, on the same op lists and costs: the engine as `ppsim run --format=json`
 * runs it (no op times kept), best of 5 each. Returns 0, or -1 when the makespans differ.
 */
static int ceiling(void)
{
	static const struct rung cases[] = {
	        {"interleaved", 64, 8, 1024, 0, 0, 0, 0, 0, 0},
	        {"1f1b", 64, 1, 8192, 0, 0, 0, 0, 0, 0},
	        {"zbh1", 64, 1, 8192, 0, 0, 0, 0, 0, 0},
	        {"zbv", 64, 2, 4096, 0, 0, 0, 0, 0, 0},
	};

	printf("the ceiling, in process: the engine's sweep (set-up and run, no op times) against "
	       "a minimal checked sweep over the same ops, best of 5:\n");
	printf("%-14s %3s %2s %5s %9s %10s %10s %10s %10s\n", "schedule", "p", "v", "m", "ops",
	       "engine_ms", "minimal_ms", "engine_ns", "minimal_ns");
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct rung *r = &cases[k];
		struct config c = config_of(r);
		struct sched_params sp = {r->p, r->v, r->m, 0};
		struct sched *s = sched_new(sched_find(r->schedule), &sp);
		struct cost_layout layout = cost_layout_of(s);
		struct cost *cost = cost_new_explicit(&c, &layout, c.w_mem_fraction);
		double best_e = 1e9, best_m = 1e9;
		pp_time mk_e = -1, mk_m = -1;

		if (s == NULL || cost == NULL)
			return -1;
		for (int rep = 0; rep < 5; rep++) {
			struct pp_error err = {0};
			double t = now_s(), secs = 1e9;
			struct engine *e = engine_new(s, cost, &err);

			if (e == NULL)
				return rung_failed(r, &err);
			engine_drop_times(e);
			if (engine_run(e, &err) != 0)
				return rung_failed(r, &err);
			t = now_s() - t;
			best_e = t < best_e ? t : best_e;
			mk_e = engine_result(e)->makespan;
			engine_free(e);
			mk_m = minimal_sweep(s, cost, &secs);
			best_m = secs < best_m ? secs : best_m;
		}
		printf("%-14s %3d %2d %5d %9zu %10.2f %10.2f %10.1f %10.1f\n", r->schedule, r->p,
		       r->v, r->m, s->nops, best_e * 1e3, best_m * 1e3,
		       best_e * 1e9 / (double)s->nops, best_m * 1e9 / (double)s->nops);
		cost_free(cost);
		sched_free(s);
		if (mk_e != mk_m) {
			fprintf(stderr, "bench: %s: the minimal sweep gives %lld ticks, the engine %lld\n",
			        r->schedule, (long long)mk_m, (long long)mk_e);
			return -1;
		}
	}
	printf("\n");
	return 0;
}

/*
 * What the critical path and the slacks cost, in process, on the same op lists and costs: a
 * plain run as sim_run runs it but for the critical path (generation, pricing, the engine with
 * op times, metrics), best of reps; then the critical path walked on its engine, and the slacks
 * of a run that records its order (the order's recording timed with its run). The ratios are
 * (plain + path) / plain (issue 38's bar: at most 1.3) and (plain with order + slacks) / plain.
 * Prints them and writes their JSON array into buf of n bytes. Returns 0, or -1 when a run
 * fails.
 */
static int critical_cost(char *buf, size_t n)
{
	static const struct rung cases[] = {
	        {"interleaved", 16, 2, 128, 0, 0, 0, 0, 0, 0},
	        {"interleaved", 64, 8, 1024, 0, 0, 0, 0, 0, 0},
	        {"1f1b", 64, 1, 8192, 0, 0, 0, 0, 0, 0},
	        {"zbh1", 64, 1, 8192, 0, 0, 0, 0, 0, 0},
	        {"dualpipe", 64, 2, 8192, 0, 0, 0, 0, 0, 0},
	};
	size_t len = 0;

	printf("the critical path and the slacks, in process: a plain run (generation, pricing, the "
	       "engine with op times, metrics) against its critical path, and a run recording its "
	       "order with its slacks, best of several:\n");
	printf("%-12s %3s %2s %5s %9s %9s %9s %7s %9s %7s\n", "schedule", "p", "v", "m", "ops",
	       "plain_ms", "path_ms", "x_path", "slack_ms", "x_slack");
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct rung *r = &cases[k];
		struct config c = config_of(r);
		size_t ops = 0;
		int reps = r->p * r->v * r->m > 100000 ? 5 : 200;
		double plain = 1e9, path = 1e9, ordered = 1e9, slack = 1e9;

		for (int rep = 0; rep < reps; rep++)
			for (int with = 0; with < 2; with++) {
				struct pp_error err = {0};
				struct sched_params sp = {r->p, r->v, r->m, 0};
				const struct sched_desc *desc = sched_find(r->schedule);
				double t0 = now_s(), t1, t2;
				struct sched *s = sched_new(desc, &sp);
				struct cost_layout layout;
				struct cost *cost;
				struct engine *e;
				struct metrics m;
				struct critical_path cp;
				pp_time *sl = NULL;

				if (s == NULL)
					return -1;
				layout = cost_layout_of(s);
				cost = cost_new_explicit(&c, &layout, c.w_mem_fraction);
				if (cost == NULL || (desc->fn.generate_priced != NULL &&
				                     sim_price_schedule(s, cost, &c, &err) != 0))
					return rung_failed(r, &err);
				if ((e = engine_new(s, cost, &err)) == NULL)
					return rung_failed(r, &err);
				if (with)
					engine_record_order(e);
				if (engine_run(e, &err) != 0 ||
				    metrics_init(&m, s, cost, engine_result(e), &err) != 0)
					return rung_failed(r, &err);
				t1 = now_s();
				if (!with && engine_critical_path(e, &cp, NULL, NULL, &err) != 0)
					return rung_failed(r, &err);
				if (with && ((sl = malloc(s->nops * sizeof(*sl))) == NULL ||
				             engine_slack(e, sl, &err) != 0))
					return rung_failed(r, &err);
				t2 = now_s();
				*(with ? &ordered : &plain) = fmin(with ? ordered : plain, t1 - t0);
				*(with ? &slack : &path) = fmin(with ? slack : path, t2 - t1);
				ops = s->nops;
				if (!with)
					critical_path_release(&cp);
				free(sl);
				metrics_release(&m);
				engine_free(e);
				cost_free(cost);
				sched_free(s);
			}
		printf("%-12s %3d %2d %5d %9zu %9.3f %9.4f %7.3f %9.3f %7.3f\n", r->schedule, r->p,
		       r->v, r->m, ops, plain * 1e3, path * 1e3, (plain + path) / plain,
		       slack * 1e3, (ordered + slack) / plain);
		len += (size_t)snprintf(buf + len, n - len,
		                        "%s{\"schedule\":\"%s\",\"p\":%d,\"v\":%d,\"m\":%d,"
		                        "\"ops\":%zu,\"plain_s\":%.6g,\"path_s\":%.6g,"
		                        "\"path_ratio\":%.4f,\"slack_s\":%.6g,"
		                        "\"slack_ratio\":%.4f}",
		                        k ? "," : "", r->schedule, r->p, r->v, r->m, ops, plain, path,
		                        (plain + path) / plain, slack, (ordered + slack) / plain);
		if (len >= n)
			return -1;
	}
	printf("\n");
	return 0;
}

/* The CPU, as /proc/cpuinfo names it. */
static void cpu_name(char *buf, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, n, "unknown");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "model name", 10) == 0 && strchr(line, ':') != NULL) {
			snprintf(buf, n, "%s", strchr(line, ':') + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	if (f != NULL)
		fclose(f);
}

static const char usage[] =
        "Usage: bench_ppsim [FILE.json]   every benchmark; its figures also as JSON to FILE\n"
        "       bench_ppsim --whole       the whole-process figures alone (PPSIM_BIN: the ppsim run)\n"
        "       bench_ppsim --ceiling     the engine's sweep against a minimal one, in process\n"
        "       bench_ppsim --writers     each output's memory an op, measured against its row\n"
        "       bench_ppsim --critical    what the critical path and the slacks cost, in process\n"
        "       bench_ppsim --help        this text\n";

int main(int argc, char **argv)
{
	static struct rung ladder[] = {
	        {"1f1b", 4, 1, 8, 0, 0, 0, 0, 0, 0},
	        {"1f1b", 8, 1, 64, 0, 0, 0, 0, 0, 0},
	        {"1f1b", 16, 1, 256, 0, 0, 0, 0, 0, 0},
	        {"1f1b", 32, 1, 512, 0, 0, 0, 0, 0, 0},
	        {"1f1b", 64, 1, 1024, 0, 0, 0, 0, 0, 0},
	        {"interleaved", 4, 2, 8, 0, 0, 0, 0, 0, 0},
	        {"interleaved", 8, 2, 64, 0, 0, 0, 0, 0, 0},
	        {"interleaved", 16, 4, 256, 0, 0, 0, 0, 0, 0},
	        {"interleaved", 32, 8, 512, 0, 0, 0, 0, 0, 0},
	        {"interleaved", 64, 8, 1024, 0, 0, 0, 0, 0, 0},
	        {"zbh1", 4, 1, 8, 0, 0, 0, 0, 0, 0},
	        {"zbh1", 8, 1, 64, 0, 0, 0, 0, 0, 0},
	        {"zbh1", 16, 1, 256, 0, 0, 0, 0, 0, 0},
	        {"zbh1", 32, 1, 512, 0, 0, 0, 0, 0, 0},
	        {"zbh1", 64, 1, 1024, 0, 0, 0, 0, 0, 0},
	        /* after the ladders: not in the growth fits */
	        {"zb-auto", 16, 1, 64, 0, 0, 0, 0, 0, 0},
	        {"interleaved-zb", 64, 2, 1024, 0, 0, 0, 0, 0, 0},
	        {"zbv-auto", 64, 2, 1024, 0, 0, 0, 0, 0, 0},
	        {"vhalf", 64, 2, 1024, 0, 0, 0, 0, 0, 0},
	        {"vmin", 64, 2, 1024, 0, 0, 0, 0, 0, 0},
	        {"dualpipe", 64, 2, 1024, 0, 0, 0, 0, 0, 0},
	};
	enum { N = sizeof(ladder) / sizeof(ladder[0]), PER = 5, FIT = 3 };
	const char *arg = argc > 1 ? argv[1] : NULL;
	bool only_whole = arg != NULL && strcmp(arg, "--whole") == 0;
	bool only_writers = arg != NULL && strcmp(arg, "--writers") == 0;
	bool only_critical = arg != NULL && strcmp(arg, "--critical") == 0;
	FILE *json = NULL;
	long base;
	char cpu[128], json_whole[4096], json_writers[8192], json_critical[2048];
	const char *bin = getenv("PPSIM_BIN") != NULL ? getenv("PPSIM_BIN") : "build/ppsim";
	size_t points = 0, noise_ops = 0;
	double sweep, sweep1, sweep2, exps[3], serve_s[3], serve_exp, noise_s, partition_s;
	struct config c;
	struct pp_error err = {0};
	struct sim *mid;

	/* one argument at most; an option it does not know is refused before anything runs or is
	 * written (a file named "--help" is never the JSON output) */
	if (arg != NULL && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
		fputs(usage, stdout);
		return ferror(stdout) || fflush(stdout) != 0 ? 1 : 0;
	}
	if (argc > 2 || (arg != NULL && arg[0] == '-' && !only_whole && !only_writers &&
	                 !only_critical && strcmp(arg, "--ceiling") != 0)) {
		if (argc > 2)
			fprintf(stderr, "bench_ppsim: unexpected argument '%s'\n", argv[2]);
		else
			fprintf(stderr, "bench_ppsim: unknown option '%s'\n", arg);
		fputs("Try 'bench_ppsim --help'.\n", stderr);
		return 2;
	}
	if (arg != NULL && strcmp(arg, "--ceiling") == 0) /* bench_ppsim --ceiling */
		return ceiling() != 0;
	if (only_critical) /* bench_ppsim --critical */
		return critical_cost(json_critical, sizeof(json_critical)) != 0;
	if (arg != NULL && arg[0] != '-') {
		json = fopen(arg, "w");
		if (json == NULL) {
			fprintf(stderr, "bench_ppsim: cannot write '%s': %s\n", arg, strerror(errno));
			return 1;
		}
	}
	base = in_child(&ladder[0], CHILD_NOTHING).kib;
	if (only_whole) /* the whole-process figures alone: bench_ppsim --whole */
		return whole_processes(bin, json_whole, sizeof(json_whole)) != 0;
	if (only_writers) /* the writers' memory alone: bench_ppsim --writers */
		return writers(bin, json_writers, sizeof(json_writers)) != 0;
	cpu_name(cpu, sizeof(cpu));
	printf("ppsim %s benchmarks on %s, one core; best of several runs, each in a "
	       "fresh process\n\n",
	       PP_VERSION, cpu);
	printf("%-14s %3s %2s %5s %9s %9s %9s %9s %9s %8s %7s %8s\n", "schedule", "p", "v", "m",
	       "ops", "gen_ms", "sim_ms", "metr_ms", "total_ms", "Mops/s", "ns/op", "B/op");
	for (int i = 0; i < N; i++) {
		struct rung *r = &ladder[i];

		if (time_rung(r, r->p * r->v * r->m > 100000 ? 5 : 20, base) != 0)
			return 1;
		printf("%-14s %3d %2d %5d %9zu %9.3f %9.3f %9.3f %9.3f %8.2f %7.1f %8.1f\n",
		       r->schedule, r->p, r->v, r->m, r->ops, r->gen_s * 1e3, r->sim_s * 1e3,
		       r->metrics_s * 1e3, r->total_s * 1e3, (double)r->ops / r->total_s / 1e6,
		       r->total_s * 1e9 / (double)r->ops, r->bytes_per_op);
	}
	/* The growth is fitted over each schedule's three largest rungs, where the fixed costs
	 * of a run (a few microseconds) no longer weigh. */
	for (int g = 0; g < 3; g++) {
		double x[FIT], y[FIT], nlogn[FIT];

		for (int k = 0; k < FIT; k++) {
			const struct rung *r = &ladder[g * PER + PER - FIT + k];

			x[k] = (double)r->ops;
			y[k] = r->total_s;
			nlogn[k] = x[k] * log(x[k]);
		}
		exps[g] = slope(x, y, FIT);
		printf("%s growth: time ~ ops^%.3f over its three largest rungs (n log n: "
		       "ops^%.3f)\n",
		       ladder[g * PER].schedule, exps[g], slope(x, nlogn, FIT));
	}
	if (whole_processes(bin, json_whole, sizeof(json_whole)) != 0 ||
	    writers(bin, json_writers, sizeof(json_writers)) != 0 || ceiling() != 0 ||
	    critical_cost(json_critical, sizeof(json_critical)) != 0)
		return 1;
	{
		static const int requests[] = {100000, 300000, 1000000};
		double x[3], y[3];

		for (int k = 0; k < 3; k++) {
			size_t batches = 0;

			x[k] = requests[k];
			y[k] = serve_time(requests[k], k < 2 ? 3 : 1, &batches);
			if (y[k] < 0)
				return 1;
			printf("serve: %7d requests in %.3f s, %.2f us a request (%zu "
			       "micro-batches)\n",
			       requests[k], y[k], y[k] / x[k] * 1e6, batches);
			serve_s[k] = y[k];
		}
		serve_exp = slope(x, y, 3);
		printf("serve growth: time ~ requests^%.3f\n", serve_exp);
	}
	sweep = sweep_rate(&points);
	printf("sweep: %.0f configurations/s (%zu points: p 2..16, m 4..64, v 1..2, every "
	       "schedule; one job)\n",
	       sweep, points);
	{
		static const char *const axes[][2] = {{"p", "2,4,8,16,32"},
		                                      {"m", "8:512:x2"},
		                                      {"v", "1,2,4"},
		                                      {"schedule", "all"}};
		size_t n1 = 0, n2 = 0;

		sweep1 = sweep_time(axes, 4, 1, &n1);
		sweep2 = sweep_time(axes, 4, 2, &n2);
		printf("sweep on 2 jobs: %zu points (p 2..32, m 8..512, v 1..4, every schedule) in "
		       "%.3f s on one job, %.3f s on two: %.2f times as fast\n",
		       n1, sweep1, sweep2, sweep1 / sweep2);
	}
	config_init(&c);
	c.p = 16;
	c.v = 2;
	c.m = 256;
	strcpy(c.schedule, "interleaved");
	mid = sim_run_flags(&c, SIM_RECORD_MESSAGES, &err);
	if (mid == NULL)
		return 1;
	printf("reporters on interleaved p=16 v=2 m=256 (%zu ops): JSON %.2f, trace %.2f, "
	       "timeline %.2f Mops/s\n",
	       mid->sched->nops, report_rate(mid, 0) / 1e6, report_rate(mid, 1) / 1e6,
	       report_rate(mid, 2) / 1e6);
	if ((noise_s = samples_time(&noise_ops)) < 0)
		return 1;
	printf("noise: 1000 samples of interleaved p=16 v=2 m=128 with op and link jitter (%zu ops) "
	       "in %.3f s on one core, %.1f Mops/s (bar: under 1 s)\n",
	       noise_ops, noise_s, (double)noise_ops / noise_s / 1e6);
	/* issue 39's bar: ppsim partition of 126 layers over 16 devices, two chunks each, in under
	 * 2 s in a whole process */
	{
		static const char args[] = "partition --model=llama3-405b --gpu=h100-sxm --tp=8 -p 16 "
		                           "-v 2 -s interleaved --gpus=1024 --mbs=1 "
		                           "--global-batch=256 --distributed-optimizer=yes";
		double t[5];
		long kib = 0;

		for (int k = 0; k < 5; k++)
			if ((t[k] = run_process(bin, args, &kib)) < 0)
				return 1;
		qsort(t, 5, sizeof(t[0]), cmp_double);
		partition_s = t[0];
		printf("partition: llama3-405b's 126 layers over p=16 v=2 (interleaved) in %.3f s "
		       "(best of 5), %.3f s (median) in a whole process (bar: under 2 s)\n",
		       t[0], t[2]);
	}
	if (json != NULL) {
		fprintf(json, "{\"version\":\"%s\",\"cpu\":\"%s\",\"ladder\":[", PP_VERSION, cpu);
		for (int i = 0; i < N; i++)
			fprintf(json,
			        "%s\n{\"schedule\":\"%s\",\"p\":%d,\"v\":%d,\"m\":%d,\"ops\":%zu,"
			        "\"gen_s\":%.9g,\"sim_s\":%.9g,\"metrics_s\":%.9g,\"total_s\":%.9g,"
			        "\"ops_per_s\":%.6g,\"bytes_per_op\":%.4g}",
			        i ? "," : "", ladder[i].schedule, ladder[i].p, ladder[i].v,
			        ladder[i].m, ladder[i].ops, ladder[i].gen_s, ladder[i].sim_s,
			        ladder[i].metrics_s, ladder[i].total_s,
			        (double)ladder[i].ops / ladder[i].total_s, ladder[i].bytes_per_op);
		fprintf(json,
		        "\n],\"whole\":[%s],\"writers\":[%s],\"critical\":[%s],"
		        "\"growth\":{\"1f1b\":%.4f,\"interleaved\":%.4f,"
		        "\"zbh1\":%.4f},"
		        "\"sweep_configs_per_s\":%.6g,\"sweep_points\":%zu,"
		        "\"sweep_jobs_s\":{\"1\":%.6g,\"2\":%.6g},"
		        "\"serve_s\":{\"100000\":%.6g,\"300000\":%.6g,\"1000000\":%.6g},"
		        "\"serve_growth\":%.4f,"
		        "\"report_ops_per_s\":{\"json\":%.6g,\"trace\":%.6g,\"timeline\":%.6g},"
		        "\"noise_samples_s\":%.6g,\"partition_s\":%.6g}\n",
		        json_whole, json_writers, json_critical, exps[0], exps[1], exps[2], sweep, points,
		        sweep1,
		        sweep2,
		        serve_s[0], serve_s[1], serve_s[2], serve_exp, report_rate(mid, 0),
		        report_rate(mid, 1), report_rate(mid, 2), noise_s, partition_s);
		fclose(json);
	}
	sim_free(mid);
	return 0;
}
