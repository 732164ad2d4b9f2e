/*
 * Configuration: the option table, defaults, value parsing and whole-config validation. Each
 * row of the table is the whole truth about its option: its names and value kind, the field it
 * sets, the commands that take it, the way of pricing it belongs to, and for name options the
 * names it takes. Parsing, formatting, the checks that refuse an option where it does not
 * apply (config_check_command, the pricing and flag checks of the validators), --help and
 * completion all read those columns, so no side list of option keys says what an option is for;
 * what remains keyed by option are rules on values (burst only with --arrival=bursty).
 */
#include "ppsim/config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "config_noise.h"
#include "ppsim/preset.h"
#include "ppsim/sched.h"

#define FIELD(f) offsetof(struct config, f)

/* The names of the enum fields, by value (the enums in config.h). */
static const char *const comms[] = {"overlap", "blocking", NULL};
static const char *const duplexes[] = {"full", "half", NULL};
static const char *const mlps[] = {"preset", "gated", "plain", NULL};
static const char *const recomputes[] = {"none", "full", "selective", NULL};
static const char *const tp_overlaps[] = {"default", "none", "bulk", "pipelined", NULL};
static const char *const cp_comms[] = {"ring", "allgather", NULL};
static const char *const ep_dispatches[] = {"alltoall", "deepep", NULL};
static const char *const attention_kernels[] = {"default", "best", "fa2", NULL};
static const char *const arrivals[] = {"poisson", "bursty", "closed", NULL};
static const char *const batchings[] = {"static", "continuous", "chunked", "disaggregated", NULL};
static const char *const dists[] = {"fixed", "uniform", "lognormal", NULL};
static const char *const trace_names[] = {"ppsim", "torch", NULL};

/* A choice is stored through an int: the enums must have its size. */
_Static_assert(sizeof(enum pp_comm) == sizeof(int) && sizeof(enum pp_duplex) == sizeof(int) &&
                       sizeof(enum pp_mlp) == sizeof(int) &&
                       sizeof(enum pp_recompute) == sizeof(int) &&
                       sizeof(enum pp_tp_overlap) == sizeof(int) &&
                       sizeof(enum pp_cp_comm) == sizeof(int) &&
                       sizeof(enum pp_ep_dispatch) == sizeof(int) &&
                       sizeof(enum pp_attention_kernel) == sizeof(int) &&
                       sizeof(enum pp_arrival) == sizeof(int) &&
                       sizeof(enum pp_batching) == sizeof(int) &&
                       sizeof(enum pp_trace_names) == sizeof(int),
               "enum fields are set as int");

static int set_schedule(struct config *c, const struct config_option *opt, const char *label,
                        const char *value, struct pp_error *err);
static int set_dist(struct config *c, const struct config_option *opt, const char *label,
                    const char *value, struct pp_error *err);
static void format_dist(const struct config *c, const struct config_option *opt, char *buf,
                        size_t n);

