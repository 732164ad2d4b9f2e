/*
 * Unit tests of the reporters: JSON keys and values (with and without a model), text summary, CSV,
 * comparisons, op CSV, ASCII timeline, trace, SVG and HTML report.
 */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include "base/json_text.h"
#include "ppsim/outfile.h"
#include "ppsim/report.h"
#include "report/formats.h"
#include "report/table.h"
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

/* A stream into memory (text_open) and the text written to it (text_close). */
struct text_out {
	FILE *out;
	char *text;
	size_t len;
};

static FILE *text_open(struct text_out *t)
{
	*t = (struct text_out){0};
	t->out = open_memstream(&t->text, &t->len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->out);
	return t->out;
}

static char *text_close(struct text_out *t)
{
	fclose(t->out);
	return t->text;
}

/* Runs writer on s into memory. */
static char *write_sim_with(int (*writer)(FILE *, const struct sim *), const struct sim *s)
{
	struct text_out t;

	CU_ASSERT_EQUAL(writer(text_open(&t), s), 0);
	return text_close(&t);
}

/* Runs writer on what s's drawings read of it into memory. */
static char *write_with(int (*writer)(FILE *, const struct drawing *), const struct sim *s)
{
	struct text_out t;

	CU_ASSERT_EQUAL(writer(text_open(&t), UNIT_DRAWING(s)), 0);
	return text_close(&t);
}

/* The timeline of s at width into memory. */
static char *write_timeline(const struct sim *s, int width)
{
	struct text_out t;

	CU_ASSERT_EQUAL(report_timeline(text_open(&t), UNIT_DRAWING(s), width), 0);
	return text_close(&t);
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

/*
 * The row of the timeline device labelled label, its bands joined: label, then the cells of
 * every line starting with it, in order, copied into buf of size n; NULL when none.
 */
static char *device_row(const char *text, const char *label, char *buf, size_t n)
{
	size_t plen = strlen(label), at = 0;

	for (const char *p = text; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len >= plen && strncmp(p, label, plen) == 0) {
			size_t from = at == 0 ? 0 : plen;

			if (at + len - from >= n)
				return NULL;
			memcpy(buf + at, p + from, len - from);
			at += len - from;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (at == 0)
		return NULL;
	buf[at] = '\0';
	return buf;
}

/* Time units one column of the timeline in text stands for: "one column = 0.5 t" or
 * "6 columns = 1 t"; 0 when neither is there. */
static double column_step_of(const char *text)
{
	const char *at = strstr(text, "one column = ");
	int k;
	double t;

	if (at != NULL)
		return atof(at + strlen("one column = "));
	at = strstr(text, " columns = ");
	if (at == NULL)
		return 0;
	while (at > text && at[-1] != ' ')
		at--;
	return sscanf(at, "%d columns = %lf", &k, &t) == 2 && k > 0 ? t / k : 0;
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
	        "schema_version",
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
	        "critical_path",
	        "costs",
	        "group_size",
	        "step_time",
	        "step_breakdown",
	        "tokens_per_s",
	        "samples_per_s",
	        "mfu",
	        "model",
	        "noise",
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
	CU_ASSERT_EQUAL(cJSON_GetObjectItem(root, "schema_version")->valueint, REPORT_SCHEMA_VERSION);
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
	char *text = write_with(report_ops_csv, s);
	size_t rows = 0;
	static const char *const first = "device,chunk,stage,op,microbatch,start,end\n"
	                                 "0,0,0,F,0,0,1\n"
	                                 "0,0,0,F,1,1,2\n"
	                                 "0,0,0,F,2,2,3\n"
	                                 "0,0,0,F,3,3,4\n"
	                                 "0,0,0,BW,0,10,12\n"
	                                 "0,0,0,F,4,12,13\n";

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
	char *text = write_with(report_ops_csv, s);

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
 * width: over[0] the header and the legend, over[1] the scales (the two lines before each
 * band's rows), over[2] the device rows. Every band holds every device's row.
 */
static void count_overlong_lines(int over[3])
{
	memset(over, 0, 3 * sizeof(*over));
	for (size_t i = 0; i < sizeof(timeline_cases) / sizeof(timeline_cases[0]); i++) {
		struct sim *s = unit_simulate(timeline_cases[i].schedule, timeline_cases[i].p,
		                              timeline_cases[i].m, timeline_cases[i].t_comm);

		for (size_t j = 0; j < sizeof(timeline_widths) / sizeof(timeline_widths[0]); j++) {
			int width = timeline_widths[j], n = 0, rows = 0;
			char *text = write_timeline(s, width);
			size_t len[1024];
			bool row[1024];

			for (const char *p = text; *p != '\0' && n < 1024; n++) {
				const char *nl = strchr(p, '\n');

				len[n] = nl ? (size_t)(nl - p) : strlen(p);
				row[n] = strncmp(p, "GPU ", 4) == 0;
				rows += row[n];
				p += len[n] + (nl != NULL);
			}
			CU_ASSERT_FATAL(n < 1024);
			CU_ASSERT_FATAL(rows > 0 && rows % timeline_cases[i].p == 0);
			for (int k = 0; k < n; k++) {
				bool scale = !row[k] && ((k + 1 < n && row[k + 1]) ||
				                         (k + 2 < n && row[k + 2] && !row[k + 1]));
				int part = row[k] ? 2 : scale ? 1 : 0;

				CU_ASSERT_FATAL(!scale || k >= 1);
				over[part] += len[k] > (size_t)width;
			}
			free(text);
		}
		sim_free(s);
	}
}

/* At 3 t a column, a steady 1F1B column holds one F (1 t) and one B (2 t): every device shows
 * F and B in proportion to their time, one F in three letters, whatever the phase of its ops
 * against the columns; no device looks like all forwards or all backwards. */
static void report_timeline_shows_ops_sharing_columns_in_proportion(void)
{
	struct sim *s = unit_simulate("1f1b", 8, 64, 0);
	char *text = write_timeline(s, 120);
	char label[48], line[256];

	CU_ASSERT_PTR_NOT_NULL(strstr(text, "one column = 3 t"));
	for (int d = 0; d < 8; d++) {
		const char *cells;
		int f = 0, b = 0;

		snprintf(label, sizeof(label), "GPU %d (stage %d) ", d, d);
		CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(text, label, line, sizeof(line)));
		cells = line + strlen(label);
		/* columns 10 to 57: t = 30 to 174, in every device's steady state */
		for (int k = 10; k < 58; k++) {
			f += cells[k] == 'F';
			b += cells[k] == 'B';
		}
		CU_ASSERT_EQUAL(f + b, 48);
		CU_ASSERT(f >= 15 && f <= 17);
		/* and never two forwards in a row there */
		CU_ASSERT_PTR_NULL(strstr(cells + 10, "FF"));
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "FBB shared columns, letters by time"));
	CU_ASSERT_PTR_NULL(strstr(text, "[F3] micro-batch 3"));
	free(text);
	sim_free(s);
}

/* Every op shows: the column holding its middle is never idle, however short the op and
 * whatever shares its columns (here forwards of 0.3 t and backwards of 1.1 t at 0.6 t a
 * column, and the coarse 1F1B above). */
static void report_timeline_shows_every_op_in_the_column_of_its_middle(void)
{
	struct config cases[2];

	cases[0] = unit_config("1f1b", 4, 1, 1, 0.3, 1.1, 1);
	cases[1] = unit_config("1f1b", 8, 1, 64, 1, 1, 1);
	for (size_t n = 0; n < 2; n++) {
		struct sim *s = unit_run(&cases[n], 0);
		const struct sched *sc = s->sched;
		char *text = write_timeline(s, n == 0 ? 40 : 120);
		double step = column_step_of(text);
		char label[48], line[1024];

		CU_ASSERT_FATAL(step > 0);
		for (int d = 0; d < sc->p; d++) {
			snprintf(label, sizeof(label), "GPU %d (stage %d) ", d, d);
			CU_ASSERT_PTR_NOT_NULL_FATAL(device_row(text, label, line, sizeof(line)));
			for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
				double mid =
				        (pp_time_to_units(s->result->times[i].start,
				                          s->cost->tick) +
				         pp_time_to_units(s->result->times[i].end, s->cost->tick)) /
				        2;
				size_t k = strlen(label) + (size_t)floor(mid / step);

				CU_ASSERT_FATAL(k < strlen(line));
				CU_ASSERT_NOT_EQUAL(line[k], '.');
			}
		}
		free(text);
		sim_free(s);
	}
}

static void report_timeline_rows_fit_the_width(void)
{
	int over[3];

	count_overlong_lines(over);
	CU_ASSERT_EQUAL(over[2], 0);
}

static void report_timeline_scale_fits_the_width(void)
{
	int over[3];

	count_overlong_lines(over);
	CU_ASSERT_EQUAL(over[1], 0);
}

static void report_timeline_header_and_legend_fit_the_width(void)
{
	int over[3];

	count_overlong_lines(over);
	CU_ASSERT_EQUAL(over[0], 0);
}

/* Times row holds label not followed by a digit ("F1" but not as part of "F15"). */
static int label_count(const char *row, const char *label)
{
	int n = 0;

	for (const char *at = strstr(row, label); at != NULL; at = strstr(at + 1, label))
		n += !isdigit((unsigned char)at[strlen(label)]);
	return n;
}

/* The simulation of schedule at p, v, m with unit op times. */
static struct sim *simulate_shape(const char *schedule, int p, int v, int m)
{
	struct config c = unit_config(schedule, p, v, m, 1, 1, 1);

	return unit_run(&c, 0);
}

/* The mission's command, interleaved p=4, v=2, m=16, at 100 columns: every forward and backward
 * of every micro-batch, one digit or two, shows its label on its device's row, once (an op
 * crossing a band's end goes on in dashes, not in a second label). */
static void report_timeline_labels_every_op_of_the_mission_command_at_100_columns(void)
{
	struct sim *s = simulate_shape("interleaved", 4, 2, 16);
	char *text = write_timeline(s, 100);
	char label[64], row[4096], op[16];

	for (int d = 0; d < 4; d++) {
		snprintf(label, sizeof(label), "GPU %d (stages %d,%d) ", d, d, d + 4);
		CU_ASSERT_PTR_NOT_NULL_FATAL(device_row(text, label, row, sizeof(row)));
		for (int mb = 0; mb < 16; mb++)
			for (const char *k = "FfBb"; *k != '\0'; k++) {
				snprintf(op, sizeof(op), "%c%d", *k, mb);
				CU_ASSERT_EQUAL(label_count(row, op), 1);
			}
	}
	CU_ASSERT_EQUAL(lines_longer_than(text, 100), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "[F3] micro-batch 3, counted from 0"));
	free(text);
	sim_free(s);
}

