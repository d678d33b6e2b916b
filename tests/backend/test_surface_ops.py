"""The Tensor and top-level ops of ``_runtime/surface_ops.py`` against torch: values, dtypes,
every form (function, method, in-place), gradients where torch has them, and torch's errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor._runtime as tt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def arr(*shape: int, dtype: str = "float64") -> np.ndarray:
    if dtype.startswith("int"):
        return RNG.integers(-5, 6, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def both(value: Any) -> tuple[Any, Any]:
    """The same value as a typedtensor and a torch tensor (numbers and None pass through)."""
    if isinstance(value, np.ndarray):
        return tt.tensor(value), torch.tensor(value)
    return value, value


def host(x: Any) -> Any:
    if isinstance(x, (tuple, list)):
        return [host(v) for v in x]
    if hasattr(x, "detach"):
        return x.detach().numpy()
    return x


def same(ours: Any, ref: Any, rtol: float = 1e-12) -> None:
    if isinstance(ref, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(ref)
        for o, r in zip(ours, ref, strict=True):
            same(o, r, rtol)
        return
    assert str(ours.dtype).rpartition(".")[2] == str(ref.dtype).rpartition(".")[2], (ours.dtype, ref.dtype)
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(host(ours), host(ref), rtol=rtol, atol=rtol)


# (name, function of (module, *tensors), numpy inputs)
CASES: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("addcdiv", lambda m, a, b, c: m.addcdiv(a, b, c, value=0.3), (arr(3, 4), arr(4), arr(3, 1) + 3)),
    ("addcdiv method", lambda m, a, b, c: a.addcdiv(b, c), (arr(3, 4), arr(3, 4), arr(3, 4) + 3)),
    ("clamp_min", lambda m, a: m.clamp_min(a, 0.2), (arr(3, 4),)),
    ("clamp_max tensor", lambda m, a, b: a.clamp_max(b), (arr(3, 4), arr(4))),
    ("trace", lambda m, a: m.trace(a), (arr(3, 4),)),
    ("trace int", lambda m, a: m.trace(a), (arr(3, 3, dtype="int32"),)),
    ("diag vector", lambda m, a: m.diag(a), (arr(4),)),
    ("diag vector offset", lambda m, a: m.diag(a, 2), (arr(3),)),
    ("diag vector negative offset", lambda m, a: a.diag(-1), (arr(3),)),
    ("diag matrix", lambda m, a: m.diag(a, 1), (arr(3, 5),)),
    ("diag matrix negative", lambda m, a: m.diag(a, -2), (arr(4, 3),)),
    ("diag_embed", lambda m, a: m.diag_embed(a), (arr(2, 3),)),
    ("diag_embed dims", lambda m, a: m.diag_embed(a, 1, 0, 2), (arr(2, 3),)),
    ("diag_embed swapped", lambda m, a: a.diag_embed(-1, -1, -2), (arr(2, 3),)),
    ("addmm", lambda m, a, b, c: m.addmm(a, b, c, beta=0.5, alpha=2.0), (arr(3, 5), arr(3, 4), arr(4, 5))),
    ("addmm broadcast", lambda m, a, b, c: a.addmm(b, c), (arr(5), arr(3, 4), arr(4, 5))),
    ("addmv", lambda m, a, b, c: m.addmv(a, b, c, alpha=-1), (arr(3), arr(3, 4), arr(4))),
    ("baddbmm", lambda m, a, b, c: m.baddbmm(a, b, c, beta=0.0), (arr(2, 3, 5), arr(2, 3, 4), arr(2, 4, 5))),
    ("kron", lambda m, a, b: m.kron(a, b), (arr(2, 3), arr(4, 2))),
    ("kron ranks", lambda m, a, b: a.kron(b), (arr(3), arr(2, 2))),
    ("cross", lambda m, a, b: m.cross(a, b, dim=1), (arr(4, 3), arr(4, 3))),
    ("cross broadcast last", lambda m, a, b: a.cross(b, dim=-1), (arr(2, 1, 3), arr(1, 5, 3))),
    ("tile", lambda m, a: m.tile(a, (2,)), (arr(2, 3),)),
    ("tile longer", lambda m, a: a.tile((2, 1, 3)), (arr(2, 3),)),
    ("ravel", lambda m, a: a.t().ravel(), (arr(2, 3),)),
    ("rot90", lambda m, a: m.rot90(a), (arr(2, 3, 4),)),
    ("rot90 k", lambda m, a: a.rot90(3, [1, 2]), (arr(2, 3, 4),)),
    ("rot90 negative", lambda m, a: m.rot90(a, -2, [0, -1]), (arr(2, 3, 4),)),
    ("diff", lambda m, a: m.diff(a), (arr(3, 5),)),
    ("diff n dim", lambda m, a: a.diff(2, 0), (arr(4, 3),)),
    ("diff prepend append", lambda m, a, b, c: m.diff(a, dim=1, prepend=b, append=c), (arr(2, 3), arr(2, 1), arr(2, 2))),
    ("take", lambda m, a, i: m.take(a, i), (arr(3, 4), np.array([[0, -1], [5, 11]]))),
    ("take_along_dim", lambda m, a, i: m.take_along_dim(a, i, 1), (arr(3, 4), np.array([[0, 3], [1, 1], [2, 0]]))),
    ("take_along_dim broadcast", lambda m, a, i: a.take_along_dim(i, dim=0), (arr(3, 4), np.array([[2], [0]]))),
    ("take_along_dim flat", lambda m, a, i: m.take_along_dim(a, i), (arr(3, 4), np.array([0, 7, 11]))),
    ("index_fill", lambda m, a, i: m.index_fill(a, 1, i, -2.0), (arr(3, 4), np.array([0, 2]))),
    ("index_fill tensor value", lambda m, a, i, v: a.index_fill(0, i, v), (arr(3, 4), np.array([1]), np.array(7.5))),
    ("index_copy", lambda m, a, i, s: m.index_copy(a, 0, i, s), (arr(4, 2), np.array([3, 0]), arr(2, 2))),
    ("masked_scatter", lambda m, a, k, s: m.masked_scatter(a, k, s),
     (arr(3, 4), np.array([True, False, True, True]), arr(20))),
    ("repeat_interleave int", lambda m, a: m.repeat_interleave(a, 2), (arr(2, 3),)),
    ("repeat_interleave dim", lambda m, a: a.repeat_interleave(3, dim=1), (arr(2, 3),)),
    ("repeat_interleave tensor", lambda m, a, r: m.repeat_interleave(a, r, dim=0), (arr(3, 2), np.array([1, 0, 2]))),
    ("repeat_interleave counts", lambda m, r: m.repeat_interleave(r), (np.array([2, 0, 3]),)),
    ("cartesian_prod", lambda m, a, b: m.cartesian_prod(a, b), (arr(2), arr(3))),
    ("cartesian_prod one", lambda m, a: m.cartesian_prod(a), (arr(3),)),
]


@pytest.mark.parametrize(("name", "fn", "inputs"), CASES, ids=[c[0] for c in CASES])
def test_values_match_torch(name: str, fn: Callable[..., Any], inputs: tuple[Any, ...]) -> None:
    ours = fn(tt, *(both(v)[0] for v in inputs))
    ref = fn(torch, *(both(v)[1] for v in inputs))
    same(ours, ref)


DIFFERENTIABLE = [c for c in CASES if not any(
    w in c[0] for w in ("counts", "int", "cartesian_prod one"))]


@pytest.mark.parametrize(("name", "fn", "inputs"), DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_gradients_match_torch(name: str, fn: Callable[..., Any], inputs: tuple[Any, ...]) -> None:
    grads = []
    for m in (tt, torch):
        made = [m.tensor(v, requires_grad=v.dtype.kind == "f") if isinstance(v, np.ndarray) else v for v in inputs]
        out = fn(m, *made)
        weights = m.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        grads.append([host(t.grad) for t in made if hasattr(t, "requires_grad") and t.requires_grad])
    for o, r in zip(grads[0], grads[1], strict=True):
        np.testing.assert_allclose(o, r, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["addcdiv", "clamp_min", "clamp_max", "addmm", "index_fill", "index_copy",
                                  "masked_scatter"])
def test_inplace_forms_match_torch(name: str) -> None:
    calls: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
        "addcdiv": (lambda x, a, b: x.addcdiv_(a, b, value=-0.5), (arr(3, 4), arr(3, 4) + 4)),
        "clamp_min": (lambda x: x.clamp_min_(0.1), ()),
        "clamp_max": (lambda x: x.clamp_max_(0.1), ()),
        "addmm": (lambda x, a, b: x.addmm_(a[:, :2], b[:2, :], alpha=0.5), (arr(3, 4), arr(3, 4))),
        "index_fill": (lambda x, i: x.index_fill_(0, i, 3.0), (np.array([2]),)),
        "index_copy": (lambda x, i, s: x.index_copy_(1, i, s), (np.array([1]), arr(3, 1))),
        "masked_scatter": (lambda x, k, s: x.masked_scatter_(k, s), (arr(3, 4) > 0, arr(12))),
    }
    fn, extra = calls[name]
    start = arr(3, 4)
    results = []
    for m in (tt, torch):
        x = m.tensor(start.copy())
        out = fn(x, *(m.tensor(v) for v in extra))
        assert out is x
        results.append(x)
    same(results[0], results[1])


def test_addcdiv_inplace_is_bitwise_torchs_in_float32() -> None:
    x, a, b = arr(50, dtype="float32"), arr(50, dtype="float32"), np.abs(arr(50, dtype="float32")) + 0.5
    for value in (1, -0.001, 0.37):
        ours = tt.tensor(x).addcdiv_(tt.tensor(a), tt.tensor(b), value=value).numpy()
        ref = torch.tensor(x).addcdiv_(torch.tensor(a), torch.tensor(b), value=value).numpy()
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("fn", [
    lambda m: m.triu_indices(4, 5),
    lambda m: m.triu_indices(4, 3, 1),
    lambda m: m.tril_indices(3, 5, -1),
    lambda m: m.tril_indices(0, 3),
    lambda m: m.triu_indices(3, 3, dtype=m.int32),
])
def test_triangle_indices_match_torch(fn: Callable[[Any], Any]) -> None:
    same(fn(tt), fn(torch))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_torch(indexing: str) -> None:
    a, b, c = arr(2), arr(3), arr(4)
    ours = tt.meshgrid(tt.tensor(a), tt.tensor(b), tt.tensor(c), indexing=indexing)
    ref = torch.meshgrid(torch.tensor(a), torch.tensor(b), torch.tensor(c), indexing=indexing)
    same(list(ours), list(ref))
    same(list(tt.meshgrid([tt.tensor(a), tt.tensor(b)], indexing=indexing)),
         list(torch.meshgrid([torch.tensor(a), torch.tensor(b)], indexing=indexing)))


UNIQUE_INPUTS = [
    np.array([3, 1, 3, 2, 1, 1]),
    np.array([[2.0, 1.0], [2.0, 1.0], [0.5, 3.0]]),
    np.array([True, False, True]),
    np.array([], dtype=np.int64),
]


@pytest.mark.parametrize("data", UNIQUE_INPUTS, ids=["int", "float 2-d", "bool", "empty"])
@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True), (True, True)])
def test_unique_matches_torch(data: np.ndarray, flags: tuple[bool, bool]) -> None:
    inv, counts = flags
    same(tt.unique(tt.tensor(data), return_inverse=inv, return_counts=counts),
         torch.unique(torch.tensor(data), return_inverse=inv, return_counts=counts))
    same(tt.tensor(data).unique_consecutive(return_inverse=inv, return_counts=counts),
         torch.tensor(data).unique_consecutive(return_inverse=inv, return_counts=counts))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_along_a_dim_matches_torch(dim: int) -> None:
    data = np.array([[1, 2, 1, 1], [0, 5, 0, 0], [1, 2, 1, 1]])
    same(tt.unique(tt.tensor(data), dim=dim, return_inverse=True, return_counts=True),
         torch.unique(torch.tensor(data), dim=dim, return_inverse=True, return_counts=True))
    same(tt.unique_consecutive(tt.tensor(data), dim=dim, return_inverse=True, return_counts=True),
         torch.unique_consecutive(torch.tensor(data), dim=dim, return_inverse=True, return_counts=True))


def test_unique_method_form_and_unsorted() -> None:
    x = tt.tensor([4, 4, 1])
    assert x.unique().tolist() == [1, 4]
    assert sorted(x.unique(sorted=False).tolist()) == [1, 4]


@pytest.mark.parametrize(("data", "weights", "minlength"), [
    (np.array([0, 3, 3, 1]), None, 0),
    (np.array([0, 3, 3, 1]), None, 7),
    (np.array([], dtype=np.int64), None, 2),
    (np.array([2, 0, 2]), np.array([0.5, 1.0, 2.0]), 0),
    (np.array([2, 0, 2]), np.array([0.5, 1.0, 2.0], np.float32), 4),
    (np.array([2, 0, 2]), np.array([1, 2, 3]), 0),
])
def test_bincount_matches_torch(data: np.ndarray, weights: Any, minlength: int) -> None:
    w = (tt.tensor(weights), torch.tensor(weights)) if weights is not None else (None, None)
    same(tt.bincount(tt.tensor(data), w[0], minlength), torch.bincount(torch.tensor(data), w[1], minlength))


def test_bincount_refuses_what_torch_refuses() -> None:
    for bad in (np.array([1, -1]), np.array([0.5])):
        with pytest.raises(RuntimeError):
            torch.bincount(torch.tensor(bad))
        with pytest.raises((ValueError, TypeError)):
            tt.bincount(tt.tensor(bad))


@pytest.mark.parametrize(("bins", "lo", "hi"), [(4, 0, 0), (5, -1, 1), (3, 0.5, 0.5), (10, -0.25, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_matches_torch(bins: int, lo: float, hi: float, dtype: str) -> None:
    data = np.concatenate([arr(40, dtype=dtype), np.array([-1.0, 1.0, 0.5], dtype)])
    same(tt.histc(tt.tensor(data), bins, lo, hi), torch.histc(torch.tensor(data), bins, lo, hi))


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_and_bucketize_match_torch(right: bool) -> None:
    seq = np.array([1.0, 2.0, 2.0, 5.0])
    vals = np.array([[0.0, 2.0], [5.0, 6.0]])
    same(tt.searchsorted(tt.tensor(seq), tt.tensor(vals), right=right),
         torch.searchsorted(torch.tensor(seq), torch.tensor(vals), right=right))
    same(tt.bucketize(tt.tensor(vals), tt.tensor(seq), right=right, out_int32=True),
         torch.bucketize(torch.tensor(vals), torch.tensor(seq), right=right, out_int32=True))
    rows = np.array([[1.0, 3.0, 5.0], [0.0, 0.5, 1.0]])
    same(tt.searchsorted(tt.tensor(rows), tt.tensor(vals), side="right" if right else "left"),
         torch.searchsorted(torch.tensor(rows), torch.tensor(vals), side="right" if right else "left"))
    same(tt.searchsorted(tt.tensor(seq), 2.0, right=right), torch.searchsorted(torch.tensor(seq), 2.0, right=right))


def test_searchsorted_with_sorter_matches_torch() -> None:
    seq, sorter = np.array([5.0, 1.0, 3.0]), np.array([1, 2, 0])
    vals = np.array([0.0, 3.0, 4.0])
    same(tt.searchsorted(tt.tensor(seq), tt.tensor(vals), sorter=tt.tensor(sorter)),
         torch.searchsorted(torch.tensor(seq), torch.tensor(vals), sorter=torch.tensor(sorter)))


@pytest.mark.parametrize("call", [
    lambda m: m.addcdiv(m.ones(2), m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
    lambda m: m.take(m.ones(2, 2), m.tensor([4])),
    lambda m: m.index_fill(m.ones(2, 2), 0, m.tensor([2]), 1.0),
    lambda m: m.masked_scatter(m.ones(3), m.tensor([True, True, True]), m.ones(2)),
    lambda m: m.repeat_interleave(m.ones(3), m.tensor([1, 2]), dim=0),
    lambda m: m.histc(m.ones(3), 4, 2.0, 1.0),
    lambda m: m.searchsorted(m.ones(3), m.ones(2), side="middle"),
], ids=["addcdiv integers", "take out of range", "index_fill out of range", "masked_scatter short source",
        "repeat_interleave repeats length", "histc min > max", "searchsorted side"])
def test_errors_where_torch_errors(call: Callable[[Any], Any]) -> None:
    with pytest.raises((RuntimeError, IndexError, ValueError)):
        call(torch)
    with pytest.raises((TypeError, IndexError, ValueError)):
        call(tt)


@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_inplace_scans_match_torch(name: str, dtype: str) -> None:
    data = arr(3, 4, dtype=dtype)
    results = []
    for m in (tt, torch):
        x = m.tensor(data.copy())
        assert getattr(x, name)(1) is x
        results.append(x)
    same(results[0], results[1])


def test_inplace_scan_backward_matches_torch() -> None:
    data = arr(3, 4)
    grads = []
    for m in (tt, torch):
        leaf = m.tensor(data, requires_grad=True)
        y = leaf * 2
        y.cumsum_(0)
        (y * m.tensor(data)).sum().backward()
        grads.append(host(leaf.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
