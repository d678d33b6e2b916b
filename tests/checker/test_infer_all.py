"""``--infer-all``: the cases under infer_all/ hold their inline expectations when unannotated code
is inferred from its calls, and say nothing about it without the option."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest
from typedtensor.checker.config import Config
from typedtensor.checker.runner import Options, run

HERE = Path(__file__).parent
CASES = sorted((HERE / "infer_all").glob("*.py"))

_spec = importlib.util.spec_from_file_location("_checker_expect_infer_all", HERE / "_expect.py")
assert _spec is not None and _spec.loader is not None
_expect = importlib.util.module_from_spec(_spec)
sys.modules["_checker_expect_infer_all"] = _expect
_spec.loader.exec_module(_expect)


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_infer_all(case: Path) -> None:
    must, notes, _ = _expect.expectations(case)
    reports = run(Options([str(case)], use_cache=False, jobs=1, infer_all=True), Config(root=case.parent)).reports
    got = Counter((r.line, r.code) for r in reports if r.severity != "note")
    assert got == must, f"missing {sorted(must - got)}, unexpected {sorted(got - must)}"
    got_notes = {r.line: r.message for r in reports if r.severity == "note"}
    for line, text in notes.items():
        assert text in got_notes.get(line, ""), f"line {line}: {text!r} not in {got_notes.get(line)!r}"


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_without_infer_all_unannotated_code_is_not_followed(case: Path) -> None:
    reports = run(Options([str(case)], use_cache=False, jobs=1), Config(root=case.parent)).reports
    assert not [r for r in reports if r.severity != "note"]
