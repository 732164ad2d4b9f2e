/*
 * The engine's dependency sweep. With full-duplex channels every channel has one sender, which
 * sends in the order of its own list, so an op's start is max(its device free, its inputs
 * arrived) whatever order the devices advance in: no event queue is needed. Each device runs
 * its list while its head op's inputs are in, and an op whose output crosses to another device
 * wakes that device. The times are the event loop's exactly (a unit test compares them); only
 * the order in which messages are sent across devices differs, which is why half-duplex
 * channels, whose two senders share one queue, take the event loop. The record of messages
 * does not need that order: it holds each device's messages in the order of its ops, which
 * both runs share (engine_record_msg); a message's consumer, once it read its input, leaves
 * its op number in the input's cell entry, where the record finds it as the message goes in,
 * or after the run (msgs_link).
 *
 * The sweep pulls rather than pushes: an op finds its inputs by arithmetic on its own
 * (micro-batch, stage), in a table with one cell per (micro-batch, stage) holding when that
 * cell's forward and backward outputs reach the neighbouring stage. It needs no table of
 * consumers and no count of inputs, so it touches each op's bytes, its times when they are kept
 * and a sixth to a half of a cell: bytes per op are what a run costs on a machine that faults
 * its pages in.
 * The cells are laid out by micro-batch, then stage, so that the cells an op reads and writes
 * (its own and its neighbouring stage's) share cache lines, along the stages a micro-batch's
 * data flows through (by stage first, a 1F1B run missed the last-level cache four times as
 * often). When the micro-batches take routes (struct sched), a micro-batch has cells only for
 * the L stages of its own route. What an op needs of its stage (durations and activation
 * changes by kind, its first cell, the micro-batches that visit it, the neighbours' devices,
 * the channels) is in one lane per stage, read once an op.
 *
 * A message whose channel only ever carries messages of no duration neither waits nor delays:
 * it arrives as it is sent. Those channels count their messages after the run, m a boundary
 * each way (a complete run sends each once), instead of one by one.
 *
 * It also checks the schedule as it goes, each op where it reads it (range, backward mode,
 * device, pairing, and a cell that runs twice): a schedule of exactly its share of ops per
 * device in which every op ran once, each valid, covers every cell. Whatever it finds wrong
 * stops it, and engine_run has sched_check name it. Whether a micro-batch visits the stage of
 * an op, when the micro-batches take routes, it leaves to sched_check, which engine_run runs
 * first for such a schedule.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

/* A cell's output not yet sent: all bits set, below any time. */
#define NOT_RUN ((pp_time)-1)
/* In a cell's backward entry: its W ran (a time never reaches this bit: PP_TIME_TOTAL_MAX). */
#define W_RAN ((pp_time)1 << 62)

/* When the outputs of (micro-batch, stage) reach the stage that consumes them, or NOT_RUN. */
struct cell {
	pp_time f; /* the forward's, at stage + 1 (at its own device when none) */
	pp_time b; /* the backward's (B or BW), at stage - 1; W_RAN set once its W ran */
};

/* What an op of one stage needs of it. */
struct lane {
	struct cell *cell;  /* the stage's cell of micro-batch 0 (of its route's first when the
	                     * micro-batches take routes: the cells by micro-batch hold the L
	                     * stages of its route); micro-batch mb's is mb * L cells on */
	pp_time dur[4];     /* an op's duration, by kind (enum op_kind) */
	int64_t act[4];     /* the change in activations alive it makes, by kind */
	uint32_t dev;       /* the stage's device */
	uint32_t fwd_dev;   /* the device of stage + 1 (its own when last) */
	uint32_t bwd_dev;   /* the device of stage - 1 (its own when first) */
	int32_t fwd_chan;   /* the channel that prices the forward's message, -1 when none does */
	int32_t bwd_chan;   /* the same for the backward's */
	bool first, last;   /* the first stage of its route (0), the last (S - 1) */
	bool fwd_rec;       /* with a record of messages: the forward's output crosses devices */
	bool bwd_rec;       /* the same for the backward's */
	uint8_t rec_in;     /* with a record: bit k, its ops of kind k take their input from
	                       another device (mark_consumer) */
	uint8_t hooked;     /* bit k: its ops of kind k may carry pieces the run prices
	                       (stream_op_end) */
};

