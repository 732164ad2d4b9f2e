# docs/validation.md holds the tables tests/validation/report.sh prints for the ppsim under test:
# the accuracy claims are those of this build, not of an older one. Every table in make test;
# under a sanitizer or valgrind, where the figures are the same and only the memory is checked,
# a table of each kind of run (explicit costs, a dense model, mixtures of experts under
# DualPipe and Megatron-Core's combined 1F1B): the rest took 80 of t_validation's 90 s there.
sections="table5 table4 ranking model model-ranking korthikanti narayanan summary memory megatron
	nemo mbridge torchtitan llama3 bloom mbridge_moe modelzoo overlap deepseek"
if [ -n "${PPSIM_WRAP:-}${PPSIM_SANITIZE:-}" ]; then
	sections="table5 korthikanti overlap deepseek"
	elsewhere "the other tables of docs/validation.md" "the figures are the same; the memory is checked on a table of each kind"
fi
for section in $sections; do
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
