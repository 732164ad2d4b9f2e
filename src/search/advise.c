/*
 * Advice: the search axes of `ppsim advise` (every tp dividing a node and the GPU count, every
 * p dividing the GPUs up to the layers, the usual chunks and micro-batch sizes, all schedules;
 * the sweep then ranks them), the best point of each schedule and ep the search tried (its
 * choices), and the interleaving break-even analysis (1F1B against interleaved at growing v,
 * per link and communication mode).
 */
#include "ppsim/advise.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/preset.h"
#include "ppsim/sched.h"
#include "ppsim/sim.h"

/* The pipeline's time: the makespan (a model's gradient all-reduce, which interleaving does
 * not change, is left out). */
static double run_time(const struct sim *s)
{
	return s->metrics.makespan;
}

/* The longest message time over the pipeline's hops, in units. */
static double slowest_hop(const struct sim *s)
{
	double t = 0;

	for (int st = 0; st + 1 < s->cost->S; st++) {
		double x = pp_time_to_units(s->cost->msg_time[st], s->cost->tick);

		t = x > t ? x : t;
	}
	return t;
}

/* Sets option key of c to value from the command line; returns 0 or -1 with err. */
static int set(struct config *c, const char *key, const char *value, struct pp_error *err)
{
	const struct config_option *opt = config_option_by_key(key);
	char label[48];

	snprintf(label, sizeof(label), "--%s", opt->name);
	return config_set(c, opt, label, value, err);
}

/* The config of one break-even run: c on link (or its own) in mode comm with v chunks. */
static struct sim *run_one(const struct config *c, const char *link, enum pp_comm comm, int v,
                           struct pp_error *err)
{
	struct config *x = pp_malloc(sizeof(*x));
	char num[16];
	struct sim *s = NULL;

	if (x == NULL) {
		pp_nomem(err, 1, sizeof(*x));
		return NULL;
	}
	*x = *c;
	snprintf(num, sizeof(num), "%d", v);
	if (set(x, "schedule", v == 1 ? "1f1b" : "interleaved", err) == 0 &&
	    set(x, "v", num, err) == 0 &&
	    set(x, "comm", comm == PP_COMM_OVERLAP ? "overlap" : "blocking", err) == 0 &&
	    (link == NULL || set(x, "link", link, err) == 0) &&
	    (link == NULL || !config_has_model(x) || set(x, "inter_link", link, err) == 0))
		s = sim_run_flags(x, SIM_NO_OP_TIMES, err);
	free(x);
	return s;
}

/* Names the links a run's pipeline hops use: "nvlink3/ib-hdr" inside/between nodes with a
 * model, the link preset, its bandwidth, or the fixed message time. */
static void describe_links(const struct sim *s, char *buf, size_t n)
{
	const struct config *c = &s->config;
	double bw, lat;

	if (s->cost->model != NULL) {
		snprintf(buf, n, "%s/%s", s->cost->model->link, s->cost->model->inter_link);
		return;
	}
	config_link(c, &bw, &lat);
	if (c->link[0] != '\0')
		snprintf(buf, n, "%s", c->link);
	else if (bw > 0)
		snprintf(buf, n, "%g GB/s", bw);
	else
		snprintf(buf, n, "tcomm %g", c->t_comm);
}

/* Fills the rows of one link and mode from its 1F1B baseline; -1 with *nomem set when a run
 * ran out of memory. */
