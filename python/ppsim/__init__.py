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

Arguments are checked before anything reaches the library: a value of the wrong type raises
TypeError, a NUL byte in a string or a number that is NaN or infinite ValueError, and a setting
ppsim refuses PpsimError (a ValueError), each with a message naming the argument.
"""

import csv
import ctypes
import decimal
import io
import itertools
import json
import math
import numbers
import os
from collections import namedtuple

from . import _lib

__all__ = ["PpsimError", "Result", "Op", "version", "run", "report", "ops_csv", "compare",
           "sweep", "dataframe", "sweep_frame", "listing", "schedules"]

_ERRLEN = 1024


class PpsimError(ValueError):
    """A setting, a config or a simulation that ppsim refused; the message is ppsim's. A
    ValueError: what ppsim refuses is always a value the caller gave."""


# One op of a run, as a row of `ppsim --dump-ops`: times in the run's time unit; slack, how
# much longer it could take without lengthening the step (0: on a critical path).
Op = namedtuple("Op", "device chunk stage op microbatch start end slack")


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


def _kind(value):
    return type(value).__name__


def _plain(what, value):
    """value (of argument what) as the plain Python value it stands for: a NumPy scalar
    (np.float64, np.int64, np.bool_) as the one it holds (an array, which has no single value,
    stays as it is); a Fraction or a Decimal as the int it is when it is a whole number (a
    Fraction of denominator 1, a Decimal written without a fraction: Decimal("4")), else as a
    float, ValueError when no float holds it (NaN, infinite, past 1.8e308)."""
    if (not isinstance(value, (str, bytes, list, tuple, dict)) and hasattr(value, "item")
            and getattr(value, "shape", ()) == ()):
        value = value.item()
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError("ppsim: %s=%r: not a finite number" % (what, value))
        if value.as_tuple().exponent >= 0:
            return int(value)
    elif isinstance(value, numbers.Rational) and not isinstance(value, int):
        if value.denominator == 1:
            return int(value)
    else:
        return value
    try:
        return float(value)
    except OverflowError:
        raise ValueError("ppsim: %s=%r: not a finite number (too large for a float)"
                         % (what, value)) from None


def _c_string(what, value):
    """value, a str, as the bytes of the C string the library reads: TypeError for another type,
    ValueError for a NUL byte (C would stop at it: "p\\0junk" would set p)."""
    if not isinstance(value, str):
        raise TypeError("ppsim: %s must be a str, not %s" % (what, _kind(value)))
    if "\0" in value:
        raise ValueError("ppsim: %s %r holds a NUL byte" % (what, value))
    return value.encode()


def _path(value):
    """A config file's path (str, bytes or os.PathLike) as bytes, checked as _c_string does."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError("ppsim: config must be a path or a dict, not %s" % _kind(value))
    path = os.fsencode(value)
    if b"\0" in path:
        raise ValueError("ppsim: config path %r holds a NUL byte" % (value,))
    return path


def _scalar(key, value, in_list=False):
    """One value of setting key, a number, a name or (not in a list) a bool, as the text the
    command line would give: TypeError for another type, ValueError for NaN, an infinity or a
    NUL byte."""
    value = _plain(key, value)
    if isinstance(value, bool) and not in_list:
        return "true" if value else "false"
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return str(int(value))
        except ValueError:  # past Python's limit of digits for a str
            raise ValueError("ppsim: %s: a number of %d bits, too large to be a setting"
                             % (key, int(value).bit_length())) from None
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("ppsim: %s=%r: not a finite number" % (key, value))
        return repr(float(value))
    if isinstance(value, str):
        _c_string(key, value)
        return value
    raise TypeError("ppsim: %s: a setting's value is a number, a name%s, not %s"
                    % (key, " (in a list)" if in_list else ", True or False, or a list of them",
                       _kind(value)))


def _text(key, value):
    """The value of setting key (a list or tuple for a list option) as the library reads it."""
    if isinstance(value, (list, tuple)):
        return ",".join(_scalar(key, v, in_list=True) for v in value)
    return _scalar(key, value)


def _json_value(key, value):
    """A value of a config dict, as json.dumps writes it; checked as _scalar checks."""
    value = _plain(key, value)
    if isinstance(value, (list, tuple)):
        return [_json_value(key, v) for v in value]
    if value is None:
        raise TypeError("ppsim: config key %r is None: a config has no null (leave the key out)"
                        % key)
    _scalar(key, value)
    return value


