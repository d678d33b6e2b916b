"""The part of ``torchvision.ops`` the ported classification models import: ``misc.py`` and
``stochastic_depth.py`` are torchvision's files, ported like the programs."""

from .misc import MLP, Conv2dNormActivation, Conv3dNormActivation, FrozenBatchNorm2d, Permute, SqueezeExcitation
from .stochastic_depth import StochasticDepth, stochastic_depth

__all__ = [
    "MLP", "Conv2dNormActivation", "Conv3dNormActivation", "FrozenBatchNorm2d", "Permute", "SqueezeExcitation",
    "StochasticDepth", "stochastic_depth",
]
