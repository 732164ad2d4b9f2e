#!/usr/bin/env python3
"""Runs the zero-bubble authors' V-schedule generators and prints their orders.

Usage: zb-reference.py CHECKOUT zbv|vhalf|vmin|v1f1b P M F B W C [W_FRACTION [MEM_LIMIT]]
       zb-reference.py CHECKOUT grid zbv|vhalf|vmin|v1f1b

The second form prints the reference file tests/golden/zb-reference/KIND.txt: the grid
p in {2, 4, 8}, m in {4, 8, 16, 24}, chunk costs (1, 1, 1, 0), (2, 2, 1, 0) and (1, 1, 1, 0.1),
each case a line "# p=P m=M f=F b=B w=W c=C makespan=T" and the device lines. The last costs
are run as (10, 10, 10, 1), whole numbers, and the makespan divided by 10 again. For v1f1b
the grid is p in 2..6, m in 1..p+1, 2p and 3p, with the same three costs.

CHECKOUT is a work tree of sail-sg/zero-bubble-pipeline-parallelism (not part of ppsim; see
tests/golden/zb-reference/README). F, B, W and C are the times of one chunk's forward,
input-gradient backward, weight-gradient backward and of one message, as the authors'
PipelineGraph takes them (pass whole numbers: their code sums floating-point numbers).
W_FRACTION (default 0.5) is the share of a chunk's activations its W frees (ppsim's
--w-mem-fraction) and MEM_LIMIT the activations a device may hold in micro-batches (default:
the authors' default, p). Prints the makespan their generator computes, then one line per
device in PyTorch's compute-only CSV format (stage, F/I/W, micro-batch), which is what
`ppsim --export-schedule=FILE --export-format=torch` writes.

v1f1b is v1f1b.py's create_schedule, the authors' 1F1B-V (--enable-1f1b-v): V placement, two
chunks a device, the backward fused (B in PyTorch's format, its time B + W). It is given what
their runtime gives it, GraphConfig.basic_config with max_chunks 2 and no message time; its
order depends on P and M only (W_FRACTION and MEM_LIMIT are ignored). The runtime then runs
run_schedule_passes, which only adds times and messages: the tool runs it too and checks that
the compute order per device is unchanged. The makespan is that of their add_time pass (the
one run_schedule_passes uses) with C as the message time; add_time prices a fused backward at
cost_b alone (it indexes cost_b + cost_w, a joined list, by stage), so it is given B + W there.

Only the scheduler files are loaded (zerobubble/scheduler/graph.py with zbv.py, zbv_greedy.py,
v1f1b.py, passes.py and what passes.py imports), under their package names, with
megatron.training stubbed (communication.py imports get_args from it and v1f1b's path never
calls it), so neither torch nor Megatron-LM is needed.
"""
import contextlib
import importlib.util
import io
import os
import sys
import types


def load(checkout):
    pkg = 'megatron.core.pipeline_parallel.zerobubble.scheduler'
    parts = pkg.split('.')
    for i in range(1, len(parts) + 1):
        name = '.'.join(parts[:i])
        mod = types.ModuleType(name)
        mod.__path__ = []
        sys.modules.setdefault(name, mod)
    training = types.ModuleType('megatron.training')
    training.get_args = lambda: None
    sys.modules.setdefault('megatron.training', training)
    base = os.path.join(checkout, *parts)
    mods = {}
    # in import order: passes imports communication and offloading
    for leaf in ('graph', 'zbv', 'zbv_greedy', 'v1f1b', 'offloading', 'communication', 'passes'):
        spec = importlib.util.spec_from_file_location(pkg + '.' + leaf,
                                                      os.path.join(base, leaf + '.py'))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[pkg + '.' + leaf] = mod
        spec.loader.exec_module(mod)
        mods[leaf] = mod
    return mods


