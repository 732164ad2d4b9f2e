/*
 * Perfetto's own trace format (a protobuf `perfetto.protos.Trace`: a stream of TracePackets),
 * holding what the Chrome trace holds (trace.c; both take it from trace_walk.c): per device a
 * process track and a thread track per stream and link, a slice per op and per message
 * (TYPE_SLICE_BEGIN and TYPE_SLICE_END) with the JSON's names, categories and arguments as
 * debug annotations, the flow from each transfer to its consumer (flow_ids and
 * terminating_flow_ids), the counters (without offload, an op's sample with its slice's begin
 * or end, as extra_counter_values), and the JSON's otherData as Chrome metadata. Perfetto
 * reads it natively, far faster than the JSON, and it is under a third of the JSON's size.
 *
 * The wire format is written by hand (varints and length-delimited fields, the field numbers
 * of Perfetto's protos/perfetto/trace/ files, named where they are written) straight into the
 * base layer's writer: a packet is at most PACKET_MAX bytes, each nested message's length
 * patched in once its body is written. One packet sequence (trusted_packet_sequence_id 1):
 * the first packet clears its incremental state and interns the categories and annotation
 * names; event names are interned as they first occur (the ops' labels; a name met once, a
 * transfer's or a PyTorch action's, is written in the event), and a packet that refers to an
 * interned id says it needs the incremental state. Timestamps are integer nanoseconds, the
 * JSON's microseconds times 1000 (1000 + time in units x 10^6), computed from the ticks.
 */
#include <stdlib.h>
#include <string.h>

#include "ppsim/report.h"

#include "base/numfmt.h"
#include "formats.h"
#include "base/json_text.h"
#include "protobuf.h"
#include "trace_walk.h"

/* The most one packet takes: an event with its interned name, or a track's descriptor. */
#define PACKET_MAX 1024

/* Fields' keys (field number << 3 | wire type) as their varint bytes. */
#define K_PACKET           "\x0a"     /* Trace.packet = 1, bytes */
#define K_TIMESTAMP        "\x40"     /* TracePacket.timestamp = 8 */
#define K_TRACK_EVENT      "\x5a"     /* TracePacket.track_event = 11, bytes */
#define K_INTERNED         "\x62"     /* TracePacket.interned_data = 12, bytes */
#define K_SEQ_ID           "\x50\x01" /* TracePacket.trusted_packet_sequence_id = 10: 1 */
#define K_SEQ_FLAGS        "\x68"     /* TracePacket.sequence_flags = 13 */
#define K_TRACK_DESCRIPTOR "\xe2\x03" /* TracePacket.track_descriptor = 60, bytes */
#define K_CHROME_EVENTS    "\x2a"     /* TracePacket.chrome_events = 5, bytes */
/* TracePacket.SequenceFlags */
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE   2

/* TrackEvent */
#define K_TYPE         "\x48"     /* type = 9 */
#define K_TRACK_UUID   "\x58"     /* track_uuid = 11 */
#define K_NAME_IID     "\x50"     /* name_iid = 10 */
#define K_NAME         "\xba\x01" /* name = 23, bytes */
#define K_CATEGORY_IID "\x18"     /* category_iids = 3 */
#define K_ANNOTATION   "\x22"     /* debug_annotations = 4, bytes */
#define K_FLOW         "\xf9\x02" /* flow_ids = 47, fixed64 */
#define K_FLOW_END     "\x81\x03" /* terminating_flow_ids = 48, fixed64 */
#define K_COUNTER      "\xf0\x01" /* counter_value = 30 */
#define K_COUNTER_D    "\xe1\x02" /* double_counter_value = 44, fixed64 */
#define K_EXTRA_UUID   "\xf8\x01" /* extra_counter_track_uuids = 31 */
#define K_EXTRA        "\x60"     /* extra_counter_values = 12 */
#define K_EXTRA_D_UUID "\xe8\x02" /* extra_double_counter_track_uuids = 45 */
#define K_EXTRA_D      "\xf1\x02" /* extra_double_counter_values = 46, fixed64 */
/* TrackEvent.Type */
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END   2
#define TYPE_COUNTER     4

/* DebugAnnotation */
#define K_A_NAME_IID "\x08" /* name_iid = 1 */
#define K_A_BOOL     "\x10" /* bool_value = 2 */
#define K_A_INT      "\x20" /* int_value = 4 */
#define K_A_DOUBLE   "\x29" /* double_value = 5, fixed64 */
#define K_A_STRING   "\x32" /* string_value = 6, bytes */

/* InternedData: event_categories = 1, event_names = 2, debug_annotation_names = 3, each a
 * message of iid = 1 and name = 2 */
#define K_I_CATEGORY "\x0a"
#define K_I_NAME     "\x12"
#define K_I_ANNOT    "\x1a"
#define K_IID        "\x08"
#define K_IID_NAME   "\x12"

/* TrackDescriptor: uuid = 1, name = 2, process = 3, thread = 4, parent_uuid = 5, counter = 8;
 * ProcessDescriptor: pid = 1, legacy_sort_index = 3, process_name = 6; ThreadDescriptor:
 * pid = 1, tid = 2, thread_name = 5 */
