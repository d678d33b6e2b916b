"""The plugin's own code passes `mypy --strict` (with mypy's proper_plugin, which catches a
missing `get_proper_type`) and ruff."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_plugin_passes_mypy_strict(tmp_path: Path) -> None:
    # Check the sources as `typedtensor.mypy_plugin` (relative imports need the package name).
    pkg = tmp_path / "typedtensor"
    pkg.mkdir()
    (pkg / "mypy_plugin").symlink_to(ROOT / "mypy_plugin")
    ini = tmp_path / "mypy.ini"
    ini.write_text(
        "[mypy]\nstrict = True\nplugins = mypy.plugins.proper_plugin\n"
        # the calculus is checked on its own (tests/shapes); here only the plugin's code counts
        "[mypy-typedtensor.shapes.*]\nfollow_imports = silent\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ini), "--cache-dir",
         str(tmp_path / "cache"), "-p", "typedtensor.mypy_plugin"],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "MYPYPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_plugin_passes_ruff() -> None:
    proc = subprocess.run(["ruff", "check", str(ROOT / "mypy_plugin")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
