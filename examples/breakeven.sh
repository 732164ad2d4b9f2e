#!/bin/sh
# Where interleaving stops paying. First the source document's case, whose table was lost:
# Llama-3 70B on four A100s, p=4, m=16, v in {1,2,4}, over NVLink 3 and PCIe 4, with a copy
# engine (overlap) and with blocking sends, beside the document's inequality
#   t_comm x v(p-1) x m > (bubble_1f1b - bubble_v) x T_1f1b   (interleaving loses).
# A 70B layer takes far longer than a 32 MiB message even on PCIe, so interleaving pays
# everywhere. Then a pipeline with 1 ms per forward sending the same message: on PCIe the
# message outweighs the saved bubble and interleaving stops paying.
set -eu
# ppsim, and the repository's top, whose files it reads (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"
from_top

"$ppsim" breakeven -c configs/llama3-70b-a100-nvlink.json --link=nvlink3,pcie4 -v 1,2,4
echo
"$ppsim" breakeven -p 4 -m 8 --msg-bytes=33554432 --link=nvlink3,pcie4 -v 1,2,4
