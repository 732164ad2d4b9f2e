/* The generator table and what every schedule shares: allocation, placement, checking. */
#include "ppsim/sched.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/generators.h"

static const struct sched_desc table[] = {
        {"gpipe", "GPipe: all forwards, then all backwards, in micro-batch order", false,
         PLACE_LOOP, 1, 1, NULL, sched_gpipe_generate, sched_flush_theory, "(p-1)/(m+p-1)"},
        {"1f1b",
         "1F1B (PipeDream-Flush, Megatron-LM): warm-up, one forward one backward, cool-down", false,
         PLACE_LOOP, 1, 1, NULL, sched_1f1b_generate, sched_flush_theory, "(p-1)/(m+p-1)"},
};

const struct sched_desc *sched_table(size_t *count)
{
	*count = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct sched_desc *sched_find(const char *name)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

char *sched_names(char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]) && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", table[i].name);
	return buf;
}

const char *sched_kind_name(enum op_kind kind)
{
	static const char *const names[] = {"F", "B", "W", "BW"};

	assert((unsigned)kind < 4);
	return names[kind];
}

bool sched_op_count(int p, int v, int m, bool split, uint64_t *out)
{
	uint64_t n;

	if (p < 0 || v < 0 || m < 0)
		return false;
	return pp_mul_u64((uint64_t)p, (uint64_t)v, &n) && pp_mul_u64(n, (uint64_t)m, &n) &&
	       pp_mul_u64(n, split ? 3 : 2, out);
}

int sched_accepts(const struct sched_desc *desc, int p, int v, int m, struct pp_error *err)
{
	if (v < desc->min_v || (desc->max_v > 0 && v > desc->max_v)) {
		if (desc->min_v == desc->max_v)
			return pp_fail(err, PP_ERR_USAGE, "--chunks '%d': schedule '%s' needs v=%d",
			               v, desc->name, desc->min_v);
		return pp_fail(err, PP_ERR_USAGE, "--chunks '%d': schedule '%s' needs v >= %d", v,
		               desc->name, desc->min_v);
	}
	if (desc->check != NULL)
		return desc->check(p, v, m, err);
	return 0;
}

static size_t ops_per_device(const struct sched *s)
{
	return (size_t)s->v * (size_t)s->m * (s->split ? 3u : 2u);
}

int sched_stage_of(const struct sched *s, int d, int c)
{
	assert(d >= 0 && d < s->p && c >= 0 && c < s->v);
	if (s->placement == PLACE_V)
		return c % 2 == 0 ? c * s->p + d : (c + 1) * s->p - 1 - d;
	return c * s->p + d;
}

struct sched *sched_alloc(int p, int v, int m, bool split, enum placement placement)
{
	struct sched *s = pp_xcalloc(1, sizeof(*s));
	size_t per;

	assert(p >= 1 && v >= 1 && m >= 1);
	s->p = p;
	s->v = v;
	s->m = m;
	s->S = p * v;
	s->split = split;
	s->placement = placement;
	per = ops_per_device(s);
	s->nops = per * (size_t)p;
	s->ops = pp_xmallocarray(s->nops, sizeof(*s->ops));
	s->dev_start = pp_xmallocarray((size_t)p + 1, sizeof(*s->dev_start));
	s->dev_fill = pp_xcalloc((size_t)p, sizeof(*s->dev_fill));
	s->stage_device = pp_xmallocarray((size_t)s->S, sizeof(*s->stage_device));
	s->stage_chunk = pp_xmallocarray((size_t)s->S, sizeof(*s->stage_chunk));
	for (int d = 0; d <= p; d++)
		s->dev_start[d] = per * (size_t)d;
	for (int d = 0; d < p; d++)
		for (int c = 0; c < v; c++) {
			int st = sched_stage_of(s, d, c);

			s->stage_device[st] = (uint32_t)d;
			s->stage_chunk[st] = (uint32_t)c;
		}
	return s;
}

void sched_push(struct sched *s, int d, enum op_kind kind, int mb, int stage)
{
	size_t i;

	assert(d >= 0 && d < s->p);
	assert(s->dev_fill[d] < s->dev_start[d + 1] - s->dev_start[d]);
	i = s->dev_start[d] + s->dev_fill[d]++;
	s->ops[i].mb = (uint32_t)mb;
	s->ops[i].stage = (uint32_t)stage;
	s->ops[i].kind = (uint8_t)kind;
}

struct sched *sched_new(const struct sched_desc *desc, int p, int v, int m)
{
	struct sched *s = sched_alloc(p, v, m, desc->split, desc->placement);

	s->desc = desc;
	desc->generate(s);
	for (int d = 0; d < p; d++)
		assert(s->dev_fill[d] == s->dev_start[d + 1] - s->dev_start[d]);
	return s;
}

char *sched_op_format(char *buf, size_t n, const struct op *op)
{
	snprintf(buf, n, "%s(mb %" PRIu32 ", stage %" PRIu32 ")",
	         sched_kind_name((enum op_kind)op->kind), op->mb, op->stage);
	return buf;
}

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
	static const enum op_kind fused[] = {OP_F, OP_BW}, split[] = {OP_F, OP_B, OP_W};
	const enum op_kind *kinds = s->split ? split : fused;
	int nkinds = s->split ? 3 : 2;
	unsigned char *seen = pp_xcalloc((size_t)s->S * (size_t)s->m * 3, 1);
	int rc = 0;

	for (int d = 0; d < s->p && rc == 0; d++)
		/* only the ops pushed so far: a slot never filled is a missing op, named below */
		for (size_t i = s->dev_start[d]; i < s->dev_start[d] + s->dev_fill[d] && rc == 0;
		     i++)
			rc = check_op(s, d, i - s->dev_start[d], &s->ops[i], seen, err);
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
			}
	free(seen);
	return rc;
}

void sched_free(struct sched *s)
{
	if (s == NULL)
		return;
	free(s->ops);
	free(s->dev_start);
	free(s->dev_fill);
	free(s->stage_device);
	free(s->stage_chunk);
	free(s);
}