static const struct config_option options[] = {
        {"svg-width", 0, "svg_width", CONFIG_ARG_COUNT, "PX",
         "run, compare, serve, replay: width of the --svg drawing in pixels (default: room for "
         "labels)",
         FIELD(svg_width), .commands = CONFIG_RUN | CONFIG_COMPARE | CONFIG_SERVE | CONFIG_REPLAY,
         .flags = CONFIG_ZERO_AUTO, .min = PP_SVG_MIN_WIDTH, .max = PP_SVG_MAX_WIDTH},
        {"trace-names", 0, "trace_names", CONFIG_ARG_NAME, "NAMES",
         "run, replay: name the --trace slices ppsim (F3, default) or torch (PP:2F3, PyTorch's "
         "profiler ranges)",
         FIELD(trace_names), .commands = CONFIG_RUN | CONFIG_COMPARE | CONFIG_REPLAY, .values = trace_names},
        {"schedule", 's', "schedule", CONFIG_ARG_NAME, "NAME",
         "schedule (default 1f1b; any case, and PyTorch's names: ppsim list):", FIELD(schedule),
         .commands = CONFIG_TRAINING | CONFIG_REPLAY, .flags = CONFIG_SHAPES_ORDER, .parse = set_schedule,
         .section = "Schedule and shape:"},
        {"schedule-file", 0, "schedule_file", CONFIG_ARG_PATH, "FILE",
         "simulate the op order in FILE (ppsim or PyTorch CSV) instead of a generator",
         FIELD(schedule_file), .commands = CONFIG_TRAINING},
        {"stages", 'p', "p", CONFIG_ARG_COUNT, "N", "pipeline devices (ranks) p (default 4)",
         FIELD(p), .commands = CONFIG_ALL, .max = PP_MAX_DEVICES},
        {"microbatches", 'm', "m", CONFIG_ARG_COUNT, "N", "micro-batches per step m (default 8)",
         FIELD(m), .commands = CONFIG_TRAINING | CONFIG_REPLAY},
        {"chunks", 'v', "v", CONFIG_ARG_COUNT, "N", "model chunks per device v (default 1)",
         FIELD(v), .commands = CONFIG_TRAINING | CONFIG_REPLAY},
        {"group-size", 0, "group_size", CONFIG_ARG_COUNT, "N",
         "interleaved, interleaved-combined: micro-batches per group g (default p where p "
         "divides m)",
         FIELD(group_size), .commands = CONFIG_TRAINING | CONFIG_REPLAY, .flags = CONFIG_SHAPES_ORDER},
        {"max-ops", 0, "max_ops", CONFIG_ARG_BYTES, "N",
         "most ops a simulation may hold, to fail fast (default 50000000)", FIELD(max_ops),
         .commands = CONFIG_ALL | CONFIG_REPLAY, .bytes_min = 1, .bytes_max = (int64_t)PP_MAX_OPS_CEILING},
        {"tf", 0, "t_f", CONFIG_ARG_TIME, "T",
         "forward time of one micro-batch on one device (default 1)", FIELD(t_f),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_EXPLICIT,
         .section = "Explicit costs (abstract time units):"},
        {"tb", 0, "t_b", CONFIG_ARG_TIME, "T", "input-gradient backward time (default 1)",
         FIELD(t_b), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_EXPLICIT},
        {"tw", 0, "t_w", CONFIG_ARG_TIME, "T",
         "weight-gradient backward time; fused backward costs tb+tw (default 1)", FIELD(t_w),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_EXPLICIT},
        {"tcomm", 0, "t_comm", CONFIG_ARG_TIME, "T",
         "time of one point-to-point message (default 0)", FIELD(t_comm), .commands = CONFIG_ALL | CONFIG_REPLAY,
         .price = CONFIG_PRICE_EXPLICIT},
        {"msg-bytes", 0, "msg_bytes", CONFIG_ARG_BYTES, "N",
         "bytes of one point-to-point message (default 0)", FIELD(msg_bytes),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_EXPLICIT},
        {"link", 0, "link", CONFIG_ARG_NAME, "NAME",
         "link inside a node (see 'ppsim list'); times become milliseconds", FIELD(link),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_LINK, .preset = "link",
         .section = "Links, communication, memory and stage scaling (both kinds of costs):"},
        {"bandwidth", 0, "bandwidth", CONFIG_ARG_RATE, "GBPS",
         "link bandwidth per direction in GB/s; times become milliseconds", FIELD(bandwidth),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_LINK},
        {"latency", 0, "latency", CONFIG_ARG_TIME, "US",
         "link latency per message in microseconds (default 0, or the link's)", FIELD(latency),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_LINK},
        {"comm", 0, "comm", CONFIG_ARG_NAME, "MODE",
         "overlap (copy engine, default) or blocking (sender waits for its send)", FIELD(comm),
         .commands = CONFIG_ALL | CONFIG_REPLAY, .values = comms},
        {"duplex", 0, "duplex", CONFIG_ARG_NAME, "MODE",
         "full (default: each direction has its own channel) or half", FIELD(duplex),
         .commands = CONFIG_TRAINING | CONFIG_REPLAY, .values = duplexes},
        {"w-mem-fraction", 0, "w_mem_fraction", CONFIG_ARG_SHARE, "F",
         "share of activations W still needs after B, split backward (default 0.5)",
         FIELD(w_mem_fraction), .commands = CONFIG_TRAINING | CONFIG_REPLAY},
        {"stage-scale", 0, "stage_scale", CONFIG_ARG_SCALES, "LIST",
         "op-time factors per device (p numbers) or per virtual stage (p*v), e.g. 1,1,1,1.5",
         FIELD(stage_scale), .commands = CONFIG_ALL},
        {"mem-limit", 0, "mem_limit", CONFIG_ARG_RATE, "N",
         "zb-auto, zbv-auto: activations a device may hold, in micro-batches (default p)",
         FIELD(mem_limit), .commands = CONFIG_TRAINING | CONFIG_REPLAY, .flags = CONFIG_SHAPES_ORDER},
        {"overlap-factor", 0, "overlap_factor", CONFIG_ARG_RATE, "X",
         "an overlapped F&B pair (interleaved-combined, dualpipev) lasts X x (F + B) "
         "(default: from its ops' pieces run together with a model, else 1: no gain)",
         FIELD(overlap_factor), .commands = CONFIG_TRAINING | CONFIG_REPLAY},
        {"model", 0, "model", CONFIG_ARG_NAME, "NAME",
         "price ops from a model preset (see 'ppsim list'); times in ms", FIELD(model),
         .commands = CONFIG_ALL, .preset = "model",
         .section = "Costs from a model on a GPU (milliseconds):"},
        {"layers", 0, "layers", CONFIG_ARG_COUNT, "N", "model: transformer layers", FIELD(layers),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"hidden", 0, "hidden", CONFIG_ARG_COUNT, "N", "model: hidden size", FIELD(hidden),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"ffn", 0, "ffn", CONFIG_ARG_COUNT, "N", "model: MLP intermediate size", FIELD(ffn),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"heads", 0, "heads", CONFIG_ARG_COUNT, "N", "model: attention heads", FIELD(heads),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"kv-heads", 0, "kv_heads", CONFIG_ARG_COUNT, "N", "model: key/value heads",
         FIELD(kv_heads), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"vocab", 0, "vocab", CONFIG_ARG_COUNT, "N", "model: vocabulary size", FIELD(vocab),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"mlp", 0, "mlp", CONFIG_ARG_NAME, "KIND",
         "model: gated (SwiGLU, three matrices) or plain (GELU, two)", FIELD(mlp),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL, .values = mlps, .offered = 1},
        {"tied-embeddings", 0, "tied_embeddings", CONFIG_ARG_BOOL, "BOOL",
         "model: embedding and LM head share weights", FIELD(tied), .commands = CONFIG_ALL,
         .price = CONFIG_PRICE_MODEL},
        {"head-dim", 0, "head_dim", CONFIG_ARG_COUNT, "N",
         "model: size of an attention head (default: the preset's, else hidden / heads)",
         FIELD(head_dim), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"v-head-dim", 0, "v_head_dim", CONFIG_ARG_COUNT, "N",
         "model: size of a value head (default: the preset's, else --head-dim)",
         FIELD(v_head_dim), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"q-lora-rank", 0, "q_lora_rank", CONFIG_ARG_COUNT, "N",
         "model: latent attention's query rank; 0: queries projected in one matrix",
         FIELD(q_lora_rank), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_ZERO_OK},
        {"kv-lora-rank", 0, "kv_lora_rank", CONFIG_ARG_COUNT, "N",
         "model: latent attention's key/value rank; 0: standard attention",
         FIELD(kv_lora_rank), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_ZERO_OK},
        {"rope-dim", 0, "rope_dim", CONFIG_ARG_COUNT, "N",
         "model: of --head-dim, the rotary part latent attention's keys share",
         FIELD(rope_dim), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_ZERO_OK},
        {"mtp-layers", 0, "mtp_layers", CONFIG_ARG_COUNT, "N",
         "model: multi-token-prediction layers after the last (on the last stage)",
         FIELD(mtp_layers), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_ZERO_OK},
        {"experts", 0, "experts", CONFIG_ARG_COUNT, "N",
         "model: routed experts of each mixture-of-experts layer; 0: a dense model",
         FIELD(experts), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_ZERO_OK},
        {"top-k", 0, "top_k", CONFIG_ARG_COUNT, "N", "model: experts each token is routed to",
         FIELD(top_k), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"expert-ffn", 0, "expert_ffn", CONFIG_ARG_COUNT, "N",
         "model: one expert's MLP intermediate size", FIELD(expert_ffn), .commands = CONFIG_ALL,
         .price = CONFIG_PRICE_MODEL},
        {"shared-experts", 0, "shared_experts", CONFIG_ARG_COUNT, "N",
         "model: experts every token runs beside its routed ones", FIELD(shared_experts),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL, .flags = CONFIG_ZERO_OK},
        {"dense-layers", 0, "dense_layers", CONFIG_ARG_COUNT, "N",
         "model: leading layers with a dense MLP (of --ffn) before the expert layers",
         FIELD(dense_layers), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_ZERO_OK},
        {"gpu", 0, "gpu", CONFIG_ARG_NAME, "NAME", "GPU preset (see 'ppsim list')", FIELD(gpu),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL, .preset = "gpu"},
        {"tflops", 0, "tflops", CONFIG_ARG_RATE, "X", "GPU peak dense bf16 TFLOP/s", FIELD(tflops),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"gpu-memory", 0, "gpu_memory", CONFIG_ARG_RATE, "GB", "GPU memory in GB",
         FIELD(gpu_memory), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"memory-reserve", 0, "memory_reserve", CONFIG_ARG_TIME, "GB",
         "GB of each GPU kept free for the CUDA context, NCCL, fragmentation (default 3 + 10%)",
         FIELD(memory_reserve), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"memory-bandwidth", 0, "memory_bandwidth", CONFIG_ARG_RATE, "GBPS",
         "GPU memory bandwidth in GB/s (default: the GPU's)", FIELD(memory_bandwidth),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"sms", 0, "sms", CONFIG_ARG_COUNT, "N",
         "streaming multiprocessors, which GEMM tiles fill in waves (default: the GPU's)",
         FIELD(sms), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"gemm-efficiency", 0, "gemm_efficiency", CONFIG_ARG_SHARE, "F",
         "share of peak a large GEMM achieves (default: the GPU's)", FIELD(gemm_efficiency),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"sustained-share", 0, "sustained_share", CONFIG_ARG_SHARE, "F",
         "share of the GEMM and attention rates a training step sustains, at the clock its "
         "power limit holds (default: the GPU's)",
         FIELD(sustained_share), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"fp8-tflops", 0, "fp8_tflops", CONFIG_ARG_RATE, "X",
         "GPU peak dense fp8 TFLOP/s, for --fp8 (default: the GPU's)", FIELD(fp8_tflops),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"fp8-gemm-efficiency", 0, "fp8_gemm_efficiency", CONFIG_ARG_SHARE, "F",
         "share of the fp8 peak a large fp8 GEMM achieves (default: the GPU's)",
         FIELD(fp8_gemm_efficiency), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"attention-efficiency", 0, "attention_efficiency", CONFIG_ARG_SHARE, "F",
         "share of peak flash attention's forward achieves (default: the GPU's)",
         FIELD(attention_efficiency), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"attention-bwd-efficiency", 0, "attention_bwd_efficiency", CONFIG_ARG_SHARE, "F",
         "share of peak flash attention's backward achieves (default: the GPU's)",
         FIELD(attention_bwd_efficiency), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"memory-efficiency", 0, "memory_efficiency", CONFIG_ARG_SHARE, "F",
         "share of memory bandwidth norms, activations, the loss achieve (default: the GPU's)",
         FIELD(memory_efficiency), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"kernel-overhead", 0, "kernel_overhead", CONFIG_ARG_TIME, "US",
         "fixed launch and tail time of every kernel, microseconds (default: the GPU's)",
         FIELD(kernel_overhead), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"efficiency", 0, "efficiency", CONFIG_ARG_SHARE, "F",
         "one share of peak for every op instead of pricing each kernel (default 0: per kernel)",
         FIELD(efficiency), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"inter-link", 0, "inter_link", CONFIG_ARG_NAME, "NAME",
         "link between nodes (default: the GPU's)", FIELD(inter_link), .commands = CONFIG_ALL,
         .price = CONFIG_PRICE_MODEL, .preset = "link"},
        {"inter-bandwidth", 0, "inter_bandwidth", CONFIG_ARG_RATE, "GBPS",
         "inter-node bandwidth per direction in GB/s", FIELD(inter_bandwidth),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"inter-latency", 0, "inter_latency", CONFIG_ARG_TIME, "US",
         "inter-node latency per message in microseconds", FIELD(inter_latency),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"p2p-overhead", 0, "p2p_overhead", CONFIG_ARG_TIME, "US",
         "fixed time of a pipeline message beyond the link's latency, microseconds (default 234)",
         FIELD(p2p_overhead), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"p2p-efficiency", 0, "p2p_efficiency", CONFIG_ARG_SHARE, "F",
         "share of the inside-node bandwidth a pipeline message gets (default 0.24)",
         FIELD(p2p_efficiency), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"seq", 0, "seq", CONFIG_ARG_COUNT, "N", "sequence length (default 2048)", FIELD(seq),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"mbs", 0, "mbs", CONFIG_ARG_COUNT, "N", "micro-batch size in sequences (default 1)",
         FIELD(mbs), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"tp", 0, "tp", CONFIG_ARG_COUNT, "N", "tensor-parallel degree, inside a node (default 1)",
         FIELD(tp), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"dp", 0, "dp", CONFIG_ARG_COUNT, "N", "data-parallel degree (default 1)", FIELD(dp),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"gpus", 0, "gpus", CONFIG_ARG_COUNT, "N", "total GPUs; sets dp = gpus / (p * tp)",
         FIELD(gpus), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"gpus-per-node", 0, "gpus_per_node", CONFIG_ARG_COUNT, "N", "GPUs per node (default 8)",
         FIELD(gpus_per_node), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"global-batch", 0, "global_batch", CONFIG_ARG_COUNT, "N",
         "sequences per step over all replicas; sets m = global batch / (mbs * dp)",
         FIELD(global_batch), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"attention-kernel", 0, "attention_kernel", CONFIG_ARG_NAME, "KIND",
         "flash attention's kernels: best (the GPU's) or fa2 (FlashAttention-2, PyTorch "
         "SDPA's) (default: the framework's, else best)",
         FIELD(attention_kernel), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL,
         .values = attention_kernels, .offered = 1},
        {"flash-attention", 0, "flash_attention", CONFIG_ARG_BOOL, "BOOL",
         "attention scores are not stored (default yes)", FIELD(flash_attention),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"sequence-parallel", 0, "sequence_parallel", CONFIG_ARG_BOOL, "BOOL",
         "with --tp, norms and dropouts split over the tp ranks (default yes)",
         FIELD(sequence_parallel), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"fp8", 0, "fp8", CONFIG_ARG_BOOL, "BOOL",
         "the layers' linear GEMMs in fp8 as Transformer Engine runs them (default no)",
         FIELD(fp8), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"unfused-attention-bytes", 0, "unfused_attention_bytes", CONFIG_ARG_TIME, "B",
         "without flash attention: extra forward bytes per attention score (default 15)",
         FIELD(unfused_attention_bytes), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"recompute", 0, "recompute", CONFIG_ARG_NAME, "MODE",
         "activation recomputation: none (default), full or selective", FIELD(recompute),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL, .values = recomputes},
        {"distributed-optimizer", 0, "distributed_optimizer", CONFIG_ARG_BOOL, "BOOL",
         "shard optimizer state over dp (default: the framework's, else no)",
         FIELD(distributed_optimizer), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"framework", 0, "framework", CONFIG_ARG_NAME, "NAME",
         "megatron, nemo, deepspeed or torchtitan: what that runtime does by default (overlaps, "
         "sends, flash attention)",
         FIELD(framework), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .preset = "framework",
         .section = "Parallelism and communication beside the pipeline (with a model):"},
        {"cp", 0, "cp", CONFIG_ARG_COUNT, "N",
         "context-parallel degree: the sequence split over N GPUs (default 1)", FIELD(cp),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"ep", 0, "ep", CONFIG_ARG_COUNT, "N",
         "expert-parallel degree: each GPU holds experts / N of every expert layer (default 1)",
         FIELD(ep), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"ep-dispatch", 0, "ep_dispatch", CONFIG_ARG_NAME, "KIND",
         "how tokens reach their experts: alltoall (default) or deepep (once a node, then "
         "inside it)",
         FIELD(ep_dispatch), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .values = ep_dispatches},
        {"ep-node-limit", 0, "ep_node_limit", CONFIG_ARG_COUNT, "N",
         "node-limited routing: a token's experts on at most N nodes (default: any)",
         FIELD(ep_node_limit), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"dispatch-bytes", 0, "dispatch_bytes", CONFIG_ARG_COUNT, "N",
         "bytes of an element the dispatch all-to-all sends, 1 for FP8 (default: the "
         "activations')",
         FIELD(dispatch_bytes), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_ZERO_AUTO, .max = 8},
        {"expert-imbalance", 0, "expert_imbalance", CONFIG_ARG_RATE, "F",
         "the busiest expert-parallel rank's routed tokens over the mean, at least 1 (default 1)",
         FIELD(expert_imbalance), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"cp-comm", 0, "cp_comm", CONFIG_ARG_NAME, "KIND",
         "context parallelism's key/value exchange: ring (default) or allgather", FIELD(cp_comm),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL, .values = cp_comms},
        {"tp-overlap", 0, "tp_overlap", CONFIG_ARG_NAME, "MODE",
         "tensor-parallel collectives: none, bulk (backward's beside its GEMMs) or pipelined "
         "(default: the framework's, else none)",
         FIELD(tp_overlap), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .values = tp_overlaps, .offered = 1},
        {"overlap-grad-reduce", 0, "overlap_grad_reduce", CONFIG_ARG_BOOL, "BOOL",
         "reduce gradient buckets during the last backward (default: the framework's, else no)",
         FIELD(overlap_grad_reduce), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"overlap-param-gather", 0, "overlap_param_gather", CONFIG_ARG_BOOL, "BOOL",
         "distributed optimizer: gather parameters during the first forwards (default: the "
         "framework's, else no)",
         FIELD(overlap_param_gather), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"bucket-size", 0, "bucket_size", CONFIG_ARG_RATE, "N",
         "parameters in a gradient bucket (default max(40M, 1M x dp), Megatron's)",
         FIELD(bucket_size), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"comm-slowdown", 0, "comm_slowdown", CONFIG_ARG_TIME, "F",
         "compute takes 1 + F as long beside a collective, which takes SMs (default 0.15)",
         FIELD(comm_slowdown), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"collective-efficiency", 0, "collective_efficiency", CONFIG_ARG_SHARE, "F",
         "share of a link's bandwidth collectives reach (default 0.8)",
         FIELD(collective_efficiency), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"grad-reduce-bytes", 0, "grad_reduce_bytes", CONFIG_ARG_COUNT, "N",
         "bytes of a gradient element the data-parallel reduction sends (default 4: fp32)",
         FIELD(grad_reduce_bytes), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .max = 8},
        {"optimizer-bytes", 0, "optimizer_bytes", CONFIG_ARG_TIME, "B",
         "bytes the optimizer step reads and writes per parameter it updates (default 38)",
         FIELD(optimizer_bytes), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"step-overhead", 0, "step_overhead", CONFIG_ARG_TIME, "MS",
         "ms a step spends outside the schedule: flush, synchronisation, launches (default 0)",
         FIELD(step_overhead), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"bytes-per-param", 0, "bytes_per_param", CONFIG_ARG_RATE, "N",
         "weights + gradients + optimizer bytes per parameter (default 16)", FIELD(bytes_per_param),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"dtype-bytes", 0, "dtype_bytes", CONFIG_ARG_COUNT, "N",
         "bytes per activation element (default 2, bf16)", FIELD(dtype_bytes),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"layers-per-stage", 0, "layers_per_stage", CONFIG_ARG_LIST, "LIST",
         "layers of each virtual stage, comma-separated", FIELD(layers_per_stage),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"first-stage-layers", 0, "first_stage_layers", CONFIG_ARG_COUNT, "N",
         "layers on the first stage; the rest split evenly", FIELD(first_stage_layers),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"last-stage-layers", 0, "last_stage_layers", CONFIG_ARG_COUNT, "N",
         "layers on the last stage; the rest split evenly", FIELD(last_stage_layers),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"samples", 0, "samples", CONFIG_ARG_BYTES, "N",
         "also run N samples of the step with --jitter, --link-jitter and --stalls drawn "
         "(default 0: the deterministic run alone)",
         FIELD(samples), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN, .bytes_max = 10000000,
         .section = "Noise: samples of a step with varying op times, stragglers:"},
        {"seed", 0, "seed", CONFIG_ARG_BYTES, "N",
         "seed of the noise samples and of serve's request generator (default 1)", FIELD(seed),
         .commands = CONFIG_ALL & ~CONFIG_BREAKEVEN, .flags = CONFIG_GENERATES},
        {"jitter", 0, "jitter", CONFIG_ARG_NAME, "RULES",
         "op times in samples: [KINDS[@STAGE]=]DIST, DIST normal:CV, lognormal:CV or "
         "empirical:FILE, e.g. lognormal:0.05,B@3=normal:0.1 (default none)",
         FIELD(jitter), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN,
         .parse = config_set_jitter, .format = config_format_jitter, .flags = CONFIG_WHOLE},
        {"link-jitter", 0, "link_jitter", CONFIG_ARG_NAME, "DIST",
         "message times in samples: normal:CV, lognormal:CV or empirical:FILE (default none)",
         FIELD(link_jitter), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN,
         .parse = config_set_jitter, .format = config_format_jitter, .flags = CONFIG_WHOLE},
        {"straggler", 0, "stragglers", CONFIG_ARG_NAME, "LIST",
         "slow devices DEV:FACTOR[@TIME] and links DEV-DEV:FACTOR[@TIME], in every run "
         "(default none)",
         FIELD(stragglers), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN,
         .parse = config_set_stragglers, .format = config_format_stragglers, .flags = CONFIG_WHOLE},
        {"stalls", 0, "stalls", CONFIG_ARG_NAME, "EVERY:LENGTH",
         "transient stalls in samples: one per EVERY time units a device runs on average, "
         "LENGTH long (default none)",
         FIELD(stall_every), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN,
         .parse = config_set_stalls, .format = config_format_stalls, .flags = CONFIG_WHOLE},
        {"requests", 0, "requests", CONFIG_ARG_PATH, "FILE",
         "request trace, JSON lines or CSV of arrival, prompt, output (default: generated)",
         FIELD(requests), .commands = CONFIG_SERVING,
         .section = "Serving (ppsim serve): requests, batching, costs, metrics:"},
        {"arrival", 0, "arrival", CONFIG_ARG_NAME, "KIND",
         "generated arrivals: poisson (default), bursty or closed", FIELD(arrival),
         .commands = CONFIG_SERVING, .flags = CONFIG_GENERATES, .values = arrivals},
        {"rate", 0, "rate", CONFIG_ARG_RATE, "R",
         "requests per second (per 1000 time units without a model) (default 10)", FIELD(rate),
         .commands = CONFIG_SERVING, .flags = CONFIG_GENERATES},
        {"num-requests", 0, "num_requests", CONFIG_ARG_COUNT, "N",
         "requests to generate (default 100)", FIELD(num_requests), .commands = CONFIG_SERVING,
         .flags = CONFIG_GENERATES},
        {"burst", 0, "burst", CONFIG_ARG_COUNT, "N",
         "bursty: requests arriving together (default 8)", FIELD(burst), .commands = CONFIG_SERVING,
         .flags = CONFIG_GENERATES},
        {"concurrency", 0, "concurrency", CONFIG_ARG_COUNT, "N",
         "closed: clients, each with one request outstanding (default 8)", FIELD(concurrency),
         .commands = CONFIG_SERVING, .flags = CONFIG_GENERATES},
        {"prompt", 0, "prompt", CONFIG_ARG_NAME, "DIST",
         "prompt tokens: fixed:N, uniform:A:B or lognormal:MU:SIGMA (default fixed:512)",
         FIELD(prompt), .commands = CONFIG_SERVING, .flags = CONFIG_GENERATES, .parse = set_dist,
         .format = format_dist},
        {"output", 0, "output", CONFIG_ARG_NAME, "DIST",
         "output tokens, like --prompt (default fixed:128)", FIELD(output),
         .commands = CONFIG_SERVING, .flags = CONFIG_GENERATES, .parse = set_dist,
         .format = format_dist},
        {"batching", 0, "batching", CONFIG_ARG_NAME, "POLICY",
         "static, continuous (default), chunked or disaggregated", FIELD(batching),
         .commands = CONFIG_SERVING, .values = batchings},
        {"max-batch", 0, "max_batch", CONFIG_ARG_COUNT, "N",
         "sequences in a micro-batch (default 256)", FIELD(max_batch), .commands = CONFIG_SERVING},
        {"max-tokens", 0, "max_tokens", CONFIG_ARG_COUNT, "N",
         "new tokens in a micro-batch, static and continuous (default 8192)", FIELD(max_tokens),
         .commands = CONFIG_SERVING},
        {"chunk-tokens", 0, "chunk_tokens", CONFIG_ARG_COUNT, "N",
         "chunked: token budget of a micro-batch, decodes first (default 512)", FIELD(chunk_tokens),
         .commands = CONFIG_SERVING},
        {"inflight", 0, "inflight", CONFIG_ARG_COUNT, "N",
         "micro-batches in flight in a pipeline (default: its stages)", FIELD(inflight),
         .commands = CONFIG_SERVING},
        {"kv-tokens", 0, "kv_tokens", CONFIG_ARG_BYTES, "N",
         "KV-cache capacity in tokens (default: unlimited, or what GPU memory holds)",
         FIELD(kv_tokens), .commands = CONFIG_SERVING},
        {"prefill-stages", 0, "prefill_stages", CONFIG_ARG_COUNT, "N",
         "disaggregated: stages of the prefill pipeline (default p)", FIELD(prefill_stages),
         .commands = CONFIG_SERVING},
        {"kv-link", 0, "kv_link", CONFIG_ARG_NAME, "NAME",
         "disaggregated: link preset carrying KV caches (default: the inter-node link)",
         FIELD(kv_link), .commands = CONFIG_SERVING, .price = CONFIG_PRICE_MODEL, .preset = "link"},
        {"step-time", 0, "step_time", CONFIG_ARG_TIME, "T",
         "time of a micro-batch on a stage, fixed part (default 1)", FIELD(step_time),
         .commands = CONFIG_SERVING, .price = CONFIG_PRICE_EXPLICIT},
        {"token-time", 0, "token_time", CONFIG_ARG_TIME, "T",
         "time per new token of a micro-batch on a stage (default 0)", FIELD(token_time),
         .commands = CONFIG_SERVING, .price = CONFIG_PRICE_EXPLICIT},
        {"attn-time", 0, "attn_time", CONFIG_ARG_TIME, "T",
         "time per new token per 1000 tokens of context on a stage (default 0)", FIELD(attn_time),
         .commands = CONFIG_SERVING, .price = CONFIG_PRICE_EXPLICIT},
        {"window", 0, "window", CONFIG_ARG_RATE, "T",
         "length of the metric windows (default: a tenth of the run)", FIELD(window),
         .commands = CONFIG_SERVING},
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))
_Static_assert(NOPTIONS <= CONFIG_MAX_OPTIONS, "origin table too small");

