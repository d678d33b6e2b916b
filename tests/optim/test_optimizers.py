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
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.3, "amsgrad": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-5, "weight_decay": 0.1, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.05, "initial_accumulator_value": 0.3}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "momentum": 0.8, "centered": True, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "maximize": True}),
    ("Adamax", {"lr": 0.01}),
    ("Adamax", {"lr": 0.02, "betas": (0.8, 0.95), "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "momentum_decay": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
]
STEPS = 20


def _params(rng: np.random.Generator) -> list[np.ndarray]:
    return [rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (3,), (2, 2, 2))]


def _param_pairs(rng: np.random.Generator) -> tuple[list[Any], list[Any]]:
    """The same three parameters as typedtensor's and as torch's."""
    init = _params(rng)
    return [tt.nn.Parameter(tt.tensor(a.copy())) for a in init], [torch.nn.Parameter(torch.tensor(a.copy())) for a in init]


@pytest.mark.parametrize(("name", "kw"), CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_trajectory_matches_torch(name: str, kw: dict[str, Any]) -> None:
    rng = np.random.default_rng(0)
    ours, ref = _param_pairs(rng)
    opt_o = getattr(tt.optim, name)(ours, **kw)
    opt_r = getattr(torch.optim, name)(ref, **kw)
    for step in range(STEPS):
        for po, pr in zip(ours, ref, strict=True):
            g = rng.standard_normal(tuple(pr.shape)).astype(np.float32)
            po.grad, pr.grad = tt.tensor(g), torch.tensor(g)
        if step == 3:  # a parameter without a gradient is skipped by both
            ours[1].grad, ref[1].grad = None, None
        opt_o.step()
        opt_r.step()
        for po, pr in zip(ours, ref, strict=True):
            close(po, pr, rtol=1e-5, atol=1e-6)


# every configuration a compiled step traces from its first step (SGD's dampening changes that step)
COMPILED = [(n, kw) for n, kw in CONFIGS if not kw.get("dampening")]


@pytest.mark.parametrize(("name", "kw"), COMPILED, ids=[f"{n}-{i}" for i, (n, _) in enumerate(COMPILED)])
def test_compiled_step_trajectory_matches_torch(name: str, kw: dict[str, Any]) -> None:
    # NOTE [ Compiled optimizer steps ]: the step traced once, cold (no state yet), then run as a
    # graph that writes the parameters and state in place; the gradients are captured tensors
    # refilled before every step
    rng = np.random.default_rng(0)
    ours, ref = _param_pairs(rng)
    for po in ours:
        po.grad = tt.zeros_like(po)
    opt_o = getattr(tt.optim, name)(ours, **kw)
    opt_r = getattr(torch.optim, name)(ref, **kw)
    step = tt.compile(lambda: opt_o.step())
    for _ in range(STEPS):
        for po, pr in zip(ours, ref, strict=True):
            g = rng.standard_normal(tuple(pr.shape)).astype(np.float32)
            po.grad.copy_(tt.tensor(g))
            pr.grad = torch.tensor(g)
        step()
        opt_r.step()
        for po, pr in zip(ours, ref, strict=True):
            close(po, pr, rtol=1e-5, atol=1e-6)
    assert step.traces == 1
    for po, pr in zip(ours, ref, strict=True):
        for k, v in opt_r.state[pr].items():
            close(opt_o.state[po][k], v, rtol=1e-5, atol=1e-6)


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


def _to_tt(x: Any) -> Any:
    """A torch state dict with every tensor converted to a typedtensor tensor (and back: _to_torch)."""
    if isinstance(x, torch.Tensor):
        return tt.tensor(x.detach().numpy().copy())
    if isinstance(x, dict):
        return {k: _to_tt(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_to_tt(v) for v in x)
    return x


def _to_torch(x: Any) -> Any:
    if isinstance(x, tt.Tensor):
        return torch.tensor(np.array(x.numpy()))
    if isinstance(x, dict):
        return {k: _to_torch(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_to_torch(v) for v in x)
    return x


@pytest.mark.parametrize(("name", "kw"), CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_state_dict_interchanges_with_torch(name: str, kw: dict[str, Any]) -> None:
    """Torch trains 4 steps; its state dict, converted tensor by tensor, continues in typedtensor for 4
    more; typedtensor's, converted back, continues in torch: both agree with torch throughout."""
    rng = np.random.default_rng(5)
    init = _params(rng)
    grads = [[rng.standard_normal(a.shape).astype(np.float32) for a in init] for _ in range(12)]
    ref = [torch.nn.Parameter(torch.tensor(a.copy())) for a in init]
    opt_r = getattr(torch.optim, name)(ref, **kw)

    def feed(params: list[Any], make: Any, gs: list[np.ndarray]) -> None:
        for p, g in zip(params, gs, strict=True):
            p.grad = make(g)

    for gs in grads[:4]:
        feed(ref, torch.tensor, gs)
        opt_r.step()
    ours = [tt.nn.Parameter(tt.tensor(p.detach().numpy().copy())) for p in ref]
    opt_o = getattr(tt.optim, name)(ours, **kw)
    theirs = opt_r.state_dict()
    opt_o.load_state_dict(_to_tt(theirs))
    assert sorted(opt_o.state_dict()["state"]) == sorted(theirs["state"])
    for i in theirs["state"]:
        assert sorted(opt_o.state_dict()["state"][i]) == sorted(theirs["state"][i])
    assert set(opt_o.param_groups[0]) == set(opt_r.param_groups[0])
    for gs in grads[4:8]:
        feed(ref, torch.tensor, gs)
        feed(ours, tt.tensor, gs)
        opt_r.step()
        opt_o.step()
    for po, pr in zip(ours, ref, strict=True):
        close(po, pr, rtol=1e-5, atol=1e-6)
    back = [torch.nn.Parameter(torch.tensor(np.array(p.detach().numpy()))) for p in ours]
    opt_b = getattr(torch.optim, name)(back, **kw)
    opt_b.load_state_dict(_to_torch(opt_o.state_dict()))
    for gs in grads[8:]:
        feed(ref, torch.tensor, gs)
        feed(back, torch.tensor, gs)
        opt_r.step()
        opt_b.step()
    for pb, pr in zip(back, ref, strict=True):
        np.testing.assert_allclose(pb.detach().numpy(), pr.detach().numpy(), rtol=1e-5, atol=1e-6)


def _rosenbrock(x: Any) -> Any:
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_matches_torch(line_search_fn: str | None) -> None:
    start = np.array([-1.5, 2.0], dtype=np.float64)
    xo, xr = tt.nn.Parameter(tt.tensor(start.copy())), torch.nn.Parameter(torch.tensor(start.copy()))
    oo = tt.optim.LBFGS([xo], lr=1, max_iter=10, history_size=5, line_search_fn=line_search_fn)
    orr = torch.optim.LBFGS([xr], lr=1, max_iter=10, history_size=5, line_search_fn=line_search_fn)
    losses_o: list[float] = []
    losses_r: list[float] = []

    def closure_o() -> Any:
        oo.zero_grad()
        loss = _rosenbrock(xo)
        loss.backward()
        losses_o.append(loss.item())
        return loss

    def closure_r() -> Any:
        orr.zero_grad()
        loss = _rosenbrock(xr)
        loss.backward()
        losses_r.append(loss.item())
        return loss

    for _ in range(4):
        first_o, first_r = oo.step(closure_o), orr.step(closure_r)
        np.testing.assert_allclose(first_o.item(), first_r.item(), rtol=1e-7)
    # the same number of evaluations: the same decisions; values to float64 rounding, which the
    # Rosenbrock valley amplifies to ~1e-9 over forty evaluations
    assert len(losses_o) == len(losses_r)
    np.testing.assert_allclose(losses_o, losses_r, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(xo.detach().numpy(), xr.detach().numpy(), rtol=1e-7)
    state = oo.state_dict()["state"][0]
    assert state["n_iter"] == orr.state_dict()["state"][0]["n_iter"]
    assert state["func_evals"] == orr.state_dict()["state"][0]["func_evals"]


def test_lbfgs_rejects_groups_and_trains_float32() -> None:
    a, b = tt.nn.Parameter(tt.ones(2)), tt.nn.Parameter(tt.ones(2))
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        tt.optim.LBFGS([{"params": [a]}, {"params": [b]}])
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((32, 3)).astype(np.float32), rng.standard_normal((32, 1)).astype(np.float32)
    lo, lr_ = tt.nn.Linear(3, 1), torch.nn.Linear(3, 1)
    lr_.load_state_dict({k: torch.tensor(np.array(v.numpy())) for k, v in lo.state_dict().items()})
    oo, orr = tt.optim.LBFGS(lo.parameters(), lr=0.5), torch.optim.LBFGS(lr_.parameters(), lr=0.5)
    xo, yo, xt, yt = tt.tensor(x), tt.tensor(y), torch.tensor(x), torch.tensor(y)

    def co() -> Any:
        oo.zero_grad()
        loss = ((lo(xo) - yo) ** 2).mean()
        loss.backward()
        return loss

    def cr() -> Any:
        orr.zero_grad()
        loss = ((lr_(xt) - yt) ** 2).mean()
        loss.backward()
        return loss

    for _ in range(3):
        oo.step(co)
        orr.step(cr)
    for p, q in zip(lo.parameters(), lr_.parameters(), strict=True):
        close(p, q, rtol=1e-4, atol=1e-5)


def test_state_is_a_defaultdict_and_hooks_run() -> None:
    p = tt.nn.Parameter(tt.ones(2))
    opt = tt.optim.SGD([p], lr=0.1)
    opt.state[p]["custom"] = 1  # torch's state is defaultdict(dict): no KeyError for a new parameter
    assert opt.state[p] == {"custom": 1}
    calls: list[str] = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    h3 = tt.optim.optimizer.register_optimizer_step_post_hook(lambda o, a, k: calls.append("global"))
    p.grad = tt.ones(2)
    opt.step()
    assert calls == ["pre", "post", "global"]
    for h in (h1, h2, h3):
        h.remove()
    opt.step()
    assert calls == ["pre", "post", "global"]


def test_state_entries_appear_as_torch_makes_them() -> None:
    """SGD without momentum keeps no state; Adagrad makes its state in the constructor."""
    p = tt.nn.Parameter(tt.ones(2))
    q = torch.nn.Parameter(torch.ones(2))
    o1, o2 = tt.optim.SGD([p], lr=0.1), torch.optim.SGD([q], lr=0.1)
    p.grad, q.grad = tt.ones(2), torch.ones(2)
    o1.step()
    o2.step()
    assert o1.state_dict()["state"] == o2.state_dict()["state"] == {}
    a1, a2 = tt.optim.Adagrad([p], initial_accumulator_value=0.5), torch.optim.Adagrad([q], initial_accumulator_value=0.5)
    assert sorted(a1.state_dict()["state"][0]) == sorted(a2.state_dict()["state"][0]) == ["step", "sum"]
    close(a1.state_dict()["state"][0]["sum"], a2.state_dict()["state"][0]["sum"])


def test_add_param_group_and_zero_grad_set_to_none_false() -> None:
    a, b = tt.nn.Parameter(tt.ones(2)), tt.nn.Parameter(tt.ones(3))
    opt = tt.optim.Adam([a], lr=0.1)
    opt.add_param_group({"params": b, "lr": 0.01})
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.01]
    assert opt.param_groups[1]["betas"] == (0.9, 0.999)
    a.grad, b.grad = tt.ones(2), tt.ones(3)
    opt.step()
    opt.zero_grad(set_to_none=False)
    assert a.grad is not None and float(a.grad.abs().sum()) == 0.0
    with pytest.raises(NotImplementedError, match="differentiable"):
        tt.optim.Adam([a], differentiable=True)


def test_a_plain_integer_step_counter_still_loads() -> None:
    """State dicts written before step counters became 0-d tensors (as torch's) keep working."""
    p = tt.nn.Parameter(tt.ones(2))
    opt = tt.optim.Adam([p], lr=0.1)
    p.grad = tt.ones(2)
    opt.step()
    sd = opt.state_dict()
    sd["state"][0]["step"] = 1
    fresh = tt.optim.Adam([p], lr=0.1)
    fresh.load_state_dict(sd)
    fresh.step()
    assert float(fresh.state[p]["step"].item()) == 2.0
