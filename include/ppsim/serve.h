/*
 * Serving: an inference pipeline fed by requests (`ppsim serve`). A request arrives with a
 * prompt and asks for a number of output tokens; a batching policy groups the work of ready
 * requests into micro-batches (prompt tokens to prefill, one token per decoding request); each
 * micro-batch runs through the pipeline's stages in order, stage after stage, and up to
 * `inflight` micro-batches are in the pipeline at once. A request's next step can start only
 * when its previous micro-batch has left the last stage, which produced its token. Bubbles come
 * from uneven micro-batches, bursts and too few requests, not from a backward pass.
 *
 * Flow: config -> workload (a trace file or a seeded generator) -> serve_run (the batching
 * policy and the pipeline simulation, priced by explicit per-token costs or by the model on its
 * GPU) -> serve_metrics -> reporters. The drawings (the timeline, the traces, the SVG, the HTML
 * page) draw it from what serve_drawing gives them (sim.h's struct drawing): its micro-batches'
 * steps as an op order, one forward op per micro-batch and stage; no training step is built.
 *
 * Ownership: serve_workload and serve_run own their arrays; free them with serve_workload_free
 * and serve_free.
 */
#ifndef PPSIM_SERVE_H
#define PPSIM_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ppsim/config.h"
#include "ppsim/engine.h"
#include "ppsim/sim.h"
#include "ppsim/util.h"

/* Most requests a workload may hold. */
#define SERVE_MAX_REQUESTS PP_MAX_REQUESTS

/* A run's requests may ask for at most this many times --max-ops output tokens: each is a step
 * of its request in a micro-batch, the work of the simulation. */
#define SERVE_STEP_FACTOR UINT64_C(4)

/* Most metric windows (--window) a run is cut into: each costs the reports a row. */
#define SERVE_MAX_WINDOWS 100000

/* One request. Times are in the run's time unit (milliseconds with a model). */
struct serve_request {
	double arrival;  /* when it arrives; < 0 for a closed-loop request (sent on an answer) */
	uint32_t prompt; /* prompt tokens, >= 1 */
	uint32_t output; /* output tokens to generate, >= 1 (the prefill makes the first) */
};

/* The requests of a run. */
struct serve_workload {
	struct serve_request *req; /* [n], arrivals non-decreasing (closed loop: all < 0) */
	size_t n;
	int concurrency; /* closed loop: clients, each sending its next request on an answer; 0 */
};

/*
 * Reads a request trace: JSON lines (one object per line with the numbers "arrival", "prompt"
 * and "output") or CSV (a header naming the columns arrival, prompt and output, in any order,
 * then one row per request). Blank lines and lines starting with # are skipped. Arrivals must
 * be >= 0 and non-decreasing, token counts whole numbers from 1 to PP_MAX_COUNT. Returns 0, or
 * -1 with err: PP_ERR_IO when the file cannot be read, else PP_ERR_CONFIG with the message
 * starting "requests 'PATH':LINE:COLUMN: ".
 */
int serve_workload_read(const char *path, struct serve_workload *w, struct pp_error *err);
/* serve_workload_read of the open stream f, named path in messages. */
int serve_workload_read_stream(FILE *f, const char *path, struct serve_workload *w,
                               struct pp_error *err);

/*
 * Generates the config's requests (num_requests of them) with its seed: arrivals by
 * c->arrival at c->rate per 1000 time units (poisson: exponential gaps; bursty: bursts of
 * c->burst requests at once, the bursts Poisson at rate / burst; closed: c->concurrency
 * clients), prompt and output lengths from c->prompt and c->output. The random numbers are
 * xoshiro256** seeded through splitmix64, drawn per request in the order arrival gap (per burst
 * when bursty), prompt, output, so that a seed gives the same requests on every machine.
 * Returns 0, or pp_nomem's -1 with w empty.
 */
int serve_workload_generate(const struct config *c, struct serve_workload *w, struct pp_error *err);

/* Frees the requests; the struct itself belongs to the caller. */
void serve_workload_free(struct serve_workload *w);

/* What happened to one request; times in ticks of the run (cost->tick per time unit). */
struct serve_request_result {
	pp_time arrival;     /* when it arrived */
	pp_time admitted;    /* when its first micro-batch was launched (its KV reserved) */
	pp_time first_token; /* when the micro-batch finishing its prefill left the last stage */
	pp_time finish;      /* when its last token was produced */
	uint32_t prompt, output;
	bool waited_for_kv; /* its admission waited for KV-cache room at least once */
};

