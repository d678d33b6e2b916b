"""The checker on the real-bug corpus (README.md): every bug reported on its marked line with its
code, nothing else reported anywhere (bug files, fixed twins, clean models); and, under real torch,
every bug fails and everything else runs (``torch_oracle.py``, slow)."""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from typedtensor.checker.config import Config
from typedtensor.checker.report import Report
from typedtensor.checker.runner import Options, run

HERE = Path(__file__).resolve().parent
EXPECT = re.compile(r"#\s*E:\s*([a-z0-9 -]+?)\s*$")
BUGS = sorted((HERE / "bugs").glob("*.py"))
CLEAN = sorted((HERE / "fixed").glob("*.py")) + sorted((HERE / "models").glob("*.py"))
#: Bugs the checker cannot see yet, and why. A strict xfail: when one is caught, move it out.
MISSES = {
    "b10_unet_odd_size_transposed_conv": (
        "nn.ConvTranspose2d has its rule, but the encoder's shapes are lost in the nn.Sequential that a helper "
        "function (double_conv) returns"
    ),
}


@cache
def reports() -> dict[Path, list[Report]]:
    result = run(Options([str(p) for p in (*BUGS, *CLEAN)], use_cache=False, jobs=1), Config(root=HERE))
    out: dict[Path, list[Report]] = {}
    for r in result.reports:
        if r.severity != "note":
            out.setdefault(Path(r.path).resolve(), []).append(r)
    return out


def marks(path: Path) -> set[tuple[int, str]]:
    out = set()
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        m = EXPECT.search(text)
        if m:
            out.update((number, code) for code in m.group(1).split())
    return out


def test_corpus_is_complete() -> None:
    assert len(BUGS) >= 30
    assert [p.name for p in BUGS] == [p.name for p in sorted((HERE / "fixed").glob("*.py"))]
    assert len(list((HERE / "models").glob("*.py"))) >= 10
    for path in BUGS:
        assert marks(path), f"{path.name} marks no line"
        assert "Source: http" in path.read_text(), f"{path.name} cites no public report"


@pytest.mark.parametrize("bug", [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=MISSES[p.stem]))
                                 if p.stem in MISSES else p for p in BUGS], ids=[p.stem for p in BUGS])
def test_bug_is_reported_on_its_line(bug: Path) -> None:
    got = {(r.line, r.code) for r in reports().get(bug, [])}
    expected = marks(bug)
    assert expected <= got, f"missing {sorted(expected - got)}; got {sorted(got)}"
    assert got <= expected, f"reported off the marked lines: {sorted(got - expected)}"


@pytest.mark.parametrize("clean", CLEAN, ids=[f"{p.parent.name}/{p.stem}" for p in CLEAN])
def test_no_report_on_correct_code(clean: Path) -> None:
    got = [f"{r.line}: {r.code} {r.message}" for r in reports().get(clean, [])]
    assert not got, "\n".join(got)


@pytest.mark.slow
def test_bugs_fail_and_the_rest_runs_under_torch() -> None:
    pytest.importorskip("torch")
    proc = subprocess.run([sys.executable, str(HERE / "torch_oracle.py")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
