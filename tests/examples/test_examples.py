"""The examples run (in their --short CI mode) and both shape checkers find them clean."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

pytest.importorskip("sklearn")


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.mark.slow  # a few seconds each: a process start, sklearn's import and a short training run
@pytest.mark.parametrize(
    ("script", "expect"),
    [
        ("mlp_digits.py", "mlp_digits: test accuracy"),
        ("cnn_digits.py", "cnn_digits: test accuracy"),
        ("char_transformer.py", "---- sample ----"),
    ],
)
def test_example_runs_in_short_mode(script: str, expect: str, tmp_path: Path) -> None:
    # Run from a scratch folder: the checkout's source `typedtensor/` must not shadow the install.
    proc = _run([sys.executable, str(EXAMPLES / script), "--short"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert expect in proc.stdout


def test_libcst_checker_finds_the_examples_clean() -> None:
    proc = _run([sys.executable, "-m", "typedtensor.checker", "--no-cache", "."], cwd=EXAMPLES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no issues found in" in proc.stdout


@pytest.mark.slow
def test_mypy_with_the_plugin_finds_the_examples_clean(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    env = dict(os.environ)
    import typedtensor

    installed_stubs = (Path(typedtensor.__file__ or "").parent / "nn" / "__init__.pyi").exists()
    if not installed_stubs:  # an editable install: take the stubs from the checkout
        env["MYPYPATH"] = str(ROOT / "stubs")
    launch = ROOT / "tests" / "mypy_plugin" / "launch.py"
    proc = _run(
        [sys.executable, str(launch), "--config-file", "mypy.ini", "--cache-dir", str(tmp_path / "cache"), "."],
        cwd=EXAMPLES, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout
