"""The annotation language at run time: named dims and dim arithmetic (DESIGN §1).

``Dim`` subclasses ``int`` so that ``Batch(32)`` is the number 32 typed as ``Batch``; arithmetic
types (``Add[A, B]``) exist so annotations evaluate at run time and ``@tt.checked`` can read them.
"""

from __future__ import annotations

import types
from typing import Any


class Dim(int):
    """Base of every named dimension. Subclass it directly (never another dim): two different
    named dims are never equal to a checker, even when their sizes agree."""

    def __new__(cls, size: int = 0) -> Dim:
        if cls is Dim:
            raise TypeError("Dim is abstract: subclass it (class Batch(Dim): ...) and call Batch(32)")
        value = int(size)
        if value < 0:
            raise ValueError(f"{cls.__name__}: a size cannot be negative, got {value}")
        return super().__new__(cls, value)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        parents = [b for b in cls.__bases__ if issubclass(b, Dim) and b is not Dim]
        if parents:
            raise TypeError(
                f"{cls.__name__} subclasses the dim {parents[0].__name__}: named dims must subclass "
                "Dim directly (a dim hierarchy would make different dims compatible)"
            )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"


class _DimArithmetic:
    """Base of ``Add``/``Sub``/``Mul``/``Div``: only their subscripted forms are meaningful."""

    arity = 2

    def __class_getitem__(cls, params: Any) -> types.GenericAlias:
        if not isinstance(params, tuple) or len(params) != cls.arity:
            raise TypeError(f"{cls.__name__}[...] takes {cls.arity} dims, got {params!r}")
        return types.GenericAlias(cls, params)


class Add(_DimArithmetic):
    """``Add[A, B]``: the dim ``A + B`` (e.g. the result of ``cat`` along that dim)."""


class Sub(_DimArithmetic):
    """``Sub[A, B]``: the dim ``A - B``."""


class Mul(_DimArithmetic):
    """``Mul[A, B]``: the dim ``A * B`` (e.g. heads times head size)."""


class Div(_DimArithmetic):
    """``Div[A, B]``: the dim ``A // B`` (exact where the op requires it)."""
