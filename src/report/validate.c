/*
 * What `ppsim validate` reports of a valid schedule file: its shape, kind of backward,
 * placement, op count and file format, and each device's peak activations; as text lines for
 * people or one JSON object.
 */
#include <stdio.h>

#include "base/text.h"
#include "formats.h"
#include "ppsim/report.h"

/* The kind of backward of s, for people and as a JSON word. */
static const char *backward(const struct sched *s, bool word)
{
	if (s->mixed)
		return word ? "mixed" : "mixed (F, BW, B and W)";
	if (s->split)
		return word ? "split" : "split (F, B, W)";
	return word ? "fused" : "fused (F, BW)";
}

/* The file's format as `validate` names it, and its --export-format name. */
static const char *format_title(enum schedfile_format f)
{
	return f == SCHEDFILE_TORCH_COMMS ? "PyTorch compute_comms"
	       : f == SCHEDFILE_TORCH     ? "PyTorch"
	                                  : "ppsim";
}

int report_validation_text(FILE *out, const struct validation *v)
{
	const struct sched *s = v->file->sched;

	fputs("schedule '", out);
	text_put_visible(out, v->path);
	fputs("': valid\n", out);
	fprintf(out, "p=%d v=%d m=%d, %s backward, %s placement", s->p, s->v, s->m,
	        backward(s, false), s->placement == PLACE_V ? "V" : "loop");
	/* one route is every schedule's but DualPipe's: said only when there are more */
	if (s->routes > 1)
		fprintf(out, " with %d routes", s->routes);
	fprintf(out, ", %zu ops%s, %s format\n", s->nops,
	        s->overlap ? " with overlapped F&B pairs" : "", format_title(v->file->format));
	if (v->file->format == SCHEDFILE_TORCH_COMMS)
		fprintf(out,
		        "%zu SEND/RECV actions match the cross-device dependencies; %zu "
		        "UNSHARD/RESHARD/REDUCE_GRAD actions cost nothing in ppsim's model\n",
		        v->file->transfers, v->file->zero_cost);
	else if (v->file->zero_cost > 0)
		fprintf(out,
		        "no SEND/RECV actions: a compute-only order; %zu UNSHARD/RESHARD/REDUCE_GRAD "
		        "actions cost nothing in ppsim's model\n",
		        v->file->zero_cost);
	fprintf(out, "peak activations per device (micro-batches, W holding all until it runs):");
	for (int d = 0; d < s->p; d++)
		fprintf(out, " %g", v->peak[d]);
	fputc('\n', out);
	return 0;
}

int report_validation_json(FILE *out, const struct validation *v)
{
	const struct sched *s = v->file->sched;
	bool comms = v->file->format == SCHEDFILE_TORCH_COMMS;
	char num[32];

	fprintf(out, "{\"schema_version\":%d,\"file\":", REPORT_SCHEMA_VERSION);
	report_json_text(out, v->path);
	fprintf(out,
	        ",\"valid\":true,\"format\":\"%s\",\"p\":%d,\"v\":%d,\"m\":%d,\"backward\":\"%s\","
	        "\"placement\":\"%s\",\"ops\":%zu,\"overlapped_pairs\":%s",
	        schedfile_format_names[v->file->format], s->p, s->v, s->m, backward(s, true),
	        s->placement == PLACE_V ? "V" : "loop", s->nops, s->overlap ? "true" : "false");
	if (s->routes > 1)
		fprintf(out, ",\"routes\":%d", s->routes);
	if (comms)
		fprintf(out, ",\"transfers\":%zu,\"zero_cost_actions\":%zu", v->file->transfers,
		        v->file->zero_cost);
	else if (v->file->zero_cost > 0)
		fprintf(out, ",\"transfers\":null,\"zero_cost_actions\":%zu", v->file->zero_cost);
	else
		fputs(",\"transfers\":null,\"zero_cost_actions\":null", out);
	fputs(",\"peak_activations\":[", out);
	for (int d = 0; d < s->p; d++)
		fprintf(out, "%s%s", d ? "," : "", REPORT_NUM(num, v->peak[d]));
	fputs("]}\n", out);
	return 0;
}
