# Noise (issue 38): samples that equal the deterministic run without variance, the same output
# for any --jobs, stragglers in the deterministic run, the empirical file's errors, and compare's
# ranking by a statistic of the samples.

# without variance every sample is the run: its figures equal the makespan, for any schedule
for s in 1f1b zbv dualpipev interleaved-combined; do
	v=2
	[ $s = 1f1b ] && v=1
	run_json -s $s -v $v -p 4 -m 8 --tcomm 0.25 --samples=50 --straggler=2:1.5@3
	m=$("$JGET" "$TMP/out.json" makespan)
	expect noise.samples 50
	expect noise.step.mean "$m" 0
	expect noise.step.p99 "$m" 0
	expect noise.stragglers "2:1.5@3"
done

# the same seed gives the same bytes for --jobs 1, 2 and 8, in every format
for f in text json csv; do
	for j in 1 2 8; do
		ppsim -s zbv -v 2 -p 4 -m 16 --tcomm 0.2 --samples=300 --seed=7 --timeline=0 \
			--jitter=lognormal:0.1,B@3=normal:0.2 --link-jitter=lognormal:0.3 --stalls=50:2 \
			--straggler=1:1.2@10,0-1:1.5 --format=$f --jobs=$j >"$TMP/noise-$j.$f" 2>&1
	done
	if cmp -s "$TMP/noise-1.$f" "$TMP/noise-2.$f" && cmp -s "$TMP/noise-1.$f" "$TMP/noise-8.$f"; then
		ok
	else
		not_ok "--samples with --format=$f differs between --jobs 1, 2 and 8"
	fi
done
# another seed, other samples
ppsim -s zbv -v 2 -p 4 -m 16 --samples=300 --seed=8 --jitter=lognormal:0.1 --format=json >"$TMP/noise-s8.json"
ppsim -s zbv -v 2 -p 4 -m 16 --samples=300 --seed=7 --jitter=lognormal:0.1 --format=json >"$TMP/noise-s7.json"
if cmp -s "$TMP/noise-s7.json" "$TMP/noise-s8.json"; then not_ok "--seed 7 and 8 give the same samples"; else ok; fi

# with jitter the mean step is at least the deterministic one
run_json -s 1f1b -p 8 -m 32 --tcomm 0.1 --samples=500 --jitter=lognormal:0.1
expect_cmp noise.step.mean ">=" "$("$JGET" "$TMP/out.json" makespan)"
expect_cmp noise.step.p99 ">=" "$("$JGET" "$TMP/out.json" noise.step.p50)"

# a straggler at factor k on the last device of 1F1B (p 4, m 8, F 1, B + W 2): 3 + 3km + 6
run_json -p 4 -m 8 --straggler=3:2
expect makespan 57
run_json -p 4 -m 8 --straggler=3:1.5
expect makespan 45

# the empirical file: missing, malformed, without a value for some op; nothing is written
printf 'kind,stage,value\nF,*,1\nF,1,x\n' >"$TMP/emp-bad.csv"
printf 'kind,stage,value\nF,*,1\n' >"$TMP/emp-f.csv"
echo keep >"$TMP/keep.csv"
fails 4 "cannot read '$TMP/none.csv'" --samples=3 --jitter="empirical:$TMP/none.csv" --dump-ops="$TMP/keep.csv"
fails 3 "samples '$TMP/emp-bad.csv':3: must be a header kind,stage,value" --samples=3 \
	--jitter="F=empirical:$TMP/emp-bad.csv" --dump-ops="$TMP/keep.csv"
fails 3 "samples '$TMP/emp-f.csv': no value for B ops of stage 0" --samples=3 \
	--jitter="empirical:$TMP/emp-f.csv" --dump-ops="$TMP/keep.csv"
[ "$(cat "$TMP/keep.csv")" = keep ] && ok || not_ok "a failed noise run changed an existing file"
# only the kinds the schedule's ops take need values: 1F1B fuses its backward (B's values)
# and runs no W; ZB-H1 runs W and needs them
printf 'kind,stage,value\nF,0,1\nF,1,1\nB,0,1\nB,1,2\n' >"$TMP/emp-fb.csv"
run_json -p 2 --samples=5 --jitter="empirical:$TMP/emp-fb.csv"
expect noise.samples 5
fails 3 "samples '$TMP/emp-fb.csv': no value for W ops of stage 0" -s zbh1 -p 2 --samples=5 \
	--jitter="empirical:$TMP/emp-fb.csv" --dump-ops="$TMP/keep.csv"
