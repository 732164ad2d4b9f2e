/*
 * The serving simulation: the event loop that runs one pipeline (two when disaggregated) under
 * a batching policy (serve_batch.c forms each micro-batch). Events are micro-batches leaving their last stage, KV caches arriving at the
 * decode pipeline, and requests arriving; they are taken in time order from the base layer's
 * event queue (exits, then KV arrivals, then arrivals, each kind its class there, then their
 * sequence), and after each time the pipelines launch what their policy forms while their first
 * stage is free and fewer than `inflight` micro-batches are in them. A launched micro-batch runs
 * through the stages in order: a stage starts it when the stage is free and the previous
 * stage's message has arrived, and every stage and link serves micro-batches first come, first
 * served. KV-cache room is reserved when a request is admitted, for its prompt and all its
 * output (no preemption), and freed when it finishes.
 */
#include "ppsim/serve.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/evq.h"
#include "cost/cost_internal.h"
#include "serve_internal.h"
#include "serve_state.h"

/* Queues an event of this kind at time at about id (a micro-batch or a request). */
static int push(struct state *st, pp_time at, enum event_kind kind, uint32_t id)
{
	return evq_push(&st->events, at, (unsigned)kind, (uint8_t)kind, id, &st->err);
}

/* Records the number of requests waiting for admission from time t on. */
int serve_queue_changed(struct state *st, pp_time t, int delta)
{
	struct serve_run *r = st->run;

	st->waiting_total = (uint32_t)((int64_t)st->waiting_total + delta);
	if (r->nqueue > 0 && r->queue[r->nqueue - 1].at == t) {
		r->queue[r->nqueue - 1].waiting = st->waiting_total;
		return 0;
	}
	if (pp_grow((void **)&r->queue, &st->cap_queue, r->nqueue + 1, sizeof(*r->queue),
	            &st->err) != 0)
		return -1;
	r->queue[r->nqueue++] = (struct serve_queue_point){t, st->waiting_total};
	return 0;
}

/* The pipeline that admits arriving requests: the prefill pipeline when disaggregated. */
struct pipe *serve_entry_pipe(struct state *st)
{
	return &st->pipes[st->npipes - 1];
}

static int arrive(struct state *st, uint32_t req, pp_time t)
{
	st->run->req[req].arrival = t;
	if (list_add(&serve_entry_pipe(st)->waiting.items, req, &st->err) != 0)
		return -1;
	return serve_queue_changed(st, t, +1);
}

/* Records an op of device; its micro-batch is implied by its place: its pipeline's next one. */
static int record_op(struct state *st, int device, pp_time start, pp_time end)
{
	size_t *n = &st->nops[device];

	if (pp_grow((void **)&st->ops[device], &st->capops[device], *n + 1, sizeof(**st->ops),
	            &st->err) != 0)
		return -1;
	st->ops[device][(*n)++] = (struct opt){start, end};
	return 0;
}

/* Counts a message of bytes that device sends from start to end, and keeps it when asked. */
static int record_msg(struct state *st, int device, uint64_t bytes, pp_time start, pp_time end)
{
	st->dev_sent[device]++;
	st->sent_bytes[device] += bytes;
	st->sent_busy[device] += end - start;
	if (!st->record_msgs)
		return 0;
	if (pp_grow((void **)&st->msgs, &st->capmsgs, st->nmsgs + 1, sizeof(*st->msgs), &st->err) !=
	    0)
		return -1;
	/* its sender and micro-batch are implied by its place */
	st->msgs[st->nmsgs++] = (struct msg){start, end};
	return 0;
}

/* Fails the run with a simulation error; returns -1. */
static int fail(struct state *st, const char *what)
{
	return pp_fail(&st->err, PP_ERR_SIM, "%s", what);
}

