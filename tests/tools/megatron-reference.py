#!/usr/bin/env python3
"""Runs Megatron-Core's interleaved pipeline schedule and prints each rank's order.

Usage: megatron-reference.py CHECKOUT combined|interleaved P V M [G]
       megatron-reference.py CHECKOUT grid combined|interleaved

CHECKOUT is a work tree of NVIDIA/Megatron-LM (not part of ppsim; see
tests/golden/megatron-reference/README). The tool imports its
megatron/core/pipeline_parallel/schedules.py and combined_1f1b.py as they are and calls
forward_backward_pipelining_with_interleaving once per pipeline rank of P, with V model chunks,
M micro-batches and G micro-batches a group (microbatch_group_size_per_vp_stage, default P).
"combined" sets overlap_moe_expert_parallel_comm, which routes every step through
combined_1f1b_schedule_for_interleaved_pipelining (Megatron-Core's combined 1F1B, the MoE
expert all-to-all overlap); "interleaved" leaves it off (plain interleaved 1F1B).

What runs is Megatron's own code: the warm-up, steady and cool-down loops, the schedule table,
the lists of buffered tensors and the helpers that pick each step's micro-batch and chunk. What
is mocked is below it: torch (a stub package), torch.distributed (a P2P communicator that hands
back a placeholder tensor for every receive asked for), and the model: Megatron's forward_step
and backward_step, or for combined 1F1B its combined_forward_backward_step, are replaced by
recorders. A forward's output tensor carries its (micro-batch, chunk), so the backward that pops
it from Megatron's output_tensors lists says which forward it belongs to; the recorder checks
that this is the chunk Megatron asked for. Each rank runs three times, with overlap_p2p_comm and
overlap_p2p_comm_warmup_flush off, with the first on, and with both on; the tool checks that the
three orders are the same.

Prints, per rank, the order in PyTorch's compute-only CSV format, which is what
`ppsim --export-schedule=FILE --export-format=torch` writes: a cell is STAGE F MB (forward) or
STAGE B MB (full backward), STAGE = chunk * P + rank; a combined step, whose forward and
backward run as one overlapped step, is (STAGE F MB;STAGE B MB)OVERLAP_F_B. The grid form prints
the reference file tests/golden/megatron-reference/KIND.txt: P in {2, 4, 8}, V in {2, 3, 4},
with the default group M in {P, 2P, 3P, 4P}, and with G = P + 1 the two M that Megatron accepts
after it, 2G and G + P; each case a line "# p=P v=V m=M g=G" and the rank lines.

Needs Python 3.10 or later, and neither torch nor Megatron's other dependencies.
"""
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types

# The Megatron-LM files run as they are; every other megatron.* and torch.* module is a stub.
REAL = {
    'megatron.core.pipeline_parallel.schedules': 'schedules.py',
    'megatron.core.pipeline_parallel.combined_1f1b': 'combined_1f1b.py',
    'megatron.core.pipeline_parallel.utils': 'utils.py',
    'megatron.core.telemetry.fallbacks': os.path.join('..', 'telemetry', 'fallbacks.py'),
}


