"""The vectorised float64 exp / exp2 / expm1 / log / log2 / log10 / log1p / tanh / erf / sin / cos /
tan / sinh / cosh / atanh / asinh / acosh / atan / asin / acos / erfc (backend/src/cpu/vmath_f64.h) against 80-bit long double references, in ulp, over dense grids of the whole double
range and its edges (subnormals, overflow / underflow thresholds, log near 1, log1p near -1, sin /
cos near multiples of pi/2 and beyond the reduced range), plus special values; and the float64
activations built on them against torch."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

import typedtensor._runtime as tt

LD = np.longdouble
pytestmark = pytest.mark.skipif(np.finfo(LD).nmant < 63, reason="needs 80-bit long double references")

Ref = Callable[[np.ndarray], np.ndarray]


def _both(x: np.ndarray) -> np.ndarray:
    return np.concatenate([x, -x])


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in units of the last place of want rounded to double (2^-1074 at the bottom)."""
    ulp = np.spacing(np.abs(want.astype(np.float64)))
    return (np.abs(got.astype(LD) - want) / ulp.astype(LD)).astype(np.float64)


def _check(name: str, x: np.ndarray, ref: Ref, max_ulp: float) -> None:
    """tt.<name> on x (contiguous) matches ref (evaluated in long double) to max_ulp, with the same
    NaN / inf pattern; the max error is reported on failure."""
    got = getattr(tt, name)(tt.tensor(x)).numpy()
    with np.errstate(all="ignore"):
        want = ref(x.astype(LD))
        wd = want.astype(np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(wd)), (name, x[np.isnan(got) != np.isnan(wd)][:5])
    inf = np.isinf(wd)
    assert np.array_equal(got[inf], wd[inf]), (name, x[inf][got[inf] != wd[inf]][:5])
    fin = np.isfinite(wd)
    err = _ulps(got[fin], want[fin])
    worst = int(err.argmax())
    assert err[worst] <= max_ulp, (name, float(err[worst]), float(x[fin][worst]), float(got[fin][worst]))


def _whole_range(n: int = 40001) -> np.ndarray:
    """Both signs, every binade from the smallest subnormal to the largest double."""
    return _both(np.geomspace(5e-324, 1.7e308, n))


def test_exp() -> None:
    x = np.concatenate([
        _both(np.geomspace(1e-300, 750, 40001)), np.linspace(-3, 3, 20001),
        np.linspace(-746, -700, 20001), np.linspace(700, 710, 20001),  # subnormal results, overflow
        [709.782712893384, 709.7827128933841, -745.1332191019411, -745.1332191019412, -708.4, -708.39],
    ])
    _check("exp", x, np.exp, 1.0)


@pytest.mark.parametrize("cap", ["default", "avx2"])
def test_exp2(cap: str) -> None:
    """Both builds: the AVX-512 copy has its own exp2 lanes (vscalefpd), the baseline vexp2."""
    cpu = tt.backends.cpu
    start = cpu.get_cpu_capability()
    x = np.concatenate([
        _both(np.geomspace(1e-300, 1080, 40001)), np.linspace(-3, 3, 20001),
        np.linspace(-1080, -1000, 20001), np.linspace(1000, 1030, 2001), np.arange(-1080.0, 1030.0),
        np.arange(-1080.0, 1030.0) + 0.5, _both(np.array([1024.25, 1024.5, 1025.0, 1e300, 2.0**52 + 1])),
    ])
    try:
        if cap != "default":
            cpu.set_cpu_capability(cap)
        _check("exp2", x, np.exp2, 1.0)
    finally:
        cpu.set_cpu_capability(start)


def test_expm1() -> None:
    x = np.concatenate([
        _both(np.geomspace(1e-310, 750, 40001)), np.linspace(-1, 1, 20001), np.linspace(-40, 40, 20001),
        np.linspace(700, 710, 2001), _both(np.geomspace(1e-300, 1e-5, 2001)),
    ])
    _check("expm1", x, np.expm1, 1.0)


