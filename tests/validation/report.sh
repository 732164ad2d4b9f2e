#!/bin/sh
# Prints the tables of docs/validation.md from the published figures in tests/validation/ and
# ppsim's predictions (make docs puts them in the page; tests/cli/t_validation.sh checks the
# page holds what this prints). Usage: sh tests/validation/report.sh PPSIM JGET SECTION, where
# SECTION is table5 (the paper's computed bubble rates against ppsim on the same profiled
# times), table4 (the paper's measured iteration times against ppsim on its profiled times) or
# ranking (the schedules of each of table4's blocks, fastest first, measured and by ppsim with
# blocking sends; a block is ranked alike when ppsim orders every pair the measurement orders),
# model (table4's runs priced from the model alone), model-ranking (their ranking), korthikanti (Korthikanti et al. 2022's
# measured iteration times, held out, priced from the model alone) or narayanan (Narayanan et
# al. 2021's, the same way) or memory (measured peak memory per GPU against ppsim's memory_bytes).
set -eu
ppsim=$1 jget=$2 section=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rows() { grep -v '^[[:space:]]*#' "$1" | grep -v '^[[:space:]]*$' | tr -d ' '; }

# calibrated MODEL M: the config ppsim calibrate writes from Table 9's row, into $tmp/MODEL-M.json
calibrated() {
	rows "$here/zb-table9.txt" | awk -F'|' -v mo="$1" -v m="$2" '$1 == mo && $4 == m {
		print "stage,op,ms"
		for (s = 0; s < $2; s++) printf "%d,F,%s\n%d,B,%s\n%d,W,%s\n", s, $5, s, $6, s, $7
		print "0,comm," $8 }' >"$tmp/measured.csv"
	"$ppsim" calibrate -m "$2" -o "$tmp/$1-$2.json" "$tmp/measured.csv"
}

# sched NAME MODEL P: ppsim's schedule, chunks and bubble metric for the paper's NAME (1F1B-I
# has (layers + 2) / p chunks of one layer, the authors' ll; ZB-H2 and the ZB-np rates are over
# the longest device span, the others over the makespan)
sched() {
	case $1 in
	1F1B) echo "1f1b 1 bubble_ratio" ;;
	1F1B-I)
		layers=$(case $2 in 1.5B) echo 22 ;; 6.2B) echo 30 ;; 14.6B) echo 46 ;; *) echo 62 ;; esac)
		echo "interleaved $(((layers + 2) / $3)) bubble_ratio" ;;
	ZB-H1) echo "zbh1 1 bubble_ratio" ;;
	ZB-H2) echo "zbh2 1 bubble_rate_span" ;;
	ZB-1p) echo "zb1p 1 bubble_rate_span" ;;
	ZB-2p) echo "zb2p 1 bubble_rate_span" ;;
	esac
}

# The costs the model tables compare: the default, the per-kernel model with messages priced as
# the Zero Bubble paper measured them (its Table 9's T_comm: a fixed 234 us beyond the link's
# latency and 0.24 of NVLink's bandwidth, the least-squares line through its twelve runs), and
# the uniform model that was the default before it: every op at half the peak, messages at
# their links' figures.
default=""
uniform="--efficiency=0.5 --p2p-overhead=0 --p2p-efficiency=1"

# model_args MODEL P NAME: the options that describe the paper's MODEL (its Table 3: GPT-like,
# ffn = 4h, sequence 1024, the first and last stage one layer fewer; vocab 32000 with tied
# embeddings, which reproduces its parameter counts) on P stages for schedule NAME (1F1B-I:
# one layer a chunk, the first and last chunk none)
model_args() {
	set -- $1 $2 $3 $(case $1 in
		1.5B) echo 22 24 2304 6 ;; 6.2B) echo 30 32 4096 3 ;;
		14.6B) echo 46 40 5120 1 ;; *) echo 62 48 6144 1 ;; esac)
	echo "--model=gpt3-175b --layers=$4 --heads=$5 --kv-heads=$5 --hidden=$6 --ffn=$(($6 * 4))" \
		"--vocab=32000 --tied-embeddings=yes --mlp=plain --seq=1024 --mbs=$7" \
		"--flash-attention=no --gpu=a100-80g"
	if [ "$3" = 1F1B-I ]; then
		echo "--layers-per-stage=0$(awk -v n="$4" 'BEGIN { for (i = 0; i < n; i++)
			printf ",1" }'),0"
	else
		echo "--last-stage-layers=$((($4 + 2) / $2 - 1))" \
			"--first-stage-layers=$((($4 + 2) / $2 - 1))"
	fi
}

# errors KEYS DIGITS: reads lines KEY1|...|KEYn|measured s|prediction ms|prediction ms (n =
# KEYS) and prints them as table rows, the seconds with DIGITS decimals and each prediction's
# error, then the mean absolute error of each prediction.
errors() {
	awk -F'|' -v k="$1" -v d="$2" '{
		for (i = 1; i <= k; i++) printf "| %s ", $i
		m = $(k + 1); e1 = ($(k + 2) / 1e3 - m) / m; e2 = ($(k + 3) / 1e3 - m) / m
		printf "| %.*f | %.*f | %+.1f%% | %.*f | %+.1f%% |\n", d, m, d, $(k + 2) / 1e3,
			100 * e1, d, $(k + 3) / 1e3, 100 * e2
		a1 += (e1 < 0 ? -e1 : e1); a2 += (e2 < 0 ? -e2 : e2); n++ }
		END { printf "| **mean absolute error** |"
			for (i = 1; i <= k; i++) printf " |"
			printf " | %.1f%% | | %.1f%% |\n", 100 * a1 / n, 100 * a2 / n }'
}

