# Costs from a model, a GPU and links; JSON configs; `ppsim compare`.

# The document's setting (Llama-3 70B, p=4, s=2048, b=1, bf16, tp=1): one P2P message carries
# 2048 x 8192 x 2 = 33554432 bytes, and the per-layer FLOPs follow docs/cost-model.md's formulas,
# computed here on their own: P = 2h^2 + 2h(kv h/a) + 3h*ffn linear parameters, t = b*s,
# F = 2Pt + 4bs^2h, B = 2Pt + 8bs^2h, W = 2Pt.
run_json -c "$ROOT/configs/llama3-70b-a100-nvlink.json"
expect model.msg_bytes 33554432
expect costs.msg_bytes 33554432
expect p2p.messages 96
expect p2p.bytes $((96 * 33554432))
flops() {
	awk -v kind="$1" 'BEGIN {
		h = 8192; a = 64; kv = 8; ffn = 28672; s = 2048; b = 1; t = b * s
		P = 2 * h * h + 2 * h * (kv * h / a) + 3 * h * ffn
		if (kind == "f") x = 2 * P * t + 4 * b * s * s * h
		if (kind == "b") x = 2 * P * t + 8 * b * s * s * h
		if (kind == "w") x = 2 * P * t
		printf "%.0f\n", x }'
}
expect model.layer_flops.f "$(flops f)" 0
expect model.layer_flops.b "$(flops b)" 0
expect model.layer_flops.w "$(flops w)" 0
expect model.layers 80
expect model.stages.0.layers 20
expect costs.time_unit ms

# The document's memory argument, as numbers: GPipe with m=16 keeps 16 micro-batches of 20
# layers alive on every device, far beyond 80 GB; 1F1B keeps p - d.
run_json --model llama3-70b -p 4 -m 16 -s gpipe
for d in 0 1 2 3; do
	expect_cmp devices.$d.activation_bytes ">" 80e9
	expect devices.$d.oom true
	expect devices.$d.peak_activations 16
done
run_json --model llama3-70b -p 4 -m 16 -s 1f1b
for d in 0 1 2 3; do
	expect devices.$d.peak_activations $((4 - d))
done
expect devices.0.memory_capacity_bytes 80e9

# Changing only the link leaves compute unchanged and scales transfer time by the bandwidth
# ratio (latency and the framework's message overhead pinned to 0, and the whole bandwidth
# given, so that the link's bandwidth alone prices a message).
BARE="--latency 0 --p2p-overhead 0 --p2p-efficiency 1"
for comm in overlap blocking; do
	# shellcheck disable=SC2086
	run_json --model llama3-70b -p 4 -m 16 --link nvlink3 $BARE --comm $comm
	cp "$TMP/out.json" "$TMP/nvlink.json"
	# shellcheck disable=SC2086
	run_json --model llama3-70b -p 4 -m 16 --link pcie4 $BARE --comm $comm
	for d in 0 1 2 3; do
		a=$("$JGET" "$TMP/nvlink.json" devices.$d.busy)
		expect devices.$d.busy "$a" 0
		a=$("$JGET" "$TMP/nvlink.json" model.stages.$d.t_f)
		expect model.stages.$d.t_f "$a" 0
	done
	# 96 messages of 33554432 B: at 300 GB/s and at 32 GB/s per direction (each message
	# rounds to the simulator's 1 ns, hence the tolerance)
	cp "$TMP/out.json" "$TMP/pcie.json"
	cp "$TMP/nvlink.json" "$TMP/out.json"
	expect p2p.time "$(awk 'BEGIN { printf "%.9f", 96 * 33554432 / 300e6 }')" 1e-4
	cp "$TMP/pcie.json" "$TMP/out.json"
	expect p2p.time "$(awk 'BEGIN { printf "%.9f", 96 * 33554432 / 32e6 }')" 1e-4
done
# By default a message also takes the framework's 234 us and 0.24 of the inside-node bandwidth
# (the fit on the Zero Bubble paper's T_comm): 96 x (0.003 + 0.234 + 33554432 / 72e6) ms.
run_json --model llama3-70b -p 4 -m 16 --link nvlink3
expect model.p2p_overhead 234
expect model.p2p_efficiency 0.24
expect p2p.time "$(awk 'BEGIN { printf "%.9f", 96 * (0.237 + 33554432 / 72e6) }')" 1e-4

