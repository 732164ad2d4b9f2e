/*
 * The SVG Gantt chart: a self-contained drawing, one block per simulation on a shared time
 * axis. Each device gets a row of ops (one rectangle per op, coloured by kind, lighter on odd
 * chunks, labelled with the micro-batch where the label fits; the two ops of an overlapped pair
 * share their slot, the F in its upper half) and, below it, a thin lane with its outgoing
 * transfers when the simulation recorded them.
 */
#include <math.h>
#include <string.h>

#include "ppsim/report.h"

#include "formats.h"

enum {
	LEFT = 170, /* label column; the time axis takes the width left of --svg-width */
	RIGHT = 30,
	TITLE = 26,     /* height of a block's title */
	LANE = 18,      /* op row */
	WIRE = 5,       /* transfer lane */
	GAP = 5,        /* between devices */
	BLOCK_GAP = 16, /* between simulations */
	AXIS = 40,      /* axis and legend at the bottom */
	LEGEND = 24,
};

static const char *fill_of(enum op_kind k)
{
	return k == OP_F ? "#4e79a7" : k == OP_B ? "#f28e2b" : k == OP_W ? "#59a14f" : "#e15759";
}

/* Writes text with XML's special characters escaped. */
static void xml_text(FILE *out, const char *text)
{
	static const char *const entity[] = {
	        ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;"};

	for (; *text; text++) {
		unsigned char ch = (unsigned char)*text;

		if (ch < sizeof(entity) / sizeof(entity[0]) && entity[ch] != NULL)
			fputs(entity[ch], out);
		else
			fputc(ch, out);
	}
}

static int block_height(const struct sim *s)
{
	return TITLE + s->sched->p * (LANE + WIRE + GAP);
}

/* Draws one simulation's block whose top is at y; the axis starts at time start (units) and
 * scale is pixels per time unit. */
static void draw_block(FILE *out, const struct sim *s, int y, double start, double scale)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	char label[96], num[32], a[32], b[32];

	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"title\">", LEFT, y + 17);
	xml_text(out, s->config.schedule_file[0] ? s->config.schedule_file : s->config.schedule);
	fprintf(out, "  p=%d v=%d m=%d  makespan %s %s  bubble_ratio %.4f</text>\n", sc->p, sc->v,
	        sc->m, REPORT_NUM(num, s->frame.makespan), s->cost->time_unit,
	        s->frame.bubble_ratio);
	for (int d = 0; d < sc->p; d++) {
		int row = y + TITLE + d * (LANE + WIRE + GAP);

		report_device_label(sc, d, label, sizeof(label));
		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"device\">%s</text>\n", LEFT - 8,
		        row + 13, label);
		for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
			const struct op *op = &sc->ops[i];
			double t0 = pp_time_to_units(r->times[i].start, s->cost->tick);
			double t1 = pp_time_to_units(r->times[i].end, s->cost->tick);
			double x0 = LEFT + (t0 - start) * scale, x1 = LEFT + (t1 - start) * scale;
			bool top = op->flags & OP_OVERLAP;
			bool bottom = i > sc->dev_start[d] && (op[-1].flags & OP_OVERLAP);
			double h = top || bottom ? LANE / 2.0 : LANE, oy = bottom ? LANE / 2.0 : 0;
			int len = report_op_label(label, sizeof(label), sc, op);

			fprintf(out,
			        "<rect class=\"op\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
			        "height=\"%.1f\" "
			        "fill=\"%s\"%s><title>%s device %d, stage %u, %s to "
			        "%s</title></rect>\n",
			        x0, row + oy, x1 - x0, h, fill_of((enum op_kind)op->kind),
			        sc->stage_chunk[op->stage] % 2 ? " fill-opacity=\"0.6\"" : "",
			        label, d, (unsigned)op->stage, REPORT_NUM(a, t0),
			        REPORT_NUM(b, t1));
			if (x1 - x0 >= 7.0 * len + 4 && h >= LANE)
				fprintf(out,
				        "<text x=\"%.2f\" y=\"%d\" class=\"label\">%s</text>\n",
				        (x0 + x1) / 2, row + 13, label);
		}
	}
	for (size_t k = 0; k < r->nmsgs; k++) {
		const struct msg_record *g = &r->msgs[k];
		int d = (int)sc->stage_device[sc->ops[g->from].stage];
		int row = y + TITLE + d * (LANE + WIRE + GAP) + LANE + 1;
		double x0 = LEFT + (pp_time_to_units(g->start, s->cost->tick) - start) * scale;
		double x1 = LEFT + (pp_time_to_units(g->end, s->cost->tick) - start) * scale;

		fprintf(out,
		        "<rect class=\"msg\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\"/>\n",
		        x0, row, x1 - x0 > 0.5 ? x1 - x0 : 0.5, WIRE - 2);
	}
}

