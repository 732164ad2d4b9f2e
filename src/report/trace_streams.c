/*
 * The communication streams of a trace (trace_walk.h): per device its stream tracks, one slice
 * per op (or overlapped pair) per stream over that op's own pieces, one per hooked piece, and
 * the "exposed" slice, as items the writers (the Chrome and Perfetto traces, the HTML page's
 * spans) format on several threads (trace_stream_items).
 */
#include "trace_walk.h"

#include <stdlib.h>
#include <string.h>

#include "ppsim/util.h"
#include "formats.h"

/* The names of the kinds of bits joined by '+' into buf ("tp+cp"). */
static const char *kind_names(unsigned bits, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int k = 0; k < COMM_KINDS && len < n; k++)
		if (bits >> k & 1)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len > 0 ? "+" : "",
			                        comm_kind_info((enum comm_kind)k)->name);
	return buf;
}

/* Where an item's slices are written: the writer's functions and context, the end so far, and
 * whether the next slice is its device's first. */
struct slice_out {
	const struct trace_stream_fns *f;
	void *ctx;
	char *p;
	bool first;
};

/* Writes slice c (its first flag set from out, but for the exposed slice) at out's end. */
static void put_slice(struct slice_out *out, struct trace_comm *c)
{
	if (c->what != TRACE_COMM_EXPOSED) {
		c->first = out->first;
		out->first = false;
	}
	out->p = out->f->slice(out->ctx, c, out->p);
}

/* Adds to acc the pieces of the unit op i of device d begins, by stream: its own, with an
 * overlapped pair's second op's; none when op i is a pair's second. */
static void unit_spans(const struct drawing *s, int d, size_t i, bool busy,
                       struct report_span *acc)
{
	const struct sched *sc = s->sched;

	if (i > sc->dev_start[d] && (sc->ops[i - 1].flags & OP_OVERLAP))
		return;
	report_op_spans(s, d, i, busy, acc);
	if ((sc->ops[i].flags & OP_OVERLAP) && i + 1 < sc->dev_start[d + 1])
		report_op_spans(s, d, i + 1, busy, acc);
}

/*
 * Hands to out the slices, one per stream in stream order, of the unit op i of device d begins:
 * its own pieces, with an overlapped pair's second op's (the two's pieces interleave on a
 * stream: a slice each would overlap on one track), from the first piece's start to the last
 * one's end, with how many pieces and how long they held the stream. An overlapped pair's second
 * op begins none. names holds each set of kinds' names.
 */
static void unit_slices(const struct trace_walk *w, int d, size_t i, bool busy,
                        const char (*names)[TRACE_KINDS_NAME], struct slice_out *out)
{
	struct report_span acc[STREAM_COUNT] = {{0}};

	unit_spans(w->s, d, i, busy, acc);
	for (int st = 0; st < STREAM_COUNT; st++)
		if (acc[st].n > 0) {
			struct trace_comm c = {.d = d,
			                       .tid = TRACE_STREAM_TID(st),
			                       .name = names[acc[st].kinds],
			                       .kinds = acc[st].kinds,
			                       .cat = "comm",
			                       .start = acc[st].lo,
			                       .end = acc[st].hi,
			                       .what = TRACE_COMM_OP,
			                       .op = i,
			                       .pieces = acc[st].n,
			                       .busy = acc[st].busy};

			put_slice(out, &c);
		}
}

/* Hands hooked piece j (a bucket, a gather, the reduction after the last op) to out. */
static void hooked_slice(const struct trace_walk *w, size_t j,
                         const char (*names)[TRACE_KINDS_NAME], struct slice_out *out)
{
	const struct piece_record *g = &w->s->result->pieces[j];
	struct trace_comm c = {.d = (int)g->dev,
	                       .tid = TRACE_STREAM_TID(comm_kind_info((enum comm_kind)g->kind)->stream),
	                       .name = names[1u << g->kind],
	                       .kinds = 1u << g->kind,
	                       .cat = "comm",
	                       .start = g->start,
	                       .end = g->end,
	                       .what = TRACE_COMM_HOOKED,
	                       .op = SIZE_MAX};

	put_slice(out, &c);
}

/* Hands device d's "exposed" slice to out, on its compute track from its last op to its end,
 * when its streams ran past its last op. */
static void exposed_slice(const struct trace_walk *w, int d, struct slice_out *out)
{
	const struct device_result *dr = &w->s->result->devices[d];
	struct trace_comm c = {.d = d,
	                       .tid = 0,
	                       .name = "exposed",
	                       .cat = "exposed",
	                       .start = dr->last_end,
	                       .end = dr->end,
	                       .what = TRACE_COMM_EXPOSED,
	                       .op = SIZE_MAX};

	if (dr->end > dr->last_end)
		put_slice(out, &c);
}

/* Fills names with the names of every set of kinds. */
static void all_kind_names(char (*names)[TRACE_KINDS_NAME])
{
	for (unsigned bits = 0; bits < 1u << COMM_KINDS; bits++)
		kind_names(bits, names[bits], TRACE_KINDS_NAME);
}

