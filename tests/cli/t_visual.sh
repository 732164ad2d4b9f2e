# Pictures: the Chrome trace, the SVG Gantt chart, terminal colour and the gallery.

# The trace is JSON with one complete event per op, a finishing flow for every started one,
# and activation counters that never go negative (checked in depth by the unit tests).
ppsim -s interleaved -p 4 -v 2 -m 8 --tcomm 0.1 --trace="$TMP/trace.json" >/dev/null
cp "$TMP/trace.json" "$TMP/out.json"
RUN="ppsim -s interleaved -p 4 -v 2 -m 8 --tcomm 0.1 --trace"
expect otherData.p 4
expect otherData.us_per_time_unit 1000
events=$(grep -c '"ph":"X","pid":[0-9]*,"tid":0,' "$TMP/trace.json")
if [ "$events" -eq 128 ]; then ok; else not_ok "trace: $events compute events, want 128 ops"; fi
starts=$(grep -c '"ph":"s"' "$TMP/trace.json")
ends=$(grep -c '"ph":"f"' "$TMP/trace.json")
if [ "$starts" -eq 112 ] && [ "$ends" -eq 112 ]; then ok; else
	not_ok "trace: $starts flow starts and $ends ends, want 112 each (one per message)"
fi
if grep -q '"micro-batches":-' "$TMP/trace.json"; then not_ok "trace: negative counter"; else ok; fi

# Its times are exact: every op's ts is 1 + 1000 x its start in the op dump, its dur 1000 x
# its length and its slack_us 1000 x its slack, as decimals (1.001 units is 1001 us, not the
# 1000.9999999999999 that the double of 1.001 x 1000 is), and with three chunks (a tick rate
# of thirds) the double nearest the exact value.
if command -v python3 >/dev/null 2>&1; then
	for args in "-s zbh1 -p 3 -m 5 --tf=1.001 --tb=2.003 --tw=0.7 --tcomm=0.013" \
		"-s interleaved -p 2 -v 3 -m 4 --tf=1 --tb=2.5 --tcomm=0.1"; do
		# shellcheck disable=SC2086 # args is words
		ppsim $args --trace="$TMP/exact.json" --dump-ops="$TMP/exact.csv" >/dev/null
		out=$(python3 - "$TMP/exact.json" "$TMP/exact.csv" <<'EOF'
import csv, json, re, sys
from fractions import Fraction as Q
text = open(sys.argv[1]).read()
ops = {(int(r["device"]), int(r["stage"]), int(r["microbatch"]), r["op"]): r
       for r in csv.DictReader(open(sys.argv[2]))}
def near(x, exact):  # the double nearest the exact value, and its shortest text
    return x == float(exact) and repr(x) == str(json.loads(repr(x)))
bad, n = [], 0
for e in json.loads(text)["traceEvents"]:
    if e.get("ph") != "X" or e.get("tid") != 0 or "kind" not in e.get("args", {}):
        continue
    a = e["args"]
    r = ops[(e["pid"], a["stage"], a["microbatch"], a["kind"])]
    # the dump's shortest decimals give back the ticks' fractions (at most 3 x 10^6 a unit)
    start, end, slack = (Q(r[k]).limit_denominator(3 * 10**6) for k in ("start", "end", "slack"))
    for key, x, exact in (("ts", e["ts"], 1 + 1000 * start), ("dur", e["dur"], 1000 * (end - start)),
                          ("slack_us", a["slack_us"], 1000 * slack)):
        n += 1
        if not near(float(x), exact):
            bad.append(f"{e['name']} {key} {x}, exact {float(exact)!r}")
# and no timestamp in the file carries a double's rounding
bad += re.findall(r'"(?:ts|dur|slack_us)":[0-9]*\.[0-9]*(?:999999|000001)[0-9]*', text)[:3]
print(f"{n} times" if not bad and n > 0 else "; ".join(bad[:3]) or "no ops")
EOF
		)
		case $out in
		*" times") ok ;;
		*) not_ok "trace times of ppsim $args: $out" ;;
		esac
	done
else
	skip "the trace's exact times" "no python3"
fi

