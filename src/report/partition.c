/*
 * The writers of `ppsim partition`'s result (struct report_partition): the best layers and
 * recomputation per virtual stage, how the search found them, the runner-up with the reason it
 * lost, the even split for comparison, and the flags that give the best to ppsim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/numfmt.h"
#include "formats.h"
#include "ppsim/report.h"
#include "base/memfile.h"

/* Writes x's layers (recompute false) or recomputations of S stages, comma-separated. */
static void write_list(FILE *out, const struct partition_choice *x, int S, bool recompute)
{
	for (int s = 0; s < S; s++)
		if (recompute)
			fprintf(out, "%s%s", s ? "," : "", config_recompute_name(x->recompute[s]));
		else
			fprintf(out, "%s%d", s ? "," : "", x->layers[s]);
}

/* Writes x's offloaded share per stage, comma-separated. */
static void write_offload(FILE *out, const struct partition_choice *x, int S)
{
	char share[32];

	/* exact: the flags run what the search ran */
	pp_double_format(share, sizeof(share), x->share);
	for (int s = 0; s < S; s++)
		fprintf(out, "%s%s", s ? "," : "", x->offload[s] ? share : "0");
}

/* Whether every stage of x recomputes as its first does. */
static bool one_recompute(const struct partition_choice *x, int S)
{
	for (int s = 1; s < S; s++)
		if (x->recompute[s] != x->recompute[0])
			return false;
	return true;
}

void report_partition_flags(FILE *out, const struct partition *p)
{
	const struct partition_choice *x = &p->best;
	int S = p->S;

	fputs("--layers-per-stage=", out);
	write_list(out, x, S, false);
	if (one_recompute(x, S)) {
		fprintf(out, " --recompute=%s", config_recompute_name(x->recompute[0]));
	} else {
		fputs(" --stage-recompute=", out);
		write_list(out, x, S, true);
	}
	/* whenever the offload was searched (--offload), zeros too: the flags added to the command
	 * that gives --offload would offload every stage */
	if (p->offload_free) {
		fputs(" --stage-offload=", out);
		write_offload(out, x, S);
	}
}

/* The layers device d holds in choice x. */
static int device_layers(const struct partition *p, const struct partition_choice *x, int d)
{
	int n = 0;

	for (int s = 0; s < p->S; s++)
		n += p->stage_device[s] == d ? x->layers[s] : 0;
	return n;
}

/* The stages of x that offload. */
static int offloaded(const struct partition *p, const struct partition_choice *x)
{
	int n = 0;

	for (int s = 0; x->offload != NULL && s < p->S; s++)
		n += x->offload[s] != 0;
	return n;
}

/* Why x comes after best, one phrase into buf. */
static const char *why(char *buf, size_t n, const struct partition *p,
                       const struct partition_choice *x, const struct partition_choice *best)
{
	int rx = 0, rb = 0, d = x->critical_device;

	for (int s = 0; s < p->S; s++) {
		rx += x->recompute[s] == PP_RECOMPUTE_FULL ? 2 : x->recompute[s] != PP_RECOMPUTE_NONE;
		rb += best->recompute[s] == PP_RECOMPUTE_FULL ? 2
		                                              : best->recompute[s] != PP_RECOMPUTE_NONE;
	}
	if (partition_step_cmp(x->step, best->step, p->quantum) > 0)
		snprintf(buf, n,
		         "its step is %.6g ms longer (%+.2f%%): device %d ends last, holding %d "
		         "layers (the best: %d)%s",
		         x->step - best->step, 100 * (x->step - best->step) / best->step, d,
		         device_layers(p, x, d), device_layers(p, best, d),
		         rx > rb ? ", and it recomputes more" : "");
	else if (rx > rb)
		snprintf(buf, n, "the same step, with more recomputation");
	else if (offloaded(p, x) > offloaded(p, best))
		snprintf(buf, n, "the same step, with more stages offloading");
	else if (partition_squares(x, p->S) > partition_squares(best, p->S))
		snprintf(buf, n, "the same step; the best's layers are spread more evenly");
	else
		snprintf(buf, n, "the same step; the best's layers come first");
	return buf;
}

/* The recomputation every stage of x takes (PP_RECOMPUTE_NONE ... ), or -1 when they differ. */
static int uniform_recompute(const struct partition_choice *x, int S)
{
	return one_recompute(x, S) ? x->recompute[0] : -1;
}

