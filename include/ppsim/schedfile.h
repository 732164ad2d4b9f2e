/*
 * Schedule files: a user-written op order, as CSV. The header names the columns, in any order:
 * device, op (F, B, W or BW) and microbatch are required, with stage or chunk or both; start
 * and end may be present and are ignored, so the output of --dump-ops reads back as it is.
 * Lines starting with '#' and blank lines are skipped. Each following line is one op, and each
 * device's ops run in the order of the file. The shape (p, v, m, split or fused backward,
 * placement) is inferred from the ops.
 *
 * Ownership: schedfile_read fills a struct schedfile whose schedule and line table the caller
 * releases with schedfile_release.
 */
#ifndef PPSIM_SCHEDFILE_H
#define PPSIM_SCHEDFILE_H

#include <stdint.h>

#include "ppsim/sched.h"
#include "ppsim/util.h"

/* A schedule read from a file. */
struct schedfile {
	struct sched *sched; /* the op order, checked by sched_check and sched_check_order */
	uint32_t *lines;     /* [sched->nops] the file line of each op */
};

/*
 * Reads, parses and checks the schedule in path: every op once, on the device hosting its
 * stage, in an order that can run. Returns 0, or -1 with err set: PP_ERR_IO when the file
 * cannot be read, PP_ERR_CONFIG for a malformed or invalid schedule, the message starting
 * "schedule 'PATH':LINE:COLUMN: " where a line applies.
 */
int schedfile_read(const char *path, struct schedfile *out, struct pp_error *err);

/* Frees what schedfile_read stored in f. */
void schedfile_release(struct schedfile *f);

#endif