# a row of a stage the run does not have is refused at its line, with the run's stages
printf 'kind,stage,value\nF,0,1\nF,1,1\nB,0,1\nB,1,2\nF,99,1\n' >"$TMP/emp-99.csv"
fails 3 "samples '$TMP/emp-99.csv':6: names stage 99; there are p*v = 2" -p 2 --samples=5 \
	--jitter="empirical:$TMP/emp-99.csv" --dump-ops="$TMP/keep.csv"
printf 'kind,stage,value\nF,*,1\nB,*,1\nB,2,1\n' >"$TMP/emp-2.csv"
fails 3 "samples '$TMP/emp-2.csv':4: names stage 2; there are p*v = 2" -p 2 --samples=5 \
	--link-jitter="empirical:$TMP/emp-2.csv" --dump-ops="$TMP/keep.csv"

# compare: the samples' columns, and ranks by the chosen statistic
ppsim compare --schedules=1f1b,zbh1,zbv -p 4 -m 16 --tcomm 0.1 --samples=200 \
	--jitter=lognormal:0.1 --rank-by=p99 --format=csv >"$TMP/rank.csv"
head -n 1 "$TMP/rank.csv" | grep -q ',step_mean,step_p50,step_p90,step_p99,rank$' && ok ||
	not_ok "compare --samples CSV lacks the samples' columns"
awk -F, 'NR > 1 { print $(NF - 1), $NF }' "$TMP/rank.csv" | sort -n | awk '
	{ if (NR > 1 && $2 < last) bad = 1; last = $2 } END { exit bad }' && ok ||
	not_ok "compare --rank-by=p99 does not rank by the p99 step: $(cat "$TMP/rank.csv")"

# --samples-out: a row per sample, the same for any --jobs; refused without --samples, leaving
# the file alone
for j in 1 3; do
	ppsim -p 4 -m 8 --samples=40 --jitter=lognormal:0.2 --samples-out="$TMP/samples-$j.csv" \
		--jobs=$j -f csv >/dev/null
done
[ "$(wc -l <"$TMP/samples-1.csv")" -eq 41 ] && ok || not_ok "--samples-out=40 wrote $(wc -l <"$TMP/samples-1.csv") lines"
head -n 1 "$TMP/samples-1.csv" | grep -qx 'sample,step,bubble_ratio,critical_device,critical_share' && ok || not_ok "--samples-out header"
cmp -s "$TMP/samples-1.csv" "$TMP/samples-3.csv" && ok || not_ok "--samples-out differs between --jobs 1 and 3"
fails 2 "--samples-out: give --samples=N" -p 4 -m 8 --samples-out="$TMP/keep.csv"
[ "$(cat "$TMP/keep.csv")" = keep ] && ok || not_ok "--samples-out without --samples changed the file"

# sweep: the samples' columns, ranking by a statistic, noise options taken whole; advise and
# sweep refuse --rank-by of samples without them
ppsim sweep -s 1f1b,zbh1,zbv -p 4,8 -m 16 --tcomm 0.1 --samples=60 \
	--jitter=lognormal:0.1,B=normal:0.2 --straggler=2:1.3,0-1:2 --rank-by=p99 -f csv >"$TMP/sweep.csv"
head -n 1 "$TMP/sweep.csv" | grep -q ',step_mean,step_p50,step_p90,step_p99,reason$' && ok ||
	not_ok "sweep --samples records lack the samples' columns: $(head -n 1 "$TMP/sweep.csv")"
[ "$(grep -c ',ok,' "$TMP/sweep.csv")" -eq 6 ] && ok || not_ok "sweep with noise options: $(cat "$TMP/sweep.csv")"
ppsim sweep -s 1f1b,zbh1,zbv -p 4,8 -m 16 --tcomm 0.1 --samples=60 --jitter=lognormal:0.1 \
	--rank-by=p99 --jobs=1 >"$TMP/sweep-1.txt"
ppsim sweep -s 1f1b,zbh1,zbv -p 4,8 -m 16 --tcomm 0.1 --samples=60 --jitter=lognormal:0.1 \
	--rank-by=p99 --jobs=2 >"$TMP/sweep-2.txt"
cmp -s "$TMP/sweep-1.txt" "$TMP/sweep-2.txt" && ok || not_ok "sweep --samples differs between --jobs 1 and 2"
grep -q "best 6 by utilization at the samples' p99 step" "$TMP/sweep-1.txt" && ok ||
	not_ok "sweep --rank-by=p99 does not say what ranks: $(head -n 3 "$TMP/sweep-1.txt")"
