#!/bin/sh
# Does PCIe make interleaving a loss for Llama-3 70B? Tokens per second of 1F1B and of
# interleaved 1F1B with v=2, p=4, m=16 on A100s, over NVLink 3 and PCIe 4, with a copy engine
# (overlap) and with blocking sends. A 10-layer chunk's forward takes about 153 ms and a 32 MiB
# message about 4.6 ms even over PCIe, so interleaving wins by 7-8% on either link.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

printf '%-8s %-9s %10s %12s %8s\n' link comm 1f1b interleaved speedup
for link in nvlink3 pcie4; do
	for comm in overlap blocking; do
		"$ppsim" compare --schedules=1f1b,interleaved --model=llama3-70b -p 4 -m 16 -v 2 \
			--link="$link" --comm="$comm" --format=csv |
			awk -F, -v link="$link" -v comm="$comm" '
				NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
				{ tps[NR - 1] = $col["tokens_per_s"]; up = $col["speedup"] }
				END { printf "%-8s %-9s %10.2f %12.2f %8.4f\n", link, comm, tps[1], tps[2], up }'
	done
done
