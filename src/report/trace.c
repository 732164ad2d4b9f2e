/*
 * The Chrome trace (trace event JSON, opened by Perfetto and chrome://tracing): one process per
 * device with a compute track and one track per outgoing channel, every op a complete event
 * with its kind, micro-batch, stage and chunk, every message an event on its channel (with the
 * stage and micro-batch of the op that sends it) with a flow arrow from the send to the op that
 * consumes it, and an activation counter per device. `ppsim replay` reads it back
 * (config/measured.c).
 * Times are microseconds: a millisecond of simulated time is 1000 us, and so is one abstract
 * unit, counted from TRACE_ORIGIN_US, each written as "%.17g" writes the double
 * TRACE_ORIGIN_US + units x 1000 (numfmt, without printf). The trace is written as a stream
 * through the base layer's writer (it holds millions of events for large runs).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ppsim/report.h"
#include "ppsim/schedfile.h"

#include "base/numfmt.h"
#include "formats.h"

/*
 * The timestamp of simulated time 0. Chrome's trace engine leaves events at ts 0 out of a
 * trace's bounds (it takes them for metadata), so an op starting at 0 would lie before the
 * window DevTools opens on; viewers show times from the trace's first event, so the offset does
 * not show there.
 */
#define TRACE_ORIGIN_US 1

/* The timestamp of a time in ticks: TRACE_ORIGIN_US + units x 1000. */
static double us(const struct sim *s, pp_time t)
{
	return TRACE_ORIGIN_US + pp_time_to_units(t, s->cost->tick) * 1000;
}

/*
 * The category of an op's slice and of a message's transfer and arrow: the pass, "forward" (F)
 * or "backward" (B, W, BW). Chrome's trace engine binds a flow event to the slice of its own
 * category, process, thread and time, and a message always joins two ops of one pass (an F to
 * an F, a backward to a backward, fused or split alike), so both ends of every arrow bind.
 */
static const char *pass_of(enum op_kind k)
{
	return k == OP_F ? "forward" : "backward";
}

/* Index into channel_tids' array of message g's direction: 2 ch from the channel's src, 2 ch + 1
 * back from its dst. */
static size_t direction_of(const struct sim *s, const struct msg_record *g)
{
	int src, dst, ch;

	report_msg_devices(s, g, &src, &dst);
	ch = result_channel(s->result, src, dst);
	return 2 * (size_t)ch + (src != s->result->channels[ch].src);
}

/*
 * The track (tid) of each direction of each channel, 1 + its rank among its sending device's
 * tracks, into a new array of 2 per channel (NULL when out of memory): [2 ch] sends from the
 * channel's src to its dst, [2 ch + 1] the other way, which only a half-duplex channel carries
 * (0 when no message goes that way). In one pass over the channels and one over the messages,
 * so that a run of many devices costs no more per channel than a small one.
 */
static int *channel_tids(const struct sim *s)
{
	const struct result *r = s->result;
	int *tid = pp_calloc((size_t)(r->nchannels > 0 ? 2 * r->nchannels : 1), sizeof(*tid));
	int *seen = pp_calloc((size_t)(r->p > 0 ? r->p : 1), sizeof(*seen));

	if (tid == NULL || seen == NULL) {
		free(tid);
		free(seen);
		return NULL;
	}
	for (int ch = 0; ch < r->nchannels; ch++)
		tid[2 * ch] = 1 + seen[r->channels[ch].src]++;
	/* a full-duplex channel carries its own direction only */
	for (size_t k = 0; s->cost->duplex == PP_DUPLEX_HALF && k < r->nmsgs; k++) {
		size_t t = direction_of(s, &r->msgs[k]);

		if (t % 2 == 1 && tid[t] == 0)
			tid[t] = 1 + seen[r->channels[t / 2].dst]++;
	}
	free(seen);
	return tid;
}

