#!/bin/sh
# The document's memory argument: GPipe keeps all m micro-batches' activations alive, 1F1B at
# most p - d on device d, for the same bubble. p=4, m=16: GPipe peaks at 16, 1F1B at 4, 3, 2, 1.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

for s in gpipe 1f1b; do
	echo "== $s, p=4, m=16"
	"$ppsim" --schedule="$s" -p 4 -m 16 | sed -n '/^bubble_ratio /p; /^device/,/^$/p'
done
