/* The --dump-ops CSV: one row per op in each device's execution order. */
#include <inttypes.h>

#include "ppsim/report.h"

#include "formats.h"

int report_ops_csv(FILE *out, const struct sim *s)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	char a[32], b[32];

	fputs("device,chunk,stage,op,microbatch,start,end\n", out);
	for (int d = 0; d < sc->p; d++)
		for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
			const struct op *op = &sc->ops[i];

			fprintf(out, "%d,%" PRIu32 ",%" PRIu32 ",%s,%" PRIu32 ",%s,%s\n", d,
			        sc->stage_chunk[op->stage], op->stage,
			        sched_kind_name((enum op_kind)op->kind), op->mb,
			        REPORT_NUM(a, pp_time_to_units(r->times[i].start, s->cost->tick)),
			        REPORT_NUM(b, pp_time_to_units(r->times[i].end, s->cost->tick)));
		}
	return 0;
}