static int fill_rows(const struct config *c, const char *link, enum pp_comm comm, const int *vs,
                     int nv, struct breakeven_row *rows, struct pp_error *nomem)
{
	struct pp_error err = {0};
	struct sim *base = run_one(c, link, comm, 1, &err);

	if (base == NULL && err.kind == PP_ERR_NOMEM) {
		*nomem = err;
		return -1;
	}

	for (int i = 0; i < nv; i++) {
		struct breakeven_row *r = &rows[i];
		struct sim *s = NULL;

		memset(r, 0, sizeof(*r));
		if (link != NULL)
			snprintf(r->link, sizeof(r->link), "%s", link);
		else if (base != NULL)
			describe_links(base, r->link, sizeof(r->link));
		r->comm = comm;
		r->v = vs[i];
		if (base == NULL) {
			snprintf(r->reason, sizeof(r->reason), "1F1B: %s", err.msg);
			continue;
		}
		if (vs[i] != 1) {
			struct pp_error why = {0};

			s = run_one(c, link, comm, vs[i], &why);
			if (s == NULL && why.kind == PP_ERR_NOMEM) {
				*nomem = why;
				sim_free(base);
				return -1;
			}
			if (s == NULL) {
				snprintf(r->reason, sizeof(r->reason), "%s", why.msg);
				continue;
			}
		}
		{
			const struct sim *run = s != NULL ? s : base;
			double p = base->sched->p, m = base->sched->m, v = vs[i];
			double b1 = (p - 1) / (m + p - 1), bv = (p - 1) / (m * v + p - 1);

			r->ok = true;
			r->p = base->sched->p;
			r->m = base->sched->m;
			snprintf(r->time_unit, sizeof(r->time_unit), "%s", run->cost->time_unit);
			r->time = run_time(run);
			r->base_time = run_time(base);
			r->gain = r->base_time > 0 ? 1 - r->time / r->base_time : 0;
			r->t_comm = slowest_hop(base);
			r->lhs = r->t_comm * v * (p - 1) * m;
			r->rhs = (b1 - bv) * r->base_time;
			r->predicted = r->lhs <= r->rhs;
			r->pays = r->gain >= BREAKEVEN_MIN_GAIN;
		}
		sim_free(s);
	}
	sim_free(base);
	return 0;
}

int breakeven_run(const struct config *c, const char *const *links, int nlinks,
                  const enum pp_comm *comms, int ncomms, const int *vs, int nv,
                  struct breakeven_row *rows, struct pp_error *err)
{
	for (int l = 0; l < (nlinks > 0 ? nlinks : 1); l++)
		for (int k = 0; k < ncomms; k++)
			if (fill_rows(c, nlinks > 0 ? links[l] : NULL, comms[k], vs, nv,
			              rows + ((size_t)l * (size_t)ncomms + (size_t)k) * (size_t)nv,
			              err) != 0)
				return -1;
	return 0;
}

int advise_choice_init(struct advise_choice *ch, const struct sweep *sw, const char *key,
                       struct pp_error *err)
{
	*ch = (struct advise_choice){0};
	for (int k = 0; k < sw->naxes; k++)
		if (sw->axes[k].slot >= 0 && strcmp(sw->axes[k].opt->key, key) == 0)
			ch->axis = &sw->axes[k];
	if (ch->axis == NULL)
		return 0;
	ch->best = pp_calloc((size_t)ch->axis->nvalues, sizeof(*ch->best));
	if (ch->best == NULL) {
		size_t n = (size_t)ch->axis->nvalues;

		ch->axis = NULL;
		return pp_nomem(err, n, sizeof(*ch->best));
	}
	return 0;
}

void advise_choice_add(struct advise_choice *ch, const struct sweep_record *r)
{
	struct sweep_rank_key key = sweep_rank_key(r);
	struct advise_pick *b;

	if (ch->axis == NULL)
		return;
	b = &ch->best[r->value[ch->axis->slot]];
	/* a point that ran, or was refused for memory alone, is a valid layout of the value */
	b->valid |= r->ok || r->error == PP_ERR_DEVICE_MEM;
	if (!r->ok || !r->fits)
		return;
	if (b->set && sweep_rank_key_compare(&b->key, &key) <= 0)
		return;
	*b = (struct advise_pick){true,  true, key,  "",    r->tp, r->cp, r->ep,      r->p,
	                          r->v,  r->dp, r->mbs, r->m, r->ep_node, r->tokens_per_s,
	                          r->step_time};
	snprintf(b->schedule, sizeof(b->schedule), "%s", r->schedule);
}

/* Orders picks by rank, the best first. */
static int pick_cmp(const void *x, const void *y)
{
	const struct advise_pick *a = *(const struct advise_pick *const *)x,
	                         *b = *(const struct advise_pick *const *)y;

	return sweep_rank_key_compare(&a->key, &b->key);
}

