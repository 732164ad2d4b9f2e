# ppsim serve: the bubbles of an inference pipeline, the shipped bursty trace, serving configs
# side by side, and bad request traces.

# serve_json ARGS...: runs ppsim serve ARGS --format=json into $TMP/out.json for expect.
serve_json() {
	RUN="ppsim serve $*"
	if ! ppsim serve "$@" --format=json >"$TMP/out.json" 2>"$TMP/err"; then
		not_ok "$RUN failed: $(head -c 300 "$TMP/err")"
		: >"$TMP/out.json"
	fi
}

# 1. Decode-only load, equal stage costs (every micro-batch takes 1 per stage, whatever its
#    tokens): with p = 4 micro-batches always in flight the steady state has no bubble; with
#    one in flight each stage works one step in four: (p-1)/p.
DECODE="-p 4 --arrival=closed --concurrency=8 --num-requests=8 --prompt=fixed:1
--output=fixed:200 --max-batch=2 --window=50"
# shellcheck disable=SC2086
serve_json $DECODE
for k in 1 2 5 10 15; do expect "windows.$k.bubble_ratio" 0; done
expect micro_batches.count 800
# shellcheck disable=SC2086
serve_json $DECODE --inflight=1
for k in 1 2 5 10 30 60; do expect "windows.$k.bubble_ratio" 3/4; done
expect bubble_ratio 3/4

# 2. One long prompt among decodes. p = 2, a micro-batch takes 1 per token on a stage, one
#    sequence per micro-batch. A and B (prompt 1, output 25) alternate from time 0: stage 0
#    busy [0,10), stage 1 [1,10): window [0,10) idles 1 of 20 device-time: 0.05. L (prompt 10)
#    arrives at 10 and its prefill goes first: stage 0 [10,20), stage 1 [20,30). Stage 1 ends
#    the decode launched at 9 at 11 and then idles: [10,20) is busy 10 + 1 of 20: 0.45.
#    At 20 stage 0 launches A's decode, which waits for stage 1 until 30; with L and A in
#    flight (the limit is p = 2) B waits, so stage 0 works 1 of [20,30) and stage 1 10: 0.45.
#    From 30 the two decodes alternate again with no bubble. L's first token is at 30.
serve_json -p 2 --requests="$ROOT/tests/cli/requests/long-prompt.csv" --step-time=0 \
	--token-time=1 --max-batch=1 --window=10
expect windows.0.bubble_ratio 0.05
expect windows.1.bubble_ratio 0.45
expect windows.2.bubble_ratio 0.45
expect windows.3.bubble_ratio 0
expect windows.1.utilization.0 1
expect windows.1.utilization.1 0.1
expect ttft.max 20

# 2b. The same with p = 4 (tests/cli/requests/long-prompt-p4.csv): A, B, C, D (prompt 1,
#    output 25) at 0 and L (prompt 8, output 1) at 8; 1 per token on a stage, windows of 8,
#    the in-flight limit p = 4. Micro-batch k launched at k (prompts at 0..3, decodes at 4..7)
#    runs on stage s over [k+s, k+s+1]: without L every stage is busy from s on, so windows 1
#    to 4 have utilization 1 everywhere. L arrives at 8 when A's decode leaves stage 3 and,
#    as a prompt, launches first: stage s holds it over [8+8s, 16+8s], window s+1. Behind it
#    A, B and C launch decodes at 16, 17, 18 (with L, four in flight: D waits until L leaves
#    at 40) and queue behind L on every stage, running [8+8s, 11+8s] on stage s >= 1.
#    Per window, busy / 8 on stages 0..3:
#      [8,16)  L on stage 0; the launches of 5, 6, 7 drain: stage 1 runs 7 over [8,9], stage 2
#              6 and 7 over [8,10], stage 3 5, 6, 7 over [8,11]:      1, 1/8, 2/8, 3/8
#      [16,24) L on stage 1; A, B, C decode on stage 0 over [16,19]:  3/8, 1, 0, 0
#      [24,32) L on stage 2; A, B, C on stage 1 over [24,27]:         0, 3/8, 1, 0
#      [32,40) L on stage 3; A, B, C on stage 2 over [32,35]:         0, 0, 3/8, 1
#    so every stage after L's idles where it idled 0 without L: 7/8, 6/8, 5/8 in [8,16), all
#    of [16,24) on stages 2 and 3, all of [24,32) on stage 3. The bubble is 1 - 14/32 =
#    0.5625, then 1 - 11/32 = 0.65625 three times. From 40 D, then A, B, C launch every 1
#    again: [40,48) runs 8, 7 (from 41), 6 (from 42) and 8 (A, B, C [40,43], then on): 29/32.
serve_json -p 4 --requests="$ROOT/tests/cli/requests/long-prompt-p4.csv" --step-time=0 \
	--token-time=1 --max-batch=1 --window=8
