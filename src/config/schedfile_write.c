/*
 * Schedule files written: a schedule in ppsim's CSV or PyTorch's (compute_only, or
 * compute_comms with each transfer's SEND and RECV where PyTorch's runtime places them), and the
 * names of the formats. Reading them back is schedfile.c's.
 */
#include "ppsim/schedfile.h"

#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"
#include "schedfile_internal.h"

/* The room a row's piece is written into: a PyTorch action (an overlapped pair's two), a
 * transfer, or a ppsim row's five integers and its kind, with the NUMFMT_MAX bytes its last
 * number may take. */
#define PIECE_MAX (SCHEDFILE_ACTION_MAX + NUMFMT_MAX + 8)

const char *const schedfile_format_names[SCHEDFILE_NFORMATS] = {
        [SCHEDFILE_PPSIM] = "ppsim",
        [SCHEDFILE_TORCH] = "torch",
        [SCHEDFILE_TORCH_COMMS] = "torch-comms",
};

bool schedfile_format_find(const char *name, enum schedfile_format *fmt)
{
	for (int k = 0; k < SCHEDFILE_NFORMATS; k++) {
		if (strcmp(name, schedfile_format_names[k]) == 0) {
			*fmt = (enum schedfile_format)k;
			return true;
		}
	}
	return false;
}

/* PyTorch's letter of an op kind: F, I (input gradient), W, B (full backward). */
static char torch_letter(enum op_kind k)
{
	return k == OP_F ? 'F' : k == OP_B ? 'I' : k == OP_W ? 'W' : 'B';
}

/* Writes the PyTorch action of s's op i (a pair's both ops when it is one) at p: its end. */
static char *put_action(char *p, const struct sched *s, size_t i)
{
	const struct op *op = &s->ops[i];

	/* an overlapped pair is its F, flagged, then its backward: one action of both */
	if (!(op->flags & OP_OVERLAP) && i > 0 && (op[-1].flags & OP_OVERLAP) &&
	    s->stage_device[op[-1].stage] == s->stage_device[op->stage])
		op--;
	if (op->flags & OP_OVERLAP) {
		*p++ = '(';
		p += numfmt_u64(p, op->stage);
		*p++ = 'F';
		p += numfmt_u64(p, op->mb);
		*p++ = ';';
		p += numfmt_u64(p, op[1].stage);
		*p++ = torch_letter((enum op_kind)op[1].kind);
		p += numfmt_u64(p, op[1].mb);
		PUT_LIT(p, ")OVERLAP_F_B");
		return p;
	}
	p += numfmt_u64(p, op->stage);
	*p++ = torch_letter((enum op_kind)op->kind);
	p += numfmt_u64(p, op->mb);
	return p;
}

const char *schedfile_torch_action(const struct sched *s, size_t i, char *buf, size_t n)
{
	char action[PIECE_MAX];
	size_t len = (size_t)(put_action(action, s, i) - action);

	if (n > 0) {
		len = len < n - 1 ? len : n - 1;
		memcpy(buf, action, len);
		buf[len] = '\0';
	}
	return buf;
}

/* The stage that takes op o's output: an F's the next one, a backward's the previous one, -1
 * for none (a W's, a route's last forward's and first backward's). */
static long consumer_stage(const struct sched *s, const struct op *o)
{
	if (o->kind == OP_W)
		return -1;
	if (o->kind == OP_F)
		return sched_route_last(s, o->stage) ? -1 : (long)o->stage + 1;
	return sched_route_first(s, o->stage) ? -1 : (long)o->stage - 1;
}

/* Whether op o's output goes to another device (a W's goes nowhere). */
static bool sends_across(const struct sched *s, const struct op *o)
{
	long to = consumer_stage(s, o);

	return to >= 0 && s->stage_device[to] != s->stage_device[o->stage];
}

/* Whether PyTorch's lowering may take op o: its input produced (an F's by the F before it, a
 * backward's by the backward after it); done[0] holds the forwards taken, done[1] the
 * backwards, at stage * m + mb. */
