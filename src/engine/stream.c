/*
 * The engine's communication streams (CONTRIBUTING.md, rule 7: streams): one mechanism for every
 * kind of communication beside the pipeline's messages. Each device has STREAM_COUNT streams; a
 * piece issued on one starts when the stream is free (first come, first served) and holds it
 * for its duration. Compute goes on meanwhile, slowed by the cost's slowdown while a piece of
 * its device is in flight (communication kernels take some of the SMs); compute that has to
 * wait for a piece, and communication that outlasts a device's last op, is that piece kind's
 * exposed time.
 *
 * Pieces come in two forms (include/ppsim/cost.h). A plan is an op's own pieces, all ended by
 * the op's end: its times do not depend on the run, so it is evaluated once per stage and kind
 * (plan.c, with the overlapped pairs' shapes), and the sweep runs the op at the plan's duration
 * like any other. A hook depends on the
 * run: gradient buckets issued during a stage's last weight-gradient op, parameter gathers
 * issued at the step's start that its first forward waits for, and what a device issues after
 * its last op; those are priced as the ops that carry them run (stream_op_end), and recorded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

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
	e->res.pieces[sm->nrec++] = (struct piece_record){d, kind, start, end, 0};
	e->res.npieces = sm->nrec;
	return 0;
}

/* Puts a hooked piece of kind and duration on device d's stream at time at; its end. */
static pp_time issue(struct engine *e, uint32_t d, uint8_t kind, pp_time dur, pp_time at)
{
	pp_time *free_at = &e->sm.free[(size_t)d * STREAM_COUNT +
	                               comm_kind_info((enum comm_kind)kind)->stream];
	pp_time start = *free_at > at ? *free_at : at;
	struct streams *sm = &e->sm;

	if (at > sm->tail_at[d]) { /* a later issue time: its pieces are the device's tail now */
		sm->tail_at[d] = at;
		sm->tail_rec[d] = sm->nrec;
		memcpy(&sm->tail_free[(size_t)d * STREAM_COUNT], &sm->free[(size_t)d * STREAM_COUNT],
		       STREAM_COUNT * sizeof(*sm->free));
	}
	*free_at = start + dur;
	e->res.devices[d].comm[kind] += dur;
	if (record(e, d, kind, start, start + dur) != 0)
		e->sm.nomem = true;
	return start + dur;
}

/* The offload's state: no copy back issued yet, and each op's prefetch: the next op of its
 * device when that is a backward whose stage offloads. Returns 0, or -1 when out of memory. */
static int offload_init(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	const struct piece_offload *o = e->c->pieces->offload;
	struct streams *sm = &e->sm;
	size_t n = (size_t)s->S * (size_t)s->m;

	sm->off_end = pp_calloc(n, sizeof(*sm->off_end));
	sm->rel_end = pp_mallocarray(n, sizeof(*sm->rel_end));
	sm->prefetch = pp_mallocarray_large(s->nops ? s->nops : 1, sizeof(*sm->prefetch));
	if (sm->off_end == NULL || sm->rel_end == NULL || sm->prefetch == NULL)
		return pp_nomem(err, n, 2 * sizeof(pp_time));
	for (size_t k = 0; k < n; k++)
		sm->rel_end[k] = sm->off_end[k] = -1;
	for (int d = 0; d < s->p; d++)
		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
			const struct op *op = &s->ops[i];
			const struct op *next = i + 1 < s->dev_start[d + 1] ? &s->ops[i + 1] : NULL;
			bool back = next != NULL && (next->kind == OP_B || next->kind == OP_BW) &&
			            o[next->stage].act > 0;

			/* a forward whose own backward comes next keeps its activations: a copy
			 * out and back could only delay it */
			if (op->kind == OP_F && back && next->stage == op->stage && next->mb == op->mb)
				sm->prefetch[i] = -2;
			else
				sm->prefetch[i] = back ? (int64_t)(i + 1) : -1;
		}
	return 0;
}
/* Issues stage st's parameter gathers on device d's stream at the step's start, unless they
 * are issued already. */
