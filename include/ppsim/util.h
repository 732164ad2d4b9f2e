/* Shared vocabulary of every ppsim module: exact time, errors, allocation that reports failure. */
#ifndef PPSIM_UTIL_H
#define PPSIM_UTIL_H

#include <locale.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ppsim/version.h"

/*
 * Simulated time is an integer count of ticks, so that sums and ties are exact and every run is
 * bit-for-bit reproducible. How many ticks make one time unit is chosen per run by the cost
 * model (struct cost, field tick): PP_TICK_BASE ticks per unit times a factor that keeps every
 * op's duration whole (v for explicit costs, whose chunk ops take t/v). A time given as a decimal
 * with up to six fractional digits is therefore represented exactly.
 */
typedef int64_t pp_time;
#define PP_TICK_BASE INT64_C(1000000)

/* The ticks a unit of a run of v chunks a device on routes routes (each route's stages run
 * v / routes chunks, of which an op takes its share exactly): the one rule of the costs, the
 * check of a message's resolution and a replayed step's. */
static inline int64_t pp_run_tick(int v, int routes)
{
	int per = routes > 0 ? v / routes : v;

	return PP_TICK_BASE * (per > 0 ? per : 1);
}
/* Largest single time value (one op or one message) accepted from input, in units. */
#define PP_TIME_MAX_UNITS 1e9
/* Largest total of all simulated durations, in ticks; keeps every sum far from overflow. */
#define PP_TIME_TOTAL_MAX (INT64_MAX / 4)

/* What kind of failure an error is; main.c maps each kind to an exit status. */
enum pp_errkind {
	PP_ERR_NONE = 0,
	PP_ERR_SIM = 1,        /* the simulation cannot complete: a deadlock, too many ops */
	PP_ERR_USAGE = 2,      /* a bad command-line option or value */
	PP_ERR_CONFIG = 3,     /* an invalid config or schedule file */
	PP_ERR_IO = 4,         /* a file cannot be read or written */
	PP_ERR_DEVICE_MEM = 5, /* a simulated device is over its memory and the run enforces it */
	PP_ERR_NOMEM = 6,      /* this process could not allocate memory (pp_nomem) */
};

/* Exit statuses of the ppsim command (docs/output.md, Errors and exit status). */
enum pp_exit {
	PP_EXIT_OK = 0,
	PP_EXIT_SIM = 1,
	PP_EXIT_USAGE = 2,
	PP_EXIT_CONFIG = 3,
	PP_EXIT_IO = 4,
};

/*
 * A caller-supplied error report. Library functions that can fail on bad input fill it and
 * return a negative status; the message never starts with "ppsim:" (main.c adds that) and is a
 * single line naming the offending thing first.
 */
struct pp_error {
	enum pp_errkind kind; /* PP_ERR_NONE until set */
	int line;             /* 1-based line in a file, 0 when not about a file */
	int column;           /* 1-based column in a file, 0 when not about a file */
	char msg[1024];       /* the message, NUL-terminated, without a trailing newline */
};

