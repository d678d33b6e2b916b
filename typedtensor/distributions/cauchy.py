"""``Cauchy``, ``Gumbel`` and ``HalfNormal`` (``torch.distributions``): location-scale families with
closed-form CDFs, each ``rsample`` the inverse CDF (or, for HalfNormal, ``|Normal|``) of uniform or
normal draws, so the draws differentiate in the parameters. torch builds Gumbel and HalfNormal as
``TransformedDistribution``s; they are written out here, with torch's values."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.utils import _finfo, _standard_normal, broadcast_all, euler_constant

Tensor = Any

__all__ = ["Cauchy", "Gumbel", "HalfNormal"]


class _LocScale(Distribution):
    """The shared constructor and ``expand`` of ``loc``/``scale`` families."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape: tuple[int, ...] = ()
        else:
            batch_shape = tuple(self.loc.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Any:
        new = self._get_checked_instance(type(self), _instance)
        shape = _as_shape(batch_shape)
        new.loc = self.loc.expand(*shape)
        new.scale = self.scale.expand(*shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _uniform(self, sample_shape: Sequence[int]) -> Tensor:
        import typedtensor as tt

        return tt.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)


class Cauchy(_LocScale):
    """Real draws with density ``1 / (pi scale (1 + ((x - loc) / scale)^2))``: no mean, no variance."""

    @property
    def mean(self) -> Tensor:
        import typedtensor as tt

        return tt.full(self._extended_shape(), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        import typedtensor as tt

        return tt.full(self._extended_shape(), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        eps = (math.pi * (self._uniform(sample_shape) - 0.5)).tan()
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()


class Gumbel(_LocScale):
    """Real draws with CDF ``exp(-exp(-(x - loc) / scale))``: the maximum of many draws."""

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        info = _finfo(self.loc.dtype)
        u = self._uniform(sample_shape).clamp(min=float(info.tiny), max=1 - float(info.eps))
        return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value: Tensor) -> Tensor:
        return self.loc - self.scale * (-value.log()).log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * euler_constant

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + euler_constant)


class HalfNormal(Distribution):
    """``|x|`` for ``x`` from ``Normal(0, scale)``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Tensor | float, validate_args: bool | None = None) -> None:
        (self.scale,) = broadcast_all(scale)
        batch_shape = () if isinstance(scale, numbers.Number) else tuple(self.scale.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> HalfNormal:
        new = self._get_checked_instance(HalfNormal, _instance)
        shape = _as_shape(batch_shape)
        new.scale = self.scale.expand(*shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> Tensor:
        import typedtensor as tt

        return tt.zeros_like(self.scale)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return (_standard_normal(shape, dtype=self.scale.dtype, device=self.scale.device) * self.scale).abs()

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        normal = -(value**2) / (2 * self.scale**2) - self.scale.log() - math.log(math.sqrt(2 * math.pi))
        log_prob = normal + math.log(2)
        return tt.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * (0.5 * (1 + (value / (self.scale * math.sqrt(2))).erf())) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.scale * prob.erfinv() * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 * math.log(math.pi / 2) + self.scale.log() + 0.5
