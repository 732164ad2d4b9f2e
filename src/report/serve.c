/*
 * Reports of `ppsim serve`: text for people, one JSON object, a CSV row per run; and the
 * side-by-side table of serving configs for `ppsim compare`.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "ppsim/report.h"

#include "formats.h"
#include "table.h"

static const char *unit_of(const struct serve_run *r)
{
	return r->time_unit;
}

/* The workload line: a trace file, or the generator's settings. */
static void write_requests(FILE *out, const struct serve_run *r)
{
	const struct config *c = &r->config;
	char a[48], b[48], num[32];

	if (c->requests[0] != '\0') {
		fprintf(out, "%-18s %zu from '", "requests", r->nreq);
		text_put_visible(out, c->requests);
		fputs("'\n", out);
		return;
	}
	fprintf(out, "%-18s %zu generated, seed %" PRIu64 ": ", "requests", r->nreq, c->seed);
	if (c->arrival == PP_ARRIVAL_CLOSED)
		fprintf(out, "closed loop of %d clients", c->concurrency);
	else
		fprintf(out, "%s at %s per %s", config_arrival_name(c->arrival),
		        REPORT_NUM(num, c->rate),
		        config_has_model(c) ? "second" : "1000 t");
	if (c->arrival == PP_ARRIVAL_BURSTY)
		fprintf(out, " in bursts of %d", c->burst);
	fprintf(out, "; prompt %s, output %s\n", config_dist_format(&c->prompt, a, sizeof(a)),
	        config_dist_format(&c->output, b, sizeof(b)));
}

static void write_latency(FILE *out, const char *name, const struct serve_latency *l,
                          const char *unit)
{
	if (l->n == 0) {
		fprintf(out, "%-18s - (no request has one)\n", name);
		return;
	}
	fprintf(out, "%-18s mean %.6g  p50 %.6g  p90 %.6g  p99 %.6g  max %.6g %s\n", name, l->mean,
	        l->p50, l->p90, l->p99, l->max, unit);
}

/* The shape line: policy, pipelines, in-flight limits. */
static void write_shape(FILE *out, const struct serve_run *r)
{
	const struct config *c = &r->config;

	fprintf(out, "%-18s %s batching, ", "serve", config_batching_name(c->batching));
	if (c->batching == PP_BATCHING_DISAGGREGATED)
		fprintf(out, "prefill pipeline of %d stages (%d in flight), decode pipeline of %d "
		             "stages (%d in flight)\n",
		        r->stages[1], r->inflight[1], r->stages[0], r->inflight[0]);
	else
		fprintf(out, "p=%d stages, %d micro-batches in flight\n", r->stages[0],
		        r->inflight[0]);
	if (config_has_model(c))
		fprintf(out, "%-18s %s on %s, tp=%d\n", "model", c->model,
		        config_gpu(c), c->tp);
}

static void write_kv(FILE *out, const struct serve_run *r, const struct serve_metrics *m)
{
	bool two = r->stages[1] > 0;

	/* the prefill pipeline's cache first, as requests meet it */
	for (int i = two ? 1 : 0; i >= 0; i--) {
		fprintf(out, "%-18s %s", "kv cache", !two ? "" : i == 1 ? "prefill: " : "decode: ");
		if (r->kv_capacity[i] == UINT64_MAX)
			fprintf(out, "unlimited, ");
		else
			fprintf(out, "%" PRIu64 " tokens, ", r->kv_capacity[i]);
		fprintf(out, "peak %" PRIu64 " reserved\n", r->kv_peak[i]);
	}
	fprintf(out, "%-18s %zu request%s waited for KV-cache room", "kv waits", m->kv_waits,
	        m->kv_waits == 1 ? "" : "s");
	if (r->kv_transfers > 0)
		fprintf(out, "; %" PRIu64 " KV caches sent, %.6g %s in all", r->kv_transfers,
		        pp_time_to_units(r->kv_transfer_time, r->tick), unit_of(r));
	fputc('\n', out);
}

