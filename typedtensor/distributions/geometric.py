"""``Geometric``: the number of failures before the first success of probability ``probs``
(``torch.distributions.Geometric``); draws are ``floor(log u / log1p(-p))``, as torch's."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.utils import _finfo, broadcast_all, lazy_property, logits_to_probs, probs_to_logits

Tensor = Any

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Draws in ``{0, 1, 2, ...}`` with mass ``(1 - p)^k p``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Tensor | float | None = None, logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            param = self.logits
        given = probs if probs is not None else logits
        batch_shape = () if isinstance(given, numbers.Number) else tuple(param.shape)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):  # torch: (0, 1]
            raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                             f"{tuple(self.probs.shape)}) of distribution {self!r} to satisfy the constraint "
                             f"Interval(lower_bound=0.0, upper_bound=1.0), but found invalid values:\n{self.probs}")

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Geometric:
        new = self._get_checked_instance(Geometric, _instance)
        shape = _as_shape(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(*shape)
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(*shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        import typedtensor as tt

        return tt.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        import typedtensor as tt

        shape = self._extended_shape(sample_shape)
        tiny = float(_finfo(self.probs.dtype).tiny)
        with tt.no_grad():
            u = tt.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = tt.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        import typedtensor as tt

        bce = tt.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
