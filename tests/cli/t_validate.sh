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
while IFS='|' read -r status file text; do
	file=$(echo $file)
	text=$(echo "$text" | sed 's/^ *//; s/ *$//')
	# shellcheck disable=SC2086
	fails $status "$text" validate "$ROOT/tests/cli/schedules/$file" </dev/null
	fails $status "$text" --schedule-file="$ROOT/tests/cli/schedules/$file" </dev/null
done <"$TMP/bad_schedules"

# A file may mix fused and split backwards (as DualPipeV does), one kind per micro-batch.
golden validate-mixed.txt validate tests/golden/mixed-schedule.csv

# Round trips: a generator's order exported in any format and simulated from the file
# gives the same makespan and the same per-device order.
for args in "-s 1f1b -p 4 -m 8" "-s interleaved -p 4 -v 2 -m 8" "-s dualpipev -p 4 -m 10" \
	"-s zbv -p 4 -m 8" "-s zb-auto -p 4 -m 8 --tf 2 --tb 2 --tw 1"; do
	for fmt in ppsim torch torch-comms; do
		# shellcheck disable=SC2086
		ppsim $args --export-schedule="$TMP/order.csv" --export-format=$fmt \
			--dump-ops="$TMP/ops-a.csv" -f json >"$TMP/a.json"
		# shellcheck disable=SC2086
		set -- $args
		shift 2
		# the file replaces -s; costs stay on the command line
		ppsim --schedule-file="$TMP/order.csv" $(echo "$@" | sed 's/-p [0-9]*//; s/-m [0-9]*//') \
			--dump-ops="$TMP/ops-b.csv" -f json >"$TMP/b.json" 2>"$TMP/err"
		a=$("$JGET" "$TMP/a.json" makespan)
		b=$("$JGET" "$TMP/b.json" makespan 2>/dev/null)
		if [ -n "$a" ] && [ "$a" = "$b" ] && cmp -s "$TMP/ops-a.csv" "$TMP/ops-b.csv"; then
			ok
		else
			not_ok "round trip of ppsim $args as $fmt: makespan $a vs $b $(cat "$TMP/err")"
		fi
	done
done

# -- ends the options, as getopt's commands take it: the file follows
if ppsim validate -- "$ROOT/tests/golden/1f1b-p2-m2-ops.csv" >"$TMP/validate.out" 2>&1 &&
	grep -q "': valid$" "$TMP/validate.out"; then ok; else
	not_ok "ppsim validate -- FILE: $(head -c 200 "$TMP/validate.out")"
fi
fails 2 "validate: needs a schedule FILE" validate --
# a number's leading zeros are not its size: 0F000...01 is F of micro-batch 1
if ppsim validate "$ROOT/tests/cli/schedules/torch-leading-zeros.csv" >"$TMP/validate.out" 2>&1 &&
	grep -q "': valid$" "$TMP/validate.out"; then ok; else
	not_ok "validate torch-leading-zeros.csv: $(head -c 200 "$TMP/validate.out")"
fi

# PyTorch's compute_comms CSV (zb1p, 2 ranks, 2 stages per rank, the shape of PyTorch's test
# artifact zb1p_2rank_2stagep_comms.csv): its SEND/RECV are checked and priced by the engine
# as the dependencies they stand for, so it simulates exactly as its compute-only twin, with
# or without a transfer cost; and the twin exported as torch-comms is that file, byte for byte.
comms="$ROOT/tests/golden/zb1p-2rank-2stagep-comms.csv"
twin="$ROOT/tests/golden/zb1p-2rank-2stagep-compute.csv"
for costs in "" "--tcomm 0.3" "--link pcie4 --model llama3-8b --gpu h100-sxm"; do
	# shellcheck disable=SC2086
	ppsim --schedule-file="$comms" $costs -f json >"$TMP/comms.json" 2>"$TMP/err"
	# shellcheck disable=SC2086
	ppsim --schedule-file="$twin" $costs -f json >"$TMP/twin.json" 2>>"$TMP/err"
	a=$("$JGET" "$TMP/comms.json" makespan 2>/dev/null)
	b=$("$JGET" "$TMP/twin.json" makespan 2>/dev/null)
	if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else
		not_ok "compute_comms vs its compute-only twin ($costs): makespan $a vs $b $(cat "$TMP/err")"
	fi
done
ppsim --schedule-file="$twin" --export-schedule="$TMP/comms.csv" --export-format=torch-comms \
	>/dev/null