static void write_metadata(struct wbuf *w, const struct sim *s, const int *tid, const char **sep)
{
	const struct result *r = s->result;
	const char *shared = s->cost->duplex == PP_DUPLEX_HALF ? " (half-duplex, shared)" : "";
	char label[96];

	for (int d = 0; d < s->sched->p; d++) {
		report_device_label(s->sched, d, label, sizeof(label));
		wbuf_printf(w,
		            "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":",
		            *sep, d);
		wbuf_flush(w);
		report_json_text(w->out, label);
		wbuf_printf(w,
		            "}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
		            "\"args\":{\"sort_index\":%d}},\n"
		            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
		            "\"args\":{\"name\":\"compute\"}}",
		            d, d, d);
		*sep = ",\n";
	}
	/* each track named for the direction it carries, on the device that sends */
	for (int ch = 0; ch < r->nchannels; ch++)
		for (int back = 0; back < 2; back++)
			if (tid[2 * ch + back] != 0)
				wbuf_printf(w,
				            ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,"
				            "\"tid\":%d,\"args\":{\"name\":\"send to GPU %d%s\"}}",
				            back ? r->channels[ch].dst : r->channels[ch].src,
				            tid[2 * ch + back],
				            back ? r->channels[ch].src : r->channels[ch].dst, shared);
}

/*
 * The slice name of op i, into buf of n bytes: its timeline label (F3, b3), or with
 * --trace-names=torch the profiler range PyTorch's pipelining runtime records for its action
 * ("PP:" and the action, as record_function(_get_profiler_function_name(action)) in
 * _PipelineScheduleRuntime names it; an overlapped pair's two ops both take the pair's).
 */
static const char *op_name(const struct sim *s, size_t i, char *buf, size_t n)
{
	char action[SCHEDFILE_ACTION_MAX];

	if (s->config.trace_names == PP_TRACE_NAMES_TORCH)
		snprintf(buf, n, "PP:%s",
		         schedfile_torch_action(s->sched, i, action, sizeof(action)));
	else
		report_op_label(buf, n, s->sched, &s->sched->ops[i]);
	return buf;
}

/* The most an op's event or a message's three take, their names and numbers at their longest
 * (the rest of the text is under 400 bytes). */
#define EVENT_MAX (400 + 2 * (SCHEDFILE_ACTION_MAX + 8) + 16 * NUMFMT_MAX)

/* Writes the n bytes of s at p; returns the end. */
static char *put_text(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* Writes `"ts":T,"dur":D` of a slice from a to b (ticks) at p; returns the end. */
static char *put_span_at(char *p, const struct sim *s, pp_time a, pp_time b)
{
	double from = us(s, a);

	PUT_LIT(p, "\"ts\":");
	p += numfmt_g(p, from, 17);
	PUT_LIT(p, ",\"dur\":");
	return p + numfmt_g(p, us(s, b) - from, 17);
}

/* Appends `"ts":T,"dur":D` of a slice from a to b (ticks). */
static void put_span(struct wbuf *w, const struct sim *s, pp_time a, pp_time b)
{
	wbuf_commit(w, put_span_at(wbuf_reserve(w, 16 + 2 * NUMFMT_MAX), s, a, b));
}

static void write_ops(struct wbuf *w, const struct sim *s)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	double origin = us(s, 0);
	char label[SCHEDFILE_ACTION_MAX + 8];

	for (int d = 0; d < sc->p; d++) {
		char pid[NUMFMT_MAX];
		size_t pid_len = numfmt_u64(pid, (uint64_t)d);

		for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
			const struct op *op = &sc->ops[i];
			bool overlapped = (op->flags & OP_OVERLAP) ||
			                  (i > sc->dev_start[d] && (op[-1].flags & OP_OVERLAP));
			const char *cat = pass_of((enum op_kind)op->kind);
			const char *kind = sched_kind_name((enum op_kind)op->kind);
			char *p = wbuf_reserve(w, EVENT_MAX);

			op_name(s, i, label, sizeof(label));
			PUT_LIT(p, ",\n{\"name\":\"");
			p = put_text(p, label, strlen(label));
			PUT_LIT(p, "\",\"cat\":\"");
			p = put_text(p, cat, strlen(cat));
			PUT_LIT(p, "\",\"ph\":\"X\",\"pid\":");
			p = put_text(p, pid, pid_len);
			PUT_LIT(p, ",\"tid\":0,");
			/* a critical op (no slack) in chrome://tracing's red */
			if (s->slack != NULL && s->slack[i] == 0)
				PUT_LIT(p, "\"cname\":\"terrible\",");
			p = put_span_at(p, s, r->times[i].start, r->times[i].end);
			PUT_LIT(p, ",\"args\":{\"kind\":\"");
			p = put_text(p, kind, strlen(kind));
			PUT_LIT(p, "\",\"microbatch\":");
			p += numfmt_u64(p, op->mb);
			PUT_LIT(p, ",\"stage\":");
			p += numfmt_u64(p, op->stage);
			PUT_LIT(p, ",\"chunk\":");
			p += numfmt_u64(p, sc->stage_chunk[op->stage]);
			if (overlapped)
				PUT_LIT(p, ",\"overlapped\":true");
			else
				PUT_LIT(p, ",\"overlapped\":false");
			if (s->slack != NULL) {
				if (s->slack[i] == 0)
					PUT_LIT(p, ",\"critical\":true,\"slack_us\":");
				else
					PUT_LIT(p, ",\"critical\":false,\"slack_us\":");
				p += numfmt_g(p, us(s, s->slack[i]) - origin, 17);
			}
			PUT_LIT(p, "}}");
			wbuf_commit(w, p);
		}
	}
}

