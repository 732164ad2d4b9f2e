/*
 * The ASCII timeline, drawn like the source document's diagrams: one row per device, time
 * running left to right, each op a box "[F3]" when its cells hold the label, the bare label or
 * its kind letter when they do not, and '.' where the device idles.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/report.h"

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
 * Letter drawn for an op: F, B (the fused backward too, as in the source document) or W,
 * lower-case on odd chunks so that interleaved chunks stay apart even one column wide.
 */
static char op_letter(const struct sched *s, const struct op *op)
{
	/* with both fused and split backwards (mixed), the input gradient is I as in PyTorch */
	char c = op->kind == OP_F               ? 'F'
	         : op->kind == OP_W             ? 'W'
	         : op->kind == OP_B && s->mixed ? 'I'
	                                        : 'B';

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

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b != 0) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * Time per column, in units, fitting the time from the frame's origin to the last op's end into
 * at most cells columns. When op durations share a quantum q (their greatest common divisor),
 * the step is q/k or k*q so that equal ops get equal widths; otherwise it is a round number.
 */
static double column_step(const struct sim *s, int cells)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	double need = pp_time_to_units(r->makespan - s->frame.origin, s->cost->tick) / cells, q;
	int64_t g = 0;

	for (size_t i = 0; i < sc->nops; i++)
		g = gcd64(g, r->times[i].end - r->times[i].start);
	if (g == 0)
		return report_nice_step(need);
	q = pp_time_to_units(g, s->cost->tick);
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

/* Writes the label of op into buf: "F3", "f3" (chunk 1 of 2), "F3.2" (chunk 2 of more than 2). */
int report_op_label(char *buf, size_t n, const struct sched *s, const struct op *op)
{
	if (s->v > 2)
		return snprintf(buf, n, "%c%u.%u", op_letter(s, op), (unsigned)op->mb,
		                (unsigned)s->stage_chunk[op->stage]);
	return snprintf(buf, n, "%c%u", op_letter(s, op), (unsigned)op->mb);
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

/* A column of a device's row, as the ops too narrow for their label fill it. */
struct column {
	double share[NLETTERS]; /* time units of the column covered by each letter's ops */
	size_t op[NLETTERS];    /* an op of each letter in the column, for its colour */
	bool must;              /* it holds an op's middle, so it shows whatever its idle time */
	bool label;             /* a labelled op owns the column */
};

/* What a device's row shows besides the ops themselves. */
struct row_marks {
	bool labels; /* some op shows its label */
	bool mixed;  /* some column holds parts of several ops */
};

/* Index of op's letter in letters[]. */
static size_t letter_of(const struct sched *s, const struct op *op)
{
	char c = op->flags & OP_OVERLAP ? '#' : op_letter(s, op);

	return (size_t)(strchr(letters, c) - letters);
}

/* Records the ops of device d too narrow for their labels in col; paints the others' labels. */
static void collect_device(char *row, unsigned char *tint, struct column *col, int cells,
                           const struct sim *s, int d, double start, double step,
                           struct row_marks *marks)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	int64_t tick = s->cost->tick;

	for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
		const struct op *op = &sc->ops[i];
		double a = pp_time_to_units(r->times[i].start, tick) - start;
		double b = pp_time_to_units(r->times[i].end, tick) - start;
		int c0 = cell_of(r->times[i].start, tick, start, step);
		int c1 = cell_of(r->times[i].end, tick, start, step);
		char label[64];
		int len = op_text(label, sizeof(label), sc, op);

		if (b > a && c1 - c0 >= len && c1 <= cells) {
			paint_label(row, c0, c1, label, len);
			memset(tint + c0, tint_of(op), (size_t)(c1 - c0));
			for (int k = c0; k < c1; k++)
				col[k].label = true;
			marks->labels = true;
		} else if (b > a) {
			int k0 = (int)floor(a / step), k1 = (int)ceil(b / step);
			size_t l = letter_of(sc, op);

			for (int k = k0 < 0 ? 0 : k0; k < k1 && k < cells; k++) {
				double lo = k * step, hi = lo + step;
				double ov = (b < hi ? b : hi) - (a > lo ? a : lo);

				if (ov <= step * 1e-9)
					continue; /* a rounding error at the column's edge */
				for (size_t j = 0; j < NLETTERS; j++)
					marks->mixed |= j != l && col[k].share[j] > 0;
				col[k].share[l] += ov;
				col[k].op[l] = i;
			}
			/* every op shows in the column of its middle at least */
			k0 = (int)floor((a + b) / 2 / step);
			if (k0 >= 0 && k0 < cells)
				col[k0].must = true;
		}
		if (op->flags & OP_OVERLAP)
			i++; /* the partner was painted with it */
	}
}

