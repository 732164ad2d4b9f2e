/*
 * The schedule table and what every schedule shares: lookup by name, the shape checks, the
 * allocation of a schedule's arrays and the placement of chunks on devices. Each row says what
 * a schedule is (names, placement, backward kind, the v it takes, its closed forms) and points
 * at the functions of its generator's own file (declared in generators.h).
 */
#include "ppsim/sched.h"
#include "generators.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * Row fields a family of schedules shares, said once: one chunk per device, the V placement
 * (device d hosts stages d and 2p-1-d, two chunks), the V shape (V placement with B and W
 * split), the flush schedules' closed form, the peak of the schedules that hold every
 * micro-batch at once, and the zero-bubble greedy pass (one chunk, split, priced).
 */
#define SCHED_ONE_CHUNK    .min_v = 1, .max_v = 1
#define SCHED_V_PLACE      .placement = PLACE_V, .min_v = 2, .max_v = 2
#define SCHED_V_SHAPE      .split = true, SCHED_V_PLACE
#define SCHED_FLUSH_THEORY .theory = {sched_flush_theory, "(p-1)/(m+p-1)"}
#define SCHED_PEAK_ALL     .peak = {sched_peak_all, "m"}
#define SCHED_ZB_AUTO                                                                              \
	.split = true, SCHED_ONE_CHUNK,                                                            \
	.fn = {.generate_priced = sched_zb_auto_generate, .work = sched_greedy_work}

