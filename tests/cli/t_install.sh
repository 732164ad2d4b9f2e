# make install into a temporary prefix: the installed binary runs, its man page formats, the
# bash completion completes (zsh's and fish's are in place), a C and a C++ program built against the installed headers and
# libppsim.so simulate (linked with PPSIM_SANITIZE, the flags the library was built with, under
# make asan), the shared library exports only pp_ names under its SONAME, the installed Python
# package runs; make uninstall removes every file again.
prefix="$TMP/prefix"
build=$(dirname "$PPSIM")
if make -s -C "$ROOT" BUILD="$build" PREFIX="$prefix" install >"$TMP/install.out" 2>&1; then
	ok
else
	not_ok "make install: $(tail -5 "$TMP/install.out")"
fi
if "$prefix/bin/ppsim" --version >"$TMP/version.out" 2>"$TMP/version.err" &&
	grep -q '^ppsim [0-9]' "$TMP/version.out" && [ ! -s "$TMP/version.err" ]; then
	ok
else
	not_ok "the installed ppsim --version: $(cat "$TMP/version.out" "$TMP/version.err")"
fi
if command -v man >/dev/null 2>&1; then
	if MANWIDTH=80 man -l "$prefix/share/man/man1/ppsim.1" 2>"$TMP/man.err" |
		grep -q 'simulate pipeline-parallel training schedules' && [ ! -s "$TMP/man.err" ]; then
		ok
	else
		not_ok "man -l the installed page: $(head -c 200 "$TMP/man.err")"
	fi
else
	skip "the installed man page" "no man: make test installs man-db"
fi
# the zsh and fish scripts are where those shells look, and are what ppsim prints
if cmp -s "$prefix/share/zsh/site-functions/_ppsim" "$build/ppsim.zsh" &&
	cmp -s "$prefix/share/fish/vendor_completions.d/ppsim.fish" "$build/ppsim.fish" &&
	head -n 1 "$prefix/share/zsh/site-functions/_ppsim" | grep -qx '#compdef ppsim' &&
	grep -q '^complete -c ppsim ' "$prefix/share/fish/vendor_completions.d/ppsim.fish"; then
	ok
else
	not_ok "make install: no zsh or fish completion where those shells look"
fi
# complete COMMAND-LINE...: what the installed completion offers for the last word
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ppsim;
		echo "${COMPREPLY[*]}"' sh "$prefix/share/bash-completion/completions/ppsim" "$@"
}
# run takes --schedule and --schedule-file; compare --schedules too
if [ "$(complete_words ppsim --sched)" = "--schedule --schedule-file" ] &&
	[ "$(complete_words ppsim compare --sched)" = "--schedules --schedule --schedule-file" ]; then
	ok
else
	not_ok "completion of --sched: $(complete_words ppsim --sched) / $(complete_words ppsim \
		compare --sched)"
fi
# the schedules starting with "zb", in the order of `ppsim list` (the generator table)
zb_names=$("$PPSIM" list | sed -n '/^Schedules/,/^$/p' | awk '$1 ~ /^zb/ { printf "%s%s", s, $1; s = " " }')
if [ -n "$zb_names" ] && [ "$(complete_words ppsim -s zb)" = "$zb_names" ] &&
	[ "$(complete_words ppsim serve --batch)" = "--batching" ] &&
	[ "$(complete_words ppsim serve --batching = c)" = "continuous chunked" ] &&
	[ "$(complete_words ppsim sw)" = "sweep" ]; then
	ok
else
	not_ok "completion of values and commands"
fi
# -lppsim picks the shared library, which exports only the pp_ names of <ppsim/ppsim.h>: a C
# program and a C++ one (extern "C") built against the installed files simulate 1f1b p=4 m=8
# and read the makespan, 33, from the JSON report (rpath: the prefix is not on the loader's path)
so="$prefix/lib/libppsim.so"
if [ -L "$so" ] && [ -L "$prefix/lib/libppsim.so.0" ] && [ -f "$(readlink -f "$so")" ]; then ok; else
	not_ok "make install: no libppsim.so -> libppsim.so.0 -> the library"
fi
if [ -z "$(nm -D --defined-only "$so" | awk '$3 !~ /^pp_/')" ] &&
	nm -D --defined-only "$so" | grep -q ' pp_simulate$'; then
	ok
else
	not_ok "libppsim.so exports names other than pp_: $(nm -D --defined-only "$so" |
		awk '$3 !~ /^pp_/ { print $3 }' | head -5 | tr '\n' ' ')"
fi
if command -v readelf >/dev/null 2>&1; then
	soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
else
	soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
