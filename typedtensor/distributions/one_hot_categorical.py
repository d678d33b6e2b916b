"""``OneHotCategorical``: a ``Categorical`` whose draws are one-hot vectors
(``torch.distributions.OneHotCategorical``), and ``OneHotCategoricalStraightThrough``, its
straight-through reparameterisation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.categorical import Categorical
from typedtensor.distributions.distribution import Distribution, _as_shape

Tensor = Any

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """One-hot vectors of size ``probs.size(-1)``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> OneHotCategorical:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        shape = _as_shape(batch_shape)
        new._categorical = self._categorical.expand(shape)
        Distribution.__init__(new, shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        import typedtensor as tt

        probs = self._categorical.probs
        mode = probs.argmax(dim=-1)
        return tt.nn.functional.one_hot(mode, num_classes=probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self) -> tuple[int, ...]:
        return self._categorical.param_shape

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        import typedtensor as tt

        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return tt.nn.functional.one_hot(indices, self._categorical._num_events).to(probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        import typedtensor as tt

        n = self.event_shape[0]
        values = tt.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n, *self.batch_shape, n))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``rsample`` is the one-hot draw plus ``probs - probs.detach()``: the value of a draw, the
    gradient of the probabilities (Bengio et al., 2013)."""

    has_rsample = True

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