# gpt_step LAYERS HIDDEN HEADS TP P CHUNKS GPUS MBS M RECOMPUTE SP COSTS: the step time in ms
# of a Megatron-LM GPT run of the 2021-2022 papers (ffn = 4h, vocabulary 51200, sequence 2048,
# no flash attention, blocking sends), interleaved when CHUNKS is above 1, with sequence
# parallelism when SP is yes.
gpt_step() {
	sched=1f1b
	[ "$6" -gt 1 ] && sched=interleaved
	"$ppsim" --model=gpt3-175b --layers="$1" --hidden="$2" --heads="$3" --kv-heads="$3" \
		--ffn=$(($2 * 4)) --vocab=51200 --seq=2048 --flash-attention=no --comm=blocking \
		--tp="$4" -p "$5" -v "$6" -s $sched --gpus="$7" --mbs="$8" -m "$9" \
		--recompute="${10}" --sequence-parallel="${11}" $(eval echo \$${12}) -f json \
		>"$tmp/out.json"
	"$jget" "$tmp/out.json" step_time
}

# ranked FILE COLUMN LABEL: per (model, m) block of FILE (lines model|m|schedule|measured|...),
# the schedules fastest first as measured and by the prediction in COLUMN, and whether they are
# alike: the prediction orders every pair the measurement orders (a tie orders none).
ranked() {
	echo "| model | m | measured, fastest first | $3, fastest first | same |"
	echo "|---|---|---|---|---|"
	awk -F'|' -v col="$2" '{ k = $1 "|" $2; if (!(k in n)) order[++nb] = k
		i = ++n[k]; name[k, i] = $3; meas[k, i] = $4; pred[k, i] = $col }
	function rank(k, v, out,   i, j, t, idx) {
		for (i = 1; i <= n[k]; i++) idx[i] = i
		for (i = 1; i <= n[k]; i++) for (j = i + 1; j <= n[k]; j++)
			if (v[k, idx[j]] < v[k, idx[i]]) { t = idx[i]; idx[i] = idx[j]; idx[j] = t }
		out = name[k, idx[1]]
		for (i = 2; i <= n[k]; i++) out = out ", " name[k, idx[i]]
		return out }
	function alike(k,   i, j) {
		for (i = 1; i <= n[k]; i++) for (j = 1; j <= n[k]; j++)
			if (meas[k, i] < meas[k, j] && !(pred[k, i] < pred[k, j])) return 0
		return 1 }
	END { for (b = 1; b <= nb; b++) { k = order[b]; split(k, km, "|")
		a = rank(k, meas); c = rank(k, pred); ok = alike(k); same += ok
		printf "| %s | %s | %s | %s | %s |\n", km[1], km[2], a, c, ok ? "yes" : "no" }
		printf "| **blocks ranked alike** | | | | %d of %d |\n", same, nb }' "$1"
}


# ---- measured runs of H100 or newer, and BLOOM on A100, priced from the model alone ----

# split LAYERS STAGES: the option that spreads LAYERS over STAGES virtual stages when they do
# not divide evenly, as Megatron Core's account_for_embedding/loss_in_pipeline_split and Llama
# 3's pipeline do: the first and last stage one layer fewer
split() {
	[ $(($1 % $2)) -eq 0 ] && return 0
	awk -v n="$1" -v s="$2" 'BEGIN { k = (n + 2) / s
		if (k != int(k)) exit 1
		printf "--layers-per-stage=%d", k - 1
		for (i = 2; i < s; i++) printf ",%d", k
		printf ",%d", k - 1 }'
}

# shape LAYERS HIDDEN FFN HEADS KV VOCAB MLP: the model's shape as options
shape() {
	echo "--model=llama3-8b --layers=$1 --hidden=$2 --ffn=$3 --heads=$4 --kv-heads=$5" \
		"--vocab=$6 --mlp=$7"
}

# pipe P V: the schedule of P stages with V chunks
pipe() {
	if [ "$2" -gt 1 ]; then echo "-p $1 -v $2 -s interleaved"; else echo "-p $1"; fi
}

# Each source below prints its rows as LABEL|MEASURED SECONDS|OPTIONS, or LABEL|skip|WHY for a
# row ppsim cannot state; ROLE (fitted or held out) is the fourth field.

src_megatron() {
	# TFLOP/s per GPU -> seconds by Megatron-LM r0.8's num_floating_point_operations (ffn = 4h,
	# kv heads = heads, no recompute term): 12 B s L h^2 (2 + s/h + 4 + V / (2 L h)); micro-batch
	# 1 and one chunk ASSUMED (not published)
	rows "$here/megatron-h100-scaling.txt" |
		while IFS='|' read -r name l h f a kv V s tp pp dp gpus gb mbs v tf mfu pf; do
			meas=$(awk -v B="$gb" -v s="$s" -v l="$l" -v h="$h" -v V="$V" -v g="$gpus" \
				-v r="$tf" 'BEGIN { f = 12 * B * s * l * h * h * (6 + s / h + V / (2 * l * h))
				printf "%.4f", f / (g * r * 1e12) }')
			role="fitted"; [ "$pp" -gt 1 ] && role="held out"
			echo "$name|$meas|$(shape $l $h $f $a $kv $V plain) --seq=$s --gpu=h100-sxm" \
				"--tp=$tp $(pipe $pp 1) $(split $l $pp) --gpus=$gpus --mbs=1 --global-batch=$gb" \
				"--framework=megatron --distributed-optimizer=yes --overlap-grad-reduce=yes" \
				"--overlap-param-gather=yes --tp-overlap=pipelined|$role"
		done
}

