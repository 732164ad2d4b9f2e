/*
 * A measured step in the library (ppsim.h): its op times as a configuration (pp_calibrate: the
 * config of explicit costs that `ppsim calibrate` writes for them, src/config/calibrate.c,
 * read back by the config reader into a pp_config as `ppsim -c` would read the file), and the
 * step replayed with its what-ifs (pp_replay_whatif, pp_replay: the replay of the sim layer,
 * src/sim/replay.c, that `ppsim replay` runs), the run handed out holding the replay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "base/text.h"
#include "ppsim/calibrate.h"
#include "ppsim/replay.h"
#include "base/memfile.h"

/* The config of fit (m micro-batches when above 0) into c, through its text: 0, or -1 with e. */
static int fitted(const struct calib_fit *fit, int m, struct config *c, struct pp_error *e)
{
	struct memfile mf;
	char *text;
	size_t len = 0;
	FILE *out = memfile_open(&mf);
	int rc;

	if (out == NULL)
		return pp_fail(e, PP_ERR_NOMEM, "out of memory writing the calibrated config");
	rc = calib_write_config(out, fit, m);
	if ((text = memfile_close(&mf, &len)) == NULL || rc != 0) {
		free(text);
		return pp_fail(e, PP_ERR_NOMEM, "out of memory writing the calibrated config");
	}
	config_init(c);
	rc = config_load_text(c, "calibrated", text, len, e);
	free(text);
	return rc == 0 ? 0 : -1;
}

int pp_calibrate(const char *path, int m, double w_share, pp_config **out, double *max_error,
                 char *err, size_t errlen)
{
	struct call k;
	struct calibration cal;
	struct calib_fit fit;
	pp_config *c;
	int rc = -1;

	if (out != NULL)
		*out = NULL;
	if (api_begin(&k, "pp_calibrate", ARGS({path, "path"}, {out, "out"}), err, errlen) != 0)
		return PP_E_INPUT;
	if (m < 0 || m > PP_MAX_COUNT) {
		pp_fail(&k.e, PP_ERR_USAGE, "pp_calibrate: m %d must be from 0 (none) to %d", m,
		        PP_MAX_COUNT);
		return api_end(&k, -1);
	}
	if (!(w_share <= 1)) {
		pp_fail(&k.e, PP_ERR_USAGE, "pp_calibrate: w_share %g must be at most 1 (below 0: none)",
		        w_share);
		return api_end(&k, -1);
	}
	if ((c = pp_zalloc(1, sizeof(*c), &k.e)) == NULL)
		return api_end(&k, -1);
	if (calib_read(path, m, &cal, &k.e) == 0) {
		if (calib_fit(&cal, w_share, &fit, &k.e) == 0) {
			rc = fitted(&fit, m, &c->config, &k.e);
			if (rc == 0 && max_error != NULL)
				*max_error = fit.max_error;
			calib_fit_release(&fit);
		}
		calib_release(&cal);
	}
	if (rc != 0) {
		free(c);
		return api_end(&k, -1);
	}
	*out = c;
	return api_end(&k, 0);
}

/* The PP_KEEP_* bits pp_replay knows. */
#define KEEP_ALL (PP_KEEP_OP_TIMES | PP_KEEP_SLACK)

/* The keys of a what-if that are no config key: pp_replay_whatif's arguments of the replay. */
static const char *const ask_keys[] = {"without_slowest", "w_share"};
#define NASK (sizeof(ask_keys) / sizeof(ask_keys[0]))

const char *pp_replay_whatif_key(int i)
{
	size_t n, at = 0;
	const struct config_option *o = config_options(&n);

	for (size_t j = 0; j < n; j++)
		if (replay_whatif_option(&o[j]) && at++ == (size_t)i)
			return o[j].key;
	return i >= 0 && (size_t)i - at < NASK ? ask_keys[(size_t)i - at] : NULL;
}

/* The setting a what-if's key names: a config key (of an option's name too), or an argument
 * of the replay (of its option's name too: "without-slowest"), or the key. */
static const char *whatif_key(const char *key)
{
	const struct config_option *opt = api_find_option(key);
	const char *named = opt == NULL ? api_key_named(key) : NULL;

	return opt != NULL ? opt->key : named != NULL ? named : key;
}

/*
 * Applies the what-if's setting key = value: to w (a key of the shape), else to *ask. Returns
 * 0, or -1 with e set (a key that is no what-if's, a bad value).
 */
static int set_whatif(struct config *w, struct replay_ask *ask, const char *key, const char *value,
                      struct pp_error *e)
{
	const struct config_option *opt = api_find_option(key);
	char label[96];

	key = opt != NULL ? key : whatif_key(key); /* an argument by its option's name too */
	if (strcmp(key, "without_slowest") == 0) {
		int yes;

		if (config_parse_bool(&yes, "key \"without_slowest\"", value, e) != 0)
			return -1;
		ask->without_slowest = yes;
		return 0;
	}
	if (strcmp(key, "w_share") == 0) {
		if (text_parse_double(value, &ask->w_share) != TEXT_OK || !(ask->w_share >= 0) ||
		    ask->w_share > 1)
			return pp_fail(e, PP_ERR_USAGE,
			               "key \"w_share\" '%s': must be a number from 0 to 1", value);
		return 0;
	}
	if (opt == NULL || !replay_whatif_option(opt)) {
		char keys[256];
		size_t len = 0;

		keys[0] = '\0';
		for (int i = 0; pp_replay_whatif_key(i) != NULL && len < sizeof(keys); i++)
			len += (size_t)snprintf(keys + len, sizeof(keys) - len, "%s%s",
			                        i > 0 ? ", " : "", pp_replay_whatif_key(i));
		return pp_fail(e, PP_ERR_USAGE,
		               "pp_replay_whatif: key \"%s\" is no what-if's (%s): the replay's "
		               "settings are the config's",
		               key, keys);
	}
	snprintf(label, sizeof(label), "key \"%s\"", opt->key);
	if (config_set(w, opt, label, value, e) != 0)
		return -1;
	w->origin[opt - config_options(&(size_t){0})] =
	        (struct config_origin){CONFIG_LINE_CALLER, 0};
	return 0;
}