/* The schedules in the order `ppsim list` shows them, one row each. */
static const struct sched_desc table[] = {
        {
                .name = "gpipe",
                .torch = "GPipe",
                .summary = "GPipe: all forwards, then all backwards, in micro-batch order",
                SCHED_ONE_CHUNK,
                .fn = {.generate = sched_gpipe_generate},
                SCHED_FLUSH_THEORY,
                SCHED_PEAK_ALL,
        },
        {
                .name = "1f1b",
                .torch = "1F1B",
                .summary =
                        "1F1B (PipeDream-Flush, Megatron-LM): warm-up, one forward one backward, "
                        "cool-down",
                SCHED_ONE_CHUNK,
                .fn = {.generate = sched_1f1b_generate},
                SCHED_FLUSH_THEORY,
                .peak = {sched_1f1b_peak, "min(p-d, m)"},
        },
        {
                .name = "interleaved",
                .torch = "Interleaved1F1B",
                .summary = "interleaved 1F1B (Megatron-LM, PyTorch): v chunks per device",
                .min_v = 2,
                .groups = true,
                .fn = {.generate = sched_interleaved_generate, .check = sched_interleaved_check},
                .theory = {sched_interleaved_theory, "(p-1)/(m*v+p-1)"},
                .peak = {sched_interleaved_peak, "min(2(p-d-1) + (v-1)g + 1, m*v) / v"},
        },
        {
                .name = "loopedbfs",
                .torch = "LoopedBFS",
                .summary = "looped breadth-first (PyTorch): each chunk's forwards, then backwards",
                .min_v = 1,
                .fn = {.generate = sched_loopedbfs_generate},
                .theory = {sched_loopedbfs_theory, "1 - mv/(v*max(m,p) + min(m,p) - 1)"},
                SCHED_PEAK_ALL,
        },
        {
                .name = "interleaved-zb",
                .torch = "InterleavedZeroBubble",
                .summary = "interleaved zero bubble (PyTorch): interleaved 1F1B with B/W split, W "
                           "fills",
                .split = true,
                .min_v = 2,
                .fn = {.generate = sched_interleaved_zb_generate,
                       .check = sched_interleaved_zb_check},
                .peak = {sched_interleaved_zb_peak, "min((v-1)g + p, m*v) / v"},
        },
        {
                .name = "interleaved-combined",
                .summary = "combined 1F1B (Megatron-Core MoE): interleaved 1F1B with "
                           "overlapped F&B steps",
                .min_v = 2,
                .one_stage_one_chunk = true,
                .groups = true,
                .overlaps = true,
                .fn = {.generate = sched_interleaved_combined_generate,
                       .check = sched_interleaved_combined_check},
                .theory = {sched_interleaved_combined_theory, "(p-1)/(m*v+p-1) at overlap 1"},
                .peak = {sched_interleaved_combined_peak, "min(2(p-d-1) + (v-1)g + 2, m*v) / v"},
        },
        {
                .name = "zbh1",
                .summary =
                        "ZB-H1 (Qi et al. 2024): 1F1B with backward split into B and W, W delayed",
                .split = true,
                SCHED_ONE_CHUNK,
                .fn = {.generate = sched_zbh1_generate},
                .theory = {sched_zbh1_theory, "(p-1)(t_f+t_b-t_w) / makespan"},
                .peak = {sched_zbh1_peak, "p"},
        },
        {
                .name = "zbh2",
                .summary = "ZB-H2 (Qi et al. 2024): 2p-1 warm-up forwards, W fills the tail",
                .split = true,
                SCHED_ONE_CHUNK,
                .fn = {.generate = sched_zbh2_generate, .check = sched_zbh2_check},
                .theory = {sched_zbh2_theory, "(p-1)max(t_f, t_f+t_b-2t_w) / makespan"},
                .peak = {sched_zbh2_peak, "2p-1"},
        },
        {
                .name = "zbv",
                .torch = "ZBVZeroBubble",
                .summary = "ZB-V in PyTorch's fixed order: V placement, B/W split",
                SCHED_V_SHAPE,
                .fn = {.generate = sched_zbv_generate, .work = sched_zbv_work},
                .theory = {sched_zbv_theory, "(p-1)t_f / makespan"},
                .peak = {sched_zbv_peak, "min(p, m)"},
        },
        {
                .name = "zbv-auto",
                .summary =
                        "ZB-V by the authors' greedy (Qi et al. 2024): from the costs, --mem-limit",
                SCHED_V_SHAPE,
                .fn = {.generate_priced = sched_zbv_auto_generate, .work = sched_greedy_work},
                .peak = {NULL, "mem-limit"},
        },
        {
                .name = "vhalf",
                .summary =
                        "V-Half (Qi et al. 2024, controllable memory): half of 1F1B's activations",
                SCHED_V_SHAPE,
                .fn = {.generate = sched_vhalf_generate, .work = sched_vshape_work},
                .peak = {sched_vhalf_peak, "min(floor(p/2) + 1, m)"},
        },
        {
                .name = "vmin",
                .summary = "V-Min (Qi et al. 2024, controllable memory): a third of 1F1B's "
                           "activations",
                SCHED_V_SHAPE,
                .fn = {.generate = sched_vmin_generate, .work = sched_vshape_work},
                .peak = {sched_vmin_peak, "min(floor((p+1)/3) + 1, m)"},
        },
        {
                .name = "1f1b-v",
                .summary = "1F1B-V (zero-bubble authors): V placement, fused backward, low memory",
                SCHED_V_PLACE,
                .fn = {.generate = sched_1f1b_v_generate, .work = sched_vshape_work},
                .peak = {sched_1f1b_v_peak,
                         "min(2m, m + d + 1 + floor(d/2), 2 ceil((2p+1)/3)) / 2"},
        },
        {
                .name = "dualpipev",
                .torch = "DualPipeV",
                .summary = "DualPipeV (DeepSeek, PyTorch): V placement, overlapped F&B pairs",
                SCHED_V_SHAPE,
                .overlaps = true,
                .fn = {.generate = sched_dualpipev_generate,
                       .check = sched_dualpipev_check,
                       .ops_on = sched_dualpipev_ops_on},
                .theory = {sched_dualpipev_theory, "(p-1)(t_fb+t_b-2t_w) on the last device"},
                .peak = {sched_dualpipev_peak, "p + 1/2"},
        },
        {
                .name = "dualpipe",
                .summary = "DualPipe (DeepSeek): bidirectional, two copies of the model, "
                           "overlapped F&B pairs",
                SCHED_V_SHAPE,
                .routes = 2,
                .overlaps = true,
                .fn = {.generate = sched_dualpipe_generate,
                       .check = sched_dualpipe_check,
                       .ops_on = sched_dualpipe_ops_on},
                .theory = {sched_dualpipe_theory, "(p/2-1)(t_fb+t_b-2t_w) on the middle devices"},
                .peak = {sched_dualpipe_peak, "p + 1"},
        },
        {
                .name = "zb-auto",
                .summary =
                        "zero-bubble automatic scheduler (Qi et al. 2024): greedy from the costs, "
                        "--mem-limit",
                SCHED_ZB_AUTO,
                .peak = {NULL, "mem-limit"},
        },
        /* ZB-1p and ZB-2p, the paper's names for the pass under a fixed limit of p and 2p. */
        {
                .name = "zb1p",
                .summary = "zb-auto with an activation limit of p micro-batches (ZB-1p)",
                SCHED_ZB_AUTO,
                .limit_per_p = 1,
                .peak = {NULL, "p"},
        },
        {
                .name = "zb2p",
                .summary = "zb-auto with an activation limit of 2p micro-batches (ZB-2p)",
                SCHED_ZB_AUTO,
                .limit_per_p = 2,
                .peak = {NULL, "2p"},
        },
};
#define NTABLE (sizeof(table) / sizeof(table[0]))

