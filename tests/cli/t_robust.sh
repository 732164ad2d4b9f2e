# Hostile input and output safety (docs/robustness.md): each class of defect has its case here,
# and every case ends in a clean one-line error or a correct result, leaving existing files as
# they were.

# --- Outputs ----------------------------------------------------------------------------------
mkdir -p "$TMP/files"
cd "$TMP/files" || exit 1

# A replaced file keeps its permissions; a read-only one is refused before anything runs.
echo old >keep.csv
chmod 600 keep.csv
if ppsim -p 2 -m 2 --dump-ops=keep.csv >/dev/null && [ "$(stat -c %a keep.csv)" = 600 ] &&
	head -n 1 keep.csv | grep -q '^device,'; then
	ok
else
	not_ok "a replaced output should keep its mode 600: $(stat -c %a keep.csv)"
fi
echo old >ro.csv
chmod 444 ro.csv
fails 4 "cannot write 'ro.csv': the file is read-only" -p 2 -m 2 --dump-ops=ro.csv
if [ "$(cat ro.csv)" = old ] && [ "$(stat -c %a ro.csv)" = 444 ]; then ok; else
	not_ok "a read-only output was replaced"
fi

# A file with other hard links is rewritten, not detached: every name sees the new contents.
echo old >a.csv
ln a.csv b.csv
if ppsim -p 2 -m 2 --dump-ops=a.csv >/dev/null && head -n 1 b.csv | grep -q '^device,' &&
	[ "$(stat -c %h a.csv)" = 2 ]; then
	ok
else
	not_ok "a hard-linked output lost its link: $(stat -c %h a.csv) links, b.csv: $(head -c 40 b.csv)"
fi

# No output replaces an input of the same run, nor names the same file as another output.
printf '{"p": 2, "m": 2}\n' >cfg.json
cp cfg.json cfg.orig
fails 2 "--svg 'cfg.json': is an input of this run (-c)" -c cfg.json --svg=cfg.json
fails 2 "is an input of this run (-c)" -c cfg.json --trace=./cfg.json
fails 2 "is an input of this run (-c)" sweep -c cfg.json -m 2,4 --records=cfg.json
fails 2 "--trace and --svg both name" -p 2 --trace=x.out --svg=./x.out
ppsim -p 4 -m 8 -s zbh1 --export-schedule=order.csv >/dev/null
cp order.csv order.orig
fails 2 "--dump-ops 'order.csv': is an input of this run (--schedule-file)" \
	--schedule-file=order.csv --dump-ops=order.csv
printf 'arrival,prompt,output\n0,16,2\n' >req.csv
cp req.csv req.orig
fails 2 "is an input of this run (--requests)" serve --requests=req.csv --export-requests=req.csv
cp "$ROOT/docs/examples/measured-zb-1.5b.csv" measured.csv
cp measured.csv measured.orig
fails 2 "-o 'measured.csv': is an input of this run (calibrate)" calibrate -m 24 measured.csv \
	-o measured.csv
if cmp -s cfg.json cfg.orig && cmp -s order.csv order.orig && cmp -s req.csv req.orig &&
	cmp -s measured.csv measured.orig && [ ! -e x.out ]; then
	ok
else
	not_ok "a refused output changed an input or left a file"
fi
# special files may be named twice
if ppsim -p 2 -m 2 --trace=/dev/null --svg=/dev/null >/dev/null; then ok; else
	not_ok "/dev/null named by two outputs should be fine"
fi

# An output to the file standard output already writes to adds to it: the report survives.
ppsim -p 2 -m 2 --dump-ops=/dev/stdout >both.txt
if grep -q '^makespan ' both.txt && grep -q '^device,chunk,stage,op' both.txt; then ok; else
	not_ok "--dump-ops=/dev/stdout lost the report or the ops: $(head -c 200 both.txt)"
fi
ppsim -p 2 -m 2 --dump-ops=/proc/self/fd/1 >both.txt
if grep -q '^makespan ' both.txt && grep -q '^device,chunk,stage,op' both.txt; then ok; else
	not_ok "--dump-ops=/proc/self/fd/1 lost the report or the ops"
fi

# The longest legal name (255 bytes) is written: the temporary name does not grow with it.
long=$(printf 'x%.0s' $(seq 251)).csv
if ppsim -p 2 -m 2 --dump-ops="$long" >/dev/null && [ -s "$long" ]; then ok; else
	not_ok "a 255-byte output name failed"
fi
rm -f "$long"

