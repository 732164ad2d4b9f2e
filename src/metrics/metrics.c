/*
 * Derived figures of a simulation: the three bubble definitions, utilization, memory, traffic.
 * metrics_init reads an engine result once, device by device and channel by channel, into
 * per-device and per-channel arrays (allocated first, so that running out of memory fails
 * before anything is computed) and the run's totals; the ratios are taken of exact tick sums.
 */
#include "ppsim/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Ticks of ms (0 when out of range: the cost checked its times). */
static pp_time ticks_of(double ms, int64_t tick)
{
	pp_time t = 0;

	return pp_time_from_units(ms, tick, &t) ? t : 0;
}

/* The step time and its parts, on the device dr that finishes last, added up in ticks. */
static void step_apart(struct metrics *m, const struct cost_model *k,
                       const struct device_result *dr, int64_t tick)
{
	struct step_breakdown *b = &m->breakdown;
	pp_time opt = ticks_of(k->optimizer_max_ms, tick), other = ticks_of(k->step_overhead_ms, tick);
	pp_time rest = dr->end - dr->busy - dr->comm_wait;

	b->compute = pp_time_to_units(dr->busy, tick);
	b->exposed_p2p = pp_time_to_units(dr->comm_wait, tick);
	for (int x = 0; x < COMM_KINDS; x++) {
		pp_time hidden = dr->comm[x] - dr->exposed[x];

		b->exposed[x] = pp_time_to_units(dr->exposed[x], tick);
		b->hidden[x] = pp_time_to_units(hidden > 0 ? hidden : 0, tick);
		rest -= dr->exposed[x];
	}
	b->bubble = pp_time_to_units(rest > 0 ? rest : 0, tick);
	b->optimizer = pp_time_to_units(opt, tick);
	b->other = pp_time_to_units(other, tick);
	m->step_time = pp_time_to_units(dr->end + opt + other, tick);
}

double metrics_bubble_of(const struct result *r)
{
	/* Tick sums are whole numbers; long double holds them exactly up to 2^64, and pp_ratio
	 * gives the double nearest their quotient (3/19 comes out as the double nearest 3/19). */
	long double sum_busy = 0, capacity = (long double)r->p * (long double)r->makespan;

	for (int d = 0; d < r->p; d++)
		sum_busy += (long double)r->devices[d].busy;
	return r->makespan > 0 ? pp_ratio(capacity - sum_busy, capacity) : 0;
}

