"""A compiled training step: forward and backward traced into one optimised graph; its loss and
gradients equal eager mode's (and torch's)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.graph.helpers import close, leaf_params


def _mlp_loss(ps: list[Any], x: Any, y: Any) -> Any:
    w1, b1, w2, b2 = ps
    h = tt.tanh(x @ w1 + b1) * 0.5 + (x @ w1 + b1).relu()
    out = h @ w2 + b2
    return ((out - y) ** 2).mean()


def _gelu_loss(ps: list[Any], x: Any, y: Any) -> Any:
    w1, b1, w2 = ps
    h = tt.gelu(x @ w1 + b1) + tt.silu(x @ w1) * 0.25  # their backward is an opaque fused kernel
    return ((h @ w2 - y).abs()).mean()


def _attn_loss(ps: list[Any], x: Any, y: Any) -> Any:
    wq, wk, wv, wo, g, b = ps
    h = tt.layer_norm(x, (x.shape[-1],), g, b, 1e-5)
    q, k, v = h @ wq, h @ wk, h @ wv
    att = (q @ k.transpose(-1, -2) * (1.0 / q.shape[-1] ** 0.5)).softmax(-1)
    out = (att @ v) @ wo + x
    return ((out - y) ** 2).mean()


CASES = {
    "mlp": (_mlp_loss, [(6, 16), (16,), (16, 3), (3,)], (8, 6), (8, 3)),
    "gelu": (_gelu_loss, [(5, 12), (12,), (12, 2)], (7, 5), (7, 2)),
    "attention": (_attn_loss, [(8, 8), (8, 8), (8, 8), (8, 8), (8,), (8,)], (2, 5, 8), (2, 5, 8)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_training_step_matches_eager(name: str) -> None:
    loss_fn, shapes, xs, ys = CASES[name]
    eager_ps, comp_ps = leaf_params(1, shapes), leaf_params(1, shapes)
    x, y = tt.randn(*xs), tt.randn(*ys)

    def step(x: Any, y: Any) -> Any:
        loss = loss_fn(comp_ps, x, y)
        loss.backward()
        return loss.detach()

    cstep = tt.compile(step, params=comp_ps)
    for it in range(3):  # the first call traces (eagerly), the next ones run the graph
        loss_e = loss_fn(eager_ps, x, y)
        loss_e.backward()
        loss_c = cstep(x, y)
        close(loss_c, loss_e.detach(), rtol=1e-5)
        for pe, pc in zip(eager_ps, comp_ps, strict=True):
            close(pc.grad, pe.grad, rtol=1e-4, atol=1e-6)  # accumulated over `it + 1` steps
        with tt.no_grad():  # an SGD update, outside the compiled step
            for pe, pc in zip(eager_ps, comp_ps, strict=True):
                pe.sub_(pe.grad * 0.1)
                pc.sub_(pc.grad * 0.1)
        for p in eager_ps + comp_ps:
            p.grad = None
        assert cstep.traces == 1, it
    g = cstep.graph_for(x, y)
    assert "fused" in g.op_counts()


def test_training_step_gradients_match_torch() -> None:
    torch = pytest.importorskip("torch")
    loss_fn, shapes, xs, ys = CASES["mlp"]
    ps = leaf_params(3, shapes)
    x, y = tt.randn(*xs), tt.randn(*ys)
    tps = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in ps]

    def step(x: Any, y: Any) -> Any:
        loss = loss_fn(ps, x, y)
        loss.backward()
        return loss.detach()

    cstep = tt.compile(step, params=ps)
    cstep(x, y)
    for p in ps:
        p.grad = None
    loss = cstep(x, y)
    tx, ty = torch.tensor(x.numpy()), torch.tensor(y.numpy())
    w1, b1, w2, b2 = tps
    h = torch.tanh(tx @ w1 + b1) * 0.5 + (tx @ w1 + b1).relu()
    tloss = (((h @ w2 + b2) - ty) ** 2).mean()
    tloss.backward()
    np.testing.assert_allclose(loss.numpy(), tloss.detach().numpy(), rtol=1e-5)
    for p, tp in zip(ps, tps, strict=True):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-6)