def test_log() -> None:
    x = np.concatenate([
        np.abs(_whole_range()), np.linspace(0.5, 2, 20001), 1 + np.linspace(-1e-6, 1e-6, 20001),
        1 + _both(np.geomspace(1e-16, 1e-3, 2001)), [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308],
    ])
    _check("log", x, np.log, 1.0)


@pytest.mark.parametrize("name", ["log2", "log10"])
def test_log2_log10(name: str) -> None:
    """Including exact powers of the base, which come out exact."""
    x = np.concatenate([
        np.abs(_whole_range()), np.linspace(0.5, 2, 20001), 1 + np.linspace(-1e-6, 1e-6, 20001),
        np.ldexp(1.0, np.arange(-1074, 1024)), 10.0 ** np.arange(-300, 308),
    ])
    _check(name, x, getattr(np, name), 1.0)
    k = np.arange(-1074, 1024) if name == "log2" else np.arange(0, 23)
    exact = np.ldexp(1.0, k) if name == "log2" else 10.0 ** k  # 10^k exact in double up to 10^22
    np.testing.assert_array_equal(getattr(tt, name)(tt.tensor(exact)).numpy(), k.astype(np.float64))


def test_log1p() -> None:
    x = np.concatenate([
        _whole_range(), np.linspace(-1, 3, 40001), -1 + np.geomspace(1e-16, 1e-2, 4001),
        _both(np.geomspace(1e-310, 1e-5, 4001)), [-0.9999999999999999, 1.7976931348623157e308],
    ])
    _check("log1p", x, np.log1p, 1.0)


def test_tanh() -> None:
    x = np.concatenate([
        _both(np.geomspace(1e-310, 40, 40001)), np.linspace(-1, 1, 20001), np.linspace(-25, 25, 20001),
        [0.625, np.nextafter(0.625, 0), 19.0, 19.1, 20.0, 1e300],
    ])
    _check("tanh", x, np.tanh, 1.5)


def test_erf() -> None:
    """math.erf (libm, within an ulp) on a dense grid, and the correctly rounded value (mpmath) on a
    sample, where it is installed."""
    edges = np.array([0.84375, 1.25, 1 / 0.35, 6.0])
    x = np.concatenate([
        _both(np.geomspace(1e-310, 10, 20001)), np.linspace(-7, 7, 20001),
        _both(np.concatenate([np.nextafter(edges, 0), edges, np.nextafter(edges, 10)])),
    ])
    _check("erf", x, lambda v: np.array([math.erf(float(e)) for e in v], dtype=LD), 1.5)
    mpmath = pytest.importorskip("mpmath")
    s = x[::20]
    mpmath.mp.prec = 80
    _check("erf", s, lambda v: np.array([LD(str(mpmath.erf(mpmath.mpf(float(e))))) for e in v]), 1.0)


def test_erfc() -> None:
    """Against the correctly rounded value (mpmath, 80 bits) on a grid over every range of fdlibm's
    erfc, its edges and the subnormal results near 27: 3 ulp (the measured maximum is 2.7, in
    (1 - erx) - P/Q just below 1.25, where glibc's erfc itself is 4 ulp off)."""
    mpmath = pytest.importorskip("mpmath")
    edges = np.array([0.25, 0.84375, 1.25, 1 / 0.35, 6.0, 28.0])
    x = np.concatenate([
        _both(np.geomspace(1e-310, 30, 6001)), np.linspace(-7, 28, 12001), np.linspace(0.84, 1.25, 4001),
        np.linspace(26, 27.5, 1001), _both(np.concatenate([np.nextafter(edges, 0), edges, np.nextafter(edges, 30)])),
    ])
    mpmath.mp.prec = 80
    _check("erfc", x, lambda v: np.array([LD(str(mpmath.erfc(mpmath.mpf(float(e))))) for e in v]), 3.0)


def _trig_grid() -> np.ndarray:
    k = np.arange(-667000, 667001, 37, dtype=np.float64)
    pio2 = k * (np.pi / 2)  # the doubles nearest multiples of pi/2, and their neighbours
    return np.concatenate([
        _both(np.geomspace(1e-310, 2.0**20, 40001)), np.linspace(-10, 10, 20001),
        pio2, np.nextafter(pio2, np.inf), np.nextafter(pio2, -np.inf),
        _both(np.array([2.0**20 - 0.25, 2.0**20, 2.0**20 + 0.5, 2.0**30 + 1, 1e10, 1e22, 1.7e308])),
        _both(np.geomspace(2.0**20, 1e300, 2001)),  # beyond the reduced range: libm
    ])


