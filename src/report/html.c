/*
 * The HTML report: one self-contained page (no network, no server; it opens from file://)
 * holding the runs' data and the viewer that draws them, src/report/html_*.js and html.css, which
 * the build compiles in (build-aux/embed). The page shows every run on one time axis with zoom
 * and pan down to the single op, hover details, transfers with arrows to their consumers, each
 * device's activation memory over time and its bubble split into fill, drain, transfer waits
 * and the rest; a sweep's page is a heatmap of a figure over two chosen axes.
 *
 * The data is written as a stream of numbers, per op its kind, micro-batch, stage, the gap
 * after the previous op of its device and its duration in ticks, and its activation change, so
 * a run of a million ops takes about 20 bytes an op; then, for a run that has them, the ops'
 * slacks, which the viewer shows on hover, outlining the ops that have none (critical); with
 * activation offload, the copies to host memory and back (write_copies). A run of
 * more than HTML_PIECE ops or messages sends them in JSON data blocks after the
 * page's data (write_pieces), so that every page ppsim writes opens in a browser.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/report.h"
#include "ppsim/samples.h"

#include "base/numfmt.h"
#include "formats.h"
#include "html_quanta.h"
#include "trace_walk.h"

/* The viewer and its style sheet, NULL-terminated lines (generated from html_*.js, html.css). */
extern const char *const report_html_js[];
extern const char *const report_html_css[];

static void write_lines(FILE *out, const char *const *lines)
{
	for (; *lines != NULL; lines++)
		fputs(*lines, out);
}

/* The page up to the data; title in the <title> element. */
static void write_head(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>ppsim: ",
	      out);
	report_xml_text(out, title);
	fputs("</title>\n<style>\n", out);
	write_lines(out, report_html_css);
	fputs("</style>\n</head>\n<body>\n<main>\n", out);
}

static void write_tail(FILE *out)
{
	fprintf(out,
	        "<p class=\"foot\">ppsim %s: simulated, not measured.</p>\n</main>\n",
	        PP_VERSION);
}

/* One run of a page: its label, what its drawings read of it, and its training step (NULL for a
 * serving run, which has no memory figures, streams or noise samples). */
struct page_run {
	const char *label;
	struct drawing d;
	const struct sim *sim;
};

/* The title line of one run, as the SVG's: its label, schedule, shape and figures. */
static void write_title(FILE *out, const struct page_run *row)
{
	const struct drawing *s = &row->d;
	char num[32];

	if (strcmp(row->label, "-") != 0) {
		report_xml_text(out, row->label);
		fputs(": ", out);
	}
	report_xml_text(out, drawing_name(s));
	fprintf(out, "  p=%d v=%d m=%d  makespan %s %s  bubble_ratio %.4f", s->sched->p,
	        s->sched->v, s->sched->m, REPORT_NUM(num, s->frame.makespan), s->time_unit,
	        s->frame.bubble_ratio);
}

/*
 * A run of more than HTML_PIECE ops or messages sends its ops, messages and slacks in pieces of
 * HTML_PIECE entries (the run's object says its "piece" and holds empty arrays), each a JSON
 * array in a data block of its own after the page's data, <script type="application/json"
 * data-ppsim-run="K" data-ppsim="ops|msgs|slack">, which the viewer parses (JSON.parse) and
 * removes as it reads it. A browser compiles a script of at most 2^29 - 24 characters: the
 * largest page ppsim writes, about 1 GiB of data, would not run as one script. And data in
 * scripts stays: Chromium keeps a compiled script's array literals (their boilerplate) as long
 * as it keeps the script, 1.15 GB of heap for the largest page, which every full garbage
 * collection then marked (a frame in about 480 took 130 to 530 ms); parsed data goes with
 * its block. A piece is at most about 15 MB.
 */
#define HTML_PIECE ((size_t)1 << 18)

/* Whether s's run goes in pieces. */
static bool pieced(const struct drawing *s)
{
	return s->sched->nops > HTML_PIECE || s->result->nmsgs > HTML_PIECE;
}

/* Where write_ops is in a run's ops: the device and the end of its ops so far. */
struct html_ops {
	const struct drawing *s;
	struct quantum q, aq;
	int d;
	pp_time t;
};

/* Ops [a, b) of c's run (after those before a), per op its kind | 4 when overlapped first,
 * micro-batch, stage, the gap after the previous op of its device and its duration in time
 * quanta, and its activation change in quanta, comma-separated; with streams (r->inner) then
 * the part of its span that is not compute, in time quanta. */
