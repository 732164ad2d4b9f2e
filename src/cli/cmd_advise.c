/*
 * `ppsim advise`: recommends a layout and schedule for a model on a cluster. It sweeps tp, p,
 * v, the micro-batch size and every schedule (whatever the command line or config does not
 * fix) at the given GPU count and global batch, keeps what fits GPU memory, and reports the
 * best and the runner-up with the reasons, interleaving's break-even at the best layout on the
 * cluster's links, and the equivalent `ppsim sweep` command, in the --format the registry
 * gives for advice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "ppsim/advise.h"
#include "progress.h"

/* What advise keeps of each configuration as the search goes. */
struct seen {
	struct progress pg;                           /* the progress line */
	struct advise_choice choice[ADVISE_CHOICES]; /* the best of each schedule and ep */
};

/* sweep_emit: counts each configuration tried for the progress line, and keeps the best of
 * each schedule and ep. */
static int count_point(void *ctx, const struct sweep_record *r)
{
	struct seen *s = ctx;

	progress_step(&s->pg);
	for (int k = 0; k < ADVISE_CHOICES; k++)
		advise_choice_add(&s->choice[k], r);
	return 0;
}

/* Writes text to out, quoted for a POSIX shell when it holds anything but plain characters. */
static void write_word(FILE *out, const char *text)
{
	bool plain =
	        *text != '\0' && strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                                      "0123456789_./,:=+-") == strlen(text);

	if (plain) {
		fputs(text, out);
		return;
	}
	fputc('\'', out);
	for (const char *p = text; *p; p++)
		if (*p == '\'')
			fputs("'\\''", out);
		else
			fputc(*p, out);
	fputc('\'', out);
}

/* The `ppsim sweep` command line that searches what sw searches, or NULL out of memory. */
static char *sweep_command(const struct cli *cli, const struct sweep *sw)
{
	char *s = NULL, *word = NULL;
	size_t len = 0, wlen = 0;
	FILE *out = open_memstream(&s, &len);
	bool failed = false;

	if (out == NULL)
		return NULL;
	fputs("ppsim sweep", out);
	if (cli->config_file != NULL) {
		fputs(" -c ", out);
		write_word(out, cli->config_file);
	}
	for (int a = 0; a < sw->naxes && !failed; a++) {
		const struct sweep_axis *x = &sw->axes[a];
		FILE *w = open_memstream(&word, &wlen);

		if (w == NULL) {
			failed = true;
			break;
		}
		fprintf(w, "--%s=", x->opt->name);
		for (int k = 0; k < x->nvalues; k++)
			fprintf(w, "%s%s", k ? "," : "", x->values[k]);
		failed = fclose(w) != 0 || word == NULL;
		if (!failed) {
			fputc(' ', out);
			write_word(out, word);
		}
		free(word);
		word = NULL;
	}
	/* the search ranks as advise did */
	if (cli->rank_by_arg != NULL)
		fprintf(out, " --rank-by=%s", cli->rank_by_arg);
	fputs(" --fits", out);
	/* a word that could not be built leaves the command incomplete: none rather than wrong */
	if (fclose(out) != 0 || failed || s == NULL) {
		free(s);
		return NULL;
	}
	return s;
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
                  int nbest, const struct sweep_totals *totals, struct advise_choice *choices)
{
	static const enum pp_comm comms[] = {PP_COMM_OVERLAP, PP_COMM_BLOCKING};
	static const int vs[] = {1, 2, 4};
	struct config *c = pp_malloc(sizeof(*c));
	struct pp_error err = {0};
	char links[2][32];
	const char *names[2] = {links[0], links[1]};
	struct breakeven_row rows[2 * 2 * 3];
	int nlinks, status = PP_EXIT_OK;
	struct advice a = {sw, totals, best, nbest, rows, 0, NULL, NULL, choices};
	struct partition layout = {0};

	if (c == NULL) {
		pp_nomem(&err, 1, sizeof(*c));
		return cmd_fail(&err);
	}
	for (int k = 0; k < ADVISE_CHOICES; k++)
		if (advise_choice_rank(&choices[k], &err) != 0) {
			free(c);
			return cmd_fail(&err);
		}
	sweep_point_config(sw, best[0].index, c, &err);
	if (best[0].p > 1) { /* with one stage there is nothing to interleave */
		/* the cluster's links: inside a node, then between nodes if different */
		config_model_links(c, links[0], links[1]);
		nlinks = strcmp(links[0], links[1]) != 0 ? 2 : 1;
		if (breakeven_run(c, names, nlinks, comms, 2, vs, 3, rows, &err) != 0) {
			free(c);
			return cmd_fail(&err);
		}
		a.nrows = nlinks * 2 * 3;
	}
	/* the recommendation's layers and recomputation per stage, as ppsim partition finds
	 * them (the sweep ranked it with its layers spread evenly) */
	if (best[0].p * best[0].v > 1) {
		if (partition_search(c, cli->jobs, 0, &layout, &err) != 0) {
			free(c);
			return cmd_fail(&err);
		}
		a.layout = layout.best.set ? &layout : NULL;
	}
	a.command = sweep_command(cli, sw);
	if (a.command == NULL) {
		pp_fail(&err, PP_ERR_NOMEM, "out of memory writing the equivalent sweep's command");
		status = cmd_fail(&err);
	} else if (cli->format->advice(cmd_out(), &a) != 0) {
		status = cmd_report_failed();
	}
	free((char *)a.command);
	partition_release(&layout);
	free(c);
	return status;
}