/* Writes a flow event's `,"pid":P,"tid":T,"ts":X}` at time t at p; returns the end. */
static char *put_flow_end(char *p, const struct sim *s, int pid, int tid, pp_time t)
{
	PUT_LIT(p, ",\"pid\":");
	p += numfmt_i64(p, pid);
	PUT_LIT(p, ",\"tid\":");
	p += numfmt_i64(p, tid);
	PUT_LIT(p, ",\"ts\":");
	p += numfmt_g(p, us(s, t), 17);
	*p++ = '}';
	return p;
}

/* The direction of the messages a stage sends one way (2 st: forward, 2 st + 1: backward),
 * found once for the devices it was found for: a run of millions of messages has a few
 * hundred. */
struct dir_seen {
	int src, dst; /* -1: not yet */
	size_t dir;
};

static int write_messages(struct wbuf *w, const struct sim *s, const int *tids)
{
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	char label[64];
	struct dir_seen *seen = pp_mallocarray(2 * (size_t)sc->S, sizeof(*seen));

	if (seen == NULL)
		return -1;
	for (size_t i = 0; i < 2 * (size_t)sc->S; i++)
		seen[i].src = -1;
	for (size_t k = 0; k < r->nmsgs; k++) {
		const struct msg_record *g = &r->msgs[k];
		const struct op *from = &sc->ops[g->from], *to = &sc->ops[g->to];
		struct dir_seen *at = &seen[2 * (size_t)from->stage + (to->stage < from->stage)];
		int src, dst, tid;
		pp_time send = g->start;
		const char *cat = pass_of((enum op_kind)to->kind);
		const struct channel_result *ch;
		size_t n;
		char *p;

		report_msg_devices(s, g, &src, &dst);
		if (at->src != src || at->dst != dst)
			*at = (struct dir_seen){src, dst, direction_of(s, g)};
		ch = &r->channels[at->dir / 2];
		tid = tids[at->dir];
		/* the transfer: "F3 to GPU 1", or PyTorch's action that sends it, "PP:2SEND_F3" */
		if (s->config.trace_names == PP_TRACE_NAMES_TORCH) {
			memcpy(label, "PP:", 3);
			n = 3 + numfmt_u64(label + 3, from->stage);
			memcpy(label + n, from->kind == OP_F ? "SEND_F" : "SEND_B", 6);
			n += 6 + numfmt_u64(label + n + 6, from->mb);
		} else {
			n = (size_t)report_op_label(label, sizeof(label), sc, from);
			memcpy(label + n, " to GPU ", 8);
			n += 8 + numfmt_i64(label + n + 8, dst);
		}
		p = wbuf_reserve(w, EVENT_MAX);
		PUT_LIT(p, ",\n{\"name\":\"");
		p = put_text(p, label, n);
		PUT_LIT(p, "\",\"cat\":\"");
		p = put_text(p, cat, strlen(cat));
		PUT_LIT(p, "\",\"ph\":\"X\",\"pid\":");
		p += numfmt_i64(p, src);
		PUT_LIT(p, ",\"tid\":");
		p += numfmt_i64(p, tid);
		*p++ = ',';
		p = put_span_at(p, s, g->start, g->end);
		PUT_LIT(p, ",\"args\":{\"p2p\":true,\"bytes\":");
		p += numfmt_u64(p, ch->messages ? ch->bytes / ch->messages : 0);
		PUT_LIT(p, ",\"stage\":");
		p += numfmt_u64(p, from->stage);
		PUT_LIT(p, ",\"microbatch\":");
		p += numfmt_u64(p, from->mb);
		PUT_LIT(p, "}}");
		/* the arrow: from the send on the channel to the consuming op's start; Chrome's
		 * engine keys a flow's points by time, so one whose send starts when its consumer
		 * does (no time on the link, no wait) starts at the producing op's start instead */
		if (g->start == r->times[g->to].start)
			send = r->times[g->from].start, tid = 0;
		PUT_LIT(p, ",\n{\"name\":\"p2p\",\"cat\":\"");
		p = put_text(p, cat, strlen(cat));
		PUT_LIT(p, "\",\"ph\":\"s\",\"id\":");
		p += numfmt_u64(p, k + 1);
		p = put_flow_end(p, s, src, tid, send);
		PUT_LIT(p, ",\n{\"name\":\"p2p\",\"cat\":\"");
		p = put_text(p, cat, strlen(cat));
		PUT_LIT(p, "\",\"ph\":\"f\",\"bp\":\"e\",\"id\":");
		p += numfmt_u64(p, k + 1);
		p = put_flow_end(p, s, dst, 0, r->times[g->to].start);
		wbuf_commit(w, p);
	}
	free(seen);
	return 0;
}

