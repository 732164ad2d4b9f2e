/*
 * The communication streams of a run as the pictures draw them: where each device's pieces ran,
 * read from the result alone. An op's own pieces sit at its start plus its stream shape's
 * offsets (a fused backward runs its B's shape, then its W's); the hooked pieces (gradient
 * buckets, parameter gathers, the reduction after the last op) have their recorded times.
 */
#include <math.h>
#include <stdint.h>

#include "formats.h"

/* The shape of op's plan of kind x (0 F, 1 B, 2 W), or NULL when the run has none. */
static const struct stream_shape *shape_of(const struct drawing *s, const struct op *op, int x)
{
	const struct result *r = s->result;
	size_t i = 3 * (size_t)op->stage + (size_t)x;

	return r->shapes != NULL && i < r->nshapes ? &r->shapes[i] : NULL;
}

/* Where walk_shapes hands what it walks: each piece to piece, or (piece NULL) each op's pieces
 * on each stream gathered into one span to span. */
struct walk_out {
	report_piece_fn *piece;
	report_span_fn *span;
	void *ctx;
	const bool *stop; /* when set and true, the walk ends */
	bool busy;        /* spans need the time their pieces held the stream */
};

/* Adds the span of n pieces from lo to hi, busy for busy, of kinds to acc. */
static void span_add(struct report_span *acc, pp_time lo, pp_time hi, pp_time busy,
                     unsigned kinds, size_t n)
{
	acc->lo = acc->n == 0 || lo < acc->lo ? lo : acc->lo;
	acc->hi = acc->n == 0 || hi > acc->hi ? hi : acc->hi;
	acc->busy += busy;
	acc->kinds |= kinds;
	acc->n += n;
}

/* Hands each stream's span of op in acc (those with pieces) to out, and empties acc. */
static void span_flush(const struct walk_out *out, struct report_span *acc, size_t op)
{
	for (int st = 0; st < STREAM_COUNT; st++)
		if (acc[st].n > 0) {
			acc[st].op = op;
			acc[st].stream = (enum comm_stream)st;
			out->span(out->ctx, &acc[st]);
			acc[st] = (struct report_span){0};
		}
}

/* Where offset x of an op's plan falls in its span, its plan stretched by scale (a straggler):
 * rounded to the tick, x itself unstretched. Monotone in x. */
static inline pp_time place(pp_time x, double scale)
{
	return scale == 1 ? x : (pp_time)llround((double)x * scale);
}

/* Walks each piece of op i of device d's shapes, placed at the op's start (a fused backward's W
 * after its B): its pieces, or its stalls (stalls), which an overlapped pair's ops have not as
 * their shapes give them (the pair runs its two plans together); spans gather into acc. A
 * shape's stream whose pieces all fall in place unscaled is taken whole from its extent. */
