# `pip install .` of the source tree in a fresh virtual environment of Debian's python3
# (`python3 -m venv --system-site-packages`), offline (PIP_NO_INDEX): pyproject.toml's backend,
# build-aux/ppsim_build.py, builds libppsim.so with make (here in this build's directory, where
# it is up to date: PPSIM_BUILD) and installs the package with the library inside; then
# `python3 -c 'import ppsim; print(ppsim.__version__)'` prints the version, the package loads its
# own copy of the library, and docs/python.md's examples and the package's tests pass against
# the installed package (PPSIM_TEST_INSTALLED: not the tree's). Not under a sanitizer (python3
# would have to preload its runtime). A venv without pip (no python3-venv) uses Debian's pip
# through the system's site packages.
build=$(dirname "$PPSIM")
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
venv="$TMP/venv"
version=$("$PPSIM" --version | cut -d' ' -f2)
if [ -n "${PPSIM_SANITIZE:-}" ]; then
	elsewhere "pip install ." "python3 would have to preload the sanitizer's runtime"
elif ! $python -m venv --system-site-packages "$venv" >"$TMP/venv.out" 2>&1 &&
	! { rm -rf "$venv" && $python -m venv --system-site-packages --without-pip "$venv" &&
		"$venv/bin/python3" -m pip --version; } >>"$TMP/venv.out" 2>&1; then
	skip "pip install ." "no venv with pip: make test installs python3-pip ($(tail -1 "$TMP/venv.out"))"
else
	if (cd "$ROOT" && PPSIM_BUILD="$build" PIP_NO_INDEX=1 PIP_CACHE_DIR="$TMP/pip-cache" \
		PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python3" -m pip install . \
		>"$TMP/pip.out" 2>&1); then
		ok
	else
		not_ok "pip install . in a fresh venv: $(tail -5 "$TMP/pip.out")"
	fi
	# from elsewhere than the tree, so that the tree's python/ is not what is imported
	got=$(cd "$TMP" && env -u PPSIM_LIB -u PYTHONPATH "$venv/bin/python3" -c \
		'import ppsim; print(ppsim.__version__)' 2>&1)
	if [ "$got" = "$version" ]; then ok; else not_ok "import ppsim after pip install: $got"; fi
	where=$(cd "$TMP" && env -u PPSIM_LIB -u PYTHONPATH "$venv/bin/python3" -c \
		'import ppsim, ppsim._lib as l; print(ppsim.__file__, l.load()._name)' 2>&1)
	case $where in
	"$venv"/*/ppsim/__init__.py" $venv"/*/ppsim/libppsim.so.*) ok ;;
	*) not_ok "the installed package and the library it loads: $where" ;;
	esac
	if [ -f "$(dirname "${where%% *}")/py.typed" ]; then ok; else
		not_ok "the installed package has no py.typed"
	fi
	if (cd "$TMP" && env -u PPSIM_LIB -u PYTHONPATH PPSIM_TEST_INSTALLED=1 PPSIM="$PPSIM" \
		PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python3" -m unittest discover \
		-s "$ROOT/tests/python" >"$TMP/installed.out" 2>&1); then
		ok
	else
		not_ok "the tests against the installed package: $(tail -20 "$TMP/installed.out")"
	fi
fi