static void write_ops(struct wbuf *w, struct html_ops *c, size_t a, size_t b)
{
	const struct sched *sc = c->s->sched;
	const struct result *r = c->s->result;

	for (size_t i = a; i < b; i++) {
		while (i >= sc->dev_start[c->d + 1]) {
			c->d++;
			c->t = 0;
		}
		const struct op *op = &sc->ops[i];
		const struct op_time *ot = &r->times[i];
		int64_t act = drawing_act_change(c->s, op);
		bool second = i > sc->dev_start[c->d] && (op[-1].flags & OP_OVERLAP);
		char *p = wbuf_reserve(w, 7 * NUMFMT_MAX + 8);

		if (i > a)
			*p++ = ',';
		p += numfmt_u64(p, op->kind | (op->flags & OP_OVERLAP ? 4u : 0u));
		*p++ = ',';
		p += numfmt_u64(p, op->mb);
		*p++ = ',';
		p += numfmt_u64(p, op->stage);
		*p++ = ',';
		p += numfmt_i64(p, second ? 0 : quantum_div(&c->q, ot->start - c->t));
		*p++ = ',';
		p += numfmt_i64(p, quantum_div(&c->q, ot->end - ot->start));
		*p++ = ',';
		p += numfmt_i64(p, quantum_div(&c->aq, act));
		if (r->inner != NULL) {
			*p++ = ',';
			p += numfmt_i64(p, quantum_div(&c->q, r->inner[i]));
		}
		if ((i & 15) == 15)
			*p++ = '\n';
		wbuf_commit(w, p);
		c->t = ot->end > c->t ? ot->end : c->t;
	}
}

/* Messages [a, b) of s: per message its producer, consumer, delay after the producer's end and
 * transfer time in quanta q. */
static void write_msgs(struct wbuf *w, const struct drawing *s, const struct quantum *q, size_t a,
                       size_t b)
{
	const struct result *r = s->result;

	for (size_t k = a; k < b; k++) {
		const struct msg_record *g = &r->msgs[k];
		char *p = wbuf_reserve(w, 4 * NUMFMT_MAX + 8);

		if (k > a)
			*p++ = ',';
		p += numfmt_u64(p, g->from);
		*p++ = ',';
		p += numfmt_u64(p, g->to);
		*p++ = ',';
		p += numfmt_i64(p, quantum_div(q, g->start - r->times[g->from].end));
		*p++ = ',';
		p += numfmt_i64(p, quantum_div(q, g->end - g->start));
		if ((k & 15) == 15)
			*p++ = '\n';
		wbuf_commit(w, p);
	}
}

