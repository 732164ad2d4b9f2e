/*
 * failalloc: an LD_PRELOAD shim for the out-of-memory tests (tests/cli/t_nomem.sh). With
 * PPSIM_FAIL_ALLOC=N it makes the N-th call (counting from 1) of malloc, calloc, realloc,
 * posix_memalign, aligned_alloc or newlocale fail as a full heap would (NULL and errno ENOMEM;
 * posix_memalign returns ENOMEM) and lets every other call through. (newlocale allocates the
 * locales it loads; glibc's "C" locale, the library's, is static and never fails, so counting it
 * is the only way to try the library's handling of its failure.) With N=0 nothing fails and, at
 * exit, it writes "failalloc: COUNT allocations" to standard error, the calls a run makes, so that
 * a test knows which values of N reach an allocation. Without the variable it only passes calls
 * through.
 *
 *     PPSIM_FAIL_ALLOC=0 LD_PRELOAD=build/failalloc.so build/ppsim -p 4 -m 8
 *
 * With PPSIM_FAIL_RENAME=SUFFIX it also makes rename() onto a path ending in SUFFIX fail with
 * EIO, as a failing disk would (the outputs' tests,
 * tests/cli/t_outputs.sh: one output of a run failing after another is in place).
 *
 * To see where the failed call comes from: gdb's `break failalloc_failed`, then `bt`.
 *
 * Counting starts in the shim's constructor, which reads the variable: after the dynamic loader
 * and libc have set themselves up and just before the program's main, so that the count does
 * not depend on how the loader starts. The count is atomic; a run is only repeatable, though,
 * when one thread allocates (the tests run sweeps with --jobs=1).
 *
 * The real allocators come from dlsym(RTLD_NEXT); dlsym may itself call calloc or malloc before
 * they are known, so those first calls are served from a small static arena, which free and
 * realloc recognise and never hand to the real free.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <locale.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static locale_t (*real_newlocale)(int, const char *, locale_t);

/* the arena for the calls made while dlsym runs; 16-byte aligned like malloc's blocks */
static _Alignas(16) char arena[8192];
static size_t arena_used;
static int resolving;

/* 0: not counting (no variable); 1: counting; fail_at: the call to fail, 0 for none */
static int counting;
static unsigned long fail_at;
static atomic_ulong calls;

static int in_arena(const void *p)
{
	return (const char *)p >= arena && (const char *)p < arena + sizeof(arena);
}

static void *arena_alloc(size_t n)
{
	size_t start = (arena_used + 15) & ~(size_t)15;

	if (n > sizeof(arena) - start)
		return NULL;
	arena_used = start + n;
	return arena + start; /* static storage: already zero, as calloc's must be */
}

/* Sets the function pointer at slot to the next definition of name (through memcpy: ISO C has
 * no conversion from dlsym's object pointer to a function pointer). */
static void find(void *slot, const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	memcpy(slot, &p, sizeof(p));
}

static void resolve(void)
{
	void *(*m)(size_t);

	if (real_malloc != NULL)
		return;
	resolving = 1;
	find(&real_calloc, "calloc");
	find(&real_realloc, "realloc");
	find(&real_free, "free");
	find(&real_posix_memalign, "posix_memalign");
	find(&real_aligned_alloc, "aligned_alloc");
	find(&real_newlocale, "newlocale");
	find(&m, "malloc");
	real_malloc = m; /* last: the others are known once real_malloc is */
	resolving = 0;
	if (real_malloc == NULL || real_calloc == NULL || real_realloc == NULL ||
	    real_free == NULL || real_posix_memalign == NULL || real_aligned_alloc == NULL ||
	    real_newlocale == NULL) {
		static const char msg[] = "failalloc: cannot find the real allocators\n";

		(void)!write(2, msg, sizeof(msg) - 1);
		_exit(127);
	}
}

/* Called on the failing call, for a debugger's breakpoint; exported so that it has a symbol. */
__attribute__((noinline)) void failalloc_failed(void);
__attribute__((noinline)) void failalloc_failed(void)
{
	__asm__ volatile(""); /* keeps the call from being optimized away */
}

/* Counts one call; true when it is the one to fail. */
static int fails(void)
{
	if (!counting || atomic_fetch_add(&calls, 1) + 1 != fail_at)
		return 0;
	failalloc_failed();
	return 1;
}

__attribute__((constructor)) static void start(void)
{
	const char *n = getenv("PPSIM_FAIL_ALLOC");

	resolve();
	if (n == NULL || *n == '\0')
		return;
	fail_at = strtoul(n, NULL, 10);
	counting = 1;
}

/* With PPSIM_FAIL_ALLOC=0, the count, written without stdio (which would allocate). */
__attribute__((destructor)) static void report(void)
{
	char buf[64], digits[24];
	unsigned long x = atomic_load(&calls);
	size_t n = 0, len = 0;

	if (!counting || fail_at != 0)
		return;
	do
		digits[n++] = (char)('0' + x % 10);
	while ((x /= 10) != 0);
	memcpy(buf, "failalloc: ", 11);
	len = 11;
	while (n > 0)
		buf[len++] = digits[--n];
	memcpy(buf + len, " allocations\n", 13);
	len += 13;
	(void)!write(2, buf, len);
}

void *malloc(size_t size)
{
	if (real_malloc == NULL) {
		if (resolving)
			return arena_alloc(size);
		resolve();
	}
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return real_malloc(size);
}

void *calloc(size_t count, size_t size)
{
	if (real_malloc == NULL) {
		if (resolving)
			return size != 0 && count > SIZE_MAX / size ? NULL
			                                            : arena_alloc(count * size);
		resolve();
	}
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return real_calloc(count, size);
}

void *realloc(void *ptr, size_t size)
{
	void *p;

	if (ptr != NULL && in_arena(ptr)) {
		/* a block from the arena moves to the real heap; it holds at most the arena's rest
		 */
		size_t have = (size_t)(arena + sizeof(arena) - (char *)ptr);

		p = malloc(size);
		if (p != NULL)
			memcpy(p, ptr, size < have ? size : have);
		return p;
	}
	if (real_malloc == NULL)
		resolve();
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return real_realloc(ptr, size);
}

void free(void *ptr)
{
	if (ptr == NULL || in_arena(ptr))
		return;
	if (real_malloc == NULL)
		resolve();
	real_free(ptr);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	if (real_malloc == NULL)
		resolve();
	if (fails())
		return ENOMEM;
	return real_posix_memalign(out, align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	if (real_malloc == NULL)
		resolve();
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return real_aligned_alloc(align, size);
}

locale_t newlocale(int mask, const char *name, locale_t base)
{
	if (real_malloc == NULL)
		resolve();
	if (fails()) {
		errno = ENOMEM;
		return (locale_t)0;
	}
	return real_newlocale(mask, name, base);
}

int rename(const char *from, const char *to);

int rename(const char *from, const char *to)
{
	static int (*real_rename)(const char *, const char *);
	const char *suffix = getenv("PPSIM_FAIL_RENAME");
	size_t n = suffix != NULL ? strlen(suffix) : 0, len = strlen(to);

	if (n > 0 && len >= n && strcmp(to + len - n, suffix) == 0) {
		errno = EIO;
		return -1;
	}
	if (real_rename == NULL)
		find(&real_rename, "rename");
	return real_rename(from, to);
}
