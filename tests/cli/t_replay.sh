# ppsim replay: a measured step simulated again, and what it would have taken otherwise.

# 1. Acceptance 3 of issue 38: a run's trace with PyTorch's range names (plain or gzip), read
#    back as a measured step, reproduces the run: every op's start and end (--dump-ops, byte
#    for byte) and the step, for 1F1B, split backwards (ZB-H1, ZB-V), interleaving, overlapped
#    pairs (DualPipeV), with and without message times (then from the trace's transfers), with
#    blocking sends and half-duplex links (given again, as the trace does not say them); and
#    with ppsim's own slice names.
while IFS='|' read -r shape comm; do
	for names in torch ppsim; do
		for tc in "" "--tcomm 0.3"; do
			for trace in t.json t.json.gz; do
				[ "$names$trace" = ppsimt.json.gz ] && continue
				# shellcheck disable=SC2086
				ppsim $shape $comm $tc --tf 1.5 --tw 0.5 --stage-scale 1,1.25,1,1 \
					--trace-names=$names --trace="$TMP/$trace" --dump-ops="$TMP/run.csv" \
					--format=json >"$TMP/run.json" 2>"$TMP/err" ||
					{ not_ok "ppsim $shape $tc: $(head -c 200 "$TMP/err")"; continue; }
				RUN="ppsim replay ($shape $comm $tc, $names names, $trace)"
				# shellcheck disable=SC2086
				run_json replay "$TMP/$trace" $comm --dump-ops="$TMP/again.csv"
				if cmp -s "$TMP/run.csv" "$TMP/again.csv"; then ok; else
					not_ok "$RUN: the ops' times differ from the run's"
					diff "$TMP/run.csv" "$TMP/again.csv" | head -5
				fi
				want=$("$JGET" "$TMP/run.json" makespan)
				expect makespan "$want"
				expect replay.measured_step "$want"
				expect replay.replayed_step "$want"
				expect replay.order "$(echo $shape | cut -d' ' -f2)"
			done
		done
	done
done <<'EOF'
-s 1f1b -p 4 -m 8|
-s 1f1b -p 4 -m 8|--comm=blocking
-s 1f1b -p 4 -m 8|--duplex=half
-s zbh1 -p 4 -m 8|
-s zbv -p 4 -m 8|
-s interleaved -p 4 -v 2 -m 8|
-s dualpipev -p 4 -m 8|
EOF
# An op a run gave more than the 1e9 a given time may take (a fused backward of --tb 1e9 and
# the default --tw 1) replays as it ran.
ppsim -p 2 -m 3 --tf 1e9 --tb 1e9 --trace="$TMP/long.json" --dump-ops="$TMP/long.csv" >/dev/null
if ppsim replay "$TMP/long.json" --dump-ops="$TMP/long-again.csv" >/dev/null 2>"$TMP/err" &&
	cmp -s "$TMP/long.csv" "$TMP/long-again.csv"; then ok; else
	not_ok "replay of a fused backward of 1e9 + 1: $(cat "$TMP/err")"
fi

# Messages of a tick finer than 1e-6 (chunks make the run's ticks finer) replay as they ran:
# at v = 2 a message of 5e-7 is one tick, which the replay took to the nearest 1e-6, 0.
for shape in "-s interleaved -v 2 --tcomm 0.0000005" "-s interleaved -v 3 --tcomm 0.0000004" \
	"-s zbv -v 2 --tcomm 0.0000005"; do
	# shellcheck disable=SC2086 # shape is words
	ppsim $shape -p 4 -m 8 --tf 1.3 --tb 2.1 --trace="$TMP/fine.json" \
		--dump-ops="$TMP/fine.csv" >/dev/null &&
		ppsim replay "$TMP/fine.json" --dump-ops="$TMP/fine-again.csv" >/dev/null
	if cmp -s "$TMP/fine.csv" "$TMP/fine-again.csv"; then ok; else
		not_ok "replay of $shape: the ops' times differ from the run's"
	fi
done

# one trace per device, each its own process and clock, files in the devices' order
ppsim -s interleaved -p 2 -v 2 -m 4 --tcomm 0.2 --trace-names=torch --trace="$TMP/t.json" \
	--dump-ops="$TMP/run.csv" >/dev/null
for d in 0 1; do
	awk -v d=$d 'NR == 1 { print; next } /"ph":"X"/ && $0 ~ "\"pid\":" d "," {
		sub("\"pid\":" d ",", "\"pid\":" (4000 + 7 * d) ","); sub(/\],?$/, ""); sub(/,$/, "")
		printf "%s%s", (n++ ? ",\n" : ""), $0 } END { print "\n]}" }' "$TMP/t.json" >"$TMP/rank$d.json"
