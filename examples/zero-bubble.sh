#!/bin/sh
# Zero-bubble scheduling (Qi et al. 2024): split the backward into B (input gradient, drawn I
# in the timeline) and W (weight gradient) and let W fill the bubble. p=4, m=8 with t_f=2,
# t_b=2, t_w=1: 1F1B takes 55, ZB-H1 49 = 8*5 + 3*(2+2-1) at 1F1B's memory, ZB-H2 46 =
# 8*5 + 3*(2+2-2) with up to 2p-1 micro-batches alive.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

for s in 1f1b zbh1 zbh2; do
	echo "== $s"
	"$ppsim" -s "$s" -p 4 -m 8 --tf 2 --tb 2 --tw 1 |
		sed -n '/^makespan/p; /^bubble_ratio /p; /^bubble_rate_span/p; /^device/,/^$/p'
done
"$ppsim" -s zbh1 -p 4 -m 8 --tf 2 --tb 2 --tw 1 --timeline=100 | sed -n '/^zbh1 /,$p'
