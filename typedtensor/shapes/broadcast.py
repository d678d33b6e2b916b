"""PyTorch broadcasting over symbolic shapes (right-aligned; ``1`` stretches; unknown never errs)."""

from __future__ import annotations

from .dims import UNKNOWN, DimExpr, Unknown, differs, fmt_dim, same
from .issue import Issue
from .shape import Shape, ShapeLike, Star, fmt_shape


def broadcast_dim(a: DimExpr, b: DimExpr) -> DimExpr | None:
    """The broadcast of two dims, or None when they provably conflict."""
    if same(a, b) or b == 1:
        return a
    if a == 1:
        return b
    if isinstance(a, Unknown):
        return b
    if isinstance(b, Unknown):
        return a
    return None if differs(a, b) else UNKNOWN


def broadcast_shapes(
    a: ShapeLike, b: ShapeLike, op: str, symbol: str = ",", code: str = "shape-broadcast"
) -> ShapeLike | Issue:
    """Broadcast two shapes as PyTorch does; an ``Issue`` names both dims and both shapes."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    ta, tb = a.tail, b.tail
    n = min(len(ta), len(tb))
    out: list[DimExpr] = []
    for k in range(1, n + 1):
        da, db = ta[-k], tb[-k]
        merged = broadcast_dim(da, db)
        if merged is None:
            return Issue(
                code,
                f"{op}: dimensions do not broadcast: {fmt_dim(da)} (left, dim {-k}) vs "
                f"{fmt_dim(db)} (right, dim {-k}); shapes {fmt_shape(a)} {symbol} {fmt_shape(b)}",
            )
        out.append(merged)
    out.reverse()
    tail = tuple(out)
    if a.is_fixed and b.is_fixed:
        longer = ta if len(ta) >= len(tb) else tb
        return Shape(longer[: len(longer) - n] + tail)
    # One side still has a variadic head: the other side's unmatched dims meet unknown dims.
    if a.is_fixed and len(ta) <= len(tb):
        return Shape(b.prefix, b.star, b.suffix[: len(tb) - n] + tail)
    if b.is_fixed and len(tb) <= len(ta):
        return Shape(a.prefix, a.star, a.suffix[: len(ta) - n] + tail)
    if (
        a.star == b.star
        and a.star is not None
        and a.star.name is not None
        and len(ta) == len(tb)
        and len(a.prefix) == len(b.prefix)
        and all(same(x, y) for x, y in zip(a.prefix, b.prefix, strict=True))
    ):
        return Shape(a.prefix, a.star, tail)
    return Shape((), Star(None), tail)


def broadcast_all(shapes: list[ShapeLike], op: str, code: str = "shape-broadcast") -> ShapeLike | Issue:
    result: ShapeLike = Shape(())
    for s in shapes:
        merged = broadcast_shapes(result, s, op, ",", code)
        if isinstance(merged, Issue):
            return merged
        result = merged
    return result


def broadcast_into(
    target: ShapeLike, other: ShapeLike, op: str, symbol: str = ",", code: str = "shape-broadcast"
) -> Issue | None:
    """An Issue when ``other`` does not broadcast *to* ``target`` without growing it (an in-place
    op: ``x.masked_fill_``, a loss ``weight``, an attention mask added to the scores)."""
    merged = broadcast_shapes(target, other, op, symbol, code)
    if isinstance(merged, Issue):
        return merged
    if isinstance(target, Shape) and isinstance(other, Shape) and target.is_fixed and other.is_fixed:
        assert isinstance(merged, Shape)
        if len(other.dims) > len(target.dims) or any(differs(m, t) for m, t in zip(merged.dims, target.dims, strict=False)):
            return Issue(
                code,
                f"{op}: {fmt_shape(other)} does not broadcast to {fmt_shape(target)} "
                f"(it would grow the result to {fmt_shape(merged)})",
            )
    return None
