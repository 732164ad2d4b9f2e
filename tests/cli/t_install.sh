# make install into a temporary prefix: the installed binary runs, its man page formats, the
# bash completion completes (zsh's and fish's are in place), the library's interface is what
# ppsim.h declares and C and C++ programs build against it through pkg-config (linked with
# PPSIM_SANITIZE, the flags the library was built with, under make asan), the installed Python
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
# The library's interface: make install puts exactly ppsim.h and the version.h it includes in
# PREFIX/include/ppsim; -lppsim picks the shared library (SONAME libppsim.so.ABI, PP_ABI_VERSION)
# through its two symlinks; it exports exactly the functions ppsim.h declares, which are the
# version script's list; a C program and a C++ one using every installed header
# (tests/api/use.c, use.cc: every call) and the C example of docs/python.md build with
# `pkg-config --cflags --libs ppsim` and run (rpath: the prefix is not on the loader's path);
# libppsim.a defines the same global names alone, and use.c links against it and runs.
abi=$(sed -n 's/^#define PP_ABI_VERSION  *//p' "$ROOT/include/ppsim/ppsim.h")
so="$prefix/lib/libppsim.so"
if [ "$(cd "$prefix/include/ppsim" && ls)" = "$(printf 'ppsim.h\nversion.h')" ]; then ok; else
	not_ok "make install: the headers installed are $(cd "$prefix/include/ppsim" && ls | tr '\n' ' '), not ppsim.h and version.h"
fi
if [ -n "$abi" ] && [ -L "$so" ] && [ -L "$prefix/lib/libppsim.so.$abi" ] &&
	[ -f "$(readlink -f "$so")" ]; then
	ok
else
	not_ok "make install: no libppsim.so -> libppsim.so.$abi -> the library"
fi
# the functions ppsim.h declares: each line of a declaration that names pp_NAME( at its start
sed -n 's/^[a-z][a-z_ *]*[ *]\(pp_[a-z_]*\)(.*/\1/p' "$prefix/include/ppsim/ppsim.h" | sort \
	>"$TMP/declared"
nm -D --defined-only "$so" | awk '{ print $3 }' | sort >"$TMP/exported"
sed -n 's/^[[:space:]]*\(pp_[a-z_]*\);$/\1/p' "$ROOT/build-aux/libppsim.map" | sort >"$TMP/mapped"
if [ "$(wc -l <"$TMP/declared")" -ge 20 ] && cmp -s "$TMP/declared" "$TMP/exported"; then ok; else
	not_ok "libppsim.so exports other names than ppsim.h declares (< declared, > exported): $(diff "$TMP/declared" "$TMP/exported" | grep '^[<>]' | head -5 | tr '\n' ' ')"
fi
# the static library too: its only global symbols are the same calls (the rest localized)
nm -g --defined-only "$prefix/lib/libppsim.a" | awk 'NF == 3 { print $3 }' | sort \
	>"$TMP/archived"
if cmp -s "$TMP/declared" "$TMP/archived"; then ok; else
	not_ok "libppsim.a defines other global names than ppsim.h declares (< declared, > defined): $(diff "$TMP/declared" "$TMP/archived" | grep '^[<>]' | head -5 | tr '\n' ' ')"
fi
if cmp -s "$TMP/declared" "$TMP/mapped"; then ok; else
	not_ok "build-aux/libppsim.map lists other names than ppsim.h declares: $(diff "$TMP/declared" "$TMP/mapped" | grep '^[<>]' | head -5 | tr '\n' ' ')"
fi
if command -v readelf >/dev/null 2>&1; then
	soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
else
	soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
fi
if [ "$soname" = "libppsim.so.$abi" ]; then ok; else not_ok "libppsim.so: SONAME '$soname'"; fi
pc() { PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config "$@"; }
if [ "$(pc --modversion ppsim)" = "$("$PPSIM" --version | cut -d' ' -f2)" ] &&
	[ "$(pc --cflags ppsim | sed 's/ *$//')" = "-I$prefix/include" ] &&
	pc --libs --static ppsim | grep -q -- '-lppsim .*-lcjson'; then
	ok
else
	not_ok "ppsim.pc: version '$(pc --modversion ppsim 2>&1)', cflags '$(pc --cflags ppsim 2>&1)'"
fi
# the C example of docs/python.md, the first ```c block
awk '/^```c$/ { on = 1; next } /^```/ { if (on) exit } on' "$ROOT/docs/python.md" >"$TMP/example.c"
for prog in "$ROOT/tests/api/use.c:cc -std=c99" "$TMP/example.c:cc -std=c99" \
	"$ROOT/tests/api/use.cc:g++ -std=c++11"; do
	src=${prog%%:*}
	compiler=${prog#*:}
	name=$(basename "$src")
	if ! command -v "${compiler%% *}" >/dev/null 2>&1; then
		skip "$name against the installed library" "no ${compiler%% *}: make test installs it"
		continue
	fi
	# shellcheck disable=SC2046 # pkg-config's flags are words
	if $compiler -Wall -Wextra -Wpedantic -Werror ${PPSIM_SANITIZE:-} "$src" -o "$TMP/$name.bin" \
		$(pc --cflags --libs ppsim) -Wl,-rpath,"$prefix/lib" 2>"$TMP/cc.err"; then
		"$TMP/$name.bin" "$ROOT" >"$TMP/$name.out" 2>&1
		st=$?
		case $name in
		example.c) want='"makespan":	33,' ;;
		*) want=ok ;;
		esac
		if [ $st -eq 0 ] && grep -qF "$want" "$TMP/$name.out"; then ok; else
			not_ok "$name against the installed library exited $st: $(head -c 400 "$TMP/$name.out")"
		fi
		if readelf -d "$TMP/$name.bin" 2>/dev/null | grep -q "NEEDED.*libppsim.so.$abi"; then ok; else
			not_ok "$name, linked with pkg-config's -lppsim, does not load libppsim.so.$abi"
		fi
	else
		not_ok "$name does not build against the installed files: $(head -c 400 "$TMP/cc.err")"
	fi
done
# the C program linked statically: libppsim.a with pkg-config's --static libraries after it
if command -v cc >/dev/null 2>&1; then
	# shellcheck disable=SC2046 # pkg-config's flags are words
	if cc -std=c99 -Wall -Werror ${PPSIM_SANITIZE:-} "$ROOT/tests/api/use.c" -o "$TMP/static.bin" \
		$(pc --cflags ppsim) "$prefix/lib/libppsim.a" \
		$(pc --libs --static ppsim | sed 's/-L[^ ]*//; s/-lppsim//') 2>"$TMP/cc.err" &&
		"$TMP/static.bin" "$ROOT" >"$TMP/static.out" 2>&1 && grep -q ok "$TMP/static.out" &&
		! readelf -d "$TMP/static.bin" 2>/dev/null | grep -q "NEEDED.*libppsim"; then
		ok
	else
		not_ok "use.c linked with the installed libppsim.a: $(head -c 400 "$TMP/cc.err" "$TMP/static.out" 2>/dev/null)"
	fi
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
