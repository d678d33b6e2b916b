"""Small models written with nn.functional, trained 3 SGD steps from identical weights in both
libraries: the same losses and parameter gradients (float32, relative error <= 1e-4)."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import typedtensor._runtime as tt

torch = pytest.importorskip("torch")

TT = SimpleNamespace(t=tt, F=tt.functional)
TORCH = SimpleNamespace(t=torch, F=torch.nn.functional)


def mlp(L: Any, ps: list[Any], x: Any, y: Any) -> Any:
    w1, b1, w2, b2, w3, b3 = ps
    h = L.F.linear(x, w1, b1).relu()
    h = L.F.gelu(L.F.linear(h, w2, b2))
    return L.F.cross_entropy(L.F.linear(h, w3, b3), y)


def cnn(L: Any, ps: list[Any], x: Any, y: Any) -> Any:
    c1, cb1, c2, cb2, g, b, w, wb = ps
    h = L.F.max_pool2d(L.F.conv2d(x, c1, cb1, padding=1).relu(), 2)
    h = L.F.avg_pool2d(L.F.conv2d(h, c2, cb2, padding=1), 2).tanh()
    h = L.F.layer_norm(h.flatten(1), (h.shape[1] * h.shape[2] * h.shape[3],), g, b)
    return L.F.cross_entropy(L.F.linear(L.F.dropout(h, 0.0), w, wb), y)


def _train(L: Any, model: Callable[..., Any], arrays: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> tuple[list[float], list[list[np.ndarray]]]:
    ps = [L.t.tensor(a, requires_grad=True) for a in arrays]
    xt, yt = L.t.tensor(x), L.t.tensor(y)
    losses, grads = [], []
    for _ in range(3):
        loss = model(L, ps, xt, yt)
        loss.backward()
        losses.append(float(loss.item()))
        grads.append([np.array(p.grad.numpy()) for p in ps])
        with L.t.no_grad():
            for p in ps:
                p -= 0.1 * p.grad
                p.grad = None
    return losses, grads


def _compare(model: Callable[..., Any], arrays: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> None:
    l1, g1 = _train(TT, model, arrays, x, y)
    l2, g2 = _train(TORCH, model, arrays, x, y)
    np.testing.assert_allclose(l1, l2, rtol=1e-4)
    for step_ours, step_theirs in zip(g1, g2, strict=True):
        for a, b in zip(step_ours, step_theirs, strict=True):
            scale = max(float(np.abs(b).max()), 1e-6)
            assert float(np.abs(a - b).max()) / scale <= 1e-4


def test_mlp_three_sgd_steps_match_torch() -> None:
    rng = np.random.RandomState(0)
    shapes = [(32, 20), (32,), (16, 32), (16,), (5, 16), (5,)]
    arrays = [(rng.randn(*s) * 0.3).astype(np.float32) for s in shapes]
    _compare(mlp, arrays, rng.randn(12, 20).astype(np.float32), rng.randint(0, 5, 12))


def test_cnn_three_sgd_steps_match_torch() -> None:
    rng = np.random.RandomState(1)
    shapes = [(4, 1, 3, 3), (4,), (6, 4, 3, 3), (6,), (24,), (24,), (3, 24), (3,)]
    arrays = [(rng.randn(*s) * 0.3).astype(np.float32) for s in shapes]
    arrays[4] = np.ones(24, np.float32)
    _compare(cnn, arrays, rng.randn(5, 1, 8, 8).astype(np.float32), rng.randint(0, 3, 5))