fails 2 "--rank-by: ranks by the noise samples' step: give --samples=N" sweep -s 1f1b,zbh1 --rank-by=mean
fails 2 "--rank-by: ranks by the noise samples' step: give --samples=N" advise --model=llama3-8b --gpus=8 --rank-by=p90

# the HTML report draws the samples' distribution, with its figures in a table; not without them
ppsim -p 4 -m 8 --samples=100 --jitter=lognormal:0.1 --html="$TMP/noise.html" -f json >/dev/null
grep -q '<h2>Step over the noise samples</h2>' "$TMP/noise.html" &&
	grep -q '<svg role="img"' "$TMP/noise.html" && grep -q '<table class="stats">' "$TMP/noise.html" && ok ||
	not_ok "--html with --samples lacks the samples' histogram"
ppsim -p 4 -m 8 --html="$TMP/plain.html" -f json >/dev/null
grep -q 'noise samples' "$TMP/plain.html" && not_ok "--html without --samples draws samples" || ok

# calibrate --jitter-out: the measured rows as empirical samples, which a run then draws from;
# refused for a Megatron log, and beside the input
printf 'stage,op,ms\n0,F,1.0\n0,F,1.2\n0,BW,3\n0,BW,3.3\n1,F,1.1\n1,BW,3.1\n' >"$TMP/meas.csv"
ppsim calibrate --w-share=0.5 -o "$TMP/cal.json" --jitter-out="$TMP/jit.csv" "$TMP/meas.csv" 2>/dev/null
printf 'kind,stage,value\nF,0,1\nF,0,1.2\nB,0,3\nB,0,3.3\nF,1,1.1\nB,1,3.1\n' >"$TMP/jit-want.csv"
cmp -s "$TMP/jit.csv" "$TMP/jit-want.csv" && ok || not_ok "calibrate --jitter-out wrote $(cat "$TMP/jit.csv")"
run_json -c "$TMP/cal.json" --samples=50 --jitter="B=empirical:$TMP/jit.csv"
expect_cmp noise.step.max ">" "$("$JGET" "$TMP/out.json" noise.step.min)"
# every op drawing from it: the fused backward of F and BW rows is all 1F1B runs
ppsim calibrate --w-share=0 -o "$TMP/cal0.json" --jitter-out="$TMP/jit0.csv" "$TMP/meas.csv" 2>/dev/null
run_json -c "$TMP/cal0.json" --samples=50 --jitter="empirical:$TMP/jit0.csv"
expect_cmp noise.step.max ">" "$("$JGET" "$TMP/out.json" noise.step.min)"
fails 2 "--jitter-out" calibrate --jitter-out="$TMP/meas.csv" "$TMP/meas.csv"

# samples in shards (a job array): ppsim merge of any sharding gives the unsharded run's bytes,
# in every format and whatever the order of the files; its --samples-out too
A="-s zbv -v 2 -p 4 -m 16 --tcomm 0.2 --samples=60 --seed=5 --jitter=lognormal:0.1 --straggler=1:1.2"
for f in text json csv; do
	# shellcheck disable=SC2086 # $A is meant to split
	ppsim $A -f $f --samples-out="$TMP/whole-samples.csv" >"$TMP/whole.$f"
	for n in 1 2 3 7; do
		rm -f "$TMP"/sh-*.pps
		k=1
		while [ $k -le $n ]; do
			# shellcheck disable=SC2086
			ppsim $A -f $f --shard=$k/$n --shard-file="$TMP/sh-$k.pps" --jobs=$k >/dev/null
			k=$((k + 1))
		done
		# shellcheck disable=SC2046 # the shards, newest first
		ppsim merge $(ls -t "$TMP"/sh-*.pps) --samples-out="$TMP/merged-samples.csv" >"$TMP/merged.$f"
		if cmp -s "$TMP/whole.$f" "$TMP/merged.$f" &&
			cmp -s "$TMP/whole-samples.csv" "$TMP/merged-samples.csv"; then
			ok
		else
			not_ok "merge of $n sample shards (-f $f) differs from the run: $(diff "$TMP/whole.$f" "$TMP/merged.$f" | head -5)"
		fi
	done
done
# merge's own --format over the shards': any format a run writes (JSON of text shards is the
# run's JSON); one a run does not write is refused, naming those it does, the shards untouched
ppsim $A -f json >"$TMP/whole.json"
rm -f "$TMP"/sh-*.pps
for k in 1 2; do
	# shellcheck disable=SC2086
	ppsim $A --shard=$k/2 --shard-file="$TMP/sh-$k.pps" >/dev/null
