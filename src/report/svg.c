/*
 * The SVG Gantt chart: a self-contained drawing, one block per simulation on a shared time
 * axis. Each device gets a row on a grey ground, its idle time, with its ops (coloured by kind,
 * lighter on odd chunks, labelled with the micro-batch where the label fits; the two ops of an
 * overlapped pair share their slot, the F in its upper half) and, below it, a thin lane with
 * its outgoing transfers when the simulation recorded them, coloured by direction: down to a
 * later device or up to an earlier one, with an arrowhead where one fits.
 *
 * The file grows with the drawing's pixels, not with the ops. A run of shapes (ops, or
 * transfers) each narrower than MERGE_PX and starting within GAP_PX of the run's end so far is
 * a cluster, drawn as bands across its extent: one per op kind and chunk parity, as high as its
 * share of the cluster's time (the rest of the row shows the idle ground), or one per direction
 * of transfers, split by count. A row's bands of one kind are the subpaths of one <path>. Every
 * other shape is MERGE_PX wide, or a lone narrow one followed by a gap of GAP_PX, so a row holds
 * at most one shape per GAP_PX of width besides its clusters' bands.
 *
 * Unless --svg-width sets it, the width gives the shorter ops room for their labels (the lower
 * quartile of op times), within PP_SVG_AUTO_MIN_WIDTH..PP_SVG_AUTO_MAX_WIDTH.
 */
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/report.h"

#include "formats.h"
#include "base/memfile.h"

enum {
	LEFT = 170, /* label column; the time axis takes the width left of the margins */
	RIGHT = 30,
	TITLE = 26,     /* height of a block's title */
	LANE = 18,      /* op row */
	WIRE = 5,       /* transfer lane */
	GAP = 5,        /* between devices */
	BLOCK_GAP = 16, /* between simulations */
	AXIS = 40,      /* axis and legend at the bottom */
	LEGEND = 24,    /* a line of the legend */
	BANDS = 8,      /* an op's band: 2 kind + odd chunk; a transfer's: 0 down, 1 up */
	ARROW = 8,      /* a transfer this wide (pixels) gets an arrowhead */
};

#define MERGE_PX       3 /* shapes narrower than this many pixels join a cluster */
#define GAP_PX         2 /* ... when they start within this of its end */
#define TEXT(x)        #x
#define NUMBER_TEXT(x) TEXT(x)

static const char *fill_of(enum op_kind k)
{
	return k == OP_F ? "#4e79a7" : k == OP_B ? "#f28e2b" : k == OP_W ? "#59a14f" : "#e15759";
}

static const char *const directions[] = {"dn", "up"};

static int block_height(const struct drawing *s)
{
	return TITLE + s->sched->p * (LANE + WIRE + GAP);
}

/* A simulation's transfers by sending device: those of device d are
 * msgs[order[first[d]] .. order[first[d + 1] - 1]], in send order (4 bytes a message: a run
 * holds fewer than 2^32, as it holds at most ENGINE_MAX_OPS ops and an op sends at most one). */
struct by_device {
	uint32_t *order; /* [nmsgs] */
	size_t *first; /* [p + 2], of which [0..p] hold the bounds */
	unsigned dirs; /* the directions the transfers take: bit 1 << (dst < src) */
};

/* Sorts the transfers of s by sending device into b; returns 0, or -1 out of memory. */
static int by_device_init(struct by_device *b, const struct drawing *s)
{
	const struct result *r = s->result;
	int p = s->sched->p, src, dst;

	b->order = pp_mallocarray_large(r->nmsgs > 0 ? r->nmsgs : 1, sizeof(*b->order));
	b->first = pp_calloc((size_t)p + 2, sizeof(*b->first));
	if (b->order == NULL || b->first == NULL)
		return -1;
	for (size_t k = 0; k < r->nmsgs; k++) {
		report_msg_devices(s, &r->msgs[k], &src, &dst);
		b->first[src + 2]++;
		b->dirs |= 1u << (dst < src);
	}
	for (int d = 0; d < p; d++)
		b->first[d + 2] += b->first[d + 1];
	/* first[d + 1] is now where device d's transfers start: fill it up to first[d + 2] */
	for (size_t k = 0; k < r->nmsgs; k++) {
		report_msg_devices(s, &r->msgs[k], &src, &dst);
		b->order[b->first[src + 1]++] = (uint32_t)k;
	}
	return 0;
}

