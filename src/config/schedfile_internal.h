/*
 * What the three parts of the schedule-file module share (private to src/config/): the rows a
 * reader makes of a file (schedfile.c), the checks that infer its shape, build its schedule and
 * check its transfers and order (schedfile_check.c), and PyTorch's action types, which the
 * writer (schedfile_write.c) names too.
 */
#ifndef PPSIM_SCHEDFILE_INTERNAL_H
#define PPSIM_SCHEDFILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/schedfile.h"

enum column {
	COL_DEVICE,
	COL_CHUNK,
	COL_STAGE,
	COL_OP,
	COL_MB,
	COL_OVERLAP,
	COL_START,
	COL_END,
	COL_SLACK,
	NCOLS
};

/* One op as read; -1 marks what the file does not give. */
struct row {
	long device, chunk, stage, mb;
	int kind;
	bool overlap;          /* runs overlapped with the device's next op */
	uint32_t line, column; /* where its line or cell starts */
	uint32_t cell;         /* PyTorch: its cell, from 1; ppsim: 0 */
	size_t token;          /* PyTorch: its cell's text at tokens + token */
};

/* PyTorch's action types (_ComputationType, by the names its CSV prints): the compute ones
 * become ops; the transfers are checked against them; the FSDP ones are counted. */
enum torch_type {
	TT_F,
	TT_I,
	TT_W,
	TT_B,
	TT_SEND_F,
	TT_RECV_F,
	TT_SEND_B,
	TT_RECV_B,
	TT_UNSHARD,
	TT_RESHARD,
	TT_REDUCE_GRAD,
	NTORCH_TYPES
};

struct torch_type_row {
	const char *name; /* as in an action, between its stage and its micro-batch */
	int kind;         /* the op it is (enum op_kind), or -1: not an op */
	bool mb;          /* takes a micro-batch */
};

/* The rows of PyTorch's action types, by enum torch_type. */
extern const struct torch_type_row schedfile_torch_types[NTORCH_TYPES];

/* A PyTorch action that is not an op: where it stood and how many ops came before it. */
struct comm {
	struct row at; /* its device, stage, micro-batch (-1 when none) and place */
	int type;      /* enum torch_type, TT_SEND_F or after */
	size_t before; /* rows read before it (its device's ops before it are the last ones) */
};

/* Reader state: the path for messages, the format, ppsim's columns, the ops so far, the
 * text of PyTorch's cells and its actions that are not ops. */
struct reader {
	const char *what; /* the kind of file, for messages: "schedule", "trace" */
	const char *path;
	uint64_t max_ops; /* most ops the file may hold */
	uint64_t budget;  /* most bytes reading it may take (schedfile_read_budget) */
	enum schedfile_format format;
	int col[NCOLS];               /* ppsim: field index of each column, -1 when absent */
	int nfields;                  /* ppsim: fields per line */
	long devices;                 /* PyTorch: lines read so far (= ranks) */
	unsigned cell;                /* PyTorch: cells of the current line so far */
	size_t line_rows, line_comms; /* PyTorch: rows and comms before the current line */
	struct row *rows;
	size_t nrows, cap;
	char *tokens; /* PyTorch: each cell's text, NUL-terminated, one after another */
	size_t ntokens, tokcap;
	size_t *op_row;     /* once built: the row each op of the schedule came from */
	struct comm *comms; /* PyTorch: its SEND, RECV and FSDP actions, in file order */
	size_t ncomms, commcap;
	const char *const *paths; /* schedfile_build of rows from several files: each row's file
	                             is paths[its token]; else NULL */
	struct schedfile_job job; /* the job the file must fit (schedfile_read_job); 0: any */
};

/* Fails err at line and column of the file path (one of r's). Returns -1. */
int schedfile_fail_in(const struct reader *r, struct pp_error *err, const char *path, unsigned line,
                      unsigned column, const char *what);

/* The file row w stands in. */
const char *schedfile_row_path(const struct reader *r, const struct row *w);

/* fail_at the place of row w: its line and column, and for a PyTorch cell "cell N 'TEXT': ". */
int schedfile_fail_row(const struct reader *r, struct pp_error *err, const struct row *w,
                       const char *what);

/* Before the shape is inferred: checks each row against r->job and for a few rows of stages
 * past the last whole chunk, failing at the first such row. 0 or -1. */
int schedfile_check_rows(const struct reader *r, struct pp_error *err);

/* After it: checks that the micro-batches the rows name leave no gap and that the last one is
 * not a stray, failing at the first row past a gap or of the stray. 0 or -1. */
int schedfile_check_mbs(const struct reader *r, struct pp_error *err);

/* Checks that the shape inferred, sp, is r->job's. 0 or -1. */
int schedfile_check_job(const struct reader *r, const struct sched_params *sp,
                        struct pp_error *err);

/* Infers p, v, m, backward kind, placement and routes, and fills the missing stage of each
 * row. */
int schedfile_infer_shape(struct reader *r, struct sched_params *sp, bool *split, bool *mixed,
                          enum placement *pl, int *routes, struct pp_error *err);

/* Builds out->sched from the rows and checks its structure, naming the op's place. */
int schedfile_make(struct reader *r, const struct sched_params *sp, bool split, bool mixed,
                   enum placement pl, int routes, struct schedfile *out, struct pp_error *err);

/* Checks the SEND, RECV and FSDP actions of a compute_comms file against out->sched (see
 * schedfile.h) and counts them into out; 0, or -1 with the error at the action at fault (a
 * missing pair at the compute op whose transfer it is). */
int schedfile_check_comms(const struct reader *r, struct schedfile *out, struct pp_error *err);

/* Checks that the order of out->sched can run; a cyclic wait is a PP_ERR_SIM error at the place
 * of the first stuck device's waiting op, naming each waiting op's place. */
int schedfile_check_order(const struct reader *r, const struct schedfile *out,
                          struct pp_error *err);

#endif
