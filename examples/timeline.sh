#!/bin/sh
# The source document's first diagram, one micro-batch through four stages (75% idle), then
# the same pipeline fed with 8 micro-batches by GPipe and by 1F1B.
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

"$ppsim" -s gpipe -p 4 -m 1 --timeline=80 | sed -n '/^gpipe /,$p'
echo
"$ppsim" -s gpipe -p 4 -m 8 --timeline=100 | sed -n '/^gpipe /,$p'
echo
"$ppsim" -s 1f1b -p 4 -m 8 --timeline=100 | sed -n '/^1f1b /,$p'
