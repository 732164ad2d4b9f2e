# The tables decide: an option a command does not take is refused alike by every command
# (from the command line or a config file), --format picks a writer from the registry or is
# refused naming the formats of that command, and compare and sweep read --schedules alike.

# options of the other kind of run
fails 2 "--rate '5': a serving option: use ppsim serve" sweep --rate=5
fails 2 "--rate '5': a serving option: use ppsim serve" sweep -p 2,4 --rate=5,6
fails 2 "--rate '5': a serving option: use ppsim serve" \
	advise --model llama3-8b --gpus 8 --global-batch 64 --rate=5
fails 2 "--rate '5': a serving option: use ppsim serve" breakeven --rate=5
fails 2 "--rate '5': a serving option: use ppsim serve" run --rate=5
fails 2 "--microbatches '4': a training option, not for ppsim serve" serve -m 4
printf '{\n  "batching": "static"\n}\n' >"$TMP/serving.json"
fails 3 "serving.json':2:3: key \"batching\" = static: a serving option: use ppsim serve" \
	sweep -c "$TMP/serving.json" -p 2,4
fails 2 "breakeven compares 1f1b with interleaved itself" breakeven -s gpipe

# formats: a format of another kind of result is refused naming this command's
fails 2 "--format 'jsonl': serve writes text, json or csv" serve --format=jsonl
fails 2 "--format 'jsonl': compare writes text, json or csv" compare --schedules=1f1b,gpipe -f jsonl
fails 2 "--format 'jsonl': unknown format" run -f jsonl
fails 2 "--format 'jsonl': advise writes text or json" \
	advise --model llama3-8b --gpus 8 --global-batch 64 -f jsonl
fails 2 "--format 'jsonl': breakeven writes text or json" breakeven -f jsonl
fails 2 "--format 'yaml': a sweep writes text, jsonl or csv" sweep -f yaml
# every format a command lists writes its kind of result
for f in text json csv; do
	if ppsim serve --num-requests 4 -f $f >"$TMP/serve.$f" 2>"$TMP/err" && [ -s "$TMP/serve.$f" ]; then
		ok
	else
		not_ok "serve -f $f: $(head -c 200 "$TMP/err")"
	fi
done
for f in text jsonl csv; do
	if ppsim sweep -p 2,4 -f $f >"$TMP/sweep.$f" 2>"$TMP/err" && [ -s "$TMP/sweep.$f" ]; then
		ok
	else
		not_ok "sweep -f $f: $(head -c 200 "$TMP/err")"
	fi
done

# list: text (the default) and json from the same tables, a row per table row; other formats
# refused naming the two
fails 2 "--format 'csv': list writes text or json" list --format=csv
fails 2 "--format 'jsonl': list writes text or json" list -f jsonl
fails 2 "option '--format' needs a value" list --format
if [ "$(ppsim list -fjson)" = "$(ppsim list --form=json)" ] &&
	[ "$(ppsim list -fjson)" = "$(ppsim list --format json)" ]; then ok; else
	not_ok "list -fjson and --form=json: not list --format json"
fi
fails 2 "list: unexpected argument 'x'" list x
ppsim list --format=json >"$TMP/out.json"
RUN="ppsim list --format=json"
expect schedules.0.name gpipe
expect schedules.0.torch GPipe
expect schedules.2.placement loop
expect batching.3.name disaggregated
expect formats.1.name json
for pair in Schedules:schedules Models:models GPUs:gpus Links:links Batching:batching \
	Report:formats; do
	table=${pair%%:*} key=${pair#*:}
	rows=$(ppsim list | sed -n "/^$table/,/^\$/p" | grep -c '^  ')
	if [ "$("$JGET" "$TMP/out.json" "$key.$((rows - 1)).name")" != "" ] &&
		! "$JGET" "$TMP/out.json" "$key.$rows" >/dev/null 2>&1; then ok; else
		not_ok "list --format=json: $key does not have the $rows rows of the text listing"
	fi
done
if [ "$("$JGET" "$TMP/out.json" schedules.5.torch)" = null ]; then ok; else
	not_ok "list --format=json: a schedule without a PyTorch name is not null"
fi

# one list parser: compare refuses what sweep refuses
fails 2 "--schedules '1f1b,,gpipe': an empty value in the list" compare --schedules=1f1b,,gpipe
fails 2 "--schedules '1f1b,,gpipe': an empty value in the list" sweep --schedules=1f1b,,gpipe
fails 2 "--schedules ',1f1b': an empty value in the list" compare --schedules=,1f1b
fails 2 "unknown schedule 'foo'" compare --schedules=gpipe,foo
if ppsim compare --schedules=all -f csv >"$TMP/all.csv" 2>"$TMP/err" &&
	[ "$(($(wc -l <"$TMP/all.csv") - 1))" -eq "$(ppsim list | sed -n '/^Schedules/,/^$/p' |
		grep -c '^  ')" ]; then
	ok
else
	not_ok "compare --schedules=all: not one row per schedule: $(head -c 200 "$TMP/err")"
fi

# help and completion name each command's formats from the registry
for want in "run:text, json, csv" "sweep:text, jsonl, csv" "advise:text, json" \
	"breakeven:text, json" "partition:text, json" "serve:text, json, csv" "compare:text, json, csv"; do
	cmd=${want%%:*}
	if ppsim "$cmd" --help |
		grep -q -- "--format=FMT  *report format (default text): ${want#*:}$"; then
		ok
	else
		not_ok "$cmd --help: the --format line does not list its formats (${want#*:})"
	fi
done
if ppsim completion bash | grep -q 'advise|partition|breakeven|validate|replay|list) COMPREPLY=($(compgen -P "$eq" -W "text json"'; then
	ok
else
	not_ok "completion: no --format branch for advise, partition, breakeven, validate, replay and list"
fi

# no line of a text report ends in blanks (a last cell padded to its width, an empty mark);
# unwrapped, as these runs are checked under valgrind elsewhere
for args in "-p 4 -m 8" "compare --schedules=all -p 4 -m 8 -v 2" "sweep -s 1f1b,zbh1 -p 2,4" \
	"advise --model=llama3-8b --gpus=8 --global-batch=64" "breakeven -p 4" \
	"serve -p 4 --model=llama3-8b" "list" "-s interleaved -p 4 -m 8 -v 2 --timeline" \
	"compare --schedules=gpipe,1f1b,zbh1 --model=llama3-70b -p 4 -m 16 --tp=8"; do
	n=$("$PPSIM" $args | grep -c ' $')
	[ "$n" -eq 0 ] && ok || not_ok "ppsim $args: $n lines end in a blank"
done

# compare's rows share a time unit: a row priced from a model (ms) and one in units (t) do not
printf '{\n  "model": "llama3-8b"\n}\n' >"$TMP/in-ms.json"
printf '{\n  "p": 4\n}\n' >"$TMP/in-t.json"
fails 2 "compare: rows mix time units ('ms' and 't'); give every row a model, or a link, or neither" \
	compare "$TMP/in-ms.json" "$TMP/in-t.json"
printf '{\n  "model": "llama3-8b",\n  "batching": "static"\n}\n' >"$TMP/serve-ms.json"
printf '{\n  "batching": "static"\n}\n' >"$TMP/serve-t.json"
fails 2 "compare: rows mix time units ('ms' and 't')" compare "$TMP/serve-ms.json" "$TMP/serve-t.json"