if cmp -s "$TMP/comms.csv" "$comms"; then ok; else
	not_ok "the zb1p twin exported as torch-comms is not PyTorch's lowering: $(diff "$TMP/comms.csv" "$comms" | head -c 300)"
fi
# ppsim's interleaved-zb is PyTorch's ScheduleInterleavedZeroBubble: the twin is its order
# with each I directly followed by the W of the same stage and micro-batch merged into a B
# (as PyTorch's _merge_bw merges them), as docs/pytorch.md says
ppsim -s interleaved-zb -p 2 -v 2 -m 8 --export-schedule="$TMP/izb.csv" --export-format=torch \
	>/dev/null
sed -E 's/(^|,)([0-9]+)I([0-9]+),\2W\3(,|$)/\1\2B\3\4/g; s/(^|,)([0-9]+)I([0-9]+),\2W\3(,|$)/\1\2B\3\4/g' \
	"$TMP/izb.csv" >"$TMP/izb-merged.csv"
if cmp -s "$TMP/izb-merged.csv" "$twin"; then ok; else
	not_ok "interleaved-zb p=2 v=2 m=8, I+W merged, is not the zb1p twin: $(diff "$TMP/izb-merged.csv" "$twin" | head -c 300)"
fi
if ppsim validate "$comms" >"$TMP/validate.out" 2>&1 &&
	grep -q "80 ops, PyTorch compute_comms format$" "$TMP/validate.out" &&
	grep -q "^96 SEND/RECV actions match" "$TMP/validate.out"; then ok; else
	not_ok "validate of a compute_comms file: $(cat "$TMP/validate.out")"
fi
# UNSHARD, RESHARD and REDUCE_GRAD cost nothing: a single stage ending in REDUCE_GRAD runs
# as its compute actions alone
printf '0UNSHARD,0F0,0F1,0B0,0B1,0RESHARD,0REDUCE_GRAD\n' >"$TMP/fsdp.csv"
printf '0F0,0F1,0B0,0B1\n' >"$TMP/fsdp-twin.csv"
ppsim --schedule-file="$TMP/fsdp.csv" -f json >"$TMP/a.json" 2>"$TMP/err"
ppsim --schedule-file="$TMP/fsdp-twin.csv" -f json >"$TMP/b.json" 2>>"$TMP/err"
a=$("$JGET" "$TMP/a.json" makespan 2>/dev/null)
b=$("$JGET" "$TMP/b.json" makespan 2>/dev/null)
if [ -n "$a" ] && [ "$a" = "$b" ] && ppsim validate "$TMP/fsdp.csv" 2>&1 |
	grep -q "^no SEND/RECV actions: a compute-only order; 3 UNSHARD"; then ok; else
	not_ok "UNSHARD/RESHARD/REDUCE_GRAD: makespan $a vs $b $(cat "$TMP/err")"
fi
fails 2 "--export-format 'comms': must be 'ppsim', 'torch' or 'torch-comms'" \
	-s 1f1b --export-schedule="$TMP/x.csv" --export-format=comms

# validate --format=json: what the text says, as one JSON object; a format validate does not
# write is refused naming its formats, and an unknown option is not taken for a file
ppsim -s zbv -p 4 -m 8 -v 2 --export-schedule="$TMP/zbv.csv" >/dev/null
if ppsim validate --format=json "$TMP/zbv.csv" >"$TMP/v.json" 2>"$TMP/err" &&
	[ "$("$JGET" "$TMP/v.json" schema_version)" = 1 ] &&
	[ "$("$JGET" "$TMP/v.json" format)" = ppsim ] &&
	[ "$("$JGET" "$TMP/v.json" p)/$("$JGET" "$TMP/v.json" v)/$("$JGET" "$TMP/v.json" m)" = 4/2/8 ] &&
	[ "$("$JGET" "$TMP/v.json" placement)" = V ] &&
	[ "$("$JGET" "$TMP/v.json" backward)" = split ] &&
	[ "$("$JGET" "$TMP/v.json" ops)" = 192 ] &&
	[ "$("$JGET" "$TMP/v.json" transfers)" = null ] &&
	[ "$("$JGET" "$TMP/v.json" peak_activations.0)" = "$(ppsim validate "$TMP/zbv.csv" |
		sed -n 's/^peak activations[^:]*: \([^ ]*\).*/\1/p')" ]; then
	ok
else
	not_ok "validate --format=json: $(head -c 300 "$TMP/v.json") $(head -c 200 "$TMP/err")"
