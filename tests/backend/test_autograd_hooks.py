"""Tensor hooks (NOTE [ Tensor hooks ] in backend/include/typedtensor/autograd.h): register_hook on
leaves and non-leaves, register_post_accumulate_grad_hook, removal, and the graph reachability query
a data-parallel reducer uses for find_unused_parameters. torch is the oracle where it has the API."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor._runtime as tt
from typedtensor._runtime import _C, autograd

from .helpers import assert_close

torch = pytest.importorskip("torch")


def both(values: list[float]) -> tuple[Any, Any]:
    return (tt.tensor(values, dtype=tt.float64, requires_grad=True),
            torch.tensor(values, dtype=torch.float64, requires_grad=True))


def test_leaf_hook_sees_and_replaces_the_gradient_like_torch() -> None:
    x, tx = both([1.0, 2.0, 3.0])
    seen: list[np.ndarray] = []
    tseen: list[np.ndarray] = []
    x.register_hook(lambda g: (seen.append(g.numpy().copy()), g * 10)[1])
    tx.register_hook(lambda g: (tseen.append(g.detach().numpy().copy()), g * 10)[1])
    (x * x).sum().backward()
    (tx * tx).sum().backward()
    assert len(seen) == len(tseen) == 1
    np.testing.assert_allclose(seen[0], tseen[0])
    assert_close(x.grad, tx.grad.numpy())


def test_leaf_hook_runs_once_on_the_summed_gradient_of_several_uses() -> None:
    x, tx = both([1.0, 2.0])
    calls: list[np.ndarray] = []
    x.register_hook(lambda g: calls.append(g.numpy().copy()))
    (x * 2 + x * 3).sum().backward()
    tcalls: list[np.ndarray] = []
    tx.register_hook(lambda g: tcalls.append(g.detach().numpy().copy()))
    (tx * 2 + tx * 3).sum().backward()
    assert len(calls) == len(tcalls) == 1
    np.testing.assert_allclose(calls[0], tcalls[0])


def test_non_leaf_hook_changes_what_flows_upstream() -> None:
    x, tx = both([1.0, -2.0])
    h = x * 3
    th = tx * 3
    h.register_hook(lambda g: g * 0 + 1)
    th.register_hook(lambda g: g * 0 + 1)
    (h * h).sum().backward()
    (th * th).sum().backward()
    assert_close(x.grad, tx.grad.numpy())


def test_hooks_run_in_registration_order_each_seeing_the_previous_result() -> None:
    x = tt.tensor([1.0], dtype=tt.float64, requires_grad=True)
    order: list[str] = []
    x.register_hook(lambda g: (order.append("a"), g + 1)[1])
    x.register_hook(lambda g: (order.append("b"), g * 2)[1])
    x.sum().backward()
    assert order == ["a", "b"]
    assert_close(x.grad, np.array([4.0]))


def test_non_leaf_hook_applies_to_autograd_grad() -> None:
    x, tx = both([1.0, 2.0])
    h, th = x * x, tx * tx
    h.register_hook(lambda g: g * 5)
    th.register_hook(lambda g: g * 5)
    (gx,) = autograd.grad(h.sum(), [x])
    (tgx,) = torch.autograd.grad(th.sum(), [tx])
    assert_close(gx, tgx.numpy())


def test_removed_hook_does_not_run_and_remove_is_idempotent() -> None:
    x = tt.tensor([1.0, 2.0], dtype=tt.float64, requires_grad=True)
    calls: list[int] = []
    handle = x.register_hook(lambda g: calls.append(1))
    handle.remove()
    handle.remove()
    x.sum().backward()
    assert calls == []
    with x.register_hook(lambda g: calls.append(2)):
        pass
    x.sum().backward()
    assert calls == []


def test_hook_with_the_wrong_shape_is_an_error() -> None:
    x = tt.tensor([1.0, 2.0], dtype=tt.float64, requires_grad=True)
    x.register_hook(lambda g: tt.ones(3, dtype=tt.float64))
    with pytest.raises(RuntimeError, match="shape"):
        x.sum().backward()


def test_hook_exception_propagates_out_of_backward() -> None:
    x = tt.tensor([1.0], dtype=tt.float64, requires_grad=True)

    def boom(g: Any) -> None:
        raise ValueError("from the hook")

    x.register_hook(boom)
    with pytest.raises(ValueError, match="from the hook"):
        x.sum().backward()


def test_hooks_need_requires_grad_and_post_accumulate_needs_a_leaf() -> None:
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tt.ones(2).register_hook(lambda g: None)
    x = tt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(TypeError, match="callable"):
        x.register_hook(3)


def test_post_accumulate_hook_sees_the_updated_grad_once_per_backward() -> None:
    x, tx = both([1.0, 2.0])
    seen: list[np.ndarray] = []
    tseen: list[np.ndarray] = []
    x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.numpy().copy()))
    tx.register_post_accumulate_grad_hook(lambda p: tseen.append(p.grad.numpy().copy()))
    for _ in range(2):
        (x * x + x).sum().backward()
        (tx * tx + tx).sum().backward()
    assert len(seen) == len(tseen) == 2
    for a, b in zip(seen, tseen, strict=True):
        np.testing.assert_allclose(a, b)


def test_post_accumulate_hooks_fire_in_backward_order_before_backward_returns() -> None:
    # the later layer's parameter gets its gradient first: the order a bucketed reducer relies on
    w1 = tt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tt.float64, requires_grad=True)
    w2 = tt.tensor([[0.5], [-1.0]], dtype=tt.float64, requires_grad=True)
    order: list[str] = []
    w1.register_post_accumulate_grad_hook(lambda p: order.append("w1"))
    w2.register_post_accumulate_grad_hook(lambda p: order.append("w2"))
    x = tt.tensor([[1.0, 1.0]], dtype=tt.float64)
    ((x @ w1).relu() @ w2).sum().backward()
    assert order == ["w2", "w1"]


def test_post_accumulate_hook_may_return_only_none() -> None:
    x = tt.tensor([1.0], dtype=tt.float64, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda p: 1)
    with pytest.raises(RuntimeError, match="must return None"):
        x.sum().backward()


def test_hook_closure_is_freed_with_the_tensor() -> None:
    import gc
    import weakref

    class Marker:
        def __call__(self, g: Any) -> None:
            return None

    m = Marker()
    ref = weakref.ref(m)
    x = tt.ones(2, requires_grad=True)
    x.register_hook(m)
    h = x * 2
    h.register_hook(m)
    del m
    gc.collect()
    assert ref() is not None
    del x, h
    gc.collect()
    assert ref() is None


def test_accumulate_grad_variable_is_the_leaf() -> None:
    x = tt.ones(2, requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    v = acc.variable
    assert v.data_ptr() == x.data_ptr() and v.is_leaf and v.requires_grad
    with pytest.raises(AttributeError):
        _ = y.grad_fn.variable


def test_reaches_leaves_says_which_parameters_the_backward_uses() -> None:
    a = tt.ones(2, requires_grad=True)
    b = tt.ones(2, requires_grad=True)
    c = tt.ones(2, requires_grad=True)
    loss = (a * 2 + b).sum()
    assert _C._autograd_reaches([loss], [a, b, c]) == [True, True, False]
    assert _C._autograd_reaches([c.detach()], [c]) == [False]
