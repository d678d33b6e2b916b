"""The two builds of the unary math kernels (baseline AVX2 and the AVX-512 copy chosen at run time,
backend/src/cpu/unary_avx512.cpp) against each other and against numpy, for every floating-point
unary op, contiguous, strided, broadcast and in place; and the capability switch itself."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import typedtensor as tt

CPU = tt.backends.cpu
START = CPU.get_cpu_capability()
HAS_WIDE = START == "avx512"

# op -> a domain where it is defined (plus the specials every op gets)
OPS: dict[str, tuple[float, float]] = {
    "exp": (-110, 95), "exp2": (-160, 130), "expm1": (-20, 20), "log": (1e-3, 1e6), "log2": (1e-3, 1e6),
    "log10": (1e-3, 1e6), "log1p": (-0.999, 1e6), "sqrt": (0, 1e6), "rsqrt": (1e-6, 1e6),
    "sin": (-1e6, 1e6), "cos": (-1e6, 1e6), "tan": (-10, 10), "asin": (-1, 1), "acos": (-1, 1),
    "atan": (-50, 50), "sinh": (-20, 20), "cosh": (-20, 20), "tanh": (-20, 20), "asinh": (-1e4, 1e4),
    "acosh": (1, 1e4), "atanh": (-0.999, 0.999), "sigmoid": (-120, 120), "erf": (-6, 6),
    "erfc": (-6, 12), "floor": (-1e3, 1e3), "ceil": (-1e3, 1e3), "round": (-1e3, 1e3),
    "trunc": (-1e3, 1e3), "frac": (-1e3, 1e3), "reciprocal": (-1e3, 1e3), "abs": (-1e3, 1e3),
    "neg": (-1e3, 1e3), "square": (-1e3, 1e3), "relu": (-1e3, 1e3), "sign": (-1e3, 1e3),
}
FUNCTIONAL = ("silu", "gelu", "softplus", "mish", "logsigmoid", "hardsigmoid", "hardswish")
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-40, -1e-40]


@pytest.fixture
def capability() -> Iterator[None]:
    yield
    CPU.set_cpu_capability(START)


def _data(lo: float, hi: float, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    body = rng.uniform(lo, hi, 4099)
    return np.concatenate([body, SPECIALS]).astype(dtype)


def _call(name: str, x: tt.Tensor) -> tt.Tensor:
    if name in FUNCTIONAL:
        return getattr(tt.nn.functional, name)(x)  # type: ignore[no-any-return]
    return getattr(tt, name)(x)  # type: ignore[no-any-return]


def _ulp_close(a: np.ndarray, b: np.ndarray, dtype: str, ulps: float) -> None:
    assert np.array_equal(np.isnan(a), np.isnan(b))
    fin = np.isfinite(a) & np.isfinite(b)
    assert np.array_equal(a[~fin & ~np.isnan(a)], b[~fin & ~np.isnan(b)])
    eps = np.finfo(dtype).eps
    tiny = np.finfo(dtype).tiny
    err = np.abs(a[fin].astype(np.float64) - b[fin]) / np.maximum(np.abs(b[fin]).astype(np.float64), tiny)
    assert err.max(initial=0.0) <= ulps * eps, float(err.max())


def test_capability_names_and_switch(capability: None) -> None:
    assert START in ("avx512", "avx2", "default")
    CPU.set_cpu_capability("avx2")
    assert CPU.get_cpu_capability() in ("avx2", "default")
    with pytest.raises(ValueError, match="unknown CPU capability"):
        CPU.set_cpu_capability("sse9")
    if HAS_WIDE:
        CPU.set_cpu_capability("avx512")
        assert CPU.get_cpu_capability() == "avx512"


@pytest.mark.skipif(not HAS_WIDE, reason="this CPU has no AVX-512 (or the wide kernels are off)")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS) + list(FUNCTIONAL))
def test_wide_and_baseline_kernels_agree(name: str, dtype: str, capability: None) -> None:
    lo, hi = OPS.get(name, (-30.0, 30.0))
    x = _data(lo, hi, dtype)
    results = []
    for cap in ("avx2", "avx512"):
        CPU.set_cpu_capability(cap)
        with np.errstate(all="ignore"):
            results.append(_call(name, tt.tensor(x)).numpy())
    # one rounding of a subnormal result (vscalefps) against two: a subnormal ulp apart at most
    a, b = results
    sub = np.abs(b) < np.finfo(dtype).tiny
    assert np.all(np.abs(a[sub] - b[sub]) <= np.finfo(dtype).smallest_subnormal)
    _ulp_close(a[~sub], b[~sub], dtype, 4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS) + list(FUNCTIONAL))
def test_every_layout_takes_the_same_kernel(name: str, dtype: str) -> None:
    """Strided and broadcast operands are gathered into runs for the same span kernels, and in-place
    ops read each element before writing it: all layouts give the contiguous result bit for bit."""
    lo, hi = OPS.get(name, (-30.0, 30.0))
    x = _data(lo, hi, dtype)[:4096].reshape(64, 64)
    with np.errstate(all="ignore"):
        want = _call(name, tt.tensor(x)).numpy()
        t = tt.tensor(np.ascontiguousarray(x.T)).t()  # a transposed view of the same values
        np.testing.assert_array_equal(_call(name, t).numpy(), want)
        step = tt.tensor(np.repeat(x, 2, axis=1))[:, ::2]  # stride 2 in the last dim
        np.testing.assert_array_equal(_call(name, step).numpy(), want)
        row = tt.tensor(x[:1]).expand(64, 64)  # stride 0
        np.testing.assert_array_equal(_call(name, row).numpy(), np.broadcast_to(want[:1], (64, 64)))
        if name not in FUNCTIONAL:
            inplace = tt.tensor(x)
            getattr(inplace, name + "_")()
            np.testing.assert_array_equal(inplace.numpy(), want)


def test_in_place_sin_cos_past_the_reduced_range() -> None:
    """Arguments >= 2^19 take libm; in place the block is scanned before anything is overwritten."""
    x = np.array([1e10, 1.0, -3e9, 524288.0, np.inf, 0.25] * 300, dtype=np.float32)
    for name in ("sin", "cos"):
        t = tt.tensor(x)
        getattr(t, name + "_")()
        with np.errstate(all="ignore"):
            want = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
        np.testing.assert_allclose(t.numpy(), want, rtol=4e-7, atol=1e-7)
        strided = tt.tensor(np.stack([x, x], axis=1))[:, 0]
        getattr(strided, name + "_")()
        np.testing.assert_allclose(strided.numpy(), want, rtol=4e-7, atol=1e-7)


ODD_AT_ZERO = ("sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "expm1", "log1p", "erf", "sqrt",
               "floor", "ceil", "round", "trunc")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ODD_AT_ZERO)
def test_signed_zero_passes_through(name: str, dtype: str, capability: None) -> None:
    """f(-0) = -0 and f(+0) = +0 where libm and torch say so, on both kernel builds."""
    zeros = np.array([-0.0, 0.0] * 40, dtype=dtype)  # long enough for the vector loops
    for cap in ("avx2", "avx512") if HAS_WIDE else ("avx2",):
        CPU.set_cpu_capability(cap)
        got = getattr(tt, name)(tt.tensor(zeros)).numpy()
        assert np.all(got == 0), (name, cap)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(zeros), err_msg=f"{name} on {cap}")
    assert not np.signbit(tt.abs(tt.tensor(zeros)).numpy()).any()  # |-0| = +0, as torch
    for fn in ("silu", "gelu", "mish", "hardswish"):
        got = getattr(tt.nn.functional, fn)(tt.tensor(zeros)).numpy()
        assert np.all(got == 0), fn


@pytest.mark.skipif(not HAS_WIDE, reason="this CPU has no AVX-512 (or the wide kernels are off)")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_rows_agree_across_builds(log: bool, dtype: str, capability: None) -> None:
    """Row softmax runs the exp span kernel of the chosen build: both builds agree with each other
    and with a float64 numpy softmax, rows with inf / NaN / all -inf included."""
    rng = np.random.default_rng(3)
    x = rng.normal(0, 8, (37, 1031)).astype(dtype)  # row length not a multiple of any vector width
    x[1, 5] = np.inf
    x[2, :] = -np.inf
    x[3, 7] = np.nan
    x[4, 9] = -np.inf
    fn = tt.nn.functional.log_softmax if log else tt.nn.functional.softmax
    results = []
    for cap in ("avx2", "avx512"):
        CPU.set_cpu_capability(cap)
        results.append(fn(tt.tensor(x), -1).numpy())
    a, b = results
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    np.testing.assert_allclose(a[ok], b[ok], rtol=8 * np.finfo(dtype).eps, atol=0)
    x64 = x[5:].astype(np.float64)  # the ordinary rows, against numpy
    z = x64 - x64.max(axis=1, keepdims=True)
    want = z - np.log(np.exp(z).sum(axis=1, keepdims=True)) if log else np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(b[5:], want, rtol=20 * np.finfo(dtype).eps, atol=np.finfo(dtype).tiny if not log else 1e-5)
