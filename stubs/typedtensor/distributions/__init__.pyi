from . import constraints as constraints
from . import transforms as transforms
from .bernoulli import Bernoulli as Bernoulli
from .categorical import Categorical as Categorical
from .cauchy import Cauchy as Cauchy
from .cauchy import Gumbel as Gumbel
from .cauchy import HalfNormal as HalfNormal
from .dirichlet import Beta as Beta
from .dirichlet import Dirichlet as Dirichlet
from .distribution import Distribution as Distribution
from .exponential import Exponential as Exponential
from .gamma import Chi2 as Chi2
from .gamma import Gamma as Gamma
from .geometric import Geometric as Geometric
from .independent import Independent as Independent
from .kl import kl_divergence as kl_divergence
from .kl import register_kl as register_kl
from .laplace import Laplace as Laplace
from .normal import Normal as Normal
from .one_hot_categorical import OneHotCategorical as OneHotCategorical
from .one_hot_categorical import OneHotCategoricalStraightThrough as OneHotCategoricalStraightThrough
from .poisson import Binomial as Binomial
from .poisson import Poisson as Poisson
from .student_t import StudentT as StudentT
from .transformed_distribution import LogNormal as LogNormal
from .transformed_distribution import TransformedDistribution as TransformedDistribution
from .transforms import AbsTransform as AbsTransform
from .transforms import AffineTransform as AffineTransform
from .transforms import ComposeTransform as ComposeTransform
from .transforms import ExpTransform as ExpTransform
from .transforms import SigmoidTransform as SigmoidTransform
from .transforms import Transform as Transform
from .uniform import Uniform as Uniform

__all__ = [
    "AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
    "ComposeTransform", "Dirichlet", "Distribution", "ExpTransform", "Exponential", "Gamma", "Geometric", "Gumbel",
    "HalfNormal", "Independent", "Laplace", "LogNormal", "Normal", "OneHotCategorical",
    "OneHotCategoricalStraightThrough", "Poisson", "SigmoidTransform", "StudentT", "Transform",
    "TransformedDistribution", "Uniform", "constraints", "kl_divergence", "register_kl", "transforms",
]
