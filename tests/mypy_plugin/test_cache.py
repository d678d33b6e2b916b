"""Cache correctness: incremental results equal `--no-incremental` after an edit, and the
plugin's config data changes whenever a plugin or calculus source changes."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from mypy_harness import ROOT, run_mypy

LIB_BEFORE = """\
from typedtensor import Dim, Tensor
class Batch(Dim): ...
class In(Dim): ...
class Hidden(Dim): ...
def encode(x: Tensor[Batch, In]) -> Tensor[Batch, Hidden]:
    return x @ x.T @ x @ x.new_zeros(In(3), Hidden(4))
"""
LIB_AFTER = LIB_BEFORE.replace("-> Tensor[Batch, Hidden]", "-> Tensor[Batch, In]").replace(
    "@ x.new_zeros(In(3), Hidden(4))", ""
)
MODEL = """\
from lib import Batch, Hidden, In, encode
from typedtensor import Tensor
def run(x: Tensor[Batch, In], w: Tensor[Hidden, In]) -> Tensor[Batch, In]:
    h = encode(x)
    reveal_type(h)
    return h @ w
"""


def _lines(reports: list) -> list[tuple[str, int, str, str | None]]:
    return sorted((r.path.name, r.line, r.message, r.code) for r in reports)


def test_incremental_equals_full_after_edit(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "lib.py").write_text(LIB_BEFORE)
    (src / "model.py").write_text(MODEL)
    cache = tmp_path / "cache"
    files = [src / "model.py", src / "lib.py"]
    first, _ = run_mypy(files, cache_dir=cache, cwd=src)
    (src / "lib.py").write_text(LIB_AFTER)
    warm, _ = run_mypy(files, cache_dir=cache, cwd=src)
    full, _ = run_mypy(files, extra_args=("--no-incremental",), cwd=src)
    assert _lines(warm) == _lines(full)
    assert _lines(warm) != _lines(first)  # the edit changed the verdict: the test is not vacuous
    assert not any(r.code == "shape-matmul" for r in first)
    assert any(r.code == "shape-matmul" for r in warm)


def test_config_data_follows_every_source(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "mypy_plugin"))
    from launch import register_plugin_from_source

    register_plugin_from_source()
    plugin_module = sys.modules["typedtensor.mypy_plugin.plugin"]
    copy = tmp_path / "plugin"
    shutil.copytree(ROOT / "mypy_plugin", copy)
    before = plugin_module.digest_of([copy])
    (copy / "translate.py").write_text((copy / "translate.py").read_text() + "\n# edited\n")
    assert plugin_module.digest_of([copy]) != before
    assert len(plugin_module.sources_digest()) == 64
