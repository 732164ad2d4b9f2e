/* Unit tests of the reporters: JSON keys and values, text summary, op CSV and ASCII timeline. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/report.h"
#include "ppsim/sim.h"
#include "unit.h"

/* What a writer produced: the text (caller frees) and the writer's status. */
struct output {
	char *text;
	int rc;
};

/* Runs the format named name on s into memory. */
static struct output write_format(const char *name, const struct sim *s)
{
	const struct report_format *f = report_find(name);
	struct output o = {NULL, -1};
	size_t len;
	FILE *out;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	out = open_memstream(&o.text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	o.rc = f->write(out, s);
	fclose(out);
	return o;
}

/* The timeline of s at width into memory. */
static char *write_timeline(const struct sim *s, int width)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(report_timeline(out, s, width), 0);
	fclose(out);
	return text;
}

/* Number of lines in text longer than width. */
static int lines_longer_than(const char *text, int width)
{
	int over = 0;

	while (*text != '\0') {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);

		over += len > (size_t)width;
		text += len + (nl != NULL);
	}
	return over;
}

/* The line of text starting with prefix, copied into buf of size n; NULL when none. */
static char *line_starting(const char *text, const char *prefix, char *buf, size_t n)
{
	size_t plen = strlen(prefix);

	for (const char *p = text; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len >= plen && strncmp(p, prefix, plen) == 0 && len < n) {
			memcpy(buf, p, len);
			buf[len] = '\0';
			return buf;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static void report_find_knows_text_json_and_csv_exactly(void)
{
	size_t n;
	const struct report_format *f = report_formats(&n);

	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_STRING_EQUAL(f[0].name, "text");
	CU_ASSERT_STRING_EQUAL(f[1].name, "json");
	CU_ASSERT_STRING_EQUAL(f[2].name, "csv");
	CU_ASSERT_PTR_EQUAL(report_find("text"), &f[0]);
	CU_ASSERT_PTR_EQUAL(report_find("json"), &f[1]);
	CU_ASSERT_PTR_EQUAL(report_find("csv"), &f[2]);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT(f[i].write != NULL && f[i].compare != NULL);
	CU_ASSERT_PTR_NULL(report_find("JSON"));
	CU_ASSERT_PTR_NULL(report_find("yaml"));
	CU_ASSERT_PTR_NULL(report_find(""));
}

static void report_json_parses_back_with_top_level_keys_in_order(void)
{
	static const char *const keys[] = {
	        "schedule",
	        "p",
	        "v",
	        "m",
	        "makespan",
	        "bubble_ratio",
	        "bubble_ratio_theory",
	        "bubble_overhead",
	        "bubble_rate_span",
	        "utilization",
	        "devices",
	        "p2p",
	        "costs",
	        "group_size",
	        "step_time",
	        "tokens_per_s",
	        "samples_per_s",
	        "mfu",
	        "model",
	};
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	struct output o = write_format("json", s);
	cJSON *root = cJSON_Parse(o.text);
	const cJSON *item;
	size_t i = 0;

	CU_ASSERT_EQUAL(o.rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	cJSON_ArrayForEach(item, root)
	{
		CU_ASSERT_FATAL(i < sizeof(keys) / sizeof(keys[0]));
		CU_ASSERT_STRING_EQUAL(item->string, keys[i]);
		i++;
	}
	CU_ASSERT_EQUAL(i, sizeof(keys) / sizeof(keys[0]));
	cJSON_Delete(root);
	free(o.text);
	sim_free(s);
}

static void report_json_holds_the_figures_of_1f1b_p4_m8(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	struct output o = write_format("json", s);
	cJSON *root = cJSON_Parse(o.text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(root, "schedule")), "1f1b");
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "p")), 4);
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "v")), 1);
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "m")), 8);
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "makespan")), 33);
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "bubble_ratio")), 3.0 / 11);
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "bubble_ratio_theory")),
	            3.0 / 11);
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "bubble_overhead")), 0.375);
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "bubble_rate_span")), 3.0 / 11);
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "utilization")), 8.0 / 11);
	cJSON_Delete(root);
	free(o.text);
	sim_free(s);
}

static void report_json_lists_each_device_with_its_figures(void)
{
	static const char *const keys[] = {"device", "busy", "idle", "utilization",
	                                   "peak_activations"};
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	struct output o = write_format("json", s);
	cJSON *root = cJSON_Parse(o.text);
	const cJSON *devices, *dev;
	int d = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	devices = cJSON_GetObjectItem(root, "devices");
	CU_ASSERT_TRUE_FATAL(cJSON_IsArray(devices));
	CU_ASSERT_EQUAL(cJSON_GetArraySize(devices), 4);
	cJSON_ArrayForEach(dev, devices)
	{
		const cJSON *item = dev->child;

		/* the documented keys come first and in this order */
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			CU_ASSERT_PTR_NOT_NULL_FATAL(item);
			CU_ASSERT_STRING_EQUAL(item->string, keys[i]);
			item = item->next;
		}
		ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "device")), d);
		ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "busy")), 24);
		ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "idle")), 9);
		ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "utilization")),
		            24.0 / 33);
		ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(dev, "peak_activations")),
		            4 - d);
		d++;
	}
	CU_ASSERT_EQUAL(d, 4);
	cJSON_Delete(root);
	free(o.text);
	sim_free(s);
}

