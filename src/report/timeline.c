/*
 * The ASCII timeline, drawn like the source document's diagrams: one row per device, time
 * running left to right, each op a box "[F3]" when its cells hold the label, the bare label or
 * its kind letter (then dashes, "F--") when they do not, and '.' where the device idles. When
 * one line of time would leave ops without labels, time wraps into bands that give them theirs,
 * up to MAX_BANDS (more on a narrow line, up to twice as many: as many as hold BAND_COLUMNS
 * columns of time, what MAX_BANDS bands of a 100-column line hold); beyond, one band on a
 * compressed scale.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/report.h"

#include "base/numfmt.h"
#include "formats.h"

/* Row label of device d: "GPU d (stage s)", or "(stages a,b,...)" with several chunks. */
void report_device_label(const struct sched *s, int d, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "GPU %d (stage%s ", d, s->v > 1 ? "s" : "");

	/* more than four chunks: the first three, then the last */
	for (int c = 0; c < s->v && len < n; c++)
		if (s->v <= 4 || c < 3 || c == s->v - 1)
			len += (size_t)snprintf(buf + len, n - len, "%s%d",
			                        c == 0                   ? ""
			                        : c == s->v - 1 && c > 3 ? ",...,"
			                                                 : ",",
			                        sched_stage_of(s, d, c));
	if (len < n)
		snprintf(buf + len, n - len, ")");
}

/*
 * Letter drawn for an op: its kind's (report_kind_letter), lower case on odd chunks so that
 * interleaved chunks stay apart even one column wide.
 */
static char op_letter(const struct sched *s, const struct op *op)
{
	char c = report_kind_letter((enum op_kind)op->kind);

	return s->stage_chunk[op->stage] % 2 ? (char)(c - 'A' + 'a') : c;
}

double report_nice_step(double need)
{
	static const double steps[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8};
	double base = pow(10, floor(log10(need)));

	for (;;) {
		for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
			if (steps[i] * base >= need)
				return steps[i] * base;
		base *= 10;
	}
}

/*
 * Time per column, in units, fitting the time from the frame's origin to the last op's end into
 * at most cells columns. When op durations share a quantum q (their greatest common divisor),
 * the step is q/k or k*q so that equal ops get equal widths; otherwise it is a round number.
 */
static double column_step(const struct drawing *s, int cells)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	double need = pp_time_to_units(report_drawn_end(r) - s->frame.origin, s->tick) / cells, q;
	int64_t g = 0;

	for (size_t i = 0; i < sc->nops; i++)
		g = pp_gcd64(g, r->times[i].end - r->times[i].start);
	if (g == 0)
		return report_nice_step(need);
	q = pp_time_to_units(g, s->tick);
	if (need <= q) {
		/* k columns per quantum, k the largest of 1, 2, 4, 5 times a power of ten that fits
		 */
		double k = 1, room = q / need;

		while (k * 10 <= room)
			k *= 10;
		k = 5 * k <= room ? 5 * k : 4 * k <= room ? 4 * k : 2 * k <= room ? 2 * k : k;
		return q / k;
	}
	if (ceil(need / q) <= 10)
		return q * ceil(need / q);
	return report_nice_step(need);
}

/* Column where time t (in ticks) falls, for step units per column from start (units). */
static int cell_of(pp_time t, int64_t tick, double start, double step)
{
	return (int)floor((pp_time_to_units(t, tick) - start) / step + 0.5);
}

int report_op_label(char *buf, size_t n, const struct sched *s, const struct op *op)
{
	/* "%c%u" or "%c%u.%u" as snprintf writes it (the writers call this for every op) */
	char text[2 * NUMFMT_MAX + 2];
	size_t len = 1;

	text[0] = op_letter(s, op);
	len += numfmt_u64(text + len, op->mb);
	if (s->v > 2) {
		text[len++] = '.';
		len += numfmt_u64(text + len, s->stage_chunk[op->stage]);
	}
	if (n > 0) {
		size_t k = len < n ? len : n - 1;

		memcpy(buf, text, k);
		buf[k] = '\0';
	}
	return (int)len;
}

/* ANSI colour of a painted cell: by op kind, magenta for an overlapped pair. */
static const char *const tints[] = {"", "\033[34m", "\033[33m", "\033[32m", "\033[31m", "\033[35m"};

/* Colour index of op's cells: 1 + its kind, 5 for a pair. */
static unsigned char tint_of(const struct op *op)
{
	return (unsigned char)(op->flags & OP_OVERLAP ? 5 : 1 + op->kind);
}

