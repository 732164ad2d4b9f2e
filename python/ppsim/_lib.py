"""Finds and loads libppsim.so and declares the C facade (include/ppsim/ppsim.h) for ctypes.

The library is looked for, in order: the file named by the environment variable PPSIM_LIB;
beside the package (a copy in its folder, or PREFIX/lib when the package is installed in
PREFIX/lib/python3/dist-packages); the build tree of a source checkout (build/); then
ctypes.util.find_library("ppsim") (the system's library path).
"""

import ctypes
import ctypes.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_SONAME = "libppsim.so.0"


def _candidates():
    env = os.environ.get("PPSIM_LIB")
    if env:
        yield env
        return
    yield os.path.join(_HERE, _SONAME)
    # PREFIX/lib/python3/dist-packages/ppsim -> PREFIX/lib
    yield os.path.normpath(os.path.join(_HERE, "..", "..", "..", _SONAME))
    # a source checkout: python/ppsim -> build/
    yield os.path.normpath(os.path.join(_HERE, "..", "..", "build", _SONAME))
    found = ctypes.util.find_library("ppsim")
    if found:
        yield found


def _declare(lib):
    vp, cp, sz, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int
    ip = ctypes.POINTER(ctypes.c_int)
    table = {
        "pp_version": (cp, [ip, ip, ip]),
        "pp_config_new": (vp, []),
        "pp_config_free": (None, [vp]),
        "pp_config_copy": (vp, [vp]),
        "pp_config_set": (i, [vp, cp, cp, cp, sz]),
        "pp_config_load_json": (i, [vp, cp, cp, cp, sz]),
        "pp_config_load_file": (i, [vp, cp, cp, sz]),
        "pp_simulate": (vp, [vp, cp, sz]),
        "pp_run_free": (None, [vp]),
        # strings come back as addresses, so that pp_string_free can free them
        "pp_run_report": (vp, [vp, cp, cp, sz]),
        "pp_run_ops_csv": (vp, [vp, cp, sz]),
        "pp_compare_report": (vp, [ctypes.POINTER(vp), ctypes.POINTER(cp), i, cp, cp, sz]),
        "pp_list": (vp, [cp, cp, sz]),
        "pp_string_free": (None, [vp]),
    }
    for name, (restype, argtypes) in table.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


_lib = None


def load():
    """The loaded library (loaded once); raises OSError naming every place it looked."""
    global _lib
    if _lib is None:
        tried = []
        for path in _candidates():
            if os.sep in path and not os.path.exists(path):
                tried.append(path)
                continue
            try:
                _lib = _declare(ctypes.CDLL(path))
                break
            except OSError as e:
                tried.append("%s (%s)" % (path, e))
        else:
            raise OSError("ppsim: libppsim.so not found; set PPSIM_LIB (looked at: %s)"
                          % ", ".join(tried))
    return _lib
