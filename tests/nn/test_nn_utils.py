"""``nn.utils``: gradient clipping and parameter vectors against torch's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import typedtensor as tt
import typedtensor.nn as nn

torch = pytest.importorskip("torch")


def _pair(seed: int) -> tuple[list[object], list[object]]:
    rng = np.random.default_rng(seed)
    shapes = [(4, 3), (3,), (2, 2, 2)]
    ours, ref = [], []
    for s in shapes:
        w = rng.standard_normal(s).astype(np.float32)
        g = (rng.standard_normal(s) * 3).astype(np.float32)
        p, q = nn.Parameter(tt.tensor(w)), torch.nn.Parameter(torch.tensor(w))
        p.grad, q.grad = tt.tensor(g), torch.tensor(g)
        ours.append(p)
        ref.append(q)
    return ours, ref


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_matches_torch(norm_type: float, max_norm: float) -> None:
    ours, ref = _pair(0)
    total_o = nn.utils.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    total_r = torch.nn.utils.clip_grad_norm_(ref, max_norm, norm_type=norm_type)
    np.testing.assert_allclose(total_o.item(), total_r.item(), rtol=1e-6)
    assert total_o.ndim == 0
    for p, q in zip(ours, ref, strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_clip_grad_norm_skips_missing_grads_and_checks_finiteness() -> None:
    ours, ref = _pair(1)
    ours[1].grad, ref[1].grad = None, None
    np.testing.assert_allclose(
        nn.utils.clip_grad_norm_(ours, 1.0).item(), torch.nn.utils.clip_grad_norm_(ref, 1.0).item(), rtol=1e-6
    )
    assert ours[1].grad is None
    bad = nn.Parameter(tt.ones(2))
    bad.grad = tt.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([bad], 1.0, error_if_nonfinite=True)
    assert nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    single = nn.Parameter(tt.ones(3))
    single.grad = tt.full((3,), 2.0)
    nn.utils.clip_grad_norm_(single, 1.0)  # a lone tensor is accepted, as in torch
    np.testing.assert_allclose(single.grad.numpy(), np.full(3, 2.0 / (math.sqrt(12) + 1e-6)), rtol=1e-6)


def test_clip_grad_value_matches_torch() -> None:
    ours, ref = _pair(2)
    nn.utils.clip_grad_value_(ours, 0.7)
    torch.nn.utils.clip_grad_value_(ref, 0.7)
    for p, q in zip(ours, ref, strict=True):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_parameters_to_vector_and_back() -> None:
    ours, ref = _pair(3)
    v = nn.utils.parameters_to_vector(ours)
    np.testing.assert_array_equal(v.detach().numpy(), torch.nn.utils.parameters_to_vector(ref).detach().numpy())
    nn.utils.vector_to_parameters(v * 2, ours)
    torch.nn.utils.vector_to_parameters(torch.nn.utils.parameters_to_vector(ref) * 2, ref)
    for p, q in zip(ours, ref, strict=True):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    with pytest.raises(TypeError, match="expected torch\\.Tensor"):
        nn.utils.vector_to_parameters([1.0], ours)
    with pytest.raises(ValueError, match="1-d vector of 23 elements"):
        nn.utils.vector_to_parameters(tt.zeros(5), ours)


def test_clip_grad_norm_in_a_training_step() -> None:
    model = nn.Linear(4, 2)
    loss = (model(tt.randn(8, 4)) ** 2).sum() * 100
    loss.backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    assert total.item() > 0.25
    clipped = math.sqrt(sum(float((p.grad**2).sum()) for p in model.parameters()))
    assert abs(clipped - 0.25) < 1e-5
