#!/usr/bin/env python3
"""Runs PyTorch's own pipeline schedule classes and dumps their orders as PyTorch writes them.

Usage: torch-reference.py CHECKOUT CLASS P M V compute_only|compute_comms
       torch-reference.py CHECKOUT grid OUTDIR

CHECKOUT is a work tree of pytorch/pytorch (not part of ppsim; see
tests/golden/torch-reference/README). CLASS is one of GPipe, 1F1B, Interleaved1F1B, LoopedBFS,
InterleavedZeroBubble, ZBVZeroBubble, DualPipeV (get_schedule_class's names); P ranks, M
micro-batches, V stages a rank (1 for GPipe and 1F1B, 2 for ZBVZeroBubble and DualPipeV). The
first form prints one order in the given format; the second writes OUTDIR/CLASS-FORMAT.txt for
every class and both formats over the grid P in 1..8, M in 1..8, 12 and 16, V in 1..3 (each class's own
V), each case a line "# p=P m=M v=V" and then the bytes the dump writes (csv.writer, "\r\n"
line ends), or, for a shape PyTorch refuses, the one line "# p=P m=M v=V refused: MESSAGE".

Only torch/distributed/pipelining/schedules.py is loaded, as the module
torch.distributed.pipelining.schedules, with stand-ins for what it imports (torch,
torch.distributed, torch._dynamo, torch.distributed.fsdp, torch.nn.modules.loss,
torch.profiler and the package's _utils, microbatch and stage modules): building an order
touches none of them but the two stage-to-rank mappings of _utils, which are written out here
as PyTorch's _utils.py has them. A stage is a stand-in holding what the schedule classes read
of a _PipelineStageBase (stage_index, num_stages, group_size, group_rank, submod).

Multi-stage classes (PipelineScheduleMulti) are built with the V stages of rank 0; their
constructor computes pipeline_order for every rank and lowers it to pipeline_order_with_comms;
the dump is their own _dump_csv(path, format). The single-stage classes (GPipe, 1F1B) compute
pipeline_order for every rank too (ending in REDUCE_GRAD) but have no _dump_csv: their
compute_only dump is pipeline_order written with csv.writer as _dump_csv writes it, and their
compute_comms dump is what _PipelineScheduleRuntime makes of their compute actions (its
_prepare_schedule_with_comms, format "compute_only": UNSHARD/RESHARD, REDUCE_GRAD and the
SEND/RECV actions added), dumped by its _dump_csv.
"""
import importlib.util
import io
import csv
import os
import sys
import tempfile
import types

CLASSES = ('GPipe', '1F1B', 'Interleaved1F1B', 'LoopedBFS', 'InterleavedZeroBubble',
           'ZBVZeroBubble', 'DualPipeV')
SINGLE = ('GPipe', '1F1B')
VSHAPE = ('ZBVZeroBubble', 'DualPipeV')
FORMATS = ('compute_only', 'compute_comms')
# micro-batches of the grid: 1 to 8 (below, at and above p), 12 and 16
MBS = (1, 2, 3, 4, 5, 6, 7, 8, 12, 16)


class _Anything(types.ModuleType):
    """A stand-in module: every name it is asked for is a class of that name."""

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        value = type(name, (), {})
        setattr(self, name, value)
        return value


