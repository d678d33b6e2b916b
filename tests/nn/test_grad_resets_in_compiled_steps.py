"""Gradients reset inside a compiled training step by ``model.zero_grad()`` or by ``p.grad = None``
written out: as with ``opt.zero_grad()`` there, each call leaves that step's gradients in ``.grad``
(they replace, not add to, what ``.grad`` held), so a compiled step and an eager one agree on
gradients and parameters step for step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from typedtensor import nn


def _model(seed: int) -> Any:
    tt.manual_seed(seed)
    return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 4))


def _reset(model: Any, how: str) -> None:
    if how == "model.zero_grad":
        model.zero_grad()
    else:
        for p in model.parameters():
            p.grad = None


def _step(model: Any, opt: Any, how: str) -> Callable[[Any, Any], Any]:
    def run(x: Any, y: Any) -> Any:
        _reset(model, how)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss.detach()
    return run


def _close(a: Any, b: Any) -> None:
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("how", ["model.zero_grad", "p.grad = None"])
def test_a_reset_inside_a_compiled_step_replaces_the_gradients(how: str) -> None:
    # without the note the graph's gradients were added to what .grad held before each call
    rng = np.random.default_rng(3)
    x = tt.tensor(rng.standard_normal((10, 12)).astype(np.float32))
    y = tt.tensor(rng.standard_normal((10, 4)).astype(np.float32))
    me, mc = _model(0), _model(0)
    eager = _step(me, tt.optim.SGD(me.parameters(), lr=0.1, momentum=0.9), how)
    compiled = tt.compile(_step(mc, tt.optim.SGD(mc.parameters(), lr=0.1, momentum=0.9), how),
                          params=list(mc.parameters()))
    for _ in range(3):  # .grad is never cleared outside the step
        _close(compiled(x, y), eager(x, y))
        for a, b in zip(mc.parameters(), me.parameters(), strict=True):
            _close(a.grad, b.grad)
            _close(a, b)
