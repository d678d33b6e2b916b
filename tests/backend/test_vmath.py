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
