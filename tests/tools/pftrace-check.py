#!/usr/bin/env python3
"""Checks a Perfetto protobuf trace (--trace=FILE.pftrace) against the Chrome trace JSON of the
same run (--trace=FILE.json), event for event.

Usage: pftrace-check.py TRACE.pftrace[.gz] TRACE.json[.gz]

It decodes the protobuf wire format itself (varints, length-delimited fields, fixed64), with
the field numbers of Perfetto's protos/perfetto/trace (trace.proto, trace_packet.proto,
track_event/*.proto, interned_data/interned_data.proto, chrome/chrome_trace_event.proto), and
checks:
- the packet sequence: one trusted_packet_sequence_id, the first packet clearing the incremental
  state, every packet that refers to an interned id saying it needs that state, every id
  interned before it is used;
- the tracks: each device's process and its thread tracks named as the JSON's;
- the slices: per track, in order, the same names, categories, start and end (nanoseconds,
  1000 x the JSON's microseconds, within a nanosecond of rounding) and arguments; and that
  sorting a track's begins and ends by time, as Perfetto does (ties in file order), pairs them
  into the same slices;
- the flows: each id starts and ends on the slices where the JSON's "s" and "f" events bind, the
  start before the end in Perfetto's order;
- the counters: per device and name, the same samples in order (in counter events, or as
  extra counter values of a slice's begin or end);
- the JSON's otherData as Chrome metadata.
Prints "ok FILE: ..." and exits 0, or prints "FAIL FILE: what" and exits 1.
"""
import gzip
import json
import struct
import sys


class Bad(Exception):
    pass


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def varint(buf, i):
    shift = value = 0
    while True:
        if i >= len(buf):
            raise Bad("a varint runs past the end of its message")
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7
        if shift > 63:
            raise Bad("a varint of more than 10 bytes")


def fields(buf):
    """The fields of a message: a list of (number, wire type, value), a value an int for
    varints and fixed widths, bytes for length-delimited fields."""
    out, i = [], 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise Bad("a field numbered 0")
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            if i + 8 > len(buf):
                raise Bad("a fixed64 runs past the end")
            v = struct.unpack_from("<Q", buf, i)[0]
            i += 8
        elif wt == 2:
            n, i = varint(buf, i)
            if i + n > len(buf):
                raise Bad("a length-delimited field runs past the end of its message")
            v = buf[i:i + n]
            i += n
        elif wt == 5:
            v = struct.unpack_from("<I", buf, i)[0]
            i += 4
        else:
            raise Bad("wire type %d" % wt)
        out.append((num, wt, v))
    return out


def one(fs, num, default=None):
    vals = [v for n, _, v in fs if n == num]
    if len(vals) > 1:
        raise Bad("field %d repeated where it is not" % num)
    return vals[0] if vals else default


def many(fs, num):
    return [v for n, _, v in fs if n == num]


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def as_double(v):
    return struct.unpack("<d", struct.pack("<Q", v))[0]


def text(b):
    return b.decode("utf-8")


# TracePacket
P_TIMESTAMP, P_SEQ_ID, P_TRACK_EVENT, P_INTERNED, P_FLAGS = 8, 10, 11, 12, 13
P_TRACK_DESCRIPTOR, P_CHROME_EVENTS = 60, 5
SEQ_CLEARED, SEQ_NEEDS = 1, 2
# TrackEvent
E_CATEGORY_IIDS, E_ANNOTATIONS, E_TYPE, E_NAME_IID, E_TRACK_UUID, E_NAME = 3, 4, 9, 10, 11, 23
E_COUNTER, E_COUNTER_D, E_FLOW, E_FLOW_END = 30, 44, 47, 48
E_EXTRA_UUIDS, E_EXTRA, E_EXTRA_D_UUIDS, E_EXTRA_D = 31, 12, 45, 46
T_BEGIN, T_END, T_COUNTER = 1, 2, 4


def annotation(fs, names):
    """A DebugAnnotation: (name, value)."""
    iid = one(fs, 1)
    if iid is None:
        raise Bad("an annotation without an interned name")
    if iid not in names:
        raise Bad("annotation name iid %d used before it is interned" % iid)
    for num, kind in ((2, "bool"), (4, "int"), (3, "uint"), (5, "double"), (6, "string")):
        v = one(fs, num)
        if v is None:
            continue
        if kind == "bool":
            return names[iid], bool(v)
        if kind == "int":
            return names[iid], signed(v)
        if kind == "uint":
            return names[iid], v
        if kind == "double":
            return names[iid], as_double(v)
        return names[iid], text(v)
    raise Bad("annotation %s has no value this checker reads" % names[iid])


