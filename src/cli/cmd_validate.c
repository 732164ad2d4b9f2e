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
		     "Check a schedule file (ppsim's CSV with columns device, op, microbatch, and\n"
		     "stage or chunk, as --dump-ops and --export-schedule write it; or PyTorch's\n"
		     "compute_only or compute_comms CSV): every op once, on the device hosting "
		     "its\n"
		     "stage, in an order that can run, and in compute_comms every SEND and RECV\n"
		     "matching a dependency across devices. Prints the inferred shape and peak\n"
		     "activations; a deadlock exits 1 naming the cycle of waiting devices.");
		return PP_EXIT_OK;
	}
	if (argc > 1 && strcmp(argv[1], "--") == 0) { /* -- ends the options: FILE follows */
		argv++;
		argc--;
	}
	if (argc < 2)
		return cmd_usage("validate: needs a schedule FILE");
	if (argc > 2)
		return cmd_usage("validate: unexpected argument '%s'", argv[2]);
	if (schedfile_read(argv[1], PP_MAX_OPS, &f, &err) != 0)
		return cmd_fail(&err);
	s = f.sched;
	peak = pp_mallocarray((size_t)s->p, sizeof(*peak));
	if (peak == NULL) {
		pp_nomem(&err, (size_t)s->p, sizeof(*peak));
		schedfile_release(&f);
		return cmd_fail(&err);
	}
	sched_peak_units(s, peak);
	printf("schedule '%s': valid\n", argv[1]);
	printf("p=%d v=%d m=%d, %s backward, %s placement, %zu ops%s, %s format\n", s->p, s->v,
	       s->m,
	       s->mixed   ? "mixed (F, BW, B and W)"
	       : s->split ? "split (F, B, W)"
	                  : "fused (F, BW)",
	       s->placement == PLACE_V ? "V" : "loop", s->nops,
	       s->overlap ? " with overlapped F&B pairs" : "",
	       f.format == SCHEDFILE_TORCH_COMMS ? "PyTorch compute_comms"
	       : f.format == SCHEDFILE_TORCH     ? "PyTorch"
	                                         : "ppsim");
	if (f.format == SCHEDFILE_TORCH_COMMS)
		printf("%zu SEND/RECV actions match the cross-device dependencies; %zu "
		       "UNSHARD/RESHARD/REDUCE_GRAD actions cost nothing in ppsim's model\n",
		       f.transfers, f.zero_cost);
	printf("peak activations per device (micro-batches, W holding all until it runs):");
	for (int d = 0; d < s->p; d++)
		printf(" %g", peak[d]);
	putchar('\n');
	free(peak);
	schedfile_release(&f);
	return PP_EXIT_OK;
}
