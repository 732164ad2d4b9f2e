/*
 * Hints to the compiler for the hot loops (the engine's sweep, the greedy generators' passes),
 * private to src/.
 */
#ifndef PPSIM_BASE_HOT_H
#define PPSIM_BASE_HOT_H

/* Asks the CPU to start loading the cache line at p (a hint; p stays inside its array). */
#if defined(__GNUC__)
#define PP_PREFETCH(p) __builtin_prefetch(p)
#else
#define PP_PREFETCH(p) ((void)0)
#endif

/* A small function of a hot loop, inlined where it is called (a loop that calls it at several
 * places, as the engine's sweep does for an overlapped pair, keeps the compiler from inlining
 * it by itself). */
#if defined(__GNUC__)
#define PP_HOT inline __attribute__((always_inline))
#else
#define PP_HOT inline
#endif

#endif
