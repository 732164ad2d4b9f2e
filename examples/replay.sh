#!/bin/sh
# Replaying a measured step: a run whose device 2 is a straggler (its ops take 1.3 times as
# long) writes its trace with PyTorch's range names (PP:2F3), as the profiler of a real run
# would; ppsim replay reads it back and simulates it again (the same step, op for op), then asks
# what the step would have taken without that device's slowness, and with 16 micro-batches on
# costs fitted to the measured op times.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$ppsim" -s 1f1b -p 4 -m 8 --tf 1 --tb 1.2 --tw 0.8 --tcomm 0.05 --stage-scale 1,1,1.3,1 \
	--trace-names=torch --trace="$dir/step.json" --dump-ops="$dir/run.csv" --timeline=0 |
	grep makespan
"$ppsim" replay "$dir/step.json" --dump-ops="$dir/replay.csv" --timeline=0 | sed -n '/^replay of/,$p' |
	sed "s|$dir/||"
cmp "$dir/run.csv" "$dir/replay.csv" && echo "every op of the replay at the run's times"
"$ppsim" replay "$dir/step.json" --without-slowest --timeline=0 | sed -n '/^what-if/,$p'
"$ppsim" replay "$dir/step.json" -m 16 --timeline=0 | sed -n '/^what-if/,$p'
