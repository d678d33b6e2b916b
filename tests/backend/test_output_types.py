"""The backend's output shapes against the op registry's, on random concrete shapes.

Every registry op has a torch-oracle case generator (tests/shapes/oracle_cases.py: draws shapes and
arguments, calls the registry rule, and builds the same call in torch). Here the same calls run on
typedtensor instead of torch -- the generators' ``torch`` / ``F`` / ``nn`` names stand for
typedtensor's while a case runs -- with every primitive's eval held to its ``output_types`` (the
C++ shape computation the graph verifier also uses; ``_C._check_output_types``). Then:

- where the rule gives shapes and typedtensor runs, the result has the rule's shapes;
- where the rule gives an Issue, typedtensor raises;
- typedtensor never raises a ShapeError, nor an eval disagrees with its output_types, where the rule
  accepts the call.

A case typedtensor cannot run for another reason (an argument form it does not take yet) is not a
shape fact; ``test_most_ops_run`` keeps that set small and named.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import typedtensor as tt
import typedtensor._runtime as rt
import typedtensor.nn as tnn
import typedtensor.nn.functional as tF
from typedtensor.shapes import Issue

sys.path.insert(0, str(Path(__file__).parents[1] / "shapes"))
import oracle_cases as oc

EXAMPLES = 12
NAMES = sorted(oc.CASES)
# ops whose cases typedtensor cannot run at all, by name, with the reason
NOT_RUN: dict[str, str] = {}
_ran: dict[str, int] = {}


# the case modules, each with its own `torch` / `F` / `nn` names (the others import them)
CASE_MODULES = [oc, sys.modules["oracle_cases_surface"], sys.modules["oracle_cases_linalg"],
                sys.modules["oracle_cases_small_math"]]


@contextmanager
def typedtensor_as_torch() -> Iterator[None]:
    saved = [(m.torch, m.F, m.nn) for m in CASE_MODULES]
    for m in CASE_MODULES:
        m.torch, m.F, m.nn = tt, tF, tnn
    rt._C._check_output_types(True)
    try:
        yield
    finally:
        rt._C._check_output_types(False)
        for m, names in zip(CASE_MODULES, saved, strict=True):
            m.torch, m.F, m.nn = names


def _check(c: oc.Case) -> tuple[bool, str | None]:
    """(ran, problem): whether typedtensor ran the call, and a disagreement with the rule if any."""
    rule = oc.run_rule(c)
    where = f"{c.op} args {c.pos} {c.kw}"
    with typedtensor_as_torch():
        try:
            out = c.torch_fn()
        except Exception as e:
            if isinstance(rule, Issue):
                return True, None
            if isinstance(e, tt.ShapeError) or "output_types says" in str(e):
                return True, f"{where}: the rule gave {rule} but typedtensor raised {type(e).__name__}: {e}"
            return False, None  # not a shape fact: an argument form typedtensor does not take
        got = oc.shapes_of(out)
    if isinstance(rule, Issue):
        if c.deliberate is not None:  # the registry is stricter than torch on purpose (oracle_cases.DELIBERATE)
            return True, None
        return True, f"{where}: the rule gave {rule} but typedtensor returned {got}"
    shapes = oc._rule_shapes(rule)
    if shapes is not None and (len(shapes) != len(got) or not all(oc._matches(r, g) for r, g in zip(shapes, got, strict=False))):
        return True, f"{where}: the rule gave {rule} but typedtensor returned {got}"
    return True, None


@pytest.mark.parametrize("name", NAMES)
def test_output_shapes_agree_with_the_registry(name: str) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        with typedtensor_as_torch():  # the cases' own tensors (index keys, ...) are typedtensor's too
            case = oc.draw_case(name, data.draw)
        ran, problem = _check(case)
        assert problem is None, problem
        _ran[name] = _ran.get(name, 0) + ran

    run()


def test_most_ops_run() -> None:
    for name in NAMES:
        if name not in _ran:
            test_output_shapes_agree_with_the_registry(name)
    never = sorted(n for n in NAMES if _ran.get(n, 0) == 0)
    assert never == sorted(NOT_RUN), f"ops typedtensor never ran: {never}"

