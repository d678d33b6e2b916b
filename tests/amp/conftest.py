import os

import pytest

import typedtensor as tt

os.environ.setdefault("OMP_NUM_THREADS", "2")


@pytest.fixture(autouse=True)
def _seed() -> None:
    tt.manual_seed(0)
