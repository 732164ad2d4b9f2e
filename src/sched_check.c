/*
 * The schedule checker: coverage and placement (sched_check), dependency-feasible order
 * (sched_check_order), peak activations against the generator's bound (sched_validate), and the
 * dependency rules that the engine shares.
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

/* Index of (kind, mb, stage) in a coverage table of S * m * 3 cells. */
static size_t cell_of(const struct sched *s, enum op_kind kind, uint32_t mb, uint32_t stage)
{
	return ((size_t)kind_slot(kind) * (size_t)s->S + stage) * (size_t)s->m + mb;
}

/* Checks one op against range, backward mode, placement and earlier ops; 0 or -1. */
static int check_op(const struct sched *s, int d, size_t pos, const struct op *op,
                    unsigned char *seen, struct pp_error *err)
{
	char what[64];
	bool allowed;

	if (op->kind > OP_BW || op->stage >= (uint32_t)s->S || op->mb >= (uint32_t)s->m)
		return pp_fail(err, PP_ERR_CONFIG,
		               "device %d, op %zu: out of range (kind %u, mb %" PRIu32
		               ", stage %" PRIu32 "; m=%d, stages=%d)",
		               d, pos, op->kind, op->mb, op->stage, s->m, s->S);
	sched_op_format(what, sizeof(what), op);
	allowed = op->kind == OP_F || (s->split ? op->kind != OP_BW : op->kind == OP_BW);
	if (!allowed)
		return pp_fail(err, PP_ERR_CONFIG, "%s on device %d: %s", what, d,
		               s->split ? "fused BW in a split-backward schedule"
		                        : "split B or W in a fused-backward schedule");
	if (s->stage_device[op->stage] != (uint32_t)d)
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s on device %d: stage %" PRIu32 " lives on device %" PRIu32, what,
		               d, op->stage, s->stage_device[op->stage]);
	if (seen[cell_of(s, (enum op_kind)op->kind, op->mb, op->stage)]++)
		return pp_fail(err, PP_ERR_CONFIG, "%s on device %d: appears twice", what, d);
	return 0;
}

int sched_check(const struct sched *s, struct pp_error *err)
{
	return sched_check_where(s, NULL, err);
}

int sched_check_where(const struct sched *s, size_t *bad_op, struct pp_error *err)
{
	static const enum op_kind fused[] = {OP_F, OP_BW}, split[] = {OP_F, OP_B, OP_W};
	const enum op_kind *kinds = s->split ? split : fused;
	int nkinds = s->split ? 3 : 2;
	unsigned char *seen = pp_xcalloc((size_t)s->S * (size_t)s->m * 3, 1);
	int rc = 0;

	for (int d = 0; d < s->p && rc == 0; d++)
		/* only the ops pushed so far: a slot never filled is a missing op, named below */
		for (size_t i = s->dev_start[d]; i < s->dev_start[d] + s->dev_fill[d] && rc == 0;
		     i++)
			if ((rc = check_op(s, d, i - s->dev_start[d], &s->ops[i], seen, err)) !=
			            0 &&
			    bad_op != NULL)
				*bad_op = i;
	for (int k = 0; k < nkinds && rc == 0; k++)
		for (uint32_t st = 0; st < (uint32_t)s->S && rc == 0; st++)
			for (uint32_t mb = 0; mb < (uint32_t)s->m && rc == 0; mb++) {
				struct op missing = {mb, st, (uint8_t)kinds[k]};
				char what[64];

				if (seen[cell_of(s, kinds[k], mb, st)])
					continue;
				sched_op_format(what, sizeof(what), &missing);
				rc = pp_fail(err, PP_ERR_CONFIG,
				             "%s: missing (device %" PRIu32 " never runs it)", what,
				             s->stage_device[st]);
				if (bad_op != NULL)
					*bad_op = SIZE_MAX;
			}
	free(seen);
	return rc;
}

int sched_op_inputs(const struct sched *s, const struct op *op, struct op in[2])
{
	int n = 0;

	switch ((enum op_kind)op->kind) {
	case OP_F:
		if (op->stage > 0)
			in[n++] = (struct op){op->mb, op->stage - 1, OP_F};
		break;
	case OP_B:
	case OP_BW:
		in[n++] = (struct op){op->mb, op->stage, OP_F};
		if (op->stage + 1 < (uint32_t)s->S)
			in[n++] = (struct op){op->mb, op->stage + 1, op->kind};
		break;
	case OP_W:
		in[n++] = (struct op){op->mb, op->stage, OP_B};
		break;
	}
	return n;
}

int sched_op_consumers(const struct sched *s, const struct op *op, struct op out[2])
{
	int n = 0;

	switch ((enum op_kind)op->kind) {
	case OP_F:
		out[n++] = (struct op){op->mb, op->stage, (uint8_t)(s->split ? OP_B : OP_BW)};
		if (op->stage + 1 < (uint32_t)s->S)
			out[n++] = (struct op){op->mb, op->stage + 1, OP_F};
		break;
	case OP_B:
		out[n++] = (struct op){op->mb, op->stage, OP_W};
		if (op->stage > 0)
			out[n++] = (struct op){op->mb, op->stage - 1, OP_B};
		break;
	case OP_BW:
		if (op->stage > 0)
			out[n++] = (struct op){op->mb, op->stage - 1, OP_BW};
		break;
	case OP_W:
		break;
	}
	return n;
}