const struct config_option *config_options(size_t *count)
{
	*count = NOPTIONS;
	return options;
}

const struct config_option *config_option_by_key(const char *key)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (strcmp(options[i].key, key) == 0)
			return &options[i];
	return NULL;
}

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->schedule, "1f1b");
	c->p = 4;
	c->v = 1;
	c->m = 8;
	c->t_f = 1;
	c->t_b = 1;
	c->t_w = 1;
	c->comm = PP_COMM_OVERLAP;
	c->duplex = PP_DUPLEX_FULL;
	c->w_mem_fraction = 0.5;
	c->overlap_factor = 1;
	c->latency = -1;
	c->inter_latency = -1;
	c->mlp = PP_MLP_PRESET;
	c->tied = -1;
	c->experts = -1;
	c->q_lora_rank = -1;
	c->kv_lora_rank = -1;
	c->rope_dim = -1;
	c->mtp_layers = -1;
	c->shared_experts = -1;
	c->dense_layers = -1;
	c->ep = 1;
	c->p2p_overhead = -1;
	c->kernel_overhead = -1;
	c->memory_reserve = -1;
	c->seq = 2048;
	c->mbs = 1;
	c->tp = 1;
	c->dp = 1;
	c->gpus_per_node = 8;
	c->flash_attention = 1;
	c->sequence_parallel = 1;
	c->unfused_attention_bytes = -1;
	c->recompute = PP_RECOMPUTE_NONE;
	c->distributed_optimizer = -1;
	c->cp = 1;
	c->overlap_grad_reduce = -1;
	c->overlap_param_gather = -1;
	c->comm_slowdown = -1;
	c->optimizer_bytes = -1;
	c->grad_reduce_bytes = 4;
	c->step_overhead = -1;
	c->bytes_per_param = 16;
	c->dtype_bytes = 2;
	c->arrival = PP_ARRIVAL_POISSON;
	c->rate = 10;
	c->num_requests = 100;
	c->burst = 8;
	c->concurrency = 8;
	c->prompt = (struct pp_dist){PP_DIST_FIXED, 512, 0};
	c->output = (struct pp_dist){PP_DIST_FIXED, 128, 0};
	c->seed = 1;
	c->batching = PP_BATCHING_CONTINUOUS;
	c->max_batch = 256;
	c->max_tokens = 8192;
	c->chunk_tokens = 512;
	c->step_time = 1;
	c->max_ops = PP_MAX_OPS;
	c->svg_width = PP_SVG_AUTO_WIDTH;
}