/* Makes room for micro-batch k (the next one, on p) and keeps its items until it leaves. */
static int keep_items(struct state *st, struct pipe *p, size_t k)
{
	struct serve_run *r = st->run;
	struct kept *kp;

	if (pp_grow((void **)&r->batch, &st->cap_batch, k + 1, sizeof(*r->batch), &st->err) != 0)
		return -1;
	kp = &p->ring[(p->ring_head + (size_t)p->inflight) % (size_t)p->limit];
	kp->items = pp_mallocarray(st->nitems, sizeof(*kp->items));
	if (kp->items == NULL)
		return pp_nomem(&st->err, st->nitems, sizeof(*kp->items));
	memcpy(kp->items, st->items, st->nitems * sizeof(*st->items));
	kp->n = (uint32_t)st->nitems;
	kp->batch = (uint32_t)k;
	return 0;
}

/* Runs the formed micro-batch through p's stages from time t. */
static int launch(struct state *st, struct pipe *p, pp_time t)
{
	struct serve_run *r = st->run;
	size_t k = r->nbatch;
	struct serve_batch *b;
	uint64_t tokens = 0, prefill = 0;
	pp_time ready = t, limit = (pp_time)(PP_TIME_MAX_UNITS * (double)p->pr.tick);

	if (st->total_ops + (uint64_t)p->stages > st->max_steps) {
		char why[200];

		snprintf(why, sizeof(why),
		         "the run needs more than %" PRIu64 " stage steps (micro-batches x stages: "
		         "--max-ops, or what its outputs can hold); serve fewer requests",
		         st->max_steps);
		return fail(st, why);
	}
	st->total_ops += (uint64_t)p->stages;
	if (keep_items(st, p, k) != 0)
		return -1;
	for (size_t i = 0; i < st->nitems; i++) {
		tokens += st->items[i].n;
		prefill += st->items[i].prefill ? st->items[i].n : 0;
	}
	b = &r->batch[r->nbatch++];
	*b = (struct serve_batch){.pipeline = (unsigned)p->index & 1,
	                          .seqs = (unsigned)st->nitems,
	                          .tokens = (uint32_t)tokens,
	                          .prefill_tokens = (uint32_t)prefill,
	                          .launch = t};
	for (size_t i = 0; i < st->nitems; i++)
		b->produced += st->items[i].logits;
	for (int s = 0; s < p->stages; s++) {
		pp_time start = ready > p->stage_free[s] ? ready : p->stage_free[s];
		pp_time d = serve_stage_time(&p->pr, s, st->items, st->nitems);
		pp_time end = start + d;

		if (d < 0)
			return fail(st, "a micro-batch takes longer than 1e9 time units");
		if (end > limit)
			return fail(st,
			            "the run goes on past 1e9 time units, the longest a "
			            "simulation holds (arrivals must leave time to serve them)");
		if (record_op(st, p->device0 + s, start, end) != 0)
			return -1;
		p->stage_free[s] = end;
		ready = end;
		if (s + 1 < p->stages) {
			pp_time ms = end > p->chan_free[s] ? end : p->chan_free[s];
			pp_time me = ms + serve_hop_time(&p->pr, s, tokens);

			if (record_msg(st, p->device0 + s, serve_hop_bytes(&p->pr, tokens), ms,
			               me) != 0)
				return -1;
			p->chan_free[s] = me;
			ready = me;
			if (st->c->comm == PP_COMM_BLOCKING)
				p->stage_free[s] = me;
		}
	}
	b->exit = ready;
	p->inflight++;
	p->launched++;
	return push(st, ready, EV_EXIT, (uint32_t)k);
}

/* A request produced its last token at t. */
static int finish(struct state *st, struct pipe *p, uint32_t q, pp_time t)
{
	struct rstate *r = &st->rs[q];

	r->done = true;
	p->running_done++;
	st->run->req[q].finish = t;
	p->kv_used -= serve_kv_need(p, r);
	st->finished++;
	if (st->progress != NULL && st->finished % SERVE_PROGRESS_EVERY == 0)
		st->progress->fn(st->progress->ctx, st->finished, st->w->n);
	/* closed loop: the client sends its next request */
	if (st->w->concurrency > 0 && st->sent < st->w->n)
		return push(st, t, EV_ARRIVE, (uint32_t)st->sent++);
	return 0;
}

