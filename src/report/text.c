/* The text report: a summary block, then a per-device table and, with traffic, a per-channel
 * table, both written by the column-table writer of table.c from tables of their columns. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "base/text.h"
#include "formats.h"
#include "ppsim/samples.h"
#include "table.h"

/* The explicit costs (their op times only when ops is set) and the communication line. */
static void write_costs(FILE *out, const struct config *c, bool split, const char *unit, bool ops)
{
	char a[32], b[32], d[32], e[32];
	double bw, lat;

	if (ops) {
		fprintf(out, "%-18s t_f=%s t_b=%s t_w=%s (in %s, per micro-batch and stage)",
		        "costs", REPORT_NUM(a, c->t_f), REPORT_NUM(b, c->t_b), REPORT_NUM(d, c->t_w),
		        unit);
		if (split)
			fprintf(out, ", W keeps %s of the activations",
			        REPORT_NUM(e, c->w_mem_fraction));
		fputc('\n', out);
	}
	config_link(c, &bw, &lat);
	if (bw > 0)
		fprintf(out, "%-18s %s B per message over %s GB/s, latency %s us, %s, %s-duplex\n",
		        "communication", REPORT_NUM(a, (double)c->msg_bytes), REPORT_NUM(b, bw),
		        REPORT_NUM(d, lat), config_comm_name(c->comm),
		        config_duplex_name(c->duplex));
	else
		fprintf(out, "%-18s t_comm=%s (in %s) per message, %s B, %s, %s-duplex\n",
		        "communication", REPORT_NUM(e, c->t_comm), unit, REPORT_NUM(a, (double)c->msg_bytes),
		        config_comm_name(c->comm), config_duplex_name(c->duplex));
}

/* The model, hardware and parallelism lines of a model-priced run. */
/* The layout lines: Megatron-LM's string and, when they say the same, its flags; torchtitan's
 * settings on one line. Returns 0, or -1 out of memory. */
static int write_layout(FILE *out, const struct sim *s)
{
	struct report_layout l;

	if (report_layout_build(s, &l) != 0)
		return -1;
	if (l.too_many) {
		fprintf(out, "%-18s not written: %d virtual stages, more than the %d a layout holds\n",
		         "layout", s->cost->model->route_stages, PP_MAX_LIST);
		return 0;
	}
	fprintf(out, "%-18s Megatron-LM --pipeline-model-parallel-layout '%s'\n", "layout",
	        l.megatron);
	if (l.megatron_flags != NULL)
		fprintf(out, "%-18s Megatron-LM %s\n", "",
		        l.megatron_flags[0] ? l.megatron_flags : "(even: no layout flags)");
	if (l.torchtitan != NULL) {
		fprintf(out, "%-18s torchtitan ", "");
		for (const char *c = l.torchtitan; *c != '\0'; c++)
			if (*c == '\n')
				fputs(", ", out);
			else
				fputc(*c, out);
		fputc('\n', out);
	}
	report_layout_release(&l);
	return 0;
}

