/*
 * Fuzzes the JSON config loader, then the checks of a loaded config and, when it is valid and
 * small, the whole simulation it describes (training, or serving with a few requests). An input
 * of an odd length runs with a schedule file the caller gives as well (one chunk, or two when
 * the length's second bit is set), which replaces the config's own schedule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static char paths[2][64];

/* Removes the schedule files at exit. */
static void remove_files(void)
{
	for (int i = 0; i < 2; i++)
		if (paths[i][0] != '\0')
			unlink(paths[i]);
}

/* The path of a schedule file of p = 2, m = 2 in one chunk (v = 1) or two, written once and
 * removed at exit. */
static const char *schedule_file(int v)
{
	static const char *const orders[2] = {
	        "device,chunk,stage,op,microbatch\n0,0,0,F,0\n0,0,0,F,1\n0,0,0,BW,0\n"
	        "0,0,0,BW,1\n1,0,1,F,0\n1,0,1,BW,0\n1,0,1,F,1\n1,0,1,BW,1\n",
	        "device,chunk,stage,op,microbatch\n0,0,0,F,0\n0,0,0,F,1\n0,1,2,F,0\n"
	        "0,1,2,F,1\n0,1,2,BW,0\n0,1,2,BW,1\n0,0,0,BW,0\n0,0,0,BW,1\n1,0,1,F,0\n"
	        "1,0,1,F,1\n1,1,3,F,0\n1,1,3,BW,0\n1,1,3,F,1\n1,1,3,BW,1\n1,0,1,BW,0\n"
	        "1,0,1,BW,1\n"};
	char *path = paths[v - 1];

	if (path[0] == '\0') {
		int fd;
		FILE *f;

		snprintf(path, sizeof(paths[0]), "/tmp/ppsim-fuzz-v%d-XXXXXX", v);
		if ((fd = mkstemp(path)) < 0 || (f = fdopen(fd, "w")) == NULL)
			abort(); /* the harness cannot run without it */
		fputs(orders[v - 1], f);
		fclose(f);
		if (paths[2 - v][0] == '\0')
			atexit(remove_files);
	}
	return path;
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
		if ((size & 1) && !config_is_serve(c)) {
			/* as a caller gives it after the file (pp_config_set, the command line) */
			const struct config_option *opt = config_option_by_key("schedule_file");

			snprintf(c->schedule_file, sizeof(c->schedule_file), "%s",
			         schedule_file(size & 2 ? 2 : 1));
			c->origin[opt - config_options(&(size_t){0})] =
			        (struct config_origin){CONFIG_LINE_CALLER, 0};
		}
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