#define K_D_UUID         "\x08"
#define K_D_NAME         "\x12"
#define K_D_PROCESS      "\x1a"
#define K_D_THREAD       "\x22"
#define K_D_PARENT       "\x28"
#define K_D_COUNTER      "\x42"
#define K_P_PID          "\x08"
#define K_P_SORT         "\x18"
#define K_P_NAME         "\x32"
#define K_T_PID          "\x08"
#define K_T_TID          "\x10"
#define K_T_NAME         "\x2a"
/* ChromeEventBundle.metadata = 2; ChromeMetadata: name = 1, string_value = 2, int_value = 4 */
#define K_C_METADATA     "\x12"
#define K_M_NAME         "\x0a"
#define K_M_STRING       "\x12"
#define K_M_INT          "\x20"

/* The categories' interned ids, in the order of categories[] */
static const char *const categories[] = {"forward", "backward", "comm", "exposed"};
/* The annotation names' interned ids, from 1 in this order */
enum annot {
	A_KIND = 1,
	A_MICROBATCH,
	A_STAGE,
	A_CHUNK,
	A_OVERLAPPED,
	A_CRITICAL,
	A_SLACK_US,
	A_P2P,
	A_BYTES,
	A_OP,
	A_PIECES,
	A_BUSY_US,
	A_HOOKED,
	A_AFTER_LAST_OP,
	A_EXPOSED_US,
};
static const char *const annots[] = {
        NULL,   "kind",   "microbatch", "stage",   "chunk",  "overlapped", "critical",
        "slack_us", "p2p", "bytes",      "op",      "pieces", "busy_us",    "hooked",
        "after_last_op", "exposed_us",
};
/* The event names interned from the start: "exposed" is 1 */
#define NAME_EXPOSED 1
#define NAME_FIRST   2

/* The tracks of a device, each a uuid: DEVICE_SLOTS(w) of them from 1 + d x that. */
enum slot {
	SLOT_PROCESS,
	SLOT_COMPUTE,
	SLOT_ACTIVATIONS,
	SLOT_HOST,
	SLOT_STREAM,                         /* + the stream */
	SLOT_CHANNEL = SLOT_STREAM + STREAM_COUNT, /* + the channel track's tid - 1 */
};

struct pf {
	struct wbuf w;
	const struct drawing *s;
	struct trace_walk tw;
	uint64_t num, den;    /* ns = 1000 + t num / den, rounded; den 0: through the double */
	uint64_t slots;       /* uuids a device takes */
	uint32_t *name_iid;   /* [4 v nmb] the iid of the label of (kind, chunk, mb), 0 for none
	                         yet; NULL with PyTorch's names (each written where it occurs) */
	uint32_t nmb;         /* micro-batches the table holds */
	uint32_t next_name;   /* the next event name's iid */
	uint32_t comm_iid[1u << COMM_KINDS]; /* the iid of a stream slice's name by its kinds */
	uint32_t *flows;      /* [2 nops] the flow (message + 1) that starts at op i's slice
	                         ([2 i]: a message that leaves as its consumer starts) and the
	                         one that ends there ([2 i + 1]), 0 for none */
	unsigned char *counters; /* [p] bit 1: activations' track declared, bit 2: host's (with
	                            offload, when the samples are packets of their own) */
	unsigned char *first;    /* [nops / 8 + 1] bit i: op i's slice interns its name */
};

static uint64_t uuid_of(const struct pf *f, int d, uint64_t slot)
{
	return 1 + (uint64_t)d * f->slots + slot;
}

/* The nanoseconds of time t (ticks): the JSON's microseconds 1 + units x 1000, times 1000. */
static uint64_t ns_of(const struct pf *f, pp_time t)
{
	uint64_t u = (uint64_t)t;

	uint64_t q;

	/* whole nanoseconds a tick (a run of whole or decimal costs): no division */
	if (f->den == 1)
		return 1000 + u * f->num;
	if (f->den == 0)
		return (uint64_t)(1000 + pp_time_to_units(t, f->s->tick) * 1e6 + 0.5);
	q = u / f->den;
	return 1000 + q * f->num + ((u - q * f->den) * f->num + f->den / 2) / f->den;
}

/* A packet's start at p: its key and length byte; returns where its body starts. */
static char *begin_packet(char *p)
{
	PUT_KEY(p, K_PACKET);
	return begin_nested(p);
}

/* Ends a packet whose body starts at body: its sequence and flags, then its length. */
static char *end_packet(char *body, char *p, unsigned flags)
{
	PUT_KEY(p, K_SEQ_ID);
	if (flags != 0) {
		PUT_KEY(p, K_SEQ_FLAGS);
		*p++ = (char)flags;
	}
	return end_nested(body, p);
}

/* An interned entry {iid, name} under key k. */
static char *put_interned(char *p, const char *k, uint64_t iid, const char *name, size_t n)
{
	char *body;

	*p++ = k[0];
	body = begin_nested(p);
	p = body;
	PUT_KEY(p, K_IID);
	p = put_varint(p, iid);
	PUT_KEY(p, K_IID_NAME);
	p = put_bytes(p, name, n);
	return end_nested(body, p);
}

