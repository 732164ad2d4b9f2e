"""The Python package against the command, at about a million ops (issue 40, acceptance 2):
`ppsim.run()` in process against the whole `ppsim` process writing the same JSON report, and
what the ops cost as a NumPy array (a run that keeps them, and the one call that fills the
array) against that run. Prints a table, best and median of REPEAT runs of each, the cases of a
row run in turn round after round; numbers, not a test: the machine's noise decides a close
call, so read the best and the median together.

    PPSIM_BIN=build/ppsim PPSIM_LIB=build/libppsim.so.1 python3 bench/bench_python.py [REPEAT]

(`make bench` runs it with Debian's python3, for NumPy, after the C benchmarks.)
"""

import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import ppsim  # noqa: E402

CASES = [
    ("1f1b", dict(schedule="1f1b", p=64, m=8192)),
    ("interleaved", dict(schedule="interleaved", p=64, v=8, m=1024)),
    ("zbh1", dict(schedule="zbh1", p=64, m=8192)),
]


def timed(fns, repeat):
    """The best and median wall seconds of repeat calls of each of fns, called in turn round
    after round (after one round to warm up), so that a slow minute of the machine weighs on
    each alike."""
    times = [[] for _ in fns]
    for k in range(repeat + 1):
        for fn, t in zip(fns, times):
            start = time.perf_counter()
            fn()
            if k > 0:
                t.append(time.perf_counter() - start)
    return [(min(t), statistics.median(t)) for t in times]


def args_of(settings):
    out = []
    for k, v in settings.items():
        out += ["--schedule" if k == "schedule" else "-" + k, str(v)]
    return out


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    binary = os.environ.get("PPSIM_BIN", os.path.join(ROOT, "build", "ppsim"))
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("bench_python: no NumPy: the ops-as-an-array figures need it (python3-numpy)")
        return 1
    print("the Python package in process against the ppsim process, JSON report, best / median "
          "of %d (ms):" % repeat)
    print("%-12s %8s %15s %15s %15s %15s %15s %11s %11s" % (
        "case", "ops", "process", "ppsim.run()", "figures only", "run(ops=True)",
        "ops_array()", "run/cli", "arr/run"))
    for name, settings in CASES:
        cmd = [binary, *args_of(settings), "--format=json"]
        null = open(os.devnull, "w")

        def process():
            subprocess.run(cmd, stdout=null, check=True)

        def figures():
            with ppsim.simulate(**settings) as r:
                r.figure("makespan")

        with ppsim.simulate(op_times=True, slack=True, **settings) as kept:
            n = kept.op_count
            cli, run, bare, with_ops, fill = timed(
                [process, lambda: ppsim.run(**settings), figures,
                 lambda: ppsim.run(ops=True, **settings).ops_array(), kept.ops_array], repeat)
        null.close()
        ms = lambda t: "%6.1f / %6.1f" % (t[0] * 1e3, t[1] * 1e3)  # noqa: E731
        ratio = lambda a, b: "%4.2f / %4.2f" % (a[0] / b[0], a[1] / b[1])  # noqa: E731
        print("%-12s %8d %15s %15s %15s %15s %15s %11s %11s" % (
            name, n, ms(cli), ms(run), ms(bare), ms(with_ops), ms(fill), ratio(run, cli),
            ratio(fill, run)))
    print("run/cli: ppsim.run() over the process; arr/run: filling the NumPy array of a run that "
          "kept its ops, over ppsim.run() (best / median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
