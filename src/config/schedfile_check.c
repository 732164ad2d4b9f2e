/*
 * A schedule file's rows made a schedule: its shape inferred (p, v, m, backward kind, placement,
 * routes), its op lists built, its PyTorch transfers checked against its ops, and its order
 * checked to run; each error names the line and column of the op at fault. The reader
 * (schedfile.c) hands its rows over.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/config.h"
#include "schedfile_internal.h"

static long stage_under(enum placement pl, long p, long d, long c)
{
	if (pl == PLACE_V && c % 2 == 1)
		return (c + 1) * p - 1 - d;
	return c * p + d;
}

/* Chunk of a stage under a placement, or -1 when the stage is not on device d. */
static long chunk_under(enum placement pl, long p, long d, long st)
{
	long c = st / p;

	return stage_under(pl, p, d, c) == st ? c : -1;
}

/* Whether row w sits where placement pl puts it. */
static bool fits(const struct row *w, enum placement pl, long p)
{
	if (w->stage >= 0 && w->chunk >= 0)
		return stage_under(pl, p, w->device, w->chunk) == w->stage;
	return w->stage < 0 || chunk_under(pl, p, w->device, w->stage) >= 0;
}

/*
 * The most routes (struct sched) the rows of a schedule of v chunks, S stages and m
 * micro-batches fit: R dividing v and m such that each row's micro-batch is of the block of
 * its stage's run (DualPipe's two); 1 when only one does. A complete schedule of R routes fits
 * only R and 1: its micro-batches visit every stage of their route.
 */
static int infer_routes(const struct reader *r, long v, long S, long m)
{
	for (long routes = v; routes > 1; routes--) {
		size_t i = 0;

		if (v % routes != 0 || m % routes != 0)
			continue;
		while (i < r->nrows &&
		       r->rows[i].stage / (S / routes) == r->rows[i].mb / (m / routes))
			i++;
		if (i == r->nrows)
			return (int)routes;
	}
	return 1;
}

/* "rank" in PyTorch's format (a line per rank), "device" in ppsim's. */
static const char *unit(const struct reader *r)
{
	return r->format == SCHEDFILE_PPSIM ? "device" : "rank";
}

/* Row w against the job r->job: 0, or -1 failing at w when it names what the job has not. */
static int check_row_job(const struct reader *r, const struct row *w, struct pp_error *err)
{
	const struct schedfile_job *j = &r->job;
	char what[200];

	if (j->p > 0 && w->device >= j->p)
		snprintf(what, sizeof(what), "%s %ld is outside the job's %d %ss (0 to %d)",
		         unit(r), w->device, j->p, unit(r), j->p - 1);
	else if (j->p > 0 && j->v > 0 && w->stage >= (long)j->p * j->v)
		snprintf(what, sizeof(what),
		         "stage %ld is outside the job's %d stages (%d %ss of %d, 0 to %d)",
		         w->stage, j->p * j->v, j->p, unit(r), j->v, j->p * j->v - 1);
	else if (j->v > 0 && w->chunk >= j->v)
		snprintf(what, sizeof(what), "chunk %ld is outside the job's %d chunks a device",
		         w->chunk, j->v);
	else if (j->m > 0 && w->mb >= j->m)
		snprintf(what, sizeof(what), "micro-batch %ld is outside the job's %d (0 to %d)",
		         w->mb, j->m, j->m - 1);
	else
		return 0;
	return schedfile_fail_row(r, err, w, what);
}

/*
 * A few rows naming stages past the last whole chunk (stage 4 of a file of stages 0 to 3 on 4
 * ranks, in one row where each other stage has many): the first of them is at fault. 0 or -1.
 */