/* Bands cover the time once: the rows of a device, joined, are as many columns as the
 * makespan over the column step, and every band holds every device. */
static void report_timeline_bands_join_into_the_whole_run(void)
{
	struct sim *s = simulate_shape("interleaved", 4, 2, 16);
	char *text = write_timeline(s, 100);
	char row[4096];
	const char *label = "GPU 2 (stages 2,6) ";
	double step = column_step_of(text);
	int bands = 0;

	CU_ASSERT_FATAL(step > 0);
	for (const char *at = strstr(text, label); at != NULL; at = strstr(at + 1, label))
		bands++;
	CU_ASSERT(bands >= 2 && bands <= 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(device_row(text, label, row, sizeof(row)));
	CU_ASSERT_EQUAL(strlen(row) - strlen(label), (size_t)floor(s->frame.makespan / step + 0.5));
	for (int d = 0; d < 4; d++) {
		char other[64];
		int n = 0;

		snprintf(other, sizeof(other), "GPU %d (stages %d,%d) ", d, d, d + 4);
		for (const char *at = strstr(text, other); at != NULL; at = strstr(at + 1, other))
			n++;
		CU_ASSERT_EQUAL(n, bands);
	}
	free(text);
	sim_free(s);
}

/* Long row labels (p = 16, v = 8) and long legend items (dualpipev, v = 3): no line passes the
 * width, and a row keeps at least 10 columns of time. */
static void report_timeline_fits_long_labels_and_legends_in_the_width(void)
{
	static const struct {
		const char *schedule;
		int p, v, m;
	} cases[] = {{"interleaved", 16, 8, 16},
	             {"dualpipev", 4, 2, 10},
	             {"interleaved", 4, 3, 8},
	             {"interleaved-zb", 8, 6, 16},
	             {"zbv", 4, 2, 12}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim *s =
		        simulate_shape(cases[i].schedule, cases[i].p, cases[i].v, cases[i].m);

		for (int width = PP_TIMELINE_MIN_WIDTH; width <= 120; width += 20) {
			char *text = write_timeline(s, width);
			char row[8192];

			CU_ASSERT_EQUAL(lines_longer_than(text, width), 0);
			CU_ASSERT_PTR_NOT_NULL_FATAL(device_row(text, "GPU 0 ", row, sizeof(row)));
			/* the row's cells: after the label's padding (one space or more) */
			CU_ASSERT(strlen(row) >= 10 + strlen("GPU 0 "));
			free(text);
		}
		sim_free(s);
	}
}

/* The legend's items "X meaning", each letter X with the one meaning it has in every
 * schedule: B the full backward, I the input gradient, and a split schedule's rows have no B,
 * a fused one's no I. */
static void report_timeline_letters_mean_one_op_kind_in_every_schedule(void)
{
	static const struct {
		const char *schedule;
		int v;
		const char *absent; /* letters its rows never show */
	} cases[] = {{"1f1b", 1, "IiWw"}, {"interleaved", 2, "IiWw"},  {"zbh1", 1, "Bb"},
	             {"zbv", 2, "Bb"},    {"interleaved-zb", 2, "Bb"}, {"dualpipev", 2, ""},
	             {"gpipe", 1, "IiWw"}};
	const char *meaning[26] = {NULL};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim *s = simulate_shape(cases[i].schedule, 4, cases[i].v, 8);
		char *text = write_timeline(s, 1000);
		char *save = NULL;

		for (char *line = strtok_r(text, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, "GPU ", 4) == 0) {
				const char *cells = strchr(line, ')') + 1;

				CU_ASSERT_EQUAL(strcspn(cells, cases[i].absent), strlen(cells));
				continue;
			}
			/* legend items: two spaces apart, "X " then the meaning */
			for (char *item = line; item != NULL;) {
				char *end = strstr(item, "  ");
				size_t len = end ? (size_t)(end - item) : strlen(item);

				if (len > 2 && isupper((unsigned char)item[0]) && item[1] == ' ') {
					int k = item[0] - 'A';

					if (end)
						*end = '\0';
					if (meaning[k] == NULL)
						meaning[k] = strdup(item);
					CU_ASSERT_STRING_EQUAL(meaning[k], item);
				}
				item = end ? end + 2 : NULL;
			}
		}
		free(text);
		sim_free(s);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(meaning['B' - 'A']);
	CU_ASSERT_PTR_NOT_NULL_FATAL(meaning['I' - 'A']);
	CU_ASSERT_STRING_EQUAL(meaning['B' - 'A'], "B full backward (input and weight gradient)");
	CU_ASSERT_STRING_EQUAL(meaning['I' - 'A'], "I input-gradient backward");
	for (int k = 0; k < 26; k++)
		free((void *)meaning[k]);
}

/* An op two columns wide or more, too narrow for its label, is its letter then dashes, so that
 * it never reads as two ops: dualpipev p=8, m=16 at 100 columns has pairs of two columns. */
static void report_timeline_draws_an_op_too_narrow_for_its_label_as_letter_and_dashes(void)
{
	struct sim *s = simulate_shape("dualpipev", 8, 2, 16);
	char *text = write_timeline(s, 100);
	char row[4096];
	bool dashed = false;

	for (int d = 0; d < 8; d++) {
		char label[48];

		snprintf(label, sizeof(label), "GPU %d ", d);
		CU_ASSERT_PTR_NOT_NULL_FATAL(device_row(text, label, row, sizeof(row)));
		dashed |= strstr(row, "#-") != NULL;
		/* a dash only ever follows a letter or another dash */
		for (const char *at = strchr(row, '-'); at != NULL; at = strchr(at + 1, '-'))
			CU_ASSERT(at[-1] == '-' || strchr("#FfBbIiWw", at[-1]) != NULL);
	}
	CU_ASSERT(dashed);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "F-- one op, too narrow for its label"));
	free(text);
	sim_free(s);
}

/* Runs the comparison of format name over rows into memory. */
static struct output write_compare(const char *name, const struct report_row *rows, int n)
{
	const struct report_format *f = report_find(name);
	struct output o = {NULL, -1};
	size_t len;
	FILE *out;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	out = open_memstream(&o.text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	o.rc = f->compare(out, rows, n);
	fclose(out);
	return o;
}

/* An op's pieces (or stalls) on each stream gathered one by one: the first's start, the last's
 * end, their summed lengths, kinds and count. */
static void gather_piece(void *ctx, const struct report_piece *pc)
{
	struct report_span *acc = ctx;
	struct report_span *x = &acc[comm_kind_info((enum comm_kind)pc->kind)->stream];

	x->lo = x->n == 0 || pc->start < x->lo ? pc->start : x->lo;
	x->hi = x->n == 0 || pc->end > x->hi ? pc->end : x->hi;
	x->busy += pc->end - pc->start;
	x->kinds |= 1u << pc->kind;
	x->n++;
}

/* Law: the spans the writers draw of an op's stream (report_op_spans, report_op_stall_spans),
 * which take a stream whole from its plan's extent where it falls in place, are its pieces and
 * stalls gathered one by one (report_op_pieces, report_op_stalls), busy time included; without
 * busy time the same but for it. Runs with every kind of stream, overlapped pairs and
 * stragglers that stretch and squeeze ops, whose pieces are placed by a scale and kept inside
 * their op. */
static void report_op_spans_are_the_op_s_pieces_gathered(void)
{
	static const char *const runs[][8] = {
	        {"1f1b", "llama3-70b", "8", "2", "pipelined", "4", "1", "1:1.5,2:0.3"},
	        {"interleaved", "llama3-8b", "4", "1", "bulk", "2", "1", "0:0.6,3:2.5@5"},
	        {"dualpipev", "qwen3-30b-a3b", "2", "1", "pipelined", "8", "8", "1:1.7,2:0.5"},
	        {"zbv", "llama3-8b", "2", "2", "none", "1", "1", "3:0.2"},
	        {"dualpipe", "qwen3-30b-a3b", "2", "1", "none", "4", "4", "2:2"},
	};
	long spans = 0, scaled = 0;

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		struct config c = unit_config(runs[r][0], 4, strcmp(runs[r][0], "interleaved") == 0 ? 2 : 1,
		                              8, 1, 1, 1);
		struct sim *s;
		struct drawing dr;

		unit_set(&c, "model", runs[r][1]);
		unit_set(&c, "gpu", "h100-sxm");
		unit_set(&c, "tp", runs[r][2]);
		unit_set(&c, "cp", runs[r][3]);
		unit_set(&c, "tp_overlap", runs[r][4]);
		unit_set(&c, "dp", runs[r][5]);
		if (strcmp(runs[r][6], "1") != 0)
			unit_set(&c, "ep", runs[r][6]);
		unit_set(&c, "overlap_grad_reduce", "yes");
		unit_set(&c, "stragglers", runs[r][7]);
		s = unit_run(&c, 0);
		dr = sim_drawing(s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(dr.result->shapes);
		for (int d = 0; d < dr.sched->p; d++)
			for (size_t i = dr.sched->dev_start[d]; i < dr.sched->dev_start[d + 1]; i++)
				for (int k = 0; k < 3; k++) {
					struct report_span fast[STREAM_COUNT] = {{0}},
					                   one[STREAM_COUNT] = {{0}};

					if (k == 2) {
						report_op_stall_spans(&dr, d, i, fast);
						report_op_stalls(&dr, d, i, gather_piece, one);
					} else {
						report_op_spans(&dr, d, i, k == 0, fast);
						report_op_pieces(&dr, d, i, gather_piece, one);
					}
					scaled += dr.result->times[i].end - dr.result->times[i].start !=
					          dr.result->shapes[3 * dr.sched->ops[i].stage].dur;
					for (int st = 0; st < STREAM_COUNT; st++) {
						CU_ASSERT_EQUAL(fast[st].n, one[st].n);
						CU_ASSERT_EQUAL(fast[st].kinds, one[st].kinds);
						if (one[st].n == 0)
							continue;
						spans++;
						CU_ASSERT_EQUAL(fast[st].lo, one[st].lo);
						CU_ASSERT_EQUAL(fast[st].hi, one[st].hi);
						if (k != 1)
							CU_ASSERT_EQUAL(fast[st].busy, one[st].busy);
					}
				}
		sim_free(s);
	}
	CU_ASSERT(spans > 1000);
	CU_ASSERT(scaled > 100);
}

/* Llama 3 70B on 4 A100s over NVLink3, 1F1B with m micro-batches; asserts that it runs. */
static struct sim *simulate_llama3_70b(int m)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;

