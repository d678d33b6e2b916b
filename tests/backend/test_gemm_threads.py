"""GEMMs large enough to be split into row or column blocks over threads (NOTE [ One thread pool ])
give numpy's result for every transpose combination."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor._runtime as tt


@pytest.mark.parametrize(("m", "n", "k"), [(300, 40, 200), (20, 600, 200), (257, 259, 129)])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_split_gemm_matches_numpy(m: int, n: int, k: int, ta: bool, tb: bool) -> None:
    rng = np.random.RandomState(0)
    a = rng.randn(k, m) if ta else rng.randn(m, k)
    b = rng.randn(n, k) if tb else rng.randn(k, n)
    prev = tt.get_num_threads()
    tt.set_num_threads(2)
    try:
        x, y = tt.tensor(a), tt.tensor(b)
        out = (x.t() if ta else x) @ (y.t() if tb else y)
    finally:
        tt.set_num_threads(prev)
    ref = (a.T if ta else a) @ (b.T if tb else b)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-10, atol=1e-10)


def test_batched_gemm_one_matrix_per_thread() -> None:
    rng = np.random.RandomState(1)
    a, b = rng.randn(4, 64, 128).astype(np.float32), rng.randn(4, 128, 96).astype(np.float32)
    prev = tt.get_num_threads()
    tt.set_num_threads(2)
    try:
        out = tt.tensor(a) @ tt.tensor(b)
    finally:
        tt.set_num_threads(prev)
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-4, atol=1e-4)
