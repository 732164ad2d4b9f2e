#!/bin/sh
# Every schedule at p=4, m=8: F, B and W of 1 each, no message time (interleaved, interleaved-zb,
# interleaved-combined, the V schedules and dualpipe with v=2, the others with v=1), then the
# makespan with t_f=2, t_b=2, t_w=1, with messages of 0.1, and with those times on a last
# device half as slow again.
# span is bubble_rate_span, the paper's measure; peaks are per device, in micro-batches.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

# makespan of every schedule under the extra options, in `ppsim list`'s order
makespans() {
	"$ppsim" compare --schedules=all -p 4 -m 8 "$@" --format=csv |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			{ print $col["makespan"] }'
}
makespans --tf 2 --tb 2 --tw 1 >"${TMPDIR:-/tmp}/side.$$.1"
makespans --tcomm 0.1 >"${TMPDIR:-/tmp}/side.$$.2"
makespans --tf 2 --tb 2 --tw 1 --stage-scale 1,1,1,1.5 >"${TMPDIR:-/tmp}/side.$$.3"
trap 'rm -f "${TMPDIR:-/tmp}"/side.$$.*' EXIT

printf '%-20s %2s %9s %9s %9s %-19s %4s %8s %8s %8s\n' schedule v makespan bubble span \
	peaks msgs "2,2,1" "comm 0.1" "slow last"
n=0
for s in $("$ppsim" compare --schedules=all -p 4 -m 8 --format=csv | awk -F, 'NR > 1 { print $2 }'); do
	n=$((n + 1))
	"$ppsim" -s "$s" -p 4 -m 8 | awk -v s="$s" -v a="$(sed -n "${n}p" "${TMPDIR:-/tmp}/side.$$.1")" \
		-v b="$(sed -n "${n}p" "${TMPDIR:-/tmp}/side.$$.2")" \
		-v c="$(sed -n "${n}p" "${TMPDIR:-/tmp}/side.$$.3")" '
		/^schedule / { sub(/.*v=/, ""); sub(/,.*/, ""); v = $0 }
		/^makespan / { t = $2 }
		/^bubble_ratio / { r = $2 }
		/^bubble_rate_span / { span = $2 }
		/^p2p / { msgs = $2 }
		/^device / { dev = 1; next }
		dev && NF == 0 { dev = 0 }
		dev { peaks = peaks (peaks == "" ? "" : ",") $5 }
		END { printf "%-20s %2s %9s %9s %9s %-19s %4s %8s %8s %8s\n", s, v, t, r, span, peaks,
			msgs, a, b, c }'
done
