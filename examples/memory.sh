#!/bin/sh
# The document's memory argument: GPipe keeps all m micro-batches' activations alive, 1F1B at
# most p - d on device d, for the same bubble. p=4, m=16: GPipe peaks at 16, 1F1B at 4, 3, 2, 1.
set -eu
# ppsim: $PPSIM, else the one built beside this script (make), else the one installed
ppsim=${PPSIM:-$(dirname "$0")/../build/ppsim}
if ! "$ppsim" --version >/dev/null 2>&1; then
	[ -n "${PPSIM:-}" ] || ppsim=ppsim
	"$ppsim" --version >/dev/null 2>&1 || {
		echo "$0: cannot run '$ppsim'${PPSIM:+ (PPSIM)}: build ppsim with make, or name it with PPSIM" >&2
		exit 1
	}
fi

for s in gpipe 1f1b; do
	echo "== $s, p=4, m=16"
	"$ppsim" --schedule="$s" -p 4 -m 16 | sed -n '/^bubble_ratio /p; /^device/,/^$/p'
done
