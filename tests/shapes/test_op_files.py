"""``scripts/op_files.py``: the issue's file count, and the files that define an op held to the
table's promise (adding an op is the table entry, a kernel per backend and little else)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The most files that may define each op (its "definition" files): the issue's target, 5 for a
# reduction, an indexing op and an op with an nn module (the table entry, the front end, a CPU and a
# CUDA kernel, and one more). An op past its limit names a file that the table should derive.
DEFINITION_LIMITS = {"softplus": 5, "logsumexp": 5, "index_select": 5}


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("op_files", ROOT / "scripts" / "op_files.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["op_files"] = module
    spec.loader.exec_module(module)
    return module


def _git_grep(op: str) -> set[str]:
    """The issue's command written with git grep: tracked files naming the op, less the excluded ones."""
    done = subprocess.run(
        ["git", "grep", "-l", "-F", op, "--", ".", ":!tests", ":!docs", ":!benchmarks", ":!*.md"],
        cwd=ROOT, capture_output=True, text=True,
    )
    files = set(done.stdout.split())
    return {f for f in files if "@generated" not in "".join((ROOT / f).read_text().splitlines()[:3])}


@pytest.mark.parametrize("op", sorted(DEFINITION_LIMITS))
def test_count_is_the_issues_command(op: str) -> None:
    hits = _script().op_files(op)
    assert {h.path for h in hits} == _git_grep(op)
    assert all(h.kind in ("definition", "use") for h in hits)


@pytest.mark.parametrize("op", sorted(DEFINITION_LIMITS))
def test_definition_files_within_limit(op: str) -> None:
    hits = _script().op_files(op)
    defs = [h.path for h in hits if h.kind == "definition"]
    assert len(defs) <= DEFINITION_LIMITS[op], f"{op} is defined in {len(defs)} files: {defs}"
    assert any(p.startswith("typedtensor/shapes/rules/") for p in defs), "the table entry is a definition"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ('@op("index_select", "input:tensor, dim:int, index:tensor", expose="tt method")', "definition"),
        ('unary("index_select", "IndexSelect", fusion="...")', "definition"),
        ('  def_op(cls, m, "index_select", &tt::index_select, py::arg("dim"));', "definition"),
        ("Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index);", "definition"),
        ("static void index_select_typed(const Tensor& out) {", "definition"),
        ("__device__ __forceinline__ T index_select(T x) {", "definition"),
        ("  X(void, index_select, (const Tensor& out), \\", "definition"),
        ('  const char* name() const override { return "index_select"; }', "definition"),
        ('  if (name == "index_select") return std::make_shared<IndexSelect>(r.i("dim"));', "definition"),
        ('    "index_select": "Gather",', "definition"),
        ('    "linear", "index_select", "silu",', "definition"),
        ("    case UnaryOp::IndexSelect: run([](T x) { return vindex_select(x); });", "definition"),
        ("def _index_select(c, n, x):", "definition"),
        ("        rows = weight.index_select(0, idx)", "use"),
        ("  Tensor r = index_select(af, 0, lin);", "use"),
        ("  return index_select(af, 0, lin);", "use"),
        ("// index_select / gather accept", "use"),
        ('    raise ValueError("write it with index_select")', "use"),
        ('  int64_t d = dim_arg("index_select", a, dim);', "use"),
    ],
)
def test_classifies_lines(line: str, kind: str) -> None:
    reason = _script().definition_reason("index_select", line)
    assert (reason is not None) == (kind == "definition"), reason


def test_prints_counts() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "op_files.py"), "logsumexp"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    head = done.stdout.splitlines()[0]
    hits = _script().op_files("logsumexp")
    defs = sum(h.kind == "definition" for h in hits)
    assert head == f"logsumexp: {len(hits)} files ({defs} definition, {len(hits) - defs} use)"
