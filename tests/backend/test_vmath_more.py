"""The vectorised float32 exp2 / log2 / log10 / tan / inverse and hyperbolic trigonometric
functions / erfc (backend/src/cpu/vmath_more.h) against float64 references over the whole float
range, in ulp; their special values and domain errors as libm gives them; and the float32
activations built on them (softplus, logsigmoid, mish, elu) against torch."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

import typedtensor._runtime as tt
from typedtensor._runtime import functional as F

Ref = Callable[[np.ndarray], np.ndarray]


def _grid() -> np.ndarray:
    """Both signs over the whole float range (normal and subnormal), dense near 0 and around 1."""
    mags = np.concatenate([np.geomspace(1e-45, 3.4e38, 40001), np.linspace(0, 20, 40001), np.linspace(0.4, 1.6, 20001)])
    return np.concatenate([mags, -mags]).astype(np.float32)


def _ulp(want: np.ndarray) -> np.ndarray:
    """The spacing of float32 at each float64 reference value (2^-149 in the subnormal range)."""
    w = np.abs(want).astype(np.float32)
    w = np.where(np.isinf(w), np.float32(3.4028235e38), w)
    return np.maximum(np.spacing(w).astype(np.float64), 2.0**-149)


def _max_ulp(name: str, x: np.ndarray, ref: Ref, *, strided: bool = False) -> float:
    """Max ulp error of ``tt.<name>`` on float32 ``x`` against the float64 ``ref``; NaN and
    infinities must match exactly."""
    t = tt.tensor(np.stack([x, x]).T.copy()).T[0] if strided else tt.tensor(x)
    got = getattr(tt, name)(t).numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
        want32 = want.astype(np.float32).astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want32), err_msg=name)
    inf = np.isinf(want32) | np.isinf(got)
    np.testing.assert_array_equal(got[inf], want32[inf], err_msg=name)
    ok = ~np.isnan(want32) & ~inf
    err = np.abs(got[ok] - want[ok]) / _ulp(want[ok])
    return float(err.max())


def _erfc(x: np.ndarray) -> np.ndarray:
    return np.array([math.erfc(float(v)) for v in x])


# (name, float64 reference, domain filter or None, max ulp). The bounds are the measured maxima
# (over the grid here and a 1-in-257 sweep of all floats) rounded up, with a little room.
CASES: list[tuple[str, Ref, Callable[[np.ndarray], np.ndarray] | None, float]] = [
    ("exp2", np.exp2, None, 1.5),
    ("log2", np.log2, None, 1.5),
    ("log10", np.log10, None, 1.5),
    ("tan", np.tan, None, 3.0),
    ("asin", np.arcsin, None, 3.0),
    ("acos", np.arccos, None, 1.5),
    ("atan", np.arctan, None, 3.0),
    ("sinh", np.sinh, None, 2.0),
    ("cosh", np.cosh, None, 2.0),
    ("asinh", np.arcsinh, None, 3.0),
    ("acosh", np.arccosh, None, 2.5),
    ("atanh", np.arctanh, None, 2.0),
    ("erfc", _erfc, lambda x: np.abs(x) < 12, 2.5),
]


@pytest.mark.parametrize(("name", "ref", "domain", "bound"), CASES, ids=[c[0] for c in CASES])
def test_float32_accuracy_over_the_whole_range(
    name: str, ref: Ref, domain: Callable[[np.ndarray], np.ndarray] | None, bound: float
) -> None:
    x = _grid()
    if domain is not None:
        x = x[domain(x)]
    assert _max_ulp(name, x, ref) <= bound, name
    assert _max_ulp(name, x[::7].copy(), ref, strided=True) <= bound, name  # the strided loop


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 1e-45, -1e-45, 3e38, -3e38],
                    dtype=np.float32)
NUMPY32: dict[str, Ref] = {
    "exp2": np.exp2, "log2": np.log2, "log10": np.log10, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh,
}


@pytest.mark.parametrize("name", sorted(NUMPY32))
def test_special_values_and_domain_errors_match_libm(name: str) -> None:
    """NaN, +-inf, +-0 (sign included), the domain edges (asin(2), atanh(1), log2(0), log2(-1)) as
    libm's float32 functions give them."""
    got = getattr(tt, name)(tt.tensor(SPECIALS)).numpy()
    with np.errstate(all="ignore"):
        want = NUMPY32[name](SPECIALS)
    fin = np.isfinite(want) & (want != 0)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
    np.testing.assert_array_equal(got[~fin], want[~fin], err_msg=name)
    np.testing.assert_array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]), err_msg=name)
    np.testing.assert_allclose(got[fin], want[fin], rtol=4e-7, err_msg=name)