	config_init(&c);
	strcpy(c.model, "llama3-70b");
	c.m = m;
	s = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}

/* Splits line at sep into at most max fields (pointers into line, which it modifies); returns
 * how many. Empty fields count. */
static int split(char *line, char sep, char **fields, int max)
{
	int n = 0;

	for (char *p = line; n < max;) {
		char *end = strchr(p, sep);

		fields[n++] = p;
		if (end == NULL)
			break;
		*end = '\0';
		p = end + 1;
	}
	return n;
}

/* Splits line into its blank-separated words (at most max); returns how many. */
static int words(char *line, char **out, int max)
{
	int n = 0;

	for (char *w = strtok(line, " "); w != NULL && n < max; w = strtok(NULL, " "))
		out[n++] = w;
	return n;
}

/* The index of name in fields, or -1. */
static int index_of(char *const *fields, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(fields[i], name) == 0)
			return i;
	return -1;
}

static void report_csv_writes_the_header_and_one_row_of_the_run(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	struct output o = write_format("csv", s);

	CU_ASSERT_EQUAL(o.rc, 0);
	CU_ASSERT_STRING_EQUAL(o.text, "config,schedule,p,v,m,makespan,bubble_ratio,"
	                               "bubble_ratio_theory,utilization,peak_activations,"
	                               "p2p_messages,p2p_bytes,step_time,tokens_per_s,mfu,"
	                               "memory_bytes,fits,speedup,step_mean,step_p50,step_p90,"
	                               "step_p99,rank\n"
	                               "-,1f1b,4,1,8,33,0.2727272727272727,0.2727272727272727,"
	                               "0.7272727272727273,4,48,0,,,,,,1,,,,,\n");
	free(o.text);
	sim_free(s);
}

static void report_csv_writes_every_figure_of_a_model_run_so_it_reads_back_exactly(void)
{
	struct sim *s = simulate_llama3_70b(16);
	struct output o = write_format("csv", s);
	const struct metrics *m = &s->metrics;
	char *nl, *head[32], *row[32];
	int nh, nr;
	double top = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o.text);
	nl = strchr(o.text, '\n');
	CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
	*nl = '\0';
	CU_ASSERT_EQUAL_FATAL(strlen(nl + 1) > 0 && nl[strlen(nl + 1)] == '\n', 1);
	nl[strlen(nl + 1)] = '\0';
	nh = split(o.text, ',', head, 32);
	nr = split(nl + 1, ',', row, 32);
	CU_ASSERT_EQUAL_FATAL(nh, 23);
	CU_ASSERT_EQUAL_FATAL(nr, nh);
	for (int d = 0; d < 4; d++)
		if (m->devices[d].memory_bytes > top)
			top = m->devices[d].memory_bytes;
	CU_ASSERT_EQUAL(strtod(row[index_of(head, nh, "makespan")], NULL), m->makespan);
	CU_ASSERT_EQUAL(strtod(row[index_of(head, nh, "bubble_ratio")], NULL), m->bubble_ratio);
	CU_ASSERT_EQUAL(strtod(row[index_of(head, nh, "utilization")], NULL), m->utilization);
	CU_ASSERT_EQUAL(strtod(row[index_of(head, nh, "step_time")], NULL), m->step_time);
	CU_ASSERT_EQUAL(strtod(row[index_of(head, nh, "tokens_per_s")], NULL), m->tokens_per_s);
	CU_ASSERT_EQUAL(strtod(row[index_of(head, nh, "mfu")], NULL), m->mfu);
	CU_ASSERT_EQUAL(strtod(row[index_of(head, nh, "memory_bytes")], NULL), top);
	CU_ASSERT_STRING_EQUAL(row[index_of(head, nh, "bubble_ratio_theory")], "");
	CU_ASSERT_STRING_EQUAL(row[index_of(head, nh, "fits")], "OOM");
	CU_ASSERT_STRING_EQUAL(row[index_of(head, nh, "p2p_bytes")], "3221225472");
	CU_ASSERT_STRING_EQUAL(row[index_of(head, nh, "speedup")], "1");
	free(o.text);
	sim_free(s);
}

static void report_compare_text_marks_the_best_value_of_each_column_with_a_star(void)
{
	struct sim *fast = unit_simulate("1f1b", 4, 8, 0);
	struct sim *slow = unit_simulate("1f1b", 4, 8, 0.1);
	struct report_row rows[] = {{"fast.json", fast, 0}, {"slow.json", slow, 0}};
	struct output o = write_compare("text", rows, 2);
	char line[3][512], *head[32], *a[32], *b[32];
	int nh, na, nb;

	CU_ASSERT_EQUAL(o.rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "config ", line[0], sizeof(line[0])));
	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "fast.json ", line[1], sizeof(line[1])));
	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "slow.json ", line[2], sizeof(line[2])));
	nh = words(line[0], head, 32);
	na = words(line[1], a, 32);
	nb = words(line[2], b, 32);
	CU_ASSERT_EQUAL_FATAL(na, nh);
	CU_ASSERT_EQUAL_FATAL(nb, nh);
	/* makespan 33 against 34.6: lower wins */
	CU_ASSERT_STRING_EQUAL(a[index_of(head, nh, "makespan")], "33*");
	CU_ASSERT_STRING_EQUAL(b[index_of(head, nh, "makespan")], "34.6");
	CU_ASSERT_STRING_EQUAL(a[index_of(head, nh, "bubble_ratio")], "0.2727*");
	CU_ASSERT_EQUAL(strchr(b[index_of(head, nh, "bubble_ratio")], '*'), NULL);
	/* higher utilization wins */
	CU_ASSERT_STRING_EQUAL(a[index_of(head, nh, "utilization")], "0.7273*");
	CU_ASSERT_EQUAL(strchr(b[index_of(head, nh, "utilization")], '*'), NULL);
	/* a tie marks both; the closed form is not a figure to win */
	CU_ASSERT_STRING_EQUAL(a[index_of(head, nh, "peak_activations")], "4*");
	CU_ASSERT_STRING_EQUAL(b[index_of(head, nh, "peak_activations")], "4*");
	CU_ASSERT_STRING_EQUAL(a[index_of(head, nh, "bubble_ratio_theory")], "0.2727");
	CU_ASSERT_STRING_EQUAL(b[index_of(head, nh, "bubble_ratio_theory")], "-");
	/* without a model the model columns are left out */
	CU_ASSERT_EQUAL(index_of(head, nh, "step_time"), -1);
	CU_ASSERT_EQUAL(index_of(head, nh, "mfu"), -1);
	free(o.text);
	sim_free(fast);
	sim_free(slow);
}

static void report_compare_text_gives_each_row_its_speedup_against_the_first(void)
{
	struct sim *fast = unit_simulate("1f1b", 4, 8, 0);
	struct sim *slow = unit_simulate("1f1b", 4, 8, 0.1);
	struct report_row rows[] = {{"slow.json", slow, 0}, {"fast.json", fast, 0}};
	struct output o = write_compare("text", rows, 2);
	char line[3][512], *head[32], *a[32], *b[32];
	int nh;

	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "config ", line[0], sizeof(line[0])));
	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "slow.json ", line[1], sizeof(line[1])));
	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "fast.json ", line[2], sizeof(line[2])));
	nh = words(line[0], head, 32);
	CU_ASSERT_EQUAL_FATAL(words(line[1], a, 32), nh);
	CU_ASSERT_EQUAL_FATAL(words(line[2], b, 32), nh);
	CU_ASSERT_EQUAL_FATAL(index_of(head, nh, "speedup"), nh - 1);
	/* 34.6 / 33 = 1.04848... */
	CU_ASSERT_STRING_EQUAL(a[nh - 1], "1.0000");
	CU_ASSERT_STRING_EQUAL(b[nh - 1], "1.0485*");
	CU_ASSERT_PTR_NOT_NULL(strstr(o.text, "speedup = first row's makespan / row's"));
	free(o.text);
	sim_free(fast);
	sim_free(slow);
}

static void report_compare_text_of_one_row_marks_nothing(void)
{
	struct sim *s = unit_simulate("gpipe", 4, 8, 0);
	struct report_row rows[] = {{"-", s, 0}};
	struct output o = write_compare("text", rows, 1);
	char line[512];

	CU_ASSERT_EQUAL(o.rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(line_starting(o.text, "-  ", line, sizeof(line)));
	CU_ASSERT_PTR_NULL(strchr(line, '*'));
	free(o.text);
	sim_free(s);
}

static void report_compare_json_is_an_array_of_run_objects_with_label_and_speedup(void)
{
	struct sim *fast = unit_simulate("1f1b", 4, 8, 0);
	struct sim *slow = unit_simulate("gpipe", 4, 8, 0.1);
	struct report_row rows[] = {{"fast.json", fast, 0}, {"slow.json", slow, 0}};
	struct output o = write_compare("json", rows, 2);
	struct output single = write_format("json", fast);
	cJSON *root = cJSON_Parse(o.text), *one = cJSON_Parse(single.text);
	const cJSON *run;
	int i = 0;

	CU_ASSERT_EQUAL(o.rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	CU_ASSERT_PTR_NOT_NULL_FATAL(one);
	CU_ASSERT_TRUE_FATAL(cJSON_IsArray(root));
	CU_ASSERT_EQUAL(cJSON_GetArraySize(root), 2);
	cJSON_ArrayForEach(run, root)
	{
		const cJSON *key = run->child, *want;

		/* the single-run keys in their order, then label and speedup */
		cJSON_ArrayForEach(want, one)
		{
			CU_ASSERT_PTR_NOT_NULL_FATAL(key);
			CU_ASSERT_STRING_EQUAL(key->string, want->string);
			key = key->next;
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(key);
		CU_ASSERT_STRING_EQUAL(key->string, "label");
		CU_ASSERT_PTR_NOT_NULL_FATAL(key->next);
		CU_ASSERT_STRING_EQUAL(key->next->string, "speedup");
		CU_ASSERT_PTR_NULL(key->next->next);
		CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(key), rows[i].label);
		i++;
	}
	CU_ASSERT_STRING_EQUAL(
	        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(root, 1), "schedule")),
	        "gpipe");
	ASSERT_NEAR(
	        cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(root, 0), "speedup")),
	        1);
	ASSERT_NEAR(
	        cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(root, 1), "speedup")),
	        33 / slow->metrics.makespan);
	CU_ASSERT_TRUE(slow->metrics.makespan > 33);
	cJSON_Delete(root);
	cJSON_Delete(one);
	free(o.text);
	free(single.text);
	sim_free(fast);
	sim_free(slow);
}

