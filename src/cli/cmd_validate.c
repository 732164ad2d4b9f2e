/*
 * `ppsim validate [--format=FMT] [--max-ops=N] [-p N] [-m N] [-v N] FILE`: check a schedule
 * file (coverage, placement, dependencies, memory), of at most N ops as a run of --max-ops=N
 * may export, and, given -p, -m or -v, that it fits that job; the format registry's
 * validation writer reports what it found.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/schedfile.h"

static void help(void)
{
	char names[64];

	fprintf(cmd_out(),
	        "Usage: ppsim validate [--format=FMT] [--max-ops=N] [-p N] [-m N] [-v N] FILE\n"
	        "Check a schedule file (ppsim's CSV with columns device, op, microbatch, and\n"
	        "stage or chunk, as --dump-ops and --export-schedule write it; or PyTorch's\n"
	        "compute-only or compute_comms CSV): every op once, on the device hosting its\n"
	        "stage, in an order that can run, and a compute_comms file's SEND and RECV\n"
	        "actions against the compute order. Prints the inferred shape and peak\n"
	        "activations (FMT: %s; default text); a deadlock exits 1 naming the\n"
	        "cycle of waiting devices. --max-ops=N reads files of up to N ops, as a run\n"
	        "of --max-ops=N exports them (default 50000000). -p N, -m N, -v N (--stages,\n"
	        "--microbatches, --chunks) name the job the file is meant for: a file of\n"
	        "other ranks, micro-batches or stages per rank is refused (exit 3), naming the\n"
	        "first cell outside the job or both shapes. -- ends the options.\n",
	        report_format_names(REPORT_VALIDATION, ", ", " or ", names, sizeof(names)));
	cmd_help_end(cmd_out(), cmd_of_fn(cmd_validate));
}

/* validate's options (cmd_getopt), and what they set. */
enum { V_FORMAT, V_MAX_OPS, V_P, V_M, V_V };

static const struct cmd_opt options[] = {
        {"format", 'f', true, V_FORMAT}, {"max-ops", '\0', true, V_MAX_OPS},
        {"stages", 'p', true, V_P},      {"microbatches", 'm', true, V_M},
        {"chunks", 'v', true, V_V},
};

struct args {
	const char *format;
	struct config c;
	struct schedfile_job job;
};

static int take(void *ctx, int id, const char *opt, const char *value)
{
	static const char *const keys[] = {[V_MAX_OPS] = "max_ops", [V_P] = "p", [V_M] = "m",
	                                   [V_V] = "v"};
	struct args *a = ctx;
	struct pp_error err = {0};

	if (id == V_FORMAT) {
		a->format = value;
		return 0;
	}
	/* the value as the option table reads it, for a run or a config file */
	if (config_set(&a->c, config_option_by_key(keys[id]), opt, value, &err) != 0)
		return cmd_fail(&err);
	if (id == V_P)
		a->job.p = a->c.p;
	else if (id == V_M)
		a->job.m = a->c.m;
	else if (id == V_V)
		a->job.v = a->c.v;
	return 0;
}

int cmd_validate(int argc, char **argv)
{
	struct schedfile f;
	struct pp_error err = {0};
	const char *file;
	const struct report_format *fmt;
	struct validation v;
	struct args a = {.format = "text", .job = {0, 0, 0}};
	double *peak;
	int status;

	config_init(&a.c);
	status = cmd_getopt("validate", argc, argv, options, sizeof(options) / sizeof(options[0]),
	                    take, &a, 1, &file);
	if (status == CMD_OPT_DONE)
		return PP_EXIT_OK;
	if (status == CMD_OPT_HELP) {
		help();
		return PP_EXIT_OK;
	}
	if (status != 0)
		return status;
	if (file == NULL)
		return cmd_usage("validate: needs a schedule FILE");
	if ((fmt = report_format_find(a.format, REPORT_VALIDATION)) == NULL)
		return cli_bad_format_of(cmd_of_fn(cmd_validate), a.format);
	if (schedfile_read_job(file, a.c.max_ops, &a.job, &f, &err) != 0)
		return cmd_fail(&err);
	peak = pp_mallocarray((size_t)f.sched->p, sizeof(*peak));
	if (peak == NULL) {
		pp_nomem(&err, (size_t)f.sched->p, sizeof(*peak));
		schedfile_release(&f);
		return cmd_fail(&err);
	}
	sched_peak_units(f.sched, peak);
	v = (struct validation){file, &f, peak};
	status = fmt->validation(cmd_out(), &v) == 0 ? PP_EXIT_OK : cmd_report_failed();
	free(peak);
	schedfile_release(&f);
	return status;
}
