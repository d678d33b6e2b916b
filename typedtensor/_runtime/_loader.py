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
    try:
        return importlib.import_module("typedtensor._C")
    except ModuleNotFoundError as exc:
        if exc.name != "typedtensor._C":
            raise
        raise ModuleNotFoundError(
            "typedtensor's compiled backend (typedtensor._C) is not installed: this is the checker-only "
            "build (TYPEDTENSOR_CHECKER_ONLY=1, or installed by pre-commit), or an unbuilt source tree. "
            "`typedtensor check`, the mypy plugin, the stubs and typedtensor.shapes work without it; to run "
            "tensors, install typedtensor without that switch",
            name=exc.name,
        ) from None
