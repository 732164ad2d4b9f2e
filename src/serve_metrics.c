/*
 * Serving metrics: latencies per request (time to first token, time per output token after
 * it, end to end, queueing) as nearest-rank percentiles, throughput, how busy each device was
 * over the run and over fixed windows of time, and the queue of requests waiting for admission.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/serve.h"

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile q (0..100) of sorted x[0..n-1]. */
static double rank(const double *x, size_t n, double q)
{
	size_t k = (size_t)ceil(q / 100 * (double)n);

	return x[k > 0 ? k - 1 : 0];
}

/* Sorts x[0..n-1] and summarises it. */
static struct serve_latency summarise(double *x, size_t n)
{
	struct serve_latency l = {n, 0, 0, 0, 0, 0};

	if (n == 0)
		return l;
	qsort(x, n, sizeof(*x), by_value);
	for (size_t i = 0; i < n; i++)
		l.mean += x[i] / (double)n;
	l.p50 = rank(x, n, 50);
	l.p90 = rank(x, n, 90);
	l.p99 = rank(x, n, 99);
	l.max = x[n - 1];
	return l;
}

/* The four latencies of every request that has them. */
static void latencies(struct serve_metrics *m, const struct serve_run *r, int64_t tick)
{
	double *x = pp_xmallocarray(r->nreq, sizeof(*x));
	size_t n;

	for (int which = 0; which < 4; which++) {
		n = 0;
		for (size_t i = 0; i < r->nreq; i++) {
			const struct serve_request_result *q = &r->req[i];

			if (which == 0)
				x[n++] = pp_time_to_units(q->first_token - q->arrival, tick);
			else if (which == 1 && q->output > 1)
				x[n++] = pp_time_to_units(q->finish - q->first_token, tick) /
				         (q->output - 1);
			else if (which == 2)
				x[n++] = pp_time_to_units(q->finish - q->arrival, tick);
			else if (which == 3)
				x[n++] = pp_time_to_units(q->admitted - q->arrival, tick);
		}
		*(which == 0   ? &m->ttft
		  : which == 1 ? &m->tpot
		  : which == 2 ? &m->e2e
		               : &m->queue_wait) = summarise(x, n);
	}
	free(x);
}

/* Adds the part of [a, b) in each window to acc[window] (weighted by w), in time units. */
static void spread(const struct serve_metrics *m, double origin, double a, double b, double w,
                   double *acc)
{
	size_t first, last;

	if (b <= a)
		return;
	first = (size_t)((a - origin) / m->window);
	last = (size_t)((b - origin) / m->window);
	for (size_t k = first; k <= last && k < m->nwindows; k++) {
		double lo = origin + (double)k * m->window, hi = lo + m->window;
		double x = (a > lo ? a : lo), y = (b < hi ? b : hi);

		if (y > x)
			acc[k] += (y - x) * w;
	}
}