static int write_model(FILE *out, const struct sim *s)
{
	const struct cost_model *k = s->cost->model;
	const struct config *c = &s->config;
	char a[32], b[32], d[32], e[32], f[32], g[32], h[32];

	fprintf(out, "%-18s %s: %d layers, hidden %d, ffn %d (%s), %d heads (%d kv), vocab %d\n",
	        "model", k->model, k->layers, k->hidden, k->ffn, k->gated_mlp ? "gated" : "plain",
	        k->heads, k->kv_heads, k->vocab);
	if (k->experts > 0)
		fprintf(out,
		        "%-18s %d routed (%d a token) and %d shared of ffn %d; the first %d layers "
		        "dense; ep=%d, imbalance %s\n",
		        "experts", k->experts, k->top_k, k->shared_experts, k->expert_ffn,
		        k->dense_layers, k->ep, REPORT_NUM(a, k->expert_imbalance));
	/* each GPU type's figures: one GPU, or each of mixed GPUs with the devices it is on */
	for (int t = 0; t < k->ntypes; t++) {
		const struct cost_type *ty = &k->types[t];

		fprintf(out, "%-18s %s", "gpu", ty->gpu);
		if (k->ntypes > 1) /* mixed GPUs: which devices have this one */
			for (int i = 0, first = 1, j; i < s->sched->p; i = j) {
				for (j = i + 1; j < s->sched->p && k->device_type[j] == k->device_type[i]; j++)
					;
				if (k->device_type[i] != t)
					continue;
				fprintf(out, "%s%d", first ? " on devices " : ",", i);
				if (j - i > 1)
					fprintf(out, "-%d", j - 1);
				first = 0;
			}
		fprintf(out, ": %s TFLOP/s, %s GB", REPORT_NUM(a, ty->hw.tflops),
		        REPORT_NUM(d, ty->capacity_bytes / 1e9));
		if (ty->reserve_bytes > 0)
			fprintf(out, ", %s GB of it kept free", REPORT_NUM(a, ty->reserve_bytes / 1e9));
		fputc('\n', out);
		if (k->efficiency > 0)
			fprintf(out, "%-18s every op at %s of peak (--efficiency)\n", "kernels",
			        REPORT_NUM(a, k->efficiency));
		else
			fprintf(out,
			        "%-18s GEMM %s x peak (%d SMs), attention %s/%s, %s of them sustained, "
			        "memory %s x %s GB/s, %s us\n",
			        "kernels", REPORT_NUM(a, ty->hw.gemm_efficiency), ty->hw.sms,
			        REPORT_NUM(b, ty->hw.attention_efficiency),
			        REPORT_NUM(d, ty->hw.attention_bwd_efficiency),
			        REPORT_NUM(h, ty->hw.sustained), REPORT_NUM(e, ty->hw.memory_efficiency),
			        REPORT_NUM(f, ty->hw.memory_bandwidth),
			        REPORT_NUM(g, ty->hw.kernel_overhead));
		if (k->fp8)
			fprintf(out, "%-18s linear GEMMs %s x %s TFLOP/s, with their casts\n", "fp8",
			        REPORT_NUM(a, ty->hw.fp8_gemm_efficiency), REPORT_NUM(b, ty->hw.fp8_tflops));
	}
	fprintf(out, "%-18s %s %s GB/s %s us inside a node, %s ", "links", k->link,
	        REPORT_NUM(a, k->link_bandwidth), REPORT_NUM(b, k->link_latency), k->inter_link);
	fprintf(out, "%s GB/s %s us between nodes\n", REPORT_NUM(a, k->inter_bandwidth),
	        REPORT_NUM(b, k->inter_latency));
	fprintf(out,
	        "%-18s %s us each beyond the link's latency, %s of its bandwidth inside a node\n",
	        "pipeline messages", REPORT_NUM(a, k->p2p_overhead),
	        REPORT_NUM(b, k->p2p_efficiency));
	fprintf(out, "%-18s tp=%d%s", "parallelism", k->tp,
	        k->tp > 1 && k->sequence_parallel ? " (sequence parallel)" : "");
	if (k->cp > 1)
		fprintf(out, " cp=%d", k->cp);
	fprintf(out,
	        " dp=%d, %d GPUs (%d per node); sequence %d, micro-batch %d, global batch %lld\n",
	        k->dp, k->gpus, k->gpus_per_node, k->seq, k->mbs,
	        (long long)s->sched->m * k->mbs * k->dp);
	fprintf(out, "%-18s", "layers per stage");
	for (int st = 0; st < s->sched->S; st++)
		fprintf(out, "%s%d", st ? "," : " ", k->stage_layers[st]);
	fputc('\n', out);
	for (int st = 0; st < s->sched->S; st++)
		if (k->stage_recompute[st] != k->recompute) {
			fprintf(out, "%-18s", "recompute");
			for (int x = 0; x < s->sched->S; x++)
				fprintf(out, "%s%s", x ? "," : " ",
				        config_recompute_name(k->stage_recompute[x]));
			fputc('\n', out);
			break;
		}
	if (write_layout(out, s) != 0)
		return -1;
	fprintf(out, "%-18s F %.4g, B %.4g, W %.4g FLOPs; %.4g GB of activations (%s)\n",
	        "per layer", k->layer_flops.f, k->layer_flops.b, k->layer_flops.w,
	        k->layer_act_bytes / 1e9,
	        k->recompute == PP_RECOMPUTE_FULL        ? "full recomputation"
	        : k->flash_attention                     ? "flash attention"
	        : k->recompute == PP_RECOMPUTE_SELECTIVE ? "selective recomputation"
	                                                 : "no flash attention");
	if (k->experts > 0)
		fprintf(out,
		        "%-18s F %.4g, B %.4g, W %.4g FLOPs; %.4g GB of activations; all-to-all "
		        "%.6g ms\n",
		        "per expert layer", k->moe_flops.f, k->moe_flops.b, k->moe_flops.w,
		        k->moe_act_bytes / 1e9, k->a2a_ms);
	fprintf(out, "%-18s %" PRIu64 " B per message, %s, %s-duplex\n", "communication",
	        k->msg_bytes, config_comm_name(c->comm), config_duplex_name(c->duplex));
	return 0;
}

