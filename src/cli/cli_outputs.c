/*
 * What the commands that simulate share after their options are parsed (cli.c): the config of
 * a command line (its -c file and its options, each refused where it does not belong), the
 * checks of its output files against each other and its inputs, the writing of those files
 * (all kept, or all aborted, with the command's standard output), and a sweep's setting up.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmd.h"
#include "guard.h"
#include "ppsim/outfile.h"
#include "ppsim/schedfile.h"
#include "ppsim/sweep.h"

int cli_write_files(const struct cli_output *outs, int n)
{
	struct pp_error err = {0};

	/* each is written and finished, then kept until the command ends: they replace their
	 * targets together, after the report, or not at all */
	for (int i = 0; i < n; i++) {
		struct outfile *f = guard_open(outs[i].path, &err);

		if (f == NULL)
			return cmd_fail(&err);
		if (outs[i].gzip && outfile_gzip(f, &err) != 0) {
			guard_abort(f);
			return cmd_fail(&err);
		}
		if (outs[i].write(outfile_stream(f), outs[i].ctx) != 0) {
			guard_abort(f);
			pp_fail(&err, PP_ERR_NOMEM, "out of memory writing '%s'", outs[i].path);
			return cmd_fail(&err);
		}
		if (guard_keep(f, &err) != 0)
			return cmd_fail(&err); /* a full disk shows here, before any target changes */
	}
	return PP_EXIT_OK;
}

int cli_write_file(const char *path, int (*write)(FILE *out, const void *ctx), const void *ctx)
{
	struct cli_output out = {path, write, ctx, false};

	return cli_write_files(&out, 1);
}

/* What an output file needs: the simulation (NULL for a serving run), its serving run or NULL,
 * what the drawings read of the run, and the export's format. */
struct run_output {
	const struct sim *sim;
	const struct serve_run *serve;
	struct drawing d;
	enum schedfile_format format;
};

static int write_ops(FILE *out, const void *ctx)
{
	return report_ops_csv(out, &((const struct run_output *)ctx)->d);
}

static int write_samples(FILE *out, const void *ctx)
{
	return report_samples_csv(out, ((const struct run_output *)ctx)->sim);
}

static int write_export(FILE *out, const void *ctx)
{
	const struct run_output *o = ctx;

	return schedfile_write(out, o->d.sched, o->format);
}

static int write_trace(FILE *out, const void *ctx)
{
	return report_trace(out, &((const struct run_output *)ctx)->d);
}

static int write_pftrace(FILE *out, const void *ctx)
{
	return report_pftrace(out, &((const struct run_output *)ctx)->d);
}

static int write_svg(FILE *out, const void *ctx)
{
	return report_svg(out, &((const struct run_output *)ctx)->d, 1);
}