int sched_report_wait(const struct sched *s, const size_t *head, const char *what,
                      bool (*is_done)(const void *ctx, const struct op *op), const void *ctx,
                      enum pp_errkind kind, struct pp_error *err)
{
	char msg[sizeof(err->msg)], part[200], a[64], b[64];
	size_t len = strlen(what), room = sizeof(msg) - 40;
	int stuck = 0, shown = 0;

	snprintf(msg, sizeof(msg), "%s", what);
	for (int d = 0; d < s->p; d++) {
		const struct op *op;
		struct op in[2];
		int n, k = 0, from;

		if (head[d] == s->dev_start[d + 1])
			continue;
		stuck++;
		op = &s->ops[head[d]];
		n = sched_op_inputs(s, op, in);
		while (k < n - 1 && is_done(ctx, &in[k]))
			k++;
		assert(n > 0);
		from = (int)s->stage_device[in[k].stage];
		sched_op_format(a, sizeof(a), op);
		sched_op_format(b, sizeof(b), &in[k]);
		if (from == d)
			snprintf(part, sizeof(part), "device %d waits in %s for its own %s", d, a,
			         b);
		else
			snprintf(part, sizeof(part), "device %d waits in %s for %s from device %d",
			         d, a, b, from);
		if (stuck > shown + 1 || len + strlen(part) + 2 >= room)
			continue;
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s %s", shown ? ";" : "",
		                        part);
		shown++;
	}
	if (stuck > shown)
		snprintf(msg + len, sizeof(msg) - len, "; and %d more devices", stuck - shown);
	return pp_fail(err, kind, "%s", msg);
}

/* State of sched_check_order: which ops have run. */
struct order_state {
	const struct sched *s;
	unsigned char *done; /* [S * m * 3] by cell_of */
};

static bool order_done(const void *ctx, const struct op *op)
{
	const struct order_state *st = ctx;

	return st->done[cell_of(st->s, (enum op_kind)op->kind, op->mb, op->stage)] != 0;
}

int sched_check_order(const struct sched *s, struct pp_error *err)
{
	struct order_state st = {s, pp_xcalloc((size_t)s->S * (size_t)s->m * 3, 1)};
	size_t *head = pp_xmallocarray((size_t)s->p, sizeof(*head));
	/* devices to advance; each op's completion pushes at most two, plus the initial p */
	size_t cap = (size_t)s->p + 2 * s->nops, top = 0, ran = 0;
	int *todo = pp_xmallocarray(cap, sizeof(*todo));
	int rc = 0;

	for (int d = 0; d < s->p; d++) {
		head[d] = s->dev_start[d];
		todo[top++] = d;
	}
	while (top > 0) {
		int d = todo[--top];

		while (head[d] < s->dev_start[d + 1]) {
			const struct op *op = &s->ops[head[d]];
			struct op in[2], out[2];
			int n = sched_op_inputs(s, op, in), k = 0;

			while (k < n && order_done(&st, &in[k]))
				k++;
			if (k < n)
				break;
			st.done[cell_of(s, (enum op_kind)op->kind, op->mb, op->stage)] = 1;
			head[d]++;
			ran++;
			n = sched_op_consumers(s, op, out);
			for (k = 0; k < n; k++) {
				int e = (int)s->stage_device[out[k].stage];

				if (e != d)
					todo[top++] = e;
			}
		}
	}
	if (ran < s->nops) {
		char what[80];

		snprintf(what, sizeof(what), "cyclic wait after %zu of %zu ops:", ran, s->nops);
		rc = sched_report_wait(s, head, what, order_done, &st, PP_ERR_CONFIG, err);
	}
	free(todo);
	free(head);
	free(st.done);
	return rc;
}

void sched_peak(const struct sched *s, const int64_t *act, const int64_t *act_w, int64_t *peak)
{
	for (int d = 0; d < s->p; d++) {
		int64_t alive = 0, top = 0;

		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
			const struct op *op = &s->ops[i];

			switch ((enum op_kind)op->kind) {
			case OP_F:
				alive += act[op->stage];
				if (alive > top)
					top = alive;
				break;
			case OP_B:
				alive -= act[op->stage] - act_w[op->stage];
				break;
			case OP_W:
				alive -= act_w[op->stage];
				break;
			case OP_BW:
				alive -= act[op->stage];
				break;
			}
		}
		peak[d] = top;
	}
}

void sched_peak_units(const struct sched *s, double *peak)
{
	int64_t *one = pp_xmallocarray((size_t)s->S, sizeof(*one));
	int64_t *top = pp_xmallocarray((size_t)s->p, sizeof(*top));

	for (int st = 0; st < s->S; st++)
		one[st] = 1;
	sched_peak(s, one, one, top);
	for (int d = 0; d < s->p; d++)
		peak[d] = (double)top[d] / s->v;
	free(one);
	free(top);
}

int sched_validate(const struct sched *s, struct pp_error *err)
{
	struct sched_params sp = sched_params_of(s);
	double *peak;
	int rc = 0;

	if (sched_check(s, err) != 0 || sched_check_order(s, err) != 0)
		return -1;
	if (s->desc == NULL || s->desc->peak_bound == NULL)
		return 0;
	peak = pp_xmallocarray((size_t)s->p, sizeof(*peak));
	sched_peak_units(s, peak);
	for (int d = 0; d < s->p && rc == 0; d++) {
		double bound = s->desc->peak_bound(&sp, d);

		if (peak[d] > bound + 1e-9)
			rc = pp_fail(err, PP_ERR_CONFIG,
			             "device %d: peak activations %g exceed the bound %g (%s) of "
			             "schedule '%s'",
			             d, peak[d], bound, s->desc->peak_text, s->desc->name);
	}
	free(peak);
	return rc;
}