/* The device table; with a model, what each GPU holds: its stage's weights and its KV cache at
 * the pipeline's peak, against the GPU's memory less the reserve, and whether that fits. */
static void write_devices(FILE *out, const struct serve_run *r, const struct serve_metrics *m)
{
	bool model = config_has_model(&r->config), all = true;

	fprintf(out, "\n%-8s %12s %12s %12s", "device", "busy", "idle", "utilization");
	if (model)
		fprintf(out, " %10s %11s %10s %6s", "weights_GB", "kv_peak_GB", "of_GB", "fits");
	fputc('\n', out);
	for (int d = 0; d < m->devices; d++) {
		const struct serve_device_memory *g = &r->memory[d];

		fprintf(out, "%6d   %12.6g %12.6g %12.6f", d, m->busy[d], m->span - m->busy[d],
		        m->device_utilization[d]);
		if (model) {
			fprintf(out, " %10.4g %11.4g %10.4g %6s", g->weight_bytes / 1e9,
			        g->kv_peak_bytes / 1e9, g->capacity_bytes / 1e9,
			        serve_device_fits(g) ? "yes" : "OOM");
			all = all && serve_device_fits(g);
		}
		fputc('\n', out);
	}
	if (!all)
		fprintf(out, "%-18s OUT OF MEMORY on some device: its KV cache at the peak and its "
		        "weights pass its GPU's memory (--kv-tokens above what it holds)\n",
		        "memory");
}

/* Significant digits that tell window edges apart: six, or more when the run starts late
 * (requests at 1234567 ms in windows of 17 ms need 1234565.5, not 1.23457e+06). */
static int window_digits(const struct serve_metrics *m)
{
	double last = m->nwindows > 0 ? fabs(m->windows[m->nwindows - 1].end) : 0;
	int digits = 6;

	if (m->window > 0 && last > 0)
		digits = (int)floor(log10(last)) + 1 - (int)floor(log10(m->window / 100));
	return digits < 6 ? 6 : digits > 17 ? 17 : digits;
}

int report_serve_text(FILE *out, const struct serve_run *r, const struct serve_metrics *m)
{
	const char *unit = unit_of(r);
	char num[32];
	int digits;

	write_shape(out, r);
	write_requests(out, r);
	fprintf(out, "%-18s %s %s, first arrival to the last token\n", "makespan",
	        REPORT_NUM(num, m->makespan), unit);
	fprintf(out, "%-18s %.6g output tokens, %.6g prompt tokens, %.6g requests per %s\n",
	        "throughput", m->output_tokens_per_s, m->prompt_tokens_per_s, m->requests_per_s,
	        config_has_model(&r->config) ? "second" : "1000 t");
	write_latency(out, "ttft", &m->ttft, unit);
	write_latency(out, "tpot", &m->tpot, unit);
	write_latency(out, "e2e", &m->e2e, unit);
	write_latency(out, "queue_wait", &m->queue_wait, unit);
	fprintf(out, "%-18s %.6f  (idle share of %d devices over the %.6g %s from the first launch "
	             "to the last exit)\n",
	        "bubble_ratio", m->bubble_ratio, m->devices, m->span, unit);
	fprintf(out, "%-18s %.6f\n", "utilization", m->utilization);
	fprintf(out,
	        "%-18s %" PRIu64 ": %" PRIu64 " prefill-only, %" PRIu64 " decode-only, %" PRIu64
	        " mixed; %.4g sequences and %.4g tokens each on average\n",
	        "micro-batches", m->batches, m->prefill_only, m->decode_only, m->mixed, m->mean_seqs,
	        m->mean_tokens);
	write_kv(out, r, m);
	write_devices(out, r, m);
	fprintf(out, "\nwindows of %.6g %s: bubble ratio over every device, requests waiting\n",
	        m->window, unit);
	fprintf(out, "%12s %12s %8s %10s %9s %8s %8s\n", "start", "end", "bubble", "queue_mean",
	        "queue_max", "tokens", "batches");
	digits = window_digits(m);
	for (size_t k = 0; k < m->nwindows; k++) {
		const struct serve_window *w = &m->windows[k];

		fprintf(out, "%12.*g %12.*g %8.4f %10.4g %9u %8" PRIu64 " %8" PRIu64 "\n", digits,
		        w->start, digits, w->end, w->bubble_ratio, w->queue_mean, w->queue_max,
		        w->output_tokens, w->batches);
	}
	return 0;
}

