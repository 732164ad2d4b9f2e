/* A model-priced run's layout in the settings of Megatron-LM and torchtitan, for the text and
 * JSON reports (layout.h writes them). */
#include <stdlib.h>

#include "formats.h"
#include "ppsim/layout.h"

/* The text of one writer into a new string, sized by a first call. */
static char *written(const struct layer_layout *l, int which, int p, bool *ok)
{
	char one[1];
	size_t n = which == 0 ? layout_megatron(l, one, 1) : layout_torchtitan(l, false, one, 1);
	char *s;

	if (which == 1 && n == 0)
		return NULL;
	s = malloc(which == 2 ? 256 : n + 1);
	if (s == NULL) {
		*ok = false;
		return NULL;
	}
	if (which == 0)
		layout_megatron(l, s, n + 1);
	else if (which == 1)
		layout_torchtitan(l, false, s, n + 1);
	else if (!layout_megatron_flags(l, p, s, 256)) {
		free(s);
		return NULL;
	}
	return s;
}

int report_layout_build(const struct sim *s, struct report_layout *out)
{
	const struct cost_model *k = s->cost->model;

	return report_layout_of(k->route_stages, k->stage_layers, k->mtp_layers, s->sched->p, out);
}

int report_layout_of(int S, const int *layers, int mtp, int p, struct report_layout *out)
{
	struct layer_layout *l = malloc(sizeof(*l));
	bool ok = l != NULL;

	*out = (struct report_layout){0};
	if (l == NULL)
		return -1;
	if (!layout_of_counts(l, S, layers, mtp)) {
		free(l);
		out->too_many = true;
		return 0;
	}
	out->megatron = written(l, 0, 0, &ok);
	out->megatron_flags = written(l, 2, p, &ok);
	out->torchtitan = written(l, 1, 0, &ok);
	free(l);
	if (!ok || out->megatron == NULL) {
		report_layout_release(out);
		return -1;
	}
	return 0;
}

void report_layout_release(struct report_layout *l)
{
	free(l->megatron);
	free(l->megatron_flags);
	free(l->torchtitan);
	*l = (struct report_layout){0};
}
