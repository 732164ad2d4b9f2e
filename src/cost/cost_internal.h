/* What the explicit and the model-derived costs share; private to the library. */
#ifndef PPSIM_COST_INTERNAL_H
#define PPSIM_COST_INTERNAL_H

#include "ppsim/cost.h"

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

/* Milliseconds of flash attention's flops, forward or backward, at the GPU's share for it. */
double kernel_attention_ms(const struct cost_gpu *g, double flops, bool backward);

/* Fills cost->pieces from its resolved model for layout l (cost_pieces.c): tensor- and
 * context-parallel collectives as plans of each op (t_f, t_b and t_w become their compute),
 * data-parallel buckets and gathers as hooks. Returns 0, or -1 with err set. */
int cost_model_pieces(const struct config *c, const struct cost_layout *l, struct cost *cost,
                      struct pp_error *err);

#endif
