# torch.nn.modules.loss's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import BCELoss as BCELoss
from typedtensor.nn import BCEWithLogitsLoss as BCEWithLogitsLoss
from typedtensor.nn import CrossEntropyLoss as CrossEntropyLoss
from typedtensor.nn import L1Loss as L1Loss
from typedtensor.nn import MSELoss as MSELoss
from typedtensor.nn import NLLLoss as NLLLoss
