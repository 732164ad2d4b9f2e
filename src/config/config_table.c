/*
 * The option table: a row per option, the whole truth about it (its names and value kind, the
 * field it sets, the commands that take it, the way of pricing it belongs to, its value names or
 * parser), the names of the enum fields it sets, and what reads the table by row: the lookups,
 * each enum's name, the token-count distributions' values and the words completion offers.
 * Setting and checking values is config.c's and config_check.c's.
 */
#include "ppsim/config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/text.h"
#include "config_internal.h"
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
static const char *const layer_splits[] = {"spread", "even", "torchtitan", NULL};

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
                       sizeof(enum pp_trace_names) == sizeof(int) &&
                       sizeof(enum pp_layer_split) == sizeof(int),
               "enum fields are set as int");

static int set_dist(struct config *c, const struct config_option *opt, const char *label,
                    const char *value, struct pp_error *err);
static int set_stage_offload(struct config *c, const struct config_option *opt,
                             const char *label, const char *value, struct pp_error *err);
static void format_stage_offload(const struct config *c, const struct config_option *opt,
                                 char *buf, size_t n);
static int set_stage_recompute(struct config *c, const struct config_option *opt,
                               const char *label, const char *value, struct pp_error *err);
static void format_stage_recompute(const struct config *c, const struct config_option *opt,
                                   char *buf, size_t n);
/* --device-order: device numbers, comma-separated, each once; the count is checked against p
 * with the other settings. */
static int set_device_order(struct config *c, const struct config_option *opt, const char *label,
                            const char *value, struct pp_error *err)
{
	bool seen[PP_MAX_LIST] = {false};
	int n = 0;

	(void)opt;
	for (const char *p = value;;) {
		size_t len = strcspn(p, ",");
		char word[16];
		long long d;

		snprintf(word, sizeof(word), "%.*s", (int)(len < 15 ? len : 15), p);
		if (len > 15 || text_parse_int(word, 0, PP_MAX_LIST - 1, &d) != TEXT_OK)
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%.40s%s': '%.*s' is not a device number from 0 to %d",
			               label, value, strlen(value) > 40 ? "..." : "",
			               (int)(len < 40 ? len : 40), p, PP_MAX_LIST - 1);
		if (seen[d])
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%.40s%s': device %lld appears twice (a permutation of "
			               "0..p-1 names each device once)",
			               label, value, strlen(value) > 40 ? "..." : "", d);
		if (n == PP_MAX_LIST)
			return pp_fail(err, PP_ERR_USAGE, "%s '%.40s%s': more than %d devices", label,
			               value, strlen(value) > 40 ? "..." : "", PP_MAX_LIST);
		seen[d] = true;
		c->device_order[n++] = (short)d;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	c->ndevice_order = n;
	return 0;
}