def _stage_to_rank(pp_size, num_stages, style='loop'):
    # as torch/distributed/pipelining/_utils.py's generate_stage_to_rank_mapping
    mapping = {}
    if style == 'loop':
        for stage_index in range(num_stages):
            mapping[stage_index] = stage_index % pp_size
    elif style == 'v':
        if num_stages % pp_size != 0:
            raise ValueError(f'num_stages {num_stages} must be evenly divisible by pp_size '
                             f'{pp_size} for V schedules')
        rank_index = 0
        for stage_index in range(num_stages):
            mapping[stage_index] = rank_index
            if (stage_index + 1) % pp_size == 0:
                continue
            if (stage_index // pp_size) % 2 == 0:
                rank_index += 1
            else:
                rank_index -= 1
    else:
        raise ValueError(f'Style {style} is not supported.')
    return mapping


def _rank_to_stages(pp_size, num_stages, style='loop'):
    # as _utils.py's generate_rank_to_stage_mapping: each rank's stages, in stage order
    out = {}
    for stage, rank in _stage_to_rank(pp_size, num_stages, style).items():
        out.setdefault(rank, []).append(stage)
    return out


def load(checkout):
    for name in ('torch', 'torch.distributed', 'torch._dynamo', 'torch.distributed.fsdp',
                 'torch.nn', 'torch.nn.modules', 'torch.nn.modules.loss', 'torch.profiler',
                 'torch.distributed.pipelining.microbatch', 'torch.distributed.pipelining.stage'):
        sys.modules.setdefault(name, _Anything(name))
    sys.modules['torch'].distributed = sys.modules['torch.distributed']
    sys.modules['torch'].nn = sys.modules['torch.nn']
    pkg = types.ModuleType('torch.distributed.pipelining')
    pkg.__path__ = []
    sys.modules['torch.distributed.pipelining'] = pkg
    utils = types.ModuleType('torch.distributed.pipelining._utils')
    utils.generate_stage_to_rank_mapping = _stage_to_rank
    utils.generate_rank_to_stage_mapping = _rank_to_stages
    sys.modules[utils.__name__] = utils
    name = 'torch.distributed.pipelining.schedules'
    path = os.path.join(checkout, 'torch', 'distributed', 'pipelining', 'schedules.py')
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


class Stage:
    """What the schedule classes read of a _PipelineStageBase."""

    def __init__(self, stage_index, num_stages, group_size, group_rank):
        self.stage_index = stage_index
        self.num_stages = num_stages
        self.group_size = group_size
        self.group_rank = group_rank
        self.submod = None
        self.is_first = stage_index == 0
        self.is_last = stage_index == num_stages - 1


def _dump(obj, fmt):
    """The bytes obj._dump_csv(path, fmt) writes (fmt None: the one-argument form)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'order.csv')
        if fmt is None:
            obj._dump_csv(path)
        else:
            obj._dump_csv(path, format=fmt)
        with open(path, 'rb') as f:
            return f.read()


def _refused(e):
    """PyTorch's message, its first line (the rest is its picture of the order)."""
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def orders(mod, cls, p, m, v):
    """{format: bytes, or the message of PyTorch's refusal} of class cls at p ranks, m
    micro-batches, v stages a rank."""
    sched = mod.get_schedule_class(cls)
    if cls in SINGLE:
        assert v == 1
        s = sched(Stage(0, p, p, 0), m)
        out = io.StringIO(newline='')
        writer = csv.writer(out)
        for rank in s.pipeline_order:
            writer.writerow(s.pipeline_order[rank])
        got = {'compute_only': out.getvalue().encode()}
        # the runtime's lowering of the same compute actions
        try:
            rt = mod._PipelineScheduleRuntime([Stage(0, p, p, 0)], m)
            rt.pipeline_order = {r: [a for a in acts if a is not None and a.is_compute_op]
                                 for r, acts in s.pipeline_order.items()}
            rt._prepare_schedule_with_comms(rt.pipeline_order)
            got['compute_comms'] = _dump(rt, 'compute_comms')
        except Exception as e:  # pylint: disable=broad-except
            got['compute_comms'] = _refused(e)
        return got
    if cls in VSHAPE:
        stages = [Stage(st, 2 * p, p, 0) for st in _rank_to_stages(p, 2 * p, 'v')[0]]
    else:
        stages = [Stage(c * p, v * p, p, 0) for c in range(v)]
    s = sched(stages, m)
    return {f: _dump(s, f) for f in FORMATS}


def shapes(cls):
    for p in range(1, 9):
        for v in ((1,) if cls in SINGLE else (2,) if cls in VSHAPE else (1, 2, 3)):
            for m in MBS:
                yield p, m, v


def grid(mod, outdir):
    for cls in CLASSES:
        files = {f: open(os.path.join(outdir, f'{cls}-{f}.txt'), 'wb') for f in FORMATS}
        for p, m, v in shapes(cls):
            head = f'# p={p} m={m} v={v}'.encode()
            try:
                got = orders(mod, cls, p, m, v)
            except Exception as e:  # pylint: disable=broad-except
                got = {f: _refused(e) for f in FORMATS}
            for f in FORMATS:
                if isinstance(got[f], str):  # PyTorch refuses the shape
                    files[f].write(head + b' refused: ' + got[f].encode() + b'\n')
                else:
                    files[f].write(head + b'\n' + got[f])
        for f in files.values():
            f.close()


def main(argv):
    if len(argv) == 4 and argv[2] == 'grid':
        grid(load(argv[1]), argv[3])
        return 0
    if len(argv) == 7 and argv[2] in CLASSES and argv[6] in FORMATS:
        got = orders(load(argv[1]), argv[2], int(argv[3]), int(argv[4]), int(argv[5]))[argv[6]]
        if isinstance(got, str):
            sys.stderr.write('refused: ' + got + '\n')
            return 1
        sys.stdout.buffer.write(got)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
