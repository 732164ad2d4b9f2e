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
 * PyTorch file holding any SEND or RECV is read in this format (one holding only FSDP actions
 * besides its compute ones, as GPipe's and 1F1B's pipeline_order ending in REDUCE_GRAD, is
 * compute-only, its FSDP actions counted): each SEND and RECV is checked, none
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

#include <stdbool.h>
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
	size_t zero_cost; /* PyTorch's: the UNSHARD, RESHARD and REDUCE_GRAD actions read */
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
/* The job a schedule file is meant for (ppsim validate -p, -m, -v): its ranks, micro-batches
 * and stages per rank; 0 leaves one free. */
struct schedfile_job {
	int p, m, v;
};

/*
 * schedfile_read of a file meant for job: a row naming a rank, stage, chunk or micro-batch
 * outside it fails at that row ("micro-batch 9 is outside the job's 8 (0 to 7)"), and a file
 * of fewer ranks, stages or micro-batches than the job fails naming both shapes.
 */
int schedfile_read_job(const char *path, uint64_t max_ops, const struct schedfile_job *job,
                       struct schedfile *out, struct pp_error *err);

/* schedfile_read of the open stream f, named path in messages. */
int schedfile_read_stream(FILE *f, const char *path, uint64_t max_ops, struct schedfile *out,
                          struct pp_error *err);

/* One op of a schedule that another reader found (a measured step's ranges), for
 * schedfile_build. */
struct schedfile_row {
	long device, stage, mb; /* from 0 */
	int kind;               /* enum op_kind */
	bool overlap;           /* an F run overlapped with its device's next op (OP_OVERLAP) */
	uint32_t file;          /* its file among schedfile_build's paths */
	uint32_t line, column;  /* where it stands in its file, for messages */
};

/*
 * The schedule of rows[0..n-1], each device's rows in the order it runs them, built and checked
 * as schedfile_read builds and checks a file's (the shape inferred, every op once on the device
 * hosting its stage, an order that can run, at most max_ops ops), its messages naming the place
 * of the row at fault as "WHAT 'PATH':LINE:COLUMN: " (what: the kind of file, "trace"; PATH:
 * the row's file among paths[0..npaths-1], and the first for a fault of no row). Returns
 * 0 with out filled (release it with schedfile_release) and, when op_row is not NULL, *op_row an
 * array (the caller frees it) of the row each op of out->sched came from; or -1 with err set
 * as schedfile_read sets it (a number above the limits of a schedule's is PP_ERR_CONFIG too).
 */
int schedfile_build(const char *what, const char *const *paths, int npaths,
                    const struct schedfile_row *rows, size_t n, uint64_t max_ops,
                    struct schedfile *out, size_t **op_row, struct pp_error *err);

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

/* What a PyTorch action is (schedfile_parse_action). */
enum schedfile_action_type {
	SCHEDFILE_ACT_OP,     /* a compute action: F, I, W or B, or an overlapped pair */
	SCHEDFILE_ACT_SEND_F, /* the send of a forward's output */
	SCHEDFILE_ACT_SEND_B, /* the send of an input gradient */
	SCHEDFILE_ACT_OTHER,  /* a RECV, or an FSDP action (UNSHARD, RESHARD, REDUCE_GRAD) */
};

/* A PyTorch action as schedfile_parse_action reads it. */
struct schedfile_action {
	enum schedfile_action_type type;
	long stage, mb; /* its stage and micro-batch (mb -1 for an FSDP action); a pair's F's */
	int kind;       /* an op's kind (enum op_kind: I is OP_B, B is OP_BW), else -1 */
	bool pair;      /* an overlapped pair, "(0F7;7B3)OVERLAP_F_B": its backward follows */
	long stage2, mb2;
	int kind2;
};

/*
 * Parses text, one PyTorch action as its CSV and its profiler ranges write it ("2F0", "1I3",
 * "0SEND_F2", "(0F7;7B3)OVERLAP_F_B"; the action types of schedfile_read's PyTorch format),
 * into *a. Returns 0; -1 when text is no action; -2 when its only fault is a stage or
 * micro-batch number above a schedule file's limit.
 */
int schedfile_parse_action(const char *text, struct schedfile_action *a);

/* The format of schedfile_format_names named name into *fmt; false for another name. */
bool schedfile_format_find(const char *name, enum schedfile_format *fmt);

#endif
