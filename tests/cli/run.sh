#!/bin/sh
# End-to-end tests of the ppsim command: golden outputs, the source document's figures, exit
# statuses and messages for bad input, and the examples.
#
# Usage: sh tests/cli/run.sh PPSIM JGET
#   UPDATE_GOLDEN=1      rewrite the golden files instead of comparing
#   PPSIM_WRAP=CMD       run ppsim under CMD (make valgrind sets it to valgrind)
#   PPSIM_WRAP_SAMPLE=N  with N > 1, only a fixed sample of the runs go under PPSIM_WRAP: one in
#                        N, chosen by their arguments, and the first of each test file and of
#                        each exit status a file expects (tests/tools/wrap-sample); every run
#                        still happens and is checked
#   PPSIM_STRICT=1       a check that cannot run here (skip) fails instead (.ci/run sets it)
#   PPSIM_NO_BROWSER=1   the browser tests are skipped, with a note (build-aux/ensure-browser)
#   ONLY=t_sweep         run only that test file
#   CLI_JOBS=N           run N test files at a time (make sets it to the CPUs it may use, at
#                        most 2)
# The last line sums up: "cli tests: N passed, M failed, K skipped: WHAT (WHY); ...".
set -u

[ $# -eq 2 ] || { echo "usage: $0 PPSIM JGET" >&2; exit 2; }
PPSIM=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
JGET=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
PASS=0
FAIL=0
SKIPPED=0
# the checks skipped, "WHAT (WHY); " each, and those left to another phase
SKIPS=""
ELSEWHERE=""
export PPSIM JGET ROOT TMP
# a timeline asked for without a width is COLUMNS wide when piped: the goldens assume 100
unset COLUMNS
# Sampling: PPSIM_WRAP becomes the sampler, which runs WRAP_CMD, the command given, or not.
if [ -n "${PPSIM_WRAP:-}" ] && [ "${PPSIM_WRAP_SAMPLE:-1}" -gt 1 ] && [ -z "${WRAP_CMD:-}" ]; then
	WRAP_CMD=$PPSIM_WRAP
	PPSIM_WRAP="sh $ROOT/tests/tools/wrap-sample"
	export WRAP_CMD PPSIM_WRAP PPSIM_WRAP_SAMPLE
fi

# ppsim ARGS...: the binary under test, under PPSIM_WRAP when set.
ppsim() {
	${PPSIM_WRAP:-} "$PPSIM" "$@"
}

ok() {
	PASS=$((PASS + 1))
}

not_ok() {
	FAIL=$((FAIL + 1))
	echo "FAIL: $*"
}

# skip WHAT WHY: a check that cannot run here (a tool missing, no network, PPSIM_NO_BROWSER)
# says so and is counted as skipped, with its reason, in the summary; under PPSIM_STRICT (CI)
# it fails.
skip() {
	SKIPPED=$((SKIPPED + 1))
	SKIPS="$SKIPS$1 ($2); "
	echo "SKIP: $1 ($2)"
	if [ -n "${PPSIM_STRICT:-}" ]; then
		not_ok "$1 could not run ($2), and PPSIM_STRICT wants every check run"
	fi
}

# elsewhere WHAT WHY: a check that this run leaves to make test by design (a browser check
# under a sanitizer or valgrind, which change nothing in the page it checks); WHY says why.
# Said, and counted apart from the skipped ones. In make test itself it is a skip.
elsewhere() {
	if [ -z "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ]; then
		skip "$1" "$2"
		return
	fi
	ELSEWHERE="$ELSEWHERE$1; "
	echo "ELSEWHERE: $1, left to make test ($2)"
}

# golden FILE ARGS...: run in the repository root, stdout equals tests/golden/FILE, stderr is
# empty, exit status 0.
golden() {
	file=$1
	shift
	(cd "$ROOT" && ppsim "$@") >"$TMP/out" 2>"$TMP/err"
	status=$?
	if [ -n "${UPDATE_GOLDEN:-}" ] && [ $status -eq 0 ]; then
		cp "$TMP/out" "$ROOT/tests/golden/$file"
	fi
	if [ $status -ne 0 ] || [ -s "$TMP/err" ]; then
		not_ok "golden $file: ppsim $* exited $status: $(head -c 300 "$TMP/err")"
	elif ! diff -u "$ROOT/tests/golden/$file" "$TMP/out" >"$TMP/diff" 2>&1; then
		not_ok "golden $file: ppsim $* differs:"
		head -40 "$TMP/diff"
	else
		ok
	fi
}

# progress_on_pty WHAT LINE REPORT ARGS...: ppsim ARGS on a pseudo-terminal (script(1)), with
# the line's delay 0 (PPSIM_PROGRESS_DELAY), shows a progress line matching LINE and then its
# report, matching REPORT (grep patterns); with --quiet, or with the default delay of a second
# for a run that short, it shows no progress line. Unwrapped: the line's timing is not what a
# sanitizer checks.
progress_on_pty() {
	what=$1 line=$2 report=$3
	shift 3
	if ! command -v script >/dev/null 2>&1; then
		skip "$what progress on a terminal" "no script(1)"
		return
	fi
	script -qec "PPSIM_PROGRESS_DELAY=0 '$PPSIM' $*" /dev/null >"$TMP/pty.out" 2>&1
	if grep -q "$line" "$TMP/pty.out" && grep -q "$report" "$TMP/pty.out"; then
		ok
	else
		not_ok "$what on a terminal: no progress line, or no report after it: $(head -c 300 "$TMP/pty.out")"
	fi
	script -qec "PPSIM_PROGRESS_DELAY=0 '$PPSIM' $* --quiet" /dev/null >"$TMP/pty.out" 2>&1
	if grep -q "$line" "$TMP/pty.out"; then
		not_ok "$what --quiet on a terminal shows progress"
	else
		ok
	fi
	script -qec "'$PPSIM' $*" /dev/null >"$TMP/pty.out" 2>&1
	if grep -q "$line" "$TMP/pty.out"; then
		not_ok "$what on a terminal shows progress before a second has passed"
	else
		ok
	fi
}

# run_json ARGS...: runs ppsim ARGS --format=json into $TMP/out.json for the expects below.
run_json() {
	RUN="ppsim $*"
	if ! ppsim "$@" --format=json >"$TMP/out.json" 2>"$TMP/err"; then
		not_ok "$RUN failed: $(head -c 300 "$TMP/err")"
		: >"$TMP/out.json"
	fi
}

# expect PATH VALUE [TOLERANCE]: the JSON value at PATH equals VALUE, a number, a fraction
# such as 3/19, or (with no tolerance given and a non-numeric VALUE) a string.
expect() {
	got=$("$JGET" "$TMP/out.json" "$1" 2>&1) || {
		not_ok "$RUN: $1 missing ($got)"
		return
	}
	if awk -v a="$got" -v b="$2" -v t="${3:-1e-9}" 'BEGIN {
		if (b !~ /^-?[0-9.e+-]+(\/[0-9.e+-]+)?$/) exit (a == b) ? 0 : 1
		# a number is expected: null, a string or a boolean is not one (awk would read 0)
		if (a !~ /^-?[0-9][0-9.]*([eE][-+]?[0-9]+)?$/) exit 1
		n = split(b, f, "/"); x = (n == 2) ? f[1] / f[2] : f[1] + 0
		d = a - x; if (d < 0) d = -d; exit (d <= t) ? 0 : 1 }'; then
		ok
	else
		not_ok "$RUN: $1 is $got, expected $2"
	fi
}

# expect_cmp PATH OP VALUE: the JSON number at PATH compares to VALUE (OP is <, <=, >, >=).
expect_cmp() {
	got=$("$JGET" "$TMP/out.json" "$1" 2>&1) || {
		not_ok "$RUN: $1 missing ($got)"
		return
	}
	if awk -v a="$got" -v op="$2" -v b="$3" 'BEGIN {
		a += 0; b += 0
		r = (op == "<") ? a < b : (op == "<=") ? a <= b : (op == ">") ? a > b : a >= b
		exit r ? 0 : 1 }'; then
		ok
	else
		not_ok "$RUN: $1 is $got, expected $2 $3"
	fi
}

