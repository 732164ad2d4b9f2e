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

/* The key of -p, -m or -v (as --stages, --microbatches, --chunks) at argv[*i], its value in
 * *value; NULL when argv[*i] is none of them. */
static const char *job_option(int argc, char **argv, int *i, const char **value)
{
	static const char *const opts[][3] = {
	        {"--stages", "-p", "p"}, {"--microbatches", "-m", "m"}, {"--chunks", "-v", "v"}};

	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
		if ((*value = cmd_option_arg(argc, argv, i, opts[k][0], opts[k][1])) != NULL)
			return opts[k][2];
	return NULL;
}

int cmd_validate(int argc, char **argv)
{
	struct schedfile f;
	struct pp_error err = {0};
	const char *name = "text", *file = NULL, *value;
	const struct report_format *fmt;
	struct validation v;
	struct config c;
	double *peak;
	struct schedfile_job job = {0, 0, 0};
	const char *k;
	bool options = true;
	int status;

	config_init(&c);
	for (int i = 1; i < argc; i++) {
		if (options && strcmp(argv[i], "--") == 0) {
			options = false;
		} else if (options && (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)) {
			help();
			return PP_EXIT_OK;
		} else if (options && (value = cmd_format_arg(argc, argv, &i)) != NULL) {
			if (*value == '\0')
				return cmd_usage("option '%s' needs a value", argv[i]);
			name = value;
		} else if (options &&
		           (value = cmd_option_arg(argc, argv, &i, "--max-ops", NULL)) != NULL) {
			/* the value as the option table reads it, for a run or a config file */
			if (*value == '\0')
				return cmd_usage("option '%s' needs a value", argv[i]);
			if (config_set(&c, config_option_by_key("max_ops"), "--max-ops", value,
			               &err) != 0)
				return cmd_fail(&err);
		} else if (options && (k = job_option(argc, argv, &i, &value)) != NULL) {
			/* the option as given (without "=VALUE"), its value as a run reads it */
			const char *opt = argv[i] == value ? argv[i - 1] : argv[i];
			char optname[32];

			snprintf(optname, sizeof(optname), "%.*s", (int)strcspn(opt, "="), opt);
			if (*value == '\0')
				return cmd_usage("option '%s' needs a value", optname);
			if (config_set(&c, config_option_by_key(k), optname, value, &err) != 0)
				return cmd_fail(&err);
			*(k[0] == 'p' ? &job.p : k[0] == 'm' ? &job.m : &job.v) =
			        k[0] == 'p' ? c.p : k[0] == 'm' ? c.m : c.v;
		} else if (options && argv[i][0] == '-' && argv[i][1] != '\0') {
			return cmd_usage("validate: unknown option '%s'", argv[i]);
		} else if (file != NULL) {
			return cmd_usage("validate: unexpected argument '%s'", argv[i]);
		} else {
			file = argv[i];
		}
	}
	if (file == NULL)
		return cmd_usage("validate: needs a schedule FILE");
	if ((fmt = report_format_find(name, REPORT_VALIDATION)) == NULL)
		return cli_bad_format_of(cmd_of_fn(cmd_validate), name);
	if (schedfile_read_job(file, c.max_ops, &job, &f, &err) != 0)
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
