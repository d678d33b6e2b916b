"""layer_norm's fused backward (backend/src/cpu/layer_norm_backward.cpp) against torch: input, weight
and bias gradients for float32 / float64, with and without the affine parameters, over rows split
between threads (2500 rows: the column sums go through many float blocks of rows); a double backward (create_graph) still goes through the differentiable composite;
and a compiled training step records the fused primitive."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import typedtensor as tt


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(4, 7, 33), (300, 256), (1, 5), (2500, 40)])
def test_gradients_match_torch(dtype: Any, affine: bool, shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(len(shape))
    n = shape[-1]
    xn, gn = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
    wn, bn = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    x, tx = tt.tensor(xn, requires_grad=True), torch.tensor(xn, requires_grad=True)
    w = tt.tensor(wn, requires_grad=True) if affine else None
    b = tt.tensor(bn, requires_grad=True) if affine else None
    tw = torch.tensor(wn, requires_grad=True) if affine else None
    tb = torch.tensor(bn, requires_grad=True) if affine else None
    prev = tt.get_num_threads()
    tt.set_num_threads(2)
    try:
        tt.nn.functional.layer_norm(x, (n,), w, b, 1e-5).backward(tt.tensor(gn))
    finally:
        tt.set_num_threads(prev)
    torch.nn.functional.layer_norm(tx, (n,), tw, tb, 1e-5).backward(torch.tensor(gn))
    tol = 1e-4 if dtype == np.float32 else 1e-10
    pairs = [(x, tx)] + ([(w, tw), (b, tb)] if affine else [])
    for ours, ref in pairs:
        assert ours is not None and ours.grad is not None and ref is not None and ref.grad is not None
        np.testing.assert_allclose(ours.grad.numpy(), ref.grad.numpy(), rtol=tol, atol=tol)


def test_double_backward_uses_the_composite() -> None:
    rng = np.random.default_rng(1)
    xn, wn = rng.standard_normal((6, 16)), rng.standard_normal(16)
    x, w = tt.tensor(xn, requires_grad=True), tt.tensor(wn, requires_grad=True)
    (gx,) = tt.autograd.grad(tt.nn.functional.layer_norm(x, (16,), w).pow(2).sum(), [x], create_graph=True)
    gx.sum().backward()
    tx, tw = torch.tensor(xn, requires_grad=True), torch.tensor(wn, requires_grad=True)
    (tgx,) = torch.autograd.grad(torch.nn.functional.layer_norm(tx, (16,), tw).pow(2).sum(), [tx], create_graph=True)
    tgx.sum().backward()
    np.testing.assert_allclose(gx.detach().numpy(), tgx.detach().numpy(), rtol=1e-10, atol=1e-10)
    assert w.grad is not None and tw.grad is not None
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-9, atol=1e-9)


def test_compiled_step_records_the_fused_backward() -> None:
    rng = np.random.default_rng(2)
    x = tt.tensor(rng.standard_normal((8, 32)).astype(np.float32), requires_grad=True)
    w = tt.tensor(rng.standard_normal(32).astype(np.float32), requires_grad=True)

    def step(y: Any) -> Any:
        loss = (tt.nn.functional.layer_norm(x, (32,), w) * y).sum()
        loss.backward()
        return loss.detach()

    y = tt.tensor(rng.standard_normal((8, 32)).astype(np.float32))
    compiled = tt.compile(step, params=[x, w])
    compiled(y)
    assert "layer_norm_backward" in compiled.graph_for(y).op_counts()
