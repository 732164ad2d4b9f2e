/* Writers registered in the format table of src/report.c; private to the library. */
#ifndef PPSIM_REPORT_FORMATS_H
#define PPSIM_REPORT_FORMATS_H

#include <stdio.h>

#include "ppsim/sim.h"

int report_text_write(FILE *out, const struct sim *s);
int report_json_write(FILE *out, const struct sim *s);

/* Shortest exact decimal of x (see pp_double_format) in a static-size buffer of the caller. */
#define REPORT_NUM(buf, x) pp_double_format((buf), sizeof(buf), (x))

#endif
