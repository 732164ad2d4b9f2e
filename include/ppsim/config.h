/*
 * Configuration: the typed, validated description of one simulation, and the table of options
 * that set it. The command line (and, later, JSON config files) set fields through this table
 * only, so names, argument forms and help texts live in one place.
 *
 * Ownership: struct config is plain data with no pointers; copy it freely.
 */
#ifndef PPSIM_CONFIG_H
#define PPSIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/sched.h"
#include "ppsim/util.h"

/* Hard limits on counts, beyond the op cap below. */
#define PP_MAX_COUNT  16777216 /* p and m each */
#define PP_MAX_CHUNKS 1024     /* v */
/*
 * Cap on the ops one simulation may hold (p * v * m * 2, or * 3 with split backward). About
 * 60 bytes per op are needed, so the cap keeps a run within a few gigabytes.
 */
#define PP_MAX_OPS UINT64_C(50000000)
/* Cap on the P2P bytes one simulation may move, so that totals stay exact in a double. */
#define PP_MAX_TRAFFIC_BYTES 9007199254740992.0 /* 2^53 */

enum pp_comm {
	PP_COMM_OVERLAP,  /* a copy engine moves data while the device computes */
	PP_COMM_BLOCKING, /* the sending device's compute stream waits until its send completes */
};

enum pp_duplex {
	PP_DUPLEX_FULL, /* channels d->e and e->d are independent */
	PP_DUPLEX_HALF, /* d->e and e->d share one channel */
};

/* One simulation's settings. Times are in units (abstract, or milliseconds with a link). */
struct config {
	char schedule[32];     /* generator name, as in sched_find */
	int p;                 /* devices (pipeline ranks), >= 1 */
	int v;                 /* chunks per device, >= 1 */
	int m;                 /* micro-batches, >= 1 */
	double t_f;            /* forward time of one micro-batch through a device's layers */
	double t_b;            /* input-gradient backward time, same scope */
	double t_w;            /* weight-gradient backward time, same scope */
	double t_comm;         /* fixed time of one P2P message; used when bandwidth is 0 */
	uint64_t msg_bytes;    /* bytes of one P2P message (activation or its gradient) */
	double bandwidth;      /* link bandwidth per direction in GB/s (1e9 B/s); 0: use t_comm */
	double latency;        /* link latency per message in microseconds (with bandwidth) */
	enum pp_comm comm;     /* overlap or blocking communication */
	enum pp_duplex duplex; /* full- or half-duplex channels */
	int group_size;        /* interleaved micro-batch group g; 0 picks the default */
	double w_mem_fraction; /* share of a chunk's activations W still needs after B */
};

/* The kinds of value an option takes. */
enum config_arg {
	CONFIG_ARG_NAME,  /* a name from a fixed set */
	CONFIG_ARG_COUNT, /* an integer from 1 to PP_MAX_COUNT */
	CONFIG_ARG_TIME,  /* a finite time >= 0 and <= PP_TIME_MAX_UNITS */
	CONFIG_ARG_BYTES, /* an integer >= 0 that fits in 63 bits */
	CONFIG_ARG_RATE,  /* a finite number > 0 */
	CONFIG_ARG_SHARE, /* a number from 0 to 1 */
};

/* A row of the option table. */
struct config_option {
	const char *name;    /* long option name without dashes: "stages" */
	int short_name;      /* single-letter option, or 0 */
	const char *key;     /* the field's name in JSON output and config files: "p" */
	enum config_arg arg; /* what the value must be */
	const char *metavar; /* the value's name in --help: "N" */
	const char *help;    /* one line for --help and the man page */
	size_t offset;       /* offset of the field it sets in struct config */
};

/* The option table in --help order; *count receives its length. */
const struct config_option *config_options(size_t *count);

/*
 * Fills c with the defaults: 1f1b, p=4, v=1, m=8, t_f=t_b=t_w=1, no communication cost, the
 * schedule's default group size, W keeping half of a chunk's activations.
 */
void config_init(struct config *c);

/*
 * Parses value for option opt into c. label names the value's origin in messages ("--stages",
 * "-p"). Returns 0, or -1 with a PP_ERR_USAGE error such as
 * "--stages '0': must be an integer from 1 to 16777216".
 */
int config_set(struct config *c, const struct config_option *opt, const char *label,
               const char *value, struct pp_error *err);

/*
 * Checks the settings as a whole: the schedule exists and accepts (p, v, m), the op count is
 * within PP_MAX_OPS, and link settings are consistent. Returns 0, or -1 with a PP_ERR_USAGE
 * error naming the offending option and value.
 */
int config_validate(const struct config *c, struct pp_error *err);

/*
 * Time of one P2P message in units: t_comm, or with a bandwidth, latency + msg_bytes / bandwidth
 * in milliseconds.
 */
double config_msg_time(const struct config *c);

/* The generator parameters the config asks for. */
struct sched_params config_sched_params(const struct config *c);

/* Names of the enum values as users write them: "overlap"/"blocking", "full"/"half". */
const char *config_comm_name(enum pp_comm comm);
const char *config_duplex_name(enum pp_duplex duplex);

#endif