static void op_walk(const struct drawing *s, int d, size_t i, bool stalls,
                    const struct walk_out *out, struct report_span *acc)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	const struct op *op = &sc->ops[i];
	int first = op->kind == OP_BW ? 1 : op->kind == OP_F ? 0 : op->kind == OP_B ? 1 : 2;
	int last = op->kind == OP_BW ? 2 : first;
	pp_time at = r->times[i].start, total = 0, waits = r->inner != NULL ? r->inner[i] : 0;
	bool pair = (op->flags & OP_OVERLAP) ||
	            (i > sc->dev_start[d] && (op[-1].flags & OP_OVERLAP));
	double scale = 1;
	/* the op's end, or the later of an overlapped pair's two (they share their slot) */
	pp_time end = r->times[i].end;
	const struct stream_shape *shape[3];

	if ((op->flags & OP_OVERLAP) && i + 1 < sc->dev_start[d + 1] &&
	    r->times[i + 1].end > end)
		end = r->times[i + 1].end;
	if (i > sc->dev_start[d] && (op[-1].flags & OP_OVERLAP) && r->times[i - 1].end > end)
		end = r->times[i - 1].end;

	if (stalls && pair)
		return;
	/* a straggler stretches the whole op, its pieces' offsets with it: when the op waited
	 * for nothing outside its plans (no gathers, no activations coming back), they are
	 * scaled to its span */
	for (int x = first; x <= last; x++) {
		const struct stream_shape *sh = shape[x] = shape_of(s, op, x);

		total += sh != NULL ? sh->dur : 0;
		waits -= sh != NULL ? sh->dur - sh->compute : 0;
	}
	if (!pair && waits == 0 && total > 0 && r->times[i].end - at != total)
		scale = (double)(r->times[i].end - at) / (double)total;
	/* a backward that waited for its activations coming back runs its plan after the
	 * wait; a first forward's waits for its gathers fall between its pieces, where its
	 * stalls cannot be placed */
	if (!pair && waits > 0 && op->kind != OP_F)
		at += waits;
	else if (stalls && waits > 0)
		return;
	pp_time past = 0; /* the op's shapes before this one */

	for (int x = first; x <= last; x++) {
		const struct stream_shape *sh = shape[x];
		const struct piece_span *sp = sh == NULL ? NULL : stalls ? sh->stalls : sh->pieces;
		size_t n = sh == NULL ? 0 : stalls ? sh->nstalls : sh->npieces;
		unsigned whole = 0; /* the streams taken from the extents */
		unsigned all = sh == NULL ? 0 : stalls ? sh->stall_streams : sh->streams;
		unsigned bits = out->piece == NULL && (scale == 1 || !out->busy) ? all : 0;
		const struct stream_extent *ext =
		        sh == NULL ? NULL : stalls ? sh->stall_extent : sh->extent;

		/* placing is monotone, and so is keeping inside the op: the first piece's start
		 * and the last one's end placed are the span's; the time held, a sum of the
		 * pieces' placed lengths, is the extent's only unscaled and unclipped */
		for (int st = 0; bits >> st != 0; st++) {
			const struct stream_extent *xt = &ext[st];
			pp_time lo, hi;

			if (!(bits >> st & 1))
				continue;
			lo = at + place(past + xt->lo, scale);
			hi = at + place(past + xt->hi, scale);
			if (!out->busy)
				span_add(&acc[st], lo < end ? lo : end, hi < end ? hi : end, 0,
				         xt->kinds, xt->n);
			else if (hi <= end)
				span_add(&acc[st], lo, hi, xt->busy, xt->kinds, xt->n);
			else
				continue;
			whole |= 1u << st;
		}
		if (whole != 0 && whole == all)
			n = 0; /* every piece taken */
		for (size_t j = 0; j < n; j++) {
			int st = (int)comm_kind_info((enum comm_kind)sp[j].kind)->stream;
			struct report_piece pc;

			if (whole >> st & 1)
				continue;
			pc = (struct report_piece){at + place(past + sp[j].start, scale),
			                           at + place(past + sp[j].end, scale), sp[j].kind, i};
			/* what a scale cannot place (an op that waited, a pair, under a
			 * straggler that shortened it) stays inside its op */
			pc.start = pc.start < end ? pc.start : end;
			pc.end = pc.end < end ? pc.end : end;
			if (out->piece != NULL)
				out->piece(out->ctx, &pc);
			else
				span_add(&acc[st], pc.start, pc.end, pc.end - pc.start,
				         1u << pc.kind, 1);
		}
		if (sh != NULL)
			past += sh->dur;
	}
}

/* op_walk over each op of device d in turn, each op's spans handed on after it. */
static void walk_shapes(const struct drawing *s, int d, const struct walk_out *out)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	struct report_span acc[STREAM_COUNT] = {{0}};

	for (size_t i = sc->dev_start[d]; r->shapes != NULL && r->times != NULL &&
	                                  i < sc->dev_start[d + 1];
	     i++) {
		op_walk(s, d, i, false, out, acc);
		span_flush(out, acc, i);
		if (out->stop != NULL && *out->stop)
			return;
	}
}

void report_op_spans(const struct drawing *s, int d, size_t i, bool busy,
                     struct report_span *acc)
{
	const struct result *r = s->result;