static int check_stage_tail(const struct reader *r, struct pp_error *err)
{
	long p = r->format == SCHEDFILE_TORCH ? r->devices : 0, top = -1, bound;
	size_t tail = 0, staged = 0;
	char what[240];

	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];

		p = w->device + 1 > p ? w->device + 1 : p;
		if (w->stage < 0 || w->chunk >= 0)
			continue;
		top = w->stage > top ? w->stage : top;
		staged++;
	}
	if (top < 0 || p <= 0 || (top + 1) % p == 0)
		return 0;
	bound = (top + 1) / p * p;
	for (size_t i = 0; i < r->nrows; i++)
		tail += r->rows[i].stage >= bound && r->rows[i].chunk < 0;
	/* most stages hold staged / (top + 1) rows; a tail of fewer than half a stage's is stray */
	if (bound == 0 || 2 * tail * (size_t)(top + 1) >= staged)
		return 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];

		if (w->stage < bound || w->chunk >= 0)
			continue;
		char range[64];

		if (bound == top)
			snprintf(range, sizeof(range), "stage %ld", top);
		else
			snprintf(range, sizeof(range), "stages %ld to %ld", bound, top);
		snprintf(what, sizeof(what),
		         "stage %ld: the other ops name stages 0 to %ld (%ld a %s on %ld %ss), and "
		         "only %zu op%s %s",
		         w->stage, bound - 1, bound / p, unit(r), p, unit(r), tail,
		         tail == 1 ? " names" : "s name", range);
		return schedfile_fail_row(r, err, w, what);
	}
	return 0;
}

/* Checks each row against r->job, in file order, and for stray stages (check_stage_tail). */
int schedfile_check_rows(const struct reader *r, struct pp_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < r->nrows && rc == 0; i++)
		rc = check_row_job(r, &r->rows[i], err);
	for (size_t i = 0; i < r->ncomms && rc == 0; i++)
		rc = check_row_job(r, &r->comms[i].at, err);
	return rc != 0 ? rc : check_stage_tail(r, err);
}

/*
 * Checks that the micro-batches the rows name are a run from 0, in file order: the first row
 * past a gap (micro-batch 54 where no op names 8 to 53), or naming a last micro-batch that
 * far fewer stages run forward than most (1F1B's order with an F of micro-batch m on one
 * rank), is at fault. 0 or -1.
 */
int schedfile_check_mbs(const struct reader *r, struct pp_error *err)
{
	size_t n = r->nrows, *fwd, u = 0, top = 0, mode = 0, best = 0;
	unsigned char *named;
	char what[240];
	int rc = 0;

	/* forwards per micro-batch, and which are named; a run 0..m-1 has m <= n, so n + 1
	 * entries find any gap */
	fwd = pp_calloc(n + 1, sizeof(*fwd));
	named = pp_calloc(n + 1, 1);
	if (fwd == NULL || named == NULL) {
		free(fwd);
		free(named);
		return pp_nomem(err, n + 1, sizeof(*fwd));
	}
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &r->rows[i];

		top = (size_t)w->mb > top ? (size_t)w->mb : top;
		if ((size_t)w->mb > n)
			continue;
		named[w->mb] = 1;
		fwd[w->mb] += w->kind == OP_F;
	}
	while (u <= n && u <= top && named[u])
		u++;
	for (size_t i = 0; i < n && u <= top && rc == 0; i++) {
		const struct row *w = &r->rows[i];

		if ((size_t)w->mb <= u)
			continue;
		snprintf(what, sizeof(what),
		         "micro-batch %ld after a gap: no op names micro-batch %zu%s", w->mb, u,
		         (size_t)w->mb > u + 1 ? " or the ones up to it" : "");
		rc = schedfile_fail_row(r, err, w, what);
	}
	/* the most common count of forwards (in a complete file, every micro-batch has one per
	 * stage it visits): a last micro-batch with fewer is one past the file's last */
	for (size_t mb = 0; mb <= top && mb < 64 && rc == 0; mb++) {
		size_t same = 0;

		for (size_t k = 0; k <= top; k++)
			same += fwd[k] == fwd[mb];
		if (same > best) {
			best = same;
			mode = fwd[mb];
		}
	}
	if (rc == 0 && top >= 2 && 2 * fwd[top] <= mode && best > top / 2)
		for (size_t i = 0; i < n && rc == 0; i++) {
			const struct row *w = &r->rows[i];

			if ((size_t)w->mb != top)
				continue;
			snprintf(what, sizeof(what),
			         "micro-batch %ld runs forward on %zu stage%s, most micro-batches on "
			         "%zu: one past the file's last (%zu)?",
			         w->mb, fwd[top], fwd[top] == 1 ? "" : "s", mode, top - 1);
			rc = schedfile_fail_row(r, err, w, what);
		}
	free(fwd);
	free(named);
	return rc;
}

