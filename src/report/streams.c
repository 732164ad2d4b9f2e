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

/* Calls fn for each span of device d's ops' shapes, op by op, placed at the op's start (a
 * fused backward's W after its B): their pieces, or their stalls (stalls), which an
 * overlapped pair's ops have not as their shapes give them (the pair runs its two plans
 * together). */
static void walk_shapes(const struct drawing *s, int d, bool stalls, report_piece_fn *fn,
                        void *ctx)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;

	for (size_t i = sc->dev_start[d]; r->shapes != NULL && r->times != NULL &&
	                                  i < sc->dev_start[d + 1];
	     i++) {
		const struct op *op = &sc->ops[i];
		int first = op->kind == OP_BW ? 1 : op->kind == OP_F ? 0 : op->kind == OP_B ? 1 : 2;
		int last = op->kind == OP_BW ? 2 : first;
		pp_time at = r->times[i].start, total = 0, waits = r->inner != NULL ? r->inner[i] : 0;
		bool pair = (op->flags & OP_OVERLAP) ||
		            (i > sc->dev_start[d] && (op[-1].flags & OP_OVERLAP));
		double scale = 1;
		/* the op's end, or the later of an overlapped pair's two (they share their slot) */
		pp_time end = r->times[i].end;

		if ((op->flags & OP_OVERLAP) && i + 1 < sc->dev_start[d + 1] &&
		    r->times[i + 1].end > end)
			end = r->times[i + 1].end;
		if (i > sc->dev_start[d] && (op[-1].flags & OP_OVERLAP) && r->times[i - 1].end > end)
			end = r->times[i - 1].end;

		if (stalls && pair)
			continue;
		/* a straggler stretches the whole op, its pieces' offsets with it: when the op waited
		 * for nothing outside its plans (no gathers, no activations coming back), they are
		 * scaled to its span */
		for (int x = first; x <= last; x++) {
			const struct stream_shape *sh = shape_of(s, op, x);

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
			continue;
		pp_time past = 0; /* the op's shapes before this one */

		for (int x = first; x <= last; x++) {
			const struct stream_shape *sh = shape_of(s, op, x);
			const struct piece_span *sp = sh == NULL ? NULL : stalls ? sh->stalls : sh->pieces;
			size_t n = sh == NULL ? 0 : stalls ? sh->nstalls : sh->npieces;

			for (size_t j = 0; j < n; j++) {
				struct report_piece pc = {
				        at + (pp_time)llround((double)(past + sp[j].start) * scale),
				        at + (pp_time)llround((double)(past + sp[j].end) * scale),
				        sp[j].kind, i};

				/* what a scale cannot place (an op that waited, a pair, under a
				 * straggler that shortened it) stays inside its op */
				pc.start = pc.start < end ? pc.start : end;
				pc.end = pc.end < end ? pc.end : end;
				fn(ctx, &pc);
			}
			if (sh != NULL)
				past += sh->dur;
		}
	}
}

void report_device_stalls(const struct drawing *s, int d, report_piece_fn *fn, void *ctx)
{
	walk_shapes(s, d, true, fn, ctx);
}

void report_device_pieces(const struct drawing *s, int d, report_piece_fn *fn, void *ctx)
{
	const struct result *r = s->result;

	walk_shapes(s, d, false, fn, ctx);
	for (size_t j = 0; j < r->npieces; j++)
		if (r->pieces[j].dev == (uint32_t)d) {
			struct report_piece pc = {r->pieces[j].start, r->pieces[j].end,
			                          r->pieces[j].kind, SIZE_MAX};

			fn(ctx, &pc);
		}
}

static void mark_stream(void *ctx, const struct report_piece *pc)
{
	unsigned *bits = ctx;

	if (pc->end > pc->start)
		*bits |= 1u << comm_kind_info((enum comm_kind)pc->kind)->stream;
}

unsigned report_device_streams(const struct drawing *s, int d)
{
	unsigned bits = 0;

	report_device_pieces(s, d, mark_stream, &bits);
	return bits;
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
