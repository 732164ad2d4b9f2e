/*
 * The schedule checker: coverage and placement (sched_check, one table cell per (kind, stage,
 * micro-batch)), dependency-feasible order (sched_check_order, which runs each device's list as
 * far as its inputs allow and wakes the devices an op feeds), the report of a wait that cannot
 * end (shared with the engine), and peak activations against the generator's bound
 * (sched_validate).
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/sched.h"

/* Slot of an op kind in the coverage table: F, the (B or BW) backward, W. */
static int kind_slot(enum op_kind kind)
{
	return kind == OP_F ? 0 : kind == OP_W ? 2 : 1;
}

/*
 * A table of one byte per (kind slot, stage, micro-batch) that s's micro-batches visit
 * (3 * sched_cells(s)): by slot, then the stage's place in its route, then micro-batch (a
 * micro-batch visits one route, so the stages of one place in each route share their cells).
 * Per stage, the first micro-batch that visits it and where its cells start, worked out once:
 * an op's place is then a few additions.
 */
struct cells {
	const struct sched *s;
	unsigned char *at; /* [3 * slot] */
	uint32_t *mb0;     /* [S] the first micro-batch that visits the stage */
	size_t *base;      /* [S] the stage's first cell in a slot's cells */
	size_t slot;       /* cells of a slot: sched_cells(s) */
};

/* Allocates c's zeroed table and its per-stage index for s; 0, or pp_nomem's -1. */
static int cells_new(struct cells *c, const struct sched *s, struct pp_error *err)
{
	size_t S = (size_t)s->S;

	c->s = s;
	c->slot = sched_cells(s);
	c->at = pp_calloc(3 * c->slot, 1);
	c->mb0 = pp_mallocarray(S, sizeof(*c->mb0));
	c->base = pp_mallocarray(S, sizeof(*c->base));
	if (c->at == NULL || c->mb0 == NULL || c->base == NULL) {
		free(c->at);
		free(c->mb0);
		free(c->base);
		return pp_nomem(err, 3 * c->slot, 1);
	}
	for (uint32_t st = 0; st < (uint32_t)S; st++) {
		c->mb0[st] = st / s->route_stages * s->route_mbs;
		c->base[st] = (size_t)(st % s->route_stages) * (size_t)s->m;
	}
	return 0;
}

static void cells_free(struct cells *c)
{
	free(c->at);
	free(c->mb0);
	free(c->base);
}

/* Whether micro-batch mb visits stage st (a stage in range). */
static bool visits(const struct cells *c, uint32_t mb, uint32_t st)
{
	return mb - c->mb0[st] < c->s->route_mbs;
}

/* The byte of (kind, mb, stage), a pair that visits. */
static unsigned char *cell_of(const struct cells *c, enum op_kind kind, uint32_t mb, uint32_t stage)
{
	return &c->at[(size_t)kind_slot(kind) * c->slot + c->base[stage] + mb];
}

/* Fails err about op on device d: "F(mb 3, stage 1) on device 0: why". Returns -1. */
static int op_error(struct pp_error *err, const struct op *op, int d, const char *why)
{
	char what[64];

	sched_op_format(what, sizeof(what), op);
	return pp_fail(err, PP_ERR_CONFIG, "%s on device %d: %s", what, d, why);
}

/* Checks one op against range, route, backward mode, placement, pairing and earlier ops; seen
 * keeps the kind + 1 of each cell's op. Returns 0 or -1. */
static int check_op(const struct sched *s, int d, size_t i, const struct cells *seen,
                    struct pp_error *err)
{
	const struct op *op = &s->ops[i];
	size_t pos = i - s->dev_start[d], end = s->dev_start[d] + s->dev_fill[d];
	unsigned char *cell;
	bool allowed;

