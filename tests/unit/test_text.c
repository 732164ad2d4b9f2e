/* Unit tests of text input: the bounded line reader, CSV fields, the strict numbers and the JSON
 * well-formedness check. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_text.h"
#include "base/text.h"
#include "unit.h"

/* A stream holding the len bytes of text. */
static FILE *stream_of(const char *text, size_t len)
{
	FILE *f = tmpfile();

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(text, 1, len, f), len);
	rewind(f);
	return f;
}

static void text_lines_reads_each_line_without_its_newline(void)
{
	FILE *f = stream_of("a,b\r\n\nlast", 10);
	struct text_lines r;
	struct pp_error err = {0};

	text_lines_init(&r, f, "schedule", "s.csv");
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	CU_ASSERT_STRING_EQUAL(r.line, "a,b\r");
	CU_ASSERT_EQUAL(r.len, 4);
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	CU_ASSERT_STRING_EQUAL(r.line, "");
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	CU_ASSERT_STRING_EQUAL(r.line, "last");
	CU_ASSERT_EQUAL(r.lineno, 3);
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 0);
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 0);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_NONE);
	text_lines_release(&r);
	fclose(f);
}

static void text_lines_refuses_a_nul_byte_naming_its_place(void)
{
	FILE *f = stream_of("ok\nab\0c\n", 8);
	struct text_lines r;
	struct pp_error err = {0};

	text_lines_init(&r, f, "requests", "r.csv");
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_EQUAL(err.line, 2);
	CU_ASSERT_EQUAL(err.column, 3);
	CU_ASSERT_STRING_EQUAL(err.msg, "requests 'r.csv':2:3: a NUL byte: not a text file");
	text_lines_release(&r);
	fclose(f);
}

static void text_lines_takes_a_line_of_the_cap_and_refuses_one_byte_more(void)
{
	size_t n = TEXT_LINE_MAX + 1;
	char *text = malloc(2 * n + 1);
	struct text_lines r;
	struct pp_error err = {0};
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	memset(text, 'x', 2 * n + 1);
	text[TEXT_LINE_MAX] = '\n'; /* line 1: exactly the cap; line 2: one byte more */
	f = stream_of(text, 2 * n + 1);
	text_lines_init(&r, f, "schedule", "big.csv");
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	CU_ASSERT_EQUAL(r.len, TEXT_LINE_MAX);
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
	CU_ASSERT_EQUAL(err.line, 2);
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule 'big.csv':2:1048577: a line longer than the "
	                                "limit of 1048576 bytes");
	CU_ASSERT_TRUE(r.cap <= 2 * TEXT_LINE_MAX + 2);
	text_lines_release(&r);
	fclose(f);
	free(text);
}

/* A line of 3 MiB of fields (some quoted, holding commas, one across the cap) read in
 * pieces: each piece whole fields within the cap, cut at a comma that neither keeps, and
 * together the line. */
