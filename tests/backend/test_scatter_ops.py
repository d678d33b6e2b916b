"""The scatter-style ops of ``_runtime/scatter_ops.py`` against torch: values and gradients on the
same data (random shapes, repeated indices, ties and zeros), every form (function, method,
in-place), dtypes, and torch's errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import typedtensor._runtime as tt

torch = pytest.importorskip("torch")

warnings.filterwarnings("ignore", message="index_reduce\\(\\) is in beta")
SETTINGS = settings(max_examples=40, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def pair(a: np.ndarray, grad: bool = False) -> tuple[Any, Any]:
    return tt.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def close(ours: Any, ref: Any) -> None:
    assert ours.dtype == getattr(tt, str(ref.dtype).rsplit(".", 1)[-1]), (ours.dtype, ref.dtype)
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.detach().numpy().astype(np.float64), ref.detach().numpy().astype(np.float64),
                               rtol=1e-6, atol=1e-9)


def grads_agree(ours: list[Any], refs: list[Any], out: tuple[Any, Any], seed: int) -> None:
    """Backpropagate the same random cotangent through both results; the inputs' grads agree."""
    g = np.random.default_rng(seed).standard_normal(tuple(out[1].shape))
    (out[0] * tt.tensor(g)).sum().backward()
    (out[1] * torch.tensor(g)).sum().backward()
    for a, b in zip(ours, refs, strict=True):
        close(a.grad, b.grad)


