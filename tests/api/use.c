/*
 * A C program of every call of libppsim's interface, built against an installed copy with
 * `pkg-config --cflags --libs ppsim` (tests/cli/t_install.sh): `use ROOT` with ROOT the source
 * tree, for its config and schedule files. Checks what each call gives against what the
 * documents say (1F1B, p = 4, m = 8 takes 33; ZB-H1 keeps one op off the critical path; a
 * cyclic schedule file is a PP_E_SIM, a missing config a PP_E_FILE) and prints "ok", or each
 * failed check on a line of its own and exits 1.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ppsim/ppsim.h>

static int failed;

/* Notes a failed check when ok is false: what was checked, and err when it says something. */
static void check(int ok, const char *what, const char *err)
{
	if (!ok) {
		printf("failed: %s%s%s\n", what, err != NULL && err[0] ? ": " : "", err ? err : "");
		failed++;
	}
}

/* One op's record, as an array of records the columns of pp_ops fill with a stride. */
struct record {
	double start, end, slack;
	int32_t device, chunk, stage, microbatch;
	uint8_t kind, overlap;
};

static void training(const char *root)
{
	char err[512], path[1024];
	pp_config *c = pp_config_new(), *d;
	pp_run *r = NULL, *runs[3] = {NULL, NULL, NULL};
	const char *schedules[] = {"1f1b", "interleaved", "zbh1"};
	double x, busy[8];
	char *text = NULL;
	struct record *rec;
	pp_ops cols = {0}, *all = NULL;
	size_t n;

	check(c != NULL, "pp_config_new", NULL);
	check(pp_config_set(c, "schedule", "1f1b", err, sizeof(err)) == PP_OK &&
	              pp_config_set(c, "stages", "4", err, sizeof(err)) == PP_OK &&
	              pp_config_load_json(c, "{\"m\": 8}", "inline", err, sizeof(err)) == PP_OK,
	      "settings", err);
	/* a bad value names the key, not a command-line option */
	check(pp_config_set(c, "p", "0", err, sizeof(err)) == PP_E_INPUT &&
	              strstr(err, "key \"p\"") != NULL && strstr(err, "--") == NULL,
	      "a bad value is PP_E_INPUT naming its key", err);
	check(pp_config_set(c, "stagez", "1", err, sizeof(err)) == PP_E_INPUT,
	      "an unknown key is PP_E_INPUT", err);
	check(pp_config_load_file(c, "/nonexistent/ppsim.json", err, sizeof(err)) == PP_E_FILE,
	      "a missing config is PP_E_FILE", err);
	/* the figures alone */
	check(pp_simulate(c, 0, &r, err, sizeof(err)) == PP_OK, "pp_simulate", err);
	check(pp_run_figure(r, "makespan", &x, err, sizeof(err)) == PP_OK && x == 33,
	      "the makespan of 1f1b p=4 m=8 is 33", err);
	check(pp_run_figure(r, "critical_path.time", &x, err, sizeof(err)) == PP_OK && isnan(x),
	      "no critical path without op times", err);
	check(pp_run_figure(r, "makespam", &x, err, sizeof(err)) == PP_E_INPUT,
	      "an unknown figure is PP_E_INPUT", err);
	check(pp_run_devices(r) == 4 &&
	              pp_run_device_figure(r, "busy", busy, 8, err, sizeof(err)) == 4 &&
	              busy[0] == 24,
	      "each device is busy 24 of 33", err);
	check(pp_run_kept(r) == 0 && pp_run_op_count(r) == 64 && !pp_run_is_serving(r) &&
	              strcmp(pp_run_time_unit(r), "t") == 0,
	      "a run that kept nothing but its figures", NULL);
	cols.n = 1;
	cols.start = &x;
	check(pp_run_ops(r, 0, &cols, err, sizeof(err)) == PP_E_INPUT,
	      "no op times without PP_KEEP_OP_TIMES", err);
	pp_run_free(r);
	/* each op's times and slack, as an array of records and as library-owned columns */
	check(pp_config_set(c, "schedule", "zbh1", err, sizeof(err)) == PP_OK &&
	              pp_simulate(c, PP_KEEP_SLACK, &r, err, sizeof(err)) == PP_OK,
	      "pp_simulate with PP_KEEP_SLACK", err);
	n = pp_run_op_count(r);
	rec = calloc(n, sizeof(*rec));
	cols = (pp_ops){.n = n,
	                .stride = sizeof(*rec),
	                .start = &rec->start,
	                .end = &rec->end,
	                .slack = &rec->slack,
	                .device = &rec->device,
	                .chunk = &rec->chunk,
	                .stage = &rec->stage,
	                .microbatch = &rec->microbatch,
	                .kind = &rec->kind,
	                .overlap = &rec->overlap};
	check(rec != NULL && pp_run_ops(r, 0, &cols, err, sizeof(err)) == PP_OK,
	      "pp_run_ops into records", err);
	check(pp_run_ops_new(r, &all, err, sizeof(err)) == PP_OK && all->n == n, "pp_run_ops_new",
	      err);
	for (size_t i = 0; rec != NULL && all != NULL && i < n; i++)
		if (rec[i].end != all->end[i] || rec[i].device != all->device[i] ||
		    rec[i].kind != all->kind[i] || rec[i].slack != all->slack[i] ||
		    rec[i].start > rec[i].end)
			check(0, "records and columns agree", NULL);
	check(rec != NULL && rec[n - 1].device == 3 &&
	              strcmp(pp_op_kind_name(rec[0].kind), "F") == 0,
	      "the ops in device order", NULL);
	pp_ops_free(all);
	free(rec);
	check(pp_run_ops_csv(r, &text, err, sizeof(err)) == PP_OK &&
	              strncmp(text, "device,chunk,stage,op,microbatch,start,end,slack\n", 49) == 0,
	      "pp_run_ops_csv", err);
	pp_string_free(text);
	check(pp_run_report(r, "json", &text, err, sizeof(err)) == PP_OK &&
	              strstr(text, "\"critical_path\":") != NULL,
	      "pp_run_report json", err);
	pp_string_free(text);
	check(pp_run_report(r, "yaml", &text, err, sizeof(err)) == PP_E_INPUT && text == NULL,
	      "an unknown format", err);
	pp_run_free(r);
	/* schedules side by side, each with the chunks it takes nearest to v = 2 */
	d = pp_config_copy(c);
	check(d != NULL && pp_config_set(d, "v", "2", err, sizeof(err)) == PP_OK &&
	              pp_simulate_schedules(d, schedules, 3, 0, runs, err, sizeof(err)) == PP_OK,
	      "pp_simulate_schedules with v = 2", err);
	check(pp_compare_report((const pp_run *const *)runs, schedules, 3, "csv", &text, err,
	                        sizeof(err)) == PP_OK &&
	              strstr(text, "\ninterleaved,") != NULL,
	      "pp_compare_report", err);
	pp_string_free(text);
	for (int i = 0; i < 3; i++)
		pp_run_free(runs[i]);
	pp_config_free(d);
	/* a schedule file that deadlocks */
	snprintf(path, sizeof(path), "%s/tests/cli/schedules/cyclic.csv", root);
	d = pp_config_new();
	check(pp_config_set(d, "schedule_file", path, err, sizeof(err)) == PP_OK &&
	              pp_simulate(d, 0, &r, err, sizeof(err)) == PP_E_SIM && r == NULL,
	      "a cyclic schedule is PP_E_SIM", err);
	pp_config_free(d);
	pp_config_free(c);
}

