"""ppsim: the pipeline-parallel schedule simulator, in process, from Python.

A thin layer over libppsim.so (ctypes; only the standard library, pandas optional):

    >>> import ppsim
    >>> ppsim.run(schedule="1f1b", p=4, m=8)["makespan"]
    33

Every keyword is a key of ppsim's JSON config files ("p", "m", "v", "schedule", "t_f",
"model", "link", ...) or a long option name with "_" for "-" ("mem_limit"), and its value is
read as the command line reads it: numbers, names, True/False, lists for list options. The
reports are ppsim's own JSON (keys in docs/output.md), byte for byte `ppsim --format=json`.
compare and sweep run their simulations one after another in this process (serially; ppsim's
own `ppsim sweep` runs on threads).
"""

import csv
import ctypes
import io
import itertools
import json
from collections import namedtuple

from . import _lib

__all__ = ["PpsimError", "Result", "Op", "version", "run", "report", "ops_csv", "compare",
           "sweep", "dataframe", "sweep_frame", "listing", "schedules"]

_ERRLEN = 1024


class PpsimError(Exception):
    """A setting, a config or a simulation that ppsim refused; the message is ppsim's."""


# One op of a run, as a row of `ppsim --dump-ops`: times in the run's time unit.
Op = namedtuple("Op", "device chunk stage op microbatch start end")


class Result(dict):
    """A run's JSON report as a dict, and with ops=True its ops (list of Op) in .ops."""

    ops = None

    def ops_frame(self):
        """The ops as a pandas DataFrame (needs pandas, and the run made with ops=True)."""
        if self.ops is None:
            raise PpsimError("ops_frame: run with ops=True to keep the ops")
        return _pandas().DataFrame(self.ops, columns=Op._fields)


def version():
    """The library's version: (string, (major, minor, patch))."""
    nums = [ctypes.c_int() for _ in range(3)]
    s = _lib.load().pp_version(*[ctypes.byref(n) for n in nums])
    return s.decode(), tuple(n.value for n in nums)


def listing():
    """The tables of `ppsim list --format=json` as a dict: schedules, models, gpus, links,
    batching, formats."""
    lib = _lib.load()
    err = ctypes.create_string_buffer(_ERRLEN)
    return json.loads(_take(lib, lib.pp_list(b"json", err, _ERRLEN), err))


def schedules():
    """The names of the schedules, in the order of `ppsim list`."""
    return [s["name"] for s in listing()["schedules"]]


_every_schedule = schedules  # for compare, whose argument takes the name


def _text(value):
    # a NumPy scalar (np.float64, np.int64, np.bool_) as the Python number it holds
    if not isinstance(value, (str, bytes, list, tuple)) and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    if isinstance(value, float):
        return repr(float(value))
    return str(value)


def _check(rc, err):
    if rc != 0:
        raise PpsimError(err.value.decode(errors="replace"))


def _take(lib, address, err):
    """The string at address (freed here), or PpsimError with err's message when NULL."""
    if not address:
        raise PpsimError(err.value.decode(errors="replace"))
    try:
        return ctypes.string_at(address).decode()
    finally:
        lib.pp_string_free(address)


class _Config:
    """A pp_config handle built from a config file or dict and keywords; freed on close."""

    def __init__(self, config, settings):
        self.lib = _lib.load()
        self.handle = self.lib.pp_config_new()
        if not self.handle:
            raise MemoryError("ppsim: out of memory")
        try:
            err = ctypes.create_string_buffer(_ERRLEN)
            if isinstance(config, dict):
                _check(self.lib.pp_config_load_json(self.handle, json.dumps(config).encode(),
                                                    b"dict", err, _ERRLEN), err)
            elif config is not None:
                _check(self.lib.pp_config_load_file(self.handle, str(config).encode(), err,
                                                    _ERRLEN), err)
            for key, value in settings.items():
                if value is None:
                    continue
                _check(self.lib.pp_config_set(self.handle, key.encode(),
                                              _text(value).encode(), err, _ERRLEN), err)
        except BaseException:
            self.close()
            raise

    def simulate(self):
        err = ctypes.create_string_buffer(_ERRLEN)
        handle = self.lib.pp_simulate(self.handle, err, _ERRLEN)
        if not handle:
            raise PpsimError(err.value.decode(errors="replace"))
        return handle

    def close(self):
        if self.handle:
            self.lib.pp_config_free(self.handle)
            self.handle = None


def _simulate(config, settings):
    cfg = _Config(config, settings)
    try:
        return cfg.lib, cfg.simulate()
    finally:
        cfg.close()


