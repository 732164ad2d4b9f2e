/*
 * Unit tests of serve_workload: request traces as JSON lines or CSV, their errors with
 * line:column, and the seeded request generator against a reference of its documented
 * algorithm and values pinned from an independent computation.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppsim/config.h"
#include "ppsim/serve.h"
#include "unit.h"

/* A scratch directory and a file in it. */
struct scratch {
	char dir[128];  /* made by mkdtemp under $TMPDIR, or /tmp */
	char path[256]; /* dir/name */
};

/* Makes a fresh directory in s and names the file name in it (not created). */
static void scratch_init(struct scratch *s, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(s->dir, sizeof(s->dir), "%s/ppsim-unit-XXXXXX",
	         tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(s->dir));
	snprintf(s->path, sizeof(s->path), "%s/%s", s->dir, name);
}

/* Writes len bytes of text to the scratch file. */
static void scratch_write(const struct scratch *s, const char *text, size_t len)
{
	FILE *f = fopen(s->path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
	CU_ASSERT_EQUAL(fclose(f), 0);
}

/* Removes the scratch file (when there is one) and the directory. */
static void scratch_remove(const struct scratch *s)
{
	if (access(s->path, F_OK) == 0)
		CU_ASSERT_EQUAL(unlink(s->path), 0);
	CU_ASSERT_EQUAL(rmdir(s->dir), 0);
}

/*
 * Writes len bytes of text (NUL bytes allowed) to a file called name in a fresh directory,
 * reads it into w and err, removes it and returns what serve_workload_read returned. path (256
 * bytes) receives the file's name, for messages.
 */
static int read_bytes(const char *name, const char *text, size_t len, struct serve_workload *w,
                      struct pp_error *err, char *path)
{
	struct scratch s;
	int rc;

	scratch_init(&s, name);
	scratch_write(&s, text, len);
	rc = serve_workload_read(s.path, w, err);
	scratch_remove(&s);
	snprintf(path, 256, "%s", s.path);
	return rc;
}

/* Reads the NUL-terminated text as a file called name, which must pass; the requests go to w. */
static void read_ok(const char *name, const char *text, struct serve_workload *w)
{
	struct pp_error err = {0};
	char path[256];
	int rc = read_bytes(name, text, strlen(text), w, &err, path);

	if (rc != 0)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
}

/*
 * Reads len bytes of text as a file called name, which must be rejected with a PP_ERR_CONFIG
 * error at line:column whose message is "requests 'PATH':LINE:COLUMN: " then want (line 0:
 * "requests 'PATH': " then want, about no line); the workload must be left empty.
 */
static void assert_rejected_bytes(const char *name, const char *text, size_t len, int line,
                                  int column, const char *want)
{
	struct serve_workload w = {NULL, 7, 7};
	struct pp_error err = {0};
	char path[256], expect[1100];

	CU_ASSERT_EQUAL(read_bytes(name, text, len, &w, &err, path), -1);
	if (line > 0)
		snprintf(expect, sizeof(expect), "requests '%s':%d:%d: %s", path, line, column,
		         want);
	else
		snprintf(expect, sizeof(expect), "requests '%s': %s", path, want);
	if (strcmp(err.msg, expect) != 0)
		fprintf(stderr, "\n  got  %s\n  want %s\n", err.msg, expect);
	CU_ASSERT_STRING_EQUAL(err.msg, expect);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_EQUAL(err.line, line);
	CU_ASSERT_EQUAL(err.column, column);
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	CU_ASSERT_PTR_NULL(w.req);
	CU_ASSERT_EQUAL(w.n, 0);
	CU_ASSERT_EQUAL(w.concurrency, 0);
}

/* assert_rejected_bytes of a NUL-terminated text. */
static void assert_rejected(const char *name, const char *text, int line, int column,
                            const char *want)
{
	assert_rejected_bytes(name, text, strlen(text), line, column, want);
}

/* True when w holds exactly the n requests of want, in order. */
static bool same_requests(const struct serve_workload *w, const struct serve_request *want,
                          size_t n)
{
	if (w->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (w->req[i].arrival != want[i].arrival || w->req[i].prompt != want[i].prompt ||
		    w->req[i].output != want[i].output)
			return false;
	return true;
}

static const struct serve_request four_requests[] = {
        {0, 512, 128},
        {0.5, 1, PP_MAX_COUNT},
        {0.5, 2, 3},
        {1000, 7, 9},
};

static void serve_workload_read_gives_the_same_requests_from_json_lines_and_csv(void)
{
	struct serve_workload json, csv;

	read_ok("a.jsonl",
	        "{\"arrival\": 0, \"prompt\": 512, \"output\": 128}\n"
	        "{\"arrival\": 0.5, \"prompt\": 1, \"output\": 16777216}\n"
	        "{\"output\": 3, \"arrival\": 0.5, \"prompt\": 2}\n"
	        "{\"arrival\":1e3,\"prompt\":7,\"output\":9}\n",
	        &json);
	read_ok("a.csv",
	        "arrival,prompt,output\n"
	        "0,512,128\n"
	        "0.5,1,16777216\n"
	        "0.5,2,3\n"
	        "1000,7,9\n",
	        &csv);
	CU_ASSERT_TRUE(same_requests(&json, four_requests, 4));
	CU_ASSERT_TRUE(same_requests(&csv, four_requests, 4));
	CU_ASSERT_EQUAL(json.concurrency, 0);
	CU_ASSERT_EQUAL(csv.concurrency, 0);
	serve_workload_free(&json);
	serve_workload_free(&csv);
}

static void serve_workload_read_skips_blank_lines_and_comments_even_indented(void)
{
	struct serve_workload json, csv;

	read_ok("a.jsonl",
	        "# a trace\n"
	        "\n"
	        "{\"arrival\": 0, \"prompt\": 512, \"output\": 128}\n"
	        "   # indented comment\n"
	        "\t\n"
	        "{\"arrival\": 0.5, \"prompt\": 1, \"output\": 16777216}\n"
	        "  {\"output\": 3, \"arrival\": 0.5, \"prompt\": 2}\n"
	        "\t# {\"arrival\": 0, \"prompt\": 1, \"output\": 1}\n"
	        "{\"arrival\":1e3,\"prompt\":7,\"output\":9}",
	        &json);
	read_ok("a.csv",
	        "\n"
	        "  # requests\n"
	        "arrival,prompt,output\n"
	        "# 5,5,5\n"
	        "0,512,128\n"
	        "\n"
	        "0.5,1,16777216\n"
	        "   \n"
	        "0.5,2,3\n"
	        "1000,7,9\n"
	        "# end\n",
	        &csv);
	CU_ASSERT_TRUE(same_requests(&json, four_requests, 4));
	CU_ASSERT_TRUE(same_requests(&csv, four_requests, 4));
	serve_workload_free(&json);
	serve_workload_free(&csv);
}

static void serve_workload_read_takes_the_csv_columns_in_any_order_and_trims_spaces(void)
{
	struct serve_workload w;

	read_ok("a.csv",
	        " output ,\tprompt, arrival\n"
	        "128 , 512 , 0\n"
	        "16777216,1,0.5\n"
	        "3,2,  0.5\t\n"
	        "9,7,1e3\n",
	        &w);
	CU_ASSERT_TRUE(same_requests(&w, four_requests, 4));
	serve_workload_free(&w);
}

static void serve_workload_read_accepts_crlf_lines_and_whole_numbers_written_as_decimals(void)
{
	static const struct serve_request want[] = {{0, 100, 2}, {2.25, 16777216, 1}};
	struct serve_workload json, csv;

	read_ok("a.jsonl",
	        "{\"arrival\": -0, \"prompt\": 100.0, \"output\": 2}\r\n"
	        "{\"arrival\": 2.25, \"prompt\": 1.6777216e7, \"output\": 1}\r\n",
	        &json);
	read_ok("a.csv", "arrival,prompt,output\r\n-0,1e2,2.0\r\n2.25,16777216.000,+1\r\n", &csv);
	CU_ASSERT_TRUE(same_requests(&json, want, 2));
	CU_ASSERT_TRUE(same_requests(&csv, want, 2));
	/* -0 is stored as 0, not as a negative (closed-loop) arrival */
	CU_ASSERT_FALSE(signbit(json.req[0].arrival));
	CU_ASSERT_FALSE(signbit(csv.req[0].arrival));
	serve_workload_free(&json);
	serve_workload_free(&csv);
}

/* A valid first line of JSON lines, so that the line under test is the second. */
#define JSON_FIRST "{\"arrival\": 0, \"prompt\": 1, \"output\": 1}\n"

static void serve_workload_read_rejects_a_malformed_json_line_at_the_column_of_the_error(void)
{
	assert_rejected("a.jsonl", JSON_FIRST "{\"arrival\": 1, prompt: 2, \"output\": 3}\n", 2, 16,
	                "invalid JSON at 'prompt: 2, \"output\": 3}'");
	assert_rejected("a.jsonl", JSON_FIRST "{\"arrival\": 1, \"prompt\": 2, \"output\": NaN}\n",
	                2, 39, "invalid JSON: JSON has no NaN or Infinity");
	assert_rejected("a.jsonl", JSON_FIRST "{\"arrival\": 1, \"prompt\": 2, \"output\": 3} x\n",
	                2, 42, "invalid JSON at 'x'");
	assert_rejected("a.jsonl", JSON_FIRST "{\"arrival\": 1, \"prompt\": 2\n", 2, 27,
	                "invalid JSON: the line ends too soon");
	assert_rejected("a.jsonl", JSON_FIRST "arrival,prompt,output\n", 2, 1,
	                "invalid JSON at 'arrival,prompt,output'");
}

static void serve_workload_read_rejects_a_json_line_that_is_not_an_object(void)
{
	assert_rejected("a.jsonl", JSON_FIRST "[0, 1, 1]\n", 2, 1,
	                "'[0, 1, 1]': not a JSON object (each line holds one object with arrival, "
	                "prompt and output)");
	assert_rejected(
	        "a.jsonl", JSON_FIRST "  \"arrival\"\n", 2, 3,
	        "'\"arrival\"': not a JSON object (each line holds one object with arrival, "
	        "prompt and output)");
}

static void serve_workload_read_rejects_an_unknown_or_duplicate_key_at_the_key(void)
{
	assert_rejected("a.jsonl", JSON_FIRST "{\"arrival\": 0, \"prompt\": 1, \"outptu\": 2}\n", 2,
	                29, "unknown key \"outptu\" (the keys are arrival, prompt and output)");
	assert_rejected("a.jsonl",
	                "{\"arrival\": 0, \"prompt\": 1, \"output\": 2, \"prompt\": 3}\n", 1, 42,
	                "key \"prompt\" appears twice (first at column 16)");
	/* keys are case-sensitive */
	assert_rejected("a.jsonl", "{\"Arrival\": 0, \"prompt\": 1, \"output\": 2}\n", 1, 2,
	                "unknown key \"Arrival\" (the keys are arrival, prompt and output)");
}

static void serve_workload_read_rejects_a_missing_key_at_the_object(void)
{
	assert_rejected("a.jsonl", JSON_FIRST "{\"arrival\": 0, \"prompt\": 1}\n", 2, 1,
	                "missing key \"output\" (a line holds arrival, prompt and output)");
	assert_rejected("a.jsonl", JSON_FIRST JSON_FIRST "  {}\n", 3, 3,
	                "missing key \"arrival\" (a line holds arrival, prompt and output)");
}

static void serve_workload_read_rejects_a_string_or_other_non_number_at_the_value(void)
{
	assert_rejected("a.jsonl", "{\"arrival\": 0, \"prompt\": \"12\", \"output\": 2}\n", 1, 26,
	                "prompt '\"12\"': must be a whole number from 1 to 16777216, not a string");
	assert_rejected("a.jsonl", "{\"arrival\": null, \"prompt\": 1, \"output\": 2}\n", 1, 13,
	                "arrival 'null': must be a number from 0 to 1000000000, not null");
	assert_rejected("a.jsonl", "{\"arrival\": 0, \"prompt\": 1, \"output\": [2, {\"a\": 3}]}\n",
	                1, 39,
	                "output '[2, {\"a\": 3}]': must be a whole number from 1 to 16777216, not "
	                "an array");
	assert_rejected("a.csv", "arrival,prompt,output\n0,twelve,1\n", 2, 3,
	                "prompt 'twelve': must be a whole number from 1 to 16777216");
}

static void serve_workload_read_rejects_a_negative_arrival_and_huge_or_nan_like_values(void)
{
	assert_rejected("a.jsonl", "{\"arrival\": -1, \"prompt\": 1, \"output\": 2}\n", 1, 13,
	                "arrival '-1': must be a number from 0 to 1000000000");
	assert_rejected("a.jsonl", "{\"arrival\": 1e999, \"prompt\": 1, \"output\": 2}\n", 1, 13,
	                "arrival '1e999': must be a number from 0 to 1000000000");
	assert_rejected("a.jsonl", "{\"arrival\": 0, \"prompt\": 1e999, \"output\": 2}\n", 1, 26,
	                "prompt '1e999': must be a whole number from 1 to 16777216");
	assert_rejected("a.csv", "arrival,prompt,output\n-0.5,1,1\n", 2, 1,
	                "arrival '-0.5': must be a number from 0 to 1000000000");
	assert_rejected("a.csv", "arrival,prompt,output\n1e10,1,1\n", 2, 1,
	                "arrival '1e10': must be a number from 0 to 1000000000");
	assert_rejected("a.csv", "arrival,prompt,output\nnan,1,1\n", 2, 1,
	                "arrival 'nan': must be a number from 0 to 1000000000");
	assert_rejected("a.csv", "arrival,prompt,output\n0, inf,1\n", 2, 4,
	                "prompt 'inf': must be a whole number from 1 to 16777216");
	assert_rejected("a.csv", "arrival,prompt,output\n0x10,1,1\n", 2, 1,
	                "arrival '0x10': must be a number from 0 to 1000000000");
	assert_rejected("a.csv", "arrival,prompt,output\n0,1,16777217\n", 2, 5,
	                "output '16777217': must be a whole number from 1 to 16777216");
}

static void serve_workload_read_rejects_token_counts_that_are_not_whole_numbers_from_1(void)
{
	assert_rejected("a.jsonl", "{\"arrival\": 0, \"prompt\": 0, \"output\": 1}\n", 1, 26,
	                "prompt '0': must be a whole number from 1 to 16777216");
	assert_rejected("a.jsonl", JSON_FIRST "{\"arrival\": 0, \"prompt\": 1, \"output\": -1}\n",
	                2, 39, "output '-1': must be a whole number from 1 to 16777216");
	assert_rejected("a.jsonl", "{\"arrival\": 0, \"prompt\": 1, \"output\": 1.5}\n", 1, 39,
	                "output '1.5': must be a whole number from 1 to 16777216");
	assert_rejected("a.csv", "arrival,prompt,output\n0,10,5\n1.5,-3,5\n", 3, 5,
	                "prompt '-3': must be a whole number from 1 to 16777216");
	assert_rejected("a.csv", "arrival,prompt,output\n0,10,\n", 2, 6,
	                "output '': must be a whole number from 1 to 16777216");
}

static void serve_workload_read_rejects_an_arrival_before_the_previous_naming_both(void)
{
	assert_rejected("a.jsonl",
	                "{\"arrival\": 1, \"prompt\": 1, \"output\": 1}\n"
	                "{\"arrival\": 7, \"prompt\": 1, \"output\": 1}\n"
	                "{\"arrival\": 5, \"prompt\": 1, \"output\": 1}\n",
	                3, 13,
	                "arrival 5 is before the previous request's 7 (arrivals must not go "
	                "backwards)");
	assert_rejected("a.csv", "arrival,prompt,output\n3,1,1\n0.001,1,1\n", 3, 1,
	                "arrival 0.001 is before the previous request's 3 (arrivals must not go "
	                "backwards)");
	assert_rejected("a.csv", "prompt,output,arrival\n1,1,2.5\n1,1,2.5\n1,1,2.25\n", 4, 5,
	                "arrival 2.25 is before the previous request's 2.5 (arrivals must not go "
	                "backwards)");
}

static void serve_workload_read_rejects_a_csv_header_without_exactly_the_three_columns(void)
{
	static const char *const headers[] = {
	        "time,prompt,output",    "arrival,prompt",        "arrival,prompt,output,x",
	        "arrival,prompt,prompt", "Arrival,prompt,output", "0,1,1",
	        "arrival;prompt;output",
	};
	char text[128], want[256];

	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
		snprintf(text, sizeof(text), "%s\n0,1,1\n", headers[i]);
		snprintf(want, sizeof(want),
		         "the header must name the columns arrival, prompt and output, not '%s'",
		         headers[i]);
		assert_rejected("a.csv", text, 1, 1, want);
	}
	assert_rejected("a.csv", "# comment\n\narrival,,prompt,output\n", 3, 1,
	                "the header must name the columns arrival, prompt and output, not "
	                "'arrival,,prompt,output'");
}

static void serve_workload_read_rejects_a_csv_row_with_two_or_four_fields(void)
{
	assert_rejected("a.csv", "arrival,prompt,output\n0,1,1\n0,1\n", 3, 1,
	                "row '0,1': 2 fields, not 3 (arrival, prompt and output)");
	assert_rejected("a.csv", "arrival,prompt,output\n0,1,1,1\n", 2, 7,
	                "row '0,1,1,1': 4 fields, not 3 (arrival, prompt and output)");
	assert_rejected("a.csv", "arrival,prompt,output\n0,1,1, \n", 2, 8,
	                "row '0,1,1, ': 4 fields, not 3 (arrival, prompt and output)");
	assert_rejected("a.csv", "arrival,prompt,output\n{\"arrival\": 0}\n", 2, 1,
	                "row '{\"arrival\": 0}': 1 field, not 3 (arrival, prompt and output)");
}

/* A CSV row at the end of a file without a final newline may have been cut (an output of 20
 * read as 2): it is refused; a JSON line cut is no JSON, and one whole is taken. */
static void serve_workload_read_refuses_a_last_csv_row_without_its_newline(void)
{
	struct serve_workload w;

	assert_rejected("a.csv", "arrival,prompt,output\n0,10,5\n1.5,16,2", 3, 9,
	                "the file ends in this line, without a newline: its last number may be "
	                "cut (end the file with a newline if it is whole)");
	assert_rejected("a.csv", "arrival,prompt,output\r\n0,10,5\r\n1.5,16,2\r", 3, 10,
	                "the file ends in this line, without a newline: its last number may be "
	                "cut (end the file with a newline if it is whole)");
	read_ok("a.csv", "arrival,prompt,output\n0,10,5\n# the end", &w);
	CU_ASSERT_EQUAL(w.n, 1);
	serve_workload_free(&w);
	read_ok("a.jsonl", "{\"arrival\": 0, \"prompt\": 10, \"output\": 5}", &w);
	CU_ASSERT_EQUAL(w.n, 1);
	serve_workload_free(&w);
}

static void serve_workload_read_rejects_an_empty_file_only_comments_or_only_a_header(void)
{
	assert_rejected("a.csv", "", 0, 0, "no requests");
	assert_rejected("a.jsonl", "# nothing yet\n\n   # still nothing\n", 0, 0, "no requests");
	assert_rejected("a.csv", "arrival,prompt,output\n# no rows\n", 0, 0, "no requests");
}

static void serve_workload_read_rejects_binary_junk_and_nul_bytes_naming_them(void)
{
	static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
	static const char nul_csv[] = "arrival,prompt\0,output\n0,1,1\n";
	static const char nul_json[] = JSON_FIRST "{\"arrival\": 1,\0 \"prompt\": 1}\n";
	static const char nul_row[] = "arrival,prompt,output\n0,1,1\0\n";

	assert_rejected_bytes("a.csv", png, sizeof(png) - 1, 1, 1,
	                      "the header must name the columns arrival, prompt and output, not "
	                      "'\\x89PNG'");
	assert_rejected_bytes("a.csv", nul_csv, sizeof(nul_csv) - 1, 1, 15,
	                      "a NUL byte: not a text file");
	assert_rejected_bytes("a.jsonl", nul_json, sizeof(nul_json) - 1, 2, 15,
	                      "a NUL byte: not a text file");
	assert_rejected_bytes("a.csv", nul_row, sizeof(nul_row) - 1, 2, 6,
	                      "a NUL byte: not a text file");
	assert_rejected("a.csv", "arrival,prompt,output\n\x01\x02\xff,1,1\n", 2, 1,
	                "arrival '\\x01\\x02\\xff': must be a number from 0 to 1000000000");
	assert_rejected(
	        "a.jsonl", "{\"arrival\": 0, \"prompt\": 1, \"\xc3\xa9\x7f\": 1}\n", 1, 29,
	        "unknown key \"\\xc3\\xa9\\x7f\" (the keys are arrival, prompt and output)");
}

/* The next number of a 64-bit linear congruential generator (Knuth's MMIX constants). */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return *x >> 33;
}

