# torch.nn.modules.dropout's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import Dropout as Dropout
from typedtensor.nn import Dropout1d as Dropout1d
from typedtensor.nn import Dropout2d as Dropout2d
from typedtensor.nn import Dropout3d as Dropout3d
