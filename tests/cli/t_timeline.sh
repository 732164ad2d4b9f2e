# The ASCII timeline from the command line: no line wider than the width asked, for every
# schedule; the mission's command readable at 100 columns; the letters mean one thing across
# schedules; the width without a value (terminal, COLUMNS, 100); --timeline=0; on by default on a
# terminal only, and never for json or csv.

# timeline_of SCHEDULE ARGS...: the timeline part of `ppsim -s SCHEDULE ARGS` (from the line
# that starts with the schedule's name after a blank line).
timeline_of() {
	s=$1
	shift
	ppsim -s "$s" "$@" | awk -v s="$s" '!on && prev == "" && index($0, s) == 1 { on = 1 }
		on { print } { prev = $0 }'
}

# 1. Every line of the timeline fits in the width asked, for every schedule `ppsim list`
#    names, several shapes (long labels with -v 8, micro-batches >= 10) and widths 40, 60, 100.
schedules=$(ppsim list | awk '/^Schedules/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')
[ "$(echo "$schedules" | wc -w)" -ge 16 ] || not_ok "ppsim list names too few schedules"
for s in $schedules; do
	for shape in "-p 4 -m 8" "-p 4 -m 16" "-p 2 -m 12 -v 3" "-p 16 -m 32 -v 8"; do
		# shellcheck disable=SC2086 # the shape is words
		"$PPSIM" -s "$s" $shape >/dev/null 2>&1 || continue # a shape the schedule refuses
		for w in 40 60 100; do
			# shellcheck disable=SC2086
			timeline_of "$s" $shape --timeline="$w" >"$TMP/tl.txt"
			over=$(awk -v w="$w" 'length($0) > w' "$TMP/tl.txt" | head -1)
			if ! grep -q '^GPU ' "$TMP/tl.txt"; then
				not_ok "-s $s $shape --timeline=$w: no timeline rows"
			elif [ -n "$over" ]; then
				not_ok "-s $s $shape --timeline=$w: a line is wider than $w: $over"
			elif awk '/^GPU / { sub(/^GPU [0-9]+( \([^)]*\))? */, ""); if (length($0) < 10) bad = 1 }
				END { exit !bad }' "$TMP/tl.txt"; then
				not_ok "-s $s $shape --timeline=$w: a row (of some band) keeps fewer than 10 columns"
			else
				ok
			fi
		done
	done
done

# 2. The mission's command at 100 columns shows micro-batch numbers, one and two digits, in
#    every device's rows, and no op of micro-batch 10 or more is drawn as bare letters.
timeline_of interleaved -p 4 -m 16 -v 2 --timeline=100 >"$TMP/mission.txt"
for d in 0 1 2 3; do
	cells=$(grep "^GPU $d " "$TMP/mission.txt" | sed 's/^GPU [0-9] ([^)]*) //' | tr -d '\n')
	missing=""
	for mb in 0 5 9 10 15; do
		echo "$cells" | grep -q "[Ff]$mb\\b" || missing="$missing F$mb"
		echo "$cells" | grep -q "[Bb]$mb\\b" || missing="$missing B$mb"
	done
	if [ -z "$cells" ]; then
		not_ok "mission timeline: no rows for GPU $d"
	elif [ -n "$missing" ]; then
		not_ok "mission timeline at 100 columns: GPU $d lacks$missing"
	else
		ok
	fi
done
if grep -q "^F forward .*\\[F3\\] micro-batch 3" "$TMP/mission.txt"; then ok; else
	not_ok "mission timeline: the legend does not explain the labels"
fi

# 3. One letter, one meaning: what each letter stands for, from the legends of timelines of
#    every schedule, is the same everywhere (B the full backward, I the input gradient).
for s in $schedules; do
	"$PPSIM" -s "$s" -p 4 -m 8 >/dev/null 2>&1 || continue
	# the legend: the lines after the last row; its items are two spaces apart
	timeline_of "$s" -p 4 -m 8 --timeline=300 |
		awk -v s="$s" '/^GPU / { n = 0; next } { legend[n++] = $0 }
			END { for (i = 0; i < n; i++) { k = split(legend[i], it, "  ")
				for (j = 1; j <= k; j++) if (it[j] ~ /^[A-Z] /) print s ": " it[j] } }'
done >"$TMP/letters.txt"
meanings=$(sed 's/^[^:]*: //' "$TMP/letters.txt" | sort -u)
if [ "$(echo "$meanings" | cut -c1 | sort | uniq -d)" = "" ] &&
	echo "$meanings" | grep -qx "B full backward (input and weight gradient)" &&
	echo "$meanings" | grep -qx "I input-gradient backward"; then
	ok
else
	not_ok "a letter means different things in different schedules' timelines: $meanings"
