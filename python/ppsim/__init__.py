"""ppsim: the pipeline-parallel schedule simulator, in process, from Python.

A layer over libppsim.so (ctypes and the standard library; NumPy and pandas when there):

    >>> import ppsim
    >>> ppsim.run(schedule="1f1b", p=4, m=8)["makespan"]
    33

Every keyword is a key of ppsim's JSON config files ("p", "m", "v", "schedule", "t_f",
"model", "link", ...) or a long option name with "_" for "-" ("mem_limit"), and its value is
read as the command line reads it: numbers, names, True/False, lists for list options. The
reports are ppsim's own JSON (keys in docs/output.md), byte for byte `ppsim --format=json`; a
run's figures, per-device table and ops are also data (simulate, Run), the ops a NumPy array or
a pandas DataFrame filled by one call of the library. compare and sweep run their simulations
one after another in this process (ppsim's own `ppsim sweep` runs on threads).

Arguments are checked before anything reaches the library: a value of the wrong type raises
TypeError, a NUL byte in a string or a number that is NaN or infinite ValueError. What the
library refuses raises a ppsim.Error: PpsimError (a ValueError) for a setting or config,
SimulationError (a PpsimError) for settings that cannot be simulated, PpsimFileError (an
OSError) for a file it cannot read, LibraryError (an OSError) when libppsim.so cannot be loaded.
"""

import ctypes
import itertools
import json
import os
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from . import _lib
from ._errors import (Error, LibraryError, PpsimError, PpsimFileError, PpsimMemoryError,
                      SimulationError)
from ._run import OP_KINDS, Op, OpRecords, Run, device_figure_names, figure_names
from ._settings import (Config, ConfigArg, c_string, flag, kind, plain, text,
                        with_schedule)
from ._version import __version__

__all__ = ["__version__", "Error", "PpsimError", "SimulationError", "PpsimFileError",
           "PpsimMemoryError", "LibraryError", "Result", "Run", "Op", "OP_KINDS", "version",
           "abi_version", "run", "simulate", "serve", "simulate_serving", "report", "ops_csv",
           "compare", "sweep", "advise", "dataframe", "sweep_frame", "listing", "schedules",
           "figure_names", "device_figure_names", "Calibration", "calibrate", "replay",
           "simulate_replay", "whatif_keys"]

# ppsim.h's pp_simulate flags
_KEEP_OP_TIMES = 1
_KEEP_SLACK = 2


class Result(dict):  # type: ignore[type-arg]
    """A run's JSON report as a dict; with ops=True, its ops as data: .ops (a list of Op),
    .ops_array() (a NumPy structured array) and .ops_frame() (a pandas DataFrame), with each
    op's slack when run with slack=True."""

    _records: Optional[OpRecords] = None
    _ops: Optional[List[Op]] = None

    @property
    def ops(self) -> Optional[List[Op]]:
        """The ops as Op named tuples, the rows of `ppsim --dump-ops`; None without ops=True."""
        if self._ops is None and self._records is not None:
            self._ops = self._records.ops()
        return self._ops

    def _need_ops(self, what: str) -> OpRecords:
        if self._records is None:
            raise PpsimError("%s: run with ops=True to keep the ops" % what)
        return self._records

    def ops_array(self) -> Any:
        """The ops as a NumPy structured array (Run.ops_array; needs NumPy and ops=True)."""
        return self._need_ops("ops_array").array()

    def ops_frame(self) -> Any:
        """The ops as a pandas DataFrame (Run.ops_frame; needs pandas and ops=True)."""
        return self._need_ops("ops_frame").frame()


def version() -> Tuple[str, Tuple[int, int, int]]:
    """The loaded library's version: (string, (major, minor, patch))."""
    nums = [ctypes.c_int() for _ in range(3)]
    s = _lib.load().pp_version(*[ctypes.byref(n) for n in nums])
    return s.decode(), (nums[0].value, nums[1].value, nums[2].value)


def abi_version() -> int:
    """The interface version (PP_ABI_VERSION) of the loaded library."""
    return int(_lib.load().pp_abi_version())


def _text_result(lib: ctypes.CDLL, call: Any, *args: Any) -> str:
    """The string a call of the library returns through its out argument, before err."""
    err, out = _lib.errbuf(), ctypes.c_void_p()
    status = call(*args, ctypes.byref(out), err, _lib.ERRLEN)
    return _lib.take(lib, status, out, err)