/* The settings that only some runs have: stage scaling, pairs, a memory limit. */
static void write_extras(FILE *out, const struct sim *s)
{
	const struct config *c = &s->config;
	char a[32];

	if (c->nstage_scale > 0) {
		fprintf(out, "%-18s", "stage_scale");
		for (int i = 0; i < c->nstage_scale; i++)
			fprintf(out, "%s%s", i ? "," : " ", REPORT_NUM(a, c->stage_scale[i]));
		fprintf(out, " (per %s)\n", c->nstage_scale == s->sched->p ? "device" : "stage");
	}
	if (s->sched->overlap && s->cost->pieces != NULL && !s->cost->overlap_given)
		fprintf(out, "%-18s an overlapped pair's two ops run their pieces together "
		        "(--overlap-factor sets a factor)\n", "overlap_factor");
	else if (s->sched->overlap)
		fprintf(out, "%-18s %s x (F + B) per overlapped pair\n", "overlap_factor",
		        REPORT_NUM(a, c->overlap_factor));
	if (s->sched->mem_limit > 0)
		fprintf(out, "%-18s %s micro-batches of activations\n", "mem_limit",
		        REPORT_NUM(a, s->sched->mem_limit));
}

/* A figure of the tables: shortest exact up to twelve significant digits, else rounded to twelve,
 * so that a column keeps its width. */
static const char *exact_cell(char *buf, size_t n, double x)
{
	int digits = 0;

	pp_double_format(buf, n, x);
	for (const char *p = buf; *p != '\0' && *p != 'e'; p++)
		digits += *p >= '0' && *p <= '9';
	if (digits > 12)
		snprintf(buf, n, "%.12g", x);
	return buf;
}

/* The step of a model-priced run taken apart (struct step_breakdown), on one line: its terms
 * in the order they add up to step_time, each to twelve significant digits. */
