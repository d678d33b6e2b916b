"""Optimizer trajectories against torch's over several steps, with the same gradients fed to both
(so the optimizers are tested on their own, with or without the autograd engine)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.nn.helpers import close, to_np

torch = pytest.importorskip("torch")

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.01, "amsgrad": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.3, "amsgrad": True}),
]


def _params(rng: np.random.Generator) -> list[np.ndarray]:
    return [rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (3,), (2, 2, 2))]


@pytest.mark.parametrize(("name", "kw"), CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_trajectory_matches_torch(name: str, kw: dict[str, Any]) -> None:
    rng = np.random.default_rng(0)
    init = _params(rng)
    ours = [tt.nn.Parameter(tt.tensor(a.copy())) for a in init]
    ref = [torch.nn.Parameter(torch.tensor(a.copy())) for a in init]
    opt_o = getattr(tt.optim, name)(ours, **kw)
    opt_r = getattr(torch.optim, name)(ref, **kw)
    for step in range(8):
        for po, pr in zip(ours, ref, strict=True):
            g = rng.standard_normal(tuple(pr.shape)).astype(np.float32)
            po.grad, pr.grad = tt.tensor(g), torch.tensor(g)
        if step == 3:  # a parameter without a gradient is skipped by both
            ours[1].grad, ref[1].grad = None, None
        opt_o.step()
        opt_r.step()
        for po, pr in zip(ours, ref, strict=True):
            close(po, pr, rtol=1e-5, atol=1e-6)


def test_param_groups_and_zero_grad() -> None:
    a, b = tt.nn.Parameter(tt.ones(2)), tt.nn.Parameter(tt.ones(3))
    opt = tt.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["momentum"] == 0.9
    a.grad, b.grad = tt.ones(2), tt.ones(3)
    opt.step()
    close(a, np.full(2, 0.9))
    close(b, np.full(3, 0.5))
    opt.zero_grad(set_to_none=False)
    assert float(a.grad.sum()) == 0
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def test_constructor_errors() -> None:
    p = tt.nn.Parameter(tt.ones(2))
    with pytest.raises(ValueError, match="empty parameter list"):
        tt.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        tt.optim.Adam([p], lr=-1)
    with pytest.raises(ValueError, match="Nesterov"):
        tt.optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="more than one parameter group"):
        tt.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        tt.optim.SGD({p}, lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        tt.optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="beta"):
        tt.optim.AdamW([p], betas=(1.0, 0.9))


def test_state_dict_resumes_identically() -> None:
    rng = np.random.default_rng(3)
    init = _params(rng)
    grads = [[rng.standard_normal(a.shape).astype(np.float32) for a in init] for _ in range(6)]

    def run(split: bool) -> list[np.ndarray]:
        ps = [tt.nn.Parameter(tt.tensor(a.copy())) for a in init]
        opt = tt.optim.Adam(ps, lr=0.01, amsgrad=True)
        for i, gs in enumerate(grads):
            if split and i == 3:  # rebuild the optimizer from a saved state dict (through tt.save)
                saved = _roundtrip(opt.state_dict())
                opt = tt.optim.Adam(ps, lr=0.5)
                opt.load_state_dict(saved)
                assert opt.param_groups[0]["lr"] == 0.01
            for p, g in zip(ps, gs, strict=True):
                p.grad = tt.tensor(g)
            opt.step()
        return [to_np(p) for p in ps]

    for a, b in zip(run(False), run(True), strict=True):
        np.testing.assert_array_equal(a, b)


def _roundtrip(obj: Any) -> Any:
    import io

    buf = io.BytesIO()
    tt.save(obj, buf)
    buf.seek(0)
    return tt.load(buf)


def test_state_dict_layout_matches_torch() -> None:
    p, q = tt.nn.Parameter(tt.ones(2)), tt.nn.Parameter(tt.ones(3))
    opt = tt.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.2}], lr=0.1, momentum=0.9)
    p.grad, q.grad = tt.ones(2), tt.ones(3)
    opt.step()
    sd = opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"]
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert sorted(sd["state"]) == [0, 1] and "momentum_buffer" in sd["state"][0]
    with pytest.raises(ValueError, match="number of parameter groups"):
        tt.optim.SGD([p], lr=0.1).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size"):
        tt.optim.SGD([{"params": [p, q]}, {"params": []}], lr=0.1).load_state_dict(sd)


def test_step_with_closure_returns_its_loss() -> None:
    p = tt.nn.Parameter(tt.ones(1))
    opt = tt.optim.SGD([p], lr=0.1)

    def closure() -> float:
        p.grad = tt.ones(1)
        return 3.0

    assert opt.step(closure) == 3.0
    close(p, np.array([0.9]))
