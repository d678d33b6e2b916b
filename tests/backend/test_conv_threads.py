"""conv2d's gradients when samples are split across threads (each thread its own column buffer
and partial weight gradient) and when they are not (fewer samples than threads: the GEMMs are
split instead) match torch's, for padded, strided, dilated, grouped and 1x1 convolutions."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor._runtime as tt

torch = pytest.importorskip("torch")

GEOMETRIES = [
    # (batch, c, h, w, o, k, stride, padding, dilation, groups)
    (5, 3, 9, 8, 4, 3, 1, 1, 1, 1),
    (3, 4, 7, 7, 6, 3, 2, 0, 1, 2),
    (4, 2, 8, 9, 3, 3, 1, 2, 2, 1),
    (6, 8, 5, 5, 4, 1, 1, 0, 1, 1),
    (1, 3, 6, 6, 2, 3, 1, 1, 1, 1),
]


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("geom", GEOMETRIES)
def test_conv2d_grads_match_torch(geom: tuple[int, ...], threads: int) -> None:
    n, c, h, w, o, k, s, p, d, g = geom
    rng = np.random.default_rng(sum(geom) + threads)
    x = rng.standard_normal((n, c, h, w))
    wt = rng.standard_normal((o, c // g, k, k))
    b = rng.standard_normal(o)
    prev = tt.get_num_threads()
    tt.set_num_threads(threads)
    try:
        ours = [tt.tensor(a, requires_grad=True) for a in (x, wt, b)]
        out = tt.functional.conv2d(*ours, stride=s, padding=p, dilation=d, groups=g)
        ct = rng.standard_normal(tuple(out.shape))
        out.backward(tt.tensor(ct))
    finally:
        tt.set_num_threads(prev)
    ref = [torch.tensor(a, requires_grad=True) for a in (x, wt, b)]
    rout = torch.nn.functional.conv2d(*ref, stride=s, padding=p, dilation=d, groups=g)
    rout.backward(torch.tensor(ct))
    np.testing.assert_allclose(out.detach().numpy(), rout.detach().numpy(), rtol=1e-10, atol=1e-10)
    for mine, theirs in zip(ours, ref, strict=True):
        assert mine.grad is not None and theirs.grad is not None
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("threads", [1, 2])
def test_max_pool2d_grad_matches_torch(threads: int) -> None:
    x = np.random.default_rng(threads).standard_normal((4, 16, 32, 30)).astype(np.float32)
    prev = tt.get_num_threads()
    tt.set_num_threads(threads)
    try:
        xt = tt.tensor(x, requires_grad=True)
        tt.functional.max_pool2d(xt, 2).sum().backward()
    finally:
        tt.set_num_threads(prev)
    xr = torch.tensor(x, requires_grad=True)
    torch.nn.functional.max_pool2d(xr, 2).sum().backward()
    assert xt.grad is not None and xr.grad is not None
    np.testing.assert_array_equal(xt.grad.numpy(), xr.grad.numpy())


@pytest.mark.parametrize(
    ("kernel", "stride", "padding", "ceil_mode"),
    [(2, 2, 0, False), (3, 2, 0, False), (2, 1, 0, False), (3, 2, 1, False), (2, 2, 0, True)],
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_max_pool2d_values_and_indices_match_torch(kernel: int, stride: int, padding: int, ceil_mode: bool, dtype: str) -> None:
    rng = np.random.default_rng(kernel * 10 + stride)
    # few distinct values, so windows hold ties (the first maximum's index wins in both libraries)
    x = rng.integers(-3, 4, (2, 3, 9, 37)).astype(dtype)  # rows of 18 outputs: full and partial groups
    ours, oi = tt.functional.max_pool2d(tt.tensor(x), kernel, stride, padding, ceil_mode=ceil_mode, return_indices=True)
    ref, ri = torch.nn.functional.max_pool2d(
        torch.tensor(x).double(), kernel, stride, padding, ceil_mode=ceil_mode, return_indices=True,
    )
    np.testing.assert_array_equal(ours.numpy(), ref.numpy().astype(dtype))
    np.testing.assert_array_equal(oi.numpy(), ri.numpy())


def test_max_pool2d_nan_wins_its_window() -> None:
    x = np.random.default_rng(3).standard_normal((1, 2, 6, 40)).astype(np.float32)
    x[0, 0, 1, 1] = np.nan
    x[0, 1, 4, 6] = np.nan
    x[0, 1, 0, 35] = np.nan
    out = tt.functional.max_pool2d(tt.tensor(x), 2).numpy()
    ref = torch.nn.functional.max_pool2d(torch.tensor(x), 2).numpy()
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))
    np.testing.assert_array_equal(out[~np.isnan(out)], ref[~np.isnan(ref)])
    assert np.isnan(out[0, 0, 0, 0]) and np.isnan(out[0, 1, 2, 3]) and np.isnan(out[0, 1, 0, 17])


@pytest.mark.parametrize("w", [2, 3, 6, 7, 14, 15, 16, 17, 30, 31, 34])
@pytest.mark.parametrize("h", [2, 3, 4])
def test_max_pool2d_2x2_every_row_width(h: int, w: int) -> None:
    """2x2/stride-2 float32 pooling takes its AVX2 path: whole groups of eight outputs, and a row's
    partial last group read as whole vectors where they stay inside the input, else through a copy
    (the input's last row pair). Every width from one output to several groups with and without a
    partial group, ties included, against torch's values and indices."""
    rng = np.random.default_rng(h * 100 + w)
    x = rng.integers(-3, 4, (3, 2, h, w)).astype(np.float32)
    ours, oi = tt.functional.max_pool2d(tt.tensor(x), 2, return_indices=True)
    ref, ri = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())
    np.testing.assert_array_equal(oi.numpy(), ri.numpy())


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize(("n", "c", "h", "stride", "groups"), [(13, 160, 7, 1, 1), (5, 320, 14, 2, 2), (1, 160, 7, 1, 1)])
def test_conv2d_forward_sample_blocks_match_torch(n: int, c: int, h: int, stride: int, groups: int, threads: int) -> None:
    """Convolutions whose columns per sample outgrow L2 (NOTE [ Sample blocks ] in cpu/im2col.h: here
    1440 x 49 float64 per group, 564 KB) run their forward a block of samples per GEMM: blocks of
    several samples and a last, shorter one, strided and grouped, split over threads, against torch."""
    rng = np.random.default_rng(n * 10 + h + threads)
    x = rng.standard_normal((n, c, h, h))
    wt = rng.standard_normal((24, c // groups, 3, 3))
    b = rng.standard_normal(24)
    prev = tt.get_num_threads()
    tt.set_num_threads(threads)
    try:
        out = tt.functional.conv2d(tt.tensor(x), tt.tensor(wt), tt.tensor(b), stride=stride, padding=1, groups=groups)
    finally:
        tt.set_num_threads(prev)
    ref = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(wt), torch.tensor(b), stride=stride, padding=1, groups=groups)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-10, atol=1e-10)
