/*
 * The library in a program whose locale writes numbers with a decimal comma, for
 * tests/cli/t_locale.sh: `api_locale LOCALE` sets the process's locale to LOCALE (de_DE.UTF-8,
 * which the test builds) as setlocale(LC_ALL, "") does for a user's LC_ALL, then
 *   - makes the facade's calls (settings of "1.5" and "0.25", a JSON config, two runs, their
 *     reports in each format, their ops, a comparison, the listing, a refused value), which must
 *     give the bytes the same calls give in the "C" locale, and leave the caller's locale as it
 *     was (printf still writes "1,5" after them);
 *   - runs a sweep over t_f on 2 threads from a thread in the "C" locale, whose points must all
 *     read their values and make the makespans of the same sweep in one thread (a new thread
 *     starts in the process's locale, not its starter's).
 * Prints "ok" and exits 0; else prints each difference and exits 1; exits 2 when LOCALE cannot
 * be set or writes no decimal comma (the test cannot run).
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/ppsim.h"
#include "ppsim/sweep.h"

/* Most outputs the facade's calls make. */
#define MAX_OUTPUTS 32

/* What the facade's calls gave: each output, or the error of a call that failed. */
struct outputs {
	char what[MAX_OUTPUTS][32]; /* the call, and the format or schedule it was given */
	char *text[MAX_OUTPUTS];    /* what it gave, owned ("error: MESSAGE" for an error) */
	int n;
};

/* Keeps s (a string of the library, freed here) as the output of call on arg, or err when s is
 * NULL. */
static void keep(struct outputs *o, const char *call, const char *arg, char *s, const char *err)
{
	char buf[600];

	if (o->n == MAX_OUTPUTS) {
		pp_string_free(s);
		return;
	}
	if (s == NULL)
		snprintf(buf, sizeof(buf), "error: %s", err);
	snprintf(o->what[o->n], sizeof(o->what[0]), "%s %s", call, arg);
	o->text[o->n++] = strdup(s != NULL ? s : buf);
	pp_string_free(s);
}

/* The output of o kept as what, or NULL. */
static const char *output(const struct outputs *o, const char *what)
{
	for (int i = 0; i < o->n; i++)
		if (strcmp(o->what[i], what) == 0)
			return o->text[i];
	return NULL;
}

