"""Helpers shared by the rule families: axis normalisation, rank checks, scalar markers."""

from __future__ import annotations

from typing import Any, Final

from ..dims import UNKNOWN, DimExpr, Poly, Unknown, as_int, fmt_dim
from ..issue import Issue
from ..shape import Shape, ShapeLike, fmt_shape


class Scalar:
    """A Python number whose value is not known statically (``x: float``)."""

    def __repr__(self) -> str:
        return "SCALAR"


SCALAR: Final = Scalar()


def is_scalar(value: Any) -> bool:
    return isinstance(value, (int, float, Scalar)) and not isinstance(value, Shape)


def norm_axis(op: str, shape: Shape, axis: Any, *, extra: int = 0, what: str = "dim") -> int | Issue | None:
    """Normalise ``axis`` for ``shape`` (rank + ``extra`` allowed positions, as for unsqueeze).

    Fixed shapes give 0..rank+extra-1. Variadic shapes give a non-negative index inside the prefix
    or a negative one inside the suffix, else None (the position is not known statically).
    """
    a = as_int(axis)
    if a is None:
        return None
    if shape.is_fixed:
        n = len(shape.dims) + extra
        lo, hi = -max(n, 1), max(n, 1) - 1
        if not lo <= a <= hi:
            return Issue(
                "shape-axis",
                f"{op}: {what} {a} is out of range for a tensor of rank {len(shape.dims)} "
                f"(expected {lo}..{hi}); shape {fmt_shape(shape)}",
            )
        return a + max(n, 1) if a < 0 else a  # a 0-d tensor's dim -1 is its dim 0
    if 0 <= a < len(shape.prefix) + (extra if not shape.suffix else 0):
        return a
    if a < 0 and -a <= len(shape.suffix) + extra:
        return a
    return None


def dim_at(shape: Shape, pos: int) -> DimExpr:
    d = shape.dim(pos)
    return UNKNOWN if d is None else d


def replace(shape: Shape, pos: int, dims: tuple[DimExpr, ...]) -> Shape:
    """Replace the dim at normalised ``pos`` by ``dims`` (empty to drop it)."""
    if shape.is_fixed:
        return Shape(shape.dims[:pos] + dims + shape.dims[pos + 1 :])
    if pos >= 0:
        return Shape(shape.prefix[:pos] + dims + shape.prefix[pos + 1 :], shape.star, shape.suffix)
    n = len(shape.suffix)
    i = n + pos
    return Shape(shape.prefix, shape.star, shape.suffix[:i] + dims + shape.suffix[i + 1 :])


def insert(shape: Shape, pos: int, dims: tuple[DimExpr, ...]) -> Shape:
    """Insert ``dims`` so that the first lands at normalised ``pos`` (negative counts from the end
    of the result, as unsqueeze does)."""
    if shape.is_fixed:
        return Shape(shape.dims[:pos] + dims + shape.dims[pos:])
    if pos >= 0:
        return Shape(shape.prefix[:pos] + dims + shape.prefix[pos:], shape.star, shape.suffix)
    n = len(shape.suffix)
    i = n + pos + 1
    return Shape(shape.prefix, shape.star, shape.suffix[:i] + dims + shape.suffix[i:])


def need_rank(op: str, shape: Shape, ranks: tuple[int, ...], what: str = "input") -> Issue | None:
    """A shape-rank Issue when a fixed shape's rank is not one of ``ranks``."""
    if shape.is_fixed and len(shape.dims) not in ranks:
        want = " or ".join(f"{r}-d" for r in ranks)
        return Issue(
            "shape-rank",
            f"{op}: expected a {want} {what}, got {len(shape.dims)}-d; shape {fmt_shape(shape)}",
        )
    if not shape.is_fixed and shape.min_rank > max(ranks):
        return Issue(
            "shape-rank",
            f"{op}: expected at most {max(ranks)} dims in {what}, got at least {shape.min_rank}; "
            f"shape {fmt_shape(shape)}",
        )
    return None


def ints_of(value: Any, n: int) -> tuple[int | None, ...] | None:
    """An int-or-tuple argument (kernel_size=3 or (3, 5)) as ``n`` ints (None for unknown ones)."""
    if isinstance(value, Unknown):
        return (None,) * n
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            value = value[0]
        elif len(value) != n:
            return None
        else:
            return tuple(as_int(v) for v in value)
    return (as_int(value),) * n


def dims_of(value: Any, n: int) -> tuple[DimExpr, ...] | None:
    """Like ``ints_of`` but keeps symbolic sizes; an item that is not a size (None, a plain
    number whose value is not known) is unknown."""
    if isinstance(value, Unknown):
        return (UNKNOWN,) * n
    if isinstance(value, (tuple, list)):
        if len(value) != n:
            return None
        return tuple(_dim_or_unknown(v) for v in value)
    return (_dim_or_unknown(value),) * n


def _dim_or_unknown(v: Any) -> DimExpr:
    return v if isinstance(v, (Poly, Unknown)) or (isinstance(v, int) and not isinstance(v, bool)) else UNKNOWN


def pair(shapes: tuple[ShapeLike, ...], symbol: str = ",") -> str:
    return f" {symbol} ".join(fmt_shape(s) for s in shapes)


def fmt_dims(dims: tuple[DimExpr, ...]) -> str:
    return "[" + ", ".join(fmt_dim(d) for d in dims) + "]"


def dim_position(op: str, x: Shape, dim: Any) -> int | Issue | None:
    """The normalised position of ``dim`` in a tensor that must have at least one dim (split,
    chunk, unbind, narrow, unflatten); None when it is not known statically."""
    r = need_rank(op, x, tuple(range(1, 65)))
    return r if r else norm_axis(op, x, dim)
