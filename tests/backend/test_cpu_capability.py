"""The two builds of the unary math kernels (baseline AVX2 and the AVX-512 copy chosen at run time,
backend/src/cpu/unary_avx512.cpp) against each other and against numpy, for every floating-point
unary op, contiguous, strided, broadcast and in place; and the capability switch itself."""

from __future__ import annotations

import math
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
    "erfc": (-6, 12), "erfinv": (-1, 1), "floor": (-1e3, 1e3), "ceil": (-1e3, 1e3), "round": (-1e3, 1e3),
    "trunc": (-1e3, 1e3), "frac": (-1e3, 1e3), "reciprocal": (-1e3, 1e3), "abs": (-1e3, 1e3),
    "neg": (-1e3, 1e3), "square": (-1e3, 1e3), "relu": (-1e3, 1e3), "sign": (-1e3, 1e3),
    "lgamma": (-50, 1e4), "digamma": (-50, 1e4), "i0": (-700, 700),
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


# ---- the binary span kernels (pow, atan2, hypot, fmod, remainder, floor_divide): binary_span.h,
# compiled for the baseline in elementwise.cpp and for AVX-512 in binary_avx512.cpp ----

# ulp bounds of test_binary_fast.py; 0: exact (fmod and the two ops built on it), signed zeros too
BINARY_ULPS = {"pow": 1, "atan2": 2, "hypot": 1, "fmod": 0, "remainder": 0, "floor_divide": 0}
BINARY_SPECIALS = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -1.5, 7.0, np.inf, -np.inf, np.nan,
                   1e-40, -1e-40, 1e30, -1e30]
CAPS = ("avx2", "avx512") if HAS_WIDE else ("avx2",)


