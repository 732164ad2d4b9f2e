/*
 * Configuration: the defaults, the settling of derived settings (a framework's habits, the
 * data-parallel degree), and one option's value parsed, formatted and failed with its origin.
 * Each row of the option table (config_table.c) is the whole truth about its option; parsing,
 * formatting, the checks that refuse an option where it does not apply (config_check.c), --help
 * and completion all read its columns, so no side list of option keys says what an option is
 * for; what remains keyed by option are rules on values (burst only with --arrival=bursty).
 */
#include "ppsim/config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "config_internal.h"
#include "config_noise.h"
#include "ppsim/preset.h"
#include "ppsim/sched.h"

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->schedule, "1f1b");
	c->p = 4;
	c->v = 1;
	c->m = 8;
	c->t_f = 1;
	c->t_b = 1;
	c->t_w = 1;
	c->comm = PP_COMM_OVERLAP;
	c->duplex = PP_DUPLEX_FULL;
	c->w_mem_fraction = 0.5;
	c->overlap_factor = 1;
	c->latency = -1;
	c->inter_latency = -1;
	c->mlp = PP_MLP_PRESET;
	c->tied = -1;
	c->experts = -1;
	c->q_lora_rank = -1;
	c->kv_lora_rank = -1;
	c->rope_dim = -1;
	c->mtp_layers = -1;
	c->shared_experts = -1;
	c->dense_layers = -1;
	c->ep = 1;
	c->p2p_overhead = -1;
	c->kernel_overhead = -1;
	c->memory_reserve = -1;
	c->seq = 2048;
	c->mbs = 1;
	c->tp = 1;
	c->dp = 1;
	c->gpus_per_node = 8;
	c->flash_attention = 1;
	c->sequence_parallel = 1;
	c->unfused_attention_bytes = -1;
	c->loss_bytes = -1;
	c->loss_bwd_bytes = -1;
	c->grad_accum_bytes = -1;
	c->recompute = PP_RECOMPUTE_NONE;
	c->distributed_optimizer = -1;
	c->cp = 1;
	c->overlap_grad_reduce = -1;
	c->overlap_param_gather = -1;
	c->grad_reduce_scatter = -1;
	c->comm_slowdown = -1;
	c->optimizer_bytes = -1;
	c->grad_reduce_bytes = 4;
	c->step_overhead = -1;
	c->bytes_per_param = 16;
	c->dtype_bytes = 2;
	c->arrival = PP_ARRIVAL_POISSON;
	c->rate = 10;
	c->num_requests = 100;
	c->burst = 8;
	c->concurrency = 8;
	c->prompt = (struct pp_dist){PP_DIST_FIXED, 512, 0};
	c->output = (struct pp_dist){PP_DIST_FIXED, 128, 0};
	c->seed = 1;
	c->batching = PP_BATCHING_CONTINUOUS;
	c->max_batch = 256;
	c->max_tokens = 8192;
	c->chunk_tokens = 512;
	c->step_time = 1;
	c->max_ops = PP_MAX_OPS;
	c->svg_width = PP_SVG_AUTO_WIDTH;
}

struct sched_params config_sched_params(const struct config *c)
{
	struct sched_params sp = {c->p, c->v, c->m, c->group_size};

	return sp;
}

bool config_is_set(const struct config *c, const char *key)
{
	const struct config_option *o = config_option_by_key(key);

	return o != NULL && c->origin[config_row(o)].line != 0;
}

bool config_has_model(const struct config *c)
{
	return c->model[0] != '\0';
}

int config_dp(const struct config *c, int *dp, struct pp_error *err)
{
	long long pt = (long long)c->p * c->tp * c->cp;

	*dp = c->dp;
	if (c->gpus == 0)
		return 0;
	if (c->gpus % pt != 0) {
		/* the first factor that leaves the GPUs undivided, when it was set: p, tp, cp */
		const char *blame = c->gpus % c->p != 0 && config_is_set(c, "p") ? "p"
		                    : c->gpus % ((long long)c->p * c->tp) != 0 && config_is_set(c, "tp")
		                            ? "tp"
		                    : config_is_set(c, "cp") ? "cp"
		                    : config_is_set(c, "tp") ? "tp"
		                                             : "gpus";

		return config_fail(c, blame, err,
		                   "p x tp x cp = %lld does not divide the %d GPUs (--gpus)", pt,
		                   c->gpus);
	}
	if (config_is_set(c, "dp") && c->dp != c->gpus / pt)
		return config_fail(c, "dp", err,
		                   "disagrees with --gpus %d = p %d x tp %d x cp %d x dp %lld",
		                   c->gpus, c->p, c->tp, c->cp, c->gpus / pt);
	*dp = (int)(c->gpus / pt);
	return 0;
}

