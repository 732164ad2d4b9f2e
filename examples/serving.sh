#!/bin/sh
# Serving Llama-3 8B on four H100s (one pipeline stage each) from the bursty trace
# examples/serve/bursty.jsonl: 200 requests in bursts of 16, 8 requests per second on average,
# prompts lognormal around 665 tokens, 32 to 256 output tokens (docs/serve.md has the command
# that generated it). Static batching makes a burst wait for the batch ahead to finish;
# continuous batching admits prompts at once but stalls decodes behind them; chunked prefill
# mixes both under a 512-token budget and has the lowest p99 TTFT and bubble. Then the same
# trace with prefill and decode on two GPUs each (disaggregated): steadier TPOT, slower TTFT.
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
# the files it reads are the repository's: it runs from the repository's top
case $ppsim in /*) ;; */*) ppsim=$PWD/$ppsim ;; esac
cd "$(dirname "$0")/.."

"$ppsim" compare examples/serve/static.json examples/serve/continuous.json \
	examples/serve/chunked.json
echo
"$ppsim" compare examples/serve/chunked.json examples/serve/disaggregated.json