def v1f1b_order(mods, p, m, f, b, w, c):
    """The authors' 1F1B-V makespan and per-device cells (PyTorch's format)."""
    graph, passes = mods['graph'], mods['passes']
    config = graph.GraphConfig.basic_config(f=f, b=b, w=w, n_stages=p, n_micro=m, max_chunks=2)
    local = mods['v1f1b'].create_schedule(config)

    def computes(order):
        return [[(n.type, n.layer_group_idx, n.microbatch) for n in stage
                 if n.type.is_computation()] for stage in order]

    # run_schedule_passes prints the schedule it returns
    with contextlib.redirect_stdout(io.StringIO()):
        ran = passes.run_schedule_passes(config, [list(stage) for stage in local])
    assert computes(ran) == computes(local), 'run_schedule_passes changed the order'
    priced = graph.GraphConfig.basic_config(f=f, b=b + w, w=w, n_stages=p, n_micro=m,
                                            max_chunks=2)
    priced.cost_comm = c
    timed = passes.add_time(priced, [list(stage) for stage in local])
    makespan = max(n.completion_time for stage in timed for n in stage)
    # layer_group_idx is the stage of the V: d for chunk 0, 2p - 1 - d for chunk 1
    rows = [','.join('%d%s%d' % (n.layer_group_idx, 'F' if n.type == graph.F else 'B',
                                 n.microbatch) for n in stage) for stage in local]
    return makespan, rows


def order_of(mods, kind, p, m, f, b, w, c, wf=0.5, limit=None):
    """The authors' makespan and per-device cells (PyTorch's format) for one case."""
    if kind == 'v1f1b':
        return v1f1b_order(mods, p, m, f, b, w, c)
    if kind == 'zbv':
        # chunk activations of 2 (so that a share of 0.5 is whole); a micro-batch is 2 chunks
        graph = mods['zbv'].PipelineGraph(
            p, m, f, b, w, c, f_mem=2.0, b_mem=-2.0 * (1 - wf), w_mem=-2.0 * wf,
            max_mem=None if limit is None else 4.0 * limit)
        best = None
        for fill_b in (True, False):
            for fill_f in (True, False):
                sched, end, bubble = graph.try_v_schedule(fill_b=fill_b, fill_f=fill_f)
                if best is None or bubble < best[2]:
                    best = (sched, end, bubble)
        sched, end = best[0], best[1]
        makespan = max(end)
        order = [[(cat, chunk, mb) for cat, chunk, mb in sched[d]] for d in range(p)]
    else:
        graph = mods['zbv_greedy'].PipelineGraph(p, m, kind[1:], f, b, w, c)
        patterns = {'half': graph.stable_pattern_v_half, 'min': graph.stable_pattern_v_min}
        cost = [graph.fbw_cost[x // 2] for x in range(6)]
        _, start, stage_order = graph.schedule_from_pattern(
            patterns[kind[1:]](p), m, cost, do_reorder=True)
        makespan = max(t0 + cost[t] for stage in start for t, times in enumerate(stage)
                       for t0 in times)
        order = [[(t // 2, t % 2, mb) for t, mb in stage_order[d]] for d in range(p)]
    rows = []
    for d in range(p):
        cells = []
        for cat, chunk, mb in order[d]:
            # the authors count the backward's chunks from its first: chunk 1 first
            real = chunk if cat == 0 else 1 - chunk
            stage = d if real == 0 else 2 * p - 1 - d
            cells.append('%d%s%d' % (stage, 'FIW'[cat], mb))
        rows.append(','.join(cells))
    return makespan, rows


def shapes(kind):
    if kind != 'v1f1b':
        return [(p, m) for p in (2, 4, 8) for m in (4, 8, 16, 24)]
    return [(p, m) for p in range(2, 7) for m in list(range(1, p + 2)) + [2 * p, 3 * p]]


def grid(mods, kind):
    for costs, scale in (((1, 1, 1, 0), 1), ((2, 2, 1, 0), 1), ((1, 1, 1, 0.1), 10)):
        for p, m in shapes(kind):
            whole = [round(x * scale) for x in costs]
            makespan, rows = order_of(mods, kind, p, m, *(float(x) for x in whole))
            print('# p=%d m=%d f=%g b=%g w=%g c=%g makespan=%g'
                  % (p, m, *costs, makespan / scale))
            for row in rows:
                print(row)


def main(argv):
    if len(argv) == 4 and argv[2] == 'grid':
        grid(load(argv[1]), argv[3])
        return
    if len(argv) not in (9, 10, 11):
        sys.exit(__doc__)
    mods = load(argv[1])
    wf = float(argv[9]) if len(argv) > 9 else 0.5
    limit = float(argv[10]) if len(argv) > 10 else None
    makespan, rows = order_of(mods, argv[2], int(argv[3]), int(argv[4]),
                              *(float(x) for x in argv[5:9]), wf, limit)
    print('makespan', repr(makespan))
    for row in rows:
        print(row)


if __name__ == '__main__':
    main(sys.argv)
