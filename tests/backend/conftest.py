import os
from collections.abc import Iterator

import pytest

import typedtensor._runtime as tt

os.environ.setdefault("OMP_NUM_THREADS", "2")


@pytest.fixture(autouse=True)
def _seed() -> None:
    tt.manual_seed(0)


@pytest.fixture(params=tt.backends.cpu.blas_available())
def blas(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each BLAS this machine has, chosen for the test and the default restored after it (the
    bfloat16 paths differ by BLAS: NOTE [ bfloat16 GEMM ] in backend/src/cpu/gemm.cpp)."""
    start = tt.backends.cpu.get_blas()
    tt.backends.cpu.set_blas(request.param)
    try:
        yield str(request.param)
    finally:
        tt.backends.cpu.set_blas(start)