/* Micro-batch k left its pipeline's last stage at t. */
static int batch_leaves(struct state *st, uint32_t k, pp_time t)
{
	struct pipe *p = &st->pipes[st->run->batch[k].pipeline];
	struct kept *kp = &p->ring[p->ring_head];

	if (p->inflight == 0 || kp->batch != k)
		return fail(st, "internal error: micro-batches left their pipeline out of order");
	p->inflight--;
	p->ring_head = (p->ring_head + 1) % (size_t)p->limit;
	for (uint32_t i = 0; i < kp->n; i++) {
		const struct serve_item *it = &kp->items[i];
		struct rstate *r = &st->rs[it->req];

		r->busy = false;
		if (it->prefill)
			r->prefilled += it->n;
		if (!it->logits)
			continue;
		if (r->generated++ == 0)
			st->run->req[it->req].first_token = t;
		if (r->generated == r->output) {
			if (finish(st, p, it->req, t) != 0)
				return -1;
		} else if (p->index == 1) {
			/* the prompt is done: off to the decode pipeline's queue */
			r->done = true;
			p->running_done++;
			if (list_add(&st->pipes[0].waiting.items, it->req, &st->err) != 0)
				return -1;
		}
	}
	free(kp->items);
	*kp = (struct kept){NULL, 0, 0};
	return 0;
}

/* Disaggregated: sends the KV caches the decode pipeline has room for. */
static int send_kv(struct state *st, pp_time t)
{
	struct pipe *dec = &st->pipes[0], *pre = &st->pipes[1];

	while (fifo_len(&dec->waiting) > 0) {
		uint32_t q = fifo_front(&dec->waiting);
		struct rstate *r = &st->rs[q];
		pp_time start, d;

		if (dec->kv_cap - dec->kv_used < serve_kv_need(dec, r)) {
			/* it waits for the decode side's room: a wait for KV-cache room too */
			st->run->req[q].waited_for_kv = true;
			break;
		}
		dec->waiting.head++;
		dec->kv_used += serve_kv_need(dec, r);
		if (dec->kv_used > dec->kv_peak)
			dec->kv_peak = dec->kv_used;
		start = t > st->kv_chan_free ? t : st->kv_chan_free;
		d = serve_kv_transfer_time(&pre->pr, st->c, r->prompt);
		st->kv_chan_free = start + d;
		st->run->kv_transfers++;
		st->run->kv_transfer_time += d;
		if (push(st, start + d, EV_KV_ARRIVE, q) != 0)
			return -1;
	}
	return 0;
}

/* A KV cache reached the decode pipeline: the request decodes there from now on. */
static int kv_arrive(struct state *st, uint32_t q)
{
	struct rstate *r = &st->rs[q];

	st->pipes[1].kv_used -= r->prompt;
	r->done = false;
	return list_add(&st->pipes[0].running, q, &st->err);
}

/*
 * Keeps p's running list short to scan: the scans start past its leading finished requests
 * (which finish roughly in admission order), and the finished requests are dropped (keeping the
 * order) once they are at least half of the list, so that each pass removes as many entries as
 * it keeps. Both cost O(1) per request over the run.
 */
static void compact(struct state *st, struct pipe *p)
{
	size_t j = 0;

	while (p->running_head < p->running.n && st->rs[p->running.v[p->running_head]].done)
		p->running_head++;
	if (p->running_done <= 64 || 2 * p->running_done < p->running.n)
		return;
	for (size_t i = p->running_head; i < p->running.n; i++)
		if (!st->rs[p->running.v[i]].done)
			p->running.v[j++] = p->running.v[i];
	p->running.n = j;
	p->running_done = 0;
	p->running_head = 0;
}