src_nemo() {
	# FP8 on DGX-H100; GPT3's vocabulary (not published) the GPT-2 BPE's 50257, Nemotron-3's
	# 256000; fitted: Hopper's sustained share (docs/presets.md) is fitted on these rows
	rows "$here/nemo-h100-24.07.txt" |
		while IFS='|' read -r name l h f a kv V s gpus gb mbs tp pp cp v tps tf; do
			case $name in
			GPT3*) V=50257 mlp=plain ;; Nemotron-8B | Nemotron-22B) V=256000 mlp=plain ;;
			Nemotron*) mlp=plain ;; *) mlp=gated ;;
			esac
			meas=$(awk -v B="$gb" -v s="$s" -v t="$tps" -v g="$gpus" \
				'BEGIN { printf "%.4f", B * s / (t * g) }')
			echo "$name/$gpus|$meas|$(shape $l $h $f $a $kv $V $mlp) --seq=$s --gpu=h100-sxm" \
				"--fp8=yes --tp=$tp --cp=$cp $(pipe $pp $v) $(split $l $((pp * v)))" \
				"--gpus=$gpus --mbs=$mbs --global-batch=$gb --framework=nemo|fitted"
		done
}

src_mbridge() {
	rows "$here/mbridge-perf-archive.txt" |
		while IFS='|' read -r rel sys name l h f a kv V s gpus prec gb mbs fsdp tp pp cp v ga \
			tps tf variant; do
			label="$rel $sys ${name#LLAMA} $prec"
			# Blackwell's tensor cores scale MXFP8 blocks themselves, at the FP8 rate
			case $prec:$sys in
			mxfp8:DGX-H100 | fp8-mx*:DGX-H100 | nvfp4:*) echo "$label|skip|$prec: block-scaled FP4 or Hopper's software-scaled FP8 GEMMs, which ppsim does not price"; continue ;;
			'?':*) echo "$label|skip|precision not printed"; continue ;;
			esac
			case $fsdp in [1-9]*) echo "$label|skip|Megatron-FSDP (parameters gathered layer by layer), which ppsim does not model"; continue ;; esac
			case $sys in
			DGX-H100) gpu="--gpu=h100-sxm" ;;
			DGX-B200) gpu="--gpu=b200" ;;
			*) gpu="--gpu=gb200 --gpus-per-node=64" ;;
			esac
			# TP overlap (userbuffers) on for 70B and 405B, off for 8B (the recipes)
			tpo=""; [ "$tp" -eq 1 ] && tpo="--tp-overlap=none"
			meas=$(awk -v B="$gb" -v s="$s" -v t="$tps" -v g="$gpus" \
				'BEGIN { printf "%.4f", B * s / (t * g) }')
			echo "$label|$meas|$(shape $l $h $f $a $kv $V gated) --seq=$s $gpu --fp8=yes" \
				"--tp=$tp --cp=$cp $(pipe $pp $v) $(split $l $((pp * v))) --gpus=$gpus" \
				"--mbs=$mbs --global-batch=$gb --framework=nemo $tpo|held out"
		done
}

# spread LAYERS STAGES [MTP]: LAYERS over STAGES as evenly as they go, the first and the last
# stage (the embedding's and the head's) taking the fewer, the MTP layers counted on the last
# (DeepSeek-V3's Megatron Bridge layout "Et|(tt|)*30mL" at 32 stages); nothing when they divide
spread() {
	[ $((($1 + ${3:-0}) % $2)) -eq 0 ] && [ "${3:-0}" -eq 0 ] && return 0
	awk -v n="$1" -v s="$2" -v mtp="${3:-0}" 'BEGIN { k = int((n + mtp) / s); r = n + mtp - k * s
		printf "--layers-per-stage="
		for (i = 0; i < s; i++) printf "%s%d", i ? "," : "",
			k + (i >= 1 && i <= r ? 1 : 0) - (i == s - 1 ? mtp : 0) }'
}

# lay LAYOUT LAYERS STAGES [MTP]: a recipe's layers per stage as given, else spread's
lay() {
	if [ "$1" != - ]; then echo "--layers-per-stage=$1"; else spread "$2" "$3" "${4:-0}"; fi
}

# moe_shape MODEL: the MoE preset of the sources' model names
moe_shape() {
	case $1 in
	DeepSeek-V3) echo deepseek-v3 ;; Qwen3-235B-A22B) echo qwen3-235b-a22b ;;
	Qwen3-30B-A3B) echo qwen3-30b-a3b ;; Mixtral-8x22B) echo mixtral-8x22b ;;
	Mixtral-8x7B) echo mixtral-8x7b ;; *) echo unknown ;;
	esac
}

src_mbridge_moe() {
	# routing force-balanced (the pages' footnote: imbalance 1, the default); a release's recipe
	# that overlaps the all-to-all (moe_a2a_overlap) runs Megatron-Core's combined 1F1B
	# (interleaved, or without pipelining at PP 1); a recipe's own layout where the file gives it
	rows "$here/mbridge-perf-moe.txt" |
		while IFS='|' read -r rel sys name variant gpus prec gb mbs s fsdp tp pp cp v ep ga tps tf \
			printed a2a layout; do
			label="$rel $sys $name${variant#-} $prec"
			model=$(moe_shape "$name")
			# Blackwell's tensor cores scale MXFP8 blocks themselves, at the FP8 rate;
			# Hopper's block-scaled FP8 is scaled in software
			case $prec:$sys in
			mxfp8:DGX-H100 | fp8-mx*:DGX-H100 | fp8-blockwise*) echo "$label|skip|$prec: block-scaled FP8 GEMMs on Hopper, which ppsim does not price"; continue ;;
			bf16:*) f8=no ;; *) f8=yes ;;
			esac
			[ "$tps" = '?' ] && { echo "$label|skip|tokens/s not printed"; continue; }
			if [ $((gpus / pp % ep)) -ne 0 ]; then
				echo "$label|skip|EP $ep over the $((gpus / pp)) GPUs of a pipeline rank as printed"; continue
			fi
			case $fsdp in [1-9]*) echo "$label|skip|Megatron-FSDP (parameters gathered layer by layer), which ppsim does not model"; continue ;; esac
			case $sys in
			DGX-H100) gpu="--gpu=h100-sxm" ;;
			DGX-B200) gpu="--gpu=b200" ;;
			*) gpu="--gpu=gb200 --gpus-per-node=64" ;;
			esac
			layers=$(ppsim_layers "$model")
			sched=$(pipe "$pp" "$v")
			[ "$a2a" = yes ] && sched="-p $pp -v $v -s interleaved-combined"
			# DeepSeek-V3's recipes dispatch with DeepEP (the flex dispatcher) or HybridEP
			# (GB200), both a token once a node
			disp=""; [ "$name" = DeepSeek-V3 ] && disp="--ep-dispatch=deepep"
			mtp=""; nmtp=$([ "$name" = DeepSeek-V3 ] && echo 1 || echo 0)
			[ "$variant" = "w/o MTP" ] && mtp="--mtp-layers=0" nmtp=0
			meas=$(awk -v B="$gb" -v s="$s" -v t="$tps" -v g="$gpus" \
				'BEGIN { printf "%.4f", B * s / (t * g) }')
			echo "$label|$meas|--model=$model --seq=$s $gpu --fp8=$f8 --tp=$tp --cp=$cp" \
				"--ep=$ep $sched $(lay "$layout" "$layers" $((pp * v)) $nmtp) --gpus=$gpus" \
				"--mbs=$mbs --global-batch=$gb --framework=nemo $mtp $disp|held out"
		done
}

