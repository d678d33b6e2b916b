"""The run-time ShapeError and the one place its message is made (NOTE [ Run-time shape errors ] in
shapes/runtime.py).

``shape_error`` words every run-time ShapeError: the Python composites raise through it (by way of
``check``) and so do the C++ ops (the bindings, backend/python/convert.cpp, call it with the op,
the input shapes, the scalar arguments and the core's own text). Its signature stays as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from typedtensor._errors import ShapeError
from typedtensor._runtime import _loader

if TYPE_CHECKING:
    from typedtensor.shapes import Issue

__all__ = ["ShapeError", "check", "shape_error"]

_Tensor: Any = _loader.load_core().Tensor


def shape_error(op: str, shapes: Sequence[Sequence[int]], params: Mapping[str, object], fallback: str) -> ShapeError:
    """A ShapeError worded by the op registry (``typedtensor.shapes.runtime.explain``) when its rule
    finds the problem in this concrete call, else ``[op] fallback``; ``op``, ``shapes`` and
    ``params`` ride along as attributes."""
    message = fallback if fallback.startswith(f"[{op}]") else f"[{op}] {fallback}"
    try:
        from typedtensor.shapes.runtime import explain

        text = explain(op, shapes, params)
        if text:
            message = str(text)
    except Exception:  # the registry failed: keep the fallback text rather than mask the error
        pass
    err = ShapeError(message)
    err.op, err.shapes, err.params = op, [tuple(s) for s in shapes], dict(params)  # type: ignore[attr-defined]
    return err


# Calls whose arguments a rule has accepted, by op, tensor shapes and argument values: a training
# loop checks the same shapes at every step, and a rule costs tens of microseconds.
_ACCEPTED: set[tuple[Any, ...]] = set()
_ACCEPTED_LIMIT = 4096


def _key(op: str, args: Mapping[str, Any]) -> tuple[Any, ...] | None:
    key: list[Any] = [op]
    for name, value in args.items():
        if isinstance(value, _Tensor):
            key.append((name, tuple(value.shape)))
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, _Tensor) for v in value):
            key.append((name, tuple(tuple(v.shape) for v in value)))
        else:
            try:
                hash(value)
            except TypeError:
                return None
            key.append((name, type(value), value))
    return tuple(key)


def _static(value: Any) -> Any:
    from typedtensor.shapes import concrete

    if isinstance(value, _Tensor):
        return concrete(tuple(value.shape))
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, _Tensor) for v in value):
        shapes = [concrete(tuple(v.shape)) for v in value]
        return tuple(shapes) if isinstance(value, tuple) else shapes  # an LSTM's (h0, c0) stays a pair
    return value


def check(op: str, /, **args: Any) -> None:
    """Raise the registry's ShapeError when ``op``'s rule rejects this call: the arguments by their
    parameter names, tensors as they are (the rule sees their shapes), everything else by value."""
    key = _key(op, args)
    if key is not None and key in _ACCEPTED:
        return
    from typedtensor.shapes import Issue
    from typedtensor.shapes.runtime import check as run_rule

    result = run_rule(op, (), {name: _static(v) for name, v in args.items()})
    _settle(op, key, args, result if isinstance(result, Issue) else None)


def check_module(name: str, module: Any, /, **args: Any) -> None:
    """``check`` for a module's forward: the registry's module rule ``typedtensor.nn.<name>``, its
    constructor arguments read off the module's attributes (the ones it was built with)."""
    from typedtensor.shapes import Issue, get_module

    md = get_module(f"typedtensor.nn.{name}")
    ctor = {p.name: getattr(module, p.name, p.default) for p in md.ctor}
    op = f"nn.{name}"
    key = _key(op, {**args, **{f"ctor.{k}": v for k, v in ctor.items()}})
    if key is not None and key in _ACCEPTED:
        return
    result = md.call(ctor, [], {k: _static(v) for k, v in args.items()})
    _settle(op, key, args, result if isinstance(result, Issue) else None)


def _settle(op: str, key: tuple[Any, ...] | None, args: Mapping[str, Any], issue: Issue | None) -> None:
    """Raise the rule's Issue as a ShapeError (op, shapes and parameters attached), or remember the
    accepted call."""
    if issue is not None:
        shapes = [tuple(v.shape) for v in args.values() if isinstance(v, _Tensor)]
        params = {k: v for k, v in args.items() if not isinstance(v, _Tensor)}
        err = ShapeError(issue.message)
        err.op, err.shapes, err.params = op, shapes, params  # type: ignore[attr-defined]
        raise err
    if key is not None:
        if len(_ACCEPTED) >= _ACCEPTED_LIMIT:
            _ACCEPTED.clear()
        _ACCEPTED.add(key)
