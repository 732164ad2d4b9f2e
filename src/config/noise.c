/*
 * The noise options' values: --jitter and --link-jitter (op-time and message-time
 * distributions), --straggler (slow devices and links) and --stalls, read from their text and
 * written back as a user would write them. The option table (config.c) points at these.
 */
#include "config_noise.h"

#include <stdio.h>
#include <string.h>

#include "base/text.h"

static const char *const noise_dists[] = {"normal", "lognormal", "empirical", NULL};

/* The largest coefficient of variation each distribution takes: a normal cut at 0 beyond 1
 * would no longer have mean 1. */
static const double cv_max[] = {1, 10, 0};

/* Most straggler factor: a device a thousand times slower is a dead one. */
#define FACTOR_MAX 1000

static bool number_in(const char *s, double lo, double hi, double *out)
{
	double x;

	if (text_parse_double(s, &x) != TEXT_OK || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

/* Reads the op kinds and stage of a rule's selector sel ("F", "BW@3", "@2") into r. */
static bool read_selector(char *sel, struct pp_jitter_rule *r)
{
	char *at = strchr(sel, '@');
	long long st;

	r->kinds = 0;
	r->stage = -1;
	if (at != NULL) {
		*at = '\0';
		if (text_parse_int(at + 1, 0, PP_MAX_LIST - 1, &st) != TEXT_OK)
			return false;
		r->stage = (int)st;
	}
	for (const char *k = sel; *k != '\0'; k++) {
		unsigned bit = *k == 'F' ? PP_JITTER_F : *k == 'B' ? PP_JITTER_B
		                                         : *k == 'W' ? PP_JITTER_W
		                                                     : 0;

		if (bit == 0 || (r->kinds & bit))
			return false;
		r->kinds |= bit;
	}
	if (r->kinds == 0)
		r->kinds = PP_JITTER_F | PP_JITTER_B | PP_JITTER_W;
	return true;
}

/* Reads one rule, "[SEL=]DIST:PARAM", into r; an empirical rule's file into file. */
static bool read_rule(char *text, bool selectors, struct pp_jitter_rule *r, char *file,
                      size_t nfile)
{
	char *eq = strchr(text, '='), *dist = text, *param;
	int kind = -1;

	if (eq != NULL) {
		if (!selectors)
			return false;
		*eq = '\0';
		if (!read_selector(text, r))
			return false;
		dist = eq + 1;
	} else {
		r->kinds = PP_JITTER_F | PP_JITTER_B | PP_JITTER_W;
		r->stage = -1;
	}
	if ((param = strchr(dist, ':')) != NULL)
		*param++ = '\0';
	for (int i = 0; noise_dists[i] != NULL; i++)
		if (strcmp(dist, noise_dists[i]) == 0)
			kind = i;
	if (kind < 0)
		return false;
	r->dist = (enum pp_noise_dist)kind;
	r->cv = PP_NOISE_DEFAULT_CV;
	if (kind != PP_NOISE_EMPIRICAL)
		return param == NULL || number_in(param, 0, cv_max[kind], &r->cv);
	if (param == NULL)
		return false;
	/* one file serves every empirical rule */
	if (param[0] == '\0' || strlen(param) >= nfile || (file[0] != '\0' && strcmp(file, param)))
		return false;
	strcpy(file, param);
	return true;
}

int config_set_jitter(struct config *c, const struct config_option *opt, const char *label,
                      const char *value, struct pp_error *err)
{
	char shown[64]; /* the value in a message, a cut marked "..." */
	struct pp_jitter *j = (struct pp_jitter *)(void *)((char *)c + opt->offset), got = {0};
	bool selectors = strcmp(opt->key, "jitter") == 0;
	char buf[1024], *rule[PP_MAX_JITTER + 1];
	size_t n = 0;

	if (strlen(value) < sizeof(buf)) {
		strcpy(buf, value);
		n = text_split(buf, ',', rule, PP_MAX_JITTER + 1);
	}
	if (strcmp(value, "none") == 0) {
		*j = got;
		return 0;
	}
	if (n >= 1 && n <= (selectors ? PP_MAX_JITTER : 1)) {
		size_t i = 0;

		while (i < n && read_rule(rule[i], selectors, &got.r[i], got.file, sizeof(got.file)))
			i++;
		if (i == n) {
			got.n = (int)n;
			*j = got;
			return 0;
		}
	}
	/* a file name the config cannot hold is told as such */
	for (const char *e = strstr(value, "empirical:"); e != NULL; e = strstr(e + 1, "empirical:"))
		if (strcspn(e + 10, ",") >= sizeof(got.file))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': the empirical file's path must be 1 to %zu "
			               "characters",
			               label, text_visible(shown, sizeof(shown), value),
			               sizeof(got.file) - 1);
	if (!selectors)
		return pp_fail(err, PP_ERR_USAGE,
		               "%s '%s': must be normal[:CV] (CV from 0 to 1), lognormal[:CV] (0 "
		               "to 10), empirical:FILE or none",
		               label, text_visible(shown, sizeof(shown), value));
	return pp_fail(err, PP_ERR_USAGE,
	               "%s '%s': must be up to %d comma-separated rules [KINDS[@STAGE]=]DIST, "
	               "KINDS of F, B, W, DIST normal[:CV] (CV from 0 to 1), lognormal[:CV] (0 to 10) "
	               "or empirical:FILE (one file); or none",
	               label, text_visible(shown, sizeof(shown), value), PP_MAX_JITTER);
}

void config_format_jitter(const struct config *c, const struct config_option *opt, char *buf,
                          size_t n)
{
	const struct pp_jitter *j =
	        (const struct pp_jitter *)(const void *)((const char *)c + opt->offset);
	size_t used = 0;

	buf[0] = '\0';
	if (j->n == 0)
		snprintf(buf, n, "none");
	for (int i = 0; i < j->n && used < n; i++) {
		const struct pp_jitter_rule *r = &j->r[i];
		char sel[16] = "", cv[32];
		bool all = r->kinds == (PP_JITTER_F | PP_JITTER_B | PP_JITTER_W);

		if (!all || r->stage >= 0) {
			snprintf(sel, sizeof(sel), "%s%s%s", r->kinds & PP_JITTER_F && !all ? "F" : "",
			         r->kinds & PP_JITTER_B && !all ? "B" : "",
			         r->kinds & PP_JITTER_W && !all ? "W" : "");
			if (r->stage >= 0)
				snprintf(sel + strlen(sel), sizeof(sel) - strlen(sel), "@%d", r->stage);
			strcat(sel, "=");
		}
		pp_double_format(cv, sizeof(cv), r->cv);
		used += (size_t)snprintf(buf + used, n - used, "%s%s%s:%s", i > 0 ? "," : "", sel,
		                         noise_dists[r->dist],
		                         r->dist == PP_NOISE_EMPIRICAL ? j->file : cv);
	}
}

/* Reads one straggler, "DEV[-PEER]:FACTOR[@AT]", into w. */
static bool read_straggler(char *text, struct pp_straggler *w)
{
	char *colon = strchr(text, ':'), *dash, *at;
	long long a, b = 0;

	if (colon == NULL)
		return false;
	*colon = '\0';
	if ((at = strchr(colon + 1, '@')) != NULL)
		*at = '\0';
	if ((dash = strchr(text, '-')) != NULL)
		*dash = '\0';
	*w = (struct pp_straggler){.link = dash != NULL};
	if (text_parse_int(text, 0, PP_MAX_DEVICES - 1, &a) != TEXT_OK ||
	    (dash != NULL && text_parse_int(dash + 1, 0, PP_MAX_DEVICES - 1, &b) != TEXT_OK) ||
	    (dash != NULL && a == b) || !number_in(colon + 1, 1e-3, FACTOR_MAX, &w->factor) ||
	    (at != NULL && !number_in(at + 1, 0, PP_TIME_MAX_UNITS, &w->at)))
		return false;
	w->dev = (int)a;
	w->peer = (int)b;
	return true;
}

int config_set_stragglers(struct config *c, const struct config_option *opt, const char *label,
                          const char *value, struct pp_error *err)
{
	char shown[64]; /* the value in a message, a cut marked "..." */
	struct pp_stragglers *s = (struct pp_stragglers *)(void *)((char *)c + opt->offset), got = {0};
	char buf[1024], *item[PP_MAX_STRAGGLERS + 1];
	size_t n = 0, i = 0;

	if (strcmp(value, "none") == 0) {
		*s = got;
		return 0;
	}
	if (strlen(value) < sizeof(buf)) {
		strcpy(buf, value);
		n = text_split(buf, ',', item, PP_MAX_STRAGGLERS + 1);
	}
	while (n <= PP_MAX_STRAGGLERS && i < n && read_straggler(item[i], &got.s[i]))
		i++;
	if (n == 0 || n > PP_MAX_STRAGGLERS || i < n)
		return pp_fail(err, PP_ERR_USAGE,
		               "%s '%s': must be up to %d comma-separated DEVICE:FACTOR[@TIME] or "
		               "DEVICE-DEVICE:FACTOR[@TIME] (a link), FACTOR from 0.001 to %d; or none",
		               label, text_visible(shown, sizeof(shown), value), PP_MAX_STRAGGLERS,
		               FACTOR_MAX);
	got.n = (int)n;
	*s = got;
	return 0;
}

void config_format_stragglers(const struct config *c, const struct config_option *opt,
                              char *buf, size_t n)
{
	const struct pp_stragglers *s =
	        (const struct pp_stragglers *)(const void *)((const char *)c + opt->offset);
	size_t used = 0;

	buf[0] = '\0';
	if (s->n == 0)
		snprintf(buf, n, "none");
	for (int i = 0; i < s->n && used < n; i++) {
		const struct pp_straggler *w = &s->s[i];
		char peer[16] = "", f[32], at[40] = "";

		if (w->link)
			snprintf(peer, sizeof(peer), "-%d", w->peer);
		pp_double_format(f, sizeof(f), w->factor);
		if (w->at > 0) {
			at[0] = '@';
			pp_double_format(at + 1, sizeof(at) - 1, w->at);
		}
		used += (size_t)snprintf(buf + used, n - used, "%s%d%s:%s%s", i > 0 ? "," : "", w->dev,
		                         peer, f, at);
	}
}

int config_set_stalls(struct config *c, const struct config_option *opt, const char *label,
                      const char *value, struct pp_error *err)
{
	char shown[64]; /* the value in a message, a cut marked "..." */
	char buf[96], *f[3] = {NULL, NULL, NULL};
	double every, length;

	(void)opt;
	if (strcmp(value, "none") == 0) {
		c->stall_every = c->stall_length = 0;
		return 0;
	}
	if (strlen(value) < sizeof(buf)) {
		strcpy(buf, value);
		if (text_split(buf, ':', f, 3) == 2 && number_in(f[0], 0, PP_TIME_MAX_UNITS, &every) &&
		    every > 0 && number_in(f[1], 0, PP_TIME_MAX_UNITS, &length)) {
			c->stall_every = every;
			c->stall_length = length;
			return 0;
		}
	}
	return pp_fail(err, PP_ERR_USAGE,
	               "%s '%s': must be EVERY:LENGTH (a stall every EVERY time units a device "
	               "runs on average, lasting LENGTH; EVERY > 0) or none",
	               label, text_visible(shown, sizeof(shown), value));
}

void config_format_stalls(const struct config *c, const struct config_option *opt, char *buf,
                          size_t n)
{
	char a[32], b[32];

	(void)opt;
	if (c->stall_every <= 0) {
		snprintf(buf, n, "none");
		return;
	}
	pp_double_format(a, sizeof(a), c->stall_every);
	pp_double_format(b, sizeof(b), c->stall_length);
	snprintf(buf, n, "%s:%s", a, b);
}

int config_check_noise(const struct config *c, struct pp_error *err)
{
	int S = c->p * c->v;

	/* a time above 0 that rounds to no tick would run as 0, as --tf's is refused */
	if (pp_time_below_tick(c->stall_length))
		return config_fail(c, "stalls", err,
		                   "LENGTH %g is below the resolution of %g time units: it would "
		                   "stall for 0; use a larger LENGTH",
		                   c->stall_length, 1.0 / (double)PP_TICK_BASE);
	for (int i = 0; i < c->stragglers.n; i++) {
		const struct pp_straggler *w = &c->stragglers.s[i];

		if (pp_time_below_tick(w->at))
			return config_fail(c, "stragglers", err,
			                   "@%g is below the resolution of %g time units: it would "
			                   "start at 0; use @0 or a later time",
			                   w->at, 1.0 / (double)PP_TICK_BASE);
		if (w->dev >= c->p || (w->link && w->peer >= c->p))
			return config_fail(c, "stragglers", err, "names device %d; p = %d",
			                   w->dev >= c->p ? w->dev : w->peer, c->p);
		/* one rule a device or link: two would not say which factor holds when */
		for (int j = 0; j < i; j++) {
			const struct pp_straggler *u = &c->stragglers.s[j];

			if (u->link == w->link &&
			    (w->link ? (u->dev == w->dev && u->peer == w->peer) ||
			                       (u->dev == w->peer && u->peer == w->dev)
			             : u->dev == w->dev))
				return w->link ? config_fail(c, "stragglers", err,
				                             "names the link %d-%d twice: give one rule "
				                             "a device or link",
				                             w->dev, w->peer)
				               : config_fail(c, "stragglers", err,
				                             "names device %d twice: give one rule a "
				                             "device or link",
				                             w->dev);
		}
	}
	for (int i = 0; i < c->jitter.n; i++)
		if (c->jitter.r[i].stage >= S)
			return config_fail(c, "jitter", err, "names stage %d; there are p*v = %d",
			                   c->jitter.r[i].stage, S);
	if (c->samples == 0) {
		static const char *const keys[] = {"jitter", "link_jitter", "stalls"};

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (config_is_set(c, keys[i]) &&
			    (i == 2 ? c->stall_every > 0
			            : (i == 0 ? c->jitter.n : c->link_jitter.n) > 0))
				return config_fail(c, keys[i], err,
				                   "varies samples only: give --samples=N");
	}
	return 0;
}
