"""The autograd engine: accumulation, retain_graph, leaf / non-leaf semantics, grad modes, detach,
autograd.grad, higher order, deep graphs, and the in-place safety rules."""

from __future__ import annotations

import gc
import sys
from typing import Any

import numpy as np
import pytest

import typedtensor._runtime as tt
from typedtensor._runtime import autograd

from .helpers import assert_close


def leaf(*values: float) -> tt.Tensor:
    return tt.tensor(list(values), dtype=tt.float64, requires_grad=True)


def test_gradients_accumulate_across_backward_calls() -> None:
    x = leaf(1.0, 2.0, 3.0)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    assert_close(x.grad, np.array([5.0, 7.0, 9.0]))


def test_held_grad_reference_sees_accumulation() -> None:
    x = leaf(1.0, 2.0)
    (x * 2).sum().backward()
    g = x.grad
    (x * 2).sum().backward()
    assert_close(g, np.array([4.0, 4.0]))


def test_second_backward_without_retain_graph_raises() -> None:
    x = leaf(1.0, 2.0)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_a_second_backward() -> None:
    x = leaf(1.0, 2.0)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_close(x.grad, np.array([4.0, 8.0]))


def test_non_leaf_grad_is_none_unless_retained() -> None:
    x = leaf(1.0, 2.0)
    h = x * 2
    k = h * 3
    k.retain_grad()
    (k * h).sum().backward()
    assert x.is_leaf and not h.is_leaf and not k.is_leaf
    assert h.grad is None
    assert k.retains_grad
    assert_close(k.grad, np.array([2.0, 4.0]))
    assert x.grad is not None


def test_grad_fn_names_the_op() -> None:
    x = tt.randn(2, 3, requires_grad=True)
    w = tt.randn(3, 4, requires_grad=True)
    y = x @ w
    assert y.grad_fn is not None and y.grad_fn.name() == "MatMulBackward"
    assert x.grad_fn is None
    assert y.sum().grad_fn.name() == "SumBackward"
    assert "grad_fn=<MatMulBackward>" in repr(y)
    nxt = y.grad_fn.next_functions
    assert [n.name() for n, _ in nxt] == ["AccumulateGrad", "AccumulateGrad"]


def test_backward_on_non_scalar_needs_gradient() -> None:
    x = leaf(1.0, 2.0)
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    y.backward(tt.tensor([1.0, 10.0], dtype=tt.float64))
    assert_close(x.grad, np.array([2.0, 20.0]))


def test_backward_gradient_shape_is_checked() -> None:
    y = leaf(1.0, 2.0) * 2
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        y.backward(tt.ones(3, dtype=tt.float64))


def test_backward_of_a_tensor_without_grad_raises() -> None:
    with pytest.raises(RuntimeError, match="does not require grad"):
        tt.ones(2).sum().backward()


def test_no_grad_context_and_decorator() -> None:
    x = leaf(1.0)
    with tt.no_grad():
        y = x * 2
        with tt.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad

    @tt.no_grad()
    def f(t: tt.Tensor) -> tt.Tensor:
        return t * 2

    assert not f(x).requires_grad
    assert tt.is_grad_enabled()


def test_no_grad_decorator_restores_mode_under_recursion() -> None:
    @tt.no_grad()
    def down(n: int) -> bool:
        return down(n - 1) if n else tt.is_grad_enabled()

    assert down(3) is False
    assert tt.is_grad_enabled()


def test_set_grad_enabled_call_context_and_decorator() -> None:
    with tt.set_grad_enabled(False):
        assert not tt.is_grad_enabled()
    assert tt.is_grad_enabled()

    @tt.set_grad_enabled(False)
    def g() -> bool:
        return tt.is_grad_enabled()

    assert tt.is_grad_enabled()
    assert g() is False
    assert tt.is_grad_enabled()
    tt.set_grad_enabled(False)
    assert not tt.is_grad_enabled()
    tt.set_grad_enabled(True)


def test_detach_shares_memory_and_stops_gradients() -> None:
    x = leaf(1.0, 2.0)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d._shares_storage(y)
    (d * x).sum().backward()
    assert_close(x.grad, np.array([2.0, 4.0]))


def test_detach_in_place_makes_a_leaf() -> None:
    x = leaf(1.0)
    y = x * 2
    y.detach_()
    assert y.is_leaf and not y.requires_grad


def test_requires_grad_rules() -> None:
    with pytest.raises(TypeError, match="floating point"):
        tt.tensor([1, 2]).requires_grad_()
    y = leaf(1.0) * 2
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad = False
    assert not (tt.tensor([1.0]) > 0).requires_grad
    x = leaf(1.0, 2.0)
    assert not (x > 1).requires_grad
    assert not x.argmax().requires_grad


