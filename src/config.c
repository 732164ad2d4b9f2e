/* Configuration defaults, the option table, value parsing and whole-config validation. */
#include "ppsim/config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/sched.h"

#define FIELD(f) offsetof(struct config, f)

static const struct config_option options[] = {
        {"schedule", 's', "schedule", CONFIG_ARG_NAME, "NAME",
         "schedule (default 1f1b):", FIELD(schedule)},
        {"stages", 'p', "p", CONFIG_ARG_COUNT, "N", "pipeline devices (ranks) p (default 4)",
         FIELD(p)},
        {"microbatches", 'm', "m", CONFIG_ARG_COUNT, "N", "micro-batches per step m (default 8)",
         FIELD(m)},
        {"chunks", 'v', "v", CONFIG_ARG_COUNT, "N", "model chunks per device v (default 1)",
         FIELD(v)},
        {"tf", 0, "t_f", CONFIG_ARG_TIME, "T",
         "forward time of one micro-batch on one device (default 1)", FIELD(t_f)},
        {"tb", 0, "t_b", CONFIG_ARG_TIME, "T", "input-gradient backward time (default 1)",
         FIELD(t_b)},
        {"tw", 0, "t_w", CONFIG_ARG_TIME, "T",
         "weight-gradient backward time; fused backward costs tb+tw (default 1)", FIELD(t_w)},
        {"tcomm", 0, "t_comm", CONFIG_ARG_TIME, "T",
         "time of one point-to-point message (default 0)", FIELD(t_comm)},
        {"msg-bytes", 0, "msg_bytes", CONFIG_ARG_BYTES, "N",
         "bytes of one point-to-point message (default 0)", FIELD(msg_bytes)},
        {"bandwidth", 0, "bandwidth", CONFIG_ARG_RATE, "GBPS",
         "link bandwidth per direction in GB/s; times become milliseconds", FIELD(bandwidth)},
        {"latency", 0, "latency", CONFIG_ARG_TIME, "US",
         "link latency per message in microseconds (with --bandwidth; default 0)", FIELD(latency)},
        {"comm", 0, "comm", CONFIG_ARG_NAME, "MODE",
         "overlap (copy engine, default) or blocking (sender waits for its send)", FIELD(comm)},
        {"group-size", 0, "group_size", CONFIG_ARG_COUNT, "N",
         "interleaved: micro-batches per group g (default p where p divides m)", FIELD(group_size)},
        {"w-mem-fraction", 0, "w_mem_fraction", CONFIG_ARG_SHARE, "F",
         "share of activations W still needs after B, split backward (default 0.5)",
         FIELD(w_mem_fraction)},
        {"duplex", 0, "duplex", CONFIG_ARG_NAME, "MODE",
         "full (default: each direction has its own channel) or half", FIELD(duplex)},
};

const struct config_option *config_options(size_t *count)
{
	*count = sizeof(options) / sizeof(options[0]);
	return options;
}

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
}

struct sched_params config_sched_params(const struct config *c)
{
	struct sched_params sp = {c->p, c->v, c->m, c->group_size};

	return sp;
}

const char *config_comm_name(enum pp_comm comm)
{
	return comm == PP_COMM_BLOCKING ? "blocking" : "overlap";
}

const char *config_duplex_name(enum pp_duplex duplex)
{
	return duplex == PP_DUPLEX_HALF ? "half" : "full";
}

/* Parses a whole decimal integer in [lo, hi]; false on junk, sign or range errors. */
static bool parse_integer(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long x;

	if (*s == '\0' || *s == ' ' || *s == '\t' || *s == '+')
		return false;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

/* Parses a whole finite decimal number; false on junk, NaN or infinity. */
static bool parse_number(const char *s, double *out)
{
	char *end;
	double x;

	if (*s == '\0' || *s == ' ' || *s == '\t')
		return false;
	errno = 0;
	x = strtod(s, &end);
	if (errno == ERANGE || *end != '\0' || !isfinite(x))
		return false;
	*out = x;
	return true;
}

static int set_name(struct config *c, const struct config_option *opt, const char *label,
                    const char *value, struct pp_error *err)
{
	char names[256];

	if (opt->offset == FIELD(schedule)) {
		if (sched_find(value) == NULL)
			return pp_fail(err, PP_ERR_USAGE, "%s '%s': unknown schedule; known: %s",
			               label, value, sched_names(names, sizeof(names)));
		strcpy(c->schedule, value);
	} else if (opt->offset == FIELD(comm)) {
		if (strcmp(value, "overlap") == 0)
			c->comm = PP_COMM_OVERLAP;
		else if (strcmp(value, "blocking") == 0)
			c->comm = PP_COMM_BLOCKING;
		else
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be 'overlap' or 'blocking'", label, value);
	} else if (opt->offset == FIELD(duplex)) {
		if (strcmp(value, "full") == 0)
			c->duplex = PP_DUPLEX_FULL;
		else if (strcmp(value, "half") == 0)
			c->duplex = PP_DUPLEX_HALF;
		else
			return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be 'full' or 'half'",
			               label, value);
	}
	return 0;
}