/*
 * Where a device stands in the sweep, in one record: engine_run_sweep copies the heads and
 * the totals into the engine's device states and results at the end.
 */
struct sweep_dev {
	size_t head, end, first; /* the next op to run, one past its last, its first */
	pp_time free_at;         /* its stream is free from (blocking sends move it on) */
	pp_time busy;            /* the durations of the ops it ran */
	pp_time first_start;     /* when its first op began */
	pp_time last_end;        /* when its last op so far ended */
	int64_t alive, peak;     /* activations alive after the ops it ran, and their peak */
	const pp_time *wait;     /* the cell entry its head op waits for, or NULL */
	const struct lane *ln;   /* with a wait: the head op's lane and cell, checked (NULL for a
	                          * pair, which is checked again) */
	struct cell *cl;
};

struct sweep {
	struct engine *e;
	struct cell *cells;    /* [m * L] by micro-batch, then stage of its route */
	struct lane *lanes;    /* [S] */
	struct sweep_dev *dev; /* [p] */
	uint32_t *stack;       /* [p] devices to run: each is on it at most once, as a device
	                        * is pushed at the start and then only when what it waits for
	                        * arrives, which clears its wait */
	uint32_t n;
	uint32_t *order; /* the engine's record of the order ops finished in, or NULL */
	size_t norder;
	struct msg_record *sent; /* with a record of messages: a ring of the latest RECORD_RING, in
	                          * the order sent, their sender in to (hold_sent) */
	size_t head, nsent;      /* the oldest's place in the ring, and how many it holds */
	uint32_t *late;          /* [RECORD_LATE] slots of messages put in the record before their
	                          * consumer ran, whose consumer msgs_link fills in */
	size_t nlate;
	bool link_all;           /* more than RECORD_LATE were: msgs_link fills in every one */
	size_t m;       /* micro-batches */
	uint32_t S;     /* stages */
	uint32_t L;     /* stages a micro-batch visits: S, or S / routes */
	unsigned kinds; /* bit k: op kind k belongs to the schedule's backward mode */
	bool bad;       /* an op failed its check: the sweep stopped */
};

/* What the checks and the inputs read of the sweep, handed to them by value: constants of the
 * run, which a device's loop holds while it stores to cells and times. */
struct view {
	const struct lane *lanes;
	size_t m;
	uint32_t S, L;
	unsigned kinds;
};

/*
 * How many ops ahead a device asks for its op list's lines: 64 devices each walking their own
 * stretch of it, a few ops at a time, are more streams than the hardware prefetcher follows.
 */
#define AHEAD 32

/*
 * How many messages the sweep holds before it puts the older half in their slots
 * (engine_record_msg), each device's next: written one by one, as the sweep goes from device to
 * device, 64 devices' slots were as many streams of stores, each a miss, which doubled the
 * sweep's time; a batch of them, in cache, goes out in a loop of nothing else. A message held
 * that long has mostly been read by its consumer, whose op number goes in the record with it;
 * the few that have not (RECORD_LATE at most, else all) get theirs after the run.
 */
#define RECORD_RING 8192
#define RECORD_LATE 65536

/* In a cell entry, once its consumer ran with a record of messages: the consumer's op number in
 * the low 30 bits (mark_consumer). No time reaches this bit (PP_TIME_TOTAL_MAX); NOT_RUN has it,
 * but an entry read by its consumer was written. */
#define CONSUMED ((pp_time)1 << 61)

/* What one step of a device came to. */
enum step { STEP_RAN, STEP_WAITS, STEP_BAD };

/* Whether op, on device d, is in range, of the schedule's backward mode and on its stage's
 * device; its lane in *ln. (Whether its micro-batch visits its stage, when the micro-batches
 * take routes, sched_check said before the sweep began.) */