static void report_compare_csv_writes_one_header_and_a_row_per_config(void)
{
	struct sim *a = unit_simulate("1f1b", 4, 8, 0);
	struct sim *b = unit_simulate("gpipe", 2, 4, 0);
	struct report_row rows[] = {{"a.json", a, 0}, {"b.json", b, 0}};
	struct output o = write_compare("csv", rows, 2);
	int lines = 0;

	CU_ASSERT_EQUAL(o.rc, 0);
	for (const char *p = o.text; *p != '\0'; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 3);
	CU_ASSERT_EQUAL(strncmp(o.text, "config,schedule,p,v,m,makespan,", 31), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.text, "\na.json,1f1b,4,1,8,33,"));
	/* gpipe p=2 m=4 takes 15 units: speedup 33 / 15 = 2.2 */
	CU_ASSERT_PTR_NOT_NULL(strstr(o.text, "\nb.json,gpipe,2,1,4,15,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.text, ",2.2,,,,,\n"));
	free(o.text);
	sim_free(a);
	sim_free(b);
}

/* The number at key in object obj; fails the test when it is not a number. */
static double number_at(const cJSON *obj, const char *key)
{
	const cJSON *x = cJSON_GetObjectItem(obj, key);

	CU_ASSERT_TRUE(cJSON_IsNumber(x));
	return cJSON_GetNumberValue(x);
}

static void report_json_with_a_model_gives_step_time_throughput_and_mfu_as_numbers(void)
{
	struct sim *s = simulate_llama3_70b(16);
	struct output o = write_format("json", s);
	cJSON *root = cJSON_Parse(o.text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	ASSERT_NEAR(number_at(root, "step_time"), s->metrics.step_time);
	ASSERT_NEAR(number_at(root, "tokens_per_s"), s->metrics.tokens_per_s);
	ASSERT_NEAR(number_at(root, "samples_per_s"), s->metrics.samples_per_s);
	ASSERT_NEAR(number_at(root, "mfu"), s->metrics.mfu);
	/* 16 sequences of 2048 tokens a step */
	CU_ASSERT_DOUBLE_EQUAL(number_at(root, "tokens_per_s"),
	                       16 * 2048 / (s->metrics.step_time / 1e3), 1e-6);
	/* no kernel runs above the A100's large-GEMM efficiency, 0.8 of peak */
	CU_ASSERT_TRUE(number_at(root, "mfu") > 0 && number_at(root, "mfu") < 0.8);
	CU_ASSERT_TRUE(cJSON_IsObject(cJSON_GetObjectItem(root, "model")));
	cJSON_Delete(root);
	free(o.text);
	sim_free(s);
}

static void report_json_model_object_holds_the_message_bytes_and_the_layer_flops(void)
{
	struct sim *s = simulate_llama3_70b(8);
	struct output o = write_format("json", s);
	cJSON *root = cJSON_Parse(o.text);
	const cJSON *model, *flops, *stages;
	/* Llama 3 70B: P = 2h^2 + 2h(8 x 128) + 3h x 28672 linear parameters, t = 2048 tokens */
	double h = 8192, t = 2048, p = 2 * h * h + 2 * h * 1024 + 3 * h * 28672;

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	model = cJSON_GetObjectItem(root, "model");
	CU_ASSERT_TRUE_FATAL(cJSON_IsObject(model));
	CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(cJSON_GetObjectItem(model, "name")),
	                       "llama3-70b");
	ASSERT_NEAR(number_at(model, "msg_bytes"), 33554432);
	ASSERT_NEAR(number_at(model, "layer_params"), p);
	ASSERT_NEAR(number_at(model, "tp"), 1);
	ASSERT_NEAR(number_at(model, "layers"), 80);
	flops = cJSON_GetObjectItem(model, "layer_flops");
	CU_ASSERT_TRUE_FATAL(cJSON_IsObject(flops));
	ASSERT_NEAR(number_at(flops, "f"), 2 * p * t + 4 * t * t * h);
	ASSERT_NEAR(number_at(flops, "b"), 2 * p * t + 8 * t * t * h);
	ASSERT_NEAR(number_at(flops, "w"), 2 * p * t);
	flops = cJSON_GetObjectItem(model, "head_flops");
	CU_ASSERT_TRUE_FATAL(cJSON_IsObject(flops));
	ASSERT_NEAR(number_at(flops, "f"), 2 * t * h * 128256);
	stages = cJSON_GetObjectItem(model, "stages");
	CU_ASSERT_TRUE_FATAL(cJSON_IsArray(stages));
	CU_ASSERT_EQUAL(cJSON_GetArraySize(stages), 4);
	ASSERT_NEAR(number_at(cJSON_GetArrayItem(stages, 2), "layers"), 20);
	/* the message size also stands among the costs */
	ASSERT_NEAR(number_at(cJSON_GetObjectItem(root, "costs"), "msg_bytes"), 33554432);
	cJSON_Delete(root);
	free(o.text);
	sim_free(s);
}

static void report_json_devices_with_a_model_hold_memory_capacity_and_oom(void)
{
	struct sim *s = simulate_llama3_70b(8);
	struct output o = write_format("json", s);
	cJSON *root = cJSON_Parse(o.text);
	const cJSON *devices, *dev;
	int d = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	devices = cJSON_GetObjectItem(root, "devices");
	CU_ASSERT_TRUE_FATAL(cJSON_IsArray(devices));
	cJSON_ArrayForEach(dev, devices)
	{
		const struct device_metrics *dm = &s->metrics.devices[d];

		ASSERT_NEAR(number_at(dev, "memory_bytes"), dm->memory_bytes);
		ASSERT_NEAR(number_at(dev, "activation_bytes"), dm->activation_bytes);
		ASSERT_NEAR(number_at(dev, "memory_capacity_bytes"), 80e9);
		/* 70B parameters at 16 bytes over 4 GPUs cannot fit in 80 GB */
		CU_ASSERT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(dev, "oom")));
		d++;
	}
	CU_ASSERT_EQUAL(d, 4);
	cJSON_Delete(root);
	free(o.text);
	sim_free(s);
}

static void report_json_without_a_model_writes_null_model_figures(void)
{
	static const char *const keys[] = {"step_time", "tokens_per_s", "samples_per_s", "mfu",
	                                   "model"};
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	struct output o = write_format("json", s);
	cJSON *root = cJSON_Parse(o.text);
	const cJSON *dev;

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(root, keys[i])));
	cJSON_ArrayForEach(dev, cJSON_GetObjectItem(root, "devices"))
	{
		CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(dev, "memory_bytes"));
		CU_ASSERT_PTR_NULL(cJSON_GetObjectItem(dev, "oom"));
	}
	cJSON_Delete(root);
	free(o.text);
	sim_free(s);
}

/* Simulates a config with every message recorded; must succeed. */
static struct sim *simulate_recorded(const char *schedule, int p, int v, int m, double t_comm)
{
	struct config c = unit_config(schedule, p, v, m, 1, 1, 1);

	c.t_comm = t_comm;
	return unit_run(&c, SIM_RECORD_MESSAGES);
}

static const char *string_of(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(x) ? x->valuestring : "";
}

static double number_of(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(x) ? x->valuedouble : -1;
}

static void report_trace_parses_back_with_each_op_once_every_flow_closed_no_negative_counter(void)
{
	static const struct {
		const char *schedule;
		int v, m;
	} runs[] = {{"1f1b", 1, 8}, {"interleaved", 2, 8}, {"zbv", 2, 8}, {"dualpipev", 2, 10}};

	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct sim *s = simulate_recorded(runs[k].schedule, 4, runs[k].v, runs[k].m, 0.1);
		char *text = write_with(report_trace, s);
		cJSON *root = cJSON_Parse(text), *events;
		const cJSON *e;
		const struct sched *sc = s->sched;
		unsigned char *seen = calloc(sc->nops, 1);
		size_t ops = 0, starts = 0, ends = 0,
		       *ids = calloc(2 * sc->nops + 1, sizeof(size_t));

		CU_ASSERT_PTR_NOT_NULL_FATAL(root);
		events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
		CU_ASSERT_FATAL(cJSON_IsArray(events));
		cJSON_ArrayForEach(e, events)
		{
			const char *ph = string_of(e, "ph");

			if (strcmp(ph, "X") == 0 && number_of(e, "tid") == 0) {
				/* a compute op: find it by device, kind, micro-batch and stage */
				const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
				int d = (int)number_of(e, "pid");
				uint32_t mb = (uint32_t)number_of(args, "microbatch");
				uint32_t st = (uint32_t)number_of(args, "stage");
				const char *kind = string_of(args, "kind");

				for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
					const struct op *op = &sc->ops[i];

					if (op->mb != mb || op->stage != st ||
					    strcmp(sched_kind_name((enum op_kind)op->kind), kind) !=
					            0)
						continue;
					seen[i]++;
					/* ts 1 is time 0, then 1000 per unit */
					CU_ASSERT_DOUBLE_EQUAL(
					        number_of(e, "ts"),
					        1 + pp_time_to_units(s->result->times[i].start,
					                             s->cost->tick) *
					                        1000,
					        1e-6);
					CU_ASSERT_DOUBLE_EQUAL(
					        number_of(e, "dur"),
					        pp_time_to_units(s->result->times[i].end -
					                                 s->result->times[i].start,
					                         s->cost->tick) *
					                1000,
					        1e-6);
				}
				ops++;
			} else if (strcmp(ph, "s") == 0) {
				size_t id = (size_t)number_of(e, "id");

				CU_ASSERT_FATAL(id >= 1 && id <= 2 * sc->nops);
				ids[id]++;
				starts++;
			} else if (strcmp(ph, "f") == 0) {
				size_t id = (size_t)number_of(e, "id");

				CU_ASSERT_FATAL(id >= 1 && id <= 2 * sc->nops);
				CU_ASSERT_EQUAL(ids[id], 1);
				ids[id]++;
				ends++;
			} else if (strcmp(ph, "C") == 0) {
				const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");

				CU_ASSERT(number_of(args, "micro-batches") >= 0);
			}
		}
		CU_ASSERT_EQUAL(ops, sc->nops);
		for (size_t i = 0; i < sc->nops; i++)
			CU_ASSERT_EQUAL(seen[i], 1);
		CU_ASSERT_EQUAL(starts, s->result->messages);
		CU_ASSERT_EQUAL(ends, starts);
		for (size_t id = 1; id <= starts; id++)
			CU_ASSERT_EQUAL(ids[id], 2);
		free(ids);
		free(seen);
		cJSON_Delete(root);
		free(text);
		sim_free(s);
	}
}

