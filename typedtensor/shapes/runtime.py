"""The registry seen from run time: messages for concrete failing calls.

NOTE [ Run-time shape errors ]
Every run-time ``tt.ShapeError`` reads exactly like the static checkers' report, because one
function words them all: ``typedtensor._runtime.errors.shape_error``. The C++ backend computes
output shapes itself for speed and, when a call fails, the bindings pass the op, the input shapes
and the scalar arguments to it; it asks ``explain`` here for the registry's message (the core's own
text is the fallback). The Python composites (``_runtime/functional.py``, ``composite.py``) check
their arguments first with ``errors.check``, which runs the op's rule through ``check`` here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .issue import Issue
from .registry import Outputs, Result, apply, get_op
from .shape import Shape, concrete


def _concrete_args(op_name: str, shapes: Sequence[Sequence[int]], params: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    op = get_op(op_name)
    tensor_params = [p for p in op.params if p.kind in ("tensor", "optional_tensor", "any")]
    keywords: dict[str, Any] = dict(params)
    it = iter(shapes)
    if op.params and op.params[0].kind == "tensors":
        keywords.setdefault(op.params[0].name, [concrete(s) for s in shapes])
        return [], keywords
    for p in tensor_params:
        if p.name in keywords:
            continue
        s = next(it, None)
        if s is None:
            break
        keywords[p.name] = concrete(s)
    return [], keywords


def explain(op_name: str, shapes: Sequence[Sequence[int]], params: Mapping[str, Any] | None = None) -> str | None:
    """The registry's message for a failing concrete call, or None when its rule finds no problem."""
    try:
        positional, keywords = _concrete_args(op_name, shapes, params or {})
        result = apply(op_name, positional, keywords)
    except KeyError:
        return None
    return result.message if isinstance(result, Issue) else None


def check(op_name: str, positional: Sequence[Any] = (), keywords: Mapping[str, Any] | None = None) -> Result:
    """Run an op's rule on concrete values (tensor arguments already converted with ``concrete``)."""
    return apply(op_name, positional, keywords or {})


__all__ = ["Outputs", "Shape", "check", "concrete", "explain"]