# ppsim_layers PRESET: its layers, as ppsim list --format=json gives them
ppsim_layers() {
	[ -s "$tmp/list.json" ] || "$ppsim" list --format=json >"$tmp/list.json"
	"$jget" "$tmp/list.json" models | tr '{' '\n' | sed -n "s/.*\"name\":\"$1\",\"layers\":\([0-9]*\).*/\1/p"
}

src_modelzoo() {
	# the H100 table's rows with a step time; "norm,act" recomputation (norms and
	# activations, cheap) as none; the EP all-to-all overlap as Megatron-Core's combined 1F1B
	rows "$here/megatron-moe-modelzoo.txt" |
		while IFS='|' read -r file name sys gpus prec disp s tp cp ep pp v etp edp dp fsdp mbs gb \
			ga rc a2a routing step tf note; do
			[ "$step" = '?' ] && continue
			label="$name $gpus $sys tp$tp pp$pp vp$v ep$ep"
			[ "$a2a" = yes ] && label="$label, EP overlap"
			model=$(moe_shape "$name")
			case $fsdp in yes) echo "$label|skip|Megatron-FSDP (parameters gathered layer by layer), which ppsim does not model"; continue ;; esac
			case $rc in full) rcopt="--recompute=full" ;; *) rcopt="" ;; esac
			case $disp in deepep) rcopt="$rcopt --ep-dispatch=deepep" ;; esac
			sched=$(pipe "$pp" "$v")
			[ "$a2a" = yes ] && sched="-p $pp -v $v -s interleaved-combined"
			layers=$(ppsim_layers "$model")
			echo "$label|$step|--model=$model --seq=$s --gpu=h100-sxm --tp=$tp --cp=$cp" \
				"--ep=$ep $sched $(spread "$layers" $((pp * v))) --gpus=$gpus --mbs=$mbs" \
				"--global-batch=$gb --framework=megatron --distributed-optimizer=yes" \
				"--overlap-grad-reduce=yes --overlap-param-gather=yes $rcopt|held out"
		done
}

src_deepseek() {
	# ISCA Table 4's two networks: DualPipe on 16 ranks, EP 64 over 8 nodes with DeepEP,
	# node-limited routing to 4 nodes and FP8 dispatch (the V3 report, 2.1.2 and 3.3), ZeRO-1,
	# FP8, MTP on the last stage; one sequence a micro-batch (inferred from DeepSeek's profile,
	# not published); the RMSNorm and MLA up-projection recomputation left out (cheap)
	rows "$here/deepseek-v3-h800.txt" |
		while IFS='|' read -r src net gpus prec s gb mbs tp pp ep dp sched step rest; do
			[ "$step" = '?' ] && continue
			layers=$(ppsim_layers deepseek-v3)
			echo "$src $net|$step|--model=deepseek-v3 --seq=$s --gpu=h800 --fp8=yes --tp=$tp" \
				"--ep=$ep -s dualpipe -p $pp $(spread "$layers" "$pp" 1) --gpus=$gpus --mbs=1" \
				"--global-batch=$gb --ep-dispatch=deepep --ep-node-limit=4 --dispatch-bytes=1" \
				"--distributed-optimizer=yes|held out"
		done
}

src_overlap() {
	# one run with and without the all-to-all overlap (Megatron-Core's combined 1F1B without
	# pipelining at PP 1), with HybridEP (a token crosses to a node once: --ep-dispatch=deepep)
	# and with NCCL's all-to-all
	rows "$here/mbridge-overlap-qwen3-30b.txt" |
		while IFS='|' read -r disp ov gpus prec s tp pp cp ep mbs gb step; do
			sched="-p $pp"; [ "$ov" = yes ] && sched="-p $pp -s interleaved-combined"
			dd=""; [ "$disp" = hybridep ] && dd="--ep-dispatch=deepep"
			echo "Qwen3-30B-A3B $disp, overlap $ov|$step|--model=qwen3-30b-a3b --seq=$s" \
				"--gpu=h100-sxm --fp8=$([ "$prec" = bf16 ] && echo no || echo yes) --tp=$tp" \
				"--cp=$cp --ep=$ep $sched --gpus=$gpus --mbs=$mbs --global-batch=$gb" \
				"--framework=nemo $dd|held out"
		done
}

