# --device-order: the generated schedule's device i runs on physical device LIST[i]; each
# device's op list is unchanged, only which GPU, node and links run it.

# The identity order is the run itself, byte for byte, in every output.
for s in "-s 1f1b" "-s interleaved -v 2" "-s zbv -v 2" "-s dualpipe -v 2" "-s zb-auto"; do
	# shellcheck disable=SC2086 # the arguments are meant to split on spaces
	for fmt in text json; do
		ppsim $s -p 4 -m 8 --tcomm 0.5 --format=$fmt --timeline=0 >"$TMP/id.a" 2>&1
		ppsim $s -p 4 -m 8 --tcomm 0.5 --format=$fmt --timeline=0 --device-order=0,1,2,3 \
			>"$TMP/id.b" 2>&1
		if cmp -s "$TMP/id.a" "$TMP/id.b"; then ok; else
			not_ok "ppsim $s --device-order=0,1,2,3 --format=$fmt differs from the run without it"
		fi
	done
done
ppsim -s zbv -v 2 -p 4 -m 4 --timeline=80 --trace="$TMP/id-a.json" >"$TMP/id.a" 2>&1
ppsim -s zbv -v 2 -p 4 -m 4 --timeline=80 --trace="$TMP/id-b.json" --device-order=0,1,2,3 \
	>"$TMP/id.b" 2>&1
if cmp -s "$TMP/id.a" "$TMP/id.b" && cmp -s "$TMP/id-a.json" "$TMP/id-b.json"; then ok; else
	not_ok "zbv --device-order=0,1,2,3: its timeline or trace differs from the run without it"
fi

# Uniform GPUs in one node: any order gives the same makespan, for every kind of schedule
# (loop, V, two routes, a priced order), with explicit costs and with a model's.
for s in "-s 1f1b" "-s interleaved -v 2" "-s zbv -v 2" "-s dualpipe -v 2" "-s dualpipev -v 2" \
	"-s zb-auto" "-s interleaved-zb -v 2"; do
	for costs in "--tcomm 0.5" "--model llama3-8b"; do
		# shellcheck disable=SC2086
		a=$(ppsim $s -p 4 -m 8 $costs --format=json | "$JGET" - makespan 2>&1)
		# shellcheck disable=SC2086
		b=$(ppsim $s -p 4 -m 8 $costs --format=json --device-order=2,0,3,1 | "$JGET" - makespan 2>&1)
		if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else
			not_ok "ppsim $s $costs: makespan $a, with --device-order=2,0,3,1 $b"
		fi
	done
done

# The reports number the physical devices: 1F1B's device 0 holds p = 4 micro-batches' activations
# at its peak and device 3 one; with the order 3,1,0,2 generated device 0 is device 3, and the
# channels are those of the pipeline 3 -> 1 -> 0 -> 2.
run_json -s 1f1b -p 4 -m 8 --device-order=3,1,0,2
expect devices.3.peak_activations 4
expect devices.2.peak_activations 1
expect p2p.channels.0.src 0
expect p2p.channels.0.dst 1
expect p2p.channels.1.src 0
expect p2p.channels.1.dst 2
ppsim -s zbv -v 2 -p 4 -m 4 --timeline=80 --device-order=2,0,3,1 >"$TMP/tl" 2>&1
# ZB-V's generated device 0 holds stages 0 and 7: on device 2
if grep -q "^GPU 2 (stages 0,7)" "$TMP/tl"; then ok; else
	not_ok "zbv --device-order=2,0,3,1: the timeline does not show stages 0 and 7 on GPU 2: $(head -c 300 "$TMP/tl")"
fi

# Mixed GPUs: the order moves the slow GPU's stages. With the H100 on device 0 and the A100 on
# device 1, the order 1,0 runs stage 0 on the A100 and stage 1 on the H100: the run of
# --device-gpus a100-80g,h100-sxm, but for the devices' numbers (the link is given, as device
# 0's GPU picks the default one).
ref="--model llama3-8b -p 2 -m 4 --link nvlink3"
# shellcheck disable=SC2086
ppsim $ref --device-gpus a100-80g,h100-sxm --format=json >"$TMP/ref.json"
# shellcheck disable=SC2086
run_json $ref --device-gpus h100-sxm,a100-80g --device-order=1,0
expect makespan "$("$JGET" "$TMP/ref.json" makespan)"
for k in 0 1; do
	expect model.stages.$k.t_f "$("$JGET" "$TMP/ref.json" model.stages.$k.t_f)"
	expect model.stages.$k.t_b "$("$JGET" "$TMP/ref.json" model.stages.$k.t_b)"
	# device k here is device 1-k there
	expect devices.$k.busy "$("$JGET" "$TMP/ref.json" devices.$((1 - k)).busy)"
	expect devices.$k.memory_bytes "$("$JGET" "$TMP/ref.json" devices.$((1 - k)).memory_bytes)"
