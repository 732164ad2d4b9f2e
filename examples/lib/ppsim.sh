# Sourced by each example (`. "$(dirname "$0")/lib/ppsim.sh"`): sets ppsim to the program the
# example runs: $PPSIM, else the one built beside the examples (make), else the one installed;
# one that cannot run ends the example with a message and status 1 (its tables would be empty).
ppsim=${PPSIM:-$(dirname "$0")/../build/ppsim}
if ! "$ppsim" --version >/dev/null 2>&1; then
	[ -n "${PPSIM:-}" ] || ppsim=ppsim
	"$ppsim" --version >/dev/null 2>&1 || {
		echo "$0: cannot run '$ppsim'${PPSIM:+ (PPSIM)}: build ppsim with make, or name it with PPSIM" >&2
		exit 1
	}
fi

# For an example that reads the repository's files: runs it from the repository's top, ppsim
# named so that it still runs from there.
from_top() {
	case $ppsim in /*) ;; */*) ppsim=$PWD/$ppsim ;; esac
	cd "$(dirname "$0")/.." || exit 1
}
