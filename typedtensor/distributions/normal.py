"""``Normal``: the Gaussian of mean ``loc`` and standard deviation ``scale``
(``torch.distributions.Normal``). ``sample`` is ``typedtensor.normal`` of the expanded parameters
and ``rsample`` is ``loc + eps * scale`` with ``eps`` from ``empty(shape).normal_()``, as in torch."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.utils import _standard_normal, broadcast_all

Tensor = Any

__all__ = ["Normal"]


class Normal(Distribution):
    """Real draws with density ``exp(-(x - loc)^2 / (2 scale^2)) / (scale sqrt(2 pi))``."""

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

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Normal:
        new = self._get_checked_instance(Normal, _instance)
        shape = _as_shape(batch_shape)
        new.loc = self.loc.expand(*shape)
        new.scale = self.scale.expand(*shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        import typedtensor as tt

        shape = self._extended_shape(sample_shape)
        with tt.no_grad():
            return tt.normal(self.loc.expand(*shape), self.scale.expand(*shape))

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value: Tensor) -> Tensor:
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