static PP_HOT bool op_ok(struct view v, uint32_t d, const struct op *op, const struct lane **ln)
{
	if (op->kind > OP_BW || !(v.kinds >> op->kind & 1) || op->mb >= v.m || op->stage >= v.S)
		return false;
	*ln = &v.lanes[op->stage];
	return (*ln)->dev == d;
}

/*
 * Whether the inputs of op (of kind k, in cell cl of lane ln) are in, raising *at to the latest
 * arrival; if not, the entry it waits for in *wait. An input made on the op's own device ran
 * before it there (or never will), so only its presence counts: the device's free time already
 * covers its end.
 */
static PP_HOT bool inputs_in(unsigned k, const struct lane *ln,
                             const struct cell *cl, pp_time *at, const pp_time **wait)
{
	const pp_time *in;
	pp_time x;

	if (k == OP_F) {
		if (ln->first)
			return true;
		in = &(cl - 1)->f;
	} else if (k == OP_W) {
		in = &cl->b;
		if (*in != NOT_RUN)
			return true;
	} else { /* B, BW */
		in = &cl->f;
		if (*in == NOT_RUN)
			goto waits;
		if (ln->last)
			return true;
		in = &(cl + 1)->b;
	}
	if ((x = *in) == NOT_RUN)
		goto waits;
	x &= ~W_RAN;
	if (x > *at)
		*at = x;
	return true;
waits:
	*wait = in;
	return false;
}

/* Prices the message of op i over boundary b sent at end on channel ch by device d, whose
 * stream time *free_at a blocking send moves on; returns its arrival (when it took the channel
 * in *start). */
static pp_time transfer(struct engine *e, uint32_t d, int ch, size_t i, uint32_t b, pp_time end,
                        pp_time *free_at, pp_time *start)
{
	pp_time arrive;

	e->dev[d].free_at = *free_at;
	arrive = engine_transfer(e, (int)d, ch, e->c->msg_bytes[b],
	                         engine_msg_duration(e, i, b),
	                         end, start);
	*free_at = e->dev[d].free_at;
	return arrive;
}

/*
 * With a record of messages: op i of kind k, in cell cl, has read its input from another
 * device; it leaves its op number in that entry, which from now on is only read for whether it
 * ran (and a backward's, whether its W ran), for msgs_link to find.
 */
static inline void mark_consumer(unsigned k, struct cell *cl, size_t i)
{
	if (k == OP_F)
		(cl - 1)->f = CONSUMED | (pp_time)i;
	else
		(cl + 1)->b = ((cl + 1)->b & W_RAN) | CONSUMED | (pp_time)i;
}

/* The consumer of the message op i sent, once it ran (mark_consumer), else UINT32_MAX. */
static uint32_t consumer_of(const struct sweep *w, size_t i)
{
	const struct op *op = &w->e->s->ops[i];
	const struct cell *cl = w->lanes[op->stage].cell + (size_t)op->mb * w->L;
	pp_time x = op->kind == OP_F ? cl->f : cl->b;

	return x != NOT_RUN && (x & CONSUMED) ? (uint32_t)(x & (pp_time)CONS_INDEX) : UINT32_MAX;
}

/* Puts the oldest n messages held in w->sent in their slots, with their consumers when they
 * ran: false when a device sent more than its boundaries carry. */
static bool flush_sent(struct sweep *w, size_t n)
{
	struct engine *e = w->e;

	for (; n > 0; n--, w->nsent--) {
		const struct msg_record *g = &w->sent[w->head++ % RECORD_RING];
		uint32_t to = consumer_of(w, g->from);

		if (to == UINT32_MAX) {
			if (w->nlate < RECORD_LATE)
				w->late[w->nlate++] = (uint32_t)e->msg_at[g->to];
			else
				w->link_all = true;
		}
		if (!engine_record_msg(e, g->to, g->from, to, g->start, g->end))
			return false;
	}
	return true;
}

/* Holds the message op i of device d sent from start to end. */
static bool hold_sent(struct sweep *w, uint32_t d, size_t i, pp_time start, pp_time end)
{
	w->sent[(w->head + w->nsent++) % RECORD_RING] =
	        (struct msg_record){(uint32_t)i, d, start, end};
	return w->nsent < RECORD_RING || flush_sent(w, RECORD_RING / 2);
}