static void write_breakdown(FILE *out, const struct metrics *m, const char *unit)
{
	const struct step_breakdown *k = &m->breakdown;
	char a[32], b[32], c[32];
	bool any = false;

	fprintf(out, "%-18s compute %s + bubble %s + exposed p2p %s", "step",
	        exact_cell(a, sizeof(a), k->compute), exact_cell(b, sizeof(b), k->bubble),
	        exact_cell(c, sizeof(c), k->exposed_p2p));
	for (int j = 0; j < COMM_KINDS; j++)
		fprintf(out, ", %s %s", comm_kind_info((enum comm_kind)j)->name,
		        exact_cell(a, sizeof(a), k->exposed[j]));
	fprintf(out, " + optimizer %s + other %s = %s %s (device %d)\n",
	        exact_cell(a, sizeof(a), k->optimizer), exact_cell(b, sizeof(b), k->other),
	        exact_cell(c, sizeof(c), m->step_time), unit, k->device);
	/* and what each kind's streams ran beside compute, hidden */
	for (int j = 0; j < COMM_KINDS; j++) {
		if (k->hidden[j] <= 0)
			continue;
		if (!any)
			fprintf(out, "%-18s", "hidden");
		fprintf(out, "%s %s %s", any ? "," : "", comm_kind_info((enum comm_kind)j)->name,
		        exact_cell(a, sizeof(a), k->hidden[j]));
		any = true;
	}
	if (any)
		fprintf(out, " %s beside compute\n", unit);
}

/* A kind of the critical path's ops as the report names it (CRITICAL_PAIR: "F&B"). */
static const char *critical_kind_name(int k)
{
	return k == CRITICAL_PAIR ? "F&B" : sched_kind_name((enum op_kind)k);
}

/* Most devices the critical path block names, by their share; the rest are summed. */
#define CRITICAL_DEVICES 8

/*
 * The critical path (struct critical_metrics): its length and the device whose end it is, then
 * the share of it each device's ops take (the largest few), each kind of op, the transfers and
 * the tail.
 */
static void write_critical(FILE *out, const struct sim *s)
{
	const struct critical_metrics *k = &s->metrics.critical;
	double len = k->length, rest = 0, shown = -1;
	int named = 0, last = -1;
	char a[32];
	bool any = false;

	if (!k->has)
		return;
	fprintf(out, "%-18s %s %s, ending on device %d: %" PRIu64 " ops, %" PRIu64 " messages\n",
	        "critical path", REPORT_NUM(a, len), s->cost->time_unit, k->device, k->ops,
	        k->messages);
	if (len <= 0)
		return;
	fprintf(out, "%-18s", "  by device");
	/* the devices in order of their share, then index: each pass takes the next one, up to
	 * CRITICAL_DEVICES; the others are summed in one pass (a pass each made it quadratic) */
	while (named < CRITICAL_DEVICES) {
		int best = -1;

		for (int d = 0; d < s->sched->p; d++) {
			double x = k->devices[d];

			if (x <= 0 || (shown >= 0 && (x > shown || (x == shown && d <= last))))
				continue;
			if (best < 0 || x > k->devices[best])
				best = d;
		}
		if (best < 0)
			break;
		shown = k->devices[best];
		last = best;
		fprintf(out, "%s %d %.1f%%", named ? "," : "", best, 100 * shown / len);
		named++;
	}
	for (int d = 0; named == CRITICAL_DEVICES && d < s->sched->p; d++) {
		double x = k->devices[d];

		if (x > 0 && (x < shown || (x == shown && d > last)))
			rest += x;
	}
	if (rest > 0)
		fprintf(out, ", the other devices %.1f%%", 100 * rest / len);
	if (named == 0)
		fputs(" none", out);
	fprintf(out, "\n%-18s", "  by kind");
	for (int x = 0; x < CRITICAL_KINDS; x++)
		if (k->kind[x] > 0) {
			fprintf(out, "%s %s %.1f%%", any ? "," : "", critical_kind_name(x),
			        100 * k->kind[x] / len);
			any = true;
		}
	fprintf(out, "%s transfers %.1f%%, tail %.1f%%\n", any ? ";" : "", 100 * k->transfer / len,
	        100 * k->tail / len);
}

