"""A finished simulation held by the library (pp_run), read as data: figures by the JSON
report's key paths, the per-device table by column, the ops as records filled by one call of the
library (a NumPy structured array, a pandas DataFrame, or named tuples), reports as text.
"""

import ctypes
import json
import math
import mmap
import struct
import sys
from collections import namedtuple
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _lib
from ._errors import PpsimError
from ._settings import c_string

# The kinds of op, by their code in the "op" field of an ops array (enum pp_op_kind).
OP_KINDS = ("F", "B", "W", "BW")

# One op of a run, as a row of `ppsim --dump-ops`: times in the run's time unit; slack, how
# much longer it could take without lengthening the step (0: on a critical path), None when the
# run kept no slack; overlap, True on an F that runs overlapped with the device's next op (an
# overlapped pair's first op), last so that the fields before it keep their places.
Op = namedtuple("Op", "device chunk stage op microbatch start end slack overlap")

# An op's record, as the library fills it (pp_ops with a stride): its fields in the order of
# `--dump-ops` (overlap: an F that runs overlapped with the device's next op), each with its
# format, its size and the column of struct pp_ops that fills it. A record holds the fields a
# run kept, in this order, each aligned to its size (_layout).
_FIELDS = [("device", "<i4", 4, "device"), ("chunk", "<i4", 4, "chunk"),
           ("stage", "<i4", 4, "stage"), ("op", "u1", 1, "kind"),
           ("microbatch", "<i4", 4, "microbatch"), ("start", "<f8", 8, "start"),
           ("end", "<f8", 8, "end"), ("overlap", "?", 1, "overlap"), ("slack", "<f8", 8, "slack")]
# struct's code of each format, to read records without NumPy
_STRUCT = {"<i4": "i", "u1": "B", "<f8": "d", "?": "?"}


def _layout(fields: Tuple[str, ...]) -> Tuple[Dict[str, int], int]:
    """The offset of each of fields in a record, in _FIELDS' order, each aligned to its size
    (so that the library writes aligned values and NumPy, which saves and copies only
    structured arrays whose fields are in the order of their offsets, can), and the record's
    size (a multiple of 8)."""
    offsets, at = {}, 0
    for name, _, size, _ in _FIELDS:
        if name in fields:
            at = (at + size - 1) // size * size
            offsets[name], at = at, at + size
    return offsets, (at + 7) // 8 * 8


def _zeroed(np: Any, size: int) -> Any:
    """A NumPy array of size zero bytes, at the cost of np.empty: fresh pages of an anonymous
    mapping, which the kernel zeroes as they are first touched (np.zeros memsets memory its
    allocator reuses), on huge pages where the kernel has them (as NumPy asks for its large
    arrays: a fault a 2 MiB page, not a 4 KiB one). The records' padding, which the library
    does not write, reads zero: two runs' arrays have the same bytes, and a saved one holds no
    leftover memory."""
    if size < 1 << 20 or not hasattr(mmap, "MAP_ANONYMOUS"):
        return np.zeros(size, dtype=np.uint8)
    # private: a shared anonymous mapping is shared memory, which takes no huge pages
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(m, "madvise") and hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            m.madvise(mmap.MADV_HUGEPAGE)
        except OSError:
            pass
    return np.frombuffer(m, dtype=np.uint8)


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as e:
        raise ImportError("ppsim: NumPy cannot be imported by this Python (%s): install it for "
                          "it (pip install numpy), or use Debian's /usr/bin/python3 with "
                          "python3-numpy (a virtual environment made by it with "
                          "--system-site-packages sees it)" % sys.executable) from e
    return numpy


def _pandas() -> Any:
    try:
        import pandas  # type: ignore[import]
    except ImportError as e:
        raise ImportError("ppsim: pandas cannot be imported by this Python (%s): install it for "
                          "it (pip install pandas), or use Debian's /usr/bin/python3 with "
                          "python3-pandas (a virtual environment made by it with "
                          "--system-site-packages sees it)" % sys.executable) from e
    return pandas