/* One micro-batch. */
struct serve_batch {
	unsigned pipeline : 1;   /* 0: the pipeline (decode, when disaggregated); 1: prefill */
	unsigned seqs : 31;      /* sequences in it (at most --max-batch, below 2^24) */
	uint32_t tokens;         /* new tokens in it */
	uint32_t prefill_tokens; /* of them, prompt tokens */
	uint32_t produced;       /* output tokens it produced (a prompt's last chunk makes one) */
	pp_time launch;          /* when its first stage started */
	pp_time exit;            /* when it left its last stage */
};

/* A change of the number of requests waiting for admission. */
struct serve_queue_point {
	pp_time at;
	uint32_t waiting;
};

/* Which pipeline a serving device is in and, with a model (else 0), what one of its GPUs holds. */
struct serve_device_memory {
	int pipeline;          /* 0: the pipeline (decode, when disaggregated); 1: prefill */
	double capacity_bytes; /* the GPU's memory less --memory-reserve */
	double weight_bytes;   /* its stage's weights */
	double kv_token_bytes; /* KV-cache bytes of one token of its stage's layers */
	double kv_peak_bytes;  /* KV cache at its pipeline's peak of reserved tokens */
};

/* Whether a GPU of device memory g holds its weights and its KV cache at the peak (a
 * --kv-tokens given beyond its memory can make it hold more than it has). */
bool serve_device_fits(const struct serve_device_memory *g);

/*
 * A finished serving simulation. order and result are what its drawings show (serve_drawing):
 * one device per stage (the prefill pipeline's first when disaggregated), one F op per
 * micro-batch and stage (micro-batch numbers in launch order), their times and messages.
 */
struct serve_run {
	struct config config;    /* the settings it ran with */
	struct sched *order;     /* the micro-batches' steps as an op order (ops of kind F) */
	struct result result;    /* their times, per device and per link, and messages */
	int64_t tick;            /* ticks a time unit */
	const char *time_unit;   /* "ms" with a model, else "t" */
	struct sim_frame frame;  /* from the first arrival, with the serving report's figures */
	int stages[2];           /* stages of the pipeline and of the prefill pipeline (0) */
	int inflight[2];         /* micro-batches in flight allowed in each */
	uint64_t kv_capacity[2]; /* KV-cache tokens each holds; UINT64_MAX: unlimited */
	uint64_t kv_peak[2];     /* most KV tokens reserved at once */
	struct serve_device_memory *memory; /* [order->p] each device's GPU memory */
	struct serve_request_result *req;   /* [nreq] in workload order */
	size_t nreq;
	struct serve_batch *batch; /* [nbatch] in launch order */
	size_t nbatch;
	struct serve_queue_point *queue; /* [nqueue] change points, in time order */
	size_t nqueue;
	pp_time first_arrival;  /* of all requests */
	pp_time end;            /* when the last request finished */
	uint64_t prompt_tokens; /* over all requests */
	uint64_t output_tokens;
	uint64_t kv_transfers;    /* disaggregated: KV caches sent */
	pp_time kv_transfer_time; /* and the sum of their times */
};

/*
 * Runs the serving config c on workload w: validates c (config_validate_serve), prices the
 * micro-batches (explicit step, token and attention times, or the model on its GPU: the larger
 * of compute and memory time, plus tensor-parallel all-reduces), and simulates the policy.
 * Returns the run, or NULL with err: PP_ERR_USAGE for invalid settings or a request that can
 * never fit the KV cache, PP_ERR_SIM when the run would exceed the op limit, PP_ERR_NOMEM when
 * memory runs out.
 */
struct serve_run *serve_run(const struct config *c, const struct serve_workload *w,
                            struct pp_error *err);

/* Keep every message in the run's result (result.msgs, for a trace or a drawing); without it
 * the channels still count them, and the run holds a third less memory. */
#define SERVE_RECORD_MESSAGES 1u

/* serve_run with flags, and at most max_steps stage steps when that is below c's --max-ops (0:
 * --max-ops alone; a caller's tighter budget, such as what a picture's file holds, which
 * leaves the output-token budget of --max-ops as it is); serve_run is serve_run_flags(c, w,
 * SERVE_RECORD_MESSAGES, 0, err). */