static void text_lines_next_piece_cuts_a_long_line_after_whole_fields(void)
{
	size_t n = 3 * TEXT_LINE_MAX, len = 0, got = 0, pieces = 0, column = 1, fields = 0;
	char *text = malloc(n + 64), *back = malloc(n + 64);
	struct text_lines r;
	struct pp_error err = {0};
	FILE *f;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(back);
	/* a quoted field whose commas straddle the cap, then one every thousand fields */
	while (len < n)
		len += (size_t)sprintf(text + len,
		                       (len + 8 >= TEXT_LINE_MAX && len < TEXT_LINE_MAX) ||
		                                       ++fields % 1000 == 0
		                               ? "\"a,b,\"\",c,d,e,f,g\","
		                               : "%zuF%zu,",
		                       len % 7, len);
	text[len - 1] = '\n';
	memcpy(text + len, "next\n", 5);
	f = stream_of(text, len + 5);
	text_lines_init(&r, f, "schedule", "long.csv");
	while ((rc = text_lines_next_piece(&r, &err)) == 1 && r.lineno == 1) {
		size_t quotes = 0;

		CU_ASSERT_TRUE(r.len <= TEXT_LINE_MAX);
		/* never cut inside a quoted field: each piece holds its quotes in pairs */
		for (size_t i = 0; i < r.len; i++)
			quotes += r.line[i] == '"';
		CU_ASSERT_EQUAL(quotes % 2, 0);
		CU_ASSERT_EQUAL(r.column, column);
		memcpy(back + got, r.line, r.len);
		got += r.len;
		back[got++] = r.more ? ',' : '\n';
		column += r.len + 1;
		pieces++;
		CU_ASSERT_EQUAL(r.newline, !r.more);
	}
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_STRING_EQUAL(r.line, "next");
	CU_ASSERT_EQUAL(r.column, 1);
	CU_ASSERT_TRUE(pieces >= 3);
	CU_ASSERT_EQUAL(got, len);
	CU_ASSERT_EQUAL(memcmp(back, text, len), 0);
	CU_ASSERT_TRUE(r.cap <= 2 * TEXT_LINE_MAX + 2);
	CU_ASSERT_EQUAL(text_lines_next_piece(&r, &err), 0);
	text_lines_release(&r);
	fclose(f);
	/* a field longer than the cap is refused */
	memset(text, 'x', TEXT_LINE_MAX + 5);
	memcpy(text, "0F0,", 4);
	f = stream_of(text, TEXT_LINE_MAX + 5);
	text_lines_init(&r, f, "schedule", "long.csv");
	CU_ASSERT_EQUAL(text_lines_next_piece(&r, &err), 1);
	CU_ASSERT_STRING_EQUAL(r.line, "0F0");
	CU_ASSERT_EQUAL(text_lines_next_piece(&r, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "schedule 'long.csv':1:1048581: a field longer than the "
	                                "limit of 1048576 bytes");
	text_lines_release(&r);
	fclose(f);
	free(text);
	free(back);
}

/* The last line of a file without a final newline may have been cut: the reader says so, and
 * text_lines_check_whole refuses it, after the line. */
static void text_lines_says_whether_a_line_ended_with_a_newline(void)
{
	FILE *f = stream_of("1.5\n2.7", 7);
	struct text_lines r;
	struct pp_error err = {0};

	text_lines_init(&r, f, "calibration", "m.csv");
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	CU_ASSERT_TRUE(r.newline);
	CU_ASSERT_EQUAL(text_lines_check_whole(&r, &err), 0);
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	CU_ASSERT_STRING_EQUAL(r.line, "2.7");
	CU_ASSERT_FALSE(r.newline);
	CU_ASSERT_EQUAL(text_lines_check_whole(&r, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "calibration 'm.csv':2:4: the file ends in this line, "
	                                "without a newline: its last number may be cut (end the "
	                                "file with a newline if it is whole)");
	text_lines_release(&r);
	fclose(f);
}

static void text_lines_reports_a_read_error_as_io(void)
{
	FILE *f = fopen("/dev/null", "w"); /* reading a write-only stream fails */
	struct text_lines r;
	struct pp_error err = {0};

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	text_lines_init(&r, f, "schedule", "w.csv");
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
	CU_ASSERT_EQUAL(strncmp(err.msg, "cannot read 'w.csv': ", 21), 0);
	text_lines_release(&r);
	fclose(f);
}

static void text_csv_splits_at_commas_trimming_blanks(void)
{
	char line[] = " a ,\tb\t,, c d ";
	char *fields[8];
	size_t offs[8];

	CU_ASSERT_EQUAL(text_csv_split(line, false, fields, offs, 8), 4);
	CU_ASSERT_STRING_EQUAL(fields[0], "a");
	CU_ASSERT_EQUAL(offs[0], 1);
	CU_ASSERT_STRING_EQUAL(fields[1], "b");
	CU_ASSERT_EQUAL(offs[1], 5);
	CU_ASSERT_STRING_EQUAL(fields[2], "");
	CU_ASSERT_STRING_EQUAL(fields[3], "c d");
	CU_ASSERT_EQUAL(offs[3], 10);
}

static void text_csv_counts_fields_beyond_max_and_trims_cr_on_request(void)
{
	char a[] = "1,2\r,3\r", b[] = "1,2\r,3\r";
	char *fields[2];
	size_t offs[2];

	CU_ASSERT_EQUAL(text_csv_split(a, false, fields, offs, 2), 3);
	CU_ASSERT_STRING_EQUAL(fields[1], "2\r");
	CU_ASSERT_EQUAL(text_csv_split(b, true, fields, offs, 2), 3);
	CU_ASSERT_STRING_EQUAL(fields[1], "2");
}

/* Neither reader accepts quoted fields, so a quote is an ordinary character. */
static void text_split_cuts_at_each_separator_keeping_blanks_and_counting_all(void)
{
	char a[] = "uniform: 4:8", b[] = "1:2:3:4", c[] = "solo", *f[3];

	CU_ASSERT_EQUAL(text_split(a, ':', f, 3), 3);
	CU_ASSERT_STRING_EQUAL(f[0], "uniform");
	CU_ASSERT_STRING_EQUAL(f[1], " 4");
	CU_ASSERT_STRING_EQUAL(f[2], "8");
	CU_ASSERT_EQUAL(text_split(b, ':', f, 3), 4);
	CU_ASSERT_STRING_EQUAL(f[2], "3");
	CU_ASSERT_EQUAL(text_split(c, ':', f, 3), 1);
	CU_ASSERT_STRING_EQUAL(f[0], "solo");
	CU_ASSERT_PTR_NULL(f[1]);
	CU_ASSERT_PTR_NULL(f[2]);
}

static void text_csv_reads_quoted_fields_as_spreadsheets_write_them(void)
{
	char quoted[] = "\"a,b\",c", doubled[] = " \"say \"\"hi\"\"\" ,2", open[] = "\"open,x";
	char tail[] = "\"ab\"cd,e", plain[] = "a\"b,c";
	char *fields[4];
	size_t offs[4];

	CU_ASSERT_EQUAL(text_csv_split(quoted, false, fields, offs, 4), 2);
	CU_ASSERT_STRING_EQUAL(fields[0], "a,b");
	CU_ASSERT_STRING_EQUAL(fields[1], "c");
	CU_ASSERT_EQUAL(offs[1], 6);
	CU_ASSERT_EQUAL(text_csv_split(doubled, false, fields, offs, 4), 2);
	CU_ASSERT_STRING_EQUAL(fields[0], "say \"hi\"");
	CU_ASSERT_STRING_EQUAL(fields[1], "2");
	/* an unclosed quote runs to the end of the line */
	CU_ASSERT_EQUAL(text_csv_split(open, false, fields, offs, 4), 1);
	CU_ASSERT_STRING_EQUAL(fields[0], "open,x");
	/* what follows the closing quote stays part of the field */
	CU_ASSERT_EQUAL(text_csv_split(tail, false, fields, offs, 4), 2);
	CU_ASSERT_STRING_EQUAL(fields[0], "abcd");
	/* a quote inside an unquoted field is an ordinary character */
	CU_ASSERT_EQUAL(text_csv_split(plain, false, fields, offs, 4), 2);
	CU_ASSERT_STRING_EQUAL(fields[0], "a\"b");
}

/* The line of text as a reader's current line, checked as CSV: 0, or the column of the error
 * (its message checked to hold what). */
static int csv_check_column(const char *text, const char *what)
{
	FILE *f = stream_of(text, strlen(text));
	struct text_lines r;
	struct pp_error err = {0};
	int column = 0;

	text_lines_init(&r, f, "schedule", "s.csv");
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	if (text_lines_check_csv(&r, &err) != 0) {
		column = err.column;
		CU_ASSERT_EQUAL(err.kind, PP_ERR_CONFIG);
		CU_ASSERT_EQUAL(err.line, 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, what));
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "schedule 's.csv':1:"));
	}
	text_lines_release(&r);
	fclose(f);
	return column;
}