/* A random byte (any) or a random character of trace syntax (lexical) from the LCG state x. */
static char random_char(uint64_t *x, bool any)
{
	static const char lexical[] = " ,0123456789.e-{}\"\n#:";

	if (any)
		return (char)(unsigned char)(lcg(x) % 256);
	return lexical[lcg(x) % (sizeof(lexical) - 1)];
}

static void serve_workload_read_survives_random_bytes_after_either_start(void)
{
	static const char *const starts[] = {"", "arrival,prompt,output\n",
	                                     "{\"arrival\": ", JSON_FIRST};
	uint64_t x = 42;
	char text[300];

	for (int round = 0; round < 400; round++) {
		const char *start = starts[round % 4];
		size_t n = strlen(start), len = n + lcg(&x) % 200;
		struct serve_workload w;
		struct pp_error err = {0};
		char path[256];
		int rc;

		memcpy(text, start, n);
		for (size_t i = n; i < len; i++)
			text[i] = random_char(&x, round % 8 < 4);
		rc = read_bytes("junk", text, len, &w, &err, path);
		CU_ASSERT_TRUE(rc == 0 || rc == -1);
		CU_ASSERT_TRUE(rc == 0 ? w.n >= 1 && err.kind == PP_ERR_NONE
		                       : w.n == 0 && err.kind == PP_ERR_CONFIG);
		CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
		serve_workload_free(&w);
	}
}

