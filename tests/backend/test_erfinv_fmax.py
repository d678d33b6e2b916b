"""The ops added through the op table's path (docs/adding-an-op.md): erfinv, fmax and fmin
against torch, on their edges (the ends of erfinv's domain, NaN operands) as well as in the bulk."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import typedtensor as tt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfinv_matches_torch_over_its_domain_and_edges(dtype: str) -> None:
    rng = np.random.default_rng(3)
    edges = [0.0, -0.0, 1.0, -1.0, 1.5, -1.5, np.nan, np.inf, 1e-30, -1e-30, 0.5, -0.5, 0.9999999, 1 - 2**-24,
             -(1 - 2**-24)]
    x = np.concatenate([rng.uniform(-1, 1, 4000), 1 - rng.uniform(0, 1e-6, 200), edges]).astype(dtype)
    got = tt.tensor(x).erfinv().numpy()
    want = torch.tensor(x).erfinv().numpy()
    tol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(np.isinf(got), np.isinf(want))
    # the inverse of erf where erf is not flat
    # (past |y| = 2, float32's erf(y) is within a few ulps of 1 and no longer tells y apart)
    y = rng.uniform(-2, 2, 1000).astype(dtype)
    back = tt.tensor(y).erf().erfinv().numpy()
    np.testing.assert_allclose(back, y, rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-5 if dtype == "float32" else 1e-12)


def test_erfinv_inplace_and_its_gradient() -> None:
    x = np.array([-0.9, -0.3, 0.0, 0.4, 0.95])
    a = tt.tensor(x, requires_grad=True)
    a.erfinv().sum().backward()
    r = torch.tensor(x, requires_grad=True)
    r.erfinv().sum().backward()
    assert a.grad is not None and r.grad is not None
    np.testing.assert_allclose(a.grad.numpy(), r.grad.numpy(), rtol=1e-12)
    b = tt.tensor(x)
    b.erfinv_()
    np.testing.assert_allclose(b.numpy(), torch.tensor(x).erfinv().numpy(), rtol=1e-13)
    with pytest.raises(TypeError):  # floating point only, as torch
        tt.tensor([1, 2]).erfinv_()


@pytest.mark.parametrize("name", ["fmax", "fmin"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_fmax_fmin_match_torch_with_nans_and_broadcasting(name: str, dtype: str) -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 1, 5)) * 10
    b = rng.standard_normal((3, 5)) * 10
    if dtype != "int64":
        a[0, 0, :2] = np.nan
        b[1, 1:3] = np.nan  # NaN against NaN at [0, 1, 1], against a number elsewhere
    a, b = a.astype(dtype), b.astype(dtype)
    got = getattr(tt, name)(tt.tensor(a), tt.tensor(b)).numpy()
    want = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # exact: a selection, NaN where both are NaN
    np.testing.assert_array_equal(getattr(tt.tensor(a), name)(tt.tensor(b)).numpy(), want)


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_gradient_goes_where_torch_sends_it(name: str) -> None:
    a = np.array([1.0, 2.0, np.nan, 3.0, np.nan, 5.0])
    b = np.array([0.5, 2.0, 1.0, np.nan, np.nan, 6.0])  # a wins, a tie, NaN on each side, both NaN, b wins
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    ours = [tt.tensor(v, requires_grad=True) for v in (a, b)]
    ref = [torch.tensor(v, requires_grad=True) for v in (a, b)]
    (getattr(tt, name)(*ours) * tt.tensor(g)).sum().backward()
    (getattr(torch, name)(*ref) * torch.tensor(g)).sum().backward()
    for o, r in zip(ours, ref, strict=True):
        assert o.grad is not None and r.grad is not None
        np.testing.assert_array_equal(o.grad.numpy(), r.grad.numpy())


def test_the_new_ops_shapes_come_from_the_registry() -> None:
    with pytest.raises(tt.ShapeError, match="fmax"):
        tt.fmax(tt.zeros(3, 4), tt.zeros(5))