k=1
for row in "1 1/8 2/8 3/8" "3/8 1 0 0" "0 3/8 1 0" "0 0 3/8 1"; do
	d=0
	for u in $row; do
		expect "windows.$k.utilization.$d" "$u"
		d=$((d + 1))
	done
	k=$((k + 1))
done
expect windows.1.bubble_ratio 0.5625
for k in 2 3 4; do expect "windows.$k.bubble_ratio" 0.65625; done
expect windows.5.bubble_ratio 3/32
expect windows.6.bubble_ratio 0
expect ttft.max 32
# without L: windows 1 to 4 busy on every stage
sed '$d' "$ROOT/tests/cli/requests/long-prompt-p4.csv" >"$TMP/decodes-p4.csv"
serve_json -p 4 --requests="$TMP/decodes-p4.csv" --step-time=0 --token-time=1 --max-batch=1 \
	--window=8
for k in 1 2 3 4; do expect "windows.$k.bubble_ratio" 0; done

# 3. A hand-timed request: p = 3, prompt 3, output 2, 1 per micro-batch + 1 per token on a
#    stage, 0.5 per hop. The prefill takes 4 a stage: its token at 4+0.5+4+0.5+4 = 13; the
#    decode takes 2 a stage: done at 13+2+0.5+2+0.5+2 = 20. TPOT is 20 - 13 for 1 token.
serve_json -p 3 --num-requests=1 --arrival=closed --concurrency=1 --prompt=fixed:3 \
	--output=fixed:2 --token-time=1 --tcomm=0.5
expect ttft.p50 13
expect tpot.p50 7
expect e2e.p50 20
expect p2p.messages 4
expect micro_batches.count 2

# 4. The shipped bursty trace is what the documented command generates, and chunked prefill
#    beats static batching on it in both bubble ratio and p99 TTFT (numbers pinned for the
#    shipped seed 7; docs/serve.md shows them).
ppsim serve --model=llama3-8b --gpu=h100-sxm -p 4 --arrival=bursty --rate=8 --burst=16 \
	--num-requests=200 --prompt=lognormal:6.5:0.6 --output=uniform:32:256 --seed=7 \
	--export-requests="$TMP/bursty.jsonl" >/dev/null
if cmp -s "$TMP/bursty.jsonl" "$ROOT/examples/serve/bursty.jsonl"; then ok; else
	not_ok "examples/serve/bursty.jsonl is not what its documented command generates"
fi
(cd "$ROOT" && ppsim serve -c examples/serve/static.json --format=json) >"$TMP/static.json"
(cd "$ROOT" && ppsim serve -c examples/serve/chunked.json --format=json) >"$TMP/chunked.json"
RUN="ppsim serve -c examples/serve/static.json"
cp "$TMP/static.json" "$TMP/out.json"
expect bubble_ratio 0.6528322070794843 1e-12
expect ttft.p99 1690.240727 1e-9
RUN="ppsim serve -c examples/serve/chunked.json"
cp "$TMP/chunked.json" "$TMP/out.json"
expect bubble_ratio 0.5912944391322859 1e-12
expect ttft.p99 121.801395 1e-9
if awk -v sb="$("$JGET" "$TMP/static.json" bubble_ratio)" \
	-v cb="$("$JGET" "$TMP/chunked.json" bubble_ratio)" \
	-v st="$("$JGET" "$TMP/static.json" ttft.p99)" \
	-v ct="$("$JGET" "$TMP/chunked.json" ttft.p99)" 'BEGIN { exit !(cb < sb && ct < st) }'; then
	ok
else
	not_ok "chunked prefill should beat static batching in bubble and p99 TTFT"
fi

