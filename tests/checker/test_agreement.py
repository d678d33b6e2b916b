"""Agreement with the mypy plugin: both tools over the shared spec and every case file of both
test suites; every disagreement of line or code is listed. Target: none.

mypy's own ``arg-type`` / ``return-value`` / ``assignment`` count as ``shape-arg`` /
``shape-return`` / ``shape-assign`` (DESIGN §2: a plugin has no hook for those checks). Only shape
codes are compared: mypy's other findings (an undefined ``reveal_shape``, say) are not shape errors.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest
from typedtensor.checker.config import Config
from typedtensor.checker.runner import Options, run

ROOT = Path(__file__).resolve().parents[2]
SPEC = (ROOT / "../shared/spec").resolve()
EQUIVALENT = {"arg-type": "shape-arg", "return-value": "shape-return", "assignment": "shape-assign"}
FILES = sorted(
    [*(SPEC.glob("*.py") if SPEC.is_dir() else []),
     *(ROOT / "tests" / "checker" / "cases").glob("*.py"),
     *(ROOT / "tests" / "mypy_plugin" / "cases").glob("*.py")]
)


def _harness():  # type: ignore[no-untyped-def]
    path = ROOT / "tests" / "mypy_plugin" / "mypy_harness.py"
    spec = importlib.util.spec_from_file_location("_mypy_harness_for_agreement", path)
    if spec is None or spec.loader is None or not path.exists():
        pytest.skip("the mypy plugin's test harness is not present")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def disagreements() -> list[str]:
    harness = _harness()
    mypy_reports = []
    for folder in sorted({f.parent for f in FILES}):  # one mypy run per folder: module names repeat
        found, _ = harness.run_mypy([f for f in FILES if f.parent == folder])
        mypy_reports.extend(found)
    theirs: Counter[tuple[str, int, str]] = Counter()
    for r in mypy_reports:
        code = EQUIVALENT.get(r.code or "", r.code or "")
        if r.severity == "error" and code.startswith("shape"):
            theirs[(str(r.path), r.line, code)] += 1
    result = run(Options([str(f) for f in FILES], use_cache=False, jobs=1), Config(root=ROOT))
    ours: Counter[tuple[str, int, str]] = Counter(
        (str(Path(r.path).resolve()), r.line, r.code) for r in result.reports if r.severity == "error"
    )
    out = [f"{_shown(p)}:{line}: checker only {code}" for p, line, code in sorted(ours - theirs)]
    out += [f"{_shown(p)}:{line}: mypy plugin only {code}" for p, line, code in sorted(theirs - ours)]
    return sorted(out)


def _shown(path: str) -> str:
    """A file's name relative to the checkout (``tests/...``) or the spec (``spec/...``), so the
    list below holds in any worktree."""
    p = Path(path)
    return f"spec/{p.name}" if p.is_relative_to(SPEC) else str(p.relative_to(ROOT))


# Every known disagreement, with its reason; the test fails on any change to this list, so a new
# disagreement is seen (and one that disappears is crossed off).
_FLOW = "mypy gives a name one type for its whole scope; the checker follows values through the flow"
_SEQ = "nn.Sequential: the checker chains its layers' calls; mypy's Sequential.__call__ has no shapes"
KNOWN: dict[str, str] = {
    "tests/checker/cases/calls.py:76: mypy plugin only shape-arg":
        "an `int` argument for a `Batch` parameter: a type error to mypy, an untracked size to the checker",
    "tests/checker/cases/flow.py:24: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/flow.py:25: mypy plugin only shape-return": _FLOW,
    "tests/checker/cases/flow.py:41: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/flow.py:42: mypy plugin only shape-return": _FLOW,
    "tests/checker/cases/flow.py:54: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/flow.py:74: checker only shape-matmul":
        "iterating over a tensor: the checker indexes dim 0, mypy's Tensor.__iter__ gives no shape",
    "tests/checker/cases/generics.py:43: mypy plugin only shape-arg":
        "tt.eye(n) with `n: N` (a TypeVar): mypy does not know N is an int",
    "tests/checker/cases/generics.py:62: checker only shape-assign":
        "mypy infers N from the declared target first, then blames the argument",
    "tests/checker/cases/generics.py:62: mypy plugin only shape-arg":
        "mypy infers N from the declared target first, then blames the argument",
    "tests/checker/cases/gradual.py:54: mypy plugin only shape-arg":
        "mypy's list invariance: `parts = [x]` is list[Tensor[Batch, In]] for mypy",
    "tests/checker/cases/suppress.py:13: mypy plugin only shape-matmul":
        "`# typedtensor: ignore` is the checker's own comment; mypy does not read it",
    "tests/checker/cases/suppress.py:14: mypy plugin only shape-matmul":
        "`# typedtensor: ignore` is the checker's own comment; mypy does not read it",
    "tests/checker/cases/unannotated.py:16: checker only shape-arg":
        "unannotated code with literal sizes: the checker tracks nn.Linear(16 * 14 * 14, 10) through the flow; mypy's types do not",
    "tests/checker/cases/unannotated.py:18: checker only shape-arg": "literal sizes, as above",
    "tests/checker/cases/unannotated.py:58: checker only shape-arg":
        "mypy does not check the body of an unannotated function",
    "tests/checker/cases/unannotated.py:84: checker only shape-broadcast":
        "the checker infers a call of an unannotated function through its body; to mypy the result is Any",
    "tests/checker/cases/modules.py:124: checker only shape-arg": _SEQ,
    "tests/checker/cases/modules.py:127: checker only shape-arg": _SEQ,
    "tests/checker/cases/modules.py:129: checker only shape-arg": _SEQ,
    "tests/checker/cases/transformer.py:39: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/transformer.py:107: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/transformer.py:78: checker only shape-arg":
        "iterating an nn.ModuleList of user modules: mypy's element type carries no constructor sizes",
}


@pytest.mark.slow
def test_agreement_with_mypy_plugin() -> None:
    found = disagreements()
    print(f"{len(found)} disagreements")
    print("\n".join(found))
    spec_disagreements = [d for d in found if d.startswith("spec/")]
    assert not spec_disagreements, "\n".join(spec_disagreements)
    new = [d for d in found if d not in KNOWN]
    gone = [d for d in KNOWN if d not in found]
    assert not new and not gone, "new:\n" + "\n".join(new) + "\ngone:\n" + "\n".join(gone)