# --trace=FILE.gz writes the same trace as gzip, for a run and a serving run; a run that fails
# to write it (past ulimit -f) leaves the file it would replace as it was, and no other.
for args in "-s interleaved -p 4 -v 2 -m 8 --tcomm 0.1" "serve -p 3 --num-requests=5"; do
	# shellcheck disable=SC2086
	ppsim $args --trace="$TMP/gz.json" >/dev/null && ppsim $args --trace="$TMP/gz.json.gz" >/dev/null
	if gzip -t "$TMP/gz.json.gz" && gzip -dc "$TMP/gz.json.gz" | cmp -s - "$TMP/gz.json"; then ok
	else not_ok "--trace=FILE.gz of ppsim $args: not the plain trace, gzipped"; fi
done
mkdir -p "$TMP/gzfail"
echo old >"$TMP/gzfail/t.json.gz"
(
	ulimit -f 8
	ppsim -s interleaved -p 8 -v 4 -m 256 --trace="$TMP/gzfail/t.json.gz" >/dev/null 2>"$TMP/gz.err"
	echo $? >"$TMP/gz.status"
)
if [ "$(cat "$TMP/gz.status")" = 4 ] && [ "$(cat "$TMP/gzfail/t.json.gz")" = old ] &&
	[ "$(ls -A "$TMP/gzfail")" = t.json.gz ]; then ok; else
	not_ok "a failed --trace=FILE.gz: status $(cat "$TMP/gz.status"), $(cat "$TMP/gz.err"), left $(ls -A "$TMP/gzfail")"
fi

# The SVG is well-formed XML with one rectangle per op.
for args in "-s 1f1b -p 4 -m 8" "-s dualpipev -p 4 -m 10" "-s zbv -p 4 -m 8 --tcomm 0.1"; do
	# shellcheck disable=SC2086
	ppsim $args --svg="$TMP/g.svg" -f json >"$TMP/out.json"
	rects=$(grep -c 'class="op"' "$TMP/g.svg")
	# shellcheck disable=SC2086
	want=$(ppsim $args --dump-ops="$TMP/ops.csv" >/dev/null && tail -n +2 "$TMP/ops.csv" | wc -l)
	if xmllint --noout "$TMP/g.svg" 2>"$TMP/xml.err" && [ "$rects" -eq "$want" ]; then
		ok
	else
		not_ok "svg of ppsim $args: $rects op rectangles for $want ops $(cat "$TMP/xml.err")"
	fi
done
ppsim compare --schedules=gpipe,1f1b,interleaved,zbh1 -p 4 -m 8 -v 2 --svg="$TMP/c.svg" >/dev/null
if xmllint --noout "$TMP/c.svg" && [ "$(grep -c 'class="title"' "$TMP/c.svg")" -eq 4 ]; then ok; else
	not_ok "compare --svg: not four well-formed blocks"
fi

# --svg-width sets the drawing's width (run, compare, serve; a config-file key too), and the
# time axis ends at its right margin (30 px); without it the drawing is 1200 px wide.
for args in "-p 4 -m 8 --svg-width=800" "compare --schedules=gpipe,1f1b --svg-width=800" \
	"serve -p 2 --num-requests 8 --svg-width=800"; do
	# shellcheck disable=SC2086
	ppsim $args --svg="$TMP/w.svg" >/dev/null
	if xmllint --noout "$TMP/w.svg" && grep -q '<svg [^>]* width="800" [^>]*viewBox="0 0 800 ' \
		"$TMP/w.svg" && grep -q '<line class="axis" x1="170" y1="[0-9]*" x2="770.00"' "$TMP/w.svg"
	then ok; else not_ok "svg of ppsim $args: not 800 px wide with its axis to 770"; fi
done
echo '{"svg_width": 640}' >"$TMP/w.json"
ppsim -c "$TMP/w.json" --svg="$TMP/w.svg" >/dev/null
if grep -q ' width="640" ' "$TMP/w.svg"; then ok; else not_ok "config svg_width 640: not 640 px wide"; fi
ppsim --svg="$TMP/w.svg" >/dev/null
if grep -q ' width="1200" ' "$TMP/w.svg"; then ok; else not_ok "svg: not 1200 px wide by default"; fi
# Without --svg-width a longer run widens until its ops fit their labels (p = 8, m = 16: all
# 256), up to 2400 px, and no wider however long the run (m = 64, m = 4096: merged where its
# ops are too narrow; issue 41); --svg-width still wins.
ppsim -p 8 -m 16 --svg="$TMP/w.svg" >/dev/null
width=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)".*/\1/p' "$TMP/w.svg")
if [ "$width" -gt 1200 ] && [ "$width" -lt 2400 ] &&
	[ "$(grep -c 'class="label"' "$TMP/w.svg")" -eq 256 ]; then ok; else
	not_ok "svg of p=8 m=16: $width px wide, $(grep -c 'class="label"' "$TMP/w.svg") of 256 ops labelled"