class _StubMeta(type):
    """A stub class: any attribute of it is another stub class."""

    def __getattr__(cls, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return _stub_class(name)


class Stub(metaclass=_StubMeta):
    """Stands for any object of the stubbed libraries: calls, attributes, contexts."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return Stub()

    def __call__(self, *args, **kwargs):
        return Stub()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _stub_class(name):
    return _StubMeta(name, (Stub,), {})


class StubModule(types.ModuleType):
    """A stub module: a package whose every missing attribute is a stub class, kept once."""

    def __init__(self, name, overrides=None):
        super().__init__(name)
        self.__path__ = []
        self.__dict__.update(overrides or {})

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        value = _stub_class(name)
        setattr(self, name, value)
        return value


class Tensor:
    """A placeholder tensor; a forward's output carries its (micro-batch, chunk)."""

    def __init__(self, mb=None, chunk=None):
        self.mb, self.chunk = mb, chunk


class Module:
    """torch.nn.Module: a model chunk is one, with its index."""


def _overrides(checkout):
    """What the stubs must get right for the schedule's logic to run as it does on GPUs."""
    torch_nn = StubModule('torch.nn', {'Module': Module})
    return {
        'torch': {'Tensor': Tensor, 'nn': torch_nn, 'zeros': lambda *a, **k: 0},
        'torch.nn': {'Module': Module},
        'megatron.core.utils': {
            'get_pg_rank': lambda group=None: 0 if group is None else group.rank(),
            'get_pg_size': lambda group=None: 1 if group is None else group.size(),
            'nvtx_range_push': lambda *a, **k: None,
            'nvtx_range_pop': lambda *a, **k: None,
        },
        'megatron.core.distributed.fsdp.src.megatron_fsdp.utils': {
            'find_megatron_fsdp': lambda model: None,
        },
    }


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports torch.* and megatron.* as stubs, but the Megatron files in REAL from checkout."""

    def __init__(self, checkout):
        self.base = os.path.join(checkout, 'megatron', 'core', 'pipeline_parallel')
        self.overrides = _overrides(checkout)

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.split('.')[0]
        if top not in ('torch', 'megatron'):
            return None
        if fullname in REAL:
            where = os.path.normpath(os.path.join(self.base, REAL[fullname]))
            return importlib.util.spec_from_file_location(fullname, where)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return StubModule(spec.name, self.overrides.get(spec.name))

    def exec_module(self, module):
        pass


def load(checkout):
    """Megatron-LM's schedules and combined_1f1b modules, torch stubbed."""
    for name in [n for n in sys.modules if n.split('.')[0] in ('torch', 'megatron')]:
        del sys.modules[name]
    sys.meta_path.insert(0, _Finder(checkout))
    import megatron.core.pipeline_parallel.schedules as schedules
    import megatron.core.pipeline_parallel.combined_1f1b as combined
    return schedules, combined


class Group:
    """A pipeline process group of one rank."""

    def __init__(self, rank, size):
        self._rank, self._size = rank, size

    def rank(self):
        return self._rank

    def size(self):
        return self._size


class Handle:
    def wait(self):
        pass


class Communicator:
    """P2PCommunicator's calls the schedule makes: a placeholder tensor for each receive asked
    for, and with overlap_p2p_comm the handles of the transfers made, as _communicate names
    them."""

    def __init__(self, group, config, v):
        self.pp_group = group
        self.config = config
        self.virtual_pipeline_model_parallel_size = v

    def _communicate(self, send_next, send_prev, recv_prev, recv_next):
        handles = {}
        if send_next is not None:
            handles['send_next'] = Handle()
        if recv_prev:
            handles['recv_prev'] = Handle()
        if send_prev is not None:
            handles['send_prev'] = Handle()
        if recv_next:
            handles['recv_next'] = Handle()
        return (Tensor() if recv_prev else None, Tensor() if recv_next else None, handles)

    def recv_forward(self, tensor_shape, is_first_stage):
        return None if is_first_stage else Tensor()

    def recv_backward(self, tensor_shape, is_last_stage):
        return None if is_last_stage else Tensor()

    def send_forward_recv_forward(self, output_tensor, recv_prev, tensor_shape,
                                  overlap_p2p_comm=False):
        got, _, handles = self._communicate(output_tensor, None, recv_prev, False)
        return (got, handles) if overlap_p2p_comm else got

    def send_backward_recv_backward(self, input_tensor_grad, recv_next, tensor_shape,
                                    overlap_p2p_comm=False):
        _, got, handles = self._communicate(None, input_tensor_grad, False, recv_next)
        return (got, handles) if overlap_p2p_comm else got

    def send_forward_backward_recv_forward_backward(self, output_tensor, input_tensor_grad,
                                                    recv_prev, recv_next, tensor_shape):
        got_prev, got_next, _ = self._communicate(output_tensor, input_tensor_grad, recv_prev,
                                                  recv_next)
        return got_prev, got_next


class Config:
    """The TransformerConfig fields the schedule reads; any other read is an error."""

    def __init__(self, v, group, combined, overlap_p2p, warmup_flush):
        self.virtual_pipeline_model_parallel_size = v
        self.microbatch_group_size_per_vp_stage = group
        self.overlap_moe_expert_parallel_comm = combined
        self.overlap_p2p_comm = overlap_p2p
        self.overlap_p2p_comm_warmup_flush = warmup_flush
        self.batch_p2p_comm = not overlap_p2p
        self.high_priority_a2a_comm_stream = False
        self.moe_paged_stash = False
        self.finalize_model_grads_func = None
        self.timers = None
        self.no_sync_func = None
        self.grad_sync_func = None
        self.param_sync_func = None
        self.num_microbatches_with_partial_activation_checkpoints = None
        self.sequence_parallel = False
        self.hidden_size = 8
        self.deallocate_pipeline_outputs = False
        self.fine_grained_activation_offloading = False
        self.cuda_graph_impl = 'none'
        self.calculate_per_token_loss = False


class Recorder:
    """Stands for the model: records each step as ('F', chunk, mb), ('B', chunk, mb) or
    ('FB', (chunk, mb), (chunk, mb)) for a combined step."""

    def __init__(self, models):
        self.models = models
        self.steps = []

    def chunk_of(self, model):
        return next(i for i, m in enumerate(self.models) if m is model)

    def backward_of(self, output_tensor, chunk):
        # the forward this backward popped from output_tensors[chunk]
        out = output_tensor[0] if isinstance(output_tensor, list) else output_tensor
        assert out.chunk == chunk, 'backward of chunk %d pops an output of chunk %d' % (
            chunk, out.chunk)
        return out.mb

    # Megatron's forward_step and backward_step (the plain interleaved path)
    def forward_step(self, forward_step_func, data_iterator, model, num_microbatches,
                     input_tensor, forward_data_store, config, *args, current_microbatch=None,
                     vp_stage=None, **kwargs):
        chunk = self.chunk_of(model)
        assert vp_stage == chunk
        self.steps.append(('F', chunk, current_microbatch))
        return Tensor(current_microbatch, chunk), 0

    def backward_step(self, input_tensor, output_tensor, output_tensor_grad, config):
        out = output_tensor[0] if isinstance(output_tensor, list) else output_tensor
        self.steps.append(('B', out.chunk, out.mb))
        return None if input_tensor is None else Tensor()

    # combined_1f1b.combined_forward_backward_step: the forward of one micro-batch and the
    # backward of another as one step, calling the P2P hooks as the schedule plan's run does
    def combined_forward_backward_step(self, forward_step_func, data_iterator, f_model,
                                       num_microbatches, input_tensor, forward_data_store,
                                       b_model, b_input_tensor, b_output_tensor,
                                       b_output_tensor_grad, config, f_model_chunk_id=None,
                                       pre_forward=None, pre_backward=None, post_forward=None,
                                       post_backward=None, current_microbatch=None, **kwargs):
        fwd = bwd = None
        if f_model is not None:
            chunk = self.chunk_of(f_model)
            assert f_model_chunk_id == chunk
            fwd = (chunk, current_microbatch)
            if pre_forward is not None:
                pre_forward(chunk)
        if b_model is not None:
            chunk = self.chunk_of(b_model)
            bwd = (chunk, self.backward_of(b_output_tensor, chunk))
            if pre_backward is not None:
                pre_backward(chunk)
        output_tensor = grad = None
        if fwd is not None:
            output_tensor = Tensor(fwd[1], fwd[0])
            if post_forward is not None:
                post_forward(output_tensor, fwd[0])
        if bwd is not None:
            grad = None if b_input_tensor is None else Tensor()
            if post_backward is not None:
                post_backward(grad, bwd[0])
        if fwd is not None and bwd is not None:
            self.steps.append(('FB', fwd, bwd))
        elif fwd is not None:
            self.steps.append(('F',) + fwd)
        else:
            self.steps.append(('B',) + bwd)
        return output_tensor, 0, grad


def rank_steps(schedules, combined, kind, p, v, m, g, rank, overlap_p2p, warmup_flush):
    """The steps rank runs in one call of forward_backward_pipelining_with_interleaving."""
    config = Config(v, g, kind == 'combined', overlap_p2p, warmup_flush)
    models = [Module() for _ in range(v)]
    rec = Recorder(models)
    schedules.get_model_config = lambda model: config
    schedules.get_model_type = lambda model: None
    schedules.deallocate_output_tensor = lambda out, deallocate=False: None
    schedules.forward_step = rec.forward_step
    schedules.backward_step = rec.backward_step
    combined.combined_forward_backward_step = rec.combined_forward_backward_step
    pg = types.SimpleNamespace(tp=Group(0, 1), cp=Group(0, 1))
    schedules.forward_backward_pipelining_with_interleaving(
        forward_step_func=None, data_iterator=[None] * v, model=models, num_microbatches=m,
        seq_length=4, micro_batch_size=1,
        p2p_communicator=Communicator(Group(rank, p), config, v), pg_collection=pg)
    return rec.steps


def order_of(mods, kind, p, v, m, g=None):
    """Each rank's cells, PyTorch's format, checked alike under the three P2P settings."""
    g = p if g is None else g
    rows = []
    for rank in range(p):
        runs = [rank_steps(*mods, kind, p, v, m, g, rank, o, f)
                for o, f in ((False, False), (True, False), (True, True))]
        assert runs[0] == runs[1] == runs[2], 'rank %d: the order depends on the P2P mode' % rank
        if kind == 'interleaved':
            assert all(s[0] != 'FB' for s in runs[0])

        def cell(op, chunk, mb):
            return '%d%s%d' % (chunk * p + rank, op, mb)

        cells = []
        for step in runs[0]:
            if step[0] == 'FB':
                cells.append('(%s;%s)OVERLAP_F_B' % (cell('F', *step[1]), cell('B', *step[2])))
            else:
                cells.append(cell(*step))
        rows.append(','.join(cells))
    return rows


def shapes():
    for p in (2, 4, 8):
        for v in (2, 3, 4):
            for m in (p, 2 * p, 3 * p, 4 * p):
                yield p, v, m, p
            g = p + 1
            for m in (2 * g, g + p):
                yield p, v, m, g


def main(argv):
    if len(argv) == 4 and argv[2] == 'grid' and argv[3] in ('combined', 'interleaved'):
        mods = load(argv[1])
        for p, v, m, g in shapes():
            print('# p=%d v=%d m=%d g=%d' % (p, v, m, g))
            for row in order_of(mods, argv[3], p, v, m, g):
                print(row)
        return
    if len(argv) not in (6, 7) or argv[2] not in ('combined', 'interleaved'):
        sys.exit(__doc__)
    mods = load(argv[1])
    g = int(argv[6]) if len(argv) == 7 else None
    for row in order_of(mods, argv[2], int(argv[3]), int(argv[4]), int(argv[5]), g):
        print(row)


if __name__ == '__main__':
    main(sys.argv)
