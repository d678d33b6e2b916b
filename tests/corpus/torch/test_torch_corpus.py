"""The checker on torch programs as written (README.md): jaxtyping-annotated bugs reported on their
marked lines, nothing reported on their fixed twins or the clean models; unannotated programs
(``infer_all/``) the same under ``--infer-all``; and, under real torch with jaxtyping's run-time
checks, every bug fails and everything else runs (``torch_oracle.py``, slow)."""

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
INFER_BUGS = sorted((HERE / "infer_all" / "bugs").glob("*.py"))
INFER_CLEAN = sorted((HERE / "infer_all" / "fixed").glob("*.py"))
#: Bugs the checker cannot see, and why. A strict xfail: when one is caught, move it out.
MISSES = {
    "t13_cross_entropy_column_target": "an axis name may equal a literal (classes may be 1), and the "
                                       "checker does not follow dtypes: an Int target of [batch, 1] "
                                       "is not provably wrong",
    "t23_layernorm_channels_first": "the norm's width is an int parameter and the map's axes are names "
                                    "a literal may equal: nothing is provably wrong",
}


#: The same, for the unannotated copies under ``--infer-all``.
INFER_MISSES: dict[str, str] = {}


@cache
def reports(infer_all: bool) -> dict[Path, list[Report]]:
    files = (*INFER_BUGS, *INFER_CLEAN) if infer_all else (*BUGS, *CLEAN)
    if not files:
        return {}
    result = run(Options([str(p) for p in files], use_cache=False, jobs=1, infer_all=infer_all), Config(root=HERE))
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
    assert len(BUGS) >= 20
    assert [p.name for p in BUGS] == [p.name for p in sorted((HERE / "fixed").glob("*.py"))]
    assert [p.name for p in INFER_BUGS] == [p.name for p in INFER_CLEAN]
    assert len(list((HERE / "models").glob("*.py"))) >= 4
    for path in (*BUGS, *INFER_BUGS):
        text = path.read_text()
        assert marks(path), f"{path.name} marks no line"
        assert "Source: http" in text or "Planted" in text, f"{path.name} says neither its source nor that it is planted"
        assert not re.search(r"^\s*(import|from)\s+typedtensor", text, re.M), f"{path.name} is not a plain torch program"


def _bug_params(bugs: list[Path], misses: dict[str, str]) -> list[object]:
    return [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=misses[p.stem])) if p.stem in misses
            else pytest.param(p) for p in bugs]


def _check_bug(bug: Path, infer_all: bool) -> None:
    got = {(r.line, r.code) for r in reports(infer_all).get(bug, [])}
    expected = marks(bug)
    assert expected <= got, f"missing {sorted(expected - got)}; got {sorted(got)}"
    assert got <= expected, f"reported off the marked lines: {sorted(got - expected)}"


@pytest.mark.parametrize("bug", _bug_params(BUGS, MISSES), ids=[p.stem for p in BUGS])
def test_bug_is_reported_on_its_line(bug: Path) -> None:
    _check_bug(bug, infer_all=False)


@pytest.mark.parametrize("clean", CLEAN, ids=[f"{p.parent.name}/{p.stem}" for p in CLEAN])
def test_no_report_on_correct_code(clean: Path) -> None:
    got = [f"{r.line}: {r.code} {r.message}" for r in reports(False).get(clean, [])]
    assert not got, "\n".join(got)


@pytest.mark.parametrize("bug", _bug_params(INFER_BUGS, INFER_MISSES), ids=[p.stem for p in INFER_BUGS])
def test_unannotated_bug_is_reported_under_infer_all(bug: Path) -> None:
    _check_bug(bug, infer_all=True)


@pytest.mark.parametrize("clean", INFER_CLEAN, ids=[p.stem for p in INFER_CLEAN])
def test_no_report_on_unannotated_correct_code(clean: Path) -> None:
    got = [f"{r.line}: {r.code} {r.message}" for r in reports(True).get(clean, [])]
    assert not got, "\n".join(got)


@pytest.mark.slow
def test_bugs_fail_and_the_rest_runs_under_torch() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("jaxtyping")
    pytest.importorskip("beartype")
    proc = subprocess.run([sys.executable, str(HERE / "torch_oracle.py")], capture_output=True, text=True,
                          timeout=600, cwd=HERE)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
