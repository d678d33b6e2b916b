"""Runs cuda_cases.CASES on the CPU and on a CUDA device (real or host-emulated) and compares."""

from __future__ import annotations

from typing import Any

import numpy as np

import typedtensor._runtime as tt
from tests.backend.cuda_cases import CASES, RANDOM, assert_same, to_host
from typedtensor._runtime import functional as F


def run_case(name: str, dev: str) -> Any:
    tt.manual_seed(0)
    return CASES[name](lambda arr, **kw: tt.tensor(arr, device=dev, **kw), dev)


def check_device_of(x: Any, dev: str) -> None:
    if isinstance(x, tt.Tensor):
        assert x.device.type == dev.split(":")[0], f"result on {x.device}, expected {dev}"
    elif isinstance(x, (list, tuple)):
        for v in x:
            check_device_of(v, dev)


def compare_case(name: str, dev: str, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    ref = run_case(name, "cpu")
    got = run_case(name, dev)
    if name not in ("cpu", "item", "empty", "empty_like"):
        check_device_of(got, dev)
    if name in RANDOM:
        r, g = to_host(ref), to_host(got)
        assert r.shape == g.shape and r.dtype == g.dtype
        if name in ("rand", "rand_like"):
            assert g.min() >= 0.0 and g.max() < 1.0 and 0.4 < g.mean() < 0.6
        elif name in ("randn", "randn_like", "normal", "normal_of_size"):
            assert abs(g.mean()) < 0.2 and 0.8 < g.std() < 1.2
        elif name == "randint":
            assert g.min() >= 0 and g.max() < 10
        elif name in ("alpha_dropout", "feature_alpha_dropout"):
            assert len(np.unique(g)) == 2 and len(np.unique(r)) == 2
        elif name == "bernoulli":
            assert set(np.unique(g).tolist()) <= {0.0, 1.0}
        elif name == "randint_like":
            assert g.min() >= 0 and g.max() < 5
        elif name == "multinomial":
            assert g.min() >= 0 and g.max() < 25 and all(len(set(row)) == 5 for row in g.tolist())
        elif name == "uniform":
            assert g.min() >= 0.0 and g.max() < 1.0 and 0.4 < g.mean() < 0.6
        elif name == "exponential":
            assert g.min() >= 0.0 and 0.4 < g.mean() < 0.6
        elif name == "random":
            assert set(np.unique(g).tolist()) <= set(range(10))
        elif name == "randperm":
            np.testing.assert_array_equal(g, np.arange(50))
        elif name == "gumbel_softmax":  # rows of probabilities
            assert g.min() >= 0.0 and g.max() <= 1.0
            np.testing.assert_allclose(g.sum(-1), 1.0, rtol=1e-5)
        else:  # dropout: kept values scaled by 1 / (1 - p) = 2
            assert set(np.unique(g).tolist()) <= {0.0, 2.0} and 0.3 < (g == 0).mean() < 0.7
        return
    assert_same(to_host(got), to_host(ref), rtol, atol)


def mlp_losses(dev: str, steps: int = 3) -> list[float]:
    """Losses of a few SGD steps of a small MLP (linear, gelu, layer_norm, cross_entropy) on `dev`."""
    rng = np.random.default_rng(0)
    w1, b1 = rng.standard_normal((32, 16)).astype(np.float32) * 0.2, np.zeros(32, np.float32)
    w2, b2 = rng.standard_normal((4, 32)).astype(np.float32) * 0.2, np.zeros(4, np.float32)
    x, y = rng.standard_normal((64, 16)).astype(np.float32), rng.integers(0, 4, 64)
    params = [tt.tensor(p, device=dev, requires_grad=True) for p in (w1, b1, w2, b2)]
    X, Y = tt.tensor(x, device=dev), tt.tensor(y, device=dev)
    losses = []
    for _ in range(steps):
        h = F.gelu(F.linear(X, params[0], params[1]))
        loss = F.cross_entropy(F.linear(F.layer_norm(h, (32,)), params[2], params[3]), Y)
        loss.backward()
        with tt.no_grad():
            for p in params:
                assert p.grad.device.type == dev.split(":")[0], f"grad on {p.grad.device}, expected {dev}"
                p -= 0.1 * p.grad
                p.grad = None
        losses.append(loss.item())
    return losses


def conv_grads(dev: str) -> list[Any]:
    """Gradients of a conv / pool / embedding / softmax network's loss w.r.t. every parameter."""
    rng = np.random.default_rng(1)
    mk = lambda *s: tt.tensor(rng.standard_normal(s).astype(np.float32) * 0.3, device=dev, requires_grad=True)
    w1, b1, w2, emb = mk(6, 3, 3, 3), mk(6), mk(4, 3, 1, 1), mk(10, 5)
    x = tt.tensor(rng.standard_normal((2, 3, 9, 8)).astype(np.float32), device=dev)
    ids = tt.tensor(rng.integers(0, 10, (2, 4)), device=dev)
    h = F.conv2d(x, w1, b1, stride=2, padding=1, groups=1)
    h = F.max_pool2d(F.relu(h), 2).sum() + F.avg_pool2d(h, 2, 1).mean() + F.adaptive_avg_pool2d(h, (2, 2)).sum()
    g = F.conv2d(x, w2).square().mean()
    e = tt.softmax(F.embedding(ids, emb), -1)[..., 0].sum()
    loss = h + g + e
    loss.backward()
    return [to_host(p.grad) for p in (w1, b1, w2, emb)]


def nn_losses(dev: str, steps: int = 3) -> list[float]:
    """A few Adam steps of an nn.Module (Linear, GELU, LayerNorm, MultiheadAttention, Embedding)."""
    from typedtensor import nn, optim

    tt.manual_seed(0)
    emb, attn = nn.Embedding(20, 16), nn.MultiheadAttention(16, 4, batch_first=True)
    head = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))
    mods = [m.to(dev) for m in (emb, attn, head)]
    params = [p for m in mods for p in m.parameters()]
    opt = optim.Adam(params, lr=1e-2)
    rng = np.random.default_rng(0)
    ids = tt.tensor(rng.integers(0, 20, (8, 6)), device=dev)
    y = tt.tensor(rng.integers(0, 4, 8), device=dev)
    losses = []
    for _ in range(steps):
        h = emb(ids)
        a, _ = attn(h, h, h, is_causal=True, attn_mask=None)
        loss = F.cross_entropy(head(a.mean(1)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        for p in params:
            assert p.device.type == dev.split(":")[0]
        losses.append(loss.item())
    return losses
