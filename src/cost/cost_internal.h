/* What the explicit and the model-derived costs share; private to the library. */
#ifndef PPSIM_COST_INTERNAL_H
#define PPSIM_COST_INTERNAL_H

#include "ppsim/cost.h"
#include "ppsim/preset.h"

/* A cost with its per-stage arrays allocated (contents unset) and comm/duplex from c, or NULL
 * when out of memory. */
struct cost *cost_alloc(int S, int64_t tick, const char *time_unit, const struct config *c);

/* Converts a time in units to ticks; asserts it is in range (callers check beforehand). */
pp_time cost_ticks(double units, int64_t tick);

/* Milliseconds of a kernel moving bytes through memory, at the GPU's achieved bandwidth. */
double kernel_memory_ms(const struct cost_gpu *g, double bytes);

/* Milliseconds of an m x n x k GEMM of elements of dtype_bytes: its math at the large-GEMM
 * efficiency times the wave-quantization share, at least its matrices' memory time. */
double kernel_gemm_ms(const struct cost_gpu *g, double m, double n, double k, int dtype_bytes);

/* kernel_gemm_ms of batch GEMMs of one shape run as one kernel (a batched GEMM), whose tiles
 * fill the waves together. */
double kernel_bgemm_ms(const struct cost_gpu *g, double batch, double m, double n, double k,
                       int dtype_bytes);

/* Milliseconds of an m x n x k GEMM of fp8 inputs (1 byte) and a bf16 output (2 bytes): its math
 * at the fp8 peak and the large fp8 GEMM efficiency times the wave-quantization share, at
 * least its matrices' memory time. The GPU must have an fp8 peak. */
double kernel_gemm_fp8_ms(const struct cost_gpu *g, double m, double n, double k);

/*
 * FP8 training as Transformer Engine runs it (docs/cost-model.md, FP8): the bytes per
 * parameter that the fp8 copy of the weights adds, which TE caches once per step for the
 * micro-batches after the first ("Performance Optimizations", FP8 weight caching,
 * is_first_microbatch); its transpose, which Hopper's fp8 GEMMs also use for the backward, is
 * not counted. The cast kernels' bytes per element: a cast reads a bf16 operand and writes it
 * in fp8 (amax taken in the same kernel, 2 + 1 bytes); the weight-gradient GEMM's operands
 * are transposes of fp8 tensors already cast (1 + 1 bytes).
 */
#define FP8_WEIGHT_BYTES    1.0
#define FP8_CAST_BYTES      3.0
#define FP8_TRANSPOSE_BYTES 2.0

/* kernel_gemm_fp8_ms of batch GEMMs of one shape run as one kernel (a grouped GEMM's tiles
 * filling the waves together). */
double kernel_bgemm_fp8_ms(const struct cost_gpu *g, double batch, double m, double n, double k);

/* Milliseconds of flash attention's flops, forward or backward, at the GPU's share for it. */
double kernel_attention_ms(const struct cost_gpu *g, double flops, bool backward);

/* A layer's own figures (layer.c): cost_layer_figures gives k's per-layer and LM-head FLOPs,
 * parameters and activation bytes, then the expert layers' (moe_figures); cost_layer_times
 * the op times of a layer and of the head on GPU type ty (TP collectives apart). */
void cost_layer_figures(struct cost_model *k);
void cost_layer_times(const struct cost_model *k, struct cost_type *ty);

/* The bytes per token an MLP of width ffn keeps for its backward that tensor parallelism splits
 * (cost_model.c): its GEMM-in output (one or, gated, two ffn wide) and the activation's output,
 * 2 bytes each in the 16-bit count that Korthikanti et al.'s constants use. */
double cost_mlp_act_width(const struct cost_model *k, double ffn);

/* Placement of k's groups on its nodes (placement.c): whether every replica's hop between
 * pipeline ranks d and e stays inside a node; the fewest GPUs one node holds of any group of n
 * GPUs stride apart in the pipeline rank whose GPUs start at GPU first (n when every group is
 * inside a node), and the same over every pipeline rank, the group every GPU waits for. */
bool cost_hop_inside(const struct cost_model *k, int d, int e);
int cost_fewest_in_rank(const struct cost_model *k, long long first, int stride, int n);
int cost_fewest_per_node(const struct cost_model *k, int stride, int n);

/* Fills cost->pieces from its resolved model for layout l (cost_pieces.c): tensor- and
 * context-parallel collectives as plans of each op (t_f, t_b and t_w become their compute),
 * data-parallel buckets and gathers as hooks. Returns 0, or -1 with err set. */
int cost_model_pieces(const struct config *c, const struct cost_layout *l, struct cost *cost,
                      struct pp_error *err);

/* Mixture of experts (moe.c). moe_resolve reads the experts' figures of c and the preset mp
 * into k and checks them against the parallel degrees (0, or -1 with err set);
 * moe_stage_layers counts each stage's expert layers into k->stage_moe; moe_figures gives an
 * expert layer's parameters (attn_params: its attention's), FLOPs and activations;
 * moe_times its op times on GPU type ty from its attention part's, into ty; moe_exchanges its all-to-all, with
 * per_node GPUs of the expert-parallel group in a node. moe_stage_sum is a figure of stage st's
 * layers: dense of each dense layer, moe of each expert layer. */
int moe_resolve(const struct config *c, const struct model_preset *mp, struct cost_model *k,
                struct pp_error *err);
void moe_stage_layers(struct cost_model *k, int S);
void moe_figures(struct cost_model *k, double attn_params);
void moe_times(const struct cost_model *k, struct cost_type *ty,
               const struct cost_flops *attention);
void moe_exchanges(struct cost_model *k, int per_node);
double moe_stage_sum(const struct cost_model *k, int st, double dense, double moe);
/* Whether the model's last layer, and so each multi-token-prediction layer (a layer of the
 * model's last kind), is an expert layer. */
bool moe_last_is_expert(const struct cost_model *k);
/* Stage st's layers in all and of them the expert layers, the MTP layers of the last stage
 * included. */
void moe_stage_counts(const struct cost_model *k, int st, int *n, int *nm);

/* cost_pieces.c: the parameters a GPU of stage st holds (its layers' over tp, the embedding on
 * the first stage of each route, the head and the MTP layers' projections on the last; not its
 * routed experts, which their own group holds), of them the embedding's and the head's (no
 * fp8 copy: they are no Transformer Engine layers), and the time of the pass after each of its
 * backwards that adds every gradient into fp32 ones (--grad-accum-bytes; 0 without one). */
double cost_stage_params(const struct cost_model *k, const struct cost_layout *l, int st);
double cost_stage_embed_params(const struct cost_model *k, const struct cost_layout *l, int st);
double cost_grad_accum_ms(const struct cost_model *k, const struct cost_layout *l, int st);

#endif
