"""Schedulers against torch's: the lr after every epoch, and resuming from a state dict."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

CASES: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("StepLR", lambda m, o: m.StepLR(o, step_size=3, gamma=0.5)),
    ("MultiStepLR", lambda m, o: m.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3)),
    ("ConstantLR", lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=4)),
    ("LinearLR", lambda m, o: m.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=6)),
    ("PolynomialLR", lambda m, o: m.PolynomialLR(o, total_iters=8, power=2.0)),
    ("CosineAnnealingLR", lambda m, o: m.CosineAnnealingLR(o, T_max=5, eta_min=0.01)),
    ("CosineAnnealingLR-long", lambda m, o: m.CosineAnnealingLR(o, T_max=3)),
    ("CosineAnnealingWarmRestarts", lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001)),
    ("CosineAnnealingWarmRestarts-1", lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=4)),
    ("ExponentialLR", lambda m, o: m.ExponentialLR(o, gamma=0.9)),
    ("LambdaLR", lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + e))),
    ("LambdaLR-per-group", lambda m, o: m.LambdaLR(o, [lambda e: 0.9**e, lambda e: 1 + e])),
    ("MultiplicativeLR", lambda m, o: m.MultiplicativeLR(o, lambda e: 0.95)),
    ("OneCycleLR", lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=15)),
    ("OneCycleLR-linear-3", lambda m, o: m.OneCycleLR(o, max_lr=[0.5, 2.0], epochs=3, steps_per_epoch=5,
                                                       anneal_strategy="linear", three_phase=True, pct_start=0.25)),
    ("CyclicLR", lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2)),
    ("CyclicLR-exp", lambda m, o: m.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2, mode="exp_range",
                                            gamma=0.9)),
    ("SequentialLR", lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.2, total_iters=3), m.ExponentialLR(o, gamma=0.8)], milestones=[4])),
    ("SequentialLR-3", lambda m, o: m.SequentialLR(
        o, [m.ConstantLR(o, factor=0.5, total_iters=2), m.CosineAnnealingLR(o, T_max=4), m.StepLR(o, 2)],
        milestones=[3, 8])),
    ("ChainedScheduler", lambda m, o: m.ChainedScheduler([m.ConstantLR(o, factor=0.1, total_iters=2), m.ExponentialLR(o, gamma=0.9)])),
]


def _pair(ctor: Callable[[Any, Any], Any]) -> tuple[Any, Any, Any, Any]:
    p = tt.nn.Parameter(tt.ones(1))
    q = torch.nn.Parameter(torch.ones(1))
    o1 = tt.optim.SGD([{"params": [p]}], lr=0.1, momentum=0.9)
    o2 = torch.optim.SGD([{"params": [q]}], lr=0.1, momentum=0.9)
    o1.add_param_group({"params": [tt.nn.Parameter(tt.ones(1))], "lr": 0.3})  # (a second group)
    o2.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.3})
    return o1, o2, ctor(tt.optim.lr_scheduler, o1), ctor(torch.optim.lr_scheduler, o2)


@pytest.mark.parametrize(("name", "ctor"), CASES, ids=[c[0] for c in CASES])
def test_schedule_matches_torch(name: str, ctor: Callable[[Any, Any], Any]) -> None:
    o1, o2, s1, s2 = _pair(ctor)
    assert s1.get_last_lr() == pytest.approx(s2.get_last_lr())
    for _ in range(14):
        o1.step()
        o2.step()
        s1.step()
        s2.step()
        assert s1.get_last_lr() == s2.get_last_lr()  # the same recurrences: the same floats
        assert [g["lr"] for g in o1.param_groups] == [g["lr"] for g in o2.param_groups]
        assert [g["momentum"] for g in o1.param_groups] == [g["momentum"] for g in o2.param_groups]


def test_resume_from_state_dict() -> None:
    o1, _, s1, _ = _pair(CASES[1][1])
    for _ in range(4):
        s1.step()
    state = s1.state_dict()
    o3, _, s3, _ = _pair(CASES[1][1])
    o3.load_state_dict(o1.state_dict())
    s3.load_state_dict(state)
    for _ in range(3):
        s1.step()
        s3.step()
    assert s1.get_last_lr() == s3.get_last_lr()


def test_errors() -> None:
    o, _, _, _ = _pair(CASES[0][1])
    with pytest.raises(ValueError, match="step_size"):
        tt.optim.lr_scheduler.StepLR(o, 0)
    with pytest.raises(TypeError, match="not an Optimizer"):
        tt.optim.lr_scheduler.StepLR(object(), 1)  # type: ignore[arg-type]
    fresh = tt.optim.SGD([tt.nn.Parameter(tt.ones(1))], lr=0.1)
    with pytest.raises(KeyError, match="initial_lr"):
        tt.optim.lr_scheduler.StepLR(fresh, 2, last_epoch=3)


def test_reduce_lr_on_plateau_matches_torch() -> None:
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.7, 0.7, 0.7, 0.7]
    for kw in ({"patience": 2}, {"mode": "max", "patience": 1, "factor": 0.5, "cooldown": 2},
               {"patience": 0, "threshold_mode": "abs", "threshold": 0.05, "min_lr": [0.05, 0.2]}):
        o1, o2, _, _ = _pair(CASES[0][1])
        s1 = tt.optim.lr_scheduler.ReduceLROnPlateau(o1, **kw)
        s2 = torch.optim.lr_scheduler.ReduceLROnPlateau(o2, **kw)
        for m in metrics:
            s1.step(m)
            s2.step(m)
            assert s1.get_last_lr() == s2.get_last_lr()
            assert s1.num_bad_epochs == s2.num_bad_epochs and s1.best == s2.best
        resumed = tt.optim.lr_scheduler.ReduceLROnPlateau(o1, **kw)
        resumed.load_state_dict(s1.state_dict())
        assert resumed.best == s1.best and resumed.num_bad_epochs == s1.num_bad_epochs


def test_epoch_argument_uses_the_closed_form_and_warns() -> None:
    _, _, s1, s2 = _pair(CASES[0][1])
    with pytest.warns(UserWarning, match="epoch parameter"):
        s1.step(7)
    with pytest.warns(UserWarning):
        s2.step(7)
    assert s1.get_last_lr() == s2.get_last_lr()


def test_scheduler_before_optimizer_warns() -> None:
    o = tt.optim.SGD([tt.nn.Parameter(tt.ones(1))], lr=0.1)
    s = tt.optim.lr_scheduler.StepLR(o, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()