fi
for m in 64 4096; do
	ppsim -p 8 -m $m --svg="$TMP/w.svg" >/dev/null
	width=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)".*/\1/p' "$TMP/w.svg")
	if [ "$width" -eq 2400 ] && xmllint --noout "$TMP/w.svg"; then ok; else
		not_ok "svg of p=8 m=$m: $width px wide, not the 2400 at most of a long run"
	fi
done
ppsim -p 8 -m 2048 --svg-width=900 --svg="$TMP/w.svg" >/dev/null
if grep -q '^<svg [^>]* width="900" ' "$TMP/w.svg"; then ok; else not_ok "--svg-width=900 not kept at m=2048"; fi

# Ops and transfers narrower than a few pixels are merged, so that p = 8, m = 2048 (49152 ops
# with zbh1) is a valid file under 2 MB with a legend of only what it draws.
for args in "-s zbh1" "-s 1f1b" "-s interleaved -v 2"; do
	# shellcheck disable=SC2086
	ppsim $args -p 8 -m 2048 --tcomm 0.1 --svg="$TMP/big.svg" >/dev/null
	size=$(wc -c <"$TMP/big.svg")
	if xmllint --noout "$TMP/big.svg" && [ "$size" -lt 2000000 ] &&
		grep -q 'class="merged' "$TMP/big.svg"; then ok; else
		not_ok "svg of ppsim $args -p 8 -m 2048: $size bytes, or not valid, or nothing merged"
	fi
done
if grep -q '>W weight-gradient' "$TMP/big.svg" || ! grep -q 'lighter: odd chunks' "$TMP/big.svg"; then
	not_ok "interleaved's legend: lists W, or not the odd chunks"
else ok; fi

# Colour: never with NO_COLOR or --color=never, always with --color=always. Without --color,
# colour follows the terminal, so these run ppsim on a pseudo-terminal (script, from the
# essential bsdutils package): coloured there, plain there under NO_COLOR, plain into a pipe.
esc=$(printf '\033')
# on_tty ENV [ARGS]: the timeline on a pseudo-terminal that takes escape sequences (TERM=xterm,
# whatever the TERM the tests run with: none under cron or CI), ENV (assignments or env -u)
# before it
on_tty() {
	script -qec "TERM=xterm $1 ${PPSIM_WRAP:-} '$PPSIM' -p 4 -m 8 --timeline=80 ${2:-}" /dev/null \
		</dev/null
}
if [ "$(script -qec 'test -t 1 && echo tty' /dev/null </dev/null | tr -d '\r')" = tty ]; then
	# each check also sees the timeline, so that a run that printed nothing cannot pass
	tty_shows() { # $1: the timeline has colour (yes/no); then on_tty's arguments
		want=$1
		shift
		on_tty "$@" >"$TMP/tty.out"
		if grep -q "^GPU 3 (stage 3)" "$TMP/tty.out"; then
			if grep -q "$esc\\[34m" "$TMP/tty.out"; then got=yes; else got=no; fi
			[ "$got" = "$want" ]
		else
			false
		fi
	}
	if tty_shows yes "env -u NO_COLOR"; then ok; else not_ok "no colour on a terminal"; fi
	if tty_shows no "NO_COLOR=1"; then ok; else not_ok "NO_COLOR=1 coloured a terminal"; fi
	if tty_shows yes "NO_COLOR="; then ok; else
		not_ok "an empty NO_COLOR turned colour off (no-color.org: only a non-empty value does)"
	fi
	if tty_shows no "env -u NO_COLOR" --color=never; then ok; else
		not_ok "--color=never coloured a terminal"
	fi
else
	skip "colour on a terminal" "no pseudo-terminal here (script, from bsdutils)"