static void report_json_counts_p2p_messages_and_bytes(void)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;
	struct output o;
	cJSON *root;
	const cJSON *p2p;

	config_init(&c);
	c.msg_bytes = 1000;
	s = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	o = write_format("json", s);
	root = cJSON_Parse(o.text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	p2p = cJSON_GetObjectItem(root, "p2p");
	CU_ASSERT_TRUE_FATAL(cJSON_IsObject(p2p));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p2p->child);
	CU_ASSERT_STRING_EQUAL(p2p->child->string, "messages");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p2p->child->next);
	CU_ASSERT_STRING_EQUAL(p2p->child->next->string, "bytes");
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(p2p, "messages")), 48);
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(p2p, "bytes")), 48000);
	cJSON_Delete(root);
	free(o.text);
	sim_free(s);
}

static void report_json_writes_null_theory_when_messages_take_time(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0.1);
	struct output o = write_format("json", s);
	cJSON *root = cJSON_Parse(o.text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(root, "bubble_ratio_theory")));
	ASSERT_NEAR(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "makespan")), 34.6);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.text, "34.6"));
	CU_ASSERT_PTR_NULL(strstr(o.text, "34.600000"));
	cJSON_Delete(root);
	free(o.text);
	sim_free(s);
}

static void report_text_states_the_makespan_and_bubble(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	struct output o = write_format("text", s);
	char line[256];

	CU_ASSERT_EQUAL(o.rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "makespan", line, sizeof(line)));
	CU_ASSERT_STRING_EQUAL(line, "makespan           33 t");
	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "bubble_ratio ", line, sizeof(line)));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "0.272727"));
	CU_ASSERT_PTR_NOT_NULL(strstr(line, "(p-1)/(m+p-1)"));
	CU_ASSERT_PTR_NOT_NULL(line_starting(o.text, "schedule           1f1b (p=4, v=1, m=8)",
	                                     line, sizeof(line)));
	free(o.text);
	sim_free(s);
}

static void report_text_gives_the_makespan_in_milliseconds_with_a_link(void)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;
	struct output o;
	char line[256];

	config_init(&c);
	c.bandwidth = 100;
	s = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	o = write_format("text", s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "makespan", line, sizeof(line)));
	CU_ASSERT_STRING_EQUAL(line, "makespan           33 ms");
	free(o.text);
	sim_free(s);
}

static void report_ops_csv_writes_a_header_and_one_row_per_op(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	char *text = NULL;
	size_t len, rows = 0;
	FILE *out = open_memstream(&text, &len);
	static const char *const first = "device,chunk,stage,op,microbatch,start,end\n"
	                                 "0,0,0,F,0,0,1\n"
	                                 "0,0,0,F,1,1,2\n"
	                                 "0,0,0,F,2,2,3\n"
	                                 "0,0,0,F,3,3,4\n"
	                                 "0,0,0,BW,0,10,12\n"
	                                 "0,0,0,F,4,12,13\n";

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(report_ops_csv(out, s), 0);
	fclose(out);
	for (const char *p = text; *p != '\0'; p++)
		rows += *p == '\n';
	CU_ASSERT_EQUAL(rows, s->sched->nops + 1);
	CU_ASSERT_EQUAL(strncmp(text, first, strlen(first)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n3,0,3,BW,7,25,27\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n1,0,1,F,0,1,2\n"));
	free(text);
	sim_free(s);
}

static void report_ops_csv_writes_fractional_times_exactly(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0.1);
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(report_ops_csv(out, s), 0);
	fclose(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n3,0,3,F,0,3.3,4.3\n"));
	free(text);
	sim_free(s);
}

static void report_timeline_draws_one_labelled_row_per_device_with_boxes(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	char *text = write_timeline(s, PP_TIMELINE_WIDTH);
	char label[48], line[256];

	for (int d = 0; d < 4; d++) {
		const char *at;

		snprintf(label, sizeof(label), "GPU %d (stage %d) ", d, d);
		CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(text, label, line, sizeof(line)));
		/* each backward fits its box, in micro-batch order */
		at = line;
		for (int mb = 0; mb < 8; mb++) {
			char box[16];

			snprintf(box, sizeof(box), "[B%d]", mb);
			at = strstr(at, box);
			CU_ASSERT_PTR_NOT_NULL_FATAL(at);
		}
		CU_ASSERT_PTR_NOT_NULL(strstr(line, "F7"));
	}
	CU_ASSERT_PTR_NULL(line_starting(text, "GPU 4", line, sizeof(line)));
	CU_ASSERT_EQUAL(lines_longer_than(text, PP_TIMELINE_WIDTH), 0);
	free(text);
	sim_free(s);
}

static void report_timeline_draws_kind_letters_when_ops_are_narrow(void)
{
	struct sim *s = unit_simulate("1f1b", 8, 64, 0);
	char *text = write_timeline(s, PP_TIMELINE_WIDTH);
	char label[48], line[256];

	for (int d = 0; d < 8; d++) {
		const char *cells;

		snprintf(label, sizeof(label), "GPU %d (stage %d) ", d, d);
		CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(text, label, line, sizeof(line)));
		cells = line + strlen(label);
		CU_ASSERT_EQUAL(strspn(cells, " FB."), strlen(cells));
		CU_ASSERT_PTR_NOT_NULL(strchr(cells, 'F'));
		CU_ASSERT_PTR_NOT_NULL(strchr(cells, 'B'));
	}
	CU_ASSERT_EQUAL(lines_longer_than(text, PP_TIMELINE_WIDTH), 0);
	free(text);
	sim_free(s);
}

