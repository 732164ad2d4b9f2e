/*
 * Serving metrics: latencies per request (time to first token, time per output token after
 * it, end to end, queueing) as nearest-rank percentiles, throughput, how busy each device was
 * over the run and over fixed windows of time, and the queue of requests waiting for admission.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/serve.h"

#include "serve_internal.h"

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
	{
		/* about the least, in long double, divided once: equal values have their value as
		 * mean, and no mean passes the largest */
		long double dev = 0;

		for (size_t i = 0; i < n; i++)
			dev += (long double)x[i] - (long double)x[0];
		l.mean = (double)((long double)x[0] + dev / (long double)n);
		if (l.mean > x[n - 1])
			l.mean = x[n - 1];
		if (l.mean < x[0])
			l.mean = x[0];
	}
	l.p50 = rank(x, n, 50);
	l.p90 = rank(x, n, 90);
	l.p99 = rank(x, n, 99);
	l.max = x[n - 1];
	return l;
}

/* The four latencies of every request that has them. Returns 0, or -1 with err. */
static int latencies(struct serve_metrics *m, const struct serve_run *r, int64_t tick,
                     struct pp_error *err)
{
	double *x = pp_mallocarray(r->nreq, sizeof(*x));
	size_t n;

	if (x == NULL)
		return pp_nomem(err, r->nreq, sizeof(*x));
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
	return 0;
}

/* The windows in ticks: they start at origin and are len long; the last ends at end when that
 * leaves it some length. */
struct grid {
	pp_time origin, len, end;
	size_t n;
};

/* The window holding time t (the last one for t at or after the end). */
static size_t window_of(const struct grid *g, pp_time t)
{
	size_t k = t <= g->origin ? 0 : (size_t)((t - g->origin) / g->len);

	return k < g->n ? k : g->n - 1;
}

/* Adds the part of [a, b) in each window to acc[window] (weighted by w), in ticks. */
static void spread(const struct grid *g, pp_time a, pp_time b, double w, double *acc)
{
	for (size_t k = window_of(g, a); b > a && k < g->n; k++) {
		pp_time lo = g->origin + (pp_time)k * g->len, hi = lo + g->len;
		pp_time x = a > lo ? a : lo, y = b < hi ? b : hi;

		if (y <= x)
			break;
		acc[k] += (double)(y - x) * w;
	}
}

/* Busy time of each device, queue and tokens in each window. Windows are laid in whole ticks
 * so that an event on a window's edge falls in the window it starts. Returns 0, or -1 with
 * err. */
static int windows(struct serve_metrics *m, const struct serve_run *r, int64_t tick,
                   struct pp_error *err)
{
	const struct sched *s = r->order;
	struct grid g = {r->first_arrival, 0, r->end, 0};
	double *busy, *queue;
	int rc = 0;
	pp_time span = r->end - r->first_arrival;

	/* by default a tenth of the span rounded up, so that ten windows cover it with no sliver
	 * left over */
	if (!(r->config.window > 0 && pp_time_from_units(r->config.window, tick, &g.len) &&
	      g.len > 0))
		g.len = span > 0 ? (span + 9) / 10 : 1;
	m->window = pp_time_to_units(g.len, tick);
	g.n = span > 0 ? (size_t)((span + g.len - 1) / g.len) : 1;
	if (g.n > SERVE_MAX_WINDOWS)
		return config_fail(
		        &r->config, "window", err,
		        "makes %zu windows of the run's %g time units, above the limit of "
		        "%d: use a window of at least %g",
		        g.n, pp_time_to_units(span, tick), SERVE_MAX_WINDOWS,
		        pp_time_to_units((span + SERVE_MAX_WINDOWS - 1) / SERVE_MAX_WINDOWS, tick));
	m->windows = pp_calloc(g.n, sizeof(*m->windows));
	if (m->windows == NULL)
		return pp_nomem(err, g.n, sizeof(*m->windows));
	m->nwindows = g.n;
	busy = pp_calloc(g.n * (size_t)m->devices, sizeof(*busy));
	queue = pp_calloc(g.n, sizeof(*queue));
	if (busy == NULL || queue == NULL) {
		free(busy);
		free(queue);
		return pp_nomem(err, g.n * (size_t)m->devices, sizeof(*busy));
	}
	for (int d = 0; d < m->devices; d++)
		for (size_t i = s->dev_start[d]; i < s->dev_start[d + 1]; i++)
			spread(&g, r->result.times[i].start, r->result.times[i].end, 1,
			       busy + (size_t)d * g.n);
	for (size_t i = 0; i < r->nqueue; i++) {
		pp_time a = r->queue[i].at, b = i + 1 < r->nqueue ? r->queue[i + 1].at : r->end;
		/* the queue's height counts in every window its step stands in */
		size_t last = b > a ? window_of(&g, b - 1) : window_of(&g, a);

		spread(&g, a, b, r->queue[i].waiting, queue);
		for (size_t k = window_of(&g, a); k <= last; k++)
			if (r->queue[i].waiting > m->windows[k].queue_max)
				m->windows[k].queue_max = r->queue[i].waiting;
	}
	for (size_t k = 0; k < g.n; k++) {
		struct serve_window *w = &m->windows[k];
		pp_time lo = g.origin + (pp_time)k * g.len, hi = lo + g.len;
		double len, all = 0;

		/* the last window ends with the run, unless that would leave it empty */
		if (k + 1 == g.n && g.end > lo && g.end < hi)
			hi = g.end;
		len = (double)(hi - lo);

		w->start = pp_time_to_units(lo, tick);
		w->end = pp_time_to_units(hi, tick);
		w->utilization = pp_mallocarray((size_t)m->devices, sizeof(*w->utilization));
		if (w->utilization == NULL) {
			rc = pp_nomem(err, (size_t)m->devices, sizeof(*w->utilization));
			break;
		}
		for (int d = 0; d < m->devices; d++) {
			w->utilization[d] = len > 0 ? busy[(size_t)d * g.n + k] / len : 0;
			all += busy[(size_t)d * g.n + k];
		}
		w->bubble_ratio = len > 0 ? 1 - all / (m->devices * len) : 0;
		w->queue_mean = len > 0 ? queue[k] / len : 0;
	}
	for (size_t b = 0; b < r->nbatch && rc == 0; b++) {
		m->windows[window_of(&g, r->batch[b].launch)].batches++;
		m->windows[window_of(&g, r->batch[b].exit)].output_tokens += r->batch[b].produced;
	}
	free(busy);
	free(queue);
	return rc;
}

