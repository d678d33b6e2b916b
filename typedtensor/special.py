"""``typedtensor.special``: torch.special's functions over typedtensor's ops.

Most are the top-level op under torch.special's name (``gammaln`` is ``lgamma``, ``expit`` is
``sigmoid``, ``psi`` is ``digamma``); the ones torch has only here (``erfcx``, ``ndtri``, ``i0e``,
``i1``, ``i1e``, ``zeta``) are the backend's own elementwise primitives (NOTE [ Special functions ] in
backend/include/typedtensor/special_math.h), and ``ndtr``, ``log_ndtr``, ``xlog1py`` and ``entr``
are written here with tensor ops, so they differentiate and run on every device. Like the
top-level ops, each keeps its input's shape (broadcast for the two-operand ones).
"""

from __future__ import annotations

import math
from typing import Any

from typedtensor._runtime import _loader

_C = _loader.load_core()

_INV_SQRT2 = 1 / math.sqrt(2)


def _floating(x: Any) -> Any:
    return x if x.is_floating_point() else x.to(_C.float32)


def _tt() -> Any:
    import typedtensor

    return typedtensor


def gammaln(input: Any) -> Any:
    """``log |Gamma(x)|``: ``lgamma``."""
    return _C.lgamma(input)


def digamma(input: Any) -> Any:
    """The logarithmic derivative of the gamma function (-inf at +0, NaN at the negative integers)."""
    return _C.digamma(input)


psi = digamma


def polygamma(n: int, input: Any) -> Any:
    """The ``n``-th derivative of digamma."""
    return _tt().polygamma(n, input)


def multigammaln(input: Any, p: int) -> Any:
    """The multivariate log-gamma function of dimension ``p``: ``mvlgamma``."""
    return _tt().mvlgamma(input, p)


def erf(input: Any) -> Any:
    return _C.erf(input)


def erfc(input: Any) -> Any:
    return _C.erfc(input)


def erfcx(input: Any) -> Any:
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    return _C.erfcx(input)


def erfinv(input: Any) -> Any:
    return _C.erfinv(input)


def expit(input: Any) -> Any:
    """The logistic sigmoid."""
    return _C.sigmoid(input)


def logit(input: Any, eps: float | None = None) -> Any:
    return _tt().logit(input, eps)


def exp2(input: Any) -> Any:
    return _C.exp2(input)


def expm1(input: Any) -> Any:
    return _C.expm1(input)


def log1p(input: Any) -> Any:
    return _C.log1p(input)


def ndtr(input: Any) -> Any:
    """The standard normal CDF, ``erfc(-x / sqrt(2)) / 2`` (accurate in both tails)."""
    return _C.erfc(_floating(input) * -_INV_SQRT2) * 0.5


def ndtri(input: Any) -> Any:
    """The inverse of the standard normal CDF."""
    return _C.ndtri(input)


def log_ndtr(input: Any) -> Any:
    """``log(ndtr(x))``: below -1 through erfcx (``log(erfcx(-t) / 2) - t^2``, ``t = x / sqrt(2)``),
    so the lower tail neither underflows nor loses digits; above, ``log1p(-erfc(t) / 2)``. Each
    branch sees a harmless stand-in where the other is taken, so neither's gradient turns NaN."""
    x = _floating(input)
    low = x < -1
    t_low = _C.where(low, x, _C.full_like(x, -1.0)) * _INV_SQRT2
    t_high = _C.where(low, _C.zeros_like(x), x) * _INV_SQRT2
    lower = (_C.erfcx(-t_low) * 0.5).log() - t_low * t_low
    upper = (_C.erfc(t_high) * -0.5).log1p()
    return _C.where(low, lower, upper)


def xlogy(input: Any, other: Any) -> Any:
    """``x * log(y)``, 0 where ``x == 0`` unless ``y`` is NaN."""
    return _tt().xlogy(input, other)


def xlog1py(input: Any, other: Any) -> Any:
    """``x * log1p(y)``, 0 where ``x == 0`` unless ``y`` is NaN."""
    common = _C.result_type(input, other)
    if not _C.tensor([], dtype=common).is_floating_point():
        common = _C.float32
    x = input.to(common) if isinstance(input, _C.Tensor) else _C.tensor(input, dtype=common)
    y = other.to(common) if isinstance(other, _C.Tensor) else _C.tensor(other, dtype=common)
    log1p_y = y.log1p()  # as xlogy: a 0 factor only where x == 0 meets an infinite log1p(y)
    zero = (x == 0).logical_and(log1p_y.isinf())
    return x * _C.where(zero, _C.zeros_like(log1p_y), log1p_y)


def entr(input: Any) -> Any:
    """The elementwise entropy ``-x log x``: 0 at 0, -inf below 0, NaN for NaN."""
    x = _floating(input)
    positive = x > 0
    safe = _C.where(positive, x, _C.ones_like(x))
    inner = -safe * safe.log()
    rest = _C.where(x == 0, _C.zeros_like(x), _C.where(x < 0, _C.full_like(x, -math.inf), x))
    return _C.where(positive, inner, rest)


def sinc(input: Any) -> Any:
    """The normalised sinc, ``sin(pi x) / (pi x)``."""
    return _tt().sinc(input)


def i0(input: Any) -> Any:
    """The modified Bessel function of the first kind, order 0."""
    return _C.i0(input)


def i0e(input: Any) -> Any:
    """``exp(-|x|) i0(x)``."""
    return _C.i0e(input)


def i1(input: Any) -> Any:
    """The modified Bessel function of the first kind, order 1."""
    return _C.i1(input)


def i1e(input: Any) -> Any:
    """``exp(-|x|) i1(x)``."""
    return _C.i1e(input)


def zeta(input: Any, other: Any) -> Any:
    """The Hurwitz zeta function ``sum_k (other + k)^-input``; either may be a number."""
    return _C.zeta(input, other)


# torch.special's names for top-level ops with the same signatures: typedtensor's own functions
_TOP_LEVEL = ("round", "softmax", "log_softmax", "logsumexp")


def __getattr__(name: str) -> Any:
    if name in _TOP_LEVEL:
        return getattr(_tt(), name)
    raise AttributeError(f"module 'typedtensor.special' has no attribute {name!r}")


__all__ = [
    "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i0e", "i1",
    "i1e", "log1p", "log_ndtr", "logit", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "sinc", "xlog1py",
    "xlogy", "zeta", *_TOP_LEVEL,
]