int advise_choice_rank(struct advise_choice *ch, struct pp_error *err)
{
	size_t n;

	if (ch->axis == NULL)
		return 0;
	n = (size_t)ch->axis->nvalues;
	free(ch->ranked);
	ch->nranked = 0;
	if ((ch->ranked = pp_mallocarray(n, sizeof(*ch->ranked))) == NULL)
		return pp_nomem(err, n, sizeof(*ch->ranked));
	for (size_t i = 0; i < n; i++)
		if (ch->best[i].set)
			ch->ranked[ch->nranked++] = &ch->best[i];
	qsort(ch->ranked, (size_t)ch->nranked, sizeof(*ch->ranked), pick_cmp);
	return 0;
}

void advise_choice_release(struct advise_choice *ch)
{
	free(ch->best);
	free(ch->ranked);
	*ch = (struct advise_choice){0};
}

bool advise_distinct(const struct sweep_record *a, const struct sweep_record *b)
{
	if (a->tp != b->tp || a->p != b->p || a->dp != b->dp || a->cp != b->cp || a->ep != b->ep ||
	    a->mbs != b->mbs || a->m != b->m)
		return true;
	/* the step to the rounding of ticks: within PARTITION_TIE of the longer (a tolerance, not a
	 * grid, which would part two steps a tick apart across one of its lines) */
	return fabs(a->step_time - b->step_time) >
	       PARTITION_TIE * fmax(fabs(a->step_time), fabs(b->step_time));
}

/* True when option key is fixed by the base config or varied by an axis. */
static bool decided(const struct sweep *sw, const char *key)
{
	for (int a = 0; a < sw->naxes; a++)
		if (strcmp(sw->axes[a].opt->key, key) == 0)
			return true;
	return config_is_set(&sw->base, key);
}

int advise_check(const struct sweep *sw, struct pp_error *err)
{
	static const char *const needed[][2] = {
	        {"model", "--model (what to train)"},
	        {"gpus", "--gpus (how many GPUs)"},
	        {"global_batch", "--global-batch (sequences per step)"},
	};

	for (int a = 0; a < sw->naxes; a++)
		for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
			if (strcmp(sw->axes[a].opt->key, needed[i][0]) == 0 &&
			    sw->axes[a].nvalues > 1)
				return pp_fail(
				        err, PP_ERR_USAGE,
				        "advise: %s takes one value (ppsim sweep takes lists)",
				        sw->axes[a].label);
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!config_is_set(&sw->base, needed[i][0]))
			return pp_fail(err, PP_ERR_USAGE, "advise: needs %s", needed[i][1]);
	return 0;
}

/* The divisors of n up to max, comma-separated, in a string the caller frees; NULL when out of
 * memory. */
static char *divisors(long long n, long long max)
{
	size_t count = 0, len = 0, size;
	char *buf;

	for (long long d = 1; d <= n && d <= max; d++)
		count += n % d == 0;
	size = count * 21 + 1; /* each at most 20 digits and a comma */
	buf = pp_malloc(size);
	if (buf == NULL)
		return NULL;
	buf[0] = '\0';
	for (long long d = 1; d <= n && d <= max; d++)
		if (n % d == 0)
			len += (size_t)snprintf(buf + len, size - len, "%s%lld", len ? "," : "", d);
	return buf;
}

