"""``StudentT`` with ``df`` degrees of freedom, location ``loc`` and scale ``scale``
(``torch.distributions.StudentT``). Draws are ``loc + scale * x / sqrt(chi2 / df)`` as torch's,
reparameterised through the normal and the chi-squared (gamma) draws."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.gamma import Chi2
from typedtensor.distributions.utils import _standard_normal, broadcast_all

Tensor = Any

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Real draws with density proportional to ``(1 + ((x - loc) / scale)^2 / df)^(-(df + 1) / 2)``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Tensor | float, loc: Tensor | float = 0.0, scale: Tensor | float = 1.0,
                 validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        if all(isinstance(v, numbers.Number) for v in (df, loc, scale)):
            batch_shape: tuple[int, ...] = ()
        else:
            batch_shape = tuple(self.df.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> StudentT:
        new = self._get_checked_instance(StudentT, _instance)
        shape = _as_shape(batch_shape)
        new.df = self.df.expand(*shape)
        new.loc = self.loc.expand(*shape)
        new.scale = self.scale.expand(*shape)
        new._chi2 = self._chi2.expand(shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        import typedtensor as tt

        return tt.where(self.df > 1, self.loc, math.nan)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        import typedtensor as tt

        var = self.scale.pow(2) * self.df / (self.df - 2)
        var = tt.where(self.df > 2, var, math.inf)
        return tt.where(self.df > 1, var, math.nan)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        y = x * (z / self.df).rsqrt()
        return self.loc + self.scale * y

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + tt.lgamma(0.5 * self.df)
             - tt.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * (y**2 / self.df).log1p() - z

    def entropy(self) -> Tensor:
        import typedtensor as tt

        lbeta = tt.lgamma(0.5 * self.df) + math.lgamma(0.5) - tt.lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (tt.digamma(0.5 * (self.df + 1)) - tt.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
