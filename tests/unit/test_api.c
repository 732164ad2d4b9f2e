/*
 * Unit tests of the facade of libppsim.so (include/ppsim/ppsim.h): settings by key or long
 * name, JSON configs, a run's reports and ops as strings, compare, and errors as messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The run of c; asserts (fatally) that it succeeds. */
static pp_run *simulate(const pp_config *c)
{
	char err[256] = "";
	pp_run *r = pp_simulate(c, err, sizeof(err));

	if (r == NULL)
		fprintf(stderr, "pp_simulate: %s\n", err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

static void api_1f1b_p4_m8_reports_a_makespan_of_33_in_json(void)
{
	pp_config *c = config_of("1f1b", "4", "8");
	pp_run *r = simulate(c);
	char *json = pp_run_report(r, NULL, NULL, 0);

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
	text = pp_run_report(r, "text", NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "gpipe (p=4, v=1, m=4)"));
	pp_string_free(text);
	pp_run_free(r);
}

static void api_ops_csv_has_the_dump_ops_header_and_a_row_per_op(void)
{
	pp_config *c = config_of("1f1b", "4", "8");
	pp_run *r = simulate(c);
	char *csv = pp_run_ops_csv(r, NULL, 0);
	int rows = 0;

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

	CU_ASSERT_EQUAL(pp_config_set(c, "stagez", "4", err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "unknown key \"stagez\"");
	CU_ASSERT_EQUAL(pp_config_set(c, "p", "0", err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(strncmp(err, "--stages '0': ", 14), 0);
	CU_ASSERT_EQUAL(pp_config_set(c, "p", NULL, err, sizeof(err)), -1);
	/* no buffer, or one too small for the message, is not an error of its own */
	CU_ASSERT_EQUAL(pp_config_set(c, "p", "x", NULL, 0), -1);
	CU_ASSERT_EQUAL(pp_config_set(c, "p", "x", err, 5), -1);
	CU_ASSERT_STRING_EQUAL(err, "--st");
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
	json = pp_run_report(r, "json", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"p\":\t2,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"makespan\":\t15,"));
	pp_string_free(json);
	pp_run_free(r);
	CU_ASSERT_EQUAL(pp_config_load_json(c, "{\n  \"stagez\": 2}", "inline", err, sizeof(err)),
	                -1);
	CU_ASSERT_EQUAL(strncmp(err, "config 'inline':2:3: ", 21), 0);
	CU_ASSERT_EQUAL(pp_config_load_json(c, NULL, NULL, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(pp_config_load_file(c, "/nonexistent/ppsim.json", err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/ppsim.json"));
	CU_ASSERT_EQUAL(pp_config_load_file(c, NULL, err, sizeof(err)), -1);
	CU_ASSERT_STRING_EQUAL(err, "pp_config_load_file: argument 'path' is NULL");
	/* a document refused part way applies none of it: p stays 2 */
	CU_ASSERT_EQUAL(
	        pp_config_load_json(c, "{\"p\": 3, \"m\": \"x\"}", "inline", err, sizeof(err)), -1);
	r = simulate(c);
	json = pp_run_report(r, "json", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"p\":\t2,"));
	pp_string_free(json);
	pp_run_free(r);
	pp_config_free(c);
}

static void api_simulate_refuses_what_ppsim_run_refuses(void)
{
	char err[256] = "";
	pp_config *c = config_of("zbv", "4", "8");

	CU_ASSERT_EQUAL(pp_config_set(c, "v", "3", err, sizeof(err)), 0);
	CU_ASSERT_PTR_NULL(pp_simulate(c, err, sizeof(err)));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "zbv"));
	pp_config_free(c);
}

static void api_an_unknown_format_names_the_formats_of_a_run(void)
{
	char err[256] = "";
	pp_config *c = config_of("1f1b", "4", "8");
	pp_run *r = simulate(c);

	CU_ASSERT_PTR_NULL(pp_run_report(r, "jsonl", err, sizeof(err)));
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
	char *json, *text;

	CU_ASSERT_EQUAL_FATAL(pp_config_set(z, "schedule", "zbh1", err, sizeof(err)), 0);
	runs[0] = simulate(c);
	runs[1] = simulate(z);
	json = pp_compare_report(runs, labels, 2, NULL, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	CU_ASSERT_EQUAL(json[0], '[');
	CU_ASSERT_PTR_NOT_NULL(strstr(strstr(json, "\"1f1b\""), "\"zbh1\""));
	text = pp_compare_report(runs, NULL, 2, "text", err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(text);
	CU_ASSERT_PTR_NULL(pp_compare_report(runs, NULL, 0, "json", err, sizeof(err)));
	CU_ASSERT_STRING_EQUAL(err, "compare: no runs");
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
	char *json = pp_list(NULL, err, sizeof(err));

	CU_ASSERT_PTR_NOT_NULL_FATAL(json);
	CU_ASSERT_EQUAL(strncmp(json, "{\n\t\"schema_version\":\t1,\n\t\"schedules\":\t[", 39), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"name\":\t\"zbv-auto\""));
	pp_string_free(json);
	CU_ASSERT_PTR_NULL(pp_list("csv", err, sizeof(err)));
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
	/* the free functions take NULL */
	pp_config_free(NULL);
	pp_run_free(NULL);
	pp_string_free(NULL);
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
	CALL_RUN_FREE,
	CALL_RUN_REPORT,
	CALL_OPS_CSV,
	CALL_COMPARE,
	CALL_LIST,
	CALL_STRING_FREE,
};

/* The positions of the pointers inside pp_compare_report's arrays: runs[1] and labels[1]. */
#define RUNS_1   10
#define LABELS_1 11

/* What the arguments of the calls are when not NULL. */
struct api_args {
	pp_config *c;  /* 1f1b, p = 4, m = 8 */
	pp_run *r;     /* its run */
	char path[64]; /* a config file: {"m": 4} */
	int version[3];
};

/*
 * Makes call with a's arguments but NULL at position pos (0 for the first argument; RUNS_1,
 * LABELS_1; -1 for none), err the message buffer of errlen bytes; frees what it returns. Returns
 * true when the call returned its error value (-1 or NULL); the free functions return false.
 */
static bool call_with_null(enum api_call call, int pos, struct api_args *a, char *err,
                           size_t errlen)
{
#define ARG(i, v) (pos == (i) ? NULL : (v))
	const pp_run *runs[2] = {a->r, ARG(RUNS_1, a->r)};
	const char *labels[2] = {"a", ARG(LABELS_1, "b")};
	char *text = NULL;
	pp_config *copy;

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
		       0;
	case CALL_LOAD_JSON:
		return pp_config_load_json(ARG(0, a->c), ARG(1, "{\"m\": 8}"), ARG(2, "inline"),
		                           ARG(3, err), errlen) != 0;
	case CALL_LOAD_FILE:
		return pp_config_load_file(ARG(0, a->c), ARG(1, a->path), ARG(2, err), errlen) != 0;
	case CALL_SIMULATE: {
		pp_run *r = pp_simulate(ARG(0, a->c), ARG(1, err), errlen);

		pp_run_free(r);
		return r == NULL;
	}
	case CALL_RUN_FREE:
		pp_run_free(ARG(0, pp_simulate(a->c, NULL, 0)));
		return false;
	case CALL_RUN_REPORT:
		text = pp_run_report(ARG(0, a->r), ARG(1, "text"), ARG(2, err), errlen);
		break;
	case CALL_OPS_CSV:
		text = pp_run_ops_csv(ARG(0, a->r), ARG(1, err), errlen);
		break;
	case CALL_COMPARE:
		text = pp_compare_report(ARG(0, runs), ARG(1, labels), 2, ARG(3, "csv"),
		                         ARG(4, err), errlen);
		break;
	case CALL_LIST:
		text = pp_list(ARG(0, "text"), ARG(1, err), errlen);
		break;
	case CALL_STRING_FREE:
		pp_string_free(ARG(0, pp_list(NULL, NULL, 0)));
		return false;
	}
#undef ARG
	pp_string_free(text);
	return text == NULL;
}

/* What a call does with NULL in one of its pointer positions. */
enum null_outcome {
	NULL_ACCEPTED, /* what it does with the pointer given: a default, no buffer, a free's no-op
	                */
	NULL_REFUSED,  /* its error value, and in err "CALL: argument 'ARG' is NULL" */
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

/* Every pointer position of every call of ppsim.h. */
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
        {CALL_SIMULATE, 1, "pp_simulate", "err", NULL_ACCEPTED},
        {CALL_RUN_FREE, 0, "pp_run_free", "r", NULL_ACCEPTED},
        {CALL_RUN_REPORT, 0, "pp_run_report", "r", NULL_REFUSED},
        {CALL_RUN_REPORT, 1, "pp_run_report", "format", NULL_ACCEPTED},
        {CALL_RUN_REPORT, 2, "pp_run_report", "err", NULL_ACCEPTED},
        {CALL_OPS_CSV, 0, "pp_run_ops_csv", "r", NULL_REFUSED},
        {CALL_OPS_CSV, 1, "pp_run_ops_csv", "err", NULL_ACCEPTED},
        {CALL_COMPARE, 0, "pp_compare_report", "runs", NULL_REFUSED},
        {CALL_COMPARE, RUNS_1, "pp_compare_report", "runs[1]", NULL_REFUSED},
        {CALL_COMPARE, 1, "pp_compare_report", "labels", NULL_ACCEPTED},
        {CALL_COMPARE, LABELS_1, "pp_compare_report", "labels[1]", NULL_ACCEPTED},
        {CALL_COMPARE, 3, "pp_compare_report", "format", NULL_ACCEPTED},
        {CALL_COMPARE, 4, "pp_compare_report", "err", NULL_ACCEPTED},
        {CALL_LIST, 0, "pp_list", "format", NULL_ACCEPTED},
        {CALL_LIST, 1, "pp_list", "err", NULL_ACCEPTED},
        {CALL_STRING_FREE, 0, "pp_string_free", "s", NULL_ACCEPTED},
};

static void api_every_call_refuses_or_accepts_null_in_every_pointer_position(void)
{
	struct api_args a = {.c = config_of("1f1b", "4", "8"), .path = "/tmp/ppsim-unit-XXXXXX"};
	int fd = mkstemp(a.path);

	CU_ASSERT_FATAL(fd >= 0 && write(fd, "{\"m\": 4}", 8) == 8);
	close(fd);
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
		char err[256] = "";

		CU_ASSERT_EQUAL(pp_config_set(NULL, NULL, NULL, err, sizeof(err)), -1);
		CU_ASSERT_STRING_EQUAL(err, "pp_config_set: argument 'c' is NULL");
		CU_ASSERT_PTR_NULL(pp_compare_report(NULL, NULL, 0, NULL, err, sizeof(err)));
		CU_ASSERT_STRING_EQUAL(err, "pp_compare_report: argument 'runs' is NULL");
	}
	unlink(a.path);
	pp_run_free(a.r);
	pp_config_free(a.c);
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
        {NULL, NULL},
};

const struct unit_suite suite_api = {"api", tests};