done
ppsim merge -f json "$TMP/sh-2.pps" "$TMP/sh-1.pps" >"$TMP/merged.json" 2>"$TMP/err"
cmp -s "$TMP/whole.json" "$TMP/merged.json" && ok ||
	not_ok "merge -f json of a run's text shards differs from the run's JSON: $(head -c 200 "$TMP/err")"
cksum "$TMP"/sh-*.pps >"$TMP/sh-before"
fails 2 "--format 'jsonl': a merge of a run's noise samples writes text, json or csv" merge -f jsonl "$TMP/sh-1.pps" "$TMP/sh-2.pps"
fails 2 "--format 'xml': merge writes text, json, csv or jsonl" merge -f xml "$TMP/sh-1.pps" "$TMP/sh-2.pps"
cksum "$TMP"/sh-*.pps | cmp -s - "$TMP/sh-before" && ok || not_ok "a refused merge changed its shards"
# a run's --timeline goes into its shards: the merge ends in the run's timeline, of the width
# given (or, without one, the width where merge writes); merge's own --timeline wins, and the
# shards' goes with a text report only
TL="-p 4 -m 8 --samples=10 --jitter=lognormal:0.1"
for t in --timeline=60 --timeline --timeline=0; do
	# shellcheck disable=SC2086
	ppsim $TL $t --shard=1/2 --shard-file="$TMP/tl-1.pps" >/dev/null &&
		ppsim $TL $t --shard=2/2 --shard-file="$TMP/tl-2.pps" >/dev/null
	# shellcheck disable=SC2086
	(COLUMNS=70 && export COLUMNS && ppsim $TL $t) >"$TMP/tl-whole.txt"
	(COLUMNS=70 && export COLUMNS && ppsim merge "$TMP/tl-2.pps" "$TMP/tl-1.pps") \
		>"$TMP/tl-merged.txt" 2>"$TMP/err"
	if cmp -s "$TMP/tl-whole.txt" "$TMP/tl-merged.txt"; then ok; else
		not_ok "merge of sample shards made with $t differs from the run: $(diff "$TMP/tl-whole.txt" "$TMP/tl-merged.txt" | head -5) $(head -c 200 "$TMP/err")"
	fi
done
# shellcheck disable=SC2086
ppsim $TL --timeline=60 --shard=1/2 --shard-file="$TMP/tl-1.pps" >/dev/null &&
	ppsim $TL --timeline=60 --shard=2/2 --shard-file="$TMP/tl-2.pps" >/dev/null
grep -q "^run$(printf '\t')timeline$(printf '\t')60\$" "$TMP/tl-1.pps" && ok ||
	not_ok "a shard of a run with --timeline=60 does not hold it: $(grep '^run' "$TMP/tl-1.pps")"
for t in --timeline=80 --timeline=0; do
	# shellcheck disable=SC2086
	ppsim $TL $t >"$TMP/tl-whole.txt"
	ppsim merge $t "$TMP/tl-1.pps" "$TMP/tl-2.pps" >"$TMP/tl-merged.txt"
	cmp -s "$TMP/tl-whole.txt" "$TMP/tl-merged.txt" && ok ||
		not_ok "merge $t over shards of --timeline=60 differs from the run with $t"
done
# shellcheck disable=SC2086
ppsim $TL -f csv >"$TMP/tl-whole.csv"
ppsim merge -f csv "$TMP/tl-1.pps" "$TMP/tl-2.pps" >"$TMP/tl-merged.csv"
cmp -s "$TMP/tl-whole.csv" "$TMP/tl-merged.csv" && ok ||
	not_ok "merge -f csv of shards with a timeline differs from the run's CSV"