static void text_lines_check_csv_refuses_quoting_no_spreadsheet_writes(void)
{
	static const char *const open = "without its closing quote", *after = "after a quoted";

	/* quoted as spreadsheets write it: empty, doubled quotes, commas, blanks around, CR */
	CU_ASSERT_EQUAL(csv_check_column("\"a,b\",c\n", open), 0);
	CU_ASSERT_EQUAL(csv_check_column(" \"say \"\"hi\"\"\" ,\"\",2\r\n", open), 0);
	CU_ASSERT_EQUAL(csv_check_column("a\"b,c\"d\n", open), 0); /* not opening a field */
	CU_ASSERT_EQUAL(csv_check_column("\"\"\n", open), 0);
	/* an opening quote without its closing one, at the quote's column */
	CU_ASSERT_EQUAL(csv_check_column("0,0,F,\"0\n", open), 7);
	CU_ASSERT_EQUAL(csv_check_column("x, \"a\"\"\n", open), 4);
	CU_ASSERT_EQUAL(csv_check_column("\"\n", open), 1);
	/* text after the closing quote, at the text's column */
	CU_ASSERT_EQUAL(csv_check_column("0,0,\"B\"W,0\n", after), 8);
	CU_ASSERT_EQUAL(csv_check_column("\"a\" \"b\",c\n", after), 5);
}

static void text_file_fingerprint_is_fnv1a_of_the_bytes(void)
{
	char path[] = "/tmp/ppsim-fp-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	uint64_t fp = 0;
	struct pp_error err = {0};

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	/* FNV-1a's published values: the empty text, "a", "foobar" */
	CU_ASSERT_EQUAL(text_file_fingerprint(path, &fp, &err), 0);
	CU_ASSERT_EQUAL(fp, 0xcbf29ce484222325ULL);
	f = fopen(path, "wb");
	fputs("a", f);
	fclose(f);
	CU_ASSERT_EQUAL(text_file_fingerprint(path, &fp, &err), 0);
	CU_ASSERT_EQUAL(fp, 0xaf63dc4c8601ec8cULL);
	f = fopen(path, "wb");
	fputs("foobar", f);
	fclose(f);
	CU_ASSERT_EQUAL(text_file_fingerprint(path, &fp, &err), 0);
	CU_ASSERT_EQUAL(fp, 0x85944171f73967e8ULL);
	remove(path);
	CU_ASSERT_EQUAL(text_file_fingerprint(path, &fp, &err), -1);
	CU_ASSERT_EQUAL(err.kind, PP_ERR_IO);
}

