/*
 * The discrete-event engine: sets a run up (the schedule checked, channels laid, results
 * allocated), runs it as a dependency sweep (engine_sweep.c) or an event loop
 * (engine_events.c), which give the same times, and reports deadlocks and peak memory. It owns
 * what the two runs share: op durations and the channels (the record of an op that ran and the
 * transfer of a message over a channel are inline, in engine_internal.h).
 */
#include "ppsim/engine.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* The cost's duration of op (the perturbation's apart). */
static pp_time cost_duration(const struct engine *e, const struct op *op)
{
	const pp_time *t = &e->sm.dur[3 * (size_t)op->stage];

	return op->kind == OP_F ? t[0] : op->kind == OP_B ? t[1] : op->kind == OP_W ? t[2]
	                                                                            : t[1] + t[2];
}

pp_time engine_cost_duration(const struct engine *e, size_t i)
{
	const struct op *op = &e->s->ops[i];

	if (op->flags & OP_OVERLAP)
		return engine_pair_span(e, op, op + 1, cost_duration(e, op) + cost_duration(e, op + 1));
	return cost_duration(e, op);
}

pp_time engine_cost_msg_duration(const struct engine *e, size_t i)
{
	const struct op *op = &e->s->ops[i];

	if (op->kind == OP_F)
		return sched_route_last(e->s, op->stage) ? 0 : e->c->msg_time[op->stage];
	if (op->kind == OP_W || sched_route_first(e->s, op->stage))
		return 0;
	return e->c->msg_time[op->stage - 1];
}

pp_time engine_op_duration(const struct engine *e, size_t i)
{
	return e->op_dur != NULL ? e->op_dur[i] : cost_duration(e, &e->s->ops[i]);
}

pp_time engine_pair_duration(const struct engine *e, size_t i)
{
	const struct op *f = &e->s->ops[i];

	if (e->op_dur != NULL)
		return e->op_dur[i];
	return engine_pair_span(e, f, f + 1, cost_duration(e, f) + cost_duration(e, f + 1));
}

/* The index of channel (src, dst) among n sorted by (src, dst), or -1. */
static int find_channel(const struct channel_result *ch, int n, int src, int dst)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, ms = ch[mid].src, md = ch[mid].dst;

		if (ms == src && md == dst)
			return mid;
		if (ms < src || (ms == src && md < dst))
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int result_channel(const struct result *r, int src, int dst)
{
	int ch = find_channel(r->channels, r->nchannels, src, dst);

	/* a half-duplex link is one channel, keyed by its sorted pair */
	return ch >= 0 ? ch : find_channel(r->channels, r->nchannels, dst, src);
}