/* Writes op's text into label: its label, with its partner's when it starts an overlapped
 * pair ("F7+b3"). Returns the length. */
static int op_text(char *label, size_t n, const struct sched *s, const struct op *op)
{
	int len = report_op_label(label, n, s, op);

	if (op->flags & OP_OVERLAP) {
		label[len++] = '+';
		len += report_op_label(label + len, n - (size_t)len, s, op + 1);
	}
	return len;
}

/* Paints the text of op, len long, into row[c0, c1), bracketed when there is room. */
static void paint_label(char *row, int c0, int c1, const char *label, int len)
{
	memset(row + c0, ' ', (size_t)(c1 - c0));
	if (c1 - c0 >= len + 2) {
		row[c0] = '[';
		memcpy(row + c0 + 1, label, (size_t)len);
		row[c1 - 1] = ']';
	} else {
		memcpy(row + c0, label, (size_t)len);
	}
}

/* The letters an op too narrow for its label may leave: F, B, W, I (upper and lower case) and
 * '#' for an overlapped pair. */
static const char letters[] = "FfBbWwIi#";
#define NLETTERS (sizeof(letters) - 1)

/* What follows the letter of an op two or more columns wide but too narrow for its label, so
 * that "F--" reads as one op and "FF" as two. */
#define CONTINUED '-'

/* What a stream lane shows where a piece ran, and a compute row where its device waited for
 * its streams after its last op. */
#define STREAM_BUSY '='
#define EXPOSED '~'
/* ... and over a piece, where its op's compute waited for it (exposed) */
#define STREAM_STALL '!'

/* Most bands of time a timeline wraps into to give its ops their labels, on a line of about
 * 100 columns; a narrower line may take as many as hold BAND_COLUMNS columns of time in all
 * (max_bands), so that a narrow terminal labels what a 100-column one does. */
#define MAX_BANDS    4
#define BAND_COLUMNS (MAX_BANDS * 80)

/* Most bands for bands of cells columns: MAX_BANDS, or enough for BAND_COLUMNS columns, up to
 * twice MAX_BANDS (a line too narrow for that draws one compressed band). */
static int max_bands(int cells)
{
	int n = cells > 0 ? (BAND_COLUMNS + cells - 1) / cells : MAX_BANDS;

	return n < MAX_BANDS ? MAX_BANDS : n > 2 * MAX_BANDS ? 2 * MAX_BANDS : n;
}

/* Fewest time columns a row keeps with its full label ("GPU d (stages ...)"); with fewer the
 * rows are labelled "GPU d". */
#define FULL_LABEL_CELLS 20

/* A column of a device's row, as the ops too narrow for their label fill it. */
struct column {
	double share[NLETTERS]; /* time units of the column covered by each letter's ops */
	size_t op[NLETTERS];    /* an op of each letter in the column, for its colour */
	bool must;              /* it holds an op's middle, so it shows whatever its idle time */
	bool label;             /* a labelled op owns the column */
};

/* What a device's row shows besides the ops themselves. */
struct row_marks {
	bool labels;    /* some op shows its label */
	bool mixed;     /* some column holds parts of several ops */
	bool continued; /* some op shows its letter and CONTINUED */
	bool carried;   /* some op goes on from the band above, in CONTINUED alone */
};

/*
 * How the time axis is laid out: columns of step units from start, cells of them in all, cut
 * into bands of band columns, each drawn with its own scale and rows; a mark of the scale every
 * tick columns.
 */
struct layout {
	double start, step; /* time units at column 0, and per column */
	int cells;          /* columns from start to the last op's end */
	int band;           /* columns a band holds (cells with one band) */
	int tick;           /* columns between marks of the scale */
};

/* Index of op's letter in letters[]. */
static size_t letter_of(const struct sched *s, const struct op *op)
{
	char c = op->flags & OP_OVERLAP ? '#' : op_letter(s, op);

	return (size_t)(strchr(letters, c) - letters);
}

/*
 * Records the ops of device d too narrow for their labels in col, the columns k0 to k0 + n - 1
 * of the layout; paints the others' labels, the letter and CONTINUED of the ops two or more
 * columns wide, and CONTINUED alone over the rest of an op that started in an earlier band.
 */