/* Gives the options of c that were not set the framework f's habits. */
static void apply_framework(struct config *c, const struct framework_preset *f)
{
	const struct {
		const char *key;
		int *field;
		int value;
	} rows[] = {
	        {"comm", (int *)&c->comm, c->v > 1 ? f->comm_chunked : f->comm},
	        {"overlap_grad_reduce", &c->overlap_grad_reduce, f->overlap_grad_reduce},
	        {"overlap_param_gather", &c->overlap_param_gather, f->overlap_param_gather},
	        {"distributed_optimizer", &c->distributed_optimizer, f->distributed_optimizer},
	        {"grad_reduce_scatter", &c->grad_reduce_scatter, f->grad_reduce_scatter},
	        {"tp_overlap", (int *)&c->tp_overlap, f->tp_overlap},
	        {"flash_attention", &c->flash_attention, f->flash_attention},
	        {"attention_kernel", (int *)&c->attention_kernel, f->attention_kernel},
	};

	const struct {
		const char *key;
		double *field;
		double value;
	} reals[] = {
	        {"loss_bytes", &c->loss_bytes, f->loss_bytes},
	        {"loss_bwd_bytes", &c->loss_bwd_bytes, f->loss_bwd_bytes},
	        {"grad_accum_bytes", &c->grad_accum_bytes, f->grad_accum_bytes},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].value >= 0 && !config_is_set(c, rows[i].key))
			*rows[i].field = rows[i].value;
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
		if (reals[i].value >= 0 && !config_is_set(c, reals[i].key))
			*reals[i].field = reals[i].value;
	/* a habit that needs what the run turned off is not taken: the parameter gather of a
	 * distributed optimizer, the TP overlap of sequence parallelism (which it splits) */
	if (!c->distributed_optimizer && !config_is_set(c, "overlap_param_gather"))
		c->overlap_param_gather = 0;
	if (!c->sequence_parallel && !config_is_set(c, "tp_overlap"))
		c->tp_overlap = PP_TP_OVERLAP_NONE;
}

int config_settle(const struct config *in, struct config *out, struct pp_error *err)
{
	const struct sched_desc *desc = sched_find(in->schedule);
	long long per_step;
	int m;

	*out = *in;
	/* a schedule with chunks runs with the fewest it takes unless -v says otherwise */
	if (desc != NULL && !config_is_set(in, "v") && in->v < sched_desc_min_v(desc, in->p))
		out->v = sched_desc_min_v(desc, in->p);
	if (in->framework[0] != '\0')
		apply_framework(out, preset_framework(in->framework));
	if (!config_has_model(in) || in->global_batch == 0)
		return 0;
	if (config_dp(in, &out->dp, err) != 0)
		return -1;
	per_step = (long long)in->mbs * out->dp;
	if (in->global_batch % per_step != 0)
		return config_fail(in, "global_batch", err,
		                   "is not a whole number of micro-batches: mbs %d x dp %d = %lld "
		                   "sequences a micro-batch step",
		                   in->mbs, out->dp, per_step);
	m = (int)(in->global_batch / per_step);
	if (config_is_set(in, "m") && in->m != m)
		return config_fail(in, "m", err,
		                   "disagrees with --global-batch %d = m %d x mbs %d x dp %d",
		                   in->global_batch, m, in->mbs, out->dp);
	out->m = m;
	return 0;
}

/* Parses a whole decimal integer in [lo, hi]; false on junk, sign or range errors. */
static bool parse_integer(const char *s, long long lo, long long hi, long long *out)
{
	return text_parse_int(s, lo, hi, out) == TEXT_OK;
}

/* Parses a whole finite decimal number; false on junk, NaN or infinity. */
static bool parse_number(const char *s, double *out)
{
	double x;

	/* out of range, underflow included, is an error here */
	if (text_parse_double(s, &x) != TEXT_OK)
		return false;
	*out = x == 0 ? 0.0 : x; /* -0 is 0, and is written so */
	return true;
}

