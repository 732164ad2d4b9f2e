/* What the serving modules share; private to the library. */
#ifndef PPSIM_SERVE_INTERNAL_H
#define PPSIM_SERVE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ppsim/config.h"
#include "ppsim/cost.h"
#include "ppsim/serve.h"
#include "ppsim/util.h"

/* One sequence's share of a micro-batch. */
struct serve_item {
	uint32_t req;     /* the request */
	uint32_t n;       /* new tokens: a prompt chunk, or 1 to decode */
	uint32_t context; /* tokens already in its KV cache */
	bool prefill;     /* n are prompt tokens */
	bool logits;      /* the micro-batch produces a token for it (runs the LM head) */
};

/* The prices of one pipeline. */
struct serve_pricer {
	int stages;            /* its stages */
	int64_t tick;          /* ticks per time unit */
	bool model;            /* priced from the model in cost */
	struct cost *cost;     /* with a model: the resolved model and hops (NULL otherwise) */
	double *scale;         /* [stages] explicit: op-time factor of each stage */
	double *kv_token;      /* [stages] with a model: KV-cache bytes of one token on a GPU */
	double *weight_bytes;  /* [stages] with a model: all weights on a GPU of the stage */
	double layer_params;   /* with a model: a layer's parameters on one GPU: over tp, and
	                          the key/value projections of a replicated head whole */
	double step, token, attn, tcomm; /* explicit: the config's times */
};

/*
 * Sets up the prices of a pipeline of `stages` stages from config c (explicit, or a model laid
 * out over those stages; layers_per_stage and the first/last stage overrides apply only when
 * honour_layers). Returns 0, or -1 with err.
 */
int serve_pricer_init(struct serve_pricer *pr, const struct config *c, int stages,
                      bool honour_layers, struct pp_error *err);
void serve_pricer_release(struct serve_pricer *pr);

/* Time of a micro-batch of items[0..n-1] on stage s, in ticks, or -1 when out of range. */
pp_time serve_stage_time(const struct serve_pricer *pr, int s, const struct serve_item *items,
                         size_t n);

/* Time of the message after stage s carrying `tokens` tokens' activations, in ticks. */
pp_time serve_hop_time(const struct serve_pricer *pr, int s, uint64_t tokens);

/* Bytes of that message (0 without a model). */
uint64_t serve_hop_bytes(const struct serve_pricer *pr, uint64_t tokens);

/* Time to send the KV cache of `tokens` prompt tokens from prefill pipeline pr over the link
 * of c (disaggregated), in ticks: each stage sends its layers' share in parallel. */
pp_time serve_kv_transfer_time(const struct serve_pricer *pr, const struct config *c,
                               uint64_t tokens);

/* Fills m with the memory of a GPU of stage st of pipeline index whose peak of reserved KV
 * tokens was peak; all 0 without a model. */
void serve_device_memory(const struct serve_pricer *pr, int st, int index, uint64_t peak,
                         struct serve_device_memory *m);

/*
 * KV-cache capacity of the pipeline in tokens: c->kv_tokens when set; with a model what the
 * fullest stage's GPU memory holds after its weights and --memory-reserve; else UINT64_MAX.
 * Returns 0, or -1 with err when the weights alone do not fit, blaming tp when given, else
 * stages_key (the config key of the pipeline's stages: "p", or "prefill_stages").
 */
int serve_kv_capacity(const struct serve_pricer *pr, const struct config *c,
                      const char *stages_key, uint64_t *tokens, struct pp_error *err);

/*
 * The serving report's headline figures of run r, in time units: *makespan from the first
 * arrival to the last token, *span from the first launch to the last exit, and *utilization,
 * the devices' busy time over devices x span (0 when the span is empty).
 */
void serve_headline(const struct serve_run *r, double *makespan, double *span,
                    double *utilization);

#endif
