/*
 * The engine's dependency sweep. With full-duplex channels every channel has one sender, which
 * sends in the order of its own list, so an op's start is max(its device free, its inputs
 * arrived) whatever order the devices advance in: no event queue is needed. Each device runs
 * its list while its head op's inputs are in, and an op whose output crosses to another device
 * wakes that device. The times are the event loop's exactly (a unit test compares them); only
 * the order in which messages are sent across devices differs, which is why runs that record
 * their messages, and half-duplex channels, take the event loop.
 *
 * The sweep pulls rather than pushes: an op finds its inputs by arithmetic on its own
 * (micro-batch, stage), in a table with one cell per (micro-batch, stage) holding when that
 * cell's forward and backward outputs reach the neighbouring stage. It needs no table of
 * consumers and no count of inputs, so it touches each op's bytes, its times and a sixth to a
 * half of a cell: bytes per op are what a run costs on a machine that faults its pages in.
 *
 * It also checks the schedule as it goes, each op where it reads it (range, backward mode,
 * device, pairing, and a cell that runs twice): a schedule of exactly its share of ops per
 * device in which every op ran once, each valid, covers every cell. Whatever it finds wrong
 * stops it, and engine_run has sched_check name it.
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

/*
 * How many ops ahead the sweep asks for the lines it will read: each device walks its own part
 * of the op arrays, and 64 devices are more streams than the CPU's prefetcher follows.
 */
#define AHEAD 16

/* What the sweep knows of a device beyond struct device_state. */
struct sweep_dev {
	const pp_time *wait; /* the cell entry its head op waits for, or NULL */
	bool checked;        /* its head op (and partner) passed op_ok */
	int64_t alive, peak; /* activations alive after the ops it ran, and their peak */
};

struct sweep {
	struct engine *e;
	struct cell *cells;    /* [S * m] by stage, then micro-batch */
	struct sweep_dev *dev; /* [p] */
	uint32_t *stack;       /* [p] devices to run: each is on it at most once, as a device
	                        * is pushed at the start and then only when what it waits for
	                        * arrives, which clears its wait */
	uint32_t n;
	size_t m;       /* micro-batches: a cell's neighbour on the next stage is m cells on */
	unsigned kinds; /* bit k: op kind k belongs to the schedule's backward mode */
	bool bad;       /* an op failed its check: the sweep stopped */
};

/* Wakes device d if it waits for the cell entry x, which has just been written. */
static void wake_on(struct sweep *w, uint32_t d, const pp_time *x)
{
	if (w->dev[d].wait == x) {
		w->dev[d].wait = NULL;
		w->stack[w->n++] = d;
	}
}

static struct cell *cell_of(const struct sweep *w, uint32_t mb, uint32_t st)
{
	return &w->cells[(size_t)st * w->m + mb];
}

/* Asks for the cells op will read and write (its own, and the neighbour its kind reads). */
static PP_HOT void prefetch_cells(const struct sweep *w, const struct op *op)
{
	const struct sched *s = w->e->s;
	uint32_t st = op->stage, mb = op->mb;

	if (st >= (uint32_t)s->S || mb >= (uint32_t)s->m)
		return; /* op_ok refuses it when it comes to run */
	PP_PREFETCH(cell_of(w, mb, st));
	if (op->kind == OP_F && st > 0)
		PP_PREFETCH(cell_of(w, mb, st - 1));
	else if ((op->kind == OP_B || op->kind == OP_BW) && st + 1 < (uint32_t)s->S)
		PP_PREFETCH(cell_of(w, mb, st + 1));
}

/* Whether op i of device d (whose list ends before end) is one sched_check accepts, but for
 * running twice, which send finds. */
static PP_HOT bool op_ok(const struct sweep *w, int d, size_t i, size_t end)
{
	const struct sched *s = w->e->s;
	const struct op *op = &s->ops[i];

	if (op->kind > OP_BW || !(w->kinds >> op->kind & 1) || op->mb >= (uint32_t)s->m ||
	    op->stage >= (uint32_t)s->S || s->stage_device[op->stage] != (uint32_t)d)
		return false;
	return !(op->flags & OP_OVERLAP) ||
	       (op->kind == OP_F && i + 1 < end && (op[1].kind == OP_B || op[1].kind == OP_BW) &&
	        !(op[1].flags & OP_OVERLAP));
}

/*
 * Whether op's inputs are in, raising *at to the latest arrival; if not, the entry it waits for
 * in *wait. An input made on the op's own device ran before it there (or never will), so only
 * its presence counts: the device's free time already covers its end.
 */
static PP_HOT bool inputs_in(const struct sweep *w, const struct op *op, const struct cell *cl,
                             pp_time *at, const pp_time **wait)
{
	const pp_time *in;
	pp_time x;

	switch ((enum op_kind)op->kind) {
	case OP_F:
		if (op->stage == 0)
			return true;
		in = &(cl - w->m)->f;
		break;
	case OP_B:
	case OP_BW:
		in = &cl->f;
		if (*in == NOT_RUN)
			break;
		if (op->stage + 1 == (uint32_t)w->e->s->S)
			return true;
		in = &(cl + w->m)->b;
		break;
	case OP_W:
		in = &cl->b;
		if (*in == NOT_RUN)
			break;
		return true;
	default:
		return false;
	}
	if ((x = *in) == NOT_RUN) {
		*wait = in;
		return false;
	}
	x &= ~W_RAN;
	if (x > *at)
		*at = x;
	return true;
}

