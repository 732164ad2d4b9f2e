# Mixtures of experts (issue 37): every expert preset runs; the expert options' bad values are
# refused with one line and exit 2 before any file is written; expert parallelism puts the
# all-to-alls on their own stream, exposed, and more of them across nodes; the imbalance
# stretches them; a dense model keeps "moe": null.

M="--model=qwen3-30b-a3b --layers=4 -p 2 -m 4 --gpu=h100-sxm"

# refused: nothing on stdout, one line, exit 2, and the op dump asked for is not written
# shellcheck disable=SC2086 # $M is meant to split on spaces
while IFS='|' read -r args text; do
	rm -f "$TMP/moe-ops.csv"
	fails 2 "$text" $M $args --dump-ops="$TMP/moe-ops.csv"
	if [ -e "$TMP/moe-ops.csv" ]; then not_ok "ppsim $args wrote --dump-ops"; else ok; fi
done <<'CASES'
--ep=0|--ep '0': must be an integer from 1
--ep=3 --dp=3|--ep '3': must divide the 128 experts
--ep=4 --dp=2|--ep '4': must divide the tp x cp x dp = 2 GPUs of a pipeline rank
--top-k=129|--top-k '129': must be at most the 128 experts
--top-k=0|--top-k '0': must be an integer from 1
--experts=-1|--experts '-1': must be an integer from 0
--dense-layers=5|--dense-layers '5': must be at most the 4 layers
--expert-imbalance=0.9|--expert-imbalance '0.9': must be a number from 1 to 1e9
--expert-imbalance=0|--expert-imbalance '0': must be a number from 1 to 1e9
--experts=0 --top-k=2|--top-k '2': needs a mixture of experts: --experts 0 makes the model qwen3-30b-a3b dense
CASES
fails 2 "--top-k '2': needs a mixture of experts: the model llama3-8b is dense" \
	--model=llama3-8b --top-k=2
fails 2 "--model 'mixtral-8x7b': is a mixture of experts, which ppsim serve does not price" \
	serve --model=mixtral-8x7b

# every expert preset prices a step (tp x ep inside a node, dp over the rest)
for model in deepseek-v3 mixtral-8x7b mixtral-8x22b qwen3-30b-a3b qwen3-235b-a22b; do
	run_json --model=$model --gpu=h100-sxm -p 4 -m 8 --tp=2 --ep=4 --gpus=64 \
		--recompute=full --layers-per-stage="$(case $model in
			mixtral-8x7b) echo 8,8,8,8 ;; mixtral-8x22b) echo 14,14,14,14 ;;
			qwen3-30b-a3b) echo 12,12,12,12 ;; deepseek-v3) echo 16,15,15,15 ;;
			*) echo 24,24,23,23 ;; esac)"
	expect model.moe.ep 4
	expect_cmp step_breakdown.exposed_ep '>' 0
	expect_cmp model.moe.all_to_all '>' 0
done

# a dense model: no expert figures, no expert stream time
run_json --model=llama3-8b -p 2 -m 4 --dp=2
expect model.moe null
expect step_breakdown.exposed_ep 0
expect devices.0.comm_ep 0

# without expert parallelism nothing is sent; with it, two all-to-alls an op of each of a
# stage's expert layers, forward and backward, all exposed (nothing hides them in 1F1B)
# shellcheck disable=SC2086
run_json $M --dp=2 --ep=1
expect step_breakdown.exposed_ep 0
# shellcheck disable=SC2086
run_json $M --dp=2 --ep=2
a2a=$("$JGET" "$TMP/out.json" model.moe.all_to_all)
# 2 layers x 2 all-to-alls x (F and B) x 4 micro-batches on each device
all=$(awk -v a="$a2a" 'BEGIN { printf "%.9f", 32 * a }')
expect devices.0.comm_ep "$all" 1e-5
expect devices.0.exposed_ep "$all" 1e-5

