# Out of memory is an error like any other: for a handful of representative commands, each
# allocation the command makes is made to fail in turn (all of them up to 80, else the first 20
# and 40 more spread over the rest, and for some the last ones) through the failalloc shim
# (tests/tools/failalloc.c, an LD_PRELOAD library; PPSIM_FAIL_ALLOC=K fails the K-th call). Every such run exits 1, with no
# signal, prints exactly one line on stderr, "ppsim: out of memory...", and leaves no file in
# its output directory. A failure that the C library absorbs (stdio does without a buffer it
# cannot allocate) may instead give the undisturbed run's output, files included, byte for byte.
# The library's facade is put through the same, by a program of its calls.
#
# Only with the normal build's shim: `make test` passes PPSIM_FAILALLOC (empty in sanitizer
# builds, whose allocator is their own), and valgrind (PPSIM_WRAP) replaces malloc itself.
NOMEM_SHIM=${PPSIM_FAILALLOC-$(dirname "$PPSIM")/failalloc.so}
NOMEM=$TMP/nomem
OUT=$NOMEM/out

# nomem_run K ARGS...: ppsim ARGS in the repository root with the K-th allocation failing (0:
# none, and the shim prints the count), stdout in $NOMEM/stdout, stderr in $NOMEM/stderr;
# the status in $status.
nomem_run() {
	k=$1
	shift
	rm -rf "$OUT"
	mkdir -p "$OUT"
	# the subshell waits for ppsim (the exit keeps it from exec'ing ppsim in its place), so that
	# the shell's own "Aborted" notice of a crash goes to /dev/null; the status tells it
	(
		cd "$ROOT" || exit
		PPSIM_FAIL_ALLOC=$k LD_PRELOAD=$NOMEM_SHIM "$PPSIM" "$@" \
			>"$NOMEM/stdout" 2>"$NOMEM/stderr" </dev/null
		exit $?
	) 2>/dev/null
	status=$?
}

# nomem_ks N [TAIL]: the K's to try for a command that makes N allocations, one a line: all of
# them up to 80, else the first 20, 40 spread over the rest and the last TAIL (default none).
nomem_ks() {
	awk -v n="$1" -v tail="${2:-0}" 'BEGIN {
		if (n <= 80) { for (k = 1; k <= n; k++) print k; exit }
		for (k = 1; k <= 20; k++) seen[k] = 1
		for (i = 1; i <= 40; i++) seen[20 + int((n - 20) * i / 40)] = 1
		for (k = n - tail + 1; k <= n; k++) if (k > 20) seen[k] = 1
		for (k = 1; k <= n; k++) if (k in seen) print k }'
}

# nomem_check NAME ARGS...: ppsim ARGS handles each allocation failure tried (see the top).
# One test per command; the first few failing K's are shown.
nomem_check() {
	name=$1
	shift
	nomem_run 0 "$@"
	count=$(sed -n 's/^failalloc: \([0-9]*\) allocations$/\1/p' "$NOMEM/stderr")
	if [ $status -ne 0 ] || [ -z "$count" ] || [ "$(wc -l <"$NOMEM/stderr")" -ne 1 ]; then
		not_ok "nomem $name: ppsim $* without failures: exit $status: $(head -c 300 "$NOMEM/stderr")"
		return
	fi
	rm -rf "$NOMEM/ref"
	mv "$NOMEM/stdout" "$NOMEM/ref.stdout"
	mv "$OUT" "$NOMEM/ref"
	bad=0
	for k in $(nomem_ks "$count" "${NOMEM_TAIL:-0}"); do
		nomem_run "$k" "$@"
		first=$(head -n 1 "$NOMEM/stderr")
		why=
		if [ $status -eq 0 ]; then
			# absorbed: the run went on as if nothing had failed
			if [ -s "$NOMEM/stderr" ] || ! cmp -s "$NOMEM/stdout" "$NOMEM/ref.stdout" ||
				! diff -r "$NOMEM/ref" "$OUT" >/dev/null 2>&1; then
				why="exit 0 with different output ($first)"
			fi
		elif [ $status -ge 128 ]; then
			why="killed by signal $((status - 128)) ($first)"
		elif [ $status -ne 1 ]; then
			why="exit $status ($first)"
		elif [ "$(wc -l <"$NOMEM/stderr")" -ne 1 ]; then
			why="$(wc -l <"$NOMEM/stderr") lines on stderr ($first)"
		else
			case $first in
			"ppsim: out of memory"*) ;;
			*) why="message '$first'" ;;
			esac
			[ -z "$why" ] && [ -n "$(ls -A "$OUT")" ] && why="left $(ls -A "$OUT" | tr '\n' ' ')"
		fi
		if [ -n "$why" ]; then
			bad=$((bad + 1))
			[ $bad -le 3 ] && echo "  nomem $name: allocation $k of $count: $why"
		fi
	done
	if [ $bad -eq 0 ]; then
		ok
	else
		not_ok "nomem $name: ppsim $*: $bad of the failed allocations tried are not handled"
	fi
}

