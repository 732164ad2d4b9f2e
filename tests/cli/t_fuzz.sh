# The fuzzing seeds and the inputs that once broke a harness (tests/fuzz/), replayed through
# the ppsim command: each gives a result, or exactly one "ppsim:" line and a status from 1 to 4.

# replay KIND FILE ARGS...: runs ppsim ARGS and checks how it ended.
replay() {
	kind=$1
	file=$2
	shift 2
	ppsim "$@" >/dev/null 2>"$TMP/replay.err" </dev/null
	status=$?
	if [ $status -eq 0 ] && [ ! -s "$TMP/replay.err" ]; then
		ok
	elif [ $status -ge 1 ] && [ $status -le 4 ] && [ "$(wc -l <"$TMP/replay.err")" -eq 1 ] &&
		grep -q '^ppsim: ' "$TMP/replay.err"; then
		ok
	else
		not_ok "$kind $(basename "$file"): status $status, $(head -c 200 "$TMP/replay.err")"
	fi
}

for dir in "$ROOT/tests/fuzz/corpus" "$ROOT/tests/fuzz/regressions"; do
	for f in "$dir"/config/*; do
		[ -f "$f" ] || continue
		# a config may name a trace or schedule file; only the config itself is under test
		replay config "$f" -c "$f" --max-ops=20000
	done
	for f in "$dir"/schedfile/*; do
		[ -f "$f" ] || continue
		replay schedfile "$f" validate "$f"
	done
	for f in "$dir"/shard/*; do
		[ -f "$f" ] || continue
		replay shard "$f" merge "$f"
	done
	for f in "$dir"/requests/*; do
		[ -f "$f" ] || continue
		replay requests "$f" serve --requests="$f" --token-time=0.01 --max-ops=20000
	done
done
