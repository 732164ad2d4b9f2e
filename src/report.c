/* The table of report formats selected with --format. */
#include "ppsim/report.h"

#include <string.h>

#include "report/formats.h"

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
