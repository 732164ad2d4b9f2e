/*
 * `ppsim compare`: several configs and/or schedules side by side. Rows are every config file
 * given (or the command line alone) times every schedule of --schedules (or the config's own).
 * A schedule runs with the number of chunks it accepts nearest to -v, so `-v 2` applies to the
 * interleaved schedule while GPipe and 1F1B run with one chunk. Every row is simulated before
 * anything is printed; the format registry gives the writer of training rows or of serving
 * rows (a config setting a serving option makes the comparison a serving one).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "cli.h"
#include "cmd.h"
#include "ppsim/sched.h"
#include "ppsim/samples.h"
#include "ppsim/serve.h"
#include "ppsim/sim.h"

/*
 * Reads the --schedules list into names[] (the schedules' own names) as a sweep reads its
 * --schedules: sweep_set_axis splits it, expands "all" and refuses an empty item, so both
 * commands take the same lists. Names are checked first, for compare's message naming the
 * unknown one in the list. Returns 0, or the exit status after reporting the error.
 */
static int schedule_list(const char *list, char *buf, size_t n, const char **names, int max,
                         int *count)
{
	struct sweep *sw;
	struct pp_error err = {0};
	int status = 0;

	*count = 0;
	if (strlen(list) >= n)
		return cmd_usage("--schedules: list too long");
	strcpy(buf, list);
	for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
		char known[256], hint[96];

		if (strcmp(tok, "all") != 0 && sched_find(tok) == NULL) {
			sched_names(known, sizeof(known));
			return cmd_usage("--schedules '%s': unknown schedule '%s'; known: %s%s", list,
			                 tok, known, text_suggest_in(tok, known, ", ", hint, sizeof(hint)));
		}
	}
	sw = pp_malloc(sizeof(*sw));
	if (sw == NULL) {
		pp_nomem(&err, 1, sizeof(*sw));
		return cmd_fail(&err);
	}
	sweep_init(sw, NULL);
	if (sweep_set_axis(sw, config_option_by_key("schedule"), "--schedules", list, &err) != 0) {
		status = cmd_fail(&err);
	} else if (sw->axes[0].nvalues > max) {
		status = cmd_usage("--schedules '%s': more than %d schedules", list, max);
	} else {
		for (int i = 0; i < sw->axes[0].nvalues; i++)
			names[(*count)++] = sched_find(sw->axes[0].values[i])->name;
	}
	sweep_release(sw);
	free(sw);
	return status;
}

/* The row label of a config file: its name without directories and ".json". */
static char *label_of(const char *file)
{
	const char *base = file == NULL ? "-" : strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	char *label = pp_strdup(base);
	size_t len = label != NULL ? strlen(label) : 0;

	if (len > 5 && strcmp(label + len - 5, ".json") == 0)
		label[len - 5] = '\0';
	return label;
}

/* The config *c of the row for file (NULL: none) and schedule (NULL: the config's); 0, or -1
 * with err set. */
static int row_config(const struct cli *cli, const char *file, const char *schedule,
                      struct config *c, struct pp_error *err)
{
	const struct sched_desc *d;

	if (cli_config(cli, file, c, err) != 0)
		return -1;
	if (schedule != NULL)
		snprintf(c->schedule, sizeof(c->schedule), "%s", schedule);
	d = sched_find(c->schedule);
	if (d != NULL)
		c->v = sched_desc_fit_v(d, c->p, c->v);
	return 0;
}

/* What compare's pictures need: the training rows, or the serving rows when they are not NULL. */
struct picture_rows {
	const struct report_row *rows;
	const struct serve_row *serving;
	int n;
};

static int write_svg(FILE *out, const void *ctx)
{
	const struct picture_rows *r = ctx;
	struct drawing *d = pp_mallocarray((size_t)r->n, sizeof(*d));
	int rc;

	if (d == NULL)
		return -1;
	for (int i = 0; i < r->n; i++)
		d[i] = r->serving != NULL ? serve_drawing(r->serving[i].run)
		                          : sim_drawing(r->rows[i].sim);
	rc = report_svg(out, d, r->n);
	free(d);
	return rc;
}

static int write_html(FILE *out, const void *ctx)
{
	const struct picture_rows *r = ctx;

	return r->serving != NULL ? report_html_serving(out, r->serving, r->n)
	                          : report_html(out, r->rows, r->n);
}

/* Writes the SVG and HTML pictures of the rows (training rows, or serving when serving is not
 * NULL) asked for; returns PP_EXIT_OK or the failure. */
static int write_pictures(const struct cli *cli, const struct report_row *rows,
                          const struct serve_row *serving, int n)
{
	struct picture_rows pr = {rows, serving, n};
	struct cli_output outs[2];
	int k = 0;

	if (cli->svg_file != NULL)
		outs[k++] = (struct cli_output){cli->svg_file, write_svg, &pr, false};
	if (cli->html_file != NULL)
		outs[k++] = (struct cli_output){cli->html_file, write_html, &pr, false};
	return cli_write_files(outs, k);
}