/* Copies a preset name after checking it names a row of its table. */
static int set_preset(char *field, const char *kind, const char *label, const char *value,
                      struct pp_error *err)
{
	char names[256], hint[96];

	if (!preset_known(kind, value) || strlen(value) >= 32) {
		preset_names(kind, names, sizeof(names));
		return pp_fail(err, PP_ERR_USAGE, "%s '%s': unknown %s; known: %s%s", label, value,
		               kind, names, text_suggest_in(value, names, ", ", hint, sizeof(hint)));
	}
	strcpy(field, value);
	return 0;
}

/* Sets *field to the index of value in names[] (NULL-terminated); fails naming them. */
static int set_choice(int *field, const char *const *names, const char *label, const char *value,
                      struct pp_error *err)
{
	char list[128], hint[96];
	struct text_suggest near;
	size_t n = 0;

	for (; names[n] != NULL; n++)
		if (strcmp(value, names[n]) == 0) {
			*field = (int)n;
			return 0;
		}
	text_suggest_init(&near, value, strlen(value));
	for (size_t i = 0; i < n; i++)
		text_suggest_try(&near, names[i], strlen(names[i]));
	return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be %s%s", label, value,
	               text_choices(names, n, list, sizeof(list)),
	               text_suggest_hint(&near, "", hint, sizeof(hint)));
}

int config_set_schedule(struct config *c, const struct config_option *opt, const char *label,
                        const char *value, struct pp_error *err)
{
	const struct sched_desc *d = sched_find(value);
	char names[256], hint[96];

	(void)opt;
	if (d == NULL) {
		sched_names(names, sizeof(names));
		return pp_fail(err, PP_ERR_USAGE, "%s '%s': unknown schedule; known: %s%s", label,
		               value, names, text_suggest_in(value, names, ", ", hint, sizeof(hint)));
	}
	/* an alias or another case stands for the schedule's own name */
	strcpy(c->schedule, d->name);
	return 0;
}

static int set_name(struct config *c, const struct config_option *opt, const char *label,
                    const char *value, struct pp_error *err)
{
	char *field = (char *)c + opt->offset;

	if (opt->values != NULL)
		return set_choice((int *)(void *)field, opt->values, label, value, err);
	if (opt->preset != NULL)
		return set_preset(field, opt->preset, label, value, err);
	return opt->parse(c, opt, label, value, err);
}

static int set_bool(int *field, const char *label, const char *value, struct pp_error *err)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};

	for (size_t i = 0; i < 4; i++) {
		if (strcmp(value, yes[i]) == 0) {
			*field = 1;
			return 0;
		}
		if (strcmp(value, no[i]) == 0) {
			*field = 0;
			return 0;
		}
	}
	return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be yes or no", label, value);
}

int config_parse_bool(int *field, const char *label, const char *value, struct pp_error *err)
{
	return set_bool(field, label, value, err);
}

static int set_list(struct config *c, const char *label, const char *value, struct pp_error *err)
{
	int list[PP_MAX_LIST], n = 0;
	const char *p = value;
	char buf[16];

	for (;;) {
		size_t len = strcspn(p, ",");
		long long x;

		memcpy(buf, p, len < sizeof(buf) ? len : 0);
		buf[len < sizeof(buf) ? len : 0] = '\0';
		if (len >= sizeof(buf) || n == PP_MAX_LIST ||
		    !parse_integer(buf, 0, PP_MAX_COUNT, &x))
			/* quote at most the start of a long list, so that the reason still fits */
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%.40s%s': must be up to %d integers from 0 to %d, "
			               "comma-separated",
			               label, value, strlen(value) > 40 ? "..." : "", PP_MAX_LIST,
			               PP_MAX_COUNT);
		list[n++] = (int)x;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	memcpy(c->layers_per_stage, list, (size_t)n * sizeof(list[0]));
	c->nlayers_per_stage = n;
	return 0;
}

static int set_scales(struct config *c, const char *label, const char *value, struct pp_error *err)
{
	double list[PP_MAX_LIST];
	const char *p = value;
	char buf[32];
	int n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		double x = 0;

		memcpy(buf, p, len < sizeof(buf) ? len : 0);
		buf[len < sizeof(buf) ? len : 0] = '\0';
		if (len >= sizeof(buf) || n == PP_MAX_LIST || !parse_number(buf, &x) || x <= 0 ||
		    x > 1e6)
			return pp_fail(
			        err, PP_ERR_USAGE,
			        "%s '%.40s%s': must be up to %d numbers above 0 and at most 1e6, "
			        "comma-separated",
			        label, value, strlen(value) > 40 ? "..." : "", PP_MAX_LIST);
		list[n++] = x;
		if (p[len] == '\0')
			break;
		p += len + 1;
	}
	memcpy(c->stage_scale, list, (size_t)n * sizeof(list[0]));
	c->nstage_scale = n;
	return 0;
}

