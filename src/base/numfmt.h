/*
 * Numbers as decimal text without printf, and the buffered writer the writers of large outputs
 * (the trace, the op dump, the HTML and SVG pictures) stream them through; private to the
 * library. The formats are the C library's, byte for byte, computed from the double's exact
 * binary value with integer arithmetic: numfmt_g is "%.*g", numfmt_shortest is
 * pp_double_format's shortest of "%.15g", "%.16g" and "%.17g" that reads back as the same
 * double, and numfmt_ticks writes a time in ticks as pp_double_format writes its value in units.
 * A double out of the range the integers cover (below about 1e-6 or at and above 2^127,
 * subnormal, infinite or NaN) is handed to the C library, as before: it is never a time.
 *
 * Each function writes into buf, which holds at least NUMFMT_MAX bytes, a NUL-terminated text,
 * and returns its length.
 *
 * The writer (struct wbuf, src/base/wbuf.c) holds its bytes in its own buffer and hands them to
 * its stream a block at a time, so a writer of millions of numbers makes no call to the C
 * library per number. Write errors are the stream's: a writer checks ferror once it finished.
 */
#ifndef PPSIM_NUMFMT_H
#define PPSIM_NUMFMT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ppsim/util.h"

/* The longest text a number takes, its NUL included ("-2.2250738585072014e-308"). */
#define NUMFMT_MAX 32

/* The two digits of 0 to 99, "00" to "99". */
extern const char numfmt_pairs[201];

/* v in decimal ("%" PRIu64, "%" PRId64); numbers below 10,000 inline, as most devices, stages,
 * chunks, micro-batches and the HTML page's quanta are. */
size_t numfmt_u64_long(char *buf, uint64_t v);

static inline size_t numfmt_u64(char *buf, uint64_t v)
{
	if (v < 10) {
		buf[0] = (char)('0' + v);
		buf[1] = '\0';
		return 1;
	}
	if (v < 100) {
		memcpy(buf, numfmt_pairs + 2 * v, 2);
		buf[2] = '\0';
		return 2;
	}
	if (v < 10000) {
		uint32_t hi = (uint32_t)v / 100, lo = (uint32_t)v % 100;
		size_t n = hi < 10 ? 3 : 4;

		if (hi < 10)
			buf[0] = (char)('0' + hi);
		else
			memcpy(buf, numfmt_pairs + 2 * hi, 2);
		memcpy(buf + n - 2, numfmt_pairs + 2 * lo, 2);
		buf[n] = '\0';
		return n;
	}
	return numfmt_u64_long(buf, v);
}

static inline size_t numfmt_i64(char *buf, int64_t v)
{
	if (v >= 0)
		return numfmt_u64(buf, (uint64_t)v);
	buf[0] = '-';
	return 1 + numfmt_u64(buf + 1, 0 - (uint64_t)v);
}
/* x as "%.*g" with digits significant digits, 1 <= digits <= 17. */
size_t numfmt_g(char *buf, double x, int digits);
/* x in the shortest of "%.15g", "%.16g" and "%.17g" that reads back as x (pp_double_format). */
size_t numfmt_shortest(char *buf, double x);
/* t ticks, tick ticks a unit (tick > 0), as numfmt_shortest(pp_time_to_units(t, tick)). */
size_t numfmt_ticks(char *buf, pp_time t, int64_t tick);

/*
 * numfmt_ticks for one tick rate and many times, with what it divides by worked out once (a
 * writer of millions of times spends no division per time on the common ones): set by
 * numfmt_tick_init, read by numfmt_ticks_at, which writes what numfmt_ticks writes.
 */
struct numfmt_tick {
	int64_t tick;    /* ticks a unit */
	int fast;        /* 0: a rate beyond the fast path, every time through the double */
	double inv;      /* 1 / tick, for the quotient's first guess */
	uint64_t step;   /* a remainder r is a decimal of six places when step divides it ... */
	uint64_t micros; /* ... and then r / step x micros millionths of a unit */
	double inv_step; /* 1 / step, for r / step's first guess */
};

void numfmt_tick_init(struct numfmt_tick *f, int64_t tick);
size_t numfmt_ticks_at(char *buf, pp_time t, const struct numfmt_tick *f);

/*
 * Bytes a writer holds before it hands them to its stream: a quarter of a megabyte, so that a
 * file gets few, large writes (the kernel zeroes the page cache's pages that a write covers only
 * in part, which made a trace written 16 KiB at a time a fifth slower). A writer that cannot
 * have them holds WBUF_SMALL bytes of its own instead, and writes the same bytes.
 *
 * A writer that fills its buffer more than once (an output larger than WBUF_SIZE) writes on a
 * thread of its own from then on (struct wbuf_writer): the buffer it filled goes to that thread,
 * which copies it into the stream (the kernel's copy into the page cache, a third to a half of a
 * large trace's time), while the writer fills a second buffer; a flush waits for the thread only
 * when the buffer before is still being written, and watches for it a while before it sleeps
 * (a sleep and its wake-up cost a virtual machine's CPUs tens of microseconds: slept at each of
 * the 2,500 handovers of a 650 MB trace, they took a third of its time). Smaller outputs, and a
 * writer that cannot start the thread, write in the calling thread as before: the bytes are
 * the same either way.
 * The stream is the thread's until wbuf_finish (or wbuf_sync): nothing else may write to it.
 */
#define WBUF_SIZE  ((size_t)1 << 18)
#define WBUF_SMALL ((size_t)4096)
/* wbuf_put_items's chunks and threads, below */
#define WBUF_CHUNK    ((size_t)2 << 20)
#define WBUF_MAX_JOBS 4

struct wbuf_writer; /* the writing thread, its second buffer and their handover (numfmt.c) */