static void text_lines_drops_a_byte_order_mark_at_the_start(void)
{
	FILE *f = stream_of("\xef\xbb\xbf"
	                    "a,b\n\xef\xbb\xbf"
	                    "c",
	                    11);
	struct text_lines r;
	struct pp_error err = {0};

	text_lines_init(&r, f, "schedule", "s.csv");
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	CU_ASSERT_STRING_EQUAL(r.line, "a,b");
	CU_ASSERT_EQUAL(r.len, 3);
	/* only at the start of the file */
	CU_ASSERT_EQUAL(text_lines_next(&r, &err), 1);
	CU_ASSERT_EQUAL(r.len, 4);
	text_lines_release(&r);
	fclose(f);
}

static void text_csv_next_walks_the_fields_of_a_line(void)
{
	char line[] = "0F0, 1B0 ,";
	char *p = line;

	CU_ASSERT_STRING_EQUAL(text_csv_next(&p, true), "0F0");
	CU_ASSERT_STRING_EQUAL(text_csv_next(&p, true), "1B0");
	CU_ASSERT_PTR_NOT_NULL(p);
	CU_ASSERT_STRING_EQUAL(text_csv_next(&p, true), "");
	CU_ASSERT_PTR_NULL(p);
}

static void text_parse_uint_takes_digits_in_range_only(void)
{
	uint64_t x = 7;

	CU_ASSERT_EQUAL(text_parse_uint("0", 0, 10, &x), TEXT_OK);
	CU_ASSERT_EQUAL(x, 0);
	CU_ASSERT_EQUAL(text_parse_uint("0010", 0, 10, &x), TEXT_OK);
	CU_ASSERT_EQUAL(x, 10);
	CU_ASSERT_EQUAL(text_parse_uint("18446744073709551615", 0, UINT64_MAX, &x), TEXT_OK);
	CU_ASSERT_EQUAL(x, UINT64_MAX);
	x = 7;
	CU_ASSERT_EQUAL(text_parse_uint("18446744073709551616", 0, UINT64_MAX, &x), TEXT_RANGE);
	CU_ASSERT_EQUAL(text_parse_uint("11", 0, 10, &x), TEXT_RANGE);
	CU_ASSERT_EQUAL(text_parse_uint("0", 1, 10, &x), TEXT_RANGE);
	CU_ASSERT_EQUAL(x, 7);
}

static void text_parse_uint_refuses_signs_blanks_hex_junk_and_empty(void)
{
	static const char *const bad[] = {"", "-1", "+1", " 1", "1 ", "\n1", "0x10", "1a", "1.0"};
	uint64_t x = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(text_parse_uint(bad[i], 0, UINT64_MAX, &x), TEXT_SYNTAX);
	CU_ASSERT_EQUAL(x, 7);
}

static void text_scan_uint_stops_after_the_digits(void)
{
	const char *p = "12/8";
	uint64_t x = 0;

	CU_ASSERT_EQUAL(text_scan_uint(&p, &x), TEXT_OK);
	CU_ASSERT_EQUAL(x, 12);
	CU_ASSERT_STRING_EQUAL(p, "/8");
	CU_ASSERT_EQUAL(text_scan_uint(&p, &x), TEXT_SYNTAX);
	CU_ASSERT_STRING_EQUAL(p, "/8");
}

static void text_parse_int_takes_a_minus_and_the_whole_range(void)
{
	long long x = 7;

	CU_ASSERT_EQUAL(text_parse_int("-12", -100, 100, &x), TEXT_OK);
	CU_ASSERT_EQUAL(x, -12);
	CU_ASSERT_EQUAL(text_parse_int("-0", 0, 1, &x), TEXT_OK);
	CU_ASSERT_EQUAL(x, 0);
	CU_ASSERT_EQUAL(text_parse_int("9223372036854775807", 0, INT64_MAX, &x), TEXT_OK);
	CU_ASSERT_EQUAL(x, INT64_MAX);
	CU_ASSERT_EQUAL(text_parse_int("-9223372036854775808", INT64_MIN, 0, &x), TEXT_OK);
	CU_ASSERT_EQUAL(x, INT64_MIN);
	CU_ASSERT_EQUAL(text_parse_int("9223372036854775808", 0, INT64_MAX, &x), TEXT_RANGE);
	CU_ASSERT_EQUAL(text_parse_int("-9223372036854775809", INT64_MIN, 0, &x), TEXT_RANGE);
	CU_ASSERT_EQUAL(text_parse_int("-1", 0, 10, &x), TEXT_RANGE);
	CU_ASSERT_EQUAL(text_parse_int("+1", 0, 10, &x), TEXT_SYNTAX);
	CU_ASSERT_EQUAL(text_parse_int("-", 0, 10, &x), TEXT_SYNTAX);
	CU_ASSERT_EQUAL(text_parse_int("", 0, 10, &x), TEXT_SYNTAX);
	CU_ASSERT_EQUAL(text_parse_int(" 1", 0, 10, &x), TEXT_SYNTAX);
	CU_ASSERT_EQUAL(text_parse_int("1x", 0, 10, &x), TEXT_SYNTAX);
	CU_ASSERT_EQUAL(text_parse_int("0x1", 0, 10, &x), TEXT_SYNTAX);
	CU_ASSERT_EQUAL(x, INT64_MIN);
}

