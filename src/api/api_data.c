/*
 * A run as data (ppsim.h): its figures by the JSON report's key paths, its per-device table by
 * column, its ops as columns of numbers. Each figure is a row of a table read straight from the
 * run's metrics, never through the report's text; tests/python checks that every number of the
 * JSON report is the figure of its path.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "ppsim/samples.h"

/* A figure's getter: sets *out from run r (NaN where r has none) and returns 0, or -1 when
 * out of memory. arg picks the field. */
typedef int (*getter)(const pp_run *r, size_t arg, double *out);

/* A row of the figures: the report's key path and how to read it. */
struct figure {
	const char *name;
	getter get;
	size_t arg;
};

static bool training(const pp_run *r)
{
	return r->serve == NULL;
}

/* A double of a training step's metrics at offset arg. */
static int train(const pp_run *r, size_t arg, double *out)
{
	*out = training(r) ? *(const double *)(const void *)((const char *)&r->sim->metrics + arg)
	                   : NAN;
	return 0;
}

/* A double of the metrics of a training step priced by a model, at offset arg. */
static int model(const pp_run *r, size_t arg, double *out)
{
	*out = training(r) && r->sim->metrics.has_model
	               ? *(const double *)(const void *)((const char *)&r->sim->metrics + arg)
	               : NAN;
	return 0;
}

/* A double of a serving run's metrics at offset arg. */
static int served(const pp_run *r, size_t arg, double *out)
{
	*out = training(r) ? NAN : *(const double *)(const void *)((const char *)&r->served + arg);
	return 0;
}

/* Figures both kinds of run have, by arg. */
enum {
	BOTH_MAKESPAN,
	BOTH_BUBBLE,
	BOTH_UTILIZATION,
	BOTH_P,
	BOTH_MESSAGES,
	BOTH_BYTES,
	BOTH_P2P_TIME
};

static int both(const pp_run *r, size_t arg, double *out)
{
	const struct metrics *m = training(r) ? &r->sim->metrics : NULL;
	const struct result *res = r->view.result;
	const struct serve_metrics *s = &r->served;

	switch (arg) {
	case BOTH_MAKESPAN:
		*out = m != NULL ? m->makespan : s->makespan;
		break;
	case BOTH_BUBBLE:
		*out = m != NULL ? m->bubble_ratio : s->bubble_ratio;
		break;
	case BOTH_UTILIZATION:
		*out = m != NULL ? m->utilization : s->utilization;
		break;
	case BOTH_P:
		*out = m != NULL ? r->view.sched->p : r->serve->stages[0];
		break;
	case BOTH_MESSAGES:
		*out = (double)res->messages;
		break;
	case BOTH_BYTES:
		*out = (double)res->bytes;
		break;
	default:
		*out = pp_time_to_units(res->msg_time, r->view.tick);
		break;
	}
	return 0;
}

/* A training step's shape and settings, by arg. */
enum { SHAPE_V, SHAPE_M, SHAPE_GROUP };

static int shape(const pp_run *r, size_t arg, double *out)
{
	const struct sched *s = r->view.sched;

	*out = !training(r)     ? NAN
	       : arg == SHAPE_V ? s->v
	       : arg == SHAPE_M ? s->m
	       : s->group > 0   ? s->group
	                        : NAN;
	return 0;
}

/* The critical path, by arg: its length, device, ops, messages, transfer and tail, then the
 * time of each kind of op (CRITICAL_KINDS). */
enum { CRIT_TIME, CRIT_DEVICE, CRIT_OPS, CRIT_MESSAGES, CRIT_TRANSFER, CRIT_TAIL, CRIT_KIND };

static int critical(const pp_run *r, size_t arg, double *out)
{
	const struct critical_metrics *k;

	*out = NAN;
	if (!training(r) || !r->sim->metrics.critical.has)
		return 0;
	k = &r->sim->metrics.critical;
	const double v[] = {k->length,           k->device,   (double)k->ops,
	                    (double)k->messages, k->transfer, k->tail};

	*out = arg < CRIT_KIND ? v[arg] : k->kind[arg - CRIT_KIND];
	return 0;
}

/* The step taken apart (a model's), by arg: the device, compute, bubble, exposed P2P,
 * optimizer, other, then exposed and hidden time of each kind of communication. */
enum {
	BRK_DEVICE,
	BRK_COMPUTE,
	BRK_BUBBLE,
	BRK_P2P,
	BRK_OPTIMIZER,
	BRK_OTHER,
	BRK_EXPOSED,
	BRK_HIDDEN = BRK_EXPOSED + COMM_KINDS
};

