"""``Categorical``: one of ``K`` categories, by probabilities or logits (``torch.distributions.Categorical``).

``probs`` are normalised to sum to one over the last dimension (``probs / probs.sum(-1)``), logits
to ``logits - logits.logsumexp(-1)``, as torch stores them. ``sample`` draws with
``typedtensor.multinomial`` (with replacement, one column per draw, transposed) exactly as torch
calls ``torch.multinomial``, so a program whose ``multinomial`` is replaced sees the same call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape, _numel
from typedtensor.distributions.utils import _finfo, lazy_property, logits_to_probs, probs_to_logits

Tensor = Any

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Integers in ``{0, ..., K-1}``, ``K = probs.size(-1)``; leading dimensions batch."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            assert logits is not None
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = int(self._param.shape[-1])
        batch_shape = tuple(self._param.shape[:-1]) if self._param.dim() > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Categorical:
        new = self._get_checked_instance(Categorical, _instance)
        shape = _as_shape(batch_shape)
        param_shape = (*shape, self._num_events)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(*param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(*param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> tuple[int, ...]:
        return tuple(self._param.shape)

    @property
    def mean(self) -> Tensor:
        import typedtensor as tt

        return tt.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        import typedtensor as tt

        return tt.full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        import typedtensor as tt

        shape = _as_shape(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = tt.multinomial(probs_2d, _numel(shape), True).T
        return samples_2d.reshape(self._extended_shape(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = tt.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> Tensor:
        min_real = float(_finfo(self.logits.dtype).min)
        logits = self.logits.clamp(min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        import typedtensor as tt

        values = tt.arange(self._num_events, dtype=tt.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1, *self._batch_shape))
        return values
