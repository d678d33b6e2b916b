"""The optimizers beyond SGD and Adam inside a compiled training step (NOTE [ Compiled optimizer
steps ] in typedtensor/optim/optimizer.py): traced from their first step, their step counts kept as
tensors, so every later call computes its step-dependent factors afresh; losses, parameters and
state equal eager mode's step for step, with one trace; each parameter's update is one fused kernel
writing the parameter and its state in place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.graph.test_compiled_optimizer import _data, _params, _step, compiled_equals_eager_step_for_step

OPTIMIZERS: dict[str, Callable[[list[Any]], Any]] = {
    "rmsprop": lambda ps: tt.optim.RMSprop(ps, lr=1e-2),
    "rmsprop-centered-momentum-wd": lambda ps: tt.optim.RMSprop(
        ps, lr=1e-2, momentum=0.9, centered=True, weight_decay=1e-3),
    "adagrad-lr-decay": lambda ps: tt.optim.Adagrad(ps, lr=5e-2, lr_decay=1e-1, initial_accumulator_value=0.1),
    "adamax": lambda ps: tt.optim.Adamax(ps, lr=1e-2, weight_decay=1e-3),
    "nadam": lambda ps: tt.optim.NAdam(ps, lr=1e-2),
    "nadam-decoupled-wd": lambda ps: tt.optim.NAdam(ps, lr=1e-2, weight_decay=1e-2, decoupled_weight_decay=True),
    # beta2 0.9: the variance is rectified from the third step on, so both of the update's forms run
    "radam": lambda ps: tt.optim.RAdam(ps, lr=1e-2, betas=(0.9, 0.9)),
    "radam-default-betas-maximize": lambda ps: tt.optim.RAdam(ps, lr=1e-2, maximize=True),
    "adadelta": lambda ps: tt.optim.Adadelta(ps, lr=1.0, weight_decay=1e-3),
}
STEPS = 8  # RAdam with torch's betas starts rectifying at its sixth step


def _close(a: Any, b: Any) -> None:
    """Equal to float32 rounding: the fused update may round an operation differently from eager's
    op-by-op kernels (a contracted multiply-add), and a momentum buffer carries that over the steps,
    so the absolute tolerance follows the tensor's own scale."""
    x, y = np.asarray(a.detach().numpy()), np.asarray(b.detach().numpy())
    np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6 * float(np.abs(y).max(initial=0.0)) + 1e-7)


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_compiled_step_equals_eager_step_for_step(name: str) -> None:
    compiled_equals_eager_step_for_step(OPTIMIZERS[name], STEPS, _close)


def _rho(step: int, beta2: float) -> float:
    rho_inf = 2 / (1 - beta2) - 1
    return rho_inf - 2 * step * beta2**step / (1 - beta2**step)


def test_the_radam_cases_cover_both_forms_of_the_update() -> None:
    """The test above runs each RAdam case past the step where the rectified form takes over."""
    assert _rho(1, 0.9) <= 5 < _rho(STEPS, 0.9)
    assert _rho(1, 0.999) <= 5 < _rho(STEPS, 0.999)


@pytest.mark.parametrize("name", ["rmsprop-centered-momentum-wd", "adamax", "adadelta", "nadam", "radam"])
def test_each_update_is_one_kernel_writing_in_place(name: str) -> None:
    x, y = _data()
    ps = _params(1)
    opt = OPTIMIZERS[name](ps)
    compiled = tt.compile(_step(ps, opt), params=ps)
    compiled(x, y)
    g = compiled.graph_for(x, y)
    per_param = {id(p): [t for t in opt.state[p].values() if t.dim() > 0] for p in ps}  # not the 0-d counters
    into = g.in_place_writes()
    state = [t for ts in per_param.values() for t in ts]
    written = {g.value(c).data.untyped_storage_ptr() for c in into.values()}
    assert {t.untyped_storage_ptr() for t in ps + state} <= written
    nodes = g.nodes()
    producer = {o: i for i, n in enumerate(nodes) for o in n.outputs}
    by_ptr = {g.value(c).data.untyped_storage_ptr(): producer[v] for v, c in into.items()}
    for p in ps:  # the parameter and all its state come out of one fused kernel
        kernels = {by_ptr[t.untyped_storage_ptr()] for t in [p, *per_param[id(p)]]}
        assert len(kernels) == 1
        assert nodes[kernels.pop()].op == "fused"
