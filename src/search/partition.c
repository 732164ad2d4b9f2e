/*
 * Partitions (include/ppsim/partition.h): every candidate is a run of the base config with its
 * layers, recomputation and (with --offload) offload per virtual stage, simulated as `ppsim run`
 * simulates it, so that the schedule, the streams and the memory model judge it, not a proxy.
 * Candidates are compared by whether they fit (then by how far the devices overflow, summed),
 * then by step, then by how much they recompute, then by how many stages offload, then by their
 * layers, so that a search's answer does not depend on the order it met them. A small space is
 * simulated whole; a large one is searched by steepest descent from two starts (the even split
 * and the split that balances the stages' priced work), each round simulating every move of one
 * layer from a stage to another (the stages between keep their counts), of one stage to another
 * recomputation and of one stage's offload on or off, on the given threads, with every run
 * remembered so that none repeats.
 */
#include "ppsim/partition.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/cost.h"
#include "ppsim/sim.h"

/* Most threads a search runs candidates on. */
#define PARTITION_MAX_THREADS 64

/* How much a recomputation recomputes (none < selective < full), by enum pp_recompute. */
static int rc_level(int rc)
{
	return rc == PP_RECOMPUTE_FULL ? 2 : rc == PP_RECOMPUTE_SELECTIVE ? 1 : 0;
}

static const signed char rc_of_level[3] = {PP_RECOMPUTE_NONE, PP_RECOMPUTE_SELECTIVE,
                                           PP_RECOMPUTE_FULL};

/* A remembered candidate: its stages (S layer counts, then S recomputations) and its run,
 * which stays where it is while the table grows. */
struct entry {
	int *key; /* [2 S] */
	struct partition_choice *run;
};

/* The search's state: the base config, the space's bounds and the runs so far. */
struct search {
	const struct config *base;
	int S, L, jobs;
	bool rc_free;         /* recomputation is searched */
	bool off_free;        /* offload (base's --offload share or none) is searched */
	double share;         /* that share */
	double quantum;       /* steps compare in multiples of it (partition_step_cmp) */
	int *min;             /* [S] fewest layers of each stage */
	struct entry *table;  /* open addressing, cap a power of two */
	size_t cap, n;
	uint64_t simulated;
	struct pp_error *err;
	bool nomem;
};

/* A candidate being built: layers and recomputation per stage. */
struct cand {
	int *layers;
	signed char *rc;
	signed char *off; /* 1: the stage offloads the search's share */
};

static uint64_t hash_key(const int *key, int n)
{
	uint64_t h = UINT64_C(1469598103934665603);

	for (int i = 0; i < n; i++) {
		h ^= (uint64_t)(uint32_t)key[i];
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/* A candidate's key: its layers, recomputations and offloads, 3 S ints. */
#define KEYLEN(z) (3 * (size_t)(z)->S)

static void fill_key(const struct search *z, const struct cand *c, int *key)
{
	for (int s = 0; s < z->S; s++) {
		key[s] = c->layers[s];
		key[z->S + s] = c->rc[s];
		key[2 * z->S + s] = c->off[s];
	}
}

/* The entry of key, or the empty slot where it goes. */
static struct entry *slot_of(const struct search *z, const int *key)
{
	size_t mask = z->cap - 1, i = (size_t)hash_key(key, (int)KEYLEN(z)) & mask;

	while (z->table[i].key != NULL &&
	       memcmp(z->table[i].key, key, KEYLEN(z) * sizeof(int)) != 0)
		i = (i + 1) & mask;
	return &z->table[i];
}

/* Grows the table to hold more entries at most half full; false when out of memory. */
static bool grow(struct search *z, size_t more)
{
	struct entry *old = z->table;
	size_t ocap = z->cap, cap = ocap ? ocap : 256;

	while (2 * (z->n + more) > cap)
		cap *= 2;
	if (cap == ocap)
		return true;
	z->table = pp_calloc(cap, sizeof(*z->table));
	if (z->table == NULL) {
		z->table = old;
		return false;
	}
	z->cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].key != NULL)
			*slot_of(z, old[i].key) = old[i];
	free(old);
	return true;
}