if [ -n "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ]; then
	elsewhere "out of memory at each allocation" "valgrind's or a sanitizer's malloc is not the shim's"
elif [ ! -f "$NOMEM_SHIM" ]; then
	skip "out of memory at each allocation" "no $NOMEM_SHIM (make test builds it)"
else
	mkdir -p "$NOMEM"
	nomem_check timeline -s 1f1b -p 4 -m 8 --timeline
	nomem_check json -s interleaved -p 4 -v 2 -m 8 --format=json
	nomem_check files -s zbh1 -p 4 -m 8 --dump-ops="$OUT/ops.csv" --trace="$OUT/trace.json" \
		--svg="$OUT/run.svg"
	nomem_check gzip -s zbh1 -p 4 -m 8 --trace="$OUT/trace.json.gz"
	# a trace large enough for its events to be formatted on two threads
	nomem_check big-trace -s 1f1b -p 8 -m 1024 --jobs=2 --trace="$OUT/trace.json"
	# with activation offload a trace sorts each device's changes of its counters, late in the
	# run: the last allocations (the sort's copy among them, whose failure must not change the
	# order of changes at one time)
	NOMEM_TAIL=60 nomem_check offload-trace --model=llama3-8b --gpu=a100-80g --seq=4096 -p 4 \
		-m 64 --mbs=4 --gpus=4 --offload=0.5 --host-bandwidth=100 --trace="$OUT/trace.json"
	nomem_check export -s zbv -p 4 -m 8 --export-schedule="$OUT/order.csv"
	nomem_check export-comms -s zbv -p 4 -m 8 --export-schedule="$OUT/comms.csv" \
		--export-format=torch-comms
	nomem_check compare compare --schedules=1f1b,zbh1 -p 4 -m 8
	# the cost-aware generators at a size that runs their passes on two threads
	nomem_check zb-auto -s zb-auto -p 8 -m 1400 --jobs=2 --format=json
	nomem_check zbv-auto -s zbv-auto -p 4 -m 1400 --jobs=2 --format=json
	nomem_check sweep sweep -p 2,4 -m 8,16 --jobs=1
	# advise's report is built last: its last 60 allocations are each tried (the equivalent
	# sweep's command among them)
	NOMEM_TAIL=60
	nomem_check advise advise --model=llama3-8b --gpus=8 --global-batch=64 --jobs=1
	NOMEM_TAIL=0
	# a point skipped over GPU memory, whose record takes its settings (the last allocation)
	nomem_check sweep-fits sweep --model=llama3-8b --gpu=h100-sxm -p 2 -m 4 --mbs=1,8 \
		--seq=4096 -s 1f1b --fits --jobs=1
	nomem_check serve serve --model=llama3-8b --gpu=h100-sxm -p 4 --batching=chunked \
		--arrival=bursty --rate=8
	nomem_check trace serve --model=llama3-8b --gpu=h100-sxm -p 2 \
		--requests=examples/serve/bursty.jsonl
	nomem_check validate validate tests/golden/1f1b-p2-m2-ops.csv
	nomem_check validate-comms validate tests/golden/zb1p-2rank-2stagep-comms.csv
	nomem_check calibrate calibrate -m 24 -o "$OUT/calibrated.json" docs/examples/measured-zb-1.5b.csv
	nomem_check config --config=configs/llama3-8b-h100.json
	# the library's facade (tests/tools/api_nomem.c, every call a program makes): each failed
	# allocation makes one call return its error, "out of memory...", and the program free all
	api=$(dirname "$PPSIM")/api_nomem
	count=$(PPSIM_FAIL_ALLOC=0 LD_PRELOAD=$NOMEM_SHIM "$api" 2>&1 >"$NOMEM/api.ref" |
		sed -n 's/^failalloc: \([0-9]*\) allocations$/\1/p')
	# what every call returned, as a digest: a run whose failed allocation left it whole
	ref=$(cat "$NOMEM/api.ref")
	if [ -z "$count" ] || [ "${ref#ok }" = "$ref" ]; then
		not_ok "nomem api: $api did not run"
	else
		bad=0
		for k in $(nomem_ks "$count"); do
			out=$( (PPSIM_FAIL_ALLOC=$k LD_PRELOAD=$NOMEM_SHIM "$api" 2>/dev/null; echo "status $?") \
				2>/dev/null | tr '\n' ' ')
			case $out in
			"$ref status 0 ") ;;
			"error: "*"out of memory"*" status 1 ") ;;
			*)
				bad=$((bad + 1))
				[ $bad -le 3 ] && echo "  nomem api: allocation $k of $count: $out"
				;;
			esac
		done
		if [ $bad -eq 0 ]; then ok; else not_ok "nomem api: $bad of the failed allocations tried are not handled"; fi
	fi
fi
