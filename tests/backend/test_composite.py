"""The composite ops (typedtensor/_runtime/composite.py) against torch on random inputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tt: Any = pytest.importorskip("typedtensor._runtime")
torch: Any = pytest.importorskip("torch")

SETTINGS = settings(max_examples=40, deadline=None)


def shapes(min_dims: int = 1) -> Any:
    return st.lists(st.integers(1, 5), min_size=min_dims, max_size=3).map(tuple)


def both(arr: np.ndarray) -> tuple[Any, Any]:
    return tt.tensor(arr), torch.tensor(arr)


def close(ours: Any, theirs: Any) -> None:
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


@SETTINGS
@given(shape=shapes(), seed=st.integers(0, 2**16), value=st.floats(-2, 2))
def test_addcmul_lerp_logit_xlogy(shape: tuple[int, ...], seed: int, value: float) -> None:
    rng = np.random.default_rng(seed)
    a, b, c = (rng.standard_normal(shape) for _ in range(3))
    (x, tx), (y, ty), (z, tz) = both(a), both(b), both(c)
    close(tt.addcmul(x, y, z, value=value), torch.addcmul(tx, ty, tz, value=value))
    close(x.lerp(y, value), tx.lerp(ty, value))
    w = np.abs(c) / (1 + np.abs(c))
    close(tt.lerp(x, y, tt.tensor(w)), torch.lerp(tx, ty, torch.tensor(w)))
    p = rng.uniform(0.01, 0.99, shape)
    close(tt.logit(tt.tensor(p)), torch.logit(torch.tensor(p)))
    close(tt.logit(tt.tensor(p), eps=0.1), torch.logit(torch.tensor(p), eps=0.1))
    a[rng.random(shape) < 0.3] = 0
    close(tt.xlogy(tt.tensor(a), tt.tensor(np.abs(b))), torch.xlogy(torch.tensor(a), torch.tensor(np.abs(b))))


@SETTINGS
@given(shape=shapes(), seed=st.integers(0, 2**16), data=st.data())
def test_reductions(shape: tuple[int, ...], seed: int, data: Any) -> None:
    rng = np.random.default_rng(seed)
    ints = rng.integers(-2, 3, shape).astype(np.float64)  # repeats make mode/median ties real
    x, tx = both(ints)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = data.draw(st.booleans())
    for ours, theirs in ((tt.median(x, dim, keepdim), torch.median(tx, dim, keepdim)),
                         (tt.mode(x, dim, keepdim), torch.mode(tx, dim, keepdim))):
        close(ours.values, theirs.values)
        # indices may differ between equal values; they must point at the value reported
        picked = x.gather(dim % len(shape), ours.indices if keepdim else ours.indices.unsqueeze(dim))
        close(picked if keepdim else picked.squeeze(dim), theirs.values)
    close(tt.median(x), torch.median(tx))
    close(tt.count_nonzero(x, dim), torch.count_nonzero(tx, dim))
    close(tt.count_nonzero(x), torch.count_nonzero(tx))
    nan = ints.copy()
    nan[rng.random(shape) < 0.3] = np.nan
    close(tt.nanmean(tt.tensor(nan), dim, keepdim), torch.nanmean(torch.tensor(nan), dim, keepdim))
    big = rng.standard_normal(shape) * 300
    close(tt.logcumsumexp(tt.tensor(big), dim), torch.logcumsumexp(torch.tensor(big), dim))


def test_mv_and_its_shape_error() -> None:
    a, v = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    close(tt.mv(tt.tensor(a), tt.tensor(v)), torch.mv(torch.tensor(a), torch.tensor(v)))
    with pytest.raises(tt.ShapeError, match=r"mv.*\[2, 3\].*\[4\]"):
        tt.mv(tt.tensor(a), tt.ones(4, dtype=tt.float64))


def test_inplace_variants_and_view_changes() -> None:
    a = np.arange(12.0).reshape(3, 4) / 7
    x, tx = both(a)
    x.tril_(), tx.tril_()
    close(x, tx)
    x.round_(), tx.round_()
    close(x, tx)
    x.addcmul_(x, x, value=0.5), tx.addcmul_(tx, tx, value=0.5)
    close(x, tx)
    x.t_(), tx.t_()
    assert tuple(x.shape) == tuple(tx.shape) == (4, 3)
    x.transpose_(0, 1)
    assert tuple(x.shape) == (3, 4)
    with pytest.raises(ValueError, match="t_"):
        tt.zeros(2, 2, 2).t_()
    assert tt.positive(x) is x


@SETTINGS
@given(shape=shapes(), seed=st.integers(0, 2**16), data=st.data())
def test_logaddexp_matches_torch(shape: tuple[int, ...], seed: int, data: Any) -> None:
    rng = np.random.default_rng(seed)
    other = data.draw(st.sampled_from([shape, shape[-1:], (1,)]))
    a, b = rng.standard_normal(shape) * 30, rng.standard_normal(other) * 30  # big enough that exp overflows
    special = np.array([np.inf, -np.inf, 0.0])
    a.flat[: min(a.size, 3)] = special[: min(a.size, 3)]
    (x, tx), (y, ty) = both(a), both(b)
    close(tt.logaddexp(x, y), torch.logaddexp(tx, ty))
    close(x.logaddexp(y), tx.logaddexp(ty))


def test_logaddexp_gradient_matches_torch() -> None:
    a, b = np.array([0.5, -3.0, 40.0]), np.array([1.0, 2.0, -40.0])
    x, y = tt.tensor(a, requires_grad=True), tt.tensor(b, requires_grad=True)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    (tt.logaddexp(x, y) * tt.tensor([1.0, 2.0, 3.0])).sum().backward()
    (torch.logaddexp(tx, ty) * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    close(x.grad, tx.grad)
    close(y.grad, ty.grad)


@SETTINGS
@given(seed=st.integers(0, 2**16), p=st.sampled_from([2.0, 1.0, 0.0, 3.0, float("inf")]),
       batch=st.sampled_from([(), (2,), (3, 1)]), rows=st.integers(1, 4), cols=st.integers(1, 4),
       feats=st.integers(0, 3))
def test_cdist_matches_torch(seed: int, p: float, batch: tuple[int, ...], rows: int, cols: int, feats: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((*batch, rows, feats)), rng.standard_normal((cols, feats))
    (x, tx), (y, ty) = both(a), both(b)
    close(tt.cdist(x, y, p), torch.cdist(tx, ty, p))


def test_cdist_gradient_and_errors() -> None:
    a, b = np.array([[0.0, 1.0], [2.0, -1.0]]), np.array([[1.0, 1.0], [0.5, 3.0], [-2.0, 0.0]])
    x, tx = tt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    tt.cdist(x, tt.tensor(b)).sum().backward()
    torch.cdist(tx, torch.tensor(b)).sum().backward()
    close(x.grad, tx.grad)
    with pytest.raises(tt.ShapeError, match="cdist: x1 and x2 must have the same number of features"):
        tt.cdist(tt.zeros(2, 3), tt.zeros(4, 2))
    with pytest.raises(ValueError, match="non-negative"):
        tt.cdist(tt.zeros(2, 3), tt.zeros(4, 3), -1.0)


def test_logaddexp_takes_a_python_number() -> None:
    # a number operand becomes a 0-d tensor of the tensor's floating dtype (it raised NameError)
    got = tt.logaddexp(tt.tensor([1.0, 2.0], dtype=tt.float64), 3.0).numpy()
    ref = torch.logaddexp(torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor(3.0, dtype=torch.float64))
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-15)