done
RUN="ppsim replay rank0.json rank1.json"
run_json replay "$TMP/rank0.json" "$TMP/rank1.json" --dump-ops="$TMP/again.csv"
cmp -s "$TMP/run.csv" "$TMP/again.csv" && ok || not_ok "$RUN: the ops' times differ from the run's"
expect replay.files 2
# a CSV of op times as --dump-ops writes them, with the messages' time given again
ppsim -s zbh1 -p 4 -m 8 --tcomm 0.25 --dump-ops="$TMP/run.csv" >/dev/null
ppsim replay "$TMP/run.csv" --tcomm 0.25 --dump-ops="$TMP/again.csv" --timeline=0 >/dev/null &&
	cmp -s "$TMP/run.csv" "$TMP/again.csv" && ok ||
	not_ok "ppsim replay of --dump-ops' CSV: the ops' times differ from the run's"

# the op dump of a schedule with overlapped pairs (its overlap column: the F of a pair, its
# backward the next row at the same times)
for s in "dualpipev -p 4 -m 16" "dualpipe -p 4 -m 8 --tf 1.1" "interleaved-combined -p 4 -v 2 -m 8"; do
	# shellcheck disable=SC2086 # s is words
	ppsim -s $s --tcomm 0.25 --dump-ops="$TMP/run.csv" >/dev/null
	ppsim replay "$TMP/run.csv" --tcomm 0.25 --dump-ops="$TMP/again.csv" --timeline=0 >/dev/null &&
		grep -q ',1,' "$TMP/run.csv" && cmp -s "$TMP/run.csv" "$TMP/again.csv" && ok ||
		not_ok "ppsim replay of --dump-ops' CSV of $s: the ops' times differ from the run's"
done

# 2. Without the slowest device: a run whose device 2 takes 1.5 times as long, without it, is
#    the run without the straggler (its ops at the others' times, the order kept), to the tick.
ppsim -s 1f1b -p 4 -m 8 --tcomm 0.1 --stage-scale 1,1,1.5,1 --trace-names=torch \
	--trace="$TMP/slow.json" >/dev/null
want=$(ppsim -s 1f1b -p 4 -m 8 --tcomm 0.1 --format=json | "$JGET" - makespan)
RUN="ppsim replay --without-slowest"
run_json replay "$TMP/slow.json" --without-slowest
expect replay.what_if.slowest_device 2
expect replay.what_if.factors.F 2/3
expect replay.what_if.factors.BW 2/3
expect replay.what_if.factors.W null
expect replay.what_if.step "$want"
expect makespan "$want"
expect replay.measured_step 44.3
expect replay.what_if.difference "$(awk -v w="$want" 'BEGIN { print w - 44.3 }')"
# ... and with another schedule or more micro-batches, on costs fitted to the step: a uniform
# step's fit is the run's costs, so the what-if is the run of that schedule and shape
ppsim -s 1f1b -p 4 -m 8 --tcomm 0.1 --trace="$TMP/even.json" >/dev/null
for whatif in "-m 16" "-s interleaved -v 2" "-s zbh1 --w-share=0.5" "-s gpipe -m 4"; do
	case $whatif in *-s*) s= ;; *) s="-s 1f1b" ;; esac
	# shellcheck disable=SC2086
	want=$(ppsim $s -p 4 -m 8 ${whatif%--w-share=0.5} --tcomm 0.1 --format=json | "$JGET" - makespan)
	RUN="ppsim replay $whatif"
	# shellcheck disable=SC2086
	run_json replay "$TMP/even.json" $whatif
	expect replay.what_if.step "$want"
	expect replay.replayed_step 34.6
done
# the fit keeps each stage's speed: the straggler's step at m = 16 is its run's
want=$(ppsim -s 1f1b -p 4 -m 16 --tcomm 0.1 --stage-scale 1,1,1.5,1 --format=json | "$JGET" - makespan)
RUN="ppsim replay -m 16 of a straggler"
run_json replay "$TMP/slow.json" -m 16
expect replay.what_if.step "$want"
# the report: text with the measured, replayed and what-if steps; a csv it does not write
if ppsim replay "$TMP/slow.json" --without-slowest --timeline=0 >"$TMP/out" 2>"$TMP/err" &&
	grep -q '^measured step      44.3 t, from the first op' "$TMP/out" &&
	grep -q '^replayed step      44.3 t: 0 t against the measured step, ratio 1.0000' "$TMP/out" &&
	grep -q '^what-if            without device 2, the slowest' "$TMP/out" &&
	grep -q '^its ops scaled     F x0.6667 BW x0.6667$' "$TMP/out" &&
	grep -q '^what-if step       34.6 t: -9.7 t against the measured step, ratio 0.7810' "$TMP/out"; then
	ok
