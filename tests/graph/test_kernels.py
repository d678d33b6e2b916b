"""Fused kernels: generated C++ equals eager on random elementwise/reduction programs; the disk
cache; the interpreter fallback when no compiler is present."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import typedtensor as tt
from tests.graph.helpers import close, randn
from typedtensor import _C

UNARY = {
    "exp": lambda a: (a * 0.3).exp(),
    "tanh": lambda a: a.tanh(),
    "sigmoid": lambda a: a.sigmoid(),
    "relu": lambda a: a.relu(),
    "neg": lambda a: a.neg(),
    "abs": lambda a: a.abs(),
    "square": lambda a: a.square(),
    "sqrt_abs": lambda a: (a.abs() + 0.1).sqrt(),
    "log_abs": lambda a: (a.abs() + 0.5).log(),
    "silu": lambda a: tt.silu(a),
    "clamp": lambda a: a.clamp(-0.5, 0.7),
    "leaky": lambda a: tt.leaky_relu(a, 0.1),
    "elu": lambda a: tt.elu(a, 0.7),
    "where_gt": lambda a: tt.where(a > 0.2, a, a * -0.5),
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b.abs() + 0.5),
    "max": lambda a, b: tt.maximum(a, b),
    "min": lambda a, b: tt.minimum(a, b),
    "where_lt": lambda a, b: tt.where(a < b, a - b, b * 2.0),
}
REDUCE = {
    "none": lambda a: a,
    "sum": lambda a: a.sum(),
    "mean_last": lambda a: a.mean(-1),
    "amax0": lambda a: a.amax(0),
}


@st.composite
def programs(draw: Any) -> tuple[list[tuple[str, int, int]], str, tuple[int, int], list[tuple[int, ...]], str]:
    rows = draw(st.integers(1, 9))
    cols = draw(st.integers(1, 33))
    n_in = draw(st.integers(1, 3))
    shapes = [draw(st.sampled_from([(rows, cols), (cols,), (rows, 1), (1, cols)])) for _ in range(n_in)]
    shapes[0] = (rows, cols)
    steps = []
    for _ in range(draw(st.integers(1, 7))):
        if draw(st.booleans()):
            steps.append((draw(st.sampled_from(sorted(UNARY))), draw(st.integers(0, 99)), -1))
        else:
            steps.append((draw(st.sampled_from(sorted(BINARY))), draw(st.integers(0, 99)), draw(st.integers(0, 99))))
    return steps, draw(st.sampled_from(sorted(REDUCE))), (rows, cols), shapes, draw(st.sampled_from(["float32", "float64"]))


def _program(steps: list[tuple[str, int, int]], reduce: str) -> Any:
    def f(*xs: Any) -> Any:
        vals = list(xs)
        for name, i, j in steps:
            a = vals[i % len(vals)]
            vals.append(UNARY[name](a) if j < 0 else BINARY[name](a, vals[j % len(vals)]))
        out = vals[-1]
        for v in vals[len(xs):]:
            if tuple(v.shape) == tuple(xs[0].shape):
                out = out + v * 0.25  # keep intermediates alive so kernels get several outputs
                break
        return REDUCE[reduce](out)

    return f


def _check_program(prog: Any) -> None:
    steps, reduce, _, shapes, dtype = prog
    xs = [tt.randn(*s).to(getattr(tt, dtype)) for s in shapes]
    f = _program(steps, reduce)
    want = f(*xs)
    got = tt.compile(f)(*xs)
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)


# every example compiles fresh kernels (shapes are baked into the source): few in the quick run
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_elementwise_programs_match_eager(prog: Any) -> None:
    _check_program(prog)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_many_random_elementwise_programs_match_eager(prog: Any) -> None:
    _check_program(prog)


def test_kernels_are_compiled_and_cached_on_disk(_kernel_cache: Path) -> None:
    if not _C._graph_compiler_status()["available"]:
        pytest.skip("no C++ compiler on this machine")

    def f(x: Any) -> Any:
        return (x * 1.7 - 0.2).tanh().relu()

    cf = tt.compile(f)
    x = randn(1000)
    close(cf(x), f(x))
    kernels = cf.graph_for(x).kernels()
    assert kernels and kernels[0][0] == "compiled"
    assert "extern \"C\" void tt_kernel" in kernels[0][1]
    assert list(_kernel_cache.glob("tt_*.so"))
    before = _C._graph_compiler_status()
    close(tt.compile(f)(x), f(x))  # same source: from the cache, not compiled again
    after = _C._graph_compiler_status()
    assert after["compiled"] == before["compiled"]
    assert after["cache_hits"] > before["cache_hits"]


@pytest.fixture
def no_compiler() -> Iterator[None]:
    old = os.environ.get("TYPEDTENSOR_CXX")
    os.environ["TYPEDTENSOR_CXX"] = "/nonexistent/bin/c++"
    _C._graph_reset_compiler()
    yield
    if old is None:
        del os.environ["TYPEDTENSOR_CXX"]
    else:
        os.environ["TYPEDTENSOR_CXX"] = old
    _C._graph_reset_compiler()


def test_interpreter_fallback_without_a_compiler(no_compiler: None) -> None:
    def f(x: Any, b: Any) -> Any:
        return ((x + b) * 0.5).sigmoid() - 0.25

    status = _C._graph_compiler_status()
    assert not status["available"] and "not found" in status["last_error"]
    cf = tt.compile(f)
    x, b = randn(6, 4), randn(4)
    close(cf(x, b), f(x, b))
    assert cf.graph_for(x, b).kernels()[0][0] == "interpreted"
    assert _C._graph_compiler_status()["interpreted"] >= 1


def test_broadcast_inputs_in_kernels() -> None:
    a, col, row, s = randn(7, 5), randn(7, 1), randn(5), tt.tensor(2.5)
    f = lambda a, c, r, s: ((a * c + r) * s).tanh() - c
    close(tt.compile(f)(a, col, row, s), f(a, col, row, s))
    b3, b1 = randn(2, 3, 4), randn(3, 1)
    g = lambda x, y: (x - y).exp() * y
    close(tt.compile(g)(b3, b1), g(b3, b1))


def test_nan_and_inf_propagate_like_eager() -> None:
    x = tt.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1.0, 100.0, -100.0])
    f = lambda a: tt.maximum((a.tanh() + a.sigmoid()).relu(), a * 0.0 - 1.0).exp()
    np.testing.assert_allclose(tt.compile(f)(x).numpy(), f(x).numpy(), rtol=1e-6, equal_nan=True)


def _wide_float32_inputs() -> Any:
    """Every regime of the fused math: tiny and subnormal magnitudes, the polynomial ranges, the
    clamps and saturation points, overflow of exp, the largest floats, +-0, +-inf and NaN."""
    mags = np.concatenate(
        [np.logspace(-44, 2.2, 1500), np.linspace(0.0, 12.0, 2401), [4e-4, 7.9053, 9.0, 88.7, 89.0, 104.0, 3.4e38]]
    )
    special = [0.0, -0.0, float("inf"), -float("inf"), float("nan")]
    return np.concatenate([mags, -mags, special]).astype(np.float32)


FUSED_MATH = {
    "tanh": lambda a: a.tanh(),
    "exp": lambda a: a.exp(),
    "sigmoid": lambda a: a.sigmoid(),
    "erf": lambda a: tt.erf(a),
    "gelu": lambda a: tt.gelu(a),
    "log": lambda a: a.log(),
}


@pytest.mark.parametrize("name", list(FUSED_MATH))
def test_fused_vector_math_matches_eager_over_the_float_range(name: str) -> None:
    """The generated kernels' branch-free tanh/exp/sigmoid/erf/gelu/log (vectorisable, unlike libm)
    agree with eager mode to a few ulp everywhere, and propagate NaN and infinities like it."""
    fn = FUSED_MATH[name]
    f = lambda a: fn(a).neg()  # a second node: a lone elementwise op is not fused
    x = tt.from_numpy(_wide_float32_inputs())
    cf = tt.compile(f)
    got, want = cf(x).numpy(), f(x).numpy()
    if _C._graph_compiler_status()["available"]:
        assert cf.graph_for(x).kernels()[0][0] == "compiled"
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True)
    # relative accuracy also where the values are tiny (atol above would hide it); gelu's
    # 1 + erf(x / sqrt 2) cancels for x << 0, where only the absolute bound is meaningful
    keep = np.isfinite(want) & (np.abs(want) > 0) & (np.isfinite(x.numpy()))
    if name == "gelu":
        keep &= x.numpy() > -1.0
    np.testing.assert_allclose(got[keep], want[keep], rtol=1e-6, atol=0.0)


def test_chain_kernel_main_loop_has_no_libm_calls() -> None:
    """The benchmark chain's kernel uses only the inline branch-free functions (libm's scalar
    tanh would stop the loop from vectorising)."""
    f = lambda x, w, b: (tt.tanh(x * w + b) * 0.5 + 1.0).relu()
    x, w, b = randn(8, 16), randn(16), randn(16)
    src = tt.compile(f).graph_for(x, w, b).kernels()[0][1]
    loop = src[src.index("#pragma omp simd") :]
    assert "tt_tanh(" in loop and "std::" not in loop