static void collect_device(char *row, unsigned char *tint, struct column *col, int k0, int n,
                           const struct drawing *s, int d, const struct layout *lay,
                           struct row_marks *marks)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	int64_t tick = s->tick;
	double start = lay->start, step = lay->step;

	/* first the middle columns of the ops under two columns wide, which a wider neighbour
	 * then leaves them: every op shows (it hid them under its label or dashes) */
	for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
		double a = pp_time_to_units(r->times[i].start, tick) - start;
		double b = pp_time_to_units(r->times[i].end, tick) - start;
		int c0 = cell_of(r->times[i].start, tick, start, step) - k0;
		int c1 = cell_of(r->times[i].end, tick, start, step) - k0;
		int mid = (int)floor((a + b) / 2 / step) - k0;

		if (b > a && c0 >= 0 && (c1 > n ? n : c1) - c0 < 2 && mid >= 0 && mid < n)
			col[mid].must = true;
		if (sc->ops[i].flags & OP_OVERLAP)
			i++;
	}
	for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
		const struct op *op = &sc->ops[i];
		double a = pp_time_to_units(r->times[i].start, tick) - start;
		double b = pp_time_to_units(r->times[i].end, tick) - start;
		int c0 = cell_of(r->times[i].start, tick, start, step) - k0;
		int c1 = cell_of(r->times[i].end, tick, start, step) - k0;
		char label[64];
		int len = op_text(label, sizeof(label), sc, op);

		bool before = c0 < 0; /* it started in an earlier band */

		c0 = c0 < 0 ? 0 : c0;
		c1 = c1 > n ? n : c1;
		/* a wide op leaves its edge columns that hold a narrow op's middle */
		if (c1 - c0 >= 2) {
			while (c0 < c1 && col[c0].must)
				c0++;
			while (c1 > c0 && col[c1 - 1].must)
				c1--;
		}
		if (b > a && before && c1 > 0) {
			/* the rest of an op shown at the end of the band before: dashes alone */
			memset(row, CONTINUED, (size_t)c1);
			memset(tint, tint_of(op), (size_t)c1);
			for (int k = 0; k < c1; k++)
				col[k].label = true;
			marks->carried = true;
		} else if (b > a && c1 - c0 >= len) {
			paint_label(row, c0, c1, label, len);
			memset(tint + c0, tint_of(op), (size_t)(c1 - c0));
			for (int k = c0; k < c1; k++)
				col[k].label = true;
			marks->labels = true;
		} else if (b > a && c1 - c0 >= 2) {
			row[c0] = letters[letter_of(sc, op)];
			memset(row + c0 + 1, CONTINUED, (size_t)(c1 - c0 - 1));
			memset(tint + c0, tint_of(op), (size_t)(c1 - c0));
			for (int k = c0; k < c1; k++)
				col[k].label = true;
			marks->continued = true;
		} else if (b > a) {
			int k1 = (int)ceil(b / step) - k0;
			size_t l = letter_of(sc, op);

			for (int k = (int)floor(a / step) - k0; k < k1 && k < n; k++) {
				double lo = (k + k0) * step, hi = lo + step;
				double ov = (b < hi ? b : hi) - (a > lo ? a : lo);

				if (k < 0 || ov <= step * 1e-9)
					continue; /* before the band, or a rounding error at an edge
					           */
				for (size_t j = 0; j < NLETTERS; j++)
					marks->mixed |= j != l && col[k].share[j] > 0;
				col[k].share[l] += ov;
				col[k].op[l] = i;
			}
			/* every op shows in the column of its middle at least */
			c0 = (int)floor((a + b) / 2 / step) - k0;
			if (c0 >= 0 && c0 < n)
				col[c0].must = true;
		}
		if (op->flags & OP_OVERLAP)
			i++; /* the partner was painted with it */
	}
}

/*
 * Paints the columns k0 to k0 + n - 1 of device d's row. An op wide enough shows its label
 * over the columns whose middle it covers, one two columns wide or more its letter and
 * CONTINUED. The others leave one letter a column, where ops fill more than half of it or an
 * op has its middle (so that every op shows): of the letters in the column, the one owed the
 * most time so far, each letter drawn paying for the column's busy time. So a row of columns
 * that each hold an F of 1 t and a B of 2 t reads FBBFBB... whatever the phase of the ops
 * against the columns, the letters in the proportion of their time.
 */
static void paint_device(char *row, unsigned char *tint, struct column *col, int k0, int n,
                         const struct drawing *s, int d, const struct layout *lay,
                         struct row_marks *marks)
{
	double owed[NLETTERS] = {0};