/* Checks that the shape inferred, sp, is r->job's. 0 or -1. */
int schedfile_check_job(const struct reader *r, const struct sched_params *sp,
                        struct pp_error *err)
{
	const struct schedfile_job *j = &r->job;

	if ((j->p > 0 && sp->p != j->p) || (j->v > 0 && sp->v != j->v) ||
	    (j->m > 0 && sp->m != j->m))
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%s': does not fit the job: the file has p=%d v=%d m=%d (%ss, "
		               "stages a %s, micro-batches), the job p=%d v=%d m=%d",
		               r->what, r->path, sp->p, sp->v, sp->m, unit(r), unit(r),
		               j->p > 0 ? j->p : sp->p, j->v > 0 ? j->v : sp->v,
		               j->m > 0 ? j->m : sp->m);
	return 0;
}

/* Infers p, v, m, backward kind, placement and routes, and fills the missing stage of each
 * row. */
int schedfile_infer_shape(struct reader *r, struct sched_params *sp, bool *split, bool *mixed,
                          enum placement *pl, int *routes, struct pp_error *err)
{
	long p = r->format == SCHEDFILE_TORCH ? r->devices : 0, m = 0, top = 0, v;
	bool fused = false, parts = false, placed = false;
	uint64_t ops;

	for (size_t i = 0; i < r->nrows; i++) {
		struct row *w = &r->rows[i];
		long place = w->chunk >= 0 ? w->chunk : w->stage;

		p = w->device + 1 > p ? w->device + 1 : p;
		m = w->mb + 1 > m ? w->mb + 1 : m;
		top = place + 1 > top ? place + 1 : top;
		fused |= w->kind == OP_BW;
		parts |= w->kind == OP_B || w->kind == OP_W;
	}
	if (p > PP_MAX_DEVICES || m > PP_MAX_COUNT)
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%s': %ld devices and %ld micro-batches, above the limits "
		               "of %d devices and %d micro-batches",
		               r->what, r->path, p, m, PP_MAX_DEVICES, PP_MAX_COUNT);
	*split = parts;
	*mixed = parts && fused;
	sp->p = (int)p;
	sp->m = (int)m;
	sp->group = 0;
	/* chunks known: v is their count; stages only: v = stages / p, rounded up */
	v = r->format == SCHEDFILE_PPSIM && r->col[COL_CHUNK] >= 0 ? top : (top + p - 1) / p;
	if (v > PP_MAX_CHUNKS)
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%s': %ld chunks per device, above the limit of %d", r->what,
		               r->path, v, PP_MAX_CHUNKS);
	sp->v = (int)v;
	/* the placement that explains every row: loop first, then V (two chunks); then the
	 * routes its rows take */
	*routes = 1;
	for (int k = 0; k < 2 && !placed; k++) {
		enum placement cand = k == 0 ? PLACE_LOOP : PLACE_V;
		size_t i = 0;

		if (cand == PLACE_V && sp->v != 2)
			break;
		while (i < r->nrows && fits(&r->rows[i], cand, p))
			i++;
		if (i < r->nrows)
			continue;
		*pl = cand;
		for (i = 0; i < r->nrows; i++)
			if (r->rows[i].stage < 0)
				r->rows[i].stage =
				        stage_under(cand, p, r->rows[i].device, r->rows[i].chunk);
		*routes = infer_routes(r, v, p * v, m);
		placed = true;
	}
	/* the reader's limit, the run's --max-ops: what a run of it exports reads back */
	if (!sched_op_count(sp->p, sp->v, sp->m / *routes, parts, &ops) || ops > r->max_ops)
		return pp_fail(err, PP_ERR_CONFIG,
		               "%s '%s': p=%d v=%d m=%d needs %.3g ops, above the limit of "
		               "%" PRIu64,
		               r->what, r->path, sp->p, sp->v, sp->m,
		               (double)sp->p * sp->v * (sp->m / *routes) * (parts ? 3 : 2),
		               r->max_ops);
	if (placed)
		return 0;
	/* the row at fault: the first that the placement explaining the most rows does not */
	{
		size_t loop = 0, vee = 0;

		for (size_t i = 0; i < r->nrows; i++) {
			loop += fits(&r->rows[i], PLACE_LOOP, p);
			vee += sp->v == 2 && fits(&r->rows[i], PLACE_V, p);
		}
		*pl = vee > loop ? PLACE_V : PLACE_LOOP;
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];

		if (!fits(w, *pl, p)) {
			char what[200];

			/* the row's own numbers: a stage this far out may not fit in a struct op */
			snprintf(what, sizeof(what),
			         "%s(mb %ld, stage %ld) on %s %ld: stage %ld does not sit on "
			         "%s %ld under the %s placement that the other ops follow (%s)",
			         sched_kind_name((enum op_kind)w->kind), w->mb, w->stage, unit(r),
			         w->device, w->stage, unit(r), w->device,
			         *pl == PLACE_V ? "V" : "loop",
			         *pl == PLACE_V ? "chunk 0 stage d, chunk 1 stage 2p-1-d"
			                        : "stage c*p + d");
			return schedfile_fail_row(r, err, w, what);
		}
	}
	return pp_fail(err, PP_ERR_CONFIG, "%s '%s': no placement explains every op", r->what,
	               r->path);
}

