#!/usr/bin/env python3
"""Runs DeepSeek's DualPipe and DualPipeV (dualpipe/dualpipe.py, DualPipe.step, and
dualpipe/dualpipev.py, DualPipeV.step) and prints each rank's ops.

Usage: dualpipe-reference.py CHECKOUT [dualpipe|dualpipev] P M
       dualpipe-reference.py CHECKOUT grid [dualpipe|dualpipev]

CHECKOUT is a work tree of deepseek-ai/DualPipe (not part of ppsim; see
tests/golden/dualpipe-reference/README); KIND (default dualpipe) is the class run, DualPipe or
DualPipeV, which is ppsim's schedule of that name. The first form prints one line per rank of
the step that rank runs with P ranks and M micro-batches (their num_chunks), in PyTorch's
compute-only CSV format, which is what
`ppsim -s KIND -p P -m M --export-schedule=FILE --export-format=torch` writes; or, when
their code refuses the shape, "refused: " and its assertion. The second form prints the
reference file tests/golden/dualpipe-reference/KIND.txt: for each case a line
"# p=P m=M", then its rank lines or its "refused" line.

Their code runs as it is, the step and all it calls, one rank after the other; only torch
is replaced, by the stand-ins below (so torch is not needed). torch.distributed's sends and
receives complete at once, and each rank's model is two stand-in stages whose calls are
recorded: a forward (F), a backward (I when WeightGradStore is enabled, whose weight-gradient
function W is then queued in WeightGradStore and recorded when their code pops it, B, a full
backward, when not), and their overlapped_forward_backward, which runs a forward and a
backward as one cell "(F;B)OVERLAP_F_B" (the example model's order: the forward, then the
backward). A backward gives its forward's inputs that require a gradient one, as autograd
does (DualPipeV's last rank hands that gradient from its chunk 1 to its chunk 0).

Numbering, as ppsim numbers DualPipe's ops (docs/schedules.md): module 0 of rank r is stage r
of the first copy of the model, ppsim's stage r; module 1 is the second copy's stage p-1-r,
ppsim's stage 2p-1-r. The k-th forward of a rank's module 0 is micro-batch k of the first
direction (the first rank's inputs), ppsim's micro-batch k; of its module 1, micro-batch k of
the other direction (the last rank's inputs), ppsim's M/2 + k. A backward and its W take the
numbers of the forward whose output (or loss) they differentiate.

DualPipeV's, as ppsim numbers dualpipev's (V placement): module 0 (phase 0) of rank r is stage
r, module 1 (phase 1) stage 2p-1-r; every micro-batch runs down the ranks through the modules 0
and back up through the modules 1 (the last rank feeds its module 0's output to its module 1),
so the k-th forward of either module is micro-batch k.
"""
import importlib
import os
import sys
import types


class Log:
    """The cells each rank's run records, and the pair being recorded."""

    def __init__(self):
        self.cells = []
        self.pair = None

    def add(self, cell):
        if self.pair is None:
            self.cells.append(cell)
        else:
            self.pair.append(cell)


LOG = Log()


class Tensor:
    """A tensor that remembers which forward made it, and that forward's inputs."""

    def __init__(self, *args, made_by=None, sources=(), requires_grad=False, **kwargs):
        self.made_by = made_by  # (stage, micro-batch) of the forward, or None
        self.sources = sources  # the inputs of that forward
        self.requires_grad = requires_grad
        self.grad = None
        self._base = None
        self.data = None

    def tensor_split(self, chunks, dim=0):
        return [Tensor() for _ in range(chunks)]

    def backward(self):
        backward_of(self)

    def detach_(self):
        return self

    def detach(self):
        return Tensor()

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self


def backward_of(t):
    """Records the backward of t's forward: I with its W queued, or B; and gives that forward's
    inputs that require a gradient one."""
    if t.made_by is None:
        return
    for source in t.sources:
        if source.requires_grad:
            source.grad = Tensor()
    store = sys.modules['dualpipe.utils'].WeightGradStore
    stage, mb = t.made_by
    if store.enabled:
        LOG.add('%dI%d' % (stage, mb))
        store.put(lambda: LOG.add('%dW%d' % (stage, mb)))
    else:
        LOG.add('%dB%d' % (stage, mb))


class Module:
    def __init__(self, *args, **kwargs):
        pass


class ModuleList(list):
    def __init__(self, modules=()):
        super().__init__(modules)


class Param:
    device = 'cuda'


class Stage(Module):
    """A stage of the model: stage is ppsim's number, mb0 its first micro-batch."""

    def __init__(self, stage, mb0):
        super().__init__()
        self.stage = stage
        self.mb0 = mb0
        self.calls = 0

    def parameters(self):
        return iter([Param()])

    def __call__(self, *inputs):
        mb = self.mb0 + self.calls
        self.calls += 1
        LOG.add('%dF%d' % (self.stage, mb))
        return Tensor(made_by=(self.stage, mb), sources=inputs)

    @classmethod
    def overlapped_forward_backward(cls, module0, inputs0, criterion0, labels0, module1, loss1,
                                    outputs1, output_grads1):
        LOG.pair = []
        outputs0 = [module0(*inputs0)]
        loss0 = criterion0(*outputs0, *labels0) if criterion0 is not None else None
        if loss1 is not None:
            loss1.backward()
            loss1.detach_()
        else:
            sys.modules['dualpipe.utils'].run_backward(outputs1, output_grads1)
        cells, LOG.pair = LOG.pair, None
        assert len(cells) == 2, cells
        LOG.add('(%s;%s)OVERLAP_F_B' % tuple(cells))
        return outputs0, loss0