def _number(s):
    try:
        return int(s)
    except ValueError:
        return float(s)


def _ops(text):
    rows = csv.reader(io.StringIO(text))
    header = next(rows)
    at = [header.index(f) for f in Op._fields]
    return [Op(*[row[i] if f == "op" else _number(row[i]) for i, f in zip(at, Op._fields)])
            for row in rows]


def run(schedule=None, config=None, ops=False, **settings):
    """Simulates one configuration; returns its JSON report as a Result (a dict).

    schedule: a schedule name ("1f1b", "interleaved", "zbh1", ...); config: a JSON config
    file's path or a dict of its keys, applied before the keywords; ops=True also keeps the
    ops in .ops. Raises PpsimError for bad settings or a failed simulation.
    """
    if schedule is not None:
        settings = dict(settings, schedule=schedule)
    lib, handle = _simulate(config, settings)
    try:
        err = ctypes.create_string_buffer(_ERRLEN)
        result = Result(json.loads(_take(lib, lib.pp_run_report(handle, b"json", err, _ERRLEN),
                                         err)))
        if ops:
            result.ops = _ops(_take(lib, lib.pp_run_ops_csv(handle, err, _ERRLEN), err))
        return result
    finally:
        lib.pp_run_free(handle)


def report(format="text", schedule=None, config=None, **settings):
    """The report of one run in a run format of `ppsim --format` ("text", "json", "csv")."""
    if schedule is not None:
        settings = dict(settings, schedule=schedule)
    lib, handle = _simulate(config, settings)
    try:
        err = ctypes.create_string_buffer(_ERRLEN)
        return _take(lib, lib.pp_run_report(handle, format.encode(), err, _ERRLEN), err)
    finally:
        lib.pp_run_free(handle)


def ops_csv(schedule=None, config=None, **settings):
    """The ops of one run as the CSV text of `ppsim --dump-ops`."""
    if schedule is not None:
        settings = dict(settings, schedule=schedule)
    lib, handle = _simulate(config, settings)
    try:
        err = ctypes.create_string_buffer(_ERRLEN)
        return _take(lib, lib.pp_run_ops_csv(handle, err, _ERRLEN), err)
    finally:
        lib.pp_run_free(handle)


def compare(schedules, config=None, format="json", **settings):
    """Runs each schedule of schedules on the same settings, one after another, and returns
    them side by side as `ppsim compare --schedules=...` does: with format "json" a list of
    reports (dicts), else the text of that format ("text", "csv"). schedules is a list of names
    or, as --schedules takes it, a comma-separated string; "all" stands for every schedule."""
    names = schedules.split(",") if isinstance(schedules, str) else list(schedules)
    names = [n for name in names for n in (_every_schedule() if name == "all" else [name])]
    if not names:
        raise PpsimError("compare: no schedules")
    lib = _lib.load()
    handles = []
    try:
        for name in names:
            handles.append(_simulate(config, dict(settings, schedule=name))[1])
        err = ctypes.create_string_buffer(_ERRLEN)
        runs = (ctypes.c_void_p * len(handles))(*handles)
        labels = (ctypes.c_char_p * len(handles))(*[b"-"] * len(handles))
        text = _take(lib, lib.pp_compare_report(runs, labels, len(handles), format.encode(),
                                                err, _ERRLEN), err)
        return json.loads(text) if format == "json" else text
    finally:
        for h in handles:
            lib.pp_run_free(h)


def sweep(config=None, **grid):
    """Runs every combination of the keywords' values (a list or tuple is an axis, anything
    else a fixed setting), serially in this process, in the order of the keywords; returns the
    reports (dicts). A list option takes a string here ("1,2,1"), since a list is an axis."""
    keys = list(grid)
    axes = [v if isinstance(v, (list, tuple)) else [v] for v in grid.values()]
    return [run(config=config, **dict(zip(keys, point))) for point in itertools.product(*axes)]


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise PpsimError("pandas is not installed: pip install pandas, or apt-get install "
                         "python3-pandas") from e
    return pandas


def dataframe(schedule=None, config=None, **settings):
    """The ops of one run as a pandas DataFrame (columns of `ppsim --dump-ops`)."""
    return run(schedule=schedule, config=config, ops=True, **settings).ops_frame()


def sweep_frame(config=None, **grid):
    """sweep as a pandas DataFrame: a row per point, a column per number or name the report
    has at its top level (schedule, p, v, m, makespan, bubble_ratio, ...)."""
    rows = [{k: v for k, v in r.items() if not isinstance(v, (dict, list))}
            for r in sweep(config=config, **grid)]
    return _pandas().DataFrame(rows)
