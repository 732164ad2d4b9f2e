#!/bin/sh
# Calibrating from measured op times: the zero-bubble paper's profile of its 1.5B model on 8
# A100s (Qi et al. 2024, Table 9) becomes a config, and the schedules compared on it give the
# paper's bubble rates (Table 5): 1F1B 0.2431 and ZB-H1 0.1585 over the makespan, ZB-2p its
# shortest-makespan order.
set -eu
# ppsim, and the repository's top, whose files it reads (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"
from_top
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$ppsim" calibrate -m 24 -o "$dir/calibrated.json" docs/examples/measured-zb-1.5b.csv
cat "$dir/calibrated.json"
"$ppsim" compare --schedules=1f1b,zbh1,zb2p "$dir/calibrated.json" | sed "s|$dir/||"
