# The Python package (python/ppsim) against this build's libppsim.so: its unittest suite in
# tests/python/, run with PPSIM_LIB naming the library and PPSIM_TEST_LOCALE a locale with a
# decimal comma (built here, found through LOCPATH); skipped without python3 and under a
# sanitizer (python3 would have to preload its runtime).
lib="$(dirname "$PPSIM")/libppsim.so.0"
if [ -n "${PPSIM_SANITIZE:-}" ]; then
	skip "the Python tests" "a sanitizer build"
elif ! command -v python3 >/dev/null 2>&1; then
	skip "the Python tests" "no python3: build-aux/ensure-deps installs it with apt-get"
elif [ ! -f "$lib" ]; then
	not_ok "the Python tests: no $lib (make builds it)"
else
	# without the locale (comma_locale says why) the locale's tests skip
	loc=
	comma_locale && loc=de_DE.UTF-8
	if LOCPATH="$TMP/loc" PPSIM_TEST_LOCALE=$loc PPSIM_LIB="$lib" PYTHONDONTWRITEBYTECODE=1 \
		python3 -m unittest discover -s "$ROOT/tests/python" >"$TMP/python.out" 2>&1; then
		ok
	else
		not_ok "the Python tests: $(tail -20 "$TMP/python.out")"
	fi
fi
