"""``Dirichlet`` over the simplex of the last dimension and ``Beta`` over ``[0, 1]``
(``torch.distributions.Dirichlet``, ``Beta``; a Beta is the Dirichlet of its two concentrations,
as in torch). Draws are normalised gamma draws, reparameterised through the gamma draws'
``dx/da`` (gamma.py): an unbiased gradient like torch's, which differentiates the normalised draw
by its own formula (``_dirichlet_grad``), so single-draw gradients differ from torch's."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.gamma import _standard_gamma_rsample
from typedtensor.distributions.utils import _finfo, broadcast_all

Tensor = Any

__all__ = ["Beta", "Dirichlet"]


class Dirichlet(Distribution):
    """Draws on the simplex with density ``prod x_i^(a_i - 1) / B(a)``, ``a`` the concentration."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        shape = _as_shape(batch_shape)
        new.concentration = self.concentration.expand(*shape, *self.event_shape)
        Distribution.__init__(new, shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        draws = _standard_gamma_rsample(self.concentration.expand(*shape))
        value = draws / draws.sum(-1, keepdim=True)
        tiny = float(_finfo(value.dtype).tiny)
        return value + (value.detach().clamp(min=tiny, max=1 - tiny) - value.detach())

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        return (tt.xlogy(self.concentration - 1.0, value).sum(-1) + tt.lgamma(self.concentration.sum(-1))
                - tt.lgamma(self.concentration).sum(-1))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        """The maximum of the density; where every concentration is below 1, a vertex: torch's
        ``one_hot`` of the ``argmax`` of the (NaN) interior formula."""
        import typedtensor as tt

        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, keepdim=True)
        corner = tt.nn.functional.one_hot(mode.argmax(-1), self.concentration.shape[-1])
        below = (self.concentration < 1).all(-1, keepdim=True)
        return tt.where(below, corner.to(mode.dtype), mode)

    @property
    def variance(self) -> Tensor:
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> Tensor:
        import typedtensor as tt

        k = self.concentration.shape[-1]
        a0 = self.concentration.sum(-1)
        return (tt.lgamma(self.concentration).sum(-1) - tt.lgamma(a0) - (k - a0) * tt.digamma(a0)
                - ((self.concentration - 1.0) * tt.digamma(self.concentration)).sum(-1))


class Beta(Distribution):
    """Draws in ``[0, 1]`` with density ``x^(a-1) (1-x)^(b-1) / B(a, b)``: ``a`` is
    ``concentration1``, ``b`` ``concentration0``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Tensor | float, concentration0: Tensor | float,
                 validate_args: bool | None = None) -> None:
        import typedtensor as tt

        if isinstance(concentration1, numbers.Real) and isinstance(concentration0, numbers.Real):
            pair = tt.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            pair = tt.stack([c1, c0], -1)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Beta:
        new = self._get_checked_instance(Beta, _instance)
        shape = _as_shape(batch_shape)
        new._dirichlet = self._dirichlet.expand(shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        heads_tails = tt.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()
