"""The convolution, pooling, resampling, normalisation, activation and loss modules added for real
programs (issue: real PyTorch programs run as written), each against torch's with identical weights:
forward values, running statistics, parameter names, and the gradients of the input and of every
parameter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.nn.helpers import close, copy_from_torch, has_autograd

torch = pytest.importorskip("torch")
tnn = torch.nn

# (name, ctor over the nn namespace, input shape)
CASES: list[tuple[str, Callable[[Any], Any], tuple[int, ...]]] = [
    ("Conv1d", lambda nn: nn.Conv1d(3, 4, 3), (2, 3, 9)),
    ("Conv1d-stride-pad-dil-groups", lambda nn: nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2), (2, 4, 11)),
    ("Conv1d-same", lambda nn: nn.Conv1d(2, 3, 4, padding="same", bias=False), (2, 2, 7)),
    ("Conv1d-unbatched", lambda nn: nn.Conv1d(2, 3, 3), (2, 8)),
    ("Conv1d-reflect", lambda nn: nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect"), (2, 2, 7)),
    ("Conv1d-circular", lambda nn: nn.Conv1d(2, 3, 3, padding=1, padding_mode="circular"), (2, 2, 7)),
    ("Conv2d-replicate", lambda nn: nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="replicate"), (1, 2, 5, 6)),
    ("Conv3d", lambda nn: nn.Conv3d(2, 3, 3), (2, 2, 5, 6, 5)),
    ("Conv3d-stride-pad-dil-groups",
     lambda nn: nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 2), padding=(1, 1, 0), dilation=(2, 1, 1), groups=2),
     (2, 4, 7, 5, 6)),
    ("Conv3d-same", lambda nn: nn.Conv3d(2, 2, (2, 3, 2), padding="same"), (1, 2, 4, 5, 4)),
    ("Conv3d-unbatched", lambda nn: nn.Conv3d(2, 3, 2), (2, 4, 4, 4)),
    ("ConvTranspose1d", lambda nn: nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1), (2, 3, 6)),
    ("ConvTranspose1d-groups-dil", lambda nn: nn.ConvTranspose1d(4, 6, 3, groups=2, dilation=2), (2, 4, 5)),
    ("ConvTranspose2d", lambda nn: nn.ConvTranspose2d(3, 4, 3), (2, 3, 5, 5)),
    ("ConvTranspose2d-dcgan", lambda nn: nn.ConvTranspose2d(8, 4, 4, 2, 1, bias=False), (2, 8, 4, 4)),
    ("ConvTranspose2d-dcgan-first", lambda nn: nn.ConvTranspose2d(16, 8, 4, 1, 0, bias=False), (3, 16, 1, 1)),
    ("ConvTranspose2d-all",
     lambda nn: nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2,
                                   dilation=(1, 2)), (2, 4, 5, 4)),
    ("ConvTranspose2d-unbatched", lambda nn: nn.ConvTranspose2d(2, 3, 2, stride=2), (2, 3, 3)),
    ("MaxPool1d", lambda nn: nn.MaxPool1d(3, stride=2, padding=1), (2, 3, 9)),
    ("MaxPool1d-dil-ceil", lambda nn: nn.MaxPool1d(2, dilation=2, ceil_mode=True), (2, 3, 8)),
    ("MaxPool3d", lambda nn: nn.MaxPool3d(2), (2, 3, 4, 6, 4)),
    ("MaxPool3d-all", lambda nn: nn.MaxPool3d((3, 2, 3), stride=(2, 1, 2), padding=(1, 1, 1), dilation=(1, 2, 1),
                                              ceil_mode=True), (1, 2, 7, 6, 7)),
    ("AvgPool1d", lambda nn: nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), (2, 3, 9)),
    ("AvgPool3d", lambda nn: nn.AvgPool3d(2), (2, 3, 4, 6, 4)),
    ("AvgPool3d-pad-ceil", lambda nn: nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=True), (1, 2, 6, 7, 5)),
    ("AvgPool3d-pad-nocount", lambda nn: nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False), (1, 2, 6, 7, 5)),
    ("AvgPool3d-divisor", lambda nn: nn.AvgPool3d(2, divisor_override=3), (1, 2, 4, 4, 4)),
    ("AdaptiveAvgPool1d", lambda nn: nn.AdaptiveAvgPool1d(4), (2, 3, 10)),
    ("AdaptiveAvgPool3d", lambda nn: nn.AdaptiveAvgPool3d((2, 3, None)), (2, 3, 5, 7, 4)),
    ("AdaptiveMaxPool1d", lambda nn: nn.AdaptiveMaxPool1d(3), (2, 3, 10)),
    ("AdaptiveMaxPool2d", lambda nn: nn.AdaptiveMaxPool2d((3, 2)), (2, 3, 7, 5)),
    ("AdaptiveMaxPool2d-1", lambda nn: nn.AdaptiveMaxPool2d(1), (2, 3, 4, 4)),
    ("AdaptiveMaxPool3d", lambda nn: nn.AdaptiveMaxPool3d(2), (1, 2, 5, 3, 4)),
    ("Upsample-nearest", lambda nn: nn.Upsample(scale_factor=2), (2, 3, 4, 5)),
    ("Upsample-nearest-size", lambda nn: nn.Upsample(size=(7, 3)), (2, 3, 4, 5)),
    ("Upsample-nearest-exact", lambda nn: nn.Upsample(size=(7, 3), mode="nearest-exact"), (2, 3, 4, 5)),
    ("Upsample-linear", lambda nn: nn.Upsample(scale_factor=2.5, mode="linear"), (2, 3, 4)),
    ("Upsample-linear-ac", lambda nn: nn.Upsample(size=7, mode="linear", align_corners=True), (2, 3, 4)),
    ("Upsample-bilinear", lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), (2, 3, 4, 5)),
    ("Upsample-bilinear-down", lambda nn: nn.Upsample(size=(3, 2), mode="bilinear"), (2, 3, 7, 5)),
    ("Upsample-bilinear-ac", lambda nn: nn.Upsample(size=(6, 9), mode="bilinear", align_corners=True), (2, 3, 4, 5)),
    ("Upsample-bicubic", lambda nn: nn.Upsample(scale_factor=2, mode="bicubic"), (1, 2, 4, 5)),
    ("Upsample-bicubic-ac", lambda nn: nn.Upsample(size=(5, 7), mode="bicubic", align_corners=True), (1, 2, 4, 5)),
    ("Upsample-trilinear", lambda nn: nn.Upsample(scale_factor=(2, 1.5, 2), mode="trilinear"), (1, 2, 3, 4, 3)),
    ("Upsample-area", lambda nn: nn.Upsample(size=(3, 2), mode="area"), (2, 3, 7, 5)),
    ("UpsamplingNearest2d", lambda nn: nn.UpsamplingNearest2d(scale_factor=3), (1, 2, 3, 2)),
    ("UpsamplingBilinear2d", lambda nn: nn.UpsamplingBilinear2d(size=(5, 4)), (1, 2, 3, 2)),
    ("PixelShuffle", lambda nn: nn.PixelShuffle(2), (2, 8, 3, 4)),
    ("PixelUnshuffle", lambda nn: nn.PixelUnshuffle(2), (2, 2, 6, 4)),
    # the padding modules (fast_neural_style pads every convolution with ReflectionPad2d)
    ("ReflectionPad1d", lambda nn: nn.ReflectionPad1d((2, 1)), (2, 3, 5)),
    ("ReflectionPad2d", lambda nn: nn.ReflectionPad2d(2), (2, 3, 5, 4)),
    ("ReflectionPad2d-unbatched", lambda nn: nn.ReflectionPad2d((1, 0, 2, 1)), (3, 4, 5)),
    ("ReflectionPad3d", lambda nn: nn.ReflectionPad3d((1, 0, 1, 1, 0, 2)), (1, 2, 3, 4, 3)),
    ("ReplicationPad1d", lambda nn: nn.ReplicationPad1d(3), (2, 2, 4)),
    ("ReplicationPad2d", lambda nn: nn.ReplicationPad2d((1, 2, 0, 3)), (2, 2, 3, 3)),
    ("ReplicationPad3d", lambda nn: nn.ReplicationPad3d(1), (1, 2, 2, 3, 2)),
    ("CircularPad1d", lambda nn: nn.CircularPad1d((1, 2)), (2, 2, 4)),
    ("CircularPad2d", lambda nn: nn.CircularPad2d(1), (1, 2, 3, 4)),
    ("CircularPad3d", lambda nn: nn.CircularPad3d((1, 1, 0, 1, 1, 0)), (1, 1, 2, 3, 3)),
    ("ZeroPad1d", lambda nn: nn.ZeroPad1d((0, 2)), (2, 3, 4)),
    ("ZeroPad2d", lambda nn: nn.ZeroPad2d((1, 1, 2, 0)), (2, 3, 4, 4)),
    ("ZeroPad2d-crop", lambda nn: nn.ZeroPad2d((-1, 1, 0, -2)), (1, 2, 5, 4)),
    ("ZeroPad3d", lambda nn: nn.ZeroPad3d(1), (1, 1, 2, 2, 2)),
    ("ConstantPad1d", lambda nn: nn.ConstantPad1d(2, 3.5), (2, 3, 4)),
    ("ConstantPad2d", lambda nn: nn.ConstantPad2d((1, 0, 0, 2), -1.0), (2, 2, 3, 3)),
    ("ConstantPad3d", lambda nn: nn.ConstantPad3d((0, 1, 1, 0, 1, 1), 0.5), (1, 2, 2, 2, 3)),
    ("Unfold", lambda nn: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), (2, 3, 6, 7)),
    ("GroupNorm", lambda nn: nn.GroupNorm(2, 4), (3, 4, 5, 5)),
    ("GroupNorm-noaffine", lambda nn: nn.GroupNorm(3, 6, affine=False, eps=1e-3), (2, 6, 7)),
    ("InstanceNorm1d", lambda nn: nn.InstanceNorm1d(3), (2, 3, 8)),
    ("InstanceNorm1d-affine-stats", lambda nn: nn.InstanceNorm1d(3, affine=True, track_running_stats=True), (4, 3, 6)),
    ("InstanceNorm2d", lambda nn: nn.InstanceNorm2d(3, affine=True), (2, 3, 4, 5)),
    ("InstanceNorm2d-unbatched", lambda nn: nn.InstanceNorm2d(3), (3, 4, 5)),
    ("InstanceNorm3d-stats", lambda nn: nn.InstanceNorm3d(2, track_running_stats=True, momentum=0.3), (3, 2, 3, 4, 3)),
    ("BatchNorm3d", lambda nn: nn.BatchNorm3d(3), (4, 3, 2, 3, 2)),
    ("LocalResponseNorm", lambda nn: nn.LocalResponseNorm(3), (2, 5, 4, 4)),
    ("LocalResponseNorm-3d", lambda nn: nn.LocalResponseNorm(2, alpha=1e-2, beta=0.5, k=2.0), (2, 5, 6)),
    ("RMSNorm", lambda nn: nn.RMSNorm(6), (2, 3, 6)),
    ("RMSNorm-2d-eps", lambda nn: nn.RMSNorm((3, 6), eps=1e-3), (2, 3, 6)),
    ("ELU", lambda nn: nn.ELU(0.7), (3, 4)),
    ("CELU", lambda nn: nn.CELU(0.7), (3, 4)),
    ("SELU", lambda nn: nn.SELU(), (3, 4)),
    ("GLU", lambda nn: nn.GLU(1), (3, 4, 2)),
    ("Hardshrink", lambda nn: nn.Hardshrink(0.3), (3, 4)),
    ("Softshrink", lambda nn: nn.Softshrink(0.3), (3, 4)),
    ("Tanhshrink", lambda nn: nn.Tanhshrink(), (3, 4)),
    ("Hardsigmoid", lambda nn: nn.Hardsigmoid(), (3, 4)),
    ("Hardswish", lambda nn: nn.Hardswish(), (3, 4)),
    ("Hardtanh", lambda nn: nn.Hardtanh(-0.5, 0.7), (3, 4)),
    ("ReLU6", lambda nn: nn.ReLU6(), (3, 4)),
    ("LogSigmoid", lambda nn: nn.LogSigmoid(), (3, 4)),
    ("Mish", lambda nn: nn.Mish(), (3, 4)),
    ("Threshold", lambda nn: nn.Threshold(0.1, 20.0), (3, 4)),
    ("RReLU-eval", lambda nn: nn.RReLU().eval(), (3, 4)),
    ("PReLU", lambda nn: nn.PReLU(), (3, 4)),
    ("PReLU-channels", lambda nn: nn.PReLU(3, init=0.1), (2, 3, 4)),
    ("Softmin", lambda nn: nn.Softmin(dim=1), (3, 4)),
    ("Softmax2d", lambda nn: nn.Softmax2d(), (2, 3, 2, 2)),
]

# scale the inputs of the activations that have kinks so that no value sits on one
_SPREAD = 3.0


def _make(ctor: Callable[[Any], Any]) -> tuple[Any, Any]:
    ref = ctor(tnn)
    ours = ctor(tt.nn)
    copy_from_torch(ours, ref)
    ours.train(ref.training)
    return ours, ref


def _input(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * _SPREAD).astype(np.float32)


@pytest.mark.parametrize(("name", "ctor", "shape"), CASES, ids=[c[0] for c in CASES])
def test_forward_matches_torch(name: str, ctor: Callable[[Any], Any], shape: tuple[int, ...]) -> None:
    ours, ref = _make(ctor)
    x = _input(shape, 0)
    close(ours(tt.tensor(x)), ref(torch.tensor(x)), rtol=1e-4, atol=1e-5)
    for (n1, b1), (n2, b2) in zip(ours.named_buffers(), ref.named_buffers(), strict=True):
        assert n1 == n2
        close(b1, b2, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize(("name", "ctor", "shape"), CASES, ids=[c[0] for c in CASES])
def test_parameter_names_and_reprs_match_torch(name: str, ctor: Callable[[Any], Any], shape: tuple[int, ...]) -> None:
    ref, ours = ctor(tnn), ctor(tt.nn)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in ref.named_parameters()
    ]
    assert list(ours.state_dict()) == list(ref.state_dict())
    assert repr(ours) == repr(ref)


@pytest.mark.skipif(not has_autograd(), reason="needs the autograd engine")
@pytest.mark.parametrize(("name", "ctor", "shape"), CASES, ids=[c[0] for c in CASES])
def test_gradients_match_torch(name: str, ctor: Callable[[Any], Any], shape: tuple[int, ...]) -> None:
    ours, ref = _make(ctor)
    x = _input(shape, 1)
    xo, xr = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yo, yr = ours(xo), ref(xr)
    w = np.random.default_rng(2).standard_normal(tuple(yr.shape)).astype(np.float32)
    (yo * tt.tensor(w)).sum().backward()
    (yr * torch.tensor(w)).sum().backward()
    close(xo.grad, xr.grad, rtol=1e-4, atol=1e-4)
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), ref.named_parameters(), strict=True):
        assert n1 == n2
        close(p1.grad, p2.grad, rtol=1e-4, atol=1e-4)


def test_float64_convolutions_match_torch_closely() -> None:
    """Through float64 the composites (conv3d as one conv2d, the transposed convs as conv2d's input
    gradient) agree with torch to rounding, and so do their gradients."""
    rng = np.random.default_rng(5)
    for fn, x_shape, w_shape, kw in (
        ("conv3d", (2, 4, 5, 6, 5), (6, 2, 2, 3, 2), {"stride": (1, 2, 1), "padding": 1, "groups": 2}),
        ("conv_transpose2d", (2, 4, 3, 5), (4, 3, 3, 2), {"stride": 2, "padding": 1, "output_padding": 1}),
        # output_padding at or past the stride, which torch allows when the dilation is larger
        ("conv_transpose2d", (2, 4, 3, 5), (4, 3, 3, 2), {"stride": (1, 2), "dilation": (3, 1), "output_padding": (2, 1)}),
        ("conv_transpose1d", (2, 4, 6), (4, 2, 3), {"stride": 3, "groups": 2}),
        ("conv1d", (2, 4, 9), (2, 4, 3), {"dilation": 3}),
    ):
        x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
        xo, wo = tt.tensor(x, requires_grad=True), tt.tensor(w, requires_grad=True)
        xr, wr = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
        yo, yr = getattr(tt.nn.functional, fn)(xo, wo, **kw), getattr(torch.nn.functional, fn)(xr, wr, **kw)
        close(yo, yr, rtol=1e-12, atol=1e-12)
        g = rng.standard_normal(tuple(yr.shape))
        (yo * tt.tensor(g)).sum().backward()
        (yr * torch.tensor(g)).sum().backward()
        close(xo.grad, xr.grad, rtol=1e-12, atol=1e-12)
        close(wo.grad, wr.grad, rtol=1e-12, atol=1e-12)


def test_conv_transpose_output_size_picks_the_output_padding() -> None:
    ref = tnn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    ours = tt.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    copy_from_torch(ours, ref)
    x = _input((1, 2, 4, 4), 3)
    close(ours(tt.tensor(x), output_size=[8, 8]), ref(torch.tensor(x), output_size=[8, 8]), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="valid sizes"):
        ours(tt.tensor(x), output_size=[10, 10])


def test_conv_transpose_checks_output_padding_and_channels() -> None:
    w = tt.randn(3, 2, 3, 3)
    with pytest.raises(ValueError, match="output padding must be smaller"):
        tt.nn.functional.conv_transpose2d(tt.randn(1, 3, 4, 4), w, stride=2, output_padding=2)
    with pytest.raises(tt.ShapeError, match="channels"):
        tt.nn.functional.conv_transpose2d(tt.randn(1, 4, 4, 4), w)


@pytest.mark.parametrize("fn", ["max_pool1d", "max_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
                                "adaptive_max_pool3d"])
def test_max_pool_indices_match_torch(fn: str) -> None:
    nd = 1 if fn.endswith("1d") else 3 if fn.endswith("3d") else 2
    shape = (2, 3, *(7, 6, 5)[:nd])
    x = _input(shape, 4)
    if fn.startswith("adaptive"):
        args: tuple[Any, ...] = ((3, 2, 4)[:nd],) if nd > 1 else (3,)
        kw: dict[str, Any] = {"return_indices": True}
    else:
        args, kw = (3,), {"stride": 2, "padding": 1, "return_indices": True}
    vo, io = getattr(tt.nn.functional, fn)(tt.tensor(x), *args, **kw)
    vr, ir = getattr(torch.nn.functional, fn)(torch.tensor(x), *args, **kw)
    close(vo, vr)
    np.testing.assert_array_equal(io.numpy(), ir.numpy())


def test_fold_is_unfolds_adjoint_and_matches_torch() -> None:
    x = _input((2, 3 * 6, 10), 6)  # 5 x 2 blocks
    kw = {"output_size": (5, 6), "kernel_size": (2, 3), "dilation": (2, 1), "padding": (1, 0), "stride": (1, 2)}
    xo, xr = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yo, yr = tt.nn.functional.fold(xo, **kw), torch.nn.functional.fold(xr, **kw)
    close(yo, yr, rtol=1e-5, atol=1e-5)
    g = _input(tuple(yr.shape), 7)
    (yo * tt.tensor(g)).sum().backward()
    (yr * torch.tensor(g)).sum().backward()
    close(xo.grad, xr.grad, rtol=1e-5, atol=1e-5)
    fold = tt.nn.Fold((5, 6), (2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2))
    assert repr(fold) == repr(tnn.Fold((5, 6), (2, 3), dilation=(2, 1), padding=(1, 0), stride=(1, 2)))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("layout", ["2d", "offsets", "offsets-last", "padding_idx", "weights"])
def test_embedding_bag_matches_torch(mode: str, layout: str) -> None:
    if layout == "weights" and mode != "sum":
        pytest.skip("per_sample_weights is a mode='sum' feature")
    kw: dict[str, Any] = {"mode": mode}
    if layout == "padding_idx":
        kw["padding_idx"] = 2
    if layout == "offsets-last":
        kw["include_last_offset"] = True
    ref, ours = tnn.EmbeddingBag(10, 4, **kw), tt.nn.EmbeddingBag(10, 4, **kw)
    copy_from_torch(ours, ref)
    call_o: dict[str, Any] = {}
    call_r: dict[str, Any] = {}
    if layout == "2d":
        idx = np.array([[1, 2, 4], [4, 3, 9]])
    else:
        idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 2])
        offs = np.array([0, 2, 2, 5, 9] if layout == "offsets-last" else [0, 2, 2, 5])
        call_o["offsets"], call_r["offsets"] = tt.tensor(offs), torch.tensor(offs)
        if layout == "weights":
            psw = np.random.default_rng(3).random(idx.shape).astype(np.float32)
            call_o["per_sample_weights"], call_r["per_sample_weights"] = tt.tensor(psw), torch.tensor(psw)
    yo, yr = ours(tt.tensor(idx), **call_o), ref(torch.tensor(idx), **call_r)
    close(yo, yr, rtol=1e-5, atol=1e-6)
    g = np.random.default_rng(4).standard_normal(tuple(yr.shape)).astype(np.float32)
    (yo * tt.tensor(g)).sum().backward()
    (yr * torch.tensor(g)).sum().backward()
    close(ours.weight.grad, ref.weight.grad, rtol=1e-5, atol=1e-6)
    assert repr(ours) == repr(ref)


@pytest.mark.parametrize("size", [2**62, 2**40, 2**30])
@pytest.mark.parametrize("op", ["adaptive_max_pool1d", "adaptive_max_pool2d"])
def test_adaptive_max_pool_of_an_absurd_output_size_is_an_error(op: str, size: int) -> None:
    """The windows are listed on the host: an output size of 2^62 built Python lists until the
    process was killed. Now the output's allocation is tried first (too many elements, or no
    memory, as torch's), and a table past the host limit is refused, naming the op."""
    x = tt.randn(1, 2, 3, 3) if op.endswith("2d") else tt.randn(1, 2, 3)
    with pytest.raises((ValueError, MemoryError, RuntimeError), match=r"adaptive_max_pool|elements|memory|alloc"):
        getattr(tt.nn.functional, op)(x, size)