/* --device-order as "2,0,1,3". */
static void format_device_order(const struct config *c, const struct config_option *opt,
                                char *buf, size_t n)
{
	size_t len = 0;

	(void)opt;
	buf[0] = '\0';
	for (int i = 0; i < c->ndevice_order && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%d", i ? "," : "", c->device_order[i]);
}

static void format_dist(const struct config *c, const struct config_option *opt, char *buf,
                        size_t n);
static int set_device_gpus(struct config *c, const struct config_option *opt, const char *label,
                           const char *value, struct pp_error *err);
static void format_device_gpus(const struct config *c, const struct config_option *opt,
                               char *buf, size_t n);
static int set_device_order(struct config *c, const struct config_option *opt, const char *label,
                            const char *value, struct pp_error *err);
static void format_device_order(const struct config *c, const struct config_option *opt,
                                char *buf, size_t n);

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
         .commands = CONFIG_TRAINING | CONFIG_REPLAY, .flags = CONFIG_SHAPES_ORDER, .parse = config_set_schedule,
         .section = "Schedule and shape:"},
        {"schedule-file", 0, "schedule_file", CONFIG_ARG_PATH, "FILE",
         "simulate the op order in FILE (ppsim or PyTorch CSV) instead of a generator",
         FIELD(schedule_file), .commands = CONFIG_TRAINING},
        {"stages", 'p', "p", CONFIG_ARG_COUNT, "N", "pipeline devices (ranks) p (default 4)",
         FIELD(p), .commands = CONFIG_ALL, .max = PP_MAX_DEVICES},
        {"microbatches", 'm', "m", CONFIG_ARG_COUNT, "N", "micro-batches per step m (default 8)",
         FIELD(m), .commands = CONFIG_TRAINING | CONFIG_REPLAY},
        {"chunks", 'v', "v", CONFIG_ARG_COUNT, "N",
         "model chunks per device v (default: the schedule's fewest)", FIELD(v),
         .commands = CONFIG_TRAINING | CONFIG_REPLAY, .max = PP_MAX_CHUNKS},
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
        {"device-gpus", 0, "device_gpus", CONFIG_ARG_NAME, "LIST",
         "GPU preset of each pipeline device, comma-separated; NAME*N for N devices in a row "
         "(mixed GPUs; default: --gpu on every device)",
         FIELD(device_gpu), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_WHOLE, .parse = set_device_gpus, .format = format_device_gpus},
        {"device-order", 0, "device_order", CONFIG_ARG_NAME, "LIST",
         "physical device of each device of the generated schedule, a permutation of 0..p-1 "
         "(default: 0,1,..,p-1): which GPU (--device-gpus) and node runs each device's ops",
         FIELD(device_order), .commands = CONFIG_TRAINING, .flags = CONFIG_WHOLE,
         .parse = set_device_order, .format = format_device_order},
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
         FIELD(sms), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"gemm-efficiency", 0, "gemm_efficiency", CONFIG_ARG_SHARE, "F",
         "share of peak a large GEMM achieves (default: the GPU's)", FIELD(gemm_efficiency),
         .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"sustained-share", 0, "sustained_share", CONFIG_ARG_SHARE, "F",
         "share of the GEMM and attention rates a training step sustains, at the clock its "
         "power limit holds (default: the GPU's)",
         FIELD(sustained_share), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"fp8-tflops", 0, "fp8_tflops", CONFIG_ARG_RATE, "X",
         "GPU peak dense fp8 TFLOP/s, for --fp8 (default: the GPU's)", FIELD(fp8_tflops),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"fp8-gemm-efficiency", 0, "fp8_gemm_efficiency", CONFIG_ARG_SHARE, "F",
         "share of the fp8 peak a large fp8 GEMM achieves (default: the GPU's)",
         FIELD(fp8_gemm_efficiency), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"attention-efficiency", 0, "attention_efficiency", CONFIG_ARG_SHARE, "F",
         "share of peak flash attention's forward achieves (default: the GPU's)",
         FIELD(attention_efficiency), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"attention-bwd-efficiency", 0, "attention_bwd_efficiency", CONFIG_ARG_SHARE, "F",
         "share of peak flash attention's backward achieves (default: the GPU's)",
         FIELD(attention_bwd_efficiency), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"memory-efficiency", 0, "memory_efficiency", CONFIG_ARG_SHARE, "F",
         "share of memory bandwidth norms, activations, the loss achieve (default: the GPU's)",
         FIELD(memory_efficiency), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"kernel-overhead", 0, "kernel_overhead", CONFIG_ARG_TIME, "US",
         "fixed launch and tail time of every kernel, microseconds (default: the GPU's)",
         FIELD(kernel_overhead), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
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
        {"gpus", 0, "gpus", CONFIG_ARG_COUNT, "N", "total GPUs; sets dp = gpus / (p * tp * cp)",
         FIELD(gpus), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"gpus-per-node", 0, "gpus_per_node", CONFIG_ARG_COUNT, "N", "GPUs per node (default 8)",
         FIELD(gpus_per_node), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL},
        {"global-batch", 0, "global_batch", CONFIG_ARG_COUNT, "N",
         "sequences per step over all replicas; sets m = global batch / (mbs * dp)",
         FIELD(global_batch), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"attention-kernel", 0, "attention_kernel", CONFIG_ARG_NAME, "KIND",
         "flash attention's kernels: best (the GPU's) or fa2 (FlashAttention-2, PyTorch "
         "SDPA's) (default: the framework's, else best)",
         FIELD(attention_kernel), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .values = attention_kernels, .offered = 1},
        {"flash-attention", 0, "flash_attention", CONFIG_ARG_BOOL, "BOOL",
         "attention scores are not stored (default yes)", FIELD(flash_attention),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"sequence-parallel", 0, "sequence_parallel", CONFIG_ARG_BOOL, "BOOL",
         "with --tp, norms and dropouts split over the tp ranks (default yes)",
         FIELD(sequence_parallel), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"fp8", 0, "fp8", CONFIG_ARG_BOOL, "BOOL",
         "the layers' linear GEMMs in fp8 as Transformer Engine runs them (default no; "
         "training: ppsim serve prices bf16)",
         FIELD(fp8), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"unfused-attention-bytes", 0, "unfused_attention_bytes", CONFIG_ARG_TIME, "B",
         "without flash attention: extra forward bytes per attention score (default 15)",
         FIELD(unfused_attention_bytes), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"loss-bytes", 0, "loss_bytes", CONFIG_ARG_TIME, "B",
         "bytes the loss's forward moves per logit (default the framework's, else 38: "
         "Megatron-LM's unfused cross entropy; training)",
         FIELD(loss_bytes), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"loss-bwd-bytes", 0, "loss_bwd_bytes", CONFIG_ARG_TIME, "B",
         "bytes the loss's backward moves per logit (default the framework's, else 14; "
         "training)",
         FIELD(loss_bwd_bytes), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"grad-accum-bytes", 0, "grad_accum_bytes", CONFIG_ARG_TIME, "B",
         "bytes a parameter moves after each micro-batch's backward to add its gradient "
         "into fp32 ones, a pass of its own (default the framework's: 18 for deepspeed, "
         "else 0; training)",
         FIELD(grad_accum_bytes), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .max = 1000},
        {"recompute", 0, "recompute", CONFIG_ARG_NAME, "MODE",
         "activation recomputation: none (default), full or selective", FIELD(recompute),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL, .values = recomputes},
        {"offload", 0, "offload", CONFIG_ARG_SHARE, "F",
         "share of each stage's activations copied to host memory after the forward and back "
         "before the backward (default 0)",
         FIELD(offload), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"host-bandwidth", 0, "host_bandwidth", CONFIG_ARG_RATE, "GBPS",
         "GB/s per direction of a GPU's copies to and from host memory (default: its host "
         "link's share)",
         FIELD(host_bandwidth), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"stage-offload", 0, "stage_offload", CONFIG_ARG_NAME, "LIST",
         "share of each virtual stage's activations offloaded, comma-separated from 0 to 1 "
         "(default: --offload on every stage)",
         FIELD(stage_offload), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_WHOLE, .parse = set_stage_offload, .format = format_stage_offload},
        {"stage-recompute", 0, "stage_recompute", CONFIG_ARG_NAME, "LIST",
         "recomputation of each virtual stage, comma-separated none, selective or full "
         "(default: --recompute on every stage)",
         FIELD(stage_recompute), .commands = CONFIG_TRAINING & ~CONFIG_PARTITION, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_WHOLE, .parse = set_stage_recompute, .format = format_stage_recompute},
        {"distributed-optimizer", 0, "distributed_optimizer", CONFIG_ARG_BOOL, "BOOL",
         "shard optimizer state over dp (default: the framework's, else no)",
         FIELD(distributed_optimizer), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"framework", 0, "framework", CONFIG_ARG_NAME, "NAME",
         "megatron, nemo, deepspeed or torchtitan: what that runtime does by default (overlaps, "
         "sends, flash attention, the loss)",
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
         FIELD(expert_imbalance), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .min = 1},
        {"cp-comm", 0, "cp_comm", CONFIG_ARG_NAME, "KIND",
         "context parallelism's key/value exchange: ring (default) or allgather", FIELD(cp_comm),
         .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL, .values = cp_comms},
        {"tp-overlap", 0, "tp_overlap", CONFIG_ARG_NAME, "MODE",
         "tensor-parallel collectives: none, bulk (backward's beside its GEMMs), pipelined "
         "or default (the framework's, else none; the default)",
         FIELD(tp_overlap), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .values = tp_overlaps, .offered = 1},
        {"overlap-grad-reduce", 0, "overlap_grad_reduce", CONFIG_ARG_BOOL, "BOOL",
         "reduce gradient buckets during the last backward (default: the framework's, else no)",
         FIELD(overlap_grad_reduce), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"overlap-param-gather", 0, "overlap_param_gather", CONFIG_ARG_BOOL, "BOOL",
         "distributed optimizer: gather parameters during the first forwards (default: the "
         "framework's, else no)",
         FIELD(overlap_param_gather), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"grad-reduce-scatter", 0, "grad_reduce_scatter", CONFIG_ARG_BOOL, "BOOL",
         "distributed optimizer: reduce-scatter the gradients (yes), or all-reduce them whole "
         "as DeepSpeed's BF16_Optimizer (no) (default: the framework's, else yes)",
         FIELD(grad_reduce_scatter), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL},
        {"bucket-size", 0, "bucket_size", CONFIG_ARG_RATE, "N",
         "parameters in a gradient bucket (default max(40M, 1M x dp), Megatron's)",
         FIELD(bucket_size), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .min = 1},
        {"comm-slowdown", 0, "comm_slowdown", CONFIG_ARG_TIME, "F",
         "compute takes 1 + F as long beside a collective, which takes SMs (default 0.15, "
         "at most 10)",
         FIELD(comm_slowdown), .commands = CONFIG_TRAINING, .price = CONFIG_PRICE_MODEL,
         .max = 10},
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
         .commands = CONFIG_ALL & ~CONFIG_PARTITION, .price = CONFIG_PRICE_MODEL},
        {"first-stage-layers", 0, "first_stage_layers", CONFIG_ARG_COUNT, "N",
         "layers on the first stage; the rest split over the others", FIELD(first_stage_layers),
         .commands = CONFIG_ALL & ~CONFIG_PARTITION, .price = CONFIG_PRICE_MODEL},
        {"last-stage-layers", 0, "last_stage_layers", CONFIG_ARG_COUNT, "N",
         "layers on the last stage; the rest split over the others", FIELD(last_stage_layers),
         .commands = CONFIG_ALL & ~CONFIG_PARTITION, .price = CONFIG_PRICE_MODEL},
        {"layer-split", 0, "layer_split", CONFIG_ARG_NAME, "RULE",
         "layers that do not divide over the stages: spread (default: the first and last "
         "stages lighter), even (refused) or torchtitan (its own split)",
         FIELD(layer_split), .commands = CONFIG_ALL, .price = CONFIG_PRICE_MODEL,
         .values = layer_splits},
        {"layout", 0, "layout", CONFIG_ARG_NAME, "LAYOUT",
         "the stages' layers as a Megatron-LM pipeline layout string: E embedding, "
         "t layer, m MTP layer, L loss, | between stages, (...)*N and t*N repeat",
         FIELD(layout), .commands = CONFIG_ALL & ~CONFIG_PARTITION, .price = CONFIG_PRICE_MODEL,
         .flags = CONFIG_WHOLE, .parse = config_set_layout},
        {"samples", 0, "samples", CONFIG_ARG_BYTES, "N",
         "also run N samples of the step with --jitter, --link-jitter and --stalls drawn "
         "(default 0: the deterministic run alone)",
         FIELD(samples), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN & ~CONFIG_PARTITION,
         .bytes_max = 10000000,
         .section = "Noise: samples of a step with varying op times, stragglers:"},
        {"seed", 0, "seed", CONFIG_ARG_BYTES, "N",
         "seed of the noise samples and of serve's request generator (default 1)", FIELD(seed),
         .commands = CONFIG_ALL & ~CONFIG_BREAKEVEN & ~CONFIG_PARTITION, .flags = CONFIG_GENERATES},
        {"jitter", 0, "jitter", CONFIG_ARG_NAME, "RULES",
         "op times in samples: [KINDS[@STAGE]=]DIST, DIST normal[:CV], lognormal[:CV] "
         "(CV 0.05 when not given) or empirical:FILE, e.g. lognormal:0.05,B@3=normal:0.1 "
         "(default none)",
         FIELD(jitter), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN & ~CONFIG_PARTITION,
         .parse = config_set_jitter, .format = config_format_jitter, .flags = CONFIG_WHOLE},
        {"link-jitter", 0, "link_jitter", CONFIG_ARG_NAME, "DIST",
         "message times in samples: normal[:CV], lognormal[:CV] or empirical:FILE, as "
         "--jitter's DIST (default none)",
         FIELD(link_jitter), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN & ~CONFIG_PARTITION,
         .parse = config_set_jitter, .format = config_format_jitter, .flags = CONFIG_WHOLE},
        {"straggler", 0, "stragglers", CONFIG_ARG_NAME, "LIST",
         "slow devices DEV:FACTOR[@TIME] and links DEV-DEV:FACTOR[@TIME], in every run "
         "(advise: DEV a GPU of the cluster; default none)",
         FIELD(stragglers), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN,
         .parse = config_set_stragglers, .format = config_format_stragglers, .flags = CONFIG_WHOLE},
        {"stalls", 0, "stalls", CONFIG_ARG_NAME, "EVERY:LENGTH",
         "transient stalls in samples: one per EVERY time units a device runs on average, "
         "LENGTH long (default none)",
         FIELD(stall_every), .commands = CONFIG_TRAINING & ~CONFIG_BREAKEVEN & ~CONFIG_PARTITION,
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
         .flags = CONFIG_GENERATES, .max = PP_MAX_REQUESTS},
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
         "KV-cache capacity in tokens (default and 0: unlimited, or what GPU memory holds)",
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

