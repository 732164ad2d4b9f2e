#!/bin/sh
# The source document's table of theoretical bubble against GPU utilization, whose contents
# were lost: Llama-3 70B on A100 80GB with 1F1B, p in {2,4,8}, m from 4 to 64, over NVLink 3
# and over PCIe 4. theory is (p-1)/(m+p-1); utilization is simulated, so it also pays for the
# transfers and for the last stage's LM head, and the gap is 1 - theory - utilization in
# percentage points. (Memory is not checked here: at tp=1 these runs do not fit an A100.)
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

"$ppsim" sweep --model=llama3-70b --gpu=a100-80g --link=nvlink3,pcie4 -s 1f1b -p 2,4,8 \
	-m 4:64:x2 --format=csv |
	awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
			printf "%-8s %2s %3s %8s %10s %12s %8s\n", "link", "p", "m", "theory",
				"1-theory", "utilization", "gap_pp"
			next }
		{ p = $col["p"]; m = $col["m"]; theory = (p - 1) / (m + p - 1)
			u = $col["utilization"]
			printf "%-8s %2d %3d %8.4f %10.4f %12.4f %8.2f\n", $col["link"], p, m, theory,
				1 - theory, u, 100 * (1 - theory - u) }'
