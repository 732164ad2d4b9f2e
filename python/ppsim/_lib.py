"""Finds and loads libppsim.so and declares its interface (include/ppsim/ppsim.h) for ctypes.

The library is looked for, in order: the file named by the environment variable PPSIM_LIB;
beside the package (the copy `pip install` puts in its folder, or PREFIX/lib when `make install`
put the package in PREFIX/lib/python3/dist-packages); the build tree of a source checkout
(build/); then ctypes.util.find_library("ppsim") (the system's library path). The library found
must be of the interface this package speaks, ABI (pp_abi_version()).
"""

import ctypes
import ctypes.util
import os
import re
from typing import TYPE_CHECKING, Iterator, Optional

from ._errors import LibraryError, error_of

# the PP_ABI_VERSION this package is written for, and the SONAME that carries it
ABI = 1
SONAME = "libppsim.so.%d" % ABI
# the length of the buffer each call writes its error into
ERRLEN = 1024

_HERE = os.path.dirname(os.path.abspath(__file__))

if TYPE_CHECKING:
    CharBuffer = ctypes.Array[ctypes.c_char]
else:
    CharBuffer = ctypes.Array


class Ops(ctypes.Structure):
    """struct pp_ops: columns of a run's ops, each an address (0: not filled)."""

    _fields_ = [("n", ctypes.c_size_t), ("stride", ctypes.c_size_t),
                ("start", ctypes.c_void_p), ("end", ctypes.c_void_p), ("slack", ctypes.c_void_p),
                ("device", ctypes.c_void_p), ("chunk", ctypes.c_void_p),
                ("stage", ctypes.c_void_p), ("microbatch", ctypes.c_void_p),
                ("kind", ctypes.c_void_p), ("overlap", ctypes.c_void_p)]


def _candidates() -> Iterator[str]:
    env = os.environ.get("PPSIM_LIB")
    if env:
        yield env
        return
    yield os.path.join(_HERE, SONAME)
    # PREFIX/lib/python3/dist-packages/ppsim -> PREFIX/lib
    yield os.path.normpath(os.path.join(_HERE, "..", "..", "..", SONAME))
    # a source checkout: python/ppsim -> build/
    yield os.path.normpath(os.path.join(_HERE, "..", "..", "build", SONAME))
    found = ctypes.util.find_library("ppsim")
    if found:
        yield found


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    vp, cp, sz, i, d = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                        ctypes.c_double)
    ip, vpp, dp = ctypes.POINTER(i), ctypes.POINTER(vp), ctypes.POINTER(d)
    u = ctypes.c_uint
    table = {
        "pp_abi_version": (i, []),
        "pp_version": (cp, [ip, ip, ip]),
        "pp_config_new": (vp, []),
        "pp_config_free": (None, [vp]),
        "pp_config_copy": (vp, [vp]),
        "pp_config_set": (i, [vp, cp, cp, cp, sz]),
        "pp_config_key": (cp, [cp]),
        "pp_config_load_json": (i, [vp, cp, cp, cp, sz]),
        "pp_config_load_file": (i, [vp, cp, cp, sz]),
        "pp_config_json": (i, [vp, vpp, cp, sz]),
        "pp_simulate": (i, [vp, u, vpp, cp, sz]),
        "pp_simulate_schedules": (i, [vp, ctypes.POINTER(cp), i, u, vpp, cp, sz]),
        "pp_serve": (i, [vp, u, vpp, cp, sz]),
        "pp_run_free": (None, [vp]),
        "pp_run_is_serving": (i, [vp]),
        "pp_run_time_unit": (cp, [vp]),
        "pp_run_figure": (i, [vp, cp, dp, cp, sz]),
        "pp_figure_name": (cp, [i]),
        "pp_run_devices": (i, [vp]),
        "pp_run_device_figure": (i, [vp, cp, dp, sz, cp, sz]),
        "pp_device_figure_name": (cp, [i]),
        "pp_op_kind_name": (cp, [i]),
        "pp_run_op_count": (sz, [vp]),
        "pp_run_kept": (i, [vp]),
        "pp_run_ops": (i, [vp, sz, ctypes.POINTER(Ops), cp, sz]),
        # strings come back as addresses, so that pp_string_free can free them
        "pp_run_report": (i, [vp, cp, vpp, cp, sz]),
        "pp_run_ops_csv": (i, [vp, vpp, cp, sz]),
        "pp_compare_report": (i, [vpp, ctypes.POINTER(cp), i, cp, vpp, cp, sz]),
        "pp_list": (i, [cp, vpp, cp, sz]),
        "pp_string_free": (None, [vp]),
        "pp_sweep_run": (i, [vp, ctypes.POINTER(cp), ctypes.POINTER(cp), i, i, i, vpp, cp, sz]),
        "pp_advise": (i, [vp, i, vpp, cp, sz]),
        "pp_sweep_free": (None, [vp]),
        "pp_sweep_points": (sz, [vp]),
        "pp_sweep_axes": (i, [vp]),
        "pp_sweep_axis_key": (cp, [vp, i]),
        "pp_sweep_value": (cp, [vp, sz, i]),
        "pp_sweep_skipped": (cp, [vp, sz]),
        "pp_sweep_time_unit": (cp, [vp, sz]),
        "pp_sweep_figure": (i, [vp, sz, cp, dp, cp, sz]),
        "pp_sweep_figure_name": (cp, [i]),
        "pp_sweep_ranked": (sz, [vp, sz]),
        "pp_calibrate": (i, [cp, i, d, vpp, dp, cp, sz]),
        "pp_replay": (i, [vp, ctypes.POINTER(cp), i, u, vpp, cp, sz]),
        "pp_replay_whatif": (i, [vp, ctypes.POINTER(cp), i, ctypes.POINTER(cp),
                                 ctypes.POINTER(cp), i, u, vpp, cp, sz]),
        "pp_replay_whatif_key": (cp, [i]),
    }
    for name, (restype, argtypes) in table.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