static int write_summary(FILE *out, const struct sim *s)
{
	const struct metrics *m = &s->metrics;
	const char *unit = s->cost->time_unit;
	char a[32], b[32];

	fprintf(out, "%-18s %s (p=%d, v=%d, m=%d", "schedule", s->config.schedule, s->sched->p,
	        s->sched->v, s->sched->m);
	if (s->sched->group > 0)
		fprintf(out, ", group %d", s->sched->group);
	fputs(")\n", out);
	if (s->cost->model != NULL) {
		if (write_model(out, s) != 0)
			return -1;
	} else if (s->given_times)
		fprintf(out, "%-18s each op its own time, given (a measured step's)\n", "costs");
	if (s->cost->model == NULL)
		write_costs(out, &s->config, s->sched->split, s->cost->time_unit, !s->given_times);
	write_extras(out, s);
	fprintf(out, "%-18s %s %s\n", "makespan", REPORT_NUM(a, m->makespan), unit);
	fprintf(out, "%-18s %.6f", "bubble_ratio", m->bubble_ratio);
	if (isnan(m->bubble_ratio_theory))
		fprintf(out, "  (no closed form applies)\n");
	else
		fprintf(out, "  (theory %.6f = %s)\n", m->bubble_ratio_theory,
		        s->sched->desc->theory.text);
	fprintf(out, "%-18s %.6f\n", "bubble_overhead", m->bubble_overhead);
	fprintf(out, "%-18s %.6f\n", "bubble_rate_span", m->bubble_rate_span);
	fprintf(out, "%-18s %.6f\n", "utilization", m->utilization);
	fprintf(out, "%-18s %" PRIu64 " messages, %" PRIu64 " bytes, %s %s in transfers\n", "p2p",
	        m->messages, m->bytes, REPORT_NUM(b, m->p2p_time), unit);
	if (m->has_model) {
		fprintf(out, "%-18s %s ms with its communication and optimizer step\n", "step_time",
		        REPORT_NUM(a, m->step_time));
		write_breakdown(out, m, unit);
		fprintf(out, "%-18s %.6g tokens/s, %.6g samples/s, MFU %.4f\n", "throughput",
		        m->tokens_per_s, m->samples_per_s, m->mfu);
		fprintf(out, "%-18s %s\n", "memory",
		        m->oom ? "OUT OF MEMORY on some device (see the table)"
		               : "every device fits");
	}
	write_critical(out, s);
	return 0;
}

/* How a device table cell prints: the row number, a figure (shortest exact up to twelve
 * significant digits, else rounded to twelve, so that a column keeps its width; six decimals; or bytes as GB with
 * two), or whether it fits. The JSON report keeps every figure exact. */
enum device_form { D_INDEX, D_EXACT, D_RATIO, D_GB, D_FITS };

/* The device table's columns, the last four with a model only (host_GB with offload). */
static const struct {
	const char *head;
	int width;
	enum device_form form;
	size_t offset; /* of the figure in struct device_metrics */
} device_columns[] = {
        {"device", 6, D_INDEX, 0},
        {"busy", 12, D_EXACT, offsetof(struct device_metrics, busy)},
        {"idle", 12, D_EXACT, offsetof(struct device_metrics, idle)},
        {"utilization", 12, D_RATIO, offsetof(struct device_metrics, utilization)},
        {"peak_activations", 17, D_EXACT, offsetof(struct device_metrics, peak_activations)},
        {"comm_wait", 12, D_EXACT, offsetof(struct device_metrics, comm_wait)},
        {"activations_GB", 14, D_GB, offsetof(struct device_metrics, activation_bytes)},
        {"memory_GB", 10, D_GB, offsetof(struct device_metrics, memory_bytes)},
        {"fits", 10, D_FITS, 0},
        {"host_GB", 10, D_GB, offsetof(struct device_metrics, host_bytes)},
};
#define NDEVICE_COLUMNS (sizeof(device_columns) / sizeof(device_columns[0]))