# A path longer than 255 characters (a file name may be 255, a path up to Linux's 4095) reads
# back wherever ppsim writes it: --export-schedule into --schedule-file, --export-requests into
# --requests; and an empirical jitter's samples are read from it.
deep="$TMP/$(printf 'd%.0s' $(seq 60))/$(printf 'e%.0s' $(seq 60))/$(printf 'f%.0s' $(seq 60))"
deep="$deep/$(printf 'g%.0s' $(seq 60))/$(printf 'h%.0s' $(seq 60))"
mkdir -p "$deep"
printf 'kind,stage,value\n*,*,0.9\n*,*,1.1\n' >"$deep/j.csv"
if ppsim -p 2 -m 2 --export-schedule="$deep/s.csv" --dump-ops="$deep/o.csv" >/dev/null &&
	ppsim serve -p 2 --num-requests=3 --export-requests="$deep/r.csv" >/dev/null &&
	ppsim --schedule-file="$deep/s.csv" >/dev/null 2>"$TMP/err.deep" &&
	ppsim serve -p 2 --requests="$deep/r.csv" >/dev/null 2>>"$TMP/err.deep" &&
	ppsim -p 2 -m 2 --samples=2 --jitter=empirical:"$deep/j.csv" >/dev/null 2>>"$TMP/err.deep"; then
	ok
else
	not_ok "a ${#deep}-character path did not read back: $(cat "$TMP/err.deep")"
fi

# SIGINT and SIGTERM leave no temporary file and every existing file intact: a run stopped
# while it writes its outputs, and a sweep stopped while it streams its records. (A job started
# with & ignores SIGINT in a script: env gives it the default action back, and $! is ppsim.)
echo existing >big.json
for sig in INT TERM; do
	env --default-signal=INT,TERM ${PPSIM_WRAP:-} "$PPSIM" -s zbh1 -p 32 -m 4096 \
		--trace=big.json --svg=big.svg >/dev/null 2>&1 &
	pid=$!
	# wait for the temporary files to appear, then stop the run while it writes them
	for _ in $(seq 100); do
		ls -A | grep -q '^\.ppsim-' && break
		sleep 0.05
	done
	kill -$sig $pid 2>/dev/null
	wait $pid 2>/dev/null
	status=$?
	if [ $status -gt 128 ] && [ -z "$(ls -A | grep '^\.ppsim-')" ] && [ "$(cat big.json)" = existing ] &&
		[ ! -e big.svg ]; then
		ok
	else
		not_ok "SIG$sig during the writes: status $status, left $(ls -A | tr '\n' ' ')"
	fi
done
echo existing >records.jsonl
env --default-signal=INT ${PPSIM_WRAP:-} "$PPSIM" sweep -p 2,4,8,16,32 -m 8:8192:x2 -s all \
	--format=csv --records=records.jsonl >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	ls -A | grep -q '^\.ppsim-' && break
	sleep 0.05
done
kill -INT $pid 2>/dev/null
wait $pid 2>/dev/null
status=$?
if [ $status -gt 128 ] && [ -z "$(ls -A | grep '^\.ppsim-')" ] && [ "$(cat records.jsonl)" = existing ]; then
	ok
else
	not_ok "SIGINT during a sweep: status $status, left $(ls -A | tr '\n' ' ')"
fi
cd "$ROOT" || exit 1

# --- Limits -----------------------------------------------------------------------------------

# A stage scale that makes an op round to no tick, or run above the GPU's peak, is refused; a
# serving stage the same, and with a model a serving scale below 1 (memory at full bandwidth).
fails 2 "makes stage 0's F take less than the resolution of one tick" \
	--stage-scale=1e-7,1e-7,1e-7,1e-7
fails 2 "faster than its FLOPs at the GPU's peak" --model=llama3-8b -p 4 --stage-scale=1e-3,1,1,1
fails 2 "take less than one tick" serve --stage-scale=1e-7,1e-7,1e-7,1e-7 --num-requests=5
fails 2 "below 1 with a model" serve --model=llama3-8b --stage-scale=0.5,1,1,1 --num-requests=5
# a scale within the bounds runs, and slows its stage as asked
run_json --model=llama3-8b -p 4 --stage-scale=1,1,1,2
expect_cmp devices.3.busy ">" "$("$JGET" "$TMP/out.json" devices.2.busy)"

# Serving windows are bounded: a window that would cut the run into millions is refused at once.
fails 2 "--window '1e-06': makes" serve --num-requests=20 --window=0.000001
fails 2 "above the limit of 100000" serve --num-requests=20 --window=0.0001

# --max-ops binds schedule files as it binds generated schedules, on the line that passes it.
ppsim -p 4 -m 8 -s zbh1 --export-schedule="$TMP/z.csv" >/dev/null
fails 3 "more ops than the limit of 10" --schedule-file="$TMP/z.csv" --max-ops=10
fails 2 "--max-ops '1e9': must be an integer from 1 to 1000000000" --max-ops=1e9
if ppsim --schedule-file="$TMP/z.csv" --max-ops=96 >/dev/null; then ok; else
	not_ok "a schedule file of exactly --max-ops ops should run"
fi

# A trace that runs past the longest time a simulation holds says so, not that a micro-batch
# is too long.
printf 'arrival,prompt,output\n999999999.9,10,2\n' >"$TMP/late.csv"
fails 1 "the run goes on past 1e9 time units" serve --requests="$TMP/late.csv"