/* Whether row r runs within GPU memory (a row without a model does). */
static bool fits(const struct report_row *r)
{
	return !r->sim->metrics.has_model || !r->sim->metrics.oom;
}

/* Ranks the rows by --rank-by: the rows that fit GPU memory first (as sweep and advise rank),
 * then 1 for the least figure, rows of one figure sharing a rank. Returns -1 (go on), or the
 * usage error of a statistic of samples a row has not. */
static int rank_rows(const struct cli *cli, struct report_row *rows, int n)
{
	for (int i = 0; i < n; i++)
		if (isnan(sim_rank_figure(rows[i].sim, cli->rank_by)))
			return cmd_usage("--rank-by: ranks by the noise samples' step: give --samples=N "
			                 "(row %d, %s, has none)",
			                 i + 1, rows[i].label);
	for (int i = 0; i < n; i++) {
		double x = sim_rank_figure(rows[i].sim, cli->rank_by);

		rows[i].rank = 1;
		for (int j = 0; j < n; j++)
			rows[i].rank += fits(&rows[j]) != fits(&rows[i])
			                        ? fits(&rows[j])
			                        : sim_rank_figure(rows[j].sim, cli->rank_by) < x;
	}
	return -1;
}

/* True when config file (NULL: the command line alone) with the options is a serving config;
 * false also when it cannot be read (the training path then reports why). */
static bool serving(const struct cli *cli, const char *file)
{
	struct config c;
	struct pp_error err = {0};

	return cli_config(cli, file, &c, &err) == 0 && config_is_serve(&c);
}

/* Serving configs side by side: each file (or the command line alone) served and reported. */
static int compare_serving(const struct cli *cli)
{
	int n = cli->nfiles > 0 ? cli->nfiles : 1, status = -1, made = 0;
	struct serve_row *rows = pp_calloc((size_t)n, sizeof(*rows));
	struct serve_metrics *metrics = pp_calloc((size_t)n, sizeof(*metrics));
	const struct report_format *f = report_format_find(cli->format_name, REPORT_SERVE_COMPARE);
	struct pp_error err = {0};

	if (rows == NULL || metrics == NULL) {
		pp_nomem(&err, (size_t)n, sizeof(*metrics));
		status = cmd_fail(&err);
	} else if (f == NULL) {
		status = cli_bad_format(CLI_COMPARE, cli->format_name);
	} else if (cli->rank_by_arg != NULL) {
		/* serving has no noise samples to rank by, as a training compare without
		 * --samples has none */
		status = cmd_usage("--rank-by '%s': ranks training steps by their noise samples; "
		                   "serving configs are not ranked",
		                   cli->rank_by_arg);
	}
	for (int i = 0; i < n && status < 0; i++) {
		const char *file = cli->nfiles > 0 ? cli->files[i] : NULL;
		struct config c;
		struct serve_run *r;

		if (cli_config(cli, file, &c, &err) != 0) {
			status = cmd_fail(&err);
			break;
		}
		if (!config_is_serve(&c)) {
			status = cmd_usage("compare: '%s' is a training config and '%s' a serving "
			                   "one; compare like with like",
			                   file, cli->files[0]);
			break;
		}
		/* the rows are held together: each may take its share of what fits */
		if ((r = cmd_serve_config(&c, cli_serve_flags(cli), cli_serve_steps(cli, &c, n),
		                          false, &err)) == NULL) {
			status = cmd_fail(&err);
			break;
		}
		if (serve_metrics_init(&metrics[i], r, &err) != 0) {
			serve_metrics_release(&metrics[i]);
			serve_free(r);
			status = cmd_fail(&err);
			break;
		}
		rows[i] = (struct serve_row){label_of(file), r, &metrics[i]};
		made++;
		if (rows[i].label == NULL) {
			pp_nomem(&err, 1, strlen(file != NULL ? file : "-") + 1);
			status = cmd_fail(&err);
		}
		if (status < 0 && report_compare_units(rows[0].run->time_unit, r->time_unit, &err) != 0)
			status = cmd_fail(&err);
	}
	if (status < 0 && write_pictures(cli, NULL, rows, made) != PP_EXIT_OK)
		status = PP_EXIT_IO;
	if (status < 0 && f->serve_compare(cmd_out(), rows, made) != 0) {
		status = cmd_report_failed();
	}
	for (int i = 0; i < made; i++) {
		free((char *)rows[i].label);
		serve_metrics_release(&metrics[i]);
		serve_free((struct serve_run *)rows[i].run);
	}
	free(rows);
	free(metrics);
	return status < 0 ? PP_EXIT_OK : status;
}

