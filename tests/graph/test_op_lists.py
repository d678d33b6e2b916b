"""The backend's op lists (backend/include/typedtensor/generated/ops.inc) drive graph mode: every
listed elementwise op and reduction loads from a saved graph and runs as eager mode does, and every
op the lists give a fusion expression is fused into a generated kernel that agrees with eager mode."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
import typedtensor._runtime as rt
import typedtensor.jit as jit
from typedtensor._runtime import functional as F

OPS: list[dict[str, Any]] = list(rt._C._backend_ops())


def _family(name: str) -> list[dict[str, Any]]:
    return [o for o in OPS if o["family"] == name]


def _fn(name: str) -> Callable[..., Any]:
    """The runtime callable of a backend op by its registry name."""
    special: dict[str, Callable[..., Any]] = {
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "amax": lambda x: x.amax(-1),
        "amin": lambda x: x.amin(-1),
    }
    if name in special:
        return special[name]
    for owner in (rt._C, F):
        if hasattr(owner, name):
            fn = getattr(owner, name)
            return lambda *a: fn(*a)
    return lambda x, *a: getattr(x, name)(*a)


def _input(rule: str, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    if rule == "integral":
        return tt.tensor(rng.integers(-5, 6, (3, 4)).astype(np.int64))
    return tt.tensor((rng.random((3, 4)) * 1.6 + 0.2).astype(np.float32))  # in every op's domain but acosh's


def _same(got: Any, want: Any) -> None:
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


def test_the_lists_name_every_op_once() -> None:
    names = [o["name"] for o in OPS]
    assert len(names) == len(set(names))
    assert {"softplus", "logsumexp", "index_select", "add", "sum"} <= set(names)


@pytest.mark.parametrize("family", ["unary", "binary", "reduce"])
def test_every_listed_op_round_trips_through_a_graph_file(tmp_path: Path, family: str) -> None:
    checked = 0
    for op in _family(family):
        assert op["saveable"], op["name"]
        fn = _fn(op["name"])
        xs = [_input(op["dtype_rule"], 1)] + ([_input(op["dtype_rule"], 2)] if family == "binary" else [])
        cf = tt.compile(fn)
        want = cf(*xs)
        path = tmp_path / f"{op['name']}.ttg"
        jit.save(cf, path)
        g = jit.load(path)
        assert op["name"] in g.op_counts(), op["name"]
        _same(g(*xs)[0], want)
        _same(want, fn(*xs))
        checked += 1
    assert checked == len(_family(family)) > 0


def _fused_body(cf: Any, *xs: Any) -> set[str]:
    g = cf.graph_for(*xs)
    assert set(g.op_counts()) == {"fused"}, g
    return {b.op for n in g.nodes() for b in n.body}


def test_every_unary_fusion_expression_is_fused_and_agrees_with_eager() -> None:
    fused = [o["name"] for o in _family("unary") if o["fusion"]]
    assert "softplus" in fused

    def f(x: Any) -> Any:
        acc = x * 0.5
        for name in fused:
            acc = acc + _fn(name)(x)
        return acc

    x = tt.tensor(np.linspace(-3.0, 3.0, 96, dtype=np.float32).reshape(8, 12))
    cf = tt.compile(f)
    np.testing.assert_allclose(cf(x).numpy(), f(x).numpy(), rtol=2e-5, atol=2e-5)
    assert set(fused) <= _fused_body(cf, x)


def test_every_binary_fusion_expression_is_fused_and_agrees_with_eager() -> None:
    fused = [o for o in _family("binary") if o["fusion"]]

    def f(x: Any, y: Any) -> Any:
        acc = x * 0.5
        for op in fused:
            r = _fn(op["name"])(x, y)
            acc = acc + (tt.where(r, x, y) if op["dtype_rule"] == "compare" else r)
        return acc

    x = tt.tensor(np.linspace(0.25, 3.0, 96, dtype=np.float32).reshape(8, 12))
    y = tt.tensor(np.linspace(3.0, 0.5, 96, dtype=np.float32).reshape(8, 12))
    cf = tt.compile(f)
    np.testing.assert_allclose(cf(x, y).numpy(), f(x, y).numpy(), rtol=2e-5, atol=2e-5)
    assert {o["name"] for o in fused} <= _fused_body(cf, x, y)
