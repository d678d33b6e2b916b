"""bfloat16 conv2d (NOTE [ bfloat16 convolution ] in backend/src/cpu/conv.cpp): on MKL's bfloat16 GEMM
where MKL is the BLAS, widened to float32 under OpenBLAS. Either way the output and the three
gradients are float32 sums of bfloat16 values rounded once to bfloat16, as torch's oneDNN
convolution: checked against the same sums in float64 (one bfloat16 rounding, 2**-8 relative, plus
float32's accumulation error) and against torch's bfloat16 conv2d, for stride, padding ('same'
included), dilation, groups, 1x1 kernels, bias or none, batched and unbatched inputs, 1 and 2 threads."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import torch

import typedtensor as tt

from .helpers import as_bf16, bf16_values

CPU = tt.backends.cpu
START = CPU.get_blas()
LIBS = CPU.blas_available()
F = tt.nn.functional



@pytest.fixture(params=[1, 2])
def threads(request: pytest.FixtureRequest) -> Iterator[int]:
    prev = tt.get_num_threads()
    tt.set_num_threads(request.param)
    try:
        yield int(request.param)
    finally:
        tt.set_num_threads(prev)




@dataclass(frozen=True)
class Case:
    x: tuple[int, ...]  # input shape, [N, C, H, W] or unbatched [C, H, W]
    w: tuple[int, int, int, int]  # [O, C / groups, kh, kw]
    stride: tuple[int, int] = (1, 1)
    padding: tuple[int, int] | str = (0, 0)
    dilation: tuple[int, int] = (1, 1)
    groups: int = 1
    bias: bool = True

    def kwargs(self) -> dict[str, Any]:
        return {"stride": self.stride, "padding": self.padding, "dilation": self.dilation, "groups": self.groups}


# Under MKL the bfloat16 GEMM runs where the inner size c kh kw / groups is at least 32; the input
# gradient is a convolution with the flipped kernel at stride 1 with c / groups >= 16, at least 128
# pixels and padding within the kernel's reach, col2im otherwise (NOTE [ bfloat16 input gradient ]).
CASES = [
    Case((2, 4, 9, 11), (5, 4, 3, 3)),
    Case((3, 4, 12, 10), (6, 4, 3, 3), stride=(2, 3), padding=(1, 2)),
    Case((2, 32, 11, 13), (8, 16, 3, 3), padding=(2, 1), dilation=(2, 3), groups=2),
    Case((2, 3, 8, 7), (4, 3, 4, 3), padding="same", dilation=(1, 2)),  # 'same' with an odd total pad
    Case((2, 16, 12, 11), (5, 16, 3, 3), padding="same", bias=False),
    Case((3, 32, 12, 11), (24, 32, 1, 1)),  # 1x1: the image is its own columns
    Case((3, 64, 5, 6), (12, 32, 1, 1), groups=2, bias=False),  # a small map: dx by col2im
    Case((2, 16, 5, 6), (4, 16, 1, 3), padding=(1, 2)),  # padding past the kernel's reach
    Case((4, 40, 30, 30), (32, 40, 3, 3), padding=(1, 1)),  # several column tiles per image
    Case((7, 5, 4, 4), (6, 5, 3, 3), padding=(1, 1)),  # small maps: the input gradient's sample blocks
    Case((1, 8, 20, 20), (16, 8, 5, 5), stride=(2, 2), padding=(2, 2)),  # one sample: the GEMM is split
    Case((4, 10, 9), (4, 4, 3, 3), stride=(2, 1)),  # unbatched
    Case((5, 7, 8), (6, 5, 3, 4), padding="same", bias=False),
    # inner size under 32: widened to float32 inside the kernel under MKL too
    Case((2, 3, 9, 11), (5, 3, 3, 3)),  # an RGB first layer
    Case((2, 4, 10, 9), (4, 1, 3, 3), padding=(1, 1), groups=4, bias=False),  # depthwise
]


def _torch_conv(case: Case, x: np.ndarray, w: np.ndarray, b: np.ndarray | None, gy: np.ndarray,
                dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    """torch's conv2d in `dtype` and its three gradients for the output gradient gy."""
    tx, tw = (torch.from_numpy(a).to(dtype).requires_grad_() for a in (x, w))
    tb = torch.from_numpy(b).to(dtype).requires_grad_() if b is not None else None
    y: Any = torch.nn.functional.conv2d(tx, tw, tb, **case.kwargs())
    y.backward(torch.from_numpy(gy).to(dtype))
    assert tx.grad is not None and tw.grad is not None
    grads = (tx.grad, tw.grad) + ((tb.grad,) if tb is not None and tb.grad is not None else ())
    return (y.detach(), *grads)


