"""The backward sweep sums two gradients of one tensor in place into the second when the first is
not writable (an expanded gradient, as mean() gives): the sums match torch's, and a gradient the
caller can still see (returned by a hook, kept by retain_grad) is never written."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")


def _grads(lib: Any, xn: np.ndarray, keep: list[Any]) -> np.ndarray:
    x = lib.tensor(xn, requires_grad=True)
    h = x * 2.0
    h.retain_grad()
    keep.append(h)
    (h.mean() + (h * 3.0).sum() + (h * h).sum()).backward()  # expanded, then fresh contiguous gradients
    return x.grad.numpy()


def test_sum_of_an_expanded_and_a_fresh_gradient_matches_torch() -> None:
    xn = np.random.default_rng(0).standard_normal((6, 7)).astype(np.float32)
    ours: list[Any] = []
    ref: list[Any] = []
    np.testing.assert_allclose(_grads(tt, xn, ours), _grads(torch, xn, ref), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours[0].grad.numpy(), ref[0].grad.numpy(), rtol=1e-6, atol=1e-6)


def test_a_gradient_a_hook_keeps_is_not_written() -> None:
    xn = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    x = tt.tensor(xn, requires_grad=True)
    seen: list[Any] = []

    def keep(g: tt.Tensor) -> None:
        seen.append((g, g.numpy().copy()))

    a = x * 3.0
    a.register_hook(keep)  # the caller holds this gradient
    h = x + 0.0
    (h.mean() + (a * h).sum()).backward()
    g, before = seen[0]
    np.testing.assert_array_equal(g.numpy(), before)
    np.testing.assert_allclose(x.grad.numpy(), 1.0 / xn.size + 6.0 * xn, rtol=1e-5, atol=1e-6)
