"""Every file under cases/ is checked alone; its inline expectations (see _expect.py) must hold
exactly: each ``# E:`` reported with that code, every other line clean."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest
from typedtensor.checker.config import Config
from typedtensor.checker.runner import Options, run

HERE = Path(__file__).parent
CASES = sorted((HERE / "cases").glob("*.py"))

_spec = importlib.util.spec_from_file_location("_checker_expect", HERE / "_expect.py")
assert _spec is not None and _spec.loader is not None
_expect = importlib.util.module_from_spec(_spec)
sys.modules["_checker_expect"] = _expect
_spec.loader.exec_module(_expect)
expectations = _expect.expectations


def check(path: Path) -> list:
    return run(Options([str(path)], use_cache=False, jobs=1), Config(root=path.parent)).reports


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_case(case: Path) -> None:
    must, notes, _ = expectations(case)
    reports = check(case)
    got = Counter((r.line, r.code) for r in reports if r.severity != "note")
    messages = {(r.line, r.code): r.message for r in reports}
    problems = [f"{case.name}:{line}: missing {code}" for line, code in sorted(must - got)]
    problems += [f"{case.name}:{line}: unexpected {code} ({messages[(line, code)]})"
                 for line, code in sorted(got - must)]
    got_notes = {r.line: r.message for r in reports if r.severity == "note"}
    for line, text in notes.items():
        if text not in got_notes.get(line, ""):
            problems.append(f"{case.name}:{line}: note {text!r} not in {got_notes.get(line)!r}")
    problems += [f"{case.name}:{line}: unexpected note ({msg})" for line, msg in got_notes.items() if line not in notes]
    assert not problems, "\n".join(problems)


def test_enough_expectations() -> None:
    """The issue asks for at least 150 inline VALID/INVALID cases beyond the shared spec."""
    total = 0
    for case in CASES:
        must, notes, oks = expectations(case)
        total += sum(must.values()) + len(notes) + oks
    assert total >= 150, total