/* Copies choice x (S stages) into a fresh one; false when out of memory. */
static bool copy_choice(struct partition_choice *to, const struct partition_choice *x, int S)
{
	*to = *x;
	to->layers = pp_mallocarray((size_t)S, sizeof(*to->layers));
	to->recompute = pp_mallocarray((size_t)S, sizeof(*to->recompute));
	to->offload = pp_mallocarray((size_t)S, sizeof(*to->offload));
	if (to->layers == NULL || to->recompute == NULL || to->offload == NULL) {
		free(to->layers);
		free(to->recompute);
		free(to->offload);
		memset(to, 0, sizeof(*to));
		return false;
	}
	memcpy(to->layers, x->layers, (size_t)S * sizeof(*to->layers));
	memcpy(to->recompute, x->recompute, (size_t)S * sizeof(*to->recompute));
	memcpy(to->offload, x->offload, (size_t)S * sizeof(*to->offload));
	return true;
}

static void free_choice(struct partition_choice *x)
{
	free(x->layers);
	free(x->recompute);
	free(x->offload);
	memset(x, 0, sizeof(*x));
}

void partition_apply(struct config *c, int S, const struct partition_choice *x)
{
	c->layout[0] = '\0';
	c->first_stage_layers = 0;
	c->last_stage_layers = 0;
	c->nlayers_per_stage = S;
	c->nstage_recompute = S;
	for (int s = 0; s < S; s++) {
		c->layers_per_stage[s] = x->layers[s];
		c->stage_recompute[s] = x->recompute[s];
	}
	/* the offload: the chosen stages the search's share, as --stage-offload gives it */
	if (x->offload == NULL)
		return;
	c->nstage_offload = S;
	for (int s = 0; s < S; s++)
		c->stage_offload[s] = x->offload[s] ? x->share : 0;
}

/* How much choice x recomputes in all. */
static int recomputed(const struct partition_choice *x, int S)
{
	int n = 0;

	for (int s = 0; s < S; s++)
		n += rc_level(x->recompute[s]);
	return n;
}

int partition_step_cmp(double a, double b, double quantum)
{
	if (quantum > 0) {
		a = floor(a / quantum + 0.5);
		b = floor(b / quantum + 0.5);
	}
	return a < b ? -1 : a > b;
}

long long partition_squares(const struct partition_choice *x, int S)
{
	long long q = 0;

	for (int s = 0; s < S; s++)
		q += (long long)x->layers[s] * x->layers[s];
	return q;
}

/* Whether a is a better choice than b: it fits (or overflows less), then its step is shorter,
 * then it recomputes less, then it offloads less, then its layers are spread more evenly (the
 * smaller sum of squares: a tie with the even split keeps it), then its layers come first. A
 * run that failed is worst. */
static bool better(const struct partition_choice *a, const struct partition_choice *b, int S,
                   double quantum)
{
	int ra, rb;

	if (!b->set)
		return a->set;
	if (!a->set)
		return false;
	if (a->overflow != b->overflow)
		return a->overflow < b->overflow;
	if (partition_step_cmp(a->step, b->step, quantum) != 0)
		return partition_step_cmp(a->step, b->step, quantum) < 0;
	ra = recomputed(a, S);
	rb = recomputed(b, S);
	if (ra != rb)
		return ra < rb;
	ra = rb = 0;
	for (int s = 0; s < S; s++) {
		ra += a->offload[s];
		rb += b->offload[s];
	}
	if (ra != rb)
		return ra < rb; /* fewer copies over the host link */
	if (partition_squares(a, S) != partition_squares(b, S))
		return partition_squares(a, S) < partition_squares(b, S);
	for (int s = 0; s < S; s++) {
		if (a->layers[s] != b->layers[s])
			return a->layers[s] < b->layers[s];
		if (a->recompute[s] != b->recompute[s])
			return rc_level(a->recompute[s]) < rc_level(b->recompute[s]);
		if (a->offload[s] != b->offload[s])
			return a->offload[s] < b->offload[s];
	}
	return false;
}

