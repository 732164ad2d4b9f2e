/* Unit tests of the event queue (src/base/evq.c). */
#include <stdlib.h>

#include "base/evq.h"
#include "unit.h"

/* A pending event of the reference queue: a plain array scanned for its minimum. */
struct ref_event {
	pp_time time;
	unsigned cls;
	uint64_t seq;
	uint32_t arg;
};

static bool ref_before(const struct ref_event *a, const struct ref_event *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->cls != b->cls)
		return a->cls < b->cls;
	return a->seq < b->seq;
}

/* Removes and returns the reference's first event by (time, class, sequence). */
static struct ref_event ref_pop(struct ref_event *v, size_t *n)
{
	size_t best = 0;
	struct ref_event ev;

	for (size_t i = 1; i < *n; i++)
		if (ref_before(&v[i], &v[best]))
			best = i;
	ev = v[best];
	v[best] = v[--*n];
	return ev;
}

/* xorshift64*: a seeded generator, so that a failure repeats. */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * UINT64_C(2685821657736338717);
}

static void push_ok(struct evq *q, pp_time time, unsigned cls, uint32_t arg)
{
	struct pp_error err = {0};

	CU_ASSERT_EQUAL_FATAL(evq_push(q, time, cls, (uint8_t)(arg & 0xff), arg, &err), 0);
}

static void evq_is_empty_after_init_and_peek_returns_null(void)
{
	struct evq q;

	evq_init(&q);
	CU_ASSERT_EQUAL(evq_len(&q), 0);
	CU_ASSERT_PTR_NULL(evq_peek(&q));
	evq_release(&q);
}

static void evq_returns_equal_times_and_classes_in_push_order(void)
{
	struct evq q;

	evq_init(&q);
	/* in the future (the heap) and at the current time 0 (the ring) */
	for (uint32_t i = 0; i < 100; i++)
		push_ok(&q, i % 2 == 0 ? 7 : 0, 3, i);
	for (uint32_t i = 1; i < 100; i += 2) {
		struct evq_event ev = evq_pop(&q);

		CU_ASSERT_EQUAL(ev.time, 0);
		CU_ASSERT_EQUAL(ev.arg, i);
	}
	for (uint32_t i = 0; i < 100; i += 2) {
		struct evq_event ev = evq_pop(&q);

		CU_ASSERT_EQUAL(ev.time, 7);
		CU_ASSERT_EQUAL(ev.arg, i);
		CU_ASSERT_EQUAL(ev.type, i & 0xff);
		CU_ASSERT_EQUAL(evq_class(&ev), 3);
	}
	CU_ASSERT_EQUAL(evq_len(&q), 0);
	evq_release(&q);
}

static void evq_orders_equal_times_by_class_before_push_order(void)
{
	static const unsigned cls[] = {2, 0, 1, 2, 0, 1, EVQ_CLASSES - 1, 0};
	static const uint32_t want[] = {1, 4, 7, 2, 5, 0, 3, 6};
	struct evq q;

	evq_init(&q);
	for (uint32_t i = 0; i < 8; i++)
		push_ok(&q, 5, cls[i], i);
	for (size_t i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(evq_peek(&q)->arg, want[i]);
		CU_ASSERT_EQUAL(evq_pop(&q).arg, want[i]);
	}
	evq_release(&q);
}

static void evq_keeps_the_order_when_the_current_time_gets_a_lower_class(void)
{
	struct evq q;

	evq_init(&q);
	push_ok(&q, 4, 0, 0);
	CU_ASSERT_EQUAL(evq_pop(&q).arg, 0);
	/* now 4: class 1 goes to the ring, class 0 after it must still come out first */
	push_ok(&q, 4, 1, 1);
	push_ok(&q, 4, 0, 2);
	push_ok(&q, 4, 1, 3);
	push_ok(&q, 5, 0, 4);
	CU_ASSERT_EQUAL(evq_pop(&q).arg, 2);
	CU_ASSERT_EQUAL(evq_pop(&q).arg, 1);
	CU_ASSERT_EQUAL(evq_pop(&q).arg, 3);
	CU_ASSERT_EQUAL(evq_pop(&q).arg, 4);
	evq_release(&q);
}

