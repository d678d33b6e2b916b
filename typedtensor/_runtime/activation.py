"""``nn.functional``'s activations written over other ops: ``celu``, ``selu``, ``hardshrink``,
``softshrink``, ``tanhshrink``, ``threshold``, ``rrelu``, ``glu``, ``softmin``, ``prelu``; and the
``inplace`` forms torch's signatures have for ``mish``, ``relu6``, ``hardsigmoid``, ``hardswish``."""

from __future__ import annotations

from typing import Any

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()

__all__ = [
    "celu", "glu", "hardshrink", "hardsigmoid", "hardswish", "mish", "prelu", "relu6", "rrelu", "selu",
    "softmin", "softshrink", "tanhshrink", "threshold",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _inplace(input: Any, fn: Any, inplace: bool) -> Any:
    from typedtensor._runtime.functional import _inplace as apply

    return apply(input, fn, inplace)


def mish(input: Any, inplace: bool = False) -> Any:
    return _inplace(input, _C.mish, inplace)


def relu6(input: Any, inplace: bool = False) -> Any:
    return _inplace(input, _C.relu6, inplace)


def hardsigmoid(input: Any, inplace: bool = False) -> Any:
    return _inplace(input, _C.hardsigmoid, inplace)


def hardswish(input: Any, inplace: bool = False) -> Any:
    return _inplace(input, _C.hardswish, inplace)


def celu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``, which is ``alpha elu(x / alpha)``."""
    if alpha == 0:
        raise ValueError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _inplace(input, lambda x: _C.elu(x / alpha, 1.0) * alpha, inplace)


def selu(input: Any, inplace: bool = False) -> Any:
    """``scale (max(0, x) + min(0, alpha (exp(x) - 1)))`` with SELU's fixed constants."""
    return _inplace(input, lambda x: _C.elu(x, _SELU_ALPHA) * _SELU_SCALE, inplace)


def hardshrink(input: Any, lambd: float = 0.5) -> Any:
    """``x`` where ``|x| > lambd``, else 0."""
    return _C.where(input.abs() > lambd, input, 0.0)


def softshrink(input: Any, lambd: float = 0.5) -> Any:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    if lambd < 0:
        raise ValueError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _C.where(input > lambd, input - lambd, _C.where(input < -lambd, input + lambd, 0.0))


def tanhshrink(input: Any) -> Any:
    return input - input.tanh()


def threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Any:
    """``x`` where ``x > threshold``, else ``value``."""
    return _inplace(input, lambda x: _C.where(x > threshold, x, value), inplace)


def rrelu(input: Any, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Any:
    """Leaky ReLU whose negative slope is drawn from ``U(lower, upper)`` per element in training and
    is their mean otherwise."""
    if not training:
        return _inplace(input, lambda x: _C.leaky_relu(x, (lower + upper) / 2), inplace)
    slope = _C.rand(*input.shape, dtype=input.dtype, device=input.device) * (upper - lower) + lower
    return _inplace(input, lambda x: _C.where(x > 0, x, x * slope), inplace)


def glu(input: Any, dim: int = -1) -> Any:
    """``a * sigmoid(b)`` for the halves ``a``, ``b`` of ``dim``."""
    check("glu", input=input, dim=dim)
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def softmin(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Any:
    check("softmin", input=input, dim=dim)
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    x = -input if dtype is None else (-input).to(dtype)
    return _C.softmax(x, dim)


def prelu(input: Any, weight: Any) -> Any:
    """``max(0, x) + weight min(0, x)``, one slope or one per channel (dim 1)."""
    check("prelu", input=input, weight=weight)
    w = weight
    if weight.numel() != 1 and input.ndim >= 2:
        w = weight.reshape([1, -1] + [1] * (input.ndim - 2))
    elif weight.numel() == 1:
        w = weight.reshape([])
    return _C.where(input > 0, input, input * w)
