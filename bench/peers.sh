#!/bin/sh
# peers.sh: time ppsim against two Python peers doing the same work, whole process
# against whole process, and check that both give the same makespan.
#
#   Victarry/PP-Schedule-Visualization: its schedule builders (src/strategies.py) and
#     event model (src/execution_model.py: Schedule.execute), without the Dash app, for
#     1F1B, interleaved 1F1B (v = 2, p2p latency 0.1) and ZB-1P at p = 32, m = 512.
#     Its default op times are F = 1, B = 2 (B+W fused), or F = 1, B = 1, W = 1 split, per
#     stage; ppsim's --tf/--tb/--tw are per device, so interleaved v = 2 gets --tf=2 --tb=2 --tw=2.
#   sail-sg/zero-bubble-pipeline-parallelism: the authors' greedy automatic scheduler
#     (megatron/core/pipeline_parallel/zerobubble/scheduler/zb.py: Graph.build_graph and
#     initial_solution) against ppsim -s zb-auto with the same F, B, W, comm costs and a
#     memory limit of p micro-batches (mem F = 1, B = -0.5, W = -0.5). zb.py imports torch
#     and pulp at the top without using them in this pass, so the driver stubs both.
#
# Get the peers (any checkout works; the commits measured are in the notes):
#   git clone https://github.com/Victarry/PP-Schedule-Visualization
#   git clone https://github.com/sail-sg/zero-bubble-pipeline-parallelism
#
# Usage: bench/peers.sh VICTARRY_DIR ZB_DIR      (or set PEER_VICTARRY and PEER_ZB)
# Env:   RUNS (default 7) timed runs per command; PPSIM (default build/ppsim beside this
#        script); PYTHON (default /usr/bin/python3, else python3).
# Needs: Debian's python3 only, no python3-* package.
# Prints: case, peer ms best/median, ppsim ms best/median, ratio peer/ppsim of the best
#         and of the medians, both makespans. Times are wall clock of a whole process
#         (Python start-up included), output sent to /dev/null.

VIC=${1:-$PEER_VICTARRY}
ZB=${2:-$PEER_ZB}
usage() {
	echo "usage: $0 VICTARRY_DIR ZB_DIR  (checkouts of PP-Schedule-Visualization and"
	echo "       zero-bubble-pipeline-parallelism; or set PEER_VICTARRY and PEER_ZB)"
}
case ${1:-} in
-h | --help) usage; exit 0 ;;
-*) echo "$0: unknown option '$1'" >&2; usage >&2; exit 2 ;;
esac
if [ -z "$VIC" ] || [ -z "$ZB" ] || [ ! -f "$VIC/src/strategies.py" ] ||
   [ ! -f "$ZB/megatron/core/pipeline_parallel/zerobubble/scheduler/zb.py" ]; then
	usage >&2
	exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