bool cli_gzip_name(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* True when path ends in suffix, after a ".gz" if it has one. */
static bool ends_in(const char *path, const char *suffix)
{
	size_t n = strlen(path) - (cli_gzip_name(path) ? 3 : 0), k = strlen(suffix);

	return n > k && strncmp(path + n - k, suffix, k) == 0;
}

bool cli_pftrace_name(const char *path)
{
	return ends_in(path, ".pftrace") || ends_in(path, ".perfetto-trace");
}

static int write_html(FILE *out, const void *ctx)
{
	const struct run_output *o = ctx;
	struct report_row row = {"-", o->sim, 0};

	return o->serve != NULL ? report_html_serve(out, o->serve) : report_html(out, &row, 1);
}

int cli_write_outputs(const struct cli *cli, const struct sim *s, const struct serve_run *serve,
                      const struct cli_output *extra)
{
	struct run_output o = {serve != NULL ? NULL : s, serve,
	                       serve != NULL ? serve_drawing(serve) : sim_drawing(s),
	                       cli->export_format};
	struct cli_output outs[7];
	int n = 0;

	if (cli->dump_ops != NULL)
		outs[n++] = (struct cli_output){cli->dump_ops, write_ops, &o, false};
	if (cli->samples_file != NULL && o.sim != NULL)
		outs[n++] = (struct cli_output){cli->samples_file, write_samples, &o, false};
	if (cli->export_file != NULL)
		outs[n++] = (struct cli_output){cli->export_file, write_export, &o, false};
	if (cli->trace_file != NULL)
		outs[n++] = (struct cli_output){
		        cli->trace_file, cli_pftrace_name(cli->trace_file) ? write_pftrace : write_trace,
		        &o, cli_gzip_name(cli->trace_file)};
	if (cli->svg_file != NULL)
		outs[n++] = (struct cli_output){cli->svg_file, write_svg, &o, false};
	if (cli->html_file != NULL)
		outs[n++] = (struct cli_output){cli->html_file, write_html, &o, false};
	if (extra != NULL && extra->path != NULL)
		outs[n++] = *extra;
	return cli_write_files(outs, n);
}

int cli_check_memory(const struct cli *cli, const struct sim *s, struct pp_error *err)
{
	struct pp_error why = {0};

	if (!cli->fail_on_oom || metrics_memory_error(&s->metrics, &why) == 0)
		return 0;
	return pp_fail(err, why.kind, "%s (--fail-on-oom)", why.msg);
}

/* The input files of c besides its config files, which its outputs must not name and which a run
 * reads whole each time it needs them (cli_read_once). */
static const char *const input_what[CLI_INPUTS] = {"--schedule-file", "--requests", "--jitter's file",
                                           "--link-jitter's file"};

void cli_input_paths(const struct config *c, const char *path[CLI_INPUTS])
{
	path[0] = c->schedule_file;
	path[1] = c->requests;
	path[2] = c->jitter.file;
	path[3] = c->link_jitter.file;
}

/*
 * Checks the output files of the command line against each other and against the inputs of
 * the run of c (guard_check_outputs), before anything runs.
 */
static int check_outputs(const struct cli *cli, const struct config *c, struct pp_error *err)
{
	struct cli_asked asked[CLI_MAX_ASKED];
	const char *out[CLI_MAX_ASKED], *out_what[CLI_MAX_ASKED];
	const char *fixed[6] = {cli->config_file, c->file}, *fixed_what[6] = {"-c", "the config"};
	int nfixed = (int)(sizeof(fixed) / sizeof(fixed[0])), n = nfixed + cli->nfiles, rc;
	int nout = 0, nasked = cli_outputs(cli, asked);
	const char **in = pp_mallocarray((size_t)n, sizeof(*in));
	const char **in_what = pp_mallocarray((size_t)n, sizeof(*in_what));

	cli_input_paths(c, fixed + 2);
	memcpy(fixed_what + 2, input_what, sizeof(input_what));

	if (in == NULL || in_what == NULL) {
		free(in);
		free(in_what);
		return pp_nomem(err, (size_t)n, 2 * sizeof(*in));
	}
	for (int i = 0; i < nasked; i++)
		if (asked[i].path != NULL) {
			out[nout] = asked[i].path;
			out_what[nout++] = asked[i].option;
		}
	for (int i = 0; i < n; i++) {
		in[i] = i < nfixed ? fixed[i] : cli->files[i - nfixed];
		in_what[i] = i < nfixed               ? fixed_what[i]
		             : cli->mode == CLI_REPLAY ? "the measured step"
		                                       : "a config file";
	}
	rc = guard_check_outputs(out, out_what, nout, in, in_what, n, err);
	free(in);
	free(in_what);
	return rc;
}

int cli_read_once(const struct config *c, int n, uint64_t reads, const char *command,
                  struct pp_error *err)
{
	const char *path[CLI_INPUTS], *other[CLI_INPUTS];
	struct stat st;

	for (int i = 0; i < n; i++) {
		cli_input_paths(&c[i], path);
		for (int k = 0; k < CLI_INPUTS; k++) {
			uint64_t times = 0;

			if (path[k][0] == '\0' || stat(path[k], &st) != 0 || S_ISREG(st.st_mode) ||
			    S_ISDIR(st.st_mode))
				continue;
			/* read by every run of every config that names it */
			for (int j = 0; j < n; j++) {
				cli_input_paths(&c[j], other);
				times += strcmp(other[k], path[k]) == 0 ? reads : 0;
			}
			if (times > 1)
				return pp_fail(err, PP_ERR_USAGE,
				               "%s '%s': not a regular file (a pipe or a FIFO reads once), "
				               "and %s reads it %" PRIu64 " times, once a run: give a file",
				               input_what[k], path[k], command, times);
		}
	}
	return 0;
}

int cli_config(const struct cli *cli, const char *file, struct config *c, struct pp_error *err)
{
	return cli_config_taking(cli, file, NULL, c, err);
}

int cli_config_taking(const struct cli *cli, const char *file,
                      bool (*take)(const struct config_option *o), struct config *c,
                      struct pp_error *err)
{
	const char *text = NULL;
	size_t len = 0;

	config_init(c);
	c->jobs = cli->jobs;
	/* a file read once (cli_sweep_main, a run that writes a shard file, compare's files) is
	 * read from its text */
	if (file != NULL && cli->config_text != NULL && file == cli->config_file) {
		text = cli->config_text;
		len = cli->config_len;
	}
	for (int i = 0; file != NULL && cli->file_texts != NULL && i < cli->nfiles; i++)
		if (file == cli->files[i]) {
			text = cli->file_texts[i];
			len = cli->file_lens[i];
		}
	if (text != NULL ? config_load_text(c, file, text, len, err) != 0
	                 : file != NULL && config_load_file(c, file, err) != 0)
		return -1;
	for (int i = 0; i < cli->nset; i++)
		if ((take == NULL || take(cli->set[i].opt)) &&
		    config_set(c, cli->set[i].opt, cli->set[i].label, cli->set[i].value, err) != 0)
			return -1;
	if (config_check_command(c, cli->mode, cmd_of_mode(cli->mode)->name, err) != 0)
		return -1;
	return check_outputs(cli, c, err);
}

int cli_read_files(struct cli *cli, struct pp_error *err)
{
	size_t n = cli->nfiles > 0 ? (size_t)cli->nfiles : 1;

	if ((cli->file_texts = pp_zalloc(n, sizeof(*cli->file_texts), err)) == NULL ||
	    (cli->file_lens = pp_zalloc(n, sizeof(*cli->file_lens), err)) == NULL)
		return -1;
	for (int i = 0; i < cli->nfiles; i++)
		if (config_read_file(cli->files[i], &cli->file_texts[i], &cli->file_lens[i], err) !=
		    0)
			return -1;
	return 0;
}

int cli_sweep_main(int argc, char **argv, enum cli_mode mode,
                   int (*run)(const struct cli *cli, struct sweep *sw))
{
	struct cli cli;
	struct sweep sw;
	struct pp_error err = {0};
	int status = cli_parse(argc, argv, mode, &cli);

	if (status < 0 && cli.config_file != NULL &&
	    config_read_file(cli.config_file, &cli.config_text, &cli.config_len, &err) != 0)
		status = cmd_fail(&err);
	if (status < 0 && cli_sweep(&cli, &sw, &err) != 0)
		status = cmd_fail(&err);
	else if (status < 0) {
		status = run(&cli, &sw);
		sweep_release(&sw);
	}
	cli_release(&cli);
	return status;
}

int cli_check_sweep(const struct cli *cli, const struct sweep *sw, struct pp_error *err)
{
	struct config *c = pp_malloc(sizeof(*c));
	int rc = 0;

	if (c == NULL)
		return pp_nomem(err, 1, sizeof(*c));
	/* an axis of several values is not in the base: its first value stands for it */
	*c = sw->base;
	for (int i = 0; i < sw->naxes && rc == 0; i++)
		if (sw->axes[i].nvalues > 1)
			rc = config_set(c, sw->axes[i].opt, sw->axes[i].label,
			                sw->axes[i].values[0], err);
	if (rc == 0)
		rc = config_check_command(c, cli->mode, cmd_of_mode(cli->mode)->name, err);
	free(c);
	return rc;
}

int cli_check_shared_order(const struct sweep *sw, struct pp_error *err)
{
	struct schedfile f;

	for (int i = 0; i < sw->naxes; i++)
		if (strcmp(sw->axes[i].opt->key, "schedule_file") == 0 && sw->axes[i].nvalues > 1)
			return 0;
	if (sw->base.schedule_file[0] == '\0')
		return 0;
	if (schedfile_read(sw->base.schedule_file, sw->base.max_ops, &f, err) != 0)
		return -1;
	schedfile_release(&f);
	return 0;
}

int cli_sweep(const struct cli *cli, struct sweep *sw, struct pp_error *err)
{
	struct config *base = pp_malloc(sizeof(*base));

	if (base == NULL) {
		sweep_init(sw, NULL);
		return pp_nomem(err, 1, sizeof(*base));
	}
	config_init(base);
	if (cli->config_file != NULL &&
	    (cli->config_text != NULL
	             ? config_load_text(base, cli->config_file, cli->config_text, cli->config_len,
	                                err)
	             : config_load_file(base, cli->config_file, err)) != 0) {
		free(base);
		sweep_init(sw, NULL);
		return -1;
	}
	sweep_init(sw, base);
	free(base);
	sw->require_fit = cli->fits;
	sw->shardable = true;
	for (int i = 0; i < cli->nset; i++) {
		const struct cli_assignment *a = &cli->set[i];

		const struct sweep_axis *axis = NULL;

		/* another command's option (a serving one) is told so, before its value is read as
		 * a list or a range */
		if ((a->opt->commands & (unsigned)cli->mode) == 0) {
			struct config one;
			char first[64];

			/* its first value, or the whole when that is one (a distribution's colons) */
			snprintf(first, sizeof(first), "%.*s", (int)strcspn(a->value, ","), a->value);
			config_init(&one);
			if (config_set(&one, a->opt, a->label, first, err) == 0 ||
			    config_set(&one, a->opt, a->label, a->value, err) == 0)
				config_check_command(&one, (unsigned)cli->mode,
				                     cmd_of_mode(cli->mode)->name, err);
			sweep_release(sw);
			return -1;
		}
		if (sweep_set_axis(sw, a->opt, a->label, a->value, err) != 0) {
			sweep_release(sw);
			return -1;
		}
		for (int k = 0; k < sw->naxes; k++)
			if (sw->axes[k].opt == a->opt)
				axis = &sw->axes[k];
		/* a single value also goes into the base, where it reads as set */
		if (axis->nvalues == 1)
			config_set(&sw->base, a->opt, a->label, axis->values[0], err);
	}
	sw->rank_by = cli->rank_by;
	if ((sw->rank_by != PP_RANK_STEP && !sweep_has_samples(sw) &&
	     pp_fail(err, PP_ERR_USAGE,
	             "--rank-by: ranks by the noise samples' step: give --samples=N") != 0) ||
	    check_outputs(cli, &sw->base, err) != 0 ||
	    cli_read_once(&sw->base, 1, sweep_points(sw), cmd_of_mode(cli->mode)->name, err) != 0) {
		sweep_release(sw);
		return -1;
	}
	return 0;
}
