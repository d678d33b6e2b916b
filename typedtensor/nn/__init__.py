"""``typedtensor.nn``: modules, parameters, initialisers and ``functional``, with torch's names.

Layers are generic over their sizes only in the stubs (``Linear[In, Hidden]``); at run time they
are plain classes whose ``forward`` calls ``nn.functional``, where the registry's shape rules run."""

from __future__ import annotations

from typedtensor._runtime import functional as functional
from typedtensor.nn import init as init
from typedtensor.nn.activation import MODULES as _ACTIVATIONS
from typedtensor.nn.adaptive import AdaptiveLogSoftmaxWithLoss as AdaptiveLogSoftmaxWithLoss
from typedtensor.nn.attention import MultiheadAttention as MultiheadAttention
from typedtensor.nn.containers import ModuleDict as ModuleDict
from typedtensor.nn.containers import ModuleList as ModuleList
from typedtensor.nn.containers import ParameterDict as ParameterDict
from typedtensor.nn.containers import ParameterList as ParameterList
from typedtensor.nn.containers import Sequential as Sequential
from typedtensor.nn.conv import Conv1d as Conv1d
from typedtensor.nn.conv import Conv2d as Conv2d
from typedtensor.nn.conv import Conv3d as Conv3d
from typedtensor.nn.conv import ConvTranspose1d as ConvTranspose1d
from typedtensor.nn.conv import ConvTranspose2d as ConvTranspose2d
from typedtensor.nn.ctc import CTCLoss as CTCLoss
from typedtensor.nn.layers import AdaptiveAvgPool2d as AdaptiveAvgPool2d
from typedtensor.nn.layers import AlphaDropout as AlphaDropout
from typedtensor.nn.layers import AvgPool2d as AvgPool2d
from typedtensor.nn.layers import BatchNorm1d as BatchNorm1d
from typedtensor.nn.layers import BatchNorm2d as BatchNorm2d
from typedtensor.nn.layers import Bilinear as Bilinear
from typedtensor.nn.layers import Dropout as Dropout
from typedtensor.nn.layers import Dropout1d as Dropout1d
from typedtensor.nn.layers import Dropout2d as Dropout2d
from typedtensor.nn.layers import Dropout3d as Dropout3d
from typedtensor.nn.layers import Embedding as Embedding
from typedtensor.nn.layers import FeatureAlphaDropout as FeatureAlphaDropout
from typedtensor.nn.layers import Flatten as Flatten
from typedtensor.nn.layers import Identity as Identity
from typedtensor.nn.layers import LayerNorm as LayerNorm
from typedtensor.nn.layers import Linear as Linear
from typedtensor.nn.layers import LogSoftmax as LogSoftmax
from typedtensor.nn.layers import MaxPool2d as MaxPool2d
from typedtensor.nn.layers import Softmax as Softmax
from typedtensor.nn.layers import Unflatten as Unflatten
from typedtensor.nn.lazy import LazyBatchNorm1d as LazyBatchNorm1d
from typedtensor.nn.lazy import LazyBatchNorm2d as LazyBatchNorm2d
from typedtensor.nn.lazy import LazyBatchNorm3d as LazyBatchNorm3d
from typedtensor.nn.lazy import LazyConv1d as LazyConv1d
from typedtensor.nn.lazy import LazyConv2d as LazyConv2d
from typedtensor.nn.lazy import LazyConv3d as LazyConv3d
from typedtensor.nn.lazy import LazyConvTranspose1d as LazyConvTranspose1d
from typedtensor.nn.lazy import LazyConvTranspose2d as LazyConvTranspose2d
from typedtensor.nn.lazy import LazyInstanceNorm1d as LazyInstanceNorm1d
from typedtensor.nn.lazy import LazyInstanceNorm2d as LazyInstanceNorm2d
from typedtensor.nn.lazy import LazyInstanceNorm3d as LazyInstanceNorm3d
from typedtensor.nn.lazy import LazyLinear as LazyLinear
from typedtensor.nn.loss import BCELoss as BCELoss
from typedtensor.nn.loss import BCEWithLogitsLoss as BCEWithLogitsLoss
from typedtensor.nn.loss import CrossEntropyLoss as CrossEntropyLoss
from typedtensor.nn.loss import L1Loss as L1Loss
from typedtensor.nn.loss import MSELoss as MSELoss
from typedtensor.nn.loss import NLLLoss as NLLLoss
from typedtensor.nn.losses import GLU as GLU
from typedtensor.nn.losses import CosineEmbeddingLoss as CosineEmbeddingLoss
from typedtensor.nn.losses import CosineSimilarity as CosineSimilarity
from typedtensor.nn.losses import GaussianNLLLoss as GaussianNLLLoss
from typedtensor.nn.losses import HingeEmbeddingLoss as HingeEmbeddingLoss
from typedtensor.nn.losses import HuberLoss as HuberLoss
from typedtensor.nn.losses import KLDivLoss as KLDivLoss
from typedtensor.nn.losses import MarginRankingLoss as MarginRankingLoss
from typedtensor.nn.losses import MultiLabelMarginLoss as MultiLabelMarginLoss
from typedtensor.nn.losses import MultiLabelSoftMarginLoss as MultiLabelSoftMarginLoss
from typedtensor.nn.losses import MultiMarginLoss as MultiMarginLoss
from typedtensor.nn.losses import NLLLoss2d as NLLLoss2d
from typedtensor.nn.losses import PairwiseDistance as PairwiseDistance
from typedtensor.nn.losses import PoissonNLLLoss as PoissonNLLLoss
from typedtensor.nn.losses import PReLU as PReLU
from typedtensor.nn.losses import SmoothL1Loss as SmoothL1Loss
from typedtensor.nn.losses import SoftMarginLoss as SoftMarginLoss
from typedtensor.nn.losses import Softmax2d as Softmax2d
from typedtensor.nn.losses import Softmin as Softmin
from typedtensor.nn.losses import TripletMarginLoss as TripletMarginLoss
from typedtensor.nn.losses import TripletMarginWithDistanceLoss as TripletMarginWithDistanceLoss
from typedtensor.nn.module import Module as Module
from typedtensor.nn.normalization import BatchNorm3d as BatchNorm3d
from typedtensor.nn.normalization import GroupNorm as GroupNorm
from typedtensor.nn.normalization import InstanceNorm1d as InstanceNorm1d
from typedtensor.nn.normalization import InstanceNorm2d as InstanceNorm2d
from typedtensor.nn.normalization import InstanceNorm3d as InstanceNorm3d
from typedtensor.nn.normalization import LocalResponseNorm as LocalResponseNorm
from typedtensor.nn.normalization import RMSNorm as RMSNorm
from typedtensor.nn.padding import CircularPad1d as CircularPad1d
from typedtensor.nn.padding import CircularPad2d as CircularPad2d
from typedtensor.nn.padding import CircularPad3d as CircularPad3d
from typedtensor.nn.padding import ConstantPad1d as ConstantPad1d
from typedtensor.nn.padding import ConstantPad2d as ConstantPad2d
from typedtensor.nn.padding import ConstantPad3d as ConstantPad3d
from typedtensor.nn.padding import ReflectionPad1d as ReflectionPad1d
from typedtensor.nn.padding import ReflectionPad2d as ReflectionPad2d
from typedtensor.nn.padding import ReflectionPad3d as ReflectionPad3d
from typedtensor.nn.padding import ReplicationPad1d as ReplicationPad1d
from typedtensor.nn.padding import ReplicationPad2d as ReplicationPad2d
from typedtensor.nn.padding import ReplicationPad3d as ReplicationPad3d
from typedtensor.nn.padding import ZeroPad1d as ZeroPad1d
from typedtensor.nn.padding import ZeroPad2d as ZeroPad2d
from typedtensor.nn.padding import ZeroPad3d as ZeroPad3d
from typedtensor.nn.parallel import DataParallel as DataParallel
from typedtensor.nn.parameter import Buffer as Buffer
from typedtensor.nn.parameter import Parameter as Parameter
from typedtensor.nn.parameter import UninitializedBuffer as UninitializedBuffer
from typedtensor.nn.parameter import UninitializedParameter as UninitializedParameter
from typedtensor.nn.pooling import AdaptiveAvgPool1d as AdaptiveAvgPool1d
from typedtensor.nn.pooling import AdaptiveAvgPool3d as AdaptiveAvgPool3d
from typedtensor.nn.pooling import AdaptiveMaxPool1d as AdaptiveMaxPool1d
from typedtensor.nn.pooling import AdaptiveMaxPool2d as AdaptiveMaxPool2d
from typedtensor.nn.pooling import AdaptiveMaxPool3d as AdaptiveMaxPool3d
from typedtensor.nn.pooling import AvgPool1d as AvgPool1d
from typedtensor.nn.pooling import AvgPool3d as AvgPool3d
from typedtensor.nn.pooling import LPPool1d as LPPool1d
from typedtensor.nn.pooling import LPPool2d as LPPool2d
from typedtensor.nn.pooling import LPPool3d as LPPool3d
from typedtensor.nn.pooling import MaxPool1d as MaxPool1d
from typedtensor.nn.pooling import MaxPool3d as MaxPool3d
from typedtensor.nn.pooling import MaxUnpool1d as MaxUnpool1d
from typedtensor.nn.pooling import MaxUnpool2d as MaxUnpool2d
from typedtensor.nn.pooling import MaxUnpool3d as MaxUnpool3d
from typedtensor.nn.resample import EmbeddingBag as EmbeddingBag
from typedtensor.nn.resample import Fold as Fold
from typedtensor.nn.resample import PixelShuffle as PixelShuffle
from typedtensor.nn.resample import PixelUnshuffle as PixelUnshuffle
from typedtensor.nn.resample import Unfold as Unfold
from typedtensor.nn.resample import Upsample as Upsample
from typedtensor.nn.resample import UpsamplingBilinear2d as UpsamplingBilinear2d
from typedtensor.nn.resample import UpsamplingNearest2d as UpsamplingNearest2d
from typedtensor.nn.rnn import GRU as GRU
from typedtensor.nn.rnn import LSTM as LSTM
from typedtensor.nn.rnn import RNN as RNN
from typedtensor.nn.rnn import GRUCell as GRUCell
from typedtensor.nn.rnn import LSTMCell as LSTMCell
from typedtensor.nn.rnn import RNNBase as RNNBase
from typedtensor.nn.rnn import RNNCell as RNNCell
from typedtensor.nn.rnn import RNNCellBase as RNNCellBase
from typedtensor.nn.transformer import Transformer as Transformer
from typedtensor.nn.transformer import TransformerDecoder as TransformerDecoder
from typedtensor.nn.transformer import TransformerDecoderLayer as TransformerDecoderLayer
from typedtensor.nn.transformer import TransformerEncoder as TransformerEncoder
from typedtensor.nn.transformer import TransformerEncoderLayer as TransformerEncoderLayer