def test_grad_setter_checks_shape_and_dtype() -> None:
    x = leaf(1.0, 2.0)
    x.grad = tt.ones(2, dtype=tt.float64)
    with pytest.raises(ValueError, match="shape"):
        x.grad = tt.ones(3, dtype=tt.float64)
    with pytest.raises(TypeError, match="dtype"):
        x.grad = tt.ones(2)
    x.grad = None
    assert x.grad is None


def test_autograd_grad_leaves_dot_grad_alone() -> None:
    x = leaf(1.0, 2.0)
    w = leaf(3.0, 4.0)
    gx, gw = autograd.grad((x * w).sum(), [x, w])
    assert_close(gx, np.array([3.0, 4.0]))
    assert_close(gw, np.array([1.0, 2.0]))
    assert x.grad is None and w.grad is None


def test_autograd_grad_of_an_intermediate() -> None:
    x = leaf(1.0, 2.0)
    h = x * 3
    (gh,) = autograd.grad((h * h).sum(), h)
    assert_close(gh, np.array([6.0, 12.0]))


def test_autograd_grad_allow_unused() -> None:
    x, unused = leaf(1.0), leaf(2.0)
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        autograd.grad(y, [x, unused], retain_graph=True)
    gx, gu = autograd.grad(y, [x, unused], allow_unused=True)
    assert gu is None
    assert_close(gx, np.array([2.0]))


def test_create_graph_gives_second_derivatives() -> None:
    x = leaf(1.5, -2.0)
    y = (x**3).sum()
    (g,) = autograd.grad(y, x, create_graph=True)
    assert g.requires_grad
    assert_close(g, 3 * np.array([1.5, -2.0]) ** 2)
    (gg,) = autograd.grad(g.sum(), x)
    assert_close(gg, 6 * np.array([1.5, -2.0]))


def test_create_graph_through_saved_outputs() -> None:
    x = leaf(0.3, -0.7)
    (g,) = autograd.grad(x.exp().sum() + x.tanh().sum(), x, create_graph=True)
    (gg,) = autograd.grad(g.sum(), x)
    t = np.tanh(np.array([0.3, -0.7]))
    assert_close(gg, np.exp([0.3, -0.7]) - 2 * t * (1 - t**2))


def test_backward_with_create_graph_then_grad_of_grad() -> None:
    x = leaf(2.0)
    (x * x * x).sum().backward(create_graph=True)
    assert x.grad is not None and x.grad.requires_grad
    (gg,) = autograd.grad(x.grad.sum(), x)
    assert_close(gg, np.array([12.0]))


def test_autograd_backward_with_grad_tensors() -> None:
    x = leaf(1.0, 2.0)
    autograd.backward([x * 2, x * x], [tt.ones(2, dtype=tt.float64), tt.tensor([1.0, 0.5], dtype=tt.float64)])
    assert_close(x.grad, np.array([4.0, 4.0]))


def test_diamond_graph_sums_both_paths() -> None:
    x = leaf(1.0, 2.0)
    a = x * 2
    b = a.exp()
    c = a.sin()
    (b + c).sum().backward()
    av = 2 * np.array([1.0, 2.0])
    assert_close(x.grad, 2 * (np.exp(av) + np.cos(av)))