@st.composite
def scatter_problem(draw: Any) -> tuple[tuple[int, ...], int, np.ndarray, np.ndarray, np.ndarray]:
    """Input, dim, index (small values: many repeats), src shaped as the index (torch's backward
    needs that), with values on a coarse grid so ties and zeros occur."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    d = draw(st.integers(0, rank - 1))
    ishape = tuple(draw(st.integers(1, shape[k] + 3)) if k == d else draw(st.integers(1, shape[k]))
                   for k in range(rank))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    idx = rng.integers(0, shape[d], ishape)
    x = rng.integers(-2, 3, shape).astype(np.float64)
    src = rng.integers(-2, 3, ishape).astype(np.float64)
    return shape, d, idx, x, src


@SETTINGS
@given(scatter_problem(), st.sampled_from(["sum", "prod", "mean", "amax", "amin"]), st.booleans())
def test_scatter_reduce_values_and_gradients_match_torch(problem: Any, reduce: str, include_self: bool) -> None:
    _, d, idx, x, src = problem
    (x1, x2), (s1, s2) = pair(x, True), pair(src, True)
    out = (tt.scatter_reduce(x1, d, tt.tensor(idx), s1, reduce, include_self=include_self),
           torch.scatter_reduce(x2, d, torch.tensor(idx), s2, reduce, include_self=include_self))
    close(*out)
    grads_agree([x1, s1], [x2, s2], out, len(idx.shape))


@SETTINGS
@given(scatter_problem(), st.sampled_from(["prod", "mean", "amax", "amin"]), st.booleans())
def test_index_reduce_values_and_gradients_match_torch(problem: Any, reduce: str, include_self: bool) -> None:
    shape, d, idx, x, _ = problem
    index = idx.reshape(-1)[: 5]
    source = np.random.default_rng(index.size).integers(-2, 3, tuple(
        index.size if k == d else n for k, n in enumerate(shape))).astype(np.float64)
    (x1, x2), (s1, s2) = pair(x, True), pair(source, True)
    out = (x1.index_reduce(d, tt.tensor(index), s1, reduce, include_self=include_self),
           x2.index_reduce(d, torch.tensor(index), s2, reduce, include_self=include_self))
    close(*out)
    grads_agree([x1, s1], [x2, s2], out, index.size)


def test_amax_ties_split_the_gradient_evenly_and_count_the_input_as_torch_does() -> None:
    for include_self in (True, False):
        (x1, x2), (s1, s2) = pair(np.array([5.0, 1.0]), True), pair(np.array([5.0, 5.0, 2.0]), True)
        idx = np.array([0, 0, 1])
        out = (x1.scatter_reduce(0, tt.tensor(idx), s1, "amax", include_self=include_self),
               x2.scatter_reduce(0, torch.tensor(idx), s2, "amax", include_self=include_self))
        close(*out)
        grads_agree([x1, s1], [x2, s2], out, 0)
    assert np.allclose(s1.grad.numpy()[:2], s1.grad.numpy()[0])  # the two tied 5s share alike


def test_prod_gradient_with_zeros_is_the_product_of_the_others() -> None:
    (x1, x2), (s1, s2) = pair(np.array([2.0, 0.0, 3.0]), True), pair(np.array([0.0, 4.0, 0.0, 0.0, 5.0, 2.0]), True)
    idx = np.array([0, 0, 1, 2, 2, 1])
    out = (x1.scatter_reduce(0, tt.tensor(idx), s1, "prod"), x2.scatter_reduce(0, torch.tensor(idx), s2, "prod"))
    close(*out)
    grads_agree([x1, s1], [x2, s2], out, 1)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float16"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_dtypes(dtype: str, reduce: str) -> None:
    x = np.array([[3, -7, 2], [5, 1, -1]]).astype(dtype)
    src = np.array([[4, -3, 6], [-5, 2, 7]]).astype(dtype)
    idx = np.array([[1, 1, 0], [1, 0, 0]])
    for include_self in (True, False):
        (x1, x2), (s1, s2) = pair(x), pair(src)
        close(x1.scatter_reduce(0, tt.tensor(idx), s1, reduce, include_self=include_self),
              x2.scatter_reduce(0, torch.tensor(idx), s2, reduce, include_self=include_self))


def test_in_place_forms_write_into_self_and_keep_the_graph() -> None:
    idx, src = np.array([0, 0, 2]), np.array([1.0, 2.0, 3.0])
    for name, args in (("scatter_reduce_", (0, idx, src, "amax")), ("index_reduce_", (0, idx, src, "mean"))):
        base1, base2 = pair(np.array([0.5, 4.0, -1.0]), True)
        y1, y2 = base1 * 2, base2 * 2
        conv = [tt.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        ref = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        assert getattr(y1, name)(*conv) is y1
        getattr(y2, name)(*ref)
        close(y1, y2)
        grads_agree([base1], [base2], (y1, y2), 2)
    base1, base2 = pair(np.zeros((2, 3)), True)
    y1, y2 = base1 + 1, base2 + 1
    y1.index_put_((tt.tensor([1, 1]), tt.tensor([0, 0])), tt.tensor([2.0, 3.0], dtype=tt.float64), accumulate=True)
    y2.index_put_((torch.tensor([1, 1]), torch.tensor([0, 0])), torch.tensor([2.0, 3.0], dtype=torch.float64),
                  accumulate=True)
    close(y1, y2)
    grads_agree([base1], [base2], (y1, y2), 3)


@st.composite
def put_problem(draw: Any) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray]:
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    used = draw(st.integers(1, rank))
    if draw(st.booleans()):  # a bool mask over the leading dims
        keys: tuple[np.ndarray, ...] = (rng.random(shape[:used]) > 0.5,)
        region = (int(keys[0].sum()), *shape[used:])
    else:
        n = draw(st.integers(1, 5))
        keys = tuple(rng.integers(-shape[k], shape[k], n) for k in range(used))
        region = (n, *shape[used:])
    cut = draw(st.integers(0, len(region)))
    return rng.standard_normal(shape), keys, rng.standard_normal(region[cut:])


@SETTINGS
@given(put_problem())
def test_index_put_accumulate_matches_torch(problem: Any) -> None:
    x, keys, values = problem
    (x1, x2), (v1, v2) = pair(x, True), pair(values, True)
    out = (tt.index_put(x1, tuple(tt.tensor(k) for k in keys), v1, accumulate=True),
           torch.index_put(x2, tuple(torch.tensor(k) for k in keys), v2, accumulate=True))
    close(*out)
    grads_agree([x1, v1], [x2, v2], out, x.size)


def test_index_put_without_accumulate_matches_torch_on_distinct_places() -> None:
    (x1, x2), (v1, v2) = pair(np.arange(12.0).reshape(3, 4), True), pair(np.array([10.0, 20.0, 30.0]), True)
    rows, cols = np.array([2, 0, 1]), np.array([-1, 0, 3])
    out = (x1.index_put((tt.tensor(rows), tt.tensor(cols).int()), v1),
           x2.index_put((torch.tensor(rows), torch.tensor(cols).int()), v2))
    close(*out)
    grads_agree([x1, v1], [x2, v2], out, 4)
    last = tt.zeros(3).index_put((tt.tensor([1, 1]),), tt.tensor([5.0, 6.0]))
    assert last.tolist() == [0.0, 6.0, 0.0]  # a repeated place takes the last value


@SETTINGS
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_view_scatters_match_torch(shape: list[int], data: Any) -> None:
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape)
    d = data.draw(st.integers(-len(shape), len(shape) - 1))
    i = data.draw(st.integers(-shape[d], shape[d] - 1))
    start, end = data.draw(st.one_of(st.none(), st.integers(-5, 5))), data.draw(st.one_of(st.none(), st.integers(-5, 5)))
    step = data.draw(st.integers(1, 3))
    calls: list[tuple[str, Any, tuple[Any, ...]]] = [
        ("select_scatter", torch.zeros(shape).select(d, i), (d, i)),
        ("slice_scatter", torch.zeros(shape)[(slice(None),) * (d % len(shape)) + (slice(start, end, step),)],
         (d, start, end, step)),
    ]
    if len(shape) >= 2:
        off = data.draw(st.integers(-2, 2))
        a, b = data.draw(st.sampled_from([(0, 1), (1, 0), (-1, 0), (0, -1)]))
        calls.append(("diagonal_scatter", torch.zeros(shape).diagonal(off, a, b), (off, a, b)))
    for name, view, args in calls:
        (x1, x2), (s1, s2) = pair(x, True), pair(rng.standard_normal(tuple(view.shape)), True)
        out = (getattr(tt, name)(x1, s1, *args), getattr(torch, name)(x2, s2, *args))
        close(*out)
        grads_agree([x1, s1], [x2, s2], out, len(shape))
        close(getattr(x1, name)(s1, *args), getattr(x2, name)(s2, *args))


def test_view_scatters_cast_src_to_the_input_dtype() -> None:
    x1, x2 = pair(np.zeros((3, 2), np.float32))
    s1, s2 = pair(np.ones(2, np.int64))
    close(tt.select_scatter(x1, s1, 0, 1), torch.select_scatter(x2, s2, 0, 1))
    close(tt.slice_scatter(x1, s1.reshape(1, 2), 0, 2), torch.slice_scatter(x2, s2.reshape(1, 2), 0, 2))


ERRORS: list[tuple[str, Any, type[Exception], str]] = [
    ("index out of range", lambda L: L.zeros(3).scatter_reduce(0, L.tensor([3]), L.ones(1), "sum"), RuntimeError,
     "index 3 is out of bounds for dimension 0 with size 3"),
    ("negative index", lambda L: L.zeros(3).scatter_reduce(0, L.tensor([-1]), L.ones(1), "amax"), RuntimeError,
     "index -1 is out of bounds"),
    ("float index", lambda L: L.zeros(3).scatter_reduce(0, L.tensor([1.0]), L.ones(1), "sum"), RuntimeError,
     "Expected dtype int32/int64 for index"),
    ("src dtype", lambda L: L.zeros(3).scatter_reduce(0, L.tensor([1]), L.ones(1, dtype=L.float64), "sum"),
     RuntimeError, "Expected self.dtype to be equal to src.dtype"),
    ("unknown reduce", lambda L: L.zeros(3).scatter_reduce(0, L.tensor([1]), L.ones(1), "median"), RuntimeError,
     "reduce argument must be"),
    ("index_reduce sum", lambda L: L.zeros(3).index_reduce(0, L.tensor([1]), L.ones(1), "sum"), RuntimeError,
     "Expected reduce to be one of prod, mean, amax or amin but got sum"),
    ("index_reduce range", lambda L: L.zeros(3).index_reduce(0, L.tensor([3]), L.ones(1), "prod"), IndexError,
     "index out of range in self"),
    ("index_reduce matrix index", lambda L: L.zeros(3).index_reduce(0, L.tensor([[1]]), L.ones(1), "prod"),
     IndexError, "Index is supposed to be a vector"),
    ("index_reduce dtype", lambda L: L.zeros(3).index_reduce(0, L.tensor([1]), L.ones(1, dtype=L.float64), "amax"),
     RuntimeError, "must have the same scalar type"),
    ("index_put range", lambda L: L.zeros(3).index_put((L.tensor([3]),), L.ones(1)), IndexError,
     "index 3 is out of bounds for dimension 0 with size 3"),
    ("index_put float index", lambda L: L.zeros(3).index_put((L.tensor([1.0]),), L.ones(1)), IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    ("index_put dtype", lambda L: L.zeros(3).index_put((L.tensor([1]),), L.ones(1, dtype=L.float64)), RuntimeError,
     "Index put requires the source and destination dtypes match"),
    ("index_put values", lambda L: L.zeros(3).index_put((L.tensor([1, 2]),), L.ones(3)), RuntimeError,
     "cannot be broadcast to indexing result of shape [2]"),
    ("index_put too many", lambda L: L.zeros(3).index_put((L.tensor([0]), L.tensor([0])), L.tensor(7.0)), IndexError,
     "too many indices for tensor of dimension 1 (got 2)"),
    ("index_put mask shape", lambda L: L.zeros(3, 2).index_put((L.tensor([True, False]),), L.tensor(7.0)), IndexError,
     "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 2] at index 0"),
    ("index_put not a tuple", lambda L: L.zeros(3).index_put(L.tensor([0]), L.tensor(7.0)), TypeError,
     "must be tuple of Tensors"),
    ("slice step", lambda L: L.slice_scatter(L.zeros(5, 2), L.ones(1, 2), 0, 1, None, 0), RuntimeError,
     "slice step must be positive"),
]


@pytest.mark.parametrize("what, call, kind, text", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_as_torch(what: str, call: Any, kind: type[Exception], text: str) -> None:
    with pytest.raises(kind, match=None) as ref:
        call(torch)
    with pytest.raises(kind) as ours:
        call(tt)
    assert text in str(ours.value), (str(ours.value), str(ref.value))


SHAPE_ERRORS: list[tuple[str, Any]] = [
    ("scatter_reduce", lambda L: L.zeros(3, 2).scatter_reduce(0, L.tensor([[1, 1, 1]]), L.ones(3, 3), "sum")),
    ("scatter_reduce", lambda L: L.zeros(3).scatter_reduce(0, L.tensor([[1]]), L.ones(1), "sum")),
    ("index_reduce", lambda L: L.zeros(3, 2).index_reduce(0, L.tensor([1, 2]), L.ones(2, 3), "prod")),
    ("select_scatter", lambda L: L.select_scatter(L.zeros(3, 2), L.ones(3), 0, 1)),
    ("select_scatter", lambda L: L.select_scatter(L.zeros(3, 2), L.ones(2), 0, 3)),
    ("slice_scatter", lambda L: L.slice_scatter(L.zeros(5, 2), L.ones(3, 2), 0, -4, 100, 2)),
    ("diagonal_scatter", lambda L: L.diagonal_scatter(L.zeros(3, 4), L.ones(2), 1)),
    ("diagonal_scatter", lambda L: L.diagonal_scatter(L.zeros(3, 2), L.ones(2), 0, 0, 0)),
]


@pytest.mark.parametrize("op, call", SHAPE_ERRORS)
def test_shape_errors_name_the_op(op: str, call: Any) -> None:
    with pytest.raises((RuntimeError, IndexError)):
        call(torch)
    with pytest.raises(tt.ShapeError, match=f"^{op}: "):
        call(tt)
