/* Writers registered in the format table of src/report.c; private to the library. */
#ifndef PPSIM_REPORT_FORMATS_H
#define PPSIM_REPORT_FORMATS_H

#include <stdio.h>

#include "ppsim/report.h"
#include "ppsim/sim.h"

#include <cjson/cJSON.h>

int report_text_write(FILE *out, const struct sim *s);
/* The JSON object of one simulation, as report_json_write prints it; the caller deletes it. */
cJSON *report_json_build(const struct sim *s);
int report_csv_write(FILE *out, const struct sim *s);
int report_compare_text(FILE *out, const struct report_row *rows, int n);
int report_compare_json(FILE *out, const struct report_row *rows, int n);
int report_compare_csv(FILE *out, const struct report_row *rows, int n);
int report_json_write(FILE *out, const struct sim *s);

/* Shortest exact decimal of x (see pp_double_format) in a static-size buffer of the caller. */
#define REPORT_NUM(buf, x) pp_double_format((buf), sizeof(buf), (x))

#endif