int config_set(struct config *c, const struct config_option *opt, const char *label,
               const char *value, struct pp_error *err)
{
	char *field = (char *)c + opt->offset;
	long long n;
	double x;

	switch (opt->arg) {
	case CONFIG_ARG_NAME:
		return set_name(c, opt, label, value, err);
	case CONFIG_ARG_COUNT:
		if (!parse_integer(value, 1, PP_MAX_COUNT, &n))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be an integer from 1 to %d", label, value,
			               PP_MAX_COUNT);
		*(int *)(void *)field = (int)n;
		return 0;
	case CONFIG_ARG_BYTES:
		if (!parse_integer(value, 0, INT64_MAX, &n))
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be an integer from 0 to %" PRId64, label,
			               value, INT64_MAX);
		*(uint64_t *)(void *)field = (uint64_t)n;
		return 0;
	case CONFIG_ARG_TIME:
		if (!parse_number(value, &x) || x < 0 || x > PP_TIME_MAX_UNITS)
			return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be a number from 0 to %g",
			               label, value, PP_TIME_MAX_UNITS);
		*(double *)(void *)field = x;
		return 0;
	case CONFIG_ARG_SHARE:
		if (!parse_number(value, &x) || x < 0 || x > 1)
			return pp_fail(err, PP_ERR_USAGE, "%s '%s': must be a number from 0 to 1",
			               label, value);
		*(double *)(void *)field = x;
		return 0;
	case CONFIG_ARG_RATE:
		if (!parse_number(value, &x) || x <= 0 || x > 1e9)
			return pp_fail(err, PP_ERR_USAGE,
			               "%s '%s': must be a number above 0 and at most 1e9", label,
			               value);
		*(double *)(void *)field = x;
		return 0;
	}
	return pp_fail(err, PP_ERR_USAGE, "%s: unhandled option kind", label);
}

double config_msg_time(const struct config *c)
{
	if (c->bandwidth > 0)
		/* ms = latency_us / 1e3 + bytes / (GB/s * 1e9 B/s) * 1e3 ms/s */
		return c->latency / 1e3 + (double)c->msg_bytes / (c->bandwidth * 1e6);
	return c->t_comm;
}

int config_validate(const struct config *c, struct pp_error *err)
{
	const struct sched_desc *desc = sched_find(c->schedule);
	struct sched_params sp;
	char names[256];
	uint64_t ops;

	if (c->p < 1 || c->p > PP_MAX_COUNT || c->m < 1 || c->m > PP_MAX_COUNT || c->v < 1)
		return pp_fail(err, PP_ERR_USAGE,
		               "-p %d -m %d -v %d: p and m must be from 1 to %d, v at least 1",
		               c->p, c->m, c->v, PP_MAX_COUNT);
	if (desc == NULL)
		return pp_fail(err, PP_ERR_USAGE, "--schedule '%s': unknown schedule; known: %s",
		               c->schedule, sched_names(names, sizeof(names)));
	if (!sched_op_count(c->p, c->v, c->m, desc->split, &ops) || ops > PP_MAX_OPS)
		return pp_fail(err, PP_ERR_USAGE,
		               "-p %d -m %d -v %d: %s needs %.3g ops, above the limit of %" PRIu64
		               " simulated ops",
		               c->p, c->m, c->v, desc->name,
		               (double)c->p * c->v * c->m * (desc->split ? 3 : 2), PP_MAX_OPS);
	if (c->v > PP_MAX_CHUNKS)
		return pp_fail(err, PP_ERR_USAGE, "--chunks '%d': must be at most %d", c->v,
		               PP_MAX_CHUNKS);
	sp = config_sched_params(c);
	if (sched_accepts(desc, &sp, err) != 0)
		return -1;
	if (c->bandwidth > 0 && c->t_comm > 0)
		return pp_fail(
		        err, PP_ERR_USAGE,
		        "--tcomm and --bandwidth: give a fixed message time or a link, not both");
	if (c->bandwidth == 0 && c->latency > 0)
		return pp_fail(err, PP_ERR_USAGE, "--latency: needs --bandwidth");
	if (config_msg_time(c) > PP_TIME_MAX_UNITS)
		return pp_fail(err, PP_ERR_USAGE,
		               "--msg-bytes '%" PRIu64
		               "' at --bandwidth '%g': one message would take "
		               "%.3g ms, above the limit of %g",
		               c->msg_bytes, c->bandwidth, config_msg_time(c), PP_TIME_MAX_UNITS);
	/* every op sends at most one message: ops * msg_bytes bounds the traffic, which must stay
	 * exact in a double (JSON numbers) */
	if (c->msg_bytes > 0 && (double)ops * (double)c->msg_bytes > PP_MAX_TRAFFIC_BYTES)
		return pp_fail(err, PP_ERR_USAGE,
		               "--msg-bytes '%" PRIu64
		               "': %.3g ops could move %.3g bytes, above the "
		               "limit of 2^53",
		               c->msg_bytes, (double)ops, (double)ops * (double)c->msg_bytes);
	if (c->t_f + c->t_b + c->t_w == 0)
		return pp_fail(err, PP_ERR_USAGE,
		               "--tf, --tb and --tw: at least one must be above 0");
	return 0;
}
