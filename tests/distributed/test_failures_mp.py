"""A failing rank ends the whole job with a clear error, never a hang."""

from __future__ import annotations

import pytest

from .helpers import mpirun


@pytest.mark.multiprocess
def test_a_rank_that_raises_ends_the_job() -> None:
    # the default group timeout is 30 minutes: ending within the run's limit means the raise ended
    # the job, not the watchdog (a hang would be subprocess.TimeoutExpired)
    proc = mpirun(2, "rank_raises.py", timeout=180)
    assert proc.returncode != 0
    assert "rank 1 failed on purpose" in proc.stderr
    assert "rank 1 raised ValueError; aborting the job" in proc.stderr
    assert "unreachable" not in proc.stdout


@pytest.mark.multiprocess
def test_what_a_failing_rank_wrote_reaches_the_output() -> None:
    """MPI_Abort kills the job at once: the abort waits until the launcher has read the rank's
    stderr pipe, so a long traceback arrives whole (before, a loaded machine lost all of it but
    its first line)."""
    proc = mpirun(2, "rank_raises.py", timeout=180, TT_TEST_LINES="3000")
    assert proc.returncode != 0
    assert "detail line 2999 of the failure\nthe end of the message" in proc.stderr, proc.stderr[-2000:]
    assert "rank 1 raised ValueError; aborting the job" in proc.stderr


@pytest.mark.multiprocess
def test_a_rank_that_leaves_makes_the_others_time_out() -> None:
    proc = mpirun(2, "rank_leaves.py", timeout=180, TT_TEST_TIMEOUT="1.5")
    assert proc.returncode != 0
    assert "rank 0: all_reduce timed out" in proc.stderr, proc.stderr
    assert "unreachable" not in proc.stdout
