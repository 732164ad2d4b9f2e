# ppsim sweep, advise and breakeven: one record per point, order independent of --jobs,
# shards that concatenate to the whole, ranking, the advice against its own sweep, and the
# break-even rows against the document's inequality.

# field NAME LINE: the value of NAME in one JSON-lines record (numbers and strings, unquoted).
field() {
	printf '%s\n' "$2" | "$JGET" - "$1"
}

# 1. The acceptance grid: 3 x 5 x 3 x 4 = 180 points, numbered in order, each ok or skipped.
GRID="-p 2,4,8 -m 4:64:x2 -v 1,2,4 --schedules=gpipe,1f1b,interleaved,zbh1"
# shellcheck disable=SC2086 # GRID is words
ppsim sweep $GRID --format=jsonl >"$TMP/grid.jsonl" 2>"$TMP/err"
if [ "$(wc -l <"$TMP/grid.jsonl")" -eq 180 ] && [ ! -s "$TMP/err" ] &&
	awk '{ if (index($0, "{\"schema_version\":1,\"index\":" (NR - 1) ",") != 1) exit 1 }' \
		"$TMP/grid.jsonl"; then
	ok
else
	not_ok "sweep grid: expected records 0..179 in order: $(head -c 200 "$TMP/err")"
fi
# gpipe, 1f1b and zbh1 take v = 1 only (3 x 5 x 3 = 45), interleaved v >= 2 (3 x 5 x 2 = 30)
nok=$(grep -c '"status":"ok"' "$TMP/grid.jsonl")
nskip=$(grep -c '"status":"skipped"' "$TMP/grid.jsonl")
if [ "$nok" -eq 75 ] && [ "$nskip" -eq 105 ] &&
	[ "$(grep '"status":"ok"' "$TMP/grid.jsonl" | grep -c '"reason":null}$')" -eq 75 ] &&
	[ "$(grep '"status":"skipped"' "$TMP/grid.jsonl" | grep -c '"makespan":null')" -eq 105 ]; then
	ok
else
	not_ok "sweep grid: $nok ok and $nskip skipped records, expected 75 and 105"
fi
# every 7th point agrees with `ppsim run`: ok runs with the same makespan, skipped fails with
# the reason as its message
awk 'NR % 7 == 1' "$TMP/grid.jsonl" >"$TMP/sample.jsonl"
while IFS= read -r rec; do
	s=$(field schedule "$rec") p=$(field p "$rec") v=$(field v "$rec") m=$(field m "$rec")
	if ppsim -s "$s" -p "$p" -v "$v" -m "$m" --format=json >"$TMP/out.json" 2>"$TMP/err"; then
		if [ "$(field status "$rec")" = ok ] &&
			[ "$("$JGET" "$TMP/out.json" makespan)" = "$(field makespan "$rec")" ]; then
			ok
		else
			not_ok "sweep record $rec disagrees with a run that succeeded"
		fi
	else
		reason=$(field reason "$rec")
		case $(cat "$TMP/err") in
		*"$reason"*) ok ;;
		*) not_ok "sweep: skipped for '$reason', the run says '$(cat "$TMP/err")'" ;;
		esac
	fi
done <"$TMP/sample.jsonl"

# A sweep's one value of --stage-scale or --stage-offload is the run's to the last digit, also
# for a list of 64 factors (a sweep took them as "%g" of each, 1.234567 as 1.23457, and cut a
# long list at 256 bytes)
long=$(awk 'BEGIN { for (i = 0; i < 64; i++) printf "%s%.7f", i ? "," : "", 1 + i / 1000 + 1e-7 }')
for args in "-p 4 -m 8 --stage-scale=1,1.5,1.234567,1" "-p 64 -m 64 --stage-scale=$long" \
	"--model=llama3-8b --gpu=h100-sxm -p 2 --host-bandwidth=1 --stage-offload=0.1234567,0.7654321"; do
	# shellcheck disable=SC2086 # args is words
	ppsim $args -f json >"$TMP/scaled.json" &&
		ppsim sweep $args -f jsonl --quiet >"$TMP/scaled.jsonl"
	rec=$(cat "$TMP/scaled.jsonl")
	if [ "$(field status "$rec")" = ok ] &&
		[ "$(field makespan "$rec")" = "$("$JGET" "$TMP/scaled.json" makespan)" ] &&
		case $args in
		--model*) [ "$(field step_time "$rec")" = "$("$JGET" "$TMP/scaled.json" step_time)" ] ;;
		esac; then ok; else
		not_ok "sweep ${args%%--stage*}--stage-scale: $(head -c 300 "$TMP/scaled.jsonl"), the run's makespan $("$JGET" "$TMP/scaled.json" makespan)"
	fi
