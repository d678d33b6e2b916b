"""``nn.init``: bounds and moments of each scheme, and torch's default initialisation of layers."""

from __future__ import annotations

import math

import numpy as np
import pytest

import typedtensor as tt
from tests.nn.helpers import to_np

init = tt.nn.init


def test_uniform_and_normal_statistics() -> None:
    t = init.uniform_(tt.empty(200, 100), -2.0, 3.0)
    a = to_np(t)
    assert a.min() >= -2.0 and a.max() <= 3.0 and abs(a.mean() - 0.5) < 0.05
    b = to_np(init.normal_(tt.empty(200, 100), 1.0, 2.0))
    assert abs(b.mean() - 1.0) < 0.05 and abs(b.std() - 2.0) < 0.05


def test_trunc_normal_stays_in_range() -> None:
    a = to_np(init.trunc_normal_(tt.empty(10000), mean=0.5, std=1.0, a=0.0, b=1.0))
    assert a.min() >= 0.0 and a.max() <= 1.0 and abs(a.mean() - 0.5) < 0.02
    with pytest.raises(ValueError):
        init.trunc_normal_(tt.empty(2), a=1.0, b=0.0)


def test_constant_zeros_ones_eye() -> None:
    assert to_np(init.constant_(tt.empty(3), 2.5)).tolist() == [2.5] * 3
    assert to_np(init.zeros_(tt.ones(2))).tolist() == [0, 0]
    assert to_np(init.ones_(tt.zeros(2))).tolist() == [1, 1]
    np.testing.assert_array_equal(to_np(init.eye_(tt.empty(2, 3))), np.eye(2, 3))


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
def test_kaiming_and_xavier_bounds(mode: str) -> None:
    w = tt.empty(64, 32, 3, 3)
    fan = 32 * 9 if mode == "fan_in" else 64 * 9
    bound = math.sqrt(3.0) * math.sqrt(2.0) / math.sqrt(fan)
    a = to_np(init.kaiming_uniform_(w, mode=mode, nonlinearity="relu"))
    assert np.abs(a).max() <= bound and np.abs(a).max() > 0.9 * bound
    n = to_np(init.kaiming_normal_(w, mode=mode, nonlinearity="relu"))
    assert abs(n.std() - math.sqrt(2.0 / fan)) < 0.05 * math.sqrt(2.0 / fan)
    xb = math.sqrt(6.0 / (32 * 9 + 64 * 9))
    x = to_np(init.xavier_uniform_(w))
    assert np.abs(x).max() <= xb
    xn = to_np(init.xavier_normal_(w, gain=2.0))
    assert abs(xn.std() - 2.0 * math.sqrt(2.0 / (32 * 9 + 64 * 9))) < 0.05 * xn.std()


def test_gain_and_fan_errors() -> None:
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    with pytest.raises(ValueError, match="Unsupported"):
        init.calculate_gain("swish")
    with pytest.raises(ValueError, match="fewer than 2"):
        init.xavier_uniform_(tt.empty(3))


def test_init_runs_outside_autograd() -> None:
    p = tt.nn.Parameter(tt.empty(4, 4))
    init.normal_(p)
    assert p.is_leaf and p.requires_grad


def test_layers_use_torch_default_bounds() -> None:
    lin = tt.nn.Linear(100, 50)
    b = 1 / math.sqrt(100)
    assert np.abs(to_np(lin.weight)).max() <= b and np.abs(to_np(lin.bias)).max() <= b
    conv = tt.nn.Conv2d(4, 8, 3)
    cb = 1 / math.sqrt(4 * 9)
    assert np.abs(to_np(conv.weight)).max() <= cb and np.abs(to_np(conv.weight)).max() > 0.8 * cb
    emb = to_np(tt.nn.Embedding(1000, 16).weight)
    assert abs(emb.std() - 1.0) < 0.05
    ln = tt.nn.LayerNorm(5)
    assert to_np(ln.weight).tolist() == [1] * 5 and to_np(ln.bias).tolist() == [0] * 5


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (64, 1, 5, 5), (9, 32, 3, 3), (5, 5)])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape: tuple[int, ...]) -> None:
    """``orthogonal_`` (super_resolution initialises its convolutions with it): the flattened
    ``rows x cols`` matrix has orthonormal columns when tall and orthonormal rows when wide, times the gain."""
    gain = init.calculate_gain("relu")
    w = to_np(init.orthogonal_(tt.empty(*shape), gain)).astype(np.float64)
    flat = w.reshape(shape[0], -1) / gain
    rows, cols = flat.shape
    gram = flat.T @ flat if rows >= cols else flat @ flat.T
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-5)
    assert np.linalg.matrix_rank(flat) == min(rows, cols)


def test_orthogonal_draws_differ_and_follow_the_seed() -> None:
    tt.manual_seed(3)
    a = to_np(init.orthogonal_(tt.empty(4, 4)))
    b = to_np(init.orthogonal_(tt.empty(4, 4)))
    tt.manual_seed(3)
    np.testing.assert_array_equal(to_np(init.orthogonal_(tt.empty(4, 4))), a)
    assert not np.allclose(a, b)


def test_orthogonal_rejects_vectors_and_runs_outside_autograd() -> None:
    with pytest.raises(ValueError, match="2 or more dimensions"):
        init.orthogonal_(tt.empty(5))
    w = tt.nn.Parameter(tt.empty(3, 4))
    assert init.orthogonal_(w) is w and w.grad_fn is None and w.requires_grad
    assert tuple(init.orthogonal_(tt.empty(0, 3)).shape) == (0, 3)