/* The row op i of the built schedule came from. */
static const struct row *row_of_op(const struct reader *r, size_t i)
{
	return &r->rows[r->op_row[i]];
}

/* The kind of op as a repeat counts it: a fused BW and an input-gradient B are one backward. */
static int family(unsigned kind)
{
	return kind == OP_BW ? OP_B : (int)kind;
}

/* Whether op i of s repeats the kind (family), stage and micro-batch of op k. */
static bool same_op(const struct sched *s, size_t i, size_t k)
{
	return family(s->ops[i].kind) == family(s->ops[k].kind) &&
	       s->ops[i].stage == s->ops[k].stage && s->ops[i].mb == s->ops[k].mb;
}

/*
 * Of an op that appears twice on device d, at a before b, the one at fault: the first when it
 * comes before the op it needs on its device (a backward before its F, a W before its B);
 * else, when an op of the same kind and stage is missing (mb y), the one that stands where y
 * would in the device's run of that kind and stage (ascending or descending micro-batches);
 * else the second.
 */
static size_t duplicate_at_fault(const struct sched *s, int d, size_t a, size_t b)
{
	const struct op *o = &s->ops[a];
	size_t start = s->dev_start[d], end = start + s->dev_fill[d], first = SIZE_MAX;
	long y = -1;
	bool up = true, needs = false;

	if (o->kind != OP_F) {
		enum op_kind need = o->kind == OP_W ? OP_B : OP_F;

		needs = true;
		for (size_t i = start; i < a && needs; i++)
			needs = !(s->ops[i].kind == need && s->ops[i].stage == o->stage &&
			          s->ops[i].mb == o->mb);
		if (needs)
			return a;
	}
	/* the run of this kind and stage: its direction and the first micro-batch it lacks */
	for (long mb = 0; mb < s->m && y < 0; mb++) {
		bool found = false, input = o->kind != OP_W; /* a W lacks only after its B */

		for (size_t i = start; i < end && !found; i++) {
			found = family(s->ops[i].kind) == family(o->kind) &&
			        s->ops[i].stage == o->stage && (long)s->ops[i].mb == mb;
			input |= s->ops[i].kind == OP_B && s->ops[i].stage == o->stage &&
			         (long)s->ops[i].mb == mb;
		}
		if (!found && input && sched_visits(s, (uint32_t)mb, o->stage))
			y = mb;
	}
	for (size_t i = start; i < end; i++) {
		if (family(s->ops[i].kind) != family(o->kind) || s->ops[i].stage != o->stage)
			continue;
		if (first == SIZE_MAX) {
			first = i;
		} else if (s->ops[i].mb != s->ops[first].mb) {
			up = s->ops[i].mb > s->ops[first].mb;
			break;
		}
	}
	if (y < 0)
		return b;
	return (y < (long)o->mb) == up ? a : b;
}

/* Builds out->sched from the rows and checks its structure, naming the op's place. */
int schedfile_make(struct reader *r, const struct sched_params *sp, bool split, bool mixed,
                   enum placement pl, int routes, struct schedfile *out, struct pp_error *err)
{
	size_t *counts = pp_calloc((size_t)sp->p, sizeof(*counts)), bad = 0;
	int device = 0;
	struct sched *s;
	char msg[sizeof(err->msg)];

