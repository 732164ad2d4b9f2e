"""Settings from Python values to the library's text, checked before the library sees them, and
the configuration handle (pp_config) they are set on.

A wrong type raises TypeError, a NUL byte in a string or a number that is NaN or infinite
ValueError, each with a message naming the argument; what the library refuses raises the
exception of its status (_errors.py).
"""

import decimal
import json
import math
import numbers
import os
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Union

from . import _lib
from ._errors import PpsimError, error_of

# A config: a JSON config file's path, or a dict of its keys.
ConfigArg = Union[str, bytes, "os.PathLike[str]", Mapping[str, Any], None]


def kind(value: Any) -> str:
    return type(value).__name__


def plain(what: str, value: Any) -> Any:
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
        exponent = value.as_tuple().exponent
        if isinstance(exponent, int) and exponent >= 0:
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


def c_string(what: str, value: Any) -> bytes:
    """value, a str, as the bytes of the C string the library reads: TypeError for another type,
    ValueError for a NUL byte (C would stop at it: "p\\0junk" would set p)."""
    if not isinstance(value, str):
        raise TypeError("ppsim: %s must be a str, not %s" % (what, kind(value)))
    if "\0" in value:
        raise ValueError("ppsim: %s %r holds a NUL byte" % (what, value))
    try:
        # as the file system's names: a file name's undecodable bytes (os.fsdecode's
        # surrogates) go back as the bytes they were
        return os.fsencode(value)
    except UnicodeEncodeError:
        raise ValueError("ppsim: %s %r holds a lone surrogate, which no C string holds"
                         % (what, value)) from None


def path_bytes(value: Any) -> bytes:
    """A config file's path (str, bytes or os.PathLike) as bytes, checked as c_string does."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError("ppsim: config must be a path or a dict, not %s" % kind(value))
    path = os.fsencode(value)
    if b"\0" in path:
        raise ValueError("ppsim: config path %r holds a NUL byte" % (value,))
    return path


def scalar(key: str, value: Any, in_list: bool = False) -> str:
    """One value of setting key, a number, a name or (not in a list) a bool, as the text the
    library reads: TypeError for another type, ValueError for NaN, an infinity or a NUL byte."""
    value = plain(key, value)
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
        c_string(key, value)
        return value
    raise TypeError("ppsim: %s: a setting's value is a number, a name%s, not %s"
                    % (key, " (in a list)" if in_list else ", True or False, or a list of them",
                       kind(value)))


# The settings that name a file, which may be given as bytes or a path object too
PATH_SETTINGS = frozenset(("schedule_file", "requests"))


def text(key: str, value: Any) -> str:
    """The value of setting key (a list or tuple for a list option) as the library reads it."""
    if isinstance(value, (list, tuple)):
        return ",".join(scalar(key, v, in_list=True) for v in value)
    if key in PATH_SETTINGS and isinstance(value, (bytes, os.PathLike)):
        # a file name as bytes or a path object, as os.fsdecode gives it
        return scalar(key, os.fsdecode(value))
    return scalar(key, value)


def _json_value(key: str, value: Any) -> Any:
    """A value of a config dict, as json.dumps writes it; checked as scalar checks."""
    value = plain(key, value)
    if isinstance(value, (list, tuple)):
        return [_json_value(key, v) for v in value]
    if value is None:
        raise TypeError("ppsim: config key %r is None: a config has no null (leave the key out)"
                        % key)
    scalar(key, value)
    # a whole number from 2^53 on (a seed) as the string of its digits, which the library reads
    # whole: a JSON number that large may not be the one written
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2**53:
        return str(value)
    return value


def config_json(config: Mapping[Any, Any]) -> bytes:
    """A config dict as the text of a JSON config file: str keys without NUL bytes."""
    doc = {}
    for key, value in config.items():
        if not isinstance(key, str):
            raise TypeError("ppsim: config keys must be str, not %s (%r)" % (kind(key), key))
        c_string("config key", key)
        doc[key] = _json_value(key, value)
    return json.dumps(doc).encode()


def flag(what: str, value: Any) -> bool:
    """A True/False argument (not 0 or 1, not None)."""
    value = plain(what, value)
    if not isinstance(value, bool):
        raise TypeError("ppsim: %s must be True or False, not %s" % (what, kind(value)))
    return value


def _one_name_each(lib: Any, keys: List[str]) -> None:
    """Refuses two of keys that name one setting (its config key and its option's long name:
    p and stages, t_f and tf), which would leave one of them unused: PpsimError naming both.
    A name the library does not know is left to pp_config_set to refuse."""
    seen: Dict[bytes, str] = {}
    for key in keys:
        setting = lib.pp_config_key(key.encode())
        if setting is None:
            continue
        if setting in seen:
            raise PpsimError("ppsim: %s and %s set one setting, key \"%s\": give one"
                             % (seen[setting], key, setting.decode()))
        seen[setting] = key


def _refused(key: str, value: Any, status: int, message: str) -> Exception:
    """The exception for setting key=value that ppsim refused with message: TypeError for a
    bool, which only a yes/no setting takes (and takes whichever it is), else the status's. (A
    key the library does not know is refused with "unknown key ...", whatever the value.)"""
    if isinstance(plain(key, value), bool) and not message.startswith("unknown key"):
        return TypeError("ppsim: %s=%r: a bool, and %s takes no yes or no (%s)"
                         % (key, value, key, message))
    return error_of(status)(message)


def with_schedule(schedule: Optional[str], settings: Dict[str, Any]) -> Dict[str, Any]:
    """settings with schedule, a name (None: the config's or the default), added."""
    if schedule is None:
        return settings
    c_string("schedule", schedule)
    return dict(settings, schedule=schedule)


class Config:
    """A pp_config handle built from a config file or dict and keywords; freed on close (or at
    the end of a with block)."""

    def __init__(self, config: ConfigArg, settings: Mapping[str, Any]) -> None:
        self.lib = _lib.load()
        self.handle: Optional[int] = None
        if isinstance(config, Mapping):  # a dict, or any mapping of keys to values
            doc = config_json(config)
        elif config is not None:
            path = path_bytes(config)
        values = [(c_string("key", key), key, value, c_string(key, text(key, value)))
                  for key, value in settings.items() if value is not None]
        _one_name_each(self.lib, [key for _, key, _, _ in values])
        self.handle = self.lib.pp_config_new()
        if not self.handle:
            raise MemoryError("ppsim: out of memory")
        try:
            err = _lib.errbuf()
            if isinstance(config, Mapping):
                _lib.check(self.lib.pp_config_load_json(self.handle, doc, b"dict", err,
                                                        _lib.ERRLEN), err)
            elif config is not None:
                _lib.check(self.lib.pp_config_load_file(self.handle, path, err, _lib.ERRLEN),
                           err)
            for ckey, key, value, ctext in values:
                status = self.lib.pp_config_set(self.handle, ckey, ctext, err, _lib.ERRLEN)
                if status != 0:
                    raise _refused(key, value, status, err.value.decode(errors="replace"))
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.handle:
            self.lib.pp_config_free(self.handle)
            self.handle = None

    def __enter__(self) -> "Config":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = ["ConfigArg", "Config", "c_string", "flag", "kind", "plain", "text", "with_schedule"]
