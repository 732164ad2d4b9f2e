/*
 * A transformer layer's own figures (docs/cost-model.md): per layer with P linear parameters and
 * t = b*s tokens, the forward takes 2Pt + 4bs^2h FLOPs, the input-gradient backward 2Pt + 8bs^2h
 * and the weight-gradient backward 2Pt (the zero-bubble paper's Table 1 generalised; the s^2
 * attention terms are counted without causal masking's halving); the last stage adds the LM
 * head, 2tHV FLOPs for each of F, B and W. Activations follow Korthikanti et al. 2022 with
 * sequence parallelism, counted from the attention's and the MLP's widths (34sbh/tp bytes per
 * layer for GPT-3's) with flash attention, 5as^2b/tp more without, none of it with selective
 * recomputation (whose backward then runs the attention core again), 2sbh/tp with full
 * recomputation (whose backward then recomputes the forward); the last stage also keeps fp32
 * logits, 4sbV/tp. And the kernel times of a layer and of the head on one GPU type.
 */
#include <math.h>

#include "cost_internal.h"

void cost_layer_figures(struct cost_model *k)
{
	double h = k->hidden, s = k->seq, b = k->mbs, t = b * s, a = k->heads;
	double q = k->q_dim, kv = k->kv_dim, attn_params = 2 * h * q + 2 * h * kv;
	/* the attention core's full count: scores (q wide) and their product with the values */
	double core = 2 * b * s * s * (q + k->o_dim);

	/* latent attention's down projections run whole on every tensor-parallel rank
	 * (Megatron-Core's duplicated linear layers) */
	k->tp_whole_params = k->kv_lora_rank <= 0 ? 0
	                     : (k->q_lora_rank > 0 ? h * k->q_lora_rank : 0) +
	                               h * (k->kv_lora_rank + k->rope_dim);
	if (k->kv_lora_rank > 0) /* latent attention's projections, down and up */
		attn_params = (k->q_lora_rank > 0 ? h * k->q_lora_rank + k->q_lora_rank * q : h * q) +
		              h * (k->kv_lora_rank + k->rope_dim) +
		              k->kv_lora_rank * (k->kv_dim - (double)k->kv_heads * k->rope_dim +
		                                 k->kvv_dim) +
		              k->o_dim * h;
	else if (k->o_dim != q)
		attn_params = h * q + h * kv + h * k->kvv_dim + k->o_dim * h;
	k->layer_params = attn_params + (k->gated_mlp ? 3 : 2) * h * k->ffn;
	k->layer_flops.f = 2 * k->layer_params * t + core;
	k->layer_flops.b = 2 * k->layer_params * t + 2 * core;
	k->layer_flops.w = 2 * k->layer_params * t;
	k->head_flops.f = k->head_flops.b = k->head_flops.w = 2 * t * h * k->vocab;
	/* each MTP layer adds a projection of 2h to h and a head */
	k->last_head_flops.f = k->head_flops.f * (1 + k->mtp_layers) + k->mtp_layers * 2 * t * 2 * h * h;
	k->last_head_flops.b = k->last_head_flops.w = k->last_head_flops.f;
	/*
	 * Korthikanti et al.'s count, tensor by tensor, of 16-bit activations (scaled for other
	 * widths), per token: the norms' inputs, the inputs of the QKV and MLP-in GEMMs and the two
	 * dropout masks, 10h, are split over tp only with sequence parallelism, as are latent
	 * attention's compressed tensors (its two norms' inputs and its up projections', each
	 * rank's whole) and the layer input that full recomputation keeps; Q, K, V and the output
	 * projection's input (2 bytes each of their widths) and the MLP's (its GEMM-in output, one
	 * or, gated, two ffn wide, and the activation's output) are split over tp. With the
	 * attention of GPT-3 (q, k, v and o h wide) and its 4h MLP that is their 34h: 10h + 24h.
	 */
	double rep = k->sequence_parallel ? 1.0 / k->tp : 1.0;
	double latent = k->kv_lora_rank > 0 ? 4.0 * (k->q_lora_rank + k->kv_lora_rank) : 0;
	double split = 2 * (q + kv + k->kvv_dim + k->o_dim) + cost_mlp_act_width(k, k->ffn);

	for (int r = 0; r < 3; r++) {
		double *act = &k->layer_act_by[r];

		if (r == PP_RECOMPUTE_FULL)
			*act = 2 * s * b * h * rep;
		else if (k->flash_attention || r == PP_RECOMPUTE_SELECTIVE)
			*act = s * b * ((10 * h + latent) * rep + split / k->tp);
		else
			*act = s * b * ((10 * h + latent) * rep + (split + 5 * a * s) / k->tp);
		*act *= k->dtype_bytes / 2.0 / k->cp;
	}
	k->layer_act_bytes = k->layer_act_by[k->recompute];
	k->msg_bytes = (uint64_t)(b * s * h * k->dtype_bytes / k->tp / k->cp);
	moe_figures(k, attn_params);
}