	memset(row, '.', (size_t)n);
	memset(tint, 0, (size_t)n);
	row[n] = '\0';
	memset(col, 0, (size_t)n * sizeof(*col));
	collect_device(row, tint, col, k0, n, s, d, lay, marks);
	for (int k = 0; k < n; k++) {
		const struct column *c = &col[k];
		double busy = 0;
		size_t pick = NLETTERS;

		if (c->label)
			continue;
		for (size_t j = 0; j < NLETTERS; j++) {
			busy += c->share[j];
			owed[j] += c->share[j];
			if (c->share[j] > 0 && (pick == NLETTERS || owed[j] > owed[pick]))
				pick = j;
		}
		if (pick == NLETTERS || (2 * busy <= lay->step && !c->must))
			continue;
		owed[pick] -= busy;
		row[k] = letters[pick];
		tint[k] = tint_of(&s->sched->ops[c->op[pick]]);
	}
}

/*
 * Writes the non-empty items separated by two spaces, starting a new line before an item that
 * would pass width columns. An item wider than width is written word by word, a word wider
 * than width cut into pieces of width characters, so that no line passes width.
 */
static void write_wrapped(FILE *out, const char *const *items, int width)
{
	int col = 0;

	for (; *items != NULL; items++) {
		const char *at = *items;
		int n = (int)strlen(at);

		if (n == 0)
			continue;
		if (col > 0 && col + 2 + n > width) {
			fputc('\n', out);
			col = 0;
		}
		if (n <= width - col - (col > 0 ? 2 : 0)) {
			col += fprintf(out, "%s%s", col > 0 ? "  " : "", at);
			continue;
		}
		/* a line of its own, or more, word by word */
		for (const char *sep = col > 0 ? "  " : ""; *at != '\0'; sep = " ") {
			int w = (int)strcspn(at, " ");

			if (w > width)
				w = width;
			if (col > 0 && col + (int)strlen(sep) + w > width) {
				fputc('\n', out);
				col = 0;
				sep = "";
			}
			col += fprintf(out, "%s%.*s", sep, w, at);
			at += w;
			at += strspn(at, " ");
		}
	}
	fputc('\n', out);
}

/* True when x, positive, is written exactly with digits significant digits ("%.*g"). */
static bool exact_in(double x, int digits)
{
	char num[32];

	snprintf(num, sizeof(num), "%.*g", digits, x);
	return fabs(strtod(num, NULL) - x) <= 1e-9 * x;
}

/* Columns between the marks of the scale: ten, or the first of 11 to 20, then of 5 to 9, whose
 * time reads in three digits; ten when none does. */
static int tick_of(double step)
{
	for (int n = 10; n <= 20; n++)
		if (exact_in(n * step, 3))
			return n;
	for (int n = 5; n < 10; n++)
		if (exact_in(n * step, 3))
			return n;
	return 10;
}

/*
 * Writes the scale of the columns k0 to k0 + n - 1: the time (from start) at each mark, above a
 * ruler with a '|' at each mark; line holds room + 1 bytes, and room >= n.
 */
static void write_scale(FILE *out, char *line, int labelw, const struct layout *lay, int k0, int n,
                        int room, double start)
{
	char num[32];
	int free_from = 0;

	memset(line, ' ', (size_t)room);
	line[room] = '\0';
	for (int c = (k0 + lay->tick - 1) / lay->tick * lay->tick; c < k0 + n; c += lay->tick) {
		int len = snprintf(num, sizeof(num), "%.6g", start + lay->step * c);

		if (c - k0 >= free_from && c - k0 + len <= room) {
			memcpy(line + c - k0, num, (size_t)len);
			free_from = c - k0 + len + 1;
		}
	}
	for (int i = room - 1; i >= 0 && line[i] == ' '; i--)
		line[i] = '\0';
	fprintf(out, "%*s%s\n", labelw, "", line);
	for (int c = 0; c < n; c++)
		line[c] = (k0 + c) % lay->tick == 0 ? '|' : '-';
	line[n] = '\0';
	fprintf(out, "%*s%s\n", labelw, "", line);
}

/* True when the scale's times, start + step * c at each mark, each leave a blank before the
 * next and differ from it. */
static bool labels_fit(const struct layout *lay, double start)
{
	char num[32], prev[32] = "";

	for (int c = 0; c < lay->cells; c += lay->tick) {
		if (snprintf(num, sizeof(num), "%.6g", start + lay->step * c) >= lay->tick ||
		    strcmp(num, prev) == 0)
			return false;
		strcpy(prev, num);
	}
	return true;
}

