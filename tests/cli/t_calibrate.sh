# ppsim calibrate: measured op times become a config whose simulation takes those times.

# 1. The Zero Bubble paper's profiled times (tests/validation/zb-table9.txt) as measured input:
#    every op of the calibrated run takes its measured time (within 1%), and the simulation
#    gives the bubble rates the paper computes from them (its Table 5, to its 4 decimals). The
#    authors' code (efficiency.py, branch arxiv) takes the rate of 1F1B and ZB-H1 over the
#    makespan (bubble_ratio) and that of ZB-H2, ZB-1p and ZB-2p over the longest device span
#    (bubble_rate_span). Left out, as docs/validation.md explains: 1F1B-I, whose rates the
#    authors' simulation makes p x T_comm too short (it drops the dependency across the wrap
#    from the last device to the first for most micro-batches), and ZB-2p at 1.5B, m=24, where
#    the authors keep the greedy pass of the shortest span and ppsim the one of the shortest
#    makespan (1236.541 against 1236.567 ms).
# Under valgrind (PPSIM_WRAP) one run of the twelve checks the same code at a 20th of the time.
table "$ROOT/tests/validation/zb-table9.txt" | if [ -n "${PPSIM_WRAP:-}" ]; then head -n 1; else
	cat; fi >"$TMP/t9"
table "$ROOT/tests/validation/zb-table5.txt" >"$TMP/t5"
while IFS='|' read -r model p mbs m tf tb tw tc; do
	model=$(echo $model) p=$(echo $p) m=$(echo $m) tf=$(echo $tf) tb=$(echo $tb) tw=$(echo $tw)
	tc=$(echo $tc)
	RUN="ppsim calibrate ($model, m=$m)"
	{
		echo "stage,op,ms"
		s=0
		while [ $s -lt "$p" ]; do
			printf '%s,F,%s\n%s,B,%s\n%s,W,%s\n' $s "$tf" $s "$tb" $s "$tw"
			s=$((s + 1))
		done
		echo "0,comm,$tc"
	} >"$TMP/measured.csv"
	if ppsim calibrate -m "$m" -o "$TMP/cal.json" "$TMP/measured.csv" 2>"$TMP/err" &&
		[ ! -s "$TMP/err" ]; then ok; else
		not_ok "$RUN failed: $(head -c 300 "$TMP/err")"
		continue
	fi
	# every op's duration against the measured time (ticks of 1e-6 ms)
	ppsim -c "$TMP/cal.json" -s zbh1 --dump-ops="$TMP/ops.csv" >/dev/null 2>"$TMP/err" ||
		not_ok "$RUN: the calibrated run failed: $(head -c 300 "$TMP/err")"
	if awk -F, -v f="$tf" -v b="$tb" -v w="$tw" 'NR > 1 {
		want = ($4 == "F") ? f : ($4 == "B") ? b : w
		d = ($7 - $6) / want - 1; if (d < 0) d = -d
		if (d > 0.01) { bad = 1; print "op " $0 ": " ($7 - $6) " ms, measured " want }
		n++ } END { exit (bad || n != 3 * '"$p"' * '"$m"') }' "$TMP/ops.csv" >"$TMP/bad"; then
		ok
	else
		not_ok "$RUN: ops off their measured times: $(head -c 300 "$TMP/bad")"
	fi
	for pair in 1F1B:1f1b:bubble_ratio ZB-H1:zbh1:bubble_ratio ZB-H2:zbh2:bubble_rate_span \
		ZB-1p:zb1p:bubble_rate_span ZB-2p:zb2p:bubble_rate_span; do
		name=${pair%%:*} rest=${pair#*:}
		sched=${rest%%:*} metric=${rest#*:}
		[ "$name/$model/$m" = ZB-2p/1.5B/24 ] && continue
		want=$(awk -F'|' -v mo="$model" -v m="$m" -v s="$name" '{
			gsub(/ /, ""); if ($1 == mo && $3 == m && $4 == s) print $5 }' "$TMP/t5")
		RUN="ppsim -c calibrated ($model, m=$m) -s $sched"
		run_json -c "$TMP/cal.json" -s "$sched"
		expect "$metric" "$want" 0.00005
	done
done <"$TMP/t9"

# 2. A Megatron-LM log: the slowest rank's forward-compute and backward-compute over m, the
#    warm-up block left out; a fused backward splits by --w-share.
cat >"$TMP/train.log" <<'LOG'
 iteration        1/     100 | elapsed time per iteration (ms): 2957.0
(min, max) time across ranks (ms):
    forward-compute ................................: (900.00, 1000.00)
    backward-compute ...............................: (1900.00, 2100.00)
 iteration        2/     100 | elapsed time per iteration (ms): 2957.0
(min, max) time across ranks (ms):
    forward-compute ................................: (700.00, 800.00)
    backward-compute ...............................: (1500.00, 1600.00)
LOG
if ppsim calibrate -m 8 --w-share=0.25 "$TMP/train.log" >"$TMP/out.json" 2>"$TMP/err"; then
	ok
else
	not_ok "ppsim calibrate (Megatron log) failed: $(head -c 300 "$TMP/err")"
fi
RUN="ppsim calibrate (Megatron log)"
expect t_f 100
expect t_b 150
expect t_w 50
expect m 8
if "$JGET" "$TMP/out.json" p >/dev/null 2>&1; then not_ok "$RUN: wrote p, not measured"; else ok; fi

# 3. Stages in different proportions: one scale a stage cannot fit them; calibrate says by how
#    much on stderr and still writes the config.
printf 'stage,op,ms\n0,F,1\n0,B,1\n0,W,1\n1,F,2\n1,B,1\n1,W,1\n' >"$TMP/uneven.csv"
if ppsim calibrate "$TMP/uneven.csv" >"$TMP/out.json" 2>"$TMP/err"; then ok; else
	not_ok "ppsim calibrate (uneven) failed"
fi
case $(cat "$TMP/err") in
*"misses stage 0's measured times by up to 28.6%"*) ok ;;
*) not_ok "ppsim calibrate (uneven): stderr '$(cat "$TMP/err")'" ;;
esac
RUN="ppsim calibrate (uneven)"
expect stage_scale.0 3/3.5
expect stage_scale.1 4/3.5

