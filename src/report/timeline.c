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

/* Paints op into row[c0, c1) with the richest form that fits. */
/* Writes the label of op into buf: "F3", "f3" (chunk 1 of 2), "F3.2" (chunk 2 of more than 2). */
int report_op_label(char *buf, size_t n, const struct sched *s, const struct op *op)
{
	if (s->v > 2)
		return snprintf(buf, n, "%c%u.%u", op_letter(s, op), (unsigned)op->mb,
		                (unsigned)s->stage_chunk[op->stage]);
	return snprintf(buf, n, "%c%u", op_letter(s, op), (unsigned)op->mb);
}

/* Paints op (with its partner when it starts an overlapped pair, as "F7+b3", or '#' when too
 * narrow) into row[c0, c1) with the richest form that fits. */
static void paint_op(char *row, int c0, int c1, const struct sched *s, const struct op *op)
{
	char label[64];
	int wd = c1 - c0, len = report_op_label(label, sizeof(label), s, op);

	if (op->flags & OP_OVERLAP) {
		label[len++] = '+';
		len += report_op_label(label + len, sizeof(label) - (size_t)len, s, op + 1);
		if (wd < len)
			label[0] = '#';
	}

	if (wd >= len + 2) {
		memset(row + c0, ' ', (size_t)wd);
		row[c0] = '[';
		memcpy(row + c0 + 1, label, (size_t)len);
		row[c1 - 1] = ']';
	} else if (wd >= len) {
		memset(row + c0, ' ', (size_t)wd);
		memcpy(row + c0, label, (size_t)len);
	} else {
		memset(row + c0, label[0], (size_t)wd);
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
 * each value. */
static void write_scale(FILE *out, int labelw, int cells, int room, double start, double step)
{
	char *line = pp_xmalloc((size_t)room + 1);
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
	free(line);
}

/* ANSI colour of a painted cell: by op kind, magenta for an overlapped pair. */
static const char *const tints[] = {"", "\033[34m", "\033[33m", "\033[32m", "\033[31m", "\033[35m"};

/* Colour index of op's cells: 1 + its kind, 5 for a pair. */
static unsigned char tint_of(const struct op *op)
{
	return (unsigned char)(op->flags & OP_OVERLAP ? 5 : 1 + op->kind);
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
	char label[64], num[32], shape[64], span[64], scale[64], *row;
	unsigned char *tint;
	int labelw = 0, cells;
	double step, start = 0;
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
	snprintf(scale, sizeof(scale), "one column = %g %s", step, s->cost->time_unit);
	write_wrapped(out, (const char *[]){s->config.schedule, shape, span, scale, NULL}, width);
	write_scale(out, labelw, cells, width - labelw, start, step);
	row = pp_xmalloc((size_t)cells + 1);
	tint = pp_xmalloc((size_t)cells + 1);
	for (int d = 0; d < sc->p; d++) {
		memset(row, '.', (size_t)cells);
		memset(tint, 0, (size_t)cells);
		row[cells] = '\0';
		for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1] && drawn; i++) {
			int c0 = cell_of(r->times[i].start, s->cost->tick, start, step);
			int c1 = cell_of(r->times[i].end, s->cost->tick, start, step);

			if (r->times[i].end == r->times[i].start)
				continue;
			if (c1 == c0 && c0 < cells && row[c0] == '.')
				c1 = c0 + 1;
			if (c1 > c0) {
				paint_op(row, c0, c1, sc, &sc->ops[i]);
				memset(tint + c0, tint_of(&sc->ops[i]), (size_t)(c1 - c0));
			}
			if (sc->ops[i].flags & OP_OVERLAP)
				i++; /* the partner was painted with it */
		}
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
	write_wrapped(out,
	              (const char *[]){"F forward",
	                               sc->mixed   ? "B full backward  I input-gradient backward"
	                               : sc->split ? "B input-gradient backward"
	                                           : "B backward (input and weight gradient)",
	                               sc->split || sc->mixed ? "W weight-gradient backward" : "",
	                               "[F3] micro-batch 3, counted from 0",
	                               sc->v == 2  ? "lower case: chunk 1"
	                               : sc->v > 2 ? "[F3.2] micro-batch 3 on chunk 2, lower case "
	                                             "on odd chunks"
	                                           : "",
	                               sc->overlap ? "[F7+b3] or ### overlapped F&B pair" : "",
	                               ". idle", NULL},
	              width);
	return 0;
}
