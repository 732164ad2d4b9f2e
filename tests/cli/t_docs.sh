# Documentation stays true: every ppsim command (or `sh examples/NAME.sh`) shown in README.md
# and docs/*.md runs and prints what the docs show ("..." lines stand for omitted lines);
# README's inline `ppsim ...` commands have golden outputs; the man page lists exactly the options of --help and names every schedule.
# Set-up commands (make ...) go in ```bash blocks, which are not run.

# Extracts the documented commands as cases $TMP/doc/K.{src,cmd,want,status}:
# - each line of a ```sh block is a command that exits 0; when the block holds one command and
#   a ```text block follows, that block is its standard output;
# - in a ```text block, a line "$ ppsim ..." is a command whose output (stdout and stderr) is
#   the lines after it, up to the next "$ " line or a line "(exit status N)" giving its status.
rm -rf "$TMP/doc"
mkdir -p "$TMP/doc"
awk -v dir="$TMP/doc" '
	function start(cmd) {
		k++; base = dir "/" k
		print FILENAME > (base ".src"); print cmd > (base ".cmd"); print 0 > (base ".status")
		close(base ".src"); close(base ".cmd"); close(base ".status")
	}
	FNR == 1 { fence = ""; last = "" }
	/^```sh$/ { fence = "sh"; first = k + 1; next }
	/^```text$/ {
		fence = "text"; cur = ""
		if (last == "sh" && k == first) { cur = dir "/" k ".want"; printf "" > cur }
		next
	}
	/^```/ {
		if (fence == "") { fence = "other"; next }
		if (cur != "") close(cur)
		last = fence; fence = ""; cur = ""; next
	}
	fence == "sh" { start($0); next }
	fence == "text" && /^\$ / { start(substr($0, 3)); cur = dir "/" k ".want"; printf "" > cur
		next }
	fence == "text" && /^\(exit status [0-9]+\)$/ && cur != "" {
		st = $0; gsub(/[^0-9]/, "", st); print st > (dir "/" k ".status"); close(dir "/" k ".status")
		close(cur); cur = ""; next
	}
	fence == "text" && cur != "" { print > cur; next }
	NF > 0 && fence == "" { last = "" }
' "$ROOT/README.md" "$ROOT"/docs/*.md

# matches WANT GOT: GOT equals WANT, where each "..." line of WANT stands for any lines.
matches() {
	awk '
		NR == FNR { want[++w] = $0; next }
		{ got[++g] = $0 }
		END {
			i = 1; j = 1
			while (i <= w) {
				if (want[i] == "...") {
					i++
					if (i > w) exit 0
					# the last segment is anchored at the end of the output
					last = 1
					for (k = i; k <= w; k++) if (want[k] == "...") last = 0
					if (last) { j = g - (w - i); if (j < 1) exit 1; continue }
					while (j <= g && got[j] != want[i]) j++
					if (j > g) exit 1
					continue
				}
				if (j > g || got[j] != want[i]) exit 1
				i++; j++
			}
			exit (j > g) ? 0 : 1
		}' "$1" "$2"
}

# documented commands run in $TMP and name the tree's files as from its top
for d in configs docs examples tests; do ln -sfn "$ROOT/$d" "$TMP/$d"; done
# examples run ppsim through PPSIM: a wrapper keeps PPSIM_WRAP (valgrind) in force
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${PPSIM_WRAP:-}" "$PPSIM" >"$TMP/ppsim-docs"
chmod +x "$TMP/ppsim-docs"
# the pages' commands all run and are all checked (under make valgrind, a sample of them wrapped),
# in the order the pages show them (a command may read a file an earlier one wrote)
for cmd in $(cd "$TMP/doc" && ls -- *.cmd 2>/dev/null | sort -n | sed "s|^|$TMP/doc/|"); do
	[ -e "$cmd" ] || continue
	base=${cmd%.cmd}
	src=$(basename "$(cat "$base.src")")
	line=$(cat "$cmd")
	want_status=$(cat "$base.status")
	case $line in
	"ppsim "*)
		# shellcheck disable=SC2086 # doc commands are plain words
		set -- ${line#ppsim }
		(cd "$TMP" && ppsim "$@") >"$TMP/doc.out" 2>"$TMP/doc.err" </dev/null
		status=$?
		;;
	"sh examples/"*.sh)
		# an example script, run as its header says: from the root, PPSIM naming ppsim
		(cd "$ROOT" && PPSIM="$TMP/ppsim-docs" sh "${line#sh }") >"$TMP/doc.out" \
			2>"$TMP/doc.err" </dev/null
		status=$?
		;;
	*) not_ok "$src: documented command is not a ppsim command or example: $line"; continue ;;
	esac
	if [ "$want_status" -ne 0 ]; then
		cat "$TMP/doc.err" >>"$TMP/doc.out"
	elif [ -s "$TMP/doc.err" ]; then
		status=-1
	fi
	if [ "$status" -ne "$want_status" ]; then
		not_ok "$src: '$line' exited $status, the doc says $want_status: $(head -c 200 "$TMP/doc.err")"
	elif [ -e "$base.want" ] && ! matches "$base.want" "$TMP/doc.out"; then
		not_ok "$src: '$line' prints something else than the doc shows"
		diff "$base.want" "$TMP/doc.out" | head -20
	else
		ok
	fi
done

# README's inline `ppsim ...` commands have golden outputs (tests/cli/golden.txt), which
# t_golden.sh checks byte for byte.
grep -o '`ppsim [^`]*`' "$ROOT/README.md" | tr -d '`' >"$TMP/readme.cmds"
table "$ROOT/tests/cli/golden.txt" | sed 's/^[^|]*|[[:space:]]*//; s/[[:space:]]*$//' >"$TMP/golden.args"
while IFS= read -r line; do
	if grep -qxF -- "${line#ppsim }" "$TMP/golden.args"; then
		ok
	else
		not_ok "README.md: '$line' has no golden output in tests/cli/golden.txt"
	fi
done <"$TMP/readme.cmds"

# The man page's OPTIONS section and the commands' --help name the same long options.
for cmd in "" run compare sweep advise breakeven serve calibrate replay list; do
	ppsim $cmd --help
done | grep -o -- '--[a-z][a-z-]*' | sort -u >"$TMP/help.opts"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$ROOT/docs/ppsim.1" | grep -o '\\-\\-[a-z][a-z-]*' |
	sed 's/\\-\\-/--/' | sort -u >"$TMP/man.opts"
if diff "$TMP/help.opts" "$TMP/man.opts" >"$TMP/opts.diff"; then
	ok
else
	not_ok "docs/ppsim.1 OPTIONS and --help differ (< help, > man):"
	cat "$TMP/opts.diff"
fi
# docs/config.md, the configuration reference, has a row for every option of --help (the unit
# tests check the config-file keys of those rows).
missing=
for opt in $(cat "$TMP/help.opts"); do
	grep -q -- "| \`$opt\|, \`$opt" "$ROOT/docs/config.md" || missing="$missing $opt"
done
if [ -z "$missing" ]; then ok; else not_ok "docs/config.md has no row for:$missing"; fi
# The man page gives the rule for a setting's config-file key (its long option with _ for -)
# and names each option whose key breaks it, as config.md's rows give them.
sed -n 's/^| [^|]*`\(--[a-z][a-z0-9-]*\)[^|]*| `\([a-z][a-z0-9_]*\)` |.*/\1 \2/p' "$ROOT/docs/config.md" |
	while read -r opt key; do
		[ "$(printf '%s' "${opt#--}" | tr - _)" = "$key" ] || printf '%s %s\n' "$opt" "$key"
	done >"$TMP/key.exceptions"
rule=$(sed -n "/A setting's key is its long option/,/lists every key/p" "$ROOT/docs/ppsim.1" |
	sed 's/\\-/-/g')
missing=
# the option by its whole name, and after it its key as a word of the parenthesised list
flat=$(printf '%s' "$rule" | tr '\n' ' ')
while read -r opt key; do
	printf '%s\n' "$flat" | grep -Eq -- "(^|[ (])$opt([ ,.;)]|\$).*[( ]$key[ ,)]" ||
		missing="$missing $opt ($key)"
done <"$TMP/key.exceptions"
if [ -n "$rule" ] && [ -z "$missing" ] && [ -s "$TMP/key.exceptions" ]; then ok; else
	not_ok "docs/ppsim.1's rule for config keys does not name:${missing:- (no rule or no exceptions found)}"
fi
# ... and the man page's SYNOPSIS and COMMANDS name every command of the usage lines.
ppsim --help | sed -n 's/^ *\(Usage:\)\{0,1\} *ppsim \([a-z][a-z]*\).*/\2/p' | sort -u \
	>"$TMP/help.cmds"
sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$ROOT/docs/ppsim.1" |
	sed -n 's/^\.B ppsim \([a-z][a-z]*\).*/\1/p' | sort -u >"$TMP/man.cmds"
for cmd in $(cat "$TMP/help.cmds"); do
	if grep -qx "$cmd" "$TMP/man.cmds" &&
		sed -n '/^\.SH COMMANDS/,/^\.SH OPTIONS/p' "$ROOT/docs/ppsim.1" | grep -q "$cmd"; then
		ok
	else
		not_ok "command $cmd of --help is missing from docs/ppsim.1's SYNOPSIS or COMMANDS"
	fi
done
if [ "$(wc -l <"$TMP/help.cmds")" -ge 8 ]; then ok; else
	not_ok "found only $(wc -l <"$TMP/help.cmds") commands in --help's usage lines"
fi
# A generated page says so on its first line, naming its template, so that nobody edits it.
for in in "$ROOT"/docs/src/*.in; do
	name=$(basename "$in" .in)
	case $name in README.md) out=$ROOT/README.md ;; *) out=$ROOT/docs/$name ;; esac
	want="<!-- Generated from docs/src/$name.in by make docs: edit that file, not this one. -->"
	if [ "$(head -n 1 "$out")" = "$want" ]; then ok; else
		not_ok "$out does not open with: $want"
	fi
done
ppsim list | sed -n '/^Schedules/,/^$/p' | awk '/^  / { print $1 }' >"$TMP/schedules"
while IFS= read -r s; do
	if grep -q -- "$s" "$ROOT/docs/ppsim.1" && grep -q -- "$s" "$ROOT/docs/schedules.md"; then
		ok
	else
		not_ok "schedule $s is missing from docs/ppsim.1 or docs/schedules.md"
	fi
done <"$TMP/schedules"

# Every relative link of README.md and docs/*.md names a file that exists and, after "#", a
# heading of that file (GitHub's anchors: lower case, ASCII punctuation but "-" and "_" dropped,
# spaces made "-").
anchors() {
	awk '
		/^```/ { code = !code; next }
		!code && /^#+ / {
			h = tolower($0); sub(/^#+ +/, "", h); out = ""
			for (i = 1; i <= length(h); i++) {
				c = substr(h, i, 1)
				if (c == " ") out = out "-"
				else if (index("!\"#$%&'\''()*+,./:;<=>?@[\\]^`{|}~", c) == 0) out = out c
			}
			print out
		}' "$1"
}
for doc in "$ROOT/README.md" "$ROOT"/docs/*.md; do
	dir=$(dirname "$doc")
	grep -o '](\([^)#: ]*\)\(#[^) ]*\)\{0,1\})' "$doc" | sed 's/^](//; s/)$//' | sort -u |
		while IFS= read -r link; do
			file=${link%%#*}
			target=$dir/$file
			[ -n "$file" ] || target=$doc
			if [ ! -e "$target" ]; then
				echo "$(basename "$doc"): $link: no such file"
			elif [ "$link" != "$file" ] && ! anchors "$target" | grep -qxF -- "${link#*#}"; then
				echo "$(basename "$doc"): $link: no such heading"
			fi
		done
done >"$TMP/links.bad"
if [ ! -s "$TMP/links.bad" ]; then ok; else
	not_ok "broken links in the docs:"
	cat "$TMP/links.bad"
fi

# Every key of the JSON reports is documented (`key` or "key" in output.md, serve.md or search.md).
{
	ppsim -f json
	ppsim -s zbh1 -f json
	ppsim -c "$ROOT/configs/llama3-70b-a100-nvlink.json" -f json
	ppsim --model=mixtral-8x7b --gpu=h100-sxm -p 2 -m 4 --dp=16 --ep=8 --dispatch-bytes=1 \
		--ep-dispatch=deepep --ep-node-limit=1 -s dualpipev --cp=2 --offload=0.5 -f json
	ppsim compare --schedules=1f1b,zbh1 -f json
	ppsim serve --num-requests=5 -f json
	ppsim serve --model=llama3-8b --gpu=h100-sxm --batching=disaggregated --num-requests=5 -f json
	ppsim sweep -p 2,4 -m 4,8 --format=jsonl
	ppsim advise --model=llama3-8b --gpus=8 --global-batch=64 --jobs=1 -f json
	ppsim breakeven -c "$ROOT/configs/llama3-70b-a100-nvlink.json" -f json
	ppsim validate -f json "$ROOT/tests/golden/zb1p-2rank-2stagep-comms.csv"
} 2>/dev/null | grep -o '"[a-z_0-9]*":' | tr -d '":' | sort -u >"$TMP/json.keys"
missing=
while IFS= read -r key; do
	grep -q "[\`.]$key\`\|\"$key\"" "$ROOT/docs/output.md" "$ROOT/docs/serve.md" \
		"$ROOT/docs/search.md" || missing="$missing $key"
done <"$TMP/json.keys"
if [ -z "$missing" ] && [ "$(wc -l <"$TMP/json.keys")" -gt 100 ]; then ok; else
	not_ok "JSON keys not in docs/output.md, serve.md or search.md:$missing"
fi

# Every figure the docs quote from a run (an inline {{KEY;FMT;CMD}} of docs/src, written as
# VALUE<!--{{...}}-->) is what this binary gives; a figure changed by hand is caught too.
if ! command -v python3 >/dev/null 2>&1; then
	skip "the docs' inline figures" "no python3"
elif out=$(cd "$ROOT" && PPSIM="$PPSIM" python3 build-aux/gen-docs.py --check README.md \
	docs/*.md 2>&1) && [ "$(cat "$ROOT/README.md" "$ROOT"/docs/*.md | grep -o '<!--{{' | wc -l)" -ge 20 ]; then
	ok
else
	not_ok "the docs' inline figures: $out"
fi
# the last digit of the README's first inline figure, changed
perl -pe 'if (!$done && s/(\d)(<!--\{\{)/(($1 + 1) % 10) . $2/e) { $done = 1 }' "$ROOT/README.md" \
	>"$TMP/README-drift.md"
cmp -s "$ROOT/README.md" "$TMP/README-drift.md" && not_ok "the README has no inline figure to change"
if (cd "$ROOT" && PPSIM="$PPSIM" python3 build-aux/gen-docs.py --check "$TMP/README-drift.md") \
	>"$TMP/drift.out" 2>&1; then
	not_ok "gen-docs.py --check passed a figure changed by hand"
elif grep -q "shows '$(grep -o '[0-9.]*<!--{{' "$TMP/README-drift.md" | head -1 | sed 's/<!--{{//')'" \
	"$TMP/drift.out"; then ok; else
	not_ok "gen-docs.py --check: $(cat "$TMP/drift.out")"
fi