static int breakdown(const pp_run *r, size_t arg, double *out)
{
	const struct step_breakdown *x;

	*out = NAN;
	if (!training(r) || !r->sim->metrics.has_model)
		return 0;
	x = &r->sim->metrics.breakdown;
	const double v[] = {x->device,      x->compute,   x->bubble,
	                    x->exposed_p2p, x->optimizer, x->other};

	if (arg < BRK_EXPOSED)
		*out = v[arg];
	else
		*out = arg < BRK_HIDDEN ? x->exposed[arg - BRK_EXPOSED]
		                        : x->hidden[arg - BRK_HIDDEN];
	return 0;
}

/* The noise samples, by arg: how many and the seed, then the six statistics (mean, p50, p90,
 * p99, min, max) of the samples' steps, then of their bubble ratios; NaN without noise (no
 * samples and no stragglers), the statistics NaN without samples. */
enum { NOISE_SAMPLES, NOISE_SEED, NOISE_STEP, NOISE_BUBBLE = NOISE_STEP + 6 };

static int noise(const pp_run *r, size_t arg, double *out)
{
	const struct samples *x = training(r) ? r->sim->samples : NULL;
	struct sample_stats st;

	*out = NAN;
	if (!training(r) || (x == NULL && r->config->stragglers.n == 0))
		return 0;
	if (arg == NOISE_SAMPLES) {
		*out = x != NULL ? (double)x->n : 0;
	} else if (arg == NOISE_SEED) {
		*out = (double)r->config->seed;
	} else if (x != NULL && x->n > 0) {
		const double *f[] = {&st.mean, &st.p50, &st.p90, &st.p99, &st.min, &st.max};

		if (samples_stats(x, arg < NOISE_BUBBLE, &st) != 0)
			return -1;
		*out = *f[(arg - NOISE_STEP) % 6];
	}
	return 0;
}

/* A serving latency's figure: arg is the latency's offset in struct serve_metrics times 8 plus
 * the figure (n, mean, p50, p90, p99, max); NaN when no request has it. */
#define LATENCY(field, i) (offsetof(struct serve_metrics, field) * 8 + (i))

static int latency(const pp_run *r, size_t arg, double *out)
{
	const struct serve_latency *l;

	*out = NAN;
	if (training(r))
		return 0;
	l = (const struct serve_latency *)(const void *)((const char *)&r->served + arg / 8);
	if (l->n > 0) {
		const double v[] = {(double)l->n, l->mean, l->p50, l->p90, l->p99, l->max};

		*out = v[arg % 8];
	}
	return 0;
}

/* A serving run's counts, by arg. */
enum {
	SRV_INFLIGHT,
	SRV_PREFILL_STAGES,
	SRV_REQUESTS,
	SRV_PROMPT_TOKENS,
	SRV_OUTPUT_TOKENS,
	SRV_REQUEST_SEED,
	SRV_REQUEST_RATE,
	SRV_REQUEST_BURST,
	SRV_REQUEST_CONCURRENCY,
	SRV_BATCHES,
	SRV_PREFILL_ONLY,
	SRV_DECODE_ONLY,
	SRV_MIXED,
	SRV_KV_CAPACITY,
	SRV_KV_PEAK,
	SRV_KV_PREFILL_CAPACITY,
	SRV_KV_PREFILL_PEAK,
	SRV_KV_WAITS,
	SRV_KV_TRANSFERS,
	SRV_KV_TRANSFER_TIME
};