/* An event's binding token as Chrome's trace engine forms it: category, pid, tid, ts. */
static bool same_binding(const cJSON *a, const cJSON *b)
{
	return strcmp(string_of(a, "cat"), string_of(b, "cat")) == 0 &&
	       number_of(a, "pid") == number_of(b, "pid") &&
	       number_of(a, "tid") == number_of(b, "tid") &&
	       number_of(a, "ts") == number_of(b, "ts");
}

/*
 * Every flow of a trace binds to slices as Chrome's trace engine binds them (a flow event to a
 * slice of its category, process, thread and timestamp, the points of a flow keyed by their
 * timestamps): its start to the transfer on a send track, or to the producing op when the
 * transfer takes no time and its consumer does not wait, its end to the consuming op on the
 * compute track, later than its start; no slice lies at ts 0, which the engine leaves out of
 * the trace's bounds; and every send track is named for the direction of the transfers it
 * holds, with both kinds of channel. tests/cli/t_trace_engine.sh checks the same with the
 * engine itself.
 */
static void report_trace_flows_bind_and_send_tracks_are_named_for_their_direction(void)
{
	static const struct {
		const char *schedule;
		int v, m;
		enum pp_duplex duplex;
		double t_comm;
	} runs[] = {{"1f1b", 1, 8, PP_DUPLEX_FULL, 0.1},
	            {"interleaved", 2, 8, PP_DUPLEX_FULL, 0.1},
	            {"zbv", 2, 8, PP_DUPLEX_HALF, 0.1},
	            {"1f1b", 1, 8, PP_DUPLEX_HALF, 0.1},
	            {"dualpipev", 2, 10, PP_DUPLEX_HALF, 0.1},
	            {"1f1b", 1, 8, PP_DUPLEX_FULL, 0},
	            {"interleaved", 2, 8, PP_DUPLEX_FULL, 0},
	            {"dualpipev", 2, 10, PP_DUPLEX_FULL, 0}};

	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct config c = unit_config(runs[k].schedule, 4, runs[k].v, runs[k].m, 1, 1, 1);
		struct sim *s;
		char *text;
		cJSON *root, *events;
		const cJSON *e, *x;
		size_t flows = 0, moved = 0;
		double *start_ts;

		c.t_comm = runs[k].t_comm;
		c.duplex = runs[k].duplex;
		s = unit_run(&c, SIM_RECORD_MESSAGES);
		text = write_with(report_trace, s);
		root = cJSON_Parse(text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(root);
		events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
		start_ts = calloc(s->result->messages + 1, sizeof(*start_ts));
		CU_ASSERT_PTR_NOT_NULL_FATAL(start_ts);
		cJSON_ArrayForEach(e, events)
		{
			const char *ph = string_of(e, "ph");
			size_t bound = 0, id;

			if (strcmp(ph, "M") != 0)
				CU_ASSERT(number_of(e, "ts") > 0);

			if (strcmp(ph, "X") == 0 && number_of(e, "tid") != 0) {
				/* a transfer "F3 to GPU 1" lies on a track named "send to GPU 1..."
				 */
				const char *to = strstr(string_of(e, "name"), " to GPU ");
				char want[64];
				size_t named = 0;

				CU_ASSERT_PTR_NOT_NULL_FATAL(to);
				snprintf(want, sizeof(want), "send%s", to);
				cJSON_ArrayForEach(x, events)
				{
					const cJSON *args =
					        cJSON_GetObjectItemCaseSensitive(x, "args");

					if (strcmp(string_of(x, "name"), "thread_name") == 0 &&
					    number_of(x, "pid") == number_of(e, "pid") &&
					    number_of(x, "tid") == number_of(e, "tid")) {
						named++;
						CU_ASSERT_EQUAL(strncmp(string_of(args, "name"),
						                        want, strlen(want)),
						                0);
						CU_ASSERT(!isdigit((unsigned char)string_of(
						        args, "name")[strlen(want)]));
					}
				}
				CU_ASSERT_EQUAL(named, 1);
			}
			if (strcmp(ph, "s") != 0 && strcmp(ph, "f") != 0)
				continue;
			flows++;
			cJSON_ArrayForEach(x, events) bound +=
			        strcmp(string_of(x, "ph"), "X") == 0 && same_binding(e, x);
			CU_ASSERT_EQUAL(bound, 1);
			id = (size_t)number_of(e, "id");
			CU_ASSERT_FATAL(id >= 1 && id <= s->result->messages);
			if (strcmp(ph, "s") == 0) {
				start_ts[id] = number_of(e, "ts");
				moved += number_of(e, "tid") == 0;
			} else {
				CU_ASSERT_EQUAL(number_of(e, "tid"), 0);
				CU_ASSERT(number_of(e, "ts") > start_ts[id]);
			}
		}
		CU_ASSERT_EQUAL(flows, 2 * s->result->messages);
		CU_ASSERT(flows > 0);
		/* with no time on the links, arrows start at the producing ops */
		CU_ASSERT_EQUAL(moved > 0, runs[k].t_comm == 0);
		free(start_ts);
		cJSON_Delete(root);
		free(text);
		sim_free(s);
	}
}

/* Occurrences of needle in text. */
static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0, len = strlen(needle);

	for (size_t i = 0; text[i] != '\0'; i++)
		if (strncmp(text + i, needle, len) == 0)
			n++;
	return n;
}

/*
 * With --trace-names=torch the slices carry the names of the profiler ranges PyTorch's
 * pipelining runtime records (record_function("PP:" + action)): interleaved 1F1B, p=2, v=2,
 * m=2, is Interleaved1F1B's order op for op, stage indexes global (device 0 holds stages 0 and
 * 2), B a full backward; a transfer is the action that sends it; an overlapped dualpipev pair
 * is one action, on both its slices; and the default names are the timeline's.
 */
static void report_trace_names_slices_as_pytorch_s_profiler_ranges_when_asked(void)
{
	static const char *const want[] = {
	        "PP:0F0", "PP:0F1", "PP:2F0", "PP:2F1", "PP:2B0", "PP:2B1", "PP:0B0", "PP:0B1",
	        "PP:1F0", "PP:1F1", "PP:3F0", "PP:3B0", "PP:3F1", "PP:3B1", "PP:1B0", "PP:1B1"};
	struct sim *s = simulate_recorded("interleaved", 2, 2, 2, 0.1);
	char *text;
	cJSON *root;
	const cJSON *e;
	size_t k = 0;

	text = write_with(report_trace, s);
	CU_ASSERT_PTR_NULL(strstr(text, "PP:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"f0\""));
	free(text);
	s->config.trace_names = PP_TRACE_NAMES_TORCH;
	text = write_with(report_trace, s);
	root = cJSON_Parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents"))
	{
		if (strcmp(string_of(e, "ph"), "X") != 0 || number_of(e, "tid") != 0)
			continue;
		CU_ASSERT_FATAL(k < sizeof(want) / sizeof(want[0]));
		CU_ASSERT_STRING_EQUAL(string_of(e, "name"), want[k]);
		k++;
	}
	CU_ASSERT_EQUAL(k, sizeof(want) / sizeof(want[0]));
	CU_ASSERT_EQUAL(count_of(text, "\"name\":\"PP:0SEND_F1\""), 1);
	CU_ASSERT_EQUAL(count_of(text, "\"name\":\"PP:3SEND_B0\""), 1);
	cJSON_Delete(root);
	free(text);
	sim_free(s);

	s = simulate_recorded("dualpipev", 4, 2, 10, 0);
	s->config.trace_names = PP_TRACE_NAMES_TORCH;
	text = write_with(report_trace, s);
	CU_ASSERT_EQUAL(count_of(text, "\"name\":\"PP:(0F7;7B3)OVERLAP_F_B\""), 2);
	CU_ASSERT_EQUAL(count_of(text, "\"name\":\"PP:7I0\""), 1);
	CU_ASSERT_EQUAL(count_of(text, "\"name\":\"PP:7W0\""), 1);
	free(text);
	sim_free(s);
}

static int svg_of_one(FILE *out, const struct drawing *d)
{
	return report_svg(out, d, 1);
}

static void report_svg_draws_one_rectangle_per_op_and_one_per_message(void)
{
	struct sim *s = simulate_recorded("1f1b", 4, 1, 8, 0.5);
	char *text = write_with(svg_of_one, s);

	CU_ASSERT_EQUAL(count_of(text, "class=\"op\""), s->sched->nops);
	CU_ASSERT_EQUAL(count_of(text, "class=\"msg "), s->result->messages);
	CU_ASSERT_EQUAL(count_of(text, "class=\"merged"), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "<?xml version=\"1.0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "</svg>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "1f1b  p=4 v=1 m=8"));
	free(text);
	sim_free(s);
}

