# torch.nn.modules.conv's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import Conv1d as Conv1d
from typedtensor.nn import Conv2d as Conv2d
from typedtensor.nn import Conv3d as Conv3d
from typedtensor.nn import ConvTranspose1d as ConvTranspose1d
from typedtensor.nn import ConvTranspose2d as ConvTranspose2d
