# DeepSeek's DualPipe and DualPipeV, op for op and in figures. For each case of
# tests/golden/dualpipe-reference/dualpipe.txt and dualpipev.txt (written by
# tests/tools/dualpipe-reference.py from DeepSeek's dualpipe.py and dualpipev.py, see the README
# there), ppsim's dualpipe or dualpipev exports the same PyTorch CSV, and reads it back to the
# same order; a shape their code refuses, ppsim refuses as a usage error, in one line. Every
# case of both files runs. Then the figures of DeepSeek's README at unit costs: the bubble
# (PP/2-1)(F&B+B-3W) on the middle ranks, PP+1 activations, and twice the parameters of 1F1B's
# ranks.
for kind in dualpipe dualpipev; do
	ref="$ROOT/tests/golden/dualpipe-reference/$kind.txt"
	cases=0
	want_cases=$(grep -c '^# ' "$ref")
	rm -rf "$TMP/cases"
	mkdir "$TMP/cases"
	awk -v dir="$TMP/cases" '/^# / { n++ } { print > (dir "/" n) }' "$ref"
	for f in "$TMP"/cases/*; do
		set -- $(head -1 "$f" | sed 's/^# //; s/[a-z]*=//g')
		p=$1 m=$2
		cases=$((cases + 1))
		args="-s $kind -p $p -m $m"
		tail -n +2 "$f" >"$TMP/ref.csv"
		rm -f "$TMP/got.csv"
		if grep -q '^refused: ' "$TMP/ref.csv"; then
			# shellcheck disable=SC2086
			ppsim $args >"$TMP/out" 2>"$TMP/err"
			status=$?
			if [ $status -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
				grep -q "^ppsim: .*$kind needs" "$TMP/err" && [ ! -s "$TMP/out" ]; then
				ok
			else
				not_ok "ppsim $args: exit $status, '$(head -c 300 "$TMP/err")'; DeepSeek's $kind refuses it ($(cat "$TMP/ref.csv"))"
			fi
			continue
		fi
		# shellcheck disable=SC2086
		if ! ppsim $args --export-schedule="$TMP/got.csv" --export-format=torch \
			--format=json >"$TMP/out.json" 2>"$TMP/err"; then
			not_ok "ppsim $args: $(head -c 300 "$TMP/err")"
		elif ! cmp -s "$TMP/ref.csv" "$TMP/got.csv"; then
			not_ok "ppsim $args: order differs from DeepSeek's ($ref, case ${f##*/})"
		elif ! ppsim --schedule-file="$TMP/ref.csv" --export-schedule="$TMP/back.csv" \
			--export-format=torch --format=json >"$TMP/back.json" 2>"$TMP/err" ||
			! cmp -s "$TMP/ref.csv" "$TMP/back.csv" ||
			[ "$("$JGET" "$TMP/back.json" makespan)" != "$("$JGET" "$TMP/out.json" makespan)" ]; then
			not_ok "ppsim --schedule-file of DeepSeek's $kind order p=$p m=$m: not read back as it is: $(head -c 300 "$TMP/err")"
		else
			ok
		fi
	done
	[ "$want_cases" -gt 0 ] && [ $cases -eq "$want_cases" ] && ok ||
		not_ok "$ref: $cases cases run, $want_cases in the file"
done

# DeepSeek's README figure, 8 ranks and 20 micro-batches: F = B = W = 1 (a full backward
# B + W = 2), F&B = 0.8 x 3 = 2.4: the middle ranks idle (8/2-1)(2.4+2-3) = 4.2, every rank
# peaks at PP+1 = 9 stages' activations, and the closed form holds
run_json -s dualpipe -p 8 -m 20 --overlap-factor 0.8
expect devices.3.idle 4.2
expect devices.4.idle 4.2
expect devices.0.peak_activations 9
expect devices.3.peak_activations 9
expect bubble_ratio 25/384
expect bubble_ratio_theory 25/384
# the traces' activations counter is in the unit of peak_activations (a chunk counts 1): it
# peaks at 9 too, on each device, in the Chrome trace and in Perfetto's (with a model, at the
# report's figure)
ppsim -s dualpipe -p 8 -m 20 --overlap-factor 0.8 --trace="$TMP/dp.json" >/dev/null
for d in 0 3 7; do
	peak=$(grep -o "\"activations\",\"ph\":\"C\",\"pid\":$d,[^}]*}}" "$TMP/dp.json" |
		sed 's/.*micro-batches"://; s/}}//' | sort -g | tail -n 1)
	[ "$peak" = 9 ] && ok || not_ok "dualpipe's trace: device $d's activations peak at $peak, not 9"