const struct sched_desc *sched_table(size_t *count)
{
	*count = NTABLE;
	return table;
}

const struct sched_desc *sched_find(const char *name)
{
	/* PyTorch's classes are its names with this prefix (ScheduleGPipe) */
	static const char prefix[] = "schedule";
	const size_t n = sizeof(prefix) - 1;
	const char *bare = strncasecmp(name, prefix, n) == 0 ? name + n : NULL;

	for (size_t i = 0; i < NTABLE; i++) {
		const char *torch = table[i].torch;

		if (strcasecmp(table[i].name, name) == 0 ||
		    (torch != NULL && (strcasecmp(torch, name) == 0 ||
		                       (bare != NULL && strcasecmp(torch, bare) == 0))))
			return &table[i];
	}
	return NULL;
}

char *sched_names(char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NTABLE && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", table[i].name);
	return buf;
}

bool sched_takes_mem_limit(const struct sched_desc *desc)
{
	return desc->fn.generate_priced != NULL && desc->limit_per_p == 0;
}

bool sched_takes_overlap_factor(const struct sched_desc *desc)
{
	return desc->overlaps;
}

char *sched_names_that(bool (*takes)(const struct sched_desc *), char *buf, size_t n)
{
	size_t len = 0, count = 0, k = 0;

	for (size_t i = 0; i < NTABLE; i++)
		count += takes(&table[i]);
	buf[0] = '\0';
	for (size_t i = 0; i < NTABLE && len < n; i++)
		if (takes(&table[i])) {
			k++;
			len += (size_t)snprintf(buf + len, n - len, "%s%s",
			                        k == 1       ? ""
			                        : k == count ? (count > 2 ? ", and " : " and ")
			                                     : ", ",
			                        table[i].name);
		}
	return buf;
}

const char *sched_kind_name(enum op_kind kind)
{
	static const char *const names[] = {"F", "B", "W", "BW"};

	assert((unsigned)kind < 4);
	return names[kind];
}

int sched_desc_routes(const struct sched_desc *desc)
{
	return desc->routes > 0 ? desc->routes : 1;
}

bool sched_work(const struct sched_desc *desc, int p, int v, int m, uint64_t *out)
{
	uint64_t work;

	if (!sched_op_count(p, v, m / sched_desc_routes(desc), desc->split, out))
		return false;
	if (desc->fn.work == NULL)
		return true;
	work = desc->fn.work(p, v, m);
	*out = work > *out ? work : *out;
	return work != UINT64_MAX;
}

/* The greedy generators (zb-auto's family, zbv-auto) pass over the ops several times: about
 * three times the work of a fixed order per op (docs/performance.md). */
uint64_t sched_greedy_work(int p, int v, int m)
{
	uint64_t ops;

	return sched_op_count(p, v, m, true, &ops) && pp_mul_u64(ops, 3, &ops) ? ops : UINT64_MAX;
}

bool sched_op_count(int p, int v, int m, bool split, uint64_t *out)
{
	uint64_t n;

	if (p < 0 || v < 0 || m < 0)
		return false;
	return pp_mul_u64((uint64_t)p, (uint64_t)v, &n) && pp_mul_u64(n, (uint64_t)m, &n) &&
	       pp_mul_u64(n, split ? 3 : 2, out);
}