/* What gives the best's layers and recomputation in Megatron-LM and torchtitan. */
static int write_frameworks(FILE *out, const struct partition *p)
{
	static const char *const megatron_rc[] = {
	        [PP_RECOMPUTE_NONE] = "",
	        [PP_RECOMPUTE_FULL] = (" --recompute-granularity=full --recompute-method=uniform "
	                               "--recompute-num-layers=1"),
	        [PP_RECOMPUTE_SELECTIVE] = " --recompute-granularity=selective"};
	static const char *const titan_rc[] = {[PP_RECOMPUTE_NONE] = "none",
	                                       [PP_RECOMPUTE_FULL] = "full",
	                                       [PP_RECOMPUTE_SELECTIVE] = "selective"};
	struct report_layout l;
	int rc = uniform_recompute(&p->best, p->S);

	if (report_layout_of(p->S, p->best.layers, p->mtp, p->p, &l) != 0)
		return -1;
	fprintf(out, "%-18s--pipeline-model-parallel-layout='%s'%s\n", "megatron-lm", l.megatron,
	        rc >= 0 ? megatron_rc[rc] : "");
	if (l.megatron_flags != NULL && l.megatron_flags[0] != '\0')
		fprintf(out, "%-18sor %s\n", "", l.megatron_flags);
	if (l.torchtitan != NULL && l.torchtitan[0] != '\0') {
		fprintf(out, "%-18s", "torchtitan");
		for (const char *c = l.torchtitan; *c != '\0'; c++)
			if (*c == '\n')
				fputs(", ", out);
			else
				fputc(*c, out);
		if (rc >= 0)
			fprintf(out, ", activation_checkpoint.mode = \"%s\"", titan_rc[rc]);
		fputc('\n', out);
	}
	if (rc < 0)
		fprintf(out, "%-18sneither framework takes a recomputation per stage: recompute "
		        "every stage as the one that needs most, or give each stage's as above\n", "");
	if (offloaded(p, &p->best) > 0)
		fprintf(out, "%-18sneither takes an offload per stage (Megatron-LM's --cpu-offloading "
		        "offloads whole layers on every stage)\n", "");
	report_layout_release(&l);
	return 0;
}

/* Writes choice x as label's lines: its step and peak, its layers, recomputation and (when
 * searched) offload per stage. */
static void write_choice(FILE *out, const char *label, const struct partition *p,
                         const struct partition_choice *x)
{
	fprintf(out, "%-18sstep %.6f ms; peak %.2f GB on device %d\n", label, x->step,
	        x->peak / 1e9, x->peak_device);
	fprintf(out, "%-18s", "  layers");
	write_list(out, x, p->S, false);
	fprintf(out, "\n%-18s", "  recompute");
	write_list(out, x, p->S, true);
	fputc('\n', out);
	if (p->offload_free) {
		fprintf(out, "%-18s", "  offload");
		write_offload(out, x, p->S);
		fputc('\n', out);
	}
}

int report_partition_text(FILE *out, const struct report_partition *r)
{
	const struct partition *p = r->found;
	const struct partition_choice *b = &p->best, *q = &p->runner_up, *e = &p->start;
	int S = p->S;
	char reason[256];

	fprintf(out, "%-18s%s: %d layers over %d virtual stages (p=%d, v=%d), %s, m=%d\n",
	        "partition", r->model, p->layers, S, p->p, p->v, p->schedule, p->m);
	if (p->exact)
		fprintf(out, "%-18sexact: every one of the %llu candidates simulated\n", "searched",
		        (unsigned long long)p->simulated);
	else
		fprintf(out,
		        "%-18sdescent from the even and the balanced split: %llu of %.3g candidates "
		        "simulated\n",
		        "searched", (unsigned long long)p->simulated,
		        p->space == UINT64_MAX ? 1.8e19 : (double)p->space);
	fprintf(out, "%-18s%s\n", "recomputation",
	        p->recompute_free ? "chosen per stage (none, selective, full)"
	                          : "as --recompute gives it, on every stage");
	if (p->offload_free) {
		char share[32];

		fprintf(out, "%-18schosen per stage: %s of its activations, or none\n", "offload",
		        pp_double_format(share, sizeof(share), p->share));
	}
	fputc('\n', out);
	write_choice(out, "best", p, b);
	if (q->set) {
		write_choice(out, "runner-up", p, q);
		fprintf(out, "%-18s%s\n", "  why", why(reason, sizeof(reason), p, q, b));
	} else {
		fprintf(out, "%-18snone: no other candidate fits\n", "runner-up");
	}
	if (e->set)
		fprintf(out, "%-18sstep %.6f ms (%+.2f%%)%s\n", "even split", e->step,
		        100 * (e->step - b->step) / b->step,
		        e->overflow > 0 ? ", over GPU memory" : "");
	fprintf(out, "\n%-18s", "ppsim flags");
	report_partition_flags(out, p);
	fputc('\n', out);
	return write_frameworks(out, p);
}