# 5. Serving configs side by side: colocated (chunked) against disaggregated on the same trace,
#    in every format; a training config does not mix with them.
(cd "$ROOT" && ppsim compare examples/serve/chunked.json examples/serve/disaggregated.json) \
	>"$TMP/cmp.txt" 2>"$TMP/err"
if grep -q '^chunked  *chunked  *4 ' "$TMP/cmp.txt" &&
	grep -q '^disaggregated  *disaggregated  *4 ' "$TMP/cmp.txt" && [ ! -s "$TMP/err" ]; then
	ok
else
	not_ok "compare of serving configs: $(head -c 300 "$TMP/cmp.txt" "$TMP/err")"
fi
(cd "$ROOT" && ppsim compare examples/serve/chunked.json examples/serve/disaggregated.json \
	--format=json) >"$TMP/out.json"
RUN="ppsim compare serving configs --format=json"
expect 0.label chunked
expect 1.report.batching disaggregated
expect 1.report.prefill_stages 2
expect 1.report.kv.transfers 200
if [ "$( (cd "$ROOT" && ppsim compare examples/serve/chunked.json \
	examples/serve/disaggregated.json --format=csv) | wc -l)" -eq 3 ]; then ok; else
	not_ok "compare of serving configs: CSV should be a header and 2 rows"
fi
# (fails counts in this shell: change directory here, and back)
cd "$ROOT" || exit 1
fails 2 "compare like with like" compare examples/serve/chunked.json configs/llama3-8b-h100.json
cd - >/dev/null || exit 1

# 6. Bad request traces name their line and column, exit 3.
table "$ROOT/tests/cli/bad_requests.txt" >"$TMP/bad_requests"
while IFS='|' read -r status file text; do
	file=$(echo "$file" | tr -d ' ')
	text=$(echo "$text" | sed 's/^ *//; s/ *$//')
	fails "$status" "$text" serve --requests="$ROOT/tests/cli/requests/$file"
done <"$TMP/bad_requests"

# 7. --export-requests writes a trace that serves the same run again, closed loop included.
ppsim serve -p 2 --arrival=closed --concurrency=3 --num-requests=12 --prompt=uniform:4:40 \
	--output=uniform:1:9 --token-time=0.1 --export-requests="$TMP/closed.jsonl" \
	--format=json >"$TMP/a.json"
ppsim serve -p 2 --requests="$TMP/closed.jsonl" --token-time=0.1 --format=json >"$TMP/b.json"
for key in makespan bubble_ratio ttft.p99 tpot.p50 e2e.max micro_batches.count; do
	if [ "$("$JGET" "$TMP/a.json" $key)" = "$("$JGET" "$TMP/b.json" $key)" ]; then ok; else
		not_ok "--export-requests: $key differs when the trace is served again"
	fi
done

# 8. The training reporters draw a serving run: a valid Chrome trace and SVG, a timeline.
ppsim serve -p 3 --num-requests=5 --token-time=0.01 --trace="$TMP/serve-trace.json" \
	--svg="$TMP/serve.svg" --timeline=80 >"$TMP/serve.txt"
if "$JGET" "$TMP/serve-trace.json" traceEvents.0 >/dev/null &&
	xmllint --noout "$TMP/serve.svg" && grep -q '^GPU 2 (stage 2) ' "$TMP/serve.txt"; then
	ok
else
	not_ok "serve: trace, SVG or timeline missing"
fi

# 9. Windows are whole ticks: seven 0.3-long micro-batches in 0.3-long windows make exactly
#    seven windows (floating point once made an eighth, empty one with NaN figures).
serve_json -p 1 --requests="$ROOT/tests/cli/requests/seven.csv" --step-time=0.3 --max-batch=1 \
	--window=0.3
expect windows.6.bubble_ratio 0
expect windows.6.batches 1
if "$JGET" "$TMP/out.json" windows.7 >/dev/null 2>&1; then
	not_ok "$RUN: an eighth window"
else
	ok
fi

