# torch.nn.modules.activation's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import GELU as GELU
from typedtensor.nn import LeakyReLU as LeakyReLU
from typedtensor.nn import LogSoftmax as LogSoftmax
from typedtensor.nn import MultiheadAttention as MultiheadAttention
from typedtensor.nn import ReLU as ReLU
from typedtensor.nn import Sigmoid as Sigmoid
from typedtensor.nn import SiLU as SiLU
from typedtensor.nn import Softmax as Softmax
from typedtensor.nn import Softplus as Softplus
from typedtensor.nn import Softsign as Softsign
from typedtensor.nn import Tanh as Tanh