/*
 * Paints device d's row of cells columns of step units each. An op wide enough shows its
 * label over the columns whose middle it covers. The others leave one letter a column, where
 * ops fill more than half of it or an op has its middle (so that every op shows): of the
 * letters in the column, the one owed the most time so far, each letter drawn paying for the
 * column's busy time. So a row of columns that each hold an F of 1 t and a B of 2 t reads FBBFBB...
 * whatever the phase of the ops against the columns, the letters in the proportion of their
 * time.
 */
static void paint_device(char *row, unsigned char *tint, struct column *col, int cells,
                         const struct sim *s, int d, double start, double step,
                         struct row_marks *marks)
{
	double owed[NLETTERS] = {0};

	memset(row, '.', (size_t)cells);
	memset(tint, 0, (size_t)cells);
	row[cells] = '\0';
	memset(col, 0, (size_t)cells * sizeof(*col));
	collect_device(row, tint, col, cells, s, d, start, step, marks);
	for (int k = 0; k < cells; k++) {
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
		if (pick == NLETTERS || (2 * busy <= step && !c->must))
			continue;
		owed[pick] -= busy;
		row[k] = letters[pick];
		tint[k] = tint_of(&s->sched->ops[c->op[pick]]);
	}
}

/* Writes the non-empty items separated by two spaces, starting a new line before an item that
 * would pass width columns. */
static void write_wrapped(FILE *out, const char *const *items, int width)
{
	int col = 0;

	for (; *items != NULL; items++) {
		int n = (int)strlen(*items);

		if (n == 0)
			continue;
		if (col > 0 && col + 2 + n > width) {
			fputc('\n', out);
			col = 0;
		}
		col += fprintf(out, "%s%s", col > 0 ? "  " : "", *items);
	}
	fputc('\n', out);
}

/* Writes the scale: time values (from start) every ten columns, then a ruler with a '|' at
 * each value; line holds room + 1 bytes, and room >= cells. */
static void write_scale(FILE *out, char *line, int labelw, int cells, int room, double start,
                        double step)
{
	char num[32];

	memset(line, ' ', (size_t)room);
	line[room] = '\0';
	for (int c = 0; c < cells; c += 10) {
		int n = snprintf(num, sizeof(num), "%.6g", start + step * c);

		if (c + n <= room)
			memcpy(line + c, num, (size_t)n);
	}
	for (int i = room - 1; i >= 0 && line[i] == ' '; i--)
		line[i] = '\0';
	fprintf(out, "%*s%s\n", labelw, "", line);
	for (int c = 0; c < cells; c++)
		line[c] = c % 10 == 0 ? '|' : '-';
	line[cells] = '\0';
	fprintf(out, "%*s%s\n", labelw, "", line);
}

/* True when the scale's labels, start + step * c every ten columns, each leave a blank before
 * the next and differ from it. */