	if (counts == NULL)
		return pp_nomem(err, (size_t)sp->p, sizeof(*counts));
	for (size_t i = 0; i < r->nrows; i++)
		counts[r->rows[i].device]++;
	s = out->sched = sched_alloc_counts(sp->p, sp->v, sp->m, split, pl, counts);
	free(counts);
	if (s == NULL)
		return pp_nomem(err, r->nrows, sizeof(*s->ops));
	s->mixed = mixed;
	sched_set_routes(s, routes);
	out->lines = pp_mallocarray(r->nrows, sizeof(*out->lines));
	out->columns = pp_mallocarray(r->nrows, sizeof(*out->columns));
	out->cells = pp_mallocarray(r->nrows, sizeof(*out->cells));
	r->op_row = pp_mallocarray(r->nrows, sizeof(*r->op_row));
	/* one entry per op each; op_row's are the largest */
	if (out->lines == NULL || out->columns == NULL || out->cells == NULL || r->op_row == NULL)
		return pp_nomem(err, r->nrows, sizeof(*r->op_row));
	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];
		size_t at = s->dev_start[w->device] + s->dev_fill[w->device];

		out->lines[at] = w->line;
		out->columns[at] = w->column;
		out->cells[at] = w->cell;
		r->op_row[at] = i;
		sched_push(s, (int)w->device, (enum op_kind)w->kind, (int)w->mb, (int)w->stage);
		if (w->overlap) {
			s->ops[at].flags = OP_OVERLAP;
			s->overlap = true;
		}
	}
	if (sched_check_where(s, &bad, &device, err) == 0)
		return 0;
	if (err->kind == PP_ERR_NOMEM) /* not about the file: no place to name */
		return -1;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	if (bad != SIZE_MAX) {
		size_t a = s->dev_start[device];

		while (a < bad && !same_op(s, a, bad))
			a++;
		if (a < bad) {
			/* a repeat: name the one at fault, and where the other stands */
			size_t at = duplicate_at_fault(s, device, a, bad), other = at == a ? bad : a;
			const struct row *w = row_of_op(r, other);
			char what[sizeof(err->msg)];

			if (w->cell != 0)
				snprintf(what, sizeof(what), "%.700s (also at line %" PRIu32
				         ", column %" PRIu32 ", cell %" PRIu32 " '%.40s')",
				         msg, w->line, w->column, w->cell, r->tokens + w->token);
			else if (r->paths != NULL)
				snprintf(what, sizeof(what),
				         "%.600s (also at line %" PRIu32 " of '%.200s')", msg, w->line,
				         schedfile_row_path(r, w));
			else
				snprintf(what, sizeof(what), "%.700s (also at line %" PRIu32 ")", msg,
				         w->line);
			return schedfile_fail_row(r, err, row_of_op(r, at), what);
		}
		return schedfile_fail_row(r, err, row_of_op(r, bad), msg);
	}
	/* a missing op has no place of its own: name the first line of its device */
	if (s->dev_start[device] < s->dev_start[device + 1]) {
		char what[sizeof(err->msg)];

		snprintf(what, sizeof(what), "%s %d's ops: %.900s", unit(r), device, msg);
		return schedfile_fail_in(r, err,
		                         schedfile_row_path(r, row_of_op(r, s->dev_start[device])),
		                         out->lines[s->dev_start[device]], 1, what);
	}
	return pp_fail(err, PP_ERR_CONFIG, "%s '%s': %s", r->what, r->path, msg);
}

/* The action text of a transfer: STAGE, its type and MB, as "1RECV_F0". */
static const char *comm_name(char *buf, size_t n, int type, long stage, long mb)
{
	snprintf(buf, n, "%ld%s%ld", stage, schedfile_torch_types[type].name, mb);
	return buf;
}

/* Whether transfer type moves a forward's output (SEND_F, RECV_F), not a gradient. */
static bool comm_forward(int type)
{
	return type == TT_SEND_F || type == TT_RECV_F;
}

/* Where the other end of transfer type is, from its own stage: +1 the next stage, -1 the
 * previous one. */
static int comm_peer_offset(int type)
{
	return type == TT_SEND_F || type == TT_RECV_B ? 1 : -1;
}

