# ppsim partition: its answer against a brute force over every split and recomputation run
# with ppsim itself, its flags giving its step, its refusals, and the law that it never
# recommends a run over GPU memory.

# A small model on three GPUs of GB each (MODEL plus --gpu-memory).
MODEL="--model=gpt3-175b --layers=4 --hidden=512 --ffn=2048 --heads=8 --kv-heads=8 --vocab=4096
	--seq=512 -p 3 -m 6 --gpus=3 --memory-reserve=0"

# brute GB: every split of the 4 layers over 3 stages (the middle one at least one) and every
# recomputation of each stage holding layers, run one by one; prints the fitting runs as
# "step layers recompute", shortest first, fewest recomputed levels first on a tie
brute() {
	for a in 0 1 2 3; do
		for b in 1 2 3 4; do
			c=$((4 - a - b))
			[ $c -ge 0 ] || continue
			for ra in none selective full; do
				[ $a -gt 0 ] || [ $ra = none ] || continue
				for rb in none selective full; do
					for rcc in none selective full; do
						[ $c -gt 0 ] || [ $rcc = none ] || continue
						# shellcheck disable=SC2086 # MODEL is words
						ppsim $MODEL --gpu-memory="$1" --layers-per-stage=$a,$b,$c \
							--stage-recompute=$ra,$rb,$rcc -f json >"$TMP/b.json" ||
							return 1
						! tr -d ' \t\n' <"$TMP/b.json" | grep -q '"oom":true' || continue
						lv=0
						for r in $ra $rb $rcc; do
							case $r in selective) lv=$((lv + 1)) ;; full) lv=$((lv + 2)) ;; esac
						done
						echo "$("$JGET" "$TMP/b.json" step_time) $lv $a,$b,$c $ra,$rb,$rcc"
					done
				done
			done
		done
	done | sort -g -k1,1 -k2,2
}

for gb in 0.2 0.12 0.11; do
	if ! brute "$gb" >"$TMP/brute" || [ ! -s "$TMP/brute" ]; then
		not_ok "partition at $gb GB: the brute force found nothing"
		continue
	fi
	# shellcheck disable=SC2086 # MODEL is words
	if ! ppsim partition $MODEL --gpu-memory="$gb" -f json >"$TMP/p.json" 2>"$TMP/err"; then
		not_ok "partition at $gb GB: $(cat "$TMP/err")"
		continue
	fi
	read -r step _ layers rc <"$TMP/brute"
	got_layers=$("$JGET" "$TMP/p.json" best.layers | tr -d '[] ')
	got_rc=$("$JGET" "$TMP/p.json" best.recompute | tr -d '[]" ')
	got_step=$("$JGET" "$TMP/p.json" best.step_time)
	if [ "$got_step" = "$step" ] && [ "$got_layers" = "$layers" ] && [ "$got_rc" = "$rc" ]; then
		ok
	else
		not_ok "partition at $gb GB: $got_step ms with $got_layers and $got_rc; the brute force: $step ms with $layers and $rc"
	fi
	if [ "$("$JGET" "$TMP/p.json" exact)" = true ] && [ "$("$JGET" "$TMP/p.json" best.fits)" = true ]; then
		ok
	else
		not_ok "partition at $gb GB: not exact, or a best over memory"
	fi
	# the flags it prints give its step
	flags=$("$JGET" "$TMP/p.json" flags.ppsim)
	# shellcheck disable=SC2086 # MODEL and flags are words
	ppsim $MODEL --gpu-memory="$gb" $flags -f json >"$TMP/run.json"
	if [ "$("$JGET" "$TMP/run.json" step_time)" = "$got_step" ] &&
		! tr -d ' \t\n' <"$TMP/run.json" | grep -q '"oom":true'; then
		ok
	else
		not_ok "partition at $gb GB: its flags '$flags' do not give its step"
	fi
