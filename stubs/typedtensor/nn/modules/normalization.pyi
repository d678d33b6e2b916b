# torch.nn.modules.normalization's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import GroupNorm as GroupNorm
from typedtensor.nn import LayerNorm as LayerNorm
from typedtensor.nn import LocalResponseNorm as LocalResponseNorm
from typedtensor.nn import RMSNorm as RMSNorm