static int serving(const pp_run *r, size_t arg, double *out)
{
	const struct serve_run *s = r->serve;
	const struct serve_metrics *m = &r->served;
	bool prefill;

	*out = NAN;
	if (s == NULL)
		return 0;
	prefill = s->stages[1] > 0;
	switch (arg) {
	case SRV_INFLIGHT:
		*out = s->inflight[0];
		break;
	case SRV_PREFILL_STAGES:
		*out = prefill ? s->stages[1] : NAN;
		break;
	case SRV_REQUESTS:
		*out = (double)s->nreq;
		break;
	case SRV_PROMPT_TOKENS:
		*out = (double)s->prompt_tokens;
		break;
	case SRV_OUTPUT_TOKENS:
		*out = (double)s->output_tokens;
		break;
	case SRV_REQUEST_SEED:
		*out = (double)s->config.seed;
		break;
	case SRV_REQUEST_RATE: /* as the JSON report: the generator's, null where none applies */
		if (s->config.requests[0] == '\0' && s->config.arrival != PP_ARRIVAL_CLOSED)
			*out = s->config.rate;
		break;
	case SRV_REQUEST_BURST:
		if (s->config.requests[0] == '\0' && s->config.arrival == PP_ARRIVAL_BURSTY)
			*out = s->config.burst;
		break;
	case SRV_REQUEST_CONCURRENCY:
		if (s->config.requests[0] == '\0' && s->config.arrival == PP_ARRIVAL_CLOSED)
			*out = s->config.concurrency;
		break;
	case SRV_BATCHES:
		*out = (double)m->batches;
		break;
	case SRV_PREFILL_ONLY:
		*out = (double)m->prefill_only;
		break;
	case SRV_DECODE_ONLY:
		*out = (double)m->decode_only;
		break;
	case SRV_MIXED:
		*out = (double)m->mixed;
		break;
	case SRV_KV_CAPACITY:
		*out = s->kv_capacity[0] == UINT64_MAX ? NAN : (double)s->kv_capacity[0];
		break;
	case SRV_KV_PEAK:
		*out = (double)s->kv_peak[0];
		break;
	case SRV_KV_PREFILL_CAPACITY:
		*out = !prefill || s->kv_capacity[1] == UINT64_MAX ? NAN
		                                                   : (double)s->kv_capacity[1];
		break;
	case SRV_KV_PREFILL_PEAK:
		*out = prefill ? (double)s->kv_peak[1] : NAN;
		break;
	case SRV_KV_WAITS:
		*out = (double)m->kv_waits;
		break;
	case SRV_KV_TRANSFERS:
		*out = (double)s->kv_transfers;
		break;
	default:
		*out = pp_time_to_units(s->kv_transfer_time, s->tick);
		break;
	}
	return 0;
}

#define M(f)  offsetof(struct metrics, f)
#define SM(f) offsetof(struct serve_metrics, f)
/* The figures, in the order of the reports' keys: a training step's, then a serving run's
 * (those of both kinds where the training step has them). The kinds of communication are named
 * as comm_kind_info names them (tests/python checks each against the report). */
/* The figures of a replayed step (pp_replay_whatif), by arg: the JSON report's "replay". */
enum {
	RP_FILES,
	RP_MESSAGES,
	RP_MEASURED,
	RP_REPLAYED,
	RP_SLOWEST,
	RP_STEP,
	RP_DIFFERENCE,
	RP_RATIO,
	RP_FACTOR /* + the kind (MEASURED_KINDS of them) */
};

static int replayed(const pp_run *r, size_t arg, double *out)
{
	const struct replay *x = r->replay;
	double base, step;

	*out = NAN;
	if (x == NULL)
		return 0;
	base = isnan(x->measured) ? x->replay->metrics.makespan : x->measured;
	step = x->whatif != NULL ? x->whatif->metrics.makespan : NAN;
	switch (arg) {
	case RP_FILES:
		*out = x->files;
		break;
	case RP_MESSAGES:
		*out = (double)x->step.nmsgs;
		break;
	case RP_MEASURED:
		*out = x->measured;
		break;
	case RP_REPLAYED:
		*out = x->replay->metrics.makespan;
		break;
	case RP_SLOWEST:
		*out = x->whatif != NULL && x->slowest >= 0 ? x->slowest : NAN;
		break;
	case RP_STEP:
		*out = step;
		break;
	case RP_DIFFERENCE:
		*out = step - base;
		break;
	case RP_RATIO:
		*out = step / base;
		break;
	default:
		*out = x->whatif != NULL && x->slowest >= 0 ? x->factor[arg - RP_FACTOR] : NAN;
		break;
	}
	return 0;
}

