"""Shapes: a run of dims, optionally with one variadic part (``*Bs``) in the middle."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from .dims import UNKNOWN, DimExpr, Unknown, fmt_dim


@dataclass(frozen=True)
class Star:
    """A variadic run of dims: a TypeVarTuple by name, or ``None`` for "any number, unknown"."""

    name: str | None

    def fmt(self) -> str:
        return f"*{self.name}" if self.name else "..."


@dataclass(frozen=True)
class Shape:
    """``prefix + [*star] + suffix``; a shape without a star keeps all its dims in ``prefix``."""

    prefix: tuple[DimExpr, ...]
    star: Star | None = None
    suffix: tuple[DimExpr, ...] = ()

    def __post_init__(self) -> None:
        if self.star is None and self.suffix:
            object.__setattr__(self, "prefix", self.prefix + self.suffix)
            object.__setattr__(self, "suffix", ())

    @classmethod
    def of(cls, *dims: DimExpr) -> Shape:
        return cls(tuple(dims))

    @classmethod
    def unknown_rank(cls) -> Shape:
        return cls((), Star(None), ())

    @property
    def is_fixed(self) -> bool:
        return self.star is None

    @property
    def rank(self) -> int | None:
        return len(self.prefix) if self.star is None else None

    @property
    def min_rank(self) -> int:
        return len(self.prefix) + len(self.suffix)

    @property
    def dims(self) -> tuple[DimExpr, ...]:
        """All dims of a fixed shape (callers check ``is_fixed`` first)."""
        assert self.star is None, "dims of a variadic shape"
        return self.prefix

    @property
    def tail(self) -> tuple[DimExpr, ...]:
        """The dims known to end the shape: the suffix of a variadic shape, or all dims."""
        return self.suffix if self.star is not None else self.prefix

    def dim(self, index: int) -> DimExpr | None:
        """The dim at ``index`` (negative from the end); None when it lies in the variadic part
        or out of range."""
        if self.star is None:
            if -len(self.prefix) <= index < len(self.prefix):
                return self.prefix[index]
            return None
        if 0 <= index < len(self.prefix):
            return self.prefix[index]
        if -len(self.suffix) <= index < 0:
            return self.suffix[index]
        return None

    def with_tail(self, tail: tuple[DimExpr, ...]) -> Shape:
        """The same head (prefix and star) with a new tail."""
        if self.star is None:
            return Shape(tail)
        return Shape(self.prefix, self.star, tail)

    def __str__(self) -> str:
        return fmt_shape(self)


ShapeLike = Union[Shape, Unknown]


def fmt_shape(shape: ShapeLike) -> str:
    """``[Batch, In]``, ``[*Bs, Model]``, ``[]``; ``?`` for a fully unknown shape."""
    if isinstance(shape, Unknown):
        return "?"
    parts = [fmt_dim(d) for d in shape.prefix]
    if shape.star is not None:
        parts.append(shape.star.fmt())
        parts.extend(fmt_dim(d) for d in shape.suffix)
    return "[" + ", ".join(parts) + "]"


def concrete(shape: Sequence[int]) -> Shape:
    return Shape(tuple(int(d) for d in shape))


__all__ = ["UNKNOWN", "Shape", "ShapeLike", "Star", "concrete", "fmt_shape"]