struct sched_params config_sched_params(const struct config *c)
{
	struct sched_params sp = {c->p, c->v, c->m, c->group_size};

	return sp;
}

const char *config_comm_name(enum pp_comm comm)
{
	return comms[comm];
}

const char *config_duplex_name(enum pp_duplex duplex)
{
	return duplexes[duplex];
}

const char *config_recompute_name(enum pp_recompute r)
{
	return recomputes[r];
}

const char *config_tp_overlap_name(enum pp_tp_overlap t)
{
	return tp_overlaps[t];
}

const char *config_cp_comm_name(enum pp_cp_comm t)
{
	return cp_comms[t];
}

const char *config_ep_dispatch_name(enum pp_ep_dispatch d)
{
	return ep_dispatches[d];
}

const char *config_attention_kernel_name(enum pp_attention_kernel a)
{
	return attention_kernels[a];
}

const char *config_batching_name(enum pp_batching b)
{
	return batchings[b];
}

const char *config_arrival_name(enum pp_arrival a)
{
	return arrivals[a];
}

char *config_dist_format(const struct pp_dist *d, char *buf, size_t n)
{
	char a[32], b[32];

	pp_double_format(a, sizeof(a), d->a);
	pp_double_format(b, sizeof(b), d->b);
	if (d->kind == PP_DIST_FIXED)
		snprintf(buf, n, "fixed:%s", a);
	else
		snprintf(buf, n, "%s:%s:%s", dists[d->kind], a, b);
	return buf;
}