/* What a device's stream lanes are painted from: each stream's row (NULL for a stream it has
 * no lane for), the layout's band. */
struct lane {
	char *rows[STREAM_COUNT];
	const struct layout *lay;
	int64_t tick;
	int k0, n;
	char mark; /* what paint_piece paints: STREAM_BUSY, or STREAM_STALL */
};

static void paint_piece(void *ctx, const struct report_piece *pc)
{
	const struct lane *l = ctx;
	char *row = l->rows[comm_kind_info((enum comm_kind)pc->kind)->stream];
	int c0, c1;

	if (pc->end <= pc->start || row == NULL)
		return;
	c0 = cell_of(pc->start, l->tick, l->lay->start, l->lay->step) - l->k0;
	c1 = cell_of(pc->end, l->tick, l->lay->start, l->lay->step) - l->k0;
	if (c1 <= c0)
		c1 = c0 + 1; /* every piece (and stall) shows in the column it starts in */
	c0 = c0 < 0 ? 0 : c0;
	c1 = c1 > l->n ? l->n : c1;
	if (c1 > c0)
		memset(row + c0, l->mark, (size_t)(c1 - c0));
}

/* Paints device d's ops' pieces (or stalls) on l's lanes as paint_piece paints each: an op's on
 * a stream that fall in one column all paint that column (each shows in the column it starts
 * in) when one of them took time, so only an op whose pieces span columns is painted piece by
 * piece. */
static void paint_ops(const struct drawing *s, int d, const struct lane *l, bool stalls)
{
	const struct sched *sc = s->sched;

	for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
		struct report_span acc[STREAM_COUNT] = {{0}};
		bool spread = false;

		if (stalls)
			report_op_stall_spans(s, d, i, acc);
		else
			report_op_spans(s, d, i, true, acc);
		for (int st = 0; st < STREAM_COUNT && !spread; st++) {
			const struct report_span *x = &acc[st];
			int c0, c1;

			if (x->n == 0 || l->rows[st] == NULL)
				continue;
			c0 = cell_of(x->lo, l->tick, l->lay->start, l->lay->step) - l->k0;
			c1 = cell_of(x->hi, l->tick, l->lay->start, l->lay->step) - l->k0;
			spread = c0 != c1;
			if (!spread && x->busy > 0 && c0 >= 0 && c0 < l->n)
				l->rows[st][c0] = l->mark;
		}
		if (spread && stalls)
			report_op_stalls(s, d, i, paint_piece, (void *)l);
		else if (spread)
			report_op_pieces(s, d, i, paint_piece, (void *)l);
	}
}

/* Whether one of device d's ops' compute waited for one of its pieces (a stall that took
 * time). */
static bool has_stalls(const struct drawing *s, int d)
{
	const struct sched *sc = s->sched;

	for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
		struct report_span acc[STREAM_COUNT] = {{0}};

		report_op_stall_spans(s, d, i, acc);
		for (int st = 0; st < STREAM_COUNT; st++)
			if (acc[st].busy > 0)
				return true;
	}
	return false;
}

/*
 * Writes the lanes of device d's streams (bit 1 << enum comm_stream of lanes) in stream order,
 * the columns k0 to k0 + n - 1 of each: STREAM_BUSY where its pieces ran, STREAM_STALL where an
 * op's compute waited for one of them, blank elsewhere (trailing blanks dropped), labelled with
 * the stream's name; rows holds STREAM_COUNT rows of n bytes, painted in one pass.
 */
static void write_lanes(FILE *out, char *rows, int labelw, const struct drawing *s, int d,
                        unsigned lanes, const struct layout *lay, int k0, int n)
{
	struct lane l = {{NULL}, lay, s->tick, k0, n, STREAM_BUSY};
	char name[32], label[48];

	for (int st = 0; st < STREAM_COUNT; st++)
		if (lanes >> st & 1) {
			l.rows[st] = rows + (size_t)st * (size_t)n;
			memset(l.rows[st], ' ', (size_t)n);
		}
	paint_ops(s, d, &l, false);
	report_device_hooked(s, d, paint_piece, &l);
	l.mark = STREAM_STALL;
	paint_ops(s, d, &l, true);
	for (int st = 0; st < STREAM_COUNT; st++) {
		int end = n;

		if (l.rows[st] == NULL)
			continue;
		while (end > 0 && l.rows[st][end - 1] == ' ')
			end--;
		snprintf(label, sizeof(label), " %s",
		         report_stream_name((enum comm_stream)st, name, sizeof(name)));
		fprintf(out, "%-*s%.*s\n", labelw, label, end, l.rows[st]);
	}
}

