# Each command's --help is its own: its usage line, the options it takes and no others (the
# same as the completion script offers it), its exit statuses, an example that runs, every line
# within 80 columns.

cmds=$(ppsim --help | sed -n 's/^ *\(Usage:\)\{0,1\} *ppsim \([a-z][a-z]*\).*/\2/p' | sort -u)
[ "$(echo "$cmds" | wc -l)" -ge 9 ] && ok || not_ok "--help: only $(echo $cmds) in its usage lines"
: >"$TMP/help.sums"
# replay's example reads a measured step: the trace a run writes with PyTorch's range names
ppsim --trace-names=torch --trace="$TMP/trace.json" >/dev/null 2>&1 || not_ok "no trace for replay's example"
# merge's example joins shard files, which a sweep writes first where the examples run
for k in 1 2; do
	(cd "$TMP" && ppsim sweep -p 2,4 -m 8,16 --shard=$k/2 --shard-file=shard-$k.pps >/dev/null)
done
# validate's checks a schedule file, which a run exports; calibrate's reads measured op times
(cd "$TMP" && ppsim -s zbh1 -p 4 -m 8 --export-schedule=schedule.csv >/dev/null) ||
	not_ok "no schedule file for validate's example"
printf 'stage,op,ms\n0,F,1\n0,B,1\n0,W,0.5\n1,F,1.1\n1,B,1\n1,W,0.5\n' >"$TMP/measured.csv"
for cmd in "" run $cmds; do
	label=${cmd:-ppsim}
	if ! ppsim $cmd --help >"$TMP/help.out" 2>"$TMP/help.err" || [ -s "$TMP/help.err" ]; then
		not_ok "$label --help: failed or wrote to stderr: $(head -c 200 "$TMP/help.err")"
		continue
	fi
	wide=$(awk 'length > 80 { n++ } END { print n + 0 }' "$TMP/help.out")
	[ "$wide" -eq 0 ] && ok || not_ok "$label --help: $wide lines wider than 80 columns"
	first=$(head -n 1 "$TMP/help.out")
	case $first in
	"Usage: ppsim ${cmd:-[run]}"*) ok ;;
	*) not_ok "$label --help opens with '$first'" ;;
	esac
	echo "$(cksum <"$TMP/help.out") $label" >>"$TMP/help.sums"
	# it ends with a paragraph of its exit statuses and its example, which runs (unwrapped: the
	# commands' runs are checked under valgrind elsewhere)
	case $(awk 'NF == 0 { p = ""; next } p == "" { p = $0 } END { print p }' "$TMP/help.out") in
	"Exit status: 0 "*) ok ;;
	*) not_ok "$label --help: its last paragraph does not give its exit statuses" ;;
	esac
	example=$(tail -n 1 "$TMP/help.out" | sed -n 's/^Example: ppsim //p')
	if [ -z "$example" ]; then
		not_ok "$label --help: no example on its last line"
	elif (cd "$TMP" && "$PPSIM" $example >/dev/null 2>"$TMP/ex.err"); then
		ok
	else
		not_ok "$label --help: its example 'ppsim $example' fails: $(head -c 300 "$TMP/ex.err")"
	fi
	# the options it lists are the ones completion offers for it (the commands whose help is an
	# option table; validate, list and calibrate describe theirs in prose)
	[ -n "$cmd" ] && grep -q '^Input and output:' "$TMP/help.out" || continue
	ppsim completion bash | sed -n "s/^[[:space:]]*$cmd) COMPREPLY=(\$(compgen -W \"\([^\"]*\)\".*/\1/p" |
		tr ' ' '\n' | grep -- '^--' | sort -u >"$TMP/want.opts"
	[ -s "$TMP/want.opts" ] || continue
	grep -o -- '^  \(-[a-z], \|    \)--[a-z][a-z0-9-]*' "$TMP/help.out" | sed 's/.*--/--/' |
		sort -u >"$TMP/got.opts"
	if diff "$TMP/want.opts" "$TMP/got.opts" >"$TMP/opts.diff"; then ok; else
		not_ok "$cmd --help: its options differ from completion's (< completion, > help):"
		head -20 "$TMP/opts.diff"
	fi
done
# no two commands print the same help
dup=$(cut -d' ' -f1,2 "$TMP/help.sums" | sort | uniq -d)
[ -z "$dup" ] && ok || not_ok "commands print the same --help: $(cat "$TMP/help.sums")"
# run's options are not a sweep's and the other way round
ppsim run --help | grep -q -- '--fits' && not_ok "run --help lists --fits" || ok
ppsim sweep --help | grep -q -- '--jobs=N' && ok || not_ok "sweep --help lacks --jobs"
ppsim serve --help | grep -q -- '--microbatches' && not_ok "serve --help lists -m" || ok
ppsim run --help | grep -q -- '--rate' && not_ok "run --help lists serve's --rate" || ok
# docs/config.md's rows that say "`CMD` only" name the one command whose --help lists the option
for cmd in run compare sweep advise breakeven serve replay; do
	ppsim $cmd --help | grep -o -- '^  \(-[a-z], \|    \)--[a-z][a-z0-9-]*' | sed 's/.*--/--/' |
		sed "s/\$/ $cmd/"
done | sort >"$TMP/opt.cmds"
grep -o '^| `\(-[a-z]`, `\)\{0,1\}--[a-z][a-z0-9-]*[^|]*|[^|]*|[^|]*|[^|]*| `[a-z]*` only' \
	"$ROOT/docs/config.md" | sed 's/^| `\(-[a-z]`, `\)\{0,1\}\(--[a-z][a-z0-9-]*\).*| `\([a-z]*\)` only$/\2 \3/' \
	>"$TMP/only.rows"
[ -s "$TMP/only.rows" ] || not_ok "docs/config.md: no row says '\`CMD\` only'"
while read -r opt cmd; do
	takers=$(awk -v o="$opt" '$1 == o { printf "%s ", $2 }' "$TMP/opt.cmds")
	[ "$takers" = "$cmd " ] && ok ||
		not_ok "docs/config.md says $opt is for $cmd only; --help lists it for: $takers"
done <"$TMP/only.rows"

# replay's help gives the defaults it takes from the measured step, not a run's (-m's 8)
ppsim replay --help >"$TMP/replay-help.txt"
if grep -q -- "-m, --microbatches=N       micro-batches per step m (default: the measured" \
	"$TMP/replay-help.txt" && ! grep -q "(default 8)" "$TMP/replay-help.txt" &&
	! grep -q "message (default 0)" "$TMP/replay-help.txt"; then
	ok
else
	not_ok "replay --help: $(grep -E 'microbatches=|tcomm=' "$TMP/replay-help.txt")"
fi