/* Configurations whose timelines the width tests draw: short and long, few and many rows. */
static const struct {
	const char *schedule;
	int p, m;
	double t_comm;
} timeline_cases[] = {
        {"1f1b", 4, 8, 0},      {"gpipe", 3, 5, 0.1}, {"gpipe", 12, 31, 0},
        {"1f1b", 16, 64, 0.37}, {"1f1b", 1, 1, 0},
};

/* Widths the width tests try, from the narrowest accepted up. */
static const int timeline_widths[] = {PP_TIMELINE_MIN_WIDTH, 41, 50, 60, 73, 80, 99, 100, 120};

/*
 * Counts, over every case and width, the lines of each part of the timeline longer than the
 * width: over[0] the header (the lines before the scale), over[1] the scale (the two lines
 * before the first device row), over[2] the device rows, over[3] the legend (after the rows).
 */
static void count_overlong_lines(int over[4])
{
	memset(over, 0, 4 * sizeof(*over));
	for (size_t i = 0; i < sizeof(timeline_cases) / sizeof(timeline_cases[0]); i++) {
		struct sim *s = unit_simulate(timeline_cases[i].schedule, timeline_cases[i].p,
		                              timeline_cases[i].m, timeline_cases[i].t_comm);

		for (size_t j = 0; j < sizeof(timeline_widths) / sizeof(timeline_widths[0]); j++) {
			int width = timeline_widths[j], n = 0, first = -1, last = -1;
			char *text = write_timeline(s, width);
			size_t len[64];

			for (const char *p = text; *p != '\0' && n < 64; n++) {
				const char *nl = strchr(p, '\n');

				len[n] = nl ? (size_t)(nl - p) : strlen(p);
				if (strncmp(p, "GPU ", 4) == 0) {
					first = first < 0 ? n : first;
					last = n;
				}
				p += len[n] + (nl != NULL);
			}
			CU_ASSERT_EQUAL_FATAL(last - first + 1, timeline_cases[i].p);
			CU_ASSERT_FATAL(first >= 3);
			for (int k = 0; k < n; k++) {
				int part = k < first - 2 ? 0 : k < first ? 1 : k <= last ? 2 : 3;

				over[part] += len[k] > (size_t)width;
			}
			free(text);
		}
		sim_free(s);
	}
}

static void report_timeline_rows_fit_the_width(void)
{
	int over[4];

	count_overlong_lines(over);
	CU_ASSERT_EQUAL(over[2], 0);
}

static void report_timeline_scale_fits_the_width(void)
{
	int over[4];

	count_overlong_lines(over);
	CU_ASSERT_EQUAL(over[1], 0);
}

static void report_timeline_header_and_legend_fit_the_width(void)
{
	int over[4];

	count_overlong_lines(over);
	CU_ASSERT_EQUAL(over[0], 0);
	CU_ASSERT_EQUAL(over[3], 0);
}

static const struct unit_test tests[] = {
        UNIT_TEST(report_find_knows_text_json_and_csv_exactly),
        UNIT_TEST(report_json_parses_back_with_top_level_keys_in_order),
        UNIT_TEST(report_json_holds_the_figures_of_1f1b_p4_m8),
        UNIT_TEST(report_json_lists_each_device_with_its_figures),
        UNIT_TEST(report_json_counts_p2p_messages_and_bytes),
        UNIT_TEST(report_json_writes_null_theory_when_messages_take_time),
        UNIT_TEST(report_text_states_the_makespan_and_bubble),
        UNIT_TEST(report_text_gives_the_makespan_in_milliseconds_with_a_link),
        UNIT_TEST(report_ops_csv_writes_a_header_and_one_row_per_op),
        UNIT_TEST(report_ops_csv_writes_fractional_times_exactly),
        UNIT_TEST(report_timeline_draws_one_labelled_row_per_device_with_boxes),
        UNIT_TEST(report_timeline_draws_kind_letters_when_ops_are_narrow),
        UNIT_TEST(report_timeline_rows_fit_the_width),
        UNIT_TEST(report_timeline_scale_fits_the_width),
        UNIT_TEST(report_timeline_header_and_legend_fit_the_width),
        {NULL, NULL},
};

const struct unit_suite suite_report = {"report", tests};