# 10. The drawings print the report's figures, not the training view's timed from 0: each SVG
#     title (serve --svg, and compare --svg of serving configs) shows the serving makespan
#     (first arrival to the last token) and bubble ratio (first launch to the last exit), and
#     so does the timeline's makespan. The shipped trace's first request arrives at 2411.79 ms,
#     so figures timed from 0 would differ by far more than the title's rounding.
# svg_title_agrees SVG N JSON PREFIX: the Nth title of SVG shows PREFIXmakespan and
# PREFIXbubble_ratio of JSON (the bubble to the title's four decimals).
svg_title_agrees() {
	title=$(grep 'class="title"' "$1" | sed -n "$2p")
	set -- "$(echo "$title" | sed -n 's/.* makespan \([^ ]*\) .* bubble_ratio \([^<]*\)<.*/\1 \2/p')" \
		"$("$JGET" "$3" "${4}makespan")" "$("$JGET" "$3" "${4}bubble_ratio")" "$title"
	if [ -n "$1" ] && awk -v t="$1" -v m="$2" -v b="$3" 'BEGIN { split(t, f, " ")
		dm = f[1] - m; db = f[2] - b; if (dm < 0) dm = -dm; if (db < 0) db = -db
		exit !(dm <= 1e-6 && db <= 5e-5) }'; then
		ok
	else
		not_ok "$RUN: SVG title '$4' does not show makespan $2 and bubble_ratio $3"
	fi
}
RUN="ppsim serve -c examples/serve/chunked.json --svg"
(cd "$ROOT" && ppsim serve -c examples/serve/chunked.json --svg="$TMP/chunked.svg" \
	--format=json) >"$TMP/chunked-report.json"
svg_title_agrees "$TMP/chunked.svg" 1 "$TMP/chunked-report.json" ""
(cd "$ROOT" && ppsim serve -c examples/serve/chunked.json --timeline=100) >"$TMP/chunked.txt"
if grep -q "  makespan $("$JGET" "$TMP/chunked-report.json" makespan) ms  " \
	"$TMP/chunked.txt"; then ok; else
	not_ok "$RUN: the timeline does not print the report's makespan"
fi
RUN="ppsim compare examples/serve/chunked.json examples/serve/disaggregated.json --svg"
(cd "$ROOT" && ppsim compare examples/serve/chunked.json examples/serve/disaggregated.json \
	--svg="$TMP/cmp.svg" --format=json) >"$TMP/cmp.json"
svg_title_agrees "$TMP/cmp.svg" 1 "$TMP/cmp.json" 0.report.
svg_title_agrees "$TMP/cmp.svg" 2 "$TMP/cmp.json" 1.report.
# serving runs forwards only: the timeline's legend names no backward
if grep -q "^F forward  \. idle$" "$TMP/chunked.txt" && ! grep -q "backward" "$TMP/chunked.txt"; then
	ok
else
	not_ok "ppsim serve --timeline: the legend names a backward: $(tail -1 "$TMP/chunked.txt")"
fi

# KV-cache memory per device: Llama-3 8B (32 layers, 8 KV heads of 128) in 4 stages of 8 layers
# holds 2 x 8 x 8 x 128 x 2 B = 32768 B a token on each GPU; at the pipeline's peak it holds
# peak x that, and the capacity in tokens is what the fullest GPU's memory (80 GB less the
# default reserve of 3 GB and 10%, 69 GB, less its stage's weights) holds: the least of
# floor((capacity - weights) / 32768) over the devices.
RUN="ppsim serve -c examples/serve/chunked.json"
(cd "$ROOT" && ppsim serve -c examples/serve/chunked.json --format=json) >"$TMP/out.json"
peak=$("$JGET" "$TMP/out.json" kv.peak)
capacity=$("$JGET" "$TMP/out.json" kv.capacity)
fewest=""
for d in 0 1 2 3; do
	expect "devices.$d.kv_token_bytes" 32768
	expect "devices.$d.kv_peak_bytes" "$((peak * 32768))"
	expect "devices.$d.capacity_bytes" 69e9
	expect "devices.$d.pipeline" decode
	w=$("$JGET" "$TMP/out.json" "devices.$d.weight_bytes")
	room=$(awk -v w="$w" 'BEGIN { printf "%d", (69e9 - w) / 32768 }')
	if [ -z "$fewest" ] || [ "$room" -lt "$fewest" ]; then fewest=$room; fi
done
if [ "$capacity" = "$fewest" ]; then ok; else
	not_ok "$RUN: kv.capacity $capacity tokens, the fullest GPU holds $fewest"
fi
# without a model a device's memory is unknown
run_json serve -p 2 --requests=tests/cli/requests/long-prompt.csv --step-time=1 --token-time=0.1
RUN="ppsim serve (explicit costs)"
expect devices.0.kv_peak_bytes null
expect devices.0.pipeline decode

