# torch.nn.modules.normalization's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import LayerNorm as LayerNorm
