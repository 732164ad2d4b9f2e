/* The text report: a summary block, a per-device table and, with traffic, a per-channel table. */
#include <inttypes.h>
#include <math.h>

#include "formats.h"

static void write_costs(FILE *out, const struct config *c, bool split)
{
	char a[32], b[32], d[32], e[32];

	fprintf(out, "%-18s t_f=%s t_b=%s t_w=%s", "costs", REPORT_NUM(a, c->t_f),
	        REPORT_NUM(b, c->t_b), REPORT_NUM(d, c->t_w));
	if (split)
		fprintf(out, ", W keeps %s of the activations", REPORT_NUM(e, c->w_mem_fraction));
	fputc('\n', out);
	if (c->bandwidth > 0)
		fprintf(out, "%-18s %s B per message over %s GB/s, latency %s us, %s, %s-duplex\n",
		        "communication", REPORT_NUM(a, (double)c->msg_bytes),
		        REPORT_NUM(b, c->bandwidth), REPORT_NUM(d, c->latency),
		        config_comm_name(c->comm), config_duplex_name(c->duplex));
	else
		fprintf(out, "%-18s t_comm=%s per message, %s B, %s, %s-duplex\n", "communication",
		        REPORT_NUM(e, c->t_comm), REPORT_NUM(a, (double)c->msg_bytes),
		        config_comm_name(c->comm), config_duplex_name(c->duplex));
}

static void write_summary(FILE *out, const struct sim *s)
{
	const struct metrics *m = &s->metrics;
	const char *unit = s->cost->time_unit;
	char a[32], b[32];

	fprintf(out, "%-18s %s (p=%d, v=%d, m=%d", "schedule", s->config.schedule, s->sched->p,
	        s->sched->v, s->sched->m);
	if (s->sched->group > 0)
		fprintf(out, ", group %d", s->sched->group);
	fputs(")\n", out);
	write_costs(out, &s->config, s->sched->split);
	fprintf(out, "%-18s %s %s\n", "makespan", REPORT_NUM(a, m->makespan), unit);
	fprintf(out, "%-18s %.6f", "bubble_ratio", m->bubble_ratio);
	if (isnan(m->bubble_ratio_theory))
		fprintf(out, "  (no closed form applies)\n");
	else
		fprintf(out, "  (theory %.6f = %s)\n", m->bubble_ratio_theory,
		        s->sched->desc->theory_text);
	fprintf(out, "%-18s %.6f\n", "bubble_overhead", m->bubble_overhead);
	fprintf(out, "%-18s %.6f\n", "bubble_rate_span", m->bubble_rate_span);
	fprintf(out, "%-18s %.6f\n", "utilization", m->utilization);
	fprintf(out, "%-18s %" PRIu64 " messages, %" PRIu64 " bytes, %s %s in transfers\n", "p2p",
	        m->messages, m->bytes, REPORT_NUM(b, m->p2p_time), unit);
}

static void write_devices(FILE *out, const struct metrics *m)
{
	char a[32], b[32], c[32], d[32];

	fprintf(out, "\n%6s %12s %12s %12s %17s %12s\n", "device", "busy", "idle", "utilization",
	        "peak_activations", "comm_wait");
	for (int i = 0; i < m->p; i++) {
		const struct device_metrics *dm = &m->devices[i];

		fprintf(out, "%6d %12s %12s %12.6f %17s %12s\n", i, REPORT_NUM(a, dm->busy),
		        REPORT_NUM(b, dm->idle), dm->utilization,
		        REPORT_NUM(c, dm->peak_activations), REPORT_NUM(d, dm->comm_wait));
	}
}

static void write_channels(FILE *out, const struct metrics *m, enum pp_duplex duplex)
{
	char a[32], name[32];

	if (m->messages == 0)
		return;
	fprintf(out, "\n%-10s %10s %14s %12s %12s\n", "channel", "messages", "bytes", "time",
	        "utilization");
	for (int i = 0; i < m->nchannels; i++) {
		const struct channel_metrics *cm = &m->channels[i];

		snprintf(name, sizeof(name), "%d%s%d", cm->src,
		         duplex == PP_DUPLEX_HALF ? "<->" : "->", cm->dst);
		fprintf(out, "%-10s %10" PRIu64 " %14" PRIu64 " %12s %12.6f\n", name, cm->messages,
		        cm->bytes, REPORT_NUM(a, cm->time), cm->utilization);
	}
}

int report_text_write(FILE *out, const struct sim *s)
{
	write_summary(out, s);
	write_devices(out, &s->metrics);
	write_channels(out, &s->metrics, s->config.duplex);
	return 0;
}
