/*
 * Reports of `ppsim breakeven` and `ppsim advise`: the interleaving break-even table beside the
 * source document's inequality, and the recommendation with its runner-up and reasons.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/report.h"

#include "formats.h"
#include "base/memfile.h"

static const char *comm_name(enum pp_comm c)
{
	return config_comm_name(c);
}

/* The verdict words of a row. */
static const char *verdict(bool pays)
{
	return pays ? "pays" : "loses";
}

/* Writes one summary line per link and mode: where interleaving pays most and stops paying. */
static void write_summary(FILE *out, const struct breakeven_row *rows, int n)
{
	int agree = 0, compared = 0;

	for (int i = 0; i < n;) {
		int j = i, stop = 0;
		const struct breakeven_row *best = NULL;

		while (j < n && strcmp(rows[j].link, rows[i].link) == 0 && rows[j].comm == rows[i].comm)
			j++;
		for (int k = i; k < j; k++) {
			if (!rows[k].ok || rows[k].v == 1)
				continue;
			if (!rows[k].pays && stop == 0)
				stop = rows[k].v;
			if (rows[k].pays && (best == NULL || rows[k].gain > best->gain))
				best = &rows[k];
			compared++;
			agree += rows[k].predicted == rows[k].pays;
		}
		fprintf(out, "%s %s: ", rows[i].link, comm_name(rows[i].comm));
		if (best == NULL)
			fputs(stop > 0 ? "interleaving does not pay at any v tried\n"
			               : "no interleaved run could be simulated\n",
			      out);
		else if (stop > 0)
			fprintf(out, "interleaving pays most at v=%d (%+.2f%%) and stops paying at v=%d\n",
			        best->v, 100 * best->gain, stop);
		else
			fprintf(out, "interleaving pays at every v tried, most at v=%d (%+.2f%%)\n",
			        best->v, 100 * best->gain);
		i = j;
	}
	if (compared > 0)
		fprintf(out, "the inequality agrees with the simulation in %d of %d rows\n", agree,
		        compared);
}

int report_breakeven_text(FILE *out, const struct breakeven_row *rows, int n)
{
	const struct breakeven_row *first = NULL;
	int wl = 4;

	for (int i = 0; i < n; i++) {
		if (first == NULL && rows[i].ok)
			first = &rows[i];
		if ((int)strlen(rows[i].link) > wl)
			wl = (int)strlen(rows[i].link);
	}
	if (first == NULL) {
		fprintf(out, "no run could be simulated: %s\n", n > 0 ? rows[0].reason : "no rows");
		return 0;
	}
	fprintf(out,
	        "interleaved 1F1B (v chunks) against 1F1B at p=%d, m=%d; times in %s\n"
	        "the document predicts a loss where t_comm x v(p-1) x m > (bubble_1f1b - bubble_v) x "
	        "T_1f1b\n\n",
	        first->p, first->m, first->time_unit);
	fprintf(out, "%-*s  %-8s  %3s  %12s  %8s  %9s  %15s  %15s  %10s  %10s\n", wl, "link", "comm",
	        "v", "time", "gain", "t_comm", "t_comm*v(p-1)*m", "dbubble*T_1f1b", "inequality",
	        "simulation");
	for (int i = 0; i < n; i++) {
		const struct breakeven_row *r = &rows[i];

		fprintf(out, "%-*s  %-8s  %3d  ", wl, r->link, comm_name(r->comm), r->v);
		if (!r->ok)
			fprintf(out, "not simulated: %s\n", r->reason);
		else if (r->v == 1)
			fprintf(out, "%12.6g  %8s  %9.4g  %15s  %15s  %10s  %10s\n", r->time, "-",
			        r->t_comm, "-", "-", "-", "baseline");
		else
			fprintf(out, "%12.6g  %+7.2f%%  %9.4g  %15.6g  %15.6g  %10s  %10s\n", r->time,
			        100 * r->gain, r->t_comm, r->lhs, r->rhs, verdict(r->predicted),
			        verdict(r->pays));
	}
	fputc('\n', out);
	write_summary(out, rows, n);
	return 0;
}

