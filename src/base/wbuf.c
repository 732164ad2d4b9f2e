/*
 * The buffered writer of large outputs (numfmt.h's struct wbuf): its buffer, the thread that
 * copies full buffers into the stream while the writer fills the next, and the items of an
 * output formatted on several threads (wbuf_put_items).
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

/* Watches until done(arg) holds, for at most SPIN_NS; true when it saw it. */
static bool spin_until(bool (*done)(const void *), const void *arg)
{
	struct timespec t0, t;

	if (clock_gettime(CLOCK_MONOTONIC, &t0) != 0)
		return false;
	for (unsigned i = 1;; i++) {
		if (done(arg))
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

/* The thread has a buffer to write, or is told to stop. */
static bool has_work(const void *arg)
{
	const struct wbuf_writer *t = arg;

	return atomic_load_explicit(&t->pending, memory_order_acquire) != NULL ||
	       atomic_load_explicit(&t->stop, memory_order_acquire);
}

/* The thread has handed back a buffer for the writer to fill. */
static bool has_spare(const void *arg)
{
	const struct wbuf_writer *t = arg;

	return atomic_load_explicit(&t->spare, memory_order_acquire) != NULL;
}

/* The writing thread's body: each buffer handed to it into the stream, until stopped. */
static void *writer_main(void *arg)
{
	struct wbuf_writer *t = arg;

	pthread_mutex_lock(&t->lock);
	for (;;) {
		if (t->pending == NULL && !t->stop) {
			pthread_mutex_unlock(&t->lock);
			spin_until(has_work, t);
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
	for (int t = 0; t < WBUF_MAX_JOBS; t++)
		w->chunk[t] = NULL;
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
	for (int j = 0; j < WBUF_MAX_JOBS; j++) {
		free(w->chunk[j]);
		w->chunk[j] = NULL;
	}
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
	spin_until(has_spare, t);
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

/*
 * wbuf_put_items on several threads: the items in chunks of per_chunk, each claimed by the next
 * thread free (next), formatted into that thread's own buffer and handed to the stream in
 * chunk order (turn: the chunk whose bytes go next) by the thread that formatted it. So one
 * thread formats its chunk while another's bytes go into the stream, and the stream gets the
 * bytes one thread would have written in order. A chunk whose items outgrow the buffer (its
 * items are sized by their mean, the buffer holds WBUF_CHUNK bytes) waits for its turn when
 * the buffer is full, writes what it holds and goes on with its turn held.
 */
struct items_job {
	FILE *out;
	size_t n, per_chunk, item_max;
	wbuf_item_fn *put;
	char *ctx; /* the threads' contexts, ctx_size bytes each */
	size_t ctx_size;
	char **buf; /* each thread's chunk buffer, WBUF_CHUNK bytes */
	atomic_size_t next;
	atomic_size_t turn;
	pthread_mutex_t lock;
	pthread_cond_t cv; /* turn changed */
};

/* What one thread of a job is given (pp_threads' element). */
struct items_thread {
	struct items_job *job;
	int t;
};

/* The chunk a thread waits to hand over. */
struct turn_wait {
	const struct items_job *job;
	size_t chunk;
};

static bool is_turn(const void *arg)
{
	const struct turn_wait *tw = arg;

	return atomic_load_explicit(&tw->job->turn, memory_order_acquire) == tw->chunk;
}

/* Waits for chunk c's turn: watched for a while, then waited for (the lock, taken either way,
 * orders this chunk's writes after the ones before). */
static void wait_turn(struct items_job *job, size_t c)
{
	struct turn_wait tw = {job, c};

	spin_until(is_turn, &tw);
	pthread_mutex_lock(&job->lock);
	while (atomic_load_explicit(&job->turn, memory_order_acquire) != c)
		pthread_cond_wait(&job->cv, &job->lock);
	pthread_mutex_unlock(&job->lock);
}

static void *items_main(void *arg)
{
	const struct items_thread *it = arg;
	struct items_job *job = it->job;
	void *ctx = job->ctx + (size_t)it->t * job->ctx_size;
	char *buf = job->buf[it->t], *full = buf + WBUF_CHUNK - job->item_max;

	for (;;) {
		size_t c = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
		size_t lo = c * job->per_chunk, hi;
		bool turn = false;
		char *p = buf;

		if (lo >= job->n)
			return NULL;
		hi = job->n - lo < job->per_chunk ? job->n : lo + job->per_chunk;
		for (size_t i = lo; i < hi; i++) {
			if (p > full) { /* the buffer may not hold the next item: out with it */
				if (!turn)
					wait_turn(job, c);
				turn = true;
				fwrite(buf, 1, (size_t)(p - buf), job->out);
				p = buf;
			}
			p = job->put(ctx, i, p);
		}
		if (!turn)
			wait_turn(job, c);
		fwrite(buf, 1, (size_t)(p - buf), job->out);
		pthread_mutex_lock(&job->lock);
		atomic_store_explicit(&job->turn, c + 1, memory_order_release);
		pthread_cond_broadcast(&job->cv);
		pthread_mutex_unlock(&job->lock);
	}
}

void wbuf_put_items(struct wbuf *w, size_t n, size_t item_max, size_t item_mean,
                    wbuf_item_fn *put, void *ctxs, size_t ctx_size, int jobs)
{
	size_t per_chunk = 0;
	struct items_job job;
	struct items_thread th[WBUF_MAX_JOBS];
	char **buf = w->chunk;
	int started = 0;
	bool lock = false, cv = false;

	/* chunks of a buffer's worth of items as large as their mean, when it holds two at their
	 * largest */
	if (item_max <= WBUF_CHUNK / 2)
		per_chunk = WBUF_CHUNK /
		            (item_mean > 0 && item_mean <= item_max ? item_mean : item_max);
	job = (struct items_job){.out = w->out, .n = n, .per_chunk = per_chunk,
	                         .item_max = item_max, .put = put, .ctx = ctxs,
	                         .ctx_size = ctx_size};

	if (jobs > WBUF_MAX_JOBS)
		jobs = WBUF_MAX_JOBS;
	/* a few chunks' worth is not worth a thread: two chunks a thread at least, as many
	 * threads as that allows */
	if (per_chunk > 0 && (size_t)jobs > n / per_chunk / 2)
		jobs = (int)(n / per_chunk / 2);
	if (jobs >= 2 && per_chunk > 0)
		while (started < jobs && (buf[started] != NULL ||
		                          (buf[started] = pp_mallocarray_large(WBUF_CHUNK, 1)) != NULL))
			started++;
	lock = started >= 2 && pthread_mutex_init(&job.lock, NULL) == 0;
	cv = lock && pthread_cond_init(&job.cv, NULL) == 0;
	if (cv) {
		job.buf = buf;
		atomic_init(&job.next, 0);
		atomic_init(&job.turn, 0);
		for (int t = 0; t < started; t++)
			th[t] = (struct items_thread){&job, t};
		/* what the buffer holds goes first; the stream is the threads' until they end */
		wbuf_flush(w);
		wbuf_sync(w);
		pp_threads(started, items_main, th, sizeof(th[0]));
		pthread_cond_destroy(&job.cv);
	} else {
		for (size_t i = 0; i < n; i++)
			wbuf_commit(w, put(ctxs, i, wbuf_reserve(w, item_max)));
	}
	if (lock)
		pthread_mutex_destroy(&job.lock);
}