void report_partition_choice_json(FILE *out, const struct partition_choice *x, int S)
{
	if (!x->set) {
		fputs("null", out);
		return;
	}
	fputs("{\"layers\":[", out);
	write_list(out, x, S, false);
	fputs("],\"recompute\":[", out);
	for (int s = 0; s < S; s++) {
		fputs(s ? "," : "", out);
		report_json_text(out, config_recompute_name(x->recompute[s]));
	}
	fputs("],\"offload\":[", out);
	{
		char share[32];

		pp_double_format(share, sizeof(share), x->share);
		for (int s = 0; s < S; s++)
			fprintf(out, "%s%s", s ? "," : "",
			        x->offload != NULL && x->offload[s] ? share : "0");
	}
	char step[32], peak[32];

	step[numfmt_shortest(step, x->step)] = '\0';
	peak[numfmt_shortest(peak, x->peak)] = '\0';
	fprintf(out, "],\"step_time\":%s,\"peak_bytes\":%s,\"peak_device\":%d,\"fits\":%s}", step,
	        peak, x->peak_device, x->overflow > 0 ? "false" : "true");
}

int report_partition_json(FILE *out, const struct report_partition *r)
{
	const struct partition *p = r->found;
	char reason[256];
	struct memfile mf;
	char *flags;
	FILE *f;

	fprintf(out,
	        "{\"schema_version\":%d,\"model\":", REPORT_SCHEMA_VERSION);
	report_json_text(out, r->model);
	fprintf(out, ",\"layers\":%d,\"stages\":%d,\"p\":%d,\"v\":%d,\"exact\":%s,\"space\":",
	        p->layers, p->S, p->p, p->v, p->exact ? "true" : "false");
	/* a space past 64 bits is null: more than any count can say */
	if (p->space == UINT64_MAX)
		fputs("null", out);
	else
		fprintf(out, "%llu", (unsigned long long)p->space);
	fprintf(out, ",\"simulated\":%llu,\"recompute_searched\":%s,\n\"best\":",
	        (unsigned long long)p->simulated, p->recompute_free ? "true" : "false");
	report_partition_choice_json(out, &p->best, p->S);
	fputs(",\n\"runner_up\":", out);
	report_partition_choice_json(out, &p->runner_up, p->S);
	fputs(",\n\"why\":", out);
	if (p->runner_up.set)
		report_json_text(out, why(reason, sizeof(reason), p, &p->runner_up, &p->best));
	else
		fputs("null", out);
	fputs(",\n\"even_split\":", out);
	report_partition_choice_json(out, &p->start, p->S);
	fputs(",\n\"flags\":{\"ppsim\":", out);
	if ((f = memfile_open(&mf)) == NULL)
		return -1;
	report_partition_flags(f, p);
	if ((flags = memfile_close(&mf, NULL)) == NULL)
		return -1;
	report_json_text(out, flags);
	free(flags);
	{
		struct report_layout l;

		if (report_layout_of(p->S, p->best.layers, p->mtp, p->p, &l) != 0)
			return -1;
		fputs(",\"megatron_layout\":", out);
		report_json_text(out, l.megatron);
		fputs(",\"megatron_flags\":", out);
		if (l.megatron_flags != NULL)
			report_json_text(out, l.megatron_flags);
		else
			fputs("null", out);
		fputs(",\"torchtitan\":", out);
		if (l.torchtitan != NULL && l.torchtitan[0] != '\0')
			report_json_text(out, l.torchtitan);
		else
			fputs("null", out);
		report_layout_release(&l);
	}
	fputs("}}\n", out);
	return 0;
}
