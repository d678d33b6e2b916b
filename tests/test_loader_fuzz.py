"""The loaders of untrusted files cannot be driven out of bounds: tests/fuzz_loaders.py mutates valid
files and loads them, in a child process (a crash is a signal, not a dead test run). Short by
default; ``TT_FUZZ_ITERATIONS=20000 TT_FUZZ_SEEDS=1,2,3`` for a long run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DEFAULTS = {"load": 400, "jit": 200, "run": 60}
SEEDS = [int(s) for s in os.environ.get("TT_FUZZ_SEEDS", "2026").split(",")]


def runner_exe() -> str | None:
    exe = shutil.which("typedtensor-run") or shutil.which("typedtensor-run", path=sysconfig.get_path("scripts"))
    if exe:
        return exe
    here = HERE.parent / "build" / "editable" / "typedtensor-run"
    return str(here) if here.exists() else None


def fuzz(loader: str, seed: int, *extra: str) -> dict[str, object]:
    n = int(os.environ.get("TT_FUZZ_ITERATIONS", "0")) or DEFAULTS[loader]
    r = subprocess.run([sys.executable, str(HERE / "fuzz_loaders.py"), loader, "--seed", str(seed),
                        "--iterations", str(n), *extra], capture_output=True, text=True, timeout=max(600, n), check=False)
    assert r.returncode == 0, f"{loader} fuzz (seed {seed}) exited {r.returncode} (< 0: killed by that signal)\n" \
                              f"{r.stdout[-2000:]}\n{r.stderr[-6000:]}"
    summary: dict[str, object] = json.loads(r.stdout.splitlines()[-1])
    print(summary)
    outcomes = summary["outcomes"]
    assert isinstance(outcomes, dict) and sum(outcomes.values()) == n
    assert not [k for k in outcomes if k.startswith("bad")], outcomes
    return summary


@pytest.mark.parametrize("seed", SEEDS)
def test_tt_load_fuzz(seed: int) -> None:
    outcomes = fuzz("load", seed)["outcomes"]
    assert isinstance(outcomes, dict) and outcomes.get("ValueError", 0) > 0 and outcomes.get("loaded", 0) > 0


@pytest.mark.parametrize("seed", SEEDS)
def test_jit_load_and_run_fuzz(seed: int) -> None:
    outcomes = fuzz("jit", seed)["outcomes"]
    assert isinstance(outcomes, dict) and outcomes.get("ran", 0) > 0


@pytest.mark.parametrize("seed", SEEDS)
def test_typedtensor_run_npz_fuzz(seed: int) -> None:
    exe = runner_exe()
    if exe is None:
        pytest.skip("typedtensor-run is not built")
    outcomes = fuzz("run", seed, "--exe", exe)["outcomes"]
    assert isinstance(outcomes, dict) and outcomes.get("refused", 0) > 0