done

# 2. The same bytes for any --jobs; shards concatenate to the whole stream (JSON lines: cat;
#    CSV: keep the first header), as docs/search.md says.
# shellcheck disable=SC2086
ppsim sweep $GRID --format=jsonl --jobs=1 >"$TMP/j1.jsonl"
# shellcheck disable=SC2086
ppsim sweep $GRID --format=jsonl --jobs=2 >"$TMP/j2.jsonl"
# shellcheck disable=SC2086
ppsim sweep $GRID --format=jsonl --jobs=5 >"$TMP/j5.jsonl"
if cmp -s "$TMP/j1.jsonl" "$TMP/j2.jsonl" && cmp -s "$TMP/j1.jsonl" "$TMP/j5.jsonl" &&
	cmp -s "$TMP/j1.jsonl" "$TMP/grid.jsonl"; then ok; else
	not_ok "sweep: --jobs 1, 2 and 5 write different records"
fi
# shellcheck disable=SC2086
if [ "$(ppsim sweep $GRID --jobs=1)" = "$(ppsim sweep $GRID --jobs=2)" ]; then ok; else
	not_ok "sweep: the ranked table depends on --jobs"
fi
for k in 1 2 3; do
	# shellcheck disable=SC2086
	ppsim sweep $GRID --format=jsonl --shard=$k/3 --jobs=2 >"$TMP/shard-$k.jsonl"
	# shellcheck disable=SC2086
	ppsim sweep $GRID --format=csv --shard=$k/3 >"$TMP/shard-$k.csv"
done
# shellcheck disable=SC2086
ppsim sweep $GRID --format=csv >"$TMP/grid.csv"
if cat "$TMP"/shard-1.jsonl "$TMP"/shard-2.jsonl "$TMP"/shard-3.jsonl | cmp -s - "$TMP/grid.jsonl" &&
	awk 'FNR > 1 || NR == 1' "$TMP"/shard-1.csv "$TMP"/shard-2.csv "$TMP"/shard-3.csv |
	cmp -s - "$TMP/grid.csv" && [ -s "$TMP/shard-2.jsonl" ]; then
	ok
else
	not_ok "sweep: shards 1/3, 2/3, 3/3 do not concatenate to the whole sweep"
fi
# the CSV holds the records of the JSON lines: same count, same statuses in order
if [ "$(awk -F, 'NR > 1 { print $1 "," $2 }' "$TMP/grid.csv")" = \
	"$(sed 's/^{"schema_version":1,"index":\([0-9]*\),"status":"\([a-z]*\)".*/\1,\2/' \
		"$TMP/grid.jsonl")" ]; then
	ok
else
	not_ok "sweep: CSV and JSON lines records differ"
fi
# --records writes the stream while the table goes to stdout
# shellcheck disable=SC2086
ppsim sweep $GRID --records="$TMP/rec.jsonl" --top=3 >"$TMP/table.txt"
# shellcheck disable=SC2086
ppsim sweep $GRID --records="$TMP/rec.csv" >/dev/null
if cmp -s "$TMP/rec.jsonl" "$TMP/grid.jsonl" && cmp -s "$TMP/rec.csv" "$TMP/grid.csv" &&
	[ "$(grep -c '^ *[0-9]  ' "$TMP/table.txt")" -eq 3 ]; then
	ok
else
	not_ok "sweep --records: the file differs from the stream, or the table is not 3 rows"
fi

# 3. The ranking: the table's first row is the ok record of highest utilization (ties: the
#    lower peak activations, then the lower index), found here from the CSV records.
best=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$2 == "ok" { u = $c["utilization"] + 0; a = $c["peak_activations"] + 0
		if (!seen || u > bu || (u == bu && a < ba)) { seen = 1; bu = u; ba = a
			best = $c["schedule"] " " $c["p"] " " $c["v"] " " $c["m"] } }
	END { print best }' "$TMP/grid.csv")
