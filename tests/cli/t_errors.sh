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

# A reader that stops reading (`| head -1`) ends the run quietly with status 0, a streaming
# sweep included; a full standard output is status 4.
for args in "-p 4 -m 8 --timeline=100" "sweep -p 1:64 -m 4:64 --format=jsonl"; do
	# shellcheck disable=SC2086
	{ ppsim $args 2>"$TMP/pipe.err"; echo $? >"$TMP/pipe.status"; } | head -1 >/dev/null
	if [ "$(cat "$TMP/pipe.status")" -eq 0 ] && [ ! -s "$TMP/pipe.err" ]; then ok; else
		not_ok "ppsim $args | head -1: status $(cat "$TMP/pipe.status"), $(head -c 200 "$TMP/pipe.err")"
	fi
done
# ... and the files of such a sweep (and of merge) still get every record: they were committed
# cut short at the point the reader left, with status 0
for out in "--records=$TMP/rec.csv" "--html=$TMP/rec.html" "--shard=1/2 --shard-file=$TMP/rec.pps"; do
	# shellcheck disable=SC2086 # out is words
	ppsim sweep -p 2:64 -m 8:64 --format=jsonl --quiet $out >/dev/null 2>&1
	for f in "$TMP"/rec.*; do mv "$f" "$f.whole"; done
	# shellcheck disable=SC2086
	{ ppsim sweep -p 2:64 -m 8:64 --format=jsonl --quiet $out 2>"$TMP/pipe.err"
		echo $? >"$TMP/pipe.status"; } | head -1 >/dev/null
	f=$(ls "$TMP"/rec.* | grep -v '\.whole$')
	if [ "$(cat "$TMP/pipe.status")" -eq 0 ] && [ ! -s "$TMP/pipe.err" ] &&
		cmp -s "$f" "$f.whole"; then
		ok
	else
		not_ok "sweep $out | head -1: status $(cat "$TMP/pipe.status"), the file $(wc -c <"$f") bytes against $(wc -c <"$f.whole")"
	fi
	rm -f "$TMP"/rec.*
done
ppsim sweep -p 2:64 -m 8:64 --quiet --shard=1/2 --shard-file="$TMP/m1.pps" >/dev/null
ppsim sweep -p 2:64 -m 8:64 --quiet --shard=2/2 --shard-file="$TMP/m2.pps" >/dev/null
ppsim merge --format=jsonl --records="$TMP/mrec-whole.csv" "$TMP/m1.pps" "$TMP/m2.pps" >/dev/null
{ ppsim merge --format=jsonl --records="$TMP/mrec.csv" "$TMP/m1.pps" "$TMP/m2.pps" 2>/dev/null
	echo $? >"$TMP/pipe.status"; } | head -1 >/dev/null
if [ "$(cat "$TMP/pipe.status")" -eq 0 ] && cmp -s "$TMP/mrec.csv" "$TMP/mrec-whole.csv"; then ok; else
	not_ok "merge --records | head -1: status $(cat "$TMP/pipe.status"), $(wc -l <"$TMP/mrec.csv") of $(wc -l <"$TMP/mrec-whole.csv") lines"
fi
if [ -w /dev/full ]; then
	ppsim -p 4 -m 8 >/dev/full 2>"$TMP/full.err"
	status=$?
	if [ $status -eq 4 ] && grep -q "^ppsim: cannot write 'standard output': No space left on device" "$TMP/full.err"; then ok; else
		not_ok "ppsim > /dev/full: status $status, $(cat "$TMP/full.err")"
	fi
else
	skip "a full standard output" "no writable /dev/full"
fi

# A message is one write to standard error, so that runs sharing a log (a job array's) do not
# interleave inside a line (stderr was unbuffered: one write for each piece of the line).
if [ -n "${PPSIM_WRAP:-}" ]; then
	elsewhere "one write a message" "it runs ppsim under strace, as make test does"
elif ! command -v strace >/dev/null 2>&1; then
	skip "one write a message" "no strace: make test installs it"
else
	# (LeakSanitizer does not run under ptrace: a sanitizer build's leak check is off here)
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=write -o "$TMP/writes" "$PPSIM" -p 0 \
		>/dev/null 2>&1
	n=$(grep -c '^[0-9]* *write(2,' "$TMP/writes")
	if [ "$n" = 1 ]; then ok; else not_ok "one message took $n writes to standard error"; fi
fi