def test_sin_cos() -> None:
    x = _trig_grid()
    _check("sin", x, np.sin, 1.0)
    _check("cos", x, np.cos, 1.0)


def test_sin_cos_strided_and_large() -> None:
    """sin / cos / tan: the strided path (reduced form, then libm where |x| >= 2^20) gives the same as contiguous."""
    x = np.array([[0.5, 1e6], [np.inf, 3e300], [np.nan, -2.0], [2.0**20, -(2.0**20 - 1)], [-0.0, 7e5]])
    for name in ("sin", "cos", "tan"):
        contig = getattr(tt, name)(tt.tensor(x)).numpy()
        strided = getattr(tt, name)(tt.tensor(np.ascontiguousarray(x.T)).T).numpy()
        np.testing.assert_array_equal(strided, contig, err_msg=name)
        with np.errstate(all="ignore"):
            want = getattr(np, name)(x.astype(LD)).astype(np.float64)
        np.testing.assert_allclose(contig, want, rtol=2.3e-16, atol=0, err_msg=name)


def test_tan() -> None:
    """The reduced tan (sin / cos of the reduced argument divided) up to 2^20, libm beyond; near
    multiples of pi/2 both the zeros and the poles."""
    _check("tan", _trig_grid(), np.tan, 2.0)


def test_sinh_cosh() -> None:
    x = np.concatenate([
        _both(np.geomspace(1e-310, 720, 40001)), np.linspace(-3, 3, 20001), np.linspace(-711, -700, 4001),
        np.linspace(700, 711, 4001), _both(np.array([1.0, np.nextafter(1.0, 0), 710.4758600739439,
                                                     710.475860073944, 709.782712893384])),
    ])
    _check("sinh", x, np.sinh, 2.0)
    _check("cosh", x, np.cosh, 2.0)


def test_atanh() -> None:
    x = np.concatenate([
        _both(np.geomspace(1e-310, 1, 40001)), np.linspace(-1, 1, 40001), 1 - np.geomspace(1e-16, 1e-2, 4001),
        _both(np.array([0.5, np.nextafter(0.5, 0), 2.0**-28, np.nextafter(2.0**-28, 0), 1.5, 1e300])),
    ])
    _check("atanh", x, np.arctanh, 2.0)


def test_atan() -> None:
    edges = np.array([0.4375, 0.6875, 1.1875, 2.4375])
    x = np.concatenate([
        _whole_range(), np.linspace(-5, 5, 40001),
        _both(np.concatenate([np.nextafter(edges, 0), edges, np.nextafter(edges, 10)])),
    ])
    _check("atan", x, np.arctan, 2.0)


@pytest.mark.parametrize("name", ["asin", "acos"])
def test_asin_acos(name: str) -> None:
    edges = np.array([0.5, 0.975, 1.0])
    x = np.concatenate([
        _both(np.geomspace(1e-310, 1, 40001)), np.linspace(-1, 1, 40001),
        _both(1 - np.geomspace(1e-16, 1e-2, 4001)), _both(np.array([1.5, 1e300])),
        _both(np.concatenate([np.nextafter(edges, 0), edges, np.nextafter(edges, 10)])),
    ])
    _check(name, x, getattr(np, "arc" + name[1:]), 2.0)


