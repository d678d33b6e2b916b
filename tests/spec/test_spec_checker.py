"""The shared conformance cases (`../shared/spec` beside the repository) under the libcst checker.

Runs ``python -m typedtensor.checker --format json`` once over every case, as
``../shared/spec/run --tool checker`` does, and compares with the ``# E:`` markers exactly.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

SPEC = (Path(__file__).parents[2] / "../shared/spec").resolve()
CASES = sorted(SPEC.glob("*.py")) if SPEC.is_dir() else []
EXPECT = re.compile(r"#\s*E(\?)?:\s*([a-z0-9_ -]+?)\s*$")

pytestmark = pytest.mark.skipif(not CASES, reason="../shared/spec is not present")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, list[tuple[int, str, str]]]:
    # Run outside the checkout: from its root, ``-m`` would import the source tree's ``typedtensor``
    # (which has no ``checker`` subpackage; the wheel maps ``checker/`` into it) and print nothing.
    proc = subprocess.run(
        [sys.executable, "-m", "typedtensor.checker", "--no-cache", "--format", "json", *map(str, CASES)],
        capture_output=True, text=True, check=False, cwd=tmp_path_factory.mktemp("spec-run"),
    )
    assert proc.stdout.strip(), f"the checker printed nothing (rc {proc.returncode}): {proc.stderr}"
    assert proc.returncode in (0, 1), proc.stderr
    found: dict[Path, list[tuple[int, str, str]]] = {}
    for r in json.loads(proc.stdout):
        found.setdefault(Path(r["path"]).resolve(), []).append((r["line"], r["code"], r["message"]))
    return found


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_spec_case(case: Path, reports: dict[Path, list[tuple[int, str, str]]]) -> None:
    must: Counter[tuple[int, str]] = Counter()
    may: set[tuple[int, str]] = set()
    for number, text in enumerate(case.read_text().splitlines(), start=1):
        m = EXPECT.search(text)
        if m:
            for code in m.group(2).split():
                if m.group(1):
                    may.add((number, code))
                else:
                    must[(number, code)] += 1
    got = Counter((line, code) for line, code, _ in reports.get(case.resolve(), []))
    messages = {(line, code): msg for line, code, msg in reports.get(case.resolve(), [])}
    problems = [f"{case.name}:{line}: missing {code}" for line, code in sorted(must - got)]
    problems += [f"{case.name}:{line}: unexpected {code} ({messages[(line, code)]})"
                 for line, code in sorted(got - must) if (line, code) not in may]
    assert not problems, "\n".join(problems)