double cost_mlp_act_width(const struct cost_model *k, double ffn)
{
	return 2 * ((k->gated_mlp ? 2 : 1) * ffn + ffn);
}

double cost_model_compute_ms(const struct cost_model *k, const struct cost_gpu *g, double flops)
{
	double eff = k->efficiency > 0 ? k->efficiency : g->gemm_efficiency * g->sustained;

	return flops / (g->tflops * 1e12 * eff) * 1e3;
}

/*
 * The op times of one layer and of the LM head on one GPU of type ty (TP all-reduces apart),
 * into ty->layer_ms and ty->head_ms. With --efficiency, every op's FLOPs run at that share of peak;
 * else each kernel is priced (kernels.c): the layer's four GEMMs (QKV, output projection, MLP
 * in and out, each split over tp) as forward, input-gradient and weight-gradient GEMMs;
 * attention, causal, as flash kernels (half the s^2 work of the full count, the backward 2.5
 * times the forward's) or, without flash, as batched GEMMs over the full scores plus the
 * softmax's and dropout's bytes (the forward part is ty->attn_fwd_ms); and the
 * memory-bound kernels: two norms and two residual adds on t/tp tokens (sequence parallelism),
 * the MLP activation on t tokens, each read and written once forward and twice backward. The
 * head is one GEMM of h x V/tp and the loss over fp32 logits. With fp8, the four GEMMs run in
 * fp8 with their casts (FP8_CAST_BYTES, FP8_TRANSPOSE_BYTES); attention and the head stay in
 * bf16, as Transformer Engine and Megatron-LM keep them.
 */