/* The type of the other half of transfer type: a SEND's RECV, a RECV's SEND. */
static int comm_peer_type(int type)
{
	return type == TT_SEND_F   ? TT_RECV_F
	       : type == TT_RECV_F ? TT_SEND_F
	       : type == TT_SEND_B ? TT_RECV_B
	                           : TT_SEND_B;
}

/* Whether a transfer of type at stage st has its other end: a stage after it (SEND_F,
 * RECV_B) or before it (RECV_F, SEND_B) on its route. */
static bool has_peer(const struct sched *s, long st, int type)
{
	return comm_peer_offset(type) > 0 ? !sched_route_last(s, (uint32_t)st)
	                                  : !sched_route_first(s, (uint32_t)st);
}

/* Checks one action c of r->comms against the schedule s, with the row of each forward and
 * backward at fwd[stage * m + mb] and bwd[...], and notes a transfer in seen (its index + 1
 * at [(type - TT_SEND_F) * S * m + stage * m + mb]); 0, or -1 with the error at c's place. */
static int check_comm(const struct reader *r, const struct sched *s, const struct comm *c,
                      const size_t *fwd, const size_t *bwd, size_t *seen, struct pp_error *err)
{
	const struct row *w = &c->at;
	long S = s->S, m = s->m, peer;
	size_t cell, op;
	char what[320], name[64], opname[64];
	struct op o;

	if (w->stage >= S) {
		snprintf(what, sizeof(what), "stage %ld does not exist (the schedule has %ld)",
		         w->stage, S);
		return schedfile_fail_row(r, err, w, what);
	}
	if ((long)s->stage_device[w->stage] != w->device) {
		snprintf(what, sizeof(what), "stage %ld is on rank %" PRIu32 ", not rank %ld",
		         w->stage, s->stage_device[w->stage], w->device);
		return schedfile_fail_row(r, err, w, what);
	}
	if (c->type >= TT_UNSHARD)
		return 0;
	if (w->mb >= m) {
		snprintf(what, sizeof(what),
		         "micro-batch %ld does not exist (the schedule has %ld)", w->mb, m);
		return schedfile_fail_row(r, err, w, what);
	}
	if (!sched_visits(s, (uint32_t)w->mb, (uint32_t)w->stage)) {
		snprintf(what, sizeof(what), "micro-batch %ld does not visit stage %ld", w->mb,
		         w->stage);
		return schedfile_fail_row(r, err, w, what);
	}
	peer = w->stage + comm_peer_offset(c->type);
	if (!has_peer(s, w->stage, c->type) || s->stage_device[peer] == s->stage_device[w->stage]) {
		if (!has_peer(s, w->stage, c->type))
			snprintf(what, sizeof(what),
			         "no transfer there (stage %ld is the %s stage%s)", w->stage,
			         comm_peer_offset(c->type) < 0 ? "first" : "last",
			         s->routes > 1 ? " of its route" : "");
		else
			snprintf(what, sizeof(what),
			         "no transfer there (stages %ld and %ld are both on rank %" PRIu32
			         ")",
			         w->stage, peer, s->stage_device[peer]);
		return schedfile_fail_row(r, err, w, what);
	}
	cell = (size_t)(c->type - TT_SEND_F) * (size_t)(S * m) + (size_t)(w->stage * m + w->mb);
	if (seen[cell] != 0) {
		snprintf(what, sizeof(what), "%s appears twice",
		         comm_name(name, sizeof(name), c->type, w->stage, w->mb));
		return schedfile_fail_row(r, err, w, what);
	}
	seen[cell] = (size_t)(c - r->comms) + 1;
	op = (comm_forward(c->type) ? fwd : bwd)[w->stage * m + w->mb];
	o = (struct op){(uint32_t)w->mb, (uint32_t)w->stage, (uint8_t)r->rows[op].kind, 0};
	sched_op_format(opname, sizeof(opname), &o);
	if ((c->type == TT_SEND_F || c->type == TT_SEND_B) && op >= c->before) {
		snprintf(what, sizeof(what), "comes before %s, whose output it sends", opname);
		return schedfile_fail_row(r, err, w, what);
	}
	if ((c->type == TT_RECV_F || c->type == TT_RECV_B) && op < c->before) {
		snprintf(what, sizeof(what), "comes after %s, whose input it receives", opname);
		return schedfile_fail_row(r, err, w, what);
	}
	return 0;
}