class OpRecords:
    """A run's ops as records of _FIELDS (laid out by _layout) in one buffer (a NumPy array
    when NumPy is there, else a bytearray), with the fields the run kept; the same data as an
    array, a DataFrame or a list of Op."""

    def __init__(self, buffer: Any, n: int, fields: Tuple[str, ...]) -> None:
        self.buffer, self.n, self.fields = buffer, n, fields

    def array(self) -> Any:
        """The records as a NumPy structured array (one copy-free view of the buffer)."""
        np = _numpy()
        offsets, size = _layout(self.fields)
        at = [(name, fmt) for name, fmt, _, _ in _FIELDS if name in self.fields]
        dtype = np.dtype({"names": [a[0] for a in at], "formats": [a[1] for a in at],
                          "offsets": [offsets[a[0]] for a in at], "itemsize": size})
        if isinstance(self.buffer, np.ndarray):
            return self.buffer.view(dtype)
        return np.frombuffer(self.buffer, dtype=dtype, count=self.n)

    def frame(self) -> Any:
        """The records as a pandas DataFrame: a column per field, "op" the kinds' names (a
        categorical)."""
        pd = _pandas()
        a = self.array()
        df = pd.DataFrame({name: a[name] for name in a.dtype.names})
        df["op"] = pd.Categorical.from_codes(a["op"], categories=list(OP_KINDS))
        return df

    def ops(self) -> List[Op]:
        """The records as Op named tuples (PpsimError when the run kept no op times)."""
        if "start" not in self.fields:
            raise PpsimError("ppsim: the run kept no op times: simulate it with op_times=True")
        data = self.buffer.tobytes() if hasattr(self.buffer, "tobytes") else bytes(self.buffer)
        offsets, size = _layout(self.fields)
        order = sorted(self.fields, key=lambda f: offsets[f])
        fmt = {name: f for name, f, _, _ in _FIELDS}
        code, at = "<", 0
        for f in order:  # each field at its offset, the padding before it skipped
            code += "x" * (offsets[f] - at) + _STRUCT[fmt[f]]
            at = offsets[f] + struct.calcsize("<" + _STRUCT[fmt[f]])
        unpack = struct.Struct(code + "x" * (size - at))
        ops = []
        for values in unpack.iter_unpack(data):
            v = dict(zip(order, values))
            ops.append(Op(v["device"], v["chunk"], v["stage"], OP_KINDS[v["op"]],
                          v["microbatch"], _int(v["start"]), _int(v["end"]),
                          _int(v["slack"]) if "slack" in v else None,
                          bool(v.get("overlap", False))))
        return ops


def _int(x: float) -> Union[int, float]:
    """x as an int when it is whole (as the op dump's CSV writes 33, not 33.0)."""
    return int(x) if x.is_integer() else x


