"""The files generated from the op table are what ``scripts/gen_ops.py`` writes now: an op entry
changed without rerunning the generator fails here, naming the stale files."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> object:
    spec = importlib.util.spec_from_file_location("gen_ops", ROOT / "scripts" / "gen_ops.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_ops"] = module
    spec.loader.exec_module(module)
    return module


def test_generated_files_are_fresh() -> None:
    gen = _generator()
    stale = [str(p.relative_to(ROOT)) for p in gen.stale()]  # type: ignore[attr-defined]
    assert not stale, f"stale generated files (run python scripts/gen_ops.py): {stale}"


def test_each_generated_file_says_so() -> None:
    gen = _generator()
    for path in gen.OUTPUTS:  # type: ignore[attr-defined]
        assert "@generated" in path.read_text().splitlines()[0], path