# compare: one row per schedule, JSON objects with the single-run keys.
ppsim compare --schedules=gpipe,1f1b,interleaved,zbh1 -p 4 -m 16 -v 2 >"$TMP/cmp.txt" 2>&1
if [ "$(grep -c -E '^-  +(gpipe|1f1b|interleaved|zbh1) ' "$TMP/cmp.txt")" -eq 4 ]; then
	ok
else
	not_ok "compare text: expected 4 rows: $(cat "$TMP/cmp.txt")"
fi
RUN="ppsim compare --schedules=gpipe,1f1b,interleaved,zbh1 -p 4 -m 16 -v 2 -f json"
ppsim compare --schedules=gpipe,1f1b,interleaved,zbh1 -p 4 -m 16 -v 2 -f json >"$TMP/out.json"
i=0
for s in gpipe 1f1b interleaved zbh1; do
	expect $i.schedule $s
	for key in p v m makespan bubble_ratio bubble_ratio_theory bubble_overhead \
		bubble_rate_span utilization devices p2p speedup label; do
		if "$JGET" "$TMP/out.json" $i.$key >/dev/null 2>&1; then ok; else
			not_ok "$RUN: row $i lacks $key"
		fi
	done
	i=$((i + 1))
done
if "$JGET" "$TMP/out.json" 4 >/dev/null 2>&1; then not_ok "$RUN: more than 4 rows"; else ok; fi
expect 0.speedup 1
expect 2.v 2
expect 2.bubble_ratio 3/35
ppsim compare --schedules=all -p 4 -m 8 -v 2 -f csv >"$TMP/cmp.csv"
nsched=$(ppsim list | sed -n '/^Schedules/,/^$/p' | grep -c '^  ')
if [ "$(wc -l <"$TMP/cmp.csv")" -eq $((nsched + 1)) ] &&
	head -1 "$TMP/cmp.csv" | grep -q '^config,schedule,p,v,m,makespan,'; then
	ok
else
	not_ok "compare csv: $(cat "$TMP/cmp.csv")"
fi
golden compare-link.txt compare configs/llama3-70b-a100-nvlink.json configs/llama3-70b-a100-pcie.json

# Every shipped config runs.
for f in "$ROOT"/configs/*.json; do
	if ppsim -c "$f" >/dev/null 2>"$TMP/err" && [ ! -s "$TMP/err" ]; then ok; else
		not_ok "ppsim -c $f: $(cat "$TMP/err")"
	fi
done

# Bad config files: one line naming file:line:column, exit 3, nothing on stdout.
table "$ROOT/tests/cli/bad_configs.txt" >"$TMP/bad_configs"
while IFS='|' read -r file text; do
	file=$(echo $file)
	text=$(echo "$text" | sed 's/^ *//; s/ *$//')
	fails 3 "$text" -c "$ROOT/tests/cli/configs/$file" </dev/null
	case $file in
	# a serving config is a good one to compare, but not beside training schedules
	serving-*) fails 2 "compare: --schedules sets training schedules side by side; '$ROOT/tests/cli/configs/$file' is a serving config" \
		compare --schedules=1f1b "$ROOT/tests/cli/configs/$file" </dev/null ;;
	*) fails 3 "$text" compare --schedules=1f1b "$ROOT/tests/cli/configs/$file" </dev/null ;;
	esac
done <"$TMP/bad_configs"
fails 4 "cannot read" -c "$TMP/no-such-config.json"
# The command line overrides the file.
run_json -c "$ROOT/configs/llama3-70b-a100-nvlink.json" -m 8 -s gpipe
expect m 8
expect schedule gpipe

# --memory-reserve: the same run fits in 80 GB, not in 80 GB less a 50 GB reserve.
RUN="ppsim Llama-3 70B tp=8 p=4 m=8 --memory-reserve"
run_json --model=llama3-70b --gpus=32 --tp=8 -p 4 -m 8
expect devices.0.oom false
run_json --model=llama3-70b --gpus=32 --tp=8 -p 4 -m 8 --memory-reserve=50
expect devices.0.oom true
expect model.memory_reserve_bytes 50e9
expect model.gpu_memory_bytes 80e9