top=$(awk '$1 == "1" { print $2, $3, $4, $5 }' "$TMP/table.txt")
if [ -n "$best" ] && [ "$best" = "$top" ]; then ok; else
	not_ok "sweep: ranked first '$top', the records' best is '$best'"
fi

# 4. advise for Llama-3 70B on 32 A100-80G (8 per node, NVLink inside, InfiniBand HDR across),
#    512 sequences of 2048 tokens: the recommendation fits and is the first point of the
#    equivalent sweep, which the test runs; the runner-up is the second.
ADVISE="--model=llama3-70b --gpu=a100-80g --gpus=32 --gpus-per-node=8 --link=nvlink3
--inter-link=ib-hdr --global-batch=512 --seq=2048"
# shellcheck disable=SC2086
if ppsim advise $ADVISE --format=json >"$TMP/advice.json" 2>"$TMP/err"; then
	ok
else
	not_ok "advise failed: $(head -c 300 "$TMP/err")"
fi
RUN="ppsim advise (Llama-3 70B on 32 A100s)"
cp "$TMP/advice.json" "$TMP/out.json"
expect recommended.status ok
expect recommended.fits true
expect recommended.gpus 32
expect recommended.model llama3-70b
rec_mem=$("$JGET" "$TMP/advice.json" recommended.memory_bytes)
if awk -v m="$rec_mem" 'BEGIN { exit !(m > 0 && m <= 80e9) }'; then ok; else
	not_ok "advise: recommended memory $rec_mem is not within 80 GB"
fi
# global batch = m x mbs x dp
if [ "$(($("$JGET" "$TMP/advice.json" recommended.m) * $("$JGET" "$TMP/advice.json" \
	recommended.mbs) * $("$JGET" "$TMP/advice.json" recommended.dp)))" -eq 512 ]; then
	ok
else
	not_ok "advise: the recommendation's m x mbs x dp is not the global batch"
fi
cmd=$("$JGET" "$TMP/advice.json" sweep)
case $cmd in
"ppsim sweep "*" --fits") ok ;;
*) not_ok "advise: the equivalent sweep is '$cmd'" ;;
esac
# shellcheck disable=SC2086 # the command is plain words
ppsim ${cmd#ppsim } --format=jsonl >"$TMP/advise-sweep.jsonl" 2>"$TMP/err"
# the two best records by the documented rule: tokens/s, then memory, then index; the
# runner-up the first after the best that differs in tp, p, dp, mbs or m, or (p > 1) step time
awk '/"status":"ok"/ {
		n = split("index tokens_per_s memory_bytes tp p dp mbs m step_time", k, " ")
		line = ""
		for (j = 1; j <= n; j++) {
			match($0, "\"" k[j] "\":[^,}]+"); v = substr($0, RSTART + length(k[j]) + 3,
				RLENGTH - length(k[j]) - 3)
			f[k[j]] = v
		}
		print f["tokens_per_s"], -f["memory_bytes"], -f["index"], f["index"], f["tp"], f["p"],
			f["dp"], f["mbs"], f["m"], f["step_time"] }' "$TMP/advise-sweep.jsonl" |
	sort -k1,1gr -k2,2gr -k3,3gr | awk '
		NR == 1 { best = $0; split($0, b, " "); print $4; next }
		{ distinct = $5 != b[5] || $6 != b[6] || $7 != b[7] || $8 != b[8] || $9 != b[9] ||
			($6 > 1 && $10 != b[10]) }
		distinct { print $4; exit }' >"$TMP/best2"
want="$("$JGET" "$TMP/advice.json" recommended.index) $("$JGET" "$TMP/advice.json" runner_up.index)"
if [ "$(tr '\n' ' ' <"$TMP/best2")" = "$want " ]; then ok; else
	not_ok "advise picked points $want, its sweep ranks $(tr '\n' ' ' <"$TMP/best2") first"
fi
if grep -q '"status":"skipped".*"reason":"out of memory: device' "$TMP/advise-sweep.jsonl" &&
	! grep '"status":"ok"' "$TMP/advise-sweep.jsonl" | grep -q '"fits":false'; then
	ok
else
	not_ok "advise's sweep: --fits should skip the points over memory and keep only fitting ones"