static void json_latency(FILE *out, const char *name, const struct serve_latency *l)
{
	char a[32], b[32], c[32], d[32], e[32];

	if (l->n == 0) { /* the object all the same, its figures null: no request to count */
		fprintf(out,
		        ",\"%s\":{\"n\":0,\"mean\":null,\"p50\":null,\"p90\":null,\"p99\":null,"
		        "\"max\":null}",
		        name);
		return;
	}
	fprintf(out,
	        ",\"%s\":{\"n\":%zu,\"mean\":%s,\"p50\":%s,\"p90\":%s,\"p99\":%s,\"max\":%s}", name,
	        l->n, REPORT_NUM(a, l->mean), REPORT_NUM(b, l->p50), REPORT_NUM(c, l->p90),
	        REPORT_NUM(d, l->p99), REPORT_NUM(e, l->max));
}

/* A JSON member "key":number with the shortest exact form. */
static void json_num(FILE *out, const char *key, double x)
{
	char buf[32];

	fprintf(out, ",\"%s\":%s", key, REPORT_NUM(buf, x));
}

/* The run's figures in the report, in order: a double, or a struct serve_latency. */
static const struct {
	const char *key;
	size_t offset; /* in struct serve_metrics */
	bool latency;
} figures[] = {
        {"makespan", offsetof(struct serve_metrics, makespan), false},
        {"span", offsetof(struct serve_metrics, span), false},
        {"output_tokens_per_s", offsetof(struct serve_metrics, output_tokens_per_s), false},
        {"prompt_tokens_per_s", offsetof(struct serve_metrics, prompt_tokens_per_s), false},
        {"requests_per_s", offsetof(struct serve_metrics, requests_per_s), false},
        {"ttft", offsetof(struct serve_metrics, ttft), true},
        {"tpot", offsetof(struct serve_metrics, tpot), true},
        {"e2e", offsetof(struct serve_metrics, e2e), true},
        {"queue_wait", offsetof(struct serve_metrics, queue_wait), true},
        {"bubble_ratio", offsetof(struct serve_metrics, bubble_ratio), false},
        {"utilization", offsetof(struct serve_metrics, utilization), false},
};

/* Writes n, or null when there is none (a figure of the prefill pipeline without one). */
static void json_count_or_null(FILE *out, bool has, uint64_t n)
{
	if (has)
		fprintf(out, "%" PRIu64, n);
	else
		fputs("null", out);
}

static void json_kv(FILE *out, const struct serve_run *r, const struct serve_metrics *m)
{
	fputs(",\"kv\":{\"capacity\":", out);
	if (r->kv_capacity[0] == UINT64_MAX)
		fputs("null", out);
	else
		fprintf(out, "%" PRIu64, r->kv_capacity[0]);
	fprintf(out, ",\"peak\":%" PRIu64 ",\"prefill_capacity\":", r->kv_peak[0]);
	if (r->stages[1] == 0 || r->kv_capacity[1] == UINT64_MAX)
		fputs("null", out);
	else
		fprintf(out, "%" PRIu64, r->kv_capacity[1]);
	fputs(",\"prefill_peak\":", out);
	json_count_or_null(out, r->stages[1] > 0, r->kv_peak[1]);
	fprintf(out, ",\"waits\":%zu,\"transfers\":%" PRIu64, m->kv_waits, r->kv_transfers);
	json_num(out, "transfer_time", pp_time_to_units(r->kv_transfer_time, r->tick));
	fputc('}', out);
}