static const char *device_cell(const void *ctx, int row, int id, char *buf, size_t n)
{
	const struct metrics *m = ctx;
	const struct device_metrics *dm = row < 0 ? NULL : &m->devices[row];
	enum device_form form = device_columns[id].form;
	double x;

	if (dm == NULL)
		return device_columns[id].head;
	if (form == D_FITS)
		return dm->oom ? "OOM" : "yes";
	if (form == D_INDEX) {
		snprintf(buf, n, "%d", row);
		return buf;
	}
	x = *(const double *)(const void *)((const char *)dm + device_columns[id].offset);
	if (form == D_EXACT)
		return exact_cell(buf, n, x);
	snprintf(buf, n, form == D_RATIO ? "%.6f" : "%.2f", form == D_GB ? x / 1e9 : x);
	return buf;
}

static void write_devices(FILE *out, const struct metrics *m)
{
	struct report_column cols[NDEVICE_COLUMNS];

	for (size_t c = 0; c < NDEVICE_COLUMNS; c++)
		cols[c] = (struct report_column){(int)c, device_columns[c].width, false, false};
	bool host = false;

	for (int d = 0; d < m->p; d++)
		host |= m->devices[d].host_bytes > 0;
	fputc('\n', out);
	/* activations offloaded to host memory, when any were */
	report_table_write(out, " ", cols, m->has_model ? (host ? 10 : 9) : 6, m->p, device_cell,
	                   m);
}

/* What the cells of the stream table come from: the metrics and the kinds that carried
 * anything, two columns each (exposed_<kind>, comm_<kind>) after device, end and optimizer. */
struct streams {
	const struct metrics *m;
	int kinds[COMM_KINDS];
	char heads[2 * COMM_KINDS][24];
};

static const char *stream_cell(const void *ctx, int row, int id, char *buf, size_t n)
{
	static const char *const heads[] = {"device", "end", "optimizer"};
	const struct streams *t = ctx;
	const struct device_metrics *dm = row < 0 ? NULL : &t->m->devices[row];

	if (id < 3 && dm == NULL)
		return heads[id];
	if (id >= 3 && dm == NULL)
		return t->heads[id - 3];
	if (id == 0) {
		snprintf(buf, n, "%d", row);
		return buf;
	}
	if (id < 3)
		return exact_cell(buf, n, id == 1 ? dm->end : dm->optimizer);
	id -= 3;
	return exact_cell(buf, n, id % 2 ? dm->comm[t->kinds[id / 2]] : dm->exposed[t->kinds[id / 2]]);
}

/* With a model, each device's end, optimizer step, and the exposed and stream time of each kind
 * of communication that ran (none: no table). */
static void write_streams(FILE *out, const struct metrics *m)
{
	struct report_column cols[3 + 2 * COMM_KINDS];
	struct streams t = {.m = m};
	int nk = 0;

	if (!m->has_model)
		return;
	for (int k = 0; k < COMM_KINDS; k++) {
		bool ran = false;

		for (int d = 0; d < m->p; d++)
			ran |= m->devices[d].comm[k] > 0 || m->devices[d].exposed[k] > 0;
		if (!ran)
			continue;
		snprintf(t.heads[2 * nk], sizeof(t.heads[0]), "exposed_%s",
		         comm_kind_info((enum comm_kind)k)->name);
		snprintf(t.heads[2 * nk + 1], sizeof(t.heads[0]), "comm_%s",
		         comm_kind_info((enum comm_kind)k)->name);
		t.kinds[nk++] = k;
	}
	if (nk == 0)
		return;
	cols[0] = (struct report_column){0, 6, false, false};
	for (int c = 1; c < 3 + 2 * nk; c++)
		cols[c] = (struct report_column){c, 12, false, false};
	fputc('\n', out);
	report_table_write(out, " ", cols, 3 + 2 * nk, m->p, stream_cell, &t);
}

/* What the cells of the channel table come from. */
struct channels {
	const struct metrics *m;
	enum pp_duplex duplex;
};

