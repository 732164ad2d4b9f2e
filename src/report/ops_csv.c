/* The --dump-ops CSV: one row per op in each device's execution order. */
#include <inttypes.h>

#include "ppsim/report.h"

#include "formats.h"

int report_ops_csv(FILE *out, const struct sim *s)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	char a[32], b[32];

	/* overlapped pairs add a column, 1 on the F that runs with the next op; a run that has
	 * its slacks (a training run's) ends each row with its op's */
	fprintf(out, "device,chunk,stage,op,microbatch,start,end%s%s\n",
	        sc->overlap ? ",overlap" : "", s->slack != NULL ? ",slack" : "");
	for (int d = 0; d < sc->p; d++)
		for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
			const struct op *op = &sc->ops[i];

			fprintf(out, "%d,%" PRIu32 ",%" PRIu32 ",%s,%" PRIu32 ",%s,%s", d,
			        sc->stage_chunk[op->stage], op->stage,
			        sched_kind_name((enum op_kind)op->kind), op->mb,
			        REPORT_NUM(a, pp_time_to_units(r->times[i].start, s->cost->tick)),
			        REPORT_NUM(b, pp_time_to_units(r->times[i].end, s->cost->tick)));
			if (sc->overlap)
				fprintf(out, ",%d", op->flags & OP_OVERLAP ? 1 : 0);
			if (s->slack != NULL)
				fprintf(out, ",%s",
				        REPORT_NUM(a,
				                   pp_time_to_units(s->slack[i], s->cost->tick)));
			fputc('\n', out);
		}
	return 0;
}