# 3b. A measured step's CSV may name both stage and device (docs/pytorch.md): the stage is
#     stage's, and the file calibrates as uneven.csv, its stages alone; a column twice is not.
printf 'device,stage,op,ms\n0,0,F,1\n0,0,B,1\n0,0,W,1\n0,1,F,2\n0,1,B,1\n0,1,W,1\n' >"$TMP/both.csv"
ppsim calibrate "$TMP/uneven.csv" >"$TMP/uneven.json" 2>/dev/null
if ppsim calibrate "$TMP/both.csv" >"$TMP/out.json" 2>/dev/null &&
	cmp -s "$TMP/out.json" "$TMP/uneven.json"; then ok; else
	not_ok "ppsim calibrate (stage and device columns): $(head -c 300 "$TMP/out.json")"
fi
printf 'stage,device,op,ms,device\n0,0,F,1,0\n' >"$TMP/dup.csv"
fails 3 "calibration '$TMP/dup.csv':1:20: column 'device' appears twice (first as column 2)" \
	calibrate "$TMP/dup.csv"

# 4. Bad input: a clear error, a non-zero exit, and no output file left behind.
printf 'stage,op,ms\n0,X,1\n' >"$TMP/bad-op.csv"
fails 3 "calibration '$TMP/bad-op.csv':2:3: unknown op 'X'" calibrate "$TMP/bad-op.csv"
fails 2 "give its micro-batches with --microbatches" calibrate "$TMP/train.log"
fails 2 "give --w-share=F" calibrate -m 8 "$TMP/train.log"
fails 2 "--w-share '2': must be a number from 0 to 1" calibrate --w-share=2 "$TMP/train.log"
fails 2 "calibrate: -m '0': must be a whole number" calibrate -m 0 "$TMP/train.log"
fails 2 "calibrate: needs a file" calibrate
fails 2 "calibrate: unknown option '--bogus'" calibrate --bogus "$TMP/train.log"
fails 4 "cannot read" calibrate "$TMP/no-such-file.csv"
# after --, a file whose name starts with '-' is the file
cp "$TMP/uneven.csv" "$TMP/-uneven.csv"
if (cd "$TMP" && ppsim calibrate -- -uneven.csv >"$TMP/out.json" 2>/dev/null); then ok; else
	not_ok "ppsim calibrate -- -uneven.csv failed"
