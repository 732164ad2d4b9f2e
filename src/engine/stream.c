/*
 * The engine's communication streams (DESIGN.md, Round three: streams): one mechanism for every
 * kind of communication beside the pipeline's messages. Each device has STREAM_COUNT streams; a
 * piece issued on one starts when the stream is free (first come, first served) and holds it
 * for its duration. Compute goes on meanwhile, slowed by the cost's slowdown while a piece of
 * its device is in flight (communication kernels take some of the SMs); compute that has to
 * wait for a piece, and communication that outlasts a device's last op, is that piece kind's
 * exposed time.
 *
 * Pieces come in two forms (include/ppsim/cost.h). A plan is an op's own pieces, all ended by
 * the op's end: its times do not depend on the run, so it is evaluated here once per stage and
 * kind, and the sweep runs the op at the plan's duration like any other. A hook depends on the
 * run: gradient buckets issued during a stage's last weight-gradient op, parameter gathers
 * issued at the step's start that its first forward waits for, and what a device issues after
 * its last op; those are priced as the ops that carry them run (stream_op_end), and recorded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* A piece in flight while a plan is evaluated: where it runs and what it is. */
struct flight {
	pp_time start, end;
	uint8_t kind;
};

/*
 * Runs compute of length need from *t while the pieces fl[0..n) may be in flight: at full rate
 * outside them, 1 + slow times as long inside; the extra time counts as exposed time of the
 * piece kind it overlapped.
 */
static void compute_through(const struct flight *fl, size_t n, double slow, pp_time need,
                            pp_time *t, pp_time *exposed)
{
	while (need > 0) {
		pp_time until = *t, next = -1;
		int kind = -1;

		for (size_t i = 0; i < n; i++) {
			if (fl[i].start <= *t && fl[i].end > until) {
				until = fl[i].end;
				kind = fl[i].kind;
			} else if (fl[i].start > *t && (next < 0 || fl[i].start < next)) {
				next = fl[i].start;
			}
		}
		if (kind >= 0 && slow > 0) {
			pp_time span = until - *t;
			pp_time stretched = need + (pp_time)llround((double)need * slow);

			if (stretched <= span) {
				exposed[kind] += stretched - need;
				*t += stretched;
				return;
			}
			/* the part of the compute that fits before the piece ends */
			pp_time done = (pp_time)floor((double)span / (1 + slow));

			exposed[kind] += span - done;
			need -= done;
			*t = until;
			continue;
		}
		if (next < 0 || *t + need <= next) {
			*t += need;
			return;
		}
		need -= next - *t;
		*t = next;
	}
}

int stream_plan_eval(const struct piece_plan *pl, double slow, struct stream_shape *out,
                     struct pp_error *err)
{
	size_t issues = 0, k = 0;
	struct flight *fl;
	pp_time t = 0, free_at[STREAM_COUNT] = {0};

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < pl->n; i++)
		issues += pl->steps[i].what == PIECE_ISSUE;
	fl = pp_mallocarray(issues > 0 ? issues : 1, sizeof(*fl));
	if (fl == NULL)
		return pp_nomem(err, issues, sizeof(*fl));
	for (size_t i = 0; i < pl->n; i++) {
		const struct piece_step *st = &pl->steps[i];

		switch ((enum piece_step_kind)st->what) {
		case PIECE_COMPUTE:
			out->compute += st->dur;
			compute_through(fl, k, slow, st->dur, &t, out->exposed);
			break;
		case PIECE_ISSUE: {
			enum comm_stream s = comm_kind_info((enum comm_kind)st->kind)->stream;
			pp_time at = free_at[s] > t ? free_at[s] : t;

			fl[k++] = (struct flight){at, at + st->dur, st->kind};
			free_at[s] = at + st->dur;
			out->comm[st->kind] += st->dur;
			break;
		}
		case PIECE_WAIT:
			if (st->piece >= k) {
				free(fl);
				return pp_fail(err, PP_ERR_CONFIG,
				               "internal error: a piece plan waits for a piece it has "
				               "not issued");
			}
			if (fl[st->piece].end > t) {
				out->exposed[fl[st->piece].kind] += fl[st->piece].end - t;
				t = fl[st->piece].end;
			}
			break;
		}
	}
	for (size_t i = 0; i < k; i++)
		if (fl[i].end > t) { /* a plan's pieces end with its op: waited for at the end */
			out->exposed[fl[i].kind] += fl[i].end - t;
			t = fl[i].end;
		}
	out->dur = t;
	out->npieces = k;
	out->pieces = pp_mallocarray(k > 0 ? k : 1, sizeof(*out->pieces));
	if (out->pieces == NULL) {
		free(fl);
		return pp_nomem(err, k, sizeof(*out->pieces));
	}
	for (size_t i = 0; i < k; i++)
		out->pieces[i] = (struct piece_span){fl[i].start, fl[i].end, fl[i].kind};
	free(fl);
	return 0;
}