static int parse_value(struct config *c, const struct config_option *opt, const char *label,
                       const char *value, struct pp_error *err)
{
	char shown[64]; /* the value in a message, a cut marked "..." */
	char *field = (char *)c + opt->offset;
	long long n;
	double x;

	switch (opt->arg) {
	case CONFIG_ARG_NAME:
		return set_name(c, opt, label, value, err);
	case CONFIG_ARG_BOOL:
		return set_bool((int *)(void *)field, label, value, err);
	case CONFIG_ARG_LIST:
		return set_list(c, label, value, err);
	case CONFIG_ARG_SCALES:
		return set_scales(c, label, value, err);
	case CONFIG_ARG_PATH:
		if (*value == '\0' || strlen(value) >= sizeof(c->schedule_file))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be a path of 1 to %zu "
			               "characters",
			               label, text_visible(shown, sizeof(shown), value),
			               sizeof(c->schedule_file) - 1);
		strcpy(field, value);
		return 0;
	case CONFIG_ARG_COUNT: {
		int lo = opt->min > 0 ? opt->min : (opt->flags & CONFIG_ZERO_OK) ? 0 : 1;
		int hi = opt->max > 0 ? opt->max : PP_MAX_COUNT;

		if (!parse_integer(value, lo, hi, &n))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be an integer from %d to %d", label, value,
			               lo, hi);
		*(int *)(void *)field = (int)n;
		return 0;
	}
	case CONFIG_ARG_BYTES: {
		int64_t lo = opt->bytes_min, hi = opt->bytes_max > 0 ? opt->bytes_max : INT64_MAX;

		if (!parse_integer(value, lo, hi, &n))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be an integer from %" PRId64 " to %" PRId64,
			               label, value, lo, hi);
		*(uint64_t *)(void *)field = (uint64_t)n;
		return 0;
	}
	case CONFIG_ARG_TIME: {
		/* a factor with a most value (.max: the SM slowdown) says it */
		double most = opt->max > 0 ? opt->max : PP_TIME_MAX_UNITS;

		if (!parse_number(value, &x) || x < 0 || x > most)
			return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be a number from 0 to %g",
			               label, value, most);
		*(double *)(void *)field = x;
		return 0;
	}
	case CONFIG_ARG_SHARE:
		if (!parse_number(value, &x) || x < 0 || x > 1)
			return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be a number from 0 to 1",
			               label, value);
		*(double *)(void *)field = x;
		return 0;
	case CONFIG_ARG_RATE:
		/* a rate with a least value (.min: an expert imbalance is at least 1) says it */
		if (opt->min > 0 && (!parse_number(value, &x) || x < opt->min || x > 1e9))
			return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be a number from %d to 1e9",
			               label, value, opt->min);
		if (!parse_number(value, &x) || x <= 0 || x > 1e9)
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be a number above 0 and at most 1e9", label,
			               value);
		*(double *)(void *)field = x;
		return 0;
	}
	return pp_fail(err, PP_ERR_USAGE, "%s: unhandled option kind", label);
}

int config_set(struct config *c, const struct config_option *opt, const char *label,
               const char *value, struct pp_error *err)
{
	if (parse_value(c, opt, label, value, err) != 0)
		return -1;
	c->origin[config_row(opt)] = (struct config_origin){-1, 0};
	return 0;
}