/* Sets err (when not NULL) from a printf format and returns -1, so callers can `return`. */
int pp_fail(struct pp_error *err, enum pp_errkind kind, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/*
 * Allocation. Out of memory is an error like any other: these return NULL (never abort), and the
 * caller reports it with pp_nomem and returns its failure status, up to main.c. A size of 0
 * allocates one byte, so that NULL always means failure. Everything is freed with free().
 */
void *pp_malloc(size_t size);
void *pp_calloc(size_t count, size_t size);
/* malloc of count * size; NULL also when the product overflows. */
void *pp_mallocarray(size_t count, size_t size);
/* realloc of ptr to count * size; on failure (overflow included) NULL, and ptr stays valid. */
void *pp_reallocarray(void *ptr, size_t count, size_t size);
/*
 * pp_mallocarray for the large per-op arrays of a run: from 256 KiB up, on a system that has
 * transparent huge pages, 2 MiB-aligned, rounded up to whole 2 MiB pages and advised to use
 * them, which saves most of the page faults and TLB misses of filling and reading it: on a
 * virtual machine a 4 KiB fault costs about 12 us, a 2 MiB page 0.15 to 1 ms, so from 256 KiB
 * up a huge page is faster, for less than 2 MiB of memory it does not use.
 */
void *pp_mallocarray_large(size_t count, size_t size);
/* pp_mallocarray_large's array, zeroed (each huge page faulted in as it is). */
void *pp_calloc_large(size_t count, size_t size);

/*
 * One run's large per-op arrays (the schedule's ops, the engine's cells and times) in one block
 * from pp_mallocarray_large, so that they share one rounding up to whole 2 MiB pages instead
 * of each rounding alone: up to 2 MiB of memory zeroed and unused per array. The arrays are
 * handed out in order and freed together; pp_large_alloc takes from an arena when one is given
 * and the array fits, else allocates the array alone, and pp_large_free frees only the latter.
 */
struct pp_arena {
	char *base;  /* the block, NULL when none is reserved */
	size_t size; /* its bytes */
	size_t used; /* bytes handed out */
};

/* Reserves a block of bytes in a (empty, zeroed); returns 0, or -1 when out of memory. */
int pp_arena_reserve(struct pp_arena *a, size_t bytes);
/* Frees a's block and empties a. */
void pp_arena_release(struct pp_arena *a);
/* Bytes an arena needs for an array of count x size (its alignment included), or SIZE_MAX. */
size_t pp_arena_bytes(size_t count, size_t size);
/* pp_mallocarray_large, from arena a when a is not NULL and has room (64-byte aligned). */
void *pp_large_alloc(struct pp_arena *a, size_t count, size_t size);
/* Frees p from pp_large_alloc(a, ...): nothing when it lies in a's block. */
void pp_large_free(const struct pp_arena *a, void *p);
/* Whether p lies in a's block (a may be NULL). */
bool pp_arena_holds(const struct pp_arena *a, const void *p);
/* A copy of s, or NULL. */
char *pp_strdup(const char *s);
/* Sets err to PP_ERR_NOMEM naming the bytes asked for (count * size) and returns -1. */
int pp_nomem(struct pp_error *err, size_t count, size_t size);
/* pp_calloc that reports its failure: NULL with pp_nomem's error in err. */
void *pp_zalloc(size_t count, size_t size, struct pp_error *err);

/*
 * Growable arrays, the one mechanism for every list that grows by appending: *base holds *cap
 * elements of elem bytes; pp_grow makes room for at least need elements (doubling, at least 8),
 * leaving the contents and *base alone on failure. Returns 0, or pp_nomem's -1.
 *
 *     if (pp_grow((void **)&v, &cap, n + 1, sizeof(*v), err) != 0)
 *             return -1;
 *     v[n++] = x;
 */
int pp_grow(void **base, size_t *cap, size_t need, size_t elem, struct pp_error *err);

/* Checked arithmetic: stores a*b (a+b) in *out and returns true, or returns false on overflow. */
bool pp_mul_u64(uint64_t a, uint64_t b, uint64_t *out);
bool pp_add_u64(uint64_t a, uint64_t b, uint64_t *out);

/*
 * Converts a finite, non-negative number of time units to ticks (tick ticks per unit), rounding
 * to the nearest tick. Returns false when units is NaN, infinite, negative, above
 * PP_TIME_MAX_UNITS, or when the result would not fit.
 */
bool pp_time_from_units(double units, int64_t tick, pp_time *out);
/*
 * True when units is a time above 0 that rounds to no tick at PP_TICK_BASE ticks per unit, and
 * would run as 0: the one rule by which an explicit time (a config's, a measured one) is
 * refused as below the resolution.
 */
bool pp_time_below_tick(double units);
/* Time t in units (tick ticks per unit), as the double nearest to the exact quotient. */
double pp_time_to_units(pp_time t, int64_t tick);
/* The double nearest num / den, both whole numbers (den > 0): one rounding of the exact quotient
 * when both are below 2^53 (each exact in a double), else the long double's quotient rounded. */
double pp_ratio(long double num, long double den);

/* What pp_time_scale made of a time. */
enum pp_time_scaled {
	PP_TIME_SCALED = 0,   /* *out holds the scaled time */
	PP_TIME_NO_TICK = 1,  /* a time above 0 rounded to no tick: it would run as 0 */
	PP_TIME_TOO_LONG = 2, /* the result passes PP_TIME_TOTAL_MAX */
};

/*
 * Scales t ticks by the factor f > 0 (a stage's op-time factor, stage_scale) into *out, rounded
 * to the nearest tick: the one rule of what a scaled op may take, for the costs and for what
 * `ppsim calibrate` writes. Returns PP_TIME_SCALED, or why the result is no op time (*out then
 * unchanged).
 */
enum pp_time_scaled pp_time_scale(pp_time t, double f, pp_time *out);
/* The greatest common divisor of |a| and |b| (0 when both are 0). */
int64_t pp_gcd64(int64_t a, int64_t b);

/*
 * Writes x in the shortest of "%.15g", "%.16g" and "%.17g" that reads back to the same double,
 * so 34.6 prints as "34.6", 100 as "100" and 3/19 with all its digits; buf holds n bytes;
 * returns buf. The text is computed from x's exact value with integer arithmetic, not printed
 * and read back (src/base/numfmt.c), and its point is '.' whatever the locale.
 */
char *pp_double_format(char *buf, size_t n, double x);

/*
 * Locale. The library reads and writes numbers as the "C" locale does, whatever the program's:
 * "1.5" is one and a half, and a report writes 38.5, never 38,5 (strtod and printf follow the
 * locale's LC_NUMERIC). It never calls setlocale, which changes the whole process and is not
 * thread-safe. Instead its entries for other programs (the facade, ppsim.h) switch the calling
 * thread alone to "C" with POSIX's uselocale for the length of the call and put back the
 * thread's own locale before returning (pp_locale_enter, pp_locale_leave); the rest of the
 * program and its other threads keep theirs. The "C" locale object is made for the call and
 * freed after it, so nothing is kept between calls. A thread the library starts would start in
 * the process's global locale: pp_thread_create starts it in its starter's instead. (The other
 * way, a locale-free reader and printer of numbers, would have to replace strtod and each of the
 * hundred-odd printf conversions of a double in the writers, and keep every new one out.)
 */
struct pp_locale {
	locale_t c;     /* the "C" locale object made by pp_locale_enter */
	locale_t saved; /* the thread's locale before it, put back by pp_locale_leave */
};

/* Switches the calling thread to the "C" locale until pp_locale_leave(l). Returns 0, or -1 with
 * a PP_ERR_NOMEM error when the locale object cannot be made (the thread's locale unchanged). */
int pp_locale_enter(struct pp_locale *l, struct pp_error *err);
/* Puts back the calling thread's locale from before pp_locale_enter(l) and frees l's object. */
void pp_locale_leave(struct pp_locale *l);

/* How a thread the library starts begins: the function it runs on its argument, and the locale
 * it takes up first (its starter's). */
struct pp_thread {
	void *(*fn)(void *);
	void *arg;
	locale_t locale;
};

/* A start of fn(arg) in the calling thread's locale, for pp_thread_create. */
struct pp_thread pp_thread_of(void *(*fn)(void *), void *arg);
/*
 * pthread_create of a thread that takes up start's locale, then runs start's fn(arg). start
 * (which threads may share) must live, unchanged, until the thread is joined, and so must the
 * starter's locale. Returns pthread_create's status.
 */
int pp_thread_create(pthread_t *thread, const struct pp_thread *start);
/*
 * Runs fn on each of the jobs elements of size bytes from args at once (at most 8): the first in
 * the calling thread, the others each on a thread of its own (pp_thread_create), and returns
 * when all have ended. An element whose thread cannot start is left out, so fn must take its
 * work from what the threads share (a counter of work items claimed, say), never from its
 * element alone.
 */
void pp_threads(int jobs, void *(*fn)(void *), void *args, size_t size);

#endif