struct serve_run *serve_run_flags(const struct config *c, const struct serve_workload *w,
                                  unsigned flags, uint64_t max_steps, struct pp_error *err);

/* Told how a serving run goes: fn(ctx, done, total) now and then with the requests finished
 * (every SERVE_PROGRESS_EVERY) and the total; it only watches. */
struct serve_progress {
	void (*fn)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
};
#define SERVE_PROGRESS_EVERY 4096

/* serve_run_flags that reports its progress to progress (NULL: to no one). */
struct serve_run *serve_run_progress(const struct config *c, const struct serve_workload *w,
                                     unsigned flags, uint64_t max_steps,
                                     const struct serve_progress *progress, struct pp_error *err);

/*
 * A serving run of c from its settings alone: checks them (config_validate_serve), reads the
 * request trace c names (c->requests) or generates c's requests, and runs serve_run_progress
 * with flags, max_steps and progress, which is first told of the requests' total (done 0).
 * Returns the run, or NULL with the error of the check, the trace or the run.
 */
struct serve_run *serve_run_config(const struct config *c, unsigned flags, uint64_t max_steps,
                                   const struct serve_progress *progress, struct pp_error *err);

/*
 * The most memory a serving run of c holds per stage step (a micro-batch on a stage: what
 * max_steps counts), with its messages when record: the view's op and op time, its share of
 * its micro-batch's record (a micro-batch takes the fewest stages of a pipeline of c), and a
 * message's two records when kept (24, 64 / stages and 40 bytes). The requests' few hundred
 * bytes each are not counted.
 */
uint64_t serve_step_bytes(const struct config *c, bool record);

/* Frees r and everything it owns; NULL is a no-op. */
void serve_free(struct serve_run *r);

/* What r's drawings read of it (sim.h's struct drawing, borrowed from r: valid while r is): one
 * device per stage, one F op per micro-batch and stage in launch order, their times from the
 * first arrival, no activation counters; the batching policy names the order. */
struct drawing serve_drawing(const struct serve_run *r);

/* Percentiles of a latency: nearest rank over the requests that have it. */
struct serve_latency {
	size_t n;    /* requests it is measured on */
	double mean; /* in time units */
	double p50, p90, p99, max;
};

/* Figures over one window of time. */
struct serve_window {
	double start, end;   /* in time units */
	double bubble_ratio; /* 1 - busy / (devices x length), over every device */
	double *utilization; /* [devices] busy / length on each device */
	double queue_mean;   /* requests waiting for admission, time-weighted */
	uint32_t queue_max;
	uint64_t output_tokens; /* tokens produced in it */
	uint64_t batches;       /* micro-batches launched in it */
};

/* The figures of a serving run; times in time units. */
struct serve_metrics {
	int devices;
	double span;                /* first launch to the last micro-batch's exit */
	double makespan;            /* first arrival to the last request's last token */
	double bubble_ratio;        /* 1 - sum(busy) / (devices x span) */
	double utilization;         /* 1 - bubble_ratio */
	double *busy;               /* [devices] */
	double *device_utilization; /* [devices] busy / span */
	struct serve_latency ttft, tpot, e2e, queue_wait;
	double output_tokens_per_s; /* per 1000 time units without a model */
	double prompt_tokens_per_s;
	double requests_per_s;
	uint64_t batches, prefill_only, decode_only, mixed; /* micro-batches by content */
	double mean_seqs, mean_tokens;                      /* per micro-batch */
	size_t kv_waits;              /* requests whose admission waited for KV room */
	double window;                /* length of each window */
	struct serve_window *windows; /* [nwindows] from the first arrival to the end */
	size_t nwindows;
};

/*
 * Computes the metrics of run r into m, with windows of r->config.window (0: a tenth of the
 * time from the first arrival to the end, rounded up to a whole tick, so that ten windows cover
 * it); the last window ends with the run and none is empty. Returns 0, or -1 with a
 * PP_ERR_NOMEM error; either way free m with serve_metrics_release.
 */
int serve_metrics_init(struct serve_metrics *m, const struct serve_run *r, struct pp_error *err);
void serve_metrics_release(struct serve_metrics *m);

#endif