/* The first packet: the sequence's incremental state cleared, the categories and annotation
 * names interned. */
static void write_first(struct pf *f)
{
	char *p = wbuf_reserve(&f->w, PACKET_MAX), *pk = begin_packet(p), *in;

	p = pk;
	PUT_KEY(p, K_INTERNED);
	in = begin_nested(p);
	p = in;
	for (size_t c = 0; c < sizeof(categories) / sizeof(categories[0]); c++)
		p = put_interned(p, K_I_CATEGORY, c + 1, categories[c], strlen(categories[c]));
	for (size_t a = 1; a < sizeof(annots) / sizeof(annots[0]); a++)
		p = put_interned(p, K_I_ANNOT, a, annots[a], strlen(annots[a]));
	p = put_interned(p, K_I_NAME, NAME_EXPOSED, "exposed", 7);
	p = end_nested(in, p);
	wbuf_commit(&f->w, end_packet(pk, p, SEQ_INCREMENTAL_STATE_CLEARED));
}

/* A ChromeMetadata entry at p: name with a text value, or an integer when text is NULL. */
static char *put_fact(char *p, const char *name, const char *text, int64_t value)
{
	char *md;

	PUT_KEY(p, K_C_METADATA);
	md = p = begin_nested(p);
	PUT_KEY(p, K_M_NAME);
	p = put_bytes(p, name, strlen(name));
	if (text != NULL) {
		PUT_KEY(p, K_M_STRING);
		p = put_bytes(p, text, strlen(text));
	} else {
		PUT_KEY(p, K_M_INT);
		p = put_varint(p, (uint64_t)value);
	}
	return end_nested(md, p);
}

/* The JSON's otherData as a Chrome metadata bundle: the generator, the schedule (a name, or a
 * file's of at most 255 bytes, a stray byte of it as U+FFFD: protobuf strings are UTF-8), its
 * shape and the time's units. */
static void write_facts(struct pf *f)
{
	const struct drawing *s = f->s;
	char generator[64], schedule[3 * 255 + 1];
	char *p = wbuf_reserve(&f->w, PACKET_MAX), *pk = begin_packet(p), *bundle;

	snprintf(generator, sizeof(generator), "ppsim %s", PP_VERSION);
	p = pk;
	PUT_KEY(p, K_CHROME_EVENTS);
	bundle = p = begin_nested(p);
	p = put_fact(p, "generator", generator, 0);
	json_utf8_clean(drawing_name(s), schedule, sizeof(schedule));
	p = put_fact(p, "schedule", schedule, 0);
	p = put_fact(p, "p", NULL, s->sched->p);
	p = put_fact(p, "v", NULL, s->sched->v);
	p = put_fact(p, "m", NULL, s->sched->m);
	p = put_fact(p, "time_unit", s->time_unit, 0);
	p = put_fact(p, "us_per_time_unit", NULL, 1000);
	p = put_fact(p, "ts_origin_us", NULL, 1);
	p = end_nested(bundle, p);
	wbuf_commit(&f->w, end_packet(pk, p, 0));
}

/* A track's descriptor: the process track of device d (tid < 0), a thread track of it (tid
 * >= 0; its tid in the trace is its uuid, unique), or a counter track under its process
 * (counter). */
static char *put_track(const struct pf *f, char *p, int d, uint64_t slot, int tid, bool counter,
                       const char *name)
{
	char *pk = begin_packet(p), *td, *sub;
	uint64_t uuid = uuid_of(f, d, slot);

	p = pk;
	PUT_KEY(p, K_TRACK_DESCRIPTOR);
	td = p = begin_nested(p);
	PUT_KEY(p, K_D_UUID);
	p = put_varint(p, uuid);
	if (counter) {
		PUT_KEY(p, K_D_PARENT);
		p = put_varint(p, uuid_of(f, d, SLOT_PROCESS));
		PUT_KEY(p, K_D_NAME);
		p = put_bytes(p, name, strlen(name));
		PUT_KEY(p, K_D_COUNTER);
		*p++ = 0;
	} else if (tid < 0) {
		PUT_KEY(p, K_D_PROCESS);
		sub = p = begin_nested(p);
		PUT_KEY(p, K_P_PID);
		p = put_varint(p, (uint64_t)d);
		PUT_KEY(p, K_P_SORT);
		p = put_varint(p, (uint64_t)d);
		PUT_KEY(p, K_P_NAME);
		p = put_bytes(p, name, strlen(name));
		p = end_nested(sub, p);
	} else {
		PUT_KEY(p, K_D_THREAD);
		sub = p = begin_nested(p);
		PUT_KEY(p, K_T_PID);
		p = put_varint(p, (uint64_t)d);
		PUT_KEY(p, K_T_TID);
		p = put_varint(p, uuid);
		PUT_KEY(p, K_T_NAME);
		p = put_bytes(p, name, strlen(name));
		p = end_nested(sub, p);
	}
	p = end_nested(td, p);
	return end_packet(pk, p, 0);
}

