# torch.nn.modules.batchnorm's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import BatchNorm1d as BatchNorm1d
from typedtensor.nn import BatchNorm2d as BatchNorm2d
from typedtensor.nn import BatchNorm3d as BatchNorm3d
