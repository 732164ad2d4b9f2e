/*
 * `ppsim advise`: recommends a layout and schedule for a model on a cluster. It sweeps tp, p,
 * v, the micro-batch size and every schedule (whatever the command line or config does not
 * fix) at the given GPU count and global batch, keeps what fits GPU memory, and reports the
 * best and the runner-up with the reasons, interleaving's break-even at the best layout on the
 * cluster's links, and the equivalent `ppsim sweep` command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/advise.h"

/* Appends text to the growing string *s of length *len, quoted for a POSIX shell if needed. */
static void append_word(char **s, size_t *len, const char *text)
{
	bool plain = *text != '\0' && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                                           "0123456789_./,:=+-") == strlen(text);
	size_t need = *len + 4 * strlen(text) + 4;

	*s = pp_xrealloc(*s, need);
	if (plain) {
		*len += (size_t)sprintf(*s + *len, "%s", text);
		return;
	}
	(*s)[(*len)++] = '\'';
	for (const char *p = text; *p; p++) {
		if (*p == '\'') {
			memcpy(*s + *len, "'\\''", 4);
			*len += 4;
		} else {
			(*s)[(*len)++] = *p;
		}
	}
	(*s)[(*len)++] = '\'';
	(*s)[*len] = '\0';
}

/* Appends text as it is to the growing string *s of length *len. */
static void append_raw(char **s, size_t *len, const char *text)
{
	*s = pp_xrealloc(*s, *len + strlen(text) + 1);
	strcpy(*s + *len, text);
	*len += strlen(text);
}

/* The `ppsim sweep` command line that searches what sw searches. */
static char *sweep_command(const struct cli *cli, const struct sweep *sw)
{
	char *s = pp_xstrdup("ppsim sweep");
	size_t len = strlen(s);

	if (cli->config_file != NULL) {
		append_raw(&s, &len, " -c ");
		append_word(&s, &len, cli->config_file);
	}
	for (int a = 0; a < sw->naxes; a++) {
		const struct sweep_axis *x = &sw->axes[a];
		size_t n = strlen(x->opt->name) + 4;
		char *word;

		for (int k = 0; k < x->nvalues; k++)
			n += strlen(x->values[k]) + 1;
		word = pp_xmalloc(n);
		n = (size_t)sprintf(word, "--%s=", x->opt->name);
		for (int k = 0; k < x->nvalues; k++)
			n += (size_t)sprintf(word + n, "%s%s", k ? "," : "", x->values[k]);
		append_raw(&s, &len, " ");
		append_word(&s, &len, word);
		free(word);
	}
	append_raw(&s, &len, " --fits");
	return s;
}

/* The links of the best point's cluster: inside a node, then between nodes if different. */
static int cluster_links(const struct config *c, char links[2][32])
{
	struct pp_error err = {0};
	struct sim *s = sim_run(c, &err);
	int n = 0;

	if (s == NULL || s->cost->model == NULL) {
		sim_free(s);
		return 0;
	}
	snprintf(links[n++], sizeof(links[0]), "%s", s->cost->model->link);
	if (strcmp(s->cost->model->link, s->cost->model->inter_link) != 0)
		snprintf(links[n++], sizeof(links[0]), "%s", s->cost->model->inter_link);
	sim_free(s);
	return n;
}

/* How many of the best points advise ranks to find a runner-up among. */
#define RANKED 64

/*
 * Moves the best point after best[0] that is a real alternative to it (advise_distinct) to
 * best[1]; returns 2, or 1 when none of the n ranked is.
 */
static int pick_runner_up(struct sweep_record *best, int n)
{
	for (int i = 1; i < n; i++)
		if (advise_distinct(&best[0], &best[i])) {
			if (i != 1)
				best[1] = best[i];
			return 2;
		}
	return n > 0 ? 1 : 0;
}

/* Reports the advice for sw, whose records are ranked in best[0..nbest-1]. */
static int report(const struct cli *cli, const struct sweep *sw, const struct sweep_record *best,
                  int nbest, const struct sweep_totals *totals)
{
	static const enum pp_comm comms[] = {PP_COMM_OVERLAP, PP_COMM_BLOCKING};
	static const int vs[] = {1, 2, 4};
	struct config *c = pp_xmalloc(sizeof(*c));
	struct pp_error err = {0};
	char links[2][32];
	const char *names[2] = {links[0], links[1]};
	struct breakeven_row rows[2 * 2 * 3];
	int nlinks;
	struct advice a = {sw, totals, best, nbest, rows, 0, NULL};

	sweep_point_config(sw, best[0].index, c, &err);
	if (best[0].p > 1) { /* with one stage there is nothing to interleave */
		nlinks = cluster_links(c, links);
		breakeven_run(c, names, nlinks, comms, 2, vs, 3, rows);
		a.nrows = (nlinks > 0 ? nlinks : 1) * 2 * 3;
	}
	a.command = sweep_command(cli, sw);
	if (strcmp(cli->format_name, "json") == 0)
		report_advice_json(stdout, &a);
	else
		report_advice_text(stdout, &a);
	free((char *)a.command);
	free(c);
	return PP_EXIT_OK;
}

int cmd_advise(int argc, char **argv)
{
	struct cli cli;
	struct sweep sw;
	struct pp_error err = {0};
	struct sweep_totals totals;
	struct sweep_record *best;
	int nbest, status = cli_parse(argc, argv, CLI_ADVISE, &cli);

	if (status >= 0) {
		cli_release(&cli);
		return status;
	}
	if (strcmp(cli.format_name, "text") != 0 && strcmp(cli.format_name, "json") != 0) {
		status = cmd_usage("--format '%s': advise writes text or json", cli.format_name);
		cli_release(&cli);
		return status;
	}
	if (cli_sweep(&cli, &sw, &err) != 0) {
		cli_release(&cli);
		return cmd_fail(&err);
	}
	if (advise_check(&sw, &err) != 0 || advise_add_axes(&sw, &err) != 0) {
		sweep_release(&sw);
		cli_release(&cli);
		return cmd_fail(&err);
	}
	best = pp_xmallocarray(RANKED, sizeof(*best));
	sweep_run_ranked(&sw, 0, sweep_points(&sw), cli.jobs, best, RANKED, &nbest, &totals, NULL,
	                 NULL);
	nbest = pick_runner_up(best, nbest);
	if (nbest == 0) {
		fprintf(stderr,
		        "ppsim: advise: none of the %llu configurations fits: %llu are over GPU "
		        "memory and the others are invalid; try more GPUs, "
		        "--distributed-optimizer=yes or --recompute=full\n",
		        (unsigned long long)totals.points, (unsigned long long)totals.over_memory);
		status = PP_EXIT_SIM;
	} else {
		status = report(&cli, &sw, best, nbest, &totals);
	}
	free(best);
	sweep_release(&sw);
	cli_release(&cli);
	return status;
}