static void write_track(struct pf *f, int d, uint64_t slot, int tid, bool counter,
                        const char *name)
{
	char *p = wbuf_reserve(&f->w, PACKET_MAX);

	wbuf_commit(&f->w, put_track(f, p, d, slot, tid, counter, name));
}

static void write_tracks(struct pf *f)
{
	const struct drawing *s = f->s;
	char label[96];

	for (int d = 0; d < s->sched->p; d++) {
		report_device_label(s->sched, d, label, sizeof(label));
		write_track(f, d, SLOT_PROCESS, -1, false, label);
		write_track(f, d, SLOT_COMPUTE, 0, false, "compute");
	}
	for (int ch = 0; ch < s->result->nchannels; ch++)
		for (int back = 0; back < 2; back++) {
			int tid = f->tw.tid[2 * ch + back], pid;

			if (tid == 0)
				continue;
			trace_walk_channel_name(&f->tw, ch, back, &pid, label, sizeof(label));
			write_track(f, pid, SLOT_CHANNEL + (uint64_t)tid - 1, tid, false, label);
		}
}

/* An event's start at p: the packet, its timestamp, its TrackEvent's type and track. Returns
 * where the event goes on; *pk gets the packet's body, *te the TrackEvent's. */
static char *begin_event(const struct pf *f, char *p, char **pk, char **te, pp_time t, int type,
                         uint64_t track)
{
	*pk = p = begin_packet(p);
	PUT_KEY(p, K_TIMESTAMP);
	p = put_varint(p, ns_of(f, t));
	PUT_KEY(p, K_TRACK_EVENT);
	*te = p = begin_nested(p);
	PUT_KEY(p, K_TYPE);
	*p++ = (char)type;
	PUT_KEY(p, K_TRACK_UUID);
	return put_varint(p, track);
}

/* An annotation's start: its key, length and name; returns where its body starts. */
static char *begin_annot(char **p, enum annot a)
{
	char *body;

	PUT_KEY(*p, K_ANNOTATION);
	body = *p = begin_nested(*p);
	PUT_KEY(*p, K_A_NAME_IID);
	*(*p)++ = (char)a;
	return body;
}

static char *annot_int(char *p, enum annot a, uint64_t v)
{
	char *body = begin_annot(&p, a);

	PUT_KEY(p, K_A_INT);
	p = put_varint(p, v);
	return end_nested(body, p);
}

static char *annot_bool(char *p, enum annot a, bool v)
{
	char *body = begin_annot(&p, a);

	PUT_KEY(p, K_A_BOOL);
	*p++ = (char)v;
	return end_nested(body, p);
}

static char *annot_text(char *p, enum annot a, const char *s, size_t n)
{
	char *body = begin_annot(&p, a);

	PUT_KEY(p, K_A_STRING);
	p = put_bytes(p, s, n);
	return end_nested(body, p);
}

/* A number as the JSON writes it (a double): an integer when it is one, else the double. */
static char *annot_number(char *p, enum annot a, double x)
{
	char *body = begin_annot(&p, a);

	if (x >= 0 && x < 9007199254740992.0 && x == (double)(uint64_t)x) {
		PUT_KEY(p, K_A_INT);
		p = put_varint(p, (uint64_t)x);
	} else {
		PUT_KEY(p, K_A_DOUBLE);
		p = put_double(p, x);
	}
	return end_nested(body, p);
}

/* The microseconds of a duration of t ticks, the double the JSON writes. */
static double us_of(const struct pf *f, pp_time t)
{
	return trace_walk_us(f->s, t);
}

/* Ends an event whose TrackEvent body started at te, in the packet at pk, with interned names
 * from in (NULL for none) to in_end. */
static char *end_event(char *pk, char *te, char *p, const char *in, const char *in_end,
                       unsigned flags)
{
	p = end_nested(te, p);
	if (in != NULL) {
		char *body;

		PUT_KEY(p, K_INTERNED);
		body = p = begin_nested(p);
		memcpy(p, in, (size_t)(in_end - in));
		p = end_nested(body, p + (in_end - in));
	}
	return end_packet(pk, p, flags);
}

/* A counter sample c at p, in the event of a slice on its device's activations track. */
static char *put_extra(const struct pf *f, char *p, const struct trace_count *c)
{
	uint64_t track = uuid_of(f, c->d, SLOT_ACTIVATIONS);

	if (c->num % c->unit == 0) {
		PUT_KEY(p, K_EXTRA_UUID);
		p = put_varint(p, track);
		PUT_KEY(p, K_EXTRA);
		return put_varint(p, (uint64_t)(c->num / c->unit));
	}
	PUT_KEY(p, K_EXTRA_D_UUID);
	p = put_varint(p, track);
	PUT_KEY(p, K_EXTRA_D);
	return put_double(p, (double)c->num / (double)c->unit);
}

/* A slice's end on track at t, with counter sample c (NULL for none), at p; returns the end. */
static char *put_end(const struct pf *f, char *p, uint64_t track, pp_time t,
                     const struct trace_count *c)
{
	char *pk, *te;

	p = begin_event(f, p, &pk, &te, t, TYPE_SLICE_END, track);
	if (c != NULL)
		p = put_extra(f, p, c);
	return end_event(pk, te, p, NULL, NULL, 0);
}

