"""The lints beyond shape equality (NOTE [ Layout lints ] in typedtensor/shapes/layout.py), with the
checker's codes: `view-noncontiguous` and `squeeze-no-dim`.

NOTE [ Layouts in the plugin ]
A tensor's type holds no strides, so the plugin follows the layout through the expression a `view`
is called on, as the checker follows it through values: a parameter is assumed contiguous (the
checker's one assumption), as are a fresh tensor, a matmul, `contiguous()`/`reshape`, and the result
of a module or of a function with an annotated result; `transpose`/`permute`/`t()`/`.T`/`.mT`/
`expand`/`unsqueeze`/`squeeze` derive new strides (the shared `layout.derive`); a local name bound
once is its value (NOTE [ Names bound once ]); anything else (an elementwise op, a name bound twice,
an attribute) is not known, and nothing is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mypy.nodes import (
    ARG_POS,
    CallExpr,
    Context,
    Expression,
    ListExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    RefExpr,
    TupleExpr,
)
from mypy.plugin import CheckerPluginInterface
from mypy.types import Type

from typedtensor.shapes import layout
from typedtensor.shapes.dims import Unknown
from typedtensor.shapes.shape import Shape, fmt_shape

from .errors import report_lint
from .local_names import INITIAL, value_at
from .translate import Translator, literal_value, tensor_instance
from .values import Actual, expr_type

# ops whose result is a new contiguous tensor (the checker's `_FRESH`, and `contiguous`/`reshape`)
_FRESH = frozenset({
    "zeros", "ones", "empty", "rand", "randn", "randint", "full", "arange", "linspace", "eye", "tensor", "as_tensor",
    "matmul", "mm", "bmm", "cat", "concat", "concatenate", "stack", "contiguous", "reshape", "clone",
})
# methods whose result's strides `layout.derive` computes from their input's
_DERIVED = frozenset({
    "transpose", "swapaxes", "swapdims", "permute", "t", "expand", "expand_as", "broadcast_to", "unsqueeze", "squeeze",
})
_DEPTH = 12


def lint_op(api: CheckerPluginInterface, op_name: str, actuals: Sequence[Actual], context: Context, tr: Translator,
            self_type: Type | None, result: Type) -> None:
    """The lints of one registry call, after its shape rule (only `view` and `squeeze` have any)."""
    if op_name == "squeeze":
        _squeeze(api, actuals, context, tr, self_type)
    elif op_name == "view" and self_type is not None and isinstance(context, CallExpr) \
            and isinstance(context.callee, MemberExpr):
        _view(api, context.callee.expr, context, tr, self_type, result)


def _squeeze(api: CheckerPluginInterface, actuals: Sequence[Actual], context: Context, tr: Translator,
             self_type: Type | None) -> None:
    rest = list(actuals) if self_type is not None else list(actuals[1:])
    x = tr.shape(self_type) if self_type is not None else (tr.shape(actuals[0].type) if actuals else None)
    if any(a.kind == ARG_POS or a.name == "dim" for a in rest):
        return
    if isinstance(x, Shape) and x.is_fixed and any(map(layout.may_be_one, x.dims)):
        report_lint(api, "squeeze-no-dim", f"squeeze() without a dim on shape {fmt_shape(x)} also drops a dim that "
                                           f"is 1 at run time (a batch of one): name the dim", context)


def _view(api: CheckerPluginInterface, receiver: Expression, context: Context, tr: Translator, self_type: Type,
          result: Type) -> None:
    x, out = tr.shape(self_type), tr.shape(result)
    if not (isinstance(x, Shape) and x.is_fixed and isinstance(out, Shape) and out.is_fixed):
        return
    strides = _layout(api, receiver, _DEPTH)
    if not isinstance(strides, tuple) or len(strides) != len(x.dims):
        return  # contiguous, or not known
    if layout.view_breaks(x.dims, strides, out.dims):
        report_lint(api, "view-noncontiguous", f"view: shape {fmt_shape(x)} is not contiguous in memory (after "
                                               f"transpose, permute or expand), so it cannot be viewed as "
                                               f"{fmt_shape(out)}: call .contiguous() first, or use reshape", context)


def _dims(api: CheckerPluginInterface, e: Expression) -> tuple[Any, ...] | None:
    shape = Translator(api.named_generic_type).shape(expr_type(api, e))
    return shape.dims if isinstance(shape, Shape) and shape.is_fixed else None


def _layout(api: CheckerPluginInterface, e: Expression, depth: int) -> layout.Layout:
    """The strides of the tensor `e` evaluates to, `CONTIGUOUS`, or None (NOTE [ Layouts in the
    plugin ])."""
    if depth <= 0:
        return None
    if isinstance(e, NameExpr):
        value = value_at(api, e)
        if value == INITIAL:
            return layout.CONTIGUOUS  # a parameter: the one assumption
        return _layout(api, value, depth - 1) if isinstance(value, Expression) else None
    if isinstance(e, OpExpr):
        return layout.CONTIGUOUS if e.op == "@" else None
    if isinstance(e, MemberExpr) and e.name in ("T", "mT"):
        return _derived(api, e.name, e.expr, [], {}, e, depth)
    if not isinstance(e, CallExpr):
        return None
    callee = e.callee
    if isinstance(callee, MemberExpr) and tensor_instance(expr_type(api, callee.expr)) is not None:
        if callee.name in _FRESH:
            return layout.CONTIGUOUS
        if callee.name in _DERIVED:
            positional = [_static(api, a) for a, k in zip(e.args, e.arg_kinds, strict=False) if k == ARG_POS]
            keywords = {n: _static(api, a) for a, n in zip(e.args, e.arg_names, strict=False) if n is not None}
            return _derived(api, callee.name, callee.expr, positional, keywords, e, depth)
        return None  # elementwise ops keep their input's strides in torch: nothing is claimed
    if isinstance(callee, (NameExpr, MemberExpr)) and callee.fullname.startswith("typedtensor.") \
            and callee.name in _FRESH:
        return layout.CONTIGUOUS  # tt.zeros(...), tt.cat(...)
    # a module's output (`self.fc(x)`) or a function's with an annotated tensor result
    if tensor_instance(expr_type(api, e)) is not None and not (
            isinstance(callee, RefExpr) and callee.fullname.startswith("typedtensor.")):
        return layout.CONTIGUOUS
    return None


def _derived(api: CheckerPluginInterface, op: str, base: Expression, positional: list[Any], keywords: dict[str, Any],
             whole: Expression, depth: int) -> layout.Layout:
    dims, out_dims = _dims(api, base), _dims(api, whole)
    if dims is None or out_dims is None:
        return None
    before = _layout(api, base, depth - 1)
    if before is None:
        return None
    strides = layout.contiguous_strides(dims) if not isinstance(before, tuple) else before
    if len(strides) != len(dims):
        return None
    return layout.derive(op, dims, strides, [Shape(dims), *positional], keywords, Shape(out_dims))


def _static(api: CheckerPluginInterface, e: Expression) -> Any:
    """An int argument's value (a dim index or size), a tuple of them, or an unknown."""
    if isinstance(e, (TupleExpr, ListExpr)):
        return tuple(_static(api, i) for i in e.items)
    t = expr_type(api, e)
    value = literal_value(t)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    d = Translator(api.named_generic_type).dim(t)
    return d if not isinstance(d, Unknown) else value


__all__ = ["lint_op"]
