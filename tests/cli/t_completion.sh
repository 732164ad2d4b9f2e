# The completion scripts complete in bash, zsh and fish: commands, each command's options,
# option values (after the last comma of a list too), formats per command and file options.
# Each shell sources the script ppsim prints and asks it what the user would get on TAB.

# bash_complete WORD...: the candidates bash offers for the last word of `ppsim WORD...`.
bash_complete() {
	bash -c 'source <("$0" completion bash) || exit 9
		COMP_WORDS=(ppsim "$@"); COMP_CWORD=$#; _ppsim; printf "%s\n" "${COMPREPLY[@]}"' \
		"$PPSIM" "$@"
}

# expect SHELL LABEL WANT GOT: GOT (candidates, one per line) holds the line WANT.
expect() {
	if printf '%s\n' "$4" | grep -qx -- "$3"; then ok; else
		not_ok "$1 completion of '$2': no '$3' in: $(printf '%s' "$4" | tr '\n' ' ' | head -c 300)"
	fi
}

expect bash "sw" sweep "$(bash_complete sw)"
expect bash "sweep --jo" --jobs "$(bash_complete sweep --jo)"
expect bash "--schedules=1f1b,zb" 1f1b,zbh1 "$(bash_complete compare --schedules = 1f1b,zb)"
expect bash "sweep -s 1f1b,inter" 1f1b,interleaved "$(bash_complete sweep -s 1f1b,inter)"
expect bash "validate --sta" --stages "$(bash_complete validate --sta)"
expect bash "validate --micro" --microbatches "$(bash_complete validate --micro)"
expect bash "sweep -f j" jsonl "$(bash_complete sweep -f j)"
# merge takes the formats of each kind of shard: a sweep's jsonl, a run's json
expect bash "merge -f j" json "$(bash_complete merge -f j)"
expect bash "merge -f j" jsonl "$(bash_complete merge -f j)"
expect bash "--export-format=torch-" torch-comms "$(bash_complete --export-format = torch-)"
expect bash "completion " fish "$(bash_complete completion '')"
# run does not offer sweep's options, and a file option completes file names
if bash_complete --fi | grep -q -- --fits; then not_ok "bash: run offers --fits"; else ok; fi
(cd "$ROOT" && expect bash "--schedule-file=READ" README.md "$(bash_complete --schedule-file = READ)")