/* Busy time of each device, queue and tokens in each window. */
static void windows(struct serve_metrics *m, const struct serve_run *r, int64_t tick)
{
	const struct sched *s = r->sim.sched;
	double origin = pp_time_to_units(r->first_arrival, tick);
	double end = pp_time_to_units(r->end, tick), *busy, *queue;

	m->window = r->config.window > 0 ? r->config.window : (end - origin) / 10;
	if (!(m->window > 0))
		m->window = 1;
	m->nwindows = (size_t)ceil((end - origin) / m->window);
	m->nwindows = m->nwindows > 0 ? m->nwindows : 1;
	m->windows = pp_xcalloc(m->nwindows, sizeof(*m->windows));
	busy = pp_xcalloc(m->nwindows * (size_t)m->devices, sizeof(*busy));
	queue = pp_xcalloc(m->nwindows, sizeof(*queue));
	for (int d = 0; d < m->devices; d++)
		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++)
			spread(m, origin, pp_time_to_units(r->result.times[i].start, tick),
			       pp_time_to_units(r->result.times[i].end, tick), 1,
			       busy + (size_t)d * m->nwindows);
	for (size_t i = 0; i < r->nqueue; i++) {
		double a = pp_time_to_units(r->queue[i].at, tick);
		double b = i + 1 < r->nqueue ? pp_time_to_units(r->queue[i + 1].at, tick) : end;
		size_t first = (size_t)((a - origin) / m->window), last = first;

		spread(m, origin, a, b, r->queue[i].waiting, queue);
		/* the queue's height counts in every window its step stands in */
		if (b > a)
			last = (size_t)((b - origin) / m->window) - (fmod(b - origin, m->window) == 0);
		for (size_t k = first; k <= last && k < m->nwindows; k++)
			if (r->queue[i].waiting > m->windows[k].queue_max)
				m->windows[k].queue_max = r->queue[i].waiting;
	}
	for (size_t k = 0; k < m->nwindows; k++) {
		struct serve_window *w = &m->windows[k];
		double all = 0;

		w->start = origin + (double)k * m->window;
		w->end = w->start + m->window < end || k + 1 < m->nwindows ? w->start + m->window
		                                                            : end;
		w->utilization = pp_xmallocarray((size_t)m->devices, sizeof(*w->utilization));
		for (int d = 0; d < m->devices; d++) {
			w->utilization[d] = busy[(size_t)d * m->nwindows + k] / (w->end - w->start);
			all += busy[(size_t)d * m->nwindows + k];
		}
		w->bubble_ratio = 1 - all / (m->devices * (w->end - w->start));
		w->queue_mean = queue[k] / (w->end - w->start);
	}
	for (size_t b = 0; b < r->nbatch; b++) {
		size_t kl = (size_t)((pp_time_to_units(r->batch[b].launch, tick) - origin) / m->window);
		size_t ke = (size_t)((pp_time_to_units(r->batch[b].exit, tick) - origin) / m->window);

		m->windows[kl < m->nwindows ? kl : m->nwindows - 1].batches++;
		m->windows[ke < m->nwindows ? ke : m->nwindows - 1].output_tokens +=
		        r->batch[b].produced;
	}
	free(busy);
	free(queue);
}

void serve_metrics_init(struct serve_metrics *m, const struct serve_run *r)
{
	int64_t tick = r->sim.cost->tick;
	double first = 0, last = 0, duration;

	memset(m, 0, sizeof(*m));
	m->devices = r->sim.sched->p;
	m->busy = pp_xcalloc((size_t)m->devices, sizeof(*m->busy));
	m->device_utilization = pp_xcalloc((size_t)m->devices, sizeof(*m->device_utilization));
	for (size_t b = 0; b < r->nbatch; b++) {
		double a = pp_time_to_units(r->batch[b].launch, tick);
		double e = pp_time_to_units(r->batch[b].exit, tick);

		first = b == 0 || a < first ? a : first;
		last = e > last ? e : last;
		m->prefill_only += r->batch[b].prefill_tokens == r->batch[b].tokens;
		m->decode_only += r->batch[b].prefill_tokens == 0;
		m->mean_seqs += r->batch[b].seqs / (double)r->nbatch;
		m->mean_tokens += r->batch[b].tokens / (double)r->nbatch;
	}
	m->batches = r->nbatch;
	m->mixed = m->batches - m->prefill_only - m->decode_only;
	m->span = last - first;
	m->makespan = pp_time_to_units(r->end - r->first_arrival, tick);
	for (int d = 0; d < m->devices; d++) {
		m->busy[d] = pp_time_to_units(r->result.devices[d].busy, tick);
		m->device_utilization[d] = m->span > 0 ? m->busy[d] / m->span : 0;
		m->utilization += m->span > 0 ? m->busy[d] / (m->span * m->devices) : 0;
	}
	m->bubble_ratio = 1 - m->utilization;
	latencies(m, r, tick);
	duration = m->makespan;
	if (duration > 0) {
		m->output_tokens_per_s = (double)r->output_tokens / duration * 1e3;
		m->prompt_tokens_per_s = (double)r->prompt_tokens / duration * 1e3;
		m->requests_per_s = (double)r->nreq / duration * 1e3;
	}
	for (size_t i = 0; i < r->nreq; i++)
		m->kv_waits += r->req[i].waited_for_kv;
	windows(m, r, tick);
}

void serve_metrics_release(struct serve_metrics *m)
{
	for (size_t k = 0; k < m->nwindows; k++)
		free(m->windows[k].utilization);
	free(m->windows);
	free(m->busy);
	free(m->device_utilization);
	memset(m, 0, sizeof(*m));
}
