# The build's dependency step: quiet when pkg-config finds cJSON, CUnit and zlib; on a system
# without apt-get it names the packages to install and fails instead of going on.
mkdir -p "$TMP/fakebin"
printf '#!/bin/sh\nexit 1\n' >"$TMP/fakebin/pkg-config"
chmod +x "$TMP/fakebin/pkg-config"
if PATH="$TMP/fakebin" /bin/sh "$ROOT/build-aux/ensure-deps" >"$TMP/deps.out" 2>"$TMP/deps.err"; then
	not_ok "ensure-deps succeeded with no cJSON, CUnit or apt-get"
elif ! grep -q "pkg-config libcjson-dev libcunit1-dev zlib1g-dev" "$TMP/deps.err" || [ -s "$TMP/deps.out" ]; then
	not_ok "ensure-deps without apt-get does not name the packages: $(cat "$TMP/deps.err")"
else
	ok
fi
if sh "$ROOT/build-aux/ensure-deps" >"$TMP/deps.out" 2>&1 && [ ! -s "$TMP/deps.out" ]; then
	ok
else
	not_ok "ensure-deps is not quiet when everything is installed: $(cat "$TMP/deps.out")"
fi

# Where apt-get exists, the missing packages are installed with it (build-aux/apt-install.sh),
# as root or through sudo, and the build says so. Fake id, sudo, apt-get and pkg-config stand
# in for the system: each records its calls in TMP/sys/log; pkg-config finds the libraries,
# and a command named after each package appears, once the fake apt-get has "installed" them.
#   fake_system UID SUDO APT
#   SUDO: ok (runs the command, clearing the environment but for PATH as sudo's env_reset
#         does); refused (the user is not in sudoers); password (with -n fails as sudo does
#         when a password is needed; without, "prompts", the user types it, and sudo -n then
#         works, as sudo remembers it)
#   APT:  ok; empty (the package lists are empty until apt-get update: a simulated or real
#         install fails); stale (a real install fails until apt-get update, a 404 as after a
#         point release); broken (every real install fails); missing (the lists never have
#         the packages)
fake_system() {
	rm -rf "$TMP/sys"
	mkdir -p "$TMP/sys/bin"
	printf '#!/bin/sh\n[ "$1" = -u ] && echo %s\n' "$1" >"$TMP/sys/bin/id"
	cat >"$TMP/sys/bin/sudo" <<FAKE
#!/bin/sh
n=""
[ "\$1" = -n ] && { n=" -n"; shift; }
echo "sudo\$n \$*" >>"$TMP/sys/log"
case $2 in
refused) echo "user is not in the sudoers file." >&2; exit 1 ;;
password)
	if [ -z "\$n" ]; then echo "sudo prompted" >>"$TMP/sys/log"; : >"$TMP/sys/remembered"
	elif [ ! -e "$TMP/sys/remembered" ]; then echo "sudo: a password is required" >&2; exit 1; fi ;;
esac
exec env -i PATH="\$PATH" "\$@"
FAKE
	cat >"$TMP/sys/bin/apt-get" <<FAKE
#!/bin/sh
echo "apt-get \$* (DEBIAN_FRONTEND=\${DEBIAN_FRONTEND:-})" >>"$TMP/sys/log"
case " \$* " in
*" --version "*) echo "apt 2.6.1 (amd64)"; exit 0 ;;
*" update "*) echo "Hit:1 http://deb.debian.org/debian bookworm InRelease"; : >"$TMP/sys/updated"; exit 0 ;;
esac
simulated=no
case " \$* " in *" -s "*) simulated=yes ;; esac
case $3 in
empty) [ -e "$TMP/sys/updated" ] || { echo "E: Unable to locate package fake-empty" >&2; exit 100; } ;;
stale) [ \$simulated = yes ] || [ -e "$TMP/sys/updated" ] ||
	{ echo "E: Failed to fetch http://deb.debian.org/fake-stale.deb  404  Not Found" >&2; exit 100; } ;;
broken) [ \$simulated = yes ] || { echo "E: fake-broken: dpkg was interrupted" >&2; exit 100; } ;;
missing) echo "E: Unable to locate package fake-missing" >&2; exit 100 ;;
esac
[ \$simulated = yes ] && exit 0
: >"$TMP/sys/installed"
for a in "\$@"; do
	case \$a in -* | install | DPkg::*) ;; *) printf '#!/bin/sh\n' >"$TMP/sys/bin/\$a"; chmod +x "$TMP/sys/bin/\$a" ;; esac
