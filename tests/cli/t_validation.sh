# docs/validation.md holds the tables tests/validation/report.sh prints for the ppsim under test:
# the accuracy claims are those of this build, not of an older one.
for section in table5 table4 ranking model model-ranking korthikanti narayanan summary memory megatron \
	nemo mbridge torchtitan llama3 bloom; do
	if sh "$ROOT/tests/validation/report.sh" "$PPSIM" "$JGET" $section >"$TMP/table" \
		2>"$TMP/err" && [ ! -s "$TMP/err" ]; then
		ok
	else
		not_ok "report.sh $section failed: $(head -c 300 "$TMP/err")"
		continue
	fi
	# the table stands in the page as one run of lines
	if awk 'NR == FNR { want[++n] = $0; next }
		$0 == want[i + 1] { i++; if (i == n) found = 1; next }
		{ i = ($0 == want[1]) ? 1 : 0 }
		END { exit !found }' "$TMP/table" "$ROOT/docs/validation.md"; then
		ok
	else
		not_ok "docs/validation.md lacks report.sh's $section table (run make docs)"
	fi
done
# the claims the page makes of the tables
grep -c '| 0.0000 |$' "$ROOT/docs/validation.md" >"$TMP/exact"
if [ "$(cat "$TMP/exact")" -ge 59 ]; then ok; else
	not_ok "docs/validation.md: $(cat "$TMP/exact") of the paper's bubble rates exact, not 59"
fi
if grep -q '^| \*\*blocks ranked alike\*\* | | | | 12 of 12 |$' "$ROOT/docs/validation.md"; then
	ok
else
	not_ok "docs/validation.md: the ranking is no longer alike in every block"
fi
