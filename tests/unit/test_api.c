/*
 * Unit tests of the facade of libppsim.so (include/ppsim/ppsim.h): settings by key or long
 * name, JSON configs, a run's reports and ops as strings, compare, and errors as messages.
 */
#include <stdio.h>
#include <string.h>

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
	CU_ASSERT_EQUAL(strncmp(json, "{\n\t\"schema_version\":\t1,\n\t\"schedule\":\t\"1f1b\",", 44), 0);
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
	CU_ASSERT_EQUAL(strncmp(csv, "device,chunk,stage,op,microbatch,start,end\n", 43), 0);
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
	CU_ASSERT_STRING_EQUAL(err, "config: no path");
	/* a document refused part way applies none of it: p stays 2 */
	CU_ASSERT_EQUAL(pp_config_load_json(c, "{\"p\": 3, \"m\": \"x\"}", "inline", err,
	                                    sizeof(err)),
	                -1);
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
        {NULL, NULL},
};

const struct unit_suite suite_api = {"api", tests};
