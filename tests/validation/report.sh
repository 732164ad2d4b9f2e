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
# al. 2021's, the same way).
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
			"$ppsim" $(model_args "$model" "$p" "$name") -p "$p" -m "$m" -s "$1" -v "$2" \
				--comm=blocking $(eval echo \$$costs) -f json >"$tmp/out.json"
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
*)
	echo "usage: $0 PPSIM JGET table5|table4|ranking|model|model-ranking|korthikanti|narayanan" >&2
	exit 2
	;;
esac