# --- Strict JSON ------------------------------------------------------------------------------
printf '{"m\\u0000junk": 4}' >"$TMP/nul.json"
fails 3 "1:4: \\u0000 in a string" -c "$TMP/nul.json"
printf '{"p": 2,\001"m": 4}' >"$TMP/ctl.json"
fails 3 "1:9: a control byte (0x01)" -c "$TMP/ctl.json"
printf '{"schedule": "1f\0021b"}' >"$TMP/raw.json"
fails 3 "a raw control byte (0x02) in a string" -c "$TMP/raw.json"
printf '{"p": 02}' >"$TMP/lead.json"
fails 3 "1:7: a number outside JSON's grammar" -c "$TMP/lead.json"
printf '{"p": 2,\n  "p": 4}' >"$TMP/dup.json"
fails 3 "2:3: key \"p\" appears twice (first at 1:2)" -c "$TMP/dup.json"
printf '{"arrival": 0, "prompt": 1\001, "output": 2}\n' >"$TMP/ctl.jsonl"
fails 3 "a control byte (0x01)" serve --requests="$TMP/ctl.jsonl"
# a config array may hold as many stage scales as the command line (1024)
awk 'BEGIN { printf "{\"p\": 1024, \"m\": 1, \"stage_scale\": ["
	for (i = 0; i < 1024; i++) printf "%s1.0000000000000002", i ? "," : ""; print "]}" }' \
	>"$TMP/scales.json"
if ppsim -c "$TMP/scales.json" --format=json >/dev/null; then ok; else
	not_ok "a 1024-entry stage_scale array should be read"
fi

# --- Terminal safety --------------------------------------------------------------------------
# Nothing from the input reaches the terminal raw: escape sequences are written \xNN.
esc=$(printf '\033')
ppsim --schedule="${esc}[31mred" 2>"$TMP/err"
if ! grep -q "$esc" "$TMP/err" && grep -q '\\x1b\[31mred' "$TMP/err"; then ok; else
	not_ok "an escape sequence in an option value reached stderr raw"
fi
# ... nor to standard output: a file name in a text report (compare's rows, validate, replay,
# serve's request trace) is written the same way
red="$TMP/e${esc}[31mred"
cp "$ROOT/configs/llama3-70b-a100-nvlink.json" "$red.json"
ppsim -p 2 -m 2 --export-schedule="$red.csv" --trace="$red.trace.json" >/dev/null
ppsim serve -p 2 --num-requests=3 --export-requests="$red.req.csv" >/dev/null
{
	ppsim compare "$red.json" "$ROOT/configs/llama3-70b-a100-nvlink.json"
	ppsim validate "$red.csv"
	ppsim replay "$red.trace.json"
	ppsim serve -p 2 --requests="$red.req.csv"
} >"$TMP/out" 2>&1
if ! grep -q "$esc" "$TMP/out" && [ "$(grep -c 'e\\x1b\[31mred' "$TMP/out")" -ge 4 ]; then ok; else
	not_ok "a file name's escape sequence reached a text report raw: $(grep -c "$esc" "$TMP/out")"
fi
printf 'device,chunk,stage,op,microbatch\n0,0,0,\033]0;x\007F,0\n' >"$TMP/esc.csv"
ppsim validate "$TMP/esc.csv" 2>"$TMP/err"
if ! grep -q "$esc" "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ]; then ok; else
	not_ok "an escape sequence in a schedule cell reached stderr raw"
fi

# --- Work -------------------------------------------------------------------------------------
# A sweep, advise, or a serving run whose work would take minutes is refused at once, with the
# work counted and the budget named: ops over the points (each device adding 16), output tokens
# over the requests. 1F1B with m = 1 at p = 1 to 65536: 2p ops and 16p for the devices, 18 x
# 65536 x 65537 / 2 in all, whose --max-ops would be above its ceiling of 10^9; at p = 2 and
# m = 1 to 30000: 4 x 30000 x 30001 / 2 + 32 x 30000 = 1801020000, a quarter of which (rounded
# up) is the --max-ops that takes it.
fails 2 "the points would simulate 38655295488 ops, above the 200000000 a search may (4 times --max-ops; each device of a point adds 16 ops, for its reports): give fewer values to the options that list them; or split the sweep into shards (--shard=K/N)" sweep -p 1:65536 -m 1
fails 2 "the points would simulate 1801020000 ops, above the 200000000 a search may (4 times --max-ops; each device of a point adds 16 ops, for its reports): give fewer values to the options that list them; or split the sweep into shards (--shard=K/N); or give --max-ops=450255000 or more" sweep -p 2 -m 1:30000
# the --max-ops named is the least that takes the sweep: m = 1 to 300 count 190200 ops
if ppsim sweep -p 2 -m 1:300 --max-ops=47550 --format=csv >/dev/null &&
	ppsim sweep -p 2 -m 1:300 --max-ops=47549 2>&1 >/dev/null |
	grep -q "the points would simulate 190200 ops, above the 190196 a search may .*; or give --max-ops=47550 or more$"; then
	ok