/*
 * Simulates base with candidate x's stages, using cfg as scratch, into x's figures (x->set
 * false when the run is refused). Returns 0, or -1 when out of memory (err set).
 */
static int simulate(const struct search *z, struct config *cfg, struct partition_choice *x,
                    struct pp_error *err)
{
	struct sim *s;
	*cfg = *z->base;
	partition_apply(cfg, z->S, x);
	if (!z->rc_free)
		cfg->nstage_recompute = 0;
	if (!z->off_free)
		cfg->nstage_offload = z->base->nstage_offload; /* the run's own offload */
	if (!z->off_free)
		memcpy(cfg->stage_offload, z->base->stage_offload, sizeof(cfg->stage_offload));
	s = sim_run_flags(cfg, SIM_NO_OP_TIMES, err);
	x->set = s != NULL;
	if (s == NULL)
		return err->kind == PP_ERR_NOMEM ? -1 : 0;
	x->step = s->metrics.step_time;
	x->overflow = 0;
	x->peak = 0;
	x->peak_device = 0;
	x->critical_device = 0;
	x->device_busy_max = 0;
	for (int d = 0; d < s->sched->p; d++) {
		const struct device_metrics *m = &s->metrics.devices[d];

		/* over its own GPU's room (mixed GPUs differ), summed over the devices: a move
		 * that brings one of several devices under is better, so that a descent from
		 * a run over memory everywhere has a way down */
		double over = m->memory_bytes - (m->capacity_bytes - m->reserve_bytes);

		if (over > 0)
			x->overflow += over;
		if (m->memory_bytes > x->peak) {
			x->peak = m->memory_bytes;
			x->peak_device = d;
		}
		if (m->end > s->metrics.devices[x->critical_device].end)
			x->critical_device = d;
		if (m->busy > x->device_busy_max)
			x->device_busy_max = m->busy;
	}
	sim_free(s);
	return 0;
}

/* A batch of candidates simulated on threads. */
struct batch {
	const struct search *z;
	struct partition_choice *runs;
	size_t n, next;
	pthread_mutex_t lock;
	bool nomem;
	struct pp_error err;
};

static void *batch_worker(void *arg)
{
	struct batch *b = arg;
	struct config *cfg = pp_malloc(sizeof(*cfg));
	struct pp_error err = {0};

	for (;;) {
		size_t i;

		pthread_mutex_lock(&b->lock);
		i = b->next++;
		if (cfg == NULL)
			b->nomem = true;
		pthread_mutex_unlock(&b->lock);
		if (i >= b->n || cfg == NULL)
			break;
		if (simulate(b->z, cfg, &b->runs[i], &err) != 0) {
			pthread_mutex_lock(&b->lock);
			b->nomem = true;
			b->err = err;
			pthread_mutex_unlock(&b->lock);
		}
	}
	free(cfg);
	return NULL;
}

/*
 * Simulates those of the n candidates cs not run before (their arrays then move into the
 * table), remembering each; runs[i] (when runs is not NULL) is candidate i's run. Returns 0,
 * or -1 when out of memory.
 */
