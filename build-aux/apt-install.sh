# Sourced by the build-aux/ensure-* scripts (". build-aux/apt-install.sh"): defines
#   apt_install WHO WHY PACKAGE...  installs Debian packages with apt-get, as root or through sudo
#   apt_need WHO WHY NEED...        installs the packages of the NEEDs that are missing, where a
#                                   NEED is COMMAND:PACKAGE (missing: not on the PATH), /PATH:PACKAGE
#                                   (missing: no such file) or a COMMAND that is its own package
# Both print what they do on stderr, prefixed by WHO (WHY says what for), are quiet when nothing
# is missing, and return 1 with a message ending in "run as root: apt-get install -y PACKAGE..."
# whenever they cannot install: no apt-get, not root and no sudo, sudo that may not run apt-get
# here (no rights, or a password and no terminal to type it on), or apt-get failing.
# sudo asks at most once: on a terminal it may prompt for a password, elsewhere it runs with -n
# and never prompts. Package lists that do not have the packages (empty after a fresh install)
# are refreshed before installing; otherwise an install that fails refreshes them and retries
# once. apt's output goes to a file, of which the last attempt's shows when the install fails.
# Functions rather than scripts, so that they run where the caller found its shell but no sh on
# the PATH.
apt_install() {
	who=$1
	why=$2
	shift 2
	advice="run as root: apt-get install -y $*"
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "$who: needs $* ($why) and this system has no apt-get: install them" >&2
		return 1
	fi
	# env passes the setting through sudo, which clears the environment
	apt="env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "$who: needs $* ($why); not root, and no sudo: $advice" >&2
			return 1
		fi
		# the one time sudo may ask: on a terminal; after it, sudo -n uses what it remembers
		sudo="sudo -n"
		[ -t 0 ] && [ -t 2 ] && sudo=sudo
		# sudo's own reason, if it refuses, shows on stderr
		if ! $sudo $apt --version >/dev/null; then
			echo "$who: needs $* ($why); sudo may not run apt-get here (no sudo rights, or a password and no terminal to type it): $advice" >&2
			return 1
		fi
		sudo="sudo -n"
	fi
	log=$(mktemp) || return 1
	echo "$who: installing $* with apt-get ($why)" >&2
	# the lists are refreshed once at most: first, when a simulated install (which needs no
	# root) finds they lack a package, else after a failed install, which is then retried
	refreshed=no
	if ! apt-get -s install "$@" >/dev/null 2>&1; then
		echo "$who: the package lists lack some of them: refreshing them first (apt-get update)" >&2
		$sudo $apt update >"$log" 2>&1
		refreshed=yes
	fi
	installed=yes
	$sudo $apt install -y --no-install-recommends "$@" >>"$log" 2>&1 || installed=no
	if [ $installed = no ] && [ $refreshed = no ]; then
		echo "$who: apt-get install failed: refreshing the package lists and trying once more" >&2
		installed=yes
		{ $sudo $apt update && $sudo $apt install -y --no-install-recommends "$@"; } \
			>"$log" 2>&1 || installed=no
	fi
	if [ $installed = no ]; then
		tail -n 25 "$log" | sed "s/^/$who: apt-get: /" >&2
		rm -f "$log"
		echo "$who: apt-get could not install $* ($why): $advice" >&2
		return 1
	fi
	rm -f "$log"
	echo "$who: installed $*" >&2
}

apt_need() {
	who=$1
	why=$2
	shift 2
	missing=""
	for need in "$@"; do
		if ! apt_has "${need%%:*}"; then
			case " $missing " in
			*" ${need#*:} "*) ;;
			*) missing="$missing ${need#*:}" ;;
			esac
		fi
	done
	[ -z "$missing" ] && return 0
	# shellcheck disable=SC2086 # the package names are words
	apt_install "$who" "$why" $missing || return 1
	for need in "$@"; do
		if ! apt_has "${need%%:*}"; then
			echo "$who: ${need#*:} is installed but ${need%%:*} is still missing" >&2
			return 1
		fi
	done
}

# apt_has COMMAND|/PATH: the command is on the PATH, or the file exists.
apt_has() {
	case $1 in
	/*) [ -e "$1" ] ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}