def _check(name: str, got: tt.Tensor, exact: torch.Tensor, bound: torch.Tensor, terms: int,
           theirs: torch.Tensor) -> None:
    """Within one bfloat16 rounding (2**-8 relative) of the float64 value, plus float32's
    accumulation error over `terms` products; and within twice that of torch's bfloat16 result
    where torch's own result meets that bound. torch's oneDNN convolution sums in float32 where
    the CPU has AVX-512 (bfloat16 or not); on an AVX2 CPU (AMD Zen 3, say) its bfloat16 input
    gradient rounds partial sums to bfloat16 and misses the bound by up to 10x, so there the
    float64 value is the only oracle."""
    assert got.dtype == tt.bfloat16, name
    g = got.float().numpy().astype(np.float64)
    e, bd = exact.numpy(), bound.numpy()
    assert g.shape == e.shape, (name, g.shape, e.shape)
    tol = 2.0**-8 * np.abs(e) + 2.0**-22 * terms * bd + 1e-30
    err = np.abs(g - e)
    assert np.all(err <= tol), (name, float(np.max(err / tol)))
    th = theirs.float().numpy().astype(np.float64)
    if np.all(np.abs(th - e) <= tol):
        assert np.all(np.abs(g - th) <= 2 * tol), name


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"x{c.x}-w{c.w}-s{c.stride}-p{c.padding}-d{c.dilation}-g{c.groups}"
                         + ("-bias" if c.bias else ""))
def test_forward_and_gradients(blas: str, threads: int, case: Case) -> None:
    x, w = bf16_values(case.x, 0), bf16_values(case.w, 1)
    b = bf16_values((case.w[0],), 2) if case.bias else None
    shape = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), None, **case.kwargs()).shape
    gy = bf16_values(tuple(shape), 3)
    exact = _torch_conv(case, x, w, b, gy, torch.float64)
    # the same linear maps of the absolute values bound each sum's terms
    bound = _torch_conv(case, np.abs(x), np.abs(w), np.abs(b) if b is not None else None, np.abs(gy), torch.float64)
    theirs = _torch_conv(case, x, w, b, gy, torch.bfloat16)

    ox, ow = as_bf16(x).requires_grad_(), as_bf16(w).requires_grad_()
    ob = as_bf16(b).requires_grad_() if b is not None else None
    y = F.conv2d(ox, ow, ob, **case.kwargs())
    y.backward(as_bf16(gy))
    assert ox.grad is not None and ow.grad is not None
    cg, kh, kw = case.w[1], case.w[2], case.w[3]
    og = case.w[0] // case.groups
    n = case.x[0] if len(case.x) == 4 else 1
    positions = n * int(np.prod(gy.shape[-2:]))
    _check("y", y.detach(), exact[0], bound[0], cg * kh * kw + 1, theirs[0])
    _check("dx", ox.grad, exact[1], bound[1], og * kh * kw, theirs[1])
    _check("dw", ow.grad, exact[2], bound[2], positions, theirs[2])
    if ob is not None:
        assert ob.grad is not None
        _check("db", ob.grad, exact[3], bound[3], positions, theirs[3])


def test_bias_and_product_are_rounded_once(blas: str) -> None:
    """x w = (1 + 2**-7)(1 + 2**-6) = 1 + 3 * 2**-7 + 2**-13: rounded alone to bfloat16 it loses the
    2**-13, and adding the bias -1 then gives 3 * 2**-7; bias + product summed in float32 and rounded
    once keeps it (bfloat16 holds 3 * 2**-7 + 2**-13 exactly), as torch's convolution does."""
    x = np.full((2, 1, 3, 3), 1.0 + 2.0**-7, np.float32)
    w = np.full((2, 1, 1, 1), 1.0 + 2.0**-6, np.float32)
    b = np.full((2,), -1.0, np.float32)
    exact = 3 * 2.0**-7 + 2.0**-13
    got = F.conv2d(as_bf16(x), as_bf16(w), as_bf16(b)).float().numpy()
    want = torch.nn.functional.conv2d(*(torch.from_numpy(a).bfloat16() for a in (x, w, b))).float().numpy()
    np.testing.assert_array_equal(want, exact)
    np.testing.assert_array_equal(got, exact)


