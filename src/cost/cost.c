/*
 * Explicit costs (per-stage times, activation amounts, message prices) and what all costs
 * share: the allocation of a cost's per-stage arrays (one block, all eight-byte figures), the
 * stage_scale factors, and the uniformity tests the closed forms need.
 */
#include "ppsim/cost.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "cost_internal.h"

/* The kinds of communication beside the messages, by enum comm_kind: one row each. */
static const struct comm_kind_info comm_kinds[COMM_KINDS] = {
        [COMM_DP] = {"dp", STREAM_DP, "data-parallel gradient reduction and parameter gathers",
                     false},
        [COMM_TP] = {"tp", STREAM_TP, "tensor-parallel collectives", false},
        [COMM_CP] = {"cp", STREAM_TP, "context-parallel key/value exchange", false},
        [COMM_EP] = {"ep", STREAM_EP, "expert-parallel all-to-alls", false},
        [COMM_OFFLOAD] = {"offload", STREAM_D2H, "activation copies to host memory", true},
        [COMM_RELOAD] = {"reload", STREAM_H2D, "activation copies back from host memory", true},
};

const struct comm_kind_info *comm_kind_info(enum comm_kind k)
{
	assert(k < COMM_KINDS);
	return &comm_kinds[k];
}

void cost_pieces_free(struct cost_pieces *pc, int S, int p)
{
	if (pc == NULL)
		return;
	for (int i = 0; pc->plan != NULL && i < 3 * S; i++)
		free(pc->plan[i].steps);
	for (int st = 0; st < S; st++) {
		if (pc->grads != NULL)
			free(pc->grads[st].h);
		if (pc->gather != NULL)
			free(pc->gather[st].h);
	}
	for (int d = 0; pc->after != NULL && d < p; d++)
		free(pc->after[d].h);
	free(pc->plan);
	free(pc->grads);
	free(pc->gather);
	free(pc->after);
	free(pc->offload);
	free(pc);
}

/* Abstract activation amount one F of one chunk allocates (micro-batch equivalents x v). */
#define ACT_PER_CHUNK INT64_C(1000000)

pp_time cost_ticks(double units, int64_t tick)
{
	pp_time t = 0;
	bool ok = pp_time_from_units(units, tick, &t);

	assert(ok);
	(void)ok;
	return t;
}

struct cost *cost_alloc(int S, int64_t tick, const char *time_unit, const struct config *c)
{
	struct cost *k = pp_calloc(1, sizeof(*k));
	size_t n = (size_t)S;
	/* t_f, t_b, t_w, act, act_w, msg_bytes and msg_time: seven arrays of n eight-byte values */
	int64_t *block = pp_mallocarray(7 * n, sizeof(*block));

	if (k == NULL || block == NULL) {
		free(k);
		free(block);
		return NULL;
	}
	k->S = S;
	k->tick = tick;
	k->time_unit = time_unit;
	k->t_f = block;
	k->t_b = block + n;
	k->t_w = block + 2 * n;
	k->act = block + 3 * n;
	k->act_w = block + 4 * n;
	k->msg_bytes = (uint64_t *)(block + 5 * n);
	k->msg_time = block + 6 * n;
	k->comm = c->comm;
	k->duplex = c->duplex;
	k->overlap_factor = c->overlap_factor;
	k->overlap_given = config_is_set(c, "overlap_factor");
	return k;
}

struct cost *cost_new_explicit(const struct config *c, const struct cost_layout *l,
                               double w_fraction)
{
	double bw, lat;
	struct cost *k;
	pp_time msg;
	int S = c->p * c->v;
	struct cost_layout one = {c->p, S, NULL, 1, false};

	if (l == NULL)
		l = &one;
	assert(w_fraction >= 0 && w_fraction <= 1);
	assert(l->S == S && c->v % l->routes == 0);
	config_link(c, &bw, &lat);
	k = cost_alloc(S, pp_run_tick(c->v, l->routes), bw > 0 ? "ms" : "t", c);
	if (k == NULL)
		return NULL;
	msg = cost_ticks(config_msg_time(c), k->tick);
	for (int s = 0; s < S; s++) {
		/* A chunk op takes t/v (with routes t * routes / v): the tick is that many times
		 * finer, so t * PP_TICK_BASE is exact. */
		bool hop = !cost_layout_last(l, s);

		k->t_f[s] = cost_ticks(c->t_f, PP_TICK_BASE);
		k->t_b[s] = cost_ticks(c->t_b, PP_TICK_BASE);
		k->t_w[s] = cost_ticks(c->t_w, PP_TICK_BASE);
		k->act[s] = ACT_PER_CHUNK;
		k->act_w[s] = (int64_t)llround((double)k->act[s] * w_fraction);
		k->msg_bytes[s] = hop ? c->msg_bytes : 0;
		k->msg_time[s] = hop ? msg : 0;
	}
	return k;
}