/* Parses a token-count distribution: fixed:N, uniform:A:B or lognormal:MU:SIGMA. */
static int set_dist(struct config *c, const struct config_option *opt, const char *label,
                    const char *value, struct pp_error *err)
{
	char shown[64]; /* the value in a message, a cut marked "..." */
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
	if (kind == PP_DIST_FIXED && nf == 2 && text_parse_int(f[1], 1, PP_MAX_COUNT, &x) == TEXT_OK) {
		*d = (struct pp_dist){PP_DIST_FIXED, (double)x, 0};
		return 0;
	}
	if (kind == PP_DIST_UNIFORM && nf == 3 && text_parse_int(f[1], 1, PP_MAX_COUNT, &x) == TEXT_OK &&
	    text_parse_int(f[2], x, PP_MAX_COUNT, &y) == TEXT_OK) {
		*d = (struct pp_dist){PP_DIST_UNIFORM, (double)x, (double)y};
		return 0;
	}
	/* exp(16) is about 8.9 million tokens: the median stays below the count limit */
	if (kind == PP_DIST_LOGNORMAL && nf == 3 && text_parse_double(f[1], &a) == TEXT_OK && a >= 0 && a <= 16 &&
	    text_parse_double(f[2], &b) == TEXT_OK && b >= 0 && b <= 4) {
		*d = (struct pp_dist){PP_DIST_LOGNORMAL, a, b};
		return 0;
	}
	return pp_fail(err, PP_ERR_USAGE,
	               "%s '%s': must be fixed:N, uniform:A:B (1 <= A <= B <= %d) or "
	               "lognormal:MU:SIGMA (MU from 0 to 16, SIGMA from 0 to 4)",
	               label, text_visible(shown, sizeof(shown), value), PP_MAX_COUNT);
}

