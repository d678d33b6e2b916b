"""``kl_divergence(p, q)`` and ``register_kl`` (``torch.distributions.kl``).

The closed forms are torch's, registered per pair of types; a pair is looked up by the most
specific registered match over both types' classes (a tie between two different functions warns, as
torch's does). Where torch writes ``inf`` or ``0`` into a result in place (``t[q.probs == 0] =
inf``), this writes the same values with ``where``: the same numbers, and no in-place write into a
tensor autograd needs.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from functools import total_ordering
from typing import Any

from typedtensor.distributions.bernoulli import Bernoulli
from typedtensor.distributions.categorical import Categorical
from typedtensor.distributions.cauchy import Cauchy, Gumbel, HalfNormal
from typedtensor.distributions.dirichlet import Beta, Dirichlet
from typedtensor.distributions.distribution import Distribution
from typedtensor.distributions.exponential import Exponential
from typedtensor.distributions.gamma import Gamma
from typedtensor.distributions.geometric import Geometric
from typedtensor.distributions.independent import Independent
from typedtensor.distributions.laplace import Laplace
from typedtensor.distributions.normal import Normal
from typedtensor.distributions.one_hot_categorical import OneHotCategorical
from typedtensor.distributions.poisson import Binomial, Poisson
from typedtensor.distributions.transformed_distribution import TransformedDistribution
from typedtensor.distributions.uniform import Uniform
from typedtensor.distributions.utils import _sum_rightmost, euler_constant

Tensor = Any
_KLFunction = Callable[[Any, Any], Tensor]

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict[tuple[type, type], _KLFunction] = {}  # the registered pairs
_KL_MEMOIZE: dict[tuple[type, type], Any] = {}  # every pair looked up so far


def register_kl(type_p: type, type_q: type) -> Callable[[_KLFunction], _KLFunction]:
    """Register ``fun(p, q)`` as ``kl_divergence`` for ``p`` of ``type_p`` and ``q`` of ``type_q`` (or
    subclasses, when nothing more specific is registered)."""
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: _KLFunction) -> _KLFunction:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # the lookup order may have changed
        return fun

    return decorator


@total_ordering
class _Match:
    """A registered pair, ordered by specificity (the first type decides, then the second)."""

    __slots__ = ["types"]

    def __init__(self, *types: type) -> None:
        self.types = types

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Match) and self.types == other.types

    def __hash__(self) -> int:
        return hash(self.types)

    def __le__(self, other: _Match) -> bool:
        for x, y in zip(self.types, other.types, strict=True):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
            stacklevel=2,
        )
    return left_fun


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, batched over the distributions' batch shape; NotImplementedError for a pair
    with no registered form."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type {q.__class__.__name__}"
        )
    return fun(p, q)


def _infinite_like(tensor: Tensor) -> Tensor:
    import typedtensor as tt

    return tt.full_like(tensor, math.inf)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    import typedtensor as tt

    softplus = tt.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = tt.where(q.probs == 0, math.inf, t1)
    t1 = tt.where(p.probs == 0, 0.0, t1)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = tt.where(q.probs == 1, math.inf, t2)
    t2 = tt.where(p.probs == 1, 0.0, t2)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    import typedtensor as tt

    t = p.probs * (p.logits - q.logits)
    t = tt.where((q.probs == 0).expand_as(t), math.inf, t)
    t = tt.where((p.probs == 0).expand_as(t), 0.0, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    import typedtensor as tt

    result = ((q.high - q.low) / (p.high - p.low)).log()
    return tt.where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Normal, Uniform)
def _kl_normal_infinity(p: Normal, q: Uniform) -> Tensor:
    return _infinite_like(p.loc)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = common_term.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent[Any], q: Independent[Any]) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    import typedtensor as tt

    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = tt.lgamma(q.concentration) - tt.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * tt.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    import typedtensor as tt

    sum_params_p = p.concentration1 + p.concentration0
    sum_params_q = q.concentration1 + q.concentration0
    t1 = tt.lgamma(q.concentration1) + tt.lgamma(q.concentration0) + tt.lgamma(sum_params_p)
    t2 = tt.lgamma(p.concentration1) + tt.lgamma(p.concentration0) + tt.lgamma(sum_params_q)
    t3 = (p.concentration1 - q.concentration1) * tt.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * tt.digamma(p.concentration0)
    t5 = (sum_params_q - sum_params_p) * tt.digamma(sum_params_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    import typedtensor as tt

    sum_p_concentration = p.concentration.sum(-1)
    sum_q_concentration = q.concentration.sum(-1)
    t1 = tt.lgamma(sum_p_concentration) - tt.lgamma(sum_q_concentration)
    t2 = (tt.lgamma(p.concentration) - tt.lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = tt.digamma(p.concentration) - tt.digamma(sum_p_concentration).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    import typedtensor as tt

    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return tt.where(p.total_count > q.total_count, math.inf, kl)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    import typedtensor as tt

    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * euler_constant
    t3 = (ct2 + tt.lgamma(1 + ct1) - ct3).exp()
    return t1 + t2 + t3 - (1 + euler_constant)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    return 0.5 * (var_ratio - 1 - var_ratio.log())


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)