# fails STATUS TEXT ARGS...: ppsim ARGS exits STATUS, prints nothing on stdout and exactly one
# line on stderr that starts with "ppsim: " and contains TEXT.
fails() {
	want=$1
	text=$2
	shift 2
	# the sampler of make valgrind wraps the first failure of each status in a file
	PPSIM_WRAP_KIND=status-$want
	export PPSIM_WRAP_KIND
	ppsim "$@" >"$TMP/out" 2>"$TMP/err"
	status=$?
	unset PPSIM_WRAP_KIND
	lines=$(wc -l <"$TMP/err")
	first=$(head -n 1 "$TMP/err")
	if [ $status -ne "$want" ]; then
		not_ok "ppsim $*: exit $status, expected $want ($first)"
	elif [ -s "$TMP/out" ]; then
		not_ok "ppsim $*: wrote to stdout on error"
	elif [ "$lines" -ne 1 ]; then
		not_ok "ppsim $*: $lines lines on stderr, expected 1"
	else
		case $first in
		"ppsim: "*"$text"*) ok ;;
		*) not_ok "ppsim $*: message '$first' lacks '$text'" ;;
		esac
	fi
}

# comma_locale: builds de_DE.UTF-8, a locale that writes 1.5 as "1,5", into $TMP/loc (once a
# run) for LOCPATH=$TMP/loc: a fresh machine has it among its locale sources (Debian's locales,
# which make test installs) but not generated. Fails, saying why, when it cannot.
comma_locale() {
	[ -d "$TMP/loc/de_DE.UTF-8" ] && return 0
	mkdir -p "$TMP/loc"
	# localedef exits 1 for mere warnings: the files it wrote tell
	localedef -i de_DE -f UTF-8 "$TMP/loc/de_DE.UTF-8" >"$TMP/localedef.out" 2>&1
	if [ ! -f "$TMP/loc/de_DE.UTF-8/LC_NUMERIC" ]; then
		not_ok "localedef -i de_DE -f UTF-8 failed (Debian's locales package, which make test installs): $(head -c 300 "$TMP/localedef.out")"
		rm -rf "$TMP/loc/de_DE.UTF-8"
		return 1
	fi
}

