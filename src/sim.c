/* Runs one configuration through config -> schedule and cost -> engine -> metrics. */
#include "ppsim/sim.h"

#include <stdlib.h>

struct sim *sim_run(const struct config *c, struct pp_error *err)
{
	struct sim *s;
	struct sched_params sp;

	if (config_validate(c, err) != 0)
		return NULL;
	s = pp_xcalloc(1, sizeof(*s));
	s->config = *c;
	sp = config_sched_params(c);
	s->sched = sched_new(sched_find(c->schedule), &sp);
	if (config_has_model(c))
		s->cost = cost_new_model(c, s->sched, err);
	else
		s->cost = cost_new_explicit(c, c->w_mem_fraction);
	if (s->cost == NULL) {
		sim_free(s);
		return NULL;
	}
	s->engine = engine_new(s->sched, s->cost, err);
	if (s->engine == NULL || engine_run(s->engine, err) != 0) {
		sim_free(s);
		return NULL;
	}
	s->result = engine_result(s->engine);
	metrics_init(&s->metrics, s->sched, s->cost, s->result);
	return s;
}

void sim_free(struct sim *s)
{
	if (s == NULL)
		return;
	if (s->result != NULL)
		metrics_release(&s->metrics);
	engine_free(s->engine);
	cost_free(s->cost);
	sched_free(s->sched);
	free(s);
}