static const struct figure figures[] = {
        {"p", both, BOTH_P},
        {"v", shape, SHAPE_V},
        {"m", shape, SHAPE_M},
        {"makespan", both, BOTH_MAKESPAN},
        {"bubble_ratio", both, BOTH_BUBBLE},
        {"bubble_ratio_theory", train, M(bubble_ratio_theory)},
        {"bubble_overhead", train, M(bubble_overhead)},
        {"bubble_rate_span", train, M(bubble_rate_span)},
        {"utilization", both, BOTH_UTILIZATION},
        {"p2p.messages", both, BOTH_MESSAGES},
        {"p2p.bytes", both, BOTH_BYTES},
        {"p2p.time", both, BOTH_P2P_TIME},
        {"critical_path.time", critical, CRIT_TIME},
        {"critical_path.device", critical, CRIT_DEVICE},
        {"critical_path.ops", critical, CRIT_OPS},
        {"critical_path.messages", critical, CRIT_MESSAGES},
        {"critical_path.kinds.F", critical, CRIT_KIND},
        {"critical_path.kinds.B", critical, CRIT_KIND + 1},
        {"critical_path.kinds.W", critical, CRIT_KIND + 2},
        {"critical_path.kinds.BW", critical, CRIT_KIND + 3},
        {"critical_path.kinds.pair", critical, CRIT_KIND + 4},
        {"critical_path.transfer", critical, CRIT_TRANSFER},
        {"critical_path.tail", critical, CRIT_TAIL},
        {"group_size", shape, SHAPE_GROUP},
        {"step_time", model, M(step_time)},
        {"step_breakdown.device", breakdown, BRK_DEVICE},
        {"step_breakdown.compute", breakdown, BRK_COMPUTE},
        {"step_breakdown.bubble", breakdown, BRK_BUBBLE},
        {"step_breakdown.exposed_p2p", breakdown, BRK_P2P},
        {"step_breakdown.exposed_dp", breakdown, BRK_EXPOSED + COMM_DP},
        {"step_breakdown.exposed_tp", breakdown, BRK_EXPOSED + COMM_TP},
        {"step_breakdown.exposed_cp", breakdown, BRK_EXPOSED + COMM_CP},
        {"step_breakdown.exposed_ep", breakdown, BRK_EXPOSED + COMM_EP},
        {"step_breakdown.exposed_offload", breakdown, BRK_EXPOSED + COMM_OFFLOAD},
        {"step_breakdown.exposed_reload", breakdown, BRK_EXPOSED + COMM_RELOAD},
        {"step_breakdown.hidden_dp", breakdown, BRK_HIDDEN + COMM_DP},
        {"step_breakdown.hidden_tp", breakdown, BRK_HIDDEN + COMM_TP},
        {"step_breakdown.hidden_cp", breakdown, BRK_HIDDEN + COMM_CP},
        {"step_breakdown.hidden_ep", breakdown, BRK_HIDDEN + COMM_EP},
        {"step_breakdown.hidden_offload", breakdown, BRK_HIDDEN + COMM_OFFLOAD},
        {"step_breakdown.hidden_reload", breakdown, BRK_HIDDEN + COMM_RELOAD},
        {"step_breakdown.optimizer", breakdown, BRK_OPTIMIZER},
        {"step_breakdown.other", breakdown, BRK_OTHER},
        {"tokens_per_s", model, M(tokens_per_s)},
        {"samples_per_s", model, M(samples_per_s)},
        {"mfu", model, M(mfu)},
        {"noise.samples", noise, NOISE_SAMPLES},
        {"noise.seed", noise, NOISE_SEED},
        {"noise.step.mean", noise, NOISE_STEP},
        {"noise.step.p50", noise, NOISE_STEP + 1},
        {"noise.step.p90", noise, NOISE_STEP + 2},
        {"noise.step.p99", noise, NOISE_STEP + 3},
        {"noise.step.min", noise, NOISE_STEP + 4},
        {"noise.step.max", noise, NOISE_STEP + 5},
        {"noise.bubble_ratio.mean", noise, NOISE_BUBBLE},
        {"noise.bubble_ratio.p50", noise, NOISE_BUBBLE + 1},
        {"noise.bubble_ratio.p90", noise, NOISE_BUBBLE + 2},
        {"noise.bubble_ratio.p99", noise, NOISE_BUBBLE + 3},
        {"noise.bubble_ratio.min", noise, NOISE_BUBBLE + 4},
        {"noise.bubble_ratio.max", noise, NOISE_BUBBLE + 5},
        {"prefill_stages", serving, SRV_PREFILL_STAGES},
        {"inflight", serving, SRV_INFLIGHT},
        {"requests.count", serving, SRV_REQUESTS},
        {"requests.seed", serving, SRV_REQUEST_SEED},
        {"requests.rate", serving, SRV_REQUEST_RATE},
        {"requests.burst", serving, SRV_REQUEST_BURST},
        {"requests.concurrency", serving, SRV_REQUEST_CONCURRENCY},
        {"requests.prompt_tokens", serving, SRV_PROMPT_TOKENS},
        {"requests.output_tokens", serving, SRV_OUTPUT_TOKENS},
        {"span", served, SM(span)},
        {"output_tokens_per_s", served, SM(output_tokens_per_s)},
        {"prompt_tokens_per_s", served, SM(prompt_tokens_per_s)},
        {"requests_per_s", served, SM(requests_per_s)},
        {"ttft.n", latency, LATENCY(ttft, 0)},
        {"ttft.mean", latency, LATENCY(ttft, 1)},
        {"ttft.p50", latency, LATENCY(ttft, 2)},
        {"ttft.p90", latency, LATENCY(ttft, 3)},
        {"ttft.p99", latency, LATENCY(ttft, 4)},
        {"ttft.max", latency, LATENCY(ttft, 5)},
        {"tpot.n", latency, LATENCY(tpot, 0)},
        {"tpot.mean", latency, LATENCY(tpot, 1)},
        {"tpot.p50", latency, LATENCY(tpot, 2)},
        {"tpot.p90", latency, LATENCY(tpot, 3)},
        {"tpot.p99", latency, LATENCY(tpot, 4)},
        {"tpot.max", latency, LATENCY(tpot, 5)},
        {"e2e.n", latency, LATENCY(e2e, 0)},
        {"e2e.mean", latency, LATENCY(e2e, 1)},
        {"e2e.p50", latency, LATENCY(e2e, 2)},
        {"e2e.p90", latency, LATENCY(e2e, 3)},
        {"e2e.p99", latency, LATENCY(e2e, 4)},
        {"e2e.max", latency, LATENCY(e2e, 5)},
        {"queue_wait.n", latency, LATENCY(queue_wait, 0)},
        {"queue_wait.mean", latency, LATENCY(queue_wait, 1)},
        {"queue_wait.p50", latency, LATENCY(queue_wait, 2)},
        {"queue_wait.p90", latency, LATENCY(queue_wait, 3)},
        {"queue_wait.p99", latency, LATENCY(queue_wait, 4)},
        {"queue_wait.max", latency, LATENCY(queue_wait, 5)},
        {"micro_batches.count", serving, SRV_BATCHES},
        {"micro_batches.prefill_only", serving, SRV_PREFILL_ONLY},
        {"micro_batches.decode_only", serving, SRV_DECODE_ONLY},
        {"micro_batches.mixed", serving, SRV_MIXED},
        {"micro_batches.mean_seqs", served, SM(mean_seqs)},
        {"micro_batches.mean_tokens", served, SM(mean_tokens)},
        {"kv.capacity", serving, SRV_KV_CAPACITY},
        {"kv.peak", serving, SRV_KV_PEAK},
        {"kv.prefill_capacity", serving, SRV_KV_PREFILL_CAPACITY},
        {"kv.prefill_peak", serving, SRV_KV_PREFILL_PEAK},
        {"kv.waits", serving, SRV_KV_WAITS},
        {"kv.transfers", serving, SRV_KV_TRANSFERS},
        {"kv.transfer_time", serving, SRV_KV_TRANSFER_TIME},
        {"window", served, SM(window)},
        {"replay.files", replayed, RP_FILES},
        {"replay.messages_measured", replayed, RP_MESSAGES},
        {"replay.measured_step", replayed, RP_MEASURED},
        {"replay.replayed_step", replayed, RP_REPLAYED},
        {"replay.what_if.slowest_device", replayed, RP_SLOWEST},
        {"replay.what_if.factors.F", replayed, RP_FACTOR + 0},
        {"replay.what_if.factors.B", replayed, RP_FACTOR + 1},
        {"replay.what_if.factors.W", replayed, RP_FACTOR + 2},
        {"replay.what_if.factors.BW", replayed, RP_FACTOR + 3},
        {"replay.what_if.factors.pairs", replayed, RP_FACTOR + 4},
        {"replay.what_if.step", replayed, RP_STEP},
        {"replay.what_if.difference", replayed, RP_DIFFERENCE},
        {"replay.what_if.ratio", replayed, RP_RATIO},
};

