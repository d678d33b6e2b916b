"""``python -m typedtensor.distributed.run``: torchrun's variables on every rank, the script's own
arguments passed through, and a failing rank's exit status."""

from __future__ import annotations

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
    assert [r["world"] for r in per_rank(proc, 2)] == [2, 2]


@pytest.mark.multiprocess
def test_launcher_exits_non_zero_when_a_rank_fails() -> None:
    proc = launch("--nproc-per-node", "2", str(PROGRAMS / "rank_raises.py"), timeout=180)
    assert proc.returncode != 0
    assert "rank 1 failed on purpose" in proc.stderr


def test_launcher_refuses_several_nodes() -> None:
    proc = launch("--nnodes", "2", "--nproc-per-node", "2", str(PROGRAMS / "env.py"))
    assert proc.returncode != 0 and "only --nnodes 1" in proc.stderr


@pytest.mark.multiprocess
def test_plain_mpirun_sets_the_variables_at_init() -> None:
    ranks = per_rank(mpirun(2, "env.py"), 2)
    assert [r["env"]["RANK"] for r in ranks] == ["0", "1"]
    assert all(r["env"]["WORLD_SIZE"] == "2" and not r["elastic"] for r in ranks)


@pytest.mark.multiprocess
def test_launcher_runs_modules_and_programs() -> None:
    proc = launch("--nproc-per-node", "2", "--no-python", "sh", "-c", "echo rank=$RANK of $WORLD_SIZE")
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split("\n")[:2]) == ["rank=0 of 2", "rank=1 of 2"]
    proc = launch("--nproc-per-node", "2", "-m", "platform")
    assert proc.returncode == 0 and len(proc.stdout.strip().splitlines()) == 2, proc.stderr


@pytest.mark.multiprocess
def test_a_rank_exiting_with_an_error_status_ends_the_job() -> None:
    proc = launch("--nproc-per-node", "2", str(PROGRAMS / "rank_exits.py"), timeout=180)
    assert proc.returncode != 0
    assert "rank 1 exited with status 2; aborting the job" in proc.stderr, proc.stderr
    assert "unreachable" not in proc.stdout