def _binary_operands(name: str, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of special values, then random pairs: for pow bases of both signs with integer and
    fractional exponents (and bases near 1 with large exponents), else values over many binades.
    4385 pairs: the vector loops' tails run too."""
    rng = np.random.default_rng(11)
    gx, gy = (g.ravel() for g in np.meshgrid(BINARY_SPECIALS, BINARY_SPECIALS))
    n = 4061
    if name == "pow":
        x = rng.uniform(0, 4, n) * rng.choice([-1, 1, 1, 1], n)
        y = np.where(rng.random(n) < 0.3, np.round(rng.uniform(-30, 30, n)), rng.uniform(-30, 30, n))
        x[::5] = 1 + rng.uniform(-1e-3, 1e-3, len(x[::5]))
        y[::5] = rng.uniform(-3e4, 3e4, len(y[::5]))
        x[1::9] = np.exp2(rng.uniform(-149, 127, len(x[1::9])))  # subnormal to huge bases, small powers
        y[1::9] = rng.uniform(-1.2, 1.2, len(y[1::9]))
    else:
        lim = 60 if dtype == "float32" else 300
        x, y = (rng.uniform(1, 2, n) * np.exp2(rng.integers(-lim, lim, n)) * rng.choice([-1, 1], n) for _ in "xy")
        x[::7] = np.round(rng.uniform(-50, 50, n))[::7]
        y[::3] = rng.uniform(-4, 4, n)[::3]  # quotients of every size
    with np.errstate(over="ignore"):
        return np.concatenate([gx, x]).astype(dtype), np.concatenate([gy, y]).astype(dtype)


def _ulps(a: np.ndarray, b: np.ndarray) -> int:
    """Largest distance in units in the last place; NaN only matches NaN, inf only the same inf."""
    assert a.dtype == b.dtype and a.shape == b.shape
    nan = np.isnan(a)
    assert np.array_equal(nan, np.isnan(b)), "NaN positions differ"
    a, b = a[~nan], b[~nan]
    inf = np.isinf(a) | np.isinf(b)
    assert np.array_equal(a[inf], b[inf]), "infinities differ"
    it = np.int32 if a.dtype == np.float32 else np.int64
    ia, ib = (v[~inf].view(it).astype(np.int64) for v in (a, b))
    lo = np.int64(np.iinfo(it).min)
    ia, ib = np.where(ia < 0, lo - ia, ia), np.where(ib < 0, lo - ib, ib)  # monotone; -0 and +0 -> 0
    return int(np.abs(ia - ib).max(initial=0))


def _binary_agree(name: str, a: np.ndarray, b: np.ndarray) -> None:
    assert _ulps(a, b) <= BINARY_ULPS[name], name
    if BINARY_ULPS[name] == 0:
        ok = ~np.isnan(a)
        assert np.array_equal(np.signbit(a[ok]), np.signbit(b[ok])), f"{name}: signs of zero differ"


def _binary_reference(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """float32: computed in float64 and rounded once; float64: libm through numpy."""
    fn = {"pow": np.power, "atan2": np.arctan2, "hypot": np.hypot, "fmod": np.fmod}[name]
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            return fn(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
        return fn(x, y)  # type: ignore[no-any-return]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY_ULPS))
def test_binary_span_kernels_agree_across_builds(name: str, dtype: str, capability: None) -> None:
    """Both builds within the op's ulp bound of each other (exact ops: bit for bit) and of the
    reference, special values included."""
    x, y = _binary_operands(name, dtype)
    results = []
    for cap in CAPS:
        CPU.set_cpu_capability(cap)
        got = getattr(tt, name)(tt.tensor(x), tt.tensor(y)).numpy()
        if name in ("pow", "atan2", "hypot", "fmod"):
            _binary_agree(name, got, _binary_reference(name, x, y))
        results.append(got)
    _binary_agree(name, results[0], results[-1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(BINARY_ULPS))
def test_binary_span_layouts_on_both_builds(name: str, dtype: str, capability: None) -> None:
    """Strided, broadcast, scalar and in-place operands are fed to the same span kernels in runs: on
    each build every layout gives that build's contiguous result bit for bit, and the builds agree."""
    x, y = (v[:4096].reshape(64, 64) for v in _binary_operands(name, dtype))
    fn = getattr(tt, name)
    wants = []
    for cap in CAPS:
        CPU.set_cpu_capability(cap)
        want = fn(tt.tensor(x), tt.tensor(y)).numpy()
        wants.append(want)
        t = tt.tensor(np.ascontiguousarray(x.T)).t()  # a transposed view of the same values
        np.testing.assert_array_equal(fn(t, tt.tensor(y)).numpy(), want)
        step = tt.tensor(np.repeat(y, 2, axis=1))[:, ::2]  # stride 2 in the last dim
        np.testing.assert_array_equal(fn(tt.tensor(x), step).numpy(), want)
        row = tt.tensor(x[:1]).expand(64, 64)  # stride 0, against the same values made contiguous
        np.testing.assert_array_equal(fn(row, tt.tensor(y)).numpy(),
                                      fn(tt.tensor(np.repeat(x[:1], 64, axis=0)), tt.tensor(y)).numpy())
        c = 1.7 if name == "pow" else -2.5  # a Python number (pow: not one of the product forms)
        np.testing.assert_array_equal(fn(tt.tensor(x), c).numpy(), fn(tt.tensor(x), tt.tensor(np.full_like(y, c))).numpy())
        inplace = tt.tensor(x)
        getattr(inplace, name + "_")(tt.tensor(y))
        np.testing.assert_array_equal(inplace.numpy(), want)
        both = tt.tensor(x)  # out, x and y all one tensor
        getattr(both, name + "_")(both)
        np.testing.assert_array_equal(both.numpy(), fn(tt.tensor(x), tt.tensor(x.copy())).numpy())
    _binary_agree(name, wants[0], wants[-1])


@pytest.mark.skipif(not HAS_WIDE, reason="this CPU has no AVX-512 (or the wide kernels are off)")
@pytest.mark.parametrize("name", ["exp", "exp2", "sigmoid", "silu"])
def test_double_exp_lanes_are_the_same_in_both_builds(name: str, capability: None) -> None:
    """float64 exp / exp2 / sigmoid / silu have explicit lanes in both builds (AVX2: 2^n as two exact
    power-of-two factors, AVX-512: vscalefpd); both round once, so they agree bit for bit, subnormal
    results, overflow, specials and every tail length included."""
    rng = np.random.default_rng(3)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 709.78, 709.79, 710.0, -708.39, -708.4, -745.13, -745.14,
             -746.0, 1023.9, 1024.0, 1024.1, -1022.5, -1074.0, -1074.5, -1075.0, -1076.0, 1e-300, 5e-324]
    x = np.concatenate([rng.uniform(-800, 800, 20000), rng.uniform(-1100, 1100, 20000),
                        rng.standard_normal(5000) * 5, edges])
    fn = (lambda t: tt.nn.functional.silu(t)) if name == "silu" else (lambda t: getattr(t, name)())
    for cut in range(4):  # tails of 0..3 elements past the last full AVX2 vector
        v = x[:len(x) - cut]
        got = []
        for cap in ("avx2", "avx512"):
            CPU.set_cpu_capability(cap)
            got.append(fn(tt.tensor(v)).numpy())
        np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("threads", [1, 2])
def test_gelu_backward_matches_torch_on_both_builds(dtype: str, threads: int, capability: None) -> None:
    """gelu's fused backward (erf and exp through the span kernels of the chosen build, in blocks:
    backend/src/cpu/act_backward.cpp) against torch, over a length that is no multiple of the block
    or of a vector, split between threads, with large arguments and the specials."""
    import torch

    x = np.concatenate([np.random.default_rng(5).normal(0, 4, 70001), [0.0, -0.0, 40.0, -40.0, np.inf, -np.inf, np.nan]])
    x, g = x.astype(dtype), np.random.default_rng(6).normal(0, 1, x.size).astype(dtype)
    tx = torch.tensor(x, requires_grad=True)
    torch.nn.functional.gelu(tx).backward(torch.tensor(g))
    assert tx.grad is not None
    want = tx.grad.numpy()
    prev = tt.get_num_threads()
    tt.set_num_threads(threads)
    try:
        for cap in ("avx2", "avx512") if HAS_WIDE else ("avx2",):
            CPU.set_cpu_capability(cap)
            ours = tt.tensor(x, requires_grad=True)
            tt.nn.functional.gelu(ours).backward(tt.tensor(g))
            assert ours.grad is not None
            tol = 2e-6 if dtype == "float32" else 1e-13
            np.testing.assert_allclose(ours.grad.numpy(), want, rtol=tol, atol=tol, err_msg=cap)
    finally:
        tt.set_num_threads(prev)


@pytest.mark.parametrize("cap", ["avx2", "avx512"])
def test_gelu_gradient_on_both_kernel_sets(cap: str, capability: None) -> None:
    """gelu's backward (act_backward.cpp: one pass of AVX-512 lanes, or the span kernels over L1
    blocks) against the float64 formula, over an odd length (a masked tail), saturated inputs and
    the specials; NaN and +-inf in give NaN out, as torch's (inf times exp(-inf))."""
    if cap == "avx512" and not HAS_WIDE:
        pytest.skip("no AVX-512 on this CPU")
    CPU.set_cpu_capability(cap)
    x = np.concatenate([np.linspace(-12, 12, 4099), [0.0, -0.0, 1e-40, -1e-40, 40.0, -40.0]]).astype(np.float32)
    g = np.random.default_rng(3).standard_normal(x.shape).astype(np.float32)
    xt = tt.tensor(x, requires_grad=True)
    tt.nn.functional.gelu(xt).backward(tt.tensor(g))
    assert xt.grad is not None
    x64 = x.astype(np.float64)
    erf = np.array([math.erf(v / np.sqrt(2.0)) for v in x64])
    want = g * (0.5 * (1.0 + erf) + x64 * np.exp(-0.5 * x64 * x64) / np.sqrt(2.0 * np.pi))
    np.testing.assert_allclose(xt.grad.numpy(), want, rtol=2e-6, atol=2e-7)
    xn = tt.tensor([np.nan, np.inf, -np.inf], requires_grad=True)
    tt.nn.functional.gelu(xn).backward(tt.ones(3))
    assert xn.grad is not None
    assert np.isnan(xn.grad.numpy()).all()
