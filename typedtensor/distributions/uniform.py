"""``Uniform``: draws uniform on ``[low, high)`` (``torch.distributions.Uniform``); ``rsample`` is
``low + rand(shape) * (high - low)``, as torch's."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.utils import broadcast_all

Tensor = Any

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Real draws uniform on the half-open interval ``[low, high)``."""

    has_rsample = True

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low: Tensor | float, high: Tensor | float, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
            batch_shape: tuple[int, ...] = ()
        else:
            batch_shape = tuple(self.low.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Uniform:
        new = self._get_checked_instance(Uniform, _instance)
        shape = _as_shape(batch_shape)
        new.low = self.low.expand(*shape)
        new.high = self.high.expand(*shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return math.nan * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        import typedtensor as tt

        shape = self._extended_shape(sample_shape)
        rand = tt.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).to(self.low.dtype)
        ub = self.high.gt(value).to(self.low.dtype)
        return lb.mul(ub).log() - (self.high - self.low).log()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()