#define NFIGURES (sizeof(figures) / sizeof(figures[0]))

_Static_assert(COMM_KINDS == 6, "a figure row for each kind of communication");
_Static_assert(MEASURED_KINDS == 5, "a figure row for each kind of a replay's factors");

const char *pp_figure_name(int i)
{
	return i >= 0 && (size_t)i < NFIGURES ? figures[i].name : NULL;
}

int pp_run_figure(const pp_run *r, const char *name, double *value, char *err, size_t errlen)
{
	struct call k;
	int rc = -1;

	if (api_begin(&k, "pp_run_figure", ARGS({r, "r"}, {name, "name"}, {value, "value"}), err,
	              errlen) != 0)
		return PP_E_INPUT;
	for (size_t i = 0; i < NFIGURES; i++)
		if (strcmp(figures[i].name, name) == 0) {
			rc = figures[i].get(r, figures[i].arg, value);
			if (rc != 0)
				pp_nomem(&k.e, r->sim->samples->n, sizeof(double));
			return api_end(&k, rc);
		}
	pp_fail(&k.e, PP_ERR_USAGE,
	        "figure '%s': no figure of that name (pp_figure_name lists them)", name);
	return api_end(&k, rc);
}

/* A column of the per-device table: its key in the report's "devices" and, for a training
 * step, its field of struct device_metrics (model: only with a model) or for a serving run of
 * struct serve_device_memory (SIZE_MAX: none). */