else
	not_ok "the --max-ops a refused sweep names should be the least that takes it"
fi
# with --fits the count checks the points' memory, the same on any number of threads (each
# order up to --max-ops generated, on one thread when it is more than a thread's share), and
# the --max-ops named counts the points it lets in, those above the one given too: 2406 takes
# the grid of m = 300 to 1000 that --max-ops=1400 refuses (its m = 400 and 1000 above it), and
# here it is the least that does
F="--model=llama3-8b --gpu=a100-80g --gpus=8 --global-batch=64 --seq=16384 --tp=1,2
	-p 1,2,4,8 --mbs=1,2,4,8 -s 1f1b,gpipe,zbv,interleaved --fits --max-ops=4000"
# shellcheck disable=SC2086
ppsim sweep $F --jobs=1 >"$TMP/fits1.txt" 2>&1
s1=$?
# shellcheck disable=SC2086
ppsim sweep $F --jobs=4 >"$TMP/fits4.txt" 2>&1
if [ $s1 -eq $? ] && cmp -s "$TMP/fits1.txt" "$TMP/fits4.txt"; then ok; else
	not_ok "sweep --fits: --jobs=1 and --jobs=4 differ: $(head -c 200 "$TMP/fits1.txt") / $(head -c 200 "$TMP/fits4.txt")"
fi
G="--model=llama3-8b --gpu=h100-sxm --seq=512 -p 2 -s 1f1b --fits -m 300,310,320,330,340,350,400,1000"
# shellcheck disable=SC2086
if ppsim sweep $G --max-ops=1400 2>&1 >/dev/null | grep -q "give --max-ops=2406 or more$" &&
	ppsim sweep $G --max-ops=2406 >/dev/null &&
	ppsim sweep $G --max-ops=2405 2>&1 >/dev/null | grep -q "give --max-ops=2406 or more$"; then
	ok
else
	not_ok "sweep --fits: the --max-ops named should be the least that takes the grid"
fi
# each noise sample simulates a point's ops again: m = 8 and 9 at p = 2 with 100 samples count
# 101 x (32 + 36) ops and 16 for each of their 2 devices, 6932, which --max-ops=1733 takes
fails 2 "the points would simulate 6932 ops, above the 160 a search may (4 times --max-ops; each device of a point adds 16 ops, for its reports): give fewer values to the options that list them; or split the sweep into shards (--shard=K/N); or give --max-ops=1733 or more" \
	sweep -p 2 -m 8,9 --samples=100 --jitter=normal:0.1 --max-ops=40
# 66 micro-batch counts each a quarter more than the one before, all but the first above
# --max-ops=4: the value named lets every one in (their ops 4m and 32 for their devices, a
# quarter of the sum), however many rounds of raising it that takes
L=$(awk 'BEGIN { m = 1; for (i = 0; i < 66; i++) { printf "%s%d", i ? "," : "", m
	m = int(m * 1.25) + 1 } }')
want=$(echo "$L" | tr ',' '\n' | awk '{ s += $1; n++ } END { print s + 8 * n }')
if ppsim sweep -p 2 -m "$L" --max-ops=4 2>&1 >/dev/null | grep -q "give --max-ops=$want or more$"; then
	ok
else
	not_ok "sweep of 66 growing m: the --max-ops named is not $want"
fi
fails 2 "the points would simulate" advise --model=llama3-70b --gpus=65536 \
	--global-batch=16777216
# ... and offers no --shard, which advise has not
if ppsim advise --model=llama3-70b --gpus=65536 --global-batch=16777216 2>&1 | grep -q -- "--shard"
then not_ok "advise's work limit offers --shard, which advise has not"; else ok; fi
fails 2 "points to simulate, above the limit of 1000000 a run" sweep -p 1:2000 -m 1:1000
# with --fits, points whose state alone cannot fit are skipped unsimulated, but their devices
# (which the state check prices) still count: 2,000 points of 63,000 devices and more, none of
# which fits, are refused at once, not checked one by one for minutes
fails 2 "ops, above the 200000000 a search may" sweep --model=llama3-405b \
	--layers=65536 --gpu=a100-80g -p 65536,65000,64000,63000 -m 1 --mbs=1:100 \
	--seq=1024,2048,4096,8192,16384 --fits
# within the budget it runs: a tenth of the lists (18 million ops), or the whole in shards
if ppsim sweep -p 2 -m 1:3000 --format=csv >/dev/null &&
	ppsim sweep -p 2 -m 1:30000 --shard=1/100 --format=csv >/dev/null; then ok; else
	not_ok "a sweep within the work budget should run"
fi
fails 2 "the requests ask for 8610682029 output tokens, above the limit of 200000000" \
	serve --num-requests=1000 --output=uniform:1:16777216
