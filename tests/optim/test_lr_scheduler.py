"""Schedulers against torch's: the lr after every epoch, and resuming from a state dict."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import typedtensor as tt

torch = pytest.importorskip("torch")

CASES: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("StepLR", lambda m, o: m.StepLR(o, step_size=3, gamma=0.5)),
    ("CosineAnnealingLR", lambda m, o: m.CosineAnnealingLR(o, T_max=5, eta_min=0.01)),
    ("CosineAnnealingLR-long", lambda m, o: m.CosineAnnealingLR(o, T_max=3)),
    ("ExponentialLR", lambda m, o: m.ExponentialLR(o, gamma=0.9)),
    ("LambdaLR", lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + e))),
]


def _pair(ctor: Callable[[Any, Any], Any]) -> tuple[Any, Any, Any, Any]:
    p = tt.nn.Parameter(tt.ones(1))
    q = torch.nn.Parameter(torch.ones(1))
    o1 = tt.optim.SGD([{"params": [p]}], lr=0.1, momentum=0.9)
    o2 = torch.optim.SGD([{"params": [q]}], lr=0.1, momentum=0.9)
    o1.add_param_group({"params": [tt.nn.Parameter(tt.ones(1))], "lr": 0.3})
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
        assert s1.get_last_lr() == pytest.approx(s2.get_last_lr(), rel=1e-12, abs=1e-15)
        assert [g["lr"] for g in o1.param_groups] == pytest.approx([g["lr"] for g in o2.param_groups])


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
