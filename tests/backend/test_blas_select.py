"""The BLAS chosen at run time (NOTE [ BLAS by CPU ] in backend/src/cpu/blas_select.cpp): the switch,
and every library the machine has giving numpy's products (float32 and float64, every transpose,
split over threads and batched)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import typedtensor as tt

CPU = tt.backends.cpu
START = CPU.get_blas()
LIBS = CPU.blas_available()


@pytest.fixture
def restore() -> Iterator[None]:
    yield
    CPU.set_blas(START)


def _is_intel() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return "GenuineIntel" in f.read()
    except OSError:
        return False


def test_names_and_default() -> None:
    assert LIBS[0] == "openblas"
    assert set(LIBS) <= {"openblas", "mkl"}
    assert START in LIBS
    if "mkl" in LIBS:  # installed: used on Intel only
        assert (START == "mkl") == _is_intel()


def test_unknown_name_is_refused(restore: None) -> None:
    with pytest.raises(ValueError, match="expected 'openblas', 'mkl' or 'auto'"):
        CPU.set_blas("atlas")
    assert CPU.get_blas() == START


def test_openblas_can_always_be_chosen(restore: None) -> None:
    CPU.set_blas("openblas")
    assert CPU.get_blas() == "openblas"
    CPU.set_blas("auto")
    assert CPU.get_blas() == START


@pytest.mark.skipif("mkl" in LIBS, reason="MKL is installed here")
def test_mkl_absent_is_an_error(restore: None) -> None:
    with pytest.raises(RuntimeError, match="MKL cannot be loaded"):
        CPU.set_blas("mkl")
    assert CPU.get_blas() == "openblas"


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("m", "n", "k", "ta", "tb"), [(7, 5, 3, False, False), (300, 40, 200, True, False),
                                                       (20, 600, 200, False, True), (129, 130, 131, True, True)])
def test_products_match_numpy(restore: None, lib: str, dtype: str, m: int, n: int, k: int, ta: bool, tb: bool) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    CPU.set_blas(lib)
    prev = tt.get_num_threads()
    tt.set_num_threads(2)
    try:
        x, y = tt.tensor(a), tt.tensor(b)
        out = ((x.t() if ta else x) @ (y.t() if tb else y)).numpy()
        batched = (tt.tensor(np.stack([a, 2 * a])).mT if ta else tt.tensor(np.stack([a, 2 * a]))) @ (y.t() if tb else y)
    finally:
        tt.set_num_threads(prev)
    ref = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b)
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol * k**0.5)
    np.testing.assert_allclose(batched.numpy()[1], 2 * ref, rtol=tol, atol=2 * tol * k**0.5)