static int evaluate(struct search *z, struct cand *cs, size_t n, struct partition_choice **runs)
{
	struct batch b = {.z = z};
	int *key = pp_mallocarray(KEYLEN(z), sizeof(*key));
	struct partition_choice **fresh = pp_mallocarray(n ? n : 1, sizeof(*fresh));
	int nthreads = z->jobs > 1 ? z->jobs : 1, started = 0;
	pthread_t threads[PARTITION_MAX_THREADS];

	b.runs = pp_calloc(n ? n : 1, sizeof(*b.runs));
	if (key == NULL || fresh == NULL || b.runs == NULL || !grow(z, n))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		struct entry *e;

		fill_key(z, &cs[i], key);
		e = slot_of(z, key);
		if (e->key == NULL) {
			struct partition_choice *x = pp_calloc(1, sizeof(*x));
			int *k = pp_mallocarray(KEYLEN(z), sizeof(*k));

			if (x == NULL || k == NULL) {
				free(x);
				free(k);
				goto nomem;
			}
			memcpy(k, key, KEYLEN(z) * sizeof(*key));
			x->layers = cs[i].layers;
			x->recompute = cs[i].rc;
			x->offload = cs[i].off;
			x->share = z->share;
			cs[i].layers = NULL;
			cs[i].rc = NULL;
			cs[i].off = NULL;
			e->key = k;
			e->run = x;
			z->n++;
			fresh[b.n] = x;
			b.runs[b.n++] = *x;
		}
		if (runs != NULL)
			runs[i] = e->run;
	}
	pthread_mutex_init(&b.lock, NULL);
	if (nthreads > PARTITION_MAX_THREADS)
		nthreads = PARTITION_MAX_THREADS;
	if ((size_t)nthreads > b.n)
		nthreads = b.n > 0 ? (int)b.n : 1;
	for (int t = 1; t < nthreads; t++) {
		if (pthread_create(&threads[t], NULL, batch_worker, &b) != 0)
			break;
		started = t;
	}
	batch_worker(&b);
	for (int t = 1; t <= started; t++)
		pthread_join(threads[t], NULL);
	pthread_mutex_destroy(&b.lock);
	z->simulated += b.n;
	for (size_t i = 0; i < b.n; i++)
		*fresh[i] = b.runs[i];
	free(b.runs);
	free(key);
	free(fresh);
	if (b.nomem)
		return b.err.kind == PP_ERR_NOMEM ? (*z->err = b.err, -1)
		                                  : pp_nomem(z->err, 1, sizeof(struct config));
	return 0;
nomem:
	free(b.runs);
	free(key);
	free(fresh);
	return pp_nomem(z->err, n, sizeof(struct partition_choice));
}

/* A candidate's arrays, or false when out of memory. */
static bool cand_new(const struct search *z, struct cand *c)
{
	c->layers = pp_mallocarray((size_t)z->S, sizeof(*c->layers));
	c->rc = pp_mallocarray((size_t)z->S, sizeof(*c->rc));
	c->off = pp_calloc((size_t)z->S, sizeof(*c->off));
	if (c->layers == NULL || c->rc == NULL || c->off == NULL) {
		free(c->layers);
		free(c->rc);
		free(c->off);
		c->layers = NULL;
		c->rc = NULL;
		c->off = NULL;
		return false;
	}
	return true;
}

/* A candidate that is cur, in c; false when out of memory. */
static bool cand_from(const struct search *z, const struct partition_choice *cur, struct cand *c)
{
	if (!cand_new(z, c))
		return false;
	memcpy(c->layers, cur->layers, (size_t)z->S * sizeof(int));
	memcpy(c->rc, cur->recompute, (size_t)z->S);
	memcpy(c->off, cur->offload, (size_t)z->S);
	return true;
}

static void cands_free(struct cand *cs, size_t n)
{
	for (size_t i = 0; cs != NULL && i < n; i++) {
		free(cs[i].layers);
		free(cs[i].rc);
		free(cs[i].off);
	}
	free(cs);
}

/* a * b, saturating at UINT64_MAX. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

/* The number of candidates: splits of the free layers (C(free + S - 1, S - 1)) times the
 * recomputations (3^S when searched). */
static uint64_t space_size(const struct search *z)
{
	int free_layers = z->L;
	uint64_t n = 1;

	for (int s = 0; s < z->S; s++)
		free_layers -= z->min[s];
	if (free_layers < 0)
		return 0;
	/* C(free + k, k) for k = S - 1, one factor at a time (each partial product is a binomial) */
	for (int k = 1; k < z->S; k++) {
		uint64_t next = mul_sat(n, (uint64_t)(free_layers + k));

		if (next == UINT64_MAX)
			return UINT64_MAX;
		n = next / (uint64_t)k;
	}
	for (int s = 0; z->rc_free && s < z->S; s++)
		n = mul_sat(n, 3);
	for (int s = 0; z->off_free && s < z->S; s++)
		n = mul_sat(n, 2);
	return n;
}

