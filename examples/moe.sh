#!/bin/sh
# A mixture of experts and the schedules that hide its all-to-all: Qwen3-30B-A3B (128 experts,
# 8 a token, 48 layers) on 64 H100s, expert parallelism 8 inside a node, eight pipeline
# devices, dp = 8, 32 micro-batches of one 4096-token sequence. For 1F1B, Megatron-Core's
# combined 1F1B (interleaved-combined, two chunks) and DeepSeek's DualPipeV and DualPipe, the
# step in ms, the expert all-to-alls' time on the critical device's stream and the part of it
# exposed (docs/cost-model.md, Overlapped pairs); then DualPipe with the expert group spread
# over eight nodes, with NCCL's all-to-all and with DeepEP's.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

run() {
	"$ppsim" --model=qwen3-30b-a3b --gpu=h100-sxm -p 8 --gpus=64 --seq=4096 \
		--global-batch=256 --ep=8 "$@" -f json >"${TMPDIR:-/tmp}/moe.$$.json"
	sed -n 's/^	"step_time":	\(.*\),/step \1/p' "${TMPDIR:-/tmp}/moe.$$.json"
	tr -d '\t",' <"${TMPDIR:-/tmp}/moe.$$.json" | awk -F: -v dev=-1 '
		$1 == "step_breakdown" { sb = 1 } sb && $1 == "device" { dev = $2 }
		sb && $1 == "exposed_ep" { shown = $2 } sb && $1 == "hidden_ep" { hid = $2 }
		END { printf "  all-to-all %.1f ms on device %d: %.1f exposed, %.1f hidden\n",
			shown + hid, dev, shown, hid }'
	rm -f "${TMPDIR:-/tmp}/moe.$$.json"
}
for s in "-s 1f1b" "-s interleaved-combined -v 2" "-s dualpipev" "-s dualpipe"; do
	echo "== $s"
	# shellcheck disable=SC2086 # $s is meant to split
	run $s
done
echo "== -s dualpipe, one GPU of the expert group a node (--gpus-per-node=1)"
run -s dualpipe --gpus-per-node=1
echo "== the same with DeepEP (--ep-dispatch=deepep)"
run -s dualpipe --gpus-per-node=1 --ep-dispatch=deepep