static void serve_workload_read_of_a_missing_file_is_an_io_error_naming_the_path(void)
{
	struct scratch s;
	struct serve_workload w;
	struct pp_error err = {0};
	char want[512];

	scratch_init(&s, "missing.csv");
	CU_ASSERT_EQUAL(serve_workload_read(s.path, &w, &err), -1);
	scratch_remove(&s);
	snprintf(want, sizeof(want), "cannot read '%s': %s", s.path, strerror(ENOENT));
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_EQUAL(err.line, 0);
	CU_ASSERT_PTR_NULL(w.req);
	CU_ASSERT_EQUAL(w.n, 0);
}

static void serve_workload_read_takes_serve_max_requests_and_rejects_one_more(void)
{
	struct scratch s;
	struct serve_workload w;
	struct pp_error err = {0};
	char want[512];
	FILE *f;

	scratch_init(&s, "big.csv");
	f = fopen(s.path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("arrival,prompt,output\n", f);
	for (int i = 0; i < SERVE_MAX_REQUESTS; i++)
		fputs("0,1,1\n", f);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	CU_ASSERT_EQUAL(serve_workload_read(s.path, &w, &err), 0);
	CU_ASSERT_EQUAL(w.n, SERVE_MAX_REQUESTS);
	serve_workload_free(&w);
	f = fopen(s.path, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("5,1,1\n", f);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	CU_ASSERT_EQUAL(serve_workload_read(s.path, &w, &err), -1);
	snprintf(want, sizeof(want), "requests '%s':%d:1: more than %d requests, the limit", s.path,
	         SERVE_MAX_REQUESTS + 2, SERVE_MAX_REQUESTS);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	CU_ASSERT_EQUAL(err.line, SERVE_MAX_REQUESTS + 2);
	CU_ASSERT_PTR_NULL(w.req);
	scratch_remove(&s);
}

static void serve_workload_free_zeroes_the_workload_and_takes_null(void)
{
	struct serve_workload w;

	read_ok("a.csv", "arrival,prompt,output\n0,1,1\n", &w);
	w.concurrency = 3;
	serve_workload_free(&w);
	CU_ASSERT_PTR_NULL(w.req);
	CU_ASSERT_EQUAL(w.n, 0);
	CU_ASSERT_EQUAL(w.concurrency, 0);
	serve_workload_free(&w);
	serve_workload_free(NULL);
}

/* The defaults with these generator settings (config-file keys and values, NULL-ended). */
static struct config generator_config(const char *const *settings)
{
	struct config c;

	config_init(&c);
	for (size_t i = 0; settings[i] != NULL; i += 2)
		unit_set(&c, settings[i], settings[i + 1]);
	return c;
}

/* Generates the requests of the settings (as generator_config) into w. */
static void generate(const char *const *settings, struct serve_workload *w)
{
	struct config c = generator_config(settings);
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(serve_workload_generate(&c, w, &err), 0);
}

static void serve_workload_generate_gives_the_same_requests_for_the_same_seed(void)
{
	static const char *const settings[] = {
	        "seed",          "7",      "num_requests",  "500", "prompt",
	        "uniform:1:100", "output", "lognormal:3:1", NULL};
	struct serve_workload a, b;

	generate(settings, &a);
	generate(settings, &b);
	CU_ASSERT_EQUAL_FATAL(a.n, 500);
	CU_ASSERT_TRUE(same_requests(&a, b.req, b.n));
	serve_workload_free(&a);
	serve_workload_free(&b);
}

static void serve_workload_generate_gives_different_requests_for_different_seeds(void)
{
	static const char *const one[] = {"seed", "1", "prompt", "uniform:1:100", NULL};
	static const char *const two[] = {"seed", "2", "prompt", "uniform:1:100", NULL};
	struct serve_workload a, b;
	size_t same_arrivals = 0, same_prompts = 0;

	generate(one, &a);
	generate(two, &b);
	CU_ASSERT_EQUAL_FATAL(a.n, 100);
	CU_ASSERT_EQUAL_FATAL(b.n, 100);
	for (size_t i = 0; i < a.n; i++) {
		same_arrivals += a.req[i].arrival == b.req[i].arrival;
		same_prompts += a.req[i].prompt == b.req[i].prompt;
	}
	CU_ASSERT_EQUAL(same_arrivals, 0);
	/* two independent draws from 1..100 agree about once in a hundred */
	CU_ASSERT_TRUE(same_prompts < 10);
	serve_workload_free(&a);
	serve_workload_free(&b);
}

/*
 * Mean gaps are checked to 3%: the mean of n exponential gaps has a standard deviation of
 * mean / sqrt(n), 0.71% for n = 20000, so 3% is over four standard deviations for any seed (and
 * with a fixed seed the test is deterministic anyway).
 */
static void serve_workload_generate_poisson_has_a_mean_gap_near_1000_over_the_rate(void)
{
	static const char *const settings[] = {"rate", "10", "num_requests", "20000", NULL};
	struct serve_workload w;

	generate(settings, &w);
	CU_ASSERT_EQUAL_FATAL(w.n, 20000);
	/* the first arrival is the first gap after time 0, so the last is the sum of n gaps */
	CU_ASSERT_DOUBLE_EQUAL(w.req[w.n - 1].arrival / 20000, 100.0, 3.0);
	CU_ASSERT_EQUAL(w.concurrency, 0);
	serve_workload_free(&w);
}

static void serve_workload_generate_poisson_arrivals_start_after_zero_and_never_go_back(void)
{
	static const char *const settings[] = {"rate", "1000", "num_requests", "5000", NULL};
	struct serve_workload w;
	size_t backwards = 0;

	generate(settings, &w);
	CU_ASSERT_TRUE(w.req[0].arrival > 0);
	for (size_t i = 1; i < w.n; i++)
		backwards += w.req[i].arrival < w.req[i - 1].arrival;
	CU_ASSERT_EQUAL(backwards, 0);
	serve_workload_free(&w);
}

static void serve_workload_generate_bursty_gives_groups_of_exactly_burst_equal_arrivals(void)
{
	static const char *const settings[] = {"arrival", "bursty",       "burst",  "5", "rate",
	                                       "10",      "num_requests", "100003", NULL};
	struct serve_workload w;
	size_t unequal = 0, not_after = 0, bursts = 0;

	generate(settings, &w);
	CU_ASSERT_EQUAL_FATAL(w.n, 100003);
	CU_ASSERT_TRUE(w.req[0].arrival > 0);
	for (size_t i = 0; i < w.n; i++) {
		if (i % 5 != 0) {
			unequal += w.req[i].arrival != w.req[i - 1].arrival;
			continue;
		}
		bursts++;
		not_after += i > 0 && !(w.req[i].arrival > w.req[i - 1].arrival);
	}
	CU_ASSERT_EQUAL(unequal, 0);
	CU_ASSERT_EQUAL(not_after, 0);
	CU_ASSERT_EQUAL(bursts, 20001);
	/* bursts come at rate / burst: a mean gap of 500, to 3% over 20001 gaps as above */
	CU_ASSERT_DOUBLE_EQUAL(w.req[w.n - 1].arrival / 20001, 500.0, 15.0);
	serve_workload_free(&w);
}

static void serve_workload_generate_closed_gives_arrival_minus_1_and_copies_the_concurrency(void)
{
	static const char *const settings[] = {"arrival", "closed",      "concurrency", "12",
	                                       "prompt",  "uniform:1:9", NULL};
	struct serve_workload w;
	size_t not_minus_1 = 0;

	generate(settings, &w);
	CU_ASSERT_EQUAL_FATAL(w.n, 100);
	for (size_t i = 0; i < w.n; i++)
		not_minus_1 += w.req[i].arrival != -1;
	CU_ASSERT_EQUAL(not_minus_1, 0);
	CU_ASSERT_EQUAL(w.concurrency, 12);
	serve_workload_free(&w);
}

static void serve_workload_generate_fixed_lengths_are_exact(void)
{
	static const char *const settings[] = {"prompt",       "fixed:333", "output", "fixed:1",
	                                       "num_requests", "1000",      NULL};
	struct serve_workload w;
	size_t wrong = 0;

	generate(settings, &w);
	CU_ASSERT_EQUAL_FATAL(w.n, 1000);
	for (size_t i = 0; i < w.n; i++)
		wrong += w.req[i].prompt != 333 || w.req[i].output != 1;
	CU_ASSERT_EQUAL(wrong, 0);
	serve_workload_free(&w);
}

static void serve_workload_generate_uniform_stays_within_a_and_b_and_reaches_both(void)
{
	static const char *const settings[] = {
	        "prompt",       "uniform:3:6", "output", "uniform:1:16777216",
	        "num_requests", "4000",        NULL};
	struct serve_workload w;
	size_t count[4] = {0}, outside = 0;
	uint32_t lo = PP_MAX_COUNT, hi = 0;

	generate(settings, &w);
	CU_ASSERT_EQUAL_FATAL(w.n, 4000);
	for (size_t i = 0; i < w.n; i++) {
		uint32_t p = w.req[i].prompt, o = w.req[i].output;

		outside += p < 3 || p > 6 || o < 1 || o > PP_MAX_COUNT;
		if (p >= 3 && p <= 6)
			count[p - 3]++;
		lo = o < lo ? o : lo;
		hi = o > hi ? o : hi;
	}
	CU_ASSERT_EQUAL(outside, 0);
	/* 1000 expected of each, standard deviation 27: 100 away is over 3.5 deviations */
	for (int k = 0; k < 4; k++)
		CU_ASSERT_TRUE(count[k] > 900 && count[k] < 1100);
	/* the wide range is spread over its whole span */
	CU_ASSERT_TRUE(lo < PP_MAX_COUNT / 100);
	CU_ASSERT_TRUE(hi > PP_MAX_COUNT / 100 * 99);
	serve_workload_free(&w);
}

static int compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * lognormal:6:0.5: the median is exp(6) = 403.4, and ln of the counts has a standard deviation
 * of 0.5. Over 20001 samples the median's standard error is sqrt(pi / 2) * 0.5 / sqrt(20001) =
 * 0.44% and that of the deviation 0.5 / sqrt(2 * 20001) = 0.5%; 3% is six errors or more.
 */
static void serve_workload_generate_lognormal_has_a_median_near_exp_mu(void)
{
	static const char *const settings[] = {"prompt", "lognormal:6:0.5", "num_requests", "20001",
	                                       NULL};
	struct serve_workload w;
	uint32_t *x;
	double sum = 0, sum2 = 0, sd;

	generate(settings, &w);
	CU_ASSERT_EQUAL_FATAL(w.n, 20001);
	x = malloc(w.n * sizeof(*x));
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	for (size_t i = 0; i < w.n; i++) {
		x[i] = w.req[i].prompt;
		sum += log(x[i]);
		sum2 += log(x[i]) * log(x[i]);
	}
	qsort(x, w.n, sizeof(*x), compare_u32);
	CU_ASSERT_DOUBLE_EQUAL(x[10000], exp(6), exp(6) * 0.03);
	sd = sqrt(sum2 / 20001 - (sum / 20001) * (sum / 20001));
	CU_ASSERT_DOUBLE_EQUAL(sd, 0.5, 0.5 * 0.03);
	free(x);
	serve_workload_free(&w);
}

static void serve_workload_generate_lognormal_clamps_to_1_and_the_count_limit(void)
{
	static const char *const settings[] = {
	        "prompt",       "lognormal:0:4", "output", "lognormal:16:4",
	        "num_requests", "2000",          NULL};
	static const char *const no_spread[] = {"prompt", "lognormal:16:0", "output",
	                                        "lognormal:0:0", NULL};
	struct serve_workload w;
	uint32_t plo = PP_MAX_COUNT, ohi = 0;

	generate(settings, &w);
	for (size_t i = 0; i < w.n; i++) {
		plo = w.req[i].prompt < plo ? w.req[i].prompt : plo;
		ohi = w.req[i].output > ohi ? w.req[i].output : ohi;
	}
	/* exp(4z) rounds to 0 for z < -0.17, and exp(16 + 4z) passes 2^24 for z > 0.16 */
	CU_ASSERT_EQUAL(plo, 1);
	CU_ASSERT_EQUAL(ohi, PP_MAX_COUNT);
	serve_workload_free(&w);
	/* without spread the count is exp(mu) rounded: exp(16) = 8886110.52 */
	generate(no_spread, &w);
	CU_ASSERT_EQUAL(w.req[0].prompt, 8886111);
	CU_ASSERT_EQUAL(w.req[0].output, 1);
	serve_workload_free(&w);
}

/*
 * Seed 1, poisson at rate 10, prompt uniform:1:1000, output fixed:7 (which draws nothing):
 * each request draws u for its gap, -ln(1 - u) * 100, then u for its prompt, 1 + floor(1000 u).
 * The values were computed independently (Python integers for splitmix64 and xoshiro256**),
 * so a change of generator, seeding, draw order or formula fails here.
 */
static void serve_workload_generate_pins_the_first_three_requests_of_seed_1(void)
{
	static const char *const settings[] = {"seed",   "1",       "arrival", "poisson",
	                                       "rate",   "10",      "prompt",  "uniform:1:1000",
	                                       "output", "fixed:7", NULL};
	static const struct serve_request want[] = {
	        {121.37599867899897, 521, 7},
	        {206.7324072402165, 392, 7},
	        {326.1935552836707, 144, 7},
	};
	struct serve_workload w;

	generate(settings, &w);
	CU_ASSERT_EQUAL_FATAL(w.n, 100);
	for (size_t i = 0; i < 3; i++) {
		CU_ASSERT_DOUBLE_EQUAL(w.req[i].arrival, want[i].arrival, 1e-9);
		CU_ASSERT_EQUAL(w.req[i].prompt, want[i].prompt);
		CU_ASSERT_EQUAL(w.req[i].output, want[i].output);
	}
	serve_workload_free(&w);
}

/* Reference xoshiro256** seeded by splitmix64, written from the published algorithms. */
struct ref_rng {
	uint64_t s[4];
};

static uint64_t ref_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static void ref_seed(struct ref_rng *g, uint64_t x)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = x += UINT64_C(0x9e3779b97f4a7c15);

		z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
		g->s[i] = z ^ (z >> 31);
	}
}

