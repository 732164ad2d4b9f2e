/*
 * The engine's event loop. Events (an op ends, a message arrives, a blocked device is released)
 * sit in the base layer's queue (evq) ordered by (time, sequence): all have class 0, so equal
 * times come out in the order they were queued. An op starts at the moment its device is free
 * and all its inputs are delivered, which is always the time of the event that made it so:
 * each event re-examines only the one device it concerns. Messages are sent in event order,
 * which half-duplex channels, shared by two senders, need; their record is by sending device,
 * in the order of its ops, as the sweep's (engine_record_msg).
 *
 * Messages that take no time (t_comm 0) arrive at the current time; the queue keeps those in a
 * first-in, first-out ring beside its heap, so they cost no sifting: with free messages they are
 * up to half of all events.
 */
#include <stdlib.h>

#include "engine_internal.h"

/* Slot of a kind in the table of op indices: F, backward (B or BW), W. */
static int slot_of(enum op_kind kind)
{
	return kind == OP_F ? 0 : kind == OP_W ? 2 : 1;
}

/* The cell of (kind, mb, stage) in a table of 2 (fused backward) or 3 slots of S * m. */
static uint32_t *where_cell(uint32_t *where, const struct sched *s, enum op_kind kind, uint32_t mb,
                            uint32_t st)
{
	return &where[((size_t)slot_of(kind) * (size_t)s->S + st) * (size_t)s->m + mb];
}

/*
 * Fills each op's count of inputs (e->pending) and its list of consumers (e->cons), through a table
 * of op indices by (kind, stage, micro-batch) that lives only as long as this takes. This is how
 * dependencies are released: an op ending decrements the count of each of its (at most two)
 * consumers, and one whose count reaches 0 may start, so the event loop never searches the schedule
 * for who waits. Returns 0, or -1 with a PP_ERR_NOMEM error.
 */
static int link_consumers(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	size_t slots = s->split || s->mixed ? 3 : 2, cells = slots * (size_t)s->S * (size_t)s->m;
	uint32_t *where = pp_mallocarray_large(cells, sizeof(*where));

	e->cons = pp_mallocarray_large(2 * s->nops, sizeof(*e->cons));
	e->pending = pp_mallocarray(s->nops, sizeof(*e->pending));
	if (where == NULL || e->cons == NULL || e->pending == NULL) {
		free(where);
		return pp_nomem(err, cells + 2 * s->nops, sizeof(*where));
	}
	for (size_t i = 0; i < s->nops; i++) {
		const struct op *op = &s->ops[i];
		struct op in[2];

		*where_cell(where, s, (enum op_kind)op->kind, op->mb, op->stage) = (uint32_t)i;
		e->pending[i] = (uint8_t)sched_op_inputs(s, op, in);
	}
	for (size_t i = 0; i < s->nops; i++) {
		const struct op *op = &s->ops[i];
		struct op out[2];
		int n = sched_op_consumers(s, op, out);

		e->cons[2 * i] = e->cons[2 * i + 1] = CONS_NONE;
		for (int k = 0; k < n; k++)
			e->cons[2 * i + (size_t)k] =
			        *where_cell(where, s, (enum op_kind)out[k].kind, out[k].mb,
			                    out[k].stage) |
			        (out[k].stage > op->stage   ? CONS_FORWARD
			         : out[k].stage < op->stage ? CONS_GRADIENT
			                                    : 0);
	}
	free(where);
	return 0;
}

/* Queues an event of the run (they all have class 0: the order is (time, sequence)). */
static int push(struct engine *e, pp_time time, enum event_type type, uint32_t arg,
                struct pp_error *err)
{
	return evq_push(&e->events, time, 0, (uint8_t)type, arg, err);
}