src_torchtitan() {
	# Grand Teton's H100 96GB HBM2e at 500 W: h100-sxm with the published 2.4 TB/s (its peak
	# is not published); micro-batches and chunks torchtitan's defaults (file header)
	rows "$here/torchtitan-h100.txt" |
		while IFS='|' read -r t name l h f a kv V s gpus fsdp tp pp cp lb gb mbs v sched ac \
			comp f8 async tps; do
			s=${s%\?} gb=${gb%\?} mbs=${mbs%\?} v=${v%\?}
			label="T$t $name $gpus GPUs cp $cp"
			[ "$f8" = no ] || label="$label float8"
			[ "$async" = no ] || label="$label asyncTP"
			[ "$sched" != interleaved-1F1B ] || label="$label interleaved"
			if [ "$comp" = no ]; then
				echo "$label|skip|eager mode (no torch.compile): unfused norms and activations, which ppsim does not price"; continue
			fi
			case $ac in selective-op) rc=selective ;; *) rc=$ac ;; esac
			tpo=""; [ "$async" = yes ] && tpo="--tp-overlap=pipelined"
			pipeopt=$(pipe $pp $v); [ "$pp" -gt 1 ] && pipeopt="$pipeopt $(split $l $((pp * v)))"
			meas=$(awk -v B="$gb" -v s="$s" -v t="$tps" -v g="$gpus" \
				'BEGIN { printf "%.4f", B * s / (t * g) }')
			echo "$label|$meas|$(shape $l $h $f $a $kv $V gated) --seq=$s --gpu=h100-sxm" \
				"--memory-bandwidth=2400 --fp8=$f8 --tp=$tp --cp=$cp --cp-comm=allgather" \
				"$pipeopt --gpus=$gpus --mbs=$mbs --global-batch=$gb --recompute=$rc" \
				"--framework=torchtitan $tpo|held out"
		done
}

src_llama3() {
	# TFLOP/s per GPU -> seconds by Megatron-LM's formula with GQA and the gated MLP (the paper
	# gives none); micro-batch 1 ASSUMED; the chunks the file's (a layer each: the first holds
	# the embedding alone and the last the output and the loss, as the paper lays them out)
	rows "$here/llama3-405b-table4.txt" |
		while IFS='|' read -r name l h f a kv V s gpus tp cp pp dp bpd gb mbs v tf mfu; do
			meas=$(awk -v B="$gb" -v s="$s" -v l="$l" -v h="$h" -v f="$f" -v a="$a" -v kv="$kv" \
				-v V="$V" -v g="$gpus" -v r="$tf" 'BEGIN {
				x = 12 * B * s * l * h * h * (1 + kv / a + s / h + 1.5 * f / h + V / (2 * l * h))
				printf "%.4f", x / (g * r * 1e12) }')
			echo "$gpus GPUs seq $s|$meas|$(shape $l $h $f $a $kv $V gated) --seq=$s" \
				"--gpu=h100-sxm --tp=$tp --cp=$cp --cp-comm=allgather $(pipe $pp $v)" \
				"$(split $l $((pp * v))) --gpus=$gpus --mbs=1 --global-batch=$gb" \
				"--framework=megatron --comm=overlap --distributed-optimizer=yes" \
				"--overlap-grad-reduce=yes|held out"
		done
}

src_bloom() {
	# Jean Zay: 4 x 100 Gb/s Omni-Path a node of 8 GPUs, 6.25 GB/s a GPU; stage 0 and 11 five
	# blocks, the rest six; the GBS 192 row's seconds from its hardware TFLOP/s by the README's
	# formula (8 x params x seq x GBS, recompute counted), the parameters from the GBS 2048 row
	rows "$here/deepspeed-bloom-a100.txt" |
		while IFS='|' read -r name l h f a V s tp pp dp gpus gb mbs rc secs sps tf; do
			if [ "$secs" = '?' ]; then
				secs=$(awk -v B="$gb" -v r="$tf" 'BEGIN { n = 149.77 * 104.70 / (8 * 2048)
					printf "%.2f", n * 8 * B / r }')
			fi
			echo "GBS $gb, MBS $mbs|$secs|--model=gpt3-175b --layers=$l --hidden=$h --ffn=$f" \
				"--heads=$a --kv-heads=$a --vocab=$V --mlp=plain --tied-embeddings=yes --seq=$s" \
				"--gpu=a100-80g --inter-bandwidth=6.25 --tp=$tp -p $pp --first-stage-layers=5" \
				"--last-stage-layers=5 --gpus=$gpus --mbs=$mbs --global-batch=$gb" \
				"--recompute=$rc --sequence-parallel=no --framework=deepspeed|held out"
		done
}

# step OPTIONS...: ppsim's step in seconds and its breakdown, "step|compute|bubble|p2p|dp|tp|cp|
# ep|optimizer|other", in seconds
step() {
	"$ppsim" "$@" -f json >"$tmp/out.json" 2>"$tmp/step.err" || {
		echo "ppsim $*: $(cat "$tmp/step.err")" >&2; return 1; }
	echo "$("$jget" "$tmp/out.json" step_time)|$("$jget" "$tmp/out.json" step_breakdown)" |
		awk -F'|' '{ b = $2; gsub(/[{}"]/, "", b); n = split(b, kv, ",")
		for (i = 1; i <= n; i++) { split(kv[i], p, ":"); v[p[1]] = p[2] }
		printf "%.4f|%.4f|%.4f|%.4f|%.4f|%.4f|%.4f|%.4f|%.4f|%.4f\n", $1 / 1e3,
			v["compute"] / 1e3, v["bubble"] / 1e3, v["exposed_p2p"] / 1e3,
			v["exposed_dp"] / 1e3, v["exposed_tp"] / 1e3, v["exposed_cp"] / 1e3,
			v["exposed_ep"] / 1e3, v["optimizer"] / 1e3, v["other"] / 1e3 }'
}

# opt NAME OPTIONS: the value of --NAME= in OPTIONS, else empty
opt() { echo "$2" | tr ' ' '\n' | sed -n "s/^--$1=//p" | tail -1; }