static void serving(void)
{
	char err[512];
	pp_config *c = pp_config_new(), *model = pp_config_new();
	pp_run *r[2] = {NULL, NULL};
	double x;
	char *text = NULL;

	check(pp_config_set(c, "num_requests", "20", err, sizeof(err)) == PP_OK &&
	              pp_serve(c, 0, &r[0], err, sizeof(err)) == PP_OK && pp_run_is_serving(r[0]),
	      "pp_serve", err);
	check(pp_run_figure(r[0], "ttft.p50", &x, err, sizeof(err)) == PP_OK && x > 0,
	      "a serving run's time to first token", err);
	check(pp_run_kept(r[0]) == 1, "a serving run keeps its op times", NULL);
	check(pp_config_load_json(model,
	                          "{\"model\": \"llama3-8b\", \"p\": 2, \"num_requests\": 10}",
	                          NULL, err, sizeof(err)) == PP_OK &&
	              pp_serve(model, 0, &r[1], err, sizeof(err)) == PP_OK &&
	              strcmp(pp_run_time_unit(r[1]), "ms") == 0,
	      "pp_serve of a model", err);
	check(pp_compare_report((const pp_run *const *)r, NULL, 2, "text", &text, err,
	                        sizeof(err)) == PP_E_INPUT,
	      "serving runs in two time units are not compared", err);
	pp_run_free(r[1]);
	check(pp_run_report(r[0], "csv", &text, err, sizeof(err)) == PP_OK, "a serving report",
	      err);
	pp_string_free(text);
	check(pp_config_set(c, "m", "4", err, sizeof(err)) == PP_OK &&
	              pp_serve(c, 0, &r[1], err, sizeof(err)) == PP_E_INPUT &&
	              strstr(err, "not for pp_serve") != NULL,
	      "a training setting is refused by pp_serve", err);
	pp_run_free(r[0]);
	pp_config_free(c);
	pp_config_free(model);
}