static void json_windows(FILE *out, const struct serve_metrics *m)
{
	json_num(out, "window", m->window);
	fputs(",\"windows\":[", out);
	for (size_t k = 0; k < m->nwindows; k++) {
		const struct serve_window *w = &m->windows[k];
		char num[32];

		fprintf(out, "%s\n{\"start\":", k ? "," : "");
		fputs(REPORT_NUM(num, w->start), out);
		json_num(out, "end", w->end);
		json_num(out, "bubble_ratio", w->bubble_ratio);
		fputs(",\"utilization\":[", out);
		for (int d = 0; d < m->devices; d++) {
			char buf[32];

			fprintf(out, "%s%s", d ? "," : "", REPORT_NUM(buf, w->utilization[d]));
		}
		fputc(']', out);
		json_num(out, "queue_mean", w->queue_mean);
		fprintf(out, ",\"queue_max\":%u,\"output_tokens\":%" PRIu64 ",\"batches\":%" PRIu64 "}",
		        w->queue_max, w->output_tokens, w->batches);
	}
	fputs("\n]", out);
}

int report_serve_requests(FILE *out, const struct serve_run *r)
{
	char num[32];

	for (size_t i = 0; i < r->nreq; i++)
		fprintf(out, "{\"arrival\":%s,\"prompt\":%u,\"output\":%u}\n",
		        REPORT_NUM(num, pp_time_to_units(r->req[i].arrival, r->tick)),
		        r->req[i].prompt, r->req[i].output);
	return 0;
}

