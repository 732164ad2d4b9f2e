# Golden outputs of the text report, the JSON report, timelines, `list` and `--help`.
table "$ROOT/tests/cli/golden.txt" >"$TMP/golden"
while IFS='|' read -r file args; do
	# shellcheck disable=SC2086 # the arguments are meant to split on spaces
	golden $file $args </dev/null
done <"$TMP/golden"

# --dump-ops writes one CSV row per op, in each device's execution order.
if ppsim -s 1f1b -p 2 -m 2 --dump-ops="$TMP/ops.csv" >/dev/null &&
	diff -u "$ROOT/tests/golden/1f1b-p2-m2-ops.csv" "$TMP/ops.csv"; then
	ok
else
	not_ok "--dump-ops output differs from tests/golden/1f1b-p2-m2-ops.csv"
fi

# --version and --help exit 0 and write to stdout; every command takes --version (validate,
# calibrate, list and completion refused it)
for args in --version "run --help" $(ppsim --help | sed -n 's/^ *\(Usage: \)\{0,1\}ppsim \([a-z][a-z]*\) .*/\2/p' |
	sort -u | sed 's/$/:--version/'); do
	args=$(echo "$args" | tr ':' ' ')
	# shellcheck disable=SC2086 # two words
	ppsim $args >"$TMP/out" 2>"$TMP/err"
	status=$?
	case $args in
	*--version) grep -qx 'ppsim [0-9][0-9.]*' "$TMP/out" && [ "$(wc -l <"$TMP/out")" -eq 1 ] ;;
	*) grep -q '^Usage: ppsim' "$TMP/out" ;;
	esac && shown=yes || shown=no
	if [ "$status" -eq 0 ] && [ ! -s "$TMP/err" ] && [ "$shown" = yes ]; then ok; else
		not_ok "ppsim $args: exit $status, stderr '$(head -c 200 "$TMP/err")', stdout '$(head -c 200 "$TMP/out")'"
	fi
done