/* Sends the output of op (it ended at end on device d) toward the stage that consumes it, and
 * wakes that stage's device. Returns false when the op's cell already ran it. */
static PP_HOT bool send(struct sweep *w, int d, const struct op *op, struct cell *cl, pp_time end)
{
	struct engine *e = w->e;
	const struct sched *s = e->s;
	const struct cost *c = e->c;
	uint32_t st = op->stage, to;
	int ch;

	switch ((enum op_kind)op->kind) {
	case OP_F:
		if (cl->f != NOT_RUN)
			return false;
		cl->f = end;
		if (st + 1 == (uint32_t)s->S || (ch = e->fwd_chan[st]) < 0)
			return true;
		cl->f = engine_transfer(e, d, ch, c->msg_bytes[st], c->msg_time[st], end);
		to = st + 1;
		break;
	case OP_B:
	case OP_BW:
		if (cl->b != NOT_RUN)
			return false;
		cl->b = end;
		if (st == 0 || (ch = e->bwd_chan[st - 1]) < 0)
			return true;
		cl->b = engine_transfer(e, d, ch, c->msg_bytes[st - 1], c->msg_time[st - 1], end);
		to = st - 1;
		break;
	case OP_W:
		if (cl->b & W_RAN)
			return false;
		cl->b |= W_RAN;
		return true;
	default:
		return false;
	}
	wake_on(w, s->stage_device[to], to > st ? &cl->f : &cl->b);
	return true;
}

/* Runs device d's list while its head op's inputs are in. */
static void run_device(struct sweep *w, int d)
{
	struct engine *e = w->e;
	const struct sched *s = e->s;
	struct device_state *ds = &e->dev[d];
	struct sweep_dev *sd = &w->dev[d];

	while (ds->head < ds->end) {
		size_t i = ds->head, next = i + AHEAD < ds->end ? i + AHEAD : i,
		       far = i + 2 * AHEAD < ds->end ? i + 2 * AHEAD : next;
		const struct op *op = &s->ops[i];
		bool pair = (op->flags & OP_OVERLAP) != 0;
		pp_time start = ds->free_at, end;
		struct cell *cl, *cl2;

		if (!sd->checked) {
			PP_PREFETCH(&s->ops[far]);
			PP_PREFETCH(&e->res.times[next]);
			prefetch_cells(w, &s->ops[next]);
			if (!op_ok(w, d, i, ds->end) || (pair && !op_ok(w, d, i + 1, ds->end))) {
				w->bad = true;
				return;
			}
			sd->checked = true;
		}
		cl = cell_of(w, op->mb, op->stage);
		cl2 = pair ? cell_of(w, op[1].mb, op[1].stage) : cl;
		if (!inputs_in(w, op, cl, &start, &sd->wait) ||
		    (pair && !inputs_in(w, op + 1, cl2, &start, &sd->wait)))
			return;
		sd->checked = false;
		end = start + (pair ? engine_pair_duration(e->c, op, op + 1)
		                    : engine_op_duration(e->c, op));
		engine_ran(e, d, i, pair, start, end);
		sd->alive += sched_act_change(op, e->c->act, e->c->act_w);
		sd->peak = sd->alive > sd->peak ? sd->alive : sd->peak;
		if (pair) {
			sd->alive += sched_act_change(op + 1, e->c->act, e->c->act_w);
			sd->peak = sd->alive > sd->peak ? sd->alive : sd->peak;
		}
		ds->free_at = end;
		ds->head += pair ? 2 : 1;
		e->done += pair ? 2 : 1;
		if (!send(w, d, op, cl, end) || (pair && !send(w, d, op + 1, cl2, end))) {
			w->bad = true;
			return;
		}
	}
}

int engine_run_sweep(struct engine *e, struct pp_error *err)
{
	const struct sched *s = e->s;
	size_t ncells = (size_t)s->S * (size_t)s->m;
	struct sweep w = {e, NULL, NULL, NULL, 0, (size_t)s->m, 0, false};

	w.kinds = 1u << OP_F;
	if (s->split || s->mixed)
		w.kinds |= 1u << OP_B | 1u << OP_W;
	if (!s->split || s->mixed)
		w.kinds |= 1u << OP_BW;
	w.cells = pp_mallocarray_large(ncells, sizeof(*w.cells));
	w.stack = pp_mallocarray((size_t)s->p, sizeof(*w.stack));
	w.dev = pp_calloc((size_t)s->p, sizeof(*w.dev));
	if (w.cells == NULL || w.stack == NULL || w.dev == NULL) {
		free(w.cells);
		free(w.stack);
		free(w.dev);
		return pp_nomem(err, ncells, sizeof(*w.cells));
	}
	memset(w.cells, 0xff, ncells * sizeof(*w.cells)); /* NOT_RUN everywhere */
	for (int d = s->p - 1; d >= 0; d--)
		w.stack[w.n++] = (uint32_t)d;
	while (w.n > 0 && !w.bad)
		run_device(&w, (int)w.stack[--w.n]);
	for (int d = 0; d < s->p; d++)
		e->res.devices[d].peak_act = w.dev[d].peak;
	free(w.cells);
	free(w.stack);
	free(w.dev);
	return w.bad ? 1 : 0;
}
