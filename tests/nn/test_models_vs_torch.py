"""Issue 6's model-level check: a 3-layer MLP and a small CNN, initialised with identical weights in
both libraries, give the same loss and the same gradient of every parameter over 3 SGD steps
(float32, relative error <= 1e-4). The conv before BatchNorm has no bias: its gradient is zero in exact
arithmetic, so both libraries would only be comparing rounding noise."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import typedtensor as tt
from tests.nn.helpers import copy_from_torch, has_autograd, to_np

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not has_autograd(), reason="needs the autograd engine")


def mlp(nn: Any) -> Any:
    return nn.Sequential(nn.Linear(64, 48), nn.ReLU(), nn.Linear(48, 32), nn.GELU(), nn.Linear(32, 10))


def cnn(nn: Any) -> Any:
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
        nn.Dropout(0.0), nn.Linear(64, 10),
    )


def _rel_err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-12))


@pytest.mark.parametrize(("build", "shape"), [(mlp, (32, 64)), (cnn, (16, 1, 8, 8))], ids=["mlp", "cnn"])
@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_three_sgd_steps_match_torch(build: Callable[[Any], Any], shape: tuple[int, ...], momentum: float) -> None:
    torch.manual_seed(0)
    ref = build(torch.nn)
    ours = build(tt.nn)
    copy_from_torch(ours, ref)
    opt_r = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=momentum)
    opt_o = tt.optim.SGD(ours.parameters(), lr=0.1, momentum=momentum)
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(0, 10, shape[0])
        opt_r.zero_grad()
        opt_o.zero_grad()
        loss_r = torch.nn.functional.cross_entropy(ref(torch.tensor(x)), torch.tensor(y))
        loss_o = tt.nn.functional.cross_entropy(ours(tt.tensor(x)), tt.tensor(y))
        loss_r.backward()
        loss_o.backward()
        assert abs(loss_o.item() - loss_r.item()) <= 1e-4 * abs(loss_r.item())
        for (name, po), (_, pr) in zip(ours.named_parameters(), ref.named_parameters(), strict=True):
            err = _rel_err(to_np(po.grad), pr.grad.numpy())
            assert err <= 1e-4, f"{name}: gradient relative error {err:.2e}"
        opt_r.step()
        opt_o.step()
    for (name, po), (_, pr) in zip(ours.named_parameters(), ref.named_parameters(), strict=True):
        assert _rel_err(to_np(po), pr.detach().numpy()) <= 1e-4, name
