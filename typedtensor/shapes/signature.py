"""Rules from gufunc-style signatures, ``"(b, m, k), (b, k, n) -> (b, m, n)"``.

A name used twice must be the same dim; ``*name`` is a run of batch dims that broadcast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .broadcast import broadcast_shapes
from .dims import UNKNOWN, DimExpr, Unknown, differs, fmt_dim
from .issue import Issue
from .shape import Shape, ShapeLike, fmt_shape


@dataclass(frozen=True)
class Signature:
    inputs: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]


def parse_signature(text: str) -> Signature:
    lhs, rhs = text.split("->")

    def groups(s: str) -> tuple[tuple[str, ...], ...]:
        out = []
        for part in s.split(")"):
            part = part.strip().lstrip(",").strip()
            if part.startswith("("):
                inner = part[1:].strip()
                out.append(tuple(x.strip() for x in inner.split(",") if x.strip()))
        return tuple(out)

    (output,) = groups(rhs)
    return Signature(groups(lhs), output)


def signature_rule(
    text: str, op: str, code: str, symbol: str = ","
) -> Callable[[tuple[ShapeLike, ...]], ShapeLike | Issue]:
    """A rule over input shapes checking the signature's consistency."""
    sig = parse_signature(text)

    def rule(shapes: tuple[ShapeLike, ...]) -> ShapeLike | Issue:
        if any(isinstance(s, Unknown) for s in shapes):
            return UNKNOWN
        def shown() -> str:
            return f" {symbol} ".join(fmt_shape(s) for s in shapes)
        bound: dict[str, tuple[DimExpr, str]] = {}
        batch: ShapeLike = Shape(())
        for i, (names, shape) in enumerate(zip(sig.inputs, shapes, strict=False)):
            assert isinstance(shape, Shape)
            side = ("left", "right")[i] if len(shapes) == 2 else f"argument {i}"
            core = [n for n in names if not n.startswith("*")]
            starred = len(core) != len(names)
            if shape.is_fixed:
                dims = shape.dims
                if len(dims) < len(core) or (not starred and len(dims) != len(core)):
                    want = f"at least {len(core)}" if starred else f"{len(core)}"
                    return Issue(
                        "shape-rank",
                        f"{op}: expected {want} dims in the {side} operand, got {len(dims)}; shapes {shown()}",
                    )
                head, tail = dims[: len(dims) - len(core)], dims[len(dims) - len(core) :]
                head_shape: ShapeLike = Shape(head)
            else:
                if len(shape.suffix) < len(core):
                    return UNKNOWN
                tail = shape.suffix[len(shape.suffix) - len(core) :]
                head_shape = Shape(shape.prefix, shape.star, shape.suffix[: len(shape.suffix) - len(core)])
            if starred:
                merged = broadcast_shapes(batch, head_shape, op, symbol, code)
                if isinstance(merged, Issue):
                    return merged
                batch = merged
            for k, (name, d) in enumerate(zip(core, tail, strict=True)):
                where = f"{side}, dim {k - len(core)}"
                if name.isdigit():
                    if differs(d, int(name)):
                        return Issue(code, f"{op}: expected size {name} at {where}, got {fmt_dim(d)}; shapes {shown()}")
                    continue
                if name in bound:
                    prev, prev_where = bound[name]
                    if differs(prev, d):
                        return Issue(
                            code,
                            f"{op}: dimensions differ: {fmt_dim(prev)} ({prev_where}) vs "
                            f"{fmt_dim(d)} ({where}); shapes {shown()}",
                        )
                    if isinstance(prev, Unknown):
                        bound[name] = (d, where)
                else:
                    bound[name] = (d, where)
        out_core = tuple(bound[n][0] if n in bound else (int(n) if n.isdigit() else UNKNOWN)
                         for n in sig.output if not n.startswith("*"))
        if any(n.startswith("*") for n in sig.output):
            if isinstance(batch, Unknown):
                return UNKNOWN
            return Shape(batch.prefix, batch.star, batch.suffix + out_core) if batch.star else Shape(batch.prefix + out_core)
        return Shape(out_core)

    return rule
