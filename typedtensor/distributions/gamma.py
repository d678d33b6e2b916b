"""``Gamma`` of shape ``concentration`` and ``rate`` and ``Chi2`` (``torch.distributions.Gamma``,
``Chi2``). Draws come from ``_standard_gamma``: Marsaglia and Tsang's squeeze-and-reject method
(shape below 1 boosted by ``U^(1/shape)``). ``rsample`` differentiates a draw in the shape by
implicit reparameterisation, as torch does: the draw moves with the shape at a fixed CDF value,
``dx/da = -(dP(a, x)/da) / p(x; a)`` (``_standard_gamma_grad``; torch approximates the same
derivative with fitted formulas, this computes it from the incomplete gamma function)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.utils import _finfo, broadcast_all

Tensor = Any

__all__ = ["Chi2", "Gamma"]


def _standard_gamma(concentration: Tensor) -> Tensor:
    """Gamma(concentration, 1) draws of ``concentration``'s shape, outside autograd: with
    ``d = a - 1/3`` and ``c = 1 / sqrt(9 d)``, ``d v`` for ``v = (1 + c x)^3``, ``x`` standard normal,
    accepted when ``log u < x^2 / 2 + d - d v + d log v`` (every element redrawn until accepted); a
    shape ``a < 1`` draws with ``a + 1`` and scales by ``u^(1/a)`` (in logs, so tiny shapes do not
    underflow to 0 before the clamp to the dtype's smallest normal number, as torch clamps)."""
    import typedtensor as tt

    with tt.no_grad():
        a = concentration.detach()
        boost = a < 1
        d = tt.where(boost, a + 1, a) - 1.0 / 3
        c = (9 * d).rsqrt()
        out = tt.zeros_like(a)
        done = tt.zeros_like(a, dtype=tt.bool)
        while not bool(done.all()):
            x = tt.randn_like(a)
            v = (1 + c * x) ** 3
            u = tt.rand_like(a)
            positive = v > 0
            log_v = tt.where(positive, v, tt.ones_like(v)).log()
            accept = positive & (u.log() < 0.5 * x * x + d - d * v + d * log_v) & ~done
            out = tt.where(accept, d * v, out)
            done = done | accept
        u = tt.rand_like(a)
        scale = tt.where(boost, (u.log() / a).exp(), tt.ones_like(a))
        tiny = float(_finfo(a.dtype).tiny)
        return (out * scale).clamp(min=tiny)


def _gamma_cdf_parts(a: Tensor, x: Tensor, series: Tensor) -> Tensor:
    """The regularised incomplete gamma function where ``series`` (``x < a + 1``: P(a, x) by its
    power series) and minus its complement elsewhere (-Q(a, x) by the continued fraction), so each
    side is computed without cancellation and its derivative in ``a`` is P's. float64 tensors."""
    import typedtensor as tt

    tiny = 1e-300
    positive = x > 0
    xs = tt.where(series & positive, x, tt.ones_like(x))  # a finite stand-in where the series is not taken
    term = tt.ones_like(x)
    total = tt.ones_like(x)
    ap = a
    for _ in range(2000):
        ap = ap + 1
        term = term * xs / ap
        total = total + term
        if bool((term <= total * 1e-17).all()):
            break
    p = tt.where(positive, total * (a * xs.log() - xs - tt.lgamma(a + 1)).exp(), tt.zeros_like(x))
    xc = tt.where(series, a + 2, x)  # a stand-in where the series is taken
    b = xc + 1 - a
    c = tt.full_like(x, 1 / tiny)
    d = 1 / b
    h = d
    for i in range(1, 2000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = tt.where(d.abs() < tiny, tt.full_like(d, tiny), d)
        c = b + an / c
        c = tt.where(c.abs() < tiny, tt.full_like(c, tiny), c)
        d = 1 / d
        delta = d * c
        h = h * delta
        if bool(((delta - 1).abs() < 1e-16).all()):
            break
    q = (-xc + a * xc.log() - tt.lgamma(a)).exp() * h
    return tt.where(series, p, -q)


def _standard_gamma_grad(concentration: Tensor, x: Tensor) -> Tensor:
    """``dx/da`` of a Gamma(a, 1) draw ``x`` held at a fixed CDF value (implicit reparameterisation):
    ``-(dP(a, x)/da) / p(x; a)``, the derivative by a central difference in float64 (relative step
    1e-5: about 1e-9 relative error, well inside the float32 draws' own). torch's
    ``_standard_gamma_grad`` approximates the same quantity."""
    import typedtensor as tt

    with tt.no_grad():
        a = concentration.detach().to(tt.float64)
        xd = x.detach().to(tt.float64)
        series = xd < a + 1
        step = a * 1e-5
        dp = (_gamma_cdf_parts(a + step, xd, series) - _gamma_cdf_parts(a - step, xd, series)) / (2 * step)
        density = ((a - 1) * xd.log() - xd - tt.lgamma(a)).exp()
        return (-dp / density).to(x.dtype)


def _standard_gamma_rsample(concentration: Tensor) -> Tensor:
    """Gamma(concentration, 1) draws whose gradient in ``concentration`` is ``_standard_gamma_grad``:
    the draw plus ``(a - a.detach()) * dx/da``, the value unchanged."""
    import typedtensor as tt

    x = _standard_gamma(concentration)
    if not concentration.requires_grad or not tt.is_grad_enabled():
        return x
    return x + (concentration - concentration.detach()) * _standard_gamma_grad(concentration, x)


class Gamma(Distribution):
    """Non-negative draws with density ``rate^a x^(a-1) e^(-rate x) / Gamma(a)``, ``a`` the concentration."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Tensor | float, rate: Tensor | float, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number):
            batch_shape: tuple[int, ...] = ()
        else:
            batch_shape = tuple(self.concentration.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Gamma:
        new = self._get_checked_instance(Gamma, _instance)
        shape = _as_shape(batch_shape)
        new.concentration = self.concentration.expand(*shape)
        new.rate = self.rate.expand(*shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma_rsample(self.concentration.expand(*shape)) / self.rate.expand(*shape)
        floor = value.detach().clamp(min=float(_finfo(value.dtype).tiny))
        return value + (floor - value.detach())  # clamped as torch's, the gradient untouched

    def cdf(self, value: Tensor) -> Tensor:
        """The regularised lower incomplete gamma function ``P(concentration, rate * value)``
        (torch's ``special.gammainc``), differentiable in ``value`` and ``rate``."""
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        x = self.rate * value
        a = self.concentration.expand_as(x) if x.dim() >= self.concentration.dim() else self.concentration
        a, x = tt.broadcast_tensors(a, x)
        a64, x64 = a.to(tt.float64), x.to(tt.float64)  # the continued fraction's guards need float64's range
        series = x64 < a64 + 1
        parts = _gamma_cdf_parts(a64, x64, series)
        return tt.where(series, parts, 1 + parts).to(x.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        value = value if isinstance(value, tt.Tensor) else tt.tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (tt.xlogy(self.concentration, self.rate) + tt.xlogy(self.concentration - 1, value)
                - self.rate * value - tt.lgamma(self.concentration))

    def entropy(self) -> Tensor:
        import typedtensor as tt

        return (self.concentration - self.rate.log() + tt.lgamma(self.concentration)
                + (1.0 - self.concentration) * tt.digamma(self.concentration))


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"df": constraints.positive}

    def __init__(self, df: Tensor | float, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)  # type: ignore[return-value]

    @property
    def df(self) -> Tensor:
        return self.concentration * 2

