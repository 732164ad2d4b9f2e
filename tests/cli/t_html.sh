# The HTML report (--html): a self-contained page, checked in a real headless Chromium driven
# through its DevTools protocol (tests/tools/browser.mjs): it loads with no console error,
# reports the run's op count, merges ops narrower than a pixel, shows single ops when zoomed
# in with the wheel, shows an op's details on hover, and looks like its reference screenshot.

# count_ops ARGS...: the ops of ppsim ARGS (rows of --dump-ops), or of compare ARGS.
count_ops() {
	"$PPSIM" "$@" --dump-ops="$TMP/ops.csv" >/dev/null && tail -n +2 "$TMP/ops.csv" | wc -l |
		tr -d ' '
}

# 1. Offline and self-contained: no address to fetch, no external script, style or image.
ppsim -s interleaved -p 4 -v 2 -m 8 --tcomm 0.2 --html="$TMP/r.html" >/dev/null
if [ -s "$TMP/r.html" ] && ! grep -Eq '(src|href)="|https?://|@import|url\(' "$TMP/r.html"; then
	ok
else
	not_ok "--html: empty, or refers to something outside the file"
fi
# a name that would end the data's script element stays inside its string
mkdir -p "$TMP/x</script>"
printf '{"p": 2, "m": 2}\n' >"$TMP/x</script>/c.json"
ppsim compare "$TMP/x</script>/c.json" --html="$TMP/n.html" >/dev/null
if [ "$(grep -c '</script>' "$TMP/n.html")" -eq 2 ]; then ok; else
	not_ok "--html: a config name holding </script> ends the data early"
fi
# the page's data holds every op: 6 numbers each
ppsim -p 4 -m 8 --html="$TMP/d.html" >/dev/null
if grep -q '"nops":64,' "$TMP/d.html"; then ok; else
	not_ok "--html: the data does not say 64 ops"
fi
# with activation offload (issue 39) the page holds the copies, whose memory lanes section 3
# checks; a page without offload has none
ppsim --model=llama3-8b --gpu=a100-80g --seq=4096 -p 4 -m 8 --mbs=4 --gpus=4 --offload=0.5 \
	--host-bandwidth=100 --html="$TMP/offload.html" --format=json >"$TMP/offload.json"
if grep -q '^"copies":\[0,' "$TMP/offload.html" && grep -q '"actBytes":' "$TMP/offload.html" &&
	grep -q '"host_bytes":' "$TMP/offload.html" && ! grep -q '"copies"' "$TMP/d.html"; then
	ok
else
	not_ok "--html: an offload run's page has no copies, or a run without offload has some"
fi
# serving runs and sweeps write whole pages too (their scripts closed, their data complete)
ppsim serve -p 2 --num-requests 8 --html="$TMP/s.html" >/dev/null
ppsim sweep --schedules=1f1b,zbh1 -p 2,4 -m 4 --html="$TMP/w.html" >/dev/null
if [ "$(grep -c '</script>' "$TMP/s.html")" -eq 2 ] && grep -q '"requests":\[' "$TMP/s.html" &&
	[ "$(grep -c '"record":{"schema_version":1,"index"' "$TMP/w.html")" -eq 4 ] && tail -1 "$TMP/w.html" | grep -q '</html>'; then
	ok
else
	not_ok "serve --html or sweep --html: the page is incomplete"
fi
# a failed run writes no report and leaves an existing file as it was
echo keep >"$TMP/keep.html"
if ppsim -p 4 -m 8 -s 1f1b -v 3 --html="$TMP/keep.html" >/dev/null 2>&1 ||
	[ "$(cat "$TMP/keep.html")" != keep ]; then
	not_ok "--html: a refused run replaced the existing file"
else
	ok
fi