# --efficiency=0 prices each kernel: W, its GEMMs alone, is shorter than F, which adds attention
# and the memory-bound kernels (the uniform model makes W 0.93 of F here); the GPU's
# coefficients and their overrides reach the JSON report.
RUN="ppsim Llama-3 8B --efficiency=0"
run_json --model=llama3-8b -p 2 --efficiency=0 --gemm-efficiency=0.7 --kernel-overhead=0
expect model.efficiency 0
expect model.gemm_efficiency 0.7
expect model.kernel_overhead 0
expect model.sms 108
f=$("$JGET" "$TMP/out.json" model.layer_times.f)
w=$("$JGET" "$TMP/out.json" model.layer_times.w)
if awk -v f="$f" -v w="$w" 'BEGIN { exit !(w > 0 && w < 0.9 * f) }'; then ok; else
	not_ok "$RUN: W $w ms is not under 0.9 of F $f ms"
fi

# --fp8: the same Llama-3 8B step on an H100 SXM is faster with the linear GEMMs in fp8 (at
# 0.71 of 1979 TFLOP/s against 0.80 of 989) and their casts; on a GPU without fp8 tensor cores
# it is refused as a usage error, and so it is with the uniform model.
RUN="ppsim Llama-3 8B on h100-sxm --fp8"
run_json --model=llama3-8b --gpu=h100-sxm -p 4
bf16_step=$("$JGET" "$TMP/out.json" step_time)
bf16_w=$("$JGET" "$TMP/out.json" model.layer_times.w)
run_json --model=llama3-8b --gpu=h100-sxm -p 4 --fp8=yes
expect_cmp step_time "<" "$bf16_step"
expect_cmp step_time ">" "$(awk -v t="$bf16_step" 'BEGIN { print t / 2 }')"
expect_cmp model.layer_times.w "<" "$bf16_w"
run_json --model=llama3-8b --gpu=h100-sxm -p 4 --fp8=no
expect step_time "$bf16_step"
fails 2 "--fp8 'yes': the GPU a100-80g has no fp8 tensor cores" --model=llama3-8b --fp8=yes
fails 2 "has no fp8 tensor cores" --model=llama3-8b --gpu=a100-80g -p 4 --fp8=yes
fails 2 "not with a uniform efficiency" --model=llama3-8b --gpu=h100-sxm --fp8=yes --efficiency=0.5
fails 2 "needs a model" --fp8=yes
run_json --model=llama3-8b --gpu=a100-80g -p 4 --fp8=yes --fp8-tflops=624 --fp8-gemm-efficiency=0.6
expect_cmp step_time ">" 0

# The JSON report's model holds the resolved settings of the run as the config keys name them:
# fp8 and its figures, latent attention, the MTP layers, offload and the host link.
ppsim --model=deepseek-v3 --gpu=h800 -p 4 -m 8 --ep=8 --gpus=32 --fp8=yes --offload=0.25 \
	-f json >"$TMP/resolved.json"
for kv in model.fp8=true model.fp8_tflops=1979 model.head_dim=192 model.v_head_dim=128 \
	model.q_lora_rank=1536 model.kv_lora_rank=512 model.rope_dim=64 model.mtp_layers=1 \
	model.offload=0.25 model.host_bandwidth=32; do
	got=$("$JGET" "$TMP/resolved.json" "${kv%%=*}")
	[ "$got" = "${kv#*=}" ] && ok || not_ok "JSON ${kv%%=*}: $got, expected ${kv#*=}"
done
[ "$(ppsim --model=llama3-8b -p 2 -m 4 -f json | "$JGET" - model.fp8)" = false ] && ok ||
	not_ok "JSON model.fp8 of a bf16 run"

