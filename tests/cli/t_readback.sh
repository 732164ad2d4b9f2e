# ppsim reads what it writes (docs/robustness.md): every file a run that ppsim accepts writes
# for ppsim to read (a schedule export in each format, the op dump, a serving run's requests)
# reads back, whatever its size up to the op limit; and a hostile file meant to pass for one
# is refused without holding more than the limits allow.

# A device's row of PyTorch's formats holds all its actions: with few devices and many
# micro-batches it passes 1 MiB (torch-comms p=2 m=40000: 1.6 MB; torch p=1 m=90000: 1.4 MB;
# overlapped pairs and V placement: dualpipev). Each export validates, and simulated from the
# file gives the generator's makespan; lines longer than 1 MiB are checked to be there. Under
# valgrind (PPSIM_WRAP), the first case alone, rows of pieces and all.
printf '%s\n' "torch-comms -s 1f1b -p 2 -m 40000" "torch -s 1f1b -p 1 -m 90000" \
	"torch-comms -s dualpipev -p 2 -m 30000" "ppsim -s 1f1b -p 2 -m 40000" |
	head -n "$([ -n "${PPSIM_WRAP:-}" ] && echo 1 || echo 4)" >"$TMP/cases"
while read -r case; do
	# shellcheck disable=SC2086
	set -- $case
	fmt=$1
	shift
	RUN="export of ppsim $* as $fmt"
	if ! ppsim "$@" --export-schedule="$TMP/big.csv" --export-format="$fmt" \
		--dump-ops="$TMP/big-ops.csv" -f json >"$TMP/a.json" 2>"$TMP/err"; then
		not_ok "$RUN failed: $(head -c 300 "$TMP/err")"
		continue
	fi
	longest=$(awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "$TMP/big.csv")
	if [ "$fmt" = ppsim ] || [ "$longest" -gt 1048576 ]; then ok; else
		not_ok "$RUN: its longest line, $longest bytes, is within the reader's 1 MiB"
	fi
	if ppsim validate "$TMP/big.csv" >"$TMP/validate.out" 2>&1 &&
		grep -q "': valid$" "$TMP/validate.out"; then ok; else
		not_ok "$RUN does not validate: $(head -c 300 "$TMP/validate.out")"
	fi
	# the op dump is a schedule file too
	if ppsim validate "$TMP/big-ops.csv" >"$TMP/validate.out" 2>&1 &&
		grep -q "': valid$" "$TMP/validate.out"; then ok; else
		not_ok "$RUN: its --dump-ops does not validate: $(head -c 300 "$TMP/validate.out")"
	fi
	ppsim --schedule-file="$TMP/big.csv" -f json >"$TMP/b.json" 2>"$TMP/err"
	a=$("$JGET" "$TMP/a.json" makespan)
	b=$("$JGET" "$TMP/b.json" makespan 2>/dev/null)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else
		not_ok "$RUN, simulated from the file: makespan $a vs $b $(head -c 300 "$TMP/err")"
	fi
done <"$TMP/cases"

# The op limit is the reader's as it is the run's: a run of --max-ops=N exports what
# validate --max-ops=N reads, and a file of more ops than its limit is refused on the line
# (and, in a long row, at the cell) that passes it.
ppsim -s 1f1b -p 2 -m 300 --max-ops=1200 --export-schedule="$TMP/n.csv" \
	--export-format=torch >/dev/null
if ppsim validate --max-ops=1200 "$TMP/n.csv" >"$TMP/validate.out" 2>&1 &&
	grep -q "1200 ops, PyTorch format$" "$TMP/validate.out"; then ok; else
	not_ok "validate --max-ops=1200 of a run's 1200 ops: $(head -c 300 "$TMP/validate.out")"
fi
fails 3 "n.csv':2:" validate --max-ops=1199 "$TMP/n.csv"
fails 3 "more ops than the limit of 1199" validate --max-ops=1199 "$TMP/n.csv"
fails 2 "--max-ops '0': must be an integer from 1 to 1000000000" validate --max-ops=0 "$TMP/n.csv"
fails 2 "option '--max-ops' needs a value" validate "$TMP/n.csv" --max-ops
# The shape a file's numbers claim is held to that limit too, not to the default: a run of
# --max-ops above 50000000 exports files of more ops, which read back with the same limit.
printf 'device,stage,op,microbatch\n0,0,F,16000000\n1,1,F,16000000\n' >"$TMP/shape.csv"
fails 3 "p=2 v=1 m=16000001 needs 6.4e+07 ops, above the limit of 1000" \
	validate --max-ops=1000 "$TMP/shape.csv"
fails 3 "shape.csv':2:1: micro-batch 16000000 after a gap: no op names micro-batch 0" \
	validate --max-ops=100000000 "$TMP/shape.csv"