bool sched_message_count(int p, int v, int m, enum placement placement, int routes, uint64_t *out)
{
	uint64_t stages, across;

	if (p < 1 || v < 1 || m < 0 || routes < 1 || v % routes != 0 || m % routes != 0 ||
	    !pp_mul_u64((uint64_t)p, (uint64_t)v, &stages))
		return false;
	/* each route has stages / routes - 1 hops, which its m / routes micro-batches take each
	 * way; one device keeps every hop, and the V's turn from chunk 0 to chunk 1 (on device
	 * p-1) is a hop of one route only */
	across = p == 1 ? 0 : stages - (uint64_t)routes - (placement == PLACE_V && routes == 1);
	return pp_mul_u64(across, 2 * (uint64_t)(m / routes), out);
}

/* Whether desc takes a group size (sched_params.group). */
static bool takes_groups(const struct sched_desc *desc)
{
	return desc->groups;
}

int sched_accepts(const struct sched_desc *desc, const struct sched_params *sp, const char **key,
                  struct pp_error *err)
{
	const char *ignored;

	if (key == NULL)
		key = &ignored;
	*key = "v";
	if (sp->p == 1 && desc->one_stage_one_chunk && sp->v != 1)
		return pp_fail(err, PP_ERR_USAGE, "schedule '%s' needs v=1 with p=1", desc->name);
	if (sp->v < sched_desc_min_v(desc, sp->p) || (desc->max_v > 0 && sp->v > desc->max_v)) {
		if (desc->min_v == desc->max_v)
			return pp_fail(err, PP_ERR_USAGE, "schedule '%s' needs v=%d", desc->name,
			               desc->min_v);
		return pp_fail(err, PP_ERR_USAGE, "schedule '%s' needs v >= %d%s", desc->name,
		               desc->min_v, desc->one_stage_one_chunk ? " with p >= 2" : "");
	}
	*key = "group_size";
	if (sp->group != 0 && !desc->groups) {
		char takers[128];

		return pp_fail(err, PP_ERR_USAGE, "only %s have groups, not '%s'",
		               sched_names_that(takes_groups, takers, sizeof(takers)), desc->name);
	}
	if (desc->fn.check != NULL && desc->fn.check(sp, key, err) != 0)
		return -1;
	*key = "m";
	if (sp->m % sched_desc_routes(desc) != 0)
		return pp_fail(err, PP_ERR_USAGE,
		               "schedule '%s' splits its micro-batches into %d routes: m must be a "
		               "multiple of %d",
		               desc->name, sched_desc_routes(desc), sched_desc_routes(desc));
	return 0;
}

static size_t ops_per_device(const struct sched *s)
{
	return (size_t)s->v * s->route_mbs * (s->split ? 3u : 2u);
}

struct sched *sched_alloc(int p, int v, int m, bool split, enum placement placement)
{
	return sched_alloc_counts(p, v, m, split, placement, NULL);
}

static struct sched *alloc_in(int p, int v, int m, bool split, enum placement placement, int routes,
                              const size_t *counts, struct pp_arena *arena);

struct sched *sched_alloc_counts(int p, int v, int m, bool split, enum placement placement,
                                 const size_t *counts)
{
	return alloc_in(p, v, m, split, placement, 1, counts, NULL);
}

void sched_set_routes(struct sched *s, int routes)
{
	assert(routes >= 1 && s->v % routes == 0 && s->m % routes == 0);
	s->routes = routes;
	s->route_stages = (uint32_t)(s->S / routes);
	s->route_mbs = (uint32_t)(s->m / routes);
}

