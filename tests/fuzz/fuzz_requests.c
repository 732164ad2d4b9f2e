/*
 * Fuzzes the request-trace reader (JSON lines and CSV); a small trace it accepts is served
 * under the batching policy the first byte picks.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "ppsim/serve.h"

/* Serves w on a pipeline of two stages under policy at explicit costs. */
static void serve(const struct serve_workload *w, enum pp_batching policy)
{
	struct config c;
	struct pp_error err = {0};
	struct serve_run *r;

	config_init(&c);
	c.p = 2;
	c.batching = policy;
	c.token_time = 0.01;
	c.attn_time = 0.001;
	c.t_comm = 0.1;
	c.max_ops = FUZZ_MAX_OPS;
	c.max_batch = 8;
	c.kv_tokens = 1u << 20;
	r = serve_run(&c, w, &err);
	if (r != NULL) {
		struct serve_metrics m;

		serve_metrics_init(&m, r, &err);
		serve_metrics_release(&m);
	}
	serve_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	FILE *f = fmemopen(text, size, "r");
	struct serve_workload w;
	struct pp_error err = {0};

	if (f != NULL && serve_workload_read_stream(f, "fuzz.jsonl", &w, &err) == 0) {
		uint64_t tokens = 0;

		for (size_t i = 0; i < w.n; i++)
			tokens += (uint64_t)w.req[i].prompt + w.req[i].output;
		/* serve only what stays small: few requests, few tokens, early arrivals */
		if (w.n <= 64 && tokens <= 4096 && w.req[w.n - 1].arrival < 1e6)
			serve(&w, (enum pp_batching)(size > 0 ? data[0] % 4 : 0));
		serve_workload_free(&w);
	}
	if (f != NULL)
		fclose(f);
	free(text);
	return 0;
}