fi
# advise weighs each schedule (advise_choices, run.sh); a dense model has no choice of ep
advise_choices schedule "$TMP/advice.json" "$TMP/advise-sweep.jsonl"
if [ "$("$JGET" "$TMP/advice.json" choices.ep)" = null ]; then ok; else
	not_ok "advise of a dense model: choices.ep is $("$JGET" "$TMP/advice.json" choices.ep)"
fi

# ranked by a statistic of noise samples (--rank-by), advise compares its choices by that
# statistic too, as its equivalent sweep ranks (which says --rank-by): none above the
# recommendation, best first
RB="--model=llama3-8b --gpu=h100-sxm --gpus=8 --global-batch=32 --seq=4096 --samples=4
	--jitter=normal:0.2 --rank-by=p99 --jobs=1"
# shellcheck disable=SC2086
ppsim advise $RB --format=json >"$TMP/rb.json"
i=0 prev=0 bad=
while vs=$("$JGET" "$TMP/rb.json" "choices.schedule.$i.vs_recommended" 2>/dev/null); do
	if [ "$("$JGET" "$TMP/rb.json" "choices.schedule.$i.fits")" = true ]; then
		awk -v a="$prev" -v b="$vs" 'BEGIN { exit !(b + 0 <= a + 0) }' || bad="$bad $i"
		prev=$vs
	fi
	i=$((i + 1))
done
case $("$JGET" "$TMP/rb.json" sweep) in
*" --rank-by=p99 --fits")
	if [ -z "$bad" ] && [ "$i" -gt 2 ]; then ok; else
		not_ok "advise --rank-by=p99: choices out of order or above the recommendation at$bad"
	fi
	;;
*) not_ok "advise --rank-by=p99: its sweep does not rank by p99: $("$JGET" "$TMP/rb.json" sweep)" ;;
esac

# --fits skips what is over memory, but a point's run names first what it refuses before it
# runs: a slow link between devices that exchange nothing (devices 0 and 2 of four in a line)
# is named for every point, those whose state alone is over their GPU included, as their runs
# name it.
ppsim sweep --model=llama3-70b --gpu=h100-sxm --gpus=8 -p 4,8 --mbs=2,8 --seq=4096 \
	--global-batch=256 -s 1f1b --fits --straggler=0-2:2 --format=jsonl >"$TMP/slow.jsonl"
if [ "$(grep -c '"reason":"--straggler .0-2:2.: devices 0 and 2 exchange no messages"' "$TMP/slow.jsonl")" -eq 4 ]; then
	ok
else
	not_ok "sweep --fits with a slow link that carries nothing: $(head -c 600 "$TMP/slow.jsonl")"
fi
# the text form names both points and the sweep
# shellcheck disable=SC2086
ppsim advise $ADVISE --jobs=1 >"$TMP/advice.txt"
if grep -q '^recommended ' "$TMP/advice.txt" && grep -q '^runner-up ' "$TMP/advice.txt" &&
	grep -q '^  ppsim sweep ' "$TMP/advice.txt" && grep -q '^interleaving at' "$TMP/advice.txt"; then
	ok
else
	not_ok "advise: the text report lacks its parts"
fi

# advise states the context-parallel degree it picks: a column of its table, its layout line and
# the interleaving's layout, and its choices' JSON (Mixtral on 16 H100s fits only with cp=2)
CPA="--model=mixtral-8x7b --gpu=h100-sxm --gpus=16 --global-batch=32 --seq=8192 --cp=1,2 --tp=2 --mbs=1 -s 1f1b,zbv --quiet"
# shellcheck disable=SC2086
ppsim advise $CPA >"$TMP/cp.txt" 2>"$TMP/err"
# shellcheck disable=SC2086
ppsim advise $CPA -f json >"$TMP/cp.json" 2>>"$TMP/err"
if grep -q '^ *schedule *tp *cp *ep *p *v *dp *mbs *m ' "$TMP/cp.txt" &&
	grep -q '^recommended *zbv *2 *2 *4 *4 *2 *1 *1 *32 ' "$TMP/cp.txt" &&
	grep -q '^  layout      tp=2 keeps tensor parallelism inside a node; cp=2 splits each sequence of 8192 tokens over 2 GPUs; p=4 stages' "$TMP/cp.txt" &&
	grep -q '^interleaving at the recommended layout (tp=2, cp=2, p=4, mbs=1):$' "$TMP/cp.txt" &&
	[ "$("$JGET" "$TMP/cp.json" recommended.cp)" = 2 ] &&
	[ "$("$JGET" "$TMP/cp.json" choices.schedule.0.cp)" = 2 ] &&
	[ "$("$JGET" "$TMP/cp.json" choices.schedule.1.cp)" = 2 ]; then
	ok
