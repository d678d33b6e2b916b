"""The work behind ``@tt.checked``: annotations as shapes, and the per-call check.

Each named dim and each TypeVar is a variable bound once per call (the same name, the same size),
using the calculus's own unification, so the message has the checkers' shape vocabulary. Kept
apart from ``_checked`` so that ``import typedtensor`` does not load the calculus: it is imported
on a checked function's first call.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any, Literal, TypeVar, cast

from ._annotations import Add, Dim, Div, Mul, Sub
from ._errors import ShapeError
from .shapes import UNKNOWN, DimExpr, Shape, Star, d_add, d_floordiv, d_mul, d_sub, dim_var
from .shapes.unify import Bindings, unify

_ARITH: dict[type, Callable[[DimExpr, DimExpr], DimExpr]] = {Add: d_add, Sub: d_sub, Mul: d_mul, Div: d_floordiv}


def _dim_key(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _dim_of(arg: Any) -> DimExpr:
    """A runtime annotation argument as a dim expression (named dims become variables)."""
    origin = typing.get_origin(arg)
    if origin is Literal:
        (value,) = typing.get_args(arg)
        return int(value)
    if origin in _ARITH:
        a, b = typing.get_args(arg)
        return _ARITH[origin](_dim_of(a), _dim_of(b))
    if isinstance(arg, TypeVar):
        return dim_var(arg.__name__)
    if isinstance(arg, type) and issubclass(arg, Dim) and arg is not Dim:
        return cast(DimExpr, dim_var(_dim_key(arg)))
    if isinstance(arg, int) and not isinstance(arg, bool):
        return int(arg)
    return UNKNOWN


def _is_tensor_annotation(annotation: Any) -> bool:
    origin = typing.get_origin(annotation) or annotation
    return getattr(origin, "__name__", None) == "Tensor"


def shape_of_annotation(annotation: Any) -> Shape | None:
    """``Tensor[Batch, *Bs, Literal[3]]`` as a Shape over variables; None for a bare Tensor."""
    if not _is_tensor_annotation(annotation):
        return None
    args = typing.get_args(annotation)
    if not args:
        return None
    if args == ((),):
        return Shape(())
    prefix: list[DimExpr] = []
    suffix: list[DimExpr] = []
    star: Star | None = None
    for a in args:
        origin = typing.get_origin(a)
        unpacked = origin is not None and getattr(origin, "_name", getattr(origin, "__name__", "")) == "Unpack"
        if unpacked or type(a).__name__ == "TypeVarTuple":
            inner = typing.get_args(a)[0] if unpacked else a
            star = Star(getattr(inner, "__name__", None))
            continue
        (suffix if star is not None else prefix).append(_dim_of(a))
    return Shape(tuple(prefix), star, tuple(suffix))


def _runtime_shape(value: Any) -> tuple[int, ...] | None:
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    try:
        return tuple(int(d) for d in shape)
    except TypeError:
        return None


class Plan:
    """What to check for one function, computed once at decoration (first call)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.signature = inspect.signature(fn)
        try:
            hints = typing.get_type_hints(fn)
        except Exception:
            hints = {k: v for k, v in getattr(fn, "__annotations__", {}).items() if not isinstance(v, str)}
        self.tensors: dict[str, Shape] = {}
        self.sizes: dict[str, DimExpr] = {}
        for name, annotation in hints.items():
            if name == "return":
                continue
            shape = shape_of_annotation(annotation)
            if shape is not None:
                self.tensors[name] = shape
            elif (isinstance(annotation, type) and issubclass(annotation, Dim) and annotation is not Dim) or isinstance(annotation, TypeVar):
                self.sizes[name] = _dim_of(annotation)
        self.result = shape_of_annotation(hints.get("return"))


def check_call(plan: Plan, qualname: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Bindings:
    """Check the arguments of one call; the bindings go on to check its result."""
    bound = plan.signature.bind(*args, **kwargs)
    b = Bindings()
    for name, dim in plan.sizes.items():
        if name in bound.arguments and isinstance(bound.arguments[name], int):
            issue = unify(Shape((dim,)), Shape((int(bound.arguments[name]),)), b, f"{qualname}: argument {name!r}")
            if issue:
                raise ShapeError(issue.message.replace(", dim 0", ""))
    for name, declared in plan.tensors.items():
        if name not in bound.arguments:
            continue
        actual = _runtime_shape(bound.arguments[name])
        if actual is None:
            continue
        issue = unify(declared, Shape(actual), b, f"{qualname}: argument {name!r}")
        if issue:
            raise ShapeError(issue.message)
    return b


def check_result(plan: Plan, qualname: str, result: Any, b: Bindings) -> None:
    if plan.result is None:
        return
    actual = _runtime_shape(result)
    if actual is not None:
        issue = unify(plan.result, Shape(actual), b, f"{qualname}: return value")
        if issue:
            raise ShapeError(issue.message)
