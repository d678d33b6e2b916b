from . import constraints as constraints
from .bernoulli import Bernoulli as Bernoulli
from .categorical import Categorical as Categorical
from .distribution import Distribution as Distribution
from .independent import Independent as Independent
from .kl import kl_divergence as kl_divergence
from .kl import register_kl as register_kl
from .normal import Normal as Normal
from .one_hot_categorical import OneHotCategorical as OneHotCategorical
from .one_hot_categorical import OneHotCategoricalStraightThrough as OneHotCategoricalStraightThrough
from .uniform import Uniform as Uniform

__all__ = [
    "Bernoulli", "Categorical", "Distribution", "Independent", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Uniform", "constraints", "kl_divergence", "register_kl",
]