char *config_format_value(const struct config *c, const struct config_option *opt, char *buf,
                          size_t n)
{
	const char *field = (const char *)c + opt->offset;

	switch (opt->arg) {
	case CONFIG_ARG_PATH:
		snprintf(buf, n, "%s", field);
		break;
	case CONFIG_ARG_NAME:
		if (opt->values != NULL)
			snprintf(buf, n, "%s", opt->values[*(const int *)(const void *)field]);
		else if (opt->format != NULL)
			opt->format(c, opt, buf, n);
		else
			snprintf(buf, n, "%s", field);
		break;
	case CONFIG_ARG_BOOL:
		snprintf(buf, n, "%s",
		         *(const int *)(const void *)field < 0   ? "preset"
		         : *(const int *)(const void *)field > 0 ? "yes"
		                                                 : "no");
		break;
	case CONFIG_ARG_COUNT:
		snprintf(buf, n, "%d", *(const int *)(const void *)field);
		break;
	case CONFIG_ARG_BYTES:
		snprintf(buf, n, "%" PRIu64, *(const uint64_t *)(const void *)field);
		break;
	case CONFIG_ARG_LIST: {
		size_t len = 0;

		buf[0] = '\0';
		for (int i = 0; i < c->nlayers_per_stage && len < n; i++)
			len += (size_t)snprintf(buf + len, n - len, "%s%d", i ? "," : "",
			                        c->layers_per_stage[i]);
		break;
	}
	case CONFIG_ARG_SCALES: {
		size_t len = 0;

		buf[0] = '\0';
		for (int i = 0; i < c->nstage_scale && len < n; i++) {
			char x[32];

			/* exact: a sweep's value is this text read back */
			len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "",
			                        pp_double_format(x, sizeof(x), c->stage_scale[i]));
		}
		break;
	}
	case CONFIG_ARG_TIME:
	case CONFIG_ARG_SHARE:
	case CONFIG_ARG_RATE:
		pp_double_format(buf, n, *(const double *)(const void *)field);
		break;
	}
	return buf;
}

int config_fail(const struct config *c, const char *key, struct pp_error *err, const char *fmt, ...)
{
	const struct config_option *opt = config_option_by_key(key);
	char what[700], value[128];
	struct config_origin at;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (opt == NULL)
		return pp_fail(err, PP_ERR_USAGE, "%s", what);
	at = c->origin[config_row(opt)];
	config_format_value(c, opt, value, sizeof(value));
	if (at.line == CONFIG_LINE_CALLER)
		return pp_fail(err, PP_ERR_USAGE, "key \"%s\" = %s: %s", key, value, what);
	if (at.line > 0) {
		pp_fail(err, PP_ERR_CONFIG, "config '%s':%d:%d: key \"%s\" = %s: %s", c->file,
		        at.line, at.column, key, value, what);
		err->line = at.line;
		err->column = at.column;
		return -1;
	}
	return pp_fail(err, PP_ERR_USAGE, "--%s '%s': %s", opt->name, value, what);
}

void config_link(const struct config *c, double *bandwidth, double *latency)
{
	const struct link_preset *l = c->link[0] ? preset_link(c->link) : NULL;

	*bandwidth = c->bandwidth > 0 ? c->bandwidth : l != NULL ? l->bandwidth : 0;
	*latency = c->latency >= 0 ? c->latency : l != NULL ? l->latency : 0;
}

const char *config_gpu(const struct config *c)
{
	size_t n;

	if (c->ndevice_gpus > 0)
		return preset_gpus(&n)[c->device_gpu[0]].name;
	return c->gpu[0] ? c->gpu : PRESET_DEFAULT_GPU;
}

const char *config_device_gpu(const struct config *c, int d)
{
	size_t n;

	if (c->ndevice_gpus > 0)
		return preset_gpus(&n)[c->device_gpu[d]].name;
	return config_gpu(c);
}

void config_model_links(const struct config *c, char *link, char *inter_link)
{
	const struct gpu_preset *g = preset_gpu(config_gpu(c));

	snprintf(link, 32, "%s", c->link[0] ? c->link : g->link);
	snprintf(inter_link, 32, "%s", c->inter_link[0] ? c->inter_link : g->inter_link);
}

double config_stage_scale(const struct config *c, int st, int d)
{
	/* p factors name the physical devices, also at v = 1, where they are p x v too: with
	 * --device-order a stage's device is not its number */
	if (c->nstage_scale == c->p && c->nstage_scale > 0)
		return c->stage_scale[d];
	if (c->nstage_scale == c->p * c->v)
		return c->stage_scale[st];
	return 1;
}

double config_msg_time(const struct config *c)
{
	double bw, lat;

	config_link(c, &bw, &lat);
	if (bw > 0)
		/* ms = latency_us / 1e3 + bytes / (GB/s * 1e9 B/s) * 1e3 ms/s */
		return lat / 1e3 + (double)c->msg_bytes / (bw * 1e6);
	return c->t_comm;
}