/* Launches what each pipeline can at t. */
static int launch_all(struct state *st, pp_time t)
{
	for (int i = 0; i < st->npipes; i++) {
		struct pipe *p = &st->pipes[i];

		compact(st, p);
		while (p->inflight < p->limit && p->stage_free[0] <= t) {
			if (serve_form(st, p, t) != 0)
				return -1;
			if (st->nitems == 0)
				break;
			if (launch(st, p, t) != 0)
				return -1;
		}
	}
	return 0;
}

/* The earliest time after t at which a pipeline's first stage frees while it has room. */
static pp_time next_free(const struct state *st, pp_time t)
{
	pp_time best = -1;

	for (int i = 0; i < st->npipes; i++) {
		const struct pipe *p = &st->pipes[i];

		if (p->inflight < p->limit && p->stage_free[0] > t &&
		    (best < 0 || p->stage_free[0] < best))
			best = p->stage_free[0];
	}
	return best;
}

/* The simulation loop. Returns 0, or -1 with st->err. */
static int simulate(struct state *st)
{
	const struct serve_workload *w = st->w;
	pp_time t = 0;

	if (w->concurrency > 0)
		for (; st->sent < w->n && st->sent < (size_t)w->concurrency; st->sent++)
			if (push(st, 0, EV_ARRIVE, (uint32_t)st->sent) != 0)
				return -1;
	while (st->finished < w->n) {
		const struct evq_event *first = evq_peek(&st->events);
		pp_time next = first != NULL ? first->time : -1, fr;

		if (w->concurrency == 0 && st->next_arrival < w->n) {
			pp_time a = st->run->req[st->next_arrival].arrival;

			next = next < 0 || a < next ? a : next;
		}
		fr = next_free(st, t);
		if (fr >= 0 && (next < 0 || fr < next))
			next = fr;
		if (next < 0)
			return fail(st, "no request can make progress (the KV cache is too small)");
		t = next > t ? next : t;
		while ((first = evq_peek(&st->events)) != NULL && first->time <= t) {
			struct evq_event e = evq_pop(&st->events);
			int rc = e.type == EV_EXIT        ? batch_leaves(st, e.arg, e.time)
			         : e.type == EV_KV_ARRIVE ? kv_arrive(st, e.arg)
			                                  : arrive(st, e.arg, e.time);

			if (rc != 0)
				return -1;
		}
		while (w->concurrency == 0 && st->next_arrival < w->n &&
		       st->run->req[st->next_arrival].arrival <= t) {
			if (arrive(st, (uint32_t)st->next_arrival,
			           st->run->req[st->next_arrival].arrival) != 0)
				return -1;
			st->next_arrival++;
		}
		if ((st->npipes == 2 && send_kv(st, t) != 0) || launch_all(st, t) != 0)
			return -1;
	}
	return 0;
}

/* The position of each micro-batch among its pipeline's, which is its place on each device;
 * NULL when out of memory. */
static size_t *ordinals(const struct serve_run *r)
{
	size_t *ord = pp_mallocarray(r->nbatch, sizeof(*ord)), n[2] = {0, 0};

	if (ord == NULL)
		return NULL;
	for (size_t k = 0; k < r->nbatch; k++)
		ord[k] = n[r->batch[k].pipeline]++;
	return ord;
}

/* Fills s's ops and the per-device, per-channel and per-message parts of r->result from the
 * records, freeing each record array once it is copied (so that the records and their copies
 * are not all in memory at once). Returns 0, or -1 with a PP_ERR_NOMEM error. */