# judge SOURCE: each row of src_SOURCE priced, "label|role|measured|step|compute|...|other|
# moves most|options", or "label|skip|why"
judge() {
	"src_$1" | while IFS='|' read -r label meas opts role; do
		if [ "$meas" = skip ]; then echo "$label|skip|$opts"; continue; fi
		set -- $opts
		base=$(step "$@") || return 1
		# the assumptions: collectives slowing compute, collectives' share of the links, flash
		# attention, tensor-parallel overlap (when there is tensor parallelism with sequence
		# parallelism, which the overlap needs)
		fw=$(opt framework "$opts")
		fa=$(opt flash-attention "$opts")
		[ -n "$fa" ] || fa=$([ "$fw" = deepspeed ] && echo no || echo yes)
		tpo=$(opt tp-overlap "$opts")
		[ -n "$tpo" ] || tpo=$([ "$fw" = nemo ] && echo pipelined || echo none)
		variants="--comm-slowdown=0 --collective-efficiency=1"
		variants="$variants --flash-attention=$([ "$fa" = yes ] && echo no || echo yes)"
		[ "$(opt tp "$opts")" -gt 1 ] && [ "$(opt sequence-parallel "$opts")" != no ] &&
			variants="$variants --tp-overlap=$([ "$tpo" = none ] && echo pipelined || echo none)"
		most=""
		for var in $variants; do
			got=$(step "$@" "$var" | cut -d'|' -f1) || return 1
			most=$(awk -v b="${base%%|*}" -v g="$got" -v var="$var" -v most="$most" 'BEGIN {
				d = (g - b) / b; split(most, m, " ")
				if (most == "" || (d < 0 ? -d : d) > (m[2] < 0 ? -m[2] : m[2]) / 100)
					printf "%s %+.1f", var, 100 * d; else print most }')
		done
		echo "$label|$role|$meas|$base|${most}%|$opts"
	done
}

# new_table SOURCE: judge's rows as a table, the skipped rows listed after it
new_table() {
	judge "$1" >"$tmp/judged" || exit 1
	echo "| run | role | measured s | ppsim s | error | compute | bubble | P2P | DP | TP | CP | EP | optimizer | other | moves most | options |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'|' '$2 != "skip" { e = ($4 - $3) / $3; a += (e < 0 ? -e : e); n++
		o = $15; sub(/^--model=[^ ]* /, "", o)
		printf "| %s | %s | %.2f | %.2f | %+.1f%% |", $1, $2, $3, $4, 100 * e
		for (i = 5; i <= 13; i++) printf " %.2f |", $i
		gsub(/  +/, " ", o); printf " `%s` | `%s` |\n", $14, o }
		END { if (n) printf "| **mean absolute error** | | | | %.1f%% | | | | | | | | | | | |\n", 100 * a / n }' \
		"$tmp/judged"
	if grep -q '|skip|' "$tmp/judged"; then
		echo
		echo "Not priced:"
		echo
		awk -F'|' '$2 == "skip" { printf "- %s: %s\n", $1, $3 }' "$tmp/judged"
	fi
}


# ---- measured peak memory per GPU ----

# Each memory source prints its rows as LABEL|MEASURED GB|DEVICE|FIGURE|OPTIONS, DEVICE the device
# the source reports (a number, or max: the largest), FIGURE what the source measures; or
# LABEL|skip|WHY for a row ppsim cannot state.

src_mem_torchtitan() {
	# max_reserved (GiB) over all GPUs; FSDP2 without PP is ZeRO-3 (not stated by ppsim's options:
	# --bytes-per-param is at least 4); with PP the stage's bf16 weights stay whole, the master
	# weights and Adam's moments are sharded over FSDP (--distributed-optimizer=yes)
	rows "$here/memory-torchtitan-h100.txt" |
		while IFS='|' read -r t name s gpus fsdp tp pp cp lb gb mbs v sched ac comp f8 async gib; do
			s=${s%\?} gb=${gb%\?} mbs=${mbs%\?} v=${v%\?}
			label="T$t $name $gpus GPUs, seq $s, cp $cp"
			[ "$f8" = no ] || label="$label, float8"
			[ "$comp" = no ] && label="$label, eager"
			[ "$async" = no ] || label="$label, asyncTP"
			[ "$sched" != interleaved-1F1B ] || label="$label, interleaved"
			if [ "$pp" -eq 1 ]; then
				echo "$label|skip|FSDP without pipeline parallelism shards weights and gradients too (ZeRO-3), which ppsim does not model"; continue
			fi
			case $ac in selective-op) rc=selective ;; *) rc=$ac ;; esac
			layers=$(ppsim_layers llama3-$(echo "$name" | tr 'B' 'b'))
			echo "$label|$(awk -v g="$gib" 'BEGIN { printf "%.2f", g * 1.073741824 }')|max|reserved" \
				"|--model=llama3-$(echo "$name" | tr 'B' 'b') --seq=$s --gpu=h100-sxm --gpu-memory=96" \
				"--fp8=$f8 --tp=$tp --cp=$cp --cp-comm=allgather $(pipe $pp $v)" \
				"$(split $layers $((pp * v))) --gpus=$gpus --mbs=$mbs --global-batch=$gb" \
				"--recompute=$rc --distributed-optimizer=yes --framework=torchtitan"
		done | sed 's/ *| */|/g'
}

src_mem_mbridge() {
	# rank 0's peak; the counter not stated
	rows "$here/memory-mbridge-llama3-70b.txt" |
		while IFS='|' read -r run tp pp v dp rc gbytes; do
			label="$run: tp $tp, pp $pp, vp $v, dp $dp, recompute $rc"
			if [ "$rc" != core_attn ]; then
				echo "$label|skip|recomputes the MLP or the norms alone, which --recompute does not express"; continue
			fi
			echo "$label|$gbytes|0|not stated|--model=llama3-70b --seq=4096 --gpu=h100-sxm" \
				"--fp8=yes --tp=$tp -p $pp -v $v -s interleaved $(split 80 $((pp * v)))" \
				"--gpus=32 --mbs=1 --global-batch=32 --recompute=selective" \
				"--distributed-optimizer=yes --framework=nemo" | sed 's/|\([^|]*\)$/|\1/'
		done
}

