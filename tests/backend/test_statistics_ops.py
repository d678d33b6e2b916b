"""The ops of ``_runtime/statistics_ops.py`` and ``_runtime/arrangement_ops.py`` against torch:
values, result types (named fields), gradients in float64, NaN handling and torch's errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def arr(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def with_nans(*shape: int) -> np.ndarray:
    x = arr(*shape)
    x.reshape(-1)[:: 5] = np.nan
    x[..., 0, :] = np.nan  # a row of NaNs only
    return x


def host(x: Any) -> Any:
    if isinstance(x, (tuple, list)):
        return [host(v) for v in x]
    return x.detach().numpy() if hasattr(x, "detach") else x


def same(ours: Any, ref: Any, rtol: float = 1e-10) -> None:
    if isinstance(ref, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(ref)
        if hasattr(ref, "_fields"):
            assert getattr(ours, "_fields", None) == ref._fields
        for o, r in zip(ours, ref, strict=True):
            same(o, r, rtol)
        return
    assert str(ours.dtype).rpartition(".")[2] == str(ref.dtype).rpartition(".")[2], (ours.dtype, ref.dtype)
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(host(ours), host(ref), rtol=rtol, atol=rtol, equal_nan=True)


# (name, function of (module, *tensors), numpy inputs, differentiable)
CASES: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...], bool]] = [
    ("std_mean", lambda m, a: m.std_mean(a, 1), (arr(3, 5),), True),
    ("std_mean keepdim all", lambda m, a: m.std_mean(a, keepdim=True), (arr(3, 5),), True),
    ("std_mean correction", lambda m, a: m.std_mean(a, dim=(0, 2), correction=0), (arr(3, 4, 2),), True),
    ("var_mean", lambda m, a: m.var_mean(a, 0, True), (arr(3, 5),), True),
    ("var_mean unbiased positional", lambda m, a: m.var_mean(a, 1, False), (arr(3, 5),), True),
    ("kthvalue", lambda m, a: m.kthvalue(a, 2), (arr(3, 5),), True),
    ("kthvalue dim keepdim", lambda m, a: a.kthvalue(3, 0, True), (arr(4, 5),), True),
    ("kthvalue 0-d", lambda m, a: m.kthvalue(a, 1), (arr(),), True),
    ("msort", lambda m, a: m.msort(a), (arr(4, 3),), True),
    ("cummax", lambda m, a: m.cummax(a, 1), (arr(3, 6),), True),
    ("cummin", lambda m, a: a.cummin(0), (arr(5, 2),), True),
    ("cummax ties", lambda m, a: m.cummax(a, 0), (np.array([3.0, 1.0, 3.0, 2.0, 5.0, 5.0]),), False),
    ("cummax nan", lambda m, a: m.cummax(a, 0), (np.array([1.0, np.nan, 2.0, np.nan, 7.0]),), False),
    ("cummin nan", lambda m, a: m.cummin(a, -1), (np.array([[4.0, 2.0, np.nan, 1.0]]),), False),
    ("nanmedian", lambda m, a: m.nanmedian(a), (with_nans(4, 5),), False),
    ("nanmedian dim", lambda m, a: m.nanmedian(a[1:], 1), (with_nans(4, 5),), False),
    ("nanmedian no nan grad", lambda m, a: a.nanmedian(1, keepdim=True), (arr(3, 5),), True),
    ("quantile", lambda m, a: m.quantile(a, 0.3), (arr(4, 5),), True),
    ("quantile vector dim", lambda m, a, q: m.quantile(a, q, 1, True), (arr(4, 5), np.array([0.0, 0.25, 1.0])), True),
    ("quantile nan", lambda m, a: m.quantile(a, 0.6, 1), (with_nans(4, 5),), False),
    ("nanquantile", lambda m, a: m.nanquantile(a, 0.6, 1), (with_nans(4, 5),), False),
    ("nanquantile all", lambda m, a: a.nanquantile(0.2), (with_nans(4, 5),), False),
    *[(f"quantile {i}", lambda m, a, i=i: m.quantile(a, 0.45, 0, interpolation=i), (arr(6, 3),), True)
      for i in ("lower", "higher", "midpoint", "nearest")],
    ("cov", lambda m, a: m.cov(a), (arr(3, 7),), True),
    ("cov 1-d", lambda m, a: m.cov(a), (arr(7),), True),
    ("cov correction", lambda m, a: a.cov(correction=0), (arr(2, 5),), True),
    ("corrcoef", lambda m, a: m.corrcoef(a), (arr(3, 7),), True),
    ("corrcoef 1 variable", lambda m, a: m.corrcoef(a), (arr(1, 7),), True),
    ("tensor_split sections", lambda m, a: m.tensor_split(a, 3, 1), (arr(2, 7),), True),
    ("tensor_split indices", lambda m, a: a.tensor_split([1, 6, -2, 2]), (arr(7, 2),), True),
    ("hsplit", lambda m, a: m.hsplit(a, 2), (arr(3, 4),), True),
    ("hsplit 1-d", lambda m, a: m.hsplit(a, [2]), (arr(5),), True),
    ("vsplit", lambda m, a: a.vsplit([1]), (arr(3, 4),), True),
    ("dsplit", lambda m, a: m.dsplit(a, 2), (arr(2, 2, 4),), True),
    ("atleast_1d", lambda m, a: m.atleast_1d(a), (arr(),), True),
    ("atleast_2d tuple", lambda m, a, b: m.atleast_2d((a, b)), (arr(), arr(3)), True),
    ("atleast_3d several", lambda m, a, b, c: m.atleast_3d(a, b, c), (arr(3), arr(2, 3), arr(1, 2, 3, 4)), True),
    ("column_stack", lambda m, a, b, c: m.column_stack([a, b, c]), (arr(3), arr(3, 2), arr(3)), True),
    ("row_stack", lambda m, a, b: m.row_stack([a, b]), (arr(3), arr(2, 3)), True),
    ("dstack", lambda m, a, b: m.dstack([a, b]), (arr(2, 3), arr(2, 3, 2)), True),
    ("block_diag", lambda m, a, b, c: m.block_diag(a, b, c), (arr(2, 3), arr(4), arr()), True),
    ("diagflat", lambda m, a: m.diagflat(a, -1), (arr(2, 2),), True),
]


def _run(fn: Callable[..., Any], inputs: tuple[np.ndarray, ...], grad: bool) -> tuple[Any, Any, list[Any], list[Any]]:
    ours_in = [tt.tensor(x, requires_grad=grad) for x in inputs]
    ref_in = [torch.tensor(x, requires_grad=grad) for x in inputs]
    return fn(tt, *ours_in), fn(torch, *ref_in), ours_in, ref_in


@pytest.mark.parametrize(("name", "fn", "inputs", "grad"), CASES, ids=[c[0] for c in CASES])
def test_values_match_torch(name: str, fn: Callable[..., Any], inputs: tuple[np.ndarray, ...], grad: bool) -> None:
    ours, ref, _, _ = _run(fn, inputs, False)
    same(ours, ref)


def _float_outputs(out: Any) -> list[Any]:
    items = list(out) if isinstance(out, (tuple, list)) else [out]
    return [t for t in items if t.is_floating_point()]


@pytest.mark.parametrize(("name", "fn", "inputs", "grad"), [c for c in CASES if c[3]],
                         ids=[c[0] for c in CASES if c[3]])
def test_gradients_match_torch(name: str, fn: Callable[..., Any], inputs: tuple[np.ndarray, ...], grad: bool) -> None:
    ours, ref, ours_in, ref_in = _run(fn, inputs, True)
    weights = [RNG.standard_normal(tuple(t.shape)) for t in _float_outputs(ref)]
    sum(((t * torch.tensor(w)).sum() for t, w in zip(_float_outputs(ref), weights, strict=True)),
        torch.zeros((), dtype=torch.float64)).backward()
    sum(((t * tt.tensor(w)).sum() for t, w in zip(_float_outputs(ours), weights, strict=True)),
        tt.zeros((), dtype=tt.float64)).backward()
    for o, r in zip(ours_in, ref_in, strict=True):
        if r.grad is None:
            assert o.grad is None or not np.any(o.grad.numpy())
        else:
            np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_isin_matches_torch() -> None:
    e = RNG.integers(0, 20, (4, 50))
    t = RNG.integers(0, 20, 7)
    for invert in (False, True):
        ours = tt.isin(tt.tensor(e), tt.tensor(t), invert=invert)
        ref = torch.isin(torch.tensor(e), torch.tensor(t), invert=invert)
        same(ours, ref)
    same(tt.isin(3, tt.tensor([1, 3])), torch.isin(3, torch.tensor([1, 3])))
    same(tt.isin(tt.tensor([1.0, 2.0, np.nan]), 2.0), torch.isin(torch.tensor([1.0, 2.0, np.nan]), 2.0))
    big_e, big_t = RNG.integers(0, 10**6, 3000), RNG.integers(0, 10**6, 3000)  # the sorted-search path
    same(tt.isin(tt.tensor(big_e), tt.tensor(big_t)), torch.isin(torch.tensor(big_e), torch.tensor(big_t)))
    same(tt.isin(tt.tensor(e), tt.tensor(np.array([], dtype=np.int64))),
         torch.isin(torch.tensor(e), torch.tensor(np.array([], dtype=np.int64))))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_logspace_matches_torch(dtype: str) -> None:
    for start, end, steps, base in ((0, 2, 5, 10.0), (-1.5, 3.0, 7, 2.0), (1, 1, 1, 10.0), (0, 3, 0, 10.0)):
        ours = tt.logspace(start, end, steps, base, dtype=getattr(tt, dtype))
        ref = torch.logspace(start, end, steps, base, dtype=getattr(torch, dtype))
        same(ours, ref, rtol=1e-6)
    assert tt.logspace(0, 1, 3).dtype == tt.float32


def test_errors_are_torchs() -> None:
    x = tt.zeros(3, 4)
    with pytest.raises(tt.ShapeError, match="kthvalue"):
        x.kthvalue(5, 0)
    with pytest.raises(tt.ShapeError, match="number of sections must be larger than 0"):
        x.tensor_split(0, 1)
    with pytest.raises(tt.ShapeError, match="not divisible"):
        tt.hsplit(x, 3)
    with pytest.raises(tt.ShapeError, match="at least 3 dimensions"):
        tt.dsplit(x, 2)
    with pytest.raises(tt.ShapeError, match="2 or fewer dimensions"):
        tt.block_diag(tt.zeros(1, 2, 3))
    with pytest.raises(RuntimeError, match=r"q values must be in the range \[0, 1\]"):
        tt.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match="float or double"):
        tt.quantile(tt.zeros(3, dtype=tt.int64), 0.5)
    with pytest.raises(ValueError, match="interpolation must be one of"):
        tt.quantile(x, 0.5, interpolation="cubic")
    with pytest.raises(tt.ShapeError, match="non-empty"):
        tt.quantile(tt.zeros(0), 0.5)
    with pytest.raises(tt.ShapeError, match="two or fewer dimensions"):
        tt.cov(tt.zeros(2, 2, 2))
    with pytest.raises(tt.ShapeError, match="number of steps must be non-negative"):
        tt.logspace(0, 1, -1)


def test_result_types_are_named_like_torch() -> None:
    x = tt.tensor([[3.0, 1.0, 2.0]])
    assert x.kthvalue(1).values.item() == 1.0 and x.kthvalue(1).indices.item() == 1
    assert tt.std_mean(x).mean.item() == pytest.approx(2.0)
    assert tt.var_mean(x).var.item() == pytest.approx(1.0)
    assert x.cummax(1).indices.tolist() == [[0, 0, 0]]
    assert type(x.cummin(1)).__module__ == "typedtensor.return_types"