/* The track (tid) of a device's communication stream st: past any channel's. */
#define STREAM_TID(st) ((1 << 24) + (int)(st))

/* The streams of one device as write_streams gathers them: the span of the current op's own
 * pieces on each stream. */
struct stream_span {
	struct wbuf *w;
	const struct sim *s;
	int d;
	size_t op; /* the op whose pieces are gathered, SIZE_MAX for none */
	pp_time lo[STREAM_COUNT], hi[STREAM_COUNT], busy[STREAM_COUNT];
	unsigned kinds[STREAM_COUNT]; /* bit 1 << enum comm_kind */
	size_t n[STREAM_COUNT];
};

/* The names of the kinds of bits joined by '+' into buf ("tp+cp"). */
static const char *kind_names(unsigned bits, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int k = 0; k < COMM_KINDS && len < n; k++)
		if (bits >> k & 1)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len > 0 ? "+" : "",
			                        comm_kind_info((enum comm_kind)k)->name);
	return buf;
}

/* Appends the start of a slice on stream st of device d named name, up to its "ts". */
static void put_comm_slice(struct wbuf *w, const char *name, int d, int st)
{
	WBUF_LIT(w, ",\n{\"name\":\"");
	wbuf_str(w, name);
	WBUF_LIT(w, "\",\"cat\":\"comm\",\"ph\":\"X\",\"pid\":");
	wbuf_i64(w, d);
	WBUF_LIT(w, ",\"tid\":");
	wbuf_i64(w, STREAM_TID(st));
	wbuf_char(w, ',');
}

/* Writes one slice per stream for the op gathered in sp: from its first piece's start to its
 * last one's end, with how many pieces and how long they held the stream. */
static void flush_op(struct stream_span *sp)
{
	char names[32], label[SCHEDFILE_ACTION_MAX + 8];

	if (sp->op == SIZE_MAX)
		return;
	op_name(sp->s, sp->op, label, sizeof(label));
	for (int st = 0; st < STREAM_COUNT; st++) {
		if (sp->n[st] == 0)
			continue;
		put_comm_slice(sp->w, kind_names(sp->kinds[st], names, sizeof(names)), sp->d, st);
		put_span(sp->w, sp->s, sp->lo[st], sp->hi[st]);
		WBUF_LIT(sp->w, ",\"args\":{\"op\":\"");
		wbuf_str(sp->w, label);
		WBUF_LIT(sp->w, "\",\"pieces\":");
		wbuf_u64(sp->w, sp->n[st]);
		WBUF_LIT(sp->w, ",\"busy_us\":");
		wbuf_g(sp->w, us(sp->s, sp->busy[st]) - us(sp->s, 0), 17);
		WBUF_LIT(sp->w, "}}");
		sp->n[st] = 0;
		sp->kinds[st] = 0;
		sp->busy[st] = 0;
	}
	sp->op = SIZE_MAX;
}

static void trace_piece(void *ctx, const struct report_piece *pc)
{
	struct stream_span *sp = ctx;
	int st = (int)comm_kind_info((enum comm_kind)pc->kind)->stream;
	char names[32];

	if (pc->op != sp->op)
		flush_op(sp);
	if (pc->op == SIZE_MAX) {
		/* a hooked piece: a slice of its own */
		put_comm_slice(sp->w, kind_names(1u << pc->kind, names, sizeof(names)), sp->d, st);
		put_span(sp->w, sp->s, pc->start, pc->end);
		WBUF_LIT(sp->w, ",\"args\":{\"hooked\":true}}");
		return;
	}
	sp->op = pc->op;
	if (sp->n[st] == 0 || pc->start < sp->lo[st])
		sp->lo[st] = pc->start;
	if (sp->n[st] == 0 || pc->end > sp->hi[st])
		sp->hi[st] = pc->end;
	sp->busy[st] += pc->end - pc->start;
	sp->kinds[st] |= 1u << pc->kind;
	sp->n[st]++;
}