	if (op->kind > OP_BW || op->stage >= (uint32_t)s->S || op->mb >= (uint32_t)s->m)
		return pp_fail(err, PP_ERR_CONFIG,
		               "device %d, op %zu: out of range (kind %u, mb %" PRIu32
		               ", stage %" PRIu32 "; m=%d, stages=%d)",
		               d, pos, op->kind, op->mb, op->stage, s->m, s->S);
	if (s->routes > 1 && !visits(seen, op->mb, op->stage)) {
		char why[120];

		snprintf(why, sizeof(why),
		         "micro-batch %" PRIu32 " does not visit stage %" PRIu32
		         " (its route is stages %" PRIu32 " to %" PRIu32 ")",
		         op->mb, op->stage, op->mb / s->route_mbs * s->route_stages,
		         (op->mb / s->route_mbs + 1) * s->route_stages - 1);
		return op_error(err, op, d, why);
	}
	allowed =
	        op->kind == OP_F || s->mixed || (s->split ? op->kind != OP_BW : op->kind == OP_BW);
	if (!allowed)
		return op_error(err, op, d,
		                s->split ? "fused BW in a split-backward schedule"
		                         : "split B or W in a fused-backward schedule");
	if (s->stage_device[op->stage] != (uint32_t)d) {
		char why[64];

		snprintf(why, sizeof(why), "stage %" PRIu32 " lives on device %" PRIu32, op->stage,
		         s->stage_device[op->stage]);
		return op_error(err, op, d, why);
	}
	if ((op->flags & OP_OVERLAP) &&
	    (op->kind != OP_F || i + 1 >= end ||
	     (s->ops[i + 1].kind != OP_B && s->ops[i + 1].kind != OP_BW) ||
	     (s->ops[i + 1].flags & OP_OVERLAP)))
		return op_error(err, op, d, "an overlapped pair is an F followed by a B or BW");
	cell = cell_of(seen, (enum op_kind)op->kind, op->mb, op->stage);
	if (*cell)
		return op_error(err, op, d,
		                *cell - 1 == op->kind
		                        ? "appears twice"
		                        : "its backward appears both fused and split");
	*cell = (unsigned char)(op->kind + 1);
	return 0;
}

int sched_check(const struct sched *s, struct pp_error *err)
{
	return sched_check_where(s, NULL, NULL, err);
}

/* The first op a complete schedule lacks, in (kind, stage, micro-batch) order; false if none.
 * A backward is either BW or B with its W; a mixed schedule may choose per cell. Only the
 * micro-batches that visit a stage have its ops. */
static bool find_missing(const struct sched *s, const struct cells *seen, struct op *missing)
{
	for (uint32_t st = 0; st < (uint32_t)s->S; st++)
		for (uint32_t mb = seen->mb0[st]; mb < seen->mb0[st] + s->route_mbs; mb++) {
			unsigned char back = *cell_of(seen, OP_B, mb, st);

			*missing = (struct op){mb, st, OP_F, 0};
			if (!*cell_of(seen, OP_F, mb, st))
				return true;
			missing->kind = s->split && !s->mixed ? OP_B : OP_BW;
			if (!back)
				return true;
			missing->kind = OP_W;
			if (back - 1 == OP_B && !*cell_of(seen, OP_W, mb, st))
				return true;
		}
	for (uint32_t st = 0; st < (uint32_t)s->S; st++)
		for (uint32_t mb = seen->mb0[st]; mb < seen->mb0[st] + s->route_mbs; mb++)
			if (*cell_of(seen, OP_W, mb, st) &&
			    *cell_of(seen, OP_B, mb, st) - 1 != OP_B) {
				*missing = (struct op){mb, st, OP_B, 0};
				return true;
			}
	return false;
}

int sched_check_where(const struct sched *s, size_t *bad_op, int *bad_device, struct pp_error *err)
{
	struct cells seen;
	struct op missing;
	int rc = 0;

	if (cells_new(&seen, s, err) != 0)
		return -1;
	for (int d = 0; d < s->p && rc == 0; d++)
		/* only the ops pushed so far: a slot never filled is a missing op, named below */
		for (size_t i = s->dev_start[d]; i < s->dev_start[d] + s->dev_fill[d] && rc == 0;
		     i++)
			if ((rc = check_op(s, d, i, &seen, err)) != 0) {
				if (bad_op != NULL)
					*bad_op = i;
				if (bad_device != NULL)
					*bad_device = d;
			}
	if (rc == 0 && find_missing(s, &seen, &missing)) {
		char what[64];

		sched_op_format(what, sizeof(what), &missing);
		rc = pp_fail(err, PP_ERR_CONFIG, "%s: missing (device %" PRIu32 " never runs it)",
		             what, s->stage_device[missing.stage]);
		if (bad_op != NULL)
			*bad_op = SIZE_MAX;
		if (bad_device != NULL)
			*bad_device = (int)s->stage_device[missing.stage];
	}
	cells_free(&seen);
	return rc;
}

/* The op a stuck device waits in (the head, or its overlapped partner) and the input it waits
 * for; returns the device that owes that input. */