/* A transfer names its ends and is coloured (and, wide enough, pointed) by its direction. */
static void report_svg_shows_which_way_each_transfer_goes(void)
{
	struct sim *s = simulate_recorded("1f1b", 4, 1, 8, 0.5);
	char *text = write_with(svg_of_one, s);

	/* 1F1B sends each F's output down and each backward's up: m (p - 1) each way */
	CU_ASSERT_EQUAL(count_of(text, "<rect class=\"msg dn\""), 24);
	CU_ASSERT_EQUAL(count_of(text, "<rect class=\"msg up\""), 24);
	CU_ASSERT_EQUAL(count_of(text, "GPU 0 -&gt; GPU 1,"), 8);
	CU_ASSERT_EQUAL(count_of(text, "GPU 3 -&gt; GPU 2,"), 8);
	CU_ASSERT_EQUAL(count_of(text, "GPU 1 -&gt; GPU 3"), 0);
	/* half a unit is about 12 px here: each has its arrowhead */
	CU_ASSERT_EQUAL(count_of(text, "<path class=\"dn\""), 24);
	CU_ASSERT_EQUAL(count_of(text, "<path class=\"up\""), 24);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "transfer down (to a later GPU)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "transfer up (to an earlier GPU)"));
	free(text);
	sim_free(s);
}

/* The legend lists the op kinds drawn, odd chunks only with v > 1, transfers only if drawn. */
static void report_svg_legend_lists_only_what_is_drawn(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	struct sim *il = simulate_recorded("interleaved", 4, 2, 8, 0.1);
	struct sim *zb = unit_simulate("zbh1", 4, 8, 0);
	char *text = write_with(svg_of_one, s), *il_text = write_with(svg_of_one, il);
	char *zb_text = write_with(svg_of_one, zb);

	CU_ASSERT_PTR_NOT_NULL(strstr(text, ">F forward<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ">B full backward (input and weight gradient)<"));
	CU_ASSERT_PTR_NULL(strstr(text, ">W weight-gradient"));
	CU_ASSERT_PTR_NULL(strstr(text, "input-gradient"));
	CU_ASSERT_PTR_NULL(strstr(text, "odd chunks"));
	CU_ASSERT_PTR_NULL(strstr(text, "transfer"));
	CU_ASSERT_PTR_NULL(strstr(text, "merged"));
	CU_ASSERT_PTR_NOT_NULL(strstr(il_text, "lighter: odd chunks"));
	CU_ASSERT_PTR_NOT_NULL(strstr(il_text, "transfer down"));
	CU_ASSERT_PTR_NULL(strstr(il_text, ">W weight-gradient"));
	CU_ASSERT_PTR_NOT_NULL(strstr(zb_text, ">I input-gradient backward<"));
	CU_ASSERT_PTR_NOT_NULL(strstr(zb_text, ">W weight-gradient backward<"));
	CU_ASSERT_PTR_NULL(strstr(zb_text, "full backward"));
	free(text);
	free(il_text);
	free(zb_text);
	sim_free(s);
	sim_free(il);
	sim_free(zb);
}

/* Each device row lies on a grey ground from the run's start to its end: its idle time. */
static void report_svg_shades_each_device_s_idle_time(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	char *text = write_with(svg_of_one, s);

	/* 1200 px wide, 33 units from 0 to the end of the axis at 1170 */
	CU_ASSERT_EQUAL(count_of(text, "<rect class=\"idle\" x=\"170.00\""), 4);
	CU_ASSERT_EQUAL(count_of(text, "width=\"1000.00\" height=\"18\""), 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, ">idle<"));
	free(text);
	sim_free(s);
}

/*
 * Ops and transfers too narrow to see are merged: p = 8, m = 2048 (49152 ops, 28672 transfers)
 * draws in far fewer shapes, at most a path per device and band, in under 2 MB.
 */
static void report_svg_merges_what_is_narrower_than_a_few_pixels(void)
{
	struct sim *s = simulate_recorded("zbh1", 8, 1, 2048, 0);
	char *text = write_with(svg_of_one, s);
	size_t shapes = count_of(text, "class=\"op\"") + count_of(text, "class=\"msg ");

	CU_ASSERT(strlen(text) < 2000000);
	CU_ASSERT(shapes < (s->sched->nops + s->result->messages) / 10);
	CU_ASSERT(count_of(text, "<path class=\"merged") <= 8 * 8 + 8 * 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "2048 F ops merged"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "transfers GPU 3 -&gt; GPU 4 merged"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "bands: shapes under 3 px merged"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "</svg>"));
	free(text);
	sim_free(s);
}

/* Without --svg-width the drawing widens until the shorter ops fit their labels, up to its
 * ceiling; a small run keeps the narrowest width. */
static void report_svg_widens_for_its_labels_up_to_a_ceiling(void)
{
	struct sim *small = unit_simulate("1f1b", 4, 8, 0);
	struct sim *mid = unit_simulate("1f1b", 8, 16, 0);
	struct sim *big = unit_simulate("1f1b", 8, 2048, 0);
	char *small_text = write_with(svg_of_one, small), *mid_text = write_with(svg_of_one, mid);
	char *big_text = write_with(svg_of_one, big);
	int width = 0;

	CU_ASSERT_PTR_NOT_NULL(strstr(small_text, " width=\"1200\" "));
	CU_ASSERT_EQUAL(sscanf(mid_text, "%*[^\n] <svg xmlns=%*s width=\"%d\"", &width), 1);
	CU_ASSERT(width > PP_SVG_AUTO_MIN_WIDTH && width <= PP_SVG_AUTO_MAX_WIDTH);
	/* p = 8, m = 16: every op labelled ("F15" fits an F of one unit) */
	CU_ASSERT(width < PP_SVG_AUTO_MAX_WIDTH);
	CU_ASSERT_EQUAL(count_of(mid_text, "class=\"label\""), mid->sched->nops);
	/* and no wider than the ceiling however long the run (issue 41: 2400, was 6000) */
	CU_ASSERT_EQUAL(PP_SVG_AUTO_MAX_WIDTH, 2400);
	CU_ASSERT_PTR_NOT_NULL(strstr(big_text, " width=\"2400\" "));
	free(small_text);
	free(mid_text);
	free(big_text);
	sim_free(small);
	sim_free(mid);
	sim_free(big);
}

/* --svg-width sets the drawing's width, and the time axis stretches to its right margin. */
static void report_svg_follows_its_width(void)
{
	struct sim *s = simulate_recorded("1f1b", 4, 1, 8, 0.1);
	char *text;

	CU_ASSERT_EQUAL(s->config.svg_width, PP_SVG_AUTO_WIDTH);
	s->config.svg_width = 600;
	text = write_with(svg_of_one, s);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "width=\"600\" height="));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "viewBox=\"0 0 600 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "<line class=\"axis\" x1=\"170\" y1="));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "x2=\"570.00\""));
	CU_ASSERT_PTR_NULL(strstr(text, "1200"));
	free(text);
	sim_free(s);
}

static void report_timeline_colored_uses_escapes_only_when_asked(void)
{
	struct sim *s = unit_simulate("1f1b", 4, 8, 0);
	char *plain = NULL, *colored = NULL;
	size_t len;
	FILE *out = open_memstream(&plain, &len);

	CU_ASSERT_EQUAL(report_timeline_colored(out, UNIT_DRAWING(s), 100, false), 0);
	fclose(out);
	out = open_memstream(&colored, &len);
	CU_ASSERT_EQUAL(report_timeline_colored(out, UNIT_DRAWING(s), 100, true), 0);
	fclose(out);
	CU_ASSERT_PTR_NULL(strchr(plain, '\033'));
	CU_ASSERT_PTR_NOT_NULL(strstr(colored, "\033[34m"));
	CU_ASSERT_PTR_NOT_NULL(strstr(colored, "\033[31m"));
	CU_ASSERT_PTR_NOT_NULL(strstr(colored, "\033[0m"));
	free(plain);
	free(colored);
	sim_free(s);
}

/* A 2 x 3 table: a label, a number and a mark per row. */
static const char *grid_cell(const void *ctx, int row, int id, char *buf, size_t n)
{
	static const char *const heads[] = {"name", "value", "ok"};
	static const char *const names[] = {"a", "longer"};

	(void)ctx;
	if (row < 0)
		return heads[id];
	if (id == 0)
		return names[row];
	if (id == 1)
		snprintf(buf, n, "%d", row == 0 ? 123456 : 7);
	return id == 1 ? buf : row == 0 ? "yes" : "no";
}

static void report_table_fits_aligns_and_pads_each_column_as_asked(void)
{
	/* name fitted, left; value at least 4 wide (not fitted), right; ok as it is */
	static const struct report_column cols[] = {
	        {0, 0, true, true}, {1, 4, false, false}, {2, 0, false, false}};
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	report_table_write(out, "  ", cols, 3, 2, grid_cell, NULL);
	report_table_write(out, " ", cols, 2, 0, grid_cell, NULL);
	fclose(out);
	CU_ASSERT_STRING_EQUAL(text, "name    value  ok\n"
	                             "a       123456  yes\n"
	                             "longer     7  no\n"
	                             "name value\n");
	free(text);
}

static int html_of_one(FILE *out, const struct sim *s)
{
	struct report_row row = {"-", s, 0};

	return report_html(out, &row, 1);
}

/* The window.PPSIM object of an HTML report, parsed (the caller deletes it). */
static cJSON *html_data(const char *page)
{
	const char *begin = strstr(page, "window.PPSIM = "), *end;
	char *json;
	cJSON *data;

	CU_ASSERT_PTR_NOT_NULL_FATAL(begin);
	begin += strlen("window.PPSIM = ");
	end = strstr(begin, ";\n</script>");
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	json = strndup(begin, (size_t)(end - begin));
	data = cJSON_Parse(json);
	free(json);
	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	return data;
}

/*
 * Replaying the page's numbers as the viewer does gives every op's start and end, every
 * message's send and arrival, and activations that come back to zero, exactly in ticks.
 */
