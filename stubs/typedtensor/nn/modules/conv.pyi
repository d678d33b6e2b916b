# torch.nn.modules.conv's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import Conv2d as Conv2d