static int build_result(struct state *st, struct sched *s, struct pp_error *err)
{
	struct serve_run *r = st->run;
	struct result *res = &r->result;
	size_t *ord = ordinals(r), n[2] = {0, 0}, i = 0;
	uint32_t *kth[2]; /* kth[P][j]: pipeline P's j-th micro-batch */

	for (size_t k = 0; k < r->nbatch; k++)
		n[r->batch[k].pipeline]++;
	kth[0] = pp_mallocarray(n[0] + 1, sizeof(**kth));
	kth[1] = pp_mallocarray(n[1] + 1, sizeof(**kth));
	res->p = s->p;
	res->times = pp_mallocarray(s->nops, sizeof(*res->times));
	res->devices = pp_calloc((size_t)s->p, sizeof(*res->devices));
	/* channels: one per link after a stage that carried a message, in (src, dst) order */
	res->channels = pp_calloc((size_t)s->p, sizeof(*res->channels));
	res->msgs = pp_mallocarray(st->nmsgs + 1, sizeof(*res->msgs));
	if (ord == NULL || kth[0] == NULL || kth[1] == NULL || res->times == NULL ||
	    res->devices == NULL || res->channels == NULL || res->msgs == NULL) {
		free(ord);
		free(kth[0]);
		free(kth[1]);
		return pp_nomem(err, s->nops + st->nmsgs, sizeof(*res->msgs));
	}
	for (size_t k = 0; k < r->nbatch; k++)
		kth[r->batch[k].pipeline][ord[k]] = (uint32_t)k;
	for (int d = 0; d < s->p; d++) {
		int pipe = st->npipes == 2 && d < st->pipes[0].device0 ? 1 : 0;

		for (size_t j = 0; j < st->nops[d]; j++) {
			const struct opt *o = &st->ops[d][j];
			struct device_result *dr = &res->devices[d];

			sched_push(s, d, OP_F, (int)kth[pipe][j], d);
			res->times[s->dev_start[d] + j] = (struct op_time){o->start, o->end};
			dr->busy += o->end - o->start;
			dr->first_start = j == 0 ? o->start : dr->first_start;
			dr->last_end = o->end > dr->last_end ? o->end : dr->last_end;
			res->makespan = o->end > res->makespan ? o->end : res->makespan;
		}
		free(st->ops[d]);
		st->ops[d] = NULL;
		st->capops[d] = 0;
	}
	/* a channel for each device that sent a message, in device order */
	for (int d = 0; d < s->p; d++)
		if (st->dev_sent[d] > 0)
			res->channels[res->nchannels++] = (struct channel_result){
			        d, d + 1, st->dev_sent[d], st->sent_bytes[d], st->sent_busy[d]};
	for (size_t k = 0; k < r->nbatch && i < st->nmsgs; k++) {
		const struct pipe *p = &st->pipes[r->batch[k].pipeline];

		for (int h = 0; h + 1 < p->stages && i < st->nmsgs; h++, i++) {
			const struct msg *m = &st->msgs[i];
			int d = p->device0 + h;

			res->msgs[res->nmsgs++] = (struct msg_record){
			        (uint32_t)(s->dev_start[d] + ord[k]),
			        (uint32_t)(s->dev_start[d + 1] + ord[k]), m->start, m->end};
		}
	}
	free(st->msgs);
	st->msgs = NULL;
	st->capmsgs = 0;
	for (int ch = 0; ch < res->nchannels; ch++) {
		res->messages += res->channels[ch].messages;
		res->bytes += res->channels[ch].bytes;
		res->msg_time += res->channels[ch].busy;
	}
	free(ord);
	free(kth[0]);
	free(kth[1]);
	return 0;
}

/* Builds what r's drawings show: its micro-batches' steps as an op order, one F per
 * micro-batch and stage, and their times. Returns 0, or -1 with a PP_ERR_NOMEM error (what it
 * built is r's, for serve_free). */
static int build_view(struct state *st, struct pp_error *err)
{
	struct serve_run *r = st->run;
	int devices = st->pipes[0].device0 + st->pipes[0].stages;
	struct sched *s;
	double span, utilization;

	s = sched_alloc_counts(devices, 1, r->nbatch > 0 ? (int)r->nbatch : 1, false, PLACE_LOOP,
	                       st->nops);
	if (s == NULL)
		return pp_nomem(err, 1, sizeof(*s));
	r->order = s;
	if (build_result(st, s, err) != 0)
		return -1;
	r->tick = PP_TICK_BASE;
	r->time_unit = config_has_model(st->c) ? "ms" : "t";
	/* the drawings start at the first arrival and print the serving report's figures */
	serve_headline(r, &r->frame.makespan, &span, &utilization);
	r->frame.origin = r->first_arrival;
	r->frame.bubble_ratio = 1 - utilization;
	return 0;
}