def test_multi_output_ops() -> None:
    x = tt.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    a, b = x.split(2, 1)
    (a * 2 + b).sum().backward()
    assert_close(x.grad, np.array([[2.0, 2.0, 1.0, 1.0]] * 3))
    y = tt.tensor([[3.0, 1.0, 2.0]], requires_grad=True)
    v, _ = y.sort(1)
    (v * tt.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert_close(y.grad, np.array([[100.0, 1.0, 10.0]]))


def test_long_chain_backward_and_deletion_do_not_overflow_the_stack() -> None:
    x = tt.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    limit = sys.getrecursionlimit()
    y.sum().backward()
    assert_close(x.grad, np.array([1.0]))
    del y
    gc.collect()
    assert sys.getrecursionlimit() == limit


def test_long_chain_deleted_without_backward() -> None:
    x = tt.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = (y + 1.0).exp().log()  # saved inputs and outputs along the chain
    del y
    z = (x * 2).sum()
    z.backward()
    assert_close(x.grad, np.array([2.0]))


# ---- in-place ----
def test_in_place_on_a_leaf_that_requires_grad_raises() -> None:
    x = leaf(1.0, 2.0)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.mul_(2)
    with tt.no_grad():
        x.add_(1)  # optimizers update parameters like this
    assert_close(x.detach(), np.array([2.0, 3.0]))


def test_modifying_a_saved_tensor_raises_at_backward() -> None:
    x = leaf(1.0, 2.0)
    h = x * 1
    y = h * h  # saves h
    with tt.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_in_place_on_memory_shared_with_a_saved_output_raises() -> None:
    x = leaf(0.5, 1.0)
    y = x.exp()  # saves its output
    with pytest.raises(RuntimeError, match="shares its memory"):
        y.add_(1)


def test_in_place_on_a_non_leaf_is_recorded() -> None:
    x = leaf(1.0, 2.0)
    h = x * 2
    h.add_(x)  # h = 2x + x
    h.mul_(tt.tensor([3.0, 3.0], dtype=tt.float64))  # h = 9x
    h.sum().backward()
    assert_close(x.grad, np.array([9.0, 9.0]))
    assert h.grad_fn is not None


def test_in_place_view_of_a_tensor_in_the_graph_raises() -> None:
    x = leaf(1.0, 2.0, 3.0)
    h = x * 2
    v = h[1:]
    with pytest.raises(RuntimeError, match="shares its memory"):
        v.mul_(2)


def test_setitem_is_recorded() -> None:
    x = leaf(1.0, 2.0, 3.0)
    buf = tt.zeros(5, dtype=tt.float64)
    buf[1:4] = x * 2
    assert buf.requires_grad
    (buf * tt.arange(5, dtype=tt.float64)).sum().backward()
    assert_close(x.grad, np.array([2.0, 4.0, 6.0]))


def test_integer_and_bool_inputs_never_require_grad() -> None:
    x = leaf(1.0, 2.0)
    assert not x.long().requires_grad
    assert not (x > 0).requires_grad
    assert not x.floor().requires_grad


def test_double_backward_through_conv2d() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.RandomState(0)
    xa, wa = rng.randn(2, 3, 6, 5), rng.randn(4, 3, 3, 2)

    def run(lib: object, x: object, w: object) -> object:
        t = lib.t
        y = lib.F.conv2d(x, w, stride=2, padding=1)
        gx, gw = t.autograd.grad((y * y).sum(), [x, w], create_graph=True)
        return (gx * gx).sum() + (gw.sin()).sum()

    from types import SimpleNamespace

    x, w = tt.tensor(xa, requires_grad=True), tt.tensor(wa, requires_grad=True)
    run(SimpleNamespace(t=tt, F=tt.functional), x, w).backward()  # type: ignore[union-attr]
    tx, tw = torch.tensor(xa, requires_grad=True), torch.tensor(wa, requires_grad=True)
    run(SimpleNamespace(t=torch, F=torch.nn.functional), tx, tw).backward()  # type: ignore[union-attr]
    assert_close(x.grad, tx.grad, rtol=1e-8, atol=1e-8)
    assert_close(w.grad, tw.grad, rtol=1e-8, atol=1e-8)


def test_data_property() -> None:
    x = leaf(1.0, 2.0)
    d = x.data
    assert not d.requires_grad and d._shares_storage(x)
    x.data = tt.zeros(3, dtype=tt.float64)
    assert tuple(x.shape) == (3,) and x.requires_grad and x.is_leaf


@pytest.mark.parametrize("act", ["gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "softplus"])
def test_second_derivatives_of_activations(act: str) -> None:
    F = tt.functional
    fns = {
        "gelu": F.gelu,
        "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"),
        "silu": F.silu,
        "sigmoid": F.sigmoid,
        "tanh": F.tanh,
        "softplus": F.softplus,
    }
    f = fns[act]

    def first(x: tt.Tensor) -> tt.Tensor:
        (g,) = autograd.grad((f(x) * x).sum(), x, create_graph=True)
        return g

    x = tt.tensor(np.linspace(-3, 3, 7), requires_grad=True)
    assert autograd.gradcheck(first, [x])


@pytest.mark.parametrize("pool", ["max", "avg", "adaptive"])
def test_second_derivatives_through_pooling(pool: str) -> None:
    F = tt.functional
    fns = {
        "max": lambda t: F.max_pool2d(t, 2),
        "avg": lambda t: F.avg_pool2d(t, 2, stride=1, padding=1),
        "adaptive": lambda t: F.adaptive_avg_pool2d(t, (2, 3)),
    }
    f = fns[pool]

    def first(x: tt.Tensor) -> tt.Tensor:
        (g,) = autograd.grad((f(x) ** 2).sum(), x, create_graph=True)
        return g

    x = tt.tensor(np.random.RandomState(3).randn(1, 2, 4, 5), requires_grad=True)
    assert autograd.gradcheck(first, [x])


@pytest.mark.parametrize(("wanted", "runs", "skipped"), [
    ("x", "conv2d_backward_input", "conv2d_backward_weight"),
    ("w", "conv2d_backward_weight", "conv2d_backward_input"),
])
def test_autograd_grad_asks_each_vjp_only_for_the_inputs_it_needs(wanted: str, runs: str, skipped: str) -> None:
    """NOTE [ Needed inputs ] in engine.cpp: autograd.grad(y, [x]) through conv2d(x, w, b), all three
    requiring grad, runs the input gradient's kernel and not the weight's (nor the bias's sum), as
    torch's engine does; the traced primitives (no passes, so nothing pruned afterwards) show it."""
    import typedtensor as ttp

    x = tt.randn(2, 3, 5, 5, requires_grad=True)
    w = tt.randn(4, 3, 3, 3, requires_grad=True)
    b = tt.randn(4, requires_grad=True)

    def f(x: tt.Tensor) -> tt.Tensor:
        y = tt.functional.conv2d(x, w, b)
        return autograd.grad(y.sum(), [x if wanted == "x" else w])[0]

    ops = ttp.compile(f, passes=[]).graph_for(x).op_counts()
    assert ops.get(runs) == 1 and skipped not in ops
    assert ops.get("sum") == 1  # the loss's; the bias gradient's sum over (n, h, w) did not run
    torch = pytest.importorskip("torch")
    tx, tw, tb = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w, b))
    ref = torch.autograd.grad(torch.nn.functional.conv2d(tx, tw, tb).sum(), [tx if wanted == "x" else tw])[0]
    np.testing.assert_allclose(f(x).numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)


