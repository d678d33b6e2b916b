"""``Exponential``: waiting times of rate ``rate`` (``torch.distributions.Exponential``); ``rsample``
is ``exponential_()`` draws divided by the rate, as torch's."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.utils import broadcast_all

Tensor = Any

__all__ = ["Exponential"]


class Exponential(Distribution):
    """Non-negative draws with density ``rate * exp(-rate * x)``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if isinstance(rate, numbers.Number) else tuple(self.rate.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Exponential:
        new = self._get_checked_instance(Exponential, _instance)
        shape = _as_shape(batch_shape)
        new.rate = self.rate.expand(*shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        import typedtensor as tt

        return tt.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        import typedtensor as tt

        shape = self._extended_shape(sample_shape)
        draws = tt.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return draws / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()
