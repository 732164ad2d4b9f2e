# Layouts on the command line (docs/cost-model.md, Layouts): --layout runs a Megatron-LM layout
# string, the report writes a run's split back as Megatron's and torchtitan's settings, uneven
# layer counts split by --layer-split, and the layouts the cost model cannot price are refused.

# The report's layout reads back as the same stages: its Megatron string run as --layout gives
# the same layers per stage and the same step.
for args in "--layers=43 -s interleaved -p 8 -v 2" "--layers=61 -p 8" "--layers=78 -p 16" \
	"--layers=126 -s interleaved -p 8 -v 2" "--layers=61 -p 8 --first-stage-layers=5 --last-stage-layers=4" \
	"--layers=43 -s interleaved -p 4 -v 2 --layer-split=torchtitan"; do
	# shellcheck disable=SC2086 # the arguments are meant to split on spaces
	ppsim --model=llama3-8b $args -f json >"$TMP/a.json"
	layout=$("$JGET" "$TMP/a.json" model.layout.megatron | tr -d '"')
	args2=$(echo "$args" | sed 's/--first-stage-layers=[0-9]*//; s/--last-stage-layers=[0-9]*//; s/--layer-split=[a-z]*//')
	# shellcheck disable=SC2086
	ppsim --model=llama3-8b $args2 --layout="$layout" -f json >"$TMP/b.json"
	if [ "$("$JGET" "$TMP/a.json" makespan)" = "$("$JGET" "$TMP/b.json" makespan)" ] &&
		[ "$("$JGET" "$TMP/b.json" model.layout.megatron | tr -d '"')" = "$layout" ]; then ok; else
		not_ok "ppsim $args: --layout='$layout' does not give the same run"
	fi
done

# Megatron's flags say the same where they can: 80 layers over 4 ranks and v = 2 with 7 on
# rank 0's chunks and 11 on the others'.
ppsim --model=llama3-70b -s interleaved -p 4 -v 2 --layout='Et*7|(t*11|)*3,t*7|(t*11|)*2,t*11L' \
	-f json >"$TMP/out.json"
RUN="--layout with rank 0 lighter"
expect model.layout.megatron_flags \
	'--decoder-first-pipeline-num-layers 14 --num-virtual-stages-per-pipeline-rank 2'
# torchtitan's own split never gives it: its module names per stage, rank 0's first
case $("$JGET" "$TMP/out.json" model.layout.torchtitan) in
'module_fqns_per_model_part = [["tok_embeddings", "layers.0", '*'"layers.6"], ["layers.7", '*) ok ;;
*) not_ok "$RUN: torchtitan's settings are not the module names per stage" ;;
esac

# More virtual stages than a layout holds (1024): the run goes on, its layout not written (null in
# JSON, a line that says why), and valgrind finds nothing (the layout's stages were once copied
# past its end).
ppsim --model=llama3-8b -p 2048 -m 1 -f json >"$TMP/out.json"
RUN="p = 2048"
expect model.layout.megatron null
expect model.layout.torchtitan null
if ppsim --model=llama3-8b -s interleaved -p 256 -v 8 -m 256 |
	grep -q '^layout  *not written: 2048 virtual stages, more than the 1024 a layout holds$'; then
	ok
else
	not_ok "p x v = 2048: the text report should say why its layout is not written"
fi

# Refusals: one line, exit 2.
fails 2 "--layout 'E|t*40 |t*40|L': ' ' is not a layer" --model llama3-70b --layout 'E|t*40 |t*40|L'
fails 2 "'(' is not a layer" --model llama3-70b --layout 'E|((t|)*2)*2|L'
fails 2 "the embedding (E) must be the first layer" --model llama3-70b --layout 't|Et*80|L'
fails 2 "the loss (L) must be the last layer" --model llama3-70b --layout 'E|t*80|L|t'
fails 2 "gives 5 stages, the pipeline has p x v = 4" --model llama3-70b --layout 'E|t*40|t*40|L|'
fails 2 "has 79 decoder layers (t), the model 80" --model llama3-70b --layout 'E|t*40|t*39|L'
fails 2 "puts the embedding (E) on stage 1" --model llama3-70b --layout '|Et*40|t*40|L'
fails 2 "puts the loss (L) on stage 2" --model llama3-70b --layout 'Et*40|t*40|L|'
fails 2 "not both" --model llama3-70b --layout 'E|t*40|t*40|L' --first-stage-layers 1
fails 2 "--layout 'E|t|t|L': needs a model" --layout 'E|t|t|L'
fails 2 "torchtitan's split" --model llama3-8b --layers 5 -p 8 --layer-split torchtitan
