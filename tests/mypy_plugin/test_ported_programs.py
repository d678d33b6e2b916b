"""mypy with the plugin over the public programs of tests/programs (unannotated torch code whose only
change is ``typedtensor`` in its imports): the plugin reports nothing there. mypy's own complaints
about such code (a ``**dict`` into a dataclass, a missing ``wandb``) are the same under torch and are
not the plugin's to judge."""

from __future__ import annotations

from pathlib import Path

import pytest
from typedtensor.mypy_plugin.errors import CODES, LINT_CODES

from tests.mypy_plugin.mypy_harness import run_mypy

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
PORTED = sorted(p.name for p in PROGRAMS.iterdir() if p.is_dir() and p.name not in ("standins", "__pycache__"))
# torchvision's models and ops, ported the same way, are a package the programs import from standins/
PACKAGES = [PROGRAMS / "standins" / "torchvision"]
OWN = {"shape", *CODES, *LINT_CODES}


@pytest.mark.slow
def test_the_plugin_reports_nothing_on_the_ported_programs(tmp_path: Path) -> None:
    assert {"mingpt", "nanogpt", "mnist"} <= set(PORTED)
    found = []
    for name in PORTED:  # one mypy run each: the programs share module names (model.py, main.py)
        reports, _ = run_mypy(sorted((PROGRAMS / name).rglob("*.py")), cache_dir=tmp_path / "cache",
                              cwd=PROGRAMS / name)
        found += [f"{r.path}:{r.line}: [{r.code}] {r.message}" for r in reports if r.code in OWN]
    for package in PACKAGES:
        reports, _ = run_mypy(sorted(package.rglob("*.py")), cache_dir=tmp_path / "cache", cwd=package.parent)
        found += [f"{r.path}:{r.line}: [{r.code}] {r.message}" for r in reports if r.code in OWN]
    assert found == []