int report_serve_json(FILE *out, const struct serve_run *r, const struct serve_metrics *m)
{
	const struct config *c = &r->config;
	char buf[64];

	fprintf(out, "{\"schema_version\":%d,\"batching\":\"%s\",\"p\":%d,\"prefill_stages\":",
	        REPORT_SCHEMA_VERSION, config_batching_name(c->batching), r->stages[0]);
	json_count_or_null(out, r->stages[1] > 0, r->stages[1]);
	fprintf(out, ",\"inflight\":%d", r->inflight[0]);
	fprintf(out, ",\"model\":");
	if (config_has_model(c))
		report_json_text(out, c->model);
	else
		fputs("null", out);
	fprintf(out, ",\"time_unit\":\"%s\",\"requests\":{\"count\":%zu,\"file\":", unit_of(r),
	        r->nreq);
	if (c->requests[0] != '\0')
		report_json_text(out, c->requests);
	else
		fputs("null", out);
	if (c->requests[0] != '\0') { /* the trace's requests: no generator made them */
		fputs(",\"arrival\":null,\"rate\":null,\"burst\":null,\"concurrency\":null,"
		      "\"seed\":null,\"prompt\":null,\"output\":null",
		      out);
	} else {
		fprintf(out, ",\"arrival\":\"%s\"", config_arrival_name(c->arrival));
		/* what the text's requests line says of the generator, as numbers: the rate of an
		 * open arrival, the burst of a bursty one, the clients of a closed loop */
		if (c->arrival == PP_ARRIVAL_CLOSED)
			fputs(",\"rate\":null", out);
		else
			json_num(out, "rate", c->rate);
		if (c->arrival == PP_ARRIVAL_BURSTY)
			fprintf(out, ",\"burst\":%d", c->burst);
		else
			fputs(",\"burst\":null", out);
		if (c->arrival == PP_ARRIVAL_CLOSED)
			fprintf(out, ",\"concurrency\":%d", c->concurrency);
		else
			fputs(",\"concurrency\":null", out);
		fprintf(out, ",\"seed\":%" PRIu64 ",\"prompt\":", c->seed);
		report_json_text(out, config_dist_format(&c->prompt, buf, sizeof(buf)));
		fputs(",\"output\":", out);
		report_json_text(out, config_dist_format(&c->output, buf, sizeof(buf)));
	}
	fprintf(out, ",\"prompt_tokens\":%" PRIu64 ",\"output_tokens\":%" PRIu64 "}",
	        r->prompt_tokens, r->output_tokens);
	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
		const void *at = (const char *)m + figures[i].offset;

		if (figures[i].latency)
			json_latency(out, figures[i].key, at);
		else
			json_num(out, figures[i].key, *(const double *)at);
	}
	fputs(",\"devices\":[", out);
	for (int d = 0; d < m->devices; d++) {
		fprintf(out, "%s{\"device\":%d", d ? "," : "", d);
		json_num(out, "busy", m->busy[d]);
		json_num(out, "utilization", m->device_utilization[d]);
		fprintf(out, ",\"pipeline\":\"%s\"", r->memory[d].pipeline ? "prefill" : "decode");
		if (config_has_model(&r->config)) {
			const struct serve_device_memory *g = &r->memory[d];

			json_num(out, "weight_bytes", g->weight_bytes);
			json_num(out, "kv_token_bytes", g->kv_token_bytes);
			json_num(out, "kv_peak_bytes", g->kv_peak_bytes);
			json_num(out, "capacity_bytes", g->capacity_bytes);
			fprintf(out, ",\"fits\":%s", serve_device_fits(g) ? "true" : "false");
		} else {
			fputs(",\"weight_bytes\":null,\"kv_token_bytes\":null,"
			      "\"kv_peak_bytes\":null,\"capacity_bytes\":null,\"fits\":null",
			      out);
		}
		fputc('}', out);
	}
	fprintf(out,
	        "],\"micro_batches\":{\"count\":%" PRIu64 ",\"prefill_only\":%" PRIu64
	        ",\"decode_only\":%" PRIu64 ",\"mixed\":%" PRIu64,
	        m->batches, m->prefill_only, m->decode_only, m->mixed);
	json_num(out, "mean_seqs", m->mean_seqs);
	json_num(out, "mean_tokens", m->mean_tokens);
	fputc('}', out);
	fprintf(out, ",\"p2p\":{\"messages\":%" PRIu64 ",\"bytes\":%" PRIu64, r->result.messages,
	        r->result.bytes);
	json_num(out, "time", pp_time_to_units(r->result.msg_time, r->tick));
	fputc('}', out);
	json_kv(out, r, m);
	json_windows(out, m);
	fputs("}\n", out);
	return 0;
}

/* A column of the serving comparison: lower or higher is better. */
struct column {
	const char *name;
	bool lower_better;
	double (*get)(const struct serve_metrics *m);
};

static double tokens_per_s(const struct serve_metrics *m)
{
	return m->output_tokens_per_s;
}
static double ttft_p50(const struct serve_metrics *m)
{
	return m->ttft.p50;
}
static double ttft_p99(const struct serve_metrics *m)
{
	return m->ttft.p99;
}
static double tpot_p50(const struct serve_metrics *m)
{
	return m->tpot.n ? m->tpot.p50 : NAN;
}
static double tpot_p99(const struct serve_metrics *m)
{
	return m->tpot.n ? m->tpot.p99 : NAN;
}
static double e2e_p99(const struct serve_metrics *m)
{
	return m->e2e.p99;
}
static double bubble(const struct serve_metrics *m)
{
	return m->bubble_ratio;
}
static double makespan(const struct serve_metrics *m)
{
	return m->makespan;
}