static void issue_gathers(struct engine *e, uint32_t d, uint32_t st)
{
	const struct piece_hooks *g = &e->c->pieces->gather[st];
	pp_time *end = e->sm.gather_end + e->sm.gather_first[st];

	for (size_t i = 0; i < g->n && end[i] < 0; i++)
		end[i] = issue(e, d, g->h[i].kind, g->h[i].dur, 0);
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
	sm->gather_wait = pp_calloc((size_t)s->p, sizeof(*sm->gather_wait));
	sm->reached = pp_calloc((size_t)s->p, sizeof(*sm->reached));
	sm->tail_at = pp_mallocarray((size_t)s->p, sizeof(*sm->tail_at));
	sm->tail_rec = pp_calloc((size_t)s->p, sizeof(*sm->tail_rec));
	sm->tail_free = pp_calloc((size_t)s->p * STREAM_COUNT, sizeof(*sm->tail_free));
	sm->pair_wait = pp_calloc((size_t)s->p, sizeof(*sm->pair_wait));
	e->res.shapes = pc != NULL ? pp_calloc(3 * S, sizeof(*e->res.shapes)) : NULL;
	e->res.inner = pc != NULL ? pp_calloc_large(s->nops ? s->nops : 1, sizeof(*e->res.inner))
	                          : NULL;
	if (sm->dur == NULL || sm->extra == NULL || sm->free == NULL || sm->count == NULL ||
	    sm->gate_wait == NULL || sm->gather_wait == NULL || sm->reached == NULL ||
	    sm->tail_at == NULL || sm->tail_rec == NULL || sm->tail_free == NULL ||
	    sm->pair_wait == NULL ||
	    (pc != NULL && (e->res.shapes == NULL || e->res.inner == NULL)))
		return pp_nomem(err, 3 * S, sizeof(struct stream_shape));
	for (int d = 0; d < s->p; d++)
		sm->tail_at[d] = -1;
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
	/* overlapped pairs run their two plans together, unless --overlap-factor prices them */
	if (s->overlap && !e->c->overlap_given && stream_pairs_init(e, err) != 0)
		return -1;
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
	/* every device issues its stages' gathers at the step's start, in the order its first
	 * forwards need them (stage order on a loop or a V, not on DualPipe's devices of the
	 * second half, whose first forward is of a later stage); a stage it never runs a forward
	 * of, after them; -1 marks a gather not issued yet */
	for (size_t g = 0; g < gathers; g++)
		sm->gather_end[g] = -1;
	for (int d = 0; gathers > 0 && d < s->p; d++) {
		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++)
			if (s->ops[i].kind == OP_F)
				issue_gathers(e, (uint32_t)d, s->ops[i].stage);
		for (size_t st = 0; st < S; st++)
			if ((int)s->stage_device[st] == d)
				issue_gathers(e, (uint32_t)d, (uint32_t)st);
	}
	if (sm->nomem)
		return pp_nomem(err, gathers, sizeof(struct piece_record));
	return pc->offload != NULL ? offload_init(e, err) : 0;
}

unsigned stream_hooked(const struct engine *e, uint32_t st)
{
	const struct cost_pieces *pc = e->c->pieces;
	unsigned kinds = 0;

	/* with offload every op of every stage moves activations, or brings some back */
	if (pc != NULL && pc->offload != NULL)
		return 1u << OP_F | 1u << OP_B | 1u << OP_W | 1u << OP_BW;
	if (pc != NULL && pc->gather[st].n > 0)
		kinds |= 1u << OP_F;
	if (pc != NULL && pc->grads[st].n > 0)
		kinds |= 1u << OP_W | 1u << OP_BW;
	return kinds;
}

/* The amount of activations the piece just issued (a copy to or from host memory) moved. */
static void copied(struct engine *e, int64_t amount)
{
	if (!e->sm.nomem && e->sm.nrec > 0)
		e->res.pieces[e->sm.nrec - 1].amount = amount;
}

/* Records an activation amount arriving (delta > 0) or leaving device d's GPU or host memory. */
static void moved(struct engine *e, uint32_t d, pp_time t, int64_t delta, bool host)
{
	struct streams *sm = &e->sm;

	if (delta == 0)
		return;
	if (sm->nmem == sm->capmem) {
		size_t cap = sm->capmem ? 2 * sm->capmem : 256;
		struct mem_event *m = realloc(sm->mem, cap * sizeof(*m));

		if (m == NULL) {
			sm->nomem = true;
			return;
		}
		sm->mem = m;
		sm->capmem = cap;
	}
	sm->mem[sm->nmem++] = (struct mem_event){t, delta, d, host};
}

