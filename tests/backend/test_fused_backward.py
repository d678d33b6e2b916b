"""Fused backward kernels (one pass instead of a chain of front-end ops) against torch: relu's
gradient, first and second order, on tensors big enough to be split across threads."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor._runtime as tt

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(3, 4), (64, 1100)])
def test_relu_grad_matches_torch(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    x[0, :2] = 0.0  # relu'(0) is 0 in both
    g = rng.standard_normal(shape).astype(np.float32)
    xt = tt.tensor(x, requires_grad=True)
    tt.functional.relu(xt).backward(tt.tensor(g))
    xr = torch.tensor(x, requires_grad=True)
    torch.nn.functional.relu(xr).backward(torch.tensor(g))
    assert xt.grad is not None and xr.grad is not None
    np.testing.assert_array_equal(xt.grad.numpy(), xr.grad.numpy())


def test_relu_double_backward_matches_torch() -> None:
    rng = np.random.default_rng(1)
    x, g, c = (rng.standard_normal((5, 7)) for _ in range(3))
    xt, gt = tt.tensor(x, requires_grad=True), tt.tensor(g, requires_grad=True)
    (dx,) = tt.autograd.grad([tt.functional.relu(xt)], [xt], [gt], create_graph=True)
    d2 = tt.autograd.grad([dx], [xt, gt], [tt.tensor(c)], allow_unused=True)
    xr, gr = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    (dxr,) = torch.autograd.grad(torch.relu(xr), xr, gr, create_graph=True)
    d2r = torch.autograd.grad(dxr, [xr, gr], torch.tensor(c), allow_unused=True)
    np.testing.assert_array_equal(dx.detach().numpy(), dxr.detach().numpy())
    # d/dg is the mask applied to c; d/dx is zero (torch reports it as zeros or unused)
    np.testing.assert_array_equal(d2[1].numpy(), d2r[1].numpy())
    zero_x = np.zeros_like(x) if d2r[0] is None else d2r[0].numpy()
    got_x = np.zeros_like(x) if d2[0] is None else d2[0].numpy()
    np.testing.assert_array_equal(got_x, zero_x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("shape", [(7, 3), (300, 129)])
def test_cross_entropy_matches_torch(dtype: str, reduction: str, shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(shape[0])
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    t = rng.integers(0, shape[1], shape[0])
    t[1] = -100  # ignored row
    xt, xr = tt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lt = tt.functional.cross_entropy(xt, tt.tensor(t), reduction=reduction)
    lr = torch.nn.functional.cross_entropy(xr, torch.tensor(t), reduction=reduction)
    lt.backward(tt.tensor(np.array(1.7, dtype=dtype)))
    lr.backward(torch.tensor(1.7, dtype=lr.dtype))
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(lt.item(), lr.item(), rtol=tol)
    assert xt.grad is not None and xr.grad is not None
    np.testing.assert_allclose(xt.grad.numpy(), xr.grad.numpy(), rtol=tol, atol=tol)


def test_cross_entropy_double_backward_matches_torch() -> None:
    rng = np.random.default_rng(5)
    x, c = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
    t = np.array([0, 3, -100, 1, 2, 2])
    g = 0.8
    outs = []
    for lib in (tt, torch):
        xs = lib.tensor(x, requires_grad=True)
        gs = lib.tensor(np.array(g), requires_grad=True)
        fn = tt.functional.cross_entropy if lib is tt else torch.nn.functional.cross_entropy
        (dx,) = lib.autograd.grad([fn(xs, lib.tensor(t))], [xs], [gs], create_graph=True)
        d2 = lib.autograd.grad([dx], [xs, gs], [lib.tensor(c)])
        outs.append([dx.detach().numpy(), d2[0].numpy(), d2[1].numpy()])
    for ours, ref in zip(*outs, strict=True):
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)


def test_cross_entropy_all_rows_ignored_is_nan_with_zero_grad() -> None:
    xt = tt.tensor(np.ones((2, 3)), requires_grad=True)
    loss = tt.functional.cross_entropy(xt, tt.tensor(np.array([-100, -100])))
    ref = torch.nn.functional.cross_entropy(torch.ones(2, 3, dtype=torch.float64), torch.tensor([-100, -100]))
    assert np.isnan(loss.item()) and np.isnan(ref.item())


def test_cross_entropy_target_out_of_range_is_an_index_error() -> None:
    with pytest.raises(IndexError, match="out of bounds"):
        tt.functional.cross_entropy(tt.tensor(np.zeros((2, 3))), tt.tensor(np.array([0, 3])))
    with pytest.raises(IndexError, match="out of bounds"):
        tt.functional.cross_entropy(tt.tensor(np.zeros((2, 3))), tt.tensor(np.array([-1, 0])))
