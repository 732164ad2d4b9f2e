/*
 * The batching policies of a serving run: which requests are admitted to a pipeline (KV-cache
 * room reserved for a prompt and all its output) and what its next micro-batch holds, static
 * (a batch's prefill, then its decodes until all are done), continuous (waiting prefills first,
 * else decodes), chunked (decodes first, prompts in chunks filling a token budget) and
 * disaggregated (each of its two pipelines continuous). The event loop (serve.c) calls
 * serve_form when a pipeline may launch.
 */
#include <stdlib.h>
#include <string.h>

#include "serve_state.h"

/* KV tokens pipe p reserves for request r: the prompt in a prefill pipeline, else all. */
uint64_t serve_kv_need(const struct pipe *p, const struct rstate *r)
{
	return p->index == 1 ? r->prompt : (uint64_t)r->prompt + r->output;
}

/* Whether the KV cache of the request at the head of p's queue fits; notes when it does not. */
static bool fits(struct state *st, struct pipe *p)
{
	uint32_t q = fifo_front(&p->waiting);

	if (p->kv_cap - p->kv_used < serve_kv_need(p, &st->rs[q])) {
		st->run->req[q].waited_for_kv = true;
		return false;
	}
	return true;
}

/* Admits the request at the head of p's queue, which fits. */
static int admit(struct state *st, struct pipe *p, pp_time t)
{
	uint32_t q = fifo_front(&p->waiting);
	struct rstate *r = &st->rs[q];
	uint64_t need = serve_kv_need(p, r);

	p->waiting.head++;
	p->kv_used += need;
	if (p->kv_used > p->kv_peak)
		p->kv_peak = p->kv_used;
	r->admitted = true;
	if (list_add(&p->running, q, &st->err) != 0)
		return -1;
	if (p == serve_entry_pipe(st)) {
		st->run->req[q].admitted = t;
		return serve_queue_changed(st, t, -1);
	}
	return 0;
}

static void add_item(struct state *st, uint32_t q, uint32_t n, bool prefill)
{
	struct rstate *r = &st->rs[q];
	struct serve_item *it = &st->items[st->nitems++];

	it->req = q;
	it->n = n;
	it->prefill = prefill;
	it->context = prefill ? r->prefilled : r->prompt + r->generated - 1;
	/* a micro-batch that completes the prompt produces the first token */
	it->logits = !prefill || r->prefilled + n == r->prompt;
	r->busy = true;
}

/* Room left in the micro-batch being formed under a token budget. */
static bool room(const struct state *st, uint64_t tokens, uint64_t budget)
{
	return st->nitems < (size_t)st->c->max_batch && tokens < budget;
}

/* Adds one decode step of each ready decoding request of p, within the budget. */
static uint64_t add_decodes(struct state *st, struct pipe *p, uint64_t tokens, uint64_t budget)
{
	for (size_t i = p->running_head; i < p->running.n && room(st, tokens, budget); i++) {
		uint32_t q = p->running.v[i];
		struct rstate *r = &st->rs[q];

		if (!r->busy && !r->done && r->generated > 0) {
			add_item(st, q, 1, false);
			tokens++;
		}
	}
	return tokens;
}

/* Adds whole prompts from p's queue: each fits the budget, or is alone. */
static int add_prefills(struct state *st, struct pipe *p, pp_time t, uint64_t budget)
{
	uint64_t tokens = 0;

	while (fifo_len(&p->waiting) > 0 && st->nitems < (size_t)st->c->max_batch) {
		struct rstate *r = &st->rs[fifo_front(&p->waiting)];

		if (st->nitems > 0 && tokens + r->prompt > budget)
			break;
		if (!fits(st, p))
			break;
		if (admit(st, p, t) != 0)
			return -1;
		add_item(st, p->running.v[p->running.n - 1], r->prompt, true);
		tokens += r->prompt;
	}
	return 0;
}

/* Chunked: decodes first, then prompt chunks of running and newly admitted requests. */
static int form_chunked(struct state *st, struct pipe *p, pp_time t)
{
	uint64_t budget = (uint64_t)st->c->chunk_tokens;
	uint64_t tokens = add_decodes(st, p, 0, budget);

	for (size_t i = p->running_head; i < p->running.n && room(st, tokens, budget); i++) {
		uint32_t q = p->running.v[i];
		struct rstate *r = &st->rs[q];

		if (!r->busy && !r->done && r->prefilled < r->prompt) {
			uint64_t n = r->prompt - r->prefilled;

			n = n < budget - tokens ? n : budget - tokens;
			add_item(st, q, (uint32_t)n, true);
			tokens += n;
		}
	}
	while (fifo_len(&p->waiting) > 0 && room(st, tokens, budget) && fits(st, p)) {
		uint32_t q;
		uint64_t n;

		if (admit(st, p, t) != 0)
			return -1;
		q = p->running.v[p->running.n - 1];
		n = st->rs[q].prompt;
		n = n < budget - tokens ? n : budget - tokens;
		add_item(st, q, (uint32_t)n, true);
		tokens += n;
	}
	return 0;
}

/* Static: the next step of a live group none of whose requests is busy, or a new group. */
static int form_static(struct state *st, struct pipe *p, pp_time t)
{
	int free_slot = -1;

	for (int g = 0; g < p->limit; g++) {
		struct group *gr = &p->groups[g];
		bool ready = gr->live, all_done = true;

		for (size_t i = 0; i < gr->reqs.n && gr->live; i++) {
			ready = ready && !st->rs[gr->reqs.v[i]].busy;
			all_done = all_done && st->rs[gr->reqs.v[i]].done;
		}
		if (gr->live && all_done)
			gr->live = false;
		if (!gr->live) {
			free_slot = free_slot < 0 ? g : free_slot;
			continue;
		}
		if (!ready)
			continue;
		for (size_t i = 0; i < gr->reqs.n; i++) {
			struct rstate *r = &st->rs[gr->reqs.v[i]];

			if (!r->done)
				add_item(st, gr->reqs.v[i], 1, false);
		}
		return 0;
	}
	if (free_slot < 0)
		return 0;
	if (add_prefills(st, p, t, (uint64_t)st->c->max_tokens) != 0)
		return -1;
	if (st->nitems == 0)
		return 0;
	p->groups[free_slot].live = true;
	p->groups[free_slot].reqs.n = 0;
	for (size_t i = 0; i < st->nitems; i++) {
		if (list_add(&p->groups[free_slot].reqs, st->items[i].req, &st->err) != 0)
			return -1;
		st->rs[st->items[i].req].group = free_slot;
	}
	return 0;
}

/* Forms p's next micro-batch into st->items under its policy. */
int serve_form(struct state *st, struct pipe *p, pp_time t)
{
	st->nitems = 0;
	switch (st->c->batching) {
	case PP_BATCHING_STATIC:
		return form_static(st, p, t);
	case PP_BATCHING_CHUNKED:
		return form_chunked(st, p, t);
	case PP_BATCHING_CONTINUOUS:
	case PP_BATCHING_DISAGGREGATED:
		/* waiting prompts first (the prefill pipeline has nothing else), else decodes */
		if ((p->index == 1 || st->c->batching == PP_BATCHING_CONTINUOUS) &&
		    add_prefills(st, p, t, (uint64_t)st->c->max_tokens) != 0)
			return -1;
		if (st->nitems == 0 && p->index == 0)
			add_decodes(st, p, 0, (uint64_t)st->c->max_tokens);
		break;
	}
	return 0;
}