_lib: Optional[ctypes.CDLL] = None


def load() -> ctypes.CDLL:
    """The loaded library (loaded once); raises LibraryError (an OSError) naming every place it
    looked, or the ABI of a library of another interface."""
    global _lib
    if _lib is None:
        tried = []
        for path in _candidates():
            if os.sep in path and not os.path.exists(path):
                tried.append(path)
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                tried.append("%s (%s)" % (path, e))
                continue
            abi = lib.pp_abi_version() if hasattr(lib, "pp_abi_version") else 0
            if abi != ABI:
                raise LibraryError("ppsim: %s has the interface ABI %d; this package needs %d"
                                   % (path, abi, ABI))
            _lib = _declare(lib)
            break
        else:
            raise LibraryError("ppsim: libppsim.so not found (looked at: %s); in the source "
                               "tree, `make` builds it as build/libppsim.so.1; elsewhere, set "
                               "PPSIM_LIB to its path" % ", ".join(tried))
    return _lib


def errbuf() -> CharBuffer:
    """A buffer for a call's error message."""
    return ctypes.create_string_buffer(ERRLEN)


# The library's words for its C calls and flags, and the package's for the same (a message
# names what the caller can change: Python's keyword, not the C flag behind it).
_PYTHON_WORDS = (
    ("use pp_serve", "use ppsim.serve"),
    ("pp_run_ops_csv: ", "ops_csv: "),
    ("pp_run_ops: ", "ops: "),
    ("(simulate it with PP_KEEP_OP_TIMES)", "(simulate it with op_times=True)"),
    ("(simulate it with PP_KEEP_SLACK)", "(simulate it with slack=True)"),
    ("pp_calibrate: m ", "calibrate: m="),
    ("from 0 (none) to", "from 1 (or None) to"),
    ("(pp_figure_name lists them)", "(ppsim.figure_names() lists them)"),
    ("(pp_device_figure_name lists them)", "(ppsim.device_figure_names() lists them)"),
)

# The C calls a message names, by the package's functions that make them
_PYTHON_CALLS = {"pp_serve": "ppsim.serve", "pp_simulate": "ppsim.run", "pp_replay": "ppsim.replay",
                 "pp_replay_whatif": "ppsim.replay", "pp_sweep_run": "ppsim.sweep",
                 "pp_advise": "ppsim.advise"}
_CALL_WORD = re.compile(r"\b(%s)\b" % "|".join(sorted(_PYTHON_CALLS, key=len, reverse=True)))


_QUOTED = re.compile(r"('[^']*')")


def python_words(message: str) -> str:
    """message with the C interface's words put as the package's; what it quotes ('a file's
    name', a value given) stays as it is."""
    parts = _QUOTED.split(message)
    for i in range(0, len(parts), 2):  # the text between quotes
        for c, py in _PYTHON_WORDS:
            parts[i] = parts[i].replace(c, py)
        parts[i] = _CALL_WORD.sub(lambda m: _PYTHON_CALLS[m.group(1)], parts[i])
    return "".join(parts)


def check(status: int, err: CharBuffer) -> int:
    """status when it is not negative, else raises the exception of its kind with err's
    message, in the package's words."""
    if status < 0:
        raise error_of(status)(python_words(err.value.decode(errors="replace")))
    return status


def take(lib: ctypes.CDLL, status: int, address: ctypes.c_void_p, err: CharBuffer) -> str:
    """The string at address (a call's result, freed here), or the exception of status."""
    check(status, err)
    try:
        # PP_OK hands out a string, never NULL
        return ctypes.string_at(address.value).decode() if address.value else ""
    finally:
        lib.pp_string_free(address)
