# torch.nn.modules.pooling's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import AdaptiveAvgPool1d as AdaptiveAvgPool1d
from typedtensor.nn import AdaptiveAvgPool2d as AdaptiveAvgPool2d
from typedtensor.nn import AdaptiveAvgPool3d as AdaptiveAvgPool3d
from typedtensor.nn import AdaptiveMaxPool1d as AdaptiveMaxPool1d
from typedtensor.nn import AdaptiveMaxPool2d as AdaptiveMaxPool2d
from typedtensor.nn import AdaptiveMaxPool3d as AdaptiveMaxPool3d
from typedtensor.nn import AvgPool1d as AvgPool1d
from typedtensor.nn import AvgPool2d as AvgPool2d
from typedtensor.nn import AvgPool3d as AvgPool3d
from typedtensor.nn import MaxPool1d as MaxPool1d
from typedtensor.nn import MaxPool2d as MaxPool2d
from typedtensor.nn import MaxPool3d as MaxPool3d
