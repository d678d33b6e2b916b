"""Probability distributions with torch's names and semantics (``torch.distributions``).

``from typedtensor.distributions import Categorical`` is what a policy-gradient program needs:
``log_prob``, ``entropy`` and ``rsample`` are written on typedtensor's tensor ops, so gradients flow
to the parameters; ``sample`` calls ``typedtensor.multinomial`` / ``normal`` / ``bernoulli`` /
``rand`` as torch's calls torch's. docs/distributions.md lists what is covered.
"""

from __future__ import annotations

from typedtensor.distributions import constraints
from typedtensor.distributions.bernoulli import Bernoulli
from typedtensor.distributions.categorical import Categorical
from typedtensor.distributions.distribution import Distribution
from typedtensor.distributions.independent import Independent
from typedtensor.distributions.kl import kl_divergence, register_kl
from typedtensor.distributions.normal import Normal
from typedtensor.distributions.one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from typedtensor.distributions.uniform import Uniform

__all__ = [
    "Bernoulli", "Categorical", "Distribution", "Independent", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Uniform", "constraints", "kl_divergence", "register_kl",
]