def decode(data):
    """The trace's tracks, slices, flows, counters and metadata."""
    interned = {1: {}, 2: {}, 3: {}}  # categories, event names, annotation names
    tracks, metadata = {}, {}
    events = []  # (packet index, ts, uuid, type, name, cat, args, flows, ends, value)
    seq = None
    packets = many(fields(data), 1)
    if not packets:
        raise Bad("no packets")
    for k, pb in enumerate(packets):
        fs = fields(pb)
        flags = one(fs, P_FLAGS, 0)
        s = one(fs, P_SEQ_ID)
        if s is None:
            raise Bad("packet %d has no trusted_packet_sequence_id" % k)
        if seq is None:
            seq = s
        elif s != seq:
            raise Bad("packet %d on sequence %d, not %d" % (k, s, seq))
        if k == 0 and not flags & SEQ_CLEARED:
            raise Bad("the first packet does not clear the incremental state")
        if k > 0 and flags & SEQ_CLEARED:
            raise Bad("packet %d clears the incremental state again" % k)
        idata = one(fs, P_INTERNED)
        if idata is not None:
            for num, _, entry in fields(idata):
                if num not in interned:
                    raise Bad("interned data of field %d" % num)
                e = fields(entry)
                iid, name = one(e, 1), one(e, 2)
                if iid in interned[num] and interned[num][iid] != text(name):
                    raise Bad("iid %d of field %d interned twice" % (iid, num))
                interned[num][iid] = text(name)
        td = one(fs, P_TRACK_DESCRIPTOR)
        if td is not None:
            t = fields(td)
            uuid = one(t, 1)
            if uuid in tracks:
                raise Bad("track %d described twice" % uuid)
            proc, thread, counter = one(t, 3), one(t, 4), one(t, 8)
            if proc is not None:
                p = fields(proc)
                tracks[uuid] = ("process", one(p, 1), None, text(one(p, 6)))
            elif thread is not None:
                th = fields(thread)
                tracks[uuid] = ("thread", one(th, 1), one(th, 2), text(one(th, 5)))
            elif counter is not None:
                tracks[uuid] = ("counter", one(t, 5), None, text(one(t, 2)))
            else:
                raise Bad("track %d is neither a process, a thread nor a counter" % uuid)
        ce = one(fs, P_CHROME_EVENTS)
        if ce is not None:
            for md in many(fields(ce), 2):
                m = fields(md)
                name = text(one(m, 1))
                v = one(m, 2)
                metadata[name] = text(v) if v is not None else signed(one(m, 4))
        te = one(fs, P_TRACK_EVENT)
        if te is None:
            continue
        e = fields(te)
        ts = one(fs, P_TIMESTAMP)
        if ts is None:
            raise Bad("packet %d: an event without a timestamp" % k)
        uses = False
        name = one(e, E_NAME)
        name = text(name) if name is not None else None
        iid = one(e, E_NAME_IID)
        if iid is not None:
            uses = True
            if iid not in interned[2]:
                raise Bad("packet %d: event name iid %d used before it is interned" % (k, iid))
            name = interned[2][iid]
        cats = many(e, E_CATEGORY_IIDS)
        for c in cats:
            if c not in interned[1]:
                raise Bad("packet %d: category iid %d used before it is interned" % (k, c))
        uses = uses or bool(cats)
        args = {}
        for a in many(e, E_ANNOTATIONS):
            uses = True
            key, val = annotation(fields(a), interned[3])
            args[key] = val
        if uses and not flags & SEQ_NEEDS:
            raise Bad("packet %d uses interned ids without SEQ_NEEDS_INCREMENTAL_STATE" % k)
        value = one(e, E_COUNTER)
        value = signed(value) if value is not None else None
        if one(e, E_COUNTER_D) is not None:
            value = as_double(one(e, E_COUNTER_D))
        # counter samples on other tracks that go with this event
        extra = list(zip(many(e, E_EXTRA_UUIDS), [signed(v) for v in many(e, E_EXTRA)]))
        extra += list(zip(many(e, E_EXTRA_D_UUIDS), [as_double(v) for v in many(e, E_EXTRA_D)]))
        if len(extra) != len(many(e, E_EXTRA_UUIDS)) + len(many(e, E_EXTRA_D_UUIDS)) or \
                len(many(e, E_EXTRA)) + len(many(e, E_EXTRA_D)) != len(extra):
            raise Bad("packet %d: extra counter tracks and values do not pair" % k)
        events.append((k, ts, one(e, E_TRACK_UUID), one(e, E_TYPE), name,
                       interned[1][cats[0]] if cats else None, args, many(e, E_FLOW),
                       many(e, E_FLOW_END), value, extra))
    return tracks, events, metadata, len(packets)