if command -v zsh >/dev/null 2>&1; then
	# zsh runs the bash function through bashcompinit, whose compgen leaves the filtering by
	# what was typed to zsh: every candidate must carry the list's head
	got=$(zsh -c 'autoload -U compinit && compinit -u && source <("$0" completion zsh) || exit 9
		t() { emulate -L sh; setopt kshglob noshglob braceexpand
			COMP_WORDS=(ppsim compare --schedules = 1f1b,zb); COMP_CWORD=4; __ppsim_bash
			printf "%s\n" "${COMPREPLY[@]}"; }; t' "$PPSIM" 2>&1)
	expect zsh "--schedules=1f1b,zb" 1f1b,zbh1 "$got"
	if printf '%s\n' "$got" | grep -qv '^1f1b,'; then
		not_ok "zsh: a candidate without the list's head: $(printf '%s' "$got" | head -c 200)"
	else
		ok
	fi
	if zsh -c 'autoload -U compinit && compinit -u && source <("$0" completion zsh) &&
		complete -p ppsim' "$PPSIM" 2>&1 | grep -q '__ppsim_bash ppsim'; then
		ok
	else
		not_ok "zsh: the script does not register its function for ppsim"
	fi
	# installed as make install does, in fpath as _ppsim, the first TAB of a new interactive
	# shell completes (compinit autoloads the file as the body of _ppsim)
	mkdir -p "$TMP/zsh/fpath" "$TMP/zsh/bin"
	"$PPSIM" completion zsh >"$TMP/zsh/fpath/_ppsim"
	ln -sf "$PPSIM" "$TMP/zsh/bin/ppsim"
	cat >"$TMP/zsh/tab.zsh" <<'ZSH'
zmodload zsh/zpty || exit 9
zpty -b z "PATH=$1/bin:\$PATH zsh -f -i"
zpty -w z "fpath=($1/fpath \$fpath); autoload -U compinit; compinit -u -d $1/zcd; PS1='READY> '"
# wait (up to 20 s, for a loaded machine) for the prompt, then for the completed word
out=; for i in {1..100}; do while zpty -r -t z chunk; do out+=$chunk; done
	[[ $out == *READY\>* ]] && break; sleep 0.2; done
zpty -w -n z "$2"$'\t'
out=; for i in {1..100}; do while zpty -r -t z chunk; do out+=$chunk; done
	[[ $out == *"$3"* ]] && break; sleep 0.2; done
print -r -- "$out"
zpty -d z
ZSH
	if zsh -f "$TMP/zsh/tab.zsh" "$TMP/zsh" 'ppsim valid' 'ppsim validate' 2>&1 |
		grep -q 'ppsim validate'; then
		ok
	else
		not_ok "zsh: the first TAB of a new shell does not complete 'ppsim valid' from fpath"
	fi
	# on the terminal, as bash does: an option's value after '=' (which zsh keeps in the
	# word), after the last comma of a list, and a format per command
	for tab in 'ppsim --schedule=zbv-a|ppsim --schedule=zbv-auto' \
		'ppsim compare --schedules=1f1b,zbv-a|ppsim compare --schedules=1f1b,zbv-auto' \
		'ppsim sweep --format=jso|ppsim sweep --format=jsonl' \
		'ppsim --recompute=sel|ppsim --recompute=selective'; do
		if zsh -f "$TMP/zsh/tab.zsh" "$TMP/zsh" "${tab%%|*}" "${tab#*|}" 2>&1 |
			grep -q -- "${tab#*|}"; then
			ok
		else
			not_ok "zsh: TAB after '${tab%%|*}' does not give '${tab#*|}'"
		fi
	done
else
	skip "zsh completion" "no zsh"
fi

if command -v fish >/dev/null 2>&1; then
	# fish_complete LINE: what fish offers for the command line LINE, without descriptions
	fish_complete() {
		fish -c '"$argv[1]" completion fish | source; complete -C $argv[2]' "$PPSIM" "$1" |
			cut -f1
	}
	expect fish "comp" compare "$(fish_complete 'ppsim comp')"
	expect fish "sweep --jo" --jobs "$(fish_complete 'ppsim sweep --jo')"
	expect fish "--schedules=1f1b,zb" --schedules=1f1b,zbh1 \
		"$(fish_complete 'ppsim compare --schedules=1f1b,zb')"
	expect fish "-s zbv-" zbv-auto "$(fish_complete 'ppsim -s zbv-')"
	expect fish "sweep --format=" --format=jsonl "$(fish_complete 'ppsim sweep --format=')"
	expect fish "validate --format=" --format=json "$(fish_complete 'ppsim validate --format=')"
	expect fish "serve --rat" --rate "$(fish_complete 'ppsim serve --rat')"
	if fish_complete 'ppsim --fi' | grep -q -- --fits; then not_ok "fish: run offers --fits"; else ok; fi
	if fish_complete 'ppsim serve --micro' | grep -q -- --microbatches; then
		not_ok "fish: serve offers --microbatches"
	else
		ok
	fi
else
	skip "fish completion" "no fish"
fi

# the commands that read their options themselves (validate, list, calibrate) complete theirs,
# and their formats are their own (validate writes no csv)
expect bash "validate --f" --format "$(bash_complete validate --f)"
expect bash "calibrate --w" --w-share "$(bash_complete calibrate --w)"
expect bash "calibrate --c" --chunks "$(bash_complete calibrate --c)"
# and every option a command of its own offers, it takes
for cmd in validate calibrate list; do
	for word in $(bash_complete "$cmd" -); do
		# shellcheck disable=SC2086 # cmd is a word
		if "$PPSIM" $cmd "$word" 2>&1 | grep -q "unknown option"; then
			not_ok "$cmd offers $word, which it refuses"
		else ok; fi
	done
done
expect bash "list -f j" json "$(bash_complete list -f j)"
if bash_complete validate -f '' | grep -qx csv; then
	not_ok "bash: validate -f offers csv, which validate refuses"
else
	ok
fi
if command -v fish >/dev/null 2>&1; then
	expect fish "calibrate --w" --w-share "$(fish_complete 'ppsim calibrate --w')"
	expect fish "validate --f" --format "$(fish_complete 'ppsim validate --f')"
else
	skip "fish completion of calibrate and validate" "no fish"
fi

# --help anywhere among completion's arguments gives its help, as the other commands' do
if ppsim completion bash --help | head -n 1 | grep -q '^Usage: ppsim completion'; then ok; else
	not_ok "ppsim completion bash --help: not the help"
fi
