# The library does not depend on its caller's locale (docs/robustness.md): a program whose
# locale writes numbers with a decimal comma (de_DE.UTF-8, built here) gets from the facade what
# the "C" locale gets, "1.5" read and 38.5 written, and a sweep's threads read and write as the
# thread that started them (tests/tools/api_locale.c); the Python package's side is in
# tests/python (t_python.sh). The command never takes a locale from its environment.
if comma_locale; then
	api=$(dirname "$PPSIM")/api_locale
	if out=$(LOCPATH="$TMP/loc" ${PPSIM_WRAP:-} "$api" de_DE.UTF-8 2>&1) && [ "$out" = ok ]; then
		ok
	else
		not_ok "the facade under de_DE.UTF-8 (tests/tools/api_locale.c): $(printf '%s' "$out" | head -c 1500)"
	fi
	for args in "-s zbh1 -p 4 -m 8 --tf 1.5 --tcomm 0.25 --format=json" \
		"sweep --tf 1.5,2.5 -p 2,4 -m 8 --jobs=2 --format=csv"; do
		# shellcheck disable=SC2086
		want=$(ppsim $args 2>&1)
		# shellcheck disable=SC2086
		got=$(LOCPATH="$TMP/loc" LC_ALL=de_DE.UTF-8 ppsim $args 2>&1)
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			ok
		else
			not_ok "ppsim $args under LC_ALL=de_DE.UTF-8 differs: $(printf '%s' "$got" | head -c 300)"
		fi
	done
fi