/* Brings (stage, micro-batch) key's offloaded activations back to device d from time at (not
 * before their copy out ended), unless that is under way. */
static void bring_back(struct engine *e, uint32_t d, size_t key, const struct piece_offload *o,
                       pp_time at)
{
	struct streams *sm = &e->sm;
	pp_time done;

	if (sm->rel_end[key] >= 0 || sm->off_end[key] < 0)
		return; /* under way, or kept on the GPU */
	done = issue(e, d, COMM_RELOAD, o->in, sm->off_end[key] > at ? sm->off_end[key] : at);
	copied(e, o->act);
	moved(e, d, done - o->in, o->act, false);
	moved(e, d, done, -o->act, true);
	sm->rel_end[key] = done;
}

/*
 * What op (of device d, from start to end) does with offloaded activations: a forward keeps its
 * stage's activations and copies the offloaded share out as it ends; a backward waits for that
 * share to be back; each op starts bringing back the next op's, when that is a backward. Every
 * op's allocations and frees are recorded for the memory peaks. Returns the op's end.
 */
static pp_time offload_op(struct engine *e, uint32_t d, const struct op *op, pp_time start,
                          pp_time end)
{
	const struct sched *s = e->s;
	const struct piece_offload *o = e->c->pieces->offload;
	struct streams *sm = &e->sm;
	size_t i = (size_t)(op - s->ops), key = (size_t)op->stage * (size_t)s->m + op->mb;
	int64_t a = e->c->act != NULL ? e->c->act[op->stage] : 0;
	int64_t aw = e->c->act_w != NULL ? e->c->act_w[op->stage] : 0;

	if (op->kind == OP_F) {
		moved(e, d, start, a, false);
		if (o[op->stage].act > 0 && sm->prefetch[i] != -2) {
			pp_time done = issue(e, d, COMM_OFFLOAD, o[op->stage].out, end);

			copied(e, o[op->stage].act);
			moved(e, d, done - o[op->stage].out, o[op->stage].act, true);
			moved(e, d, done, -o[op->stage].act, false);
			sm->off_end[key] = done;
		}
	} else if (op->kind == OP_B || op->kind == OP_BW) {
		if (sm->off_end[key] >= 0) { /* it was offloaded */
			pp_time ready, copying, out;

			bring_back(e, d, key, &o[op->stage], start);
			ready = sm->rel_end[key];
			if (ready > start) {
				/* the wait is the copy back's while it runs; before it started, the
				 * copy out's while that ran, then the copies back queued before it */
				copying = ready - start < o[op->stage].in ? ready - start
				                                          : o[op->stage].in;
				out = sm->off_end[key] - start;
				out = out < 0 ? 0 : out < ready - start - copying ? out
				                                                 : ready - start - copying;
				e->res.devices[d].exposed[COMM_OFFLOAD] += out;
				e->res.devices[d].exposed[COMM_RELOAD] += ready - start - out;
				sm->gate_wait[d] += ready - start;
				e->res.inner[i] += ready - start;
				end += ready - start;
			}
		}
		moved(e, d, end, op->kind == OP_BW ? -a : -(a - aw), false);
	} else if (op->kind == OP_W) {
		moved(e, d, end, -aw, false);
	}
	if (sm->prefetch[i] >= 0) {
		const struct op *t = &s->ops[sm->prefetch[i]];


		bring_back(e, d, (size_t)t->stage * (size_t)s->m + t->mb, &o[t->stage], start);
	}
	return end;
}

/* Orders memory events by device, then time, frees before arrivals. */
static int cmp_mem(const void *a, const void *b)
{
	const struct mem_event *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->delta > y->delta) - (x->delta < y->delta);
}

/* The key an event is ordered by within its device: its time, then frees before arrivals
 * (among frees, or among arrivals, of one time the order moves no peak: each group only lowers
 * or only raises the sums). */
static inline uint64_t mem_key(const struct mem_event *m)
{
	return 2 * (uint64_t)m->t + (m->delta > 0);
}