fi
# without it, a cluster of short options whose first it does not know, as every command says
fails 2 "calibrate: unknown option '-u'" calibrate -uneven.csv
# its options as every command's: a value attached to a short one, a long one by its prefix
if ppsim calibrate -m8 --w-sh=0.5 --out="$TMP/prefix.json" "$TMP/train.log" 2>"$TMP/err" &&
	ppsim calibrate -m 8 --w-share 0.5 -o "$TMP/whole.json" "$TMP/train.log" 2>/dev/null &&
	cmp -s "$TMP/prefix.json" "$TMP/whole.json"; then ok; else
	not_ok "calibrate -m8 --w-sh=0.5 --out=FILE: $(cat "$TMP/err")"
fi
fails 2 "option '-o' needs a value" calibrate "$TMP/train.log" -o
echo '{"keep": 1}' >"$TMP/keep.json"
fails 3 "unknown op" calibrate -o "$TMP/keep.json" "$TMP/bad-op.csv"
if [ "$(cat "$TMP/keep.json")" = '{"keep": 1}' ]; then ok; else
	not_ok "ppsim calibrate -o: a failed calibration changed the existing output file"
fi

# 5. The law: whatever calibrate writes, ppsim -c reads and simulates. Random measured inputs
#    (tests/tools/measured.awk, seeded: CSVs and Megatron-LM logs, times near the tick and the
#    1e9 limit, up to 1300 stages, a hostile tester's mutations) are each either refused, in
#    one line naming the measured file, and its line when the file is at fault (status 3),
#    with the output file left as it was; or turned into a config that ppsim -c runs. Both
#    happen often enough that neither side is left untried. Under valgrind, a sample.
cases=300
[ -n "${PPSIM_WRAP:-}" ] && cases=12
mkdir -p "$TMP/law"
awk -v seed=35 -v n=$cases -v dir="$TMP/law" -f "$ROOT/tests/tools/measured.awk" >"$TMP/law.cases"
written=0 refused=0
while read -r file args; do
	echo '{"keep": 1}' >"$TMP/law.json"
	name=$(basename "$file")
	# shellcheck disable=SC2086
	ppsim calibrate $args -o "$TMP/law.json" "$file" >"$TMP/out" 2>"$TMP/err"
	status=$?
	RUN="ppsim calibrate $args $name"
	if [ $status -eq 0 ]; then
		written=$((written + 1))
		if ppsim -c "$TMP/law.json" >"$TMP/out" 2>"$TMP/err" && [ ! -s "$TMP/err" ]; then
			ok
		else
			not_ok "law: $RUN wrote a config ppsim -c does not run: $(head -c 300 "$TMP/err")"
		fi
		continue
	fi
	refused=$((refused + 1))
	first=$(head -n 1 "$TMP/err")
	if [ "$(wc -l <"$TMP/err")" -ne 1 ] || [ -s "$TMP/out" ]; then
		not_ok "law: $RUN refused with $(wc -l <"$TMP/err") lines on stderr: $(head -c 300 "$TMP/err")"
	elif [ "$(cat "$TMP/law.json")" != '{"keep": 1}' ]; then
		not_ok "law: $RUN failed and changed its output file"
	else
		case "$status:$first" in
		3:"ppsim: calibration '$file':"[0-9]*) ok ;;
		[12]:"ppsim: "*"'$file'"*) ok ;;
		*) not_ok "law: $RUN: exit $status, '$first'" ;;
		esac
	fi