globals().update(_ACTIVATIONS)  # ReLU, GELU, SiLU ...: one class per op entry with a module

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "Conv2d",
    "AlphaDropout", "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout", "Embedding",
    "Flatten", "GRU", "GRUCell", "Bilinear", "Identity", "L1Loss", "LSTM", "LSTMCell", "LayerNorm", "Linear", "LogSoftmax",
    "MSELoss", "MaxPool2d", "Module",
    "DataParallel", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Unflatten", "MultiheadAttention", "NLLLoss", "Parameter", "RNN", "RNNBase", "RNNCell",
    "RNNCellBase", "Sequential", "Softmax", "functional", "init", "modules", "parallel", "utils",
    "Buffer", "UninitializedBuffer", "UninitializedParameter",
    # the lazy modules: their input size comes from the first call
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
    "LazyLinear",
    *_ACTIVATIONS,
    # convolution, pooling, resampling, normalisation and transformer modules
    "AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
    "AvgPool1d", "AvgPool3d", "BatchNorm3d", "Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "EmbeddingBag",
    "Fold", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "MaxPool1d",
    "MaxPool3d", "PixelShuffle", "PixelUnshuffle", "RMSNorm", "Transformer", "TransformerDecoder",
    "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer", "Unfold", "Upsample",
    "UpsamplingBilinear2d", "UpsamplingNearest2d",
    # losses, distances and the activations with a parameter or a dim
    "AdaptiveLogSoftmaxWithLoss", "CTCLoss", "CosineEmbeddingLoss", "CosineSimilarity", "GLU", "GaussianNLLLoss", "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss",
    "MarginRankingLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss2d",
    "PReLU", "PairwiseDistance", "PoissonNLLLoss", "SmoothL1Loss", "SoftMarginLoss", "Softmax2d", "Softmin",
    "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    # padding
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]

# torch's import paths, built on the classes above: they read typedtensor.nn, so they come after it
from typedtensor.nn import modules as modules  # noqa: E402
from typedtensor.nn import parallel as parallel  # noqa: E402
from typedtensor.nn import utils as utils  # noqa: E402
