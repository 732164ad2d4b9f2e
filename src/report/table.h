/* The one writer of aligned text tables, for the reporters; private to the library. */
#ifndef PPSIM_REPORT_TABLE_H
#define PPSIM_REPORT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Most columns a table has. */
#define REPORT_TABLE_MAX_COLUMNS 64

/* A column of a table: how wide it prints and which way its cells align. */
struct report_column {
	int id;    /* the caller's own number for the column, passed back to the cell function */
	int width; /* minimum width in bytes; 0 with fit false prints each cell as it is */
	bool fit;  /* widened to its widest cell, the header included */
	bool left; /* aligned left, else right */
};

/*
 * The text of the cell of column id at row (-1 for the header): written into buf of n bytes
 * and returned, or a string of the caller that lives as long as the table is written.
 */
typedef const char *report_cell_fn(const void *ctx, int row, int id, char *buf, size_t n);

/*
 * Writes the header and rows 0 to nrows - 1 of the ncols columns of cols, sep between columns,
 * a newline after each line. The cell function is called twice per cell of a fitted column,
 * once to measure and once to print, so it must give the same text both times.
 */
void report_table_write(FILE *out, const char *sep, const struct report_column *cols, int ncols,
                        int nrows, report_cell_fn *cell, const void *ctx);

#endif