# A generator whose order costs more than its ops counts that cost against --max-ops: zbv lays
# its order out for max(2p-1, m) micro-batches, vmin and vhalf keep a table of 8m + 6p + 16
# slots per device, the greedy generators pass over the ops three times.
fails 2 "building zbv's order costs 3.22e+09 ops' worth" -s zbv -p 65536 -m 1
fails 2 "building vmin's order costs 6.44e+09 ops' worth" -s vmin -p 32768 -m 1
fails 2 "building 1f1b-v's order costs 2.58e+10 ops' worth" -s 1f1b-v -p 65536 -m 1
fails 2 "building zbv-auto's order costs 7.55e+07 ops' worth" -s zbv-auto -p 64 -m 65536
# 8 x 2 x 1024 x 3 = 49152 ops, 147456 ops' worth with the passes
fails 2 "costs 1.47e+05 ops' worth (its 4.92e+04 ops" -s zbv-auto -p 8 -m 1024 --max-ops=100000
if ppsim -s zbv-auto -p 8 -m 1024 --max-ops=147456 --format=csv >/dev/null; then ok; else
	not_ok "a --max-ops of the greedy generator's work should admit it"
fi

# The text report of a run at p = 65536 costs what its JSON does (0.3 s here): its critical
# path's "by device" line took a pass over the devices for each one (17 s). A CPU-time limit
# 30 times the run's catches the square without timing it closely; valgrind's runs are left
# out of it (the plain "$PPSIM", never wrapped).
if (ulimit -t 10 && "$PPSIM" -p 65536 -m 1 --timeline=0 >"$TMP/wide.txt") 2>/dev/null &&
	grep -q '^  by device  .*, 7 0.0%, the other devices 100.0%$' "$TMP/wide.txt"; then ok; else
	not_ok "the text report at p = 65536 should take a second, not minutes: $(grep 'by device' "$TMP/wide.txt")"
fi

# CSV as spreadsheets save it: a byte order mark, CRLF line ends, quoted fields.
printf '\357\273\277"device","chunk","stage","op","microbatch"\r\n0,0,0,F,0\r\n"0",0,0,"BW",0\r\n' \
	>"$TMP/excel.csv"
if ppsim validate "$TMP/excel.csv" | grep -q "valid"; then ok; else
	not_ok "a schedule saved by a spreadsheet (BOM, CRLF, quotes) should read"
fi
printf '\357\273\277arrival,prompt,output\r\n"0","16","2"\r\n' >"$TMP/excel-req.csv"
if ppsim serve --requests="$TMP/excel-req.csv" | grep -q "^requests  *1 from"; then ok; else
	not_ok "a request trace saved by a spreadsheet should read"
fi

# An output that cannot fit is refused before the run, at once, naming it with the counts and
# the limit (exit 2): each writer's row in the report registry (src/report/registry.c) says what
# it reads of a run, the memory it holds and the fewest bytes it writes per op and per message,
# so that a file that would pass 1 GiB, or a run that would hold more than 40 bytes for each op
# --max-ops allows, is found out from the run's shape, messages counted.
# refused_at_once MESSAGE ARGS...: as `fails 2`, within a second (unwrapped), leaving no file.
mkdir -p "$TMP/fit"
refused_at_once() {
	start=$(date +%s%N)
	fails 2 "$@"
	took=$((($(date +%s%N) - start) / 1000000))
	if [ -z "${PPSIM_WRAP:-}" ] && [ "$took" -ge 1000 ]; then
		not_ok "ppsim $*: took $took ms to refuse"
	elif [ -n "$(ls -A "$TMP/fit")" ]; then
		not_ok "ppsim $*: a refused output left $(ls -A "$TMP/fit")"
	else
		ok
	fi
}
# passes_the_check ARGS...: a run just under a file's bound is not refused: it is still
# simulating after 0.3 s (killed then: its file would take a GiB to write). Unwrapped only.
passes_the_check() {
	[ -n "${PPSIM_WRAP:-}" ] && return
	timeout 0.3 "$PPSIM" "$@" --format=csv >/dev/null 2>"$TMP/err"
	status=$?
	if [ $status -eq 124 ] && [ -z "$(ls -A "$TMP/fit")" ]; then ok; else
		not_ok "ppsim $*: exit $status, expected to be simulating: $(head -c 200 "$TMP/err")"
	fi
}
# A file's bound, at the first m over it (and the last under it, which goes on to simulate),
# 1f1b with p = 4 or 64: a trace takes 200 bytes an op and 250 a message at least (a message's
# slice and two flow events), 11 and 16 as gzip; an HTML report 10 an op and 6 a message with
# their numbers' digits; an op dump 10 a row with its numbers' digits, its times' too; a
# schedule export its rows' or actions' (with --max-ops at its ceiling, whose reader's memory
# reads such a file back: at the default, the reader's bound comes first, t_readback.sh).
fit=$TMP/fit
refused_at_once "--trace: 2770952 ops and 2078214 messages take at least 1073743900 bytes, more than the 1073741824 bytes an output file may hold" \
	-p 4 -m 346369 --trace="$fit/t.json"
passes_the_check -p 4 -m 346368 --trace="$fit/t.json"
refused_at_once "--trace: 46684432 ops and 35013324 messages take at least 1073741936 bytes" \
	-p 4 -m 5835554 --trace="$fit/t.json.gz"
