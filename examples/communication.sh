#!/bin/sh
# What point-to-point transfers cost. First a fixed 0.1 per message: with a copy engine
# (overlap) 1F1B p=4 m=8 grows from 33 to 34.6; when the sender waits for its send (blocking),
# to 34.9. Then the document's 32 MiB activation message (Llama-3 70B: 2048 x 8192 x 2 bytes)
# over NVLink 3 (300 GB/s per direction) and PCIe 4.0 x16 (~32 GB/s), with 1 ms per forward.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

for comm in overlap blocking; do
	printf '%-9s ' "$comm"
	"$ppsim" -s 1f1b -p 4 -m 8 --tcomm 0.1 --comm="$comm" | grep '^makespan'
done
for link in "nvlink3 300 3" "pcie4 32 10"; do
	set -- $link
	for comm in overlap blocking; do
		echo "== $1 ($2 GB/s, $3 us), $comm"
		"$ppsim" -s 1f1b -p 4 -m 8 --msg-bytes 33554432 --bandwidth "$2" --latency "$3" \
			--comm="$comm" | grep -E '^(makespan|bubble_ratio|p2p) '
	done
done
