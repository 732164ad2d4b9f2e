/* The table of report formats selected with --format, and the quoting the writers share. */
#include "ppsim/report.h"

#include <stdio.h>
#include <string.h>

#include "formats.h"

static const struct report_format formats[] = {
        {"text", "aligned report for people (default)", report_text_write, report_compare_text},
        {"json", "one JSON object with every figure (keys in docs/output.md)", report_json_write,
         report_compare_json},
        {"csv", "a header and one row of figures per simulation", report_csv_write,
         report_compare_csv},
};

const struct report_format *report_formats(size_t *count)
{
	*count = sizeof(formats) / sizeof(formats[0]);
	return formats;
}

const struct report_format *report_find(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

void report_json_text(FILE *out, const char *text)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void report_csv_text(FILE *out, const char *text)
{
	if (strpbrk(text, ",\"\n\r") == NULL) {
		fputs(text, out);
		return;
	}
	fputc('"', out);
	for (const char *p = text; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}