/* Writes rows as a JSON array. */
static void write_rows_json(FILE *out, const struct breakeven_row *rows, int n)
{
	char a[32], b[32], c[32], d[32], e[32], f[32];

	fputc('[', out);
	for (int i = 0; i < n; i++) {
		const struct breakeven_row *r = &rows[i];

		fprintf(out, "%s\n  {\"schema_version\":%d,\"link\":", i ? "," : "",
		        REPORT_SCHEMA_VERSION);
		report_json_text(out, r->link);
		fprintf(out, ",\"comm\":\"%s\",\"v\":%d,\"ok\":%s", comm_name(r->comm), r->v,
		        r->ok ? "true" : "false");
		if (!r->ok) {
			fputs(",\"reason\":", out);
			report_json_text(out, r->reason);
			fputc('}', out);
			continue;
		}
		fprintf(out,
		        ",\"p\":%d,\"m\":%d,\"time_unit\":\"%s\",\"time\":%s,\"base_time\":%s,"
		        "\"gain\":%s,\"t_comm\":%s,\"message_cost\":%s,\"bubble_saving\":%s,"
		        "\"inequality_pays\":%s,\"pays\":%s}",
		        r->p, r->m, r->time_unit, REPORT_NUM(a, r->time), REPORT_NUM(b, r->base_time),
		        REPORT_NUM(c, r->gain), REPORT_NUM(d, r->t_comm), REPORT_NUM(e, r->lhs),
		        REPORT_NUM(f, r->rhs), r->predicted ? "true" : "false",
		        r->pays ? "true" : "false");
	}
	fputs("\n]", out);
}

int report_breakeven_json(FILE *out, const struct breakeven_row *rows, int n)
{
	write_rows_json(out, rows, n);
	fputc('\n', out);
	return 0;
}

/* A percentage of x with sign, "+1.23%". */
static const char *percent(char *buf, size_t n, double x)
{
	snprintf(buf, n, "%+.2f%%", 100 * x);
	return buf;
}

/* What ranks a point against the recommendation r: the ratio of their ranking figures (tokens/s
 * at the step --rank-by ranks by), less 1. */
static double versus(const struct sweep_rank_key *k, const struct sweep_record *r)
{
	return k->score / sweep_rank_key(r).score - 1;
}

/* " at its p99 step" when --rank-by ranks by a statistic of the noise samples, else "". */
static const char *ranked_at(const struct sweep *sw)
{
	static const char *const at[] = {"", " at its mean step", " at its median step",
	                                 " at its p90 step", " at its p99 step"};

	return sw->rank_by >= PP_RANK_STEP && sw->rank_by <= PP_RANK_P99 ? at[sw->rank_by] : "";
}

/* Whether the search has points with context parallelism: the base's cp above 1, or an axis of
 * cp with another value than 1. */
static bool searched_cp(const struct sweep *sw)
{
	if (sw->base.cp > 1)
		return true;
	for (int a = 0; a < sw->naxes; a++)
		if (strcmp(sw->axes[a].opt->key, "cp") == 0)
			for (int i = 0; i < sw->axes[a].nvalues; i++)
				if (strcmp(sw->axes[a].values[i], "1") != 0)
					return true;
	return false;
}

/* Writes item, separated from what the line holds (*col columns) by sep, on a new line of
 * the reasons' indent when it would pass 100 columns. */
static void put_item(FILE *out, int *col, const char *sep, const char *item)
{
	int n = (int)(strlen(sep) + strlen(item));

	if (*col + n > 100) {
		fprintf(out, "%s\n              %s", sep[0] == ';' ? ";" : ",", item);
		*col = 14 + (int)strlen(item);
		return;
	}
	fprintf(out, "%s%s", sep, item);
	*col += n;
}

/*
 * One choice's reason: against the recommendation r, the best point of each other value of
 * ch's axis that fits, by rank, with its tokens/s against r's, then the values of which
 * nothing fits. name is the axis as the line says it (value= before each value when it is
 * not the schedule's); an ep value whose group has fewer GPUs in some node than ep
 * is said to cross nodes, as its all-to-all is priced.
 */