done
# under the cap, the run as given (its layers as even as they go, nothing recomputed) is over
# memory: what partition fixes
# shellcheck disable=SC2086 # MODEL is words
ppsim partition $MODEL --gpu-memory=0.11 -f json >"$TMP/p.json"
if [ "$("$JGET" "$TMP/p.json" even_split.fits)" = false ] &&
	[ "$("$JGET" "$TMP/p.json" best.recompute | tr -d '[]" ')" != none,none,none ]; then
	ok
else
	not_ok "partition at 0.11 GB: the even split should be over memory, the best recompute"
fi

# The text report names the best, the runner-up and why, and the flags to paste.
# shellcheck disable=SC2086 # MODEL is words
ppsim partition $MODEL --gpu-memory=0.2 >"$TMP/p.txt"
for want in "^best " "^runner-up " "^  why " "^even split " "^ppsim flags  *--layers-per-stage="; do
	if grep -q "$want" "$TMP/p.txt"; then ok; else not_ok "partition's text has no '$want'"; fi
done

# A tie with the even split keeps it: under 1f1b-v device 1 holds stages 1 and 2, so Mixtral's
# 8,4,12,8 takes the same step and memory as 8,8,8,8; the lexicographic rule alone chose the
# lopsided one, and advise printed it as "as evenly as they go". (Under zbv, whose order
# follows each stage's activations, the even split is no longer among the fastest.)
ppsim partition --model=mixtral-8x7b --gpu=h100-sxm --gpus=16 --global-batch=64 \
	--distributed-optimizer=yes -s 1f1b-v --tp=1 --ep=8 -p 2 -v 2 --mbs=1 >"$TMP/tie.txt"
if grep -q '^ppsim flags       --layers-per-stage=8,8,8,8 ' "$TMP/tie.txt" &&
	grep -q "^  why             the same step; the best's layers are spread more evenly" \
		"$TMP/tie.txt"; then
	ok
else
	not_ok "partition's tie with the even split: $(grep -E 'flags|why' "$TMP/tie.txt")"
fi

# ... and so does a split "faster" only by tick rounding: under DualPipe at p = 2 each device
# holds both halves of the model, every split the same work, their steps a few ticks apart
ppsim partition --model=llama3-8b --gpu=h200 --gpus=8 --global-batch=64 --seq=2048 \
	--distributed-optimizer=yes -s dualpipe -p 2 -v 2 --mbs=4 --tp=1 >"$TMP/ticks.txt"
if grep -q '^ppsim flags       --layers-per-stage=16,16 ' "$TMP/ticks.txt"; then ok; else
	not_ok "partition chose a split faster by rounding: $(grep -E 'flags|why' "$TMP/ticks.txt")"
fi

# A cluster too small for the model: nothing fits, exit 1 with the reason; a run without a
# model, or with too few layers for the stages, is a usage error.
# shellcheck disable=SC2086 # MODEL is words
ppsim partition $MODEL --gpu-memory=0.1 >"$TMP/out" 2>"$TMP/err"
status=$?
if [ $status -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q "no placement of the 4 layers over the 3 stages fits" "$TMP/err"; then
	ok
else
	not_ok "partition with nothing fitting: exit $status: $(cat "$TMP/err")"
fi
ppsim partition -p 4 >"$TMP/out" 2>"$TMP/err"
status=$?
if [ $status -eq 2 ] && grep -q "needs a model" "$TMP/err"; then ok; else
	not_ok "partition without a model: exit $status: $(cat "$TMP/err")"; fi
ppsim partition --model=llama3-8b --layers=1 -p 4 --gpus=4 >"$TMP/out" 2>"$TMP/err"
status=$?
if [ $status -eq 2 ] && grep -q "cannot give each of the 2 middle stages one" "$TMP/err"; then ok; else
	not_ok "partition with too few layers: exit $status: $(cat "$TMP/err")"; fi
# A split or a recomputation per stage given is what partition searches for: refused, naming the
# option and what to do (usage on the command line, an invalid config in a file); --layer-split,
# which picks the split partition starts from and compares with, is taken.
P8="--model=llama3-8b -p 4 -m 8 --gpu=h100-sxm"
for o in --layers-per-stage=8,8,8,8 --first-stage-layers=6 --last-stage-layers=6 \
	"--layout=Et*8|t*8|t*8|t*8L" --stage-recompute=full,none,none,none; do
	# shellcheck disable=SC2086 # P8 is words
	fails 2 "${o%%=*} '${o#*=}': partition searches each stage's layers and recomputation and would not use it: leave it out, or price it with ppsim run" partition $P8 "$o"
done
# nor does partition --help offer them (they are not among its options)
if ppsim partition --help | grep -q -e --layers-per-stage -e --stage-recompute -e --first-stage-layers \
	-e --last-stage-layers -e --layout; then
	not_ok "partition --help lists an option that gives what partition searches for"
else
	ok
fi
printf '{"model": "llama3-8b",\n "layers_per_stage": [8, 8, 8, 8]}\n' >"$TMP/lps.json"
cp "$TMP/lps.json" "$TMP/lps-before.json"
fails 3 "config '$TMP/lps.json':2:2: key \"layers_per_stage\" = 8,8,8,8: partition searches each stage's layers" \
	partition -c "$TMP/lps.json" -p 4 -m 8
cmp -s "$TMP/lps.json" "$TMP/lps-before.json" && ok || not_ok "a refused partition changed its config file"
# ... and so is a noise setting it would not use, in a config file as on the command line
for kv in 'samples 5' 'jitter "lognormal:0.1"' 'link_jitter "normal:0.1"' 'stalls "100:5"' \
	'seed 3'; do
	printf '{"model": "llama3-8b",\n "%s": %s}\n' "${kv%% *}" "${kv#* }" >"$TMP/noise.json"
	fails 3 "config '$TMP/noise.json':2:2: key \"${kv%% *}\" = " partition -c "$TMP/noise.json" -p 4 -m 8
done
# shellcheck disable=SC2086 # P8 is words
ppsim partition $P8 --layer-split=torchtitan >/dev/null 2>"$TMP/err" && ok ||
	not_ok "partition --layer-split=torchtitan: $(cat "$TMP/err")"

# The 126 layers of Llama 3 405B over 16 devices with two chunks: a descent, whose best fits and
# is no slower than the even split, and the same with one job or two. Under a sanitizer or
# valgrind (thousands of runs, each ten to fifty times as slow), Llama 3 8B's 32 layers over 8.
LLAMA="--model=llama3-405b --gpu=h100-sxm --tp=8 -p 16 -v 2 -s interleaved --gpus=1024 --mbs=1
	--global-batch=256 --distributed-optimizer=yes"
[ -z "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ] ||
	LLAMA="--model=llama3-8b --gpu=h100-sxm -p 4 -v 2 -s interleaved --gpus=4 --global-batch=16"
for jobs in 1 2; do
	# shellcheck disable=SC2086 # LLAMA is words
	ppsim partition $LLAMA --jobs=$jobs -f json >"$TMP/l$jobs.json" 2>"$TMP/err" ||
		not_ok "partition of $LLAMA: $(cat "$TMP/err")"
done
if cmp -s "$TMP/l1.json" "$TMP/l2.json" && [ "$("$JGET" "$TMP/l1.json" exact)" = false ] &&
	[ "$("$JGET" "$TMP/l1.json" best.fits)" = true ] &&
	awk -v b="$("$JGET" "$TMP/l1.json" best.step_time)" \
		-v e="$("$JGET" "$TMP/l1.json" even_split.step_time)" 'BEGIN { exit !(b <= e) }'; then
	ok
else
	not_ok "partition of $LLAMA: differs with --jobs, or its best is over memory or slower than the even split"
fi

# advise places the recommendation's layers with the partitioner: its layout is what
# `ppsim partition` finds for the recommended run, and no slower than the sweep's even split.
ADVISE="--model=llama3-8b --gpu=a100-80g --gpus=8 --global-batch=64 --seq=4096"
# shellcheck disable=SC2086 # ADVISE is words
ppsim advise $ADVISE -f json >"$TMP/adv.json" 2>"$TMP/err" || not_ok "advise: $(cat "$TMP/err")"
rec() { "$JGET" "$TMP/adv.json" "recommended.$1"; }
# shellcheck disable=SC2086 # ADVISE is words
ppsim partition $ADVISE -s "$(rec schedule)" -p "$(rec p)" -v "$(rec v)" --tp="$(rec tp)" \
	--mbs="$(rec mbs)" -f json >"$TMP/part.json" 2>"$TMP/err" || not_ok "partition of advise's run: $(cat "$TMP/err")"
if [ "$("$JGET" "$TMP/adv.json" layout.best)" = "$("$JGET" "$TMP/part.json" best)" ] &&
	[ -n "$("$JGET" "$TMP/part.json" best)" ] &&
	awk -v b="$("$JGET" "$TMP/adv.json" layout.best.step_time)" -v r="$(rec step_time)" \
		'BEGIN { exit !(b <= r) }'; then
	ok
else
	not_ok "advise's layout is not partition's for its recommendation, or slower than it"
fi
# shellcheck disable=SC2086 # ADVISE is words
if ppsim advise $ADVISE | grep -q "^  stages      ppsim partition places the 32 layers over the"; then ok; else
	not_ok "advise's text has no stages line from the partitioner"; fi
# Given a split, advise prices its recommendation with it, and its stages line compares the
# partitioner's with that split, not with the even one: the share is 1 - the layout's step over
# the recommendation's.
# shellcheck disable=SC2086 # ADVISE is words
ppsim advise $ADVISE -p 4 --layers-per-stage=5,9,9,9 -f json >"$TMP/given.json"
# shellcheck disable=SC2086 # ADVISE is words
line=$(ppsim advise $ADVISE -p 4 --layers-per-stage=5,9,9,9 | grep "^  stages")
want=$(awk -v b="$("$JGET" "$TMP/given.json" layout.best.step_time)" \
	-v r="$("$JGET" "$TMP/given.json" recommended.step_time)" \
	'BEGIN { printf "%.2f%% faster than the split given:", 100 * (1 - b / r) }')
case $line in
*" $want") ok ;;
*) not_ok "advise --layers-per-stage: stages line '$line', want '... $want'" ;;
esac

# Its flags give the step it found, to the last digit of the offloaded share (they wrote "%g" of
# it, 0.123457 for 0.1234567), and a share on every stage is --offload's.
OFF="--model=llama3-8b --gpu=h100-sxm -p 4 -m 16 -s gpipe --gpu-memory=74 --memory-reserve=0 --recompute=none --host-bandwidth=10"
# shellcheck disable=SC2086 # OFF is words
ppsim partition $OFF --offload=0.1234567 -f json >"$TMP/off.json"
flags=$("$JGET" "$TMP/off.json" flags.ppsim)
# shellcheck disable=SC2086 # OFF and flags are words
step=$(ppsim $OFF $flags -f json | "$JGET" - step_time)
# shellcheck disable=SC2086 # OFF is words
whole=$(ppsim $OFF --layers-per-stage="$("$JGET" "$TMP/off.json" best.layers | tr -d '[] ')" \
	--offload=0.1234567 -f json | "$JGET" - step_time)
if printf '%s' "$flags" | grep -q -- "0.1234567" &&
	[ "$step" = "$("$JGET" "$TMP/off.json" best.step_time)" ] && [ "$step" = "$whole" ]; then ok; else
	not_ok "partition --offload=0.1234567: flags '$flags' run $step, partition $("$JGET" "$TMP/off.json" best.step_time), --offload $whole"
fi

# With --offload each stage may offload that share or nothing: on a GB200 (NVLink-C2C to host
# memory) partition offloads where it saves recomputation, and its flags give its step.
GB="--model=llama3-8b --gpu=gb200 --seq=4096 -p 4 -m 8 --mbs=5 --gpus=4 -s gpipe"
# shellcheck disable=SC2086 # GB is words
ppsim partition $GB --offload=0.5 -f json >"$TMP/o.json" 2>"$TMP/err" || not_ok "partition --offload: $(cat "$TMP/err")"
flags=$("$JGET" "$TMP/o.json" flags.ppsim)
# shellcheck disable=SC2086 # GB and flags are words
ppsim $GB $flags -f json >"$TMP/orun.json"
if printf '%s' "$flags" | grep -q -- "--stage-offload=[0-9.,]*0\.5" &&
	[ "$("$JGET" "$TMP/orun.json" step_time)" = "$("$JGET" "$TMP/o.json" best.step_time)" ] &&
	[ "$("$JGET" "$TMP/o.json" best.fits)" = true ]; then
	ok
else
	not_ok "partition --offload: no stage offloads, or its flags '$flags' do not give its step"
fi

# The flags added to the command searched give its step, --offload included, when the best
# offloads nothing: they say so (--stage-offload=0,...), or the command's --offload stayed in
# force and offloaded every stage (633 ms against partition's 500).
MX="--model=mixtral-8x7b --gpu=h100-sxm -p 4 -m 8 --dp=4 --ep=8 --tp=2 --offload=0.5 --distributed-optimizer=yes"
# shellcheck disable=SC2086 # MX is words
ppsim partition $MX -f json >"$TMP/mx.json"
flags=$("$JGET" "$TMP/mx.json" flags.ppsim)
# shellcheck disable=SC2086 # MX and flags are words
step=$(ppsim $MX $flags -f json | "$JGET" - step_time)
if printf '%s' "$flags" | grep -q -- "--stage-offload=0,0,0,0$" &&
	[ "$step" = "$("$JGET" "$TMP/mx.json" best.step_time)" ]; then ok; else
	not_ok "partition --offload, the best offloading nothing: flags '$flags' added to the command run $step, partition $("$JGET" "$TMP/mx.json" best.step_time)"
fi

# Every device over memory at the start (DeepSeek-V3 in DualPipe on 16 H800 ranks, nothing
# recomputed): the descent still finds a run that fits, recomputing where it must.
if [ -z "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ]; then
	ppsim partition --model=deepseek-v3 --gpu=h800 -s dualpipe -p 16 --ep=64 --gpus=2048 \
		--global-batch=15360 --seq=4096 --fp8=yes --ep-dispatch=deepep \
		--distributed-optimizer=yes -f json >"$TMP/ds.json" 2>"$TMP/err"
	if [ "$("$JGET" "$TMP/ds.json" best.fits)" = true ] &&
		[ "$("$JGET" "$TMP/ds.json" even_split.fits)" = false ] &&
		"$JGET" "$TMP/ds.json" best.recompute | grep -q full; then
		ok
	else
		not_ok "partition of DeepSeek-V3 over 16 ranks: no fitting run found: $(cat "$TMP/err")"
	fi
fi
