"""Load the compiled core. ``libscipy_openblas.so`` is found through the RPATH of ``_C``; it is
also preloaded here (RTLD_GLOBAL) so layouts where the RPATH does not match still import."""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
from types import ModuleType


def _preload_openblas() -> None:
    try:
        import scipy_openblas32
    except ImportError:
        return
    lib = os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so")
    if os.path.exists(lib):
        with contextlib.suppress(OSError):  # the rpath may still find it; _C's import says if not
            ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)


def load_core() -> ModuleType:
    _preload_openblas()
    return importlib.import_module("typedtensor._C")
