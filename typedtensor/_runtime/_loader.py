"""Load the compiled core. ``libscipy_openblas.so`` is found through the RPATH of ``_C``; it is
also preloaded here (RTLD_GLOBAL) so layouts where the RPATH does not match still import. Where the
``mkl`` wheel is installed, the core is told where its ``libmkl_rt`` lies (NOTE [ BLAS by CPU ] in
backend/src/cpu/blas_select.cpp: it is opened only on Intel CPUs, at the first matrix product)."""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import sys
import sysconfig
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


def _mkl_library() -> str | None:
    """``libmkl_rt`` as the ``mkl`` wheel installs it: into the environment's ``lib/`` folder."""
    roots = {sys.prefix, sysconfig.get_config_var("base") or sys.prefix, sysconfig.get_paths()["data"]}
    for root in sorted(roots):
        for name in ("libmkl_rt.so.3", "libmkl_rt.so.2"):
            path = os.path.join(root, "lib", name)
            if os.path.exists(path):
                return path
    return None


def load_core() -> ModuleType:
    _preload_openblas()
    try:
        core = importlib.import_module("typedtensor._C")
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
    mkl = _mkl_library()
    if mkl is not None:
        core._cpu_set_blas_mkl_path(mkl)
    return core