# Requests arriving late (at 1234567 t): the timeline's scale counts from its origin, which the
# header names, instead of labels like 1.23457e+06 that run together and repeat.
(cd "$ROOT" && ppsim serve -p 4 --requests=tests/cli/requests/late.csv --step-time=1 \
	--token-time=0.01 --timeline=100) >"$TMP/late.txt"
if grep -q "one column = 2.5 t, the scale from 1234565$" "$TMP/late.txt" &&
	grep -q "^                0         25        50        75        100 " "$TMP/late.txt" &&
	! grep -q "e+0" "$TMP/late.txt"; then
	ok
else
	not_ok "ppsim serve --timeline of late requests: $(grep -A1 'one column' "$TMP/late.txt")"
fi

# a serving run longer than a second shows its progress on a terminal's stderr; --quiet, none
progress_on_pty serve 'serve: [0-9]* of 20000 requests, [0-9]*%, about [0-9]* s left' \
	'serve  *continuous batching' serve --num-requests=20000 --model=llama3-8b -p 4 --rate=50 \
	--timeline=0

# A latency no request has (tpot, when no request has more than one output token) is still an
# object in the JSON report, its n 0 and its figures null, as serve.md's table says
ppsim serve -p 2 --num-requests=7 --output=fixed:1 -f json >"$TMP/tpot0.json"
if [ "$("$JGET" "$TMP/tpot0.json" tpot.n)" = 0 ] && [ "$("$JGET" "$TMP/tpot0.json" tpot.p99)" = null ] &&
	[ "$("$JGET" "$TMP/tpot0.json" ttft.n)" = 7 ]; then
	ok
else
	not_ok "serve JSON: tpot of no request: $(tr -d '\n' <"$TMP/tpot0.json" | grep -o '"tpot":[^}]*')"
fi

# Equal latencies have their value as mean, never above the max (the mean was summed as sums of
# x/n: 0.10000000000000002 over seven 0.1's).
ppsim serve -p 1 --step-time=0.1 --requests="$ROOT/tests/cli/requests/seven.csv" -f json >"$TMP/out.json"
RUN="seven requests of equal latency"
expect ttft.mean 0.1
expect ttft.max 0.1
expect e2e.mean 0.1

# A GPU holds one KV head whole when tp is above the KV heads (vLLM and TensorRT-LLM replicate
# it): Llama-3 8B with one KV head on tp 8 holds as many KV bytes a token a GPU as with 8 heads
# (2 x 32 layers x 128 x 2 bytes), not an eighth of a head.
printf 'arrival,prompt,output\n0,1,2\n' >"$TMP/one.csv"
for heads in 1 8; do
	ppsim serve --model=llama3-8b --gpu=h100-sxm -p 1 --tp=8 --kv-heads=$heads \
		--requests="$TMP/one.csv" -f json | grep -o '"kv_token_bytes":[0-9.e+]*' | head -1
done >"$TMP/kvb"
if [ "$(sort -u "$TMP/kvb")" = '"kv_token_bytes":16384' ]; then ok; else
	not_ok "KV bytes a token with tp above the KV heads: $(tr '\n' ' ' <"$TMP/kvb")"
fi

# A token's cache is its keys and values each at its own width (L x kv_heads x (head + value
# head) x 2 bytes: 32 x 8 x (128 + 64) x 2 = 98304 with --v-head-dim=64), and with latent
# attention the compressed latent and the rotary key, whole (32 x (512 + 64) x 2 = 36864); both
# were priced as two key widths
for a in "--v-head-dim=64:98304" "--kv-lora-rank=512 --rope-dim=64:36864"; do
	# shellcheck disable=SC2086 # the options are words
	got=$(ppsim serve --model=llama3-8b --gpu=h100-sxm -p 1 --requests="$TMP/one.csv" ${a%:*} \
		-f json | "$JGET" - devices.0.kv_token_bytes)
	if [ "$got" = "${a##*:}" ]; then ok; else
		not_ok "serve ${a%:*}: kv_token_bytes $got, expected ${a##*:}"
	fi
done