def test_erfc_special_values_and_underflow() -> None:
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 9.5, 10.0, 10.05, 10.1, 11.0, -11.0], dtype=np.float32)
    got = tt.erfc(tt.tensor(x)).numpy().astype(np.float64)
    want = np.array([math.erfc(float(v)) if not np.isnan(v) else np.nan for v in x]).astype(np.float32)
    assert np.isnan(got[0])
    np.testing.assert_array_equal(got[1:5], want[1:5].astype(np.float64))
    # subnormal results (9.5 .. 10.05) to within one subnormal step, 0 beyond, 2 far left
    np.testing.assert_allclose(got[5:], want[5:].astype(np.float64), rtol=3e-7, atol=2.0**-149)
    assert got[8] == 0.0 and got[9] == 0.0 and got[10] == 2.0


def test_exact_results_at_powers_of_two_and_ten() -> None:
    k = np.arange(-149, 128)
    p2 = np.ldexp(np.float32(1), k).astype(np.float32)
    np.testing.assert_array_equal(tt.log2(tt.tensor(p2)).numpy(), k.astype(np.float32))
    np.testing.assert_array_equal(tt.exp2(tt.tensor(k.astype(np.float32))).numpy(), p2)
    k10 = np.arange(0, 11)
    p10 = (10.0 ** k10).astype(np.float32)  # exact in float32 up to 1e10
    np.testing.assert_array_equal(tt.log10(tt.tensor(p10)).numpy(), k10.astype(np.float32))
    near = np.array([10.0**e for e in range(-38, 39)], dtype=np.float32)  # nearest each power of ten
    want = np.array([math.log10(float(v)) for v in near], dtype=np.float32)  # correctly rounded
    np.testing.assert_array_equal(tt.log10(tt.tensor(near)).numpy(), want)


def test_tan_near_poles_and_beyond_the_reduced_range() -> None:
    k = np.arange(-2000, 2001)
    poles = (k * (math.pi / 2)).astype(np.float32)
    x = np.concatenate([poles, np.nextafter(poles, np.float32(np.inf)), np.nextafter(poles, np.float32(-np.inf))])
    assert _max_ulp("tan", x, np.tan) <= 3.0
    rng = np.random.default_rng(0)
    big = np.concatenate([rng.uniform(2**19, 2**24, 2000), np.geomspace(2**19, 3e38, 2000)]).astype(np.float32)
    big = np.concatenate([big, -big, np.array([524287.97, 524288.0, -524288.0], dtype=np.float32)])
    assert _max_ulp("tan", big, np.tan) <= 3.0
    assert _max_ulp("tan", big, np.tan, strided=True) <= 3.0


def test_float64_matches_numpy() -> None:
    """The float64 overloads (vmath_f64.h) agree with numpy to 1e-15 (their ulp bounds: test_vmath_f64.py)."""
    x = np.linspace(-0.99, 0.99, 1001)
    for name, ref in (("tan", np.tan), ("asin", np.arcsin), ("atanh", np.arctanh), ("log2", np.log2),
                      ("exp2", np.exp2), ("sinh", np.sinh), ("erfc", _erfc)):
        got = getattr(tt, name)(tt.tensor(x)).numpy()
        with np.errstate(all="ignore"):
            np.testing.assert_allclose(got, ref(x), rtol=1e-15, atol=0, err_msg=name)


# ---- activations against torch ----

def _act_input() -> np.ndarray:
    x = np.concatenate([np.linspace(-30, 30, 60001), np.geomspace(1e-30, 110, 2000), -np.geomspace(1e-30, 110, 2000)])
    return np.concatenate([x, [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np.float32)


ACTS: list[tuple[str, dict[str, float]]] = [
    ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 5.0}), ("logsigmoid", {}), ("mish", {}),
    ("elu", {}), ("elu", {"alpha": 0.5}), ("elu", {"alpha": 2.5}), ("hardswish", {}), ("relu", {}),
]


@pytest.mark.parametrize(("name", "kw"), ACTS, ids=[f"{a}{sorted(k.items())}" for a, k in ACTS])
def test_activations_match_torch(name: str, kw: dict[str, float]) -> None:
    torch = pytest.importorskip("torch")
    x = _act_input()
    got = getattr(F, name)(tt.tensor(x), **kw).numpy()
    want = getattr(torch.nn.functional, name)(torch.from_numpy(x), **kw).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
    ok = ~np.isnan(want)
    # a few float32 ulp; absolute slack only where the result is (torch: flushed) subnormal
    np.testing.assert_allclose(got[ok], want[ok], rtol=5e-7, atol=1e-37, err_msg=name)
    strided = getattr(F, name)(tt.tensor(np.stack([x, x]).T.copy()).T[0], **kw).numpy()
    np.testing.assert_array_equal(strided, got, err_msg=name)
