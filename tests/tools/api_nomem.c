/*
 * The facade of libppsim (include/ppsim/ppsim.h) through every call a program makes, for
 * t_nomem.sh to run with each allocation failing in turn (tests/tools/failalloc.c): a config
 * set by keys and by JSON, training steps (one with noise samples, whose statistics a figure
 * reads), a serving run, their reports in each format, their figures, per-device tables and
 * ops, a comparison of each kind, the listing, a sweep, a calibration and a replay. Prints "ok"
 * and a digest of every string the calls returned, and exits 0, when every call succeeded (so a
 * failure that gave a short text and PP_OK shows as another digest); else prints the first error
 * ("error: MESSAGE") and exits 1, having freed what it holds.
 */
#include <stdio.h>
#include <string.h>

#include "ppsim/ppsim.h"

/* The first error seen, kept for the end. */
static char first[512];

static void note(const char *what, const char *err)
{
	if (first[0] == '\0')
		snprintf(first, sizeof(first), "%s: %s", what,
		         err[0] != '\0' ? err : "(no message)");
}

/* FNV-1a over the strings the calls returned, in order. */
static unsigned long long digest = 14695981039346656037ULL;

/* Takes the string *s that call what made, returning rc: notes its error, or adds it to the
 * digest; frees it. */
static void take(const char *what, int rc, char **s, const char *err)
{
	if (rc != PP_OK || *s == NULL)
		note(what, err);
	else
		for (const unsigned char *c = (const unsigned char *)*s;; c++) {
			digest = (digest ^ *c) * 1099511628211ULL;
			if (*c == '\0')
				break;
		}
	pp_string_free(*s);
	*s = NULL;
}

/* Reads r as data: a figure of each kind, a device column, the ops in both ways. */
static void read_data(const pp_run *r, char *err, size_t errlen)
{
	static const char *const names[] = {"makespan", "noise.step.p50", "ttft.p50"};
	double x, dev[8];
	pp_ops *o;
	pp_ops cols = {0};
	double start[4];

	for (size_t i = 0; first[0] == '\0' && i < sizeof(names) / sizeof(names[0]); i++)
		if (pp_run_figure(r, names[i], &x, err, errlen) != 0)
			note("pp_run_figure", err);
	if (first[0] == '\0' && pp_run_device_figure(r, "busy", dev, 8, err, errlen) < 0)
		note("pp_run_device_figure", err);
	if (first[0] == '\0' && pp_run_ops_new(r, &o, err, errlen) != PP_OK)
		note("pp_run_ops_new", err);
	else if (first[0] == '\0')
		pp_ops_free(o);
	cols.n = 4;
	cols.start = start;
	if (first[0] == '\0' && pp_run_ops(r, 0, &cols, err, errlen) != 0)
		note("pp_run_ops", err);
}

