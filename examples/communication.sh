#!/bin/sh
# What point-to-point transfers cost. First a fixed 0.1 per message: with a copy engine
# (overlap) 1F1B p=4 m=8 grows from 33 to 34.6; when the sender waits for its send (blocking),
# to 34.9. Then the document's 32 MiB activation message (Llama-3 70B: 2048 x 8192 x 2 bytes)
# over NVLink 3 (300 GB/s per direction) and PCIe 4.0 x16 (~32 GB/s), with 1 ms per forward.
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