static const struct column columns[] = {
        {"tokens/s", false, tokens_per_s}, {"ttft_p50", true, ttft_p50},
        {"ttft_p99", true, ttft_p99},      {"tpot_p50", true, tpot_p50},
        {"tpot_p99", true, tpot_p99},      {"e2e_p99", true, e2e_p99},
        {"bubble", true, bubble},          {"makespan", true, makespan},
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

/* True when row i holds the best value of column c. */
static bool best(const struct column *c, const struct serve_row *rows, int n, int i)
{
	double x = c->get(rows[i].metrics);

	if (isnan(x))
		return false;
	for (int j = 0; j < n; j++) {
		double y = c->get(rows[j].metrics);

		if (!isnan(y) && (c->lower_better ? y < x : y > x))
			return false;
	}
	return n > 1;
}

/* The rows of the comparison table. */
struct compare_rows {
	const struct serve_row *rows;
	int n;
};

/* Table columns: LABEL, BATCHING, GPUS, then c >= 0 for columns[c], marked "*" where best. */
enum { LABEL = -3, BATCHING = -2, GPUS = -1 };

static const char *compare_cell(const void *ctx, int row, int id, char *buf, size_t n)
{
	static const char *const heads[] = {"config", "batching", "gpus"};
	const struct compare_rows *t = ctx;
	const struct serve_run *r = row < 0 ? NULL : t->rows[row].run;
	double x;

	if (row < 0)
		return id < 0 ? heads[id - LABEL] : columns[id].name;
	if (id == LABEL)
		return t->rows[row].label;
	if (id == BATCHING)
		return config_batching_name(r->config.batching);
	if (id == GPUS) {
		snprintf(buf, n, "%d", (r->stages[0] + r->stages[1]) * r->config.tp);
		return buf;
	}
	x = columns[id].get(t->rows[row].metrics);
	if (isnan(x))
		return "-";
	snprintf(buf, n, "%.6g%s", x, best(&columns[id], t->rows, t->n, row) ? "*" : " ");
	return buf;
}

int report_serve_compare_text(FILE *out, const struct serve_row *rows, int n)
{
	struct report_column cols[3 + NCOLUMNS] = {
	        {LABEL, 6, true, true}, {BATCHING, 13, false, true}, {GPUS, 4, false, false}};
	struct compare_rows t = {rows, n};

	for (size_t c = 0; c < NCOLUMNS; c++)
		cols[3 + c] = (struct report_column){(int)c, 11, false, false};
	report_table_write(out, "  ", cols, 3 + (int)NCOLUMNS, n, compare_cell, &t);
	fprintf(out, "\n* best in its column; times in %s; tokens/s are output tokens per %s\n",
	        unit_of(rows[0].run), config_has_model(&rows[0].run->config) ? "second" : "1000 t");
	return 0;
}

int report_serve_compare_csv(FILE *out, const struct serve_row *rows, int n)
{
	char buf[32];

	fputs("config,batching,gpus", out);
	for (size_t c = 0; c < NCOLUMNS; c++)
		fprintf(out, ",%s", strcmp(columns[c].name, "tokens/s") == 0 ? "tokens_per_s"
		                                                          : columns[c].name);
	fputc('\n', out);
	for (int i = 0; i < n; i++) {
		const struct serve_run *r = rows[i].run;

		report_csv_text(out, rows[i].label);
		fprintf(out, ",%s,%d", config_batching_name(r->config.batching),
		        (r->stages[0] + r->stages[1]) * r->config.tp);
		for (size_t c = 0; c < NCOLUMNS; c++) {
			double x = columns[c].get(rows[i].metrics);

			fprintf(out, ",%s", isnan(x) ? "" : REPORT_NUM(buf, x));
		}
		fputc('\n', out);
	}
	return 0;
}

int report_serve_csv(FILE *out, const struct serve_run *r, const struct serve_metrics *m)
{
	struct serve_row row = {"-", r, m};

	return report_serve_compare_csv(out, &row, 1);
}

int report_serve_compare_json(FILE *out, const struct serve_row *rows, int n)
{
	fputs("[\n", out);
	for (int i = 0; i < n; i++) {
		if (i > 0)
			fputs(",\n", out);
		fputs("{\"label\":", out);
		report_json_text(out, rows[i].label);
		fputs(",\"report\":", out);
		report_serve_json(out, rows[i].run, rows[i].metrics);
		fputc('}', out);
	}
	fputs("\n]\n", out);
	return 0;
}