else
	not_ok "advise does not state the cp it picks: $(head -c 300 "$TMP/err") $(sed -n '3,5p;/layout/p' "$TMP/cp.txt")"
fi
# with cp searched and 1 picked, the layout line says so; without cp searched it says nothing
if ppsim advise --model=llama3-8b --gpu=h100-sxm --gpus=16 --global-batch=32 --seq=8192 --cp=1,2 \
	--tp=2 --mbs=1 -s 1f1b,zbv --quiet | grep -q '^  layout .*; cp=1 keeps each sequence on one GPU; p=' &&
	! ppsim advise --model=llama3-8b --gpu=h100-sxm --gpus=16 --global-batch=32 --seq=8192 \
		--tp=2 --mbs=1 -s 1f1b,zbv --quiet | grep -q '^  layout .*cp='; then
	ok
else
	not_ok "advise's layout line names cp=1 only when the search has context parallelism"
fi

# advise where the best layout has one stage (Llama-3 8B with its optimizer state sharded fits on
# a GPU): the runner-up is another layout, not the same run under another schedule, and there is
# no interleaving to analyse
ppsim advise --model=llama3-8b --gpu=a100-80g --gpus=8 --global-batch=64 \
	--distributed-optimizer=yes --format=json \
	>"$TMP/advice8b.json" 2>"$TMP/err"
rec="$("$JGET" "$TMP/advice8b.json" recommended.p) $("$JGET" "$TMP/advice8b.json" recommended.tp)"
rec="$rec $("$JGET" "$TMP/advice8b.json" recommended.dp) $("$JGET" "$TMP/advice8b.json" recommended.mbs)"
run="$("$JGET" "$TMP/advice8b.json" runner_up.p) $("$JGET" "$TMP/advice8b.json" runner_up.tp)"
run="$run $("$JGET" "$TMP/advice8b.json" runner_up.dp) $("$JGET" "$TMP/advice8b.json" runner_up.mbs)"
if [ "${rec%% *}" = 1 ] && [ "$rec" != "$run" ] &&
	tr -d '\n ' <"$TMP/advice8b.json" | grep -q '"breakeven":\[\]'; then
	ok
else
	not_ok "advise for llama3-8b on 8 GPUs: recommended (p tp dp mbs) $rec, runner-up $run"
fi
if ppsim advise --model=llama3-8b --gpu=a100-80g --gpus=8 --global-batch=64 \
	--distributed-optimizer=yes |
	grep -q '^interleaving: does not apply, the recommended layout has one pipeline stage$'; then
	ok
else
	not_ok "advise with p=1: the text should say interleaving does not apply"
fi
# at p = 1 dualpipev's overlapped pairs still hide tensor-parallel collectives: 1F1B at the
# same layout, 2.1% behind, is the runner-up (every p = 1 point was once one run with it), and
# the bubble reason says the idle time is communication's, there being no pipeline
ppsim advise --model=llama3-8b --gpu=h100-sxm --gpus=8 --global-batch=64 --memory-reserve=0 \
	--tp=2 -p 1 >"$TMP/p1.txt"
if grep -q '^recommended   dualpipev  ' "$TMP/p1.txt" && grep -q '^runner-up     1f1b  ' "$TMP/p1.txt" &&
	grep -q 'waiting for communication (one stage: no pipeline bubble)' "$TMP/p1.txt"; then
	ok
else
	not_ok "advise at p = 1: $(grep -E '^(recommended|runner-up|  bubble)' "$TMP/p1.txt")"
fi

# 5. breakeven: each row's sides of the inequality follow from its own figures, and the
#    verdicts from comparing them; the baseline row is 1F1B itself.
if ppsim breakeven -c "$ROOT/configs/llama3-70b-a100-nvlink.json" --link=nvlink3,pcie4 \
	--format=json >"$TMP/be.json" 2>"$TMP/err"; then
	ok
else
	not_ok "breakeven failed: $(head -c 300 "$TMP/err")"