def criterion(output, label):
    return Tensor(made_by=output.made_by, sources=output.sources)


class Group:
    def __init__(self, rank, size):
        self._rank = rank
        self._size = size

    def rank(self):
        return self._rank

    def size(self):
        return self._size


class Request:
    def wait(self):
        pass


def install_torch():
    """Puts the stand-ins for torch, torch.nn, torch.distributed and torch.autograd in
    sys.modules."""
    torch = types.ModuleType('torch')
    torch.Tensor = Tensor
    torch.dtype = object
    torch.float32 = 'float32'
    torch.device = lambda *args, **kwargs: 'cuda'
    torch.cuda = types.SimpleNamespace(current_device=lambda: 0)
    torch.is_grad_enabled = lambda: True
    torch.empty = lambda *args, **kwargs: Tensor(**kwargs)
    torch.stack = lambda tensors: list(tensors)
    torch.cat = lambda tensors, dim=0: list(tensors)
    nn = types.ModuleType('torch.nn')
    nn.Module = Module
    nn.ModuleList = ModuleList
    dist = types.ModuleType('torch.distributed')
    dist.ProcessGroup = Group
    dist.P2POp = lambda op, tensor, peer: (op, tensor, peer)
    dist.isend = 'isend'
    dist.irecv = 'irecv'
    dist.batch_isend_irecv = lambda ops: [Request() for _ in ops]
    dist.get_rank = lambda: 0
    dist.distributed_c10d = types.SimpleNamespace(get_global_rank=lambda group, rank: rank,
                                                  _get_default_group=lambda: None)
    autograd = types.ModuleType('torch.autograd')

    def run_backward(tensors, grad_tensors, **kwargs):
        for t in tensors:
            backward_of(t)

    autograd.Variable = types.SimpleNamespace(
        _execution_engine=types.SimpleNamespace(run_backward=run_backward))
    torch.nn = nn
    torch.distributed = dist
    torch.autograd = autograd
    sys.modules.update({'torch': torch, 'torch.nn': nn, 'torch.distributed': dist,
                        'torch.autograd': autograd})


def load(checkout):
    install_torch()
    sys.path.insert(0, os.path.abspath(checkout))
    dualpipe = importlib.import_module('dualpipe')
    dualpipe.set_p2p_tensor_shapes([(1, 1)])
    dualpipe.set_p2p_tensor_dtype('float32')
    return dualpipe


def rank_row(dualpipe, kind, p, m, r):
    """Rank r's cells of a step of p ranks and m micro-batches."""
    if kind == 'dualpipe':
        modules = (Stage(r, 0), Stage(2 * p - 1 - r, m // 2))
        model = dualpipe.DualPipe(modules, process_group=Group(r, p))
        first, last = r == 0, r == p - 1
    else:
        modules = (Stage(r, 0), Stage(2 * p - 1 - r, 0))
        model = dualpipe.DualPipeV(modules, process_group=Group(r, p))
        first = last = r == 0  # DualPipeV's inputs and labels: the first rank's
    inputs = (Tensor(),) if first or last else ()
    labels = [Tensor()] if first or last else []
    LOG.cells = []
    model.step(*inputs, num_chunks=m, criterion=criterion, labels=labels)
    return ','.join(LOG.cells)


def order(dualpipe, kind, p, m):
    """Each rank's line, or ["refused: WHY"] when their code refuses the shape."""
    try:
        return [rank_row(dualpipe, kind, p, m, r) for r in range(p)]
    except AssertionError as e:
        return ['refused: %s' % (str(e) or 'assertion')]


def shapes(kind):
    """The grid: p in 2, 4, 6, 8 with several m; for DualPipeV, shapes DualPipe refuses and it
    runs (an odd p or m); then shapes their code refuses."""
    for p in (2, 4, 6, 8):
        for m in sorted({2 * p, 2 * p + 2, 3 * p, 4 * p, 20}):
            if m >= 2 * p:
                yield p, m
    if kind == 'dualpipe':
        yield from ((3, 6), (5, 12), (4, 7), (4, 6), (6, 10), (2, 2), (8, 15))
    else:
        yield from ((1, 2), (1, 3), (3, 6), (3, 7), (5, 12), (5, 13), (4, 9), (8, 17))
        yield from ((1, 1), (2, 2), (2, 3), (3, 5), (4, 6), (4, 7), (6, 10), (8, 15))


KINDS = ('dualpipe', 'dualpipev')


def main(argv):
    args = argv[1:]
    if len(args) in (2, 3) and args[1] == 'grid' and (len(args) == 2 or args[2] in KINDS):
        kind = args[2] if len(args) == 3 else 'dualpipe'
        dualpipe = load(args[0])
        for p, m in shapes(kind):
            print('# p=%d m=%d' % (p, m))
            for line in order(dualpipe, kind, p, m):
                print(line)
        return 0
    if len(args) == 4 and args[1] in KINDS:
        kind = args.pop(1)
    else:
        kind = 'dualpipe'
    if len(args) == 3 and args[1] != 'grid':
        dualpipe = load(args[0])
        for line in order(dualpipe, kind, int(args[1]), int(args[2])):
            print(line)
        return 0
    sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