/* The slacks of ops [a, b) of s in quanta g. */
static void write_slacks(struct wbuf *w, const struct drawing *s, const struct quantum *g, size_t a,
                         size_t b)
{
	for (size_t i = a; i < b; i++) {
		if (i > a)
			wbuf_char(w, ',');
		wbuf_i64(w, quantum_div(g, s->slack[i]));
		if ((i & 15) == 15)
			wbuf_char(w, '\n');
	}
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* What write_streams's items read: the run, its stream items and its tick. */
struct html_spans {
	const struct page_run *run;
	const struct trace_stream_items *items;
	const struct numfmt_tick *tick; /* the run's tick, to write times in its unit */
	int at;                         /* the device of its thread's last item */
};

/* The most a device's head of streams takes (its numbers at their longest), and a stream item
 * (a head, or an op's spans, one a stream). */
#define SPANS_HEAD_MAX (64 + (2 * COMM_KINDS + 2) * (NUMFMT_MAX + 1))
#define SPAN_MAX       (3 * NUMFMT_MAX + 4)
#define SPANS_ITEM_MAX                                                                         \
	(SPANS_HEAD_MAX > STREAM_COUNT * SPAN_MAX + 4 ? SPANS_HEAD_MAX : STREAM_COUNT * SPAN_MAX + 4)
/* About what a stream item takes in a large run: an op's span on one stream. */
#define SPANS_ITEM_MEAN 28

/* Writes the numbers x[0..n-1] of a JSON array, after its '[', at p; returns the end. */
static char *put_numbers(char *p, const double *x, int n)
{
	for (int j = 0; j < n; j++) {
		if (j)
			*p++ = ',';
		p += numfmt_shortest(p, x[j]);
	}
	return p;
}

/* Device d's object up to its spans: its end, its last op's end, exposed and stream time by
 * kind. */
static char *spans_head(void *ctx, int d, unsigned lanes, char *p)
{
	const struct html_spans *h = ctx;
	const struct device_metrics *dm = &h->run->sim->metrics.devices[d];

	(void)lanes;
	if (d)
		PUT_LIT(p, ",\n");
	PUT_LIT(p, "{\"end\":");
	p += numfmt_shortest(p, dm->end);
	PUT_LIT(p, ",\"last\":");
	p += numfmt_ticks_at(p, h->run->d.result->devices[d].last_end, h->tick);
	PUT_LIT(p, ",\"exposed\":[");
	p = put_numbers(p, dm->exposed, COMM_KINDS);
	PUT_LIT(p, "],\"comm\":[");
	p = put_numbers(p, dm->comm, COMM_KINDS);
	PUT_LIT(p, "],\"spans\":[");
	return p;
}

/* A stream slice of the trace's walk as a span of the page (stream, start, end): an op's (or an
 * overlapped pair's) pieces on one stream, or a hooked piece; the exposed slice is the device's
 * "end" past its "last". */
static char *html_span(void *ctx, const struct trace_comm *c, char *p)
{
	const struct html_spans *h = ctx;

	if (c->what == TRACE_COMM_EXPOSED)
		return p;
	if (!c->first)
		*p++ = ',';
	p += numfmt_i64(p, c->tid - TRACE_STREAM_TID(0));
	*p++ = ',';
	p += numfmt_ticks_at(p, c->start, h->tick);
	*p++ = ',';
	p += numfmt_ticks_at(p, c->end, h->tick);
	return p;
}

static char *spans_tail(void *ctx, int d, char *p)
{
	(void)ctx;
	(void)d;
	PUT_LIT(p, "]}");
	return p;
}

static char *put_spans_item(void *ctx, size_t k, char *p)
{
	static const struct trace_stream_fns fns = {spans_head, html_span, spans_tail};
	struct html_spans *h = ctx;

	return trace_stream_item(h->items, &fns, ctx, &h->at, k, p);
}

/*
 * With communication streams: their names, the kinds', each device's end, exposed and stream
 * time by kind and its spans on the streams (one per op per stream over the op's own pieces,
 * one per hooked piece: stream, start, end), and the step taken apart.
 */
static int write_streams(struct wbuf *w, const struct page_run *run)
{
	const struct drawing *s = &run->d;
	const struct metrics *m = &run->sim->metrics;
	const struct step_breakdown *k = &m->breakdown;
	struct trace_walk tw;
	struct trace_stream_items items;
	struct numfmt_tick tick;
	struct html_spans h[WBUF_MAX_JOBS];
	char num[32];

	if (s->result->shapes == NULL && s->result->npieces == 0)
		return 0;
	numfmt_tick_init(&tick, s->tick);
	if (trace_walk_init(&tw, s) != 0)
		return -1;
	if (trace_stream_items_init(&items, &tw, false) != 0) {
		trace_walk_release(&tw);
		return -1;
	}
	WBUF_LIT(w, ",\n\"streamNames\":[");
	for (int st = 0; st < STREAM_COUNT; st++)
		wbuf_printf(w, "%s\"%s\"", st ? "," : "",
		            report_stream_name((enum comm_stream)st, num, sizeof(num)));
	WBUF_LIT(w, "],\"commKinds\":[");
	for (int j = 0; j < COMM_KINDS; j++)
		wbuf_printf(w, "%s\"%s\"", j ? "," : "", comm_kind_info((enum comm_kind)j)->name);
	WBUF_LIT(w, "],\n\"streams\":[");
	for (int t = 0; t < WBUF_MAX_JOBS; t++)
		h[t] = (struct html_spans){run, &items, &tick, -1};
	wbuf_put_items(w, items.n, SPANS_ITEM_MAX, SPANS_ITEM_MEAN, put_spans_item, h, sizeof(h[0]),
	               trace_walk_jobs(&tw));
	trace_stream_items_release(&items);
	trace_walk_release(&tw);
	wbuf_char(w, ']');
	if (!m->has_model)
		return 0;
	wbuf_printf(w, ",\n\"breakdown\":{\"device\":%d,\"compute\":%s", k->device,
	            REPORT_NUM(num, k->compute));
	wbuf_printf(w, ",\"bubble\":%s", REPORT_NUM(num, k->bubble));
	wbuf_printf(w, ",\"exposed_p2p\":%s,\"exposed\":[", REPORT_NUM(num, k->exposed_p2p));
	wbuf_commit(w, put_numbers(wbuf_reserve(w, COMM_KINDS * (NUMFMT_MAX + 1)), k->exposed,
	                           COMM_KINDS));
	wbuf_printf(w, "],\"optimizer\":%s", REPORT_NUM(num, k->optimizer));
	wbuf_printf(w, ",\"other\":%s", REPORT_NUM(num, k->other));
	wbuf_printf(w, ",\"step_time\":%s}", REPORT_NUM(num, m->step_time));
	return 0;
}

/* Whether s's run offloads activations: has copies that move an amount. */
static bool has_copies(const struct drawing *s)
{
	for (size_t k = 0; k < s->result->npieces; k++)
		if (s->result->pieces[k].amount != 0)
			return true;
	return false;
}

/*
 * With activation offload: the bytes of an activation quantum (with a model) and the copies,
 * per copy its device, start and duration in time quanta q and amount in activation quanta aq,
 * positive for a copy out to host memory, negative for one back, in the order issued. The page
 * follows the activations on the GPU and in host memory with them as the engine counts them
 * (struct device_result's peak_act and host_peak).
 */
static void write_copies(struct wbuf *w, const struct page_run *run, const struct quantum *q,
                         const struct quantum *aq)
{
	const struct result *r = run->d.result;
	bool first = true;

	if (run->sim != NULL && run->sim->cost->model != NULL) {
		WBUF_LIT(w, ",\n\"actBytes\":");
		wbuf_i64(w, aq->q);
	}
	WBUF_LIT(w, ",\n\"copies\":[");
	for (size_t k = 0; k < r->npieces; k++) {
		const struct piece_record *pr = &r->pieces[k];
		bool out = pr->kind == COMM_OFFLOAD;
		char *p;

		if (pr->amount == 0 || (pr->kind != COMM_OFFLOAD && pr->kind != COMM_RELOAD))
			continue;
		p = wbuf_reserve(w, 4 * NUMFMT_MAX + 8);
		if (!first)
			*p++ = ',';
		first = false;
		p += numfmt_u64(p, pr->dev);
		*p++ = ',';
		p += numfmt_i64(p, quantum_div(q, pr->start));
		*p++ = ',';
		p += numfmt_i64(p, quantum_div(q, pr->end - pr->start));
		*p++ = ',';
		p += numfmt_i64(p, quantum_div(aq, out ? pr->amount : -pr->amount));
		if ((k & 15) == 15)
			*p++ = '\n';
		wbuf_commit(w, p);
	}
	wbuf_char(w, ']');
}

/* One run's object of window.PPSIM.runs. */
static int write_run(FILE *out, const struct page_run *row, const struct html_quanta *hq)
{
	const struct drawing *s = &row->d;
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	const struct metrics *m = row->sim != NULL ? &row->sim->metrics : NULL;
	double tick = (double)s->tick;
	char buf[256], num[32];
	struct quantum q = hq->q, aq = hq->aq;
	struct html_ops c;
	struct wbuf w;
	pp_time end = s->frame.origin + (pp_time)(s->frame.makespan * tick + 0.5);
	bool copies = has_copies(s);

	fputs("{\"label\":", out);
	report_script_text(out, row->label);
	fputs(",\"schedule\":", out);
	report_script_text(out, drawing_name(s));
	fprintf(out, ",\"p\":%d,\"v\":%d,\"m\":%d,\"unit\":\"%s\",\"tick\":%.17g,\"origin\":%.17g",
	        sc->p, sc->v, sc->m, s->time_unit, tick / (double)q.q,
	        (double)s->frame.origin / (double)q.q);
	fprintf(out, ",\"makespan\":%s", REPORT_NUM(num, s->frame.makespan));
	fprintf(out, ",\"bubble_ratio\":%s,\"nops\":%zu,\n\"kindNames\":[",
	        REPORT_NUM(num, s->frame.bubble_ratio), sc->nops);
	for (int k = 0; k < 4; k++)
		fprintf(out, "%s\"%s\"", k ? "," : "", report_kind_summary((enum op_kind)k));
	fputs("],\"kindLetters\":[", out);
	for (int k = 0; k < 4; k++)
		fprintf(out, "%s\"%c\"", k ? "," : "", report_kind_letter((enum op_kind)k));
	fputs("],\"chunkOf\":[", out);
	for (int st = 0; st < sc->S; st++)
		fprintf(out, "%s%u", st ? "," : "", (unsigned)sc->stage_chunk[st]);
	fputs("],\"devStart\":[", out);
	for (int d = 0; d <= sc->p; d++)
		fprintf(out, "%s%zu", d ? "," : "", sc->dev_start[d]);
	/* with streams, each op's numbers end with its inner time (write_ops) */
	if (r->inner != NULL)
		fputs("],\"opStride\":7,\n\"devices\":[", out);
	else
		fputs("],\n\"devices\":[", out);
	for (int d = 0; d < sc->p; d++) {
		const struct device_result *dr = &r->devices[d];
		/* busy and waiting from the run's ticks, for a serving run as for a step (whose
		 * metrics hold the same figures); a serving run keeps no activations */
		const struct device_metrics *dm = m != NULL ? &m->devices[d] : NULL;
		bool ran = sc->dev_start[d + 1] > sc->dev_start[d];
		double busy = pp_time_to_units(dr->busy, s->tick);
		double fill = ran ? pp_time_to_units(dr->first_start - s->frame.origin, s->tick)
		                  : s->frame.makespan;
		double drain = ran ? pp_time_to_units(end - dr->last_end, s->tick) : 0;

		report_device_label(sc, d, buf, sizeof(buf));
		fputs(d ? ",\n{\"label\":" : "{\"label\":", out);
		report_script_text(out, buf);
		fprintf(out, ",\"busy\":%s", REPORT_NUM(num, busy));
		/* the report's idle where the run has metrics (from its ticks), else from the ticks */
		fprintf(out, ",\"idle\":%s",
		        REPORT_NUM(num, dm != NULL ? dm->idle
		                                   : pp_time_to_units(end - s->frame.origin - dr->busy,
		                                                      s->tick)));
		fprintf(out, ",\"fill\":%s", REPORT_NUM(num, fill > 0 ? fill : 0));
		fprintf(out, ",\"drain\":%s", REPORT_NUM(num, drain > 0 ? drain : 0));
		fprintf(out, ",\"comm_wait\":%s",
		        REPORT_NUM(num, pp_time_to_units(dr->comm_wait, s->tick)));
		/* a serving run keeps no activations: its page has no such column */
		if (dm != NULL)
			fprintf(out, ",\"peak_activations\":%s",
			        REPORT_NUM(num, dm->peak_activations));
		if (copies && dm != NULL && m->has_model)
			fprintf(out, ",\"activation_bytes\":%.17g,\"host_bytes\":%.17g",
			        dm->activation_bytes, dm->host_bytes);
		fputc('}', out);
	}
	fputs("],\n\"ops\":[", out);
	/* the arrays of numbers, a few per op and message, through the base layer's writer; here,
	 * or in pieces after the data (write_pieces) */
	wbuf_init(&w, out);
	c = (struct html_ops){.s = s, .q = q, .aq = aq};
	if (!pieced(s))
		write_ops(&w, &c, 0, sc->nops);
	WBUF_LIT(&w, "],\n\"msgs\":[");
	if (!pieced(s))
		write_msgs(&w, s, &q, 0, r->nmsgs);
	wbuf_char(&w, ']');
	if (s->slack != NULL) {
		WBUF_LIT(&w, ",\n\"slackTick\":");
		wbuf_g(&w, tick / (double)hq->slack.q, 17);
		WBUF_LIT(&w, ",\"slack\":[");
		if (!pieced(s))
			write_slacks(&w, s, &hq->slack, 0, sc->nops);
		wbuf_char(&w, ']');
	}
	if (pieced(s))
		wbuf_printf(&w, ",\n\"piece\":%zu", HTML_PIECE);
	if (row->sim != NULL && write_streams(&w, row) != 0) {
		wbuf_finish(&w);
		return -1;
	}
	if (copies)
		write_copies(&w, row, &q, &aq);
	wbuf_char(&w, '}');
	wbuf_finish(&w);
	return 0;
}

/* The data block of a piece of run k's array `what` (a JSON array). */
static void piece_begin(struct wbuf *w, int k, const char *what)
{
	wbuf_printf(w, "<script type=\"application/json\" data-ppsim-run=\"%d\" data-ppsim=\"%s\">[",
	            k, what);
}

static void piece_end(struct wbuf *w)
{
	WBUF_LIT(w, "]</script>\n");
}

/* The pieces of run k's ops, messages and slacks, a data block each, when it goes in pieces. */
static void write_pieces(FILE *out, const struct page_run *row, int k,
                         const struct html_quanta *hq)
{
	const struct drawing *s = &row->d;
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	struct html_ops c;
	struct wbuf w;

	if (!pieced(s))
		return;
	wbuf_init(&w, out);
	c = (struct html_ops){.s = s, .q = hq->q, .aq = hq->aq};
	for (size_t a = 0; a < sc->nops; a += HTML_PIECE) {
		piece_begin(&w, k, "ops");
		write_ops(&w, &c, a, min_size(sc->nops, a + HTML_PIECE));
		piece_end(&w);
	}
	for (size_t a = 0; a < r->nmsgs; a += HTML_PIECE) {
		piece_begin(&w, k, "msgs");
		write_msgs(&w, s, &hq->q, a, min_size(r->nmsgs, a + HTML_PIECE));
		piece_end(&w);
	}
	if (s->slack != NULL) {
		for (size_t a = 0; a < sc->nops; a += HTML_PIECE) {
			piece_begin(&w, k, "slack");
			write_slacks(&w, s, &hq->slack, a, min_size(sc->nops, a + HTML_PIECE));
			piece_end(&w);
		}
	}
	wbuf_finish(&w);
}

int report_html_sweep_header(FILE *out, const struct sweep *sw)
{
	write_head(out, "sweep");
	fputs("<h1>ppsim sweep</h1>\n<p class=\"sum\"><b id=\"points\"></b> points, <span "
	      "id=\"simulated\"></span> simulated. Each cell shows the best point with those two "
	      "values (the lowest of the figure, the highest for throughput, tokens/s, MFU "
	      "and utilization).</p>\n<div class=\"controls\"><label>rows <select "
	      "id=\"sy\"></select></label>"
	      "<label>columns <select id=\"sx\"></select></label><label>figure <select "
	      "id=\"metric\"></select></label></div>\n<div id=\"heat\"></div>\n<div "
	      "id=\"tip\"></div>\n",
	      out);
	write_tail(out);
	fputs("<script>\nwindow.PPSIM = {\"kind\":\"sweep\",\"axes\":[", out);
	for (int a = 0; a < sw->naxes; a++) {
		fputs(a ? ",\n{\"key\":" : "{\"key\":", out);
		report_script_text(out, sw->axes[a].opt->key);
		fputs(",\"label\":", out);
		report_script_text(out, sw->axes[a].label);
		fputs(",\"values\":[", out);
		for (int i = 0; i < sw->axes[a].nvalues; i++) {
			fputs(i ? "," : "", out);
			report_script_text(out, sw->axes[a].values[i]);
		}
		fputs("]}", out);
	}
	fputs("],\n\"points\":[\n", out);
	return 0;
}

int report_html_sweep_record(FILE *out, const struct sweep *sw, const struct sweep_record *r,
                             bool first)
{
	fputs(first ? "{\"at\":[" : ",\n{\"at\":[", out);
	for (int a = 0; a < sw->naxes; a++)
		fprintf(out, "%s%d", a ? "," : "", sweep_value(sw, r, a));
	fputs("],\"record\":", out);
	report_sweep_json_record(out, sw, r);
	fputc('}', out);
	return 0;
}

int report_html_sweep_footer(FILE *out)
{
	fputs("]};\n</script>\n<script>\n", out);
	write_lines(out, report_html_js);
	fputs("</script>\n</body>\n</html>\n", out);
	return 0;
}

/* The requests of a serving run, per request [arrival, admitted, first token, finish] in time
 * units, then its prompt and output tokens. */
static void write_requests(FILE *out, const struct serve_run *r)
{
	struct numfmt_tick tick; /* the times' rate, worked out once */
	struct wbuf w;

	numfmt_tick_init(&tick, r->tick);
	wbuf_init(&w, out);
	WBUF_LIT(&w, ",\n\"requests\":[");
	for (size_t i = 0; i < r->nreq; i++) {
		const struct serve_request_result *q = &r->req[i];
		char *p = wbuf_reserve(&w, 6 * NUMFMT_MAX + 8);

		if (i)
			*p++ = ',';
		p += numfmt_ticks_at(p, q->arrival, &tick);
		*p++ = ',';
		p += numfmt_ticks_at(p, q->admitted, &tick);
		*p++ = ',';
		p += numfmt_ticks_at(p, q->first_token, &tick);
		*p++ = ',';
		p += numfmt_ticks_at(p, q->finish, &tick);
		*p++ = ',';
		p += numfmt_u64(p, q->prompt);
		*p++ = ',';
		p += numfmt_u64(p, q->output);
		if ((i & 15) == 15)
			*p++ = '\n';
		wbuf_commit(&w, p);
	}
	wbuf_char(&w, ']');
	wbuf_finish(&w);
}

/* The page of rows[0..n-1]; serve, when not NULL, is the serving run of the one row. */
/* The histogram's size: its bins and its plot in pixels. */
#define HIST_BINS   40
#define HIST_WIDTH  720
#define HIST_HEIGHT 90

/* x to six significant digits. */
static const char *six(char *buf, size_t n, double x)
{
	snprintf(buf, n, "%.6g", x);
	return buf;
}

/* A vertical line at step x of the histogram over [lo, hi], with its label. */
static void hist_mark(FILE *out, double lo, double hi, double x, const char *what,
                      const char *dash, int row)
{
	double px = 40 + (hi > lo ? (x - lo) / (hi - lo) : 0.5) * HIST_WIDTH;
	char num[32];

	fprintf(out,
	        "<line x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" y2=\"%d\" stroke=\"#1a1a1a\" "
	        "stroke-width=\"1.5\" stroke-dasharray=\"%s\"/><text x=\"%.1f\" y=\"%d\" "
	        "font-size=\"11\" text-anchor=\"middle\">%s %s</text>\n",
	        px, px, 10 + HIST_HEIGHT, dash, px, 22 + HIST_HEIGHT + 13 * row, what,
	        six(num, sizeof(num), x));
}

/*
 * The distribution of each run's step over its noise samples: a histogram per run on one axis,
 * with the deterministic step, the mean and the p99 marked, and the figures in a table for
 * those who do not read pictures.
 */
static void write_samples(FILE *out, const struct page_run *rows, int n)
{
	double lo = HUGE_VAL, hi = -HUGE_VAL;
	char a[32], b[32], c[32], d[32], e[32];

	for (int i = 0; i < n; i++) {
		const struct samples *x = rows[i].sim != NULL ? rows[i].sim->samples : NULL;
		double step = x != NULL ? sample_step(&rows[i].sim->metrics) : 0;

		for (uint64_t j = 0; x != NULL && j < x->n; j++) {
			lo = x->s[j].step < lo ? x->s[j].step : lo;
			hi = x->s[j].step > hi ? x->s[j].step : hi;
		}
		if (x != NULL) {
			lo = step < lo ? step : lo;
			hi = step > hi ? step : hi;
		}
	}
	if (lo > hi)
		return;
	fputs("<h2>Step over the noise samples</h2>\n", out);
	for (int i = 0; i < n; i++) {
		const struct sim *s = rows[i].sim;
		const struct samples *x = s != NULL ? s->samples : NULL;
		uint64_t bins[HIST_BINS] = {0}, top = 1;
		struct sample_stats st;

		if (x == NULL || x->n == 0 || samples_stats(x, true, &st) != 0)
			continue;
		for (uint64_t j = 0; j < x->n; j++) {
			int k = hi > lo ? (int)((x->s[j].step - lo) / (hi - lo) * HIST_BINS) : 0;

			k = k < 0 ? 0 : k >= HIST_BINS ? HIST_BINS - 1 : k;
			bins[k]++;
		}
		for (int k = 0; k < HIST_BINS; k++)
			top = bins[k] > top ? bins[k] : top;
		fputs("<p class=\"sum\">", out);
		/* the rows' labels tell compare's rows apart; one run's is a placeholder */
		if (n > 1) {
			report_xml_text(out, rows[i].label);
			fputs(" ", out);
		}
		report_xml_text(out, drawing_name(&rows[i].d));
		fprintf(out, ": %" PRIu64 " samples (seed %" PRIu64 ")</p>\n", x->n, s->config.seed);
		fprintf(out,
		        "<svg role=\"img\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">"
		        "<title>Histogram of the step of %" PRIu64 " noise samples of ",
		        HIST_WIDTH + 80, HIST_HEIGHT + 64, HIST_WIDTH + 80, HIST_HEIGHT + 64, x->n);
		report_xml_text(out, drawing_name(&rows[i].d));
		fputs("</title>\n", out);
		for (int k = 0; k < HIST_BINS; k++) {
			double h = (double)bins[k] / (double)top * HIST_HEIGHT;

			if (bins[k] > 0)
				fprintf(out,
				        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				        "fill=\"#3b6fb6\"><title>%" PRIu64 " samples</title></rect>\n",
				        40 + (double)k * HIST_WIDTH / HIST_BINS, 10 + HIST_HEIGHT - h,
				        (double)HIST_WIDTH / HIST_BINS - 1, h, bins[k]);
		}
		fprintf(out,
		        "<line x1=\"40\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#1a1a1a\"/>\n",
		        10 + HIST_HEIGHT, 40 + HIST_WIDTH, 10 + HIST_HEIGHT);
		hist_mark(out, lo, hi, sample_step(&s->metrics), "step", "4 3", 0);
		hist_mark(out, lo, hi, st.mean, "mean", "none", 1);
		hist_mark(out, lo, hi, st.p99, "p99", "1 2", 2);
		fputs("</svg>\n", out);
		fprintf(out,
		        "<table class=\"stats\"><tr><th>step (%s)</th><th>deterministic</th>"
		        "<th>mean</th><th>p50</th><th>p90</th><th>p99</th></tr><tr><td>samples</td>"
		        "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr></table>\n",
		        s->cost->time_unit, six(a, sizeof(a), sample_step(&s->metrics)),
		        six(b, sizeof(b), st.mean), six(c, sizeof(c), st.p50),
		        six(d, sizeof(d), st.p90), six(e, sizeof(e), st.p99));
	}
}

static int write_page(FILE *out, const struct page_run *rows, int n,
                      const struct serve_run *serve)
{
	struct html_quanta *hq = pp_mallocarray((size_t)n, sizeof(*hq));

	if (hq == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		if (html_quanta_of(&rows[i].d, &hq[i]) != 0) {
			free(hq);
			return -1;
		}
	write_head(out, n > 1 ? "schedules compared" : drawing_name(&rows[0].d));
	fprintf(out, "<h1>%s</h1>\n",
	        serve != NULL ? "ppsim serve"
	        : n > 1       ? "ppsim: schedules compared"
	                      : "ppsim run");
	for (int i = 0; i < n; i++) {
		fputs("<p class=\"sum\">", out);
		write_title(out, &rows[i]);
		fputs("</p>\n", out);
	}
	fputs("<div class=\"controls\"><button id=\"fit\">fit</button><button id=\"zin\" "
	      "aria-label=\"zoom in\">+</button><button id=\"zout\" aria-label=\"zoom out\">"
	      "&minus;</button><label><input type=\"checkbox\" id=\"arrows\" checked> arrows</label>"
	      "<span><b id=\"opcount\"></b> ops</span><span id=\"window\"></span></div>\n"
	      "<div id=\"legend\"></div>\n<p id=\"help\" class=\"sum\">Keys: W/S zoom, A/D pan, 0 "
	      "fits; Ctrl+wheel or a pinch zooms at the pointer, a drag or a sideways wheel pans. On the "
	      "focused timeline the arrow keys select an op (left and right along its device, up and "
	      "down to the next device), Home and End a device's first and last op, F zooms to it; "
	      "its details show under the timeline. The tables below hold each device's figures.</p>\n"
	      "<div class=\"wrap\"><div id=\"space\"><canvas id=\"timeline\" tabindex=\"0\" "
	      "role=\"application\" aria-roledescription=\"timeline\" aria-label=\"Timeline of the "
	      "ops of each device\" aria-describedby=\"help\"></canvas></div>\n<div id=\"foot\">"
	      "<p id=\"details\" role=\"status\" aria-live=\"polite\"></p><canvas id=\"strip\" "
	      "aria-hidden=\"true\"></canvas></div></div>\n<div id=\"tip\" role=\"tooltip\"></div>\n"
	      "<h2>Bubble by device</h2>\n<div id=\"bubbles\"></div>\n",
	      out);
	if (serve == NULL)
		write_samples(out, rows, n);
	write_tail(out);
	fputs("<script>\nwindow.PPSIM = {\"kind\":\"", out);
	fputs(serve != NULL ? "serve" : n > 1 ? "compare" : "run", out);
	fputs("\",\"runs\":[\n", out);
	for (int i = 0; i < n; i++) {
		if (i > 0)
			fputs(",\n", out);
		if (write_run(out, &rows[i], &hq[i]) != 0) {
			free(hq);
			return -1;
		}
	}
	fputc(']', out);
	if (serve != NULL)
		write_requests(out, serve);
	fputs("};\n</script>\n", out);
	for (int i = 0; i < n; i++)
		write_pieces(out, &rows[i], i, &hq[i]);
	free(hq);
	fputs("<script>\n", out);
	write_lines(out, report_html_js);
	fputs("</script>\n</body>\n</html>\n", out);
	return 0;
}

/* The page of n runs, each training row's (rows, when not NULL) or serving row's (serving). */
static int write_rows(FILE *out, const struct report_row *rows, const struct serve_row *serving,
                      int n)
{
	struct page_run *runs = pp_mallocarray((size_t)n, sizeof(*runs));
	int rc;

	if (runs == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		runs[i] = rows != NULL ? (struct page_run){rows[i].label, sim_drawing(rows[i].sim),
		                                           rows[i].sim}
		                       : (struct page_run){serving[i].label,
		                                           serve_drawing(serving[i].run), NULL};
	rc = write_page(out, runs, n, NULL);
	free(runs);
	return rc;
}

int report_html(FILE *out, const struct report_row *rows, int n)
{
	return write_rows(out, rows, NULL, n);
}

int report_html_serve(FILE *out, const struct serve_run *r)
{
	struct page_run run = {"-", serve_drawing(r), NULL};

	return write_page(out, &run, 1, r);
}

int report_html_serving(FILE *out, const struct serve_row *rows, int n)
{
	return write_rows(out, NULL, rows, n);
}
