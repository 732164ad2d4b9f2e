#!/bin/sh
# A manual benchmark of the --html report's redraw at scale (docs/performance.md records its
# figures): writes the pages of 1F1B at p = 64 with m = 4096 (524,288 ops, --tcomm 0.1),
# m = 32768 (4.2 million ops, --tcomm 0.1) and m = 204800 (26.2 million ops, about 1 GiB: near
# the largest page ppsim writes, see docs/robustness.md, Limits), opens each in headless
# Chromium and prints its load time and the median, p90 and worst ms of its zoom and pan
# frames (tests/tools/html-check.mjs's perf check, its 160 frames RUNS times, 3 by default).
# The largest page takes about 1.5 minutes to open and up to about 9 GB of memory.
#
# Usage: sh tests/tools/html-bench.sh BUILD_DIR [m ...]   (e.g. build, or build 4096 32768)
# Needs chromium and node (build-aux/ensure-browser) and the npm packages of
# build-aux/ensure-puppeteer, which it installs into BUILD_DIR/npm-browser.
set -u
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [m ...]" >&2; exit 2; }
build=$1
shift
[ $# -gt 0 ] || set -- 4096 32768 204800
root=$(cd "$(dirname "$0")/../.." && pwd)
npm="$build/npm-browser"
why=$(sh "$root/build-aux/ensure-puppeteer" "$npm") || { echo "$0: $why" >&2; exit 1; }
chromium=$(command -v chromium) || { echo "$0: no chromium on the PATH" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0
for m in "$@"; do
	# the largest page has no messages priced: with them it would pass the file limit
	comm="--tcomm 0.1"
	[ "$m" -gt 100000 ] && comm=""
	# shellcheck disable=SC2086
	"$build/ppsim" -p 64 -m "$m" $comm --html="$tmp/p64-m$m.html" >/dev/null || { status=1; continue; }
	echo "# p = 64, m = $m: $(wc -c <"$tmp/p64-m$m.html" | tr -d ' ') bytes"
	PPSIM_HTML_TIMEOUT=1200 PPSIM_PERF_ROUNDS=${RUNS:-3} TMPDIR="$tmp" node "$root/tests/tools/html-check.mjs" \
		"$npm" "$chromium" "$tmp/p64-m$m.html:perf" || status=1
	rm -f "$tmp/p64-m$m.html"
done
exit $status
