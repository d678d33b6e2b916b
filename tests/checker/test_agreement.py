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
        (str(Path(r.path).resolve()), r.line, r.code) for r in result.reports
        if r.severity == "error" and r.code.startswith("shape")  # the lints are the checker's own
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
# disagreement is seen (and one that disappears is crossed off). Each one left is inherent to mypy
# under its default options (docs/checker.md, "Agreement with the mypy plugin").
_FLOW = (
    "mypy gives a name one type for its whole scope (its first assignment's or its annotation's); the "
    "checker follows values through the flow, so a reassignment with another shape is an error only to "
    "mypy. Not removable by a plugin (no hook on assignments). mypy's --allow-redefinition does not "
    "remove these: measured, it trades them for others (it also drops errors the checker reports, such "
    "as reassigning a parameter, transformer.py:98) and it is not mypy's default"
)
_REBIND = (
    "re-binding a name (a parameter, or a local first bound to another shape) is not an error to the "
    "checker (NOTE [ Re-binding ] in checker/infer/statements.py: a parameter's annotation describes the "
    "argument); mypy under its default options gives a name one type for its whole scope and reports the "
    "re-binding and what follows from it. The mypy side of this is the plugin's (docs/mypy-plugin.md)"
)
_AFTER_ERROR = (
    "after a reported error the re-bound name's shape is unknown; the checker stops there, but mypy does "
    "not narrow a re-bound name to an unknown-shaped tensor (it overlaps every shape the name had), so "
    "the return adds a return-value listing them (docs/mypy-plugin.md, \"Re-binding a name\")"
)
KNOWN: dict[str, str] = {
    "tests/checker/cases/flow.py:24: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/flow.py:25: mypy plugin only shape-return": _FLOW,
    "tests/checker/cases/flow.py:41: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/flow.py:42: mypy plugin only shape-return": _FLOW,
    "tests/checker/cases/flow.py:54: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/transformer.py:39: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/transformer.py:107: mypy plugin only shape-assign": _FLOW,
    "tests/checker/cases/flow.py:148: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/flow.py:149: mypy plugin only shape-return": _REBIND,
    "tests/checker/cases/rebinding.py:26: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:28: mypy plugin only shape-arg": _REBIND,
    "tests/checker/cases/rebinding.py:30: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:31: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:32: mypy plugin only shape-arg": _REBIND,
    "tests/checker/cases/rebinding.py:34: mypy plugin only shape-arg": _REBIND,
    "tests/checker/cases/rebinding.py:35: mypy plugin only shape-return": _REBIND,
    "tests/checker/cases/rebinding.py:49: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:51: mypy plugin only shape-arg": _REBIND,
    "tests/checker/cases/rebinding.py:53: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:54: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:57: mypy plugin only shape-arg": _REBIND,
    "tests/checker/cases/rebinding.py:58: mypy plugin only shape-return": _REBIND,
    "tests/checker/cases/rebinding.py:62: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:74: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:76: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:77: mypy plugin only shape-return": _REBIND,
    "tests/checker/cases/transformer.py:98: mypy plugin only shape-assign": _REBIND,
    "tests/checker/cases/rebinding.py:63: checker only shape-return":
        "mypy keeps x typed as its parameter annotation after `x = x.sum(1)` (it reports the assignment, "
        "line 62, and then the return is consistent with the declared type); the checker follows the "
        "re-bound value, a [Batch] tensor, to the return",
    "tests/mypy_plugin/cases/rebinding.py:61: mypy plugin only shape-return": _AFTER_ERROR,
    "tests/mypy_plugin/cases/rebinding.py:139: mypy plugin only shape-return": _AFTER_ERROR,
    "tests/mypy_plugin/cases/untyped_init.py:21: checker only shape-arg":
        "mypy does not check an unannotated __init__ (its default): the layers it sets are Any to the plugin, "
        "which says so with an annotation-unchecked note (docs/mypy-plugin.md)",
    "tests/checker/cases/gradual.py:54: mypy plugin only shape-arg":
        "`parts = [x]` fixes the list's type to list[Tensor[Batch, In]] for mypy (lists are invariant), so "
        "`parts.append(y)` with a [Batch, Out] tensor is mypy's own arg-type error; the checker widens a "
        "mutated list to unknown elements. No plugin hook sees list displays or can widen a variable's type, "
        "and accepting the append would leave `parts` typed [Batch, In] while it holds a [Batch, Out] "
        "tensor (false reports later); `parts: list[Tensor] = [x]` silences it",
    "tests/checker/cases/unannotated.py:58: checker only shape-arg":
        "mypy does not check the body of an unannotated function (its default; with --check-untyped-defs "
        "the plugin reports this line too)",
    "tests/checker/cases/unannotated.py:84: checker only shape-broadcast":
        "the checker infers a call of an unannotated function through its body; to mypy its result is Any "
        "(with any options)",
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