fi
rows=0
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
	r=$("$JGET" "$TMP/be.json" "$i") || continue
	rows=$((rows + 1))
	v=$(field v "$r") p=$(field p "$r") m=$(field m "$r") tc=$(field t_comm "$r")
	lhs=$(field message_cost "$r") rhs=$(field bubble_saving "$r")
	t=$(field time "$r") bt=$(field base_time "$r")
	pred=$(field inequality_pays "$r") pays=$(field pays "$r")
	if awk -v v="$v" -v p="$p" -v m="$m" -v tc="$tc" -v l="$lhs" -v r="$rhs" -v t="$t" \
		-v bt="$bt" -v pred="$pred" -v pays="$pays" 'BEGIN {
		d = l - tc * v * (p - 1) * m; if (d < 0) d = -d
		want = ((p - 1) / (m + p - 1) - (p - 1) / (m * v + p - 1)) * bt
		e = r - want; if (e < 0) e = -e
		ok = d <= 1e-9 * (l + 1) && e <= 1e-9 * (r + 1)
		ok = ok && pred == ((l <= r) ? "true" : "false")
		ok = ok && pays == ((1 - t / bt >= 1e-4) ? "true" : "false")
		if (v == 1) ok = ok && t == bt
		exit !ok }'; then
		ok
	else
		not_ok "breakeven row $i does not follow from its figures: $r"
	fi
done
if [ "$rows" -eq 12 ] && [ "$("$JGET" "$TMP/be.json" 0.link)" = nvlink3 ] &&
	[ "$("$JGET" "$TMP/be.json" 6.link)" = pcie4 ] &&
	[ "$("$JGET" "$TMP/be.json" 3.comm)" = blocking ]; then
	ok
else
	not_ok "breakeven: expected 12 rows, links outermost, then comm, then v"
fi
# The base 1F1B time is the plain run's makespan on that link
RUN="ppsim -c llama3-70b-a100-nvlink.json --link=pcie4"
base=$("$JGET" "$TMP/be.json" 6.base_time)
run_json -c "$ROOT/configs/llama3-70b-a100-nvlink.json" --link=pcie4
expect makespan "$base"

# 6. --global-batch sets m from the layout: 512 sequences, mbs 2, dp = 32 / (4 x 8) = 1.
run_json --model=llama3-70b --gpus=32 --tp=8 -p 4 --mbs=2 --global-batch=512
expect m 256
expect model.global_batch 512
expect model.dp 1

# --jobs defaults to the CPUs the process may use: under taskset -c 0 a sweep starts as many
# threads as with --jobs=1 (none, or a sanitizer's own), and --jobs=2 there starts more (so the
# count is seen). Needs strace and taskset.
if [ -n "${PPSIM_WRAP:-}" ]; then
	elsewhere "the --jobs affinity check" "it runs ppsim unwrapped, as make test does"
elif ! command -v strace >/dev/null 2>&1 || ! command -v taskset >/dev/null 2>&1; then
	skip "the --jobs affinity check" "no strace or taskset: make test installs them"
else
	grid="-p 2,4,8,16 -m 8:512:x2 --schedules=1f1b,zbh1,interleaved,zbv -v 2"
	for jobs in default 1 2; do
		opt=""
		[ "$jobs" = default ] || opt="--jobs=$jobs"
		# shellcheck disable=SC2086
		taskset -c 0 strace -f -qq -e trace=clone,clone3 "$PPSIM" sweep $grid $opt >/dev/null \
			2>"$TMP/$jobs.strace"
	done
	one=$(grep -c clone "$TMP/default.strace")
	base=$(grep -c clone "$TMP/1.strace")
	two=$(grep -c clone "$TMP/2.strace")
	if [ "$one" -eq "$base" ] && [ "$two" -gt "$base" ]; then ok; else
		not_ok "sweep under taskset -c 0: $one threads started by default, $base with --jobs=1, $two with --jobs=2"
	fi
fi

# A sweep longer than a second shows its progress on a terminal's stderr, cleared before the
# table; --quiet, or stderr that is not a terminal, shows none.
long="sweep -s 1f1b,zbh1 -p 2,4 -m 4,8 --jobs=1 --top=1"
progress_on_pty sweep 'sweep: [0-9]* of 8 points, [0-9]*%, about [0-9]* s left' \
	'best 1 by utilization' $long