static double ref_uniform(struct ref_rng *g)
{
	uint64_t *s = g->s, out = ref_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = ref_rotl(s[3], 45);
	return (double)(out >> 11) / 9007199254740992.0;
}

static void serve_workload_test_reference_rng_matches_published_and_independent_outputs(void)
{
	struct ref_rng g;
	uint64_t x = 0, z = x += UINT64_C(0x9e3779b97f4a7c15);

	/* splitmix64 from 0 starts with 0xe220a8397b1dcdaf (Vigna's reference code) */
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	CU_ASSERT_EQUAL(z ^ (z >> 31), UINT64_C(0xe220a8397b1dcdaf));
	/* seed 1's first output 0xb3f2af6d0fc710c5, as computed in Python */
	ref_seed(&g, 1);
	CU_ASSERT_EQUAL(ref_uniform(&g),
	                (double)(UINT64_C(0xb3f2af6d0fc710c5) >> 11) / 9007199254740992.0);
}

/*
 * Poisson arrivals at rate 25, prompts uniform:3:40, outputs lognormal:4:0.75 (u1 then u2,
 * z = sqrt(-2 ln(1 - u1)) cos(2 pi u2)), 2000 requests; and bursty arrivals of 3 at rate 6 with
 * the same lengths: the generator must give exactly the reference's numbers.
 */