/* The stage-layer splits and recomputations of the whole space, appended to *cs. */
static int enumerate(struct search *z, struct cand **cs, size_t *n, size_t cap)
{
	int S = z->S, *lay = pp_calloc((size_t)S, sizeof(int));
	signed char *lev = pp_calloc((size_t)S, sizeof(signed char));
	signed char *off = pp_calloc((size_t)S, sizeof(signed char));
	int rest;

	if (lay == NULL || lev == NULL || off == NULL) {
		free(lay);
		free(lev);
		free(off);
		return pp_nomem(z->err, (size_t)S, sizeof(int));
	}
	/* the first split: the minimum everywhere, the rest on the last stage */
	rest = z->L;
	for (int s = 0; s < S; s++)
		rest -= lay[s] = z->min[s];
	lay[S - 1] += rest;
	for (;;) {
		/* every recomputation and offload of this split: a stage's (level, offload) counts
		 * up as one digit of 3 x 2 values (3 or 2 when only one is searched), the last
		 * stage's fastest; a stage without layers recomputes and offloads nothing */
		int base = (z->rc_free ? 3 : 1) * (z->off_free ? 2 : 1);

		memset(lev, 0, (size_t)S);
		memset(off, 0, (size_t)S);
		for (;;) {
			struct cand *c;

			if (*n == cap)
				break;
			c = &(*cs)[(*n)];
			if (!cand_new(z, c)) {
				free(lay);
				free(lev);
				free(off);
				return pp_nomem(z->err, (size_t)S, sizeof(int));
			}
			(*n)++;
			for (int s = 0; s < S; s++) {
				c->layers[s] = lay[s];
				c->rc[s] = z->rc_free ? rc_of_level[(int)lev[s]]
				                      : (signed char)z->base->recompute;
				c->off[s] = off[s];
			}
			int s = S - 1;

			while (s >= 0 && (lay[s] == 0 || (z->rc_free ? lev[s] : 0) +
			                                               (z->rc_free ? 3 : 1) * off[s] ==
			                                       base - 1)) {
				lev[s] = off[s] = 0;
				s--;
			}
			if (s < 0)
				break;
			/* the next digit value: the level first, then the offload */
			if (z->rc_free && lev[s] < 2) {
				lev[s]++;
			} else {
				lev[s] = 0;
				off[s] = 1;
			}
		}
		/* the next split in lexicographic order (stages 0..S-2 free, the last the rest) */
		int s = S - 2;

		while (s >= 0) {
			int above = 0;

			for (int t = s + 1; t < S; t++)
				above += lay[t] - z->min[t];
			if (above > 0)
				break;
			s--;
		}
		if (s < 0)
			break;
		lay[s]++;
		rest = z->L;
		for (int t = 0; t <= s; t++)
			rest -= lay[t];
		for (int t = s + 1; t < S; t++)
			rest -= lay[t] = z->min[t];
		lay[S - 1] += rest;
	}
	free(lay);
	free(lev);
	free(off);
	return 0;
}

/* The split that balances the stages' priced work: the least, over contiguous splits, of the
 * most work a stage takes on its device's GPU (each layer its F + B + W, an expert layer its
 * own, the last stage its heads), into lay. */