/* Sets up pipeline p with `stages` stages from device0. */
static int init_pipe(struct state *st, struct pipe *p, int index, int device0, int stages,
                     struct pp_error *err)
{
	p->index = index;
	p->device0 = device0;
	p->stages = stages;
	p->limit = st->c->inflight > 0 ? st->c->inflight : stages;
	p->stage_free = pp_calloc((size_t)stages, sizeof(*p->stage_free));
	p->chan_free = pp_calloc((size_t)stages, sizeof(*p->chan_free));
	p->groups = pp_calloc((size_t)p->limit, sizeof(*p->groups));
	p->ring = pp_calloc((size_t)p->limit, sizeof(*p->ring));
	if (p->stage_free == NULL || p->chan_free == NULL || p->groups == NULL || p->ring == NULL)
		return pp_nomem(err, (size_t)stages, 2 * sizeof(*p->stage_free));
	if (serve_pricer_init(&p->pr, st->c, stages, index == 0, err) != 0)
		return -1;
	/* the second pipeline is a disaggregated run's prefill one, of --prefill-stages */
	return serve_kv_capacity(&p->pr, st->c, index == 1 ? "prefill_stages" : "p", &p->kv_cap,
	                         err);
}

static void release_pipe(struct pipe *p)
{
	for (int i = 0; p->ring != NULL && i < p->limit; i++)
		free(p->ring[i].items);
	free(p->ring);
	serve_pricer_release(&p->pr);
	free(p->stage_free);
	free(p->chan_free);
	for (int g = 0; g < p->limit && p->groups != NULL; g++)
		free(p->groups[g].reqs.v);
	free(p->groups);
	free(p->waiting.items.v);
	free(p->running.v);
}

/* Checks that every request can fit each pipeline's KV cache; fills the request states. */
static int check_requests(struct state *st, struct pp_error *err)
{
	const struct serve_workload *w = st->w;

	for (size_t i = 0; i < w->n; i++) {
		struct rstate *r = &st->rs[i];

		r->prompt = w->req[i].prompt;
		r->output = w->req[i].output;
		r->group = -1;
		st->run->req[i].prompt = r->prompt;
		st->run->req[i].output = r->output;
		st->run->prompt_tokens += r->prompt;
		st->run->output_tokens += r->output;
		if (w->concurrency == 0 &&
		    !pp_time_from_units(w->req[i].arrival, PP_TICK_BASE, &st->run->req[i].arrival))
			return pp_fail(err, PP_ERR_USAGE,
			               "request %zu arrives after 1e9 time units", i + 1);
		for (int k = 0; k < st->npipes; k++) {
			const struct pipe *p = &st->pipes[k];

			if (serve_kv_need(p, r) > p->kv_cap)
				return pp_fail(
				        err, PP_ERR_USAGE,
				        "request %zu needs %llu KV-cache tokens (%s), more than "
				        "the %spipeline's cache holds: %llu (--kv-tokens, or GPU "
				        "memory)",
				        i + 1, (unsigned long long)serve_kv_need(p, r),
				        p->index == 1 ? "its prompt" : "its prompt and output",
				        p->index == 1 ? "prefill " : "",
				        (unsigned long long)p->kv_cap);
		}
	}
	return 0;
}

/* Allocates the state of a run on `devices` devices, its pipelines set up (`pre` prefill
 * stages when disaggregated). Returns 0, or -1 with err. */