fails 3 "shape.csv':2:1: micro-batch 16000000 after a gap: no op names micro-batch 0" \
	--max-ops=100000000 --schedule-file="$TMP/shape.csv"

# An export ppsim could not read back within a reader's memory (104 bytes an op, 216 a message
# in compute_comms; 2 GB at the default) is refused before its run, so that what is exported
# validates: at once, and naming the option and the ops that fit.
rm -f "$TMP/big.csv"
fails 2 "--export-schedule: 20000000 ops would take about 2080000000 bytes to read back" \
	-p 8 -m 1250000 --export-schedule="$TMP/big.csv"
fails 2 "--export-schedule: 20000000 ops would take about 2080000000 bytes to read back" \
	-p 8 -m 1250000 --export-schedule="$TMP/big.csv" --export-format=torch
fails 2 "--export-schedule: 7040000 ops and 6160000 messages would take about 2062720000" \
	-p 8 -m 440000 --export-schedule="$TMP/big.csv" --export-format=torch-comms
fails 2 "allows a reader (about 6825938 ops fit)" \
	-p 8 -m 440000 --export-schedule="$TMP/big.csv" --export-format=torch-comms
if [ ! -e "$TMP/big.csv" ]; then ok; else not_ok "a refused export left its file"; fi

# Hostile rows: one cell longer than 1 MiB is refused where it passes the limit, after what
# fits; a row of 3 MiB of empty cells holds no memory and is a rank without compute actions;
# a ppsim-format line longer than 1 MiB is refused as before.
awk 'BEGIN { printf "0F0,"; for (i = 0; i < 1100000; i++) printf "7"; printf "\n" }' \
	>"$TMP/cell.csv"
fails 3 "cell.csv':1:1048581: a field longer than the limit of 1048576 bytes" \
	validate "$TMP/cell.csv"
awk 'BEGIN { printf "0F0,0B0\n"; for (i = 0; i < 3200000; i++) printf ","; printf "\n" }' \
	>"$TMP/commas.csv"
fails 3 "commas.csv':2:1: rank 1 holds no compute action" validate "$TMP/commas.csv"
awk 'BEGIN { print "device,stage,op,microbatch"; printf "0,0,F,0"; for (i = 0; i < 1100000; i++)
	printf ","; printf "\n" }' >"$TMP/wide.csv"
fails 3 "wide.csv':2:1048577: a line longer than the limit of 1048576 bytes" \
	validate "$TMP/wide.csv"

# A serving run's requests, exported, read back as the same requests.
ppsim serve --num-requests=2000 --export-requests="$TMP/r1.jsonl" >/dev/null
ppsim serve --requests="$TMP/r1.jsonl" --export-requests="$TMP/r2.jsonl" >/dev/null 2>"$TMP/err"
if [ -s "$TMP/r1.jsonl" ] && cmp -s "$TMP/r1.jsonl" "$TMP/r2.jsonl"; then ok; else
	not_ok "serve --export-requests does not read back as itself: $(head -c 300 "$TMP/err")"
fi

# A schedule file's shape governs what follows from it, as -p, -v and -m would: a straggler or a
# stage's jitter named within it (they were checked against the default p = 4 first), a
# framework's sends by its chunks, and a global batch's m and a GPU count's dp by its p (a global
# batch that disagrees with its m is refused, as one that disagrees with -m is).
ppsim -p 6 -m 12 --export-schedule="$TMP/p6.csv" -f csv >/dev/null
ppsim -p 6 -m 12 -s zbv -v 2 --export-schedule="$TMP/p6v.csv" -f csv >/dev/null
ppsim -s interleaved -p 4 -m 8 --export-schedule="$TMP/i48.csv" -f csv >/dev/null
same_run() { # WHAT FILE-ARGS GENERATED-ARGS: the two JSON reports' makespans agree
	# shellcheck disable=SC2086 # the arguments are words
	a=$(ppsim $2 -f json 2>&1 | sed -n 's/^	"makespan":	\(.*\),$/\1/p')
	# shellcheck disable=SC2086
	b=$(ppsim $3 -f json 2>&1 | sed -n 's/^	"makespan":	\(.*\),$/\1/p')
	if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else not_ok "$1: the file's run '$a', generated '$b'"; fi
}
same_run "a straggler on device 5 of a p = 6 file" "--schedule-file=$TMP/p6.csv --straggler=5:1.5" \
	"-p 6 -m 12 --straggler=5:1.5"
same_run "a stage's jitter within a p x v = 12 file" \
	"--schedule-file=$TMP/p6v.csv --samples=3 --jitter=F@9=normal:0.1" \
	"-s zbv -p 6 -v 2 -m 12 --samples=3 --jitter=F@9=normal:0.1"
same_run "megatron's sends with a file of chunks" \
	"--model=llama3-8b --framework=megatron --schedule-file=$TMP/i48.csv" \
	"--model=llama3-8b --framework=megatron -s interleaved -p 4 -m 8"
