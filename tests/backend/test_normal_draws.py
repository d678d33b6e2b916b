"""The normal draws' values (NOTE [ Parallel normal draws ] in backend/src/cpu/random.cpp): the
generator is splitmix64 and each pair of outputs is Box-Muller on two consecutive draws, so the
values are fixed by the seed alone -- the same serially, over any number of threads, and split
over any number of calls. The oracle is that definition written out in Python (libm's log, sqrt,
cos and sin in double): float32 outputs equal it, float64 outputs lie within a few ulp of it (the
kernel's log and sin/cos are within 1 ulp of the correctly rounded result, as libm's are)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import typedtensor._runtime as tt

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
STATE_MIX = 0x853C49E6748FEA9B  # the position a seed starts from is seed ^ this


def mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def reference(seed: int, n: int, skip_pairs: int = 0) -> np.ndarray:
    """n standard normals after ``skip_pairs`` pairs, serially, in double."""
    pos = ((seed ^ STATE_MIX) + 2 * skip_pairs * GAMMA) & MASK
    out: list[float] = []
    while len(out) < n:
        pos = (pos + GAMMA) & MASK
        u1 = 1.0 - (mix(pos) >> 11) * 2.0**-53
        pos = (pos + GAMMA) & MASK
        u2 = (mix(pos) >> 11) * 2.0**-53
        r, th = math.sqrt(-2.0 * math.log(u1)), 6.283185307179586 * u2
        out += [r * math.cos(th), r * math.sin(th)]
    return np.array(out[:n])


@pytest.fixture
def threads() -> object:
    before = tt.get_num_threads()
    yield
    tt.set_num_threads(before)


@pytest.mark.parametrize("n", [1, 2, 7, 513, 5001])
def test_float32_draws_equal_the_serial_definition(n: int) -> None:
    tt.manual_seed(11)
    got = tt.randn(n).numpy()
    np.testing.assert_array_equal(got, reference(11, n).astype(np.float32))


def test_float64_draws_lie_within_a_few_ulp_of_the_serial_definition() -> None:
    tt.manual_seed(5)
    got = tt.randn(3001, dtype=tt.float64).numpy()
    want = reference(5, 3001)
    ulps = np.abs(got - want) / np.spacing(np.abs(want))
    assert ulps.max() <= 4, ulps.max()


def test_an_odd_count_uses_its_last_pair_whole_and_the_next_call_goes_on() -> None:
    tt.manual_seed(3)
    first, second = tt.randn(5).numpy(), tt.randn(6).numpy()
    stream = reference(3, 12).astype(np.float32)
    np.testing.assert_array_equal(first, stream[:5])
    np.testing.assert_array_equal(second, stream[6:12])  # the 6th value was drawn and dropped


def test_mean_and_std_scale_the_same_draws() -> None:
    tt.manual_seed(9)
    got = tt.empty(101).normal_(2.0, 0.5).numpy()
    np.testing.assert_allclose(got, (2.0 + 0.5 * reference(9, 101)).astype(np.float32), rtol=0, atol=1e-6)


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
    np.testing.assert_array_equal(runs[0][0][-1000:], reference(21, n).astype(np.float32)[-1000:])


def test_a_generator_object_draws_the_same_stream_as_the_global_one_for_a_seed() -> None:
    g = tt.Generator()
    g.manual_seed(4)
    np.testing.assert_array_equal(tt.randn(9, generator=g).numpy(), reference(4, 9).astype(np.float32))


def test_many_draws_are_standard_normal() -> None:
    tt.manual_seed(0)
    z = tt.randn(400_000, dtype=tt.float64).numpy()
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1.0) < 0.01
    # tails: P(|z| > 3) = 0.0027
    assert abs(np.mean(np.abs(z) > 3.0) - 0.0027) < 0.0006
