/*
 * The Chrome trace (trace event JSON, opened by Perfetto and chrome://tracing): one process per
 * device with a compute track and one track per outgoing channel, every op a complete event
 * with its kind, micro-batch, stage and chunk, every message an event on its channel (with the
 * stage and micro-batch of the op that sends it) with a flow arrow from the send to the op that
 * consumes it, and an activation counter per device. What each of them is comes from the walk
 * it shares with Perfetto's protobuf trace (trace_walk.c); this file writes it as JSON.
 * `ppsim replay` reads it back (config/measured.c).
 * Times are microseconds: a millisecond of simulated time is 1000 us, and so is one abstract
 * unit, counted from TRACE_ORIGIN_US, each written exactly from its ticks (struct us_clock).
 * The trace is written as a stream through the base layer's writer (it holds millions of
 * events for large runs).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/report.h"

#include "base/numfmt.h"
#include "formats.h"
#include "trace_walk.h"

/*
 * The timestamp of simulated time 0. Chrome's trace engine leaves events at ts 0 out of a
 * trace's bounds (it takes them for metadata), so an op starting at 0 would lie before the
 * window DevTools opens on; viewers show times from the trace's first event, so the offset does
 * not show there.
 */
#define TRACE_ORIGIN_US 1

/*
 * The microseconds of the trace's times: the shortest text that reads back as the double
 * nearest their exact value (trace_walk_us), which is that value's decimal whenever it has at
 * most six places and 15 significant digits (numfmt_ticks): a time of 1.001 units is 1001 us,
 * not the 1000.9999999999999 that units x 1000 rounds to in a double. A timestamp is counted
 * from TRACE_ORIGIN_US, a length from 0. What numfmt_ticks divides by is worked out once.
 */
struct us_clock {
	const struct drawing *s;
	struct numfmt_tick us; /* a microsecond's ticks */
	pp_time origin;        /* TRACE_ORIGIN_US's */
	bool whole;            /* a microsecond is a whole number of ticks */
};

static void us_clock_init(struct us_clock *c, const struct drawing *s)
{
	c->s = s;
	c->whole = s->tick % 1000 == 0 && s->tick / 1000 > 0;
	numfmt_tick_init(&c->us, c->whole ? s->tick / 1000 : 1);
	c->origin = c->whole ? TRACE_ORIGIN_US * (s->tick / 1000) : 0;
}

/* Writes at p the microseconds of t ticks, a timestamp when at, else a length; returns the end.
 * A timestamp too long to shift by the origin goes through the double. */
static char *put_us(char *p, const struct us_clock *c, pp_time t, bool at)
{
	if (!c->whole || (at && t > PP_TIME_TOTAL_MAX))
		return p + numfmt_shortest(p, (at ? TRACE_ORIGIN_US : 0) + trace_walk_us(c->s, t));
	return p + numfmt_ticks_at(p, at ? t + c->origin : t, &c->us);
}

/*
 * The text around an event's name, category and kind, which take a few values each: made once
 * per trace and copied SNIP_MAX bytes at a time (a copy of a fixed size, which the compiler
 * writes inline), each event's room holding that much past it. An op's or a message's name,
 * kept in its thread's own buffer, goes the same way when it fits.
 */
#define SNIP_MAX 64

struct snip {
	char text[SNIP_MAX];
	size_t len;
};

struct snips {
	struct snip head[4];  /* by op kind: `","cat":"forward","ph":"X","pid":` */
	struct snip args[4];  /* by op kind: `,"args":{"kind":"F","microbatch":` */
	struct snip flow[4];  /* by the consumer's kind: `,\n{"name":"p2p","cat":"forward","ph":"s","id":` */
	struct snip land[4];  /* the same with `"ph":"f","bp":"e"` */
};

static void snip_set(struct snip *n, const char *a, const char *b, const char *c)
{
	int len = snprintf(n->text, sizeof(n->text), "%s%s%s", a, b, c);

	n->len = len > 0 ? (size_t)len : 0;
}

static void snips_init(struct snips *t)
{
	memset(t, 0, sizeof(*t));
	for (int k = 0; k < 4; k++) {
		const char *cat = k == OP_F ? "forward" : "backward";

		snip_set(&t->head[k], "\",\"cat\":\"", cat, "\",\"ph\":\"X\",\"pid\":");
		snip_set(&t->args[k], ",\"args\":{\"kind\":\"", sched_kind_name((enum op_kind)k),
		         "\",\"microbatch\":");
		snip_set(&t->flow[k], ",\n{\"name\":\"p2p\",\"cat\":\"", cat,
		         "\",\"ph\":\"s\",\"id\":");
		snip_set(&t->land[k], ",\n{\"name\":\"p2p\",\"cat\":\"", cat,
		         "\",\"ph\":\"f\",\"bp\":\"e\",\"id\":");
	}
}