/* A counter sample's packet at p, on its counter's track; returns the end. */
static char *put_counter(const struct pf *f, char *p, const struct trace_count *c)
{
	char *pk, *te;

	p = begin_event(f, p, &pk, &te, c->t, TYPE_COUNTER,
	                uuid_of(f, c->d, c->host ? SLOT_HOST : SLOT_ACTIVATIONS));
	if (c->num % c->unit == 0) {
		PUT_KEY(p, K_COUNTER);
		p = put_varint(p, (uint64_t)(c->num / c->unit));
	} else {
		PUT_KEY(p, K_COUNTER_D);
		p = put_double(p, (double)c->num / (double)c->unit);
	}
	return end_event(pk, te, p, NULL, NULL, 0);
}

/* The name of an event at p: its interned id iid, interning name (into *in) where it first
 * occurs (first), or the name itself when it has no id (iid 0). */
static char *put_name(char *p, uint32_t iid, bool first, const char *name, size_t n, char **in)
{
	if (iid == 0) {
		PUT_KEY(p, K_NAME);
		return put_bytes(p, name, n);
	}
	if (first)
		*in = put_interned(*in, K_I_NAME, iid, name, n);
	PUT_KEY(p, K_NAME_IID);
	return put_varint(p, iid);
}

/* Where the interned id of op i's name is kept (its kind, chunk and micro-batch's), NULL with
 * PyTorch's names (written where each occurs). */
static uint32_t *op_name_slot(const struct pf *f, size_t i)
{
	const struct sched *sc = f->s->sched;
	const struct op *op = &sc->ops[i];

	if (f->name_iid == NULL)
		return NULL;
	return &f->name_iid[((size_t)op->kind * (size_t)sc->v + (size_t)sc->stage_chunk[op->stage]) *
	                            f->nmb +
	                    op->mb];
}

/* Op o's slice (its begin and its end) at p, with its counter sample c (NULL for none) at its
 * start or its end; w names it. Returns the end. */
static char *put_op(const struct pf *f, const struct trace_walk *w, char *p, struct trace_op *o,
                    const struct trace_count *c)
{
	char *pk, in[TRACE_NAME_MAX + 16], *in_end = in;
	uint64_t track = uuid_of(f, o->d, SLOT_COMPUTE);
	const struct op *op = &f->s->sched->ops[o->i];
	const uint32_t *slot = op_name_slot(f, o->i);
	uint32_t iid = slot != NULL ? *slot : 0;
	bool first = iid != 0 && (f->first[o->i / 8] >> (o->i % 8) & 1);
	char *te;

	p = begin_event(f, p, &pk, &te, o->start, TYPE_SLICE_BEGIN, track);
	if (iid == 0 || first)
		trace_walk_op_name(w, o); /* the name is written once */
	p = put_name(p, iid, first, o->name, o->name_len, &in_end);
	PUT_KEY(p, K_CATEGORY_IID);
	*p++ = (char)(op->kind == OP_F ? 1 : 2);
	p = annot_text(p, A_KIND, o->kind, strlen(o->kind));
	p = annot_int(p, A_MICROBATCH, o->mb);
	p = annot_int(p, A_STAGE, o->stage);
	p = annot_int(p, A_CHUNK, o->chunk);
	p = annot_bool(p, A_OVERLAPPED, o->overlapped);
	if (o->has_slack) {
		p = annot_bool(p, A_CRITICAL, o->critical);
		p = annot_number(p, A_SLACK_US, us_of(f, o->slack));
	}
	if (o->has_exposed)
		p = annot_number(p, A_EXPOSED_US, us_of(f, o->exposed));
	if (f->flows != NULL && f->flows[2 * o->i] != 0) {
		PUT_KEY(p, K_FLOW);
		p = put_fixed64(p, f->flows[2 * o->i]);
	}
	if (f->flows != NULL && f->flows[2 * o->i + 1] != 0) {
		PUT_KEY(p, K_FLOW_END);
		p = put_fixed64(p, f->flows[2 * o->i + 1]);
	}
	if (c != NULL && c->t == o->start && op->kind == OP_F) {
		p = put_extra(f, p, c);
		c = NULL;
	}
	p = end_event(pk, te, p, in_end > in ? in : NULL, in_end, SEQ_NEEDS_INCREMENTAL_STATE);
	return put_end(f, p, track, o->end, c);
}

/* Message m's slice at p; returns the end. */
static char *put_msg(const struct pf *f, char *p, const struct trace_msg *m)
{
	uint64_t track = uuid_of(f, m->src, SLOT_CHANNEL + (uint64_t)m->tid - 1);
	char *pk, *te;

	p = begin_event(f, p, &pk, &te, m->start, TYPE_SLICE_BEGIN, track);
	PUT_KEY(p, K_NAME);
	p = put_bytes(p, m->name, m->name_len);
	PUT_KEY(p, K_CATEGORY_IID);
	*p++ = (char)(m->cat[0] == 'f' ? 1 : 2);
	p = annot_bool(p, A_P2P, true);
	p = annot_int(p, A_BYTES, m->bytes);
	p = annot_int(p, A_STAGE, m->stage);
	p = annot_int(p, A_MICROBATCH, m->mb);
	if (f->flows[2 * m->from] != m->k + 1) {
		PUT_KEY(p, K_FLOW);
		p = put_fixed64(p, m->k + 1);
	}
	p = end_event(pk, te, p, NULL, NULL, SEQ_NEEDS_INCREMENTAL_STATE);
	return put_end(f, p, track, m->end, NULL);
}