static void by_device_release(struct by_device *b)
{
	free(b->order);
	free(b->first);
}

/* One lane of a row: the ops of device d, or its outgoing transfers. */
struct lane {
	const struct drawing *s;
	int d;
	const uint32_t *msg; /* the transfers' indices in result->msgs, or NULL: the ops */
	size_t n;            /* shapes in the lane */
	double start, scale; /* time start (units) is at x = LEFT; scale: pixels per unit */
};

static struct lane op_lane(const struct drawing *s, int d, double start, double scale)
{
	const struct sched *sc = s->sched;

	return (struct lane){.s = s,
	                     .d = d,
	                     .n = sc->dev_start[d + 1] - sc->dev_start[d],
	                     .start = start,
	                     .scale = scale};
}

static struct lane msg_lane(const struct drawing *s, const struct by_device *b, int d, double start,
                            double scale)
{
	return (struct lane){.s = s,
	                     .d = d,
	                     .msg = b->order + b->first[d],
	                     .n = b->first[d + 1] - b->first[d],
	                     .start = start,
	                     .scale = scale};
}

static double x_of(const struct lane *ln, pp_time t)
{
	return LEFT + (pp_time_to_units(t, ln->s->tick) - ln->start) * ln->scale;
}

/* Where shape i of a lane is drawn and its band; a transfer's receiving device. */
struct shape {
	double x0, x1;
	int band;
	int dst;
};

/* The band of an op: 2 kind + odd chunk. */
static int op_band(const struct sched *sc, const struct op *op)
{
	return 2 * op->kind + (int)(sc->stage_chunk[op->stage] % 2);
}

/* How many transfers ahead a lane asks for the record of: a device's transfers lie a few
 * hundred bytes apart among all the run's, each on its own cache line. */
#define MSG_AHEAD 16

static struct shape shape_at(const struct lane *ln, size_t i)
{
	const struct drawing *s = ln->s;

	if (ln->msg != NULL) {
		const struct msg_record *g = &s->result->msgs[ln->msg[i]];
		int src, dst;

#if defined(__GNUC__)
		__builtin_prefetch(&s->result->msgs[ln->msg[i + MSG_AHEAD < ln->n ? i + MSG_AHEAD : i]]);
#endif

		report_msg_devices(s, g, &src, &dst);
		return (struct shape){x_of(ln, g->start), x_of(ln, g->end), dst < src, dst};
	}
	i += s->sched->dev_start[ln->d];
	return (struct shape){x_of(ln, s->result->times[i].start),
	                      x_of(ln, s->result->times[i].end), op_band(s->sched, &s->sched->ops[i]),
	                      -1};
}

/* Shapes first .. first + n - 1 of a lane, from x0 to x1; per band their count and pixels,
 * and for transfers the receiving device of the band's first and last and whether any two in
 * a row differ. */
struct cluster {
	size_t first, n;
	double x0, x1;
	size_t count[BANDS];
	double busy[BANDS];
	int dst_first[BANDS], dst_last[BANDS];
	bool dst_mixed[BANDS];
};

static void cluster_add(struct cluster *c, struct shape sh)
{
	int b = sh.band;

	c->n++;
	c->x1 = fmax(c->x1, sh.x1);
	if (c->count[b]++ == 0)
		c->dst_first[b] = sh.dst;
	else
		c->dst_mixed[b] |= sh.dst != c->dst_last[b];
	c->dst_last[b] = sh.dst;
	c->busy[b] += sh.x1 - sh.x0;
}

/* The cluster from shape *pos: a shape MERGE_PX wide alone, else it and the narrow shapes that
 * follow it, each starting within GAP_PX of the end so far. Advances *pos past it. */