static void write_choice(FILE *out, const struct sweep *a_sw, const struct advise_choice *ch,
                         const struct sweep_record *r, const char *label, const char *what)
{
	bool ep = strcmp(ch->axis->opt->key, "ep") == 0, none = true;
	const char *sep = " ";
	char item[96];
	int col = fprintf(out, "  %-10s  the best of each other %s%s:", label, what,
	                  ranked_at(a_sw));

	for (int i = 0; i < ch->nranked; i++) {
		const struct advise_pick *b = ch->ranked[i];
		const char *value = ch->axis->values[b - ch->best];

		if (b - ch->best == r->value[ch->axis->slot])
			continue;
		snprintf(item, sizeof(item), "%s%s %+.2f%%%s", ep ? "ep=" : "", value,
		         100 * versus(&b->key, r), ep && b->ep_node < b->ep ? " (across nodes)" : "");
		put_item(out, &col, sep, item);
		sep = ", ";
	}
	if (sep[0] == ' ')
		put_item(out, &col, sep, "none that fits");
	/* the values over memory, then those no layout of the cluster takes */
	for (int invalid = 0; invalid < 2; invalid++) {
		none = true;
		for (int i = 0; i < ch->axis->nvalues; i++)
			if (!ch->best[i].set && ch->best[i].valid == !invalid) {
				snprintf(item, sizeof(item), "%s%s%s",
				         !none      ? ""
				         : invalid ? "no layout of the cluster is valid at "
				                   : "nothing fits at ",
				         ep ? "ep=" : "", ch->axis->values[i]);
				put_item(out, &col, none ? "; " : ", ", item);
				none = false;
			}
	}
	fputc('\n', out);
}