/* The first counter sample of device d (its activations track's descriptor, then the sample),
 * at p, when its ops carry its samples (without offload) and it keeps activations; returns the
 * end. */
static char *put_first_sample(const struct pf *f, const struct trace_walk *w, char *p, int d)
{
	struct trace_count x;

	if (f->tw.offload || !trace_walk_count_first(w, d, &x))
		return p;
	p = put_track(f, p, d, SLOT_ACTIVATIONS, 0, true, "activations");
	return put_counter(f, p, &x);
}

/* The most a device's first sample takes. */
#define FIRST_SAMPLE_MAX (PACKET_MAX + 64)
/* About what an op's slice (with its counter sample) and a message's take in a large run (a
 * guess: it sizes the chunks of slices one thread formats). */
#define OP_SLICE_MEAN  256
#define MSG_SLICE_MEAN 128

/* What one thread writing the ops' or the messages' slices holds (wbuf_put_items' context):
 * its walk, and where it is in the ops' counter samples. */
struct pf_thread {
	const struct pf *f;
	struct trace_walk walk;
	struct trace_cursor k;
};

/* Op i's slices (i in the order of the devices' ops), after the first samples of its device
 * and of the devices without ops just before it when it is its device's first. */
static char *put_op_item(void *ctx, size_t i, char *p)
{
	struct pf_thread *t = ctx;
	const struct pf *f = t->f;
	const struct trace_count *c = NULL;
	struct trace_op o;

	if (f->tw.offload) {
		t->k.d = trace_walk_device_at(&t->walk, t->k.d, i);
	} else {
		c = trace_walk_count_op(&t->walk, &t->k, i);
		for (int e = trace_walk_first_at(&t->walk, &t->k, i); e <= t->k.d; e++)
			p = put_first_sample(f, &t->walk, p, e);
	}
	trace_walk_op_unnamed(&t->walk, t->k.d, i, &o);
	if (c != NULL && !(c->t == o.start && f->s->sched->ops[i].kind == OP_F) && c->t != o.end) {
		p = put_counter(f, p, c); /* not an op's: a packet of its own */
		c = NULL;
	}
	return put_op(f, &t->walk, p, &o, c);
}

static char *put_msg_item(void *ctx, size_t k, char *p)
{
	struct pf_thread *t = ctx;
	struct trace_msg m;

	trace_walk_msg(&t->walk, k, &m);
	return put_msg(t->f, p, &m);
}

/* Interns the ops' names in the order the ops are written, each where it first occurs (an id
 * from f->next_name, and its bit in f->first), so that the ops' slices can be written in any
 * order. */
static void intern_op_names(struct pf *f)
{
	const struct sched *sc = f->s->sched;

	for (size_t i = 0; f->name_iid != NULL && i < sc->nops; i++) {
		uint32_t *iid = op_name_slot(f, i);

		if (*iid == 0) {
			*iid = f->next_name++;
			f->first[i / 8] |= (unsigned char)(1u << (i % 8));
		}
	}
}

/*
 * The ops, device by device, then the messages, as the JSON trace orders them, on up to
 * --jobs threads (wbuf_put_items). An op's slice carries the flow that starts at it (that of
 * the message it sends when the message leaves as its consumer starts) and the one that ends
 * at it. Every flow starts before it ends (a transfer starts before its consumer unless it
 * takes no time and waits for nothing, when the flow starts at the producing op), so
 * Perfetto's order, by time, meets every start first. Without offload a device's counter
 * samples are its ops' (and a first 0): each goes with its op's slice, at its start (an F's)
 * or its end, instead of a packet of its own. Returns 0, or -1 when out of memory.
 */
static int write_slices(struct pf *f)
{
	const struct sched *sc = f->s->sched;
	struct pf_thread t[WBUF_MAX_JOBS];
	int jobs = trace_walk_jobs(&f->tw), forked = 0;
	size_t op_max = 2 * PACKET_MAX + 64 +
	                (size_t)(trace_walk_most_empty(&f->tw) + 1) * FIRST_SAMPLE_MAX;

	intern_op_names(f);

	for (; forked < jobs; forked++) {
		if (trace_walk_fork(&t[forked].walk, &f->tw) != 0)
			break;
		t[forked].f = f;
		t[forked].k = (struct trace_cursor)TRACE_CURSOR_INIT;
	}
	if (forked == 0)
		return -1;
	wbuf_put_items(&f->w, sc->nops, op_max, OP_SLICE_MEAN, put_op_item, t, sizeof(t[0]),
	               forked);
	/* the devices without ops after the last op's */
	for (int d = 0; d < sc->p; d++)
		if (sc->dev_start[d] == sc->nops) {
			char *p = wbuf_reserve(&f->w, FIRST_SAMPLE_MAX);

			wbuf_commit(&f->w, put_first_sample(f, &f->tw, p, d));
		}
	if (f->flows != NULL)
		wbuf_put_items(&f->w, f->s->result->nmsgs, PACKET_MAX + 64, MSG_SLICE_MEAN,
		               put_msg_item, t, sizeof(t[0]), forked);
	for (int i = 0; i < forked; i++)
		trace_walk_release(&t[i].walk);
	return 0;
}