else
	not_ok "ppsim replay --without-slowest: the text report lacks its lines: $(head -c 300 "$TMP/err")"
fi
# PyTorch's ZB1P on two ranks: rank 0 runs fused B (an I directly followed by its W), rank 1
# I and W apart; whichever is slowed, the step without it is the run without the straggler
# (the slow device's backward once kept its slowness, compared with nothing, "x1.0000")
ZB="$ROOT/tests/golden/zb1p-2rank-2stagep-compute.csv"
want=$(ppsim --schedule-file="$ZB" --tcomm 0.1 -f json | "$JGET" - makespan)
for scale in 1.5,1 1,1.5; do
	ppsim --schedule-file="$ZB" --tcomm 0.1 --stage-scale=$scale --trace="$TMP/zb.json" >/dev/null
	RUN="ppsim replay --without-slowest of ZB1P slowed $scale"
	run_json replay "$TMP/zb.json" --without-slowest
	expect replay.what_if.step "$want"
done
# the order is interleaved-zb's with each I and W merged as PyTorch runs them: recognised, so
# the what-ifs need no -s
ppsim --schedule-file="$ZB" --tcomm 0.1 --trace="$TMP/zbn.json" >/dev/null
if ppsim replay "$TMP/zbn.json" --timeline=0 | grep -q "': the order of interleaved-zb$"; then ok
else not_ok "replay did not recognise PyTorch's merged interleaved-zb order"; fi
# rank 1 runs I and W, which rank 0 does not: they take its F's factor, and the report says so
expect replay.what_if.as_others.0 B
expect replay.what_if.as_others.1 W
fails 2 "--format 'csv': replay writes text or json" replay "$TMP/slow.json" --format=csv
fails 2 "replay: needs the MEASURED step" replay
fails 2 "--model 'llama3-8b': not for ppsim replay" replay "$TMP/slow.json" --model=llama3-8b
fails 2 "--schedule-file 'x.csv': not for ppsim replay" replay "$TMP/slow.json" --schedule-file=x.csv
fails 2 "--w-share '2': must be a number from 0 to 1" replay "$TMP/slow.json" -s zbh1 --w-share=2
fails 4 "cannot read '$TMP/none.json': No such file or directory" replay "$TMP/none.json"
fails 2 "is not a trace (a JSON file): a step in several files takes one trace per device" \
	replay "$TMP/slow.json" "$TMP/run.csv"
# an output never replaces the measured step
cp "$TMP/slow.json" "$TMP/keep.json"
fails 2 "keep.json" replay "$TMP/keep.json" --dump-ops="$TMP/keep.json"
cmp -s "$TMP/slow.json" "$TMP/keep.json" && ok || not_ok "replay --dump-ops changed the measured step"
# a broken gzip is an I/O error
head -c 200 "$TMP/t.json.gz" >"$TMP/cut.json.gz"
fails 4 "cannot read '$TMP/cut.json.gz': gzip: unexpected end of file" replay "$TMP/cut.json.gz"

# 3. Each measured step of tests/cli/bad_replay.txt is refused in one line naming the file
#    (and its line, for a fault of the file's data), leaving the --dump-ops file as it was.
table "$ROOT/tests/cli/bad_replay.txt" >"$TMP/bad_replay"
while IFS='|' read -r code args bytes says; do
	bytes=$(printf '%s' "$bytes" | sed 's/^ *//; s/ *$//')
	says=$(printf '%s' "$says" | sed 's/^ *//; s/ *$//')
	case $bytes in "{"* | "["* | '"'*) file=$TMP/step.json ;; *) file=$TMP/step.csv ;; esac
	# shellcheck disable=SC2059
	printf "$bytes" >"$file"
	echo 'keep' >"$TMP/keep.csv"
	# shellcheck disable=SC2086
	fails $code "$says" replay $args --dump-ops="$TMP/keep.csv" "$file"
	if [ "$(cat "$TMP/keep.csv")" = keep ]; then ok; else
		not_ok "ppsim replay $args of a bad step changed the existing output file"
	fi
done <"$TMP/bad_replay"

