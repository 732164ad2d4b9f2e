# Every runnable example in examples/ runs cleanly and prints what tests/golden/examples/ holds.
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "${PPSIM_WRAP:-}" "$PPSIM" >"$TMP/ppsim-wrapped"
chmod +x "$TMP/ppsim-wrapped"
for ex in "$ROOT"/examples/*.sh; do
	name=$(basename "$ex" .sh)
	want="$ROOT/tests/golden/examples/$name.out"
	if ! (cd "$ROOT" && PPSIM="$TMP/ppsim-wrapped" sh "$ex") >"$TMP/ex.out" 2>"$TMP/ex.err" ||
		[ -s "$TMP/ex.err" ]; then
		not_ok "example $name failed: $(head -c 300 "$TMP/ex.err")"
		continue
	fi
	[ -n "${UPDATE_GOLDEN:-}" ] && mkdir -p "$(dirname "$want")" && cp "$TMP/ex.out" "$want"
	if diff -u "$want" "$TMP/ex.out" >"$TMP/diff" 2>&1; then
		ok
	else
		not_ok "example $name: output differs from tests/golden/examples/$name.out"
		head -40 "$TMP/diff"
	fi
done
