# The trace in Perfetto's protobuf format (--trace=FILE.pftrace): for each kind of schedule,
# link and stream, it holds event for event what the JSON trace of the same run holds
# (tests/tools/pftrace-check.py decodes the wire format itself and compares the slices, their
# arguments, the flows, the counters and the metadata, and checks the packet sequence's
# interning); .perfetto-trace names it too, .gz compresses it; a run it cannot hold is refused
# before it starts, and a file it cannot write is left as it was.

CHECK="$ROOT/tests/tools/pftrace-check.py"
if ! command -v python3 >/dev/null 2>&1; then
	skip "the Perfetto trace checker" "no python3"
else
	MODEL8="--model=llama3-8b --gpu=a100-80g --seq=4096 -p 4 -m 8 --mbs=4 --gpus=4"
	n=0
	while IFS= read -r args; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # args is words
		if ppsim $args --trace="$TMP/pf$n.json" >/dev/null &&
			ppsim $args --trace="$TMP/pf$n.pftrace" >/dev/null &&
			out=$(python3 "$CHECK" "$TMP/pf$n.pftrace" "$TMP/pf$n.json"); then
			ok
		else
			not_ok "pftrace of '$args': ${out:-the run failed}"
		fi
	done <<EOF
-s 1f1b -p 4 -m 8
-s 1f1b -p 1 -m 3
-s interleaved -p 4 -v 2 -m 8 --tcomm 0.1
-s interleaved -p 2 -v 3 -m 4
-s zbv -p 4 -m 8 --tcomm 0.2
-s dualpipev -p 4 -m 10
-s dualpipev -p 4 -m 8 --tcomm 0.1 --trace-names=torch
-s zbh1 -p 4 -m 8 --tcomm 0.3 --duplex=half
-p 4 -m 8 --tcomm 0.5 --duplex=half --trace-names=torch
-s dualpipe -p 4 -m 8 --tcomm 0.1
$MODEL8 --offload=0.5 --host-bandwidth=100
-p 4 -m 8 --model=qwen3-30b-a3b --layers=16 --gpu=h100-sxm --tp=2 --ep=8 --dp=8
-s dualpipev -p 4 -m 8 --model=qwen3-30b-a3b --layers=16 --gpu=h100-sxm --tp=2 --ep=8 --dp=8
-s interleaved-combined -p 2 -v 2 -m 4 --model=qwen3-30b-a3b --layers=8 --gpu=h100-sxm --ep=8 --dp=8
-s interleaved -p 4 -v 2 -m 8 --model=llama3-70b --layers=16 --tp=8 --cp=2 --dp=4 --distributed-optimizer=yes --overlap-grad-reduce=yes --overlap-param-gather=yes --tp-overlap=pipelined
-s zb-auto -p 4 -m 8 --tcomm 0.25 --tf 1.5
--model=llama3-8b --tp=8 -p 2 -m 4 --straggler=0:0.5,1:2@100
--model=llama3-8b -p 2 -m 4 -s gpipe --tp=4 --offload=1 --host-bandwidth=1 --tp-overlap=none
-s 1f1b -p 2 -m 4 --model=llama3-8b --layers=4 --tp=8 --offload=1 --host-bandwidth=5 --straggler=0:0.5
-s dualpipe -p 2 -m 8 --model=llama3-8b --layers=8 --tp=4 --tp-overlap=none --straggler=0:0.3
serve -p 3 --num-requests=5 --token-time=0.01
EOF
	# the checker's own controls: another run's JSON, a packet cut short, a slice moved by a
	# nanosecond, each fails it
	out=$(python3 "$CHECK" "$TMP/pf1.pftrace" "$TMP/pf3.json")
	if [ $? -eq 1 ] && echo "$out" | grep -q '^FAIL'; then ok; else
		not_ok "pftrace-check passed another run's JSON: $out"
	fi
	head -c 5000 "$TMP/pf1.pftrace" >"$TMP/cut.pftrace"
	out=$(python3 "$CHECK" "$TMP/cut.pftrace" "$TMP/pf1.json")
	if [ $? -eq 1 ] && echo "$out" | grep -q '^FAIL.*past the end'; then ok; else
		not_ok "pftrace-check passed a cut trace: $out"
	fi
	sed 's/"ts":1001,/"ts":1001.002,/' "$TMP/pf1.json" >"$TMP/moved.json"
	out=$(python3 "$CHECK" "$TMP/pf1.pftrace" "$TMP/moved.json")
	if [ $? -eq 1 ] && echo "$out" | grep -q '^FAIL.*ns, the JSON'; then ok; else
		not_ok "pftrace-check passed a slice moved by 2 ns: $out"
	fi

	# .perfetto-trace is the same format; .gz compresses it, byte for byte the plain file
	ppsim -s zbv -p 4 -m 8 --tcomm 0.2 --trace="$TMP/z.perfetto-trace" >/dev/null &&
		ppsim -s zbv -p 4 -m 8 --tcomm 0.2 --trace="$TMP/z.pftrace.gz" >/dev/null
	if cmp -s "$TMP/z.perfetto-trace" "$TMP/pf5.pftrace" &&
		gzip -dc "$TMP/z.pftrace.gz" | cmp -s - "$TMP/pf5.pftrace" &&
		python3 "$CHECK" "$TMP/z.pftrace.gz" "$TMP/pf5.json" >/dev/null; then
		ok
	else
		not_ok ".perfetto-trace or .pftrace.gz is not the .pftrace"
	fi