/* Pass 0: whether the transfer of type at (st, mb), when listed, has its other half; pass 1:
 * whether a dependency across ranks has its SEND. 0, or -1 with the error at the transfer or
 * at the producing op. */
static int check_pair(const struct reader *r, const struct sched *s, int pass, int type, long st,
                      long mb, const size_t *fwd, const size_t *bwd, const size_t *seen,
                      struct pp_error *err)
{
	size_t cells = (size_t)s->S * (size_t)s->m;
	long peer = st + comm_peer_offset(type);
	size_t at, other;
	char what[320], name[64], peername[64];

	if (!sched_visits(s, (uint32_t)mb, (uint32_t)st) || !has_peer(s, st, type) ||
	    s->stage_device[peer] == s->stage_device[st])
		return 0;
	at = (size_t)(type - TT_SEND_F) * cells + (size_t)(st * s->m + mb);
	other = (size_t)(comm_peer_type(type) - TT_SEND_F) * cells + (size_t)(peer * s->m + mb);
	comm_name(peername, sizeof(peername), comm_peer_type(type), peer, mb);
	if (pass == 0 && seen[at] != 0 && seen[other] == 0) {
		snprintf(what, sizeof(what), "has no %s on rank %" PRIu32, peername,
		         s->stage_device[peer]);
		return schedfile_fail_row(r, err, &r->comms[seen[at] - 1].at, what);
	}
	if (pass == 1 && seen[at] == 0 && (type == TT_SEND_F || type == TT_SEND_B)) {
		snprintf(what, sizeof(what),
		         "no %s after it: a compute_comms file lists every transfer across ranks, "
		         "and stage %ld is on rank %" PRIu32,
		         comm_name(name, sizeof(name), type, st, mb), peer, s->stage_device[peer]);
		return schedfile_fail_row(
		        r, err, &r->rows[(type == TT_SEND_F ? fwd : bwd)[st * s->m + mb]], what);
	}
	return 0;
}

/*
 * Checks that each rank receives from each other rank, in each direction, in the order that
 * rank sends: PyTorch's runtime (NCCL) matches the transfers of a pair of ranks in the order
 * they are posted, so a RECV of mb 1 before that of mb 0 would take the wrong tensor or hang.
 * A rank's actions are one run of r->comms, in file order; every pair exists (check_pair).
 */
static int check_comm_order(const struct reader *r, const struct sched *s, const size_t *seen,
                            struct pp_error *err)
{
	size_t cells = (size_t)s->S * (size_t)s->m;
	/* [sender rank x 2 + direction]: the receiving rank + 1 it was last set for, and the
	 * comm index of the SEND last received */
	struct {
		long rank;
		size_t send;
	} *last = pp_calloc((size_t)s->p * 2, sizeof(*last));
	int rc = 0;

	if (last == NULL)
		return pp_nomem(err, (size_t)s->p * 2, sizeof(*last));
	for (size_t i = 0; i < r->ncomms && rc == 0; i++) {
		const struct comm *c = &r->comms[i];
		long peer = c->at.stage + comm_peer_offset(c->type);
		size_t send, k;
		char what[400], got[64], before[64];

		if (c->type != TT_RECV_F && c->type != TT_RECV_B)
			continue;
		send = seen[(size_t)(comm_peer_type(c->type) - TT_SEND_F) * cells +
		            (size_t)(peer * s->m + c->at.mb)] -
		       1;
		k = (size_t)s->stage_device[peer] * 2 + (c->type == TT_RECV_B);
		if (last[k].rank == c->at.device + 1 && send < last[k].send) {
			const struct comm *first = &r->comms[last[k].send];

			snprintf(
			        what, sizeof(what),
			        "out of order: rank %" PRIu32
			        " sends %s before %s, which this rank "
			        "receives first; PyTorch matches two ranks' transfers in the order "
			        "they are posted",
			        s->stage_device[peer],
			        comm_name(got, sizeof(got), r->comms[send].type, peer, c->at.mb),
			        comm_name(before, sizeof(before), first->type, first->at.stage,
			                  first->at.mb));
			rc = schedfile_fail_row(r, err, &c->at, what);
		}
		last[k].rank = c->at.device + 1;
		last[k].send = send;
	}
	free(last);
	return rc;
}