# across nodes (one GPU a node) the all-to-all leaves through each GPU's own port: slower
# shellcheck disable=SC2086
run_json $M --dp=4 --ep=4
inside=$("$JGET" "$TMP/out.json" model.moe.all_to_all)
# shellcheck disable=SC2086
run_json $M --dp=4 --ep=4 --gpus-per-node=1
expect_cmp model.moe.all_to_all '>' "$inside"

# shared experts are a tensor-parallel MLP: with tp 2 an expert layer's op runs their two TP
# collectives beside its attention's two (DeepSeek-V3's device 1 holds expert layers alone)
DS="--model=deepseek-v3 --gpu=h800 -p 8 -m 16 --ep=16 --dp=16 --tp=2"
# shellcheck disable=SC2086
run_json $DS --shared-experts=0
tp_alone=$("$JGET" "$TMP/out.json" devices.1.comm_tp)
# shellcheck disable=SC2086
run_json $DS
expect devices.1.comm_tp "$(awk -v t="$tp_alone" 'BEGIN { printf "%.9f", 2 * t }')" 1e-5

# the imbalance doubles the bytes the busiest GPU receives: its all-to-all's transfer part
# shellcheck disable=SC2086
run_json $M --dp=2 --ep=2 --expert-imbalance=2
expect model.moe.all_to_all "$(awk -v a="$a2a" 'BEGIN { printf "%.12f", 2 * a - 0.003 }')" 1e-9

# the imbalance is at most what ep GPUs allow, ep x min(top-k, experts / ep) / top-k: 1 at
# ep = 1 (one GPU holds every expert; 1.5 made Mixtral's step 40% longer), 4 for Mixtral at ep 8
for case in "1 1.5 1" "8 100 4" "8 3 3"; do
	set -- $case
	run_json --model=mixtral-8x7b --gpu=h100-sxm -p 4 -m 8 --dp=8 --ep=$1 --expert-imbalance=$2
	expect model.moe.expert_imbalance "$3"
	got=$("$JGET" "$TMP/out.json" makespan)
	run_json --model=mixtral-8x7b --gpu=h100-sxm -p 4 -m 8 --dp=8 --ep=$1 --expert-imbalance=$3
	expect makespan "$got"
done

# the text report names the experts and the expert stream
# shellcheck disable=SC2086
ppsim $M --dp=2 --ep=2 >"$TMP/moe.txt" 2>"$TMP/err"
if grep -q '^experts  *128 routed (8 a token) and 0 shared of ffn 768' "$TMP/moe.txt" &&
	grep -q 'exposed_ep' "$TMP/moe.txt" && grep -q ', ep [0-9.]*, offload [0-9.]*, reload [0-9.]* + optimizer' "$TMP/moe.txt" &&
	[ ! -s "$TMP/err" ]; then
	ok
else
	not_ok "text report of an MoE run: $(head -c 400 "$TMP/moe.txt" "$TMP/err")"
fi

# DeepEP sends a token once to each other node with one of its experts, and once to each GPU
# with one: across nodes and inside a node less than the all-to-all of every copy (Qwen3's top 8
# of 128 over 2 GPUs: about one copy a token crosses, not four)
# shellcheck disable=SC2086
run_json $M --dp=16 --ep=16 --gpus-per-node=8
a2a=$("$JGET" "$TMP/out.json" model.moe.all_to_all)
# shellcheck disable=SC2086
run_json $M --dp=16 --ep=16 --gpus-per-node=8 --ep-dispatch=deepep
expect model.moe.ep_dispatch deepep
expect_cmp model.moe.all_to_all '<' "$a2a"
# shellcheck disable=SC2086
run_json $M --dp=2 --ep=2
a2a=$("$JGET" "$TMP/out.json" model.moe.all_to_all)
# shellcheck disable=SC2086
run_json $M --dp=2 --ep=2 --ep-dispatch=deepep
expect_cmp model.moe.all_to_all '<' "$(awk -v a="$a2a" 'BEGIN { print a / 2 }')"
fails 2 "--ep-dispatch 'nccl': must be 'alltoall' or 'deepep'" $M --ep-dispatch=nccl
fails 2 "--experts '4': needs --top-k and --expert-ffn too: the model llama3-8b has no experts" \
	--model=llama3-8b --experts=4 --top-k=2
