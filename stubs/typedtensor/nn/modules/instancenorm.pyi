# torch.nn.modules.instancenorm's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import InstanceNorm1d as InstanceNorm1d
from typedtensor.nn import InstanceNorm2d as InstanceNorm2d
from typedtensor.nn import InstanceNorm3d as InstanceNorm3d