bool config_is_set(const struct config *c, const char *key)
{
	const struct config_option *o = config_option_by_key(key);

	return o != NULL && c->origin[o - options].line != 0;
}

bool config_has_model(const struct config *c)
{
	return c->model[0] != '\0';
}

int config_dp(const struct config *c, int *dp, struct pp_error *err)
{
	long long pt = (long long)c->p * c->tp * c->cp;

	*dp = c->dp;
	if (c->gpus == 0)
		return 0;
	if (c->gpus % pt != 0)
		return config_fail(c, config_is_set(c, "tp") ? "tp" : "gpus", err,
		                   "p x tp x cp = %lld does not divide the %d GPUs (--gpus)", pt,
		                   c->gpus);
	if (config_is_set(c, "dp") && c->dp != c->gpus / pt)
		return config_fail(c, "dp", err,
		                   "disagrees with --gpus %d = p %d x tp %d x cp %d x dp %lld",
		                   c->gpus, c->p, c->tp, c->cp, c->gpus / pt);
	*dp = (int)(c->gpus / pt);
	return 0;
}

/* Gives the options of c that were not set the framework f's habits. */
static void apply_framework(struct config *c, const struct framework_preset *f)
{
	const struct {
		const char *key;
		int *field;
		int value;
	} rows[] = {
	        {"comm", (int *)&c->comm, c->v > 1 ? f->comm_chunked : f->comm},
	        {"overlap_grad_reduce", &c->overlap_grad_reduce, f->overlap_grad_reduce},
	        {"overlap_param_gather", &c->overlap_param_gather, f->overlap_param_gather},
	        {"distributed_optimizer", &c->distributed_optimizer, f->distributed_optimizer},
	        {"tp_overlap", (int *)&c->tp_overlap, f->tp_overlap},
	        {"flash_attention", &c->flash_attention, f->flash_attention},
	        {"attention_kernel", (int *)&c->attention_kernel, f->attention_kernel},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].value >= 0 && !config_is_set(c, rows[i].key))
			*rows[i].field = rows[i].value;
}

int config_settle(const struct config *in, struct config *out, struct pp_error *err)
{
	const struct sched_desc *desc = sched_find(in->schedule);
	long long per_step;
	int m;

	*out = *in;
	/* a schedule with chunks runs with the fewest it takes unless -v says otherwise */
	if (desc != NULL && !config_is_set(in, "v") && in->v < desc->min_v)
		out->v = desc->min_v;
	if (in->framework[0] != '\0')
		apply_framework(out, preset_framework(in->framework));
	if (!config_has_model(in) || in->global_batch == 0)
		return 0;
	if (config_dp(in, &out->dp, err) != 0)
		return -1;
	per_step = (long long)in->mbs * out->dp;
	if (in->global_batch % per_step != 0)
		return config_fail(in, "global_batch", err,
		                   "is not a whole number of micro-batches: mbs %d x dp %d = %lld "
		                   "sequences a micro-batch step",
		                   in->mbs, out->dp, per_step);
	m = (int)(in->global_batch / per_step);
	if (config_is_set(in, "m") && in->m != m)
		return config_fail(in, "m", err,
		                   "disagrees with --global-batch %d = m %d x mbs %d x dp %d",
		                   in->global_batch, m, in->mbs, out->dp);
	out->m = m;
	return 0;
}

/* Parses a whole decimal integer in [lo, hi]; false on junk, sign or range errors. */
static bool parse_integer(const char *s, long long lo, long long hi, long long *out)
{
	return text_parse_int(s, lo, hi, out) == TEXT_OK;
}

/* Parses a whole finite decimal number; false on junk, NaN or infinity. */
static bool parse_number(const char *s, double *out)
{
	double x;

	/* out of range, underflow included, is an error here */
	if (text_parse_double(s, &x) != TEXT_OK)
		return false;
	*out = x;
	return true;
}

/* Copies a preset name after checking it names a row of its table. */
static int set_preset(char *field, const char *kind, const char *label, const char *value,
                      struct pp_error *err)
{
	char names[256], hint[96];

	if (!preset_known(kind, value) || strlen(value) >= 32) {
		preset_names(kind, names, sizeof(names));
		return pp_fail(err, PP_ERR_USAGE, "%s '%s': unknown %s; known: %s%s", label, value,
		               kind, names, text_suggest_in(value, names, ", ", hint, sizeof(hint)));
	}
	strcpy(field, value);
	return 0;
}

/* Sets *field to the index of value in names[] (NULL-terminated); fails naming them. */
static int set_choice(int *field, const char *const *names, const char *label, const char *value,
                      struct pp_error *err)
{
	char list[128], hint[96];
	struct text_suggest near;
	size_t n = 0;

	for (; names[n] != NULL; n++)
		if (strcmp(value, names[n]) == 0) {
			*field = (int)n;
			return 0;
		}
	text_suggest_init(&near, value, strlen(value));
	for (size_t i = 0; i < n; i++)
		text_suggest_try(&near, names[i], strlen(names[i]));
	return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be %s%s", label, value,
	               text_choices(names, n, list, sizeof(list)),
	               text_suggest_hint(&near, "", hint, sizeof(hint)));
}

/* Parses a token-count distribution: fixed:N, uniform:A:B or lognormal:MU:SIGMA. */
static int set_dist(struct config *c, const struct config_option *opt, const char *label,
                    const char *value, struct pp_error *err)
{
	struct pp_dist *d = (struct pp_dist *)(void *)((char *)c + opt->offset);
	char buf[96], *f[3] = {buf, NULL, NULL};
	size_t nf = 1;
	int kind = -1;
	double a = 0, b = 0;
	long long x, y;

	if (strlen(value) < sizeof(buf)) {
		strcpy(buf, value);
		nf = text_split(buf, ':', f, 3);
		for (int i = 0; dists[i] != NULL; i++)
			if (strcmp(buf, dists[i]) == 0)
				kind = i;
	}
	if (kind == PP_DIST_FIXED && nf == 2 && parse_integer(f[1], 1, PP_MAX_COUNT, &x)) {
		*d = (struct pp_dist){PP_DIST_FIXED, (double)x, 0};
		return 0;
	}
	if (kind == PP_DIST_UNIFORM && nf == 3 && parse_integer(f[1], 1, PP_MAX_COUNT, &x) &&
	    parse_integer(f[2], x, PP_MAX_COUNT, &y)) {
		*d = (struct pp_dist){PP_DIST_UNIFORM, (double)x, (double)y};
		return 0;
	}
	/* exp(16) is about 8.9 million tokens: the median stays below the count limit */
	if (kind == PP_DIST_LOGNORMAL && nf == 3 && parse_number(f[1], &a) && a >= 0 && a <= 16 &&
	    parse_number(f[2], &b) && b >= 0 && b <= 4) {
		*d = (struct pp_dist){PP_DIST_LOGNORMAL, a, b};
		return 0;
	}
	return pp_fail(err, PP_ERR_USAGE,
	               "%s '%.60s': must be fixed:N, uniform:A:B (1 <= A <= B <= %d) or "
	               "lognormal:MU:SIGMA (MU from 0 to 16, SIGMA from 0 to 4)",
	               label, value, PP_MAX_COUNT);
}

