# torch.nn.modules.module's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import Module as Module