const char *trace_walk_track_name(enum comm_stream st, char *buf, size_t n)
{
	size_t len = strlen(report_stream_name(st, buf, n));

	snprintf(buf + len, n - len, " stream");
	return buf;
}

/* The item of device d's first slice, SIZE_MAX for none: its first op whose unit has pieces,
 * else its first hooked piece's (a search that mostly stops at its first op). */
static size_t first_slice(const struct trace_stream_items *it, int d)
{
	const struct drawing *s = it->w->s;
	const struct sched *sc = s->sched;

	if (it->lanes[d] == 0)
		return SIZE_MAX;
	for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
		struct report_span acc[STREAM_COUNT] = {{0}};

		unit_spans(s, d, i, false, acc);
		for (int st = 0; st < STREAM_COUNT; st++)
			if (acc[st].n > 0)
				return it->base[d] + 1 + (i - sc->dev_start[d]);
	}
	return it->hstart[d + 1] > it->hstart[d]
	               ? it->base[d] + 1 + (sc->dev_start[d + 1] - sc->dev_start[d])
	               : SIZE_MAX;
}

int trace_stream_items_init(struct trace_stream_items *it, const struct trace_walk *w, bool busy)
{
	const struct sched *sc = w->s->sched;
	const struct result *r = w->s->result;
	size_t p = (size_t)sc->p;

	*it = (struct trace_stream_items){.w = w, .busy = busy};
	it->base = pp_mallocarray(2 * (p + 1) + p + r->npieces, sizeof(size_t));
	it->lanes = pp_mallocarray(p > 0 ? p : 1, sizeof(unsigned));
	if (it->base == NULL || it->lanes == NULL) {
		free(it->base);
		free(it->lanes);
		return -1;
	}
	it->hstart = it->base + p + 1;
	it->first = it->hstart + p + 1;
	it->hooked = it->first + p;
	/* the hooked pieces by device, each device's in the order issued */
	memset(it->hstart, 0, (p + 1) * sizeof(size_t));
	for (size_t j = 0; j < r->npieces; j++)
		if (r->pieces[j].dev < p)
			it->hstart[r->pieces[j].dev + 1]++;
	for (size_t d = 0; d < p; d++)
		it->hstart[d + 1] += it->hstart[d];
	memcpy(it->base, it->hstart, p * sizeof(size_t)); /* each device's next slot, till below */
	for (size_t j = 0; j < r->npieces; j++)
		if (r->pieces[j].dev < p)
			it->hooked[it->base[r->pieces[j].dev]++] = j;
	/* a head, the ops, the hooked pieces and a tail a device */
	it->base[0] = 0;
	for (size_t d = 0; d < p; d++) {
		it->lanes[d] = report_device_streams(w->s, (int)d);
		it->base[d + 1] = it->base[d] + 2 + (sc->dev_start[d + 1] - sc->dev_start[d]) +
		                  (it->hstart[d + 1] - it->hstart[d]);
	}
	it->n = it->base[p];
	all_kind_names(it->names);
	for (size_t d = 0; d < p; d++)
		it->first[d] = first_slice(it, (int)d);
	return 0;
}

void trace_stream_items_release(struct trace_stream_items *it)
{
	free(it->base);
	free(it->lanes);
	*it = (struct trace_stream_items){0};
}

/* The device whose items hold item k: *at's, or the next, else found by bisection; kept in
 * *at (items come mostly in order on a thread). */
static int device_of_item(const struct trace_stream_items *it, int *at, size_t k)
{
	size_t lo = 0, hi = (size_t)it->w->s->sched->p;

	if (*at >= 0 && (size_t)*at < hi && it->base[*at] <= k) {
		if (k < it->base[*at + 1])
			return *at;
		if ((size_t)*at + 1 < hi && k < it->base[*at + 2])
			return ++*at;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (it->base[mid] <= k)
			lo = mid;
		else
			hi = mid;
	}
	return *at = (int)lo;
}

char *trace_stream_item(const struct trace_stream_items *it, const struct trace_stream_fns *f,
                        void *ctx, int *at, size_t k, char *p)
{
	const struct trace_walk *w = it->w;
	const struct sched *sc = w->s->sched;
	size_t j, nops;
	int d = device_of_item(it, at, k);
	struct slice_out out = {f, ctx, p, k == it->first[d]};

	j = k - it->base[d];
	nops = sc->dev_start[d + 1] - sc->dev_start[d];
	if (j == 0)
		return f->head(ctx, d, it->lanes[d], p);
	if (it->lanes[d] != 0 && j <= nops)
		unit_slices(w, d, sc->dev_start[d] + j - 1, it->busy, it->names, &out);
	else if (it->lanes[d] != 0 && j - 1 - nops < it->hstart[d + 1] - it->hstart[d])
		hooked_slice(w, it->hooked[it->hstart[d] + j - 1 - nops], it->names, &out);
	else if (k + 1 == it->base[d + 1]) {
		if (it->lanes[d] != 0)
			exposed_slice(w, d, &out);
		return f->tail != NULL ? f->tail(ctx, d, out.p) : out.p;
	}
	return out.p;
}