def listing() -> Dict[str, Any]:
    """The tables of `ppsim list --format=json` as a dict: schedules, models, gpus, links,
    batching, formats."""
    lib = _lib.load()
    return json.loads(_text_result(lib, lib.pp_list, b"json"))  # type: ignore[no-any-return]


def schedules() -> List[str]:
    """The names of the schedules, in the order of `ppsim list`."""
    return [s["name"] for s in listing()["schedules"]]


_every_schedule = schedules  # for compare, whose argument takes the name


def _simulate(config: ConfigArg, settings: Dict[str, Any], flags: int,
              serving: bool = False) -> Run:
    with Config(config, settings) as cfg:
        err, handle = _lib.errbuf(), ctypes.c_void_p()
        call = cfg.lib.pp_serve if serving else cfg.lib.pp_simulate
        _lib.check(call(cfg.handle, flags, ctypes.byref(handle), err, _lib.ERRLEN), err)
        # PP_OK hands out a run, never NULL
        return Run(cfg.lib, handle.value or 0)


def simulate(schedule: Optional[str] = None, config: ConfigArg = None, op_times: bool = False,
             slack: bool = False, **settings: Any) -> Run:
    """Simulates one training step and returns it as a Run, to read as data. op_times=True keeps
    each op's start and end (for Run.ops_array and the reports' critical path); slack=True each
    op's slack too. Without them the run holds its figures and per-device table alone, in 16 to
    28 fewer bytes per op."""
    flags = ((_KEEP_OP_TIMES if flag("op_times", op_times) else 0)
             | (_KEEP_SLACK if flag("slack", slack) else 0))
    return _simulate(config, with_schedule(schedule, settings), flags)


def simulate_serving(config: ConfigArg = None, **settings: Any) -> Run:
    """Simulates a serving run (`ppsim serve`: its requests from the trace "requests" names, or
    generated) and returns it as a Run; its ops are one forward per micro-batch and stage."""
    return _simulate(config, settings, 0, serving=True)


def run(schedule: Optional[str] = None, config: ConfigArg = None, ops: bool = False,
        slack: bool = False, **settings: Any) -> Result:
    """Simulates one configuration; returns its JSON report as a Result (a dict).

    schedule: a schedule name ("1f1b", "interleaved", "zbh1", ...); config: a JSON config
    file's path or a dict of its keys, applied before the keywords; ops=True also keeps the
    ops: Result.ops, .ops_array(), .ops_frame(); slack=True each op's slack with them (a pass
    over the run that takes about as long as the run). Raises PpsimError for bad settings,
    SimulationError for a failed simulation, TypeError or ValueError for arguments of the wrong
    type.
    """
    keep_ops, keep_slack = flag("ops", ops), flag("slack", slack)
    with _simulate(config, with_schedule(schedule, settings),
                   _KEEP_SLACK if keep_slack else _KEEP_OP_TIMES) as r:
        result = Result(r.json())
        if keep_ops or keep_slack:
            result._records = r._records()
        return result


def serve(config: ConfigArg = None, **settings: Any) -> Result:
    """Simulates a serving run; returns its JSON report (`ppsim serve --format=json`) as a
    Result."""
    with simulate_serving(config, **settings) as r:
        return Result(r.json())


def report(format: str = "text", schedule: Optional[str] = None, config: ConfigArg = None,
           **settings: Any) -> str:
    """The report of one run in a run format of `ppsim --format` ("text", "json", "csv")."""
    c_string("format", format)
    with _simulate(config, with_schedule(schedule, settings), _KEEP_OP_TIMES) as r:
        return r.report(format)


def ops_csv(schedule: Optional[str] = None, config: ConfigArg = None, **settings: Any) -> str:
    """The ops of one run as the CSV text of `ppsim --dump-ops`."""
    with _simulate(config, with_schedule(schedule, settings), _KEEP_SLACK) as r:
        return r.ops_csv()


