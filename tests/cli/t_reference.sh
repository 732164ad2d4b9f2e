# The zero-bubble authors' V generators, op for op: for each case of
# tests/golden/zb-reference/KIND.txt (written by tests/tools/zb-reference.py from the authors'
# code, see the README there), ppsim's schedule KIND (zbv: zbv-auto, v1f1b: 1f1b-v) exports
# the same PyTorch CSV and its makespan is the authors'; every case of the file runs. The
# authors' times are per chunk op; ppsim's --tf is a device's two chunks, so it gets twice each.
# split_cases REF: the cases of a reference file into TMP/cases/N (each its "# " header line,
# then its device lines); cases=0 and want_cases the file's count, for the caller's check
split_cases() {
	cases=0
	want_cases=$(grep -c '^# ' "$1")
	rm -rf "$TMP/cases"
	mkdir "$TMP/cases"
	awk -v dir="$TMP/cases" '/^# / { n++ } { print > (dir "/" n) }' "$1"
}

for kind in zbv vhalf vmin v1f1b; do
	case $kind in
	zbv) name=zbv-auto ;;
	v1f1b) name=1f1b-v ;;
	*) name=$kind ;;
	esac
	ref="$ROOT/tests/golden/zb-reference/$kind.txt"
	split_cases "$ref"
	for f in "$TMP"/cases/*; do
		set -- $(head -1 "$f" | sed 's/^# //; s/[a-z]*=//g')
		p=$1 m=$2 want=$7
		tf=$(awk -v x="$3" 'BEGIN { print 2 * x }')
		tb=$(awk -v x="$4" 'BEGIN { print 2 * x }')
		tw=$(awk -v x="$5" 'BEGIN { print 2 * x }')
		cases=$((cases + 1))
		args="-s $name -p $p -m $m --tf $tf --tb $tb --tw $tw --tcomm $6"
		tail -n +2 "$f" >"$TMP/ref.csv"
		rm -f "$TMP/got.csv"
		# shellcheck disable=SC2086
		if ! ppsim $args --export-schedule="$TMP/got.csv" --export-format=torch \
			--format=json >"$TMP/out.json" 2>"$TMP/err"; then
			not_ok "ppsim $args: $(head -c 300 "$TMP/err")"
		elif ! cmp -s "$TMP/ref.csv" "$TMP/got.csv"; then
			not_ok "ppsim $args: order differs from the authors' ($ref, case ${f##*/})"
		else
			RUN="ppsim $args"
			expect makespan "$want"
		fi
	done
	[ "$want_cases" -gt 0 ] && [ $cases -eq "$want_cases" ] && ok ||
		not_ok "$ref: $cases cases run, $want_cases in the file"
done

# Megatron-Core's interleaved schedules, op for op: for each case of
# tests/golden/megatron-reference/KIND.txt (written by tests/tools/megatron-reference.py from
# Megatron-LM's own schedules.py and combined_1f1b.py, see the README there), ppsim's schedule
# (combined: interleaved-combined, interleaved: interleaved) with the case's group size exports
# the same PyTorch CSV, its combined steps as overlapped pairs; every case of the file runs.
for kind in combined interleaved; do
	case $kind in
	combined) name=interleaved-combined ;;
	*) name=$kind ;;
	esac
	ref="$ROOT/tests/golden/megatron-reference/$kind.txt"
	split_cases "$ref"
	for f in "$TMP"/cases/*; do
		set -- $(head -1 "$f" | sed 's/^# //; s/[a-z]*=//g')
		cases=$((cases + 1))
		args="-s $name -p $1 -v $2 -m $3 --group-size $4"
		tail -n +2 "$f" >"$TMP/ref.csv"
		rm -f "$TMP/got.csv"
		# shellcheck disable=SC2086
		if ! ppsim $args --export-schedule="$TMP/got.csv" --export-format=torch \
			>/dev/null 2>"$TMP/err"; then
			not_ok "ppsim $args: $(head -c 300 "$TMP/err")"
		elif ! cmp -s "$TMP/ref.csv" "$TMP/got.csv"; then
			not_ok "ppsim $args: order differs from Megatron-LM's ($ref, case ${f##*/})"
		else
			ok
		fi
	done
	[ "$want_cases" -gt 0 ] && [ $cases -eq "$want_cases" ] && ok ||
		not_ok "$ref: $cases cases run, $want_cases in the file"
done