static const char *channel_cell(const void *ctx, int row, int id, char *buf, size_t n)
{
	static const char *const heads[] = {"channel", "messages", "bytes", "time", "utilization"};
	const struct channels *t = ctx;
	const struct channel_metrics *cm = row < 0 ? NULL : &t->m->channels[row];

	if (cm == NULL)
		return heads[id];
	if (id == 0)
		snprintf(buf, n, "%d%s%d", cm->src, t->duplex == PP_DUPLEX_HALF ? "<->" : "->",
		         cm->dst);
	else if (id == 1 || id == 2)
		snprintf(buf, n, "%" PRIu64, id == 1 ? cm->messages : cm->bytes);
	else if (id == 3)
		pp_double_format(buf, n, cm->time);
	else
		snprintf(buf, n, "%.6f", cm->utilization);
	return buf;
}

static void write_channels(FILE *out, const struct metrics *m, enum pp_duplex duplex)
{
	static const struct report_column cols[] = {{0, 10, false, true},
	                                            {1, 10, false, false},
	                                            {2, 14, false, false},
	                                            {3, 12, false, false},
	                                            {4, 12, false, false}};
	struct channels t = {m, duplex};

	if (m->messages == 0)
		return;
	fputc('\n', out);
	report_table_write(out, " ", cols, 5, m->nchannels, channel_cell, &t);
}

/* A line of sample figures: mean, percentiles and range, in unit (NULL for ratios). */
static void write_stats(FILE *out, const char *name, const struct sample_stats *x,
                        const char *unit)
{
	char v[6][32];
	const double f[6] = {x->mean, x->p50, x->p90, x->p99, x->min, x->max};

	for (int i = 0; i < 6; i++)
		snprintf(v[i], sizeof(v[i]), unit != NULL ? "%.6g" : "%.6f", f[i]);
	fprintf(out, "%-18s mean %s, p50 %s, p90 %s, p99 %s (min %s, max %s)%s%s\n", name, v[0],
	        v[1], v[2], v[3], v[4], v[5], unit != NULL ? " " : "", unit != NULL ? unit : "");
}

/* Which devices held the most of the samples' critical paths, most often first (up to five). */
static int write_critical_devices(FILE *out, const struct samples *x)
{
	uint64_t *count = pp_mallocarray((size_t)x->p, sizeof(*count));
	int shown = 0;

	if (count == NULL)
		return -1;
	samples_critical_counts(x, count);
	fprintf(out, "%-18s", "  critical device");
	for (; shown < 5; shown++) {
		int top = -1;

		for (int d = 0; d < x->p; d++)
			if (count[d] > 0 && (top < 0 || count[d] > count[top]))
				top = d;
		if (top < 0)
			break;
		fprintf(out, "%s %d in %.1f%%", shown ? "," : "", top,
		        100.0 * (double)count[top] / (double)x->n);
		count[top] = 0;
	}
	fputs(" of the samples (the most of the critical path)\n", out);
	free(count);
	return 0;
}

/* The stragglers and what the noise samples came to. */
static int write_noise(FILE *out, const struct sim *s)
{
	const struct config *c = &s->config;
	const struct samples *x = s->samples;
	struct sample_stats st;
	char a[1100], b[1100], d[64];

	if (c->stragglers.n > 0)
		fprintf(out, "%-18s %s (device:factor@from, in the makespan above)\n", "stragglers",
		        config_format_value(c, config_option_by_key("stragglers"), a, sizeof(a)));
	if (x == NULL)
		return 0;
	fprintf(out, "%-18s %" PRIu64 " (seed %" PRIu64 "; jitter %s; link %s; stalls %s)\n",
	        "samples", x->n, c->seed,
	        config_format_value(c, config_option_by_key("jitter"), a, sizeof(a)),
	        config_format_value(c, config_option_by_key("link_jitter"), b, sizeof(b)),
	        config_format_value(c, config_option_by_key("stalls"), d, sizeof(d)));
	if (x->n == 0)
		return 0;
	/* settled samples' figures take no memory; a line left out would be a report short */
	if (samples_stats(x, true, &st) != 0)
		return -1;
	write_stats(out, "  step", &st, s->cost->time_unit);
	if (samples_stats(x, false, &st) != 0)
		return -1;
	write_stats(out, "  bubble_ratio", &st, NULL);
	return write_critical_devices(out, x);
}

