#!/bin/sh
# The V schedules at p=8. First PyTorch's fixed ZB-V order (zbv) against the zero-bubble
# authors' greedy (zbv-auto): makespans for m from 2 to 24, with equal times, with
# t_f=t_b=2, t_w=1 and with messages of 0.1. Then at m=24 the memory they all trade for time:
# V-Half and V-Min peak at 5 and 4 micro-batches against 1F1B's 8 (p/2 + 1 and about p/3 + 1,
# so nearer 1/2 and 1/3 of 1F1B's p as p grows) for an idle time of about 1/2 and 2/3 of 1F1B's (idle: makespan minus a device's work,
# vs_1f1b: that over 1F1B's idle time) when F, B and W take the same time.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

# field NAME of the CSV rows of a compare
column() {
	awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ print $col[name] }'
}
printf '%4s %10s %10s %10s %10s %10s %10s\n' m zbv zbv-auto "zbv 2,2,1" "auto 2,2,1" \
	"zbv comm" "auto comm"
for m in 2 4 6 8 12 16 24; do
	printf '%4s' "$m"
	for opts in "" "--tf 2 --tb 2 --tw 1" "--tcomm 0.1"; do
		# shellcheck disable=SC2086
		"$ppsim" compare --schedules=zbv,zbv-auto -p 8 -m "$m" $opts --format=csv |
			column makespan | awk '{ printf " %10s", $1 }'
	done
	echo
done
echo
for opts in "" "--tf 2 --tb 2 --tw 1"; do
	echo "p=8 m=24 ${opts:-t_f=t_b=t_w=1}"
	printf '%-10s %9s %7s %8s %5s\n' schedule makespan idle vs_1f1b peak
	# shellcheck disable=SC2086
	"$ppsim" compare --schedules=1f1b,zb1p,zbv,zbv-auto,vhalf,vmin -p 8 -m 24 $opts \
		--format=csv | awk -F, -v work="$(echo "$opts" | awk '{ print $0 == "" ? 72 : 120 }')" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ idle = $col["makespan"] - work; if (NR == 2) base = idle
		  printf "%-10s %9s %7s %8.3f %5s\n", $col["schedule"], $col["makespan"], idle,
			idle / base, $col["peak_activations"] }'
done