void serve_headline(const struct serve_run *r, double *makespan, double *span, double *utilization)
{
	int64_t tick = r->tick;
	int devices = r->order->p;
	pp_time first = 0, last = 0;

	/* in ticks, converted once, as every other time (a difference of two converted times
	 * wrote 6933.647411999999 beside a makespan of 6933.647412) */
	for (size_t b = 0; b < r->nbatch; b++) {
		first = b == 0 || r->batch[b].launch < first ? r->batch[b].launch : first;
		last = r->batch[b].exit > last ? r->batch[b].exit : last;
	}
	*span = pp_time_to_units(last - first, tick);
	*makespan = pp_time_to_units(r->end - r->first_arrival, tick);
	*utilization = 0;
	for (int d = 0; d<devices && * span> 0; d++)
		*utilization +=
		        pp_time_to_units(r->result.devices[d].busy, tick) / (*span * devices);
}

int serve_metrics_init(struct serve_metrics *m, const struct serve_run *r, struct pp_error *err)
{
	int64_t tick = r->tick;
	double duration;

	memset(m, 0, sizeof(*m));
	m->devices = r->order->p;
	m->busy = pp_calloc((size_t)m->devices, sizeof(*m->busy));
	m->device_utilization = pp_calloc((size_t)m->devices, sizeof(*m->device_utilization));
	if (m->busy == NULL || m->device_utilization == NULL)
		return pp_nomem(err, (size_t)m->devices, 2 * sizeof(*m->busy));
	{
		/* whole counts summed exactly and divided once */
		uint64_t seqs = 0, tokens = 0;

		for (size_t b = 0; b < r->nbatch; b++) {
			m->prefill_only += r->batch[b].prefill_tokens == r->batch[b].tokens;
			m->decode_only += r->batch[b].prefill_tokens == 0;
			seqs += (uint64_t)r->batch[b].seqs;
			tokens += (uint64_t)r->batch[b].tokens;
		}
		if (r->nbatch > 0) {
			m->mean_seqs = (double)seqs / (double)r->nbatch;
			m->mean_tokens = (double)tokens / (double)r->nbatch;
		}
	}
	m->batches = r->nbatch;
	m->mixed = m->batches - m->prefill_only - m->decode_only;
	serve_headline(r, &m->makespan, &m->span, &m->utilization);
	for (int d = 0; d < m->devices; d++) {
		m->busy[d] = pp_time_to_units(r->result.devices[d].busy, tick);
		m->device_utilization[d] = m->span > 0 ? m->busy[d] / m->span : 0;
	}
	m->bubble_ratio = 1 - m->utilization;
	if (latencies(m, r, tick, err) != 0)
		return -1;
	duration = m->makespan;
	if (duration > 0) {
		m->output_tokens_per_s = (double)r->output_tokens / duration * 1e3;
		m->prompt_tokens_per_s = (double)r->prompt_tokens / duration * 1e3;
		m->requests_per_s = (double)r->nreq / duration * 1e3;
	}
	for (size_t i = 0; i < r->nreq; i++)
		m->kv_waits += r->req[i].waited_for_kv;
	return windows(m, r, tick, err);
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

bool serve_device_fits(const struct serve_device_memory *g)
{
	return g->weight_bytes + g->kv_peak_bytes <= g->capacity_bytes;
}