int metrics_init(struct metrics *m, const struct sched *s, const struct cost *c,
                 const struct result *r, struct pp_error *err)
{
	/* Tick sums are whole numbers; long double holds them exactly up to 2^64, and pp_ratio
	 * gives the double nearest each quotient (3/19 comes out as the double nearest 3/19). */
	long double sum_busy = 0, capacity = (long double)r->p * (long double)r->makespan;
	double max_busy = 0, max_span = 0;
	struct sched_params sp;

	memset(m, 0, sizeof(*m));
	m->p = r->p;
	m->makespan = pp_time_to_units(r->makespan, c->tick);
	m->devices = pp_calloc((size_t)r->p, sizeof(*m->devices));
	m->channels = pp_calloc((size_t)r->nchannels, sizeof(*m->channels));
	if (m->devices == NULL || m->channels == NULL) {
		size_t n = m->devices == NULL ? (size_t)r->p : (size_t)r->nchannels;
		size_t size = m->devices == NULL ? sizeof(*m->devices) : sizeof(*m->channels);

		metrics_release(m);
		return pp_nomem(err, n, size);
	}
	for (int d = 0; d < r->p; d++) {
		const struct device_result *dr = &r->devices[d];
		struct device_metrics *dm = &m->devices[d];
		int64_t unit = 0;

		for (int ch = 0; ch < s->v; ch++)
			unit += c->act[sched_stage_of(s, d, ch)];
		dm->busy = pp_time_to_units(dr->busy, c->tick);
		dm->idle = pp_time_to_units(r->makespan - dr->busy, c->tick);
		dm->utilization = r->makespan > 0 ? (double)dr->busy / (double)r->makespan : 0;
		/* a micro-batch passes v / routes of the device's chunks: a routes-th of a unit */
		dm->peak_activations =
		        unit > 0 ? (double)dr->peak_act * s->routes / (double)unit : 0;
		dm->comm_wait = pp_time_to_units(dr->comm_wait, c->tick);
		dm->span = pp_time_to_units(dr->last_end - dr->first_start, c->tick);
		dm->end = pp_time_to_units(dr->end, c->tick);
		for (int k = 0; k < COMM_KINDS; k++) {
			dm->exposed[k] = pp_time_to_units(dr->exposed[k], c->tick);
			dm->comm[k] = pp_time_to_units(dr->comm[k], c->tick);
		}
		if (c->model != NULL) {
			const struct cost_type *ty = cost_device_type(c->model, d);

			dm->capacity_bytes = ty->capacity_bytes;
			dm->reserve_bytes = ty->reserve_bytes;
			dm->activation_bytes = (double)dr->peak_act;
			dm->host_bytes = (double)dr->host_peak;
			dm->state_bytes = c->model->device_state_bytes[d];
			dm->memory_bytes = dm->activation_bytes + dm->state_bytes;
			dm->oom = dm->memory_bytes > ty->capacity_bytes - ty->reserve_bytes;
			dm->dp_allreduce = dm->comm[COMM_DP];
			/* on the ticks of the step it adds to (step_apart), as every other time */
			dm->optimizer = pp_time_to_units(ticks_of(c->model->optimizer_ms[d], c->tick),
			                                 c->tick);
			m->oom |= dm->oom;
			if (dr->end > r->devices[m->breakdown.device].end)
				m->breakdown.device = d;
		}
		sum_busy += (long double)dr->busy;
		if ((double)dr->busy > max_busy)
			max_busy = (double)dr->busy;
		if ((double)(dr->last_end - dr->first_start) > max_span)
			max_span = (double)(dr->last_end - dr->first_start);
	}
	if (r->makespan > 0) {
		m->utilization = pp_ratio(sum_busy, capacity);
		m->bubble_ratio = metrics_bubble_of(r);
	}
	m->bubble_overhead = max_busy > 0 ? ((double)r->makespan - max_busy) / max_busy : 0;
	m->bubble_rate_span = max_span > 0 ? (max_span - max_busy) / max_span : 0;
	m->bubble_ratio_theory = NAN;
	sp = sched_params_of(s);
	if (s->desc != NULL && s->desc->theory.fn != NULL && cost_uniform(c) && cost_comm_free(c))
		/* in ticks: whole numbers, so each closed form is one rounding of its exact value */
		m->bubble_ratio_theory = s->desc->theory.fn(&sp, (double)c->t_f[0], (double)c->t_b[0],
		                                            (double)c->t_w[0], c->overlap_factor);
	if (c->model != NULL)
		step_apart(m, c->model, &r->devices[m->breakdown.device], c->tick);
	if (c->model != NULL && m->step_time > 0) {
		const struct cost_model *k = c->model;
		/* the GPUs' peak: their mean over the pipeline ranks (each rank's GPUs alike) */
		double tflops = k->types[0].hw.tflops, sum = 0;
		int least = 0;

		m->has_model = true;
		for (int d = 0; d < r->p; d++) {
			const struct device_metrics *dm = &m->devices[d], *lm = &m->devices[least];

			sum += cost_device_type(k, d)->hw.tflops;
			if (dm->capacity_bytes - dm->reserve_bytes < lm->capacity_bytes - lm->reserve_bytes)
				least = d;
		}
		m->memory_capacity_bytes = m->devices[least].capacity_bytes;
		m->memory_reserve_bytes = m->devices[least].reserve_bytes;
		m->tokens_per_s = k->tokens_per_step / (m->step_time / 1e3);
		m->samples_per_s = k->samples_per_step / (m->step_time / 1e3);
		if (k->ntypes > 1)
			tflops = sum / r->p;
		m->mfu = k->step_flops / (m->step_time / 1e3 * k->gpus * tflops * 1e12);
	}
	m->messages = r->messages;
	m->bytes = r->bytes;
	m->p2p_time = pp_time_to_units(r->msg_time, c->tick);
	m->nchannels = r->nchannels;
	for (int i = 0; i < r->nchannels; i++) {
		const struct channel_result *cr = &r->channels[i];
		struct channel_metrics *cm = &m->channels[i];

		cm->src = cr->src;
		cm->dst = cr->dst;
		cm->messages = cr->messages;
		cm->bytes = cr->bytes;
		cm->time = pp_time_to_units(cr->busy, c->tick);
		cm->utilization = r->makespan > 0 ? (double)cr->busy / (double)r->makespan : 0;
	}
	return 0;
}