def compare(schedules: Union[str, Sequence[str]], config: ConfigArg = None,
            format: str = "json", **settings: Any) -> Union[List[Dict[str, Any]], str]:
    """Runs each schedule of schedules on the same settings, one after another, and returns
    them side by side as `ppsim compare --schedules=...` does, each schedule with the chunk
    count it takes nearest to v (compare(["1f1b", "interleaved"], v=2) runs 1F1B with one):
    with format "json" a list of reports (dicts), else the text of that format ("text",
    "csv"). schedules is a list of names or, as --schedules takes it, a comma-separated string;
    "all" stands for every schedule."""
    if not isinstance(schedules, (str, list, tuple)):
        raise TypeError("ppsim: schedules must be a str, a list or a tuple of names, not %s"
                        % kind(schedules))
    names = schedules.split(",") if isinstance(schedules, str) else list(schedules)
    for name in names:
        c_string("schedules' name", name)
    cformat = c_string("format", format)
    names = [n for name in names for n in (_every_schedule() if name == "all" else [name])]
    if not names:
        raise PpsimError("compare: no schedules")
    with Config(config, settings) as cfg:
        lib, err = cfg.lib, _lib.errbuf()
        runs = (ctypes.c_void_p * len(names))()
        cnames = (ctypes.c_char_p * len(names))(*[n.encode() for n in names])
        _lib.check(lib.pp_simulate_schedules(cfg.handle, cnames, len(names), _KEEP_OP_TIMES,
                                             runs, err, _lib.ERRLEN), err)
    try:
        labels = (ctypes.c_char_p * len(names))(*[b"-"] * len(names))
        text = _text_result(lib, lib.pp_compare_report, runs, labels, len(names), cformat)
        if format != "json":
            return text
        reports: List[Dict[str, Any]] = json.loads(text)
        return reports
    finally:
        for h in runs:
            lib.pp_run_free(h)


def sweep(config: ConfigArg = None, **grid: Any) -> List[Result]:
    """Runs every combination of the keywords' values (a list or tuple is an axis, anything
    else a fixed setting), serially in this process, in the order of the keywords; returns the
    reports (dicts). A list option takes a string here ("1,2,1"), since a list is an axis."""
    keys = list(grid)
    axes = [v if isinstance(v, (list, tuple)) else [v] for v in grid.values()]
    for key, value in grid.items():
        if isinstance(value, (list, tuple)) and not value:
            raise ValueError("ppsim: sweep axis %s is empty" % key)
        if isinstance(value, (list, tuple)) and any(v is None for v in value):
            raise TypeError("ppsim: sweep axis %s holds None, which is no value" % key)
    return [run(config=config, **dict(zip(keys, point))) for point in itertools.product(*axes)]


def advise(config: ConfigArg = None, jobs: int = 1, top: Optional[int] = None,
           **settings: Any) -> List[Dict[str, Any]]:
    """The search of `ppsim advise` on the settings (a model, "gpus" and "global_batch"): each
    of tp, p, v, mbs and the schedule they do not set (and ep, for a mixture of experts) varies
    over the layouts that fit the GPUs, on jobs threads of the library. Returns the points best first (the first is the
    recommendation; top keeps that many), each a dict of the settings that vary ("tp", "p",
    "schedule", ...: text as the config takes it), the figures of a `ppsim sweep
    --format=jsonl` record (None where it has null), "time_unit", and "skipped": why a point
    could not run, or None."""
    jobs = _count("jobs", jobs)
    if top is not None and (not isinstance(top, int) or isinstance(top, bool)):
        raise TypeError("ppsim: top must be an int or None, not %s" % kind(top))
    if top is not None and top < 0:
        raise ValueError("ppsim: top=%d: must be 0 or more (None: every point)" % top)
    with Config(config, settings) as cfg:
        lib, err, handle = cfg.lib, _lib.errbuf(), ctypes.c_void_p()
        _lib.check(lib.pp_advise(cfg.handle, jobs, ctypes.byref(handle), err, _lib.ERRLEN), err)
    try:
        return _sweep_points(lib, handle, top)
    finally:
        lib.pp_sweep_free(handle)


# the figures of a sweep point that are counts, as ints
_SWEEP_COUNTS = frozenset(["p", "v", "m", "tp", "cp", "ep", "dp", "mbs", "gpus", "p2p_messages",
                           "p2p_bytes"])


def _sweep_points(lib: ctypes.CDLL, handle: ctypes.c_void_p,
                  top: Optional[int]) -> List[Dict[str, Any]]:
    """The points of a pp_sweep, best first (the first top of them)."""
    names, i = [], 0
    while lib.pp_sweep_figure_name(i) is not None:
        names.append(lib.pp_sweep_figure_name(i).decode())
        i += 1
    n = lib.pp_sweep_points(handle)
    count = n if top is None else max(0, min(top, n))
    keys = [lib.pp_sweep_axis_key(handle, a).decode() for a in range(lib.pp_sweep_axes(handle))]
    err, value = _lib.errbuf(), ctypes.c_double()
    points: List[Dict[str, Any]] = []
    for k in range(count):
        point = lib.pp_sweep_ranked(handle, k)
        row: Dict[str, Any] = {}
        for a, key in enumerate(keys):  # the settings that vary, but the figures' own
            if key not in names:
                row[key] = lib.pp_sweep_value(handle, point, a).decode()
        for name in names:
            _lib.check(lib.pp_sweep_figure(handle, point, name.encode(), ctypes.byref(value),
                                           err, _lib.ERRLEN), err)
            x = value.value
            row[name] = (None if x != x else x == 1 if name == "fits"
                         else int(x) if name in _SWEEP_COUNTS else x)
        unit, skipped = lib.pp_sweep_time_unit(handle, point), lib.pp_sweep_skipped(handle, point)
        row["time_unit"] = unit.decode() if unit is not None else None
        row["skipped"] = skipped.decode() if skipped is not None else None
        points.append(row)
    return points


