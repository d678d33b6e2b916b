"""Which class torch keeps in which file of ``torch.nn.modules`` (torch 2.13's ``nn.modules.__all__``,
plus ``NonDynamicallyQuantizableLinear``, which programs name in their ``safe_globals`` lists).

Each submodule of ``typedtensor.nn.modules`` re-exports, from ``typedtensor.nn``, the classes of its
torch namesake that typedtensor has: one definition per class, two import paths, and a class added
to ``typedtensor.nn`` later appears under its torch path without an edit here.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

TORCH_FILES: dict[str, tuple[str, ...]] = {
    "activation": (
        "CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU", "LogSigmoid",
        "LogSoftmax", "Mish", "MultiheadAttention", "PReLU", "RReLU", "ReLU", "ReLU6", "SELU", "SiLU", "Sigmoid",
        "Softmax", "Softmax2d", "Softmin", "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold",
    ),
    "adaptive": ("AdaptiveLogSoftmaxWithLoss",),
    "batchnorm": ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "SyncBatchNorm"),
    "channelshuffle": ("ChannelShuffle",),
    "container": ("Container", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"),
    "conv": (
        "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d", "LazyConv2d",
        "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
    ),
    "distance": ("CosineSimilarity", "PairwiseDistance"),
    "dropout": ("AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"),
    "flatten": ("Flatten", "Unflatten"),
    "fold": ("Fold", "Unfold"),
    "instancenorm": (
        "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
    ),
    "linear": ("Bilinear", "Identity", "LazyLinear", "Linear", "NonDynamicallyQuantizableLinear"),
    "linear_cross_entropy_options": ("LinearCrossEntropyOptions",),
    "loss": (
        "BCELoss", "BCEWithLogitsLoss", "CTCLoss", "CosineEmbeddingLoss", "CrossEntropyLoss", "GaussianNLLLoss",
        "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss", "L1Loss", "LinearCrossEntropyLoss", "MSELoss", "MarginRankingLoss",
        "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "NLLLoss2d", "PoissonNLLLoss",
        "SmoothL1Loss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    ),
    "module": ("Module",),
    "normalization": ("CrossMapLRN2d", "GroupNorm", "LayerNorm", "LocalResponseNorm", "RMSNorm"),
    "padding": (
        "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
        "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
        "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
    ),
    "pixelshuffle": ("PixelShuffle", "PixelUnshuffle"),
    "pooling": (
        "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
        "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
        "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
    ),
    "rnn": ("GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"),
    "sparse": ("Embedding", "EmbeddingBag"),
    "transformer": ("Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer"),
    "upsampling": ("Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"),
}


# classes torch keeps out of ``torch.nn``'s own namespace, and where typedtensor defines them
_NOT_IN_NN = {"NonDynamicallyQuantizableLinear": "typedtensor.nn.layers"}


def _find(name: str) -> Any:
    import typedtensor.nn as nn

    if name in _NOT_IN_NN:
        return getattr(importlib.import_module(_NOT_IN_NN[name]), name, None)
    return getattr(nn, name, None)


def export(module_name: str) -> list[str]:
    """Put into module ``module_name`` the ``typedtensor.nn`` classes of its torch namesake; returns their names."""
    namespace = vars(sys.modules[module_name])
    names = []
    for n in TORCH_FILES[module_name.rpartition(".")[2]]:
        cls = _find(n)
        if cls is not None:
            namespace[n] = cls
            names.append(n)
    return names