fails 2 "--straggler '7:1.5': names device 7; p = 6" --schedule-file="$TMP/p6.csv" --straggler=7:1.5
fails 2 "--global-batch '12': needs a model" --schedule-file="$TMP/p6.csv" --global-batch=12
fails 2 "--layer-split 'even': llama3-8b's 32 layers do not split evenly over p x v = 6 stages" \
	--schedule-file="$TMP/p6.csv" --model=llama3-8b --layer-split=even
fails 2 "--global-batch '48': makes m = 48 (global batch / (mbs x dp)); the schedule file" \
	--schedule-file="$TMP/p6.csv" --model=llama3-8b --global-batch=48
if ppsim --schedule-file="$TMP/p6.csv" --model=llama3-8b --gpus=18 --global-batch=36 -f json |
	grep -q '"global_batch":	36,'; then
	ok
else
	not_ok "a file of p = 6 with 18 GPUs and a global batch of 36 (dp 3, m 12) should run"
fi

# A sweep's skipped points of a schedule file give the file's shape (they gave the default p = 4,
# v = 1), with the m their global batch asks for.
ppsim sweep --schedule-file="$TMP/p6v.csv" --model=llama3-8b --gpus=12,24 --global-batch=24 \
	-f jsonl --quiet >"$TMP/sweep-file.jsonl" 2>/dev/null
if grep -q '"status":"skipped"' "$TMP/sweep-file.jsonl" &&
	! grep '"status":"skipped"' "$TMP/sweep-file.jsonl" | grep -qv '"p":6,"v":2,'; then
	ok
else
	not_ok "a sweep's skipped points of a p = 6, v = 2 file: $(grep skipped "$TMP/sweep-file.jsonl" | cut -c1-160)"
fi

# Every shipped config runs the order it exports: the command line's --schedule-file replaces
# the config's "schedule" (refused with exit 3, blaming the config, before), with the same
# figures; in one file, or both on the command line, the two are still refused.
for cfg in "$ROOT"/configs/*.json; do
	name=$(basename "$cfg")
	ppsim -c "$cfg" --export-schedule="$TMP/cfg.csv" -f json >"$TMP/cfg-gen.json" 2>"$TMP/err" &&
		ppsim -c "$cfg" --schedule-file="$TMP/cfg.csv" -f json >"$TMP/cfg-file.json" 2>>"$TMP/err"
	if [ -s "$TMP/cfg-file.json" ] &&
		[ "$("$JGET" "$TMP/cfg-gen.json" step_time)" = "$("$JGET" "$TMP/cfg-file.json" step_time)" ]; then
		ok
	else
		not_ok "$name with its own exported order: $(head -c 300 "$TMP/err")"
	fi
done
# A config's schedule that implies chunks gives way to a file with none (and the other way round)
# with the file's shape and figures: its v was kept and the cost model stopped on an assertion.
ppsim -s 1f1b -p 4 -m 8 --export-schedule="$TMP/one.csv" -f json >"$TMP/one.json"
ppsim -s zbv -p 4 -m 8 --export-schedule="$TMP/two.csv" -f json >"$TMP/two.json"
for sched in interleaved zbv zbv-auto vhalf 1f1b-v dualpipe dualpipev interleaved-combined 1f1b; do
	printf '{"schedule": "%s"}\n' "$sched" >"$TMP/named.json"
	for f in one two; do
		ppsim -c "$TMP/named.json" --schedule-file="$TMP/$f.csv" -f json >"$TMP/named-$f.json" \
			2>"$TMP/err"
		if [ -s "$TMP/named-$f.json" ] && [ "$("$JGET" "$TMP/named-$f.json" makespan)" = \
			"$("$JGET" "$TMP/$f.json" makespan)" ]; then
			ok
		else
			not_ok "a config's $sched beside the $f-chunk file: $(head -c 300 "$TMP/err")"
		fi
	done
done
# --overlap-factor prices a file's overlapped pairs; a file without any refuses it, as a schedule
# without pairs does (it was ignored, the run's JSON null)
fails 2 "--overlap-factor '0.5': the schedule file '$TMP/one.csv' has no overlapped F&B pairs" \
	--schedule-file="$TMP/one.csv" --overlap-factor=0.5
ppsim -s dualpipev -p 4 -m 16 --export-schedule="$TMP/pairs.csv" >/dev/null
run_json --schedule-file="$TMP/pairs.csv" --overlap-factor=0.7
expect makespan 39.3
printf '{"schedule_file": "%s", "schedule": "1f1b"}\n' "$TMP/cfg.csv" >"$TMP/both.json"
fails 3 "key \"schedule\" = 1f1b: not with --schedule-file" -c "$TMP/both.json"
fails 2 "--schedule 'gpipe': not with --schedule-file" -s gpipe --schedule-file="$TMP/cfg.csv"