static void format_dist(const struct config *c, const struct config_option *opt, char *buf,
                        size_t n)
{
	config_dist_format((const struct pp_dist *)(const void *)((const char *)c + opt->offset),
	                   buf, n);
}

static int set_schedule(struct config *c, const struct config_option *opt, const char *label,
                        const char *value, struct pp_error *err)
{
	const struct sched_desc *d = sched_find(value);
	char names[256], hint[96];

	(void)opt;
	if (d == NULL) {
		sched_names(names, sizeof(names));
		return pp_fail(err, PP_ERR_USAGE, "%s '%s': unknown schedule; known: %s%s", label,
		               value, names, text_suggest_in(value, names, ", ", hint, sizeof(hint)));
	}
	/* an alias or another case stands for the schedule's own name */
	strcpy(c->schedule, d->name);
	return 0;
}

static int set_name(struct config *c, const struct config_option *opt, const char *label,
                    const char *value, struct pp_error *err)
{
	char *field = (char *)c + opt->offset;

	if (opt->values != NULL)
		return set_choice((int *)(void *)field, opt->values, label, value, err);
	if (opt->preset != NULL)
		return set_preset(field, opt->preset, label, value, err);
	return opt->parse(c, opt, label, value, err);
}

static int set_bool(int *field, const char *label, const char *value, struct pp_error *err)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};

	for (size_t i = 0; i < 4; i++) {
		if (strcmp(value, yes[i]) == 0) {
			*field = 1;
			return 0;
		}
		if (strcmp(value, no[i]) == 0) {
			*field = 0;
			return 0;
		}
	}
	return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be yes or no", label, value);
}

static int set_list(struct config *c, const char *label, const char *value, struct pp_error *err)
{
	int list[PP_MAX_LIST], n = 0;
	const char *p = value;
	char buf[16];

	for (;;) {
		size_t len = strcspn(p, ",");
		long long x;

		memcpy(buf, p, len < sizeof(buf) ? len : 0);
		buf[len < sizeof(buf) ? len : 0] = '\0';
		if (len >= sizeof(buf) || n == PP_MAX_LIST ||
		    !parse_integer(buf, 0, PP_MAX_COUNT, &x))
			/* quote at most the start of a long list, so that the reason still fits */
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%.40s%s': must be up to %d integers from 0 to %d, "
			               "comma-separated",
			               label, value, strlen(value) > 40 ? "..." : "", PP_MAX_LIST,
			               PP_MAX_COUNT);
		list[n++] = (int)x;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	memcpy(c->layers_per_stage, list, (size_t)n * sizeof(list[0]));
	c->nlayers_per_stage = n;
	return 0;
}

static int set_scales(struct config *c, const char *label, const char *value, struct pp_error *err)
{
	double list[PP_MAX_LIST];
	const char *p = value;
	char buf[32];
	int n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		double x = 0;

		memcpy(buf, p, len < sizeof(buf) ? len : 0);
		buf[len < sizeof(buf) ? len : 0] = '\0';
		if (len >= sizeof(buf) || n == PP_MAX_LIST || !parse_number(buf, &x) || x <= 0 ||
		    x > 1e6)
			return pp_fail(
			        err, PP_ERR_USAGE,
			        "%s '%.40s%s': must be up to %d numbers above 0 and at most 1e6, "
			        "comma-separated",
			        label, value, strlen(value) > 40 ? "..." : "", PP_MAX_LIST);
		list[n++] = x;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	memcpy(c->stage_scale, list, (size_t)n * sizeof(list[0]));
	c->nstage_scale = n;
	return 0;
}

static int parse_value(struct config *c, const struct config_option *opt, const char *label,
                       const char *value, struct pp_error *err)
{
	char *field = (char *)c + opt->offset;
	long long n;
	double x;

	switch (opt->arg) {
	case CONFIG_ARG_NAME:
		return set_name(c, opt, label, value, err);
	case CONFIG_ARG_BOOL:
		return set_bool((int *)(void *)field, label, value, err);
	case CONFIG_ARG_LIST:
		return set_list(c, label, value, err);
	case CONFIG_ARG_SCALES:
		return set_scales(c, label, value, err);
	case CONFIG_ARG_PATH:
		if (*value == '\0' || strlen(value) >= sizeof(c->schedule_file))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%.60s': must be a file name of 1 to %zu "
			               "characters",
			               label, value, sizeof(c->schedule_file) - 1);
		strcpy(field, value);
		return 0;
	case CONFIG_ARG_COUNT: {
		int lo = opt->min > 0 ? opt->min : (opt->flags & CONFIG_ZERO_OK) ? 0 : 1;
		int hi = opt->max > 0 ? opt->max : PP_MAX_COUNT;

		if (!parse_integer(value, lo, hi, &n))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be an integer from %d to %d", label, value,
			               lo, hi);
		*(int *)(void *)field = (int)n;
		return 0;
	}
	case CONFIG_ARG_BYTES: {
		int64_t lo = opt->bytes_min, hi = opt->bytes_max > 0 ? opt->bytes_max : INT64_MAX;

		if (!parse_integer(value, lo, hi, &n))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be an integer from %" PRId64 " to %" PRId64,
			               label, value, lo, hi);
		*(uint64_t *)(void *)field = (uint64_t)n;
		return 0;
	}
	case CONFIG_ARG_TIME:
		if (!parse_number(value, &x) || x < 0 || x > PP_TIME_MAX_UNITS)
			return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be a number from 0 to %g",
			               label, value, PP_TIME_MAX_UNITS);
		*(double *)(void *)field = x;
		return 0;
	case CONFIG_ARG_SHARE:
		if (!parse_number(value, &x) || x < 0 || x > 1)
			return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be a number from 0 to 1",
			               label, value);
		*(double *)(void *)field = x;
		return 0;
	case CONFIG_ARG_RATE:
		if (!parse_number(value, &x) || x <= 0 || x > 1e9)
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be a number above 0 and at most 1e9", label,
			               value);
		*(double *)(void *)field = x;
		return 0;
	}
	return pp_fail(err, PP_ERR_USAGE, "%s: unhandled option kind", label);
}

int config_set(struct config *c, const struct config_option *opt, const char *label,
               const char *value, struct pp_error *err)
{
	if (parse_value(c, opt, label, value, err) != 0)
		return -1;
	c->origin[opt - options] = (struct config_origin){-1, 0};
	return 0;
}

char *config_format_value(const struct config *c, const struct config_option *opt, char *buf,
                          size_t n)
{
	const char *field = (const char *)c + opt->offset;

	switch (opt->arg) {
	case CONFIG_ARG_PATH:
		snprintf(buf, n, "%s", field);
		break;
	case CONFIG_ARG_NAME:
		if (opt->values != NULL)
			snprintf(buf, n, "%s", opt->values[*(const int *)(const void *)field]);
		else if (opt->format != NULL)
			opt->format(c, opt, buf, n);
		else
			snprintf(buf, n, "%s", field);
		break;
	case CONFIG_ARG_BOOL:
		snprintf(buf, n, "%s",
		         *(const int *)(const void *)field < 0   ? "preset"
		         : *(const int *)(const void *)field > 0 ? "yes"
		                                                 : "no");
		break;
	case CONFIG_ARG_COUNT:
		snprintf(buf, n, "%d", *(const int *)(const void *)field);
		break;
	case CONFIG_ARG_BYTES:
		snprintf(buf, n, "%" PRIu64, *(const uint64_t *)(const void *)field);
		break;
	case CONFIG_ARG_LIST: {
		size_t len = 0;

		buf[0] = '\0';
		for (int i = 0; i < c->nlayers_per_stage && len < n; i++)
			len += (size_t)snprintf(buf + len, n - len, "%s%d", i ? "," : "",
			                        c->layers_per_stage[i]);
		break;
	}
	case CONFIG_ARG_SCALES: {
		size_t len = 0;

		buf[0] = '\0';
		for (int i = 0; i < c->nstage_scale && len < n; i++)
			len += (size_t)snprintf(buf + len, n - len, "%s%g", i ? "," : "",
			                        c->stage_scale[i]);
		break;
	}
	case CONFIG_ARG_TIME:
	case CONFIG_ARG_SHARE:
	case CONFIG_ARG_RATE:
		pp_double_format(buf, n, *(const double *)(const void *)field);
		break;
	}
	return buf;
}