static int pair_cmp(const void *a, const void *b)
{
	const int *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/*
 * Key of the channel carrying src -> dst: the ordered pair, or the sorted pair if half-duplex. A
 * half-duplex link carries one direction at a time, so both directions of a pair are one
 * channel and their messages queue behind each other.
 */
static void channel_key(const struct cost *c, int src, int dst, int *key)
{
	bool swap = c->duplex == PP_DUPLEX_HALF && src > dst;

	key[0] = swap ? dst : src;
	key[1] = swap ? src : dst;
}

/* Builds the channel list from the stage boundaries that cross devices. Returns 0, or -1 with
 * a PP_ERR_NOMEM error. */
static int build_channels(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	int *pairs = pp_mallocarray(4 * (size_t)s->S, sizeof(*pairs));
	int n = 0, u = 0;

	if (pairs == NULL)
		return pp_nomem(err, 4 * (size_t)s->S, sizeof(*pairs));
	for (int st = 0; st + 1 < s->S; st++) {
		int a = (int)s->stage_device[st], b = (int)s->stage_device[st + 1];

		if (a == b || sched_route_last(s, (uint32_t)st))
			continue;
		channel_key(e->c, a, b, &pairs[2 * n++]);
		channel_key(e->c, b, a, &pairs[2 * n++]);
	}
	qsort(pairs, (size_t)n, 2 * sizeof(*pairs), pair_cmp);
	for (int i = 0; i < n; i++)
		if (u == 0 || pair_cmp(&pairs[2 * i], &pairs[2 * (u - 1)]) != 0) {
			pairs[2 * u] = pairs[2 * i];
			pairs[2 * u + 1] = pairs[2 * i + 1];
			u++;
		}
	e->res.nchannels = u;
	e->chan = pp_calloc((size_t)u, sizeof(*e->chan));
	e->res.channels = pp_calloc((size_t)u, sizeof(*e->res.channels));
	e->fwd_chan = pp_mallocarray((size_t)s->S, sizeof(*e->fwd_chan));
	e->bwd_chan = pp_mallocarray((size_t)s->S, sizeof(*e->bwd_chan));
	if (e->chan == NULL || e->res.channels == NULL || e->fwd_chan == NULL ||
	    e->bwd_chan == NULL) {
		free(pairs);
		return pp_nomem(err, (size_t)s->S, 2 * sizeof(*e->fwd_chan));
	}
	for (int i = 0; i < u; i++) {
		e->res.channels[i].src = pairs[2 * i];
		e->res.channels[i].dst = pairs[2 * i + 1];
	}
	for (int st = 0; st < s->S; st++) {
		/* the last stage of a route has no next one */
		bool hop = !sched_route_last(s, (uint32_t)st);
		int a = hop ? (int)s->stage_device[st] : 0;
		int b = hop ? (int)s->stage_device[st + 1] : 0;
		int key[2];

		e->fwd_chan[st] = e->bwd_chan[st] = -1;
		if (a == b)
			continue;
		channel_key(e->c, a, b, key);
		e->fwd_chan[st] = find_channel(e->res.channels, u, key[0], key[1]);
		channel_key(e->c, b, a, key);
		e->bwd_chan[st] = find_channel(e->res.channels, u, key[0], key[1]);
		assert(e->fwd_chan[st] >= 0 && e->bwd_chan[st] >= 0);
	}
	free(pairs);
	return 0;
}

/* Sum of every op's span, message time and hooked piece, or -1 when it exceeds
 * PP_TIME_TOTAL_MAX. */
static int64_t total_time(const struct engine *e)
{
	const struct sched *s = e->s;
	const struct cost *c = e->c;
	uint64_t total = 0, m = s->route_mbs;

	for (int st = 0; st < s->S; st++) {
		uint64_t per = 0, x;
		const pp_time *t = &e->sm.dur[3 * (size_t)st];

		if (!pp_add_u64((uint64_t)t[0], (uint64_t)t[1], &per) ||
		    !pp_add_u64(per, (uint64_t)t[2], &per) ||
		    !pp_add_u64(per, 2 * (uint64_t)c->msg_time[st], &per) ||
		    !pp_mul_u64(per, m, &x) || !pp_add_u64(total, x, &total) ||
		    total > (uint64_t)PP_TIME_TOTAL_MAX)
			return -1;
		for (int j = 0; c->pieces != NULL && j < 2; j++) {
			const struct piece_hooks *h = j ? &c->pieces->gather[st] : &c->pieces->grads[st];

			for (size_t i = 0; i < h->n; i++)
				if (!pp_add_u64(total, (uint64_t)h->h[i].dur, &total) ||
				    total > (uint64_t)PP_TIME_TOTAL_MAX)
					return -1;
		}
	}
	for (int d = 0; c->pieces != NULL && d < s->p; d++)
		for (size_t i = 0; i < c->pieces->after[d].n; i++)
			if (!pp_add_u64(total, (uint64_t)c->pieces->after[d].h[i].dur, &total) ||
			    total > (uint64_t)PP_TIME_TOTAL_MAX)
				return -1;
	return (int64_t)total;
}

/* True when overlapped pairs at an overlap_factor above 1, which lasts that many times their
 * two ops, take total, total_time's, past PP_TIME_TOTAL_MAX. */
static bool pairs_too_long(const struct engine *e, int64_t total_ticks)
{
	double total = (double)total_ticks, factor = e->c->overlap_factor;

	if (!e->s->overlap || factor <= 1)
		return false;
	for (size_t i = 0; i + 1 < e->s->nops; i++)
		if (e->s->ops[i].flags & OP_OVERLAP)
			total += (factor - 1) * ((double)cost_duration(e, &e->s->ops[i]) +
			                         (double)cost_duration(e, &e->s->ops[i + 1]));
	return total > (double)PP_TIME_TOTAL_MAX;
}

struct engine *engine_new(const struct sched *s, const struct cost *c, struct pp_error *err)
{
	struct engine *e;
	int64_t total;

	if (c->S != s->S) {
		pp_fail(err, PP_ERR_CONFIG, "cost model has %d stages, schedule has %d", c->S,
		        s->S);
		return NULL;
	}
	if (s->nops > ENGINE_MAX_OPS) {
		pp_fail(err, PP_ERR_USAGE, "%zu ops: the engine takes at most %" PRIu32, s->nops,
		        ENGINE_MAX_OPS);
		return NULL;
	}
	e = pp_zalloc(1, sizeof(*e), err);
	if (e == NULL)
		return NULL;
	e->s = s;
	e->c = c;
	evq_init(&e->events);
	e->dev = pp_calloc((size_t)s->p, sizeof(*e->dev));
	e->res.p = s->p;
	e->res.devices = pp_calloc((size_t)s->p, sizeof(*e->res.devices));
	if (e->dev == NULL || e->res.devices == NULL) {
		pp_nomem(err, (size_t)s->p, sizeof(*e->res.devices));
		engine_free(e);
		return NULL;
	}
	if (stream_init(e, err) != 0) {
		engine_free(e);
		return NULL;
	}
	if ((total = total_time(e)) < 0) {
		pp_fail(err, PP_ERR_USAGE,
		        "times too large: all ops, messages and communication together exceed "
		        "%.3g units",
		        (double)PP_TIME_TOTAL_MAX / (double)c->tick);
		engine_free(e);
		return NULL;
	}
	if (pairs_too_long(e, total)) {
		pp_fail(err, PP_ERR_USAGE,
		        "times too large: --overlap-factor %g stretches the overlapped pairs past "
		        "%.3g units",
		        c->overlap_factor, (double)PP_TIME_TOTAL_MAX / (double)c->tick);
		engine_free(e);
		return NULL;
	}
	for (int d = 0; d < s->p; d++) {
		e->dev[d].head = s->dev_start[d];
		e->dev[d].end = s->dev_start[d + 1];
	}
	if (build_channels(e, err) != 0) {
		engine_free(e);
		return NULL;
	}
	return e;
}

/* Whether op has run: it sits before the head of its device's list (a scan: deadlocks only). */
static bool op_done(const void *ctx, const struct op *op)
{
	const struct engine *e = ctx;
	uint32_t d = e->s->stage_device[op->stage];

	for (size_t i = e->s->dev_start[d]; i < e->dev[d].head; i++)
		if (e->s->ops[i].kind == op->kind && e->s->ops[i].mb == op->mb &&
		    e->s->ops[i].stage == op->stage)
			return true;
	return false;
}

static int report_deadlock(const struct engine *e, struct pp_error *err)
{
	size_t *head = pp_mallocarray((size_t)e->s->p, sizeof(*head));
	char what[80];
	int rc;

	if (head == NULL)
		return pp_nomem(err, (size_t)e->s->p, sizeof(*head));
	for (int d = 0; d < e->s->p; d++)
		head[d] = e->dev[d].head;
	snprintf(what, sizeof(what), "deadlock after %zu of %zu ops:", e->done, e->s->nops);
	rc = sched_report_wait(e->s, head, what, op_done, e, NULL, NULL, PP_ERR_SIM, err);
	free(head);
	return rc;
}

/*
 * Whether a schedule in which every op ran once and passed the sweep's own checks is complete:
 * each device holds exactly its share and the shares add up to every cell's ops, so that
 * distinct valid ops fill them all. A mixed schedule's count depends on its choices per cell,
 * and whether a micro-batch visits an op's stage, when they take routes, the sweep does not
 * check.
 */
static bool sweep_checks_all(const struct sched *s)
{
	uint64_t want;

	if (s->mixed || s->routes > 1 || !sched_op_count(s->p, s->v, s->m, s->split, &want) ||
	    want != s->nops)
		return false;
	for (int d = 0; d < s->p; d++)
		if (s->dev_fill[d] != s->dev_start[d + 1] - s->dev_start[d])
			return false;
	return true;
}

/* Frees what only the event loop needed once it has run (9 bytes an op: a writer that reads
 * the result takes that room). */
static void release_loop(struct engine *e)
{
	free(e->cons);
	free(e->pending);
	e->cons = NULL;
	e->pending = NULL;
	evq_release(&e->events);
}

/*
 * Lays out the message record: each crossing boundary carries the micro-batches of its route
 * once each way, a forward sent by its stage's device and a gradient by the next one's, so
 * each device's messages get their slots before the run, by device in device order, and each
 * device's in the order it sends them, that of its ops: the same in both runs, without a sort.
 * Returns 0, or -1 with a PP_ERR_NOMEM error.
 */
static int msgs_layout(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	size_t p = (size_t)s->p, at = 0;

	e->msg_at = pp_calloc(p, sizeof(*e->msg_at));
	e->msg_end = pp_calloc(p, sizeof(*e->msg_end));
	if (e->msg_at == NULL || e->msg_end == NULL)
		return pp_nomem(err, 2 * p, sizeof(*e->msg_at));
	for (int st = 0; st + 1 < s->S; st++)
		if (e->fwd_chan[st] >= 0) {
			e->msg_end[s->stage_device[st]] += s->route_mbs;
			e->msg_end[s->stage_device[st + 1]] += s->route_mbs;
		}
	for (size_t d = 0; d < p; d++) {
		e->msg_at[d] = at;
		at += e->msg_end[d];
		e->msg_end[d] = at;
	}
	e->res.nmsgs = at;
	if ((e->res.msgs = pp_mallocarray_large(at > 0 ? at : 1, sizeof(*e->res.msgs))) == NULL)
		return pp_nomem(err, at, sizeof(*e->res.msgs));
	return 0;
}

int engine_run(struct engine *e, struct pp_error *err)
{
	/* a half-duplex channel has two senders, whose messages take it in the order of the
	 * events that send them: only the event loop has that order */
	bool sweep = !engine_takes_events(e->c->duplex == PP_DUPLEX_HALF) && !e->force_events;
	int64_t *peak;
	int rc;

	assert(!e->ran);
	e->ran = true;
	/* the sweep checks each op as it reads it; what it cannot see, sched_check sees first */
	if ((!sweep || !sweep_checks_all(e->s)) && sched_check(e->s, err) != 0)
		return -1;
	if (!e->drop_times &&
	    (e->res.times = pp_large_alloc(e->arena, e->s->nops, sizeof(*e->res.times))) == NULL)
		return pp_nomem(err, e->s->nops, sizeof(*e->res.times));
	if (e->record_order &&
	    (e->res.order = pp_mallocarray_large(e->s->nops > 0 ? e->s->nops : 1,
	                                         sizeof(*e->res.order))) == NULL)
		return pp_nomem(err, e->s->nops, sizeof(*e->res.order));
	if (e->record && msgs_layout(e, err) != 0)
		return -1;
	rc = sweep ? engine_run_sweep(e, err) : engine_run_events(e, err);
	if (rc < 0)
		return -1;
	release_loop(e);
	if (rc > 0 || e->done < e->s->nops) {
		/* a malformed schedule is named as such, before any wait it causes */
		if (sched_check(e->s, err) != 0)
			return -1;
		if (rc > 0)
			return pp_fail(err, PP_ERR_SIM,
			               "internal error: the sweep refused an op "
			               "that sched_check accepts");
		return report_deadlock(e, err);
	}
	for (int d = 0; e->record && d < e->s->p; d++)
		if (e->msg_at[d] != e->msg_end[d])
			return pp_fail(err, PP_ERR_SIM,
			               "internal error: device %d sent fewer messages than its "
			               "boundaries carry",
			               d);
	for (int ch = 0; ch < e->res.nchannels; ch++) {
		e->res.messages += e->res.channels[ch].messages;
		e->res.bytes += e->res.channels[ch].bytes;
		e->res.msg_time += e->res.channels[ch].busy;
	}
	if (!sweep) {
		peak = pp_mallocarray((size_t)e->s->p, sizeof(*peak));
		if (peak == NULL)
			return pp_nomem(err, (size_t)e->s->p, sizeof(*peak));
		sched_peak(e->s, e->c->act, e->c->act_w, peak);
		for (int d = 0; d < e->s->p; d++)
			e->res.devices[d].peak_act = peak[d];
		free(peak);
	}
	if (stream_finish(e, err) != 0)
		return -1;
	e->ok = true;
	return 0;
}

/* Adds the durations of a perturbation's array a[n] (none for NULL) to *total: 0, or -1 when
 * one is negative or the sum passes PP_TIME_TOTAL_MAX. */
static int64_t array_total(const pp_time *a, size_t n, uint64_t *total)
{
	for (size_t i = 0; a != NULL && i < n; i++)
		if (a[i] < 0 || !pp_add_u64(*total, (uint64_t)a[i], total) ||
		    *total > (uint64_t)PP_TIME_TOTAL_MAX)
			return -1;
	return 0;
}

/* The straggler record of w in *slow (allocated [n] with factor 1 on first use). */
static int set_slow(struct slow_at **slow, size_t n, size_t at, const struct engine_slow *w,
                    struct pp_error *err)
{
	if (*slow == NULL) {
		if ((*slow = pp_mallocarray(n, sizeof(**slow))) == NULL)
			return pp_nomem(err, n, sizeof(**slow));
		for (size_t i = 0; i < n; i++)
			(*slow)[i] = (struct slow_at){0, 1};
	}
	(*slow)[at] = (struct slow_at){w->at, w->factor};
	return 0;
}

int engine_perturb(struct engine *e, const struct engine_perturb *p, struct pp_error *err)
{
	uint64_t total = 0;
	double most = 1;

	assert(!e->ran);
	if (array_total(p->op_dur, e->s->nops, &total) != 0 ||
	    array_total(p->msg_dur, e->s->nops, &total) != 0)
		return pp_fail(err, PP_ERR_USAGE,
		               "times too large: the ops' and messages' times (drawn or measured) "
		               "together exceed %.3g units",
		               (double)PP_TIME_TOTAL_MAX / (double)e->c->tick);
	for (size_t i = 0; i < p->nslow; i++) {
		const struct engine_slow *w = &p->slow[i];
		int ch[2] = {-1, -1};

		if (!(w->factor > 0) || !isfinite(w->factor) || w->at < 0)
			return pp_fail(err, PP_ERR_USAGE,
			               "a straggler's factor must be positive and its start not "
			               "negative");
		if (w->dev >= (uint32_t)e->s->p || (w->link && w->peer >= (uint32_t)e->s->p))
			return pp_fail(err, PP_ERR_USAGE, "a straggler names device %" PRIu32
			               " of %d", w->link && w->peer >= (uint32_t)e->s->p ? w->peer
			                                                               : w->dev,
			               e->s->p);
		most = w->factor > most ? w->factor : most;
		if (!w->link) {
			if (set_slow(&e->slow_dev, (size_t)e->s->p, w->dev, w, err) != 0)
				return -1;
			continue;
		}
		ch[0] = result_channel(&e->res, (int)w->dev, (int)w->peer);
		ch[1] = result_channel(&e->res, (int)w->peer, (int)w->dev);
		if (ch[0] < 0 && w->optional)
			continue;
		if (ch[0] < 0)
			return pp_fail(err, PP_ERR_USAGE,
			               "devices %" PRIu32 " and %" PRIu32 " exchange no messages",
			               w->dev, w->peer);
		for (int k = 0; k < 2; k++)
			if (set_slow(&e->slow_chan, (size_t)e->res.nchannels, (size_t)ch[k], w, err) != 0)
				return -1;
	}
	if (p->op_dur == NULL || p->msg_dur == NULL) {
		int64_t own = total_time(e);

		if (own < 0 || !pp_add_u64(total, (uint64_t)own, &total))
			total = UINT64_MAX;
	}
	if ((double)total * most > (double)PP_TIME_TOTAL_MAX)
		return pp_fail(err, PP_ERR_USAGE,
		               "times too large: the stragglers' factors take the step past %.3g "
		               "units",
		               (double)PP_TIME_TOTAL_MAX / (double)e->c->tick);
	e->op_dur = p->op_dur;
	e->msg_dur = p->msg_dur;
	return 0;
}

void engine_record_order(struct engine *e)
{
	assert(!e->ran);
	e->record_order = true;
}

const struct result *engine_result(const struct engine *e)
{
	return e->ok ? &e->res : NULL;
}

void engine_record_messages(struct engine *e)
{
	assert(!e->ran);
	e->record = true;
}

void engine_use_arena(struct engine *e, struct pp_arena *arena)
{
	assert(!e->ran);
	e->arena = arena;
}

size_t engine_arena_bytes(size_t nops, int L, int m, bool times)
{
	size_t cells = pp_arena_bytes(engine_sweep_bytes(L, m), 1);
	size_t t = pp_arena_bytes(nops, sizeof(struct op_time));

	if (cells == SIZE_MAX || (times && (t == SIZE_MAX || cells > SIZE_MAX - t)))
		return SIZE_MAX;
	return cells + (times ? t : 0);
}

bool engine_takes_events(bool half_duplex)
{
	return half_duplex;
}

/* base + the products of parts[n][2], or SIZE_MAX when that does not fit. */
static size_t add_parts(size_t base, size_t (*parts)[2], size_t n)
{
	size_t bytes = base;

	for (size_t i = 0; i < n && bytes != SIZE_MAX; i++) {
		uint64_t b;

		bytes = pp_mul_u64(parts[i][0], parts[i][1], &b) && b <= SIZE_MAX - bytes
		                ? bytes + (size_t)b
		                : SIZE_MAX;
	}
	return bytes;
}

size_t engine_peak_bytes(size_t nops, size_t nmsgs, int L, int m, bool times, bool events,
                         bool record, bool order, bool slack)
{
	size_t cells = engine_sweep_bytes(L, m), run, after;
	size_t parts[4][2] = {
	        {times ? nops : 0, sizeof(struct op_time)},
	        {record ? nmsgs : 0, sizeof(struct msg_record)},
	        {order ? nops : 0, sizeof(uint32_t)},
	        /* the loop's consumers (two an op) and counts of inputs, in one count of bytes */
	        {events ? nops : 0,
	         2 * sizeof(*((struct engine *)NULL)->cons) + sizeof(*((struct engine *)NULL)->pending)},
	};
	/* once it ran: the slacks, and unless the messages were recorded the slack pass's table
	 * of two op numbers a cell (in the sweep's cells, which an arena holds to the end) */
	size_t later[2][2] = {
	        {slack ? nops : 0, sizeof(pp_time)},
	        {slack && events && !record ? cells / sizeof(pp_time) : 0, sizeof(uint32_t)}};

	/* exact: an arena's rounding to its pages is a few MB a run, not bytes an op */
	if (cells == SIZE_MAX)
		return SIZE_MAX;
	run = add_parts(events ? 0 : cells, parts, 4);
	after = add_parts(add_parts(events ? 0 : cells, parts, 3), later, 2);
	return run == SIZE_MAX || after == SIZE_MAX ? SIZE_MAX : run > after ? run : after;
}

void engine_drop_times(struct engine *e)
{
	assert(!e->ran);
	e->drop_times = true;
}

void engine_use_events(struct engine *e)
{
	assert(!e->ran);
	e->force_events = true;
}

void engine_free(struct engine *e)
{
	if (e == NULL)
		return;
	free(e->res.msgs);
	free(e->msg_at);
	free(e->msg_end);
	free(e->res.order);
	free(e->slow_dev);
	free(e->slow_chan);
	free(e->cons);
	free(e->pending);
	evq_release(&e->events);
	free(e->dev);
	free(e->chan);
	free(e->fwd_chan);
	free(e->bwd_chan);
	pp_large_free(e->arena, e->res.times);
	free(e->res.devices);
	free(e->res.channels);
	for (size_t i = 0; i < e->res.nshapes; i++)
		free(e->res.shapes[i].pieces);
	free(e->res.shapes);
	free(e->res.pieces);
	free(e->res.inner);
	stream_release(e);
	free(e);
}