static void report_html_data_replays_every_op_and_message_exactly(void)
{
	static const struct {
		const char *schedule;
		int v, m;
		double t_comm;
	} runs[] = {{"interleaved", 2, 8, 0.3},
	            {"zbv", 2, 8, 0.25},
	            {"dualpipev", 2, 10, 0.1},
	            {"1f1b", 1, 8, 0}};

	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct sim *s = simulate_recorded(runs[k].schedule, 4, runs[k].v, runs[k].m,
		                                  runs[k].t_comm);
		char *page = write_sim_with(html_of_one, s);
		cJSON *data = html_data(page);
		cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(data, "runs"), 0);
		cJSON *ops = cJSON_GetObjectItem(run, "ops"),
		      *msgs = cJSON_GetObjectItem(run, "msgs");
		const struct sched *sc = s->sched;
		const struct result *r = s->result;
		/* ticks per quantum: the cost's ticks per unit over the page's quanta per unit */
		double q = (double)s->cost->tick / cJSON_GetObjectItem(run, "tick")->valuedouble;
		int bad_times = 0, bad_msgs = 0, bad_act = 0;

		CU_ASSERT_EQUAL(cJSON_GetObjectItem(run, "nops")->valueint, (int)sc->nops);
		CU_ASSERT_EQUAL(cJSON_GetArraySize(ops), 6 * (int)sc->nops);
		CU_ASSERT_EQUAL(cJSON_GetArraySize(msgs), 4 * (int)r->nmsgs);
		CU_ASSERT(r->nmsgs > 0 || runs[k].t_comm == 0);
		for (int d = 0; d < sc->p; d++) {
			double t = 0, act = 0;

			for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
				double at[6];
				bool second =
				        i > sc->dev_start[d] && (sc->ops[i - 1].flags & OP_OVERLAP);

				for (int j = 0; j < 6; j++)
					at[j] = cJSON_GetArrayItem(ops, (int)(6 * i) + j)
					                ->valuedouble;
				double start =
				        second ? (double)r->times[i - 1].start : t + at[3] * q;
				bad_times += start != (double)r->times[i].start ||
				             start + at[4] * q != (double)r->times[i].end ||
				             at[1] != sc->ops[i].mb;
				t = fmax(t, start + at[4] * q);
				act += at[5];
			}
			bad_act += act != 0;
		}
		for (size_t g = 0; g < r->nmsgs; g++) {
			double from = cJSON_GetArrayItem(msgs, (int)(4 * g))->valuedouble;
			double delay = cJSON_GetArrayItem(msgs, (int)(4 * g) + 2)->valuedouble;
			double dur = cJSON_GetArrayItem(msgs, (int)(4 * g) + 3)->valuedouble;
			double sent = (double)r->times[(size_t)from].end + delay * q;

			bad_msgs += from != r->msgs[g].from || sent != (double)r->msgs[g].start ||
			            sent + dur * q != (double)r->msgs[g].end;
		}
		CU_ASSERT_EQUAL(bad_times, 0);
		CU_ASSERT_EQUAL(bad_msgs, 0);
		CU_ASSERT_EQUAL(bad_act, 0);
		cJSON_Delete(data);
		free(page);
		sim_free(s);
	}
}

/* A name holding "</script>" stays inside the page's data: '<' is escaped in its strings. */
static void report_html_escapes_what_would_end_its_script(void)
{
	struct sim *s = unit_simulate("1f1b", 2, 2, 0);
	struct report_row row = {"x</script><b>", s, 0};
	char *page = NULL;
	size_t len;
	FILE *out = open_memstream(&page, &len);
	const char *p;
	int scripts = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(report_html(out, &row, 1), 0);
	fclose(out);
	p = page;
	while ((p = strstr(p, "</script>")) != NULL) {
		scripts++;
		p++;
	}
	CU_ASSERT_EQUAL(scripts, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "\"label\":\"x\\u003c/script>\\u003cb>\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "x&lt;/script&gt;&lt;b&gt;: 1f1b"));
	cJSON_Delete(html_data(page));
	free(page);
	sim_free(s);
}

/* What report_json_print writes of item (which it frees). */
static char *json_printed(cJSON *item)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(report_json_print(out, item), 0);
	fclose(out);
	return text;
}

/* report_json_print writes each number as the shortest decimal that reads back as the same
 * double (an integer to 2^53 with all its digits), NaN and infinities as null: cJSON_Print's
 * %1.15g reads back only within a unit in the last place. */
static void report_json_print_writes_numbers_that_read_back_exactly(void)
{
	static const double numbers[] = {0,        -0.0,      1,        0.1 + 0.2, 1.0 / 3,
	                                 2.0 / 3,  8.0 / 9,   1e-7,     5e-324,    1e15,
	                                 1e16,     9007199254740992.0,   9007199254740994.0,
	                                 -9007199254740992.0, 1e300, 0.50393700787401574, NAN};
	uint64_t x = 88172645463325252u;

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]) + 6000; i++) {
		double d;
		cJSON *item, *back;
		char *got, want[40];

		if (i < sizeof(numbers) / sizeof(numbers[0])) {
			d = numbers[i];
		} else {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			memcpy(&d, &x, sizeof(d));
			if (!isfinite(d) || i % 3 == 0)
				d = (double)(x % 100000) / 1000.0;
		}
		item = cJSON_CreateNumber(d);
		got = json_printed(item);
		CU_ASSERT_PTR_NOT_NULL_FATAL(got);
		got[strcspn(got, "\n")] = '\0';
		if (isnan(d)) {
			CU_ASSERT_STRING_EQUAL(got, "null");
		} else if (fabs(d) <= 9007199254740992.0 && d == floor(d) && !(d == 0 && signbit(d))) {
			snprintf(want, sizeof(want), "%.0f", d);
			CU_ASSERT_STRING_EQUAL(got, want);
		} else {
			back = cJSON_Parse(got);
			CU_ASSERT_PTR_NOT_NULL_FATAL(back);
			CU_ASSERT(back->valuedouble == d || (d == 0 && back->valuedouble == 0));
			/* and no longer than needed */
			pp_double_format(want, sizeof(want), d);
			CU_ASSERT_STRING_EQUAL(got, want);
			cJSON_Delete(back);
		}
		free(got); /* (json_printed freed item) */
	}
}

/* report_json_print writes cJSON_Print's layout, and a newline, for every kind of value but
 * numbers (above). */
static void report_json_print_writes_what_cjson_prints(void)
{
	/* numbers whose shortest exact form is %1.15g's too */
	static const double numbers[] = {0,      1,      -1,         0.5,          1e-7,
	                                 1e14,   999999999999999.0,   2147483647,   2147483648.0,
	                                 -2147483649.0,  1e300,      -1e-300,       3.5e10,
	                                 0.25,   123.456};
	cJSON *root = cJSON_CreateObject(), *nums = cJSON_CreateArray(), *deep, *objs;
	char key[300], *want, *got;
	uint64_t x = 88172645463325252u;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		cJSON_AddItemToArray(nums, cJSON_CreateNumber(numbers[i]));
	/* integers below 10^15 and decimals of three places, which both print alike */
	for (int i = 0; i < 4000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		cJSON_AddItemToArray(nums, cJSON_CreateNumber((double)(x % 1999999999999999u) -
		                                              999999999999999.0));
		cJSON_AddItemToArray(nums, cJSON_CreateNumber((double)(x % 100000) / 1000.0));
	}
	cJSON_AddItemToObject(root, "numbers", nums);
	for (int c = 1; c < 256; c++)
		key[n++] = (char)c;
	key[n] = '\0';
	cJSON_AddStringToObject(root, key, key);
	cJSON_AddStringToObject(root, "", "");
	cJSON_AddItemToObject(root, "empty object", cJSON_CreateObject());
	cJSON_AddItemToObject(root, "empty array", cJSON_CreateArray());
	cJSON_AddItemToObject(root, "null", cJSON_CreateNull());
	cJSON_AddItemToObject(root, "bools", cJSON_CreateArray());
	cJSON_AddItemToArray(cJSON_GetObjectItem(root, "bools"), cJSON_CreateTrue());
	cJSON_AddItemToArray(cJSON_GetObjectItem(root, "bools"), cJSON_CreateFalse());
	objs = cJSON_AddArrayToObject(root, "objects");
	for (int i = 0; i < 3; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "i", i);
		if (i == 1)
			cJSON_AddItemToObject(o, "inner", cJSON_CreateArray());
		cJSON_AddItemToArray(objs, o);
	}
	cJSON_AddItemToArray(objs, cJSON_CreateObject());
	deep = root;
	for (int i = 0; i < 12; i++) {
		cJSON *next = i % 2 ? cJSON_CreateArray() : cJSON_CreateObject();

		if (cJSON_IsArray(deep))
			cJSON_AddItemToArray(deep, next);
		else
			cJSON_AddItemToObject(deep, "deeper", next);
		deep = next;
	}
	cJSON_AddItemToObject(root, "raw", cJSON_CreateRaw("{\"as\": \"is\"}"));
	want = cJSON_Print(root);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	got = json_printed(root);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(strlen(got), strlen(want) + 1);
	CU_ASSERT_EQUAL(strncmp(got, want, strlen(want)), 0);
	CU_ASSERT_EQUAL(got[strlen(want)], '\n');
	free(got);
	cJSON_free(want);
	/* a top-level array too, as compare writes */
	root = cJSON_CreateArray();
	cJSON_AddItemToArray(root, cJSON_CreateObject());
	cJSON_AddItemToArray(root, cJSON_CreateNumber(0.25));
	want = cJSON_Print(root);
	got = json_printed(root);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_EQUAL(strncmp(got, want, strlen(want)), 0);
	free(got);
	cJSON_free(want);
	CU_ASSERT_EQUAL(report_json_print(stdout, NULL), -1);
}

