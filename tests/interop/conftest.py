import pytest

import typedtensor as tt


@pytest.fixture(autouse=True)
def _seed() -> None:
    tt.manual_seed(0)