static void serve_workload_generate_matches_a_reference_of_the_documented_algorithm(void)
{
	static const char *const poisson[] = {
	        "seed",         "12345",        "rate",   "25",
	        "prompt",       "uniform:3:40", "output", "lognormal:4:0.75",
	        "num_requests", "2000",         NULL};
	static const char *const bursty[] = {
	        "seed",         "99",   "arrival", "bursty",       "burst",  "3",
	        "rate",         "6",    "prompt",  "uniform:3:40", "output", "lognormal:4:0.75",
	        "num_requests", "2000", NULL};
	const char *const *settings[] = {poisson, bursty};

	for (int k = 0; k < 2; k++) {
		struct config c = generator_config(settings[k]);
		struct serve_workload w;
		struct ref_rng g;
		double t = 0;
		size_t wrong = 0;

		CU_ASSERT_EQUAL_FATAL(serve_workload_generate(&c, &w, NULL), 0);
		CU_ASSERT_EQUAL_FATAL(w.n, 2000);
		ref_seed(&g, c.seed);
		for (size_t i = 0; i < w.n; i++) {
			double u1, u2, z;
			uint32_t prompt, output;

			if (k == 0)
				t += -log(1 - ref_uniform(&g)) * 1000 / 25;
			else if (i % 3 == 0)
				t += -log(1 - ref_uniform(&g)) * 1000 / (6.0 / 3);
			prompt = 3 + (uint32_t)floor(ref_uniform(&g) * 38);
			u1 = ref_uniform(&g);
			u2 = ref_uniform(&g);
			z = sqrt(-2 * log(1 - u1)) * cos(6.283185307179586477 * u2);
			output = (uint32_t)fmax(1, round(exp(4 + 0.75 * z)));
			wrong += w.req[i].arrival != t || w.req[i].prompt != prompt ||
			         w.req[i].output != output;
		}
		CU_ASSERT_EQUAL(wrong, 0);
		serve_workload_free(&w);
	}
}