fi
ppsim -s 1f1b -p 2 -m 4 --export-schedule="$TMP/c.csv" --export-format=torch-comms >/dev/null
if ppsim validate -f json -- "$TMP/c.csv" >"$TMP/v.json" &&
	[ "$("$JGET" "$TMP/v.json" format)" = torch-comms ] &&
	[ "$("$JGET" "$TMP/v.json" transfers)" -gt 0 ]; then
	ok
else
	not_ok "validate -f json of a compute_comms file: $(head -c 300 "$TMP/v.json")"
fi
fails 2 "--format 'csv': validate writes text or json" validate --format=csv "$TMP/zbv.csv"
fails 2 "validate: unknown option '--bogus'" validate --bogus "$TMP/zbv.csv"
# its options as every command's (getopt_long): a short one's value attached, a long one by a
# prefix that names one alone, and one that names two refused naming both
if ppsim validate -p4 -m8 -v2 "$TMP/zbv.csv" >"$TMP/attached.txt" 2>"$TMP/err" &&
	ppsim validate --stag=4 --micro 8 --ch=2 "$TMP/zbv.csv" >"$TMP/prefix.txt" 2>>"$TMP/err" &&
	ppsim validate "$TMP/zbv.csv" -p 4 -m 8 -v 2 >"$TMP/whole.txt" 2>>"$TMP/err" &&
	cmp -s "$TMP/attached.txt" "$TMP/whole.txt" && cmp -s "$TMP/prefix.txt" "$TMP/whole.txt"; then ok; else
	not_ok "validate -p4 -m8 or --stag=4 --micro 8: $(cat "$TMP/err")"
fi
fails 2 "validate: ambiguous option '--m=8': --max-ops, --microbatches" validate --m=8 "$TMP/zbv.csv"
fails 2 "validate: unexpected argument" validate "$TMP/zbv.csv" "$TMP/v.json"
# as every command: --help with a value is refused as such, -h wins over a bad value given with
# it, and a short option past ASCII is named by the argument that holds it
fails 2 "option '--help' takes no value" validate --help=1
fails 2 "option '--help' takes no value" validate --hel=1 "$TMP/zbv.csv"
if ppsim validate -p 0 -h >"$TMP/help.txt" 2>&1 && grep -q "^Usage: ppsim validate" "$TMP/help.txt"; then
	ok
else
	not_ok "validate -p 0 -h: $(head -c 200 "$TMP/help.txt")"
fi
fails 2 "validate: unknown option '-é'" validate -p4 -é "$TMP/zbv.csv"
fails 2 "unknown option '-éx'" -p4 -éx

# GPipe's pipeline_order as PyTorch builds it on 2 ranks, each rank ending in REDUCE_GRAD: no
# SEND or RECV, so a compute-only order (PyTorch's compute_comms lists every transfer)
printf '0F0,0F1,0B0,0B1,0REDUCE_GRAD\r\n1F0,1F1,1B0,1B1,1REDUCE_GRAD\r\n' >"$TMP/gpipe.csv"
if ppsim validate -p 2 -m 2 -v 1 "$TMP/gpipe.csv" >"$TMP/validate.out" 2>&1 &&
	grep -q "^p=2 v=1 m=2, .* PyTorch format$" "$TMP/validate.out" &&
	grep -q "^no SEND/RECV actions: a compute-only order; 2 UNSHARD" "$TMP/validate.out"; then
	ok
else
	not_ok "validate of GPipe's order ending in REDUCE_GRAD: $(cat "$TMP/validate.out")"
fi
# validate -p/-m/-v: the job the file is meant for; a cell outside it, or a file of another
# shape, is refused (exit 3) naming the cell or both shapes
fails 3 "gpipe.csv':1:5: rank 0, cell 2 '0F1': micro-batch 1 is outside the job's 1 (0 to 0)" \
	validate -m 1 "$TMP/gpipe.csv"
fails 3 "gpipe.csv':2:1: rank 1, cell 1 '1F0': rank 1 is outside the job's 1 ranks (0 to 0)" \
	validate -p 1 "$TMP/gpipe.csv"
fails 3 "gpipe.csv': does not fit the job: the file has p=2 v=1 m=2 (ranks, stages a rank, micro-batches), the job p=3 v=1 m=4" \
	validate --stages=3 --microbatches 4 "$TMP/gpipe.csv"
fails 3 "the job p=2 v=2 m=2" validate -v 2 "$TMP/gpipe.csv"
fails 2 "-p '0': must be an integer from 1 to" validate -p 0 "$TMP/gpipe.csv"
fails 2 "--chunks 'x': must be an integer from 1 to" validate --chunks=x "$TMP/gpipe.csv"
fails 2 "option '-m' needs a value" validate "$TMP/gpipe.csv" -m