static int setup(struct state *st, int devices, int pre, struct pp_error *err)
{
	const struct config *c = st->c;
	bool disagg = st->npipes == 2;

	st->rs = pp_calloc(st->w->n, sizeof(*st->rs));
	st->run->req = pp_calloc(st->w->n, sizeof(*st->run->req));
	st->items = pp_mallocarray((size_t)c->max_batch, sizeof(*st->items));
	st->ops = pp_calloc((size_t)devices, sizeof(*st->ops));
	st->dev_sent = pp_calloc((size_t)devices, sizeof(*st->dev_sent));
	st->sent_bytes = pp_calloc((size_t)devices, sizeof(*st->sent_bytes));
	st->sent_busy = pp_calloc((size_t)devices, sizeof(*st->sent_busy));
	st->nops = pp_calloc((size_t)devices, sizeof(*st->nops));
	st->capops = pp_calloc((size_t)devices, sizeof(*st->capops));
	if (st->rs == NULL || st->run->req == NULL || st->items == NULL || st->ops == NULL ||
	    st->nops == NULL || st->capops == NULL || st->dev_sent == NULL ||
	    st->sent_bytes == NULL || st->sent_busy == NULL)
		return pp_nomem(err, st->w->n, sizeof(*st->rs) + sizeof(*st->run->req));
	if (init_pipe(st, &st->pipes[0], 0, disagg ? pre : 0, c->p, err) != 0)
		return -1;
	return disagg ? init_pipe(st, &st->pipes[1], 1, 0, pre, err) : 0;
}

static void release_state(struct state *st)
{
	for (int i = 0; i < st->npipes; i++)
		release_pipe(&st->pipes[i]);
	for (int d = 0; st->ops != NULL && d < st->pipes[0].device0 + st->pipes[0].stages; d++)
		free(st->ops[d]);
	free(st->ops);
	free(st->nops);
	free(st->capops);
	free(st->dev_sent);
	free(st->sent_bytes);
	free(st->sent_busy);
	free(st->msgs);
	free(st->items);
	free(st->rs);
	evq_release(&st->events);
}

/* Runs the simulation of st, set up for `devices` devices (`pre` prefill stages when
 * disaggregated), and fills its run. Returns 0, or -1 with err. */
static int serve(struct state *st, int devices, int pre, struct pp_error *err)
{
	struct serve_run *r = st->run;

	if (setup(st, devices, pre, err) != 0 || check_requests(st, err) != 0)
		return -1;
	if (simulate(st) != 0) {
		*err = st->err;
		return -1;
	}
	for (int i = 0; i < st->npipes; i++) {
		struct pipe *p = &st->pipes[i];

		r->stages[p->index] = p->stages;
		r->inflight[p->index] = p->limit;
		r->kv_capacity[p->index] = p->kv_cap;
		r->kv_peak[p->index] = p->kv_peak;
	}
	r->memory = pp_calloc((size_t)devices, sizeof(*r->memory));
	if (r->memory == NULL)
		return pp_nomem(err, (size_t)devices, sizeof(*r->memory));
	for (int i = 0; i < st->npipes; i++)
		for (int s = 0; s < st->pipes[i].stages; s++)
			serve_device_memory(&st->pipes[i].pr, s, st->pipes[i].index,
			                    st->pipes[i].kv_peak,
			                    &r->memory[st->pipes[i].device0 + s]);
	for (size_t i = 0; i < r->nreq; i++) {
		r->end = r->req[i].finish > r->end ? r->req[i].finish : r->end;
		r->first_arrival = i == 0 || r->req[i].arrival < r->first_arrival
		                           ? r->req[i].arrival
		                           : r->first_arrival;
	}
	return build_view(st, err);
}

struct serve_run *serve_run(const struct config *c, const struct serve_workload *w,
                            struct pp_error *err)
{
	return serve_run_flags(c, w, SERVE_RECORD_MESSAGES, 0, err);
}

struct serve_run *serve_run_flags(const struct config *c, const struct serve_workload *w,
                                  unsigned flags, uint64_t max_steps, struct pp_error *err)
{
	return serve_run_progress(c, w, flags, max_steps, NULL, err);
}

