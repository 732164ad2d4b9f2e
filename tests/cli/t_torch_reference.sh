# PyTorch's own orders read back. For each case of tests/golden/torch-reference/CLASS-FORMAT.txt
# (written by tests/tools/torch-reference.py from PyTorch's schedule classes, see the README
# there), in both of PyTorch's CSV formats: `ppsim validate -p P -m M -v V` accepts the file
# as fitting its job, a run of it (--schedule-file) simulates the order the file gives (its
# export is the file's compute actions, cell for cell), and where ppsim has the schedule
# itself, ppsim's own order is PyTorch's. PyTorch's 1F1B pipeline_order at that commit is not
# a complete order (its last rank runs F of micro-batches 1 to m, not 0 to m-1; PyTorch's own
# _validate_schedule refuses it): ppsim refuses it too, naming that rank's line and the cell of
# micro-batch m, and its other ranks are ppsim's 1f1b.
# Which cases run: every case of at most 2 ranks and one in 3 of the others in make test; under
# a sanitizer or valgrind, whose runs cost ten times as much, every single-rank case and one in
# 30 of the others; PPSIM_FULL_REFERENCE=1 runs every case (about two and a half minutes).
# Every case is read and counted.
ref_dir="$ROOT/tests/golden/torch-reference"
stride=3 small=2
[ -n "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ] && stride=30 small=1
[ -n "${PPSIM_FULL_REFERENCE:-}" ] && stride=1
seen=0
# the compute actions of a PyTorch CSV, a line per rank: no empty cells, transfers or FSDP
compute() {
	tr -d '\r' <"$1" | awk -F, '{ o = ""; for (i = 1; i <= NF; i++) { c = $i
		if (c == "" || c ~ /SEND|RECV|SHARD|REDUCE/) continue; o = o (o == "" ? "" : ",") c }
		print o }'
}
for pair in GPipe:gpipe 1F1B:1f1b Interleaved1F1B:interleaved LoopedBFS:loopedbfs \
	InterleavedZeroBubble:interleaved-zb ZBVZeroBubble:zbv DualPipeV:dualpipev; do
	cls=${pair%%:*} kind=${pair#*:}
	for fmt in compute_only compute_comms; do
		ref="$ref_dir/$cls-$fmt.txt"
		want_cases=$(grep -c '^# ' "$ref")
		cases=0 read=0
		rm -rf "$TMP/cases"
		mkdir "$TMP/cases"
		awk -v dir="$TMP/cases" '/^# / { n++ } { print > (dir "/" n) }' "$ref"
		for f in "$TMP"/cases/*; do
			cases=$((cases + 1))
			head -1 "$f" | grep -q ' refused: ' && continue
			set -- $(head -1 "$f" | sed 's/^# //; s/[a-z]*=//g')
			p=$1 m=$2 v=$3 at="$cls $fmt p=$p m=$m v=$v"
			seen=$((seen + 1))
			[ "$p" -le $small ] || [ $((seen % stride)) -eq 0 ] || continue
			tail -n +2 "$f" >"$TMP/case.csv"
			ppsim validate -p "$p" -m "$m" -v "$v" "$TMP/case.csv" >"$TMP/out" 2>"$TMP/err"
			status=$?
			if [ "$cls" = 1F1B ]; then
				# the last rank's line, its cell of micro-batch m (or, with no F of
				# micro-batch 0 anywhere else missing, that rank's line)
				if [ $status -eq 3 ] && [ ! -s "$TMP/out" ] &&
					grep -q "^ppsim: schedule '[^']*':$p:[0-9]*: rank $((p - 1))" "$TMP/err"; then
					ok
				else
					not_ok "$at: validate exit $status, '$(head -c 300 "$TMP/err")'"
				fi
				compute "$TMP/case.csv" | head -n $((p - 1)) >"$TMP/ref.txt"
				ppsim -s 1f1b -p "$p" -m "$m" --export-schedule="$TMP/own.csv" \
					--export-format=torch >/dev/null 2>"$TMP/err" &&
					compute "$TMP/own.csv" | head -n $((p - 1)) >"$TMP/own.txt" &&
					cmp -s "$TMP/ref.txt" "$TMP/own.txt" && ok ||
					not_ok "$at: ranks 0 to $((p - 2)) differ from ppsim's 1f1b"
				continue
			fi
			if [ $status -ne 0 ] || ! grep -q "^p=$p v=$v m=$m," "$TMP/out"; then
				not_ok "$at: validate exit $status: $(head -c 300 "$TMP/err")"
				continue
			fi
			if ! ppsim --schedule-file="$TMP/case.csv" --export-schedule="$TMP/back.csv" \
				--export-format=torch -f csv >"$TMP/out" 2>"$TMP/err"; then
				not_ok "$at: run: $(head -c 300 "$TMP/err")"
				continue
			fi
			compute "$TMP/case.csv" >"$TMP/ref.txt"
			compute "$TMP/back.csv" >"$TMP/back.txt"
			if ! cmp -s "$TMP/ref.txt" "$TMP/back.txt"; then
				not_ok "$at: the order simulated is not the file's"
				continue
			fi
			read=$((read + 1))
			ok
			# ppsim's own schedule of that name, where it takes the shape (the compute
			# actions are the same in both formats: compared once)
			if [ $fmt = compute_only ] && ppsim -s "$kind" -p "$p" -m "$m" -v "$v" --export-schedule="$TMP/own.csv" \
				--export-format=torch >/dev/null 2>"$TMP/err"; then
				compute "$TMP/own.csv" >"$TMP/own.txt"
				cmp -s "$TMP/ref.txt" "$TMP/own.txt" && ok ||
					not_ok "$at: ppsim's $kind order differs from PyTorch's"
			fi
		done
		[ "$want_cases" -gt 0 ] && [ $cases -eq "$want_cases" ] && ok ||
			not_ok "$ref: $cases cases run, $want_cases in the file"
		[ "$cls" = 1F1B ] || [ $read -gt 0 ] && ok || not_ok "$ref: no case read"
	done
done