static void next_cluster(const struct lane *ln, size_t *pos, struct cluster *c)
{
	struct shape sh = shape_at(ln, *pos);
	bool narrow = sh.x1 - sh.x0 < MERGE_PX;

	*c = (struct cluster){.first = *pos, .x0 = sh.x0, .x1 = sh.x1};
	cluster_add(c, sh);
	for (++*pos; narrow && *pos < ln->n; ++*pos) {
		sh = shape_at(ln, *pos);
		if (sh.x1 - sh.x0 >= MERGE_PX || sh.x0 - c->x1 >= GAP_PX)
			break;
		cluster_add(c, sh);
	}
}

/* The subpaths of one band of a lane, gathered as the lane is drawn: as many as its merged
 * clusters, which the drawing's width bounds, whatever the ops. */
struct band_text {
	char *text;
	size_t len, cap;
};

/* Appends what printf would write to t; 0, or -1 out of memory. */
__attribute__((format(printf, 2, 3))) static int band_append(struct band_text *t, const char *fmt,
                                                             ...)
{
	char piece[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(piece, sizeof(piece), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(piece) ||
	    pp_grow((void **)&t->text, &t->cap, t->len + (size_t)n, 1, NULL) != 0)
		return -1;
	memcpy(t->text + t->len, piece, (size_t)n);
	t->len += (size_t)n;
	return 0;
}

/*
 * Writes band b of cluster c as a subpath: the bands are stacked from y down in band order,
 * each as high as its share of h: for ops, of the cluster's time (its idle share is left
 * blank), or by count when the ops take no time; for transfers, by count.
 */
static int band_path(struct band_text *out, const struct lane *ln, const struct cluster *c, int b,
                     double y, double h)
{
	double total = 0, span = c->x1 - c->x0, w = span > 0.5 ? span : 0.5;

	for (int k = 0; k < BANDS; k++)
		total += c->busy[k];
	total = fmax(total, span);
	for (int k = 0; k <= b; k++) {
		double share = ln->msg == NULL && total > 0 ? c->busy[k] / total
		                                            : (double)c->count[k] / (double)c->n;

		if (k == b)
			return band_append(out, "M%.2f %.2fh%.2fv%.2fh%.2fz", c->x0, y, w, share * h,
			                   -w);
		y += share * h;
	}
	return 0;
}

/* Writes op i of lane ln (its own rectangle, with a tooltip and, where it fits, its label). */
static void draw_op(FILE *out, const struct lane *ln, size_t i, int row)
{
	const struct drawing *s = ln->s;
	const struct sched *sc = s->sched;
	size_t k = sc->dev_start[ln->d] + i;
	const struct op *op = &sc->ops[k];
	struct shape sh = shape_at(ln, i);
	double t0 = pp_time_to_units(s->result->times[k].start, s->tick);
	double t1 = pp_time_to_units(s->result->times[k].end, s->tick);
	bool top = op->flags & OP_OVERLAP;
	bool bottom = i > 0 && (op[-1].flags & OP_OVERLAP);
	double h = top || bottom ? LANE / 2.0 : LANE, oy = bottom ? LANE / 2.0 : 0;
	char label[32], a[32], b[32];
	int len = report_op_label(label, sizeof(label), sc, op);

	fprintf(out,
	        "<rect class=\"op\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
	        "fill=\"%s\"%s><title>%s device %d, stage %u, %s to %s</title></rect>\n",
	        sh.x0, row + oy, sh.x1 - sh.x0, h, fill_of((enum op_kind)op->kind),
	        sh.band % 2 ? " fill-opacity=\"0.6\"" : "", label, ln->d, (unsigned)op->stage,
	        REPORT_NUM(a, t0), REPORT_NUM(b, t1));
	if (sh.x1 - sh.x0 >= 7.0 * len + 4 && h >= LANE)
		fprintf(out, "<text x=\"%.2f\" y=\"%d\" class=\"label\">%s</text>\n",
		        (sh.x0 + sh.x1) / 2, row + 13, label);
}

/* Writes transfer i of lane ln, whose top is at y: its rectangle with a tooltip, and an
 * arrowhead at its end where it is ARROW pixels wide. */
static void draw_msg(FILE *out, const struct lane *ln, size_t i, int y)
{
	const struct drawing *s = ln->s;
	const struct msg_record *g = &s->result->msgs[ln->msg[i]];
	struct shape sh = shape_at(ln, i);
	double w = sh.x1 - sh.x0 > 0.5 ? sh.x1 - sh.x0 : 0.5;
	char label[32], a[32], b[32];
	int src, dst;

	report_msg_devices(s, g, &src, &dst);
	report_op_label(label, sizeof(label), s->sched, &s->sched->ops[g->from]);
	fprintf(out,
	        "<rect class=\"msg %s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\">"
	        "<title>%s GPU %d -&gt; GPU %d, %s to %s</title></rect>\n",
	        directions[sh.band], sh.x0, y, w, WIRE - 2, label, src, dst,
	        REPORT_NUM(a, pp_time_to_units(g->start, s->tick)),
	        REPORT_NUM(b, pp_time_to_units(g->end, s->tick)));
	if (w >= ARROW) /* its base across the lane's top (down) or bottom (up), its tip across */
		fprintf(out, "<path class=\"%s\" d=\"M%.2f %dh%dl%d %dz\"/>\n", directions[sh.band],
		        sh.x1 - 6, sh.band ? y + WIRE - 1 : y - 1, 6, -3, sh.band ? -WIRE : WIRE);
}

/* The text of a band's merged path: "24 F ops on odd chunks", "12 transfers GPU 0 -> GPU 1". */
static void band_title(FILE *out, const struct lane *ln, int b, size_t count, int dst, bool mixed)
{
	if (ln->msg == NULL) {
		fprintf(out, "%zu %s ops%s merged, each narrower than %d px", count,
		        sched_kind_name((enum op_kind)(b / 2)), b % 2 ? " on odd chunks" : "",
		        MERGE_PX);
		return;
	}
	fprintf(out, "%zu transfers GPU %d -&gt; ", count, ln->d);
	if (mixed)
		fprintf(out, "%s GPUs", b ? "earlier" : "later");
	else
		fprintf(out, "GPU %d", dst);
	fprintf(out, " merged, each narrower than %d px", MERGE_PX);
}

/*
 * Draws a lane whose top is at y and whose shapes are h high: each cluster of one shape on its
 * own (draw_op, draw_msg), the others as bands, a path per band, in one pass over the lane
 * (the bands' subpaths gathered meanwhile). Returns 0, or -1 out of memory.
 */
static int draw_lane(FILE *out, const struct lane *ln, int y, double h)
{
	size_t merged[BANDS] = {0};
	int dst[BANDS];
	bool mixed[BANDS] = {false};
	struct band_text text[BANDS] = {{NULL, 0, 0}};
	struct cluster c;
	int rc = 0;

	for (size_t pos = 0; pos < ln->n && rc == 0;) {
		next_cluster(ln, &pos, &c);
		if (c.n == 1 && ln->msg == NULL) {
			draw_op(out, ln, c.first, y);
		} else if (c.n == 1) {
			draw_msg(out, ln, c.first, y);
		} else {
			for (int b = 0; b < BANDS && rc == 0; b++) {
				if (c.count[b] == 0)
					continue;
				if (ln->msg != NULL) {
					mixed[b] |= (merged[b] > 0 && c.dst_first[b] != dst[b]) ||
					            c.dst_mixed[b];
					dst[b] = c.dst_last[b];
				}
				merged[b] += c.count[b];
				rc = band_path(&text[b], ln, &c, b, y, h);
			}
		}
	}
	for (int b = 0; b < BANDS && rc == 0; b++) {
		if (merged[b] == 0)
			continue;
		if (ln->msg == NULL)
			fprintf(out, "<path class=\"merged\" fill=\"%s\"%s d=\"",
			        fill_of((enum op_kind)(b / 2)),
			        b % 2 ? " fill-opacity=\"0.6\"" : "");
		else
			fprintf(out, "<path class=\"merged %s\" d=\"", directions[b]);
		fwrite(text[b].text, 1, text[b].len, out);
		fputs("\"><title>", out);
		band_title(out, ln, b, merged[b], dst[b], mixed[b]);
		fputs("</title></path>\n", out);
	}
	for (int b = 0; b < BANDS; b++)
		free(text[b].text);
	return rc;
}

/* What a drawing shows, for its legend: a bit per op band and transfer direction drawn. */
struct drawn {
	unsigned bands; /* 1 << (2 kind + odd chunk) */
	unsigned dirs;  /* 1 << direction */
	bool merged;    /* some shapes were merged */
};

/* Whether a lane merges any shapes (it stops at the first cluster that does). */
static bool lane_merges(const struct lane *ln)
{
	struct cluster c;

	for (size_t pos = 0; pos < ln->n;) {
		next_cluster(ln, &pos, &c);
		if (c.n > 1)
			return true;
	}
	return false;
}

/* Adds what the rows' lanes draw to seen: every op's band and every transfer's direction
 * (each is drawn, alone or in a band of its own), and whether any lane merges shapes. */
static void survey(const struct drawing *s, const struct by_device *msgs, double start, double scale,
                   struct drawn *seen)
{
	const struct sched *sc = s->sched;

	for (size_t i = 0; i < sc->nops; i++)
		seen->bands |= 1u << op_band(sc, &sc->ops[i]);
	seen->dirs |= msgs->dirs;
	for (int d = 0; d < sc->p && !seen->merged; d++) {
		struct lane ops = op_lane(s, d, start, scale);
		struct lane wire = msg_lane(s, msgs, d, start, scale);

		seen->merged = lane_merges(&ops) || lane_merges(&wire);
	}
}

/* A block's rows: where they go, and for the threads that draw them, the next device to take
 * and each row's text (a memfile) and status. */
struct block_rows {
	const struct drawing *s;
	const struct by_device *msgs;
	int y;
	double start, scale;
	atomic_int next;
	struct row_text {
		char *text;
		size_t len;
		int rc;
	} *row; /* [p], or NULL: each row straight into the output */
};

/* Draws device d's row of block b: its label, idle ground, ops and transfers. Returns 0, or -1
 * out of memory. */
static int draw_row(FILE *out, const struct block_rows *b, int d)
{
	const struct drawing *s = b->s;
	const struct sched *sc = s->sched;
	double origin = pp_time_to_units(s->frame.origin, s->tick);
	int row = b->y + TITLE + d * (LANE + WIRE + GAP);
	struct lane ops = op_lane(s, d, b->start, b->scale);
	struct lane wire = msg_lane(s, b->msgs, d, b->start, b->scale);
	char label[96];

	report_device_label(sc, d, label, sizeof(label));
	fprintf(out,
	        "<text x=\"%d\" y=\"%d\" class=\"device\">%s</text>\n"
	        "<rect class=\"idle\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\"/>\n",
	        LEFT - 8, row + 13, label, LEFT + (origin - b->start) * b->scale, row,
	        s->frame.makespan * b->scale, LANE);
	if (draw_lane(out, &ops, row, LANE) != 0 ||
	    draw_lane(out, &wire, row + LANE + 1, WIRE - 2) != 0)
		return -1;
	return 0;
}

/* A thread's share of a block's rows: each device it takes, into a text of its own. */
static void *draw_rows(void *arg)
{
	struct block_rows *b = *(struct block_rows **)arg;

	for (int d; (d = atomic_fetch_add(&b->next, 1)) < b->s->sched->p;) {
		struct row_text *t = &b->row[d];
		struct memfile mf;
		FILE *f = memfile_open(&mf);

		t->rc = f == NULL ? -1 : draw_row(f, b, d);
		if ((t->text = memfile_close(&mf, &t->len)) == NULL)
			t->rc = -1;
	}
	return NULL;
}

/* How many ops a block has before its rows are drawn on two threads. */
#define ROWS_THREADED ((size_t)1 << 16)

/* Draws one simulation's block whose top is at y, its transfers sorted in msgs: its rows on two
 * threads when it is large, each into a text of its own, then written in order. Returns 0, or
 * -1 out of memory. */
static int draw_block(FILE *out, const struct drawing *s, const struct by_device *msgs, int y,
                       double start, double scale)
{
	const struct sched *sc = s->sched;
	struct block_rows b = {.s = s, .msgs = msgs, .y = y, .start = start, .scale = scale};
	struct block_rows *each[2] = {&b, &b};
	char num[32];
	int rc = 0;

	fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"title\">", LEFT, y + 17);
	report_xml_text(out, drawing_name(s));
	fprintf(out, "  p=%d v=%d m=%d  makespan %s %s  bubble_ratio %.4f</text>\n", sc->p, sc->v,
	        sc->m, REPORT_NUM(num, s->frame.makespan), s->time_unit,
	        s->frame.bubble_ratio);
	if (sc->nops < ROWS_THREADED || sc->p < 2 ||
	    (b.row = pp_calloc((size_t)sc->p, sizeof(*b.row))) == NULL) {
		for (int d = 0; d < sc->p && rc == 0; d++)
			rc = draw_row(out, &b, d);
		return rc;
	}
	atomic_init(&b.next, 0);
	pp_threads(2, draw_rows, each, sizeof(each[0]));
	for (int d = 0; d < sc->p; d++) {
		if (b.row[d].rc != 0)
			rc = -1;
		else if (rc == 0)
			fwrite(b.row[d].text, 1, b.row[d].len, out);
		free(b.row[d].text);
	}
	free(b.row);
	return rc;
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

/* The legend's entries for what was drawn, and the lines they take within width. */
struct legend {
	struct {
		const char *swatch; /* the fill of its square, or a class of the style sheet */
		bool lighter;       /* the swatch at the odd chunks' opacity */
		const char *text;
	} item[12];
	int n;
};

static void legend_add(struct legend *l, const char *swatch, bool lighter, const char *text)
{
	l->item[l->n].swatch = swatch;
	l->item[l->n].lighter = lighter;
	l->item[l->n++].text = text;
}

static void legend_of(struct legend *l, const struct drawn *seen)
{
	static const char *const dirs[] = {"transfer down (to a later GPU)",
	                                   "transfer up (to an earlier GPU)"};
	unsigned odd = 0;

	l->n = 0;
	for (int k = 0; k < 4; k++)
		if (seen->bands & (3u << 2 * k))
			legend_add(l, fill_of((enum op_kind)k), false,
			           report_kind_legend((enum op_kind)k));
	for (int k = 0; k < 4; k++)
		odd |= seen->bands & (2u << 2 * k);
	if (odd != 0)
		legend_add(l, fill_of(OP_F), true, "lighter: odd chunks");
	legend_add(l, "idle", false, "idle");
	for (int k = 0; k < 2; k++)
		if (seen->dirs & (1u << k))
			legend_add(l, directions[k], false, dirs[k]);
	if (seen->merged)
		legend_add(l, NULL, false,
		           "bands: shapes under " NUMBER_TEXT(
		                   MERGE_PX) " px merged, ops as high as their share of the time");
}

/* The x each entry of l takes from, within width, from LEFT; returns the lines it takes. */
static int legend_layout(const struct legend *l, int width, int *x, int *line)
{
	int lines = 1, at = LEFT;

	for (int i = 0; i < l->n; i++) {
		int w = (l->item[i].swatch != NULL ? 20 : 0) + 7 * (int)strlen(l->item[i].text) +
		        24;

		if (at > LEFT && at + w > width - RIGHT) {
			lines++;
			at = LEFT;
		}
		x[i] = at;
		line[i] = lines - 1;
		at += w;
	}
	return lines;
}

static void draw_legend(FILE *out, const struct legend *l, int width, int y)
{
	int x[12], line[12];

	legend_layout(l, width, x, line);
	for (int i = 0; i < l->n; i++) {
		int top = y + line[i] * 18, tx = x[i];
		const char *sw = l->item[i].swatch;

		if (sw != NULL && sw[0] == '#')
			fprintf(out,
			        "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" "
			        "fill=\"%s\"%s/>",
			        tx, top, sw, l->item[i].lighter ? " fill-opacity=\"0.6\"" : "");
		else if (sw != NULL)
			fprintf(out,
			        "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"14\" height=\"12\"/>",
			        sw, tx, top);
		tx += sw != NULL ? 20 : 0;
		fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"legend\">%s</text>\n", tx, top + 11,
		        l->item[i].text);
	}
}