/* Wakes device d if it waits for the cell entry x, which has just been written. */
static PP_HOT void wake_on(struct sweep *w, uint32_t d, const pp_time *x)
{
	if (w->dev[d].wait == x) {
		w->dev[d].wait = NULL;
		w->stack[w->n++] = d;
	}
}

/* Sends the output of op i (of kind k, stage st, lane ln, cell cl; it ended at end on device
 * d) toward the stage that consumes it and wakes that stage's device. Returns false when the
 * cell already ran it. */
static PP_HOT bool send(struct sweep *w, uint32_t d, size_t i, unsigned k, uint32_t st,
                        const struct lane *ln, struct cell *cl, pp_time end, pp_time *free_at)
{
	pp_time sent = end;

	if (w->order != NULL)
		w->order[w->norder++] = (uint32_t)i;
	if (k == OP_F) {
		if (cl->f != NOT_RUN)
			return false;
		cl->f = ln->fwd_chan < 0
		                ? end
		                : transfer(w->e, d, ln->fwd_chan, i, st, end, free_at, &sent);
		wake_on(w, ln->fwd_dev, &cl->f);
		return !ln->fwd_rec || hold_sent(w, d, i, sent, cl->f);
	}
	if (k == OP_W) {
		if (cl->b & W_RAN)
			return false;
		cl->b |= W_RAN;
		return true;
	}
	/* B, BW */
	if (cl->b != NOT_RUN)
		return false;
	cl->b = ln->bwd_chan < 0
	                ? end
	                : transfer(w->e, d, ln->bwd_chan, i, st - 1, end, free_at, &sent);
	wake_on(w, ln->bwd_dev, &cl->b);
	return !ln->bwd_rec || hold_sent(w, d, i, sent, cl->b);
}

/*
 * Runs the overlapped pair at the head of device d, ops i and i + 1 (an F flagged OP_OVERLAP,
 * then a B or BW not flagged, both valid): both ops' inputs in, it starts when the later
 * arrives and lasts the pair's duration; both end with it. Works on the device's record.
 */
static enum step run_pair(struct sweep *w, struct view v, uint32_t d, size_t i)
{
	const struct op *op = &w->e->s->ops[i];
	struct sweep_dev *sd = &w->dev[d];
	struct op_time *times = w->e->res.times;
	const struct lane *ln[2];
	struct cell *cl[2];
	pp_time start = sd->free_at, stop;

	if (i + 1 >= sd->end || op->kind != OP_F || (op[1].kind != OP_B && op[1].kind != OP_BW) ||
	    (op[1].flags & OP_OVERLAP) || !op_ok(v, d, op, &ln[0]) || !op_ok(v, d, op + 1, &ln[1]))
		return STEP_BAD;
	for (int j = 0; j < 2; j++)
		cl[j] = ln[j]->cell + (size_t)op[j].mb * v.L;
	if (!inputs_in(OP_F, ln[0], cl[0], &start, &sd->wait) ||
	    !inputs_in(op[1].kind, ln[1], cl[1], &start, &sd->wait))
		return STEP_WAITS;
	for (int j = 0; j < 2; j++)
		if (ln[j]->rec_in >> op[j].kind & 1)
			mark_consumer(op[j].kind, cl[j], i + (size_t)j);
	stop = w->e->op_dur != NULL
	               ? w->e->op_dur[i]
	               : engine_pair_span(w->e, op, op + 1,
	                                  ln[0]->dur[op->kind] + ln[1]->dur[op[1].kind]);
	if (w->e->slow_dev != NULL)
		stop = engine_slowed(&w->e->slow_dev[d], start, stop);
	stop += start;
	for (int j = 0; j < 2; j++)
		if (ln[j]->hooked >> op[j].kind & 1)
			stop = stream_op_end(w->e, d, op + j, start, stop - start);
	if (i == sd->first)
		sd->first_start = start;
	sd->busy += stop - start;
	sd->free_at = sd->last_end = stop;
	sd->head = i + 2;
	for (int j = 0; j < 2; j++) {
		if (times != NULL)
			times[i + j] = (struct op_time){start, stop};
		sd->alive += ln[j]->act[op[j].kind];
		sd->peak = sd->alive > sd->peak ? sd->alive : sd->peak;
	}
	for (int j = 0; j < 2; j++)
		if (!send(w, d, i + j, op[j].kind, op[j].stage, ln[j], cl[j], stop, &sd->free_at))
			return STEP_BAD;
	return STEP_RAN;
}

