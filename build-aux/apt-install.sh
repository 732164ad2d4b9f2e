# Sourced by the build-aux/ensure-* scripts (". build-aux/apt-install.sh"): defines
# apt_install WHO WHY PACKAGE..., which installs Debian packages with apt-get, as root or
# through sudo, refreshing the package lists and retrying once when the first try fails. It
# prints what it does on stderr, prefixed by WHO (WHY says what for), and returns 1 with a
# message when there is no apt-get, no way to become root, or the install fails. A function
# rather than a script, so that it runs where the caller found its shell but no sh on the PATH.
apt_install() {
	who=$1
	why=$2
	shift 2
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "$who: needs $* ($why) and this system has no apt-get: install them" >&2
		return 1
	fi
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "$who: needs $* ($why); run as root: apt-get install -y $*" >&2
			return 1
		fi
		sudo=sudo
	fi
	echo "$who: installing $* with apt-get ($why)" >&2
	# env passes the setting through sudo, which clears the environment
	apt="env DEBIAN_FRONTEND=noninteractive apt-get"
	$sudo $apt install -y --no-install-recommends "$@" >&2 ||
		{ $sudo $apt update >&2 && $sudo $apt install -y --no-install-recommends "$@" >&2; } || {
		echo "$who: apt-get could not install $*" >&2
		return 1
	}
}
