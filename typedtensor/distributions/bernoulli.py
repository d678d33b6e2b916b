"""``Bernoulli``: ones with probability ``probs`` (or ``sigmoid(logits)``), else zeros
(``torch.distributions.Bernoulli``). ``sample`` is ``typedtensor.bernoulli`` of the expanded
probabilities, as torch's is; ``log_prob`` and ``entropy`` are torch's
``binary_cross_entropy_with_logits`` forms."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

Tensor = Any

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    """Draws in ``{0, 1}``: 1 with probability ``p``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Tensor | float | None = None, logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = () if is_scalar else tuple(self._param.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Bernoulli:
        new = self._get_checked_instance(Bernoulli, _instance)
        shape = _as_shape(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(*shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(*shape)
            new._param = new.logits
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        import typedtensor as tt

        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return tt.where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> tuple[int, ...]:
        return tuple(self._param.shape)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        import typedtensor as tt

        shape = self._extended_shape(sample_shape)
        with tt.no_grad():
            return tt.bernoulli(self.probs.expand(*shape))

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -tt.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        import typedtensor as tt

        return tt.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        import typedtensor as tt

        values = tt.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1, *self._batch_shape))
        return values
