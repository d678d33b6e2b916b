"""``Gamma`` of shape ``concentration`` and ``rate`` and ``Chi2`` (``torch.distributions.Gamma``,
``Chi2``). Draws come from ``_standard_gamma``: Marsaglia and Tsang's squeeze-and-reject method
(shape below 1 boosted by ``U^(1/shape)``). torch's ``rsample`` differentiates the draws through an
approximation of the gamma CDF's derivative in the shape (``_standard_gamma_grad``), which this
library lacks: ``has_rsample`` is False and ``rsample`` raises, as it does for torch's
distributions without one, while ``sample`` draws outside autograd."""

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


class Gamma(Distribution):
    """Non-negative draws with density ``rate^a x^(a-1) e^(-rate x) / Gamma(a)``, ``a`` the concentration."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = False

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

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        import typedtensor as tt

        shape = self._extended_shape(sample_shape)
        with tt.no_grad():
            value = _standard_gamma(self.concentration.expand(*shape)) / self.rate.expand(*shape)
            return value.clamp(min=float(_finfo(value.dtype).tiny))

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

