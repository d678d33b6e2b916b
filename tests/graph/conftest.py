import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import typedtensor._runtime as rt

os.environ.setdefault("OMP_NUM_THREADS", "2")


@pytest.fixture(autouse=True)
def _seed() -> None:
    rt.manual_seed(0)


@pytest.fixture(scope="session", autouse=True)
def _kernel_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Generated kernels go to a per-session cache, not the user's ~/.cache."""
    d = tmp_path_factory.mktemp("kernels")
    old = os.environ.get("TYPEDTENSOR_KERNEL_CACHE")
    os.environ["TYPEDTENSOR_KERNEL_CACHE"] = str(d)
    rt._C._graph_reset_compiler()
    yield d
    if old is None:
        os.environ.pop("TYPEDTENSOR_KERNEL_CACHE", None)
    else:
        os.environ["TYPEDTENSOR_KERNEL_CACHE"] = old
    rt._C._graph_reset_compiler()