/* The key lower_quartile selects op j of s by, 0 for an op that takes no time: its time in
 * ticks when every row counts in the same ticks, else the bits of its time in units (positive
 * doubles order as their bits). */
static uint64_t time_key(const struct drawing *s, size_t j, bool ticks)
{
	pp_time d = s->result->times[j].end - s->result->times[j].start;
	double u;
	uint64_t bits;

	if (d <= 0 || ticks)
		return d > 0 ? (uint64_t)d : 0;
	u = pp_time_to_units(d, s->tick);
	memcpy(&bits, &u, sizeof(bits));
	return bits;
}

/*
 * The k-th shortest (from 0) of the op times of rows above 0, in units, into *out, where k is a
 * quarter of their number: a radix select over the bits of their keys (time_key: a time in
 * units grows with its ticks, so the k-th in ticks is the k-th in units), in four passes of 16
 * bits over the ops instead of a sorted copy of them (8 bytes an op). Returns 0, 1 when no op
 * takes time, or -1 out of memory.
 */
static int lower_quartile(const struct drawing *rows, int n, double *out)
{
	size_t *count = pp_calloc((size_t)1 << 16, sizeof(*count)), k = 0;
	uint64_t prefix = 0;
	bool ticks = true;

	if (count == NULL)
		return -1;
	for (int i = 1; i < n; i++)
		ticks &= rows[i].tick == rows[0].tick;
	for (int shift = 48; shift >= 0; shift -= 16) {
		uint64_t fixed = shift == 48 ? 0 : ~UINT64_C(0) << (shift + 16);
		size_t digit = 0;

		memset(count, 0, ((size_t)1 << 16) * sizeof(*count));
		for (int i = 0; i < n; i++) {
			const struct drawing *s = &rows[i];

			for (size_t j = 0; j < s->sched->nops; j++) {
				uint64_t key = time_key(s, j, ticks);

				if (key != 0 && (key & fixed) == prefix)
					count[(key >> shift) & 0xffff]++;
			}
		}
		if (shift == 48) {
			for (size_t b = 0; b < (size_t)1 << 16; b++)
				k += count[b];
			if (k == 0)
				break;
			k /= 4;
		}
		while (k >= count[digit])
			k -= count[digit++];
		prefix |= (uint64_t)digit << shift;
	}
	free(count);
	if (prefix == 0)
		return 1;
	if (ticks)
		*out = pp_time_to_units((pp_time)prefix, rows[0].tick);
	else
		memcpy(out, &prefix, sizeof(*out));
	return 0;
}

