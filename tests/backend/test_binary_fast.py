"""The vectorised binary kernels (pow, fmod, remainder, floor_divide, atan2, hypot, clamp).

Exact ops (fmod, remainder, floor_divide, clamp, pow by 2 / 3 / -2 / -1 / 1 / 0.5) must equal
torch / numpy bit for bit; pow with other exponents, atan2 and hypot are held to a stated ulp bound
against a float64 (float32 inputs) or libm (float64 inputs) reference. Data covers signs, zeros,
infinities, NaN, huge and tiny magnitudes, broadcasting, strided views and in-place forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor._runtime as tt
from tests.backend.helpers import to_np

torch = pytest.importorskip("torch")

FLOATS = ["float32", "float64"]
SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5, -1.5, np.inf, -np.inf, np.nan]


def special_grid(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of special values (and the type's extremes) as two flat arrays."""
    info = np.finfo(np.dtype(dtype))
    vals = np.array([*SPECIAL, float(info.tiny), float(info.smallest_subnormal), float(info.max), -float(info.max)],
                    dtype=dtype)
    x, y = np.meshgrid(vals, vals)
    return x.ravel(), y.ravel()


def random_mix(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    """Random values with random signs spread over many binades (and some integers)."""
    lim = 60 if dtype == "float32" else 300
    v = rng.uniform(1, 2, n) * np.exp2(rng.integers(-lim, lim, n).astype(np.float64)) * rng.choice([-1, 1], n)
    v[::7] = np.round(rng.uniform(-50, 50, n))[::7]
    return v.astype(dtype)


def ulp_diff(a: np.ndarray, b: np.ndarray) -> int:
    """Largest distance in units in the last place; NaN only matches NaN, infinities only themselves."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    assert np.array_equal(nan_a, nan_b), "NaN positions differ"
    ok = ~nan_a
    a, b = a[ok], b[ok]
    inf = np.isinf(a) | np.isinf(b)
    assert np.array_equal(a[inf], b[inf]), "infinities differ"
    it = np.int32 if a.dtype == np.float32 else np.int64
    ia, ib = a[~inf].view(it).astype(np.int64), b[~inf].view(it).astype(np.int64)
    lo = np.int64(np.iinfo(it).min)
    ia = np.where(ia < 0, lo - ia, ia)  # monotone integer order (-0 and +0 both map to 0)
    ib = np.where(ib < 0, lo - ib, ib)
    return int(np.abs(ia - ib).max(initial=0))


def same_bits(ours: Any, ref: Any) -> None:
    """Equal values, equal signs of zero, NaN in the same places."""
    a, b = to_np(ours), to_np(ref)
    assert a.dtype == b.dtype and a.shape == b.shape
    nan = np.isnan(a)
    assert np.array_equal(nan, np.isnan(b)), "NaN positions differ"
    assert np.array_equal(a[~nan], b[~nan]), "values differ"
    assert np.array_equal(np.signbit(a[~nan]), np.signbit(b[~nan])), "signs of zero differ"


def operands(dtype: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    sx, sy = special_grid(dtype)
    return (np.concatenate([sx, random_mix(rng, 3000, dtype)]), np.concatenate([sy, random_mix(rng, 3000, dtype)]))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["fmod", "remainder", "floor_divide"])
def test_exact_division_ops_match_torch(dtype: str, op: str) -> None:
    x, y = operands(dtype)
    with np.errstate(all="ignore"):
        if op == "fmod":  # IEEE fmod is exact: libm is the reference
            same_bits(tt.fmod(tt.tensor(x), tt.tensor(y)), np.fmod(x, y))
        # torch's fmod gives NaN where x / y overflows (libm: an exact result); leave those out
        keep = ~(np.isnan(torch.fmod(torch.tensor(x), torch.tensor(y)).numpy()) & ~np.isnan(np.fmod(x, y)))
    x, y = x[keep], y[keep]
    same_bits(getattr(tt, op)(tt.tensor(x), tt.tensor(y)), getattr(torch, op)(torch.tensor(x), torch.tensor(y)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_fmod_near_integer_quotients(dtype: str) -> None:
    # x / y rounds onto or across an integer: the fast form must notice and still be exact
    rng = np.random.default_rng(1)
    y = rng.uniform(0.1, 10, 4000).astype(dtype)
    k = rng.integers(1, 1 << 20, 4000).astype(dtype)
    eps = np.finfo(np.dtype(dtype)).eps
    x = (k * y * (1 + rng.choice([-2, -1, 0, 1, 2], 4000) * eps)).astype(dtype)
    for xs, ys in ((x, y), (-x, y), (x, -y), (-x, -y)):
        same_bits(tt.fmod(tt.tensor(xs), tt.tensor(ys)), np.fmod(xs, ys))
        same_bits(tt.remainder(tt.tensor(xs), tt.tensor(ys)), torch.remainder(torch.tensor(xs), torch.tensor(ys)))
        same_bits(tt.floor_divide(tt.tensor(xs), tt.tensor(ys)),
                  torch.floor_divide(torch.tensor(xs), torch.tensor(ys)))


def test_division_ops_broadcast_strided_inplace_and_scalars() -> None:
    rng = np.random.default_rng(2)
    a = rng.uniform(-20, 20, (6, 40)).astype(np.float32)
    b = rng.uniform(-3, 3, (40,)).astype(np.float32)
    ta, tb = tt.tensor(a), tt.tensor(b)
    pa, pb = torch.tensor(a), torch.tensor(b)
    same_bits(tt.fmod(ta, tb), torch.fmod(pa, pb))
    same_bits(ta.t() % 1.7, pa.t() % 1.7)  # strided input, scalar divisor
    same_bits(5.5 // ta[:, ::3], 5.5 // pa[:, ::3])  # scalar first, strided
    same_bits(tt.remainder(ta, -2.5), torch.remainder(pa, -2.5))
    c, pc = ta.clone(), pa.clone()
    c.fmod_(tb)
    pc.fmod_(pb)
    same_bits(c, pc)
    c, pc = ta.clone(), pa.clone()
    c %= tb
    pc %= pb
    same_bits(c, pc)


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_integer_division_ops_unchanged(dtype: str) -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(-100, 100, 500).astype(dtype)
    y = rng.integers(1, 9, 500).astype(dtype) * rng.choice([-1, 1], 500).astype(dtype)
    for op in ("fmod", "remainder", "floor_divide"):
        np.testing.assert_array_equal(to_np(getattr(tt, op)(tt.tensor(x), tt.tensor(y))),
                                      getattr(torch, op)(torch.tensor(x), torch.tensor(y)).numpy())


def reference(op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """float32: computed in float64 and rounded once; float64: libm through numpy."""
    fn = {"pow": np.power, "atan2": np.arctan2, "hypot": np.hypot}[op]
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            return fn(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
        return fn(x, y)


# ulp bounds: float32 pow and hypot are within 1 ulp of the correctly rounded value, float32 atan2
# within 2; float64 atan2 within 2 ulp and hypot within 1 ulp of libm; float64 pow is libm pow
# (1 ulp from numpy's).
ULP = {("pow", "float32"): 1, ("pow", "float64"): 1, ("atan2", "float32"): 2, ("atan2", "float64"): 2,
       ("hypot", "float32"): 1, ("hypot", "float64"): 1}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["pow", "atan2", "hypot"])
def test_transcendental_ops_ulp(dtype: str, op: str) -> None:
    x, y = operands(dtype, seed=4)
    if op == "pow":  # keep most powers in range; bases of both signs, integer and fractional exponents
        rng = np.random.default_rng(5)
        n = len(x) - len(special_grid(dtype)[0])
        x[-n:] = (rng.uniform(0, 4, n) * rng.choice([-1, 1, 1, 1], n)).astype(dtype)
        y[-n:] = np.where(rng.random(n) < 0.3, np.round(rng.uniform(-30, 30, n)), rng.uniform(-30, 30, n)).astype(dtype)
    ours = to_np(getattr(tt, op)(tt.tensor(x), tt.tensor(y)))
    assert ulp_diff(ours, reference(op, x, y)) <= ULP[(op, dtype)]


@pytest.mark.parametrize("dtype", FLOATS)
def test_atan2_hypot_against_torch_with_broadcast_and_strides(dtype: str) -> None:
    rng = np.random.default_rng(6)
    a = rng.normal(size=(5, 33)).astype(dtype)
    b = rng.normal(size=(33,)).astype(dtype)
    for op in ("atan2", "hypot"):
        ours = getattr(tt, op)(tt.tensor(a).t(), tt.tensor(b)[:, None])
        ref = getattr(torch, op)(torch.tensor(a).t(), torch.tensor(b)[:, None])
        assert ulp_diff(to_np(ours), ref.numpy()) <= 2


CONSTANTS = [2, 3, -2, -1, 1, 0, 0.5, -0.5, 1.7, -1.7, 2.5]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("c", CONSTANTS)
def test_pow_by_constant(dtype: str, c: float) -> None:
    x, _ = operands(dtype, seed=7)
    ours = to_np(tt.tensor(x) ** c)
    ref = torch.tensor(x) ** c
    if c in (2, 3, -2, -1, 1, 0, -0.5):  # torch's own product / reciprocal forms: identical
        same_bits(ours, ref)
    elif c == 0.5:  # sqrt, with its -0 and -inf results, correctly rounded
        with np.errstate(invalid="ignore"):
            same_bits(ours, np.sqrt(x))
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref.numpy()))
    else:
        assert ulp_diff(ours, reference("pow", x, np.full_like(x, c))) <= ULP[("pow", dtype)]


def test_pow_forms_scalar_first_inplace_broadcast_int() -> None:
    rng = np.random.default_rng(8)
    x = rng.uniform(-3, 3, (4, 50)).astype(np.float32)
    t, p = tt.tensor(x), torch.tensor(x)
    assert ulp_diff(to_np(2 ** t), reference("pow", np.full_like(x, 2), x)) <= 1
    assert ulp_diff(to_np(0.5 ** t[:, ::2]), reference("pow", np.full_like(x[:, ::2], 0.5), x[:, ::2])) <= 1
    e = np.abs(x[0])
    assert ulp_diff(to_np(t.abs() ** tt.tensor(e)), reference("pow", np.abs(x), np.broadcast_to(e, x.shape))) <= 1
    u, q = t.clone(), p.clone()
    u.pow_(2)
    q.pow_(2)
    same_bits(u, q)
    u, q = t.clone(), p.clone()
    u **= 3
    q **= 3
    same_bits(u, q)
    for dtype in ("int64", "int32"):
        k = rng.integers(-2000, 2000, 300).astype(dtype)
        for c in (2, 3, 5):
            np.testing.assert_array_equal(to_np(tt.tensor(k) ** c), (torch.tensor(k) ** c).numpy())
    h = tt.tensor(x).half()
    assert_close_half = np.abs(to_np((h.abs() ** 1.7).float()) - np.abs(x.astype(np.float16)).astype(np.float64) ** 1.7)
    assert float(assert_close_half.max()) < 0.05


def test_pow_gradient_unchanged() -> None:
    x = np.array([0.5, 1.5, 2.0, 3.0], dtype=np.float32)
    for c in (2, 3, 0.5, -1, 1.7):
        t = tt.tensor(x, requires_grad=True)
        (t ** c).sum().backward()
        p = torch.tensor(x, requires_grad=True)
        (p ** c).sum().backward()
        np.testing.assert_allclose(to_np(t.grad), p.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_clamp_exact(dtype: str) -> None:
    if dtype.startswith("float"):
        x, _ = operands(dtype, seed=9)
        bounds = [(0.5, 2.0), (-1.0, None), (None, 3.0), (2.0, -1.0), (-np.inf, np.inf)]
    else:
        x = np.random.default_rng(9).integers(-50, 50, 400).astype(dtype)
        bounds = [(-3, 7), (0, None), (None, -2), (5, 1)]
    for lo, hi in bounds:
        same_or_equal = same_bits if dtype.startswith("float") else (
            lambda a, b: np.testing.assert_array_equal(to_np(a), to_np(b)))
        same_or_equal(tt.clamp(tt.tensor(x), lo, hi), torch.clamp(torch.tensor(x), lo, hi))
        u, q = tt.tensor(x), torch.tensor(x)
        u.clamp_(lo, hi)
        q.clamp_(lo, hi)
        same_or_equal(u, q)
    m = np.arange(60, dtype=np.float32).reshape(6, 10) - 30
    same_bits(tt.tensor(m).t().clamp(-5.5, 7.5), torch.tensor(m).t().clamp(-5.5, 7.5))
    assert np.isnan(to_np(tt.clamp(tt.tensor(np.ones(3, np.float32)), float("nan"), 1.0))).all()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("w", [0.3, 0.5, 0.7, 1.0, 0.0, -0.25, 1.5])
def test_lerp_scalar_weight_matches_torch(dtype: str, w: float) -> None:
    x, y = operands(dtype, seed=10)
    same_bits(tt.lerp(tt.tensor(x), tt.tensor(y), w), torch.lerp(torch.tensor(x), torch.tensor(y), w))
    a = np.random.default_rng(11).normal(size=(7, 12)).astype(dtype)
    b = np.random.default_rng(12).normal(size=(12,)).astype(dtype)
    same_bits(tt.lerp(tt.tensor(b), tt.tensor(a), w), torch.lerp(torch.tensor(b).expand(7, 12), torch.tensor(a), w))
    # torch rounds strided operands without an fma (one ulp apart); ours is the same in every layout
    strided = tt.tensor(a).t().lerp(tt.tensor(b)[:, None], w)
    same_bits(strided, tt.lerp(tt.tensor(np.ascontiguousarray(a.T)), tt.tensor(np.repeat(b[:, None], 7, 1)), w))
    np.testing.assert_allclose(to_np(strided), torch.tensor(a).t().lerp(torch.tensor(b)[:, None], w).numpy(),
                               rtol=1e-6, atol=1e-6)


def test_lerp_gradients_and_fallbacks() -> None:
    a = np.random.default_rng(13).normal(size=(3, 4)).astype(np.float32)
    b = np.random.default_rng(14).normal(size=(4,)).astype(np.float32)
    for w in (0.25, 0.8):
        ta, tb = tt.tensor(a, requires_grad=True), tt.tensor(b, requires_grad=True)
        (tt.lerp(ta, tb, w) * tt.tensor(a)).sum().backward()
        pa, pb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        (torch.lerp(pa, pb.expand(3, 4), w) * torch.tensor(a)).sum().backward()
        np.testing.assert_allclose(to_np(ta.grad), pa.grad.numpy(), rtol=1e-6)
        np.testing.assert_allclose(to_np(tb.grad), pb.grad.numpy(), rtol=1e-6)
    # mixed dtypes and a tensor weight take the composed path
    r = tt.lerp(tt.tensor(a), tt.tensor(b.astype(np.float64)), 0.3)
    ref = torch.lerp(torch.tensor(a).double(), torch.tensor(b.astype(np.float64)).expand(3, 4), 0.3)
    np.testing.assert_allclose(to_np(r), ref.numpy(), rtol=1e-6)
    w = np.full((3, 4), 0.3, np.float32)
    np.testing.assert_allclose(to_np(tt.lerp(tt.tensor(a), tt.tensor(b), tt.tensor(w))),
                               torch.lerp(torch.tensor(a), torch.tensor(b).expand(3, 4), torch.tensor(w)).numpy(),
                               rtol=1e-6, atol=1e-7)