# DeepSpeed's BF16_Optimizer adds each micro-batch's bf16 gradients into fp32 ones after its
# backward (update_hp_grads): --grad-accum-bytes (deepspeed's default 18) prices that pass on each
# stage's weight-gradient op, a memory-bound kernel over the stage's parameters (its 16 layers and
# the embedding, or the head: Llama 3 8B at p = 2), by hand from the report's own figures.
ppsim --model=llama3-8b -p 2 -f json >"$TMP/accum0.json"
ppsim --model=llama3-8b -p 2 --grad-accum-bytes=10 -f json >"$TMP/accum10.json"
ppsim --model=llama3-8b -p 2 --framework=deepspeed --comm=overlap -f json >"$TMP/accum-ds.json"
if python3 - "$TMP/accum0.json" "$TMP/accum10.json" "$TMP/accum-ds.json" <<'PY'
import json, sys
none, ten, ds = (json.load(open(f)) for f in sys.argv[1:4])
m = ten["model"]
params = 16 * m["layer_params"] + m["vocab"] * m["hidden"]
want = params * 10 / (m["memory_bandwidth"] * 1e9 * m["memory_efficiency"]) * 1e3 + \
    m["kernel_overhead"] / 1e3
for a, b in zip(ten["model"]["stages"], none["model"]["stages"]):
    if abs(a["t_w"] - b["t_w"] - want) > 2e-6 or a["t_f"] != b["t_f"] or a["t_b"] != b["t_b"]:
        sys.exit(1)
# the framework's default is the same pass
sys.exit(ds["model"]["grad_accum_bytes"] != 18)
PY
then ok; else not_ok "--grad-accum-bytes: the weight-gradient op's pass is not the stage's parameters x 10 bytes at the memory rate"; fi
# ... and none under the uniform model (FLOPs alone), nor on a stage without layers
if [ "$(ppsim --model=llama3-8b -p 2 --efficiency=0.5 --grad-accum-bytes=18 -f json | md5sum)" = \
	"$(ppsim --model=llama3-8b -p 2 --efficiency=0.5 -f json | sed 's/"grad_accum_bytes":	0,/"grad_accum_bytes":	18,/' | md5sum)" ]; then
	ok
else
	not_ok "--grad-accum-bytes under the uniform model changed the run"
fi

# --optimizer-bytes=0: the step has no optimizer step, not even a kernel's launch
run_json --model=llama3-8b -p 2 -m 4 --optimizer-bytes=0
RUN="no optimizer bytes"
expect step_breakdown.optimizer 0 0

# compare marks and ranks among the rows that fit GPU memory first, as sweep and advise do: of
# Llama-3 8B's 1f1b (fits), zbv and dualpipe (over 80 GB), 1f1b is best and first
ppsim compare configs/llama3-8b-h100.json --schedules=1f1b,zbv,dualpipe --rank-by=step -f csv >"$TMP/cmp.csv"
if awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["schedule"] == "1f1b" && $c["rank"] != 1 { exit 1 }
	$c["schedule"] == "dualpipe" && $c["rank"] != 2 { exit 1 }' "$TMP/cmp.csv"; then ok; else
	not_ok "compare ranks rows over memory first: $(cat "$TMP/cmp.csv")"
fi
ppsim compare configs/llama3-8b-h100.json --schedules=1f1b,zbv,dualpipe >"$TMP/cmp.txt"
if grep -E '^llama3-8b-h100 +1f1b .*1\.0000\*' "$TMP/cmp.txt" >/dev/null &&
	! grep -E '^llama3-8b-h100 +dualpipe .*\*' "$TMP/cmp.txt" >/dev/null; then ok; else
	not_ok "compare marks a row over memory best: $(cat "$TMP/cmp.txt")"
fi

# with a model, speedup is tokens/s over the first row's: a row of twice the micro-batches takes
# longer a step and is faster, not slower
printf '{"model": "llama3-8b", "gpu": "h100-sxm", "p": 4, "m": 8}\n' >"$TMP/m8.json"
printf '{"model": "llama3-8b", "gpu": "h100-sxm", "p": 4, "m": 16}\n' >"$TMP/m16.json"
s=$(ppsim compare "$TMP/m8.json" "$TMP/m16.json" -f csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	NR == 3 { print $c["speedup"] }')
awk -v s="$s" 'BEGIN { exit !(s > 1) }' && ok || not_ok "compare: the row of m = 16 has speedup $s"

# with full recomputation and a split backward, W keeps its share of the activations B rebuilt:
# zbh2's device 3 holds 12.13 GB of them (4.74 when W's share was taken of the saved input)
run_json --model=llama3-8b -s zbh2 -p 4 -m 8 --recompute=full
RUN="full recomputation, split backward"
expect_cmp devices.3.activation_bytes '>' 12000000000