int main(void)
{
	char err[256] = "", *s = NULL;
	pp_config *c = pp_config_new(), *d = NULL, *sv = NULL;
	pp_run *runs[2] = {NULL, NULL}, *each[2] = {NULL, NULL}, *served[2] = {NULL, NULL};
	static const char *const formats[] = {"json", "text", "csv"};
	static const char *const labels[] = {"a", "b"};
	static const char *const schedules[] = {"1f1b", "interleaved"};

	if (c == NULL) {
		puts("error: pp_config_new: out of memory");
		return 1;
	}
	if (pp_config_set(c, "schedule", "zbh1", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "p", "4", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "stages", "4", err, sizeof(err)) != 0 ||
	    pp_config_load_json(c, "{\"m\": 8, \"t_comm\": 0.25}", "cfg", err, sizeof(err)) != 0)
		note("config", err);
	else if ((d = pp_config_copy(c)) == NULL || (sv = pp_config_new()) == NULL)
		note("pp_config_copy", "out of memory");
	else if (pp_config_set(d, "schedule", "dualpipev", err, sizeof(err)) != 0 ||
	         pp_config_set(d, "samples", "3", err, sizeof(err)) != 0 ||
	         pp_config_set(d, "jitter", "normal:0.1", err, sizeof(err)) != 0 ||
	         pp_config_load_json(sv, "{\"p\": 2, \"num_requests\": 4}", "serve", err,
	                             sizeof(err)) != 0)
		note("config", err);
	if (first[0] == '\0' && pp_simulate(c, PP_KEEP_SLACK, &runs[0], err, sizeof(err)) != PP_OK)
		note("pp_simulate", err);
	if (first[0] == '\0' &&
	    pp_simulate(d, PP_KEEP_OP_TIMES, &runs[1], err, sizeof(err)) != PP_OK)
		note("pp_simulate", err);
	if (first[0] == '\0' && pp_simulate_schedules(c, schedules, 2, 0, each, err, sizeof(err)))
		note("pp_simulate_schedules", err);
	for (int i = 0; first[0] == '\0' && i < 2; i++)
		if (pp_serve(sv, 0, &served[i], err, sizeof(err)) != PP_OK)
			note("pp_serve", err);
	for (int i = 0; first[0] == '\0' && i < 3; i++) {
		take("pp_run_report", pp_run_report(runs[i % 2], formats[i], &s, err, sizeof(err)),
		     &s, err);
		if (first[0] == '\0')
			take("pp_run_report",
			     pp_run_report(served[0], formats[i], &s, err, sizeof(err)), &s, err);
	}
	for (int i = 0; first[0] == '\0' && i < 2; i++)
		read_data(i == 0 ? runs[1] : served[0], err, sizeof(err));
	if (first[0] == '\0')
		take("pp_run_ops_csv", pp_run_ops_csv(runs[0], &s, err, sizeof(err)), &s, err);
	if (first[0] == '\0')
		take("pp_compare_report",
		     pp_compare_report((const pp_run *const *)runs, labels, 2, "text", &s, err,
		                       sizeof(err)),
		     &s, err);
	if (first[0] == '\0')
		take("pp_compare_report",
		     pp_compare_report((const pp_run *const *)served, labels, 2, "json", &s, err,
		                       sizeof(err)),
		     &s, err);
	if (first[0] == '\0')
		take("pp_list", pp_list("json", &s, err, sizeof(err)), &s, err);
	if (first[0] == '\0') { /* a sweep with a skipped point, read as data */
		static const char *const keys[] = {"schedule", "p"}, *values[] = {"dualpipe", "2,3"};
		pp_sweep *sw = NULL;
		double x;

		if (pp_config_set(c, "v", "2", err, sizeof(err)) != PP_OK ||
		    pp_sweep_run(c, keys, values, 2, 1, 0, &sw, err, sizeof(err)) != PP_OK ||
		    pp_sweep_figure(sw, 0, "makespan", &x, err, sizeof(err)) != PP_OK ||
		    pp_sweep_skipped(sw, 1) == NULL)
			note("pp_sweep_run", err);
		pp_sweep_free(sw);
	}
	if (first[0] == '\0') { /* measured times as a config (run from the source tree) */
		pp_config *fit = NULL;

		if (pp_calibrate("docs/examples/measured-zb-1.5b.csv", 24, -1, &fit, NULL, err,
		                 sizeof(err)) != PP_OK)
			note("pp_calibrate", err);
		pp_config_free(fit);
	}
	if (first[0] == '\0') { /* a measured step replayed */
		static const char *const steps[] = {"docs/examples/step-trace.json"};
		pp_config *plain = pp_config_new();
		pp_run *replayed = NULL;

		if (plain == NULL)
			note("pp_config_new", "out of memory");
		else if (pp_replay(plain, steps, 1, PP_KEEP_SLACK, &replayed, err, sizeof(err)) !=
		         PP_OK)
			note("pp_replay", err);
		pp_run_free(replayed);
		replayed = NULL;
		if (first[0] == '\0') { /* its what-ifs, and its report */
			static const char *const keys[] = {"without_slowest", "schedule", "m"},
			                         *values[] = {"yes", "interleaved", "16"};

			if (pp_replay_whatif(plain, steps, 1, keys, values, 3, PP_KEEP_OP_TIMES,
			                     &replayed, err, sizeof(err)) != PP_OK)
				note("pp_replay_whatif", err);
			else
				take("pp_run_report",
				     pp_run_report(replayed, "text", &s, err, sizeof(err)), &s, err);
			pp_run_free(replayed);
		}
		if (first[0] == '\0')
			take("pp_config_json", pp_config_json(c, &s, err, sizeof(err)), &s, err);
		pp_config_free(plain);
	}
	for (int i = 0; i < 2; i++) {
		pp_run_free(runs[i]);
		pp_run_free(each[i]);
		pp_run_free(served[i]);
	}
	pp_config_free(c);
	pp_config_free(d);
	pp_config_free(sv);
	if (first[0] != '\0') {
		printf("error: %s\n", first);
		return 1;
	}
	printf("ok %016llx\n", digest);
	return 0;
}