static int balanced(struct search *z, const struct cost_model *k, int *lay)
{
	int S = z->S, L = z->L;
	/* pre[t * (L + 1) + i]: the first i layers' work on GPU type t */
	double *pre = pp_calloc((size_t)k->ntypes * ((size_t)L + 1), sizeof(double));
	double *dp = pp_calloc((size_t)(S + 1) * (size_t)(L + 1), sizeof(double));
	int *cut = pp_calloc((size_t)(S + 1) * (size_t)(L + 1), sizeof(int));

	if (pre == NULL || dp == NULL || cut == NULL) {
		free(pre);
		free(dp);
		free(cut);
		return pp_nomem(z->err, (size_t)(S + 1) * (size_t)(L + 1), sizeof(double));
	}
	for (int t = 0; t < k->ntypes; t++) {
		const struct cost_type *ty = &k->types[t];
		double dense = ty->layer_ms.f + ty->layer_ms.b + ty->layer_ms.w;
		double moe = ty->moe_ms.f + ty->moe_ms.b + ty->moe_ms.w;
		double *p = pre + (size_t)t * ((size_t)L + 1);

		for (int i = 0; i < L; i++)
			p[i + 1] = p[i] + (k->experts > 0 && i >= k->dense_layers ? moe : dense);
	}
#define DP(s, i) dp[(size_t)(s) * (size_t)(L + 1) + (size_t)(i)]
#define CUT(s, i) cut[(size_t)(s) * (size_t)(L + 1) + (size_t)(i)]
	/* DP(s, i): the least most-work of the first s stages holding the first i layers */
	for (int s = 0; s <= S; s++)
		for (int i = 0; i <= L; i++)
			DP(s, i) = INFINITY;
	DP(0, 0) = 0;
	for (int s = 1; s <= S; s++)
		for (int i = 0; i <= L; i++)
			for (int j = i - z->min[s - 1]; j >= 0; j--) {
				const struct cost_type *ty = &k->types[k->stage_type[s - 1]];
				const double *p = pre + (size_t)k->stage_type[s - 1] * ((size_t)L + 1);
				double head = ty->last_head_ms.f + ty->last_head_ms.b + ty->last_head_ms.w;
				double w = p[i] - p[j] + (s == S ? head : 0);
				double x = DP(s - 1, j) > w ? DP(s - 1, j) : w;

				if (x < DP(s, i)) {
					DP(s, i) = x;
					CUT(s, i) = j;
				}
			}
	for (int s = S, i = L; s >= 1; s--) {
		lay[s - 1] = i - CUT(s, i);
		i = CUT(s, i);
	}
#undef DP
#undef CUT
	free(pre);
	free(dp);
	free(cut);
	return 0;
}

/* The moves of cur: one layer from any stage to any other, each stage to each other
 * recomputation; into *cs (n of them). */
static int moves(struct search *z, const struct partition_choice *cur, struct cand **cs,
                 size_t *n)
{
	int S = z->S;
	size_t shifts = (size_t)S * (size_t)S, rcs = z->rc_free ? 2 * (size_t)S : 0;
	size_t cap = shifts + rcs + (z->off_free ? (size_t)S : 0);

	*n = 0;
	*cs = pp_calloc(cap ? cap : 1, sizeof(**cs));
	if (*cs == NULL)
		return pp_nomem(z->err, cap, sizeof(**cs));
	for (size_t m = 0; m < cap; m++) {
		int s, dir;
		struct cand c;

		if (m < shifts) {
			/* a layer from stage s to stage t: the stages between keep their counts, their
			 * layers each shifted by one */
			int t = (int)(m % (size_t)S);

			s = (int)(m / (size_t)S);
			if (t == s || cur->layers[s] <= z->min[s])
				continue;
			if (!cand_from(z, cur, &c))
				return pp_nomem(z->err, (size_t)S, sizeof(int));
			c.layers[s]--;
			c.layers[t]++;
			/* a stage left without layers recomputes and offloads nothing */
			if (z->rc_free && c.layers[s] == 0)
				c.rc[s] = PP_RECOMPUTE_NONE;
			if (c.layers[s] == 0)
				c.off[s] = 0;
		} else if (m >= shifts + rcs) {
			/* stage s offloads the share, or stops */
			s = (int)(m - shifts - rcs);
			if (cur->layers[s] == 0)
				continue;
			if (!cand_from(z, cur, &c))
				return pp_nomem(z->err, (size_t)S, sizeof(int));
			c.off[s] = !c.off[s];
		} else {
			/* stage s to each of the two other recomputations */
			int lv;

			s = (int)((m - shifts) / 2);
			dir = (m - shifts) % 2 ? 1 : 2;
			lv = (rc_level(cur->recompute[s]) + dir) % 3;
			if (cur->layers[s] == 0)
				continue;
			if (!cand_from(z, cur, &c))
				return pp_nomem(z->err, (size_t)S, sizeof(int));
			c.rc[s] = rc_of_level[lv];
		}
		(*cs)[(*n)++] = c;
	}
	return 0;
}