/* The most a stream slice's two packets take (the op's name, three numbers and the packets'
 * keys), and a device's head of stream track descriptors. */
#define STREAM_SLICE_MAX (TRACE_NAME_MAX + 256)
#define STREAM_HEAD_MAX  (STREAM_COUNT * (TRACE_KINDS_NAME + 128))
#define STREAM_ITEM_MAX                                                                        \
	(STREAM_HEAD_MAX > STREAM_COUNT * STREAM_SLICE_MAX ? STREAM_HEAD_MAX                     \
	                                                   : STREAM_COUNT * STREAM_SLICE_MAX)
/* About what a stream item takes in a large run: an op's slice on one stream. */
#define STREAM_ITEM_MEAN 90

/* Interns the name of every set of communication kinds ("tp+cp"), in a packet of its own
 * before the stream slices, which then name theirs by id (f->comm_iid) in any order. */
#define COMM_NAMES_MAX (((1u << COMM_KINDS) - 1) * (TRACE_KINDS_NAME + 16) + 32)
_Static_assert(COMM_NAMES_MAX <= WBUF_SMALL, "the kinds' names fit a writer's reservation");

static void intern_comm_names(struct pf *f, const struct trace_stream_items *it)
{
	char *p = wbuf_reserve(&f->w, COMM_NAMES_MAX), *pk, *in;

	pk = p = begin_packet(p);
	PUT_KEY(p, K_INTERNED);
	in = p = begin_nested(p);
	for (unsigned kinds = 1; kinds < 1u << COMM_KINDS; kinds++) {
		f->comm_iid[kinds] = f->next_name++;
		p = put_interned(p, K_I_NAME, f->comm_iid[kinds], it->names[kinds],
		                 strlen(it->names[kinds]));
	}
	p = end_nested(in, p);
	wbuf_commit(&f->w, end_packet(pk, p, SEQ_NEEDS_INCREMENTAL_STATE));
}

/* Device d's stream tracks' descriptors at p. */
static char *stream_head(void *ctx, int d, unsigned lanes, char *p)
{
	const struct pf *f = ctx;
	char name[32];

	for (int st = 0; st < STREAM_COUNT; st++)
		if (lanes >> st & 1)
			p = put_track(f, p, d, SLOT_STREAM + (uint64_t)st, TRACE_STREAM_TID(st), false,
			              trace_walk_track_name((enum comm_stream)st, name, sizeof(name)));
	return p;
}

/* Stream slice c's begin and end at p. */
static char *stream_slice(void *ctx, const struct trace_comm *c, char *p)
{
	const struct pf *f = ctx;
	char *pk, *te;
	uint64_t track = uuid_of(f, c->d,
	                         c->what == TRACE_COMM_EXPOSED
	                                 ? SLOT_COMPUTE
	                                 : SLOT_STREAM + (uint64_t)(c->tid - TRACE_STREAM_TID(0)));

	p = begin_event(f, p, &pk, &te, c->start, TYPE_SLICE_BEGIN, track);
	if (c->what == TRACE_COMM_EXPOSED) {
		PUT_KEY(p, K_NAME_IID);
		p = put_varint(p, NAME_EXPOSED);
		PUT_KEY(p, K_CATEGORY_IID);
		*p++ = 4;
		p = annot_bool(p, A_AFTER_LAST_OP, true);
	} else {
		PUT_KEY(p, K_NAME_IID);
		p = put_varint(p, f->comm_iid[c->kinds]);
		PUT_KEY(p, K_CATEGORY_IID);
		*p++ = 3;
		if (c->what == TRACE_COMM_HOOKED) {
			p = annot_bool(p, A_HOOKED, true);
		} else {
			char label[TRACE_NAME_MAX];

			p = annot_text(p, A_OP, label,
			               trace_walk_comm_op(&f->tw, c->op, label, sizeof(label)));
			p = annot_int(p, A_PIECES, c->pieces);
			p = annot_number(p, A_BUSY_US, us_of(f, c->busy));
		}
	}
	p = end_event(pk, te, p, NULL, NULL, SEQ_NEEDS_INCREMENTAL_STATE);
	return put_end(f, p, track, c->end, NULL);
}

/* A thread's stream items: the writer, the items, its last item's device. */
struct pf_streams {
	const struct pf *f;
	const struct trace_stream_items *items;
	int at;
};

static char *put_stream_item(void *ctx, size_t k, char *p)
{
	static const struct trace_stream_fns fns = {stream_head, stream_slice, NULL};
	struct pf_streams *t = ctx;

	return trace_stream_item(t->items, &fns, (void *)t->f, &t->at, k, p);
}