static bool labels_fit(int cells, double start, double step)
{
	char num[32], prev[32] = "";

	for (int c = 0; c < cells; c += 10) {
		if (snprintf(num, sizeof(num), "%.6g", start + step * c) > 9 || strcmp(num, prev) == 0)
			return false;
		strcpy(prev, num);
	}
	return true;
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

int report_timeline(FILE *out, const struct sim *s, int width)
{
	return report_timeline_colored(out, s, width, false);
}

int report_timeline_colored(FILE *out, const struct sim *s, int width, bool color)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	char label[64], num[32], shape[64], span[64], scale[96], *row, *line;
	unsigned char *tint;
	struct column *col;
	struct row_marks marks = {false, false};
	bool backward = false;
	int labelw = 0, cells;
	double step, start = 0, scale_from;
	bool drawn = r->makespan > s->frame.origin;

	for (int d = 0; d < sc->p; d++) {
		report_device_label(sc, d, label, sizeof(label));
		if ((int)strlen(label) + 1 > labelw)
			labelw = (int)strlen(label) + 1;
	}
	cells = width - labelw < 10 ? 10 : width - labelw;
	if (drawn) {
		/* from the column holding the origin (one column spare for that) to the last op */
		step = column_step(s, s->frame.origin > 0 ? cells - 1 : cells);
		start = floor(pp_time_to_units(s->frame.origin, s->cost->tick) / step) * step;
		cells = cell_of(r->makespan, s->cost->tick, start, step);
	} else {
		step = 1;
	}
	snprintf(shape, sizeof(shape), "p=%d v=%d m=%d", sc->p, sc->v, sc->m);
	snprintf(span, sizeof(span), "makespan %s %s", REPORT_NUM(num, s->frame.makespan),
	         s->cost->time_unit);
	/* a late origin whose times do not fit the scale: it counts from it, named in the header */
	scale_from = labels_fit(cells, start, step) ? start : 0;
	snprintf(scale, sizeof(scale), "one column = %g %s", step, s->cost->time_unit);
	if (scale_from != start)
		snprintf(scale + strlen(scale), sizeof(scale) - strlen(scale),
		         ", the scale from %.10g", start);
	/* everything is allocated before the first line, so that a failure writes nothing */
	line = pp_malloc((size_t)(width - labelw > cells ? width - labelw : cells) + 1);
	row = pp_malloc((size_t)cells + 1);
	tint = pp_malloc((size_t)cells + 1);
	col = pp_mallocarray((size_t)cells, sizeof(*col));
	if (line == NULL || row == NULL || tint == NULL || col == NULL) {
		free(line);
		free(row);
		free(tint);
		free(col);
		return -1;
	}
	write_wrapped(out, (const char *[]){s->config.schedule, shape, span, scale, NULL}, width);
	write_scale(out, line, labelw, cells, width - labelw, scale_from, step);
	free(line);
	for (int d = 0; d < sc->p; d++) {
		paint_device(row, tint, col, cells, s, d, start, step, &marks);
		report_device_label(sc, d, label, sizeof(label));
		if (color) {
			fprintf(out, "%-*s", labelw, label);
			write_colored(out, row, tint, cells);
		} else {
			fprintf(out, "%-*s%s\n", labelw, label, row);
		}
	}
	free(row);
	free(tint);
	free(col);
	/* serving runs forwards only */
	for (size_t i = 0; i < sc->nops && !backward; i++)
		backward = sc->ops[i].kind != OP_F;
	write_wrapped(out,
	              (const char *[]){"F forward",
	                               !backward   ? ""
	                               : sc->mixed ? "B full backward  I input-gradient backward"
	                               : sc->split ? "B input-gradient backward"
	                                           : "B backward (input and weight gradient)",
	                               sc->split || sc->mixed ? "W weight-gradient backward" : "",
	                               marks.labels ? "[F3] micro-batch 3, counted from 0" : "",
	                               marks.mixed ? "FBB shared columns, letters by time" : "",
	                               sc->v == 2  ? "lower case: chunk 1"
	                               : sc->v > 2 ? "[F3.2] micro-batch 3 on chunk 2, lower case "
	                                             "on odd chunks"
	                                           : "",
	                               sc->overlap ? "[F7+b3] or ### overlapped F&B pair" : "",
	                               ". idle", NULL},
	              width);
	return 0;
}