# Table-driven files: lines "A | B | C", '#' comments and blank lines skipped.
table() {
	grep -v '^[[:space:]]*#' "$1" | grep -v '^[[:space:]]*$'
}

# advise_choices AXIS ADVICE SWEEP: advise's JSON ADVICE weighs AXIS (schedule or ep):
# choices.AXIS holds, best first, each value's best point that fits with its tokens/s, which is
# what the records SWEEP of advise's equivalent sweep say (the most tokens/s of that value's
# fitting records), then the values of which nothing fits, none of whose records fit; the
# first is the recommendation's own, 0 against it; more than two values fit.
advise_choices() {
	awk -v axis="$1" '/"status":"ok"/ && /"fits":true/ {
			match($0, "\"" axis "\":\"?[^,\"}]*"); s = substr($0, RSTART, RLENGTH)
			sub(/^"[^"]*":"?/, "", s)
			match($0, /"tokens_per_s":[^,}]*/); t = substr($0, RSTART + 15, RLENGTH - 15)
			if (!(s in best) || t + 0 > best[s] + 0) best[s] = t }
		END { for (s in best) print s, best[s] }' "$3" >"$TMP/per-value"
	i=0 bad= prev= fitting=0
	while value=$("$JGET" "$2" "choices.$1.$i.value" 2>/dev/null); do
		want=$(awk -v s="$value" '$1 == s { print $2 }' "$TMP/per-value")
		if [ "$("$JGET" "$2" "choices.$1.$i.fits")" = true ]; then
			fitting=$((fitting + 1))
			got=$("$JGET" "$2" "choices.$1.$i.tokens_per_s")
			[ "$got" = "$want" ] || bad="$bad $value: $got against the sweep's $want;"
			[ -z "$prev" ] || awk -v a="$prev" -v b="$got" 'BEGIN { exit !(b + 0 <= a + 0) }' ||
				bad="$bad $value out of order;"
			prev=$got
		elif [ -n "$want" ]; then
			bad="$bad $value: said not to fit, the sweep has $want;"
		fi
		i=$((i + 1))
	done
	if [ -z "$bad" ] && [ "$fitting" -eq "$(wc -l <"$TMP/per-value")" ] && [ "$fitting" -gt 2 ] &&
		[ "$("$JGET" "$2" "choices.$1.0.value")" = "$("$JGET" "$2" "recommended.$1")" ] &&
		[ "$("$JGET" "$2" "choices.$1.0.vs_recommended")" = 0 ]; then
		ok
	else
		not_ok "advise's choices of $1 ($fitting fitting, $i in all):$bad"
	fi
}

# sample_note: under the sampler, how many of the file's runs went under PPSIM_WRAP (in a part
# of a parallel run, the one file's); then the count starts again.
sample_note() {
	[ -f "$TMP/wrap-sample/runs" ] || return 0
	echo "(${WRAP_CMD%% *}: $(grep -c '^wrapped$' "$TMP/wrap-sample/runs") of $(wc -l \
		<"$TMP/wrap-sample/runs" | tr -d ' ') ppsim runs, a fixed sample)"
	rm -rf "$TMP/wrap-sample"
}