static void evq_pops_random_pushes_in_sorted_order(void)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		uint64_t x = seed * UINT64_C(0x9E3779B97F4A7C15);
		size_t n = 0, cap = 4096, pushed = 0;
		struct ref_event *ref = malloc(cap * sizeof(*ref));
		struct evq q;
		pp_time now = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(ref);
		evq_init(&q);
		/* a simulation's pattern: pushes at or after the current time, many at it */
		for (int step = 0; step < 3000; step++) {
			uint64_t r = next_random(&x);

			if (n < cap && (n == 0 || r % 3 != 0)) {
				pp_time t = now + (pp_time)(r >> 8 & 3 ? (r >> 16) % 4 : 0);
				unsigned cls = (unsigned)(seed % 2 == 0 ? 0 : (r >> 24) % 3);

				ref[n++] = (struct ref_event){t, cls, pushed, (uint32_t)pushed};
				push_ok(&q, t, cls, (uint32_t)pushed++);
			} else {
				struct ref_event want = ref_pop(ref, &n);
				struct evq_event got = evq_pop(&q);

				CU_ASSERT_EQUAL(got.time, want.time);
				CU_ASSERT_EQUAL(got.arg, want.arg);
				CU_ASSERT_EQUAL(evq_class(&got), want.cls);
				now = got.time;
			}
			CU_ASSERT_EQUAL(evq_len(&q), n);
		}
		while (n > 0)
			CU_ASSERT_EQUAL(evq_pop(&q).arg, ref_pop(ref, &n).arg);
		CU_ASSERT_EQUAL(evq_len(&q), 0);
		evq_release(&q);
		free(ref);
	}
}

static int by_time_then_arg(const void *a, const void *b)
{
	const struct ref_event *x = a, *y = b;

	return ref_before(x, y) ? -1 : ref_before(y, x);
}

static void evq_grows_its_heap_and_its_ring_keeping_the_order(void)
{
	enum { N = 20000 };
	struct ref_event *want = malloc(N * sizeof(*want));
	uint64_t x = 42;
	struct evq q;

	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	evq_init(&q);
	/* the heap: random future times, sorted afterwards */
	for (uint32_t i = 0; i < N; i++) {
		pp_time t = 1 + (pp_time)(next_random(&x) % 1000);

		want[i] = (struct ref_event){t, 0, i, i};
		push_ok(&q, t, 0, i);
	}
	qsort(want, N, sizeof(*want), by_time_then_arg);
	for (uint32_t i = 0; i < N; i++)
		CU_ASSERT_EQUAL(evq_pop(&q).arg, want[i].arg);
	/* the ring, wrapped before it grows: push at the current time, pop some, push more */
	for (uint32_t i = 0; i < 6; i++)
		push_ok(&q, q.now, 0, i);
	for (uint32_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(evq_pop(&q).arg, i);
	for (uint32_t i = 6; i < N; i++)
		push_ok(&q, q.now, 0, i);
	for (uint32_t i = 4; i < N; i++)
		CU_ASSERT_EQUAL(evq_pop(&q).arg, i);
	CU_ASSERT_EQUAL(evq_len(&q), 0);
	evq_release(&q);
	free(want);
}

static const struct unit_test tests[] = {
        UNIT_TEST(evq_is_empty_after_init_and_peek_returns_null),
        UNIT_TEST(evq_returns_equal_times_and_classes_in_push_order),
        UNIT_TEST(evq_orders_equal_times_by_class_before_push_order),
        UNIT_TEST(evq_keeps_the_order_when_the_current_time_gets_a_lower_class),
        UNIT_TEST(evq_pops_random_pushes_in_sorted_order),
        UNIT_TEST(evq_grows_its_heap_and_its_ring_keeping_the_order),
        {NULL, NULL},
};

const struct unit_suite suite_evq = {"evq", tests};