static bool inputs_taken(const struct sched *s, const struct op *o, bool *const done[2])
{
	if (o->kind == OP_F)
		return sched_route_first(s, o->stage) ||
		       done[0][(o->stage - 1) * (size_t)s->m + o->mb];
	if (o->kind == OP_W)
		return true;
	return sched_route_last(s, o->stage) || done[1][(o->stage + 1) * (size_t)s->m + o->mb];
}

/* The ops of device d's action that starts at op i: an overlapped pair is one action, its F and
 * its backward. */
static size_t action_ops(const struct sched *s, int d, size_t i)
{
	return (s->ops[i].flags & OP_OVERLAP) && i + 1 < s->dev_start[d + 1] ? 2 : 1;
}

/*
 * Orders s's ops and transfers into each device's compute_comms row, as PyTorch's
 * _add_send_recv does: the devices take their next action in turn until all are taken. A row
 * holds op indices, 4 bytes an action and a RECV: an op of its own device is an action, which
 * its SENDs follow, and an op of another device the RECV of that op's output. Returns the rows,
 * device d's n[d] entries from start[d] (with n = start + p + 1), or NULL when memory runs out.
 */
static uint32_t *comms_rows(const struct sched *s, size_t **startp)
{
	size_t cells = (size_t)s->S * (size_t)s->m, total = s->nops, *start, *fill, *pos;
	uint32_t *rows;
	bool *taken, *done[2];

	for (size_t i = 0; i < s->nops; i++)
		total += sends_across(s, &s->ops[i]) ? 1 : 0;
	rows = pp_mallocarray(total, sizeof(*rows));
	start = pp_calloc(3 * (size_t)s->p + 1, sizeof(*start));
	taken = pp_calloc(2 * cells, sizeof(*taken));
	if (rows == NULL || start == NULL || taken == NULL) {
		free(rows);
		free(start);
		free(taken);
		return NULL;
	}
	fill = start + s->p + 1;
	pos = fill + s->p;
	done[0] = taken;
	done[1] = taken + cells;
	/* each row's room: its ops and the RECVs of what comes to it (an overlapped pair, one
	 * action, leaves one unused) */
	for (size_t i = 0; i < s->nops; i++) {
		const struct op *o = &s->ops[i];

		start[s->stage_device[o->stage] + 1]++;
		if (sends_across(s, o))
			start[s->stage_device[consumer_stage(s, o)] + 1]++;
	}
	for (int d = 0; d < s->p; d++) {
		start[d + 1] += start[d];
		pos[d] = s->dev_start[d];
	}
	for (bool left = true, force = false; left;) {
		bool progress = false;

		left = false;
		for (int d = 0; d < s->p; d++) {
			size_t i = pos[d], n;

			if (i == s->dev_start[d + 1])
				continue;
			left = true;
			n = action_ops(s, d, i);
			if (!force && (!inputs_taken(s, &s->ops[i], done) ||
			               (n == 2 && !inputs_taken(s, &s->ops[i + 1], done))))
				continue;
			force = false;
			rows[start[d] + fill[d]++] = (uint32_t)i;
			for (size_t k = i; k < i + n; k++) {
				const struct op *o = &s->ops[k];
				uint32_t to;

				if (o->kind != OP_W)
					done[o->kind != OP_F][o->stage * (size_t)s->m + o->mb] =
					        true;
				if (!sends_across(s, o))
					continue;
				to = s->stage_device[consumer_stage(s, o)];
				rows[start[to] + fill[to]++] = (uint32_t)k;
			}
			pos[d] = i + n;
			progress = true;
		}
		/* A checked order lets some device take its next action, unless an overlapped
		 * pair's backward waits for what its own forward feeds: then the first device
		 * left takes its pair as it stands. */
		force = !progress;
	}
	free(taken);
	*startp = start;
	return rows;
}