/* Reads item i of a per-stage list (len characters at s) into c; false when it is no item. */
typedef bool stage_item_fn(struct config *c, int i, const char *s, size_t len);

/*
 * A list with an item per virtual stage, comma-separated, read by item into c; *count gets
 * the items. A bad item or more than PP_MAX_LIST of them fails naming what an item must be.
 */
static int set_stage_list(struct config *c, const char *label, const char *value,
                          const char *what, stage_item_fn *item, int *count,
                          struct pp_error *err)
{
	int n = 0;

	for (const char *p = value;; n++) {
		size_t len = strcspn(p, ",");

		if (n == PP_MAX_LIST || !item(c, n, p, len))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%.40s%s': must be up to %d %s, comma-separated (one a "
			               "virtual stage)",
			               label, value, strlen(value) > 40 ? "..." : "", PP_MAX_LIST,
			               what);
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	*count = n + 1;
	return 0;
}

/* Writes the n items of a per-stage list, comma-separated, each by item(c, i, buf, size). */
static void format_stage_list(const struct config *c, int n, char *buf, size_t size,
                              int (*item)(const struct config *c, int i, char *buf, size_t size))
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++) {
		if (i > 0)
			len += (size_t)snprintf(buf + len, size - len, ",");
		if (len < size)
			len += (size_t)item(c, i, buf + len, size - len);
	}
}