/* The PP_ERR_DEVICE_MEM error of device d, which needs need bytes (what: "" or what they are
 * for) where its GPU has capacity, reserve of them kept free. Returns -1. */
static int memory_fail(int d, double need, const char *what, double capacity, double reserve,
                       struct pp_error *err)
{
	if (reserve > 0)
		return pp_fail(err, PP_ERR_DEVICE_MEM,
		               "out of memory: device %d needs %.1f GB%s, the GPU has %.1f GB with "
		               "%.1f GB kept free (--memory-reserve)",
		               d, need / 1e9, what, capacity / 1e9, reserve / 1e9);
	return pp_fail(err, PP_ERR_DEVICE_MEM,
	               "out of memory: device %d needs %.1f GB%s, the GPU has %.1f GB", d,
	               need / 1e9, what, capacity / 1e9);
}

int metrics_memory_error(const struct metrics *m, struct pp_error *err)
{
	int worst = -1;
	const struct device_metrics *w;

	if (!m->oom)
		return 0;
	/* the device furthest over its own GPU's room */
	for (int d = 0; d < m->p; d++) {
		const struct device_metrics *dm = &m->devices[d];

		w = &m->devices[worst < 0 ? d : worst];
		if (worst < 0 || dm->memory_bytes - (dm->capacity_bytes - dm->reserve_bytes) >
		                         w->memory_bytes - (w->capacity_bytes - w->reserve_bytes))
			worst = d;
	}
	w = &m->devices[worst];
	return memory_fail(worst, w->memory_bytes, "", w->capacity_bytes, w->reserve_bytes, err);
}

int metrics_fit_error(const struct cost *c, int p, const int64_t *act_peak, struct pp_error *err)
{
	const struct cost_model *k = c->model;
	const struct cost_type *ty;
	double over = 0, need = 0;
	int worst = -1;

	if (k == NULL)
		return 0;
	/* the device furthest over its own GPU's room, as metrics_memory_error finds it */
	for (int d = 0; d < p; d++) {
		double x = (act_peak != NULL ? (double)act_peak[d] : 0) + k->device_state_bytes[d], by;

		ty = cost_device_type(k, d);
		by = x - (ty->capacity_bytes - ty->reserve_bytes);
		if (by > 0 && (worst < 0 || by > over)) {
			worst = d;
			over = by;
			need = x;
		}
	}
	if (worst < 0)
		return 0;
	ty = cost_device_type(k, worst);
	return memory_fail(worst, need,
	                   act_peak != NULL ? ""
	                                    : " for its weights, gradients and optimizer state alone",
	                   ty->capacity_bytes, ty->reserve_bytes, err);
}

int metrics_set_critical(struct metrics *m, const struct critical_path *cp, const struct cost *c,
                         struct pp_error *err)
{
	struct critical_metrics *k = &m->critical;
	double *devices = pp_calloc((size_t)m->p, sizeof(*devices));

	if (devices == NULL)
		return pp_nomem(err, (size_t)m->p, sizeof(*devices));
	free(k->devices);
	*k = (struct critical_metrics){
	        .has = true,
	        .device = cp->device,
	        .length = pp_time_to_units(cp->length, c->tick),
	        .devices = devices,
	        .transfer = pp_time_to_units(cp->transfer, c->tick),
	        .tail = pp_time_to_units(cp->tail, c->tick),
	        .ops = cp->ops,
	        .messages = cp->messages,
	};
	for (int d = 0; d < m->p; d++)
		devices[d] = pp_time_to_units(cp->devices[d], c->tick);
	for (int x = 0; x < CRITICAL_KINDS; x++)
		k->kind[x] = pp_time_to_units(cp->kind[x], c->tick);
	return 0;
}

void metrics_release(struct metrics *m)
{
	free(m->devices);
	free(m->channels);
	free(m->critical.devices);
	m->devices = NULL;
	m->channels = NULL;
	memset(&m->critical, 0, sizeof(m->critical));
}