static long long gcd(long long a, long long b)
{
	while (b != 0) {
		long long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

void advise_place_stragglers(struct config *c)
{
	struct pp_stragglers got = {0};
	int per = c->p > 0 && c->gpus > 0 && c->gpus % c->p == 0 ? c->gpus / c->p : 0;

	for (int i = 0; per > 0 && i < c->stragglers.n; i++) {
		struct pp_straggler w = c->stragglers.s[i];
		int k = 0;

		if (w.link) {
			/* a pipeline hop: alike places of two ranks (neighbours, or the first and
			 * the last where the order wraps around), slowing it where the order has it */
			if (w.dev % per != w.peer % per || w.dev / per == w.peer / per)
				continue;
			w.peer /= per;
			w.placed = true;
		}
		w.dev /= per;
		/* the same rank, or the same hop either way */
		while (k < got.n &&
		       !(got.s[k].link == w.link &&
		         (w.link ? (got.s[k].dev == w.dev && got.s[k].peer == w.peer) ||
		                           (got.s[k].dev == w.peer && got.s[k].peer == w.dev)
		                 : got.s[k].dev == w.dev)))
			k++;
		/* of two in one rank or on one hop, the one that slows it first (of two at once,
		 * the slower): a rule holds one factor from its time on */
		if (k == got.n)
			got.s[got.n++] = w;
		else if (w.at < got.s[k].at || (w.at == got.s[k].at && w.factor > got.s[k].factor))
			got.s[k] = w;
	}
	if (per > 0)
		c->stragglers = got;
}

/* Every schedule but those of a mixture of experts alone (interleaved-combined, whose pairs
 * overlap the expert all-to-all), comma-separated into buf of n bytes: a dense model's. */
static const char *dense_schedules(char *buf, size_t n)
{
	size_t count, len = 0;
	const struct sched_desc *sd = sched_table(&count);

	buf[0] = '\0';
	for (size_t i = 0; i < count; i++)
		if (strcmp(sd[i].name, "interleaved-combined") != 0 && len + strlen(sd[i].name) + 2 < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "", sd[i].name);
	return buf;
}

/* Adds the axis of key with values spec unless it is decided already. */
static int add_axis(struct sweep *sw, const char *key, const char *spec, struct pp_error *err)
{
	const struct config_option *opt = config_option_by_key(key);
	char label[48];

	if (decided(sw, key))
		return 0;
	snprintf(label, sizeof(label), "--%s", opt->name);
	return sweep_set_axis(sw, opt, label, spec, err);
}

int advise_add_axes(struct sweep *sw, struct pp_error *err)
{
	const struct config *c = &sw->base;
	const struct model_preset *mp = preset_model(c->model);
	long long layers = c->layers > 0 ? c->layers : mp != NULL ? mp->layers : 1;
	long long gpus = c->gpus, node = c->gpus_per_node;
	long long experts = c->experts >= 0 ? c->experts : mp != NULL ? mp->experts : 0;
	/* tensor parallelism stays inside a node and divides the GPU count; a stage has a layer
	 * at least, and p is within the device limit */
	char *tp, *p, names[1024];
	int status = 0;

	/* advise searches the schedules and their shapes: a file fixes both */
	if (c->schedule_file[0] != '\0')
		return config_fail(c, "schedule_file", err,
		                   "advise searches the schedules and shapes, which a schedule file "
		                   "fixes: simulate it with ppsim run, or sweep around it");
	/* a straggler names a GPU of the cluster, which each layout places (advise_place_stragglers) */
	for (int i = 0; i < c->stragglers.n; i++) {
		const struct pp_straggler *w = &c->stragglers.s[i];
		int bad = w->dev >= gpus ? w->dev : w->link && w->peer >= gpus ? w->peer : -1;

		if (bad >= 0)
			return config_fail(c, "stragglers", err,
			                   "names GPU %d: advise's stragglers name GPUs of the "
			                   "cluster, 0 to %lld, which each layout places in its "
			                   "pipeline ranks",
			                   bad, gpus - 1);
	}
	tp = divisors(gcd(node, gpus), node);
	p = divisors(gpus, layers < PP_MAX_DEVICES ? layers : PP_MAX_DEVICES);

	sw->require_fit = true;
	sw->shardable = false; /* advise has no shards */
	sw->advise = true;
	if (tp == NULL || p == NULL)
		status = pp_nomem(err, 21, (size_t)(gpus > node ? gpus : node));
	else if (add_axis(sw, "tp", tp, err) != 0 || add_axis(sw, "p", p, err) != 0 ||
	         add_axis(sw, "v", ADVISE_CHUNKS, err) != 0 ||
	         add_axis(sw, "mbs", ADVISE_MBS, err) != 0 ||
	         add_axis(sw, "schedule", experts > 0 ? "all" : dense_schedules(names, sizeof(names)),
	                  err) != 0)
		status = -1;
	else if (experts > 0) {
		/* a mixture of experts: every power of two dividing the experts, up to the GPUs
		 * (those that do not divide a pipeline rank's GPUs are skipped as they run) */
		char ep[256] = "";
		size_t len = 0;

		for (long long e = 1; e <= experts && e <= gpus && len + 22 < sizeof(ep); e *= 2)
			if (experts % e == 0)
				len += (size_t)snprintf(ep + len, sizeof(ep) - len, "%s%lld", len ? "," : "",
				                        e);
		status = add_axis(sw, "ep", ep, err);
	}
	free(tp);
	free(p);
	return status;
}