/*
 * The least time, in ticks, an op of stage st can take with a model: its FLOPs at the GPU's
 * whole peak, the fp8 one with fp8 (0 without a model). A stage scale below it would make the GPU run faster than
 * it can, and MFU come out above 1.
 */
static double peak_ticks(const struct cost *c, const struct cost_layout *l, int st, int op)
{
	const struct cost_model *k = c->model;
	const struct cost_gpu *g;
	double layer, head, peak, moe;

	if (k == NULL)
		return 0;
	/* with fp8 the linear GEMMs may run above the bf16 peak: the higher peak bounds them */
	g = &k->types[k->stage_type[st]].hw;
	peak = k->fp8 && g->fp8_tflops > g->tflops ? g->fp8_tflops : g->tflops;
	layer = op == 0 ? k->layer_flops.f : op == 1 ? k->layer_flops.b : k->layer_flops.w;
	head = !cost_layout_last(l, st) ? 0
	       : op == 0                ? k->last_head_flops.f
	       : op == 1                ? k->last_head_flops.b
	                                : k->last_head_flops.w;
	moe = op == 0 ? k->moe_flops.f : op == 1 ? k->moe_flops.b : k->moe_flops.w;
	return (moe_stage_sum(k, st, layer, moe) + head) / k->tp / (peak * 1e12) * 1e3 *
	       (double)c->tick;
}

/* Scales the compute of a plan by f (its communication stays what the links make it). */
static void scale_plan(struct piece_plan *pl, double f)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->steps[i].what == PIECE_COMPUTE)
			(void)pp_time_scale(pl->steps[i].dur, f, &pl->steps[i].dur);
}

int cost_scale_stages(struct cost *c, const struct config *cfg, const struct cost_layout *l,
                      struct pp_error *err)
{
	static const char *const names[3] = {"F", "B", "W"};

	for (int st = 0; st < c->S; st++) {
		double f = config_stage_scale(cfg, st, (int)l->stage_device[st]);
		pp_time *t[3] = {&c->t_f[st], &c->t_b[st], &c->t_w[st]};

		for (int k = 0; k < 3 && f != 1; k++) {
			pp_time x = 0;
			enum pp_time_scaled how = pp_time_scale(*t[k], f, &x);

			if (how == PP_TIME_TOO_LONG)
				return config_fail(cfg, "stage_scale", err,
				                   "makes stage %d's ops take too long", st);
			if (how == PP_TIME_NO_TICK)
				return config_fail(
				        cfg, "stage_scale", err,
				        "makes stage %d's %s take less than the resolution "
				        "of one tick: it would run as 0",
				        st, names[k]);
			if ((double)*t[k] * f < peak_ticks(c, l, st, k) * (1 - 1e-9))
				return config_fail(
				        cfg, "stage_scale", err,
				        "makes stage %d's %s faster than its FLOPs at the GPU's "
				        "peak (%g TFLOP/s)",
				        st, names[k],
				        c->model->types[c->model->stage_type[st]].hw.tflops);
			*t[k] = x;
			if (c->pieces != NULL)
				scale_plan(&c->pieces->plan[3 * st + k], f);
		}
	}
	return 0;
}

bool cost_every_op_takes_time(const struct config *c)
{
	return !config_has_model(c) && c->t_f > 0 && c->t_b > 0 && c->t_w > 0;
}

bool cost_uniform(const struct cost *c)
{
	for (int s = 1; s < c->S; s++)
		if (c->t_f[s] != c->t_f[0] || c->t_b[s] != c->t_b[0] || c->t_w[s] != c->t_w[0])
			return false;
	return true;
}

bool cost_comm_free(const struct cost *c)
{
	for (int s = 0; s + 1 < c->S; s++)
		if (c->msg_time[s] != 0)
			return false;
	return true;
}

void cost_free(struct cost *c)
{
	if (c == NULL)
		return;
	free(c->t_f); /* the block of every per-stage array */
	cost_pieces_free(c->pieces, c->S, c->pieces_p);
	if (c->model != NULL) {
		free(c->model->stage_layers);
		free(c->model->hop_bandwidth);
		free(c->model->hop_latency);
		free(c->model->device_params);
		free(c->model->device_state_bytes);
		free(c->model->optimizer_ms);
		free(c->model->dp_bandwidth);
		free(c->model->dp_latency);
		free(c->model->stage_moe);
		free(c->model->stage_recompute);
		free(c->model->stage_offload);
		free(c->model->edp_bandwidth);
		free(c->model->edp_latency);
		free(c->model->device_expert_params);
		free(c->model->types);
		free(c->model->device_type);
		free(c->model->stage_type);
		free(c->model);
	}
	free(c);
}
