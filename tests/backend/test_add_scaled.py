"""``add_``/``sub_`` with ``alpha``: the fused in-place axpy (contiguous floating tensors, nothing
recorded) and the general path (broadcasting, strided views, integers, recorded ops) give torch's
result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor._runtime as tt

torch = pytest.importorskip("torch")

CASES: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = [
    # (name, make self from array, make other from array)
    ("contiguous", lambda t: t, lambda t: t),
    ("broadcast", lambda t: t, lambda t: t[:1]),
    ("strided self", lambda t: t.t(), lambda t: t[: t.shape[1], : t.shape[0]]),
    ("strided other", lambda t: t[:, :3], lambda t: t.t()[:3, : t.shape[0]].t()),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method", ["add_", "sub_"])
@pytest.mark.parametrize(("size", "case"), [(n, c) for n in (7, 300) for c in CASES], ids=lambda v: str(v[0]) if isinstance(v, tuple) else str(v))
def test_matches_torch(dtype: str, method: str, size: int, case: tuple[str, Any, Any]) -> None:
    _, mk_self, mk_other = case
    rng = np.random.default_rng(size)
    a, b = rng.standard_normal((size, size)).astype(dtype), rng.standard_normal((size, size)).astype(dtype)
    ours_self, ref_self = mk_self(tt.tensor(a)), mk_self(torch.tensor(a))
    ours_other, ref_other = mk_other(tt.tensor(b)), mk_other(torch.tensor(b))
    getattr(ours_self, method)(ours_other, alpha=-0.37)
    getattr(ref_self, method)(ref_other, alpha=-0.37)
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(ours_self.numpy(), ref_self.numpy(), rtol=tol, atol=tol)


def test_integer_alpha_on_integers() -> None:
    a, b = np.arange(12).reshape(3, 4), np.arange(12).reshape(3, 4) % 5
    ours = tt.tensor(a)
    ours.add_(tt.tensor(b), alpha=3).sub_(tt.tensor(b), alpha=2)
    ref = torch.tensor(a)
    ref.add_(torch.tensor(b), alpha=3).sub_(torch.tensor(b), alpha=2)
    np.testing.assert_array_equal(ours.numpy(), ref.numpy())


def test_recorded_in_place_update_has_torch_gradient() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    xo, yo = tt.tensor(a, requires_grad=True), tt.tensor(b, requires_grad=True)
    zo = xo * 1.0
    zo.add_(yo, alpha=2.5)
    (zo * zo).sum().backward()
    xr, yr = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    zr = xr * 1.0
    zr.add_(yr, alpha=2.5)
    (zr * zr).sum().backward()
    assert xo.grad is not None and yo.grad is not None and xr.grad is not None and yr.grad is not None
    np.testing.assert_allclose(xo.grad.numpy(), xr.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(yo.grad.numpy(), yr.grad.numpy(), rtol=1e-12)


def test_fused_update_bumps_the_version_counter() -> None:
    # a tensor saved for backward and then updated in place must be refused, as in torch
    w = tt.tensor(np.ones((3, 3)), requires_grad=True)
    x = tt.tensor(np.ones((3, 3)))
    y = (w * w).sum()
    with tt.no_grad():
        w.add_(x, alpha=0.5)
    with pytest.raises(RuntimeError):
        y.backward()
