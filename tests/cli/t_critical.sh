# The critical path and the slacks on the command line (docs/concepts.md, "Critical path and
# slack"): the JSON report's path adds up to its time, the op dump's slack column, the trace's
# and the HTML report's marks agree with it, a dump with slacks reads back as a schedule, and a
# serving run has none of them.

# ZB-H1, p = 2, m = 1 at unit costs: device 0 ends the step at 5, 3 units of it on device 0 and
# 2 on device 1; device 1's W alone has slack, 1.
ppsim -s zbh1 -p 2 -m 1 -f json --dump-ops="$TMP/zb.csv" >"$TMP/zb.json"
if [ "$("$JGET" "$TMP/zb.json" critical_path)" = \
	'{"time":5,"device":0,"ops":5,"messages":2,"devices":[3,2],"kinds":{"F":2,"B":2,"W":1,"BW":0,"pair":0},"transfer":0,"tail":0}' ]
then ok; else not_ok "zbh1 -p 2 -m 1: critical_path is $("$JGET" "$TMP/zb.json" critical_path)"; fi
if [ "$(head -1 "$TMP/zb.csv")" = "device,chunk,stage,op,microbatch,start,end,slack" ] &&
	[ "$(awk -F, 'NR > 1 && $8 != 0' "$TMP/zb.csv")" = "1,0,1,W,0,3,4,1" ]; then ok; else
	not_ok "zbh1 -p 2 -m 1 --dump-ops: the slacks are not device 1's W's 1 alone: $(cat "$TMP/zb.csv")"
fi

# The parts add up to the path's time, with messages, pairs and a model's streams.
for args in "-s interleaved -p 4 -v 2 -m 8 --tcomm 0.3" "-s dualpipe -p 4 -m 8 --tcomm 0.2" \
	"-s 1f1b -p 4 -m 8 --tcomm 0.5 --comm=blocking --duplex=half" \
	"--model=llama3-8b -p 2 -m 4 --tp 2 --dp 2 --overlap-grad-reduce=yes"; do
	# shellcheck disable=SC2086 # the arguments are meant to split on spaces
	ppsim $args -f json >"$TMP/c.json"
	if "$JGET" "$TMP/c.json" critical_path | tr -d '{}"[]' | tr ',:' '\n ' | awk '
		$1 == "time" { t = $2 } $1 == "transfer" || $1 == "tail" { s += $2 }
		$1 == "devices" { in_dev = 1; s += $2; next } in_dev && NF == 1 { s += $1; next }
		{ in_dev = 0 }
		END { d = s - t; if (d < 0) d = -d; exit !(t > 0 && d <= 1e-9 * t) }'; then ok; else
		not_ok "ppsim $args: critical_path's devices, transfer and tail do not add up to its time: $("$JGET" "$TMP/c.json" critical_path)"
	fi
done

# The trace marks the ops the dump gives no slack, and an HTML report holds the slacks.
ppsim -s interleaved -p 4 -v 2 -m 8 --tcomm 0.3 --trace="$TMP/t.json" --html="$TMP/h.html" \
	--dump-ops="$TMP/t.csv" >/dev/null
zero=$(awk -F, 'NR > 1 && $NF == 0' "$TMP/t.csv" | wc -l | tr -d ' ')
if [ "$(grep -c '"critical":true' "$TMP/t.json")" -eq "$zero" ] &&
	[ "$(grep -c '"cname":"terrible"' "$TMP/t.json")" -eq "$zero" ] &&
	[ "$(grep -c '"critical":' "$TMP/t.json")" -eq 128 ] && [ "$zero" -gt 0 ] &&
	grep -q '"slackTick":' "$TMP/h.html"; then ok; else
	not_ok "--trace marks $(grep -c '"critical":true' "$TMP/t.json") ops critical, --dump-ops gives $zero no slack"
fi
# a dump with its slack column is a schedule file
if ppsim validate "$TMP/t.csv" >/dev/null; then ok; else not_ok "validate of a --dump-ops file failed"; fi

# A serving run has no slacks: no column, no marks.
ppsim serve -p 2 --num-requests 8 --dump-ops="$TMP/s.csv" --trace="$TMP/s.json" \
	--html="$TMP/s.html" >/dev/null
if [ "$(head -1 "$TMP/s.csv")" = "device,chunk,stage,op,microbatch,start,end" ] &&
	! grep -q '"critical"' "$TMP/s.json" && ! grep -q '"slackTick"' "$TMP/s.html"; then ok; else
	not_ok "serve: a slack column or critical marks"
fi
