# `ppsim validate`: every generator's --dump-ops output reads back as a valid schedule with the
# same shape, and invalid schedule files get a one-line error naming the op or line, exit 3.
for args in "-s gpipe -p 4 -m 8" "-s 1f1b -p 4 -m 8" "-s interleaved -p 4 -v 2 -m 8" \
	"-s interleaved -p 3 -v 3 -m 2" "-s zbh1 -p 4 -m 8" "-s zbh2 -p 4 -m 8"; do
	# shellcheck disable=SC2086
	if ! ppsim $args --dump-ops="$TMP/ops.csv" >/dev/null; then
		not_ok "ppsim $args --dump-ops failed"
		continue
	fi
	set -- $args
	want="p=$4 v=1 m=$6"
	[ "$1 $2" = "-s interleaved" ] && want="p=$4 v=$6 m=$8"
	if ppsim validate "$TMP/ops.csv" >"$TMP/validate.out" 2>&1 &&
		grep -q "^schedule '.*': valid$" "$TMP/validate.out" &&
		grep -q "^$want, " "$TMP/validate.out"; then
		ok
	else
		not_ok "validate of ppsim $args --dump-ops: $(cat "$TMP/validate.out")"
	fi
done

golden validate-1f1b.txt validate tests/golden/1f1b-p2-m2-ops.csv

table "$ROOT/tests/cli/bad_schedules.txt" >"$TMP/bad_schedules"
while IFS='|' read -r file text; do
	file=$(echo $file)
	text=$(echo "$text" | sed 's/^ *//; s/ *$//')
	fails 3 "$text" validate "$ROOT/tests/cli/schedules/$file" </dev/null
done <"$TMP/bad_schedules"
