/* The JSON report, built with cJSON; keys and their order are the contract of DESIGN.md. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "formats.h"

/* Adds a number, or null for NaN (a figure that does not apply). */
static void add_number(cJSON *obj, const char *key, double x)
{
	if (isnan(x))
		cJSON_AddNullToObject(obj, key);
	else
		cJSON_AddNumberToObject(obj, key, x);
}

static cJSON *costs_object(const struct config *c, const char *unit, bool split)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "time_unit", unit);
	add_number(o, "t_f", c->t_f);
	add_number(o, "t_b", c->t_b);
	add_number(o, "t_w", c->t_w);
	add_number(o, "t_comm", c->bandwidth > 0 ? NAN : c->t_comm);
	add_number(o, "msg_bytes", (double)c->msg_bytes);
	add_number(o, "bandwidth", c->bandwidth > 0 ? c->bandwidth : NAN);
	add_number(o, "latency", c->bandwidth > 0 ? c->latency : NAN);
	cJSON_AddStringToObject(o, "comm", config_comm_name(c->comm));
	cJSON_AddStringToObject(o, "duplex", config_duplex_name(c->duplex));
	add_number(o, "w_mem_fraction", split ? c->w_mem_fraction : NAN);
	return o;
}

static cJSON *devices_array(const struct metrics *m)
{
	cJSON *a = cJSON_CreateArray();

	for (int d = 0; d < m->p; d++) {
		const struct device_metrics *dm = &m->devices[d];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "device", d);
		add_number(o, "busy", dm->busy);
		add_number(o, "idle", dm->idle);
		add_number(o, "utilization", dm->utilization);
		add_number(o, "peak_activations", dm->peak_activations);
		add_number(o, "comm_wait", dm->comm_wait);
		add_number(o, "span", dm->span);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *p2p_object(const struct metrics *m)
{
	cJSON *o = cJSON_CreateObject(), *chans = cJSON_CreateArray();

	add_number(o, "messages", (double)m->messages);
	add_number(o, "bytes", (double)m->bytes);
	add_number(o, "time", m->p2p_time);
	for (int i = 0; i < m->nchannels; i++) {
		const struct channel_metrics *cm = &m->channels[i];
		cJSON *c = cJSON_CreateObject();

		cJSON_AddNumberToObject(c, "src", cm->src);
		cJSON_AddNumberToObject(c, "dst", cm->dst);
		add_number(c, "messages", (double)cm->messages);
		add_number(c, "bytes", (double)cm->bytes);
		add_number(c, "time", cm->time);
		add_number(c, "utilization", cm->utilization);
		cJSON_AddItemToArray(chans, c);
	}
	cJSON_AddItemToObject(o, "channels", chans);
	return o;
}

int report_json_write(FILE *out, const struct sim *s)
{
	const struct metrics *m = &s->metrics;
	cJSON *root = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(root, "schedule", s->config.schedule);
	cJSON_AddNumberToObject(root, "p", s->sched->p);
	cJSON_AddNumberToObject(root, "v", s->sched->v);
	cJSON_AddNumberToObject(root, "m", s->sched->m);
	add_number(root, "makespan", m->makespan);
	add_number(root, "bubble_ratio", m->bubble_ratio);
	add_number(root, "bubble_ratio_theory", m->bubble_ratio_theory);
	add_number(root, "bubble_overhead", m->bubble_overhead);
	add_number(root, "bubble_rate_span", m->bubble_rate_span);
	add_number(root, "utilization", m->utilization);
	cJSON_AddItemToObject(root, "devices", devices_array(m));
	cJSON_AddItemToObject(root, "p2p", p2p_object(m));
	cJSON_AddItemToObject(root, "costs",
	                      costs_object(&s->config, s->cost->time_unit, s->sched->split));
	add_number(root, "group_size", s->sched->group > 0 ? s->sched->group : NAN);
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (text == NULL)
		return -1;
	fputs(text, out);
	fputc('\n', out);
	cJSON_free(text);
	return 0;
}
