"""The normal draws' values (NOTE [ Parallel normal draws ] and NOTE [ torch's CPU streams ] in
backend/src/cpu/random.cpp): the uniforms are drawn serially and each block of 16 is turned into
normals on its own, so the values are torch's for a seed -- the same serially, over any number of
threads, and split over any number of calls."""

from __future__ import annotations

import numpy as np
import pytest

import typedtensor._runtime as tt

torch = pytest.importorskip("torch")


def reference(seed: int, *sizes: int, dtype: str = "float32") -> list[np.ndarray]:
    """torch's draws for the same seed and the same calls."""
    torch.manual_seed(seed)
    return [torch.randn(n, dtype=getattr(torch, dtype)).numpy() for n in sizes]


@pytest.fixture
def threads() -> object:
    before = tt.get_num_threads()
    yield
    tt.set_num_threads(before)


@pytest.mark.parametrize("n", [1, 2, 7, 16, 17, 513, 5001])
def test_draws_equal_torchs(n: int) -> None:
    tt.manual_seed(11)
    np.testing.assert_array_equal(tt.randn(n).numpy(), reference(11, n)[0])
    tt.manual_seed(11)
    np.testing.assert_array_equal(tt.randn(n, dtype=tt.float64).numpy(), reference(11, n, dtype="float64")[0])


def test_consecutive_calls_go_on_like_torchs() -> None:
    tt.manual_seed(3)
    got = [tt.randn(n).numpy() for n in (5, 6, 20, 3)]
    for a, b in zip(got, reference(3, 5, 6, 20, 3), strict=True):
        np.testing.assert_array_equal(a, b)


def test_mean_and_std_scale_the_same_draws() -> None:
    tt.manual_seed(9)
    got = tt.empty(101).normal_(2.0, 0.5).numpy()
    torch.manual_seed(9)
    np.testing.assert_array_equal(got, torch.empty(101).normal_(2.0, 0.5).numpy())


def test_values_do_not_depend_on_the_thread_count(threads: object) -> None:
    n = 300_001  # many blocks, so that two threads share the work
    runs = []
    for count in (1, 2):
        tt.set_num_threads(count)
        tt.manual_seed(21)
        a = tt.randn(n).numpy()
        runs.append((a, tt.randn(3).numpy()))  # and the stream continues from the same place
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    np.testing.assert_array_equal(runs[0][0], reference(21, n)[0])


def test_a_generator_object_draws_the_same_stream_as_the_global_one_for_a_seed() -> None:
    g = tt.Generator()
    g.manual_seed(4)
    np.testing.assert_array_equal(tt.randn(9, generator=g).numpy(), reference(4, 9)[0])


def test_many_draws_are_standard_normal() -> None:
    tt.manual_seed(0)
    z = tt.randn(400_000, dtype=tt.float64).numpy()
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1.0) < 0.01
    # tails: P(|z| > 3) = 0.0027
    assert abs(np.mean(np.abs(z) > 3.0) - 0.0027) < 0.0006