/* Marks EXPOSED over the idle columns of device d's row after its last op, up to its end: the
 * time its streams ran past its compute. */
static void mark_exposed(char *row, const struct drawing *s, int d, const struct layout *lay, int k0,
                         int n)
{
	const struct device_result *dr = &s->result->devices[d];
	int c0 = cell_of(dr->last_end, s->tick, lay->start, lay->step) - k0;
	int c1 = cell_of(dr->end, s->tick, lay->start, lay->step) - k0;

	for (int c = c0 < 0 ? 0 : c0; c < c1 && c < n; c++)
		if (row[c] == '.')
			row[c] = EXPOSED;
}

/* Writes row, each run of cells of one colour wrapped in its escape sequence. */
static void write_colored(FILE *out, const char *row, const unsigned char *tint, int cells)
{
	for (int c = 0; c < cells;) {
		int e = c;

		while (e < cells && tint[e] == tint[c])
			e++;
		if (tint[c])
			fprintf(out, "%s%.*s\033[0m", tints[tint[c]], e - c, row + c);
		else
			fprintf(out, "%.*s", e - c, row + c);
		c = e;
	}
	fputc('\n', out);
}

/* Row label of device d: report_device_label, or "GPU d" when brief. */
static void row_label(const struct sched *s, int d, bool brief, char *buf, size_t n)
{
	if (brief)
		snprintf(buf, n, "GPU %d", d);
	else
		report_device_label(s, d, buf, n);
}

/* The layout of one band of cells columns at most: the column step of column_step, from the
 * column holding the origin (one column spare for that) to the last op; at least ten columns
 * where cells allows. */
static struct layout one_band(const struct drawing *s, int cells)
{
	const struct result *r = s->result;
	double origin = pp_time_to_units(s->frame.origin, s->tick);
	int room = s->frame.origin > 0 ? cells - 1 : cells;
	struct layout lay;

	lay.step = column_step(s, room);
	lay.start = floor(origin / lay.step) * lay.step;
	lay.cells = cell_of(report_drawn_end(r), s->tick, lay.start, lay.step);
	if (lay.cells < 10 && room >= 10) {
		/* the quantum's multiple left too few columns: a round step, at most 4/3 of need */
		lay.step = report_nice_step(
		        pp_time_to_units(report_drawn_end(r) - s->frame.origin, s->tick) / room);
		lay.start = floor(origin / lay.step) * lay.step;
		lay.cells = cell_of(report_drawn_end(r), s->tick, lay.start, lay.step);
	}
	lay.band = lay.cells;
	lay.tick = 10;
	return lay;
}

/* True when, at lay's step, every op of s that lasts shows its label. */
static bool all_labelled(const struct drawing *s, const struct layout *lay)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	char label[64];

	for (size_t i = 0; i < sc->nops; i++) {
		int len = op_text(label, sizeof(label), sc, &sc->ops[i]);
		int c0 = cell_of(r->times[i].start, s->tick, lay->start, lay->step);
		int c1 = cell_of(r->times[i].end, s->tick, lay->start, lay->step);

		if (r->times[i].end > r->times[i].start && c1 - c0 < len)
			return false;
		if (sc->ops[i].flags & OP_OVERLAP)
			i++;
	}
	return true;
}

/* The largest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is at most x. */
static double nice_below(double x)
{
	static const double steps[] = {8, 6, 5, 4, 3, 2.5, 2, 1.5, 1.2};
	double base = pow(10, floor(log10(x)));

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * base <= x * (1 + 1e-9))
			return steps[i] * base;
	return base;
}

/*
 * The layout that gives every op its label, in bands of cells columns: the step is the
 * quantum q (the greatest common divisor of the op durations) over k, k the smallest that
 * gives each op as many columns as its label, or when k would pass 60 or q is under half of
 * what the ops need, the round step at most the least of an op's time over its label's length. The
 * bands are about equally wide, each a whole number of quanta. Returns false when that takes more
 * than max_bands bands.
 */
