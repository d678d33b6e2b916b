"""``tt.fx``: what programs written for ``torch.fx`` call at import time.

torch.fx traces a module symbolically into a graph, and ``fx.wrap`` registers a module-level
function as a leaf that tracing records as one call. typedtensor's graph mode (``tt.compile``)
traces by running the program on tensors, so there is no symbolic tracer to tell: ``wrap`` makes
torch's checks of its call and returns its argument, and a module that calls it (torchvision's
``ops/stochastic_depth.py``) imports and runs unchanged."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

_W = TypeVar("_W", bound=Callable[..., Any] | str)


def wrap(fn_or_name: _W) -> _W:
    """torch.fx.wrap: called at the top level of a module with a function or its name; returns it."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or string name")
    frame = inspect.currentframe()
    caller = frame.f_back if frame is not None else None
    if caller is None or caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    return fn_or_name


__all__ = ["wrap"]