/*
 * The replay's settings (c's, checked: none of a what-if's shape) into r and the what-if's (r's
 * with keys[0..nkeys-1] set) into w and ask. Returns 0, or -1 with e set.
 */
static int settings(const struct config *c, const char *const *keys, const char *const *values,
                    int nkeys, struct config *r, struct config *w, struct replay_ask *ask,
                    struct pp_error *e)
{
	size_t n;
	const struct config_option *o = config_options(&n);

	if (config_check_command(c, CONFIG_REPLAY, "replay", e) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (replay_whatif_option(&o[i]) && config_is_set(c, o[i].key))
			return config_fail(c, o[i].key, e,
			                   "a what-if's setting: give it among pp_replay_whatif's "
			                   "keys (the config holds the replay's)");
	*r = *c;
	*w = *c;
	*ask = (struct replay_ask){false, -1};
	for (int i = 0; i < nkeys; i++) {
		/* a setting given twice would drop the first value unseen */
		for (int j = 0; j < i; j++)
			if (strcmp(whatif_key(keys[j]), whatif_key(keys[i])) == 0)
				return pp_fail(e, PP_ERR_USAGE,
				               "pp_replay_whatif: keys %d and %d (\"%s\", \"%s\") set one "
				               "setting, key \"%s\": give it once",
				               j, i, keys[j], keys[i], whatif_key(keys[i]));
		if (set_whatif(w, ask, keys[i], values[i], e) != 0)
			return -1;
	}
	return 0;
}

/* pp_replay_whatif, its messages naming the call name. */
static int replay(const char *name, const pp_config *c, const char *const *paths, int n,
                  const char *const *keys, const char *const *values, int nkeys, unsigned flags,
                  pp_run **run, char *err, size_t errlen)
{
	struct call k;
	struct config *r = NULL, *w = NULL;
	struct replay_ask ask;
	struct replay *x = NULL;
	pp_run *out = NULL;
	unsigned sim_flags = flags & PP_KEEP_SLACK      ? SIM_SLACK
	                     : flags & PP_KEEP_OP_TIMES ? 0
	                                                : SIM_NO_OP_TIMES;

	if (run != NULL)
		*run = NULL;
	if (api_begin(&k, name, ARGS({c, "c"}, {paths, "paths"}, {run, "run"}), err, errlen) != 0)
		return PP_E_INPUT;
	for (int i = 0; i < n; i++)
		if (paths[i] == NULL) {
			pp_fail(&k.e, PP_ERR_USAGE, "%s: paths[%d] is NULL", name, i);
			return api_end(&k, -1);
		}
	for (int i = 0; i < nkeys; i++)
		if (keys == NULL || values == NULL || keys[i] == NULL || values[i] == NULL) {
			if (keys == NULL || values == NULL)
				pp_fail(&k.e, PP_ERR_USAGE, "%s: argument '%s' is NULL", name,
				        keys == NULL ? "keys" : "values");
			else
				pp_fail(&k.e, PP_ERR_USAGE, "%s: %s[%d] is NULL", name,
				        keys[i] == NULL ? "keys" : "values", i);
			return api_end(&k, -1);
		}
	if (n < 1 || nkeys < 0 || (flags & ~KEEP_ALL)) {
		if (n < 1)
			pp_fail(&k.e, PP_ERR_USAGE, "%s: no measured file (n %d, at least 1)", name,
			        n);
		else if (nkeys < 0)
			pp_fail(&k.e, PP_ERR_USAGE, "%s: nkeys %d below 0", name, nkeys);
		else
			pp_fail(&k.e, PP_ERR_USAGE, "%s: flags 0x%x has bits no PP_KEEP_* names",
			        name, flags);
		return api_end(&k, -1);
	}
	if ((r = pp_malloc(sizeof(*r))) == NULL || (w = pp_malloc(sizeof(*w))) == NULL)
		pp_nomem(&k.e, 2, sizeof(*r));
	else if (settings(&c->config, keys, values, nkeys, r, w, &ask, &k.e) == 0 &&
	         (x = replay_new(paths, n, r, w, &ask, &k.e)) != NULL &&
	         replay_run(x, sim_flags, &k.e) == 0)
		out = pp_zalloc(1, sizeof(*out), &k.e);
	free(r);
	free(w);
	if (out == NULL) {
		replay_free(x);
		return api_end(&k, -1);
	}
	out->replay = x;
	out->sim = (struct sim *)replay_last(x);
	out->view = sim_drawing(out->sim);
	out->config = &out->sim->config;
	out->kept = flags & PP_KEEP_SLACK ? KEEP_ALL : flags;
	*run = out;
	return api_end(&k, 0);
}

int pp_replay_whatif(const pp_config *c, const char *const *paths, int n, const char *const *keys,
                     const char *const *values, int nkeys, unsigned flags, pp_run **run,
                     char *err, size_t errlen)
{
	return replay("pp_replay_whatif", c, paths, n, keys, values, nkeys, flags, run, err,
	              errlen);
}

int pp_replay(const pp_config *c, const char *const *paths, int n, unsigned flags, pp_run **run,
              char *err, size_t errlen)
{
	return replay("pp_replay", c, paths, n, NULL, NULL, 0, flags, run, err, errlen);
}
