# torch.nn.modules.rnn's classes that typedtensor has (typedtensor/nn/modules/_paths.py)
from typedtensor.nn import GRU as GRU
from typedtensor.nn import LSTM as LSTM
from typedtensor.nn import RNN as RNN
from typedtensor.nn import GRUCell as GRUCell
from typedtensor.nn import LSTMCell as LSTMCell
from typedtensor.nn import RNNBase as RNNBase
from typedtensor.nn import RNNCell as RNNCell
from typedtensor.nn import RNNCellBase as RNNCellBase
