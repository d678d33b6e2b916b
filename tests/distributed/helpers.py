"""The multi-process tests: each starts a small program on N processes with MPI's launcher (the
``distributed`` extra's MPICH) and reads one JSON line per rank back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

PROGRAMS = Path(__file__).resolve().parent / "programs"

pytest.importorskip("mpi4py")


def mpiexec() -> str:
    from typedtensor.distributed.run import mpiexec_path

    return mpiexec_path()


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": "1", "PYTHONSAFEPATH": "1"})
    for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "TORCHELASTIC_RUN_ID"):
        env.pop(k, None)
    env.update(extra)
    return env


def run(cmd: list[str], timeout: float = 180, **extra: str) -> subprocess.CompletedProcess[str]:
    """Runs ``cmd``; the programs write their per-rank JSON into a fresh folder (TT_RESULTS_DIR), as
    the launcher may interleave the ranks' stdout within a line."""
    out = tempfile.mkdtemp(prefix="tt-dist-")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=child_env(TT_RESULTS_DIR=out, **extra),
                          cwd="/")
    if not os.listdir(out):  # nothing to read back (a run that failed on purpose): leave no folder behind
        os.rmdir(out)
    setattr(proc, "results_dir", out)  # noqa: B010
    return proc


def mpirun(n: int, program: str, *args: str, timeout: float = 180, **extra: str) -> subprocess.CompletedProcess[str]:
    return run([mpiexec(), "-n", str(n), sys.executable, str(PROGRAMS / program), *args], timeout=timeout, **extra)


def per_rank(proc: subprocess.CompletedProcess[str], n: int) -> list[dict[str, Any]]:
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    folder = Path(getattr(proc, "results_dir"))  # noqa: B009
    found = [json.loads(f.read_text()) for f in sorted(folder.glob("rank*.json"))]
    shutil.rmtree(folder, ignore_errors=True)
    assert sorted(d["rank"] for d in found) == list(range(n)), proc.stdout + proc.stderr
    return sorted(found, key=lambda d: d["rank"])