/* Starts the device's next op if the stream is free and the op's inputs are all delivered. */
static int try_start(struct engine *e, int d, struct pp_error *err)
{
	struct device_state *ds = &e->dev[d];
	size_t i = ds->head;
	pp_time end;
	bool pair;

	if (ds->running || ds->free_at > e->now || i == ds->end || e->pending[i] > 0)
		return 0;
	/* an overlapped pair starts when both ops may: overlap_factor x (F + B) for both */
	pair = (e->s->ops[i].flags & OP_OVERLAP) != 0;
	if (pair && e->pending[i + 1] > 0)
		return 0;
	end = pair ? engine_pair_duration(e, i) : engine_op_duration(e, i);
	if (e->slow_dev != NULL)
		end = engine_slowed(&e->slow_dev[d], e->now, end);
	end += e->now;
	for (size_t k = 0; k < (pair ? 2u : 1u); k++)
		if (stream_hooked(e, e->s->ops[i + k].stage) >> e->s->ops[i + k].kind & 1)
			end = stream_op_end(e, (uint32_t)d, &e->s->ops[i + k], e->now, end - e->now);
	engine_ran(e, d, i, pair, e->now, end);
	ds->running = true;
	return push(e, end, EV_OP_END, (uint32_t)i, err);
}

/* Delivers the output of op i on device d to consumer j, directly or through channel ch. */
static int deliver(struct engine *e, int d, uint32_t i, uint32_t j, int ch, uint64_t bytes,
                   pp_time dur, struct pp_error *err)
{
	pp_time arrive, start;

	if (ch < 0) {
		e->pending[j]--;
		return 0;
	}
	arrive = engine_transfer(e, d, ch, bytes, dur, e->now, &start);
	if (e->record && !engine_record_msg(e, (uint32_t)d, i, j, start, arrive))
		return pp_fail(err, PP_ERR_SIM,
		               "internal error: a device sent more messages than its boundaries carry");
	return push(e, arrive, EV_ARRIVE, j, err);
}

/* Delivers the output of op i, which ended on device d, to each op that waits for it. */
static int send_outputs(struct engine *e, int d, uint32_t i, struct pp_error *err)
{
	const struct cost *c = e->c;
	uint32_t st = e->s->ops[i].stage;

	for (int k = 0; k < 2 && e->cons[2 * (size_t)i + k] != CONS_NONE; k++) {
		uint32_t x = e->cons[2 * (size_t)i + k], j = x & CONS_INDEX;
		int rc;

		if ((x & ~CONS_INDEX) == CONS_FORWARD)
			rc = deliver(e, d, i, j, e->fwd_chan[st], c->msg_bytes[st],
			             engine_msg_duration(e, i, st), err);
		else if ((x & ~CONS_INDEX) == CONS_GRADIENT)
			rc = deliver(e, d, i, j, e->bwd_chan[st - 1], c->msg_bytes[st - 1],
			             engine_msg_duration(e, i, st - 1), err);
		else
			rc = deliver(e, d, i, j, -1, 0, 0, err);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* Handles the end of op i: frees its device and sends its output to its consumers. */
static int finish(struct engine *e, uint32_t i, struct pp_error *err)
{
	const struct sched *s = e->s;
	int d = (int)s->stage_device[s->ops[i].stage];
	uint32_t slot = s->ops[i].flags & OP_OVERLAP ? 2 : 1;

	e->dev[d].running = false;
	e->dev[d].head += slot;
	e->dev[d].free_at = e->now;
	e->done += slot;
	for (uint32_t k = 0; e->res.order != NULL && k < slot; k++)
		e->res.order[e->norder++] = i + k;
	for (uint32_t k = 0; k < slot; k++)
		if (send_outputs(e, d, i + k, err) != 0)
			return -1;
	if (e->dev[d].free_at > e->now)
		return push(e, e->dev[d].free_at, EV_RELEASE, (uint32_t)d, err);
	return try_start(e, d, err);
}

int engine_run_events(struct engine *e, struct pp_error *err)
{
	if (link_consumers(e, err) != 0)
		return -1;
	for (int d = 0; d < e->s->p; d++)
		if (try_start(e, d, err) != 0)
			return -1;
	while (evq_len(&e->events) > 0) {
		struct evq_event ev = evq_pop(&e->events);
		int rc = 0;

		e->now = ev.time;
		switch ((enum event_type)ev.type) {
		case EV_OP_END:
			rc = finish(e, ev.arg, err);
			break;
		case EV_ARRIVE:
			e->pending[ev.arg]--;
			rc = try_start(e, (int)e->s->stage_device[e->s->ops[ev.arg].stage], err);
			break;
		case EV_RELEASE:
			rc = try_start(e, (int)ev.arg, err);
			break;
		}
		if (rc != 0)
			return -1;
	}
	return 0;
}