struct device_figure {
	const char *name;
	size_t train; /* offset in struct device_metrics, SIZE_MAX: none */
	bool model;   /* a model's figure */
	size_t serve; /* offset in struct serve_device_memory, SIZE_MAX: none */
};

/* special columns: the device's number, a serving run's busy time and utilization, the GPU's
 * memory, whether a device is over it */
#define COL_DEVICE      (SIZE_MAX - 1)
#define COL_BUSY        (SIZE_MAX - 2)
#define COL_UTILIZATION (SIZE_MAX - 3)
#define COL_CAPACITY    (SIZE_MAX - 4)
#define COL_OOM         (SIZE_MAX - 5)
#define COL_FITS        (SIZE_MAX - 6)
#define DM(f)           offsetof(struct device_metrics, f)
#define SD(f)           offsetof(struct serve_device_memory, f)
#define NONE            SIZE_MAX

static const struct device_figure device_figures[] = {
        {"device", COL_DEVICE, false, COL_DEVICE},
        {"busy", DM(busy), false, COL_BUSY},
        {"idle", DM(idle), false, NONE},
        {"utilization", DM(utilization), false, COL_UTILIZATION},
        {"peak_activations", DM(peak_activations), false, NONE},
        {"comm_wait", DM(comm_wait), false, NONE},
        {"span", DM(span), false, NONE},
        {"activation_bytes", DM(activation_bytes), true, NONE},
        {"state_bytes", DM(state_bytes), true, NONE},
        {"memory_bytes", DM(memory_bytes), true, NONE},
        {"memory_capacity_bytes", COL_CAPACITY, true, NONE},
        {"oom", COL_OOM, true, NONE},
        {"dp_allreduce", DM(dp_allreduce), true, NONE},
        {"end", DM(end), true, NONE},
        {"optimizer", DM(optimizer), true, NONE},
        {"exposed_dp", DM(exposed) + COMM_DP * sizeof(double), true, NONE},
        {"exposed_tp", DM(exposed) + COMM_TP * sizeof(double), true, NONE},
        {"exposed_cp", DM(exposed) + COMM_CP * sizeof(double), true, NONE},
        {"exposed_ep", DM(exposed) + COMM_EP * sizeof(double), true, NONE},
        {"exposed_offload", DM(exposed) + COMM_OFFLOAD * sizeof(double), true, NONE},
        {"exposed_reload", DM(exposed) + COMM_RELOAD * sizeof(double), true, NONE},
        {"comm_dp", DM(comm) + COMM_DP * sizeof(double), true, NONE},
        {"comm_tp", DM(comm) + COMM_TP * sizeof(double), true, NONE},
        {"comm_cp", DM(comm) + COMM_CP * sizeof(double), true, NONE},
        {"comm_ep", DM(comm) + COMM_EP * sizeof(double), true, NONE},
        {"comm_offload", DM(comm) + COMM_OFFLOAD * sizeof(double), true, NONE},
        {"comm_reload", DM(comm) + COMM_RELOAD * sizeof(double), true, NONE},
        {"host_bytes", DM(host_bytes), true, NONE},
        {"weight_bytes", NONE, true, SD(weight_bytes)},
        {"kv_token_bytes", NONE, true, SD(kv_token_bytes)},
        {"kv_peak_bytes", NONE, true, SD(kv_peak_bytes)},
        {"capacity_bytes", NONE, true, SD(capacity_bytes)},
        {"fits", NONE, true, COL_FITS},
};

#define NDEVICE_FIGURES (sizeof(device_figures) / sizeof(device_figures[0]))

const char *pp_device_figure_name(int i)
{
	return i >= 0 && (size_t)i < NDEVICE_FIGURES ? device_figures[i].name : NULL;
}