/* Steepest descent from the run *best into *best. */
static int descend(struct search *z, struct partition_choice **best)
{
	for (;;) {
		struct partition_choice *next = *best, **runs;
		struct cand *cs = NULL;
		size_t n = 0;

		if (moves(z, *best, &cs, &n) != 0) {
			cands_free(cs, n);
			return -1;
		}
		runs = pp_mallocarray(n ? n : 1, sizeof(*runs));
		if (runs == NULL || evaluate(z, cs, n, runs) != 0) {
			cands_free(cs, n);
			if (runs == NULL)
				return pp_nomem(z->err, n, sizeof(*runs));
			free(runs);
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			if (better(runs[i], next, z->S, z->quantum))
				next = runs[i];
		free(runs);
		cands_free(cs, n);
		if (next == *best)
			return 0;
		*best = next;
	}
}

/* The best remembered run other than best that fits: differing in its layers if one does, else
 * in its recomputation. */
static const struct partition_choice *runner_up(const struct search *z,
                                                const struct partition_choice *best)
{
	const struct partition_choice *r = NULL, *rr = NULL;

	for (size_t i = 0; i < z->cap; i++) {
		const struct partition_choice *x = z->table[i].run;

		if (x == NULL || !x->set || x->overflow > 0 || x == best)
			continue;
		if (memcmp(x->layers, best->layers, (size_t)z->S * sizeof(int)) != 0) {
			if (r == NULL || better(x, r, z->S, z->quantum))
				r = x;
		} else if (rr == NULL || better(x, rr, z->S, z->quantum)) {
			rr = x;
		}
	}
	return r != NULL ? r : rr;
}

static void release_search(struct search *z)
{
	for (size_t i = 0; i < z->cap; i++)
		if (z->table[i].key != NULL) {
			free(z->table[i].key);
			free_choice(z->table[i].run);
			free(z->table[i].run);
		}
	free(z->table);
	free(z->min);
}

int partition_search(const struct config *base, int jobs, uint64_t exact_max,
                     struct partition *p, struct pp_error *err)
{
	struct search z = {.base = base, .jobs = jobs, .err = err};
	struct config *cfg = pp_malloc(sizeof(*cfg));
	struct sim *s;
	struct cand start[2] = {{NULL, NULL, NULL}, {NULL, NULL, NULL}};
	struct partition_choice *best = NULL, *from[2] = {NULL, NULL};
	const struct partition_choice *second;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	if (cfg == NULL)
		return pp_nomem(err, 1, sizeof(*cfg));
	/* the run as given, its layers spread evenly, to learn the stages and the prices */
	*cfg = *base;
	cfg->nlayers_per_stage = 0;
	cfg->nstage_recompute = 0;
	cfg->first_stage_layers = cfg->last_stage_layers = 0;
	cfg->layout[0] = '\0';
	/* the start only: every candidate sets its own; an even split asked for is refused as a
	 * run refuses it when the layers do not divide */
	if (cfg->layer_split == PP_SPLIT_EVEN && !config_is_set(base, "layer_split"))
		cfg->layer_split = PP_SPLIT_SPREAD;
	s = sim_run_flags(cfg, SIM_NO_OP_TIMES, err);
	free(cfg);
	if (s == NULL)
		return -1;
	if (s->cost->model == NULL) {
		sim_free(s);
		return pp_fail(err, PP_ERR_USAGE,
		               "partition: needs a model (--model) whose layers it places");
	}
	z.S = s->cost->model->route_stages;
	z.L = s->cost->model->layers;
	z.rc_free = !config_is_set(base, "recompute");
	/* --offload given: each stage offloads that share of its activations, or nothing */
	z.off_free = base->offload > 0 && base->nstage_offload == 0;
	z.share = base->offload;
	z.min = pp_calloc((size_t)z.S, sizeof(*z.min));
	if (z.min == NULL) {
		sim_free(s);
		return pp_nomem(err, (size_t)z.S, sizeof(*z.min));
	}
	/* the first and the last stage may hold only the embedding or the heads */
	for (int st = 0; st < z.S; st++)
		z.min[st] = z.S > 1 && (st == 0 || st == z.S - 1) ? 0 : 1;
	p->S = z.S;
	p->p = s->sched->p;
	p->v = s->sched->v;
	p->m = s->sched->m;
	p->schedule = s->sched->desc != NULL ? s->sched->desc->name : "file";
	p->stage_device = pp_mallocarray((size_t)z.S, sizeof(*p->stage_device));
	if (p->stage_device == NULL) {
		sim_free(s);
		release_search(&z);
		return pp_nomem(err, (size_t)z.S, sizeof(*p->stage_device));
	}
	for (int st = 0; st < z.S; st++)
		p->stage_device[st] = (int)s->sched->stage_device[st];
	p->layers = z.L;
	p->mtp = s->cost->model->mtp_layers;
	p->recompute_free = z.rc_free;
	p->offload_free = z.off_free;
	p->share = z.share;
	p->space = space_size(&z);
	if (p->space == 0) {
		sim_free(s);
		release_search(&z);
		partition_release(p);
		return pp_fail(err, PP_ERR_USAGE,
		               "partition: %d layers cannot give each of the %d middle stages one",
		               z.L, z.S - 2);
	}
	if (!cand_new(&z, &start[0]) || !cand_new(&z, &start[1])) {
		pp_nomem(err, (size_t)z.S, sizeof(int));
		goto out;
	}
	for (int st = 0; st < z.S; st++) {
		start[0].layers[st] = s->cost->model->stage_layers[st];
		start[0].rc[st] = start[1].rc[st] = z.rc_free ? PP_RECOMPUTE_NONE
		                                              : (signed char)base->recompute;
	}
	if (balanced(&z, s->cost->model, start[1].layers) != 0 ||
	    evaluate(&z, start, 2, from) != 0 || !copy_choice(&p->start, from[0], z.S))
		goto out;
	/* what tick rounding leaves between splits of equal work is no difference */
	z.quantum = p->quantum = from[0]->set ? PARTITION_TIE * from[0]->step : 0;
	p->exact = p->space <= (exact_max > 0 ? exact_max : PARTITION_EXACT_MAX);
	if (p->exact) {
		struct cand *all = pp_calloc((size_t)p->space, sizeof(*all));
		struct partition_choice **runs = pp_mallocarray((size_t)p->space, sizeof(*runs));
		size_t n = 0;

		if (all == NULL || runs == NULL || enumerate(&z, &all, &n, (size_t)p->space) != 0 ||
		    evaluate(&z, all, n, runs) != 0) {
			if (all == NULL || runs == NULL)
				pp_nomem(err, (size_t)p->space, sizeof(*all));
			cands_free(all, n);
			free(runs);
			goto out;
		}
		best = runs[0];
		for (size_t i = 1; i < n; i++)
			if (better(runs[i], best, z.S, z.quantum))
				best = runs[i];
		p->space = n; /* the bound less the recomputations of empty stages */
		cands_free(all, n);
		free(runs);
	} else {
		for (int i = 0; i < 2; i++)
			if (descend(&z, &from[i]) != 0)
				goto out;
		best = better(from[1], from[0], z.S, z.quantum) ? from[1] : from[0];
	}
	p->simulated = z.simulated;
	second = runner_up(&z, best);
	if ((best->set && best->overflow == 0 && !copy_choice(&p->best, best, z.S)) ||
	    (second != NULL && !copy_choice(&p->runner_up, second, z.S))) {
		pp_nomem(err, (size_t)z.S, sizeof(int));
		goto out;
	}
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		free(start[i].layers);
		free(start[i].rc);
		free(start[i].off);
	}
	sim_free(s);
	release_search(&z);
	if (rc != 0)
		partition_release(p);
	return rc;
}

void partition_release(struct partition *p)
{
	free(p->stage_device);
	p->stage_device = NULL;
	free_choice(&p->best);
	free_choice(&p->runner_up);
	free_choice(&p->start);
}