/*
 * Orders the n events at mem by device, then mem_key, in passes of a radix sort (each stable:
 * the key's digits from the lowest, 11 bits at a time, then the device), through tmp[n]; false
 * when it cannot (a time below 0 or past 2^62, or out of memory for its counts), mem as it was.
 * Linear in n where qsort's comparisons took most of a run with offload.
 */
static bool sort_mem(struct mem_event *mem, struct mem_event *tmp, size_t n, uint32_t devices)
{
	enum { BITS = 11, BUCKETS = 1 << BITS };
	size_t nb = devices > BUCKETS ? devices : BUCKETS, *count = pp_calloc(nb + 1, sizeof(size_t));
	struct mem_event *from = mem, *to = tmp;
	uint64_t top = 0;

	for (size_t k = 0; k < n; k++) {
		if (mem[k].t < 0 || mem[k].t > (INT64_C(1) << 62) || mem[k].dev >= devices) {
			free(count);
			return false;
		}
		top |= mem_key(&mem[k]);
	}
	if (count == NULL)
		return false;
	/* the key's digits while any is left, then the device (digit -1) */
	for (int shift = 0;; shift += BITS) {
		bool dev = shift >= 64 || top >> shift == 0;
		size_t buckets = dev ? devices : BUCKETS, at = 0;
		struct mem_event *swap;

		memset(count, 0, (buckets + 1) * sizeof(size_t));
		for (size_t k = 0; k < n; k++)
			count[dev ? from[k].dev : mem_key(&from[k]) >> shift & (BUCKETS - 1)]++;
		for (size_t b = 0; b < buckets; b++) {
			size_t c = count[b];

			count[b] = at;
			at += c;
		}
		for (size_t k = 0; k < n; k++)
			to[count[dev ? from[k].dev : mem_key(&from[k]) >> shift & (BUCKETS - 1)]++] =
			        from[k];
		swap = from;
		from = to;
		to = swap;
		if (dev)
			break;
	}
	if (from != mem)
		memcpy(mem, from, n * sizeof(*mem));
	free(count);
	return true;
}

/* Each device's activation peak on the GPU and in host memory, from the recorded events. */
static void offload_peaks(struct engine *e)
{
	struct streams *sm = &e->sm;
	int64_t gpu = 0, host = 0;
	struct mem_event *tmp = pp_mallocarray(sm->nmem > 0 ? sm->nmem : 1, sizeof(*tmp));

	if (tmp == NULL || !sort_mem(sm->mem, tmp, sm->nmem, (uint32_t)e->s->p))
		qsort(sm->mem, sm->nmem, sizeof(*sm->mem), cmp_mem);
	free(tmp);
	for (int d = 0; d < e->s->p; d++)
		e->res.devices[d].peak_act = e->res.devices[d].host_peak = 0;
	for (size_t k = 0; k < sm->nmem; k++) {
		struct device_result *dr = &e->res.devices[sm->mem[k].dev];
		int64_t *x = sm->mem[k].host ? &host : &gpu;

		if (k == 0 || sm->mem[k].dev != sm->mem[k - 1].dev)
			gpu = host = 0;
		*x += sm->mem[k].delta;
		if (!sm->mem[k].host && gpu > dr->peak_act)
			dr->peak_act = gpu;
		if (sm->mem[k].host && host > dr->host_peak)
			dr->host_peak = host;
	}
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
				e->sm.gather_wait[d] += ready - t;
				e->res.inner[op - e->s->ops] += ready - t;
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
	return pc->offload != NULL ? offload_op(e, d, op, start, end) : end;
}

/* Adds to sum[d] the time each device d's hooked pieces overlapped its ops, from its first
 * op's start to its last one's end (copies, on their own engine, aside), from their records:
 * one pass over them. */
static void overlaps(const struct engine *e, pp_time *sum)
{
	for (size_t i = 0; i < e->sm.nrec; i++) {
		const struct piece_record *r = &e->res.pieces[i];
		const struct device_result *dr = &e->res.devices[r->dev];
		pp_time a = r->start > dr->first_start ? r->start : dr->first_start;
		pp_time b = r->end < dr->last_end ? r->end : dr->last_end;

		if (b > a && !comm_kind_info((enum comm_kind)r->kind)->copy_engine)
			sum[r->dev] += b - a;
	}
}