/* Runs device d's list while its head op's inputs are in. */
static void run_device(struct sweep *w, uint32_t d)
{
	struct engine *e = w->e;
	const struct op *ops = e->s->ops;
	struct sweep_dev *sd = &w->dev[d];
	struct op_time *times = e->res.times;
	const struct view v = {w->lanes, w->m, w->S, w->L, w->kinds};
	size_t i = sd->head, end = sd->end, first = sd->first;
	pp_time free_at = sd->free_at, busy = sd->busy, last_end = sd->last_end;
	int64_t alive = sd->alive, peak = sd->peak;
	enum step step = STEP_RAN;
	const pp_time *odur = e->op_dur;
	const struct slow_at *slow = e->slow_dev != NULL ? &e->slow_dev[d] : NULL;

	while (i < end) {
		const struct op *op = &ops[i];
		const struct lane *ln;
		struct cell *cl;
		pp_time start = free_at, dur;
		unsigned k = op->kind;

		PP_PREFETCH(&ops[i + AHEAD < end ? i + AHEAD : i]);

		/* The locals are the record's fields, copied out and written back around a pair
		 * (and at the end): held in a struct instead, they made the sweep 10 to 20% slower. */
		if (op->flags & OP_OVERLAP) { /* on the record, which the locals are written to */
			sd->head = i;
			sd->free_at = free_at;
			sd->busy = busy;
			sd->last_end = last_end;
			sd->alive = alive;
			sd->peak = peak;
			if ((step = run_pair(w, v, d, i)) != STEP_RAN) {
				w->bad |= step == STEP_BAD;
				return;
			}
			i = sd->head;
			free_at = sd->free_at;
			busy = sd->busy;
			last_end = sd->last_end;
			alive = sd->alive;
			peak = sd->peak;
			continue;
		}
		if (sd->ln != NULL) { /* checked when it stopped here */
			ln = sd->ln;
			cl = sd->cl;
			sd->ln = NULL;
		} else if (op_ok(v, d, op, &ln)) {
			cl = ln->cell + (size_t)op->mb * v.L;
		} else {
			step = STEP_BAD;
			break;
		}
		if (!inputs_in(k, ln, cl, &start, &sd->wait)) {
			sd->ln = ln;
			sd->cl = cl;
			break;
		}
		if (ln->rec_in >> k & 1)
			mark_consumer(k, cl, i);
		if (i == first)
			sd->first_start = start;
		dur = odur != NULL ? odur[i] : ln->dur[k];
		if (slow != NULL)
			dur = engine_slowed(slow, start, dur);
		free_at = last_end = start + dur;
		if (ln->hooked >> k & 1) /* a stage's first forward or last weight gradient may be */
			free_at = last_end = stream_op_end(e, d, op, start, dur);
		busy += last_end - start;
		if (times != NULL)
			times[i] = (struct op_time){start, last_end};
		alive += ln->act[k];
		peak = alive > peak ? alive : peak;
		i++;
		if (!send(w, d, i - 1, k, op->stage, ln, cl, last_end, &free_at)) {
			step = STEP_BAD;
			break;
		}
	}
	if (step == STEP_BAD)
		w->bad = true;
	sd->head = i;
	sd->free_at = free_at;
	sd->busy = busy;
	sd->last_end = last_end;
	sd->alive = alive;
	sd->peak = peak;
}

/*
 * Sets up the lanes: each stage's durations and activation changes by kind, its cells and
 * neighbours, and the channels that price its messages (-1 for a channel whose every boundary
 * sends messages of no duration: those are counted after the run). Returns 0, or -1 when out
 * of memory.
 */