/* Prints the line where a and b, the outputs of what, first differ; returns 1. */
static int differ(const char *what, const char *locale, const char *a, const char *b)
{
	size_t at = 0, start = 0, line = 1;

	while (a != NULL && b != NULL && a[at] != '\0' && a[at] == b[at])
		if (a[at++] == '\n')
			line++, start = at;
	a = a != NULL ? a + start : "(none)";
	b = b != NULL ? b + start : "(none)";
	printf("%s under %s differs from the C locale's at line %zu:\n  %.*s\n  C: %.*s\n", what,
	       locale, line, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
	return 1;
}

/* A config of schedule with p = 4, m = 8 and times with decimals, set by key and by JSON; NULL
 * with the error kept in o when a setting is refused. */
static pp_config *config_of(struct outputs *o, const char *schedule)
{
	char err[512] = "";
	pp_config *c = pp_config_new();

	if (c == NULL || pp_config_set(c, "schedule", schedule, err, sizeof(err)) != 0 ||
	    pp_config_set(c, "p", "4", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "m", "8", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "t_f", "1.5", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "tcomm", "0.25", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "stage_scale", "1,1.5,1,0.75", err, sizeof(err)) != 0 ||
	    pp_config_load_json(c, "{\"t_b\": 2.5, \"t_w\": 0.75}", "cfg", err, sizeof(err)) != 0) {
		keep(o, "config", schedule, NULL, c == NULL ? "out of memory" : err);
		pp_config_free(c);
		return NULL;
	}
	return c;
}

/* Makes the facade's calls, keeping what each gave in o. */
static void facade(struct outputs *o)
{
	static const char *const formats[] = {"json", "text", "csv"};
	char err[512] = "";
	pp_config *c = config_of(o, "zbh1"), *d = config_of(o, "1f1b");
	pp_config *model = pp_config_new();
	pp_run *runs[2] = {NULL, NULL};
	pp_run *mr = NULL;
	char *s = NULL;

	if (c != NULL && d != NULL) {
		if (pp_simulate(c, PP_KEEP_SLACK, &runs[0], err, sizeof(err)) != PP_OK)
			keep(o, "pp_simulate", "zbh1", NULL, err);
		if (pp_simulate(d, PP_KEEP_SLACK, &runs[1], err, sizeof(err)) != PP_OK)
			keep(o, "pp_simulate", "1f1b", NULL, err);
	}
	for (int i = 0; runs[0] != NULL && runs[1] != NULL && i < 3; i++) {
		pp_run_report(runs[0], formats[i], &s, err, sizeof(err));
		keep(o, "pp_run_report", formats[i], s, err);
		pp_compare_report((const pp_run *const *)runs, NULL, 2, formats[i], &s, err,
		                  sizeof(err));
		keep(o, "pp_compare_report", formats[i], s, err);
	}
	if (runs[0] != NULL) {
		pp_run_ops_csv(runs[0], &s, err, sizeof(err));
		keep(o, "pp_run_ops_csv", "zbh1", s, err);
	}
	/* a model's run: milliseconds, bytes, throughput and MFU */
	if (model != NULL && pp_config_set(model, "model", "llama3-8b", err, sizeof(err)) == 0 &&
	    pp_config_set(model, "gpu", "h100-sxm", err, sizeof(err)) == 0 &&
	    pp_config_set(model, "p", "4", err, sizeof(err)) == 0 &&
	    pp_simulate(model, PP_KEEP_OP_TIMES, &mr, err, sizeof(err)) == PP_OK) {
		pp_run_report(mr, "json", &s, err, sizeof(err));
		keep(o, "pp_run_report", "json (a model)", s, err);
		pp_run_report(mr, "text", &s, err, sizeof(err));
		keep(o, "pp_run_report", "text (a model)", s, err);
	} else {
		keep(o, "model", "llama3-8b", NULL, err);
	}
	pp_list("text", &s, err, sizeof(err));
	keep(o, "pp_list", "text", s, err);
	if (c != NULL && pp_config_set(c, "stage_scale", "1,2e7", err, sizeof(err)) != 0)
		keep(o, "refused", "stage_scale", NULL, err);
	pp_run_free(mr);
	pp_run_free(runs[0]);
	pp_run_free(runs[1]);
	pp_config_free(model);
	pp_config_free(c);
	pp_config_free(d);
}

/* The makespans of a sweep's points, in order, and whether each was simulated. */
struct spans {
	double makespan[8];
	char reason[8][128]; /* "" when simulated */
	int n;
};

static int collect(void *ctx, const struct sweep_record *r)
{
	struct spans *s = ctx;

	if (s->n < 8) {
		s->makespan[s->n] = r->makespan;
		snprintf(s->reason[s->n], sizeof(s->reason[0]), "%.100s", r->ok ? "" : r->reason);
		s->n++;
	}
	return 0;
}

/* A sweep of t_f over four values with jobs threads (every point on a thread of its own when
 * jobs > 1); returns 0, or -1 when it could not run. */
static int sweep_on(int jobs, struct spans *s)
{
	struct sweep sw;
	struct pp_error e = {0};
	int rc;

	memset(s, 0, sizeof(*s));
	sweep_init(&sw, NULL);
	sw.parallel_work = 0;
	rc = sweep_set_axis(&sw, config_option_by_key("t_f"), "--tf", "1.5,2.25,0.5,3.75", &e);
	if (rc == 0)
		rc = sweep_run(&sw, 0, sweep_points(&sw), jobs, collect, s, &e);
	if (rc != 0)
		printf("sweep on %d threads: %s\n", jobs, e.msg);
	sweep_release(&sw);
	return rc;
}

int main(int argc, char **argv)
{
	struct outputs de = {0}, c = {0};
	struct spans one, two;
	locale_t cloc;
	char probe[16];
	int bad = 0;

	if (argc != 2 || setlocale(LC_ALL, argv[1]) == NULL) {
		printf("cannot set the locale '%s'\n", argc == 2 ? argv[1] : "");
		return 2;
	}
	snprintf(probe, sizeof(probe), "%.1f", 1.5);
	if (strcmp(probe, "1,5") != 0) {
		printf("the locale '%s' writes 1.5 as '%s', not with a decimal comma\n", argv[1],
		       probe);
		return 2;
	}
	facade(&de);
	snprintf(probe, sizeof(probe), "%.1f", 1.5);
	if (strcmp(probe, "1,5") != 0 || uselocale((locale_t)0) != LC_GLOBAL_LOCALE) {
		printf("the facade left this thread in another locale ('%s')\n", probe);
		bad++;
	}

	/* the same calls in the "C" locale */
	cloc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (cloc == (locale_t)0) {
		puts("newlocale: out of memory");
		return 2;
	}
	uselocale(cloc);
	facade(&c);
	for (int i = 0; i < c.n; i++) {
		const char *a = output(&de, c.what[i]);

		if (a == NULL || strcmp(a, c.text[i]) != 0)
			bad += differ(c.what[i], argv[1], a, c.text[i]);
		else if (strncmp(a, "error: ", 7) == 0 && strncmp(c.what[i], "refused", 7) != 0)
			printf("%s failed in the C locale too: %s\n", c.what[i], a), bad++;
	}
	for (int i = 0; i < de.n; i++)
		if (output(&c, de.what[i]) == NULL)
			bad += differ(de.what[i], argv[1], de.text[i], NULL);

	/* a sweep on 2 threads from this thread, in "C" while the process's locale is argv[1] */
	if (sweep_on(1, &one) != 0 || sweep_on(2, &two) != 0 || one.n != 4 || two.n != 4) {
		bad++;
	} else {
		for (int i = 0; i < 4; i++)
			if (two.reason[i][0] != '\0' || one.reason[i][0] != '\0' ||
			    two.makespan[i] != one.makespan[i]) {
				printf("sweep point %d on 2 threads: %s (makespan %g; in one "
				       "thread %g%s%s)\n",
				       i, two.reason[i][0] ? two.reason[i] : "simulated",
				       two.makespan[i], one.makespan[i],
				       one.reason[i][0] ? ": " : "", one.reason[i]);
				bad++;
			}
	}
	uselocale(LC_GLOBAL_LOCALE);
	freelocale(cloc);
	for (int i = 0; i < de.n; i++)
		free(de.text[i]);
	for (int i = 0; i < c.n; i++)
		free(c.text[i]);
	if (bad > 0)
		return 1;
	puts("ok");
	return 0;
}
