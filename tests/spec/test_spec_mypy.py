"""The shared conformance cases (`../shared/spec` beside the repository) under the mypy plugin.

Runs mypy once over every case, with the plugin from this checkout and the stubs on MYPYPATH, and
compares with the `# E:` markers exactly as `../shared/spec/run --tool mypy` does (mypy's own
arg-type / return-value / assignment count as shape-arg / shape-return / shape-assign).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT.parent / "shared" / "spec"
sys.path.insert(0, str(ROOT / "tests" / "mypy_plugin"))
from mypy_harness import Report, run_mypy  # noqa: E402

CASES = sorted(SPEC.glob("*.py")) if SPEC.is_dir() else []
EXPECT = re.compile(r"#\s*E(\?)?:\s*([a-z0-9_ -]+?)\s*$")
EQUIVALENT = {"arg-type": "shape-arg", "return-value": "shape-return", "assignment": "shape-assign"}

pytestmark = pytest.mark.skipif(not CASES, reason="../shared/spec is not present")


@pytest.fixture(scope="module")
def reports() -> list[Report]:
    found, _ = run_mypy(CASES)
    return found


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_spec_case(case: Path, reports: list[Report]) -> None:
    must: Counter[tuple[int, str]] = Counter()
    may: set[tuple[int, str]] = set()
    for number, text in enumerate(case.read_text().splitlines(), start=1):
        m = EXPECT.search(text)
        if m:
            for code in m.group(2).split():
                (may.add((number, code)) if m.group(1) else must.update([(number, code)]))
    got = Counter(
        (r.line, EQUIVALENT.get(r.code or "misc", r.code or "misc"))
        for r in reports
        if r.path == case.resolve() and r.severity == "error"
    )
    missing = sorted(must - got)
    unexpected = sorted(k for k in (got - must) if k not in may)
    assert not missing and not unexpected, f"missing {missing}, unexpected {unexpected}"