done
FAKE
	printf '#!/bin/sh\n[ -e "%s/sys/installed" ]\n' "$TMP" >"$TMP/sys/bin/pkg-config"
	chmod +x "$TMP/sys/bin/"*
}
apt="apt-get -o DPkg::Lock::Timeout=300"
packages="pkg-config libcjson-dev libcunit1-dev zlib1g-dev"
install_line="$apt install -y --no-install-recommends $packages (DEBIAN_FRONTEND=noninteractive)"
advice="run as root: apt-get install -y $packages"
# deps_in_fake UID SUDO APT: runs ensure-deps in fake_system UID SUDO APT without a terminal
deps_in_fake() {
	fake_system "$@"
	env -u DEBIAN_FRONTEND PATH="$TMP/sys/bin:$PATH" sh "$ROOT/build-aux/ensure-deps" \
		>"$TMP/deps.out" 2>"$TMP/deps.err" </dev/null
}
# fake_log_is LINE...: the fake system's log holds exactly these lines, in this order
fake_log_is() {
	printf '%s\n' "$@" | cmp -s - "$TMP/sys/log"
}
# before A B: in ensure-deps' messages, a line containing A comes before one containing B
before() {
	a=$(grep -n -m 1 -F -- "$1" "$TMP/deps.err" | cut -d: -f1)
	b=$(grep -n -m 1 -F -- "$2" "$TMP/deps.err" | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
}
why_failed() {
	echo "$(cat "$TMP/deps.err"); log: $(cat "$TMP/sys/log" 2>/dev/null)"
}
# as root: a simulated install finds the packages, one real install, said before and after
if deps_in_fake 0 ok ok && [ ! -s "$TMP/deps.out" ] &&
	grep -q "^ppsim build: installing $packages with apt-get" "$TMP/deps.err" &&
	grep -q "^ppsim build: installed $packages" "$TMP/deps.err" &&
	fake_log_is "apt-get -s install $packages (DEBIAN_FRONTEND=)" "$install_line"; then
	ok
else
	not_ok "ensure-deps as root: $(why_failed)"
fi
# through sudo, without a terminal: sudo -n, so that it never asks
if deps_in_fake 1000 ok ok && grep -q "^ppsim build: installed " "$TMP/deps.err" &&
	fake_log_is "sudo -n env DEBIAN_FRONTEND=noninteractive $apt --version" \
		"$apt --version (DEBIAN_FRONTEND=noninteractive)" \
		"apt-get -s install $packages (DEBIAN_FRONTEND=)" \
		"sudo -n env DEBIAN_FRONTEND=noninteractive $apt install -y --no-install-recommends $packages" \
		"$install_line"; then
	ok
else
	not_ok "ensure-deps through sudo: $(why_failed)"
fi
# empty package lists: refreshed before the install, so that apt's error never shows
if deps_in_fake 0 ok empty && grep -q "^ppsim build: installed " "$TMP/deps.err" &&
	! grep -q "Unable to locate" "$TMP/deps.err" &&
	before "installing" "refreshing them first (apt-get update)" &&
	fake_log_is "apt-get -s install $packages (DEBIAN_FRONTEND=)" \
		"$apt update (DEBIAN_FRONTEND=noninteractive)" "$install_line"; then
	ok
else
	not_ok "ensure-deps with empty package lists: $(why_failed)"
fi
# stale lists: the failed install refreshes them and retries once; apt's error stays hidden
if deps_in_fake 0 ok stale && grep -q "^ppsim build: installed " "$TMP/deps.err" &&
	! grep -q "404" "$TMP/deps.err" &&
	grep -q "apt-get install failed: refreshing the package lists and trying once more" \
		"$TMP/deps.err" &&
	fake_log_is "apt-get -s install $packages (DEBIAN_FRONTEND=)" "$install_line" \
		"$apt update (DEBIAN_FRONTEND=noninteractive)" "$install_line"; then
	ok
else
	not_ok "ensure-deps with stale package lists: $(why_failed)"
fi
# an install that fails twice: apt's output, after the retry is announced, then the advice
if deps_in_fake 0 ok broken; then
	not_ok "ensure-deps succeeded when apt-get cannot install"
elif before "trying once more" "ppsim build: apt-get: E: fake-broken" &&
	before "ppsim build: apt-get: E: fake-broken" "apt-get could not install $packages" &&
	[ "$(tail -n 1 "$TMP/deps.err" | sed 's/.*: run as root/run as root/')" = "$advice" ]; then
	ok
else
	not_ok "ensure-deps when apt-get fails: $(why_failed)"
fi
# lists that lack the packages even when refreshed: refreshed once, installed once, apt's
# error, the advice
if deps_in_fake 0 ok missing; then
	not_ok "ensure-deps succeeded when apt-get has no such packages"
elif fake_log_is "apt-get -s install $packages (DEBIAN_FRONTEND=)" \
	"$apt update (DEBIAN_FRONTEND=noninteractive)" "$install_line" &&
	before "refreshing them first" "ppsim build: apt-get: E: Unable to locate package fake-missing" &&
	[ "$(tail -n 1 "$TMP/deps.err" | sed 's/.*: run as root/run as root/')" = "$advice" ]; then
	ok
else
	not_ok "ensure-deps when the refreshed lists lack the packages: $(why_failed)"
fi
# sudo that refuses (no rights), or wants a password without a terminal: asked once (-n),
# nothing installed; sudo's reason, then the advice
for case in "refused|user is not in the sudoers file." "password|sudo: a password is required"; do
	mode=${case%%|*}
	if deps_in_fake 1000 $mode ok; then
		not_ok "ensure-deps succeeded through a sudo that is $mode"
	elif fake_log_is "sudo -n env DEBIAN_FRONTEND=noninteractive $apt --version" &&
		[ "$(head -n 1 "$TMP/deps.err")" = "${case#*|}" ] &&
		grep -q "sudo may not run apt-get here" "$TMP/deps.err" &&
		[ "$(sed -n '2,$s/.*: run as root/run as root/p' "$TMP/deps.err")" = "$advice" ]; then
		ok
	else
		not_ok "ensure-deps through a sudo that is $mode: $(why_failed)"
	fi
done
# on a terminal, sudo may ask for the password once; the rest runs on what it remembers
if command -v script >/dev/null 2>&1; then
	fake_system 1000 password ok
	script -qec "env -u DEBIAN_FRONTEND PATH='$TMP/sys/bin:$PATH' sh '$ROOT/build-aux/ensure-deps'; echo \"rc=\$?\"" \
		/dev/null </dev/null | tr -d '\r' >"$TMP/deps.err"
	if grep -q '^rc=0$' "$TMP/deps.err" && [ "$(grep -c "^sudo prompted" "$TMP/sys/log")" -eq 1 ] &&
		[ "$(grep -c '^sudo ' "$TMP/sys/log")" -eq 3 ] &&
		[ "$(grep -c '^sudo -n ' "$TMP/sys/log")" -eq 1 ]; then
		ok
	else
		not_ok "ensure-deps through sudo on a terminal: $(why_failed)"
	fi
else
	skip "ensure-deps through sudo on a terminal" "no script(1)"
fi
# not root and no sudo: it says how to install as root and fails
fake_system 1000 ok ok
rm "$TMP/sys/bin/sudo"
mkdir -p "$TMP/sys/nosudo"
for tool in sh grep cat; do ln -s "$(command -v $tool)" "$TMP/sys/nosudo/$tool"; done
if PATH="$TMP/sys/bin:$TMP/sys/nosudo" "$(command -v sh)" "$ROOT/build-aux/ensure-deps" >"$TMP/deps.out" 2>"$TMP/deps.err"; then
	not_ok "ensure-deps succeeded without root or sudo"
elif grep -q "not root, and no sudo: $advice" "$TMP/deps.err" && [ ! -e "$TMP/sys/log" ]; then
	ok
else
	not_ok "ensure-deps without root or sudo: $(cat "$TMP/deps.err")"
fi

# ensure-tools installs the package of each missing command or file, once each, and fails
# when the package did not bring what was missing; quiet when nothing is missing.
fake_system 0 ok ok
if PATH="$TMP/sys/bin:$PATH" sh "$ROOT/build-aux/ensure-tools" "ppsim t" "for a test" \
	fake-a fake-b:fake-a fake-c:fake-pkg-c >"$TMP/deps.out" 2>"$TMP/deps.err" &&
	grep -q "^ppsim t: installing fake-a fake-pkg-c with apt-get (for a test)" "$TMP/deps.err" &&
	grep -q "^ppsim t: fake-a is installed but fake-b is still missing" "$TMP/deps.err"; then
	not_ok "ensure-tools succeeded though fake-a brought no fake-b"
elif grep -q "^ppsim t: fake-a is installed but fake-b is still missing" "$TMP/deps.err" &&
	[ "$(grep -c ' install -y ' "$TMP/sys/log")" -eq 1 ]; then
	ok
else
	not_ok "ensure-tools: $(why_failed)"
fi
rm -f "$TMP/sys/log"
if PATH="$TMP/sys/bin:$PATH" sh "$ROOT/build-aux/ensure-tools" "ppsim t" "for a test" \
	fake-a fake-pkg-c "$TMP/sys/installed:fake-a" >"$TMP/deps.out" 2>&1 &&
	[ ! -s "$TMP/deps.out" ] && [ ! -e "$TMP/sys/log" ]; then
	ok
else
	not_ok "ensure-tools with nothing missing: $(cat "$TMP/deps.out")"
fi
# PPSIM_NO_BROWSER declines the browser tests' packages: a note, nothing installed
fake_system 0 ok ok
if PPSIM_NO_BROWSER=1 PATH="$TMP/sys/bin:$PATH" sh "$ROOT/build-aux/ensure-browser" \
	>"$TMP/deps.out" 2>"$TMP/deps.err" && [ ! -e "$TMP/sys/log" ] &&
	grep -q "PPSIM_NO_BROWSER is set: .* the browser tests are skipped" "$TMP/deps.err"; then
	ok
else
	not_ok "ensure-browser with PPSIM_NO_BROWSER=1: $(why_failed)"
fi
# the browser tests' npm packages (puppeteer-core, axe-core): without node, one line saying
# so and status 1, nothing written; without its folder, the usage and status 2
mkdir -p "$TMP/nonode"
ln -sf "$(command -v sh)" "$TMP/nonode/sh"
if PATH="$TMP/nonode" sh "$ROOT/build-aux/ensure-puppeteer" "$TMP/npmx" >"$TMP/deps.out" 2>&1; then
	not_ok "ensure-puppeteer without node succeeded"
elif [ "$(cat "$TMP/deps.out")" = "no node on the PATH" ] && [ ! -e "$TMP/npmx" ]; then
	ok
else
	not_ok "ensure-puppeteer without node: $(cat "$TMP/deps.out")"
fi
sh "$ROOT/build-aux/ensure-puppeteer" >"$TMP/deps.out" 2>&1
if [ $? -eq 2 ] && grep -q "^usage: .*ensure-puppeteer DIR" "$TMP/deps.out"; then ok; else
	not_ok "ensure-puppeteer with no folder: $(cat "$TMP/deps.out")"
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

# make slurm-check, where Slurm cannot be had, says why in one line and exits 0 (skipped): on a
# system without apt-get, or where apt-get installs the packages but not their programs. Its
# temporary directory is removed either way. (It runs for real in CI: .ci/run.)
slurm_skips() {
	what=$1
	shift
	env "$@" TMPDIR="$TMP/slurm-tmp" PPSIM_SLURM_PREFIX="$TMP/no-slurm" \
		sh "$ROOT/build-aux/slurm-check" "$PPSIM" >"$TMP/slurm.out" 2>"$TMP/slurm.err" </dev/null
	status=$?
	if [ $status -eq 0 ] && [ "$(wc -l <"$TMP/slurm.out")" -eq 1 ] &&
		grep -q "^ppsim slurm-check: skipped: .*$what" "$TMP/slurm.out" &&
		[ -z "$(ls -A "$TMP/slurm-tmp")" ]; then
		ok
	else
		not_ok "slurm-check without Slurm ($what): status $status, $(cat "$TMP/slurm.out" "$TMP/slurm.err" | head -c 300); left $(ls -A "$TMP/slurm-tmp")"
	fi
}
mkdir -p "$TMP/slurm-tmp" "$TMP/no-apt"
for c in sh cat tail sed mktemp rm dirname basename pwd id date; do
	ln -sf "$(command -v $c)" "$TMP/no-apt/$c"
done
slurm_skips "this system has no apt-get: install them" PATH="$TMP/no-apt"
fake_system 0 ok ok
slurm_skips "slurm-wlm is installed but .*/no-slurm/sbin/slurmctld is still missing" \
	PATH="$TMP/sys/bin:$PATH"