fi
if ppsim -p 4 -m 8 --timeline | grep -q "$esc"; then not_ok "--color=auto coloured a pipe"; else ok; fi
if NO_COLOR=1 ppsim -p 4 -m 8 --timeline | grep -q "$esc"; then not_ok "NO_COLOR=1 coloured"; else ok; fi
if ppsim -p 4 -m 8 --timeline --color=always | grep -q "$esc\\[34m"; then ok; else
	not_ok "--color=always has no escape sequences"
fi
if NO_COLOR=1 ppsim -p 4 -m 8 --timeline --color=always | grep -q "$esc"; then ok; else
	not_ok "--color=always should win over NO_COLOR"
fi

# Output files are all-or-nothing: an unwritable path names itself, exits 4, leaves nothing.
for opt in --trace --svg --export-schedule --dump-ops; do
	fails 4 "cannot write '$TMP/nodir/x'" $opt="$TMP/nodir/x"
done
# a parent that is a regular file cannot be written into, even by root
: >"$TMP/plain"
fails 4 "cannot write '$TMP/plain/t.json': Not a directory" --trace="$TMP/plain/t.json"
mkdir -p "$TMP/ro"
chmod 555 "$TMP/ro"
if [ "$(id -u)" -ne 0 ]; then # root writes anywhere
	fails 4 "cannot write '$TMP/ro/t.json'" --trace="$TMP/ro/t.json"
	if [ -z "$(ls -A "$TMP/ro")" ]; then ok; else not_ok "a failed write left $(ls "$TMP/ro")"; fi
fi

# A write that fails part-way (here at the file-size limit, which binds root too) removes its
# temporary file; and the outputs of one run stand or fall together: the trace that was
# written in full is not left behind when the SVG cannot be written.
mkdir -p "$TMP/big"
(
	trap '' XFSZ
	ulimit -f 8
	ppsim -s interleaved -p 8 -v 4 -m 64 --trace="$TMP/big/t.json" >/dev/null 2>"$TMP/err"
	echo $? >"$TMP/status"
)
if [ "$(cat "$TMP/status")" = 4 ] && grep -q "^ppsim: cannot write '$TMP/big/t.json'" "$TMP/err" &&
	[ -z "$(ls -A "$TMP/big")" ]; then
	ok
else
	not_ok "a trace cut at the size limit: status $(cat "$TMP/status"), $(cat "$TMP/err"), left $(ls "$TMP/big")"
fi
fails 4 "cannot write '$TMP/nodir/x.svg'" --trace="$TMP/big/t.json" --dump-ops="$TMP/big/o.csv" \
	--svg="$TMP/nodir/x.svg"
if [ -z "$(ls -A "$TMP/big")" ]; then ok; else not_ok "a failed run left $(ls "$TMP/big")"; fi
# the same when the failure shows only as the data is flushed: a full disk
fails 4 "cannot write '/dev/full': No space left on device" --dump-ops="$TMP/big/o.csv" \
	--svg=/dev/full
if [ -z "$(ls -A "$TMP/big")" ]; then ok; else not_ok "a run failing on /dev/full left $(ls "$TMP/big")"; fi

# A device is written in place, never replaced by a renamed file: the run fails on /dev/full
# and leaves it a device, and /dev/null takes the trace.
fails 4 "cannot write '/dev/full': No space left on device" --svg=/dev/full
if [ -c /dev/full ] && ppsim -p 4 -m 8 --trace=/dev/null >/dev/null && [ -c /dev/null ]; then
	ok
else
	not_ok "a device target was replaced or refused"
fi
fails 4 "cannot write '$TMP': Is a directory" --svg="$TMP"

# The gallery: the four pictures the README shows are committed PNG files.
for name in gpipe 1f1b interleaved zbh1; do
	png="$ROOT/docs/gallery/$name.png"
	if [ "$(head -c 4 "$png" 2>/dev/null | tail -c 3)" = "PNG" ] &&
		grep -q "docs/gallery/$name.png" "$ROOT/README.md"; then
		ok
	else
		not_ok "gallery: $png missing, not a PNG, or not linked from README.md"
	fi
done

# The committed gallery SVGs are what ppsim draws now (make gallery renews them).
if (cd "$ROOT" && sh build-aux/gallery "$PPSIM" --check); then ok; else
	not_ok "docs/gallery is stale"
fi
