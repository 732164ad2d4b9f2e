/*
 * `ppsim calibrate [-m N] [-v N] [--w-share=F] [-o FILE] [--jitter-out=FILE] MEASURED`: turns measured
 * op times (a CSV of stage, op, ms, or a Megatron-LM log's timers) into a config file of
 * explicit costs whose simulation takes those times, so that a user can ask what another
 * schedule would do on their own costs: `ppsim -c calibrated.json -s zbv`. The config goes to
 * standard output or, written whole or not at all, to -o FILE, once read back and built into
 * its run as `ppsim -c` would: what calibrate writes, ppsim runs. A fit that misses a measured
 * time by more than 1% (stages whose F, B and W are not in one proportion) says so on standard
 * error.
 */
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "cmd.h"
#include "guard.h"
#include "ppsim/calibrate.h"
#include "ppsim/sim.h"

static const char usage[] =
        "Usage: ppsim calibrate [-m N] [-v N] [--w-share=F] [-o FILE] [--jitter-out=FILE]\n"
        "                       MEASURED\n"
        "Write a config whose ops take the measured times in MEASURED: a CSV with columns\n"
        "stage, op (F, B, W, BW or comm) and ms per micro-batch, or a Megatron-LM log\n"
        "(its forward-compute and backward-compute timers; then -m N, the micro-batches\n"
        "of an iteration, is required). -v N (--chunks) takes a CSV's stages as the\n"
        "virtual stages of a run of N chunks a device: p is their number over N, and each\n"
        "time N times a chunk's. --w-share=F takes F of a fused backward (BW) as\n"
        "W. -o FILE writes the config there instead of standard output; --jitter-out=FILE\n"
        "writes the CSV's op times, line by line, as the samples of\n"
        "--jitter=empirical:FILE (kind,stage,value); -- ends the options.";

/*
 * The config text of fit, into *text (*len bytes, the caller frees it), checked as `ppsim -c`
 * takes it: read back by the config reader and built into a run, schedule and prices, by
 * sim_would_run. Returns 0, or -1 with err saying why measured's fit would not run (a run of
 * more ops than the limit or too long, out of memory); *text is then freed.
 */
static int fit_config(const struct calib_fit *fit, int m, const char *measured, char **text,
                      size_t *len, struct pp_error *err)
{
	FILE *out = open_memstream(text, len);
	struct pp_error why = {0};
	struct config c;
	int rc;

	if (out == NULL)
		return pp_fail(err, PP_ERR_NOMEM, "out of memory writing the calibrated config");
	rc = calib_write_config(out, fit, m);
	/* a stream whose buffer could not be made may close without one */
	if (fclose(out) != 0 || rc != 0 || *text == NULL) {
		free(*text);
		return pp_fail(err, PP_ERR_NOMEM, "out of memory writing the calibrated config");
	}
	config_init(&c);
	if (config_load_text(&c, "calibrated", *text, *len, &why) == 0 &&
	    sim_would_run(&c, &why) == 0)
		return 0;
	free(*text);
	if (why.kind == PP_ERR_NOMEM) {
		*err = why;
		return -1;
	}
	return pp_fail(err, why.kind, "calibrate: the config fitted to '%s' would not run: %s",
	               measured, why.msg);
}

/* Writes the len bytes of text to path, or to standard output when path is NULL. */
static int write_text(const char *path, const char *text, size_t len)
{
	struct pp_error err = {0};
	struct outfile *f;

	if (path == NULL)
		return fwrite(text, 1, len, cmd_out()) == len ? PP_EXIT_OK : cmd_report_failed();
	if ((f = guard_open(path, &err)) == NULL)
		return cmd_fail(&err);
	if (fwrite(text, 1, len, outfile_stream(f)) != len) {
		guard_abort(f);
		return cmd_report_failed();
	}
	return guard_keep(f, &err) == 0 ? PP_EXIT_OK : cmd_fail(&err);
}

/* Writes k's op times to path as --jitter's empirical samples, whole or not at all. Returns 0,
 * or -1 with err set. */
static int write_samples(const char *path, const struct calibration *k, struct pp_error *err)
{
	struct outfile *f = guard_open(path, err);

	if (f == NULL)
		return -1;
	if (calib_write_samples(outfile_stream(f), k) != 0) {
		guard_abort(f);
		return pp_fail(err, PP_ERR_IO, "cannot write '%s'", path);
	}
	return guard_keep(f, err);
}