/* The option refuses more than SERVE_MAX_REQUESTS requests where it is read; a caller that sets
 * the field itself gets the generator's own cap. */
static void serve_workload_generate_caps_the_requests_at_serve_max_requests(void)
{
	static const char *const settings[] = {NULL};
	struct config c = generator_config(settings);
	struct serve_workload w;
	struct pp_error err = {0};

	CU_ASSERT_EQUAL(config_set(&c, config_option_by_key("num_requests"), "--num-requests",
	                           "1000001", &err),
	                -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "--num-requests '1000001': must be an integer from 1 to "
	                                "1000000");
	c.num_requests = 2000000;
	CU_ASSERT_EQUAL_FATAL(serve_workload_generate(&c, &w, &err), 0);
	CU_ASSERT_EQUAL(w.n, SERVE_MAX_REQUESTS);
	CU_ASSERT_TRUE(w.req[w.n - 1].arrival >= w.req[0].arrival);
	serve_workload_free(&w);
}

static void serve_workload_read_rejects_a_line_longer_than_the_cap_at_its_line(void)
{
	size_t n = strlen("arrival,prompt,output\n") + (1 << 20) + 1;
	char *text = malloc(n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	strcpy(text, "arrival,prompt,output\n");
	memset(text + strlen(text), ' ', n - strlen(text));
	assert_rejected_bytes("long.csv", text, n, 2, 1048577,
	                      "a line longer than the limit of 1048576 bytes");
	free(text);
}

static void serve_workload_read_keeps_an_underflowing_arrival_as_zero_and_refuses_hex(void)
{
	struct serve_workload w;

	read_ok("tiny.csv", "arrival,prompt,output\n1e-400,1,1\n", &w);
	CU_ASSERT_EQUAL_FATAL(w.n, 1);
	CU_ASSERT_EQUAL(w.req[0].arrival, 0);
	serve_workload_free(&w);
	assert_rejected("hex.csv", "arrival,prompt,output\n0x1p3,1,1\n", 2, 1,
	                "arrival '0x1p3': must be a number from 0 to 1000000000");
}

static const struct unit_test tests[] = {
        UNIT_TEST(serve_workload_read_rejects_a_line_longer_than_the_cap_at_its_line),
        UNIT_TEST(serve_workload_read_keeps_an_underflowing_arrival_as_zero_and_refuses_hex),
        UNIT_TEST(serve_workload_read_gives_the_same_requests_from_json_lines_and_csv),
        UNIT_TEST(serve_workload_read_skips_blank_lines_and_comments_even_indented),
        UNIT_TEST(serve_workload_read_takes_the_csv_columns_in_any_order_and_trims_spaces),
        UNIT_TEST(serve_workload_read_accepts_crlf_lines_and_whole_numbers_written_as_decimals),
        UNIT_TEST(serve_workload_read_rejects_a_malformed_json_line_at_the_column_of_the_error),
        UNIT_TEST(serve_workload_read_rejects_a_json_line_that_is_not_an_object),
        UNIT_TEST(serve_workload_read_rejects_an_unknown_or_duplicate_key_at_the_key),
        UNIT_TEST(serve_workload_read_rejects_a_missing_key_at_the_object),
        UNIT_TEST(serve_workload_read_rejects_a_string_or_other_non_number_at_the_value),
        UNIT_TEST(serve_workload_read_rejects_a_negative_arrival_and_huge_or_nan_like_values),
        UNIT_TEST(serve_workload_read_rejects_token_counts_that_are_not_whole_numbers_from_1),
        UNIT_TEST(serve_workload_read_rejects_an_arrival_before_the_previous_naming_both),
        UNIT_TEST(serve_workload_read_rejects_a_csv_header_without_exactly_the_three_columns),
        UNIT_TEST(serve_workload_read_rejects_a_csv_row_with_two_or_four_fields),
        UNIT_TEST(serve_workload_read_refuses_a_last_csv_row_without_its_newline),
        UNIT_TEST(serve_workload_read_rejects_an_empty_file_only_comments_or_only_a_header),
        UNIT_TEST(serve_workload_read_rejects_binary_junk_and_nul_bytes_naming_them),
        UNIT_TEST(serve_workload_read_survives_random_bytes_after_either_start),
        UNIT_TEST(serve_workload_read_of_a_missing_file_is_an_io_error_naming_the_path),
        UNIT_TEST(serve_workload_read_takes_serve_max_requests_and_rejects_one_more),
        UNIT_TEST(serve_workload_free_zeroes_the_workload_and_takes_null),
        UNIT_TEST(serve_workload_generate_gives_the_same_requests_for_the_same_seed),
        UNIT_TEST(serve_workload_generate_gives_different_requests_for_different_seeds),
        UNIT_TEST(serve_workload_generate_poisson_has_a_mean_gap_near_1000_over_the_rate),
        UNIT_TEST(serve_workload_generate_poisson_arrivals_start_after_zero_and_never_go_back),
        UNIT_TEST(serve_workload_generate_bursty_gives_groups_of_exactly_burst_equal_arrivals),
        UNIT_TEST(serve_workload_generate_closed_gives_arrival_minus_1_and_copies_the_concurrency),
        UNIT_TEST(serve_workload_generate_fixed_lengths_are_exact),
        UNIT_TEST(serve_workload_generate_uniform_stays_within_a_and_b_and_reaches_both),
        UNIT_TEST(serve_workload_generate_lognormal_has_a_median_near_exp_mu),
        UNIT_TEST(serve_workload_generate_lognormal_clamps_to_1_and_the_count_limit),
        UNIT_TEST(serve_workload_generate_pins_the_first_three_requests_of_seed_1),
        UNIT_TEST(serve_workload_test_reference_rng_matches_published_and_independent_outputs),
        UNIT_TEST(serve_workload_generate_matches_a_reference_of_the_documented_algorithm),
        UNIT_TEST(serve_workload_generate_caps_the_requests_at_serve_max_requests),
        {NULL, NULL},
};

const struct unit_suite suite_serve_workload = {"serve_workload", tests};