fi

# A large run's slices and events are formatted on several threads (--jobs; the ops', the
# messages', the counters' and the stream slices' in chunks, each thread starting where its
# chunk does: a device's first counter sample, its op names and the kinds' names interned
# before): either trace holds the bytes one thread writes, at 3 threads on this machine's 2
# cores too. The runs have ops enough for six chunks of each kind at least (2 x 3 chunks of 2
# MB worth of the items' guessed mean: of Perfetto's ops 8192 an op, of the JSON's counter
# samples 16384; with offload the counters stay on one thread); the last has streams, a
# straggler stretching some ops' pieces.
if [ -n "${PPSIM_WRAP:-}" ]; then
	elsewhere "the large traces on 3 threads" "valgrind runs one thread at a time; ASan runs them"
else
	n=0
	while IFS= read -r args; do
		for ext in json pftrace; do
			n=$((n + 1))
			# shellcheck disable=SC2086 # args is words
			if ppsim $args --jobs=1 --trace="$TMP/one$n.$ext" >/dev/null &&
				ppsim $args --jobs=3 --trace="$TMP/three$n.$ext" >/dev/null &&
				cmp -s "$TMP/one$n.$ext" "$TMP/three$n.$ext"; then
				ok
			else
				not_ok "the $ext trace of '$args' on 3 threads is not the one thread's"
			fi
			rm -f "$TMP/one$n.$ext" "$TMP/three$n.$ext"
		done
	done <<EOF
-s interleaved -p 4 -v 2 -m 8000 --tcomm 0.1
-s dualpipev -p 6 -m 6000 --tcomm 0.1 --trace-names=torch
--model=llama3-8b --gpu=a100-80g --seq=4096 -p 4 -m 12000 --mbs=4 --gpus=4 --offload=0.5 --host-bandwidth=100
-s 1f1b -p 4 -m 20000 --model=llama3-8b --layers=8 --tp=2 --tp-overlap=pipelined --dp=2 --overlap-grad-reduce=yes --straggler=1:1.3
EOF
fi

# A run whose Perfetto trace cannot fit a file is refused before it runs, the file untouched;
# the JSON trace of the same run is refused too, the gzip Perfetto trace is not.
printf 'old\n' >"$TMP/big.pftrace"
fails 2 "--trace: 8388608 ops and 8257536 messages take at least 1396703232 bytes, more than the 1073741824 bytes an output file may hold (about 6448899 ops fit)" \
	-s 1f1b -p 64 -m 65536 --trace="$TMP/big.pftrace"
if [ "$(cat "$TMP/big.pftrace")" = old ]; then ok; else not_ok "a refused run changed its trace"; fi
# a directory that does not exist: no file, exit 4
fails 4 "cannot write '$TMP/none/t.pftrace': directory '$TMP/none': No such file or directory" \
	-p 2 -m 2 --trace="$TMP/none/t.pftrace"
if [ ! -e "$TMP/none" ]; then ok; else not_ok "a trace into a missing directory made it"; fi
# a path through a file, which no one can write (root neither): exit 4, the file kept
printf 'old\n' >"$TMP/afile"
ppsim -p 2 -m 2 --trace="$TMP/afile/t.pftrace" >/dev/null 2>"$TMP/err"
status=$?
if [ $status -eq 4 ] && [ "$(cat "$TMP/afile")" = old ] &&
	grep -q "^ppsim: cannot write '$TMP/afile/t.pftrace'" "$TMP/err"; then ok; else
	not_ok "a trace under a file: status $status, $(cat "$TMP/err")"
fi
# a full device (through a link named for the format): exit 4 and the message
ln -s /dev/full "$TMP/full.pftrace"
ppsim -p 2 -m 2 --trace="$TMP/full.pftrace" >/dev/null 2>"$TMP/err"
status=$?
if [ $status -eq 4 ] && grep -q "^ppsim: cannot write '$TMP/full.pftrace'" "$TMP/err"; then ok; else
	not_ok "a Perfetto trace to /dev/full: status $status, $(cat "$TMP/err")"
fi
# a report that fails leaves an existing trace as it was
printf 'old\n' >"$TMP/kept.pftrace"
ppsim -p 4 -m 8 --trace="$TMP/kept.pftrace" >/dev/full 2>/dev/null
if [ $? -eq 4 ] && [ "$(cat "$TMP/kept.pftrace")" = old ]; then ok; else
	not_ok "a run whose report failed replaced its Perfetto trace"
fi
