/*
 * What several generators share (generators.h): runs of repeated op patterns, allocating a
 * generator's working arrays all at once so that out of memory leaves nothing behind, and
 * running the greedy generators' passes on threads.
 */
#include <pthread.h>
#include <stdlib.h>

#include "generators.h"

struct sched_run sched_run_start(struct sched *s, int d)
{
	return (struct sched_run){s, d, {{0}}};
}

void sched_run_ops(struct sched_run *r, const char *ops, int times)
{
	struct sched *s = r->s;
	int d = r->d, n = 0;
	/* sched_push's work, hoisted: the chunks' stages and where the device's list stands */
	uint32_t stage[2] = {(uint32_t)sched_stage_of(s, d, 0),
	                     s->v > 1 ? (uint32_t)sched_stage_of(s, d, 1) : UINT32_MAX};
	size_t at = s->dev_start[d] + s->dev_fill[d], cap = s->dev_start[d + 1];
	/* the pattern decoded once: each op's kind, and its chunk's counter */
	uint8_t kind[SCHED_RUN_MAX_PATTERN];
	int *next[SCHED_RUN_MAX_PATTERN];
	uint32_t st[SCHED_RUN_MAX_PATTERN];

	for (const char *o = ops; *o != '\0'; o++, n++) {
		int c = *o >= 'a' ? 1 : 0;

		assert(n < SCHED_RUN_MAX_PATTERN && stage[c] != UINT32_MAX);
		switch (*o | 0x20) {
		case 'f':
			kind[n] = OP_F;
			break;
		case 'b':
			kind[n] = OP_B;
			break;
		case 'w':
			kind[n] = OP_W;
			break;
		default:
			assert((*o | 0x20) == 'x');
			kind[n] = OP_BW;
			break;
		}
		next[n] = &r->next[c][kind[n]];
		st[n] = stage[c];
	}
	for (int i = 0; i < times; i++)
		for (int j = 0; j < n; j++) {
			int mb = (*next[j])++;

			if (mb < s->m) {
				assert(at < cap);
				s->ops[at++] = (struct op){(uint32_t)mb, st[j], kind[j], 0};
			}
		}
	s->dev_fill[d] = at - s->dev_start[d];
}

int sched_run_left(const struct sched_run *r, int c, enum op_kind kind)
{
	int left = r->s->m - r->next[c][kind];

	return left > 0 ? left : 0;
}

int sched_arrays_new(const struct sched_array *a, size_t n, struct pp_error *err)
{
	for (size_t i = 0; i < n; i++)
		*a[i].ptr = NULL;
	for (size_t i = 0; i < n; i++) {
		*a[i].ptr = a[i].zero ? pp_calloc(a[i].count, a[i].size)
		                      : pp_mallocarray(a[i].count, a[i].size);
		if (*a[i].ptr == NULL) {
			sched_arrays_free(a, n);
			return pp_nomem(err, a[i].count, a[i].size);
		}
	}
	return 0;
}

void sched_arrays_free(const struct sched_array *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(*a[i].ptr);
		*a[i].ptr = NULL;
	}
}

/* Most threads a generator runs its passes on. */
#define SCHED_MAX_THREADS 8

void sched_threads(int jobs, void *(*fn)(void *), void *args, size_t size)
{
	pthread_t threads[SCHED_MAX_THREADS];
	struct pp_thread start[SCHED_MAX_THREADS];
	bool started[SCHED_MAX_THREADS] = {false};

	if (jobs > SCHED_MAX_THREADS)
		jobs = SCHED_MAX_THREADS;
	/* each start stays put until its thread has read it */
	for (int t = 1; t < jobs; t++) {
		start[t] = pp_thread_of(fn, (char *)args + (size_t)t * size);
		started[t] = pp_thread_create(&threads[t], &start[t]) == 0;
	}
	fn(args);
	for (int t = 1; t < jobs; t++)
		if (started[t])
			pthread_join(threads[t], NULL);
}
