"""``python -m typedtensor.distributed.run``: torchrun's variables on every rank, the script's own
arguments passed through, and a failing rank's exit status."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from .helpers import PROGRAMS, mpirun, per_rank, run


def launch(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "typedtensor.distributed.run", *args], timeout=timeout)


@pytest.mark.multiprocess
def test_launcher_sets_torchruns_environment() -> None:
    proc = launch("--standalone", "--nproc-per-node", "2", "--master-port", "29611", str(PROGRAMS / "env.py"), "--lr", "3")
    ranks = per_rank(proc, 2)
    assert "RuntimeWarning" not in proc.stderr, proc.stderr  # runpy's, for a rank module the package imported
    assert [r["backend"] for r in ranks] == ["mpi", "mpi"]
    ids = {r["env"]["TORCHELASTIC_RUN_ID"] for r in ranks}
    assert len(ids) == 1
    for r in ranks:
        assert r["world"] == 2 and r["argv"] == ["--lr", "3"] and r["elastic"]
        env = r["env"]
        assert env["RANK"] == env["LOCAL_RANK"] == str(r["rank"])
        assert env["WORLD_SIZE"] == env["LOCAL_WORLD_SIZE"] == "2"
        assert env["MASTER_PORT"] == "29611" and env["MASTER_ADDR"] == "127.0.0.1"


@pytest.mark.multiprocess
def test_launcher_accepts_torchs_gloo_name_and_underscored_flags() -> None:
    proc = run([sys.executable, "-m", "typedtensor.distributed.run", "--nproc_per_node=2", str(PROGRAMS / "env.py")],
               TT_TEST_BACKEND="gloo")
    ranks = per_rank(proc, 2)
    assert [r["world"] for r in ranks] == [2, 2]
    assert [r["backend"] for r in ranks] == ["gloo", "gloo"]  # get_backend() answers the name asked for


@pytest.mark.multiprocess
def test_launcher_exits_non_zero_when_a_rank_fails() -> None:
    proc = launch("--nproc-per-node", "2", str(PROGRAMS / "rank_raises.py"), timeout=180)
    assert proc.returncode != 0
    assert "rank 1 failed on purpose" in proc.stderr


def test_launcher_refuses_several_nodes() -> None:
    proc = launch("--nnodes", "2", "--nproc-per-node", "2", str(PROGRAMS / "env.py"))
    assert proc.returncode != 0 and "only --nnodes 1" in proc.stderr


@pytest.mark.multiprocess
def test_plain_mpirun_sets_torchruns_variables_before_init() -> None:
    """torch's example programs read RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR and
    MASTER_PORT before init_process_group; under plain mpirun, importing typedtensor.distributed set them."""
    ranks = per_rank(mpirun(2, "env.py"), 2)
    for i, r in enumerate(ranks):
        assert r["before"] == r["env"], r
        assert r["before"]["RANK"] == r["before"]["LOCAL_RANK"] == str(i)
        assert r["before"]["WORLD_SIZE"] == r["before"]["LOCAL_WORLD_SIZE"] == "2"
        assert r["before"]["MASTER_ADDR"] == "127.0.0.1" and r["before"]["MASTER_PORT"] == "29500"
        assert not r["elastic"] and r["before"]["TORCHELASTIC_RUN_ID"] is None


@pytest.mark.multiprocess
def test_launcher_runs_modules_and_programs() -> None:
    proc = launch("--nproc-per-node", "2", "--no-python", "sh", "-c", "echo rank=$RANK of $WORLD_SIZE")
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split("\n")[:2]) == ["rank=0 of 2", "rank=1 of 2"]
    proc = launch("--nproc-per-node", "2", "-m", "platform")
    # the two ranks share one pipe and write their text and its newline separately, so their lines
    # may interleave ("AA\n\n"): count each rank's text, not lines
    assert proc.returncode == 0 and proc.stdout.count(platform.platform()) == 2, (proc.stdout, proc.stderr)


@pytest.mark.multiprocess
def test_a_rank_exiting_with_an_error_status_ends_the_job() -> None:
    proc = launch("--nproc-per-node", "2", str(PROGRAMS / "rank_exits.py"), timeout=180)
    assert proc.returncode != 0
    assert "rank 1 exited with status 2; aborting the job" in proc.stderr, proc.stderr
    assert "unreachable" not in proc.stdout