def dataframe(schedule: Optional[str] = None, config: ConfigArg = None,
              **settings: Any) -> Any:
    """The ops of one run as a pandas DataFrame (Run.ops_frame's columns), with their slacks."""
    return run(schedule=schedule, config=config, ops=True, slack=True, **settings).ops_frame()


def sweep_frame(config: ConfigArg = None, **grid: Any) -> Any:
    """sweep as a pandas DataFrame: a row per point, a column per number or name the report
    has at its top level (schedule, p, v, m, makespan, bubble_ratio, ...)."""
    from ._run import _pandas
    rows = [{k: v for k, v in r.items() if not isinstance(v, (dict, list))}
            for r in sweep(config=config, **grid)]
    return _pandas().DataFrame(rows)


# A file's path: a str, bytes or os.PathLike.
PathArg = Union[str, bytes, "os.PathLike[str]"]


def _path(what: str, value: Any) -> bytes:
    """A file's path as the bytes the library reads: TypeError for another type, ValueError for
    a NUL byte."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError("ppsim: %s must be a path (str, bytes or os.PathLike), not %s"
                        % (what, kind(value)))
    path = os.fsencode(value)
    if b"\0" in path:
        raise ValueError("ppsim: %s %r holds a NUL byte" % (what, value))
    return path


def _count(what: str, value: Any) -> int:
    """value as the C int an argument of the library is: an int (TypeError otherwise) that a C
    int holds (ValueError otherwise: ctypes would pass it wrapped)."""
    value = plain(what, value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("ppsim: %s must be an int, not %s" % (what, kind(value)))
    if not -2**31 <= value < 2**31:
        raise ValueError("ppsim: %s=%d: beyond the library's range (a C int, below 2**31)"
                         % (what, value))
    return value


def _number(what: str, value: Any) -> float:
    value = plain(what, value)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError("ppsim: %s must be a number, not %s" % (what, kind(value)))
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("ppsim: %s=%r: not a finite number" % (what, value))
    return float(value)


class Calibration(NamedTuple):
    """Measured op times fitted as explicit costs (calibrate): config, the settings of a JSON
    config file ("p", "t_f", "t_b", "t_w", "stage_scale", ...; give it as config= to run or
    simulate); max_error, the largest relative gap between a fitted and a measured op time."""

    config: Dict[str, Any]
    max_error: float


def calibrate(path: PathArg, m: Optional[int] = None,
              w_share: Optional[float] = None) -> Calibration:
    """The explicit costs fitted to measured op times, as `ppsim calibrate` writes them: path is
    a CSV of stage, op (F, B, W, BW or comm) and ms per micro-batch, or a Megatron-LM log, which
    needs m, the micro-batches of an iteration; w_share, the share of a fused backward taken as
    W (a schedule that splits the backward needs it when only BW was measured). Raises
    PpsimFileError for a file it cannot read, PpsimError for a line at fault or a bad m or
    w_share."""
    cpath = _path("path", path)
    # None is "not given", which C writes as 0 and a negative share: a given value is checked
    cm = 0 if m is None else _count("m", m)
    share = -1.0 if w_share is None else _number("w_share", w_share)
    if m is not None and cm < 1:
        raise PpsimError("calibrate: m=%d must be from 1 (or None)" % cm)
    if w_share is not None and not 0 <= share <= 1:
        raise PpsimError("calibrate: w_share=%r must be from 0 to 1 (or None)" % share)
    lib, err, handle, gap = _lib.load(), _lib.errbuf(), ctypes.c_void_p(), ctypes.c_double()
    _lib.check(lib.pp_calibrate(cpath, cm, share, ctypes.byref(handle), ctypes.byref(gap), err,
                                _lib.ERRLEN), err)
    try:
        config: Dict[str, Any] = json.loads(_text_result(lib, lib.pp_config_json, handle))
    finally:
        lib.pp_config_free(handle)
    return Calibration(config, gap.value)


def whatif_keys() -> List[str]:
    """The keys of a replay's what-if (replay): "schedule", "m", "v", the schedule generators'
    options, "without_slowest", "w_share"."""
    from ._run import _names
    return _names(_lib.load().pp_replay_whatif_key)


def simulate_replay(paths: Union[PathArg, Sequence[PathArg]], config: ConfigArg = None, *,
                    without_slowest: bool = False, schedule: Optional[str] = None,
                    m: Optional[int] = None, v: Optional[int] = None,
                    w_share: Optional[float] = None, op_times: bool = False,
                    slack: bool = False, **settings: Any) -> Run:
    """replay's run as a Run, to read as data: the what-if's (the replay's without one), its
    figures "replay.measured_step", "replay.replayed_step", "replay.what_if.step", ... setting it
    against the replay and the measured step; op_times and slack as simulate's."""
    files = [paths] if isinstance(paths, (str, bytes, os.PathLike)) else paths
    if not isinstance(files, (list, tuple)):
        raise TypeError("ppsim: paths must be a path or a list of paths, not %s" % kind(paths))
    if not files:
        raise PpsimError("ppsim: paths names no measured file")
    cpaths = [_path("paths' path", p) for p in files]
    wkeys = set(whatif_keys())
    # the what-if's settings are checked as run's: a name a str, a count or a share no bool
    if schedule is not None:
        c_string("schedule", schedule)
    for what, value in (("m", m), ("v", v), ("w_share", w_share)):
        if isinstance(plain(what, value), bool):
            raise TypeError("ppsim: %s=%r: a bool, and %s takes no yes or no"
                            % (what, value, what))
    whatif: Dict[str, Any] = {"schedule": schedule, "m": m, "v": v, "w_share": w_share,
                              "without_slowest": flag("without_slowest", without_slowest)}
    whatif.update({k: val for k, val in settings.items() if k in wkeys})
    settings = {k: val for k, val in settings.items() if k not in wkeys}
    asked = [(c_string("key", k), c_string(k, text(k, val))) for k, val in whatif.items()
             if val is not None and val is not False]
    flags = ((_KEEP_OP_TIMES if flag("op_times", op_times) else 0)
             | (_KEEP_SLACK if flag("slack", slack) else 0))
    with Config(config, settings) as cfg:
        lib, err, handle = cfg.lib, _lib.errbuf(), ctypes.c_void_p()
        carr = (ctypes.c_char_p * max(len(cpaths), 1))(*cpaths)
        keys = (ctypes.c_char_p * max(len(asked), 1))(*[k for k, _ in asked])
        values = (ctypes.c_char_p * max(len(asked), 1))(*[x for _, x in asked])
        _lib.check(lib.pp_replay_whatif(cfg.handle, carr, len(cpaths), keys, values, len(asked),
                                        flags, ctypes.byref(handle), err, _lib.ERRLEN), err)
        # PP_OK hands out a run, never NULL
        return Run(lib, handle.value or 0)


def replay(paths: Union[PathArg, Sequence[PathArg]], config: ConfigArg = None, *,
           without_slowest: bool = False, schedule: Optional[str] = None,
           m: Optional[int] = None, v: Optional[int] = None, w_share: Optional[float] = None,
           ops: bool = False, **settings: Any) -> Result:
    """Replays a measured step as `ppsim replay` does and returns its JSON report as a Result
    (byte for byte `ppsim replay --format=json`): the report of the what-if's run (the
    replay's without one), with a "replay" object holding the measured step, the replayed step
    and the what-if's step, difference and ratio. paths: a profiler trace for all devices, one
    per device (a list), or a CSV of op times (docs/pytorch.md). The what-if:
    without_slowest=True, the step without its slowest device (its ops at the others' median
    times); schedule, m, v (and a generator's options, whatif_keys()), another schedule or
    shape on costs fitted to the step's op times, w_share splitting a backward measured fused.
    config and the other keywords are the settings of the replay and the what-if ("t_comm":
    the messages' time, else as measured). ops=True keeps the ops (Result.ops, ...). Raises
    PpsimFileError for a file it cannot read, PpsimError for a step or a what-if it refuses."""
    keep = flag("ops", ops)
    with simulate_replay(paths, config, without_slowest=without_slowest, schedule=schedule,
                         m=m, v=v, w_share=w_share, op_times=True, **settings) as r:
        result = Result(r.json())
        if keep:
            result._records = r._records()
        return result
