"""No rule reports an Issue for a call torch accepts (NOTE [ Provable facts ]).

Every case of the torch oracle (``oracle_cases``) that torch runs is replayed symbolically: each
size of 2 or more becomes a named dim, the same size the same dim everywhere (tensor shapes,
constructor sizes, size arguments), so the symbolic call is consistent with sizes torch accepts.
For the ops that convert a tensor (``reshape``, ``expand``, slicing...) a second pass names only
the tensors' sizes and keeps every static argument literal (the ``x.reshape(32, 784)`` on ``x:
Tensor[Batch, In]`` shape of code); elsewhere a literal against a named size is a type error by
design (``nn.Linear(784, 10)`` on ``[Batch, In]``, DESIGN §1). Either way a rule may say less
(unknown) but never report an Issue. Sizes 0 and 1 stay literal: ``Literal[1]`` broadcasts and a
named dim does not (DESIGN §1), so naming them changes what the call means.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
import oracle_cases as oc  # noqa: E402

from typedtensor.shapes import Issue, Shape, SliceIndex, TensorIndex, named_dim  # noqa: E402
from typedtensor.shapes.dims import DimExpr, d_mul  # noqa: E402

EXAMPLES = 20
ALL_NAMES = sorted(oc.CASES) + sorted(oc.MODULE_CASES)


def _dim(v: DimExpr, names: dict[int, DimExpr]) -> DimExpr:
    if isinstance(v, int) and not isinstance(v, bool) and v in names:
        return names[v]
    return v


def _shape(s: Shape, names: dict[int, DimExpr]) -> Shape:
    return Shape(tuple(_dim(d, names) for d in s.prefix), s.star, tuple(_dim(d, names) for d in s.suffix))


def symbolize(x: Any, names: dict[int, DimExpr], statics: bool) -> Any:
    """``x`` with its sizes named; static ints too when ``statics``."""
    if isinstance(x, Shape):
        return _shape(x, names)
    if isinstance(x, TensorIndex):
        return TensorIndex(_shape(x.shape, names), x.is_bool)
    if isinstance(x, (list, tuple)):
        out = [symbolize(i, names, statics) for i in x]
        return out if isinstance(x, list) else tuple(out)
    if isinstance(x, dict):
        return {k: symbolize(v, names, statics) for k, v in x.items()}
    if statics and isinstance(x, SliceIndex):
        return SliceIndex(*(symbolize(b, names, statics) for b in (x.start, x.stop, x.step)))
    if statics and isinstance(x, int) and not isinstance(x, bool):
        return _dim(x, names)
    return x


def _prime_factors(v: int) -> list[int]:
    out, p = [], 2
    while p * p <= v:
        while v % p == 0:
            out.append(p)
            v //= p
        p += 1
    return out + ([v] if v > 1 else [])


def _names(size_values: set[int]) -> dict[int, DimExpr]:
    """Each size as a product of one named dim per prime factor (6 is ``P2*P3``), so that every
    product relation between the sizes (``reshape`` of ``[2, 3]`` to ``[6]``) also holds between
    the named dims."""
    out: dict[int, DimExpr] = {}
    for v in size_values:
        if v >= 2:
            d: DimExpr = 1
            for p in _prime_factors(v):
                d = d_mul(d, named_dim(f"m.P{p}", f"P{p}"))
            out[v] = d
    return out


def _sizes_in(x: Any, out: set[int]) -> None:
    if isinstance(x, Shape):
        out.update(d for d in (*x.prefix, *x.suffix) if isinstance(d, int))
    elif isinstance(x, TensorIndex):
        _sizes_in(x.shape, out)
    elif isinstance(x, (list, tuple)):
        for i in x:
            _sizes_in(i, out)
    elif isinstance(x, dict):
        for i in x.values():
            _sizes_in(i, out)


def replay(c: oc.Case, statics: bool) -> oc.Case:
    sizes: set[int] = set()
    _sizes_in((c.pos, c.kw), sizes)
    names = _names(sizes)
    ctor = (symbolize(c.ctor[0], names, statics), symbolize(c.ctor[1], names, statics)) if statics else c.ctor
    return oc.Case(c.op, symbolize(c.pos, names, statics), symbolize(c.kw, names, statics), c.torch_fn,
                   c.deliberate, c.module, ctor)


#: Ops whose static sizes say what to make of the tensor (a new layout, a piece of it), not what
#: it must already be: a literal there against a named size is a fact nobody can disprove.
CONVERSIONS = ("reshape", "view", "unflatten", "expand", "broadcast_to", "narrow", "index", "split", "chunk",
               "repeat", "flatten", "movedim", "roll", "diagonal", "unbind", "select")
CALLS = [(n, True) for n in ALL_NAMES] + [(n, False) for n in ALL_NAMES if n in CONVERSIONS]


@pytest.mark.parametrize(("name", "statics"), CALLS,
                         ids=[f"{n}-{'named' if s else 'literal-arguments'}" for n, s in CALLS])
def test_no_issue_where_torch_accepts(name: str, statics: bool) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        c = oc.draw_any(name, data.draw)
        if c.deliberate is not None:
            return
        _, err = oc.run_torch(c)
        if err is not None:
            return
        symbolic = replay(c, statics)
        result = oc.run_rule(symbolic)
        assert not isinstance(result, Issue), (
            f"{c.op}{' (' + c.module + ')' if c.module else ''}: torch accepts {c.pos} {c.kw} ctor {c.ctor}, "
            f"but the rule reports {result.code} for {symbolic.pos} {symbolic.kw} ctor {symbolic.ctor}: {result.message}"
        )

    run()
