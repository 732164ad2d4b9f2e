/*
 * What several generators share (generators.h): runs of repeated op patterns, allocating a
 * generator's working arrays all at once so that out of memory leaves nothing behind, and
 * running the greedy generators' passes on threads.
 */
#include <pthread.h>
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
		size_t bytes = a[i].count * a[i].size;

		if ((a[i].size != 0 && a[i].count > (SIZE_MAX - SCHED_LINE) / a[i].size) ||
		    posix_memalign(a[i].ptr, SCHED_LINE,
		                   ((bytes > 0 ? bytes : 1) + SCHED_LINE - 1) &
		                           ~(size_t)(SCHED_LINE - 1)) != 0) {
			*a[i].ptr = NULL;
			sched_arrays_free(a, n);
			return pp_nomem(err, a[i].count, a[i].size);
		}
		if (a[i].zero)
			memset(*a[i].ptr, 0, bytes);
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

/* A variant's state. */
enum { VARIANT_WAITING, VARIANT_RUNNING, VARIANT_ENDED };

int sched_variants_init(struct sched_variants *v, int n, size_t bytes, struct pp_error *err)
{
	/* variants e and k differ in the choices of the bits of e ^ k */
	assert(n >= 1 && n <= SCHED_MAX_VARIANTS && (n & (n - 1)) == 0);
	memset(v, 0, sizeof(*v));
	v->n = n;
	v->best = pp_mallocarray_large(bytes, 1);
	if (v->best == NULL)
		return pp_nomem(err, bytes, 1);
	pthread_mutex_init(&v->lock, NULL);
	pthread_cond_init(&v->news, NULL);
	sched_variants_reset(v);
	return 0;
}

void sched_variants_reset(struct sched_variants *v)
{
	for (int k = 0; k < v->n; k++) {
		v->state[k] = VARIANT_WAITING;
		v->consulted[k] = 0;
		atomic_init(&v->same[k], false);
	}
	atomic_init(&v->bound, PP_TIME_TOTAL_MAX);
	v->best_k = -1;
	v->best_score = 0;
}

void sched_variants_release(struct sched_variants *v)
{
	pthread_cond_destroy(&v->news);
	pthread_mutex_destroy(&v->lock);
	free(v->best);
}

/* Whether variant k may start: every earlier variant that is not the same as another has
 * ended, or has consulted a choice in which k differs from it. Under v->lock. */
static bool variant_may_start(const struct sched_variants *v, int k)
{
	for (int e = 0; e < k; e++)
		if (!atomic_load(&v->same[e]) &&
		    (v->state[e] == VARIANT_WAITING || (v->consulted[e] & (unsigned)(e ^ k)) == 0))
			return false;
	return true;
}

int sched_variant_next(struct sched_variants *v)
{
	int k = -1;

	pthread_mutex_lock(&v->lock);
	for (;;) {
		bool running = false;

		for (int x = 0; x < v->n; x++) {
			running |= v->state[x] == VARIANT_RUNNING;
			if (k < 0 && v->state[x] == VARIANT_WAITING && !atomic_load(&v->same[x]) &&
			    variant_may_start(v, x))
				k = x;
		}
		/* with none running, the first waiting variant may start (or none is left) */
		if (k >= 0 || !running)
			break;
		pthread_cond_wait(&v->news, &v->lock);
	}
	if (k >= 0)
		v->state[k] = VARIANT_RUNNING;
	pthread_mutex_unlock(&v->lock);
	return k;
}

void sched_variant_note(struct sched_variants *v, int k, unsigned consulted)
{
	pthread_mutex_lock(&v->lock);
	v->consulted[k] = consulted;
	pthread_cond_broadcast(&v->news);
	pthread_mutex_unlock(&v->lock);
}

void sched_variant_end(struct sched_variants *v, int k, unsigned consulted, bool scored,
                       pp_time score, uint8_t **kinds)
{
	pthread_mutex_lock(&v->lock);
	v->state[k] = VARIANT_ENDED;
	v->consulted[k] = consulted;
	if (!atomic_load(&v->same[k])) {
		/* a later variant that differs in no choice this one consulted takes the same
		 * decisions up to where this one ended */
		for (int x = k + 1; x < v->n; x++)
			if ((consulted & (unsigned)(x ^ k)) == 0)
				atomic_store(&v->same[x], true);
		if (scored && (v->best_k < 0 || score < v->best_score ||
		               (score == v->best_score && k < v->best_k))) {
			uint8_t *best = v->best;

			v->best = *kinds;
			*kinds = best;
			v->best_k = k;
			v->best_score = score;
			atomic_store(&v->bound, score);
		}
	}
	pthread_cond_broadcast(&v->news);
	pthread_mutex_unlock(&v->lock);
}
