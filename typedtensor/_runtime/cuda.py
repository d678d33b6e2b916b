"""``typedtensor.cuda``: device queries. The CUDA module ``_C_cuda`` is imported lazily, so a
machine without a driver (or a build without nvcc) imports typedtensor normally."""

from __future__ import annotations

import functools
import importlib
from types import ModuleType

__all__ = ["is_available", "device_count"]


@functools.lru_cache(maxsize=1)
def _module() -> ModuleType | None:
    try:
        return importlib.import_module("typedtensor._C_cuda")
    except ImportError:
        return None


def device_count() -> int:
    """Number of usable CUDA devices: 0 without the CUDA module, a driver or a device."""
    mod = _module()
    return int(mod.device_count()) if mod is not None else 0


def is_available() -> bool:
    """True when a CUDA device can be used. (Tensors on it arrive with the CUDA backend issue.)"""
    return device_count() > 0
