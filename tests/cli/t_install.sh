# make install into a temporary prefix: the installed binary runs, its man page formats, the
# bash completion completes, and a program built with `pkg-config ppsim` links the library and
# simulates (linked with PPSIM_SANITIZE, the flags the library was built with, under make asan);
# make uninstall removes every file again.
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
cat >"$TMP/use.c" <<'PROG'
#include <stdio.h>
#include <string.h>
#include <ppsim/sim.h>

int main(void)
{
	struct config c;
	struct pp_error err = {0};
	struct sim *s;
	int rc;

	config_init(&c);
	strcpy(c.schedule, "1f1b");
	s = sim_run(&c, &err);
	rc = s != NULL && s->metrics.makespan == 33 ? 0 : 1;
	sim_free(s);
	return rc;
}
PROG
if PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc ${PPSIM_SANITIZE:-} "$TMP/use.c" -o "$TMP/use" \
	$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs ppsim) 2>"$TMP/cc.err" &&
	"$TMP/use"; then
	ok
else
	not_ok "a program built with pkg-config ppsim: $(head -c 300 "$TMP/cc.err")"
fi
make -s -C "$ROOT" BUILD="$build" PREFIX="$prefix" uninstall >/dev/null 2>&1
if [ -z "$(find "$prefix" -type f)" ]; then ok; else
	not_ok "make uninstall left $(find "$prefix" -type f | head -3)"
fi