static bool labelled_bands(const struct drawing *s, int cells, struct layout *lay)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	int64_t tick = s->tick, g = 0;
	double most = INFINITY, q;
	char label[64];
	int k = 1, bands;

	for (size_t i = 0; i < sc->nops; i++) {
		int64_t t = r->times[i].end - r->times[i].start;
		int len = op_text(label, sizeof(label), sc, &sc->ops[i]);

		if (t > 0 && pp_time_to_units(t, tick) / len < most)
			most = pp_time_to_units(t, tick) / len;
		g = pp_gcd64(g, t);
		if (sc->ops[i].flags & OP_OVERLAP)
			i++;
	}
	if (g == 0 || !isfinite(most))
		return false;
	q = pp_time_to_units(g, tick);
	while (q / k > most * (1 + 1e-9) && k <= 60)
		k++;
	if (2 * q < most)
		k = 61; /* a quantum far finer than the ops: a round step instead */
	lay->step = k <= 60 ? q / k : nice_below(most);
	lay->start = floor(pp_time_to_units(s->frame.origin, tick) / lay->step) * lay->step;
	if ((pp_time_to_units(report_drawn_end(r), tick) - lay->start) / lay->step >
	    (double)max_bands(cells) * cells + 1)
		return false;
	lay->cells = cell_of(report_drawn_end(r), tick, lay->start, lay->step);
	lay->band = k <= 60 && cells >= 2 * k ? cells - cells % k : cells;
	lay->tick = tick_of(lay->step);
	bands = (lay->cells + lay->band - 1) / lay->band;
	if (bands > max_bands(cells))
		return false;
	/* bands of about equal widths, the last no narrower than the others need */
	lay->band = (lay->cells + bands - 1) / bands;
	if (k <= 60 && lay->band % k != 0 && lay->band + k - lay->band % k <= cells &&
	    lay->cells - (bands - 1) * (lay->band + k - lay->band % k) >= 10)
		lay->band += k - lay->band % k; /* a whole number of quanta, the last band kept */
	/* the bands past MAX_BANDS a narrow line takes: each, the last too, of 10 columns or more */
	return bands <= MAX_BANDS || lay->cells - (bands - 1) * lay->band >= 10;
}

/* Writes what one column stands for into buf: "one column = 0.5 t", or when the step has no
 * short decimal form, "6 columns = 1 t". */
static void write_step(char *buf, size_t n, double step, const char *unit)
{
	for (int j = 1; j <= 12; j++)
		if (exact_in(j * step, 6)) {
			if (j == 1)
				snprintf(buf, n, "one column = %g %s", step, unit);
			else
				snprintf(buf, n, "%d columns = %g %s", j, j * step, unit);
			return;
		}
	snprintf(buf, n, "one column = %g %s", step, unit);
}

int report_timeline(FILE *out, const struct drawing *s, int width)
{
	return report_timeline_colored(out, s, width, false);
}