/* The communication streams' tracks and slices, device by device, on up to the run's jobs
 * threads. Returns 0, or -1 when out of memory. */
static int write_streams(struct pf *f)
{
	struct trace_stream_items items;
	struct pf_streams t[WBUF_MAX_JOBS];

	if (f->s->result->shapes == NULL && f->s->result->npieces == 0)
		return 0;
	if (trace_stream_items_init(&items, &f->tw, true) != 0)
		return -1;
	intern_comm_names(f, &items);
	for (int j = 0; j < WBUF_MAX_JOBS; j++)
		t[j] = (struct pf_streams){f, &items, -1};
	wbuf_put_items(&f->w, items.n, STREAM_ITEM_MAX, STREAM_ITEM_MEAN, put_stream_item, t,
	               sizeof(t[0]), trace_walk_jobs(&f->tw));
	trace_stream_items_release(&items);
	return 0;
}

/* A counter sample in a packet of its own (with offload), after its track's descriptor when it
 * is the track's first. */
static void counter_sample(void *ctx, const struct trace_count *c)
{
	struct pf *f = ctx;
	unsigned bit = c->host ? 2 : 1;

	if (!(f->counters[c->d] & bit)) {
		write_track(f, c->d, c->host ? SLOT_HOST : SLOT_ACTIVATIONS, 0, true,
		            c->host ? "host" : "activations");
		f->counters[c->d] |= (unsigned char)bit;
	}
	wbuf_commit(&f->w, put_counter(f, wbuf_reserve(&f->w, 64), c));
}

/* Ticks to nanoseconds as num / den in lowest terms (10^6 ns a unit of tick ticks), den 0
 * when the products could overflow (a tick count no run takes). */
static void ns_ratio(struct pf *f)
{
	uint64_t a = 1000000, b = (uint64_t)f->s->tick;

	while (b != 0) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	f->num = 1000000 / a;
	f->den = (uint64_t)f->s->tick / a;
	if (f->den > (UINT64_C(1) << 31) || f->num > (UINT64_C(1) << 31))
		f->den = 0;
}

/* What the writer holds besides the walk: the op names' ids, each op's incoming flow, the
 * counters declared. Returns 0, or -1 when out of memory. */
static int pf_init(struct pf *f)
{
	const struct drawing *s = f->s;
	const struct sched *sc = s->sched;
	const struct result *r = s->result;
	int maxtid = 0;

	for (int ch = 0; ch < 2 * r->nchannels; ch++)
		maxtid = f->tw.tid[ch] > maxtid ? f->tw.tid[ch] : maxtid;
	f->slots = SLOT_CHANNEL + (uint64_t)maxtid;
	f->next_name = NAME_FIRST;
	ns_ratio(f);
	f->counters = pp_calloc((size_t)sc->p, 1);
	if (f->counters == NULL)
		return -1;
	if (s->trace_names != PP_TRACE_NAMES_TORCH) {
		uint32_t top = 0;

		for (size_t i = 0; i < sc->nops; i++)
			top = sc->ops[i].mb > top ? sc->ops[i].mb : top;
		f->nmb = top + 1;
		f->name_iid = pp_calloc(4 * (size_t)sc->v * f->nmb, sizeof(*f->name_iid));
		f->first = pp_calloc(sc->nops / 8 + 1, 1);
		if (f->name_iid == NULL || f->first == NULL)
			return -1;
	}
	if (r->msgs != NULL) {
		/* an op sends a message at most and consumes one at most (one a stage boundary,
		 * micro-batch and pass) */
		f->flows = pp_calloc_large(sc->nops > 0 ? 2 * sc->nops : 1, sizeof(*f->flows));
		if (f->flows == NULL)
			return -1;
		for (size_t k = 0; k < r->nmsgs; k++) {
			const struct msg_record *g = &r->msgs[k];

			f->flows[2 * (size_t)g->to + 1] = (uint32_t)(k + 1);
			if (trace_walk_from_op(r, g))
				f->flows[2 * (size_t)g->from] = (uint32_t)(k + 1);
		}
	}
	return 0;
}

static void pf_release(struct pf *f)
{
	free(f->counters);
	free(f->first);
	free(f->name_iid);
	free(f->flows);
	trace_walk_release(&f->tw);
}

int report_pftrace(FILE *out, const struct drawing *s)
{
	struct pf *f = pp_calloc(1, sizeof(*f));
	int rc = 0;

	if (f == NULL)
		return -1;
	f->s = s;
	if (trace_walk_init(&f->tw, s) != 0) {
		free(f);
		return -1;
	}
	if (pf_init(f) != 0) {
		pf_release(f);
		free(f);
		return -1;
	}
	wbuf_init(&f->w, out);
	write_first(f);
	write_facts(f);
	write_tracks(f);
	rc = write_slices(f);
	if (rc == 0)
		rc = write_streams(f);
	/* with offload, the counters' samples are not the ops' */
	for (int d = 0; d < s->sched->p && rc == 0 && f->tw.offload; d++)
		rc = trace_walk_counters(&f->tw, d, counter_sample, f);
	wbuf_finish(&f->w);
	pf_release(f);
	free(f);
	return rc;
}