done <"$TMP/law.cases"
if [ $((written * 5)) -ge "$cases" ] && [ $((refused * 10)) -ge "$cases" ]; then ok; else
	not_ok "law: $written of $cases inputs written, $refused refused: the generator misses a side"
fi

# 6. Each measured file of tests/cli/bad_measured.txt is refused in one line naming the file
#    (and its line), leaving the -o file as it was.
table "$ROOT/tests/cli/bad_measured.txt" >"$TMP/bad_measured"
while IFS='|' read -r code args bytes says; do
	# shellcheck disable=SC2059
	printf "$(printf '%s' "$bytes" | sed 's/^ *//; s/ *$//')" >"$TMP/measured.csv"
	says=$(printf '%s' "$says" | sed 's/^ *//; s/ *$//')
	case $code:$says in
	3:\'[!:]* | 3:) not_ok "bad_measured.txt: a refusal of the file's data names no line: '$says'" ;;
	esac
	echo '{"keep": 1}' >"$TMP/keep.json"
	# shellcheck disable=SC2086
	fails $code "measured.csv$says" calibrate $args -o "$TMP/keep.json" "$TMP/measured.csv"
	if [ "$(cat "$TMP/keep.json")" = '{"keep": 1}' ]; then ok; else
		not_ok "ppsim calibrate $args of a bad file changed the existing output file"
	fi
done <"$TMP/bad_measured"

# 7. -v N takes the stages as the chunks of N a device: the op times of an interleaved run with a
#    slower device, measured per virtual stage, calibrate to p = stages / N, v = N and a config
#    whose run takes the same step; stages that are not N a device, or a Megatron-LM log, are
#    refused.
RUN_IL="-s interleaved -p 4 -v 2 -m 8 --tf=1.2 --tb=2.2 --stage-scale=1,1,1,1.5"
# shellcheck disable=SC2086 # RUN_IL is words
ppsim $RUN_IL --dump-ops="$TMP/il.csv" -f json >"$TMP/il.json"
awk -F, 'NR == 1 { print "stage,op,ms"; next } { printf "%s,%s,%.10g\n", $3, $4, $7 - $6 }' \
	"$TMP/il.csv" >"$TMP/il-measured.csv"
if ppsim calibrate -v 2 --w-share=0.5 -o "$TMP/il-cal.json" "$TMP/il-measured.csv" 2>"$TMP/err" &&
	[ "$("$JGET" "$TMP/il-cal.json" p)" = 4 ] && [ "$("$JGET" "$TMP/il-cal.json" v)" = 2 ] &&
	ppsim -c "$TMP/il-cal.json" -m 8 -f json >"$TMP/il-again.json" 2>>"$TMP/err" &&
	[ "$("$JGET" "$TMP/il-again.json" makespan)" = "$("$JGET" "$TMP/il.json" makespan)" ]; then ok; else
	not_ok "calibrate -v 2 of an interleaved run: $(cat "$TMP/err"; cat "$TMP/il-cal.json")"
fi
fails 2 "calibrate: -v 3: the 8 stages of '$TMP/il-measured.csv' are not 3 chunks to each device" \
	calibrate -v 3 --w-share=0.5 "$TMP/il-measured.csv"
fails 2 "is a Megatron-LM log, whose timers are each device's whole" \
	calibrate -v 2 -m 8 --w-share=0.25 "$TMP/train.log"
fails 2 "calibrate: -v '0': must be a whole number from 1 to 1024" calibrate -v 0 "$TMP/il-measured.csv"
# a CSV of devices alone (one stage a device) has no chunks to take
printf 'device,op,ms\n0,F,1\n0,BW,2\n1,F,1\n1,BW,2\n' >"$TMP/devices.csv"
fails 2 "calibrate: -v 2 takes a CSV's stages as chunks; '$TMP/devices.csv' names devices" \
	calibrate -v 2 --w-share=0.5 "$TMP/devices.csv"