# A measured step that takes no time has no ratio to the replay (the text printed -nan).
printf '%s' '[{"name":"PP:0F0","ph":"X","pid":0,"ts":0,"dur":0},{"name":"PP:1F0","ph":"X","pid":1,"ts":0,"dur":0},{"name":"PP:1B0","ph":"X","pid":1,"ts":0,"dur":0},{"name":"PP:0B0","ph":"X","pid":0,"ts":0,"dur":0}]' >"$TMP/zero.json"
if ppsim replay "$TMP/zero.json" | grep -q '^replayed step .*no ratio (the measured step takes no time)$'; then
	ok
else
	not_ok "a measured step of no time: $(ppsim replay "$TMP/zero.json" 2>&1 | tail -1)"
fi

# A profiler's trace stamps its events in microseconds since the epoch (1.74e15 in DeepSeek's
# published profile): such a trace replays as the same step shifted to 0.
ppsim -p 2 -m 4 --trace="$TMP/rel.json" >/dev/null
perl -pe 's/"ts":(\d+)/"\"ts\":" . ($1 + 1740461679470813)/ge' "$TMP/rel.json" >"$TMP/epoch.json"
a=$(ppsim replay "$TMP/rel.json" -f json | "$JGET" - replay.measured_step)
b=$(ppsim replay "$TMP/epoch.json" -f json 2>&1 | "$JGET" - replay.measured_step 2>&1)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else
	not_ok "a trace in epoch microseconds: measured step $b against $a"
fi

# An op dump has no transfer times: its replay says that its messages take no time (it read
# 33 against the run's 37.8 with nothing said), and its run's --tcomm gives the run back; a
# trace has them (replay.messages_measured).
ppsim -p 4 -m 8 --tcomm=0.3 --dump-ops="$TMP/rd.csv" --trace="$TMP/rd.json" --timeline=0 >/dev/null
if ppsim replay "$TMP/rd.csv" --timeline=0 | grep -q '^messages  *none measured (the file gives no transfer times): they take no time; --tcomm prices them$' &&
	! ppsim replay "$TMP/rd.csv" --tcomm=0.3 --timeline=0 | grep -q '^messages ' &&
	ppsim replay "$TMP/rd.csv" --tcomm=0.3 --timeline=0 | grep -q '^replayed step  *37.8 ms: 0 ms against'; then
	ok
else
	not_ok "replay of an op dump should say its messages take no time, and replay with --tcomm exactly"
fi
ppsim replay "$TMP/rd.csv" -f json >"$TMP/out.json"
RUN="replay of an op dump"
expect replay.messages_measured 0
ppsim replay "$TMP/rd.json" -f json >"$TMP/out.json"
RUN="replay of a trace"
expect replay.messages_measured 48
expect replay.replayed_step 37.8

# a what-if of overlapped pairs runs them at the overlap the step's pairs measured (it ran them
# at 1, no gain: the step's own schedule and m replayed 30% long), unless --overlap-factor says
ppsim -s dualpipev -p 4 -m 16 --overlap-factor=0.7 --trace="$TMP/pairs.json" >/dev/null
run_json replay "$TMP/pairs.json" -s dualpipev
expect replay.what_if.step 39.3 1e-9
run_json replay "$TMP/pairs.json" -m 32
expect replay.what_if.step 72.9 1e-9
run_json replay "$TMP/pairs.json" -s dualpipev --overlap-factor=1
expect replay.what_if.step 51 1e-9

# the fitted costs and the differences of times are written as the decimals they stand for, not
# with the arithmetic's last bits (t_w=0.7000000000000001, +0.0241514999998 ms)
ppsim -s dualpipev -p 4 -m 16 --tw 0.7 --trace="$TMP/tw.json" --timeline=0 >/dev/null
ppsim replay "$TMP/tw.json" -s zbv >"$TMP/tw.txt" 2>&1
grep -q '^costs  *t_f=1 t_b=1 t_w=0.7 (in t' "$TMP/tw.txt" && ok ||
	not_ok "replay's fitted costs: $(grep '^costs' "$TMP/tw.txt")"
ppsim --model=llama3-8b -s dualpipev -p 4 -m 16 --trace="$TMP/l8.json" --timeline=0 >/dev/null
ppsim replay "$TMP/l8.json" -s dualpipev >"$TMP/l8.txt" 2>&1
if grep -q '^costs  *t_f=39.05289225 t_b=46.005337 t_w=32.026681 (in ms' "$TMP/l8.txt" &&
	grep -q '^what-if step  *2332.4607575 ms: +0.0241515 ms against the measured step' "$TMP/l8.txt"; then
	ok
else
	not_ok "replay's figures with the arithmetic's last bits: $(grep -E '^(costs|what-if step)' "$TMP/l8.txt")"
fi
