/*
 * The critical path and each op's slack of a finished engine run, in the run's max-plus model:
 * an op starts at the latest of its device's previous op's end (or the arrival of that op's
 * blocking send), and the arrivals of its inputs; a message takes its channel first come, first
 * served, at the latest of its producer's end and the arrival of the message before it on the
 * channel, for its duration (the perturbation's, slowed as the run slowed it on a slow link);
 * a device's step is its last op's end plus a fixed tail (what its streams ran past that op);
 * the step is the latest device's. An op's duration is its observed span (end - start): a
 * straggler's factor as the run applied it, a first forward's wait for its parameter gathers
 * inside it. An overlapped pair is one node, its two ops sharing its times and its slack.
 *
 * Critical path: the chain of ops and messages that sets the step, walked back from the last op
 * of the device whose end is the step's over tight edges only (an edge whose predecessor ended,
 * or arrived, exactly when its successor started), in time proportional to the path. Slack: the
 * latest an op may end without the step ending later, less its end (a backward pass over the
 * order the run finished its ops in). Both are exact for the run as it went; a what-if that
 * changes an op's duration keeps them exact as long as it changes no order of messages on a
 * channel (a half-duplex channel's order follows the times), no straggler's start falls between
 * the old and new times, and no hooked piece (a gradient bucket, the tail) moves with it.
 *
 * Ownership: the functions read a finished engine, which must outlive the call; a struct
 * critical_path owns its per-device array (critical_path_release frees it); the slacks are the
 * caller's array.
 */
#ifndef PPSIM_CRITICAL_H
#define PPSIM_CRITICAL_H

#include <stddef.h>
#include <stdint.h>

#include "ppsim/engine.h"

/* The kinds of a path's time on ops: enum op_kind, then overlapped pairs. */
#define CRITICAL_PAIR  4
#define CRITICAL_KINDS 5

/* A critical path taken apart: ops (by device and by kind) + transfer + tail = length. */
struct critical_path {
	pp_time length;               /* the step: the result's step_end */
	int device;                   /* the device whose end is the step's (the lowest such) */
	pp_time *devices;             /* [p] the time of each device's ops on the path */
	pp_time kind[CRITICAL_KINDS]; /* the time of its ops by kind (F, B, W, BW, pairs) */
	pp_time transfer;             /* its messages' time on their channels, the time a message
	                                 waited for its channel behind another included */
	pp_time tail;                 /* the device's end less its last op's end */
	size_t ops;                   /* ops on the path (a pair once) */
	size_t messages;              /* messages on the path */
};

/*
 * Walks the critical path of e's finished run into cp, whose devices array it allocates. With
 * path not NULL (room for the schedule's nops), also writes the path's ops there (a pair by its
 * first op) from the step's start to its end, and their count to *npath. Needs the run's op
 * times (not dropped), and with half-duplex channels its order too (engine_record_order: which
 * of two messages sent at once from either end of a channel went first). Returns 0, or -1 with
 * err set: PP_ERR_USAGE for a run that did not finish or kept no times (or order),
 * PP_ERR_NOMEM; cp then holds nothing to release.
 */
int engine_critical_path(const struct engine *e, struct critical_path *cp, uint32_t *path,
                         size_t *npath, struct pp_error *err);

/* Frees what cp holds; a zeroed cp holds nothing. */
void critical_path_release(struct critical_path *cp);

/*
 * Each op's slack into slack[nops], in ticks: how much longer the op (a pair: both its ops)
 * could take without lengthening the step, 0 for every op of a critical path. Needs the run's
 * op times and its order (engine_record_order). Unless the run recorded its messages (whose
 * consumers it reads), holds a table of 8 bytes a (micro-batch, stage) cell while it runs, in
 * the sweep's cells when the run's arena still holds them (so two calls on one engine must not
 * run at once); engine_peak_bytes counts it. Returns 0, or -1 with
 * err set: PP_ERR_USAGE for a run that did not finish or kept no times or order, PP_ERR_NOMEM.
 */
int engine_slack(const struct engine *e, pp_time *slack, struct pp_error *err);

#endif
