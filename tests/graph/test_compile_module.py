"""``model = tt.compile(model)`` as torch programs write it: the result is a Module (torch's
OptimizedModule), and outputs differentiated outside the compiled function get their gradients
(NOTE [ Differentiable outputs ] in typedtensor/graph/compiled.py)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.graph.helpers import close, randn
from typedtensor.graph import EagerFallbackWarning

nn = tt.nn


class _Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)
        self.drop = nn.Dropout(0.0)

    def forward(self, x: Any) -> Any:
        return self.fc2(self.drop(tt.nn.functional.gelu(self.fc1(x))))

    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())


def _grads(m: Any) -> list[np.ndarray]:
    return [p.grad.numpy().copy() for p in m.parameters()]


def test_backward_outside_reaches_the_parameters() -> None:
    """torch's most common use: compile the model, differentiate its loss outside. Without the
    eager fallback the graph's outputs carried no history and the parameters got no gradient."""
    m = _Net()
    x, y = randn(5, 8), randn(5, 4)
    ((m(x) - y) ** 2).mean().backward()
    want = _grads(m)
    m.zero_grad()
    cm = tt.compile(m)
    with pytest.warns(EagerFallbackWarning, match="differentiated outside"):
        loss = ((cm(x) - y) ** 2).mean()
    assert loss.requires_grad
    loss.backward()
    for got, w in zip(_grads(m), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-6, atol=1e-7)
    m.zero_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once per compiled function
        ((cm(x) - y) ** 2).mean().backward()
    for got, w in zip(_grads(m), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-6, atol=1e-7)


def test_input_that_requires_grad_gets_its_gradient() -> None:
    def f(x: Any) -> Any:
        return (x.tanh() * 2.0).sum(-1)

    cf = tt.compile(f)
    x = randn(3, 4)
    x.requires_grad = True
    with pytest.warns(EagerFallbackWarning):
        cf(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * (1 - np.tanh(x.detach().numpy()) ** 2), rtol=1e-5, atol=1e-6)


def test_inference_and_training_steps_still_run_graphs() -> None:
    m = _Net()
    cm = tt.compile(m)
    x = randn(5, 8)
    with tt.no_grad():
        close(cm(x), m(x), rtol=1e-5)
        assert cm.graph_for(x) is not None and cm.traces == 1
    opt = tt.optim.SGD(m.parameters(), lr=0.1)

    def step(x: Any, y: Any) -> Any:
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        return loss.detach()

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a training step traced whole is a graph, no fallback
        cstep = tt.compile(step, params=list(m.parameters()))
        cstep(x, randn(5, 4))
    assert cstep.graph_for(x, randn(5, 4)) is not None


def test_graph_for_says_when_a_call_runs_eagerly() -> None:
    cm = tt.compile(_Net())
    with pytest.warns(EagerFallbackWarning), pytest.raises(RuntimeError, match="eagerly"):
        cm.graph_for(randn(2, 8))


def test_compiled_module_is_a_module_like_torchs() -> None:
    m = _Net()
    cm = tt.compile(m)
    assert isinstance(cm, nn.Module)
    assert cm._orig_mod is m
    assert list(cm.parameters()) == list(m.parameters())
    assert cm.n_params() == m.n_params()  # the original's methods and attributes
    assert cm.fc1 is m.fc1
    sd = cm.state_dict()
    assert list(sd) == [f"_orig_mod.{k}" for k in m.state_dict()]
    cm.eval()
    assert not m.training and not m.fc1.training and not cm.training
    cm.train()
    assert m.training
    other = _Net()
    other.load_state_dict({k.removeprefix("_orig_mod."): v for k, v in sd.items()})  # nanoGPT's resume
    x = randn(3, 8)
    with tt.no_grad():
        close(other(x), cm(x), rtol=1e-6)


def test_compiled_module_save_and_training_flag_guard(tmp_path: Any) -> None:
    m = _Net()
    cm = tt.compile(m)
    x = randn(4, 8)
    with tt.no_grad():
        cm(x)
        cm.eval()
        cm(x)
        tt.jit.save(cm, tmp_path / "net.ttg", x)
    assert cm.traces == 2  # train() / eval() reach the guard
    g = tt.jit.load(tmp_path / "net.ttg")
    with tt.no_grad():
        close(g(x)[0], m(x), rtol=1e-5)


def test_the_fallback_warning_names_the_callers_line() -> None:
    """The warning points at the user's call whether the compiled function is called directly or
    through the compiled module's ``__call__`` and ``forward`` (a fixed stacklevel named
    typedtensor's own module.py for the second)."""
    x = randn(5, 8)
    net = _Net()
    for compiled in (tt.compile(_Net()), tt.compile(lambda t: net(t))):
        with pytest.warns(EagerFallbackWarning) as record:
            compiled(x)
        assert record[0].filename == __file__, record[0].filename