/* A sweep as data: 1F1B and GPipe at p = 2, 4 and m = 8 (1F1B at p = 4 takes 33, as the run),
 * ranked by utilization (p = 2 before p = 4, and 1F1B's tie with GPipe kept in point order);
 * a point that cannot run is skipped with its reason; a bad list is an error by its key. */
static void sweeping(void)
{
	char err[512];
	pp_config *c = pp_config_new();
	pp_sweep *s = NULL;
	const char *keys[] = {"schedule", "p", "m"}, *values[] = {"1f1b,gpipe", "2,4", "8"};
	const char *bad[] = {"0"};
	double x = 0, y = 0;
	int names = 0;

	check(pp_sweep_run(c, keys, values, 3, 2, 0, &s, err, sizeof(err)) == PP_OK &&
	              pp_sweep_points(s) == 4 && pp_sweep_axes(s) == 3 &&
	              strcmp(pp_sweep_axis_key(s, 1), "p") == 0 && pp_sweep_axis_key(s, 3) == NULL,
	      "pp_sweep_run", err);
	check(strcmp(pp_sweep_value(s, 1, 0), "1f1b") == 0 &&
	              strcmp(pp_sweep_value(s, 1, 1), "4") == 0 &&
	              strcmp(pp_sweep_value(s, 2, 0), "gpipe") == 0 &&
	              pp_sweep_value(s, 4, 0) == NULL && pp_sweep_value(s, 0, 3) == NULL,
	      "a sweep's points, the last axis fastest", NULL);
	check(pp_sweep_figure(s, 1, "makespan", &x, err, sizeof(err)) == PP_OK && x == 33 &&
	              pp_sweep_figure(s, 1, "p", &y, err, sizeof(err)) == PP_OK && y == 4 &&
	              strcmp(pp_sweep_time_unit(s, 1), "t") == 0 && pp_sweep_skipped(s, 1) == NULL,
	      "a sweep point's figures", err);
	check(pp_sweep_figure(s, 1, "tokens_per_s", &x, err, sizeof(err)) == PP_OK && isnan(x),
	      "a model's figure without a model is NaN", err);
	check(pp_sweep_figure(s, 1, "no such", &x, err, sizeof(err)) == PP_E_INPUT &&
	              strstr(err, "pp_sweep_figure_name") != NULL &&
	              pp_sweep_figure(s, 4, "p", &x, err, sizeof(err)) == PP_E_INPUT,
	      "an unknown sweep figure, a point past the sweep", err);
	for (int i = 0; pp_sweep_figure_name(i) != NULL; i++)
		names++;
	check(names > 20, "the names of sweep figures", NULL);
	check(pp_sweep_ranked(s, 0) == 0 && pp_sweep_ranked(s, 1) == 2 &&
	              pp_sweep_ranked(s, 3) == 3 && pp_sweep_ranked(s, 4) == (size_t)-1,
	      "a sweep's ranking", NULL);
	pp_sweep_free(s);
	/* DualPipe takes an even p: p = 3 is skipped, not an error, named by its key */
	values[0] = "dualpipe";
	values[1] = "2,3";
	values[2] = "4";
	check(pp_config_set(c, "v", "2", err, sizeof(err)) == PP_OK &&
	              pp_sweep_run(c, keys, values, 3, 1, 0, &s, err, sizeof(err)) == PP_OK &&
	              pp_sweep_skipped(s, 0) == NULL && pp_sweep_skipped(s, 1) != NULL &&
	              strstr(pp_sweep_skipped(s, 1), "key \"p\" = 3: dualpipe needs an even p") != NULL &&
	              pp_sweep_time_unit(s, 1) == NULL &&
	              pp_sweep_figure(s, 1, "makespan", &x, err, sizeof(err)) == PP_OK &&
	              isnan(x) && pp_sweep_ranked(s, 1) == 1,
	      "a point that cannot run is skipped with its reason", err);
	pp_sweep_free(s);
	check(pp_sweep_run(c, keys + 1, bad, 1, 1, 0, &s, err, sizeof(err)) == PP_E_INPUT &&
	              s == NULL && strstr(err, "key \"p\"") != NULL,
	      "a bad sweep list is named by its key", err);
	{
		const char *twice[] = {"p", "stages"}, *lists[] = {"2,4", "8,16"};

		check(pp_sweep_run(c, twice, lists, 2, 1, 0, &s, err, sizeof(err)) == PP_E_INPUT &&
		              s == NULL && strstr(err, "set one setting, key \"p\"") != NULL,
		      "two axes of one setting (its key and its option's name) are refused", err);
	}
	check(pp_config_key("stages") != NULL && strcmp(pp_config_key("stages"), "p") == 0 &&
	              strcmp(pp_config_key("mem-limit"), "mem_limit") == 0 &&
	              strcmp(pp_config_key("t_f"), "t_f") == 0 && pp_config_key("stagez") == NULL &&
	              pp_config_key(NULL) == NULL,
	      "pp_config_key gives the key a name sets", NULL);
	check(pp_sweep_run(c, NULL, NULL, 0, 1, 0, &s, err, sizeof(err)) == PP_OK &&
	              pp_sweep_points(s) == 1,
	      "a sweep without axes is its config", err);
	pp_sweep_free(s);
	check(pp_advise(c, 1, &s, err, sizeof(err)) == PP_E_INPUT && s == NULL &&
	              strstr(err, "model") != NULL,
	      "pp_advise needs a model", err);
	pp_config_free(c);
	/* the recommendation: the most tokens/s of the points that fit, among thousands */
	c = pp_config_new();
	check(pp_config_load_json(c, "{\"model\": \"llama3-8b\", \"gpus\": 8, \"global_batch\": 16}",
	                          NULL, err, sizeof(err)) == PP_OK &&
	              pp_advise(c, 2, &s, err, sizeof(err)) == PP_OK && pp_sweep_points(s) > 1000,
	      "pp_advise", err);
	if (s != NULL) {
		size_t best = pp_sweep_ranked(s, 0);
		double most = 0, fits = 0;

		for (size_t i = 0; i < pp_sweep_points(s); i++) {
			double t = 0, f = 0;

			pp_sweep_figure(s, i, "tokens_per_s", &t, err, sizeof(err));
			pp_sweep_figure(s, i, "fits", &f, err, sizeof(err));
			if (f == 1 && t > most)
				most = t;
		}
		pp_sweep_figure(s, best, "fits", &fits, err, sizeof(err));
		check(pp_sweep_figure(s, best, "tokens_per_s", &x, err, sizeof(err)) == PP_OK &&
		              x == most && fits == 1 && strcmp(pp_sweep_time_unit(s, best), "ms") == 0,
		      "pp_advise recommends the most tokens/s that fit", err);
	}
	pp_sweep_free(s);
	pp_sweep_free(NULL);
	pp_config_free(c);
}

