# torch.nn.modules.upsampling's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import Upsample as Upsample
from typedtensor.nn import UpsamplingBilinear2d as UpsamplingBilinear2d
from typedtensor.nn import UpsamplingNearest2d as UpsamplingNearest2d
