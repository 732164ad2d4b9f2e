#!/bin/sh
# Whether Llama-3 70B fits in four pipeline stages at m=16 is a question of tensor parallelism
# before it is one of schedule: the largest device memory (weights, gradients, Adam state and
# activations, in GB of 10^9 bytes) for GPipe, 1F1B and ZB-H1 at tp = 1, 2, 4, 8 on A100-80G.
# At tp = 1 the model state alone is 274 to 291 GB a device; only tp = 8 fits, for all three.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

printf '%-3s %5s %10s %10s %10s  %s\n' tp gpus gpipe 1f1b zbh1 "fits in 80 GB"
for tp in 1 2 4 8; do
	"$ppsim" compare --schedules=gpipe,1f1b,zbh1 --model=llama3-70b -p 4 -m 16 --tp="$tp" \
		--format=csv |
		awk -F, -v tp="$tp" '
			NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			{
				gb[NR - 1] = sprintf("%.1f GB", $col["memory_bytes"] / 1e9)
				if ($col["fits"] == "yes") { fits = fits sep $col["schedule"]; sep = ", " }
			}
			END {
				printf "%-3s %5d %10s %10s %10s  %s\n", tp, 4 * tp, gb[1], gb[2], gb[3],
				       fits == "" ? "none" : fits
			}'
done