static int stuck_on(const struct sched *s, const struct op *head,
                    bool (*is_done)(const void *ctx, const struct op *op), const void *ctx,
                    const struct op **op, struct op *input)
{
	struct op in[2];
	int n = sched_op_inputs(s, head, in), k = 0;

	*op = head;
	while (k < n && is_done(ctx, &in[k]))
		k++;
	/* all of an overlapped F's inputs are there: its partner is the one waiting */
	if (k == n && (head->flags & OP_OVERLAP)) {
		*op = head + 1;
		n = sched_op_inputs(s, *op, in);
		for (k = 0; k < n && is_done(ctx, &in[k]);)
			k++;
	}
	assert(n > 0);
	*input = in[k < n ? k : n - 1];
	return (int)s->stage_device[input->stage];
}

/* Appends " cycle: device a -> device b -> ... -> device a" to msg, following from stuck device
 * d0 the device each waits on (waits[d]) until one repeats; seen[p] is scratch. */
static size_t append_cycle(char *msg, size_t len, size_t n, const int *waits, int *seen, int p,
                           int d0)
{
	int d = d0, step = 1;

	memset(seen, 0, (size_t)p * sizeof(*seen));
	while (seen[d] == 0) {
		seen[d] = step++;
		d = waits[d];
	}
	len += (size_t)snprintf(msg + len, n - len, "; cycle: device %d", d);
	for (int e = waits[d]; len < n; e = waits[e]) {
		len += (size_t)snprintf(msg + len, n - len, " -> device %d", e);
		if (e == d)
			break;
	}
	return len < n ? len : n - 1;
}

int sched_report_wait(const struct sched *s, const size_t *head, const char *what,
                      bool (*is_done)(const void *ctx, const struct op *op), const void *ctx,
                      const struct sched_where *where, size_t *stuck_op, enum pp_errkind kind,
                      struct pp_error *err)
{
	char msg[sizeof(err->msg)], part[300], a[64], b[64], place[120];
	size_t len = strlen(what), room = sizeof(msg) - 120;
	int stuck = 0, shown = 0, first = -1;
	/* waits[p] the device each stuck one waits on, then p ints of append_cycle's scratch */
	int *waits = pp_mallocarray(2 * (size_t)s->p, sizeof(*waits));

	if (waits == NULL)
		return pp_nomem(err, 2 * (size_t)s->p, sizeof(*waits));
	snprintf(msg, sizeof(msg), "%s", what);
	for (int d = 0; d < s->p; d++) {
		const struct op *op;
		struct op input;
		int from;

		waits[d] = -1;
		if (head[d] == s->dev_start[d + 1])
			continue;
		stuck++;
		from = waits[d] = stuck_on(s, &s->ops[head[d]], is_done, ctx, &op, &input);
		if (first < 0) {
			first = d;
			if (stuck_op != NULL)
				*stuck_op = (size_t)(op - s->ops);
		}
		if (stuck > shown + 1)
			continue;
		sched_op_format(a, sizeof(a), op);
		sched_op_format(b, sizeof(b), &input);
		place[0] = '\0';
		if (where != NULL)
			where->name(where->ctx, (size_t)(op - s->ops), place, sizeof(place));
		if (from == d)
			snprintf(part, sizeof(part), "device %d waits in %s%s for its own %s", d, a,
			         place, b);
		else
			snprintf(part, sizeof(part),
			         "device %d waits in %s%s for %s from device %d", d, a, place, b,
			         from);
		if (len + strlen(part) + 2 >= room)
			continue;
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s %s", shown ? ";" : "",
		                        part);
		shown++;
	}
	if (stuck > shown)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "; and %d more devices",
		                        stuck - shown);
	if (first >= 0)
		append_cycle(msg, len, sizeof(msg), waits, waits + s->p, s->p, first);
	free(waits);
	return pp_fail(err, kind, "%s", msg);
}

/* State of sched_check_order: which ops have run. */
struct order_state {
	const struct sched *s;
	struct cells done; /* 1 for each op that has run */
};

static bool order_done(const void *ctx, const struct op *op)
{
	const struct order_state *st = ctx;

	return *cell_of(&st->done, (enum op_kind)op->kind, op->mb, op->stage) != 0;
}

/* Whether every input of the n ops at ops[] has run. */
static bool inputs_done(const struct order_state *st, const struct op *ops, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct op in[2];
		int ni = sched_op_inputs(st->s, &ops[k], in);

		for (int i = 0; i < ni; i++)
			if (!order_done(st, &in[i]))
				return false;
	}
	return true;
}

