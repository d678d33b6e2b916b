# torch.nn.modules.pooling's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import AdaptiveAvgPool2d as AdaptiveAvgPool2d
from typedtensor.nn import AvgPool2d as AvgPool2d
from typedtensor.nn import MaxPool2d as MaxPool2d