int report_text_write(FILE *out, const struct sim *s)
{
	if (write_summary(out, s) != 0 || write_noise(out, s) != 0)
		return -1;
	write_devices(out, &s->metrics);
	write_streams(out, &s->metrics);
	write_channels(out, &s->metrics, s->config.duplex);
	return 0;
}

/* The text of a step of t units against ref: "12 t: -3 t against the measured step, ratio
 * 0.8000" (no ratio against a step of 0, as JSON's null). */
static void write_against(FILE *out, double t, double ref, int64_t tick, const char *against,
                          const char *unit)
{
	char a[32], b[32];
	/* the difference of two times of whole ticks, in whole ticks: not the subtraction's last
	 * bits (+0.0241514999998 for +0.0241515) */
	double d = tick > 0 && isfinite(t - ref) ? round((t - ref) * (double)tick) / (double)tick
	                                         : t - ref;

	fprintf(out, "%s %s: %s%s %s against the %s step, ", exact_cell(a, sizeof(a), t), unit,
	        d > 0 ? "+" : "", exact_cell(b, sizeof(b), d), unit, against);
	if (ref > 0 && isfinite(t / ref))
		fprintf(out, "ratio %.4f\n", t / ref);
	else
		fprintf(out, "no ratio (the %s step takes no time)\n", against);
}

int report_replay_text(FILE *out, const struct replay *r)
{
	const struct sim *s = replay_last(r);
	const char *unit = r->replay->cost->time_unit;
	bool measured = !isnan(r->measured);
	double ref = measured ? r->measured : r->replay->metrics.makespan;
	char a[32];

	if (report_text_write(out, s) != 0)
		return -1;
	fprintf(out, "\n%-18s '", "replay of");
	text_put_visible(out, r->step.path);
	fputc('\'', out);
	if (r->files > 1)
		fprintf(out, " and %d more files, one a device", r->files - 1);
	if (r->order != NULL)
		fprintf(out, ": the order of %s", r->order->name);
	fputc('\n', out);
	if (r->step.nmsgs == 0 && r->step.sched->p > 1 &&
	    !config_is_set(&r->replay_config, "t_comm"))
		fprintf(out, "%-18s none measured (the file gives no transfer times): they take no "
		             "time; --tcomm prices them\n",
		        "messages");
	if (measured)
		fprintf(out, "%-18s %s %s, from the first op's start to the last op's end\n",
		        "measured step", exact_cell(a, sizeof(a), r->measured), unit);
	else
		fprintf(out, "%-18s not known: the file gives no start times\n", "measured step");
	fprintf(out, "%-18s ", "replayed step");
	if (measured)
		write_against(out, r->replay->metrics.makespan, ref, r->replay->cost->tick,
		              "measured", unit);
	else
		fprintf(out, "%s %s\n", exact_cell(a, sizeof(a), r->replay->metrics.makespan), unit);
	if (r->whatif == NULL)
		return 0;
	fprintf(out, "%-18s %s\n", "what-if", r->change);
	if (r->slowest >= 0) {
		static const char *const kinds[MEASURED_KINDS] = {"F", "B", "W", "BW", "F&B pairs"};

		fprintf(out, "%-18s", "its ops scaled");
		for (int k = 0; k < MEASURED_KINDS; k++)
			if (!isnan(r->factor[k]))
				fprintf(out, " %s x%.4f%s", kinds[k], r->factor[k],
				        r->as_others[k] ? " (as its other ops: no other device runs them)"
				                        : "");
		fputc('\n', out);
	}
	fprintf(out, "%-18s ", "what-if step");
	write_against(out, r->whatif->metrics.makespan, ref, r->whatif->cost->tick,
	              measured ? "measured" : "replayed", unit);
	return 0;
}
