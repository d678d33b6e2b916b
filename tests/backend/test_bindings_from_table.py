"""The bindings generated from the op table (NOTE [ C++ functions from the table ]): each op with a
``cpp_fn`` is bound once, as ``typedtensor.X`` and ``Tensor.X``, with the table's parameter names,
keyword-only marks and defaults, and calls through to its C++ function."""

from __future__ import annotations

import re

import numpy as np
import pytest

import typedtensor as tt
from typedtensor import _C
from typedtensor.shapes.registry import REQUIRED, OpDef, Param, all_ops

TABLE_BOUND = {name: op for name, op in all_ops().items() if op.cpp_fn is not None}


def _signature(fn: object) -> list[str]:
    """The parameters of a pybind11 function's first overload, from its docstring."""
    doc = (getattr(fn, "__doc__", None) or "").splitlines()[0]
    inner = doc[doc.index("(") + 1 : doc.rindex(") ->")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        depth += ch in "[("
        depth -= ch in "])"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def _expected(params: tuple[Param, ...]) -> list[str]:
    out: list[str] = []
    for i, p in enumerate(params):
        if p.keyword_only and not any(q.keyword_only for q in params[:i]):
            out.append("*")
        out.append(p.name if p.default is REQUIRED else f"{p.name}={p.default!r}")
    return out


def _written(parts: list[str]) -> list[str]:
    """``"dim: int = 0"`` as ``"dim=0"``; ``"keepdim: bool = False"`` as ``"keepdim=False"``."""
    out = []
    for part in parts:
        m = re.match(r"(\*|\w+)(?::\s*[^=]+)?(?:=\s*(.+))?$", part)
        assert m is not None, part
        name, default = m.group(1), m.group(2)
        out.append(name if default is None else f"{name}={default.strip()}")
    return out


def test_the_table_binds_logsumexp_and_index_select() -> None:
    assert {"logsumexp", "index_select", "softplus", "matmul"} <= set(TABLE_BOUND)


@pytest.mark.parametrize("name", sorted(TABLE_BOUND))
def test_binding_has_the_tables_parameters(name: str) -> None:
    op: OpDef = TABLE_BOUND[name]
    for bound in (name, *op.aliases):
        fn = _written(_signature(getattr(_C, bound)))
        method = _written(_signature(getattr(_C.Tensor, bound)))
        assert fn == _expected(op.params), bound
        assert method == ["self", *_expected(op.params)[1:]], bound


def test_generated_bindings_call_through() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    t = tt.tensor(x)
    np.testing.assert_allclose(tt.logsumexp(t, 1).numpy(), np.log(np.exp(x).sum(1)), rtol=1e-6)
    np.testing.assert_array_equal(t.index_select(1, tt.tensor([3, 0])).numpy(), x[:, [3, 0]])
    np.testing.assert_array_equal(tt.swapdims(t, 0, 1).numpy(), x.T)
    assert [c.shape for c in t.chunk(2, dim=1)] == [(3, 2), (3, 2)]
    assert tt.cumsum(t, 0, dtype=tt.float64).dtype == tt.float64
    with pytest.raises(TypeError):
        tt.cumsum(t, 0, tt.float64)  # dtype is keyword-only, as torch's
