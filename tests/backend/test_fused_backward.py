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
