/*
 * Measured op times as a configuration (ppsim.h: pp_calibrate): the config of explicit costs
 * that `ppsim calibrate` writes for them (src/config/calibrate.c reads and fits them, and
 * writes the fit as a config file), read back by the config reader into a pp_config, as
 * `ppsim -c` would read the file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api_internal.h"
#include "ppsim/calibrate.h"

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