/*
 * The communication streams of a run with pieces: per device a track per stream that carried
 * any ("dp stream", "tp/cp stream"), one slice per op per stream spanning its own pieces (an op
 * may hold hundreds: drawing each would multiply the trace's size), one slice per hooked piece
 * (a bucket, a gather, the reduction after the last op), and on the compute track an
 * "exposed" slice from the device's last op to its end when its streams ran past it.
 */
static void write_streams(struct wbuf *w, const struct sim *s)
{
	const struct result *r = s->result;

	for (int d = 0; d < s->sched->p; d++) {
		unsigned lanes = report_device_streams(s, d);
		struct stream_span sp = {.w = w, .s = s, .d = d, .op = SIZE_MAX};
		const struct device_result *dr = &r->devices[d];
		char name[32];

		if (lanes == 0)
			continue;
		for (int st = 0; st < STREAM_COUNT; st++)
			if (lanes >> st & 1)
				wbuf_printf(w,
				            ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,"
				            "\"tid\":%d,\"args\":{\"name\":\"%s stream\"}}",
				            d, STREAM_TID(st),
				            report_stream_name((enum comm_stream)st, name, sizeof(name)));
		report_device_pieces(s, d, trace_piece, &sp);
		flush_op(&sp);
		if (dr->end > dr->last_end) {
			WBUF_LIT(w, ",\n{\"name\":\"exposed\",\"cat\":\"exposed\",\"ph\":\"X\","
			            "\"pid\":");
			wbuf_i64(w, d);
			WBUF_LIT(w, ",\"tid\":0,");
			put_span(w, s, dr->last_end, dr->end);
			WBUF_LIT(w, ",\"args\":{\"after_last_op\":true}}");
		}
	}
}

/* A change of a device's activations on the GPU and in host memory at time t. */
struct act_change {
	pp_time t;
	int64_t gpu, host;
};

static int cmp_change(const void *a, const void *b)
{
	const struct act_change *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	/* at one time, what leaves before what arrives */
	return (x->gpu + x->host > y->gpu + y->host) - (x->gpu + x->host < y->gpu + y->host);
}

/* Writes counter name of device d at time t with value x (micro-batches). */
static void put_counter(struct wbuf *w, const struct sim *s, const char *name, int d, pp_time t,
                        double x)
{
	char *p = wbuf_reserve(w, 96 + 2 * NUMFMT_MAX);

	p += sprintf(p, ",\n{\"name\":\"%s\",\"ph\":\"C\",\"pid\":%d,\"ts\":", name, d);
	p += numfmt_g(p, us(s, t), 17);
	PUT_LIT(p, ",\"args\":{\"micro-batches\":");
	p += numfmt_g(p, x, 17);
	PUT_LIT(p, "}}");
	wbuf_commit(w, p);
}

/* With activation offload: device d's activations on the GPU and in host memory (the
 * counters "activations" and "host"), from its ops and its copies, in time order. Returns 0,
 * or -1 when out of memory. */
