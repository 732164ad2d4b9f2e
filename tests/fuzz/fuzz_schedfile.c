/*
 * Fuzzes the schedule-file reader (ppsim's CSV and PyTorch's compute-only CSV); a schedule it
 * accepts is written back in both formats, which must read back to the same ops, and simulated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ppsim/cost.h"
#include "ppsim/engine.h"
#include "ppsim/schedfile.h"

/* Reads text as a schedule file; returns 0 with *out filled, or -1. */
static int read_text(char *text, size_t size, struct schedfile *out)
{
	FILE *f = fmemopen(text, size, "r");
	struct pp_error err = {0};
	int rc;

	if (f == NULL)
		return -1;
	rc = schedfile_read_stream(f, "fuzz.csv", PP_MAX_OPS, out, &err);
	fclose(f);
	return rc;
}

/* Writes s in format fmt and reads it back: the same ops must come out. */
static void round_trip(const struct sched *s, enum schedfile_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct schedfile back;

	if (f == NULL)
		abort();
	schedfile_write(f, s, fmt);
	fclose(f);
	if (read_text(buf, len, &back) != 0 || back.sched->nops != s->nops ||
	    memcmp(back.sched->ops, s->ops, s->nops * sizeof(*s->ops)) != 0)
		abort();
	schedfile_release(&back);
	free(buf);
}

/* Simulates s at unit costs. */
static void simulate(const struct sched *s)
{
	struct config c;
	struct pp_error err = {0};
	struct cost_layout l = cost_layout_of(s);
	struct cost *k;
	struct engine *e;

	config_init(&c);
	c.p = s->p;
	c.v = s->v;
	c.m = s->m;
	c.t_comm = 0.5;
	k = cost_new_explicit(&c, &l, 0.5);
	e = engine_new(s, k, &err);
	if (e != NULL)
		engine_run(e, &err);
	engine_free(e);
	cost_free(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct schedfile f;

	if (read_text(text, size, &f) == 0) {
		if (f.sched->nops <= FUZZ_MAX_OPS) {
			round_trip(f.sched, SCHEDFILE_PPSIM);
			round_trip(f.sched, SCHEDFILE_TORCH);
			round_trip(f.sched, SCHEDFILE_TORCH_COMMS);
			simulate(f.sched);
		}
		schedfile_release(&f);
	}
	free(text);
	return 0;
}