int config_fail(const struct config *c, const char *key, struct pp_error *err, const char *fmt, ...)
{
	const struct config_option *opt = config_option_by_key(key);
	char what[700], value[128];
	struct config_origin at;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (opt == NULL)
		return pp_fail(err, PP_ERR_USAGE, "%s", what);
	at = c->origin[opt - options];
	config_format_value(c, opt, value, sizeof(value));
	if (at.line == CONFIG_LINE_CALLER)
		return pp_fail(err, PP_ERR_USAGE, "key \"%s\" = %s: %s", key, value, what);
	if (at.line > 0) {
		pp_fail(err, PP_ERR_CONFIG, "config '%s':%d:%d: key \"%s\" = %s: %s", c->file,
		        at.line, at.column, key, value, what);
		err->line = at.line;
		err->column = at.column;
		return -1;
	}
	return pp_fail(err, PP_ERR_USAGE, "--%s '%s': %s", opt->name, value, what);
}

void config_link(const struct config *c, double *bandwidth, double *latency)
{
	const struct link_preset *l = c->link[0] ? preset_link(c->link) : NULL;

	*bandwidth = c->bandwidth > 0 ? c->bandwidth : l != NULL ? l->bandwidth : 0;
	*latency = c->latency >= 0 ? c->latency : l != NULL ? l->latency : 0;
}

const char *config_gpu(const struct config *c)
{
	return c->gpu[0] ? c->gpu : PRESET_DEFAULT_GPU;
}

void config_model_links(const struct config *c, char *link, char *inter_link)
{
	const struct gpu_preset *g = preset_gpu(config_gpu(c));

	snprintf(link, 32, "%s", c->link[0] ? c->link : g->link);
	snprintf(inter_link, 32, "%s", c->inter_link[0] ? c->inter_link : g->inter_link);
}

double config_stage_scale(const struct config *c, int st, int d)
{
	if (c->nstage_scale == c->p * c->v && c->nstage_scale > 0)
		return c->stage_scale[st];
	if (c->nstage_scale == c->p)
		return c->stage_scale[d];
	return 1;
}

double config_msg_time(const struct config *c)
{
	double bw, lat;

	config_link(c, &bw, &lat);
	if (bw > 0)
		/* ms = latency_us / 1e3 + bytes / (GB/s * 1e9 B/s) * 1e3 ms/s */
		return lat / 1e3 + (double)c->msg_bytes / (bw * 1e6);
	return c->t_comm;
}

/* True when opt is for serving only, not for any training command. */
static bool serving_only(const struct config_option *opt)
{
	return (opt->commands & CONFIG_RUN) == 0;
}

/*
 * The first option in table order that c sets, whose pricing is price (or any, with
 * CONFIG_PRICE_ANY) and whose flags include flags, restricted to the serving-only options
 * (serving > 0) or to the others (serving == 0), or not (serving < 0); NULL when none.
 */
static const struct config_option *first_set(const struct config *c, enum config_price price,
                                             unsigned flags, int serving)
{
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct config_option *o = &options[i];

		if (c->origin[i].line != 0 && (price == CONFIG_PRICE_ANY || o->price == price) &&
		    (o->flags & flags) == flags &&
		    (serving < 0 || serving_only(o) == (serving > 0)))
			return o;
	}
	return NULL;
}

/* Checks that no option of the pricing mode not in use was set. */
static int check_mode(const struct config *c, struct pp_error *err)
{
	const struct config_option *o;

	if (!config_has_model(c) && (o = first_set(c, CONFIG_PRICE_MODEL, 0, 0)) != NULL)
		return config_fail(c, o->key, err, "needs a model (--model) to price ops from");
	if (config_has_model(c) && (o = first_set(c, CONFIG_PRICE_EXPLICIT, 0, 0)) != NULL)
		return config_fail(c, o->key, err,
		                   "not with a model, which prices ops and messages itself");
	return 0;
}

/* Explicit times are whole ticks (PP_TICK_BASE per unit): one above 0 that rounds to no tick
 * would silently become 0. */
static int check_resolution(const struct config *c, struct pp_error *err)
{
	const struct {
		const char *key;
		double t;
	} times[] = {{"t_f", c->t_f}, {"t_b", c->t_b}, {"t_w", c->t_w}, {"t_comm", c->t_comm}};

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		if (pp_time_below_tick(times[i].t))
			return config_fail(
			        c, times[i].key, err,
			        "below the resolution of %g time units: it would run as 0 "
			        "(times are whole ticks); use 0 or a larger value",
			        1.0 / (double)PP_TICK_BASE);
	}
	return 0;
}

/* Checks the costs and the settings that do not depend on the schedule (ops: the op count,
 * 0 when not known yet). */
static int check_costs(const struct config *c, uint64_t ops, struct pp_error *err)
{
	double bw, lat;

	/* with a schedule file the shape comes from the file, which sim_run checks against */
	if (c->nstage_scale > 0 && c->schedule_file[0] == '\0' && c->nstage_scale != c->p &&
	    c->nstage_scale != c->p * c->v)
		return config_fail(
		        c, "stage_scale", err,
		        "gives %d factors; give p = %d (per device) or p*v = %d (per stage)",
		        c->nstage_scale, c->p, c->p * c->v);
	if (c->mem_limit > 0 && c->mem_limit < 1)
		return config_fail(c, "mem_limit", err, "must be at least 1 micro-batch");
	if (config_has_model(c))
		return 0;
	config_link(c, &bw, &lat);
	if (bw > 0 && c->t_comm > 0)
		return config_fail(
		        c, "t_comm", err,
		        "give a fixed message time or a link (--link, --bandwidth), not both");
	if (bw == 0 && c->latency >= 0)
		return config_fail(c, "latency", err, "needs a link (--link or --bandwidth)");
	if (config_msg_time(c) > PP_TIME_MAX_UNITS)
		return config_fail(
		        c, "msg_bytes", err,
		        "one message would take %.3g ms at %g GB/s, above the limit of %g",
		        config_msg_time(c), bw, PP_TIME_MAX_UNITS);
	/* every op sends at most one message: ops * msg_bytes bounds the traffic, which must stay
	 * exact in a double (JSON numbers) */
	if (c->msg_bytes > 0 && (double)ops * (double)c->msg_bytes > PP_MAX_TRAFFIC_BYTES)
		return config_fail(c, "msg_bytes", err,
		                   "%.3g ops could move %.3g bytes, above 2^53", (double)ops,
		                   (double)ops * (double)c->msg_bytes);
	if (c->t_f + c->t_b + c->t_w == 0)
		return config_fail(c, "t_f", err,
		                   "--tf, --tb and --tw: at least one must be above 0");
	return check_resolution(c, err);
}

int config_check_command(const struct config *c, unsigned command, const char *name,
                         struct pp_error *err)
{
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct config_option *o = &options[i];

		if (c->origin[i].line == 0 || (o->commands & command) != 0)
			continue;
		if (serving_only(o))
			return config_fail(c, o->key, err, "a serving option: use ppsim serve");
		if (command == CONFIG_SERVE)
			return config_fail(c, o->key, err,
			                   "a training option, not for ppsim serve");
		return config_fail(c, o->key, err, "not for ppsim %s", name);
	}
	return 0;
}

/* Appends word to buf (of size n, holding *len characters), after sep unless it is the first. */
static void append_word(char *buf, size_t n, size_t *len, const char *sep, const char *word,
                        size_t wlen)
{
	if (*len < n)
		*len += (size_t)snprintf(buf + *len, n - *len, "%s%.*s", *len ? sep : "", (int)wlen,
		                         word);
}

char *config_value_words(const struct config_option *opt, const char *sep, char *buf, size_t n)
{
	char list[512];
	const char *p = NULL;
	size_t len = 0;

	buf[0] = '\0';
	if (opt->arg == CONFIG_ARG_BOOL) {
		append_word(buf, n, &len, sep, "yes", 3);
		append_word(buf, n, &len, sep, "no", 2);
	} else if (opt->values != NULL) {
		for (int i = opt->offered; opt->values[i] != NULL; i++)
			append_word(buf, n, &len, sep, opt->values[i], strlen(opt->values[i]));
	} else if (opt->parse == set_dist) {
		/* a distribution's parameters follow its name */
		for (int i = 0; dists[i] != NULL; i++) {
			char word[32];

			snprintf(word, sizeof(word), "%s:", dists[i]);
			append_word(buf, n, &len, sep, word, strlen(word));
		}
	} else if (opt->preset != NULL) {
		p = preset_names(opt->preset, list, sizeof(list));
	} else if (opt->parse == set_schedule) {
		p = sched_names(list, sizeof(list));
	}
	/* the tables give their names as "a, b, c" */
	while (p != NULL && *p != '\0') {
		size_t k = strcspn(p, ",");

		append_word(buf, n, &len, sep, p, k);
		p += k + strspn(p + k, ", ");
	}
	return buf;
}