/* Writes op k's SEND ("0SEND_F3") or, to the device that takes its output, its RECV, at p:
 * its end. */
static char *put_transfer(char *p, const struct sched *s, size_t k, bool send)
{
	const struct op *o = &s->ops[k];
	bool fwd = o->kind == OP_F;
	const char *name = schedfile_torch_types[send ? (fwd ? TT_SEND_F : TT_SEND_B)
	                                              : (fwd ? TT_RECV_F : TT_RECV_B)]
	                           .name;

	p += numfmt_u64(p, send ? o->stage : (uint64_t)consumer_stage(s, o));
	while (*name != '\0')
		*p++ = *name++;
	p += numfmt_u64(p, o->mb);
	return p;
}

/* Writes s as PyTorch's compute_comms rows; 0 or -1 when memory runs out. */
static int write_torch_comms(struct wbuf *w, const struct sched *s)
{
	size_t *start = NULL;
	uint32_t *rows = comms_rows(s, &start);

	if (rows == NULL)
		return -1;
	for (int d = 0; d < s->p; d++) {
		for (size_t e = start[d]; e < start[d] + start[s->p + 1 + d]; e++) {
			size_t i = rows[e];
			char *p = wbuf_reserve(w, PIECE_MAX);

			if (e > start[d])
				*p++ = ',';
			if (s->stage_device[s->ops[i].stage] != (uint32_t)d) {
				wbuf_commit(w, put_transfer(p, s, i, false));
				continue;
			}
			wbuf_commit(w, put_action(p, s, i));
			for (size_t k = i; k < i + action_ops(s, d, i); k++)
				if (sends_across(s, &s->ops[k])) {
					p = wbuf_reserve(w, PIECE_MAX);
					*p++ = ',';
					wbuf_commit(w, put_transfer(p, s, k, true));
				}
		}
		wbuf_char(w, '\n');
	}
	free(rows);
	free(start);
	return 0;
}

/* Writes s's rows in ppsim's CSV or PyTorch's compute_only format. */
static void write_rows(struct wbuf *w, const struct sched *s, enum schedfile_format fmt)
{
	if (fmt == SCHEDFILE_PPSIM) {
		WBUF_LIT(w, "device,chunk,stage,op,microbatch");
		if (s->overlap)
			WBUF_LIT(w, ",overlap");
		wbuf_char(w, '\n');
	}
	for (int d = 0; d < s->p; d++) {
		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++) {
			const struct op *op = &s->ops[i];
			char *p = wbuf_reserve(w, PIECE_MAX);

			if (fmt == SCHEDFILE_PPSIM) {
				const char *kind = sched_kind_name((enum op_kind)op->kind);

				p += numfmt_u64(p, (uint64_t)d);
				*p++ = ',';
				p += numfmt_u64(p, s->stage_chunk[op->stage]);
				*p++ = ',';
				p += numfmt_u64(p, op->stage);
				*p++ = ',';
				while (*kind != '\0')
					*p++ = *kind++;
				*p++ = ',';
				p += numfmt_u64(p, op->mb);
				if (s->overlap) {
					*p++ = ',';
					*p++ = op->flags & OP_OVERLAP ? '1' : '0';
				}
				*p++ = '\n';
				wbuf_commit(w, p);
				continue;
			}
			if (i > s->dev_start[d])
				*p++ = ',';
			wbuf_commit(w, put_action(p, s, i));
			if (op->flags & OP_OVERLAP)
				i++; /* the pair's backward is in its action */
		}
		if (fmt == SCHEDFILE_TORCH)
			wbuf_char(w, '\n');
	}
}

int schedfile_write(FILE *out, const struct sched *s, enum schedfile_format fmt)
{
	struct wbuf w;
	int rc = 0;

	wbuf_init(&w, out);
	if (fmt == SCHEDFILE_TORCH_COMMS)
		rc = write_torch_comms(&w, s);
	else
		write_rows(&w, s, fmt);
	wbuf_finish(&w);
	return rc;
}