	if (r->shapes != NULL && r->times != NULL)
		op_walk(s, d, i, false, &(const struct walk_out){NULL, NULL, NULL, NULL, busy}, acc);
}

void report_op_stall_spans(const struct drawing *s, int d, size_t i, struct report_span *acc)
{
	const struct result *r = s->result;

	if (r->shapes != NULL && r->times != NULL)
		op_walk(s, d, i, true, &(const struct walk_out){NULL, NULL, NULL, NULL, true}, acc);
}

void report_op_stalls(const struct drawing *s, int d, size_t i, report_piece_fn *fn, void *ctx)
{
	const struct result *r = s->result;

	if (r->shapes != NULL && r->times != NULL)
		op_walk(s, d, i, true, &(const struct walk_out){fn, NULL, ctx, NULL, true}, NULL);
}

/* Hands device d's hooked pieces, in the order issued, to out. */
static void walk_hooked(const struct drawing *s, int d, const struct walk_out *out)
{
	const struct result *r = s->result;

	for (size_t j = 0; j < r->npieces; j++)
		if (r->pieces[j].dev == (uint32_t)d) {
			const struct piece_record *g = &r->pieces[j];
			struct report_piece pc = {g->start, g->end, g->kind, SIZE_MAX};
			struct report_span sp = {g->start,       g->end,
			                         g->end - g->start, 1u << g->kind,
			                         1,              SIZE_MAX,
			                         comm_kind_info((enum comm_kind)g->kind)->stream};

			if (out->piece != NULL)
				out->piece(out->ctx, &pc);
			else
				out->span(out->ctx, &sp);
		}
}

void report_op_pieces(const struct drawing *s, int d, size_t i, report_piece_fn *fn, void *ctx)
{
	const struct result *r = s->result;

	if (r->shapes != NULL && r->times != NULL)
		op_walk(s, d, i, false, &(const struct walk_out){fn, NULL, ctx, NULL, true}, NULL);
}

void report_device_hooked(const struct drawing *s, int d, report_piece_fn *fn, void *ctx)
{
	walk_hooked(s, d, &(const struct walk_out){fn, NULL, ctx, NULL, true});
}

/* The streams found so far and those that may be: once found all, the walk can stop. */
struct marks {
	unsigned bits, may;
	bool all;
};

static void mark_stream(void *ctx, const struct report_span *sp)
{
	struct marks *m = ctx;

	if (sp->busy > 0)
		m->bits |= 1u << sp->stream;
	m->all = m->bits == m->may;
}

unsigned report_device_streams(const struct drawing *s, int d)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	struct marks m = {0, 0, false};
	const struct walk_out out = {NULL, mark_stream, &m, &m.all, true};

	/* those of its stages' shapes and of its hooked pieces: a bound the walk soon meets, as
	 * it does unless a straggler or an overlapped pair squeezed some stream's pieces to
	 * nothing everywhere */
	for (size_t i = 0; r->shapes != NULL && r->times != NULL && i < r->nshapes; i++)
		if (i / 3 < (size_t)sc->S && (int)sc->stage_device[i / 3] == d)
			m.may |= r->shapes[i].streams;
	for (size_t j = 0; j < r->npieces; j++)
		if (r->pieces[j].dev == (uint32_t)d && r->pieces[j].end > r->pieces[j].start)
			m.may |= 1u << comm_kind_info((enum comm_kind)r->pieces[j].kind)->stream;
	if (m.may != 0)
		walk_shapes(s, d, &out);
	if (!m.all)
		walk_hooked(s, d, &out);
	return m.bits;
}

const char *report_stream_name(enum comm_stream st, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int k = 0; k < COMM_KINDS && len < n; k++)
		if (comm_kind_info((enum comm_kind)k)->stream == st)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len > 0 ? "/" : "",
			                        comm_kind_info((enum comm_kind)k)->name);
	return buf;
}

pp_time report_drawn_end(const struct result *r)
{
	return r->step_end > r->makespan ? r->step_end : r->makespan;
}
