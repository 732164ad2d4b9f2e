/*
 * Piece plans and overlapped pairs (CONTRIBUTING.md, rule 7: pieces), for the streams of
 * stream.c: an op's own pieces, whose times do not depend on the run, evaluated once per stage
 * and kind (stream_plan_eval), and the shapes of the overlapped forward-backward pairs, two
 * ops' plans sharing a device's compute and streams (stream_pairs_init, stream_pair).
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
 * The pieces a plan (or a pair) has issued, fl[0..n), and of them those that may still matter,
 * live[0..nlive) in the order issued: the ones not over by the evaluation's time, which only
 * grows, so that a piece over is dropped from live once and for all and a plan of many pieces
 * (a layer's collectives, thousands of layers) is evaluated in time linear in them.
 */
struct flights {
	struct flight *fl;
	size_t n;
	size_t *live, nlive;
};

/* Issues x as the next piece. */
static void flights_issue(struct flights *f, struct flight x)
{
	f->live[f->nlive++] = f->n;
	f->fl[f->n++] = x;
}

/* Drops from f->live the pieces over by time t. */
static void flights_prune(struct flights *f, pp_time t)
{
	size_t k = 0;

	for (size_t i = 0; i < f->nlive; i++)
		if (f->fl[f->live[i]].end > t)
			f->live[k++] = f->live[i];
	f->nlive = k;
}

/*
 * Stalls compute from *t until piece w of fl[0..n) ends. The stall is charged to the kinds of
 * the pieces w's stream runs meanwhile (those queued ahead of it, then w itself), so that a
 * kind waiting behind another kind's collectives on a shared stream (context parallelism's
 * exchanges behind tensor parallelism's) is not charged for them: no kind's exposed time
 * exceeds what its pieces ran.
 */
static void wait_piece(struct flights *f, size_t w, pp_time *t, pp_time *exposed)
{
	const struct flight *fl = f->fl;
	enum comm_stream s = comm_kind_info((enum comm_kind)fl[w].kind)->stream;
	pp_time end = fl[w].end, others = 0;

	if (end <= *t)
		return;
	flights_prune(f, *t); /* a piece over by now overlaps nothing from now on */
	for (size_t i = 0; i < f->nlive; i++) {
		size_t j = f->live[i];
		pp_time a = fl[j].start > *t ? fl[j].start : *t;
		pp_time b = fl[j].end < end ? fl[j].end : end;

		if (j != w && b > a && comm_kind_info((enum comm_kind)fl[j].kind)->stream == s) {
			exposed[fl[j].kind] += b - a;
			others += b - a;
		}
	}
	exposed[fl[w].kind] += end - *t - others;
	*t = end;
}

/*
 * Runs compute of length need from *t while the pieces fl[0..n) may be in flight: at full rate
 * outside them, 1 + slow times as long inside; the extra time counts as exposed time of the
 * piece kind it overlapped.
 */
