"""The backward sweep adds a view's gradient straight into the gradient being summed for the view's
input (Primitive::vjp_accumulate, NOTE [ Autograd engine ]) instead of scattering it into a fresh
zero tensor first: chunks, overlapping slices, selects and diagonals of leaves and of intermediate
results, mixed with other uses of the same tensor, under autograd.grad, hooks, retain_grad and
create_graph — every gradient as torch's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import typedtensor as tt


def _qkv_heads(lib: Any, x: Any, w: Any) -> Any:
    q, k, v = (u.reshape(2, 5, 2, 3).transpose(1, 2) for u in (x @ w).chunk(3, -1))
    return ((q @ k.transpose(-2, -1)).softmax(-1) @ v).sum() + (q * v).sum()


def _overlapping(lib: Any, x: Any, w: Any) -> Any:
    h = x @ w  # [2, 5, 18]
    a, b = h[:, 1:4], h[:, 2:5]  # overlapping slices of a non-leaf
    s = h.select(2, 7)
    d = h[0, :, :5].diagonal()
    return (a * b).sum() + (s**2).sum() + d.sum() + (h * 0.5).sum()


def _leaf_views(lib: Any, x: Any, w: Any) -> Any:
    return (w[:, :6] * 2).sum() + (w[:, 3:9] ** 2).sum() + w[1].sum() + (x[:, :, 0] * x[:, :, 1]).sum()


CASES: dict[str, Callable[[Any, Any, Any], Any]] = {
    "qkv chunks": _qkv_heads, "overlapping slices, select, diagonal": _overlapping, "views of leaves": _leaf_views,
}


def _inputs(lib: Any) -> tuple[Any, Any]:
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 5, 4)), rng.standard_normal((4, 18))
    return lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)


@pytest.mark.parametrize("case", list(CASES))
def test_backward_matches_torch(case: str) -> None:
    (x, w), (tx, tw) = _inputs(tt), _inputs(torch)
    CASES[case](tt, x, w).backward()
    CASES[case](torch, tx, tw).backward()
    for ours, ref in ((x, tx), (w, tw)):
        assert ours.grad is not None and ref.grad is not None
        np.testing.assert_allclose(ours.grad.numpy(), ref.grad.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("case", list(CASES))
def test_autograd_grad_matches_torch(case: str) -> None:
    (x, w), (tx, tw) = _inputs(tt), _inputs(torch)
    ours = tt.autograd.grad(CASES[case](tt, x, w), [x, w])
    ref = torch.autograd.grad(CASES[case](torch, tx, tw), [tx, tw])
    for a, b in zip(ours, ref, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-10)
    assert x.grad is None and w.grad is None


@pytest.mark.parametrize("case", list(CASES))
def test_double_backward_through_views(case: str) -> None:
    (x, w), (tx, tw) = _inputs(tt), _inputs(torch)
    (gw,) = tt.autograd.grad(CASES[case](tt, x, w), [w], create_graph=True)
    (tgw,) = torch.autograd.grad(CASES[case](torch, tx, tw), [tw], create_graph=True)
    (gw**2).sum().backward()
    (tgw**2).sum().backward()
    for ours, ref in ((x, tx), (w, tw)):
        assert (ours.grad is None) == (ref.grad is None)
        if ours.grad is not None and ref.grad is not None:
            np.testing.assert_allclose(ours.grad.numpy(), ref.grad.numpy(), rtol=1e-9, atol=1e-9)


def test_hook_and_retain_grad_see_the_whole_sum_once() -> None:
    seen: list[np.ndarray] = []
    results = []
    for lib in (tt, torch):
        x, w = _inputs(lib)
        h = x @ w
        h.retain_grad()
        calls: list[np.ndarray] = []
        h.register_hook(lambda g, calls=calls: calls.append(g.detach().numpy().copy()))
        a, b, c = h.chunk(3, -1)
        ((a * b).sum() + (c**3).sum() + h[:, 0].sum()).backward()
        assert len(calls) == 1
        seen.append(calls[0])
        results.append(h.grad.numpy())
    np.testing.assert_allclose(seen[0], seen[1], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10, atol=1e-10)


def test_user_gradient_is_not_written_into() -> None:
    """A gradient the caller passes in (and still holds) is summed out of place."""
    x, w = _inputs(tt)
    h = x @ w
    g = tt.ones(2, 5, 18, dtype=tt.float64)
    tt.autograd.backward([h, h[:, :2]], [g, tt.ones(2, 2, 18, dtype=tt.float64)])
    np.testing.assert_array_equal(g.numpy(), np.ones((2, 5, 18)))
    assert w.grad is not None
    expect = np.einsum("bsi,bsj->ij", x.detach().numpy(), np.ones((2, 5, 18)) + np.pad(np.ones((2, 2, 18)), ((0, 0), (0, 3), (0, 0))))
    np.testing.assert_allclose(w.grad.numpy(), expect, rtol=1e-10, atol=1e-10)