static bool offload_item(struct config *c, int i, const char *s, size_t len)
{
	char buf[32];
	double x;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (text_parse_double(buf, &x) != TEXT_OK || !(x >= 0 && x <= 1))
		return false;
	c->stage_offload[i] = x;
	return true;
}

static int offload_text(const struct config *c, int i, char *buf, size_t size)
{
	char x[32];

	/* exact: a sweep's value is this text read back */
	return snprintf(buf, size, "%s", pp_double_format(x, sizeof(x), c->stage_offload[i]));
}

static bool recompute_item(struct config *c, int i, const char *s, size_t len)
{
	for (int k = 0; recomputes[k] != NULL; k++)
		if (strlen(recomputes[k]) == len && strncmp(s, recomputes[k], len) == 0) {
			c->stage_recompute[i] = (signed char)k;
			return true;
		}
	return false;
}

static int recompute_text(const struct config *c, int i, char *buf, size_t size)
{
	return snprintf(buf, size, "%s", recomputes[c->stage_recompute[i]]);
}

/* --stage-offload: a share from 0 to 1 per virtual stage. */
static int set_stage_offload(struct config *c, const struct config_option *opt,
                             const char *label, const char *value, struct pp_error *err)
{
	(void)opt;
	return set_stage_list(c, label, value, "shares from 0 to 1", offload_item,
	                      &c->nstage_offload, err);
}