/*
 * The width that gives the lower quartile of op times room for the longest label (span units
 * on the axis), within PP_SVG_AUTO_MIN_WIDTH..PP_SVG_AUTO_MAX_WIDTH; -1 out of memory.
 */
static int auto_width(const struct drawing *rows, int n, double span)
{
	double quartile = 0, need = 0;
	int len = 1, rc;
	char label[32];

	for (int i = 0; i < n; i++) {
		const struct sched *sc = rows[i].sched;
		struct op last = {(uint32_t)(sc->m > 0 ? sc->m - 1 : 0), (uint32_t)(sc->S - 1),
		                  OP_F, 0};

		if (sc->S > 0) {
			int l = report_op_label(label, sizeof(label), sc, &last);

			len = l > len ? l : len;
		}
	}
	if ((rc = lower_quartile(rows, n, &quartile)) < 0)
		return -1;
	if (rc == 0)
		need = LEFT + RIGHT + span * (7.0 * len + 6) / quartile;
	if (!(need > PP_SVG_AUTO_MIN_WIDTH))
		return PP_SVG_AUTO_MIN_WIDTH;
	return need < PP_SVG_AUTO_MAX_WIDTH ? (int)ceil(need) : PP_SVG_AUTO_MAX_WIDTH;
}

/*
 * The drawing's name and description for assistive technology (role="img" names it by
 * them): what it shows, of which runs, and their figures.
 */