/* The time axis below the blocks, span units from start, a tick every step. */
static void draw_axis(FILE *out, int y, double start, double span, double step, double scale,
                      const char *unit)
{
	char num[32];

	fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>\n", LEFT, y,
	        LEFT + span * scale, y);
	for (double t = 0; t <= span * (1 + 1e-9); t += step) {
		double x = LEFT + t * scale;

		fprintf(out, "<line class=\"axis\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>\n",
		        x, y, x, y + 5);
		fprintf(out, "<text x=\"%.2f\" y=\"%d\" class=\"tick\">%s</text>\n", x, y + 18,
		        pp_double_format(num, sizeof(num), start + t));
	}
	fprintf(out, "<text x=\"%.2f\" y=\"%d\" class=\"tick\">%s</text>\n",
	        LEFT + span * scale + 14, y + 18, unit);
}

static void draw_legend(FILE *out, int y)
{
	static const struct {
		enum op_kind kind;
		const char *text;
	} items[] = {{OP_F, "F forward"},
	             {OP_B, "B input-gradient backward"},
	             {OP_W, "W weight gradient"},
	             {OP_BW, "BW fused backward"}};
	int x = LEFT;

	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		fprintf(out,
		        "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\"/>"
		        "<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>\n",
		        x, y, fill_of(items[i].kind), x + 20, y + 11, items[i].text);
		x += 60 + 8 * (int)strlen(items[i].text);
	}
	fprintf(out,
	        "<text x=\"%d\" y=\"%d\" class=\"legend\">lighter: odd chunks; thin lane: "
	        "transfers</text>\n",
	        x, y + 11);
}

int report_svg(FILE *out, const struct report_row *rows, int n)
{
	double lo = 0, hi = 0, start = 0, step, span, scale;
	int height = AXIS + LEGEND, y = 10, width = rows[0].sim->config.svg_width;

	/* from the earliest origin (0 for training) to the latest end, the start on a tick */
	for (int i = 0; i < n; i++) {
		const struct sim *s = rows[i].sim;
		double origin = pp_time_to_units(s->frame.origin, s->cost->tick);

		lo = i == 0 || origin < lo ? origin : lo;
		hi = i == 0 || origin + s->frame.makespan > hi ? origin + s->frame.makespan : hi;
		height += block_height(s) + BLOCK_GAP;
	}
	step = report_nice_step(hi > lo ? (hi - lo) / 10 : 1);
	start = floor(lo / step) * step;
	span = hi - start;
	scale = span > 0 ? (width - LEFT - RIGHT) / span : 1;
	fprintf(out,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
	        "<style>.title{font-size:14px;font-weight:bold}.device{text-anchor:end}"
	        ".label{text-anchor:middle;fill:#fff;font-size:10px}.tick{text-anchor:middle;"
	        "font-size:10px}.axis{stroke:#333}.msg{fill:#888}.op{stroke:#fff;stroke-width:0.5}"
	        "</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
	        width, height + 10, width, height + 10);
	for (int i = 0; i < n; i++) {
		draw_block(out, rows[i].sim, y, start, scale);
		y += block_height(rows[i].sim) + BLOCK_GAP;
	}
	draw_axis(out, y, start, span, step, scale, rows[0].sim->cost->time_unit);
	draw_legend(out, y + AXIS - 10);
	fputs("</svg>\n", out);
	return 0;
}
