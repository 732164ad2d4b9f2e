"""The package's version: include/ppsim/version.h's PP_VERSION (the build checks they agree)."""

__version__ = "0.1.0"