struct wbuf {
	FILE *out;  /* the stream it writes to */
	char *buf;  /* WBUF_SIZE bytes, or small */
	size_t n;   /* bytes held */
	size_t cap; /* the size of buf */
	struct wbuf_writer *writer; /* once the writer writes on a thread of its own, else NULL */
	int flushes; /* buffers handed to the stream so far */
	/* the chunk buffers of wbuf_put_items (WBUF_CHUNK bytes each, NULL till first needed),
	 * kept for the writer's next items: fresh memory is zeroed by the kernel as first
	 * touched, about as long as formatting it */
	char *chunk[WBUF_MAX_JOBS];
	char small[WBUF_SMALL];
};

/* Starts a writer on out, holding nothing; wbuf_finish ends it. */
void wbuf_init(struct wbuf *w, FILE *out);
/* Hands what w holds to its stream, waits until the stream has it, stops its thread and frees
 * its buffers. */
void wbuf_finish(struct wbuf *w);
/* Waits until w's stream has every byte handed to it (wbuf_flush), so that the caller may write
 * to the stream itself; the writer goes on as before. */
void wbuf_sync(struct wbuf *w);

/* Hands what w holds to its stream (fwrite; an error stays on the stream), on its thread when
 * it has one. */
void wbuf_flush(struct wbuf *w);
/* Appends the n bytes at s, through the stream when they do not fit the buffer. */
void wbuf_write_long(struct wbuf *w, const char *s, size_t n);
/* Appends what printf would write, for the few lines of a large output that are not its
 * rows. */
void wbuf_printf(struct wbuf *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Items of a large output, many and alike (a trace's events): put(ctx, i, p) writes item i, at
 * most item_max bytes (item_max <= WBUF_SMALL), at p and returns its end; the same for any ctx
 * of ctxs. wbuf_put_items appends items 0 to n - 1 in order, the same bytes as
 * `p = wbuf_reserve(w, item_max); wbuf_commit(w, put(ctx, i, p))` for each i, which it does
 * when the items are few or jobs < 2. Else it formats them on up to jobs threads (at most
 * WBUF_MAX_JOBS, the calling thread one of them, and at most one for two chunks) in chunks of
 * about WBUF_CHUNK bytes (as many
 * items as fill it at item_mean bytes each, a guess of their mean), each thread into a buffer
 * of its own, and the chunks go to the stream in order, from the thread that formatted each:
 * while one chunk's bytes are copied into the stream (the kernel's copy into the page cache,
 * about as long as the formatting), the next are formatted. A chunk larger than the buffer is
 * written in parts, the later ones once the chunks before it are written (so a mean guessed
 * low costs threads' time, never bytes). ctxs holds jobs contexts of ctx_size bytes, one for
 * each thread (put's state, such as a cache, is its own); put must not write to what the
 * threads share. A chunk buffer or a thread that cannot be had is done without: the bytes do
 * not depend on how many threads ran.
 */
typedef char *wbuf_item_fn(void *ctx, size_t i, char *p);
void wbuf_put_items(struct wbuf *w, size_t n, size_t item_max, size_t item_mean,
                    wbuf_item_fn *put, void *ctxs, size_t ctx_size, int jobs);

/* Appends the n bytes at s. */
static inline void wbuf_put(struct wbuf *w, const char *s, size_t n)
{
	if (n <= w->cap - w->n) {
		memcpy(w->buf + w->n, s, n);
		w->n += n;
	} else {
		wbuf_write_long(w, s, n);
	}
}

/* Appends a string literal (its length known to the compiler). */
#define WBUF_LIT(w, s) wbuf_put((w), "" s, sizeof(s) - 1)
/* Copies a string literal to the char pointer p, in room reserved for it, and moves p on. */
#define PUT_LIT(p, s) (memcpy((p), "" s, sizeof(s) - 1), (p) += sizeof(s) - 1)

static inline void wbuf_str(struct wbuf *w, const char *s)
{
	wbuf_put(w, s, strlen(s));
}

static inline void wbuf_char(struct wbuf *w, char c)
{
	if (w->n == w->cap)
		wbuf_flush(w);
	w->buf[w->n++] = c;
}

/*
 * Room for n bytes (n <= WBUF_SMALL) at the end of the buffer: their start, to be written with
 * numfmt's functions and plain stores and taken by wbuf_commit with the end of what was
 * written. A writer of rows reserves a row's most once, instead of checking each piece.
 */
static inline char *wbuf_reserve(struct wbuf *w, size_t n)
{
	if (w->cap - w->n < n)
		wbuf_flush(w);
	return w->buf + w->n;
}

static inline void wbuf_commit(struct wbuf *w, const char *end)
{
	w->n = (size_t)(end - w->buf);
}

/* Room for one number at the end of the buffer: its start. */
static inline char *wbuf_room(struct wbuf *w)
{
	if (w->cap - w->n < NUMFMT_MAX)
		wbuf_flush(w);
	return w->buf + w->n;
}

static inline void wbuf_u64(struct wbuf *w, uint64_t v)
{
	w->n += numfmt_u64(wbuf_room(w), v);
}

static inline void wbuf_i64(struct wbuf *w, int64_t v)
{
	w->n += numfmt_i64(wbuf_room(w), v);
}

static inline void wbuf_g(struct wbuf *w, double x, int digits)
{
	w->n += numfmt_g(wbuf_room(w), x, digits);
}

static inline void wbuf_shortest(struct wbuf *w, double x)
{
	w->n += numfmt_shortest(wbuf_room(w), x);
}

static inline void wbuf_ticks(struct wbuf *w, pp_time t, int64_t tick)
{
	w->n += numfmt_ticks(wbuf_room(w), t, tick);
}

#endif