# refused: a width --timeline does not take, a timeline with CSV, a timeline for a sweep's
# shards (a sweep has none), a shard's timeline that is no width; no file touched
# shellcheck disable=SC2086
ppsim $TL --timeline=60 --shard-file="$TMP/tl-one.pps" >/dev/null
sed "s/^run$(printf '\t')timeline$(printf '\t')60\$/run$(printf '\t')timeline$(printf '\t')wide/" "$TMP/tl-one.pps" >"$TMP/tl-bad.pps"
ppsim sweep -p 2,4 -m 8 --shard-file="$TMP/tl-sweep.pps" >/dev/null
cksum "$TMP"/tl-*.pps >"$TMP/tl-before"
fails 2 "--timeline '30': width must be 0 (none) or an integer from 40" merge --timeline=30 "$TMP/tl-1.pps" "$TMP/tl-2.pps"
fails 2 "--timeline: only with --format=text" merge -f csv --timeline=60 "$TMP/tl-1.pps" "$TMP/tl-2.pps"
fails 2 "--timeline: a sweep's report has no timeline" merge --timeline=60 "$TMP/tl-sweep.pps"
fails 3 "shard '$TMP/tl-bad.pps': a setting a run does not make" merge "$TMP/tl-bad.pps"
fails 2 "-p: an option of the sweep or run, which the shards hold; merge takes --format, --top, --records, --timeline" merge -p 4 "$TMP/tl-1.pps" "$TMP/tl-2.pps"
cksum "$TMP"/tl-*.pps | cmp -s - "$TMP/tl-before" && ok || not_ok "a refused merge changed its shards"
# shellcheck disable=SC2086
fails 2 "--shard: a run shards its noise samples: give --samples=N" -p 4 -m 8 --shard=1/2
fails 2 "--shard-file: a run shards its noise samples" -p 4 -m 8 --shard-file="$TMP/keep.csv"
[ "$(cat "$TMP/keep.csv")" = keep ] && ok || not_ok "--shard-file without --samples changed the file"
# a sweep's shard and a run's are not of one run
ppsim sweep -p 2,4 -m 8 --shard=1/2 --shard-file="$TMP/sw-1.pps" >/dev/null
# shellcheck disable=SC2086
ppsim $A --shard=2/2 --shard-file="$TMP/sm-2.pps" >/dev/null
fails 2 "are shards of different runs" merge "$TMP/sw-1.pps" "$TMP/sm-2.pps"

# The closed form of the bubble takes every stage's costs alike: a straggler that slows a device
# leaves it out (text, JSON, a sweep's records), as --stage-scale does; a slow link whose
# messages cost nothing, or a factor of 1, changes no cost and keeps it.
for s in 5:2 5:2@10; do
	if [ "$(ppsim -p 8 -m 8 --straggler=$s -f json | "$JGET" - bubble_ratio_theory)" = null ] &&
		ppsim -p 8 -m 8 --straggler=$s --timeline=0 | grep -q '^bubble_ratio .*(no closed form applies)' &&
		ppsim sweep -p 4,8 -m 8 --straggler=$s -f jsonl | grep '"p":8' | grep -q '"bubble_ratio_theory":null'; then
		ok
	else
		not_ok "--straggler=$s: the closed form of the bubble should not apply"
	fi
done
for s in 5:1 4-5:3; do
	if [ "$(ppsim -p 8 -m 8 --straggler=$s -f json | "$JGET" - bubble_ratio_theory)" = 0.4666666666666667 ]; then
		ok
	else
		not_ok "--straggler=$s slows no op: the closed form applies"
	fi
done

# merge refuses the options of the other kind of shard rather than drop them: --top and
# --records (a sweep's) with a run's noise samples, --samples-out with a sweep's shards
ppsim -p 4 -m 8 --samples=6 --jitter=lognormal:0.1 --shard=1/2 --shard-file="$TMP/k1.pps" >/dev/null
ppsim -p 4 -m 8 --samples=6 --jitter=lognormal:0.1 --shard=2/2 --shard-file="$TMP/k2.pps" >/dev/null
ppsim sweep -p 2,4 --shard=1/1 --shard-file="$TMP/ks.pps" >/dev/null
fails 2 "--top: a run's noise samples have no ranked table" merge --top=1 "$TMP/k1.pps" "$TMP/k2.pps"
fails 2 "--records: a run's noise samples have no records of points" merge \
	--records="$TMP/k-records.csv" "$TMP/k1.pps" "$TMP/k2.pps"
[ ! -e "$TMP/k-records.csv" ] && ok || not_ok "merge wrote the --records of a run's samples"
fails 2 "--samples-out: a sweep's report has no samples of one run" merge \
	--samples-out="$TMP/ks-samples.csv" "$TMP/ks.pps"
[ ! -e "$TMP/ks-samples.csv" ] && ok || not_ok "merge wrote the --samples-out of a sweep"

# Messages draw from an empirical file's rows of kind * and stage *: a file without one says so
printf 'kind,stage,value\nF,0,1\nB,0,1\nF,1,1\nB,1,1\n' >"$TMP/nostar.csv"
fails 3 "samples '$TMP/nostar.csv': no value for messages, which draw from the rows of kind * and stage *" \
	-p 2 --tcomm 0.1 --samples=3 --link-jitter=empirical:"$TMP/nostar.csv"

