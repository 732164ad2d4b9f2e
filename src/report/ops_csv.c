/* The --dump-ops CSV: one row per op in each device's execution order, streamed through the
 * base layer's writer with its times written from their ticks (numfmt). */
#include <string.h>

#include "ppsim/report.h"

#include "base/numfmt.h"
#include "formats.h"

/* The most a row takes: five integers, three times, a kind, the overlap flag and commas. */
#define ROW_MAX (5 * NUMFMT_MAX + 3 * NUMFMT_MAX + 16)

int report_ops_csv(FILE *out, const struct drawing *s)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	struct numfmt_tick tk; /* the times' rate, worked out once */
	struct wbuf w;

	numfmt_tick_init(&tk, s->tick);
	wbuf_init(&w, out);
	/* overlapped pairs add a column, 1 on the F that runs with the next op; a run that has
	 * its slacks (a training run's) ends each row with its op's */
	WBUF_LIT(&w, "device,chunk,stage,op,microbatch,start,end");
	if (sc->overlap)
		WBUF_LIT(&w, ",overlap");
	if (s->slack != NULL)
		WBUF_LIT(&w, ",slack");
	wbuf_char(&w, '\n');
	for (int d = 0; d < sc->p; d++) {
		char dev[NUMFMT_MAX];
		size_t dev_len = numfmt_u64(dev, (uint64_t)d);

		for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
			const struct op *op = &sc->ops[i];
			const char *kind = sched_kind_name((enum op_kind)op->kind);
			char *p = wbuf_reserve(&w, ROW_MAX);

			memcpy(p, dev, dev_len);
			p += dev_len;
			*p++ = ',';
			p += numfmt_u64(p, sc->stage_chunk[op->stage]);
			*p++ = ',';
			p += numfmt_u64(p, op->stage);
			*p++ = ',';
			while (*kind != '\0')
				*p++ = *kind++;
			*p++ = ',';
			p += numfmt_u64(p, op->mb);
			*p++ = ',';
			p += numfmt_ticks_at(p, r->times[i].start, &tk);
			*p++ = ',';
			p += numfmt_ticks_at(p, r->times[i].end, &tk);
			if (sc->overlap) {
				*p++ = ',';
				*p++ = op->flags & OP_OVERLAP ? '1' : '0';
			}
			if (s->slack != NULL) {
				*p++ = ',';
				p += numfmt_ticks_at(p, s->slack[i], &tk);
			}
			*p++ = '\n';
			wbuf_commit(&w, p);
		}
	}
	wbuf_finish(&w);
	return 0;
}