static void write_caption(FILE *out, const struct drawing *rows, int n)
{
	char num[32];
	bool msgs = false;

	fputs("<title id=\"ppsim-title\">ppsim: ", out);
	for (int i = 0; i < n; i++) {
		const struct drawing *s = &rows[i];

		fputs(i ? "; " : "", out);
		report_xml_text(out, drawing_name(s));
		fprintf(out, " p=%d v=%d m=%d, makespan %s %s, bubble ratio %.4f", s->sched->p,
		        s->sched->v, s->sched->m, REPORT_NUM(num, s->frame.makespan),
		        s->time_unit, s->frame.bubble_ratio);
	}
	for (int i = 0; i < n; i++)
		msgs = msgs || rows[i].result->nmsgs > 0;
	fprintf(out,
	        "</title>\n<desc id=\"ppsim-desc\">A Gantt chart of %s: per device a row of its ops "
	        "over time, coloured by kind and labelled with their micro-batch where the label "
	        "fits, on a grey ground where the device is idle%s; the time axis and a legend at "
	        "the bottom. Each op's title gives its device, stage, start and end.</desc>\n",
	        n > 1 ? "the compared runs, one block each on one time axis" : "the run",
	        msgs ? ", and under it its outgoing transfers" : "");
}

int report_svg(FILE *out, const struct drawing *rows, int n)
{
	double lo = 0, hi = 0, start = 0, step, span, scale;
	int height = AXIS, y = 10, width = rows[0].svg_width, rc = -1;
	struct by_device *msgs = pp_calloc((size_t)n, sizeof(*msgs));
	struct drawn seen = {0};
	struct legend legend;
	int x[12], line[12];

	if (msgs == NULL)
		return -1;
	/* from the earliest origin (0 for training) to the latest end, the start on a tick */
	for (int i = 0; i < n; i++) {
		const struct drawing *s = &rows[i];
		double origin = pp_time_to_units(s->frame.origin, s->tick);

		lo = i == 0 || origin < lo ? origin : lo;
		hi = i == 0 || origin + s->frame.makespan > hi ? origin + s->frame.makespan : hi;
		height += block_height(s) + BLOCK_GAP;
		if (by_device_init(&msgs[i], s) != 0)
			goto done;
	}
	step = report_nice_step(hi > lo ? (hi - lo) / 10 : 1);
	start = floor(lo / step) * step;
	span = hi - start;
	if (width == PP_SVG_AUTO_WIDTH && (width = auto_width(rows, n, span)) < 0)
		goto done;
	scale = span > 0 ? (width - LEFT - RIGHT) / span : 1;
	for (int i = 0; i < n; i++)
		survey(&rows[i], &msgs[i], start, scale, &seen);
	legend_of(&legend, &seen);
	height += LEGEND + 18 * (legend_layout(&legend, width, x, line) - 1);
	fprintf(out,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\" "
	        "aria-labelledby=\"ppsim-title ppsim-desc\">\n",
	        width, height + 10, width, height + 10);
	write_caption(out, rows, n);
	/* labels black: at least 4.6:1 on every fill (white was 2.4 to 3.7:1) */
	fprintf(out,
	        "<style>.title{font-size:14px;font-weight:bold}.device{text-anchor:end}"
	        ".label{text-anchor:middle;fill:#000;font-size:10px}.tick{text-anchor:middle;"
	        "font-size:10px}.axis{stroke:#333}.op{stroke:#fff;stroke-width:0.5}"
	        ".idle{fill:#e8e8e8}.dn{fill:#555}.up{fill:#b07aa1}</style>\n"
	        "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	for (int i = 0; i < n; i++) {
		if (draw_block(out, &rows[i], &msgs[i], y, start, scale) != 0)
			goto done;
		y += block_height(&rows[i]) + BLOCK_GAP;
	}
	draw_axis(out, y, start, span, step, scale, rows[0].time_unit);
	draw_legend(out, &legend, width, y + AXIS - 10);
	fputs("</svg>\n", out);
	rc = 0;
done:
	for (int i = 0; i < n; i++)
		by_device_release(&msgs[i]);
	free(msgs);
	return rc;
}