fi
if [ "$soname" = libppsim.so.0 ]; then ok; else not_ok "libppsim.so: SONAME '$soname'"; fi
cat >"$TMP/use.c" <<'PROG'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ppsim/ppsim.h>

int main(void)
{
	char err[256];
	pp_config *c = pp_config_new();
	pp_run *r;
	char *json;
	int rc;

	if (c == NULL || pp_config_set(c, "schedule", "1f1b", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "p", "4", err, sizeof(err)) != 0 ||
	    pp_config_set(c, "m", "8", err, sizeof(err)) != 0 ||
	    (r = pp_simulate(c, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	json = pp_run_report(r, "json", err, sizeof(err));
	rc = json != NULL && strstr(json, "\"makespan\":\t33,") != NULL ? 0 : 1;
	pp_string_free(json);
	pp_run_free(r);
	pp_config_free(c);
	/* a bad value is an error message, not an abort */
	c = pp_config_new();
	if (pp_config_set(c, "stages", "0", err, sizeof(err)) == 0 || strstr(err, "--stages") == NULL)
		rc = 1;
	pp_config_free(c);
	return rc;
}
PROG
if PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc ${PPSIM_SANITIZE:-} "$TMP/use.c" -o "$TMP/use" \
	$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs ppsim) \
	-Wl,-rpath,"$prefix/lib" 2>"$TMP/cc.err" && "$TMP/use"; then
	ok
else
	not_ok "a program built with pkg-config ppsim: $(head -c 300 "$TMP/cc.err")"
fi
if readelf -d "$TMP/use" 2>/dev/null | grep -q 'NEEDED.*libppsim.so.0'; then ok; else
	not_ok "a program linked with -lppsim does not load libppsim.so.0"
fi
if command -v g++ >/dev/null 2>&1; then
	cat >"$TMP/use.cc" <<'PROG'
#include <ppsim/ppsim.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main()
{
	char err[256] = "";
	pp_config *c = pp_config_new();
	const char *settings[][2] = {{"schedule", "1f1b"}, {"p", "4"}, {"m", "8"}};
	int major = -1;

	for (auto &kv : settings)
		if (pp_config_set(c, kv[0], kv[1], err, sizeof err) != 0)
			return std::fprintf(stderr, "%s\n", err), 1;
	pp_run *r = pp_simulate(c, err, sizeof err);
	pp_config_free(c);
	if (r == nullptr)
		return std::fprintf(stderr, "%s\n", err), 1;
	char *json = pp_run_report(r, nullptr, err, sizeof err);
	std::string text = json != nullptr ? json : "";
	pp_string_free(json);
	pp_run_free(r);
	std::printf("%s", text.c_str());
	return std::string(pp_version(&major, nullptr, nullptr)) == PP_VERSION &&
	                       major == PP_VERSION_MAJOR
	               ? 0
	               : 1;
}
PROG
	if g++ -std=c++11 -Wall -Wextra -Werror ${PPSIM_SANITIZE:-} -I"$prefix/include" \
		"$TMP/use.cc" -o "$TMP/usecc" -L"$prefix/lib" -lppsim -Wl,-rpath,"$prefix/lib" \
		2>"$TMP/cxx.err" && "$TMP/usecc" >"$TMP/out.json" 2>"$TMP/cxx.err"; then
		RUN="the C++ program against the installed libppsim.so"
		expect makespan 33
		expect schedule 1f1b
	else
		not_ok "a C++ program against the installed library: $(head -c 300 "$TMP/cxx.err")"
	fi
else
	skip "the C++ link test" "no g++: make test installs it with apt-get"
fi
# the Python package, installed beside the library, finds it (no PPSIM_LIB); not under a
# sanitizer, whose runtime python3 would have to preload
if [ -n "${PPSIM_SANITIZE:-}" ]; then
	elsewhere "the installed Python package" "python3 would have to preload the sanitizer's runtime"
elif command -v python3 >/dev/null 2>&1; then
	got=$(cd "$TMP" && env -u PPSIM_LIB PYTHONPATH="$prefix/lib/python3/dist-packages" python3 -c \
		"import ppsim; print(ppsim.run(schedule='1f1b', p=4, m=8)['makespan'])" 2>&1)
	if [ "$got" = 33 ]; then ok; else not_ok "the installed Python package: $got"; fi
else
	skip "the installed Python package" "no python3"
fi
make -s -C "$ROOT" BUILD="$build" PREFIX="$prefix" uninstall >/dev/null 2>&1
if [ -z "$(find "$prefix" -type f)" ]; then ok; else
	not_ok "make uninstall left $(find "$prefix" -type f | head -3)"
fi
