"""The gamma-function family and the small elementwise ops torch defines over other ops (their entries:
``shapes/rules/elementwise.py``): ``polygamma`` (digamma, trigamma or a scaled Hurwitz zeta),
``mvlgamma``, ``sinc``, ``deg2rad`` / ``rad2deg``, ``signbit``, ``logaddexp2``, ``heaviside`` and
``float_power``. Each is written with tensor ops, so autograd and every device see primitives.
"""

from __future__ import annotations

import math
from typing import Any

from typedtensor._runtime import _loader
from typedtensor._runtime.errors import check

_C = _loader.load_core()


def _floating(x: Any) -> Any:
    """``x`` as torch computes a float op on it: integer and bool tensors in float32 (the default float)."""
    return x if x.is_floating_point() else x.to(_C.float32)


def polygamma(n: Any, input: Any) -> Any:
    """The ``n``-th derivative of digamma: ``digamma`` for 0, the ``trigamma`` primitive for 1,
    ``(-1)^(n+1) n! zeta(n + 1, x)`` above (torch's formula; its gradient is ``polygamma(n + 1)``
    through zeta's)."""
    check("polygamma", n=n, input=input)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return _C.digamma(input)
    if n == 1:
        return _C.trigamma(input)
    scale = math.exp(math.lgamma(n + 1.0)) * (1.0 if n % 2 else -1.0)
    return _C.zeta(float(n + 1), _floating(input)) * scale


def _polygamma_method(self: Any, n: int) -> Any:
    """``Tensor.polygamma(n)``."""
    return polygamma(n, self)


def polygamma_(self: Any, n: int) -> Any:
    """In-place ``polygamma``: the result written into ``self``."""
    return self.copy_(polygamma(n, self))


def mvlgamma(input: Any, p: int) -> Any:
    """The multivariate log-gamma function of dimension ``p``:
    ``sum_(j<p) lgamma(x - j/2) + p (p - 1) / 4 log(pi)``; every element must exceed ``(p - 1) / 2``."""
    check("mvlgamma", input=input, p=p)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _floating(input)
    if x.numel() and not bool((x > (p - 1) / 2).all().item()):
        raise RuntimeError(f"All elements must be greater than (p-1)/2 = {(p - 1) / 2}")
    offsets = _C.arange(-p / 2 + 0.5, 0.5, 0.5, dtype=x.dtype, device=x.device)  # torch's order: -(p-1)/2 .. 0
    return (x.unsqueeze(-1) + offsets).lgamma().sum(-1) + p * (p - 1) * math.log(math.pi) / 4


def sinc(input: Any) -> Any:
    """``sin(pi x) / (pi x)``, 1 at 0 (its gradient there 0: the quotient sees 1 in place of 0)."""
    check("sinc", input=input)
    x = _floating(input)
    zero = x == 0
    safe = _C.where(zero, _C.ones_like(x), x)
    product = safe * math.pi
    return _C.where(zero, _C.ones_like(x), product.sin() / product)


def deg2rad(input: Any) -> Any:
    """Degrees to radians: ``x * (pi / 180)``."""
    check("deg2rad", input=input)
    return _floating(input) * (math.pi / 180)


def rad2deg(input: Any) -> Any:
    """Radians to degrees: ``x * (180 / pi)``."""
    check("rad2deg", input=input)
    return _floating(input) * (180 / math.pi)


def signbit(input: Any) -> Any:
    """Whether the sign bit is set: true for -0.0 and a negative NaN as well as for negatives."""
    check("signbit", input=input)
    if not input.is_floating_point():
        return input < 0
    return _C.copysign(_C.ones_like(input), input) < 0


def logaddexp2(input: Any, other: Any) -> Any:
    """``log2(2^input + 2^other)`` without overflow: the larger plus ``log2(1 + 2^-|difference|)``
    (equal operands, infinite ones included, give the larger plus 1)."""
    for position, (name, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, _C.Tensor):
            raise TypeError(f"logaddexp2(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")
    check("logaddexp2", input=input, other=other)
    if not input.is_floating_point() or not other.is_floating_point():
        raise TypeError(f"logaddexp2: expected floating point tensors, got {input.dtype} and {other.dtype}")
    hi, lo = _C.maximum(input, other), _C.minimum(input, other)
    gap = _C.where(hi == lo, _C.zeros_like(hi), lo - hi)
    return hi + gap.exp2().log1p() * (1 / math.log(2))


def heaviside(input: Any, values: Any) -> Any:
    """The step function: ``values`` where ``input`` is 0, else 1 above 0 and 0 below (and for NaN,
    as torch). As torch, both tensors have one dtype, and the result carries no gradient."""
    check("heaviside", input=input, values=values)
    if not isinstance(values, _C.Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    x, v = input.detach(), values.detach()
    return _C.where(x == 0, v, (x > 0).to(x.dtype))


def float_power(input: Any, exponent: Any) -> Any:
    """``input ** exponent`` computed in float64 (both operands converted first)."""
    check("float_power", input=input, exponent=exponent)
    if not isinstance(input, _C.Tensor):
        return _C.tensor(float(input), dtype=_C.float64) ** exponent.to(_C.float64)
    base = input.to(_C.float64)
    power = exponent.to(_C.float64) if isinstance(exponent, _C.Tensor) else float(exponent)
    return base**power


def float_power_(self: Any, exponent: Any) -> Any:
    """In-place ``float_power``: only a float64 tensor can hold the result, as in torch."""
    if self.dtype != _C.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype} but the operation's result "
                           "requires dtype torch.float64")
    return self.copy_(float_power(self, exponent))


__all__ = ["_polygamma_method", "deg2rad", "float_power", "float_power_", "heaviside", "logaddexp2", "mvlgamma", "polygamma",
           "polygamma_", "rad2deg", "signbit", "sinc"]