def close(a, b):
    return abs(a - b) <= 1


def ns(us):
    return round(us * 1000)


def check(pf_path, json_path):
    tracks, events, metadata, npackets = decode(read(pf_path))
    doc = json.loads(read(json_path))
    jev = doc["traceEvents"]

    # tracks: (process name, thread name) of each thread track, by the JSON's pid and tid
    jproc, jthread = {}, {}
    for e in jev:
        if e.get("ph") == "M" and e["name"] == "process_name":
            jproc[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e["name"] == "thread_name":
            jthread[(e["pid"], e["tid"])] = e["args"]["name"]
    pproc = {t[1]: t[3] for t in tracks.values() if t[0] == "process"}
    if pproc != jproc:
        raise Bad("process names differ: %s against the JSON's %s" % (pproc, jproc))
    pthreads = sorted((t[1], t[3]) for t in tracks.values() if t[0] == "thread")
    jthreads = sorted((pid, name) for (pid, _), name in jthread.items())
    if pthreads != jthreads:
        raise Bad("thread tracks differ: %s against the JSON's %s" % (pthreads, jthreads))
    for uuid, t in tracks.items():
        if t[0] == "counter" and (t[1] not in tracks or tracks[t[1]][0] != "process"):
            raise Bad("counter track %d has no process for a parent" % uuid)

    def key_of(uuid):
        t = tracks.get(uuid)
        if t is None:
            raise Bad("an event on undescribed track %s" % uuid)
        if t[0] == "counter":
            return ("counter", tracks[t[1]][1], t[3])
        return (t[1], t[3])

    # slices, per track in file order
    pslices, open_, order = {}, {}, {}
    flows_from, flows_to = {}, {}
    pcounters = {}
    for k, ts, uuid, typ, name, cat, args, flows, ends, value, extra in events:
        key = key_of(uuid)
        for cu, cv in extra:
            ck = key_of(cu)
            if ck[0] != "counter":
                raise Bad("packet %d: an extra counter value on track %s, not a counter's" % (k, cu))
            pcounters.setdefault(ck[1:], []).append((ts, cv))
        order.setdefault(key, []).append((ts, k, typ))
        if typ == T_BEGIN:
            if key in open_:
                raise Bad("packet %d begins a slice on %s before the last one ended" % (k, key))
            open_[key] = [name, cat, ts, None, args, k]
            for f in flows:
                if f in flows_from:
                    raise Bad("flow %d starts twice" % f)
                flows_from[f] = (key, ts, k)
            for f in ends:
                if f in flows_to:
                    raise Bad("flow %d ends twice" % f)
                flows_to[f] = (key, ts, k)
        elif typ == T_END:
            if key not in open_:
                raise Bad("packet %d ends a slice on %s that did not begin" % (k, key))
            s = open_.pop(key)
            s[3] = ts
            pslices.setdefault(key, []).append(s)
            if flows or ends:
                raise Bad("packet %d: flows on a slice's end" % k)
        elif typ == T_COUNTER:
            if key[0] != "counter" or value is None:
                raise Bad("packet %d: a counter event without a counter track or value" % k)
            pcounters.setdefault(key[1:], []).append((ts, value))
        else:
            raise Bad("packet %d: event type %s" % (k, typ))
    if open_:
        raise Bad("slices never ended on %s" % sorted(open_))
    # Perfetto sorts events by time (ties in file order): the begins and ends of each track
    # must pair into the same slices that way
    for key, evs in order.items():
        if key[0] == "counter":
            continue
        stack, spans = [], []
        for ts, _, typ in sorted(evs):
            if typ == T_BEGIN:
                stack.append(ts)
            else:
                spans.append((stack.pop(), ts))
        want = sorted((s[2], s[3]) for s in pslices.get(key, []))
        if sorted(spans) != want:
            raise Bad("track %s: sorted by time, its begins and ends pair into other slices" % (key,))

    jslices, jflow_s, jflow_f, jcounters = {}, {}, {}, {}
    for e in jev:
        ph = e.get("ph")
        if ph == "X":
            key = (e["pid"], jthread[(e["pid"], e["tid"])])
            start = ns(e["ts"])
            jslices.setdefault(key, []).append(
                [e["name"], e.get("cat"), start, ns(e["ts"] + e["dur"]), e.get("args", {})])
        elif ph == "s":
            jflow_s[e["id"]] = ((e["pid"], jthread[(e["pid"], e["tid"])]), ns(e["ts"]))
        elif ph == "f":
            jflow_f[e["id"]] = ((e["pid"], jthread[(e["pid"], e["tid"])]), ns(e["ts"]))
        elif ph == "C":
            jcounters.setdefault((e["pid"], e["name"]), []).append(
                (ns(e["ts"]), e["args"]["micro-batches"]))
    if sorted(pslices) != sorted(jslices):
        raise Bad("tracks with slices differ: %s against the JSON's %s" %
                  (sorted(pslices), sorted(jslices)))
    nslices = 0
    for key, js in jslices.items():
        ps = pslices[key]
        if len(ps) != len(js):
            raise Bad("track %s: %d slices, the JSON %d" % (key, len(ps), len(js)))
        for p, j in zip(ps, js):
            nslices += 1
            what = "track %s slice %s at %d" % (key, j[0], j[2])
            if p[0] != j[0] or p[1] != j[1]:
                raise Bad("%s: named %s (%s), the JSON's %s (%s)" % (what, p[0], p[1], j[0], j[1]))
            if not close(p[2], j[2]) or not close(p[3], j[3]):
                raise Bad("%s: from %d to %d ns, the JSON's %d to %d" % (what, p[2], p[3], j[2], j[3]))
            if p[4] != j[4] or any((type(p[4][a]) is bool) != (type(j[4][a]) is bool)
                                   for a in j[4]):
                raise Bad("%s: arguments %s, the JSON's %s" % (what, p[4], j[4]))

    # flows: where each starts and ends, against where the JSON's events bind
    if sorted(flows_from) != sorted(jflow_s) or sorted(flows_to) != sorted(jflow_f):
        raise Bad("flow ids differ: %d started and %d ended, the JSON %d and %d" %
                  (len(flows_from), len(flows_to), len(jflow_s), len(jflow_f)))
    for f in flows_from:
        (pk, pts, pi), (jk, jts) = flows_from[f], jflow_s[f]
        if pk != jk or not close(pts, jts):
            raise Bad("flow %d starts on %s at %d, the JSON's on %s at %d" % (f, pk, pts, jk, jts))
        (qk, qts, qi), (jk, jts) = flows_to[f], jflow_f[f]
        if qk != jk or not close(qts, jts):
            raise Bad("flow %d ends on %s at %d, the JSON's on %s at %d" % (f, qk, qts, jk, jts))
        if (pts, pi) >= (qts, qi):
            raise Bad("flow %d ends before it starts in Perfetto's order" % f)

    # counters
    if sorted(pcounters) != sorted(jcounters):
        raise Bad("counters differ: %s against the JSON's %s" % (sorted(pcounters), sorted(jcounters)))
    nsamples = 0
    for key, js in jcounters.items():
        ps = pcounters[key]
        if len(ps) != len(js):
            raise Bad("counter %s: %d samples, the JSON %d" % (key, len(ps), len(js)))
        for (pts, pv), (jts, jv) in zip(ps, js):
            nsamples += 1
            if not close(pts, jts) or pv != jv:
                raise Bad("counter %s: %s at %d, the JSON's %s at %d" % (key, pv, pts, jv, jts))

    if metadata != doc.get("otherData"):
        raise Bad("metadata %s, the JSON's otherData %s" % (metadata, doc.get("otherData")))
    return "%d packets, %d slices, %d flows, %d counter samples" % (
        npackets, nslices, len(flows_from), nsamples)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: pftrace-check.py TRACE.pftrace TRACE.json\n")
        return 2
    try:
        print("ok %s: %s" % (argv[1], check(argv[1], argv[2])))
        return 0
    except (Bad, KeyError, ValueError, UnicodeDecodeError, struct.error) as e:
        print("FAIL %s: %s" % (argv[1], e if isinstance(e, Bad) else "%s: %s" % (type(e).__name__, e)))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
