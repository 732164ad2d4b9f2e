/*
 * Cost model: what each op costs in time and activation memory on each virtual stage, and what
 * each point-to-point message costs in bytes and time. The engine reads a struct cost and never
 * asks where its numbers came from.
 *
 * Ownership: cost_new returns a struct cost owning its arrays; free it with cost_free.
 */
#ifndef PPSIM_COST_H
#define PPSIM_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "ppsim/config.h"
#include "ppsim/util.h"

/*
 * Costs of one simulation, per virtual stage s = 0..S-1. Times are in ticks, tick ticks per
 * unit. A message crossing boundary s (between stages s and s+1, in either direction) carries
 * msg_bytes[s] and, once it holds its channel, takes msg_time[s]; index S-1 is unused (0).
 */
struct cost {
	int S;                 /* virtual stages */
	int64_t tick;          /* ticks per time unit */
	const char *time_unit; /* "t" for abstract units, "ms" when a link sets message times */
	pp_time *t_f;          /* [S] forward of one micro-batch through stage s */
	pp_time *t_b;          /* [S] input-gradient backward */
	pp_time *t_w;          /* [S] weight-gradient backward (a fused BW costs t_b + t_w) */
	int64_t *act;          /* [S] activation amount F allocates (bytes, or abstract) */
	int64_t *act_w;        /* [S] the part of act that W still needs after B (<= act) */
	uint64_t *msg_bytes;   /* [S] bytes of a message across boundary s */
	pp_time *msg_time;     /* [S] transfer time of that message: latency + bytes / bandwidth */
	enum pp_comm comm;     /* overlap or blocking */
	enum pp_duplex duplex; /* full- or half-duplex channels */
};

/*
 * Explicit costs from a validated config with S = p * v stages: each chunk op takes t/v of the
 * device's time t, activations are 1/v of a micro-batch per chunk, W keeps w_fraction of them,
 * messages take t_comm, or latency + msg_bytes / bandwidth when a bandwidth is set (and then the
 * time unit is the millisecond). Never returns NULL (allocation failure aborts).
 */
struct cost *cost_new_explicit(const struct config *c, double w_fraction);

/* True when every stage has the same t_f, t_b and t_w. */
bool cost_uniform(const struct cost *c);
/* True when every message takes zero time. */
bool cost_comm_free(const struct cost *c);

/* Frees c and its arrays; NULL is a no-op. */
void cost_free(struct cost *c);

#endif