/* Adds advise's axes to sw, searches it and reports the best point and its runner-up. */
static int advise_main(const struct cli *cli, struct sweep *sw)
{
	struct pp_error err = {0};
	struct sweep_totals totals;
	struct sweep_record *best;
	struct seen seen = {0};
	int nbest, status;

	/* a file every point reads (a pipe's is read once) counts the points of advise's axes */
	if (cli_check_sweep(cli, sw, &err) != 0 || advise_check(sw, &err) != 0 ||
	    advise_add_axes(sw, &err) != 0 ||
	    cli_read_once(&sw->base, 1, sweep_points(sw), "advise", &err) != 0)
		return cmd_fail(&err);
	best = pp_mallocarray(RANKED, sizeof(*best));
	if (best == NULL || advise_choice_init(&seen.choice[0], sw, "schedule", &err) != 0 ||
	    advise_choice_init(&seen.choice[1], sw, "ep", &err) != 0) {
		if (best == NULL)
			pp_nomem(&err, RANKED, sizeof(*best));
		free(best);
		advise_choice_release(&seen.choice[0]);
		return cmd_fail(&err);
	}
	progress_start(&seen.pg, !cli->quiet, "advise", "configurations", sweep_points(sw));
	status = sweep_run_ranked(sw, 0, sweep_points(sw), cli->jobs, best, RANKED, &nbest,
	                          &totals, count_point, &seen, &err);
	progress_end(&seen.pg);
	if (status < 0)
		status = cmd_fail(&err);
	else if ((nbest = pick_runner_up(best, nbest)) == 0 && totals.over_memory == 0) {
		/* not one is valid: memory is not the matter, the settings are (a fixed m that
		 * the global batch does not allow, say) */
		cmd_error("advise: none of the %llu configurations is valid: the first fails with "
		          "%s",
		          (unsigned long long)totals.points, totals.first_reason);
		status = PP_EXIT_USAGE;
	} else if (nbest == 0) {
		char levers[160];

		cmd_memory_levers(levers, sizeof(levers), &sw->base, true, true);
		cmd_error("advise: none of the %llu configurations fits: %llu are over GPU "
		          "memory and the others are invalid; try %s",
		          (unsigned long long)totals.points,
		          (unsigned long long)totals.over_memory, levers);
		status = PP_EXIT_SIM;
	} else {
		status = report(cli, sw, best, nbest, &totals, seen.choice);
	}
	free(best);
	for (int k = 0; k < ADVISE_CHOICES; k++)
		advise_choice_release(&seen.choice[k]);
	return status;
}

int cmd_advise(int argc, char **argv)
{
	return cli_sweep_main(argc, argv, CLI_ADVISE, advise_main);
}
