"""Never crash on valid Python: a deterministic sample of this interpreter's standard library is
parsed AND inferred (``infer_all``: even files that cannot hold a tensor), with zero internal errors.
The whole library is run by ``benchmarks/checker_stdlib.py``."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from typedtensor.checker.config import Config
from typedtensor.checker.runner import Options, run

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SAMPLE_EVERY = 30


def sample() -> list[str]:
    files = sorted(str(p) for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)
    return files[::SAMPLE_EVERY]


@pytest.mark.skipif(not STDLIB.is_dir(), reason="no standard library sources")
def test_stdlib_sample_never_crashes(tmp_path: Path) -> None:
    files = sample()
    assert len(files) >= 40
    result = run(Options(files, use_cache=False, jobs=2, infer_all=True), Config(root=tmp_path))
    crashes = [r for r in result.reports if r.code == "internal-error"]
    assert result.crashed == 0 and not crashes, "\n".join(f"{r.path}: {r.message}" for r in crashes)
    # The standard library has no tensors: the only reports may be syntax errors in its test data.
    assert {r.code for r in result.reports} <= {"syntax"}
    assert not result.rule_failures
