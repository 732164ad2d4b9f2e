#!/bin/sh
# Communication beside compute: Llama-3 70B on 64 H100s as NeMo runs it (--framework=nemo:
# pipelined tensor-parallel overlap, gradients reduced during the last backward, parameters
# gathered during the first forwards, a distributed optimizer), tp=4, cp=2 (ring), four
# pipeline devices with five interleaved chunks each, dp=2, sequence 8192, global batch 128.
# The step taken apart on the device that ends last, in ms (docs/cost-model.md, Streams), then
# the same without NeMo's overlaps.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

run() {
	"$ppsim" --model=llama3-70b --gpu=h100-sxm -s interleaved -p 4 -v 5 --tp=4 --cp=2 \
		--gpus=64 --seq=8192 --global-batch=128 --framework=nemo "$@" -f json |
		sed -n '/"step_breakdown"/,/}/p; /^	"step_time"/p; /^	"mfu"/p' |
		tr -d '\t",{}' | awk -F: 'NF != 2 || $1 == "step_breakdown" { next }
			$1 == "device" { printf "  %-12s %10d\n", $1, $2; next }
			$1 == "mfu" { printf "  %-12s %10.3f\n", $1, $2; next }
			{ printf "  %-12s %10.1f\n", $1, $2 }'
}
echo "== nemo"
run
echo "== nemo, no overlap (--tp-overlap=none --overlap-grad-reduce=no --overlap-param-gather=no)"
run --tp-overlap=none --overlap-grad-reduce=no --overlap-param-gather=no