static void text_parse_double_takes_decimals(void)
{
	static const struct {
		const char *s;
		double x;
	} good[] = {{"12", 12}, {"-3", -3},    {"+0.5", 0.5},  {".5", 0.5},
	            {"5.", 5},  {"1e3", 1000}, {"2E-2", 0.02}, {"34.6", 34.6}};
	double x;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		x = NAN;
		CU_ASSERT_EQUAL(text_parse_double(good[i].s, &x), TEXT_OK);
		CU_ASSERT_EQUAL(x, good[i].x);
	}
}

static void text_parse_double_refuses_hex_inf_nan_blanks_junk_and_empty(void)
{
	static const char *const bad[] = {"",         "0x1p3", "0x10",  "inf", "-inf", "nan",
	                                  "infinity", " 1",    "1 ",    "\t1", "1e",   "1e+",
	                                  ".",        "-",     "1.2.3", "1,5", "e5"};
	double x = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(text_parse_double(bad[i], &x), TEXT_SYNTAX);
	CU_ASSERT_EQUAL(x, 42);
}

static void text_parse_double_reports_overflow_and_underflow_as_range(void)
{
	double x = 0;

	CU_ASSERT_EQUAL(text_parse_double("1e400", &x), TEXT_RANGE);
	CU_ASSERT_TRUE(isinf(x));
	CU_ASSERT_EQUAL(text_parse_double("-1e400", &x), TEXT_RANGE);
	CU_ASSERT_TRUE(isinf(x) && x < 0);
	CU_ASSERT_EQUAL(text_parse_double("1e-400", &x), TEXT_RANGE);
	CU_ASSERT_EQUAL(x, 0);
}

/* Whether cJSON parses text[0..len-1] as the config reader asks it to. */
static bool cjson_parses(const char *text, size_t len)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);

	cJSON_Delete(root);
	return root != NULL;
}

/* Fails, naming text, when json_well_formed and cJSON disagree on it. */
static void check_agrees(const char *text, size_t len)
{
	bool ours = json_well_formed(text, len), theirs = cjson_parses(text, len);

	if (ours != theirs)
		fprintf(stderr, "\njson_well_formed %d, cJSON %d: '%.*s'\n", ours, theirs, (int)len,
		        text);
	CU_ASSERT_EQUAL(ours, theirs);
}

