/*
 * Per-kernel times on one GPU, the parts a layer's op is priced from (docs/cost-model.md, Op
 * times). A GEMM runs at the GPU's large-GEMM efficiency times its wave-quantization share:
 * cuBLAS covers the C matrix with 128 x 256 tiles, one per streaming multiprocessor at a time,
 * so a GEMM of T tiles on N SMs runs ceil(T/N) waves and uses T / (N ceil(T/N)) of the GPU
 * (NVIDIA, "Matrix Multiplication Background User's Guide", tile and wave quantization); it
 * takes at least the time of moving its three matrices at the achieved memory bandwidth (the
 * roofline). An fp8 GEMM (Transformer Engine's) reads 1-byte inputs, writes a bf16 output
 * and runs at the GPU's fp8 peak and its own large-GEMM efficiency, with the same tiles.
 * Flash attention runs at its own share of peak, forward and backward. Those shares are short
 * benchmarks at full clock; a training step sustains the GPU's share of them (the clock its
 * power limit holds), which every GEMM and attention rate is multiplied by. Memory-bound
 * kernels (norms, residual adds, activations, the loss) take their bytes over the
 * achieved bandwidth. Every kernel also pays a fixed launch and tail time.
 */
#include <assert.h>
#include <math.h>

#include "cost_internal.h"

/* The tile cuBLAS picks for large bf16 GEMMs on A100 and H100 (the guide's 256 x 128). */
#define TILE_M 128.0
#define TILE_N 256.0

/* Milliseconds of moving bytes at the achieved bandwidth, without the kernel's fixed time. */
static double moving_ms(const struct cost_gpu *g, double bytes)
{
	return bytes / (g->memory_bandwidth * 1e9 * g->memory_efficiency) * 1e3;
}

double kernel_memory_ms(const struct cost_gpu *g, double bytes)
{
	return moving_ms(g, bytes) + g->kernel_overhead / 1e3;
}

/* batch GEMMs of m x n x k at flops_per_s for a large one, inputs of in_bytes and outputs of
 * out_bytes an element */
static double gemm_ms(const struct cost_gpu *g, double batch, double m, double n, double k,
                      double in_bytes, double out_bytes, double flops_per_s)
{
	/* a narrow GEMM (an attention head's 64 or 128 columns) takes a narrower tile, as the
	 * libraries' heuristics choose: the power of two from 64 that covers n, at most 256 */
	double tile_n = n >= TILE_N / 2 ? (n > TILE_N / 2 ? TILE_N : TILE_N / 2)
	                                : n > TILE_N / 4 ? TILE_N / 2 : TILE_N / 4;
	double tiles = batch * ceil(m / TILE_M) * ceil(n / tile_n);
	/* each SM runs a tile at a time, a partial tile taking a whole one's time (its rows and
	 * columns padded): the GEMM takes its waves' tile slots, so that more work never takes
	 * less (without SMs, its tiles as one wave of them) */
	double slots = g->sms > 0 ? ceil(tiles / g->sms) * g->sms : tiles;
	double math = slots * 2 * TILE_M * tile_n * k / flops_per_s * 1e3;
	double memory = moving_ms(
	        g, batch * (in_bytes * (m * k + k * n + m * n) + (out_bytes - in_bytes) * m * n));

	return (math > memory ? math : memory) + g->kernel_overhead / 1e3;
}

double kernel_bgemm_ms(const struct cost_gpu *g, double batch, double m, double n, double k,
                       int dtype_bytes)
{
	return gemm_ms(g, batch, m, n, k, dtype_bytes, dtype_bytes,
	               g->tflops * 1e12 * g->gemm_efficiency * g->sustained);
}

double kernel_gemm_ms(const struct cost_gpu *g, double m, double n, double k, int dtype_bytes)
{
	return kernel_bgemm_ms(g, 1, m, n, k, dtype_bytes);
}

double kernel_gemm_fp8_ms(const struct cost_gpu *g, double m, double n, double k)
{
	assert(g->fp8_tflops > 0 && g->fp8_gemm_efficiency > 0);
	return gemm_ms(g, 1, m, n, k, 1, 2,
	               g->fp8_tflops * 1e12 * g->fp8_gemm_efficiency * g->sustained);
}

double kernel_bgemm_fp8_ms(const struct cost_gpu *g, double batch, double m, double n, double k)
{
	assert(g->fp8_tflops > 0 && g->fp8_gemm_efficiency > 0);
	return gemm_ms(g, batch, m, n, k, 1, 2,
	               g->fp8_tflops * 1e12 * g->fp8_gemm_efficiency * g->sustained);
}

double kernel_attention_ms(const struct cost_gpu *g, double flops, bool backward)
{
	double eff = backward ? g->attention_bwd_efficiency : g->attention_efficiency;

	return flops / (g->tflops * 1e12 * eff * g->sustained) * 1e3 + g->kernel_overhead / 1e3;
}