# mem_table: both memory sources' rows priced: the measured GB, ppsim's memory_bytes of the
# device the source reports, and the same with the reserve's fragmentation share (10% of the GPU's
# memory), each with its error; the mean absolute error of each source; the rows not priced
mem_table() {
	echo "| source | run | figure | device | measured GB | ppsim GB | error | ppsim + 10% GB | error | options |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for src in torchtitan mbridge; do
		"src_mem_$src" | while IFS='|' read -r label meas dev fig opts; do
			[ "$meas" = skip ] && continue
			set -- $opts
			"$ppsim" "$@" -f json >"$tmp/out.json" 2>"$tmp/mem.err" || {
				echo "ppsim $*: $(cat "$tmp/mem.err")" >&2; return 1; }
			gpu=$(opt gpu-memory "$opts"); [ -n "$gpu" ] || gpu=80
			got=$("$jget" "$tmp/out.json" devices | tr '}' '\n' |
				sed -n 's/.*"device":\([0-9]*\).*"memory_bytes":\([0-9.e+]*\).*/\1 \2/p' |
				awk -v d="$dev" '{ if (d == "max" ? $2 > m : $1 == d) m = $2 } END { printf "%.2f", m / 1e9 }')
			o=$(echo "$opts" | sed 's/^--model=[^ ]* //; s/  */ /g')
			echo "$src|$label|$fig|$dev|$meas|$got|$gpu|$o"
		done
	done >"$tmp/mem" || exit 1
	awk -F'|' '{ e = ($6 - $5) / $5; r = $6 + 0.1 * $7; f = (r - $5) / $5
		name = $1 == "torchtitan" ? "torchtitan (2024-12)" : "Megatron Bridge PR #3107"
		printf "| %s | %s | %s | %s | %.1f | %.1f | %+.1f%% | %.1f | %+.1f%% | `%s` |\n", name, $2, $3,
			$4 == "max" ? "largest" : "rank " $4, $5, $6, 100 * e, r, 100 * f, $8
		a[$1] += (e < 0 ? -e : e); b[$1] += (f < 0 ? -f : f); n[$1]++ }
		END { for (s in n) printf "| **mean absolute error**, %s | | | | | | %.1f%% | | %.1f%% | |\n",
			s == "torchtitan" ? "torchtitan" : "Megatron Bridge", 100 * a[s] / n[s], 100 * b[s] / n[s] }' \
		"$tmp/mem" | sort -s -t'|' -k2,2 -r | awk '/mean absolute/ { m[++k] = $0; next } { print } END { for (i = 1; i <= k; i++) print m[i] }'
	echo
	echo "Not priced:"
	echo
	for src in torchtitan mbridge; do
		"src_mem_$src" | awk -F'|' '$2 == "skip" { printf "- %s: %s\n", $1, $3 }'
	done
}

case $section in
table5)
	echo "| model | p | m | schedule | paper | ppsim | difference |"
	echo "|---|---|---|---|---|---|---|"
	rows "$here/zb-table5.txt" | while IFS='|' read -r model p m name rate; do
		[ -e "$tmp/$model-$m.json" ] || calibrated "$model" "$m"
		set -- $(sched "$name" "$model" "$p")
		"$ppsim" -c "$tmp/$model-$m.json" -s "$1" -v "$2" -f json >"$tmp/out.json"
		got=$("$jget" "$tmp/out.json" "$3")
		awk -v mo="$model" -v p="$p" -v m="$m" -v s="$name" -v a="$rate" -v b="$got" 'BEGIN {
			d = sprintf("%.4f", b - a); if (d == "-0.0000") d = "0.0000"
			printf "| %s | %s | %s | %s | %.4f | %.4f | %s%s |\n", mo, p, m, s, a, b,
				(d + 0 > 0) ? "+" : "", d }'
	done
	;;
model | model-ranking)
	rows "$here/zb-table4.txt" | while IFS='|' read -r model gpus p mbs m name thr; do
		set -- $(sched "$name" "$model" "$p")
		line="$model|$m|$name|$(awk -v m="$m" -v b="$mbs" -v g="$gpus" -v t="$thr" \
			'BEGIN { printf "%.4f", m * b / (g * t) }')"
		for costs in default uniform; do
			# each schedule sends as its own code does: Megatron-LM's 1F1B and
			# interleaved 1F1B wait for their batched sends, the Zero Bubble
			# schedules send asynchronously
			comm=blocking
			case $name in ZB*) comm=overlap ;; esac
			"$ppsim" $(model_args "$model" "$p" "$name") -p "$p" -m "$m" -s "$1" -v "$2" \
				--comm=$comm $(eval echo \$$costs) -f json >"$tmp/out.json"
			line="$line|$("$jget" "$tmp/out.json" makespan)"
		done
		echo "$line"
	done >"$tmp/model"
	if [ "$section" = model-ranking ]; then
		ranked "$tmp/model" 5 "default"
		echo
		ranked "$tmp/model" 6 "uniform"
		exit 0
	fi
	echo "| model | m | schedule | measured s | ppsim s (default) | error | ppsim s (uniform) | error |"
	echo "|---|---|---|---|---|---|---|---|"
	errors 3 3 <"$tmp/model"
	;;
korthikanti)
	echo "| model | recompute | measured s | ppsim s (default) | error | ppsim s (uniform) | error |"
	echo "|---|---|---|---|---|---|---|"
	rows "$here/korthikanti-table5.txt" |
		while IFS='|' read -r model layers h a tp p v gpus batch mbs recompute secs; do
			# the paper's present work is selective recomputation with sequence
			# parallelism; its full-recompute baseline has neither
			sp=$([ "$recompute" = selective ] && echo yes || echo no)
			echo "$model|$recompute|$secs|$(gpt_step "$layers" "$h" "$a" "$tp" "$p" "$v" \
				"$gpus" "$mbs" $((batch / mbs)) "$recompute" $sp default)|$(gpt_step \
				"$layers" "$h" "$a" "$tp" "$p" "$v" "$gpus" "$mbs" $((batch / mbs)) \
				"$recompute" $sp uniform)"
		done | errors 2 2
	;;