/* Checks the SEND, RECV and FSDP actions of a compute_comms file against out->sched (see
 * schedfile.h) and counts them into out; 0, or -1 with the error at the action at fault (a
 * missing pair at the compute op whose transfer it is). */
int schedfile_check_comms(const struct reader *r, struct schedfile *out, struct pp_error *err)
{
	const struct sched *s = out->sched;
	size_t cells = (size_t)s->S * (size_t)s->m, *fwd, *bwd, *seen;
	int rc = 0;

	bool transfers = false;

	if (r->ncomms == 0)
		return 0;
	for (size_t i = 0; i < r->ncomms; i++)
		transfers |= r->comms[i].type < TT_UNSHARD;
	/* FSDP actions alone (GPipe's and 1F1B's pipeline_order end in REDUCE_GRAD): a
	 * compute-only file, whose transfers are not listed; the actions are still checked */
	if (!transfers) {
		for (size_t i = 0; i < r->ncomms && rc == 0; i++)
			rc = check_comm(r, s, &r->comms[i], NULL, NULL, NULL, err);
		out->zero_cost = r->ncomms;
		return rc;
	}
	out->format = SCHEDFILE_TORCH_COMMS;
	fwd = pp_mallocarray(6 * cells, sizeof(*fwd));
	if (fwd == NULL)
		return pp_nomem(err, 6 * cells, sizeof(*fwd));
	bwd = fwd + cells;
	seen = bwd + cells;
	memset(seen, 0, 4 * cells * sizeof(*seen));
	for (size_t i = 0; i < r->nrows; i++) {
		const struct row *w = &r->rows[i];

		if (w->kind == OP_F)
			fwd[w->stage * s->m + w->mb] = i;
		else if (w->kind == OP_B || w->kind == OP_BW)
			bwd[w->stage * s->m + w->mb] = i;
	}
	for (size_t i = 0; i < r->ncomms && rc == 0; i++) {
		rc = check_comm(r, s, &r->comms[i], fwd, bwd, seen, err);
		if (r->comms[i].type >= TT_UNSHARD)
			out->zero_cost++;
		else
			out->transfers++;
	}
	/* each transfer has its other half; then each dependency across ranks has its SEND */
	for (int pass = 0; pass < 2; pass++)
		for (int type = TT_SEND_F; type <= TT_RECV_B; type++)
			for (long st = 0; st < s->S; st++)
				for (long mb = 0; mb < s->m && rc == 0; mb++)
					rc = check_pair(r, s, pass, type, st, mb, fwd, bwd, seen,
					                err);
	if (rc == 0)
		rc = check_comm_order(r, s, seen, err);
	free(fwd);
	return rc;
}

/* The place of op i: " at line L" in ppsim's format; " at line L, column C (cell N 'TEXT')" in
 * PyTorch's. */
static void name_place(const void *ctx, size_t i, char *buf, size_t n)
{
	const struct reader *r = ctx;
	const struct row *w = row_of_op(r, i);

	if (w->cell == 0 && r->paths != NULL)
		snprintf(buf, n, " at line %" PRIu32 " of '%.200s'", w->line,
		         schedfile_row_path(r, w));
	else if (w->cell == 0)
		snprintf(buf, n, " at line %" PRIu32, w->line);
	else
		snprintf(buf, n,
		         " at line %" PRIu32 ", column %" PRIu32 " (cell %" PRIu32 " '%.40s')",
		         w->line, w->column, w->cell, r->tokens + w->token);
}

/* Checks that the order of out->sched can run; a cyclic wait is a PP_ERR_SIM error at the place
 * of the first stuck device's waiting op, naming each waiting op's place. */
int schedfile_check_order(const struct reader *r, const struct schedfile *out, struct pp_error *err)
{
	struct sched_where where = {name_place, r};
	size_t stuck = 0;
	char msg[sizeof(err->msg)];
	const struct row *w;

	if (sched_check_order_where(out->sched, &where, &stuck, err) == 0)
		return 0;
	if (err->kind == PP_ERR_NOMEM)
		return -1;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	w = row_of_op(r, stuck);
	schedfile_fail_in(r, err, schedfile_row_path(r, w), w->line, w->column, msg);
	err->kind = PP_ERR_SIM;
	return -1;
}