int report_advice_text(FILE *out, const struct advice *a)
{
	const struct sweep_record *r = &a->best[0], *q = a->nbest > 1 ? &a->best[1] : NULL;
	const struct config *c = &a->sw->base;
	char buf[32];

	fprintf(out,
	        "%s on %d GPUs (%d per node), global batch %d sequences of %d tokens: %llu "
	        "configurations searched, %llu fit in GPU memory\n\n",
	        c->model, c->gpus, c->gpus_per_node, c->global_batch, c->seq,
	        (unsigned long long)a->totals->points, (unsigned long long)a->totals->simulated);
	fprintf(out,
	        "%-12s  %-20s  %3s  %3s  %3s  %3s  %3s  %4s  %4s  %6s  %12s  %9s  %6s  %7s  %9s  "
	        "%8s\n",
	        "", "schedule", "tp", "cp", "ep", "p", "v", "dp", "mbs", "m", "step_time_ms",
	        "tokens/s", "mfu", "bubble", "memory_GB", "headroom");
	for (int i = 0; i < a->nbest; i++) {
		const struct sweep_record *x = &a->best[i];

		fprintf(out,
		        "%-12s  %-20s  %3d  %3d  %3d  %3d  %3d  %4d  %4d  %6d  %12.6g  %9.6g  %6.4f  "
		        "%7.4f  %9.2f  %7.1f%%\n",
		        i == 0 ? "recommended" : "runner-up", x->schedule, x->tp, x->cp, x->ep, x->p,
		        x->v, x->dp, x->mbs, x->m, x->step_time, x->tokens_per_s, x->mfu, x->bubble_ratio,
		        x->memory_bytes / 1e9,
		        100 * (x->memory_capacity - x->memory_reserve - x->memory_bytes) /
		                x->memory_capacity);
	}
	/* the table's figures are the deterministic step's; the ranking's are the samples' */
	if (ranked_at(a->sw)[0] != '\0') {
		fprintf(out, "%-12s  ranked%s:", "", ranked_at(a->sw));
		for (int i = 0; i < a->nbest; i++)
			fprintf(out, "%s %s %.6g ms, %.6g tokens/s", i ? ";" : "",
			        i == 0 ? "recommended" : "runner-up",
			        a->best[i].step_time / a->best[i].rank_scale,
			        a->best[i].tokens_per_s * a->best[i].rank_scale);
		fputc('\n', out);
	}
	fputs("\nwhy\n", out);
	fprintf(out, "  throughput  the most tokens/s%s of the %llu configurations that fit",
	        ranked_at(a->sw), (unsigned long long)a->totals->simulated);
	if (q != NULL) {
		struct sweep_rank_key k = sweep_rank_key(r), kq = sweep_rank_key(q);

		fprintf(out, ", %s against the runner-up",
		        percent(buf, sizeof(buf), k.score / kq.score - 1));
	}
	fprintf(out, "\n  memory      the fullest GPU holds %.1f of %.1f GB", r->memory_bytes / 1e9,
	        r->memory_capacity / 1e9);
	if (r->memory_reserve > 0)
		fprintf(out, " (%.1f GB kept free)", r->memory_reserve / 1e9);
	fprintf(out, ", %.1f GB of headroom",
	        (r->memory_capacity - r->memory_reserve - r->memory_bytes) / 1e9);
	if (r->memory_reserve == 0 && r->memory_bytes > 0.9 * r->memory_capacity)
		fputs("; tight: the memory model leaves out the CUDA context, communication "
		      "buffers and fragmentation (--memory-reserve=GB keeps room for them)",
		      out);
	fputc('\n', out);
	fprintf(out, "  bubble      %.2f%% of device time idle", 100 * r->bubble_ratio);
	if (q != NULL)
		fprintf(out, " (runner-up: %.2f%%)", 100 * q->bubble_ratio);
	/* idle is compute's absence: waits for other stages and for exposed communication */
	if (r->has_model)
		fputs(r->p == 1 ? ", waiting for communication (one stage: no pipeline bubble)"
		                : ", waiting for other stages or for communication",
		      out);
	fprintf(out,
	        "\n  p2p         %llu messages, %.6g ms in transfers: %.2f%% of device time, %s\n",
	        (unsigned long long)r->messages, r->p2p_time,
	        100 * r->p2p_time / (r->p * r->makespan),
	        c->comm == PP_COMM_OVERLAP ? "hidden behind compute where a copy engine can"
	                                   : "which blocks the senders (--comm=blocking)");
	fprintf(out, "  layout      tp=%d keeps tensor parallelism inside a node; ", r->tp);
	if (r->cp > 1)
		fprintf(out, "cp=%d splits each sequence of %d tokens over %d GPUs; ", r->cp, c->seq,
		        r->cp);
	else if (searched_cp(a->sw))
		fputs("cp=1 keeps each sequence on one GPU; ", out);
	fprintf(out, "p=%d stage%s, dp=%d", r->p, r->p == 1 ? "" : "s", r->dp);
	fprintf(out, " replica%s, micro-batches of %d, m=%d\n", r->dp == 1 ? "" : "s", r->mbs,
	        r->m);
	if (r->ep > 1 || (q != NULL && q->ep > 1))
		fprintf(out,
		        "  experts     ep=%d spreads each expert layer over %d GPUs%s; its all-to-alls "
		        "took %.6g ms a step, %.6g ms of them exposed\n",
		        r->ep, r->ep, r->ep_node == r->ep ? ", inside a node" : " across nodes",
		        r->ep_comm, r->ep_exposed);
	if (a->choices != NULL && a->choices[0].axis != NULL)
		write_choice(out, a->sw, &a->choices[0], r, "schedules", "schedule");
	if (a->choices != NULL && a->choices[1].axis != NULL)
		write_choice(out, a->sw, &a->choices[1], r, "ep", "ep");
	if (a->layout != NULL) {
		const struct partition *l = a->layout;
		bool given = config_is_set(c, "layers_per_stage") ||
		             config_is_set(c, "first_stage_layers") ||
		             config_is_set(c, "last_stage_layers") || config_is_set(c, "layout");

		fprintf(out, "  stages      ppsim partition places the %d layers over the %d stages",
		        l->layers, l->S);
		fprintf(out, " (the fullest GPU %.1f GB)", l->best.peak / 1e9);
		if (given) /* the recommendation was priced with the split given, not evenly */
			if (l->best.step < r->step_time)
				fprintf(out, " %.2f%% faster than the split given",
				        100 * (1 - l->best.step / r->step_time));
			else
				fputs(" no faster than the split given", out);
		else if (l->start.set && partition_step_cmp(l->best.step, l->start.step, l->quantum) < 0)
			fprintf(out, " %.2f%% faster than evenly", 100 * (1 - l->best.step / l->start.step));
		else
			fputs(" as evenly as they go", out);
		fputs(":\n              ", out);
		report_partition_flags(out, l);
		fputc('\n', out);
	}
	fputc('\n', out);
	if (a->nrows > 0) {
		fprintf(out, "interleaving at the recommended layout (tp=%d", r->tp);
		if (r->cp > 1)
			fprintf(out, ", cp=%d", r->cp);
		fprintf(out, ", p=%d, mbs=%d):\n", r->p, r->mbs);
		report_breakeven_text(out, a->rows, a->nrows);
	} else {
		fputs("interleaving: does not apply, the recommended layout has one pipeline stage\n",
		      out);
	}
	fprintf(out, "\nthe same search as a sweep:\n  %s\n", a->command);
	if (a->sw->base.stragglers.n > 0)
		fputs("  (but its --straggler names pipeline ranks, where advise's names GPUs, which "
		      "each layout places in its ranks)\n",
		      out);
	return 0;
}

