"""The Python package's build backend (PEP 517 and PEP 660), named by pyproject.toml: builds
libppsim.so with make and writes a wheel of python/ppsim with the library inside, using the
standard library alone. It needs nothing from an index, so that `pip install .` works offline
in a fresh virtual environment (pip's isolated build environment holds no setuptools there).

The wheel is built against this machine's C library: its tag is py3-none-PLATFORM (ctypes, no
Python extension). make builds in $PPSIM_BUILD, or the config setting "build" (pip install .
--config-settings build=DIR), else build/python under the source tree; make installs cJSON,
zlib and a compiler with apt-get when they are missing, as it does for any build.
"""

import base64
import hashlib
import io
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "python", "ppsim")


def _project():
    """pyproject.toml's [project] table."""
    try:
        import tomllib
    except ImportError:  # before Python 3.11
        import tomli as tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _define(header, name):
    with open(os.path.join(ROOT, "include", "ppsim", header)) as f:
        m = re.search(r"^#define %s\s+(\d+)" % name, f.read(), re.M)
    if m is None:
        raise RuntimeError("ppsim_build: no %s in include/ppsim/%s" % (name, header))
    return m.group(1)


def version():
    """PP_VERSION of include/ppsim/version.h, which python/ppsim/_version.py must repeat."""
    v = ".".join(_define("version.h", "PP_VERSION_" + k) for k in ("MAJOR", "MINOR", "PATCH"))
    with open(os.path.join(PACKAGE, "_version.py")) as f:
        m = re.search(r'^__version__ = "([^"]*)"', f.read(), re.M)
    if m is None or m.group(1) != v:
        raise RuntimeError("ppsim_build: python/ppsim/_version.py says %s, version.h %s"
                           % (m.group(1) if m else "nothing", v))
    return v


def _name():
    return _project()["name"]


def _dist_info():
    return "%s-%s.dist-info" % (_name(), version())


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + version(),
             "Summary: " + p.get("description", "")]
    if "requires-python" in p:
        lines.append("Requires-Python: " + p["requires-python"])
    if "license" in p and "text" in p["license"]:
        lines.append("License: " + p["license"]["text"])
    for extra, reqs in p.get("optional-dependencies", {}).items():
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (r, extra) for r in reqs]
    text = "\n".join(lines) + "\n"
    readme = p.get("readme")
    if isinstance(readme, str):
        with open(os.path.join(ROOT, readme)) as f:
            text += "Description-Content-Type: text/markdown\n\n" + f.read()
    return text


def _tag():
    return "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())


def _wheel_file():
    return ("Wheel-Version: 1.0\nGenerator: ppsim_build\nRoot-Is-Purelib: false\nTag: %s\n"
            % _tag())


def _build_dir(config_settings):
    d = os.environ.get("PPSIM_BUILD") or (config_settings or {}).get("build")
    return os.path.abspath(d or os.path.join(ROOT, "build", "python"))


def _make_library(config_settings):
    """Builds libppsim.so with make; returns the path of its SONAME's file."""
    build = _build_dir(config_settings)
    abi = _define("ppsim.h", "PP_ABI_VERSION")
    jobs = str(min(os.cpu_count() or 1, 8))
    cmd = ["make", "-C", ROOT, "-j" + jobs, "BUILD=" + build, build + "/libppsim.so"]
    print("ppsim_build: " + " ".join(cmd), file=sys.stderr)
    # make's output on stderr: pip shows it with -v, and when the build fails
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    return os.path.join(build, "libppsim.so." + abi)


class _Wheel:
    """A wheel being written: its files, then its RECORD."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, name, data, mode=0o644):
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("%s,sha256=%s,%d" % (name, digest, len(data)))

    def close(self):
        name = _dist_info() + "/RECORD"
        self.record.append(name + ",,")
        self.zip.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)),
                          "\n".join(self.record) + "\n")
        self.zip.close()


def _write_dist_info(wheel):
    wheel.add(_dist_info() + "/METADATA", _metadata().encode())
    wheel.add(_dist_info() + "/WHEEL", _wheel_file().encode())
    wheel.add(_dist_info() + "/top_level.txt", b"ppsim\n")
    with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
        wheel.add(_dist_info() + "/LICENSE", f.read())


def _wheel_name():
    return "%s-%s-%s.whl" % (_name(), version(), _tag())


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, _dist_info())
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(_metadata())
    with open(os.path.join(d, "WHEEL"), "w") as f:
        f.write(_wheel_file())
    return _dist_info()


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """The package's modules and py.typed, with libppsim.so.ABI beside them (_lib.py looks
    there first)."""
    library = _make_library(config_settings)
    name = _wheel_name()
    wheel = _Wheel(os.path.join(wheel_directory, name))
    for f in sorted(os.listdir(PACKAGE)):
        if f.endswith(".py") or f == "py.typed":
            with open(os.path.join(PACKAGE, f), "rb") as src:
                wheel.add("ppsim/" + f, src.read())
    with open(library, "rb") as src:
        wheel.add("ppsim/" + os.path.basename(library), src.read(), 0o755)
    _write_dist_info(wheel)
    wheel.close()
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose .pth file puts python/ on the path: the package then finds the library in
    the build tree (build/libppsim.so.ABI), which make builds here."""
    cmd = ["make", "-C", ROOT, "build/libppsim.so"]
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    name = _wheel_name()
    wheel = _Wheel(os.path.join(wheel_directory, name))
    wheel.add("ppsim_editable.pth", (os.path.join(ROOT, "python") + "\n").encode())
    _write_dist_info(wheel)
    wheel.close()
    return name


def build_sdist(sdist_directory, config_settings=None):
    """The source tree as git tracks it (or, outside git, without build/ and .git/)."""
    base = "%s-%s" % (_name(), version())
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d not in (".git", "build", "__pycache__")]
            files += [os.path.relpath(os.path.join(top, n), ROOT) for n in names]
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for f in sorted(files):
            t.add(os.path.join(ROOT, f), arcname=base + "/" + f, recursive=False)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return name


__all__ = ["build_wheel", "build_sdist", "build_editable", "get_requires_for_build_wheel",
           "get_requires_for_build_sdist", "get_requires_for_build_editable",
           "prepare_metadata_for_build_wheel", "prepare_metadata_for_build_editable"]
