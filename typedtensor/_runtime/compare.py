"""Whole-tensor comparisons (torch.allclose / isclose / equal), written with tensor ops.

A module of its own because the runtime's namespace rebinds ``float``, ``int`` and ``bool`` to
dtypes (torch's names), which makes those words useless as annotations there.
"""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _loader

_C = _loader.load_core()


def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (infinities equal only to themselves)."""
    a = input if isinstance(input, _C.Tensor) else _C.tensor(input)
    b = other if isinstance(other, _C.Tensor) else _C.tensor(other)
    wide = _C.promote_types(a.dtype, b.dtype) == _C.float64
    fa, fb = a.to(_C.float64 if wide else _C.float32), b.to(_C.float64 if wide else _C.float32)
    # as torch: the tolerance applies to finite pairs only (|1 - inf| <= rtol * inf would hold)
    close = ((fa - fb).abs() <= atol + rtol * fb.abs()).logical_and(fa.isfinite()).logical_and(fb.isfinite())
    close = close.logical_or(fa == fb)
    if equal_nan:
        close = close.logical_or(fa.isnan().logical_and(fb.isnan()))
    return close


def allclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every element is close (see ``isclose``)."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


def equal(input: Any, other: Any) -> bool:
    """Same shape and the same values."""
    return tuple(input.shape) == tuple(other.shape) and bool((input == other).all().item())


def install(tensor_cls: Any) -> None:
    """``Tensor.allclose`` and ``Tensor.equal``: the functions with the tensor as ``input``."""
    tensor_cls.allclose = allclose
    tensor_cls.equal = equal