def test_backward_inputs_accumulates_into_those_tensors_alone() -> None:
    """Tensor.backward(inputs=...) and autograd.backward(..., inputs=...) as torch: only the listed
    tensors' .grad change (a leaf's accumulates, a non-leaf's is set without retain_grad), the rest of
    the graph's leaves keep theirs, an unused input is left alone, and an empty list is an error."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    xs, ws = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))

    def run(lib: Any, backward_of: str) -> tuple[np.ndarray, ...]:
        x = lib.tensor(xs, requires_grad=True)
        w = lib.tensor(ws, requires_grad=True)
        unused = lib.tensor(ws, requires_grad=True)
        w.grad = lib.ones_like(w)
        h = x @ w
        loss = (h * h).sum()
        if backward_of == "tensor":
            loss.backward(inputs=[w, h, unused])
        else:
            lib.autograd.backward(loss, inputs=[w, h, unused])
        assert x.grad is None and unused.grad is None
        return w.grad.detach().numpy(), h.grad.detach().numpy()

    for backward_of in ("tensor", "function"):
        for mine, ref in zip(run(tt, backward_of), run(torch, backward_of), strict=True):
            np.testing.assert_allclose(mine, ref, rtol=1e-12)
    x = tt.tensor(xs, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * 2).sum().backward(inputs=[])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        autograd.backward((x * 2).sum(), inputs=[])


def test_backward_inputs_runs_leaf_hooks_and_skips_other_vjps() -> None:
    """A listed leaf's gradient goes through its AccumulateGrad (its hooks run, post-accumulate hooks
    too), and conv2d's weight gradient is not computed when only the input is listed."""
    import typedtensor as ttp

    x = tt.randn(2, 3, 5, 5, requires_grad=True)
    w = tt.randn(4, 3, 3, 3, requires_grad=True)
    seen: list[str] = []
    x.register_hook(lambda g: seen.append("hook") or g * 2)
    x.register_post_accumulate_grad_hook(lambda t: seen.append("post"))
    tt.functional.conv2d(x, w).sum().backward(inputs=[x])
    assert seen == ["hook", "post"] and w.grad is None and x.grad is not None
    xd = x.detach().requires_grad_()
    (plain,) = autograd.grad(tt.functional.conv2d(xd, w).sum(), [xd])
    np.testing.assert_allclose(x.grad.numpy(), 2 * plain.numpy(), rtol=1e-6)  # the hook doubled it

    def step(a: tt.Tensor) -> tt.Tensor:
        out = tt.functional.conv2d(a, w).sum()
        out.backward(inputs=[a])
        return out.detach()

    ops = ttp.compile(step, passes=[]).graph_for(x.detach().requires_grad_()).op_counts()
    assert "conv2d_backward_input" in ops and "conv2d_backward_weight" not in ops


@pytest.mark.parametrize("call", ["backward_inputs", "grad_inputs", "backward_roots", "grad_outputs"])
def test_none_where_a_tensor_is_expected_is_an_error_not_a_crash(call: str) -> None:
    """None among the tensors differentiated or differentiated with respect to (torch raises too)
    reached the engine as an empty tensor, which it dereferenced."""
    x = tt.ones(2, requires_grad=True)
    with pytest.raises((RuntimeError, TypeError), match="None"):
        if call == "backward_inputs":
            (x * 2).sum().backward(inputs=[None])
        elif call == "grad_inputs":
            autograd.grad((x * 2).sum(), [None])
        elif call == "backward_roots":
            autograd.backward([None], [None])
        else:
            autograd.grad([None], [x])
