/*
 * Layer layouts (layout.h): Megatron-LM's layout strings read and written, its first/last-stage
 * flags and torchtitan's settings written, and the default split of a layer count over stages.
 */
#include "ppsim/layout.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

/* A growing character buffer for the unrolled string. */
struct chars {
	char *s;
	size_t len, cap;
};

static int chars_put(struct chars *b, const char *s, size_t n, struct pp_error *err)
{
	if (b->len + n + 1 > LAYOUT_MAX_EXPANDED)
		return pp_fail(err, PP_ERR_USAGE, "unrolls to more than %d characters",
		               LAYOUT_MAX_EXPANDED);
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *s2;

		while (cap < b->len + n + 1)
			cap *= 2;
		s2 = realloc(b->s, cap);
		if (s2 == NULL)
			return pp_nomem(err, cap, 1);
		b->s = s2;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

/* The decimal digits at s as a count into *n (capped past the limit), their length, or 0. */
static size_t read_count(const char *s, long *n)
{
	size_t i = 0;

	*n = 0;
	while (isdigit((unsigned char)s[i])) {
		if (*n <= LAYOUT_MAX_EXPANDED)
			*n = *n * 10 + (s[i] - '0');
		i++;
	}
	return i;
}

static int chars_repeat(struct chars *b, const char *s, size_t n, long times,
                        struct pp_error *err)
{
	if (times > 0 && n > 0 && (size_t)times > LAYOUT_MAX_EXPANDED / n)
		return pp_fail(err, PP_ERR_USAGE, "unrolls to more than %d characters",
		               LAYOUT_MAX_EXPANDED);
	for (long i = 0; i < times; i++)
		if (chars_put(b, s, n, err) != 0)
			return -1;
	return 0;
}

/*
 * Python's re.sub(r'\(([^)]+)\)\*(\d+)', group 1 times N) (parens) or re.sub(r'(.)\*(\d+)',
 * the character times N) over in, into out: left to right, a match replaced, else one
 * character copied.
 */
static int unroll(const char *in, bool parens, struct chars *out, struct pp_error *err)
{
	size_t i = 0, len = strlen(in);

	while (i < len) {
		long times;
		size_t body = 0, digits;

		if (parens && in[i] == '(') {
			while (in[i + 1 + body] != '\0' && in[i + 1 + body] != ')')
				body++;
			if (body > 0 && in[i + 1 + body] == ')' && in[i + 2 + body] == '*' &&
			    (digits = read_count(in + i + 3 + body, &times)) > 0) {
				if (chars_repeat(out, in + i + 1, body, times, err) != 0)
					return -1;
				i += 3 + body + digits;
				continue;
			}
		} else if (!parens && in[i] != '\n' && in[i + 1] == '*' &&
		           (digits = read_count(in + i + 2, &times)) > 0) {
			if (chars_repeat(out, in + i, 1, times, err) != 0)
				return -1;
			i += 2 + digits;
			continue;
		}
		if (chars_put(out, in + i, 1, err) != 0)
			return -1;
		i++;
	}
	return 0;
}

/* The stages of the unrolled string s into l, checked as validate_layer_layout does. */
static int read_stages(const char *s, struct layer_layout *l, struct pp_error *err)
{
	int st = 0, embeds = 0, losses = 0;
	bool any = false, after_loss = false, after_mtp = false;

	memset(l, 0, sizeof(*l));
	l->embed = l->loss = l->mtp_stage = -1;
	for (const char *c = s;; c++) {
		if (*c == '\0') {
			st++; /* the stages, the last one counted */
			break;
		}
		if (*c == '|') {
			/* stage st + 1 starts: it must have an index below PP_MAX_LIST */
			if (++st >= PP_MAX_LIST)
				return pp_fail(err, PP_ERR_USAGE, "has more than %d stages",
				               PP_MAX_LIST);
			continue;
		}
		if (strchr("EtmL", *c) == NULL)
			return pp_fail(err, PP_ERR_USAGE,
			               isprint((unsigned char)*c)
			                       ? "'%c' is not a layer: E (embedding), t (decoder "
			                         "layer), m (MTP layer) or L (loss)"
			                       : "character %d is not a layer: E, t, m or L",
			               *c);
		if (after_loss)
			return pp_fail(err, PP_ERR_USAGE, "the loss (L) must be the last layer");
		if (*c == 'E') {
			if (++embeds > 1)
				return pp_fail(err, PP_ERR_USAGE,
				               "gives the embedding (E) more than once");
			if (any)
				return pp_fail(err, PP_ERR_USAGE,
				               "the embedding (E) must be the first layer");
			l->embed = st;
		} else if (*c == 'L') {
			losses++;
			after_loss = true;
			l->loss = st;
		} else if (*c == 't') {
			if (after_mtp)
				return pp_fail(err, PP_ERR_USAGE,
				               "decoder layers (t) must come before the MTP layers (m)");
			l->layers[st]++;
		} else {
			if (l->mtp_stage >= 0 && l->mtp_stage != st)
				return pp_fail(err, PP_ERR_USAGE,
				               "the MTP layers (m) must all be in one stage");
			after_mtp = true;
			l->mtp_stage = st;
			l->mtp++;
		}
		any = true;
	}
	l->S = st;
	if (embeds == 0)
		return pp_fail(err, PP_ERR_USAGE, "has no embedding (E): it must be the first layer");
	if (losses == 0)
		return pp_fail(err, PP_ERR_USAGE, "has no loss (L): it must be the last layer");
	return 0;
}

int layout_parse(const char *text, struct layer_layout *l, struct pp_error *err)
{
	struct chars plain = {0}, once = {0}, twice = {0};
	int rc = -1;

	for (const char *c = text; *c != '\0'; c++)
		if (*c != ',' && chars_put(&plain, c, 1, err) != 0)
			goto out;
	if (plain.s == NULL)
		rc = pp_fail(err, PP_ERR_USAGE, "is empty");
	else if (unroll(plain.s, true, &once, err) == 0 &&
	         unroll(once.s != NULL ? once.s : "", false, &twice, err) == 0)
		rc = read_stages(twice.s != NULL ? twice.s : "", l, err);
out:
	free(plain.s);
	free(once.s);
	free(twice.s);
	return rc;
}

bool layout_equal(const struct layer_layout *a, const struct layer_layout *b)
{
	if (a->S != b->S || a->embed != b->embed || a->loss != b->loss ||
	    a->mtp_stage != b->mtp_stage || a->mtp != b->mtp)
		return false;
	for (int s = 0; s < a->S; s++)
		if (a->layers[s] != b->layers[s])
			return false;
	return true;
}

bool layout_of_counts(struct layer_layout *l, int S, const int *layers, int mtp)
{
	if (S < 1 || S > PP_MAX_LIST)
		return false;
	memset(l, 0, sizeof(*l));
	l->S = S;
	memcpy(l->layers, layers, (size_t)S * sizeof(*layers));
	l->embed = 0;
	l->loss = S - 1;
	l->mtp_stage = mtp > 0 ? S - 1 : -1;
	l->mtp = mtp;
	return true;
}

/* snprintf at buf + *len, keeping *len the whole text's length. */
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(*len < n ? buf + *len : NULL, *len < n ? n - *len : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		*len += (size_t)k;
}

/* A run of count copies of layer c: "tt", or "t*N" from 3 on. */
static void put_run(char *buf, size_t n, size_t *len, char c, int count)
{
	if (count >= 3)
		put(buf, n, len, "%c*%d", c, count);
	else
		for (int i = 0; i < count; i++)
			put(buf, n, len, "%c", c);
}

/* Stage s of l as Megatron writes its layers. */
static void put_stage(const struct layer_layout *l, int s, char *buf, size_t n, size_t *len)
{
	if (l->embed == s)
		put(buf, n, len, "E");
	put_run(buf, n, len, 't', l->layers[s]);
	if (l->mtp_stage == s)
		put_run(buf, n, len, 'm', l->mtp);
	if (l->loss == s)
		put(buf, n, len, "L");
}

static bool same_stage(const struct layer_layout *l, int a, int b)
{
	return l->layers[a] == l->layers[b] && (l->embed == a) == (l->embed == b) &&
	       (l->loss == a) == (l->loss == b) && (l->mtp_stage == a) == (l->mtp_stage == b);
}

size_t layout_megatron(const struct layer_layout *l, char *buf, size_t n)
{
	size_t len = 0;
	int s = 0;

	buf[0] = '\0';
	while (s < l->S) {
		int run = 1;

		while (s + run < l->S && same_stage(l, s, s + run))
			run++;
		/* a run that ends the layout keeps its last stage out of the group, whose
		 * repetitions each end in '|' */
		if (s + run == l->S && run > 1)
			run--;
		if (run >= 2) {
			put(buf, n, &len, "(");
			put_stage(l, s, buf, n, &len);
			put(buf, n, &len, "|)*%d", run);
			s += run;
			/* a comma keeps the count apart from the next stage's layers */
			if (l->embed == s || l->layers[s] > 0 || l->mtp_stage == s || l->loss == s)
				put(buf, n, &len, ",");
			continue;
		}
		put_stage(l, s, buf, n, &len);
		if (++s < l->S)
			put(buf, n, &len, "|");
	}
	return len;
}

bool layout_megatron_flags(const struct layer_layout *l, int p, char *buf, size_t n)
{
	int S = l->S, v, first, last, mid, c;
	size_t len = 0;
	bool uniform = true, even = true, e, ls;

	buf[0] = '\0';
	if (p < 1 || S % p != 0 || l->embed != 0 || l->loss != S - 1 ||
	    (l->mtp > 0 && l->mtp_stage != S - 1))
		return false;
	v = S / p;
	/* Megatron gives a rank's count to each of its chunks alike: rank 0's, the middle
	 * ranks' and rank p-1's */
	first = l->layers[0];
	last = l->layers[p - 1];
	mid = p > 2 ? l->layers[1] : first;
	for (int s = 0; s < S; s++) {
		int rank = s % p;

		uniform = uniform && l->layers[s] == (rank == 0       ? first
		                                      : rank == p - 1 ? last
		                                                      : mid);
		even = even && l->layers[s] == first;
	}
	if (even) {
		if (v > 1)
			put(buf, n, &len, "--num-layers-per-virtual-pipeline-stage %d", first);
		return true;
	}
	/* both flags need layers (Megatron refuses 0), and so do the middle ranks */
	if (uniform && p > 1 && first > 0 && last > 0 && mid > 0) {
		if (p == 2 || first != mid)
			put(buf, n, &len, "--decoder-first-pipeline-num-layers %d", first * v);
		if (p == 2 || last != mid)
			put(buf, n, &len, "%s--decoder-last-pipeline-num-layers %d", len ? " " : "",
			    last * v);
		if (v > 1)
			put(buf, n, &len, " --num-virtual-stages-per-pipeline-rank %d", v);
		return true;
	}
	/* every stage holds c layers but the first (the embedding's) and the last (the
	 * loss's), which may each hold one fewer */
	if (S < 3)
		return false;
	c = l->layers[1];
	for (int s = 1; s < S - 1; s++)
		if (l->layers[s] != c)
			return false;
	e = l->layers[0] == c - 1;
	ls = l->layers[S - 1] == c - 1;
	if (!(e || l->layers[0] == c) || !(ls || l->layers[S - 1] == c))
		return false;
	if (e)
		put(buf, n, &len, "--account-for-embedding-in-pipeline-split");
	if (ls)
		put(buf, n, &len, "%s--account-for-loss-in-pipeline-split", len ? " " : "");
	if (v > 1)
		put(buf, n, &len, " --num-virtual-stages-per-pipeline-rank %d", v);
	return true;
}

int layout_split(int layers, int S, enum pp_layer_split rule, int *out)
{
	int base = layers / S, extra = layers % S;

	if (S == 1 || rule == PP_SPLIT_EVEN) {
		for (int s = 0; s < S; s++)
			out[s] = base;
		return extra == 0 ? 0 : -1;
	}
	if (rule == PP_SPLIT_SPREAD) {
		for (int s = 0; s < S; s++)
			out[s] = base + (s >= 1 && s <= extra ? 1 : 0);
		return 0;
	}
	/* torchtitan: the embedding and the head weigh a layer each; the first stages take the
	 * extra effective layers */
	base = (layers + 2) / S;
	extra = (layers + 2) % S;
	if (base < 1)
		return -1;
	for (int s = 0; s < S; s++)
		out[s] = base + (s < extra ? 1 : 0) - (s == 0 ? 1 : 0) - (s == S - 1 ? 1 : 0);
	return 0;
}

/* The stages of torchtitan's split of l's layers (weights in and out) equal l's. */
static bool titan_gives(const struct layer_layout *l, int layers, int in, int out)
{
	int eff = layers + in + out, base = eff / l->S, extra = eff % l->S, left = layers;

	if (base < 1 || in > base || out > base)
		return false;
	for (int s = 0; s < l->S; s++) {
		int want = base + (s < extra ? 1 : 0) - (s == 0 ? in : 0) - (s == l->S - 1 ? out : 0);

		want = want < left ? want : left;
		if (want < 0 || l->layers[s] != want)
			return false;
		left -= want;
	}
	return left == 0;
}

size_t layout_torchtitan(const struct layer_layout *l, bool names, char *buf, size_t n)
{
	int layers = 0, next = 0;
	size_t len = 0;

	buf[0] = '\0';
	if (l->mtp > 0)
		return 0;
	for (int s = 0; s < l->S; s++)
		layers += l->layers[s];
	if (!names && l->embed == 0 && l->loss == l->S - 1 && l->S > 1) {
		/* the weights torchtitan takes, its default 1 first */
		for (int a = 0; a <= layers + 1; a++)
			for (int b = 0; b <= layers + 1; b++) {
				int in = a == 0 ? 1 : a == 1 ? 0 : a, out = b == 0 ? 1 : b == 1 ? 0 : b;
				int eff = layers + in + out, per = (eff + l->S - 1) / l->S;

				if ((eff + per - 1) / per != l->S || !titan_gives(l, layers, in, out))
					continue;
				put(buf, n, &len, "pipeline_parallel_layers_per_stage = %d", per);
				if (in != 1)
					put(buf, n, &len,
					    "\npipeline_parallel_first_stage_less_layers = %d", in);
				if (out != 1)
					put(buf, n, &len,
					    "\npipeline_parallel_last_stage_less_layers = %d", out);
				return len;
			}
	}
	put(buf, n, &len, "module_fqns_per_model_part = [");
	for (int s = 0; s < l->S; s++) {
		const char *sep = "";

		put(buf, n, &len, "%s[", s ? ", " : "");
		if (l->embed == s)
			put(buf, n, &len, "\"tok_embeddings\""), sep = ", ";
		for (int i = 0; i < l->layers[s]; i++, next++)
			put(buf, n, &len, "%s\"layers.%d\"", sep, next), sep = ", ";
		if (l->loss == s)
			put(buf, n, &len, "%s\"norm\", \"lm_head\"", sep);
		put(buf, n, &len, "]");
	}
	put(buf, n, &len, "]");
	return len;
}

int config_set_layout(struct config *c, const struct config_option *opt, const char *label,
                      const char *value, struct pp_error *err)
{
	struct layer_layout *l;
	struct pp_error why = {0};
	int rc;

	(void)opt;
	if (value[0] == '\0') {
		c->layout[0] = '\0';
		return 0;
	}
	if (strlen(value) >= sizeof(c->layout))
		return pp_fail(err, PP_ERR_USAGE, "%s '%.40s...': longer than %zu characters", label,
		               value, sizeof(c->layout) - 1);
	l = malloc(sizeof(*l));
	if (l == NULL)
		return pp_nomem(err, 1, sizeof(*l));
	rc = layout_parse(value, l, &why);
	free(l);
	if (rc != 0)
		return why.kind == PP_ERR_NOMEM ? pp_fail(err, why.kind, "%s", why.msg)
		                                : pp_fail(err, PP_ERR_USAGE, "%s '%s': %s", label,
		                                          value, why.msg);
	strcpy(c->layout, value);
	return 0;
}

/* The stages of c's layout string into out[S], checked against the model's counts. */
static int stages_of_layout(const struct config *c, int layers, int mtp, int S, int routes,
                            int *out, struct pp_error *err)
{
	struct layer_layout *l = malloc(sizeof(*l));
	struct pp_error why = {0};
	int rc = -1, t = 0;

	if (l == NULL)
		return pp_nomem(err, 1, sizeof(*l));
	if (layout_parse(c->layout, l, &why) != 0)
		rc = why.kind == PP_ERR_NOMEM ? pp_fail(err, why.kind, "%s", why.msg)
		                              : config_fail(c, "layout", err, "%s", why.msg);
	else if (l->S != S)
		rc = config_fail(c, "layout", err, "gives %d stages, %s %d", l->S,
		                 routes == 1 ? "the pipeline has p x v =" : "each route of the pipeline has",
		                 S);
	else if (l->embed != 0)
		rc = config_fail(c, "layout", err,
		                 "puts the embedding (E) on stage %d: Megatron-LM builds it on the "
		                 "first stage, and so does the cost model",
		                 l->embed);
	else if (l->loss != S - 1)
		rc = config_fail(c, "layout", err,
		                 "puts the loss (L) on stage %d: Megatron-LM builds the LM head and the "
		                 "loss on the last stage, and so does the cost model",
		                 l->loss);
	else if (l->mtp != mtp)
		rc = config_fail(c, "layout", err, "has %d MTP layers (m), the model %d", l->mtp, mtp);
	else if (l->mtp > 0 && l->mtp_stage != S - 1)
		rc = config_fail(c, "layout", err,
		                 "puts the MTP layers (m) on stage %d: the cost model prices them on "
		                 "the last stage only",
		                 l->mtp_stage);
	else {
		for (int s = 0; s < S; s++)
			t += out[s] = l->layers[s];
		rc = t == layers ? 1
		                 : config_fail(c, "layout", err, "has %d decoder layers (t), the model %d",
		                               t, layers);
	}
	free(l);
	return rc;
}

int layout_config_layers(const struct config *c, const char *model, int layers, int mtp, int S,
                         int routes, int *out, struct pp_error *err)
{
	bool list = c->nlayers_per_stage > 0, ends = c->first_stage_layers > 0 ||
	                                             c->last_stage_layers > 0;

	if (c->layout[0] != '\0' && (list || ends))
		return config_fail(c, "layout", err,
		                   "give it or %s, not both",
		                   list ? "--layers-per-stage" : "--first-stage-layers/--last-stage-layers");
	if (c->layout[0] != '\0')
		return stages_of_layout(c, layers, mtp, S, routes, out, err);
	if (list || ends)
		return 0;
	if (layout_split(layers, S, c->layer_split, out) == 0)
		return 1;
	if (c->layer_split == PP_SPLIT_TORCHTITAN)
		return config_fail(c, "layer_split", err,
		                   "torchtitan's split of %s's %d layers (and the embedding and the "
		                   "head) over %d stages leaves a stage empty",
		                   model, layers, S);
	/* the option given is to blame: the layers, the shape, else the split asked for */
	return config_fail(c,
	                   config_is_set(c, "layers") ? "layers"
	                   : config_is_set(c, "p")    ? "p"
	                   : config_is_set(c, "v")    ? "v"
	                                              : "layer_split",
	                   err,
	                   "%s's %d layers do not split evenly over %s%d stages; %s "
	                   "--layout, --layers-per-stage or "
	                   "--first-stage-layers/--last-stage-layers",
	                   model, layers, routes == 1 ? "p x v = " : "a route's ", S,
	                   config_is_set(c, "layer_split")
	                           ? "give --layer-split=spread or torchtitan,"
	                           : "set --layer-split,");
}
