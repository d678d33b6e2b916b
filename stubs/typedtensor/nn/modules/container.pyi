# torch.nn.modules.container's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import ModuleDict as ModuleDict
from typedtensor.nn import ModuleList as ModuleList
from typedtensor.nn import Sequential as Sequential