class Run:
    """A finished simulation in the library: a training step (simulate) or a serving run
    (simulate_serving). Read it as data (figure, figures, devices, ops, ops_array, ops_frame)
    or as reports (report, json, ops_csv); close it, or use it in a with block, to free its
    memory at once (else it is freed when collected)."""

    def __init__(self, lib: ctypes.CDLL, handle: int) -> None:
        self._lib = lib
        self._handle: Optional[int] = handle

    def _h(self) -> int:
        if not self._handle:
            raise ValueError("ppsim: the run is closed")
        return self._handle

    def close(self) -> None:
        if self._handle:
            self._lib.pp_run_free(self._handle)
            self._handle = None

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            self.close()

    # A Run owns the library's run: a copy would share it and free it twice.
    _NOT_COPIED = ("ppsim: a Run cannot be copied or pickled: it holds the library's run; "
                   "simulate again, or keep what it gives (figures(), devices(), ops())")

    def __copy__(self) -> "Run":
        raise TypeError(self._NOT_COPIED)

    def __deepcopy__(self, memo: Any) -> "Run":
        raise TypeError(self._NOT_COPIED)

    def __reduce__(self) -> Any:
        raise TypeError(self._NOT_COPIED)

    @property
    def serving(self) -> bool:
        """True for a serving run, False for a training step."""
        return bool(self._lib.pp_run_is_serving(self._h()))

    @property
    def time_unit(self) -> str:
        """The unit of its times: "ms" with a model, else "t" (the unit of t_f)."""
        unit: bytes = self._lib.pp_run_time_unit(self._h())
        return unit.decode()

    @property
    def op_count(self) -> int:
        return int(self._lib.pp_run_op_count(self._h()))

    def figure(self, name: str) -> float:
        """The figure at key path name of the JSON report ("makespan", "p2p.messages",
        "ttft.p50"); NaN where the report has none or null. PpsimError for a name that is no
        figure (figure_names() lists them)."""
        err, value = _lib.errbuf(), ctypes.c_double()
        _lib.check(self._lib.pp_run_figure(self._h(), c_string("name", name),
                                           ctypes.byref(value), err, _lib.ERRLEN), err)
        return value.value

    def figures(self) -> Dict[str, float]:
        """Every figure the run has (not NaN), by key path, in the reports' order."""
        values = {name: self.figure(name) for name in figure_names()}
        return {k: v for k, v in values.items() if not math.isnan(v)}

    def device_figure(self, name: str) -> List[float]:
        """Column name of the per-device table (a key of the report's "devices" entries: "busy",
        "utilization", "memory_bytes", ...), device d's at [d]; NaN where it has none."""
        err = _lib.errbuf()
        n = self._lib.pp_run_devices(self._h())
        out = (ctypes.c_double * max(n, 1))()
        _lib.check(self._lib.pp_run_device_figure(self._h(), c_string("name", name), out, n,
                                                  err, _lib.ERRLEN), err)
        return list(out[:n])

    def devices(self) -> Dict[str, List[float]]:
        """The per-device table: every column the run has (not all NaN), by name."""
        columns = {name: self.device_figure(name) for name in device_figure_names()}
        return {k: v for k, v in columns.items() if not all(math.isnan(x) for x in v)}

    def _records(self) -> OpRecords:
        """The ops as records, filled by one call of the library."""
        h, lib = self._h(), self._lib
        n, kept = int(lib.pp_run_op_count(h)), lib.pp_run_kept(h)
        fields = tuple(name for name, _, _, _ in _FIELDS
                       if (name not in ("start", "end") or kept >= 1)
                       and (name != "slack" or kept >= 2))
        offsets, size = _layout(fields)
        try:
            np = _numpy()
            buffer: Any = _zeroed(np, n * size)
            base = buffer.ctypes.data
        except ImportError:
            buffer = bytearray(n * size)
            base = ctypes.addressof((ctypes.c_char * len(buffer)).from_buffer(buffer)) if n else 0
        cols = _lib.Ops(n=n, stride=size)
        for name, _, _, column in _FIELDS:
            if name in fields:
                setattr(cols, column, base + offsets[name])
        if n > 0:
            err = _lib.errbuf()
            _lib.check(lib.pp_run_ops(h, 0, ctypes.byref(cols), err, _lib.ERRLEN), err)
        return OpRecords(buffer, n, fields)

    def ops(self) -> List[Op]:
        """The ops as Op named tuples (start and end need the op times kept)."""
        return self._records().ops()

    def ops_array(self) -> Any:
        """The ops as a NumPy structured array: fields device, chunk, stage, op (the kind's code
        in OP_KINDS), microbatch, start, end, overlap, slack (start, end and slack when kept)."""
        return self._records().array()

    def ops_frame(self) -> Any:
        """The ops as a pandas DataFrame, the columns of ops_array ("op" by name)."""
        return self._records().frame()

    def report(self, format: str = "text") -> str:
        """The report in a format of `ppsim --format` ("text", "json", "csv"), byte for byte the
        command's."""
        err, out = _lib.errbuf(), ctypes.c_void_p()
        status = self._lib.pp_run_report(self._h(), c_string("format", format),
                                         ctypes.byref(out), err, _lib.ERRLEN)
        return _lib.take(self._lib, status, out, err)

    def json(self) -> Dict[str, Any]:
        """The JSON report as a dict."""
        report: Dict[str, Any] = json.loads(self.report("json"))
        return report

    def ops_csv(self) -> str:
        """The ops as the CSV of `ppsim --dump-ops`."""
        err, out = _lib.errbuf(), ctypes.c_void_p()
        status = self._lib.pp_run_ops_csv(self._h(), ctypes.byref(out), err, _lib.ERRLEN)
        return _lib.take(self._lib, status, out, err)


def figure_names() -> List[str]:
    """The names Run.figure takes: the JSON reports' key paths of a training step's and a
    serving run's figures."""
    return _names(_lib.load().pp_figure_name)


def device_figure_names() -> List[str]:
    """The names Run.device_figure takes."""
    return _names(_lib.load().pp_device_figure_name)


def _names(fn: Any) -> List[str]:
    names: List[str] = []
    i = 0
    while True:
        name: Optional[bytes] = fn(i)
        if name is None:
            return names
        names.append(name.decode())
        i += 1