/* Records a hooked piece of device d: its place in the result, growing the record. */
static int record(struct engine *e, uint32_t d, uint8_t kind, pp_time start, pp_time end)
{
	struct streams *sm = &e->sm;

	if (sm->nrec == sm->cap) {
		size_t cap = sm->cap ? 2 * sm->cap : 64;
		struct piece_record *r = realloc(e->res.pieces, cap * sizeof(*r));

		if (r == NULL)
			return -1;
		e->res.pieces = r;
		sm->cap = cap;
	}
	e->res.pieces[sm->nrec++] = (struct piece_record){d, kind, start, end};
	e->res.npieces = sm->nrec;
	return 0;
}

/* Puts a hooked piece of kind and duration on device d's stream at time at; its end. */
static pp_time issue(struct engine *e, uint32_t d, uint8_t kind, pp_time dur, pp_time at)
{
	pp_time *free_at = &e->sm.free[(size_t)d * STREAM_COUNT +
	                               comm_kind_info((enum comm_kind)kind)->stream];
	pp_time start = *free_at > at ? *free_at : at;

	*free_at = start + dur;
	e->res.devices[d].comm[kind] += dur;
	if (record(e, d, kind, start, start + dur) != 0)
		e->sm.nomem = true;
	return start + dur;
}

int stream_init(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	const struct cost_pieces *pc = e->c->pieces;
	struct streams *sm = &e->sm;
	size_t S = (size_t)s->S, gathers = 0;
	unsigned plan_streams = 0;

	sm->dur = pp_mallocarray(3 * S, sizeof(*sm->dur));
	sm->extra = pp_calloc(S, sizeof(*sm->extra));
	sm->free = pp_calloc((size_t)s->p * STREAM_COUNT, sizeof(*sm->free));
	sm->count = pp_calloc(2 * S, sizeof(*sm->count));
	sm->gate_wait = pp_calloc((size_t)s->p, sizeof(*sm->gate_wait));
	e->res.shapes = pc != NULL ? pp_calloc(3 * S, sizeof(*e->res.shapes)) : NULL;
	if (sm->dur == NULL || sm->extra == NULL || sm->free == NULL || sm->count == NULL || sm->gate_wait == NULL ||
	    (pc != NULL && e->res.shapes == NULL))
		return pp_nomem(err, 3 * S, sizeof(struct stream_shape));
	for (size_t st = 0; st < S; st++) {
		pp_time t[3] = {e->c->t_f[st], e->c->t_b[st], e->c->t_w[st]};

		for (int k = 0; k < 3; k++)
			sm->dur[3 * st + k] = t[k];
	}
	if (pc == NULL)
		return 0;
	e->res.nshapes = 3 * S;
	for (size_t i = 0; i < 3 * S; i++) {
		struct stream_shape *sh = &e->res.shapes[i];

		if (pc->plan[i].n == 0) {
			sh->dur = sh->compute = sm->dur[i];
			continue;
		}
		if (stream_plan_eval(&pc->plan[i], pc->slowdown, sh, err) != 0)
			return -1;
		sm->dur[i] = sh->dur;
		sm->extra[i / 3] += sh->dur - sh->compute;
	}
	/* a plan's times hold only if no hook puts anything on the streams plans use */
	for (size_t i = 0; i < 3 * S; i++)
		for (size_t j = 0; j < pc->plan[i].n; j++)
			if (pc->plan[i].steps[j].what == PIECE_ISSUE)
				plan_streams |= 1u << comm_kind_info(pc->plan[i].steps[j].kind)->stream;
	for (size_t st = 0; st < S; st++) {
		const struct piece_hooks *hk[2] = {&pc->grads[st], &pc->gather[st]};

		gathers += pc->gather[st].n;
		for (int j = 0; j < 2; j++)
			for (size_t i = 0; i < hk[j]->n; i++)
				if (plan_streams >> comm_kind_info(hk[j]->h[i].kind)->stream & 1)
					return pp_fail(err, PP_ERR_CONFIG,
					               "internal error: a hooked piece shares its "
					               "stream with an op's own pieces");
	}
	sm->gather_end = pp_mallocarray(gathers > 0 ? gathers : 1, sizeof(*sm->gather_end));
	sm->gather_first = pp_mallocarray(S + 1, sizeof(*sm->gather_first));
	if (sm->gather_end == NULL || sm->gather_first == NULL)
		return pp_nomem(err, gathers, sizeof(*sm->gather_end));
	for (size_t st = 0, g = 0; st <= S; st++) {
		sm->gather_first[st] = g;
		g += st < S ? pc->gather[st].n : 0;
	}
	/* every device issues its stages' gathers at the step's start, stages in order */
	for (int d = 0; d < s->p; d++)
		for (size_t st = 0; st < S; st++)
			if ((int)s->stage_device[st] == d)
				for (size_t i = 0; i < pc->gather[st].n; i++)
					sm->gather_end[sm->gather_first[st] + i] =
					        issue(e, (uint32_t)d, pc->gather[st].h[i].kind,
					              pc->gather[st].h[i].dur, 0);
	if (sm->nomem)
		return pp_nomem(err, gathers, sizeof(struct piece_record));
	return 0;
}