def test_asinh_acosh() -> None:
    """asinh over every binade (tiny |x| returns x, huge |x| through log(|x|) + ln 2 without
    overflow) and the edges of its three ranges; acosh from 1 (just above, where it is
    sqrt(2 (x - 1))) to the largest double, below 1 NaN."""
    edges = np.array([2.0**-28, 2.0, 2.0**28, 1e154, 1.7e308])
    x = np.concatenate([
        _whole_range(), np.linspace(-5, 5, 40001),
        _both(np.concatenate([np.nextafter(edges, 0), edges, np.nextafter(edges, np.inf)])),
    ])
    _check("asinh", x, np.arcsinh, 2.0)
    edges = np.array([1.0, 2.0, 2.0**28, 1e154, 1.7e308])
    x = np.concatenate([
        np.geomspace(1, 1.7e308, 40001), 1 + np.geomspace(1e-16, 1, 40001), np.linspace(1, 5, 40001),
        np.nextafter(edges, 0), edges, np.nextafter(edges, np.inf), np.linspace(-3, 1, 101),
    ])
    _check("acosh", x, np.arccosh, 2.0)


SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, -2.0, 5e-324, -5e-324, 1e-320])
_OLDER = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "tanh", "erf", "sin", "cos"}
_NP = {"atanh": "arctanh", "atan": "arctan", "asin": "arcsin", "acos": "arccos", "asinh": "arcsinh",
       "acosh": "arccosh"}


@pytest.mark.parametrize("name", [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "tanh", "erf", "sin", "cos",
    "tan", "sinh", "cosh", "atanh", "atan", "asin", "acos", "erfc", "asinh", "acosh",
])
def test_special_values_match_libm(name: str) -> None:
    """NaN, +-inf, +-0 (sign included), negative input to log (NaN), log(0) = -inf, log1p(-1) = -inf,
    subnormal inputs."""
    # the newer functions are a few ulp off at most, not always as libm rounds: skip +-1 and -2
    xs = SPECIALS if name in _OLDER else SPECIALS[(np.abs(SPECIALS) != 1.0) & (SPECIALS != -2.0)]
    got = getattr(tt, name)(tt.tensor(xs)).numpy()
    ref = np.vectorize(getattr(math, name)) if name in ("erf", "erfc") else getattr(np, _NP.get(name, name))
    with np.errstate(all="ignore"):
        want = ref(xs)
    np.testing.assert_array_equal(got, want)
    num = ~np.isnan(want)  # a NaN's sign is not specified
    assert np.array_equal(np.signbit(got[num]), np.signbit(want[num])), (got, want)


def test_inverse_domain_edges() -> None:
    """asin / acos / atanh / acosh at +-1 and just outside (NaN; acosh(1) = +0), as libm: exactly."""
    x = np.array([1.0, -1.0, np.nextafter(1.0, 2), -np.nextafter(1.0, 2), 2.0, -2.0])
    np.testing.assert_array_equal(tt.acosh(tt.tensor(x[[0, 1, 5]])).numpy(), [0.0, np.nan, np.nan])
    assert not np.signbit(tt.acosh(tt.tensor(x[:1])).numpy()[0])
    for name in ("asin", "acos", "atanh"):
        got = getattr(tt, name)(tt.tensor(x)).numpy()
        with np.errstate(all="ignore"):
            want = getattr(np, _NP[name])(x)
        np.testing.assert_array_equal(got, want, err_msg=name)


ACTIVATIONS = ["sigmoid", "silu", "softplus", "logsigmoid", "mish", "gelu", "gelu_tanh", "elu"]


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_float64_activations_match_torch(name: str) -> None:
    """The activations built on vexp / vexpm1 / vlog1p / vtanh / verf, float64, against torch: relative 1e-14
    (absolute 1e-15 for GELU, where 1 + erf(x / sqrt 2) cancels for x << 0 in both)."""
    torch = pytest.importorskip("torch")
    x = np.concatenate([np.linspace(-40, 40, 40001), _both(np.geomspace(1e-300, 700, 4001))])
    t = tt.tensor(x)
    tx = torch.from_numpy(x)
    tf = torch.nn.functional
    if name == "gelu_tanh":
        got, want = tt.gelu(t, approximate="tanh"), tf.gelu(tx, approximate="tanh")
    elif name == "sigmoid":
        got, want = tt.sigmoid(t), torch.sigmoid(tx)
    elif name == "elu":
        got, want = tt.elu(t, 0.7), tf.elu(tx, 0.7)
    else:
        got, want = getattr(tt, name)(t), getattr(tf, name)(tx)
    atol = 1e-15 if name.startswith("gelu") else 0.0
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14, atol=atol)