/* Adds to each op's res.inner (which holds its waits for gathers and copies back) the part of
 * its span its plan, or its pair's, does not compute: as stream_finish counts them per device. */
static void inner_plans(struct engine *e)
{
	const struct sched *s = e->s;
	const struct stream_shape *sh = e->res.shapes;

	for (size_t i = 0; i < s->nops; i++) {
		const struct op *op = &s->ops[i];
		size_t st = 3 * (size_t)op->stage;

		if (e->sm.pair != NULL && (op->flags & OP_OVERLAP) && i + 1 < s->nops &&
		    op->kind == OP_F && (op[1].kind == OP_B || op[1].kind == OP_BW)) {
			const struct pair_shape *ps = stream_pair(e, op, op + 1);

			e->res.inner[i] += ps->dur - ps->compute;
			i++;
			continue;
		}
		if (op->kind == OP_F || op->kind == OP_B || op->kind == OP_W) {
			e->res.inner[i] += sh[st + op->kind].dur - sh[st + op->kind].compute;
		} else {
			e->res.inner[i] += sh[st + 1].dur - sh[st + 1].compute;
			e->res.inner[i] += sh[st + 2].dur - sh[st + 2].compute;
		}
	}
}

/* The end of what device d has issued on its streams, from not before t. */
static pp_time streams_end(const struct engine *e, int d, pp_time t)
{
	for (int k = 0; k < STREAM_COUNT; k++)
		if (e->sm.free[(size_t)d * STREAM_COUNT + k] > t)
			t = e->sm.free[(size_t)d * STREAM_COUNT + k];
	return t;
}

/*
 * Issues again, by more, the pieces device d issued at its last op's end (tail_at), which the
 * slowdown makes that much later: each on its stream from when it is free of what came before
 * them, as issue placed them.
 */
static void shift_tail(struct engine *e, uint32_t d, pp_time by)
{
	struct streams *sm = &e->sm;
	pp_time *free_at = &sm->free[(size_t)d * STREAM_COUNT];

	memcpy(free_at, &sm->tail_free[(size_t)d * STREAM_COUNT], STREAM_COUNT * sizeof(*free_at));
	for (size_t i = sm->tail_rec[d]; i < sm->nrec; i++) {
		struct piece_record *r = &e->res.pieces[i];
		pp_time *f, dur = r->end - r->start, start;

		if (r->dev != d)
			continue;
		f = &free_at[comm_kind_info((enum comm_kind)r->kind)->stream];
		start = *f > sm->tail_at[d] + by ? *f : sm->tail_at[d] + by;
		r->start = start;
		r->end = start + dur;
		*f = r->end;
	}
}

/*
 * Issues what each device runs after its last op (pc->after): the compute of the schedule took
 * longer while hooked pieces ran beside it, not while it waited for one (a first forward's
 * wait for its gather): in the wall time c a piece ran, compute did c / (1 + s) of its work, as
 * a plan's step does (compute_through), so the loss is c s / (1 + s), below c, and hiding a
 * piece never costs more than running it after; the device's own collectives start once its
 * last op has ended, slowed (e->sm.reached), and one with another device (the tied
 * embedding's all-reduce) once both have reached it. Returns 0, or -1 with err set.
 */
