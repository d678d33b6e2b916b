"""erf and exact GELU in float32 against the exact functions: a few ulp, erf(0) = 0 with slope
2/sqrt(pi), saturation, NaN and infinities (GELU runs on ``verf`` in backend/src/cpu/vmath.h)."""

from __future__ import annotations

import math

import numpy as np

import typedtensor._runtime as tt


def test_erf_float32_is_accurate_everywhere() -> None:
    x = np.concatenate([np.linspace(-8, 8, 100001), np.geomspace(1e-30, 1e-2, 200)]).astype(np.float32)
    got = tt.erf(tt.tensor(x)).numpy().astype(np.float64)
    want = np.array([math.erf(float(v)) for v in x])
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-38)
    assert rel.max() < 1e-6
    assert tt.erf(tt.tensor([0.0])).item() == 0.0


def test_erf_special_values() -> None:
    out = tt.erf(tt.tensor([float("nan"), float("inf"), -float("inf")])).numpy()
    assert np.isnan(out[0]) and out[1] == 1.0 and out[2] == -1.0


def test_gelu_matches_the_exact_formula() -> None:
    # 1 + erf(x) cancels for x << 0: float32 leaves ~1e-6 absolute error there (torch's GELU: 1.0e-6).
    x = np.linspace(-10, 10, 20001).astype(np.float32)
    got = tt.gelu(tt.tensor(x)).numpy().astype(np.float64)
    want = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1.5e-6)


def _float_grid() -> np.ndarray:
    """Both signs over the whole float range (normal and subnormal), plus a dense stretch near 0."""
    mags = np.concatenate([np.geomspace(1e-44, 3e38, 20001), np.linspace(0, 20, 20001)])
    return np.concatenate([mags, -mags]).astype(np.float32)


def _check(name: str, fn: object, ref: object, domain: object = None, rtol: float = 3e-7) -> None:
    x = _float_grid()
    if domain is not None:
        x = x[domain(x)]  # type: ignore[operator]
    got = getattr(tt, name)(tt.tensor(x)).numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64)).astype(np.float32).astype(np.float64)  # type: ignore[operator]
    fin = np.isfinite(want)
    assert np.array_equal(np.isnan(got), np.isnan(want)), name
    assert np.array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)]), name
    rel = np.abs(got[fin] - want[fin]) / np.maximum(np.abs(want[fin]), 1e-37)
    assert rel.max() < rtol, (name, float(rel.max()), float(x[fin][rel.argmax()]))


def test_tanh_log_log1p_expm1_float32_are_accurate_everywhere() -> None:
    """The vectorised float32 tanh / log / log1p / expm1 (vmath.h) against float64 libm, within a few
    ulp over the whole range, with NaN, +-inf, 0 and the domain edges as libm gives them."""
    _check("tanh", tt.tanh, np.tanh)
    _check("log", tt.log, np.log)
    _check("log1p", tt.log1p, np.log1p)
    _check("expm1", tt.expm1, np.expm1, domain=lambda x: x < 88.0)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, -2.0], dtype=np.float32)
    for name, ref in (("tanh", np.tanh), ("log", np.log), ("log1p", np.log1p), ("expm1", np.expm1)):
        got = getattr(tt, name)(tt.tensor(specials)).numpy()
        with np.errstate(all="ignore"):
            want = ref(specials)
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_sin_cos_float32_are_accurate_everywhere() -> None:
    """The vectorised float32 sin / cos (reduced in double below 2^19, libm above, NaN for +-inf),
    contiguous and strided."""
    _check("sin", tt.sin, np.sin, rtol=4e-7)
    _check("cos", tt.cos, np.cos, rtol=4e-7)
    x = np.array([[0.5, 1e6], [np.inf, 3e38], [np.nan, -2.0], [524287.9, -524288.0]], dtype=np.float32)
    for name, ref in (("sin", np.sin), ("cos", np.cos)):
        for arr in (x, x.T.copy().T, x[:, ::-1]):  # contiguous, column-major, negative stride
            got = getattr(tt, name)(tt.tensor(np.ascontiguousarray(arr)).T.contiguous().T).numpy()
            with np.errstate(all="ignore"):
                want = ref(arr.astype(np.float64)).astype(np.float32)
            np.testing.assert_allclose(got, want, rtol=4e-7, atol=0, err_msg=name)


def test_sigmoid_silu_float32_are_accurate_everywhere() -> None:
    """The eight-lane sigmoid (exp(-|x|), reciprocal with a Newton step) and silu, contiguous and
    strided (the scalar form): no overflow for very negative x, subnormal results kept."""
    def ref(x: np.ndarray) -> np.ndarray:
        return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x))))

    x = _float_grid()
    x = x[np.abs(x) < 87.0]  # beyond, the float32 result is 1 or below the subnormal range's accuracy
    for strided in (False, True):
        t = tt.tensor(np.stack([x, x]).T.copy()).T[0] if strided else tt.tensor(x)
        got = tt.sigmoid(t).numpy().astype(np.float64)
        want = ref(x.astype(np.float64)).astype(np.float32).astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=3e-7, atol=0)
        got_silu = tt.silu(t).numpy().astype(np.float64) if hasattr(tt, "silu") else None
        if got_silu is not None:
            np.testing.assert_allclose(got_silu, (x * want).astype(np.float32), rtol=5e-7, atol=1e-38)
    edge = tt.sigmoid(tt.tensor(np.array([-100.0, -89.0, 100.0, np.inf, -np.inf, np.nan], dtype=np.float32))).numpy()
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(edge[:2], ref(np.array([-100.0, -89.0])).astype(np.float32), rtol=1e-6)
    assert edge[2] == 1.0 and edge[3] == 1.0 and edge[4] == 0.0 and np.isnan(edge[5])