refused_at_once "--html: 28105984 ops and 27666828 messages take at least 1073742068 bytes" \
	-p 64 -m 219578 --html="$fit/h.html"
refused_at_once "--dump-ops: 42725376 ops and 42057792 messages take at least 1073742336 bytes" \
	-p 64 -m 333792 --dump-ops="$fit/o.csv"
passes_the_check -p 64 -m 333791 --dump-ops="$fit/o.csv"
refused_at_once "--export-schedule: 65196416 ops and 64177722 messages take at least 1073743112 bytes" \
	-p 64 -m 509347 --max-ops=1000000000 --export-schedule="$fit/e.csv"
refused_at_once "--export-schedule: 110523392 ops and 108796464 messages take at least 1073742560 bytes" \
	-p 64 -m 863464 --max-ops=1000000000 --export-schedule="$fit/e.csv" --export-format=torch
refused_at_once "--export-schedule: 39472640 ops and 38855880 messages take at least 1073742560 bytes" \
	-p 64 -m 308380 --max-ops=1000000000 --export-schedule="$fit/e.csv" \
	--export-format=torch-comms
passes_the_check -p 64 -m 308379 --max-ops=1000000000 --export-schedule="$fit/e.csv" \
	--export-format=torch-comms
# The issue's runs near the op limit: an HTML report and an SVG (which merges what is too narrow
# to see, so its file follows its pixels, but its run keeps every op's times and messages).
refused_at_once "--html: 49920000 ops and 49140000 messages take at least" -p 64 -m 390000 \
	--html="$fit/h.html"
refused_at_once "--svg: 49920000 ops and 49140000 messages need 2973360000 bytes of memory, more than the 2000000000 bytes --max-ops=50000000 allows" \
	-p 64 -m 390000 --svg="$fit/s.svg"