/* Writes snippet n at p; returns the end. */
static char *put_snip(char *p, const struct snip *n)
{
	memcpy(p, n->text, SNIP_MAX);
	return p + n->len;
}

/* Writes the len bytes of name, in a buffer of SNIP_MAX bytes at least, at p; returns the end. */
static char *put_name(char *p, const char *name, size_t len)
{
	if (len <= SNIP_MAX)
		memcpy(p, name, SNIP_MAX);
	else
		memcpy(p, name, len);
	return p + len;
}

static void write_metadata(struct wbuf *w, const struct trace_walk *tw)
{
	const struct drawing *s = tw->s;
	char label[96];
	const char *sep = "";

	for (int d = 0; d < s->sched->p; d++) {
		report_device_label(s->sched, d, label, sizeof(label));
		wbuf_printf(w,
		            "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":",
		            sep, d);
		wbuf_flush(w);
		wbuf_sync(w);
		report_json_text(w->out, label);
		wbuf_printf(w,
		            "}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
		            "\"args\":{\"sort_index\":%d}},\n"
		            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
		            "\"args\":{\"name\":\"compute\"}}",
		            d, d, d);
		sep = ",\n";
	}
	/* each track named for the direction it carries, on the device that sends */
	for (int ch = 0; ch < s->result->nchannels; ch++)
		for (int back = 0; back < 2; back++)
			if (tw->tid[2 * ch + back] != 0) {
				int pid;

				trace_walk_channel_name(tw, ch, back, &pid, label, sizeof(label));
				wbuf_printf(w,
				            ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,"
				            "\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
				            pid, tw->tid[2 * ch + back], label);
			}
}

/* The most an op's event or a message's three take, their names and numbers at their longest
 * (the rest of the text is under 400 bytes). */
#define EVENT_MAX (400 + 2 * TRACE_NAME_MAX + 64 + 16 * NUMFMT_MAX + SNIP_MAX)

/* About what an op's event and a message's three take in a large run (a guess: it sizes the
 * chunks of events one thread formats). */
#define OP_EVENT_MEAN   320
#define MSG_EVENTS_MEAN 448

