/*
 * Unit tests of the facade of libppsim.so (include/ppsim/ppsim.h): settings by key or long
 * name, JSON configs, a run's reports and ops as strings, its figures, devices and ops as data,
 * compare, serving, and errors as statuses and messages in a library user's words.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "ppsim/ppsim.h"
#include "unit.h"

/* A config with schedule, p and m set; asserts (fatally) that setting them succeeds. */
static pp_config *config_of(const char *schedule, const char *p, const char *m)
{
	char err[256] = "";
	pp_config *c = pp_config_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(pp_config_set(c, "schedule", schedule, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(pp_config_set(c, "p", p, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(pp_config_set(c, "m", m, err, sizeof(err)), 0);
	return c;
}

/* The run of c keeping flags; asserts (fatally) that it succeeds. */
static pp_run *simulate_keeping(const pp_config *c, unsigned flags)
{
	char err[256] = "";
	pp_run *r = NULL;

	if (pp_simulate(c, flags, &r, err, sizeof(err)) != PP_OK)
		fprintf(stderr, "pp_simulate: %s\n", err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

/* The run of c with its op times and slacks, as the command's op dump takes it. */
static pp_run *simulate(const pp_config *c)
{
	return simulate_keeping(c, PP_KEEP_SLACK);
}

/* The string call made, returning status into *text: the string, or NULL when status is not
 * PP_OK (asserted NULL then). */
static char *text_of(int status, char *text)
{
	if (status != PP_OK)
		CU_ASSERT_PTR_NULL(text);
	return status == PP_OK ? text : NULL;
}

/* The report of r in format, or NULL. */
static char *report(const pp_run *r, const char *format, char *err, size_t errlen)
{
	char *text = NULL;
	int status = pp_run_report(r, format, &text, err, errlen);

	return text_of(status, text);
}

static void api_1f1b_p4_m8_reports_a_makespan_of_33_in_json(void)
{
	pp_config *c = config_of("1f1b", "4", "8");
	pp_run *r = simulate(c);
	char *json = report(r, NULL, NULL, 0);

	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	CU_ASSERT_EQUAL(
	        strncmp(json, "{\n\t\"schema_version\":\t1,\n\t\"schedule\":\t\"1f1b\",", 44), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"makespan\":\t33,"));
	pp_string_free(json);
	pp_run_free(r);
	pp_config_free(c);
}

static void api_a_run_keeps_its_settings_after_its_config_is_freed(void)
{
	pp_config *c = config_of("gpipe", "4", "4");
	pp_run *r = simulate(c);
	char *text;

	pp_config_free(c);
	text = report(r, "text", NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "gpipe (p=4, v=1, m=4)"));
	pp_string_free(text);
	pp_run_free(r);
}

static void api_ops_csv_has_the_dump_ops_header_and_a_row_per_op(void)
{
	pp_config *c = config_of("1f1b", "4", "8");
	pp_run *r = simulate(c);
	char *csv = NULL;
	int rows = 0;

	CU_ASSERT_EQUAL(pp_run_ops_csv(r, &csv, NULL, 0), PP_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(csv);
	CU_ASSERT_EQUAL(strncmp(csv, "device,chunk,stage,op,microbatch,start,end,slack\n", 49), 0);
	for (const char *s = csv; *s != '\0'; s++)
		rows += *s == '\n';
	CU_ASSERT_EQUAL(rows, 1 + 4 * 8 * 2);
	pp_string_free(csv);
	pp_run_free(r);
	pp_config_free(c);
}

static void api_set_takes_config_keys_long_names_and_underscores_for_dashes(void)
{
	char err[256] = "";
	pp_config *c = pp_config_new();

	CU_ASSERT_EQUAL(pp_config_set(c, "stages", "8", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pp_config_set(c, "microbatches", "16", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pp_config_set(c, "schedule", "zb-auto", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pp_config_set(c, "mem_limit", "2", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pp_config_set(c, "mem-limit", "2", err, sizeof(err)), 0);
	pp_run_free(simulate(c));
	pp_config_free(c);
}

static void api_bad_keys_and_values_are_messages_naming_them(void)
{
	char err[256] = "";
	pp_config *c = pp_config_new();

	CU_ASSERT_EQUAL(pp_config_set(c, "stagez", "4", err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "unknown key \"stagez\"");
	CU_ASSERT_EQUAL(pp_config_set(c, "p", "0", err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_EQUAL(strncmp(err, "key \"p\" '0': ", 13), 0);
	/* a long option name is the key it sets */
	CU_ASSERT_EQUAL(pp_config_set(c, "stages", "0", err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_EQUAL(strncmp(err, "key \"p\" '0': ", 13), 0);
	CU_ASSERT_EQUAL(pp_config_set(c, "p", NULL, err, sizeof(err)), PP_E_INPUT);
	/* no buffer, or one too small for the message, is not an error of its own */
	CU_ASSERT_EQUAL(pp_config_set(c, "p", "x", NULL, 0), PP_E_INPUT);
	CU_ASSERT_EQUAL(pp_config_set(c, "p", "x", err, 5), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "key ");
	pp_config_free(c);
}

static void api_json_configs_are_checked_as_config_files_are(void)
{
	char err[256] = "";
	pp_config *c = pp_config_new();
	pp_run *r;
	char *json;

	CU_ASSERT_EQUAL(pp_config_load_json(c, "{\"p\": 2, \"m\": 4}", "inline", err, sizeof(err)),
	                0);
	r = simulate(c);
	json = report(r, "json", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"p\":\t2,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"makespan\":\t15,"));
	pp_string_free(json);
	pp_run_free(r);
	CU_ASSERT_EQUAL(pp_config_load_json(c, "{\n  \"stagez\": 2}", "inline", err, sizeof(err)),
	                PP_E_INPUT);
	CU_ASSERT_EQUAL(strncmp(err, "config 'inline':2:3: ", 21), 0);
	CU_ASSERT_EQUAL(pp_config_load_json(c, NULL, NULL, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_EQUAL(pp_config_load_file(c, "/nonexistent/ppsim.json", err, sizeof(err)),
	                PP_E_FILE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/ppsim.json"));
	CU_ASSERT_EQUAL(pp_config_load_file(c, NULL, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_config_load_file: argument 'path' is NULL");
	/* a document refused part way applies none of it: p stays 2 */
	CU_ASSERT_EQUAL(
	        pp_config_load_json(c, "{\"p\": 3, \"m\": \"x\"}", "inline", err, sizeof(err)),
	        PP_E_INPUT);
	r = simulate(c);
	json = report(r, "json", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"p\":\t2,"));
	pp_string_free(json);
	pp_run_free(r);
	pp_config_free(c);
}

static void api_simulate_refuses_what_ppsim_run_refuses(void)
{
	char err[256] = "";
	pp_config *c = config_of("zbv", "4", "8");
	pp_run *r = NULL;

	CU_ASSERT_EQUAL(pp_config_set(c, "v", "3", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pp_simulate(c, 0, &r, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_STRING_EQUAL(err, "key \"v\" = 3: schedule 'zbv' needs v=2");
	/* a setting only serving takes, named by its key with the call that runs it */
	CU_ASSERT_EQUAL(pp_config_set(c, "v", "2", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pp_config_set(c, "rate", "5", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pp_simulate(c, 0, &r, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "key \"rate\" = 5: a serving option: use pp_serve");
	/* flags it does not know */
	pp_config_free(c);
	c = config_of("zbv", "4", "8");
	CU_ASSERT_EQUAL(pp_simulate(c, 8, &r, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_simulate: flags 0x8: not PP_KEEP_* bits");
	pp_config_free(c);
}

static void api_an_unknown_format_names_the_formats_of_a_run(void)
{
	char err[256] = "";
	pp_config *c = config_of("1f1b", "4", "8");
	pp_run *r = simulate(c);

	CU_ASSERT_PTR_NULL(report(r, "jsonl", err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "format 'jsonl': not one of text, json, csv");
	pp_run_free(r);
	pp_config_free(c);
}

static void api_compare_writes_runs_side_by_side(void)
{
	pp_config *c = config_of("1f1b", "4", "8");
	pp_config *z = pp_config_copy(c);
	const pp_run *runs[2];
	const char *labels[2] = {"a", NULL};
	char err[256] = "";
	char *json = NULL, *text = NULL, *none = NULL;

	CU_ASSERT_EQUAL_FATAL(pp_config_set(z, "schedule", "zbh1", err, sizeof(err)), 0);
	runs[0] = simulate(c);
	runs[1] = simulate(z);
	CU_ASSERT_EQUAL(pp_compare_report(runs, labels, 2, NULL, &json, err, sizeof(err)), PP_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	CU_ASSERT_EQUAL(json[0], '[');
	CU_ASSERT_PTR_NOT_NULL(strstr(strstr(json, "\"1f1b\""), "\"zbh1\""));
	CU_ASSERT_EQUAL(pp_compare_report(runs, NULL, 2, "text", &text, err, sizeof(err)), PP_OK);
	CU_ASSERT_PTR_NOT_NULL(text);
	CU_ASSERT_EQUAL(pp_compare_report(runs, NULL, 0, "json", &none, err, sizeof(err)),
	                PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_compare_report: no runs (n = 0)");
	pp_string_free(json);
	pp_string_free(text);
	pp_run_free((pp_run *)runs[0]);
	pp_run_free((pp_run *)runs[1]);
	pp_config_free(c);
	pp_config_free(z);
}

static void api_list_is_the_tables_of_ppsim_list(void)
{
	char err[256] = "";
	char *json = NULL;

	CU_ASSERT_EQUAL(pp_list(NULL, &json, err, sizeof(err)), PP_OK);
	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	CU_ASSERT_EQUAL(strncmp(json, "{\n\t\"schema_version\":\t1,\n\t\"schedules\":\t[", 39), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"name\":\t\"zbv-auto\""));
	pp_string_free(json);
	CU_ASSERT_EQUAL(pp_list("csv", &json, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_PTR_NULL(json);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "format 'csv'"));
}

static void api_version_is_the_headers_numbers(void)
{
	int major = -1, minor = -1, patch = -1;
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", PP_VERSION_MAJOR, PP_VERSION_MINOR,
	         PP_VERSION_PATCH);
	CU_ASSERT_STRING_EQUAL(pp_version(&major, &minor, &patch), want);
	CU_ASSERT_STRING_EQUAL(PP_VERSION, want);
	CU_ASSERT_EQUAL(major * 10000 + minor * 100 + patch,
	                PP_VERSION_MAJOR * 10000 + PP_VERSION_MINOR * 100 + PP_VERSION_PATCH);
	CU_ASSERT_PTR_NOT_NULL(pp_version(NULL, NULL, NULL));
	CU_ASSERT_EQUAL(pp_abi_version(), PP_ABI_VERSION);
	/* the free functions take NULL, and the questions without err a NULL run */
	pp_config_free(NULL);
	pp_run_free(NULL);
	pp_ops_free(NULL);
	pp_string_free(NULL);
	CU_ASSERT_EQUAL(pp_run_is_serving(NULL), 0);
	CU_ASSERT_PTR_NULL(pp_run_time_unit(NULL));
	CU_ASSERT_EQUAL(pp_run_devices(NULL), 0);
	CU_ASSERT_EQUAL(pp_run_op_count(NULL), 0);
	CU_ASSERT_EQUAL(pp_run_kept(NULL), 0);
}

/* The facade's calls that take pointers, for the table of NULL arguments below. */
enum api_call {
	CALL_VERSION,
	CALL_CONFIG_FREE,
	CALL_CONFIG_COPY,
	CALL_CONFIG_SET,
	CALL_LOAD_JSON,
	CALL_LOAD_FILE,
	CALL_SIMULATE,
	CALL_SIMULATE_SCHEDULES,
	CALL_SERVE,
	CALL_RUN_FREE,
	CALL_FIGURE,
	CALL_DEVICE_FIGURE,
	CALL_OPS,
	CALL_OPS_NEW,
	CALL_OPS_FREE,
	CALL_RUN_REPORT,
	CALL_OPS_CSV,
	CALL_COMPARE,
	CALL_LIST,
	CALL_STRING_FREE,
	CALL_CONFIG_JSON,
	CALL_REPLAY_WHATIF,
};

/* The positions of the pointers inside arrays: runs[1] and labels[1] of pp_compare_report,
 * schedules[1] of pp_simulate_schedules. */
#define RUNS_1      10
#define LABELS_1    11
#define SCHEDULES_1 12

/* What the arguments of the calls are when not NULL. */
struct api_args {
	pp_config *c;  /* 1f1b, p = 4, m = 8 */
	pp_config *sv; /* a serving config */
	pp_run *r;     /* c's run, with its op times and slacks */
	char path[64]; /* a config file: {"m": 4} */
	char step[64]; /* a measured step: 1F1B on two devices, one micro-batch */
	int version[3];
	double value, column[8], start[4];
};

/*
 * Makes call with a's arguments but NULL at position pos (0 for the first argument; RUNS_1,
 * LABELS_1, SCHEDULES_1; -1 for none), err the message buffer of errlen bytes; frees what it
 * makes. Returns true when the call returned its error (a status other than PP_OK, NULL for
 * pp_config_copy and pp_version); the free functions return false.
 */
static bool call_with_null(enum api_call call, int pos, struct api_args *a, char *err,
                           size_t errlen)
{
#define ARG(i, v) (pos == (i) ? NULL : (v))
	const pp_run *runs[2] = {a->r, ARG(RUNS_1, a->r)};
	const char *labels[2] = {"a", ARG(LABELS_1, "b")};
	const char *schedules[2] = {"1f1b", ARG(SCHEDULES_1, "zbh1")};
	pp_run *made[2] = {NULL, NULL}, *run = NULL;
	pp_ops cols = {.n = 4, .start = a->start}, *ops = NULL;
	char *text = NULL;
	pp_config *copy;
	int status = PP_OK;

	switch (call) {
	case CALL_VERSION:
		return pp_version(ARG(0, &a->version[0]), ARG(1, &a->version[1]),
		                  ARG(2, &a->version[2])) == NULL;
	case CALL_CONFIG_FREE:
		pp_config_free(ARG(0, pp_config_new()));
		return false;
	case CALL_CONFIG_COPY:
		copy = pp_config_copy(ARG(0, a->c));
		pp_config_free(copy);
		return copy == NULL;
	case CALL_CONFIG_SET:
		return pp_config_set(ARG(0, a->c), ARG(1, "m"), ARG(2, "8"), ARG(3, err), errlen) !=
		       PP_OK;
	case CALL_LOAD_JSON:
		return pp_config_load_json(ARG(0, a->c), ARG(1, "{\"m\": 8}"), ARG(2, "inline"),
		                           ARG(3, err), errlen) != PP_OK;
	case CALL_LOAD_FILE:
		return pp_config_load_file(ARG(0, a->c), ARG(1, a->path), ARG(2, err), errlen) !=
		       PP_OK;
	case CALL_SIMULATE:
		status = pp_simulate(ARG(0, a->c), 0, ARG(1, &run), ARG(2, err), errlen);
		CU_ASSERT_EQUAL(status == PP_OK, run != NULL);
		pp_run_free(run);
		return status != PP_OK;
	case CALL_SIMULATE_SCHEDULES:
		status = pp_simulate_schedules(ARG(0, a->c), ARG(1, schedules), 2, 0, ARG(2, made),
		                               ARG(3, err), errlen);
		CU_ASSERT_EQUAL(status == PP_OK, made[0] != NULL && made[1] != NULL);
		pp_run_free(made[0]);
		pp_run_free(made[1]);
		return status != PP_OK;
	case CALL_SERVE:
		status = pp_serve(ARG(0, a->sv), 0, ARG(1, &run), ARG(2, err), errlen);
		CU_ASSERT_EQUAL(status == PP_OK, run != NULL);
		pp_run_free(run);
		return status != PP_OK;
	case CALL_RUN_FREE:
		if (pos == 0)
			pp_run_free(NULL);
		else if (pp_simulate(a->c, 0, &run, NULL, 0) == PP_OK)
			pp_run_free(run);
		return false;
	case CALL_FIGURE:
		return pp_run_figure(ARG(0, a->r), ARG(1, "makespan"), ARG(2, &a->value),
		                     ARG(3, err), errlen) != PP_OK;
	case CALL_DEVICE_FIGURE:
		return pp_run_device_figure(ARG(0, a->r), ARG(1, "busy"), ARG(2, a->column), 8,
		                            ARG(3, err), errlen) < 0;
	case CALL_OPS:
		return pp_run_ops(ARG(0, a->r), 0, ARG(1, &cols), ARG(2, err), errlen) != PP_OK;
	case CALL_OPS_NEW:
		status = pp_run_ops_new(ARG(0, a->r), ARG(1, &ops), ARG(2, err), errlen);
		CU_ASSERT_EQUAL(status == PP_OK, ops != NULL);
		pp_ops_free(ops);
		return status != PP_OK;
	case CALL_OPS_FREE:
		if (pos == 0)
			pp_ops_free(NULL);
		else if (pp_run_ops_new(a->r, &ops, NULL, 0) == PP_OK)
			pp_ops_free(ops);
		return false;
	case CALL_RUN_REPORT:
		status = pp_run_report(ARG(0, a->r), ARG(1, "text"), ARG(2, &text), ARG(3, err),
		                       errlen);
		break;
	case CALL_OPS_CSV:
		status = pp_run_ops_csv(ARG(0, a->r), ARG(1, &text), ARG(2, err), errlen);
		break;
	case CALL_COMPARE:
		status = pp_compare_report(ARG(0, runs), ARG(1, labels), 2, ARG(3, "csv"),
		                           ARG(4, &text), ARG(5, err), errlen);
		break;
	case CALL_LIST:
		status = pp_list(ARG(0, "text"), ARG(1, &text), ARG(2, err), errlen);
		break;
	case CALL_STRING_FREE:
		if (pos != 0)
			pp_list(NULL, &text, NULL, 0);
		pp_string_free(text);
		return false;
	case CALL_CONFIG_JSON:
		status = pp_config_json(ARG(0, a->c), ARG(1, &text), ARG(2, err), errlen);
		break;
	case CALL_REPLAY_WHATIF: {
		const char *paths[] = {a->step}, *keys[] = {"without_slowest"}, *values[] = {"yes"};
		/* the replay's config sets none of the what-if's shape */
		pp_config *plain = pp_config_new();

		status = pp_replay_whatif(ARG(0, plain), ARG(1, paths), 1, ARG(2, keys),
		                          ARG(3, values), 1, 0, ARG(4, &run), ARG(5, err), errlen);
		CU_ASSERT_EQUAL(status == PP_OK, run != NULL);
		pp_run_free(run);
		pp_config_free(plain);
		return status != PP_OK;
	}
	}
#undef ARG
	CU_ASSERT_EQUAL(status == PP_OK, text != NULL);
	pp_string_free(text);
	return status != PP_OK;
}

/* What a call does with NULL in one of its pointer positions. */
enum null_outcome {
	NULL_ACCEPTED, /* what it does with the pointer given: a default, no buffer, a free's no-op
	                */
	NULL_REFUSED,  /* PP_E_INPUT, and in err "CALL: argument 'ARG' is NULL" */
	NULL_NO_ERR,   /* its error value: a call without err (pp_config_copy) */
};

/* A NULL in one pointer position of one call, and what the call does with it. */
struct null_case {
	enum api_call call;
	int pos;         /* the position made NULL (call_with_null) */
	const char *fn;  /* the call's name */
	const char *arg; /* the argument's */
	enum null_outcome outcome;
};

/* Every pointer position of every call of ppsim.h that takes one. */
static const struct null_case null_cases[] = {
        {CALL_VERSION, 0, "pp_version", "major", NULL_ACCEPTED},
        {CALL_VERSION, 1, "pp_version", "minor", NULL_ACCEPTED},
        {CALL_VERSION, 2, "pp_version", "patch", NULL_ACCEPTED},
        {CALL_CONFIG_FREE, 0, "pp_config_free", "c", NULL_ACCEPTED},
        {CALL_CONFIG_COPY, 0, "pp_config_copy", "c", NULL_NO_ERR},
        {CALL_CONFIG_SET, 0, "pp_config_set", "c", NULL_REFUSED},
        {CALL_CONFIG_SET, 1, "pp_config_set", "key", NULL_REFUSED},
        {CALL_CONFIG_SET, 2, "pp_config_set", "value", NULL_REFUSED},
        {CALL_CONFIG_SET, 3, "pp_config_set", "err", NULL_ACCEPTED},
        {CALL_LOAD_JSON, 0, "pp_config_load_json", "c", NULL_REFUSED},
        {CALL_LOAD_JSON, 1, "pp_config_load_json", "json_text", NULL_REFUSED},
        {CALL_LOAD_JSON, 2, "pp_config_load_json", "name", NULL_ACCEPTED},
        {CALL_LOAD_JSON, 3, "pp_config_load_json", "err", NULL_ACCEPTED},
        {CALL_LOAD_FILE, 0, "pp_config_load_file", "c", NULL_REFUSED},
        {CALL_LOAD_FILE, 1, "pp_config_load_file", "path", NULL_REFUSED},
        {CALL_LOAD_FILE, 2, "pp_config_load_file", "err", NULL_ACCEPTED},
        {CALL_SIMULATE, 0, "pp_simulate", "c", NULL_REFUSED},
        {CALL_SIMULATE, 1, "pp_simulate", "run", NULL_REFUSED},
        {CALL_SIMULATE, 2, "pp_simulate", "err", NULL_ACCEPTED},
        {CALL_SIMULATE_SCHEDULES, 0, "pp_simulate_schedules", "c", NULL_REFUSED},
        {CALL_SIMULATE_SCHEDULES, 1, "pp_simulate_schedules", "schedules", NULL_REFUSED},
        {CALL_SIMULATE_SCHEDULES, SCHEDULES_1, "pp_simulate_schedules", "schedules[1]",
         NULL_REFUSED},
        {CALL_SIMULATE_SCHEDULES, 2, "pp_simulate_schedules", "runs", NULL_REFUSED},
        {CALL_SIMULATE_SCHEDULES, 3, "pp_simulate_schedules", "err", NULL_ACCEPTED},
        {CALL_SERVE, 0, "pp_serve", "c", NULL_REFUSED},
        {CALL_SERVE, 1, "pp_serve", "run", NULL_REFUSED},
        {CALL_SERVE, 2, "pp_serve", "err", NULL_ACCEPTED},
        {CALL_RUN_FREE, 0, "pp_run_free", "r", NULL_ACCEPTED},
        {CALL_FIGURE, 0, "pp_run_figure", "r", NULL_REFUSED},
        {CALL_FIGURE, 1, "pp_run_figure", "name", NULL_REFUSED},
        {CALL_FIGURE, 2, "pp_run_figure", "value", NULL_REFUSED},
        {CALL_FIGURE, 3, "pp_run_figure", "err", NULL_ACCEPTED},
        {CALL_DEVICE_FIGURE, 0, "pp_run_device_figure", "r", NULL_REFUSED},
        {CALL_DEVICE_FIGURE, 1, "pp_run_device_figure", "name", NULL_REFUSED},
        {CALL_DEVICE_FIGURE, 2, "pp_run_device_figure", "out", NULL_REFUSED},
        {CALL_DEVICE_FIGURE, 3, "pp_run_device_figure", "err", NULL_ACCEPTED},
        {CALL_OPS, 0, "pp_run_ops", "r", NULL_REFUSED},
        {CALL_OPS, 1, "pp_run_ops", "cols", NULL_REFUSED},
        {CALL_OPS, 2, "pp_run_ops", "err", NULL_ACCEPTED},
        {CALL_OPS_NEW, 0, "pp_run_ops_new", "r", NULL_REFUSED},
        {CALL_OPS_NEW, 1, "pp_run_ops_new", "ops", NULL_REFUSED},
        {CALL_OPS_NEW, 2, "pp_run_ops_new", "err", NULL_ACCEPTED},
        {CALL_OPS_FREE, 0, "pp_ops_free", "ops", NULL_ACCEPTED},
        {CALL_RUN_REPORT, 0, "pp_run_report", "r", NULL_REFUSED},
        {CALL_RUN_REPORT, 1, "pp_run_report", "format", NULL_ACCEPTED},
        {CALL_RUN_REPORT, 2, "pp_run_report", "text", NULL_REFUSED},
        {CALL_RUN_REPORT, 3, "pp_run_report", "err", NULL_ACCEPTED},
        {CALL_OPS_CSV, 0, "pp_run_ops_csv", "r", NULL_REFUSED},
        {CALL_OPS_CSV, 1, "pp_run_ops_csv", "text", NULL_REFUSED},
        {CALL_OPS_CSV, 2, "pp_run_ops_csv", "err", NULL_ACCEPTED},
        {CALL_COMPARE, 0, "pp_compare_report", "runs", NULL_REFUSED},
        {CALL_COMPARE, RUNS_1, "pp_compare_report", "runs[1]", NULL_REFUSED},
        {CALL_COMPARE, 1, "pp_compare_report", "labels", NULL_ACCEPTED},
        {CALL_COMPARE, LABELS_1, "pp_compare_report", "labels[1]", NULL_ACCEPTED},
        {CALL_COMPARE, 3, "pp_compare_report", "format", NULL_ACCEPTED},
        {CALL_COMPARE, 4, "pp_compare_report", "text", NULL_REFUSED},
        {CALL_COMPARE, 5, "pp_compare_report", "err", NULL_ACCEPTED},
        {CALL_LIST, 0, "pp_list", "format", NULL_ACCEPTED},
        {CALL_LIST, 1, "pp_list", "text", NULL_REFUSED},
        {CALL_LIST, 2, "pp_list", "err", NULL_ACCEPTED},
        {CALL_STRING_FREE, 0, "pp_string_free", "s", NULL_ACCEPTED},
        {CALL_CONFIG_JSON, 0, "pp_config_json", "c", NULL_REFUSED},
        {CALL_CONFIG_JSON, 1, "pp_config_json", "text", NULL_REFUSED},
        {CALL_CONFIG_JSON, 2, "pp_config_json", "err", NULL_ACCEPTED},
        {CALL_REPLAY_WHATIF, 0, "pp_replay_whatif", "c", NULL_REFUSED},
        {CALL_REPLAY_WHATIF, 1, "pp_replay_whatif", "paths", NULL_REFUSED},
        {CALL_REPLAY_WHATIF, 2, "pp_replay_whatif", "keys", NULL_REFUSED},
        {CALL_REPLAY_WHATIF, 3, "pp_replay_whatif", "values", NULL_REFUSED},
        {CALL_REPLAY_WHATIF, 4, "pp_replay_whatif", "run", NULL_REFUSED},
        {CALL_REPLAY_WHATIF, 5, "pp_replay_whatif", "err", NULL_ACCEPTED},
};

static void api_every_call_refuses_or_accepts_null_in_every_pointer_position(void)
{
	struct api_args a = {.c = config_of("1f1b", "4", "8"),
	                     .sv = pp_config_new(),
	                     .path = "/tmp/ppsim-unit-XXXXXX",
	                     .step = "/tmp/ppsim-step-XXXXXX"};
	int fd = mkstemp(a.path);
	char e[256];
	static const char step[] = "stage,op,microbatch,ms\n0,F,0,1\n1,F,0,1\n1,BW,0,2\n0,BW,0,1\n";

	CU_ASSERT_FATAL(fd >= 0 && write(fd, "{\"m\": 4}", 8) == 8);
	close(fd);
	fd = mkstemp(a.step);
	CU_ASSERT_FATAL(fd >= 0 && write(fd, step, sizeof(step) - 1) == (ssize_t)sizeof(step) - 1);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(pp_config_set(a.sv, "num_requests", "4", e, sizeof(e)), PP_OK);
	a.r = simulate(a.c);
	for (size_t i = 0; i < sizeof(null_cases) / sizeof(null_cases[0]); i++) {
		const struct null_case *t = &null_cases[i];
		bool error_value = t->outcome != NULL_ACCEPTED, refused;
		char err[256] = "", want[256] = "", none[8] = "";

		if (t->outcome == NULL_REFUSED)
			snprintf(want, sizeof(want), "%s: argument '%s' is NULL", t->fn, t->arg);
		/* each call succeeds with every argument given */
		CU_ASSERT_FALSE(call_with_null(t->call, -1, &a, err, sizeof(err)));
		refused = call_with_null(t->call, t->pos, &a, err, sizeof(err));
		if (refused != error_value || strcmp(err, want) != 0)
			fprintf(stderr, "%s(%s NULL): %s '%s'\n", t->fn, t->arg,
			        refused ? "refused" : "accepted", err);
		CU_ASSERT_EQUAL(refused, error_value);
		CU_ASSERT_STRING_EQUAL(err, want);
		/* without a buffer, or with one of no bytes, the same and nothing written */
		CU_ASSERT_EQUAL(call_with_null(t->call, t->pos, &a, NULL, sizeof(err)),
		                error_value);
		CU_ASSERT_EQUAL(call_with_null(t->call, t->pos, &a, none, 0), error_value);
		CU_ASSERT_STRING_EQUAL(none, "");
	}
	/* two NULLs: the first is named */
	{
		char err[256] = "", *text = NULL;

		CU_ASSERT_EQUAL(pp_config_set(NULL, NULL, NULL, err, sizeof(err)), PP_E_INPUT);
		CU_ASSERT_STRING_EQUAL(err, "pp_config_set: argument 'c' is NULL");
		CU_ASSERT_EQUAL(pp_compare_report(NULL, NULL, 0, NULL, &text, err, sizeof(err)),
		                PP_E_INPUT);
		CU_ASSERT_STRING_EQUAL(err, "pp_compare_report: argument 'runs' is NULL");
	}
	unlink(a.path);
	unlink(a.step);
	pp_run_free(a.r);
	pp_config_free(a.c);
	pp_config_free(a.sv);
}

static void api_a_failure_says_its_kind(void)
{
	char err[512] = "";
	pp_config *c = pp_config_new();
	pp_run *r = NULL;

	CU_ASSERT_EQUAL(pp_config_set(c, "schedule_file", "tests/cli/schedules/cyclic.csv", err,
	                              sizeof(err)),
	                PP_OK);
	CU_ASSERT_EQUAL(pp_simulate(c, 0, &r, err, sizeof(err)), PP_E_SIM);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cyclic wait"));
	CU_ASSERT_EQUAL(pp_config_set(c, "schedule_file", "/nonexistent/s.csv", err, sizeof(err)),
	                PP_OK);
	CU_ASSERT_EQUAL(pp_simulate(c, 0, &r, err, sizeof(err)), PP_E_FILE);
	CU_ASSERT_PTR_NULL(r);
	pp_config_free(c);
}

static void api_messages_name_options_by_their_keys_and_commands_by_their_calls(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	        {"--tf, --tb and --tw: at least one", "\"t_f\", \"t_b\" and \"t_w\": at least one"},
	        {"not with --arrival=closed", "not with \"arrival\" = closed"},
	        {"(the default --mem-limit is p)", "(the default \"mem_limit\" is p)"},
	        {"a serving option: use ppsim serve", "a serving option: use pp_serve"},
	        {"not for ppsim run", "not for pp_simulate"},
	        /* a value in quotes, an apostrophe, an option the library has not, stay */
	        {"key \"schedule\" '--mem-limit': unknown",
	         "key \"schedule\" '--mem-limit': unknown"},
	        {"the GPU's memory (--memory-reserve)", "the GPU's memory (\"memory_reserve\")"},
	        {"shard the sweep (--shard=K/N)", "shard the sweep (--shard=K/N)"},
	        {"ppsim servers --tfx a--tf", "ppsim servers --tfx a--tf"},
	        /* an option and its quoted value, as the command line names a setting */
	        {"--microbatches '8': dualpipe needs", "key \"m\" = 8: dualpipe needs"},
	        {"--fp8 'yes'", "key \"fp8\" = yes"},
	        {"(--tp '4' and more)", "(\"tp\" '4' and more)"},
	        {"--jitter 'empirical:it's.csv': cannot read", "key \"jitter\" = empirical:it's.csv: cannot read"},
	        {"give --microbatches '32'", "give key \"m\" = 32"},
	        {"--tp '4' and --ep '8': no", "\"tp\" '4' and key \"ep\" = 8: no"},
	        /* a short option before a word or ending a sentence; a dash in a word or a
	         * number stays */
	        {"give a larger one, or -s interleaved", "give a larger one, or \"schedule\" = interleaved"},
	        {"m is 8, the default: give -m", "m is 8, the default: give \"m\""},
	        {"give -m.", "give \"m\"."},
	        {"zero-bubble at -1 and tp - 1", "zero-bubble at -1 and tp - 1"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char msg[sizeof(((struct pp_error *)0)->msg)];

		snprintf(msg, sizeof(msg), "%s", cases[i].in);
		api_words(msg, sizeof(msg));
		if (strcmp(msg, cases[i].out) != 0)
			fprintf(stderr, "api_words('%s'): '%s'\n", cases[i].in, msg);
		CU_ASSERT_STRING_EQUAL(msg, cases[i].out);
	}
}

static void api_figures_are_the_metrics_by_the_reports_key_paths(void)
{
	char err[256] = "";
	pp_config *c = config_of("interleaved", "4", "8");
	pp_run *r, *bare;
	double x = 0, busy[4] = {0};
	int n = 0;

	CU_ASSERT_EQUAL_FATAL(pp_config_set(c, "v", "2", err, sizeof(err)), PP_OK);
	r = simulate_keeping(c, PP_KEEP_OP_TIMES);
	bare = simulate_keeping(c, 0);
	CU_ASSERT_EQUAL(pp_run_figure(r, "makespan", &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(x, 28.5);
	CU_ASSERT_EQUAL(pp_run_figure(r, "critical_path.time", &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(x, 28.5);
	/* what a run has not: NaN */
	CU_ASSERT_EQUAL(pp_run_figure(bare, "critical_path.time", &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_TRUE(isnan(x));
	CU_ASSERT_EQUAL(pp_run_figure(r, "step_time", &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_TRUE(isnan(x));
	CU_ASSERT_EQUAL(pp_run_figure(r, "ttft.p50", &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_TRUE(isnan(x));
	CU_ASSERT_EQUAL(pp_run_figure(r, "p2p.messages", &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(x, 2 * 8 * (4 * 2 - 1));
	CU_ASSERT_EQUAL(pp_run_figure(r, "makespam", &x, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(
	        err, "figure 'makespam': no figure of that name (pp_figure_name lists them)");
	CU_ASSERT_EQUAL(pp_run_device_figure(r, "busy", busy, 4, err, sizeof(err)), 4);
	CU_ASSERT_EQUAL(busy[0] + busy[1] + busy[2] + busy[3], 4 * 24);
	/* fewer entries than devices: those it holds, and the number of devices */
	CU_ASSERT_EQUAL(pp_run_device_figure(r, "utilization", busy, 1, err, sizeof(err)), 4);
	CU_ASSERT_EQUAL(pp_run_device_figure(r, "bussy", busy, 4, err, sizeof(err)), PP_E_INPUT);
	for (; pp_figure_name(n) != NULL; n++)
		CU_ASSERT_EQUAL(pp_run_figure(r, pp_figure_name(n), &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_TRUE(n > 60);
	CU_ASSERT_PTR_NULL(pp_figure_name(-1));
	pp_run_free(r);
	pp_run_free(bare);
	pp_config_free(c);
}

static void api_ops_fill_the_callers_columns_and_records_or_the_librarys(void)
{
	char err[256] = "";
	pp_config *c = config_of("zbh1", "2", "1");
	pp_run *r = simulate(c), *bare = simulate_keeping(c, 0);
	struct rec {
		double end;
		int32_t device;
		uint8_t kind;
	} recs[6];
	pp_ops cols = {.n = 6, .stride = sizeof(struct rec)}, *all = NULL;
	double slack[2];

	cols.end = &recs[0].end;
	cols.device = &recs[0].device;
	cols.kind = &recs[0].kind;
	CU_ASSERT_EQUAL_FATAL(pp_run_op_count(r), 6);
	CU_ASSERT_EQUAL(pp_run_kept(r), 2);
	CU_ASSERT_EQUAL(pp_run_kept(bare), 0);
	CU_ASSERT_EQUAL(pp_run_ops(r, 0, &cols, err, sizeof(err)), PP_OK);
	/* device 0: F B W; device 1: F B W, its W the one op with slack */
	CU_ASSERT_EQUAL(recs[2].kind, PP_OP_W);
	CU_ASSERT_EQUAL(recs[3].device, 1);
	CU_ASSERT_EQUAL(recs[5].end, 4);
	CU_ASSERT_EQUAL(recs[2].end, 5);
	cols = (pp_ops){.n = 2, .slack = slack};
	CU_ASSERT_EQUAL(pp_run_ops(r, 4, &cols, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(slack[0], 0);
	CU_ASSERT_EQUAL(slack[1], 1);
	CU_ASSERT_EQUAL(pp_run_ops(r, 5, &cols, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_run_ops: 2 ops from op 5: past the run's 6 ops");
	/* a first op and a count whose sum wraps are told as given */
	CU_ASSERT_EQUAL(pp_run_ops(r, SIZE_MAX, &cols, err, sizeof(err)), PP_E_INPUT);
	{
		char want[96];

		snprintf(want, sizeof(want), "pp_run_ops: 2 ops from op %zu: past the run's 6 ops",
		         (size_t)SIZE_MAX);
		CU_ASSERT_STRING_EQUAL(err, want);
	}
	CU_ASSERT_EQUAL(pp_run_ops(bare, 0, &cols, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(
	        err, "pp_run_ops: the run kept no slack (simulate it with PP_KEEP_SLACK)");
	/* a stride under a column's entry would write the entries over each other: refused, and
	 * nothing written; one as wide as the widest column asked for is taken */
	cols = (pp_ops){.n = 2, .stride = 3, .slack = slack};
	slack[0] = slack[1] = -1;
	CU_ASSERT_EQUAL(pp_run_ops(r, 4, &cols, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(
	        err, "pp_run_ops: stride 3 is under the 8 bytes of a column's entry (0: packed)");
	CU_ASSERT_EQUAL(slack[0], -1);
	cols = (pp_ops){.n = 2, .stride = 1, .device = &recs[0].device};
	CU_ASSERT_EQUAL(pp_run_ops(r, 0, &cols, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(
	        err, "pp_run_ops: stride 1 is under the 4 bytes of a column's entry (0: packed)");
	cols = (pp_ops){.n = 2, .stride = 1, .kind = &recs[0].kind};
	CU_ASSERT_EQUAL(pp_run_ops(r, 0, &cols, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(pp_run_ops_new(r, &all, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL_FATAL(all->n, 6);
	CU_ASSERT_EQUAL(all->end[2], 5);
	CU_ASSERT_EQUAL(all->slack[5], 1);
	CU_ASSERT_EQUAL(all->stage[3], 1);
	CU_ASSERT_STRING_EQUAL(pp_op_kind_name(all->kind[1]), "B");
	pp_ops_free(all);
	/* a run without op times has their order alone */
	CU_ASSERT_EQUAL(pp_run_ops_new(bare, &all, err, sizeof(err)), PP_OK);
	CU_ASSERT_PTR_NULL(all->start);
	CU_ASSERT_PTR_NULL(all->slack);
	CU_ASSERT_EQUAL(all->device[5], 1);
	pp_ops_free(all);
	pp_run_free(r);
	pp_run_free(bare);
	pp_config_free(c);
}

static void api_schedules_run_with_the_chunks_each_takes_nearest_to_v(void)
{
	char err[256] = "";
	pp_config *c = config_of("1f1b", "4", "16");
	const char *names[] = {"1f1b", "interleaved", "zbh1"}, *bad[] = {"1f1b", "zbh9"};
	pp_run *runs[3] = {NULL, NULL, NULL};
	double v, makespan;

	CU_ASSERT_EQUAL_FATAL(pp_config_set(c, "v", "2", err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL_FATAL(pp_simulate_schedules(c, names, 3, 0, runs, err, sizeof(err)), PP_OK);
	for (int i = 0; i < 3; i++) {
		pp_run_figure(runs[i], "v", &v, err, sizeof(err));
		CU_ASSERT_EQUAL(v, i == 1 ? 2 : 1);
	}
	pp_run_figure(runs[1], "makespan", &makespan, err, sizeof(err));
	CU_ASSERT_EQUAL(makespan, 52.5);
	for (int i = 0; i < 3; i++)
		pp_run_free(runs[i]);
	CU_ASSERT_EQUAL(pp_simulate_schedules(c, bad, 2, 0, runs, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_PTR_NULL(runs[0]);
	CU_ASSERT_EQUAL(strncmp(err, "key \"schedule\" 'zbh9': unknown schedule", 39), 0);
	pp_config_free(c);
}

static void api_serve_runs_a_serving_config_and_reads_it_as_data(void)
{
	char err[256] = "", *json = NULL;
	pp_config *c = pp_config_new(), *t = config_of("1f1b", "4", "8");
	pp_run *r = NULL, *none = NULL;
	const pp_run *mixed[2];
	double x = 0;

	CU_ASSERT_EQUAL_FATAL(pp_config_set(c, "num_requests", "20", err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL_FATAL(pp_serve(c, 0, &r, err, sizeof(err)), PP_OK);
	CU_ASSERT_TRUE(pp_run_is_serving(r));
	CU_ASSERT_EQUAL(pp_run_kept(r), 1);
	CU_ASSERT_EQUAL(pp_run_figure(r, "requests.count", &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(x, 20);
	CU_ASSERT_EQUAL(pp_run_figure(r, "bubble_ratio_theory", &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_TRUE(isnan(x));
	/* every figure of either kind reads (a serving run has no training step behind it: the
	 * critical path, the step taken apart and the noise are NaN), and its ops are one F per
	 * micro-batch and stage */
	for (int i = 0; pp_figure_name(i) != NULL; i++)
		CU_ASSERT_EQUAL(pp_run_figure(r, pp_figure_name(i), &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_EQUAL(pp_run_figure(r, "critical_path.time", &x, err, sizeof(err)), PP_OK);
	CU_ASSERT_TRUE(isnan(x));
	{
		pp_ops *ops = NULL;

		CU_ASSERT_EQUAL_FATAL(pp_run_ops_new(r, &ops, err, sizeof(err)), PP_OK);
		CU_ASSERT_EQUAL(ops->n, pp_run_op_count(r));
		CU_ASSERT_TRUE(ops->n > 0 && ops->start != NULL && ops->slack == NULL);
		for (size_t i = 0; i < ops->n; i++)
			CU_ASSERT_EQUAL(ops->kind[i], PP_OP_F);
		pp_ops_free(ops);
	}
	json = report(r, "json", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"batching\":\"continuous\""));
	pp_string_free(json);
	/* a serving config is not a training step, nor a training config a serving run */
	CU_ASSERT_EQUAL(pp_simulate(c, 0, &none, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "key \"num_requests\" = 20: a serving option: use pp_serve");
	CU_ASSERT_EQUAL(pp_serve(t, 0, &none, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "key \"schedule\" = 1f1b: a training option, not for pp_serve");
	CU_ASSERT_EQUAL(pp_serve(c, 1, &none, err, sizeof(err)), PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_serve: flags 0x1: it takes none (0)");
	/* a serving run and a training step do not compare */
	mixed[0] = simulate(t);
	mixed[1] = r;
	CU_ASSERT_EQUAL(pp_compare_report(mixed, NULL, 2, NULL, &json, err, sizeof(err)),
	                PP_E_INPUT);
	CU_ASSERT_STRING_EQUAL(err, "pp_compare_report: runs[1] is a serving run and runs[0] a "
	                            "training step; compare like with like");
	pp_run_free((pp_run *)mixed[0]);
	pp_run_free(r);
	pp_config_free(c);
	pp_config_free(t);
}

static const struct unit_test tests[] = {
        UNIT_TEST(api_1f1b_p4_m8_reports_a_makespan_of_33_in_json),
        UNIT_TEST(api_a_run_keeps_its_settings_after_its_config_is_freed),
        UNIT_TEST(api_ops_csv_has_the_dump_ops_header_and_a_row_per_op),
        UNIT_TEST(api_set_takes_config_keys_long_names_and_underscores_for_dashes),
        UNIT_TEST(api_bad_keys_and_values_are_messages_naming_them),
        UNIT_TEST(api_json_configs_are_checked_as_config_files_are),
        UNIT_TEST(api_simulate_refuses_what_ppsim_run_refuses),
        UNIT_TEST(api_an_unknown_format_names_the_formats_of_a_run),
        UNIT_TEST(api_compare_writes_runs_side_by_side),
        UNIT_TEST(api_list_is_the_tables_of_ppsim_list),
        UNIT_TEST(api_version_is_the_headers_numbers),
        UNIT_TEST(api_every_call_refuses_or_accepts_null_in_every_pointer_position),
        UNIT_TEST(api_a_failure_says_its_kind),
        UNIT_TEST(api_messages_name_options_by_their_keys_and_commands_by_their_calls),
        UNIT_TEST(api_figures_are_the_metrics_by_the_reports_key_paths),
        UNIT_TEST(api_ops_fill_the_callers_columns_and_records_or_the_librarys),
        UNIT_TEST(api_schedules_run_with_the_chunks_each_takes_nearest_to_v),
        UNIT_TEST(api_serve_runs_a_serving_config_and_reads_it_as_data),
        {NULL, NULL},
};

const struct unit_suite suite_api = {"api", tests};
