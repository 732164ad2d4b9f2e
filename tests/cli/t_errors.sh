# Bad input: one line on stderr beginning "ppsim:", nothing on stdout, the right exit status.
table "$ROOT/tests/cli/bad_input.txt" >"$TMP/cases"
while IFS='|' read -r status args text; do
	text=$(echo "$text" | sed 's/^ *//; s/ *$//')
	# shellcheck disable=SC2086 # the arguments are meant to split on spaces
	fails $status "$text" $args </dev/null
done <"$TMP/cases"

# A failed --dump-ops leaves no file behind and prints no report.
fails 4 "cannot write" --dump-ops="$TMP/missing/ops.csv"
if [ -e "$TMP/missing" ]; then not_ok "failed --dump-ops left $TMP/missing"; else ok; fi