# The memory's bound, just over and just under (1f1b, p = 4, --max-ops=100000: 4000000 bytes):
# 8 bytes an op, 16 for its times, 4 for the order it ran in, 24 for each message the sweep
# records and its 16 a (micro-batch, stage) cell, which the slack pass's table then reuses
# beside the slacks' 8 an op (36 an op, 24 a message and 16 a cell: 496 bytes a micro-batch);
# the SVG (no slacks, no order) indexes each device's messages in 4 more (424).
for out in --html="$fit/h.html" --trace="$fit/t.json" --trace="$fit/t.json.gz"; do
	refused_at_once "${out%%=*}: 64520 ops and 48390 messages need 4000240 bytes of memory, more than the 4000000 bytes --max-ops=100000 allows" \
		-p 4 -m 8065 --max-ops=100000 "$out"
	if ppsim -p 4 -m 8064 --max-ops=100000 "$out" --format=csv >/dev/null &&
		[ -s "${out#*=}" ]; then ok; else not_ok "ppsim -p 4 -m 8064 $out: not written"; fi
	rm -f "$fit"/*
done
refused_at_once "--svg: 75472 ops and 56604 messages need 4000016 bytes of memory" \
	-p 4 -m 9434 --max-ops=100000 --svg="$fit/s.svg"
if ppsim -p 4 -m 9433 --max-ops=100000 --svg="$fit/s.svg" --format=csv >/dev/null &&
	[ -s "$fit/s.svg" ]; then ok; else not_ok "svg -p 4 -m 9433: not written"; fi
rm -f "$fit"/*
# A comparison holds every row: what they all need is checked before the first runs, each row
# with its own schedule (zbh1's 12 ops and 6 messages per micro-batch, not the config's 1f1b's).
refused_at_once "--html: 64528 ops and 48396 messages need 4000736 bytes of memory" \
	compare --schedules=1f1b,gpipe -p 4 -m 4033 --max-ops=100000 --html="$fit/c.html"
if ppsim compare --schedules=1f1b,gpipe -p 4 -m 4032 --max-ops=100000 --html="$fit/c.html" \
	--format=csv >/dev/null && [ -s "$fit/c.html" ]; then ok; else
	not_ok "compare -p 4 -m 4032 --html: not written"
fi
rm -f "$fit"/*
refused_at_once "--html: 75012 ops and 37506 messages need 4000640 bytes of memory" \
	compare --schedules=zbh1 -p 4 -m 6251 --max-ops=100000 --html="$fit/c.html"
# A schedule file's run is checked once the file is read, before it is simulated.
ppsim -p 4 -m 2000 --export-schedule="$TMP/order.csv" >/dev/null
refused_at_once "--html: 16000 ops and 12000 messages need 992000 bytes of memory, more than the 800000 bytes --max-ops=20000 allows" \
	--schedule-file="$TMP/order.csv" --max-ops=20000 --html="$fit/h.html"
if ppsim --schedule-file="$TMP/order.csv" --max-ops=24800 --html="$fit/h.html" \
	--format=csv >/dev/null && [ -s "$fit/h.html" ]; then ok; else
	not_ok "--schedule-file --max-ops=24800 --html: not written"
fi
rm -f "$fit"/*
# A serving run's size is known as it runs: it stops at the steps its outputs can hold, a
# trace's file (5368709 steps of 200 bytes), an HTML report's memory (40 bytes a step for a run
# of four stages, 40 more for the message it keeps: 50000 of the 100000 steps --max-ops allows).
fails 1 "the run needs more than 5368709 stage steps" serve --num-requests=130000 \
	--trace="$fit/t.json"
fails 1 "the run needs more than 50000 stage steps" serve --max-ops=100000 --num-requests=200 \
	--html="$fit/h.html"
if ppsim serve --max-ops=100000 --num-requests=200 --format=csv >/dev/null &&
	ppsim serve --max-ops=100000 --num-requests=100 --html="$fit/h.html" --format=csv \
		>/dev/null && [ -s "$fit/h.html" ]; then ok; else
	not_ok "serve --max-ops=100000: 200 requests without --html, 100 with it, should run"
fi
rm -f "$fit"/*
# An SVG's size follows its pixels: a million ops draw in under 2 MB.
if ppsim -p 64 -m 8192 --svg="$TMP/m.svg" >/dev/null && xmllint --noout "$TMP/m.svg" &&
	[ "$(wc -c <"$TMP/m.svg")" -lt 2000000 ]; then ok; else
	not_ok "svg of p=64 m=8192 (1048576 ops): $(wc -c <"$TMP/m.svg") bytes, or not valid"
fi
fails 2 "1f1b needs 4.99e+07 ops, above the limit of 1000 simulated ops" -p 64 -m 390000 \
	--max-ops=1000 --svg="$fit/t.svg"
if [ -z "$(ls -A "$fit")" ]; then ok; else not_ok "a refused output left $(ls -A "$fit")"; fi

# A file-size limit is a write error, not a signal that kills ppsim with its temporary file
# left; and a signal stops a run waiting to open a FIFO that has no reader.
mkdir -p "$TMP/fsz"
(
	ulimit -f 8
	ppsim -s interleaved -p 8 -v 4 -m 64 --trace="$TMP/fsz/t.json" >/dev/null 2>"$TMP/fsz.err"
	echo $? >"$TMP/fsz.status"
)
if [ "$(cat "$TMP/fsz.status")" = 4 ] && [ -z "$(ls -A "$TMP/fsz")" ]; then ok; else
	not_ok "a write past ulimit -f: status $(cat "$TMP/fsz.status"), left $(ls -A "$TMP/fsz")"
fi
mkfifo "$TMP/fifo"
timeout 20 env --default-signal=INT ${PPSIM_WRAP:-} "$PPSIM" -p 2 -m 2 --trace="$TMP/fifo" \
	>/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -INT $pid 2>/dev/null
wait $pid 2>/dev/null
status=$?
if [ $status -gt 128 ] && [ $status -ne 124 ]; then ok; else
	not_ok "SIGINT while waiting for a FIFO's reader: status $status"
fi

# Inputs are read as streams (docs/robustness.md): a FIFO, which reads once, gives what the file
# gives, for every command that reads an input file, also those that read one twice (compare
# tells a serving config from its first file, then reads each file a row; merge reads each
# shard's head, then its records in shard order).
F="$TMP/streams"
mkdir -p "$F"
echo '{"schedule":"1f1b","p":4,"m":8}' >"$F/c1.json"
echo '{"schedule":"zbh1","p":4,"m":8,"t_comm":0.1}' >"$F/c2.json"
ppsim sweep -p 2,4 -m 4,8 --shard=1/2 --shard-file="$F/s1.pps" >/dev/null
ppsim sweep -p 2,4 -m 4,8 --shard=2/2 --shard-file="$F/s2.pps" >/dev/null
ppsim -p 4 -m 8 --samples=8 --jitter=lognormal:0.1 --shard=1/2 --shard-file="$F/n1.pps" >/dev/null
ppsim -p 4 -m 8 --samples=8 --jitter=lognormal:0.1 --shard=2/2 --shard-file="$F/n2.pps" >/dev/null
ppsim -s dualpipev -p 4 -m 8 --tcomm 0.1 --dump-ops="$F/ops.csv" --export-schedule="$F/order.csv" \
	>/dev/null
printf 'stage,op,ms\n0,F,1\n0,B,2\n0,W,1\n1,F,1\n1,B,2\n1,W,1\n0,comm,0.1\n' >"$F/measured.csv"
# fifo_case LABEL FILE ARGS...: ppsim ARGS with @ standing for FILE, first as the file, then as
# a FIFO of the same name in another folder that a background cat fills: the same standard
# output and status both times (the folder's name aside).
mkdir -p "$F/fifos"
fifo_case() {
	label=$1 file=$2
	fifo="$F/fifos/$(basename "$file")"
	shift 2
	args="" fargs=""
	for a in "$@"; do
		case $a in
		*@*) args="$args $(echo "$a" | sed "s|@|$file|")"
			fargs="$fargs $(echo "$a" | sed "s|@|$fifo|")" ;;
		*) args="$args $a" fargs="$fargs $a" ;;
		esac
	done
	# shellcheck disable=SC2086 # the arguments are words
	ppsim $args >"$F/want" 2>&1
	want=$?
	rm -f "$fifo"
	mkfifo "$fifo"
	(cat "$file" >"$fifo" &)
	# shellcheck disable=SC2086
	timeout 20 ${PPSIM_WRAP:-} "$PPSIM" $fargs >"$F/got" 2>&1
	got=$?
	sed "s|$F/fifos/|$F/|g" "$F/got" >"$F/got.same"
	if [ $got -eq $want ] && [ $want -eq 0 ] && cmp -s "$F/want" "$F/got.same"; then ok; else
		not_ok "$label from a FIFO: status $got (from the file $want): $(head -c 200 "$F/got")"
	fi
	rm -f "$fifo"
}
fifo_case "run -c" "$F/c1.json" -c @ --timeline=0
fifo_case "compare, the first file" "$F/c1.json" compare @ "$F/c2.json"
fifo_case "compare --schedules" "$F/c2.json" compare --schedules=1f1b,zbh1 @
fifo_case "merge of a sweep's shards" "$F/s1.pps" merge @ "$F/s2.pps"
fifo_case "merge, the second shard first" "$F/s2.pps" merge @ "$F/s1.pps"
fifo_case "merge of samples' shards" "$F/n2.pps" merge "$F/n1.pps" @
fifo_case "replay of an op dump" "$F/ops.csv" replay @ --tcomm 0.1 --timeline=0
fifo_case "--schedule-file" "$F/order.csv" --schedule-file=@ --tcomm 0.1 --timeline=0
fifo_case "validate" "$F/order.csv" validate @
fifo_case "calibrate" "$F/measured.csv" calibrate @

# A file a command reads once a run (a sweep's points, compare's rows) cannot be a FIFO or a
# pipe, which reads once: refused at once (it hung waiting for a writer, or ran every point
# after the first without its file)
mkfifo "$F/once"
fails 2 "--schedule-file '$F/once': not a regular file (a pipe or a FIFO reads once), and sweep reads it 2 times" \
	sweep -m 8 --tcomm 0.1,0.2 -p 4 --schedule-file="$F/once"
fails 2 "--schedule-file '$F/once': not a regular file" compare "$F/c1.json" "$F/c2.json" --schedule-file="$F/once"
fails 2 "--jitter's file '$F/once': not a regular file" compare --schedules=1f1b,gpipe \
	--jitter=empirical:"$F/once" --samples=4
# advise counts the points of its own axes (its one point given was read, every other one
# skipped as invalid: a wrong recommendation with status 0)
fails 2 "--jitter's file '$F/once': not a regular file (a pipe or a FIFO reads once), and advise reads it" \
	advise --model=llama3-8b --gpus=8 --global-batch=64 --samples=2 --jitter=empirical:"$F/once"
rm -f "$F/once"

# An output that names a jitter file, an input of the run, is refused and the file left as it was
printf 'kind,stage,value\n*,*,1\n*,*,2\n' >"$F/jit.csv"
cp "$F/jit.csv" "$F/jit.before"
fails 2 "--dump-ops '$F/jit.csv': is an input of this run (--jitter's file)" \
	-p 2 --samples=3 --jitter=empirical:"$F/jit.csv" --dump-ops="$F/jit.csv"
fails 2 "is an input of this run (--link-jitter's file)" \
	-p 2 --tcomm 0.1 --samples=3 --link-jitter=empirical:"$F/jit.csv" --trace="$F/jit.csv"
cmp -s "$F/jit.csv" "$F/jit.before" && ok || not_ok "a run wrote over its jitter file"

# A model's plans (a few pieces of compute and communication a layer, with tensor or context
# parallelism) count against --max-ops, and are evaluated in time linear in their pieces: 100,000
# layers with tp = 8 run (they took two minutes, quadratic in the pieces), and more than the
# limit allows are refused before they are built.
fails 2 "the model's 200 layers make the plans of the stages' ops (a few pieces of compute and communication a layer) hold more than the 1000 steps --max-ops allows" \
	--model=llama3-8b --tp=8 --layers=200 --max-ops=1000
# ... which a serving run does not build: its --max-ops bounds its stage steps
if ppsim serve --model=llama3-8b --tp=2 -p 2 --max-ops=500 --num-requests=5 --output=fixed:20 \
	--prompt=fixed:64 >/dev/null 2>"$TMP/serve-plans.err"; then ok; else
	not_ok "serve refused for training plans: $(cat "$TMP/serve-plans.err")"
fi
if ppsim --model=llama3-8b --tp=8 --cp=2 --layers=100000 -p 4 -f json >/dev/null 2>"$TMP/many.err"; then ok; else
	not_ok "100,000 layers with tp and cp: $(cat "$TMP/many.err")"
fi