unsigned stream_hooked(const struct engine *e, uint32_t st)
{
	const struct cost_pieces *pc = e->c->pieces;
	unsigned kinds = 0;

	if (pc != NULL && pc->gather[st].n > 0)
		kinds |= 1u << OP_F;
	if (pc != NULL && pc->grads[st].n > 0)
		kinds |= 1u << OP_W | 1u << OP_BW;
	return kinds;
}

pp_time stream_op_end(struct engine *e, uint32_t d, const struct op *op, pp_time start,
                      pp_time dur)
{
	const struct cost_pieces *pc = e->c->pieces;
	uint32_t st = op->stage, *nf = &e->sm.count[2 * (size_t)st];
	uint32_t *nw = nf + 1;
	pp_time end = start + dur;

	if (op->kind == OP_F && (*nf)++ == 0 && pc->gather[st].n > 0) {
		/* the first forward reaches each gather's share, then waits for it */
		const struct piece_hooks *g = &pc->gather[st];
		pp_time t = start, ready;
		double prev = 0;

		for (size_t i = 0; i < g->n; i++) {
			t += (pp_time)llround((g->h[i].at - prev) * (double)dur);
			prev = g->h[i].at;
			ready = e->sm.gather_end[e->sm.gather_first[st] + i];
			if (ready > t) {
				e->res.devices[d].exposed[g->h[i].kind] += ready - t;
				e->sm.gate_wait[d] += ready - t;
				t = ready;
			}
		}
		end = t + (dur - (pp_time)llround(prev * (double)dur));
	}
	if ((op->kind == OP_W || op->kind == OP_BW) && ++*nw == e->s->route_mbs)
		for (size_t i = 0; i < pc->grads[st].n; i++) {
			const struct piece_hook *h = &pc->grads[st].h[i];

			issue(e, d, h->kind, h->dur, start + (pp_time)llround(h->at * (double)(end - start)));
		}
	return end;
}

/* The time device d's hooked pieces overlapped [from, to), from their records. */
static pp_time overlap_with(const struct engine *e, uint32_t d, pp_time from, pp_time to)
{
	pp_time sum = 0;

	for (size_t i = 0; i < e->sm.nrec; i++) {
		const struct piece_record *r = &e->res.pieces[i];
		pp_time a = r->start > from ? r->start : from, b = r->end < to ? r->end : to;

		if (r->dev == d && b > a)
			sum += b - a;
	}
	return sum;
}

int stream_finish(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	const struct cost_pieces *pc = e->c->pieces;

	for (int d = 0; d < s->p; d++) {
		struct device_result *dr = &e->res.devices[d];
		pp_time end = dr->last_end, extra = 0;

		if (pc != NULL) {
			/* the compute of the schedule took longer while hooked pieces ran beside it */
			pp_time slowed = (pp_time)llround(
			        pc->slowdown *
			        (double)overlap_with(e, (uint32_t)d, dr->first_start, dr->last_end));

			for (size_t i = 0; i < pc->after[d].n; i++)
				issue(e, (uint32_t)d, pc->after[d].h[i].kind, pc->after[d].h[i].dur,
				      dr->last_end);
			end += slowed;
			for (int k = 0; k < STREAM_COUNT; k++)
				if (e->sm.free[(size_t)d * STREAM_COUNT + k] > end)
					end = e->sm.free[(size_t)d * STREAM_COUNT + k];
			/* what ran past the last op is the hooked kind's: DP's */
			dr->exposed[COMM_DP] += end - dr->last_end;
			/* each stage runs the micro-batches of its route */
			for (size_t st = 0; st < (size_t)s->S; st++)
				if ((int)s->stage_device[st] == d) {
					extra += (pp_time)s->route_mbs * e->sm.extra[st];
					for (int x = 0; x < 3; x++)
						for (int k = 0; k < COMM_KINDS; k++) {
							const struct stream_shape *sh =
							        &e->res.shapes[3 * st + (size_t)x];

							dr->exposed[k] += (pp_time)s->route_mbs *
							                  sh->exposed[k];
							dr->comm[k] +=
							        (pp_time)s->route_mbs * sh->comm[k];
						}
				}
			/* busy is compute: an op's own exposed pieces and its gather waits apart */
			dr->busy -= extra + e->sm.gate_wait[d];
		}
		dr->end = end;
		if (end > e->res.step_end)
			e->res.step_end = end;
	}
	if (e->sm.nomem)
		return pp_nomem(err, e->sm.cap, sizeof(struct piece_record));
	return 0;
}

void stream_release(struct engine *e)
{
	free(e->sm.dur);
	free(e->sm.extra);
	free(e->sm.free);
	free(e->sm.count);
	free(e->sm.gather_end);
	free(e->sm.gather_first);
	free(e->sm.gate_wait);
	memset(&e->sm, 0, sizeof(e->sm));
}