static int write_offload_counters(struct wbuf *w, const struct sim *s, int d, int64_t unit)
{
	const struct sched *sc = s->sched;
	const struct cost *c = s->cost;
	const struct result *r = s->result;
	size_t n = 0, cap = (sc->dev_start[d + 1] - sc->dev_start[d]) + 2 * r->npieces + 1;
	struct act_change *ch = pp_mallocarray(cap, sizeof(*ch));
	int64_t gpu = 0, host = 0;

	if (ch == NULL)
		return -1;
	for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
		const struct op *op = &sc->ops[i];

		ch[n++] = (struct act_change){op->kind == OP_F ? r->times[i].start : r->times[i].end,
		                              sched_act_change(op, c->act, c->act_w), 0};
	}
	for (size_t k = 0; k < r->npieces; k++) {
		const struct piece_record *pr = &r->pieces[k];

		if ((int)pr->dev != d || pr->amount == 0)
			continue;
		if (pr->kind == COMM_OFFLOAD) { /* in host memory from its start, off the GPU at its end */
			ch[n++] = (struct act_change){pr->start, 0, pr->amount};
			ch[n++] = (struct act_change){pr->end, -pr->amount, 0};
		} else if (pr->kind == COMM_RELOAD) {
			ch[n++] = (struct act_change){pr->start, pr->amount, 0};
			ch[n++] = (struct act_change){pr->end, 0, -pr->amount};
		}
	}
	qsort(ch, n, sizeof(*ch), cmp_change);
	put_counter(w, s, "activations", d, 0, 0);
	put_counter(w, s, "host", d, 0, 0);
	for (size_t k = 0; k < n; k++) {
		gpu += ch[k].gpu;
		host += ch[k].host;
		if (ch[k].gpu != 0)
			put_counter(w, s, "activations", d, ch[k].t, (double)gpu / (double)unit);
		if (ch[k].host != 0)
			put_counter(w, s, "host", d, ch[k].t, (double)host / (double)unit);
	}
	free(ch);
	return 0;
}

/* Activation counter per device: up at each F's start, down at the end of what frees; with
 * activation offload, on the GPU and in host memory as the copies move them. Returns 0, or -1
 * when out of memory. */
static int write_counters(struct wbuf *w, const struct sim *s)
{
	const struct sched *sc = s->sched;
	const struct cost *c = s->cost;
	const struct result *r = s->result;
	bool offload = false;

	for (size_t k = 0; k < r->npieces && !offload; k++)
		offload = r->pieces[k].amount != 0;
	for (int d = 0; d < sc->p; d++) {
		int64_t alive = 0, unit = 0;
		char head[64];
		size_t head_len;

		for (int k = 0; k < sc->v; k++)
			unit += c->act[sched_stage_of(sc, d, k)];
		/* a device that keeps no activations (a serving pipeline) has no counter */
		if (unit == 0)
			continue;
		if (offload) {
			if (write_offload_counters(w, s, d, unit) != 0)
				return -1;
			continue;
		}
		head_len = (size_t)snprintf(head, sizeof(head),
		                            ",\n{\"name\":\"activations\",\"ph\":\"C\",\"pid\":%d,"
		                            "\"ts\":",
		                            d);
		wbuf_put(w, head, head_len);
		wbuf_printf(w, "%d,\"args\":{\"micro-batches\":0}}", TRACE_ORIGIN_US);
		for (size_t i = sc->dev_start[d]; i < sc->dev_start[d + 1]; i++) {
			const struct op *op = &sc->ops[i];
			pp_time at = op->kind == OP_F ? r->times[i].start : r->times[i].end;

			char *p = wbuf_reserve(w, sizeof(head) + 2 * NUMFMT_MAX + 32);

			alive += sched_act_change(op, c->act, c->act_w);
			p = put_text(p, head, head_len);
			p += numfmt_g(p, us(s, at), 17);
			PUT_LIT(p, ",\"args\":{\"micro-batches\":");
			p += numfmt_g(p, (double)alive / (double)unit, 17);
			PUT_LIT(p, "}}");
			wbuf_commit(w, p);
		}
	}
	return 0;
}

int report_trace(FILE *out, const struct sim *s)
{
	const char *sep = "";
	int *tid = channel_tids(s);
	struct wbuf w;

	if (tid == NULL)
		return -1;
	wbuf_init(&w, out);
	WBUF_LIT(&w, "{\"traceEvents\":[\n");
	write_metadata(&w, s, tid, &sep);
	write_ops(&w, s);
	if (write_messages(&w, s, tid) != 0) {
		wbuf_finish(&w);
		free(tid);
		return -1;
	}
	free(tid);
	write_streams(&w, s);
	if (write_counters(&w, s) != 0) {
		wbuf_finish(&w);
		return -1;
	}
	wbuf_printf(&w,
	            "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"generator\":\"ppsim %s\","
	            "\"schedule\":",
	            PP_VERSION);
	wbuf_finish(&w);
	report_json_text(out,
	                 s->config.schedule_file[0] ? s->config.schedule_file : s->config.schedule);
	fprintf(out,
	        ",\"p\":%d,\"v\":%d,\"m\":%d,\"time_unit\":\"%s\","
	        "\"us_per_time_unit\":1000,\"ts_origin_us\":%d}}\n",
	        s->sched->p, s->sched->v, s->sched->m, s->cost->time_unit, TRACE_ORIGIN_US);
	return 0;
}