static void compute_through(struct flights *f, double slow, pp_time need, pp_time *t,
                            pp_time *exposed)
{
	const struct flight *fl = f->fl;

	while (need > 0) {
		pp_time until = *t, next = -1;
		int kind = -1;

		flights_prune(f, *t);
		for (size_t j = 0; j < f->nlive; j++) {
			size_t i = f->live[j];

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

/* Waits for piece w as wait_piece does, and records the stall in stalls[*n] when there is one. */
static void wait_stall(struct flights *f, size_t w, pp_time *t, pp_time *exposed,
                       struct flight *stalls, size_t *nstalls)
{
	pp_time from = *t;

	wait_piece(f, w, t, exposed);
	if (*t > from)
		stalls[(*nstalls)++] = (struct flight){from, *t, f->fl[w].kind};
}

/* Adds span sp to the extent of its kind's stream in x, its bit to *streams. */
static void extend(struct stream_extent *x, unsigned *streams, const struct piece_span *sp)
{
	enum comm_stream st = comm_kind_info((enum comm_kind)sp->kind)->stream;

	x += st;
	x->lo = x->n == 0 || sp->start < x->lo ? sp->start : x->lo;
	x->hi = x->n == 0 || sp->end > x->hi ? sp->end : x->hi;
	x->busy += sp->end - sp->start;
	x->kinds |= 1u << sp->kind;
	x->n++;
	*streams |= 1u << st;
}

int stream_plan_eval(const struct piece_plan *pl, double slow, struct stream_shape *out,
                     struct pp_error *err)
{
	size_t issues = 0, waits = 0, nstalls = 0;
	struct flight *fl, *stalls;
	struct flights f;
	pp_time t = 0, free_at[STREAM_COUNT] = {0};

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < pl->n; i++) {
		issues += pl->steps[i].what == PIECE_ISSUE;
		waits += pl->steps[i].what == PIECE_WAIT;
	}
	/* the pieces, then the stalls: one a wait at most, and one a piece at the end */
	fl = pp_mallocarray(issues + waits + issues > 0 ? issues + waits + issues : 1, sizeof(*fl));
	f = (struct flights){fl, 0, pp_mallocarray(issues > 0 ? issues : 1, sizeof(size_t)), 0};
	if (fl == NULL || f.live == NULL) {
		free(fl);
		free(f.live);
		return pp_nomem(err, issues + waits + issues, sizeof(*fl));
	}
	stalls = fl + issues;
	for (size_t i = 0; i < pl->n; i++) {
		const struct piece_step *st = &pl->steps[i];

		switch ((enum piece_step_kind)st->what) {
		case PIECE_COMPUTE:
			out->compute += st->dur;
			compute_through(&f, slow, st->dur, &t, out->exposed);
			break;
		case PIECE_ISSUE: {
			enum comm_stream s = comm_kind_info((enum comm_kind)st->kind)->stream;
			pp_time at = free_at[s] > t ? free_at[s] : t;

			flights_issue(&f, (struct flight){at, at + st->dur, st->kind});
			free_at[s] = at + st->dur;
			out->comm[st->kind] += st->dur;
			break;
		}
		case PIECE_WAIT:
			if (st->piece >= f.n) {
				free(fl);
				free(f.live);
				return pp_fail(err, PP_ERR_CONFIG,
				               "internal error: a piece plan waits for a piece it has "
				               "not issued");
			}
			wait_stall(&f, st->piece, &t, out->exposed, stalls, &nstalls);
			break;
		}
	}
	for (size_t i = 0; i < f.n; i++) /* a plan's pieces end with its op: waited for at the end */
		wait_stall(&f, i, &t, out->exposed, stalls, &nstalls);
	free(f.live);
	out->dur = t;
	out->npieces = f.n;
	out->nstalls = nstalls;
	out->pieces = pp_mallocarray(f.n + nstalls > 0 ? f.n + nstalls : 1, sizeof(*out->pieces));
	if (out->pieces == NULL) {
		free(fl);
		return pp_nomem(err, f.n + nstalls, sizeof(*out->pieces));
	}
	out->stalls = out->pieces + f.n;
	for (size_t i = 0; i < f.n; i++) {
		out->pieces[i] = (struct piece_span){fl[i].start, fl[i].end, fl[i].kind};
		extend(out->extent, &out->streams, &out->pieces[i]);
	}
	for (size_t i = 0; i < nstalls; i++) {
		out->stalls[i] = (struct piece_span){stalls[i].start, stalls[i].end, stalls[i].kind};
		extend(out->stall_extent, &out->stall_streams, &out->stalls[i]);
	}
	free(fl);
	return 0;
}

/* One op of an overlapped pair as a list of steps: its plan's, or one compute step. */
struct thread {
	struct piece_step *steps;
	size_t n, pos;
	uint32_t issued;  /* its ISSUE steps so far */
	size_t *map;      /* its piece numbers to the pair's flights */
};

/* Appends plan pl (or one compute step of plain when it has none) to th, its piece numbers
 * after the th->issued... already there. */
static void thread_add(struct thread *th, const struct piece_plan *pl, pp_time plain,
                       uint32_t *issues)
{
	uint32_t base = *issues;

	if (pl->n == 0) {
		if (plain > 0)
			th->steps[th->n++] = (struct piece_step){.what = PIECE_COMPUTE, .dur = plain};
		return;
	}
	for (size_t i = 0; i < pl->n; i++) {
		struct piece_step st = pl->steps[i];

		if (st.what == PIECE_WAIT)
			st.piece += base;
		*issues += st.what == PIECE_ISSUE;
		th->steps[th->n++] = st;
	}
}

/* Compute before a thread's first ISSUE: the thread that issues sooner starts the pair. */
static pp_time before_issue(const struct thread *th)
{
	pp_time t = 0;

	for (size_t i = 0; i < th->n && th->steps[i].what != PIECE_ISSUE; i++)
		if (th->steps[i].what == PIECE_COMPUTE)
			t += th->steps[i].dur;
	return t;
}

/*
 * Evaluates an overlapped pair (CONTRIBUTING.md, rule 7: pieces): the two ops' steps share the
 * device's compute and its streams. One compute piece runs at a time; a thread runs until it
 * must wait for a piece still in flight, and then the other runs if it can: so one op's
 * communication runs beside the other's compute. When neither can run, the time until the
 * first awaited piece ends is exposed, that piece's kind's. The pair ends when both ops have
 * and every piece it issued has.
 */
static int pair_eval(struct thread th[2], double slow, struct pair_shape *out,
                     struct pp_error *err)
{
	size_t total = th[0].issued + th[1].issued;
	struct flight *fl = pp_mallocarray(total > 0 ? total : 1, sizeof(*fl));
	struct flights f = {fl, 0, pp_mallocarray(total > 0 ? total : 1, sizeof(size_t)), 0};
	pp_time t = 0, free_at[STREAM_COUNT] = {0};
	int cur = before_issue(&th[1]) < before_issue(&th[0]) ? 1 : 0;
	uint32_t done[2] = {0, 0};

	if (fl == NULL || f.live == NULL) {
		free(fl);
		free(f.live);
		return pp_nomem(err, total, sizeof(*fl));
	}
	memset(out->exposed, 0, sizeof(out->exposed));
	memset(out->comm, 0, sizeof(out->comm));
	out->compute = 0;
	for (;;) {
		int run = -1;

		for (int j = 0; j < 2 && run < 0; j++) {
			int c = j == 0 ? cur : 1 - cur;
			const struct piece_step *st = &th[c].steps[th[c].pos];

			if (th[c].pos < th[c].n &&
			    (st->what != PIECE_WAIT || fl[th[c].map[st->piece]].end <= t))
				run = c;
		}
		if (run < 0) {
			pp_time next = -1;
			size_t first = 0;

			for (int c = 0; c < 2; c++)
				if (th[c].pos < th[c].n) {
					size_t i = th[c].map[th[c].steps[th[c].pos].piece];

					if (next < 0 || fl[i].end < next) {
						next = fl[i].end;
						first = i;
					}
				}
			if (next < 0)
				break; /* both done */
			wait_piece(&f, first, &t, out->exposed);
			continue;
		}
		cur = run;
		{
			const struct piece_step *st = &th[run].steps[th[run].pos++];

			if (st->what == PIECE_COMPUTE) {
				out->compute += st->dur;
				compute_through(&f, slow, st->dur, &t, out->exposed);
			} else if (st->what == PIECE_ISSUE) {
				enum comm_stream s = comm_kind_info((enum comm_kind)st->kind)->stream;
				pp_time at = free_at[s] > t ? free_at[s] : t;

				th[run].map[done[run]++] = f.n;
				flights_issue(&f, (struct flight){at, at + st->dur, st->kind});
				free_at[s] = at + st->dur;
				out->comm[st->kind] += st->dur;
			}
		}
	}
	for (size_t i = 0; i < f.n; i++)
		wait_piece(&f, i, &t, out->exposed);
	out->dur = t;
	out->set = true;
	free(fl);
	free(f.live);
	return 0;
}

/* The index of the pair of forward f and backward b in sm->pair. */
static size_t pair_index(const struct sched *s, const struct op *f, const struct op *b)
{
	return ((size_t)f->stage * (size_t)s->v + s->stage_chunk[b->stage]) * 2 +
	       (b->kind == OP_BW);
}

const struct pair_shape *stream_pair(const struct engine *e, const struct op *f,
                                     const struct op *b)
{
	if (e->sm.pair == NULL)
		return NULL;
	return &e->sm.pair[pair_index(e->s, f, b)];
}

/* Prices every overlapped pair shape of the schedule from its two ops' plans, and counts the
 * ops that run alone. */
int stream_pairs_init(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	const struct cost_pieces *pc = e->c->pieces;
	struct streams *sm = &e->sm;
	size_t S = (size_t)s->S, most = 0;
	struct thread th[2];
	int rc = 0;

	sm->pair = pp_calloc(S * (size_t)s->v * 2, sizeof(*sm->pair));
	sm->alone = pp_calloc(3 * S, sizeof(*sm->alone));
	if (sm->pair == NULL || sm->alone == NULL)
		return pp_nomem(err, S * (size_t)s->v * 2, sizeof(*sm->pair));
	for (size_t i = 0; i < 3 * S; i++)
		most = pc->plan[i].n > most ? pc->plan[i].n : most;
	for (int j = 0; j < 2; j++) {
		th[j].steps = pp_mallocarray(2 * most + 2, sizeof(*th[j].steps));
		th[j].map = pp_mallocarray(2 * most + 2, sizeof(*th[j].map));
	}
	if (th[0].steps == NULL || th[1].steps == NULL || th[0].map == NULL || th[1].map == NULL)
		rc = pp_nomem(err, 2 * most + 2, sizeof(*th[0].steps));
	for (size_t i = 0; rc == 0 && i < s->nops; i++) {
		const struct op *op = &s->ops[i];
		struct pair_shape *ps;

		if (!(op->flags & OP_OVERLAP) || i + 1 >= s->nops ||
		    (op[1].kind != OP_B && op[1].kind != OP_BW) || op->kind != OP_F) {
			if (op->kind == OP_BW) {
				sm->alone[3 * (size_t)op->stage + 1]++;
				sm->alone[3 * (size_t)op->stage + 2]++;
			} else {
				sm->alone[3 * (size_t)op->stage + op->kind]++;
			}
			continue;
		}
		ps = &sm->pair[pair_index(s, op, op + 1)];
		ps->count++;
		if (!ps->set) {
			uint32_t issues = 0;
			size_t f = 3 * (size_t)op->stage, b = 3 * (size_t)op[1].stage;

			th[0] = (struct thread){th[0].steps, 0, 0, 0, th[0].map};
			th[1] = (struct thread){th[1].steps, 0, 0, 0, th[1].map};
			thread_add(&th[0], &pc->plan[f], sm->dur[f], &issues);
			th[0].issued = issues;
			issues = 0;
			thread_add(&th[1], &pc->plan[b + 1], sm->dur[b + 1], &issues);
			if (op[1].kind == OP_BW)
				thread_add(&th[1], &pc->plan[b + 2], sm->dur[b + 2], &issues);
			th[1].issued = issues;
			rc = pair_eval(th, pc->slowdown, ps, err);
		}
		i++; /* the backward is the pair's */
	}
	for (int j = 0; j < 2; j++) {
		free(th[j].steps);
		free(th[j].map);
	}
	return rc;
}
