"""Probability distributions with torch's names and semantics (``torch.distributions``).

``from typedtensor.distributions import Categorical`` is what a policy-gradient program needs:
``log_prob``, ``entropy`` and ``rsample`` are written on typedtensor's tensor ops, so gradients flow
to the parameters; ``sample`` calls ``typedtensor.multinomial`` / ``normal`` / ``bernoulli`` /
``rand`` as torch's calls torch's. docs/distributions.md lists what is covered.
"""

from __future__ import annotations

from typedtensor.distributions import constraints, transforms
from typedtensor.distributions.bernoulli import Bernoulli
from typedtensor.distributions.categorical import Categorical
from typedtensor.distributions.cauchy import Cauchy, Gumbel, HalfNormal
from typedtensor.distributions.dirichlet import Beta, Dirichlet
from typedtensor.distributions.distribution import Distribution
from typedtensor.distributions.exponential import Exponential
from typedtensor.distributions.gamma import Chi2, Gamma
from typedtensor.distributions.geometric import Geometric
from typedtensor.distributions.independent import Independent
from typedtensor.distributions.kl import kl_divergence, register_kl
from typedtensor.distributions.laplace import Laplace
from typedtensor.distributions.normal import Normal
from typedtensor.distributions.one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from typedtensor.distributions.poisson import Binomial, Poisson
from typedtensor.distributions.student_t import StudentT
from typedtensor.distributions.transformed_distribution import LogNormal, TransformedDistribution
from typedtensor.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    SigmoidTransform,
    Transform,
)
from typedtensor.distributions.uniform import Uniform

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
    "ComposeTransform", "Dirichlet", "Distribution", "ExpTransform", "Exponential", "Gamma", "Geometric", "Gumbel",
    "HalfNormal", "Independent", "Laplace", "LogNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Poisson", "SigmoidTransform", "StudentT", "Transform",
    "TransformedDistribution", "Uniform", "constraints", "kl_divergence", "register_kl", "transforms",
]