static int lanes_new(struct sweep *w, bool *priced)
{
	const struct engine *e = w->e;
	const struct sched *s = e->s;
	const struct cost *c = e->c;

	w->lanes = pp_mallocarray((size_t)s->S, sizeof(*w->lanes));
	if (w->lanes == NULL)
		return -1;
	for (int st = 0; st + 1 < s->S; st++)
		if (e->fwd_chan[st] >= 0 && c->msg_time[st] > 0)
			priced[e->fwd_chan[st]] = priced[e->bwd_chan[st]] = true;
	for (int st = 0; st < s->S; st++) {
		struct lane *ln = &w->lanes[st];
		int64_t a = c->act != NULL ? c->act[st] : 1, aw = c->act_w != NULL ? c->act_w[st] : 1;
		bool first = sched_route_first(s, (uint32_t)st),
		     last = sched_route_last(s, (uint32_t)st);
		int fc = e->fwd_chan[st], bc = first ? -1 : e->bwd_chan[st - 1];

		*ln = (struct lane){
		        .cell = w->cells + (uint32_t)st % s->route_stages,
		        .dur = {[OP_F] = e->sm.dur[3 * st],
		                [OP_B] = e->sm.dur[3 * st + 1],
		                [OP_W] = e->sm.dur[3 * st + 2],
		                [OP_BW] = e->sm.dur[3 * st + 1] + e->sm.dur[3 * st + 2]},
		        .act = {[OP_F] = a, [OP_B] = -(a - aw), [OP_W] = -aw, [OP_BW] = -a},
		        .dev = s->stage_device[st],
		        .fwd_dev = s->stage_device[last ? st : st + 1],
		        .bwd_dev = s->stage_device[first ? st : st - 1],
		        .fwd_chan = fc >= 0 && priced[fc] ? fc : -1,
		        .bwd_chan = bc >= 0 && priced[bc] ? bc : -1,
		        .first = first,
		        .last = last,
		        .fwd_rec = e->record && e->fwd_chan[st] >= 0,
		        .bwd_rec = e->record && bc >= 0,
		        .rec_in = (uint8_t)((e->record && bc >= 0 ? 1u << OP_F : 0) |
		                            (e->record && e->fwd_chan[st] >= 0
		                                     ? 1u << OP_B | 1u << OP_BW
		                                     : 0)),
		        .hooked = (uint8_t)stream_hooked(e, (uint32_t)st),
		};
	}
	return 0;
}

/* Counts the messages of the channels no lane prices: each crossing boundary sends the
 * micro-batches of its route each way. */
static void count_unpriced(struct engine *e, const bool *priced)
{
	const struct sched *s = e->s;
	uint64_t m = s->route_mbs;

	for (int st = 0; st + 1 < s->S; st++) {
		int ch[2] = {e->fwd_chan[st], e->bwd_chan[st]};

		for (int k = 0; k < 2; k++)
			if (ch[k] >= 0 && !priced[ch[k]]) {
				e->res.channels[ch[k]].messages += m;
				e->res.channels[ch[k]].bytes += m * e->c->msg_bytes[st];
			}
	}
}

/* Fills in the consumer of the recorded messages put in the record before it ran (every one
 * when more than RECORD_LATE were), once the sweep ran: the op number their consumer left in
 * their producer's cell entry (mark_consumer). */
static void msgs_link(struct sweep *w)
{
	const struct sched *s = w->e->s;
	struct msg_record *g = w->e->res.msgs;
	size_t n = w->e->res.nmsgs;

	if (!w->link_all) {
		for (size_t k = 0; k < w->nlate; k++)
			g[w->late[k]].to = consumer_of(w, g[w->late[k]].from);
		return;
	}

	/* the cells lie a micro-batch's stages apart, each on a line of its own: asked for a few
	 * messages ahead, from the op of a message asked for further ahead */
	for (size_t k = 0; k < n; k++) {
		const struct op *op = &s->ops[g[k].from];
		const struct cell *cl = w->lanes[op->stage].cell + (size_t)op->mb * w->L;

		if (k + 2 * AHEAD < n)
			PP_PREFETCH(&s->ops[g[k + 2 * AHEAD].from]);
		if (k + AHEAD < n) {
			const struct op *ahead = &s->ops[g[k + AHEAD].from];

			PP_PREFETCH(w->lanes[ahead->stage].cell + (size_t)ahead->mb * w->L);
		}
		g[k].to = (uint32_t)((op->kind == OP_F ? cl->f : cl->b) & (pp_time)CONS_INDEX);
	}
}

