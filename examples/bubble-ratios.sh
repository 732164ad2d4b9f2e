#!/bin/sh
# The source document's bubble ratios, simulated beside the closed form (p-1)/(m+p-1):
# p=4, m=1: 75%; p=8, m=1: 87.5%; p=4, m=4: 3/7; p=4, m=8: 3/11; p=4, m=16: 3/19.
# Run from the repository root after `make` (or set PPSIM to the ppsim binary).
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

for s in gpipe 1f1b; do
	for pm in "4 1" "8 1" "4 4" "4 8" "4 16"; do
		set -- $pm
		printf '%-5s p=%s m=%-2s  ' "$s" "$1" "$2"
		"$ppsim" --schedule="$s" -p "$1" -m "$2" | grep '^bubble_ratio '
	done
done