def _config_json(config):
    """A config dict as the text of a JSON config file: str keys without NUL bytes."""
    doc = {}
    for key, value in config.items():
        if not isinstance(key, str):
            raise TypeError("ppsim: config keys must be str, not %s (%r)" % (_kind(key), key))
        _c_string("config key", key)
        doc[key] = _json_value(key, value)
    return json.dumps(doc).encode()


def _flag(what, value):
    """A True/False argument (not 0 or 1, not None)."""
    value = _plain(what, value)
    if not isinstance(value, bool):
        raise TypeError("ppsim: %s must be True or False, not %s" % (what, _kind(value)))
    return value


def _refused(key, value, message):
    """The exception for setting key=value that ppsim refused with message: TypeError for a
    bool, which only a yes/no setting takes (and takes whichever it is), else PpsimError. (A key
    the library does not know is refused with "unknown key ...", whatever the value.)"""
    if isinstance(_plain(key, value), bool) and not message.startswith("unknown key"):
        return TypeError("ppsim: %s=%r: a bool, and %s takes no yes or no (%s)"
                         % (key, value, key, message))
    return PpsimError(message)


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
        if isinstance(config, dict):
            text = _config_json(config)
        elif config is not None:
            path = _path(config)
        values = [(_c_string("key", key), key, value, _text(key, value).encode())
                  for key, value in settings.items() if value is not None]
        self.handle = self.lib.pp_config_new()
        if not self.handle:
            raise MemoryError("ppsim: out of memory")
        try:
            err = ctypes.create_string_buffer(_ERRLEN)
            if isinstance(config, dict):
                _check(self.lib.pp_config_load_json(self.handle, text, b"dict", err, _ERRLEN),
                       err)
            elif config is not None:
                _check(self.lib.pp_config_load_file(self.handle, path, err, _ERRLEN), err)
            for ckey, key, value, ctext in values:
                if self.lib.pp_config_set(self.handle, ckey, ctext, err, _ERRLEN) != 0:
                    raise _refused(key, value, err.value.decode(errors="replace"))
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


def _with_schedule(schedule, settings):
    """settings with schedule, a name (None: the config's or the default), added."""
    if schedule is None:
        return settings
    _c_string("schedule", schedule)
    return dict(settings, schedule=schedule)


def run(schedule=None, config=None, ops=False, **settings):
    """Simulates one configuration; returns its JSON report as a Result (a dict).

    schedule: a schedule name ("1f1b", "interleaved", "zbh1", ...); config: a JSON config
    file's path or a dict of its keys, applied before the keywords; ops=True also keeps the
    ops in .ops. Raises PpsimError for bad settings or a failed simulation, TypeError or
    ValueError for arguments of the wrong type.
    """
    ops = _flag("ops", ops)
    lib, handle = _simulate(config, _with_schedule(schedule, settings))
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
    cformat = _c_string("format", format)
    lib, handle = _simulate(config, _with_schedule(schedule, settings))
    try:
        err = ctypes.create_string_buffer(_ERRLEN)
        return _take(lib, lib.pp_run_report(handle, cformat, err, _ERRLEN), err)
    finally:
        lib.pp_run_free(handle)


def ops_csv(schedule=None, config=None, **settings):
    """The ops of one run as the CSV text of `ppsim --dump-ops`."""
    lib, handle = _simulate(config, _with_schedule(schedule, settings))
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
    if not isinstance(schedules, (str, list, tuple)):
        raise TypeError("ppsim: schedules must be a str, a list or a tuple of names, not %s"
                        % _kind(schedules))
    names = schedules.split(",") if isinstance(schedules, str) else list(schedules)
    for name in names:
        _c_string("schedules' name", name)
    cformat = _c_string("format", format)
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
        text = _take(lib, lib.pp_compare_report(runs, labels, len(handles), cformat, err,
                                                _ERRLEN), err)
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
    for key, value in grid.items():
        if isinstance(value, (list, tuple)) and not value:
            raise ValueError("ppsim: sweep axis %s is empty" % key)
        if isinstance(value, (list, tuple)) and any(v is None for v in value):
            raise TypeError("ppsim: sweep axis %s holds None, which is no value" % key)
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
