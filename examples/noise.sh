#!/bin/sh
# A noisy cluster: op times that vary from op to op (10% lognormal jitter) and one slow GPU
# (device 3 running 20% slow), eight devices, sixteen micro-batches. First the deterministic
# step of 1F1B, interleaved 1F1B and ZB-H1 without and with the straggler; then 500 noise
# samples of each, ranked by their p99 step; then one schedule's samples, written to a CSV and
# summed up again with awk.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"
shape="-p 8 -m 16 --tcomm 0.1"

for s in 1f1b "interleaved -v 2" zbh1; do
	# shellcheck disable=SC2086 # $s and $shape are meant to split
	plain=$("$ppsim" -s $s $shape -f csv | awk -F, 'NR == 2 { print $6 }')
	# shellcheck disable=SC2086
	slow=$("$ppsim" -s $s $shape --straggler=3:1.2 -f csv | awk -F, 'NR == 2 { print $6 }')
	echo "${s% -v 2}: step $plain, with device 3 at 1.2x $slow"
done
echo
# shellcheck disable=SC2086
"$ppsim" compare --schedules=1f1b,interleaved,zbh1 -v 2 $shape --samples=500 \
	--jitter=lognormal:0.1 --straggler=3:1.2 --rank-by=p99 -f csv |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ printf "%-12s step %s  mean %.2f  p99 %.2f  rank %s\n", $2,
			$col["makespan"], $col["step_mean"], $col["step_p99"], $col["rank"] }'
echo
out=${TMPDIR:-/tmp}/noise.$$.csv
# shellcheck disable=SC2086
"$ppsim" -s zbh1 $shape --samples=500 --jitter=lognormal:0.1 --straggler=3:1.2 \
	--samples-out="$out" -f csv >/dev/null
awk -F, 'NR > 1 { n++; s += $2; if ($2 > 67) late++ }
	END { printf "zbh1: %d samples, mean step %.2f, %d of them past 67\n", n, s / n, late }' "$out"
rm -f "$out"