/* calibrate's options (cmd_getopt). */
enum { C_M, C_V, C_W_SHARE, C_OUTPUT, C_JITTER_OUT };

static const struct cmd_opt options[] = {
        {"microbatches", 'm', true, C_M},
        {"chunks", 'v', true, C_V},
        {"w-share", '\0', true, C_W_SHARE},
        {"output", 'o', true, C_OUTPUT},
        {"jitter-out", '\0', true, C_JITTER_OUT},
};

/* What calibrate's options set. */
struct args {
	uint64_t m, v;
	double w_share;
	const char *out, *jitter_out;
};

static int take(void *ctx, int id, const char *opt, const char *v)
{
	struct args *a = ctx;

	switch (id) {
	case C_M:
		if (text_parse_uint(v, 1, PP_MAX_COUNT, &a->m) != TEXT_OK)
			return cmd_usage("calibrate: %s '%.40s': must be a whole number from 1 to %d",
			                 opt, v, PP_MAX_COUNT);
		break;
	case C_V:
		if (text_parse_uint(v, 1, PP_MAX_CHUNKS, &a->v) != TEXT_OK)
			return cmd_usage("calibrate: %s '%.40s': must be a whole number from 1 to %d",
			                 opt, v, PP_MAX_CHUNKS);
		break;
	case C_W_SHARE:
		if (text_parse_double(v, &a->w_share) != TEXT_OK || a->w_share < 0 ||
		    a->w_share > 1)
			return cmd_usage("calibrate: %s '%.40s': must be a number from 0 to 1", opt,
			                 v);
		break;
	case C_OUTPUT:
		a->out = v;
		break;
	default:
		a->jitter_out = v;
		break;
	}
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	const char *file;
	struct pp_error err = {0};
	struct calibration k;
	struct calib_fit fit;
	struct args a = {.w_share = -1};
	char *text = NULL;
	size_t len = 0;
	int status;

	status = cmd_getopt("calibrate", argc, argv, options, sizeof(options) / sizeof(options[0]),
	                    take, &a, 1, &file);
	if (status == CMD_OPT_DONE)
		return PP_EXIT_OK;
	if (status == CMD_OPT_HELP) {
		fprintf(cmd_out(), "%s\n", usage);
		cmd_help_end(cmd_out(), cmd_of_fn(cmd_calibrate));
		return PP_EXIT_OK;
	}
	if (status != 0)
		return status;
	if (file == NULL)
		return cmd_usage("calibrate: needs a file of MEASURED times");
	{
		const char *outs[2];
		const char *what[2];
		int nouts = 0;

		if (a.out != NULL) {
			outs[nouts] = a.out;
			what[nouts++] = "-o";
		}
		if (a.jitter_out != NULL) {
			outs[nouts] = a.jitter_out;
			what[nouts++] = "--jitter-out";
		}
		if (nouts > 0 && guard_check_outputs(outs, what, nouts, &file,
		                                     (const char *const[]){"calibrate"}, 1, &err) != 0)
			return cmd_fail(&err);
	}
	if (calib_read(file, (int)a.m, &k, &err) != 0)
		return cmd_fail(&err);
	if (calib_chunks(&k, (int)a.v, &err) != 0) {
		calib_release(&k);
		return cmd_fail(&err);
	}
	if (a.jitter_out != NULL && k.format != CALIB_CSV) {
		calib_release(&k);
		return cmd_usage("calibrate: --jitter-out takes op times from a CSV, line by line; "
		                 "'%.40s' is a Megatron-LM log",
		                 file);
	}
	if (calib_fit(&k, a.w_share, &fit, &err) != 0) {
		calib_release(&k);
		return cmd_fail(&err);
	}
	status = fit_config(&fit, (int)a.m, file, &text, &len, &err);
	if (status == 0 && fit.max_error > 0.01)
		cmd_error("calibrate: one scale per stage misses stage %d's measured times by "
		          "up to %.1f%%: its F, B and W are not in the other stages' proportion",
		          fit.worst_stage, 100 * fit.max_error);
	calib_fit_release(&fit);
	/* a config that would not run was freed by fit_config */
	if (status == 0 && a.jitter_out != NULL && write_samples(a.jitter_out, &k, &err) != 0) {
		free(text);
		status = -1;
	}
	calib_release(&k);
	if (status != 0)
		return cmd_fail(&err);
	status = write_text(a.out, text, len);
	free(text);
	return status;
}
