/*
 * The buffered writer of large outputs (numfmt.h's struct wbuf): its buffer, and the thread that
 * copies full buffers into the stream while the writer fills the next.
 */
#include "numfmt.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/*
 * The thread a writer writes on (struct wbuf's comment): one buffer at a time goes to it
 * (pending, its length npending), and the writer fills the other (spare until then); lock guards
 * the changes of pending, spare and stop, and cv says that one of them changed. A side that
 * waits for the other first watches the field for a while (spin_until) before it sleeps on cv:
 * a sleep and its wake-up cost a virtual machine's CPUs tens of microseconds each, as long as
 * the other side takes to fill or write a buffer.
 */
struct wbuf_writer {
	pthread_t thread;
	struct pp_thread start;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	FILE *out;
	_Atomic(char *) pending; /* the buffer the thread writes, or NULL when it has none */
	size_t npending;
	_Atomic(char *) spare; /* the buffer neither the writer nor the thread holds, or NULL */
	atomic_bool stop;      /* the writer is done: the thread returns once pending is written */
};

/* How long a side watches for the other before it sleeps: about the time a buffer takes. */
#define SPIN_NS 300000L

/* Watches *p until it holds a buffer, or stop is set when stop is not NULL, for at most
 * SPIN_NS; true when it saw what it waited for. */
static bool spin_until(_Atomic(char *) *p, atomic_bool *stop)
{
	struct timespec t0, t;

	if (clock_gettime(CLOCK_MONOTONIC, &t0) != 0)
		return false;
	for (unsigned i = 1;; i++) {
		if (atomic_load_explicit(p, memory_order_acquire) != NULL ||
		    (stop != NULL && atomic_load_explicit(stop, memory_order_acquire)))
			return true;
		if ((i & 63) == 0) {
			if (clock_gettime(CLOCK_MONOTONIC, &t) != 0 ||
			    (int64_t)(t.tv_sec - t0.tv_sec) * 1000000000 +
			                    (t.tv_nsec - t0.tv_nsec) >
			            SPIN_NS)
				return false;
			sched_yield();
		}
	}
}

/* The writing thread's body: each buffer handed to it into the stream, until stopped. */
static void *writer_main(void *arg)
{
	struct wbuf_writer *t = arg;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		if (t->pending == NULL && !t->stop) {
			pthread_mutex_unlock(&t->lock);
			spin_until(&t->pending, &t->stop);
			pthread_mutex_lock(&t->lock);
		}
		while (t->pending == NULL && !t->stop)
			pthread_cond_wait(&t->cv, &t->lock);
		if (t->pending == NULL)
			break;
		char *p = t->pending;
		size_t n = t->npending;

		pthread_mutex_unlock(&t->lock);
		fwrite(p, 1, n, t->out);
		pthread_mutex_lock(&t->lock);
		t->spare = p;
		t->pending = NULL;
		pthread_cond_broadcast(&t->cv);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* w's thread, started with a second buffer: false (w unchanged) when either cannot be had. */
static bool start_writer(struct wbuf *w)
{
	struct wbuf_writer *t = malloc(sizeof(*t));

	if (t == NULL)
		return false;
	*t = (struct wbuf_writer){.out = w->out, .spare = malloc(WBUF_SIZE)};
	t->start = pp_thread_of(writer_main, t);
	if (t->spare == NULL)
		goto fail;
	if (pthread_mutex_init(&t->lock, NULL) != 0)
		goto fail;
	if (pthread_cond_init(&t->cv, NULL) != 0) {
		pthread_mutex_destroy(&t->lock);
		goto fail;
	}
	if (pp_thread_create(&t->thread, &t->start) != 0) {
		pthread_cond_destroy(&t->cv);
		pthread_mutex_destroy(&t->lock);
		goto fail;
	}
	w->writer = t;
	return true;
fail:
	free(t->spare);
	free(t);
	return false;
}

void wbuf_init(struct wbuf *w, FILE *out)
{
	w->out = out;
	w->n = 0;
	w->writer = NULL;
	w->flushes = 0;
	w->buf = malloc(WBUF_SIZE);
	w->cap = WBUF_SIZE;
	if (w->buf == NULL) {
		w->buf = w->small;
		w->cap = sizeof(w->small);
	}
}

void wbuf_sync(struct wbuf *w)
{
	struct wbuf_writer *t = w->writer;

	if (t == NULL)
		return;
	pthread_mutex_lock(&t->lock);
	while (t->pending != NULL)
		pthread_cond_wait(&t->cv, &t->lock);
	pthread_mutex_unlock(&t->lock);
}

void wbuf_finish(struct wbuf *w)
{
	struct wbuf_writer *t;

	wbuf_flush(w); /* which may start the thread: its second buffer */
	if ((t = w->writer) != NULL) {
		pthread_mutex_lock(&t->lock);
		t->stop = true;
		pthread_cond_broadcast(&t->cv);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->thread, NULL);
		pthread_cond_destroy(&t->cv);
		pthread_mutex_destroy(&t->lock);
		free(t->spare);
		free(t);
		w->writer = NULL;
	}
	if (w->buf != w->small)
		free(w->buf);
	w->buf = w->small;
	w->cap = sizeof(w->small);
	w->n = 0;
}

void wbuf_flush(struct wbuf *w)
{
	struct wbuf_writer *t;

	if (w->n == 0)
		return;
	/* a second full buffer: from now on the thread writes (a big buffer only) */
	if (w->writer == NULL && w->buf != w->small && ++w->flushes >= 2)
		(void)start_writer(w);
	if ((t = w->writer) == NULL) {
		fwrite(w->buf, 1, w->n, w->out);
		w->n = 0;
		return;
	}
	spin_until(&t->spare, NULL);
	pthread_mutex_lock(&t->lock);
	while (t->spare == NULL)
		pthread_cond_wait(&t->cv, &t->lock);
	t->pending = w->buf;
	t->npending = w->n;
	w->buf = t->spare;
	t->spare = NULL;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->lock);
	w->n = 0;
}

void wbuf_write_long(struct wbuf *w, const char *s, size_t n)
{
	wbuf_flush(w);
	if (n < w->cap) {
		memcpy(w->buf, s, n);
		w->n = n;
	} else {
		wbuf_sync(w);
		fwrite(s, 1, n, w->out);
	}
}

void wbuf_printf(struct wbuf *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(w->buf + w->n, w->cap - w->n, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n < w->cap - w->n) {
		w->n += n > 0 ? (size_t)n : 0;
		return;
	}
	/* it did not fit: again after a flush, or straight to the stream */
	wbuf_flush(w);
	va_start(ap, fmt);
	if ((size_t)n < w->cap)
		w->n = (size_t)vsnprintf(w->buf, w->cap, fmt, ap);
	else {
		wbuf_sync(w);
		vfprintf(w->out, fmt, ap);
	}
	va_end(ap);
}
