# The build's dependency step: quiet when pkg-config finds cJSON, CUnit and zlib; on a system
# without apt-get it names the packages to install and fails instead of going on.
mkdir -p "$TMP/fakebin"
printf '#!/bin/sh\nexit 1\n' >"$TMP/fakebin/pkg-config"
chmod +x "$TMP/fakebin/pkg-config"
if PATH="$TMP/fakebin" /bin/sh "$ROOT/build-aux/ensure-deps" >"$TMP/deps.out" 2>"$TMP/deps.err"; then
	not_ok "ensure-deps succeeded with no cJSON, CUnit or apt-get"
elif ! grep -q "libcjson-dev libcunit1-dev libxml2-utils" "$TMP/deps.err" || [ -s "$TMP/deps.out" ]; then
	not_ok "ensure-deps without apt-get does not name the packages: $(cat "$TMP/deps.err")"
else
	ok
fi
if command -v pkg-config >/dev/null && pkg-config --exists libcjson cunit zlib; then
	if sh "$ROOT/build-aux/ensure-deps" >"$TMP/deps.out" 2>&1 && [ ! -s "$TMP/deps.out" ]; then
		ok
	else
		not_ok "ensure-deps is not quiet when everything is installed: $(cat "$TMP/deps.out")"
	fi
fi

# Where apt-get exists, the missing packages are installed with it, as root or through sudo,
# and the build says so; a failed install refreshes the package lists and retries once.
# Fake id, sudo, apt-get and pkg-config stand in for the system: pkg-config finds the
# libraries once the fake apt-get has "installed" them.
fake_system() { # $1: uid; $2: fail the first install (1) or not (0)
	rm -rf "$TMP/sys"
	mkdir -p "$TMP/sys/bin"
	printf '#!/bin/sh\n[ "$1" = -u ] && echo %s\n' "$1" >"$TMP/sys/bin/id"
	# like sudo's env_reset, the fake clears the environment but for PATH
	printf '#!/bin/sh\necho "sudo $*" >>"%s/sys/log"\nexec env -i PATH="$PATH" "$@"\n' "$TMP" \
		>"$TMP/sys/bin/sudo"
	cat >"$TMP/sys/bin/apt-get" <<FAKE
#!/bin/sh
echo "apt-get \$* (DEBIAN_FRONTEND=\$DEBIAN_FRONTEND)" >>"$TMP/sys/log"
[ "\$1" = update ] && { : >"$TMP/sys/updated"; exit 0; }
[ "$2" = 1 ] && [ ! -e "$TMP/sys/updated" ] && exit 100
: >"$TMP/sys/installed"
FAKE
	printf '#!/bin/sh\n[ -e "%s/sys/installed" ]\n' "$TMP" >"$TMP/sys/bin/pkg-config"
	chmod +x "$TMP/sys/bin/"*
}
install_line="apt-get install -y --no-install-recommends pkg-config libcjson-dev libcunit1-dev libxml2-utils zlib1g-dev g++ python3 zsh fish (DEBIAN_FRONTEND=noninteractive)"
for case in "0 0 $install_line" "1000 0 $install_line" "0 1 $install_line"; do
	uid=${case%% *}
	rest=${case#* }
	fail=${rest%% *}
	want=${rest#* }
	fake_system "$uid" "$fail"
	if PATH="$TMP/sys/bin:$PATH" sh "$ROOT/build-aux/ensure-deps" >"$TMP/deps.out" \
		2>"$TMP/deps.err" && [ ! -s "$TMP/deps.out" ] &&
		grep -q "^ppsim build: installing pkg-config libcjson-dev libcunit1-dev libxml2-utils zlib1g-dev g++ python3 zsh fish with apt-get" "$TMP/deps.err" &&
		grep -q "^ppsim build: installed " "$TMP/deps.err" &&
		grep -qxF "$want" "$TMP/sys/log" &&
		{ [ "$fail" = 0 ] || [ "$(grep -c 'apt-get' "$TMP/sys/log")" -eq 3 ]; } &&
		{ [ "$uid" = 0 ] || grep -q "^sudo env DEBIAN_FRONTEND=noninteractive apt-get install" "$TMP/sys/log"; } &&
		{ [ "$fail" = 1 ] || [ "$(wc -l <"$TMP/sys/log")" -eq "$([ "$uid" = 0 ] && echo 1 || echo 2)" ]; }; then
		ok
	else
		not_ok "ensure-deps (uid $uid, failing first install: $fail): $(cat "$TMP/deps.err"); log: $(cat "$TMP/sys/log" 2>/dev/null)"
	fi
done
# not root and no sudo: it says how to install as root and fails
fake_system 1000 0
rm "$TMP/sys/bin/sudo"
mkdir -p "$TMP/sys/nosudo"
for tool in sh grep cat; do ln -s "$(command -v $tool)" "$TMP/sys/nosudo/$tool"; done
if PATH="$TMP/sys/bin:$TMP/sys/nosudo" "$(command -v sh)" "$ROOT/build-aux/ensure-deps" >"$TMP/deps.out" 2>"$TMP/deps.err"; then
	not_ok "ensure-deps succeeded without root or sudo"
elif grep -q "run as root: apt-get install -y pkg-config libcjson-dev" "$TMP/deps.err" && [ ! -e "$TMP/sys/log" ]; then
	ok
else
	not_ok "ensure-deps without root or sudo: $(cat "$TMP/deps.err")"
fi

# The build's side programs: --help prints their usage and exits 0, an unknown option or a
# second argument is refused with status 2; none of them runs its work or writes a file then
# (bench_ppsim --help once wrote its JSON to a file named "--help"). Each runs in an empty
# folder, which must stay empty.
BENCH=$(dirname "$PPSIM")/bench_ppsim
for run in "$BENCH --help|0" "$BENCH -h|0" "$BENCH --nope|2" "$BENCH out.json extra|2" \
	"sh $ROOT/bench/peers.sh --help|0" "sh $ROOT/bench/peers.sh --nope|2"; do
	cmd=${run%|*}
	want=${run##*|}
	rm -rf "$TMP/side" && mkdir "$TMP/side"
	# shellcheck disable=SC2086 # the command's words
	(cd "$TMP/side" && timeout 60 $cmd >"$TMP/side.out" 2>"$TMP/side.err")
	status=$?
	left=$(ls -A "$TMP/side")
	if [ $status -ne "$want" ] || [ -n "$left" ]; then
		not_ok "$cmd: status $status (expected $want), left '$left': $(head -c 200 "$TMP/side.err")"
	elif [ "$want" = 0 ] && { ! grep -qi '^usage: ' "$TMP/side.out" || [ -s "$TMP/side.err" ]; }; then
		not_ok "$cmd prints no usage on stdout: $(head -c 200 "$TMP/side.out" "$TMP/side.err")"
	elif [ "$want" = 2 ] && [ -s "$TMP/side.out" ]; then
		not_ok "$cmd, refused, wrote to stdout: $(head -c 200 "$TMP/side.out")"
	else
		ok
	fi
done
