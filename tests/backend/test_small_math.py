"""The small torch functions of ``_runtime/small_math.py`` against torch: values, dtypes, result
types (named fields), gradients in float64 and torch's errors."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)


def arr(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def ints(*shape: int, lo: int = -20, hi: int = 20) -> np.ndarray:
    return RNG.integers(lo, hi, shape)


SPECIAL = np.array([1.0, np.inf, -np.inf, np.nan, 0.0, -2.0, -0.0])
TIES = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.0, 0.0], [5.0, 5.0, 5.0, 5.0]])


def host(x: Any) -> Any:
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
    ("H", lambda m, a: a.H, (arr(3, 4),), True),
    ("H 0-d", lambda m, a: a.H, (arr(),), True),
    ("mH", lambda m, a: a.mH, (arr(2, 3, 4),), True),
    ("adjoint", lambda m, a: m.adjoint(a), (arr(2, 2, 3, 4),), True),
    ("adjoint method", lambda m, a: a.adjoint(), (arr(4, 3),), True),
    ("fliplr", lambda m, a: m.fliplr(a), (arr(3, 4),), True),
    ("fliplr 3-d method", lambda m, a: a.fliplr(), (arr(2, 5, 3),), True),
    ("fliplr int", lambda m, a: m.fliplr(a), (ints(3, 4),), False),
    ("aminmax", lambda m, a: m.aminmax(a), (arr(3, 4),), True),
    ("aminmax dim", lambda m, a: m.aminmax(a, dim=1), (arr(3, 4),), True),
    ("aminmax dim keepdim", lambda m, a: a.aminmax(dim=-2, keepdim=True), (arr(3, 4, 2),), True),
    ("aminmax all keepdim", lambda m, a: a.aminmax(keepdim=True), (arr(2, 3),), True),
    ("aminmax ties", lambda m, a: m.aminmax(a, dim=1), (TIES,), True),
    ("aminmax ties all", lambda m, a: m.aminmax(a), (TIES,), True),
    ("aminmax 0-d", lambda m, a: m.aminmax(a, dim=0, keepdim=True), (arr(),), True),
    ("aminmax empty dim", lambda m, a: m.aminmax(a, dim=0), (arr(2, 0),), False),
    ("aminmax int", lambda m, a: m.aminmax(a, dim=0), (ints(4, 3),), False),
    ("aminmax nan", lambda m, a: m.aminmax(a), (SPECIAL,), False),
    ("argwhere", lambda m, a: m.argwhere(a > 0.3), (arr(3, 4),), False),
    ("argwhere float", lambda m, a: a.argwhere(), (SPECIAL,), False),
    ("argwhere 0-d", lambda m, a: m.argwhere(a), (np.array(2.0),), False),
    ("argwhere 0-d zero", lambda m, a: m.argwhere(a), (np.array(0.0),), False),
    ("argwhere empty", lambda m, a: m.argwhere(a), (arr(0, 3),), False),
    ("isposinf", lambda m, a: m.isposinf(a), (SPECIAL,), False),
    ("isneginf", lambda m, a: a.isneginf(), (SPECIAL,), False),
    ("isreal", lambda m, a: m.isreal(a), (SPECIAL,), False),
    ("isposinf int", lambda m, a: a.isposinf(), (ints(5),), False),
    ("isneginf bool", lambda m, a: m.isneginf(a > 0), (ints(5),), False),
    ("isreal int", lambda m, a: a.isreal(), (ints(2, 3),), False),
    ("vdot", lambda m, a, b: m.vdot(a, b), (arr(5), arr(5)), True),
    ("vdot int", lambda m, a, b: a.vdot(b), (ints(4), ints(4)), False),
    ("ger", lambda m, a, b: m.ger(a, b), (arr(3), arr(4)), True),
    ("ger method", lambda m, a, b: a.ger(b), (arr(2), arr(5)), True),
    ("addr", lambda m, a, b, c: m.addr(a, b, c), (arr(3, 4), arr(3), arr(4)), True),
    ("addr broadcast scaled", lambda m, a, b, c: a.addr(b, c, beta=0.5, alpha=-2.0), (arr(4), arr(3), arr(4)), True),
    ("addr beta 0 ignores nan", lambda m, a, b, c: m.addr(a * np.nan, b, c, beta=0), (arr(3, 4), arr(3), arr(4)),
     True),
    ("addr int", lambda m, a, b, c: m.addr(a, b, c, alpha=2), (ints(3, 2), ints(3), ints(2)), False),
    ("addr int input float vectors", lambda m, a, b, c: m.addr(a, b, c), (ints(3, 2), arr(3), arr(2)), False),
    *[(f"dist p={p}", lambda m, a, b, p=p: m.dist(a, b, p), (arr(3, 4), arr(4)), p != 0)
      for p in (2, 1, 0, 3.5, 0.5, -1.5, float("inf"), float("-inf"))],
    *[(f"dist zero difference p={p}", lambda m, a, p=p: m.dist(a, a.detach(), p), (arr(2, 3),), p != 0)
      for p in (2, 1, 0, 3.5, 0.5, float("inf"))],
    ("dist with zeros p=0.5", lambda m, a, b: a.dist(b, 0.5), (np.array([1.0, 0.0, -2.0]), np.zeros(3)), True),
    ("dist mixed dtypes", lambda m, a, b: m.dist(a.float(), b), (arr(3), arr(3)), False),
    *[(f"renorm p={p}", lambda m, a, p=p: m.renorm(a, p, 1, 1.0), (arr(3, 4, 2),), True)
      for p in (2, 1, 0.5, 3, float("inf"))],
    ("renorm some rows", lambda m, a: a.renorm(2, 0, 2.0), (np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]]),), True),
    ("renorm negative dim", lambda m, a: m.renorm(a, 2, -1, 0.0), (arr(2, 3),), True),
    ("sum_to_size", lambda m, a: a.sum_to_size(4), (arr(3, 4),), True),
    ("sum_to_size ones", lambda m, a: a.sum_to_size(3, 1), (arr(2, 3, 4),), True),
    ("sum_to_size tuple", lambda m, a: a.sum_to_size((1, 1, 4)), (arr(2, 3, 4),), True),
    ("sum_to_size same", lambda m, a: a.sum_to_size(2, 3), (arr(2, 3),), True),
    ("sum_to_size int", lambda m, a: a.sum_to_size(1, 3), (ints(4, 3),), False),
    ("split_with_sizes", lambda m, a: m.split_with_sizes(a, [1, 2]), (arr(3, 4),), True),
    ("split_with_sizes dim", lambda m, a: a.split_with_sizes([2, 0, 2], dim=-1), (arr(3, 4),), True),
    ("frexp", lambda m, a: m.frexp(a * 100), (arr(3, 4),), True),
    ("frexp special", lambda m, a: a.frexp(), (np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 1e300, -7.25]),),
     False),
    ("frexp 0-d", lambda m, a: m.frexp(a), (np.array(12.0),), True),
    ("frexp float32", lambda m, a: m.frexp(a.float()), (arr(5),), False),
    ("ldexp", lambda m, a, b: m.ldexp(a, b), (arr(3, 4), ints(4, lo=-5, hi=5).astype(float)), True),
    ("ldexp int exponent", lambda m, a, b: m.ldexp(a, b), (arr(3, 4), ints(4, lo=-5, hi=5)), False),
    ("ldexp float exponent", lambda m, a, b: a.ldexp(b), (arr(2, 3), arr(3)), True),
    ("ldexp int", lambda m, a, b: m.ldexp(a, b), (ints(3), ints(3, lo=0, hi=4)), False),
    ("gcd", lambda m, a, b: m.gcd(a, b), (ints(4, 5, lo=-30, hi=30), ints(5, lo=-30, hi=30)), False),
    ("gcd zeros", lambda m, a, b: a.gcd(b), (np.array([0, 0, 5, -6]), np.array([0, 7, 0, 4])), False),
    ("gcd mixed ints", lambda m, a, b: m.gcd(a.int(), b), (ints(6), ints(6)), False),
    ("lcm", lambda m, a, b: m.lcm(a, b), (ints(4, 5, lo=-30, hi=30), ints(5, lo=-30, hi=30)), False),
    ("lcm zeros", lambda m, a, b: a.lcm(b), (np.array([0, 0, 5, -6]), np.array([0, 7, 0, 4])), False),
]


def _run(fn: Callable[..., Any], inputs: tuple[np.ndarray, ...], grad: bool) -> tuple[Any, Any, list[Any], list[Any]]:
    ours_in = [tt.tensor(x, requires_grad=grad) for x in inputs]
    ref_in = [torch.tensor(x, requires_grad=grad) for x in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch's deprecation of .H / .mH on 0-d tensors
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
        assert r.grad is not None and o.grad is not None
        np.testing.assert_allclose(o.grad.numpy(), r.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_transposes_are_views() -> None:
    x = tt.zeros(2, 3)
    x.H[1, 0] = 5.0
    x.mH[2, 1] = 7.0
    x.adjoint()[0, 1] = 3.0
    assert x.tolist() == [[0.0, 5.0, 0.0], [3.0, 0.0, 7.0]]


def test_result_type_is_named_like_torch() -> None:
    x = tt.tensor([[3.0, 1.0, 2.0]])
    r = x.aminmax(dim=1)
    assert r.min.tolist() == [1.0] and r.max.tolist() == [3.0]
    assert type(r).__name__ == "aminmax" and type(r).__module__ == "typedtensor.return_types"


def test_errors_are_torchs() -> None:
    with pytest.raises(tt.ShapeError, match=r"H: tensor\.H is only supported on matrices \(2-D tensors\)\. Got 3-D"):
        _ = tt.zeros(2, 3, 4).H
    with pytest.raises(tt.ShapeError, match=r"mH: tensor\.mH is only supported on matrices or batches of matrices"):
        _ = tt.zeros(3).mH
    with pytest.raises(tt.ShapeError, match=r"adjoint: tensor.adjoint\(\) is only supported on matrices"):
        tt.adjoint(tt.zeros(3))
    with pytest.raises(tt.ShapeError, match="fliplr: Input must be >= 2-d"):
        tt.zeros(3).fliplr()
    with pytest.raises(tt.ShapeError, match="aminmax: cannot compute aminmax over an empty dimension"):
        tt.aminmax(tt.zeros(2, 0))
    with pytest.raises(tt.ShapeError, match="aminmax: Expected reduction dim 1 to have non-zero size"):
        tt.zeros(2, 0).aminmax(dim=1)
    with pytest.raises(tt.ShapeError, match="aminmax: dim 2 is out of range"):
        tt.aminmax(tt.zeros(2, 3), dim=2)
    with pytest.raises(TypeError):
        tt.aminmax(tt.zeros(2, 3), 1)  # dim is keyword-only, as in torch
    with pytest.raises(tt.ShapeError, match="vdot: 1D tensors expected, but got 2D and 1D tensors"):
        tt.vdot(tt.zeros(2, 3), tt.zeros(3))
    with pytest.raises(tt.ShapeError, match="vdot: inconsistent tensor size"):
        tt.vdot(tt.zeros(3), tt.zeros(4))
    with pytest.raises(RuntimeError, match="expected both vectors to have same dtype, but found Float and Double"):
        tt.vdot(tt.zeros(3), tt.zeros(3, dtype=tt.float64))
    with pytest.raises(tt.ShapeError, match="ger: Expected 1-D argument vec2, but got 2-D"):
        tt.ger(tt.zeros(3), tt.zeros(3, 1))
    with pytest.raises(tt.ShapeError, match="addr: Expected 1-D argument vec1, but got 2-D"):
        tt.addr(tt.zeros(3, 4), tt.zeros(3, 1), tt.zeros(4))
    with pytest.raises(tt.ShapeError, match=r"addr: input \[3, 5\] does not broadcast"):
        tt.addr(tt.zeros(3, 5), tt.zeros(3), tt.zeros(4))
    with pytest.raises(RuntimeError, match="argument alpha must not be a floating point number"):
        tt.addr(tt.zeros(3, 4, dtype=tt.int64), tt.zeros(3, dtype=tt.int64), tt.zeros(4, dtype=tt.int64), alpha=0.5)
    with pytest.raises(tt.ShapeError, match="dist: dimensions do not broadcast"):
        tt.dist(tt.zeros(2, 3), tt.zeros(4))
    with pytest.raises(RuntimeError, match=r"input dtype should be either floating point or complex\. Got Long"):
        tt.dist(tt.zeros(3, dtype=tt.int64), tt.zeros(3, dtype=tt.int64))
    with pytest.raises(tt.ShapeError, match="renorm: non-positive-norm not supported"):
        tt.renorm(tt.zeros(3, 4), 0, 1, 1.0)
    with pytest.raises(tt.ShapeError, match="renorm: expected maxnorm to be >= 0 but got -1"):
        tt.zeros(3, 4).renorm(2, 1, -1.0)
    with pytest.raises(tt.ShapeError, match="renorm: input needs at least 2 dimensions, got 1 dimensions"):
        tt.renorm(tt.zeros(4), 2, 0, 1.0)
    with pytest.raises(tt.ShapeError, match="renorm: dim 2 is out of range"):
        tt.renorm(tt.zeros(3, 4), 2, 2, 1.0)
    with pytest.raises(tt.ShapeError, match=r"sum_to_size: size \[2, 4\] is not expandable to size \[3, 4\]"):
        tt.zeros(3, 4).sum_to_size(2, 4)
    with pytest.raises(tt.ShapeError, match="is not expandable"):
        tt.zeros(3, 4).sum_to_size(5, 3, 4)
    with pytest.raises(TypeError, match="missing 1 required positional arguments"):
        tt.zeros(3, 4).sum_to_size()
    with pytest.raises(tt.ShapeError, match="split_with_sizes: sections"):
        tt.split_with_sizes(tt.zeros(3, 4), [1, 1])
    with pytest.raises(tt.ShapeError, match="split_with_sizes: expects split_sizes have only non-negative entries"):
        tt.zeros(3, 4).split_with_sizes([-1, 4])
    with pytest.raises(tt.ShapeError, match="split_with_sizes: dim 2 is out of range"):
        tt.zeros(3, 4).split_with_sizes([1, 3], 2)
    with pytest.raises(RuntimeError, match=r"torch\.frexp\(\) only supports floating-point dtypes"):
        tt.frexp(tt.zeros(3, dtype=tt.int64))
    with pytest.raises(tt.ShapeError, match="ldexp: dimensions do not broadcast"):
        tt.ldexp(tt.zeros(3), tt.zeros(2))
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        tt.gcd(tt.zeros(3), tt.zeros(3))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tt.lcm(tt.zeros(3, dtype=tt.bool), tt.zeros(3, dtype=tt.bool))


def test_inplace_forms_match_torch() -> None:
    a, v1, v2 = arr(3, 4), arr(3), arr(4)
    for name, args, kw in (("addr_", (v1, v2), {"alpha": 2.0}), ("renorm_", (2, 0, 1.0), {}),
                           ("ldexp_", (arr(4),), {})):
        ours, ref = tt.tensor(a), torch.tensor(a)
        ours_args = [tt.tensor(x) if isinstance(x, np.ndarray) else x for x in args]
        ref_args = [torch.tensor(x) if isinstance(x, np.ndarray) else x for x in args]
        got = getattr(ours, name)(*ours_args, **kw)
        getattr(ref, name)(*ref_args, **kw)
        assert got is ours
        same(ours, ref)
    for name in ("gcd_", "lcm_"):
        a_int, b_int = ints(3, 4), ints(4)
        ours, ref = tt.tensor(a_int), torch.tensor(a_int)
        assert getattr(ours, name)(tt.tensor(b_int)) is ours
        getattr(ref, name)(torch.tensor(b_int))
        same(ours, ref)


def test_frexp_result_is_named_like_torch() -> None:
    r = tt.tensor([3.0, 0.5]).frexp()
    assert type(r).__name__ == "frexp" and r._fields == ("mantissa", "exponent")
    assert r.mantissa.tolist() == [0.75, 0.5] and r.exponent.tolist() == [2, 0] and r.exponent.dtype == tt.int32
