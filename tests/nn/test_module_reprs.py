"""Every module's ``repr`` reads like torch's for the same constructor arguments."""

from __future__ import annotations

from typing import Any

import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

CASES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("Linear", (3, 4), {}), ("Linear", (3, 4), {"bias": False}),
    ("Bilinear", (3, 4, 5), {}), ("Bilinear", (3, 4, 5), {"bias": False}),
    ("Conv2d", (3, 8, 3), {}),
    ("Conv2d", (3, 8, (3, 5)), {"stride": 2, "padding": 1, "dilation": 2, "bias": False}),
    ("Conv2d", (4, 8, 3), {"padding": "same", "groups": 2}),
    ("MaxPool2d", (2,), {}), ("MaxPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("AvgPool2d", (2,), {}), ("AvgPool2d", (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
    ("AdaptiveAvgPool2d", ((1, 1),), {}), ("AdaptiveAvgPool2d", (5,), {}),
    ("BatchNorm1d", (4,), {}), ("BatchNorm2d", (4,), {"bias": False}),
    ("BatchNorm2d", (4,), {"eps": 1e-3, "momentum": None, "affine": False, "track_running_stats": False}),
    ("LayerNorm", (5,), {}), ("LayerNorm", ((2, 3),), {"eps": 1e-6, "elementwise_affine": False}),
    ("LayerNorm", (4,), {"bias": False}),
    ("Embedding", (10, 3), {}), ("Embedding", (10, 3), {"padding_idx": 0, "max_norm": 1.0, "norm_type": 1.0}),
    ("Dropout", (), {}), ("Dropout", (0.2,), {"inplace": True}), ("Dropout2d", (0.3,), {}),
    ("Dropout1d", (), {}), ("Dropout3d", (0.1,), {"inplace": True}), ("AlphaDropout", (0.2,), {}),
    ("FeatureAlphaDropout", (), {"inplace": True}),
    ("LazyLinear", (5,), {}), ("LazyLinear", (5,), {"bias": False}), ("LazyConv1d", (4, 3), {"padding": 1}),
    ("LazyConv2d", (4, 3), {"stride": 2, "groups": 2, "bias": False}), ("LazyConv3d", (4, 2), {}),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2}), ("LazyConvTranspose2d", (4, 3), {"output_padding": 0, "dilation": 2}),
    ("LazyBatchNorm1d", (), {}), ("LazyBatchNorm2d", (), {"momentum": None}), ("LazyBatchNorm3d", (), {"affine": False}),
    ("LazyInstanceNorm1d", (), {}), ("LazyInstanceNorm2d", (), {"affine": False}),
    ("LazyInstanceNorm3d", (), {"track_running_stats": False}),
    ("ReLU", (), {}), ("ReLU", (True,), {}), ("GELU", (), {}), ("GELU", ("tanh",), {}), ("Tanh", (), {}),
    ("Sigmoid", (), {}), ("SiLU", (), {}), ("SiLU", (True,), {}), ("LeakyReLU", (), {}), ("LeakyReLU", (0.2, True), {}),
    ("Softplus", (), {}), ("Softplus", (2.0, 10.0), {}), ("Softsign", (), {}), ("Softmax", (1,), {}), ("Softmax", (), {}),
    ("LogSoftmax", (-1,), {}), ("Flatten", (), {}), ("Flatten", (0, 2), {}), ("Unflatten", (1, (2, 3)), {}), ("ChannelShuffle", (2,), {}),
    ("MaxUnpool1d", (2,), {}), ("MaxUnpool2d", (2,), {"stride": 1, "padding": (1, 0)}), ("MaxUnpool3d", ((1, 2, 2),), {}),
    ("LPPool1d", (2, 3), {}), ("LPPool2d", (1.5, (2, 3)), {"stride": 1, "ceil_mode": True}), ("LPPool3d", (3, 2), {}),
    ("Identity", (), {}),
    ("CrossEntropyLoss", (), {}), ("CrossEntropyLoss", (), {"ignore_index": 0, "label_smoothing": 0.1, "reduction": "sum"}),
    ("NLLLoss", (), {}), ("MSELoss", (), {"reduction": "sum"}), ("L1Loss", (), {}), ("BCELoss", (), {}),
    ("BCEWithLogitsLoss", (), {}),
    ("MultiheadAttention", (8, 2), {}), ("MultiheadAttention", (8, 2), {"batch_first": True, "bias": False, "dropout": 0.1}),
    ("LSTM", (3, 4), {}),
    ("LSTM", (3, 4, 2), {"bias": False, "batch_first": True, "dropout": 0.5, "bidirectional": True, "proj_size": 2}),
    ("GRU", (3, 4), {"num_layers": 2}), ("RNN", (3, 4), {"nonlinearity": "relu"}), ("RNN", (3, 4, 1, "relu"), {}),
    ("RNNBase", ("GRU", 3, 4), {}),
    ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), {"bias": False}), ("RNNCell", (3, 4), {"nonlinearity": "relu"}),
    ("RNNCellBase", (3, 4, True, 2), {}),
    # convolution, pooling, resampling
    ("Conv1d", (3, 4, 3), {"padding": 1, "padding_mode": "reflect"}), ("Conv3d", (2, 4, (1, 2, 3)), {"stride": 2}),
    ("ConvTranspose1d", (3, 4, 3), {"stride": 2, "output_padding": 1}),
    ("ConvTranspose2d", (4, 2, 4, 2, 1), {"bias": False}), ("ConvTranspose2d", (4, 2, 3), {"groups": 2, "dilation": 2}),
    ("MaxPool1d", (3,), {"stride": 2}), ("MaxPool3d", (2,), {"ceil_mode": True}), ("AvgPool1d", (3,), {}),
    ("AvgPool3d", (2,), {"divisor_override": 3}), ("AdaptiveAvgPool1d", (4,), {}), ("AdaptiveAvgPool3d", ((2, None, 3),), {}),
    ("AdaptiveMaxPool1d", (3,), {}), ("AdaptiveMaxPool2d", ((3, 2),), {"return_indices": True}),
    ("AdaptiveMaxPool3d", (2,), {}), ("Upsample", (), {"scale_factor": 2.0, "mode": "bilinear"}),
    ("UpsamplingNearest2d", (), {"scale_factor": 2.0}), ("UpsamplingBilinear2d", ((4, 5),), {}),
    ("PixelShuffle", (2,), {}), ("PixelUnshuffle", (3,), {}), ("Unfold", ((2, 3),), {"stride": 2}),
    ("Fold", ((5, 6), 2), {}), ("EmbeddingBag", (10, 3), {"mode": "max"}),
    # padding
    ("ReflectionPad2d", (3,), {}), ("ReflectionPad1d", ((1, 2),), {}), ("ReplicationPad3d", ((1, 0, 2, 1, 0, 1),), {}),
    ("CircularPad2d", (1,), {}), ("ZeroPad2d", ((1, 2, 3, 4),), {}), ("ZeroPad1d", (2,), {}),
    ("ConstantPad2d", (1, 3.5), {}), ("ConstantPad3d", ((1, 1, 0, 0, 2, 2), 0.0), {}), ("ConstantPad1d", ((0, 2), -1), {}),
    ("CircularPad1d", (2,), {}), ("CircularPad3d", (1,), {}), ("ReflectionPad3d", (1,), {}),
    ("ReplicationPad1d", ((3, 0),), {}), ("ReplicationPad2d", (2,), {}), ("ZeroPad3d", ((1, 0, 0, 1, 2, 0),), {}),
    # normalisation
    ("GroupNorm", (2, 4), {}), ("InstanceNorm1d", (3,), {}), ("InstanceNorm2d", (3,), {"affine": True}),
    ("InstanceNorm3d", (3,), {"track_running_stats": True}), ("BatchNorm3d", (3,), {}), ("LocalResponseNorm", (3,), {}),
    ("RMSNorm", (6,), {}),
    # transformers
    ("TransformerEncoderLayer", (8, 2, 16), {}), ("TransformerDecoderLayer", (8, 2, 16), {"norm_first": True}),
    ("Transformer", (8, 2, 1, 1, 16), {}),
    ("TransformerEncoder", (None, 2), {"enable_nested_tensor": False}), ("TransformerDecoder", (None, 2), {}),
    # activations
    ("ELU", (0.5,), {}), ("CELU", (), {}), ("SELU", (), {}), ("GLU", (), {}), ("Hardshrink", (), {}), ("Softshrink", (0.2,), {}),
    ("Tanhshrink", (), {}), ("Hardsigmoid", (), {}), ("Hardswish", (), {}), ("Hardtanh", (-2.0, 2.0), {}), ("ReLU6", (), {}),
    ("LogSigmoid", (), {}), ("Mish", (), {}), ("Threshold", (0.1, 20.0), {}), ("RReLU", (), {}), ("PReLU", (3,), {}),
    ("Softmin", (1,), {}), ("Softmax2d", (), {}),
    # losses and distances
    ("HuberLoss", (), {"delta": 0.5}), ("SmoothL1Loss", (), {"beta": 0.5}), ("KLDivLoss", (), {"reduction": "batchmean"}),
    ("SoftMarginLoss", (), {}), ("HingeEmbeddingLoss", (), {}), ("PoissonNLLLoss", (), {}), ("GaussianNLLLoss", (), {}),
    ("MultiLabelSoftMarginLoss", (), {}), ("MultiMarginLoss", (), {}), ("MultiLabelMarginLoss", (), {}),
    ("MarginRankingLoss", (), {}), ("CosineEmbeddingLoss", (), {}), ("TripletMarginLoss", (), {}),
    ("TripletMarginWithDistanceLoss", (), {}), ("NLLLoss2d", (), {}), ("CosineSimilarity", (), {}),
    ("PairwiseDistance", (), {}), ("CTCLoss", (), {}), ("CTCLoss", (), {"blank": 2, "zero_infinity": True}),
    ("AdaptiveLogSoftmaxWithLoss", (16, 20, [4, 8]), {}),
    ("AdaptiveLogSoftmaxWithLoss", (16, 30, (5, 10, 20)), {"div_value": 2.0, "head_bias": True}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_repr_matches_torch(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    def build(nn: Any) -> Any:
        if name in ("TransformerEncoder", "TransformerDecoder"):  # a stack of copies of one layer
            layer = getattr(nn, f"{name}Layer")(8, 2, 16)
            return getattr(nn, name)(layer, *args[1:], **kwargs)
        return getattr(nn, name)(*args, **kwargs)

    assert repr(build(tt.nn)) == repr(build(torch.nn))


def test_every_module_class_is_covered() -> None:
    # containers and wrappers are built from other modules, so they print them (test_containers_print_like_torch;
    # the parameter containers' lines are tested in test_parameter_containers.py)
    covered = {c[0] for c in CASES} | {"Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
                                       "ParameterDict", "DataParallel"}
    classes = {n for n in dir(tt.nn) if isinstance(getattr(tt.nn, n), type) and issubclass(getattr(tt.nn, n), tt.nn.Module)}
    assert classes <= covered, f"add these to CASES: {sorted(classes - covered)}"


def test_containers_print_like_torch() -> None:
    def build(nn: Any) -> Any:
        return nn.Sequential(
            nn.Conv2d(1, 4, 3), nn.LeakyReLU(0.2, inplace=True),
            nn.ModuleList([nn.Linear(2, 3), nn.ModuleDict({"act": nn.ReLU(inplace=True)})]),
        )

    assert repr(build(tt.nn)) == repr(build(torch.nn))