# No test writes outside the build and temporary folders: what git sees untracked, ignored or changed
# in the source tree (a file named after an option, a __pycache__) is the same after the whole
# run as before it. Not in a part of a parallel run: its parent checks.
# tree_state: what git sees (status, and the contents of the changed and untracked files, so that
# a test changing a file a developer has already edited shows too)
tree_state() {
	git -C "$ROOT" status --porcelain --ignored
	git -C "$ROOT" diff HEAD --name-only -z |
		(cd "$ROOT" && xargs -0 -r cksum 2>/dev/null) | sed 's/^/changed: /'
	git -C "$ROOT" ls-files -z --others --exclude-standard |
		(cd "$ROOT" && xargs -0 -r cksum) | sed 's/^/untracked: /'
}
if [ -z "${CLI_PART:-}" ] && git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	tree_state >"$TMP/stray.before"
fi

# With CLI_JOBS=N (N > 1) and no ONLY, the test files run N at a time, each in a run of its
# own, the slowest first (those measured slowest under make test, asan and valgrind, then the
# rest largest first), so that no long file starts last; their outputs are printed in file order
# and their counts summed.
SLOWEST="t_errors t_torch_reference t_validation t_partition t_html t_reference t_merge t_docs
	t_nomem t_sweep t_calibrate"
if [ -z "${ONLY:-}" ] && [ "${CLI_JOBS:-1}" -gt 1 ]; then
	# shellcheck disable=SC2012
	{ for t in $SLOWEST; do [ ! -f "$ROOT/tests/cli/$t.sh" ] || echo "$t"; done
		ls -S "$ROOT"/tests/cli/t_*.sh | sed 's|.*/||; s|\.sh$||'; } |
		awk '!seen[$0]++' | xargs -P "$CLI_JOBS" -I{} \
		sh -c 't0=$(date +%s); CLI_PART=1 ONLY=$1 sh "$2/tests/cli/run.sh" "$3" "$4" >"$5/$1.log" 2>&1
			echo $(($(date +%s) - t0)) >"$5/$1.secs"' \
		sh {} "$ROOT" "$PPSIM" "$JGET" "$TMP"
	for t in "$ROOT"/tests/cli/t_*.sh; do
		log="$TMP/$(basename "$t" .sh).log"
		sed '$d' "$log"
		echo "   ($(cat "$TMP/$(basename "$t" .sh).secs" 2>/dev/null || echo '?') s)"
		set -- $(tail -n 1 "$log" |
			sed -n 's/^cli tests: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1 \2 \3/p')
		if [ $# -eq 3 ]; then
			PASS=$((PASS + $1))
			FAIL=$((FAIL + $2))
			SKIPPED=$((SKIPPED + $3))
			SKIPS="$SKIPS$(sed -n 's/^SKIP: \(.*\)$/\1; /p' "$log" | tr -d '\n')"
			ELSEWHERE="$ELSEWHERE$(sed -n 's/^ELSEWHERE: \(.*\), left to make test (.*$/\1; /p' \
				"$log" | tr -d '\n')"
		else
			not_ok "$(basename "$t") did not finish: $(tail -n 1 "$log")"
		fi
	done
else
	for t in "$ROOT"/tests/cli/${ONLY:-t_*}.sh; do
		echo "== $(basename "$t")"
		. "$t"
		sample_note
	done
fi

if [ -f "$TMP/stray.before" ]; then
	tree_state >"$TMP/stray.after"
	# what is new after, and what was there before and is gone (a file a test removed)
	if stray=$({ grep -vxF -f "$TMP/stray.before" "$TMP/stray.after";
		grep -vxF -f "$TMP/stray.after" "$TMP/stray.before"; }); then
		not_ok "the tests left, changed or removed files in the source tree: $(echo "$stray" | tr '\n' ' ')"
	else
		ok
	fi
fi

summary="cli tests: $PASS passed, $FAIL failed, $SKIPPED skipped"
[ -n "$SKIPS" ] && summary="$summary: ${SKIPS%; }"
[ -n "$ELSEWHERE" ] && summary="$summary. Left to make test: ${ELSEWHERE%; }"
echo "$summary"
[ $FAIL -eq 0 ]
