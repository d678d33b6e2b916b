"""tt.compile: capture, guards, control flow, captures, shape checking, refusals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.graph.helpers import close, randn
from typedtensor import Dim, Tensor


class Batch(Dim):
    "rows"


class Feat(Dim):
    "columns"


def test_compiled_equals_eager_and_caches() -> None:
    def f(x: Any, w: Any, b: Any) -> Any:
        return (tt.tanh(x * w + b) * 0.5 + 1.0).relu()

    cf = tt.compile(f)
    x, w, b = randn(32, 16), randn(16), randn(16)
    close(cf(x, w, b), f(x, w, b))
    close(cf(x, w, b), f(x, w, b))
    assert cf.traces == 1 and cf.cache_size() == 1


def test_guards_retrace_on_shape_dtype_and_static_args() -> None:
    cf = tt.compile(lambda x, k: x * k)
    cf(randn(4), 2.0)
    cf(randn(4), 2.0)
    assert cf.traces == 1
    cf(randn(5), 2.0)  # shape
    assert cf.traces == 2
    cf(randn(4).double(), 2.0)  # dtype
    assert cf.traces == 3
    out = cf(tt.ones(4), 3.0)  # a Python number is part of the guard
    assert cf.traces == 4
    close(out, tt.full((4,), 3.0))


def test_control_flow_resolves_at_trace_time_and_guards_keep_it_valid() -> None:
    def f(x: Any, mode: str) -> Any:
        if mode == "double":
            return x * 2.0
        return x.neg()

    cf = tt.compile(f)
    x = randn(3)
    close(cf(x, "double"), x * 2.0)
    close(cf(x, "neg"), x.neg())  # another static value: another graph
    assert cf.traces == 2
    g = cf.graph_for(x, "neg")
    assert [n.op for n in g.nodes()] == ["neg"]


def test_nested_inputs_and_outputs() -> None:
    def f(d: Any) -> Any:
        return {"s": d["a"] + d["b"][0], "t": (d["b"][1].exp(), 7)}

    cf = tt.compile(f)
    a, b0, b1 = randn(3), randn(3), randn(2)
    out = cf({"a": a, "b": [b0, b1]})
    close(out["s"], a + b0)
    close(out["t"][0], b1.exp())
    assert out["t"][1] == 7


def test_captured_tensors_are_read_by_reference() -> None:
    w = randn(4)
    cf = tt.compile(lambda x: x * w)
    x = randn(4)
    close(cf(x), x * w)
    with tt.no_grad():
        w.mul_(3.0)  # an optimiser-style in-place update
    close(cf(x), x * w)
    assert cf.traces == 1


def _all_ops(g: Any) -> list[str]:
    return [n.op for n in g.nodes()] + [b.op for n in g.nodes() for b in n.body]


def test_freeze_folds_through_captures() -> None:
    w = randn(4)
    x = randn(4)
    cf = tt.compile(lambda x: x * w.exp())
    assert "exp" in _all_ops(cf.graph_for(x))  # w is read at every call: exp(w) too
    frozen = tt.compile(lambda x: x * w.exp(), freeze=True)
    ref = x * w.exp()
    close(frozen(x), ref)
    assert "exp" not in _all_ops(frozen.graph_for(x))  # folded into a constant
    with tt.no_grad():
        w.fill_(0.0)
    close(frozen(x), ref)  # frozen: the value at trace time
    close(cf(x), x)  # not frozen: sees the new w, exp(0) = 1


def test_compiled_function_inside_a_compiled_function() -> None:
    inner = tt.compile(lambda a: (a * 2.0).tanh() + 1.0)
    outer = tt.compile(lambda a, b: inner(a) * b)
    x, y = randn(5), randn(5)
    want = ((x * 2.0).tanh() + 1.0) * y
    close(inner(x) * y, want)
    close(outer(x, y), want)
    close(outer(x + 1.0, y), ((x + 1.0) * 2.0).tanh().add(1.0) * y)  # not a frozen constant


def test_inplace_ops_are_functionalized_and_random_ops_refuse_to_trace() -> None:
    def inplace(x: Any) -> Any:
        y = x * 2.0
        y.add_(1.0)
        return y

    x = randn(3)
    close(tt.compile(inplace)(x), x * 2.0 + 1.0)  # tests/graph/test_functionalize.py has the rest

    with pytest.raises(NotImplementedError, match="randn"):
        tt.compile(lambda x: x + tt.randn(3))(randn(3))
    # the tracer was uninstalled: eager mode still works
    close(randn(3) * 0.0, tt.zeros(3))


def test_outputs_do_not_require_grad_and_inputs_may() -> None:
    x = randn(3)
    out = tt.compile(lambda a: a.exp())(x)
    assert not out.requires_grad


def test_symbolic_shapes_from_annotations() -> None:
    def f(x: Tensor[Batch, Feat], w: Tensor[Feat]) -> Tensor[Batch]:
        return (x * w).sum(1)

    cf = tt.compile(f)
    x, w = randn(4, 3), randn(3)
    close(cf(x, w), f(x, w))
    g = cf.graph_for(x, w)
    text = g.text(symbolic=True)
    assert "%0: f32[Batch, Feat]" in text
    assert "f32[Batch] = sum" in text or "f32[Batch] = fused" in text or "[Batch]" in text


def test_shape_check_catches_dims_equal_only_by_size() -> None:
    # Batch and Feat are both 3 here: eager runs, the dim types say x.T + x mixes them
    def f(x: Tensor[Batch, Feat]) -> Any:
        return x.transpose(0, 1) + x

    x = randn(3, 3)
    f(x)
    with pytest.raises(tt.ShapeError, match=r"Batch|Feat"):
        tt.compile(f)(x)
    close(tt.compile(f, check_shapes=False)(x), f(x))


class _TinyModule:
    """What tt.compile uses of a Module: __call__, parameters() and training."""

    def __init__(self) -> None:
        self.w = randn(3, 2)
        self.w.requires_grad = True
        self.training = True

    def parameters(self) -> list[Any]:
        return [self.w]

    def __call__(self, x: Any) -> Any:
        y = (x @ self.w).tanh()
        return y * 0.5 if self.training else y


def test_module_like_objects_guard_training_and_collect_gradients() -> None:
    m = _TinyModule()
    cm = tt.compile(m)
    x = randn(4, 3)
    with tt.no_grad():
        close(cm(x), (x @ m.w).tanh() * 0.5)
        m.training = False
        close(cm(x), (x @ m.w).tanh())
    assert cm.traces == 2

    def step(x: Any) -> Any:
        loss = m(x).sum()
        loss.backward()
        return loss.detach()

    m.training = True
    cstep = tt.compile(step, params=m.parameters())
    m.w.grad = None
    cstep(x)
    got = m.w.grad.numpy().copy()
    m.w.grad = None
    step(x)
    np.testing.assert_allclose(got, m.w.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_module_compiles_and_training_flag_is_guarded() -> None:
    nn = pytest.importorskip("typedtensor.nn")
    if not hasattr(nn, "Linear"):
        pytest.skip("typedtensor.nn not merged on this branch")
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    cm = tt.compile(m)
    x = randn(5, 8)
    with tt.no_grad():
        close(cm(x), m(x), rtol=1e-4)
        m.eval()
        cm(x)
    assert cm.traces == 2