static void format_stage_offload(const struct config *c, const struct config_option *opt,
                                 char *buf, size_t n)
{
	(void)opt;
	format_stage_list(c, c->nstage_offload, buf, n, offload_text);
}

/* --stage-recompute: one of recomputes per virtual stage. */
static int set_stage_recompute(struct config *c, const struct config_option *opt,
                               const char *label, const char *value, struct pp_error *err)
{
	(void)opt;
	return set_stage_list(c, label, value, "of none, selective and full", recompute_item,
	                      &c->nstage_recompute, err);
}

static void format_stage_recompute(const struct config *c, const struct config_option *opt,
                                   char *buf, size_t n)
{
	(void)opt;
	format_stage_list(c, c->nstage_recompute, buf, n, recompute_text);
}

/* --device-gpus: GPU presets, one a pipeline device, comma-separated; NAME*N stands for N
 * devices in a row of that GPU. */
static int set_device_gpus(struct config *c, const struct config_option *opt, const char *label,
                           const char *value, struct pp_error *err)
{
	size_t ngpus;
	const struct gpu_preset *gpus = preset_gpus(&ngpus);
	int n = 0;

	(void)opt;
	for (const char *p = value;;) {
		size_t len = strcspn(p, ","), name = strcspn(p, "*,");
		char names[512], count[16];
		long long times = 1;
		size_t g = 0;

		while (g < ngpus && (strlen(gpus[g].name) != name || strncmp(p, gpus[g].name, name) != 0))
			g++;
		if (g == ngpus)
			return pp_fail(err, PP_ERR_USAGE, "%s '%.40s%s': unknown GPU '%.*s' (%s)", label,
			               value, strlen(value) > 40 ? "..." : "", (int)(name < 32 ? name : 32),
			               p, preset_names("gpu", names, sizeof(names)));
		if (name < len) {
			snprintf(count, sizeof(count), "%.*s", (int)(len - name - 1 < 15 ? len - name - 1 : 15),
			         p + name + 1);
			if (len - name - 1 > 15 ||
			    text_parse_int(count, 1, PP_MAX_LIST, &times) != TEXT_OK)
				return pp_fail(err, PP_ERR_USAGE,
				               "%s '%.40s%s': '%.*s' must be NAME*N with N from 1 to %d",
				               label, value, strlen(value) > 40 ? "..." : "",
				               (int)(len < 40 ? len : 40), p, PP_MAX_LIST);
		}
		if (times > PP_MAX_LIST - n)
			return pp_fail(err, PP_ERR_USAGE, "%s '%.40s%s': more than %d devices", label,
			               value, strlen(value) > 40 ? "..." : "", PP_MAX_LIST);
		for (long long i = 0; i < times; i++)
			c->device_gpu[n++] = (short)g;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	c->ndevice_gpus = n;
	return 0;
}

/* --device-gpus as runs: "h100-sxm*2,a100-80g". */
static void format_device_gpus(const struct config *c, const struct config_option *opt,
                               char *buf, size_t n)
{
	size_t ngpus, len = 0;
	const struct gpu_preset *gpus = preset_gpus(&ngpus);

	(void)opt;
	(void)ngpus;
	buf[0] = '\0';
	for (int i = 0, j; i < c->ndevice_gpus && len < n; i = j) {
		for (j = i; j < c->ndevice_gpus && c->device_gpu[j] == c->device_gpu[i]; j++)
			;
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "",
		                        gpus[c->device_gpu[i]].name);
		if (j - i > 1 && len < n)
			len += (size_t)snprintf(buf + len, n - len, "*%d", j - i);
	}
}

static void format_dist(const struct config *c, const struct config_option *opt, char *buf,
                        size_t n)
{
	config_dist_format((const struct pp_dist *)(const void *)((const char *)c + opt->offset),
	                   buf, n);
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
	} else if (opt->parse == config_set_schedule) {
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
