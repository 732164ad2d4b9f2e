/*
 * Aligned text tables: the writer asks the caller for each cell's text through a function, once
 * to take the widths of the fitted columns and once to print, so that no table is held in
 * memory and a reporter cannot run out of it here.
 */
#include "table.h"

#include <assert.h>
#include <string.h>

/* Cell text beyond this is cut short: longer than any number, label or schedule name. */
#define CELL_MAX 256

void report_table_write(FILE *out, const char *sep, const struct report_column *cols, int ncols,
                        int nrows, report_cell_fn *cell, const void *ctx)
{
	int width[REPORT_TABLE_MAX_COLUMNS];
	char buf[CELL_MAX];

	assert(ncols >= 0 && ncols <= REPORT_TABLE_MAX_COLUMNS);
	for (int c = 0; c < ncols; c++) {
		width[c] = cols[c].width;
		for (int row = -1; cols[c].fit && row < nrows; row++) {
			int len = (int)strlen(cell(ctx, row, cols[c].id, buf, sizeof(buf)));

			width[c] = len > width[c] ? len : width[c];
		}
	}
	for (int row = -1; row < nrows; row++) {
		for (int c = 0; c < ncols; c++)
			fprintf(out, "%s%*s", c > 0 ? sep : "", cols[c].left ? -width[c] : width[c],
			        cell(ctx, row, cols[c].id, buf, sizeof(buf)));
		fputc('\n', out);
	}
}