static void json_well_formed_agrees_with_cjson_on_its_edge_cases(void)
{
	static const char *const texts[] = {
	        "",
	        " ",
	        "{}",
	        " {} ",
	        "{\"a\":1}",
	        "{\"a\":1,}",
	        "{,}",
	        "{\"a\"}",
	        "{\"a\":}",
	        "[]",
	        "[1,2]",
	        "[1,]",
	        "[,1]",
	        "[",
	        "]",
	        "{",
	        "{\"a\":1",
	        "{\"a\":[1,{\"b\":null}]}",
	        "null",
	        "nul",
	        "true",
	        "tru",
	        "false",
	        "falsey",
	        "\"\"",
	        "\"abc",
	        "\"a\\\"",
	        "\"\\u00e9\"",
	        "\"\\u00\"",
	        "\"\\uZZZZ\"",
	        "\"\\uD800\"",
	        "\"\\uDC00\"",
	        "\"\\uD834\\uDD1E\"",
	        "\"\\uD834\\u0041\"",
	        "\"\\uAAA\\\\\"",
	        "\"\\x\"",
	        "\"\\/\\b\\f\\n\\r\\t\"",
	        "\"tab\there\"",
	        "1",
	        "-",
	        "-1",
	        "+1",
	        "01",
	        "1.",
	        ".5",
	        "-.5",
	        "1e",
	        "1e5",
	        "1e+5",
	        "1-2",
	        "1.5.5",
	        "0x10",
	        "NaN",
	        "Infinity",
	        "-Infinity",
	        "1 2",
	        "{} {}",
	        "\xEF\xBB\xBF{}",
	        "\xEF\xBB\xBF",
	        "\xEF\xBB{}",
	        "\x01{}\x1f",
	        "{\"a\"\x7f:1}",
	        "[1111111111111111111111111111111111111111111111111111111111111111111]",
	        "[1111111111111111111111111111111111111111111111111111111111111111111e]",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		check_agrees(texts[i], strlen(texts[i]));
	check_agrees("{}\0x", 4); /* a NUL ends the text for both */
}

static void json_well_formed_agrees_with_cjson_on_the_nesting_limit(void)
{
	size_t n = CJSON_NESTING_LIMIT + 1;
	char *text = malloc(2 * n + 1);

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (size_t depth = n - 1; depth <= n; depth++) {
		memset(text, '[', depth);
		memset(text + depth, ']', depth);
		text[2 * depth] = '\0';
		check_agrees(text, 2 * depth);
		CU_ASSERT_EQUAL(json_well_formed(text, 2 * depth), depth < n);
	}
	free(text);
}

/* Random edits of valid documents, from the bytes that matter to the grammar. */
static void json_well_formed_agrees_with_cjson_on_edited_documents(void)
{
	static const char *const seeds[] = {
	        "{\"schedule\": \"1f1b\", \"p\": 4, \"stage_scale\": [1, 1.5e0, -2],\n"
	        " \"x\": {\"y\": [true, false, null, \"a\\\"b\\u00e9\\uD834\\uDD1E\"]}}",
	        "[[[]], {}, \"\\\\\", 0.5, -0, 1E+2]",
	};
	static const char alphabet[] = "{}[]\",:\\u0123456789abcdefABCDEF.eE+-ntrl \t\n\x01\xEF";
	char text[256];
	uint64_t state = 1;

	for (int round = 0; round < 40000; round++) {
		const char *seed = seeds[round % 2];
		size_t len = strlen(seed);

		memcpy(text, seed, len + 1);
		for (int edits = 1 + round % 3; edits > 0; edits--) {
			size_t at, pick;

			state = state * 6364136223846793005u + 1442695040888963407u;
			at = (size_t)(state >> 33) % (len + 1);
			pick = (size_t)(state >> 17) % (sizeof(alphabet) - 1);
			if ((state >> 8) % 3 == 0 && len + 1 < sizeof(text)) { /* insert */
				memmove(text + at + 1, text + at, len - at + 1);
				text[at] = alphabet[pick];
				len++;
			} else if ((state >> 8) % 3 == 1 && at < len) { /* delete */
				memmove(text + at, text + at + 1, len - at);
				len--;
			} else if (at < len) {
				text[at] = alphabet[pick];
			}
		}
		check_agrees(text, len);
	}
}

/* json_strict_check refuses what strict JSON refuses and cJSON takes, at the offending byte,
 * and takes strict JSON whole. */
static void json_strict_check_refuses_control_bytes_nul_escapes_and_loose_numbers(void)
{
	static const struct {
		const char *text;
		size_t at; /* the offending byte; the length when none */
		const char *why;
	} cases[] = {
	        {"{\"p\": 2, \"s\": \"a\\\"b\", \"x\": [-0.5, 1e-3, 0, 12E+2]}", 47, NULL},
	        {"{\"m\\u0000junk\": 4}", 3, "\\u0000 in a string"},
	        {"{\"m\\\\u0000\": 4}", 13, NULL}, /* an escaped backslash, then u0000 text */
	        {"{\"p\":\x01 2}", 5, "a control byte (0x01)"},
	        {"{\"s\": \"a\tb\"}", 8, "a raw control byte (0x09)"},
	        {"{\"p\": 02}", 6, "a number outside JSON's grammar"},
	        {"{\"p\": +2}", 6, "a number outside JSON's grammar"},
	        {"{\"p\": .5}", 6, "a number outside JSON's grammar"},
	        {"{\"p\": 1.}", 6, "a number outside JSON's grammar"},
	        {"{\"p\": 1e}", 6, "a number outside JSON's grammar"},
	        {"{\"p\": -}", 6, "a number outside JSON's grammar"},
	        {"\t{ \"p\" :\r\n 2 }\n", 17, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[128] = "";
		size_t len = strlen(cases[i].text);
		size_t at = json_strict_check(cases[i].text, len, why, sizeof(why));

		CU_ASSERT_EQUAL(at, cases[i].why == NULL ? len : cases[i].at);
		if (cases[i].why != NULL)
			CU_ASSERT_PTR_NOT_NULL(strstr(why, cases[i].why));
		if (at != (cases[i].why == NULL ? len : cases[i].at))
			fprintf(stderr, "\n  case %zu: at %zu (%s)\n", i, at, why);
	}
}


/* The suggestion for word among the comma-separated names, "" for none. */
static const char *suggest(const char *word, const char *names)
{
	static char buf[96];

	return text_suggest_in(word, names, ", ", buf, sizeof(buf));
}

static void text_suggest_names_the_nearest_name_within_a_slip(void)
{
	const char *sched = "gpipe, 1f1b, interleaved, interleaved-zb, zbh1, zbv, zbv-auto";

	CU_ASSERT_STRING_EQUAL(suggest("1f1f", sched), "; did you mean '1f1b'?");
	CU_ASSERT_STRING_EQUAL(suggest("interleavd", sched), "; did you mean 'interleaved'?");
	CU_ASSERT_STRING_EQUAL(suggest("gpiep", sched), "; did you mean 'gpipe'?"); /* a swap */
	CU_ASSERT_STRING_EQUAL(suggest("ZBH", sched), "; did you mean 'zbh1'?"); /* any case */
	/* too far, too short, or the name itself: nothing */
	CU_ASSERT_STRING_EQUAL(suggest("pipedream", sched), "");
	CU_ASSERT_STRING_EQUAL(suggest("zb", sched), "");
	CU_ASSERT_STRING_EQUAL(suggest("1f1b", sched), "");
	/* for names matched exactly, the name in its case */
	CU_ASSERT_STRING_EQUAL(suggest("1F1B", sched), "; did you mean '1f1b'?");
	CU_ASSERT_STRING_EQUAL(suggest("", sched), "");
	/* 1 edit up to 4 characters, 2 up to 8, then 3 */
	CU_ASSERT_STRING_EQUAL(suggest("abxy", "abcd"), "");
	CU_ASSERT_STRING_EQUAL(suggest("abcdexyz", "abcdefgh"), "");
	CU_ASSERT_STRING_EQUAL(suggest("abcdefxy", "abcdefgh"), "; did you mean 'abcdefgh'?");
	CU_ASSERT_STRING_EQUAL(suggest("abcdefxyz", "abcdefghi"), "; did you mean 'abcdefghi'?");
}

static void text_suggest_takes_the_one_name_a_word_begins(void)
{
	/* h100 begins only h100-sxm, which wins over h200, one edit away */
	CU_ASSERT_STRING_EQUAL(suggest("h100", "a100-80g, h100-sxm, h200"),
	                       "; did you mean 'h100-sxm'?");
	/* a word beginning several names falls back to the nearest by edits, first of equals,
	 * unless that is a name it does not begin: then the nearest of those it begins */
	CU_ASSERT_STRING_EQUAL(suggest("nvlink", "nvlink3, nvlink4, pcie4"),
	                       "; did you mean 'nvlink3'?");
	CU_ASSERT_STRING_EQUAL(suggest("zbv-", "zbv-auto, zbv-x"), "; did you mean 'zbv-x'?");
	CU_ASSERT_STRING_EQUAL(suggest("h100", "a100-80g, h100-sxm, h800, h100-pcie, h200"),
	                       "; did you mean 'h100-sxm'?");
	/* a name tried twice still counts once */
	{
		struct text_suggest s;

		text_suggest_init(&s, "sched", 5);
		text_suggest_try(&s, "schedule", 8);
		text_suggest_try(&s, "schedule", 8);
		CU_ASSERT_STRING_EQUAL(text_suggest_best(&s), "schedule");
		/* a word longer than any name kept is refused, not cut */
		text_suggest_init(&s, "x", 1);
		CU_ASSERT_PTR_NULL(text_suggest_best(&s));
	}
}

static void text_choices_lists_names_as_a_refusal_does(void)
{
	static const char *const names[] = {"ppsim", "torch", "torch-comms"};
	char buf[64], small[8];

	CU_ASSERT_STRING_EQUAL(text_choices(names, 1, buf, sizeof(buf)), "'ppsim'");
	CU_ASSERT_STRING_EQUAL(text_choices(names, 2, buf, sizeof(buf)), "'ppsim' or 'torch'");
	CU_ASSERT_STRING_EQUAL(text_choices(names, 3, buf, sizeof(buf)),
	                       "'ppsim', 'torch' or 'torch-comms'");
	CU_ASSERT_STRING_EQUAL(text_choices(names, 0, buf, sizeof(buf)), "");
	CU_ASSERT_STRING_EQUAL(text_choices(names, 3, small, sizeof(small)), "'ppsim'");
}

static void text_visible_writes_what_a_terminal_acts_on_as_hex(void)
{
	char buf[64], small[8];

	/* an escape sequence, a C1 control in UTF-8, a byte that is not UTF-8, DEL */
	CU_ASSERT_STRING_EQUAL(text_visible(buf, sizeof(buf), "e\033[31mred"), "e\\x1b[31mred");
	CU_ASSERT_STRING_EQUAL(text_visible(buf, sizeof(buf), "a\xc2\x9b" "b"), "a\\xc2\\x9bb");
	CU_ASSERT_STRING_EQUAL(text_visible(buf, sizeof(buf), "\xff\x7f"), "\\xff\\x7f");
	/* whole UTF-8 characters are kept: é, €, 𝄞 */
	CU_ASSERT_STRING_EQUAL(text_visible(buf, sizeof(buf), "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e"),
	                       "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e");
	/* whole when it fits; else cut short at a whole character or escape and marked, always
	 * ended */
	CU_ASSERT_STRING_EQUAL(text_visible(small, sizeof(small), "abcdefg"), "abcdefg");
	CU_ASSERT_STRING_EQUAL(text_visible(small, sizeof(small), "ab\033"), "ab\\x1b");
	CU_ASSERT_STRING_EQUAL(text_visible(small, 7, "abc\033def"), "abc...");
	CU_ASSERT_STRING_EQUAL(text_visible(small, sizeof(small), "abc\033def"), "abc...");
	CU_ASSERT_STRING_EQUAL(text_visible(small, sizeof(small), "abcdefghij"), "abcd...");
	CU_ASSERT_STRING_EQUAL(text_visible(small, 3, "abcdefghij"), "");
	CU_ASSERT_EQUAL(text_visible_len("\t"), 0);
	CU_ASSERT_EQUAL(text_visible_len("\xe2\x82\xac"), 3);
}

static void json_walks_a_well_formed_text_a_value_at_a_time_with_its_places(void)
{
	const char text[] = "[ {\"a\": [1, \"]\"]},\n\t2 ]";
	size_t len = sizeof(text) - 1, at = json_blanks_end(text, len, 1), end;
	struct json_pos pos = {1, 1};

	CU_ASSERT_TRUE_FATAL(json_well_formed(text, len));
	CU_ASSERT_EQUAL(at, 2);
	end = json_value_end(text, len, at);
	CU_ASSERT_EQUAL(end, 17); /* past the object, its "]" in a string included */
	at = json_blanks_end(text, len, end + 1);
	CU_ASSERT_EQUAL(text[at], '2');
	json_advance(text, 0, at, &pos);
	CU_ASSERT_EQUAL(pos.line, 2);
	CU_ASSERT_EQUAL(pos.column, 2);
	CU_ASSERT_EQUAL(json_value_end(text, len, at), at + 1);
}

static const struct unit_test tests[] = {
        UNIT_TEST(text_choices_lists_names_as_a_refusal_does),
        UNIT_TEST(text_lines_reads_each_line_without_its_newline),
        UNIT_TEST(text_lines_refuses_a_nul_byte_naming_its_place),
        UNIT_TEST(text_lines_takes_a_line_of_the_cap_and_refuses_one_byte_more),
        UNIT_TEST(text_lines_next_piece_cuts_a_long_line_after_whole_fields),
        UNIT_TEST(text_lines_says_whether_a_line_ended_with_a_newline),
        UNIT_TEST(text_lines_reports_a_read_error_as_io),
        UNIT_TEST(text_csv_splits_at_commas_trimming_blanks),
        UNIT_TEST(text_split_cuts_at_each_separator_keeping_blanks_and_counting_all),
        UNIT_TEST(text_csv_counts_fields_beyond_max_and_trims_cr_on_request),
        UNIT_TEST(text_csv_reads_quoted_fields_as_spreadsheets_write_them),
        UNIT_TEST(text_lines_check_csv_refuses_quoting_no_spreadsheet_writes),
        UNIT_TEST(text_file_fingerprint_is_fnv1a_of_the_bytes),
        UNIT_TEST(text_lines_drops_a_byte_order_mark_at_the_start),
        UNIT_TEST(text_csv_next_walks_the_fields_of_a_line),
        UNIT_TEST(text_parse_uint_takes_digits_in_range_only),
        UNIT_TEST(text_parse_uint_refuses_signs_blanks_hex_junk_and_empty),
        UNIT_TEST(text_scan_uint_stops_after_the_digits),
        UNIT_TEST(text_parse_int_takes_a_minus_and_the_whole_range),
        UNIT_TEST(text_parse_double_takes_decimals),
        UNIT_TEST(text_parse_double_refuses_hex_inf_nan_blanks_junk_and_empty),
        UNIT_TEST(text_parse_double_reports_overflow_and_underflow_as_range),
        UNIT_TEST(json_well_formed_agrees_with_cjson_on_its_edge_cases),
        UNIT_TEST(json_well_formed_agrees_with_cjson_on_the_nesting_limit),
        UNIT_TEST(json_well_formed_agrees_with_cjson_on_edited_documents),
        UNIT_TEST(json_strict_check_refuses_control_bytes_nul_escapes_and_loose_numbers),
        UNIT_TEST(text_suggest_names_the_nearest_name_within_a_slip),
        UNIT_TEST(text_suggest_takes_the_one_name_a_word_begins),
        UNIT_TEST(json_walks_a_well_formed_text_a_value_at_a_time_with_its_places),
        UNIT_TEST(text_visible_writes_what_a_terminal_acts_on_as_hex),
        {NULL, NULL},
};

const struct unit_suite suite_text = {"text", tests};