# 2. In the browser: the pages are the same under a sanitizer or valgrind, so their browser
#    checks run in the plain make test only.
if [ -n "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ]; then
	elsewhere "the HTML report in Chromium" "a sanitizer or valgrind changes nothing in the pages"
	return 0 2>/dev/null || exit 0
fi
if [ -n "${PPSIM_NO_BROWSER:-}" ]; then
	skip "the HTML report in Chromium" "PPSIM_NO_BROWSER is set"
	return 0 2>/dev/null || exit 0
fi
if ! command -v chromium >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	skip "the HTML report in Chromium" "no chromium or node: build-aux/ensure-browser installs them"
	return 0 2>/dev/null || exit 0
fi
# the browser's temporary folder is TMP, where it must leave nothing (browser.mjs removes its
# chromium-* profile, and Chromium's org.chromium.Chromium.* folders go in it)
browse() {
	TMPDIR="$TMP" node "$ROOT/tests/tools/browser.mjs" chromium check "$@" >"$TMP/browser.out" 2>&1
	status=$?
	if [ $status -eq 0 ]; then ok; else
		not_ok "browser check of $1: $(grep -v '^ok' "$TMP/browser.out" | head -c 1500)"
	fi
}
ref="$ROOT/tests/golden/html-1f1b-p4-m8.png"
ppsim -p 4 -m 8 --tcomm 0.25 --html="$TMP/small.html" --dump-ops="$TMP/small.csv" >/dev/null
if [ -n "${UPDATE_GOLDEN:-}" ]; then
	TMPDIR="$TMP" node "$ROOT/tests/tools/browser.mjs" chromium check "$TMP/small.html" 64 \
		shot="$ref" >/dev/null
fi
browse "$TMP/small.html" 64 ops="$TMP/small.csv" ref="$ref" shot="$TMP/small.png"
# times of a run with chunks, overlapped pairs and priced messages
for args in "-s interleaved -v 2 -p 4 -m 8 --tcomm 0.3" "-s dualpipev -p 4 -m 10 --tcomm 0.1" \
	"-s zbv -p 4 -m 8 --tcomm 0.2 --duplex=half"; do
	# shellcheck disable=SC2086
	ppsim $args --html="$TMP/t.html" --dump-ops="$TMP/t.csv" >/dev/null
	browse "$TMP/t.html" "$(tail -n +2 "$TMP/t.csv" | wc -l | tr -d ' ')" ops="$TMP/t.csv"
done
# a large run: merged into pixel columns, single ops when zoomed in
"$PPSIM" -s zbh1 -p 8 -m 2048 --html="$TMP/big.html" >/dev/null
browse "$TMP/big.html" "$(count_ops -s zbh1 -p 8 -m 2048)" zoom
# several schedules on one axis, and a serving run
ppsim compare --schedules=1f1b,zbh1,interleaved,dualpipev -p 4 -m 8 --html="$TMP/cmp.html" >/dev/null
n=0
for s in 1f1b zbh1 interleaved dualpipev; do
	n=$((n + $(count_ops -s "$s" -p 4 -m 8)))
done
browse "$TMP/cmp.html" "$n"
ppsim serve -p 2 --num-requests 8 --html="$TMP/serve.html" --dump-ops="$TMP/sops.csv" >/dev/null
browse "$TMP/serve.html" "$(tail -n +2 "$TMP/sops.csv" | wc -l | tr -d ' ')" ops="$TMP/sops.csv" \
	requests=8
# a sweep: a heatmap of its points
ppsim sweep --schedules=1f1b,interleaved,zbh1 -p 2,4 -m 8,16 --html="$TMP/sweep.html" >/dev/null
browse "$TMP/sweep.html" 12
# Chromium's profile and temporary folders are gone after the checks (it left its
# org.chromium.Chromium.* folders in /tmp after every run)
left=$(cd "$TMP" && ls -d chromium-* org.chromium.* 2>/dev/null | head -5 | tr '\n' ' ')
if [ -z "$left" ]; then ok; else not_ok "the browser checks left ${left}in TMPDIR"; fi

# 3. At scale and for everyone (issue 41), in Chromium driven by puppeteer-core with axe-core
#    (tests/tools/html-check.mjs; build-aux/ensure-puppeteer installs both into the build
#    directory, once): each lane's pixels drawn busy are its device's busy share in view within
#    one point at every zoom, at p = 16, m = 512 and p = 64, m = 4096, and on runs with
#    communication streams (busy for compute alone, the exposed communication inside an op
#    hatched, as much as it takes, and at the fitted view the run's own busy); zoom and pan redraw
#    times (printed; the goal is 16 ms a frame); the wheel scrolls, Ctrl+wheel, W/S/A/D and
#    touch zoom and pan, the axis and bubble strip stay on screen; every op is reachable from
#    the keyboard with its details in a live region; axe-core finds no serious violation; with
#    activation offload the memory lanes peak at the report's bytes on the GPU and on the host.
NPM_DIR=$(dirname "$PPSIM")/npm-browser
if ! why=$(sh "$ROOT/build-aux/ensure-puppeteer" "$NPM_DIR"); then
	skip "the HTML report at scale and for everyone (puppeteer-core, axe-core)" "$why"
	return 0 2>/dev/null || exit 0
fi
ppsim -p 16 -m 512 --tcomm 0.1 --html="$TMP/p16.html" >/dev/null
ppsim -p 64 -m 4096 --tcomm 0.1 --html="$TMP/p64.html" --dump-ops="$TMP/p64.csv" >/dev/null
# a run of more than 2^18 ops or messages sends its arrays in pieces of 2^18, a JSON data block
# each, none in a script (a browser compiles no script of more than 2^29 characters, and keeps
# a compiled script's literals): every op's times and slack and every message come back exactly
blocks=$(grep -c '^<script type="application/json" data-ppsim-run="0" data-ppsim="\(ops\|msgs\|slack\)">\[' "$TMP/p64.html")
if [ "$blocks" -eq 6 ] && grep -q '^"ops":\[\],$' "$TMP/p64.html"; then ok; else
	not_ok "--html: a run of 524288 ops does not come in 6 data blocks of 2^18 ops, messages and slacks ($blocks)"
fi
browse "$TMP/p64.html" 524288 ops="$TMP/p64.csv"
ppsim -s dualpipev -p 2 -m 6 --tcomm 0.1 --html="$TMP/pairs.html" >/dev/null
ppsim --model=llama3-8b -p 4 -m 8 --tp=2 --cp=2 --dp=2 --html="$TMP/streams.html" >/dev/null
# more runs with communication streams, whose lanes are busy for their ops' compute alone, the
# rest of the ops' spans hatched: data parallelism with its gathers and buckets overlapped,
# tensor parallelism in bulk, and experts (all-to-all) in DualPipeV's overlapped pairs
ppsim --model=llama3-8b -p 4 -m 8 --dp 8 --distributed-optimizer=yes --overlap-grad-reduce=yes \
	--overlap-param-gather=yes --html="$TMP/dp.html" >/dev/null
ppsim --model=llama3-8b -p 4 -m 8 --tp 4 --tp-overlap=bulk --html="$TMP/tp.html" >/dev/null
ppsim --model=qwen3-30b-a3b -s dualpipev -p 4 -m 8 --tp 2 --ep 4 --dp 2 --gpus-per-node 8 \
	--html="$TMP/moe.html" >/dev/null
# (small.html, serve.html and sweep.html are the pages of section 2, offload.html of section 1)
for page in small serve sweep; do
	[ -s "$TMP/$page.html" ] || ppsim -p 4 -m 8 --html="$TMP/$page.html" >/dev/null
done
TMPDIR="$TMP" node "$ROOT/tests/tools/html-check.mjs" "$NPM_DIR" "$(command -v chromium)" \
	"$TMP/p16.html:pixels" "$TMP/p64.html:pixels,perf,input" "$TMP/small.html:keys,a11y" \
	"$TMP/pairs.html:pixels,keys" "$TMP/streams.html:pixels,a11y,streams=dp+tp+cp" \
	"$TMP/dp.html:pixels,streams=dp" "$TMP/tp.html:pixels,streams=tp" \
	"$TMP/moe.html:pixels,streams=dp+tp+ep" "$TMP/serve.html:a11y" \
	"$TMP/offload.html:pixels,a11y,memory=$TMP/offload.json" \
	"$TMP/sweep.html:a11y" \
	>"$TMP/check.out" 2>&1
status=$?
grep '^# ' "$TMP/check.out"
n=0
while IFS= read -r line; do
	case $line in
	"ok - "*) ok; n=$((n + 1)) ;;
	"not ok - "*) not_ok "html-check: ${line#not ok - }"; n=$((n + 1)) ;;
	esac
