/* Helpers shared by the suites. */
#include <string.h>

#include "ppsim/sim.h"
#include "unit.h"

struct sim *unit_simulate(const char *schedule, int p, int m, double t_comm)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;

	config_init(&c);
	strcpy(c.schedule, schedule);
	c.p = p;
	c.m = m;
	c.t_comm = t_comm;
	s = sim_run(&c, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}