struct serve_run *serve_run_progress(const struct config *c, const struct serve_workload *w,
                                     unsigned flags, uint64_t max_steps,
                                     const struct serve_progress *progress, struct pp_error *err)
{
	struct state st;
	struct serve_run *r;
	bool disagg = c->batching == PP_BATCHING_DISAGGREGATED;
	int pre = c->prefill_stages > 0 ? c->prefill_stages : c->p, rc;

	if (config_validate_serve(c, err) != 0)
		return NULL;
	if (w->n == 0) {
		pp_fail(err, PP_ERR_USAGE, "no requests to serve");
		return NULL;
	}
	{
		/* each output token is a step of its request in some micro-batch: the work */
		uint64_t steps = 0, budget = SERVE_STEP_FACTOR * c->max_ops;

		for (size_t i = 0; i < w->n; i++)
			steps += (uint64_t)w->req[i].output;
		if (steps > budget) {
			pp_fail(err, PP_ERR_USAGE,
			        "the requests ask for %" PRIu64
			        " output tokens, above the limit of %" PRIu64
			        " (%d times --max-ops): each is a step to simulate; serve fewer or "
			        "shorter requests, or raise --max-ops",
			        steps, budget, (int)SERVE_STEP_FACTOR);
			return NULL;
		}
	}
	r = pp_zalloc(1, sizeof(*r), err);
	if (r == NULL)
		return NULL;
	memset(&st, 0, sizeof(st));
	evq_init(&st.events);
	r->config = *c;
	r->nreq = w->n;
	st.c = &r->config;
	st.w = w;
	st.record_msgs = (flags & SERVE_RECORD_MESSAGES) != 0;
	st.progress = progress;
	st.max_steps = max_steps > 0 && max_steps < c->max_ops ? max_steps : c->max_ops;
	st.run = r;
	st.npipes = disagg ? 2 : 1;
	rc = serve(&st, (disagg ? pre : 0) + c->p, pre, err);
	release_state(&st);
	if (rc != 0) {
		serve_free(r);
		return NULL;
	}
	return r;
}

uint64_t serve_step_bytes(const struct config *c, bool record)
{
	bool disagg = c->batching == PP_BATCHING_DISAGGREGATED;
	int pre = c->prefill_stages > 0 ? c->prefill_stages : c->p;
	/* a micro-batch takes the stages of its pipeline: the fewest share its records most */
	uint64_t least = (uint64_t)(disagg && pre < c->p ? pre : c->p);
	/* a step's op and op time in the view; a micro-batch's record twice over, as the array
	 * that grows to hold it is copied (measured: 24 bytes a step and 61 a micro-batch) */
	uint64_t step = sizeof(struct op) + sizeof(struct op_time);
	uint64_t batch = 2 * sizeof(struct serve_batch);
	/* a micro-batch sends a message after each of its stages but the last: at most one a
	 * step, recorded as it runs and then in the view (measured: 35 bytes) */
	uint64_t msg = sizeof(struct msg) + sizeof(struct msg_record);

	return step + (batch + least - 1) / least + (record ? msg : 0);
}

struct drawing serve_drawing(const struct serve_run *r)
{
	return (struct drawing){
	        .sched = r->order,
	        .result = &r->result,
	        .tick = r->tick,
	        .time_unit = r->time_unit,
	        .duplex = PP_DUPLEX_FULL,
	        .schedule = config_batching_name(r->config.batching),
	        .schedule_file = "",
	        .trace_names = r->config.trace_names,
	        .svg_width = r->config.svg_width,
	        .jobs = r->config.jobs,
	        .frame = r->frame,
	};
}

void serve_free(struct serve_run *r)
{
	if (r == NULL)
		return;
	sched_free(r->order);
	free(r->result.times);
	free(r->result.devices);
	free(r->result.channels);
	free(r->result.msgs);
	free(r->memory);
	free(r->req);
	free(r->batch);
	free(r->queue);
	free(r);
}