int sched_check_order(const struct sched *s, struct pp_error *err)
{
	return sched_check_order_where(s, NULL, NULL, err);
}

int sched_check_order_where(const struct sched *s, const struct sched_where *where, size_t *stuck,
                            struct pp_error *err)
{
	struct order_state st = {s, {0}};
	size_t *head = pp_mallocarray((size_t)s->p, sizeof(*head));
	/* devices to advance; each op's completion pushes at most two, plus the initial p */
	size_t cap = (size_t)s->p + 2 * s->nops, top = 0, ran = 0;
	int *todo = pp_mallocarray(cap, sizeof(*todo));
	int rc = 0;

	if (head == NULL || todo == NULL) {
		free(todo);
		free(head);
		return pp_nomem(err, cap, sizeof(*todo));
	}
	if (cells_new(&st.done, s, err) != 0) {
		free(todo);
		free(head);
		return -1;
	}
	for (int d = 0; d < s->p; d++) {
		head[d] = s->dev_start[d];
		todo[top++] = d;
	}
	while (top > 0) {
		int d = todo[--top];

		while (head[d] < s->dev_start[d + 1]) {
			/* an overlapped pair runs as one slot: both ops' inputs first */
			size_t slot = s->ops[head[d]].flags & OP_OVERLAP ? 2 : 1;

			if (!inputs_done(&st, &s->ops[head[d]], slot))
				break;
			for (size_t k = 0; k < slot; k++) {
				const struct op *op = &s->ops[head[d] + k];
				struct op out[2];
				int n = sched_op_consumers(s, op, out);

				*cell_of(&st.done, (enum op_kind)op->kind, op->mb, op->stage) = 1;
				for (int c = 0; c < n; c++)
					if ((int)s->stage_device[out[c].stage] != d)
						todo[top++] = (int)s->stage_device[out[c].stage];
			}
			head[d] += slot;
			ran += slot;
		}
	}
	if (ran < s->nops) {
		char what[80];

		snprintf(what, sizeof(what), "cyclic wait after %zu of %zu ops:", ran, s->nops);
		rc = sched_report_wait(s, head, what, order_done, &st, where, stuck, PP_ERR_CONFIG,
		                       err);
	}
	free(todo);
	free(head);
	cells_free(&st.done);
	return rc;
}

/* Peak of device d's alive activations; act and act_w NULL count 1 for each (W keeps all). */
static int64_t device_peak(const struct sched *s, int d, const int64_t *act, const int64_t *act_w)
{
	int64_t alive = 0, top = 0;

	for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
		alive += sched_act_change(&s->ops[i], act, act_w);
		if (alive > top)
			top = alive;
	}
	return top;
}

void sched_peak(const struct sched *s, const int64_t *act, const int64_t *act_w, int64_t *peak)
{
	for (int d = 0; d < s->p; d++)
		peak[d] = device_peak(s, d, act, act_w);
}

void sched_peak_units(const struct sched *s, double *peak)
{
	for (int d = 0; d < s->p; d++)
		peak[d] = (double)device_peak(s, d, NULL, NULL) * s->routes / s->v;
}

int sched_validate(const struct sched *s, struct pp_error *err)
{
	struct sched_params sp = sched_params_of(s);
	double *peak;
	int rc = 0;

	if (sched_check(s, err) != 0 || sched_check_order(s, err) != 0)
		return -1;
	if (s->desc == NULL || s->desc->peak.fn == NULL)
		return 0;
	peak = pp_mallocarray((size_t)s->p, sizeof(*peak));
	if (peak == NULL)
		return pp_nomem(err, (size_t)s->p, sizeof(*peak));
	sched_peak_units(s, peak);
	for (int d = 0; d < s->p && rc == 0; d++) {
		/* the bound is the generated device's (sched_reorder_devices) */
		double bound = s->desc->peak.fn(
		        &sp, s->dev_logical != NULL ? (int)s->dev_logical[d] : d);

		if (peak[d] > bound + 1e-9)
			rc = pp_fail(err, PP_ERR_CONFIG,
			             "device %d: peak activations %g exceed the bound %g (%s) of "
			             "schedule '%s'",
			             d, peak[d], bound, s->desc->peak.text, s->desc->name);
	}
	free(peak);
	return rc;
}