/* sched_alloc_counts with its routes, and its ops in arena when it has room. */
static struct sched *alloc_in(int p, int v, int m, bool split, enum placement placement, int routes,
                              const size_t *counts, struct pp_arena *arena)
{
	struct sched *s = pp_calloc(1, sizeof(*s));
	size_t per;

	assert(p >= 1 && v >= 1 && m >= 1);
	if (s == NULL)
		return NULL;
	s->p = p;
	s->v = v;
	s->m = m;
	s->S = p * v;
	s->split = split;
	s->placement = placement;
	sched_set_routes(s, routes);
	per = ops_per_device(s);
	s->nops = 0;
	for (int d = 0; d < p; d++)
		s->nops += counts != NULL ? counts[d] : per;
	s->arena = arena;
	s->ops = pp_large_alloc(arena, s->nops, sizeof(*s->ops));
	s->dev_start = pp_mallocarray((size_t)p + 1, sizeof(*s->dev_start));
	s->dev_fill = pp_calloc((size_t)p, sizeof(*s->dev_fill));
	s->stage_device = pp_mallocarray((size_t)s->S, sizeof(*s->stage_device));
	s->stage_chunk = pp_mallocarray((size_t)s->S, sizeof(*s->stage_chunk));
	if (s->ops == NULL || s->dev_start == NULL || s->dev_fill == NULL ||
	    s->stage_device == NULL || s->stage_chunk == NULL) {
		sched_free(s);
		return NULL;
	}
	s->dev_start[0] = 0;
	for (int d = 0; d < p; d++)
		s->dev_start[d + 1] = s->dev_start[d] + (counts != NULL ? counts[d] : per);
	for (int d = 0; d < p; d++)
		for (int c = 0; c < v; c++) {
			int st = sched_stage_of(s, d, c);

			s->stage_device[st] = (uint32_t)d;
			s->stage_chunk[st] = (uint32_t)c;
		}
	return s;
}

/* Asserts that every device received exactly the ops it was allocated. */
static void assert_full(const struct sched *s)
{
	for (int d = 0; d < s->p; d++)
		assert(s->dev_fill[d] == s->dev_start[d + 1] - s->dev_start[d]);
	(void)s;
}

struct sched *sched_new(const struct sched_desc *desc, const struct sched_params *sp)
{
	return sched_new_in(desc, sp, NULL);
}

size_t sched_arena_bytes(size_t nops)
{
	return pp_arena_bytes(nops, sizeof(struct op));
}

bool sched_new_ops(const struct sched_desc *desc, const struct sched_params *sp, uint64_t *out)
{
	if (desc->fn.ops_on == NULL)
		return sched_op_count(sp->p, sp->v, sp->m / sched_desc_routes(desc), desc->split,
		                      out);
	*out = 0;
	for (int d = 0; d < sp->p; d++)
		*out += desc->fn.ops_on(sp->p, sp->m, d);
	return true;
}

struct sched *sched_new_in(const struct sched_desc *desc, const struct sched_params *sp,
                           struct pp_arena *arena)
{
	struct sched *s;

	if (desc->fn.ops_on != NULL) {
		size_t *counts = pp_mallocarray((size_t)sp->p, sizeof(*counts));

		if (counts == NULL)
			return NULL;
		for (int d = 0; d < sp->p; d++)
			counts[d] = desc->fn.ops_on(sp->p, sp->m, d);
		s = alloc_in(sp->p, sp->v, sp->m, desc->split, desc->placement,
		             sched_desc_routes(desc), counts, arena);
		free(counts);
	} else {
		s = alloc_in(sp->p, sp->v, sp->m, desc->split, desc->placement,
		             sched_desc_routes(desc), NULL, arena);
	}
	if (s == NULL)
		return NULL;
	s->desc = desc;
	s->group = sp->group;
	if (desc->fn.generate == NULL)
		return s;
	if (desc->fn.generate(s) != 0) {
		sched_free(s);
		return NULL;
	}
	assert_full(s);
	return s;
}

struct sched *sched_new_layout(const struct sched_desc *desc, const struct sched_params *sp)
{
	size_t *none = pp_calloc((size_t)sp->p, sizeof(*none));
	struct sched *s;

	if (none == NULL)
		return NULL;
	s = alloc_in(sp->p, sp->v, sp->m, desc->split, desc->placement, sched_desc_routes(desc),
	             none, NULL);
	free(none);
	if (s != NULL) {
		s->desc = desc;
		s->group = sp->group;
	}
	return s;
}

int sched_generate_priced(struct sched *s, const struct sched_prices *pr, struct pp_error *err)
{
	assert(s->desc != NULL && s->desc->fn.generate_priced != NULL);
	if (s->desc->fn.generate_priced(s, pr, err) != 0)
		return -1;
	assert_full(s);
	return 0;
}

struct sched_params sched_params_of(const struct sched *s)
{
	struct sched_params sp = {s->p, s->v, s->m, s->group};

	return sp;
}