/* Measured op times as a config: the Zero Bubble paper's 1.5B model (docs/examples), fitted
 * with its times, simulated as ZB-H1; a measured step replayed; a missing file a PP_E_FILE. */
static void calibrating(const char *root)
{
	char err[512], path[1024];
	pp_config *c = NULL;
	pp_run *r = NULL;
	double gap = -1, x = 0;

	snprintf(path, sizeof(path), "%s/docs/examples/measured-zb-1.5b.csv", root);
	check(pp_calibrate(path, 24, -1, &c, &gap, err, sizeof(err)) == PP_OK && gap >= 0 &&
	              gap < 0.01,
	      "pp_calibrate", err);
	{
		char *json = NULL;

		check(pp_config_json(c, &json, err, sizeof(err)) == PP_OK &&
		              strstr(json, "\"t_f\": ") != NULL,
		      "pp_config_json of the calibrated config", err);
		pp_string_free(json);
	}
	check(pp_config_set(c, "schedule", "zbh1", err, sizeof(err)) == PP_OK &&
	              pp_simulate(c, 0, &r, err, sizeof(err)) == PP_OK &&
	              pp_run_figure(r, "p", &x, err, sizeof(err)) == PP_OK && x == 8 &&
	              strcmp(pp_run_time_unit(r), "t") == 0,
	      "the calibrated config runs", err);
	pp_run_free(r);
	pp_config_free(c);
	snprintf(path, sizeof(path), "%s/docs/examples/no-such.csv", root);
	check(pp_calibrate(path, 0, -1, &c, NULL, err, sizeof(err)) == PP_E_FILE && c == NULL,
	      "pp_calibrate of a missing file", err);
	check(pp_calibrate(NULL, 0, -1, &c, NULL, err, sizeof(err)) == PP_E_INPUT &&
	              strstr(err, "'path' is NULL") != NULL,
	      "pp_calibrate refuses a NULL path", err);
	/* the measured step of docs/examples replayed: 39.7 ms, as `ppsim replay` says */
	c = pp_config_new();
	snprintf(path, sizeof(path), "%s/docs/examples/step-trace.json", root);
	{
		const char *paths[] = {path};

		check(pp_replay(c, paths, 1, PP_KEEP_OP_TIMES, &r, err, sizeof(err)) == PP_OK &&
		              pp_run_figure(r, "makespan", &x, err, sizeof(err)) == PP_OK &&
		              x > 39.7 - 1e-9 && x < 39.7 + 1e-9 &&
		              strcmp(pp_run_time_unit(r), "ms") == 0 &&
		              pp_run_op_count(r) == 64 && pp_run_kept(r) == 1,
		      "pp_replay", err);
		pp_run_free(r);
		snprintf(path, sizeof(path), "%s/docs/examples/no-such.json", root);
		check(pp_replay(c, paths, 1, 0, &r, err, sizeof(err)) == PP_E_FILE && r == NULL,
		      "pp_replay of a missing file", err);
		check(pp_replay(c, paths, 0, 0, &r, err, sizeof(err)) == PP_E_INPUT,
		      "pp_replay of no file", err);
		{ /* a what-if: without the slowest device, then 16 micro-batches */
			static const char *const keys[] = {"without_slowest", "m"},
			                         *values[] = {"true", "16"};
			double step = 0;

			snprintf(path, sizeof(path), "%s/docs/examples/step-trace.json", root);
			check(pp_replay_whatif(c, paths, 1, keys, values, 2, 0, &r, err,
			                       sizeof(err)) == PP_OK &&
			              pp_run_figure(r, "replay.what_if.step", &step, err,
			                            sizeof(err)) == PP_OK &&
			              pp_run_figure(r, "makespan", &x, err, sizeof(err)) == PP_OK &&
			              x == step &&
			              pp_run_figure(r, "m", &x, err, sizeof(err)) == PP_OK && x == 16 &&
			              pp_replay_whatif_key(0) != NULL,
			      "pp_replay_whatif", err);
			pp_run_free(r);
			snprintf(path, sizeof(path), "%s/docs/examples/no-such.json", root);
		}
		check(pp_config_set(c, "p", "8", err, sizeof(err)) == PP_OK &&
		              pp_replay(c, paths, 1, 0, &r, err, sizeof(err)) == PP_E_INPUT &&
		              strstr(err, "not for pp_replay") != NULL,
		      "pp_replay refuses a setting of the step's shape", err);
	}
	pp_config_free(c);
}