bool config_is_serve(const struct config *c)
{
	return first_set(c, CONFIG_PRICE_ANY, 0, 1) != NULL;
}

/*
 * The settings only some schedules take: a schedule that does not take one refuses it when set,
 * naming those that do (the refusal's two %s: their names, then the schedule's).
 */
static const struct {
	const char *key;
	bool (*takes)(const struct sched_desc *);
	const char *refusal;
} schedule_keys[] = {
        {"mem_limit", sched_takes_mem_limit, "only %s take a memory limit, not %s"},
        {"overlap_factor", sched_takes_overlap_factor,
         "only schedules of overlapped F&B pairs (%s) take it, not %s"},
};

/* The counts whose row narrows their range, checked again for a config not set through the table.
 */
static int check_ranges(const struct config *c, struct pp_error *err)
{
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		const struct config_option *o = &options[i];
		int x;

		if (o->arg != CONFIG_ARG_COUNT || (o->min == 0 && o->max == 0))
			continue;
		x = *(const int *)(const void *)((const char *)c + o->offset);
		if (x == 0 && (o->flags & CONFIG_ZERO_AUTO))
			continue;
		if (x <= 0 && (o->flags & CONFIG_ZERO_OK))
			continue;
		if (x < (o->min > 0 ? o->min : 1) || x > (o->max > 0 ? o->max : PP_MAX_COUNT))
			return config_fail(c, o->key, err, "must be from %d to %d",
			                   o->min > 0 ? o->min : 1,
			                   o->max > 0 ? o->max : PP_MAX_COUNT);
	}
	return 0;
}

int config_validate_serve(const struct config *c, struct pp_error *err)
{
	const struct {
		const char *key;
		bool ok;
		const char *why;
	} needs[] = {
	        {"rate", c->arrival != PP_ARRIVAL_CLOSED, "not with --arrival=closed"},
	        {"burst", c->arrival == PP_ARRIVAL_BURSTY, "only with --arrival=bursty"},
	        {"concurrency", c->arrival == PP_ARRIVAL_CLOSED, "only with --arrival=closed"},
	        {"chunk_tokens", c->batching == PP_BATCHING_CHUNKED,
	         "only with --batching=chunked"},
	        {"max_tokens", c->batching != PP_BATCHING_CHUNKED,
	         "not with --batching=chunked, whose budget is --chunk-tokens"},
	        {"prefill_stages", c->batching == PP_BATCHING_DISAGGREGATED,
	         "only with --batching=disaggregated"},
	        {"kv_link", c->batching == PP_BATCHING_DISAGGREGATED,
	         "only with --batching=disaggregated"},
	        {"stage_scale", c->batching != PP_BATCHING_DISAGGREGATED,
	         "not with --batching=disaggregated"},
	};
	const struct config_option *o;
	bool model = config_has_model(c);

	if (config_check_command(c, CONFIG_SERVE, "serve", err) != 0 || check_ranges(c, err) != 0)
		return -1;
	if (!model && (o = first_set(c, CONFIG_PRICE_MODEL, 0, 1)) != NULL)
		return config_fail(c, o->key, err, "needs a model (--model)");
	if (model && (o = first_set(c, CONFIG_PRICE_EXPLICIT, 0, 1)) != NULL)
		return config_fail(c, o->key, err,
		                   "not with a model, which prices micro-batches itself");
	if (!model && (o = first_set(c, CONFIG_PRICE_LINK, 0, -1)) != NULL)
		return config_fail(c, o->key, err,
		                   "serving without a model prices messages with --tcomm only");
	if (check_mode(c, err) != 0)
		return -1;
	if (c->requests[0] != '\0' &&
	    (o = first_set(c, CONFIG_PRICE_ANY, CONFIG_GENERATES, -1)) != NULL)
		return config_fail(c, o->key, err, "not with --requests, which gives the requests");
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (!needs[i].ok && config_is_set(c, needs[i].key))
			return config_fail(c, needs[i].key, err, "%s", needs[i].why);
	if (c->max_ops < 1 || c->max_ops > PP_MAX_OPS_CEILING)
		return config_fail(c, "max_ops", err, "must be from 1 to %" PRIu64,
		                   PP_MAX_OPS_CEILING);
	if (c->num_requests > PP_MAX_REQUESTS)
		return config_fail(c, "num_requests", err, "must be at most %d", PP_MAX_REQUESTS);
	if (c->nstage_scale > 0 && c->nstage_scale != c->p)
		return config_fail(c, "stage_scale", err, "gives %d factors for p = %d stages",
		                   c->nstage_scale, c->p);
	if (!model && c->step_time + c->token_time + c->attn_time == 0)
		return config_fail(
		        c, "step_time", err,
		        "--step-time, --token-time and --attn-time: at least one must be "
		        "above 0");
	return 0;
}

int config_validate(const struct config *c, struct pp_error *err)
{
	const struct sched_desc *desc = sched_find(c->schedule);
	struct sched_params sp;
	struct pp_error why = {0};
	const char *key = "schedule";
	uint64_t ops = 0, work = 0;

	if (config_check_command(c, CONFIG_RUN, "run", err) != 0 || check_ranges(c, err) != 0)
		return -1;
	if (c->p < 1 || c->p > PP_MAX_COUNT || c->m < 1 || c->m > PP_MAX_COUNT || c->v < 1)
		return pp_fail(err, PP_ERR_USAGE,
		               "-p %d -m %d -v %d: p and m must be from 1 to %d, v at least 1",
		               c->p, c->m, c->v, PP_MAX_COUNT);
	if (c->schedule_file[0] != '\0') {
		/* the file fixes the order and the shape; the generator's options do not apply */
		const struct config_option *o =
		        first_set(c, CONFIG_PRICE_ANY, CONFIG_SHAPES_ORDER, -1);

		if (o != NULL)
			return config_fail(c, o->key, err, "not with --schedule-file");
		/* the caller gives the file's shape: bound its traffic by its op count */
		if (!sched_op_count(c->p, c->v, c->m, true, &ops))
			ops = UINT64_MAX;
		return check_mode(c, err) == 0 && config_check_noise(c, err) == 0
		               ? check_costs(c, ops, err)
		               : -1;
	}
	if (desc == NULL)
		return config_fail(c, "schedule", err, "unknown schedule");
	if (c->max_ops < 1 || c->max_ops > PP_MAX_OPS_CEILING)
		return config_fail(c, "max_ops", err, "must be from 1 to %" PRIu64,
		                   PP_MAX_OPS_CEILING);
	/* each stage runs the micro-batches of its route */
	if (!sched_op_count(c->p, c->v, c->m / sched_desc_routes(desc), desc->split, &ops) ||
	    ops > c->max_ops)
		return pp_fail(err, PP_ERR_USAGE,
		               "-p %d -m %d -v %d: %s needs %.3g ops, above the limit of %" PRIu64
		               " simulated ops (--max-ops)",
		               c->p, c->m, c->v, desc->name,
		               (double)c->p * c->v * (c->m / sched_desc_routes(desc)) *
		                       (desc->split ? 3 : 2),
		               c->max_ops);
	if (!sched_work(desc, c->p, c->v, c->m, &work) || work > c->max_ops)
		return pp_fail(err, PP_ERR_USAGE,
		               "-p %d -m %d -v %d: building %s's order costs %.3g ops' worth "
		               "(its %.3g ops and %s), above the limit of %" PRIu64 " (--max-ops)",
		               c->p, c->m, c->v, desc->name,
		               work == UINT64_MAX ? HUGE_VAL : (double)work, (double)ops,
		               desc->fn.generate_priced != NULL ? "its greedy passes over them"
		                                                : "the order it lays out",
		               c->max_ops);
	if (c->v > PP_MAX_CHUNKS)
		return config_fail(c, "v", err, "must be at most %d", PP_MAX_CHUNKS);
	sp = config_sched_params(c);
	if (sched_accepts(desc, &sp, &key, &why) != 0)
		return config_fail(c, key, err, "%s", why.msg);
	if (check_mode(c, err) != 0 || config_check_noise(c, err) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(schedule_keys) / sizeof(schedule_keys[0]); i++)
		if (config_is_set(c, schedule_keys[i].key) && !schedule_keys[i].takes(desc)) {
			char takers[128];

			return config_fail(
			        c, schedule_keys[i].key, err, schedule_keys[i].refusal,
			        sched_names_that(schedule_keys[i].takes, takers, sizeof(takers)),
			        desc->name);
		}
	return check_costs(c, ops, err);
}
