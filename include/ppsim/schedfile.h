/*
 * Schedule files: a user-written op order, read and written in three CSV formats.
 *
 * ppsim's format: a header naming the columns, in any order: device, op (F, B, W or BW) and
 * microbatch are required, with stage or chunk or both; overlap (1 on the F that runs
 * overlapped with the next op of its device) is optional; start and end may be present and
 * are ignored, so the output of --dump-ops reads back as it is. Lines starting with '#' and
 * blank lines are skipped; each other line is one op.
 *
 * PyTorch's compute-only format (torch.distributed.pipelining, _dump_csv "compute_only"): one
 * line per rank, no header, each cell an action STAGE TYPE MICROBATCH such as 0F0, 1I0, 1W0,
 * 2B1 (F forward, I input-gradient backward, W weight gradient, B full backward), an empty cell
 * an idle slot, and "(0F7;7B3)OVERLAP_F_B" an overlapped pair. A file is read as PyTorch's when
 * its first line is not a ppsim header.
 *
 * PyTorch's compute_comms format (what _PipelineScheduleRuntime._dump_csv writes by default):
 * the same rows with transfer actions STAGE SEND_F MB, RECV_F, SEND_B, RECV_B and the FSDP
 * actions STAGE UNSHARD, RESHARD and REDUCE_GRAD (no micro-batch) among the compute ones. A
 * PyTorch file holding any of them is read in this format: each SEND and RECV is checked, none
 * becomes an op (ppsim's engine prices the transfer of every dependency that crosses devices),
 * and the FSDP actions are counted and cost nothing. The checks: every dependency that crosses
 * ranks has its SEND on the producer's rank after the producing F (SEND_F) or I or B (SEND_B),
 * and its RECV on the consumer's rank before the consuming op; a SEND or RECV of a dependency
 * that stays on one rank, of no such op, twice, or without its other half is an error.
 *
 * Either way each device's ops run in the file's order, and the shape (p, v, m, backward kind,
 * placement) is inferred from the ops.
 *
 * Ownership: schedfile_read fills a struct schedfile whose schedule and tables the caller
 * releases with schedfile_release.
 */
#ifndef PPSIM_SCHEDFILE_H
#define PPSIM_SCHEDFILE_H

#include <stdint.h>
#include <stdio.h>

#include "ppsim/sched.h"
#include "ppsim/util.h"

enum schedfile_format {
	SCHEDFILE_PPSIM,       /* header + one op per line */
	SCHEDFILE_TORCH,       /* one rank per line, PyTorch action cells */
	SCHEDFILE_TORCH_COMMS, /* PyTorch's rows with their SEND/RECV (and FSDP) actions */
	SCHEDFILE_NFORMATS
};

/* Each format's name for --export-format, indexed by enum schedfile_format. */
extern const char *const schedfile_format_names[SCHEDFILE_NFORMATS];

/* A schedule read from a file. */
struct schedfile {
	struct sched *sched; /* the op order, checked by sched_check and sched_check_order */
	uint32_t *lines;     /* [sched->nops] the file line of each op */
	uint32_t *columns;   /* [sched->nops] the column where its line (ppsim) or cell starts */
	uint32_t *cells;     /* [sched->nops] its cell number from 1 (PyTorch), 0 (ppsim) */
	enum schedfile_format format; /* the format it was read in */
	size_t transfers; /* compute_comms: the SEND and RECV actions read and checked */
	size_t zero_cost; /* compute_comms: the UNSHARD, RESHARD and REDUCE_GRAD actions read */
};

/*
 * What reading a schedule file back takes (validate, --schedule-file: the rows as read, the
 * cells' text, the checks and the engine's run of its order), measured: SCHEDFILE_READ_OP bytes
 * an op (95 in ppsim's CSV, 104 in PyTorch's) and SCHEDFILE_READ_ACTION bytes a transfer or
 * FSDP action of a compute_comms file (106; two a message, its SEND and its RECV).
 */
#define SCHEDFILE_READ_OP     104
#define SCHEDFILE_READ_ACTION 108

/*
 * The memory a reader of at most max_ops ops may hold: PP_BYTES_PER_MAX_OP bytes for each op
 * --max-ops allows, and never less than at the default cap (2 GB), so that any file within a
 * small cap reads. A file that would take more is refused on the line that passes it, and an
 * export that would is refused before its run, so that every export ppsim writes reads back.
 */
uint64_t schedfile_read_budget(uint64_t max_ops);

/*
 * Reads, parses and checks the schedule in path: every op once, on the device hosting its
 * stage, in an order that can run, and at most max_ops ops, within schedfile_read_budget's
 * memory (refused on the line that passes either, before the rest is read). Returns 0, or -1 with err set (and err->line, err->column
 * where a place applies): PP_ERR_IO when the file cannot be read; PP_ERR_CONFIG for a malformed
 * or incomplete schedule, the message starting "schedule 'PATH':LINE:COLUMN: " where a place
 * applies, and in PyTorch's format "cell N 'TEXT': " after it when one cell is at fault;
 * PP_ERR_SIM for an order that deadlocks, placed at the first stuck device's waiting op and
 * naming each waiting op with its place (" at line L", or in PyTorch's format
 * " at line L, column C (cell N 'TEXT')"), the input it waits for and the cycle of devices.
 */
int schedfile_read(const char *path, uint64_t max_ops, struct schedfile *out, struct pp_error *err);
/* schedfile_read of the open stream f, named path in messages. */
int schedfile_read_stream(FILE *f, const char *path, uint64_t max_ops, struct schedfile *out,
                          struct pp_error *err);

/* Frees what schedfile_read stored in f. */
void schedfile_release(struct schedfile *f);

/*
 * Writes s in format fmt (ppsim's without times). In compute_comms, each cross-device
 * dependency's SEND follows its producing action, and its RECV joins the consumer's row where
 * PyTorch's lowering (_add_send_recv) puts it: the ranks take their next action in turn, rank 0
 * first, each once its inputs are produced, and a producer's SEND and its consumer's RECV are
 * appended as it is taken. A dependency between stages on one device has neither. Returns 0, or
 * -1 when memory runs out (compute_comms only).
 */
int schedfile_write(FILE *out, const struct sched *s, enum schedfile_format fmt);

/* The longest PyTorch action schedfile_torch_action writes, its final NUL included. */
#define SCHEDFILE_ACTION_MAX 64

/*
 * PyTorch's action string of op i of s (torch.distributed.pipelining's _Action as it prints,
 * in its CSV and, after "PP:", in the profiler ranges its runtime records): stage, kind letter
 * (F, I for an input-gradient B, W, B for a fused BW) and micro-batch, as "2F0"; for either op
 * of an overlapped pair the pair's, "(2F5;5B1)OVERLAP_F_B". Writes it into buf of n bytes
 * (SCHEDFILE_ACTION_MAX holds any) and returns buf.
 */
const char *schedfile_torch_action(const struct sched *s, size_t i, char *buf, size_t n);

/* The format of schedfile_format_names named name into *fmt; false for another name. */
bool schedfile_format_find(const char *name, enum schedfile_format *fmt);

#endif