if command -v script >/dev/null 2>&1; then
	script -qec "PPSIM_PROGRESS_DELAY=0 '$PPSIM' $long 2>'$TMP/pty.err'" /dev/null >/dev/null 2>&1
	if [ -s "$TMP/pty.err" ]; then
		not_ok "sweep with stderr to a file wrote: $(head -c 200 "$TMP/pty.err")"
	else
		ok
	fi
else
	skip "progress on a terminal" "no script(1)"
fi

# A model spelled out option by option with its cluster and framework (over 16 options of one
# value each) sweeps its micro-batch size: options of one value do not count toward the 16
# that may vary, and each point equals the run of the same options.
SPELLED="--model=gpt3-175b --layers=8 --hidden=1024 --ffn=4096 --heads=16 --kv-heads=16
	--vocab=32000 --mlp=plain --seq=1024 --gpu=h100-sxm --tp=2 -p 2 --gpus=16
	--global-batch=64 --framework=megatron --distributed-optimizer=yes
	--overlap-grad-reduce=yes --overlap-param-gather=yes --tp-overlap=pipelined"
# shellcheck disable=SC2086 # SPELLED is words
if ppsim sweep $SPELLED --mbs=1,2,4 --format=jsonl >"$TMP/spelled.jsonl" 2>"$TMP/err" &&
	[ "$(grep -c '"status":"ok"' "$TMP/spelled.jsonl")" -eq 3 ]; then
	ok
else
	not_ok "sweep of a spelled-out model: $(head -c 300 "$TMP/err")"
fi
for mbs in 1 4; do
	rec=$(grep "\"mbs\":$mbs," "$TMP/spelled.jsonl")
	# shellcheck disable=SC2086 # SPELLED is words
	ppsim $SPELLED --mbs=$mbs --format=json >"$TMP/spelled.json" 2>"$TMP/err"
	if [ -n "$rec" ] && [ "$("$JGET" "$TMP/spelled.json" makespan)" = "$(field makespan "$rec")" ]; then
		ok
	else
		not_ok "sweep of a spelled-out model, mbs $mbs: the point is not the run"
	fi
done

# Options that take a list of their own (--layers-per-stage, --stage-scale) and --schedule-file
# take one value in a sweep, commas and all (docs/search.md), and each point equals its run.
ppsim -s zbv -p 4 -m 8 --export-schedule="$TMP/zbv.csv" >/dev/null
for one in "--schedule-file=$TMP/zbv.csv --tcomm=0,0.1" "-p 4 -m 8,16 --stage-scale=1,1,1,2" \
	"--model=llama3-8b -p 4 -m 8,16 --layers-per-stage=10,8,8,6"; do
	# shellcheck disable=SC2086 # one is words
	if ppsim sweep $one --format=jsonl >"$TMP/one.jsonl" 2>"$TMP/err" &&
		[ "$(grep -c '"status":"ok"' "$TMP/one.jsonl")" -eq 2 ]; then
		ok
	else
		not_ok "sweep $one: $(head -c 300 "$TMP/err")"
	fi
	# the last point, run alone
	last=$(echo "$one" | sed 's/--tcomm=0,0.1/--tcomm=0.1/; s/-m 8,16/-m 16/')
	# shellcheck disable=SC2086
	ppsim $last --format=json >"$TMP/one.json" 2>"$TMP/err"
	rec=$(tail -n 1 "$TMP/one.jsonl")
	if [ "$("$JGET" "$TMP/one.json" makespan)" = "$(field makespan "$rec")" ]; then
		ok
	else
		not_ok "sweep $one: its last point is not the run: $(field makespan "$rec")"
	fi
done

# A file the sweep cannot read is its input's fault, not a point's: the sweep stops with status 4
# (it once skipped every point and exited 0).
fails 4 "cannot read '$TMP/missing.csv': No such file or directory" sweep -m 8 \
	--schedule-file="$TMP/missing.csv"
fails 4 "cannot read '$TMP': Is a directory" sweep -m 8 --schedule-file="$TMP"
fails 4 "cannot read '$TMP/missing': No such file or directory" sweep -p 2,4 -m 8 --samples=4 \
	--jitter="empirical:$TMP/missing"

