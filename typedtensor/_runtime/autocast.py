"""The autocast policy for the ops written in Python (NOTE [ Autocast at the front end ] in
backend/include/typedtensor/autocast.h): their one cast per call, as ``TT_AUTOCAST`` is for the
C++ ops, with the same plan, cast and cache (``_C._autocast_*``).

``wrap_ops`` wraps, once at import, each function of a module that the op table gives an autocast
policy (``_exports.AUTOCAST``). With autocast off the wrapper costs one C++ call reading the
thread-local flag; with it on, the floating tensor arguments (also inside lists and tuples) are cast
once and the body runs with autocast excluded, so its inner ops are not cast again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from typedtensor._runtime import _exports, _loader

_C = _loader.load_core()


def _tensors(values: Any, out: list[Any]) -> None:
    for v in values:
        if isinstance(v, _C.Tensor):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            _tensors(v, out)


def _cast(value: Any, dtype: Any, cuda: bool) -> Any:
    if isinstance(value, _C.Tensor):
        return _C._autocast_cast(value, dtype, cuda)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype, cuda) for v in value)
    return value


def autocast_op(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (the Python-written op ``name``) under its autocast policy."""

    @functools.wraps(fn)
    def op(*args: Any, **kwargs: Any) -> Any:
        if not _C._autocast_active():
            return fn(*args, **kwargs)
        tensors: list[Any] = []
        _tensors(args, tensors)
        _tensors(kwargs.values(), tensors)
        plan = _C._autocast_plan(name, tensors)
        if plan is None:  # no policy on this device type, or autocast is off there
            return fn(*args, **kwargs)
        dtype, cuda = plan
        if dtype is not None:
            args = tuple(_cast(a, dtype, cuda) for a in args)
            kwargs = {k: _cast(v, dtype, cuda) for k, v in kwargs.items()}
        _C._autocast_exclude(True)
        try:
            return fn(*args, **kwargs)
        finally:
            _C._autocast_exclude(False)

    op.__wrapped_autocast__ = name  # type: ignore[attr-defined]
    return op


def wrap_ops(namespace: dict[str, Any]) -> None:
    """Wrap the functions in ``namespace`` (a module's globals) that are ops with an autocast policy."""
    for name in _exports.AUTOCAST:
        fn = namespace.get(name)
        if callable(fn) and not hasattr(fn, "__wrapped_autocast__") and not isinstance(fn, type(_C.matmul)):
            namespace[name] = autocast_op(name, fn)
