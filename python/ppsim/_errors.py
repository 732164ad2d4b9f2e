"""The exceptions ppsim raises for what the library refused or could not do, under one base."""

import errno as _errno
import os
import re
from typing import Dict, Type

# the library's words for a file it could not read (src/base/text.c): "cannot read 'PATH':
# WHY", WHY the system's strerror when it is one
_CANNOT_READ = re.compile(r"cannot read '(.*)': ([^:']*)$", re.S)
_ERRNO_OF: Dict[str, int] = {os.strerror(e): e for e in sorted(_errno.errorcode, reverse=True)}


class Error(Exception):
    """Base of every exception the library's answers raise (a refused setting, a run that
    cannot be simulated, a file it cannot read, a library it cannot load). Arguments of the
    wrong type or value are refused before the library sees them, with Python's own TypeError
    and ValueError."""


class PpsimError(Error, ValueError):
    """A setting, a config or a value ppsim refused; the message is ppsim's, naming the setting
    by its config key. A ValueError: what ppsim refuses is always a value the caller gave."""


class SimulationError(PpsimError):
    """Valid settings that cannot be simulated: a schedule that deadlocks, or a run over its
    GPUs' memory. (A run over its op limit, max_ops, is a PpsimError: the limit is a setting.)"""


class PpsimFileError(Error, OSError):
    """A file the library could not read: a config, a schedule file, a request trace. As an
    OSError it has the file's name in filename and, when the system said why, its errno and
    strerror (errno.ENOENT for a missing file); its message is ppsim's."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        found = _CANNOT_READ.match(message)
        if found is not None:
            self.filename = found.group(1)
            self.strerror = found.group(2)
            if found.group(2) in _ERRNO_OF:
                self.errno = _ERRNO_OF[found.group(2)]

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class PpsimMemoryError(Error, MemoryError):
    """The library ran out of memory (the run is too large for this machine)."""


class LibraryError(Error, OSError):
    """libppsim.so could not be found or loaded, or is not of this package's ABI."""


# the exception of each negative status of ppsim.h's enum pp_status
_BY_STATUS = {-1: PpsimError, -2: SimulationError, -3: PpsimFileError, -4: PpsimMemoryError}


def error_of(status: int) -> Type[Error]:
    """The exception class of a call's status (enum pp_status); PpsimError for another."""
    return _BY_STATUS.get(status, PpsimError)