# advise's straggler names a GPU, which every layout places in one of its pipeline ranks: no
# layout is dropped for having fewer ranks than the GPU's number, and GPUs of one rank (0 and 1
# at p = 2 on 4 GPUs) give one answer; a GPU outside the cluster is refused
ADV="--model=llama3-8b --layers=8 --gpu=h100-sxm --gpus=4 --global-batch=16 --seq=2048 --quiet -f json"
# shellcheck disable=SC2086
ppsim advise $ADV --straggler=3:1.5 >"$TMP/adv3.json"
# shellcheck disable=SC2086
ppsim advise $ADV >"$TMP/adv.json"
if [ "$("$JGET" "$TMP/adv3.json" simulated)" = "$("$JGET" "$TMP/adv.json" simulated)" ]; then ok; else
	not_ok "advise with a straggler simulates $("$JGET" "$TMP/adv3.json" simulated) points, without $("$JGET" "$TMP/adv.json" simulated)"
fi
# shellcheck disable=SC2086
a=$(ppsim advise $ADV --straggler=0:1.5 | "$JGET" - recommended.step_time)
# shellcheck disable=SC2086
b=$(ppsim advise $ADV --straggler=1:1.5 | "$JGET" - recommended.step_time)
[ "$a" = "$b" ] && ok || not_ok "advise: GPUs 0 and 1 of one rank give $a and $b"
fails 2 "--straggler '9:1.5': names GPU 9: advise's stragglers name GPUs of the cluster, 0 to 3" \
	advise --model=llama3-8b --gpus=4 --global-batch=16 --straggler=9:1.5

# what the rounding of op times to ticks leaves between layouts of the same work decides
# nothing: at p = 1 interleaved (a layer's time in two chunks) is no runner-up to gpipe, and 1f1b
# ranks before the zbv of the same step (the earlier point)
ADV1="--model=llama3-8b --layers=4 --gpu=h100-sxm --gpus=1 --global-batch=4 --quiet -f json"
# shellcheck disable=SC2086
ppsim advise $ADV1 >"$TMP/adv1.json"
if [ "$("$JGET" "$TMP/adv1.json" runner_up.schedule)" != interleaved ]; then ok; else
	not_ok "advise's runner-up is the recommendation again: $("$JGET" "$TMP/adv1.json" runner_up.schedule)"
fi
printf '{"model":"llama3-8b","gpu":"a100-80g","seq":4096,"distributed_optimizer":true}\n' >"$TMP/tie.json"
s=$(ppsim advise -c "$TMP/tie.json" --gpus=8 --global-batch=32 -s 1f1b,zbv -f json | "$JGET" - recommended.schedule)
[ "$s" = 1f1b ] && ok || not_ok "advise ranks $s before 1f1b at the same step"

# advise's link stragglers: a slow link between the first and the last rank slows interleaved's
# wrap-around hop; two links on one hop, written either way, are one rule; of two GPUs in one
# rank the rule that slows it first holds (a later one's factor waits for its time)
ADVL="--model=llama3-8b --layers=8 --gpu=h100-sxm --global-batch=16 --seq=2048 --quiet -f json"
# shellcheck disable=SC2086
a=$(ppsim advise $ADVL --gpus=4 -p 4 --tp=1 -s interleaved -v 2 --mbs=1 | "$JGET" - recommended.step_time)
# shellcheck disable=SC2086
b=$(ppsim advise $ADVL --gpus=4 -p 4 --tp=1 -s interleaved -v 2 --mbs=1 --straggler=0-3:20 |
	"$JGET" - recommended.step_time)
awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > a) }' && ok ||
	not_ok "advise: a slow link on interleaved's wrap-around hop: $a ms, with it $b"
# shellcheck disable=SC2086
ppsim advise $ADVL --gpus=8 -p 2 --tp=1 --straggler=0-4:2,5-1:2 >/dev/null 2>"$TMP/err" && ok ||
	not_ok "advise: two links on one hop either way: $(cat "$TMP/err")"
# shellcheck disable=SC2086
a=$(ppsim advise $ADVL --gpus=4 -p 2 --tp=1 --straggler=0:2 | "$JGET" - recommended.step_time)
# shellcheck disable=SC2086
b=$(ppsim advise $ADVL --gpus=4 -p 2 --tp=1 --straggler=0:2,1:3@100000 | "$JGET" - recommended.step_time)
[ "$a" = "$b" ] && ok || not_ok "advise: a later straggler in the same rank undid an earlier: $a ms, $b"