PPSIM=${PPSIM:-$HERE/../build/ppsim}
PYTHON=${PYTHON:-python3}
# Debian's interpreter by default: a python3 earlier on PATH may be a wrapper (pyenv's shim
# adds ~0.3 s to every process start, more than the work being timed).
[ "$PYTHON" = python3 ] && [ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
RUNS=${RUNS:-7}
[ -x "$PPSIM" ] || { echo "$0: no ppsim at $PPSIM (run make)" >&2; exit 2; }
for d in "$VIC" "$ZB"; do
	printf '%s: %s\n' "$d" "$(git -C "$d" rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
done

TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM

# Victarry: build one schedule with the peer's generator, run its simulation, print the makespan.
cat >"$TMP/vic.py" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from src.execution_model import ScheduleConfig
from src import strategies
kind, p, m, v, lat = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
if kind == "1f1b":
    s = strategies.generate_1f1b_schedule(ScheduleConfig(p, p, m, p2p_latency=lat))
elif kind == "interleaved":
    s = strategies.generate_1f1b_interleave_schedule(
        ScheduleConfig(p, p * v, m, p2p_latency=lat, placement_strategy="interleave"))
else:
    s = strategies.generate_zero_bubble_1p_schedule(
        ScheduleConfig(p, p, m, p2p_latency=lat, split_backward=True))
s.execute()
print(s.get_total_execution_time())
EOF

# Zero bubble: the authors' greedy pass (all eight variants, their pick); print the makespan.
cat >"$TMP/zb.py" <<'EOF'
import importlib.util, sys, types
root, p, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
f, b, w, c = (float(x) for x in sys.argv[4:8])
torch = types.ModuleType("torch"); torch.Tensor = object
sys.modules.setdefault("torch", torch)
sys.modules.setdefault("pulp", types.ModuleType("pulp"))
d = root + "/megatron/core/pipeline_parallel/zerobubble/scheduler/"
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
load("megatron.core.pipeline_parallel.zerobubble.scheduler.graph", d + "graph.py")
zb = load("zb", d + "zb.py")
cfg = zb.GraphConfig(cost_f=[f] * p, cost_b=[b] * p, cost_w=[w] * p, cost_comm=c,
                     mem_f=[1.0] * p, mem_b=[-0.5] * p, mem_w=[-0.5] * p,
                     max_mem=[float(p)] * p, n_stages=p, n_micro=m)
_, _, end = zb.initial_solution(zb.Graph.build_graph(p, m, cfg), print_result=False)
print(max(end))
EOF

# Timer: runs each command RUNS times, stdout to /dev/null, and prints one table row.
cat >"$TMP/row.py" <<'EOF'
import json, statistics, subprocess, sys, time
runs, name = int(sys.argv[1]), sys.argv[2]
i = sys.argv.index("--")
peer, ppsim = sys.argv[3:i], sys.argv[i + 1:]
def times(cmd):
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        out.append((time.perf_counter() - t) * 1e3)
    return min(out), statistics.median(out)
peer_mk = float(subprocess.run(peer, capture_output=True, text=True, check=True).stdout.split()[-1])
pp_mk = json.loads(subprocess.run(ppsim, capture_output=True, text=True, check=True).stdout)["makespan"]
pb, pm = times(peer)
sb, sm = times(ppsim)
print(f"{name:<30} {pb:9.1f} {pm:9.1f} {sb:8.2f} {sm:8.2f} {pb / sb:7.0f} {pm / sm:7.0f}"
      f"  {peer_mk:<10.6g} {pp_mk:<10.6g}{'' if abs(peer_mk - pp_mk) < 1e-6 else '  differ'}")
EOF

printf '%-30s %9s %9s %8s %8s %7s %7s  %-10s %-10s\n' case peer_best peer_med \
	ppsim_best ppsim_med x_best x_med peer_mk ppsim_mk
vic() { # name, peer args, ppsim args ($2 and $3 split into words on purpose)
	# shellcheck disable=SC2086
	"$PYTHON" "$TMP/row.py" "$RUNS" "$1" "$PYTHON" "$TMP/vic.py" "$VIC" $2 -- "$PPSIM" $3 --format=json
}
zb() { # p m tf tb tw tcomm
	"$PYTHON" "$TMP/row.py" "$RUNS" "zb-auto p=$1 m=$2 $3/$4/$5/$6" "$PYTHON" "$TMP/zb.py" "$ZB" "$@" -- \
		"$PPSIM" -s zb-auto -p "$1" -m "$2" --tf="$3" --tb="$4" --tw="$5" --tcomm="$6" --format=json
}
vic "1f1b p=32 m=512" "1f1b 32 512 1 0" "-s 1f1b -p 32 -m 512"
vic "interleaved v=2 c=0.1" "interleaved 32 512 2 0.1" \
	"-s interleaved -p 32 -v 2 -m 512 --tf=2 --tb=2 --tw=2 --tcomm=0.1"
vic "zb1p/zbh1 p=32 m=512" "zb1p 32 512 1 0" "-s zbh1 -p 32 -m 512"
zb 8 24 2 2 1 0.5
zb 16 64 1.5 2 1 0.25
zb 16 64 1 1 1 0.1
zb 32 512 1 1 1 0
