#!/bin/sh
# The source document's first diagram, one micro-batch through four stages (75% idle), then
# the same pipeline fed with 8 micro-batches by GPipe and by 1F1B.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

"$ppsim" -s gpipe -p 4 -m 1 --timeline=80 | sed -n '/^gpipe /,$p'
echo
"$ppsim" -s gpipe -p 4 -m 8 --timeline=100 | sed -n '/^gpipe /,$p'
echo
"$ppsim" -s 1f1b -p 4 -m 8 --timeline=100 | sed -n '/^1f1b /,$p'