size_t engine_sweep_bytes(int L, int m)
{
	if (L <= 0 || m <= 0 || (size_t)L > SIZE_MAX / (size_t)m / sizeof(struct cell))
		return SIZE_MAX;
	return (size_t)L * (size_t)m * sizeof(struct cell);
}

int engine_run_sweep(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	size_t ncells = sched_cells(s);
	struct sweep w = {.e = e,
	                  .m = (size_t)s->m,
	                  .S = (uint32_t)s->S,
	                  .L = s->route_stages,
	                  .order = e->res.order};
	bool *priced = pp_calloc((size_t)e->res.nchannels, sizeof(*priced));
	int rc = -1;

	w.kinds = 1u << OP_F;
	if (s->split || s->mixed)
		w.kinds |= 1u << OP_B | 1u << OP_W;
	if (!s->split || s->mixed)
		w.kinds |= 1u << OP_BW;
	w.cells = pp_large_alloc(e->arena, ncells, sizeof(*w.cells));
	w.stack = pp_mallocarray((size_t)s->p, sizeof(*w.stack));
	w.dev = pp_calloc((size_t)s->p, sizeof(*w.dev));
	if (e->record) {
		w.sent = pp_mallocarray(RECORD_RING, sizeof(*w.sent));
		w.late = pp_mallocarray(RECORD_LATE, sizeof(*w.late));
	}
	if (priced == NULL || w.cells == NULL || w.stack == NULL || w.dev == NULL ||
	    (e->record && (w.sent == NULL || w.late == NULL)) ||
	    lanes_new(&w, priced) != 0) {
		pp_nomem(err, ncells, sizeof(*w.cells));
		goto out;
	}
	memset(w.cells, 0xff, ncells * sizeof(*w.cells)); /* NOT_RUN everywhere */
	for (int d = s->p - 1; d >= 0; d--) {
		w.dev[d].head = e->dev[d].head;
		w.dev[d].end = e->dev[d].end;
		w.dev[d].first = s->dev_start[d];
		w.dev[d].free_at = e->dev[d].free_at;
		w.stack[w.n++] = (uint32_t)d;
	}
	while (w.n > 0 && !w.bad)
		run_device(&w, w.stack[--w.n]);
	if (e->record && !w.bad && !flush_sent(&w, w.nsent))
		w.bad = true;
	for (int d = 0; d < s->p; d++) {
		const struct sweep_dev *sd = &w.dev[d];
		struct device_result *dr = &e->res.devices[d];

		e->dev[d].head = sd->head;
		e->dev[d].free_at = sd->free_at;
		e->done += sd->head - sd->first;
		dr->busy = sd->busy;
		dr->peak_act = sd->peak;
		if (sd->head > sd->first) { /* it ran ops */
			dr->first_start = sd->first_start;
			dr->last_end = sd->last_end;
			if (sd->last_end > e->res.makespan)
				e->res.makespan = sd->last_end;
		}
	}
	if (!w.bad && e->done == s->nops) {
		count_unpriced(e, priced);
		if (e->record)
			msgs_link(&w);
	}
	rc = w.bad ? 1 : 0;
out:
	free(priced);
	if (rc == 0 && pp_arena_holds(e->arena, w.cells)) {
		e->spare = w.cells;
		e->spare_bytes = ncells * sizeof(*w.cells);
	}
	pp_large_free(e->arena, w.cells);
	free(w.lanes);
	free(w.sent);
	free(w.late);
	free(w.stack);
	free(w.dev);
	return rc;
}