# ... and so are the key/value projections of that head: tp 16 over 8 KV heads holds one head's
# W_k and W_v whole, 32 x 4096 x 256 x (1 - 1/2) parameters above an even sixteenth, 2 bytes each
w8=$(ppsim serve --model=llama3-8b --gpu=h100-sxm --gpus-per-node=16 -p 1 --tp=8 \
	--requests="$TMP/one.csv" -f json | "$JGET" - devices.0.weight_bytes)
w16=$(ppsim serve --model=llama3-8b --gpu=h100-sxm --gpus-per-node=16 -p 1 --tp=16 \
	--requests="$TMP/one.csv" -f json | "$JGET" - devices.0.weight_bytes)
if [ -n "$w8" ] && awk -v a="$w8" -v b="$w16" 'BEGIN { exit !(b - a / 2 == 32 * 4096 * 256 / 2 * 2) }'
then ok; else
	not_ok "replicated KV projections: weights $w8 at tp 8, $w16 at tp 16"
fi

# A --kv-tokens beyond what the GPUs hold is flagged: fits false on every device, the text's
# memory line (it reported 655 GB of KV cache against 69 GB and nothing else).
ppsim serve --model=llama3-8b --gpu=h100-sxm -p 4 --kv-tokens=100000000 --num-requests=4 \
	--prompt=fixed:1000000 --output=fixed:2 -f json >"$TMP/out.json"
RUN="--kv-tokens beyond the GPU"
expect devices.0.fits false
ppsim serve --model=llama3-8b --gpu=h100-sxm -p 4 --num-requests=4 -f json >"$TMP/out.json"
RUN="the default KV capacity"
expect devices.0.fits true
if ppsim serve --model=llama3-8b --gpu=h100-sxm -p 4 --kv-tokens=100000000 --num-requests=4 \
	--prompt=fixed:1000000 --output=fixed:2 | grep -q '^memory  *OUT OF MEMORY on some device'; then
	ok
else
	not_ok "the serving text report should say OUT OF MEMORY"
fi

# Disaggregated: a KV cache that waits for the decode pipeline's room is a wait for KV-cache room
# (two requests of 4 + 3 tokens into a decode cache of 8: the second waits).
printf '{"arrival":0,"prompt":4,"output":3}\n{"arrival":0,"prompt":4,"output":3}\n' >"$TMP/kv.jsonl"
ppsim serve -p 2 --requests="$TMP/kv.jsonl" --kv-tokens=8 --batching=disaggregated -f json >"$TMP/out.json"
RUN="a decode cache too small for two"
expect kv.waits 1

# Every time of the report is converted from ticks once: the span from the first launch to the
# last exit was a difference of two converted times (6933.647411999999 beside a makespan of
# 6933.647412 when the first request arrives as its batch launches).
ppsim serve --model=llama3-8b --gpu=h100-sxm -p 4 --num-requests=30 --rate=5 -f json >"$TMP/out.json"
if [ "$("$JGET" "$TMP/out.json" span)" = "$("$JGET" "$TMP/out.json" makespan)" ] &&
	[ "$("$JGET" "$TMP/out.json" span)" = 6933.647412 ]; then ok; else
	not_ok "serve's span should be written from ticks: $("$JGET" "$TMP/out.json" span), makespan $("$JGET" "$TMP/out.json" makespan)"
fi

# latent attention at tp = 8: a decode step reads the weights each GPU holds, its down
# projections whole on every rank (28,672,000 parameters a layer, not 26,607,616): 0.597983 ms
# of weights and cache and 2.690549 ms of all-reduces
printf 'arrival,prompt,output\n0,1000,3\n' >"$TMP/mla.csv"
ppsim serve --model=llama3-8b --gpu=h100-sxm -p 1 --tp=8 --kv-lora-rank=512 --rope-dim=64 \
	--requests="$TMP/mla.csv" --timeline=0 --dump-ops="$TMP/mla-ops.csv" >/dev/null
d=$(awk -F, 'NR == 3 { printf "%.6f", $7 - $6 }' "$TMP/mla-ops.csv")
[ "$d" = 3.288532 ] && ok || not_ok "an MLA decode step at tp = 8 takes $d ms, not 3.288532"

# token counts written as decimals that are whole by their exact value run
ppsim serve --model=llama3-8b --requests="$ROOT/tests/cli/requests/whole-decimals.csv" -f json >/dev/null 2>"$TMP/err" && ok ||
	not_ok "whole token counts written as decimals: $(cat "$TMP/err")"