fi
if grep -q "^zbh1: I input-gradient backward" "$TMP/letters.txt" &&
	grep -q "^dualpipev: I input-gradient backward" "$TMP/letters.txt" &&
	grep -q "^dualpipev: B full backward" "$TMP/letters.txt" &&
	grep -q "^1f1b: B full backward" "$TMP/letters.txt"; then
	ok
else
	not_ok "zbh1, dualpipev and 1f1b legends: $(cat "$TMP/letters.txt")"
fi
if timeline_of zbh1 -p 4 -m 8 --timeline=100 | grep '^GPU ' | grep -q 'B'; then
	not_ok "zbh1 (no fused backward) draws a B"
else
	ok
fi

# 4. Two columns never read as two ops: gpipe with m = 12 and 2 t forwards at 40 columns gives
#    its two-digit forwards their labels (in bands), never FF; and dualpipev p=8, m=16 at 100
#    columns, on a compressed scale, draws an overlapped pair two or three columns wide #- or
#    #-- and says so in its legend.
if timeline_of gpipe -p 2 -m 12 --tf 2 --tb 1 --tw 1 --timeline=40 >"$TMP/g.txt" &&
	grep -q '^GPU 0 (stage 0) .*F11' "$TMP/g.txt" && ! grep '^GPU ' "$TMP/g.txt" | grep -q 'FF'; then
	ok
else
	not_ok "gpipe -m 12 --tf 2 at 40 columns: no F11, or a two-column forward reads FF"
fi
timeline_of dualpipev -p 8 -m 16 --timeline=100 >"$TMP/d.txt"
if grep '^GPU ' "$TMP/d.txt" | grep -q -- '#-' && grep -q 'F-- one op, too narrow for its label' "$TMP/d.txt"; then
	ok
else
	not_ok "dualpipev p=8 m=16 at 100 columns: no #- pair or no F-- in the legend"
fi

# 5. The width without a value: COLUMNS when piped (a valid one), else 100; --timeline=0 draws
#    nothing; an invalid width is a usage error.
width_of() { # the widest line of the timeline of ARGS (1f1b p=4 m=16, long enough for any width)
	timeline_of 1f1b -p 4 -m 16 "$@" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }'
}
w60=$(COLUMNS=60 width_of --timeline)
if [ "$w60" -le 60 ] && [ "$w60" -gt 50 ]; then ok; else
	not_ok "COLUMNS=60 is not honoured when piped: $w60 columns"
fi
w100=$(width_of --timeline)
if [ "$(COLUMNS=30 width_of --timeline)" = "$w100" ] && [ "$(COLUMNS=x width_of --timeline)" = "$w100" ] &&
	[ "$w100" = "$(width_of --timeline=100)" ]; then
	ok
else
	not_ok "an invalid or unset COLUMNS does not give 100 columns"
fi
if [ "$(COLUMNS=60 width_of --timeline=120)" -gt 100 ]; then ok; else
	not_ok "--timeline=120 does not win over COLUMNS"
fi
if ppsim -p 4 -m 8 --timeline=0 | grep -q '^GPU '; then not_ok "--timeline=0 drew a timeline"; else
	ok
fi
if ppsim -p 4 -m 8 -f json --timeline=0 >/dev/null; then ok; else
	not_ok "--timeline=0 -f json is refused"
fi
ppsim -p 4 -m 8 --timeline=39 >/dev/null 2>"$TMP/err.txt"
if [ $? -eq 2 ] && grep -q "width must be 0 (none) or an integer from 40" "$TMP/err.txt"; then ok
else
	not_ok "--timeline=39: $(cat "$TMP/err.txt")"
fi

# 6. Piped, run and serve print no timeline unless asked.
if ppsim -p 4 -m 8 | grep -q '^GPU '; then not_ok "piped run drew a timeline unasked"; else ok; fi
if (cd "$ROOT" && ppsim serve -c examples/serve/chunked.json) | grep -q '^GPU '; then
	not_ok "piped serve drew a timeline unasked"
else
	ok
fi