done <"$TMP/check.out"
if [ $status -ne 0 ] && ! grep -q '^not ok' "$TMP/check.out"; then
	not_ok "html-check failed: $(head -c 1500 "$TMP/check.out")"
elif [ $n -lt 44 ]; then
	not_ok "html-check ran $n checks, not all of them: $(tail -c 800 "$TMP/check.out")"
fi

# The page's figures are the report's, to the last digit: a device's idle time from the run's
# ticks (it was makespan - busy in doubles: 9.600000000000001 for 9.6).
ppsim -s gpipe -p 4 -m 8 --tcomm 0.1 --html="$TMP/idle.html" -f json >"$TMP/idle.json"
if python3 - "$TMP/idle.html" "$TMP/idle.json" <<'PY'
import json, sys
h = open(sys.argv[1]).read()
i = h.index("window.PPSIM = ") + 15
page = json.loads(h[i:h.index("</script>", i)].strip().rstrip(";"))
run = json.load(open(sys.argv[2]))
sys.exit([d["idle"] for d in page["runs"][0]["devices"]] != [d["idle"] for d in run["devices"]])
PY
then ok; else not_ok "the HTML page's idle times are not the JSON report's"; fi

# one run's noise samples are captioned with its schedule alone, not compare's row label
ppsim -s dualpipev -p 4 -m 10 --tcomm 0.1 --samples=20 --jitter=lognormal:0.1 --html="$TMP/dpv.html" >/dev/null
if grep -q '<p class="sum">dualpipev: 20 samples (seed' "$TMP/dpv.html"; then ok; else
	not_ok "a run's noise caption: $(grep -o '<p class="sum">[^<]*samples[^<]*' "$TMP/dpv.html")"
fi

# A large run's stream spans are formatted on several threads (--jobs; in chunks, each thread
# starting where its chunk does: a device's first span without its comma): the page holds the
# bytes one thread writes, at 3 threads on this machine's 2 cores too. The run has spans
# enough for six chunks (of their guessed 28 bytes, 2 MB a chunk), goes in pieces, and a
# straggler stretches some ops' pieces.
if [ -n "${PPSIM_WRAP:-}" ]; then
	elsewhere "the large page on 3 threads" "valgrind runs one thread at a time; ASan runs them"
else
	big="-s 1f1b -p 4 -m 70000 --model=llama3-8b --layers=8 --tp=2 --tp-overlap=pipelined --dp=2"
	big="$big --overlap-grad-reduce=yes --straggler=1:1.3"
	# shellcheck disable=SC2086 # big is words
	if ppsim $big --jobs=1 --html="$TMP/one.html" >/dev/null &&
		ppsim $big --jobs=3 --html="$TMP/three.html" >/dev/null &&
		cmp -s "$TMP/one.html" "$TMP/three.html"; then
		ok
	else
		not_ok "the HTML page of a large run with streams on 3 threads is not the one thread's"
	fi
	rm -f "$TMP/one.html" "$TMP/three.html"
fi
