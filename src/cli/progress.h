/*
 * A progress line for long commands (sweep, advise, serve): on standard error when it is a
 * terminal, from one second in (PPSIM_PROGRESS_DELAY seconds when set: the tests set 0), at
 * most a few times a second, with the share done and an estimate of the time left; cleared when the work ends, so that the report follows on a clean line. --quiet
 * turns it off.
 */
#ifndef PPSIM_PROGRESS_H
#define PPSIM_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct progress {
	bool on;              /* writing: standard error is a terminal and not --quiet */
	int shown;            /* the widest line drawn on the terminal, 0 when none is */
	const char *what;     /* "sweep", "advise" */
	const char *unit;     /* "points" */
	uint64_t total, done; /* items of the work, and done so far */
	struct timespec start;
	double next; /* seconds from start when the line may next be drawn */
};

/* Starts pg for total items of what (named unit); on only when on is true and standard error is
 * a terminal. */
void progress_start(struct progress *pg, bool on, const char *what, const char *unit,
                    uint64_t total);
/* Counts one item done; redraws the line when it is due. */
void progress_step(struct progress *pg);
/* Counts done items done in all; redraws the line when it is due. */
void progress_at(struct progress *pg, uint64_t done);
/* Clears the line, if one was drawn. */
void progress_end(struct progress *pg);

#endif