static int after_ops(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	const struct cost_pieces *pc = e->c->pieces;
	pp_time *ready = pp_calloc((size_t)s->p, sizeof(*ready));

	if (ready == NULL)
		return pp_nomem(err, (size_t)s->p, sizeof(*ready));
	/* ready holds each device's overlap till its turn below (a device's turn adds pieces
	 * and moves times of its own alone) */
	overlaps(e, ready);
	for (int d = 0; d < s->p; d++) {
		const struct device_result *dr = &e->res.devices[d];
		pp_time beside = ready[d] - e->sm.gather_wait[d];
		double slow = pc->slowdown / (1 + pc->slowdown) * (double)(beside > 0 ? beside : 0);

		if (!(slow <= (double)PP_TIME_TOTAL_MAX)) {
			free(ready);
			return pp_fail(err, PP_ERR_CONFIG,
			               "the SM slowdown (comm_slowdown) makes device %d's step longer "
			               "than ppsim can time",
			               d);
		}
		e->sm.reached[d] = dr->last_end + (pp_time)llround(slow);
		/* what the last op's end issued starts as late as that end is */
		if (e->sm.reached[d] > dr->last_end && e->sm.tail_at[d] == dr->last_end)
			shift_tail(e, (uint32_t)d, e->sm.reached[d] - dr->last_end);
		for (size_t i = 0; i < pc->after[d].n; i++)
			if (pc->after[d].h[i].with == 0)
				issue(e, (uint32_t)d, pc->after[d].h[i].kind, pc->after[d].h[i].dur,
				      e->sm.reached[d]);
		ready[d] = streams_end(e, d, e->sm.reached[d]);
	}
	for (int d = 0; d < s->p; d++)
		for (size_t i = 0; i < pc->after[d].n; i++) {
			const struct piece_hook *h = &pc->after[d].h[i];
			pp_time at, own;

			if (h->with == 0)
				continue;
			at = ready[h->with - 1] > ready[d] ? ready[h->with - 1] : ready[d];
			own = streams_end(e, d, e->sm.reached[d]);
			/* waiting for the other device is its pipeline's lag, not communication */
			if (at > own)
				e->sm.pair_wait[d] += at - own;
			issue(e, (uint32_t)d, h->kind, h->dur, at);
		}
	free(ready);
	return 0;
}

int stream_finish(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	const struct cost_pieces *pc = e->c->pieces;

	if (pc != NULL && pc->offload != NULL)
		offload_peaks(e);
	if (pc != NULL)
		inner_plans(e);

	if (pc != NULL && after_ops(e, err) != 0)
		return -1;
	for (int d = 0; d < s->p; d++) {
		struct device_result *dr = &e->res.devices[d];
		pp_time end = dr->last_end, extra = 0;

		if (pc != NULL) {
			end = streams_end(e, d, e->sm.reached[d]);
			/* what ran past the last op is the hooked kind's, DP's, but the waits for
			 * another device (left to the bubble) */
			dr->exposed[COMM_DP] += end - dr->last_end - e->sm.pair_wait[d];
			/* each stage runs the micro-batches of its route */
			for (size_t st = 0; st < (size_t)s->S; st++)
				if ((int)s->stage_device[st] == d) {
					if (e->sm.pair == NULL)
						extra += (pp_time)s->route_mbs * e->sm.extra[st];
					for (int x = 0; x < 3; x++) {
						const struct stream_shape *sh =
						        &e->res.shapes[3 * st + (size_t)x];
						pp_time n = e->sm.pair != NULL
						                    ? (pp_time)e->sm.alone[3 * st + (size_t)x]
						                    : (pp_time)s->route_mbs;

						if (e->sm.pair != NULL)
							extra += n * (sh->dur - sh->compute);
						for (int k = 0; k < COMM_KINDS; k++) {
							dr->exposed[k] += n * sh->exposed[k];
							dr->comm[k] += n * sh->comm[k];
						}
					}
					/* the pairs whose forward is this stage's */
					for (size_t j = 0; e->sm.pair != NULL && j < 2 * (size_t)s->v; j++) {
						const struct pair_shape *ps =
						        &e->sm.pair[st * 2 * (size_t)s->v + j];
						pp_time n = (pp_time)ps->count;

						extra += n * (ps->dur - ps->compute);
						for (int k = 0; k < COMM_KINDS; k++) {
							dr->exposed[k] += n * ps->exposed[k];
							dr->comm[k] += n * ps->comm[k];
						}
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
	free(e->sm.pair);
	free(e->sm.alone);
	free(e->sm.dur);
	free(e->sm.extra);
	free(e->sm.free);
	free(e->sm.count);
	free(e->sm.gather_end);
	free(e->sm.gather_first);
	free(e->sm.gate_wait);
	free(e->sm.gather_wait);
	free(e->sm.reached);
	free(e->sm.tail_at);
	free(e->sm.tail_rec);
	free(e->sm.tail_free);
	free(e->sm.pair_wait);
	free(e->sm.off_end);
	free(e->sm.rel_end);
	free(e->sm.prefetch);
	free(e->sm.mem);
	memset(&e->sm, 0, sizeof(e->sm));
}