done
# and the A100's stage is the slower one: stage 0 on device 1 is busier than stage 1 on device 0
expect_cmp devices.1.busy ">" "$("$JGET" "$TMP/out.json" devices.0.busy)"

# --stage-scale's p factors name physical devices, at v = 1 as at v = 2: the slow device 0
# stays the busy one whatever stage runs on it (at v = 1 they are p x v factors too, which
# followed the stage to device 1).
for v in "-s 1f1b" "-s interleaved -v 2"; do
	# shellcheck disable=SC2086 # v is words
	run_json $v -p 4 -m 8 --stage-scale=2,1,1,1 --device-order=1,0,2,3
	if [ "$("$JGET" "$TMP/out.json" devices.0.busy)" = \
		"$(awk -v b="$("$JGET" "$TMP/out.json" devices.1.busy)" 'BEGIN { print 2 * b }')" ]; then ok; else
		not_ok "$v --stage-scale=2,1,1,1 --device-order=1,0,2,3: device 0 not twice device 1's busy"
	fi
done

# Two nodes of two GPUs: in order, only the hop 1 -> 2 leaves a node; the order 0,2,1,3 puts
# every neighbouring pair in two nodes, so all six channels take the inter-node hop's time.
ppsim --model llama3-8b -p 4 -m 8 --gpus-per-node=2 --format=json >"$TMP/ref.json"
inter=$("$JGET" "$TMP/ref.json" p2p.channels.2.time)
intra=$("$JGET" "$TMP/ref.json" p2p.channels.0.time)
expect_inter() {
	run_json --model llama3-8b -p 4 -m 8 --gpus-per-node=2 --device-order=0,2,1,3
	for i in 0 1 2 3 4 5; do expect p2p.channels.$i.time "$inter" 1e-6; done
	expect p2p.time "$(awk -v t="$inter" 'BEGIN { printf "%.6f", 6 * t }')" 1e-5
	expect_cmp p2p.time ">" "$("$JGET" "$TMP/ref.json" p2p.time)"
}
if [ "$("$JGET" "$TMP/ref.json" p2p.channels.2.src)" = 1 ] &&
	awk -v a="$inter" -v b="$intra" 'BEGIN { exit !(a > b) }'; then
	ok
	expect_inter
else
	not_ok "two nodes of two GPUs: the hop 1 -> 2 ($inter) is not the slower one ($intra)"
fi

# Bad input: not a permutation of 0..p-1, a schedule file, an export.
fails 2 "--device-order '3,1,0': gives 3 devices; give a permutation of 0..3" -p 4 --device-order=3,1,0
fails 2 "--device-order '3,1,1,0': device 1 appears twice" -p 4 --device-order=3,1,1,0
fails 2 "--device-order '3,1,4,0': names device 4; p = 4 devices are numbered 0 to 3" -p 4 --device-order=3,1,4,0
fails 2 "--device-order 'a,1': 'a' is not a device number from 0 to 1023" --device-order=a,1
fails 2 "--device-order '1,,0': '' is not a device number" -p 2 --device-order=1,,0
fails 2 "--device-order '-1,0': '-1' is not a device number" -p 2 --device-order=-1,0
ppsim -p 4 -m 4 --export-schedule="$TMP/file.csv" >/dev/null 2>&1
fails 2 "--device-order '1,0,2,3': renumbers a generated schedule's devices; a schedule file" \
	--schedule-file="$TMP/file.csv" --device-order=1,0,2,3
fails 2 "--export-schedule: a schedule file places its stages by loop or V and cannot carry --device-order" \
	-p 4 -m 4 --device-order=1,0,2,3 --export-schedule="$TMP/moved.csv"
if [ -e "$TMP/moved.csv" ]; then not_ok "a refused --export-schedule left $TMP/moved.csv"; else ok; fi

# With GPUs of several types each device's memory_capacity_bytes is its own GPU's, as the
# library's device figure gives it, and oom is memory_bytes over it less its type's reserve (it
# was the run's least-room GPU's on every device, beside device 0's reserve).
ppsim --model=llama3-70b -p 4 -m 8 --tp=4 --device-gpus=h200,h200,a100-80g,a100-80g -f json \
	>"$TMP/mixed.json"
if python3 - "$TMP/mixed.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
reserve = {g["gpu"]: g["memory_reserve_bytes"] for g in r["model"]["gpu_types"]}
gpus = ["h200", "h200", "a100-80g", "a100-80g"]
caps = {"h200": 141e9, "a100-80g": 80e9}
for d, dev in enumerate(r["devices"]):
    if dev["memory_capacity_bytes"] != caps[gpus[d]]:
        sys.exit(1)
    if dev["oom"] != (dev["memory_bytes"] > dev["memory_capacity_bytes"] - reserve[gpus[d]]):
        sys.exit(1)
PY
then ok; else not_ok "mixed GPUs: devices' memory_capacity_bytes or oom is not their own GPU's"; fi