fails 2 "--rope-dim '500': leaves a head size of 192, not above its rotary part's 500" --model=deepseek-v3 --rope-dim=500
fails 2 "--expert-imbalance '1e300': must be a number from 1 to 1e9" \
	--model=qwen3-30b-a3b --expert-imbalance=1e300
fails 2 "--dispatch-bytes '9': must be an integer from 1 to 8" $M --dispatch-bytes=9
fails 2 "--ep-node-limit '2': needs a mixture of experts" --model=llama3-8b --ep-node-limit=2

# fits_sweep LABEL SKIPPED SKIPS FITS POINT REASON ARGS...: `ppsim sweep ARGS --format=jsonl`
# succeeds with SKIPS records whose reason matches the grep pattern SKIPPED, FITS points that
# ran and fit, and the record matching the pattern POINT has exactly REASON.
fits_sweep() {
	label=$1 skipped=$2 want_skips=$3 want_fits=$4 point=$5 reason=$6
	shift 6
	if ppsim sweep "$@" --format=jsonl >"$TMP/fits.jsonl" 2>"$TMP/err"; then
		skips=$(grep -c "\"status\":\"skipped\".*$skipped" "$TMP/fits.jsonl")
		fits=$(grep -c '"status":"ok".*"fits":true' "$TMP/fits.jsonl")
		if [ "$skips" -eq "$want_skips" ] && [ "$fits" -eq "$want_fits" ] &&
			grep "$point" "$TMP/fits.jsonl" | grep -qF "\"reason\":\"$reason\""; then
			ok
		else
			not_ok "sweep --fits of $label: $skips points skipped (want $want_skips), $fits fitting (want $want_fits): $(head -c 300 "$TMP/fits.jsonl")"
		fi
	else
		not_ok "sweep --fits of $label failed: $(head -c 300 "$TMP/err")"
	fi
}

# With --fits, a point whose weights, gradients and optimizer state alone are over its GPU is
# skipped before its schedule is generated, and counts nothing toward the sweep's work limit
# (docs/search.md): at --max-ops=10000 (a budget of 40000 ops) this grid of DeepSeek-V3 on 1024
# H800s was refused; now its 14 points whose experts are spread too thin are skipped saying so,
# the two that pass that check run, and with full recomputation 1f1b's fits, where zbh1's W keeps
# its share of the activations B rebuilt until it runs, and is over.
fits_sweep DeepSeek-V3 'for its weights, gradients and optimizer state alone' 14 1 \
	'"p":8,.*"ep":1,' 'out of memory: device 7 needs 1489.4 GB for its weights, gradients and optimizer state alone, the GPU has 80.0 GB with 11.0 GB kept free (--memory-reserve)' \
	--model=deepseek-v3 --gpu=h800 --gpus=1024 --tp=1 -p 8,16 --ep=1,2,4,64 --mbs=1 \
	--global-batch=8192 -s 1f1b,zbh1 --fits --recompute=full --max-ops=10000

# With --fits, a point whose order holds more activations than its GPU has room for is skipped
# before it is simulated, and counts nothing toward the work limit either (its order generated
# and its activations' peak found as the run would find it): at --max-ops=30000 (a budget of
# 120000 ops) this grid of Llama 3 8B was refused, counting the 39 of its 45 points that do not
# fit; now they are skipped with the message their run gave, and the 6 that fit run.
fits_sweep "Llama 3 8B" '"reason":"out of memory: device [0-9]* needs [0-9.]* GB, the GPU' 39 6 \
	'"schedule":"1f1b","p":2,.*"mbs":1,' 'out of memory: device 0 needs 83.6 GB, the GPU has 80.0 GB with 11.0 GB kept free (--memory-reserve)' \
	--model=llama3-8b --gpu=h100-sxm --gpus=8 -p 2,4,8 --mbs=1,2,4,8,16 --seq=4096 \
	--global-batch=1024 -s 1f1b,gpipe,zbh1 --fits --max-ops=30000

