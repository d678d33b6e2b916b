"""``Poisson`` of rate ``rate`` and ``Binomial`` of ``total_count`` trials (``torch.distributions``).

typedtensor has no ``torch.poisson`` / ``torch.binomial`` kernels, so the draws are written here with
tensor ops, outside autograd: Poisson by counting uniform products below ``exp(-rate)`` for rates
under 10 and by Hörmann's transformed rejection (PTRS) above; Binomial as the sum of ``total_count``
Bernoulli draws (exact, at a cost linear in the largest count)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

from typedtensor.distributions import constraints
from typedtensor.distributions.distribution import Distribution, _as_shape
from typedtensor.distributions.utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

Tensor = Any

__all__ = ["Binomial", "Poisson"]


def _poisson_draws(rate: Tensor) -> Tensor:
    """Poisson(rate) draws of ``rate``'s shape (float, rate's dtype)."""
    import typedtensor as tt

    with tt.no_grad():
        lam = rate.detach()
        out = tt.zeros_like(lam)
        # small rates: the count of uniforms whose running product stays above exp(-rate)
        small = lam < 10
        if bool(small.any()):
            limit = (-tt.where(small, lam, tt.zeros_like(lam))).exp()
            prod = tt.ones_like(lam)
            active = small.clone()
            while bool(active.any()):
                prod = tt.where(active, prod * tt.rand_like(lam), prod)
                active = active & (prod > limit)
                out = out + active.to(lam.dtype)
        large = ~small & (lam == lam)
        if bool(large.any()):
            lam_l = tt.where(large, lam, tt.full_like(lam, 10.0))
            slam, loglam = lam_l.sqrt(), lam_l.log()
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            done = ~large
            while not bool(done.all()):
                u = tt.rand_like(lam) - 0.5
                v = tt.rand_like(lam)
                us = 0.5 - u.abs()
                k = ((2 * a / us + b) * u + lam_l + 0.43).floor()
                quick = (us >= 0.07) & (v <= vr)
                ok = (k >= 0) & ~((us < 0.013) & (v > us))
                log_lhs = v.log() + inv_alpha.log() - (a / (us * us) + b).log()
                log_rhs = -lam_l + k * loglam - tt.lgamma(tt.where(k >= 0, k, tt.zeros_like(k)) + 1)
                accept = (quick | (ok & (log_lhs <= log_rhs))) & ~done
                out = tt.where(accept, k, out)
                done = done | accept
        return tt.where(lam == lam, out, lam)


class Poisson(Distribution):
    """Counts with mass ``rate^k e^(-rate) / k!``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if isinstance(rate, numbers.Number) else tuple(self.rate.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Poisson:
        new = self._get_checked_instance(Poisson, _instance)
        shape = _as_shape(batch_shape)
        new.rate = self.rate.expand(*shape)
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return _poisson_draws(self.rate.expand(*shape).contiguous())

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return tt.xlogy(value, rate) - rate - tt.lgamma(value + 1)


def _clamp_by_zero(x: Tensor) -> Tensor:
    """``max(x, 0)`` whose gradient at 0 is 1/2, as torch's."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """Counts of successes in ``total_count`` trials of probability ``probs``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
        "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Tensor | int = 1, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
            param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
            param = self.logits
        self._param = param
        super().__init__(tuple(param.shape), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> Binomial:
        new = self._get_checked_instance(Binomial, _instance)
        shape = _as_shape(batch_shape)
        new.total_count = self.total_count.expand(*shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(*shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(*shape)
            new._param = new.logits
        Distribution.__init__(new, shape, validate_args=False)
        new._validate_args = self._validate_args
        return new  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

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
            n = self.total_count.expand(*shape)
            p = self.probs.expand(*shape)
            count = tt.zeros(shape, dtype=p.dtype, device=p.device)
            trials = int(n.max().item()) if n.numel() else 0
            for i in range(trials):
                count = count + ((tt.rand_like(p) < p) & (n > i)).to(p.dtype)
            return count

    def log_prob(self, value: Tensor) -> Tensor:
        import typedtensor as tt

        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = tt.lgamma(self.total_count + 1)
        log_factorial_k = tt.lgamma(value + 1)
        log_factorial_nmk = tt.lgamma(self.total_count - value + 1)
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * (-self.logits.abs()).exp().log1p() - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self) -> Tensor:
        total_count = int(self.total_count.max().item())
        if not self.total_count.min().item() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        import typedtensor as tt

        total_count = int(self.total_count.max().item())
        if not self.total_count.min().item() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = tt.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1, *self._batch_shape))
        return values

