"""``typedtensor.nn``: modules, parameters, initialisers and ``functional``, with torch's names.

Layers are generic over their sizes only in the stubs (``Linear[In, Hidden]``); at run time they
are plain classes whose ``forward`` calls ``nn.functional``, where the registry's shape rules run."""

from __future__ import annotations

from typedtensor._runtime import functional as functional
from typedtensor.nn import init as init
from typedtensor.nn.activation import MODULES as _ACTIVATIONS
from typedtensor.nn.attention import MultiheadAttention as MultiheadAttention
from typedtensor.nn.containers import ModuleDict as ModuleDict
from typedtensor.nn.containers import ModuleList as ModuleList
from typedtensor.nn.containers import Sequential as Sequential
from typedtensor.nn.layers import AdaptiveAvgPool2d as AdaptiveAvgPool2d
from typedtensor.nn.layers import AvgPool2d as AvgPool2d
from typedtensor.nn.layers import BatchNorm1d as BatchNorm1d
from typedtensor.nn.layers import BatchNorm2d as BatchNorm2d
from typedtensor.nn.layers import Conv2d as Conv2d
from typedtensor.nn.layers import Dropout as Dropout
from typedtensor.nn.layers import Dropout1d as Dropout1d
from typedtensor.nn.layers import Dropout2d as Dropout2d
from typedtensor.nn.layers import Dropout3d as Dropout3d
from typedtensor.nn.layers import Embedding as Embedding
from typedtensor.nn.layers import Flatten as Flatten
from typedtensor.nn.layers import Identity as Identity
from typedtensor.nn.layers import LayerNorm as LayerNorm
from typedtensor.nn.layers import Linear as Linear
from typedtensor.nn.layers import LogSoftmax as LogSoftmax
from typedtensor.nn.layers import MaxPool2d as MaxPool2d
from typedtensor.nn.layers import Softmax as Softmax
from typedtensor.nn.loss import BCELoss as BCELoss
from typedtensor.nn.loss import BCEWithLogitsLoss as BCEWithLogitsLoss
from typedtensor.nn.loss import CrossEntropyLoss as CrossEntropyLoss
from typedtensor.nn.loss import L1Loss as L1Loss
from typedtensor.nn.loss import MSELoss as MSELoss
from typedtensor.nn.loss import NLLLoss as NLLLoss
from typedtensor.nn.module import Module as Module
from typedtensor.nn.parameter import Parameter as Parameter
from typedtensor.nn.rnn import GRU as GRU
from typedtensor.nn.rnn import LSTM as LSTM
from typedtensor.nn.rnn import RNN as RNN
from typedtensor.nn.rnn import GRUCell as GRUCell
from typedtensor.nn.rnn import LSTMCell as LSTMCell
from typedtensor.nn.rnn import RNNBase as RNNBase
from typedtensor.nn.rnn import RNNCell as RNNCell
from typedtensor.nn.rnn import RNNCellBase as RNNCellBase

globals().update(_ACTIVATIONS)  # ReLU, GELU, SiLU ...: one class per op entry with a module

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "Conv2d",
    "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "Embedding", "Flatten", "GRU", "GRUCell",
    "Identity", "L1Loss", "LSTM", "LSTMCell", "LayerNorm", "Linear", "LogSoftmax", "MSELoss", "MaxPool2d", "Module",
    "ModuleDict", "ModuleList", "MultiheadAttention", "NLLLoss", "Parameter", "RNN", "RNNBase", "RNNCell",
    "RNNCellBase", "Sequential", "Softmax", "functional", "init", "modules", "parallel", "utils",
    *_ACTIVATIONS,
]

# torch's import paths, built on the classes above: they read typedtensor.nn, so they come after it
from typedtensor.nn import modules as modules  # noqa: E402
from typedtensor.nn import parallel as parallel  # noqa: E402
from typedtensor.nn import utils as utils  # noqa: E402