char *sched_op_format(char *buf, size_t n, const struct op *op)
{
	snprintf(buf, n, "%s(mb %" PRIu32 ", stage %" PRIu32 ")",
	         sched_kind_name((enum op_kind)op->kind), op->mb, op->stage);
	return buf;
}

struct sched *sched_copy(const struct sched *s)
{
	size_t *counts = pp_mallocarray((size_t)s->p, sizeof(*counts));
	struct sched *c = NULL;

	if (counts == NULL)
		return NULL;
	for (int d = 0; d < s->p; d++)
		counts[d] = s->dev_start[d + 1] - s->dev_start[d];
	c = alloc_in(s->p, s->v, s->m, s->split, s->placement, s->routes, counts, NULL);
	free(counts);
	if (c == NULL)
		return NULL;
	c->desc = s->desc;
	c->group = s->group;
	c->mem_limit = s->mem_limit;
	c->mixed = s->mixed;
	c->overlap = s->overlap;
	if (s->nops > 0)
		memcpy(c->ops, s->ops, s->nops * sizeof(*c->ops));
	for (int d = 0; d < s->p; d++)
		c->dev_fill[d] = s->dev_fill[d];
	if (s->dev_logical != NULL) {
		/* the copy's lists lie as s's do: its stages on s's devices */
		c->dev_logical = pp_mallocarray((size_t)s->p, sizeof(*c->dev_logical));
		if (c->dev_logical == NULL) {
			sched_free(c);
			return NULL;
		}
		memcpy(c->dev_logical, s->dev_logical, (size_t)s->p * sizeof(*c->dev_logical));
		memcpy(c->stage_device, s->stage_device, (size_t)s->S * sizeof(*c->stage_device));
	}
	return c;
}

int sched_reorder_devices(struct sched *s, const int *order)
{
	size_t p = (size_t)s->p;
	struct op *ops = pp_mallocarray_large(s->nops > 0 ? s->nops : 1, sizeof(*ops));
	size_t *start = pp_mallocarray(p + 1, sizeof(*start));
	size_t *fill = pp_mallocarray(p, sizeof(*fill));
	uint32_t *logical = pp_mallocarray(p, sizeof(*logical));
	int *from = pp_mallocarray(p, sizeof(*from)); /* the generated device of each device */

	if (ops == NULL || start == NULL || fill == NULL || logical == NULL || from == NULL) {
		free(ops);
		free(start);
		free(fill);
		free(logical);
		free(from);
		return -1;
	}
	for (size_t i = 0; i < p; i++) {
		assert(order[i] >= 0 && (size_t)order[i] < p);
		from[order[i]] = (int)i;
	}
	if (s->nops > 0)
		memcpy(ops, s->ops, s->nops * sizeof(*ops));
	start[0] = 0;
	for (size_t q = 0; q < p; q++) {
		size_t i = (size_t)from[q], n = s->dev_start[i + 1] - s->dev_start[i];

		if (n > 0)
			memcpy(s->ops + start[q], ops + s->dev_start[i], n * sizeof(*ops));
		start[q + 1] = start[q] + n;
		fill[q] = s->dev_fill[i];
		logical[q] = s->dev_logical != NULL ? s->dev_logical[i] : (uint32_t)i;
	}
	for (int st = 0; st < s->S; st++)
		s->stage_device[st] = (uint32_t)order[s->stage_device[st]];
	free(ops);
	free(from);
	free(s->dev_start);
	free(s->dev_fill);
	free(s->dev_logical);
	s->dev_start = start;
	s->dev_fill = fill;
	s->dev_logical = logical;
	return 0;
}

void sched_free(struct sched *s)
{
	if (s == NULL)
		return;
	pp_large_free(s->arena, s->ops);
	free(s->dev_start);
	free(s->dev_fill);
	free(s->stage_device);
	free(s->stage_chunk);
	free(s->dev_logical);
	free(s);
}

int sched_desc_min_v(const struct sched_desc *desc, int p)
{
	return p == 1 && desc->one_stage_one_chunk ? 1 : desc->min_v;
}

int sched_desc_fit_v(const struct sched_desc *desc, int p, int v)
{
	if (p == 1 && desc->one_stage_one_chunk)
		return 1;
	if (v < desc->min_v)
		return desc->min_v;
	return desc->max_v > 0 && v > desc->max_v ? desc->max_v : v;
}
