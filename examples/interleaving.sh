#!/bin/sh
# The document's interleaving argument. p=4, m=8: 1F1B idles 3/11 of the time; giving each GPU
# v=2 chunks cuts that to 3/19 (and v=4 to 3/35), at the price of more point-to-point messages:
# 2m(pv-1) per step, the wrap from the last GPU back to the first included. The document counts
# v(p-1) per micro-batch and direction: for p=4, m=16, v=4 that is 192, the simulator finds 240.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

printf '%-26s ' "1f1b p=4 m=8"
"$ppsim" -s 1f1b -p 4 -m 8 | grep '^bubble_ratio '
for v in 2 4; do
	printf '%-26s ' "interleaved p=4 m=8 v=$v"
	"$ppsim" -s interleaved -p 4 -m 8 -v "$v" | grep '^bubble_ratio '
done
echo "== messages per step, p=4, m=16"
for v in 1 2 4; do
	s=interleaved
	[ "$v" = 1 ] && s=1f1b
	printf 'v=%s  ' "$v"
	"$ppsim" -s "$s" -p 4 -m 16 -v "$v" --msg-bytes 33554432 | grep '^p2p '
done
