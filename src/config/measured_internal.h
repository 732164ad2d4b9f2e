/*
 * What the readers of measured steps share (measured.c reads a step and orders it,
 * measured_trace.c reads a trace's events): the ranges read and the reader's state; private to
 * the library.
 */
#ifndef PPSIM_MEASURED_INTERNAL_H
#define PPSIM_MEASURED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/measured.h"

/* What a range is. */
enum role {
	ROLE_OP,   /* one op */
	ROLE_PAIR, /* an overlapped pair: an F and the backward run with it */
	ROLE_SEND, /* a transfer: the message its op (stage, mb, pass) sends */
};

/* A range read, in the file's unit (microseconds in a trace, milliseconds in a CSV). */
struct range {
	double start, dur;
	long dev;                    /* device key: a trace's pid, else the device */
	long stage, mb;              /* its op's (a pair's F's; a transfer's sender's) */
	long stage2, mb2;            /* a pair's backward */
	signed char kind, kind2;     /* enum op_kind; a transfer's: OP_F (forward) or OP_B */
	unsigned char role;          /* enum role */
	bool gpu;                    /* a trace's GPU annotation (gpu_user_annotation) */
	bool overlapped;             /* ppsim's slice of one op of an overlapped pair */
	uint32_t file, line, column; /* where it stands */
	size_t seq;                  /* its place among the ranges read, for ties */
};

/* A growable array of ranges. */
struct ranges {
	struct range *r;
	size_t n, cap;
};

/* What the reader gathers. */
struct reader {
	const char *const *paths;
	int npaths;
	enum measured_format format;
	const char *what;  /* "trace" or "measured", for messages */
	struct ranges ops; /* op and pair ranges */
	struct ranges sends;
	size_t seq;
	bool starts;     /* the ranges have start times (a trace; a CSV with a start column) */
	double comm_sum;     /* a CSV's comm lines */
	size_t ncomm;
	struct ranges comms; /* and each one's stage, micro-batch and line, checked against the
	                      * step's messages */
	const char *time_unit;
	uint64_t max_ops;
	size_t begin_end;    /* a trace's PP: ranges as begin and end events, which are not read */
};

/* The bytes of a file read whole, NUL-terminated after len. */
struct text {
	char *buf;
	size_t len;
};

/* Fails err at a place of file k of r, "WHAT 'PATH':LINE:COLUMN: " and the message of a printf
 * format; PP_ERR_CONFIG. Returns -1. */
int measured_fail(const struct reader *r, struct pp_error *err, uint32_t file, size_t line,
                  size_t column, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* A new range at the end of a, zeroed but for its sequence number (and -1 for a pair's second
 * op); NULL with pp_nomem's error. */
struct range *measured_new_range(struct reader *r, struct ranges *a, struct pp_error *err);

/*
 * Reads the events of trace file k of r, whose text is t, into r's ranges: each event of its
 * traceEvents (or of the array it is), parsed alone; its otherData's time unit into r, and the
 * shape it declares checked against its ranges. File k is device k when r has several files.
 * Returns 0, or -1 with err.
 */
int measured_read_trace(struct reader *r, uint32_t k, const struct text *t, struct pp_error *err);

#endif