/* Writes the n bytes of s at p; returns the end. */
static char *put_text(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* Writes `"ts":T,"dur":D` of a slice from a to b (ticks) at p; returns the end. */
static char *put_span_at(char *p, const struct us_clock *c, pp_time a, pp_time b)
{
	PUT_LIT(p, "\"ts\":");
	p = put_us(p, c, a, true);
	PUT_LIT(p, ",\"dur\":");
	return put_us(p, c, b - a, false);
}

/* The start of a counter's events, up to "ts", for the device and counter it was made for
 * last (d -1 for none). */
struct count_head {
	char text[64];
	size_t len;
	int d, host;
};

/* The most a counter sample takes. */
#define COUNT_MAX (64 + 2 * NUMFMT_MAX + 32)

/* Writes a counter sample at p:
 * `{"name":N,"ph":"C","pid":D,"ts":T,"args":{"micro-batches":X}}`; returns the end. */
static char *put_count(char *p, struct count_head *h, const struct us_clock *clock,
                       const struct trace_count *c)
{
	if (h->d != c->d || h->host != c->host) {
		h->len = (size_t)snprintf(h->text, sizeof(h->text),
		                          ",\n{\"name\":\"%s\",\"ph\":\"C\",\"pid\":%d,\"ts\":",
		                          c->host ? "host" : "activations", c->d);
		h->d = c->d;
		h->host = c->host;
	}
	p = put_text(p, h->text, h->len);
	p = put_us(p, clock, c->t, true);
	PUT_LIT(p, ",\"args\":{\"micro-batches\":");
	p += numfmt_g(p, (double)c->num / (double)c->unit, 17);
	PUT_LIT(p, "}}");
	return p;
}

/* What one thread writing the ops' and the messages' events holds (wbuf_put_items' context):
 * its walk (a message's has a cache of its own) and the device of the op it wrote last. */
struct events {
	struct trace_walk walk;
	const struct us_clock *clock;
	const struct snips *snips;
	struct trace_op op;   /* the op and the message it writes: their names' buffers, */
	struct trace_msg msg; /* zeroed once, are copied SNIP_MAX bytes at a time */
	int d;
	size_t pid_len;
	char pid[NUMFMT_MAX]; /* d's */
	struct trace_cursor k; /* where it is in the counters' samples */
	struct count_head head;
};

/* Writes op i's event (i in the order of the devices' ops) at p; returns the end. */
static char *put_op(void *ctx, size_t i, char *p)
{
	struct events *e = ctx;
	const struct trace_walk *tw = &e->walk;
	const struct us_clock *c = e->clock;
	int d = trace_walk_device_at(tw, e->d, i);
	struct trace_op *o = &e->op;
	unsigned kind = tw->s->sched->ops[i].kind;

	if (d != e->d) {
		e->d = d;
		e->pid_len = numfmt_u64(e->pid, (uint64_t)d);
	}
	trace_walk_op(tw, e->d, i, o);
	PUT_LIT(p, ",\n{\"name\":\"");
	p = put_name(p, o->name, o->name_len);
	p = put_snip(p, &e->snips->head[kind]);
	p = put_text(p, e->pid, e->pid_len);
	PUT_LIT(p, ",\"tid\":0,");
	/* a critical op (no slack) in chrome://tracing's red */
	if (o->critical)
		PUT_LIT(p, "\"cname\":\"terrible\",");
	p = put_span_at(p, c, o->start, o->end);
	p = put_snip(p, &e->snips->args[kind]);
	p += numfmt_u64(p, o->mb);
	PUT_LIT(p, ",\"stage\":");
	p += numfmt_u64(p, o->stage);
	PUT_LIT(p, ",\"chunk\":");
	p += numfmt_u64(p, o->chunk);
	if (o->overlapped)
		PUT_LIT(p, ",\"overlapped\":true");
	else
		PUT_LIT(p, ",\"overlapped\":false");
	if (o->has_slack) {
		if (o->critical)
			PUT_LIT(p, ",\"critical\":true,\"slack_us\":");
		else
			PUT_LIT(p, ",\"critical\":false,\"slack_us\":");
		p = put_us(p, c, o->slack, false);
	}
	if (o->has_exposed) {
		PUT_LIT(p, ",\"exposed_us\":");
		p = put_us(p, c, o->exposed, false);
	}
	PUT_LIT(p, "}}");
	return p;
}

/* Writes a flow event's `,"pid":P,"tid":T,"ts":X}` at time t at p; returns the end. */
static char *put_flow_end(char *p, const struct us_clock *c, int pid, int tid, pp_time t)
{
	PUT_LIT(p, ",\"pid\":");
	p += numfmt_i64(p, pid);
	PUT_LIT(p, ",\"tid\":");
	p += numfmt_i64(p, tid);
	PUT_LIT(p, ",\"ts\":");
	p = put_us(p, c, t, true);
	*p++ = '}';
	return p;
}

/* Writes message k's three events (its transfer and its flow's two ends) at p; returns the
 * end. */
static char *put_message(void *ctx, size_t k, char *p)
{
	struct events *e = ctx;
	const struct us_clock *c = e->clock;
	struct trace_msg *m = &e->msg;
	unsigned to;

	trace_walk_msg(&e->walk, k, m);
	to = e->walk.s->sched->ops[m->to].kind; /* its category is its consumer's pass */
	PUT_LIT(p, ",\n{\"name\":\"");
	p = put_name(p, m->name, m->name_len);
	p = put_snip(p, &e->snips->head[to]);
	p += numfmt_i64(p, m->src);
	PUT_LIT(p, ",\"tid\":");
	p += numfmt_i64(p, m->tid);
	*p++ = ',';
	p = put_span_at(p, c, m->start, m->end);
	PUT_LIT(p, ",\"args\":{\"p2p\":true,\"bytes\":");
	p += numfmt_u64(p, m->bytes);
	PUT_LIT(p, ",\"stage\":");
	p += numfmt_u64(p, m->stage);
	PUT_LIT(p, ",\"microbatch\":");
	p += numfmt_u64(p, m->mb);
	PUT_LIT(p, "}}");
	p = put_snip(p, &e->snips->flow[to]);
	p += numfmt_u64(p, k + 1);
	p = put_flow_end(p, c, m->src, m->flow_tid, m->flow_start);
	p = put_snip(p, &e->snips->land[to]);
	p += numfmt_u64(p, k + 1);
	return put_flow_end(p, c, m->dst, 0, m->to_start);
}

/* Op i's counter sample, after the first samples of its device and of the devices without ops
 * just before it when it is its device's first (without offload). */
static char *put_count_item(void *ctx, size_t i, char *p)
{
	struct events *e = ctx;
	const struct trace_walk *tw = &e->walk;
	const struct trace_count *c = trace_walk_count_op(tw, &e->k, i);
	struct trace_count first;

	for (int d = trace_walk_first_at(tw, &e->k, i); d <= e->k.d; d++)
		if (trace_walk_count_first(tw, d, &first))
			p = put_count(p, &e->head, e->clock, &first);
	return c != NULL ? put_count(p, &e->head, e->clock, c) : p;
}

/* About what an op's counter sample takes (a guess on the high side: 80 to 110 bytes). */
#define COUNT_MEAN 128

/*
 * The ops' events and the messages' (events, true), or the counters' samples (false, without
 * offload), on up to s->jobs threads (wbuf_put_items), each with a walk of its own forked from
 * tw. Returns 0, or -1 when out of memory.
 */
static int write_items(struct wbuf *w, const struct trace_walk *tw, const struct us_clock *clock,
                       const struct snips *snips, bool events)
{
	const struct drawing *s = tw->s;
	const struct sched *sc = s->sched;
	struct events e[WBUF_MAX_JOBS];
	int jobs = trace_walk_jobs(tw), forked = 0;

	for (; forked < jobs; forked++) {
		if (trace_walk_fork(&e[forked].walk, tw) != 0)
			break;
		memset(&e[forked].op, 0, sizeof(e[forked].op));
		memset(&e[forked].msg, 0, sizeof(e[forked].msg));
		e[forked].clock = clock;
		e[forked].snips = snips;
		e[forked].d = 0;
		e[forked].pid_len = numfmt_u64(e[forked].pid, 0);
		e[forked].k = (struct trace_cursor)TRACE_CURSOR_INIT;
		e[forked].head.d = -1;
	}
	if (forked == 0)
		return -1;
	if (events) {
		wbuf_put_items(w, sc->nops, EVENT_MAX, OP_EVENT_MEAN, put_op, e, sizeof(e[0]),
		               forked);
		wbuf_put_items(w, s->result->nmsgs, EVENT_MAX, MSG_EVENTS_MEAN, put_message, e,
		               sizeof(e[0]), forked);
	} else {
		size_t most = (size_t)trace_walk_most_empty(tw) + 2;
		struct trace_count first;

		wbuf_put_items(w, sc->nops, most * COUNT_MAX, COUNT_MEAN, put_count_item, e,
		               sizeof(e[0]), forked);
		/* the devices without ops after the last op's */
		for (int d = 0; d < sc->p; d++)
			if (sc->dev_start[d] == sc->nops && trace_walk_count_first(tw, d, &first)) {
				char *p = wbuf_reserve(w, COUNT_MAX);

				wbuf_commit(w, put_count(p, &e[0].head, clock, &first));
			}
	}
	for (int t = 0; t < forked; t++)
		trace_walk_release(&e[t].walk);
	return 0;
}

/* What the stream items and the counter callbacks write to. */
struct json_out {
	const struct trace_walk *tw;
	struct wbuf *w;
	const struct us_clock *clock;
	struct count_head head;
};

/* The most a stream slice takes (its numbers and names at their longest) and a device's head
 * of stream tracks. */
#define SLICE_MAX       (200 + TRACE_KINDS_NAME + TRACE_NAME_MAX + 8 * NUMFMT_MAX)
#define STREAM_HEAD_MAX (STREAM_COUNT * (120 + 32 + 2 * NUMFMT_MAX))
#define STREAM_ITEM_MAX                                                                        \
	(STREAM_HEAD_MAX > STREAM_COUNT * SLICE_MAX ? STREAM_HEAD_MAX : STREAM_COUNT * SLICE_MAX)
/* About what a stream item takes in a large run: an op's slice on one stream. */
#define STREAM_ITEM_MEAN 180

/* Device d's stream tracks' names, at p. */
static char *stream_head(void *ctx, int d, unsigned lanes, char *p)
{
	char name[32];

	(void)ctx;
	for (int st = 0; st < STREAM_COUNT; st++)
		if (lanes >> st & 1) {
			trace_walk_track_name((enum comm_stream)st, name, sizeof(name));
			PUT_LIT(p, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
			p += numfmt_i64(p, d);
			PUT_LIT(p, ",\"tid\":");
			p += numfmt_i64(p, TRACE_STREAM_TID(st));
			PUT_LIT(p, ",\"args\":{\"name\":\"");
			p = put_text(p, name, strlen(name));
			PUT_LIT(p, "\"}}");
		}
	return p;
}

/* Stream slice c at p. */
static char *stream_slice(void *ctx, const struct trace_comm *c, char *p)
{
	struct json_out *o = ctx;

	PUT_LIT(p, ",\n{\"name\":\"");
	p = put_text(p, c->name, strlen(c->name));
	PUT_LIT(p, "\",\"cat\":\"");
	p = put_text(p, c->cat, strlen(c->cat));
	PUT_LIT(p, "\",\"ph\":\"X\",\"pid\":");
	p += numfmt_i64(p, c->d);
	PUT_LIT(p, ",\"tid\":");
	p += numfmt_i64(p, c->tid);
	*p++ = ',';
	p = put_span_at(p, o->clock, c->start, c->end);
	switch (c->what) {
	case TRACE_COMM_OP:
		PUT_LIT(p, ",\"args\":{\"op\":\"");
		p += trace_walk_comm_op(o->tw, c->op, p, TRACE_NAME_MAX);
		PUT_LIT(p, "\",\"pieces\":");
		p += numfmt_u64(p, c->pieces);
		PUT_LIT(p, ",\"busy_us\":");
		p = put_us(p, o->clock, c->busy, false);
		PUT_LIT(p, "}}");
		break;
	case TRACE_COMM_HOOKED:
		PUT_LIT(p, ",\"args\":{\"hooked\":true}}");
		break;
	case TRACE_COMM_EXPOSED:
		PUT_LIT(p, ",\"args\":{\"after_last_op\":true}}");
		break;
	}
	return p;
}

/* The stream items' writer and its context for each thread. */
struct stream_job {
	const struct trace_stream_items *items;
	struct json_out out;
	int at; /* the device of its last item */
};

static char *put_stream_item(void *ctx, size_t k, char *p)
{
	static const struct trace_stream_fns fns = {stream_head, stream_slice, NULL};
	struct stream_job *j = ctx;

	return trace_stream_item(j->items, &fns, &j->out, &j->at, k, p);
}

/* The communication streams' tracks and slices, device by device, on up to the run's jobs
 * threads. Returns 0, or -1 when out of memory. */
static int write_streams(struct wbuf *w, const struct trace_walk *tw, const struct us_clock *clock)
{
	struct trace_stream_items items;
	struct stream_job jobs[WBUF_MAX_JOBS];

	if (tw->s->result->shapes == NULL && tw->s->result->npieces == 0)
		return 0;
	if (trace_stream_items_init(&items, tw, true) != 0)
		return -1;
	for (int t = 0; t < WBUF_MAX_JOBS; t++)
		jobs[t] = (struct stream_job){&items, {.tw = tw, .w = w, .clock = clock}, -1};
	wbuf_put_items(w, items.n, STREAM_ITEM_MAX, STREAM_ITEM_MEAN, put_stream_item, jobs,
	               sizeof(jobs[0]), trace_walk_jobs(tw));
	trace_stream_items_release(&items);
	return 0;
}

static void counter_sample(void *ctx, const struct trace_count *c)
{
	struct json_out *o = ctx;

	wbuf_commit(o->w, put_count(wbuf_reserve(o->w, COUNT_MAX), &o->head, o->clock, c));
}

int report_trace(FILE *out, const struct drawing *s)
{
	struct trace_walk tw;
	struct wbuf w;
	struct us_clock clock;
	struct snips snips;
	struct json_out o = {.tw = &tw, .w = &w, .clock = &clock, .head = {.d = -1}};
	int rc = 0;

	us_clock_init(&clock, s);
	snips_init(&snips);
	if (trace_walk_init(&tw, s) != 0)
		return -1;
	wbuf_init(&w, out);
	WBUF_LIT(&w, "{\"traceEvents\":[\n");
	write_metadata(&w, &tw);
	rc = write_items(&w, &tw, &clock, &snips, true);
	if (rc == 0)
		rc = write_streams(&w, &tw, &clock);
	if (rc == 0 && !tw.offload)
		rc = write_items(&w, &tw, &clock, &snips, false);
	/* with offload, the counters' samples are not the ops' */
	for (int d = 0; d < s->sched->p && rc == 0 && tw.offload; d++)
		rc = trace_walk_counters(&tw, d, counter_sample, &o);
	trace_walk_release(&tw);
	if (rc != 0) {
		wbuf_finish(&w);
		return -1;
	}
	wbuf_printf(&w,
	            "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"generator\":\"ppsim %s\","
	            "\"schedule\":",
	            PP_VERSION);
	wbuf_finish(&w);
	report_json_text(out, drawing_name(s));
	fprintf(out,
	        ",\"p\":%d,\"v\":%d,\"m\":%d,\"time_unit\":\"%s\","
	        "\"us_per_time_unit\":1000,\"ts_origin_us\":%d}}\n",
	        s->sched->p, s->sched->v, s->sched->m, s->time_unit, TRACE_ORIGIN_US);
	return 0;
}
