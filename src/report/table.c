/*
 * Aligned text tables: the writer asks the caller for each cell's text through a function, once
 * to take the widths of the fitted columns and once to print, so that no table is held in
 * memory and a reporter cannot run out of it here. No row ends in blanks, and no cell holds
 * what a terminal would act on: a label from a file name with an escape sequence is written
 * \xNN (text_visible).
 */
#include "table.h"

#include <assert.h>
#include <string.h>

#include "base/text.h"

/* Cell text beyond this is cut short: longer than any number, label or schedule name. */
#define CELL_MAX 256

/* Writes text, holding back its blanks in *blanks until something follows them, so that a row
 * never ends in blanks (a last cell padded to its width, a mark left empty). */
static void put_held(FILE *out, const char *text, int *blanks)
{
	for (; *text != '\0'; text++) {
		if (*text == ' ') {
			++*blanks;
			continue;
		}
		for (; *blanks > 0; --*blanks)
			fputc(' ', out);
		fputc(*text, out);
	}
}

/* put_held of n blanks. */
static void put_blanks(int n, int *blanks)
{
	*blanks += n > 0 ? n : 0;
}

void report_table_write(FILE *out, const char *sep, const struct report_column *cols, int ncols,
                        int nrows, report_cell_fn *cell, const void *ctx)
{
	int width[REPORT_TABLE_MAX_COLUMNS];
	char buf[CELL_MAX], shown[CELL_MAX];

	assert(ncols >= 0 && ncols <= REPORT_TABLE_MAX_COLUMNS);
	for (int c = 0; c < ncols; c++) {
		width[c] = cols[c].width;
		for (int row = -1; cols[c].fit && row < nrows; row++) {
			int len = (int)strlen(text_visible(shown, sizeof(shown),
			                                   cell(ctx, row, cols[c].id, buf, sizeof(buf))));

			width[c] = len > width[c] ? len : width[c];
		}
	}
	for (int row = -1; row < nrows; row++) {
		int blanks = 0;

		for (int c = 0; c < ncols; c++) {
			const char *text = text_visible(shown, sizeof(shown),
			                                cell(ctx, row, cols[c].id, buf, sizeof(buf)));
			int pad = width[c] - (int)strlen(text);

			if (c > 0)
				put_held(out, sep, &blanks);
			if (!cols[c].left)
				put_blanks(pad, &blanks);
			put_held(out, text, &blanks);
			if (cols[c].left)
				put_blanks(pad, &blanks);
		}
		fputc('\n', out);
	}
}