narayanan)
	echo "| parameters | GPUs | measured s | ppsim s (default) | error | ppsim s (uniform) | error |"
	echo "|---|---|---|---|---|---|---|"
	rows "$here/narayanan-table1.txt" |
		while IFS='|' read -r size layers h a tp p v gpus batch mbs tflops; do
			m=$((batch / (mbs * gpus / (tp * p))))
			# the measured iteration: the paper's FLOPs over the GPUs at its rate
			echo "${size}B|$gpus|$(awk -v B="$batch" -v l="$layers" -v h="$h" -v g="$gpus" \
				-v r="$tflops" 'BEGIN { s = 2048; V = 51200
				f = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))
				printf "%.4f", f / (g * r * 1e12) }')|$(gpt_step "$layers" "$h" "$a" "$tp" \
				"$p" "$v" "$gpus" "$mbs" $m full no default)|$(gpt_step "$layers" "$h" "$a" \
				"$tp" "$p" "$v" "$gpus" "$mbs" $m full no uniform)"
		done | errors 2 2
	;;
table4 | ranking)
	rows "$here/zb-table4.txt" | while IFS='|' read -r model gpus p mbs m name thr; do
		[ -e "$tmp/$model-$m.json" ] || calibrated "$model" "$m"
		set -- $(sched "$name" "$model" "$p")
		line="$model|$m|$name|$(awk -v m="$m" -v b="$mbs" -v g="$gpus" -v t="$thr" \
			'BEGIN { printf "%.4f", m * b / (g * t) }')"
		for comm in overlap blocking; do
			"$ppsim" -c "$tmp/$model-$m.json" -s "$1" -v "$2" --comm=$comm -f json \
				>"$tmp/out.json"
			line="$line|$("$jget" "$tmp/out.json" makespan)"
		done
		echo "$line"
	done >"$tmp/t4"
	if [ "$section" = ranking ]; then
		ranked "$tmp/t4" 6 "ppsim"
		exit 0
	fi
	echo "| model | m | schedule | measured s | ppsim s (overlap) | error | ppsim s (blocking) | error |"
	echo "|---|---|---|---|---|---|---|---|"
	errors 3 3 <"$tmp/t4"
	;;
megatron | nemo | mbridge | torchtitan | llama3 | bloom | mbridge_moe | modelzoo | overlap | deepseek)
	new_table "$section"
	# the archive's mean absolute error model by model (the third word of a row's label)
	[ "$section" != mbridge_moe ] || awk -F'|' '$2 != "skip" { split($1, w, " ")
		m = w[3]; sub(/(tokendrop|dropless|w\/o?MTP)$/, "", m); e = ($4 - $3) / $3
		a[m] += e < 0 ? -e : e; n[m]++; if (!(m in seen)) { seen[m] = 1; order[++k] = m } }
		END { printf "\nMean absolute error by model:"
		for (i = 1; i <= k; i++) printf "%s %s %.1f%% (%d rows)", (i > 1 ? "," : ""), order[i],
			100 * a[order[i]] / n[order[i]], n[order[i]]
		print "." }' "$tmp/judged"
	;;
memory)
	mem_table
	;;
summary)
	# each new source's mean absolute error, the fitted rows apart
	echo "| source | GPU | role | rows priced | rows not priced | mean absolute error |"
	echo "|---|---|---|---|---|---|"
	for src in megatron nemo mbridge torchtitan llama3 bloom mbridge_moe modelzoo overlap deepseek; do
		"src_$src" >"$tmp/rows"
		while IFS='|' read -r label meas opts role; do
			[ "$meas" = skip ] && continue
			set -- $opts
			echo "$label|$role|$meas|$(step "$@")"
		done <"$tmp/rows" >"$tmp/judged" || exit 1
		skipped=$(grep -c '|skip|' "$tmp/rows" || true)
		awk -F'|' -v src="$src" -v sk="$skipped" '{ e = ($4 - $3) / $3; e = e < 0 ? -e : e
			a[$2] += e; n[$2]++; if (!($2 in first)) { first[$2] = 1; order[++k] = $2 } }
			END { name["megatron"] = "Megatron-LM H100 scaling (2024)"
			gpu["megatron"] = "H100"; name["nemo"] = "NeMo 24.07 (FP8)"; gpu["nemo"] = "H100"
			name["mbridge"] = "Megatron Bridge archive (FP8)"; gpu["mbridge"] = "H100, B200, GB200"
			name["torchtitan"] = "torchtitan (2024-12)"; gpu["torchtitan"] = "H100 96GB, 500 W"
			name["llama3"] = "Llama 3 405B, Table 4"; gpu["llama3"] = "H100"
			name["mbridge_moe"] = "Megatron Bridge archive, MoE"
			gpu["mbridge_moe"] = "H100, B200, GB200"
			name["modelzoo"] = "Megatron MoE Model Zoo (H100 table)"; gpu["modelzoo"] = "H100"
			name["overlap"] = "Megatron Bridge, all-to-all overlap on and off"
			gpu["overlap"] = "H100"
			name["deepseek"] = "DeepSeek-V3, ISCA 2025 Table 4"; gpu["deepseek"] = "H800"
			name["bloom"] = "BLOOM 176B (Megatron-DeepSpeed)"; gpu["bloom"] = "A100"
			for (i = 1; i <= k; i++) { r = order[i]
				printf "| %s | %s | %s | %d | %s | %.1f%% |\n", name[src], gpu[src], r, n[r],
					i == 1 ? sk : "", 100 * a[r] / n[r] } }' "$tmp/judged"
	done
	;;
*)
	echo "usage: $0 PPSIM JGET table5|table4|ranking|model|model-ranking|korthikanti|narayanan|megatron|nemo|mbridge|torchtitan|llama3|bloom|mbridge_moe|modelzoo|overlap|deepseek|summary|memory" >&2
	exit 2
	;;
esac
