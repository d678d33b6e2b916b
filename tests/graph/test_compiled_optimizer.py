"""A compiled training step with the optimizer inside (NOTE [ Compiled optimizer steps ] in
typedtensor/optim/optimizer.py): losses, gradients, parameters and optimizer state equal eager
mode's step for step; each parameter's update is one fused kernel that writes the parameter and
its state in place (NOTE [ In-place write-backs ] in backend/src/graph/executor.cpp)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.graph.helpers import leaf_params

SHAPES = [(12, 24), (24,), (24, 6), (6,)]


def _params(seed: int) -> list[Any]:
    return leaf_params(seed, SHAPES)


def _loss(ps: list[Any], x: Any, y: Any) -> Any:
    w1, b1, w2, b2 = ps
    h = tt.relu(x @ w1 + b1)
    return ((h @ w2 + b2 - y) ** 2).mean()


OPTIMIZERS: dict[str, Callable[[list[Any]], Any]] = {
    "sgd-momentum": lambda ps: tt.optim.SGD(ps, lr=0.05, momentum=0.9),
    "sgd-nesterov-wd": lambda ps: tt.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
    "sgd-plain": lambda ps: tt.optim.SGD(ps, lr=0.05),
    "adam": lambda ps: tt.optim.Adam(ps, lr=1e-2),
    "adamw": lambda ps: tt.optim.AdamW(ps, lr=1e-2, weight_decay=1e-2),
    "adam-amsgrad-maximize": lambda ps: tt.optim.Adam(ps, lr=1e-2, amsgrad=True, maximize=True, weight_decay=1e-3),
}


def _data() -> tuple[Any, Any]:
    rng = np.random.default_rng(7)
    return (tt.tensor(rng.standard_normal((10, 12)).astype(np.float32)),
            tt.tensor(rng.standard_normal((10, 6)).astype(np.float32)))


def _step(ps: list[Any], opt: Any) -> Callable[[Any, Any], Any]:
    def step(x: Any, y: Any) -> Any:
        loss = _loss(ps, x, y)
        loss.backward()
        opt.step()
        return loss.detach()
    return step


def _close(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-7) -> None:
    np.testing.assert_allclose(np.asarray(a.detach().numpy()), np.asarray(b.detach().numpy()), rtol=rtol, atol=atol)


def _compiled_follows_eager_after_an_eager_step(pe: list[Any], oe: Any, pc: list[Any], oc: Any) -> None:
    """One eager step each (the state exists), then three compiled steps equal three eager ones."""
    x, y = _data()
    for p, o in ((pe, oe), (pc, oc)):
        _step(p, o)(x, y)
    eager, compiled = _step(pe, oe), tt.compile(_step(pc, oc), params=pc)
    for _ in range(3):
        for p in pe + pc:
            p.grad = None
        _close(compiled(x, y), eager(x, y))
    for a, b in zip(pc, pe, strict=True):
        _close(a, b)


def compiled_equals_eager_step_for_step(make: Callable[[list[Any]], Any], steps: int,
                                        close: Callable[[Any, Any], None] = _close) -> None:
    """A step compiled from its first call against the same step in eager mode: losses, parameters,
    gradients and optimizer state after every step, and one trace for all of them."""
    x, y = _data()
    pe, pc = _params(1), _params(1)
    oe, oc = make(pe), make(pc)
    eager = _step(pe, oe)
    compiled = tt.compile(_step(pc, oc), params=pc)
    for _ in range(steps):
        for p in pe + pc:
            p.grad = None
        close(compiled(x, y), eager(x, y))
        for a, b in zip(pc, pe, strict=True):
            close(a, b)
            close(a.grad, b.grad)
            assert set(oc.state[a]) == set(oe.state[b])
            for k in oe.state[b]:
                close(oc.state[a][k], oe.state[b][k])
    assert compiled.traces == 1  # the later steps ran the graph traced at the first


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_compiled_step_equals_eager_step_for_step(name: str) -> None:
    compiled_equals_eager_step_for_step(OPTIMIZERS[name], 4)


@pytest.mark.parametrize("name", ["sgd-momentum", "adamw"])
def test_each_update_is_one_kernel_writing_in_place(name: str) -> None:
    x, y = _data()
    ps = _params(1)
    opt = OPTIMIZERS[name](ps)
    compiled = tt.compile(_step(ps, opt), params=ps)
    compiled(x, y)
    g = compiled.graph_for(x, y)
    state = [t for p in ps for t in opt.state[p].values() if t.dim() > 0]  # not Adam's step counters
    into = g.in_place_writes()
    # every parameter and state tensor is written by a fused kernel, in place (no copy after the run)
    assert {g.value(c).data.untyped_storage_ptr() for c in into.values()} == {t.untyped_storage_ptr() for t in ps + state}
    nodes = g.nodes()
    producer = {o: i for i, n in enumerate(nodes) for o in n.outputs}
    assert all(nodes[producer[v]].op == "fused" for v in into)
    # one kernel per parameter: it writes the parameter and all of its state
    per_kernel: dict[int, set[int]] = {}
    for v, c in into.items():
        per_kernel.setdefault(producer[v], set()).add(c)
    n_state = 1 if name.startswith("sgd") else 2
    assert sorted(len(cs) for cs in per_kernel.values()) == [1 + n_state] * len(ps)
    # a kernel that writes over its own operand promises no alias (no __restrict)
    fused = [i for i, n in enumerate(nodes) if n.op == "fused"]
    sources = dict(zip(fused, (src for _, src in g.kernels()), strict=True))
    for i in per_kernel:
        assert "__restrict" not in sources[i]


def test_sgd_first_step_with_dampening_is_refused() -> None:
    x, y = _data()
    ps = _params(1)
    opt = tt.optim.SGD(ps, lr=0.05, momentum=0.9, dampening=0.5)
    with pytest.raises(NotImplementedError, match="dampening"):
        tt.compile(_step(ps, opt), params=ps)(x, y)
    # after one eager step the state exists and the compiled step matches eager
    pe = _params(1)
    oe = tt.optim.SGD(pe, lr=0.05, momentum=0.9, dampening=0.5)
    ps = _params(1)
    opt = tt.optim.SGD(ps, lr=0.05, momentum=0.9, dampening=0.5)
    _compiled_follows_eager_after_an_eager_step(pe, oe, ps, opt)


def test_a_capture_read_after_its_write_is_not_written_in_place() -> None:
    buf = tt.tensor(np.arange(6, dtype=np.float32))
    ref = tt.tensor(np.arange(6, dtype=np.float32))

    def f(x: Any, b: Any) -> Any:
        old = b * 3.0  # read before the write ...
        b.mul_(2.0).add_(x)
        return old + b * 0.5  # ... and after it: the old value must still be there for `old`

    compiled = tt.compile(lambda x: f(x, buf))
    x = tt.tensor(np.ones(6, dtype=np.float32))
    for _ in range(3):
        _close(compiled(x), f(x, ref))
        _close(buf, ref)


def test_a_capture_last_read_by_its_writer_is_written_in_place() -> None:
    buf = tt.tensor(np.arange(6, dtype=np.float32))
    ref = tt.tensor(np.arange(6, dtype=np.float32))

    def f(x: Any, b: Any) -> Any:
        y = (x * 2.0).sum()
        b.mul_(0.5).add_(x)
        return y

    compiled = tt.compile(lambda x: f(x, buf))
    x = tt.tensor(np.ones(6, dtype=np.float32))
    before = buf.untyped_storage_ptr()
    for _ in range(3):
        _close(compiled(x), f(x, ref))
        _close(buf, ref)
    assert buf.untyped_storage_ptr() == before
    assert len(compiled.graph_for(x).in_place_writes()) == 1


class _HeavyBall(tt.optim.Optimizer):
    """A hand-written optimizer whose first step differs from the later ones (a cloned buffer)."""

    def __init__(self, params: list[Any]) -> None:
        super().__init__(params, {"lr": 0.05})

    def _update(self, group: dict[str, Any], param: Any, grad: Any, state: dict[str, Any]) -> None:
        if "buf" not in state:
            state["buf"] = grad.clone()
        else:
            state["buf"].mul_(0.9).add_(grad)
        param.add_(state["buf"], alpha=-group["lr"])


def test_an_optimizer_that_makes_state_at_a_traced_first_step_is_refused() -> None:
    x, y = _data()
    ps = _params(1)
    opt = _HeavyBall(ps)
    with pytest.raises(NotImplementedError, match="run one step eagerly"):
        tt.compile(_step(ps, opt), params=ps)(x, y)
    assert not opt.state  # the refused trace left no state behind
    pe = _params(1)
    oe = _HeavyBall(pe)
    _compiled_follows_eager_after_an_eager_step(pe, oe, ps, opt)
    for a, b in zip(ps, pe, strict=True):
        _close(opt.state[a]["buf"], oe.state[b]["buf"])



@pytest.mark.parametrize("name", ["sgd-momentum", "adamw"])
def test_a_learning_rate_change_traces_the_step_again(name: str) -> None:
    # NOTE [ Trace guards ]: the graph holds the learning rate as a constant; an LR scheduler's change
    # is seen by the next call, which traces anew (the same signature: the cache does not grow)
    x, y = _data()
    pe, pc = _params(1), _params(1)
    oe, oc = OPTIMIZERS[name](pe), OPTIMIZERS[name](pc)
    se, sc = (tt.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.1) for o in (oe, oc))
    eager = _step(pe, oe)
    compiled = tt.compile(_step(pc, oc), params=pc)
    for _ in range(5):
        for p in pe + pc:
            p.grad = None
        _close(compiled(x, y), eager(x, y))
        se.step()
        sc.step()
        for a, b in zip(pc, pe, strict=True):
            _close(a, b)
    assert compiled.traces == 3  # lr 0.05 / 0.005 / 0.0005 (sgd), each traced once
    assert compiled.cache_size() == 1


def test_zero_grad_inside_the_step_leaves_this_steps_gradients_in_grad() -> None:
    # without the note, the graph's gradients were added to what .grad held before the call
    x, y = _data()
    pe, pc = _params(1), _params(1)
    oe, oc = OPTIMIZERS["adamw"](pe), OPTIMIZERS["adamw"](pc)

    def step(ps: list[Any], opt: Any) -> Callable[[Any, Any], Any]:
        def run(a: Any, c: Any) -> Any:
            opt.zero_grad()
            loss = _loss(ps, a, c)
            loss.backward()
            opt.step()
            return loss.detach()
        return run

    eager, compiled = step(pe, oe), tt.compile(step(pc, oc), params=pc)
    for _ in range(3):  # .grad is never cleared outside the step
        _close(compiled(x, y), eager(x, y))
        for a, b in zip(pc, pe, strict=True):
            _close(a, b)
            _close(a.grad, b.grad)
