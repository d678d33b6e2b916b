"""Random programs of typedtensor ops with literal sizes (hypothesis): the checker never crashes,
reports only DESIGN §2 codes, and gives the same answer twice."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typedtensor.checker.config import Config
from typedtensor.checker.runner import Options, run

SHAPE_CODES = {"shape-matmul", "shape-broadcast", "shape-arg", "shape-return", "shape-assign",
               "shape-reshape", "shape-axis", "shape-rank", "shape-concat"}
SIZES = st.integers(min_value=1, max_value=4)


@st.composite
def statement(draw: st.DrawFn, n: int) -> str:
    """One line that defines t{n} from earlier tensors t0..t{n-1}."""
    prev = st.integers(min_value=0, max_value=max(n - 1, 0))
    kind = draw(st.sampled_from(["create", "matmul", "add", "reshape", "sum", "cat", "index", "transpose",
                                 "unsqueeze", "linear", "softmax", "branch", "loop"] if n else ["create"]))
    a, b = f"t{draw(prev)}", f"t{draw(prev)}"
    dims = draw(st.lists(SIZES, min_size=1, max_size=4))
    axis = draw(st.integers(min_value=-4, max_value=4))
    if kind == "create":
        return f"t{n} = tt.{draw(st.sampled_from(['zeros', 'ones', 'rand', 'randn']))}({', '.join(map(str, dims))})"
    if kind == "matmul":
        return f"t{n} = {a} @ {b}"
    if kind == "add":
        return f"t{n} = {a} {draw(st.sampled_from(['+', '-', '*', '/']))} {b}"
    if kind == "reshape":
        return f"t{n} = {a}.reshape({', '.join(map(str, dims))})"
    if kind == "sum":
        return f"t{n} = {a}.sum(dim={axis}, keepdim={draw(st.booleans())})"
    if kind == "cat":
        return f"t{n} = tt.{draw(st.sampled_from(['cat', 'stack']))}([{a}, {b}], dim={axis})"
    if kind == "index":
        item = draw(st.sampled_from(["0", ":", "None", "...", "1:3", "-1"]))
        return f"t{n} = {a}[{item}, {draw(st.sampled_from(['0', ':', '...']))}]"
    if kind == "transpose":
        return f"t{n} = {a}.transpose({axis}, {draw(st.integers(min_value=-3, max_value=3))})"
    if kind == "unsqueeze":
        return f"t{n} = {a}.unsqueeze({axis})"
    if kind == "linear":
        return f"t{n} = nn.Linear({dims[0]}, {dims[-1]})({a})"
    if kind == "softmax":
        return f"t{n} = F.softmax({a}, dim={axis})"
    if kind == "branch":
        return f"if flag:\n    t{n} = {a}\nelse:\n    t{n} = {b}.T"
    return f"t{n} = {a}\nfor _ in range(2):\n    t{n} = t{n} + {b}"


@st.composite
def program(draw: st.DrawFn) -> str:
    count = draw(st.integers(min_value=1, max_value=12))
    lines = ["import typedtensor as tt", "from typedtensor import nn", "from typedtensor.nn import functional as F",
             "flag = True"]
    lines += [draw(statement(i)) for i in range(count)]
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=program())
def test_random_programs(source: str, tmp_path: Path) -> None:
    f = tmp_path / "prog.py"
    f.write_text(source)
    first = run(Options([str(f)], use_cache=False, jobs=1), Config(root=tmp_path))
    assert first.crashed == 0, source
    assert not first.rule_failures, (first.rule_failures, source)
    assert {r.code for r in first.reports} <= SHAPE_CODES, (first.reports, source)
    second = run(Options([str(f)], use_cache=False, jobs=1), Config(root=tmp_path))
    assert second.reports == first.reports