def test_compiled_graph_matches_eager_and_runs_after_the_blas_changes() -> None:
    """A graph traced while MKL was the BLAS holds bfloat16 conv primitives; after set_blas("openblas")
    the kernels widen them to float32 themselves."""
    x, w, b = bf16_values((3, 4, 9, 8), 6), bf16_values((6, 2, 3, 3), 7), bf16_values((6,), 8)
    gy_shape = (3, 6, 9, 8)
    gy = bf16_values(gy_shape, 9)

    def step(a: tt.Tensor, k: tt.Tensor, c: tt.Tensor, g: tt.Tensor) -> tuple[tt.Tensor, ...]:
        a, k, c = a.requires_grad_(), k.requires_grad_(), c.requires_grad_()
        y = F.conv2d(a, k, c, padding=1, groups=2)
        y.backward(g)
        assert a.grad is not None and k.grad is not None and c.grad is not None
        return y.detach(), a.grad, k.grad, c.grad

    case = Case(x.shape, (6, 2, 3, 3), padding=(1, 1), groups=2)
    exact = _torch_conv(case, x, w, b, gy, torch.float64)
    bound = _torch_conv(case, np.abs(x), np.abs(w), np.abs(b), np.abs(gy), torch.float64)
    theirs = _torch_conv(case, x, w, b, gy, torch.bfloat16)
    terms = [2 * 9 + 1, 3 * 9, 3 * 72, 3 * 72]
    eager = step(as_bf16(x), as_bf16(w), as_bf16(b), as_bf16(gy))
    f = tt.compile(lambda a, k, c: F.conv2d(a, k, c, padding=1, groups=2))
    compiled = f(as_bf16(x), as_bf16(w), as_bf16(b))
    np.testing.assert_array_equal(compiled.float().numpy(), eager[0].float().numpy())
    for lib in LIBS:
        CPU.set_blas(lib)
        try:
            got = f(as_bf16(x), as_bf16(w), as_bf16(b))
        finally:
            CPU.set_blas(START)
        _check("compiled y", got, exact[0], bound[0], terms[0], theirs[0])
    for name, t, e, bd, k, th in zip(("y", "dx", "dw", "db"), eager, exact, bound, terms, theirs, strict=True):
        _check(name, t, e, bd, k, th)


def test_non_finite_values_propagate_as_torchs(blas: str) -> None:
    x, w = bf16_values((1, 2, 5, 5), 10), bf16_values((3, 2, 3, 3), 11)
    x[0, 0, 1, 1], x[0, 1, 3, 3] = np.nan, np.inf
    got = F.conv2d(as_bf16(x), as_bf16(w)).float().numpy()
    ref = torch.nn.functional.conv2d(torch.from_numpy(x).bfloat16(), torch.from_numpy(w).bfloat16()).float().numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(ref))


def test_onnx_export_of_a_bfloat16_convolution(blas: str) -> None:
    """opset 18's Conv has no bfloat16: the export widens the operands around it."""
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    w, b = as_bf16(bf16_values((4, 3, 3, 3), 12)), as_bf16(bf16_values((4,), 13))

    def f(x: Any) -> Any:
        return F.conv2d(x.to(tt.bfloat16), w, b, padding=1).float()

    proto = tt.onnx.export(f, [tt.randn(2, 3, 6, 6)], dynamic=False)
    assert {"Conv", "Cast"} <= {node.op_type for node in proto.graph.node}
    x = bf16_values((2, 3, 6, 6), 14)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {sess.get_inputs()[0].name: x})
    with tt.no_grad():
        want = f(tt.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=2.0**-7, atol=1e-6)  # float32 sums in another order


