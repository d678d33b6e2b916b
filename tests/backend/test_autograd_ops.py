"""Gradients of every differentiable op: gradcheck (float64 finite differences) on the sample
invocations of autograd_cases.py, the same gradients from torch, and a coverage check that every
differentiable registry op the runtime exposes has a sample."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import typedtensor._runtime as tt
from typedtensor._runtime.autograd import grad, gradcheck
from typedtensor.shapes import registry

from .autograd_cases import CASES, Big, Case, Pos, Spec, Unit
from .helpers import assert_close

torch = pytest.importorskip("torch")

TT = SimpleNamespace(t=tt, F=tt.functional)
TORCH = SimpleNamespace(t=torch, F=torch.nn.functional)
PARAMS = [pytest.param(name, case, id=f"{name}-{i}") for name, cases in CASES.items() for i, case in enumerate(cases)]


def _array(spec: Spec, rng: np.random.RandomState) -> np.ndarray:
    if isinstance(spec, Pos):
        return rng.uniform(0.5, 2.0, spec.shape)
    if isinstance(spec, Unit):
        return rng.uniform(-0.9, 0.9, spec.shape)
    if isinstance(spec, Big):
        return rng.uniform(1.2, 3.0, spec.shape)
    return rng.randn(*spec)


def _arrays(name: str, case: Case) -> list[np.ndarray]:
    rng = np.random.RandomState(abs(hash(name)) % 2**31)
    return [_array(s, rng) for s in case.inputs]


def _skip_unavailable(case: Case) -> None:
    if case.device == "cuda" and not tt.cuda.is_available():
        pytest.skip("needs a CUDA device")


def _outputs(out: Any) -> list[Any]:
    outs = [out] if hasattr(out, "shape") else list(out)
    return [o for o in outs if o.is_floating_point()]


@pytest.mark.parametrize(("name", "case"), PARAMS)
def test_gradcheck(name: str, case: Case) -> None:
    _skip_unavailable(case)
    xs = [tt.tensor(a, requires_grad=True) for a in _arrays(name, case)]
    assert gradcheck(lambda *a: case.fn(TT, *a), xs, **case.gradcheck)


@pytest.mark.parametrize(("name", "case"), PARAMS)
def test_gradient_matches_torch(name: str, case: Case) -> None:
    _skip_unavailable(case)
    if case.random:
        pytest.skip("random op: the two libraries draw different numbers")
    arrays = _arrays(name, case)
    ours = [tt.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out_ours, out_theirs = _outputs(case.fn(TT, *ours)), _outputs(case.fn(TORCH, *theirs))
    rng = np.random.RandomState(1)
    weights = [rng.randn(*tuple(o.shape)) for o in out_theirs]
    g_ours = grad(out_ours, ours, [tt.tensor(w, dtype=o.dtype) for w, o in zip(weights, out_ours, strict=True)], allow_unused=True)
    g_theirs = torch.autograd.grad(out_theirs, theirs, [torch.tensor(w, dtype=o.dtype) for w, o in zip(weights, out_theirs, strict=True)],
                                   allow_unused=True)
    for a, b in zip(g_ours, g_theirs, strict=True):
        if b is None:
            assert a is None or not bool((a != 0).any())
            continue
        assert a is not None
        assert_close(a, b, rtol=1e-6, atol=1e-8)


def _exposed(name: str) -> bool:
    if name == "index":  # Tensor.__getitem__
        return True
    return hasattr(tt, name) or hasattr(tt.Tensor, name) or hasattr(tt.functional, name)


def test_every_exposed_differentiable_op_has_a_case() -> None:
    ops = {n: registry.get_op(n) for n in registry.all_ops()}
    differentiable = {n for n, op in ops.items() if op.differentiable}
    exposed = {n for n in differentiable if _exposed(n)}
    assert sorted(exposed - set(CASES)) == [], "differentiable ops without a gradient test"
    assert sorted(set(CASES) - differentiable) == [], "cases for ops the registry calls non-differentiable"
    print(f"gradcheck coverage: {len(exposed)} of {len(differentiable)} differentiable registry ops "
          f"({len(differentiable) - len(exposed)} not exposed by the runtime)")


# ---- broadcasting, with hypothesis: the Expand VJP sums back to each operand's shape ----
def _broadcast_pair(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    out = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    a = tuple(d if draw(st.booleans()) else 1 for d in out)
    b = tuple(d if draw(st.booleans()) else 1 for d in out)[draw(st.integers(0, len(out))):]
    return a, b


@st.composite
def _pairs(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return _broadcast_pair(draw)


BINARY = {
    "add": lambda L, a, b: a + b, "sub": lambda L, a, b: a - b, "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / (b.abs() + 0.5), "maximum": lambda L, a, b: L.t.maximum(a, b),
    "atan2": lambda L, a, b: L.t.atan2(a, b.abs() + 0.5), "where": lambda L, a, b: L.t.where(a > b, a * b, b),
}


@settings(max_examples=15, deadline=None)
@given(shapes=_pairs(), op=st.sampled_from(sorted(BINARY)), seed=st.integers(0, 1000))
def test_broadcasting_binary_gradients(shapes: tuple[tuple[int, ...], tuple[int, ...]], op: str, seed: int) -> None:
    rng = np.random.RandomState(seed)
    arrays = [rng.randn(*s) for s in shapes]
    fn = BINARY[op]
    xs = [tt.tensor(a, requires_grad=True) for a in arrays]
    assert gradcheck(lambda a, b: fn(TT, a, b), xs)
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    fn(TORCH, *ts).sum().backward()
    fn(TT, *xs).sum().backward()
    for x, t in zip(xs, ts, strict=True):
        assert x.grad is not None and tuple(x.grad.shape) == tuple(t.shape)
        assert_close(x.grad, t.grad, rtol=1e-6, atol=1e-8)


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), data=st.data())
def test_reduction_gradients(shape: list[int], data: Any) -> None:
    dims = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True, min_size=1))
    keepdim = data.draw(st.booleans())
    op = data.draw(st.sampled_from(["sum", "mean", "amax", "logsumexp"]))
    a = np.random.RandomState(len(shape)).randn(*shape)
    x = tt.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    getattr(x, op)(dims, keepdim=keepdim).sum().backward()
    getattr(t, op)(dims, keepdim=keepdim).sum().backward()
    assert_close(x.grad, t.grad, rtol=1e-6, atol=1e-8)
