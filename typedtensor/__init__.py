"""typedtensor: PyTorch-style tensors whose annotations carry dimension types.

The annotation language, ``@checked`` and the shape calculus import without the compiled backend;
runtime names (``Tensor``, ``zeros``, ``nn`` ...) load ``typedtensor._C`` on first use, so the
checker and the mypy plugin never pay for it.
"""

from __future__ import annotations

import contextlib
import importlib
from typing import Any

from ._annotations import Add, Dim, Div, Mul, Sub
from ._checked import checked
from ._errors import ShapeError

__version__ = "0.1.0"

_SUBMODULES = frozenset({
    "nn", "optim", "data", "utils", "cuda", "autograd", "jit", "onnx", "shapes", "accelerator", "backends",
    "distributed", "distributions", "multiprocessing", "serialization", "amp", "cpu", "fx", "special", "linalg",
})
# Mixed precision names torch also exports at the top level (``torch.autocast``): from typedtensor.amp
_AMP_NAMES = frozenset({
    "GradScaler", "autocast", "autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache",
    "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype", "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled", "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled", "set_autocast_gpu_dtype",
})


def _load_runtime() -> Any:
    return importlib.import_module("typedtensor._runtime")


def __getattr__(name: str) -> Any:
    if name == "compile":  # graph mode (typedtensor/graph): tt.compile(fn, passes=...)
        value = importlib.import_module("typedtensor.graph").compile
        globals()[name] = value
        return value
    if name in _AMP_NAMES:
        amp = importlib.import_module("typedtensor.amp.autocast_mode" if name != "GradScaler" else "typedtensor.amp")
        value = getattr(amp, name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        try:
            return importlib.import_module(f"typedtensor.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"typedtensor.{name}":
                raise
    runtime = _load_runtime()
    try:
        value = getattr(runtime, name)
    except AttributeError:
        raise AttributeError(f"module 'typedtensor' has no attribute {name!r}") from None
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    names = set(globals()) | set(_SUBMODULES) | set(_AMP_NAMES)
    with contextlib.suppress(ImportError):
        names |= set(getattr(_load_runtime(), "__all__", ()))
    return sorted(names)


__all__ = ["Add", "Dim", "Div", "Mul", "ShapeError", "Sub", "checked"]