int cmd_compare(int argc, char **argv)
{
	struct cli cli;
	struct pp_error err = {0};
	const char *names[64];
	char buf[1024];
	int nsched = 0, nrows = 0, status = cli_parse(argc, argv, CLI_COMPARE, &cli);
	int nfiles, nwant = 0;
	struct report_row *rows = NULL;
	struct config *configs = NULL;
	struct cli_need need;

	if (status < 0 && cli.schedules != NULL) {
		/* schedule_list printed the error and gives its exit status */
		status = schedule_list(cli.schedules, buf, sizeof(buf), names, 64, &nsched);
		status = status == 0 ? -1 : status;
	}
	for (int i = 0; status < 0 && nsched > 0 && i < cli.nset; i++)
		if (strcmp(cli.set[i].opt->key, "schedule_file") == 0)
			status = cmd_usage(
			        "--schedules: not with --schedule-file, which fixes the order");
	if (status < 0 && cli.nfiles == 0 && nsched == 0)
		status = cmd_usage("compare: give config files, --schedules, or both");
	if (status < 0 && cli_read_files(&cli, &err) != 0)
		status = cmd_fail(&err);
	if (status < 0 && nsched > 0 && serving(&cli, cli.files[0]))
		status = cmd_usage("compare: --schedules sets training schedules side by side; %s%s%s "
		                   "serving config (compare serving configs without it)",
		                   cli.files[0] != NULL ? "'" : "",
		                   cli.files[0] != NULL ? cli.files[0] : "the command line is a",
		                   cli.files[0] != NULL ? "' is a" : "");
	if (status < 0 && nsched == 0 && serving(&cli, cli.files[0])) {
		status = compare_serving(&cli);
		cli_release(&cli);
		return status;
	}
	nfiles = cli.nfiles > 0 ? cli.nfiles : 1;
	if (status < 0) {
		nwant = nfiles * (nsched > 0 ? nsched : 1);
		rows = pp_calloc((size_t)nwant, sizeof(*rows));
		configs = pp_calloc((size_t)nwant, sizeof(*configs));
		if (rows == NULL || configs == NULL) {
			pp_nomem(&err, (size_t)nwant, sizeof(*rows) + sizeof(*configs));
			status = cmd_fail(&err);
		}
	}
	/* every row is held until the end: what they all need is checked before any runs */
	if (status < 0)
		cli_need_init(&need, &cli);
	for (int i = 0; status < 0 && i < nwant; i++) {
		const char *file = cli.nfiles > 0 ? cli.files[i / (nsched > 0 ? nsched : 1)] : NULL;

		if (row_config(&cli, file, nsched > 0 ? names[i % nsched] : NULL, &configs[i],
		               &err) != 0 ||
		    cli_need_config(&need, &configs[i], &err) != 0)
			status = cmd_fail(&err);
	}
	if (status < 0 && cli_read_once(configs, nwant, 1, "compare", &err) != 0)
		status = cmd_fail(&err);
	for (int i = 0; status < 0 && i < nwant; i++) {
		const char *file = cli.nfiles > 0 ? cli.files[i / (nsched > 0 ? nsched : 1)] : NULL;
		struct sim *s = cli_simulate(&need, &configs[i], &err);

		if (s == NULL || cli_check_memory(&cli, s, &err) != 0 ||
		    (configs[i].samples > 0 &&
		     sim_sample(s, 0, configs[i].samples, cli.jobs, &err) != 0)) {
			/* which of the rows failed (running out of memory is the program's, and its
			 * message starts "out of memory" wherever it happens) */
			struct pp_error why = err;

			if (why.kind != PP_ERR_NOMEM)
				pp_fail(&err, why.kind, "compare: row %s%s%s: %s",
				        file != NULL ? file : "", file != NULL ? ", " : "",
				        configs[i].schedule, why.msg);
			sim_free(s);
			status = cmd_fail(&err);
			break;
		}
		rows[nrows].label = label_of(file);
		rows[nrows++].sim = s;
		if (rows[nrows - 1].label == NULL) {
			pp_nomem(&err, 1, strlen(file != NULL ? file : "-") + 1);
			status = cmd_fail(&err);
			break;
		}
		if (report_compare_units(rows[0].sim->cost->time_unit, s->cost->time_unit, &err) != 0) {
			status = cmd_fail(&err);
			break;
		}
	}
	free(configs);
	if (status < 0 && cli.rank_set)
		status = rank_rows(&cli, rows, nrows);
	if (status < 0) {
		int rc = write_pictures(&cli, rows, NULL, nrows);

		if (rc != PP_EXIT_OK)
			status = rc;
	}
	if (status < 0 && cli.format->compare(cmd_out(), rows, nrows) != 0) {
		status = cmd_report_failed();
	}
	for (int i = 0; i < nrows; i++) {
		free((char *)rows[i].label);
		sim_free((struct sim *)rows[i].sim);
	}
	free(rows);
	cli_release(&cli);
	return status < 0 ? PP_EXIT_OK : status;
}
