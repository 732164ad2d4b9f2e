/*
 * Helpers shared by the suites: simulating a configuration, setting options as the command
 * line does, pricing a schedule by hand, reading PyTorch's schedule rows, comparing op orders,
 * and unit_calloc, the tests' allocation, which fails the test rather than aborting the run.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/sim.h"
#include "unit.h"

void *unit_calloc(size_t count, size_t size)
{
	void *p = pp_calloc(count, size);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

struct sim *unit_run(const struct config *c, unsigned flags)
{
	struct pp_error err = {0};
	struct sim *s = sim_run_flags(c, flags, &err);

	if (s == NULL)
		fprintf(stderr, "%s p=%d v=%d m=%d: %s\n", c->schedule, c->p, c->v, c->m, err.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}

struct config unit_config(const char *schedule, int p, int v, int m, double t_f, double t_b,
                          double t_w)
{
	struct config c;

	config_init(&c);
	strcpy(c.schedule, schedule);
	c.p = p;
	c.v = v;
	c.m = m;
	c.t_f = t_f;
	c.t_b = t_b;
	c.t_w = t_w;
	return c;
}

struct sim *unit_simulate(const char *schedule, int p, int m, double t_comm)
{
	struct config c = unit_config(schedule, p, 1, m, 1, 1, 1);

	c.t_comm = t_comm;
	return unit_run(&c, 0);
}

void unit_set(struct config *c, const char *key, const char *value)
{
	const struct config_option *o = config_option_by_key(key);
	struct pp_error err = {0};
	char label[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	snprintf(label, sizeof(label), "--%s", o->name);
	if (config_set(c, o, label, value, &err) != 0)
		fprintf(stderr, "%s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(err.kind, PP_ERR_NONE);
}

/* t units in ticks; fails the test (fatally) when t has none. */
static pp_time unit_ticks(double t)
{
	pp_time x = 0;

	CU_ASSERT_TRUE_FATAL(pp_time_from_units(t, PP_TICK_BASE, &x));
	return x;
}

void unit_price(struct sched *s, double t_f, double t_b, double t_w, const double *comm,
                double limit)
{
	size_t n = (size_t)s->S;
	pp_time *t = unit_calloc(4 * n, sizeof(*t));
	int64_t *act = unit_calloc(2 * n, sizeof(*act));
	struct sched_prices pr = {t, t + n, t + 2 * n, t + 3 * n, act, act + n, limit, 1};

	for (size_t st = 0; st < n; st++) {
		t[st] = unit_ticks(t_f);
		t[n + st] = unit_ticks(t_b);
		t[2 * n + st] = unit_ticks(t_w);
		t[3 * n + st] = comm != NULL && st + 1 < n ? unit_ticks(comm[st]) : 0;
		act[st] = 2;
		act[n + st] = 1;
	}
	CU_ASSERT_EQUAL_FATAL(sched_generate_priced(s, &pr, &(struct pp_error){0}), 0);
	free(t);
	free(act);
}

/* Parses the action "STAGE LETTER MB" at *p (letters as PyTorch writes them) into op and moves
 * *p past it; false when it is not one. */
static bool torch_action(const char **p, struct op *op)
{
	const char *s = *p;
	char *end;
	unsigned long stage, mb;

	if (!isdigit((unsigned char)*s))
		return false;
	stage = strtoul(s, &end, 10);
	switch (*end) {
	case 'F':
		op->kind = OP_F;
		break;
	case 'I':
		op->kind = OP_B;
		break;
	case 'W':
		op->kind = OP_W;
		break;
	case 'B':
		op->kind = OP_BW;
		break;
	default:
		return false;
	}
	s = end + 1;
	if (!isdigit((unsigned char)*s))
		return false;
	mb = strtoul(s, &end, 10);
	op->stage = (uint32_t)stage;
	op->mb = (uint32_t)mb;
	op->flags = 0;
	*p = end;
	return true;
}

size_t unit_torch_ops(const char *row, struct op *out, size_t max)
{
	const char *p = row;
	size_t n = 0;

	while (*p != '\0' && *p != '\n' && *p != '\r') {
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '(') {
			struct op f, b;

			p++;
			CU_ASSERT_FATAL(torch_action(&p, &f) && *p == ';');
			p++;
			CU_ASSERT_FATAL(torch_action(&p, &b) && *p == ')');
			p++;
			CU_ASSERT_FATAL(strncmp(p, "OVERLAP_F_B", 11) == 0);
			p += 11;
			f.flags = OP_OVERLAP;
			CU_ASSERT_FATAL(n + 2 <= max);
			out[n++] = f;
			out[n++] = b;
			continue;
		}
		CU_ASSERT_FATAL(n < max);
		CU_ASSERT_FATAL(torch_action(&p, &out[n]));
		n++;
	}
	return n;
}

bool unit_device_is(const struct sched *s, int d, const struct op *want, size_t n)
{
	size_t have = s->dev_start[d + 1] - s->dev_start[d];

	if (have != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct op *a = &s->ops[s->dev_start[d] + i];

		if (a->kind != want[i].kind || a->mb != want[i].mb || a->stage != want[i].stage ||
		    a->flags != want[i].flags)
			return false;
	}
	return true;
}

bool unit_same_ops(const struct sched *a, const struct sched *b)
{
	if (a->p != b->p || a->nops != b->nops)
		return false;
	for (int d = 0; d < a->p; d++)
		if (!unit_device_is(a, d, &b->ops[b->dev_start[d]],
		                    b->dev_start[d + 1] - b->dev_start[d]))
			return false;
	return true;
}
