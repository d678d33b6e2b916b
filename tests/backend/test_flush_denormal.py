"""torch.set_flush_denormal (NOTE [ Flushing subnormals ] in backend/src/cpu/threads.cpp): subnormal
inputs read as zero and subnormal results written as zero, on the calling thread and the pool's."""

from __future__ import annotations

import platform
from collections.abc import Iterator

import numpy as np
import pytest
import torch

import typedtensor as tt

X86 = platform.machine() in ("x86_64", "AMD64")
TINY = np.float32(1e-39)  # subnormal in float32 (below 1.18e-38)


@pytest.fixture
def flush_off() -> Iterator[None]:
    yield
    tt.set_flush_denormal(False)
    torch.set_flush_denormal(False)


def test_answers_whether_the_cpu_can_flush(flush_off: None) -> None:
    assert tt.set_flush_denormal(True) is X86
    assert tt.set_flush_denormal(False) is X86


@pytest.mark.skipif(not X86, reason="no MXCSR on this CPU")
@pytest.mark.parametrize("threads", [1, 2])
def test_subnormals_read_and_written_as_zero(flush_off: None, threads: int) -> None:
    prev = tt.get_num_threads()
    tt.set_num_threads(threads)
    # large enough that the elementwise kernels split it over the pool; the expectations are
    # computed before anything flushes (numpy runs on the calling thread, whose bits change too)
    xs = np.full(1 << 20, TINY, dtype=np.float32)
    small = np.full(1 << 20, 1e-30, dtype=np.float32)
    kept_in, kept_out = xs * np.float32(1.0), small * np.float32(1e-9)
    assert kept_in[0] == TINY and 0 < kept_out[0] < np.finfo(np.float32).tiny
    try:
        for flush in (False, True, False):
            tt.set_flush_denormal(flush)
            ours_in = (tt.tensor(xs) * 1.0).numpy()  # DAZ: a subnormal input reads as zero
            ours_out = (tt.tensor(small) * 1e-9).numpy()  # FTZ: a subnormal result is written as zero
            np.testing.assert_array_equal(ours_in, np.zeros_like(xs) if flush else kept_in)
            np.testing.assert_array_equal(ours_out, np.zeros_like(small) if flush else kept_out)
    finally:
        tt.set_num_threads(prev)


def test_torch_flushes_the_same_on_one_thread(flush_off: None) -> None:
    prev = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        x = np.array([TINY, 1e-30, 1.0], dtype=np.float32)
        for flush in (True, False):
            assert tt.set_flush_denormal(flush) == torch.set_flush_denormal(flush)
            np.testing.assert_array_equal((tt.tensor(x) * 1e-9).numpy(), (torch.from_numpy(x) * 1e-9).numpy())
    finally:
        torch.set_num_threads(prev)


@pytest.mark.skipif(not X86, reason="no MXCSR on this CPU")
def test_a_pool_grown_later_flushes_too(flush_off: None) -> None:
    prev = tt.get_num_threads()
    try:
        tt.set_num_threads(1)
        tt.set_flush_denormal(True)
        tt.set_num_threads(4)
        out = (tt.tensor(np.full(1 << 20, TINY, dtype=np.float32)) + 0.0).numpy()
        assert (out == 0).all()
    finally:
        tt.set_num_threads(prev)