# 7. On a terminal (script, from util-linux/bsdutils, gives a pseudo-terminal): run and serve
#    append the timeline at the terminal's width; --timeline=0 turns it off; json and csv get
#    none and no error.
on_tty() { # COLUMNS ARGS: ppsim ARGS on a pseudo-terminal that many columns wide
	cols=$1
	shift
	script -qec "stty cols $cols; cd '$ROOT' && ${PPSIM_WRAP:-} '$PPSIM' $*; echo \"rc=\$?\"" \
		/dev/null </dev/null | tr -d '\r'
}
if [ "$(script -qec 'test -t 1 && echo tty' /dev/null </dev/null | tr -d '\r')" = tty ]; then
	on_tty 90 -s interleaved -p 4 -m 16 -v 2 --color=never >"$TMP/tty.txt"
	if grep -q '^GPU 3 (stages 3,7) ' "$TMP/tty.txt" && grep -q '^rc=0$' "$TMP/tty.txt" &&
		[ "$(grep '^GPU ' "$TMP/tty.txt" | awk '{ if (length($0) > w) w = length($0) } END { print w }')" -le 90 ]; then
		ok
	else
		not_ok "run on a 90-column terminal: no timeline, or wider than 90: $(tail -3 "$TMP/tty.txt")"
	fi
	if on_tty 100 -p 4 -m 8 --timeline=0 | grep -q '^GPU '; then
		not_ok "--timeline=0 on a terminal drew a timeline"
	else
		ok
	fi
	for f in json csv; do
		on_tty 100 -p 4 -m 8 -f $f >"$TMP/tty.txt"
		if grep -q '^rc=0$' "$TMP/tty.txt" && ! grep -q '^GPU ' "$TMP/tty.txt"; then ok; else
			not_ok "-f $f on a terminal: $(tail -2 "$TMP/tty.txt")"
		fi
	done
	if on_tty 100 serve -c examples/serve/chunked.json --color=never | grep -q '^GPU 0 '; then
		ok
	else
		not_ok "serve on a terminal drew no timeline"
	fi
	# a terminal that does not say its width (0 columns) draws as --timeline would, at COLUMNS;
	# one that says it is narrower than a timeline gets none
	script -qec "stty cols 0; cd '$ROOT' && COLUMNS=60 ${PPSIM_WRAP:-} '$PPSIM' -p 4 -m 8 --color=never" \
		/dev/null </dev/null | tr -d '\r' >"$TMP/tty.txt"
	w=$(grep '^GPU ' "$TMP/tty.txt" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
	if [ "$w" -gt 40 ] && [ "$w" -le 60 ]; then ok; else
		not_ok "a terminal of unknown width with COLUMNS=60: timeline $w wide"
	fi
	if on_tty 30 -p 4 -m 8 --color=never | grep -q '^GPU '; then
		not_ok "a 30-column terminal drew a default timeline"
	else
		ok
	fi
	if script -qec "stty cols 0; cd '$ROOT' && COLUMNS=30 ${PPSIM_WRAP:-} '$PPSIM' -p 4 -m 8 --color=never" \
		/dev/null </dev/null | grep -q '^GPU '; then
		not_ok "a terminal of unknown width with COLUMNS=30 drew a default timeline"
	else
		ok
	fi
else
	skip "the default timeline on a terminal" "no pseudo-terminal here (script, from bsdutils)"
fi

# 9. The mission's line in an 80-column terminal (COLUMNS=80 when piped, as on an 80-column
#    pseudo-terminal) is its 80-column golden: every op keeps its micro-batch, in more bands.
COLUMNS=80 ppsim --schedule=interleaved -p 4 -m 16 -v 2 --timeline >"$TMP/tl80.txt" 2>"$TMP/err"
# each device's rows, all bands, hold 64 labels: F, f, B and b of micro-batches 0 to 15
labels=$(awk '/^GPU [0-9]/ { d = $2; sub(/^GPU [0-9]+ \([^)]*\) /, "")
		while (match($0, /[FfBb][0-9]+/)) { n[d]++; $0 = substr($0, RSTART + RLENGTH) } }
	END { for (d = 0; d < 4; d++) printf "%d ", n[d] }' "$TMP/tl80.txt")
if cmp -s "$TMP/tl80.txt" "$ROOT/tests/golden/interleaved-p4-v2-m16-timeline-80.txt" &&
	[ "$labels" = "64 64 64 64 " ] && ! awk 'length($0) > 80 { bad = 1 } END { exit !bad }' "$TMP/tl80.txt"; then
	ok
else
	not_ok "COLUMNS=80 --timeline of interleaved p=4 v=2 m=16: not the 80-column golden, or labels per device '$labels' (want 64 each), or a line past 80"
fi

# a narrow op beside a labelled one shows in the column of its middle (the label's span hid it):
# zbh1 with W of 0.1 t at 0.3 t a column shows a W in each of the 27 columns that hold a W's
# middle (the 32 W share them: five fall in a column with another), the step's last op, W7 on
# GPU 0, at the row's end
ppsim -s zbh1 -p 4 -m 8 --tw 0.1 --timeline=100 >"$TMP/narrow.txt"
ws=$(grep '^GPU' "$TMP/narrow.txt" | tr -cd 'W\n' | awk '{ n += length($0) } END { print n }')
if [ "$ws" = 27 ] && grep -q '^GPU 0 .*W$' "$TMP/narrow.txt"; then ok; else
	not_ok "narrow W ops beside labels: $ws W shown (want 27): $(grep '^GPU 0' "$TMP/narrow.txt")"
fi