@dataclass(frozen=True)
class TCase:
    x: tuple[int, ...]  # [N, C_in, H, W] or unbatched
    w: tuple[int, int, int, int]  # [C_in, C_out / groups, kh, kw]
    stride: tuple[int, int] = (1, 1)
    padding: tuple[int, int] = (0, 0)
    output_padding: tuple[int, int] = (0, 0)
    groups: int = 1
    dilation: tuple[int, int] = (1, 1)
    bias: bool = False

    def kwargs(self) -> dict[str, Any]:
        return {"stride": self.stride, "padding": self.padding, "output_padding": self.output_padding,
                "groups": self.groups, "dilation": self.dilation}


# conv_transpose2d is conv2d's input-gradient kernel (NOTE [ Transposed convolution ]): bfloat16 on
# the GEMM without a bias; with one it widens, so that bias + product is rounded once
TCASES = [
    TCase((2, 64, 4, 4), (64, 32, 4, 4), stride=(2, 2), padding=(1, 1)),  # a dcgan generator layer
    TCase((3, 40, 5, 6), (40, 8, 3, 3), stride=(2, 3), padding=(1, 0), output_padding=(1, 2)),
    TCase((2, 32, 12, 11), (32, 16, 3, 3), padding=(1, 1)),  # stride 1: a conv2d with the flipped kernel
    TCase((2, 64, 5, 5), (64, 8, 3, 3), stride=(2, 2), groups=2, dilation=(2, 1)),
    TCase((16, 1, 1), (16, 48, 4, 4)),  # unbatched, 1x1 -> 4x4
    TCase((2, 32, 4, 4), (32, 8, 4, 4), stride=(2, 2), padding=(1, 1), bias=True),
]


@pytest.mark.parametrize("case", TCASES, ids=lambda c: f"x{c.x}-w{c.w}-s{c.stride}-p{c.padding}-op{c.output_padding}"
                         f"-g{c.groups}-d{c.dilation}" + ("-bias" if c.bias else ""))
def test_conv_transpose2d(blas: str, threads: int, case: TCase) -> None:
    x, w = bf16_values(case.x, 20), bf16_values(case.w, 21)
    b = bf16_values((case.w[1] * case.groups,), 22) if case.bias else None

    def run(dtype: torch.dtype, xs: np.ndarray, ws: np.ndarray, bs: np.ndarray | None,
            gy: np.ndarray | None) -> tuple[torch.Tensor, ...]:
        tx, tw = (torch.from_numpy(a).to(dtype).requires_grad_() for a in (xs, ws))
        tb = torch.from_numpy(bs).to(dtype).requires_grad_() if bs is not None else None
        y: Any = torch.nn.functional.conv_transpose2d(tx, tw, tb, **case.kwargs())
        if gy is None:
            return (y.detach(),)
        y.backward(torch.from_numpy(gy).to(dtype))
        assert tx.grad is not None and tw.grad is not None
        return (y.detach(), tx.grad, tw.grad) + ((tb.grad,) if tb is not None and tb.grad is not None else ())

    gy = bf16_values(tuple(run(torch.float32, x, w, b, None)[0].shape), 23)
    exact = run(torch.float64, x, w, b, gy)
    bound = run(torch.float64, np.abs(x), np.abs(w), np.abs(b) if b is not None else None, np.abs(gy))
    theirs = run(torch.bfloat16, x, w, b, gy)
    ox, ow = as_bf16(x).requires_grad_(), as_bf16(w).requires_grad_()
    ob = as_bf16(b).requires_grad_() if b is not None else None
    y = F.conv_transpose2d(ox, ow, ob, **case.kwargs())
    y.backward(as_bf16(gy))
    assert ox.grad is not None and ow.grad is not None
    cin_g, cout_g, kh, kw = case.w[0] // case.groups, case.w[1], case.w[2], case.w[3]
    positions = (case.x[0] if len(case.x) == 4 else 1) * int(np.prod(case.x[-2:]))
    _check("y", y.detach(), exact[0], bound[0], cin_g * kh * kw + 1, theirs[0])
    _check("dx", ox.grad, exact[1], bound[1], cout_g * kh * kw, theirs[1])
    _check("dw", ow.grad, exact[2], bound[2], positions, theirs[2])
    if ob is not None:
        assert ob.grad is not None
        _check("db", ob.grad, exact[3], bound[3], int(np.prod(gy.shape)), theirs[3])