int pp_run_devices(const pp_run *r)
{
	return r == NULL ? 0 : r->serve != NULL ? r->served.devices : r->sim->metrics.p;
}

/* Device d's figure f of run r. */
static double device_value(const pp_run *r, const struct device_figure *f, int d)
{
	size_t at = training(r) ? f->train : f->serve;
	bool has = !f->model ||
	           (training(r) ? r->sim->metrics.has_model : config_has_model(r->config));

	if (at == NONE || !has)
		return NAN;
	if (at == COL_DEVICE)
		return d;
	if (training(r)) {
		const struct device_metrics *dm = &r->sim->metrics.devices[d];

		if (at == COL_CAPACITY)
			return dm->capacity_bytes;
		if (at == COL_OOM)
			return dm->oom ? 1 : 0;
		return *(const double *)(const void *)((const char *)dm + at);
	}
	if (at == COL_BUSY)
		return r->served.busy[d];
	if (at == COL_UTILIZATION)
		return r->served.device_utilization[d];
	if (at == COL_FITS)
		return serve_device_fits(&r->serve->memory[d]) ? 1 : 0;
	return *(const double *)(const void *)((const char *)&r->serve->memory[d] + at);
}

int pp_run_device_figure(const pp_run *r, const char *name, double *out, size_t n, char *err,
                         size_t errlen)
{
	struct call k;
	int p;

	if (api_begin(&k, "pp_run_device_figure", ARGS({r, "r"}, {name, "name"}, {out, "out"}), err,
	              errlen) != 0)
		return PP_E_INPUT;
	p = pp_run_devices(r);
	for (size_t i = 0; i < NDEVICE_FIGURES; i++)
		if (strcmp(device_figures[i].name, name) == 0) {
			for (int d = 0; d < p && (size_t)d < n; d++)
				out[d] = device_value(r, &device_figures[i], d);
			api_end(&k, 0);
			return p;
		}
	pp_fail(&k.e, PP_ERR_USAGE,
	        "device figure '%s': no figure of that name (pp_device_figure_name lists them)",
	        name);
	return api_end(&k, -1);
}

const char *pp_op_kind_name(int kind)
{
	return kind >= 0 && kind < 4 ? sched_kind_name((enum op_kind)kind) : NULL;
}

size_t pp_run_op_count(const pp_run *r)
{
	return r != NULL ? r->view.sched->nops : 0;
}

int pp_run_kept(const pp_run *r)
{
	return r == NULL || r->view.result->times == NULL ? 0 : r->view.slack == NULL ? 1 : 2;
}

/* The entry i of a column at base, every stride bytes (0: packed entries of type T). */
#define AT(T, base, stride, i)                                                                     \
	(*(T *)(void *)((char *)(base) + (i) * ((stride) ? (stride) : sizeof(T))))

/* Fills cols with ops first .. first + cols->n - 1 of r, whose columns are checked: the
 * devices by their ranges of ops, then every other column in one pass over the ops. */
static void fill(const pp_run *r, size_t first, const pp_ops *cols)
{
	const struct sched *sc = r->view.sched;
	const struct op_time *t = r->view.result->times;
	const pp_time *slack = r->view.slack;
	/* ticks in units as pp_time_to_units divides them: exact below 2^53 ticks */
	double tick = (double)r->view.tick;
	size_t st = cols->stride, last = first + cols->n;

	for (int d = 0; d < sc->p; d++) {
		size_t lo = sc->dev_start[d] > first ? sc->dev_start[d] : first;
		size_t hi = sc->dev_start[d + 1] < last ? sc->dev_start[d + 1] : last;

		for (size_t i = lo; cols->device != NULL && i < hi; i++)
			AT(int32_t, cols->device, st, i - first) = d;
	}
	for (size_t i = first; i < last; i++) {
		const struct op *op = &sc->ops[i];
		size_t j = i - first;

		if (cols->start != NULL)
			AT(double, cols->start, st, j) = (double)t[i].start / tick;
		if (cols->end != NULL)
			AT(double, cols->end, st, j) = (double)t[i].end / tick;
		if (cols->slack != NULL)
			AT(double, cols->slack, st, j) = (double)slack[i] / tick;
		if (cols->chunk != NULL)
			AT(int32_t, cols->chunk, st, j) = (int32_t)sc->stage_chunk[op->stage];
		if (cols->stage != NULL)
			AT(int32_t, cols->stage, st, j) = (int32_t)op->stage;
		if (cols->microbatch != NULL)
			AT(int32_t, cols->microbatch, st, j) = (int32_t)op->mb;
		if (cols->kind != NULL)
			AT(uint8_t, cols->kind, st, j) = (uint8_t)op->kind;
		if (cols->overlap != NULL)
			AT(uint8_t, cols->overlap, st, j) = (op->flags & OP_OVERLAP) != 0;
	}
}

