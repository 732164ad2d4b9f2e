/*
 * Fuzzes the JSON config loader, then the checks of a loaded config and, when it is valid and
 * small, the whole simulation it describes (training, or serving with a few requests).
 */
#include <stdlib.h>

#include "fuzz.h"
#include "ppsim/config.h"
#include "ppsim/serve.h"
#include "ppsim/sim.h"

/* Serves a valid serving config with at most a few generated requests. */
static void serve_small(struct config *c)
{
	struct serve_workload w;
	struct pp_error err = {0};
	struct serve_run *r;

	c->requests[0] = '\0'; /* no file reads */
	if (c->num_requests > 16)
		c->num_requests = 16;
	if (config_validate_serve(c, &err) != 0)
		return;
	if (serve_workload_generate(c, &w, &err) != 0)
		return;
	r = serve_run(c, &w, &err);
	if (r != NULL) {
		struct serve_metrics m;

		serve_metrics_init(&m, r, &err);
		serve_metrics_release(&m);
	}
	serve_free(r);
	serve_workload_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct config *c = malloc(sizeof(*c));
	struct pp_error err = {0};

	config_init(c);
	if (config_load_text(c, "fuzz.json", text, size, &err) == 0) {
		c->max_ops = c->max_ops < FUZZ_MAX_OPS ? c->max_ops : FUZZ_MAX_OPS;
		c->schedule_file[0] = '\0';
		if (config_is_serve(c)) {
			serve_small(c);
		} else {
			sim_free(sim_run(c, &err));
		}
	}
	free(c);
	free(text);
	return 0;
}