# advise for Qwen3-235B-A22B on 256 H100s at Megatron's global batch of 2048 sequences (refused
# by the work limit before: 4,165 of its points fit their state but not their activations,
# about 150 million ops): it recommends a spread of the experts. What is tested is the size of
# the search (6 s here, 50 under a sanitizer): make test's (the sweep above checks the same
# skips under the sanitizers and valgrind).
if [ -n "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ]; then
	elsewhere "advise for Qwen3-235B-A22B on 256 H100s" "the search's size, not its memory, is what it checks"
elif "$PPSIM" advise --model=qwen3-235b-a22b --gpu=h100-sxm --gpus=256 --global-batch=2048 \
	--format=json >"$TMP/qwen-advice.json" 2>"$TMP/err"; then
	ep=$("$JGET" "$TMP/qwen-advice.json" recommended.ep)
	if [ "$ep" -gt 1 ] && [ "$("$JGET" "$TMP/qwen-advice.json" recommended.fits)" = true ]; then
		ok
	else
		not_ok "advise for Qwen3-235B-A22B on 256 GPUs at 2048 sequences: ep $ep"
	fi
else
	not_ok "advise for Qwen3-235B-A22B on 256 H100s at 2048 sequences failed: $(head -c 300 "$TMP/err")"
fi

# advise weighs each ep of a mixture of experts as it weighs each schedule (advise_choices,
# run.sh): Qwen3-30B-A3B on 16 H100s, against the records of its equivalent sweep; the text
# says which ep cross nodes.
Q30="--model=qwen3-30b-a3b --gpu=h100-sxm --gpus=16 --global-batch=64 --seq=4096 --fp8=yes
	--distributed-optimizer=yes"
# shellcheck disable=SC2086
ppsim advise $Q30 --format=json >"$TMP/q30.json"
cmd=$("$JGET" "$TMP/q30.json" sweep)
# shellcheck disable=SC2086 # the command is plain words
ppsim ${cmd#ppsim } --format=jsonl >"$TMP/q30-sweep.jsonl"
advise_choices ep "$TMP/q30.json" "$TMP/q30-sweep.jsonl"
advise_choices schedule "$TMP/q30.json" "$TMP/q30-sweep.jsonl"
# shellcheck disable=SC2086
ppsim advise $Q30 >"$TMP/q30.txt"
if grep -q '^  ep          the best of each other ep: ' "$TMP/q30.txt" &&
	tr '\n' ' ' <"$TMP/q30.txt" | grep -q 'ep=16 [-+][0-9.]*% (across nodes)'; then
	ok
else
	not_ok "advise's text for Qwen3-30B-A3B lacks the ep line, or ep=16 across nodes in it"
fi

# a group no larger than a node can still straddle two: with 6 GPUs a node and tp = 2, pipeline
# rank 1 is GPUs 4 to 7, two in each node, and its all-to-all is priced between nodes; the
# text says so (it said "inside a node" from ep <= 6 alone)
ppsim advise --model=qwen3-30b-a3b --gpu=h100-sxm --gpus=12 --gpus-per-node=6 --global-batch=48 \
	--distributed-optimizer=yes --ep=4 --tp=2 --stages=3 --schedule=dualpipev --mbs=1 \
	>"$TMP/q30-straddle.txt"
ppsim advise --model=qwen3-30b-a3b --gpu=h100-sxm --gpus=12 --gpus-per-node=4 --global-batch=48 \
	--distributed-optimizer=yes --ep=4 --tp=2 --stages=3 --schedule=dualpipev --mbs=1 \
	>"$TMP/q30-inside.txt"
if grep -q '^  experts     ep=4 spreads each expert layer over 4 GPUs across nodes;' \
	"$TMP/q30-straddle.txt" &&
	grep -q '^  experts     ep=4 spreads each expert layer over 4 GPUs, inside a node;' \
		"$TMP/q30-inside.txt"; then
	ok
else
	not_ok "advise's experts line misplaces a straddling ep group: $(grep experts "$TMP"/q30-*.txt)"
fi

# advise for DeepSeek-V3 on 256 H800s (refused by the work limit before): of its 46,656 layouts
# most cannot hold their state and are skipped unsimulated; it recommends a spread of the
# experts (ep > 1) under a schedule, and says where the expert group sits. Run unwrapped: what
# is tested is the size of the search (t_sweep runs advise under valgrind's sample).
if "$PPSIM" advise --model=deepseek-v3 --gpu=h800 --gpus=256 --global-batch=512 --format=json \
	>"$TMP/ds-advice.json" 2>"$TMP/err"; then
	points=$("$JGET" "$TMP/ds-advice.json" points)
	sim=$("$JGET" "$TMP/ds-advice.json" simulated)
	skip=$("$JGET" "$TMP/ds-advice.json" skipped)
	ep=$("$JGET" "$TMP/ds-advice.json" recommended.ep)
	if [ "$points" -eq 46656 ] && [ "$sim" -gt 0 ] && [ $((sim + skip)) -eq "$points" ] &&
		[ "$ep" -gt 1 ] && [ "$("$JGET" "$TMP/ds-advice.json" recommended.fits)" = true ]; then
		ok
	else
		not_ok "advise for DeepSeek-V3 on 256 GPUs: $points points, $sim simulated, $skip skipped, ep $ep"
	fi
else
	not_ok "advise for DeepSeek-V3 on 256 H800s failed: $(head -c 300 "$TMP/err")"
fi

# Node-limited routing never adds crossings: Mixtral's top 2 over 16 nodes limited to 2 nodes is
# routed as without a limit (the limit's formula, which fills its nodes, gave more), and a limit
# of 1 sends less.
a2a() {
	ppsim --model=mixtral-8x7b -p 2 --ep=8 --dp=8 --gpus-per-node=1 --ep-dispatch=deepep "$@" |
		sed -n 's/.*all-to-all \([0-9.]*\) ms.*/\1/p'
}
if [ "$(a2a --ep-node-limit=2)" = "$(a2a)" ] && [ "$(a2a --ep-node-limit=3)" = "$(a2a)" ] &&
	awk -v one="$(a2a --ep-node-limit=1)" -v none="$(a2a)" 'BEGIN { exit !(one < none) }'; then
	ok
else
	not_ok "--ep-node-limit: limits 1, 2, 3 and none give $(a2a --ep-node-limit=1), $(a2a --ep-node-limit=2), $(a2a --ep-node-limit=3), $(a2a) ms"
fi

# An expert layer keeps the dense layer's activations less the MLP share of them (which does not
# depend on --ffn), plus its own: a larger dense ffn never makes it keep less, and nothing is
# negative (it once subtracted an MLP scaled to ffn from a figure that is not, and went below 0).
prev=0
for ffn in "" --ffn=50000 --ffn=100000; do
	# shellcheck disable=SC2086 # $ffn is empty or one word
	bytes=$(ppsim --model=mixtral-8x7b $ffn -f json | "$JGET" - model.moe.layer_activation_bytes)
	if awk -v b="$bytes" -v p="$prev" 'BEGIN { exit !(b > 0 && b >= p) }'; then ok; else
		not_ok "mixtral-8x7b $ffn: an expert layer keeps $bytes bytes (before: $prev)"
	fi
	prev=$bytes
done
bytes=$(ppsim --model=deepseek-v3 --hidden=3 --top-k=3 --q-lora-rank=64 -f json |
	"$JGET" - model.moe.layer_activation_bytes)
if awk -v b="$bytes" 'BEGIN { exit !(b > 0) }'; then ok; else
	not_ok "deepseek-v3 at hidden 3: an expert layer keeps $bytes bytes"
fi