/* The bytes output o writes for s: in memory, or through a gzip outfile in dir. */
static uint64_t output_bytes(enum report_output o, const struct sim *s, const char *dir)
{
	struct report_row row = {"-", s, 0};
	struct pp_error err = {0};
	struct outfile *f = NULL;
	char *text = NULL, path[512];
	size_t len = 0;
	FILE *out;
	struct stat st;
	uint64_t bytes;
	int rc;

	if (o == REPORT_OUT_TRACE_GZ || o == REPORT_OUT_PFTRACE_GZ) {
		snprintf(path, sizeof(path), "%s/t.gz", dir);
		f = outfile_open(path, &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_EQUAL_FATAL(outfile_gzip(f, &err), 0);
		out = outfile_stream(f);
	} else {
		out = open_memstream(&text, &len);
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	if (o == REPORT_OUT_TRACE || o == REPORT_OUT_TRACE_GZ)
		rc = report_trace(out, UNIT_DRAWING(s));
	else if (o == REPORT_OUT_PFTRACE || o == REPORT_OUT_PFTRACE_GZ)
		rc = report_pftrace(out, UNIT_DRAWING(s));
	else if (o == REPORT_OUT_OPS)
		rc = report_ops_csv(out, UNIT_DRAWING(s));
	else if (o == REPORT_OUT_HTML)
		rc = report_html(out, &row, 1);
	else
		rc = schedfile_write(out, s->sched, (enum schedfile_format)(o - REPORT_OUT_EXPORT));
	CU_ASSERT_EQUAL(rc, 0);
	if (f == NULL) {
		fclose(out);
		free(text);
		return len;
	}
	CU_ASSERT_EQUAL_FATAL(outfile_commit(f, &err), 0);
	CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
	bytes = (uint64_t)st.st_size;
	unlink(path);
	return bytes;
}

/*
 * Every output that states the fewest bytes it writes (what refuses, before a run, an output
 * that cannot fit a file) writes at least that for every schedule, with one device and many,
 * op times of whole units, of thousandths and of nothing, and PyTorch's slice names.
 */
static void report_outputs_write_at_least_the_bytes_their_rows_state(void)
{
	static const enum report_output floors[] = {
	        REPORT_OUT_TRACE,
	        REPORT_OUT_TRACE_GZ,
	        REPORT_OUT_PFTRACE,
	        REPORT_OUT_PFTRACE_GZ,
	        REPORT_OUT_OPS,
	        REPORT_OUT_EXPORT + SCHEDFILE_PPSIM,
	        REPORT_OUT_EXPORT + SCHEDFILE_TORCH,
	        REPORT_OUT_EXPORT + SCHEDFILE_TORCH_COMMS,
	        REPORT_OUT_HTML,
	};
	static const double costs[][3] = {{1, 1, 1}, {0.001, 0.003, 0.0007}, {1, 0, 0}};
	const size_t ncosts = sizeof(costs) / sizeof(costs[0]);
	/* the larger shapes (numbers of several digits) with the first costs only */
	static const int shapes[][2] = {{1, 1}, {3, 4}, {4, 16}, {1, 1000}, {64, 8}, {1024, 1}};
	size_t n, runs = 0;
	const struct sched_desc *t = sched_table(&n);
	char dir[256];
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/ppsim-unit-XXXXXX", tmp != NULL && *tmp ? tmp : "/tmp");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
			for (size_t c = 0; c < (k < 3 ? ncosts : 1); c++) {
				int v = t[i].min_v > 1 ? t[i].min_v : 1;
				struct config cfg = unit_config(t[i].name, shapes[k][0], v,
				                                shapes[k][1], costs[c][0],
				                                costs[c][1], costs[c][2]);
				struct pp_error err = {0};
				struct sim *s;
				struct sim_size z;

				cfg.trace_names = c == 1 ? PP_TRACE_NAMES_TORCH : cfg.trace_names;
				s = sim_run_flags(&cfg, SIM_RECORD_MESSAGES, &err);
				if (s == NULL) /* a shape the schedule does not take */
					continue;
				runs++;
				z = (struct sim_size){.ops = s->sched->nops,
				                      .msgs = s->result->messages,
				                      .p = s->sched->p,
				                      .v = s->sched->v,
				                      .m = s->sched->m,
				                      .routes = s->sched->routes,
				                      .timed =
				                              cost_every_op_takes_time(&s->config)};
				for (size_t o = 0; o < sizeof(floors) / sizeof(floors[0]); o++) {
					uint64_t want = report_need_bytes(
					        &report_output(floors[o])->need, &z);
					uint64_t got = output_bytes(floors[o], s, dir);

					CU_ASSERT(got >= want);
					if (got < want)
						fprintf(stderr,
						        "%s p=%d m=%d costs %zu: %s writes %llu "
						        "bytes, under its floor %llu\n",
						        t[i].name, shapes[k][0], shapes[k][1], c,
						        report_output(floors[o])->name,
						        (unsigned long long)got,
						        (unsigned long long)want);
				}
				sim_free(s);
			}
	CU_ASSERT(runs > 100);
	rmdir(dir);
}
/* JSON text is Unicode: a byte that starts no UTF-8 character (a file name's Latin-1 byte) is
 * U+FFFD in every JSON the writers make, whole characters as they are. */
static void report_xml_text_is_utf8_without_control_characters(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {{"a<b&\"c\"", "a&lt;b&amp;&quot;c&quot;"},
	             {"x\xffy", "x\xef\xbf\xbdy"},
	             {"caf\xc3\xa9", "caf\xc3\xa9"},
	             {"esc\x1b[2J", "esc\xef\xbf\xbd[2J"},
	             {"tab\tend", "tab\tend"}};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		report_xml_text(f, cases[i].in);
		fclose(f);
		CU_ASSERT_STRING_EQUAL(buf, cases[i].out);
	}
}

static void report_json_strings_are_utf8_whatever_the_bytes_given(void)
{
	static const struct {
		const char *in, *quoted;
	} cases[] = {
	        {"plain", "\"plain\""},
	        {"x\xffy", "\"x\\ufffdy\""},
	        {"caf\xc3\xa9", "\"caf\xc3\xa9\""},   /* e-acute, two bytes */
	        {"\xc3(", "\"\\ufffd(\""},              /* a lead byte without its tail */
	        {"\xc0\xaf", "\"\\ufffd\\ufffd\""},   /* an overlong '/' */
	        {"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""}, /* a surrogate */
	        {"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""}, /* U+1F600 */
	        {"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* past U+10FFFF */
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");
		cJSON *s = json_string(cases[i].in);
		char *printed = s != NULL ? cJSON_PrintUnformatted(s) : NULL;
		cJSON *back = printed != NULL ? cJSON_Parse(printed) : NULL;

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		report_json_text(f, cases[i].in);
		fclose(f);
		CU_ASSERT_STRING_EQUAL(buf, cases[i].quoted);
		/* cJSON's string holds the same characters, U+FFFD as its three bytes */
		CU_ASSERT_PTR_NOT_NULL(back);
		if (back != NULL) {
			cJSON *q = cJSON_Parse(cases[i].quoted);

			CU_ASSERT_STRING_EQUAL(cJSON_GetStringValue(back), cJSON_GetStringValue(q));
			cJSON_Delete(q);
		}
		cJSON_Delete(back);
		free(printed);
		cJSON_Delete(s);
	}
}


static const struct unit_test tests[] = {
        UNIT_TEST(report_outputs_write_at_least_the_bytes_their_rows_state),
        UNIT_TEST(report_json_print_writes_what_cjson_prints),
        UNIT_TEST(report_json_print_writes_numbers_that_read_back_exactly),
        UNIT_TEST(report_html_data_replays_every_op_and_message_exactly),
        UNIT_TEST(report_html_escapes_what_would_end_its_script),
        UNIT_TEST(report_table_fits_aligns_and_pads_each_column_as_asked),
        UNIT_TEST(report_trace_parses_back_with_each_op_once_every_flow_closed_no_negative_counter),
        UNIT_TEST(report_trace_flows_bind_and_send_tracks_are_named_for_their_direction),
        UNIT_TEST(report_trace_names_slices_as_pytorch_s_profiler_ranges_when_asked),
        UNIT_TEST(report_svg_draws_one_rectangle_per_op_and_one_per_message),
        UNIT_TEST(report_svg_follows_its_width),
        UNIT_TEST(report_svg_shows_which_way_each_transfer_goes),
        UNIT_TEST(report_svg_legend_lists_only_what_is_drawn),
        UNIT_TEST(report_svg_shades_each_device_s_idle_time),
        UNIT_TEST(report_svg_merges_what_is_narrower_than_a_few_pixels),
        UNIT_TEST(report_svg_widens_for_its_labels_up_to_a_ceiling),
        UNIT_TEST(report_timeline_colored_uses_escapes_only_when_asked),
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
        UNIT_TEST(report_timeline_shows_ops_sharing_columns_in_proportion),
        UNIT_TEST(report_timeline_shows_every_op_in_the_column_of_its_middle),
        UNIT_TEST(report_timeline_rows_fit_the_width),
        UNIT_TEST(report_timeline_scale_fits_the_width),
        UNIT_TEST(report_timeline_header_and_legend_fit_the_width),
        UNIT_TEST(report_timeline_labels_every_op_of_the_mission_command_at_100_columns),
        UNIT_TEST(report_timeline_bands_join_into_the_whole_run),
        UNIT_TEST(report_timeline_fits_long_labels_and_legends_in_the_width),
        UNIT_TEST(report_timeline_letters_mean_one_op_kind_in_every_schedule),
        UNIT_TEST(report_timeline_draws_an_op_too_narrow_for_its_label_as_letter_and_dashes),
        UNIT_TEST(report_csv_writes_the_header_and_one_row_of_the_run),
        UNIT_TEST(report_csv_writes_every_figure_of_a_model_run_so_it_reads_back_exactly),
        UNIT_TEST(report_compare_text_marks_the_best_value_of_each_column_with_a_star),
        UNIT_TEST(report_compare_text_gives_each_row_its_speedup_against_the_first),
        UNIT_TEST(report_compare_text_of_one_row_marks_nothing),
        UNIT_TEST(report_compare_json_is_an_array_of_run_objects_with_label_and_speedup),
        UNIT_TEST(report_compare_csv_writes_one_header_and_a_row_per_config),
        UNIT_TEST(report_json_with_a_model_gives_step_time_throughput_and_mfu_as_numbers),
        UNIT_TEST(report_json_model_object_holds_the_message_bytes_and_the_layer_flops),
        UNIT_TEST(report_json_devices_with_a_model_hold_memory_capacity_and_oom),
        UNIT_TEST(report_json_without_a_model_writes_null_model_figures),
        UNIT_TEST(report_json_strings_are_utf8_whatever_the_bytes_given),
        UNIT_TEST(report_xml_text_is_utf8_without_control_characters),
        UNIT_TEST(report_op_spans_are_the_op_s_pieces_gathered),
        {NULL, NULL},
};

const struct unit_suite suite_report = {"report", tests};