/* Checks that r has the ops first .. first + n - 1 and what cols asks of them; 0, or -1 with e
 * set. */
static int check_ops(const pp_run *r, size_t first, const pp_ops *cols, struct pp_error *e)
{
	size_t nops = r->view.sched->nops;
	/* the widest column filled: a stride under it would write entries over each other */
	bool times = cols->start != NULL || cols->end != NULL || cols->slack != NULL;
	bool ints = cols->device != NULL || cols->chunk != NULL || cols->stage != NULL ||
	            cols->microbatch != NULL;
	size_t widest = times ? sizeof(double) : ints ? sizeof(int32_t) : 1;

	if (cols->stride != 0 && cols->stride < widest)
		return pp_fail(e, PP_ERR_USAGE,
		               "pp_run_ops: stride %zu is under the %zu bytes of a column's entry "
		               "(0: packed)",
		               cols->stride, widest);
	if (first > nops || cols->n > nops - first)
		return pp_fail(e, PP_ERR_USAGE,
		               "pp_run_ops: %zu ops from op %zu: past the run's %zu ops", cols->n,
		               first, nops);
	if ((cols->start != NULL || cols->end != NULL) && r->view.result->times == NULL)
		return pp_fail(e, PP_ERR_USAGE,
		               "pp_run_ops: the run kept no op times (simulate it with "
		               "PP_KEEP_OP_TIMES)");
	if (cols->slack != NULL && r->view.slack == NULL)
		return pp_fail(
		        e, PP_ERR_USAGE,
		        "pp_run_ops: the run kept no slack (simulate it with PP_KEEP_SLACK)");
	return 0;
}

int pp_run_ops(const pp_run *r, size_t first, const pp_ops *cols, char *err, size_t errlen)
{
	struct call k;

	if (api_begin(&k, "pp_run_ops", ARGS({r, "r"}, {cols, "cols"}), err, errlen) != 0)
		return PP_E_INPUT;
	if (check_ops(r, first, cols, &k.e) != 0)
		return api_end(&k, -1);
	fill(r, first, cols);
	return api_end(&k, 0);
}

/* All of r's ops in packed columns in one block, or NULL with e set. */
static pp_ops *ops_new(const pp_run *r, struct pp_error *e)
{
	size_t n = r->view.sched->nops;
	bool times = r->view.result->times != NULL, slack = r->view.slack != NULL;
	size_t entry = (times ? 16 : 0) + (slack ? 8 : 0) + 4 * sizeof(int32_t) + 2;
	pp_ops *o = pp_zalloc(1, sizeof(*o), e);

	if (o == NULL)
		return NULL;
	o->n = n;
	/* one block for every column: 8-byte columns first, so that each stays aligned */
	o->start = pp_mallocarray_large(n > 0 ? n : 1, entry);
	if (o->start == NULL) {
		pp_nomem(e, n, entry);
		free(o);
		return NULL;
	}
	{
		char *at = (char *)o->start;

		o->start = times ? (double *)(void *)at : NULL;
		at += times ? 8 * n : 0;
		o->end = times ? (double *)(void *)at : NULL;
		at += times ? 8 * n : 0;
		o->slack = slack ? (double *)(void *)at : NULL;
		at += slack ? 8 * n : 0;
		o->device = (int32_t *)(void *)at;
		o->chunk = o->device + n;
		o->stage = o->chunk + n;
		o->microbatch = o->stage + n;
		o->kind = (uint8_t *)(o->microbatch + n);
		o->overlap = o->kind + n;
	}
	fill(r, 0, o);
	return o;
}

int pp_run_ops_new(const pp_run *r, pp_ops **ops, char *err, size_t errlen)
{
	struct call k;

	if (ops != NULL)
		*ops = NULL;
	if (api_begin(&k, "pp_run_ops_new", ARGS({r, "r"}, {ops, "ops"}), err, errlen) != 0)
		return PP_E_INPUT;
	*ops = ops_new(r, &k.e);
	return api_end(&k, *ops != NULL ? 0 : -1);
}

void pp_ops_free(pp_ops *ops)
{
	if (ops == NULL)
		return;
	/* the block starts at the first column it holds */
	free(ops->start != NULL ? (void *)ops->start : (void *)ops->device);
	free(ops);
}
