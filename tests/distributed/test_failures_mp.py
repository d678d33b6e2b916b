"""A failing rank ends the whole job with a clear error, never a hang."""

from __future__ import annotations

import time

import pytest

from .helpers import mpirun


@pytest.mark.multiprocess
def test_a_rank_that_raises_ends_the_job() -> None:
    start = time.monotonic()
    proc = mpirun(2, "rank_raises.py", timeout=60)
    assert proc.returncode != 0
    assert "rank 1 failed on purpose" in proc.stderr
    assert "rank 1 raised ValueError; aborting the job" in proc.stderr
    assert "unreachable" not in proc.stdout
    assert time.monotonic() - start < 60


@pytest.mark.multiprocess
def test_a_rank_that_leaves_makes_the_others_time_out() -> None:
    proc = mpirun(2, "rank_leaves.py", timeout=60, TT_TEST_TIMEOUT="1.5")
    assert proc.returncode != 0
    assert "rank 0: all_reduce timed out" in proc.stderr, proc.stderr
    assert "unreachable" not in proc.stdout
