#!/bin/sh
# Serving Llama-3 8B on four H100s (one pipeline stage each) from the bursty trace
# examples/serve/bursty.jsonl: 200 requests in bursts of 16, 8 requests per second on average,
# prompts lognormal around 665 tokens, 32 to 256 output tokens (docs/serve.md has the command
# that generated it). Static batching makes a burst wait for the batch ahead to finish;
# continuous batching admits prompts at once but stalls decodes behind them; chunked prefill
# mixes both under a 512-token budget and has the lowest p99 TTFT and bubble. Then the same
# trace with prefill and decode on two GPUs each (disaggregated): steadier TPOT, slower TTFT.
set -eu
# ppsim, and the repository's top, whose files it reads (lib/ppsim.sh)
. "$(dirname "$0")/lib/ppsim.sh"
from_top

"$ppsim" compare examples/serve/static.json examples/serve/continuous.json \
	examples/serve/chunked.json
echo
"$ppsim" compare examples/serve/chunked.json examples/serve/disaggregated.json