int report_timeline_colored(FILE *out, const struct drawing *s, int width, bool color)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	char label[64], num[32], shape[64], span[64], scale[128], stages[64] = "", *row, *line;
	char *srows = NULL; /* the stream lanes' rows */
	unsigned char *tint;
	struct column *col;
	struct row_marks marks = {false, false, false, false};
	bool kinds[4] = {false, false, false, false}, brief = false;
	int labelw = 0, cells, bands;
	double scale_from;
	struct layout lay;
	bool drawn = r->makespan > s->frame.origin, any_lane = false, past = false, stalled = false;
	unsigned *lanes = pp_calloc((size_t)sc->p, sizeof(*lanes));

	if (lanes == NULL)
		return -1;

	for (int d = 0; d < sc->p; d++) {
		report_device_label(sc, d, label, sizeof(label));
		if ((int)strlen(label) + 1 > labelw)
			labelw = (int)strlen(label) + 1;
	}
	if (width - labelw < FULL_LABEL_CELLS) {
		brief = true;
		snprintf(label, sizeof(label), "GPU %d", sc->p - 1);
		labelw = (int)strlen(label) + 1;
		if (sc->v > 1 && sc->placement == PLACE_V)
			snprintf(stages, sizeof(stages), "GPU d: stages d and %d-d", 2 * sc->p - 1);
		else if (sc->v > 1)
			snprintf(stages, sizeof(stages), "GPU d: stages d+%d*c, c < %d", sc->p,
			         sc->v);
		else
			snprintf(stages, sizeof(stages), "GPU d: stage d");
	}
	for (int d = 0; d < sc->p; d++) {
		lanes[d] = report_device_streams(s, d);
		if (lanes[d] != 0 && !stalled)
			stalled = has_stalls(s, d);
		for (int st = 0; st < STREAM_COUNT; st++)
			if (lanes[d] >> st & 1) {
				any_lane = true;
				past |= r->devices[d].end > r->devices[d].last_end;
				report_stream_name((enum comm_stream)st, label, sizeof(label));
				if ((int)strlen(label) + 2 > labelw)
					labelw = (int)strlen(label) + 2;
			}
	}
	cells = width - labelw < 10 ? 10 : width - labelw;
	if (drawn) {
		lay = one_band(s, cells);
		if (!all_labelled(s, &lay)) {
			struct layout wrapped;

			if (labelled_bands(s, cells, &wrapped))
				lay = wrapped;
		}
	} else {
		lay = (struct layout){0, 1, 0, 0, 10};
	}
	bands = lay.band > 0 ? (lay.cells + lay.band - 1) / lay.band : 1;
	snprintf(shape, sizeof(shape), "p=%d v=%d m=%d", sc->p, sc->v, sc->m);
	snprintf(span, sizeof(span), "makespan %s %s", REPORT_NUM(num, s->frame.makespan),
	         s->time_unit);
	/* a late origin whose times do not fit the scale: it counts from it, named in the header */
	scale_from = labels_fit(&lay, lay.start) ? lay.start : 0;
	write_step(scale, sizeof(scale), lay.step, s->time_unit);
	if (scale_from != lay.start)
		snprintf(scale + strlen(scale), sizeof(scale) - strlen(scale),
		         ", the scale from %.10g", lay.start);
	/* everything is allocated before the first line, so that a failure writes nothing */
	line = pp_malloc((size_t)(width - labelw > lay.band ? width - labelw : lay.band) + 1);
	row = pp_malloc((size_t)lay.band + 1);
	tint = pp_malloc((size_t)lay.band + 1);
	col = pp_mallocarray((size_t)(lay.band > 0 ? lay.band : 1), sizeof(*col));
	srows = any_lane ? pp_mallocarray(STREAM_COUNT, (size_t)lay.band + 1) : NULL;
	if (line == NULL || row == NULL || tint == NULL || col == NULL || (any_lane && srows == NULL)) {
		free(lanes);
		free(line);
		free(row);
		free(tint);
		free(col);
		free(srows);
		return -1;
	}
	write_wrapped(out, (const char *[]){s->schedule, shape, span, scale, NULL}, width);
	for (int b = 0; b < bands; b++) {
		int k0 = b * lay.band, n = lay.cells - k0 < lay.band ? lay.cells - k0 : lay.band;

		if (b > 0)
			fputc('\n', out);
		write_scale(out, line, labelw, &lay, k0, n, width - labelw, scale_from);
		for (int d = 0; d < sc->p; d++) {
			paint_device(row, tint, col, k0, n, s, d, &lay, &marks);
			if (lanes[d] != 0)
				mark_exposed(row, s, d, &lay, k0, n);
			row_label(sc, d, brief, label, sizeof(label));
			if (color) {
				fprintf(out, "%-*s", labelw, label);
				write_colored(out, row, tint, n);
			} else {
				fprintf(out, "%-*s%s\n", labelw, label, row);
			}
			if (lanes[d] != 0)
				write_lanes(out, srows, labelw, s, d, lanes[d], &lay, k0, n);
		}
	}
	free(lanes);
	free(line);
	free(row);
	free(tint);
	free(col);
	free(srows);
	for (size_t i = 0; i < sc->nops; i++)
		kinds[sc->ops[i].kind] = true;
	write_wrapped(
	        out,
	        (const char *[]){kinds[OP_F] ? report_kind_legend(OP_F) : "",
	                         kinds[OP_BW] ? report_kind_legend(OP_BW) : "",
	                         kinds[OP_B] ? report_kind_legend(OP_B) : "",
	                         kinds[OP_W] ? report_kind_legend(OP_W) : "",
	                         marks.labels ? "[F3] micro-batch 3, counted from 0" : "",
	                         marks.continued ? "F-- one op, too narrow for its label" : "",
	                         marks.carried ? "--- the op ending the band above, continued" : "",
	                         marks.mixed ? "FBB shared columns, letters by time" : "",
	                         sc->v == 2  ? "lower case: chunk 1"
	                         : sc->v > 2 ? "[F3.2] micro-batch 3 on chunk 2, lower case "
	                                       "on odd chunks"
	                                     : "",
	                         sc->overlap ? "[F7+b3] or #-- overlapped F&B pair" : "",
	                         any_lane ? "=== its pieces on the stream named" : "",
	                         stalled ? "!!! of them, what compute waited for (exposed)" : "",
	                         past ? "~ compute done, streams still running (exposed)" : "",
	                         stages,
	                         ". idle", NULL},
	        width);
	return 0;
}
