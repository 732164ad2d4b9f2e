/*
 * A serving run from its config alone: the settings checked, the requests read from the trace
 * the config names or generated from its distributions, then simulated (serve_run_progress).
 * What `ppsim serve`, `ppsim compare` of serving configs and the library's pp_serve share.
 */
#include "ppsim/serve.h"

struct serve_run *serve_run_config(const struct config *c, unsigned flags, uint64_t max_steps,
                                   const struct serve_progress *progress, struct pp_error *err)
{
	struct serve_workload w = {NULL, 0, 0};
	struct serve_run *r;

	/* the settings first, so that a bad option is named before the trace is read */
	if (config_validate_serve(c, err) != 0)
		return NULL;
	if (c->requests[0] != '\0') {
		if (serve_workload_read(c->requests, &w, err) != 0)
			return NULL;
	} else if (serve_workload_generate(c, &w, err) != 0) {
		return NULL;
	}
	if (progress != NULL)
		progress->fn(progress->ctx, 0, w.n);
	r = serve_run_progress(c, &w, flags, max_steps, progress, err);
	serve_workload_free(&w);
	return r;
}
