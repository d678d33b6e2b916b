# torch.nn.modules.flatten's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import Flatten as Flatten
