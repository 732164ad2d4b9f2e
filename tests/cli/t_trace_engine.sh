# The Chrome trace as Chrome's own trace engine (the DevTools Performance panel's model, npm
# @paulirish/trace_engine) reads it: every flow binds to its slices at both ends and every op
# lies inside the trace's bounds, for each kind of schedule and link and for a serving run. The
# engine is installed into the build directory once (build-aux/ensure-trace-engine); without
# node, npm or the network the check is skipped. test_report.c emulates the binding rule.

NPM_DIR=$(dirname "$PPSIM")/npm
if [ -n "${PPSIM_NO_BROWSER:-}" ]; then
	skip "Chrome's trace engine" "PPSIM_NO_BROWSER is set"
elif ! why=$(sh "$ROOT/build-aux/ensure-trace-engine" "$NPM_DIR"); then
	skip "Chrome's trace engine" "$why"
else
	n=0
	for args in "-p 4 -m 8" "-p 4 -m 8 --tcomm 0.5" "-s interleaved -p 4 -v 2 -m 8" \
		"-s interleaved -p 4 -v 2 -m 8 --tcomm 0.5" "-s zbv -p 4 -m 8 --tcomm 0.5" \
		"-s zbv -p 4 -m 8 --tcomm 0.5 --duplex=half" "-p 4 -m 8 --duplex=half --tcomm 0.5" \
		"-s dualpipev -p 4 -m 10" "-s dualpipev -p 4 -m 10 --trace-names=torch" \
		"serve -p 3 --num-requests=5 --token-time=0.01"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		ppsim $args --trace="$TMP/engine$n.json" >/dev/null ||
			not_ok "ppsim $args --trace failed"
	done
	ppsim -s zbv -p 4 -m 8 --tcomm 0.5 --trace="$TMP/engine$((n + 1)).json.gz" >/dev/null &&
		n=$((n + 1))
	# the checker's own controls: flows of another category than their slices', and a slice
	# at ts 0, fail it
	sed 's/"cat":"forward","ph":"\([sf]\)"/"cat":"p2p","ph":"\1"/' "$TMP/engine1.json" \
		>"$TMP/unbound.json"
	printf '%s\n' '{"traceEvents":[{"name":"F0","cat":"forward","ph":"X","pid":0,"tid":0,' \
		'"ts":0,"dur":1000},{"name":"F1","cat":"forward","ph":"X","pid":0,"tid":0,' \
		'"ts":1000,"dur":1000}]}' >"$TMP/at0.json"
	node "$ROOT/tests/tools/trace-engine.mjs" "$NPM_DIR" "$TMP"/engine*.json* \
		"$TMP/unbound.json" "$TMP/at0.json" >"$TMP/engine.out" 2>&1
	for i in $(seq 1 $n); do
		if grep -q "^ok $TMP/engine$i.json\(.gz\)\?: " "$TMP/engine.out"; then ok; else
			not_ok "trace engine: $(grep "engine$i.json" "$TMP/engine.out" || head -c 400 "$TMP/engine.out")"
		fi
	done
	if grep -q "^FAIL $TMP/unbound.json: .* flows do not bind" "$TMP/engine.out" &&
		grep -q "^FAIL $TMP/at0.json: .*outside the bounds" "$TMP/engine.out"; then ok; else
		not_ok "trace engine: the checker passes what it should not: $(tail -n 2 "$TMP/engine.out")"
	fi
fi
