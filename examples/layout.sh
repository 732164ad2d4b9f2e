#!/bin/sh
# Layouts: 61 layers (DeepSeek-V3's count, here of a dense Llama-3 8B shape) do not divide over 16
# virtual stages; ppsim spreads them, and
# its report writes the split as Megatron-LM's layout string and torchtitan's settings. The same
# run from a Megatron-LM layout string (five layers with the embedding on the first stage, the
# LM head alone on the last) gives the Megatron flags and the string back.
set -eu
# ppsim: $PPSIM, the one built beside the examples, or the installed one (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"

"$ppsim" run --model=llama3-8b --layers=61 -s interleaved -p 8 -v 2 | grep -A2 '^layers per stage'
"$ppsim" run --model=llama3-8b --layers=61 -s interleaved -p 8 -v 2 \
	--layout='Et*5|(t*4|)*14,L' | grep -E -A2 '^(layers per stage|makespan)'
