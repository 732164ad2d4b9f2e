/*
 * A measured step in the library (ppsim.h): its op times as a configuration (pp_calibrate: the
 * config of explicit costs that `ppsim calibrate` writes for them, src/config/calibrate.c,
 * read back by the config reader into a pp_config as `ppsim -c` would read the file), and the
 * step replayed (pp_replay: its order and op times, src/config/measured.c, simulated as `ppsim
 * replay` simulates them before any what-if).
 */
#include <stdio.h>
#include <stdlib.h>

#include "api_internal.h"
#include "ppsim/calibrate.h"
#include "ppsim/measured.h"

/* The config of fit (m micro-batches when above 0) into c, through its text: 0, or -1 with e. */
static int fitted(const struct calib_fit *fit, int m, struct config *c, struct pp_error *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int rc;

	if (out == NULL)
		return pp_fail(e, PP_ERR_NOMEM, "out of memory writing the calibrated config");
	rc = calib_write_config(out, fit, m);
	/* a stream whose buffer could not be made may close without one */
	if (fclose(out) != 0 || rc != 0 || text == NULL) {
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
	if (m < 0 || m > PP_MAX_COUNT || !(w_share <= 1)) {
		pp_fail(&k.e, PP_ERR_USAGE,
		        "pp_calibrate: m %d must be from 0 to %d and w_share at most 1 (below 0: "
		        "none)",
		        m, PP_MAX_COUNT);
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

/* The PP_KEEP_* bits pp_replay knows, and the sim_run_flags they ask for. */
#define KEEP_ALL (PP_KEEP_OP_TIMES | PP_KEEP_SLACK)

int pp_replay(const pp_config *c, const char *const *paths, int n, unsigned flags, pp_run **run,
              char *err, size_t errlen)
{
	struct call k;
	struct measured m;
	struct config *r;
	pp_run *out;
	unsigned sim_flags = flags & PP_KEEP_SLACK      ? SIM_SLACK
	                     : flags & PP_KEEP_OP_TIMES ? 0
	                                                : SIM_NO_OP_TIMES;

	if (run != NULL)
		*run = NULL;
	if (api_begin(&k, "pp_replay", ARGS({c, "c"}, {paths, "paths"}, {run, "run"}), err,
	              errlen) != 0)
		return PP_E_INPUT;
	for (int i = 0; i < n; i++)
		if (paths[i] == NULL) {
			pp_fail(&k.e, PP_ERR_USAGE, "pp_replay: paths[%d] is NULL", i);
			return api_end(&k, -1);
		}
	if (n < 1 || (flags & ~KEEP_ALL)) {
		pp_fail(&k.e, PP_ERR_USAGE,
		        "pp_replay: n %d must be at least 1, flags 0x%x PP_KEEP_* bits", n, flags);
		return api_end(&k, -1);
	}
	if (config_check_command(&c->config, CONFIG_REPLAY, "replay", &k.e) != 0 ||
	    (r = pp_malloc(sizeof(*r))) == NULL) {
		if (k.e.kind == PP_ERR_NONE)
			pp_nomem(&k.e, 1, sizeof(*r));
		return api_end(&k, -1);
	}
	*r = c->config;
	if (measured_read(paths, n, r->max_ops, &m, &k.e) != 0) {
		free(r);
		return api_end(&k, -1);
	}
	{
		struct sim_perturb pt = {m.sched, m.path, m.op, m.msg, m.time_unit};

		/* the messages: the config's t_comm when set, else as measured (their mean prices
		 * the others) */
		if (config_is_set(r, "t_comm") || m.msg == NULL)
			pt.msg = NULL;
		else
			r->t_comm = m.msg_mean;
		out = pp_zalloc(1, sizeof(*out), &k.e);
		if (out != NULL && (out->sim = sim_run_perturbed(r, &pt, sim_flags, &k.e)) == NULL) {
			free(out);
			out = NULL;
		}
	}
	measured_release(&m);
	free(r);
	if (out == NULL)
		return api_end(&k, -1);
	out->config = &out->sim->config;
	out->kept = flags & PP_KEEP_SLACK ? KEEP_ALL : flags;
	*run = out;
	return api_end(&k, 0);
}
