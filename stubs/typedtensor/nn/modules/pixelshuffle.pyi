# torch.nn.modules.pixelshuffle's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import PixelShuffle as PixelShuffle
from typedtensor.nn import PixelUnshuffle as PixelUnshuffle