done
ppsim --model=llama3-8b -s dualpipe -p 4 -m 8 --trace="$TMP/dpm.json" -f json >"$TMP/dpm-report.json"
want=$("$JGET" "$TMP/dpm-report.json" devices.0.peak_activations)
peak=$(grep -o '"activations","ph":"C","pid":0,[^}]*}}' "$TMP/dpm.json" |
	sed 's/.*micro-batches"://; s/}}//' | sort -g | tail -n 1)
awk -v a="$peak" -v b="$want" 'BEGIN { exit !(a - b < 1e-9 && b - a < 1e-9) }' && ok ||
	not_ok "dualpipe with a model: the trace's activations peak at $peak, the report's $want"
# Perfetto's trace holds the same samples as the Chrome trace's (pftrace-check.py compares them)
ppsim -s dualpipe -p 8 -m 20 --overlap-factor 0.8 --trace="$TMP/dp.pftrace" >/dev/null
if python3 "$ROOT/tests/tools/pftrace-check.py" "$TMP/dp.pftrace" "$TMP/dp.json" >"$TMP/pf.out"; then
	ok
else
	not_ok "dualpipe's Perfetto trace: $(head -c 300 "$TMP/pf.out")"
fi
# no overlap gain (F&B = F + B): (4-1)(3+2-3) = 6
run_json -s dualpipe -p 8 -m 20
expect devices.4.idle 6
# half the micro-batches each way: m(p-1) messages each way, not 2m(p-1) as DualPipeV's
run_json -s dualpipe -p 8 -m 20 --tcomm 0.1
expect p2p.messages 280

# twice the parameters: every rank holds its stage of both copies of the model, each copy the
# whole model over p stages, as 1F1B on p devices
for s in 1f1b dualpipe; do
	if ! ppsim -s $s -p 4 -m 8 --model=llama3-8b --format=json >"$TMP/$s.json" 2>"$TMP/err"; then
		not_ok "ppsim -s $s -p 4 -m 8 --model=llama3-8b: $(head -c 300 "$TMP/err")"
	fi
done
for d in 0 1 2 3; do
	one=$("$JGET" "$TMP/1f1b.json" devices.$d.state_bytes)
	two=$("$JGET" "$TMP/dualpipe.json" devices.$d.state_bytes)
	if awk -v a="$one" -v b="$two" 'BEGIN { exit (b == 2 * a) ? 0 : 1 }'; then
		ok
	else
		not_ok "dualpipe device $d holds $two bytes of state, not twice 1f1b's $one"
	fi
done

# the two routes read back from every format, and validate names them
for fmt in ppsim torch torch-comms; do
	if ! ppsim -s dualpipe -p 4 -m 10 --tcomm 0.25 --export-schedule="$TMP/dp.$fmt" \
		--export-format=$fmt --format=json >"$TMP/a.json" 2>"$TMP/err" ||
		! ppsim --schedule-file="$TMP/dp.$fmt" --tcomm 0.25 --format=json >"$TMP/b.json" \
			2>>"$TMP/err" ||
		! ppsim validate "$TMP/dp.$fmt" >"$TMP/out" 2>>"$TMP/err"; then
		not_ok "dualpipe through --export-format=$fmt: $(head -c 300 "$TMP/err")"
	elif [ "$("$JGET" "$TMP/a.json" makespan)" != "$("$JGET" "$TMP/b.json" makespan)" ] ||
		[ "$("$JGET" "$TMP/a.json" p2p.messages)" != "$("$JGET" "$TMP/b.json" p2p.messages)" ]; then
		not_ok "dualpipe read back from --export-format=$fmt runs differently"
	elif ! grep -q 'V placement with 2 routes' "$TMP/out"; then
		not_ok "ppsim validate of dualpipe's $fmt export: $(head -c 300 "$TMP/out")"
	else
		ok
	fi
done

# the two copies sum their gradients after the step's ops: on two A100s of one node (no data
# parallelism), each device all-reduces its two stages' fp32 gradients, the whole of Llama 3
# 8B's 8,029,995,008 parameters, with the other: 32.12 GB at 0.8 x 300 GB/s, and two steps of
# 3 us for each of the two, 133.84525 ms of exposed dp
run_json --model=llama3-8b -s dualpipe -p 2 -m 4 --gpus=2
expect step_breakdown.exposed_dp 133.84525 1e-6
