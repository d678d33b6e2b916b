"""torchvision's ResNet models (``resnet.py`` is torchvision's file, ported like the programs)."""

from .resnet import *  # noqa: F403
