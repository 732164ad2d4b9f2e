/* `ppsim validate FILE`: check a schedule file (coverage, placement, dependencies, memory). */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "ppsim/schedfile.h"

int cmd_validate(int argc, char **argv)
{
	struct schedfile f;
	struct pp_error err = {0};
	const struct sched *s;
	double *peak;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		puts("Usage: ppsim validate FILE\n"
		     "Check a schedule file (CSV with columns device, op, microbatch, and stage "
		     "or\n"
		     "chunk; --dump-ops writes one): every op once, on the device hosting its "
		     "stage,\n"
		     "in an order that can run. Prints the inferred shape and peak activations.");
		return PP_EXIT_OK;
	}
	if (argc < 2)
		return cmd_usage("validate: needs a schedule FILE");
	if (argc > 2)
		return cmd_usage("validate: unexpected argument '%s'", argv[2]);
	if (schedfile_read(argv[1], &f, &err) != 0)
		return cmd_fail(&err);
	s = f.sched;
	peak = pp_xmallocarray((size_t)s->p, sizeof(*peak));
	sched_peak_units(s, peak);
	printf("schedule '%s': valid\n", argv[1]);
	printf("p=%d v=%d m=%d, %s backward, %s placement, %zu ops\n", s->p, s->v, s->m,
	       s->split ? "split (F, B, W)" : "fused (F, BW)",
	       s->placement == PLACE_V ? "V" : "loop", s->nops);
	printf("peak activations per device (micro-batches, W holding all until it runs):");
	for (int d = 0; d < s->p; d++)
		printf(" %g", peak[d]);
	putchar('\n');
	free(peak);
	schedfile_release(&f);
	return PP_EXIT_OK;
}
