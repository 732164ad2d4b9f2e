/* The progress line of long commands: see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/text.h"

/* Seconds before the first line, and between lines. */
#define PROGRESS_DELAY    1.0
#define PROGRESS_INTERVAL 0.2

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) * 1e-9;
}

void progress_start(struct progress *pg, bool on, const char *what, const char *unit,
                    uint64_t total)
{
	const char *delay = getenv("PPSIM_PROGRESS_DELAY");
	double d;

	*pg = (struct progress){.on = on && isatty(STDERR_FILENO), .what = what, .unit = unit,
	                        .total = total, .next = PROGRESS_DELAY};
	/* the seconds before the first line, when the environment sets them (tests: 0) */
	if (delay != NULL && text_parse_double(delay, &d) == TEXT_OK && d >= 0 && d <= 3600)
		pg->next = d;
	clock_gettime(CLOCK_MONOTONIC, &pg->start);
}

/* Writes "ETA" as the time left at the pace so far: seconds under two minutes, else minutes;
 * returns the characters written. */
static int write_left(double elapsed, uint64_t done, uint64_t total)
{
	double left;

	if (done == 0)
		return 0;
	left = elapsed * (double)(total - done) / (double)done;
	if (left < 120)
		return fprintf(stderr, ", about %.0f s left", left < 1 ? 1 : left);
	return fprintf(stderr, ", about %.0f min left", left / 60);
}

void progress_step(struct progress *pg)
{
	progress_at(pg, pg->done + 1);
}

void progress_at(struct progress *pg, uint64_t done)
{
	double t;
	int width;

	pg->done = done;
	if (!pg->on || pg->done >= pg->total)
		return;
	t = seconds_since(&pg->start);
	if (t < pg->next)
		return;
	pg->next = t + PROGRESS_INTERVAL;
	fputc('\r', stderr);
	width = fprintf(stderr, "%s: %llu of %llu %s, %.0f%%", pg->what,
	                (unsigned long long)pg->done, (unsigned long long)pg->total, pg->unit,
	                100.0 * (double)pg->done / (double)pg->total);
	width += write_left(t, pg->done, pg->total);
	/* spaces over the rest of an earlier, longer line: every terminal has them, where a
	 * dumb one has no sequence that erases */
	if (pg->shown > width)
		fprintf(stderr, "%*s", pg->shown - width, "");
	fflush(stderr);
	pg->shown = width > pg->shown ? width : pg->shown;
}

void progress_end(struct progress *pg)
{
	if (pg->shown > 0)
		fprintf(stderr, "\r%*s\r", pg->shown, "");
	fflush(stderr);
	pg->shown = 0;
}