void cost_layer_times(const struct cost_model *k, struct cost_type *ty)
{
	const struct cost_gpu *g = &ty->hw;
	/* with context parallelism a GPU holds s / cp of each sequence's tokens, whose queries
	 * meet all s keys: the attention core's work is 1/cp of the sequence's */
	double h = k->hidden, s = k->seq, b = k->mbs, cp = k->cp, t = b * s / cp, tp = k->tp;
	double V = k->vocab, kv = k->kv_dim, q = k->q_dim, e = k->dtype_bytes;
	/* the layer's GEMMs, K = in and N = out wide: the attention's (na of them), then the
	 * MLP's in (gate and up when gated) and out */
	double gemm[7][2];
	int na = 0, ng;
	double attn = 2 * b * s * s * (q + k->o_dim) / tp / cp;
	double act = (k->gated_mlp ? 3 : 2) * k->ffn / tp;
	struct cost_flops *l = &ty->layer_ms, *hd = &ty->head_ms;
	/* the attention half of a layer (its first two GEMMs, the core, the norms and adds):
	 * what an expert layer keeps of it (moe.c) */
	struct cost_flops half = {0, 0, 0};

	if (k->kv_lora_rank > 0) {
		/* latent attention: the down projections whole on every TP rank, the up ones
		 * split by heads */
		double r = k->kv_lora_rank, rope = k->rope_dim;

		if (k->q_lora_rank > 0) {
			gemm[na][0] = h, gemm[na++][1] = k->q_lora_rank;
			gemm[na][0] = k->q_lora_rank, gemm[na++][1] = q / tp;
		} else {
			gemm[na][0] = h, gemm[na++][1] = q / tp;
		}
		gemm[na][0] = h, gemm[na++][1] = r + rope;
		gemm[na][0] = r, gemm[na++][1] = (kv - k->kv_heads * rope + k->kvv_dim) / tp;
	} else {
		gemm[na][0] = h, gemm[na++][1] = (q + kv + k->kvv_dim) / tp; /* QKV */
	}
	gemm[na][0] = k->o_dim / tp, gemm[na++][1] = h; /* the output projection */
	ng = na;
	gemm[ng][0] = h, gemm[ng++][1] = (k->gated_mlp ? 2 : 1) * k->ffn / tp;
	gemm[ng][0] = k->ffn / tp, gemm[ng++][1] = h;
	if (k->efficiency > 0) {
		ty->attn_fwd_ms = cost_model_compute_ms(k, g, attn);
		ty->attn_bwd_ms = 2 * ty->attn_fwd_ms;
		l->f = cost_model_compute_ms(k, g, k->layer_flops.f / tp / cp);
		l->b = cost_model_compute_ms(k, g, k->layer_flops.b / tp / cp);
		l->w = cost_model_compute_ms(k, g, k->layer_flops.w / tp / cp);
		hd->f = cost_model_compute_ms(k, g, k->head_flops.f / tp / cp);
		hd->b = cost_model_compute_ms(k, g, k->head_flops.b / tp / cp);
		hd->w = cost_model_compute_ms(k, g, k->head_flops.w / tp / cp);
		ty->last_head_ms.f = cost_model_compute_ms(k, g, k->last_head_flops.f / tp / cp);
		ty->last_head_ms.b = cost_model_compute_ms(k, g, k->last_head_flops.b / tp / cp);
		ty->last_head_ms.w = cost_model_compute_ms(k, g, k->last_head_flops.w / tp / cp);
		if (k->experts > 0) {
			double dense = (k->gated_mlp ? 3 : 2) * h * k->ffn * 2 * b * s / tp / cp;

			half.f = l->f - cost_model_compute_ms(k, g, dense);
			half.b = l->b - cost_model_compute_ms(k, g, dense);
			half.w = l->w - cost_model_compute_ms(k, g, dense);
			moe_times(k, ty, &half);
		}
		return;
	}
	*l = (struct cost_flops){0, 0, 0};
	for (int i = 0; i < ng && !k->fp8; i++) {
		l->f += kernel_gemm_ms(g, t, gemm[i][1], gemm[i][0], k->dtype_bytes);
		l->b += kernel_gemm_ms(g, t, gemm[i][0], gemm[i][1], k->dtype_bytes);
		l->w += kernel_gemm_ms(g, gemm[i][0], gemm[i][1], t, k->dtype_bytes);
		if (i == na - 1)
			half = *l;
	}
	for (int i = 0; i < ng && k->fp8; i++) {
		/* each GEMM's activation operand cast to fp8: the input (t x K) forward, the
		 * output gradient (t x N) backward; W transposes both */
		double in = t * gemm[i][0], out = t * gemm[i][1];

		l->f += kernel_gemm_fp8_ms(g, t, gemm[i][1], gemm[i][0]) +
		        kernel_memory_ms(g, FP8_CAST_BYTES * in);
		l->b += kernel_gemm_fp8_ms(g, t, gemm[i][0], gemm[i][1]) +
		        kernel_memory_ms(g, FP8_CAST_BYTES * out);
		l->w += kernel_gemm_fp8_ms(g, gemm[i][0], gemm[i][1], t) +
		        kernel_memory_ms(g, FP8_TRANSPOSE_BYTES * (in + out));
		if (i == na - 1)
			half = *l;
	}
	if (k->flash_attention) {
		ty->attn_fwd_ms = kernel_attention_ms(g, attn / 2, false);
		ty->attn_bwd_ms = kernel_attention_ms(g, 2.5 * attn / 2, true);
		l->b += ty->attn_bwd_ms;
	} else {
		/* batched GEMMs over the b x a/tp heads of head size d, the full s x s scores (no
		 * block is skipped), and Megatron-LM's fused scale-mask-softmax and attention
		 * dropout over them: forward Q K^T and P V, then the softmax reading and writing
		 * the scores and the dropout reading them and writing them and its 1-byte mask
		 * (the forward's unexplained excess, unfused_attention_bytes, counted with it);
		 * backward the dropout's and the softmax's gradients (2e + 1 and 3e bytes a score)
		 * and four products (dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q): those of
		 * the values (P V, dP, dV) at the value head size dv, the others at the key's d */
		double heads = b * k->heads / tp, d = q / k->heads, dv = k->o_dim / k->heads;
		double sq = s / cp, n = heads * sq * s;

		ty->attn_fwd_ms = kernel_bgemm_ms(g, heads, sq, s, d, k->dtype_bytes) +
		                 kernel_bgemm_ms(g, heads, sq, dv, s, k->dtype_bytes) +
		                 kernel_memory_ms(g, 2 * e * n) +
		                 kernel_memory_ms(g, (2 * e + 1 + k->unfused_attention_bytes) * n);
		ty->attn_bwd_ms = kernel_bgemm_ms(g, heads, sq, s, dv, k->dtype_bytes) +
		                 kernel_bgemm_ms(g, heads, sq, dv, s, k->dtype_bytes) +
		                 2 * kernel_bgemm_ms(g, heads, sq, d, s, k->dtype_bytes) +
		                 kernel_memory_ms(g, (2 * e + 1) * n) + kernel_memory_ms(g, 3 * e * n);
		l->b += ty->attn_bwd_ms;
	}
	l->f += ty->attn_fwd_ms;
	half.f += ty->attn_fwd_ms;
	half.b += ty->attn_bwd_ms;
	for (int i = 0; i < 4; i++) {
		/* norms read and write h, residual adds read 2h and write h, per token: t/tp of
		 * them with sequence parallelism, else every rank runs them on all t */
		double bytes = e * t / (k->sequence_parallel ? tp : 1) * (i < 2 ? 2 * h : 3 * h);

		l->f += kernel_memory_ms(g, bytes);
		l->b += kernel_memory_ms(g, 2 * bytes);
		half.f += kernel_memory_ms(g, bytes);
		half.b += kernel_memory_ms(g, 2 * bytes);
	}
	moe_times(k, ty, &half);
	l->f += kernel_memory_ms(g, e * t * act);
	l->b += kernel_memory_ms(g, 2 * e * t * act);
	hd->f = kernel_gemm_ms(g, t, V / tp, h, k->dtype_bytes) +
	        kernel_memory_ms(g, k->loss_bytes * t * V / tp);
	hd->b = kernel_gemm_ms(g, t, h, V / tp, k->dtype_bytes) +
	        kernel_memory_ms(g, k->loss_bwd_bytes * t * V / tp);
	hd->w = kernel_gemm_ms(g, h, V / tp, t, k->dtype_bytes);
	/* each MTP layer: a projection of the hidden state and the next token's embedding (2h to
	 * h, split over tp) and another head */
	ty->last_head_ms = *hd;
	for (int i = 0; i < k->mtp_layers; i++) {
		ty->last_head_ms.f += hd->f + kernel_gemm_ms(g, t, h / tp, 2 * h, k->dtype_bytes);
		ty->last_head_ms.b += hd->b + kernel_gemm_ms(g, t, 2 * h, h / tp, k->dtype_bytes);
		ty->last_head_ms.w += hd->w + kernel_gemm_ms(g, 2 * h, h / tp, t, k->dtype_bytes);
	}
}
