# The Python package (python/ppsim) against this build's libppsim.so: its unittest suite in
# tests/python/ (docs/python.md's examples among them, as doctests), run with PPSIM_LIB naming
# the library and PPSIM_TEST_LOCALE a locale with a decimal comma (built here, found through
# LOCPATH), by Debian's python3 (where make test installs NumPy and pandas, for the arrays and
# DataFrames) or else the first on the PATH; not under a sanitizer (python3 would have to
# preload its runtime). A test the suite skips (no pandas, no locale) is a skip here.
lib="$(dirname "$PPSIM")/libppsim.so.$(sed -n 's/^#define PP_ABI_VERSION  *//p' \
	"$ROOT/include/ppsim/ppsim.h")"
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
if [ -n "${PPSIM_SANITIZE:-}" ]; then
	elsewhere "the Python tests" "python3 would have to preload the sanitizer's runtime"
elif ! command -v $python >/dev/null 2>&1; then
	skip "the Python tests" "no python3: make test installs it with apt-get"
elif [ ! -f "$lib" ]; then
	not_ok "the Python tests: no $lib (make builds it)"
else
	# without the locale (comma_locale says why) the locale's tests skip
	loc=
	comma_locale && loc=de_DE.UTF-8
	if LOCPATH="$TMP/loc" PPSIM_TEST_LOCALE=$loc PPSIM_LIB="$lib" PYTHONDONTWRITEBYTECODE=1 \
		$python -m unittest discover -v -s "$ROOT/tests/python" >"$TMP/python.out" 2>&1; then
		ok
		sed -n "s/.* \.\.\. skipped '\(.*\)'$/\1/p" "$TMP/python.out" | sort | uniq -c \
			>"$TMP/python.skips"
		while read -r n why; do
			skip "$n of the Python tests" "$why"
		done <"$TMP/python.skips"
	else
		not_ok "the Python tests: $(tail -20 "$TMP/python.out")"
	fi
fi
# the package's type hints hold: mypy --strict over python/ppsim (make test installs mypy)
if command -v mypy >/dev/null 2>&1; then
	if (cd "$ROOT/python" && MYPY_CACHE_DIR="$TMP/mypy" mypy --strict ppsim >"$TMP/mypy.out" 2>&1); then
		ok
	else
		not_ok "mypy --strict python/ppsim: $(tail -10 "$TMP/mypy.out")"
	fi
else
	skip "the Python package's type hints" "no mypy: make test installs it with apt-get"
fi