int main(int argc, char **argv)
{
	int major = -1, count = 0;
	char err[256], *text = NULL;

	if (argc != 2) {
		fputs("usage: use ROOT\n", stderr);
		return 2;
	}
	check(pp_abi_version() == PP_ABI_VERSION, "the library's ABI is the header's", NULL);
	check(strcmp(pp_version(&major, NULL, NULL), PP_VERSION) == 0 && major == PP_VERSION_MAJOR,
	      "the library's version is the header's", NULL);
	for (int i = 0; pp_figure_name(i) != NULL; i++)
		count++;
	for (int i = 0; pp_device_figure_name(i) != NULL; i++)
		count++;
	check(count > 50 && pp_op_kind_name(4) == NULL, "the names of figures and kinds", NULL);
	check(pp_list("json", &text, err, sizeof(err)) == PP_OK && text[0] == '{', "pp_list", err);
	pp_string_free(text);
	check(pp_simulate(NULL, 0, NULL, err, sizeof(err)) == PP_E_INPUT &&
	              strcmp(err, "pp_simulate: argument 'c' is NULL") == 0,
	      "NULL is an error, not a crash", err);
	pp_run_free(NULL);
	pp_config_free(NULL);
	pp_ops_free(NULL);
	pp_string_free(NULL);
	training(argv[1]);
	serving();
	sweeping();
	calibrating(argv[1]);
	if (failed)
		return 1;
	puts("ok");
	return 0;
}
