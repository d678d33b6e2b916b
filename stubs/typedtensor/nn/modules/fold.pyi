# torch.nn.modules.fold's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import Fold as Fold
from typedtensor.nn import Unfold as Unfold