# The JSON report gives the seed with all its digits, as the text report does (a double holds
# an integer only to 2^53): the run can be made again from it
ppsim --seed=9007199254740993 --samples=2 --jitter=lognormal:0.1 -f json >"$TMP/seed.json"
grep -q '"seed":	9007199254740993,' "$TMP/seed.json" && ok ||
	not_ok "JSON seed: $(grep '"seed"' "$TMP/seed.json")"

# an empirical file's path the config cannot hold (4095 characters at most) is told as such
long="$TMP/$(printf '%04100d' 0).csv"
fails 2 "the empirical file's path must be 1 to 4095 characters" --samples=3 --jitter=empirical:"$long"

# A seed from 2^53 on is written in a config file as the string of its digits (a JSON number that
# large may not be the one written): it runs as the same seed the command line gives.
printf '{"seed": "9007199254740993", "p": 2, "m": 4, "samples": 3, "jitter": "normal:0.1"}' >"$TMP/bigseed.json"
a=$(ppsim -c "$TMP/bigseed.json" -f json | "$JGET" - noise.step.mean)
b=$(ppsim -p 2 -m 4 --samples=3 --jitter=normal:0.1 --seed=9007199254740993 -f json | "$JGET" - noise.step.mean)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else not_ok "a seed as a string: $a against $b"; fi
printf '{"p": "4"}' >"$TMP/pstring.json"
fails 3 "key \"p\": expected an integer, got a string" -c "$TMP/pstring.json"

# a seed whose sample 0 draws the top uniform value for op 0 (it rounded to 1): a 1% normal
# jitter gave the op no time, a lognormal one refused the run (status 2), an empirical one read
# past its values
S=611516349315171048
ppsim -p 1 -m 1 --tf 1 --tb 0 --tw 0 --samples=2 --seed=$S --jitter=normal:0.01 \
	--samples-out="$TMP/top.csv" --timeline=0 >/dev/null 2>"$TMP/top.err"
if awk -F, 'NR == 2 { exit !($2 > 1 && $2 < 1.1) }' "$TMP/top.csv"; then ok; else
	not_ok "the top draw under normal:0.01: $(sed -n 2p "$TMP/top.csv") $(cat "$TMP/top.err")"
fi
if ppsim -p 4 -m 8 --samples=1 --seed=$S --jitter=lognormal:0.1 >/dev/null 2>"$TMP/top.err"; then ok; else
	not_ok "the top draw under lognormal:0.1: $(cat "$TMP/top.err")"
fi
{ echo kind,stage,value; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do echo "*,*,$i"; done; } >"$TMP/e16.csv"
ppsim -p 1 -m 1 --tf 1 --tb 0 --tw 0 --samples=1 --seed=$S --jitter=empirical:"$TMP/e16.csv" \
	--samples-out="$TMP/top.csv" --timeline=0 >/dev/null 2>"$TMP/top.err"
# the values have mean 8.5: the top draw takes the largest, 16 / 8.5
if awk -F, 'NR == 2 { exit !($2 > 1.88 && $2 < 1.89) }' "$TMP/top.csv"; then ok; else
	not_ok "the top draw of an empirical file: $(sed -n 2p "$TMP/top.csv") $(cat "$TMP/top.err")"
fi

# an empirical group whose values sum past the largest double is still divided by its mean
# (it normalised to 0: every F took no time)
printf 'kind,stage,value\nF,*,1e308\nF,*,1e308\n*,*,1\n' >"$TMP/big.csv"
run_json -p 4 -m 8 --samples=3 --jitter=empirical:"$TMP/big.csv"
expect noise.step.min 33
expect noise.step.max 33

# advise ranking by a statistic of the noise samples gives that step beside the table's
# deterministic one, so that its order can be read
ppsim advise --model=llama3-8b --layers=8 --gpu=h100-sxm --gpus=4 --global-batch=16 --seq=2048 \
	--samples=10 --jitter=lognormal:0.1 --rank-by=p99 --quiet >"$TMP/adv-p99.txt"
if grep -Eq '^ +ranked at its p99 step: recommended [0-9.]+ ms, [0-9.]+ tokens/s; runner-up ' "$TMP/adv-p99.txt"; then ok; else
	not_ok "advise --rank-by=p99 gives no ranked step: $(head -6 "$TMP/adv-p99.txt")"
fi