/* A number as JSON. */
static void json_number(FILE *out, double x)
{
	char buf[40];

	fputs(pp_double_format(buf, sizeof(buf), x), out);
}

/* One choice as JSON: each value of its axis, those that fit first by rank (the best point's
 * layout and figures, and its tokens/s against r's), then those where nothing fits. */
static void write_choice_json(FILE *out, const struct advise_choice *ch,
                              const struct sweep_record *r)
{
	const char *sep = "";

	fputc('[', out);
	for (int i = 0; i < ch->nranked; i++) {
		const struct advise_pick *b = ch->ranked[i];

		fprintf(out, "%s{\"value\":", sep);
		report_json_text(out, ch->axis->values[b - ch->best]);
		fputs(",\"fits\":true,\"vs_recommended\":", out);
		json_number(out, versus(&b->key, r));
		fputs(",\"schedule\":", out);
		report_json_text(out, b->schedule);
		fprintf(out,
		        ",\"tp\":%d,\"cp\":%d,\"ep\":%d,\"p\":%d,\"v\":%d,\"dp\":%d,\"mbs\":%d,"
		        "\"m\":%d,\"tokens_per_s\":",
		        b->tp, b->cp, b->ep, b->p, b->v, b->dp, b->mbs, b->m);
		json_number(out, b->tokens_per_s);
		fputs(",\"step_time\":", out);
		json_number(out, b->step_time);
		fputc('}', out);
		sep = ",";
	}
	for (int i = 0; i < ch->axis->nvalues; i++)
		if (!ch->best[i].set) {
			fprintf(out, "%s{\"value\":", sep);
			report_json_text(out, ch->axis->values[i]);
			fprintf(out, ",\"fits\":false,\"valid\":%s}",
			        ch->best[i].valid ? "true" : "false");
			sep = ",";
		}
	fputc(']', out);
}

int report_advice_json(FILE *out, const struct advice *a)
{
	fprintf(out,
	        "{\"schema_version\":%d,\"points\":%llu,\"simulated\":%llu,\"skipped\":%llu,"
	        "\"recommended\":",
	        REPORT_SCHEMA_VERSION, (unsigned long long)a->totals->points, (unsigned long long)a->totals->simulated,
	        (unsigned long long)a->totals->skipped);
	report_sweep_json_record(out, a->sw, &a->best[0]);
	fputs(",\n\"runner_up\":", out);
	if (a->nbest > 1)
		report_sweep_json_record(out, a->sw, &a->best[1]);
	else
		fputs("null", out);
	fputs(",\n\"layout\":", out);
	if (a->layout != NULL) {
		fputs("{\"best\":", out);
		report_partition_choice_json(out, &a->layout->best, a->layout->S);
		fputs(",\"even_split\":", out);
		report_partition_choice_json(out, &a->layout->start, a->layout->S);
		fputs(",\"flags\":", out);
		{
			struct memfile mf;
			char *flags;
			FILE *f = memfile_open(&mf);

			if (f == NULL)
				return -1;
			report_partition_flags(f, a->layout);
			if ((flags = memfile_close(&mf, NULL)) == NULL)
				return -1;
			report_json_text(out, flags);
			free(flags);
		}
		fputc('}', out);
	} else {
		fputs("null", out);
	}
	fputs(",\n\"choices\":{", out);
	for (int k = 0; k < ADVISE_CHOICES; k++) {
		fprintf(out, "%s\"%s\":", k > 0 ? "," : "", k == 0 ? "schedule" : "ep");
		if (a->choices == NULL || a->choices[k].axis == NULL)
			fputs("null", out);
		else
			write_choice_json(out, &a->choices[k], &a->best[0]);
	}
	fputc('}', out);
	fputs(",\n\"breakeven\":", out);
	write_rows_json(out, a->rows, a->nrows);
	fputs(",\n\"sweep\":", out);
	report_json_text(out, a->command);
	fputs("}\n", out);
	return 0;
}
